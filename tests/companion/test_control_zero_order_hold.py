"""control.zero_order_hold: the sampled system against scipy.signal and closed forms; the
sampled LQR gain tends to the continuous one as the step shrinks."""

import numpy as np
import pytest
import scipy.signal

from geomotion import control

DOUBLE_INTEGRATOR = (np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([[0.0], [1.0]]))


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_scipy_cont2discrete(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 7)), int(rng.integers(1, 4))
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, m))
    dt = float(rng.uniform(1e-3, 0.5))
    held = control.zero_order_hold(A, B, dt)
    A_ref, B_ref, *_ = scipy.signal.cont2discrete(
        (A, B, np.eye(n), np.zeros((n, m))), dt, method="zoh"
    )
    np.testing.assert_allclose(held.A_d, A_ref, rtol=0, atol=1e-13)
    np.testing.assert_allclose(held.B_d, B_ref, rtol=0, atol=1e-13)
    assert held.A_d.shape == (n, n) and held.B_d.shape == (n, m)


@pytest.mark.parametrize("dt", [1e-4, 0.01, 0.1, 1.0, 3.0])
def test_the_double_integrator_closed_form(dt):
    held = control.zero_order_hold(*DOUBLE_INTEGRATOR, dt)
    np.testing.assert_allclose(held.A_d, [[1.0, dt], [0.0, 1.0]], rtol=0, atol=1e-14 * (1 + dt))
    np.testing.assert_allclose(held.B_d, [[dt**2 / 2], [dt]], rtol=1e-14, atol=0)


@pytest.mark.parametrize("a", [-3.0, -1e-9, 0.5, 2.0])
def test_the_scalar_closed_form(a):
    b, dt = 1.5, 0.2
    held = control.zero_order_hold([[a]], [[b]], dt)
    assert held.A_d[0, 0] == pytest.approx(np.exp(a * dt), rel=1e-14)
    assert held.B_d[0, 0] == pytest.approx(np.expm1(a * dt) / a * b, rel=1e-12)


def test_the_sampled_state_is_the_exact_one():
    """An undamped oscillator held at u = 1: x(t) = (1 - cos w t) / w^2 exactly."""
    w = 3.0
    A, B = np.array([[0.0, 1.0], [-(w**2), 0.0]]), np.array([[0.0], [1.0]])
    held = control.zero_order_hold(A, B, 0.05)
    z = np.zeros(2)
    for _ in range(40):
        z = held.A_d @ z + held.B_d @ [1.0]
    t = 40 * 0.05
    np.testing.assert_allclose(z, [(1 - np.cos(w * t)) / w**2, np.sin(w * t) / w], atol=1e-13)


def test_batches_broadcast_like_single_calls():
    rng = np.random.default_rng(4)
    A = rng.normal(size=(3, 1, 4, 4))
    B = rng.normal(size=(4, 2))
    dt = np.array([0.01, 0.1])
    held = control.zero_order_hold(A, B, dt)
    assert held.A_d.shape == (3, 2, 4, 4) and held.B_d.shape == (3, 2, 4, 2)
    for i in range(3):
        for j in range(2):
            one = control.zero_order_hold(A[i, 0], B, dt[j])
            np.testing.assert_allclose(held.A_d[i, j], one.A_d, rtol=0, atol=1e-14)
            np.testing.assert_allclose(held.B_d[i, j], one.B_d, rtol=0, atol=1e-14)


@pytest.mark.parametrize(
    "arguments, name",
    [
        ((*DOUBLE_INTEGRATOR, 0.0), "dt"),
        ((*DOUBLE_INTEGRATOR, -0.1), "dt"),
        ((*DOUBLE_INTEGRATOR, [0.1, -0.1]), "dt"),
        ((*DOUBLE_INTEGRATOR, np.nan), "dt"),
        ((*DOUBLE_INTEGRATOR, np.inf), "dt"),
        (([[0.0, 1.0]], [[0.0]], 0.1), "A"),
        ((DOUBLE_INTEGRATOR[0], [[1.0]], 0.1), "B"),
        ((DOUBLE_INTEGRATOR[0], np.zeros((2, 0)), 0.1), "B"),
        ((DOUBLE_INTEGRATOR[0], [0.0, 1.0], 0.1), "B"),
        ((np.zeros((3, 2, 2)), np.zeros((2, 2, 1)), 0.1), "A, B, dt"),
        (([[1e3]], [[1.0]], 10.0), "dt"),
    ],
)
def test_bad_values_name_the_argument(arguments, name):
    with pytest.raises(ValueError, match=rf"^{name}: expected"):
        control.zero_order_hold(*arguments)


@pytest.mark.parametrize(
    "arguments, name",
    [
        ((*DOUBLE_INTEGRATOR, None), "dt"),
        ((*DOUBLE_INTEGRATOR, "0.1"), "dt"),
        ((*DOUBLE_INTEGRATOR, True), "dt"),
        ((DOUBLE_INTEGRATOR[0], [[1j], [0.0]], 0.1), "B"),
    ],
)
def test_wrong_types_raise_type_error(arguments, name):
    with pytest.raises(TypeError, match=rf"^{name}: "):
        control.zero_order_hold(*arguments)


def test_the_result_is_frozen_and_does_not_unpack():
    held = control.zero_order_hold(*DOUBLE_INTEGRATOR, 0.1)
    with pytest.raises(AttributeError):
        held.A_d = None
    with pytest.raises(TypeError):
        A_d, B_d = held


def test_the_sampled_lqr_gain_tends_to_the_continuous_one():
    """K_d(dt) - K = O(dt): ten times shorter steps, about ten times closer."""
    rng = np.random.default_rng(8)
    A, B = rng.normal(size=(4, 4)) + 0.3 * np.eye(4), rng.normal(size=(4, 2))
    Q, R = np.diag([4.0, 1.0, 2.0, 0.5]), np.diag([0.3, 1.0])
    continuous = control.lqr(A, B, Q, R)
    errors = []
    for dt in (1e-2, 1e-3, 1e-4):
        held = control.zero_order_hold(A, B, dt)
        # Stage weights Q dt and R dt make the sum approximate the integral, so P_d -> P;
        # the gain is the same with Q and R (a common factor of the cost changes no gain).
        sampled = control.discrete_lqr(held.A_d, held.B_d, Q * dt, R * dt)
        errors.append(np.abs(sampled.K - continuous.K).max() / np.abs(continuous.K).max())
        np.testing.assert_allclose(sampled.P, continuous.P, rtol=20 * dt, atol=0)
    assert errors[-1] < 1e-3
    for coarse, fine in zip(errors, errors[1:]):
        assert 7 < coarse / fine < 13, errors
