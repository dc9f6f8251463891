r"""Point kinematics of large batches of screw-joint trees, in base coordinates.

Same layout as :mod:`geomotion.tree.batched` (structure of arrays, the batch as the last,
contiguous axis; work arrays from the model's scratch arena), but every quantity is
expressed in base coordinates (about the internal origin of each root's subtree, see
:mod:`geomotion.tree.compiled`): one outward pass gives each canonical body frame's pose
``(R, p)`` and its joint screw ``s_k``, and a point's position, Jacobian and bias read
the ancestors' screws and twists.  (The CRBA and the Coriolis matrix that lived here
run in the compiled kernels over lanes of configurations, ``geomotion.tree._lanes``:
measured at 10,000 configurations of the 7-body chain, the Coriolis matrix in 1.3 us
per configuration against 2.4 us, and at N = 32 in 7.5 against 14.8.)

Functions take ``(B, N)`` arrays in the user's body order and return ``(B, ...)``
results in the user's order.
"""

import numpy as np

from .batched import _checkin, _checkout, _soa_columns, _soa_trig

_CYCLIC = ((1, 2), (2, 0), (0, 1))  # (a x b)_i = a_j b_k - a_k b_j for (j, k) = _CYCLIC[i]


def _cross(a, b, out, tmp):
    """out = a x b for row vectors a, b of shape (3, ...); ``tmp`` like a[0]."""
    for i, (j, k) in enumerate(_CYCLIC):
        np.multiply(a[j], b[k], out=out[i])
        np.multiply(a[k], b[j], out=tmp)
        out[i] -= tmp
    return out


def _cross_add(a, b, out, tmp, sign=1.0):
    """out += sign * (a x b) for row vectors of shape (3, ...)."""
    for i, (j, k) in enumerate(_CYCLIC):
        np.multiply(a[j], b[k], out=tmp)
        if sign > 0:
            out[i] += tmp
        else:
            out[i] -= tmp
        np.multiply(a[k], b[j], out=tmp)
        if sign > 0:
            out[i] -= tmp
        else:
            out[i] += tmp


def _soa_base_bodies(cm, qs, ws, upto=None):
    """Outward pass in base coordinates over internal bodies ``0 .. upto - 1``.

    Returns ``(Rw, pw, S)``: ``Rw`` (n, 3, 3, B) with ``Rw[k, col]`` column ``col`` of
    ``R_{0,k'}``, ``pw`` (n, 3, B) the frame origins and ``S`` (6, n, B) the joint screws.
    Rows of bodies at or beyond ``upto`` are left unset.
    """
    n, B = qs.shape
    upto = n if upto is None else upto
    c, s, d = _soa_trig(cm, qs, ws)
    Rw = ws.get("cr_R", (n, 3, 3, B))
    pw = ws.get("cr_p", (n, 3, B))
    S = ws.get("cr_S", (6, n, B))
    Q = ws.get("cr_Q", (3, 3, B))
    t = ws.get("cr_t", (3, B))
    t1 = ws.get("t1", (B,))
    for k in range(upto):
        p = cm.parent[k]
        Rk, pk = Rw[k], pw[k]
        if p < 0:
            Q[...] = cm.RCT[k][:, :, None]
            pk[...] = cm.pC[k][:, None]
        else:
            Rp = Rw[p].reshape(3, 3 * B)
            np.matmul(cm.RCT[k], Rp, out=Q.reshape(3, 3 * B))  # Q = R_{0,p'} R_C
            np.matmul(cm.pC[k], Rp, out=t.reshape(3 * B))
            np.add(pw[p], t, out=pk)
        if cm.rot[k]:  # R_{0,k'} = Q R_z(theta)
            ck, sk = c[k], s[k]
            np.multiply(Q[0], ck, out=Rk[0])
            np.multiply(Q[1], sk, out=t)
            Rk[0] += t
            np.multiply(Q[1], ck, out=Rk[1])
            np.multiply(Q[0], sk, out=t)
            Rk[1] -= t
        else:
            Rk[0:2] = Q[0:2]
        z = Rk[2]
        z[...] = Q[2]
        if cm.trans[k]:
            np.multiply(z, d[k], out=t)
            pk += t
        # screw s = (s_a z, s_a p x z + s_l z)
        sa, sl = cm.sa_list[k], cm.sl_list[k]
        sw, sv = S[0:3, k], S[3:6, k]
        np.multiply(z, sa, out=sw)
        _cross(pk, z, sv, t1)
        sv *= sa
        if sl:
            np.multiply(z, sl, out=t)
            sv += t
    return Rw, pw, S


