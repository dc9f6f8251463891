r"""The compiled frame kinematics' entry points (numba), on the flat arrays of
:mod:`geomotion.tree._jit`: the pose, Jacobian and bias of a frame
(:func:`run_frame_kinematics`, what :func:`geomotion.tree.frame_kinematics` reads) and
chosen rows of several frame pairs (:func:`run_closure_rows`,
:class:`geomotion.tree.FramePairStack`) run the kernels of
``geomotion.tree._lanes_frames`` for every batch size; a frame seen from another frame
(:func:`relative_kinematics`, :class:`geomotion.tree.FramePair`) is computed here, one
configuration at a time.  Each walks only the bodies on the paths from the root to the
frames' bodies.
"""

import numba
import numpy as np

from . import _lanes_frames
from ._jit import _JIT, _cross_motion, _near_origin, _placed_pose, _rows, flat_tree


@numba.njit(**_JIT)
def _walk(jtype, screw, R0, p0, iq, iv, nvj, S, path, q, v, use_v, sign, o, R, p, Jw, twist, bias):
    """One path for one configuration: the last body's world pose into (R, p), ``sign``
    times its world columns added into ``Jw`` (6, nv), and its world twist and bias
    :math:`\\dot J^0v` into ``twist`` and ``bias``; positions, columns, twist and bias are
    taken about the point ``o`` (base coordinates, m) instead of the base origin.  With
    ``o`` near the bodies (``geomotion.tree._jit._near_origin``), a tree far from the base origin keeps
    its precision: about the base origin, every linear entry would carry the lever arm
    ``o x omega`` and lose its digits when a frame's origin is subtracted again."""
    RJ, pJ, Rn, Rl, pl = (
        np.empty((3, 3)),
        np.empty(3),
        np.empty((3, 3)),
        np.empty((3, 3)),
        np.empty(3),
    )
    sv, tmp, col = np.empty(6), np.empty(6), np.empty(6)
    for r in range(3):
        p[r] = -o[r]
        for s in range(3):
            R[r, s] = 1.0 if r == s else 0.0
    for r in range(6):
        twist[r] = 0.0
        bias[r] = 0.0
    for i in path:  # T_0i = T_0p (R_l, p_l)
        _placed_pose(jtype, screw, R0, p0, iq, q, i, RJ, pJ, Rl, pl)
        for r in range(3):
            acc = p[r]
            for k in range(3):
                acc += R[r, k] * pl[k]
            tmp[r] = acc
            for s in range(3):
                Rn[r, s] = R[r, 0] * Rl[0, s] + R[r, 1] * Rl[1, s] + R[r, 2] * Rl[2, s]
        for r in range(3):
            p[r] = tmp[r]
            for s in range(3):
                R[r, s] = Rn[r, s]
        for r in range(6):
            sv[r] = 0.0
        for k in range(nvj[i]):
            c = iv[i] + k
            w0 = R[0, 0] * S[c, 0] + R[0, 1] * S[c, 1] + R[0, 2] * S[c, 2]
            w1 = R[1, 0] * S[c, 0] + R[1, 1] * S[c, 1] + R[1, 2] * S[c, 2]
            w2 = R[2, 0] * S[c, 0] + R[2, 1] * S[c, 1] + R[2, 2] * S[c, 2]
            u0 = R[0, 0] * S[c, 3] + R[0, 1] * S[c, 4] + R[0, 2] * S[c, 5]
            u1 = R[1, 0] * S[c, 3] + R[1, 1] * S[c, 4] + R[1, 2] * S[c, 5]
            u2 = R[2, 0] * S[c, 3] + R[2, 1] * S[c, 4] + R[2, 2] * S[c, 5]
            col[0], col[1], col[2] = w0, w1, w2
            col[3] = u0 + p[1] * w2 - p[2] * w1
            col[4] = u1 + p[2] * w0 - p[0] * w2
            col[5] = u2 + p[0] * w1 - p[1] * w0
            for r in range(6):
                Jw[r, c] += sign * col[r]
            if use_v:
                for r in range(6):
                    sv[r] += col[r] * v[c]
        if use_v:
            for r in range(6):
                twist[r] += sv[r]
            _cross_motion(twist, sv, tmp)
            for r in range(6):
                bias[r] += tmp[r]


#: Codes of the ``reference`` argument of ``geomotion.tree._lanes_frames.frame_kinematics``.
REFERENCE_CODES = {"world": 0, "local": 1, "local_world_aligned": 2}


