r"""Iterative LQR for a discrete full-state transition :math:`z_{k+1} = F(z_k, u_k)`.

Each iteration linearizes the dynamics about the current trajectory,
:math:`\delta z_{k+1} = A_k\delta z_k + B_k\delta u_k`, takes the cost to second order,
and runs a backward pass (the Riccati recursion of that local problem) from
:math:`V_z = \phi_z(z_N)`, :math:`V_{zz} = \phi_{zz}(z_N)`:

.. math:: Q_z = \ell_z + A^TV_z,\quad Q_u = \ell_u + B^TV_z,\quad
          Q_{zz} = \ell_{zz} + A^TV_{zz}A,\quad Q_{uu} = \ell_{uu} + B^TV_{zz}B,\quad
          Q_{uz} = \ell_{uz} + B^TV_{zz}A,

.. math:: k = -\tilde Q_{uu}^{-1}Q_u,\qquad K = -\tilde Q_{uu}^{-1}Q_{uz},\qquad
          \tilde Q_{uu} = Q_{uu} + \mu I,

.. math:: V_z = Q_z + K^TQ_{uu}k + K^TQ_u + Q_{uz}^Tk,\qquad
          V_{zz} = Q_{zz} + K^TQ_{uu}K + K^TQ_{uz} + Q_{uz}^TK .

The forward pass rolls out :math:`u_k^{new} = u_k + \alpha k_k + K_k(z_k^{new} - z_k)`
(equation :eq:`eq-ch2-ilqr-rollout`) through the true dynamics, and a step is accepted
when the actual cost decrease is at least ``1e-4`` times (the Armijo fraction) the
decrease :math:`-(\alpha\Delta_1 + \alpha^2\Delta_2)` the quadratic model predicts (:math:`\Delta_1 = \sum k^TQ_u`,
:math:`\Delta_2 = \tfrac12\sum k^TQ_{uu}k`); :math:`\alpha` is halved otherwise.
:math:`\mu` (Levenberg-Marquardt) grows tenfold when :math:`\tilde Q_{uu}` is not
positive definite or no :math:`\alpha` is accepted, and shrinks tenfold after each
accepted step.  iLQR drops the second derivatives of the dynamics that DDP keeps.

A converged run is a local stationary point of the discretized problem (the predicted
decrease of a full step is negligible); it is not a certificate of a global, or even a
local, optimum of the continuous-time problem, and the discretization itself (step,
integrator, zero-order-hold inputs) is part of the problem solved.
"""

import dataclasses
from dataclasses import KW_ONLY, dataclass

import numpy as np

from .. import _numerics, _validate
from .._linalg import _cho_solve
from ..errors import ConvergenceError
from .pontryagin import _box, _solve_one_box_qp

__all__ = [
    "QuadraticCost",
    "RunningCostDerivatives",
    "TerminalCostDerivatives",
    "ILQRReport",
    "ILQRResult",
    "ilqr",
]

#: Fraction of the predicted decrease a step must achieve to be accepted.
_ARMIJO = 1e-4

#: Line-search step lengths alpha tried in turn.
_ALPHAS = 0.5 ** np.arange(11)

#: Regularization schedule: mu is multiplied or divided by this factor.
_MU_FACTOR = 10.0


@dataclass(frozen=True)
class RunningCostDerivatives:
    r"""First and second derivatives of a running cost :math:`\ell(z, u)` at states and inputs
    (what a cost's ``running_derivatives(z, u)`` returns to :func:`ilqr`).

    The units are those of :math:`\ell` divided by the units of the state and input
    coordinates differentiated.  Every field broadcasts over the leading (horizon) axes
    of the states and inputs: a constant Hessian may be given once.

    Attributes
    ----------
    l_z : (..., n) ndarray
        :math:`\partial\ell/\partial z`.
    l_u : (..., m) ndarray
        :math:`\partial\ell/\partial u`.
    l_zz : (..., n, n) ndarray
        :math:`\partial^2\ell/\partial z^2`.
    l_uu : (..., m, m) ndarray
        :math:`\partial^2\ell/\partial u^2`.
    l_uz : (..., m, n) ndarray
        :math:`\partial^2\ell/\partial u\,\partial z`.
    """

    l_z: np.ndarray
    l_u: np.ndarray
    l_zz: np.ndarray
    l_uu: np.ndarray
    l_uz: np.ndarray


