r"""Keeping a numerical solution on its constraint: Baumgarte stabilization and projection.

Integrating the acceleration equation :math:`J_c\dot v + \gamma = 0` enforces only
the second derivative of :math:`\Phi(q) = 0`; truncation and round-off errors in
:math:`\Phi` and :math:`J_cv` are never corrected and grow.  Two remedies:

* :func:`baumgarte_bias` feeds the violation back into the acceleration equation, so
  that it decays like a damped oscillator;
* :func:`project_position` and :func:`project_velocity` move a predicted state back
  onto :math:`\Phi = 0` and :math:`J_cv = 0` after each step, along the directions
  the kinetic metric calls normal (those of the constraint reactions,
  :math:`\operatorname{range}M^{-1}J_c^T`).

Neither is a symplectic method: that needs a scheme built around the constraint
(:func:`rattle_step`).
"""

import numpy as np

from .. import _validate
from .._linalg import _RANK_RTOL, _constrained_solve, _constraint_rank, _constraint_rtol
from ..errors import ConvergenceError
from ..systems import (
    CheckedConstraint,
    configuration,
    euclidean,
    integrate_function,
    mass_function,
    norm,
)

__all__ = [
    "baumgarte_bias",
    "project_position",
    "project_velocity",
]

#: Default ``rtol`` of the Newton solves of :func:`project_position`, :func:`rattle_step`
#: and :func:`simulate_constrained`: the first-order distance to each constraint surface,
#: :math:`|\Phi_i|/|\nabla\Phi_i|`, relative to the length scale (see :class:`Tolerance`).
_POSITION_RTOL = 1e-12

#: Default ``max_iter`` of those solves.
_MAX_ITER = 20

#: Fraction of the violation a Newton step must be able to remove (to first order);
#: below it the violation lies outside the range of the Jacobian and no step helps.
_PROGRESS = 1e-3

#: The stability limit of the classical Runge-Kutta method on the negative real axis:
#: the root of :math:`|1 + z + z^2/2 + z^3/6 + z^4/24| = 1` there.
_RK4_REAL_LIMIT = 2.785293563405282


def gain(value, name):
    """A non-negative scalar gain in 1/s."""
    array = _validate.nonnegative(value, name)
    if array.ndim:
        raise ValueError(f"{name}: expected a scalar gain in 1/s, got shape {array.shape}")
    return float(array)


def _scalar(value, name, check):
    array = check(value, name)
    if array.ndim:
        raise ValueError(f"{name}: expected a positive scalar, got shape {array.shape}")
    return float(array)


