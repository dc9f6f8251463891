r"""Compiled kernels of the joint-general algorithms (numba): RNEA, ABA, CRBA and the
Coriolis matrix, any joints, one configuration at a time.

The same recursions as :mod:`geomotion.tree.general` (which stays the readable numpy
version and the reference these kernels are tested against), written per configuration
with explicit 6-vectors and 6x6 matrices and compiled once (``cache=True``: a new process
loads them from ``__pycache__``).  The batch is the outer loop; from ``LANES_FROM``
configurations per call the ``run_*`` entry points take the kernels of
``geomotion.tree._lanes`` instead, which run the same recursions over blocks of
configurations.  The frame-kinematics kernels are in ``geomotion.tree._jit_frames``.

A tree enters as flat arrays (:class:`FlatTree`), built once per model: per body its
parent, joint type (0 screw, 1 ball, 2 free flyer), the screw, the placement ``(R0, p0)``,
its slices of ``q`` and ``v``, the spatial inertia, and the motion-subspace columns of all
velocity coordinates, ``S[k]`` (nv, 6).  Joint motions: ``exp([S] q)`` for a screw (the
coefficients of :func:`geomotion.spatial.exp_twist`, with its series below 1 rad), the
quaternion's rotation for a ball joint, rotation and offset for a free flyer.
"""

import math
import weakref

import numba
import numpy as np

from .._linalg import _backward, _cholesky_in_place, _forward
from . import _lanes, general
from .general import SINGULAR_JOINT_RTOL

SCREW, BALL, FREE = 0, 1, 2

# Taylor coefficients of (theta - sin theta)/theta^3 in theta^2 (as spatial.screws).
_C_SERIES = np.array([(-1.0) ** k / math.factorial(2 * k + 3) for k in range(9)])

_JIT = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")


class FlatTree:
    """The flat arrays of a :class:`~geomotion.tree.Tree` that the kernels read."""

    def __init__(self, model):
        n = model.num_bodies
        kinds = {"spherical": BALL, "free_flyer": FREE}
        self.parent = np.array(model.parents, dtype=np.int64)
        self.jtype = np.array([kinds.get(j.kind, SCREW) for j in model.joints], dtype=np.int64)
        self.screw = np.zeros((n, 6))
        for i, joint in enumerate(model.joints):
            if self.jtype[i] == SCREW:
                self.screw[i] = joint.screw
        self.R0 = np.array(model.placements[:, :3, :3])
        self.p0 = np.array(model.placements[:, :3, 3])
        self.iq = np.array(model.q_start, dtype=np.int64)
        self.iv = np.array(model.v_start, dtype=np.int64)
        self.nvj = np.array(model.joint_nv, dtype=np.int64)
        # fresh, writable and C-ordered whatever the joints' layouts (one kernel signature)
        self.S = np.ascontiguousarray(np.concatenate([j.subspace.T for j in model.joints]))
        self.I = np.array(model.inertias)

    def arrays(self):
        """The arrays in kernel argument order."""
        return (
            self.parent,
            self.jtype,
            self.screw,
            self.R0,
            self.p0,
            self.iq,
            self.iv,
            self.nvj,
            self.S,
            self.I,
        )


