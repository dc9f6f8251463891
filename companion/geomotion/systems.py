r"""The systems that the integrators and the control modules work on, evaluated with validation.

This module sits below both :mod:`geomotion.integrators` and :mod:`geomotion.control`,
which share it and do not import each other.

A *system* supplies the unconstrained equations of motion
:math:`M(q)\dot v + h(q, v) = Q`: a :class:`geomotion.tree.Tree`, or a
:class:`MechanicalSystem` given by three functions.  A *constraint* is any object
with ``residual(q)`` :math:`\Phi` (..., c), ``jacobian(q)`` :math:`J_c` (..., c, n)
and ``acceleration_bias(q, v)`` :math:`\gamma = \dot J_cv` (..., c) (the protocol of
:mod:`geomotion.constraints`).  User functions are called through the package's one
callable contract (``geomotion._numerics.evaluate``: written for one point or for a
stack of points, every result checked for shape and finiteness, the user's own
exceptions passed through unchanged), so that a wrong model fails with a ValueError naming the function
instead of propagating a wrong number; an object of the wrong type (not a Tree, a
constraint without the protocol methods, a field that is not callable) is a TypeError.
"""

from dataclasses import KW_ONLY, dataclass

import numpy as np

from . import _numerics, _validate, tree

__all__ = ["MechanicalSystem"]