class Tolerance:
    r"""When a configuration counts as on the constraint :math:`\Phi(q) = 0`.

    With ``atol`` (absolute, in the constraint's own units): :math:`|\Phi(q)| \le`
    ``atol`` (Euclidean norm over the rows), the residual reported as :math:`|\Phi|`.

    Without it (the default), relative to a length scale: row :math:`i` is satisfied
    when the first-order distance from :math:`q` to its surface :math:`\Phi_i = 0`,
    measured in the units of the coordinates, is small against the scale :math:`\ell`,

    .. math:: \frac{|\Phi_i(q)|}{|\nabla\Phi_i(q)|} \le \texttt{rtol}\;\ell,
              \qquad \ell = \texttt{length\_scale}\ \text{or}\ \max(1, \max_j|q_{0,j}|),

    and the residual reported is the largest ratio
    :math:`|\Phi_i|/(|\nabla\Phi_i|\,\ell)` (dimensionless).  The gradient
    :math:`\nabla\Phi_i` (row :math:`i` of :math:`J_c`) carries the constraint's own
    length: for a loop closure of revolute joints it is a lever arm in m/rad, so the
    test reads "the loop is closed to rtol times the link lengths", whatever the units
    and the size of the mechanism (a 0.1 mm and a 10 km four-bar behave alike).  The
    default :math:`\ell` is taken once, from the starting configuration :math:`q_0` of
    the solve or of the run (so that joint angles that wind up over many turns do not
    loosen it): about 1 for joint angles (rad), the size of the positions for
    Cartesian coordinates.  A row whose gradient the rank rule of
    :func:`geomotion.constraints.constraint_rank` counts as zero (identically zero, or
    zero up to rounding, as the out-of-plane row of a planar loop) is measured with the
    longest row's gradient.
    """

    def __init__(self, atol, rtol, length_scale):
        self.atol = None if atol is None else _scalar(atol, "atol", _validate.positive)
        self.rtol = _scalar(rtol, "rtol", _validate.positive)
        self.length_scale = (
            None
            if length_scale is None
            else _scalar(length_scale, "length_scale", _validate.positive)
        )

    @property
    def tolerance(self):
        """The bound on :meth:`residual`: ``atol`` or ``rtol``."""
        return self.rtol if self.atol is None else self.atol

    @property
    def units(self):
        """What :meth:`residual` measures, for messages."""
        if self.atol is not None:
            return "|Phi| in constraint units"
        return "largest |Phi_i| / (|grad Phi_i| length_scale), dimensionless"

    def at(self, q0):
        """This tolerance with the default length scale fixed from the start q0 (..., nq)."""
        if self.atol is not None or self.length_scale is not None:
            return self
        fixed = Tolerance(None, self.rtol, None)
        fixed.length_scale = np.maximum(1.0, np.abs(q0).max(axis=-1, initial=0.0))
        return fixed

    def scale(self, q):
        """The length scale (...) at configurations q (..., nq)."""
        if self.length_scale is not None:
            return np.broadcast_to(self.length_scale, q.shape[:-1])
        return np.maximum(1.0, np.abs(q).max(axis=-1, initial=0.0))

    def row_bounds(self, q, J):
        """Per-row bounds (..., c) on |Phi_i| in constraint units (relative rule only)."""
        lengths = np.sqrt(np.einsum("...ij,...ij->...i", J, J))
        longest = lengths.max(axis=-1, keepdims=True, initial=0.0)
        # a row the rank rule counts as zero has no gradient of its own to measure by
        lengths = np.where(lengths > _RANK_RTOL * longest, lengths, longest)
        return self.rtol * lengths * self.scale(q)[..., None]

    def violations(self, Phi, q, J):
        """The measured violation of each element of the batch (...), in the units of tolerance."""
        if self.atol is not None:
            return norm(Phi)
        bounds = self.row_bounds(q, J)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(bounds > 0, np.abs(Phi) / bounds, np.where(Phi == 0, 0.0, np.inf))
        return ratio.max(axis=-1, initial=0.0) * self.rtol

    def residual(self, Phi, q, J):
        """The measured violation (a float, worst of the batch), in the units of tolerance."""
        return float(np.max(self.violations(Phi, q, J), initial=0.0))

    def floor(self, q, J):
        """A bound on |Phi| (constraint units) that the tolerance guarantees, for studies."""
        if self.atol is not None:
            return self.atol
        return float(norm(self.row_bounds(q, J)).max(initial=0.0))


def iteration_settings(atol, max_iter, *, rtol=_POSITION_RTOL, length_scale=None):
    """Validate the tolerance of the Newton solves and an iteration limit >= 1."""
    tolerance = Tolerance(atol, rtol, length_scale)
    return tolerance, int(_validate.count(max_iter, "max_iter"))


def metric_correction(M, J, r):
    r"""The smallest step in the kinetic metric that changes :math:`J\delta` by ``r``.

    :math:`\delta = M^{-1}J^T\Lambda`, :math:`\Lambda = (JM^{-1}J^T)^+r`: the motion a
    pure constraint reaction produces, i.e. ``constrained_dynamics`` with no applied
    or bias load and :math:`\gamma = -r`, in its least-squares form: with redundant
    rows, :math:`\Lambda` is the minimum-norm multiplier, and a part of ``r`` outside
    the range of :math:`J` (a violation no step can remove to first order) is left
    alone.  Returns ``(delta, Lambda)`` with ``delta`` in velocity space (..., nv).
    """
    batch = np.broadcast_shapes(M.shape[:-2], J.shape[:-2], r.shape[:-1])
    zero = np.zeros(batch + M.shape[-1:] + (1,))
    a, multiplier, _ = _constrained_solve(
        M, J, zero, -r[..., None], _constraint_rtol(None), check_range=False
    )
    return a[..., 0], multiplier[..., 0]


