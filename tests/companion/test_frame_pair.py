"""tree.FramePair: the fused relative-frame kinematics that frame closures evaluate.

Independent references: the two frames' world kinematics from tree.frame_kinematics
combined in numpy (the formula of the class notes), finite differences of the relative
pose along a motion (the twist) and of J v along a motion with a = 0 (the bias)."""

import numpy as np
import pytest
from frame_models import random_frame, random_mixed_spec

from geomotion import spatial, tree

KINDS = ["free", "ball", "r", "ball", "p", "h", "r"]
PARENTS = [-1, 0, 1, 0, 3, 2, 4]


def _reference(model, q, v, body_a, frame_a, body_b, frame_b):
    a = tree.frame_kinematics(model, q, v, body_a, frame_a, reference="world")
    b = tree.frame_kinematics(model, q, v, body_b, frame_b, reference="world")
    X = spatial.inverse_motion_transform(a.pose)  # world -> frame a
    V_a, V_ab = X @ a.velocity, X @ (b.velocity - a.velocity)
    cross = spatial.motion_cross(V_a) @ V_ab
    pose = spatial.inverse_pose(a.pose) @ b.pose
    return (
        pose,
        X @ (b.jacobian - a.jacobian),
        X @ (b.acceleration_bias - a.acceleration_bias) - cross,
    )


@pytest.mark.parametrize("bodies", [(2, 6), (-1, 5), (4, -1), (3, 3)])
def test_frame_pair_matches_the_world_kinematics_formula(bodies):
    rng = np.random.default_rng(11 + bodies[0])
    model = random_mixed_spec(rng, PARENTS, KINDS).tree()
    frame_a, frame_b = random_frame(rng), random_frame(rng)
    pair = tree.FramePair(model, bodies[0], frame_a, bodies[1], frame_b)
    for _ in range(3):
        q = tree.random_configuration(model, rng=rng)
        v = rng.normal(size=model.nv)
        kin = pair.kinematics(q, v=v)
        pose, J, gamma = _reference(model, q, v, bodies[0], frame_a, bodies[1], frame_b)
        assert np.allclose(kin.pose, pose, atol=1e-13)
        assert np.allclose(kin.jacobian, J, atol=1e-12)
        assert np.allclose(kin.acceleration_bias, gamma, atol=1e-11)
        assert np.allclose(kin.velocity, J @ v, atol=1e-12)
        assert np.allclose(pair.pose(q), pose, atol=1e-13)


def test_frame_pair_twist_and_bias_are_rates_along_a_motion():
    rng = np.random.default_rng(5)
    model = random_mixed_spec(rng, PARENTS, KINDS).tree()
    pair = tree.FramePair(model, 1, random_frame(rng), 6, random_frame(rng))
    q = tree.random_configuration(model, rng=rng)
    v = rng.normal(size=model.nv)
    h = 1e-6
    forward, backward = (tree.integrate(model, q, v, s) for s in (h, -h))
    kin = pair.kinematics(q, v=v)
    # The twist of b relative to a, in a's axes: (d/dt T_ab) T_ab^-1.
    T = pair.pose(q)
    dT = (pair.pose(forward) - pair.pose(backward)) / (2 * h)
    twist = dT @ spatial.inverse_pose(T)
    omega = np.array([twist[2, 1], twist[0, 2], twist[1, 0]])
    assert np.allclose(kin.velocity, np.r_[omega, twist[:3, 3]], atol=1e-7)
    # gamma: the rate of J v along the motion with v held (a = 0), for a tree of screw
    # joints, where v is the coordinate rate (the free flyer's and balls' v is their own
    # body rate, held constant along integrate, too).
    rate = (pair.kinematics(forward).jacobian @ v - pair.kinematics(backward).jacobian @ v) / (
        2 * h
    )
    assert np.allclose(kin.acceleration_bias, rate, atol=1e-6)


def test_frame_pair_batches_like_single_calls():
    rng = np.random.default_rng(2)
    model = random_mixed_spec(rng, PARENTS, KINDS).tree()
    pair = tree.FramePair(model, 5, random_frame(rng), -1, random_frame(rng))
    q = tree.random_configuration(model, shape=(4,), rng=rng)
    v = rng.normal(size=(4, model.nv))
    batch = pair.kinematics(q, v=v)
    for k in range(4):
        one = pair.kinematics(q[k], v=v[k])
        assert np.array_equal(batch.jacobian[k], one.jacobian)
        assert np.array_equal(batch.acceleration_bias[k], one.acceleration_bias)
    no_v = pair.kinematics(q)
    assert no_v.velocity is None and no_v.acceleration_bias is None
    assert np.array_equal(no_v.jacobian, batch.jacobian)


