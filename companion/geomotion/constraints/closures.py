r"""Constraint objects: functions, loop closures between tree bodies, revolute-joint sets.

Each follows the constraint protocol of :mod:`geomotion.constraints`; the closures
between two frames are in :mod:`geomotion.constraints.frame_closures`.
"""

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

import numpy as np

from .. import _validate, tree
from .dynamics import constraint_rank

#: Rotation entries (0-based row, column) of the two revolute-joint constraint sets:
#: ``"axis"`` holds the joint axes together (R13 = R23 = 0), ``"in_plane"`` (R12 = R21 = 0)
#: wrongly forbids the joint's own rotation.
REVOLUTE_ROTATION_ENTRIES = {"axis": ((0, 2), (1, 2)), "in_plane": ((0, 1), (1, 0))}

#: Configurations (fixed seed, drawn by tree.random_configuration) on which a loop
#: closure measures the directions in which :math:`p_a - p_b` can move.
_MOTION_SAMPLES = 4

#: Singular values of the sampled :math:`J_a - J_b` below this fraction of the largest, and
#: components of a unit direction row below it, count as zero.
_MOTION_RTOL = 1e-9


# ---------------------------------------------------------------------------
# Constraint objects
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FunctionConstraint:
    r"""A constraint given by three functions (the module's constraint protocol).

    For instance a point on a circle of radius :math:`R`,
    :math:`\Phi(q) = (q^Tq - R^2)/2`, has :math:`J_c = q^T` and
    :math:`\gamma = \dot J_cv = v^Tv`::

        FunctionConstraint(
            residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - R**2),
            jacobian=lambda q: q[..., None, :],
            acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True),
        )

    Attributes
    ----------
    residual : callable
        ``residual(q)`` -> (..., c): :math:`\Phi(q)`.
    jacobian : callable
        ``jacobian(q)`` -> (..., c, n): :math:`\partial\Phi/\partial q`.
    acceleration_bias : callable
        ``acceleration_bias(q, v)`` -> (..., c): :math:`\gamma = \dot J_cv`, in the
        constraint's units per s^2.

    The functions are called as given; they should broadcast over leading axes.

    Raises
    ------
    TypeError
        If an attribute is not callable.
    """

    residual: Callable
    jacobian: Callable
    acceleration_bias: Callable

    def __post_init__(self):
        for name in ("residual", "jacobian", "acceleration_bias"):
            value = getattr(self, name)
            if not callable(value):
                raise TypeError(f"{name}: expected a callable, got {type(value).__name__}")


def _body_index(value, name, num_bodies, lowest):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{name}: expected an integer body index, got {type(value).__name__} {value!r}"
        )
    if not lowest <= value < num_bodies:
        raise ValueError(
            f"{name}: expected a body index in [{lowest}, {num_bodies - 1}], got {value}"
        )
    return int(value)


def _point(value, name):
    point = _validate.real_array(value, name)
    if point.shape != (3,):
        raise ValueError(f"{name}: expected a point of shape (3,) in m, got shape {point.shape}")
    return point


def _directions(value):
    if value is None:
        return np.eye(3)
    D = _validate.real_array(value, "directions")
    if D.ndim != 2 or D.shape[-1] != 3 or not 1 <= D.shape[0] <= 3:
        raise ValueError(f"directions: expected shape (k, 3) with 1 <= k <= 3, got shape {D.shape}")
    norms = np.linalg.norm(D, axis=-1)
    if np.any(np.abs(norms - 1.0) > 1e-9):
        raise ValueError(f"directions: expected unit rows, got row norms {norms}")
    if constraint_rank(D) < D.shape[0]:
        raise ValueError(f"directions: expected independent rows, got rank {constraint_rank(D)}")
    return D


