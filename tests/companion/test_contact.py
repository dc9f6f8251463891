"""Contacts: grip twists and wrenches, internal loads, scaled singular values, the floating
base count, centre of pressure, contact feasibility and contact power.

Checks come from the seed's numbers and hand derivations (20 -> 14 -> 8, diag(100, 0.01),
the centre-of-pressure signs from r x F, the plate-depth shift), from independent
computations (finite differences of a rigid motion, scipy's null space and convex hull,
determinants, constraints.mobility on structured Jacobians, spatial transforms), and from
hypothesis properties (exercise 5: power invariance and zero-resultant hand forces;
exercise 6: CoP and free moment recovered from a known force, point and couple).  Bad and
degenerate input is tested last.
"""

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull
from strategies import examples, poses, vectors

from geomotion import constraints, contact, spatial

PROPERTY = settings(max_examples=examples(40))
UNIT_SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


def coordinate(low, high):
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)


def hand_grasp_matrix(points):
    """G written out column by column: column 3i + j is the wrench of a unit force e_j at r_i."""
    columns = []
    for r in points:
        for e in np.eye(3):
            columns.append(np.concatenate([np.cross(r, e), e]))
    return np.array(columns).T


def triple(cop):
    """The three numbers of a CenterOfPressure (which does not unpack by itself)."""
    return cop.x_c, cop.y_c, cop.free_moment


def plate_wrench(point, force, free_moment):
    """Moment-first wrench about the plate origin of `force` through `point` plus a z couple."""
    return np.concatenate([np.cross(point, force) + [0.0, 0.0, free_moment], force])


# --- seed numbers: the floating-base count ------------------------------------------------


def test_floating_base_count_is_20_then_14_then_8():
    assert contact.floating_base_mobility() == 20  # 6 + 7 + 7
    assert contact.floating_base_mobility(stationary_feet=1) == 14
    assert contact.floating_base_mobility(stationary_feet=2) == 8
    # Forgetting the floating pelvis (14 joints minus 12) gives the seed's wrong count.
    assert contact.floating_base_mobility(base_dof=0, stationary_feet=2) == 2
    # Point contacts without slip constrain 3 components each: 20 - 6.
    assert contact.floating_base_mobility(stationary_feet=2, constraints_per_foot=3) == 14
    assert contact.floating_base_mobility(leg_joints=(6, 6, 6, 6), stationary_feet=4) == 6


def test_floating_base_count_reaches_zero_and_refuses_one_constraint_more():
    # Two 3-joint legs on a floating base, both feet rigid: 6 + 3 + 3 - 2 x 6 = 0, a legal
    # count (the body is held).  A generic Jacobian of those 12 constraints is square and
    # regular: its mobility is 0 as well.
    assert contact.floating_base_mobility(leg_joints=(3, 3), stationary_feet=2) == 0
    J_c = np.random.default_rng(3).normal(size=(12, 12))
    assert constraints.mobility(J_c) == 0
    assert contact.floating_base_mobility(leg_joints=(), base_dof=0) == 0  # nothing to move
    # One coordinate fewer (6 + 3 + 2 = 11 against 12 constraints) cannot be independent.
    with pytest.raises(ValueError, match="^stationary_feet: 2 feet x 6 constraints exceed the 11"):
        contact.floating_base_mobility(leg_joints=(3, 2), stationary_feet=2)


def foot_constraint_jacobian(rng, feet):
    """Rows [Ad_i, J_leg_i, 0] of stationary feet on a 6-D base with two 7-joint legs."""
    J_legs = [rng.normal(size=(6, 7)) for _ in range(2)]
    rows = []
    for foot in range(feet):
        T = np.eye(4)
        T[:3, :3] = scipy.linalg.expm(spatial.skew(rng.normal(size=3)))
        T[:3, 3] = rng.normal(size=3)
        leg_blocks = [J_legs[i] if i == foot else np.zeros((6, 7)) for i in range(2)]
        rows.append(np.hstack([spatial.motion_transform(T)] + leg_blocks))
    return np.vstack(rows)


def test_count_matches_the_rank_of_generic_foot_constraints_and_bounds_singular_ones():
    rng = np.random.default_rng(8)
    for feet in (1, 2):
        J_c = foot_constraint_jacobian(rng, feet)
        assert constraints.mobility(J_c) == contact.floating_base_mobility(stationary_feet=feet)
    # Both legs singular in the same direction seen from the base (Jacobians Ad_i K_i with
    # the last row of K_i zero): row-reducing [Ad_1, Ad_1 K_1, 0; Ad_2, 0, Ad_2 K_2] leaves
    # [0, -K_1, K_2] of rank 5, so the 12 constraints have rank 11 and the local mobility
    # 9 exceeds the count 8 -- the count is a lower bound there.
    K = [rng.normal(size=(6, 7)) * np.r_[np.ones(5), 0.0][:, None] for _ in range(2)]
    Ts = [np.eye(4), np.eye(4)]
    Ts[1][:3, 3] = [0.3, -0.2, 0.1]
    singular_legs = [spatial.motion_transform(T) @ k for T, k in zip(Ts, K)]
    rows = [
        np.hstack([spatial.motion_transform(Ts[0]), singular_legs[0], np.zeros((6, 7))]),
        np.hstack([spatial.motion_transform(Ts[1]), np.zeros((6, 7)), singular_legs[1]]),
    ]
    assert constraints.mobility(np.vstack(rows), rtol=1e-10) == 9
    assert contact.floating_base_mobility(stationary_feet=2) == 8


# --- seed numbers: singular values need scales ----------------------------------------------


def test_diag_100_001_has_volume_one_but_condition_number_ten_thousand():
    J = np.diag([100.0, 0.01])
    report = contact.scaled_singular_values(J, row_scale=1.0, column_scale=1.0)
    np.testing.assert_allclose(report.singular_values, [100.0, 0.01], rtol=1e-15)
    assert report.volume == pytest.approx(np.sqrt(np.linalg.det(J @ J.T)), rel=1e-14)
    assert report.volume == pytest.approx(1.0, rel=1e-14)
    assert report.condition_number == pytest.approx(1e4, rel=1e-14)
    assert report.condition_number == pytest.approx(np.linalg.cond(J), rel=1e-14)