@numba.njit(**_JIT)
def _joint_pose(jtype, screw, q, iq, R, p):
    """Joint motion T_J(q_i) into R (3, 3), p (3,)."""
    if jtype == SCREW:
        x = q[iq]
        wx, wy, wz = screw[0] * x, screw[1] * x, screw[2] * x
        vx, vy, vz = screw[3] * x, screw[4] * x, screw[5] * x
        t2 = wx * wx + wy * wy + wz * wz
        t = math.sqrt(t2)
        if t > 0.0:
            a = math.sin(t) / t
            h = 0.5 * t
            sh = math.sin(h) / h
            b = 0.5 * sh * sh
        else:
            a, b = 1.0, 0.5
        if t < 1.0:
            c = 0.0
            for k in range(_C_SERIES.shape[0] - 1, -1, -1):
                c = c * t2 + _C_SERIES[k]
        else:
            c = (t - math.sin(t)) / (t * t2)
        # R = I + a[w] + b(w w^T - t2 I);  p = v + b w x v + c (w (w.v) - t2 v)
        R[0, 0] = 1.0 + b * (wx * wx - t2)
        R[0, 1] = -a * wz + b * wx * wy
        R[0, 2] = a * wy + b * wx * wz
        R[1, 0] = a * wz + b * wx * wy
        R[1, 1] = 1.0 + b * (wy * wy - t2)
        R[1, 2] = -a * wx + b * wy * wz
        R[2, 0] = -a * wy + b * wx * wz
        R[2, 1] = a * wx + b * wy * wz
        R[2, 2] = 1.0 + b * (wz * wz - t2)
        wv = wx * vx + wy * vy + wz * vz
        p[0] = vx + b * (wy * vz - wz * vy) + c * (wx * wv - t2 * vx)
        p[1] = vy + b * (wz * vx - wx * vz) + c * (wy * wv - t2 * vy)
        p[2] = vz + b * (wx * vy - wy * vx) + c * (wz * wv - t2 * vz)
        return
    k = iq if jtype == BALL else iq + 3
    w, x, y, z = q[k], q[k + 1], q[k + 2], q[k + 3]
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - w * z)
    R[0, 2] = 2.0 * (x * z + w * y)
    R[1, 0] = 2.0 * (x * y + w * z)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - w * x)
    R[2, 0] = 2.0 * (x * z - w * y)
    R[2, 1] = 2.0 * (y * z + w * x)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)
    if jtype == BALL:
        p[0] = p[1] = p[2] = 0.0
    else:
        p[0], p[1], p[2] = q[iq], q[iq + 1], q[iq + 2]


@numba.njit(**_JIT)
def _placed_pose(jtype, screw, R0, p0, iq, q, i, RJ, pJ, R, p):
    """Body i's pose in its parent, (R, p) = (R0 R_J, R0 p_J + p0), at ``q`` (work RJ, pJ)."""
    _joint_pose(jtype[i], screw[i], q, iq[i], RJ, pJ)
    for r in range(3):
        acc = p0[i, r]
        for k in range(3):
            acc += R0[i, r, k] * pJ[k]
        p[r] = acc
        for c in range(3):
            R[r, c] = R0[i, r, 0] * RJ[0, c] + R0[i, r, 1] * RJ[1, c] + R0[i, r, 2] * RJ[2, c]


@numba.njit(**_JIT)
def _near_origin(p0, path_a, path_b, o):
    """The point the frame walks measure positions from (``geomotion.tree._jit_frames._walk``
    and ``geomotion.tree._lanes_frames._path_walk``): the first body's placement on a nonempty
    path (the base origin when both are empty), into ``o`` (3,)."""
    path = path_a if path_a.shape[0] > 0 else path_b
    for r in range(3):
        o[r] = p0[path[0], r] if path.shape[0] > 0 else 0.0


@numba.njit(**_JIT)
def _joint_size(S, base, k):
    """Largest squared length of the k motion-subspace columns from row ``base`` of S."""
    size = 0.0
    for j in range(k):
        col = 0.0
        for r in range(6):
            col += S[base + j, r] * S[base + j, r]
        size = max(size, col)
    return size


@numba.njit(**_JIT)
def _motion_transform(R0, p0, RJ, pJ, X):
    r"""X = Ad^{-1} of T = (R0 RJ, R0 pJ + p0): parent to child, [[E, 0], [-E[r], E]], E = R^T."""
    for r in range(3):
        for s in range(3):  # E = (R0 RJ)^T: E[r, s] = (R0 RJ)[s, r]
            X[r, s] = R0[s, 0] * RJ[0, r] + R0[s, 1] * RJ[1, r] + R0[s, 2] * RJ[2, r]
    rx = p0[0] + R0[0, 0] * pJ[0] + R0[0, 1] * pJ[1] + R0[0, 2] * pJ[2]
    ry = p0[1] + R0[1, 0] * pJ[0] + R0[1, 1] * pJ[1] + R0[1, 2] * pJ[2]
    rz = p0[2] + R0[2, 0] * pJ[0] + R0[2, 1] * pJ[1] + R0[2, 2] * pJ[2]
    for r in range(3):
        e0, e1, e2 = X[r, 0], X[r, 1], X[r, 2]
        # (E [r])[r, :] = e x-products: row of E times skew(r)
        X[r + 3, 0] = -(e1 * rz - e2 * ry)
        X[r + 3, 1] = -(e2 * rx - e0 * rz)
        X[r + 3, 2] = -(e0 * ry - e1 * rx)
        for s in range(3):
            X[r, s + 3] = 0.0
            X[r + 3, s + 3] = X[r, s]


