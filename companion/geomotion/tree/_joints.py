r"""Joint models: how a joint's coordinates place its body, and which twists the joint allows.

A joint between body :math:`i` and its parent has :math:`n_{q,i}` configuration coordinates
and :math:`n_{v,i}` velocity coordinates.  Every joint model here has

* a constant **motion subspace** :math:`S_i` (6 x :math:`n_{v,i}`, angular-first, in body
  :math:`i`'s own coordinates): the joint's twist of body :math:`i` relative to its parent
  is :math:`S_i v_i`;
* a **joint motion** :math:`T_J(q_i)`, the pose of body :math:`i` in the joint frame (the
  frame the placement :math:`T^0_{\lambda(i),i}` puts on the parent), so that
  :math:`T_{\lambda(i),i}(q) = T^0_{\lambda(i),i}\,T_J(q_i)`;
* an **integration rule** :math:`q_i \oplus \delta v_i`, the configuration reached by
  following the joint velocity :math:`\delta v_i` for unit time, with its inverse
  :math:`q_1 \ominus q_0`.

=================  ====  ====  =================================  ===============================
joint              nq    nv    q                                  v
=================  ====  ====  =================================  ===============================
screw (revolute,   1     1     angle (rad) or length (m)          its rate (:math:`v = \dot q`)
prismatic,
helical)
spherical (ball)   4     3     unit quaternion (w, x, y, z)       angular velocity, child axes
free flyer         7     6     origin (m, parent axes) then unit  twist (omega, v) of the child
                               quaternion (w, x, y, z)            about its origin, child axes
=================  ====  ====  =================================  ===============================

Because each :math:`S_i` is constant in the child's own coordinates, the joint adds no
apparent acceleration of its own (Featherstone's :math:`c_J = \dot S_i v_i` is zero), and
every recursive algorithm only needs :math:`S_i`, :math:`T_J(q_i)` and, for the velocity
product, :math:`\mathcal V_i\times S_i v_i` (Featherstone, *Rigid Body Dynamics Algorithms*,
2008, sections 4.4 and 4.5).  With a ball or free-flyer joint :math:`v_i \ne \dot q_i`: a
quaternion has four coordinates but three rotational freedoms, so configurations advance
with :meth:`~geomotion.tree.Joint.integrate`, never with :math:`q + v\,dt`.

Quaternions are stored scalar-first, as in :mod:`geomotion.dualquat` (Pinocchio and
scipy store them scalar-last); they must be unit to within ``QUATERNION_ATOL`` wherever a
configuration enters an algorithm, and :meth:`~geomotion.tree.Joint.integrate` returns them normalized,
so a trajectory built from it does not drift off the unit sphere.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._kernels import _cross, _inverse_pose, _pose, _qconj, _qmul, _quaternion_to_rotation
from ..spatial import exp_twist, log_pose

#: Largest | |quaternion| - 1 | accepted in a configuration.
QUATERNION_ATOL = 1e-9


def _quaternion_of_rotation_vector(omega):
    r"""Unit quaternion of :math:`\exp([\omega])`.

    :math:`(\cos\tfrac\theta2,\ \tfrac12\,\mathrm{sinc}\tfrac\theta2\,\omega)`, no cancellation.
    """
    theta = np.linalg.norm(omega, axis=-1)
    half = 0.5 * theta
    safe = np.where(half > 0, half, 1.0)
    half_sinc = np.where(half > 0, np.sin(safe) / safe, 1.0)
    return np.concatenate([np.cos(half)[..., None], 0.5 * half_sinc[..., None] * omega], axis=-1)


def _rotation_vector_of_quaternion(quaternion):
    r"""Rotation vector :math:`\omega`, :math:`|\omega| \le \pi`, of a unit quaternion (either sign)."""
    q = np.where(quaternion[..., :1] < 0, -quaternion, quaternion)
    s = np.linalg.norm(q[..., 1:], axis=-1)
    theta = 2.0 * np.arctan2(s, q[..., 0])
    # theta / s -> 2 / w as s -> 0: both factors keep full relative precision.
    scale = np.where(s > 0, theta / np.where(s > 0, s, 1.0), 2.0 / q[..., 0])
    return scale[..., None] * q[..., 1:]


def _unit_quaternions(q, name, what="a ball or free-flyer joint", *, joints=None):
    """ValueError naming ``name`` unless every quaternion (last axis of ``q``) is unit.

    With ``joints`` (the joint index of each quaternion along the second-to-last axis of
    ``q``), the message names the joint; the remaining leading axes are the batch.
    """
    norm = np.sqrt(np.einsum("...i,...i->...", q, q))
    bad = np.abs(norm - 1.0) > QUATERNION_ATOL
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        value = norm[index]
        if joints is not None:
            what = f"joint {joints[index[-1]]}"
            index = index[:-1]
        where = f" at batch index {index}" if index else ""
        raise ValueError(
            f"{name}: expected a unit quaternion (w, x, y, z) for {what} (| |q| - 1 | <= "
            f"{QUATERNION_ATOL:g}), got norm {value:.12g}{where}; "
            f"normalize it (geomotion.tree.normalize) or advance configurations with "
            f"geomotion.tree.integrate, which keeps quaternions unit"
        )


def _random_quaternions(rng, shape):
    """Rotations uniform on SO(3): normalized Gaussian 4-vectors, with w >= 0."""
    g = rng.standard_normal(tuple(shape) + (4,))
    g /= np.linalg.norm(g, axis=-1, keepdims=True)
    return np.where(g[..., :1] < 0, -g, g)


@dataclass(frozen=True, eq=False)
class Joint:
    r"""Base class of the joint models: sizes, motion subspace, joint motion and integration.

    Use a subclass: :class:`~geomotion.tree.ScrewJoint` (a 6-vector screw given to :class:`~geomotion.tree.Tree` is
    wrapped in one), :class:`~geomotion.tree.SphericalJoint` or :class:`~geomotion.tree.FreeFlyerJoint`.

    Attributes
    ----------
    kind : str
        ``"revolute"``, ``"prismatic"``, ``"helical"``, ``"spherical"`` or ``"free_flyer"``.
    nq, nv : int
        Numbers of configuration and velocity coordinates.
    subspace : (6, nv) ndarray
        Motion subspace :math:`S`, angular-first, child coordinates (read-only).
    """

    def transform(self, q):
        r"""Joint motion :math:`T_J(q)`: the child's pose in the joint frame.

        Parameters
        ----------
        q : (..., nq) ndarray
            Joint coordinates (validated by the caller).

        Returns
        -------
        (..., 4, 4) ndarray
            Rigid pose, translation in m.
        """
        raise NotImplementedError  # pragma: no cover - every subclass defines it

    def neutral(self):
        """The reference configuration (zero angle, identity rotation, zero offset).

        Returns
        -------
        (nq,) ndarray
        """
        raise NotImplementedError  # pragma: no cover

    def integrate(self, q, dv):
        r"""Configuration :math:`q \oplus \delta v` reached by following ``dv`` for unit time.

        Parameters
        ----------
        q : (..., nq) ndarray
        dv : (..., nv) ndarray
            Velocity times a time step (rad, m).

        Returns
        -------
        (..., nq) ndarray
            Quaternions normalized.
        """
        raise NotImplementedError  # pragma: no cover

    def difference(self, q0, q1):
        r"""The displacement :math:`q_1 \ominus q_0`: ``integrate(q0, difference(q0, q1)) == q1``.

        Parameters
        ----------
        q0, q1 : (..., nq) ndarray

        Returns
        -------
        (..., nv) ndarray
            The shortest displacement (rotation angle at most pi).
        """
        raise NotImplementedError  # pragma: no cover

    def bracket(self, u, w):
        r"""Lie bracket :math:`[u, w]` of two velocity increments in the joint's algebra.

        Zero for a screw joint (one freedom), :math:`u\times w` for a ball joint,
        :math:`\mathrm{ad}_u w` (the motion cross product) for a free flyer.  Runge–Kutta
        steps on the configuration manifold need it (Munthe-Kaas correction).

        Parameters
        ----------
        u, w : (..., nv) ndarray

        Returns
        -------
        (..., nv) ndarray
        """
        return np.zeros(np.broadcast_shapes(np.shape(u), np.shape(w)))

    def random(self, shape, *, rng=None):
        """Random configurations of this joint.

        Parameters
        ----------
        shape : tuple of int
            Batch shape.
        rng : None, int or numpy.random.Generator, optional, keyword only
            Random source: anything :func:`numpy.random.default_rng` takes (a Generator
            is used and advanced); default None.

        Returns
        -------
        (*shape, nq) ndarray
            Joint rotations by angles uniform in [-pi, pi), rotations uniform on SO(3),
            translations uniform in [-1, 1] m per coordinate.
        """
        raise NotImplementedError  # pragma: no cover

    def check(self, q, name):
        """Refuse coordinates that are not a configuration of this joint (non-unit quaternions).

        Parameters
        ----------
        q : (..., nq) ndarray
        name : str
            Argument name for the error message.

        Returns
        -------
        None

        Raises
        ------
        ValueError
            Naming ``name``, for a quaternion whose norm is off 1 by more than
            ``QUATERNION_ATOL``.
        """

    def normalize(self, q):
        """Project coordinates onto the joint's configuration manifold (unit quaternions).

        Parameters
        ----------
        q : (..., nq) ndarray

        Returns
        -------
        (..., nq) ndarray
        """
        return np.array(q, dtype=float)


@dataclass(frozen=True, eq=False)
class ScrewJoint(Joint):
    r"""A one-degree-of-freedom joint along a constant screw: revolute, prismatic or helical.

    Equation of the book: :eq:`conv-exp`.

    .. math:: T_J(q) = \exp([S]\,q),\qquad v = \dot q

    Parameters
    ----------
    screw : (6,) array_like
        :math:`S = (\omega, v)` in the child's coordinates, nonzero.  ``omega != 0``,
        ``omega.v = 0``: revolute (q in rad); ``omega.v != 0``: helical with pitch
        ``omega.v/|omega|^2`` m/rad; ``omega = 0``: prismatic along ``v`` (q in m).

    Raises
    ------
    ValueError
        If ``screw`` is not a finite nonzero 6-vector.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import tree
    >>> hinge = tree.ScrewJoint(tree.REVOLUTE_Z)
    >>> hinge.kind, hinge.nq, hinge.nv
    ('revolute', 1, 1)
    >>> hinge.transform(np.array([np.pi / 2]))[:2, :2].round(12)
    array([[ 0., -1.],
           [ 1.,  0.]])
    """

    screw: np.ndarray
    nq = 1
    nv = 1

    def __post_init__(self):
        S = _validate.vector(self.screw, "screw", 6)
        if not np.any(S):
            raise ValueError("screw: expected a nonzero joint screw (omega, v), got all zeros")
        S = np.array(S, dtype=float)
        S.flags.writeable = False
        object.__setattr__(self, "screw", S)

    @property
    def kind(self):
        """'revolute', 'prismatic' or 'helical', from the screw."""
        w, v = self.screw[:3], self.screw[3:]
        if not np.any(w):
            return "prismatic"
        pitch_free = abs(w @ v) <= 1e-12 * np.linalg.norm(w) * max(np.linalg.norm(v), 1.0)
        return "revolute" if pitch_free else "helical"

    @property
    def subspace(self):
        """The (6, 1) motion subspace, the screw as a column."""
        return self.screw[:, None]

    def transform(self, q):  # noqa: D102 - documented on Joint
        return exp_twist(q * self.screw)

    def neutral(self):  # noqa: D102
        return np.zeros(1)

    def integrate(self, q, dv):  # noqa: D102
        return q + dv

    def difference(self, q0, q1):  # noqa: D102
        return q1 - q0

    def random(self, shape, *, rng=None):
        r"""Random coordinates of this screw joint: its motion, not its coordinate, is uniform.

        A revolute or helical joint turns by :math:`|\omega|q` uniform in [-pi, pi) rad, a
        prismatic joint slides by :math:`|v|q` uniform in [-1, 1] m, whatever the length of
        the screw (with a unit screw, ``q`` itself); see :meth:`Joint.random`.
        """
        rng = np.random.default_rng(rng)
        if self.kind == "prismatic":
            return rng.uniform(-1.0, 1.0, tuple(shape) + (1,)) / np.linalg.norm(self.screw[3:])
        return rng.uniform(-np.pi, np.pi, tuple(shape) + (1,)) / np.linalg.norm(self.screw[:3])


_BALL_SUBSPACE = np.vstack([np.eye(3), np.zeros((3, 3))])
_BALL_SUBSPACE.flags.writeable = False
_FREE_SUBSPACE = np.eye(6)
_FREE_SUBSPACE.flags.writeable = False


@dataclass(frozen=True, eq=False)
class SphericalJoint(Joint):
    r"""A ball joint: three rotational freedoms about the child's origin.

    .. math:: q = (w, x, y, z),\ |q| = 1,\qquad T_J(q) = (R(q), 0),\qquad
              S = \begin{bmatrix} I_3 \\ 0 \end{bmatrix},\qquad
              q \oplus \delta\omega = q \otimes \exp(\delta\omega)

    ``v`` is the child's angular velocity relative to the parent, in the child's axes
    (rad/s); the matching generalized force is the joint moment in the child's axes (N m).

    Attributes
    ----------
    kind : str
        ``"spherical"``.
    nq, nv : int
        4 and 3.

    Examples
    --------
    A quarter turn about z from the neutral configuration, and back by ``difference``:

    >>> import numpy as np
    >>> from geomotion import tree
    >>> ball = tree.SphericalJoint()
    >>> q = ball.integrate(ball.neutral(), np.array([0.0, 0.0, np.pi / 2]))
    >>> q.round(12)
    array([0.70710678, 0.        , 0.        , 0.70710678])
    >>> ball.difference(ball.neutral(), q).round(12)
    array([0.        , 0.        , 1.57079633])
    """

    kind = "spherical"
    nq = 4
    nv = 3

    @property
    def subspace(self):
        """The (6, 3) motion subspace, the three rotations about the child's axes."""
        return _BALL_SUBSPACE

    def transform(self, q):  # noqa: D102
        return _pose(_quaternion_to_rotation(q), np.zeros(q.shape[:-1] + (3,)))

    def neutral(self):  # noqa: D102
        return np.array([1.0, 0.0, 0.0, 0.0])

    def integrate(self, q, dv):  # noqa: D102
        moved = _qmul(q, _quaternion_of_rotation_vector(dv))
        return moved / np.linalg.norm(moved, axis=-1, keepdims=True)

    def difference(self, q0, q1):  # noqa: D102
        return _rotation_vector_of_quaternion(_qmul(_qconj(q0), q1))

    def random(self, shape, *, rng=None):  # noqa: D102
        return _random_quaternions(np.random.default_rng(rng), shape)

    def bracket(self, u, w):  # noqa: D102
        return _cross(u, w)

    def check(self, q, name):  # noqa: D102
        _unit_quaternions(q, name, "a spherical joint")

    def normalize(self, q):  # noqa: D102
        q = np.array(q, dtype=float)
        return q / np.linalg.norm(q, axis=-1, keepdims=True)


