r"""The joint-general path: every algorithm on the joint models, body by body, batched.

Each algorithm below is the textbook recursion written once for any joint model of
:mod:`geomotion.tree.joints`: a joint enters only through its motion transform
:math:`X_i(q_i)`, its constant motion subspace :math:`S_i` (6 x :math:`n_{v,i}`) and the
slice of ``v`` it owns.  Arrays carry the configurations as leading axes, so a loop over
the N bodies does the work for the whole batch.  This is the path of trees with ball or
free-flyer joints, and the independent reference the screw-joint fast paths are tested
against (Featherstone, *Rigid Body Dynamics Algorithms*, 2008: RNEA table 5.1, CRBA
table 6.2, ABA table 7.1, with multi-degree-of-freedom joints as in section 4.5).

All twists are angular-first; body quantities are in the body's own coordinates about
its origin, base quantities in base coordinates about the base origin.
"""

import numpy as np

from .._kernels import _cross, _force_transform, _inverse_pose, _motion_transform, _skew

#: A joint's articulated inertia about its own screw, D_i = S_i^T I^A_i S_i, counts as zero
#: (the mass matrix as singular) at or below this fraction of |S_i|^2 tr(I^A_i), the size
#: of the terms it is summed from: rounding alone leaves ~1e-16 of that.
SINGULAR_JOINT_RTOL = 1e-12


def joint_poses(model, q):
    r""":math:`T_{\lambda(i),i}(q) = T^0_{\lambda(i),i}\,T_{J,i}(q_i)` for every body: (..., N, 4, 4)."""
    poses = [
        model.placements[i] @ joint.transform(q[..., s : s + joint.nq])
        for i, (joint, s) in enumerate(zip(model.joints, model.q_start))
    ]
    return np.stack(poses, axis=-3)


def motion_transforms(model, q):
    r""":math:`X_i = \mathrm{Ad}^{-1}_{T_{\lambda(i),i}}`, parent to body ``i`` coordinates: (..., N, 6, 6)."""
    T = _inverse_pose(joint_poses(model, q))
    return _motion_transform(T[..., :3, :3], T[..., :3, 3])


def base_poses(model, q):
    r""":math:`T_{0,i} = T_{0,\lambda(i)}\,T_{\lambda(i),i}`: (..., N, 4, 4)."""
    T = joint_poses(model, q)
    out = np.empty_like(T)
    for i, p in enumerate(model.parents):
        out[..., i, :, :] = T[..., i, :, :] if p < 0 else out[..., p, :, :] @ T[..., i, :, :]
    return out


def _columns(model, i):
    return slice(model.v_start[i], model.v_start[i] + model.joint_nv[i])


def joint_twists(model, v):
    r"""Each joint's twist of its body relative to the parent, :math:`S_i v_i`: (..., N, 6)."""
    return np.stack(
        [v[..., _columns(model, i)] @ joint.subspace.T for i, joint in enumerate(model.joints)],
        axis=-2,
    )


def _apply(X, x):
    return np.einsum("...ij,...j->...i", X, x)


def _apply_transpose(X, x):
    return np.einsum("...ji,...j->...i", X, x)


def cross(a, b):
    """a x b over the last axis, broadcasting (the shared kernel: no numpy.cross overhead)."""
    return _cross(a, b)


def motion_cross(V, x):
    r""":math:`\mathcal V\times x` for angular-first twists, broadcasting: (..., 6)."""
    w, v = V[..., :3], V[..., 3:]
    return np.concatenate(
        [cross(w, x[..., :3]), cross(w, x[..., 3:]) + cross(v, x[..., :3])], axis=-1
    )


def force_cross(V, f):
    r""":math:`\mathcal V\times^* f = -(\mathcal V\times)^T f` for moment-first wrenches: (..., 6)."""
    w, v = V[..., :3], V[..., 3:]
    return np.concatenate(
        [cross(w, f[..., :3]) + cross(v, f[..., 3:]), cross(w, f[..., 3:])], axis=-1
    )