@numba.njit(**_JIT)
def _mv(X, x, out):
    for r in range(6):
        acc = 0.0
        for s in range(6):
            acc += X[r, s] * x[s]
        out[r] = acc


@numba.njit(**_JIT)
def _xv(X, x, out):
    """out = X x for a motion transform X = [[E, 0], [-E[r], E]] (its zero block skipped)."""
    for r in range(3):
        out[r] = X[r, 0] * x[0] + X[r, 1] * x[1] + X[r, 2] * x[2]
    for r in range(3, 6):
        acc = 0.0
        for s in range(6):
            acc += X[r, s] * x[s]
        out[r] = acc


@numba.njit(**_JIT)
def _mtv_add(X, x, out):
    """out += X^T x for a motion transform X (a force moved to the parent; zero block skipped)."""
    for s in range(3):
        acc = 0.0
        for r in range(6):
            acc += X[r, s] * x[r]
        out[s] += acc
    for s in range(3, 6):
        out[s] += X[3, s] * x[3] + X[4, s] * x[4] + X[5, s] * x[5]


@numba.njit(**_JIT)
def _cross_motion(V, x, out):
    """out = V x x (motion cross), angular-first."""
    out[0] = V[1] * x[2] - V[2] * x[1]
    out[1] = V[2] * x[0] - V[0] * x[2]
    out[2] = V[0] * x[1] - V[1] * x[0]
    out[3] = V[1] * x[5] - V[2] * x[4] + V[4] * x[2] - V[5] * x[1]
    out[4] = V[2] * x[3] - V[0] * x[5] + V[5] * x[0] - V[3] * x[2]
    out[5] = V[0] * x[4] - V[1] * x[3] + V[3] * x[1] - V[4] * x[0]


@numba.njit(**_JIT)
def _cross_force_add(V, f, out):
    """out += V x* f (force cross), moment-first."""
    out[0] += V[1] * f[2] - V[2] * f[1] + V[4] * f[5] - V[5] * f[4]
    out[1] += V[2] * f[0] - V[0] * f[2] + V[5] * f[3] - V[3] * f[5]
    out[2] += V[0] * f[1] - V[1] * f[0] + V[3] * f[4] - V[4] * f[3]
    out[3] += V[1] * f[5] - V[2] * f[4]
    out[4] += V[2] * f[3] - V[0] * f[5]
    out[5] += V[0] * f[4] - V[1] * f[3]


@numba.njit(**_JIT)
def _transforms(parent, jtype, screw, R0, p0, iq, q, X):
    RJ = np.empty((3, 3))
    pJ = np.empty(3)
    for i in range(parent.shape[0]):
        _joint_pose(jtype[i], screw[i], q, iq[i], RJ, pJ)
        _motion_transform(R0[i], p0[i], RJ, pJ, X[i])


@numba.njit(**_JIT)
def _joint_twist(S, iv, nvj, v, out):
    for r in range(6):
        out[r] = 0.0
    for k in range(nvj):
        x = v[iv + k]
        for r in range(6):
            out[r] += S[iv + k, r] * x