def _soa_twists(cm, S, qds, V, upto=None):
    """V[:, k] = V[:, parent] + S[:, k] qd_k: base-coordinate body twists (6, n, B)."""
    for k in range(cm.n if upto is None else upto):
        p = cm.parent[k]
        if p < 0:
            np.multiply(S[:, k], qds[k], out=V[:, k])
        else:
            np.multiply(S[:, k], qds[k], out=V[:, k])
            V[:, k] += V[:, p]
    return V


def _motion_cross(V, x, out, tmp):
    """out = V x x (spatial motion cross product) for (6, ...) rows."""
    _cross(V[0:3], x[0:3], out[0:3], tmp)
    _cross(V[0:3], x[3:6], out[3:6], tmp)
    _cross_add(V[3:6], x[0:3], out[3:6], tmp)
    return out


def _soa_points(cm, q, qd, k, r, out=None):
    """Point kinematics of internal body ``k`` at canonical-frame point ``r`` (B, 3).

    Returns ``(p, J, a)`` like :func:`geomotion.tree.single._stk_points`: the point about
    the internal origin (B, 3), its Jacobian (B, 3, N) in internal column order, and
    with ``qd`` given its acceleration at ``qdd = 0`` (B, 3), else None (written into
    the arrays of ``out`` if given).  Only body ``k`` and its ancestors (internal indices
    up to ``k``) are visited.
    """
    point_out, J, a_out = (None, None, None) if out is None else out
    B, n = q.shape
    ws = _checkout(cm)
    try:
        qs = _soa_columns(cm, q, ws.get("q", (n, B)))
        Rw, pw, S = _soa_base_bodies(cm, qs, ws, upto=k + 1)
        tmp = ws.get("t1", (B,))
        point = np.einsum("cib,bc->ib", Rw[k], r) + pw[k]  # (3, B)
        ancestors = np.nonzero(cm.anc[k])[0]
        J = np.zeros((B, 3, n)) if J is None else J
        J[...] = 0.0
        column = ws.get("pt_col", (3, B))
        for j in ancestors:  # column j: s_v + s_w x p
            _cross(S[0:3, j], point, column, tmp)
            column += S[3:6, j]
            J[:, :, j] = column.T
        point_out = _copy_rows(point, point_out)
        if qd is None:
            return point_out, J, None
        qds = _soa_columns(cm, qd, ws.get("qd", (n, B)))
        V = _soa_twists(cm, S, qds, ws.get("co_V", (6, n, B)), upto=k + 1)
        Sd = ws.get("pt_Sd", (6, B))
        acc = ws.get("pt_acc", (6, B))
        acc[...] = 0.0
        for j in ancestors:  # spatial acceleration at qdd = 0: sum of (V_j x s_j) qd_j
            _motion_cross(V[:, j], S[:, j], Sd, tmp)
            Sd *= qds[j]
            acc += Sd
        w, vs = V[0:3, k], V[3:6, k]
        velocity = ws.get("pt_vel", (3, B))
        _cross(w, point, velocity, tmp)
        velocity += vs  # the point's velocity
        a = acc[3:6].copy()
        _cross_add(acc[0:3], point, a, tmp)
        _cross_add(w, velocity, a, tmp)
        return point_out, J, _copy_rows(a, a_out)
    finally:
        _checkin(cm, ws)


def _copy_rows(x, out):
    """(r, B) rows -> (B, r), into ``out`` if given."""
    if out is None:
        return x.T.copy()
    out[...] = x.T
    return out
