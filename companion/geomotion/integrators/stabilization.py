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

from .. import _validate, constraints
from ..errors import ConvergenceError
from ..systems import CheckedConstraint, configuration, mass_function, norm

__all__ = [
    "baumgarte_bias",
    "project_position",
    "project_velocity",
]

#: Default ``atol`` on the constraint residual norm :math:`|\Phi|` reached by the
#: Newton solves of :func:`project_position` and :func:`rattle_step`, in the units of
#: the constraint (m for loop closures).
_POSITION_ATOL = 1e-12

#: Default ``max_iter`` of those solves.
_MAX_ITER = 20


def gain(value, name):
    """A non-negative scalar gain in 1/s."""
    array = _validate.nonnegative(value, name)
    if array.ndim:
        raise ValueError(f"{name}: expected a scalar gain in 1/s, got shape {array.shape}")
    return float(array)


def iteration_settings(atol, max_iter):
    """Validate a positive absolute tolerance and an iteration limit >= 1."""
    tol_array = _validate.positive(atol, "atol")
    if tol_array.ndim:
        raise ValueError(f"atol: expected a positive scalar, got shape {tol_array.shape}")
    max_iter = _validate.count(max_iter, "max_iter")
    return float(tol_array), int(max_iter)


def metric_correction(M, J, r):
    r"""The smallest step in the kinetic metric that changes :math:`J\delta` by ``r``.

    :math:`\delta = M^{-1}J^T\Lambda`, :math:`\Lambda = (JM^{-1}J^T)^{-1}r`: the motion a
    pure constraint reaction produces, i.e. ``constrained_dynamics`` with no applied
    or bias load and :math:`\gamma = -r`.  Returns ``(delta, Lambda)``.
    """
    batch = np.broadcast_shapes(M.shape[:-2], J.shape[:-2], r.shape[:-1])
    zero = np.zeros(batch + M.shape[-1:])
    result = constraints.constrained_dynamics(M, J, zero, -r, zero)
    return result.a, result.multiplier


def stabilized(checked, q, v, J, gamma, alpha, beta):
    """gamma + 2 alpha J v + beta^2 Phi, with J and gamma already evaluated at (q, v)."""
    return gamma + 2 * alpha * np.einsum("...ij,...j->...i", J, v) + beta**2 * checked.residual(q)


def baumgarte_bias(constraint, q, v, *, alpha, beta):
    r"""Stabilized bias :math:`\gamma + 2\alpha J_cv + \beta^2\Phi` of Baumgarte's method.

    Used in place of :math:`\gamma = \dot J_cv` in the acceleration equation,

    .. math:: J_c\dot v + \gamma + 2\alpha J_cv + \beta^2\Phi = 0,

    it turns the violation into a damped oscillator: in exact arithmetic
    :math:`\ddot\Phi + 2\alpha\dot\Phi + \beta^2\Phi = 0`, so an initial violation
    decays (critically damped for :math:`\alpha = \beta`, underdamped for
    :math:`\alpha < \beta`) instead of drifting.  Pass the result as ``gamma`` to
    ``geomotion.constraints.constrained_dynamics``.

    The price: the gains have units of 1/s and set decay rates, and rates much
    faster than the motion make the equations stiff, so an explicit integrator then
    needs a step well below :math:`1/\alpha` and :math:`1/\beta`; constraints of
    different units or scales need comparable scaling, since one pair of gains acts
    on all rows; and the correction acts through reaction forces that do work
    whenever :math:`J_cv \ne 0`, so energy is not conserved exactly even by a lossless
    model (check with a time-step study).

    Parameters
    ----------
    constraint : constraint object
        With ``residual(q)``, ``jacobian(q)`` and ``acceleration_bias(q, v)``.
    q, v : (..., n) array_like
        Coordinates and rates.
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
    v = configuration(v, q.shape[-1], "v")
    checked = CheckedConstraint(constraint, q.shape[-1])
    return stabilized(
        checked, q, v, checked.jacobian(q), checked.acceleration_bias(q, v), alpha, beta
    )


def newton_projection(mass_of, checked, q, atol, max_iter, suggestion=None):
    """The iteration of :func:`project_position` on validated functions."""
    for iteration in range(max_iter + 1):
        Phi = checked.residual(q)
        violation = float(norm(Phi).max(initial=0.0))
        if violation <= atol:
            return q
        if iteration == max_iter:
            break
        q = q - metric_correction(mass_of(q), checked.jacobian(q), Phi)[0]
    raise ConvergenceError(
        "Newton projection of q onto Phi(q) = 0 (|Phi|, constraint units)",
        residual=violation,
        tolerance=atol,
        iterations=max_iter,
        suggestion=suggestion
        or "a start closer to the constraint, a larger max_iter or a larger atol",
    )


def project_position(M, constraint, q, *, atol=_POSITION_ATOL, max_iter=_MAX_ITER):
    r"""Pull a configuration onto :math:`\Phi(q) = 0` by Newton steps in the kinetic metric.

    .. math:: q^{j+1} = q^j - M(q^j)^{-1}J_c(q^j)^T
              \left[J_c(q^j)M(q^j)^{-1}J_c(q^j)^T\right]^{-1}\Phi(q^j)

    Each step is the smallest correction, measured by kinetic energy, that removes
    the linearized violation; the iteration converges quadratically from a start
    close enough to the constraint (e.g. the prediction of one integration step)
    and stops when every :math:`|\Phi| \le` ``atol``.

    Parameters
    ----------
    M : callable or (..., n, n) array_like
        Mass matrix :math:`M(q)` as a function of ``q``, or a constant SPD matrix.
    constraint : constraint object
        With ``residual(q)``, ``jacobian(q)`` and ``acceleration_bias(q, v)``.
    q : (..., n) array_like
        Start configuration(s).
    atol : float, optional
        Absolute tolerance on the Euclidean norm of :math:`\Phi`, in the constraint's
        units (m for a loop closure); default 1e-12.
    max_iter : int, optional
        Newton steps allowed; default 20.

    Returns
    -------
    (..., n) ndarray
        Configuration(s) with :math:`|\Phi| \le` ``atol``.

    Raises
    ------
    geomotion.errors.ConvergenceError
        If the iteration does not reach ``atol`` in ``max_iter`` steps (it carries the
        residual reached).
    TypeError
        For a constraint without the protocol methods.
    ValueError
        If :math:`M` is not symmetric positive definite, :math:`J_c` loses rank, or an
        argument is malformed.

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
    atol, max_iter = iteration_settings(atol, max_iter)
    q = configuration(q)
    n = q.shape[-1]
    return newton_projection(
        mass_function(M, n), CheckedConstraint(constraint, n), q, atol, max_iter
    )


def project_velocity(M, J_c, v):
    r"""Project rates onto the constraint's tangent space along the kinetic metric.

    .. math:: v^+ = P_vv,\qquad P_v = I - M^{-1}J_c^T(J_cM^{-1}J_c^T)^{-1}J_c

    :math:`v^+` satisfies :math:`J_cv^+ = 0` and is the admissible velocity closest to
    :math:`v` in kinetic energy (the removed part is :math:`M`-orthogonal to every
    tangent vector): the velocity after an impulsive constraint reaction.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite mass matrix at the (already corrected) configuration.
    J_c : (..., c, n) array_like
        Constraint Jacobian there, full row rank.
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
