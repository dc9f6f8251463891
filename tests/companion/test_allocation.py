"""Redundancy and allocation: solution families (eq-ch2-general-control), the weighted
allocation (eq-ch2-optimal-null-space), the minimum-kinetic-energy velocity, and bounded
(input-limited, muscle) allocation.

Checks: the seed's numbers and exercise worked by hand; hypothesis properties on random
maps of every rank, with the references computed independently (numpy's pinv and lstsq,
scipy's null_space, a bordered KKT solve, constraints.constrained_dynamics); the bounded
solvers against brute-force grids, closed forms, an enumeration of every face of the box,
random feasible points and KKT conditions checked from scratch (assert_kkt), and their
optimality certificate against clearly suboptimal points.  Bad and degenerate input is
tested last.
"""

import itertools

import numpy as np
import pytest
import scipy.linalg
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import optimize
from strategies import examples

from geomotion import ConvergenceError, _qp, allocation, constraints
from geomotion.allocation import _box
from geomotion.allocation import bounded as allocation_bounded

G_SEED = np.array([[1.0, 1.0]])
B_SEED = np.array([1.0])
W_SEED = np.diag([1.0, 4.0])


def random_spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


def map_of_rank(rng, d, m, r):
    """A (d, m) matrix of exact rank r (product of Gaussian factors), singular values O(1)."""
    return rng.normal(size=(d, r)) @ rng.normal(size=(r, m))


def kkt_minimum(W, G, b):
    """Independent reference: [[W, G^T], [G, 0]] [u; -lambda] = [0; b]."""
    d, m = G.shape
    K = np.block([[W, G.T], [G, np.zeros((d, d))]])
    return np.linalg.solve(K, np.concatenate([np.zeros(m), b]))[:m]


# --- the seed's numbers -------------------------------------------------------------


def test_seed_weighted_allocation_is_0_8_0_2_not_the_euclidean_0_5_0_5():
    # By hand: W^-1 G^T = (1, 1/4), G W^-1 G^T = 5/4, so u_W = (1, 1/4) / (5/4) = (0.8, 0.2).
    u_W = allocation.weighted_allocation(G_SEED, B_SEED, W_SEED)
    np.testing.assert_allclose(u_W, [0.8, 0.2], rtol=0, atol=1e-15)
    u_E = allocation.weighted_allocation(G_SEED, B_SEED, np.eye(2))
    np.testing.assert_allclose(u_E, [0.5, 0.5], rtol=0, atol=1e-15)
    # Both produce the same b; each is cheaper in its own metric (W-costs 0.4 vs 0.625).
    np.testing.assert_allclose(G_SEED @ u_W, B_SEED, atol=1e-15)
    assert 0.5 * u_W @ W_SEED @ u_W == pytest.approx(0.4, abs=1e-15)
    assert 0.5 * u_E @ W_SEED @ u_E == pytest.approx(0.625, abs=1e-15)
    assert u_W @ u_W > u_E @ u_E


def test_seed_solution_family_of_g_equal_1_1():
    family = allocation.solution_family(G_SEED, B_SEED)
    u0, Z = family.u0, family.Z
    with pytest.raises(TypeError):
        u0, Z = family  # a frozen dataclass read by name: it does not unpack
    np.testing.assert_allclose(u0, [0.5, 0.5], atol=1e-15)
    assert Z.shape == (2, 1)
    np.testing.assert_allclose(np.abs(Z[:, 0]), [2**-0.5, 2**-0.5], atol=1e-15)
    assert Z[0, 0] * Z[1, 0] < 0  # spans (1, -1) / sqrt 2
    assert family.rank == 1 and family.redundancy == 1
    assert allocation.redundancy_dimension(G_SEED) == 1  # m - r = 2 - 1
    # (0.8, 0.2) is the member u0 + (0.3, -0.3): z = 0.3 sqrt 2 along (1, -1)/sqrt 2.
    z = 0.3 * np.sqrt(2) * np.sign(Z[0, 0])
    np.testing.assert_allclose(family.member([z]), [0.8, 0.2], atol=1e-15)


def test_minimum_energy_velocity_hand_example():
    # M = diag(2, 1), A = (1, 1), b = 1: M^-1 A^T = (1/2, 1), A M^-1 A^T = 3/2 -> (1/3, 2/3).
    M = np.diag([2.0, 1.0])
    v = allocation.minimum_energy_velocity(M, [[1.0, 1.0]], [1.0])
    np.testing.assert_allclose(v, [1 / 3, 2 / 3], atol=1e-15)
    # It points along the mass-normal (1/2, 1), M-orthogonal to the tangent (1, -1),
    # while the Euclidean pseudoinverse answer (1/2, 1/2) costs more energy (3/8 > 1/3).
    assert np.array([1.0, -1.0]) @ M @ v == pytest.approx(0.0, abs=1e-15)
    v_pinv = np.linalg.pinv([[1.0, 1.0]]) @ [1.0]
    assert 0.5 * v @ M @ v == pytest.approx(1 / 3, abs=1e-15)
    assert 0.5 * v_pinv @ M @ v_pinv == pytest.approx(3 / 8, abs=1e-15)


def test_underactuated_full_column_rank_map_has_a_unique_input():
    # m = 2 inputs < d = 3 rows, full column rank: redundancy 0, one input per reachable b.
    G = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    u_true = np.array([0.3, -1.2])
    family = allocation.solution_family(G, G @ u_true)
    np.testing.assert_allclose(family.u0, u_true, atol=1e-14)
    assert family.Z.shape == (2, 0) and family.redundancy == 0
    assert allocation.redundancy_dimension(G) == 0
    with pytest.raises(ValueError, match=r"b: expected a request in the range of G"):
        allocation.solution_family(G, [1.0, 0.0, 0.0])  # (1, 0, 0) is not a G u
    with pytest.raises(ValueError, match=r"G: expected independent rows .*got rank 2"):
        allocation.weighted_allocation(G, G @ u_true, np.eye(2))


# --- the exercise: bounds that make the request infeasible -------------------------


def test_exercise_bounds_0_to_0_3_make_b_equal_1_infeasible():
    # With 0 <= u_i <= 0.3 the row u1 + u2 reaches at most 0.6 < 1.
    with pytest.raises(ValueError, match=r"u_max.*b\[0\] within \[0, 0\.6\].*got b\[0\] = 1"):
        allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 0.3)
    # Symmetric torque-like limits |u_i| <= 0.3 fail the same way, naming both bounds.
    with pytest.raises(
        ValueError, match=r"b, u_min, u_max: expected b\[0\] within \[-0\.6, 0\.6\]"
    ):
        allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, -0.3, 0.3)
    # The same request as a muscle problem (areas 1 and 1/2 give W = diag(1, 4)).
    with pytest.raises(ValueError, match=r"tau, s_max: expected tau\[0\] within \[0, 0\.6\]"):
        allocation.muscle_forces(G_SEED, B_SEED, [1.0, 0.5], 0.3)


def test_exercise_bounds_that_just_allow_the_request_leave_one_input():
    # 0 <= u <= 0.5: (0.5, 0.5) is the only feasible input, whatever W prefers.
    report = allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 0.5)
    np.testing.assert_allclose(report.solution, [0.5, 0.5], atol=1e-15)
    assert report.at_upper.all() and not report.at_lower.any()
    # With 0 <= u <= 0.3 the largest reachable request, b = 0.6, is still met.
    report = allocation.bounded_allocation(G_SEED, [0.6], W_SEED, 0.0, 0.3)
    np.testing.assert_allclose(report.solution, [0.3, 0.3], atol=1e-15)


