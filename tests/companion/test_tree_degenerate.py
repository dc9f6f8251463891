"""Legal but degenerate trees and inputs: a correct answer or a clear error, never a huge or NaN number.

* A joint that moves no inertia about its own axis (a point mass on the axis, a thin rod
  spinning about its length) makes the mass matrix singular: refused at construction
  when that holds at every configuration, a ValueError naming the joint where it holds
  at some configurations only.
* The rule is relative to the joint's own size: a screw axis of any length (a scaled
  coordinate) leaves a healthy joint accepted, with the same dynamics in its coordinate,
  and a singular one refused with the same error.
* A revolute axis far from a model of ordinary size (nearly a prismatic joint) would
  cost the fast algorithms about (distance/size)^2 * 1e-16 of precision: refused.
* Gravity may differ per configuration; results are contiguous arrays at every batch size.
"""

import numpy as np
import pytest
from trees import random_spec, spatial_inertia, two_link_spec

from geomotion import models, tree

BATCHES = [1, 3, 200]  # one configuration, the small-batch path, the large-batch path


def arm_with_second_body(inertia, axis=(0.0, 0.0, 1.0)):
    """The two-link teaching arm with body 1 replaced (joint 1 about ``axis`` through its origin)."""
    spec = two_link_spec()
    S = spec.subspaces()
    S[1] = np.concatenate([axis, np.zeros(3)])
    return S, spec.placements(), np.array([spec.spatial_inertias()[0], inertia])


# ---------------------------------------------------------------------------
# Joints that move no inertia
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "inertia",
    [
        spatial_inertia(1.0, np.array([0.0, 0.0, 0.3]), np.zeros((3, 3))),  # point mass on the axis
        spatial_inertia(
            0.4, np.zeros(3), np.diag([0.03, 0.03, 0.0])
        ),  # rod spinning about its length
    ],
    ids=["point-mass-on-axis", "thin-rod-about-its-axis"],
)
def test_a_joint_that_never_moves_inertia_is_refused_at_construction(inertia):
    S, P, I = arm_with_second_body(inertia)
    with pytest.raises(
        ValueError, match="inertias: joint 1 moves no inertia about its own axis at any"
    ):
        tree.Tree([-1, 0], S, P, I, allow_singular_inertias=True)


def test_a_thin_rod_on_a_joint_across_its_length_is_accepted():
    rod = spatial_inertia(0.4, np.zeros(3), np.diag([0.03, 0.03, 0.0]))
    S, P, I = arm_with_second_body(rod, axis=(1.0, 0.0, 0.0))
    model = tree.Tree([-1, 0], S, P, I, allow_singular_inertias=True, gravity=(0.0, 0.0, 0.0))
    qdd = tree.aba(model, [0.3, 0.2], [0.0, 0.0], [0.0, 1.0])
    assert np.all(np.isfinite(qdd))


def singular_at_zero(scales=(1.0, 1.0)):
    """Body 0 a point mass at its joint's origin; body 1 a point mass on joint 0's axis at q1 = 0.

    Joint 0 (about z) moves inertia only when joint 1 (about x) tilts body 1's mass off
    the z axis: M_00 = m (0.5 sin q1)^2, singular at q1 = 0 and nowhere else.  With
    ``scales``, joint i's screw is scales[i] times the unit one.
    """
    S = np.array([[0, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]], dtype=float)
    S = S * np.asarray(scales)[:, None]
    P = np.array([np.eye(4), np.eye(4)])
    I = np.array(
        [
            spatial_inertia(1.0, np.zeros(3), np.zeros((3, 3))),
            spatial_inertia(1.0, np.array([0.0, 0.0, 0.5]), np.zeros((3, 3))),
        ]
    )
    return tree.Tree([-1, 0], S, P, I, allow_singular_inertias=True)