@dataclass(frozen=True, eq=False)
class LoopClosure:
    r"""Loop closure between two points of a tree: :math:`\Phi(q) = D\,(p_a(q) - p_b(q)) = 0`.

    Built by :func:`loop_closure` (which documents the parameters); follows the
    module's constraint protocol.  :math:`p_a`, :math:`p_b` are base-frame positions
    (m) of points fixed in ``body_a`` and ``body_b`` (``body_b = -1``: fixed in the base),
    and the rows of :math:`D` select base-frame components, so

    .. math:: J_c = D\,(J_a - J_b),\qquad \gamma = D\,(\dot J_a\dot q - \dot J_b\dot q),

    with :math:`J_a`, :math:`\dot J_a\dot q` from :func:`geomotion.tree.point_jacobian`
    and :func:`geomotion.tree.point_acceleration_bias`; :math:`J_c\dot v + \gamma = 0` is
    equation :eq:`eq-ch2-accel-constraint`.

    Attributes
    ----------
    model : geomotion.tree.Tree
        The tree whose loop is closed.
    body_a, body_b : int
        Bodies carrying the two points (``body_b = -1``: the fixed base).
    point_a, point_b : (3,) ndarray
        The points in their bodies' coordinates, m (read-only copies).
    directions : (k, 3) ndarray
        Unit rows :math:`D` selecting base-frame components (keyword-only; the
        identity when omitted).
    """

    model: tree.Tree
    body_a: int
    point_a: np.ndarray
    body_b: int
    point_b: np.ndarray
    _: KW_ONLY
    directions: np.ndarray | None = None

    def __post_init__(self):
        if not isinstance(self.model, tree.Tree):
            raise TypeError(
                f"model: expected a geomotion.tree.Tree, got {type(self.model).__name__}"
            )
        N = self.model.num_bodies
        body_a = _body_index(self.body_a, "body_a", N, lowest=0)
        body_b = _body_index(self.body_b, "body_b", N, lowest=-1)
        if body_a == body_b:
            raise ValueError(f"body_b: expected a body other than body_a = {body_a}, got {body_b}")
        object.__setattr__(self, "body_a", body_a)
        object.__setattr__(self, "body_b", body_b)
        defaulted = self.directions is None
        for name, value in (
            ("point_a", _point(self.point_a, "point_a")),
            ("point_b", _point(self.point_b, "point_b")),
            ("directions", _directions(self.directions)),
        ):
            value = value.copy()  # a read-only copy: the caller's array stays writable
            value.flags.writeable = False
            object.__setattr__(self, name, value)
        _check_rows_move(self, defaulted)

    def _difference(self, point_kinematics, *state):
        """``point_kinematics`` of point a minus that of point b, at ``state`` (q or q, v)."""
        of_a = point_kinematics(self.model, *state, self.body_a, self.point_a)
        return of_a - point_kinematics(self.model, *state, self.body_b, self.point_b)

    def residual(self, q):
        """:math:`D(p_a - p_b)`, (..., k) in m, for configurations q (..., nq)."""
        return np.einsum("kj,...j->...k", self.directions, self._difference(tree.point_position, q))

    def jacobian(self, q):
        """:math:`D(J_a - J_b)`, (..., k, nv), m/s per unit of v."""
        return self.directions @ self._difference(tree.point_jacobian, q)

    def acceleration_bias(self, q, v):
        r""":math:`D(\dot J_a - \dot J_b)v`, (..., k) in m/s^2, for velocities v (..., nv)."""
        difference = self._difference(tree.point_acceleration_bias, q, v)
        return np.einsum("kj,...j->...k", self.directions, difference)


def _motion_span(closure):
    r"""Orthonormal basis (3, r) of the directions in which :math:`p_a - p_b` moves with q.

    The columns of :math:`J_a - J_b` at ``_MOTION_SAMPLES`` generic configurations span
    every velocity of :math:`p_a - p_b` (for a chain about parallel z axes, the x-y plane).
    """
    q = tree.random_configuration(closure.model, shape=(_MOTION_SAMPLES,), rng=0)
    columns = np.concatenate(closure._difference(tree.point_jacobian, q), axis=-1)
    U, s, _ = np.linalg.svd(columns)
    return U[:, : int(np.sum(s > _MOTION_RTOL * s[0]))] if s[0] > 0 else U[:, :0]


def _example_directions(span):
    """``directions=`` rows spanning ``span``, as text: the base axes projected on it.

    Gram-Schmidt on the projections, the axes closest to the span first, so a span of
    base axes gives exactly those axes (``[[1, 0, 0], [0, 1, 0]]`` for the x-y plane).
    """
    projected = span @ span.T  # row i: base axis i projected on the span
    rows = []
    for axis in np.argsort(-np.round(np.diag(projected), 9), kind="stable"):  # ties: x, y, z
        row = projected[axis] - sum((projected[axis] @ done) * done for done in rows)
        if len(rows) < span.shape[1] and np.linalg.norm(row) > 1e-3:
            rows.append(row / np.linalg.norm(row))
    rows = np.round(rows, 12) + 0.0  # + 0.0 turns -0.0 into 0.0
    return str((rows.astype(int) if np.all(rows == np.round(rows)) else rows).tolist())


