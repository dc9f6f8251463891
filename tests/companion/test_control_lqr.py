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


# -- scalar or vector weights: the message says what to pass -------------------------------


@pytest.mark.parametrize("solver", [control.lqr, control.discrete_lqr])
@pytest.mark.parametrize(
    "arguments, expected",
    [
        (([[1.0]], [[1.0]], [[1.0]], 0.1), r"^R: expected .*\(1, 1\).*the scalar 0\.1; pass R=\[\[0\.1\]\]$"),
        (([[1.0]], [[1.0]], [[1.0]], [0.1]), r"^R: expected .*vector of shape \(1,\); pass R=\[\[0\.1\]\]$"),
        (([[1.0]], [[1.0]], 2, [[0.1]]), r"^Q: expected .*semidefinite \(1, 1\).*pass Q=\[\[2\.0\]\]$"),
        ((np.eye(2), np.eye(2), np.eye(2), 0.5), r"^R: .*\(2, 2\).*pass R=0\.5 \* np\.eye\(2\)"),
        ((np.eye(2), np.eye(2), [1.0, 3.0], np.eye(2)), r"^Q: .*pass Q=np\.diag\(\[1\.0, 3\.0\]\)"),
        (([[1.0]], [[1.0]], [[1.0]], np.eye(2)),
         r"^R: expected .*\(1, 1\) matrix, one row and column per input, got shape \(2, 2\)$"),
    ],
)  # fmt: skip
def test_a_scalar_or_vector_weight_gets_the_matrix_to_pass(solver, arguments, expected):
    with pytest.raises(ValueError, match=expected):
        solver(*arguments)


# -- control.lqr: the continuous-time CARE -------------------------------------------------


def _random_continuous_system(rng, n, m):
    """A random (A, B, Q, R) with unstable modes; generic, so controllable."""
    A = rng.normal(size=(n, n)) + 0.5 * np.eye(n)
    B = rng.normal(size=(n, m))
    F = rng.normal(size=(n, n))
    G = rng.normal(size=(m, m))
    return A, B, F @ F.T / n + 0.1 * np.eye(n), G @ G.T + 0.5 * np.eye(m)


def test_lqr_is_a_function_not_a_module():
    assert callable(control.lqr) and control.lqr.__module__ == "geomotion.control.riccati"
    assert "lqr" in control.__all__ and "LQRResult" in control.__all__


@pytest.mark.parametrize("seed", range(16))
def test_lqr_agrees_with_scipy_on_random_stabilizable_systems(seed):
    rng = np.random.default_rng(100 + seed)
    n, m = int(rng.integers(1, 8)), int(rng.integers(1, 4))
    A, B, Q, R = _random_continuous_system(rng, n, m)
    result = control.lqr(A, B, Q, R)
    reference = scipy.linalg.solve_continuous_are(A, B, Q, R)
    reference = 0.5 * (reference + reference.T)
    np.testing.assert_allclose(result.P, reference, atol=1e-9 * np.abs(reference).max())
    K_reference = np.linalg.solve(R, B.T @ reference)
    np.testing.assert_allclose(result.K, K_reference, atol=1e-9 * (1 + np.abs(K_reference).max()))
    closed = np.linalg.eigvals(A - B @ K_reference)
    np.testing.assert_allclose(
        result.closed_loop_eigenvalues, np.sort_complex(closed), atol=1e-8 * np.abs(closed).max()
    )
    assert result.spectral_abscissa == pytest.approx(closed.real.max(), abs=1e-9)
    assert result.spectral_abscissa < 0 and np.all(result.closed_loop_eigenvalues.real < 0)
    assert result.residual <= 1e-12
    np.testing.assert_array_equal(result.P, result.P.T)
    assert np.linalg.eigvalsh(result.P).min() > 0  # Q > 0: P is positive definite
    assert isinstance(result.spectral_abscissa, float) and isinstance(result.residual, float)


def test_lqr_residual_is_the_relative_care_residual_and_p_is_the_cost():
    rng = np.random.default_rng(11)
    A, B, Q, R = _random_continuous_system(rng, 5, 2)
    result = control.lqr(A, B, Q, R)
    P, K = result.P, result.K
    residual = A.T @ P + P @ A - P @ B @ np.linalg.solve(R, B.T @ P) + Q
    scale = 2 * np.linalg.norm(A.T @ P) + np.linalg.norm(K.T @ R @ K) + np.linalg.norm(Q)
    assert result.residual == pytest.approx(np.linalg.norm(residual) / scale, rel=1e-6, abs=1e-16)
    # The closed loop's cost matrix X, from its Lyapunov equation, is P: the optimal cost
    # 1/2 z0^T P z0 is what u = -K z actually costs.
    closed = A - B @ K
    X = scipy.linalg.solve_continuous_lyapunov(closed.T, -(Q + K.T @ R @ K))
    np.testing.assert_allclose(X, P, rtol=0, atol=1e-9 * np.abs(P).max())
    # ... and any other stabilizing gain costs more (P is the minimum).
    other = K + 0.05 * rng.normal(size=K.shape)
    X_other = scipy.linalg.solve_continuous_lyapunov((A - B @ other).T, -(Q + other.T @ R @ other))
    assert np.linalg.eigvalsh(X_other - P).min() > -1e-9


