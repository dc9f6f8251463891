"""The 3-D golfer's downswing inside published ranges (models.golfer_downswing,
models.check_downswing, models.downswing_feet).

Independent checks: the closures read back from the bodies' poses; v and a against
central differences of q, converging at second order; the face centre on the ball with
the planar optimum's speed; the keyframe angles recomputed from joint-centre positions and
body axes and held against the addendum's numbers, typed here from the rows (K4, K5,
K8-K12, R1, R2, R6, R7); every modelling choice varied over its stated range; the check
made to fail on motions that break it; the feet's total wrench against Pinocchio's rate
of the centroidal momentum minus the weight, and the samples the quadratic program
refuses against a linear program on the same rows (contact.least_friction).
"""

import numpy as np
import pytest
from pin_trees import pin_q, pin_v_order, pinocchio_tree

from geomotion import contact, models, tree
from geomotion.errors import InfeasibleContactError

D = np.radians
#: The addendum's numbers (deg), typed from its rows.
PELVIS_TOP = (-42.0, 7.0)  # K9, PGA (closed at the top)
PELVIS_IMPACT = (42.0, 12.0)  # K10, PGA (open)
X_FACTOR_TOP = (52.82, 5.64)  # K11
TRUNK_ROTATION_TOP = (60.0, 7.0)  # K5
STRETCH = (1.54, 1.05)  # K12
TILT_TOP = (31.0, 4.0)  # K8, PGA
ADDUCTION_TOP = (125.0, 6.0)  # K4
RADIAL, ULNAR = 20.0, 30.0  # R1, R2 (AAOS)
R6_MEAN, R6_SD, R7_GAIN = 41.93, 3.35, 0.19  # R6 (right), R7
R7_ABSOLUTE, R7_INCLINATION, K8_TILT = 6.2, 45.0, 31.0  # deg: R7's +6.2 deg at 45 deg; K8


@pytest.fixture(scope="module")
def swing(golf_optimum):
    golfer = models.golfer()
    planar, optimum = golf_optimum.golfer, golf_optimum.optimum
    return golfer, planar, optimum, models.golfer_downswing(golfer, planar, optimum.downswing)


def _within(value_deg, band):
    mean, sd = band
    return abs(value_deg - mean) <= sd + 1e-9


def _hip_line_heading(golfer, q):
    """The pelvis's turn from the hip joint centres (the thighs' origins): the heading of
    the trail-to-lead hip line, less the 90 deg it has at address, deg."""
    T = tree.forward_kinematics(golfer.model, q)
    line = T[..., golfer.bodies["lead thigh"], :3, 3] - T[..., golfer.bodies["trail thigh"], :3, 3]
    return np.degrees(np.arctan2(-line[..., 0], line[..., 1]))


# ---------------------------------------------------------------------------
# The motion
# ---------------------------------------------------------------------------


def test_feet_stay_planted_and_both_hands_on_the_club(swing):
    golfer, _, _, down = swing
    model = golfer.model
    for k, side in enumerate(("lead", "trail")):
        poses = golfer.frames[f"{side} sole"].world_pose(model, down.q)
        assert np.abs(poses - golfer.sole_poses()[k]).max() < 1e-9
    hand = golfer.frames["trail grip on hand"].world_pose(model, down.q)
    club = golfer.frames["trail grip on club"].world_pose(model, down.q)
    assert np.abs(hand - club).max() < 1e-9  # position and orientation: a weld
    assert down.closure_residual < 1e-9
    assert down.t[0] == 0.0 and down.t.size == 61