@dataclass(frozen=True)
class TerminalCostDerivatives:
    r"""First and second derivatives of a terminal cost :math:`\phi(z)` at the final state
    (what a cost's ``terminal_derivatives(z)`` returns to :func:`ilqr`).

    Attributes
    ----------
    phi_z : (n,) ndarray
        :math:`\partial\phi/\partial z`, units of :math:`\phi` per unit of each state
        coordinate.
    phi_zz : (n, n) ndarray
        :math:`\partial^2\phi/\partial z^2`.
    """

    phi_z: np.ndarray
    phi_zz: np.ndarray


@dataclass(frozen=True)
class QuadraticCost:
    r"""Quadratic running and terminal costs about a goal, for :func:`ilqr`.

    .. math:: \ell(z, u) = \tfrac12(z - z_g)^TQ(z - z_g) + \tfrac12(u - u_g)^TR(u - u_g),
              \qquad \phi(z) = \tfrac12(z - z_g)^TQ_f(z - z_g)

    (note the factors 1/2).  The running cost is charged once per step: include the
    time step in :math:`Q, R` to approximate an integral cost.

    Attributes
    ----------
    Q : (n, n) array_like
        Symmetric positive semidefinite state weight.
    R : (m, m) array_like
        Symmetric positive definite input weight.
    Q_final : (n, n) array_like
        Symmetric positive semidefinite terminal weight.
    z_goal : (n,) array_like
        Goal state.
    u_goal : (m,) array_like, optional
        Keyword-only reference input (default zero), e.g. a gravity-compensating torque.

    Any other cost works with :func:`ilqr` if it has the same four methods, its
    derivatives returned as :class:`RunningCostDerivatives` and
    :class:`TerminalCostDerivatives`.

    Raises
    ------
    ValueError
        If a weight is not symmetric (semi)definite as stated, or shapes disagree.
    """

    Q: np.ndarray
    R: np.ndarray
    Q_final: np.ndarray
    z_goal: np.ndarray
    _: KW_ONLY
    u_goal: np.ndarray = None

    def __post_init__(self):
        Q, _ = _numerics.weight_matrix(self.Q, "Q", definite=False)
        R, _ = _numerics.weight_matrix(self.R, "R", definite=True)
        Q_final, _ = _numerics.weight_matrix(self.Q_final, "Q_final", definite=False)
        n, m = Q.shape[-1], R.shape[-1]
        for W, name in ((Q, "Q"), (R, "R"), (Q_final, "Q_final")):
            if W.ndim != 2:
                raise ValueError(f"{name}: expected one matrix, got shape {W.shape}")
        if Q_final.shape != (n, n):
            raise ValueError(f"Q_final: expected shape ({n}, {n}) like Q, got {Q_final.shape}")
        z_goal = _validate.real_array(self.z_goal, "z_goal")
        if z_goal.shape != (n,):
            raise ValueError(f"z_goal: expected shape ({n},), got shape {z_goal.shape}")
        u_goal = np.zeros(m) if self.u_goal is None else _validate.real_array(self.u_goal, "u_goal")
        if u_goal.shape != (m,):
            raise ValueError(f"u_goal: expected shape ({m},), got shape {u_goal.shape}")
        for name, value in (
            ("Q", Q),
            ("R", R),
            ("Q_final", Q_final),
            ("z_goal", z_goal),
            ("u_goal", u_goal),
        ):
            object.__setattr__(self, name, value)

    def running(self, z, u):
        """:math:`\\ell(z, u)`.

        Parameters
        ----------
        z : (..., n) ndarray
            States.
        u : (..., m) ndarray
            Inputs.

        Returns
        -------
        (...) ndarray
        """
        dz, du = z - self.z_goal, u - self.u_goal
        return 0.5 * (
            np.einsum("...i,ij,...j->...", dz, self.Q, dz)
            + np.einsum("...i,ij,...j->...", du, self.R, du)
        )

    def running_derivatives(self, z, u):
        r"""First and second derivatives of :math:`\ell` at states (..., n), inputs (..., m).

        Parameters
        ----------
        z : (..., n) ndarray
            States.
        u : (..., m) ndarray
            Inputs.

        Returns
        -------
        RunningCostDerivatives
            ``l_z`` = :math:`Q(z - z_g)` (..., n), ``l_u`` = :math:`R(u - u_g)` (..., m),
            ``l_zz`` = :math:`Q` (n, n), ``l_uu`` = :math:`R` (m, m) and ``l_uz`` = 0
            (m, n), in the units of the cost per unit (squared) of the coordinates.
        """
        dz, du = z - self.z_goal, u - self.u_goal
        return RunningCostDerivatives(
            l_z=dz @ self.Q,
            l_u=du @ self.R,
            l_zz=self.Q,
            l_uu=self.R,
            l_uz=np.zeros(self.R.shape[:1] + self.Q.shape[:1]),
        )

    def terminal(self, z):
        """:math:`\\phi(z)`.

        Parameters
        ----------
        z : (..., n) ndarray
            States.

        Returns
        -------
        (...) ndarray
        """
        dz = z - self.z_goal
        return 0.5 * np.einsum("...i,ij,...j->...", dz, self.Q_final, dz)

    def terminal_derivatives(self, z):
        r"""First and second derivatives of :math:`\phi`.

        Parameters
        ----------
        z : (n,) ndarray
            The final state.

        Returns
        -------
        TerminalCostDerivatives
            ``phi_z`` = :math:`Q_f(z - z_g)` (n,) and ``phi_zz`` = :math:`Q_f` (n, n).
        """
        return TerminalCostDerivatives(phi_z=(z - self.z_goal) @ self.Q_final, phi_zz=self.Q_final)


