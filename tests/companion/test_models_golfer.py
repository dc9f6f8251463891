"""The golfer and chapter 2's legs-and-pelvis model (geomotion.models.golfer), and their data.

Independent checks: the segment fractions against de Leva's bookkeeping (the parts of the
trunk add up to the trunk, all segments to the body) and the measured club head against
its published principal moments; postures by forward kinematics; mass matrices and the
mobility counts against Pinocchio, built from the same tree (``pin_trees.py``; its own
kinematics, its own frame Jacobians, the rank of the stacked planted-foot and grip rows).
The tests that need ``constraints.frame_closure`` (merged separately) are skipped until it
exists.
"""

import pathlib
import re

import numpy as np
import pytest
from pin_trees import pin_q, pin_v_order, pinocchio_tree

from geomotion import constraints, inertia, models, spatial, tree
from geomotion.errors import ConvergenceError
from geomotion.models import body_segments

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def legs():
    return models.legs_and_pelvis()


@pytest.fixture(scope="module")
def stiff_legs():
    return models.legs_and_pelvis(leg_joints=5)


@pytest.fixture(scope="module")
def point_golfer():
    return models.golfer()


@pytest.fixture(scope="module")
def weld_golfer():
    return models.golfer(trail_grip="weld")


# ---------------------------------------------------------------------------
# Segment data
# ---------------------------------------------------------------------------


def test_every_row_cites_de_leva_and_the_key_is_in_the_bibliography():
    bib = (REPO / "book" / "references.bib").read_text()
    keys = set(re.findall(r"@\w+\{(\w+),", bib))
    for name, row in body_segments.DE_LEVA_MALE.items():
        assert row.citation == "deLeva1996", name
        assert row.citation in keys
        assert "de Leva 1996" in row.transcription, name


def test_trunk_parts_and_all_segments_add_up():
    rows = body_segments.DE_LEVA_MALE
    parts = rows["upper_trunk"].mass + rows["middle_trunk"].mass + rows["lower_trunk"].mass
    assert parts == pytest.approx(rows["trunk"].mass, abs=1e-12)  # 0.4346
    limbs = ("upper_arm", "forearm", "hand", "thigh", "shank", "foot")
    total = rows["head"].mass + rows["trunk"].mass + 2 * sum(rows[s].mass for s in limbs)
    assert total == pytest.approx(1.0, abs=1e-12)


def test_rows_give_realizable_segments():
    for name, row in body_segments.DE_LEVA_MALE.items():
        m, *moments = body_segments.segment_central_inertia(row, body_mass=80.0, length=0.4)
        assert m > 0
        assert inertia.is_physically_realizable(np.diag(moments)), name


def test_segment_central_inertia_by_hand():
    thigh = body_segments.DE_LEVA_MALE["thigh"]
    got = body_segments.segment_central_inertia(thigh, body_mass=80.0, length=0.44)
    m = 0.1416 * 80.0  # de Leva's male thigh, 14.16 % of body mass
    expected = [m, m * (0.329 * 0.44) ** 2, m * (0.329 * 0.44) ** 2, m * (0.149 * 0.44) ** 2]
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_segment_central_inertia_rejects_bad_input():
    thigh = body_segments.DE_LEVA_MALE["thigh"]
    with pytest.raises(TypeError, match="segment"):
        body_segments.segment_central_inertia("thigh", body_mass=80.0, length=0.44)
    with pytest.raises(ValueError, match="body_mass"):
        body_segments.segment_central_inertia(thigh, body_mass=-80.0, length=0.44)
    with pytest.raises(ValueError, match="length"):
        body_segments.segment_central_inertia(thigh, body_mass=80.0, length=0.0)


def test_measured_club_head_has_its_published_principal_moments():
    # Proceedings 2020, 49(1), 47: principal moments 2497, 4244 and 5866 g cm^2.
    moments = np.linalg.eigvalsh(models.CLUB_HEAD["inertia_com"]) * 1e7
    np.testing.assert_allclose(moments, [2497, 4244, 5866], atol=1.0)


# ---------------------------------------------------------------------------
# Chapter 2's legs and pelvis
# ---------------------------------------------------------------------------


