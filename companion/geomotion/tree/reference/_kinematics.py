r"""Kinematics in the user's body frames, on explicit poses and 6x6 operators.

Plain propagations from the base: each joint's pose from its own
:meth:`~geomotion.tree.Joint.transform`, the motion transforms :math:`X_i`, body poses,
twists and Jacobians, the energies and momentum as sums over bodies, and a point's
position, Jacobian, velocity and acceleration bias from the base-coordinate joint
columns :math:`\mathrm{Ad}_{T_{0i}}S_i`.  The oracle of the compiled frame and point
kinematics (``geomotion.tree._lanes_frames``).
"""

from dataclasses import dataclass

import numpy as np

from ..._kernels import _cross, _inverse_pose, _motion_transform, _skew
from ...spatial import force_transform, motion_cross
from .._model import _check_configuration, _check_gravity, _check_tangent, check_model


def _joint_poses(model, q):
    r""":math:`T_{\lambda(i),i}(q) = T^0_{\lambda(i),i}\,T_{J,i}(q_i)` for every body: (..., N, 4, 4)."""
    poses = [
        model.placements[i] @ joint.transform(q[..., s : s + joint.nq])
        for i, (joint, s) in enumerate(zip(model.joints, model.q_start))
    ]
    return np.stack(poses, axis=-3)


def _columns(model, i):
    """Joint ``i``'s slice of ``v``."""
    return slice(model.v_start[i], model.v_start[i] + model.joint_nv[i])


def _joint_twists(model, v):
    r"""Each joint's twist of its body relative to the parent, :math:`S_iv_i`: (..., N, 6)."""
    return np.stack(
        [v[..., _columns(model, i)] @ joint.subspace.T for i, joint in enumerate(model.joints)],
        axis=-2,
    )


def joint_transforms(model, q):
    r"""Parent-to-child motion transforms :math:`X_i(q)` of every joint.

    Equations of the book: :eq:`conv-tree-velocity` and :eq:`conv-exp`.

    .. math:: X_i = \mathrm{Ad}_{T_{\lambda(i),i}(q_i)}^{-1},\qquad
              T_{\lambda(i),i}(q_i) = T^0_{\lambda(i),i}\exp([S_i]q_i)

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad for revolute/helical, m for prismatic joints).

    Returns
    -------
    (..., N, 6, 6) ndarray
        ``X_i`` maps angular-first twists in the parent's coordinates (base frame for
        roots) into body ``i``'s coordinates.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., nq) configuration.
    """
    check_model(model)
    q = _check_configuration(model, q, "q")
    T = _inverse_pose(_joint_poses(model, q))  # T_{i, parent}
    return _motion_transform(T[..., :3, :3], T[..., :3, 3])


def forward_kinematics(model, q):
    r"""Pose of every body in the base frame, :math:`T_{0,i}(q)`.

    Equations of the book: :eq:`eq-pose-map` and :eq:`conv-pose-compose`.

    .. math:: T_{0,i} = T_{0,\lambda(i)}\,T^0_{\lambda(i),i}\exp([S_i]q_i)

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, 4, 4) ndarray
        ``T_{0,i}`` maps body ``i`` coordinates into base coordinates (m).

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., nq) configuration.

    Examples
    --------
    The two-link arm with joint 1 at 90 degrees: link 1 points up, so link 2's frame
    (body 1, at joint 2) sits at (0, 0.6, 0) m.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> T = tree.forward_kinematics(arm, [np.radians(90), 0.0])
    >>> T.shape
    (2, 4, 4)
    >>> T[1, :3, 3].round(12)
    array([0. , 0.6, 0. ])
    """
    check_model(model)
    q = _check_configuration(model, q, "q")
    T = _joint_poses(model, q)
    out = np.empty_like(T)
    for i, p in enumerate(model.parents):
        out[..., i, :, :] = T[..., i, :, :] if p < 0 else out[..., p, :, :] @ T[..., i, :, :]
    return out