@dataclass(frozen=True)
class ILQRReport:
    r"""How an :func:`ilqr` run went.

    Attributes
    ----------
    iterations : int
        Accepted updates of the trajectory.
    cost_history : (iterations + 1,) ndarray
        Total cost of the initial and of every accepted trajectory; strictly decreasing.
    expected_decrease : float
        Decrease a full step (:math:`\alpha = 1`) would achieve according to the last
        backward pass's quadratic model, :math:`-(\Delta_1 + \Delta_2)`.
    feedforward_norm : float
        Largest :math:`|k_k|_\infty` of the last backward pass, in input units.
    regularization : float
        Final :math:`\mu`, in units of :math:`Q_{uu}`.
    converged : bool
        ``expected_decrease <= rtol * cost``; always True in a returned result (an
        unconverged run raises :class:`~geomotion.errors.ConvergenceError`).
    reason : str
        Why the iteration stopped.
    """

    iterations: int
    cost_history: np.ndarray
    expected_decrease: float
    feedforward_norm: float
    regularization: float
    converged: bool
    reason: str


@dataclass(frozen=True)
class ILQRResult:
    r"""Result of :func:`ilqr`.

    Attributes
    ----------
    states : (N + 1, n) ndarray
        Rollout of the final inputs from ``z0``.
    controls : (N, m) ndarray
        Final inputs.
    feedforward : (N, m) ndarray
        :math:`k_k` of the last backward pass.
    feedback : (N, m, n) ndarray
        :math:`K_k` of the last backward pass (zero rows for inputs held at a bound):
        :math:`u = u_k + K_k(z - z_k)` is the local feedback law about the trajectory.
    saturated : (N, m) ndarray of bool
        Inputs at a bound (all False without bounds).
    report : ILQRReport
    """

    states: np.ndarray
    controls: np.ndarray
    feedforward: np.ndarray
    feedback: np.ndarray
    saturated: np.ndarray
    report: ILQRReport

    @property
    def cost(self):
        """Total cost of the returned trajectory."""
        return float(self.report.cost_history[-1])


