r"""RNEA, ABA and CRBA compiled over *lanes*: a block of configurations at once, for
every batch size (one configuration is a block of one lane); the Coriolis matrix, on the
same lane operations, is in ``geomotion.tree._lanes_coriolis``.

The recursions of :mod:`geomotion.tree.reference` (the readable oracle they are
tested against) are written with the configurations of a block as the innermost,
contiguous axis of every work array (``X[i, r, s, lane]``), so that each elementary
product is a loop over lanes that the compiler turns into SIMD instructions (a
structure-of-arrays layout, in one compiled pass, for any joint model).  Sums whose
length would depend on the row (a transform's zero upper-right block) are written out
term by term, so that the loop over lanes stays the innermost one and vectorizes.

Per block: the joint transforms (:func:`_block_poses`: only the sines and cosines are
taken lane by lane, since trigonometry does not vectorize), then Featherstone's three
passes (RBDA, table 7.1), with the velocity-product acceleration
:math:`c_i = \mathcal V_i\times S_i\dot q_i` folded into the bias wrench.  A joint's
``nv_i x nv_i`` block :math:`D_i = S_i^TU_i` is inverted lane by lane by a Cholesky
factor whose pivots are checked against ``SINGULAR_JOINT_RTOL`` of the joint's size
times the trace of its articulated inertia; a lane with a smaller pivot is reported with
its configuration and joint.
"""

import math

import numba
import numpy as np

from ._flat import BALL, KERNEL, SCREW, SINGULAR_JOINT_RTOL

#: Configurations per block: the block's work arrays (about 2 kB per body and lane for
#: the transforms, inertias and projections) stay in the caches.
LANES = 64


@numba.njit(**KERNEL)
def _block_width(B):
    """Configurations per block for a batch of B: ``LANES``, or the whole batch when it is
    smaller (so one configuration allocates work for one lane, not for ``LANES``)."""
    return min(LANES, max(B, 1))


@numba.njit(**KERNEL)
def _joint_size(S, base, k):
    """Largest squared length of the k motion-subspace columns from row ``base`` of S."""
    size = 0.0
    for j in range(k):
        col = 0.0
        for r in range(6):
            col += S[base + j, r] * S[base + j, r]
        size = max(size, col)
    return size


@numba.njit(**KERNEL)
def _xv(X, x, out, m):
    """out[:, l] = X[:, :, l] x[:, l] for a motion transform (zero upper-right block)."""
    for r in range(3):
        for l in range(m):
            out[r, l] = X[r, 0, l] * x[0, l] + X[r, 1, l] * x[1, l] + X[r, 2, l] * x[2, l]
    for r in range(3, 6):
        for l in range(m):
            out[r, l] = (
                X[r, 0, l] * x[0, l]
                + X[r, 1, l] * x[1, l]
                + X[r, 2, l] * x[2, l]
                + X[r, 3, l] * x[3, l]
                + X[r, 4, l] * x[4, l]
                + X[r, 5, l] * x[5, l]
            )


@numba.njit(**KERNEL)
def _xtv_add(X, x, out, m):
    """out[:, l] += X[:, :, l]^T x[:, l] (a force moved to the parent; zero block skipped)."""
    for s in range(3):
        for l in range(m):
            out[s, l] += (
                X[0, s, l] * x[0, l]
                + X[1, s, l] * x[1, l]
                + X[2, s, l] * x[2, l]
                + X[3, s, l] * x[3, l]
                + X[4, s, l] * x[4, l]
                + X[5, s, l] * x[5, l]
            )
    for s in range(3, 6):
        for l in range(m):
            out[s, l] += X[3, s, l] * x[3, l] + X[4, s, l] * x[4, l] + X[5, s, l] * x[5, l]


@numba.njit(**KERNEL)
def _child_twist(X, parent_twist, own, out, m):
    """out = X parent_twist + own: the child's twist (a root's parent twist is zero)."""
    _xv(X, parent_twist, out, m)
    for r in range(6):
        for l in range(m):
            out[r, l] += own[r, l]


@numba.njit(**KERNEL)
def _cross_motion(V, x, out, m):
    """out = V x x (motion cross), lane by lane."""
    for l in range(m):
        out[0, l] = V[1, l] * x[2, l] - V[2, l] * x[1, l]
        out[1, l] = V[2, l] * x[0, l] - V[0, l] * x[2, l]
        out[2, l] = V[0, l] * x[1, l] - V[1, l] * x[0, l]
        out[3, l] = V[1, l] * x[5, l] - V[2, l] * x[4, l] + V[4, l] * x[2, l] - V[5, l] * x[1, l]
        out[4, l] = V[2, l] * x[3, l] - V[0, l] * x[5, l] + V[5, l] * x[0, l] - V[3, l] * x[2, l]
        out[5, l] = V[0, l] * x[4, l] - V[1, l] * x[3, l] + V[3, l] * x[1, l] - V[4, l] * x[0, l]


