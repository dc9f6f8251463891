"""geomotion.muscles: the damped end stop (DampedLimit) and activation held before an onset.

References written out independently: the stop's closed forms by hand, its potential by
quadrature of the elastic torque, closed-path work by quadrature along two legs, the
damping's power by its sign; the held activation against solve_ivp of the ODE.
"""

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp

from geomotion import muscles

LIMIT = dict(q_min=-0.4, q_max=1.1, scale=2.0, rate=15.0, damping=3.0, damping_angle=0.08)
STOP = muscles.DampedLimit(**LIMIT)


def test_closed_forms_by_hand():
    # 0.2 rad above the upper edge: k1 (e^y - 1 - y - y^2/2) with y = k2 x = 3
    assert STOP.elastic_tau(1.3) == pytest.approx(-2.0 * (np.exp(3.0) - 8.5), rel=1e-13)
    # 0.1 rad below the lower edge: y = 1.5
    assert STOP.elastic_tau(-0.5) == pytest.approx(2.0 * (np.exp(1.5) - 3.625), rel=1e-13)
    # potential (k1/k2)(e^y - 1 - y - y^2/2 - y^3/6), y = 3
    assert STOP.potential(1.3) == pytest.approx(2.0 / 15.0 * (np.exp(3.0) - 13.0), rel=1e-13)
    # damping: full weight from 0.08 rad past the edge, half at 0.04 (10/8 - 15/16 + 6/32)
    assert STOP.damping_tau(1.3, 2.0) == pytest.approx(-3.0 * 2.0, rel=1e-14)
    assert STOP.damping_tau(1.14, -1.0) == pytest.approx(3.0 * 0.5, rel=1e-13)
    assert STOP.tau(1.3, 2.0) == pytest.approx(-2.0 * (np.exp(3.0) - 8.5) - 6.0, rel=1e-13)


def test_zero_inside_the_range_whatever_the_rate():
    inside = np.linspace(-0.4, 1.1, 31)
    np.testing.assert_array_equal(STOP.tau(inside, 7.0), 0.0)
    np.testing.assert_array_equal(STOP.potential(inside), 0.0)


def test_near_an_edge_it_is_cubic():
    """tau_e ~ -k1 k2^3 x^3 / 6 for a small overshoot (C2 at the edge)."""
    x = 1e-4
    assert STOP.elastic_tau(1.1 + x) == pytest.approx(-2.0 * 15.0**3 * x**3 / 6, rel=1e-3)
    assert STOP.elastic_tau(-0.4 - x) == pytest.approx(2.0 * 15.0**3 * x**3 / 6, rel=1e-3)


def test_elastic_torque_is_minus_the_potential_gradient_and_its_integral():
    q = np.array([-1.0, -0.6, -0.41, 0.0, 1.0, 1.12, 1.3, 1.45])
    h = 1e-6
    gradient = (STOP.potential(q + h) - STOP.potential(q - h)) / (2 * h)
    np.testing.assert_allclose(STOP.elastic_tau(q), -gradient, rtol=1e-6, atol=1e-8)
    for a, b in [(0.0, 1.4), (1.4, -0.9), (-0.9, -0.5)]:
        work = quad(lambda s: float(STOP.elastic_tau(s)), a, b, epsabs=1e-12, epsrel=1e-12)[0]
        assert work == pytest.approx(float(STOP.potential(a) - STOP.potential(b)), rel=1e-9)


def leg_work(torque, path, speed):
    """Work of torque(q, v) along q = path(s), dq/ds = speed(s), s in [0, 1] (v = dq/ds)."""

    def power(s):
        return float(torque(path(s), speed(s))) * speed(s)

    return quad(power, 0.0, 1.0, epsabs=1e-12, epsrel=1e-12, limit=400)[0]


LEGS = (
    (lambda s: 0.2 + 1.3 * s**2, lambda s: 2.6 * s),  # out beyond the upper edge, 0.2 -> 1.5
    (
        lambda s: 1.5 - 1.3 * np.sin(np.pi * s / 2),
        lambda s: -1.3 * np.pi / 2 * np.cos(np.pi * s / 2),
    ),
)


def test_closed_path_work_of_the_elastic_part_is_zero():
    out, back = (leg_work(lambda q, v: STOP.elastic_tau(q), *leg) for leg in LEGS)
    assert abs(out) > 1.0
    assert abs(out + back) <= 1e-9 * abs(out)


def test_the_damping_only_dissipates():
    """Power -c w v^2 <= 0 everywhere, strictly negative beyond an edge while moving; the
    whole stop's closed-path work is negative by exactly the damping's."""
    q = np.linspace(-1.0, 1.6, 261)[:, None]
    v = np.linspace(-20.0, 20.0, 41)[None, :]
    power = STOP.damping_tau(q, v) * v
    assert np.all(power <= 0.0)
    assert np.all(power[(q[:, 0] > 1.15), :][:, v[0] != 0] < 0.0)
    total = sum(leg_work(STOP.tau, *leg) for leg in LEGS)
    damping = sum(leg_work(STOP.damping_tau, *leg) for leg in LEGS)
    assert total < -0.1
    assert total == pytest.approx(damping, rel=1e-8)


def test_no_damping_is_the_elastic_stop():
    elastic = muscles.DampedLimit(**{**LIMIT, "damping": 0.0})
    q = np.array([-0.7, 0.3, 1.4])
    np.testing.assert_array_equal(elastic.tau(q, 5.0), elastic.elastic_tau(q))