def test_exercise_loose_bounds_reproduce_eq_10():
    report = allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 1.0)
    np.testing.assert_allclose(report.solution, [0.8, 0.2], atol=1e-14)  # achieved 1e-16
    assert report.objective == pytest.approx(0.4, abs=1e-12)
    assert not report.at_upper.any() and not report.at_lower.any()
    assert report.residual <= 1e-15


def test_bounded_answer_is_not_the_clipped_unbounded_answer():
    # G = (1, 1, 1), b = 1, W = diag(1, 2, 4), u <= 0.45.  Unbounded: u = W^-1 1 / 1.75
    # = (4/7, 2/7, 1/7); u1 = 4/7 > 0.45.  By hand with u1 = 0.45 active, the other two
    # share 0.55 in the ratio 1/2 : 1/4, i.e. (11/30, 11/60); the multiplier
    # lambda = 2 u2 = 11/15 exceeds W11 u1 = 0.45, so pushing u1 further up would pay.
    G, b, W = np.ones((1, 3)), np.array([1.0]), np.diag([1.0, 2.0, 4.0])
    unbounded = allocation.weighted_allocation(G, b, W)
    np.testing.assert_allclose(unbounded, np.array([4, 2, 1]) / 7, atol=1e-15)
    clipped = np.minimum(unbounded, 0.45)
    assert abs(G @ clipped - b)[0] > 0.1  # clipping breaks G u = b (sum is 0.879)

    report = allocation.bounded_allocation(G, b, W, 0.0, 0.45)
    np.testing.assert_allclose(report.solution, [0.45, 11 / 30, 11 / 60], atol=1e-14)
    np.testing.assert_array_equal(report.at_upper, [True, False, False])
    assert report.residual <= 1e-15
    lam = 2 * report.solution[1]
    assert lam - W[0, 0] * report.solution[0] > 0  # the upper bound's multiplier is positive
    # Clipping and then rescaling to restore G u = b is wrong too: it costs more.
    rescaled = clipped + (1 - clipped.sum()) * np.array([0, 0.5, 0.5])
    assert 0.5 * rescaled @ W @ rescaled > report.objective + 1e-3


# --- properties (hypothesis) --------------------------------------------------------