def test_legs_and_pelvis_counts_its_coordinates(legs, stiff_legs):
    assert (legs.model.nv, legs.model.nq) == (20, 23)
    assert (stiff_legs.model.nv, stiff_legs.model.nq) == (16, 17)
    for system, per_leg in ((legs, 7), (stiff_legs, 5)):
        nv = system.model.joint_nv
        for side in ("left", "right"):
            leg = [i for name, i in system.bodies.items() if name.startswith(side)]
            assert nv[leg].sum() == per_leg
        assert nv[system.bodies["pelvis"]] == 6
    # The legs that cannot twist have no joint about a vertical axis at the neutral pose.
    S = np.concatenate([j.subspace for j in stiff_legs.model.joints[1:]], axis=1)
    assert np.all(S[2] == 0)


def test_legs_and_pelvis_mass_is_pelvis_and_legs(legs):
    fractions = 0.1117 + 2 * (0.1416 + 0.0433 + 0.0137)  # de Leva: lower trunk, legs
    assert legs.model.masses.sum() == pytest.approx(fractions * 80.0, rel=1e-12)


@pytest.mark.parametrize("which", ["legs", "stiff_legs"])
def test_stance_plants_level_soles_on_the_ground(which, request):
    system = request.getfixturevalue(which)
    for side, sign in (("left", 1.0), ("right", -1.0)):
        T = system.soles[side].world_pose(system.model, system.q0)
        np.testing.assert_allclose(T[:3, :3], np.eye(3), atol=1e-11)
        np.testing.assert_allclose(T[:3, 3], [0.0, sign * 0.09, 0.0], atol=1e-11)


def test_legs_and_pelvis_mass_matrix_is_positive_definite(legs, stiff_legs):
    rng = np.random.default_rng(7)
    for system in (legs, stiff_legs):
        q = tree.random_configuration(system.model, shape=(25,), rng=rng)
        eig = np.linalg.eigvalsh(tree.crba(system.model, q))
        assert eig.min() > 1e-6 * eig.max()


def test_legs_and_pelvis_rejects_bad_input():
    for value in (6, 7.5, True, "7"):
        with pytest.raises(ValueError, match="leg_joints"):
            models.legs_and_pelvis(leg_joints=value)
    with pytest.raises(ValueError, match="body_mass"):
        models.legs_and_pelvis(body_mass=0.0)
    with pytest.raises(ValueError, match="height"):
        models.legs_and_pelvis(height=-1.8)


def test_foot_welds_reject_bad_input(legs):
    with pytest.raises(ValueError, match="q"):
        legs.foot_welds(np.zeros(5))
    with pytest.raises(ValueError, match="feet"):
        legs.foot_welds(legs.q0, feet=("left", "middle"))


def test_legs_and_pelvis_mobility_from_the_rank(legs):
    welds = legs.foot_welds(legs.q0)
    for weld in welds:
        np.testing.assert_allclose(weld.residual(legs.q0), 0.0, atol=1e-12)
    counts = [legs.mobility(legs.q0, feet=feet) for feet in ((), ("left",), ("left", "right"))]
    assert counts == [20, 14, 8]
    q = tree.random_configuration(legs.model, rng=np.random.default_rng(3))
    assert legs.mobility(q, feet=("right",)) == 14


def test_legs_that_cannot_twist_make_two_feet_redundant(stiff_legs):
    J = np.concatenate([w.jacobian(stiff_legs.q0) for w in stiff_legs.foot_welds(stiff_legs.q0)])
    assert J.shape == (12, 16)
    assert constraints.constraint_rank(J) == 11
    assert stiff_legs.mobility(stiff_legs.q0) == 5


# ---------------------------------------------------------------------------
# The golfer
# ---------------------------------------------------------------------------


def test_golfer_counts_its_coordinates(point_golfer):
    model = point_golfer.model
    assert model.num_bodies == 20 == len(point_golfer.bodies)
    assert model.nv == 6 + 3 + 2 * (3 + 1 + 1 + 2) + 2 * (3 + 1 + 2) == 35
    assert model.nq == 7 + 4 + 2 * (4 + 1 + 1 + 2) + 2 * (4 + 1 + 2) == 41
    kinds = [j.kind for j in model.joints]
    assert kinds.count("free_flyer") == 1 and kinds.count("spherical") == 5
    assert kinds.count("revolute") == 14


