"""Spatial algebra: the seed chapter's numbers, independent derivations, properties, bad input."""

from decimal import Decimal, getcontext, localcontext

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from strategies import examples, poses, rotations, vectors

from geomotion import spatial
from geomotion.spatial import _exp_coefficients  # its accuracy claim is tested below

TWIST = vectors(6)
WRENCH = vectors(6)


def twist_matrix(xi):
    """4x4 matrix [xi] of se(3), written out by hand for independent checks."""
    w, v = xi[:3], xi[3:]
    return np.array(
        [
            [0, -w[2], w[1], v[0]],
            [w[2], 0, -w[0], v[1]],
            [-w[1], w[0], 0, v[2]],
            [0, 0, 0, 0],
        ]
    )


# --- the seed's worked numbers ---------------------------------------------


def test_power_transport_example_gives_20_watts_in_both_frames_and_26_if_inconsistent():
    T_AB = spatial.pose(np.eye(3), [0.2, 0.0, 0.0])
    F_B = np.array([0, 0, 0, 0, 10.0, 0])  # 10 N along y through B's origin
    V_B = np.array([0, 0, 3.0, 1, 2, 0])
    F_A = spatial.force_transform(T_AB) @ F_B
    V_A = spatial.motion_transform(T_AB) @ V_B
    np.testing.assert_allclose(F_A, [0, 0, 2, 0, 10, 0], atol=1e-15)
    np.testing.assert_allclose(V_A, [0, 0, 3, 1, 1.4, 0], atol=1e-15)
    assert spatial.power(F_B, V_B) == pytest.approx(20.0, abs=1e-12)
    assert spatial.power(F_A, V_A) == pytest.approx(20.0, abs=1e-12)
    # Shifting the moment but not the twist's linear block double counts: 26 W.
    assert spatial.power(F_A, V_B) == pytest.approx(26.0, abs=1e-12)


def test_duality_example_gives_plus_and_minus_0_65():
    V = np.array([0, 0, 1, 1, 0, 0.0])
    G = np.array([0.1, 0.2, 0.3, 1, 2, 3])
    W = np.array([0.5, 0.5, 0.5, 0.1, 0.1, 0.1])
    adW = spatial.motion_cross(V) @ W
    np.testing.assert_allclose(adW, [-0.5, 0.5, 0, -0.1, -0.4, 0.5], atol=1e-15)
    assert G @ adW == pytest.approx(0.65, abs=1e-12)
    assert (spatial.force_cross(V) @ G) @ W == pytest.approx(-0.65, abs=1e-12)


def test_planar_motion_operator_exercise():
    nu = np.array([2.0, 3.0, 5.0])
    P = spatial.planar_motion_cross(nu)
    np.testing.assert_allclose(P, [[0, 0, 0], [5, 0, -2], [-3, 2, 0]], atol=0)
    np.testing.assert_allclose(P @ [1, 0, 0], [0, 5, -3], atol=0)
    # Embedded six-vector (0, 0, 2, 3, 5, 0) and the restriction E^T [E nu x] E.
    E = spatial.planar_embedding()
    np.testing.assert_array_equal(E @ nu, [0, 0, 2, 3, 5, 0])
    np.testing.assert_allclose(E.T @ spatial.motion_cross(E @ nu) @ E, P, atol=0)
    np.testing.assert_allclose(spatial.planar_force_cross(nu), -P.T, atol=0)


