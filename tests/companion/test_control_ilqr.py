"""geomotion.control.ilqr: the backward pass on linear-quadratic problems against the Riccati
solution (scipy.linalg.solve_discrete_are), a bounded linear problem against the condensed
bounded least-squares solution, a torque-limited pendulum swing-up built with geomotion.tree
(monotone cost, bounds, re-simulation with geomotion.integrators.simulate), and bad or
degenerate input."""

import dataclasses

import numpy as np
import pytest
from scipy.linalg import solve_discrete_are
from scipy.optimize import lsq_linear

from geomotion import ConvergenceError, control, inertia, integrators, models, tree

# ---------------------------------------------------------------------------
# Linear-quadratic problems: a double integrator
# ---------------------------------------------------------------------------

DT = 0.1
A_LIN = np.array([[1.0, DT], [0.0, 1.0]])
B_LIN = np.array([[0.5 * DT**2], [DT]])
Q_LIN, R_LIN = np.diag([1.0, 0.1]), np.array([[0.01]])
Z0_LIN = np.array([1.0, -0.5])


def linear_step(z, u):
    return z @ A_LIN.T + u @ B_LIN.T


def riccati():
    """Stationary P and gain K (u = K z) of sum 1/2 (z^T Q z + u^T R u), from scipy."""
    P = solve_discrete_are(A_LIN, B_LIN, Q_LIN, R_LIN)
    K = -np.linalg.solve(R_LIN + B_LIN.T @ P @ B_LIN, B_LIN.T @ P @ A_LIN)
    return P, K


def test_backward_pass_reproduces_the_riccati_gain_and_converges_in_one_iteration():
    P, K = riccati()
    cost = control.QuadraticCost(Q_LIN, R_LIN, Q_final=P, z_goal=[0.0, 0.0])
    result = control.ilqr(linear_step, Z0_LIN, np.zeros((30, 1)), cost)
    assert result.report.converged and result.report.iterations == 1
    # With the terminal weight P the finite-horizon Riccati recursion is stationary: every
    # stage's gain is K (achieved 1.3e-12 relative, with difference Jacobians).
    np.testing.assert_allclose(result.feedback, np.broadcast_to(K, (30, 1, 2)), rtol=1e-10)
    np.testing.assert_allclose(result.feedforward, 0.0, atol=1e-9)  # at the optimum: 1e-11
    # The optimal cost is the value 1/2 z0^T P z0; the inputs are the feedback law.
    assert result.cost == pytest.approx(0.5 * Z0_LIN @ P @ Z0_LIN, rel=1e-13)  # 6e-15
    np.testing.assert_allclose(
        result.controls[:, 0], np.einsum("j,kj->k", K[0], result.states[:-1]), atol=1e-10
    )
    np.testing.assert_array_equal(np.diff(result.report.cost_history) < 0, True)


def test_dynamics_written_for_one_step_give_the_same_solution():
    # A @ z + B @ u fails on the stacks of the differences (matmul of (2, 2) with (..., 2)
    # reads the batch as matrices) and is then called once per point.
    P, K = riccati()
    cost = control.QuadraticCost(Q_LIN, R_LIN, Q_final=P, z_goal=[0.0, 0.0])
    result = control.ilqr(lambda z, u: A_LIN @ z + B_LIN @ u, Z0_LIN, np.zeros((30, 1)), cost)
    assert result.report.converged
    # Only the rounding of the two formulas differs (measured 2e-11 relative).
    np.testing.assert_allclose(result.feedback, np.broadcast_to(K, (30, 1, 2)), rtol=1e-10)


def test_long_horizon_first_gain_tends_to_the_stationary_gain():
    _, K = riccati()
    cost = control.QuadraticCost(Q_LIN, R_LIN, Q_final=np.zeros((2, 2)), z_goal=[0.0, 0.0])
    result = control.ilqr(linear_step, Z0_LIN, np.zeros((200, 1)), cost)
    # Far from the end the recursion has converged (achieved 4e-13); near it, not at all.
    np.testing.assert_allclose(result.feedback[0], K, rtol=3e-11)
    np.testing.assert_allclose(result.feedback[-1], 0.0, atol=1e-12)  # Q_final = 0: no gain
    assert result.report.iterations == 1