def test_golfer_weighs_the_body_plus_the_club(point_golfer):
    club = 0.204 + 0.065 + 0.050  # measured head, trade shaft and grip
    assert point_golfer.model.masses.sum() == pytest.approx(80.0 + club, rel=1e-12)
    assert point_golfer.parameters["club_mass"] == pytest.approx(club, rel=1e-12)
    heavier = models.golfer(body_mass=90.0, shaft_mass=0.075, grip_mass=0.040)
    assert heavier.model.masses.sum() == pytest.approx(90.0 + 0.204 + 0.115, rel=1e-12)
    # The six massless bodies are the intermediate frames of the forearms, wrists and ankles.
    massless = {n for n, i in point_golfer.bodies.items() if point_golfer.model.masses[i] == 0}
    assert massless == {
        "lead radioulnar",
        "trail radioulnar",
        "lead wrist",
        "trail wrist",
        "lead ankle",
        "trail ankle",
    }


def test_lead_hand_carries_the_club(point_golfer):
    g, model = point_golfer, point_golfer.model
    hand = g.bodies["lead hand and club"]
    trail = g.bodies["trail hand"]
    assert model.masses[hand] == pytest.approx(model.masses[trail] + 0.319, rel=1e-12)
    # The club alone: the body's first moment of mass minus the hand's (both hands are the
    # same de Leva segment, centre of mass on the hand's axis), in the club frame.
    T = g.frames["club butt"].pose
    length = np.linalg.norm(g.frames["clubhead"].pose[:3, 3] - T[:3, 3])
    assert length == pytest.approx(45 * 0.0254, rel=1e-12)
    props = inertia.mass_properties(model.inertias[[hand, trail]])
    both = type("P", (), {"mass": props.mass[0], "com": props.com[0]})
    hand_only = type("P", (), {"mass": props.mass[1], "com": props.com[1]})
    club_com = (both.mass * both.com - hand_only.mass * hand_only.com) / 0.319
    in_club = T[:3, :3].T @ (club_com - T[:3, 3])
    # Along the shaft from the butt: grip (50 g at 0.135 m), shaft (65 g at L/2), head
    # (204 g at about L: its centre of mass is 2.4 mm off the face centre along the shaft).
    along = (0.050 * 0.135 + 0.065 * length / 2 + 0.204 * length) / 0.319
    assert -in_club[2] == pytest.approx(along, abs=2e-3)
    # Off the shaft: the head's centre of mass is 42.3 mm behind the face.
    assert np.hypot(*in_club[:2]) == pytest.approx(0.204 * 0.0423 / 0.319, abs=5e-4)


def test_every_body_is_physically_realizable(point_golfer, weld_golfer):
    for g in (point_golfer, weld_golfer):
        for name, i in g.bodies.items():
            I = g.model.inertias[i]
            if not np.any(I):
                continue
            props = inertia.mass_properties(I)
            assert props.mass > 0, name
            assert inertia.is_physically_realizable(props.inertia_com), name
            assert np.linalg.eigvalsh(props.inertia_com)[0] > 0, name


def test_golfer_mass_matrix_is_positive_definite(point_golfer):
    # Away from the wrists' gimbal lock (flexion of +-90 degrees, where the deviation axis
    # lines up with the forearm's rotation axis: test_golfer_joints_and_limits.py): wrist
    # flexion drawn within +-70 degrees.
    model, bodies = point_golfer.model, point_golfer.bodies
    q = tree.random_configuration(model, shape=(30,), rng=np.random.default_rng(11))
    wrists = model.q_start[[bodies["lead wrist"], bodies["trail wrist"]]]
    q[:, wrists] *= np.radians(70.0) / np.pi
    q = np.concatenate([q, point_golfer.q0[None]])
    eig = np.linalg.eigvalsh(tree.crba(point_golfer.model, q))
    assert eig.min() > 1e-7 * eig.max()