@st.composite
def maps_of_any_rank(draw):
    d = draw(st.integers(1, 5))
    m = draw(st.integers(1, 5))
    r = draw(st.integers(0, min(d, m)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return map_of_rank(rng, d, m, r), r, rng


@settings(max_examples=examples(60))
@given(maps_of_any_rank())
def test_every_member_of_the_family_solves_g_u_equal_b(case):
    G, r, rng = case
    m = G.shape[1]
    b = G @ rng.normal(size=m)
    family = allocation.solution_family(G, b)
    assert family.rank == r and family.redundancy == m - r  # r is known by construction
    assert allocation.redundancy_dimension(G) == m - r
    # u0 is numpy's pseudoinverse solution (achieved ~1e-15).
    np.testing.assert_allclose(family.u0, np.linalg.pinv(G) @ b, rtol=0, atol=1e-11)
    np.testing.assert_allclose(family.Z.T @ family.Z, np.eye(m - r), atol=1e-12)
    np.testing.assert_allclose(G @ family.Z, 0.0, atol=1e-12)
    np.testing.assert_allclose(family.Z.T @ family.u0, 0.0, atol=1e-12)
    for z in rng.normal(scale=5.0, size=(3, m - r)):
        np.testing.assert_allclose(G @ family.member(z), b, atol=1e-11)  # achieved ~1e-14


@settings(max_examples=examples(40))
@given(maps_of_any_rank())
def test_requests_outside_the_range_are_refused(case):
    G, r, rng = case
    d, _ = G.shape
    if r == d:
        return  # every b is reachable
    U = np.linalg.svd(G)[0]
    b = G @ rng.normal(size=G.shape[1]) + U[:, -1]  # a unit component outside range G
    with pytest.raises(ValueError, match=r"b: expected a request in the range of G.*residual"):
        allocation.solution_family(G, b)


@settings(max_examples=examples(60))
@given(st.integers(1, 4), st.integers(0, 3), st.integers(0, 2**32 - 1))
# Hypothesis (dev profile): cond G = 4.9e3, the KKT matrix's 3.3e8; 4.9e-8 off against 2.4e-8
@example(d=4, extra=0, seed=108)
def test_weighted_allocation_is_the_w_minimal_member_of_the_family(d, extra, seed):
    rng = np.random.default_rng(seed)
    m = d + extra
    G, W = rng.normal(size=(d, m)), random_spd(rng, m)
    b = rng.normal(size=d)
    u_W = allocation.weighted_allocation(G, b, W)
    # Reference 1: minimize over the family in closed form, with the family built by
    # lstsq and scipy's null_space: z* = -(Z^T W Z)^-1 Z^T W u0.
    u0 = np.linalg.lstsq(G, b, rcond=None)[0]
    Z = scipy.linalg.null_space(G)
    u_ref = u0 - Z @ np.linalg.solve(Z.T @ W @ Z, Z.T @ W @ u0) if Z.size else u0
    size = 1 + np.abs(u_ref).max()
    np.testing.assert_allclose(u_W, u_ref, rtol=0, atol=1e-11 * size)  # achieved 2e-13
    # Reference 2: the bordered KKT system, which squares the conditioning: a backward-stable
    # solve of it is off by up to about cond(K) eps |u| (6000 random cases: 0.4 of that at
    # most, and up to 4e-9 |u|, past the former fixed 1e-9).
    K = np.block([[W, G.T], [G, np.zeros((d, d))]])
    rounding = 16 * np.finfo(float).eps * np.linalg.cond(K)
    np.testing.assert_allclose(u_W, kkt_minimum(W, G, b), rtol=0, atol=(1e-9 + rounding) * size)
    # Every other member costs at least as much.
    cost = 0.5 * u_W @ W @ u_W
    for z in rng.normal(size=(3, Z.shape[1])):
        u = u_W + Z @ z
        assert 0.5 * u @ W @ u >= cost - 1e-12 * (1 + cost)


@settings(max_examples=examples(60))
@given(st.integers(1, 4), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_minimum_energy_velocity_meets_the_rows_and_is_m_orthogonal_to_ker_a(k, extra, seed):
    rng = np.random.default_rng(seed)
    n = k + extra
    M, A, b = random_spd(rng, n), rng.normal(size=(k, n)), rng.normal(size=k)
    v = allocation.minimum_energy_velocity(M, A, b)
    np.testing.assert_allclose(A @ v, b, atol=1e-12)  # achieved 7e-14
    N = scipy.linalg.null_space(A)
    np.testing.assert_allclose(N.T @ M @ v, 0.0, atol=1e-12 * (1 + np.abs(M @ v).max()))
    # A second algorithm: reaction elimination with M vdot = A^T lam, A vdot + gamma = 0
    # (through A M^-1 A^T, whose conditioning is squared: achieved 2e-10 relative).
    vdot = constraints.constrained_dynamics(M, A, 0.0, -b, 0.0).a
    np.testing.assert_allclose(v, vdot, rtol=0, atol=1e-8 * (1 + np.abs(vdot).max()))


def test_minimum_energy_equals_pseudoinverse_only_for_a_scalar_metric():
    rng = np.random.default_rng(1)
    A, b = rng.normal(size=(2, 4)), rng.normal(size=2)
    v_pinv = np.linalg.pinv(A) @ b
    np.testing.assert_allclose(
        allocation.minimum_energy_velocity(3.5 * np.eye(4), A, b), v_pinv, atol=1e-14
    )
    M = random_spd(rng, 4)
    v = allocation.minimum_energy_velocity(M, A, b)
    assert np.abs(v - v_pinv).max() > 1e-3
    assert 0.5 * v @ M @ v < 0.5 * v_pinv @ M @ v_pinv  # both meet A v = b


def test_constraint_and_task_stacking_gives_a_constraint_preserving_task_velocity():
    rng = np.random.default_rng(2)
    M, J_c, J_t = random_spd(rng, 5), rng.normal(size=(2, 5)), rng.normal(size=(2, 5))
    ydot = np.array([0.4, -1.1])
    task = allocation.stack_constraint_and_task(J_c, J_t, ydot)
    A, b = task.A, task.b
    np.testing.assert_array_equal(A, np.vstack([J_c, J_t]))
    np.testing.assert_array_equal(b, [0.0, 0.0, 0.4, -1.1])
    v = allocation.minimum_energy_velocity(M, A, b)
    np.testing.assert_allclose(J_c @ v, 0.0, atol=1e-13)
    np.testing.assert_allclose(J_t @ v, ydot, atol=1e-13)
    # Batched task rates broadcast against one pair of Jacobians.
    batched = allocation.stack_constraint_and_task(J_c, J_t, np.stack([ydot, 2 * ydot]))
    A_b, b_b = batched.A, batched.b
    assert A_b.shape == (2, 4, 5) and b_b.shape == (2, 4)
    v_b = allocation.minimum_energy_velocity(M, A_b, b_b)
    np.testing.assert_allclose(v_b, [v, 2 * v], atol=1e-13)  # linear in the rate


def test_reduced_dynamics_map_full_family_and_reduced_eq_10_agree():
    # G from constraints.reduced_dynamics has n rows but rank d = n - c (J_c G = 0), so
    # eq-ch2-optimal-null-space needs the reduced, full-row-rank map G_bar = N^T G in a
    # tangent basis N.
    rng = np.random.default_rng(3)
    n, c, m = 4, 1, 3
    M, J_c, B = random_spd(rng, n), rng.normal(size=(c, n)), rng.normal(size=(n, m))
    G = constraints.reduced_dynamics(M, J_c, 0.0, 0.0, B).G
    b = G @ rng.normal(size=m)
    family = allocation.solution_family(G, b, rtol=1e-10)
    assert family.rank == n - c and family.redundancy == m - (n - c)
    with pytest.raises(ValueError, match=r"G: expected independent rows .*got rank 3"):
        allocation.weighted_allocation(G, b, np.eye(m))
    N = constraints.null_space_basis(J_c)
    W = random_spd(rng, m)
    u_W = allocation.weighted_allocation(N.T @ G, N.T @ b, W)
    u0, Z = family.u0, family.Z
    u_ref = u0 - Z @ np.linalg.solve(Z.T @ W @ Z, Z.T @ W @ u0)
    np.testing.assert_allclose(u_W, u_ref, atol=1e-12)  # achieved ~1e-15
    np.testing.assert_allclose(G @ u_W, b, atol=1e-12)


def test_closed_forms_broadcast_over_batches():
    rng = np.random.default_rng(4)
    G, W, b = (
        rng.normal(size=(40, 2, 3)),
        np.stack([random_spd(rng, 3) for _ in range(40)]),
        rng.normal(size=(40, 2)),
    )
    u = allocation.weighted_allocation(G, b, W)  # 40 >= 32 takes the substitution path
    for i in (0, 17, 39):
        np.testing.assert_allclose(u[i], kkt_minimum(W[i], G[i], b[i]), atol=1e-12)
    few = allocation.weighted_allocation(G[:3], b[:3], W[0])  # one W for three maps
    for i in range(3):
        np.testing.assert_allclose(few[i], kkt_minimum(W[0], G[i], b[i]), atol=1e-12)
    one = allocation.weighted_allocation(G[:1], b[:1], W[:1])  # a batch of one
    np.testing.assert_allclose(one[0], u[0], atol=1e-14)
    family = allocation.solution_family(G, b)
    assert family.u0.shape == (40, 3) and family.Z.shape == (40, 3, 1)
    np.testing.assert_allclose(
        np.einsum("bij,bj->bi", G, family.member(np.ones((40, 1)))), b, atol=1e-12
    )
    np.testing.assert_array_equal(allocation.redundancy_dimension(G), np.ones(40, dtype=int))


# --- bounded allocation: independent optimality checks --------------------------------


def assert_kkt(gradient, G, b, lower, upper, u, scale, rtol=1e-9):
    """Independent optimality check of a convex problem's answer u (the package's own
    certificate is not used): u in the box, G u = b relative to the request, and
    multipliers fitted here by bounded least squares (scipy's lsq_linear) with
    mu_i >= 0 at a lower bound, <= 0 at an upper bound and 0 for a free entry, that
    write the gradient as G^T lambda + mu.  ``scale`` is each entry's size (the
    stationarity is compared in those units, where the gradient is scale_i g_i)."""
    lower, upper, scale = (np.broadcast_to(v, u.shape) for v in (lower, upper, scale))
    assert np.all(u >= lower) and np.all(u <= upper)
    miss = np.abs(G @ u - b)
    assert np.all(miss <= rtol * (np.abs(b) + np.abs(G) @ np.abs(u))), miss
    at_lower, at_upper = u - lower <= rtol * scale, upper - u <= rtol * scale
    active = np.flatnonzero(at_lower | at_upper)
    d, m = G.shape
    A = np.hstack([G.T, np.eye(m)[:, active]]) * scale[:, None]
    low = np.concatenate([np.full(d, -np.inf), np.where(at_upper, -np.inf, 0.0)[active]])
    high = np.concatenate([np.full(d, np.inf), np.where(at_lower, np.inf, 0.0)[active]])
    g = gradient * scale
    fit = optimize.lsq_linear(A, g, bounds=(low, high), method="bvls").x
    size = (np.abs(g) + np.abs(A) @ np.abs(fit)).max()
    np.testing.assert_allclose(A @ fit, g, rtol=0, atol=rtol * size)


def stress_gradient(s, areas, p):
    return p * (s / areas) ** (p - 1) / areas


def test_issue_reproductions_give_the_kkt_answer():
    # G = (1, 1, 1/2), W = diag(1, 4, 2), b = 1, 0 <= u <= 1e9 (formerly u = 0, residual 1).
    # By hand: W^-1 G^T = (1, 1/4, 1/4), G W^-1 G^T = 11/8, lambda = 8/11, so
    # u = lambda W^-1 G^T = (8, 2, 2) / 11 inside the box: the KKT point with mu = 0.
    G, W = np.array([[1.0, 1.0, 0.5]]), np.diag([1.0, 4.0, 2.0])
    report = allocation.bounded_allocation(G, [1.0], W, 0.0, 1e9)
    np.testing.assert_allclose(report.solution, np.array([8, 2, 2]) / 11, rtol=1e-14)
    np.testing.assert_allclose(W @ report.solution, 8 / 11 * G[0], rtol=1e-14)
    assert report.residual <= 1e-15 and not report.at_lower.any()
    # b = 1e-6 with bound 1e3: eq-ch2-optimal-null-space scaled by 1e-6, (0.8, 0.2) x 1e-6.
    report = allocation.bounded_allocation(G_SEED, [1e-6], W_SEED, 0.0, 1e3)
    np.testing.assert_allclose(report.solution, [0.8e-6, 0.2e-6], rtol=1e-14)
    assert report.residual <= 1e-21 and not report.at_lower.any()
    # A muscle request of 1e-5 N m: the closed form (no bound active), linear in tau.
    R, areas = np.array([[0.04, 0.03, -0.02], [0.0, 0.02, 0.05]]), np.array([8e-4, 5e-4, 6e-4])
    tau = np.array([1e-5, 1e-5])
    s_hand = areas**2 * (R.T @ np.linalg.solve(R @ np.diag(areas**2) @ R.T, tau))
    report = allocation.muscle_forces(R, tau, areas, 5000.0)
    np.testing.assert_allclose(report.solution, s_hand, rtol=1e-13)
    np.testing.assert_allclose(R @ report.solution, tau, rtol=1e-13)


def mixed_scale_problem(rng, coupled_scales, decades=3):
    """A feasible, strictly convex problem whose inputs live on scales 1e-3 ... 1e3.

    With ``coupled_scales`` the map and weight follow each input's scale (as physical
    units would make them); otherwise only the bounds do."""
    d = int(rng.integers(1, 3))
    m = d + 1 + int(rng.integers(0, 3))
    c = 10.0 ** rng.uniform(-decades, decades, m)
    G, A = rng.normal(size=(d, m)), rng.normal(size=(m, m))
    W = A @ A.T + m * np.eye(m)
    if coupled_scales:
        G, W = G / c, W / np.outer(c, c)
    lower, upper = -rng.uniform(0, 1, m) * c, rng.uniform(0.1, 1, m) * c
    return G, G @ rng.uniform(lower, upper), W, lower, upper, c


@pytest.mark.parametrize(("coupled_scales", "decades"), [(True, 3), (False, 3), (True, 5)])
def test_mixed_scale_random_problems_meet_the_kkt_conditions(coupled_scales, decades):
    # 200 problems per case, inputs on scales 10^-decades ... 10^decades (the former SLSQP
    # pipeline raised RuntimeError on 5 of the coupled 1e-3 ... 1e3 ones; one global scale
    # instead of each input's bound fails 4 of the 1e-5 ... 1e5 ones); each answer checked
    # by assert_kkt, in each input's own scale.
    rng = np.random.default_rng(19)
    for _ in range(200):
        G, b, W, lower, upper, scale = mixed_scale_problem(rng, coupled_scales, decades)
        report = allocation.bounded_allocation(G, b, W, lower, upper)
        assert_kkt(W @ report.solution, G, b, lower, upper, report.solution, scale)


# --- bounded muscle allocation ------------------------------------------------------


def test_muscle_forces_without_active_bounds_match_the_closed_form():
    # p = 2, sum (s_i / A_i)^2 = s^T diag(1/A^2) s: eq-ch2-optimal-null-space with
    # W^-1 = diag(A^2), i.e.
    # s = A^2 * R^T (R diag(A^2) R^T)^-1 tau, written out here by hand.
    R = np.array([[0.04, 0.03, -0.02], [0.0, 0.02, 0.05]])  # m
    areas = np.array([8e-4, 5e-4, 6e-4])  # m^2
    tau = np.array([20.0, 15.0])  # N m
    s_hand = areas**2 * (R.T @ np.linalg.solve(R @ np.diag(areas**2) @ R.T, tau))
    assert np.all(s_hand > 0) and np.all(s_hand < 5000)  # no bound is active
    report = allocation.muscle_forces(R, tau, areas, 5000.0)
    np.testing.assert_allclose(report.solution, s_hand, rtol=1e-13)  # achieved 2e-16
    np.testing.assert_allclose(
        report.solution, allocation.weighted_allocation(R, tau, np.diag(areas**-2.0)), rtol=1e-13
    )
    assert report.residual <= 1e-12  # N m; achieved 0
    assert_kkt(2 * report.solution / areas**2, R, tau, 0.0, 5000.0, report.solution, 5000.0)
    assert report.objective == pytest.approx(np.sum((s_hand / areas) ** 2), rel=1e-13)
    assert not report.at_lower.any() and not report.at_upper.any()


def brute_force_line(R, tau, areas, s_max, p, points=200_001):
    """Two muscles, one joint: s2 = (tau - R1 s1) / R2 on a fine grid of s1."""
    s1 = np.linspace(0.0, s_max[0], points)
    s2 = (tau[0] - R[0, 0] * s1) / R[0, 1]
    ok = (s2 >= 0) & (s2 <= s_max[1])
    cost = (s1 / areas[0]) ** p + (np.abs(s2) / areas[1]) ** p
    i = np.argmin(np.where(ok, cost, np.inf))
    return np.array([s1[i], s2[i]]), cost[i], s_max[0] / (points - 1)


@pytest.mark.parametrize("p", [1.5, 2.0, 3.0])
@pytest.mark.parametrize(
    ("R", "tau", "s_max"),
    [
        (np.array([[0.05, 0.03]]), np.array([40.0]), np.array([500.0, 1000.0])),  # s1 capped
        (np.array([[0.05, -0.02]]), np.array([10.0]), np.array([800.0, 800.0])),  # antagonist
        (np.array([[0.02, 0.06]]), np.array([30.0]), np.array([2000.0, 400.0])),  # s2 capped
    ],
)
def test_two_muscles_one_joint_against_a_brute_force_grid(R, tau, s_max, p):
    areas = np.array([1e-3, 4e-4])
    s_grid, cost_grid, step = brute_force_line(R, tau, areas, s_max, p)
    report = allocation.muscle_forces(R, tau, areas, s_max, p=p)
    assert report.objective <= cost_grid * (1 + 1e-12)  # never worse than the grid
    np.testing.assert_allclose(report.solution, s_grid, atol=6 * step)  # grid step 4e-3 N
    assert report.residual <= 1e-12
    s = report.solution
    assert_kkt(stress_gradient(s, areas, p), R, tau, 0.0, s_max, s, s_max)


def test_three_muscles_one_joint_against_a_two_dimensional_grid():
    R, tau = np.array([[0.05, 0.03, 0.04]]), np.array([45.0])
    areas, s_max = np.array([1e-3, 4e-4, 6e-4]), np.array([400.0, 600.0, 300.0])
    s1, s2 = np.meshgrid(np.linspace(0, 400, 1601), np.linspace(0, 600, 2401), indexing="ij")
    s3 = (tau[0] - R[0, 0] * s1 - R[0, 1] * s2) / R[0, 2]
    cost = (s1 / areas[0]) ** 2 + (s2 / areas[1]) ** 2 + (s3 / areas[2]) ** 2
    cost = np.where((s3 >= 0) & (s3 <= 300), cost, np.inf)
    i = np.unravel_index(np.argmin(cost), cost.shape)
    report = allocation.muscle_forces(R, tau, areas, s_max)
    assert report.at_upper[0]  # the strong-arm, large-area muscle saturates
    assert report.objective <= cost[i] * (1 + 1e-9)
    np.testing.assert_allclose(report.solution[:2], [s1[i], s2[i]], atol=1.0)  # grid 0.25 N


def test_three_muscles_two_joints_against_a_grid_along_the_kernel():
    R = np.array([[0.04, 0.03, -0.02], [0.0, 0.03, 0.04]])
    tau = np.array([8.0, 20.0])
    areas, s_max = np.array([5e-4, 5e-4, 5e-4]), np.array([1000.0, 250.0, 1000.0])
    s_part = np.linalg.lstsq(R, tau, rcond=None)[0]
    k = scipy.linalg.null_space(R)[:, 0]
    t = np.linspace(-5000, 5000, 2_000_001)
    s = s_part + t[:, None] * k
    cost = np.where(
        np.all((s >= 0) & (s <= s_max), axis=1), np.sum((s / areas) ** 2, axis=1), np.inf
    )
    i = np.argmin(cost)
    report = allocation.muscle_forces(R, tau, areas, s_max)
    assert report.objective <= cost[i] * (1 + 1e-9)
    np.testing.assert_allclose(report.solution, s[i], atol=0.02)  # grid step 5e-3 along k


@settings(max_examples=examples(25))
@given(
    st.integers(1, 2),
    st.integers(2, 4),
    st.sampled_from([1.2, 1.5, 2.0, 3.0]),
    st.integers(0, 2**32 - 1),
)
def test_bounded_solution_beats_random_feasible_points(joints, muscles, p, seed):
    rng = np.random.default_rng(seed)
    R = rng.normal(scale=0.04, size=(joints, muscles))
    areas, s_max = rng.uniform(2e-4, 1e-3, muscles), rng.uniform(200, 1500, muscles)
    tau = R @ (rng.uniform(0.1, 0.9, muscles) * s_max)  # reachable by construction
    report = allocation.muscle_forces(R, tau, areas, s_max, p=p)
    s = report.solution
    assert np.all(s >= 0) and np.all(s <= s_max)
    assert report.residual <= 1e-12 * (1 + np.abs(tau).max())
    assert_kkt(stress_gradient(s, areas, p), R, tau, 0.0, s_max, s, s_max, rtol=1e-8)
    # Feasible points: convex combinations of vertices that linprog finds for random costs.
    vertices = [
        optimize.linprog(
            rng.normal(size=muscles), A_eq=R, b_eq=tau, bounds=list(zip(0 * s_max, s_max))
        ).x
        for _ in range(4)
    ]
    for weights in rng.dirichlet(np.ones(4), size=10):
        other = weights @ np.array(vertices)
        assert report.objective <= np.sum((other / areas) ** p) * (1 + 1e-9)


def test_stress_exponents_on_random_problems_meet_the_kkt_conditions():
    # Up to 3 joints and 6 muscles, requests from full to 1e-6 of a reachable load, each
    # answer checked by assert_kkt (some need the damped Newton steps).
    rng = np.random.default_rng(7)
    for _ in range(60):
        joints, muscles = rng.integers(1, 4), rng.integers(2, 7)
        p = rng.choice([1.05, 1.2, 1.5, 2.5, 3.0])
        R = rng.normal(scale=0.04, size=(joints, muscles))
        areas, s_max = rng.uniform(2e-4, 1e-3, muscles), rng.uniform(200, 1500, muscles)
        tau = R @ (rng.uniform(0.0, 1.0, muscles) * s_max) * rng.choice([1, 1e-3, 1e-6])
        s = allocation.muscle_forces(R, tau, areas, s_max, p=p).solution
        assert_kkt(stress_gradient(s, areas, p), R, tau, 0.0, s_max, s, s_max, rtol=1e-8)


def test_p_equal_1_is_a_linear_program_with_a_hand_vertex():
    # Cost per newton 1/A = (1, sqrt 2, 2): fill the cheapest muscles first, up to 0.45 each.
    report = allocation.muscle_forces(
        np.ones((1, 3)), [1.0], 1 / np.sqrt([1.0, 2.0, 4.0]), 0.45, p=1
    )
    np.testing.assert_allclose(report.solution, [0.45, 0.45, 0.1], atol=1e-15)
    assert report.objective == pytest.approx(0.45 + 0.45 * np.sqrt(2) + 0.2, abs=1e-12)


def test_bounded_allocation_and_muscle_forces_agree_for_p_2():
    # sum (s_i/A_i)^2 is twice (1/2) s^T W s with W = diag(1/A^2): same minimizer.
    R, tau, areas = np.array([[0.05, 0.03, 0.04]]), np.array([45.0]), np.array([1e-3, 4e-4, 6e-4])
    s_max = np.array([400.0, 600.0, 300.0])
    stress = allocation.muscle_forces(R, tau, areas, s_max)
    quadratic = allocation.bounded_allocation(R, tau, np.diag(areas**-2.0), 0.0, s_max)
    np.testing.assert_allclose(stress.solution, quadratic.solution, rtol=1e-13)  # 2e-16
    assert stress.objective == pytest.approx(2 * quadratic.objective, rel=1e-13)


def test_coupled_weight_and_an_input_the_map_ignores():
    # G = (1, 0): u1 = 1 is forced; u2 is free in [0.5, 2] and minimizes u1^2 + u1 u2 + u2^2,
    # whose unconstrained minimum u2 = -1/2 lies below the box: u2 = 0.5 (1-D, convex).
    report = allocation.bounded_allocation(
        [[1.0, 0.0]], [1.0], [[2.0, 1.0], [1.0, 2.0]], [-5, 0.5], [5, 2]
    )
    np.testing.assert_allclose(report.solution, [1.0, 0.5], atol=1e-15)
    np.testing.assert_array_equal(report.at_lower, [False, True])


def qp_by_enumeration(W, G, b, lower, upper):
    """Independent reference: try every face (each entry free, at lower or at upper),
    solve the equality-constrained QP on it (bordered system), keep the best feasible."""
    m, d = len(lower), G.shape[0]
    best = (np.inf, None)
    for states in itertools.product((0, 1, 2), repeat=m):
        held = np.array(states) > 0
        u = np.where(np.array(states) == 1, lower, np.where(np.array(states) == 2, upper, 0.0))
        free = np.flatnonzero(~held)
        K = np.block([[W[np.ix_(free, free)], G[:, free].T], [G[:, free], np.zeros((d, d))]])
        rhs = np.concatenate([-W[free] @ u, b - G @ u])
        try:
            u[free] = np.linalg.solve(K, rhs)[: len(free)]
        except np.linalg.LinAlgError:
            continue
        feasible = np.all(u >= lower - 1e-12) and np.all(u <= upper + 1e-12)
        if feasible and np.abs(G @ u - b).max() <= 1e-10 and 0.5 * u @ W @ u < best[0]:
            best = (0.5 * u @ W @ u, u)
    return best[1]


@settings(max_examples=examples(40))
@given(st.integers(1, 2), st.integers(0, 2), st.integers(0, 2**32 - 1))
def test_bounded_allocation_matches_an_enumeration_of_faces(d, extra, seed):
    rng = np.random.default_rng(seed)
    m = d + 1 + extra
    G, W = rng.normal(size=(d, m)), random_spd(rng, m)  # W coupled (not diagonal)
    lower, upper = -rng.uniform(0, 1, m), rng.uniform(0.1, 1, m)
    b = G @ rng.uniform(lower, upper)  # reachable by construction
    report = allocation.bounded_allocation(G, b, W, lower, upper)
    u_ref = qp_by_enumeration(W, G, b, lower, upper)
    np.testing.assert_allclose(report.solution, u_ref, rtol=0, atol=1e-11)  # achieved 2e-12
    np.testing.assert_array_equal(report.at_lower, np.abs(u_ref - lower) <= 1e-9)
    np.testing.assert_array_equal(report.at_upper, np.abs(u_ref - upper) <= 1e-9)


def test_an_answer_that_fails_its_certificate_raises(monkeypatch):
    # A solver that returns the feasible but suboptimal (0.5, 0.5) with the multiplier
    # that fits its gradient best: the certificate must refuse it (true relative gap
    # 0.36; by hand r = W u - 1.25 G^T = (-0.75, 0.75), r^T W^-1 r / 2 = 0.3516 = 0.5625 f).
    def euclidean(problem, H, g):
        return np.full(2, 0.5) / problem.col_scale, np.array([1.25]), 1, "stub"

    monkeypatch.setattr(allocation_bounded._solvers, "minimize_quadratic", euclidean)
    with pytest.raises(ConvergenceError, match=r"certified relative optimality gap 0\.562 above"):
        allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 1.0)


def test_an_answer_that_misses_the_request_raises(monkeypatch):
    # The former failure: u = 0 returned for b = 1.  Now the residual is checked first.
    def zero(problem, H, g):
        return np.zeros(len(problem.free)), np.zeros(1), 1, "stub"

    monkeypatch.setattr(allocation_bounded._solvers, "minimize_quadratic", zero)
    with pytest.raises(
        ConvergenceError, match=r"\|\(G u - b\)\[0\]\| = 1 above .*rtol = 1e-09"
    ) as caught:
        allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 1e9)
    # The documented default rtol = 1e-9; the miss is the whole request (relative miss 1).
    assert caught.value.tolerance == 1e-9 and caught.value.residual == 1.0
    assert isinstance(caught.value, RuntimeError) and caught.value.iterations == 1


def test_daqp_answer_without_the_face_correction_is_certified_with_its_own_multipliers(
    monkeypatch,
):
    # The fallback when the face correction does not settle: DAQP's x and multipliers,
    # on exercise 4's cases (answers by hand in the exercise).
    monkeypatch.setattr(allocation_bounded._solvers, "_polish_on_face", lambda *args: None)
    for lower, upper, expected in [
        (0.0, 1.0, [0.8, 0.2]),
        (0.0, 0.7, [0.7, 0.3]),
        ([0, 0.4], 1, [0.6, 0.4]),
    ]:
        report = allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, lower, upper)
        np.testing.assert_allclose(report.solution, expected, atol=1e-15)
        assert report.message == "DAQP: optimal"