def test_exact_jacobians_give_the_same_solution():
    P, _ = riccati()
    cost = control.QuadraticCost(Q_LIN, R_LIN, Q_final=P, z_goal=[0.2, 0.0])
    by_differences = control.ilqr(linear_step, Z0_LIN, np.zeros((20, 1)), cost)
    exact = control.ilqr(
        linear_step, Z0_LIN, np.zeros((20, 1)), cost, dynamics_jacobians=lambda z, u: (A_LIN, B_LIN)
    )
    # Differences of linear dynamics are exact to rounding: achieved 2e-12.
    np.testing.assert_allclose(exact.controls, by_differences.controls, atol=1e-10)
    np.testing.assert_allclose(exact.feedback, by_differences.feedback, rtol=1e-10)


def condensed_bounded_solution(z0, N, bound, P):
    """Independent: z_k = A^k z0 + sum_{j<k} A^(k-1-j) B u_j, so the cost is a bounded linear
    least-squares problem in the stacked inputs, solved exactly by BVLS."""
    powers = [np.linalg.matrix_power(A_LIN, k) for k in range(N + 1)]
    rows, rhs = [], []
    for k in range(1, N + 1):  # the k = 0 state term is a constant
        weight = np.linalg.cholesky(P if k == N else Q_LIN).T
        G = np.zeros((2, N))
        for j in range(k):
            G[:, j] = (powers[k - 1 - j] @ B_LIN)[:, 0]
        rows.append(weight @ G)
        rhs.append(-weight @ powers[k] @ z0)
    rows.append(np.sqrt(R_LIN[0, 0]) * np.eye(N))
    rhs.append(np.zeros(N))
    # Cost = 1/2 |rows u - rhs|^2 + constant.
    return lsq_linear(
        np.vstack(rows), np.concatenate(rhs), bounds=(-bound, bound), method="bvls", tol=1e-15
    ).x


def test_bounded_linear_problem_matches_the_condensed_bounded_least_squares():
    P, _ = riccati()
    N, bound, z0 = 25, 4.0, 4 * Z0_LIN  # the unbounded optimum starts near -19 m/s^2
    cost = control.QuadraticCost(Q_LIN, R_LIN, Q_final=P, z_goal=[0.0, 0.0])
    result = control.ilqr(linear_step, z0, np.zeros((N, 1)), cost, u_min=-bound, u_max=bound)
    reference = condensed_bounded_solution(z0, N, bound, P)
    assert result.report.converged
    assert result.saturated[:, 0].sum() >= 2 and np.abs(result.controls).max() <= bound
    np.testing.assert_allclose(result.controls[:, 0], reference, atol=5e-10)  # achieved 1e-11
    # Saturated inputs get no feedback in the last backward pass.
    assert np.all(result.feedback[result.saturated[:, 0]] == 0)


# Two coupled inputs on the double integrator (input 0 bounded tightly, input 1 loosely)
# with a non-diagonal R, so Q_uu couples the inputs and the reduced gain of the free input
# differs from its row of the unreduced gain.
B_TWO = np.array([[0.5 * DT**2, 0.3 * DT**2], [DT, -0.4 * DT]])
R_TWO = np.array([[0.01, 0.004], [0.004, 0.02]])
BOUNDS_TWO = (np.array([-1.0, -100.0]), np.array([1.0, 100.0]))


def two_input_step(z, u):
    return z @ A_LIN.T + u @ B_TWO.T