@PROPERTY
@given(st.integers(1, 4), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_scaled_measures_match_an_explicitly_scaled_matrix(m, n, seed):
    rng = np.random.default_rng(seed)
    J = rng.normal(size=(m, n))
    rows, cols = rng.uniform(0.1, 10, size=m), rng.uniform(0.1, 10, size=n)
    J_s = np.diag(1 / rows) @ J @ np.diag(cols)
    report = contact.scaled_singular_values(J, row_scale=rows, column_scale=cols)
    s = scipy.linalg.svdvals(J_s)
    np.testing.assert_allclose(report.singular_values, s, rtol=1e-13)  # worst ~4e-15
    assert report.condition_number == pytest.approx(s[0] / s[-1], rel=1e-10)
    # sqrt(det(J_s J_s^T)) by a determinant; 0 up to rounding when m > n.
    det = np.linalg.det(J_s @ J_s.T)
    expected = np.sqrt(det) if m <= n else 0.0
    assert report.volume == pytest.approx(expected, rel=1e-10, abs=1e-12 * s[0] ** m)


def test_declared_length_scale_makes_twist_measures_independent_of_the_length_unit():
    rng = np.random.default_rng(3)
    J_m = rng.normal(size=(6, 7))  # linear rows in m/s per rad/s
    J_cm = J_m * np.r_[1, 1, 1, 100, 100, 100][:, None]  # the same Jacobian in cm/s
    in_m = contact.scaled_singular_values(
        J_m, row_scale=contact.twist_row_scale(0.9), column_scale=1.0
    )
    in_cm = contact.scaled_singular_values(
        J_cm, row_scale=contact.twist_row_scale(90.0), column_scale=1.0
    )
    np.testing.assert_allclose(in_cm.singular_values, in_m.singular_values, rtol=1e-12)
    assert in_cm.volume == pytest.approx(in_m.volume, rel=1e-12)
    # Without a declared scale (unit rows) the numbers change with the unit.
    raw_m = contact.scaled_singular_values(J_m, row_scale=1.0, column_scale=1.0)
    raw_cm = contact.scaled_singular_values(J_cm, row_scale=1.0, column_scale=1.0)
    assert raw_cm.volume / raw_m.volume > 1e5


def test_twist_row_scale_and_batches():
    np.testing.assert_array_equal(contact.twist_row_scale(0.5), [1, 1, 1, 0.5, 0.5, 0.5])
    assert contact.twist_row_scale([0.5, 2.0]).shape == (2, 6)
    J = np.stack([np.diag([100.0, 0.01]), np.diag([2.0, 3.0])])
    report = contact.scaled_singular_values(J, row_scale=[1.0, 1.0], column_scale=1.0)
    np.testing.assert_allclose(report.condition_number, [1e4, 1.5], rtol=1e-14)
    np.testing.assert_allclose(report.volume, [1.0, 6.0], rtol=1e-14)


# --- grip kinematics --------------------------------------------------------------------


@PROPERTY
@given(vectors(6), vectors(3), vectors(3))
def test_contact_velocity_is_the_derivative_of_the_rigidly_moving_point(V, r_L, r_R):
    V = V / 10  # |omega| <= 1.8 rad/s
    r_L, r_R = r_L / 10, r_R / 10  # within 1.8 m
    v_L = contact.contact_point_velocity(V, r_L)
    v_R = contact.contact_point_velocity(V, r_R)

    def point(t, r):  # the point fixed in the club: p(t) = exp(t [omega]) r + t v_O
        return scipy.linalg.expm(t * spatial.skew(V[:3])) @ r + t * V[3:]

    h = 1e-5
    for r, v in ((r_L, v_L), (r_R, v_R)):
        fd = (point(h, r) - point(-h, r)) / (2 * h)
        np.testing.assert_allclose(v, fd, atol=5e-9)  # central difference: worst ~6e-11
    np.testing.assert_allclose(v_L - v_R, np.cross(V[:3], r_L - r_R), atol=1e-12)
    # The same point velocity as the linear part of the twist moved to the contact frame.
    moved = spatial.motion_transform(spatial.pose(np.eye(3), -r_L)) @ V
    np.testing.assert_allclose(v_L, moved[3:], atol=1e-12)


def test_contact_velocities_broadcast_over_contacts_and_twists():
    V = np.array([[0, 0, 2.0, 1, 0, 0], [1.0, 0, 0, 0, 0, 0]])
    r = np.array([[[0.1, 0, 0], [0, 0.2, 0]], [[0, 0, 0.5], [0, 0.5, 0]]])
    v = contact.contact_point_velocity(V[:, None, :], r)
    # omega x r by hand: (0,0,2) x (0.1,0,0) = (0, 0.2, 0); (0,0,2) x (0,0.2,0) = (-0.4, 0, 0)
    # (1,0,0) x (0,0,0.5) = (0, -0.5, 0); (1,0,0) x (0,0.5,0) = (0, 0, 0.5)
    expected = [[[1, 0.2, 0], [0.6, 0, 0]], [[0, -0.5, 0], [0, 0, 0.5]]]
    np.testing.assert_allclose(v, expected, atol=1e-15)


# --- grip statics and internal forces ----------------------------------------------------


def test_grip_wrench_hand_example_and_point_force_transport():
    r_L, f_L = np.array([0, 0, 0.30]), np.array([10.0, 0, 0])
    r_R, f_R = np.array([0, 0, 0.20]), np.array([-4.0, 0, 5])
    # f = (6, 0, 5); n = (0, 0.3*10, 0) + (0, 0.2*(-4), 0) = (0, 2.2, 0)
    F = contact.grip_wrench(r_L, r_R, f_L, f_R)
    np.testing.assert_allclose(F, [0, 2.2, 0, 6, 0, 5], atol=1e-15)
    # Independently: each hand force is a pure force at its contact frame, moved to O.
    moved = sum(
        spatial.force_transform(spatial.pose(np.eye(3), r)) @ np.r_[0, 0, 0, f]
        for r, f in ((r_L, f_L), (r_R, f_R))
    )
    np.testing.assert_allclose(F, moved, atol=1e-15)


@PROPERTY
@given(st.lists(vectors(3), min_size=1, max_size=5), st.integers(0, 2**32 - 1), vectors(6))
def test_resultant_equals_grasp_matrix_product_and_has_the_point_forces_power(r, seed, V):
    r = np.array(r) / 10
    f = np.random.default_rng(seed).normal(size=r.shape) * 100
    F = contact.resultant_wrench(r, f)
    G = contact.grasp_matrix(r)
    np.testing.assert_allclose(G, hand_grasp_matrix(r), atol=0)
    np.testing.assert_allclose(F, G @ f.reshape(-1), atol=1e-11)
    # Virtual power: the resultant on the twist equals sum_i f_i . (v_O + omega x r_i).
    by_points = sum(fi @ (V[3:] + np.cross(V[:3], ri)) for ri, fi in zip(r, f))
    assert contact.contact_power(F, V) == pytest.approx(by_points, rel=1e-10, abs=1e-9)


@PROPERTY
@given(vectors(3), vectors(3), vectors(3), vectors(3), coordinate(-1e3, 1e3))
def test_internal_grip_forces_never_change_the_resultant(r_L, r_R, f_L, f_R, a):
    r_L, r_R, f_L, f_R = r_L / 10, r_R / 10, 10 * f_L, 10 * f_R
    pair = contact.internal_grip_forces(r_L, r_R, a)
    df_L, df_R = pair.df_L, pair.df_R
    np.testing.assert_allclose(df_L, a * (r_L - r_R), atol=0)
    np.testing.assert_allclose(df_L + df_R, 0.0, atol=0)
    before = contact.grip_wrench(r_L, r_R, f_L, f_R)
    after = contact.grip_wrench(r_L, r_R, f_L + df_L, f_R + df_R)
    np.testing.assert_allclose(after, before, atol=1e-11)  # worst ~5e-13 seen at |a| ~ 1e3


def test_exercise_5_a_nonzero_hand_pair_with_zero_resultant():
    r_L, r_R = np.array([0.02, 0.0, 0.25]), np.array([0.0, 0.01, 0.15])
    pair = contact.internal_grip_forces(r_L, r_R, 400.0)
    df_L, df_R = pair.df_L, pair.df_R  # 400 N/m along 0.102 m
    np.testing.assert_allclose(df_L, [8.0, -4.0, 40.0], atol=1e-12)
    assert np.linalg.norm(df_L) > 40
    np.testing.assert_allclose(contact.grip_wrench(r_L, r_R, df_L, df_R), 0.0, atol=1e-14)
    # Its moment about any other point vanishes too (zero resultant force).
    shifted = contact.grip_wrench(r_L - [1, 2, 3], r_R - [1, 2, 3], df_L, df_R)
    np.testing.assert_allclose(shifted, 0.0, atol=1e-13)


def non_collinear_points(draw_seed, k, spread=1.0, offset=0.0):
    rng = np.random.default_rng(draw_seed)
    return offset + spread * rng.normal(size=(k, 3))


@PROPERTY
@given(st.integers(3, 6), st.integers(0, 2**32 - 1))
def test_internal_force_basis_is_the_full_null_space_of_the_grasp_matrix(k, seed):
    r = non_collinear_points(seed, k, spread=0.2)
    N = contact.internal_force_basis(r)
    assert N.shape == (3 * k, 3 * k - 6)
    G = hand_grasp_matrix(r)
    np.testing.assert_allclose(G @ N, 0.0, atol=1e-13)  # ~1e-16 achieved
    np.testing.assert_allclose(N.T @ N, np.eye(3 * k - 6), atol=1e-13)
    Z = scipy.linalg.null_space(G)  # independent basis: the two projectors agree
    np.testing.assert_allclose(N @ N.T, Z @ Z.T, atol=1e-13)  # ~1e-15 achieved


@PROPERTY
@given(vectors(3), vectors(3).filter(lambda d: np.linalg.norm(d) > 0.1))
def test_two_distinct_hands_have_one_internal_direction_the_squeeze(r_R, separation):
    r_R = r_R / 10
    r_L = r_R + separation / 10
    N = contact.internal_force_basis(np.stack([r_L, r_R]))
    assert N.shape == (6, 1)  # rank 5: no moment about the line through the hands
    pair = contact.internal_grip_forces(r_L, r_R, 1.0)
    df_L, df_R = pair.df_L, pair.df_R
    squeeze = np.r_[df_L, df_R] / np.linalg.norm(np.r_[df_L, df_R])
    assert abs(N[:, 0] @ squeeze) == pytest.approx(1.0, abs=1e-12)


def test_internal_dimension_for_degenerate_contact_sets():
    line = np.outer([0.0, 0.1, 0.3, 0.45], [0.3, -0.2, 0.6]) + [0.1, 0.2, 0.3]
    assert contact.internal_force_basis(line[:3]).shape == (9, 4)  # 9 - 5
    assert contact.internal_force_basis(line).shape == (12, 7)  # 12 - 5
    same = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]])
    N = contact.internal_force_basis(same)  # coincident: any (g, -g) is internal, 6 - 3
    assert N.shape == (6, 3)
    np.testing.assert_allclose(N[:3] + N[3:], 0.0, atol=1e-15)
    assert contact.internal_force_basis([[0.1, 0.2, 0.3]]).shape == (3, 0)  # one point


