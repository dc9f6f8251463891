"""Null-space reduction: the seed exercise's numbers, hand-derived constrained particles,
an independent KKT (augmented-system) solve, basis invariance, and bad input."""

import numpy as np
import pytest

from geomotion import constraints

M_SEED = np.diag([2.0, 3.0])
J_SEED = np.array([[1.0, 1.0]])  # qd1 + qd2 = 0
N_SEED = np.array([[1.0], [-1.0]])
LOAD_SEED = np.array([1.0, 0.0])


def random_spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


def kkt_solve(M, J, load, bias, Jdot_qd):
    """Independent reference: [[M, -J^T], [J, 0]] [qdd; lambda] = [load - bias; -Jdot qd]."""
    n, m = M.shape[0], J.shape[0]
    K = np.block([[M, -J.T], [J, np.zeros((m, m))]])
    x = np.linalg.solve(K, np.concatenate([load - bias, -Jdot_qd]))
    return x[:n], x[n:]


# --- the seed's Constraint Reduction exercise --------------------------------


def test_seed_exercise_numbers():
    r = constraints.null_space_reduction(M_SEED, N_SEED, LOAD_SEED, J_c=J_SEED)
    np.testing.assert_allclose(r.reduced_inertia, [[5.0]], atol=1e-15)  # 2 + 3
    np.testing.assert_allclose(r.projected_load, [1.0], atol=1e-15)
    np.testing.assert_allclose(r.reduced_bias, [0.0], atol=0)
    np.testing.assert_allclose(r.nudot, [0.2], atol=1e-15)
    np.testing.assert_allclose(r.qdd, [0.2, -0.2], atol=1e-15)
    # J_c^T lambda = M qdd - load = (0.4 - 1, -0.6) = (-0.6, -0.6)
    np.testing.assert_allclose(r.multiplier, [-0.6], atol=1e-14)


def test_normalized_basis_changes_reduced_quantities_but_not_the_physical_acceleration():
    N = N_SEED / np.sqrt(2)
    r = constraints.null_space_reduction(M_SEED, N, LOAD_SEED, J_c=J_SEED)
    np.testing.assert_allclose(r.reduced_inertia, [[2.5]], atol=1e-15)  # 5 / 2
    np.testing.assert_allclose(r.projected_load, [1 / np.sqrt(2)], atol=1e-15)
    np.testing.assert_allclose(r.nudot, [0.2 * np.sqrt(2)], atol=1e-15)  # (1/sqrt 2) / 2.5
    np.testing.assert_allclose(r.qdd, [0.2, -0.2], atol=1e-15)
    np.testing.assert_allclose(r.multiplier, [-0.6], atol=1e-14)


def test_basis_from_null_space_basis_reproduces_the_seed_acceleration():
    N = constraints.null_space_basis(J_SEED)
    np.testing.assert_allclose(np.abs(N), np.full((2, 1), np.sqrt(0.5)), atol=1e-15)
    assert N[0, 0] * N[1, 0] < 0
    r = constraints.null_space_reduction(M_SEED, N, LOAD_SEED, J_c=J_SEED)
    np.testing.assert_allclose(r.qdd, [0.2, -0.2], atol=1e-15)


def test_reduced_inertia_seed_value():
    np.testing.assert_allclose(constraints.reduced_inertia(M_SEED, N_SEED), [[5.0]], atol=0)


def test_reaction_does_no_power_on_allowed_motion():
    r = constraints.null_space_reduction(M_SEED, N_SEED, LOAD_SEED, J_c=J_SEED)
    for nu in (-3.0, 0.5, 7.0):
        qd = N_SEED[:, 0] * nu
        assert r.multiplier @ (J_SEED @ qd) == pytest.approx(0.0, abs=1e-15)
    # ... but it does power on a forbidden motion, so the zero above is not vacuous.
    assert r.multiplier @ (J_SEED @ np.array([1.0, 1.0])) == pytest.approx(-1.2, abs=1e-14)


# --- hand-derived constrained particles (moving basis N(q), bias) ------------


def test_particle_on_a_circle_gets_centripetal_acceleration_from_ndot_nu():
    # q = (x, y), M = m I, constraint x^2 + y^2 = r^2 -> J_c = (x, y), N = (-y, x), nu = theta_dot.
    # Ndot nu = (-ydot, xdot) nu = -nu^2 (x, y).  With a tangential force F at (r, 0):
    # nudot = N^T Q / (m r^2) = F / (m r); qdd = (-nu^2 r, r nudot); lambda = -m nu^2.
    m, r, nu, F = 1.5, 0.8, 2.0, 3.0
    x, y = r, 0.0
    result = constraints.null_space_reduction(
        m * np.eye(2), [[-y], [x]], [0.0, F], Ndot_nu=-nu**2 * np.array([x, y]), J_c=[[x, y]]
    )
    np.testing.assert_allclose(result.nudot, [F / (m * r)], rtol=1e-14)
    np.testing.assert_allclose(result.qdd, [-nu**2 * r, F / m], rtol=1e-14)
    np.testing.assert_allclose(result.multiplier, [-m * nu**2], rtol=1e-14)


