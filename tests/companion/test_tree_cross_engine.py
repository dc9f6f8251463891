"""Cross-engine checks: geomotion's tree algorithms against Pinocchio and MuJoCo.

The same random branched trees (rotated, offset placements; revolute and prismatic
joints about arbitrary axes that miss the body origins; helical joints too for
Pinocchio) are built in each engine by ``peers.py``, where every convention conversion
is written out.  ``pin.crba`` fills only the upper triangle (we mirror it); MuJoCo's
``qfrc_bias`` is ``C qd + g`` and ``xfrc_applied`` a world-frame (force, torque) at the
body's centre of mass.

Agreement is required to a relative error of 1e-9 (largest difference over the largest
entry).
"""

import numpy as np
import pytest
from peers import P_SWAP, axis_point, mujoco, mujoco_model, pin, pinocchio_model, to_peer
from trees import random_spec, spatial_inertia

from geomotion import spatial, tree

RTOL = 1e-9


def assert_close(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    scale = max(np.abs(theirs).max(), 1e-12)
    assert np.abs(ours - theirs).max() <= RTOL * scale, (
        f"relative error {np.abs(ours - theirs).max() / scale:.2e}"
    )


# ---------------------------------------------------------------------------
# Convention conversions, checked on their own
# ---------------------------------------------------------------------------


def test_pinocchio_operators_are_ours_after_swapping_halves():
    rng = np.random.default_rng(1)
    spec = random_spec(rng, 1, "r")
    m, c, Ic = spec.masses[0], spec.coms[0], spec.inertias_com[0]
    assert_close(P_SWAP @ pin.Inertia(m, c, Ic).matrix() @ P_SWAP, spatial_inertia(m, c, Ic))
    R, p = spec.rotations[0], spec.offsets[0]
    assert_close(
        P_SWAP @ pin.SE3(R, p).toActionMatrix() @ P_SWAP,
        spatial.motion_transform(spatial.pose(R, p)),
    )


# ---------------------------------------------------------------------------
# The three algorithms
# ---------------------------------------------------------------------------

CASES = [
    dict(seed=101, n=6, kinds="rp", roots=1),
    dict(seed=102, n=9, kinds="rp", roots=2),
    dict(seed=103, n=12, kinds="rp", roots=1),
]


@pytest.fixture(scope="module", params=range(len(CASES)), ids=lambda i: f"tree{i}")
def peers(request):
    case = CASES[request.param]
    spec = random_spec(
        np.random.default_rng(case["seed"]),
        case["n"],
        case["kinds"],
        branched=True,
        roots=case["roots"],
    )
    return spec, spec.tree(), pinocchio_model(spec), mujoco_model(spec)


def random_states(spec, batch, seed):
    rng = np.random.default_rng(seed)
    return tuple(rng.uniform(-2.0, 2.0, (batch, spec.n)) for _ in range(3))


@pytest.mark.parametrize("batch", [1, 120], ids=["one-configuration", "batch"])
def test_against_pinocchio(peers, batch):
    spec, model, (pmodel, pindex), _ = peers
    data = pmodel.createData()
    q, qd, x = random_states(spec, batch, seed=batch)
    M, tau, qdd = tree.crba(model, q), tree.rnea(model, q, qd, x), tree.aba(model, q, qd, x)
    for b in range(0, batch, max(1, batch // 6)):
        qp, vp, xp = (to_peer(v[b], pindex) for v in (q, qd, x))
        Mp = np.triu(pin.crba(pmodel, data, qp))
        Mp = Mp + np.triu(Mp, 1).T  # pin.crba fills the upper triangle only
        assert_close(M[b], Mp[np.ix_(pindex, pindex)])
        assert_close(tau[b], pin.rnea(pmodel, data, qp, vp, xp)[pindex])
        assert_close(qdd[b], pin.aba(pmodel, data, qp, vp, xp)[pindex])


def test_helical_joints_against_pinocchio():
    spec = random_spec(np.random.default_rng(104), 8, "rph", branched=True, roots=1)
    assert "h" in spec.kinds
    model, (pmodel, pindex) = spec.tree(), pinocchio_model(spec)
    data = pmodel.createData()
    q, qd, x = random_states(spec, 1, seed=7)
    qp, vp, xp = (to_peer(v[0], pindex) for v in (q, qd, x))
    Mp = np.triu(pin.crba(pmodel, data, qp))
    assert_close(tree.crba(model, q[0]), (Mp + np.triu(Mp, 1).T)[np.ix_(pindex, pindex)])
    assert_close(tree.rnea(model, q[0], qd[0], x[0]), pin.rnea(pmodel, data, qp, vp, xp)[pindex])
    assert_close(tree.aba(model, q[0], qd[0], x[0]), pin.aba(pmodel, data, qp, vp, xp)[pindex])


def test_external_wrenches_against_pinocchio(peers):
    """Our body-frame wrench about the body origin -> Pinocchio's joint frame (origin at r)."""
    spec, model, (pmodel, pindex), _ = peers
    data = pmodel.createData()
    q, qd, x = random_states(spec, 1, seed=3)
    wrenches = np.random.default_rng(4).normal(size=(spec.n, 6))
    fext = [pin.Force.Zero() for _ in range(pmodel.njoints)]
    for i in range(spec.n):
        n, f = wrenches[i, :3], wrenches[i, 3:]
        moment_about_axis_point = n - np.cross(axis_point(spec, i), f)
        fext[pmodel.getJointId(f"joint{i}")] = pin.Force(f, moment_about_axis_point)
    qp, vp, xp = (to_peer(v[0], pindex) for v in (q, qd, x))
    assert_close(
        tree.rnea(model, q[0], qd[0], x[0], f_ext=wrenches),
        pin.rnea(pmodel, data, qp, vp, xp, fext)[pindex],
    )
    assert_close(
        tree.aba(model, q[0], qd[0], x[0], f_ext=wrenches),
        pin.aba(pmodel, data, qp, vp, xp, fext)[pindex],
    )


@pytest.mark.parametrize("batch", [1, 120], ids=["one-configuration", "batch"])
def test_against_mujoco(peers, batch):
    spec, model, _, (mmodel, mindex) = peers
    data = mujoco.MjData(mmodel)
    q, qd, x = random_states(spec, batch, seed=10 + batch)
    M, tau = tree.crba(model, q), tree.rnea(model, q, qd, x)
    bias, qdd = tree.bias_forces(model, q, qd), tree.aba(model, q, qd, x)
    for b in range(0, batch, max(1, batch // 6)):
        data.qpos[:], data.qvel[:] = to_peer(q[b], mindex), to_peer(qd[b], mindex)
        data.qfrc_applied[:] = to_peer(x[b], mindex)
        mujoco.mj_forward(mmodel, data)
        Mm = np.zeros((mmodel.nv, mmodel.nv))
        mujoco.mj_fullM(mmodel, data, Mm)
        assert_close(M[b], Mm[np.ix_(mindex, mindex)])
        assert_close(bias[b], data.qfrc_bias[mindex])  # C qd + g
        assert_close(qdd[b], data.qacc[mindex])
        data.qacc[:] = to_peer(x[b], mindex)
        mujoco.mj_inverse(mmodel, data)
        assert_close(tau[b], data.qfrc_inverse[mindex])


def test_world_frame_external_wrenches_against_mujoco(peers):
    """Our world wrench about the base origin -> MuJoCo's force and torque at the centre of mass."""
    spec, model, _, (mmodel, mindex) = peers
    data = mujoco.MjData(mmodel)
    q, qd, x = random_states(spec, 1, seed=5)
    wrenches = np.random.default_rng(6).normal(size=(spec.n, 6))
    data.qpos[:], data.qvel[:] = to_peer(q[0], mindex), to_peer(qd[0], mindex)
    data.qfrc_applied[:] = to_peer(x[0], mindex)
    mujoco.mj_kinematics(mmodel, data)
    for i in range(spec.n):
        b = mujoco.mj_name2id(mmodel, mujoco.mjtObj.mjOBJ_BODY, f"body{i}")
        n, f = wrenches[i, :3], wrenches[i, 3:]
        data.xfrc_applied[b, :3] = f
        data.xfrc_applied[b, 3:] = n - np.cross(data.xipos[b], f)
    mujoco.mj_forward(mmodel, data)
    expected = data.qacc[mindex]
    assert_close(tree.aba(model, q[0], qd[0], x[0], f_ext=wrenches, f_ext_frame="world"), expected)


# ---------------------------------------------------------------------------
# Chapter 2: Coriolis matrix and point kinematics
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [1, 120], ids=["one-configuration", "batch"])
def test_coriolis_matrix_against_pinocchio(peers, batch):
    """Pinocchio's computeCoriolisMatrix is the Christoffel-consistent C, as ours."""
    spec, model, (pmodel, pindex), _ = peers
    data = pmodel.createData()
    q, qd, _ = random_states(spec, batch, seed=7 + batch)
    C = tree.coriolis_matrix(model, q, qd)
    for b in range(0, batch, max(1, batch // 6)):
        Cp = pin.computeCoriolisMatrix(pmodel, data, to_peer(q[b], pindex), to_peer(qd[b], pindex))
        assert_close(C[b], Cp[np.ix_(pindex, pindex)])


@pytest.mark.parametrize("batch", [1, 120], ids=["one-configuration", "batch"])
def test_point_kinematics_against_pinocchio_frames(peers, batch):
    """A point of every body as a Pinocchio operational frame (LOCAL_WORLD_ALIGNED)."""
    spec, model, (pmodel, pindex), _ = peers
    rng = np.random.default_rng(8)
    points = rng.normal(scale=0.3, size=(spec.n, 3))
    frame = [
        pmodel.addFrame(
            pin.Frame(
                f"point{i}",
                pmodel.getJointId(f"joint{i}"),
                0,
                pin.SE3(np.eye(3), points[i] - axis_point(spec, i)),
                pin.FrameType.OP_FRAME,
            )
        )
        for i in range(spec.n)
    ]
    data = pmodel.createData()
    q, qd, _ = random_states(spec, batch, seed=9 + batch)
    world = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    for i in range(spec.n):
        p = tree.point_position(model, q, i, points[i])
        J = tree.point_jacobian(model, q, i, points[i])
        a = tree.point_acceleration_bias(model, q, qd, i, points[i])
        for b in range(0, batch, max(1, batch // 4)):
            qp, vp = to_peer(q[b], pindex), to_peer(qd[b], pindex)
            pin.forwardKinematics(pmodel, data, qp, vp, 0 * vp)
            pin.computeJointJacobians(pmodel, data, qp)
            pin.updateFramePlacements(pmodel, data)
            assert_close(p[b], data.oMf[frame[i]].translation)
            Jp = pin.getFrameJacobian(pmodel, data, frame[i], world)[:3]
            assert_close(J[b], Jp[:, pindex])
            ap = pin.getFrameClassicalAcceleration(pmodel, data, frame[i], world).linear
            assert_close(a[b], ap)
