"""One rank rule in every constrained solve, and answers that do not depend on the batch.

The rank rule (``constraints.constraint_rank``): each row of J is divided by its norm, a
row shorter than rtol times the longest counts as zero, and the rank counts the singular
values of the scaled matrix above rtol times the largest.  Every solve path must apply it:
the certified Cholesky solve (``_linalg._independent_rows_lanes``) over row-major input
(``constraints.constrained_dynamics``) and inside the fused closed-loop pass
(``ClosureSet.forward_dynamics``), the rank-revealing SVD solve, and the integrators that
call them.  A row that vanishes up to rounding, as the out-of-plane row of a planar
mechanism drawn in a tilted plane, must be dropped, never scaled up into a constraint.

Checked against independent answers: the solve with the vanishing rows removed by hand
(the reduced solve), Pinocchio's proximal ``constraintDynamics`` on the same mechanism,
and the same mechanism drawn in its own plane with gravity turned along (the joint motion
cannot depend on how the whole scene is rotated).  Each element of a batch is solved on
its own: its answer, bit for bit, is its single call's.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space
from strategies import examples

from geomotion import _linalg, constraints, inertia, integrators, models, spatial, tree
from geomotion.tree import _closed_loop

pin = pytest.importorskip("pinocchio")

RTOL = 1e-10  # the rule's default


# ---------------------------------------------------------------------------
# A four-bar whose plane is tilted: the spherical closure's third row vanishes
# ---------------------------------------------------------------------------


def rod(mass, length, size=1.0):
    """A slender rod along body x: (m, c, I_C), with a little inertia about every axis
    (of a rod ``size`` times the reference four-bar's)."""
    I_C = np.diag([1e-4 * size**2, mass * length**2 / 12, mass * length**2 / 12])
    return mass, np.array([length / 2, 0.0, 0.0]), I_C + 1e-5 * size**2 * np.eye(3)


def four_bar(
    R0, crank=0.3, coupler=0.7, rocker=0.6, ground=(0.8, 0.1), gravity=(0, 0, -9.81), size=1.0
):
    """Crank (body 0), coupler (body 1) and rocker (body 2) turning about the z axis of
    a plane whose orientation is R0; the coupler's tip held to the rocker's tip by a
    spherical frame closure (three point rows, one of them out of the plane)."""
    P = spatial.pose
    ground = R0 @ np.array([*ground, 0.0])
    rods = [rod(1.0, crank, size), rod(1.5, coupler, size), rod(1.2, rocker, size)]
    model = tree.Tree(
        [-1, 0, -1],
        [tree.REVOLUTE_Z] * 3,
        [P(R0, np.zeros(3)), P(np.eye(3), [crank, 0, 0]), P(R0, ground)],
        [inertia.spatial_inertia(*r) for r in rods],
        gravity=gravity,
    )
    tips = (P(np.eye(3), [rocker, 0, 0]), P(np.eye(3), [coupler, 0, 0]))
    pin_closure = constraints.frame_closure(model, 2, tips[0], 1, tips[1], components="spherical")
    return model, constraints.ClosureSet([pin_closure]), rods


def closed_angles(theta1, crank=0.3, coupler=0.7, rocker=0.6, ground=(0.8, 0.1)):
    """Joint angles that close the loop, from plane geometry (two circles meeting), or
    None where the coupler cannot reach the rocker."""
    A = crank * np.array([np.cos(theta1), np.sin(theta1)])
    B = np.array(ground)
    d = np.linalg.norm(B - A)
    if not abs(coupler - rocker) < d < coupler + rocker:
        return None
    along = (coupler**2 - rocker**2 + d**2) / (2 * d)
    across = np.sqrt(coupler**2 - along**2)
    u = (B - A) / d
    tip = A + along * u + across * np.array([-u[1], u[0]])
    phi_coupler = np.arctan2(*(tip - A)[::-1])
    phi_rocker = np.arctan2(*(tip - B)[::-1])
    return np.array([theta1, phi_coupler - theta1, phi_rocker])


def kept_rows(J):
    """The rows the rule keeps: norm above RTOL times the longest (written out here)."""
    norms = np.linalg.norm(J, axis=-1)
    return norms > RTOL * norms.max()


def reduced_solve(model, closures, q, v, tau):
    """The constrained dynamics with the vanishing rows removed by hand."""
    rows = closures.jacobian_and_bias(q, v)
    J, gamma = rows.J_c, rows.gamma
    keep = kept_rows(J)
    M, h = tree.crba(model, q), tree.bias_forces(model, q, v)
    return constraints.constrained_dynamics(M, J[keep], h, gamma[keep], tau), keep


def pinocchio_four_bar(model, rods, R0, coupler, rocker):
    """The same four-bar in Pinocchio, closed by a CONTACT_3D constraint at the tips."""
    pm = pin.Model()
    parents = [0, 1, 0]
    for i in range(3):
        T = model.placements[i]
        jid = pm.addJoint(parents[i], pin.JointModelRZ(), pin.SE3(T[:3, :3], T[:3, 3]), f"j{i}")
        pm.appendBodyToJoint(jid, pin.Inertia(*rods[i]), pin.SE3.Identity())
    pm.gravity = pin.Motion(np.array(model.gravity), np.zeros(3))
    contact = pin.RigidConstraintModel(
        pin.ContactType.CONTACT_3D,
        pm,
        3,
        pin.SE3(np.eye(3), np.array([rocker, 0.0, 0.0])),
        2,
        pin.SE3(np.eye(3), np.array([coupler, 0.0, 0.0])),
        pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
    )
    return pm, contact


def pinocchio_accelerations(pm, contact, q, v, tau):
    models_, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    models_.append(contact)
    datas.append(contact.createData())
    data = pm.createData()
    pin.initConstraintDynamics(pm, data, models_, datas)
    settings_ = pin.ProximalSettings(1e-10, 1e-3, 10000)  # 1e-12 stalls at rounding
    a = np.array(pin.constraintDynamics(pm, data, q, v, tau, models_, datas, settings_))
    assert settings_.iter < 10000  # the proximal iterations converged
    return a


TILT = spatial.rot_x(0.7) @ spatial.rot_y(-0.4)


def test_the_reported_example_drops_its_vanishing_row():
    # The review's reproduction: q off the loop, the third row 4e-17 long.
    model, closures, _ = four_bar(TILT)
    q, v, tau = np.array([0.7, 1.9, 2.2]), np.array([0.4, -1.0, 0.3]), np.array([0.4, -0.2, 0.1])
    J = closures.jacobian(q)
    assert np.linalg.norm(J[2]) < 1e-15 and constraints.constraint_rank(J) == 2
    result = closures.forward_dynamics(q, v, tau)
    reduced, keep = reduced_solve(model, closures, q, v, tau)
    assert keep.tolist() == [True, True, False]
    assert result.rank == 2
    np.testing.assert_allclose(result.a, reduced.a, rtol=1e-12)
    np.testing.assert_allclose(result.a, [-10.86286202, 18.69415111, 2.34197038], rtol=1e-8)
    np.testing.assert_allclose(result.multiplier[:2], reduced.multiplier, rtol=1e-10)
    assert result.multiplier[2] == 0.0  # a dropped row carries no multiplier
    # the same rows given to constrained_dynamics directly
    M, h = tree.crba(model, q), tree.bias_forces(model, q, v)
    direct = constraints.constrained_dynamics(M, J, h, closures.acceleration_bias(q, v), tau)
    assert direct.rank == 2
    np.testing.assert_allclose(direct.a, reduced.a, rtol=1e-12)


@settings(max_examples=examples(25), suppress_health_check=[HealthCheck.too_slow])
@given(
    angles=st.tuples(*[st.floats(-np.pi, np.pi)] * 3),
    theta1=st.floats(-np.pi, np.pi),
    lengths=st.tuples(st.floats(0.2, 0.35), st.floats(0.6, 0.8), st.floats(0.5, 0.7)),
    seed=st.integers(0, 2**32 - 1),
)
def test_planar_mechanisms_in_tilted_planes_match_the_reduced_solve_and_pinocchio(
    angles, theta1, lengths, seed
):
    crank, coupler, rocker = lengths
    q = closed_angles(theta1, crank, coupler, rocker)
    if q is None:
        return  # the loop does not close at this crank angle
    R0 = spatial.rot_z(angles[0]) @ spatial.rot_y(angles[1]) @ spatial.rot_x(angles[2])
    model, closures, rods = four_bar(R0, crank, coupler, rocker)
    J = closures.jacobian(q)
    if np.linalg.svd(J, compute_uv=False)[1] < 1e-3 * np.abs(J).max():
        return  # a singular configuration of the loop (coupler and rocker aligned)
    rng = np.random.default_rng(seed)
    v = null_space(J[kept_rows(J)]) @ rng.normal(size=1)  # admissible rates
    tau = rng.uniform(-1.0, 1.0, 3)
    result = closures.forward_dynamics(q, v, tau)
    reduced, keep = reduced_solve(model, closures, q, v, tau)
    assert result.rank == constraints.constraint_rank(J) == keep.sum() == 2
    scale = np.abs(reduced.a).max()
    np.testing.assert_allclose(result.a, reduced.a, rtol=0, atol=1e-10 * scale)
    pm, contact = pinocchio_four_bar(model, rods, R0, coupler, rocker)
    a_pin = pinocchio_accelerations(pm, contact, q, v, tau)
    np.testing.assert_allclose(result.a, a_pin, rtol=0, atol=1e-8 * max(scale, 1.0))


def test_the_integrators_move_a_tilted_four_bar_as_the_untilted_one():
    # Rotating the whole scene (plane and gravity) cannot change the joint motion.  In
    # its own plane the out-of-plane row is exactly zero; tilted, it is rounding.
    g = np.array([0.0, -9.81, 0.0])
    q0 = closed_angles(0.7)
    flat, flat_closures, _ = four_bar(np.eye(3), gravity=g)
    tilted, tilted_closures, _ = four_bar(TILT, gravity=TILT @ g)
    v0 = null_space(flat_closures.jacobian(q0)[:2]) @ [1.5]
    for method, extra in [("projection", {}), ("baumgarte", {"alpha": 10.0, "beta": 10.0})]:
        runs = [
            integrators.simulate_constrained(
                model, closures, q0, v0, 1e-3, 200, method=method, **extra
            )
            for model, closures in ((flat, flat_closures), (tilted, tilted_closures))
        ]
        np.testing.assert_allclose(runs[1].q, runs[0].q, rtol=0, atol=1e-9)
        assert np.ptp(runs[0].q[:, 0]) > 0.2  # it moved


@pytest.mark.parametrize("k", [8, 9, 11, 12, 14, 16, 18, 20])
def test_rows_scaled_down_count_by_the_rule_in_every_path(k):
    # A row scaled by 10^-k (its bias with it: the same constraint in other units) is
    # kept above the rule's threshold (the answer is unchanged) and dropped below it
    # (the answer is the reduced solve's), by the certified and the SVD path alike.
    rng = np.random.default_rng(k)
    n, c = 7, 4
    A = rng.normal(size=(n, n))
    M = A @ A.T + n * np.eye(n)
    J = rng.normal(size=(c, n))
    J /= np.linalg.norm(J, axis=-1, keepdims=True)
    h, tau = rng.normal(size=(2, n))
    gamma = rng.normal(size=c)
    scale = np.ones(c)
    scale[2] = 10.0**-k
    scaled = constraints.constrained_dynamics(M, scale[:, None] * J, h, scale * gamma, tau)
    assert scaled.rank == constraints.constraint_rank(scale[:, None] * J)
    if 10.0**-k > RTOL:
        expected = constraints.constrained_dynamics(M, J, h, gamma, tau)
        assert scaled.rank == 4
    else:
        keep = np.arange(c) != 2
        expected = constraints.constrained_dynamics(M, J[keep], h, gamma[keep], tau)
        assert scaled.rank == 3
        assert scaled.multiplier[2] == 0.0
    np.testing.assert_allclose(scaled.a, expected.a, rtol=0, atol=1e-12 * np.abs(expected.a).max())


# ---------------------------------------------------------------------------
# Each element of a batch is solved on its own
# ---------------------------------------------------------------------------


def regular(rng, n=6, c=3):
    A = rng.normal(size=(n, n))
    M = A @ A.T + n * np.eye(n)
    return M, rng.normal(size=(c, n)), rng.normal(size=c), rng.normal(size=n), rng.normal(size=n)


def element(kind, rng):
    """(M, J, gamma, h, tau) of one kind: regular, nearly dependent rows (SVD path), a
    repeated row (redundant, consistent bias), a vanishing row, no rows at all (zero J)."""
    M, J, gamma, h, tau = regular(rng)
    if kind == "near":
        J[2] = J[1] + 1e-7 * rng.normal(size=J.shape[1])
    elif kind == "redundant":
        J[2], gamma[2] = 2.0 * J[1], 2.0 * gamma[1]
    elif kind == "vanishing":  # the row and its bias, as a row of rounding would be
        J[2], gamma[2] = 1e-13 * J[2], 1e-13 * gamma[2]
    elif kind == "zero":
        J[:], gamma[:] = 0.0, 0.0
    return M, J, gamma, h, tau


KINDS = ["regular", "near", "redundant", "vanishing", "zero"]


@settings(max_examples=examples(30))
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=70), seed=st.integers(0, 10**6))
def test_an_element_of_a_batch_is_solved_as_if_alone(kinds, seed):
    rng = np.random.default_rng(seed)
    M, J, gamma, h, tau = (np.stack(x) for x in zip(*(element(k, rng) for k in kinds)))
    batch = constraints.constrained_dynamics(M, J, h, gamma, tau)
    for i, kind in enumerate(kinds):
        alone = constraints.constrained_dynamics(M[i], J[i], h[i], gamma[i], tau[i])
        np.testing.assert_array_equal(batch.a[i], alone.a, err_msg=kind)
        np.testing.assert_array_equal(batch.multiplier[i], alone.multiplier, err_msg=kind)
        assert batch.rank[i] == alone.rank == constraints.constraint_rank(J[i]), kind


