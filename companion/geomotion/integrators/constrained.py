r"""Whole trajectories of constrained systems, with residual and energy reports.

:func:`simulate_constrained` integrates

.. math:: M(q)\dot v + h(q, v) = Bu + \tau_{other} - B_dv + J_c^T\lambda,\qquad \Phi(q) = 0,

by one of three methods:

* ``"projection"``: a classical Runge-Kutta step (order 4) of the index-1 equations
  (``constraints.constrained_dynamics`` with :math:`\gamma = \dot J_cv`), then the
  position is pulled back onto :math:`\Phi = 0` (:func:`project_position`) and the
  velocity onto the tangent space (:func:`project_velocity`);
* ``"baumgarte"``: the same Runge-Kutta step on the stabilized acceleration
  equation of :func:`baumgarte_bias`, without projection;
* ``"rattle"``: :func:`rattle_step`, order 2, for a constant mass matrix.

It reports, per state, the position residual :math:`|\Phi|`, the velocity residual
:math:`|J_cv|` and the terms of the work-inclusive energy balance

.. math:: \dot E = u^Ty + P_{other} - D,\qquad E = T + V,\quad y = B^Tv,\quad
          P_{other} = \tau_{other}^Tv,\quad D = v^TB_dv \ge 0,

integrated consistently with the method, with the balance residual
:math:`E - E_0 - W_{in} - W_{other} + W_{diss}`; per step, the multipliers and the
acceleration residual :math:`|J_ca + \gamma|`.  Trust a run when these numbers shrink
as expected under a smaller step, not because a single curve looks right.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, constraints, tree
from ..systems import (
    CheckedConstraint,
    MechanicalSystem,
    bias_function,
    configuration,
    dimensions,
    integrate_function,
    mass_function,
    norm,
    potential_function,
)
from . import _common, rattle
from .stabilization import (
    _MAX_ITER,
    _POSITION_RTOL,
    check_baumgarte_step,
    gain,
    iteration_settings,
    newton_projection,
    project_velocity,
    stabilized,
)

__all__ = [
    "CONSTRAINED_METHODS",
    "ConstrainedTrajectory",
    "simulate_constrained",
]

#: Integration methods understood by :func:`simulate_constrained`.
CONSTRAINED_METHODS = ("projection", "baumgarte", "rattle")

#: Largest change of the mass matrix along a trajectory, relative to its largest entry,
#: that ``simulate_constrained(method="rattle")`` accepts as constant.
_CONSTANT_MASS_RTOL = 1e-12


@dataclass(frozen=True)
class ConstrainedTrajectory:
    r"""Result of :func:`simulate_constrained`; index ``k`` is time ``t[k] = k dt``.

    State arrays have ``n_steps + 1`` entries.  Step arrays have ``n_steps``: entry
    ``k`` belongs to the acceleration (and reaction) a step applies when it leaves
    state ``k``.  Batch axes of the initial state follow the time axis.

    Attributes
    ----------
    t : (n_steps + 1,) ndarray
        Times in s.
    q, v : (n_steps + 1, ..., n) ndarray
        Coordinates and rates.
    kinetic, potential : (n_steps + 1, ...) ndarray
        :math:`T = \tfrac12v^TMv` and :math:`V` in J.
    input_work : (n_steps + 1, ...) ndarray
        :math:`\int u^Ty\,dt`, :math:`y = B^Tv`, in J.
    other_work : (n_steps + 1, ...) ndarray
        :math:`\int P_{other}\,dt = \int \tau_{other}^Tv\,dt` in J.
    dissipated : (n_steps + 1, ...) ndarray
        :math:`\int v^TB_dv\,dt \ge 0` in J.
    energy_residual : (n_steps + 1, ...) ndarray
        :math:`E - E_0 - W_{in} - W_{other} + W_{diss}` in J, :math:`E = T + V`:
        zero for the exact motion under an ideal constraint.
    position_residual : (n_steps + 1, ...) ndarray
        :math:`|\Phi(q)|` (Euclidean norm, constraint units).
    velocity_residual : (n_steps + 1, ...) ndarray
        :math:`|J_cv|`.
    acceleration_residual : (n_steps, ...) ndarray
        :math:`|J_ca + \gamma|` for the acceleration :math:`a` the method applies at
        state ``k``: near round-off for ``"projection"``; the stabilizing term
        :math:`|2\alpha J_cv + \beta^2\Phi|` for ``"baumgarte"``; for ``"rattle"``,
        :math:`a = M^{-1}(F_k + J_k^T\lambda_k)` of the opening half kick, a first-order
        approximation, so the residual is :math:`O(\Delta t)`.
    multiplier : (n_steps, ..., c) ndarray
        :math:`\lambda` of the reaction :math:`J_c^T\lambda` applied at state ``k``
        (``"rattle"``: the position multiplier :math:`\lambda_k`).
    velocity_multiplier : (n_steps, ..., c) ndarray or None
        ``"rattle"`` only: :math:`\mu_{k+1}`, applied at the end of step ``k``.
    method : str
    dt : float
        Step in s.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    input_work: np.ndarray
    other_work: np.ndarray
    dissipated: np.ndarray
    energy_residual: np.ndarray
    position_residual: np.ndarray
    velocity_residual: np.ndarray
    acceleration_residual: np.ndarray
    multiplier: np.ndarray
    velocity_multiplier: np.ndarray | None
    method: str
    dt: float

    @property
    def energy(self):
        """Stored mechanical energy :math:`E = T + V` in J, shape ``(n_steps + 1, ...)``."""
        return self.kinetic + self.potential