def stabilized(checked, q, v, J, gamma, alpha, beta):
    """gamma + 2 alpha J v + beta^2 Phi, with J and gamma already evaluated at (q, v)."""
    return gamma + 2 * alpha * np.einsum("...ij,...j->...i", J, v) + beta**2 * checked.residual(q)


def rk4_amplification(z):
    """|R(z)| of the classical Runge-Kutta method, R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24."""
    z = np.asarray(z, dtype=complex)
    return np.abs(1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24)


def baumgarte_modes(alpha, beta, dt):
    r""":math:`z = \Delta t\,(-\alpha \pm \sqrt{\alpha^2 - \beta^2})`, the violation's modes."""
    root = np.sqrt(complex(alpha**2 - beta**2))
    return dt * np.array([-alpha + root, -alpha - root])


def check_baumgarte_step(alpha, beta, dt):
    """ValueError naming alpha, beta and dt when RK4 would amplify the violation's modes."""
    z = baumgarte_modes(alpha, beta, dt)
    growth = rk4_amplification(z)
    if np.all(growth <= 1.0 + 1e-12):
        return
    raise ValueError(
        f"alpha, beta: expected gains inside the stability region of the RK4 step "
        f"(|R(z)| <= 1 for z = dt (-alpha +- sqrt(alpha^2 - beta^2))), got alpha dt = "
        f"{alpha * dt:.4g}, beta dt = {beta * dt:.4g} at dt = {dt:.6g} s, where the "
        f"violation is amplified by {float(growth.max()):.4g} per step; the limits are "
        f"alpha dt <= {_RK4_REAL_LIMIT:.4f} for alpha = beta (critical damping), "
        f"beta dt <= 2 sqrt(2) = 2.8284 for alpha = 0, and about 2 alpha dt <= "
        f"{_RK4_REAL_LIMIT:.4f} for alpha >> beta: lower the gains or the step dt"
    )


