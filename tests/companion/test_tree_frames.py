"""Frame kinematics of geomotion.tree: pose, Jacobian, velocity and acceleration bias.

Independent checks: finite differences along the motion q(t) = integrate(q, v, t) with
constant v (the twist from the matrix logarithm of relative poses, scipy's ``logm``, and
the bias from differences of J v), agreement with the point kinematics for the linear part
in base axes, batches against single calls, and the ground frame.  Models: screw-only trees
(the compiled fast path), and trees with free-flyer and ball joints (the joint-general path).
"""

import numpy as np
import pytest
from frame_models import random_frame, random_mixed_spec
from scipy.linalg import expm, logm
from trees import random_spec

from geomotion import models, spatial, tree

REFERENCES = ("local", "world", "local_world_aligned")


def mixed_model(seed=0):
    rng = np.random.default_rng(seed)
    spec = random_mixed_spec(
        rng, [-1, 0, 1, 0, 3, 4, 1], ["free", "ball", "r", "p", "h", "ball", "r"]
    )
    return spec.tree()


def fixed_ball_model(seed=1):
    rng = np.random.default_rng(seed)
    return random_mixed_spec(rng, [-1, 0, 1, 0], ["ball", "r", "ball", "h"]).tree()


def screw_model(seed=2):
    return random_spec(np.random.default_rng(seed), 5).tree()


MODELS = {"mixed": mixed_model, "fixed_ball": fixed_ball_model, "screw": screw_model}


def vee(X):
    return np.array([X[2, 1], X[0, 2], X[1, 0], X[0, 3], X[1, 3], X[2, 3]])


def finite_difference_twist(model, q, v, body, frame, reference, h=1e-5):
    """The frame's twist from its poses at integrate(q, v, +-h), by the matrix logarithm."""
    T0 = tree.frame_pose(model, q, body, frame)
    Tp = tree.frame_pose(model, tree.integrate(model, q, v, h), body, frame)
    Tm = tree.frame_pose(model, tree.integrate(model, q, v, -h), body, frame)
    inv = np.linalg.inv(T0)
    if reference == "local":
        return vee(np.real(logm(inv @ Tp) - logm(inv @ Tm))) / (2 * h)
    world = vee(np.real(logm(Tp @ inv) - logm(Tm @ inv))) / (2 * h)
    if reference == "world":
        return world
    return np.concatenate([world[:3], (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)])


def finite_difference_bias(model, q, v, body, frame, reference, h=1e-5):
    """d/dt (J v) along integrate(q, v, t) at t = 0: the bias at a = 0."""
    Jp = tree.frame_jacobian(
        model, tree.integrate(model, q, v, h), body, frame, reference=reference
    )
    Jm = tree.frame_jacobian(
        model, tree.integrate(model, q, v, -h), body, frame, reference=reference
    )
    return (Jp - Jm) @ v / (2 * h)


def states(model, seed, count=3):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q = tree.random_configuration(model, rng=rng)
        v = rng.normal(size=model.nv)
        body = int(rng.integers(0, model.num_bodies))
        yield q, v, body, random_frame(rng)


def assert_close(ours, expected, rtol):
    ours, expected = np.asarray(ours), np.asarray(expected)
    scale = max(np.abs(expected).max(), 1.0)
    error = np.abs(ours - expected).max()
    assert error <= rtol * scale, f"error {error:.3e} (scale {scale:.3g})"


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", MODELS)
def test_jacobian_and_velocity_match_finite_differences_of_the_pose(name, reference):
    model = MODELS[name]()
    for q, v, body, frame in states(model, 10):
        expected = finite_difference_twist(model, q, v, body, frame, reference)
        J = tree.frame_jacobian(model, q, body, frame, reference=reference)
        assert J.shape == (6, model.nv)
        assert_close(J @ v, expected, 1e-7)
        assert_close(
            tree.frame_velocity(model, q, v, body, frame, reference=reference), J @ v, 1e-13
        )


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("name", MODELS)
def test_acceleration_bias_matches_finite_differences_of_jv(name, reference):
    model = MODELS[name]()
    for q, v, body, frame in states(model, 11):
        expected = finite_difference_bias(model, q, v, body, frame, reference)
        bias = tree.frame_acceleration_bias(model, q, v, body, frame, reference=reference)
        assert bias.shape == (6,)
        assert_close(bias, expected, 1e-7)


