r"""The Christoffel-consistent Coriolis matrix compiled over lanes of configurations.

Built from the lane operations of ``geomotion.tree._lanes`` (poses, transforms, cross
products, the congruence, the write-out), for every batch size; the formulas are those
of :mod:`geomotion.tree._coriolis` (see :func:`coriolis`).
"""

import numba
import numpy as np

from ._flat import KERNEL
from ._lanes import (
    _block_poses,
    _block_width,
    _congruence_add,
    _cross_force,
    _cross_motion,
    _lanes_to_rows,
    _pose_transform,
)


@numba.njit(**KERNEL)
def coriolis(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, out):
    r"""Christoffel-consistent Coriolis matrices ``out`` (B, nv, nv), base coordinates, at
    configurations ``Q`` (B, nq) and velocities ``V`` (B, nv), block by block.

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
    branches.
    """
    n, nv, B = parent.shape[0], S.shape[0], Q.shape[0]
    W = _block_width(B)
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    Rw, pw = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    s0, sd = np.empty((nv, 6, W)), np.empty((nv, 6, W))
    Vb, muC = np.empty((n, 6, W)), np.empty((n, 6, W))
    IC, IdC = np.empty((n, 6, 6, W)), np.empty((n, 6, 6, W))
    X, work = np.empty((6, 6, W)), np.empty((6, 6, W))
    Vt, F1, F2, F3, tmp = (np.empty((nv, W)), np.empty((6, W)), np.empty((6, W)),
                           np.empty((6, W)), np.empty((6, W)))  # fmt: skip
    Ct = np.zeros((nv, nv, W))  # entries across branches stay zero; every block writes the rest
    for start in range(0, B, W):
        m = min(W, B - start)
        _block_poses(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, np.arange(n))
        for l in range(m):
            for j in range(nv):
                Vt[j, l] = V[start + l, j]
        for i in range(n):
            p = parent[i]
            for r in range(3):  # world pose: T_0i = T_0p T_pi
                for c in range(3):
                    for l in range(m):
                        if p >= 0:
                            Rw[i, r, c, l] = (
                                Rw[p, r, 0, l] * Rl[i, 0, c, l]
                                + Rw[p, r, 1, l] * Rl[i, 1, c, l]
                                + Rw[p, r, 2, l] * Rl[i, 2, c, l]
                            )
                        else:
                            Rw[i, r, c, l] = Rl[i, r, c, l]
                for l in range(m):
                    if p >= 0:
                        pw[i, r, l] = (
                            pw[p, r, l]
                            + Rw[p, r, 0, l] * pl[i, 0, l]
                            + Rw[p, r, 1, l] * pl[i, 1, l]
                            + Rw[p, r, 2, l] * pl[i, 2, l]
                        )
                    else:
                        pw[i, r, l] = pl[i, r, l]
            for r in range(6):
                for l in range(m):
                    Vb[i, r, l] = Vb[p, r, l] if p >= 0 else 0.0
            R, pp = Rw[i], pw[i]
            for a in range(iv[i], iv[i] + nvj[i]):  # s_a = Ad_{T_0i} S_a, and the twist
                col = s0[a]
                for r in range(3):
                    for l in range(m):
                        col[r, l] = (
                            R[r, 0, l] * S[a, 0] + R[r, 1, l] * S[a, 1] + R[r, 2, l] * S[a, 2]
                        )
                        col[3 + r, l] = (
                            R[r, 0, l] * S[a, 3] + R[r, 1, l] * S[a, 4] + R[r, 2, l] * S[a, 5]
                        )
                for l in range(m):
                    col[3, l] += pp[1, l] * col[2, l] - pp[2, l] * col[1, l]
                    col[4, l] += pp[2, l] * col[0, l] - pp[0, l] * col[2, l]
                    col[5, l] += pp[0, l] * col[1, l] - pp[1, l] * col[0, l]
                for r in range(6):
                    for l in range(m):
                        Vb[i, r, l] += col[r, l] * Vt[a, l]
            for a in range(iv[i], iv[i] + nvj[i]):
                _cross_motion(Vb[i], s0[a], sd[a], m)
            _pose_transform(R, pp, X, m)  # Ad_{T_0i}^-1: base to body i
            for r in range(6):
                for c in range(6):
                    for l in range(m):
                        IC[i, r, c, l] = 0.0
            for r in range(6):  # I is constant: broadcast it over the lanes for the congruence
                for c in range(6):
                    for l in range(m):
                        work[r, c, l] = I[i, r, c]
            _congruence_add(X, work, IC[i], IdC[i], m)  # IdC[i] as scratch, set below
            for c in range(6):  # P = [V x*] I0 column by column, Idot = P + P^T
                for r in range(6):
                    for l in range(m):
                        tmp[r, l] = IC[i, r, c, l]
                _cross_force(Vb[i], tmp, F1, m)
                for r in range(6):
                    for l in range(m):
                        work[r, c, l] = F1[r, l]
            for r in range(6):
                for c in range(6):
                    for l in range(m):
                        IdC[i, r, c, l] = work[r, c, l] + work[c, r, l]
                for l in range(m):
                    acc = 0.0
                    for c in range(6):
                        acc += IC[i, r, c, l] * Vb[i, c, l]
                    muC[i, r, l] = acc
        for i in range(n - 1, 0, -1):  # subtree sums
            p = parent[i]
            if p < 0:
                continue
            for r in range(6):
                for l in range(m):
                    muC[p, r, l] += muC[i, r, l]
                for c in range(6):
                    for l in range(m):
                        IC[p, r, c, l] += IC[i, r, c, l]
                        IdC[p, r, c, l] += IdC[i, r, c, l]
        for j in range(n):
            for bb in range(iv[j], iv[j] + nvj[j]):
                for r in range(6):
                    for l in range(m):
                        f2 = 0.0
                        d = 0.0
                        f1 = 0.0
                        for c in range(6):
                            f2 += IC[j, r, c, l] * s0[bb, c, l]
                            d += IdC[j, r, c, l] * s0[bb, c, l]
                            f1 += IC[j, r, c, l] * sd[bb, c, l]
                        F2[r, l] = f2
                        F1[r, l] = f1 + d
                        F3[r, l] = d
                _cross_force(s0[bb], muC[j], tmp, m)
                for r in range(6):
                    for l in range(m):
                        F3[r, l] = 0.5 * (F3[r, l] - tmp[r, l])
                        F1[r, l] -= F3[r, l]
                k = j
                while k >= 0:  # the joints from j up to the root
                    for a in range(iv[k], iv[k] + nvj[k]):
                        for l in range(m):
                            acc = 0.0
                            for r in range(6):
                                acc += s0[a, r, l] * F1[r, l]
                            Ct[a, bb, l] = acc
                        if k != j:
                            for l in range(m):
                                acc = 0.0
                                for r in range(6):
                                    acc += F2[r, l] * sd[a, r, l] + F3[r, l] * s0[a, r, l]
                                Ct[bb, a, l] = acc
                    k = parent[k]
        _lanes_to_rows(Ct, out, start, m)