def run_frame_kinematics(model, q, v, path, frame, reference, jacobian=True, row0=0):
    """Pose (..., 4, 4), Jacobian rows ``row0``..5 (..., 6 - row0, nv) or None, twist and
    bias (..., 6) or None without ``v``, by ``geomotion.tree._lanes_frames.frame_kinematics``.
    ``frame`` (..., 4, 4) broadcasts with the configurations; ``reference`` is a key of
    :data:`REFERENCE_CODES`."""
    shapes = [q.shape[:-1], frame.shape[:-2]] + ([] if v is None else [v.shape[:-1]])
    batch = np.broadcast_shapes(*shapes)
    Q = _rows(q, batch, q.shape[-1:])
    n = Q.shape[0]
    use_v = v is not None
    V = _rows(v, batch, v.shape[-1:]) if use_v else np.zeros((1, model.nv))
    F = _rows(frame, batch, (4, 4)) if frame.shape[:-2] else frame.reshape(1, 4, 4)
    F = np.ascontiguousarray(F, dtype=np.float64)
    T = np.empty((n, 4, 4))
    J = np.zeros((n if jacobian else 1, 6 - row0, model.nv))
    Vel, Bias = np.empty((n if use_v else 1, 6)), np.empty((n if use_v else 1, 6))
    _lanes_frames.frame_kinematics(
        *flat_tree(model).arrays(), np.array(path, dtype=np.int64), F,
        REFERENCE_CODES[reference], row0, Q, V, use_v, jacobian, T, J, Vel, Bias,
    )  # fmt: skip
    T = T.reshape(batch + (4, 4))
    J = J.reshape(batch + (6 - row0, model.nv)) if jacobian else None
    if not use_v:
        return T, J, None, None
    return T, J, Vel.reshape(batch + (6,)), Bias.reshape(batch + (6,))


@numba.njit(**_JIT)
def _to_frame(RA, pA, x, out):
    """A world (base-origin) motion vector in frame A's axes about its origin:
    :math:`(R_A^T\\omega,\\ R_A^T(v_O + \\omega\\times p_A))`."""
    u0 = x[3] + x[1] * pA[2] - x[2] * pA[1]
    u1 = x[4] + x[2] * pA[0] - x[0] * pA[2]
    u2 = x[5] + x[0] * pA[1] - x[1] * pA[0]
    for r in range(3):
        out[r] = RA[0, r] * x[0] + RA[1, r] * x[1] + RA[2, r] * x[2]
        out[3 + r] = RA[0, r] * u0 + RA[1, r] * u1 + RA[2, r] * u2


@numba.njit(**_JIT)
def _relative_one(
    jtype, screw, R0, p0, iq, iv, nvj, S, path_a, path_b, Fa, Fb, q, v, use_v, Jw, R3, w6, T, W, G
):
    r"""One configuration of :func:`relative_kinematics`: :math:`T_{ab}` into ``T`` (4, 4),
    the world columns :math:`J^0_b - J^0_a` into ``Jw`` (6, nv), frame a's pose into
    ``R3[2]`` (rotation) and ``w6[8, :3]`` (origin), and with ``use_v`` the relative twist
    and the bias into ``W`` and ``G`` (6,); columns, origin, twists and biases are taken
    about the point ``w6[9, :3]`` (``geomotion.tree._jit._near_origin``).  ``R3`` (4, 3, 3) and ``w6``
    (10, 6) are work."""
    Ra, Rb, RA, RB = R3[0], R3[1], R3[2], R3[3]
    pa, pb, pA, pB = w6[0, :3], w6[0, 3:], w6[8, :3], w6[8, 3:]
    Va, Ba, Vb, Bb = w6[1], w6[2], w6[3], w6[4]
    x, y, cross = w6[5], w6[6], w6[7]
    Jw[:, :] = 0.0
    o = w6[9, :3]  # positions about o: T_ab and the results in a's axes depend on
    _near_origin(p0, path_a, path_b, o)  # differences of positions only
    _walk(jtype, screw, R0, p0, iq, iv, nvj, S, path_a, q, v, use_v, -1.0, o, Ra, pa, Jw, Va, Ba)
    _walk(jtype, screw, R0, p0, iq, iv, nvj, S, path_b, q, v, use_v, 1.0, o, Rb, pb, Jw, Vb, Bb)
    for r in range(3):  # frame poses T_0A = T_0a Fa, T_0B = T_0b Fb
        pA[r] = pa[r] + Ra[r, 0] * Fa[0, 3] + Ra[r, 1] * Fa[1, 3] + Ra[r, 2] * Fa[2, 3]
        pB[r] = pb[r] + Rb[r, 0] * Fb[0, 3] + Rb[r, 1] * Fb[1, 3] + Rb[r, 2] * Fb[2, 3]
        for s in range(3):
            RA[r, s] = Ra[r, 0] * Fa[0, s] + Ra[r, 1] * Fa[1, s] + Ra[r, 2] * Fa[2, s]
            RB[r, s] = Rb[r, 0] * Fb[0, s] + Rb[r, 1] * Fb[1, s] + Rb[r, 2] * Fb[2, s]
    for r in range(3):  # T_ab = T_0A^-1 T_0B
        d = 0.0
        for k in range(3):
            d += RA[k, r] * (pB[k] - pA[k])
        T[r, 3] = d
        T[3, r] = 0.0
        for s in range(3):
            T[r, s] = RA[0, r] * RB[0, s] + RA[1, r] * RB[1, s] + RA[2, r] * RB[2, s]
    T[3, 3] = 1.0
    if use_v:
        for r in range(6):
            x[r] = Vb[r] - Va[r]
        _to_frame(RA, pA, x, W)
        _to_frame(RA, pA, Va, y)
        _cross_motion(y, W, cross)
        for r in range(6):
            x[r] = Bb[r] - Ba[r]
        _to_frame(RA, pA, x, y)
        for r in range(6):
            G[r] = y[r] - cross[r]


