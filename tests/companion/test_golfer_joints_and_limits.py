"""The 3-D golfer's forearm rotation and its range-of-motion data (models.golfer,
models.GOLFER_JOINT_LIMITS, models.golfer_angles, models.check_golfer_limits).

Independent checks: the new joint's kinematics and dynamics against Pinocchio, built from
the same tree (``pin_trees.py``: its own forward kinematics of the hands and club frames,
frame Jacobians, mass matrix and RNEA); the joints' signs from where the palm and the hand
point, not from the code's axes; the anatomical angles on rotations built by hand, with
cases that a swapped sign or axis order would fail; the table's numbers typed here from the
golf source notes' addendum (section 5), not read from the code.
"""

import numpy as np
import pytest
from pin_trees import pin_q, pin_v_order, pinocchio_tree
from scipy.spatial.transform import Rotation

from geomotion import constraints, models, spatial, tree

DEG = np.pi / 180


@pytest.fixture(scope="module")
def golfer():
    return models.golfer()


@pytest.fixture(scope="module")
def peer(golfer):
    return pinocchio_tree(golfer.model, golfer.frames)


def _states(model, rng, count):
    q = tree.random_configuration(model, shape=(count,), rng=rng)
    v, a = rng.normal(size=(2, count, model.nv))
    return q, v, a


def _quaternion(R):
    """A rotation matrix as our quaternion (w, x, y, z), by scipy."""
    return np.roll(Rotation.from_matrix(R).as_quat(), 1)


def _with_joint(golfer, q, name, value):
    """A copy of q with the joint of body ``name`` set to ``value``."""
    q = np.array(q, dtype=float)
    i = golfer.bodies[name]
    s = golfer.model.q_start[i]
    q[..., s : s + golfer.model.joint_nq[i]] = value
    return q


def _posture(golfer, *, pelvis=None, thorax=None, lead_arm=None, **hinges):
    """The neutral configuration with the given pelvis, thorax (relative to the pelvis) and
    lead upper arm (relative to the thorax) orientations (None: unrotated) and hinge angles
    (rad) by body, underscores for spaces."""
    pelvis, thorax, lead_arm = (np.eye(3) if R is None else R for R in (pelvis, thorax, lead_arm))
    q = tree.neutral(golfer.model)
    q = _with_joint(golfer, q, "pelvis", np.r_[0.1, -0.2, 0.9, _quaternion(pelvis)])
    q = _with_joint(golfer, q, "thorax", _quaternion(thorax))
    q = _with_joint(golfer, q, "lead upper arm", _quaternion(lead_arm))
    for name, value in hinges.items():
        q = _with_joint(golfer, q, name.replace("_", " "), value)
    return q


# ---------------------------------------------------------------------------
# The forearm rotation: structure and signs
# ---------------------------------------------------------------------------


def test_forearm_rotation_sits_between_the_elbow_and_the_wrist(golfer):
    model, bodies = golfer.model, golfer.bodies
    for role, hand in (("lead", "lead hand and club"), ("trail", "trail hand")):
        chain = [f"{role} upper arm", f"{role} forearm", f"{role} radioulnar", f"{role} wrist"]
        for parent, child in zip(chain, chain[1:] + [hand]):
            assert model.parents[bodies[child]] == bodies[parent]
        i = bodies[f"{role} radioulnar"]
        assert model.joints[i].kind == "revolute" and model.masses[i] == 0.0
        # At the wrist joint centre, the forearm's length below the elbow.
        np.testing.assert_allclose(model.placements[i][:3, 3], [0, 0, -0.27], atol=1e-15)
        np.testing.assert_allclose(model.placements[bodies[f"{role} wrist"]], np.eye(4))