def test_internal_basis_does_not_depend_on_reference_point_or_length_unit():
    r = non_collinear_points(5, 4, spread=0.01, offset=2.0)  # fingertips 1 cm apart, 2 m out
    N_m = contact.internal_force_basis(r)
    N_mm = contact.internal_force_basis(1000 * (r - [2.0, 2.0, 2.0]))
    assert N_m.shape == N_mm.shape == (12, 6)
    np.testing.assert_allclose(N_m @ N_m.T, N_mm @ N_mm.T, atol=1e-12)
    batch = np.stack([r, 3 * r])
    for Nb, rb in zip(contact.internal_force_basis(batch), batch):
        np.testing.assert_allclose(hand_grasp_matrix(rb) @ Nb, 0.0, atol=1e-13)


def test_near_collinear_decision_is_relative_to_the_contact_spread():
    # The third contact is 10 um off the line of the first two (spread about 8 cm): the
    # normalized grasp matrix has smallest/largest singular value 2.9e-5, whatever the
    # unit or origin, while the raw matrix's ratio ranges from 4e-11 to 2e-5.
    r = np.array([[0, 0, 0], [0.1, 0, 0], [0.2, 1e-5, 0]])
    for variant in (r, 1000 * r, 1000 * (r + 5.0), r + [3.0, -4.0, 2.0]):
        assert contact.internal_force_basis(variant, rtol=1e-6).shape == (9, 3)  # 9 - 6
        assert contact.internal_force_basis(variant, rtol=1e-4).shape == (9, 4)  # collinear


