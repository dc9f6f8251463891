"""control.discrete_lqr: the DARE by doubling, checked against scipy and a closed form."""

import numpy as np
import pytest
import scipy.linalg

from geomotion import ConvergenceError, control


def _random_system(rng, n, m):
    """A random (A, B, Q, R), scaled so that A has unstable modes; generic, so controllable."""
    A = rng.normal(size=(n, n)) * 1.5 / np.sqrt(n)
    B = rng.normal(size=(n, m))
    F = rng.normal(size=(n, n))
    G = rng.normal(size=(m, m))
    return A, B, F @ F.T / n + 0.1 * np.eye(n), G @ G.T + 0.5 * np.eye(m)


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_scipy_on_random_stabilizable_systems(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 7)), int(rng.integers(1, 4))
    A, B, Q, R = _random_system(rng, n, m)
    result = control.discrete_lqr(A, B, Q, R)
    reference = scipy.linalg.solve_discrete_are(A, B, Q, R)
    scale = np.abs(reference).max()
    np.testing.assert_allclose(result.P, reference, atol=1e-9 * scale)
    K_reference = np.linalg.solve(R + B.T @ reference @ B, B.T @ reference @ A)
    np.testing.assert_allclose(result.K, K_reference, atol=1e-8 * (1 + np.abs(K_reference).max()))
    closed = np.abs(np.linalg.eigvals(A - B @ K_reference)).max()
    assert result.spectral_radius == pytest.approx(closed, abs=1e-9)
    assert result.spectral_radius < 1
    assert result.residual <= 1e-10
    assert isinstance(result.iterations, int) and result.iterations >= 1


def test_a_singular_state_weight_that_is_still_detectable():
    """Q of rank one on an observable double integrator: scipy agrees, P is PSD."""
    dt = 0.1
    A = np.array([[1.0, dt], [0.0, 1.0]])
    B = np.array([[0.5 * dt**2], [dt]])
    Q, R = np.diag([1.0, 0.0]), np.array([[0.01]])
    result = control.discrete_lqr(A, B, Q, R)
    np.testing.assert_allclose(
        result.P, scipy.linalg.solve_discrete_are(A, B, Q, R), rtol=1e-9, atol=1e-12
    )
    assert np.linalg.eigvalsh(result.P).min() >= -1e-12
    np.testing.assert_array_equal(result.P, result.P.T)


@pytest.mark.parametrize(
    "a, b, q, r", [(1.0, 1.0, 1.0, 1.0), (2.0, 0.5, 3.0, 0.2), (0.5, 1.0, 1.0, 4.0)]
)
def test_the_scalar_closed_form(a, b, q, r):
    """Scalar DARE: b^2 p^2 + (r - a^2 r - q b^2) p - q r = 0, the positive root."""
    linear = r - a**2 * r - q * b**2
    p = (-linear + np.sqrt(linear**2 + 4 * b**2 * q * r)) / (2 * b**2)
    result = control.discrete_lqr([[a]], [[b]], [[q]], [[r]])
    assert result.P[0, 0] == pytest.approx(p, rel=1e-12)
    k = a * b * p / (r + b**2 * p)
    assert result.K[0, 0] == pytest.approx(k, rel=1e-12)
    assert result.spectral_radius == pytest.approx(abs(a - b * k), rel=1e-12)


def test_golden_ratio():
    result = control.discrete_lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]])
    golden = (1 + np.sqrt(5)) / 2
    assert result.P[0, 0] == pytest.approx(golden, rel=1e-14)
    assert result.K[0, 0] == pytest.approx(golden - 1, rel=1e-14)


def test_the_residual_is_the_relative_dare_residual():
    rng = np.random.default_rng(7)
    A, B, Q, R = _random_system(rng, 4, 2)
    result = control.discrete_lqr(A, B, Q, R)
    P = result.P
    residual = Q + A.T @ P @ A - A.T @ P @ B @ np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A) - P
    expected = np.linalg.norm(residual) / max(np.linalg.norm(P), np.linalg.norm(Q))
    assert result.residual == pytest.approx(expected, rel=1e-6, abs=1e-16)
    assert result.residual < 1e-12
    # The optimal cost of the 1/2 convention: 1/2 z0^T P z0 equals the simulated sum.
    z, total = np.array([1.0, -0.5, 0.3, 0.2]), 0.0
    z0 = z.copy()
    for _ in range(2000):
        u = -result.K @ z
        total += 0.5 * (z @ Q @ z + u @ R @ u)
        z = A @ z + B @ u
    assert total == pytest.approx(0.5 * z0 @ P @ z0, rel=1e-10)