def body_jacobians(model, q):
    r"""Body Jacobians: joint rates to each body's twist in its own coordinates.

    Equation of the book: :eq:`eq-mass-matrix-jacobians`.

    .. math:: \mathcal V_i = J_i(q)\,\dot q,\qquad J_i = X_i J_{\lambda(i)} + S_i e_i^T

    Computed by its own propagation in the user's body frames (independent of the
    CRBA code), so that :math:`M = \sum_i J_i^T\mathcal I_i J_i` is a genuine check.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, 6, N) ndarray
        ``J[..., i, :, j]``: twist of body ``i`` (rad/s, m/s; body ``i`` coordinates,
        about its origin) per unit rate of joint ``j``.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., nq) configuration.

    Examples
    --------
    The stretched-out two-link arm: both joints turn link 2 (body 1) about z, and joint 1
    also moves its origin, 0.6 m out, at 0.6 m/s along y per rad/s; the Jacobians give
    :math:`M = \sum_i J_i^T\mathcal I_i J_i`.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> J = tree.body_jacobians(arm, [0.0, 0.0])
    >>> J[1].round(12)
    array([[0. , 0. ],
           [0. , 0. ],
           [1. , 1. ],
           [0. , 0. ],
           [0.6, 0. ],
           [0. , 0. ]])
    >>> M = sum(J[i].T @ arm.inertias[i] @ J[i] for i in range(2))
    >>> bool(np.allclose(M, tree.crba(arm, [0.0, 0.0])))
    True
    """
    X = joint_transforms(model, q)
    J = np.zeros(X.shape[:-3] + (model.num_bodies, 6, model.nv))
    for i, (p, joint, start) in enumerate(zip(model.parents, model.joints, model.v_start)):
        if p >= 0:
            J[..., i, :, :] = X[..., i, :, :] @ J[..., p, :, :]
        J[..., i, :, start : start + joint.nv] += joint.subspace
    return J


def body_twists(model, q, v):
    r"""Twist of every body in its own coordinates.

    Equations of the book: :eq:`eq-velocity-recursion` and :eq:`conv-tree-velocity`.

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i,\qquad
              \mathcal V_{\text{base}} = 0

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad or m).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s).

    Returns
    -------
    (..., N, 6) ndarray
        ``(omega, v)`` of body ``i`` about its origin in its axes (rad/s, m/s).

    Raises
    ------
    ValueError
        If an argument is malformed.

    Examples
    --------
    The stretched-out two-link arm with joint 1 turning at 2 rad/s: link 2's origin
    (joint 2, 0.6 m out) moves at 1.2 m/s along y.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.body_twists(arm, [0.0, 0.0], [2.0, 0.0]).round(12)
    array([[0. , 0. , 2. , 0. , 0. , 0. ],
           [0. , 0. , 2. , 0. , 1.2, 0. ]])
    """
    X = joint_transforms(model, q)
    v = _check_tangent(model, v, "v")
    shape = np.broadcast_shapes(X.shape[:-3], v.shape[:-1])
    X = np.broadcast_to(X, shape + X.shape[-3:])
    V = _joint_twists(model, v)
    V = np.array(np.broadcast_to(V, shape + V.shape[-2:]))
    for i, p in enumerate(model.parents):
        if p >= 0:
            V[..., i, :] += np.einsum("...ij,...j->...i", X[..., i, :, :], V[..., p, :])
    return V


def kinetic_energy(model, q, v):
    r"""Kinetic energy of the tree, summed over bodies, in J.

    Equation of the book: :eq:`eq-mass-matrix-jacobians`.

    .. math:: K = \sum_i \tfrac12\mathcal V_i^T\mathcal I_i\mathcal V_i = \tfrac12\dot q^T M(q)\dot q

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad or m; unit quaternions of ball and free-flyer joints).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s).

    Returns
    -------
    ndarray or float
        Shape ``(...)``, J.

    Raises
    ------
    ValueError
        If an argument is malformed.

    Examples
    --------
    The stretched-out two-link arm turning at 1 rad/s about joint 1:
    :math:`\tfrac12 M_{11}\dot q_1^2`.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> float(tree.kinetic_energy(arm, [0.0, 0.0], [1.0, 0.0]).round(9))
    0.45875
    """
    V = body_twists(model, q, v)
    return 0.5 * np.einsum("...ki,kij,...kj->...", V, model.inertias, V)


