"""Example mechanisms used throughout the book, its tests and its figures.

Every parameter here is an illustrative teaching value, not a measurement of a
particular golfer: the models exist to exercise and explain the algorithms.

``REVOLUTE_Z`` is :data:`geomotion.tree.REVOLUTE_Z`, the read-only joint screw
(0, 0, 1, 0, 0, 0) of a revolute joint about a body's own z axis; :mod:`geomotion.tree`
documents it with the other joint screws.  ``PLANE_GRAVITY`` = (0, -9.81, 0) m/s^2 is
the gravity of the planar models, which lie in the x-y plane.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from .. import _validate, constraints, inertia, spatial, tree

__all__ = [
    "REVOLUTE_Z",
    "PLANE_GRAVITY",
    "two_link_teaching_arm",
    "humanoid_upper_body",
    "random_tree",
    "random_rotation",
    "two_coordinate_metric",
    "PlanarClosedChain",
    "planar_closed_chain",
    "two_grounded_links_jacobian",
]

#: Joint screw of a revolute joint about the body's own z axis through its origin
#: (the same read-only array as :data:`geomotion.tree.REVOLUTE_Z`).
REVOLUTE_Z = tree.REVOLUTE_Z

#: Gravity of the planar models, which lie in the x-y plane, along -y, in m/s^2.
PLANE_GRAVITY = (0.0, -9.81, 0.0)

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
        joints=np.array([REVOLUTE_Z, REVOLUTE_Z]),
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
            _revolute(shoulder_axis * [1, side, 1]),
            _revolute(np.array([0.0, 1.0, 0.0])),
            _revolute(wrist_axis),
        ]
    return tree.Tree(
        parents=(-1, 0, 1, 2, 0, 4, 5),
        joints=np.array([REVOLUTE_Z] + subspaces),
        placements=np.array([np.eye(4)] + placements),
        inertias=np.array([torso] + [upper_arm, forearm, hand] * 2),
    )


def random_tree(rng, n_bodies, *, branching=0.4, prismatic_fraction=0.25, helical_fraction=0.0):
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
        inertias.append(
            inertia.spatial_inertia(mass, rng.uniform(-0.2, 0.2, size=3), 0.5 * (I_C + I_C.T))
        )
    return tree.Tree(
        parents=tuple(parents),
        joints=np.array(subspaces),
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


def two_coordinate_metric(q, *, m1=1.0, m2=1.0, length=1.0):
    r"""The chapter's abstract two-coordinate mass metric (an example metric, not a derived arm).

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


# ---------------------------------------------------------------------------
# Planar closed chains (chapter 2): analytic closures and a dynamic model
# ---------------------------------------------------------------------------


def _link_directions(theta):
    """Unit vectors (cos, sin) of links at absolute angles theta (..., K) -> (..., 2, K)."""
    return np.stack([np.cos(theta), np.sin(theta)], axis=-2)


def _closure_jacobian(theta, signed_lengths):
    """Columns s_k l_k (-sin theta_k, cos theta_k) of a planar loop in absolute angles."""
    return signed_lengths * np.stack([-np.sin(theta), np.cos(theta)], axis=-2)


def _positive_triple(value, name):
    array = _validate.positive(value, name)
    if array.shape != (3,):
        raise ValueError(f"{name}: expected 3 values, one per link, got shape {array.shape}")
    return array