def baumgarte_bias(constraint, q, v, *, alpha, beta):
    r"""Stabilized bias :math:`\gamma + 2\alpha J_cv + \beta^2\Phi` of Baumgarte's method.

    Used in place of :math:`\gamma = \dot J_cv` in the acceleration equation,

    .. math:: J_c\dot v + \gamma + 2\alpha J_cv + \beta^2\Phi = 0,

    it turns the violation into a damped oscillator: in exact arithmetic
    :math:`\ddot\Phi + 2\alpha\dot\Phi + \beta^2\Phi = 0`, so an initial violation
    decays (critically damped for :math:`\alpha = \beta`, underdamped for
    :math:`\alpha < \beta`) instead of drifting.  Pass the result as ``gamma`` to
    ``geomotion.constraints.constrained_dynamics``.  Equations :eq:`eq-ch2-baumgarte` and
    :eq:`eq-ch2-baumgarte-violation`.

    The price: the gains have units of 1/s and set decay rates, and rates much
    faster than the motion make the equations stiff, so an explicit integrator then
    needs a step below about :math:`1/\alpha` and :math:`1/\beta`.  For the classical
    Runge-Kutta step of ``simulate_constrained(method="baumgarte")`` the limit is exact:
    each mode :math:`e^{\lambda t}` of the violation,
    :math:`\lambda = -\alpha \pm \sqrt{\alpha^2 - \beta^2}`, is multiplied per step by
    :math:`R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24`, :math:`z = \lambda\Delta t`, so the
    violation decays only if :math:`|R(z)| \le 1` for both modes.  On the real axis that
    is :math:`z \ge -2.7853` (critical damping :math:`\alpha = \beta`:
    :math:`\alpha\Delta t \le 2.7853`; strong damping :math:`\alpha \gg \beta`:
    :math:`2\alpha\Delta t \lesssim 2.7853`), on the imaginary axis
    :math:`|z| \le 2\sqrt2` (no damping: :math:`\beta\Delta t \le 2.8284`);
    ``simulate_constrained`` refuses gains past it with a ValueError.  The limit is that
    of the linearized violation (the stages evaluate :math:`\Phi` at predicted
    configurations, exact only to first order), so it is necessary, and sufficient for
    small violations; near it a large violation can still grow through the curvature
    of the constraint (a four-bar started 1e-3 rad off its loop diverges at 99 % of the
    limit and decays at 50 %): stay well inside it.  Constraints of
    different units or scales need comparable scaling, since one pair of gains acts
    on all rows; and the correction acts through reaction forces that do work
    whenever :math:`J_cv \ne 0`, so energy is not conserved exactly even by a lossless
    model (check with a time-step study).

    Parameters
    ----------
    constraint : constraint object
        With ``residual(q)``, ``jacobian(q)`` and ``acceleration_bias(q, v)``.
    q : (..., nq) array_like
        Coordinates (a tree's with ball or free-flyer joints hold quaternions).
    v : (..., nv) array_like
        Rates, one per column of the constraint's Jacobian.
    alpha, beta : float
        Non-negative gains in 1/s (keyword-only, required).

    Returns
    -------
    (..., c) ndarray
        The stabilized bias, in the constraint's units per s^2.

    Raises
    ------
    TypeError
        For a constraint without the protocol methods.
    ValueError
        For a negative or non-scalar gain, non-finite or mismatched ``q``/``v``, or a
        constraint with malformed results.

    Examples
    --------
    On the unit circle :math:`\Phi = (|q|^2 - 1)/2`, :math:`\gamma = |v|^2`.  At
    q = (1.1, 0), off the circle by :math:`\Phi` = 0.105, moving along it at 1 m/s
    (:math:`J_cv = 0`) with :math:`\beta` = 10 1/s: 1 + 0 + 100 x 0.105 = 11.5 m^2/s^2.

    >>> from geomotion import constraints, integrators
    >>> circle = constraints.FunctionConstraint(  # Phi = (|q|^2 - 1) / 2: the unit circle
    ...     residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - 1.0),
    ...     jacobian=lambda q: q[..., None, :], acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True))
    >>> integrators.baumgarte_bias(circle, [1.1, 0.0], [0.0, 1.0], alpha=10.0, beta=10.0).round(9)
    array([11.5])
    """
    alpha, beta = gain(alpha, "alpha"), gain(beta, "beta")
    q = configuration(q)
    checked = CheckedConstraint(constraint)  # v has the Jacobian's columns: nv, not nq
    v = configuration(v, checked.columns(q), "v")
    return stabilized(
        checked, q, v, checked.jacobian(q), checked.acceleration_bias(q, v), alpha, beta
    )


