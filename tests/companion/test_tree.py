"""Tree dynamics: the seed's numbers, independent checks on branched trees, properties, bad input.

Every expected value comes from somewhere other than the code under test: the chapter's
closed forms, particle sums, body Jacobians, dense linear algebra, finite differences of
energy and momentum, or a re-expression of the same mechanism in other body frames.
The random trees are branched, with rotated and offset placements, non-parallel axes
that miss the body origins, and a mix of revolute, prismatic and helical joints.
"""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples
from trees import (
    batch_shapes,
    random_rotation,
    random_spec,
    random_states,
    spatial_inertia,
    tree_specs,
    two_link_spec,
)

from geomotion import inertia, models, spatial, tree

# ---------------------------------------------------------------------------
# The chapter's two-link teaching mechanism
# ---------------------------------------------------------------------------

M_AT_ZERO = np.array([[0.9175, 0.2175], [0.2175, 0.0675]])


def two_link_closed_form(q2):
    """M(q2) from differentiating the two centre-of-mass positions (the chapter's result)."""
    c = np.cos(q2)
    M = np.empty(np.shape(q2) + (2, 2))
    M[..., 0, 0] = 0.6175 + 0.3 * c
    M[..., 0, 1] = M[..., 1, 0] = 0.0675 + 0.15 * c
    M[..., 1, 1] = 0.0675
    return M


@pytest.fixture(scope="module")
def two_link():
    return two_link_spec().tree()


def test_seed_listing_prepared_tree_reproduces_the_chapter():
    first = inertia.spatial_inertia(2.0, [0.3, 0, 0], np.diag([0.05, 0.05, 0.01]))
    second = inertia.spatial_inertia(1.0, [0.25, 0, 0], np.diag([0.02, 0.02, 0.005]))
    pose_12 = np.eye(4)
    pose_12[0, 3] = 0.6  # link-2 origin in link 1, m
    prepared = tree.PreparedTree(
        parents=(-1, 0),
        transform=np.array([np.eye(6), spatial.motion_transform(np.linalg.inv(pose_12))]),
        subspace=np.tile([0, 0, 1, 0, 0, 0], (2, 1)),
        inertia=np.array([first, second]),
    )
    mass = tree.joint_mass_matrix(prepared)
    rates = np.array([1.0, -2.0])  # rad/s
    np.testing.assert_allclose(mass, M_AT_ZERO, rtol=0, atol=1e-14)
    assert rates @ mass @ rates / 2 == pytest.approx(0.15875, abs=1e-14)  # J


def test_seed_mass_matrix_at_zero_by_prepared_tree_and_by_crba(two_link):
    q = np.zeros(2)
    np.testing.assert_allclose(
        tree.joint_mass_matrix(tree.prepare(two_link, q)), M_AT_ZERO, rtol=0, atol=1e-14
    )
    np.testing.assert_allclose(tree.crba(two_link, q), M_AT_ZERO, rtol=0, atol=1e-14)


@pytest.mark.parametrize("shape", [(7, 9), (13, 17)])  # 63 and 221 configurations: both code paths
def test_seed_closed_form_over_a_grid_of_both_angles(two_link, shape):
    q1, q2 = np.meshgrid(
        np.linspace(-np.pi, np.pi, shape[0]), np.linspace(-3, 3.5, shape[1]), indexing="ij"
    )
    q = np.stack([q1, q2], axis=-1)
    expected = two_link_closed_form(q2)  # independent of q1
    np.testing.assert_allclose(tree.crba(two_link, q), expected, rtol=0, atol=1e-13)
    np.testing.assert_allclose(
        tree.joint_mass_matrix(tree.prepare(two_link, q)), expected, rtol=0, atol=1e-13
    )


def test_seed_quarter_turn_entries(two_link):
    M = tree.crba(two_link, [0.4, np.pi / 2])
    assert M[0, 0] == pytest.approx(0.6175, abs=1e-14)
    assert M[0, 1] == pytest.approx(0.0675, abs=1e-14)
    assert M[1, 0] == pytest.approx(0.0675, abs=1e-14)
    assert M[1, 1] == pytest.approx(0.0675, abs=1e-14)


def test_seed_kinetic_energy_at_rates_one_minus_two(two_link):
    q, rates = np.zeros(2), np.array([1.0, -2.0])
    M = tree.crba(two_link, q)
    assert rates @ M @ rates / 2 == pytest.approx(0.15875, abs=1e-14)
    assert tree.kinetic_energy(two_link, q, rates) == pytest.approx(0.15875, abs=1e-14)


def test_seed_first_link_inertia_is_the_chapters_matrix(two_link):
    expected = np.array(
        [
            [0.05, 0, 0, 0, 0, 0],
            [0, 0.23, 0, 0, 0, -0.6],
            [0, 0, 0.19, 0, 0.6, 0],
            [0, 0, 0, 2, 0, 0],
            [0, 0, 0.6, 0, 2, 0],
            [0, -0.6, 0, 0, 0, 2],
        ]
    )
    np.testing.assert_allclose(two_link.inertias[0], expected, rtol=0, atol=1e-15)


# ---------------------------------------------------------------------------
# Random branched trees
# ---------------------------------------------------------------------------

SPECS = {
    "mixed": dict(seed=11, n=9, kinds="rph", roots=2),
    "revolute": dict(seed=12, n=8, kinds="r", roots=1),
    "prismatic-helical": dict(seed=13, n=7, kinds="ph", roots=1),
    "mixed-one-root": dict(seed=14, n=10, kinds="rph", roots=1),
}


def make(name):
    params = SPECS[name]
    rng = np.random.default_rng(params["seed"])
    spec = random_spec(rng, params["n"], params["kinds"], branched=True, roots=params["roots"])
    return spec, spec.tree()


@pytest.fixture(scope="module", params=sorted(SPECS))
def random_tree(request):
    return make(request.param)