@dataclass(frozen=True, eq=False)
class PlanarClosedChain:
    r"""The chapter's movable planar closed chain: a two-link arm and a third link closing a loop.

    A two-link arm is based at the origin, a third link at :math:`(a, b)`; all angles
    :math:`\theta_k` are absolute, measured from the same horizontal x axis (rad), and
    the loop closes where the arm's tip meets the third link's tip:

    .. math:: \Phi(\theta) = \begin{bmatrix}
              \ell_1\cos\theta_1 + \ell_2\cos\theta_2 - \ell_3\cos\theta_3 - a \\
              \ell_1\sin\theta_1 + \ell_2\sin\theta_2 - \ell_3\sin\theta_3 - b
              \end{bmatrix} = 0 .

    Two ways to use it:

    * analytically, in absolute angles: :meth:`residual`, :meth:`jacobian` (columns
      :math:`\ell_1(-\sin\theta_1, \cos\theta_1)`, :math:`\ell_2(-\sin\theta_2, \cos\theta_2)`,
      :math:`\ell_3(\sin\theta_3, -\cos\theta_3)`) and :meth:`acceleration_bias` follow the constraint
      protocol of :mod:`geomotion.constraints`;
    * dynamically: ``model`` is a :class:`geomotion.tree.Tree` of uniform thin rods
      with joint coordinates :math:`q = (\theta_1, \theta_2 - \theta_1, \theta_3)`
      (``joint_coordinates``), and ``loop_closure`` its closure on the two
      in-plane rows.  The chain lies in the x-y plane, so the tree's gravity is
      ``PLANE_GRAVITY`` = (0, -9.81, 0), in that plane (the default (0, 0, -9.81) of a
      tree would act perpendicular to the plane and do no work).

    With rank-2 closure Jacobian, three angles minus two constraints leave one local
    degree of freedom.  Build with :func:`planar_closed_chain`.

    Attributes
    ----------
    lengths : (3,) ndarray
        :math:`(\ell_1, \ell_2, \ell_3)` in m.
    base : (2,) ndarray
        :math:`(a, b)`, the third link's base, m.
    masses : (3,) ndarray
        Link masses in kg (uniform thin rods).
    model : geomotion.tree.Tree
        The links as uniform thin rods along their body x axes, joints about z: body 0 is
        link 1 (joint at the origin), body 1 link 2 (joint at :math:`(\ell_1, 0, 0)` in
        body 0), body 2 link 3 (a second root, joint at :math:`(a, b, 0)`).  Rods are
        ideal: no inertia about their own axis.
    loop_closure : geomotion.constraints.LoopClosure
        The tip of link 2, :math:`(\ell_2, 0, 0)` in body 1, held at the tip of link 3,
        :math:`(\ell_3, 0, 0)` in body 2, on the x and y rows only (the z row is
        identically zero in the plane).  At :math:`q` = :meth:`joint_coordinates` of
        :math:`\theta` its residual equals :meth:`residual` of :math:`\theta`.
    """

    lengths: np.ndarray
    base: np.ndarray
    masses: np.ndarray
    model: tree.Tree = field(init=False, repr=False)
    loop_closure: constraints.LoopClosure = field(init=False, repr=False)

    def __post_init__(self):
        base = _validate.real_array(self.base, "base")
        if base.shape != (2,):
            raise ValueError(
                f"base: expected the point (a, b) of shape (2,) in m, got shape {base.shape}"
            )
        for name, value in (
            ("lengths", _positive_triple(self.lengths, "lengths")),
            ("base", base),
            ("masses", _positive_triple(self.masses, "masses")),
        ):
            value = value.copy()  # a read-only copy: the caller's array stays writable
            value.flags.writeable = False
            object.__setattr__(self, name, value)
        model = self._rod_tree()
        _, l2, l3 = self.lengths
        in_plane = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
        object.__setattr__(self, "model", model)
        object.__setattr__(
            self,
            "loop_closure",
            constraints.loop_closure(
                model, 1, [l2, 0.0, 0.0], 2, [l3, 0.0, 0.0], directions=in_plane
            ),
        )

    @property
    def _signed_lengths(self):
        return self.lengths * np.array([1.0, 1.0, -1.0])

    def residual(self, theta):
        r""":math:`\Phi(\theta)`, (..., 2) in m, for absolute angles theta (..., 3) in rad."""
        theta = _validate.trailing_shape(theta, "theta", (3,))
        return _link_directions(theta) @ self._signed_lengths - self.base

    def jacobian(self, theta):
        r""":math:`\partial\Phi/\partial\theta`, (..., 2, 3) in m/rad."""
        theta = _validate.trailing_shape(theta, "theta", (3,))
        return _closure_jacobian(theta, self._signed_lengths)

    def acceleration_bias(self, theta, omega):
        r""":math:`\dot J\omega`, (..., 2) in m/s^2, for absolute rates omega (..., 3) in rad/s.

        .. math:: \dot J\omega = -\sum_k s_k\ell_k(\cos\theta_k, \sin\theta_k)\,\omega_k^2,
                  \qquad s = (1, 1, -1)
        """
        theta = _validate.trailing_shape(theta, "theta", (3,))
        omega = _validate.trailing_shape(omega, "omega", (3,))
        return -(_link_directions(theta) @ (self._signed_lengths * omega**2)[..., None])[..., 0]

    def joint_coordinates(self, theta):
        r"""Tree joint coordinates :math:`q = (\theta_1, \theta_2 - \theta_1, \theta_3)` in rad."""
        q = _validate.trailing_shape(theta, "theta", (3,)).copy()
        q[..., 1] -= q[..., 0]
        return q

    def absolute_angles(self, q):
        r"""Absolute angles :math:`\theta = (q_1, q_1 + q_2, q_3)` in rad of joint coordinates."""
        theta = _validate.trailing_shape(q, "q", (3,)).copy()
        theta[..., 1] += theta[..., 0]
        return theta

    def _rod_tree(self):
        """The three links as a tree of uniform thin rods (see the class documentation)."""
        inertias = [
            inertia.spatial_inertia(
                m, [length / 2, 0.0, 0.0], inertia.thin_rod_central_inertia(m, length)
            )
            for m, length in zip(self.masses, self.lengths)
        ]
        a, b = self.base
        placements = [
            np.eye(4),
            spatial.pose(np.eye(3), [self.lengths[0], 0.0, 0.0]),
            spatial.pose(np.eye(3), [a, b, 0.0]),
        ]
        return tree.Tree(
            parents=(-1, 0, -1),
            joints=np.array([REVOLUTE_Z] * 3),
            placements=np.array(placements),
            inertias=np.array(inertias),
            allow_singular_inertias=True,
            gravity=PLANE_GRAVITY,
        )

    def closed_configuration(self, theta1, branch=1):
        r"""Absolute angles that close the loop for a given first-link angle, in closed form.

        The elbow is at :math:`P = \ell_1(\cos\theta_1, \sin\theta_1)`; the common tip
        :math:`X` lies at distance :math:`\ell_2` from :math:`P` and :math:`\ell_3` from
        :math:`(a, b)`, an intersection of two circles.  With :math:`d = |(a, b) - P|`,
        :math:`X` sits :math:`x = (d^2 + \ell_2^2 - \ell_3^2)/(2d)` along :math:`(a, b) - P`
        and :math:`\pm\sqrt{\ell_2^2 - x^2}` across it (the two assembly branches).

        Parameters
        ----------
        theta1 : array_like
            First link's absolute angle(s), rad.
        branch : {1, -1}
            Which circle intersection: the tip to the left (1) or right (-1) of the
            direction from the elbow to the third link's base.

        Returns
        -------
        (..., 3) ndarray
            :math:`(\theta_1, \theta_2, \theta_3)` in rad with :math:`\Phi = 0`.

        Raises
        ------
        ValueError
            If ``branch`` is not 1 or -1, or the loop cannot close at some ``theta1``
            (the two circles do not meet).
        """
        if branch not in (1, -1):
            raise ValueError(f"branch: expected 1 or -1, got {branch!r}")
        theta1 = _validate.real_array(theta1, "theta1")
        l1, l2, l3 = self.lengths
        elbow = l1 * np.stack([np.cos(theta1), np.sin(theta1)], axis=-1)
        to_base = self.base - elbow
        d = np.linalg.norm(to_base, axis=-1)
        if np.any(d == 0):
            raise ValueError(
                "theta1: expected the elbow away from the third link's base, got them coincident"
            )
        along = (d**2 + l2**2 - l3**2) / (2 * d)
        across2 = l2**2 - along**2
        if np.any(across2 < 0):
            raise ValueError(
                f"theta1: expected angles at which the loop closes (|l2 - l3| <= d <= l2 + l3 for "
                f"the elbow-to-base distance d), got d from {d.min():.6g} to {d.max():.6g} m"
            )
        u = to_base / d[..., None]
        left = np.stack([-u[..., 1], u[..., 0]], axis=-1)
        tip = elbow + along[..., None] * u + branch * np.sqrt(across2)[..., None] * left
        link2, link3 = tip - elbow, tip - self.base
        theta2 = np.arctan2(link2[..., 1], link2[..., 0])
        theta3 = np.arctan2(link3[..., 1], link3[..., 0])
        return np.stack([theta1, theta2, theta3], axis=-1)

    def aligned_angles(self, branch=1, *, samples=721):
        r"""First-link angles at which links 1 and 2 line up, on one assembly branch.

        There the block of the closure Jacobian formed by the columns of links 1 and 2
        is singular, :math:`\det J_{12} = \ell_1\ell_2\sin(\theta_2 - \theta_1) = 0`
        (the chapter's two-link determinant up to the sign of a column), although the
        full Jacobian keeps rank 2.  The determinant is sampled at ``samples`` angles over
        :math:`[-\pi, \pi]` where the loop closes; each sign change between neighbouring
        samples is refined to a root by Brent's method (``xtol`` 1e-14 rad), and samples
        at which it vanishes exactly are kept.

        Parameters
        ----------
        branch : {1, -1}
            Assembly branch, as in :meth:`closed_configuration`.
        samples : int, optional
            Sampled first-link angles (default 721, a half-degree grid); two roots closer
            than the spacing may be missed.

        Returns
        -------
        (k,) ndarray
            The angles :math:`\theta_1` in rad, increasing.

        Raises
        ------
        ValueError
            If ``branch`` is not 1 or -1, or ``samples`` is below 3.

        Examples
        --------
        >>> from geomotion import models
        >>> models.planar_closed_chain().aligned_angles(1).round(4)
        array([-2.1446,  0.5153])
        """
        if branch not in (1, -1):
            raise ValueError(f"branch: expected 1 or -1, got {branch!r}")
        samples = _validate.count(samples, "samples", minimum=3, whole_floats=False)
        grid = np.linspace(-np.pi, np.pi, samples)
        determinant = np.array([self._link12_determinant(t, branch) for t in grid])
        sign = np.sign(determinant)
        roots = [
            optimize.brentq(self._link12_determinant, grid[k], grid[k + 1], (branch,), xtol=1e-14)
            for k in np.flatnonzero(sign[:-1] * sign[1:] < 0)
        ]
        return np.array(sorted(roots + list(grid[determinant == 0.0])))

    def _link12_determinant(self, theta1, branch):
        """det J_12 at the closed configuration with first-link angle theta1 (m^2); NaN if
        the loop cannot close there."""
        try:
            closed = self.closed_configuration(theta1, branch)
        except ValueError:
            return np.nan
        return float(np.linalg.det(self.jacobian(closed)[:, :2]))


