"""RNEA, ABA, CRBA and the Coriolis matrix compiled over lanes of configurations (tree/_lanes.py).

The kernels serve every batch size (a block of one lane for one configuration); they
must give what the readable oracle, geomotion.tree.reference, gives (independent code)
on random trees mixing free-flyer, ball, screw and helical joints with massless
bodies, with external wrenches and one gravity per configuration, for batches of one,
that fill no block, one block, or end in a partial block.  A singular joint in any block
is reported with the first configuration that has one.  Frame and point kinematics over
lanes: each row of a batch against the single call (blocks of 64 lanes against a block
of one) for the three references, against the oracle's point kinematics, and 1 km from the
base origin; a frame pair's relative pose, Jacobian and bias against the oracle's body
poses and Jacobians (the bias by central differences along the motion); stacked
closure rows against each pair's relative kinematics.
"""

import numpy as np
import pytest
from test_tree_degenerate import singular_at_zero
from test_tree_general_kernels import random_tree

from geomotion import spatial, tree
from geomotion.tree import _flat, _lanes, _lanes_coriolis, _run
from geomotion.tree import reference as oracle
from geomotion.tree._frames import _path


def random_states(seed, batch):
    """A random mixed tree and ``batch`` states: q, two velocity-like arrays, one external
    wrench per body and one gravity per configuration."""
    model = random_tree(seed)
    rng = np.random.default_rng(200 + seed)
    q = tree.random_configuration(model, shape=(batch,), rng=rng)
    v, x = rng.normal(size=(2, batch, model.nv))
    f_ext = rng.normal(size=(batch, model.num_bodies, 6))
    g = rng.normal(size=(batch, 3)) * 5.0
    return model, q, v, x, f_ext, g


def run(kernel, model, q, v, tau, g, f_ext=None):
    _, (Q, V, T), G, F, use_f = _run._inputs(model, (q, v, tau), g, f_ext, "body")
    out = np.empty((Q.shape[0], model.nv))
    status = np.full(2, -1, dtype=np.int64)
    kernel(*_flat.flat_tree(model).arrays(), Q, V, T, G, F, use_f, out, status)
    return out, status


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("batch", [1, 3, _lanes.LANES, 2 * _lanes.LANES + 3])
def test_aba_over_lanes_gives_the_readable_aba(seed, batch):
    model, q, v, tau, f_ext, g = random_states(seed, batch)
    got, status = run(_lanes.aba, model, q, v, tau, g, f_ext)
    assert status.tolist() == [-1, -1]
    readable = oracle.aba(model, q, v, tau, gravity=g, f_ext=f_ext)
    np.testing.assert_allclose(got, readable, rtol=0, atol=1e-11 * np.abs(readable).max())


def test_a_singular_joint_in_a_later_block_is_named_with_its_configuration():
    # singular_at_zero: joint 0 moves no inertia where q1 = 0; two such configurations
    # in the third block, the first of them is the one reported.
    model = singular_at_zero()
    batch = 2 * _lanes.LANES + 5
    q = np.tile([0.7, 0.4], (batch, 1))
    q[2 * _lanes.LANES + 1, 1] = q[2 * _lanes.LANES + 3, 1] = 0.0
    zeros = np.zeros_like(q)
    _, got = run(_lanes.aba, model, q, zeros, zeros, model.gravity)
    assert got.tolist() == [2 * _lanes.LANES + 1, 0]
    _, alone = run(
        _lanes.aba, model, q[2 * _lanes.LANES + 1 :][:1], zeros[:1], zeros[:1], model.gravity
    )
    assert alone.tolist() == [0, 0]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("batch", [1, 3, 2 * _lanes.LANES + 3])
def test_rnea_crba_and_coriolis_over_lanes_give_the_readable_recursions(seed, batch):
    model, q, v, a, f_ext, g = random_states(seed, batch)
    _, (Q, V, A), G, F, use_f = _run._inputs(model, (q, v, a), g, f_ext, "body")
    arrays = _flat.flat_tree(model).arrays()
    got = np.empty((batch, model.nv))
    _lanes.rnea(*arrays, Q, V, A, G, F, use_f, got)
    readable = oracle.rnea(model, q, v, a, gravity=g, f_ext=f_ext)
    np.testing.assert_allclose(got, readable, rtol=0, atol=1e-11 * np.abs(readable).max())
    M_got = np.empty((batch, model.nv, model.nv))
    _lanes.crba(*arrays, Q, M_got)
    M_readable = oracle.crba(model, q)
    np.testing.assert_allclose(M_got, M_readable, rtol=0, atol=1e-12 * np.abs(M_readable).max())
    C_got = np.empty((batch, model.nv, model.nv))
    _lanes_coriolis.coriolis(*arrays, Q, V, C_got)
    C_readable = oracle.coriolis_matrix(model, q, v)
    np.testing.assert_allclose(C_got, C_readable, rtol=0, atol=1e-12 * np.abs(C_readable).max())


