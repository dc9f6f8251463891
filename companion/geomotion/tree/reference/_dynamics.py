r"""Inverse and forward dynamics and the Coriolis matrix on explicit 6x6 operators.

The book's recursions, body by body, in each body's own frame, on the motion
transforms :math:`X_i` of :func:`~geomotion.tree.reference.joint_transforms` and the
operators :math:`[\mathcal V\times]`, :math:`[\mathcal V\times^*]` of
:mod:`geomotion.spatial`: the recursive Newton–Euler algorithm (:func:`rnea`;
Featherstone, *Rigid Body Dynamics Algorithms*, 2008, table 5.1), the articulated-body
algorithm (:func:`aba`, table 7.1, with multi-degree-of-freedom joints as in section
4.5) and the Christoffel-consistent Coriolis matrix from base-coordinate Jacobians
(:func:`coriolis_matrix`).  Configurations are leading axes: a loop over the N bodies
does the work for the whole batch.  The oracles of ``geomotion.tree._lanes`` and
``geomotion.tree._lanes_coriolis``.
"""

import numpy as np

from ... import _validate
from ..._kernels import _force_transform, _skew
from ...inertia import newton_euler_wrench
from ...spatial import force_cross, motion_cross
from .._model import _check_f_ext, _check_gravity
from ._kinematics import (
    _base_jacobian_columns,
    _columns,
    _supports,
    forward_kinematics,
)
from ._prepared import prepare


def _apply(operator, vector):
    """(..., m, k) operator times (..., k) vector."""
    return np.einsum("...jk,...k->...j", operator, vector)


def _apply_transpose(operator, vector):
    """(..., k, m) operator, transposed, times (..., k) vector."""
    return np.einsum("...kj,...k->...j", operator, vector)


def _wrenches_in_bodies(model, q, f_ext, frame):
    r"""External wrenches in body coordinates about body origins: (..., N, 6).

    ``frame`` "world": :math:`\mathcal F_i = \mathrm{Ad}_{T_{0i}}^T\mathcal F^0_i` with the
    body poses of :func:`forward_kinematics`.
    """
    if frame == "body":
        return f_ext
    T = forward_kinematics(model, q)
    Fx = _force_transform(T[..., :3, :3], T[..., :3, 3])  # Ad^-T: body wrench -> base
    return np.linalg.solve(Fx, f_ext[..., None])[..., 0]


def _states(model, q, v, second, second_name, gravity, f_ext, f_ext_frame):
    """Validated ``(X, S, v, second, g, F)`` of one call: transforms (..., N, 6, 6), the
    joints' subspaces, rates, the accelerations or forces, gravity and body wrenches."""
    prepared = prepare(model, q)
    v = _validate.trailing_shape(v, "v", (model.nv,))
    second = _validate.trailing_shape(second, second_name, (model.nv,))
    g = _check_gravity(model, gravity)
    F = _check_f_ext(model, f_ext, f_ext_frame)
    if F is not None:
        F = _wrenches_in_bodies(model, _validate.real_array(q, "q"), F, f_ext_frame)
    return prepared.transform, prepared.subspace, v, second, g, F