@numba.njit(**_JIT)
def relative_kinematics(
    parent,
    jtype,
    screw,
    R0,
    p0,
    iq,
    iv,
    nvj,
    S,
    I,
    path_a,
    path_b,
    Fa,
    Fb,
    Q,
    V,
    use_v,
    use_j,
    T,
    J,
    W,
    G,
):
    r"""Pose of frame b in frame a, the relative-twist Jacobian in a's axes and (with
    ``use_v``) its bias, batched: the fused form of two :func:`path_kinematics` walks.

    With world columns :math:`J^0_a, J^0_b`, twists :math:`\mathcal V^0` and biases
    :math:`\dot J^0v` of the two bodies, :math:`X` the map from world (base-origin)
    motion vectors to frame a's axes about its origin:
    :math:`J = X(J^0_b - J^0_a)` into ``J`` (B, 6, nv),
    :math:`\gamma = X(\dot J^0_bv - \dot J^0_av) - \mathcal V_a\times\mathcal V_{ab}` into
    ``G`` (B, 6) (:math:`\mathcal V_a = X\mathcal V^0_a`, :math:`\mathcal V_{ab} =
    X(\mathcal V^0_b - \mathcal V^0_a)` into ``W`` (B, 6)), and :math:`T_{ab} =
    T_{0a}^{-1}T_{0b}` into ``T`` (B, 4, 4).  An empty path is the ground.  Without
    ``use_j`` the Jacobian is not written (``J`` may be a (1, 6, nv) placeholder).
    """
    nv = S.shape[0]
    Jw, R3, w6, x, y = (
        np.empty((6, nv)),
        np.empty((4, 3, 3)),
        np.empty((10, 6)),
        np.empty(6),
        np.empty(6),
    )
    for b in range(Q.shape[0]):
        _relative_one(
            jtype, screw, R0, p0, iq, iv, nvj, S, path_a, path_b, Fa, Fb, Q[b],
            V[b if use_v else 0], use_v, Jw, R3, w6, T[b], W[b], G[b],
        )  # fmt: skip
        if use_j:
            for c in range(nv):
                for r in range(6):
                    x[r] = Jw[r, c]
                _to_frame(R3[2], w6[8, :3], x, y)
                for r in range(6):
                    J[b, r, c] = y[r]


def run_relative_kinematics(model, q, v, path_a, path_b, frame_a, frame_b, jacobian=True):
    """(T_ab (..., 4, 4), J (..., 6, nv) or None, twist and gamma (..., 6) or None) by the
    fused kernel; ``jacobian=False`` skips J (the bias alone)."""
    batch = q.shape[:-1] if v is None else np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    Q = _rows(q, batch, q.shape[-1:])
    use_v = v is not None
    V = _rows(v, batch, v.shape[-1:]) if use_v else np.zeros((1, model.nv))
    n = Q.shape[0]
    J = np.empty((n if jacobian else 1, 6, model.nv))
    T, W, G = np.empty((n, 4, 4)), np.empty((n, 6)), np.empty((n, 6))
    relative_kinematics(
        *flat_tree(model).arrays(),
        np.array(path_a, dtype=np.int64),
        np.array(path_b, dtype=np.int64),
        np.ascontiguousarray(frame_a, dtype=np.float64),
        np.ascontiguousarray(frame_b, dtype=np.float64),
        Q,
        V,
        use_v,
        jacobian,
        T,
        J,
        W,
        G,
    )
    T = T.reshape(batch + (4, 4))
    J = J.reshape(batch + (6, model.nv)) if jacobian else None
    if not use_v:
        return T, J, None, None
    return T, J, W.reshape(batch + (6,)), G.reshape(batch + (6,))


def run_closure_rows(model, q, v, paths, ends, frames, rows, jacobian=True):
    """Stacked rows of frame pairs (``geomotion.tree._lanes_frames.closure_rows``): J (..., c,
    nv) or None, and gamma (..., c) or None without ``v``."""
    batch = q.shape[:-1] if v is None else np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    Q = _rows(q, batch, q.shape[-1:])
    use_v = v is not None
    V = _rows(v, batch, v.shape[-1:]) if use_v else np.zeros((1, model.nv))
    n, c = Q.shape[0], rows.shape[0]
    J = np.zeros((n if jacobian else 1, c, model.nv))
    G = np.empty((n if use_v else 1, c))
    _lanes_frames.closure_rows(
        *flat_tree(model).arrays(), paths, ends, frames, rows, Q, V, use_v, jacobian, J, G
    )
    J = J.reshape(batch + (c, model.nv)) if jacobian else None
    return J, (G.reshape(batch + (c,)) if use_v else None)