def test_each_configuration_of_a_batch_gets_what_it_gets_alone():
    """Blocks of one lane, of three and of 64 run the same recursion: a batch's rows are
    the single calls' results to rounding (the width of a block changes no formula)."""
    model, q, v, a, f_ext, g = random_states(7, _lanes.LANES + 3)
    together = (tree.crba(model, q), tree.rnea(model, q, v, a, gravity=g, f_ext=f_ext))
    for b in (0, 5, _lanes.LANES + 2):
        alone = (
            tree.crba(model, q[b]),
            tree.rnea(model, q[b], v[b], a[b], gravity=g[b], f_ext=f_ext[b]),
        )
        for x, y in zip(together, alone):
            np.testing.assert_allclose(x[b], y, rtol=0, atol=1e-13 * np.abs(y).max())


def random_frames(rng, batch):
    """One frame pose per configuration, fixed in the body."""
    frames = np.tile(np.eye(4), (batch, 1, 1))
    for k in range(batch):
        frames[k, :3, :3] = spatial.rot_z(rng.uniform(-3, 3)) @ spatial.rot_y(rng.uniform(-3, 3))
    frames[:, :3, 3] = rng.normal(size=(batch, 3)) * 0.3
    return frames


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("batch", [_lanes.LANES - 1, 2 * _lanes.LANES + 3])
@pytest.mark.parametrize("reference", ["world", "local", "local_world_aligned"])
def test_frame_kinematics_of_a_batch_give_each_configuration_s_single_call(seed, batch, reference):
    model, q, v, _, _, _ = random_states(seed, batch)
    frames = random_frames(np.random.default_rng(300 + seed), batch)
    for body in range(model.num_bodies):
        path = np.array(_path(model, body), dtype=np.int64)
        got = _run.run_frame_kinematics(model, q, v, path, frames, reference)
        for k in (0, batch // 2, batch - 1):  # a single call is a block of one lane
            one = _run.run_frame_kinematics(model, q[k], v[k], path, frames[k], reference)
            for lanes, single in zip(got, one):
                np.testing.assert_allclose(lanes[k], single, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_points_over_lanes_match_the_oracle(seed):
    # reference.point_kinematics: the oracle's recursions over every body (independent code).
    batch = 2 * _lanes.LANES + 3
    model, q, v, _, _, _ = random_states(seed, batch)
    r = np.random.default_rng(400 + seed).normal(size=(batch, 3)) * 0.3
    for body in range(model.num_bodies):
        point = oracle.point_kinematics(model, q, v, body, r)
        position, J, bias = point.position, point.jacobian, point.acceleration_bias
        np.testing.assert_allclose(tree.point_position(model, q, body, r), position, atol=1e-13)
        np.testing.assert_allclose(tree.point_jacobian(model, q, body, r), J, atol=1e-13)
        got = tree.point_acceleration_bias(model, q, v, body, r)
        np.testing.assert_allclose(got, bias, rtol=0, atol=1e-12 * (1 + np.abs(bias).max()))


def test_frames_far_from_the_base_origin_keep_their_precision_over_lanes():
    # The walk measures from the first joint's placement: 1 km away, the local Jacobian
    # and bias of a tree must agree with those of the same tree at the base origin.
    batch = _lanes.LANES + 1
    near, q, v, _, _, _ = random_states(3, batch)
    placements = near.placements.copy()
    placements[0, :3, 3] += 1000.0
    far = tree.Tree(near.parents, near.joints, placements, near.inertias, gravity=near.gravity)
    frames = random_frames(np.random.default_rng(5), batch)
    body = near.num_bodies - 1
    for reference in ("local", "local_world_aligned"):
        J_far, bias_far = (
            tree.frame_jacobian(far, q, body, frames, reference=reference),
            tree.frame_acceleration_bias(far, q, v, body, frames, reference=reference),
        )
        J_near = tree.frame_jacobian(near, q, body, frames, reference=reference)
        bias_near = tree.frame_acceleration_bias(near, q, v, body, frames, reference=reference)
        np.testing.assert_allclose(J_far, J_near, rtol=0, atol=1e-13)
        np.testing.assert_allclose(bias_far, bias_near, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_closure_rows_over_lanes_are_the_pairs_relative_rows(seed):
    # Three pairs: two bodies with shared ancestors, a body and the ground, the ground and
    # a body; rows chosen out of order.  Each stacked row is that component of its pair's
    # relative Jacobian and bias (one configuration at a time, a separate walk); a single
    # call (a block of one lane) gives the batch's row.
    batch = 2 * _lanes.LANES + 3
    model, q, v, _, _, _ = random_states(seed, batch)
    rng = np.random.default_rng(500 + seed)
    n = model.num_bodies
    frames = random_frames(rng, 6)
    pairs = [
        tree.FramePair(model, n - 1, frames[0], n - 2, frames[1]),
        tree.FramePair(model, n - 3, frames[2], -1, frames[3]),
        tree.FramePair(model, -1, frames[4], n - 1, frames[5]),
    ]
    components = [[5, 0, 3], [0, 1, 2, 3, 4, 5], [4, 2]]
    stack = tree.FramePairStack(pairs, components)
    stacked = stack.jacobian_and_bias(q, v)
    J, gamma = stacked.J_c, stacked.gamma
    assert J.shape == (batch, 11, model.nv) and gamma.shape == (batch, 11)
    relative = [pair.kinematics(q, v=v) for pair in pairs]
    out = 0
    for pair, chosen in zip(relative, components):
        for component in chosen:
            np.testing.assert_allclose(J[:, out], pair.jacobian[:, component], rtol=0, atol=1e-12)
            expected = pair.acceleration_bias[:, component]
            tolerance = 1e-11 * (1 + np.abs(expected).max())
            np.testing.assert_allclose(gamma[:, out], expected, rtol=0, atol=tolerance)
            out += 1
    for k in (0, _lanes.LANES + 1, batch - 1):
        one = stack.jacobian_and_bias(q[k], v[k])
        J1, gamma1 = one.J_c, one.gamma
        np.testing.assert_allclose(J[k], J1, rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            gamma[k], gamma1, rtol=0, atol=1e-11 * (1 + np.abs(gamma1).max())
        )
    np.testing.assert_array_equal(stack.jacobian(q), J)
    np.testing.assert_array_equal(stack.acceleration_bias(q, v), gamma)


def _world_columns(model, q, body):
    """Pose (..., 4, 4) and world Jacobian (..., 6, nv) of ``body`` from the oracle; the
    ground (-1) is fixed at the identity."""
    if body < 0:
        return np.broadcast_to(np.eye(4), q.shape[:-1] + (4, 4)), np.zeros(
            q.shape[:-1] + (6, model.nv)
        )
    T = oracle.forward_kinematics(model, q)[..., body, :, :]
    return T, spatial.motion_transform(T) @ oracle.body_jacobians(model, q)[..., body, :, :]


def _oracle_pair(model, q, v, a_body, Fa, b_body, Fb):
    """T_ab and the relative Jacobian in frame a's axes (about its origin) from the
    oracle's poses and Jacobians."""
    Ta, Ja = _world_columns(model, q, a_body)
    Tb, Jb = _world_columns(model, q, b_body)
    TA, TB = Ta @ Fa, Tb @ Fb
    T_ab = np.linalg.inv(TA) @ TB
    J = spatial.motion_transform(np.linalg.inv(TA)) @ (Jb - Ja)
    return T_ab, J


@pytest.mark.parametrize("seed", range(3))
def test_a_frame_pair_s_relative_kinematics_match_the_oracle(seed):
    batch = _lanes.LANES + 2
    model, q, v, _, _, _ = random_states(seed, batch)
    frames = random_frames(np.random.default_rng(600 + seed), 2)
    n = model.num_bodies
    h = 1e-6
    for a_body, b_body in ((n - 1, n - 2), (n - 3, -1), (-1, n - 1)):
        pair = tree.FramePair(model, a_body, frames[0], b_body, frames[1])
        got = pair.kinematics(q, v=v)
        T_ab, J = _oracle_pair(model, q, v, a_body, frames[0], b_body, frames[1])
        np.testing.assert_allclose(got.pose, T_ab, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.jacobian, J, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.velocity, np.einsum("bij,bj->bi", J, v), atol=1e-12)
        _, J_ahead = _oracle_pair(
            model, tree.integrate(model, q, v, h), v, a_body, frames[0], b_body, frames[1]
        )
        _, J_behind = _oracle_pair(
            model, tree.integrate(model, q, v, -h), v, a_body, frames[0], b_body, frames[1]
        )
        rate = np.einsum("bij,bj->bi", (J_ahead - J_behind) / (2 * h), v)
        np.testing.assert_allclose(
            got.acceleration_bias, rate, rtol=0, atol=1e-6 * (1 + np.abs(rate).max())
        )