def test_address_soles_are_level_on_the_ground(point_golfer):
    g = point_golfer
    for role, sign, yaw in (("lead", 1.0, 20.0), ("trail", -1.0, 0.0)):
        T = g.frames[f"{role} sole"].world_pose(g.model, g.q0)
        np.testing.assert_allclose(T[:3, 2], [0.0, 0.0, 1.0], atol=1e-11)  # level
        np.testing.assert_allclose(T[2, 3], 0.0, atol=1e-11)  # on the ground
        np.testing.assert_allclose(T[:3, :3], spatial.rot_z(np.radians(yaw)), atol=1e-11)
        np.testing.assert_allclose(T[:2, 3], [0.0, sign * 0.22], atol=1e-11)
    # Every other body is above the ground.
    T = tree.forward_kinematics(g.model, g.q0)
    assert T[:, 2, 3].min() > 0.05


def test_address_grip_frames_coincide_and_the_club_is_grounded(point_golfer):
    g = point_golfer
    on_hand = g.frames["trail grip on hand"].world_pose(g.model, g.q0)
    on_club = g.frames["trail grip on club"].world_pose(g.model, g.q0)
    np.testing.assert_allclose(on_hand, on_club, atol=1e-12)
    # The trail hand's grip frame sits at its palm point: 0.07 m from the wrist towards the
    # knuckles, 0.02 m in front of the palm (the posture solve put it on the club).
    np.testing.assert_allclose(
        g.frames["trail grip on hand"].pose[:3, 3], [0.02, 0, -0.07], atol=1e-9
    )
    head = g.frames["clubhead"].world_pose(g.model, g.q0)
    np.testing.assert_allclose(head[1:3, 3], [0.0, 0.03], atol=1e-11)  # face centre
    np.testing.assert_allclose(head[:3, 0], [0.0, 1.0, 0.0], atol=1e-11)  # square face
    shaft = head[:3, 2]  # from head to butt
    assert np.degrees(np.arcsin(shaft[2])) == pytest.approx(45.0, abs=1e-9)
    assert 1.0 < head[0, 3] < 1.6  # the ball is in front of the golfer


def test_address_posture_is_anatomically_plausible(point_golfer):
    g = point_golfer
    angle = {
        name: np.degrees(g.q0[g.model.q_start[i]])
        for name, i in g.bodies.items()
        if g.model.joint_nq[i] == 1
    }
    assert angle["lead forearm"] == pytest.approx(5.0) and angle["trail forearm"] == pytest.approx(
        20.0
    )
    for role in ("lead", "trail"):
        assert 5.0 < angle[f"{role} shank"] < 70.0  # knees flexed
        for joint in (f"{role} wrist", f"{role} hand" + (" and club" if role == "lead" else "")):
            assert abs(angle[joint]) < 45.0
        assert abs(angle[f"{role} ankle"]) < 30.0 and abs(angle[f"{role} foot"]) < 30.0
    T = tree.forward_kinematics(g.model, g.q0)
    trunk = np.degrees(np.arccos(T[g.bodies["thorax"], 2, 2]))
    assert 30.0 < trunk < 50.0  # the trunk leans forward over the ball


def test_golfer_rejects_bad_input(point_golfer):
    with pytest.raises(ValueError, match="trail_grip"):
        models.golfer(trail_grip="loose")
    with pytest.raises(ValueError, match="club_length"):
        models.golfer(club_length=49 * 0.0254)
    for name in ("body_mass", "height", "club_length", "shaft_mass", "grip_mass"):
        with pytest.raises(ValueError, match=name):
            models.golfer(**{name: 0.0})
    with pytest.raises(ValueError, match="q"):
        point_golfer.constraints(np.zeros(35))  # nv entries where nq = 41 are expected
    with pytest.raises(ConvergenceError):
        models.golfer(height=0.9)  # a child's arms cannot reach an adult's driver