def states(n, batch, seed=0, scale=1.5):
    rng = np.random.default_rng(seed)
    return tuple(rng.uniform(-scale, scale, batch + (n,)) for _ in range(3))


def test_random_trees_are_branched_offset_and_non_parallel(random_tree):
    spec, model = random_tree
    children = np.bincount([p for p in spec.parents if p >= 0], minlength=spec.n)
    assert children.max() >= 2 or spec.parents.count(-1) >= 2  # a real branch point
    S = model.screws
    moments = np.linalg.norm(S[:, 3:], axis=1)
    assert np.all(moments > 1e-3)  # no axis through its body origin, no zero offsets
    # Joint directions in base axes at q = 0 (rotations chained by hand): singular values
    # of the stacked unit directions are (sqrt(N), 0, 0) if all are parallel.
    R_base = []
    for R, p in zip(spec.rotations, spec.parents):
        R_base.append(R if p < 0 else R_base[p] @ R)
    directions = np.einsum("kij,kj->ki", np.array(R_base), spec.axes)
    spread = np.linalg.svd(directions, compute_uv=False) / np.sqrt(spec.n)
    assert spread[1] > 0.3 and spread[2] > 0.1  # not all parallel, not even all in one plane


def test_particle_sums_match_half_qd_M_qd(random_tree):
    spec, model = random_tree
    q, qd, _ = states(spec.n, (4,), seed=1)
    M = tree.crba(model, q)
    V = tree.body_twists(model, q, qd)
    particles = [
        inertia.particle_model(m, c, Ic)
        for m, c, Ic in zip(spec.masses, spec.coms, spec.inertias_com)
    ]
    K = sum(
        inertia.particle_kinetic_energy(p.masses, p.positions, V[:, i])
        for i, p in enumerate(particles)
    )
    # Achieved: 3.5e-15 and 8e-16 relative.
    np.testing.assert_allclose(K, 0.5 * np.einsum("bi,bij,bj->b", qd, M, qd), rtol=1e-13)
    np.testing.assert_allclose(tree.kinetic_energy(model, q, qd), K, rtol=3e-14)


def test_body_jacobian_energy_matches_crba(random_tree):
    spec, model = random_tree
    q, _, _ = states(spec.n, (5,), seed=2)
    J = tree.body_jacobians(model, q)
    M_from_jacobians = np.einsum("bkix,kij,bkjy->bxy", J, spec.spatial_inertias(), J)
    np.testing.assert_allclose(tree.crba(model, q), M_from_jacobians, rtol=0, atol=1e-12)  # 5e-14


def test_body_twists_are_jacobians_times_rates(random_tree):
    spec, model = random_tree
    q, qd, _ = states(spec.n, (3,), seed=3)
    np.testing.assert_allclose(
        tree.body_twists(model, q, qd),
        np.einsum("bkij,bj->bki", tree.body_jacobians(model, q), qd),
        rtol=0,
        atol=2e-14,  # achieved 9e-16
    )


def test_rnea_columns_are_mass_matrix_columns(random_tree):
    spec, model = random_tree
    q, _, _ = states(spec.n, (), seed=4)
    eye = np.eye(spec.n)
    columns = tree.rnea(model, q, np.zeros(spec.n), eye, gravity=(0, 0, 0))  # row j = M e_j
    np.testing.assert_allclose(columns.T, tree.crba(model, q), rtol=0, atol=2e-13)  # 7e-15


def test_aba_matches_a_dense_solve(random_tree):
    spec, model = random_tree
    q, qd, tau = states(spec.n, (6,), seed=5)
    M = tree.crba(model, q)
    bias = tree.bias_forces(model, q, qd, gravity=(0.5, -1.0, -9.81))
    expected = np.linalg.solve(M, (tau - bias)[..., None])[..., 0]
    np.testing.assert_allclose(
        tree.aba(model, q, qd, tau, gravity=(0.5, -1.0, -9.81)), expected, rtol=0, atol=3e-12
    )


def test_rnea_inverts_aba(random_tree):
    spec, model = random_tree
    q, qd, tau = states(spec.n, (8,), seed=6)
    qdd = tree.aba(model, q, qd, tau)
    np.testing.assert_allclose(tree.rnea(model, q, qd, qdd), tau, rtol=0, atol=1e-12)  # 4e-14


def test_bias_forces_are_rnea_at_zero_acceleration_with_external_wrenches(random_tree):
    # With gravity and nonzero wrenches in both frames, so that a bias_forces dropping
    # f_ext or its frame differs from rnea by J^T F (order 1 here).
    spec, model = random_tree
    q, qd, _ = states(spec.n, (3,), seed=7)
    wrenches = np.random.default_rng(17).normal(size=(3, spec.n, 6))
    for frame in ("body", "world"):
        np.testing.assert_allclose(
            tree.bias_forces(
                model, q, qd, gravity=(1.0, 0.5, -9.81), f_ext=wrenches, f_ext_frame=frame
            ),
            tree.rnea(
                model,
                q,
                qd,
                np.zeros_like(q),
                gravity=(1.0, 0.5, -9.81),
                f_ext=wrenches,
                f_ext_frame=frame,
            ),
            rtol=0,
            atol=1e-14,
        )