def potential_energy(model, q, *, gravity=None):
    r"""Gravitational potential energy, zero at the base origin, in J.

    .. math:: U = -\sum_i m_i\, g^T c_{0,i}(q)

    with :math:`c_{0,i}` the centre of mass of body ``i`` in base coordinates, so that
    :math:`dU/dt = -\sum_i m_i g^T\dot c_{0,i}` and, for an unforced tree,
    :math:`d(K + U)/dt = \dot q^T\tau`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad or m).
    gravity : None or (3,) or (..., 3) array_like
        Default None: ``model.gravity``.  Or gravity in base coordinates for this call,
        m/s^2; leading axes broadcast with ``q``'s.

    Returns
    -------
    ndarray or float
        Shape ``(...)``, J.

    Raises
    ------
    ValueError
        If an argument is malformed.

    Examples
    --------
    The two-link arm pointing straight up (joint 1 at 90 degrees) stores
    :math:`g(m_1c_1 + m_2(L_1 + c_2))` = 9.81 x 1.45 J; hanging straight down, minus that.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> float(tree.potential_energy(arm, [np.radians(90), 0.0]).round(6))
    14.2245
    >>> float(tree.potential_energy(arm, [np.radians(-90), 0.0]).round(6))
    -14.2245
    """
    first_moment = _first_moment(model, q)
    return -np.sum(first_moment * _check_gravity(model, gravity), axis=-1)


def _first_moment(model, q):
    r""":math:`\sum_i m_ic_{0,i}(q)`, kg m, (..., 3): the bodies' centres of mass weighted."""
    T = forward_kinematics(model, q)
    c0 = np.einsum("...kij,kj->...ki", T[..., :3, :3], model.centers_of_mass) + T[..., :3, 3]
    return np.einsum("k,...ki->...i", model.masses, c0)


def center_of_mass(model, q):
    r"""Centre of mass of the whole tree in base coordinates, m.

    .. math:: c(q) = \frac{\sum_i m_i\, c_{0,i}(q)}{\sum_i m_i}

    with :math:`c_{0,i}` the centre of mass of body ``i`` (``model.centers_of_mass``) in
    base coordinates; the total mass is ``model.masses.sum()``.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like

    Returns
    -------
    (..., 3) ndarray

    Raises
    ------
    ValueError
        If ``q`` is malformed.

    Examples
    --------
    The stretched-out two-link arm: :math:`(m_1c_1 + m_2(L_1 + c_2))/(m_1 + m_2)` along x.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.center_of_mass(arm, [0.0, 0.0]).round(6) + 0.0
    array([0.483333, 0.      , 0.      ])
    """
    return _first_moment(model, q) / model.masses.sum()


def spatial_momentum(model, q, v):
    r"""Total spatial momentum of the tree about the base origin, in base axes.

    Equation of the book: :eq:`eq-spatial_momentum`.

    .. math:: \mathcal P_0 = \sum_i \mathrm{Ad}_{T_{0,i}}^{-T}\,\mathcal I_i\mathcal V_i

    Moment-first: angular momentum about the base origin (kg m^2/s), then linear
    momentum (kg m/s).

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad or m; unit quaternions of ball and free-flyer joints).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s).

    Returns
    -------
    (..., 6) ndarray

    Raises
    ------
    ValueError
        If an argument is malformed.

    Examples
    --------
    The stretched-out two-link arm turning rigidly at 1 rad/s about joint 1: angular
    momentum :math:`M_{11}\dot q_1` = 0.9175 kg m^2/s about z, linear momentum
    :math:`(m_1c_1 + m_2(L_1 + c_2))\,\dot q_1` = 1.45 kg m/s along y.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.spatial_momentum(arm, [0.0, 0.0], [1.0, 0.0]).round(9)
    array([0.    , 0.    , 0.9175, 0.    , 1.45  , 0.    ])
    """
    V = body_twists(model, q, v)
    X = force_transform(forward_kinematics(model, q))  # body i's momentum -> base coordinates
    return np.einsum("...kij,kjl,...kl->...i", X, model.inertias, V)


