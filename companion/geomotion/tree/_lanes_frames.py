r"""Frame and point kinematics, and stacked rows of frame pairs, compiled over lanes.

For every batch size (a single configuration is a block of one lane), on the placed
joint poses of :func:`geomotion.tree._lanes._block_poses`: each path is walked from the root for a whole
block of configurations at once (:func:`_path_walk`), about the first joint's placement
so that a tree far from the base origin keeps its precision, and every world column,
twist and bias is then mapped to the frame asked for (:func:`_to_frame`).
:func:`frame_kinematics` serves :func:`geomotion.tree.frame_kinematics` and the point
kinematics, :func:`relative_kinematics` :class:`geomotion.tree.FramePair`,
:func:`closure_rows` :class:`geomotion.tree.FramePairStack` (and so
:class:`geomotion.constraints.FrameClosure` and :class:`geomotion.constraints.ClosureSet`),
:func:`_closure_block` the closed-loop pass of ``geomotion.tree._closed_loop``, and
:func:`body_poses` the world poses that external wrenches given in world axes need.
"""

import numba
import numpy as np

from ._flat import KERNEL
from ._lanes import _block_poses, _block_width, _cross_motion


@numba.njit(**KERNEL)
def _to_frame(RA, pA, x, out, m):
    r"""x (6, W), a motion vector in base axes about the walk's origin, in the axes RA
    (3, 3, W) about the point pA (3, W): :math:`(R_A^T\omega,\ R_A^T(v + \omega\times
    p_A))`, lane by lane."""
    for l in range(m):
        u0 = x[3, l] + x[1, l] * pA[2, l] - x[2, l] * pA[1, l]
        u1 = x[4, l] + x[2, l] * pA[0, l] - x[0, l] * pA[2, l]
        u2 = x[5, l] + x[0, l] * pA[1, l] - x[1, l] * pA[0, l]
        for r in range(3):
            out[r, l] = RA[0, r, l] * x[0, l] + RA[1, r, l] * x[1, l] + RA[2, r, l] * x[2, l]
            out[3 + r, l] = RA[0, r, l] * u0 + RA[1, r, l] * u1 + RA[2, r, l] * u2


@numba.njit(**KERNEL)
def _path_walk(S, iv, nvj, path, Rl, pl, V, start, m, use_v, sign, o, R, p, Jw, twist, bias, w):
    r"""One path over lanes: from the base (identity rotation, position ``-o``: positions
    about the point ``o``), compose the
    placed poses (Rl, pl) into (R, p); add ``sign`` times each world column
    :math:`\mathrm{Ad}_{T_{0i}}S_i` into ``Jw`` (6, nv, W) at its own column; with
    ``use_v``, the twist and :math:`\dot J^0v` into ``twist`` and ``bias``.  ``w`` (4, 6,
    W) is work."""
    Rn, pn, col, sv = w[0, :3, :], w[0, 3:, :], w[1], w[2]
    cr = w[3]
    for r in range(3):
        for c in range(3):
            R[r, c, :m] = 1.0 if r == c else 0.0
        p[r, :m] = -o[r]
    twist[:, :m] = 0.0
    bias[:, :m] = 0.0
    for i in path:
        for r in range(3):  # p <- p + R pl[i], R <- R Rl[i] (a row of R at a time)
            for l in range(m):
                pn[r, l] = (
                    p[r, l] + R[r, 0, l] * pl[i, 0, l] + R[r, 1, l] * pl[i, 1, l]
                    + R[r, 2, l] * pl[i, 2, l]
                )  # fmt: skip
            for c in range(3):
                for l in range(m):
                    Rn[c, l] = (
                        R[r, 0, l] * Rl[i, 0, c, l] + R[r, 1, l] * Rl[i, 1, c, l]
                        + R[r, 2, l] * Rl[i, 2, c, l]
                    )  # fmt: skip
            for c in range(3):
                R[r, c, :m] = Rn[c, :m]
        p[:, :m] = pn[:, :m]
        if use_v:
            sv[:, :m] = 0.0
        for c in range(iv[i], iv[i] + nvj[i]):
            for r in range(3):
                for l in range(m):
                    col[r, l] = R[r, 0, l] * S[c, 0] + R[r, 1, l] * S[c, 1] + R[r, 2, l] * S[c, 2]
                    col[3 + r, l] = (
                        R[r, 0, l] * S[c, 3] + R[r, 1, l] * S[c, 4] + R[r, 2, l] * S[c, 5]
                    )
            for l in range(m):  # about the origin: v + p x w
                col[3, l] += p[1, l] * col[2, l] - p[2, l] * col[1, l]
                col[4, l] += p[2, l] * col[0, l] - p[0, l] * col[2, l]
                col[5, l] += p[0, l] * col[1, l] - p[1, l] * col[0, l]
            for r in range(6):
                for l in range(m):
                    Jw[r, c, l] += sign * col[r, l]
            if use_v:
                for r in range(6):
                    for l in range(m):
                        sv[r, l] += col[r, l] * V[start + l, c]
        if use_v:  # twist += S v, bias += twist x S v
            for r in range(6):
                for l in range(m):
                    twist[r, l] += sv[r, l]
            _cross_motion(twist, sv, cr, m)
            for r in range(6):
                for l in range(m):
                    bias[r, l] += cr[r, l]