def _check_rows_move(closure, defaulted):
    r"""Refuse direction rows that leave :math:`J_c = D(J_a - J_b)` rank-deficient at every q.

    A row orthogonal to every motion of :math:`p_a - p_b` (the z row of a planar loop in
    the x-y plane) is identically zero; rows whose components in the motion are dependent
    are redundant everywhere.  Either way no configuration is regular and the constrained
    dynamics would refuse the closure later with a bare rank count.
    """
    span = _motion_span(closure)
    r = span.shape[1]
    if r == 0:
        raise ValueError(
            "point_a, point_b: expected points that move relative to each other, got "
            "p_a - p_b constant over the model's motion (a point on the only joint axis "
            "between them?); the closure constrains no joint"
        )
    D = closure.directions
    moving = D @ span  # each row's components in the directions p_a - p_b can move
    rank = constraint_rank(moving)
    if rank == D.shape[0]:
        return
    zero = np.flatnonzero(np.linalg.norm(moving, axis=-1) <= _MOTION_RTOL)
    given = " (directions omitted: all three base axes)" if defaulted else ""
    if zero.size:
        rows = ", ".join(f"{i} = {D[i].tolist()}" for i in zero)
        found = (
            f"{'row' if zero.size == 1 else 'rows'} {rows}{given} orthogonal to every motion "
            f"of p_a - p_b (an identically zero row of J_c)"
        )
    else:
        found = f"rows of rank {rank} < {D.shape[0]} along the motion of p_a - p_b (dependent)"
    raise ValueError(
        f"directions: expected rows along which p_a - p_b can move, got {found}, so J_c "
        f"is rank-deficient at every configuration; p_a - p_b moves only in a "
        f"{r}-dimensional subspace: pass directions= with at most {r} independent unit rows "
        f"in it, e.g. directions={_example_directions(span)}"
    )


def loop_closure(model, body_a, point_a, body_b, point_b, *, directions=None):
    r"""The constraint :math:`p_a(q) - p_b(q) = 0` closing a loop between two points of a tree.

    Cutting a closed chain at a joint leaves a tree; the cut is closed again by asking
    the two points that coincide at the cut to stay together.  ``directions`` keeps only
    some base-frame components: a planar loop in the x-y plane closes with rows
    ``[[1, 0, 0], [0, 1, 0]]``, because its out-of-plane row is identically zero and as a
    constraint would make :math:`J_c` rank-deficient everywhere.

    Parameters
    ----------
    model : geomotion.tree.Tree
    body_a : int
        Body carrying the first point, ``0 <= body_a < N``.
    point_a : (3,) array_like
        The first point in ``body_a`` coordinates, m.
    body_b : int
        Body carrying the second point, ``-1 <= body_b < N`` (``-1``: the fixed base),
        different from ``body_a``.
    point_b : (3,) array_like
        The second point in ``body_b`` coordinates (base coordinates if ``body_b = -1``), m.
    directions : (k, 3) array_like, optional
        Independent unit rows, base coordinates, selecting components of
        :math:`p_a - p_b`; default None: all three (the identity).

    Returns
    -------
    LoopClosure
        ``residual(q)`` (..., k) m, ``jacobian(q)`` (..., k, N), ``acceleration_bias(q, v)`` (..., k) m/s^2.

    Raises
    ------
    TypeError
        If ``model`` is not a Tree, or a body index is not an integer.
    ValueError
        If a body index is out of range (or the two
        bodies coincide), a point is not a finite (3,) array, or ``directions`` is not
        (k, 3) with independent unit rows.  Also if the rows would make :math:`J_c`
        rank-deficient at every configuration: :math:`p_a - p_b` moves only in an
        r-dimensional subspace (its velocities :math:`(J_a - J_b)\dot q`, sampled at
        ``_MOTION_SAMPLES`` fixed random configurations) and a row is orthogonal to it
        (e.g. the default z row of a planar loop) or the rows are dependent in it.  The
        message names the rows and an accepted ``directions=`` (for the x-y plane
        ``[[1, 0, 0], [0, 1, 0]]``); if :math:`p_a - p_b` never moves it names the points.
    """
    return LoopClosure(model, body_a, point_a, body_b, point_b, directions=directions)


