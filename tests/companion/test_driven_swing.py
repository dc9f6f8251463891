"""The 3-D golfer driven through the planar downswing (models.drive_golfer), its ground
wrench, and the least friction of a stance (contact.least_friction).

Independent checks: the prescribed face path and trunk turn are read back from the
configurations alone (poses, not the rule's rows); the accelerations against the planar
model's own face acceleration; the ground wrench against the rate of the total spatial
momentum (a second algorithm) and, at rest, against the weight through the centre of
mass; the least friction against a hand solution and against load_share_range."""

import numpy as np
import pytest

from geomotion import contact, models, spatial, tree

ONSET = np.array([0.0, 0.03, 0.08])  # s: hub, shoulder, wrist (near the optimum)
#: Step of the planar run that drives the golfer, s: half the default, since the rule's
#: joint rates near impact (about 80 rad/s) need it for the 0.1 mm tracking checked below
#: (at 1 ms the face strays 0.4 mm; the error falls about as h^4).
DT = 5e-4


def EARLIER():
    """The earlier swing model's generators (elastic wrist stop; run without holding):
    these tests check the driving rule's central differences at 1 ms, whose truncation
    error grows past 1 % of the peak over the first 0.1 s under the damped stop's
    stiffer transients."""
    return models.swing_generators(ONSET, stop="elastic")


def EARLIER_GOLFER():
    """The earlier swing-plane golfer: its hub's moment about the trunk's long axis (the
    trunk tilted as the plane, so that the plane normal is that axis), for the same
    reason as ``EARLIER``."""
    return models.swing_plane_golfer(trunk_tilt=np.radians(60.0))


@pytest.fixture(scope="module")
def swing():
    planar = EARLIER_GOLFER()
    run = models.simulate_downswing(planar, EARLIER(), dt=DT, hold=False)
    golfer = models.golfer(trail_grip="weld")
    driven = models.drive_golfer(golfer, planar, run)
    return planar, run, golfer, driven


def _planar_steps(run, driven):
    return np.rint(driven.t / run.trajectory.dt).astype(int)


def test_face_follows_the_planar_path_carried_into_the_plane(swing):
    planar, run, golfer, driven = swing
    steps = _planar_steps(run, driven)
    club = golfer.frames["clubhead"]
    face = tree.frame_pose(golfer.model, driven.q, club.body, club.pose)[:, :3, 3]
    planar_face = planar.clubhead(run.trajectory.q[steps])
    F = driven.plane
    expected = planar_face @ F[:3, :2].T + F[:3, 3]
    assert np.abs(face - expected).max() < 1e-4
    assert driven.face_residual < 1e-4 and driven.closure_residual < 1e-4
    # The plane holds the target line and passes through the ball at address.
    assert np.allclose(F[:3, 0], [0.0, 1.0, 0.0])
    ball = golfer.frames["clubhead"].world_pose(golfer.model, golfer.q0)[:3, 3]
    at_impact = np.r_[planar.clubhead(run.impact.q), 0.0]
    assert np.allclose(F[:3, :3] @ at_impact + F[:3, 3], ball, atol=1e-12)


def test_feet_stay_planted_and_the_trail_hand_on_the_grip(swing):
    _, _, golfer, driven = swing
    soles = golfer.sole_poses()
    for k, side in enumerate(("lead", "trail")):
        frame = golfer.frames[f"{side} sole"]
        poses = frame.world_pose(golfer.model, driven.q)
        assert np.abs(poses - soles[k]).max() < 1e-4
    hand, club = golfer.frames["trail grip on hand"], golfer.frames["trail grip on club"]
    gap = hand.world_pose(golfer.model, driven.q) - club.world_pose(golfer.model, driven.q)
    assert np.abs(gap).max() < 1e-4