def clamped_riccati_gains(states, controls, clamped, Q, R, Q_final):
    """Backward pass written out for the linear-quadratic problem with a known active set.

    At each stage the inputs ``clamped[t]`` are held (no step, no feedback) and the free
    ones solve the reduced problem: k_f = -Q_uu[f, f]^-1 Q_u[f], K_f = -Q_uu[f, f]^-1 Q_uz[f].
    """
    N, m = controls.shape
    V_z, V_zz = Q_final @ states[-1], Q_final
    gains = np.zeros((N, m, states.shape[1]))
    for t in reversed(range(N)):
        Q_z = Q @ states[t] + A_LIN.T @ V_z
        Q_u = R @ controls[t] + B_TWO.T @ V_z
        Q_zz, Q_uu = Q + A_LIN.T @ V_zz @ A_LIN, R + B_TWO.T @ V_zz @ B_TWO
        Q_uz = B_TWO.T @ V_zz @ A_LIN
        free = ~clamped[t]
        k, K = np.zeros(m), np.zeros((m, states.shape[1]))
        k[free] = -np.linalg.solve(Q_uu[np.ix_(free, free)], Q_u[free])
        K[free] = -np.linalg.solve(Q_uu[np.ix_(free, free)], Q_uz[free])
        V_z = Q_z + K.T @ Q_uu @ k + K.T @ Q_u + Q_uz.T @ k
        V_zz = Q_zz + K.T @ Q_uu @ K + K.T @ Q_uz + Q_uz.T @ K
        gains[t] = K
    return gains


def test_bounded_feedback_with_two_inputs_is_the_gain_of_the_reduced_problem():
    P, _ = riccati()
    cost = control.QuadraticCost(Q_LIN, R_TWO, Q_final=P, z_goal=[0.0, 0.0])
    z0, N = 4 * Z0_LIN, 25
    result = control.ilqr(
        two_input_step, z0, np.zeros((N, 2)), cost, u_min=BOUNDS_TWO[0], u_max=BOUNDS_TWO[1]
    )
    assert result.report.converged and result.report.regularization == 0.0
    clamped = result.saturated
    # Input 0 is held at its bound at some stages and free at others; input 1 never is.
    assert 2 <= clamped[:, 0].sum() < N and not clamped[:, 1].any()
    reference = clamped_riccati_gains(result.states, result.controls, clamped, Q_LIN, R_TWO, P)
    np.testing.assert_array_equal(result.feedback[clamped], 0.0)
    # Achieved 7e-12 relative (difference Jacobians of a linear map).
    np.testing.assert_allclose(result.feedback, reference, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------
# A torque-limited pendulum swing-up, built with geomotion.tree
# ---------------------------------------------------------------------------

GRAVITY = (0.0, -9.81, 0.0)  # the pendulum swings in the x-y plane; q = 0 points along +x
PEND_DT, PEND_N, TORQUE_LIMIT = 0.08, 30, 2.0  # m g l = 4.9 N m: it has to pump
HANGING, UPRIGHT = np.array([-np.pi / 2, 0.0]), np.array([np.pi / 2, 0.0])


def pendulum():
    """One rigid link, 1 kg, centre of mass 0.5 m out along its x axis, revolute about z."""
    body = inertia.spatial_inertia(1.0, [0.5, 0.0, 0.0], np.diag([0.001, 0.02, 0.02]))
    return tree.Tree(
        parents=(-1,),
        joints=models.REVOLUTE_Z[None],
        placements=np.eye(4)[None],
        inertias=body[None],
        gravity=GRAVITY,
    )


PENDULUM = pendulum()


def rk4_step(z, u):
    """One classical RK4 step of (q, qd) with the torque held over the step (tree.aba)."""

    def rates(q, v):
        return v, tree.aba(PENDULUM, q, v, u, gravity=GRAVITY)

    q, v = z[..., :1], z[..., 1:]
    k1 = rates(q, v)
    k2 = rates(q + 0.5 * PEND_DT * k1[0], v + 0.5 * PEND_DT * k1[1])
    k3 = rates(q + 0.5 * PEND_DT * k2[0], v + 0.5 * PEND_DT * k2[1])
    k4 = rates(q + PEND_DT * k3[0], v + PEND_DT * k3[1])
    return np.concatenate(
        [
            q + PEND_DT / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]),
            v + PEND_DT / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]),
        ],
        axis=-1,
    )


SWING_COST = control.QuadraticCost(
    Q=np.zeros((2, 2)), R=[[0.05 * PEND_DT]], Q_final=np.diag([100.0, 10.0]), z_goal=UPRIGHT
)