def test_forearm_rotation_pronates_and_mirrors_between_sides(golfer):
    """At the neutral posture (palms forward) the axis is the forearm's long axis, the
    trail one the mirror image of the lead one; a positive angle turns each palm towards
    the body's midline (pronation): the lead (left) palm to -y, the trail palm to +y."""
    model, bodies = golfer.model, golfer.bodies
    q = tree.neutral(model)
    mirror = np.diag([1.0, -1.0, 1.0])
    twist = {}
    for role in ("lead", "trail"):
        i = bodies[f"{role} radioulnar"]
        twist[role] = tree.frame_jacobian(model, q, i, np.eye(4), reference="world")[
            :, model.v_start[i]
        ]
    np.testing.assert_allclose(twist["lead"][:3], [0.0, 0.0, -1.0], atol=1e-15)
    np.testing.assert_allclose(twist["trail"][:3], -mirror @ twist["lead"][:3], atol=1e-15)
    np.testing.assert_allclose(twist["trail"][3:], mirror @ twist["lead"][3:], atol=1e-15)
    q = _with_joint(golfer, q, "lead radioulnar", np.pi / 2)
    q = _with_joint(golfer, q, "trail radioulnar", np.pi / 2)
    T = tree.forward_kinematics(model, q)
    palm_normal = [1.0, 0.0, 0.0]  # the hand's x axis: out of the palm at neutral
    np.testing.assert_allclose(
        T[bodies["lead hand and club"], :3, :3] @ palm_normal, [0, -1, 0], atol=1e-15
    )
    np.testing.assert_allclose(T[bodies["trail hand"], :3, :3] @ palm_normal, [0, 1, 0], atol=1e-15)
    # The hand does not move off the forearm's axis: the wrist centre stays put.
    T0 = tree.forward_kinematics(model, tree.neutral(model))
    np.testing.assert_allclose(T[bodies["trail hand"], :3, 3], T0[bodies["trail hand"], :3, 3])


def test_wrist_deviation_is_radial_when_positive(golfer):
    """In the anatomical position the thumb points away from the body: radial deviation
    turns the hand's long axis (-z) towards +y on the lead (left) side, -y on the trail."""
    q = _posture(golfer, lead_hand_and_club=0.3, trail_hand=0.3)
    T = tree.forward_kinematics(golfer.model, q)
    down = [0.0, 0.0, -1.0]
    lead = T[golfer.bodies["lead hand and club"], :3, :3] @ down
    trail = T[golfer.bodies["trail hand"], :3, :3] @ down
    assert lead[1] == pytest.approx(np.sin(0.3)) and trail[1] == pytest.approx(-np.sin(0.3))
    angles = models.golfer_angles(golfer, q)
    assert angles.lead_wrist_deviation == angles.trail_wrist_deviation == 0.3


def test_the_wrist_locks_where_flexion_lines_the_deviation_axis_up_with_the_forearm(golfer):
    """Three hinges through the wrist centre: at flexion +-90 degrees the deviation axis
    lies along the forearm's rotation axis, the two coordinates make one motion and the
    mass matrix is singular; 70 degrees away it is not."""
    model, bodies = golfer.model, golfer.bodies
    for flexion, singular in ((np.pi / 2, True), (-np.pi / 2, True), (70 * DEG, False)):
        q = _with_joint(golfer, golfer.q0, "trail wrist", flexion)
        J = tree.frame_jacobian(model, q, bodies["trail hand"], np.eye(4), reference="world")
        columns = model.v_start[[bodies["trail radioulnar"], bodies["trail hand"]]]
        parallel = np.linalg.norm(np.cross(J[:3, columns[0]], J[:3, columns[1]]))
        eig = np.linalg.eigvalsh(tree.crba(model, q))
        if singular:
            assert parallel < 1e-15 and eig[0] < 1e-14 * eig[-1]
        else:
            assert parallel == pytest.approx(np.cos(flexion), abs=1e-14)
            assert eig[0] > 1e-7 * eig[-1]


# ---------------------------------------------------------------------------
# Against Pinocchio: kinematics and dynamics of the tree with the new joints
# ---------------------------------------------------------------------------