# ---------------------------------------------------------------------------
# Revolute joint constraint sets
# ---------------------------------------------------------------------------


def _revolute_entries(rows):
    if not isinstance(rows, str) or rows not in REVOLUTE_ROTATION_ENTRIES:
        raise ValueError(f"rows: expected one of {sorted(REVOLUTE_ROTATION_ENTRIES)}, got {rows!r}")
    return REVOLUTE_ROTATION_ENTRIES[rows]


def revolute_joint_residual(T_rel, *, rows="axis"):
    r"""Residuals of a revolute joint's constraint set, as functions of the relative pose.

    Both joint frames sit at the pivot with their z axes along the joint axis, and
    ``T_rel`` is the pose of frame B in frame A.  The joint allows :math:`p_{rel} = 0`,
    :math:`R_{rel} = R_z(\theta)`.  The residual stacks :math:`p_{rel}` (3 rows, m) and two
    rotation entries (dimensionless):

    * ``rows="axis"``: :math:`(R_{13}, R_{23})`, the joint axis of B held along that of A
      (valid on the branch :math:`R_{33} > 0`); five independent constraints, one free
      relative rotation;
    * ``rows="in_plane"``: :math:`(R_{12}, R_{21}) = (-\sin\theta, \sin\theta)` on the joint's
      own motion, so zeroing them forbids the rotation the joint should allow.

    Parameters
    ----------
    T_rel : (..., 4, 4) array_like
        Rigid pose of joint frame B in joint frame A (translation in m).
    rows : {"axis", "in_plane"}, optional
        Which rotation entries to constrain (``REVOLUTE_ROTATION_ENTRIES``); default "axis".

    Returns
    -------
    (..., 5) ndarray
        :math:`(p_x, p_y, p_z, R_{i_1j_1}, R_{i_2j_2})`.

    Raises
    ------
    ValueError
        If ``T_rel`` is not a finite rigid pose or ``rows`` is unknown.
    """
    T = _validate.pose(T_rel, "T_rel")
    (i1, j1), (i2, j2) = _revolute_entries(rows)
    return np.concatenate([T[..., :3, 3], T[..., [i1, i2], [j1, j2]]], axis=-1)


def revolute_joint_jacobian(T_rel, *, rows="axis"):
    r"""Jacobian of :func:`revolute_joint_residual` in local twist coordinates of the relative pose.

    The relative pose is perturbed on the right, :math:`T_{rel}\exp(\hat\xi)`, with
    :math:`\xi = (\omega, v)` angular-first in frame B.  To first order
    :math:`\delta p = Rv` and :math:`\delta R = R[\omega]_\times`, so

    .. math:: \frac{\partial p}{\partial\xi} = [\,0 \;\; R\,],\qquad
              \frac{\partial R_{ij}}{\partial\omega} = e_j \times (R^Te_i),\qquad
              \frac{\partial R_{ij}}{\partial v} = 0 .

    At aligned axes (:math:`R = R_z(\theta)`, :math:`p = 0`) the ``"axis"`` set has rank 5
    with kernel :math:`\omega_z` (the joint's rotation); the ``"in_plane"`` rows depend on
    :math:`\omega_z` alone and have rank 4, leaving :math:`\omega_x, \omega_y` free.

    Parameters
    ----------
    T_rel : (..., 4, 4) array_like
        Rigid pose of joint frame B in joint frame A.
    rows : {"axis", "in_plane"}, optional
        Which rotation entries to constrain; default "axis".

    Returns
    -------
    (..., 5, 6) ndarray
        Rows as in :func:`revolute_joint_residual`; columns :math:`(\omega, v)` (m per
        m/s for the position rows, per rad for the rotation rows).

    Raises
    ------
    ValueError
        As :func:`revolute_joint_residual`.
    """
    T = _validate.pose(T_rel, "T_rel")
    R = T[..., :3, :3]
    J = np.zeros(T.shape[:-2] + (5, 6))
    J[..., :3, 3:] = R
    for row, (i, j) in enumerate(_revolute_entries(rows), start=3):
        J[..., row, :3] = np.cross(np.eye(3)[j], R[..., i, :])
    return J