def test_the_reviewed_batch_no_longer_changes_an_answer():
    # The review: J = [[6e-13, 0], [-1.1, -0.5]] alone gave a multiplier of -3.5e12; next
    # to a singular element it gave another answer.  The first row counts as zero.
    M, tau = np.diag([2.0, 1.0]), np.array([1.0, -0.5])
    J = np.array([[6e-13, 0.0], [-1.1, -0.5]])
    alone = constraints.constrained_dynamics(M, J, 0.0, np.zeros(2), tau)
    batch = constraints.constrained_dynamics(
        np.stack([M, M]), np.stack([J, np.zeros((2, 2))]), 0.0, np.zeros((2, 2)), tau
    )
    assert alone.rank == constraints.constraint_rank(J) == 1
    np.testing.assert_array_equal(batch.a[0], alone.a)
    np.testing.assert_array_equal(batch.multiplier[0], alone.multiplier)
    assert alone.multiplier[0] == 0.0
    # the one-row problem by hand: a = M^-1 (tau + j lam), j . a = 0
    j = J[1]
    lam = -(j @ np.linalg.solve(M, tau)) / (j @ np.linalg.solve(M, j))
    np.testing.assert_allclose(alone.a, np.linalg.solve(M, tau + j * lam), rtol=1e-14)


