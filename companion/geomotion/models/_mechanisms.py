r"""The chapters' example mechanisms, open chains and trees, and random trees for the tests.

* :func:`two_link_teaching_arm`: chapter 1's two-link arm in the vertical x-y plane;
* :func:`humanoid_upper_body`: a torso with two arms and hands, a branched tree;
* :func:`random_tree` and :func:`random_rotation`: random models for tests and benchmarks;
* :func:`two_coordinate_metric`: the chapter's abstract two-coordinate mass metric.

Every parameter is an illustrative teaching value, not a measurement.
"""

import numpy as np

from .. import _validate, inertia, spatial, tree
from ._shared import PLANE_GRAVITY, revolute

__all__ = [
    "TWO_LINK_L1",
    "two_link_teaching_arm",
    "HUMANOID_BODIES",
    "humanoid_upper_body",
    "random_tree",
    "random_rotation",
    "two_coordinate_metric",
]

#: Link length of the two-link arm's first link (m): joint 2 sits at (L1, 0, 0) in link 1.
TWO_LINK_L1 = 0.6


def two_link_teaching_arm():
    r"""The chapter's two-link teaching mechanism as a :class:`geomotion.tree.Tree`.

    Equations of the book: :eq:`eq-link-one-inertia` and :eq:`eq-two-link-mass-matrix`.

    Link 1: :math:`m_1 = 2` kg, :math:`c_1 = (0.3, 0, 0)` m,
    :math:`I_{C1} = \operatorname{diag}(0.05, 0.05, 0.01)` kg m^2.
    Link 2: :math:`m_2 = 1` kg, :math:`c_2 = (0.25, 0, 0)` m,
    :math:`I_{C2} = \operatorname{diag}(0.02, 0.02, 0.005)` kg m^2.
    Both joints rotate about their local z axes; joint 2 lies :math:`L_1 = 0.6` m
    along link 1's x axis, so :math:`T_{12}(q_2) = (R_z(q_2), (0.6, 0, 0))`.

    The arm hangs in the vertical x-y plane: its gravity is ``PLANE_GRAVITY`` =
    (0, -9.81, 0) m/s^2.

    Returns
    -------
    Tree
        Two bodies, base-fixed, planar in x-y.
    """
    inertias = [
        inertia.spatial_inertia(2.0, [0.3, 0.0, 0.0], np.diag([0.05, 0.05, 0.01])),
        inertia.spatial_inertia(1.0, [0.25, 0.0, 0.0], np.diag([0.02, 0.02, 0.005])),
    ]
    placements = [np.eye(4), spatial.pose(np.eye(3), [TWO_LINK_L1, 0.0, 0.0])]
    return tree.Tree(
        parents=(-1, 0),
        joints=np.array([tree.REVOLUTE_Z, tree.REVOLUTE_Z]),
        placements=np.array(placements),
        inertias=np.array(inertias),
        gravity=PLANE_GRAVITY,
    )


#: Body names of :func:`humanoid_upper_body`, in tree order (parents before children).
HUMANOID_BODIES = (
    "torso",
    "left upper arm",
    "left forearm",
    "left hand",
    "right upper arm",
    "right forearm",
    "right hand",
)


def _segment(mass, radius, length):
    """Spatial inertia of a cylinder segment hanging along -z from its proximal joint."""
    I_C = inertia.solid_cylinder_central_inertia(mass, radius, length, axis=2)
    return inertia.spatial_inertia(mass, [0.0, 0.0, -length / 2], I_C)