def test_local_bias_is_the_derivative_of_the_twist_in_the_moving_frame_not_the_classical():
    # "local": spatial acceleration in the frame's axes; its linear part differs from the
    # classical acceleration of the origin (rotated into the frame) by omega x v.
    model = mixed_model()
    for q, v, body, frame in states(model, 12):
        local = tree.frame_acceleration_bias(model, q, v, body, frame)
        lwa = tree.frame_acceleration_bias(
            model, q, v, body, frame, reference="local_world_aligned"
        )
        R = tree.frame_pose(model, q, body, frame)[:3, :3]
        twist = tree.frame_velocity(model, q, v, body, frame)
        assert_close(local[3:] + np.cross(twist[:3], twist[3:]), R.T @ lwa[3:], 1e-12)
        assert_close(local[:3], R.T @ lwa[:3], 1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_linear_part_in_base_axes_is_the_point_kinematics(name):
    model = MODELS[name]()
    for q, v, body, frame in states(model, 13):
        origin = frame[:3, 3]
        J = tree.frame_jacobian(model, q, body, frame, reference="local_world_aligned")
        assert_close(J[3:], tree.point_jacobian(model, q, body, origin), 1e-12)
        bias = tree.frame_acceleration_bias(
            model, q, v, body, frame, reference="local_world_aligned"
        )
        assert_close(bias[3:], tree.point_acceleration_bias(model, q, v, body, origin), 1e-12)
        p = tree.frame_pose(model, q, body, frame)[:3, 3]
        assert_close(p, tree.point_position(model, q, body, origin), 1e-13)
        # the angular rows are the same in the world and aligned references
        world = tree.frame_jacobian(model, q, body, frame, reference="world")
        assert_close(world[:3], J[:3], 1e-13)


def hat(S):
    X = np.zeros((4, 4))
    w, v = S[:3], S[3:]
    X[:3, :3] = [[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]
    X[:3, 3] = v
    return X


def test_pose_is_the_body_pose_times_the_frame():
    # body poses composed by hand, T_0i = T_0p T0_pi expm([S_i] q_i), with scipy's expm
    rng = np.random.default_rng(3)
    spec = random_spec(rng, 5)
    model = spec.tree()
    q = rng.uniform(-np.pi, np.pi, model.nq)
    frame = random_frame(rng)
    S, T0 = spec.subspaces(), spec.placements()
    poses = []
    for i, p in enumerate(spec.parents):
        local = T0[i] @ expm(hat(S[i]) * q[i])
        poses.append(local if p < 0 else poses[p] @ local)
        assert_close(tree.frame_pose(model, q, i, frame), poses[i] @ frame, 1e-12)


def test_columns_of_joints_that_do_not_move_the_body_are_zero():
    model = mixed_model()  # bodies 3, 4 hang from body 0; 1, 2, 5, 6 elsewhere
    q = tree.random_configuration(model, rng=4)
    frame = random_frame(np.random.default_rng(4))
    J = tree.frame_jacobian(model, q, 4, frame)
    moved = np.zeros(model.nv, dtype=bool)
    for i in (0, 3, 4):
        s = model.v_start[i]
        moved[s : s + model.joint_nv[i]] = True
    assert np.all(J[:, ~moved] == 0)
    assert np.linalg.matrix_rank(J[:, moved]) == 6


def test_ground_frame_is_fixed():
    model = mixed_model()
    q = tree.random_configuration(model, shape=(2,), rng=5)
    v = np.ones((2, model.nv))
    frame = random_frame(np.random.default_rng(5))
    np.testing.assert_array_equal(tree.frame_pose(model, q, -1, frame), np.stack([frame] * 2))
    for reference in REFERENCES:
        J = tree.frame_jacobian(model, q, -1, frame, reference=reference)
        assert J.shape == (2, 6, model.nv) and not J.any()
        assert not tree.frame_velocity(model, q, v, -1, frame, reference=reference).any()
        bias = tree.frame_acceleration_bias(model, q, v, -1, frame, reference=reference)
        assert bias.shape == (2, 6) and not bias.any()


@pytest.mark.parametrize("name", MODELS)
def test_batches_match_single_calls(name):
    model = MODELS[name]()
    rng = np.random.default_rng(6)
    q = tree.random_configuration(model, shape=(2, 3), rng=rng)
    v = rng.normal(size=(2, 3, model.nv))
    frames = np.array([random_frame(rng) for _ in range(3)])  # broadcasts along the last axis
    body = model.num_bodies - 1
    for reference in REFERENCES:
        J = tree.frame_jacobian(model, q, body, frames, reference=reference)
        bias = tree.frame_acceleration_bias(model, q, v, body, frames, reference=reference)
        T = tree.frame_pose(model, q, body, frames)
        assert (
            J.shape == (2, 3, 6, model.nv) and bias.shape == (2, 3, 6) and T.shape == (2, 3, 4, 4)
        )
        for i in range(2):
            for j in range(3):
                single = dict(reference=reference)
                assert_close(
                    J[i, j], tree.frame_jacobian(model, q[i, j], body, frames[j], **single), 1e-14
                )
                assert_close(
                    bias[i, j],
                    tree.frame_acceleration_bias(
                        model, q[i, j], v[i, j], body, frames[j], **single
                    ),
                    1e-14,
                )
                assert_close(T[i, j], tree.frame_pose(model, q[i, j], body, frames[j]), 1e-14)


def test_worked_example_two_link_arm():
    # Joint 1 at 2 rad/s, arm stretched out: the tip (1.1 m) moves at 2.2 m/s along y and
    # accelerates at 4.4 m/s^2 towards the axis; a frame turned 90 degrees about z sees
    # that velocity along its own x axis.
    arm = models.two_link_teaching_arm()
    tip = spatial.pose(spatial.rot_z(np.pi / 2), [0.5, 0.0, 0.0])
    twist = tree.frame_velocity(arm, [0.0, 0.0], [2.0, 0.0], 1, tip)
    np.testing.assert_allclose(twist, [0, 0, 2, 2.2, 0, 0], atol=1e-12)
    classical = tree.frame_acceleration_bias(
        arm, [0.0, 0.0], [2.0, 0.0], 1, tip, reference="local_world_aligned"
    )
    np.testing.assert_allclose(classical, [0, 0, 0, -4.4, 0, 0], atol=1e-12)
    world = tree.frame_velocity(arm, [0.0, 0.0], [2.0, 0.0], 1, tip, reference="world")
    np.testing.assert_allclose(world, [0, 0, 2, 0, 0, 0], atol=1e-12)  # about the base origin


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_input_names_the_argument():
    model = mixed_model()
    q = tree.neutral(model)
    v = np.zeros(model.nv)
    frame = np.eye(4)
    with pytest.raises(TypeError, match="model"):
        tree.frame_pose("arm", q, 0, frame)
    with pytest.raises(ValueError, match="body"):
        tree.frame_jacobian(model, q, model.num_bodies, frame)
    with pytest.raises(ValueError, match="body"):
        tree.frame_jacobian(model, q, -2, frame)
    with pytest.raises(TypeError, match="body"):
        tree.frame_jacobian(model, q, 1.0, frame)
    with pytest.raises(TypeError, match="body"):
        tree.frame_jacobian(model, q, True, frame)
    sheared = np.eye(4)
    sheared[0, 1] = 0.1
    with pytest.raises(ValueError, match="frame"):
        tree.frame_pose(model, q, 0, sheared)
    with pytest.raises(ValueError, match="frame"):
        tree.frame_pose(model, q, 0, np.eye(3))
    with pytest.raises(ValueError, match="reference"):
        tree.frame_jacobian(model, q, 0, frame, reference="body")
    with pytest.raises(TypeError, match="reference"):
        tree.frame_jacobian(model, q, 0, frame, reference=None)
    with pytest.raises(ValueError, match="q"):
        tree.frame_pose(model, q[:-1], 0, frame)
    bad = q.copy()
    bad[3] = 2.0  # the free flyer's quaternion is no longer unit
    with pytest.raises(ValueError, match="q"):
        tree.frame_pose(model, bad, 0, frame)
    with pytest.raises(ValueError, match="v"):
        tree.frame_velocity(model, q, v[:-1], 0, frame)
    with pytest.raises(TypeError, match="v"):
        tree.frame_acceleration_bias(model, q, None, 0, frame)
    with pytest.raises(ValueError, match="broadcast"):
        tree.frame_pose(model, np.stack([q] * 2), 0, np.stack([frame] * 3))
    with pytest.raises(TypeError):
        tree.frame_jacobian(model, q, 0, frame, "world")  # reference is keyword-only


@pytest.mark.parametrize("reference", REFERENCES)
def test_frame_kinematics_is_the_four_functions_in_one_pass(reference):
    model = mixed_model()
    rng = np.random.default_rng(14)
    q = tree.random_configuration(model, shape=(3,), rng=rng)
    v = rng.normal(size=(3, model.nv))
    frame = random_frame(rng)
    for body in (-1, 2, 6):
        k = tree.frame_kinematics(model, q, v, body, frame, reference=reference)
        np.testing.assert_array_equal(k.pose, tree.frame_pose(model, q, body, frame))
        np.testing.assert_array_equal(
            k.jacobian, tree.frame_jacobian(model, q, body, frame, reference=reference)
        )
        np.testing.assert_array_equal(
            k.velocity, tree.frame_velocity(model, q, v, body, frame, reference=reference)
        )
        np.testing.assert_array_equal(
            k.acceleration_bias,
            tree.frame_acceleration_bias(model, q, v, body, frame, reference=reference),
        )
    with pytest.raises(TypeError):
        pose, J, twist, bias = k  # a named result, not a tuple
