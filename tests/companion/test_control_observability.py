"""geomotion.control.observability_rank: the seed's x' = 0, y = x1^2 + x2^2 (rank 1, the
kernel is the circle's tangent, the indistinguishable set the whole circle), linear
systems against the Kalman observability matrix, a pendulum observed through its rate
whose rank needs the third Lie derivative at one state (hand derivation), and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples

from geomotion import control


def still(x):
    return np.zeros_like(x)


def squared_radius(x):
    return x[..., 0] ** 2 + x[..., 1] ** 2


# ---------------------------------------------------------------------------
# The seed: x' = 0, y = x1^2 + x2^2
# ---------------------------------------------------------------------------

SEED_STATES = [np.array([1.0, 0.0]), np.array([0.6, -0.8]), np.array([-2.0, 1.5])]


@pytest.mark.parametrize("x", SEED_STATES)
def test_seed_rank_one_with_the_tangent_line_as_kernel(x):
    report = control.observability_rank(still, squared_radius, x)
    assert report.rank == 1 and not report.full_rank and report.rows == ("dh",)
    # dy = 2 x^T (by hand); the higher Lie derivatives vanish because x' = 0.
    np.testing.assert_allclose(report.differentials, [2 * x], atol=5e-11)  # achieved 6e-13
    tangent = np.array([-x[1], x[0]]) / np.linalg.norm(x)
    assert report.kernel.shape == (2, 1)
    np.testing.assert_allclose(abs(report.kernel[:, 0] @ tangent), 1.0, atol=1e-12)


@pytest.mark.parametrize("x", SEED_STATES)
def test_seed_indistinguishable_set_is_the_circle_not_the_kernel_line(x):
    report = control.observability_rank(still, squared_radius, x)
    direction = report.kernel[:, 0]
    # Output histories are constant (x' = 0): y(t) = h(x0).  Every rotation of x gives the
    # same history, although most rotated states are not on the kernel line through x.
    angles = np.linspace(0.3, 2 * np.pi - 0.3, 9)
    rotated = np.stack(
        [
            np.cos(angles) * x[0] - np.sin(angles) * x[1],
            np.sin(angles) * x[0] + np.cos(angles) * x[1],
        ],
        axis=-1,
    )
    np.testing.assert_allclose(squared_radius(rotated), squared_radius(x), rtol=1e-14)
    off_line = np.abs((rotated - x) @ np.array([-direction[1], direction[0]]))
    assert np.all(off_line > 1e-2)
    # Points on the kernel line away from x have a different output: r^2 + t^2.
    for t in (0.1, -0.5, 2.0):
        assert squared_radius(x + t * direction) == pytest.approx(
            squared_radius(x) + t**2, rel=1e-12
        )
    # And points off the circle are distinguished.
    assert squared_radius(1.1 * x) != pytest.approx(squared_radius(x))


# ---------------------------------------------------------------------------
# Linear systems: the Kalman observability matrix [C; CA; CA^2; ...]
# ---------------------------------------------------------------------------

seeds = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=examples(30))
@given(seeds, st.booleans())
def test_linear_systems_match_the_kalman_rank(seed, hide_a_block):
    rng = np.random.default_rng(seed)
    n = 4
    A = rng.normal(size=(n, n))
    C = rng.normal(size=(1, n))
    if hide_a_block:  # x3, x4 evolve on their own and are never measured
        A[:2, 2:] = 0.0
        C[0, 2:] = 0.0
    x = rng.uniform(-1, 1, n)
    report = control.observability_rank(lambda y: y @ A.T, lambda y: y @ C.T, x)
    kalman = np.vstack([C @ np.linalg.matrix_power(A, k) for k in range(n)])
    expected_rank = np.linalg.matrix_rank(kalman, tol=1e-8 * np.abs(kalman).max())
    assert report.rank == expected_rank == (2 if hide_a_block else 4)
    # The rows are C A^k (achieved 6e-9 relative at k = 3: four nested differences).
    np.testing.assert_allclose(
        report.differentials, kalman[: report.rank], atol=3e-7 * np.abs(kalman).max()
    )
    if hide_a_block:  # the kernel is the unmeasured block
        np.testing.assert_allclose(np.abs(report.kernel[:2]), 0.0, atol=1e-7)


# ---------------------------------------------------------------------------
# A pendulum observed through its rate: x = (theta, omega), y = omega
# ---------------------------------------------------------------------------


def pendulum(x):
    return np.stack([x[..., 1], -np.sin(x[..., 0])], axis=-1)


def rate(x):
    return x[..., 1]


def test_pendulum_rate_output_by_hand():
    # L_f h = -sin th, d(L_f h) = (-cos th, 0): independent of dh = (0, 1) unless cos th = 0.
    x = np.array([0.4, 1.3])
    report = control.observability_rank(pendulum, rate, x)
    assert report.full_rank and report.rows == ("dh", "d(L_f h)")
    np.testing.assert_allclose(
        report.differentials, [[0.0, 1.0], [-np.cos(0.4), 0.0]], atol=1e-10
    )  # achieved 2.5e-12
    assert report.kernel.shape == (2, 0)


def test_pendulum_at_the_horizontal_rest_needs_the_third_lie_derivative():
    # At th = pi/2, omega = 0: d(L_f h) = (-cos th, 0) = 0 and
    # L_f^2 h = -omega cos th gives (omega sin th, -cos th) = 0, while
    # L_f^3 h = omega^2 sin th + sin th cos th gives (omega^2 cos th + cos 2th, 2 omega sin th)
    # = (-1, 0): rank 2 only at order 3.
    x = np.array([np.pi / 2, 0.0])
    assert control.observability_rank(pendulum, rate, x).rank == 1  # default order n - 1 = 1
    report = control.observability_rank(pendulum, rate, x, order=3)
    assert report.full_rank and report.rows == ("dh", "d(L_f^3 h)") and report.order == 3
    # Four nested differences: achieved 3e-7.
    np.testing.assert_allclose(report.differentials[1], [-1.0, 0.0], atol=1e-5)


def test_pendulum_written_for_one_point_gives_the_same_differentials():
    # f and h indexing x[0], x[1] as for one state: evaluated point by point.
    def pendulum_one_point(x):
        return np.array([x[1], -np.sin(x[0])])

    def rate_one_point(x):
        return x[1]

    x = np.array([np.pi / 2, 0.0])
    natural = control.observability_rank(pendulum_one_point, rate_one_point, x, order=3)
    broadcast = control.observability_rank(pendulum, rate, x, order=3)
    assert natural.rows == broadcast.rows == ("dh", "d(L_f^3 h)")
    np.testing.assert_allclose(natural.differentials, broadcast.differentials, rtol=0, atol=1e-15)


def test_vector_output_labels_and_rows():
    report = control.observability_rank(pendulum, lambda x: x, [0.3, 0.2], order=0)
    assert report.full_rank and report.rows == ("dh[0]", "dh[1]")
    np.testing.assert_allclose(report.differentials, np.eye(2), atol=1e-12)


def test_constant_output_sees_nothing():
    report = control.observability_rank(pendulum, lambda x: np.ones(x.shape[:-1]), [0.3, 0.2])
    assert report.rank == 0 and report.rows == () and report.kernel.shape == (2, 2)


# Matches of the cases that pass a value of the wrong type (TypeError, not ValueError).
WRONG_TYPES = {
    "f: expected a callable",
    "h: expected a callable",
}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: control.observability_rank(None, rate, [0.0, 1.0]), "f: expected a callable"),
        (lambda: control.observability_rank(pendulum, 2.0, [0.0, 1.0]), "h: expected a callable"),
        (
            lambda: control.observability_rank(pendulum, lambda x: np.ones((2, 2)), [0.0, 1.0]),
            "h: expected an output of shape",
        ),
        (
            lambda: control.observability_rank(lambda x: x[..., :1], rate, [0.0, 1.0]),
            "f: expected a result of shape",
        ),
        (
            lambda: control.observability_rank(pendulum, rate, [0.0, 1.0], order=-1),
            "order: expected",
        ),
        (lambda: control.observability_rank(pendulum, rate, [[0.0, 1.0]]), "x: expected one"),
        (lambda: control.observability_rank(pendulum, rate, [np.inf, 1.0]), "x: expected finite"),
        (
            lambda: control.observability_rank(pendulum, rate, [0.0, 1.0], rtol=0.0),
            "rtol: expected",
        ),
    ],
)
def test_bad_input_is_refused_with_the_argument_named(call, match):
    # A value of the wrong type (a non-callable field, not a system) is a TypeError.
    error = TypeError if match in WRONG_TYPES else ValueError
    with pytest.raises(error, match=match):
        call()