class _Problem:
    """The validated pieces of an iLQR problem, with checked evaluations."""

    def __init__(self, dynamics, jacobians, cost, n, m, step, bounds):
        self.dynamics, self.jacobians, self.cost = dynamics, jacobians, cost
        self.n, self.m, self.step, self.bounds = n, m, step, bounds

    def transition(self, z, u, strict):
        """F(z, u) for one state; None for a non-finite result unless ``strict``."""
        value = np.asarray(self.dynamics(z, u), dtype=float)
        if value.shape != (self.n,):
            raise ValueError(
                f"dynamics: expected F(z, u) of shape ({self.n},), got shape {value.shape}"
            )
        if not np.all(np.isfinite(value)):
            if strict:
                _validate.real_array(value, "dynamics(z, u)")
            return None
        return value

    def total_cost(self, z, u):
        running = _numerics.evaluate(self.cost.running, (z[:-1], u), (), "cost.running(z, u)")
        terminal = _numerics.evaluate(self.cost.terminal, (z[-1],), (), "cost.terminal(z)")
        return float(running.sum() + terminal)

    def linearization(self, z, u):
        """A_k (N, n, n) and B_k (N, n, m) about the trajectory."""
        n, m, N = self.n, self.m, u.shape[0]
        if self.jacobians is not None:
            value = self.jacobians(z, u)
            if not isinstance(value, tuple) or len(value) != 2:
                raise ValueError("dynamics_jacobians: expected a pair (A, B)")
            return (
                _numerics.checked_result(value[0], (N, n, n), "dynamics_jacobians A", (n, n)),
                _numerics.checked_result(value[1], (N, n, m), "dynamics_jacobians B", (n, m)),
            )

        def stacked(w):
            return _numerics.evaluate(self.dynamics, (w[..., :n], w[..., n:]), (n,), "dynamics")

        D = _numerics.jacobian(
            _numerics.Trusted(stacked), np.concatenate([z, u], axis=-1), n, "dynamics", self.step
        )
        return D[..., :n], D[..., n:]

    def cost_derivatives(self, z, u):
        """The running derivatives (l_z, l_u, l_zz, l_uu, l_uz) along the horizon and the
        terminal ones (phi_z, phi_zz), read by name from the cost's results and checked."""
        N, n, m = u.shape[0], self.n, self.m
        running = _fields(
            self.cost.running_derivatives(z[:-1], u),
            RunningCostDerivatives,
            "cost.running_derivatives(z, u)",
        )
        shapes = {
            "l_z": (N, n),
            "l_u": (N, m),
            "l_zz": (N, n, n),
            "l_uu": (N, m, m),
            "l_uz": (N, m, n),
        }
        running = [
            _numerics.checked_result(
                running[label], shape, f"cost.running_derivatives {label}", shape[1:]
            )
            for label, shape in shapes.items()
        ]
        terminal = _fields(
            self.cost.terminal_derivatives(z[-1]),
            TerminalCostDerivatives,
            "cost.terminal_derivatives(z)",
        )
        return running, (
            _numerics.checked_result(terminal["phi_z"], (n,), "cost.terminal_derivatives phi_z"),
            _numerics.checked_result(
                terminal["phi_zz"], (n, n), "cost.terminal_derivatives phi_zz"
            ),
        )


def _fields(value, kind, call):
    """The named fields of a cost's derivatives (a ``kind`` or any object with them)."""
    names = [field.name for field in dataclasses.fields(kind)]
    missing = [name for name in names if not hasattr(value, name)]
    if isinstance(value, tuple) or missing:
        raise TypeError(
            f"{call}: expected a {kind.__name__} (fields {', '.join(names)}), got "
            f"{type(value).__name__}" + (f" without {', '.join(missing)}" if missing else "")
        )
    return {name: getattr(value, name) for name in names}


def _gains(Q_u, Q_uu_reg, Q_uz, u_k, bounds):
    """Feedforward k and feedback K from the regularized Q_uu; None if it is not PD.

    With bounds, k solves the box QP min 1/2 k^T Q_uu k + Q_u^T k on u_min <= u_k + k <= u_max,
    and K acts only on the inputs the QP leaves free (rows of bound inputs are zero).
    """
    try:
        L = np.linalg.cholesky(Q_uu_reg)
    except np.linalg.LinAlgError:
        return None
    if bounds is None:
        return -_cho_solve(L, Q_u[:, None])[:, 0], -_cho_solve(L, Q_uz)
    lo, hi = bounds
    k, at_lower, at_upper = _solve_one_box_qp(Q_uu_reg, Q_u, lo - u_k, hi - u_k)
    free = ~(at_lower | at_upper)
    K = np.zeros_like(Q_uz)
    if free.any():
        K[free] = -np.linalg.solve(Q_uu_reg[np.ix_(free, free)], Q_uz[free])
    return k, K


