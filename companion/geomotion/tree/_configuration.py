r"""Configurations on the tree's manifold: neutral, integrate, difference, random, normalize.

With ball and free-flyer joints, ``q`` holds unit quaternions, so it lives on a manifold
of dimension ``nv < nq``.  These functions act joint by joint with the rules of
:mod:`geomotion.tree._joints` and are batched over leading axes:

.. math:: q \oplus v\,dt = \big(q_i \oplus v_i\,dt\big)_i,\qquad
          q_1 \ominus q_0 = \big(q_{1,i} \ominus q_{0,i}\big)_i,\qquad
          q_0 \oplus (q_1 \ominus q_0) = q_1 .
"""

import numpy as np

from .. import _validate
from ._model import _check_configuration, _check_tangent, check_model

__all__ = ["neutral", "integrate", "difference", "random_configuration", "normalize", "lie_bracket"]


def _joint_slices(model):
    for joint, qs, vs in zip(model.joints, model.q_start, model.v_start):
        yield joint, slice(qs, qs + joint.nq), slice(vs, vs + joint.nv)


def _leading_shape(names, *shapes):
    """The broadcast batch shape, or a ValueError naming the arguments whose batches clash."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        got = ", ".join(str(s) for s in shapes)
        raise ValueError(
            f"{names}: expected leading (batch) shapes that broadcast, got {got}"
        ) from None


def neutral(model):
    """The reference configuration: zero joint angles, identity rotations, zero offsets.

    Parameters
    ----------
    model : Tree

    Returns
    -------
    (nq,) ndarray
        Every body at its placement.

    Raises
    ------
    TypeError
        If ``model`` is not a Tree.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import inertia, tree
    >>> body = inertia.spatial_inertia(1.0, [0, 0, 0], 0.01 * np.eye(3))
    >>> floating = tree.Tree([-1], [tree.FREE_FLYER], [np.eye(4)], [body])
    >>> tree.neutral(floating)
    array([0., 0., 0., 1., 0., 0., 0.])
    """
    check_model(model)
    return np.concatenate([joint.neutral() for joint in model.joints])


def integrate(model, q, v, dt):
    r"""Configuration reached from ``q`` by following the velocity ``v`` for ``dt``: :math:`q \oplus v\,dt`.

    Equation of the book: :eq:`conv-exp`.

    Exact on each joint's manifold: the screw exponential for screw joints, the
    quaternion exponential for a ball joint and the SE(3) exponential
    :math:`T_J(q)\exp([v\,dt])` for a free flyer (as ``pinocchio.integrate``).  Returned
    quaternions are normalized, so repeated steps do not drift off the unit sphere.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Start configuration.
    v : (..., nv) array_like
        Velocity (rad/s, m/s; a ball or free flyer's in its child's axes).
    dt : float or (...) array_like
        Time, s (any sign); leading axes broadcast.

    Returns
    -------
    (..., nq) ndarray

    Raises
    ------
    ValueError
        For malformed arrays, leading shapes of ``q``, ``v`` and ``dt`` that do not
        broadcast, or a non-unit quaternion in ``q`` (``| |q| - 1 | > 1e-9``).
    TypeError
        If ``model`` is not a Tree, or ``q``, ``v`` or ``dt`` is not numeric.

    Examples
    --------
    A ball joint turned at 1 rad/s about its child's z axis for pi/2 s:

    >>> import numpy as np
    >>> from geomotion import inertia, tree
    >>> body = inertia.spatial_inertia(1.0, [0, 0, -0.5], 0.01 * np.eye(3))
    >>> pendulum = tree.Tree([-1], [tree.SPHERICAL], [np.eye(4)], [body])
    >>> tree.integrate(pendulum, tree.neutral(pendulum), [0, 0, 1.0], np.pi / 2).round(12)
    array([0.70710678, 0.        , 0.        , 0.70710678])
    """
    check_model(model)
    q = _check_configuration(model, q, "q")
    v = _check_tangent(model, v, "v")
    dt = _validate.real_array(dt, "dt")
    shape = _leading_shape("q, v, dt", q.shape[:-1], v.shape[:-1], dt.shape)
    dv = v * dt[..., None]
    q, dv = np.broadcast_to(q, shape + q.shape[-1:]), np.broadcast_to(dv, shape + dv.shape[-1:])
    return np.concatenate(
        [joint.integrate(q[..., sq], dv[..., sv]) for joint, sq, sv in _joint_slices(model)],
        axis=-1,
    )


def difference(model, q0, q1):
    r"""The velocity that carries ``q0`` to ``q1`` in unit time: :math:`q_1 \ominus q_0`.

    ``integrate(model, q0, difference(model, q0, q1), 1.0)`` is ``q1`` (the shortest
    such displacement: rotations of at most pi).

    Parameters
    ----------
    model : Tree
    q0, q1 : (..., nq) array_like
        Configurations; leading axes broadcast.

    Returns
    -------
    (..., nv) ndarray
        rad, m (a ball or free flyer's in the child's axes at ``q0``).

    Raises
    ------
    ValueError
        For malformed arrays, leading shapes that do not broadcast, or non-unit
        quaternions (``| |q| - 1 | > 1e-9``).
    TypeError
        If ``model`` is not a Tree, or ``q0`` or ``q1`` is not numeric.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.difference(arm, [0.1, 0.2], [0.4, -0.3])
    array([ 0.3, -0.5])
    """
    check_model(model)
    q0 = _check_configuration(model, q0, "q0")
    q1 = _check_configuration(model, q1, "q1")
    shape = _leading_shape("q0, q1", q0.shape[:-1], q1.shape[:-1])
    q0, q1 = (np.broadcast_to(x, shape + x.shape[-1:]) for x in (q0, q1))
    return np.concatenate(
        [joint.difference(q0[..., sq], q1[..., sq]) for joint, sq, _ in _joint_slices(model)],
        axis=-1,
    )


def random_configuration(model, *, shape=(), rng=None):
    """Random configurations: angles uniform in [-pi, pi), rotations uniform, offsets in [-1, 1] m.

    Parameters
    ----------
    model : Tree
    shape : tuple of int, optional, keyword only
        Batch shape; default a single configuration.
    rng : None, int or numpy.random.Generator, optional, keyword only
        Random source (as :func:`numpy.random.default_rng` takes it).

    Returns
    -------
    (*shape, nq) ndarray
        Unit quaternions drawn uniformly on SO(3) (scalar part >= 0).

    Raises
    ------
    TypeError
        If ``model`` is not a Tree or ``shape`` is not a tuple of integers.
    ValueError
        If ``shape`` holds a negative size.

    Examples
    --------
    >>> from geomotion import models, tree
    >>> tree.random_configuration(models.two_link_teaching_arm(), shape=(5,), rng=0).shape
    (5, 2)
    """
    check_model(model)
    if not isinstance(shape, tuple) or not all(isinstance(s, (int, np.integer)) for s in shape):
        raise TypeError(f"shape: expected a tuple of integers, got {shape!r}")
    if any(s < 0 for s in shape):
        raise ValueError(f"shape: expected non-negative batch sizes, got {shape!r}")
    generator = np.random.default_rng(rng)
    return np.concatenate([joint.random(shape, rng=generator) for joint in model.joints], axis=-1)


def normalize(model, q):
    """Project coordinates onto the configuration manifold: each quaternion divided by its norm.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Coordinates whose quaternions may have drifted (e.g. after ``q + v dt``).

    Returns
    -------
    (..., nq) ndarray

    Raises
    ------
    ValueError
        For a malformed array or a zero quaternion.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import inertia, tree
    >>> body = inertia.spatial_inertia(1.0, [0, 0, -0.5], 0.01 * np.eye(3))
    >>> pendulum = tree.Tree([-1], [tree.SPHERICAL], [np.eye(4)], [body])
    >>> tree.normalize(pendulum, [2.0, 0.0, 0.0, 0.0])
    array([1., 0., 0., 0.])
    """
    check_model(model)
    q = _validate.real_array(q, "q")
    if q.ndim == 0 or q.shape[-1] != model.nq:
        raise ValueError(f"q: expected shape (..., {model.nq}), got shape {q.shape}")
    parts = []
    for i, (joint, sq, _) in enumerate(_joint_slices(model)):
        part = q[..., sq]
        if joint.nq > joint.nv and np.any(np.linalg.norm(part[..., -4:], axis=-1) == 0):
            raise ValueError(
                f"q: expected nonzero quaternions, got a zero quaternion for joint {i} "
                f"({joint.kind}, q[..., {sq.start + joint.nq - 4}:{sq.stop}])"
            )
        parts.append(joint.normalize(part))
    return np.concatenate(parts, axis=-1)


def lie_bracket(model, u, w):
    r"""Lie bracket :math:`[u, w]` of two velocity increments, joint by joint.

    The configuration space is a product of the joints' groups, so the bracket acts on
    each joint's block: zero for screw joints, :math:`u_i\times w_i` for a ball joint,
    :math:`\mathrm{ad}_{u_i}w_i` for a free flyer (angular-first).  Runge–Kutta methods
    on the configuration manifold use it to correct their stage velocities
    (``integrators.MechanicalSystem.from_tree`` passes it to the integrators).

    Parameters
    ----------
    model : Tree
    u, w : (..., nv) array_like
        Velocity increments (rad, m); leading axes broadcast.

    Returns
    -------
    (..., nv) ndarray

    Raises
    ------
    ValueError
        For malformed arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import inertia, tree
    >>> body = inertia.spatial_inertia(1.0, [0, 0, -0.5], 0.01 * np.eye(3))
    >>> pendulum = tree.Tree([-1], [tree.SPHERICAL], [np.eye(4)], [body])
    >>> tree.lie_bracket(pendulum, [1.0, 0, 0], [0, 1.0, 0])  # x cross y
    array([0., 0., 1.])
    """
    check_model(model)
    u = _check_tangent(model, u, "u")
    w = _check_tangent(model, w, "w")
    shape = np.broadcast_shapes(u.shape, w.shape)
    u, w = np.broadcast_to(u, shape), np.broadcast_to(w, shape)
    return np.concatenate(
        [joint.bracket(u[..., sv], w[..., sv]) for joint, _, sv in _joint_slices(model)],
        axis=-1,
    )