@numba.njit(**KERNEL)
def _cross_force(V, f, out, m):
    """out = V x* f (force cross), lane by lane."""
    for l in range(m):
        out[0, l] = V[1, l] * f[2, l] - V[2, l] * f[1, l] + V[4, l] * f[5, l] - V[5, l] * f[4, l]
        out[1, l] = V[2, l] * f[0, l] - V[0, l] * f[2, l] + V[5, l] * f[3, l] - V[3, l] * f[5, l]
        out[2, l] = V[0, l] * f[1, l] - V[1, l] * f[0, l] + V[3, l] * f[4, l] - V[4, l] * f[3, l]
        out[3, l] = V[1, l] * f[5, l] - V[2, l] * f[4, l]
        out[4, l] = V[2, l] * f[3, l] - V[0, l] * f[5, l]
        out[5, l] = V[0, l] * f[4, l] - V[1, l] * f[3, l]


@numba.njit(**KERNEL)
def _congruence_add(X, A, out, work, m):
    """out[:, :, l] += X^T A X for motion transforms X and symmetric A, lane by lane.

    X's upper-right 3x3 block is zero, so each sum runs over six or three terms; the
    terms are written out so that every loop over lanes is innermost (and vectorized).
    """
    for r in range(6):  # work = A X
        for s in range(3):
            for l in range(m):
                work[r, s, l] = (
                    A[r, 0, l] * X[0, s, l]
                    + A[r, 1, l] * X[1, s, l]
                    + A[r, 2, l] * X[2, s, l]
                    + A[r, 3, l] * X[3, s, l]
                    + A[r, 4, l] * X[4, s, l]
                    + A[r, 5, l] * X[5, s, l]
                )
        for s in range(3, 6):
            for l in range(m):
                work[r, s, l] = (
                    A[r, 3, l] * X[3, s, l] + A[r, 4, l] * X[4, s, l] + A[r, 5, l] * X[5, s, l]
                )
    for r in range(6):  # out += X^T work, each sum once for both triangles
        for s in range(r, 6):
            if r < 3:
                for l in range(m):
                    acc = (
                        X[0, r, l] * work[0, s, l]
                        + X[1, r, l] * work[1, s, l]
                        + X[2, r, l] * work[2, s, l]
                        + X[3, r, l] * work[3, s, l]
                        + X[4, r, l] * work[4, s, l]
                        + X[5, r, l] * work[5, s, l]
                    )
                    out[r, s, l] += acc
                    if s != r:
                        out[s, r, l] += acc
            else:
                for l in range(m):
                    acc = (
                        X[3, r, l] * work[3, s, l]
                        + X[4, r, l] * work[4, s, l]
                        + X[5, r, l] * work[5, s, l]
                    )
                    out[r, s, l] += acc
                    if s != r:
                        out[s, r, l] += acc


@numba.njit(**KERNEL)
def _lanes_to_rows(Mt, out, start, m):
    """out[start + l] = Mt[:, :, l] for the m lanes of a block: eight lanes at a time, so
    that each cache line of ``Mt`` is read once (one line holds eight lanes)."""
    nr, nc = Mt.shape[0], Mt.shape[1]
    l0 = 0
    while l0 + 8 <= m:
        for r in range(nr):
            for c in range(nc):
                for j in range(8):
                    out[start + l0 + j, r, c] = Mt[r, c, l0 + j]
        l0 += 8
    for l in range(l0, m):
        for r in range(nr):
            for c in range(nc):
                out[start + l, r, c] = Mt[r, c, l]


@numba.njit(**KERNEL)
def _block_inverse(D, k, floor, inv, L, m, bad):
    """inv[:k, :k, l] = D[:k, :k, l]^-1 (symmetric positive definite) by a Cholesky factor in
    ``L``.  A lane whose pivot is at most ``floor[l]`` is marked in ``bad[l]`` (its pivot
    taken as 1, so that the other lanes go on); returns whether any lane was marked."""
    marked = False
    for j in range(k):
        for l in range(m):
            s = D[j, j, l]
            for t in range(j):
                s -= L[j, t, l] * L[j, t, l]
            if not s > floor[l]:
                bad[l] = True
                marked = True
                s = 1.0
            L[j, j, l] = math.sqrt(s)
        for i in range(j + 1, k):
            for l in range(m):
                s = D[i, j, l]
                for t in range(j):
                    s -= L[i, t, l] * L[j, t, l]
                L[i, j, l] = s / L[j, j, l]
    for j in range(k):  # L^-1 in the upper triangle of inv (transposed), then inv = L^-T L^-1
        for i in range(j, k):
            for l in range(m):
                s = 1.0 if i == j else 0.0
                for t in range(j, i):
                    s -= L[i, t, l] * inv[j, t, l]
                inv[j, i, l] = s / L[i, i, l]
    for a in range(k):
        for b in range(a, k):
            for l in range(m):
                s = 0.0
                for t in range(b, k):
                    s += inv[a, t, l] * inv[b, t, l]
                L[a, b, l] = s
    for a in range(k):
        for b in range(a, k):
            for l in range(m):
                inv[a, b, l] = L[a, b, l]
                inv[b, a, l] = L[a, b, l]
    return marked