@dataclass(frozen=True)
class MechanicalSystem:
    r"""Equations of motion :math:`M(q)\dot v + h(q, v) = Q` given by three functions.

    The unconstrained form of equation :eq:`eq-ch2-euler-lagrange-constrained` (or
    :eq:`conv-joint-space` of the conventions), for systems that are not trees (e.g. a
    particle in the plane with :math:`M = mI`); :meth:`from_tree` wraps a
    :class:`geomotion.tree.Tree`.  Each
    function may be written for one point or broadcast over leading batch axes; the
    integrators and control modules call it through the package's callable contract.

    Attributes
    ----------
    mass_matrix : callable
        ``mass_matrix(q)`` -> (..., n, n): symmetric positive definite :math:`M(q)`
        (kg, kg m^2, ... by coordinate).
    bias : callable
        ``bias(q, v)`` -> (..., n): :math:`h = C(q, v)v + \partial V/\partial q`, the
        velocity-product and conservative loads (N, N m by coordinate).
    potential : callable
        ``potential(q)`` -> (...): the potential energy :math:`V(q)` in J whose
        gradient ``bias`` contains.
    integrate : callable or None, optional, keyword-only
        ``integrate(q, v, dt)`` -> q: the configuration reached from ``q`` (..., nq)
        by holding the velocity ``v`` (..., nv) for the time ``dt`` (s), written
        :math:`q \oplus v\,dt`.  Default None: the Euclidean :math:`q + v\,dt`, with
        ``nq == nv``.  Give it when the configuration lives on a manifold whose
        coordinates are not the integrals of the velocities (a unit quaternion with an
        angular velocity, a point on a circle stored as (cos, sin) with an angle rate):
        the integrators then advance, and the projections correct, ``q`` only through
        it, so a step never leaves the manifold.  ``mass_matrix``, ``bias`` and the
        constraint Jacobians are then in velocity space (nv).
    bracket : callable or None, optional, keyword-only
        ``bracket(u, w)`` -> (..., nv): the Lie bracket of two velocity increments when
        ``integrate`` is a group's exponential map (``tree.lie_bracket`` for trees with
        ball or free-flyer joints).  The Runge–Kutta integrator then corrects its stage
        velocities, :math:`\dot u = w + \tfrac12[u, w] + \tfrac1{12}[u, [u, w]]`
        (Munthe-Kaas), which keeps it fourth order on rotations (second order without).
        Default None: the increments commute (Euclidean coordinates, circles, tori).

    Raises
    ------
    TypeError
        If an attribute is not callable (``integrate`` may be None).

    Examples
    --------
    A 2 kg particle in the vertical x-y plane: :math:`M = mI`, :math:`h = (0, mg)`,
    :math:`V = mgy`.

    >>> import numpy as np
    >>> from geomotion import integrators
    >>> m, g = 2.0, 9.81
    >>> particle = integrators.MechanicalSystem(
    ...     mass_matrix=lambda q: np.broadcast_to(m * np.eye(2), q.shape[:-1] + (2, 2)),
    ...     bias=lambda q, v: np.broadcast_to([0.0, m * g], q.shape),
    ...     potential=lambda q: m * g * q[..., 1])
    >>> float(particle.potential(np.array([0.0, 1.0])))  # m g y at y = 1 m, J
    19.62
    >>> particle.mass_matrix(np.zeros((3, 2))).shape  # a batch of three positions
    (3, 2, 2)
    """

    mass_matrix: object
    bias: object
    potential: object
    _: KW_ONLY
    integrate: object = None
    bracket: object = None

    def __post_init__(self):
        for name in ("mass_matrix", "bias", "potential"):
            if not callable(getattr(self, name)):
                raise TypeError(
                    f"{name}: expected a callable, got {type(getattr(self, name)).__name__}"
                )
        if self.integrate is not None and not callable(self.integrate):
            raise TypeError(
                f"integrate: expected None or a callable (q, v, dt) -> q, got "
                f"{type(self.integrate).__name__}"
            )
        if self.bracket is not None and not callable(self.bracket):
            raise TypeError(
                f"bracket: expected None or a callable (u, w) -> [u, w], got "
                f"{type(self.bracket).__name__}"
            )

    @classmethod
    def from_tree(cls, model, *, gravity=None):
        r"""The equations of a tree under uniform gravity.

        :math:`M` = ``tree.crba``, :math:`h` = ``tree.bias_forces`` (Coriolis,
        centrifugal and gravity loads), :math:`V` = ``tree.potential_energy``.  For a
        model whose configuration has more coordinates than velocities (``model.nq``
        differs from ``model.nv``: quaternion joints), ``integrate`` is
        ``tree.integrate(model, q, v, dt)`` and ``bracket`` is ``tree.lie_bracket``;
        otherwise the Euclidean defaults.

        Parameters
        ----------
        model : tree.Tree
            The mechanism.
        gravity : None or (3,) array_like, optional
            Default None: the tree's own ``model.gravity``.  Or gravitational
            acceleration in base coordinates, m/s^2.

        Returns
        -------
        MechanicalSystem
            Its three functions broadcast over leading axes of ``q`` and ``v``.

        Raises
        ------
        TypeError
            If ``model`` is not a Tree.
        ValueError
            If ``gravity`` is not a finite (3,) vector.

        Examples
        --------
        >>> import numpy as np
        >>> from geomotion import integrators, models
        >>> arm = integrators.MechanicalSystem.from_tree(models.two_link_teaching_arm())
        >>> q = np.zeros(2)
        >>> arm.mass_matrix(q).round(6)
        array([[0.9175, 0.2175],
               [0.2175, 0.0675]])
        >>> arm.bias(q, q).round(6)  # at rest: the holding torques, N m
        array([14.2245,  2.4525])
        """
        tree.check_model(model)
        g = gravity_vector(model, gravity)
        nq, nv = dimensions(model)
        integrate = bracket = None
        if nq != nv:
            integrate = _numerics.Trusted(lambda q, v, dt: tree.integrate(model, q, v, dt))
            bracket = _numerics.Trusted(lambda u, w: tree.lie_bracket(model, u, w))
        return cls(  # built here, broadcasting by construction: no spot checks
            mass_matrix=_numerics.Trusted(lambda q: tree.crba(model, q)),
            bias=_numerics.Trusted(lambda q, v: tree.bias_forces(model, q, v, gravity=g)),
            potential=_numerics.Trusted(lambda q: tree.potential_energy(model, q, gravity=g)),
            integrate=integrate,
            bracket=bracket,
        )


def dimensions(model):
    """``(nq, nv)`` of a tree: its ``nq``/``nv`` when it has them, else one per body."""
    nv = getattr(model, "nv", None) or model.num_bodies
    return getattr(model, "nq", None) or nv, nv


def euclidean(q, v, dt):
    r"""The default ``integrate``: :math:`q + v\,dt`."""
    return q + dt * v


def integrate_function(integrate, nq, name="system.integrate"):
    """``integrate(q, v, dt)`` -> (..., nq), validated (shape, finiteness); Euclidean if None."""
    if integrate is None:
        return euclidean
    if isinstance(integrate, _numerics.Trusted):
        return integrate

    def checked(q, v, dt):
        value = _validate.real_array(integrate(q.copy(), v.copy(), dt), f"{name}(q, v, dt)")
        shape = np.broadcast_shapes(q.shape[:-1], v.shape[:-1]) + (nq,)
        if value.shape != shape:
            raise ValueError(
                f"{name}(q, v, dt): expected shape {shape} (the configuration), got shape "
                f"{value.shape}"
            )
        return value

    return checked