def test_a_batch_of_stops_broadcasts():
    stops = muscles.DampedLimit(**{**LIMIT, "q_max": [1.1, 0.9]})
    tau = stops.tau(np.array([[1.3], [0.0]]), 1.0)
    assert tau.shape == (2, 2)
    assert tau[0, 0] == pytest.approx(STOP.tau(1.3, 1.0), rel=1e-14)
    assert not stops.scale.flags.writeable


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: muscles.DampedLimit(**{**LIMIT, "q_min": 2.0}), ValueError, "q_min, q_max"),
        (lambda: muscles.DampedLimit(**{**LIMIT, "scale": 0.0}), ValueError, "scale"),
        (lambda: muscles.DampedLimit(**{**LIMIT, "rate": -1.0}), ValueError, "rate"),
        (lambda: muscles.DampedLimit(**{**LIMIT, "damping": -0.1}), ValueError, "damping"),
        (
            lambda: muscles.DampedLimit(**{**LIMIT, "damping_angle": 0.0}),
            ValueError,
            "damping_angle",
        ),
        (lambda: muscles.DampedLimit(**{**LIMIT, "damping": None}), TypeError, "damping"),
        (lambda: STOP.tau(1.2, np.nan), ValueError, "^v"),
        (lambda: STOP.tau("x", 1.0), TypeError, "^q"),
        (lambda: muscles.step_activation(0.1, 0.0, 0.03, initial=1.5), ValueError, "initial"),
        (lambda: muscles.step_activation(0.1, 0.0, 0.03, initial=None), TypeError, "initial"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(call, error, name):
    with pytest.raises(error, match=name):
        call()


# --- activation held before the onset ---------------------------------------------------


def test_held_activation_is_the_exact_solution():
    onset, tau, held = 0.05, 0.03, 0.3
    t = np.linspace(0.0, 0.3, 301)
    a = muscles.step_activation(t, onset, tau, initial=held)
    hand = np.where(t < onset, held, 1.0 - (1.0 - held) * np.exp(-(t - onset) / tau))
    np.testing.assert_allclose(a, hand, rtol=0, atol=1e-15)
    ode = solve_ivp(
        lambda _, y: (1.0 - y) / tau,
        (onset, 0.3),
        [held],
        t_eval=t[t >= onset],
        method="DOP853",
        rtol=1e-11,
        atol=1e-13,
    )
    np.testing.assert_allclose(a[t >= onset], ode.y[0], rtol=0, atol=1e-9)
    # from rest it is the old step, bit for bit
    np.testing.assert_array_equal(
        muscles.step_activation(t, onset, tau, initial=0.0), muscles.step_activation(t, onset, tau)
    )


def test_a_generator_holds_its_torque_until_the_onset():
    generator = muscles.TorqueGenerator(
        peak_torque=40.0, max_velocity=30.0, shape=3.0, time_constant=0.03
    )
    torque = generator.step_tau(np.array([0.0, 0.049]), 0.05, 0.0, initial=0.25)
    np.testing.assert_allclose(torque, 10.0, rtol=1e-15)


@pytest.mark.parametrize("stop", ["damped", "elastic"])
def test_the_swings_generators_evaluate_the_checked_formulas(stop):
    """SwingGenerators.__call__ skips the checks at every step; it must give what the
    checked public methods give, for a batch of two golfers, before and after the
    onsets, inside the range and past both wrist stops."""
    from geomotion import models

    generators = models.swing_generators(
        [[0.0, 0.04, 0.07], [0.01, 0.02, 0.09]],
        active=[1.0, 1.0, 0.0],
        hold=[0.3, 0.0, 0.5],
        stop=stop,
    )
    rng = np.random.default_rng(7)
    t = np.array([[0.0], [0.05], [0.2]])[:, None]  # (3, 1, 1): times, then the batch
    q = rng.uniform(-2.5, 1.5, (3, 2, 3))  # the wrist past its radial stop (-1.55) and
    q[0, :, 2], q[1, :, 2] = -1.7, 0.9  # past its ulnar stop (about 0.5) at two times
    v = rng.uniform(-30.0, 30.0, (3, 2, 3))
    u = generators(t, q, v)
    for j, generator in enumerate(generators.generators):
        expected = generators.active[..., j] * generator.step_tau(
            t[..., 0], generators.onset[..., j], v[..., j], initial=generators.hold[..., j]
        )
        if j == 2:
            expected = expected + generators.stop_tau(q[..., 2], v[..., 2])
            assert np.abs(generators.stop_tau(q[:2, :, 2], v[:2, :, 2])).min() > 1.0
        np.testing.assert_allclose(u[..., j], expected, rtol=1e-14, atol=1e-12)


def test_swing_generators_built_directly_are_checked():
    import dataclasses

    from geomotion import models

    generators = models.swing_generators([0.0, 0.04, 0.07])
    with pytest.raises(ValueError, match="hold: expected activations in"):
        dataclasses.replace(generators, hold=np.array([0.0, 1.5, 0.0]))
    with pytest.raises(ValueError, match="onset"):
        dataclasses.replace(generators, onset=np.array([0.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="onset"):
        dataclasses.replace(generators, onset=np.zeros(2))
    with pytest.raises(TypeError, match="wrist_stop: expected a DampedLimit"):
        dataclasses.replace(generators, wrist_stop=None)
    with pytest.raises(ValueError, match="hold"):
        dataclasses.replace(generators, hold=np.full((4, 3), 0.5), onset=np.zeros((2, 3)))