@numba.njit(**KERNEL)
def _zero_columns(Jw, iv, nvj, path, m):
    """Jw[:, c, :m] = 0 for the columns of the joints on ``path``."""
    for i in path:
        for c in range(iv[i], iv[i] + nvj[i]):
            Jw[:, c, :m] = 0.0


@numba.njit(**KERNEL)
def _frame_of(R, p, F, RF, pF, m):
    """The pose (R, p) times the constant pose F (4, 4), lanes: RF = R F_R, pF = p + R F_p."""
    for r in range(3):
        for l in range(m):
            pF[r, l] = p[r, l] + R[r, 0, l] * F[0, 3] + R[r, 1, l] * F[1, 3] + R[r, 2, l] * F[2, 3]
        for c in range(3):
            for l in range(m):
                RF[r, c, l] = R[r, 0, l] * F[0, c] + R[r, 1, l] * F[1, c] + R[r, 2, l] * F[2, c]


@numba.njit(**KERNEL)
def frame_kinematics(
    parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, path, F, reference, row0, Q, V, use_v,
    use_j, T, J, Vel, Bias,
):  # fmt: skip
    r"""Pose, Jacobian and (with ``use_v``) twist and bias of a frame fixed in the last body
    of ``path``, block by block; every tree, every joint model.

    The placed poses of the path's joints (:func:`_block_poses`), composed from the root
    about the first joint's placement (precision far from the base origin), give the
    body's world pose, its world columns :math:`J^0` and, with ``V``, its twist
    :math:`\mathcal V^0` and bias :math:`\dot J^0v` (:func:`_path_walk`).  With the
    frame's pose :math:`T_{0F} = T_{0b}F` (``F`` (1 or B, 4, 4)), each is mapped by
    :func:`_to_frame` to the ``reference`` (0 world: unchanged; 1 local: frame axes about
    its origin; 2 local world aligned: base axes about its origin, and the bias becomes
    the classical acceleration by adding :math:`\omega\times\dot p`).  Outputs: ``T``
    (B, 4, 4); rows ``row0``..5 of the Jacobian into ``J`` (B, 6 - row0, nv) with
    ``use_j`` (zero on entry: the columns off the path stay zero); the twist and bias
    into ``Vel`` and ``Bias`` (B, 6) with ``use_v``.
    """
    n, nv, B = parent.shape[0], S.shape[0], Q.shape[0]
    W = _block_width(B)
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    R, RA = np.empty((3, 3, W)), np.empty((3, 3, W))
    p, pA = np.empty((3, W)), np.empty((3, W))
    Jw = np.zeros((6, nv, W))
    vectors, w = np.empty((4, 6, W)), np.empty((4, 6, W))
    twist, bias, y, z = vectors[0], vectors[1], vectors[2], vectors[3]
    o = p0[path[0]]
    for start in range(0, B, W):
        m = min(W, B - start)
        _block_poses(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, path)
        _zero_columns(Jw, iv, nvj, path, m)
        _path_walk(S, iv, nvj, path, Rl, pl, V, start, m, use_v, 1.0, o, R, p, Jw, twist, bias, w)
        for l in range(m):  # T_0F = T_0b F, and the reference's axes RA and origin pA
            Fb = F[start + l if F.shape[0] > 1 else 0]
            t = T[start + l]
            for r in range(3):
                pf = p[r, l] + R[r, 0, l] * Fb[0, 3] + R[r, 1, l] * Fb[1, 3] + R[r, 2, l] * Fb[2, 3]
                pA[r, l] = -o[r] if reference == 0 else pf
                t[r, 3] = pf + o[r]
                t[3, r] = 0.0
                for c in range(3):
                    rf = R[r, 0, l] * Fb[0, c] + R[r, 1, l] * Fb[1, c] + R[r, 2, l] * Fb[2, c]
                    t[r, c] = rf
                    RA[r, c, l] = rf if reference == 1 else (1.0 if r == c else 0.0)
            t[3, 3] = 1.0
        if use_j:
            for i in path:
                for c in range(iv[i], iv[i] + nvj[i]):
                    _to_frame(RA, pA, Jw[:, c], y, m)
                    for l in range(m):
                        for r in range(row0, 6):
                            J[start + l, r - row0, c] = y[r, l]
        if use_v:
            _to_frame(RA, pA, twist, z, m)
            _to_frame(RA, pA, bias, y, m)
            for l in range(m):
                for r in range(6):
                    Vel[start + l, r] = z[r, l]
                    Bias[start + l, r] = y[r, l]
                if reference == 2:  # + omega x p_dot
                    Bias[start + l, 3] += z[1, l] * z[5, l] - z[2, l] * z[4, l]
                    Bias[start + l, 4] += z[2, l] * z[3, l] - z[0, l] * z[5, l]
                    Bias[start + l, 5] += z[0, l] * z[4, l] - z[1, l] * z[3, l]