def pinned_arm_states(kinds, rng):
    """States of the two-link arm whose tip is held at a point: regular, stretched out
    at rest (rank 1: both rows of J parallel, zero bias) and nearly stretched."""
    q, v = np.empty((len(kinds), 2)), np.empty((len(kinds), 2))
    for i, kind in enumerate(kinds):
        q[i] = rng.uniform(-2.0, 2.0, 2)
        v[i] = rng.normal(size=2)
        if kind == "stretched":
            q[i, 1], v[i] = 0.0, 0.0
        elif kind == "near":
            q[i, 1] = 1e-6
    return q, v


@settings(max_examples=examples(20))
@given(
    kinds=st.lists(st.sampled_from(["regular", "stretched", "near"]), min_size=1, max_size=80),
    seed=st.integers(0, 10**6),
)
def test_a_closed_loop_state_is_solved_as_if_alone(kinds, seed):
    arm = models.two_link_teaching_arm()
    tip, anchor = spatial.pose(np.eye(3), [0.5, 0, 0]), spatial.pose(np.eye(3), [0.8, 0.3, 0])
    held = constraints.ClosureSet(
        [constraints.frame_closure(arm, 1, tip, -1, anchor, components=(3, 4))]
    )
    rng = np.random.default_rng(seed)
    q, v = pinned_arm_states(kinds, rng)
    tau = rng.normal(size=(len(kinds), 2))
    batch = held.forward_dynamics(q, v, tau)
    for i, kind in enumerate(kinds):
        alone = held.forward_dynamics(q[i], v[i], tau[i])
        np.testing.assert_array_equal(batch.a[i], alone.a, err_msg=kind)
        np.testing.assert_array_equal(batch.multiplier[i], alone.multiplier, err_msg=kind)
        assert batch.rank[i] == alone.rank == constraints.constraint_rank(held.jacobian(q[i]))
    assert all(r == 1 for r, k in zip(np.atleast_1d(batch.rank), kinds) if k == "stretched")


