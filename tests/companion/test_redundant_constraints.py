"""Redundant constraint sets are solved, inconsistent ones refused, with one rank rule.

Independent references: the two-row (independent) closure of the same four-bar, full-rank
reductions of random redundant sets, the pseudo-inverse formula of the minimum-norm
multiplier computed with numpy.linalg.pinv (not the package's solve), and numpy's SVD
of the row-normalized Jacobian for the rank.
"""

import numpy as np
import pytest

from geomotion import constraints, integrators, models, tree

CHAIN = models.planar_closed_chain()
PLANE_GRAVITY = (0.0, -9.81, 0.0)
THETA = CHAIN.closed_configuration(0.7)
Q = CHAIN.joint_coordinates(THETA)
V_ABS = np.array([1.3, 0.0, 0.0])  # absolute rates, made tangent below


class PointClosure:
    """All three base-frame rows of p_a - p_b (optionally rotated by D), built from tree.

    For the planar chain the z row is identically zero: a redundant, consistent set.
    Written here from tree.point_* directly, independently of constraints.loop_closure.
    """

    def __init__(self, chain, D=None):
        self.model, self.D = chain.model, np.eye(3) if D is None else np.asarray(D, dtype=float)
        _, l2, l3 = chain.lengths
        self.a, self.b = (1, [l2, 0.0, 0.0]), (2, [l3, 0.0, 0.0])

    def _diff(self, f, *state):
        return f(self.model, *state, *self.a) - f(self.model, *state, *self.b)

    def residual(self, q):
        return np.einsum("kj,...j->...k", self.D, self._diff(tree.point_position, q))

    def jacobian(self, q):
        return self.D @ self._diff(tree.point_jacobian, q)

    def acceleration_bias(self, q, v):
        return np.einsum("kj,...j->...k", self.D, self._diff(tree.point_acceleration_bias, q, v))


THREE_ROWS = PointClosure(CHAIN)


def tangent_velocity(J, v):
    """v minus its Euclidean component normal to ker J (numpy's pinv)."""
    return v - np.linalg.pinv(J) @ (J @ v)


def pinv_multiplier(M, J, h, gamma, tau):
    """lambda = -W^+ (J M^-1 (tau - h) + gamma), W = J M^-1 J^T, with numpy's pinv."""
    Minv = np.linalg.inv(M)
    W = J @ Minv @ J.T
    return -np.linalg.pinv(W, rcond=1e-10) @ (J @ Minv @ (tau - h) + gamma)


def state():
    M = tree.crba(CHAIN.model, Q)
    J2 = CHAIN.loop_closure.jacobian(Q)
    v = tangent_velocity(J2, CHAIN.joint_coordinates(V_ABS))
    h = tree.bias_forces(CHAIN.model, Q, v, gravity=PLANE_GRAVITY)
    return M, J2, v, h


def test_the_three_row_closure_is_redundant_and_consistent():
    J3 = THREE_ROWS.jacobian(Q)
    assert np.all(J3[2] == 0.0)  # identically zero out of the plane
    assert constraints.constraint_rank(J3) == 2 and constraints.mobility(J3) == 1
    np.testing.assert_allclose(J3[:2], CHAIN.loop_closure.jacobian(Q), rtol=0, atol=1e-15)


def test_four_bar_with_three_point_rows_matches_the_two_row_closure():
    M, J2, v, h = state()
    tau = np.array([0.3, -0.2, 0.1])
    J3, gamma3 = THREE_ROWS.jacobian(Q), THREE_ROWS.acceleration_bias(Q, v)
    gamma2 = CHAIN.loop_closure.acceleration_bias(Q, v)
    two = constraints.constrained_dynamics(M, J2, h, gamma2, tau)
    three = constraints.constrained_dynamics(M, J3, h, gamma3, tau)
    assert two.rank == 2 and three.rank == 2 == constraints.constraint_rank(J3)
    np.testing.assert_allclose(three.a, two.a, rtol=0, atol=1e-12)
    # Minimum norm: the zero row carries nothing, the others carry the two-row multiplier;
    # both equal the pseudo-inverse formula.
    np.testing.assert_allclose(three.multiplier[:2], two.multiplier, rtol=0, atol=1e-11)
    assert three.multiplier[2] == 0.0
    lam = pinv_multiplier(M, J3, h, gamma3, tau)
    np.testing.assert_allclose(three.multiplier, lam, rtol=0, atol=1e-10 * np.abs(lam).max())