def test_pendulum_as_a_constrained_particle_recovers_minus_g_sin_phi_over_r():
    # Point (x, y) = (r sin phi, -r cos phi), gravity -g along y: b = (0, m g).
    m, r, g, phi = 0.7, 1.3, 9.81, 0.4
    x, y = r * np.sin(phi), -r * np.cos(phi)
    result = constraints.null_space_reduction(
        m * np.eye(2), [[-y], [x]], [0.0, 0.0], bias=[0.0, m * g], J_c=[[x, y]]
    )
    np.testing.assert_allclose(result.reduced_bias, [m * g * r * np.sin(phi)], rtol=1e-14)
    np.testing.assert_allclose(result.nudot, [-g * np.sin(phi) / r], rtol=1e-14)
    # J_c^T lambda = lambda (x, y) = M qdd + b; qdd = N nudot is perpendicular to (x, y), so
    # lambda r^2 = b . (x, y) = m g y = -m g r cos(phi):  lambda = -m g cos(phi) / r.
    np.testing.assert_allclose(result.multiplier, [-m * g * np.cos(phi) / r], rtol=1e-14)


# --- independent check against the augmented (KKT) system --------------------


def test_matches_a_dense_kkt_solve_for_random_systems():
    rng = np.random.default_rng(7)
    for n, m in ((5, 2), (4, 1), (6, 3)):
        M = random_spd(rng, n)
        J = rng.normal(size=(m, n))
        load, bias = rng.normal(size=n), rng.normal(size=n)
        # Any velocity-dependent term: pick Ndot nu arbitrary; then Jdot qd = -J Ndot nu.
        Ndot_nu = rng.normal(size=n)
        N = constraints.null_space_basis(J)
        r = constraints.null_space_reduction(M, N, load, bias=bias, Ndot_nu=Ndot_nu, J_c=J)
        qdd, lam = kkt_solve(M, J, load, bias, -J @ Ndot_nu)
        np.testing.assert_allclose(r.qdd, qdd, atol=1e-12)
        np.testing.assert_allclose(r.multiplier, lam, atol=1e-12)


def test_any_basis_of_the_same_null_space_gives_the_same_qdd_and_multiplier():
    rng = np.random.default_rng(8)
    M, J = random_spd(rng, 5), rng.normal(size=(2, 5))
    load, bias = rng.normal(size=5), rng.normal(size=5)
    N = constraints.null_space_basis(J)
    A = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    r1 = constraints.null_space_reduction(M, N, load, bias=bias, J_c=J)
    r2 = constraints.null_space_reduction(M, N @ A, load, bias=bias, J_c=J)
    np.testing.assert_allclose(r2.qdd, r1.qdd, atol=1e-12)
    np.testing.assert_allclose(r2.multiplier, r1.multiplier, atol=1e-12)
    np.testing.assert_allclose(r2.reduced_inertia, A.T @ r1.reduced_inertia @ A, atol=1e-11)


def test_batches_broadcast_over_leading_axes():
    rng = np.random.default_rng(9)
    M = np.stack([random_spd(rng, 4) for _ in range(6)])
    J = rng.normal(size=(6, 1, 4))
    load = rng.normal(size=(6, 4))
    N = constraints.null_space_basis(J)
    assert N.shape == (6, 4, 3)
    r = constraints.null_space_reduction(M, N, load, J_c=J)
    assert r.qdd.shape == (6, 4) and r.multiplier.shape == (6, 1)
    for k in range(6):
        qdd, lam = kkt_solve(M[k], J[k], load[k], np.zeros(4), np.zeros(1))
        np.testing.assert_allclose(r.qdd[k], qdd, atol=1e-12)
        np.testing.assert_allclose(r.multiplier[k], lam, atol=1e-12)


def test_without_j_c_there_is_no_multiplier():
    r = constraints.null_space_reduction(M_SEED, N_SEED, LOAD_SEED)
    assert r.multiplier is None
    np.testing.assert_allclose(r.qdd, [0.2, -0.2], atol=1e-15)


# --- null-space basis and rank -------------------------------------------------


def test_null_space_basis_is_orthonormal_and_annihilated():
    rng = np.random.default_rng(10)
    J = rng.normal(size=(2, 5))
    N = constraints.null_space_basis(J)
    assert N.shape == (5, 3)
    np.testing.assert_allclose(N.T @ N, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(J @ N, 0, atol=1e-14)


def test_null_space_basis_edge_cases():
    np.testing.assert_array_equal(constraints.null_space_basis(np.zeros((0, 3))), np.eye(3))
    assert constraints.null_space_basis(np.eye(3)).shape == (3, 0)
    # Redundant rows: rank 1 of 2; allowed when regularity is not required.
    J = np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0]])
    N = constraints.null_space_basis(J, require_regular=False)
    assert N.shape == (3, 2)
    np.testing.assert_allclose(J @ N, 0, atol=1e-14)