def test_the_fused_pass_refuses_a_vanishing_row_and_certifies_the_others():
    # The kernel itself, below the public functions: a configuration whose third row is
    # rounding is not solved by the pass (the caller takes the SVD path); the two
    # in-plane rows alone are certified and solved.
    model, closures, _ = four_bar(TILT)
    q = np.stack([closed_angles(t) for t in (0.3, 1.2, 2.0)])
    zero = np.zeros(3)
    status = _closed_loop.run(closures._stack, q, zero, zero, (3,), RTOL)[2]
    assert (status == _linalg.ROWS_NOT_CERTIFIED).all()
    closure = closures.closures[0]
    in_plane = constraints.frame_closure(
        model, 2, closure.frame_a, 1, closure.frame_b, components=(3, 4)
    )
    status = _closed_loop.run(constraints.ClosureSet([in_plane])._stack, q, zero, zero, (3,), RTOL)[
        2
    ]
    assert (status == _linalg.SOLVED).all()


# ---------------------------------------------------------------------------
# The referee's cases (a second review of this layer)
# ---------------------------------------------------------------------------


def test_rows_of_very_different_lengths_are_solved_not_refused():
    # Two independent rows, 1e-9 and 1 long: the multiplier's QR takes the row norms
    # once (the normal equations squared them to a condition number of 1e18 and failed).
    # Two rows on two coordinates fix a by J a = -gamma alone: a = (-1, 7e5) by hand, and
    # J^T lambda = M a + h - tau then fixes lambda.
    M, J = np.diag([2.0, 3.0]), np.array([[1e-9, 0.0], [1.0, 1e-6]])
    h, gamma, tau = np.array([0.5, -1.0]), np.array([1e-9, 0.3]), np.array([1.0, 2.0])
    result = constraints.constrained_dynamics(M, J, h, gamma, tau)
    assert result.rank == constraints.constraint_rank(J) == 2
    np.testing.assert_allclose(result.a, [-1.0, 7e5], rtol=1e-9)
    lam_1 = (3.0 * 7e5 - 1.0 - 2.0) / 1e-6
    lam_0 = (2.0 * -1.0 + 0.5 - 1.0 - lam_1) / 1e-9
    # the scaled rows are nearly parallel (sigma ratio 5e-7): lambda to a few 1e-8
    np.testing.assert_allclose(result.multiplier, [lam_0, lam_1], rtol=1e-6)
    P = constraints.projectors(M, J).P_v
    np.testing.assert_allclose(J @ P, 0.0, atol=1e-12)
    assert np.abs(integrators.project_velocity(M, J, [1.0, 2.0])).max() < 1e-9


