r"""Planar closed chains (chapter 2): analytic closures and a dynamic model.

* :class:`PlanarClosedChain`, built by :func:`planar_closed_chain`: a two-link arm and a
  third link closing a loop, analytic in absolute angles and as a tree with a loop closure;
* :func:`two_grounded_links_jacobian`: the closure Jacobian of two grounded links meeting
  at their tips, whose configurations are isolated.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from .. import _validate, constraints, inertia, spatial, tree
from ._shared import PLANE_GRAVITY, frozen

__all__ = ["PlanarClosedChain", "planar_closed_chain", "two_grounded_links_jacobian"]


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

    Equation of the book: :eq:`eq-ch2-closed-chain`.

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
            object.__setattr__(self, name, frozen(value))  # the caller's array stays writable
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
            joints=np.array([tree.REVOLUTE_Z] * 3),
            placements=np.array(placements),
            inertias=np.array(inertias),
            allow_singular_inertias=True,
            gravity=PLANE_GRAVITY,
        )

    def closed_configuration(self, theta1, *, branch=1):
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

    def aligned_angles(self, *, branch=1, samples=721):
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
        >>> models.planar_closed_chain().aligned_angles(branch=1).round(4)
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
            closed = self.closed_configuration(theta1, branch=branch)
        except ValueError:
            return np.nan
        return float(np.linalg.det(self.jacobian(closed)[:, :2]))


def planar_closed_chain(*, lengths=(0.3, 0.8, 0.6), base=(0.7, 0.0), masses=(0.6, 1.6, 1.2)):
    r"""The chapter's movable planar closed chain, with teaching defaults.

    Equation of the book: :eq:`eq-ch2-closed-chain`.

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

    Equation of the book: :eq:`eq-ch2-two-link-determinant`.

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