# --- exercise 5: power invariance ------------------------------------------------------


@PROPERTY
@given(poses(), vectors(6), vectors(6))
def test_power_is_invariant_under_a_change_of_frame(T_AB, F_B, V_B):
    R, p = T_AB[:3, :3], T_AB[:3, 3]
    F_A = spatial.force_transform(T_AB) @ F_B
    V_A = spatial.motion_transform(T_AB) @ V_B
    # The seed's formulas, written out: n_A = R n_B + p x R f_B, v_A = R v_B + p x R w_B.
    np.testing.assert_allclose(F_A[:3], R @ F_B[:3] + np.cross(p, R @ F_B[3:]), atol=1e-12)
    np.testing.assert_allclose(V_A[3:], R @ V_B[3:] + np.cross(p, R @ V_B[:3]), atol=1e-12)
    np.testing.assert_allclose(spatial.motion_transform(T_AB).T @ F_A, F_B, atol=1e-11)
    P_B = contact.contact_power(F_B, V_B)
    assert contact.contact_power(F_A, V_A) == pytest.approx(P_B, abs=1e-10)  # worst ~2e-11
    assert P_B == pytest.approx(F_B[:3] @ V_B[:3] + F_B[3:] @ V_B[3:], abs=1e-12)


def test_stationary_foot_receives_zero_power_but_a_pivoting_one_does_not():
    big = np.array([350.0, -80.0, 25.0, 400.0, -150.0, 1800.0])
    assert contact.contact_power(big, np.zeros(6)) == 0.0
    batch = np.random.default_rng(2).normal(size=(5, 6)) * 1e3
    np.testing.assert_array_equal(contact.contact_power(batch, np.zeros(6)), np.zeros(5))
    # Heel H fixed (v_H = 0) while the foot pivots about the heel at 2 rad/s about y:
    # no slip at H, yet a 20 N m moment about y does 20 * 2 = 40 W.
    F_H = np.array([0, 20.0, 0, 0, 0, 700.0])
    V_H = np.array([0, 2.0, 0, 0, 0, 0])
    assert contact.contact_power(F_H, V_H) == pytest.approx(40.0, abs=1e-12)
    T_toe_heel = spatial.pose(np.eye(3), [-0.2, 0, 0])  # about the toe, 0.2 m ahead
    F_toe = spatial.force_transform(T_toe_heel) @ F_H
    V_toe = spatial.motion_transform(T_toe_heel) @ V_H
    assert contact.contact_power(F_toe, V_toe) == pytest.approx(40.0, abs=1e-12)


# --- exercise 6: the centre of pressure ---------------------------------------------------

CENTRES = coordinate(-0.4, 0.4)
TANGENTIAL = coordinate(-500, 500)
NORMAL = coordinate(50, 2000)
COUPLE = coordinate(-30, 30)


@PROPERTY
@given(CENTRES, CENTRES, TANGENTIAL, TANGENTIAL, NORMAL, COUPLE, coordinate(0, 0.1))
def test_cop_and_free_moment_recovered_from_a_known_force_point_and_couple(
    x_c, y_c, F_x, F_y, F_z, T, depth
):
    force = np.array([F_x, F_y, F_z])
    # In plate coordinates the surface point (x_c, y_c, 0) sits at height `depth`.
    wrench = plate_wrench([x_c, y_c, depth], force, T)
    got = triple(contact.center_of_pressure(wrench, depth=depth))
    np.testing.assert_allclose(got, [x_c, y_c, T], atol=1e-12)  # worst ~7e-14 (free moment)
    # The reported body-on-plate wrench is the negative: same answer.
    flipped = triple(contact.center_of_pressure(-wrench, depth=depth, convention="body_on_plate"))
    np.testing.assert_allclose(flipped, got, atol=1e-15)


def test_cop_signs_from_r_cross_f_by_hand():
    # 800 N up through (0.1, 0.05, 0): r x F = (0.05 * 800, -0.1 * 800, 0) = (40, -80, 0).
    x_c, y_c, free = triple(contact.center_of_pressure([40.0, -80.0, 0, 0, 0, 800.0]))
    assert (x_c, y_c, free) == pytest.approx((0.1, 0.05, 0.0), abs=1e-15)
    # Add tangential (30, -60, 0) N through the same point: r x F gains
    # (0, 0, x_c F_y - y_c F_x) = (0, 0, -6 - 1.5) = -7.5, plus a free moment of 4 N m.
    x_c, y_c, free = triple(contact.center_of_pressure([40.0, -80.0, -3.5, 30.0, -60.0, 800.0]))
    assert (x_c, y_c, free) == pytest.approx((0.1, 0.05, 4.0), abs=1e-14)


def test_free_moment_is_needed_to_reproduce_the_measured_moment():
    force = np.array([120.0, -40.0, 900.0])
    wrench = plate_wrench([0.08, -0.03, 0.0], force, 6.0)
    x_c, y_c, free = triple(contact.center_of_pressure(wrench))
    without = plate_wrench([x_c, y_c, 0.0], force, 0.0)
    with_free = plate_wrench([x_c, y_c, 0.0], force, free)
    np.testing.assert_allclose(without[[0, 1, 3, 4, 5]], wrench[[0, 1, 3, 4, 5]], atol=1e-13)
    assert without[2] - wrench[2] == pytest.approx(-6.0, abs=1e-13)  # M_z missed by 6 N m
    np.testing.assert_allclose(with_free, wrench, atol=1e-13)


