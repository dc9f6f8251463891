"""The swing-plane golfer (geomotion.models.swing).

Independent checks: the club's planar properties from a hand computation written here
(point head, rod formulas); the batched particle-sum equations against the Tree built for
each parameter set (CRBA, RNEA, potential energy, ``constraints.loop_closure``); the
integrator's order from step halving; the located impact from two step sizes and the
tree's kinematics; momentum balance about the hub axis; the batched run against single
runs.  The runs are under the torque generators with fixed onsets near the optimum
(hub, shoulder, wrist at 0, 30 and 80 ms): a cheap input whose clubhead crosses the ball's
line.
"""

import numpy as np
import pytest

from geomotion import inertia, integrators, models, spatial, tree
from geomotion.models import body_segments, golf_data, swing

DEFAULT_DT = 1e-3
ONSET = np.array([0.0, 0.03, 0.08])  # s: hub, shoulder, wrist


@pytest.fixture(scope="module")
def golfer():
    return swing.swing_plane_golfer()


@pytest.fixture(scope="module")
def runs(golfer):
    """The downswing at the default step, half and a quarter of it."""
    generators = models.swing_generators(ONSET)
    return {
        dt: models.simulate_downswing(golfer, generators, dt=dt, t_max=0.3)
        for dt in (DEFAULT_DT, DEFAULT_DT / 2, DEFAULT_DT / 4)
    }


@pytest.fixture(scope="module")
def batch():
    rng = np.random.default_rng(7)
    P = 4
    return swing.swing_plane_golfer(
        body_mass=rng.uniform(55, 100, P),
        height=rng.uniform(1.60, 1.95, P),
        sex=["male", "female", "female", "male"],
        club=models.driver(
            head_mass=rng.uniform(0.17, 0.21, P),
            shaft_mass=rng.uniform(0.055, 0.075, P),
            grip_mass=rng.uniform(0.04, 0.06, P),
            length=rng.uniform(43, 47, P) * 0.0254,
        ),
        plane_inclination=rng.uniform(0.9, 1.2, P),
        segment_scales={"forearm": rng.uniform(0.9, 1.1, P), "trunk": rng.uniform(0.9, 1.1, P)},
    )


# ---------------------------------------------------------------------------
# The club
# ---------------------------------------------------------------------------


def test_club_from_its_parts_by_hand():
    head, shaft, grip, length = 0.19, 0.07, 0.045, 44.5 * 0.0254
    club = models.driver(head_mass=head, shaft_mass=shaft, grip_mass=grip, length=length)
    lie = np.radians(58.0)
    c = np.array([-42.3, 2.9, 1.0]) * 1e-3  # head CoM from the face centre, face frame
    # Club axes in the head frame: x the face normal, z (head to butt) at the lie.
    z = np.array([0.0, np.cos(lie), np.sin(lie)])
    y = np.cross(z, [1.0, 0.0, 0.0])
    head_along = length - z @ c  # from the butt towards the head
    head_across = c[0]
    I_head = (head / 0.204) * (y @ golf_data.CLUB_HEAD["inertia_com"] @ y)
    r_s, r_g, l_g = 0.006, 0.0125, 0.27
    rod = lambda m, r, l: m * (3 * r**2 + l**2) / 12  # noqa: E731  solid cylinder, transverse
    parts = [
        (head, head_along, head_across, I_head),
        (shaft, length / 2, 0.0, rod(shaft, r_s, length)),
        (grip, l_g / 2, 0.0, rod(grip, r_g, l_g)),
    ]
    mass = sum(p[0] for p in parts)
    along = sum(p[0] * p[1] for p in parts) / mass
    across = sum(p[0] * p[2] for p in parts) / mass
    I_butt = sum(p[3] + p[0] * (p[1] ** 2 + p[2] ** 2) for p in parts)
    assert club.mass == pytest.approx(mass, rel=1e-14)
    assert club.balance_point == pytest.approx(along, rel=1e-12)
    assert club.com_offset == pytest.approx(across, rel=1e-12)
    assert club.inertia_butt == pytest.approx(I_butt, rel=1e-12)
    assert club.inertia_com == pytest.approx(I_butt - mass * (along**2 + across**2), rel=1e-12)