@numba.njit(**_JIT)
def rnea(parent, jtype, screw, R0, p0, iq, iv, nvj, S, I, Q, V, A, G, F, use_f, out):
    r"""Batched RNEA; rows of Q, V, A, G, F are configurations (see general.rnea)."""
    n = parent.shape[0]
    X = np.empty((n, 6, 6))
    Vb, Ab, Fb = np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6))
    sv, sa, tmp, tmp2 = np.empty(6), np.empty(6), np.empty(6), np.empty(6)
    a0 = np.zeros(6)
    for b in range(Q.shape[0]):
        q, v, a = Q[b], V[b], A[b]
        _transforms(parent, jtype, screw, R0, p0, iq, q, X)
        a0[3], a0[4], a0[5] = -G[b, 0], -G[b, 1], -G[b, 2]
        for i in range(n):
            _joint_twist(S, iv[i], nvj[i], v, sv)
            _joint_twist(S, iv[i], nvj[i], a, sa)
            p = parent[i]
            if p >= 0:
                _xv(X[i], Vb[p], tmp)
                _xv(X[i], Ab[p], tmp2)
            else:
                for r in range(6):
                    tmp[r] = 0.0
                _xv(X[i], a0, tmp2)
            for r in range(6):
                Vb[i, r] = tmp[r] + sv[r]
            _cross_motion(Vb[i], sv, tmp)
            for r in range(6):
                Ab[i, r] = tmp2[r] + sa[r] + tmp[r]
            _mv(I[i], Ab[i], Fb[i])
            _mv(I[i], Vb[i], tmp)
            _cross_force_add(Vb[i], tmp, Fb[i])
            if use_f:
                for r in range(6):
                    Fb[i, r] -= F[b, i, r]
        for i in range(n - 1, -1, -1):
            for k in range(nvj[i]):
                acc = 0.0
                for r in range(6):
                    acc += S[iv[i] + k, r] * Fb[i, r]
                out[b, iv[i] + k] = acc
            if parent[i] >= 0:
                _mtv_add(X[i], Fb[i], Fb[parent[i]])


@numba.njit(**_JIT)
def _congruence_add(X, M, out, work):
    """out += X^T M X (6x6) for a motion transform X = [[E, 0], [-E[r], E]] and a symmetric M.

    X's upper-right block is zero, so column s >= 3 of M X and row r >= 3 of X^T (M X)
    take three terms, and only the upper triangle of the symmetric result is summed.
    """
    for r in range(6):
        for s in range(6):
            acc = 0.0
            for k in range(0 if s < 3 else 3, 6):
                acc += M[r, k] * X[k, s]
            work[r, s] = acc
    for r in range(6):
        for s in range(r, 6):
            acc = 0.0
            for k in range(0 if r < 3 else 3, 6):
                acc += X[k, r] * work[k, s]
            out[r, s] += acc
            if s != r:
                out[s, r] += acc


@numba.njit(**_JIT)
def _spd_inverse(D, k, floor, out, L):
    """Inverse of the SPD k x k block D[:k, :k] into out[:k, :k] (work array L); False if a
    Cholesky pivot is at most ``floor``."""
    for i in range(k):
        for j in range(k):
            L[i, j] = D[i, j]
            out[i, j] = 1.0 if i == j else 0.0
    if not _cholesky_in_place(L, k, floor):
        return False
    _forward(L, out, k, k)
    _backward(L, out, k, k)
    return True