def test_plate_origin_below_the_surface_needs_the_moment_shift():
    # 100 N forward, 800 N up through the surface point above the origin, origin 5 cm
    # below: moment about the origin (0, 0, 0.05) x (100, 0, 800) = (0, 5, 0) N m.
    wrench = np.array([0.0, 5.0, 0.0, 100.0, 0.0, 800.0])
    x_c, y_c, _ = triple(contact.center_of_pressure(wrench, depth=0.05))
    assert (x_c, y_c) == pytest.approx((0.0, 0.0), abs=1e-15)
    x_wrong, _, _ = triple(contact.center_of_pressure(wrench))  # shift omitted: -5/800 = -6.25 mm
    assert x_wrong == pytest.approx(-0.00625, abs=1e-15)
    # Sideways force: (0, 0, 0.05) x (0, 100, 800) = (-5, 0, 0) N m.
    x_c, y_c, _ = triple(contact.center_of_pressure([-5.0, 0, 0, 0, 100.0, 800.0], depth=0.05))
    assert (x_c, y_c) == pytest.approx((0.0, 0.0), abs=1e-15)


def test_cop_batches_with_per_sample_depth():
    rng = np.random.default_rng(6)
    points = np.c_[rng.uniform(-0.3, 0.3, size=(50, 2)), rng.uniform(0, 0.05, 50)]
    forces = np.c_[rng.uniform(-200, 200, size=(50, 2)), rng.uniform(100, 1500, 50)]
    couples = rng.uniform(-10, 10, 50)
    wrenches = np.array([plate_wrench(*args) for args in zip(points, forces, couples)])
    x_c, y_c, free = triple(contact.center_of_pressure(wrenches, depth=points[:, 2]))
    assert x_c.shape == y_c.shape == free.shape == (50,)
    np.testing.assert_allclose(np.c_[x_c, y_c, free], np.c_[points[:, :2], couples], atol=1e-12)


def swing_phase_series():
    """A force-plate series: stance samples with known CoP and free moment, and three
    unloaded ones (no load; 5 N under a 10 N floor; 1e-5 N under 50 N of traction)."""
    rng = np.random.default_rng(7)
    points = np.c_[rng.uniform(-0.3, 0.3, size=(8, 2)), np.full(8, 0.04)]
    forces = np.c_[rng.uniform(-200, 200, size=(8, 2)), rng.uniform(100, 1500, 8)]
    couples = rng.uniform(-10, 10, 8)
    stance = np.array([plate_wrench(*args) for args in zip(points, forces, couples)])
    swing = [np.zeros(6), [0.1, -0.2, 0.0, 1.0, 2.0, 5.0], [0.0, 0.0, 0.0, 50.0, 0.0, 1e-5]]
    wrenches = np.concatenate([stance[:3], swing[:1], stance[3:6], swing[1:], stance[6:]])
    loaded = np.array([1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1], dtype=bool)  # by construction
    expected = np.full((11, 3), np.nan)
    expected[loaded] = np.c_[points[:, :2], couples]
    return wrenches, loaded, expected


def test_swing_phase_samples_get_nan_and_a_mask_and_stance_samples_their_cop():
    wrenches, loaded, expected = swing_phase_series()
    options = {"depth": 0.04, "min_normal_force": 10.0}
    cop = contact.center_of_pressure(wrenches, **options)
    x_c, y_c, free = triple(cop)
    np.testing.assert_array_equal(cop.loaded, loaded)
    np.testing.assert_array_equal(
        np.isnan(np.c_[x_c, y_c, free]), np.repeat(~loaded[:, None], 3, 1)
    )
    # Stance samples: the known forces' points and couples (an independent route) ...
    np.testing.assert_allclose(np.c_[x_c, y_c, free], expected, atol=1e-12)  # NaN == NaN
    # ... and sample by sample the same as single calls; single swing samples still raise.
    for wrench, is_loaded, row in zip(wrenches, loaded, np.c_[x_c, y_c, free]):
        if is_loaded:
            np.testing.assert_array_equal(
                triple(contact.center_of_pressure(wrench, **options)), row
            )
        else:
            with pytest.raises(ValueError, match="^wrench: expected a normal load"):
                contact.center_of_pressure(wrench, **options)
    # Two plates side by side (batch shape (2, 11)): the mask follows the batch shape.
    two = contact.center_of_pressure(np.stack([wrenches, wrenches[::-1]]), **options)
    np.testing.assert_array_equal(two.loaded, [loaded, loaded[::-1]])
    np.testing.assert_array_equal(two.y_c[1], y_c[::-1])


def test_batched_unloaded_samples_are_reported_and_a_single_one_refused():
    cop = contact.center_of_pressure(np.zeros((1, 6)))  # a batch of one
    assert cop.x_c.shape == (1,) and np.isnan(cop.free_moment[0]) and not cop.loaded[0]
    # Without a noise floor: 1e-5 N against 50 N of traction is under the default rtol = 1e-6.
    cop = contact.center_of_pressure([[1.0, 2.0, 0, 50.0, 0, 1e-5], [1.0, 2.0, 0, 50.0, 0, 1.0]])
    np.testing.assert_array_equal(cop.loaded, [False, True])
    np.testing.assert_allclose(cop.y_c, [np.nan, 1.0], rtol=1e-15)
    with pytest.raises(ValueError, match=r"^wrench:.*got F_z = 0 N.*undefined$"):
        contact.center_of_pressure(np.zeros(6))


def test_feasibility_reports_swing_samples_per_sample_like_single_calls():
    wrenches, loaded, _ = swing_phase_series()
    options = {"depth": 0.04, "min_normal_force": 10.0}
    foot = np.array([[-0.4, -0.4], [0.4, -0.4], [0.4, 0.4], [-0.4, 0.4]])
    report = contact.contact_feasibility(wrenches, 0.8, foot, **options)
    # The two swing samples with F_z <= 10 N are not compressive; the 1e-5 N one neither.
    np.testing.assert_array_equal(report.compressive, loaded)
    for i, wrench in enumerate(wrenches):
        single = contact.contact_feasibility(wrench, 0.8, foot, **options)
        for name in ("normal_margin", "friction_margin", "support_margin", "feasible"):
            np.testing.assert_array_equal(getattr(single, name), getattr(report, name)[i])


