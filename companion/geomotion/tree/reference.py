r"""The readable reference path: explicit 6x6 operators in the user's body frames.

:class:`~geomotion.tree.PreparedTree` with :func:`~geomotion.tree.composite_inertias` and
:func:`~geomotion.tree.joint_mass_matrix` is the textbook composite-rigid-body algorithm on
explicit 6x6 operators: what the book chapter shows.  :func:`~geomotion.tree.body_jacobians`,
:func:`~geomotion.tree.body_twists`, :func:`~geomotion.tree.joint_transforms` and
:func:`~geomotion.tree.forward_kinematics` are likewise plain propagations in the user's body
frames, and the energies and momentum are sums over bodies.  None of this shares code with
the compiled kernels (``geomotion.tree._jit``, ``geomotion.tree._lanes``), which are
tested against it.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._kernels import _inverse_pose, _motion_transform
from ..spatial import force_transform
from . import general
from .model import (
    _STRUCTURE_RTOL,
    _check_configuration,
    _check_gravity,
    _check_motion_transforms,
    _check_parents,
    _check_subspaces,
    _check_tangent,
    _readonly,
    check_model,
)


@dataclass(frozen=True, eq=False)
class PreparedTree:
    r"""A tree frozen at one configuration: explicit 6x6 joint transforms.

    The object the textbook algorithms (:func:`composite_inertias`,
    :func:`joint_mass_matrix`) act on.  Build it from a :class:`Tree` with
    :func:`prepare`, or by hand as in the book's worked example.

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i

    Parameters
    ----------
    parents : (N,) sequence of int
        Parent indices, ``-1 <= parents[i] < i``.
    transform : (..., N, 6, 6) array_like
        ``X_i``: motion transform from the parent's coordinates to body ``i``'s
        (Featherstone's ``Xup``), ``X_i = Ad_{T_{parent,i}}^{-1}``.  Leading axes are a
        batch of configurations.
    subspace : (N, 6) array_like, or sequence of N (6, k_i) array_like
        Motion subspace of each joint in body ``i`` coordinates (angular-first): one
        nonzero screw ``S_i`` per body, or a 6 x k_i matrix of independent columns for a
        joint with k_i freedoms (a ball joint: ``[[I3], [0]]``).  Stored as a tuple of
        (6, k_i) arrays.
    inertia : (N, 6, 6) array_like
        Body inertias about body ``i``'s origin in its axes, symmetric positive
        semidefinite (kg, kg m, kg m^2 blocks).

    Raises
    ------
    ValueError
        Naming the argument, for wrong shapes, non-finite values, parents not ordered
        parent-before-child, transforms that are not rigid motion transforms, zero joint
        screws, and inertias that are asymmetric or not positive semidefinite.

    Examples
    --------
    The two-link arm at :math:`q = 0`, by hand: joint 1 at the base origin (an identity
    transform), joint 2 0.6 m along link 1's x axis.

    >>> import numpy as np
    >>> from geomotion import models, spatial, tree
    >>> arm = models.two_link_teaching_arm()
    >>> X_elbow = spatial.inverse_motion_transform(spatial.pose(np.eye(3), [0.6, 0.0, 0.0]))
    >>> by_hand = tree.PreparedTree(parents=[-1, 0], transform=[np.eye(6), X_elbow],
    ...                             subspace=[tree.REVOLUTE_Z] * 2, inertia=arm.inertias)
    >>> tree.joint_mass_matrix(by_hand).round(6)
    array([[0.9175, 0.2175],
           [0.2175, 0.0675]])
    """

    parents: np.ndarray
    transform: np.ndarray
    subspace: np.ndarray
    inertia: np.ndarray

    def __post_init__(self):
        parents = _check_parents(self.parents, "parents")
        n = parents.size
        X = _validate.real_array(self.transform, "transform")
        if X.ndim < 3 or X.shape[-3:] != (n, 6, 6):
            raise ValueError(f"transform: expected shape (..., {n}, 6, 6), got shape {X.shape}")
        _check_motion_transforms(X, "transform")
        S = _check_subspace_blocks(self.subspace, n, "subspace")
        I = _validate.real_array(self.inertia, "inertia")
        if I.shape != (n, 6, 6):
            raise ValueError(f"inertia: expected shape ({n}, 6, 6), got shape {I.shape}")
        scale = np.abs(I).max(axis=(1, 2))
        asym = np.abs(I - np.swapaxes(I, 1, 2)).max(axis=(1, 2))
        for i in np.nonzero(asym > _STRUCTURE_RTOL * (1 + scale))[0]:
            raise ValueError(
                f"inertia: expected symmetric 6x6 inertias, got asymmetry {asym[i]:.3g} for body {i}"
            )
        eig = np.linalg.eigvalsh(0.5 * (I + np.swapaxes(I, 1, 2)))
        for i in np.nonzero(eig.min(axis=1) < -_STRUCTURE_RTOL * (1 + scale))[0]:
            raise ValueError(
                f"inertia: expected positive semidefinite inertias, "
                f"got eigenvalue {eig[i].min():.3g} for body {i}"
            )
        for name, value in (("parents", parents), ("transform", X), ("inertia", I)):
            object.__setattr__(self, name, _readonly(value))
        object.__setattr__(self, "subspace", S)

    @property
    def num_bodies(self):
        """Number of bodies N."""
        return self.parents.size


def _check_subspace_blocks(subspace, n, name):
    """A tuple of N read-only (6, k_i) motion subspaces from screws or matrices."""
    if isinstance(subspace, np.ndarray) and subspace.ndim == 3 and subspace.shape[-1] == 1:
        subspace = subspace[..., 0]  # N single-column subspaces: screws
    if isinstance(subspace, np.ndarray) or all(np.ndim(s) == 1 for s in subspace):
        return tuple(_readonly(s[:, None]) for s in _check_subspaces(subspace, n, name))
    if len(subspace) != n:
        raise ValueError(
            f"{name}: expected {n} motion subspaces (one per body), got {len(subspace)}"
        )
    blocks = []
    for i, s in enumerate(subspace):
        block = _validate.real_array(s, f"{name}[{i}]")
        if block.ndim != 2 or block.shape[0] != 6 or block.shape[1] < 1:
            raise ValueError(
                f"{name}[{i}]: expected a (6, k) motion subspace, got shape {block.shape}"
            )
        if np.linalg.matrix_rank(block) < block.shape[1]:
            raise ValueError(
                f"{name}[{i}]: expected independent columns, got a rank-deficient {block.shape} subspace"
            )
        blocks.append(_readonly(block))
    return tuple(blocks)


# ---------------------------------------------------------------------------
# Plain kinematics in the user's body frames (the independent references)
# ---------------------------------------------------------------------------


def _joint_poses(model, q):
    """T_{parent,i}(q) = placements[i] @ T_J(q_i): (..., N, 4, 4)."""
    return general.joint_poses(model, q)


def joint_transforms(model, q):
    r"""Parent-to-child motion transforms :math:`X_i(q)` of every joint.

    .. math:: X_i = \mathrm{Ad}_{T_{\lambda(i),i}(q_i)}^{-1},\qquad
              T_{\lambda(i),i}(q_i) = T^0_{\lambda(i),i}\exp([S_i]q_i)

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad for revolute/helical, m for prismatic joints).

    Returns
    -------
    (..., N, 6, 6) ndarray
        ``X_i`` maps angular-first twists in the parent's coordinates (base frame for
        roots) into body ``i``'s coordinates.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.
    """
    check_model(model)
    q = _check_configuration(model, q, "q")
    T = _inverse_pose(_joint_poses(model, q))  # T_{i, parent}
    return _motion_transform(T[..., :3, :3], T[..., :3, 3])


def forward_kinematics(model, q):
    r"""Pose of every body in the base frame, :math:`T_{0,i}(q)`.

    .. math:: T_{0,i} = T_{0,\lambda(i)}\,T^0_{\lambda(i),i}\exp([S_i]q_i)

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, 4, 4) ndarray
        ``T_{0,i}`` maps body ``i`` coordinates into base coordinates (m).

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.

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

    .. math:: \mathcal V_i = J_i(q)\,\dot q,\qquad J_i = X_i J_{\lambda(i)} + S_i e_i^T

    Computed by its own propagation in the user's body frames (independent of the
    CRBA code), so that :math:`M = \sum_i J_i^T\mathcal I_i J_i` is a genuine check.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, 6, N) ndarray
        ``J[..., i, :, j]``: twist of body ``i`` (rad/s, m/s; body ``i`` coordinates,
        about its origin) per unit rate of joint ``j``.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.

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

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i,\qquad
              \mathcal V_{\text{base}} = 0

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).
    v : (..., N) array_like
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
    V = general.joint_twists(model, v)
    V = np.array(np.broadcast_to(V, shape + V.shape[-2:]))
    for i, p in enumerate(model.parents):
        if p >= 0:
            V[..., i, :] += np.einsum("...ij,...j->...i", X[..., i, :, :], V[..., p, :])
    return V


