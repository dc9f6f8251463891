"""Constraint mechanics: null-space reduction, reaction elimination, projectors, reduced
dynamics, loop closures, revolute-joint constraint sets, integrability and the planar
closed chain.

Checks come from the seed's worked numbers and hand derivations, from an independent dense
KKT (bordered-matrix) solve, from finite differences, from inverse dynamics (RNEA) and from
Lie brackets of hand-written fields; property tests run on random SPD mass matrices and
full-rank Jacobians, single and batched.  Bad and degenerate input is tested last.
"""

import json

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.transform import Rotation
from strategies import examples
from trees import branch_ends, random_spec

from geomotion import constraints, inertia, models, spatial, tree

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
    r = constraints.null_space_reduction(M_SEED, N_SEED, 0.0, LOAD_SEED, J_c=J_SEED)
    np.testing.assert_allclose(r.reduced_inertia, [[5.0]], atol=1e-15)  # 2 + 3
    np.testing.assert_allclose(r.projected_load, [1.0], atol=1e-15)
    np.testing.assert_allclose(r.reduced_bias, [0.0], atol=0)
    np.testing.assert_allclose(r.a_reduced, [0.2], atol=1e-15)
    np.testing.assert_allclose(r.a, [0.2, -0.2], atol=1e-15)
    # J_c^T lambda = M qdd - load = (0.4 - 1, -0.6) = (-0.6, -0.6)
    np.testing.assert_allclose(r.multiplier, [-0.6], atol=1e-14)


def test_normalized_basis_changes_reduced_quantities_but_not_the_physical_acceleration():
    N = N_SEED / np.sqrt(2)
    r = constraints.null_space_reduction(M_SEED, N, 0.0, LOAD_SEED, J_c=J_SEED)
    np.testing.assert_allclose(r.reduced_inertia, [[2.5]], atol=1e-15)  # 5 / 2
    np.testing.assert_allclose(r.projected_load, [1 / np.sqrt(2)], atol=1e-15)
    np.testing.assert_allclose(r.a_reduced, [0.2 * np.sqrt(2)], atol=1e-15)  # (1/sqrt 2) / 2.5
    np.testing.assert_allclose(r.a, [0.2, -0.2], atol=1e-15)
    np.testing.assert_allclose(r.multiplier, [-0.6], atol=1e-14)


def test_basis_from_null_space_basis_reproduces_the_seed_acceleration():
    N = constraints.null_space_basis(J_SEED)
    np.testing.assert_allclose(np.abs(N), np.full((2, 1), np.sqrt(0.5)), atol=1e-15)
    assert N[0, 0] * N[1, 0] < 0
    r = constraints.null_space_reduction(M_SEED, N, 0.0, LOAD_SEED, J_c=J_SEED)
    np.testing.assert_allclose(r.a, [0.2, -0.2], atol=1e-15)


def test_reduced_inertia_seed_value():
    np.testing.assert_allclose(constraints.reduced_inertia(M_SEED, N_SEED), [[5.0]], atol=0)


def test_reaction_does_no_power_on_allowed_motion():
    r = constraints.null_space_reduction(M_SEED, N_SEED, 0.0, LOAD_SEED, J_c=J_SEED)
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
        m * np.eye(2), [[-y], [x]], 0.0, [0.0, F], a_bias=-(nu**2) * np.array([x, y]), J_c=[[x, y]]
    )
    np.testing.assert_allclose(result.a_reduced, [F / (m * r)], rtol=1e-14)
    np.testing.assert_allclose(result.a, [-(nu**2) * r, F / m], rtol=1e-14)
    np.testing.assert_allclose(result.multiplier, [-m * nu**2], rtol=1e-14)


def test_pendulum_as_a_constrained_particle_recovers_minus_g_sin_phi_over_r():
    # Point (x, y) = (r sin phi, -r cos phi), gravity -g along y: b = (0, m g).
    m, r, g, phi = 0.7, 1.3, 9.81, 0.4
    x, y = r * np.sin(phi), -r * np.cos(phi)
    result = constraints.null_space_reduction(
        m * np.eye(2), [[-y], [x]], [0.0, m * g], [0.0, 0.0], J_c=[[x, y]]
    )
    np.testing.assert_allclose(result.reduced_bias, [m * g * r * np.sin(phi)], rtol=1e-14)
    np.testing.assert_allclose(result.a_reduced, [-g * np.sin(phi) / r], rtol=1e-14)
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
        a_bias = rng.normal(size=n)
        N = constraints.null_space_basis(J)
        r = constraints.null_space_reduction(M, N, bias, load, a_bias=a_bias, J_c=J)
        qdd, lam = kkt_solve(M, J, load, bias, -J @ a_bias)
        np.testing.assert_allclose(r.a, qdd, atol=1e-12)
        np.testing.assert_allclose(r.multiplier, lam, atol=1e-12)


def test_any_basis_of_the_same_null_space_gives_the_same_qdd_and_multiplier():
    rng = np.random.default_rng(8)
    M, J = random_spd(rng, 5), rng.normal(size=(2, 5))
    load, bias = rng.normal(size=5), rng.normal(size=5)
    N = constraints.null_space_basis(J)
    A = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    r1 = constraints.null_space_reduction(M, N, bias, load, J_c=J)
    r2 = constraints.null_space_reduction(M, N @ A, bias, load, J_c=J)
    np.testing.assert_allclose(r2.a, r1.a, atol=1e-12)
    np.testing.assert_allclose(r2.multiplier, r1.multiplier, atol=1e-12)
    np.testing.assert_allclose(r2.reduced_inertia, A.T @ r1.reduced_inertia @ A, atol=1e-11)


def test_batches_broadcast_over_leading_axes():
    rng = np.random.default_rng(9)
    M = np.stack([random_spd(rng, 4) for _ in range(6)])
    J = rng.normal(size=(6, 1, 4))
    load = rng.normal(size=(6, 4))
    N = constraints.null_space_basis(J)
    assert N.shape == (6, 4, 3)
    r = constraints.null_space_reduction(M, N, 0.0, load, J_c=J)
    assert r.a.shape == (6, 4) and r.multiplier.shape == (6, 1)
    for k in range(6):
        qdd, lam = kkt_solve(M[k], J[k], load[k], np.zeros(4), np.zeros(1))
        np.testing.assert_allclose(r.a[k], qdd, atol=1e-12)
        np.testing.assert_allclose(r.multiplier[k], lam, atol=1e-12)