def _backward_pass(A, B, running, terminal, u, mu, bounds):
    """Gains (N, m), (N, m, n) and the model terms (Delta_1, Delta_2); None if Q_uu fails."""
    (l_z, l_u, l_zz, l_uu, l_uz), (V_z, V_zz) = running, terminal
    N, m = u.shape
    k_ff, K_fb = np.zeros((N, m)), np.zeros((N, m, A.shape[-1]))
    delta_1 = delta_2 = 0.0
    for t in reversed(range(N)):
        Q_z = l_z[t] + A[t].T @ V_z
        Q_u = l_u[t] + B[t].T @ V_z
        Q_zz = l_zz[t] + A[t].T @ V_zz @ A[t]
        Q_uu = l_uu[t] + B[t].T @ V_zz @ B[t]
        Q_uz = l_uz[t] + B[t].T @ V_zz @ A[t]
        gains = _gains(
            Q_u,
            Q_uu + mu * np.eye(m),
            Q_uz,
            u[t],
            None if bounds is None else (bounds[0][t], bounds[1][t]),
        )
        if gains is None:
            return None
        k, K = gains
        V_z = Q_z + K.T @ Q_uu @ k + K.T @ Q_u + Q_uz.T @ k
        V_zz = Q_zz + K.T @ Q_uu @ K + K.T @ Q_uz + Q_uz.T @ K
        V_zz = 0.5 * (V_zz + V_zz.T)
        k_ff[t], K_fb[t] = k, K
        delta_1 += k @ Q_u
        delta_2 += 0.5 * k @ Q_uu @ k
    return k_ff, K_fb, delta_1, delta_2


def _forward_pass(problem, z, u, k_ff, K_fb, alpha):
    """Roll out u + alpha k + K (z_new - z); None if the dynamics leave the finite range."""
    z_new, u_new = np.empty_like(z), np.empty_like(u)
    z_new[0] = z[0]
    for t in range(u.shape[0]):
        u_new[t] = u[t] + alpha * k_ff[t] + K_fb[t] @ (z_new[t] - z[t])
        if problem.bounds is not None:
            u_new[t] = np.clip(u_new[t], problem.bounds[0][t], problem.bounds[1][t])
        z_next = problem.transition(z_new[t], u_new[t], strict=False)
        if z_next is None:
            return None
        z_new[t + 1] = z_next
    return z_new, u_new


def _rollout(problem, z0, u):
    z = np.empty((u.shape[0] + 1, problem.n))
    z[0] = z0
    for t in range(u.shape[0]):
        z[t + 1] = problem.transition(z[t], u[t], strict=True)
    return z


def _check_cost(cost):
    for method in ("running", "running_derivatives", "terminal", "terminal_derivatives"):
        if not callable(getattr(cost, method, None)):
            raise TypeError(
                f"cost: expected an object with methods running(z, u), running_derivatives(z, u), "
                f"terminal(z) and terminal_derivatives(z) (e.g. QuadraticCost), got "
                f"{type(cost).__name__} without {method}"
            )


def _number(value, name, check, kind):
    array = check(value, name)
    if array.ndim:
        raise ValueError(f"{name}: expected a {kind} number, got {value!r}")
    return float(array)


def _controls(u_init):
    u = _validate.real_array(u_init, "u_init")
    if u.ndim != 2 or 0 in u.shape:
        raise ValueError(
            f"u_init: expected shape (N, m) with horizon N >= 1 and m >= 1 inputs, "
            f"got shape {u.shape}"
        )
    return u.copy()


def _input_bounds(u_min, u_max, u):
    if u_min is None and u_max is None:
        return None
    if u_min is None or u_max is None:
        raise ValueError("u_min, u_max: expected both bounds or neither, got only one")
    lo, hi = _box(u_min, u_max, u.shape[-1])
    try:
        lo, hi = np.broadcast_to(lo, u.shape), np.broadcast_to(hi, u.shape)
    except ValueError as error:
        raise ValueError(
            f"u_min, u_max: expected bounds broadcastable to the inputs "
            f"{u.shape}, got shape {lo.shape}"
        ) from error
    if np.any(u < lo) or np.any(u > hi):
        raise ValueError("u_init: expected initial inputs within [u_min, u_max]")
    return lo, hi