def twists(model, X, Sv):
    r"""Body twists :math:`\mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_iv_i`: (..., N, 6)."""
    V = np.array(
        np.broadcast_to(Sv, np.broadcast_shapes(X.shape[:-3], Sv.shape[:-2]) + Sv.shape[-2:])
    )
    for i, p in enumerate(model.parents):
        if p >= 0:
            V[..., i, :] += _apply(X[..., i, :, :], V[..., p, :])
    return V


def body_wrenches(model, q, f_ext, frame):
    """External wrenches in body coordinates about body origins (``frame`` 'body' or 'world')."""
    if frame == "body":
        return f_ext
    T = base_poses(model, q)
    Ad = _motion_transform(T[..., :3, :3], T[..., :3, 3])  # Ad_{T_0i}: body -> base twists
    return np.einsum("...kji,...kj->...ki", Ad, f_ext)  # F_i = Ad^T F_0


def _wrench_batch(f_ext):
    """Leading (batch) shape of the (..., N, 6) external wrenches: a batch of loads counts too."""
    return () if f_ext is None else np.shape(f_ext)[:-2]


def _base_acceleration(g):
    """Acceleration of the base (0, -g): the fictitious upward acceleration that replaces gravity."""
    g = np.asarray(g, dtype=float)
    return np.concatenate([np.zeros(g.shape[:-1] + (3,)), -g], axis=-1)


def rnea(model, q, v, a, g, f_ext=None, frame="body"):
    r"""Recursive Newton–Euler: :math:`\tau = M a + C v + g - \sum J^T F^{ext}`, any joints.

    .. math:: \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_ia_i + \mathcal V_i\times S_iv_i,\quad
              \mathcal F_i = \mathcal I_i\mathcal A_i + \mathcal V_i\times^*\mathcal I_i\mathcal V_i
              - \mathcal F^{ext}_i,\quad \tau_i = S_i^T\mathcal F_i,\quad
              \mathcal F_{\lambda(i)} \mathrel{+}= X_i^T\mathcal F_i
    """
    X = motion_transforms(model, q)
    Sv, Sa = joint_twists(model, v), joint_twists(model, a)
    V = twists(model, X, Sv)
    shape = np.broadcast_shapes(V.shape[:-2], Sa.shape[:-2], np.shape(g)[:-1], _wrench_batch(f_ext))
    A = np.empty(shape + V.shape[-2:])
    A0 = _base_acceleration(g)
    for i, p in enumerate(model.parents):
        parent = A0 if p < 0 else A[..., p, :]
        A[..., i, :] = (
            _apply(X[..., i, :, :], parent)
            + Sa[..., i, :]
            + motion_cross(V[..., i, :], Sv[..., i, :])
        )
    IV = np.einsum("kij,...kj->...ki", model.inertias, V)
    F = np.einsum("kij,...kj->...ki", model.inertias, A) + force_cross(V, IV)
    if f_ext is not None:
        F = F - body_wrenches(model, q, f_ext, frame)
    tau = np.empty(shape + (model.nv,))
    for i in reversed(range(model.num_bodies)):
        tau[..., _columns(model, i)] = F[..., i, :] @ model.joints[i].subspace
        p = model.parents[i]
        if p >= 0:
            F[..., p, :] += _apply_transpose(X[..., i, :, :], F[..., i, :])
    return tau


def _singular_pivot(D, scale, i, model, batch):
    """ValueError naming joint ``i`` if its articulated pivot D (..., nv, nv) is singular somewhere."""
    smallest = np.linalg.eigvalsh(D)[..., 0] if D.shape[-1] > 1 else D[..., 0, 0]
    bad = np.asarray(smallest <= SINGULAR_JOINT_RTOL * scale)
    if bad.any():
        b = int(np.argmax(bad.reshape(-1)))
        where = f"configuration {b} of the batch" if batch else "this configuration"
        raise ValueError(
            f"q: the mass matrix is singular at {where}: joint {i} ({model.joints[i].kind}) moves "
            f"no inertia along one of its freedoms there (articulated inertia "
            f"{float(np.asarray(smallest).reshape(-1)[b]):.3g}, at most {SINGULAR_JOINT_RTOL:g} "
            f"of its size); the joint acceleration is undefined"
        )


