"""Fixed-step integration of tree dynamics and its work-energy report.

Expectations are convergence orders (RK4: 16x per halving of dt; semi-implicit Euler: 2x),
hand-derived closed forms (a free rotor under t-linear and constant torque, the discrete
semi-implicit Euler recurrence), an independent scipy integration of the hand-written
pendulum equation, and physical signs (damping removes energy).
"""

import dataclasses

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from geomotion import inertia, integrators, spatial, tree

G = 9.81


def three_link_pendulum():
    """Three links hanging along -z, with rotated, offset joints on non-parallel axes."""
    axis3 = np.array([0.0, 0.6, 0.8])
    subspaces = np.array([[1.0, 0, 0, 0, 0, 0], [0, 1.0, 0, 0, 0, 0], [*axis3, 0, 0, 0]])
    placements = np.array(
        [
            spatial.pose(spatial.rot_z(0.3), [0.0, 0.0, 0.1]),
            spatial.pose(spatial.rot_x(0.5) @ spatial.rot_y(0.2), [0.1, 0.05, -0.5]),
            spatial.pose(spatial.rot_y(-0.4), [0.0, -0.1, -0.4]),
        ]
    )
    bodies = [
        (2.0, [0.05, 0.0, -0.25], [0.04, 0.05, 0.01]),
        (1.5, [0.0, 0.03, -0.2], [0.02, 0.03, 0.01]),
        (0.8, [0.02, 0.0, -0.15], [0.01, 0.012, 0.004]),
    ]
    inertias = np.array([inertia.spatial_inertia(m, c, np.diag(d)) for m, c, d in bodies])
    return tree.Tree((-1, 0, 1), subspaces, placements, inertias)


MODEL = three_link_pendulum()
Q0 = np.array([0.8, -0.5, 1.0])
QD0 = np.array([0.5, 1.0, -1.5])


def max_residual(trajectory):
    return np.abs(trajectory.energy_residual).max()


# --- convergence of the energy residual --------------------------------------


def test_rk4_energy_residual_is_fourth_order():
    coarse = integrators.simulate(MODEL, Q0, QD0, 0.02, 50, method="rk4")
    fine = integrators.simulate(MODEL, Q0, QD0, 0.01, 100, method="rk4")
    assert coarse.t[-1] == pytest.approx(fine.t[-1]) == pytest.approx(1.0)
    ratio = max_residual(coarse) / max_residual(fine)
    assert 12 < ratio < 20, ratio  # 2^4 = 16
    assert max_residual(fine) < 1e-5
    # The motion is far from trivial: energy moves between K and V by joules.
    assert np.ptp(fine.kinetic) > 1.0


def test_semi_implicit_euler_energy_residual_is_first_order():
    coarse = integrators.simulate(MODEL, Q0, QD0, 0.02, 50, method="semi_implicit_euler")
    fine = integrators.simulate(MODEL, Q0, QD0, 0.01, 100, method="semi_implicit_euler")
    ratio = max_residual(coarse) / max_residual(fine)
    assert 1.7 < ratio < 2.4, ratio  # 2^1


def test_semi_implicit_euler_energy_error_stays_bounded_for_a_constant_mass_matrix():
    # One revolute joint: M is constant, the scheme is symplectic, the error oscillates
    # with the motion and does not drift: the worst residual of every later interval
    # equals that of the first to within a few percent.
    pendulum = tree.Tree((-1,), MODEL.screws[:1], MODEL.placements[:1], MODEL.inertias[:1])
    # 1000 steps of 0.02 s are 20 s, about 16 periods of this pendulum.
    euler = "semi_implicit_euler"
    trajectory = integrators.simulate(pendulum, [1.0], [0.0], 0.02, 1000, method=euler)
    worst = np.abs(trajectory.energy_residual[1:]).reshape(4, 250).max(axis=1)
    np.testing.assert_allclose(worst, worst[0], rtol=0.05)
    half = integrators.simulate(pendulum, [1.0], [0.0], 0.01, 500, method=euler)
    ratio = np.abs(trajectory.energy_residual[:251]).max() / max_residual(half)
    assert ratio == pytest.approx(2.0, rel=0.1)


# --- applied torques and the work term -----------------------------------------