@dataclass(frozen=True, eq=False)
class FreeFlyerJoint(Joint):
    r"""A free joint (a floating base): six freedoms, the child's pose relative to the parent.

    .. math:: q = (p, w, x, y, z),\qquad T_J(q) = (R(q_{3:7}), p),\qquad S = I_6,\qquad
              T_J(q \oplus \delta\xi) = T_J(q)\,\exp([\delta\xi])

    ``p`` (m) is the child's origin in the joint frame's axes; ``v = (omega, v)`` is the
    child's twist relative to the parent about the child's origin, in the child's axes
    (rad/s, m/s), and the matching generalized force is a wrench on the child in its own
    axes (N m, N).  (Pinocchio's free flyer uses the same local twist, linear part first,
    and stores its quaternion scalar-last.)

    Attributes
    ----------
    kind : str
        ``"free_flyer"``.
    nq, nv : int
        7 and 6.

    Examples
    --------
    A twist of 1 m/s along x with 1 rad/s about z for pi/2 s moves the body on a circle of
    radius 1 m, a quarter of the way round:

    >>> import numpy as np
    >>> from geomotion import tree
    >>> free = tree.FreeFlyerJoint()
    >>> q = free.integrate(free.neutral(), np.pi / 2 * np.array([0, 0, 1.0, 1.0, 0, 0]))
    >>> q[:3].round(12)  # position: (sin, 1 - cos) of a quarter turn
    array([1., 1., 0.])
    """

    kind = "free_flyer"
    nq = 7
    nv = 6

    @property
    def subspace(self):
        """The (6, 6) motion subspace, every twist."""
        return _FREE_SUBSPACE

    def transform(self, q):  # noqa: D102
        return _pose(_quaternion_to_rotation(q[..., 3:]), q[..., :3])

    def neutral(self):  # noqa: D102
        return np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])

    def integrate(self, q, dv):  # noqa: D102
        step = exp_twist(dv)
        R0 = _quaternion_to_rotation(q[..., 3:])
        p = q[..., :3] + np.einsum("...ij,...j->...i", R0, step[..., :3, 3])
        moved = _qmul(q[..., 3:], _quaternion_of_rotation_vector(dv[..., :3]))
        moved = moved / np.linalg.norm(moved, axis=-1, keepdims=True)
        return np.concatenate([p, moved], axis=-1)

    def difference(self, q0, q1):  # noqa: D102
        relative = _inverse_pose(self.transform(q0)) @ self.transform(q1)
        return log_pose(relative)

    def random(self, shape, *, rng=None):  # noqa: D102
        rng = np.random.default_rng(rng)
        p = rng.uniform(-1.0, 1.0, tuple(shape) + (3,))
        return np.concatenate([p, _random_quaternions(rng, shape)], axis=-1)

    def bracket(self, u, w):  # noqa: D102
        a, b = u[..., :3], w[..., :3]
        return np.concatenate(
            [_cross(a, b), _cross(a, w[..., 3:]) + _cross(u[..., 3:], b)], axis=-1
        )

    def check(self, q, name):  # noqa: D102
        _unit_quaternions(q[..., 3:], name, "a free-flyer joint's orientation")

    def normalize(self, q):  # noqa: D102
        q = np.array(q, dtype=float)
        q[..., 3:] /= np.linalg.norm(q[..., 3:], axis=-1, keepdims=True)
        return q


#: The ball joint (one shared instance: joint models hold no state).
SPHERICAL = SphericalJoint()
#: The free-flyer joint of a floating base.
FREE_FLYER = FreeFlyerJoint()


def as_joint(value, name, index):
    """A :class:`Joint` from a joint model or a 6-vector screw (wrapped in :class:`ScrewJoint`)."""
    if isinstance(value, Joint):
        if type(value) is Joint:
            raise TypeError(f"{name}[{index}]: expected a joint model subclass, got the base Joint")
        return value
    if isinstance(value, type) and issubclass(value, Joint):
        raise TypeError(
            f"{name}[{index}]: expected a joint model instance (tree.SPHERICAL, "
            f"tree.FREE_FLYER, tree.ScrewJoint(S)), got the class {value.__name__}"
        )
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(
            f"{name}[{index}]: expected a joint screw (6,) or a joint model "
            f"(tree.SPHERICAL, tree.FREE_FLYER, ...), got {value!r}"
        )
    try:
        return ScrewJoint(value)
    except (TypeError, ValueError) as error:  # name the tree's argument, not ScrewJoint's
        message = str(error).removeprefix("screw: ")
        raise type(error)(f"{name}[{index}]: {message}") from None