def newton_projection(mass_of, checked, q, tolerance, max_iter, suggestion=None, integrate=None):
    """The iteration of :func:`project_position` on validated functions.

    Each step is taken in velocity space and applied through ``integrate(q, dv, 1.0)``
    (default Euclidean ``q + dv``).  A ValueError about ``J_c`` when the violation lies
    outside the range of the Jacobian, so that no step can reduce it.
    """
    integrate = integrate or euclidean
    for iteration in range(max_iter + 1):
        Phi = checked.residual(q)
        J = checked.jacobian(q)
        each = tolerance.violations(Phi, q, J)
        violation = float(np.max(each, initial=0.0))
        if violation <= tolerance.tolerance:
            return q
        if iteration == max_iter:
            break
        delta = metric_correction(mass_of(q), J, Phi)[0]
        # An element within the tolerance takes no further step: its answer does not depend
        # on how long the rest of its batch needs.
        delta = np.where((each <= tolerance.tolerance)[..., None], 0.0, delta)
        removed = norm(np.einsum("...ij,...j->...i", J, delta))
        stuck = (removed <= _PROGRESS * norm(Phi)) & (each > tolerance.tolerance)
        if np.any(stuck):
            index = np.unravel_index(np.argmax(stuck), stuck.shape) if stuck.ndim else ()
            where = f" at batch index {tuple(int(i) for i in index)}" if index else ""
            rank = int(_constraint_rank(J[index], _constraint_rtol(None)))
            raise ValueError(
                f"J_c: expected a constraint Jacobian whose range contains Phi(q), got one "
                f"(rank {rank} of {J.shape[-2]} rows{where}) along which a Newton step removes "
                f"{float(removed[index]):.3g} of |Phi| = {float(norm(Phi)[index]):.3g}: q is at a "
                "singular configuration of the constraint, where projection cannot proceed"
            )
        q = integrate(q, -delta, 1.0)
    raise ConvergenceError(
        f"Newton projection of q onto Phi(q) = 0 ({tolerance.units})",
        residual=violation,
        tolerance=tolerance.tolerance,
        iterations=max_iter,
        suggestion=suggestion
        or "a start closer to the constraint, a larger max_iter or a larger tolerance",
    )


def project_position(
    M,
    constraint,
    q,
    *,
    atol=None,
    rtol=_POSITION_RTOL,
    length_scale=None,
    max_iter=_MAX_ITER,
    integrate=None,
):
    r"""Pull a configuration onto :math:`\Phi(q) = 0` by Newton steps in the kinetic metric.

    .. math:: q^{j+1} = q^j \oplus \left(-M(q^j)^{-1}J_c(q^j)^T
              \left[J_c(q^j)M(q^j)^{-1}J_c(q^j)^T\right]^{+}\Phi(q^j)\right)

    Each step is the smallest correction, measured by kinetic energy, that removes
    the linearized violation (redundant rows are fine: the pseudo-inverse follows the
    rank rule of :func:`geomotion.constraints.constraint_rank`); the iteration
    converges quadratically from a start close enough to the constraint (e.g. the
    prediction of one integration step).  The step is a velocity-space increment
    applied by ``integrate`` (:math:`q \oplus \delta`; ``q + delta`` by default).
    Equation :eq:`eq-ch2-newton-projection`.

    When to stop: by default relative to a length scale, so that the same mechanism
    converges alike at any size: every row's first-order distance to its surface,
    :math:`|\Phi_i|/|\nabla\Phi_i|`, at most ``rtol`` times :math:`\ell` =
    ``length_scale`` (default :math:`\max(1, \max_j|q_j|)` of the start, in the units of
    q: about 1 rad for joint angles).  For a loop closure of revolute joints :math:`|\nabla\Phi_i|` is
    a lever arm, so this closes the loop to ``rtol`` times the link lengths.  Or, with
    ``atol``, absolutely: :math:`|\Phi| \le` ``atol`` in the constraint's units.

    Parameters
    ----------
    M : callable or (..., n, n) array_like
        Mass matrix :math:`M(q)` as a function of ``q``, or a constant SPD matrix.
    constraint : constraint object
        With ``residual(q)``, ``jacobian(q)`` and ``acceleration_bias(q, v)``.
    q : (..., nq) array_like
        Start configuration(s).
    atol : float, optional
        Absolute tolerance on the Euclidean norm of :math:`\Phi`, in the constraint's
        units (m for a loop closure); default None: use the relative rule.
    rtol : float, optional
        Relative tolerance (dimensionless) of the default rule, on
        :math:`|\Phi_i|/(|\nabla\Phi_i|\,\ell)`; default 1e-12.
    length_scale : float, optional
        :math:`\ell` of the relative rule, in the units of the coordinates; default
        None: :math:`\max(1, \max_j|q_j|)` of the start configuration ``q``.
    max_iter : int, optional
        Newton steps allowed; default 20.
    integrate : callable, optional
        ``integrate(q, dv, dt)`` -> q: the configuration reached from ``q`` by the
        velocity ``dv`` (..., n) held for ``dt`` (see
        :class:`~geomotion.integrators.MechanicalSystem`); default ``q + dt dv``.

    Returns
    -------
    (..., nq) ndarray
        Configuration(s) within the tolerance.

    Raises
    ------
    geomotion.errors.ConvergenceError
        If the iteration does not reach the tolerance in ``max_iter`` steps (it carries
        the residual reached, in the units of the tolerance).
    TypeError
        For a constraint without the protocol methods.
    ValueError
        If :math:`M` is not symmetric positive definite, a tolerance is not positive,
        the violation lies outside the range of :math:`J_c` (a singular configuration,
        where no step reduces it: the message says ``J_c``), or an argument is
        malformed.

    Examples
    --------
    With :math:`M = mI` the kinetic metric is Euclidean, so a point off the unit circle
    is pulled back radially:

    >>> import numpy as np
    >>> from geomotion import constraints, integrators
    >>> circle = constraints.FunctionConstraint(  # Phi = (|q|^2 - 1) / 2: the unit circle
    ...     residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - 1.0),
    ...     jacobian=lambda q: q[..., None, :], acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True))
    >>> integrators.project_position(2.0 * np.eye(2), circle, [0.66, 0.88]).round(9)
    array([0.6, 0.8])
    """
    tolerance, max_iter = iteration_settings(atol, max_iter, rtol=rtol, length_scale=length_scale)
    q = configuration(q)
    if integrate is not None and not callable(integrate):
        raise TypeError(f"integrate: expected None or a callable, got {type(integrate).__name__}")
    checked = CheckedConstraint(constraint, None if integrate else q.shape[-1])
    n = checked.columns(q)
    step = integrate_function(integrate, q.shape[-1], "integrate")
    return newton_projection(
        mass_function(M, n), checked, q, tolerance.at(q), max_iter, integrate=step
    )