def planar_closed_chain(*, lengths=(0.3, 0.8, 0.6), base=(0.7, 0.0), masses=(0.6, 1.6, 1.2)):
    r"""The chapter's movable planar closed chain, with teaching defaults.

    The defaults make a crank-rocker four-bar: ground :math:`|(a, b)| = 0.7` m, links
    0.3, 0.8, 0.6 m (Grashof: :math:`0.3 + 0.8 \le 0.6 + 0.7`, and the shortest link turns
    about the origin), so the first link turns fully round and the closure Jacobian never
    loses rank: a singular configuration would need all three links parallel to
    :math:`(a, b)`, i.e. :math:`\pm0.3 \pm 0.8 \pm 0.6 = \pm0.7`, which no choice of signs
    gives.  The masses are those of 2 kg/m rods.

    Parameters
    ----------
    lengths : (3,) array_like, optional, keyword only
        :math:`(\ell_1, \ell_2, \ell_3)`, m, positive; default (0.3, 0.8, 0.6).
    base : (2,) array_like, optional, keyword only
        :math:`(a, b)`, m; default (0.7, 0).
    masses : (3,) array_like, optional, keyword only
        Link masses, kg, positive; default (0.6, 1.6, 1.2).

    Returns
    -------
    PlanarClosedChain

    Raises
    ------
    ValueError
        If a length or mass is not positive and finite or a shape is wrong.
    """
    return PlanarClosedChain(lengths, base, masses)