def _mechanical_system(system, gravity):
    """A Tree (under ``gravity``) or a MechanicalSystem, as a MechanicalSystem."""
    if isinstance(system, tree.Tree):
        return MechanicalSystem.from_tree(system, gravity=gravity)
    if not isinstance(system, MechanicalSystem):
        raise TypeError(
            f"system: expected a geomotion.tree.Tree or a MechanicalSystem, got "
            f"{type(system).__name__}"
        )
    if gravity is not None:
        raise ValueError(
            "gravity: only used for a Tree; a MechanicalSystem's bias and potential "
            "already contain its conservative loads"
        )
    return system


def _input_matrix(B, n):
    if B is None:
        return np.eye(n)
    B = _validate.real_array(B, "B")
    if B.ndim != 2 or B.shape[0] != n or B.shape[1] == 0:
        raise ValueError(f"B: expected shape ({n}, m) with m >= 1, got shape {B.shape}")
    return B


def _method_gains(method, alpha, beta):
    if method not in CONSTRAINED_METHODS:
        raise ValueError(f"method: expected one of {CONSTRAINED_METHODS}, got {method!r}")
    if method == "baumgarte":
        if alpha is None or beta is None:
            raise ValueError("alpha, beta: method 'baumgarte' needs both gains (1/s, >= 0)")
        return gain(alpha, "alpha"), gain(beta, "beta")
    if alpha is not None or beta is not None:
        raise ValueError(f"alpha, beta: only used by method 'baumgarte', got method {method!r}")
    return None