def articulated_pivots(model, X):
    r"""The joint-space pivots :math:`D_i = S_i^T\mathcal I^A_iS_i` of the ABA, and their sizes.

    :math:`\det M = \prod_i\det D_i`, so ``M`` is singular exactly where some :math:`D_i` is;
    the size is :math:`\max_j|S_{i,j}|^2\,\mathrm{tr}\,\mathcal I^A_i`.
    """
    IA = np.array(np.broadcast_to(model.inertias, X.shape[:-3] + model.inertias.shape))
    pivots, sizes = [None] * model.num_bodies, [None] * model.num_bodies
    for i in reversed(range(model.num_bodies)):
        S = model.joints[i].subspace
        U = IA[..., i, :, :] @ S
        D = S.T @ U
        pivots[i] = D
        sizes[i] = np.max(np.sum(S * S, axis=0)) * np.trace(IA[..., i, :, :], axis1=-2, axis2=-1)
        p = model.parents[i]
        if p >= 0:
            # pinv: a pivot singular at some configurations must not stop the sweep
            Ia = IA[..., i, :, :] - U @ np.linalg.pinv(D, hermitian=True) @ np.swapaxes(U, -1, -2)
            Xi = X[..., i, :, :]
            IA[..., p, :, :] += np.swapaxes(Xi, -1, -2) @ Ia @ Xi
    return pivots, sizes


def aba(model, q, v, tau, g, f_ext=None, frame="body"):
    r"""Articulated-body algorithm, O(N): :math:`a = M^{-1}(\tau - b)`, any joints.

    Inward, with :math:`U_i = \mathcal I^A_iS_i`, :math:`D_i = S_i^TU_i` (n_v x n_v),
    :math:`u_i = \tau_i - S_i^Tp^A_i` and :math:`c_i = \mathcal V_i\times S_iv_i`:

    .. math:: \mathcal I^a_i = \mathcal I^A_i - U_iD_i^{-1}U_i^T,\qquad
              \mathcal I^A_{\lambda(i)} \mathrel{+}= X_i^T\mathcal I^a_iX_i,\qquad
              p^A_{\lambda(i)} \mathrel{+}= X_i^T(p^A_i + \mathcal I^a_ic_i + U_iD_i^{-1}u_i);

    outward: :math:`\mathcal A'_i = X_i\mathcal A_{\lambda(i)} + c_i`,
    :math:`a_i = D_i^{-1}(u_i - U_i^T\mathcal A'_i)`, :math:`\mathcal A_i = \mathcal A'_i + S_ia_i`.
    Each joint solves its own :math:`n_{v,i}\times n_{v,i}` system.
    """
    X = motion_transforms(model, q)
    Sv = joint_twists(model, v)
    V = twists(model, X, Sv)
    c = motion_cross(V, Sv)
    shape = np.broadcast_shapes(
        V.shape[:-2], tau.shape[:-1], np.shape(g)[:-1], _wrench_batch(f_ext)
    )
    X = np.broadcast_to(X, shape + X.shape[-3:])
    c = np.broadcast_to(c, shape + c.shape[-2:])
    IA = np.array(np.broadcast_to(model.inertias, shape + model.inertias.shape))
    pA = force_cross(V, np.einsum("kij,...kj->...ki", model.inertias, V))
    if f_ext is not None:
        pA = pA - body_wrenches(model, q, f_ext, frame)
    pA = np.array(np.broadcast_to(pA, shape + pA.shape[-2:]))
    tau = np.broadcast_to(tau, shape + tau.shape[-1:])
    n = model.num_bodies
    U, Dinv_u, Dinv = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):
        S = model.joints[i].subspace
        U[i] = IA[..., i, :, :] @ S
        D = S.T @ U[i]
        scale = np.max(np.sum(S * S, axis=0)) * np.trace(IA[..., i, :, :], axis1=-2, axis2=-1)
        _singular_pivot(D, scale, i, model, bool(shape))
        Dinv[i] = np.linalg.inv(D)
        u = tau[..., _columns(model, i)] - pA[..., i, :] @ S
        Dinv_u[i] = _apply(Dinv[i], u)
        p = model.parents[i]
        if p >= 0:
            Ia = IA[..., i, :, :] - U[i] @ Dinv[i] @ np.swapaxes(U[i], -1, -2)
            pa = pA[..., i, :] + _apply(Ia, c[..., i, :]) + _apply(U[i], Dinv_u[i])
            Xi = X[..., i, :, :]
            IA[..., p, :, :] += np.swapaxes(Xi, -1, -2) @ Ia @ Xi
            pA[..., p, :] += _apply_transpose(Xi, pa)
    a = np.empty(shape + (model.nv,))
    A = np.empty(shape + (n, 6))
    A0 = np.broadcast_to(_base_acceleration(g), shape + (6,))
    for i, p in enumerate(model.parents):
        Ai = _apply(X[..., i, :, :], A0 if p < 0 else A[..., p, :]) + c[..., i, :]
        ai = Dinv_u[i] - _apply(Dinv[i], _apply_transpose(U[i], Ai))
        a[..., _columns(model, i)] = ai
        A[..., i, :] = Ai + ai @ model.joints[i].subspace.T
    return a