def test_constraint_rank_counts_independent_rows():
    assert constraints.constraint_rank([[1.0, 1.0], [2.0, 2.0]]) == 1
    assert constraints.constraint_rank(np.eye(3)) == 3
    assert constraints.constraint_rank(np.zeros((2, 3))) == 0
    assert constraints.constraint_rank([[1.0, 0.0], [0.0, 1e-20]]) == 1
    batch = np.stack([np.eye(2), np.ones((2, 2))])
    np.testing.assert_array_equal(constraints.constraint_rank(batch), [2, 1])


# --- bad input -------------------------------------------------------------------


def test_null_space_basis_and_rank_reject_bad_input():
    with pytest.raises(ValueError, match="J_c.*full row rank 2.*rank 1"):
        constraints.null_space_basis([[1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="J_c.*full row rank 3"):
        constraints.null_space_basis(np.ones((3, 2)))  # more constraints than coordinates
    with pytest.raises(ValueError, match="J_c.*same rank"):
        constraints.null_space_basis(np.stack([np.eye(2), np.ones((2, 2))]), require_regular=False)
    with pytest.raises(ValueError, match="J_c"):
        constraints.null_space_basis([1.0, 1.0])
    with pytest.raises(ValueError, match="J_c"):
        constraints.null_space_basis([[np.nan, 1.0]])
    with pytest.raises(ValueError, match="J_c"):
        constraints.null_space_basis(np.zeros((1, 0)))
    with pytest.raises(ValueError, match="J_c"):
        constraints.constraint_rank([1.0, 2.0])
    with pytest.raises(ValueError, match="J_c"):
        constraints.constraint_rank([[np.inf]])


def test_reduced_inertia_rejects_bad_input():
    with pytest.raises(ValueError, match="^M:.*symmetric"):
        constraints.reduced_inertia([[2.0, 1.0], [0.0, 3.0]], N_SEED)
    with pytest.raises(ValueError, match="^M:.*positive definite"):
        constraints.reduced_inertia(np.diag([1.0, -1.0]), N_SEED)
    with pytest.raises(ValueError, match="^M:"):
        constraints.reduced_inertia(np.ones((2, 3)), N_SEED)
    with pytest.raises(ValueError, match="^N:"):
        constraints.reduced_inertia(M_SEED, [[1.0], [0.0], [0.0]])
    with pytest.raises(ValueError, match="^N:"):
        constraints.reduced_inertia(M_SEED, [1.0, -1.0])


def test_null_space_reduction_rejects_bad_input():
    reduce = constraints.null_space_reduction
    with pytest.raises(ValueError, match="^M:"):
        reduce(np.diag([2.0, 0.0]), N_SEED, LOAD_SEED)
    with pytest.raises(ValueError, match="^N:.*independent columns"):
        reduce(M_SEED, [[1.0, 2.0], [-1.0, -2.0]], LOAD_SEED)
    with pytest.raises(ValueError, match="^N:.*J_c N = 0"):
        reduce(M_SEED, [[1.0], [0.0]], LOAD_SEED, J_c=J_SEED)
    with pytest.raises(ValueError, match="^N:.*whole null space"):
        reduce(np.eye(3), [[0.0], [1.0], [0.0]], np.ones(3), J_c=[[1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="^J_c:.*full row rank"):
        reduce(M_SEED, N_SEED, LOAD_SEED, J_c=[[1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="^J_c:"):
        reduce(M_SEED, N_SEED, LOAD_SEED, J_c=[[1.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="^load:"):
        reduce(M_SEED, N_SEED, [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="^load:"):
        reduce(M_SEED, N_SEED, 1.0)
    with pytest.raises(ValueError, match="^bias:"):
        reduce(M_SEED, N_SEED, LOAD_SEED, bias=[np.nan, 0.0])
    with pytest.raises(ValueError, match="^Ndot_nu:"):
        reduce(M_SEED, N_SEED, LOAD_SEED, Ndot_nu=[0.0])


def test_fully_locked_coordinates_have_zero_acceleration_and_carry_the_whole_load():
    # J_c = I locks both coordinates: N is empty, qdd = 0 and J_c^T lambda = b - load.
    N = constraints.null_space_basis(np.eye(2))
    r = constraints.null_space_reduction(M_SEED, N, [1.0, 2.0], bias=[0.5, 0.0], J_c=np.eye(2))
    np.testing.assert_array_equal(r.qdd, [0.0, 0.0])
    np.testing.assert_allclose(r.multiplier, [-0.5, -2.0], atol=1e-15)