@pytest.mark.parametrize("scale", [1.0, 1e-3, 1e3])
def test_a_planar_closure_in_a_tilted_plane_has_no_rows_at_all(scale):
    # components="planar" keeps the three out-of-plane rows: all of them are rounding in
    # a tilted plane (each about 1e-16 long, so the rank rule alone, relative to the
    # longest row, would keep them).  They are zero up to the tree's own scale: the
    # closure constrains nothing and the motion is the unconstrained one.
    g = np.array([0.0, -9.81, 0.0])
    q = closed_angles(0.9)
    lengths = dict(crank=0.3 * scale, coupler=0.7 * scale, rocker=0.6 * scale)
    ground = (0.8 * scale, 0.1 * scale)
    for R0 in (np.eye(3), TILT):
        model, closures, _ = four_bar(R0, **lengths, ground=ground, gravity=R0 @ g, size=scale)
        closures = constraints.ClosureSet(
            [
                constraints.frame_closure(model, 2, c.frame_a, 1, c.frame_b, components="planar")
                for c in closures.closures
            ]
        )
        J = closures.jacobian(q)
        assert np.all(J == 0.0) and constraints.constraint_rank(J) == 0
        result = closures.forward_dynamics(np.stack([q, q]), np.zeros((2, 3)), 0.0)
        np.testing.assert_allclose(
            result.a, tree.aba(model, q, np.zeros(3), np.zeros(3))[None].repeat(2, 0), rtol=1e-12
        )
        assert result.rank.tolist() == [0, 0]
        assert np.all(closures.closures[0].jacobian(q) == 0.0)