def test_solver_failures_raise(monkeypatch):
    # DAQP stopping without an answer, or calling a feasible problem infeasible (the
    # 1-norm program then finds no miss to report), and a dual Newton iteration cap.
    def stopped(flag):
        info = lambda bu: {"lam": np.zeros(len(bu)), "iterations": 0}  # noqa: E731
        return lambda H, f, A, bu, bl, sense, **options: (np.zeros(len(f)), 0.0, flag, info(bu))

    for flag in (-1, -3):
        with monkeypatch.context() as patch:
            patch.setattr(_qp.daqp, "solve", stopped(flag))
            with pytest.raises(
                ConvergenceError, match=f"DAQP stopped on a feasible problem with exit flag {flag}"
            ):
                allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 1.0)
    with monkeypatch.context() as patch:  # the 1-norm program stops too: nothing to report
        patch.setattr(_qp.daqp, "solve", stopped(-1))
        patch.setattr(
            _box.optimize, "linprog", lambda *args, **kwargs: optimize.OptimizeResult(status=4)
        )
        with pytest.raises(ConvergenceError, match=r"DAQP stopped .* with exit flag -1"):
            allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 1.0)
    with monkeypatch.context() as patch:
        failed = optimize.OptimizeResult(status=4, message="numerical difficulties")
        patch.setattr(
            allocation_bounded._solvers.optimize, "linprog", lambda *args, **kwargs: failed
        )
        with pytest.raises(ConvergenceError, match=r"linprog \(HiGHS\) stopped: numerical diff"):
            allocation.muscle_forces(G_SEED, B_SEED, 1.0, 1.0, p=1)
    monkeypatch.setattr(allocation_bounded._solvers, "_NEWTON_STEPS", 1)
    with pytest.raises(ConvergenceError, match=r"^batch element \(1,\): the dual Newton") as caught:
        allocation.muscle_forces([[0.05, 0.03]], [[0.0], [40.0]], [1e-3, 4e-4], 5000.0, p=3)
    assert caught.value.iterations == 1 and caught.value.tolerance > 0
    with pytest.raises(
        ConvergenceError, match=r"dual Newton iteration for p = 3 did not meet the rows in 1 steps"
    ):
        allocation.muscle_forces([[0.05, 0.03]], [40.0], [1e-3, 4e-4], 5000.0, p=3)