@pytest.mark.parametrize("method, tolerance", [("rk4", 1e-3), ("semi_implicit_euler", 0.5)])
def test_constant_torque_work_balances_the_energy_change(method, tolerance):
    tau = np.array([2.0, -1.0, 0.5])
    trajectory = integrators.simulate(MODEL, Q0, QD0, 0.01, 100, method=method, tau=tau)
    # A constant torque's work is tau . (q - q0) exactly, whatever the path.
    np.testing.assert_allclose(trajectory.input_work, (trajectory.q - Q0) @ tau, atol=1e-12)
    energy_change = trajectory.energy - trajectory.energy[0]
    assert np.abs(energy_change).max() > 3.0  # the torque does joules of work ...
    # ... and with it included the balance closes to the integrator's accuracy.
    assert max_residual(trajectory) < tolerance * np.abs(energy_change).max()


def test_constant_torque_rk4_residual_still_converges_at_fourth_order():
    tau = np.array([2.0, -1.0, 0.5])
    coarse = integrators.simulate(MODEL, Q0, QD0, 0.02, 50, tau=tau)
    fine = integrators.simulate(MODEL, Q0, QD0, 0.01, 100, tau=tau)
    assert 12 < max_residual(coarse) / max_residual(fine) < 20


def test_damping_torque_removes_energy_and_the_balance_closes():
    damping = 0.1  # N m s/rad; time constant ~ (0.01 kg m^2) / damping = 0.1 s >> dt

    def torque(t, q, qd):
        return -damping * qd

    trajectory = integrators.simulate(MODEL, Q0, QD0, 0.01, 100, tau=torque)
    assert np.all(np.diff(trajectory.input_work) <= 0)  # power -c |qd|^2 <= 0
    assert trajectory.energy[-1] < trajectory.energy[0] - 0.5
    assert max_residual(trajectory) < 1e-5


def free_rotor(J=0.25):
    """One body spinning about the vertical z axis: gravity does no work, K = J qd^2 / 2."""
    I = inertia.spatial_inertia(3.0, [0.0, 0.0, -0.2], np.diag([0.15, 0.15, J]))
    return tree.Tree((-1,), [[0, 0, 1.0, 0, 0, 0]], [np.eye(4)], [I], gravity=(0.0, 0.0, -9.81))