def test_the_3d_golfers_club_agrees_with_the_planar_club():
    # The 3-D golfer folds its club into the lead hand; take the hand out again (de Leva
    # by hand), bring the rest to the butt, and compare with driver().
    three_d = models.golfer()
    body = three_d.bodies["lead hand and club"]
    L = three_d.parameters["lengths"]
    hand = body_segments.DE_LEVA_MALE["hand"]
    m = hand.mass * three_d.parameters["body_mass"]
    radii = np.array([hand.r_sagittal, hand.r_transverse, hand.r_longitudinal]) * L["hand"]
    hand_inertia = inertia.spatial_inertia(
        m, [0.0, 0.0, -hand.com * L["hand"]], np.diag(m * radii**2)
    )
    club_in_hand = three_d.model.inertias[body] - hand_inertia
    butt = three_d.frames["club butt"].pose
    club_at_butt = inertia.transform_inertia(club_in_hand, spatial.inverse_pose(butt))
    planar = models.driver()
    assert np.abs(club_at_butt - planar.spatial_inertia).max() < 1e-12
    assert club_at_butt[1, 1] == pytest.approx(float(planar.inertia_butt), rel=1e-12)


@pytest.mark.parametrize(
    "inclination, tilt", [(60.0, 31.0), (50.0, 35.0), (70.0, 27.0), (40.0, 40.0)]
)
def test_the_hubs_moment_is_the_trunks_inertia_about_the_plane_normal(inclination, tilt):
    # Build the trunk's central inertia tensor in body axes (antero-posterior x,
    # medio-lateral y, long axis z) from de Leva by hand, lean it forward by the tilt and
    # the plane normal by the inclination, both in the sagittal plane, and take n^T I n.
    golfer = swing.swing_plane_golfer(
        plane_inclination=np.radians(inclination), trunk_tilt=np.radians(tilt)
    )
    trunk = body_segments.DE_LEVA_MALE["trunk"]
    mass = trunk.mass * golfer.parameters["body_mass"]
    length = golfer.parameters["lengths"]["trunk"]
    radii = np.array([trunk.r_sagittal, trunk.r_transverse, trunk.r_longitudinal]) * length
    I_body = np.diag(mass * radii**2)

    def leaned(angle):  # vertical (0, 0, 1) leaned towards the ball (+x) by angle, degrees
        a = np.radians(angle)
        return np.array([np.sin(a), 0.0, np.cos(a)])

    axis_long, normal = leaned(tilt), leaned(inclination)
    R = np.column_stack([np.cross([0.0, 1.0, 0.0], axis_long), [0.0, 1.0, 0.0], axis_long])
    expected = normal @ (R @ I_body @ R.T) @ normal
    assert golfer.inertias[0] == pytest.approx(expected, rel=1e-12)
    tree_hub = golfer.model.inertias[0]
    assert tree_hub[2, 2] == pytest.approx(expected, rel=1e-12)


def test_bad_trunk_tilts_are_refused():
    for bad in (-0.1, np.pi / 2, np.nan):
        with pytest.raises(ValueError, match="trunk_tilt"):
            swing.swing_plane_golfer(trunk_tilt=bad)
    with pytest.raises(TypeError, match="trunk_tilt"):
        swing.swing_plane_golfer(trunk_tilt="31")


def test_batched_club_rows_equal_single_clubs():
    heads = np.array([0.174, 0.190, 0.200])
    clubs = models.driver(head_mass=heads)
    for i, head in enumerate(heads):
        one = models.driver(head_mass=head)
        assert clubs.inertia_butt[i] == pytest.approx(float(one.inertia_butt), rel=1e-14)
        assert clubs.row(i).balance_point == pytest.approx(float(one.balance_point), rel=1e-14)


# ---------------------------------------------------------------------------
# Two algorithms, one answer
# ---------------------------------------------------------------------------