def test_rotated_three_row_closure_mixes_every_row_and_still_matches():
    # Rows rotated by a generic rotation: no zero row, rank 2, a multiplier on every row.
    rng = np.random.default_rng(5)
    D, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    rotated = PointClosure(CHAIN, D)
    M, J2, v, h = state()
    J, gamma = rotated.jacobian(Q), rotated.acceleration_bias(Q, v)
    assert np.all(np.abs(J).max(axis=1) > 0.05)
    reference = constraints.constrained_dynamics(
        M, J2, h, CHAIN.loop_closure.acceleration_bias(Q, v), 0
    )
    result = constraints.constrained_dynamics(M, J, h, gamma, 0)
    assert result.rank == 2
    np.testing.assert_allclose(result.a, reference.a, rtol=0, atol=1e-12)
    lam = pinv_multiplier(M, J, h, gamma, np.zeros(3))
    np.testing.assert_allclose(result.multiplier, lam, rtol=0, atol=1e-10 * np.abs(lam).max())
    # The same reaction as the two-row closure, and a multiplier in range(J) (min norm).
    np.testing.assert_allclose(J.T @ result.multiplier, J2.T @ reference.multiplier, atol=1e-11)
    outside = result.multiplier - np.linalg.pinv(J.T) @ (J.T @ result.multiplier)
    np.testing.assert_allclose(outside, 0.0, atol=1e-11)


def redundant_set(rng, n, r, extra):
    """(M, J0, J, gamma0, gamma, C): J = C J0 with C (r + extra, r) of rank r."""
    A = rng.normal(size=(n, n))
    M = A @ A.T + 0.5 * np.eye(n)
    J0 = rng.normal(size=(r, n))
    mix = rng.normal(size=(extra, r))
    mix[0] = 0.0
    mix[0, rng.integers(r)] = 1.0  # one duplicate row
    C = np.vstack([np.eye(r), mix])[rng.permutation(r + extra)]
    gamma0 = rng.normal(size=r)
    return M, J0, C @ J0, gamma0, C @ gamma0, C