def ilqr(
    dynamics,
    z0,
    u_init,
    cost,
    *,
    dynamics_jacobians=None,
    u_min=None,
    u_max=None,
    max_iter=100,
    rtol=1e-9,
    step=None,
    mu_max=1e10,
    mu_min=1e-6,
):
    r"""Optimize the inputs of a discrete transition :math:`z_{k+1} = F(z_k, u_k)` by iLQR.

    Minimizes :math:`\sum_{k<N}\ell(z_k, u_k) + \phi(z_N)` from the fixed initial state
    ``z0`` (the equations and the step acceptance are in :mod:`geomotion.control.ilqr`;
    the rollout is equation :eq:`eq-ch2-ilqr-rollout`).
    The Jacobians :math:`A_k, B_k` come from ``dynamics_jacobians`` or from
    Richardson central differences of ``dynamics`` (one call on the stack of all
    perturbed states and inputs of the horizon).  The cost supplies its own first and
    second derivatives (:class:`QuadraticCost`, or any object with the same methods).

    Input bounds (optional) are handled as in control-limited DDP: the feedforward step
    of each backward-pass stage solves a box-constrained QP (the bounded quadratic
    program of :func:`geomotion.control.box_quadratic_control`), inputs held at a bound
    get no feedback, and the forward rollout clamps the inputs to the box (the result
    reports which are saturated).  Only constant or per-step bounds on the inputs are
    supported: state constraints, contact conditions and bounds on rates are not, and
    penalizing or projecting a cost gradient would not enforce them either.  The state
    :math:`z` should consist of independent coordinates (for a constrained mechanism, a
    chart of :math:`TQ_c` with :math:`2d` coordinates): with dependent ambient coordinates
    the local model would treat directions off the constraint set as free.

    Parameters
    ----------
    dynamics : callable
        ``F(z, u) -> (..., n)`` for states (..., n) and inputs (..., m), broadcasting over
        leading axes, or written for one step ((n,) and (m,)), then called once per point
        of the differences' stack.
    z0 : (n,) array_like
        Initial state.
    u_init : (N, m) array_like
        Initial input sequence; ``N`` >= 1 is the horizon.  Within the bounds, if any.
    cost : QuadraticCost or object
        With ``running(z, u)`` -> (...), ``running_derivatives(z, u)`` ->
        :class:`RunningCostDerivatives` (``l_z``, ``l_u``, ``l_zz``, ``l_uu``, ``l_uz``),
        ``terminal(z)`` -> (), ``terminal_derivatives(z)`` ->
        :class:`TerminalCostDerivatives` (``phi_z``, ``phi_zz``), all broadcasting over a
        leading horizon axis.
    dynamics_jacobians : callable, optional
        ``(z, u) -> (A, B)`` of shapes (..., n, n), (..., n, m): exact Jacobians.
    u_min, u_max : float or array_like, optional
        Input bounds broadcastable to (N, m); both or neither.
    max_iter : int, optional
        Most accepted updates, >= 1 (default 100).
    rtol : float, optional
        Relative convergence threshold, >= 0 (default 1e-9): converged when the
        decrease of the total cost that the quadratic model predicts for a full step is
        at most ``rtol`` times the current total cost (a relative cost decrease).
    step : float or (n + m,) array_like, optional
        Difference step for the Jacobians, per state then input coordinate.
    mu_max : float, optional
        Upper bound of the regularization: give up when :math:`\mu` would exceed this
        (units of :math:`Q_{uu}`; default 1e10).
    mu_min : float, optional
        Lower bound of a nonzero :math:`\mu`; it starts at zero and is reset to zero
        below this (units of :math:`Q_{uu}`; default 1e-6).

    Returns
    -------
    ILQRResult
        The converged trajectory, its local feedback gains and an :class:`ILQRReport`.

    Batches
    -------
    One trajectory optimization per call: ``z0`` is one state and ``u_init`` one input
    sequence.  The leading axis of ``u_init`` is the horizon, not a batch axis, and the
    iterations of different problems would accept different steps and regularizations;
    run one call per problem.

    Raises
    ------
    geomotion.errors.ConvergenceError
        When the iteration stops before the predicted decrease falls to ``rtol`` times
        the cost: after ``max_iter`` accepted updates, or when the regularization
        :math:`\mu` would exceed ``mu_max`` (no positive definite
        :math:`\tilde Q_{uu}` or no step decreased the cost).  Its ``residual`` is the
        last predicted relative decrease and ``tolerance`` is ``rtol``.
    TypeError
        Naming the argument: non-callable ``dynamics``/``dynamics_jacobians``; a cost
        without the four methods, or whose derivatives are not returned with their
        named fields (a tuple, say).
    ValueError
        Naming the argument: ``z0`` not one finite state; ``u_init`` not a finite
        (N, m) array with N, m >= 1, or outside the bounds; bounds that are non-finite,
        given alone, or empty; bad counts or tolerances; and, when evaluated, dynamics or
        costs returning wrong shapes or non-finite values along the initial rollout.
    """
    _numerics.callable_argument(dynamics, "dynamics", "F(z, u) -> (..., n)")
    if dynamics_jacobians is not None:
        _numerics.callable_argument(dynamics_jacobians, "dynamics_jacobians", "(z, u) -> (A, B)")
    _check_cost(cost)
    z0 = _numerics.single_state(z0, "z0")
    u = _controls(u_init)
    bounds = _input_bounds(u_min, u_max, u)
    max_iter = _validate.count(max_iter, "max_iter")
    tol = _number(rtol, "rtol", _validate.nonnegative, "non-negative")
    mu_max = _number(mu_max, "mu_max", _validate.positive, "positive")
    mu_min = _number(mu_min, "mu_min", _validate.positive, "positive")
    problem = _Problem(dynamics, dynamics_jacobians, cost, z0.shape[0], u.shape[1], step, bounds)

    z = _rollout(problem, z0, u)
    history = [problem.total_cost(z, u)]
    mu, expected, reason = 0.0, np.inf, None
    k_ff, K_fb = np.zeros(u.shape), np.zeros(u.shape + z0.shape)
    while reason is None:
        A, B = problem.linearization(z[:-1], u)
        running, terminal = problem.cost_derivatives(z, u)
        while True:  # raise mu until Q_uu + mu I is positive definite and a step is accepted
            backward = _backward_pass(A, B, running, terminal, u, mu, bounds)
            if backward is not None:
                k_ff, K_fb, delta_1, delta_2 = backward
                expected = -(delta_1 + delta_2)
                if expected <= tol * abs(history[-1]):
                    reason = "converged: predicted decrease below rtol times the cost"
                    break
                if len(history) > max_iter:
                    reason = "maximum iterations reached"
                    break
                stepped = _line_search(problem, z, u, k_ff, K_fb, delta_1, delta_2, history)
                if stepped:
                    z, u = stepped
                    mu = mu / _MU_FACTOR if mu / _MU_FACTOR >= mu_min else 0.0
                    break
            mu = max(mu_min, _MU_FACTOR * mu)
            if mu > mu_max:
                reason = "regularization limit: " + (
                    "Q_uu + mu I not positive definite"
                    if backward is None
                    else "no step decreased the cost"
                )
                break
    if not reason.startswith("converged"):
        scale = abs(history[-1])
        raise ConvergenceError(
            f"ilqr: {reason} (regularization mu = {mu:.3g})",
            residual=expected / scale if scale > 0 else expected,
            tolerance=tol,
            iterations=len(history) - 1,
            suggestion=(
                "a larger max_iter"
                if reason.startswith("maximum")
                else "a better initial input sequence u_init, a larger mu_max or a larger rtol"
            ),
        )
    saturated = (
        np.zeros(u.shape, dtype=bool) if bounds is None else (u <= bounds[0]) | (u >= bounds[1])
    )
    report = ILQRReport(
        iterations=len(history) - 1,
        cost_history=np.array(history),
        expected_decrease=float(expected),
        feedforward_norm=float(np.abs(k_ff).max()),
        regularization=mu,
        converged=reason.startswith("converged"),
        reason=reason,
    )
    return ILQRResult(
        states=z, controls=u, feedforward=k_ff, feedback=K_fb, saturated=saturated, report=report
    )


def _line_search(problem, z, u, k_ff, K_fb, delta_1, delta_2, history):
    """Try alpha = 1, 1/2, ...; append the cost and return (z, u) of the first accepted step."""
    for alpha in _ALPHAS:
        rolled = _forward_pass(problem, z, u, k_ff, K_fb, alpha)
        if rolled is None:
            continue
        cost = problem.total_cost(*rolled)
        predicted = -(alpha * delta_1 + alpha**2 * delta_2)
        if history[-1] - cost >= _ARMIJO * predicted and cost < history[-1]:
            history.append(cost)
            return rolled
    return False