def project_velocity(M, J_c, v):
    r"""Project rates onto the constraint's tangent space along the kinetic metric.

    .. math:: v^+ = P_vv,\qquad P_v = I - M^{-1}J_c^T(J_cM^{-1}J_c^T)^{-1}J_c

    :math:`v^+` satisfies :math:`J_cv^+ = 0` and is the admissible velocity closest to
    :math:`v` in kinetic energy (the removed part is :math:`M`-orthogonal to every
    tangent vector): the velocity after an impulsive constraint reaction.  :math:`P_v` is
    the projector of equation :eq:`eq-ch2-projectors`.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite mass matrix at the (already corrected) configuration.
    J_c : (..., c, n) array_like
        Constraint Jacobian there, of any rank (redundant rows change nothing).
    v : (..., n) array_like
        Predicted rates.

    Returns
    -------
    (..., n) ndarray
        :math:`v^+`, in the units of ``v``.

    Raises
    ------
    ValueError
        As ``constraints.constrained_dynamics`` for ``M`` and ``J_c``; for malformed ``v``.

    Examples
    --------
    On the unit circle at (1, 0), where :math:`J_c = q^T = (1, 0)`, with :math:`M = mI`:
    the radial 0.3 m/s is removed, the tangential 2 m/s kept.

    >>> import numpy as np
    >>> from geomotion import integrators
    >>> integrators.project_velocity(2.0 * np.eye(2), [[1.0, 0.0]], [0.3, 2.0]).round(12)
    array([0., 2.])
    """
    J = _validate.matrix(J_c, "J_c")
    v = configuration(v, J.shape[-1], "v")
    return (
        v - metric_correction(_validate.matrix(M, "M"), J, np.einsum("...ij,...j->...i", J, v))[0]
    )