def humanoid_upper_body():
    r"""A torso with two arms and hands: a branched tree assembled from cylinders.

    Equation of the book: :eq:`eq-cylinder-inertia`.

    Bodies (see ``HUMANOID_BODIES``): the torso turns about the vertical z axis at
    the pelvis; each shoulder flexes about an axis tilted 20 degrees out of the
    frontal plane; elbows flex about their local y axis; wrists hinge about a
    local axis tilted between y and x.  Segments are uniform cylinders hanging
    along their local -z axis (illustrative masses in kg and lengths in m of an
    adult, not subject-specific values).

    Returns
    -------
    Tree
        Seven bodies with parents ``(-1, 0, 1, 2, 0, 4, 5)``.
    """
    torso = inertia.spatial_inertia(
        30.0, [0.0, 0.0, 0.25], inertia.solid_box_central_inertia(30.0, [0.22, 0.36, 0.55])
    )
    upper_arm, forearm, hand = (
        _segment(2.0, 0.045, 0.28),
        _segment(1.2, 0.035, 0.27),
        _segment(0.45, 0.03, 0.18),
    )
    shoulder_axis = np.array([0.0, np.cos(np.radians(20)), np.sin(np.radians(20))])
    wrist_axis = np.array([np.sin(np.radians(30)), np.cos(np.radians(30)), 0.0])
    placements, subspaces = [], []
    for side in (+1, -1):  # left (+y), then right (-y)
        placements += [
            spatial.pose(spatial.rot_x(side * 0.2), [0.0, side * 0.19, 0.48]),
            spatial.pose(spatial.rot_z(side * 0.3), [0.0, 0.0, -0.28]),
            spatial.pose(np.eye(3), [0.0, 0.0, -0.27]),
        ]
        subspaces += [
            revolute(shoulder_axis * [1, side, 1]),
            revolute(np.array([0.0, 1.0, 0.0])),
            revolute(wrist_axis),
        ]
    return tree.Tree(
        parents=(-1, 0, 1, 2, 0, 4, 5),
        joints=np.array([tree.REVOLUTE_Z] + subspaces),
        placements=np.array([np.eye(4)] + placements),
        inertias=np.array([torso] + [upper_arm, forearm, hand] * 2),
    )


def random_tree(
    n_bodies, *, rng=None, branching=0.4, prismatic_fraction=0.25, helical_fraction=0.0
):
    """A random branched tree with rotated, offset, non-parallel joints.

    Built depth-first (each subtree contiguous after its root), so peer engines that
    assume that order accept it unchanged.  Joint axes, axis offsets, placements and
    realizable inertias are all random: no zero offsets, no identical axes.

    Parameters
    ----------
    n_bodies : int
        Number of bodies, at least 1.
    rng : None, int or numpy.random.Generator, optional, keyword only
        Source of randomness: anything :func:`numpy.random.default_rng` takes (a
        Generator is used and advanced; seed it for reproducible models); default None.
    branching : float, optional, keyword only
        Probability in [0, 1] that a body starts a new branch from an earlier body
        instead of extending the chain; default 0.4.
    prismatic_fraction, helical_fraction : float, optional, keyword only
        Probabilities of prismatic and helical joints (defaults 0.25 and 0); the rest
        are revolute.

    Returns
    -------
    Tree
    """
    if not isinstance(n_bodies, (int, np.integer)) or n_bodies < 1:
        raise ValueError(f"n_bodies: expected a positive integer, got {n_bodies!r}")
    for name, value in (
        ("branching", branching),
        ("prismatic_fraction", prismatic_fraction),
        ("helical_fraction", helical_fraction),
    ):
        if not 0.0 <= float(_validate.real_array(value, name)) <= 1.0:
            raise ValueError(f"{name}: expected a probability in [0, 1], got {value!r}")
    if prismatic_fraction + helical_fraction > 1.0:
        raise ValueError(
            "prismatic_fraction + helical_fraction: expected at most 1, "
            f"got {prismatic_fraction + helical_fraction}"
        )
    rng = np.random.default_rng(rng)
    parents, subspaces, placements, inertias = [], [], [], []
    for i in range(n_bodies):
        # Depth-first: the parent is the previous body or one of its ancestors, so
        # the subtrees already closed stay contiguous.
        parent = i - 1
        if i > 0 and rng.random() < branching:
            ancestors = [parent]
            while parents[ancestors[-1]] >= 0:
                ancestors.append(parents[ancestors[-1]])
            parent = ancestors[rng.integers(len(ancestors))]
        parents.append(parent)
        axis = _unit(rng.normal(size=3))
        kind = rng.random()
        if kind < prismatic_fraction:
            subspaces.append(np.concatenate([[0.0, 0.0, 0.0], axis]))
        else:
            point = rng.uniform(-0.1, 0.1, size=3)  # the axis misses the body origin
            pitch = rng.uniform(0.02, 0.1) if kind < prismatic_fraction + helical_fraction else 0.0
            subspaces.append(np.concatenate([axis, np.cross(point, axis) + pitch * axis]))
        placements.append(spatial.pose(random_rotation(rng=rng), rng.uniform(-0.4, 0.4, size=3)))
        mass = rng.uniform(0.5, 3.0)
        second_moments = rng.uniform(0.002, 0.02, size=3) * mass
        U = random_rotation(rng=rng)
        I_C = U @ np.diag(second_moments.sum() - second_moments) @ U.T
        inertias.append(
            inertia.spatial_inertia(mass, rng.uniform(-0.2, 0.2, size=3), 0.5 * (I_C + I_C.T))
        )
    return tree.Tree(
        parents=tuple(parents),
        joints=np.array(subspaces),
        placements=np.array(placements),
        inertias=np.array(inertias),
    )