def test_bias_forces_of_a_force_on_the_teaching_arm_by_hand():
    # A force f = (fx, fy, 0) N on link 2 at r = (d, 0, 0) in link 2's frame, i.e. at
    # p = (L1 c1 + d c12, L1 s1 + d s12).  Its generalized force is J^T f with the point
    # Jacobian J = [[-L1 s1 - d s12, -d s12], [L1 c1 + d c12, d c12]], so the bias drops
    # by J^T f.  Body frame: force R^T f, moment r x R^T f; world frame: f and p x f.
    arm = models.two_link_teaching_arm()
    q, qd = np.array([0.7, -1.1]), np.array([1.3, -0.4])
    L1, d, f = models.TWO_LINK_L1, 0.45, np.array([3.0, -2.0, 0.0])
    c1, s1, c12, s12 = np.cos(q[0]), np.sin(q[0]), np.cos(q.sum()), np.sin(q.sum())
    p = np.array([L1 * c1 + d * c12, L1 * s1 + d * s12, 0.0])
    J = np.array([[-L1 * s1 - d * s12, -d * s12], [L1 * c1 + d * c12, d * c12]])
    R = np.array([[c12, -s12, 0.0], [s12, c12, 0.0], [0.0, 0.0, 1.0]])
    f_body, r = R.T @ f, np.array([d, 0.0, 0.0])
    wrenches = {
        "body": np.array([np.zeros(6), np.concatenate([np.cross(r, f_body), f_body])]),
        "world": np.array([np.zeros(6), np.concatenate([np.cross(p, f), f])]),
    }
    free = tree.bias_forces(arm, q, qd)
    for frame, wrench in wrenches.items():
        loaded = tree.bias_forces(arm, q, qd, f_ext=wrench, f_ext_frame=frame)
        np.testing.assert_allclose(loaded - free, -J.T @ f[:2], rtol=0, atol=1e-14)


def test_prepared_tree_path_matches_crba(random_tree):
    spec, model = random_tree
    q, _, _ = states(spec.n, (4,), seed=8)
    np.testing.assert_allclose(
        tree.joint_mass_matrix(tree.prepare(model, q)), tree.crba(model, q), rtol=0, atol=1e-12
    )


def test_root_composite_inertia_is_the_sum_of_all_body_inertias():
    spec, model = make("mixed-one-root")
    q, _, _ = states(spec.n, (), seed=9)
    IC = tree.composite_inertias(tree.prepare(model, q))
    T = tree.forward_kinematics(model, q)
    total = sum(inertia.transform_inertia(I, T[i]) for i, I in enumerate(spec.spatial_inertias()))
    np.testing.assert_allclose(
        inertia.transform_inertia(IC[0], T[0]),
        total,
        rtol=0,
        atol=3e-13,  # achieved 9e-15
    )


def test_mass_matrix_is_independent_of_the_body_frames_chosen():
    """Re-express every body in another frame (placements, screws, inertias follow): same M, tau, qdd."""
    spec, model = make("mixed")
    rng = np.random.default_rng(21)
    G = np.array(
        [spatial.pose(random_rotation(rng), rng.uniform(-0.5, 0.5, 3)) for _ in range(spec.n)]
    )
    P = spec.placements()
    moved_P = np.empty_like(P)
    for i, p in enumerate(spec.parents):
        parent_G_inv = np.linalg.inv(G[p]) if p >= 0 else np.eye(4)
        moved_P[i] = parent_G_inv @ P[i] @ G[i]
    moved_S = np.einsum("kij,kj->ki", spatial.inverse_motion_transform(G), model.screws)
    moved_I = np.array(
        [inertia.transform_inertia(I, np.linalg.inv(g)) for I, g in zip(spec.spatial_inertias(), G)]
    )
    moved = tree.Tree(spec.parents, moved_S, moved_P, moved_I)
    q, qd, qdd = states(spec.n, (3,), seed=10)
    # Achieved: 1.1e-14, 4.3e-14 absolute; 1.2e-13 relative for the accelerations.
    np.testing.assert_allclose(tree.crba(moved, q), tree.crba(model, q), rtol=0, atol=3e-13)
    np.testing.assert_allclose(
        tree.rnea(moved, q, qd, qdd), tree.rnea(model, q, qd, qdd), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        tree.aba(moved, q, qd, qdd), tree.aba(model, q, qd, qdd), rtol=3e-12, atol=1e-13
    )


# --- kinematics -------------------------------------------------------------


def derivative(f, h=1e-3):
    """Fourth-order central difference of f(t) at t = 0."""
    return (-f(2 * h) + 8 * f(h) - 8 * f(-h) + f(-2 * h)) / (12 * h)


#: Body twists of ~3 rad/s, m/s from poses by :func:`derivative`: 3e-13 achieved.
ATOL_FD_KINEMATICS = 1e-11


def vee_body_velocity(T, Tdot):
    """Body twist (omega, v) from T^-1 dT/dt."""
    R, Rdot, pdot = T[:3, :3], Tdot[:3, :3], Tdot[:3, 3]
    W = R.T @ Rdot
    return np.concatenate([[W[2, 1], W[0, 2], W[1, 0]], R.T @ pdot])


def test_forward_kinematics_differentiates_to_the_body_twists():
    spec, model = make("mixed")
    q, qd, _ = states(spec.n, (), seed=11)
    Tdot = derivative(lambda t: tree.forward_kinematics(model, q + t * qd))
    T0 = tree.forward_kinematics(model, q)
    V = tree.body_twists(model, q, qd)
    for i in range(spec.n):
        np.testing.assert_allclose(
            vee_body_velocity(T0[i], Tdot[i]), V[i], rtol=0, atol=ATOL_FD_KINEMATICS
        )


def test_joint_transforms_are_relative_poses_of_forward_kinematics():
    spec, model = make("mixed")
    q, _, _ = states(spec.n, (), seed=12)
    T = tree.forward_kinematics(model, q)
    X = tree.joint_transforms(model, q)
    for i, p in enumerate(spec.parents):
        T_parent_i = T[i] if p < 0 else np.linalg.inv(T[p]) @ T[i]
        np.testing.assert_allclose(
            X[i],
            spatial.inverse_motion_transform(T_parent_i),
            rtol=0,
            atol=2e-14,  # 6e-16
        )