@pytest.fixture(scope="module")
def swing_up():
    return control.ilqr(
        rk4_step,
        HANGING,
        np.zeros((PEND_N, 1)),
        SWING_COST,
        u_min=-TORQUE_LIMIT,
        u_max=TORQUE_LIMIT,
        rtol=1e-6,
    )


def test_swing_up_converges_with_a_monotone_cost_within_the_torque_limit(swing_up):
    report = swing_up.report
    assert report.converged and report.iterations > 3
    assert np.all(np.diff(report.cost_history) < 0)  # every accepted step lowers the cost
    assert report.cost_history[-1] < 1e-3 * report.cost_history[0]
    assert np.abs(swing_up.controls).max() <= TORQUE_LIMIT
    assert swing_up.saturated.sum() >= 5  # the limit is active: bang-like pumping
    np.testing.assert_array_equal(swing_up.saturated, np.abs(swing_up.controls) == TORQUE_LIMIT)
    np.testing.assert_allclose(swing_up.states[-1], UPRIGHT, atol=0.02)  # achieved 5e-3


def test_swing_up_controls_resimulated_by_the_integrator_reach_the_same_state(swing_up):
    # simulate calls the torque once per RK4 stage, in time order: hold u_k for 4 calls.
    def held(controls, calls_per_interval):
        stages = iter(np.repeat(controls, calls_per_interval, axis=0))
        return lambda t, q, qd: next(stages)

    same = integrators.simulate(
        PENDULUM,
        HANGING[:1],
        HANGING[1:],
        PEND_DT,
        PEND_N,
        tau=held(swing_up.controls, 4),
        gravity=GRAVITY,
    )
    # The same scheme and step: identical to rounding (achieved exactly 0).
    np.testing.assert_allclose(same.q[:, 0], swing_up.states[:, 0], atol=1e-12)
    np.testing.assert_allclose(same.v[:, 0], swing_up.states[:, 1], atol=1e-12)
    fine = integrators.simulate(
        PENDULUM,
        HANGING[:1],
        HANGING[1:],
        PEND_DT / 4,
        4 * PEND_N,
        tau=held(swing_up.controls, 16),
        gravity=GRAVITY,
    )
    # A four times finer step: the difference is the coarse RK4 model's own error
    # (achieved 3.6e-3 rad and 1.5e-2 rad/s over the 2.4 s swing).
    np.testing.assert_allclose(fine.q[-1, 0], swing_up.states[-1, 0], atol=1e-2)
    np.testing.assert_allclose(fine.v[-1, 0], swing_up.states[-1, 1], atol=5e-2)


def test_iteration_limit_raises_a_convergence_error():
    with pytest.raises(ConvergenceError, match="maximum iterations reached") as caught:
        control.ilqr(rk4_step, HANGING, np.zeros((PEND_N, 1)), SWING_COST, max_iter=2)
    error = caught.value
    assert isinstance(error, RuntimeError) and error.iterations == 2
    # the residual is the predicted relative decrease, still above rtol = 1e-9
    assert error.residual > error.tolerance == 1e-9
    assert "max_iter" in error.suggestion


class AlteredCost:
    """GOOD_COST with its input curvature replaced or its input gradient reversed."""

    def __init__(self, l_uu=None, reverse_gradient=False):
        self.base = control.QuadraticCost(Q_LIN, R_LIN, Q_final=Q_LIN, z_goal=[0.0, 0.0])
        self.l_uu, self.reverse_gradient = l_uu, reverse_gradient

    def running(self, z, u):
        return self.base.running(z, u)

    def running_derivatives(self, z, u):
        d = self.base.running_derivatives(z, u)
        if self.reverse_gradient:
            d = dataclasses.replace(d, l_z=-d.l_z, l_u=-d.l_u)
        return d if self.l_uu is None else dataclasses.replace(d, l_uu=self.l_uu)

    def terminal(self, z):
        return self.base.terminal(z)

    def terminal_derivatives(self, z):
        d = self.base.terminal_derivatives(z)
        return dataclasses.replace(d, phi_z=-d.phi_z) if self.reverse_gradient else d