@pytest.mark.parametrize(
    "a, b, q, r",
    [(1.0, 1.0, 1.0, 1.0), (2.0, 0.5, 3.0, 0.2), (-1.0, 1.0, 1.0, 4.0), (0.0, 2.0, 5.0, 1.0)],
)
def test_lqr_scalar_closed_form(a, b, q, r):
    """Scalar CARE: 2 a p - b^2 p^2 / r + q = 0, the positive root; a - b k = -sqrt(a^2 + b^2 q / r)."""
    root = np.sqrt(a**2 + b**2 * q / r)
    p = r * (a + root) / b**2
    result = control.lqr([[a]], [[b]], [[q]], [[r]])
    assert result.P[0, 0] == pytest.approx(p, rel=1e-12)
    assert result.K[0, 0] == pytest.approx(b * p / r, rel=1e-12)
    assert result.spectral_abscissa == pytest.approx(-root, rel=1e-12)
    assert result.closed_loop_eigenvalues.shape == (1,)


def test_lqr_double_integrator_closed_form():
    """x'' = u, Q = I, R = 1: P = [[sqrt 3, 1], [1, sqrt 3]], K = [1, sqrt 3], poles (-sqrt3 +- i)/2."""
    s3 = np.sqrt(3.0)
    result = control.lqr([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], np.eye(2), [[1.0]])
    np.testing.assert_allclose(result.P, [[s3, 1.0], [1.0, s3]], rtol=0, atol=1e-14)
    np.testing.assert_allclose(result.K, [[1.0, s3]], rtol=0, atol=1e-14)
    np.testing.assert_allclose(
        result.closed_loop_eigenvalues, [(-s3 - 1j) / 2, (-s3 + 1j) / 2], rtol=0, atol=1e-14
    )
    assert result.spectral_abscissa == pytest.approx(-s3 / 2, rel=1e-14)


