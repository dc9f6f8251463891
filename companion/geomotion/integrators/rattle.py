r"""The RATTLE step: velocity Verlet under holonomic constraints, for a constant mass matrix.

With momenta :math:`p = Mv`, applied force :math:`F(t, q, v)` and
:math:`J_k = J_c(q_k)`, one step of length :math:`\Delta t` is

.. math::
    p_{k+1/2} &= p_k + \tfrac{\Delta t}{2}\left(F_k + J_k^T\lambda_k\right),\qquad
    q_{k+1} = q_k + \Delta t\,M^{-1}p_{k+1/2},\qquad \Phi(q_{k+1}) = 0,\\
    p_{k+1} &= p_{k+1/2} + \tfrac{\Delta t}{2}\left(F_{k+1} + J_{k+1}^T\mu_{k+1}\right),
    \qquad J_{k+1}M^{-1}p_{k+1} = 0 .

Two multipliers per step: :math:`\lambda_k` (reaction of the opening half kick)
places the new position on the constraint, :math:`\mu_{k+1}` (reaction of the closing
half kick) makes the new velocity tangent.  Each alone approximates the exact
multiplier at its end of the step to first order; their mean at one state,
:math:`(\mu_k + \lambda_k)/2`, to second order.

The scheme is second order, and for conservative forces of :math:`q` alone it is
symplectic on the constraint manifold, so its energy error stays bounded (of order
:math:`\Delta t^2`) without drift.  Both properties rest on the constant mass matrix
(no velocity-product forces) and on solving for the multipliers to tolerance; a
configuration-dependent :math:`M` needs another, implicit, scheme.  Forces that
depend on the velocity (damping, feedback) make the closing half kick implicit; it
is solved by fixed-point iteration, which keeps second order but not symplecticity.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._linalg import _constraint_rtol, _ConstraintRows, _spd_solve
from ..errors import ConvergenceError
from ..systems import (
    CheckedConstraint,
    configuration,
    euclidean,
    integrate_function,
    mass_function,
)
from . import _common
from .stabilization import _MAX_ITER, _POSITION_RTOL, iteration_settings, metric_correction

__all__ = ["RattleStep", "rattle_step"]

#: Relative change of the closing-kick force between two fixed-point passes at which
#: the implicit closing half kick counts as converged.
_LOAD_RTOL = 1e-12


@dataclass(frozen=True)
class RattleStep:
    r"""Result of :func:`rattle_step`.

    Attributes
    ----------
    q, v : (..., n) ndarray
        The new configuration (:math:`|\Phi| \le` ``atol``) and tangent rates.
    position_multiplier : (..., c) ndarray
        :math:`\lambda_k`, whose reaction :math:`J_c(q_k)^T\lambda_k` acts in the opening
        half kick (N for a position loop closure).
    velocity_multiplier : (..., c) ndarray
        :math:`\mu_{k+1}`, whose reaction :math:`J_c(q_{k+1})^T\mu_{k+1}` acts in the
        closing half kick.
    """

    q: np.ndarray
    v: np.ndarray
    position_multiplier: np.ndarray
    velocity_multiplier: np.ndarray


def _changed(new, old):
    """True unless ``new`` equals ``old`` to _LOAD_RTOL relative to its largest entry."""
    return np.abs(new - old).max(initial=0.0) > _LOAD_RTOL * np.abs(new).max(initial=0.0)


def _relative_change(new, old):
    return float(np.abs(new - old).max(initial=0.0) / max(np.abs(new).max(initial=0.0), 1e-300))


def step(M, checked, loads_of, t, q, v, loads, dt, tolerance, max_iter, integrate=None):
    """One RATTLE step on validated functions.

    The applied force is the sum of the load channels (..., k, n) of
    ``loads_of(t, q, v)``; ``loads`` are their values at the start.  Returns the
    :class:`RattleStep`, the load channels at its end (the next step's start loads)
    and the acceleration of the opening half kick, :math:`M^{-1}(F_k + J_k^T\\lambda_k)`.

    The position multiplier is sought on the row space of :math:`J_k` (the rank rule of
    :func:`geomotion.constraints.constraint_rank`): the reaction is :math:`V_r\\mu`, and
    Newton's method solves the rotated, row-scaled equations :math:`U_r^TE\\Phi = 0`
    (all of :math:`\\Phi = 0` when redundant rows are consistent), so a redundant set
    gives a square, regular system; :math:`\\lambda_k` is the minimum-norm multiplier of
    that reaction.  ``integrate`` advances q (default Euclidean).
    """
    integrate = integrate or euclidean
    # Opening half kick and drift: q(mu) = q + dt (v + dt/2 (a_free + M^-1 V mu)), with
    # Phi(q(mu)) = 0 solved for the reaction coordinates mu by Newton's method.
    rows = _ConstraintRows(checked.jacobian(q), _constraint_rtol(None))
    Minv_V = _spd_solve(M, rows.basis())  # (..., n, p), zero columns where inactive
    a_free = _spd_solve(M, loads.sum(axis=-2)[..., None])[..., 0]
    mu = np.zeros(np.broadcast_shapes(q.shape[:-1], rows.s.shape[:-1]) + (rows.p,))

    def drift(mu):
        a = a_free + np.einsum("...ij,...j->...i", Minv_V, mu)
        return integrate(q, v + 0.5 * dt * a, dt), a

    q_next, a_open = drift(mu)
    for iteration in range(max_iter + 1):
        Phi = checked.residual(q_next)
        J_next = checked.jacobian(q_next)
        each = tolerance.violations(Phi, q_next, J_next)
        violation = float(np.max(each, initial=0.0))
        if violation <= tolerance.tolerance:
            break
        if iteration == max_iter:
            raise ConvergenceError(
                f"RATTLE position multiplier (Newton on Phi(q_k+1) = 0, "
                f"{tolerance.units}) in the step from t = {t:.6g} s with dt = {dt:.6g} s",
                residual=violation,
                tolerance=tolerance.tolerance,
                iterations=max_iter,
                suggestion="a smaller step dt, a larger max_iter or a larger tolerance",
            )
        if rows.p == 0:
            break
        dPhi_dmu = (
            0.5
            * dt**2
            * rows.mask(np.swapaxes(rows.U, -1, -2) @ (rows.E[..., None] * J_next) @ Minv_V)
        )
        step_mu = np.linalg.solve(dPhi_dmu, rows.rotate(Phi[..., None]))[..., 0]
        # an element within the tolerance keeps its multiplier: its answer does not depend
        # on how long the rest of its batch needs
        mu = mu - np.where((each <= tolerance.tolerance)[..., None], 0.0, step_mu)
        q_next, a_open = drift(mu)
    lam = rows.multiplier(mu[..., None])[..., 0]
    v_half = v + 0.5 * dt * a_open

    # Closing half kick; the velocity multiplier makes the result tangent.  With loads
    # that depend on v it is implicit: iterate until the loads stop changing (for loads
    # independent of v the second evaluation confirms the first).
    J_next = checked.jacobian(q_next)
    v_next, used, impulse, change = v_half, None, None, np.inf
    for _ in range(max_iter + 1):
        loads_next = loads_of(t + dt, q_next, v_next)
        if used is not None and not _changed(loads_next, used):
            return RattleStep(q_next, v_next, lam, 2 * impulse / dt), loads_next, a_open
        if used is not None:
            change = _relative_change(loads_next, used)
        v_kick = v_half + 0.5 * dt * _spd_solve(M, loads_next.sum(axis=-2)[..., None])[..., 0]
        correction, impulse = metric_correction(
            M, J_next, -np.einsum("...ij,...j->...i", J_next, v_kick)
        )
        v_next, used = v_kick + correction, loads_next
    raise ConvergenceError(
        f"RATTLE closing half kick (fixed point of the velocity-dependent loads, relative "
        f"change between passes) in the step from t = {t:.6g} s with dt = {dt:.6g} s",
        residual=change,
        tolerance=_LOAD_RTOL,
        iterations=max_iter,
        suggestion="a smaller step dt or a larger max_iter",
    )


def rattle_step(
    M,
    constraint,
    q,
    v,
    tau,
    dt,
    *,
    t=0.0,
    atol=None,
    rtol=_POSITION_RTOL,
    length_scale=None,
    max_iter=_MAX_ITER,
    integrate=None,
):
    r"""One RATTLE step for a constant mass matrix (see the module documentation).

    The position multiplier is found by Newton's method on
    :math:`\Phi(q_{k+1}(\lambda_k)) = 0` to ``atol``; the velocity multiplier by a linear
    solve (iterated when ``tau`` depends on the velocity).

    Parameters
    ----------
    M : (..., n, n) array_like
        Constant symmetric positive definite mass matrix (a callable is refused:
        the step is only valid for :math:`M` independent of :math:`q`).
    constraint : constraint object
        With ``residual(q)``, ``jacobian(q)`` and ``acceleration_bias(q, v)``.
    q, v : (..., n) array_like
        A consistent state: :math:`\Phi(q) = 0`, :math:`J_c(q)v = 0`.
    tau : None, (..., n) array_like, or callable
        Applied generalized load :math:`\tau` without the constraint reaction
        (conservative, input and dissipative loads together), N or N m by coordinate:
        constant or ``tau(t, q, v)``.
    dt : float
        Step in s, positive.
    t : float, optional
        Time of the state ``(q, v)`` in s; default 0.
    atol : float, optional
        Absolute tolerance on :math:`|\Phi(q_{k+1})|`, in the constraint's units (m for
        a loop closure); default None: the relative rule of ``rtol``.
    rtol : float, optional
        Relative tolerance of the default rule (see
        :func:`~geomotion.integrators.project_position`): every row's
        :math:`|\Phi_i|/(|\nabla\Phi_i|\,\ell)` at most ``rtol``; default 1e-12.
    length_scale : float, optional
        :math:`\ell` of that rule, in the units of q; default :math:`\max(1, \max_j|q_j|)`
        at the start ``q``.
    max_iter : int, optional
        Iterations allowed for each solve; default 20.
    integrate : callable, optional
        ``integrate(q, v, dt)`` -> q, the drift :math:`q_{k+1} = q_k \oplus
        \Delta t\,v_{k+1/2}` (see :class:`~geomotion.integrators.MechanicalSystem`);
        default ``q + dt v``.

    Returns
    -------
    RattleStep
        The new state and both multipliers.

    Raises
    ------
    geomotion.errors.ConvergenceError
        If the Newton solve for the position multiplier does not reach ``atol``, or the
        implicit closing half kick does not settle, within ``max_iter`` iterations.
    ValueError
        If ``M`` is a callable or not a constant SPD matrix of matching size, or an
        argument is malformed.

    Examples
    --------
    One 10 ms step of a pendulum, a 2 kg particle on the unit circle under gravity, from
    the bottom at 1 m/s: it stays on the circle, tangent to it, and the multiplier is
    close to :math:`-(mg + mv^2/R)` = -21.62 N.

    >>> import numpy as np
    >>> from geomotion import constraints, integrators
    >>> circle = constraints.FunctionConstraint(  # Phi = (|q|^2 - 1) / 2: the unit circle
    ...     residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - 1.0),
    ...     jacobian=lambda q: q[..., None, :], acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True))
    >>> step = integrators.rattle_step(2.0 * np.eye(2), circle, [0.0, -1.0], [1.0, 0.0],
    ...                               tau=[0.0, -2.0 * 9.81], dt=0.01)
    >>> float(np.linalg.norm(step.q).round(9)), bool(abs(step.q @ step.v) < 1e-12)
    (1.0, True)
    >>> float(step.position_multiplier[0].round(2))
    -21.62
    """
    dt, _ = _common.step_settings(dt, 1)
    tolerance, max_iter = iteration_settings(atol, max_iter, rtol=rtol, length_scale=length_scale)
    if callable(M):
        raise ValueError(
            "M: expected a constant (..., n, n) mass matrix, got a callable; "
            "RATTLE in this form needs M independent of q"
        )
    if integrate is not None and not callable(integrate):
        raise TypeError(f"integrate: expected None or a callable, got {type(integrate).__name__}")
    q = configuration(q)
    nq = q.shape[-1]
    v = configuration(v, nq if integrate is None else None, "v")
    n = v.shape[-1]
    M = mass_function(M, n)(q)
    tau_of, batch = _common.load_function(tau, "tau", n, "tau(t, q, v)")
    q, v = _common.initial_state(q, v, n, ("q", "v"), batch, nq=nq)
    t = _validate.real_array(t, "t")
    if t.ndim:
        raise ValueError(f"t: expected a scalar time in s, got shape {t.shape}")

    def loads_of(time, position, rate):
        return tau_of(time, position, rate)[..., None, :]

    checked = CheckedConstraint(constraint, n)
    start = loads_of(float(t), q, v)
    advance = integrate_function(integrate, nq, "integrate")
    return step(
        M, checked, loads_of, float(t), q, v, start, dt, tolerance.at(q), max_iter, advance
    )[0]