def rnea(model, q, v, a, *, gravity=None, f_ext=None, f_ext_frame="body"):
    r"""Joint forces by the recursive Newton–Euler algorithm on explicit 6x6 operators.

    Equations of the book: :eq:`eq-velocity-recursion`, :eq:`eq-spatial_newton_euler_final`
    and :eq:`conv-joint-space`.

    Outward in every body's own frame, from the base accelerating at :math:`(0, -g)`:

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i,\qquad
              \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_i\ddot q_i
              + \mathcal V_i\times S_i\dot q_i,\qquad
              \mathcal F_i = \mathcal I_i\mathcal A_i
              + \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i;

    inward: :math:`\tau_i = S_i^T\mathcal F_i` and
    :math:`\mathcal F_{\lambda(i)} \mathrel{+}= X_i^T\mathcal F_i`.  The oracle of
    :func:`geomotion.tree.rnea`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad, m, unit quaternions).
    v, a : (..., nv) array_like
        Joint rates (rad/s or m/s) and accelerations (rad/s^2 or m/s^2); leading axes
        broadcast.
    gravity : None or (3,) or (..., 3) array_like
        Default None: ``model.gravity``.  Or gravity in base coordinates, m/s^2.
    f_ext : (..., N, 6) array_like, optional
        External wrench on each body, moment-first (N m, N).
    f_ext_frame : {"body", "world"}
        As in :func:`geomotion.tree.rnea`.

    Returns
    -------
    (..., nv) ndarray
        Joint forces (N m or N).

    Raises
    ------
    ValueError
        If an argument is malformed.
    """
    X, S, v, a, g, F_ext = _states(model, q, v, a, "a", gravity, f_ext, f_ext_frame)
    n = model.num_bodies
    own = [_columns(model, i) for i in range(n)]
    batch = np.broadcast_shapes(X.shape[:-3], v.shape[:-1], a.shape[:-1], g.shape[:-1])
    if F_ext is not None:
        batch = np.broadcast_shapes(batch, F_ext.shape[:-2])
    X = np.broadcast_to(X, batch + (n, 6, 6))
    base = (np.zeros(6), np.concatenate([np.zeros(g.shape), -g], axis=-1))  # twist, acceleration
    V, A, F = np.zeros((3,) + batch + (n, 6))
    for i, p in enumerate(model.parents):
        V_parent, A_parent = base if p < 0 else (V[..., p, :], A[..., p, :])
        X_i, joint_velocity = X[..., i, :, :], _apply(S[i], v[..., own[i]])
        V[..., i, :] = _apply(X_i, V_parent) + joint_velocity
        A[..., i, :] = (
            _apply(X_i, A_parent)
            + _apply(S[i], a[..., own[i]])
            + _apply(motion_cross(V[..., i, :]), joint_velocity)
        )
        F[..., i, :] = newton_euler_wrench(model.inertias[i], V[..., i, :], A[..., i, :])
    if F_ext is not None:
        F = F - F_ext
    for i in reversed(range(n)):
        p = model.parents[i]
        if p >= 0:
            F[..., p, :] += _apply_transpose(X[..., i, :, :], F[..., i, :])
    return np.concatenate([F[..., i, :] @ S[i] for i in range(n)], axis=-1)


def _singular_pivot(D, size, i, model, batch, pivot_rtol):
    """ValueError naming joint ``i`` if its articulated pivot D (..., k, k) is singular
    somewhere: at most ``pivot_rtol`` of its size."""
    smallest = np.linalg.eigvalsh(D)[..., 0]
    bad = np.asarray(smallest <= pivot_rtol * size)
    if bad.any():
        b = int(np.argmax(bad.reshape(-1)))
        where = f"configuration {b} of the batch" if batch else "this configuration"
        raise ValueError(
            f"q: the mass matrix is singular at {where}: joint {i} ({model.joints[i].kind}) moves "
            f"no inertia along one of its freedoms there (articulated inertia "
            f"{float(np.asarray(smallest).reshape(-1)[b]):.3g}, at most {pivot_rtol:g} "
            f"of its size); the joint acceleration is undefined"
        )