@numba.njit(**KERNEL)
def _quaternion_joint(jtype, iq, Q, start, m, RJ, pJ):
    """The motion of a ball joint or a free flyer over lanes: RJ[:, :, l], the rotation of
    its quaternion (w, x, y, z) in ``q`` (after the offset for a free flyer), and pJ[:, l],
    the offset (zero for a ball joint); as :meth:`geomotion.tree.SphericalJoint.transform` writes them."""
    k = iq if jtype == BALL else iq + 3
    for l in range(m):
        w, x, y, z = Q[start + l, k], Q[start + l, k + 1], Q[start + l, k + 2], Q[start + l, k + 3]
        RJ[0, 0, l] = 1.0 - 2.0 * (y * y + z * z)
        RJ[0, 1, l] = 2.0 * (x * y - w * z)
        RJ[0, 2, l] = 2.0 * (x * z + w * y)
        RJ[1, 0, l] = 2.0 * (x * y + w * z)
        RJ[1, 1, l] = 1.0 - 2.0 * (x * x + z * z)
        RJ[1, 2, l] = 2.0 * (y * z - w * x)
        RJ[2, 0, l] = 2.0 * (x * z - w * y)
        RJ[2, 1, l] = 2.0 * (y * z + w * x)
        RJ[2, 2, l] = 1.0 - 2.0 * (x * x + y * y)
    for r in range(3):
        if jtype == BALL:
            for l in range(m):
                pJ[r, l] = 0.0
        else:
            for l in range(m):
                pJ[r, l] = Q[start + l, iq + r]


@numba.njit(**KERNEL)
def _block_poses(jtype, bases, R0, p0, iq, Q, start, m, R, p, bodies):
    """The pose in its parent of each body i of ``bodies``, R[i, :, :, l] and p[i, :, l],
    for configurations start..start+m.

    Screw joints from their constant bases (``bases``, packed by
    ``geomotion.tree._flat.screw_bases`` once per model), every lane at once (only sine
    and cosine are taken lane by lane); ball and free-flyer joints from their
    quaternions over lanes (:func:`_quaternion_joint`).
    """
    W = R.shape[3]
    s, c1, qv = np.empty(W), np.empty(W), np.empty(W)
    RJ, pJ = np.empty((3, 3, W)), np.empty((3, W))
    for i in bodies:
        if jtype[i] != SCREW:
            _quaternion_joint(jtype[i], iq[i], Q, start, m, RJ, pJ)
            for r in range(3):  # (R, p) = (R0 R_J, R0 p_J + p0)
                for c in range(3):
                    for l in range(m):
                        R[i, r, c, l] = (
                            R0[i, r, 0] * RJ[0, c, l]
                            + R0[i, r, 1] * RJ[1, c, l]
                            + R0[i, r, 2] * RJ[2, c, l]
                        )
                for l in range(m):
                    p[i, r, l] = (
                        p0[i, r]
                        + R0[i, r, 0] * pJ[0, l]
                        + R0[i, r, 1] * pJ[1, l]
                        + R0[i, r, 2] * pJ[2, l]
                    )
            continue
        for l in range(m):
            x = Q[start + l, iq[i]]
            phi = bases[i, 39] * x
            sine, cosine = math.sin(phi), math.cos(phi)
            s[l] = sine
            # 1 - cos(phi), without cancellation at small phi (and one sincos per lane)
            c1[l] = sine * sine / (1.0 + cosine) if cosine > 0.0 else 1.0 - cosine
            qv[l] = x
        for r in range(3):
            for c in range(3):
                k = 3 * r + c
                a0, a1, a2 = bases[i, k], bases[i, 9 + k], bases[i, 18 + k]
                for l in range(m):
                    R[i, r, c, l] = a0 + s[l] * a1 + c1[l] * a2
            b0, b1 = bases[i, 27 + r], bases[i, 30 + r]
            b2, b3 = bases[i, 33 + r], bases[i, 36 + r]
            for l in range(m):
                p[i, r, l] = b0 + s[l] * b1 + c1[l] * b2 + qv[l] * b3