def test_v_and_a_are_the_derivatives_of_q(swing, golf_optimum):
    """Central differences of finer runs of the same motion (the profiles are functions
    of time, so a finer run passes through the same configurations) converge on v and a
    at second order: the error falls by 4 when the step halves.  Where a profile starts
    (the thorax's and arms' at the delay, 0.1 of the downswing) and where the stretch's
    bump ends (twice its peak, 0.5) the jerk jumps (the profiles are twice continuously
    differentiable), and the accelerations' differences converge at first order there."""
    golfer, planar, optimum, _ = swing
    coarse = models.golfer_downswing(golfer, planar, optimum.downswing, samples=11)
    runs = [
        models.golfer_downswing(golfer, planar, optimum.downswing, samples=10 * m + 1)
        for m in (16, 32)
    ]
    errors = []
    for run, m in zip(runs, (16, 32)):
        h = run.t[1] - run.t[0]
        j = m * np.arange(1, 10)
        v = tree.difference(golfer.model, run.q[j - 1], run.q[j + 1]) / (2 * h)
        a = (run.v[j + 1] - run.v[j - 1]) / (2 * h)
        np.testing.assert_allclose(run.q[j], coarse.q[1:10], rtol=0, atol=1e-9)
        errors.append(
            [np.abs(v - coarse.v[1:10]).max(axis=1), np.abs(a - coarse.a[1:10]).max(axis=1)]
        )
    (v1, a1), (v2, a2) = errors
    assert v1.max() < 1e-3 * np.abs(coarse.v).max() and a1.max() < 2e-2 * np.abs(coarse.a).max()
    np.testing.assert_allclose(v1 / v2, 4.0, rtol=0.1)
    choices = coarse.choices
    kinks = [choices["sequence_delay"], 2 * choices["stretch_peak"]]
    at_kink = np.isin(np.arange(1, 10), np.rint(10 * np.array(kinks)).astype(int))
    assert at_kink.sum() == 2
    np.testing.assert_allclose((a1 / a2)[~at_kink], 4.0, rtol=0.1)
    np.testing.assert_allclose((a1 / a2)[at_kink], 2.0, rtol=0.1)


def test_the_face_meets_the_ball_at_the_planar_speed(swing):
    """At impact the face centre is where it addressed the ball, at the planar optimum's
    clubhead speed, its velocity across the shaft and in the plane of the planar velocity
    (carried into the swing plane) and the shaft."""
    golfer, planar, optimum, down = swing
    club = golfer.frames["clubhead"]
    kin = tree.frame_kinematics(
        golfer.model, down.q[-1], down.v[-1], club.body, club.pose, reference="local_world_aligned"
    )
    ball = club.world_pose(golfer.model, golfer.q0)[:3, 3]
    assert np.linalg.norm(kin.pose[:3, 3] - ball) < 1e-9
    velocity, shaft = kin.velocity[3:], kin.pose[:3, 2]
    speed = float(optimum.impact.speed)
    assert speed > 30.0  # m/s: a drive
    np.testing.assert_allclose(np.linalg.norm(velocity), speed, rtol=1e-9)
    planar_velocity = down.plane[:3, :2] @ np.asarray(optimum.impact.clubhead_velocity)
    np.testing.assert_allclose(np.linalg.norm(planar_velocity), speed, rtol=1e-12)
    assert abs(velocity @ shaft) < 1e-9 * speed
    assert abs(velocity @ np.cross(planar_velocity, shaft)) < 1e-9 * speed**2
    angle = np.degrees(np.arccos(velocity @ planar_velocity / speed**2))
    np.testing.assert_allclose(angle, np.degrees(down.direction_change), atol=1e-9)
    # what the 3-D arms cannot follow is the planar path's descent through the ball
    assert abs(angle - abs(np.degrees(float(optimum.impact.path_angle)))) < 0.5
    assert velocity[1] > 0.9 * speed  # towards the target


def test_keyframes_are_inside_the_published_ranges(swing):
    golfer, _, _, down = swing
    q = down.q
    pelvis = _hip_line_heading(golfer, q[[0, -1]])
    assert _within(pelvis[0], PELVIS_TOP) and _within(pelvis[1], PELVIS_IMPACT)
    np.testing.assert_allclose(pelvis, np.degrees(down.angles.pelvis_rotation[[0, -1]]), atol=1e-9)
    x_factor = -np.degrees(models.golfer_angles(golfer, q[0]).trunk_rotation)
    assert _within(x_factor, X_FACTOR_TOP) and _within(x_factor, TRUNK_ROTATION_TOP)
    T = tree.forward_kinematics(golfer.model, q[0])
    axis = T[golfer.bodies["thorax"], :3, 2]  # the thorax's long axis
    assert _within(np.degrees(np.arctan2(axis[0], axis[2])), TILT_TOP)
    adduction = np.degrees(models.golfer_angles(golfer, q[0]).lead_shoulder_horizontal_adduction)
    assert _within(adduction, ADDUCTION_TOP)
    separation = -np.degrees(models.golfer_angles(golfer, q).trunk_rotation)
    stretch = separation.max() - separation[0]
    assert _within(stretch, STRETCH)
    assert down.t[np.argmax(separation)] < 0.5 * down.t[-1]  # K16: early in the downswing
    # At impact the pelvis leads the thorax by less than at the top.
    assert 0.0 < separation[-1] < separation[0] - 15.0


