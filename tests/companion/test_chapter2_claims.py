"""Curvature functions behind chapter 2's "flat" and "dA = k" claims, against closed forms."""

import numpy as np
import pytest

from geomotion import symmetry


def sphere(radius):
    """Round sphere in colatitude u and longitude v: g = diag(R^2, R^2 sin^2 u)."""
    return lambda x: np.diag([radius**2, radius**2 * np.sin(x[0]) ** 2])


def polar(x):
    """The Euclidean plane in polar coordinates (r, phi): g = diag(1, r^2)."""
    return np.diag([1.0, x[0] ** 2])


def half_plane(x):
    """Poincare half-plane: g = diag(1, 1) / y^2, K = -1."""
    return np.eye(2) / x[1] ** 2


def sheared_plane(x):
    """The Euclidean plane in oblique linear coordinates: constant g with F != 0, K = 0."""
    return np.array([[2.0, 0.7], [0.7, 1.0]])


@pytest.mark.parametrize(
    "metric, points, expected",
    [
        (sphere(2.0), [[0.8, 0.3], [1.9, -2.0]], 0.25),
        (sphere(0.5), [[0.4, 1.0]], 4.0),
        (polar, [[1.5, 0.4], [0.3, -2.0]], 0.0),
        (half_plane, [[0.2, 0.7], [-3.0, 2.5]], -1.0),
        (sheared_plane, [[0.1, 0.2]], 0.0),
    ],
)
def test_gaussian_curvature_matches_closed_forms(metric, points, expected):
    K = symmetry.gaussian_curvature(metric, points)
    assert K.shape == (len(points),)
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-6 * max(1.0, abs(expected)))


def test_gaussian_curvature_of_a_conformal_metric_with_an_off_diagonal_term():
    # g = e^{2 phi} (du^2 + dv^2) with phi = 0.3 u + 0.2 v^2 has K = -e^{-2 phi} lap(phi)
    # = -0.4 e^{-2 phi}; rotating the coordinates by 0.5 rad mixes in an F term.
    c, s = np.cos(0.5), np.sin(0.5)

    def conformal(x):
        u, v = c * x[0] - s * x[1], s * x[0] + c * x[1]
        return np.exp(2 * (0.3 * u + 0.2 * v**2)) * np.eye(2)

    x = np.array([0.4, -0.6])
    u, v = c * x[0] - s * x[1], s * x[0] + c * x[1]
    expected = -0.4 * np.exp(-2 * (0.3 * u + 0.2 * v**2))
    np.testing.assert_allclose(symmetry.gaussian_curvature(conformal, x), expected, rtol=1e-6)


def test_connection_curvature_of_the_constant_example_is_k_everywhere():
    def coupling(s):
        return symmetry.constant_curvature_coupling(s, 0.7)

    points = np.random.default_rng(0).uniform(-3.0, 3.0, (20, 2))
    np.testing.assert_allclose(
        symmetry.connection_curvature(1.0, coupling, points), 0.7, rtol=0, atol=1e-12
    )


def test_connection_curvature_with_a_varying_locked_inertia():
    # I = 1 + s1^2, a = (-s2, k s1): A = a / I and, by hand,
    # dA = d1(k s1 / I) - d2(-s2 / I) = k (1 - s1^2) / I^2 + 1 / I.
    k = 1.3

    def inertia(s):
        return 1.0 + s[0] ** 2

    def coupling(s):
        return np.array([-s[1], k * s[0]])

    points = np.array([[0.4, -0.3], [-1.7, 2.0], [0.0, 0.0]])
    I = 1.0 + points[:, 0] ** 2
    expected = k * (1 - points[:, 0] ** 2) / I**2 + 1 / I
    np.testing.assert_allclose(
        symmetry.connection_curvature(inertia, coupling, points), expected, rtol=1e-10
    )


def test_a_closed_connection_has_zero_curvature():
    # A = grad(f) for f = s1^2 s2: exact, so dA = 0 although A varies.
    def coupling(s):
        return np.array([2 * s[0] * s[1], s[0] ** 2])

    np.testing.assert_allclose(
        symmetry.connection_curvature(1.0, coupling, [[0.5, -1.5], [2.0, 3.0]]),
        0.0,
        atol=1e-10,
    )


def test_bad_input_is_refused_with_the_argument_named():
    with pytest.raises(TypeError, match="metric: expected a callable"):
        symmetry.gaussian_curvature(np.eye(2), [0.1, 0.2])
    with pytest.raises(ValueError, match="points"):
        symmetry.gaussian_curvature(polar, [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="metric"):
        symmetry.gaussian_curvature(lambda x: np.diag([1.0, -1.0]), [0.1, 0.2])
    with pytest.raises(ValueError, match="shape"):
        symmetry.connection_curvature(1.0, [0.0, 1.0], [np.nan, 0.0])
    with pytest.raises(ValueError, match="locked_inertia"):
        symmetry.connection_curvature(-1.0, [0.0, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="coupling"):
        symmetry.connection_curvature(1.0, [0.0, 1.0, 2.0], [0.0, 0.0])