@pytest.mark.parametrize(
    ("cost", "cause"),
    [
        # l_uu = -1 makes Q_uu about -0.99: Q_uu + mu I stays indefinite up to mu = 0.1.
        (AlteredCost(l_uu=-np.eye(1)), "Q_uu + mu I not positive definite"),
        # A gradient pointing uphill: every step the model predicts raises the true cost.
        (AlteredCost(reverse_gradient=True), "no step decreased the cost"),
    ],
)
def test_regularization_limit_stops_without_a_step(cost, cause):
    u_init = np.zeros((5, 1))
    with pytest.raises(ConvergenceError) as caught:
        control.ilqr(linear_step, Z0_LIN, u_init, cost, mu_max=1e-2)
    error = caught.value
    # mu grew tenfold from 1e-6 and stopped at the first value above the limit.
    assert str(error).startswith(f"ilqr: regularization limit: {cause} (regularization mu = 0.1)")
    assert error.iterations == 0 and error.tolerance == 1e-9


# ---------------------------------------------------------------------------
# Degenerate and bad input
# ---------------------------------------------------------------------------


def test_starting_at_the_optimum_takes_no_step():
    cost = control.QuadraticCost(Q_LIN, R_LIN, Q_final=Q_LIN, z_goal=[0.0, 0.0])
    result = control.ilqr(linear_step, [0.0, 0.0], np.zeros((5, 1)), cost)
    assert result.report.converged and result.report.iterations == 0 and result.cost == 0.0


def test_horizon_of_one_step_by_hand():
    # One step: minimize 1/2 u^T R u + 1/2 (A z0 + B u)^T Qf (A z0 + B u) (plus a constant),
    # so u = -(R + B^T Qf B)^-1 B^T Qf A z0.
    Qf = np.diag([3.0, 0.5])
    cost = control.QuadraticCost(Q_LIN, R_LIN, Q_final=Qf, z_goal=[0.0, 0.0])
    result = control.ilqr(linear_step, Z0_LIN, np.zeros((1, 1)), cost)
    expected = -np.linalg.solve(R_LIN + B_LIN.T @ Qf @ B_LIN, B_LIN.T @ Qf @ A_LIN @ Z0_LIN)
    np.testing.assert_allclose(result.controls[0], expected, rtol=1e-10)


GOOD_COST = control.QuadraticCost(Q_LIN, R_LIN, Q_LIN, [0.0, 0.0])


class NoTerminal:
    def running(self, z, u):
        return 0.0


class TupleDerivatives:
    """GOOD_COST with its derivatives as unnamed tuples (the 1.x protocol)."""

    running, terminal = GOOD_COST.running, GOOD_COST.terminal

    def running_derivatives(self, z, u):
        return tuple(vars(GOOD_COST.running_derivatives(z, u)).values())

    def terminal_derivatives(self, z):
        return tuple(vars(GOOD_COST.terminal_derivatives(z)).values())


class TupleTerminal(TupleDerivatives):
    """Named running derivatives, a tuple for the terminal ones."""

    running_derivatives = GOOD_COST.running_derivatives


class NoCurvature(TupleDerivatives):
    """Running derivatives without l_uu."""

    def running_derivatives(self, z, u):
        d = GOOD_COST.running_derivatives(z, u)
        return type("Partial", (), dict(l_z=d.l_z, l_u=d.l_u, l_zz=d.l_zz, l_uz=d.l_uz))()


def test_the_quadratic_cost_derivatives_are_read_by_name():
    z, u = np.array([[1.0, 2.0], [0.5, -1.0]]), np.array([[0.3], [-0.2]])
    running = GOOD_COST.running_derivatives(z, u)
    assert isinstance(running, control.RunningCostDerivatives)
    np.testing.assert_array_equal(running.l_z, z @ Q_LIN)
    np.testing.assert_array_equal(running.l_u, u @ R_LIN)
    np.testing.assert_array_equal(running.l_zz, Q_LIN)
    np.testing.assert_array_equal(running.l_uu, R_LIN)
    np.testing.assert_array_equal(running.l_uz, np.zeros((1, 2)))
    terminal = GOOD_COST.terminal_derivatives(z[0])
    assert isinstance(terminal, control.TerminalCostDerivatives)
    np.testing.assert_array_equal(terminal.phi_z, z[0] @ Q_LIN)
    np.testing.assert_array_equal(terminal.phi_zz, Q_LIN)
    with pytest.raises(TypeError):
        l_z, l_u, l_zz, l_uu, l_uz = running  # does not unpack like a tuple
    with pytest.raises(dataclasses.FrozenInstanceError):
        terminal.phi_z = None