def test_tensile_normal_load_still_has_a_cop_but_is_not_feasible():
    wrench = plate_wrench([0.5, 0.5, 0.0], np.array([0.0, 0.0, -300.0]), 0.0)
    x_c, y_c, _ = triple(contact.center_of_pressure(wrench))
    assert (x_c, y_c) == pytest.approx((0.5, 0.5), abs=1e-15)
    report = contact.contact_feasibility(wrench, 0.8, UNIT_SQUARE)
    assert not report.compressive and not report.cop_in_support and not report.feasible
    # Pulling through (1.5, 0.5): the edge-line distances are 1.5, -0.5, 0.5, 0.5 m, and
    # min_e F_z d_e = -300 * 1.5 picks the largest, so a tension never has a positive margin.
    outside = plate_wrench([1.5, 0.5, 0.0], np.array([0.0, 0.0, -300.0]), 0.0)
    report = contact.contact_feasibility(outside, 0.8, UNIT_SQUARE)
    assert report.support_margin == pytest.approx(-450.0, abs=1e-12)
    assert not report.cop_in_support and not report.feasible


def test_unloaded_foot_is_not_supported_although_its_margins_are_zero():
    report = contact.contact_feasibility(np.zeros(6), 0.8, UNIT_SQUARE)
    assert report.support_margin == 0.0 and report.friction_margin == 0.0
    assert report.within_friction_cone and not report.compressive
    assert not report.cop_in_support and not report.feasible


# --- contact feasibility ----------------------------------------------------------------


def test_feasibility_margins_by_hand_on_a_unit_square():
    Fz = 600.0
    # CoP (0.5, 0.5): M = (y_c Fz, -x_c Fz) = (300, -300); tangential 0.6 Fz with mu = 0.5.
    report = contact.contact_feasibility([300.0, -300.0, 0, 360.0, 0, Fz], 0.5, UNIT_SQUARE)
    assert report.normal_force == Fz and report.tangential_force == pytest.approx(360.0)
    assert report.friction_margin == pytest.approx(0.5 * Fz - 360.0, abs=1e-12)  # -60 N
    assert report.support_margin == pytest.approx(0.5 * Fz, abs=1e-12)  # 0.5 m from edges
    assert report.compressive and report.cop_in_support
    assert not report.within_friction_cone and not report.feasible
    # CoP (1.2, 0.5): 0.2 m outside the right edge; within the cone now.
    report = contact.contact_feasibility([300.0, -720.0, 0, 200.0, 0, Fz], 0.5, UNIT_SQUARE)
    assert report.support_margin == pytest.approx(-0.2 * Fz, abs=1e-11)
    assert report.within_friction_cone and not report.cop_in_support and not report.feasible
    report = contact.contact_feasibility(
        [300.0, -300.0, 0, 100.0, 0, Fz], 0.5, UNIT_SQUARE, min_normal_force=700.0
    )
    assert report.normal_margin == pytest.approx(-100.0) and not report.compressive


@PROPERTY
@given(st.integers(0, 2**32 - 1), CENTRES, CENTRES, NORMAL, st.booleans())
def test_support_margin_is_normal_load_times_distance_to_hull_facets(seed, x_c, y_c, F_z, cw):
    rng = np.random.default_rng(seed)
    hull = ConvexHull(rng.uniform(-0.3, 0.3, size=(12, 2)))
    polygon = hull.points[hull.vertices]  # counter-clockwise
    polygon = polygon[::-1] if cw else polygon
    # scipy: equations [a, b] with unit outward a and a.x + b <= 0 inside.
    distance = np.min(-(hull.equations[:, :2] @ [x_c, y_c] + hull.equations[:, 2]))
    wrench = plate_wrench([x_c, y_c, 0.0], np.array([0.0, 0.0, F_z]), 0.0)
    report = contact.contact_feasibility(wrench, 1.0, polygon)
    assert report.support_margin == pytest.approx(F_z * distance, abs=1e-11)  # worst ~2e-13
    assert bool(report.cop_in_support) == (distance >= 0)


def test_feasibility_batches_over_wrenches_and_polygons():
    wrenches = np.array([[300.0, -300.0, 0, 0, 0, 600.0], [0, 0, 0, 0, 0, -10.0]])
    report = contact.contact_feasibility(wrenches, [0.5, 0.5], UNIT_SQUARE)
    np.testing.assert_array_equal(report.feasible, [True, False])
    shifted = np.stack([UNIT_SQUARE, UNIT_SQUARE + 0.6])  # the second misses (0.5, 0.5)
    report = contact.contact_feasibility(wrenches[0], 0.5, shifted)
    np.testing.assert_array_equal(report.cop_in_support, [True, False])
    np.testing.assert_allclose(report.support_margin, [300.0, -0.1 * 600], atol=1e-12)


# --- bad and degenerate input ------------------------------------------------------------


@pytest.mark.parametrize("Fz", [0.0, 1e-5])
def test_cop_refuses_near_zero_normal_load(Fz):
    with pytest.raises(ValueError, match="wrench: expected a normal load"):
        contact.center_of_pressure([1.0, 2.0, 0, 50.0, 0, Fz])  # 1e-5 / 50 < 1e-6


def test_cop_noise_floor_and_its_checks():
    assert contact.center_of_pressure([0, 0, 0, 0, 0, 20.0], min_normal_force=10.0).x_c == 0
    with pytest.raises(ValueError, match="above 10 N"):
        contact.center_of_pressure([0, 0, 0, 0, 0, 5.0], min_normal_force=10.0)
    with pytest.raises(ValueError, match="min_normal_force: expected a scalar"):
        contact.center_of_pressure([0, 0, 0, 0, 0, 5.0], min_normal_force=[1.0, 2.0])
    with pytest.raises(ValueError, match="min_normal_force: expected non-negative"):
        contact.center_of_pressure([0, 0, 0, 0, 0, 5.0], min_normal_force=-1.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"convention": "plate_on_foot"}, "convention: expected one of"),
        (
            {"depth": -0.04},
            r"^depth: expected the distance in m of the plate origin below the contact "
            r"surface, so >= 0, got -0\.04;.* is depth=0\.04: pass the positive distance$",
        ),
        ({"depth": [0.05, -0.02]}, r"^depth:.*got -0\.02 at index \(1,\);.*depth=0\.02"),
        ({"depth": [0.0, 0.1, 0.2]}, "wrench, depth: expected leading"),
        ({"depth": np.nan}, "depth: expected finite"),
    ],
)
def test_cop_refuses_bad_options(kwargs, message):
    wrench = np.ones((2, 6))
    with pytest.raises(ValueError, match=message):
        contact.center_of_pressure(wrench, **kwargs)