@numba.njit(**KERNEL)
def _pose_transform(R, p, X, m):
    """X[:, :, l] = Ad^-1 of the pose (R, p): [[E, 0], [-E[p], E]], E = R^T."""
    for r in range(3):  # row r of E is column r of R
        for c in range(3):
            for l in range(m):
                X[r, c, l] = R[c, r, l]
                X[r + 3, c + 3, l] = R[c, r, l]
                X[r, c + 3, l] = 0.0
        for l in range(m):
            e0, e1, e2 = R[0, r, l], R[1, r, l], R[2, r, l]
            X[r + 3, 0, l] = -(e1 * p[2, l] - e2 * p[1, l])
            X[r + 3, 1, l] = -(e2 * p[0, l] - e0 * p[2, l])
            X[r + 3, 2, l] = -(e0 * p[1, l] - e1 * p[0, l])


@numba.njit(**KERNEL)
def _block_transforms(jtype, bases, R0, p0, iq, Q, start, m, R, p, X):
    """Every body's pose in its parent, R[i, :, :, l] and p[i, :, l], and its motion
    transform X[i, :, :, l] (parent to child), for configurations start..start+m
    (:func:`_block_poses`, then :func:`_pose_transform`)."""
    n = X.shape[0]
    _block_poses(jtype, bases, R0, p0, iq, Q, start, m, R, p, np.arange(n))
    for i in range(n):
        _pose_transform(R[i], p[i], X[i], m)


@numba.njit(**KERNEL)
def _joint_motion(S, iv, nvj, Xt, out, m):
    """out[:, l] = S_i x_i for joint rows iv..iv+nvj of the lane-major vector ``Xt`` (nv, W)."""
    for r in range(6):
        for l in range(m):
            out[r, l] = 0.0
    for j in range(iv, iv + nvj):
        for r in range(6):
            for l in range(m):
                out[r, l] += S[j, r] * Xt[j, l]


@numba.njit(**KERNEL)
def _inertia_times(I, x, out, m):
    """out[:, l] = I x[:, l] for one constant 6x6 inertia."""
    for r in range(6):
        for l in range(m):
            acc = 0.0
            for s in range(6):
                acc += I[r, s] * x[s, l]
            out[r, l] = acc


@numba.njit(**KERNEL)
def aba(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, T, G, F, use_f, out, status):
    r"""Forward dynamics by the ABA, block by block (see the module notes): accelerations
    ``out`` (B, nv) at configurations ``Q`` (B, nq), velocities ``V`` and joint forces
    ``T`` (B, nv), gravity ``G`` (B, 3), and body wrenches ``F`` (B, N, 6) when ``use_f``.
    A singular joint stops the run with ``status = (b, i)``: the first configuration b
    that has one, and its first joint i in the inward pass."""
    if Q.shape[0] >= LANES:  # blocks of the constant width: the compiler knows every stride
        W = LANES
        _aba_blocks(
            parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, T, G, F, use_f, out, status, W
        )
    else:
        W = _block_width(Q.shape[0])
        _aba_blocks(
            parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, T, G, F, use_f, out, status, W
        )