def test_the_trunk_bounds_readings_follow_the_addendum_rows():
    """Each reading of R6 and R7 recomputed from the rows' numbers; the applied bound is
    the first and the largest, so the other readings can only tighten the check."""
    upper = R6_MEAN + 2 * R6_SD
    expected = [
        upper * (1 + R7_GAIN),
        upper + R7_ABSOLUTE,
        upper * (1 + R7_GAIN * K8_TILT / R7_INCLINATION),
    ]
    readings = np.degrees(list(models.TRUNK_ROTATION_READINGS.values()))
    np.testing.assert_allclose(readings, expected, rtol=1e-12)
    assert readings[0] == np.degrees(models.TRUNK_ROTATION_BOUND) == readings.max()
    np.testing.assert_allclose(readings, [57.87, 54.83, 55.00], atol=0.005)


def test_every_sample_is_within_the_limits(swing):
    golfer, _, _, down = swing
    angles = models.golfer_angles(golfer, down.q)
    for side in ("lead", "trail"):
        deviation = np.degrees(getattr(angles, f"{side}_wrist_deviation"))
        assert deviation.max() <= RADIAL and deviation.min() >= -ULNAR, side
    trunk = -np.degrees(angles.trunk_rotation)
    bound = (R6_MEAN + 2 * R6_SD) * (1 + R7_GAIN)
    assert trunk.max() <= bound
    np.testing.assert_allclose(np.degrees(models.TRUNK_ROTATION_BOUND), bound, rtol=1e-12)
    check = models.check_downswing(golfer, down.q)
    assert check.within and check.wrists_within.all() and not check.trunk_excess.any()
    assert all(check.in_range.values()) and check.messages() == []
    # R6's mean is exceeded at the top, and reported, not hidden.
    assert check.limits.exceeded[0]
    assert any("R6" in line for line in check.limits.messages())


def test_the_pelvis_leads_and_the_thorax_is_fastest_at_impact(swing):
    """K16: the pelvis reverses first, then the upper torso; K14: the pelvis's peak turn
    rate comes before impact, the upper torso's after (still rising at impact)."""
    golfer, _, _, down = swing
    t = down.t
    pelvis = np.gradient(_hip_line_heading(golfer, down.q), t)
    T = tree.forward_kinematics(golfer.model, down.q)
    R = T[:, golfer.bodies["thorax"], :3, :3]
    thorax = np.gradient(np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0])), t)
    onset = lambda rate: t[np.argmax(rate > 0.05 * rate.max())]  # noqa: E731
    assert onset(pelvis) < onset(thorax)
    assert np.argmax(pelvis) < len(t) - 3 and pelvis[-1] < 0.9 * pelvis.max()
    assert thorax[-1] > 0.97 * thorax.max()


def _option_values():
    """Both ends of every modelling choice's range, in the function's units."""
    cases = []
    for name, (_, (low, high)) in models.DOWNSWING_CHOICES.items():
        scale = D(1.0) if name.endswith("_top") else 1.0
        cases += [(name, low * scale), (name, high * scale)]
    return cases


@pytest.mark.parametrize(("name", "value"), _option_values())
def test_the_conclusions_survive_every_modelling_choice(swing, name, value):
    golfer, planar, optimum, _ = swing
    down = models.golfer_downswing(golfer, planar, optimum.downswing, **{name: value})
    check = models.check_downswing(golfer, down.q)
    assert check.within, check.messages()
    assert down.closure_residual < 1e-9 and down.ball_error < 1e-9