def crba(model, q):
    r"""Composite-rigid-body algorithm: :math:`M(q)` in joint blocks, any joints.

    :math:`\mathcal I^C_{\lambda(i)} \mathrel{+}= X_i^T\mathcal I^C_iX_i`; then for each body
    :math:`F = \mathcal I^C_iS_i`, :math:`M_{ii} = S_i^TF`, and walking to the base
    :math:`F \leftarrow X_j^TF`, :math:`M_{\lambda(j)i} = S_{\lambda(j)}^TF`.
    """
    X = motion_transforms(model, q)
    IC = np.array(np.broadcast_to(model.inertias, X.shape[:-3] + model.inertias.shape))
    for i in reversed(range(model.num_bodies)):
        p = model.parents[i]
        if p >= 0:
            Xi = X[..., i, :, :]
            IC[..., p, :, :] += np.swapaxes(Xi, -1, -2) @ IC[..., i, :, :] @ Xi
    M = np.zeros(X.shape[:-3] + (model.nv, model.nv))
    for i in range(model.num_bodies):
        ci = _columns(model, i)
        F = IC[..., i, :, :] @ model.joints[i].subspace
        M[..., ci, ci] = model.joints[i].subspace.T @ F
        j = i
        while model.parents[j] >= 0:
            F = np.swapaxes(X[..., j, :, :], -1, -2) @ F
            j = model.parents[j]
            cj = _columns(model, j)
            block = model.joints[j].subspace.T @ F
            M[..., cj, ci] = block
            M[..., ci, cj] = np.swapaxes(block, -1, -2)
    return M


def base_jacobian_columns(model, q, v=None):
    r"""Joint subspaces in base coordinates :math:`S^0_i = \mathrm{Ad}_{T_{0,i}}S_i`, and their rates.

    Returns ``(T, S0, dS0, V0)``: the body poses (..., N, 4, 4), the (..., 6, nv) matrix
    whose columns of joint ``i`` are :math:`S^0_i`, and (if ``v`` is given, else None)
    its time derivative :math:`\dot S^0_i = \mathcal V^0_i\times S^0_i` and the body
    twists :math:`\mathcal V^0_i` in base coordinates (..., N, 6).  Column ``j`` belongs to
    the Jacobian of every body that joint ``j`` moves.
    """
    T = base_poses(model, q)
    Ad = _motion_transform(T[..., :3, :3], T[..., :3, 3])
    S0 = np.concatenate(
        [Ad[..., i, :, :] @ joint.subspace for i, joint in enumerate(model.joints)], axis=-1
    )
    if v is None:
        return T, S0, None, None
    V0 = np.empty(np.broadcast_shapes(S0.shape[:-2], v.shape[:-1]) + (model.num_bodies, 6))
    for i, p in enumerate(model.parents):
        own = np.einsum(
            "...ij,...j->...i", S0[..., :, _columns(model, i)], v[..., _columns(model, i)]
        )
        V0[..., i, :] = own if p < 0 else V0[..., p, :] + own
    dS0 = np.concatenate(
        [
            motion_cross(V0[..., i, None, :], np.swapaxes(S0[..., :, _columns(model, i)], -1, -2))
            for i in range(model.num_bodies)
        ],
        axis=-2,
    )
    return T, S0, np.swapaxes(dS0, -1, -2), V0