@pytest.mark.parametrize("seed", range(12))
def test_random_redundant_sets_match_their_full_rank_reduction(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    r = int(rng.integers(1, n))
    extra = int(rng.integers(1, 4))
    M, J0, J, gamma0, gamma, _ = redundant_set(rng, n, r, extra)
    h, tau = rng.normal(size=n), rng.normal(size=n)
    reduced = constraints.constrained_dynamics(M, J0, h, gamma0, tau)
    result = constraints.constrained_dynamics(M, J, h, gamma, tau)
    assert result.rank == r == constraints.constraint_rank(J) == np.linalg.matrix_rank(J)
    scale = 1.0 + np.abs(reduced.a).max()
    np.testing.assert_allclose(result.a, reduced.a, rtol=0, atol=1e-11 * scale)
    # Same reaction, minimum-norm multiplier (numpy's pseudo-inverse formula).
    np.testing.assert_allclose(
        J.T @ result.multiplier, J0.T @ reduced.multiplier, atol=1e-10 * scale
    )
    lam = pinv_multiplier(M, J, h, gamma, tau)
    np.testing.assert_allclose(result.multiplier, lam, rtol=0, atol=1e-9 * (1 + np.abs(lam).max()))
    # Projectors and the reduced dynamics agree with the full-rank set too.
    np.testing.assert_allclose(
        constraints.projectors(M, J).P_v, constraints.projectors(M, J0).P_v, atol=1e-11
    )
    B = rng.normal(size=(n, 2))
    full, red = (
        constraints.reduced_dynamics(M, J, h, gamma, B),
        constraints.reduced_dynamics(M, J0, h, gamma0, B),
    )
    np.testing.assert_allclose(full.f, red.f, atol=1e-11 * scale)
    np.testing.assert_allclose(full.G, red.G, atol=1e-11)


def test_a_batch_of_redundant_sets_reports_the_rank_per_element():
    rng = np.random.default_rng(3)
    n = 5
    Ms, Js, gammas, references = [], [], [], []
    for r in (1, 2, 3, 2):
        M, J0, J, gamma0, gamma, _ = redundant_set(rng, n, r, 4 - r)  # always 4 rows
        Ms.append(M)
        Js.append(J)
        gammas.append(gamma)
        references.append(constraints.constrained_dynamics(M, J0, 0, gamma0, 0).a)
    result = constraints.constrained_dynamics(np.stack(Ms), np.stack(Js), 0, np.stack(gammas), 0)
    np.testing.assert_array_equal(result.rank, [1, 2, 3, 2])
    np.testing.assert_array_equal(result.rank, constraints.constraint_rank(np.stack(Js)))
    np.testing.assert_allclose(result.a, np.stack(references), rtol=0, atol=1e-11)


def test_inconsistent_sets_are_refused_naming_gamma_and_the_residual():
    with pytest.raises(ValueError, match=r"^gamma:.*range of J_c.*rank 1 with 2 rows.*residual"):
        constraints.constrained_dynamics(np.eye(2), [[1.0, 1.0], [2.0, 2.0]], 0, [0.0, 1.0], 0)
    # Consistent: gamma = (g, 2 g).
    ok = constraints.constrained_dynamics(np.eye(2), [[1.0, 1.0], [2.0, 2.0]], 0, [0.5, 1.0], 0)
    np.testing.assert_allclose(ok.a, [-0.25, -0.25], atol=1e-15)
    np.testing.assert_allclose(ok.multiplier, [-0.05, -0.1], atol=1e-15)  # pinv: (1, 2) / 20
    # A duplicated row whose bias disagrees by 1e-3 of its size is refused; by rounding
    # (1e-15 relative) it is accepted.
    rng = np.random.default_rng(8)
    M, J0, J, gamma0, gamma, C = redundant_set(rng, 6, 3, 2)
    for relative, refused in ((1e-3, True), (1e-6, True), (1e-15, False)):
        bad = gamma.copy()
        bad[np.flatnonzero(np.abs(C).sum(1) > 0)[-1]] += relative * np.abs(gamma).max()
        if refused:
            with pytest.raises(ValueError, match="^gamma:.*inconsistent"):
                constraints.constrained_dynamics(M, J, 0, bad, 0)
        else:
            constraints.constrained_dynamics(M, J, 0, bad, 0)
    # reduced_dynamics checks the drift's bias the same way.
    with pytest.raises(ValueError, match="^gamma:"):
        constraints.reduced_dynamics(np.eye(2), [[1.0, 1.0], [2.0, 2.0]], 0, [0.0, 1.0], np.eye(2))


# --- one rank rule ------------------------------------------------------------------


def rule_rank(J, rtol=1e-10):
    """The documented rule, by hand: normalize rows, numpy SVD, count above rtol sigma_max."""
    norms = np.linalg.norm(J, axis=-1)
    keep = norms > rtol * norms.max()
    if not keep.any():
        return 0
    s = np.linalg.svd(J[keep] / norms[keep, None], compute_uv=False)
    return int(np.sum(s > rtol * s[0]))


@pytest.mark.parametrize("ratio", [1e-6, 1e-9, 1e-11, 1e-13, 0.0])
def test_rank_is_the_same_everywhere_and_follows_the_documented_rule(ratio):
    rng = np.random.default_rng(1)
    U, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    V, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    J = U @ np.diag([1.0, 0.5, ratio]) @ V[:3]
    expected = rule_rank(J)
    assert expected == (3 if ratio > 1e-10 else 2)
    M = np.diag([1.0, 2.0, 3.0, 4.0])
    gamma = J @ rng.normal(size=4)  # consistent whatever the rank
    assert constraints.constraint_rank(J) == expected
    assert constraints.mobility(J) == 4 - expected
    assert constraints.null_space_basis(J, require_regular=False).shape == (4, 4 - expected)
    assert constraints.constrained_dynamics(M, J, 0, gamma, 0).rank == expected


def test_the_rank_does_not_depend_on_the_units_of_the_rows():
    rng = np.random.default_rng(2)
    J = rng.normal(size=(3, 5))
    J[2] = J[0] + J[1]  # rank 2
    for scales in ([1e-6, 1.0, 1e6], [1e8, 1e-8, 1.0], [1e3, 1e3, 1e-3]):
        D = np.diag(scales)
        assert constraints.constraint_rank(D @ J) == 2
        M = np.eye(5)
        gamma = D @ J @ rng.normal(size=5)
        a_scaled = constraints.constrained_dynamics(M, D @ J, 0, gamma, 0)
        a_plain = constraints.constrained_dynamics(M, J, 0, np.linalg.solve(D, gamma), 0)
        assert a_scaled.rank == 2
        np.testing.assert_allclose(a_scaled.a, a_plain.a, rtol=0, atol=1e-9)
    # A row in small units next to one in large units: the threshold applied to the
    # unscaled singular values would drop it; the rule does not.
    J = np.array([[1.0, 0.0], [1e-6, 1e-11]])
    s = np.linalg.svd(J, compute_uv=False)
    assert np.sum(s > 1e-10 * s[0]) == 1
    assert constraints.constraint_rank(J) == 2 == rule_rank(J)


def test_a_row_far_shorter_than_the_longest_counts_as_zero():
    assert constraints.constraint_rank([[1.0, 0.0], [0.0, 1e-11]]) == 1
    assert constraints.constraint_rank([[1.0, 0.0], [0.0, 1e-9]]) == 2
    assert constraints.constraint_rank([[1.0, 0.0], [0.0, 1e-9]], rtol=1e-8) == 1
    with pytest.raises(ValueError, match="^rtol:"):
        constraints.constraint_rank(np.eye(2), rtol=[1e-3, 1e-3])


# --- the integrators --------------------------------------------------------------------


def test_simulate_constrained_on_the_redundant_four_bar_matches_the_two_row_run():
    system = integrators.MechanicalSystem.from_tree(CHAIN.model, gravity=PLANE_GRAVITY)
    M, J2, v, _ = state()
    for method, gains in (("projection", {}), ("baumgarte", {"alpha": 5.0, "beta": 5.0})):
        two = integrators.simulate_constrained(
            system, CHAIN.loop_closure, Q, v, 0.005, 200, method=method, **gains
        )
        three = integrators.simulate_constrained(
            system, THREE_ROWS, Q, v, 0.005, 200, method=method, **gains
        )
        np.testing.assert_allclose(three.q, two.q, rtol=0, atol=1e-11)
        np.testing.assert_allclose(three.v, two.v, rtol=0, atol=1e-10)
        np.testing.assert_allclose(three.multiplier[..., :2], two.multiplier, rtol=0, atol=1e-8)
        np.testing.assert_allclose(three.multiplier[..., 2], 0.0, atol=1e-12)
        assert np.ptp(three.q[:, 0]) > 0.5  # it moves
        np.testing.assert_allclose(three.energy_residual, two.energy_residual, atol=1e-10)


def test_projections_and_rattle_accept_duplicated_rows():
    # A particle on a line n.q = d written twice (and once scaled by 3).
    n, d = np.array([0.6, 0.8]), 0.2

    def line(times):
        rows = np.array(times, dtype=float)[:, None] * n
        return type(
            "Line",
            (),
            {
                "residual": staticmethod(lambda q: np.multiply.outer(q @ n - d, times)),
                "jacobian": staticmethod(
                    lambda q: np.broadcast_to(rows, q.shape[:-1] + rows.shape)
                ),
                "acceleration_bias": staticmethod(
                    lambda q, v: np.zeros(q.shape[:-1] + (len(times),))
                ),
            },
        )()

    once, twice = line([1.0]), line([1.0, 3.0])
    M = 2.0 * np.eye(2)
    q0 = np.array([0.5, 0.4])
    np.testing.assert_allclose(
        integrators.project_position(M, twice, q0),
        integrators.project_position(M, once, q0),
        atol=1e-15,
    )
    v0 = np.array([1.0, -0.3])
    np.testing.assert_allclose(
        integrators.project_velocity(M, [n, 3 * n], v0),
        integrators.project_velocity(M, [n], v0),
        atol=1e-15,
    )
    F = np.array([0.0, -19.62])
    on_line = d * n + 0.3 * np.array([-0.8, 0.6])
    tangent = 1.2 * np.array([-0.8, 0.6])
    a = integrators.rattle_step(M, once, on_line, tangent, F, 0.1)
    b = integrators.rattle_step(M, twice, on_line, tangent, F, 0.1)
    np.testing.assert_allclose(b.q, a.q, atol=1e-15)
    np.testing.assert_allclose(b.v, a.v, atol=1e-15)
    # Same reaction, split by minimum norm: lambda (1, 3) / 10 for the rows n and 3 n.
    np.testing.assert_allclose(
        b.position_multiplier, a.position_multiplier * np.array([1, 3]) / 10, atol=1e-12
    )
    np.testing.assert_allclose(
        b.velocity_multiplier, a.velocity_multiplier * np.array([1, 3]) / 10, atol=1e-12
    )
