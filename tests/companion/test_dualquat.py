"""Dual-quaternion poses: hand-derived components, composition, constraints, local DOF, bad input.

Expected values are derived by hand in the comments (Hamilton product, scalar-first,
q_d = p q_r / 2) or taken from independent matrix algebra (4x4 products, numpy.linalg.inv),
never from geomotion itself.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import examples, poses

from geomotion import dualquat, spatial

C = np.sqrt(0.5)  # cos 45 deg = sin 45 deg

# 90 deg about z, then translate by p = (1, 2, 3).  By hand:
#   q_r = (C, 0, 0, C)
#   (0, p) q_r = (-p.(0,0,C), C p + p x (0,0,C)) = (-3C, (C + 2C, 2C - C, 3C)) = C (-3, 3, 1, 3)
#   q_d = C/2 (-3, 3, 1, 3)
T_Z90 = np.array([[0.0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]])
DQ_Z90 = np.array([C, 0, 0, C, -1.5 * C, 1.5 * C, 0.5 * C, 1.5 * C])


def random_poses(rng, shape):
    """Poses from normalized Gaussian quaternions written out by hand (not geomotion)."""
    q = rng.normal(size=shape + (4,))
    w, x, y, z = np.moveaxis(q / np.linalg.norm(q, axis=-1, keepdims=True), -1, 0)
    T = np.zeros(shape + (4, 4))
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    for i, row in enumerate(rows):
        T[..., i, :3] = np.stack(row, axis=-1)
    T[..., :3, 3] = rng.normal(size=shape + (3,))
    T[..., 3, 3] = 1.0
    return T


# --- hand-derived components and the stated convention ----------------------


def test_quarter_turn_about_z_with_offset_matches_hand_derivation():
    np.testing.assert_allclose(dualquat.from_pose(T_Z90), DQ_Z90, atol=1e-15)
    np.testing.assert_allclose(dualquat.to_pose(DQ_Z90), T_Z90, atol=1e-15)


def test_pure_translation_and_pure_rotation_have_the_textbook_form():
    # Translation only: q_r = 1, q_d = (0, p/2).
    T = spatial.pose(np.eye(3), [0.4, -0.2, 1.0])
    np.testing.assert_allclose(dualquat.from_pose(T), [1, 0, 0, 0, 0, 0.2, -0.1, 0.5], atol=1e-15)
    # Rotation by theta about x only: q_r = (cos theta/2, sin theta/2, 0, 0), q_d = 0.
    theta = 0.7
    expected = [np.cos(theta / 2), np.sin(theta / 2), 0, 0, 0, 0, 0, 0]
    np.testing.assert_allclose(
        dualquat.from_pose(spatial.pose(spatial.rot_x(theta), np.zeros(3))), expected, atol=1e-15
    )


def test_product_is_hamilton_ij_equals_k():
    i = np.array([0, 1, 0, 0, 0, 0, 0, 0.0])
    j = np.array([0, 0, 1, 0, 0, 0, 0, 0.0])
    np.testing.assert_array_equal(dualquat.product(i, j)[:4], [0, 0, 0, 1])  # JPL would give -k
    np.testing.assert_array_equal(dualquat.product(j, i)[:4], [0, 0, 0, -1])


def test_translation_is_applied_after_rotation():
    R = spatial.rot_y(1.1)
    p = np.array([0.3, -0.5, 0.8])
    trans = dualquat.from_pose(spatial.pose(np.eye(3), p))
    rot = dualquat.from_pose(spatial.pose(R, np.zeros(3)))
    dq = dualquat.from_pose(spatial.pose(R, p))
    assert dualquat.same_pose(dq, dualquat.product(trans, rot))
    assert not dualquat.same_pose(dq, dualquat.product(rot, trans))  # p would be rotated by R


def test_from_pose_returns_the_nonnegative_scalar_representative():
    dq = dualquat.from_pose(random_poses(np.random.default_rng(1), (200,)))
    assert np.all(dq[:, 0] >= 0)


def test_identity_is_the_identity_pose_and_the_product_unit():
    np.testing.assert_array_equal(dualquat.identity(), [1, 0, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(
        dualquat.to_pose(dualquat.identity(shape=(2, 3))), np.broadcast_to(np.eye(4), (2, 3, 4, 4))
    )
    np.testing.assert_allclose(dualquat.product(DQ_Z90, dualquat.identity()), DQ_Z90, atol=0)


# --- composition, inverse, sign ---------------------------------------------


@settings(max_examples=examples(50))
@given(poses(), poses())
def test_product_composes_poses_with_cancelling_letters(T_AB, T_BC):
    dq = dualquat.product(dualquat.from_pose(T_AB), dualquat.from_pose(T_BC))
    np.testing.assert_allclose(dualquat.to_pose(dq), T_AB @ T_BC, atol=1e-12)


@settings(max_examples=examples(50))
@given(poses())
def test_pose_round_trip_and_conjugate_is_the_inverse_pose(T_AB):
    dq = dualquat.from_pose(T_AB)
    np.testing.assert_allclose(dualquat.to_pose(dq), T_AB, atol=1e-12)
    inverse = dualquat.conjugate(dq)
    np.testing.assert_allclose(dualquat.to_pose(inverse), np.linalg.inv(T_AB), atol=1e-12)
    np.testing.assert_allclose(dualquat.product(dq, inverse), dualquat.identity(), atol=1e-12)


def test_round_trip_is_accurate_near_and_at_a_half_turn():
    axis = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
    for angle in (np.pi, np.pi - 1e-9, np.pi - 1e-4):
        T = spatial.exp_twist(np.concatenate([angle * axis, [0.1, 0.2, 0.3]]))
        np.testing.assert_allclose(dualquat.to_pose(dualquat.from_pose(T)), T, atol=1e-14)


def test_minus_dq_is_the_same_pose_and_a_different_pose_is_not():
    dq = dualquat.from_pose(T_Z90)
    np.testing.assert_allclose(dualquat.to_pose(-dq), T_Z90, atol=1e-15)
    assert dualquat.same_pose(dq, -dq)
    assert dualquat.same_pose(dq, dq)
    other = dualquat.from_pose(spatial.pose(spatial.rot_z(np.pi / 2), [1, 2, 3.001]))
    assert not dualquat.same_pose(dq, other)
    assert not dualquat.same_pose(dq, -other)


def test_functions_broadcast_over_leading_axes():
    rng = np.random.default_rng(2)
    T_AB, T_BC = random_poses(rng, (3, 5)), random_poses(rng, (5,))
    a, b = dualquat.from_pose(T_AB), dualquat.from_pose(T_BC)
    assert a.shape == (3, 5, 8)
    np.testing.assert_allclose(dualquat.to_pose(dualquat.product(a, b)), T_AB @ T_BC, atol=1e-12)
    assert dualquat.constraint_residuals(a).shape == (3, 5, 2)
    assert dualquat.constraint_jacobian(a).shape == (3, 5, 2, 8)
    assert dualquat.same_pose(a, -a).shape == (3, 5)
    np.testing.assert_array_equal(dualquat.local_degrees_of_freedom(a), np.full((3, 5), 6))


# --- constraints and the local degrees of freedom ---------------------------


def test_residuals_vanish_on_poses():
    dq = dualquat.from_pose(random_poses(np.random.default_rng(3), (100,)))
    np.testing.assert_allclose(dualquat.constraint_residuals(dq), 0, atol=1e-14)
    assert np.all(dualquat.is_unit(dq))


def test_sum_of_two_poses_leaves_the_constraint_set_by_the_hand_computed_amount():
    # identity + DQ_Z90: real part (1 + C, 0, 0, C), |.|^2 = 2 + 2C = 2 + sqrt 2,
    # so the normalization residual is 1 + sqrt 2;
    # q_r . q_d = (C/2)(-3(1 + C) + 3C) = -3C/2.
    total = dualquat.identity() + DQ_Z90
    residuals = dualquat.constraint_residuals(total)
    np.testing.assert_allclose(residuals, [1 + np.sqrt(2), -1.5 * C], atol=1e-15)
    assert not dualquat.is_unit(total)
    with pytest.raises(ValueError, match="dq"):
        dualquat.to_pose(total)


def test_sums_of_random_poses_violate_the_constraints():
    rng = np.random.default_rng(4)
    a = dualquat.from_pose(random_poses(rng, (100,)))
    b = dualquat.from_pose(random_poses(rng, (100,)))
    residuals = dualquat.constraint_residuals(a + b)
    # |q_r1 + q_r2|^2 - 1 = 1 + 2 q_r1.q_r2 is zero only on a measure-zero set.
    assert np.all(np.abs(residuals[:, 0]) > 1e-6)


def test_normalization_residual_of_a_sum_is_one_plus_twice_the_real_parts_dot_product():
    rng = np.random.default_rng(7)
    a = dualquat.from_pose(random_poses(rng, (100,)))
    b = dualquat.from_pose(random_poses(rng, (100,)))
    dot = np.sum(a[:, :4] * b[:, :4], axis=1)
    np.testing.assert_allclose(dualquat.constraint_residuals(a + b)[:, 0], 1 + 2 * dot, atol=1e-14)


def test_the_sum_is_a_unit_dual_quaternion_when_the_real_parts_have_dot_product_minus_half():
    # Identity (1, 0, 0, 0) plus a 240 degree turn about z, (cos 120, 0, 0, sin 120)
    # = (-1/2, 0, 0, sqrt(3)/2): dot product -1/2, sum (1/2, 0, 0, sqrt(3)/2), which is
    # the unit quaternion of a 120 degree turn about z.  No translation: dual parts zero.
    s = np.sqrt(0.75)
    turn = np.eye(4)
    turn[:3, :3] = [[-0.5, s, 0], [-s, -0.5, 0], [0, 0, 1]]  # R_z(240 deg)
    q240 = -dualquat.from_pose(turn)  # from_pose returns the w >= 0 sign; this one has w = -1/2
    np.testing.assert_allclose(q240, [-0.5, 0, 0, s, 0, 0, 0, 0], atol=1e-15)
    total = dualquat.identity() + q240
    np.testing.assert_allclose(dualquat.constraint_residuals(total), 0, atol=1e-15)
    assert dualquat.is_unit(total)
    expected = np.eye(4)
    expected[:3, :3] = [[-0.5, -s, 0], [s, -0.5, 0], [0, 0, 1]]  # R_z(120 deg)
    np.testing.assert_allclose(dualquat.to_pose(total), expected, atol=1e-15)
    # With a translation along the axis, q_r1.q_d2 + q_r2.q_d1 = -(1/2) p.(0, 0, s) != 0.
    turn[:3, 3] = [0.0, 0.0, 1.0]
    residuals = dualquat.constraint_residuals(dualquat.identity() - dualquat.from_pose(turn))
    np.testing.assert_allclose(residuals, [0, -0.5 * s], atol=1e-15)


def test_constraint_jacobian_matches_central_differences():
    rng = np.random.default_rng(5)
    for dq in (rng.normal(size=8), dualquat.from_pose(random_poses(rng, ()))):
        h = 1e-6
        residual = dualquat.constraint_residuals
        columns = [(residual(dq + h * e) - residual(dq - h * e)) / (2 * h) for e in np.eye(8)]
        np.testing.assert_allclose(dualquat.constraint_jacobian(dq), np.array(columns).T, atol=1e-8)


def test_local_degrees_of_freedom_is_six_and_agrees_with_the_tangent_space_of_rigid_motion():
    rng = np.random.default_rng(6)
    T = random_poses(rng, ())
    dq = dualquat.from_pose(T)
    assert dualquat.local_degrees_of_freedom(dualquat.identity()) == 6
    assert dualquat.local_degrees_of_freedom(dq) == 6
    assert dualquat.local_degrees_of_freedom(-dq) == 6
    # Independent count: velocities d/dt from_pose(T exp(t xi)) for the six unit twists xi
    # (central differences) span a 6-dimensional space, and the constraint Jacobian kills it.
    h = 1e-6

    def moved(xi):
        return dualquat.from_pose(T @ spatial.exp_twist(xi))

    tangents = np.array([(moved(h * e) - moved(-h * e)) / (2 * h) for e in np.eye(6)])
    assert np.linalg.matrix_rank(tangents, tol=1e-6) == 6
    np.testing.assert_allclose(dualquat.constraint_jacobian(dq) @ tangents.T, 0, atol=1e-8)


# --- bad input ----------------------------------------------------------------


def test_bad_input_raises_value_error_naming_the_argument():
    good = dualquat.identity()
    not_unit = 2 * good
    with pytest.raises(ValueError, match="T_AB"):
        dualquat.from_pose(np.eye(3))
    with pytest.raises(ValueError, match="T_AB"):
        dualquat.from_pose(np.diag([1.0, 2.0, 1.0, 1.0]))  # not a rotation
    with pytest.raises(ValueError, match="dq"):
        dualquat.to_pose(np.zeros(7))
    with pytest.raises(ValueError, match="dq"):
        dualquat.to_pose(not_unit)
    with pytest.raises(ValueError, match="dq"):
        dualquat.to_pose(np.array([1.0, 0, 0, 0, 0.1, 0, 0, 0]))  # q_r . q_d = 0.1
    with pytest.raises(ValueError, match="dq"):
        dualquat.to_pose(np.full(8, np.nan))
    with pytest.raises(ValueError, match="^a:"):
        dualquat.product(np.zeros(4), good)
    with pytest.raises(ValueError, match="^b:"):
        dualquat.product(good, [np.inf] * 8)
    with pytest.raises(ValueError, match="dq"):
        dualquat.conjugate(np.zeros((2, 6)))
    with pytest.raises(TypeError, match="dq: expected real numbers"):
        dualquat.constraint_residuals("not numbers")
    with pytest.raises(ValueError, match="dq"):
        dualquat.constraint_jacobian(np.zeros(9))
    with pytest.raises(ValueError, match="dq"):
        dualquat.is_unit(np.zeros(3))
    with pytest.raises(ValueError, match="^b:"):
        dualquat.same_pose(good, not_unit)
    with pytest.raises(ValueError, match="dq"):
        dualquat.local_degrees_of_freedom(not_unit)
    with pytest.raises(ValueError, match="shape"):
        dualquat.identity(shape=(-1,))
    with pytest.raises(ValueError, match="shape"):
        dualquat.identity(shape=[2])