def test_a_convention_that_is_not_a_string_is_a_type_error():
    with pytest.raises(TypeError, match="convention: expected one of the strings"):
        contact.center_of_pressure(np.ones((2, 6)), convention=None)
    with pytest.raises(TypeError, match="convention: expected one of the strings"):
        contact.contact_feasibility(np.ones(6), 0.5, UNIT_SQUARE, convention=-1)


@pytest.mark.parametrize(
    ("wrench", "message"),
    [
        ([1.0, 2.0, 3.0], r"wrench: expected shape \(\.\.\., 6\)"),
        ([0, 0, 0, 0, np.inf, 800.0], "wrench: expected finite"),
        (np.ones(6) * (1 + 1j), "wrench: expected real numbers"),
    ],
)
def test_cop_refuses_bad_wrenches(wrench, message):
    with pytest.raises(
        TypeError if "expected real numbers" in message else ValueError, match=message
    ):
        contact.center_of_pressure(wrench)


@pytest.mark.parametrize(
    ("polygon", "message"),
    [
        ([[0, 0], [1, 0], [0.5, 0.2], [1, 1], [0, 1]], "convex"),  # reflex vertex
        ([[0, 0], [1, 0], [1, 0], [0, 1]], "repeated vertex"),
        ([[0, 0], [1, 0], [2, 0]], "non-zero area"),
        ([[0, 0], [1, 0]], "V >= 3"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], r"support_polygon: expected shape \(\.\.\., 2\)"),
        (
            [[np.cos(a), np.sin(a)] for a in 4 * np.pi * np.arange(5) / 5],  # pentagram
            "convex",
        ),
    ],
)
def test_feasibility_refuses_bad_polygons(polygon, message):
    with pytest.raises(ValueError, match=message):
        contact.contact_feasibility([0, 0, 0, 0, 0, 100.0], 0.5, polygon)


def test_feasibility_refuses_negative_friction_and_accepts_frictionless_contact():
    with pytest.raises(ValueError, match="friction_coefficient: expected non-negative"):
        contact.contact_feasibility([0, 0, 0, 0, 0, 100.0], -0.1, UNIT_SQUARE)
    report = contact.contact_feasibility([50.0, -50.0, 0, 0, 0, 100.0], 0.0, UNIT_SQUARE)
    assert report.friction_margin == 0.0 and report.feasible  # mu = 0, no traction: boundary
    report = contact.contact_feasibility([50.0, -50.0, 0, 1.0, 0, 100.0], 0.0, UNIT_SQUARE)
    assert not report.within_friction_cone


def test_grip_functions_refuse_bad_shapes_and_values():
    with pytest.raises(ValueError, match=r"r: expected shape \(\.\.\., 3\)"):
        contact.contact_point_velocity(np.zeros(6), [1.0, 2.0])
    with pytest.raises(ValueError, match=r"V_O: expected shape \(\.\.\., 6\)"):
        contact.contact_point_velocity(np.zeros(3), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="V_O, r: expected leading"):
        contact.contact_point_velocity(np.zeros((2, 6)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="f_L: expected finite"):
        contact.grip_wrench([0, 0, 1.0], [0, 0, 0.0], [np.nan, 0, 0], [0, 0, 0.0])
    with pytest.raises(ValueError, match="r_L, r_R, f_L, f_R: expected leading"):
        contact.grip_wrench(np.zeros((2, 3)), np.zeros(3), np.zeros((3, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="squeeze: expected finite"):
        contact.internal_grip_forces([0, 0, 1.0], [0, 0, 0.0], np.inf)
    with pytest.raises(ValueError, match=r"r: expected shape \(\.\.\., k, 3\) with k >= 1"):
        contact.internal_force_basis(np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"r: expected shape \(\.\.\., k, 3\)"):
        contact.grasp_matrix([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="rtol: expected non-negative"):
        contact.internal_force_basis(np.eye(3), rtol=-1.0)
    mixed = np.stack([np.eye(3), np.outer([0.0, 1.0, 2.0], [1.0, 0.0, 0.0])])  # rank 6 and 5
    with pytest.raises(
        ValueError,
        match=r"r: expected the same contact geometry .*got rank 6 at batch element \(0,\) "
        r"and 5 at batch element \(1,\)",
    ):
        contact.internal_force_basis(mixed)


def test_coincident_hands_give_a_zero_squeeze_but_zero_a_is_legal():
    pair = contact.internal_grip_forces([0.1, 0, 0.2], [0.1, 0, 0.2], 500.0)
    df_L, df_R = pair.df_L, pair.df_R
    np.testing.assert_array_equal(df_L, 0.0)
    np.testing.assert_array_equal(df_R, 0.0)
    df_L = contact.internal_grip_forces(np.zeros((4, 3)), np.ones((4, 3)), [0, 1, 2, 3]).df_L
    np.testing.assert_array_equal(df_L[:, 0], [0, -1, -2, -3])


def test_scaled_singular_values_bad_and_degenerate_input():
    with pytest.raises(TypeError):  # scales must be declared: no silent unit choice
        contact.scaled_singular_values(np.eye(2))
    with pytest.raises(ValueError, match="row_scale: expected positive"):
        contact.scaled_singular_values(np.eye(2), row_scale=[1.0, 0.0], column_scale=1.0)
    with pytest.raises(ValueError, match=r"column_scale: expected a scalar or shape \(\.\.\., 2\)"):
        contact.scaled_singular_values(np.eye(2), row_scale=1.0, column_scale=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="J: expected at least one row"):
        contact.scaled_singular_values(np.zeros((0, 3)), row_scale=1.0, column_scale=1.0)
    with pytest.raises(ValueError, match="J: expected a matrix"):
        contact.scaled_singular_values(np.ones(3), row_scale=1.0, column_scale=1.0)
    with pytest.raises(ValueError, match="length_scale: expected positive"):
        contact.twist_row_scale(-1.0)
    # Rank deficient: condition number inf, volume 0 (legal answers, no warning).
    report = contact.scaled_singular_values([[1.0, 2.0], [2.0, 4.0]], row_scale=1, column_scale=1)
    assert report.condition_number == np.inf and report.volume == pytest.approx(0, abs=1e-15)
    zero = contact.scaled_singular_values(np.zeros((2, 3)), row_scale=1, column_scale=1)
    assert zero.condition_number == np.inf and zero.volume == 0.0
    tall = contact.scaled_singular_values(np.ones((3, 1)), row_scale=1, column_scale=1)
    assert tall.volume == 0.0 and tall.condition_number == 1.0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"leg_joints": (7, 7.5)},
            TypeError,
            r"leg_joints\[1\]: expected an integer >= 0, got 7.5",
        ),
        ({"leg_joints": (7, -1)}, ValueError, r"leg_joints\[1\]: expected an integer >= 0, got -1"),
        ({"leg_joints": 14}, TypeError, "leg_joints: expected a sequence"),
        ({"leg_joints": "77"}, TypeError, "leg_joints: expected a sequence"),
        ({"base_dof": 7}, ValueError, "base_dof: expected an integer >= 0 and <= 6, got 7"),
        ({"base_dof": True}, TypeError, "base_dof: expected an integer >= 0, got True"),
        (
            {"stationary_feet": 3},
            ValueError,
            "stationary_feet: expected an integer >= 0 and <= 2, got 3",
        ),
        (
            {"constraints_per_foot": 6.0},
            TypeError,
            "constraints_per_foot: expected an integer >= 0, got 6.0",
        ),
        (
            {"leg_joints": (1, 1), "base_dof": 0, "stationary_feet": 1},
            ValueError,
            "cannot all be indep",
        ),
    ],
)
def test_floating_base_count_refuses_bad_counts(kwargs, error, message):
    with pytest.raises(error, match=message):
        contact.floating_base_mobility(**kwargs)