def test_a_batch_of_jacobians_without_rows_is_solved():
    a = constraints.constrained_dynamics(np.eye(4), np.zeros((3, 0, 4)), 0, 0, np.ones(4)).a
    np.testing.assert_array_equal(a, np.ones((3, 4)))
    assert constraints.projectors(np.eye(4), np.zeros((3, 0, 4))).P_v.shape == (3, 4, 4)


def test_a_projected_configuration_does_not_depend_on_its_batch():
    # The Newton projection stops each element when it is within the tolerance, not when
    # the slowest element of the batch is.
    circle = constraints.FunctionConstraint(
        residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - 1.0),
        jacobian=lambda q: q[..., None, :],
        acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True),
    )
    Q = np.array([[0.66, 0.88], [0.6, 0.8000001], [2.0, 0.1]])
    both = integrators.project_position(2.0 * np.eye(2), circle, Q)
    for i in range(3):
        alone = integrators.project_position(2.0 * np.eye(2), circle, Q[i])
        np.testing.assert_array_equal(both[i], alone)


def test_the_rank_at_a_tie_is_the_rule_s_in_every_path():
    # rtol exactly at a row's relative length: the certified solve leaves such a row to
    # the rank-revealing solve, which counts by the rule's own numbers.
    from geomotion._linalg import _row_norms

    rng = np.random.default_rng(4)
    M = np.eye(3)
    for _ in range(200):
        J = rng.normal(size=(2, 3)) * [[1.0], [10.0 ** rng.uniform(-8, -2)]]
        norms = _row_norms(J)
        rtol = norms.min() / norms.max()
        result = constraints.constrained_dynamics(M, J, 0.0, np.zeros(2), np.ones(3), rtol=rtol)
        assert result.rank == constraints.constraint_rank(J, rtol=rtol)


def test_overflowing_multipliers_raise_naming_the_caller_s_arguments():
    for J in ([[1e-150, 0.0]], [[1e-150, 0.0], [2e-150, 0.0]]):
        with pytest.raises(FloatingPointError, match=r"^M, J_c, h, gamma, tau: the multipliers"):
            constraints.constrained_dynamics(np.eye(2), J, 0, 0, [1e200, 0.0])  # no warning first


@pytest.mark.parametrize("scale", [1e-165, 1e160])
def test_the_rank_rule_is_scale_free_down_to_underflow_and_up_to_overflow(scale):
    assert constraints.constraint_rank(scale * np.array([[1.0, 1.0], [1.0, -1.0]])) == 2
    assert constraints.constraint_rank(scale * np.array([[1.0, 1.0]])) == 1


def test_mass_matrix_errors_name_their_batch_element():
    M = np.stack([np.eye(2), -np.eye(2)])
    with pytest.raises(ValueError, match=r"smallest eigenvalue -1 at batch index \(1,\)"):
        constraints.constrained_dynamics(M, np.ones((1, 2)), 0.0, 0.0, 0.0)
    tiny = 1e-20 * np.array([[1.0, 0.5], [0.0, 1.0]])  # half asymmetric, at any scale
    with pytest.raises(ValueError, match="M: expected a symmetric matrix, got asymmetry 5e-21"):
        constraints.constrained_dynamics(tiny, np.ones((1, 2)), 0.0, 0.0, 0.0)