def test_a_tight_max_iter_raises_convergence_error():
    rng = np.random.default_rng(3)
    A, B, Q, R = _random_system(rng, 5, 1)
    with pytest.raises(ConvergenceError) as caught:
        control.discrete_lqr(A, B, Q, R, max_iter=1)
    assert caught.value.iterations == 1 and caught.value.tolerance == 1e-10


def test_an_uncontrollable_unstable_mode_is_refused():
    A = np.diag([1.2, 0.5])
    B = np.array([[0.0], [1.0]])
    with pytest.raises(ValueError, match=r"\(A, B\): expected a stabilizable pair.*1\.2"):
        control.discrete_lqr(A, B, np.eye(2), [[1.0]])


def test_an_uncontrollable_stable_mode_is_fine():
    A = np.diag([0.9, 1.5])
    B = np.array([[0.0], [1.0]])
    result = control.discrete_lqr(A, B, np.eye(2), [[1.0]])
    np.testing.assert_allclose(
        result.P, scipy.linalg.solve_discrete_are(A, B, np.eye(2), [[1.0]]), rtol=1e-9, atol=1e-12
    )
    assert result.K[0, 0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("eigenvalue", [1.0, 1.3])
def test_an_unstable_mode_the_cost_does_not_see_is_refused(eigenvalue):
    A = np.diag([eigenvalue, 0.5])
    B = np.eye(2)
    with pytest.raises(ValueError, match=r"\(Q, A\): expected a detectable pair"):
        control.discrete_lqr(A, B, np.diag([0.0, 1.0]), np.eye(2))


@pytest.mark.parametrize(
    "arguments, name",
    [
        (([[1.0, 0.0]], [[1.0]], [[1.0]], [[1.0]]), "A"),
        ((np.eye(2), [[1.0]], np.eye(2), [[1.0]]), "B"),
        ((np.eye(2), np.ones((2, 1)), np.eye(3), [[1.0]]), "Q"),
        ((np.eye(2), np.ones((2, 1)), np.eye(2), np.eye(2)), "R"),
        ((np.eye(2), np.ones((2, 1)), [[1.0, 0.5], [0.0, 1.0]], [[1.0]]), "Q"),
        ((np.eye(2), np.ones((2, 1)), np.diag([1.0, -1.0]), [[1.0]]), "Q"),
        ((np.eye(2), np.ones((2, 1)), np.eye(2), [[0.0]]), "R"),
        ((np.eye(2), np.ones((2, 1)), np.eye(2), [[-1.0]]), "R"),
        ((np.stack([np.eye(2)] * 3), np.ones((2, 1)), np.eye(2), [[1.0]]), "A"),
        ((np.eye(2), [[np.nan], [1.0]], np.eye(2), [[1.0]]), "B"),
    ],
)
def test_bad_values_name_the_argument(arguments, name):
    with pytest.raises(ValueError, match=rf"^{name}: "):
        control.discrete_lqr(*arguments)


@pytest.mark.parametrize(
    "arguments, name",
    [
        ((None, [[1.0]], [[1.0]], [[1.0]]), "A"),
        (([[1.0]], "B", [[1.0]], [[1.0]]), "B"),
        (([[1.0]], [[1.0]], [[1j]], [[1.0]]), "Q"),
    ],
)
def test_wrong_types_raise_type_error(arguments, name):
    with pytest.raises(TypeError, match=rf"^{name}: "):
        control.discrete_lqr(*arguments)


@pytest.mark.parametrize(
    "options, error",
    [
        ({"rtol": 0.0}, ValueError),
        ({"rtol": "1e-9"}, TypeError),
        ({"rank_rtol": -1.0}, ValueError),
        ({"max_iter": 0}, ValueError),
        ({"max_iter": True}, TypeError),
    ],
)
def test_bad_options(options, error):
    with pytest.raises(error):
        control.discrete_lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]], **options)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        control.discrete_lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]], 1e-9)


def test_the_result_is_frozen_and_does_not_unpack():
    result = control.discrete_lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]])
    with pytest.raises(AttributeError):
        result.K = None
    with pytest.raises(TypeError):
        K, P = result