def test_without_j_c_there_is_no_multiplier():
    r = constraints.null_space_reduction(M_SEED, N_SEED, 0.0, LOAD_SEED)
    assert r.multiplier is None
    np.testing.assert_allclose(r.a, [0.2, -0.2], atol=1e-15)


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
    with pytest.raises(ValueError, match="J_c.*full row rank 2.*rank 1.*rtol = 1e-10"):
        constraints.null_space_basis([[1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="J_c.*full row rank 3"):
        constraints.null_space_basis(np.ones((3, 2)))  # more constraints than coordinates
    with pytest.raises(ValueError, match="J_c.*same rank"):
        constraints.null_space_basis(np.stack([np.eye(2), np.ones((2, 2))]), require_regular=False)
    # A sweep through a singular configuration names each failing element and its rank,
    # while constraint_rank reports per element.
    sweep = np.stack([np.eye(2), np.ones((2, 2)), np.eye(2), np.diag([1.0, 0.0])])
    with pytest.raises(ValueError, match=r"rank at batch index \(1,\): rank 1; \(3,\): rank 1 "):
        constraints.null_space_basis(sweep)
    np.testing.assert_array_equal(constraints.constraint_rank(sweep), [2, 1, 2, 1])
    np.testing.assert_array_equal(constraints.mobility(sweep), [0, 1, 0, 1])
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
        reduce(np.diag([2.0, 0.0]), N_SEED, 0.0, LOAD_SEED)
    with pytest.raises(ValueError, match="^N:.*independent columns"):
        reduce(M_SEED, [[1.0, 2.0], [-1.0, -2.0]], 0.0, LOAD_SEED)
    with pytest.raises(ValueError, match="^N:.*J_c N = 0"):
        reduce(M_SEED, [[1.0], [0.0]], 0.0, LOAD_SEED, J_c=J_SEED)
    with pytest.raises(ValueError, match="^N:.*whole null space"):
        reduce(np.eye(3), [[0.0], [1.0], [0.0]], 0.0, np.ones(3), J_c=[[1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="^J_c:.*full row rank"):
        reduce(M_SEED, N_SEED, 0.0, LOAD_SEED, J_c=[[1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="^J_c:"):
        reduce(M_SEED, N_SEED, 0.0, LOAD_SEED, J_c=[[1.0, 1.0, 0.0]])
    with pytest.raises(ValueError, match="^tau:"):
        reduce(M_SEED, N_SEED, 0.0, [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="^tau:"):
        reduce(M_SEED, N_SEED, 0.0, 1.0)
    with pytest.raises(ValueError, match="^h:"):
        reduce(M_SEED, N_SEED, [np.nan, 0.0], LOAD_SEED)
    with pytest.raises(ValueError, match="^a_bias:"):
        reduce(M_SEED, N_SEED, 0.0, LOAD_SEED, a_bias=[0.0])
    with pytest.raises(ValueError, match="^rtol:"):
        reduce(M_SEED, N_SEED, 0.0, LOAD_SEED, rtol=-1.0)
    with pytest.raises(TypeError):
        reduce(M_SEED, N_SEED, 0.0, LOAD_SEED, None)  # options are keyword-only


def test_fully_locked_coordinates_have_zero_acceleration_and_carry_the_whole_load():
    # J_c = I locks both coordinates: N is empty, qdd = 0 and J_c^T lambda = b - load.
    N = constraints.null_space_basis(np.eye(2))
    r = constraints.null_space_reduction(M_SEED, N, [0.5, 0.0], [1.0, 2.0], J_c=np.eye(2))
    np.testing.assert_array_equal(r.a, [0.0, 0.0])
    np.testing.assert_allclose(r.multiplier, [-0.5, -2.0], atol=1e-15)


# =============================================================================
# Reaction elimination, projectors and reduced dynamics
# =============================================================================

unit = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
loads = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)


def transpose(A):
    return np.swapaxes(A, -1, -2)


@st.composite
def constrained_systems(draw, batch=(), inputs=0):
    """(M, J_c, h, tau, gamma[, B]): SPD M with eigenvalues in [0.5, n + 0.5], J_c with entries
    in [-1, 2] and singular values above 0.1 (full row rank, condition below about 35), loads
    up to 10, and an optional input matrix."""
    n = draw(st.integers(1, 6))
    c = draw(st.integers(1, n))
    A = draw(arrays(float, batch + (n, n), elements=unit))
    M = A @ transpose(A) / n + 0.5 * np.eye(n)
    J = draw(arrays(float, batch + (c, n), elements=unit)) + np.eye(c, n)
    s = np.linalg.svd(J, compute_uv=False)
    assume(np.all(s[..., -1] > 0.1))
    h = draw(arrays(float, batch + (n,), elements=loads))
    tau = draw(arrays(float, batch + (n,), elements=loads))
    gamma = draw(arrays(float, batch + (c,), elements=loads))
    if inputs:
        return M, J, h, tau, gamma, draw(arrays(float, batch + (n, inputs), elements=unit))
    return M, J, h, tau, gamma


def dense_projector(M, J):
    """P_v = I - M^-1 J^T (J M^-1 J^T)^-1 J written out with dense solves (test reference)."""
    MinvJt = np.linalg.solve(M, J.T)
    return np.eye(M.shape[0]) - MinvJt @ np.linalg.solve(J @ MinvJt, J)


def random_system(rng, n, c, batch=()):
    A = rng.normal(size=batch + (n, n))
    M = A @ transpose(A) + n * np.eye(n)
    J = rng.normal(size=batch + (c, n))
    return (
        M,
        J,
        rng.normal(size=batch + (n,)),
        rng.normal(size=batch + (n,)),
        rng.normal(size=batch + (c,)),
    )


# --- the seed's mass-metric example: M = diag(2, 1), J_c = (1, 1) ------------

M_METRIC = np.diag([2.0, 1.0])
J_METRIC = np.array([[1.0, 1.0]])


def test_seed_tangent_vector_is_mass_orthogonal_to_the_normal_vector_not_to_the_covector():
    tangent = np.array([1.0, -1.0])
    np.testing.assert_array_equal(J_METRIC @ tangent, [0.0])
    assert tangent @ M_METRIC @ [1.0, 1.0] == 1.0
    assert tangent @ M_METRIC @ [0.5, 1.0] == 0.0
    # By hand: M^-1 J^T = (1/2, 1), K_c = 3/2, P_v = I - (2/3) (1/2, 1)^T (1, 1).
    projection = constraints.projectors(M_METRIC, J_METRIC)
    P_v, P_F = projection.P_v, projection.P_F
    np.testing.assert_allclose(P_v, [[2 / 3, -1 / 3], [-2 / 3, 1 / 3]], atol=1e-15)
    np.testing.assert_array_equal(P_F, P_v.T)
    np.testing.assert_allclose(P_v @ tangent, tangent, atol=1e-15)
    # Whatever is removed from a vector lies along (1/2, 1): range(M^-1 J_c^T).
    removed = (np.eye(2) - P_v) @ [0.3, -1.7]
    assert np.linalg.det(np.column_stack([removed, [0.5, 1.0]])) == pytest.approx(0.0, abs=1e-15)
    assert np.linalg.norm(removed) > 0.1
    np.testing.assert_allclose(P_F @ J_METRIC.T, 0.0, atol=1e-15)


def test_seed_euclidean_and_kinetic_tangent_projectors_differ():
    N = constraints.null_space_basis(J_METRIC)  # +-(1, -1)/sqrt 2
    np.testing.assert_allclose(N @ N.T, [[0.5, -0.5], [-0.5, 0.5]], atol=1e-15)
    # N (N^T M N)^-1 N^T M = (1, -1)^T (1, -1) diag(2, 1) / 3 by hand
    np.testing.assert_allclose(
        constraints.kinetic_projector(M_METRIC, N), [[2 / 3, -1 / 3], [-2 / 3, 1 / 3]], atol=1e-15
    )


# --- the seed's circle: Phi = (q.q - R^2)/2, J_c = q^T, gamma = v.v -----------

RADIUS = 1.0
CIRCLE = constraints.FunctionConstraint(
    residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - RADIUS**2),
    jacobian=lambda q: q[..., None, :],
    acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True),
)
Q_CIRCLE, V_CIRCLE = np.array([1.0, 0.0]), np.array([0.0, 2.0])


@given(arrays(float, 2, elements=loads))
def test_circle_admissible_acceleration_has_radial_component_minus_four_for_any_candidate(a0):
    J, gamma = CIRCLE.jacobian(Q_CIRCLE), CIRCLE.acceleration_bias(Q_CIRCLE, V_CIRCLE)
    np.testing.assert_array_equal(CIRCLE.residual(Q_CIRCLE), [0.0])
    # With M = I and h = 0, the constrained acceleration for a load tau = a0 is the
    # admissible acceleration for the candidate a0.
    a = constraints.constrained_dynamics(np.eye(2), J, 0, gamma, a0).a
    assert a @ Q_CIRCLE / RADIUS == pytest.approx(-4.0, abs=1e-13)
    # The seed's a = P_v a0 - q |v|^2 / R^2, with P_v = I - q q^T / R^2 by hand (M = I).
    by_hand = (np.eye(2) - np.outer(Q_CIRCLE, Q_CIRCLE)) @ a0 - Q_CIRCLE * 4.0
    np.testing.assert_allclose(a, by_hand, atol=1e-13)
    # Projecting onto the tangent line only (either tangent projector) loses the offset.
    P_v = constraints.projectors(np.eye(2), J).P_v
    P_N = constraints.kinetic_projector(np.eye(2), constraints.null_space_basis(J))
    for tangent_only in (P_v @ a0, P_N @ a0):
        assert tangent_only @ Q_CIRCLE == pytest.approx(0.0, abs=1e-13)
        np.testing.assert_allclose(J @ tangent_only + gamma, [4.0], atol=1e-13)


def test_circle_drift_is_the_centripetal_acceleration_and_inputs_stay_tangent():
    J, gamma = CIRCLE.jacobian(Q_CIRCLE), CIRCLE.acceleration_bias(Q_CIRCLE, V_CIRCLE)
    reduced = constraints.reduced_dynamics(np.eye(2), J, 0, gamma, np.eye(2))
    f, G = reduced.f, reduced.G
    np.testing.assert_allclose(f, [-4.0, 0.0], atol=1e-15)  # -q |v|^2 / R^2
    np.testing.assert_allclose(G, [[0.0, 0.0], [0.0, 1.0]], atol=1e-15)


# --- properties on random systems ----------------------------------------------


@settings(max_examples=examples(60))
@given(constrained_systems())
def test_constrained_dynamics_satisfies_both_equations_and_matches_a_dense_kkt_solve(system):
    M, J, h, tau, gamma = system
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, tau)
    qdd, lam = dynamics.a, dynamics.multiplier
    # Achieved: residuals and KKT differences about 1e-14 relative to the loads.
    scale = 1.0 + np.abs(np.concatenate([h, tau, gamma])).max()
    np.testing.assert_allclose(M @ qdd + h, tau + J.T @ lam, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(J @ qdd, -gamma, rtol=0, atol=1e-12 * scale)
    qdd_kkt, lam_kkt = kkt_solve(M, J, tau, h, gamma)
    np.testing.assert_allclose(qdd, qdd_kkt, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(lam, lam_kkt, rtol=0, atol=1e-11 * scale)


@settings(max_examples=examples(40))
@given(constrained_systems(), arrays(float, 6, elements=loads))
def test_reaction_depends_on_the_input_at_the_same_state(system, w_all):
    M, J, h, tau, gamma = system
    c = J.shape[0]
    w = w_all[:c]
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, tau)
    qdd1, lam1 = dynamics.a, dynamics.multiplier
    # A load along range J_c^T meets an equal and opposite reaction: lambda changes by -w,
    # the acceleration not at all.
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, tau + J.T @ w)
    qdd2, lam2 = dynamics.a, dynamics.multiplier
    scale = 1.0 + np.abs(np.concatenate([h, tau, gamma, w])).max()
    np.testing.assert_allclose(qdd2, qdd1, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(lam2 - lam1, -w, rtol=0, atol=1e-11 * scale)
    # A general input change moves the reaction by -K_c^-1 J_c M^-1 dtau (eq-ch2-multiplier, dense).
    dtau = np.roll(tau, 1) + 1.0
    lam3 = constraints.constrained_dynamics(M, J, h, gamma, tau + dtau).multiplier
    MinvJt = np.linalg.solve(M, J.T)
    expected = -np.linalg.solve(J @ MinvJt, MinvJt.T @ dtau)
    np.testing.assert_allclose(lam3 - lam1, expected, rtol=0, atol=1e-11 * scale)


@settings(max_examples=examples(40))
@given(constrained_systems(batch=(3,)))
def test_projector_identities_hold_batched(system):
    M, J = system[:2]
    projection = constraints.projectors(M, J)
    P_v, P_F = projection.P_v, projection.P_F
    assert P_v.shape == M.shape
    np.testing.assert_allclose(P_v @ P_v, P_v, rtol=0, atol=1e-12)
    np.testing.assert_allclose(J @ P_v, 0.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(transpose(P_v) @ M, M @ P_v, rtol=0, atol=1e-12)
    np.testing.assert_allclose(P_F @ transpose(J), 0.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(P_F, transpose(P_v))
    for k in range(3):
        np.testing.assert_allclose(P_v[k], dense_projector(M[k], J[k]), rtol=0, atol=1e-11)


@settings(max_examples=examples(40))
@given(constrained_systems(inputs=2), arrays(float, 2, elements=loads))
def test_reduced_dynamics_drift_and_input_matrix(system, u):
    M, J, h, _, gamma, B = system
    reduced = constraints.reduced_dynamics(M, J, h, gamma, B)
    f, G = reduced.f, reduced.G
    scale = 1.0 + np.abs(np.concatenate([h, gamma])).max()
    np.testing.assert_allclose(J @ f, -gamma, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(J @ G, 0.0, rtol=0, atol=1e-12)
    # eq-ch2-drift and eq-ch2-input-field written out with dense solves
    P = dense_projector(M, J)
    MinvJt = np.linalg.solve(M, J.T)
    f_dense = -P @ np.linalg.solve(M, h) - MinvJt @ np.linalg.solve(J @ MinvJt, gamma)
    np.testing.assert_allclose(f, f_dense, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(G, P @ np.linalg.solve(M, B), rtol=0, atol=1e-11)
    # f + G u is the constrained acceleration under the load B u
    qdd = constraints.constrained_dynamics(M, J, h, gamma, B @ u).a
    np.testing.assert_allclose(f + G @ u, qdd, rtol=0, atol=1e-11 * (scale + np.abs(u).max()))


@settings(max_examples=examples(40))
@given(constrained_systems(), arrays(float, (6, 6), elements=unit))
def test_kinetic_projector_is_p_v_for_any_tangent_basis(system, A):
    M, J = system[:2]
    N = constraints.null_space_basis(J)
    k = N.shape[1]
    A = A[:k, :k] + 3 * np.eye(k)  # a change of basis, invertible but possibly poor
    basis = N @ A
    P_N = constraints.kinetic_projector(M, basis)
    P_v = constraints.projectors(M, J).P_v
    # Rounding grows with the condition of the reduced metric basis^T M basis (a drawn A
    # may be poorly conditioned: 1.8e-10 was seen at cond ~ 1e3); a wrong projector is
    # off by O(1).
    metric = basis.T @ M @ basis
    tol = 1e-13 * max(1e2, np.linalg.cond(metric) if metric.size else 0.0)
    np.testing.assert_allclose(P_N, P_v, rtol=0, atol=tol)
    np.testing.assert_allclose(P_N @ P_N, P_N, rtol=0, atol=tol)
    np.testing.assert_allclose(P_N.T @ M, M @ P_N, rtol=0, atol=tol)


@pytest.mark.parametrize("batch", [(1,), (5,), (40,), (4, 10)], ids=str)
def test_batches_match_one_configuration_at_a_time(batch):
    # 40 configurations take the substitution path, fewer the LAPACK path.
    rng = np.random.default_rng(sum(batch))
    M, J, h, tau, gamma = random_system(rng, 7, 3, batch)
    B = rng.normal(size=(7, 2))  # shared by the whole batch
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, tau)
    qdd, lam = dynamics.a, dynamics.multiplier
    P_v = constraints.projectors(M, J).P_v
    reduced = constraints.reduced_dynamics(M, J, h, gamma, B)
    f, G = reduced.f, reduced.G
    assert qdd.shape == batch + (7,) and lam.shape == batch + (3,) and G.shape == batch + (7, 2)
    for k in np.ndindex(batch):
        qdd_k, lam_k = kkt_solve(M[k], J[k], tau[k], h[k], gamma[k])
        # achieved: qdd 1e-14, lambda 3e-13 (a less well-conditioned draw of the 40)
        np.testing.assert_allclose(qdd[k], qdd_k, rtol=0, atol=1e-12)
        np.testing.assert_allclose(lam[k], lam_k, rtol=0, atol=1e-11)
        np.testing.assert_allclose(P_v[k], dense_projector(M[k], J[k]), rtol=0, atol=1e-13)
        reduced = constraints.reduced_dynamics(M[k], J[k], h[k], gamma[k], B)
        f_k, G_k = reduced.f, reduced.G
        np.testing.assert_allclose(f[k], f_k, rtol=0, atol=1e-13)
        np.testing.assert_allclose(G[k], G_k, rtol=0, atol=1e-13)


def test_one_mass_matrix_broadcasts_against_a_batch_of_jacobians():
    rng = np.random.default_rng(3)
    M, _, h, tau, _ = random_system(rng, 4, 2)
    J = rng.normal(size=(50, 2, 4))
    gamma = rng.normal(size=(50, 2))
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, tau)
    qdd, lam = dynamics.a, dynamics.multiplier
    assert qdd.shape == (50, 4)
    for k in (0, 17, 49):
        qdd_k, lam_k = kkt_solve(M, J[k], tau, h, gamma[k])
        np.testing.assert_allclose(qdd[k], qdd_k, rtol=0, atol=1e-12)
        np.testing.assert_allclose(lam[k], lam_k, rtol=0, atol=1e-12)


def test_no_constraints_and_fully_locked_coordinates():
    M, tau = np.diag([2.0, 3.0]), np.array([1.0, 1.5])
    dynamics = constraints.constrained_dynamics(M, np.zeros((0, 2)), 0, 0, tau)
    qdd, lam = dynamics.a, dynamics.multiplier
    np.testing.assert_allclose(qdd, [0.5, 0.5], atol=1e-15)
    assert lam.shape == (0,)
    # c = n: J qdd = -gamma fixes qdd; the reaction carries M qdd - tau.
    J, gamma = np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1.0, 3.0])
    dynamics = constraints.constrained_dynamics(M, J, 0, gamma, tau)
    qdd, lam = dynamics.a, dynamics.multiplier
    np.testing.assert_allclose(qdd, [-1.0, -2.0], atol=1e-15)
    np.testing.assert_allclose(J.T @ lam, M @ qdd - tau, atol=1e-14)


def test_mobility_counts_free_directions():
    assert constraints.mobility(J_METRIC) == 1
    assert constraints.mobility(np.zeros((0, 3))) == 3
    assert constraints.mobility([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0]]) == 2  # redundant rows
    np.testing.assert_array_equal(
        constraints.mobility(np.stack([np.eye(3)[:2], np.zeros((2, 3))])), [1, 3]
    )


# =============================================================================
# Loop closures on trees
# =============================================================================


@pytest.fixture(scope="module")
def branched():
    spec = random_spec(np.random.default_rng(21), 9, "rp", branched=True, roots=1)
    model = spec.tree()
    a, b = branch_ends(spec.parents)
    loop = constraints.loop_closure(model, a, [0.1, -0.2, 0.05], b, [-0.05, 0.1, 0.2])
    return model, loop


def test_loop_closure_residual_matches_forward_kinematics(branched):
    model, loop = branched
    q = np.random.default_rng(1).uniform(-2, 2, (4, model.num_bodies))
    T = tree.forward_kinematics(model, q)
    p_a = T[:, loop.body_a, :3, :3] @ loop.point_a + T[:, loop.body_a, :3, 3]
    p_b = T[:, loop.body_b, :3, :3] @ loop.point_b + T[:, loop.body_b, :3, 3]
    np.testing.assert_allclose(loop.residual(q), p_a - p_b, rtol=0, atol=1e-14)


def test_loop_closure_jacobian_and_bias_match_central_differences(branched):
    model, loop = branched
    rng = np.random.default_rng(2)
    q, v = rng.uniform(-2, 2, model.num_bodies), rng.uniform(-2, 2, model.num_bodies)
    eps = 1e-6
    E = np.eye(model.num_bodies) * eps
    J_fd = (loop.residual(q + E) - loop.residual(q - E)).T / (2 * eps)
    np.testing.assert_allclose(loop.jacobian(q), J_fd, rtol=0, atol=1e-9)  # achieved 1.4e-10
    # gamma = d/dt (J(q) v) along qdot = v
    gamma_fd = (loop.jacobian(q + eps * v) - loop.jacobian(q - eps * v)) @ v / (2 * eps)
    np.testing.assert_allclose(
        loop.acceleration_bias(q, v), gamma_fd, rtol=0, atol=1e-8
    )  # achieved 1.6e-10


def test_constrained_tree_dynamics_agree_with_inverse_dynamics_and_keep_the_loop(branched):
    model, loop = branched
    rng = np.random.default_rng(3)
    q, v, tau = (rng.uniform(-1, 1, (6, model.num_bodies)) for _ in range(3))
    J, gamma = loop.jacobian(q), loop.acceleration_bias(q, v)
    s = np.linalg.svd(J, compute_uv=False)
    assert np.all(s[:, -1] > 0.05 * s[:, 0]), "choose branches with a full-rank loop"
    M, h = tree.crba(model, q), tree.rnea(model, q, v, np.zeros_like(q))
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, tau)
    qdd, lam = dynamics.a, dynamics.multiplier
    # RNEA of the result returns the applied load plus the reaction.
    reaction = np.einsum("...ci,...c->...i", J, lam)
    np.testing.assert_allclose(tree.rnea(model, q, v, qdd), tau + reaction, rtol=0, atol=2e-12)
    # The loop's second time derivative along q(t) = q + v t + qdd t^2 / 2 vanishes.
    dt = 1e-4
    Phi = [loop.residual(q + v * t + qdd * t**2 / 2) for t in (-dt, 0.0, dt)]
    np.testing.assert_allclose(
        (Phi[0] - 2 * Phi[1] + Phi[2]) / dt**2, 0.0, atol=2e-6
    )  # achieved 7e-7


def test_loop_closure_keeps_read_only_copies_of_its_points(branched):
    model, _ = branched
    point = np.array([0.1, 0.2, 0.3])
    loop = constraints.loop_closure(model, 2, point, -1, point)
    point[0] = 5.0  # the caller's array stays writable and the loop keeps its own copy
    np.testing.assert_array_equal(loop.point_a, [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="read-only"):
        loop.point_b[0] = 1.0


def test_loop_closure_to_the_base_and_selected_directions(branched):
    model, _ = branched
    q = np.random.default_rng(4).uniform(-2, 2, model.num_bodies)
    anchor = np.array([0.3, -0.1, 0.4])
    full = constraints.loop_closure(model, 5, [0.0, 0.1, 0.0], -1, anchor)
    T = tree.forward_kinematics(model, q)[5]
    np.testing.assert_allclose(
        full.residual(q), T[:3, :3] @ [0.0, 0.1, 0.0] + T[:3, 3] - anchor, atol=1e-14
    )
    np.testing.assert_array_equal(full.acceleration_bias(q, 0 * q), np.zeros(3))
    D = np.array([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]])
    part = constraints.loop_closure(model, 5, [0.0, 0.1, 0.0], -1, anchor, directions=D)
    np.testing.assert_allclose(part.residual(q), D @ full.residual(q), atol=1e-15)
    np.testing.assert_allclose(part.jacobian(q), D @ full.jacobian(q), atol=1e-15)
    v = np.ones(model.num_bodies)
    np.testing.assert_allclose(
        part.acceleration_bias(q, v), D @ full.acceleration_bias(q, v), atol=1e-14
    )


# =============================================================================
# Revolute joint constraint sets
# =============================================================================


def relative_pose(R, p):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def perturbed(T, xi):
    """T exp(xi) for a twist xi that is purely angular or purely linear (written out)."""
    R, p = T[:3, :3], T[:3, 3]
    return relative_pose(R @ Rotation.from_rotvec(xi[:3]).as_matrix(), p + R @ xi[3:])


def rot_z(theta):
    return Rotation.from_rotvec([0.0, 0.0, theta]).as_matrix()


@pytest.mark.parametrize("rows", ["axis", "in_plane"])
def test_revolute_jacobian_matches_central_differences(rows):
    T = relative_pose(Rotation.from_rotvec([0.2, -0.3, 0.9]).as_matrix(), [0.01, -0.02, 0.03])
    eps = 1e-6
    columns = [
        (
            constraints.revolute_joint_residual(perturbed(T, e), rows=rows)
            - constraints.revolute_joint_residual(perturbed(T, -e), rows=rows)
        )
        / (2 * eps)
        for e in np.eye(6) * eps
    ]
    np.testing.assert_allclose(
        constraints.revolute_joint_jacobian(T, rows=rows),
        np.column_stack(columns),
        rtol=0,
        atol=1e-9,
    )


@pytest.mark.parametrize("theta", [0.0, 0.7, -2.5])
def test_axis_set_allows_exactly_the_joint_rotation(theta):
    T = relative_pose(rot_z(theta), np.zeros(3))
    np.testing.assert_allclose(constraints.revolute_joint_residual(T), 0.0, atol=1e-16)
    J = constraints.revolute_joint_jacobian(T)
    assert constraints.constraint_rank(J) == 5
    N = constraints.null_space_basis(J)
    np.testing.assert_allclose(np.abs(N[:, 0]), [0, 0, 1, 0, 0, 0], atol=1e-15)  # omega_z
    # Near aligned axes (tilted by 0.05 rad) the set stays regular: rank 5.
    tilted = relative_pose(
        rot_z(theta) @ Rotation.from_rotvec([0.05, -0.03, 0.0]).as_matrix(), np.zeros(3)
    )
    assert constraints.constraint_rank(constraints.revolute_joint_jacobian(tilted)) == 5


@pytest.mark.parametrize("theta", [0.0, 0.7])
def test_in_plane_set_blocks_the_joint_rotation(theta):
    T = relative_pose(rot_z(theta), np.zeros(3))
    residual = constraints.revolute_joint_residual(T, rows="in_plane")
    np.testing.assert_allclose(residual, [0, 0, 0, -np.sin(theta), np.sin(theta)], atol=1e-16)
    J = constraints.revolute_joint_jacobian(T, rows="in_plane")
    # Its rotation rows see omega_z only (to first order): rank 4, omega_x and omega_y free.
    np.testing.assert_allclose(J[3:, [0, 1, 3, 4, 5]], 0.0, atol=1e-16)
    np.testing.assert_allclose(J[3:, 2], [-np.cos(theta), np.cos(theta)], atol=1e-16)
    assert constraints.constraint_rank(J) == 4
    np.testing.assert_allclose(J @ np.eye(6)[0], 0.0, atol=1e-16)
    np.testing.assert_allclose(J @ np.eye(6)[1], 0.0, atol=1e-16)


def test_two_free_bodies_joined_by_a_revolute_keep_seven_degrees_of_freedom():
    # T_rel = T_A^-1 T_B; body twists xi_A, xi_B in their own frames (right perturbations):
    # d T_rel = T_rel (xi_B - Ad_{T_rel}^-1 xi_A).
    T = relative_pose(rot_z(0.4), np.zeros(3))
    J_B = constraints.revolute_joint_jacobian(T)
    R = T[:3, :3]
    Ad_inverse = np.block([[R.T, np.zeros((3, 3))], [np.zeros((3, 3)), R.T]])  # p = 0
    J_both = np.hstack([-J_B @ Ad_inverse, J_B])
    assert constraints.mobility(J_both) == 7


# =============================================================================
# Integrability
# =============================================================================


def exp_x_dy(q):  # e^x dy in (x, y, z)
    x = q[..., 0]
    return np.stack([0 * x, np.exp(x), 0 * x], axis=-1)


def lateral_no_slip(q):  # -sin(theta) dx + cos(theta) dy in (x, y, theta)
    th = q[..., 2]
    return np.stack([-np.sin(th), np.cos(th), 0 * th], axis=-1)


def mu_d_phi(q):
    """mu d(phi) with mu = 2 + x^2 + e^z, phi = x y + sin z: integrable, not closed."""
    x, y, z = q[..., 0], q[..., 1], q[..., 2]
    return (2 + x**2 + np.exp(z))[..., None] * np.stack([y, x, np.cos(z)], axis=-1)


Q_TEST = np.array([[0.3, -0.4, 0.8], [1.1, 0.2, -2.0], [-0.5, 0.9, 0.1]])


def test_exp_x_dy_is_integrable_but_not_closed():
    F = constraints.exterior_derivative(exp_x_dy, Q_TEST[0])
    np.testing.assert_allclose(F[0, 1], np.exp(0.3), rtol=1e-9)  # d(e^x dy) = e^x dx ^ dy
    np.testing.assert_allclose(F, -F.T, atol=0)
    result = constraints.one_form_integrability(exp_x_dy, Q_TEST)
    assert np.all(result.integrable) and result.residual.shape == (3,)
    assert np.all(result.residual < 1e-9)


def test_a_multiple_of_an_exact_form_is_integrable():
    result = constraints.one_form_integrability(mu_d_phi, Q_TEST)
    assert np.all(result.integrable)
    assert np.all(result.residual < 2e-9)  # achieved 2e-11
    assert np.abs(constraints.exterior_derivative(mu_d_phi, Q_TEST)).max() > 0.5


@pytest.mark.parametrize(
    "test, form",
    [
        (constraints.one_form_integrability, lateral_no_slip),
        (constraints.frobenius_involutivity, lambda q: lateral_no_slip(q)[..., None, :]),
    ],
    ids=["alpha-wedge-d-alpha", "frobenius"],
)
def test_lateral_no_slip_is_not_integrable_with_unit_residual(test, form):
    # By hand: alpha ^ d alpha = -dx ^ dy ^ dtheta and |alpha| = 1, so the residual is 1.
    result = test(form, Q_TEST)
    assert not np.any(result.integrable)
    np.testing.assert_allclose(result.residual, 1.0, rtol=1e-9)  # achieved 2e-11
    assert result.tolerance == 1e-6  # the documented default atol, 1/[q]


def test_rolling_on_a_straight_track_is_integrable():
    r = 0.3
    track = constraints.one_form_integrability(
        lambda q: np.stack([1 + 0 * q[..., 0], -r + 0 * q[..., 1]], -1), [0.2, 1.0]
    )
    assert track.integrable and track.residual == 0.0

    # in (x, y, phi) with the second form dy: still integrable (x - r phi and y constant)
    def forms(q):
        return np.broadcast_to([[1.0, 0.0, -r], [0.0, 1.0, 0.0]], q.shape[:-1] + (2, 3))

    assert np.all(constraints.frobenius_involutivity(forms, Q_TEST).integrable)


def rolling_disk(q, r=0.3):
    """dx - r cos(theta) dphi, dy - r sin(theta) dphi in (x, y, theta, phi)."""
    th = q[..., 2]
    one, zero = np.ones_like(th), np.zeros_like(th)
    return np.stack(
        [
            np.stack([one, zero, zero, -r * np.cos(th)], -1),
            np.stack([zero, one, zero, -r * np.sin(th)], -1),
        ],
        -2,
    )


def test_rolling_disk_is_not_involutive_by_its_lie_bracket():
    # Kernel fields X1 = (r cos, r sin, 0, 1) (roll), X2 = (0, 0, 1, 0) (steer), orthogonal;
    # [X1, X2] = -dX1/dtheta = (r sin, -r cos, 0, 0), entirely normal to the kernel (it is
    # orthogonal to both X1 and X2), of length r; for unit fields divide by |X1| = sqrt(1 + r^2).
    r, q = 0.3, np.array([0.1, 0.2, 0.7, -0.3])
    th = q[2]
    X1, X2 = np.array([r * np.cos(th), r * np.sin(th), 0, 1]), np.array([0, 0, 1.0, 0])
    bracket = np.array([r * np.sin(th), -r * np.cos(th), 0, 0])
    A = rolling_disk(q)
    np.testing.assert_allclose(A @ np.column_stack([X1, X2]), 0.0, atol=1e-16)
    assert np.linalg.norm(A @ bracket) > 0.1  # the bracket leaves the kernel
    result = constraints.frobenius_involutivity(rolling_disk, q)
    assert not result.integrable
    np.testing.assert_allclose(result.residual, r / np.sqrt(1 + r**2), rtol=1e-9)  # achieved 2e-11


def test_one_form_and_frobenius_residuals_agree_in_four_dimensions():
    def alpha(q):
        x, y, z, w = np.moveaxis(q, -1, 0)
        return np.stack([np.sin(y) + 2, z**2, x * y, np.cos(x) * w], -1)

    q = np.array([[0.3, 0.5, -0.7, 1.1], [1.0, -1.0, 0.4, 0.2]])
    wedge = constraints.one_form_integrability(alpha, q)
    bracket = constraints.frobenius_involutivity(lambda q: alpha(q)[..., None, :], q)
    assert np.all(wedge.residual > 0.1)
    np.testing.assert_allclose(wedge.residual, bracket.residual, rtol=1e-13)


# =============================================================================
# The planar closed chain
# =============================================================================

CHAIN = models.planar_closed_chain()
D_THETA_D_Q = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # theta = D q


@pytest.mark.parametrize("branch", [1, -1])
def test_closed_chain_closes_and_is_regular_with_one_degree_of_freedom(branch):
    theta = CHAIN.closed_configuration(np.linspace(-np.pi, np.pi, 13), branch=branch)
    np.testing.assert_allclose(CHAIN.residual(theta), 0.0, atol=1e-15)
    J = CHAIN.jacobian(theta)
    np.testing.assert_array_equal(constraints.constraint_rank(J), 2)
    np.testing.assert_array_equal(constraints.mobility(J), 1)
    assert np.all(np.linalg.svd(J, compute_uv=False)[:, -1] > 0.05)  # never near singular


def test_closed_chain_jacobian_and_bias_by_hand_and_by_differences():
    theta, omega = np.array([0.4, 1.3, 2.2]), np.array([0.5, -1.0, 2.0])
    (l1, l2, l3), (a, b) = CHAIN.lengths, CHAIN.base
    s, c = np.sin(theta), np.cos(theta)
    np.testing.assert_allclose(
        CHAIN.residual(theta),
        [l1 * c[0] + l2 * c[1] - l3 * c[2] - a, l1 * s[0] + l2 * s[1] - l3 * s[2] - b],
        atol=1e-15,
    )
    by_hand = np.column_stack(
        [l1 * np.array([-s[0], c[0]]), l2 * np.array([-s[1], c[1]]), l3 * np.array([s[2], -c[2]])]
    )
    np.testing.assert_allclose(CHAIN.jacobian(theta), by_hand, atol=1e-15)
    eps = 1e-6
    gamma_fd = (
        (CHAIN.jacobian(theta + eps * omega) - CHAIN.jacobian(theta - eps * omega))
        @ omega
        / (2 * eps)
    )
    np.testing.assert_allclose(CHAIN.acceleration_bias(theta, omega), gamma_fd, atol=1e-9)


def test_closed_chain_tree_and_loop_closure_match_the_analytic_closure():
    rng = np.random.default_rng(5)
    theta, omega = rng.uniform(-3, 3, (5, 3)), rng.uniform(-2, 2, (5, 3))
    q, v = CHAIN.joint_coordinates(theta), CHAIN.joint_coordinates(omega)
    np.testing.assert_allclose(CHAIN.absolute_angles(q), theta, atol=1e-15)
    np.testing.assert_allclose(q, theta @ np.linalg.inv(D_THETA_D_Q).T, atol=1e-14)
    loop = CHAIN.loop_closure
    np.testing.assert_allclose(loop.residual(q), CHAIN.residual(theta), atol=1e-14)
    np.testing.assert_allclose(loop.jacobian(q), CHAIN.jacobian(theta) @ D_THETA_D_Q, atol=1e-14)
    np.testing.assert_allclose(
        loop.acceleration_bias(q, v), CHAIN.acceleration_bias(theta, omega), atol=1e-13
    )
    np.testing.assert_allclose(CHAIN.model.masses, CHAIN.masses)


def test_closed_chain_rods_have_the_thin_rod_inertia_about_their_joints():
    # M_11 with links 2 and 3 still: link 1 about its end (m l^2 / 3) plus link 2 as a rod
    # whose centre travels on a circle of radius |(l1 + l2/2 cos q2, l2/2 sin q2)|.
    (l1, l2, _), (m1, m2, m3) = CHAIN.lengths, CHAIN.masses
    q2 = 0.7
    M = tree.crba(CHAIN.model, [0.3, q2, -1.0])
    r2 = (l1 + l2 / 2 * np.cos(q2)) ** 2 + (l2 / 2 * np.sin(q2)) ** 2
    np.testing.assert_allclose(M[0, 0], m1 * l1**2 / 3 + m2 * l2**2 / 12 + m2 * r2, rtol=1e-14)
    np.testing.assert_allclose(M[2, 2], m3 * CHAIN.lengths[2] ** 2 / 3, rtol=1e-14)
    np.testing.assert_allclose(M[0, 2], 0.0, atol=0)


def test_closed_chain_swings_under_in_plane_gravity():
    theta = CHAIN.closed_configuration(0.5)
    q = CHAIN.joint_coordinates(theta)
    v = constraints.null_space_basis(CHAIN.loop_closure.jacobian(q))[:, 0]  # admissible
    M = tree.crba(CHAIN.model, q)
    h = tree.rnea(CHAIN.model, q, v, np.zeros(3), gravity=(0.0, -9.81, 0.0))
    J, gamma = CHAIN.loop_closure.jacobian(q), CHAIN.loop_closure.acceleration_bias(q, v)
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, 0)
    qdd, lam = dynamics.a, dynamics.multiplier
    np.testing.assert_allclose(J @ qdd, -gamma, atol=1e-13)
    np.testing.assert_allclose(
        tree.rnea(CHAIN.model, q, v, qdd, gravity=(0.0, -9.81, 0.0)), J.T @ lam, atol=1e-12
    )
    # Out-of-plane gravity does no work on the chain: without velocity nothing moves.
    out_of_plane = tree.rnea(CHAIN.model, q, 0 * v, 0 * v, gravity=(0.0, 0.0, -9.81))
    still = constraints.constrained_dynamics(M, J, out_of_plane, 0, 0).a
    np.testing.assert_allclose(still, 0.0, atol=1e-13)


def test_aligned_chain_is_singular_and_rejected_by_the_dynamics_when_moving():
    # l1 + l2 - l3 = a, b = 0: theta = 0 closes the loop with all links along x.
    chain = models.planar_closed_chain(lengths=(0.3, 0.8, 0.6), base=(0.5, 0.0))
    theta = np.zeros(3)
    np.testing.assert_allclose(chain.residual(theta), 0.0, atol=1e-15)
    J = chain.jacobian(theta)
    assert constraints.constraint_rank(J) == 1 and constraints.mobility(J) == 2
    q = chain.joint_coordinates(theta)
    M = tree.crba(chain.model, q)
    J_q = chain.loop_closure.jacobian(q)
    # At rest the rank-1 set is consistent (gamma = 0): solved, with the same rank.
    at_rest = constraints.constrained_dynamics(M, J_q, 0, 0, 0)
    assert at_rest.rank == constraints.constraint_rank(J_q) == 1
    # Moving, the x row (identically zero here) still has gamma_x = -(l1 w1^2 + l2 w2^2
    # - l3 w3^2) != 0: no acceleration satisfies it, and the error says so.
    omega = np.array([1.0, 0.5, 1.0])  # absolute rates, rad/s
    v = chain.joint_coordinates(omega)
    gamma = chain.loop_closure.acceleration_bias(q, v)
    np.testing.assert_allclose(gamma[0], -(0.3 + 0.8 * 0.25 - 0.6), rtol=1e-12)  # 0.1 m/s^2
    with pytest.raises(ValueError, match=r"^gamma:.*range of J_c.*rank 1 with 2 rows"):
        constraints.constrained_dynamics(M, J_q, 0, gamma, 0)


angles = st.floats(-np.pi, np.pi, allow_nan=False)
lengths = st.floats(0.05, 3.0, allow_nan=False)


@given(angles, angles, lengths, lengths)
def test_two_grounded_links_determinant(theta1, theta2, l1, l2):
    J = models.two_grounded_links_jacobian([theta1, theta2], [l1, l2])
    np.testing.assert_allclose(
        J[:, 0], l1 * np.array([-np.sin(theta1), np.cos(theta1)]), atol=1e-15
    )
    np.testing.assert_allclose(
        J[:, 1], l2 * np.array([np.sin(theta2), -np.cos(theta2)]), atol=1e-15
    )
    assert np.linalg.det(J) == pytest.approx(l1 * l2 * np.sin(theta1 - theta2), abs=1e-12)


@pytest.mark.parametrize("theta", [0.0, 1.2, -2.0])
def test_two_grounded_links_lose_rank_when_aligned(theta):
    for other in (theta, theta + np.pi):
        J = models.two_grounded_links_jacobian([theta, other], [0.7, 0.4])
        assert np.linalg.det(J) == pytest.approx(0.0, abs=1e-15)
        assert constraints.constraint_rank(J) == 1
    assert (
        constraints.constraint_rank(
            models.two_grounded_links_jacobian([theta, theta + 1.0], [0.7, 0.4])
        )
        == 2
    )


# =============================================================================
# Bad input
# =============================================================================

M2, J2 = np.diag([2.0, 3.0]), np.array([[1.0, 1.0]])


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.array([[2.0, 1.0], [0.0, 3.0]]), J2, 0, 0, 0), "^M:.*symmetric"),
        ((np.diag([1.0, -1.0]), J2, 0, 0, 0), "^M:.*positive definite"),
        ((np.ones((2, 3)), J2, 0, 0, 0), "^M:.*square"),
        ((M2, [[1.0, 1.0, 0.0]], 0, 0, 0), r"^J_c:.*\(\.\.\., c, 2\)"),
        ((M2, [1.0, 1.0], 0, 0, 0), "^J_c:.*matrix"),
        ((M2, [[1.0, 1.0], [2.0, 2.0]], 0, [0.0, 1.0], 0), r"^gamma:.*range.*rank 1 with 2"),
        ((M2, [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], 0, [0, 0, 1], 0), r"^gamma:.*rank 2 with 3"),
        ((M2, [[0.0, 0.0]], 0, [1.0], 0), r"^gamma:.*rank 0"),
        ((M2, J2, [1.0, 2.0, 3.0], 0, 0), r"^h:.*\(\.\.\., 2\)"),
        ((M2, J2, 0, 0, [np.nan, 0.0]), "^tau:.*finite"),
        ((M2, J2, 0, 0, 1.0), "^tau:"),
        ((M2, J2, 0, [1.0, 2.0], 0), r"^gamma:.*\(\.\.\., 1\)"),
        ((np.stack([M2] * 2), np.stack([J2] * 3), 0, 0, 0), "^M, J_c, h, gamma, tau:.*broadcast"),
        ((M2, J2, 0, 1j, 0), "^gamma:.*real"),
    ],
)
def test_constrained_dynamics_rejects_bad_input(args, match):
    # Complex numbers are the wrong type (TypeError); the other cases are wrong values.
    with pytest.raises(TypeError if match.endswith("real") else ValueError, match=match):
        constraints.constrained_dynamics(*args)