def _base_jacobian_columns(model, q, v=None):
    r"""Joint subspaces in base coordinates :math:`S^0_i = \mathrm{Ad}_{T_{0,i}}S_i`, and their rates.

    Returns ``(T, S0, dS0, V0)``: the body poses (..., N, 4, 4), the (..., 6, nv) matrix
    whose columns of joint ``i`` are :math:`S^0_i`, and (if ``v`` is given, else None)
    its time derivative :math:`\dot S^0_i = \mathcal V^0_i\times S^0_i` and the body
    twists :math:`\mathcal V^0_i` in base coordinates (..., N, 6).  Column ``j`` belongs to
    the Jacobian of every body that joint ``j`` moves.
    """
    T = forward_kinematics(model, q)
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
            np.swapaxes(motion_cross(V0[..., i, :]) @ S0[..., :, _columns(model, i)], -1, -2)
            for i in range(model.num_bodies)
        ],
        axis=-2,
    )
    return T, S0, np.swapaxes(dS0, -1, -2), V0


def _supports(model):
    """(N, nv) boolean: column j of ``v`` moves body i (joint of j is i or an ancestor of i)."""
    mask = np.zeros((model.num_bodies, model.nv), dtype=bool)
    for i, p in enumerate(model.parents):
        if p >= 0:
            mask[i] = mask[p]
        mask[i, _columns(model, i)] = True
    return mask


@dataclass(frozen=True, eq=False)
class PointKinematics:
    r"""A point fixed in a body, in base coordinates, from :func:`point_kinematics`.

    Read by name; it does not unpack like a tuple.

    Attributes
    ----------
    position : (..., 3) ndarray
        The point :math:`r` in the base, m.
    jacobian : (..., 3, nv) ndarray
        :math:`J_r = J_v - [r]J_\omega`: m/s per unit of v.
    velocity : (..., 3) ndarray or None
        :math:`\dot r = J_rv`, m/s (None without ``v``).
    acceleration_bias : (..., 3) ndarray or None
        The classical acceleration at :math:`a = 0`, m/s^2 (None without ``v``).
    """

    position: np.ndarray
    jacobian: np.ndarray
    velocity: object
    acceleration_bias: object


def point_kinematics(model, q, v, body, point):
    r"""A point fixed in ``body``: base position, Jacobian, and (if ``v``) velocity and bias.

    With the base-coordinate Jacobian of the body :math:`J = [J_\omega; J_v]` (about the
    base origin), the point :math:`r` moves with :math:`\dot r = J_v v + J_\omega v\times r`,
    so :math:`J_r = J_v - [r]J_\omega`; its classical acceleration at :math:`a = 0` is
    :math:`\dot J_v v + \dot J_\omega v\times r + \omega\times\dot r`.  The oracle
    of :func:`geomotion.tree.point_position`, :func:`~geomotion.tree.point_jacobian`,
    :func:`~geomotion.tree.point_velocity` and
    :func:`~geomotion.tree.point_acceleration_bias`; it checks no argument.

    Parameters
    ----------
    model : Tree
    q : (..., nq) ndarray
        Configuration (rad, m, unit quaternions).
    v : None or (..., nv) ndarray
        Velocity (rad/s, m/s); None for the position and Jacobian only.
    body : int
        Index of the body that carries the point, ``0 <= body < N``.
    point : (..., 3) array_like
        The point in the body's coordinates, m; leading axes broadcast with ``q``'s.

    Returns
    -------
    PointKinematics
        ``position`` (..., 3), ``jacobian`` (..., 3, nv), and with ``v`` ``velocity``
        (..., 3) and ``acceleration_bias`` (..., 3) (else None).
    """
    T, S0, dS0, _ = _base_jacobian_columns(model, q, v)
    mask = _supports(model)[body]
    J = np.where(mask, S0, 0.0)
    r = np.einsum("...ij,...j->...i", T[..., body, :3, :3], point) + T[..., body, :3, 3]
    Jr = J[..., 3:, :] - _skew(r) @ J[..., :3, :]
    if v is None:
        return PointKinematics(r, Jr, None, None)
    dJ = np.where(mask, dS0, 0.0)
    w = np.einsum("...ij,...j->...i", J[..., :3, :], v)
    rdot = np.einsum("...ij,...j->...i", Jr, v)
    dJv = np.einsum("...ij,...j->...i", dJ, v)
    bias = dJv[..., 3:] + _cross(dJv[..., :3], r) + _cross(w, rdot)
    return PointKinematics(r, Jr, rdot, bias)