def gravity_vector(model, gravity):
    """The tree's gravity (``gravity=None``) or a validated (3,) acceleration, m/s^2."""
    if gravity is None:
        return model.gravity
    g = _validate.trailing_shape(gravity, "gravity", (3,))
    if g.shape != (3,):
        raise ValueError(f"gravity: expected shape (3,), got shape {g.shape}")
    return g


def bias_function(bias, n, name="system.bias"):
    """``bias(q, v)`` -> (..., n) through the callable contract, ValueError naming ``name``."""
    return lambda q, v: _numerics.evaluate(bias, (q, v), (n,), f"{name}(q, v)")


def potential_function(potential, name="system.potential"):
    """``potential(q)`` -> (...) through the callable contract, ValueError naming ``name``."""
    return lambda q: _numerics.evaluate(potential, (q,), (), f"{name}(q)")


def configuration(q, n=None, name="q"):
    """Validate coordinates or rates of shape (..., n) (any n >= 1 if ``n`` is None)."""
    q = _validate.real_array(q, name)
    if q.ndim == 0 or q.shape[-1] == 0 or (n is not None and q.shape[-1] != n):
        raise ValueError(f"{name}: expected shape (..., {n or 'n'}), got shape {q.shape}")
    return q


def mass_function(M, n, name="M"):
    """``M`` (a callable of q, or a constant (..., n, n) SPD array) as a validated function of q."""
    if callable(M):
        return lambda q: _numerics.evaluate(M, (q,), (n, n), f"{name}(q)")
    matrix = _validate.positive_definite(_validate.trailing_shape(M, name, (n, n)), name)
    return lambda q: matrix


def norm(rows):
    """Euclidean norm over the last axis."""
    return np.sqrt(np.einsum("...i,...i->...", rows, rows))


class CheckedConstraint:
    """A constraint with validated evaluations: Phi (..., c), J_c (..., c, n), Jdot_c v (..., c).

    The number of constraints ``c`` is learnt from the first result (at one point) and
    enforced after; every call goes through the callable contract
    (``geomotion._numerics.evaluate``), so the constraint's functions may be written
    for one point.
    """

    def __init__(self, constraint, n=None):
        for method in ("residual", "jacobian", "acceleration_bias"):
            if not callable(getattr(constraint, method, None)):
                raise TypeError(
                    f"constraint: expected an object with methods residual(q), jacobian(q) "
                    f"and acceleration_bias(q, v), got {type(constraint).__name__} without {method}"
                )
        self._constraint, self._n = constraint, n
        self.c = None

    def columns(self, q):
        """The number of columns n of J_c (velocity space), learnt at q if not given."""
        if self._n is None:
            point = q.reshape(-1, q.shape[-1])[-1]
            J = _validate.real_array(self._constraint.jacobian(point), "constraint.jacobian(q)")
            if J.ndim != 2 or J.shape[1] == 0:
                raise ValueError(
                    f"constraint.jacobian(q): expected shape (c, nv) at one point, got shape "
                    f"{J.shape}"
                )
            self._n = J.shape[1]
        return self._n

    def _checked(self, function, args, label, columns):
        if self.c is None:  # learn c from one point, or from the stack (see below)
            # A package-built (Trusted) function broadcasts by construction and may carry
            # a batch of its own (one parameter set per row): c is its last axis but
            # ``columns`` on the whole stack.
            trusted = isinstance(function, _numerics.Trusted)
            point = args if trusted else [a.reshape(-1, a.shape[-1])[-1] for a in args]
            array = _validate.real_array(function(*point), label)
            lead = array.ndim - 1 - len(columns) if trusted else 0
            if (
                lead < 0
                or array.ndim != lead + 1 + len(columns)
                or array.shape[lead + 1 :] != columns
            ):
                expected = "(c" + "".join(f", {m}" for m in columns) + ")"
                raise ValueError(
                    f"{label}: expected shape {expected} at one point, got shape {array.shape}"
                )
            self.c = array.shape[lead]
        return _numerics.evaluate(function, args, (self.c,) + columns, label)

    def residual(self, q):
        """Phi(q), (..., c), in the constraint's units."""
        return self._checked(self._constraint.residual, (q,), "constraint.residual(q)", ())

    def jacobian(self, q):
        """J_c(q) = dPhi/dq, (..., c, n)."""
        columns = (self.columns(q),)
        return self._checked(self._constraint.jacobian, (q,), "constraint.jacobian(q)", columns)

    def acceleration_bias(self, q, v):
        """gamma = Jdot_c v, (..., c)."""
        return self._checked(
            self._constraint.acceleration_bias, (q, v), "constraint.acceleration_bias(q, v)", ()
        )