def test_certificate_rejects_a_suboptimal_point_whatever_the_multipliers():
    # Weak duality: for every multiplier the certified gap bounds the true relative
    # suboptimality from above, so a clearly suboptimal point can never pass.
    lower, upper, rng = np.zeros(2), np.ones(2), np.random.default_rng(5)
    quadratic = allocation_bounded._Quadratic(W_SEED)
    # G = (1, 1), b = 1, W = diag(1, 4): minimum 0.4 at (0.8, 0.2) (hand, eq-ch2-optimal-null-space); the
    # Euclidean (0.5, 0.5) costs 0.625, a true relative gap of 0.36.
    for lam in [-3.0, 0.0, 0.8, 1.25, 5.0, *rng.normal(scale=3, size=20)]:
        gap = _box.relative_gap(
            np.full(2, 0.5), np.array([lam]), quadratic, G_SEED, B_SEED, lower, upper
        )
        assert gap >= 0.36 - 1e-12
    minimum = _box.relative_gap(
        np.array([0.8, 0.2]), np.array([0.8]), quadratic, G_SEED, B_SEED, lower, upper
    )
    assert minimum <= 1e-15  # the hand multiplier lambda = W11 u1 = 0.8 certifies it
    # Muscle stress with p = 3 (two muscles, one joint, capacities far above the optimum),
    # minimum from the brute-force grid (a grid minimum is never below the true one, so
    # the reference gap is a lower bound).
    R, tau, areas, s_max = (
        np.array([[0.05, 0.03]]),
        np.array([40.0]),
        np.array([1e-3, 4e-4]),
        np.array([5000.0, 5000.0]),
    )
    stress = allocation_bounded._StressPower(areas, 3.0)
    s_grid, f_grid, _ = brute_force_line(R, tau, areas, s_max, 3.0)
    s = np.array([300.0, 2500.0 / 3])  # 0.05 * 300 + 0.03 * 2500 / 3 = 40 N m
    true_gap = 1 - f_grid / stress.value(s)
    assert true_gap > 0.5
    # The multiplier of the grid minimum (muscle 1's stress gradient over its arm) makes
    # the bound nearly tight, where a wrong inner minimum would show.
    lam_grid = stress_gradient(s_grid, areas, 3.0)[0] / R[0, 0]
    for lam in [0.0, lam_grid, 1e9, 1e11, 1e13, *10.0 ** rng.uniform(6, 14, 20)]:
        gap = _box.relative_gap(s, np.array([lam]), stress, R, tau, np.zeros(2), s_max)
        assert gap >= true_gap - 1e-12