@pytest.mark.parametrize("batch", BATCHES)
def test_forward_dynamics_at_a_singular_configuration_names_the_joint(batch):
    model = singular_at_zero()
    q = np.tile([0.7, 0.4], (batch, 1))
    q[-1, 1] = 0.0  # the last configuration is the singular one
    zeros = np.zeros_like(q)
    where = "this configuration" if batch == 1 else f"configuration {batch - 1} of the batch"
    with pytest.raises(ValueError, match=f"q: the mass matrix is singular at {where}: joint 0"):
        tree.aba(model, q, zeros, np.ones_like(q), gravity=(0.0, 0.0, 0.0))


@pytest.mark.parametrize("batch", BATCHES)
def test_of_two_singular_joints_the_first_met_on_the_inward_pass_is_named(batch):
    # singular_at_zero twice in a chain: at q = 0 joints 0 and 2 (about z) move no
    # inertia (every mass on the z axis, point masses); the inward pass meets joint 2 first
    S = np.array([[0, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0]] * 2, dtype=float)
    on_axis = spatial_inertia(1.0, np.array([0.0, 0.0, 0.5]), np.zeros((3, 3)))
    point = spatial_inertia(1.0, np.zeros(3), np.zeros((3, 3)))
    model = tree.Tree(
        [-1, 0, 1, 2], S, np.array([np.eye(4)] * 4), np.array([point, on_axis] * 2),
        allow_singular_inertias=True,
    )  # fmt: skip
    q = np.tile([0.7, 0.4, 0.3, 0.2], (batch, 1))
    q[-1] = 0.0
    zeros = np.zeros_like(q)
    with pytest.raises(ValueError, match=r"q: the mass matrix is singular at .*: joint 2 "):
        tree.aba(model, q, zeros, zeros, gravity=(0.0, 0.0, 0.0))


@pytest.mark.parametrize("batch", BATCHES)
def test_forward_dynamics_away_from_the_singular_configuration_is_exact(batch):
    model = singular_at_zero()
    q = np.tile([0.7, 0.4], (batch, 1))
    tau = np.tile([0.2, -0.1], (batch, 1))
    qdd = tree.aba(model, q, np.zeros_like(q), tau, gravity=(0.0, 0.0, 0.0))
    # by hand at rest: M = diag(m (0.5 sin q1)^2, m 0.5^2) with m = 1 kg
    expected = np.array([0.2 / (0.25 * np.sin(0.4) ** 2), -0.1 / 0.25])
    np.testing.assert_allclose(qdd, np.broadcast_to(expected, qdd.shape), rtol=1e-13)


def test_nearly_singular_configurations_are_refused_not_amplified():
    model = singular_at_zero()
    q = np.array([[0.0, 1e-9], [0.0, 1e-3]])  # M_00 = 2.5e-19 kg m^2 and 2.5e-7 kg m^2
    with pytest.raises(ValueError, match="configuration 0 of the batch: joint 0"):
        tree.aba(model, q, np.zeros_like(q), np.ones_like(q), gravity=(0.0, 0.0, 0.0))
    qdd = tree.aba(model, q[1], [0.0, 0.0], [1.0, 0.0], gravity=(0.0, 0.0, 0.0))
    np.testing.assert_allclose(qdd[0], 1.0 / (0.25 * np.sin(1e-3) ** 2), rtol=1e-9)


# ---------------------------------------------------------------------------
# Screw axes that are not of unit size: the singular-joint rule is relative
# ---------------------------------------------------------------------------
#
# Joint i's screw s_i S_i (tree.Tree: "with S_i not of unit size, q_i is a scaled
# coordinate") moves body i by exp([s_i S_i] q'_i) = exp([S_i] s_i q'_i): the same motion
# as the unit screw at q_i = s_i q'_i, so q' = q / s, v' = v / s and a' = a / s.  The
# joint's force follows from the same power, tau'_i v'_i = tau_i v_i (tau'_i = (s_i S_i)^T
# F_i = s_i tau_i), so with D = diag(s):
#
#     rnea' = D rnea,    aba'(q/s, v/s, D tau) = aba(q, v, tau) / s,    M' = D M D.
#
# The joint's pivot D'_i = (s_i S_i)^T I^A_i (s_i S_i) = s_i^2 D_i, and its size
# |s_i S_i|^2 tr(I^A_i) grows alike: whether the joint moves inertia does not depend on
# s_i.  Scales from 1e-7 to 1e7 tell that rule from one that forgets |S_i|^2 and from an
# absolute threshold: at 1e-7 a healthy pivot of 0.04 kg m^2 (singular_at_zero at q1 =
# 0.4) becomes 4e-16, below 1e-12 and below 1e-12 tr(I^A) (tr(I^A) >= 3 kg here); at 1e3
# and 1e7 a pivot of 3e-14 of its size (the spin below the rule) becomes 1e-7 and 10,
# above both.

AXIS_SCALES = [1e-7, 1e-3, 1e3, 1e7]


@pytest.mark.parametrize("s", AXIS_SCALES)
@pytest.mark.parametrize("batch", BATCHES)
def test_a_scaled_axis_keeps_a_healthy_joint_and_scales_its_coordinate(s, batch):
    spec = random_spec(np.random.default_rng(2), 4, "rph")
    assert spec.kinds == "rrph" and spec.parents == [-1, 0, 1, 0]  # two leaves, one chain
    d = np.array([s, 1.0, s, 1.0 / s])  # a revolute root, a prismatic and a helical leaf
    S, P, I = spec.subspaces(), spec.placements(), spec.spatial_inertias()
    unit = tree.Tree(spec.parents, S, P, I, gravity=(0.0, 0.0, -9.81))
    scaled = tree.Tree(spec.parents, S * d[:, None], P, I, gravity=(0.0, 0.0, -9.81))
    rng = np.random.default_rng(5)
    q, v, a = rng.uniform(-1, 1, (3, batch, 4))
    tau = tree.rnea(unit, q, v, a)
    np.testing.assert_allclose(
        tree.rnea(scaled, q / d, v / d, a / d) / d, tau, rtol=0, atol=1e-13 * np.abs(tau).max()
    )
    qdd = tree.aba(scaled, q / d, v / d, d * tau)  # refused if a pivot counted as singular
    expected = tree.aba(unit, q, v, tau)
    np.testing.assert_allclose(qdd * d, expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    M = tree.crba(unit, q)
    np.testing.assert_allclose(
        tree.crba(scaled, q / d) / np.outer(d, d), M, rtol=0, atol=1e-13 * np.abs(M).max()
    )


def construction_error(*args, **kwargs):
    with pytest.raises(ValueError) as error:
        tree.Tree(*args, **kwargs)
    return str(error.value)


@pytest.mark.parametrize("s", AXIS_SCALES)
@pytest.mark.parametrize(
    "spin",
    [0.0, 1e-13],  # exactly none; 3e-14 of the body's size (1e-12 is the rule's bound)
    ids=["point-mass-on-axis", "spin-below-the-rule"],
)
def test_a_scaled_axis_that_moves_no_inertia_is_refused_as_the_unit_one(s, spin):
    body = spatial_inertia(1.0, np.array([0.0, 0.0, 0.3]), np.diag([0.03, 0.03, spin]))
    S, P, I = arm_with_second_body(body)
    unit = construction_error([-1, 0], S, P, I, allow_singular_inertias=True)
    assert unit.startswith("inertias: joint 1 moves no inertia about its own axis at any")
    S[1] *= s
    assert construction_error([-1, 0], S, P, I, allow_singular_inertias=True) == unit


def forward_dynamics_error(model, q, tau):
    with pytest.raises(ValueError) as error:
        tree.aba(model, q, np.zeros_like(q), tau, gravity=(0.0, 0.0, 0.0))
    return str(error.value)


@pytest.mark.parametrize("s", AXIS_SCALES)
@pytest.mark.parametrize("batch", BATCHES)
def test_a_scaled_axis_is_singular_at_the_same_configurations(s, batch):
    d = np.array([s, 1.0])  # joint 0's pivot is the one that vanishes
    unit, scaled = singular_at_zero(), singular_at_zero(d)
    q = np.tile([0.7, 0.4], (batch, 1))
    tau = np.tile([0.2, -0.1], (batch, 1))
    q[-1, 1] = 1e-9  # M_00 = 2.5e-19 kg m^2: singular up to rounding, at the last one
    unit_error = forward_dynamics_error(unit, q, tau)
    assert "joint 0" in unit_error
    assert forward_dynamics_error(scaled, q / d, d * tau) == unit_error
    q[-1, 1] = 0.4  # away from it every configuration is healthy, in either coordinate
    expected = tree.aba(unit, q, np.zeros_like(q), tau, gravity=(0.0, 0.0, 0.0))
    qdd = tree.aba(scaled, q / d, np.zeros_like(q), d * tau, gravity=(0.0, 0.0, 0.0))
    np.testing.assert_allclose(qdd * d, expected, rtol=1e-12)


def test_a_joint_scaled_small_does_not_make_a_healthy_tree_singular_everywhere():
    # The construction samples each screw joint's motion (|omega| q in [-pi, pi)), not its
    # coordinate: with joint 1's screw 1e-7 times a unit one, sampling q in [-pi, pi) tilted
    # body 1 by at most 3e-7 rad and the tree was refused as singular everywhere.
    d = np.array([1.0, 1e-7])
    model = singular_at_zero(d)
    q = np.array([0.7, 0.4])
    expected = tree.aba(singular_at_zero(), q, [0.0, 0.0], [0.2, -0.1], gravity=(0.0, 0.0, 0.0))
    qdd = tree.aba(model, q / d, [0.0, 0.0], d * [0.2, -0.1], gravity=(0.0, 0.0, 0.0))
    np.testing.assert_allclose(qdd * d, expected, rtol=1e-12)


# ---------------------------------------------------------------------------
# Nearly prismatic joints: a revolute axis far away
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1e-1, 3e-2, 1e-3, 1e-5, 1e-7, 1e-9])
def test_a_far_axis_keeps_every_algorithm_accurate(eps):
    # The screw (eps, 0, 0, 0, 0, 1): a revolute axis 1/eps m from body 2's origin, nearly
    # a prismatic joint.  Over lanes, 1 - cos(eps q) must not be formed by subtraction
    # (5e-10 relative error in M at eps = 1e-7 when it was).
    base = models.random_tree(5, rng=0, prismatic_fraction=0.0)
    S = np.array(base.screws)
    S[2] = [eps, 0.0, 0.0, 0.0, 0.0, 1.0]
    model = tree.Tree(base.parents, S, base.placements, base.inertias)
    rng = np.random.default_rng(1)
    q, x = rng.uniform(-1, 1, (200, 5)), rng.normal(size=(200, 5))
    M = tree.joint_mass_matrix(tree.prepare(model, q))  # the readable path
    Mx = np.einsum("bij,bj->bi", M, x)
    zero, g0 = np.zeros_like(x), (0.0, 0.0, 0.0)
    for b in (slice(0, 3), slice(None)):  # one configuration at a time, and over lanes
        assert np.abs(tree.crba(model, q[b]) - M[b]).max() <= 1e-13 * np.abs(M).max()
        assert (
            np.abs(tree.rnea(model, q[b], zero[b], x[b], gravity=g0) - Mx[b]).max()
            <= 1e-11 * np.abs(Mx).max()
        )
        assert (
            np.abs(tree.aba(model, q[b], zero[b], Mx[b], gravity=g0) - x[b]).max()
            <= 1e-10 * np.abs(x).max()
        )