def test_thorax_turns_at_the_hub_rate(swing):
    """The thorax's angular velocity from its poses (central differences of the log of
    successive orientations), about the hub axis, against the planar hub rate."""
    _, run, golfer, driven = swing
    T = tree.forward_kinematics(golfer.model, driven.q)[:, golfer.bodies["thorax"]]
    R = T[:, :3, :3]
    relative = np.swapaxes(R[:-2], -1, -2) @ R[2:]
    local = spatial.log_pose(spatial.pose(relative, np.zeros((len(relative), 3))))[:, :3]
    omega = np.einsum("kij,kj->ki", R[1:-1], local) / (2 * driven.step)  # world axes
    turn = omega @ driven.plane[:3, 2]
    hub_rate = run.trajectory.v[_planar_steps(run, driven)[1:-1], 0]
    assert np.abs(turn - hub_rate).max() < 2e-3 * np.abs(hub_rate).max()
    assert hub_rate.max() > 5.0  # rad/s: the check is not of a standing trunk


def _face_error(planar, run, golfer, driven):
    """|face acceleration of the 3-D golfer - the planar face's| at each sample, m/s^2,
    and the largest planar one.  The 3-D one is J a + (dJ/dt) v with the driven
    accelerations (central differences); the planar one is exact: the directional
    derivative of the face velocity along (v, a), a from the planar constrained dynamics
    under the run's generators."""
    club = golfer.frames["clubhead"]
    kin = tree.frame_kinematics(
        golfer.model, driven.q, driven.v, club.body, club.pose, reference="local_world_aligned"
    )
    face = np.einsum("kij,kj->ki", kin.jacobian[:, 3:], driven.a) + kin.acceleration_bias[:, 3:]
    k = _planar_steps(run, driven)
    t, q, v = run.trajectory.t[k], run.trajectory.q[k], run.trajectory.v[k]
    tau = EARLIER()(t[:, None], q, v) @ models.swing.INPUT_MATRIX.T
    a = planar.constrained_dynamics(q, v, tau).a
    h = 1e-6
    ahead = planar.clubhead_velocity(q + h * v, v + h * a)
    behind = planar.clubhead_velocity(q - h * v, v - h * a)
    expected = (ahead - behind) / (2 * h) @ driven.plane[:3, :2].T
    return np.linalg.norm(face - expected, axis=-1), np.linalg.norm(expected, axis=-1).max()


def test_accelerations_carry_the_planar_face_acceleration(swing):
    """The 3-D face acceleration against the planar model's exact one.  The driven
    accelerations are central differences of the rule's rates (1 ms apart): they agree
    to 1 % of the peak over the first 0.1 s; later, where the rule's joint rates change
    fastest (as the wrist passes its radial stop, and in the last 10 ms before impact),
    the differences' truncation error grows, and it shrinks when the samples are closer
    (a run at half the step, driven at half the spacing)."""
    planar, run, golfer, driven = swing
    error, scale = _face_error(planar, run, golfer, driven)
    assert scale > 500.0  # m/s^2: a whip, not a drift
    assert error[driven.t <= 0.1].max() < 1e-2 * scale
    finer_run = models.simulate_downswing(planar, EARLIER(), dt=DT / 2, hold=False)
    finer = models.drive_golfer(golfer, planar, finer_run)
    assert finer.step == driven.step / 2
    finer_error, _ = _face_error(planar, finer_run, golfer, finer)
    assert finer_error.max() < 0.6 * error.max()


def test_ground_wrench_is_the_momentum_rate_minus_the_weight(swing):
    _, _, golfer, driven = swing
    model = golfer.model
    R = models.ground_wrench(golfer, driven.q, driven.v, driven.a)
    P = tree.spatial_momentum(model, driven.q, driven.v)  # about the world origin
    mass, com = model.masses.sum(), tree.center_of_mass(model, driven.q)
    weight = np.array([0.0, 0.0, -9.81 * mass])
    gravity = np.concatenate([np.cross(com, weight), np.broadcast_to(weight, com.shape)], -1)
    rate = (P[2:] - P[:-2]) / (2 * driven.step)
    assert np.abs(rate - gravity[1:-1] - R[1:-1]).max() < 1e-2 * np.abs(R).max()
    assert R[:, 5].max() > 1.5 * 9.81 * mass  # dynamic, not static


def test_at_rest_the_ground_carries_the_weight_through_the_centre_of_mass(swing):
    golfer = swing[2]
    zero = np.zeros(golfer.model.nv)
    R = models.ground_wrench(golfer, golfer.q0, zero, zero)
    mass, com = golfer.model.masses.sum(), tree.center_of_mass(golfer.model, golfer.q0)
    club = golfer.parameters["club_mass"]
    assert mass == pytest.approx(golfer.parameters["body_mass"] + club, rel=1e-12)
    f = np.array([0.0, 0.0, 9.81 * mass])
    assert np.allclose(R, np.r_[np.cross(com, f), f], atol=1e-9)


def test_sole_outline_and_poses(swing):
    golfer = swing[2]
    outline = golfer.sole_outline()
    L = golfer.parameters["lengths"]
    assert np.ptp(outline[:, 0]) == pytest.approx(L["foot"])
    assert np.ptp(outline[:, 1]) == pytest.approx(L["foot_width"])
    assert outline[0, 0] == pytest.approx(-L["heel_behind_ankle"])  # the heel behind the ankle
    soles = golfer.sole_poses()
    assert soles.shape == (2, 4, 4)
    assert np.allclose(soles[:, 2, 3], 0.0, atol=1e-9)  # on the ground
    assert soles[0, 1, 3] > 0 > soles[1, 1, 3]  # the lead foot on the target side


def test_batched_planar_runs_drive_the_named_set():
    planar = models.swing_plane_golfer(body_mass=np.array([80.0, 80.0]))
    run = models.simulate_downswing(planar, models.swing_generators([ONSET, ONSET]))
    golfer = models.golfer(trail_grip="weld")
    one = models.drive_golfer(golfer, planar, run, index=1, stride=8)
    single_planar = models.swing_plane_golfer()
    single = models.drive_golfer(
        golfer,
        single_planar,
        models.simulate_downswing(single_planar, models.swing_generators(ONSET)),
        stride=8,
    )
    assert np.allclose(one.q, single.q, atol=1e-9)
    assert np.allclose(one.a, single.a, atol=1e-6)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (dict(golfer="golfer"), TypeError, "^golfer: expected a models.Golfer"),
        (dict(planar=None), TypeError, "^planar: expected a models.SwingPlaneGolfer"),
        (dict(run=3.0), TypeError, "^run: expected a models.Downswing"),
        (dict(stride=3), ValueError, "^stride: expected an even"),
        (dict(stride=0), ValueError, "^stride"),
        (dict(index=0), ValueError, "^index: expected None"),
    ],
)
def test_drive_golfer_refuses_bad_input(swing, change, error, message):
    planar, run, golfer, _ = swing
    arguments = dict(golfer=golfer, planar=planar, run=run)
    options = {k: change.pop(k) for k in ("stride", "index") if k in change}
    arguments.update(change)
    with pytest.raises(error, match=message):
        models.drive_golfer(arguments["golfer"], arguments["planar"], arguments["run"], **options)


def test_ground_wrench_refuses_a_tree():
    with pytest.raises(TypeError, match="^golfer: expected a models.Golfer"):
        models.ground_wrench(models.two_link_teaching_arm(), [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])


# ---------------------------------------------------------------------------
# contact.least_friction
# ---------------------------------------------------------------------------

FOOT = [[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]]
PYRAMID = np.cos(np.pi / 16)  # a load along a face normal of the 16-face pyramid


def _level_feet(width=0.3):
    return np.stack([spatial.pose(np.eye(3), [0.0, y, 0.0]) for y in (width / 2, -width / 2)])


@pytest.mark.parametrize("ratio", [0.1, 0.4, 1.3])
def test_least_friction_is_the_tangential_ratio_of_a_centred_load(ratio):
    """Level feet, the load through their midpoint: every foot may take the resultant's
    direction, so the least coefficient is |f_t|/f_z (over cos(pi/16) for the pyramid)."""
    least = contact.least_friction(
        _level_feet(), [0, 0, 0, ratio * 800.0, 0, 800.0], FOOT, rtol=1e-6
    )
    assert least.friction_coefficient * PYRAMID == pytest.approx(ratio, rel=2e-6)
    # The bracket: infeasible within rtol below, and a distribution at the answer that
    # carries the resultant with every vertex force in the pyramid (checked here by a
    # hand decomposition: each foot takes half, at its sole's centre).
    assert (1 - 1e-6) * least.friction_coefficient <= least.infeasible_coefficient
    assert least.infeasible_coefficient < least.friction_coefficient
    np.testing.assert_allclose(
        contact.foot_resultant(_level_feet(), least.wrench),
        [0, 0, 0, ratio * 800.0, 0, 800.0],
        atol=1e-6,
    )


def test_least_friction_agrees_with_load_share_range_on_either_side():
    rng = np.random.default_rng(3)
    T = np.stack(
        [
            spatial.pose(spatial.rot_z(0.3), [0.05, 0.2, 0.0]),
            spatial.pose(spatial.rot_z(-0.1), [-0.02, -0.18, 0.0]),
        ]
    )
    for _ in range(4):
        wrench = np.r_[rng.normal(scale=[30.0, 30.0, 20.0]), rng.normal(scale=120.0, size=2), 700.0]
        mu = float(contact.least_friction(T, wrench, FOOT, rtol=1e-4).friction_coefficient)
        assert np.isfinite(mu) and mu > 0
        above = contact.load_share_range(T, wrench, mu * (1 + 1e-3), FOOT)
        below = contact.load_share_range(T, wrench, mu * (1 - 1e-3), FOOT)
        assert bool(above.feasible) and not bool(below.feasible)


def test_least_friction_is_infinite_when_no_sharing_exists():
    T = _level_feet()
    pulling = [0, 0, 0, 10.0, 0, -800.0]  # the ground would have to pull
    beyond = [0, -800.0 * 0.5, 0, 0, 0, 800.0]  # centre of pressure 0.5 m ahead of the toes
    least = contact.least_friction(T, [pulling, beyond, [0, 0, 0, 0, 0, 800.0]], FOOT)
    mu = least.friction_coefficient
    assert np.isinf(mu[0]) and np.isinf(mu[1])
    assert mu[2] == 0.0  # no tangential load, no friction needed
    assert np.isnan(least.infeasible_coefficient).all()  # nothing refuted below
    assert np.isnan(least.wrench[:2]).all() and np.isfinite(least.wrench[2]).all()


def test_least_friction_batches_like_single_calls():
    T = _level_feet()
    wrenches = np.array([[0, 10.0, 0, 100.0, 50.0, 700.0], [5.0, 0, 0, -60.0, 0, 600.0]])
    batch = contact.least_friction(T, wrenches, FOOT)
    assert batch.friction_coefficient.shape == (2,) and batch.wrench.shape == (2, 2, 6)
    for k, w in enumerate(wrenches):
        one = contact.least_friction(T, w, FOOT)
        assert one.friction_coefficient == batch.friction_coefficient[k]
        assert one.infeasible_coefficient == batch.infeasible_coefficient[k]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(rtol=1.0), ValueError, "^rtol: expected a value in"),
        (dict(rtol=0.0), ValueError, "^rtol"),
        (dict(max_friction=0.0), ValueError, "^max_friction"),
        (dict(cone_facets=2), ValueError, "^cone_facets"),
        (dict(cone_facets=4.0), TypeError, "^cone_facets"),
        (dict(min_normal_force=-1.0), ValueError, "min_normal_force"),
    ],
)
def test_least_friction_refuses_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        contact.least_friction(_level_feet(), [0, 0, 0, 0, 0, 800.0], FOOT, **kwargs)


def test_ground_reaction_figure_draws_its_data_and_refuses_mismatched_shapes(swing):
    from geomotion import figures

    _, _, golfer, driven = swing
    R = models.ground_wrench(golfer, driven.q, driven.v, driven.a)
    friction = contact.least_friction(golfer.sole_poses(), R, golfer.sole_outline())
    friction = friction.friction_coefficient
    fig = figures.ground_reaction_figure(
        golfer=golfer, driven=driven, resultant=R, friction=friction
    )
    vertical = [line for line in fig.axes[0].get_lines() if line.get_label() == "vertical $f_z$"]
    np.testing.assert_array_equal(vertical[0].get_ydata(), R[:, 5])
    with pytest.raises(TypeError):  # the data are required
        figures.ground_reaction_figure(golfer=golfer, driven=driven)
    with pytest.raises(ValueError, match="^resultant, friction: expected shapes"):
        figures.ground_reaction_figure(
            golfer=golfer, driven=driven, resultant=R[:-1], friction=np.zeros(len(R))
        )