def test_the_trail_subtalar_axis_mirrors_the_lead_one(point_golfer):
    """The feet are mirror images across the sagittal (x-z) plane, subtalar joints included.

    At the neutral configuration (upright, every joint at zero) the world twist (w, v) of
    each subtalar joint is read from the built model's frame Jacobian.  Under the mirror
    M = diag(1, -1, 1) a rotation axis is a pseudovector, so the trail axis must be -M w of
    the lead axis w, and its moment v = p x w (p a point on the axis) must be M v; then
    one positive angle turns both feet into mirror-image poses and (as documented) everts
    them: the lead sole turns towards +y, away from the trail foot.
    """
    model, bodies = point_golfer.model, point_golfer.bodies
    q = tree.neutral(model)
    mirror = np.diag([1.0, -1.0, 1.0])
    feet = {role: bodies[f"{role} foot"] for role in ("lead", "trail")}
    twist = {
        role: tree.frame_jacobian(model, q, foot, np.eye(4), reference="world")[
            :, model.v_start[foot]
        ]
        for role, foot in feet.items()
    }
    np.testing.assert_allclose(twist["lead"][:3], [1.0, 0.0, 0.0], atol=1e-12)  # the long axis
    np.testing.assert_allclose(twist["trail"][:3], -mirror @ twist["lead"][:3], atol=1e-12)
    np.testing.assert_allclose(twist["trail"][3:], mirror @ twist["lead"][3:], atol=1e-12)
    for foot in feet.values():
        q[model.q_start[foot]] = 0.3
    T = tree.forward_kinematics(model, q)
    S = np.diag([1.0, -1.0, 1.0, 1.0])
    np.testing.assert_allclose(T[feet["trail"]], S @ T[feet["lead"]] @ S, atol=1e-12)
    sole_normal = T[feet["lead"], :3, :3] @ [0.0, 0.0, -1.0]
    assert sole_normal[1] == pytest.approx(np.sin(0.3), abs=1e-12)  # everted: facing +y


def test_body_frame_rejects_bad_input():
    with pytest.raises(TypeError, match="body"):
        models.BodyFrame(1.0, np.eye(4))
    with pytest.raises(ValueError, match="body"):
        models.BodyFrame(-1, np.eye(4))
    with pytest.raises(ValueError, match="pose"):
        models.BodyFrame(0, np.eye(4).T + np.eye(4)[:, [3]] @ np.ones((1, 4)))
    with pytest.raises(ValueError, match="pose"):
        models.BodyFrame(0, np.stack([np.eye(4)] * 2))
    frame = models.BodyFrame(np.int64(2), spatial.pose(np.eye(3), [0.1, 0, 0]))
    assert not frame.pose.flags.writeable


def test_a_shorter_golfer_scales_and_still_stands(point_golfer):
    short = models.golfer(height=1.70)
    scale = 1.70 / 1.80
    assert short.parameters["lengths"]["thigh"] == pytest.approx(0.44 * scale)
    for role, sign in (("lead", 1.0), ("trail", -1.0)):
        T = short.frames[f"{role} sole"].world_pose(short.model, short.q0)
        np.testing.assert_allclose(T[:3, 2], [0.0, 0.0, 1.0], atol=1e-11)
        np.testing.assert_allclose(T[:3, 3], [0.0, sign * 0.22 * scale, 0.0], atol=1e-11)
    # The vertex of the head at the neutral configuration stands at the stature.
    T = tree.forward_kinematics(short.model, tree.neutral(short.model))
    lengths = short.parameters["lengths"]
    top = T[short.bodies["thorax"], 2, 3] + sum(
        lengths[k] for k in ("middle_trunk", "upper_trunk", "neck", "head")
    )
    sole = T[short.bodies["lead foot"], 2, 3] - lengths["ankle_height"]
    assert top - sole == pytest.approx(1.70, abs=1e-12)
    # Same body mass, lighter limbs nowhere: only the lengths changed.
    np.testing.assert_allclose(short.model.masses, point_golfer.model.masses, rtol=1e-12)


def test_grip_components_follow_the_keyword(point_golfer, weld_golfer):
    assert point_golfer.grip_components() == (3, 4, 5)
    assert weld_golfer.grip_components() == (0, 1, 2, 3, 4, 5)


@pytest.mark.parametrize("which, expected", [("point_golfer", 20), ("weld_golfer", 17)])
def test_golfer_closures_vanish_at_address_and_leave_the_stated_mobility(which, expected, request):
    g = request.getfixturevalue(which)
    closures = g.constraints(g.q0)
    assert len(closures) == 3
    for c in closures:
        np.testing.assert_allclose(c.residual(g.q0), 0.0, atol=1e-10)
    J = np.concatenate([c.jacobian(g.q0) for c in closures])
    assert J.shape == (12 + len(g.grip_components()), 35)
    assert constraints.constraint_rank(J) == J.shape[0]  # no redundant row
    assert g.mobility(g.q0) == expected