def test_hand_and_club_frames_match_pinocchio(golfer, peer):
    pin, pmodel = peer
    model, bodies = golfer.model, golfer.bodies
    frames = dict(golfer.frames)
    for role, hand in (("lead", "lead hand and club"), ("trail", "trail hand")):
        frames[f"{role} hand"] = models.BodyFrame(bodies[hand], np.eye(4))
        frames[f"{role} radioulnar"] = models.BodyFrame(bodies[f"{role} radioulnar"], np.eye(4))
    pin_frames = pinocchio_tree(model, frames)[1]
    q, _, _ = _states(model, np.random.default_rng(21), 12)
    q = np.concatenate([golfer.q0[None], q])
    data = pin_frames.createData()
    for k in range(len(q)):
        pin.framesForwardKinematics(pin_frames, data, pin_q(model, q[k]))
        pin.computeJointJacobians(pin_frames, data, pin_q(model, q[k]))
        for name, frame in frames.items():
            fid = pin_frames.getFrameId(name)
            np.testing.assert_allclose(
                data.oMf[fid].homogeneous, frame.world_pose(model, q[k]), rtol=0, atol=1e-12
            )
            J_pin = pin.getFrameJacobian(pin_frames, data, fid, pin.ReferenceFrame.LOCAL)
            J = tree.frame_jacobian(model, q[k], frame.body, frame.pose)
            order = pin_v_order(model)
            np.testing.assert_allclose(np.r_[J_pin[3:], J_pin[:3]], J[:, order], rtol=0, atol=1e-12)


def test_mass_matrix_and_inverse_dynamics_match_pinocchio(golfer, peer):
    pin, pmodel = peer
    model = golfer.model
    order = pin_v_order(model)
    np.testing.assert_allclose(pmodel.gravity.linear, model.gravity, atol=0)
    q, v, a = _states(model, np.random.default_rng(22), 12)
    q = np.concatenate([golfer.q0[None], q])
    v, a = np.concatenate([np.zeros((1, model.nv)), v]), np.concatenate([a[:1], a])
    M, tau = tree.crba(model, q), tree.rnea(model, q, v, a)
    data = pmodel.createData()
    worst_M = worst_tau = 0.0
    for k in range(len(q)):
        pq = pin_q(model, q[k])
        M_pin = pin.crba(pmodel, data, pq)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        tau_pin = pin.rnea(pmodel, data, pq, v[k, order], a[k, order])
        worst_M = max(
            worst_M, np.abs(M_pin - M[k][np.ix_(order, order)]).max() / np.abs(M_pin).max()
        )
        worst_tau = max(worst_tau, np.abs(tau_pin - tau[k, order]).max() / np.abs(tau_pin).max())
    assert worst_M < 1e-13 and worst_tau < 1e-13  # relative to the largest entry


# ---------------------------------------------------------------------------
# Mobility and the address posture
# ---------------------------------------------------------------------------


def test_the_grip_loop_gains_two_freedoms(golfer):
    weld = models.golfer(trail_grip="weld")
    assert (golfer.model.nv, golfer.model.nq) == (35, 41)
    # 35 - 12 (feet) - 3 (point grip) and 35 - 12 - 6 (weld), from the rank.
    assert (golfer.mobility(golfer.q0), weld.mobility(weld.q0)) == (20, 17)


def test_lead_arm_places_the_club_in_five_dimensions_only(golfer):
    """With the elbow held, the lead arm's other six coordinates give the club frame a
    rank-5 Jacobian (forearm rotation duplicates the humerus's turn about the
    shoulder-wrist line); with the thorax's three the rank is 6."""
    model, bodies = golfer.model, golfer.bodies
    club = golfer.frames["club butt"]
    names = ("lead upper arm", "lead radioulnar", "lead wrist", "lead hand and club")
    arm = np.concatenate(
        [
            np.arange(
                model.v_start[bodies[n]], model.v_start[bodies[n]] + model.joint_nv[bodies[n]]
            )
            for n in names
        ]
    )
    thorax = np.arange(model.v_start[bodies["thorax"]], model.v_start[bodies["thorax"]] + 3)
    q = np.concatenate(
        [
            golfer.q0[None],
            tree.random_configuration(model, shape=(5,), rng=np.random.default_rng(4)),
        ]
    )
    J = tree.frame_jacobian(model, q, club.body, club.pose, reference="world")
    assert arm.size == 6
    np.testing.assert_array_equal(constraints.constraint_rank(J[..., arm]), 5)
    np.testing.assert_array_equal(constraints.constraint_rank(J[..., np.r_[thorax, arm]]), 6)