# --- degenerate but legal -----------------------------------------------------------


def test_zero_request_gives_zero_forces():
    report = allocation.muscle_forces([[0.05, -0.03]], [0.0], [1e-3, 1e-3], 500.0)
    np.testing.assert_array_equal(report.solution, [0.0, 0.0])
    assert report.objective == 0.0 and report.at_lower.all()


def test_fixed_inputs_are_moved_to_the_request():
    # Every input fixed (no solver call; formerly null_space of a zero-column matrix).
    report = allocation.bounded_allocation(G_SEED, [0.6], W_SEED, 0.3, 0.3)
    np.testing.assert_array_equal(report.solution, [0.3, 0.3])
    assert report.iterations == 0 and report.at_lower.all() and report.at_upper.all()
    # u1 fixed at 0.4 with a coupled weight: the others minimize over u2 + u3 = 0.6 with
    # gradients 0.4 + 2 u2 = 2 u3 (by hand), so (u2, u3) = (0.2, 0.4).
    W = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 2.0]])
    report = allocation.bounded_allocation(np.ones((1, 3)), [1.0], W, [0.4, -1, -1], [0.4, 1, 1])
    np.testing.assert_allclose(report.solution, [0.4, 0.2, 0.4], atol=1e-15)
    # A row that only a fixed input moves must already be met.
    with pytest.raises(
        ValueError, match=r"b, u_min, u_max: expected b\[0\] = 0\.3, the only value"
    ):
        allocation.bounded_allocation(
            np.eye(2), [0.3 + 1e-8, 0.5], np.eye(2), [0.3, 0.0], [0.3, 1.0]
        )