@numba.njit(inline="always", **KERNEL)
def _aba_blocks(
    parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, T, G, F, use_f, out, status, W
):
    """The body of :func:`aba` for blocks of W configurations, inlined into it twice: with
    W the constant ``LANES`` the compiler knows every stride of the work arrays, which
    the ABA (more arrays live at once than the other kernels) needs: 1.53 -> 1.21 us per
    configuration at N = 7, 4.9 -> 4.1 on the floating tree (10^4 configurations)."""
    n, nv, B = parent.shape[0], S.shape[0], Q.shape[0]
    X = np.empty((n, 6, 6, W))
    Vb, c, pA, Ab = (
        np.empty((n, 6, W)),
        np.empty((n, 6, W)),
        np.empty((n, 6, W)),
        np.empty((n, 6, W)),
    )
    IA = np.empty((n, 6, 6, W))
    U = np.empty((n, 6, 6, W))
    Dinv = np.empty((n, 6, 6, W))
    Dinv_u = np.empty((n, 6, W))
    Vt, Tt, qdd = np.empty((nv, W)), np.empty((nv, W)), np.empty((nv, W))
    sv, tmp, pa, a0 = np.empty((6, W)), np.empty((6, W)), np.empty((6, W)), np.zeros((6, W))
    zero = np.zeros((6, W))  # the base's twist
    D, Ia, work, L = (
        np.empty((6, 6, W)),
        np.empty((6, 6, W)),
        np.empty((6, 6, W)),
        np.empty((6, 6, W)),
    )
    u, floor, trace = np.empty((6, W)), np.empty(W), np.empty(W)
    bad, first_bad = np.zeros(W, dtype=np.bool_), np.empty(W, dtype=np.int64)
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    for start in range(0, B, W):
        m = min(W, B - start)
        _block_transforms(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, X)
        for l in range(m):
            b = start + l
            for j in range(nv):
                Vt[j, l] = V[b, j]
                Tt[j, l] = T[b, j]
            a0[3, l], a0[4, l], a0[5, l] = -G[b, 0], -G[b, 1], -G[b, 2]
        for i in range(n):  # outward: twists, velocity products, bias wrenches
            _joint_motion(S, iv[i], nvj[i], Vt, sv, m)
            p = parent[i]
            _child_twist(X[i], Vb[p] if p >= 0 else zero, sv, Vb[i], m)
            _cross_motion(Vb[i], sv, c[i], m)
            _inertia_times(I[i], Vb[i], tmp, m)
            for r in range(6):
                for s in range(6):
                    for l in range(m):
                        IA[i, r, s, l] = I[i, r, s]
            _cross_force(Vb[i], tmp, pA[i], m)
            if use_f:
                for r in range(6):
                    for l in range(m):
                        pA[i, r, l] -= F[start + l, i, r]
        first_bad[:m] = -1  # per lane, its first singular joint
        for i in range(n - 1, -1, -1):  # inward: articulated inertias and bias wrenches
            k, base = nvj[i], iv[i]
            size = _joint_size(S, base, k)
            for l in range(m):
                trace[l] = 0.0
            for r in range(6):
                for l in range(m):
                    trace[l] += IA[i, r, r, l]
            for l in range(m):  # a pivot at most SINGULAR_JOINT_RTOL of the joint's size
                floor[l] = SINGULAR_JOINT_RTOL * size * trace[l]
            for j in range(k):
                for r in range(6):
                    for l in range(m):
                        acc = 0.0
                        for s in range(6):
                            acc += IA[i, r, s, l] * S[base + j, s]
                        U[i, r, j, l] = acc
            for j in range(k):
                for h in range(k):
                    for l in range(m):
                        acc = 0.0
                        for r in range(6):
                            acc += S[base + j, r] * U[i, r, h, l]
                        D[j, h, l] = acc
                for l in range(m):
                    acc = 0.0
                    for r in range(6):
                        acc += S[base + j, r] * pA[i, r, l]
                    u[j, l] = Tt[base + j, l] - acc
            if _block_inverse(D, k, floor, Dinv[i], L, m, bad):
                for l in range(m):
                    if bad[l] and first_bad[l] < 0:
                        first_bad[l] = i
                    bad[l] = False
            for j in range(k):
                for l in range(m):
                    acc = 0.0
                    for h in range(k):
                        acc += Dinv[i, j, h, l] * u[h, l]
                    Dinv_u[i, j, l] = acc
            p = parent[i]
            if p < 0:
                continue
            for r in range(6):  # U D^-1 (6 x k) into work
                for h in range(k):
                    for l in range(m):
                        acc = 0.0
                        for j in range(k):
                            acc += U[i, r, j, l] * Dinv[i, j, h, l]
                        work[r, h, l] = acc
            for r in range(6):  # I^a = I^A - U D^-1 U^T (symmetric)
                for s in range(r, 6):
                    for l in range(m):
                        acc = 0.0
                        for h in range(k):
                            acc += work[r, h, l] * U[i, s, h, l]
                        Ia[r, s, l] = IA[i, r, s, l] - acc
                        Ia[s, r, l] = Ia[r, s, l]
            for r in range(6):  # p^a = p^A + I^a c + U D^-1 u
                for l in range(m):
                    acc = pA[i, r, l]
                    for s in range(6):
                        acc += Ia[r, s, l] * c[i, s, l]
                    for j in range(k):
                        acc += U[i, r, j, l] * Dinv_u[i, j, l]
                    pa[r, l] = acc
            _congruence_add(X[i], Ia, IA[p], work, m)
            _xtv_add(X[i], pa, pA[p], m)
        for l in range(m):  # the first configuration with a singular joint stops the run
            if first_bad[l] >= 0:
                status[0], status[1] = start + l, first_bad[l]
                return
        for i in range(n):  # outward: accelerations
            p = parent[i]
            _xv(X[i], a0 if p < 0 else Ab[p], tmp, m)
            k, base = nvj[i], iv[i]
            for r in range(6):
                for l in range(m):
                    tmp[r, l] += c[i, r, l]
            for j in range(k):
                for l in range(m):
                    acc = 0.0
                    for r in range(6):
                        acc += U[i, r, j, l] * tmp[r, l]
                    u[j, l] = acc
            for j in range(k):
                for l in range(m):
                    acc = Dinv_u[i, j, l]
                    for h in range(k):
                        acc -= Dinv[i, j, h, l] * u[h, l]
                    qdd[base + j, l] = acc
            for r in range(6):
                for l in range(m):
                    acc = tmp[r, l]
                    for j in range(k):
                        acc += S[base + j, r] * qdd[base + j, l]
                    Ab[i, r, l] = acc
        for l in range(m):
            for j in range(nv):
                out[start + l, j] = qdd[j, l]