def test_lqr_the_factor_one_half_and_a_common_scale_leave_k_alone():
    rng = np.random.default_rng(5)
    A, B, Q, R = _random_continuous_system(rng, 4, 2)
    once, scaled = control.lqr(A, B, Q, R), control.lqr(A, B, 7.0 * Q, 7.0 * R)
    np.testing.assert_allclose(scaled.K, once.K, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(scaled.P, 7.0 * once.P, rtol=1e-10, atol=1e-12)


def test_lqr_a_singular_state_weight_that_is_still_detectable():
    A, B = [[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]]
    Q, R = np.diag([1.0, 0.0]), np.array([[0.01]])
    result = control.lqr(A, B, Q, R)
    np.testing.assert_allclose(
        result.P, scipy.linalg.solve_continuous_are(A, B, Q, R), rtol=1e-10, atol=1e-13
    )
    # Closed form: K = (sqrt(q/r), sqrt(2 sqrt(q/r))) for x'' = u with Q = diag(q, 0).
    np.testing.assert_allclose(result.K, [[10.0, np.sqrt(20.0)]], rtol=1e-12)


def test_lqr_a_stable_plant_with_no_state_weight_needs_no_feedback():
    A = np.array([[-1.0, 2.0], [0.0, -3.0]])
    result = control.lqr(A, [[0.0], [1.0]], np.zeros((2, 2)), [[1.0]])
    np.testing.assert_allclose(result.P, 0.0, atol=1e-14)
    np.testing.assert_allclose(result.K, 0.0, atol=1e-14)
    assert result.spectral_abscissa == pytest.approx(-1.0, abs=1e-12)


def test_lqr_an_uncontrollable_stable_mode_is_fine():
    A = np.diag([-0.5, 1.5])
    B = np.array([[0.0], [1.0]])
    result = control.lqr(A, B, np.eye(2), [[1.0]])
    np.testing.assert_allclose(
        result.P,
        scipy.linalg.solve_continuous_are(A, B, np.eye(2), [[1.0]]),
        rtol=1e-10,
        atol=1e-13,
    )
    assert result.K[0, 0] == pytest.approx(0.0, abs=1e-12)
    assert result.spectral_abscissa == pytest.approx(-0.5, abs=1e-12)


@pytest.mark.parametrize(
    "A, eigenvalue",
    [
        (np.diag([1.2, -0.5]), r"1\.2"),  # unstable
        (np.diag([0.0, -0.5]), r"0"),  # an integrator the input cannot reach
        (np.block([[np.array([[0.0, 1.0], [-1.0, 0.0]]), np.zeros((2, 1))],
                   [np.zeros((1, 2)), -np.ones((1, 1))]]), r"[+-]1j"),  # an oscillator
    ],
)  # fmt: skip
def test_lqr_an_unreachable_mode_that_is_not_stable_is_refused(A, eigenvalue):
    B = np.zeros((A.shape[0], 1))
    B[-1, 0] = 1.0
    with pytest.raises(ValueError, match=rf"^\(A, B\): expected a stabilizable pair.*{eigenvalue}"):
        control.lqr(A, B, np.eye(A.shape[0]), [[1.0]])


@pytest.mark.parametrize("eigenvalue", [0.0, 1.3])
def test_lqr_an_unstable_mode_the_cost_does_not_see_is_refused(eigenvalue):
    A = np.diag([eigenvalue, -0.5])
    with pytest.raises(ValueError, match=r"^\(Q, A\): expected a detectable pair"):
        control.lqr(A, np.eye(2), np.diag([0.0, 1.0]), np.eye(2))


def test_lqr_an_unmet_residual_tolerance_raises_convergence_error():
    rng = np.random.default_rng(3)
    A, B, Q, R = _random_continuous_system(rng, 5, 1)
    with pytest.raises(ConvergenceError) as caught:
        control.lqr(A, B, Q, R, rtol=1e-30)
    assert caught.value.tolerance == 1e-30 and caught.value.residual > 1e-30


@pytest.mark.parametrize(
    "arguments, name",
    [
        (([[1.0, 0.0]], [[1.0]], [[1.0]], [[1.0]]), "A"),
        ((np.eye(2), [[1.0]], np.eye(2), [[1.0]]), "B"),
        ((np.eye(2), np.zeros((2, 0)), np.eye(2), np.zeros((0, 0))), "B"),
        ((np.eye(2), np.ones((2, 1)), np.eye(3), [[1.0]]), "Q"),
        ((np.eye(2), np.ones((2, 1)), np.eye(2), np.eye(2)), "R"),
        ((np.eye(2), np.ones((2, 1)), [[1.0, 0.5], [0.0, 1.0]], [[1.0]]), "Q"),
        ((np.eye(2), np.ones((2, 1)), np.diag([1.0, -1.0]), [[1.0]]), "Q"),
        ((np.eye(2), np.ones((2, 2)), np.eye(2), [[1.0, 2.0], [2.0, 1.0]]), "R"),
        ((np.eye(2), np.ones((2, 1)), np.eye(2), [[0.0]]), "R"),
        ((np.eye(2), np.ones((2, 1)), np.eye(2), [[-1.0]]), "R"),
        ((np.stack([np.eye(2)] * 3), np.ones((2, 1)), np.eye(2), [[1.0]]), "A"),
        ((np.eye(2), [[np.nan], [1.0]], np.eye(2), [[1.0]]), "B"),
        ((np.eye(2), np.ones((2, 1)), np.eye(2), [[np.inf]]), "R"),
    ],
)
def test_lqr_bad_values_name_the_argument(arguments, name):
    with pytest.raises(ValueError, match=rf"^{name}: "):
        control.lqr(*arguments)


@pytest.mark.parametrize(
    "arguments, name",
    [
        ((None, [[1.0]], [[1.0]], [[1.0]]), "A"),
        (([[1.0]], "B", [[1.0]], [[1.0]]), "B"),
        (([[1.0]], [[1.0]], [[1j]], [[1.0]]), "Q"),
        (([[1.0]], [[1.0]], [[1.0]], None), "R"),
    ],
)
def test_lqr_wrong_types_raise_type_error(arguments, name):
    with pytest.raises(TypeError, match=rf"^{name}: "):
        control.lqr(*arguments)


@pytest.mark.parametrize(
    "options, error",
    [
        ({"rtol": 0.0}, ValueError),
        ({"rtol": np.nan}, ValueError),
        ({"rtol": "1e-9"}, TypeError),
        ({"rank_rtol": -1.0}, ValueError),
        ({"rank_rtol": True}, TypeError),
    ],
)
def test_lqr_bad_options(options, error):
    with pytest.raises(error, match=rf"^{next(iter(options))}: "):
        control.lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]], **options)


def test_lqr_options_are_keyword_only_and_the_result_is_frozen():
    with pytest.raises(TypeError):
        control.lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]], 1e-9)
    result = control.lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]])
    with pytest.raises(AttributeError):
        result.K = None
    with pytest.raises(TypeError):
        K, P = result