@numba.njit(**KERNEL)
def _near_origin(p0, path_a, path_b, o):
    """The point a pair's walks measure positions from: the first body's placement on a
    nonempty path (the base origin when both are empty), into ``o`` (3,)."""
    path = path_a if path_a.shape[0] > 0 else path_b
    for r in range(3):
        o[r] = p0[path[0], r] if path.shape[0] > 0 else 0.0


@numba.njit(**KERNEL)
def _walk_pair(p0, iv, nvj, S, path_a, path_b, Fa, Rl, pl, V, start, m, use_v, o, Jd, poses,
               points, vectors, w):  # fmt: skip
    r"""Both paths of a frame pair walked about one point (:func:`_near_origin`, into
    ``o``), with signs -1 and +1 into one array of world columns :math:`J^0_b - J^0_a`,
    ``Jd`` (6, nv, W) (only the paths' columns are written); body a's pose into
    ``poses[0]``, ``points[0]``, body b's into ``poses[1]``, ``points[1]``, frame a's
    (body a's times ``Fa``) into ``poses[2]``, ``points[2]``; with ``use_v`` the twists
    and biases of a and b into ``vectors[0..3]``."""
    _near_origin(p0, path_a, path_b, o)
    _zero_columns(Jd, iv, nvj, path_a, m)
    _zero_columns(Jd, iv, nvj, path_b, m)
    _path_walk(
        S, iv, nvj, path_a, Rl, pl, V, start, m, use_v, -1.0, o, poses[0], points[0], Jd,
        vectors[0], vectors[1], w,
    )  # fmt: skip
    _path_walk(
        S, iv, nvj, path_b, Rl, pl, V, start, m, use_v, 1.0, o, poses[1], points[1], Jd,
        vectors[2], vectors[3], w,
    )  # fmt: skip
    _frame_of(poses[0], points[0], Fa, poses[2], points[2], m)


