"""Example mechanisms used throughout the book, its tests and its figures.

Every parameter here is an illustrative teaching value, not a measurement of a
particular golfer: the models exist to exercise and explain the algorithms.
"""

import numpy as np

from . import _validate, inertia, spatial, tree

__all__ = [
    "REVOLUTE_Z",
    "two_link_teaching_arm",
    "humanoid_upper_body",
    "random_tree",
    "random_rotation",
]

#: Joint screw of a revolute joint about the body's own z axis through its origin.
REVOLUTE_Z = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

#: Link length of the two-link arm's first link (m): joint 2 sits at (L1, 0, 0) in link 1.
TWO_LINK_L1 = 0.6


def two_link_teaching_arm():
    r"""The chapter's two-link teaching mechanism as a :class:`geomotion.tree.Tree`.

    Link 1: :math:`m_1 = 2` kg, :math:`c_1 = (0.3, 0, 0)` m,
    :math:`I_{C1} = \operatorname{diag}(0.05, 0.05, 0.01)` kg m^2.
    Link 2: :math:`m_2 = 1` kg, :math:`c_2 = (0.25, 0, 0)` m,
    :math:`I_{C2} = \operatorname{diag}(0.02, 0.02, 0.005)` kg m^2.
    Both joints rotate about their local z axes; joint 2 lies :math:`L_1 = 0.6` m
    along link 1's x axis, so :math:`T_{12}(q_2) = (R_z(q_2), (0.6, 0, 0))`.

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
        subspaces=np.array([REVOLUTE_Z, REVOLUTE_Z]),
        placements=np.array(placements),
        inertias=np.array(inertias),
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
    upper_arm, forearm, hand = _segment(2.0, 0.045, 0.28), _segment(1.2, 0.035, 0.27), _segment(0.45, 0.03, 0.18)
    shoulder_axis = np.array([0.0, np.cos(np.radians(20)), np.sin(np.radians(20))])
    wrist_axis = np.array([np.sin(np.radians(30)), np.cos(np.radians(30)), 0.0])
    placements, subspaces = [], []
    for side in (+1, -1):  # left (+y), then right (-y)
        placements += [
            spatial.pose(spatial.rot_x(side * 0.2), [0.0, side * 0.19, 0.48]),
            spatial.pose(spatial.rot_z(side * 0.3), [0.0, 0.0, -0.28]),
            spatial.pose(np.eye(3), [0.0, 0.0, -0.27]),
        ]
        subspaces += [_revolute(shoulder_axis * [1, side, 1]), _revolute(np.array([0.0, 1.0, 0.0])),
                      _revolute(wrist_axis)]
    return tree.Tree(
        parents=(-1, 0, 1, 2, 0, 4, 5),
        subspaces=np.array([REVOLUTE_Z] + subspaces),
        placements=np.array([np.eye(4)] + placements),
        inertias=np.array([torso] + [upper_arm, forearm, hand] * 2),
    )


def random_tree(rng, n_bodies, branching=0.4, prismatic_fraction=0.25, helical_fraction=0.0):
    """A random branched tree with rotated, offset, non-parallel joints.

    Built depth-first (each subtree contiguous after its root), so peer engines that
    assume that order accept it unchanged.  Joint axes, axis offsets, placements and
    realizable inertias are all random: no zero offsets, no identical axes.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (seed it for reproducible models).
    n_bodies : int
        Number of bodies, at least 1.
    branching : float
        Probability in [0, 1] that a body starts a new branch from an earlier body
        instead of extending the chain.
    prismatic_fraction, helical_fraction : float
        Probabilities of prismatic and helical joints; the rest are revolute.

    Returns
    -------
    Tree
    """
    if not isinstance(n_bodies, (int, np.integer)) or n_bodies < 1:
        raise ValueError(f"n_bodies: expected a positive integer, got {n_bodies!r}")
    for name, value in (("branching", branching), ("prismatic_fraction", prismatic_fraction),
                        ("helical_fraction", helical_fraction)):
        if not 0.0 <= float(_validate.real_array(value, name)) <= 1.0:
            raise ValueError(f"{name}: expected a probability in [0, 1], got {value!r}")
    if prismatic_fraction + helical_fraction > 1.0:
        raise ValueError("prismatic_fraction + helical_fraction: expected at most 1, "
                         f"got {prismatic_fraction + helical_fraction}")
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
        placements.append(spatial.pose(random_rotation(rng), rng.uniform(-0.4, 0.4, size=3)))
        mass = rng.uniform(0.5, 3.0)
        second_moments = rng.uniform(0.002, 0.02, size=3) * mass
        U = random_rotation(rng)
        I_C = U @ np.diag(second_moments.sum() - second_moments) @ U.T
        inertias.append(inertia.spatial_inertia(mass, rng.uniform(-0.2, 0.2, size=3), 0.5 * (I_C + I_C.T)))
    return tree.Tree(
        parents=tuple(parents),
        subspaces=np.array(subspaces),
        placements=np.array(placements),
        inertias=np.array(inertias),
    )


def _revolute(axis):
    """Joint screw of a revolute joint about ``axis`` through the body origin."""
    return np.concatenate([axis, [0.0, 0.0, 0.0]])


def _unit(v):
    return v / np.linalg.norm(v)


def random_rotation(rng):
    """A uniformly distributed random rotation, from a normalized Gaussian quaternion.

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    (3, 3) ndarray
        A proper rotation matrix.
    """
    w, x, y, z = _unit(rng.normal(size=4))
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )
