"""Contact per foot: each foot's wrench, centre of pressure and feasibility, the resultant of
all feet, the family of distributions with one resultant and the range of one foot's load.

Independent checks: a standing stance worked by hand (800 N, two 0.25 m x 0.1 m feet,
mu = 0.8); resultants summed force by force over point forces spread on each sole; the
null space checked against its closed form (each foot's inverse force transform of wrenches
that sum to zero); the load-share range against the lever rule for level feet, and against
sampled members checked one by one.  Bad input last.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, poses

from geomotion import contact, spatial

PROPERTY = settings(max_examples=examples(30))
FOOT = np.array([[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]])  # 0.25 x 0.1


def rotation_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def hand_pose(R, p):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


TOE_OUT = math.radians(10)


def stance(half_width=0.15, toe_out=TOE_OUT):
    """Two level feet at y = +-half_width, each turned out by toe_out about the vertical."""
    return np.stack(
        [
            hand_pose(rotation_z(toe_out), [0.0, half_width, 0.0]),
            hand_pose(rotation_z(-toe_out), [0.0, -half_width, 0.0]),
        ]
    )


def world_resultant_by_hand(T, sole_wrenches, point):
    """Sum over feet of (R n + (o - p) x R f, R f), written out with cross products."""
    n_total, f_total = np.zeros(3), np.zeros(3)
    for T_k, w in zip(T, sole_wrenches):
        R, o = T_k[:3, :3], T_k[:3, 3]
        f = R @ w[3:]
        n_total += R @ w[:3] + np.cross(o - point, f)
        f_total += f
    return np.concatenate([n_total, f_total])


def sole_wrench_of_point_forces(points, forces):
    """Sole wrench about the sole origin of point forces at sole points."""
    return np.concatenate([np.cross(points, forces).sum(axis=0), forces.sum(axis=0)])


# --- one stance by hand ------------------------------------------------------------------


def test_symmetric_standing_stance_by_hand():
    T = stance()
    wrench = np.array([[0, 0, 0, 0, 0, 400.0]] * 2)
    report = contact.foot_contacts(T, wrench, 0.8, FOOT)
    np.testing.assert_allclose(report.cop_sole, 0.0, atol=1e-15)
    np.testing.assert_allclose(report.cop_world, [[0, 0.15, 0], [0, -0.15, 0]], atol=1e-15)
    np.testing.assert_allclose(report.normal_force, [400.0, 400.0])
    np.testing.assert_allclose(report.friction_margin, [320.0, 320.0])  # 0.8 * 400 - 0
    # Nearest edge 0.05 m away: F_z d = 400 * 0.05 = 20 N m.
    np.testing.assert_allclose(report.support_margin, [20.0, 20.0], atol=1e-12)
    np.testing.assert_allclose(report.free_moment, [0.0, 0.0], atol=1e-15)
    assert report.foot_feasible.tolist() == [True, True] and report.feasible
    # The resultant: 800 N up; about the world origin the two moments y F_z cancel.
    np.testing.assert_allclose(report.resultant, [0, 0, 0, 0, 0, 800.0], atol=1e-12)
    # About a point 1 m up and 0.1 m forward: n = sum (o - p) x f = (0.1 * ... ) by hand:
    # (o - p) = (-0.1, +-0.15, -1), f = (0, 0, 400): x = +-0.15 * 400, y = 0.1 * 400.
    about = contact.foot_resultant(T, wrench, point=[0.1, 0.0, 1.0])
    np.testing.assert_allclose(about, [0, 80.0, 0, 0, 0, 800.0], atol=1e-12)
    # The same loads given in world axes about the world origin: (y F_z, 0, 0) each.
    world = np.array([[60.0, 0, 0, 0, 0, 400.0], [-60.0, 0, 0, 0, 0, 400.0]])
    np.testing.assert_allclose(report.wrench_world, world, atol=1e-12)
    again = contact.foot_contacts(T, world, 0.8, FOOT, frame="world")
    np.testing.assert_allclose(again.wrench_sole, wrench, atol=1e-12)
    np.testing.assert_allclose(again.support_margin, report.support_margin, atol=1e-12)


def test_particular_member_of_a_symmetric_stance_is_half_the_weight_at_each_foot_centre():
    T = stance()
    family = contact.foot_wrench_family(T, [0, 0, 0, 0, 0, 800.0])
    np.testing.assert_allclose(family.particular, [[0, 0, 0, 0, 0, 400.0]] * 2, atol=1e-12)
    assert family.basis.shape == (2, 6, 6)
    assert family.length_scale == pytest.approx(0.15)


def test_cop_shift_and_friction_margins_on_one_turned_foot():
    # Foot 1 turned 90 deg about z at (1, 2, 0): 500 N through sole point (0.1, -0.02) and
    # 100 N of traction along sole x; M = r x f with r = (0.1, -0.02, 0).
    T = np.stack([stance()[0], hand_pose(rotation_z(math.pi / 2), [1.0, 2.0, 0.0])])
    r, f = np.array([0.1, -0.02, 0.0]), np.array([100.0, 0.0, 500.0])
    wrench = np.array([[0, 0, 0, 0, 0, 300.0], np.concatenate([np.cross(r, f), f])])
    report = contact.foot_contacts(T, wrench, [0.8, 0.1], FOOT)
    np.testing.assert_allclose(report.cop_sole[1], [0.1, -0.02], atol=1e-15)
    # Sole x is world y, sole y is world -x: (1 + 0.02, 2 + 0.1, 0).
    np.testing.assert_allclose(report.cop_world[1], [1.02, 2.1, 0.0], atol=1e-15)
    np.testing.assert_allclose(report.friction_margin, [240.0, 0.1 * 500 - 100.0])
    # Nearest edge of the CoP (0.1, -0.02): the heel-toe edge at x = 0.125, 0.025 m away.
    assert report.support_margin[1] == pytest.approx(500 * 0.025, abs=1e-12)
    assert report.foot_feasible.tolist() == [True, False] and not report.feasible
    assert not report.within_friction_cone[1] and report.cop_in_support[1]


# --- resultants from point forces ----------------------------------------------------------


@PROPERTY
@given(st.integers(1, 4), st.integers(0, 2**32 - 1), st.lists(poses(), min_size=4, max_size=4))
def test_resultant_is_the_sum_of_every_point_force_moment(K, seed, pose_list):
    rng = np.random.default_rng(seed)
    T = np.array(pose_list[:K])
    point = rng.uniform(-2, 2, 3)
    sole_wrenches, n_P, f_total = [], np.zeros(3), np.zeros(3)
    for T_k in T:
        points = np.c_[rng.uniform(-0.2, 0.2, (5, 2)), np.zeros(5)]
        forces = rng.uniform(-300, 300, (5, 3))
        sole_wrenches.append(sole_wrench_of_point_forces(points, forces))
        for x, g in zip(points, forces):  # each force in the world, its moment about p
            X, G = T_k[:3, :3] @ x + T_k[:3, 3], T_k[:3, :3] @ g
            n_P += np.cross(X - point, G)
            f_total += G
    sole_wrenches = np.array(sole_wrenches)
    expected = np.concatenate([n_P, f_total])
    scale = 1 + np.abs(expected).max()
    got = contact.foot_resultant(T, sole_wrenches, point=point)
    np.testing.assert_allclose(got, expected, atol=1e-12 * scale * 10)
    world = contact.foot_contacts(T, sole_wrenches, 1.0, FOOT).wrench_world
    got_world = contact.foot_resultant(T, world, point=point, frame="world")
    np.testing.assert_allclose(got_world, expected, atol=1e-12 * scale * 10)


def test_foot_contacts_batches_over_a_time_series_like_single_calls():
    rng = np.random.default_rng(3)
    T = np.stack([stance(toe_out=a) for a in rng.uniform(0, 0.3, 7)])  # (7, 2, 4, 4)
    wrench = np.c_[rng.uniform(-20, 20, (14, 2)), np.zeros(14), rng.uniform(-80, 80, (14, 2))]
    wrench = np.c_[wrench, rng.uniform(100, 500, 14)].reshape(7, 2, 6)
    wrench[3, 1] = 0.0  # foot 1 in swing at sample 3
    mu = rng.uniform(0.2, 1.0, (7, 1))
    report = contact.foot_contacts(T, wrench, mu, FOOT, min_normal_force=5.0)
    assert report.feasible.shape == (7,) and report.cop_world.shape == (7, 2, 3)
    assert not report.loaded[3, 1] and np.all(np.isnan(report.cop_world[3, 1]))
    assert not report.feasible[3] and not report.compressive[3, 1]
    for i in range(7):
        single = contact.foot_contacts(T[i], wrench[i], mu[i], FOOT, min_normal_force=5.0)
        for k in range(2):
            one = contact.contact_feasibility(wrench[i, k], mu[i, 0], FOOT, min_normal_force=5.0)
            assert report.friction_margin[i, k] == pytest.approx(one.friction_margin)
            assert report.support_margin[i, k] == pytest.approx(one.support_margin, abs=1e-12)
            assert report.foot_feasible[i, k] == one.feasible
        np.testing.assert_array_equal(single.cop_world, report.cop_world[i])
        assert single.feasible == report.feasible[i]
    # Sole frames with NaN-free loaded feet: the world CoP is T applied to the sole CoP.
    loaded = report.loaded
    homogeneous = np.concatenate(
        [report.cop_sole, np.zeros((7, 2, 1)), np.ones((7, 2, 1))], axis=-1
    )
    mapped = np.einsum("tkij,tkj->tki", T, homogeneous)[..., :3]
    np.testing.assert_allclose(mapped[loaded], report.cop_world[loaded], atol=1e-14)


def test_an_unloaded_foot_is_reported_not_refused_single_or_batched():
    T = stance()
    report = contact.foot_contacts(T, [[0, 0, 0, 0, 0, 800.0], np.zeros(6)], 0.8, FOOT)
    assert report.loaded.tolist() == [True, False]
    assert np.all(np.isnan(report.cop_sole[1])) and np.isnan(report.free_moment[1])
    assert report.foot_feasible.tolist() == [True, False] and not report.feasible
    assert report.support_margin[1] == 0.0 and report.friction_margin[1] == 0.0


# --- the family of distributions -----------------------------------------------------------


def explicit_kernel(T, point):
    """Closed form of ker A: w_k = X_k^-1 c_k with sum c_k = 0 (c_0 = -(c_1 + ...))."""
    K = len(T)
    inverses = []
    for T_k in T:
        R, o = T_k[:3, :3], T_k[:3, 3] - point
        X = np.block([[R, spatial.skew(o) @ R], [np.zeros((3, 3)), R]])  # written out
        inverses.append(np.linalg.inv(X))
    columns = []
    for k in range(1, K):
        for e in np.eye(6):
            w = np.zeros((K, 6))
            w[0], w[k] = -inverses[0] @ e, inverses[k] @ e
            columns.append(w.reshape(-1))
    return np.array(columns).reshape(len(columns), 6 * K).T


@pytest.mark.parametrize("K", [1, 2, 3, 4])
def test_family_members_share_the_resultant_and_span_the_closed_form_kernel(K):
    rng = np.random.default_rng(10 + K)
    T = np.stack(
        [
            spatial.pose(
                spatial.rot_x(rng.uniform(-0.5, 0.5)) @ rotation_z(rng.uniform(-3, 3)),
                rng.uniform(-0.5, 0.5, 3),
            )
            for _ in range(K)
        ]
    )
    point = rng.uniform(-1, 1, 3)
    resultant = np.r_[rng.uniform(-50, 50, 3), rng.uniform(-100, 100, 2), 800.0]
    family = contact.foot_wrench_family(T, resultant, point=point)
    D = 6 * K - 6
    assert family.basis.shape == (K, 6, D)
    B = family.basis.reshape(6 * K, D)
    assert np.linalg.matrix_rank(B) == D
    kernel = explicit_kernel(T, point).reshape(6 * K, D)
    assert np.linalg.matrix_rank(np.c_[B, kernel], tol=1e-8) == D  # the same subspace
    members = [family.member(c) for c in rng.normal(0, 200, (5, D))] + [family.particular]
    for w in members:
        np.testing.assert_allclose(world_resultant_by_hand(T, w, point), resultant, atol=1e-9)
    if K > 1:
        assert np.abs(members[0] - members[1]).max() > 1.0  # distinct distributions
    # Least weighted norm: orthogonal to the closed-form kernel in the weighted product.
    L = family.length_scale
    weight = np.tile([1 / L**2] * 3 + [1.0] * 3, K)
    assert np.abs(kernel.T @ (weight * family.particular.reshape(-1))).max(initial=0.0) < 1e-9
    if K == 1:  # one foot carries the resultant alone: its wrench is X^-1 F_P, unique
        R, o = T[0, :3, :3], T[0, :3, 3] - point
        f = R.T @ resultant[3:]
        n = R.T @ (resultant[:3] - np.cross(o, resultant[3:]))
        np.testing.assert_allclose(family.particular[0], np.r_[n, f], atol=1e-10)


def test_family_batches_and_members_broadcast():
    T = np.stack([stance(toe_out=a) for a in (0.0, 0.2, 0.4)])
    resultant = np.array([[0, 0, 0, 0, 0, 800.0], [5, -3, 1, 20, 0, 700.0], [0, 0, 0, 0, 0, 1.0]])
    family = contact.foot_wrench_family(T, resultant, point=[0.0, 0.0, 0.9])
    assert family.particular.shape == (3, 2, 6) and family.basis.shape == (3, 2, 6, 6)
    coefficients = np.arange(6.0)  # one set of coefficients for every batch element
    for i in range(3):
        single = contact.foot_wrench_family(T[i], resultant[i], point=[0.0, 0.0, 0.9])
        np.testing.assert_allclose(single.particular, family.particular[i], atol=1e-12)
        w = family.member(coefficients)[i]
        got = world_resultant_by_hand(T[i], w, np.array([0.0, 0.0, 0.9]))
        np.testing.assert_allclose(got, resultant[i], atol=1e-10)


def test_the_particular_member_does_not_depend_on_the_length_unit():
    T = stance()
    T[1, :3, 3] += [0.3, 0.0, 0.05]
    resultant = np.array([10.0, -20.0, 3.0, 40.0, -10.0, 800.0])
    metres = contact.foot_wrench_family(T, resultant, point=[0.1, 0, 1.0])
    T_mm = T.copy()
    T_mm[:, :3, 3] *= 1000
    in_mm = np.r_[resultant[:3] * 1000, resultant[3:]]
    millimetres = contact.foot_wrench_family(T_mm, in_mm, point=[100.0, 0, 1000.0])
    back = millimetres.particular.copy()
    back[..., :3] /= 1000
    np.testing.assert_allclose(back, metres.particular, atol=1e-9)


# --- the range of one foot's load ------------------------------------------------------------


def lever_rule_range(W, a, b, c):
    """Foot 0 at y = +a, foot 1 at y = -a, CoP freedom +-b across each foot, resultant
    through y = c: F_0 (a + u_0) + (W - F_0)(-a + u_1) = W c with |u_k| <= b."""
    low = W * (a - b + c) / (2 * a)
    high = W * (a + b + c) / (2 * a)
    return max(low, 0.0), min(high, W)


@pytest.mark.parametrize("c", [0.0, 0.05, -0.12, 0.18])
def test_share_range_of_level_feet_is_the_lever_rule(c):
    T = stance(toe_out=0.0)  # sole y across the foot, half-width b = 0.05
    W = 800.0
    resultant = np.array([c * W, 0, 0, 0, 0, W])  # W up through (0, c, 0): n = (c W, 0, 0)
    share = contact.load_share_range(T, resultant, 0.8, FOOT)
    low, high = lever_rule_range(W, 0.15, 0.05, c)
    assert share.feasible
    assert share.vertical_force_min == pytest.approx(low, abs=1e-6)
    assert share.vertical_force_max == pytest.approx(high, abs=1e-6)
    assert share.share_max == pytest.approx(high / W, abs=1e-9)
    # The extremes are admissible for the true cone and give the resultant.
    for w in (share.wrench_min, share.wrench_max):
        report = contact.foot_contacts(T, w, 0.8, FOOT)
        assert np.all(report.friction_margin >= -1e-6) and np.all(report.support_margin >= -1e-6)
        assert np.all(report.normal_force >= -1e-6)
        np.testing.assert_allclose(report.resultant, resultant, atol=1e-8)


def test_point_like_feet_have_a_single_share_and_outside_the_feet_none():
    tiny = FOOT * 1e-4  # 25 um x 10 um
    T = stance(toe_out=0.0)
    W, c = 800.0, 0.06
    share = contact.load_share_range(T, [c * W, 0, 0, 0, 0, W], 0.8, tiny)
    exact = W * (0.15 + c) / 0.3  # moments about foot 1: F_0 * 0.3 = W (0.15 + c)
    low, high = lever_rule_range(W, 0.15, 0.05e-4, c)  # +- W b / (2 a) = +-0.0133 N
    assert share.vertical_force_min == pytest.approx(low, abs=1e-6)
    assert share.vertical_force_max == pytest.approx(high, abs=1e-6)
    assert low < exact < high and high - low < 0.03
    # Resultant through y = 0.21, beyond the outer edge of foot 0 (0.2): nothing admissible.
    outside = contact.load_share_range(T, [0.21 * W, 0, 0, 0, 0, W], 0.8, FOOT)
    assert not outside.feasible
    assert np.isnan(outside.vertical_force_min) and np.isnan(outside.share_max)
    assert np.all(np.isnan(outside.wrench_max))


def test_friction_limits_the_horizontal_resultant_through_the_pyramid():
    T = stance(toe_out=0.0)
    W, mu = 800.0, 0.5
    for H, facets, admissible in [
        (0.49 * W, 16, True),  # under mu cos(pi/16) = 0.4904
        (0.495 * W, 16, False),  # the pyramid is conservative ...
        (0.495 * W, 64, True),  # ... less so with more faces (0.4994)
        (0.51 * W, 512, False),  # beyond the true cone
        (0.5 * math.cos(math.pi / 4) * W * 0.999, 4, True),
    ]:
        share = contact.load_share_range(T, [0, 0, 0, H, 0, W], mu, FOOT, cone_facets=facets)
        assert bool(share.feasible) is admissible, (H, facets)


def test_sampled_admissible_members_lie_inside_the_range():
    rng = np.random.default_rng(5)
    T = stance()
    T[1] = spatial.pose(spatial.rot_x(0.15) @ rotation_z(-0.3), [0.05, -0.17, 0.03])  # a slope
    resultant = contact.foot_resultant(
        T, [[2, -4, 1, 30, 10, 420.0], [-3, 3, -1, -20, 15, 380.0]], point=[0, 0, 0.9]
    )
    family = contact.foot_wrench_family(T, resultant, point=[0, 0, 0.9])
    share = contact.load_share_range(T, resultant, 0.7, FOOT, point=[0, 0, 0.9], foot=1)
    assert share.feasible and share.foot == 1
    up_force = []
    for c in rng.normal(0, 60, (4000, 6)):
        w = family.member(c)
        if contact.foot_contacts(T, w, 0.7 * math.cos(math.pi / 16), FOOT).feasible:
            up_force.append((T[1, :3, :3] @ w[1, 3:])[2])
    assert len(up_force) > 50
    assert share.vertical_force_min <= min(up_force) + 1e-6
    assert max(up_force) <= share.vertical_force_max + 1e-6
    # The sampled spread is a good part of the range (the LP is not vacuous either way).
    assert max(up_force) - min(up_force) > 0.3 * (
        share.vertical_force_max - share.vertical_force_min
    )
    for w, value in (
        (share.wrench_min, share.vertical_force_min),
        (share.wrench_max, share.vertical_force_max),
    ):
        report = contact.foot_contacts(T, w, 0.7, FOOT)
        assert np.all(report.friction_margin >= -1e-6) and np.all(report.support_margin >= -1e-6)
        assert (T[1, :3, :3] @ w[1, 3:])[2] == pytest.approx(value, abs=1e-6)
        np.testing.assert_allclose(world_resultant_by_hand(T, w, [0, 0, 0.9]), resultant, atol=1e-8)


def test_share_range_batches_and_the_minimum_normal_force():
    T = stance(toe_out=0.0)
    W = 800.0
    resultant = np.array([[c * W, 0, 0, 0, 0, W] for c in (0.0, 0.1, 0.3)])
    share = contact.load_share_range(T, resultant, 0.8, FOOT, min_normal_force=100.0)
    assert share.feasible.tolist() == [True, True, False]
    for i, c in enumerate((0.0, 0.1)):
        low, high = lever_rule_range(W, 0.15, 0.05, c)
        assert share.vertical_force_min[i] == pytest.approx(max(low, 100.0), abs=1e-6)
        assert share.vertical_force_max[i] == pytest.approx(min(high, W - 100.0), abs=1e-6)
    assert share.wrench_min.shape == (3, 2, 6)


# --- bad and degenerate input -----------------------------------------------------------------


GOOD = {"T_WS": stance(), "wrench": np.array([[0, 0, 0, 0, 0, 400.0]] * 2)}


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"T_WS": np.eye(4)}, ValueError, r"^T_WS: expected shape \(\.\.\., K, 4, 4\)"),
        ({"T_WS": np.zeros((2, 4, 4))}, ValueError, r"^T_WS: expected a homogeneous pose"),
        (
            {"T_WS": stance() * np.r_[1.01, 1, 1, 1][:, None]},
            ValueError,
            r"^T_WS\[\.\.\., :3, :3\]: expected a rotation",
        ),
        (
            {"wrench": np.zeros((3, 6))},
            ValueError,
            r"^wrench: expected shape \(\.\.\., K, 6\) with K = 2",
        ),
        ({"wrench": np.zeros(6)}, ValueError, r"^wrench: expected shape \(\.\.\., K, 6\)"),
        ({"wrench": np.zeros((2, 3))}, ValueError, r"^wrench: expected shape \(\.\.\., 6\)"),
        ({"wrench": None}, TypeError, "^wrench:"),
        (
            {"friction_coefficient": -0.1},
            ValueError,
            "^friction_coefficient: expected non-negative",
        ),
        ({"friction_coefficient": [0.5, 0.5, 0.5]}, ValueError, "friction_coefficient"),
        (
            {"support_polygon": [[0, 0], [1, 0], [0.2, 0.2], [0, 1]]},
            ValueError,
            "^support_polygon: expected a convex",
        ),
        ({"support_polygon": np.stack([FOOT] * 3)}, ValueError, "support_polygon"),
        ({"frame": "ground"}, ValueError, "^frame: expected one of"),
        ({"frame": 1}, TypeError, "^frame: expected one of the strings"),
        ({"min_normal_force": -1.0}, ValueError, "^min_normal_force"),
        ({"rtol": -1.0}, ValueError, "^rtol"),
    ],
)
def test_foot_contacts_refuses_bad_input_naming_the_argument(change, error, message):
    arguments = {**GOOD, "friction_coefficient": 0.8, "support_polygon": FOOT, **change}
    with pytest.raises(error, match=message):
        contact.foot_contacts(**arguments)


def test_a_single_foot_does_not_grow_into_several():
    T1 = stance()[:1]
    with pytest.raises(ValueError, match="feet axis of length 1"):
        contact.foot_contacts(T1, [[0, 0, 0, 0, 0, 1.0]], [0.5, 0.6], FOOT)
    report = contact.foot_contacts(T1, [[0, 0, 0, 0, 0, 1.0]], 0.5, FOOT)  # K = 1 is fine
    assert report.feasible and report.cop_world.shape == (1, 3)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"foot": 2}, ValueError, r"^foot: expected an integer >= 0 and <= 1"),
        ({"foot": 0.0}, TypeError, "^foot:"),
        ({"up": [0, 0, 0]}, ValueError, "^up: expected a non-zero direction"),
        ({"up": [0, 1]}, ValueError, r"^up: expected a vector of shape \(3,\)"),
        ({"cone_facets": 2}, ValueError, "^cone_facets: expected an integer >= 3"),
        ({"point": [0, 0]}, ValueError, r"^point: expected shape \(\.\.\., 3\)"),
        ({"min_normal_force": -5.0}, ValueError, "^min_normal_force"),
    ],
)
def test_load_share_range_refuses_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        contact.load_share_range(stance(), [0, 0, 0, 0, 0, 800.0], 0.8, FOOT, **kwargs)


def test_family_and_resultant_refuse_bad_input():
    T = stance()
    with pytest.raises(ValueError, match=r"^resultant: expected shape \(\.\.\., 6\)"):
        contact.foot_wrench_family(T, [0, 0, 800.0])
    with pytest.raises(ValueError, match="^length_scale: expected positive"):
        contact.foot_wrench_family(T, np.zeros(6), length_scale=0.0)
    with pytest.raises(ValueError, match="T_WS, resultant, point"):
        contact.foot_wrench_family(np.stack([T] * 3), np.zeros((4, 6)))
    family = contact.foot_wrench_family(T, np.zeros(6))
    with pytest.raises(ValueError, match=r"^coefficients: expected shape \(\.\.\., 6\)"):
        family.member(np.zeros(5))
    with pytest.raises(ValueError, match="^wrench: expected shape"):
        contact.foot_resultant(T, np.zeros((3, 6)))
    with pytest.raises(ValueError, match="^frame: expected one of"):
        contact.foot_resultant(T, np.zeros((2, 6)), frame="plate")
    # A zero resultant is legal: the particular member is zero, the basis still 6-D.
    np.testing.assert_array_equal(family.particular, 0.0)
    with pytest.raises(AttributeError):
        family.particular = None  # frozen
    with pytest.raises(TypeError):
        _, _ = family  # read by name, it does not unpack


def test_feet_that_can_squeeze_each_other_have_an_unbounded_share():
    # A chimney: sole 0 faces +x at x = -0.2, sole 1 faces -x at x = +0.2.  Pressing
    # harder on both walls buys friction without limit, so foot 0 can carry any vertical
    # load, up or down, with foot 1 taking the rest.
    T = np.stack(
        [
            hand_pose([[0, 0, 1.0], [0, 1.0, 0], [-1.0, 0, 0]], [-0.2, 0, 0]),
            hand_pose([[0, 0, -1.0], [0, 1.0, 0], [1.0, 0, 0]], [0.2, 0, 0]),
        ]
    )
    share = contact.load_share_range(T, [0, 0, 0, 0, 0, 800.0], 0.5, FOOT)
    assert share.feasible
    assert share.vertical_force_min == -np.inf and share.vertical_force_max == np.inf
    assert np.all(np.isnan(share.wrench_max)) and np.all(np.isnan(share.wrench_min))
    # Without friction the walls cannot hold the weight at all.
    assert not contact.load_share_range(T, [0, 0, 0, 0, 0, 800.0], 0.0, FOOT).feasible


def test_one_foot_carries_the_whole_resultant_when_its_cop_is_inside():
    T = stance()[:1]  # foot at (0, 0.15, 0)
    inside = [0.17 * 800, -0.01 * 800, 0, 10.0, 0, 800.0]  # 800 N through (0.01, 0.17, 0)
    share = contact.load_share_range(T, inside, 0.8, FOOT)
    assert share.vertical_force_min == pytest.approx(800.0, abs=1e-9)
    assert share.vertical_force_max == pytest.approx(800.0, abs=1e-9)
    assert share.share_min == pytest.approx(1.0, abs=1e-12)
    family = contact.foot_wrench_family(T, inside)
    assert family.basis.shape == (1, 6, 0)


def test_planted_feet_with_a_time_series_of_wrenches():
    T = stance()  # (2, 4, 4): the feet do not move
    rng = np.random.default_rng(8)
    wrench = np.c_[rng.uniform(-5, 5, (50, 2, 2)), np.zeros((50, 2, 1))]
    wrench = np.c_[wrench.reshape(100, 3), rng.uniform(-50, 50, (100, 2))]
    wrench = np.c_[wrench, rng.uniform(50, 500, 100)].reshape(50, 2, 6)
    report = contact.foot_contacts(T, wrench, [0.8, 0.6], FOOT)
    assert report.cop_world.shape == (50, 2, 3) and report.feasible.shape == (50,)
    for t in (0, 17, 49):
        for k in range(2):
            cop = contact.center_of_pressure(wrench[t, k])
            np.testing.assert_allclose(report.cop_sole[t, k], [cop.x_c, cop.y_c], rtol=1e-15)
            one = contact.contact_feasibility(wrench[t, k], [0.8, 0.6][k], FOOT)
            assert report.foot_feasible[t, k] == one.feasible
        expected = world_resultant_by_hand(T, wrench[t], np.zeros(3))
        np.testing.assert_allclose(report.resultant[t], expected, atol=1e-11)