def aba(model, q, v, tau, *, gravity=None, f_ext=None, f_ext_frame="body", pivot_rtol=1e-12):
    r"""Joint accelerations by the articulated-body algorithm on explicit 6x6 operators.

    Equation of the book: :eq:`conv-joint-space`.

    Outward: twists :math:`\mathcal V_i` and velocity products
    :math:`c_i = \mathcal V_i\times S_iv_i`.  Inward, from
    :math:`\mathcal I^A_i = \mathcal I_i` and
    :math:`p^A_i = \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i`,
    with :math:`U_i = \mathcal I^A_iS_i`, :math:`D_i = S_i^TU_i` (:math:`n_{v,i}\times
    n_{v,i}`) and :math:`u_i = \tau_i - S_i^Tp^A_i`:

    .. math:: \mathcal I^a_i = \mathcal I^A_i - U_iD_i^{-1}U_i^T,\qquad
              \mathcal I^A_{\lambda(i)} \mathrel{+}= X_i^T\mathcal I^a_iX_i,\qquad
              p^A_{\lambda(i)} \mathrel{+}= X_i^T(p^A_i + \mathcal I^a_ic_i + U_iD_i^{-1}u_i);

    outward again, from the base accelerating at :math:`(0, -g)`:
    :math:`\mathcal A'_i = X_i\mathcal A_{\lambda(i)} + c_i`,
    :math:`\ddot q_i = D_i^{-1}(u_i - U_i^T\mathcal A'_i)`,
    :math:`\mathcal A_i = \mathcal A'_i + S_i\ddot q_i`.  The oracle of
    :func:`geomotion.tree.aba`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad, m, unit quaternions).
    v, tau : (..., nv) array_like
        Joint rates (rad/s or m/s) and forces (N m or N); leading axes broadcast.
    gravity, f_ext, f_ext_frame
        As in :func:`rnea`.
    pivot_rtol : float, optional, keyword only
        A joint's articulated pivot :math:`D_i` counts as singular when its smallest
        eigenvalue is at most ``pivot_rtol`` times its size,
        :math:`\max_j|S_{i,j}|^2\,\mathrm{tr}\,\mathcal I^A_i` (default 1e-12, the
        compiled path's rule, stated here on its own).

    Returns
    -------
    (..., nv) ndarray
        Joint accelerations (rad/s^2 or m/s^2).

    Raises
    ------
    ValueError
        If an argument is malformed, or a joint's pivot :math:`D_i` is singular (see
        ``pivot_rtol``).
    """
    X, S, v, tau, g, F_ext = _states(model, q, v, tau, "tau", gravity, f_ext, f_ext_frame)
    pivot_rtol = float(_validate.nonnegative(pivot_rtol, "pivot_rtol"))
    n = model.num_bodies
    own = [_columns(model, i) for i in range(n)]
    batch = np.broadcast_shapes(X.shape[:-3], v.shape[:-1], tau.shape[:-1], g.shape[:-1])
    if F_ext is not None:
        batch = np.broadcast_shapes(batch, F_ext.shape[:-2])
    X = np.broadcast_to(X, batch + (n, 6, 6))
    V, c, pA = np.zeros((3,) + batch + (n, 6))
    IA = np.array(np.broadcast_to(model.inertias, batch + (n, 6, 6)))
    for i, p in enumerate(model.parents):
        joint_velocity = _apply(S[i], v[..., own[i]])
        V[..., i, :] = joint_velocity + (0.0 if p < 0 else _apply(X[..., i, :, :], V[..., p, :]))
        c[..., i, :] = _apply(motion_cross(V[..., i, :]), joint_velocity)
        pA[..., i, :] = _apply(force_cross(V[..., i, :]), _apply(model.inertias[i], V[..., i, :]))
    if F_ext is not None:
        pA = pA - F_ext
    U, Dinv, Dinv_u = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):
        U[i] = IA[..., i, :, :] @ S[i]
        D = S[i].T @ U[i]
        size = np.max(np.sum(S[i] * S[i], axis=0)) * np.trace(IA[..., i, :, :], axis1=-2, axis2=-1)
        _singular_pivot(D, size, i, model, bool(batch), pivot_rtol)
        Dinv[i] = np.linalg.inv(D)
        Dinv_u[i] = _apply(Dinv[i], tau[..., own[i]] - pA[..., i, :] @ S[i])
        p = model.parents[i]
        if p >= 0:
            Ia = IA[..., i, :, :] - U[i] @ Dinv[i] @ np.swapaxes(U[i], -1, -2)
            pa = pA[..., i, :] + _apply(Ia, c[..., i, :]) + _apply(U[i], Dinv_u[i])
            Xi = X[..., i, :, :]
            IA[..., p, :, :] += np.swapaxes(Xi, -1, -2) @ Ia @ Xi
            pA[..., p, :] += _apply_transpose(Xi, pa)
    qdd = np.empty(batch + (model.nv,))
    A = np.empty(batch + (n, 6))
    A0 = np.broadcast_to(np.concatenate([np.zeros(g.shape), -g], axis=-1), batch + (6,))
    for i, p in enumerate(model.parents):
        Ai = _apply(X[..., i, :, :], A0 if p < 0 else A[..., p, :]) + c[..., i, :]
        qdd[..., own[i]] = Dinv_u[i] - _apply(Dinv[i], _apply_transpose(U[i], Ai))
        A[..., i, :] = Ai + _apply(S[i], qdd[..., own[i]])
    return qdd