def two_grounded_links_jacobian(theta, lengths):
    r"""Closure Jacobian of two links grounded at their own bases and meeting at their tips.

    With :math:`\Phi = \ell_1(\cos\theta_1, \sin\theta_1) - \ell_2(\cos\theta_2, \sin\theta_2)
    - (a, b)` (absolute angles), the columns are :math:`\ell_1(-\sin\theta_1, \cos\theta_1)`
    and :math:`\ell_2(\sin\theta_2, -\cos\theta_2)`, and

    .. math:: \det J = \ell_1\ell_2\sin(\theta_1 - \theta_2),

    zero when the links align.  Two angles minus two regular constraints leave no
    motion: the configurations are isolated.  The base offset does not enter.

    Parameters
    ----------
    theta : (..., 2) array_like
        Absolute link angles, rad.
    lengths : (2,) array_like
        :math:`(\ell_1, \ell_2)`, m, positive.

    Returns
    -------
    (..., 2, 2) ndarray
        m/rad.

    Raises
    ------
    ValueError
        If ``theta`` is not a finite (..., 2) array or ``lengths`` not two positive values.
    """
    theta = _validate.trailing_shape(theta, "theta", (2,))
    lengths = _validate.positive(lengths, "lengths")
    if lengths.shape != (2,):
        raise ValueError(f"lengths: expected 2 values, got shape {lengths.shape}")
    return _closure_jacobian(theta, lengths * np.array([1.0, -1.0]))