def test_address_trunk_and_forearms(golfer):
    """The address posture as the golfer's docstring states it (computed, not chosen)."""
    g = golfer
    angles = models.golfer_angles(g, g.q0)
    trunk = np.degrees([angles.trunk_flexion, angles.trunk_lateral_bending, angles.trunk_rotation])
    np.testing.assert_allclose(trunk, [15.14, 27.48, 12.85], atol=0.01)
    pronation = np.degrees(
        g.q0[g.model.q_start[[g.bodies[f"{r} radioulnar"] for r in ("lead", "trail")]]]
    )
    np.testing.assert_allclose(pronation, [84.4, 100.2], atol=0.05)
    T = tree.forward_kinematics(g.model, g.q0)
    assert np.degrees(np.arccos(T[g.bodies["thorax"], 2, 2])) == pytest.approx(43.5, abs=0.05)
    # Within every measured norm at address.
    check = models.check_golfer_limits(g, g.q0)
    assert not check.exceeded and check.messages() == []


def test_address_needs_the_thorax_for_the_lead_arm_reach(golfer):
    """From the starting thorax (flexed 25 degrees, bent 10 towards the trail: the pelvis
    and legs are those of q0, which the arms' solve does not move), the lead wrist centre
    that the club's address pose fixes is 0.48 m from the lead shoulder; the lead arm
    with its elbow at 5 degrees spans 0.57 m."""
    g = golfer
    start = _with_joint(
        g,
        g.q0,
        "thorax",
        _quaternion(spatial.rot_y(25 * DEG) @ spatial.rot_x(10 * DEG)),
    )
    shoulder = tree.forward_kinematics(g.model, start)[g.bodies["lead upper arm"], :3, 3]
    wrist = tree.forward_kinematics(g.model, g.q0)[g.bodies["lead hand and club"], :3, 3]
    assert np.linalg.norm(wrist - shoulder) == pytest.approx(0.478, abs=5e-4)
    span = np.sqrt(0.30**2 + 0.27**2 + 2 * 0.30 * 0.27 * np.cos(5 * DEG))
    assert span == pytest.approx(0.5695, abs=5e-5)
    shoulder_q0 = tree.forward_kinematics(g.model, g.q0)[g.bodies["lead upper arm"], :3, 3]
    assert np.linalg.norm(wrist - shoulder_q0) == pytest.approx(span, abs=1e-10)


# ---------------------------------------------------------------------------
# The table: numbers typed from the addendum, section 5
# ---------------------------------------------------------------------------