def test_rank_message_points_at_the_configuration_of_a_batch():
    # A zero row with a nonzero bias is inconsistent; the message names the element.
    J = np.stack([J2, np.zeros((1, 2)), J2])
    with pytest.raises(ValueError, match=r"^gamma:.*rank 0 with 1 rows at batch index \(1,\)"):
        constraints.constrained_dynamics(M2, J, 0, [1.0], 0)
    # With a zero bias the same batch is consistent: per-element ranks are reported.
    result = constraints.constrained_dynamics(M2, J, 0, 0, [1.0, 0.0])
    np.testing.assert_array_equal(result.rank, [1, 0, 1])
    np.testing.assert_array_equal(result.rank, constraints.constraint_rank(J))
    np.testing.assert_allclose(result.a[1], [0.5, 0.0], atol=1e-15)  # free: M^-1 tau
    with pytest.raises(ValueError, match="^rtol:"):
        constraints.constrained_dynamics(M2, J2, 0, 0, 0, rtol=-1.0)
    # A looser tolerance counts a nearly singular Jacobian as rank 1, which the default
    # counts as rank 2; a bias that needs the second row is then inconsistent.
    nearly = np.array([[1.0, 0.0], [1.0, 1e-4]])
    assert constraints.constrained_dynamics(M2, nearly, 0, [0.0, 1.0], 0).rank == 2
    with pytest.raises(ValueError, match="^gamma:.*rank 1"):
        constraints.constrained_dynamics(M2, nearly, 0, [0.0, 1.0], 0, rtol=1e-3)