def test_batched_equations_agree_with_the_tree_per_parameter_set(batch):
    rng = np.random.default_rng(3)
    q = rng.uniform(-np.pi, np.pi, (4, 5))
    v = rng.normal(0.0, 5.0, (4, 5))
    M, h, V = batch.mass_matrix(q), batch.bias(q, v), batch.potential(q)
    closure = batch.trail_grip
    Phi, J, gamma = closure.residual(q), closure.jacobian(q), closure.acceleration_bias(q, v)
    for i in range(4):
        one = batch.parameter_set(i)
        model, loop = one.model, one.tree_closure()
        assert np.abs(M[i] - tree.crba(model, q[i])).max() < 1e-12
        assert np.abs(h[i] - tree.bias_forces(model, q[i], v[i])).max() < 1e-10
        assert V[i] == pytest.approx(tree.potential_energy(model, q[i]), abs=1e-12)
        assert np.abs(Phi[i] - loop.residual(q[i])).max() < 1e-14
        assert np.abs(J[i] - loop.jacobian(q[i])).max() < 1e-14
        assert np.abs(gamma[i] - loop.acceleration_bias(q[i], v[i])).max() < 1e-11


def test_points_against_tree_forward_kinematics(golfer):
    q = np.array([0.3, -0.7, 1.1, 0.4, -1.2])
    L = golfer.parameters["lengths"]
    butt = L["palm"] - golf_data.CLUB_DEFAULTS["lead_grip"]
    head = tree.point_position(golfer.model, q, 2, [0.0, -(butt + 45 * 0.0254), 0.0])
    assert golfer.clubhead(q) == pytest.approx(head[:2], abs=1e-14)
    v = np.array([1.0, 2.0, -3.0, 0.5, 0.2])
    velocity = tree.point_velocity(golfer.model, q, v, 2, [0.0, -(butt + 45 * 0.0254), 0.0])
    assert golfer.clubhead_velocity(q, v) == pytest.approx(velocity[:2], abs=1e-13)


def test_ball_is_below_the_lead_shoulder():
    golfer = swing.swing_plane_golfer(height=1.70)
    k = 1.70 / 1.80
    # Arm and palm scale with the golfer; the club and its grip points do not.
    reach = (0.30 + 0.27 + 0.07) * k - 0.05 + 45 * 0.0254
    assert golfer.ball == pytest.approx([0.19 * k, -reach], abs=1e-14)


# ---------------------------------------------------------------------------
# Posture and simulation
# ---------------------------------------------------------------------------


def test_top_of_backswing_closes_the_loop_with_the_elbow_bent(golfer, batch):
    for g in (golfer, batch):
        q = g.top_of_backswing()
        assert np.abs(g.trail_grip.residual(q)).max() < 1e-13
        assert np.all(q[..., 4] < 0)
        assert g.lead_arm_below_horizontal(q) == pytest.approx(np.radians(-30.0))


def test_mass_matrix_definite_and_closure_held_along_the_downswing(golfer, runs):
    run = runs[DEFAULT_DT].trajectory
    assert np.linalg.eigvalsh(golfer.mass_matrix(run.q)).min() > 0
    assert run.position_residual.max() <= 1e-10


def test_energy_residual_is_fourth_order_without_torques(golfer):
    errors = []
    for dt in (2e-3, 1e-3):
        run = integrators.simulate_constrained(
            golfer.system(),
            golfer.trail_grip,
            golfer.top_of_backswing(),
            np.zeros(5),
            dt,
            int(round(0.2 / dt)),
        )
        errors.append(np.abs(run.energy_residual).max())
    assert 10 <= errors[0] / errors[1] <= 22


def test_impact_time_agrees_between_step_sizes_and_lies_on_the_ball_line(golfer, runs):
    coarse, fine = runs[DEFAULT_DT].impact, runs[DEFAULT_DT / 2].impact
    assert coarse.crossed and fine.crossed
    assert abs(coarse.time - fine.time) < 1e-6
    # On the line through the ball normal to the target line, below the hub axis.
    ball = models.ball_at_address(golfer)
    head = golfer.clubhead(coarse.q)
    assert head[0] == pytest.approx(ball[0], abs=1e-12) and head[1] < 0
    step = int(coarse.step)
    t = runs[DEFAULT_DT].trajectory.t
    assert t[step] <= coarse.time <= t[step + 1]
    # The first crossing of the line towards the target below the hub axis (from the top
    # the head comes down ahead of the line, above the hub, then swings back behind it).
    heads = golfer.clubhead(runs[DEFAULT_DT].trajectory.q[: step + 2])
    g = heads[:, 0] - ball[0]
    crossing = (g[:-1] < 0) & (g[1:] >= 0) & (heads[1:, 1] < 0)
    assert crossing[step] and not crossing[:step].any()