def test_limits_hold_the_addendum_numbers():
    table = models.GOLFER_JOINT_LIMITS
    expected = {  # name: (angle, direction, degrees, sd degrees, kind, row)
        "lead wrist radial deviation": ("lead_wrist_deviation", 1, 20, None, "measured norm", "R1"),
        "trail wrist radial deviation": (
            "trail_wrist_deviation",
            1,
            20,
            None,
            "measured norm",
            "R1",
        ),
        "lead wrist ulnar deviation": ("lead_wrist_deviation", -1, 30, None, "measured norm", "R2"),
        "trail wrist ulnar deviation": (
            "trail_wrist_deviation",
            -1,
            30,
            None,
            "measured norm",
            "R2",
        ),
        # R6: right 41.93 +/- 3.35, left 41.65 +/- 3.39; the trail side is the right.
        "trunk rotation towards the trail": (
            "trunk_rotation",
            -1,
            41.93,
            3.35,
            "measured norm",
            "R6",
        ),
        "trunk rotation towards the target": (
            "trunk_rotation",
            1,
            41.65,
            3.39,
            "measured norm",
            "R6",
        ),
        # R5 (K4): 125 +/- 6 degrees at the top of the backswing, not a limit.
        "lead shoulder horizontal adduction": (
            "lead_shoulder_horizontal_adduction",
            1,
            125,
            6,
            "in-swing value",
            "R5",
        ),
    }
    assert set(table) == set(expected)
    for name, (angle, direction, degrees, sd, kind, row) in expected.items():
        limit = table[name]
        assert (limit.angle, limit.direction, limit.kind, limit.source) == (
            angle,
            direction,
            kind,
            row,
        )
        assert limit.value == pytest.approx(np.radians(degrees), rel=1e-15)
        if sd is None:
            assert limit.spread is None
        else:
            assert limit.spread == pytest.approx(np.radians(sd), rel=1e-15)
    assert "AAOS" in table["lead wrist radial deviation"].note
    assert "R7" in table["trunk rotation towards the trail"].note
    assert "Zheng2008a" in table["lead shoulder horizontal adduction"].reference
    assert models.LIMIT_KINDS == ("measured norm", "in-swing value")


def test_limits_are_read_only():
    table = models.GOLFER_JOINT_LIMITS
    with pytest.raises(TypeError):
        table["new"] = table["lead wrist radial deviation"]
    with pytest.raises(AttributeError):
        table["lead wrist radial deviation"].value = 1.0


def test_joint_limit_rejects_bad_fields():
    good = dict(
        angle="trunk_rotation",
        direction=1,
        value=0.5,
        spread=None,
        kind="measured norm",
        source="R6",
        reference="r",
        note="n",
    )
    models.JointLimit(**good)
    for field, value, error in (
        ("angle", "trunk_twist", ValueError),
        ("angle", 3, TypeError),
        ("direction", 2, ValueError),
        ("direction", True, TypeError),
        ("direction", 1.0, TypeError),
        ("value", -0.5, ValueError),
        ("value", np.inf, ValueError),
        ("value", True, TypeError),
        ("value", "20 deg", TypeError),
        ("spread", 0.0, ValueError),
        ("kind", "guess", ValueError),
        ("note", None, TypeError),
    ):
        with pytest.raises(error, match=field):
            models.JointLimit(**{**good, field: value})


# ---------------------------------------------------------------------------
# The anatomical angles on rotations built by hand
# ---------------------------------------------------------------------------


def test_trunk_angles_round_trip_a_flexion_first_cardan_sequence(golfer):
    rng = np.random.default_rng(5)
    alpha, gamma = rng.uniform(-np.pi, np.pi, size=(2, 20))
    beta = rng.uniform(-80 * DEG, 80 * DEG, size=20)
    thorax = spatial.rot_y(alpha) @ spatial.rot_x(beta) @ spatial.rot_z(gamma)
    pelvis = spatial.rot_z(0.7) @ spatial.rot_x(-0.4)  # angles are relative to the pelvis
    q = np.stack([_posture(golfer, pelvis=pelvis, thorax=R) for R in thorax])
    angles = models.golfer_angles(golfer, q)
    assert angles.trunk_rotation.shape == (20,)
    np.testing.assert_allclose(angles.trunk_flexion, alpha, atol=1e-12)
    np.testing.assert_allclose(angles.trunk_lateral_bending, beta, atol=1e-12)
    np.testing.assert_allclose(angles.trunk_rotation, gamma, atol=1e-12)