@numba.njit(**_JIT)
def aba(parent, jtype, screw, R0, p0, iq, iv, nvj, S, I, Q, V, T, G, F, use_f, out, status):
    r"""Batched ABA (see general.aba).  On a singular joint pivot, status = (batch, joint) and return."""
    n = parent.shape[0]
    X = np.empty((n, 6, 6))
    Vb, c, pA, Ab = np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6))
    IA = np.empty((n, 6, 6))
    U = np.empty((n, 6, 6))  # columns 0..nv_i-1: I^A S
    Dinv = np.empty((n, 6, 6))
    Dinv_u = np.empty((n, 6))
    sv, tmp, pa = np.empty(6), np.empty(6), np.empty(6)
    D, Ia, work, work2 = np.empty((6, 6)), np.empty((6, 6)), np.empty((6, 6)), np.empty((6, 6))
    L, u = np.empty((6, 6)), np.empty(6)
    a0 = np.zeros(6)
    for b in range(Q.shape[0]):
        q, v, tau = Q[b], V[b], T[b]
        _transforms(parent, jtype, screw, R0, p0, iq, q, X)
        for i in range(n):
            _joint_twist(S, iv[i], nvj[i], v, sv)
            p = parent[i]
            if p >= 0:
                _xv(X[i], Vb[p], tmp)
            else:
                for r in range(6):
                    tmp[r] = 0.0
            for r in range(6):
                Vb[i, r] = tmp[r] + sv[r]
            _cross_motion(Vb[i], sv, c[i])
            for r in range(6):
                for s in range(6):
                    IA[i, r, s] = I[i, r, s]
            _mv(I[i], Vb[i], tmp)
            for r in range(6):
                pA[i, r] = 0.0
            _cross_force_add(Vb[i], tmp, pA[i])
            if use_f:
                for r in range(6):
                    pA[i, r] -= F[b, i, r]
        for i in range(n - 1, -1, -1):
            k = nvj[i]
            base = iv[i]
            trace = 0.0
            for r in range(6):
                trace += IA[i, r, r]
            size = _joint_size(S, base, k)
            for j in range(k):
                for r in range(6):
                    acc = 0.0
                    for s in range(6):
                        acc += IA[i, r, s] * S[base + j, s]
                    U[i, r, j] = acc
            for j in range(k):
                for m in range(k):
                    acc = 0.0
                    for r in range(6):
                        acc += S[base + j, r] * U[i, r, m]
                    D[j, m] = acc
                acc = 0.0
                for r in range(6):
                    acc += S[base + j, r] * pA[i, r]
                u[j] = tau[base + j] - acc
            # a Cholesky pivot at most SINGULAR_JOINT_RTOL of the joint's size: singular M
            floor = SINGULAR_JOINT_RTOL * size * trace
            if not _spd_inverse(D, k, floor, Dinv[i], L):
                status[0], status[1] = b, i
                return
            for j in range(k):
                acc = 0.0
                for m in range(k):
                    acc += Dinv[i, j, m] * u[m]
                Dinv_u[i, j] = acc
            p = parent[i]
            if p >= 0:
                for r in range(6):  # W = U D^-1 (6 x k), in work
                    for m in range(k):
                        acc = 0.0
                        for j in range(k):
                            acc += U[i, r, j] * Dinv[i, j, m]
                        work[r, m] = acc
                for r in range(6):  # I^a = I^A - W U^T
                    for s in range(6):
                        acc = 0.0
                        for m in range(k):
                            acc += work[r, m] * U[i, s, m]
                        Ia[r, s] = IA[i, r, s] - acc
                _mv(Ia, c[i], pa)
                for r in range(6):
                    acc = 0.0
                    for j in range(k):
                        acc += U[i, r, j] * Dinv_u[i, j]
                    pa[r] += pA[i, r] + acc
                _congruence_add(X[i], Ia, IA[p], work2)
                _mtv_add(X[i], pa, pA[p])
        a0[3], a0[4], a0[5] = -G[b, 0], -G[b, 1], -G[b, 2]
        for i in range(n):
            p = parent[i]
            _xv(X[i], a0 if p < 0 else Ab[p], tmp)
            for r in range(6):
                tmp[r] += c[i, r]
            k = nvj[i]
            base = iv[i]
            for j in range(k):
                acc = 0.0
                for r in range(6):
                    acc += U[i, r, j] * tmp[r]
                u[j] = acc
            for j in range(k):
                acc = Dinv_u[i, j]
                for m in range(k):
                    acc -= Dinv[i, j, m] * u[m]
                out[b, base + j] = acc
            for r in range(6):
                acc = tmp[r]
                for j in range(k):
                    acc += S[base + j, r] * out[b, base + j]
                Ab[i, r] = acc


@numba.njit(**_JIT)
def crba(parent, jtype, screw, R0, p0, iq, iv, nvj, S, I, Q, out):
    r"""Batched CRBA (see general.crba): out (B, nv, nv)."""
    n = parent.shape[0]
    X = np.empty((n, 6, 6))
    IC = np.empty((n, 6, 6))
    work = np.empty((6, 6))
    Fc = np.empty((6, 6))
    Fn = np.empty((6, 6))
    for b in range(Q.shape[0]):
        _transforms(parent, jtype, screw, R0, p0, iq, Q[b], X)
        M = out[b]
        for r in range(M.shape[0]):
            for s in range(M.shape[1]):
                M[r, s] = 0.0
        for i in range(n):
            for r in range(6):
                for s in range(6):
                    IC[i, r, s] = I[i, r, s]
        for i in range(n - 1, -1, -1):
            if parent[i] >= 0:
                _congruence_add(X[i], IC[i], IC[parent[i]], work)
        for i in range(n):
            k, base = nvj[i], iv[i]
            for j in range(k):
                for r in range(6):
                    acc = 0.0
                    for s in range(6):
                        acc += IC[i, r, s] * S[base + j, s]
                    Fc[r, j] = acc
            for j in range(k):
                for m in range(k):
                    acc = 0.0
                    for r in range(6):
                        acc += S[base + j, r] * Fc[r, m]
                    M[base + j, base + m] = acc
            jb = i
            while parent[jb] >= 0:
                for m in range(k):  # F <- X_j^T F (X's upper-right block is zero)
                    for s in range(6):
                        acc = 0.0
                        for r in range(0 if s < 3 else 3, 6):
                            acc += X[jb, r, s] * Fc[r, m]
                        Fn[s, m] = acc
                for m in range(k):
                    for s in range(6):
                        Fc[s, m] = Fn[s, m]
                jb = parent[jb]
                kb, bb = nvj[jb], iv[jb]
                for j in range(kb):
                    for m in range(k):
                        acc = 0.0
                        for r in range(6):
                            acc += S[bb + j, r] * Fc[r, m]
                        M[bb + j, base + m] = acc
                        M[base + m, bb + j] = acc