def test_impact_speed_converges_at_the_integrators_order(golfer):
    # The hub's generator alone: its joint never turns back, so the input is smooth.  (The
    # torque-velocity factor's slope jumps at zero rate, by design; an active generator
    # whose joint reverses, as the shoulder's does under the three generators, makes the
    # input non-smooth there, and no fixed-step method keeps its order across it.)
    generators = models.swing_generators(ONSET, active=(1.0, 0.0, 0.0))
    steps = DEFAULT_DT / 2.0 ** np.arange(4)
    speeds = [
        float(models.simulate_downswing(golfer, generators, dt=dt, t_max=0.4).impact.speed)
        for dt in steps
    ]
    # Differences to the finest run shrink about 2^4 times per halving (the RK4 step).
    errors = np.abs(np.array(speeds[:-1]) - speeds[-1])
    assert np.all((8.0 <= errors[:-1] / errors[1:]) & (errors[:-1] / errors[1:] <= 32.0))
    assert errors[0] < 1e-4


def test_the_impact_speed_is_the_trees_clubhead_speed(golfer, runs):
    # The speed is the face centre's, by the tree's own kinematics at the impact state.
    impact = runs[DEFAULT_DT / 4].impact
    L = golfer.parameters["lengths"]
    butt = L["palm"] - golf_data.CLUB_DEFAULTS["lead_grip"]
    face = [0.0, -(butt + golfer.parameters["club"].length), 0.0]
    velocity = tree.point_velocity(golfer.model, impact.q, impact.v, 2, face)
    assert impact.speed == pytest.approx(np.linalg.norm(velocity[:2]), rel=1e-12)
    assert abs(velocity[2]) < 1e-12  # in the plane


def test_joint_work_sums_to_the_input_work_to_second_order(runs):
    gaps = []
    for dt in (DEFAULT_DT, DEFAULT_DT / 2):
        swing_run = runs[dt]
        k = int(round(0.25 / dt))
        total = swing_run.joint_work[k].sum()
        gaps.append(abs(total - swing_run.trajectory.input_work[k]))
    assert gaps[1] < 1e-3 * abs(runs[DEFAULT_DT].trajectory.input_work[250])
    assert 3.0 <= gaps[0] / gaps[1] <= 5.0  # trapezoid rule: error ~ dt^2


def test_body_energies_add_up_and_momentum_balance_gives_the_stand_impulse(golfer, runs):
    run = runs[DEFAULT_DT / 2]
    traj = run.trajectory
    assert run.body_kinetic.sum(-1) == pytest.approx(traj.kinetic, rel=1e-12, abs=1e-12)
    # dH/dt = hub torque + gravity moment; the stand takes minus the hub torque.
    gravity = golfer.gravity_moment(traj.q)
    dt = traj.dt
    gravity_impulse = np.concatenate([[0.0], np.cumsum(0.5 * dt * (gravity[1:] + gravity[:-1]))])
    momentum_change = run.angular_momentum - run.angular_momentum[0] - gravity_impulse
    scale = np.abs(run.stand_angular_impulse).max()
    assert np.abs(momentum_change + run.stand_angular_impulse).max() < 1e-4 * scale
    assert scale > 1.0  # the impulse is not zero ... while the stand, at rest, takes no work