@pytest.mark.parametrize(
    "options",
    [
        {"pelvis_top": D(-35.0)},
        {"pelvis_top": D(-49.0)},
        {"pelvis_impact": D(30.0)},
        {"pelvis_impact": D(54.0)},
        {"trunk_tilt_top": D(27.0)},
        {"trunk_tilt_top": D(35.0)},
        {"lead_adduction_top": D(119.0)},
        {"lead_adduction_top": D(131.0)},
        {"x_factor_top": D(53.0)},
        {"x_factor_top": D(56.3)},  # the largest the trunk bound admits with K12's mean
        {"x_factor_stretch": D(0.5)},
        {"x_factor_stretch": D(2.59)},
        {"duration": 0.23},
        {"duration": 0.33},
    ],
)
def test_published_values_across_their_bands(swing, options):
    golfer, planar, optimum, _ = swing
    down = models.golfer_downswing(golfer, planar, optimum.downswing, **options)
    assert models.check_downswing(golfer, down.q).within


# ---------------------------------------------------------------------------
# Break checks
# ---------------------------------------------------------------------------


def test_the_old_transplanted_thorax_turn_is_refused_and_flagged(swing):
    """The transplanted planar motion turned the thorax 139 deg relative to the pelvis:
    refused as a request, and flagged by the check when put into a configuration."""
    golfer, planar, optimum, down = swing
    with pytest.raises(ValueError, match="x_factor_top"):
        models.golfer_downswing(golfer, planar, optimum.downswing, x_factor_top=D(139.0))
    q = np.array(down.q)
    thorax = golfer.model.q_start[golfer.bodies["thorax"]]
    extra = D(139.0) + float(models.golfer_angles(golfer, q[0]).trunk_rotation)
    turn = np.array([np.cos(extra / 2), 0.0, 0.0, -np.sin(extra / 2)])  # about its own -z
    w0, v0 = q[0, thorax], q[0, thorax + 1 : thorax + 4]
    w1, v1 = turn[0], turn[1:]
    q[0, thorax : thorax + 4] = np.r_[w0 * w1 - v0 @ v1, w0 * v1 + w1 * v0 + np.cross(v0, v1)]
    np.testing.assert_allclose(
        -np.degrees(models.golfer_angles(golfer, q[0]).trunk_rotation), 139.0
    )
    check = models.check_downswing(golfer, q)
    assert not check.within and check.trunk_excess[0] > D(80.0) and not check.trunk_excess[1:].any()
    assert any(line.startswith("q[0]: trunk rotation") for line in check.messages())


def test_an_x_factor_at_the_top_of_its_bands_breaks_the_trunk_bound(swing):
    """58.4 deg is inside K5's and K11's bands, but with the stretch the trunk then turns
    beyond R6's normal range scaled for the posture: the check says so."""
    golfer, planar, optimum, _ = swing
    down = models.golfer_downswing(golfer, planar, optimum.downswing, x_factor_top=D(58.4))
    check = models.check_downswing(golfer, down.q)
    assert not check.within and check.trunk_excess.max() > 0
    assert check.wrists_within.all() and all(check.in_range.values())