def supports(model):
    """(N, nv) boolean: column j of ``v`` moves body i (joint of j is i or an ancestor of i)."""
    mask = np.zeros((model.num_bodies, model.nv), dtype=bool)
    for i, p in enumerate(model.parents):
        if p >= 0:
            mask[i] = mask[p]
        mask[i, _columns(model, i)] = True
    return mask


def coriolis(model, q, v):
    r"""Christoffel-consistent :math:`C(q,v)` from base-coordinate Jacobians, any joints.

    .. math:: C = \sum_k J_k^T\big(\mathcal I^0_k\dot J_k + B_kJ_k\big),\qquad
              B_k = \tfrac12\big((\mathcal V_k\times^*)\mathcal I^0_k
              + ((\mathcal V_k\times^*)\mathcal I^0_k)^T + (\mathcal I^0_k\mathcal V_k)\bar\times^*\big)

    with :math:`J_k` the columns :math:`S^0_j` of the joints that move body ``k`` and
    :math:`\dot J_k` those of :math:`\dot S^0_j` (:func:`base_jacobian_columns`).
    """
    T, S0, dS0, V0 = base_jacobian_columns(model, q, v)
    mask = supports(model)
    shape = np.broadcast_shapes(S0.shape[:-2], dS0.shape[:-2])
    C = np.zeros(shape + (model.nv, model.nv))
    Fx = _force_transform(T[..., :3, :3], T[..., :3, 3])  # Ad^{-T}: body wrench -> base
    I0 = Fx @ model.inertias @ np.swapaxes(Fx, -1, -2)  # Ad^-T I Ad^-1
    eye = np.eye(6)
    for k in range(model.num_bodies):
        J = np.where(mask[k], S0, 0.0)
        dJ = np.where(mask[k], dS0, 0.0)
        Vk, Ik = V0[..., k, :], I0[..., k, :, :]
        VxI = np.swapaxes(force_cross(Vk[..., None, :], np.swapaxes(Ik, -1, -2)), -1, -2)
        h = np.einsum("...ij,...j->...i", Ik, Vk)
        hbar = np.swapaxes(force_cross(eye, h[..., None, :]), -1, -2)  # x -> x x* h
        B = 0.5 * (VxI + np.swapaxes(VxI, -1, -2) + hbar)
        C += np.swapaxes(J, -1, -2) @ (Ik @ dJ + B @ J)
    return C


def point_kinematics(model, q, v, body, point):
    r"""A point fixed in ``body``: base position, Jacobian, and (if ``v``) velocity and bias.

    With the base-coordinate Jacobian of the body :math:`J = [J_\omega; J_v]` (about the
    base origin), the point :math:`r` moves with :math:`\dot r = J_v v + J_\omega v\times r`,
    so :math:`J_r = J_v - [r]J_\omega`; its classical acceleration at :math:`a = 0` is
    :math:`\dot J_v v + \dot J_\omega v\times r + \omega\times\dot r`.
    """
    T, S0, dS0, _ = base_jacobian_columns(model, q, v)
    mask = supports(model)[body]
    J = np.where(mask, S0, 0.0)
    r = np.einsum("...ij,...j->...i", T[..., body, :3, :3], point) + T[..., body, :3, 3]
    Jr = J[..., 3:, :] - _skew(r) @ J[..., :3, :]
    if v is None:
        return r, Jr, None, None
    dJ = np.where(mask, dS0, 0.0)
    w = np.einsum("...ij,...j->...i", J[..., :3, :], v)
    rdot = np.einsum("...ij,...j->...i", Jr, v)
    dJv = np.einsum("...ij,...j->...i", dJ, v)
    bias = dJv[..., 3:] + cross(dJv[..., :3], r) + cross(w, rdot)
    return r, Jr, rdot, bias