def test_projectors_reduced_dynamics_and_kinetic_projector_reject_bad_input():
    with pytest.raises(ValueError, match="^M:.*positive definite"):
        constraints.projectors(np.diag([1.0, 0.0]), J2)
    # A duplicated row is solved, not refused: the same projectors as the single row.
    twice = constraints.projectors(M2, [[1.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(twice.P_v, constraints.projectors(M2, J2).P_v, atol=1e-15)
    with pytest.raises(ValueError, match="^M, J_c:.*broadcast"):
        constraints.projectors(np.stack([M2] * 2), np.stack([J2] * 3))
    with pytest.raises(ValueError, match=r"^B:.*\(\.\.\., 2, m\)"):
        constraints.reduced_dynamics(M2, J2, 0, 0, np.eye(3))
    with pytest.raises(ValueError, match="^B:.*finite"):
        constraints.reduced_dynamics(M2, J2, 0, 0, [[np.inf], [0.0]])
    with pytest.raises(ValueError, match="^M, J_c, h, gamma, B:.*broadcast"):
        constraints.reduced_dynamics(M2, J2, np.zeros((4, 2)), 0, np.zeros((3, 2, 1)))
    with pytest.raises(ValueError, match="^N:.*independent columns"):
        constraints.kinetic_projector(M2, [[1.0, 2.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match="^N:"):
        constraints.kinetic_projector(M2, [[1.0], [0.0], [0.0]])
    with pytest.raises(ValueError, match="^M:.*symmetric"):
        constraints.kinetic_projector([[1.0, 0.5], [0.0, 1.0]], [[1.0], [0.0]])
    with pytest.raises(ValueError, match="^J_c:"):
        constraints.mobility([1.0, 2.0])


def test_loop_closure_rejects_bad_input(branched):
    model, _ = branched
    n = model.num_bodies
    good = {"body_a": 1, "point_a": [0.0, 0.0, 0.1], "body_b": 3, "point_b": np.zeros(3)}
    with pytest.raises(TypeError, match="^model:.*Tree"):
        constraints.loop_closure(**{"model": "tree", **good})
    with pytest.raises(TypeError):  # directions is keyword-only
        constraints.loop_closure(model, 1, [0.0, 0.0, 0.1], 3, np.zeros(3), np.eye(3))
    cases = [
        ({"body_a": n}, rf"^body_a:.*\[0, {n - 1}\].*{n}"),
        ({"body_a": -1}, r"^body_a:.*\[0,"),
        ({"body_b": -2}, r"^body_b:.*\[-1,"),
        ({"body_b": 1}, "^body_b:.*other than body_a"),
        ({"point_a": [0.0, 0.1]}, r"^point_a:.*\(3,\).*\(2,\)"),
        ({"point_b": np.zeros((2, 3))}, r"^point_b:.*\(3,\)"),
        ({"point_b": [0.0, np.nan, 0.0]}, "^point_b:.*finite"),
        ({"directions": [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]}, "^directions:.*unit"),
        ({"directions": [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]}, "^directions:.*independent"),
        ({"directions": np.eye(4)[:, :3]}, r"^directions:.*\(k, 3\)"),
        ({"directions": [1.0, 0.0, 0.0]}, r"^directions:.*\(k, 3\)"),
    ]
    for change, match in cases:
        with pytest.raises(ValueError, match=match):
            constraints.loop_closure(**{"model": model, **good, **change})
    for change, match in [
        ({"body_b": True}, "^body_b:.*integer.*bool"),
        ({"body_a": 1.0}, "^body_a:.*integer.*float"),
    ]:
        with pytest.raises(TypeError, match=match):  # a wrong type, as for frame_closure
            constraints.loop_closure(**{"model": model, **good, **change})
    loop = constraints.loop_closure(model, **good)
    with pytest.raises(ValueError, match="q"):
        loop.residual(np.zeros(n + 1))
    with pytest.raises(ValueError, match="v: expected shape"):
        loop.acceleration_bias(np.zeros(n), np.zeros(n - 1))


def test_function_constraint_and_revolute_sets_reject_bad_input():
    with pytest.raises(TypeError, match="^acceleration_bias:.*callable"):
        constraints.FunctionConstraint(residual=np.sin, jacobian=np.cos, acceleration_bias=1.0)
    with pytest.raises(ValueError, match=r"^T_rel\[\.\.\., :3, :3\]:.*rotation"):
        constraints.revolute_joint_residual(np.diag([1.0, 2.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match=r"^T_rel:.*\(\.\.\., 4, 4\)"):
        constraints.revolute_joint_jacobian(np.eye(3))
    with pytest.raises(ValueError, match="^rows:.*axis"):
        constraints.revolute_joint_jacobian(np.eye(4), rows="R12")
    with pytest.raises(ValueError, match="^rows:"):
        constraints.revolute_joint_residual(np.eye(4), rows=["axis"])


def test_integrability_tests_reject_bad_input():
    one = constraints.one_form_integrability
    with pytest.raises(TypeError, match="^alpha:.*callable"):
        one([1.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="^q:"):
        one(lateral_no_slip, [0.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="^q:.*n >= 1"):
        one(lateral_no_slip, 0.0)
    with pytest.raises(ValueError, match=r"^alpha\(q\):.*shape"):
        one(lambda q: q[..., :2], [0.0, 0.0, 0.0])
    # A form written for one point is evaluated point by point (the one callable
    # contract): alpha = dy + x dz has alpha ^ d alpha = -dx ^ dy ^ dz, residual 1 at x = 0.
    pointwise = one(lambda q: np.array([0.0, 1.0, q[0]]), [[0.0, 0.0, 0.0], [0.0, 1.0, 2.0]])
    np.testing.assert_allclose(pointwise.residual, [1.0, 1.0], rtol=1e-9)
    assert not np.any(pointwise.integrable)

    # An exception raised by the form itself reaches the caller unchanged.
    def fails(q):
        raise ZeroDivisionError("inside alpha")

    with pytest.raises(ZeroDivisionError, match="inside alpha"):
        one(fails, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^alpha\(q\):.*nonvanishing"):
        one(lambda q: 0 * q, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^alpha\(q\):.*one form"):
        one(lambda q: q[..., None, :], [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="^step:.*positive"):
        one(lateral_no_slip, [0.0, 0.0, 0.0], step=0.0)
    with pytest.raises(ValueError, match="^atol:.*non-negative"):
        one(lateral_no_slip, [0.0, 0.0, 0.0], atol=-1e-3)
    with pytest.raises(ValueError, match=r"^forms\(q\):.*2 independent.*rank 1.*rtol = 6.66e-16"):
        constraints.frobenius_involutivity(
            lambda q: np.stack([lateral_no_slip(q)] * 2, -2), [0.0, 0.0, 0.0]
        )
    with pytest.raises(ValueError, match=r"^forms\(q\):.*shape"):
        constraints.frobenius_involutivity(lateral_no_slip, [0.0, 0.0, 0.0])


def test_planar_closed_chain_rejects_bad_input():
    with pytest.raises(ValueError, match="^lengths:.*positive"):
        models.planar_closed_chain(lengths=(0.3, 0.0, 0.6))
    with pytest.raises(ValueError, match="^lengths:.*3 values"):
        models.planar_closed_chain(lengths=(0.3, 0.6))
    with pytest.raises(ValueError, match="^masses:.*positive"):
        models.planar_closed_chain(masses=(1.0, -1.0, 1.0))
    with pytest.raises(ValueError, match=r"^base:.*\(2,\)"):
        models.planar_closed_chain(base=(0.7, 0.0, 0.0))
    with pytest.raises(ValueError, match="^theta1:.*closes"):
        models.planar_closed_chain(base=(3.0, 0.0)).closed_configuration(0.0)
    with pytest.raises(ValueError, match="^branch:"):
        CHAIN.closed_configuration(0.0, branch=0)
    with pytest.raises(ValueError, match=r"^theta:.*\(\.\.\., 3\)"):
        CHAIN.residual([0.0, 0.0])
    with pytest.raises(ValueError, match="^omega:"):
        CHAIN.acceleration_bias(np.zeros(3), [0.0, np.inf, 0.0])
    with pytest.raises(ValueError, match="^lengths:.*2 values"):
        models.two_grounded_links_jacobian([0.0, 1.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"^theta:.*\(\.\.\., 2\)"):
        models.two_grounded_links_jacobian([0.0, 1.0, 2.0], [1.0, 1.0])


def test_no_constraints_one_configuration_prints_nothing(capfd):
    """c = 0 for a single matrix: LAPACK once printed a parameter error to stderr here."""
    M = np.diag([2.0, 1.0, 3.0])
    reduced = constraints.reduced_dynamics(M, np.zeros((0, 3)), np.ones(3), np.zeros(0), np.eye(3))
    f, G = reduced.f, reduced.G
    np.testing.assert_allclose(f, [-0.5, -1.0, -1.0 / 3.0], rtol=1e-15)
    np.testing.assert_allclose(G, np.diag([0.5, 1.0, 1.0 / 3.0]), rtol=1e-15)
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""


# =============================================================================
# Loop closures whose rows cannot be regular anywhere
# =============================================================================


def four_bar(tilt=0.0):
    """A planar four-bar as a tree cut at the coupler-rocker joint: crank (body 0) and
    coupler (body 1) from the origin, rocker (body 2) from (1.2, 0.4); all joints
    REVOLUTE_Z, the plane turned by ``tilt`` rad about the base x axis."""
    lengths = (0.5, 1.0, 0.8)
    rods = [
        inertia.spatial_inertia(1.0, [l / 2, 0.0, 0.0], inertia.thin_rod_central_inertia(1.0, l))
        for l in lengths
    ]
    R = Rotation.from_rotvec([tilt, 0.0, 0.0]).as_matrix()
    placements = [
        spatial.pose(R, [0.0, 0.0, 0.0]),
        spatial.pose(np.eye(3), [lengths[0], 0.0, 0.0]),
        spatial.pose(R, R @ [1.2, 0.4, 0.0]),
    ]
    model = tree.Tree(
        [-1, 0, -1],
        [tree.REVOLUTE_Z] * 3,
        placements,
        rods,
        allow_singular_inertias=True,
        gravity=R @ [0.0, -9.81, 0.0],  # in the plane of motion
    )
    return model, ([lengths[1], 0.0, 0.0], [lengths[2], 0.0, 0.0])


def suggested_directions(message):
    """The ``directions=`` rows a message proposes, read back from its text."""
    return json.loads(message.split("directions=")[-1])


def test_planar_loop_closure_without_directions_names_the_zero_row_and_the_fix():
    model, (tip_b1, tip_b2) = four_bar()
    with pytest.raises(
        ValueError,
        match=r"^directions:.*row 2 = \[0\.0, 0\.0, 1\.0\] \(directions omitted.*identically "
        r"zero row of J_c.*2-dimensional.*directions=\[\[1, 0, 0\], \[0, 1, 0\]\]$",
    ) as error:
        constraints.loop_closure(model, 1, tip_b1, 2, tip_b2)
    # The proposed rows close the loop regularly: full row rank 2 and one free direction
    # where the loop is assembled (crank 0.3 rad, closed by Newton on the x-y residual).
    loop = constraints.loop_closure(
        model, 1, tip_b1, 2, tip_b2, directions=suggested_directions(str(error.value))
    )
    q = np.array([0.3, 1.0, 2.0])
    for _ in range(30):
        J = loop.jacobian(q)[:, 1:]
        q[1:] -= np.linalg.solve(J, loop.residual(q))
    np.testing.assert_allclose(loop.residual(q), 0.0, atol=1e-12)
    assert constraints.null_space_basis(loop.jacobian(q)).shape == (3, 1)


def test_tilted_planar_loop_closure_proposes_rows_in_its_plane():
    tilt = 0.5
    model, (tip_b1, tip_b2) = four_bar(tilt)
    normal = Rotation.from_rotvec([tilt, 0.0, 0.0]).as_matrix()[:, 2]
    # No base axis is normal to the tilted plane: the rows y and z are dependent in it.
    with pytest.raises(
        ValueError,
        match=r"^directions:.*rank 2 < 3.*\(dependent\).*directions=\[\[1\.0, 0\.0, 0\.0\], ",
    ) as error:
        constraints.loop_closure(model, 1, tip_b1, 2, tip_b2)
    D = np.array(suggested_directions(str(error.value)))
    # x, then y projected on the plane: (0, cos, sin) of the tilt, normal to (0, -sin, cos).
    np.testing.assert_allclose(D, [[1, 0, 0], [0, np.cos(tilt), np.sin(tilt)]], atol=1e-11)
    np.testing.assert_allclose(D @ normal, 0.0, atol=1e-11)
    loop = constraints.loop_closure(model, 1, tip_b1, 2, tip_b2, directions=D)  # accepted
    assert constraints.constraint_rank(loop.jacobian([0.3, 1.0, 2.0])) == 2


def test_loop_closure_refuses_rows_dependent_along_the_motion():
    model, (tip_b1, tip_b2) = four_bar()
    # Independent in space, but the last two rows both see only the y motion of the plane.
    D = [[1.0, 0.0, 0.0], [0.0, 0.6, 0.8], [0.0, 0.8, -0.6]]
    with pytest.raises(
        ValueError, match=r"^directions:.*rank 2 < 3.*\(dependent\).*directions=\[\[1, 0, 0\]"
    ):
        constraints.loop_closure(model, 1, tip_b1, 2, tip_b2, directions=D)
    # One in-plane row alone is regular (a single distance-like constraint).
    constraints.loop_closure(model, 1, tip_b1, 2, tip_b2, directions=[[0.0, 0.6, 0.8]])


def test_loop_closure_refuses_points_that_never_move_apart():
    model, _ = four_bar()
    # A point on the crank's joint axis against the same base point: p_a - p_b is constant.
    with pytest.raises(ValueError, match="^point_a, point_b:.*constant.*constrains no joint"):
        constraints.loop_closure(model, 0, [0.0, 0.0, 0.1], -1, [0.0, 0.0, 0.1])