# Matches of the cases that pass a value of the wrong type (TypeError, not ValueError).
WRONG_TYPES = {
    "dynamics: expected",
    "dynamics_jacobians: expected",
    "cost: expected an object",
    r"cost.running_derivatives\(z, u\): expected a RunningCostDerivatives",
    r"cost.terminal_derivatives\(z\): expected a TerminalCostDerivatives",
    "without l_uu",
}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: control.ilqr("F", Z0_LIN, np.zeros((5, 1)), GOOD_COST), "dynamics: expected"),
        (
            lambda: control.ilqr(
                linear_step, Z0_LIN, np.zeros((5, 1)), GOOD_COST, dynamics_jacobians=3
            ),
            "dynamics_jacobians: expected",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((5, 1)), NoTerminal()),
            "cost: expected an object",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((5, 1)), TupleDerivatives()),
            r"cost.running_derivatives\(z, u\): expected a RunningCostDerivatives",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((5, 1)), TupleTerminal()),
            r"cost.terminal_derivatives\(z\): expected a TerminalCostDerivatives",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((5, 1)), NoCurvature()),
            "without l_uu",
        ),
        (
            lambda: control.ilqr(linear_step, [np.nan, 0.0], np.zeros((5, 1)), GOOD_COST),
            "z0: expected finite",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((0, 1)), GOOD_COST),
            "u_init: expected shape",
        ),
        (lambda: control.ilqr(linear_step, Z0_LIN, np.zeros(5), GOOD_COST), "u_init: expected"),
        (
            lambda: control.ilqr(
                linear_step, Z0_LIN, np.ones((5, 1)), GOOD_COST, u_min=-0.5, u_max=0.5
            ),
            "u_init: expected initial inputs within",
        ),
        (
            lambda: control.ilqr(
                linear_step, Z0_LIN, np.zeros((5, 1)), GOOD_COST, u_min=1.0, u_max=-1.0
            ),
            "u_min, u_max: expected u_min <=",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((5, 1)), GOOD_COST, u_min=-1.0),
            "u_min, u_max: expected both",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((5, 1)), GOOD_COST, max_iter=0),
            "max_iter: expected",
        ),
        (
            lambda: control.ilqr(linear_step, Z0_LIN, np.zeros((5, 1)), GOOD_COST, rtol=-1.0),
            "rtol: expected",
        ),
        (
            lambda: control.ilqr(lambda z, u: z[:1], Z0_LIN, np.zeros((5, 1)), GOOD_COST),
            "dynamics: expected F",
        ),
        (
            lambda: control.ilqr(
                lambda z, u: np.full(np.shape(z), np.inf), Z0_LIN, np.zeros((5, 1)), GOOD_COST
            ),
            "dynamics\\(z, u\\): expected finite",
        ),
        (
            lambda: control.QuadraticCost(Q_LIN, [[0.0]], Q_LIN, [0.0, 0.0]),
            "R: expected a symmetric positive definite",
        ),
        (
            lambda: control.QuadraticCost(-Q_LIN, R_LIN, Q_LIN, [0.0, 0.0]),
            "Q: expected a symmetric positive semidefinite",
        ),
        (lambda: control.QuadraticCost(Q_LIN, R_LIN, np.eye(3), [0.0, 0.0]), "Q_final: expected"),
        (lambda: control.QuadraticCost(Q_LIN, R_LIN, Q_LIN, [0.0]), "z_goal: expected"),
    ],
)
def test_bad_input_is_refused_with_the_argument_named(call, match):
    # A value of the wrong type (a non-callable field, not a system) is a TypeError.
    error = TypeError if match in WRONG_TYPES else ValueError
    with pytest.raises(error, match=match):
        call()