def test_bounded_problems_broadcast_over_a_batch():
    # Exercise 4's bounds as one batch: upper bounds 1, 0.7, 0.5 give (0.8, 0.2), (0.7, 0.3)
    # and (0.5, 0.5) (hand: eq-ch2-optimal-null-space, then the face u1 = 0.7, then the only
    # feasible point).
    upper = np.array([1.0, 0.7, 0.5])[:, None] * np.ones(2)
    report = allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, upper)
    np.testing.assert_allclose(report.solution, [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]], atol=1e-15)
    np.testing.assert_allclose(report.objective, [0.4, 0.425, 0.625], atol=1e-15)
    np.testing.assert_array_equal(report.at_upper, [[False, False], [True, False], [True, True]])
    assert report.residual.shape == report.optimality.shape == report.iterations.shape == (3,)
    assert report.message.shape == (3,)
    # Maps, requests and muscle areas batched on two axes agree with one call per element.
    rng = np.random.default_rng(6)
    R = rng.uniform(0.01, 0.05, size=(2, 3, 1, 3))
    tau, areas = rng.uniform(5, 10, size=(2, 3, 1)), rng.uniform(2e-4, 1e-3, size=(3, 3))
    batch = allocation.muscle_forces(R, tau, areas, 1000.0, p=3)
    assert batch.solution.shape == (2, 3, 3) and batch.objective.shape == (2, 3)
    for i, j in itertools.product(range(2), range(3)):
        one = allocation.muscle_forces(R[i, j], tau[i, j], areas[j], 1000.0, p=3)
        np.testing.assert_array_equal(batch.solution[i, j], one.solution)
    # An infeasible element stops the batch, named by its index.
    with pytest.raises(
        ValueError,
        match=r"batch element \(1,\): b, u_min, u_max: expected b\[0\] within \[0, 0\.6\]",
    ):
        allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, [[1.0, 1.0], [0.3, 0.3]])


def test_zero_capacity_and_zero_arm_muscles_carry_no_force():
    R = np.array([[0.05, 0.04, 0.0]])  # muscle 3 does not cross the joint
    report = allocation.muscle_forces(R, [10.0], [1e-3, 1e-3, 1e-3], [0.0, 500.0, 500.0])
    np.testing.assert_allclose(report.solution, [0.0, 250.0, 0.0], atol=1e-11)  # 10 / 0.04
    assert report.at_lower[0] and report.at_upper[0]  # fixed at zero


def test_unloadable_joint_must_be_asked_for_zero():
    R = np.array([[0.05, 0.04], [0.0, 0.0]])  # joint 1 has no muscle
    report = allocation.muscle_forces(R, [10.0, 0.0], [1e-3, 1e-3], 500.0)
    np.testing.assert_allclose(R @ report.solution, [10.0, 0.0], atol=1e-9)
    with pytest.raises(ValueError, match=r"tau, s_max: expected tau\[1\] within \[0, 0\]"):
        allocation.muscle_forces(R, [10.0, 1.0], [1e-3, 1e-3], 500.0)


def test_dependent_joint_rows_consistent_and_inconsistent():
    R = np.array([[0.05, 0.04], [0.10, 0.08]])  # row 2 = 2 x row 1
    ok = allocation.muscle_forces(R, [10.0, 20.0], [1e-3, 1e-3], 500.0)
    np.testing.assert_allclose(R @ ok.solution, [10.0, 20.0], atol=1e-9)
    with pytest.raises(ValueError, match=r"tau, s_max: expected a request .*every row at once"):
        allocation.muscle_forces(R, [10.0, 25.0], [1e-3, 1e-3], 500.0)


def test_jointly_unreachable_loads_are_reported_as_such():
    # Each joint alone is reachable (0..1000 and 0..500 N x 0.05 m), not both together:
    # s1 = 10 N m / 0.05 m = 200 N leaves 0.05 s2 = 40 - 10 -> s2 = 600 N > 500 N.
    R = np.array([[0.05, 0.05], [0.05, 0.0]])
    with pytest.raises(ValueError, match=r"tau, s_max: .*within reach on its own.*misses tau"):
        allocation.muscle_forces(R, [40.0, 10.0], [1e-3, 1e-3], 500.0)


def test_solution_family_of_a_zero_map_and_of_a_zero_request():
    family = allocation.solution_family(np.zeros((2, 3)), 0)
    np.testing.assert_array_equal(family.u0, np.zeros(3))
    assert family.rank == 0
    np.testing.assert_allclose(family.Z @ family.Z.T, np.eye(3), atol=1e-15)
    with pytest.raises(ValueError, match=r"b: expected a request in the range of G"):
        allocation.solution_family(np.zeros((2, 3)), [1e-3, 0.0])
    np.testing.assert_array_equal(allocation.weighted_allocation(G_SEED, 0, W_SEED), [0.0, 0.0])


def test_a_rank_that_varies_across_a_batch_is_reported_per_element():
    # A sweep through a singularity: diag(1, t) loses rank at t = 0 (by hand: rank 2, 1, 2).
    G = np.stack([np.diag([1.0, t]) for t in (0.5, 0.0, 2.0)])
    b = np.array([[1.0, 1.0], [3.0, 0.0], [1.0, 4.0]])
    family = allocation.solution_family(G, b)
    np.testing.assert_array_equal(family.rank, [2, 1, 2])
    np.testing.assert_array_equal(family.redundancy, [0, 1, 0])
    np.testing.assert_array_equal(allocation.redundancy_dimension(G), [0, 1, 0])
    np.testing.assert_allclose(family.u0, [[1.0, 2.0], [3.0, 0.0], [1.0, 2.0]], atol=1e-15)
    # Z has the largest redundancy's column count; the regular elements' column is zero.
    assert family.Z.shape == (3, 2, 1)
    np.testing.assert_array_equal(family.Z[[0, 2]], 0.0)
    np.testing.assert_allclose(np.abs(family.Z[1, :, 0]), [0.0, 1.0], atol=0)
    members = family.member(np.array([[5.0], [5.0], [5.0]]))
    np.testing.assert_allclose(np.einsum("bij,bj->bi", G, members), b, atol=1e-15)
    # Uniform rank: every column a unit vector, as for one matrix.
    single = allocation.solution_family(G[1], b[1])
    assert single.rank == 1 and single.redundancy == 1 and single.Z.shape == (2, 1)