@numba.njit(**_JIT)
def coriolis(parent, jtype, screw, R0, p0, iq, iv, nvj, S, I, Q, V, out):
    r"""Batched Christoffel-consistent Coriolis matrix in base coordinates, any joints.

    With the joint columns :math:`s_a = \mathrm{Ad}_{T_{0i}}S_a` of body :math:`i`'s
    joint, their rates :math:`\dot s_a = \mathcal V_i\times s_a`, the base-coordinate
    inertias :math:`\mathcal I_k`, :math:`\dot{\mathcal I}_k = P_k + P_k^T`
    (:math:`P_k = [\mathcal V_k\times^*]\mathcal I_k`), :math:`\mu_k = \mathcal I_k
    \mathcal V_k` and their subtree sums :math:`\mathcal I^C, \dot{\mathcal I}^C,
    \mu^C` (plain sums: one frame for all bodies): for column :math:`b` of joint
    :math:`j`, :math:`F_2 = \mathcal I^C_js_b`, :math:`D = \dot{\mathcal I}^C_js_b`,
    :math:`F_3 = \tfrac12(D - s_b\times^*\mu^C_j)`,
    :math:`F_1 = \mathcal I^C_j\dot s_b + D - F_3`, and

    .. math:: C_{ab} = s_a\cdot F_1(b),\qquad C_{ba} = F_2(b)\cdot\dot s_a + F_3(b)\cdot s_a

    for the columns :math:`a` of the joints from the root to :math:`j` (the first formula
    including :math:`j`'s own columns, the second only strict ancestors); zero across
    branches.  The formulas of ``geomotion.tree.batched_base._soa_coriolis``, per
    column instead of per screw, so that ball and free-flyer joints need nothing else.
    """
    n, nv = parent.shape[0], S.shape[0]
    Rw, pw = np.empty((n, 3, 3)), np.empty((n, 3))
    s0, sd = np.empty((nv, 6)), np.empty((nv, 6))
    Vb = np.empty((n, 6))
    IC, IdC, muC = np.empty((n, 6, 6)), np.empty((n, 6, 6)), np.empty((n, 6))
    RJ, pJ, Rl = np.empty((3, 3)), np.empty(3), np.empty((3, 3))
    X, work, P = np.empty((6, 6)), np.empty((6, 6)), np.empty((6, 6))
    col, tmp, F1, F2, F3 = np.empty(6), np.empty(6), np.empty(6), np.empty(6), np.empty(6)
    zero3 = np.zeros(3)
    eye3 = np.eye(3)
    for b in range(Q.shape[0]):
        q, v = Q[b], V[b]
        for i in range(n):  # world poses, columns, twists, base-coordinate inertias
            _placed_pose(jtype, screw, R0, p0, iq, q, i, RJ, pJ, Rl, tmp)
            p = parent[i]
            for r in range(3):
                if p >= 0:
                    pw[i, r] = pw[p, r]
                    for k in range(3):
                        pw[i, r] += Rw[p, r, k] * tmp[k]
                    for c in range(3):
                        Rw[i, r, c] = (
                            Rw[p, r, 0] * Rl[0, c] + Rw[p, r, 1] * Rl[1, c] + Rw[p, r, 2] * Rl[2, c]
                        )
                else:
                    pw[i, r] = tmp[r]
                    for c in range(3):
                        Rw[i, r, c] = Rl[r, c]
            for r in range(6):
                Vb[i, r] = Vb[p, r] if p >= 0 else 0.0
            R, pp = Rw[i], pw[i]
            for a in range(iv[i], iv[i] + nvj[i]):
                for r in range(3):
                    col[r] = R[r, 0] * S[a, 0] + R[r, 1] * S[a, 1] + R[r, 2] * S[a, 2]
                    col[3 + r] = R[r, 0] * S[a, 3] + R[r, 1] * S[a, 4] + R[r, 2] * S[a, 5]
                col[3] += pp[1] * col[2] - pp[2] * col[1]
                col[4] += pp[2] * col[0] - pp[0] * col[2]
                col[5] += pp[0] * col[1] - pp[1] * col[0]
                for r in range(6):
                    s0[a, r] = col[r]
                    Vb[i, r] += col[r] * v[a]
            for a in range(iv[i], iv[i] + nvj[i]):
                _cross_motion(Vb[i], s0[a], sd[a])
            _motion_transform(eye3, zero3, R, pp, X)  # Ad_{T_0i}^-1: base to body i
            for r in range(6):
                for c in range(6):
                    IC[i, r, c] = 0.0
            _congruence_add(X, I[i], IC[i], work)
            for c in range(6):  # P = [V x*] I0, column by column
                for r in range(6):
                    col[r] = IC[i, r, c]
                    tmp[r] = 0.0
                _cross_force_add(Vb[i], col, tmp)
                for r in range(6):
                    P[r, c] = tmp[r]
            for r in range(6):
                acc = 0.0
                for c in range(6):
                    acc += IC[i, r, c] * Vb[i, c]
                    IdC[i, r, c] = P[r, c] + P[c, r]
                muC[i, r] = acc
        for i in range(n - 1, 0, -1):  # subtree sums
            p = parent[i]
            if p >= 0:
                for r in range(6):
                    muC[p, r] += muC[i, r]
                    for c in range(6):
                        IC[p, r, c] += IC[i, r, c]
                        IdC[p, r, c] += IdC[i, r, c]
        C = out[b]
        for r in range(nv):
            for c in range(nv):
                C[r, c] = 0.0
        for j in range(n):
            for bb in range(iv[j], iv[j] + nvj[j]):
                for r in range(6):
                    f2 = 0.0
                    d = 0.0
                    f1 = 0.0
                    for c in range(6):
                        f2 += IC[j, r, c] * s0[bb, c]
                        d += IdC[j, r, c] * s0[bb, c]
                        f1 += IC[j, r, c] * sd[bb, c]
                    F2[r] = f2
                    F1[r] = f1 + d
                    F3[r] = d
                for r in range(6):
                    tmp[r] = 0.0
                _cross_force_add(s0[bb], muC[j], tmp)
                for r in range(6):
                    F3[r] = 0.5 * (F3[r] - tmp[r])
                    F1[r] -= F3[r]
                k = j
                while k >= 0:  # the joints from j up to the root
                    for a in range(iv[k], iv[k] + nvj[k]):
                        acc = 0.0
                        for r in range(6):
                            acc += s0[a, r] * F1[r]
                        C[a, bb] = acc
                        if k != j:
                            acc = 0.0
                            for r in range(6):
                                acc += F2[r] * sd[a, r] + F3[r] * s0[a, r]
                            C[bb, a] = acc
                    k = parent[k]