# ---------------------------------------------------------------------------
# Pinocchio: the same trees, their mass matrices, and the rank of the same closures
# ---------------------------------------------------------------------------


def _pin_rank(pin, peer, q, welded, point=(), weld=()):
    """Rank of the stacked rows: planted frames (6 LOCAL rows each), and grip pairs of
    coincident frames (3 world-aligned linear rows for a point, 6 LOCAL rows for a weld)."""
    data = peer.createData()
    pin.computeJointJacobians(peer, data, q)
    pin.updateFramePlacements(peer, data)

    def J(name, frame):
        return pin.getFrameJacobian(peer, data, peer.getFrameId(name), frame)

    rows = [J(n, pin.ReferenceFrame.LOCAL) for n in welded]
    rows += [(J(a, pin.LOCAL_WORLD_ALIGNED) - J(b, pin.LOCAL_WORLD_ALIGNED))[:3] for a, b in point]
    rows += [J(a, pin.LOCAL) - J(b, pin.LOCAL) for a, b in weld]
    stacked = np.concatenate(rows)
    return np.linalg.matrix_rank(stacked), stacked.shape


def _check_peer_matches(pin, peer, system, frames, rng):
    model = system.model
    order = pin_v_order(model)
    for q in [system.q0, *tree.random_configuration(model, shape=(3,), rng=rng)]:
        data = peer.createData()
        pq = pin_q(model, q)
        M = pin.crba(peer, data, pq)
        M = np.triu(M) + np.triu(M, 1).T
        np.testing.assert_allclose(M, tree.crba(model, q)[np.ix_(order, order)], atol=1e-10)
        pin.framesForwardKinematics(peer, data, pq)
        for name, frame in frames.items():
            oMf = data.oMf[peer.getFrameId(name)]
            np.testing.assert_allclose(oMf.homogeneous, frame.world_pose(model, q), atol=1e-12)


def test_legs_and_pelvis_counts_in_pinocchio(legs, stiff_legs):
    rng = np.random.default_rng(5)
    for system, two_feet in ((legs, 12), (stiff_legs, 11)):
        pin, peer = pinocchio_tree(system.model, system.soles)
        _check_peer_matches(pin, peer, system, system.soles, rng)
        q = pin_q(system.model, system.q0)
        one, _ = _pin_rank(pin, peer, q, ["left"])
        both, shape = _pin_rank(pin, peer, q, ["left", "right"])
        assert shape == (12, system.model.nv)
        assert (one, both) == (6, two_feet)
    # Away from the sagittal stance, where the legs' axes tilt, two feet are independent
    # again: the redundancy belongs to the stance, as at any singular configuration.
    pin, peer = pinocchio_tree(stiff_legs.model, stiff_legs.soles)
    q = tree.random_configuration(stiff_legs.model, rng=rng)
    assert _pin_rank(pin, peer, pin_q(stiff_legs.model, q), ["left", "right"])[0] == 12
    # Chapter 2's count: 20 -> 14 -> 8 for the 7-joint legs.
    assert legs.model.nv - 6 == 14 and legs.model.nv - 12 == 8


@pytest.mark.parametrize(
    "which, grip_rows, expected", [("point_golfer", 3, 20), ("weld_golfer", 6, 17)]
)
def test_golfer_mobility_in_pinocchio(which, grip_rows, expected, request):
    g = request.getfixturevalue(which)
    pin, peer = pinocchio_tree(g.model, g.frames)
    _check_peer_matches(pin, peer, g, g.frames, np.random.default_rng(9))
    pair = [("trail grip on hand", "trail grip on club")]
    grips = {"point": pair, "weld": ()} if grip_rows == 3 else {"point": (), "weld": pair}
    rank, shape = _pin_rank(pin, peer, pin_q(g.model, g.q0), ["lead sole", "trail sole"], **grips)
    assert shape == (12 + grip_rows, 35)
    assert rank == 12 + grip_rows  # every row independent at the address
    assert g.model.nv - rank == expected