def test_a_wrist_beyond_its_norm_and_a_range_missed_are_flagged(swing):
    golfer, _, _, down = swing
    q = np.array(down.q)
    q[5, golfer.model.q_start[golfer.bodies["lead hand and club"]]] = D(RADIAL + 2.0)
    check = models.check_downswing(golfer, q)
    assert not check.within and not check.wrists_within[5] and check.wrists_within[6:].all()
    assert any("lead wrist radial deviation" in line for line in check.messages())
    reversed_swing = models.check_downswing(golfer, down.q[::-1])
    assert not reversed_swing.in_range["pelvis top"] and not reversed_swing.within


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda g, p, r: models.golfer_downswing("golfer", p, r), TypeError, "golfer"),
        (lambda g, p, r: models.golfer_downswing(g, g, r), TypeError, "planar"),
        (lambda g, p, r: models.golfer_downswing(g, p, None), TypeError, "run"),
        (lambda g, p, r: models.golfer_downswing(g, p, r, samples=2), ValueError, "samples"),
        (lambda g, p, r: models.golfer_downswing(g, p, r, duration=0.5), ValueError, "duration"),
        (lambda g, p, r: models.golfer_downswing(g, p, r, duration="0.3"), TypeError, "duration"),
        (
            lambda g, p, r: models.golfer_downswing(g, p, r, pelvis_top=D(-60)),
            ValueError,
            "pelvis_top",
        ),
        (
            lambda g, p, r: models.golfer_downswing(g, p, r, pelvis_impact=np.nan),
            ValueError,
            "pelvis_impact",
        ),
        (
            lambda g, p, r: models.golfer_downswing(g, p, r, trunk_tilt_top=True),
            TypeError,
            "trunk_tilt_top",
        ),
        (
            lambda g, p, r: models.golfer_downswing(g, p, r, x_factor_top=D(52.0)),
            ValueError,
            "x_factor_top",
        ),
        (
            lambda g, p, r: models.golfer_downswing(g, p, r, sequence_delay=0.5),
            ValueError,
            "sequence_delay",
        ),
        (
            lambda g, p, r: models.golfer_downswing(g, p, r, lead_deviation_top=D(25)),
            ValueError,
            "lead_deviation_top",
        ),
        (lambda g, p, r: models.check_downswing(g, g.q0), ValueError, "q"),
        (lambda g, p, r: models.check_downswing(p, None), TypeError, "golfer"),
        (lambda g, p, r: models.swing_angles(None, g.q0), TypeError, "golfer"),
        (lambda g, p, r: models.downswing_feet(g, r), TypeError, "downswing"),
    ],
)
def test_bad_input_is_refused_by_name(swing, call, error, match):
    golfer, planar, optimum, _ = swing
    with pytest.raises(error, match=match):
        call(golfer, planar, optimum.downswing)


# ---------------------------------------------------------------------------
# The feet
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def feet(swing):
    golfer, _, _, down = swing
    return models.downswing_feet(golfer, down)


def test_the_feet_carry_the_centroidal_momentum_rate(swing, feet):
    """At every certified sample the feet's total wrench (the grip is internal) is
    Pinocchio's rate of the centroidal momentum minus the weight."""
    golfer, _, _, down = swing
    model = golfer.model
    pin, peer = pinocchio_tree(model, golfer.frames)
    peer.gravity.linear = np.array(model.gravity)
    order = pin_v_order(model)
    weight = model.masses.sum() * np.array(model.gravity)
    samples = np.flatnonzero(feet.feasible)
    assert samples.size >= 3
    for row, k in enumerate(samples):
        data = peer.createData()
        rate = pin.computeCentroidalMomentumTimeVariation(
            peer, data, pin_q(model, down.q[k]), down.v[k, order], down.a[k, order]
        )
        com = data.com[0]
        n_O, f = feet.loads.resultant[row, :3], feet.loads.resultant[row, 3:]
        expected = np.r_[rate.angular, rate.linear - weight]
        got = np.r_[n_O - np.cross(com, f), f]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-11 * np.abs(expected).max())
    assert feet.certificate <= 1e-9 and feet.resultant_error < 1e-12


def test_where_the_feet_cannot_carry_the_swing(swing, feet):
    """The program (DAQP on the contact-wrench cones' faces) certifies exactly the samples
    whose least friction coefficient, by a linear program over the soles' corner forces
    (HiGHS), is at most the program's (away from the bisection's 1e-3); the first refusal
    comes in the first tenth of the downswing, at a sole's edge (the centre of pressure
    would have to leave the sole), not at the friction cones."""
    golfer, _, _, down = swing
    least, mu = feet.least_friction, feet.friction_coefficient
    clear = np.abs(least - mu) > 1e-3 * mu
    assert np.array_equal(feet.feasible[clear], least[clear] <= mu)
    assert clear.sum() >= len(least) - 1
    unbounded = ~np.isfinite(least)
    assert not (unbounded & feet.feasible).any()
    assert not feet.feasible.all()
    first = feet.first_infeasible
    assert feet.feasible[:first].all() and not feet.feasible[first]
    assert down.t[first] < 0.1 * down.t[-1]
    assert "support" in feet.reason
    with pytest.raises(InfeasibleContactError) as error:
        contact.contact_inverse_dynamics(
            golfer.model,
            [golfer.frames["lead sole"], golfer.frames["trail sole"]],
            down.q[first],
            down.v[first],
            down.a[first],
            10.0,  # any friction: the soles' edges bind
            golfer.sole_outline(),
            closures=[_grip(golfer)],
        )
    assert error.value.family == "support"
    # The certified samples' peaks, in body weights and N m.
    assert np.isfinite(feet.peak_vertical).all() and (feet.peak_vertical > 0).all()
    assert (feet.peak_vertical < 1.5).all() and np.isfinite(feet.peak_free_moment).all()