def test_helical_joint_advances_by_its_pitch():
    S = np.array(
        [[0.0, 0.0, 2.0, 0.0, 0.0, 0.6]]
    )  # |omega| = 2 per unit q, pitch 1.2 / 2^2 = 0.3 m/rad
    body = spatial_inertia(1.0, np.array([0.1, 0.0, 0.0]), np.diag([0.01, 0.02, 0.03]))
    model = tree.Tree([-1], S, np.eye(4)[None], body[None])
    T = tree.forward_kinematics(model, [0.5])[0]
    np.testing.assert_allclose(T[:3, :3], spatial.rot_z(1.0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(T[:3, 3], [0, 0, 0.3 * 1.0], rtol=0, atol=1e-15)  # 1 rad turned


# --- energy and momentum ----------------------------------------------------


def test_energy_rate_equals_joint_power_plus_external_power():
    spec, model = make("mixed")
    q0, qd0, qdd0 = states(spec.n, (), seed=13, scale=1.0)
    g = np.array([0.4, -0.7, -9.81])
    wrenches = np.random.default_rng(14).normal(size=(spec.n, 6))  # body coordinates

    def energy(t):
        q, qd = q0 + qd0 * t + 0.5 * qdd0 * t**2, qd0 + qdd0 * t
        return tree.kinetic_energy(model, q, qd) + tree.potential_energy(model, q, gravity=g)

    tau = tree.rnea(model, q0, qd0, qdd0, gravity=g, f_ext=wrenches)
    external_power = np.einsum("ki,ki->", tree.body_twists(model, q0, qd0), wrenches)
    # Achieved 1e-11: the difference formula's rounding (h = 1e-3) on energies of ~10 J.
    assert derivative(energy) == pytest.approx(qd0 @ tau + external_power, rel=0, abs=3e-10)


def test_gravity_torques_are_the_gradient_of_potential_energy():
    spec, model = make("mixed")
    q, _, _ = states(spec.n, (), seed=15)
    g = np.array([0.0, 2.0, -9.81])
    grad = np.array(
        [
            derivative(lambda t, e=e: tree.potential_energy(model, q + t * e, gravity=g))
            for e in np.eye(spec.n)
        ]
    )
    np.testing.assert_allclose(
        tree.rnea(model, q, np.zeros(spec.n), np.zeros(spec.n), gravity=g),
        grad,
        rtol=0,
        atol=1e-10,  # achieved 2e-12 to 7e-12 (difference formula)
    )


def test_momentum_rate_balances_root_joint_force():
    """Newton-Euler for the whole tree about the base origin, in base axes:

    dP/dt = F_base + sum_i (c_i x m_i g, m_i g) + sum_i F^ext_i, and the root joint
    transmits F_base, whose component along the root's joint screw s_0 (base
    coordinates) is the root joint force: tau_0 = s_0 . (dP/dt - gravity - external).
    """
    spec, model = make("mixed-one-root")
    q0, qd0, qdd0 = states(spec.n, (), seed=16, scale=1.0)
    g = np.array([0.3, 0.2, -9.81])
    wrenches = np.random.default_rng(17).normal(
        size=(spec.n, 6)
    )  # base coordinates, about base origin

    def momentum(t):
        return tree.spatial_momentum(model, q0 + qd0 * t + 0.5 * qdd0 * t**2, qd0 + qdd0 * t)

    T = tree.forward_kinematics(model, q0)
    centres = np.einsum("kij,kj->ki", T[:, :3, :3], spec.coms) + T[:, :3, 3]
    gravity = sum(np.concatenate([np.cross(c, m * g), m * g]) for c, m in zip(centres, spec.masses))
    s0 = spatial.motion_transform(T[0]) @ model.screws[0]
    tau = tree.rnea(model, q0, qd0, qdd0, gravity=g, f_ext=wrenches, f_ext_frame="world")
    assert s0 @ (derivative(momentum) - gravity - wrenches.sum(axis=0)) == pytest.approx(
        tau[0],
        rel=0,
        abs=2e-10,  # achieved 6e-12 (difference formula)
    )


def test_spatial_momentum_is_the_sum_of_particle_momenta():
    spec, model = make("mixed")
    q, qd, _ = states(spec.n, (), seed=18)
    T = tree.forward_kinematics(model, q)
    V = tree.body_twists(model, q, qd)
    total = np.zeros(6)
    for i in range(spec.n):
        particles = inertia.particle_model(spec.masses[i], spec.coms[i], spec.inertias_com[i])
        masses, positions = particles.masses, particles.positions
        R, p = T[i, :3, :3], T[i, :3, 3]
        for mass, r in zip(masses, positions):
            velocity = R @ (V[i, 3:] + np.cross(V[i, :3], r))  # base axes
            position = R @ r + p
            total += mass * np.concatenate([np.cross(position, velocity), velocity])
    np.testing.assert_allclose(
        tree.spatial_momentum(model, q, qd),
        total,
        rtol=0,
        atol=2e-13,  # achieved 5e-15
    )


def test_precision_does_not_depend_on_the_distance_from_the_base_origin():
    """A tree 1 km from the base origin: same relative accuracy as one at the origin."""
    spec = random_spec(np.random.default_rng(33), 8, "rph", roots=2)
    spec.offsets[0] = [1000.0, -800.0, 500.0]
    spec.offsets[1] = [-700.0, 900.0, 20.0]
    model = spec.tree()
    for batch in ((4,), (130,)):  # both code paths
        q, qd, qdd = states(spec.n, batch, seed=34)
        J = tree.body_jacobians(model, q)
        M = np.einsum("bkix,kij,bkjy->bxy", J, model.inertias, J)
        np.testing.assert_allclose(tree.crba(model, q), M, rtol=0, atol=1e-13 * np.abs(M).max())
        tau = tree.rnea(model, q, qd, qdd)
        np.testing.assert_allclose(tree.aba(model, q, qd, tau), qdd, rtol=0, atol=5e-13)  # 1e-14
        body = np.random.default_rng(35).normal(size=batch + (spec.n, 6))
        world = np.einsum(
            "...kij,...kj->...ki", spatial.force_transform(tree.forward_kinematics(model, q)), body
        )
        np.testing.assert_allclose(
            tree.rnea(model, q, qd, qdd, f_ext=world, f_ext_frame="world"),
            tree.rnea(model, q, qd, qdd, f_ext=body),
            rtol=0,
            atol=5e-11,  # achieved 1.2e-12: the world moments are ~1e3 times the body ones
        )


# --- external wrenches ------------------------------------------------------


def test_external_wrenches_in_body_and_world_frames_agree(random_tree):
    spec, model = random_tree
    q, qd, qdd = states(spec.n, (3,), seed=19)
    body = np.random.default_rng(20).normal(size=(3, spec.n, 6))
    world = np.einsum(
        "bkij,bkj->bki", spatial.force_transform(tree.forward_kinematics(model, q)), body
    )
    np.testing.assert_allclose(
        tree.rnea(model, q, qd, qdd, f_ext=body),
        tree.rnea(model, q, qd, qdd, f_ext=world, f_ext_frame="world"),
        rtol=0,
        atol=5e-13,  # achieved 1.4e-14
    )
    np.testing.assert_allclose(
        tree.aba(model, q, qd, qdd, f_ext=body),
        tree.aba(model, q, qd, qdd, f_ext=world, f_ext_frame="world"),
        rtol=0,
        atol=2e-12,  # achieved 4e-14
    )


def test_external_wrenches_enter_through_the_jacobian_transpose(random_tree):
    spec, model = random_tree
    q, qd, qdd = states(spec.n, (2,), seed=21)
    wrenches = np.random.default_rng(22).normal(size=(2, spec.n, 6))
    J = tree.body_jacobians(model, q)
    change = tree.rnea(model, q, qd, qdd, f_ext=wrenches) - tree.rnea(model, q, qd, qdd)
    np.testing.assert_allclose(
        change,
        -np.einsum("bkij,bki->bj", J, wrenches),
        rtol=0,
        atol=1e-12,  # achieved 3e-14
    )


# --- batches and the two code paths -----------------------------------------


def test_a_batch_equals_one_call_per_configuration(random_tree):
    spec, model = random_tree
    q, qd, qdd = states(spec.n, (150,), seed=23)  # large enough for the batch path
    wrenches = np.random.default_rng(24).normal(size=(150, spec.n, 6))
    M, tau = tree.crba(model, q), tree.rnea(model, q, qd, qdd, f_ext=wrenches)
    acc = tree.aba(model, q, qd, qdd, f_ext=wrenches, f_ext_frame="world")
    for b in (0, 77, 149):
        # Achieved: 1.7e-14, 1.1e-13, 1.4e-12 (accelerations up to ~100 rad/s^2).
        np.testing.assert_allclose(M[b], tree.crba(model, q[b]), rtol=0, atol=5e-13)
        np.testing.assert_allclose(
            tau[b], tree.rnea(model, q[b], qd[b], qdd[b], f_ext=wrenches[b]), rtol=0, atol=3e-12
        )
        np.testing.assert_allclose(
            acc[b],
            tree.aba(model, q[b], qd[b], qdd[b], f_ext=wrenches[b], f_ext_frame="world"),
            rtol=0,
            atol=5e-11,
        )


@pytest.mark.parametrize("frame", ["body", "world"])
def test_a_batch_and_its_configurations_one_at_a_time_agree(random_tree, frame):
    # one call runs the five configurations as one block of five lanes, each single call
    # as a block of one lane: the same recursion whatever the block's width
    spec, model = random_tree
    q, qd, qdd = states(spec.n, (5,), seed=25)
    wrenches = np.random.default_rng(26).normal(size=(5, spec.n, 6))
    g = (1.0, 0.5, -9.81)

    def all_three(q, qd, qdd, wrenches):
        return (
            tree.crba(model, q),
            tree.rnea(model, q, qd, qdd, gravity=g, f_ext=wrenches, f_ext_frame=frame),
            tree.aba(model, q, qd, qdd, gravity=g, f_ext=wrenches, f_ext_frame=frame),
        )

    together = all_three(q, qd, qdd, wrenches)
    for b in range(5):
        for batched, alone in zip(together, all_three(q[b], qd[b], qdd[b], wrenches[b])):
            np.testing.assert_allclose(batched[b], alone, rtol=0, atol=3e-11)


def test_leading_axes_broadcast():
    spec, model = make("mixed")
    q, qd, qdd = states(spec.n, (2, 3), seed=27)
    tau = tree.rnea(model, q, qd[0, 0], qdd[:1])  # (2, 3, N), (N,), (1, 3, N)
    assert tau.shape == (2, 3, spec.n)
    np.testing.assert_allclose(
        tau[1, 2], tree.rnea(model, q[1, 2], qd[0, 0], qdd[0, 2]), rtol=0, atol=1e-13
    )
    assert tree.crba(model, q).shape == (2, 3, spec.n, spec.n)
    assert tree.aba(model, q, qd, qdd).shape == (2, 3, spec.n)
    assert tree.body_jacobians(model, q).shape == (2, 3, spec.n, 6, spec.n)
    assert tree.spatial_momentum(model, q, qd).shape == (2, 3, 6)


def test_batch_results_do_not_depend_on_earlier_calls():
    """The batch path reuses work arrays between calls: no result may live in them."""
    spec, model = make("mixed")
    q, qd, qdd = states(spec.n, (120,), seed=28)
    first = [tree.crba(model, q), tree.rnea(model, q, qd, qdd), tree.aba(model, q, qd, qdd)]
    saved = [result.copy() for result in first]  # for comparison only: `first` stays as returned
    # Same batch size, so the same work arrays are handed out again; then other sizes.
    later = [
        tree.crba(model, 2 * q),
        tree.rnea(model, -q, qd, 2 * qdd),
        tree.aba(model, q, -qd, qdd),
    ]
    later += [tree.aba(model, q[:100] * 2, qd[:100], qdd[:100]), tree.crba(model, q[:110])]
    for result, copy in zip(first, saved):
        np.testing.assert_array_equal(result, copy)
    for i, a in enumerate(first + later):
        for b in (first + later)[i + 1 :]:
            assert not np.shares_memory(a, b)
    np.testing.assert_array_equal(tree.rnea(model, q, qd, qdd), saved[1])


def test_concurrent_calls_on_one_model():
    spec, model = make("mixed")
    inputs = [states(spec.n, (120,), seed=s) for s in range(4)]
    expected = [tree.rnea(model, *x) for x in inputs]
    results = [None] * 4

    def work(i):
        for _ in range(3):
            results[i] = tree.rnea(model, *inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r, e)


# --- singular ideal bodies --------------------------------------------------


def test_point_masses_and_thin_rods_need_permission_and_then_work():
    spec = random_spec(np.random.default_rng(30), 5, "rp", roots=1)
    spec.inertias_com[1] = np.zeros((3, 3))  # point mass
    spec.inertias_com[3] = inertia.thin_rod_central_inertia(spec.masses[3], 0.4, axis=1)
    with pytest.raises(ValueError, match="inertias.*positive definite.*allow_singular_inertias"):
        spec.tree()
    model = spec.tree(allow_singular_inertias=True)
    q, qd, tau = states(spec.n, (3,), seed=31)
    J = tree.body_jacobians(model, q)
    np.testing.assert_allclose(
        tree.crba(model, q),
        np.einsum("bkix,kij,bkjy->bxy", J, model.inertias, J),
        rtol=0,
        atol=5e-14,  # achieved 1.6e-15
    )
    np.testing.assert_allclose(
        tree.rnea(model, q, qd, tree.aba(model, q, qd, tau)),
        tau,
        rtol=0,
        atol=2e-13,  # 6e-15
    )


# --- the model object -------------------------------------------------------


def test_tree_stores_read_only_copies():
    spec = random_spec(np.random.default_rng(32), 3, "r")
    inertias = spec.spatial_inertias()
    model = tree.Tree(spec.parents, spec.subspaces(), spec.placements(), inertias)
    inertias[0, 0, 0] += 1.0
    assert model.inertias[0, 0, 0] != inertias[0, 0, 0]
    with pytest.raises(ValueError):
        model.inertias[0, 0, 0] = 5.0
    with pytest.raises(AttributeError):
        model.parents = np.array([-1, 0, 0])
    assert model.num_bodies == 3
    np.testing.assert_allclose(model.masses, spec.masses, rtol=1e-15)
    np.testing.assert_allclose(model.centers_of_mass, spec.coms, rtol=0, atol=1e-16)


# ---------------------------------------------------------------------------
# Properties (hypothesis)
# ---------------------------------------------------------------------------

# Generated trees (structure, joint kinds, placements, bodies) and batches of states on
# both sides of the 96-configuration crossover, checked against the reference path.
# Tolerances are relative to the size of the terms compared; achieved (400 examples):
# 4e-15 for M, 5e-15 for joint forces, 5e-15 for energies.

PROPERTY_GRAVITY = np.array([0.5, -1.0, -9.81])
seeds = st.integers(0, 2**32 - 1)


def force_scale(M, qdd, *forces):
    """Size of the terms of M qdd + b = tau: max |M| |qdd| plus the largest of each force."""
    inertial = np.einsum("...ij,...j->...i", np.abs(M), np.abs(qdd))
    return np.abs(inertial).max() + sum(np.abs(f).max() for f in forces)


@settings(max_examples=examples(25))
@given(tree_specs(), batch_shapes, seeds)
def test_property_fast_paths_match_the_reference_path(spec, batch, seed):
    model = spec.tree()
    q, qd, qdd = random_states(seed, spec.n, batch)
    wrenches = np.random.default_rng(seed + 1).normal(size=batch + (spec.n, 6))  # body frames
    M_reference = tree.joint_mass_matrix(tree.prepare(model, q))
    np.testing.assert_allclose(
        tree.crba(model, q), M_reference, rtol=0, atol=2e-13 * np.abs(M_reference).max()
    )
    wrench_forces = np.einsum("...kij,...ki->...j", tree.body_jacobians(model, q), wrenches)
    expected = tree.reference.rnea(model, q, qd, qdd, gravity=PROPERTY_GRAVITY) - wrench_forces
    tau = tree.rnea(model, q, qd, qdd, gravity=PROPERTY_GRAVITY, f_ext=wrenches)
    scale = force_scale(M_reference, qdd, expected, wrench_forces)
    np.testing.assert_allclose(tau, expected, rtol=0, atol=2e-13 * scale)


@settings(max_examples=examples(25))
@given(tree_specs(), batch_shapes, seeds)
def test_property_rnea_inverts_aba(spec, batch, seed):
    model = spec.tree()
    q, qd, tau = random_states(seed, spec.n, batch)
    wrenches = np.random.default_rng(seed + 1).normal(size=batch + (spec.n, 6))
    qdd = tree.aba(model, q, qd, tau, gravity=PROPERTY_GRAVITY, f_ext=wrenches)
    # ABA's accelerations satisfy the reference equations of motion (backward error) ...
    M_reference = tree.joint_mass_matrix(tree.prepare(model, q))
    bias = tree.reference.rnea(model, q, qd, 0 * qd, gravity=PROPERTY_GRAVITY)
    wrench_forces = np.einsum("...kij,...ki->...j", tree.body_jacobians(model, q), wrenches)
    scale = force_scale(M_reference, qdd, bias, wrench_forces, tau)
    np.testing.assert_allclose(
        np.einsum("...ij,...j->...i", M_reference, qdd) + bias - wrench_forces,
        tau,
        rtol=0,
        atol=2e-13 * scale,
    )
    # ... and the fast RNEA maps them back to tau.
    np.testing.assert_allclose(
        tree.rnea(model, q, qd, qdd, gravity=PROPERTY_GRAVITY, f_ext=wrenches),
        tau,
        rtol=0,
        atol=1e-13 * scale,
    )


@settings(max_examples=examples(25))
@given(tree_specs(), batch_shapes, seeds)
def test_property_mass_matrix_is_symmetric_positive_definite_and_gives_the_energy(
    spec, batch, seed
):
    model = spec.tree()
    q, qd = random_states(seed, spec.n, batch, count=2)
    M = tree.crba(model, q)
    np.testing.assert_allclose(M, np.swapaxes(M, -1, -2), rtol=0, atol=1e-14 * np.abs(M).max())
    assert np.linalg.eigvalsh(M).min() > 0
    np.testing.assert_allclose(
        tree.kinetic_energy(model, q, qd),
        0.5 * np.einsum("...i,...ij,...j->...", qd, M, qd),
        rtol=2e-13,
    )


@settings(max_examples=examples(20))
@given(tree_specs(), batch_shapes, seeds)
def test_property_velocity_terms_do_no_work(spec, batch, seed):
    """qd . (C(q, qd) qd) = qd . Mdot qd / 2: the bias power equals half the rate of M along qd."""
    model = spec.tree()
    q, qd = random_states(seed, spec.n, batch, count=2)
    Mdot = derivative(lambda t: tree.crba(model, q + t * qd))
    coriolis = tree.bias_forces(model, q, qd, gravity=(0, 0, 0))
    # The difference formula achieves 7e-11 |M| |qd|^3 (truncation and rounding).
    scale = np.abs(tree.crba(model, q)).max() * np.abs(qd).max() ** 3
    np.testing.assert_allclose(
        np.einsum("...i,...i->...", qd, coriolis),
        0.5 * np.einsum("...i,...ij,...j->...", qd, Mdot, qd),
        rtol=0,
        atol=3e-9 * scale,
    )


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def good_arguments(n=3):
    spec = random_spec(np.random.default_rng(40), n, "rph")
    return dict(
        parents=spec.parents,
        joints=spec.subspaces(),
        placements=spec.placements(),
        inertias=spec.spatial_inertias(),
    )


def with_change(name, value):
    args = good_arguments()
    args[name] = value(args[name]) if callable(value) else value
    return args


def edit(array, index, value):
    array = np.array(array, dtype=float)
    array[index] = value
    return array


@pytest.mark.parametrize(
    "name, value, match",
    [
        ("parents", [-1, 2, 0], r"parents: expected parent-before-child.*parents\[1\] = 2"),
        ("parents", [0, 0, 1], r"parents: expected parent-before-child.*parents\[0\] = 0"),
        ("parents", [-1, 0, -2], r"parents\[2\] = -2"),
        ("parents", [[-1, 0, 1]], r"parents: expected a 1-D"),
        ("parents", [-1, 0.5, 1], r"parents: expected integer"),
        ("parents", [], r"parents: expected at least one body"),
        ("parents", [-1, 0], r"joints: expected 2 joints \(one per body\), got 3"),
        ("joints", lambda S: S[:, :5], r"joints: expected shape \(3, 6\)"),
        ("joints", lambda S: edit(S, 1, 0.0), r"joints\[1\]: expected a nonzero joint screw"),
        ("joints", lambda S: edit(S, (0, 2), np.nan), r"joints\[0\]: expected finite"),
        ("joints", "abc", r"joints: expected a sequence of 3 joints, got str"),
        (
            "joints",
            lambda S: [*S[:2], "ball"],
            r"joints\[2\]: expected a joint screw \(6,\) or a joint model",
        ),
        ("placements", lambda P: edit(P, (1, 0, 0), 1.5), r"placements.*rotation"),
        (
            "placements",
            lambda P: edit(P, (2, 3, 0), 0.1),
            r"placements: expected a homogeneous pose",
        ),
        ("placements", lambda P: P[:, :3], r"placements: expected shape \(3, 4, 4\)"),
        ("placements", lambda P: P[:2], r"placements: expected 3 poses"),
        (
            "inertias",
            lambda I: edit(I, (0, 0, 1), 0.3),
            r"inertias: expected a symmetric 6x6 inertia for body 0",
        ),
        (
            "inertias",
            lambda I: edit(I, (1, slice(3, 6), slice(3, 6)), 0.0),
            r"inertias: expected a positive mass.*body 1",
        ),
        (
            "inertias",
            lambda I: edit(I, (1, slice(3, 6), slice(3, 6)), -np.eye(3)),
            r"inertias: expected a positive mass.*body 1",
        ),
        (
            "inertias",
            lambda I: edit(I, (2, 3, 3), I[2, 3, 3] + 0.5),
            r"inertias: expected the lower-right block of body 2 to be m\*I3",
        ),
        (
            "inertias",
            lambda I: edit(edit(I, (0, 0, 4), I[0, 0, 4] + 0.2), (0, 4, 0), I[0, 4, 0] + 0.2),
            r"inertias: expected coupling blocks.*body 0",
        ),
        (
            "inertias",
            lambda I: np.array([spatial_inertia(1.0, np.zeros(3), np.diag([1.0, 1.0, 3.0]))] * 3),
            r"inertias: expected a physically realizable body 0",
        ),
        ("inertias", lambda I: I[:, :5, :5], r"inertias: expected shape \(3, 6, 6\)"),
        ("inertias", lambda I: edit(I, (0, 0, 0), np.inf), r"inertias: expected finite"),
    ],
)
def test_bad_tree_arguments_name_the_argument(name, value, match):
    wrong_type = (
        "expected real numbers" in match or "expected a sequence" in match or "joint model" in match
    )
    with pytest.raises(TypeError if wrong_type else ValueError, match=match):
        tree.Tree(**with_change(name, value))


def test_allow_singular_inertias_must_be_a_bool():
    with pytest.raises(ValueError, match="allow_singular_inertias: expected True or False"):
        tree.Tree(**good_arguments(), allow_singular_inertias="yes")


@pytest.fixture(scope="module")
def small_model():
    return tree.Tree(**good_arguments())


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m: tree.crba(m, np.zeros(4)), r"q: expected shape \(\.\.\., 3\)"),
        (lambda m: tree.crba(m, 0.0), r"q: expected shape \(\.\.\., 3\)"),
        (lambda m: tree.crba(m, [0.0, np.nan, 0.0]), r"q: expected finite"),
        (lambda m: tree.crba(m, ["a", "b", "c"]), r"q: expected real numbers"),
        (lambda m: tree.crba("model", np.zeros(3)), r"model: expected a geomotion.tree.Tree"),
        (lambda m: tree.rnea(m, np.zeros(3), [0, np.inf, 0], np.zeros(3)), r"v: expected finite"),
        (
            lambda m: tree.rnea(m, np.zeros(3), np.zeros(3), np.zeros(2)),
            r"a: expected shape \(\.\.\., 3\)",
        ),
        (lambda m: tree.rnea(m, np.zeros((2, 3)), np.zeros((4, 3)), np.zeros(3)), r"broadcast"),
        (
            lambda m: tree.rnea(m, np.zeros(3), np.zeros(3), np.zeros(3), gravity=(0, -9.81)),
            r"gravity: expected shape \(3,\)",
        ),
        (
            lambda m: tree.rnea(m, np.zeros(3), np.zeros(3), np.zeros(3), gravity=(0, 0, np.nan)),
            r"gravity: expected finite",
        ),
        (
            lambda m: tree.rnea(m, np.zeros(3), np.zeros(3), np.zeros(3), f_ext=np.zeros((3, 3))),
            r"f_ext: expected shape \(\.\.\., 3, 6\)",
        ),
        (
            lambda m: tree.rnea(
                m, np.zeros(3), np.zeros(3), np.zeros(3), f_ext=np.full((3, 6), np.nan)
            ),
            r"f_ext: expected finite",
        ),
        (
            lambda m: tree.rnea(m, np.zeros(3), np.zeros(3), np.zeros(3), f_ext_frame="base"),
            r"f_ext_frame: expected 'body' or 'world'",
        ),
        (
            lambda m: tree.aba(m, np.zeros(3), np.zeros(3), np.zeros(5)),
            r"tau: expected shape \(\.\.\., 3\)",
        ),
        (
            lambda m: tree.aba(m, np.zeros(3), np.zeros(3), np.zeros(3), f_ext_frame=None),
            r"f_ext_frame",
        ),
        (lambda m: tree.bias_forces(m, np.zeros(3), [1, 2]), r"v: expected shape \(\.\.\., 3\)"),
        (lambda m: tree.body_jacobians(m, np.zeros(2)), r"q: expected shape"),
        (lambda m: tree.body_twists(m, np.zeros(3), np.zeros(4)), r"v: expected shape"),
        (lambda m: tree.kinetic_energy(m, np.zeros(3), [np.nan] * 3), r"v: expected finite"),
        (
            lambda m: tree.potential_energy(m, np.zeros(3), gravity=[0, 0, 0, 1]),
            r"gravity: expected shape",
        ),
        (lambda m: tree.spatial_momentum(m, np.zeros(1), np.zeros(3)), r"q: expected shape"),
        (lambda m: tree.forward_kinematics(m, np.zeros(2)), r"q: expected shape"),
        (lambda m: tree.joint_transforms(m, [[0, 0]]), r"q: expected shape"),
        (lambda m: tree.prepare(m, np.zeros(5)), r"q: expected shape"),
        (lambda m: tree.composite_inertias(m), r"prepared: expected a geomotion.tree.PreparedTree"),
        (
            lambda m: tree.joint_mass_matrix("prepared"),
            r"prepared: expected a geomotion.tree.PreparedTree",
        ),
    ],
)
def test_bad_call_arguments_name_the_argument(small_model, call, match):
    wrong_type = "geomotion.tree.Tree" in match or "expected real numbers" in match
    with pytest.raises(TypeError if wrong_type else ValueError, match=match):
        call(small_model)