@numba.njit(**KERNEL)
def _pair_twist_and_bias(RA, pA, vectors, m):
    r"""The relative twist :math:`\mathcal V_{ab} = X(\mathcal V^0_b - \mathcal V^0_a)`
    into ``vectors[5]`` and :math:`\gamma = X(\dot J^0_bv - \dot J^0_av) -
    (X\mathcal V^0_a)\times\mathcal V_{ab}` into ``vectors[8]``, from the twists and
    biases that :func:`_walk_pair` left in ``vectors[0..3]``; ``X`` maps to the axes RA
    about the point pA (:func:`_to_frame`); ``vectors[4, 6, 7]`` are work."""
    Va, Ba, Vb, Bb = vectors[0], vectors[1], vectors[2], vectors[3]
    x, Wab, ya, cr, g6 = vectors[4], vectors[5], vectors[6], vectors[7], vectors[8]
    x[:, :m] = Vb[:, :m] - Va[:, :m]
    _to_frame(RA, pA, x, Wab, m)
    _to_frame(RA, pA, Va, ya, m)
    _cross_motion(ya, Wab, cr, m)
    x[:, :m] = Bb[:, :m] - Ba[:, :m]
    _to_frame(RA, pA, x, g6, m)
    g6[:, :m] -= cr[:, :m]