def prepare(model, q):
    r"""Freeze a tree at configuration ``q``: a :class:`PreparedTree` with explicit ``X_i(q)``.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m); leading axes give a batch of configurations, kept
        as leading axes of ``transform``.

    Returns
    -------
    PreparedTree
        ``transform = joint_transforms(model, q)``; subspaces and inertias from the model.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is malformed.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.prepare(arm, [0.0, 0.0]).transform.shape  # X_i of both joints
    (2, 6, 6)
    >>> tree.prepare(arm, np.zeros((5, 2))).transform.shape  # five configurations at once
    (5, 2, 6, 6)
    """
    subspaces = tuple(joint.subspace for joint in model.joints)
    return PreparedTree(model.parents, joint_transforms(model, q), subspaces, model.inertias)


# ---------------------------------------------------------------------------
# The textbook composite-rigid-body algorithm on a PreparedTree
# ---------------------------------------------------------------------------


def _check_prepared(prepared):
    if not isinstance(prepared, PreparedTree):
        raise ValueError(
            f"prepared: expected a geomotion.tree.PreparedTree, got {type(prepared).__name__}"
        )
    return prepared


def composite_inertias(prepared):
    r"""Composite inertia of every subtree, with its internal joints locked.

    Initialize :math:`\mathcal I^C_i = \mathcal I_i`, then visit children before parents:

    .. math:: \mathcal I^C_{\lambda(i)} \mathrel{+}= X_i^T\,\mathcal I^C_i\,X_i

    (the energy of the locked child under a parent twist :math:`\mathcal V_p` is
    :math:`\tfrac12 \mathcal V_p^T X_i^T\mathcal I^C_i X_i\mathcal V_p`).

    Parameters
    ----------
    prepared : PreparedTree

    Returns
    -------
    (..., N, 6, 6) ndarray
        ``I^C_i`` about body ``i``'s origin in body ``i``'s axes (kg, kg m, kg m^2 blocks).

    Raises
    ------
    ValueError
        If ``prepared`` is not a PreparedTree.

    Examples
    --------
    The two-link arm at :math:`q = 0`: body 0's composite is the whole arm locked, 3 kg
    with :math:`M_{11}` = 0.9175 kg m^2 about joint 1's z axis; body 1's is link 2 alone,
    :math:`M_{22}` = 0.0675 kg m^2.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> IC = tree.composite_inertias(tree.prepare(arm, [0.0, 0.0]))
    >>> float(IC[0, 5, 5].round(9)), float(IC[0, 2, 2].round(9)), float(IC[1, 2, 2].round(9))
    (3.0, 0.9175, 0.0675)
    """
    _check_prepared(prepared)
    X = prepared.transform
    IC = np.array(np.broadcast_to(prepared.inertia, X.shape))
    for i in reversed(range(prepared.num_bodies)):
        p = prepared.parents[i]
        if p >= 0:
            Xi = X[..., i, :, :]
            IC[..., p, :, :] += np.swapaxes(Xi, -1, -2) @ IC[..., i, :, :] @ Xi
    return IC


