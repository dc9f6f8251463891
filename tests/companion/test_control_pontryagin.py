"""geomotion.control Pontryagin helpers: bang-bang selection against the sign rule with the
singular case flagged, the unconstrained quadratic minimizer -R^-1 G^T p of
sigma^T u + 1/2 u^T R u (the chapter's u^T R u is 1/2 u^T (2R) u), the box QP
against a brute-force grid and its KKT conditions, clipping exact for diagonal R and wrong
for a coupled R (a hand-solved counterexample), and bad or degenerate input."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples

from geomotion import control

seeds = st.integers(min_value=0, max_value=2**32 - 1)


def objective(R, sigma, u):
    """sigma^T u + 1/2 u^T R u, written out (u (..., m)): the package's convention."""
    return u @ sigma + 0.5 * np.einsum("...i,ij,...j->...", u, R, u)


def random_spd(rng, m):
    A = rng.normal(size=(m, m))
    return A @ A.T + 0.2 * np.eye(m)


# ---------------------------------------------------------------------------
# Bang-bang selection
# ---------------------------------------------------------------------------


@settings(max_examples=examples(60))
@given(seeds, st.floats(min_value=0.0, max_value=0.5))
def test_bang_bang_follows_the_sign_rule_and_flags_singular_components(seed, atol):
    rng = np.random.default_rng(seed)
    sigma = rng.choice([-2.0, -0.3, 0.0, 0.1, 1.5], size=(6, 3))
    u_min, u_max = -rng.uniform(0.1, 2.0, 3), rng.uniform(0.1, 2.0, 3)
    result = control.bang_bang_control(sigma, u_min, u_max, atol=atol)
    for i, j in np.ndindex(sigma.shape):
        s = sigma[i, j]
        if s > atol:
            assert result.control[i, j] == u_min[j] and not result.singular[i, j]
        elif s < -atol:
            assert result.control[i, j] == u_max[j] and not result.singular[i, j]
        else:
            assert result.singular[i, j] and np.isnan(result.control[i, j])
    # Where determined, the choice minimizes sigma_i u_i over the interval (brute force).
    grid = np.linspace(u_min, u_max, 101)  # (101, 3)
    best = np.min(sigma[:, None, :] * grid[None], axis=1)
    determined = ~result.singular
    np.testing.assert_allclose((sigma * result.control)[determined], best[determined], atol=1e-15)


def test_bang_bang_singular_flag_and_zero_width_box():
    result = control.bang_bang_control(
        [[0.0, 1e-9, -3.0]], [-1.0, -1.0, 2.0], [1.0, 1.0, 2.0], atol=1e-6
    )
    np.testing.assert_array_equal(result.singular, [[True, True, False]])
    assert np.isnan(result.control[0, :2]).all() and result.control[0, 2] == 2.0
    pinned = control.bang_bang_control([0.0], 0.5, 0.5)  # a zero-width box fixes u = 0.5
    assert not pinned.singular[0] and pinned.control[0] == 0.5
    assert control.bang_bang_control([0.0], -1.0, 1.0).singular[0]  # exact zero, atol = 0


# ---------------------------------------------------------------------------
# Quadratic minimizers
# ---------------------------------------------------------------------------


@settings(max_examples=examples(40))
@given(seeds)
def test_unconstrained_minimizer_is_minus_R_inverse_G_transpose_p(seed):
    rng = np.random.default_rng(seed)
    m, n = 3, 4
    R, G, p = random_spd(rng, m), rng.normal(size=(n, m)), rng.normal(size=n)
    u = control.quadratic_control(R, G.T @ p)
    # Stationarity of sigma^T u + 1/2 u^T R u: its gradient sigma + R u vanishes (achieved
    # ~1e-15 relative); with the factor 2 of u^T R u it would be off by the whole sigma.
    np.testing.assert_allclose(G.T @ p + R @ u, 0.0, atol=1e-12 * (1 + np.abs(G.T @ p).max()))
    # The chapter's ell_0 + u^T R u is 1/2 u^T (2R) u: passing 2 R gives -1/2 R^-1 G^T p.
    np.testing.assert_allclose(
        control.quadratic_control(2 * R, G.T @ p), 0.5 * u, rtol=1e-12, atol=1e-14
    )
    # And it beats random perturbations (strict convexity).
    for du in rng.normal(size=(20, m)):
        assert objective(R, G.T @ p, u + 1e-3 * du) > objective(R, G.T @ p, u)