@numba.njit(**KERNEL)
def _rnea_block(parent, S, iv, nvj, I, X, Vt, At, a0, F, use_f, start, m, Vb, Ab, Fb, w, out):
    r"""RNEA of one block, lane-major: joint velocities and accelerations ``Vt``, ``At``
    (nv, W), the base's acceleration ``a0`` (6, W) (minus gravity), external wrenches
    ``F`` (B, N, 6) rows start.. with ``use_f``; joint forces into ``out`` (nv, W).
    ``Vb``, ``Ab``, ``Fb`` (N, 6, W) and ``w`` (4, 6, W) are work."""
    sv, sa, tmp, zero = w[0], w[1], w[2], w[3]
    zero[:, :m] = 0.0  # the base's twist
    for i in range(parent.shape[0]):
        _joint_motion(S, iv[i], nvj[i], Vt, sv, m)
        _joint_motion(S, iv[i], nvj[i], At, sa, m)
        p = parent[i]
        _child_twist(X[i], Vb[p] if p >= 0 else zero, sv, Vb[i], m)
        _xv(X[i], a0 if p < 0 else Ab[p], Ab[i], m)
        _cross_motion(Vb[i], sv, tmp, m)
        for r in range(6):
            for l in range(m):
                Ab[i, r, l] += sa[r, l] + tmp[r, l]
        _inertia_times(I[i], Vb[i], sv, m)
        _cross_force(Vb[i], sv, tmp, m)
        _inertia_times(I[i], Ab[i], Fb[i], m)
        for r in range(6):
            for l in range(m):
                Fb[i, r, l] += tmp[r, l]
        if use_f:
            for r in range(6):
                for l in range(m):
                    Fb[i, r, l] -= F[start + l, i, r]
    for i in range(parent.shape[0] - 1, -1, -1):
        for j in range(iv[i], iv[i] + nvj[i]):
            for l in range(m):
                acc = 0.0
                for r in range(6):
                    acc += S[j, r] * Fb[i, r, l]
                out[j, l] = acc
        if parent[i] >= 0:
            _xtv_add(X[i], Fb[i], Fb[parent[i]], m)


@numba.njit(**KERNEL)
def _to_lanes(x, start, m, out):
    """out[j, l] = x[start + l, j]: rows of a (B, k) array into a lane-major (k, W) block."""
    for l in range(m):
        for j in range(x.shape[1]):
            out[j, l] = x[start + l, j]


@numba.njit(**KERNEL)
def _base_acceleration(G, start, m, a0):
    """a0[:, l] = (0, -g): the base accelerating against gravity, lane by lane."""
    for l in range(m):
        a0[0, l], a0[1, l], a0[2, l] = 0.0, 0.0, 0.0
        a0[3, l], a0[4, l], a0[5, l] = -G[start + l, 0], -G[start + l, 1], -G[start + l, 2]


@numba.njit(**KERNEL)
def rnea(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, A, G, F, use_f, out):
    r"""Inverse dynamics by the RNEA, block by block: joint forces ``out`` (B, nv) at
    configurations ``Q`` (B, nq), velocities ``V`` and accelerations ``A`` (B, nv),
    gravity ``G`` (B, 3) and body wrenches ``F`` (B, N, 6) when ``use_f``.  Outward
    twists and accelerations from the base
    accelerating at :math:`-g`, net wrenches :math:`\mathcal I\mathcal A + \mathcal V
    \times^*\mathcal I\mathcal V - \mathcal F^{ext}`, inward sums projected on each joint
    (:func:`_rnea_block`)."""
    n, nv, B = parent.shape[0], S.shape[0], Q.shape[0]
    W = _block_width(B)
    X = np.empty((n, 6, 6, W))
    Vb, Ab, Fb = np.empty((n, 6, W)), np.empty((n, 6, W)), np.empty((n, 6, W))
    Vt, At, tau = np.empty((nv, W)), np.empty((nv, W)), np.empty((nv, W))
    a0, w = np.empty((6, W)), np.empty((4, 6, W))
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    for start in range(0, B, W):
        m = min(W, B - start)
        _block_transforms(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, X)
        _to_lanes(V, start, m, Vt)
        _to_lanes(A, start, m, At)
        _base_acceleration(G, start, m, a0)
        _rnea_block(parent, S, iv, nvj, I, X, Vt, At, a0, F, use_f, start, m, Vb, Ab, Fb, w, tau)
        for l in range(m):
            for j in range(nv):
                out[start + l, j] = tau[j, l]