def _grip(golfer):
    from geomotion import constraints

    hand, club = golfer.frames["trail grip on hand"], golfer.frames["trail grip on club"]
    return constraints.frame_closure(golfer.model, club.body, club.pose, hand.body, hand.pose)


def test_downswing_feet_refuses_bad_friction(swing):
    golfer, _, _, down = swing
    with pytest.raises(ValueError, match="friction_coefficient"):
        models.downswing_feet(golfer, down, friction_coefficient=-0.1)
    with pytest.raises(TypeError, match="friction_coefficient"):
        models.downswing_feet(golfer, down, friction_coefficient="0.8")


def test_the_swing_rates_against_differences_of_the_motion(swing, golf_optimum):
    """The shaft's angular velocity against the rate of its direction, |de/dt| = |omega x e|
    (central differences of the shaft's unit vector on a motion sampled every 1.1 ms), and
    the elbow's extension against differences of its flexion."""
    golfer, planar, optimum, _ = swing
    fine = models.golfer_downswing(golfer, planar, optimum.downswing, samples=241)
    rates = models.swing_rates(golfer, fine)
    head = golfer.frames["clubhead"].world_pose(golfer.model, fine.q)[:, :3, 3]
    butt = golfer.frames["club butt"].world_pose(golfer.model, fine.q)[:, :3, 3]
    e = (head - butt) / np.linalg.norm(head - butt, axis=1, keepdims=True)
    dt = np.diff(fine.t)
    turning = np.linalg.norm(e[2:] - e[:-2], axis=1) / (dt[1:] + dt[:-1])
    shaft = rates.shaft_angular_velocity[1:-1]
    assert np.abs(turning - shaft).max() < 1e-3 * shaft.max()
    elbow = fine.q[:, golfer.model.q_start[golfer.bodies["trail forearm"]]]
    extension = -(elbow[2:] - elbow[:-2]) / (dt[1:] + dt[:-1])
    rate = rates.trail_elbow_extension_rate[1:-1]
    assert np.abs(extension - rate).max() < 1e-3 * np.abs(rate).max()
    assert np.degrees(rate.max()) > 500.0  # the elbow extends in the downswing
    # the turn rates: the vertical component of skew(dR/dt R^T), by central differences
    poses = tree.forward_kinematics(golfer.model, fine.q)
    for body, turn in (
        ("pelvis", rates.pelvis_turn_rate),
        ("thorax", rates.thorax_turn_rate),
    ):
        R = poses[:, golfer.bodies[body], :3, :3]
        dR = (R[2:] - R[:-2]) / (dt[1:] + dt[:-1])[:, None, None]
        spin = dR @ np.swapaxes(R[1:-1], -1, -2)
        np.testing.assert_allclose(spin[:, 1, 0], turn[1:-1], atol=2e-3 * np.abs(turn).max())
    with pytest.raises(TypeError, match="^downswing: expected a models.GolferDownswing"):
        models.swing_rates(golfer, optimum.downswing)


def test_the_3d_rate_rows_say_what_they_compare():
    row = models.compare_shaft_rate(np.radians(2413.0), group="PGA", motion="3-D")
    assert row.agrees and not row.like and "prescribed" in row.same_quantity
    assert not models.compare_shaft_rate(np.radians(1900.0), group="PGA", motion="3-D").agrees
    elbow = models.compare_joint_rate(
        np.radians(854.0), joint="trail elbow extension", motion="3-D"
    )
    assert elbow.agrees and "prescribed" in elbow.same_quantity
    with pytest.raises(ValueError, match="motion: expected 'planar' or '3-D'"):
        models.compare_shaft_rate(1.0, group="PGA", motion="3d")
    with pytest.raises(ValueError, match="joint: the 3-D motion has the trail elbow only"):
        models.compare_joint_rate(1.0, joint="lead wrist", motion="3-D")