def test_batched_run_rows_equal_single_runs(batch):
    onset = np.array([[0.0, 0.03, 0.08], [0.0, 0.02, 0.06], [0.01, 0.0, 0.1], [0.0, 0.05, 0.05]])
    together = models.simulate_downswing(batch, models.swing_generators(onset), t_max=0.35)
    for i in (1, 2, 3):
        alone = models.simulate_downswing(
            batch.parameter_set(i), models.swing_generators(onset[i]), t_max=0.35
        ).impact
        assert together.impact.crossed[i] and alone.crossed
        assert together.impact.speed[i] == pytest.approx(alone.speed, rel=1e-9)
        assert together.impact.time[i] == pytest.approx(alone.time, abs=1e-9)
        assert together.impact.miss[i] == pytest.approx(alone.miss, abs=1e-9)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_inputs_name_the_argument(golfer):
    with pytest.raises(ValueError, match="length: expected at most 48 in"):
        models.driver(length=48.5 * 0.0254)
    models.driver(length=48 * 0.0254)  # the limit itself is legal
    with pytest.raises(ValueError, match="head_mass"):
        models.driver(head_mass=-0.2)
    with pytest.raises(ValueError, match="shaft_mass"):
        models.driver(shaft_mass=[0.06, 0.0])
    with pytest.raises(ValueError, match="sex"):
        swing.swing_plane_golfer(sex="other")
    with pytest.raises(ValueError, match="body_mass, height"):
        swing.swing_plane_golfer(body_mass=[70.0, 80.0, 90.0], height=[1.7, 1.8])
    with pytest.raises(ValueError, match="body_mass"):
        swing.swing_plane_golfer(body_mass=-80.0)
    with pytest.raises(TypeError, match="club"):
        swing.swing_plane_golfer(club={"mass": 0.3})
    with pytest.raises(ValueError, match="segment_scales"):
        swing.swing_plane_golfer(segment_scales={"thumb": 1.1})
    with pytest.raises(ValueError, match="model: a Tree holds one parameter set"):
        swing.swing_plane_golfer(body_mass=[70.0, 80.0]).model  # noqa: B018
    generators = models.swing_generators(ONSET)
    short = models.simulate_downswing(golfer, generators, t_max=0.05)
    assert not short.impact.crossed and not short.impact.reached  # too short: no impact
    with pytest.raises(ValueError, match="golfer, q0, v0, generators"):
        models.simulate_downswing(golfer, models.swing_generators([ONSET] * 3))
    two = swing.swing_plane_golfer(body_mass=[70.0, 80.0])
    with pytest.raises(ValueError, match="golfer, q0, v0, generators"):
        models.simulate_downswing(two, models.swing_generators([ONSET] * 2), q0=np.zeros((3, 5)))
    with pytest.raises(TypeError, match="^generators: expected a SwingGenerators"):
        models.simulate_downswing(golfer, (100.0, 60.0, 20.0))


def test_a_repeated_golfer_is_the_same_set_in_every_row():
    golfer = models.swing_plane_golfer(body_mass=72.0, club=models.driver(added_inertia=0.04))
    batch = golfer.repeated(3)
    q = np.array([0.3, -0.4, -1.0, 0.5, -1.2])
    assert batch.batch_shape == (3,)
    np.testing.assert_array_equal(batch.mass_matrix(np.tile(q, (3, 1)))[2], golfer.mass_matrix(q))
    with pytest.raises(ValueError, match="repeated"):
        batch.repeated(2)
    with pytest.raises(ValueError, match="count"):
        golfer.repeated(0)


def test_a_crossing_after_the_horizon_is_no_impact(golf_optimum):
    """The stated optimum crosses the ball's line at 273 ms: run for the default horizon it
    is an impact; cut off 10 ms before its crossing it is not, and the run stops at the
    horizon, DOWNSWING_HORIZON by default."""
    optimum = golf_optimum.optimum
    options = dict(
        ball=models.ball_at_address(golf_optimum.golfer),
        dt=2e-3,
        band=models.IMPACT_BAND,
    )
    full = models.simulate_downswing(golf_optimum.golfer, optimum.generators, **options)
    crossing = float(full.impact.time)
    assert bool(full.impact.crossed) and crossing == pytest.approx(optimum.impact.time, abs=1e-9)
    assert full.trajectory.t[-1] == pytest.approx(models.DOWNSWING_HORIZON, abs=1e-12)
    cut = models.simulate_downswing(
        golf_optimum.golfer, optimum.generators, t_max=crossing - 0.01, **options
    )
    assert not bool(cut.impact.crossed)
    assert cut.trajectory.t[-1] < crossing