def test_options_are_keyword_only_and_no_tolerance_constant_is_exported():
    with pytest.raises(TypeError):
        allocation.solution_family(G_SEED, B_SEED, 1e-10)
    with pytest.raises(TypeError):
        allocation.weighted_allocation(G_SEED, B_SEED, W_SEED, 1e-10)
    with pytest.raises(TypeError):
        allocation.muscle_forces(G_SEED, B_SEED, 1.0, 1.0, 2)
    for name in (
        "ACTIVE_RTOL",
        "FEASIBILITY_RTOL",
        "OPTIMALITY_RTOL",
        "RANGE_RTOL",
        "RESIDUAL_RTOL",
    ):
        assert not hasattr(allocation, name)
    task = allocation.stack_constraint_and_task(np.ones((1, 2)), np.eye(2)[:1], [1.0])
    with pytest.raises(TypeError):
        A, b = task  # noqa: F841 -- read by name


def test_the_residual_tolerance_of_a_bounded_problem_is_a_keyword():
    # Dependent rows asking for 1 and 2 + 2e-8: inconsistent by 1e-8 of the request, more
    # than the documented default rtol = 1e-9 accepts and less than rtol = 1e-7.
    G = np.array([[1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="consistent with the dependent rows of G"):
        allocation.bounded_allocation(G, [1.0, 2 + 2e-8], np.eye(2), -5.0, 5.0)
    report = allocation.bounded_allocation(G, [1.0, 2 + 2e-8], np.eye(2), -5.0, 5.0, rtol=1e-7)
    np.testing.assert_allclose(report.solution, [0.5, 0.5], rtol=1e-7)
    assert report.residual <= 1e-7 * 6


def test_integer_input_is_read_as_real():
    np.testing.assert_allclose(
        allocation.weighted_allocation([[1, 1]], [1], [[1, 0], [0, 4]]), [0.8, 0.2]
    )


# --- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: allocation.solution_family([[1.0, 1.0]], [1.0, 2.0]),
            r"b: expected shape \(\.\.\., 1\)",
        ),
        (lambda: allocation.solution_family([[np.nan, 1.0]], [1.0]), r"G: expected finite values"),
        (lambda: allocation.solution_family([[1.0, 1.0]], [np.inf]), r"b: expected finite values"),
        (
            lambda: allocation.solution_family(np.zeros((1, 0)), [0.0]),
            r"G: expected shape .*m >= 1",
        ),
        (lambda: allocation.solution_family([1.0, 1.0], [1.0]), r"G: expected a matrix"),
        (
            lambda: allocation.solution_family([[1.0, 1.0]], [1.0], rtol=-1),
            r"rtol: expected non-negative",
        ),
        (
            lambda: allocation.solution_family([[1.0, 1.0]], [1.0], range_rtol=-1),
            r"range_rtol: expected non-negative",
        ),
        (lambda: allocation.solution_family([[1j, 1.0]], [1.0]), r"G: expected real numbers"),
        (
            lambda: allocation.solution_family(
                np.stack([np.eye(2), np.diag([1.0, 0.0])]), [[1.0, 0.0], [0.0, 1.0]]
            ),
            r"b: expected a request in the range of G .* at batch element \(1,\)",
        ),
        (
            lambda: allocation.weighted_allocation(
                np.stack([np.eye(2), np.diag([1.0, 0.0])]), [1.0, 0.0], np.eye(2)
            ),
            r"G: expected independent rows .*got rank 1 at batch element \(1,\)",
        ),
        (
            lambda: allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.0, 1.0, rtol=-1.0),
            r"rtol: expected non-negative",
        ),
        (
            lambda: allocation.solution_family(np.ones((3, 1, 2)), np.ones((2, 1))),
            r"G, b: expected leading \(batch\) axes that broadcast",
        ),
        (
            lambda: allocation.weighted_allocation(G_SEED, B_SEED, np.diag([1.0, -4.0])),
            r"W: .*positive definite.*-4",
        ),
        (
            lambda: allocation.weighted_allocation(G_SEED, B_SEED, [[1.0, 0.5], [0.0, 4.0]]),
            r"W: expected a symmetric",
        ),
        (
            lambda: allocation.weighted_allocation(G_SEED, B_SEED, np.eye(3)),
            r"W: expected shape \(\.\.\., 2, 2\) to match",
        ),
        (lambda: allocation.weighted_allocation(G_SEED, [1.0, 1.0], W_SEED), r"b: expected shape"),
        (
            lambda: allocation.weighted_allocation([[1.0, 1.0], [2.0, 2.0]], [1.0, 2.0], W_SEED),
            r"G: .*got rank 1",
        ),
        (
            lambda: allocation.minimum_energy_velocity(
                np.eye(2), [[1.0, 1.0], [1.0, 1.0]], [0.0, 1.0]
            ),
            r"A: expected independent rows",
        ),
        (
            lambda: allocation.minimum_energy_velocity(np.ones((2, 2)), [[1.0, 1.0]], [1.0]),
            r"M: .*positive definite",
        ),
        (
            lambda: allocation.stack_constraint_and_task(np.ones((1, 3)), np.ones((1, 2)), [1.0]),
            r"J_t: expected shape",
        ),
        (
            lambda: allocation.stack_constraint_and_task(
                np.ones((1, 3)), np.ones((1, 3)), [1.0, 2.0]
            ),
            r"task_rate",
        ),
        (
            lambda: allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, 0.5, 0.4),
            r"u_min, u_max: expected u_min <= u_max",
        ),
        (
            lambda: allocation.bounded_allocation(G_SEED, B_SEED, W_SEED, [0, 0, 0], 1),
            r"u_min: expected a scalar or shape \(2,\)",
        ),
        (
            lambda: allocation.bounded_allocation(
                np.ones((3, 1, 2)), np.ones((2, 1)), W_SEED, 0, 1
            ),
            r"G, b, W, u_min, u_max: expected leading \(batch\) axes that broadcast",
        ),
        (
            lambda: allocation.muscle_forces(G_SEED, B_SEED, [1e-3, -1e-3], 100.0),
            r"areas: expected positive",
        ),
        (
            lambda: allocation.muscle_forces(G_SEED, B_SEED, [1e-3, 0.0], 100.0),
            r"areas: expected positive",
        ),
        (
            lambda: allocation.muscle_forces(G_SEED, B_SEED, 1e-3, [100.0, -1.0]),
            r"s_max: expected non-negative",
        ),
        (
            lambda: allocation.muscle_forces(G_SEED, B_SEED, 1e-3, [100.0, np.nan]),
            r"s_max: expected finite",
        ),
        (
            lambda: allocation.muscle_forces(G_SEED, B_SEED, 1e-3, 100.0, p=0.5),
            r"p: expected one exponent p >= 1",
        ),
        (
            lambda: allocation.muscle_forces(G_SEED, B_SEED, 1e-3, 100.0, p=[2, 3]),
            r"p: expected one exponent",
        ),
        (lambda: allocation.muscle_forces(G_SEED, [1.0, 2.0], 1e-3, 100.0), r"tau: expected shape"),
        (
            lambda: allocation.muscle_forces(G_SEED, B_SEED, [1e-3] * 3, 100.0),
            r"areas: expected a scalar or shape \(2,\)",
        ),
        (
            lambda: allocation.muscle_forces(G_SEED, [1e6], 1e-3, 100.0),
            r"tau, s_max: expected tau\[0\] within \[0, 200\]",
        ),
        (
            lambda: allocation.solution_family(G_SEED, B_SEED).member([1.0, 2.0]),
            r"z: expected shape",
        ),
    ],
)
def test_bad_input_raises_a_value_error_naming_the_argument(call, message):
    # A value of the wrong type (complex numbers, strings) is a TypeError, see api_convention.
    with pytest.raises(
        TypeError if "expected real numbers" in message else ValueError, match=message
    ):
        call()