def test_rk4_is_exact_for_a_rotor_under_a_torque_linear_in_time():
    # J qdd = a t  ->  qd = a t^2 / (2J), q = a t^3 / (6J), W = a^2 t^4 / (8J) = K.
    # The solution is a cubic, which RK4 integrates exactly: this checks the stage times.
    J, a = 0.25, 1.5

    def torque(t, q, qd):
        return a * t * np.ones_like(q)

    trajectory = integrators.simulate(free_rotor(J), [0.0], [0.0], 0.1, 20, tau=torque)
    t = trajectory.t
    np.testing.assert_allclose(trajectory.q[:, 0], a * t**3 / (6 * J), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(trajectory.v[:, 0], a * t**2 / (2 * J), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(trajectory.input_work, a**2 * t**4 / (8 * J), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(trajectory.potential, trajectory.potential[0], atol=1e-12)


def test_semi_implicit_euler_follows_its_hand_derived_recurrence_on_a_rotor():
    # Velocity first, then position with the new velocity:
    #   qd_n = tau n dt / J,  q_n = dt sum_{k=1..n} qd_k = tau dt^2 n (n + 1) / (2J),
    #   W_n = tau q_n,  residual = K_n - W_n = -tau^2 dt^2 n / (2J).
    J, tau, dt = 0.25, 0.6, 0.05
    trajectory = integrators.simulate(
        free_rotor(J), [0.0], [0.0], dt, 30, method="semi_implicit_euler", tau=[tau]
    )
    n = np.arange(31)
    np.testing.assert_allclose(trajectory.v[:, 0], tau * n * dt / J, rtol=1e-12)
    np.testing.assert_allclose(trajectory.q[:, 0], tau * dt**2 * n * (n + 1) / (2 * J), rtol=1e-12)
    expected_residual = -(tau**2) * dt**2 * n / (2 * J)
    np.testing.assert_allclose(trajectory.energy_residual, expected_residual, rtol=1e-9, atol=1e-14)


# --- an independent integration of a hand-written equation ----------------------


def test_rk4_pendulum_matches_scipy_on_the_hand_written_equation():
    # Revolute about x, centre of mass at (0, 0, -l): theta'' = -(m g l / I_O) sin(theta),
    # I_O = I_C,xx + m l^2.
    m, l, Ixx = 1.2, 0.7, 0.03
    body = inertia.spatial_inertia(m, [0.0, 0.0, -l], np.diag([Ixx, 0.02, 0.01]))
    pendulum = tree.Tree((-1,), [[1.0, 0, 0, 0, 0, 0]], [np.eye(4)], [body])
    k = m * G * l / (Ixx + m * l**2)
    reference = solve_ivp(
        lambda t, y: [y[1], -k * np.sin(y[0])],
        (0, 1.0),
        [1.2, 0.3],
        method="DOP853",
        rtol=1e-12,
        atol=1e-12,
        dense_output=True,
    )
    errors = []
    for dt, n_steps in ((0.01, 100), (0.005, 200)):
        trajectory = integrators.simulate(pendulum, [1.2], [0.3], dt, n_steps)
        expected = reference.sol(trajectory.t)
        errors.append(
            max(
                np.abs(trajectory.q[:, 0] - expected[0]).max(),
                np.abs(trajectory.v[:, 0] - expected[1]).max(),
            )
        )
    assert errors[0] < 2e-7
    assert 12 < errors[0] / errors[1] < 20  # the trajectory itself converges at order 4
    # Potential energy: zero at the base origin, -m g l cos(theta).
    expected_potential = -m * G * l * np.cos(trajectory.q[:, 0])
    np.testing.assert_allclose(trajectory.potential, expected_potential, atol=1e-12)


# --- batches, gravity and the result object ------------------------------------


def test_a_batch_of_initial_states_equals_separate_runs():
    q0 = np.array([Q0, -Q0, 0.5 * Q0])
    batch = integrators.simulate(MODEL, q0, QD0, 0.02, 10, method="semi_implicit_euler")
    assert batch.q.shape == (11, 3, 3) and batch.energy_residual.shape == (11, 3)
    for k in range(3):
        single = integrators.simulate(MODEL, q0[k], QD0, 0.02, 10, method="semi_implicit_euler")
        np.testing.assert_allclose(batch.q[:, k], single.q, atol=1e-13)
        np.testing.assert_allclose(batch.energy_residual[:, k], single.energy_residual, atol=1e-12)


def test_gravity_argument_is_used_and_zero_gravity_conserves_kinetic_energy():
    trajectory = integrators.simulate(MODEL, Q0, QD0, 0.01, 50, gravity=(0.0, 0.0, 0.0))
    np.testing.assert_array_equal(trajectory.potential, 0.0)
    np.testing.assert_allclose(trajectory.kinetic, trajectory.kinetic[0], rtol=1e-7)


def test_trajectory_is_frozen_and_reports_its_settings():
    trajectory = integrators.simulate(MODEL, Q0, QD0, 0.01, 3)
    assert trajectory.method == "rk4" and trajectory.dt == 0.01
    np.testing.assert_allclose(trajectory.t, [0.0, 0.01, 0.02, 0.03])
    np.testing.assert_array_equal(trajectory.q[0], Q0)
    np.testing.assert_array_equal(trajectory.energy_residual[0], 0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        trajectory.dt = 0.1


# --- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"dt": 0.0}, "dt"),
        ({"dt": -0.01}, "dt"),
        ({"dt": np.nan}, "dt"),
        ({"dt": [0.01, 0.02]}, "dt"),
        ({"n_steps": 0}, "n_steps"),
        ({"n_steps": 2.5}, "n_steps"),
        ({"method": "euler"}, "method"),
        ({"q0": [0.1, 0.2]}, "q0"),
        ({"q0": [0.1, np.inf, 0.2]}, "q0"),
        ({"v0": np.zeros(4)}, "v0"),
        ({"v0": np.zeros((2, 3)), "q0": np.zeros((3, 3))}, "v0"),
        ({"tau": [1.0, 2.0]}, "tau"),
        ({"tau": 1.0}, "tau"),
        ({"tau": lambda t, q, v: np.zeros(2)}, "tau"),
        ({"tau": lambda t, q, v: np.full(3, np.nan)}, "tau"),
        ({"gravity": (0.0, -9.81)}, "gravity"),
        ({"gravity": np.zeros((2, 3))}, "gravity"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(kwargs, name):
    arguments = {"q0": Q0, "v0": QD0, "dt": 0.01, "n_steps": 2, **kwargs}
    with pytest.raises(ValueError, match=f"^{name}"):
        integrators.simulate(MODEL, **arguments)


def test_non_tree_model_raises_type_error_naming_model():
    with pytest.raises(TypeError, match="^model"):
        integrators.simulate("not a tree", Q0, QD0, 0.01, 2)


def test_options_are_keyword_only_and_results_are_read_by_name():
    with pytest.raises(TypeError):
        integrators.simulate(MODEL, Q0, QD0, 0.01, 2, "rk4")
    trajectory = integrators.simulate(MODEL, Q0, QD0, 0.01, 2)
    assert not hasattr(trajectory, "qd") and not hasattr(trajectory, "work")
    np.testing.assert_array_equal(trajectory.v[0], QD0)


# --- the torque callable is called only inside the scheme --------------------------


@pytest.mark.parametrize(
    "method, stage_offsets",
    [
        ("rk4", (0.0, 0.5, 0.5, 1.0)),
        ("semi_implicit_euler", (0.0,)),
    ],
)
def test_torque_callable_is_called_once_per_stage_in_time_order(method, stage_offsets):
    # A stateful controller (here: one that records its calls) must see every stage
    # exactly once and nothing else: no extra call at t = 0 before the first step.
    dt, n_steps = 0.01, 5
    calls = []

    def torque(t, q, qd):
        calls.append(t)
        return np.zeros_like(q)

    integrators.simulate(MODEL, Q0, QD0, dt, n_steps, method=method, tau=torque)
    expected = [dt * (k + offset) for k in range(n_steps) for offset in stage_offsets]
    np.testing.assert_allclose(calls, expected, rtol=0, atol=1e-15)


def test_torque_callable_keeps_the_batch_shape_of_the_state():
    shapes = []

    def torque(t, q, qd):
        shapes.append(q.shape)
        return 0.1 * np.ones(3)  # broadcast to the batch

    batch = integrators.simulate(MODEL, np.array([Q0, -Q0]), QD0, 0.01, 2, tau=torque)
    assert set(shapes) == {(2, 3)}
    single = integrators.simulate(MODEL, -Q0, QD0, 0.01, 2, tau=0.1 * np.ones(3))
    np.testing.assert_allclose(batch.q[:, 1], single.q, atol=1e-14)


# --- viscous damping -----------------------------------------------------------------


def damped_pendulum_reference(m, l, Ixx, c, theta0, thetad0, t_end):
    """scipy's integration of I_O theta'' = -m g l sin(theta) - c theta', with the
    dissipated energy int c theta'^2 dt carried as a third state (hand-written model)."""
    I_O = Ixx + m * l**2

    def rhs(t, y):
        theta, rate, _ = y
        return [rate, (-m * G * l * np.sin(theta) - c * rate) / I_O, c * rate**2]

    return solve_ivp(
        rhs,
        (0.0, t_end),
        [theta0, thetad0, 0.0],
        method="DOP853",
        rtol=1e-12,
        atol=1e-13,
        dense_output=True,
    )


def test_damped_pendulum_matches_scipy_and_its_dissipated_energy_equals_the_lost_energy():
    m, l, Ixx, c = 1.2, 0.7, 0.03, 0.15  # c in N m s/rad
    body = inertia.spatial_inertia(m, [0.0, 0.0, -l], np.diag([Ixx, 0.02, 0.01]))
    pendulum = tree.Tree((-1,), [[1.0, 0, 0, 0, 0, 0]], [np.eye(4)], [body])
    reference = damped_pendulum_reference(m, l, Ixx, c, 1.2, 0.3, 2.0)
    residuals = {}
    for method, dt in (
        ("rk4", 0.01),
        ("rk4", 0.005),
        ("semi_implicit_euler", 0.004),
        ("semi_implicit_euler", 0.002),
    ):
        trajectory = integrators.simulate(
            pendulum, [1.2], [0.3], dt, round(2.0 / dt), method=method, damping=[c]
        )
        expected = reference.sol(trajectory.t)
        lost = trajectory.energy[0] - trajectory.energy
        # No torque: the balance is E0 - E = W_diss, and both sides are joules here.
        assert lost[-1] > 1.0
        np.testing.assert_array_equal(trajectory.input_work, 0.0)
        # Achieved against scipy: rk4 5e-8 rad and 3e-8 J at dt = 0.01; semi-implicit
        # Euler 9e-3 rad and 1.4e-3 J at dt = 0.004.
        tolerance = 5e-6 if method == "rk4" else 0.05
        np.testing.assert_allclose(trajectory.q[:, 0], expected[0], rtol=0, atol=tolerance)
        np.testing.assert_allclose(trajectory.dissipated, expected[2], rtol=0, atol=tolerance)
        residuals[method, dt] = np.abs(trajectory.dissipated - lost).max()
    # The residual E0 - E - W_diss converges at each method's order; measured: rk4
    # 5.1e-8 -> 3.7e-9 J (ratio 13.8, nearing 16), semi-implicit Euler ratio 2.0.
    assert residuals["rk4", 0.005] < 4e-7
    assert 12 < residuals["rk4", 0.01] / residuals["rk4", 0.005] < 20
    ratio = residuals["semi_implicit_euler", 0.004] / residuals["semi_implicit_euler", 0.002]
    assert 1.8 < ratio < 2.2


def test_damping_dissipates_non_negative_power_and_closes_the_balance_with_a_torque():
    B_d = np.array([[0.2, 0.05, 0.0], [0.05, 0.1, 0.02], [0.0, 0.02, 0.08]])  # SPD
    tau = np.array([1.0, -0.5, 0.3])
    coarse = integrators.simulate(MODEL, Q0, QD0, 0.02, 50, tau=tau, damping=B_d)
    fine = integrators.simulate(MODEL, Q0, QD0, 0.01, 100, tau=tau, damping=B_d)
    assert np.all(np.diff(fine.dissipated) >= 0)
    assert fine.dissipated[-1] > 0.1  # 1.25 J
    np.testing.assert_allclose(fine.input_work, (fine.q - Q0) @ tau, atol=1e-12)
    assert max_residual(fine) < 3e-5  # 2.9e-7 J achieved; ratio 15.3 per halving
    assert 12 < max_residual(coarse) / max_residual(fine) < 20


def test_damping_vector_equals_its_diagonal_matrix_and_zero_damping_changes_nothing():
    c = np.array([0.1, 0.2, 0.05])
    by_vector = integrators.simulate(MODEL, Q0, QD0, 0.01, 20, damping=c)
    by_matrix = integrators.simulate(MODEL, Q0, QD0, 0.01, 20, damping=np.diag(c))
    np.testing.assert_allclose(by_vector.q, by_matrix.q, atol=1e-14)
    np.testing.assert_allclose(by_vector.dissipated, by_matrix.dissipated, atol=1e-14)
    undamped = integrators.simulate(MODEL, Q0, QD0, 0.01, 20)
    zero = integrators.simulate(MODEL, Q0, QD0, 0.01, 20, damping=np.zeros(3))
    np.testing.assert_array_equal(zero.q, undamped.q)
    np.testing.assert_array_equal(undamped.dissipated, 0.0)


@pytest.mark.parametrize(
    "damping, message",
    [
        ([0.1, -0.2, 0.1], "non-negative"),
        ([0.1, 0.2], "shape"),
        (np.ones((3, 2)), "shape"),
        ([[0.1, 0.2, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]], "symmetric"),
        ([[0.1, 0.3, 0.0], [0.3, 0.1, 0.0], [0.0, 0.0, 0.1]], "semidefinite"),
        ([np.nan, 0.1, 0.1], "finite"),
    ],
)
def test_bad_damping_raises_value_error_naming_it(damping, message):
    with pytest.raises(ValueError, match=f"^damping: .*{message}"):
        integrators.simulate(MODEL, Q0, QD0, 0.01, 2, damping=damping)


def test_a_boolean_step_count_is_a_type_error():
    with pytest.raises(TypeError, match="^n_steps: expected an integer >= 1, got True"):
        integrators.simulate(MODEL, Q0, QD0, 0.01, True)