def kkt_violation(R, sigma, u, lo, hi):
    """Largest violation of the box-QP optimality conditions on g = sigma + R u, the
    gradient of sigma^T u + 1/2 u^T R u."""
    g = sigma + R @ u
    free = (u > lo) & (u < hi)
    at_lo, at_hi = u <= lo, u >= hi
    return max(
        np.abs(g[free]).max(initial=0.0),
        (-g[at_lo & ~at_hi]).max(initial=0.0),
        g[at_hi & ~at_lo].max(initial=0.0),
    )


@settings(max_examples=examples(30))
@given(seeds)
def test_box_qp_matches_a_brute_force_grid_in_two_dimensions(seed):
    rng = np.random.default_rng(seed)
    R, sigma = random_spd(rng, 2), rng.normal(scale=4.0, size=2)
    lo = -rng.uniform(0.2, 1.5, 2)
    hi = lo + rng.uniform(0.2, 2.5, 2)
    result = control.box_quadratic_control(R, sigma, lo, hi)
    u = result.control
    assert np.all(u >= lo) and np.all(u <= hi)
    grid = np.stack(
        np.meshgrid(np.linspace(lo[0], hi[0], 401), np.linspace(lo[1], hi[1], 401)), axis=-1
    ).reshape(-1, 2)
    values = objective(R, sigma, grid)
    # The exact minimum can only be lower than every grid node (to rounding), and the best
    # node lies within one grid cell of the minimizer's value.
    assert objective(R, sigma, u) <= values.min() + 1e-12
    cell = (hi - lo) / 400
    slope = np.abs(sigma).sum() + np.abs(R).sum() * np.abs(np.concatenate([lo, hi])).max()
    assert values.min() - objective(R, sigma, u) <= slope * cell.max()
    assert kkt_violation(R, sigma, u, lo, hi) < 5e-13  # achieved 6e-15 (1000 seeds)
    np.testing.assert_array_equal(result.at_lower, u <= lo)
    np.testing.assert_array_equal(result.at_upper, u >= hi)


@settings(max_examples=examples(40))
@given(seeds)
def test_clipping_is_exact_for_a_diagonal_R(seed):
    rng = np.random.default_rng(seed)
    m = 4
    R = np.diag(rng.uniform(0.1, 3.0, m))
    sigma = rng.normal(scale=5.0, size=m)
    lo, hi = -rng.uniform(0.1, 1.0, m), rng.uniform(0.1, 1.0, m)
    clipped = np.clip(control.quadratic_control(R, sigma), lo, hi)
    np.testing.assert_allclose(
        control.box_quadratic_control(R, sigma, lo, hi).control, clipped, atol=1e-12
    )


def test_clipping_is_wrong_for_a_coupled_R():
    # The chapter's example, sigma^T u + u^T R u, i.e. the package's weight 2 R.  By hand:
    # R = [[1, 0.9], [0.9, 1]], sigma = (-4, 0), box [-1, 1]^2.  Unconstrained
    # u = -R^-1 sigma / 2 = (4, -3.6) / 0.38 = (10.53, -9.47), clipped to (1, -1).  With u1 at
    # its upper bound, u2 minimizes u2^2 + 1.8 u2: u2 = -0.9 inside the box, and the
    # multiplier check g1 = -4 + 2 (1 - 0.81) = -3.62 <= 0 confirms u1 = 1.
    R, sigma = np.array([[1.0, 0.9], [0.9, 1.0]]), np.array([-4.0, 0.0])
    np.testing.assert_allclose(
        control.quadratic_control(2 * R, sigma), [4 / 0.38, -3.6 / 0.38], rtol=1e-14
    )
    result = control.box_quadratic_control(2 * R, sigma, -1.0, 1.0)
    np.testing.assert_allclose(result.control, [1.0, -0.9], atol=1e-14)
    np.testing.assert_array_equal(result.at_upper, [True, False])
    # Objective -3.81 at the solution against -3.80 for the clipped input.
    assert objective(2 * R, sigma, result.control) == pytest.approx(-3.81, abs=1e-13)
    assert objective(2 * R, sigma, np.array([1.0, -1.0])) == pytest.approx(-3.80, abs=1e-13)