def _unit(v):
    """``v`` divided by its length."""
    return v / np.linalg.norm(v)


def random_rotation(*, rng=None):
    """A uniformly distributed random rotation, from a normalized Gaussian quaternion.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator, optional, keyword only
        Source of randomness: anything :func:`numpy.random.default_rng` takes (a
        Generator is used and advanced); default None.

    Returns
    -------
    (3, 3) ndarray
        A proper rotation matrix.
    """
    rng = np.random.default_rng(rng)
    w, x, y, z = _unit(rng.normal(size=4))
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def two_coordinate_metric(q, *, m1=1.0, m2=1.0, length=1.0):
    r"""The chapter's abstract two-coordinate mass metric (an example metric, not a derived arm).

    Equation of the book: :eq:`eq-ch2-two-coordinate-metric`.

    .. math:: M(q) = \ell^2\begin{bmatrix} m_1 + m_2 & m_2\cos q_2 \\
                                           m_2\cos q_2 & m_2 \end{bmatrix},\qquad
              \det M = \ell^4\,(m_1m_2 + m_2^2\sin^2q_2) > 0 .

    It only illustrates Christoffel symbols and the energy identity: the length scale
    :math:`\ell` gives the entries the units of a moment of inertia, but no
    anthropometric two-link arm is behind the numbers (for the chapter's two-link
    mechanism see :func:`two_link_teaching_arm`).  The metric depends on :math:`q_2`
    only.

    Parameters
    ----------
    q : (..., 2) array_like
        Coordinates (rad).
    m1, m2 : float or array_like, optional, keyword only
        Positive masses in kg, default 1; arrays broadcast against the leading axes of
        ``q``.
    length : float or array_like, optional, keyword only
        Positive length scale :math:`\ell` in m, default 1.

    Returns
    -------
    (..., 2, 2) ndarray
        Symmetric positive definite :math:`M` in kg m^2.

    Raises
    ------
    ValueError
        If ``q`` is not a finite (..., 2) array or a parameter is not positive and finite.
    """
    q = _validate.trailing_shape(q, "q", (2,))
    m1, m2 = _validate.positive(m1, "m1"), _validate.positive(m2, "m2")
    scale = _validate.positive(length, "length") ** 2
    coupling = m2 * np.cos(q[..., 1])
    M = np.empty(np.broadcast_shapes(coupling.shape, m1.shape, scale.shape) + (2, 2))
    M[..., 0, 0] = (m1 + m2) * scale
    M[..., 0, 1] = M[..., 1, 0] = coupling * scale
    M[..., 1, 1] = m2 * scale
    return M