def simulate_constrained(
    system,
    constraint,
    q0,
    v0,
    dt,
    n_steps,
    *,
    method="projection",
    u=None,
    B=None,
    other_tau=None,
    damping=None,
    gravity=None,
    alpha=None,
    beta=None,
    atol=None,
    rtol=_POSITION_RTOL,
    length_scale=None,
    max_iter=_MAX_ITER,
):
    r"""Integrate a constrained mechanical system and report residuals and the energy balance.

    .. math:: M\dot v + h = Bu + \tau_{other} - B_dv + J_c^T\lambda,\qquad \Phi(q) = 0,\qquad
              \dot E = u^TB^Tv + \tau_{other}^Tv - v^TB_dv

    The balance is equation :eq:`eq-ch2-passivity`, integrated as in exercise
    :eq:`eq-ex2-energy-balance`.  Methods (see the module documentation):
    ``"projection"`` (order 4), ``"baumgarte"`` (order 4 while the violation stays
    small), ``"rattle"`` (order 2; needs a constant mass matrix, checked at every
    step).  The work of each load
    is accumulated consistently with the method: at the four Runge-Kutta stages, or
    by the trapezoidal rule over each RATTLE step.  Load callables are called only
    inside the scheme: once per Runge-Kutta stage, and for RATTLE at least twice per
    step (the closing half kick is iterated to convergence).

    ``"projection"`` and ``"rattle"`` start from the projection of ``(q0, v0)`` onto
    the constraint (``q[0]`` differs from ``q0`` by its violation, if any);
    ``"baumgarte"`` starts from ``(q0, v0)`` as given and lets a violation decay.

    Parameters
    ----------
    system : tree.Tree or MechanicalSystem
        The unconstrained equations; for a Tree, :math:`M` = ``tree.crba``,
        :math:`h` = ``tree.bias_forces`` and :math:`V` = ``tree.potential_energy``
        under ``gravity``.
    constraint : constraint object
        With ``residual(q)`` (..., c), ``jacobian(q)`` (..., c, n), ``acceleration_bias(q, v)`` (..., c).
    q0, v0 : (..., n) array_like
        Initial coordinates and rates; leading axes form a batch.
    dt : float
        Step in s, positive.
    n_steps : int
        Number of steps, at least 1.
    method : {"projection", "baumgarte", "rattle"}, optional
        The scheme; default "projection".  Every parameter from here on is keyword-only.
    u : None, (..., m) array_like, or callable, optional
        Inputs: None, a constant, or ``u(t, q, v)`` -> (..., m).
    B : None or (n, m) array_like, optional
        Constant input matrix: generalized load :math:`Bu`, port output
        :math:`y = B^Tv`; identity by default.
    other_tau : None, (..., n) array_like, or callable
        Declared other generalized load :math:`\tau_{other}` (e.g. a spring not in
        :math:`V`, a prescribed external load), N or N m by coordinate, constant or
        ``other_tau(t, q, v)``; its work is reported apart from the inputs'.
    damping : None, (n,) or (n, n) array_like
        Viscous damping :math:`B_d`, diagonal or symmetric positive semidefinite.
    gravity : None or (3,) array_like
        Only for a Tree: gravity in base coordinates, m/s^2 (default None: the tree's
        own ``model.gravity``).
    alpha, beta : float, optional
        Baumgarte gains in 1/s, required by and only allowed with ``"baumgarte"``.
        They must keep the violation's modes inside the stability region of the RK4
        step: :math:`|R(z)| \le 1` for :math:`z = \Delta t(-\alpha \pm
        \sqrt{\alpha^2 - \beta^2})`, :math:`R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24`;
        that is :math:`\alpha\Delta t \le 2.7853` at critical damping
        (:math:`\alpha = \beta`), :math:`\beta\Delta t \le 2\sqrt2` without damping,
        and about :math:`2\alpha\Delta t \le 2.7853` for :math:`\alpha \gg \beta` (see
        :func:`baumgarte_bias`).
    atol : float, optional
        Absolute tolerance on :math:`|\Phi|` of the Newton solves, in the constraint's
        units (m for a loop closure); default None: the relative rule of ``rtol``.
    rtol : float, optional
        Relative tolerance of the Newton solves (see :func:`project_position`): every
        row's first-order distance to its surface, :math:`|\Phi_i|/|\nabla\Phi_i|`,
        at most ``rtol`` times the length scale; default 1e-12.  For a loop closure the
        gradient is a lever arm, so the tolerance scales with the mechanism: the same
        chain at 0.1 mm and at 10 km converges alike.
    length_scale : float, optional
        The length scale :math:`\ell` of the relative rule, in the units of q; default
        None: :math:`\max(1, \max_j|q_{0,j}|)` of the initial configuration (about 1 rad
        for joint angles, the size of the positions for Cartesian coordinates).
    max_iter : int, optional
        Iterations allowed per solve; default 20.

    Returns
    -------
    ConstrainedTrajectory
        States, energies, work terms, residuals and multipliers, time first.

    Raises
    ------
    geomotion.errors.ConvergenceError
        When a Newton projection or a RATTLE solve does not reach its tolerance (or
        settle) in ``max_iter`` iterations; the message gives the time, the step
        ``dt``, the residual reached and the tolerance, and suggests a smaller ``dt``.
    TypeError
        If ``system`` is neither a Tree nor a MechanicalSystem, or ``constraint`` lacks
        the protocol methods.
    ValueError
        Naming the argument: ``dt`` <= 0, ``n_steps`` not a positive integer, an
        unknown ``method``, negative, missing or unused gains, non-finite values,
        shapes that disagree, ``damping`` not PSD; a mass matrix that is not SPD, or
        that changes along a RATTLE run; Baumgarte gains past the RK4 stability limit
        for ``dt`` (naming alpha dt and beta dt); an inconsistent redundant constraint
        set (``gamma`` outside the range of ``J_c``); a configuration where the
        violation lies outside the range of ``J_c`` (no projection step reduces it).
        Redundant but consistent constraint rows are solved (minimum-norm multipliers).

    Examples
    --------
    A pendulum: a 2 kg particle on the unit circle, passing the bottom at 1 m/s.  The rod
    pulls up with :math:`mg + mv^2/R` = 21.62 N, so :math:`\lambda` = -21.62 N (the
    reaction :math:`J_c^T\lambda = \lambda q` points outward for :math:`\lambda > 0`).

    >>> import numpy as np
    >>> from geomotion import constraints, integrators
    >>> m, g = 2.0, 9.81
    >>> particle = integrators.MechanicalSystem(
    ...     mass_matrix=lambda q: np.broadcast_to(m * np.eye(2), q.shape[:-1] + (2, 2)),
    ...     bias=lambda q, v: np.broadcast_to([0.0, m * g], q.shape),
    ...     potential=lambda q: m * g * q[..., 1])
    >>> circle = constraints.FunctionConstraint(  # Phi = (|q|^2 - 1) / 2: the unit circle
    ...     residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - 1.0),
    ...     jacobian=lambda q: q[..., None, :],
    ...     acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True))
    >>> run = integrators.simulate_constrained(particle, circle, [0.0, -1.0], [1.0, 0.0],
    ...                                       dt=0.01, n_steps=20)
    >>> float(run.multiplier[0, 0].round(6))
    -21.62
    >>> bool(run.position_residual.max() <= 1e-12), bool(np.abs(run.energy_residual).max() < 1e-7)
    (True, True)
    """
    gains = _method_gains(method, alpha, beta)
    dt, n_steps = _common.step_settings(dt, n_steps)
    if gains is not None:
        check_baumgarte_step(*gains, dt)
    tolerance, max_iter = iteration_settings(atol, max_iter, rtol=rtol, length_scale=length_scale)
    equations = _mechanical_system(system, gravity)
    if isinstance(system, tree.Tree):
        nq, n = dimensions(system)
    else:
        nq = configuration(q0, None, "q0").shape[-1]
        n = nq if equations.integrate is None else configuration(v0, None, "v0").shape[-1]
    advance = integrate_function(equations.integrate, nq)
    B = _input_matrix(B, n)
    u_of, u_batch = _common.load_function(u, "u", B.shape[1], "u(t, q, v)")
    other_of, other_batch = _common.load_function(other_tau, "other_tau", n, "other_tau(t, q, v)")
    B_d = _common.damping_matrix(damping, n)
    q0, v0 = _common.initial_state(q0, v0, n, ("q0", "v0"), u_batch, other_batch, nq=nq)
    tolerance = tolerance.at(q0)
    checked = CheckedConstraint(constraint, n)
    mass_of = mass_function(equations.mass_matrix, n, "system.mass_matrix")
    bias_of = bias_function(equations.bias, n)

    def loads_of(t, q, v):
        """Load channels (..., 3, n): inputs B u, other loads, damping force."""
        return np.stack([u_of(t, q, v) @ B.T, other_of(t, q, v), -v @ B_d], axis=-2)

    def project(q, v, suggestion=None):
        q = newton_projection(mass_of, checked, q, tolerance, max_iter, suggestion, advance)
        return q, project_velocity(mass_of(q), checked.jacobian(q), v)

    if method != "baumgarte":
        q0, v0 = project(q0, v0)
    if method == "rattle":
        q, v, work, acceleration, multiplier, velocity_multiplier = _integrate_rattle(
            mass_of, checked, loads_of, bias_of, q0, v0, dt, n_steps, tolerance, max_iter, advance
        )
    else:
        dynamics = _index_one_dynamics(mass_of, bias_of, checked, loads_of, gains)
        q, v, work, acceleration, multiplier = _integrate_runge_kutta(
            dynamics,
            project if method == "projection" else None,
            q0,
            v0,
            dt,
            n_steps,
            advance,
            tolerance,
            equations.bracket,
        )
        velocity_multiplier = None

    t = dt * np.arange(n_steps + 1)
    kinetic = 0.5 * np.einsum("...i,...ij,...j->...", v, mass_of(q), v)
    potential = potential_function(equations.potential)(q)
    input_work, other_work, dissipated = work[..., 0], work[..., 1], -work[..., 2]
    residual = (
        kinetic + potential - kinetic[0] - potential[0] - input_work - other_work + dissipated
    )
    J = checked.jacobian(q)
    normal_acceleration = np.einsum("...ij,...j->...i", J[:-1], acceleration)
    return ConstrainedTrajectory(
        t,
        q,
        v,
        kinetic,
        potential,
        input_work,
        other_work,
        dissipated,
        residual,
        position_residual=norm(checked.residual(q)),
        velocity_residual=norm(np.einsum("...ij,...j->...i", J, v)),
        acceleration_residual=norm(normal_acceleration + checked.acceleration_bias(q[:-1], v[:-1])),
        multiplier=multiplier,
        velocity_multiplier=velocity_multiplier,
        method=method,
        dt=dt,
    )