def _bar_force_cross(h):
    r"""The map :math:`x \mapsto x\times^*h` for a momentum :math:`h = (n, f)`:
    :math:`\begin{bmatrix} -[n] & -[f] \\ -[f] & 0 \end{bmatrix}`, (..., 6, 6)."""
    n, f = _skew(h[..., :3]), _skew(h[..., 3:])
    top = np.concatenate([-n, -f], axis=-1)
    bottom = np.concatenate([-f, np.zeros_like(f)], axis=-1)
    return np.concatenate([top, bottom], axis=-2)


def coriolis_matrix(model, q, v):
    r"""Christoffel-consistent :math:`C(q,v)` from base-coordinate Jacobians, any joints.

    Equations of the book: :eq:`eq-ch2-christoffel` and :eq:`eq-ch2-energy-identity`.

    .. math:: C = \sum_k J_k^T\big(\mathcal I^0_k\dot J_k + B_kJ_k\big),\qquad
              B_k = \tfrac12\big((\mathcal V_k\times^*)\mathcal I^0_k
              + ((\mathcal V_k\times^*)\mathcal I^0_k)^T + (\mathcal I^0_k\mathcal V_k)\bar\times^*\big)

    with :math:`J_k` the columns :math:`S^0_j = \mathrm{Ad}_{T_{0j}}S_j` of the joints
    that move body ``k``, :math:`\dot J_k` those of :math:`\dot S^0_j = \mathcal V^0_j\times
    S^0_j`, :math:`\mathcal I^0_k` body ``k``'s inertia in base coordinates, and
    :math:`h\bar\times^*` the map :math:`x \mapsto x\times^*h`.  The oracle of
    :func:`geomotion.tree.coriolis_matrix`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad, m, unit quaternions).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s).

    Returns
    -------
    (..., nv, nv) ndarray
        :math:`C` with :math:`\dot M = C + C^T` (kg m^2/s and the like).

    Raises
    ------
    ValueError
        If an argument is malformed.
    """
    v = _validate.trailing_shape(v, "v", (model.nv,))
    T, S0, dS0, V0 = _base_jacobian_columns(model, _validate.real_array(q, "q"), v)
    mask = _supports(model)
    shape = np.broadcast_shapes(S0.shape[:-2], dS0.shape[:-2])
    C = np.zeros(shape + (model.nv, model.nv))
    Fx = _force_transform(T[..., :3, :3], T[..., :3, 3])  # Ad^{-T}: body wrench -> base
    I0 = Fx @ model.inertias @ np.swapaxes(Fx, -1, -2)  # Ad^-T I Ad^-1
    for k in range(model.num_bodies):
        J = np.where(mask[k], S0, 0.0)
        dJ = np.where(mask[k], dS0, 0.0)
        Vk, Ik = V0[..., k, :], I0[..., k, :, :]
        VxI = force_cross(Vk) @ Ik
        h = _apply(Ik, Vk)
        hbar = _bar_force_cross(h)
        B = 0.5 * (VxI + np.swapaxes(VxI, -1, -2) + hbar)
        C += np.swapaxes(J, -1, -2) @ (Ik @ dJ + B @ J)
    return C