def test_frame_pair_refuses_bad_input():
    rng = np.random.default_rng(1)
    model = random_mixed_spec(rng, PARENTS, KINDS).tree()
    with pytest.raises(ValueError, match="^body_b"):
        tree.FramePair(model, 0, np.eye(4), 7, np.eye(4))
    with pytest.raises(TypeError, match="^body_a"):
        tree.FramePair(model, 0.5, np.eye(4), 1, np.eye(4))
    with pytest.raises(ValueError, match="^frame_a"):
        tree.FramePair(model, 0, np.eye(3), 1, np.eye(4))
    with pytest.raises(ValueError, match="^frame_b: expected one"):
        tree.FramePair(model, 0, np.eye(4), 1, np.stack([np.eye(4)] * 2))
    with pytest.raises(TypeError, match="^model"):
        tree.FramePair("tree", 0, np.eye(4), 1, np.eye(4))
    pair = tree.FramePair(model, 0, np.eye(4), 1, np.eye(4))
    q = tree.random_configuration(model, shape=(3,), rng=rng)
    with pytest.raises(ValueError, match="^q, v: expected leading"):
        pair.kinematics(q, v=np.zeros((2, model.nv)))
    bad = np.array(q[0])
    bad[3] = 2.0  # the free flyer's quaternion is no longer unit
    with pytest.raises(ValueError, match="quaternion"):
        pair.kinematics(bad)


def test_acceleration_bias_alone_is_the_kinematics_bias():
    rng = np.random.default_rng(9)
    model = random_mixed_spec(rng, PARENTS, KINDS).tree()
    pair = tree.FramePair(model, 2, random_frame(rng), 6, random_frame(rng))
    q = tree.random_configuration(model, shape=(3,), rng=rng)
    v = rng.normal(size=(3, model.nv))
    assert np.array_equal(pair.acceleration_bias(q, v), pair.kinematics(q, v=v).acceleration_bias)
    with pytest.raises(ValueError, match="^q, v: expected leading"):
        pair.acceleration_bias(q, np.zeros((2, model.nv)))


def test_a_stack_of_pairs_gives_each_pair_rows_on_a_mixed_tree():
    # Against the numpy formula of each pair, rows picked in a scrambled order; a pair
    # with the ground and a pair within one branch.
    rng = np.random.default_rng(8)
    model = random_mixed_spec(rng, PARENTS, KINDS).tree()
    specs = [(2, 6), (-1, 5), (4, 1)]
    frames = [(random_frame(rng), random_frame(rng)) for _ in specs]
    pairs = [tree.FramePair(model, a, Fa, b, Fb) for (a, b), (Fa, Fb) in zip(specs, frames)]
    rows = [(5, 0, 3), (1,), (0, 1, 2, 3, 4, 5)]
    stack = tree.FramePairStack(pairs, rows)
    q = tree.random_configuration(model, shape=(2,), rng=rng)
    v = rng.normal(size=(2, model.nv))
    stacked = stack.jacobian_and_bias(q, v)
    J, gamma = stacked.J_c, stacked.gamma
    for b in range(2):
        expected_J, expected_g = [], []
        for (a, bb), (Fa, Fb), r in zip(specs, frames, rows):
            _, J_ref, g_ref = _reference(model, q[b], v[b], a, Fa, bb, Fb)
            expected_J.append(J_ref[list(r)])
            expected_g.append(g_ref[list(r)])
        np.testing.assert_allclose(J[b], np.concatenate(expected_J), rtol=0, atol=1e-12)
        np.testing.assert_allclose(gamma[b], np.concatenate(expected_g), rtol=0, atol=1e-11)
    np.testing.assert_array_equal(stack.jacobian(q), J)
    np.testing.assert_array_equal(stack.acceleration_bias(q, v), gamma)


def test_a_stack_of_pairs_refuses_bad_input():
    rng = np.random.default_rng(9)
    model = random_mixed_spec(rng, PARENTS, KINDS).tree()
    other = random_mixed_spec(rng, PARENTS, KINDS).tree()
    pair = tree.FramePair(model, 0, np.eye(4), 1, np.eye(4))
    with pytest.raises(TypeError, match="^pairs: expected a sequence of FramePair"):
        tree.FramePairStack(pair, [(0,)])
    with pytest.raises(ValueError, match="^pairs: expected at least one"):
        tree.FramePairStack([], [])
    with pytest.raises(ValueError, match="^pairs: expected frame pairs of one tree"):
        tree.FramePairStack([pair, tree.FramePair(other, 0, np.eye(4), 1, np.eye(4))], [(0,)] * 2)
    for rows in ([(0, 6)], [(1, 1)], [(0,), (1,)], [(-1,)]):
        with pytest.raises(ValueError, match="^components: expected distinct rows in 0..5"):
            tree.FramePairStack([pair], rows)