def test_screw_axis_exercise_pitch_half_through_1_0_0():
    axis = spatial.screw_axis([0, 0, 2, 0, -2, 1])
    pitch, point, direction = axis.pitch, axis.point, axis.direction
    assert pitch == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_allclose(point, [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(direction, [0, 0, 1], atol=1e-15)
    # The rigid velocity field v + w x r at the axis point is h * omega = (0, 0, 1).
    velocity = np.array([0, -2, 1.0]) + np.cross([0, 0, 2.0], point)
    np.testing.assert_allclose(velocity, [0, 0, 1], atol=1e-15)


# --- lines, screws and wrench axes -----------------------------------------


def test_plucker_moment_is_independent_of_the_point_and_orthogonal_to_direction():
    d = np.array([1.0, 2.0, -0.5])
    r = np.array([0.3, -1.0, 2.0])
    L = spatial.plucker_line(d, r)
    assert L[:3] @ L[3:] == pytest.approx(0.0, abs=1e-14)
    np.testing.assert_allclose(spatial.plucker_line(d, r + 2.7 * d), L, atol=1e-14)
    assert spatial.same_line(L, -3.0 * L)
    assert not spatial.same_line(L, -3.0 * L, oriented=True)
    assert spatial.same_line(L, 0.5 * L, oriented=True)
    assert not spatial.same_line(L, spatial.plucker_line(d, r + [0, 0, 0.1]))


def test_a_twist_with_pitch_is_not_a_line_but_its_perpendicular_part_is():
    V = np.array([0, 0, 2.0, 0, -2, 1])
    axis = spatial.screw_axis(V)
    pitch, point, direction = axis.pitch, axis.point, axis.direction
    assert V[:3] @ V[3:] != 0  # fails the zero-pitch line relation
    line = np.concatenate([V[:3], V[3:] - pitch * V[:3]])
    assert spatial.same_line(line, spatial.plucker_line(direction, point), oriented=True)


def test_pure_translation_has_infinite_pitch_along_v():
    axis = spatial.screw_axis([0, 0, 0, 0, 3.0, 4.0])
    pitch, point, direction = axis.pitch, axis.point, axis.direction
    assert np.isinf(pitch)
    np.testing.assert_allclose(direction, [0, 0.6, 0.8])
    np.testing.assert_array_equal(point, [0, 0, 0])


def test_single_force_has_zero_pitch_central_axis_through_its_line():
    f = np.array([0.0, 3.0, 4.0])
    r = np.array([1.0, 2.0, -1.0])
    F = np.concatenate([np.cross(r, f), f])
    axis = spatial.wrench_axis(F)
    pitch, point, direction = axis.pitch, axis.point, axis.direction
    assert pitch == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(direction, f / 5)
    assert spatial.same_line(spatial.plucker_line(f, r), spatial.plucker_line(direction, point))
    # Adding a parallel couple gives the residual pitch of the wrench.
    axis = spatial.wrench_axis(F + np.concatenate([0.7 * f, [0, 0, 0]]))
    pitch2, point2, _ = axis.pitch, axis.point, axis.direction
    assert pitch2 == pytest.approx(0.7)
    np.testing.assert_allclose(point2, point, atol=1e-14)


def test_pure_couple_is_reported_with_infinite_pitch():
    axis = spatial.wrench_axis([0, 0, 2.0, 0, 0, 0])
    pitch, direction = axis.pitch, axis.direction
    assert np.isinf(pitch)
    np.testing.assert_allclose(direction, [0, 0, 1])


# --- rotations, poses and transforms ---------------------------------------


def test_rotations_are_active_and_match_the_matrix_exponential():
    np.testing.assert_allclose(spatial.rot_z(np.pi / 2) @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    np.testing.assert_allclose(spatial.rot_x(np.pi / 2) @ [0, 1, 0], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(spatial.rot_y(np.pi / 2) @ [0, 0, 1], [1, 0, 0], atol=1e-15)
    for axis, rot in enumerate((spatial.rot_x, spatial.rot_y, spatial.rot_z)):
        w = np.zeros(3)
        w[axis] = 0.7
        expected = scipy.linalg.expm(twist_matrix(np.concatenate([w, [0, 0, 0]]))[:3, :3])
        np.testing.assert_allclose(rot(0.7), expected, atol=1e-14)


def test_rotations_broadcast_over_angle_arrays():
    theta = np.linspace(-3, 3, 12).reshape(3, 4)
    R = spatial.rot_z(theta)
    assert R.shape == (3, 4, 3, 3)
    np.testing.assert_allclose(R[1, 2], spatial.rot_z(theta[1, 2]))


@settings(max_examples=examples(60))
@given(poses(), poses(), TWIST, WRENCH)
def test_power_is_invariant_and_transforms_compose(T_AB, T_BC, V_C, F_C):
    T_AC = spatial.compose_poses(T_AB, T_BC)
    np.testing.assert_allclose(T_AC, T_AB @ T_BC, atol=1e-12)
    X_AC = spatial.motion_transform(T_AC)
    np.testing.assert_allclose(
        X_AC, spatial.motion_transform(T_AB) @ spatial.motion_transform(T_BC), atol=1e-9
    )
    V_A, F_A = X_AC @ V_C, spatial.force_transform(T_AC) @ F_C
    scale = 1 + np.abs(F_C).max() * np.abs(V_C).max() * (1 + np.abs(T_AC[:3, 3]).max()) ** 2
    assert abs(spatial.power(F_A, V_A) - spatial.power(F_C, V_C)) <= 1e-12 * scale


@settings(max_examples=examples(60))
@given(poses())
def test_inverses_are_inverses(T_AB):
    T_BA = spatial.inverse_pose(T_AB)
    np.testing.assert_allclose(T_BA, np.linalg.inv(T_AB), atol=1e-10)
    X = spatial.motion_transform(T_AB)
    np.testing.assert_allclose(spatial.inverse_motion_transform(T_AB), np.linalg.inv(X), atol=1e-9)
    np.testing.assert_allclose(spatial.force_transform(T_AB), np.linalg.inv(X).T, atol=1e-9)
    np.testing.assert_allclose(spatial.inverse_force_transform(T_AB), X.T, atol=0)
    np.testing.assert_allclose(spatial.motion_transform(T_BA), np.linalg.inv(X), atol=1e-9)


@settings(max_examples=examples(60))
@given(TWIST, WRENCH, TWIST)
def test_duality_identity_and_antisymmetry(V, G, W):
    left = G @ spatial.motion_cross(V) @ W
    right = -(spatial.force_cross(V) @ G) @ W
    scale = np.abs(G).max() * np.abs(V).max() * np.abs(W).max()
    assert abs(left - right) <= 1e-12 * (1 + scale)
    np.testing.assert_allclose(spatial.motion_cross(V) @ V, 0, atol=1e-12 * (1 + V @ V))


@settings(max_examples=examples(30))
@given(TWIST, poses())
def test_motion_cross_is_the_derivative_of_the_adjoint(V, T):
    # d/dt Ad(T exp(t V)) at t = 0 equals Ad(T) [V x]; central difference on expm.
    h = 1e-6
    V = V / 10
    plus = spatial.motion_transform(T @ scipy.linalg.expm(h * twist_matrix(V)))
    minus = spatial.motion_transform(T @ scipy.linalg.expm(-h * twist_matrix(V)))
    derivative = (plus - minus) / (2 * h)
    expected = spatial.motion_transform(T) @ spatial.motion_cross(V)
    np.testing.assert_allclose(derivative, expected, atol=1e-6 * (1 + np.abs(expected).max()))


# --- exponential and logarithm ---------------------------------------------


@settings(max_examples=examples(60))
@given(TWIST)
def test_exp_matches_scipy_expm_and_log_inverts_it(xi):
    xi = xi * (np.pi - 1e-6) / max(np.linalg.norm(xi[:3]), np.pi)  # |omega| < pi: log is unique
    T = spatial.exp_twist(xi)
    np.testing.assert_allclose(T, scipy.linalg.expm(twist_matrix(xi)), atol=1e-11)
    np.testing.assert_allclose(spatial.log_pose(T), xi, atol=1e-9 * (1 + np.abs(xi).max()))


@pytest.mark.parametrize("angle", [1e-9, 1e-7, 1e-4, 0.009, 0.011, 0.5, 2.0])
def test_small_rotations_survive_exp_and_log(angle):
    axis = np.array([1.0, 2.0, 2.0]) / 3
    xi = np.concatenate([angle * axis, [0.3, -0.2, 0.1]])
    T = spatial.exp_twist(xi)
    expected = scipy.linalg.expm(twist_matrix(xi))
    # The rotation's off-diagonal entries are O(angle): compare them relatively.
    np.testing.assert_allclose(T[2, 1] - T[1, 2], expected[2, 1] - expected[1, 2], rtol=1e-12)
    np.testing.assert_allclose(T, expected, atol=1e-15, rtol=1e-12)
    np.testing.assert_allclose(spatial.log_pose(T), xi, rtol=1e-9, atol=1e-18)


@pytest.mark.parametrize("deficit", [0.0, 1e-12, 1e-6, 1e-3, 0.05])
def test_log_near_a_half_turn_recovers_the_axis(deficit):
    axis = np.array([2.0, -1.0, 2.0]) / 3
    xi = np.concatenate([(np.pi - deficit) * axis, [0.1, 0.2, 0.3]])
    recovered = spatial.log_pose(spatial.exp_twist(xi))
    if deficit == 0.0:  # +axis and -axis are the same half turn
        same = np.allclose(recovered[:3], xi[:3], atol=1e-7) or np.allclose(
            recovered[:3], -xi[:3], atol=1e-7
        )
        assert same
    else:
        np.testing.assert_allclose(recovered[:3], xi[:3], atol=1e-7)
    np.testing.assert_allclose(spatial.exp_twist(recovered), spatial.exp_twist(xi), atol=1e-12)


def test_exp_and_log_broadcast_over_batches():
    xi = np.random.default_rng(1).normal(size=(4, 5, 6))
    T = spatial.exp_twist(xi)
    assert T.shape == (4, 5, 4, 4)
    np.testing.assert_allclose(T[2, 3], spatial.exp_twist(xi[2, 3]))
    assert spatial.log_pose(T).shape == (4, 5, 6)


@settings(max_examples=examples(40))
@given(rotations)
def test_rotation_part_of_log_has_angle_at_most_pi(R):
    xi = spatial.log_pose(spatial.pose(R, [0, 0, 0]))
    assert np.linalg.norm(xi[:3]) <= np.pi + 1e-12
    np.testing.assert_allclose(spatial.exp_twist(xi)[:3, :3], R, atol=1e-10)


# --- bad input ---------------------------------------------------------------


def test_bad_inputs_raise_clear_value_errors():
    with pytest.raises(ValueError, match=r"a: expected shape \(\.\.\., 3\), got shape \(4,\)"):
        spatial.skew([1, 2, 3, 4])
    with pytest.raises(ValueError, match="a: expected finite values"):
        spatial.skew([1, np.nan, 3])
    with pytest.raises(TypeError, match="theta: expected real numbers"):
        spatial.rot_x("ninety degrees")
    with pytest.raises(ValueError, match="R: expected a rotation matrix"):
        spatial.pose(np.diag([1, 1, 2.0]), [0, 0, 0])
    with pytest.raises(ValueError, match="R: expected a rotation matrix"):
        spatial.pose(np.diag([1, 1, -1.0]), [0, 0, 0])  # a reflection
    with pytest.raises(ValueError, match=r"p: expected shape \(\.\.\., 3\)"):
        spatial.pose(np.eye(3), [0, 0])
    bad = np.eye(4)
    bad[3, 0] = 1.0
    with pytest.raises(ValueError, match=r"T_AB: expected a homogeneous pose with last row"):
        spatial.motion_transform(bad)
    with pytest.raises(ValueError, match=r"T_AB\[\.\.\., :3, :3\]: expected a rotation"):
        spatial.force_transform(np.diag([2.0, 1, 1, 1]))
    with pytest.raises(ValueError, match=r"T_BC: expected shape \(\.\.\., 4, 4\)"):
        spatial.compose_poses(np.eye(4), np.eye(3))
    with pytest.raises(ValueError, match=r"V: expected shape \(\.\.\., 6\)"):
        spatial.motion_cross([1, 2, 3])
    with pytest.raises(ValueError, match="F: expected finite values"):
        spatial.power([np.inf, 0, 0, 0, 0, 0], np.zeros(6))
    with pytest.raises(ValueError, match="V: expected a nonzero six-vector"):
        spatial.screw_axis(np.zeros(6))
    with pytest.raises(ValueError, match="F: expected a nonzero six-vector"):
        spatial.wrench_axis(np.zeros(6))
    with pytest.raises(ValueError, match="direction: expected a nonzero vector"):
        spatial.plucker_line([0, 0, 0], [1, 2, 3])
    with pytest.raises(ValueError, match="L2: expected line coordinates with d . m = 0"):
        spatial.same_line([1, 0, 0, 0, 1, 0], [1, 0, 0, 1, 0, 0])
    with pytest.raises(ValueError, match="L1: expected a nonzero direction block"):
        spatial.same_line(np.zeros(6), [1, 0, 0, 0, 1, 0])
    with pytest.raises(ValueError, match="xi: expected finite values"):
        spatial.exp_twist([0, 0, np.nan, 0, 0, 0])
    with pytest.raises(ValueError, match="T: expected a homogeneous pose"):
        spatial.log_pose(np.ones((4, 4)))
    with pytest.raises(ValueError, match=r"nu: expected shape \(\.\.\., 3\)"):
        spatial.planar_motion_cross([1, 2])


# --- cross products: where [V x] is skew-symmetric ---------------------------


def test_motion_cross_is_skew_symmetric_exactly_for_pure_rotations():
    rng = np.random.default_rng(21)
    rotation_only = np.concatenate([rng.normal(size=(50, 3)), np.zeros((50, 3))], axis=-1)
    X = spatial.motion_cross(rotation_only)
    np.testing.assert_array_equal(X + np.swapaxes(X, -1, -2), 0.0)
    # With v != 0 the symmetric part is [[0, [v]^T], [[v], 0]]: nonzero, and exactly that.
    V = rng.normal(size=(50, 6))
    X = spatial.motion_cross(V)
    symmetric = X + np.swapaxes(X, -1, -2)
    v = V[:, 3:]
    expected = np.zeros((50, 6, 6))
    expected[:, 3:, :3] = [[[0, -z, y], [z, 0, -x], [-y, x, 0]] for x, y, z in v]  # [v], by hand
    expected[:, :3, 3:] = np.swapaxes(expected[:, 3:, :3], -1, -2)
    np.testing.assert_allclose(symmetric, expected, atol=1e-15)
    assert np.all(np.abs(symmetric).max(axis=(-1, -2)) > 0)


# --- exp and log: precision on both sides of the series switch -------------

EPS = np.finfo(float).eps


def _decimal_coefficients(theta):
    """a = sin t/t, b = (1 - cos t)/t^2, c = (t - sin t)/t^3 for a Decimal angle t > 0.

    Independent of geomotion: sin and cos are summed as Taylor series in the current
    ``decimal`` context, whose precision (60+ digits) makes the cancellation in 1 - cos
    and t - sin harmless.
    """
    sin, cos, term, k = 0, 0, Decimal(1), 0
    while abs(term) > Decimal(10) ** (-2 * getcontext().prec):  # term = t^k / k!
        if k % 2 == 0:
            cos += term if k % 4 == 0 else -term
        else:
            sin += term if k % 4 == 1 else -term
        k += 1
        term = term * theta / k
    return sin / theta, (1 - cos) / theta**2, (theta - sin) / theta**3


def _decimal_exp_twist(xi):
    """exp of a twist by the Rodrigues formulas in 60-digit decimal arithmetic; (R, p) as floats."""
    with localcontext() as context:
        context.prec = 60
        w = [Decimal(float(x)) for x in xi[:3]]
        v = [Decimal(float(x)) for x in xi[3:]]
        a, b, c = _decimal_coefficients(sum(x * x for x in w).sqrt())
        W = [[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]
        W2 = [[sum(W[i][k] * W[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
        eye = [[int(i == j) for j in range(3)] for i in range(3)]
        R = [[eye[i][j] + a * W[i][j] + b * W2[i][j] for j in range(3)] for i in range(3)]
        V = [[eye[i][j] + b * W[i][j] + c * W2[i][j] for j in range(3)] for i in range(3)]
        p = [sum(V[i][j] * v[j] for j in range(3)) for i in range(3)]
        return np.array(R, dtype=float), np.array(p, dtype=float)


#: Angles (rad) on both sides of the series switches, old (1e-2) and current (1).
SWITCH_ANGLES = [
    1e-9,
    1e-6,
    1e-3,
    0.009,
    0.0099,
    0.01,
    0.0101,
    0.011,
    0.02,
    0.05,
    0.3,
    0.99,
    1.0,
    1.01,
    2.0,
    3.0,
    np.pi - 1e-6,
]


def test_exp_twist_matches_a_decimal_reference_at_every_angle():
    rng = np.random.default_rng(23)
    angles = np.concatenate([SWITCH_ANGLES, np.logspace(-2, -1.3, 30), np.linspace(0.1, np.pi, 20)])
    errors = []
    for angle in angles:
        axis = rng.normal(size=3)
        xi = np.concatenate([angle * axis / np.linalg.norm(axis), rng.normal(size=3)])
        T = spatial.exp_twist(xi)
        R_ref, p_ref = _decimal_exp_twist(xi)
        error = np.abs(T[:3, :3] - R_ref)
        errors.append(
            [
                error[~np.eye(3, dtype=bool)].max() / angle,  # off-diagonal entries are O(angle)
                error.max(),
                np.linalg.norm(T[:3, 3] - p_ref) / np.linalg.norm(xi[3:]),
            ]
        )
    off_diagonal, entries, translation = np.max(errors, axis=0) / EPS
    # Achieved: 1.8, 3.5 and 1.4 eps (before the half-angle forms: 10, 1.8 and 17.6 eps,
    # just above the old 1e-2 rad switch).
    assert off_diagonal <= 4
    assert entries <= 8
    assert translation <= 4


def test_exp_and_log_coefficients_keep_full_precision_at_every_angle():
    """The accuracy stated in the docstring of spatial._exp_coefficients, checked."""
    thetas = np.concatenate(
        [np.logspace(-9, np.log10(np.pi), 300), SWITCH_ANGLES, [0.99999, 1.00001]]
    )
    a, b, c = _exp_coefficients(thetas)
    a2, b2, c2 = _exp_coefficients(thetas / 2)
    computed = np.stack(
        [a, b, c, (b2 - c2) / (4 * a2)]
    )  # the last one: log_pose's V^-1 coefficient
    reference = []
    with localcontext() as context:
        context.prec = 80
        for theta in thetas:
            t = Decimal(float(theta))
            exact_a, exact_b, exact_c = _decimal_coefficients(t)
            exact_d = (1 - exact_a / (2 * exact_b)) / (t * t)  # (1 - t sin/(2(1 - cos)))/t^2
            reference.append([float(x) for x in (exact_a, exact_b, exact_c, exact_d)])
    relative = np.abs(computed - np.array(reference).T) / np.abs(np.array(reference).T)
    # Achieved: 0.96, 1.7, 1.6 and 3.0 eps (the old 1 - cos form: ~1e-12 just above 1e-2 rad).
    assert np.all(relative.max(axis=1) <= [2 * EPS, 3 * EPS, 3 * EPS, 5 * EPS])


def test_log_pose_inverts_exp_twist_to_rounding_at_every_angle_and_scale():
    rng = np.random.default_rng(22)
    angles = np.concatenate([np.logspace(-9, np.log10(np.pi - 1e-6), 200), SWITCH_ANGLES])
    xi = []
    for scale in (1e-3, 1.0, 1e3):  # translations in m
        axes = rng.normal(size=(angles.size, 3))
        axes /= np.linalg.norm(axes, axis=1, keepdims=True)
        xi.append(
            np.concatenate(
                [angles[:, None] * axes, scale * rng.normal(size=(angles.size, 3))], axis=1
            )
        )
    xi = np.concatenate(xi)
    back = spatial.log_pose(spatial.exp_twist(xi))
    theta = np.linalg.norm(xi[:, :3], axis=1)
    rotation_error = np.linalg.norm(back[:, :3] - xi[:, :3], axis=1) / theta
    translation_error = np.linalg.norm(back[:, 3:] - xi[:, 3:], axis=1) / np.linalg.norm(
        xi[:, 3:], axis=1
    )
    # Achieved: rotation 1.9 eps, translation 2.5 eps (before the half-angle forms: 9 eps
    # and 1700 eps = 3.7e-13, just above the old 1e-2 rad switch).
    assert rotation_error.max() <= 8 * EPS
    assert translation_error.max() <= 8 * EPS


def test_log_pose_of_the_identity_and_of_pure_translations_is_exact():
    np.testing.assert_array_equal(spatial.log_pose(np.eye(4)), np.zeros(6))
    T = spatial.pose(np.eye(3), [1e-300, -2.0, 3e5])
    np.testing.assert_array_equal(spatial.log_pose(T), [0, 0, 0, 1e-300, -2.0, 3e5])


# --- dtypes: integers are numbers, complex and boolean arrays are refused ----


def test_integer_input_is_read_as_real_numbers():
    np.testing.assert_array_equal(spatial.skew(np.array([1, 2, 3])), spatial.skew([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(
        spatial.exp_twist(np.arange(6)), spatial.exp_twist(np.arange(6.0))
    )
    np.testing.assert_array_equal(spatial.rot_z(np.uint8(1)), spatial.rot_z(1.0))


@pytest.mark.parametrize(
    "call",
    [
        lambda x: spatial.skew(x[:3]),
        lambda x: spatial.exp_twist(x),
        lambda x: spatial.motion_cross(x),
        lambda x: spatial.power(x, np.ones(6)),
    ],
)
def test_complex_and_boolean_arrays_are_refused_not_truncated(call):
    with pytest.raises(TypeError, match="expected real numbers, got complex dtype"):
        call(1j * np.ones(6))
    with pytest.raises(TypeError, match="expected real numbers, got complex dtype"):
        call(np.ones(6) + 0j)  # even with a zero imaginary part: the dtype is refused
    with pytest.raises(TypeError, match="expected real numbers, got boolean dtype"):
        call(np.ones(6, dtype=bool))
    with pytest.raises(TypeError, match="expected real numbers"):
        call([1j, 2, 3, 4, 5, 6])  # a Python list with one complex entry


def test_screw_and_wrench_axes_are_read_by_name_and_do_not_unpack():
    axis = spatial.screw_axis([0.0, 0.0, 2.0, 2.0, 0.0, 0.2])
    assert isinstance(axis, spatial.ScrewAxis)
    assert float(axis.pitch) == pytest.approx(0.1)
    with pytest.raises(TypeError):
        pitch, point, direction = axis  # noqa: F841
    with pytest.raises(TypeError):
        spatial.same_line(axis.point, axis.point, True)  # options are keyword-only