@numba.njit(**KERNEL)
def _rigid_parameters(I, IC, m):
    """IC[i, :, l] = the ten parameters (m, h, upper triangle of the rotational inertia
    about the origin, rows 0-2 then 1-2 then 2) of each body's spatial inertia
    [[Ibar, [h]], [[h]^T, m 1]], broadcast over the m lanes."""
    for i in range(I.shape[0]):
        values = (
            I[i, 3, 3], I[i, 2, 4], I[i, 0, 5], I[i, 1, 3],
            I[i, 0, 0], I[i, 0, 1], I[i, 0, 2], I[i, 1, 1], I[i, 1, 2], I[i, 2, 2],
        )  # fmt: skip
        for k in range(10):
            for l in range(m):
                IC[i, k, l] = values[k]


@numba.njit(**KERNEL)
def _rigid_to_parent_add(R, p, C, out, m):
    r"""out[:, l] += the rigid inertia C[:, l] (ten parameters, :func:`_rigid_parameters`)
    of a child whose pose in its parent is (R, p), in the parent's coordinates.

    The composite inertia of the CRBA, :math:`X^T\mathcal I X` in about eighty products
    instead of the 6x6 congruence's 270: with :math:`y = Rh` and :math:`u = y + \tfrac m2
    p`, :math:`h' = y + mp` and :math:`\bar I' = R\bar IR^T + 2(u\cdot p)\,1 - (pu^T +
    up^T)` (the parallel-axis theorem written without dividing by the mass, so a massless
    subtree adds zero).
    """
    for l in range(m):
        mass, h0, h1, h2 = C[0, l], C[1, l], C[2, l], C[3, l]
        i00, i01, i02, i11, i12, i22 = C[4, l], C[5, l], C[6, l], C[7, l], C[8, l], C[9, l]
        r00, r01, r02 = R[0, 0, l], R[0, 1, l], R[0, 2, l]
        r10, r11, r12 = R[1, 0, l], R[1, 1, l], R[1, 2, l]
        r20, r21, r22 = R[2, 0, l], R[2, 1, l], R[2, 2, l]
        p0, p1, p2 = p[0, l], p[1, l], p[2, l]
        y0 = r00 * h0 + r01 * h1 + r02 * h2
        y1 = r10 * h0 + r11 * h1 + r12 * h2
        y2 = r20 * h0 + r21 * h1 + r22 * h2
        half = 0.5 * mass
        u0, u1, u2 = y0 + half * p0, y1 + half * p1, y2 + half * p2
        up2 = 2.0 * (u0 * p0 + u1 * p1 + u2 * p2)
        t00 = r00 * i00 + r01 * i01 + r02 * i02  # T = R Ibar
        t01 = r00 * i01 + r01 * i11 + r02 * i12
        t02 = r00 * i02 + r01 * i12 + r02 * i22
        t10 = r10 * i00 + r11 * i01 + r12 * i02
        t11 = r10 * i01 + r11 * i11 + r12 * i12
        t12 = r10 * i02 + r11 * i12 + r12 * i22
        t20 = r20 * i00 + r21 * i01 + r22 * i02
        t21 = r20 * i01 + r21 * i11 + r22 * i12
        t22 = r20 * i02 + r21 * i12 + r22 * i22
        out[0, l] += mass
        out[1, l] += y0 + mass * p0
        out[2, l] += y1 + mass * p1
        out[3, l] += y2 + mass * p2
        out[4, l] += t00 * r00 + t01 * r01 + t02 * r02 + up2 - 2.0 * p0 * u0
        out[5, l] += t00 * r10 + t01 * r11 + t02 * r12 - (p0 * u1 + u0 * p1)
        out[6, l] += t00 * r20 + t01 * r21 + t02 * r22 - (p0 * u2 + u0 * p2)
        out[7, l] += t10 * r10 + t11 * r11 + t12 * r12 + up2 - 2.0 * p1 * u1
        out[8, l] += t10 * r20 + t11 * r21 + t12 * r22 - (p1 * u2 + u1 * p2)
        out[9, l] += t20 * r20 + t21 * r21 + t22 * r22 + up2 - 2.0 * p2 * u2


@numba.njit(**KERNEL)
def _rigid_times(C, s, out, m):
    """out[:, l] = the force (n, f) of the rigid inertia C[:, l] moving with the constant
    motion s = (w, v): n = Ibar w + h x v, f = m v - h x w."""
    w0, w1, w2, v0, v1, v2 = s[0], s[1], s[2], s[3], s[4], s[5]
    for l in range(m):
        mass, h0, h1, h2 = C[0, l], C[1, l], C[2, l], C[3, l]
        i00, i01, i02, i11, i12, i22 = C[4, l], C[5, l], C[6, l], C[7, l], C[8, l], C[9, l]
        out[0, l] = i00 * w0 + i01 * w1 + i02 * w2 + (h1 * v2 - h2 * v1)
        out[1, l] = i01 * w0 + i11 * w1 + i12 * w2 + (h2 * v0 - h0 * v2)
        out[2, l] = i02 * w0 + i12 * w1 + i22 * w2 + (h0 * v1 - h1 * v0)
        out[3, l] = mass * v0 - (h1 * w2 - h2 * w1)
        out[4, l] = mass * v1 - (h2 * w0 - h0 * w2)
        out[5, l] = mass * v2 - (h0 * w1 - h1 * w0)


