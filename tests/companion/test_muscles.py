"""geomotion.muscles: torque-velocity factor, activation dynamics, torque generators, end stops.

The references are written out here independently of the module: closed forms at
hand-picked points, one-sided finite differences for the slopes at rest, scipy's
``solve_ivp`` for the activation ODE, quadrature of the end stop's work along paths.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad, solve_ivp
from strategies import examples

from geomotion import muscles

# --- torque-velocity factor ------------------------------------------------------------


def hill(omega, w_max, gamma):
    """Concentric branch written out: (1 - x) / (1 + Gamma x), zero beyond x = 1."""
    x = omega / w_max
    return max(0.0, (1.0 - x) / (1.0 + gamma * x))


def eccentric(omega, w_max, gamma, S, E):
    """Eccentric branch written out from its definition (f(0) = 1, f -> E, slope S)."""
    b = (E - 1.0) / (S * (1.0 + gamma))
    return E - (E - 1.0) * b / (b - omega / w_max)


def test_hand_picked_points_of_the_concentric_branch():
    f = muscles.torque_velocity_factor
    # x = 0.5, Gamma = 3: (1 - 0.5) / (1 + 1.5) = 0.2
    assert f(5.0, max_velocity=10.0, shape=3.0) == pytest.approx(0.2, abs=1e-15)
    # x = 0.25, Gamma = 1: 0.75 / 1.25 = 0.6
    assert f(7.5, max_velocity=30.0, shape=1.0) == pytest.approx(0.6, abs=1e-15)
    omegas = np.array([0.3, 2.0, 9.9, 17.0])
    expected = [hill(w, 20.0, 4.0) for w in omegas]
    np.testing.assert_allclose(f(omegas, max_velocity=20.0, shape=4.0), expected, rtol=1e-14)


def test_hand_picked_points_of_the_eccentric_branch():
    # Gamma = 3, S = 2, E = 1.5: b = 0.5 / 8 = 1/16; at x = -1/16, f = 1.5 - 0.5 / 2 = 1.25
    value = muscles.torque_velocity_factor(-10.0 / 16, max_velocity=10.0, shape=3.0)
    assert value == pytest.approx(1.25, abs=1e-14)
    omegas = np.array([-0.01, -0.5, -3.0, -40.0])
    got = muscles.torque_velocity_factor(
        omegas, max_velocity=12.0, shape=2.5, slope=3.0, eccentric_ratio=1.8
    )
    expected = [eccentric(w, 12.0, 2.5, 3.0, 1.8) for w in omegas]
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_isometric_value_far_eccentric_limit_and_zero_beyond_max_velocity():
    f = muscles.torque_velocity_factor
    options = dict(max_velocity=10.0, shape=3.0, slope=2.0, eccentric_ratio=1.5)
    assert f(0.0, **options) == 1.0
    assert f(-1e-12, **options) == pytest.approx(1.0, abs=1e-9)
    assert f(1e-12, **options) == pytest.approx(1.0, abs=1e-9)
    assert f(-1e9, **options) == pytest.approx(1.5, abs=1e-8)
    assert f(-1e300, **options) == pytest.approx(1.5, abs=1e-12)
    np.testing.assert_array_equal(f(np.array([10.0, 10.5, 1e3, 1e300]), **options), 0.0)


@pytest.mark.parametrize(
    ("gamma", "S", "E", "w_max"), [(3.0, 2.0, 1.5, 10.0), (0.5, 4.0, 1.8, 30.0)]
)
def test_eccentric_slope_at_rest_is_S_times_the_concentric_slope(gamma, S, E, w_max):
    f = muscles.torque_velocity_factor
    options = dict(max_velocity=w_max, shape=gamma, slope=S, eccentric_ratio=E)
    h = 1e-8 * w_max
    concentric = (f(h, **options) - f(0.0, **options)) / h
    lengthening = (f(0.0, **options) - f(-h, **options)) / h
    assert concentric == pytest.approx(-(1 + gamma) / w_max, rel=1e-5)
    assert lengthening == pytest.approx(S * concentric, rel=1e-5)


positive = st.floats(min_value=0.05, max_value=20.0)


@settings(max_examples=examples(60))
@given(
    gamma=positive,
    S=positive,
    E=st.floats(min_value=1.01, max_value=3.0),
    w_max=st.floats(min_value=0.5, max_value=100.0),
)
def test_the_factor_is_non_increasing_and_bounded(gamma, S, E, w_max):
    omega = np.linspace(-5.0 * w_max, 1.5 * w_max, 2001)
    f = muscles.torque_velocity_factor(
        omega, max_velocity=w_max, shape=gamma, slope=S, eccentric_ratio=E
    )
    assert np.all(np.diff(f) <= 1e-15)
    assert np.all((f >= 0.0) & (f <= E))


# --- activation dynamics ---------------------------------------------------------------


def test_integrated_step_matches_the_closed_form():
    t = np.linspace(0.0, 0.5, 501)
    onset, tau = 0.1, 0.03
    excitation = (t >= onset).astype(float)
    got = muscles.integrate_activation(t, excitation, time_constant=tau)
    closed = muscles.step_activation(t, onset, tau)
    np.testing.assert_allclose(got, closed, rtol=0, atol=1e-14)
    hand = np.where(t < onset, 0.0, 1.0 - np.exp(-(t - onset) / tau))
    np.testing.assert_allclose(closed, hand, rtol=0, atol=1e-15)


def test_on_then_off_excitation_matches_solve_ivp():
    tau_act, tau_deact = 0.02, 0.06
    t = np.linspace(0.0, 0.4, 81)
    t_off = t[30]  # 0.15 s, a sample time: the switch is a breakpoint of the hold
    excitation = np.where(t < t_off, 0.8, 0.1)
    got = muscles.integrate_activation(
        t, excitation, time_constant=tau_act, deactivation_time_constant=tau_deact, initial=0.05
    )

    def rate(tau, e):
        return lambda _, a: (e - a) / tau

    on, off = t[:31], t[30:]
    tight = dict(method="DOP853", rtol=1e-10, atol=1e-12)
    first = solve_ivp(rate(tau_act, 0.8), (0.0, t_off), [0.05], t_eval=on, **tight)
    second = solve_ivp(rate(tau_deact, 0.1), (t_off, 0.4), first.y[:, -1], t_eval=off, **tight)
    reference = np.concatenate([first.y[0], second.y[0, 1:]])
    np.testing.assert_allclose(got, reference, rtol=0, atol=1e-8)


def test_activation_stays_in_the_unit_interval_over_a_batch():
    rng = np.random.default_rng(3)
    t = np.cumsum(rng.uniform(1e-4, 0.05, size=200))
    excitation = rng.integers(0, 2, size=(200, 5)).astype(float)
    initial = np.array([0.0, 1.0, 0.5, 0.0, 1.0])
    a = muscles.integrate_activation(
        t, excitation, time_constant=1e-4, deactivation_time_constant=[1e-3], initial=initial
    )
    assert a.shape == (200, 5)
    assert np.all((a >= 0.0) & (a <= 1.0))
    np.testing.assert_array_equal(a[0], initial)


# --- passive range-of-motion limit -----------------------------------------------------

STOP = muscles.PassiveLimit(q_min=-0.4, q_max=1.1, stiffness=250.0)


def test_torque_is_minus_the_potential_gradient():
    q = np.array([-1.3, -0.6, -0.41, 0.0, 1.0, 1.12, 1.5, 2.4])
    h = 1e-6
    gradient = (STOP.potential(q + h) - STOP.potential(q - h)) / (2 * h)
    np.testing.assert_allclose(STOP.tau(q), -gradient, rtol=1e-7, atol=1e-9)


def test_zero_inside_the_range_and_the_closed_forms_outside():
    inside = np.linspace(-0.4, 1.1, 31)
    np.testing.assert_array_equal(STOP.tau(inside), 0.0)
    np.testing.assert_array_equal(STOP.potential(inside), 0.0)
    assert STOP.tau(1.3) == pytest.approx(-250.0 * 0.2**2, rel=1e-12)
    assert STOP.tau(-0.7) == pytest.approx(250.0 * 0.3**2, rel=1e-12)
    assert STOP.potential(1.3) == pytest.approx(250.0 / 3 * 0.2**3, rel=1e-12)
    assert STOP.potential(-0.7) == pytest.approx(250.0 / 3 * 0.3**3, rel=1e-12)


def test_work_around_a_closed_path_is_zero():
    """Out beyond the upper stop at one pace, back at another: the work of tau is zero.

    In one coordinate any torque that is a function of q alone passes the round trip, so
    the out leg is also held to the potential's drop (that part fails on a torque that
    does not match its potential); the round trip fails on a torque that depends on more
    than q (a hysteresis, a cached or path-dependent state).
    """

    def leg(path, speed):
        def power(s):
            return float(STOP.tau(path(s))) * speed(s)

        return quad(power, 0.0, 1.0, epsabs=1e-13, epsrel=1e-13, limit=200)[0]

    q0, q1 = 0.2, 1.9
    out = leg(lambda s: q0 + (q1 - q0) * s**2, lambda s: 2 * (q1 - q0) * s)
    back = leg(
        lambda s: q1 + (q0 - q1) * np.sin(np.pi * s / 2),
        lambda s: (q0 - q1) * np.pi / 2 * np.cos(np.pi * s / 2),
    )
    assert abs(out) > 10.0
    assert out == pytest.approx(float(STOP.potential(q0) - STOP.potential(q1)), rel=1e-9)
    assert abs(out + back) <= 1e-9 * abs(out)


@pytest.mark.parametrize(("q_a", "q_b"), [(0.0, 1.7), (1.7, -1.2), (-0.9, -0.5), (0.5, 0.6)])
def test_work_between_two_points_is_the_drop_in_potential(q_a, q_b):
    work = quad(lambda q: float(STOP.tau(q)), q_a, q_b, epsabs=1e-13, epsrel=1e-13)[0]
    drop = float(STOP.potential(q_a) - STOP.potential(q_b))
    assert work == pytest.approx(drop, rel=1e-9, abs=1e-12)


def test_the_limit_broadcasts_over_a_batch():
    stops = muscles.PassiveLimit(q_min=[-1.0, 0.0], q_max=[1.0, 0.5], stiffness=[10.0, 40.0])
    q = np.array([[1.5], [-0.5]])  # (2, 1) against the (2,) batch
    np.testing.assert_allclose(
        stops.tau(q), [[-10 * 0.25, -40 * 1.0], [0.0, 40 * 0.25]], rtol=1e-14
    )
    assert not stops.q_min.flags.writeable


# --- the torque generator --------------------------------------------------------------

GENERATOR = dict(peak_torque=200.0, max_velocity=30.0, shape=3.0, time_constant=0.04)


def test_full_activation_at_rest_gives_the_peak_torque():
    assert muscles.TorqueGenerator(**GENERATOR).tau(1.0, 0.0) == 200.0
    assert muscles.TorqueGenerator(**GENERATOR, direction=-1).tau(1.0, 0.0) == -200.0


def test_direction_minus_one_mirrors_direction_plus_one():
    plus = muscles.TorqueGenerator(**GENERATOR)
    minus = muscles.TorqueGenerator(**GENERATOR, direction=-1.0)
    omega = np.linspace(-60.0, 60.0, 41)
    a = np.linspace(0.0, 1.0, 41)
    np.testing.assert_allclose(minus.tau(a, -omega), -plus.tau(a, omega), rtol=1e-15)
    # shortening (omega > 0 for +1) and an independent value: a = 0.5, x = 0.5 -> 0.5 * 200 * 0.2
    assert plus.tau(0.5, 15.0) == pytest.approx(20.0, rel=1e-14)
    assert minus.tau(0.5, -15.0) == pytest.approx(-20.0, rel=1e-14)
    # lengthening resists with more than the isometric torque
    assert plus.tau(1.0, -5.0) > 200.0
    assert minus.tau(1.0, 5.0) < -200.0


def test_a_batch_of_peak_torques_broadcasts():
    peaks = np.array([50.0, 100.0, 250.0])
    generator = muscles.TorqueGenerator(**{**GENERATOR, "peak_torque": peaks})
    t = np.linspace(0.0, 0.3, 7)[:, None]
    tau = generator.step_tau(t, 0.05, 15.0)
    assert tau.shape == (7, 3)
    a = 1.0 - np.exp(-np.maximum(t - 0.05, 0.0) / 0.04)
    np.testing.assert_allclose(tau, a * peaks * 0.2, rtol=1e-13, atol=1e-13)
    assert not generator.peak_torque.flags.writeable


# --- bad input -------------------------------------------------------------------------

TVF = muscles.torque_velocity_factor


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: TVF(None, max_velocity=1.0, shape=1.0), TypeError, "omega"),
        (lambda: TVF("fast", max_velocity=1.0, shape=1.0), TypeError, "omega"),
        (lambda: TVF(1.0, max_velocity=1j, shape=1.0), TypeError, "max_velocity"),
        (lambda: TVF(np.nan, max_velocity=1.0, shape=1.0), ValueError, "omega"),
        (lambda: TVF(1.0, max_velocity=0.0, shape=1.0), ValueError, "max_velocity"),
        (lambda: TVF(1.0, max_velocity=-3.0, shape=1.0), ValueError, "max_velocity"),
        (lambda: TVF(1.0, max_velocity=1.0, shape=0.0), ValueError, "shape"),
        (lambda: TVF(1.0, max_velocity=1.0, shape=1.0, slope=0.0), ValueError, "slope"),
        (
            lambda: TVF(1.0, max_velocity=1.0, shape=1.0, eccentric_ratio=1.0),
            ValueError,
            "eccentric_ratio",
        ),
        (
            lambda: TVF([1.0, 2.0], max_velocity=[1.0, 2.0, 3.0], shape=1.0),
            ValueError,
            "max_velocity",
        ),
        (lambda: muscles.step_activation(0.1, None, 0.1), TypeError, "onset"),
        (lambda: muscles.step_activation(np.inf, 0.0, 0.1), ValueError, "^t"),
        (lambda: muscles.step_activation(0.1, 0.0, 0.0), ValueError, "time_constant"),
        (
            lambda: muscles.integrate_activation([0, 1, 1], [0, 0, 0], time_constant=1.0),
            ValueError,
            "^t",
        ),
        (
            lambda: muscles.integrate_activation([0, 2, 1], [0, 0, 0], time_constant=1.0),
            ValueError,
            "^t",
        ),
        (
            lambda: muscles.integrate_activation([0, 1], [0, 1.2], time_constant=1.0),
            ValueError,
            "excitation",
        ),
        (
            lambda: muscles.integrate_activation([0, 1], [0, 1, 1], time_constant=1.0),
            ValueError,
            "excitation",
        ),
        (
            lambda: muscles.integrate_activation([0, 1], [0, 1], time_constant=-1.0),
            ValueError,
            "time_constant",
        ),
        (
            lambda: muscles.integrate_activation(
                [0, 1], [0, 1], time_constant=1.0, deactivation_time_constant=0.0
            ),
            ValueError,
            "deactivation_time_constant",
        ),
        (
            lambda: muscles.integrate_activation([0, 1], [0, 1], time_constant=1.0, initial=-0.1),
            ValueError,
            "initial",
        ),
        (
            lambda: muscles.integrate_activation([0, 1], [0, np.nan], time_constant=1.0),
            ValueError,
            "excitation",
        ),
        (
            lambda: muscles.TorqueGenerator(**{**GENERATOR, "peak_torque": 0.0}),
            ValueError,
            "peak_torque",
        ),
        (
            lambda: muscles.TorqueGenerator(**{**GENERATOR, "peak_torque": "big"}),
            TypeError,
            "peak_torque",
        ),
        (
            lambda: muscles.TorqueGenerator(**{**GENERATOR, "max_velocity": -1.0}),
            ValueError,
            "max_velocity",
        ),
        (lambda: muscles.TorqueGenerator(**{**GENERATOR, "shape": 0.0}), ValueError, "shape"),
        (
            lambda: muscles.TorqueGenerator(**GENERATOR, eccentric_ratio=0.9),
            ValueError,
            "eccentric_ratio",
        ),
        (lambda: muscles.TorqueGenerator(**GENERATOR, slope=-2.0), ValueError, "slope"),
        (lambda: muscles.TorqueGenerator(**GENERATOR, direction=0.5), ValueError, "direction"),
        (
            lambda: muscles.TorqueGenerator(**GENERATOR, deactivation_time_constant=0.0),
            ValueError,
            "deactivation",
        ),
        (lambda: muscles.TorqueGenerator(**GENERATOR).tau(1.01, 0.0), ValueError, "activation"),
        (lambda: muscles.TorqueGenerator(**GENERATOR).tau(-0.01, 0.0), ValueError, "activation"),
        (lambda: muscles.TorqueGenerator(**GENERATOR).tau(0.5, np.nan), ValueError, "omega"),
        (lambda: muscles.TorqueGenerator(**GENERATOR).tau(None, 0.0), TypeError, "activation"),
        (
            lambda: muscles.TorqueGenerator(**GENERATOR).step_tau(0.1, 0.0, "x"),
            TypeError,
            "omega",
        ),
        (
            lambda: muscles.PassiveLimit(q_min=1.0, q_max=1.0, stiffness=1.0),
            ValueError,
            "q_min, q_max",
        ),
        (
            lambda: muscles.PassiveLimit(q_min=2.0, q_max=1.0, stiffness=1.0),
            ValueError,
            "q_min, q_max",
        ),
        (
            lambda: muscles.PassiveLimit(q_min=0.0, q_max=1.0, stiffness=0.0),
            ValueError,
            "stiffness",
        ),
        (lambda: muscles.PassiveLimit(q_min=np.nan, q_max=1.0, stiffness=1.0), ValueError, "q_min"),
        (lambda: muscles.PassiveLimit(q_min=None, q_max=1.0, stiffness=1.0), TypeError, "q_min"),
        (lambda: STOP.tau(np.nan), ValueError, "^q"),
        (lambda: STOP.potential([True]), TypeError, "^q"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, error, name):
    with pytest.raises(error, match=name):
        call()