def joint_mass_matrix(prepared):
    r"""Joint-space mass matrix by the composite-rigid-body algorithm (explicit 6x6 operators).

    For each body ``i``: :math:`F = \mathcal I^C_i S_i`, :math:`M_{ii} = S_i^T F`; then walk to
    the base, carrying the force column into each ancestor's coordinates and projecting:

    .. math:: F \leftarrow X_j^T F,\quad j \leftarrow \lambda(j),\quad M_{ij} = M_{ji} = S_j^T F .

    Bodies on different branches have :math:`M_{ij} = 0`.  Kinetic energy is
    :math:`K = \tfrac12\dot q^T M\dot q`.

    Parameters
    ----------
    prepared : PreparedTree

    Returns
    -------
    (..., N, N) ndarray
        Symmetric ``M`` (kg m^2 between revolute joints, kg between prismatic ones,
        kg m mixed).

    Raises
    ------
    ValueError
        If ``prepared`` is not a PreparedTree.

    Examples
    --------
    The two-link arm with the elbow bent 90 degrees, the same as :func:`~geomotion.tree.crba`:

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> M = tree.joint_mass_matrix(tree.prepare(arm, [0.0, np.radians(90)]))
    >>> M.round(6)
    array([[0.6175, 0.0675],
           [0.0675, 0.0675]])
    >>> bool(np.allclose(M, tree.crba(arm, [0.0, np.radians(90)])))
    True
    """
    IC = composite_inertias(prepared)
    X, S, parents = prepared.transform, prepared.subspace, prepared.parents
    sizes = [s.shape[1] for s in S]
    start = np.concatenate([[0], np.cumsum(sizes)])
    block = [slice(start[i], start[i + 1]) for i in range(len(S))]
    M = np.zeros(X.shape[:-3] + (start[-1], start[-1]))
    for i in range(prepared.num_bodies):
        F = IC[..., i, :, :] @ S[i]  # the force columns of joint i's unit motions
        M[..., block[i], block[i]] = S[i].T @ F
        j = i
        while parents[j] >= 0:
            F = np.swapaxes(X[..., j, :, :], -1, -2) @ F  # X_j^T F
            j = parents[j]
            M[..., block[j], block[i]] = S[j].T @ F
            M[..., block[i], block[j]] = np.swapaxes(M[..., block[j], block[i]], -1, -2)
    return M


def kinetic_energy(model, q, v):
    r"""Kinetic energy of the tree, summed over bodies, in J.

    .. math:: K = \sum_i \tfrac12\mathcal V_i^T\mathcal I_i\mathcal V_i = \tfrac12\dot q^T M(q)\dot q

    Parameters
    ----------
    model : Tree
    q, v : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).

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
    q : (..., N) array_like
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

    .. math:: \mathcal P_0 = \sum_i \mathrm{Ad}_{T_{0,i}}^{-T}\,\mathcal I_i\mathcal V_i

    Moment-first: angular momentum about the base origin (kg m^2/s), then linear
    momentum (kg m/s).

    Parameters
    ----------
    model : Tree
    q, v : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).

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