@numba.njit(**KERNEL)
def _joint_rows(S, bb, kb, Fc, base, k, m, Mt):
    """Mt[bb + j, base + h] = S_{bb+j} . Fc[:, h]: the rows of the joint whose columns start
    at ``bb`` (kb of them) against the k force columns of the joint at ``base``, and the
    mirrored entries when the two joints differ."""
    for j in range(kb):
        for h in range(k):
            for l in range(m):
                acc = 0.0
                for r in range(6):
                    acc += S[bb + j, r] * Fc[r, h, l]
                Mt[bb + j, base + h, l] = acc
                if bb != base:
                    Mt[base + h, bb + j, l] = acc


@numba.njit(**KERNEL)
def _crba_block(parent, iv, nvj, S, I, Rl, pl, X, m, IC, Fc, Fn, Mt):
    r"""CRBA of one block, lane-major, into ``Mt`` (nv, nv, W): composite inertias
    :math:`\mathcal I^C_{\lambda(i)} \mathrel{+}= X_i^T\mathcal I^C_iX_i` inward, as
    rigid inertias of ten parameters (:func:`_rigid_to_parent_add`, from each body's pose
    in its parent, ``Rl`` (N, 3, 3, W) and ``pl`` (N, 3, W)), then each joint's force
    columns :math:`\mathcal I^C_iS_i` carried to its ancestors by the transforms ``X``.
    Entries of joints on different branches are not written (zero them once).  ``IC``
    (N, 10, W), ``Fc`` and ``Fn`` (6, 6, W) are work."""
    n = parent.shape[0]
    _rigid_parameters(I, IC, m)
    for i in range(n - 1, -1, -1):
        if parent[i] >= 0:
            _rigid_to_parent_add(Rl[i], pl[i], IC[i], IC[parent[i]], m)
    for i in range(n):
        k, base = nvj[i], iv[i]
        for j in range(k):
            _rigid_times(IC[i], S[base + j], Fc[:, j], m)
        _joint_rows(S, base, k, Fc, base, k, m, Mt)
        jb = i
        while parent[jb] >= 0:
            for h in range(k):  # F <- X_j^T F (X's upper-right block is zero)
                for s in range(3):
                    for l in range(m):
                        Fn[s, h, l] = (
                            X[jb, 0, s, l] * Fc[0, h, l]
                            + X[jb, 1, s, l] * Fc[1, h, l]
                            + X[jb, 2, s, l] * Fc[2, h, l]
                            + X[jb, 3, s, l] * Fc[3, h, l]
                            + X[jb, 4, s, l] * Fc[4, h, l]
                            + X[jb, 5, s, l] * Fc[5, h, l]
                        )
                for s in range(3, 6):
                    for l in range(m):
                        Fn[s, h, l] = (
                            X[jb, 3, s, l] * Fc[3, h, l]
                            + X[jb, 4, s, l] * Fc[4, h, l]
                            + X[jb, 5, s, l] * Fc[5, h, l]
                        )
            for h in range(k):
                for s in range(6):
                    for l in range(m):
                        Fc[s, h, l] = Fn[s, h, l]
            jb = parent[jb]
            _joint_rows(S, iv[jb], nvj[jb], Fc, base, k, m, Mt)


@numba.njit(**KERNEL)
def crba(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, out):
    r"""The joint-space mass matrices ``out`` (B, nv, nv) at configurations ``Q`` (B, nq)
    by the CRBA, block by block (:func:`_crba_block`), each block's matrices then written
    out configuration by configuration."""
    n, nv, B = parent.shape[0], S.shape[0], Q.shape[0]
    W = _block_width(B)
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    X, IC = np.empty((n, 6, 6, W)), np.empty((n, 10, W))
    Fc, Fn = np.empty((6, 6, W)), np.empty((6, 6, W))
    Mt = np.zeros((nv, nv, W))  # entries across branches stay zero; every block writes the rest
    for start in range(0, B, W):
        m = min(W, B - start)
        _block_transforms(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, X)
        _crba_block(parent, iv, nvj, S, I, Rl, pl, X, m, IC, Fc, Fn, Mt)
        _lanes_to_rows(Mt, out, start, m)