def prepared_arguments():
    model = tree.Tree(**good_arguments())
    p = tree.prepare(model, np.zeros(3))
    return dict(
        parents=p.parents,
        transform=np.array(p.transform),
        subspace=np.array(p.subspace),
        inertia=np.array(p.inertia),
    )


@pytest.mark.parametrize(
    "name, value, match",
    [
        ("parents", [-1, 1, 0], r"parents: expected parent-before-child"),
        (
            "transform",
            lambda X: edit(X, (1, 0, 4), 0.3),
            r"transform: expected motion transforms \[\[R, 0\]",
        ),
        (
            "transform",
            lambda X: edit(X, (1, 4, 4), 0.3),
            r"transform: expected motion transforms with equal diagonal blocks",
        ),
        ("transform", lambda X: 2.0 * X, r"transform\[\.\.\., :3, :3\]: expected a rotation"),
        (
            "transform",
            lambda X: edit(X, (2, 3, 0), X[2, 3, 0] + 0.4),
            r"transform: expected a lower-left block",
        ),
        ("transform", lambda X: X[:2], r"transform: expected shape \(\.\.\., 3, 6, 6\)"),
        ("transform", lambda X: edit(X, (0, 0, 0), np.nan), r"transform: expected finite"),
        ("subspace", lambda S: edit(S, 2, 0.0), r"subspace: expected nonzero joint screws.*body 2"),
        ("subspace", lambda S: S[:, :3], r"subspace: expected shape"),
        ("inertia", lambda I: edit(I, (1, 0, 2), I[1, 0, 2] + 0.1), r"inertia: expected symmetric"),
        (
            "inertia",
            lambda I: edit(I, (0, 5, 5), -4.0),
            r"inertia: expected positive semidefinite.*body 0",
        ),
        ("inertia", lambda I: I[:2], r"inertia: expected shape \(3, 6, 6\)"),
    ],
)
def test_bad_prepared_tree_arguments_name_the_argument(name, value, match):
    args = prepared_arguments()
    args[name] = value(args[name]) if callable(value) else value
    with pytest.raises(ValueError, match=match):
        tree.PreparedTree(**args)