def test_floating_base_count_reads_numpy_integers_passed_by_name():
    legs = np.array([7, 7])
    assert (
        contact.floating_base_mobility(
            leg_joints=legs, base_dof=np.int64(6), stationary_feet=np.int32(2)
        )
        == 8
    )
    assert isinstance(contact.floating_base_mobility(leg_joints=legs), int)
    with pytest.raises(TypeError):  # options are keyword-only (book/api_convention.md)
        contact.floating_base_mobility(legs)


def test_results_are_read_by_name_and_options_by_keyword():
    cop = contact.center_of_pressure([40.0, -80.0, 0, 0, 0, 800.0])
    with pytest.raises(TypeError):
        x_c, y_c, free = cop  # noqa: F841 -- a frozen dataclass does not unpack
    assert bool(cop.loaded) and cop.x_c == pytest.approx(0.1, abs=1e-15)
    pair = contact.internal_grip_forces([0, 0, 0.3], [0, 0, 0.2], 100.0)
    with pytest.raises(TypeError):
        df_L, df_R = pair  # noqa: F841
    with pytest.raises(AttributeError):  # frozen
        pair.df_L = np.zeros(3)
    with pytest.raises(TypeError):
        contact.center_of_pressure(np.r_[0, 0, 0, 0, 0, 800.0], 0.04)
    with pytest.raises(TypeError):
        contact.contact_feasibility(np.r_[0, 0, 0, 0, 0, 800.0], 0.5, UNIT_SQUARE, 0.04)
    with pytest.raises(TypeError):
        contact.internal_force_basis(np.eye(3), 1e-6)
    assert not hasattr(contact, "NORMAL_LOAD_RTOL")  # the threshold is the keyword rtol


def test_the_normal_load_ratio_is_a_per_call_keyword():
    # 1e-5 N against 50 N of traction: |F_z| / |f| = 2e-7, under the documented default
    # rtol = 1e-6 (unloaded) but above rtol = 1e-8 (loaded, CoP at M_x / F_z = 2e5 m).
    wrench = [2.0, 0.0, 0, 50.0, 0, 1e-5]
    with pytest.raises(ValueError, match=r"rtol = 1e-06 times \|f\|"):
        contact.center_of_pressure(wrench)
    cop = contact.center_of_pressure(wrench, rtol=1e-8)
    assert cop.y_c == pytest.approx(2e5, rel=1e-12)
    with pytest.raises(ValueError, match="rtol: expected non-negative"):
        contact.center_of_pressure(wrench, rtol=-1.0)
    with pytest.raises(ValueError, match="rtol: expected a scalar"):
        contact.center_of_pressure(wrench, rtol=[1e-6, 1e-7])


def test_contact_power_refuses_mismatched_batches_and_shapes():
    with pytest.raises(ValueError, match="wrench, twist: expected leading"):
        contact.contact_power(np.zeros((2, 6)), np.zeros((3, 6)))
    with pytest.raises(ValueError, match=r"twist: expected shape \(\.\.\., 6\)"):
        contact.contact_power(np.zeros(6), np.zeros(3))


@PROPERTY
@given(coordinate(-np.pi, np.pi), CENTRES, CENTRES, TANGENTIAL, NORMAL, COUPLE)
def test_cop_of_a_plate_turned_about_z_turns_with_it(theta, x_c, y_c, F_x, F_z, T):
    wrench_P = plate_wrench([x_c, y_c, 0.0], np.array([F_x, 0.0, F_z]), T)
    R = spatial.rot_z(theta)  # plate axes P turned by theta in the lab axes L, same origin
    wrench_L = spatial.force_transform(spatial.pose(R, np.zeros(3))) @ wrench_P
    x_L, y_L, free_L = triple(contact.center_of_pressure(wrench_L))
    np.testing.assert_allclose([x_L, y_L], R[:2, :2] @ [x_c, y_c], atol=1e-12)
    assert free_L == pytest.approx(T, abs=1e-12)  # about z: unchanged (~5e-14 achieved)