from . import body_segments, downswing, golf_data  # noqa: E402, F401  (public submodules, after the names)
from .downswing import (  # noqa: E402
    Downswing,
    GripLoads,
    SwingTorques,
    activation_ramp,
    grip_loads,
    simulate_downswing,
)
from .driven_swing import (  # noqa: E402
    DrivenSwing,
    drive_golfer,
    ground_wrench,
)
from .golfer import (  # noqa: E402
    CLUB_HEAD,
    GOLFER_LENGTHS,
    BodyFrame,
    Golfer,
    golfer,
)
from .legs import LegsAndPelvis, legs_and_pelvis  # noqa: E402
from .swing import (  # noqa: E402
    Club,
    SwingPlaneGolfer,
    driver,
    swing_plane_golfer,
    swing_population,
)

__all__ += [
    "GOLFER_LENGTHS",
    "CLUB_HEAD",
    "BodyFrame",
    "LegsAndPelvis",
    "legs_and_pelvis",
    "Golfer",
    "golfer",
    "Club",
    "driver",
    "SwingPlaneGolfer",
    "swing_plane_golfer",
    "SwingTorques",
    "activation_ramp",
    "Downswing",
    "simulate_downswing",
    "GripLoads",
    "grip_loads",
    "swing_population",
    "DrivenSwing",
    "drive_golfer",
    "ground_wrench",
]
