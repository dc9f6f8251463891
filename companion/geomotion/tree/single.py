r"""Point kinematics for one (or a few) configurations per call, vectorized across bodies.

The ~1-5 us overhead of each numpy call dominates at one configuration, so the work is
vectorized across *bodies* instead, in base coordinates (Featherstone's spatial
formulation).  One product with constant bases gives all joint transforms, a loop of N
6x6 ``ndarray.dot`` calls all force transforms to the base, and then joint screws, body
inertias, velocities ``v_i = sum_{j<=i} s_j qd_j`` (a product with the constant ancestor
matrix), the cross-product operators ``[v_i x]``/``[v_i x*]`` (one product with a
constant (6, 72) basis) are a few calls for all bodies at once.  The CRBA here is the
reference of the tree's precision check (:class:`~geomotion.tree.Tree` compares it with
the readable path); one call of :func:`~geomotion.tree.crba`,
:func:`~geomotion.tree.rnea`, :func:`~geomotion.tree.aba` or
:func:`~geomotion.tree.coriolis_matrix` runs the compiled kernels of
``geomotion.tree._jit`` instead, 2-8x faster.

Functions take ``(N,)`` arrays for one configuration or ``(B, N)`` for a small batch, in
the user's body order, and a model's ``_Compiled`` data.
"""

import numpy as np

from .._kernels import _skew
from .compiled import _to_internal

_CROSS_BASIS = np.zeros((6, 2, 6, 6))  # v @ basis = ([v x], [v x*]) flattened
for _k in range(6):
    _e = np.zeros(6)
    _e[_k] = 1.0
    _CROSS_BASIS[_k, 0, :3, :3] = _CROSS_BASIS[_k, 0, 3:, 3:] = _skew(_e[:3])
    _CROSS_BASIS[_k, 0, 3:, :3] = _skew(_e[3:])
    _CROSS_BASIS[_k, 1] = -_CROSS_BASIS[_k, 0].T
_CROSS_BASIS = _CROSS_BASIS.reshape(6, 72)


def _lmul(A, x):
    """A @ x for a constant (N, N) A and x (..., N, k): ``dot`` when x is 2-D (cheaper)."""
    return A.dot(x) if x.ndim == 2 else A @ x


def _stk_force_transforms(cm, q):
    """Force transforms Ad_{T_{0,i'}}^{-T} of every canonical frame to the base, (..., N, 6, 6)."""
    slides = cm.any_trans
    coef = np.empty((5 if slides else 3,) + q.shape)  # coefficient-major: contiguous rows
    coef[0] = 1.0
    theta = q * cm.sa
    np.cos(theta, out=coef[1])
    np.sin(theta, out=coef[2])
    if slides:
        d = q * cm.sl
        np.multiply(coef[1], d, out=coef[3])
        np.multiply(coef[2], d, out=coef[4])
    coef = coef.T if q.ndim == 1 else np.moveaxis(coef, 0, -1)
    F = (coef[..., None, :] @ cm.FCB).reshape(q.shape + (6, 6))  # parent' <- i', at q
    if q.ndim == 1:
        T = np.empty_like(F)
        Tl, Fl = list(T), list(F)
        for k, p in enumerate(cm.parent):
            if p < 0:
                Tl[k][...] = Fl[k]
            else:
                np.dot(Tl[p], Fl[k], out=Tl[k])
        return T
    for k, p in cm.chain_steps:
        F[:, k] = F[:, p] @ F[:, k]
    return F


def _stk_frames(cm, q):
    """Base-coordinate joint screws (..., N, 6), inertias (..., N, 6, 6), force transforms."""
    F0 = _stk_force_transforms(cm, q)
    P = F0 @ cm.Iu  # [F0 I | F0 u] with u = (0, 0, s_l, 0, 0, s_a)
    I0 = P[..., :6] @ np.swapaxes(F0, -1, -2)
    # s_i = Ad_{T_{0,i'}} S'_i = (R s_a e_z, [p] R s_a e_z + R s_l e_z); F0 u gives it halves swapped
    w = P[..., 6]
    s = np.concatenate((w[..., 3:], w[..., :3]), axis=-1)
    return s, I0, F0


def _stk_crba(cm, q):
    """CRBA in base coordinates: M_ij = s_i . I^C_j s_j for i an ancestor of (or equal to) j."""
    q = _to_internal(cm, q)
    s, I0, _ = _stk_frames(cm, q)
    IC = _lmul(cm.anc_T, I0.reshape(I0.shape[:-2] + (36,))).reshape(I0.shape)
    Fw = (IC @ s[..., None])[..., 0]
    full = s @ np.swapaxes(Fw, -1, -2)
    M = full * cm.anc_T
    M += np.swapaxes(full * cm.anc_T_strict, -1, -2)
    if not cm.identity:
        M = np.take(np.take(M, cm.inv, axis=-1), cm.inv, axis=-2)
    return M


def _stk_velocity_products(cm, s, qd):
    """Body twists v_i = sum_{j <= i} s_j qd_j, their cross operators and ds_i/dt = v_i x s_i."""
    v = _lmul(cm.anc, s * qd[..., None])
    ops = (v.dot(_CROSS_BASIS) if v.ndim == 2 else v @ _CROSS_BASIS).reshape(
        v.shape[:-1] + (2, 6, 6)
    )
    sdot = (ops[..., 0, :, :] @ s[..., None])[..., 0]
    return v, ops, sdot


def _stk_points(cm, q, qd, k, r):
    """Point kinematics of internal body ``k`` at canonical-frame point ``r`` (..., 3).

    Returns ``(p, J, a)``: the point in base coordinates about the internal origin
    (..., 3), its Jacobian (..., 3, N) in internal column order, and with ``qd`` given
    its acceleration at ``qdd = 0`` (..., 3), else None.
    """
    q = _to_internal(cm, q)
    F0 = _stk_force_transforms(cm, q)
    u = (F0 @ cm.Iu[:, :, 6:])[..., 0]  # F0 (0, 0, s_l, 0, 0, s_a): the screw, halves swapped
    s = np.concatenate((u[..., 3:], u[..., :3]), axis=-1)
    R = F0[..., k, :3, :3]
    pR = F0[..., k, :3, 3:]  # [p] R of body k's frame
    origin = _vee(pR @ np.swapaxes(R, -1, -2))
    point = (R @ r[..., None])[..., 0] + origin
    ancestors = cm.anc[k]
    J = (s[..., 3:] + _cross(s[..., :3], point[..., None, :])) * ancestors[:, None]
    J = np.swapaxes(J, -1, -2)
    if qd is None:
        return point, J, None
    v, _, sdot = _stk_velocity_products(cm, s, _to_internal(cm, qd))
    acc = np.einsum("...jr,j->...r", sdot * _to_internal(cm, qd)[..., None], ancestors)
    w, vs = v[..., k, :3], v[..., k, 3:]
    alpha, a_s = acc[..., :3], acc[..., 3:]
    point_velocity = vs + _cross(w, point)
    a = a_s + _cross(alpha, point) + _cross(w, point_velocity)
    return point, J, a


def _cross(a, b):
    """a x b over the last axis (numpy's cross costs ~25 us per call on arrays this small)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _vee(P):
    """p from the skew matrix [p] (..., 3, 3)."""
    return np.stack([P[..., 2, 1], P[..., 0, 2], P[..., 1, 0]], axis=-1)