def _trajectory_arrays(q0, v0, n_steps):
    """Empty state histories with the initial state in place, and zero work (3 channels)."""
    q = np.empty((n_steps + 1,) + q0.shape)
    v = np.empty((n_steps + 1,) + v0.shape)
    work = np.zeros((n_steps + 1,) + q0.shape[:-1] + (3,))
    q[0], v[0] = q0, v0
    return q, v, work


def _index_one_dynamics(mass_of, bias_of, checked, loads_of, gains):
    """(t, q, v) -> (a, load channels, lambda) from the acceleration equation.

    ``gains`` = (alpha, beta) replaces gamma by Baumgarte's stabilized bias; None keeps it.
    """

    def dynamics(t, q, v):
        loads = loads_of(t, q, v)
        J = checked.jacobian(q)
        gamma = checked.acceleration_bias(q, v)
        if gains is not None:
            gamma = stabilized(checked, q, v, J, gamma, *gains)
        result = constraints.constrained_dynamics(
            mass_of(q), J, bias_of(q, v), gamma, loads.sum(axis=-2)
        )
        return result.a, loads, result.multiplier

    return dynamics


def _integrate_runge_kutta(dynamics, project, q0, v0, dt, n_steps, advance, tolerance, bracket):
    """RK4 steps of ``dynamics``, each followed by ``project(q, v)`` unless it is None."""
    q, v, work = _trajectory_arrays(q0, v0, n_steps)
    accelerations, multipliers = [], []
    for k in range(n_steps):
        q_next, v_next, step_work, (a, _, lam) = _common.rk4_step(
            dynamics, k * dt, q[k], v[k], dt, advance, bracket
        )
        if project is not None:
            q_next, v_next = project(
                q_next,
                v_next,
                f"a smaller step dt (the projection to tolerance {tolerance.tolerance:.3g} "
                f"failed after the step of dt = {dt:.6g} s from t = {k * dt:.6g} s), "
                "a larger max_iter or a larger tolerance",
            )
        q[k + 1], v[k + 1] = q_next, v_next
        work[k + 1] = work[k] + step_work
        accelerations.append(a)
        multipliers.append(lam)
    return q, v, work, np.array(accelerations), np.array(multipliers)


