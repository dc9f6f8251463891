r"""The prepared tree and the composite-rigid-body algorithm on explicit 6x6 operators.

A :class:`PreparedTree` is a tree frozen at one configuration: parent indices, the
joints' 6x6 motion transforms :math:`X_i`, motion subspaces and body inertias.
:func:`composite_inertias` and :func:`joint_mass_matrix` are the textbook CRBA on it,
the form the book's first chapter teaches; :func:`crba` runs them on a :class:`Tree`.
"""

from dataclasses import dataclass

import numpy as np

from ... import _validate
from .._model import (
    _STRUCTURE_RTOL,
    _check_motion_transforms,
    _check_parents,
    _check_subspaces,
    _readonly,
)
from ._kinematics import joint_transforms


@dataclass(frozen=True, eq=False)
class PreparedTree:
    r"""A tree frozen at one configuration: explicit 6x6 joint transforms.

    Equations of the book: :eq:`eq-velocity-recursion` and :eq:`conv-tree-velocity`.

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


def prepare(model, q):
    r"""Freeze a tree at configuration ``q``: a :class:`PreparedTree` with explicit ``X_i(q)``.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
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


def _check_prepared(prepared):
    if not isinstance(prepared, PreparedTree):
        raise ValueError(
            f"prepared: expected a geomotion.tree.PreparedTree, got {type(prepared).__name__}"
        )
    return prepared


def composite_inertias(prepared):
    r"""Composite inertia of every subtree, with its internal joints locked.

    Equations of the book: :eq:`eq-composite-accumulation` and :eq:`conv-composite-inertia`.

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

    Equations of the book: :eq:`eq-composite-accumulation`, :eq:`eq-mass-matrix-jacobians`
    and :eq:`conv-joint-space`.

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
    (..., nv, nv) ndarray
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


def crba(model, q):
    r"""Joint-space mass matrix :math:`M(q)` by the readable CRBA.

    Equations of the book: :eq:`eq-composite-accumulation`, :eq:`eq-mass-matrix-jacobians`
    and :eq:`conv-joint-space`.

    ``joint_mass_matrix(prepare(model, q))``: the oracle of :func:`geomotion.tree.crba`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad, m, unit quaternions).

    Returns
    -------
    (..., nv, nv) ndarray
        Symmetric positive (semi)definite ``M`` (kg m^2, kg m or kg by joint types).

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., nq) configuration.
    """
    return joint_mass_matrix(prepare(model, q))