@numba.njit(**KERNEL)
def _closure_block(
    p0, iv, nvj, S, paths, ends, frames, rows, Rl, pl, V, start, m, use_v, use_j, Jl, Gl, Jd,
    poses, points, vectors, w,
):  # fmt: skip
    r"""The stacked rows of frame pairs for one block, lane-major: Jacobian rows into
    ``Jl`` (c, nv, W) with ``use_j`` (only the columns of each pair's paths are written:
    zero the rest once), bias entries into ``Gl`` (c, W) with ``use_v``.  Per pair, the
    two paths are walked about the same point (:func:`_path_walk`, signs -1 and +1 into
    one array of columns :math:`J^0_b - J^0_a`, ``Jd`` (6, nv, W)); with :math:`X` the
    map to frame a's axes about its origin (:func:`_to_frame`): :math:`J = X(J^0_b -
    J^0_a)` and :math:`\gamma = X(\dot J^0_bv - \dot J^0_av) - (X\mathcal V^0_a)\times
    X(\mathcal V^0_b - \mathcal V^0_a)`.  ``poses`` (3, 3, 3, W), ``points`` (3, 3, W),
    ``vectors`` (10, 6, W) and ``w`` (4, 6, W) are work."""
    x, g6 = vectors[4], vectors[8]
    o = vectors[9, :3, 0]
    RA, pA = poses[2], points[2]
    for k in range(frames.shape[0] // 2):
        path_a = paths[ends[2 * k] : ends[2 * k + 1]]
        path_b = paths[ends[2 * k + 1] : ends[2 * k + 2]]
        _walk_pair(
            p0, iv, nvj, S, path_a, path_b, frames[2 * k], Rl, pl, V, start, m, use_v, o, Jd,
            poses, points, vectors, w,
        )  # fmt: skip
        if use_j:
            for path in (path_a, path_b):
                for i in path:
                    for c in range(iv[i], iv[i] + nvj[i]):
                        _to_frame(RA, pA, Jd[:, c], x, m)
                        for out in range(rows.shape[0]):
                            if rows[out, 0] == k:
                                Jl[out, c, :m] = x[rows[out, 1], :m]
        if use_v:
            _pair_twist_and_bias(RA, pA, vectors, m)
            for out in range(rows.shape[0]):
                if rows[out, 0] == k:
                    Gl[out, :m] = g6[rows[out, 1], :m]


@numba.njit(**KERNEL)
def _closure_work(n, nv, c, paths, W):
    """Work arrays of :func:`_closure_block` for blocks of W lanes, the bodies on the
    paths, and the columns they move (``moved[j]``)."""
    on_path, moved = np.zeros(n, dtype=np.bool_), np.zeros(nv, dtype=np.bool_)
    for i in paths:
        on_path[i] = True
    return (
        np.zeros((c, nv, W)), np.empty((c, W)), np.zeros((6, nv, W)), np.empty((3, 3, 3, W)),
        np.empty((3, 3, W)), np.empty((10, 6, W)), np.empty((4, 6, W)), np.flatnonzero(on_path),
        moved,
    )  # fmt: skip


@numba.njit(**KERNEL)
def closure_rows(
    parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, paths, ends, frames, rows, Q, V, use_v, use_j,
    J, G,
):  # fmt: skip
    r"""The selected rows of several frame pairs' relative Jacobians and biases
    (:func:`relative_kinematics`), stacked, block by block
    (:func:`_closure_block`): pair ``k`` walks ``paths[ends[2k]:ends[2k+1]]`` (a) and
    ``paths[ends[2k+1]:ends[2k+2]]`` (b) with frames ``frames[2k]``, ``frames[2k+1]``;
    ``rows`` (c, 2) lists (pair, component) for each output row.  Jacobian rows into
    ``J`` (B, c, nv) with ``use_j`` (zero on entry), bias rows into ``G`` (B, c) with
    ``use_v``."""
    n, nv, B, c = parent.shape[0], S.shape[0], Q.shape[0], rows.shape[0]
    W = _block_width(B)
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    Jl, Gl, Jd, poses, points, vectors, w, bodies, moved = _closure_work(n, nv, c, paths, W)
    for i in bodies:
        moved[iv[i] : iv[i] + nvj[i]] = True
    for start in range(0, B, W):
        m = min(W, B - start)
        _block_poses(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, bodies)
        _closure_block(
            p0, iv, nvj, S, paths, ends, frames, rows, Rl, pl, V, start, m, use_v, use_j, Jl,
            Gl, Jd, poses, points, vectors, w,
        )  # fmt: skip
        for l in range(m):
            for out in range(c):
                if use_j:
                    for j in range(nv):
                        if moved[j]:
                            J[start + l, out, j] = Jl[out, j, l]
                if use_v:
                    G[start + l, out] = Gl[out, l]


@numba.njit(**KERNEL)
def relative_kinematics(
    parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, path_a, path_b, Fa, Fb, Q, V, use_v,
    use_j, T, J, W, G,
):  # fmt: skip
    r"""Pose of frame b in frame a, the relative-twist Jacobian in a's axes and (with
    ``use_v``) the relative twist and its bias, block by block.

    Frame a is fixed in the last body of ``path_a`` at the constant pose ``Fa`` (4, 4),
    frame b likewise; an empty path is the ground.  Both paths are walked about the same
    point (:func:`_near_origin`, :func:`_path_walk`), giving the world columns
    :math:`J^0_b - J^0_a`, the twists :math:`\mathcal V^0` and the biases
    :math:`\dot J^0v`.  With :math:`X` the map from those motion vectors to frame a's
    axes about its origin (:func:`_to_frame`): :math:`T_{ab} = T_{0a}^{-1}T_{0b}` into
    ``T`` (B, 4, 4); :math:`J = X(J^0_b - J^0_a)` into ``J`` (B, 6, nv) with ``use_j``
    (zero on entry: the columns off both paths stay zero); :math:`\mathcal V_{ab} =
    X(\mathcal V^0_b - \mathcal V^0_a)` into ``W`` and :math:`\gamma = X(\dot J^0_bv -
    \dot J^0_av) - (X\mathcal V^0_a)\times\mathcal V_{ab}` into ``G`` (B, 6) with
    ``use_v``.
    """
    n, nv, B = parent.shape[0], S.shape[0], Q.shape[0]
    width = _block_width(B)
    Rl, pl = np.empty((n, 3, 3, width)), np.empty((n, 3, width))
    Jd = np.zeros((6, nv, width))
    poses, points = np.empty((4, 3, 3, width)), np.empty((4, 3, width))
    vectors, w = np.empty((9, 6, width)), np.empty((4, 6, width))
    x, Wab, g6 = vectors[4], vectors[5], vectors[8]
    o = np.empty(3)
    bodies = np.concatenate((path_a, path_b))
    RA, pA, RB, pB = poses[2], points[2], poses[3], points[3]
    for start in range(0, B, width):
        m = min(width, B - start)
        _block_poses(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, bodies)
        _walk_pair(
            p0, iv, nvj, S, path_a, path_b, Fa, Rl, pl, V, start, m, use_v, o, Jd, poses,
            points, vectors, w,
        )  # fmt: skip
        _frame_of(poses[1], points[1], Fb, RB, pB, m)
        for l in range(m):  # T_ab = T_0a^-1 T_0b
            t = T[start + l]
            for r in range(3):
                t[r, 3] = (
                    RA[0, r, l] * (pB[0, l] - pA[0, l]) + RA[1, r, l] * (pB[1, l] - pA[1, l])
                    + RA[2, r, l] * (pB[2, l] - pA[2, l])
                )  # fmt: skip
                t[3, r] = 0.0
                for c in range(3):
                    t[r, c] = (
                        RA[0, r, l] * RB[0, c, l] + RA[1, r, l] * RB[1, c, l]
                        + RA[2, r, l] * RB[2, c, l]
                    )  # fmt: skip
            t[3, 3] = 1.0
        if use_j:
            for path in (path_a, path_b):
                for i in path:
                    for c in range(iv[i], iv[i] + nvj[i]):
                        _to_frame(RA, pA, Jd[:, c], x, m)
                        for l in range(m):
                            for r in range(6):
                                J[start + l, r, c] = x[r, l]
        if use_v:
            _pair_twist_and_bias(RA, pA, vectors, m)
            for l in range(m):
                for r in range(6):
                    W[start + l, r] = Wab[r, l]
                    G[start + l, r] = g6[r, l]


@numba.njit(**KERNEL)
def body_poses(parent, jtype, bases, R0, p0, iq, Q, R, p):
    r"""Every body's pose in the base, ``R`` (B, N, 3, 3) and ``p`` (B, N, 3), block by
    block: the placed joint poses (:func:`_block_poses`) composed from the root,
    :math:`T_{0i} = T_{0\lambda(i)}T_{\lambda(i)i}`."""
    n, B = parent.shape[0], Q.shape[0]
    width = _block_width(B)
    Rl, pl = np.empty((n, 3, 3, width)), np.empty((n, 3, width))
    R0i, p0i = np.empty((n, 3, 3, width)), np.empty((n, 3, width))
    bodies = np.arange(n)
    for start in range(0, B, width):
        m = min(width, B - start)
        _block_poses(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, bodies)
        for i in range(n):
            k = parent[i]
            if k < 0:
                R0i[i, :, :, :m] = Rl[i, :, :, :m]
                p0i[i, :, :m] = pl[i, :, :m]
                continue
            for r in range(3):
                for l in range(m):
                    p0i[i, r, l] = (
                        p0i[k, r, l] + R0i[k, r, 0, l] * pl[i, 0, l]
                        + R0i[k, r, 1, l] * pl[i, 1, l] + R0i[k, r, 2, l] * pl[i, 2, l]
                    )  # fmt: skip
                for c in range(3):
                    for l in range(m):
                        R0i[i, r, c, l] = (
                            R0i[k, r, 0, l] * Rl[i, 0, c, l] + R0i[k, r, 1, l] * Rl[i, 1, c, l]
                            + R0i[k, r, 2, l] * Rl[i, 2, c, l]
                        )  # fmt: skip
        for l in range(m):
            for i in range(n):
                for r in range(3):
                    p[start + l, i, r] = p0i[i, r, l]
                    for c in range(3):
                        R[start + l, i, r, c] = R0i[i, r, c, l]