def _integrate_rattle(
    mass_of, checked, loads_of, bias_of, q0, v0, dt, n_steps, tolerance, max_iter, advance
):
    """RATTLE steps with the work of the load channels by the trapezoidal rule.

    The system's own loads :math:`-h` join as a fourth channel whose work is not
    reported (for a constant mass matrix it is :math:`-\\Delta V`).  The mass matrix
    must keep its initial value along the trajectory.
    """
    M = _validate.positive_definite(mass_of(q0), "system.mass_matrix(q)")
    scale = np.abs(M).max()

    def forces_of(t, q, v):
        return np.concatenate([loads_of(t, q, v), -bias_of(q, v)[..., None, :]], axis=-2)

    q, v, work = _trajectory_arrays(q0, v0, n_steps)
    loads = forces_of(0.0, q0, v0)
    accelerations, multipliers, velocity_multipliers = [], [], []
    for k in range(n_steps):
        result_k, loads_next, a = rattle.step(
            M, checked, forces_of, k * dt, q[k], v[k], loads, dt, tolerance, max_iter, advance
        )
        change = np.abs(mass_of(result_k.q) - M).max()
        if change > _CONSTANT_MASS_RTOL * scale:
            raise ValueError(
                f"system: method 'rattle' needs a constant mass matrix, but M changed by "
                f"{change / scale:.3g} of its largest entry by t = {(k + 1) * dt:.6g} s; "
                f"use method 'projection'"
            )
        work[k + 1] = work[k] + 0.5 * dt * (
            _common.power(loads[..., :3, :], v[k])
            + _common.power(loads_next[..., :3, :], result_k.v)
        )
        q[k + 1], v[k + 1], loads = result_k.q, result_k.v, loads_next
        accelerations.append(a)
        multipliers.append(result_k.position_multiplier)
        velocity_multipliers.append(result_k.velocity_multiplier)
    return (
        q,
        v,
        work,
        np.array(accelerations),
        np.array(multipliers),
        np.array(velocity_multipliers),
    )