# ---------------------------------------------------------------------------
# Python entry points: broadcast the inputs to rows, run the kernel, restore the shape
# ---------------------------------------------------------------------------

_FLAT = weakref.WeakKeyDictionary()


def flat_tree(model):
    """The model's :class:`FlatTree`, built on first use and kept as long as the model lives."""
    flat = _FLAT.get(model)
    if flat is None:
        flat = _FLAT[model] = FlatTree(model)
    return flat


def _rows(x, batch, tail):
    """``x`` broadcast to ``batch + tail`` as a writable C-contiguous (B, *tail) float array.

    Writable and contiguous always, so that the kernels compile for one array type only.
    """
    if x.shape != batch + tail:
        x = np.broadcast_to(x, batch + tail)
    rows = x.reshape((-1,) + tail)
    if rows.dtype == np.float64 and rows.flags.c_contiguous and rows.flags.writeable:
        return rows
    return np.array(rows, dtype=np.float64, order="C")


def _inputs(model, arrays, g, f_ext, frame):
    batch = np.broadcast_shapes(*(x.shape[:-1] for x in arrays), np.shape(g)[:-1])
    if f_ext is not None:
        f_ext = general.body_wrenches(model, arrays[0], f_ext, frame)
        batch = np.broadcast_shapes(batch, f_ext.shape[:-2])
    rows = [_rows(x, batch, x.shape[-1:]) for x in arrays]
    G = _rows(np.asarray(g, dtype=float), batch, (3,))
    use_f = f_ext is not None
    F = _rows(f_ext, batch, f_ext.shape[-2:]) if use_f else np.zeros((1, 1, 6))
    return batch, rows, G, F, use_f