def test_trunk_angle_signs_follow_anatomy(golfer):
    """Signs read from where the thorax's axes point in the pelvis, not from the formula."""
    cases = (  # thorax relative to pelvis, the moved axis, its expected direction
        (spatial.rot_y(30 * DEG), 2, "trunk_flexion", 30),  # top forward (+x)
        (spatial.rot_x(20 * DEG), 2, "trunk_lateral_bending", 20),  # top to the right (-y)
        (spatial.rot_z(-35 * DEG), 0, "trunk_rotation", -35),  # front to the right (-y)
    )
    for R, axis, name, degrees in cases:
        angles = models.golfer_angles(golfer, _posture(golfer, thorax=R))
        assert getattr(angles, name) == pytest.approx(np.radians(degrees), abs=1e-14)
        moved = R[:, axis]
        if name == "trunk_flexion":
            assert moved[0] > 0  # forward
        else:
            assert moved[1] < 0  # towards the right, the trail side


def test_trunk_rotation_is_about_the_thorax_axis_not_the_pelvis_axis(golfer):
    """A thorax flexed 30 degrees and then turned 40 about its own long axis has trunk
    rotation 40 and no side bend.  Turned 40 about the pelvis's vertical axis first and
    then flexed, it does not: a flexion-first decomposition must tell the two apart (a
    turn-first one, or a swapped order, would give 40 for the second and not the first)."""
    own = spatial.rot_y(30 * DEG) @ spatial.rot_z(40 * DEG)
    pelvis_first = spatial.rot_z(40 * DEG) @ spatial.rot_y(30 * DEG)
    a = models.golfer_angles(golfer, _posture(golfer, thorax=own))
    np.testing.assert_allclose(
        np.degrees([a.trunk_flexion, a.trunk_lateral_bending, a.trunk_rotation]),
        [30, 0, 40],
        atol=1e-12,
    )
    b = models.golfer_angles(golfer, _posture(golfer, thorax=pelvis_first))
    # By hand: R = Rz(40) Ry(30); beta = asin(-R[1,2]) = -asin(sin 40 sin 30).
    assert np.degrees(b.trunk_lateral_bending) == pytest.approx(
        -np.degrees(np.arcsin(np.sin(40 * DEG) * np.sin(30 * DEG))), abs=1e-12
    )
    assert abs(np.degrees(b.trunk_rotation) - 40) > 1.0


def test_trunk_angles_at_the_side_bend_lock_still_reproduce_the_rotation(golfer):
    for beta in (np.pi / 2, -np.pi / 2):
        R = spatial.rot_y(0.4) @ spatial.rot_x(beta) @ spatial.rot_z(-0.9)
        a = models.golfer_angles(golfer, _posture(golfer, thorax=R))
        assert np.all(np.isfinite([a.trunk_flexion, a.trunk_rotation]))
        assert a.trunk_lateral_bending == pytest.approx(beta, abs=1e-7)
        rebuilt = (
            spatial.rot_y(a.trunk_flexion)
            @ spatial.rot_x(a.trunk_lateral_bending)
            @ spatial.rot_z(a.trunk_rotation)
        )
        np.testing.assert_allclose(rebuilt, R, atol=1e-12)


def test_lead_shoulder_plane_of_elevation(golfer):
    """Humerus direction d = R (0, 0, -1) in the thorax: straight forward is 90 degrees of
    horizontal adduction, sideways 0, 35 degrees across the chest past forward 125 (the
    in-swing value of R5); the elevation of all three is 90 degrees."""
    forward = spatial.rot_y(-90 * DEG)  # -z -> +x
    for extra, expected in ((0, 90), (-35, 125), (90, 0)):
        arm = spatial.rot_z(extra * DEG) @ forward
        thorax = spatial.rot_y(0.3) @ spatial.rot_z(0.5)  # relative to the thorax
        a = models.golfer_angles(golfer, _posture(golfer, thorax=thorax, lead_arm=arm))
        assert np.degrees(a.lead_shoulder_horizontal_adduction) == pytest.approx(
            expected, abs=1e-12
        )
        assert np.degrees(a.lead_shoulder_elevation) == pytest.approx(90, abs=1e-12)
    hanging = models.golfer_angles(golfer, tree.neutral(golfer.model))
    assert hanging.lead_shoulder_elevation == 0.0
    assert np.isfinite(hanging.lead_shoulder_horizontal_adduction)