def test_box_qp_batches_and_zero_width_components():
    rng = np.random.default_rng(7)
    R = np.stack([random_spd(rng, 3) for _ in range(5)])
    sigma = rng.normal(size=(5, 3))
    lo, hi = np.array([-1.0, 0.3, -2.0]), np.array([1.0, 0.3, 2.0])  # u2 fixed at 0.3
    batch = control.box_quadratic_control(R, sigma, lo, hi)
    assert batch.control.shape == (5, 3)
    np.testing.assert_array_equal(batch.control[:, 1], 0.3)
    assert batch.at_lower[:, 1].all() and batch.at_upper[:, 1].all()
    for k in range(5):
        one = control.box_quadratic_control(R[k], sigma[k], lo, hi)
        np.testing.assert_array_equal(one.control, batch.control[k])
        # The free components solve the problem with u2 substituted (KKT of the reduced QP).
        assert (
            kkt_violation(
                R[k][np.ix_([0, 2], [0, 2])],
                sigma[k][[0, 2]] + R[k][[0, 2], 1] * 0.3,
                one.control[[0, 2]],
                lo[[0, 2]],
                hi[[0, 2]],
            )
            < 5e-13
        )
    # m = 1, interior: -u + 1/2 2 u^2 is least at u = 1/2
    single = control.box_quadratic_control([[2.0]], [-1.0], -5.0, 5.0)
    np.testing.assert_allclose(single.control, [0.5], atol=1e-15)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: control.bang_bang_control([1.0], 1.0, -1.0), "u_min, u_max: expected u_min <="),
        (lambda: control.bang_bang_control([np.nan], -1.0, 1.0), "sigma: expected finite"),
        (lambda: control.bang_bang_control(1.0, -1.0, 1.0), "sigma: expected shape"),
        (lambda: control.bang_bang_control([1.0], -1.0, 1.0, atol=-1.0), "atol: expected"),
        (lambda: control.bang_bang_control([1.0, 2.0], [-1.0, -1, -1], 1.0), "u_min: expected"),
        (lambda: control.bang_bang_control([1.0], -np.inf, 1.0), "u_min: expected finite"),
        (
            lambda: control.quadratic_control([[1.0, 0.0], [0.0, -1.0]], [1.0, 1.0]),
            "R: expected a symmetric positive definite",
        ),
        (
            lambda: control.quadratic_control([[1.0, 0.5], [0.0, 1.0]], [1.0, 1.0]),
            "R: expected a symmetric matrix",
        ),
        (lambda: control.quadratic_control(np.eye(2), [1.0, 1.0, 1.0]), "sigma: expected shape"),
        (lambda: control.quadratic_control(np.zeros((2, 2)), [1.0, 1.0]), "R: expected"),
        (
            lambda: control.box_quadratic_control(np.eye(2), [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]),
            "u_min, u_max: expected u_min <=",
        ),
        (
            lambda: control.box_quadratic_control(-np.eye(2), [1.0, 1.0], -1.0, 1.0),
            "R: expected a symmetric positive definite",
        ),
        (lambda: control.box_quadratic_control(np.eye(2), [1.0], -1.0, 1.0), "sigma: expected"),
    ],
)
def test_bad_input_is_refused_with_the_argument_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_results_are_frozen_and_read_by_name():
    results = [
        control.bang_bang_control([1.0, -1.0], -1.0, 1.0),
        control.box_quadratic_control(np.eye(2), [1.0, -1.0], -1.0, 1.0),
        control.accessibility_rank(control.car_kinematics(), np.zeros(4)),
        control.observability_rank(lambda x: np.zeros_like(x), lambda x: x[..., 0], [1.0, 0.0]),
    ]
    for result in results:
        with pytest.raises(TypeError):
            iter(result)
        field = dataclasses.fields(result)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, field, None)
    for name in ("FD_STEP", "NESTING_FACTOR", "RANK_RTOL", "ARMIJO"):
        assert not hasattr(control, name)