#: Batches of at least this many configurations run RNEA, ABA, CRBA and the Coriolis
#: matrix over lanes
#: (:mod:`geomotion.tree._lanes`); measured on the golfer (nv = 33): the ABA of 8
#: configurations in 70 us against 83 one by one, of 64 in 377 against 641; below 8 the
#: block-sized work arrays cost more than they save.
LANES_FROM = 8


def run_rnea(model, q, v, a, g, f_ext=None, frame="body"):
    """:func:`geomotion.tree.general.rnea` by the compiled kernels (over lanes from
    ``LANES_FROM`` configurations)."""
    batch, (Q, V, A), G, F, use_f = _inputs(model, (q, v, a), g, f_ext, frame)
    out = np.empty((Q.shape[0], model.nv))
    kernel = _lanes.rnea if Q.shape[0] >= LANES_FROM else rnea
    kernel(*flat_tree(model).arrays(), Q, V, A, G, F, use_f, out)
    return out.reshape(batch + (model.nv,))


def run_aba(model, q, v, tau, g, f_ext=None, frame="body"):
    """:func:`geomotion.tree.general.aba` by the compiled kernels (one configuration at a
    time, or over lanes from ``LANES_FROM`` configurations); ValueError naming a singular joint."""
    batch, (Q, V, T), G, F, use_f = _inputs(model, (q, v, tau), g, f_ext, frame)
    out = np.empty((Q.shape[0], model.nv))
    status = np.full(2, -1, dtype=np.int64)
    kernel = _lanes.aba if Q.shape[0] >= LANES_FROM else aba
    kernel(*flat_tree(model).arrays(), Q, V, T, G, F, use_f, out, status)
    if status[0] >= 0:
        b, i = int(status[0]), int(status[1])
        where = f"configuration {b} of the batch" if math.prod(batch) > 1 else "this configuration"
        raise ValueError(
            f"q: the mass matrix is singular at {where}: joint {i} ({model.joints[i].kind}) "
            f"moves no inertia along one of its freedoms there (a pivot of its articulated "
            f"inertia at most {SINGULAR_JOINT_RTOL:g} of its size); the joint acceleration is "
            f"undefined"
        )
    return out.reshape(batch + (model.nv,))


def run_crba(model, q):
    """:func:`geomotion.tree.general.crba` by the compiled kernels (over lanes from
    ``LANES_FROM`` configurations)."""
    batch = q.shape[:-1]
    Q = _rows(q, batch, q.shape[-1:])
    out = np.empty((Q.shape[0], model.nv, model.nv))
    kernel = _lanes.crba if Q.shape[0] >= LANES_FROM else crba
    kernel(*flat_tree(model).arrays(), Q, out)
    return out.reshape(batch + (model.nv, model.nv))


def run_coriolis(model, q, v):
    """:func:`geomotion.tree.general.coriolis` by the compiled kernels (over lanes from
    ``LANES_FROM`` configurations): (..., nv, nv)."""
    batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    Q, V = _rows(q, batch, q.shape[-1:]), _rows(v, batch, v.shape[-1:])
    out = np.empty((Q.shape[0], model.nv, model.nv))
    kernel = _lanes.coriolis if Q.shape[0] >= LANES_FROM else coriolis
    kernel(*flat_tree(model).arrays(), Q, V, out)
    return out.reshape(batch + (model.nv, model.nv))