def test_angles_broadcast_and_are_read_only(golfer):
    q = tree.random_configuration(golfer.model, shape=(2, 3), rng=np.random.default_rng(8))
    angles = models.golfer_angles(golfer, q)
    single = models.golfer_angles(golfer, q[1, 2])
    for name in models.GolferAngles.__dataclass_fields__:
        batch = getattr(angles, name)
        assert batch.shape == (2, 3) and not batch.flags.writeable
        assert getattr(single, name).shape == ()
        assert getattr(single, name) == batch[1, 2]


# ---------------------------------------------------------------------------
# The check: which norm, which sample, by how much
# ---------------------------------------------------------------------------


def test_check_reports_each_excess_sample_by_sample(golfer):
    q = np.stack(
        [
            golfer.q0,
            _posture(golfer, thorax=spatial.rot_z(-50 * DEG)),  # 50 deg towards the trail
            _posture(golfer, lead_hand_and_club=25 * DEG, trail_hand=-35 * DEG),
            _posture(golfer, thorax=spatial.rot_z(41 * DEG)),  # within the 41.65 to the left
        ]
    ).reshape(2, 2, -1)
    check = models.check_golfer_limits(golfer, q)
    assert set(check.excess) == {
        name for name, limit in models.GOLFER_JOINT_LIMITS.items() if limit.kind == "measured norm"
    }
    np.testing.assert_array_equal(check.exceeded, [[False, True], [True, False]])
    excess = {name: np.degrees(value) for name, value in check.excess.items()}
    assert excess["trunk rotation towards the trail"][0, 1] == pytest.approx(50 - 41.93, abs=1e-9)
    assert excess["lead wrist radial deviation"][1, 0] == pytest.approx(5.0, abs=1e-9)
    assert excess["trail wrist ulnar deviation"][1, 0] == pytest.approx(5.0, abs=1e-9)
    total = sum(np.count_nonzero(value) for value in excess.values())
    assert total == 3
    assert check.messages() == [
        "q[0, 1]: trunk rotation towards the trail 50.0 deg, beyond the measured norm "
        "41.9 deg (R6) by 8.1 deg",
        "q[1, 0]: lead wrist radial deviation 25.0 deg, beyond the measured norm 20.0 deg "
        "(R1) by 5.0 deg",
        "q[1, 0]: trail wrist ulnar deviation 35.0 deg, beyond the measured norm 30.0 deg "
        "(R2) by 5.0 deg",
    ]
    for value in check.excess.values():
        assert not value.flags.writeable
    with pytest.raises(TypeError):
        check.excess["new"] = 0.0


def test_check_of_one_configuration(golfer):
    q = _posture(golfer, thorax=spatial.rot_z(44.66 * DEG))
    check = models.check_golfer_limits(golfer, q)
    assert check.exceeded.shape == () and bool(check.exceeded)
    assert check.messages() == [
        "q: trunk rotation towards the target 44.7 deg, beyond the measured norm 41.6 deg "
        "(R6) by 3.0 deg"
    ]


@pytest.mark.parametrize("function", [models.golfer_angles, models.check_golfer_limits])
def test_angles_and_check_reject_bad_input(golfer, function):
    with pytest.raises(TypeError, match="golfer"):
        function(golfer.model, golfer.q0)
    with pytest.raises(TypeError, match="golfer"):
        function(models.legs_and_pelvis(), golfer.q0)
    with pytest.raises(ValueError, match="q"):
        function(golfer, golfer.q0[:-1])
    with pytest.raises(ValueError, match="q"):
        function(golfer, np.full(golfer.model.nq, np.nan))
    with pytest.raises(TypeError, match="q"):
        function(golfer, None)
    with pytest.raises(TypeError, match="q"):
        function(golfer, golfer.q0.astype(complex))
    bad = np.array(golfer.q0)
    s = golfer.model.q_start[golfer.bodies["thorax"]]
    bad[s : s + 4] *= 2.0  # not a unit quaternion
    with pytest.raises(ValueError, match="q"):
        function(golfer, bad)