# ---------------------------------------------------------------------------
# Gravity per configuration; contiguous results
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("batch", BATCHES)
def test_gravity_may_differ_per_configuration(batch):
    model = random_spec(np.random.default_rng(4), 6, "rph", roots=2).tree()
    rng = np.random.default_rng(4)
    q, qd, x = rng.normal(size=(3, batch, 6))
    slopes = np.linspace(0.0, 0.5, batch)  # a sweep over ground slopes
    g = 9.81 * np.stack([np.sin(slopes), np.zeros(batch), -np.cos(slopes)], axis=-1)
    tau = tree.rnea(model, q, qd, x, gravity=g)
    qdd = tree.aba(model, q, qd, x, gravity=g)
    U = tree.potential_energy(model, q, gravity=g)
    for b in range(batch):
        np.testing.assert_allclose(
            tau[b], tree.rnea(model, q[b], qd[b], x[b], gravity=g[b]), rtol=1e-13, atol=1e-13
        )
        np.testing.assert_allclose(
            qdd[b], tree.aba(model, q[b], qd[b], x[b], gravity=g[b]), rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(
            U[b], tree.potential_energy(model, q[b], gravity=g[b]), rtol=1e-14
        )


def test_one_configuration_under_many_gravities():
    arm = models.two_link_teaching_arm()
    g = np.array([[0.0, 0.0, -9.81], [0.0, -9.81, 0.0], [0.0, -1.62, 0.0]])
    tau = tree.bias_forces(arm, [0.0, 0.0], [0.0, 0.0], gravity=g)
    assert tau.shape == (3, 2)
    np.testing.assert_array_equal(tau[0], [0.0, 0.0])  # gravity along the joint axes: no torque
    # in-plane gravity: holding torques m g x_c summed outward, by hand
    by_hand = np.array([2.0 * 0.3 + 1.0 * 0.85, 1.0 * 0.25])
    np.testing.assert_allclose(tau[1], 9.81 * by_hand, rtol=1e-14)
    np.testing.assert_allclose(tau[2], 1.62 * by_hand, rtol=1e-14)


def test_gravity_of_the_wrong_shape_is_refused():
    arm = models.two_link_teaching_arm()
    with pytest.raises(ValueError, match=r"gravity: expected shape \(3,\) or \(\.\.\., 3\)"):
        tree.rnea(arm, [0, 0], [0, 0], [0, 0], gravity=(0.0, -9.81))
    with pytest.raises(ValueError, match="expected leading .batch. shapes that broadcast"):
        tree.aba(arm, np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((4, 2)), gravity=np.ones((3, 3)))


@pytest.mark.parametrize("batch", [1, 95, 96, 500])
def test_results_are_contiguous_at_every_batch_size(batch):
    model = random_spec(np.random.default_rng(5), 5, "rp", roots=1).tree()
    q = np.random.default_rng(5).normal(size=(batch, 5))
    for result in (
        tree.crba(model, q),
        tree.rnea(model, q, q, q),
        tree.aba(model, q, q, q),
        tree.bias_forces(model, q, q),
        tree.coriolis_matrix(model, q, q),
        tree.point_jacobian(model, q, 4, np.ones(3)),
    ):
        assert result.flags.c_contiguous and result.flags.writeable


# ---------------------------------------------------------------------------
# Memory kept between calls
# ---------------------------------------------------------------------------


def test_nothing_sized_by_the_batch_is_kept_between_calls():
    """Large batches on six models leave only the models' flat arrays, freed with them."""
    import gc
    import tracemalloc

    trees = [models.random_tree(12, rng=i) for i in range(6)]
    q = np.random.default_rng(0).normal(size=(20_000, 12))  # 23 MB of mass matrices a call
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for model in trees:
            tree.crba(model, q)
            tree.aba(model, q, q, q)
            tree.point_jacobian(model, q, 11, np.ones(3))
        gc.collect()
        assert tracemalloc.get_traced_memory()[0] - before < 1e6
        del trees, model
        gc.collect()
        assert tracemalloc.get_traced_memory()[0] - before < 1e6  # collected with their models
    finally:
        tracemalloc.stop()
