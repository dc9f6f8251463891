"""The swing study's measures and its comparisons with published results
(geomotion.models._swing_study): the measures against independent computations, the rules
against numbers that should pass and fail them, and perturbed models that flip the
verdicts that should flip."""

import numpy as np
import pytest

from geomotion import models

GOLFER = models.swing_plane_golfer()
ONSET = np.array([0.0, 0.03, 0.08])  # s, near the optimum: a cheap fixed input


@pytest.fixture(scope="module")
def swing():
    generators = models.swing_generators(ONSET)
    return generators, models.simulate_downswing(GOLFER, generators)


def test_the_sequence_is_read_from_the_absolute_angles_by_differences(swing):
    _, run = swing
    sequence = models.kinematic_sequence(run)
    k = int(run.impact.step)  # t_k <= impact < t_k+1
    q, dt, t = run.trajectory.q, run.trajectory.dt, run.trajectory.t
    angles = np.stack([q[:, 0], q[:, 0] + q[:, 1], q[:, 0] + q[:, 1] + q[:, 2]], axis=1)
    rates = (angles[2 : k + 3] - angles[: k + 1]) / (2 * dt)  # steps 1 .. k + 1
    # at impact, between the rates at steps k and k + 1 (never the rate past it)
    share = (float(run.impact.time) - t[k]) / dt
    at_impact = (1 - share) * rates[k - 1] + share * rates[k]
    candidates = np.vstack([rates[:k], at_impact])  # steps 1 .. k, then impact
    times = np.append(t[1 : k + 1], run.impact.time)
    peaks = np.argmax(candidates, axis=0)
    np.testing.assert_allclose(sequence.peak_time, times[peaks], atol=dt)
    np.testing.assert_allclose(sequence.peak_rate, candidates.max(axis=0), rtol=1e-3)
    assert sequence.impact_time == pytest.approx(float(run.impact.time))
    assert (sequence.peak_time <= sequence.impact_time).all()
    # This swing's trunk is still speeding up at impact: it peaks there, not after.
    assert sequence.peak_time[0] == sequence.impact_time


def test_positive_work_from_the_generators_and_the_energy_books(swing):
    generators, run = swing
    k = int(run.impact.step)  # t_k <= impact < t_k+1
    traj = run.trajectory
    u = generators(traj.t[: k + 2, None], traj.q[: k + 2], traj.v[: k + 2])
    power = np.clip(u * traj.v[: k + 2, :3], 0.0, None)
    steps = 0.5 * traj.dt * (power[1:] + power[:-1])  # steps 0 .. k
    share = (float(run.impact.time) - traj.t[k]) / traj.dt
    by_hand = steps[:k].sum(axis=0) + share * steps[k]
    work = models.positive_work(run)
    # the trapezoid of clipped power and the sum of clipped increments differ only in
    # the steps where a power changes sign
    np.testing.assert_allclose(work, by_hand, rtol=2e-2)
    net = run.joint_work[k] + share * (run.joint_work[k + 1] - run.joint_work[k])
    assert np.all(work >= net - 1e-12)
    gained = traj.kinetic[k] + traj.potential[k] - traj.kinetic[0] - traj.potential[0]
    assert run.joint_work[k].sum() == pytest.approx(gained, abs=0.05)  # J: the books close


def test_the_passive_transfer_holds_the_hub_and_conserves_energy(swing):
    generators, run = swing
    k = int(np.argmax(run.body_kinetic[: int(run.impact.step), 1]))
    fixed = models.passive_transfer(GOLFER, generators, run, branch_step=k)
    free = models.passive_transfer(GOLFER, generators, run, branch_step=k, pivot_fixed=False)
    assert fixed.energy_residual < 0.05 and free.energy_residual < 0.1  # J
    # free, the wrist meets the damped stop's exponential stiffness at speed: the residual
    # (0.05 J at 1 ms) is the integration's, falling about 2^4 times with half the step
    fine = models.simulate_downswing(GOLFER, generators, dt=5e-4)
    k_fine = int(round(run.trajectory.t[k] / 5e-4))
    again = models.passive_transfer(GOLFER, generators, fine, branch_step=k_fine, pivot_fixed=False)
    assert again.energy_residual < free.energy_residual / 8
    assert fixed.pivot_fixed and not free.pivot_fixed
    # the free run starts from the swing's own state, the held run from less energy
    assert free.club_kinetic[0] == pytest.approx(run.body_kinetic[k, 2], rel=1e-12)
    assert fixed.arms_kinetic[0] < free.arms_kinetic[0]
    assert models.compare_transfer(fixed).agrees
    # held: the hub does not move, and the club keeps its absolute rate (the closure's
    # projection moves it by about 1 %)
    q, v = fixed.trajectory.q, fixed.trajectory.v
    assert np.abs(q[:, 0] - q[0, 0]).max() < 1e-9 and np.abs(v[:, 0]).max() < 1e-9
    swing_rate = run.trajectory.v[k, :3].sum()
    assert v[0, :3].sum() == pytest.approx(swing_rate, rel=0.02)


def _momentum_about_lead_shoulder(golfer, q, v):
    """kg m^2/s: the lead arm's and the club's angular momentum about the lead shoulder,
    summed body by body (centres, their velocities, central moments)."""
    shoulder = golfer.point(q, "lead shoulder")[..., None, :]
    r = golfer.body_centres(q)[..., 1:3, :] - shoulder
    u = golfer.body_centre_velocities(q, v)[..., 1:3, :]
    rates = np.stack([v[..., :2].sum(-1), v[..., :3].sum(-1)], axis=-1)
    spin = golfer.inertias[1:3] * rates
    return (golfer.masses[1:3] * (r[..., 0] * u[..., 1] - r[..., 1] * u[..., 0]) + spin).sum(-1)


def test_under_whites_conditions_only_inertia_acts(swing):
    """No torque, the hub held, no trail arm, no gravity and no stop: White's double
    pendulum.  The kinetic energy the club gains is what the arm loses, the angular
    momentum about the fixed shoulder stays, and from rest nothing moves at all (with
    gravity kept, the same start falls)."""
    generators, run = swing
    k = int(np.argmax(run.body_kinetic[: int(run.impact.step), 1]))
    white = models.passive_transfer(
        GOLFER, generators, run, branch_step=k, trail_arm=False, gravity=False, wrist_stop=False
    )
    assert not white.gravity and not white.wrist_stop and not white.trail_arm
    q, v = white.trajectory.q, white.trajectory.v
    kinetic = white.trajectory.kinetic
    assert np.abs(kinetic - kinetic[0]).max() < 1e-4 * kinetic[0]  # J: conserved
    assert white.club_gain == pytest.approx(-white.arms_change, abs=1e-4 * kinetic[0])
    momentum = _momentum_about_lead_shoulder(GOLFER, q, v)
    assert np.abs(momentum - momentum[0]).max() < 1e-4 * abs(momentum[0])
    # the trail arm stays where it was, and the lead side keeps the swing's absolute rates
    assert np.abs(q[:, [0, 3, 4]] - q[0, [0, 3, 4]]).max() < 1e-9
    swing_v = run.trajectory.v[k]
    assert v[0, :2].sum() == pytest.approx(swing_v[:2].sum(), rel=1e-12)
    assert v[0, :3].sum() == pytest.approx(swing_v[:3].sum(), rel=1e-12)
    row = models.compare_transfer(white)
    assert row.like and row.agrees and "double pendulum" in row.same_quantity
    with_trail_arm = models.passive_transfer(
        GOLFER, generators, run, branch_step=k, gravity=False, wrist_stop=False
    )
    trail_row = models.compare_transfer(with_trail_arm)
    assert not trail_row.like and "trail arm" in trail_row.same_quantity
    # the trail arm's links take part: its momentum about the shoulder is not conserved
    q2, v2 = with_trail_arm.trajectory.q, with_trail_arm.trajectory.v
    momentum2 = _momentum_about_lead_shoulder(GOLFER, q2, v2)
    assert np.abs(momentum2 - momentum2[0]).max() > 1e-2 * abs(momentum2[0])
    assert not models.compare_transfer(
        models.passive_transfer(GOLFER, generators, run, branch_step=k)
    ).like
    still = models.passive_transfer(
        GOLFER, generators, run, branch_step=0, gravity=False, wrist_stop=False
    )
    assert np.abs(still.trajectory.v).max() < 1e-12 and still.club_gain < 1e-12
    falls = models.passive_transfer(GOLFER, generators, run, branch_step=0, wrist_stop=False)
    assert falls.club_gain > 0.1  # J


def test_the_transfer_verdict_fails_when_the_arms_have_nothing_to_give(swing):
    """From rest at the top the arms and the club both fall and both gain energy: the
    verdict needs energy passing from one to the other, and fails."""
    generators, run = swing
    at_rest = models.passive_transfer(GOLFER, generators, run, branch_step=0)
    assert at_rest.club_gain > 0 and at_rest.arms_change > 0
    assert not models.compare_transfer(at_rest).agrees


@pytest.mark.parametrize(
    ("comparison", "expected"),
    [
        (lambda: models.compare_speed(45.0), True),
        (lambda: models.compare_speed(39.9), False),
        (lambda: models.compare_speed(58.1), False),
        (lambda: models.compare_shaft_rate(np.radians(2413.0), group="PGA"), True),
        (lambda: models.compare_shaft_rate(np.radians(1960.0), group="PGA"), False),
        (lambda: models.compare_shaft_rate(np.radians(1540.0), group="LPGA"), True),
        (lambda: models.compare_shaft_rate(np.radians(1530.0), group="LPGA"), False),
        (lambda: models.compare_wrist_gain(44.0, 44.0 / 1.09), True),
        (lambda: models.compare_wrist_gain(44.0, 44.0 / 1.2), False),
        (lambda: models.compare_wrist_onset(np.radians(30.0)), True),
        (lambda: models.compare_wrist_onset(np.radians(-17.0)), False),
        (lambda: models.compare_work_share([70.0, 20.0, 10.0]), True),
        (lambda: models.compare_work_share([40.0, 45.0, 15.0]), False),  # not the largest
        (lambda: models.compare_work_share([45.0, 30.0, 25.0]), False),  # under the range
        (lambda: models.compare_work_share([79.0, 15.0, 6.0]), False),  # above it
        (lambda: models.compare_joint_rate(np.radians(900.0), joint="trail elbow extension"), True),
        (
            lambda: models.compare_joint_rate(np.radians(1774.0), joint="trail elbow extension"),
            False,
        ),
        (lambda: models.compare_joint_rate(np.radians(1079.0), joint="lead wrist"), True),
        (lambda: models.compare_joint_rate(np.radians(700.0), joint="lead wrist"), False),
        (lambda: models.compare_club_energy(25.0, [60.0, 30.0, 10.0]), True),
        (lambda: models.compare_club_energy(85.0, [60.0, 30.0, 10.0]), False),
        (lambda: models.compare_ball_speed(52.98, 52.65), True),
        (lambda: models.compare_ball_speed(52.98, 51.9), False),
        (lambda: models.compare_tempo(0.27), True),
        (lambda: models.compare_tempo(0.35), False),
    ],
)
def test_each_rule_passes_a_published_like_number_and_fails_another(comparison, expected):
    assert comparison().agrees is expected


def test_the_trunk_peak_rule_reads_the_peak_against_impact(swing):
    _, run = swing
    sequence = models.kinematic_sequence(run)
    step = run.trajectory.dt
    early = models.KinematicSequence(
        peak_time=np.r_[sequence.impact_time - 0.05, sequence.peak_time[1:]],
        peak_rate=sequence.peak_rate,
        impact_time=sequence.impact_time,
    )
    assert not models.compare_trunk_peak(early, step=step).agrees  # peaks mid-swing
    two_steps = models.KinematicSequence(
        peak_time=np.r_[sequence.impact_time - 2 * step, sequence.peak_time[1:]],
        peak_rate=sequence.peak_rate,
        impact_time=sequence.impact_time,
    )
    assert not models.compare_trunk_peak(two_steps, step=step).agrees
    late = models.KinematicSequence(
        peak_time=np.r_[sequence.impact_time - 0.5 * step, sequence.peak_time[1:]],
        peak_rate=sequence.peak_rate,
        impact_time=sequence.impact_time,
    )
    assert models.compare_trunk_peak(late, step=step).agrees
    with pytest.raises(ValueError, match="step"):
        models.compare_trunk_peak(sequence, step=0.0)


#: Vena et al. (2011), addendum row K17: the left arm's peak at 100 % of the downswing.
VENA_LEFT_ARM = 1.0


@pytest.mark.parametrize(
    ("fraction", "expected"), [(VENA_LEFT_ARM, True), (0.96, True), (0.94, False), (0.5, False)]
)
def test_the_arm_timing_rule_reads_the_arm_peak_as_a_fraction_of_the_downswing(
    swing, fraction, expected
):
    """The lead arm (the second peak, not the trunk's or the club's) at a given fraction of
    the time from the top to impact; the trunk and club peaks moved away from it."""
    _, run = swing
    impact = models.kinematic_sequence(run).impact_time
    sequence = models.KinematicSequence(
        peak_time=np.array([0.1, fraction, 0.2]) * impact,
        peak_rate=np.ones(3),
        impact_time=impact,
    )
    row = models.compare_arm_peak_timing(sequence)
    assert row.agrees is expected
    assert row.model == f"{100 * fraction:.0f} %" and row.published.startswith("100 %")


def test_the_arm_timing_rule_refuses_what_is_not_a_sequence(swing):
    _, run = swing
    with pytest.raises(TypeError, match="^sequence: expected a KinematicSequence"):
        models.compare_arm_peak_timing(run)


def test_the_ball_speed_of_a_point_mass_collision_by_hand():
    # (1 + e) M v / (M + m), e = 0.83, m = 45.9 g: 1.83 x 0.2 x 40 / 0.2459
    assert models.ball_speed(40.0, 0.2) == pytest.approx(1.83 * 0.2 * 40.0 / 0.2459, rel=1e-12)
    with pytest.raises(ValueError, match="head_mass"):
        models.ball_speed(40.0, 0.0)


def test_rows_say_whether_they_are_like_for_like():
    assert models.compare_speed(40.0).like
    assert not models.compare_shaft_rate(1.0, group="PGA").like  # 3-D against in-plane
    assert "sex" in models.compare_shaft_rate(1.0, group="LPGA").same_quantity
    assert not models.compare_wrist_onset(0.5).like and not models.compare_ball_speed(50, 49).like
    assert not models.compare_work_share([1.0, 1.0, 1.0]).like
    assert not models.compare_wrist_gain(40.0, 30.0).like


def test_a_trend_is_the_direction_of_the_change():
    kwargs = {"key": "mackenzie_head_masses", "conditions": "onsets fixed", "like": True}
    assert models.compare_trend("head", speed_before=36.0, speed_after=35.5, **kwargs).agrees
    assert not models.compare_trend("head", speed_before=35.5, speed_after=36.0, **kwargs).agrees


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: models.kinematic_sequence("run"), TypeError, "downswing"),
        (lambda: models.positive_work(None), TypeError, "downswing"),
        (lambda: models.compare_sequence(1.0), TypeError, "sequence"),
        (lambda: models.compare_transfer(1.0), TypeError, "transfer"),
        (lambda: models.compare_speed([1.0, 2.0]), ValueError, "speed"),
        (lambda: models.compare_speed(np.nan), ValueError, "speed"),
        (lambda: models.compare_shaft_rate(1.0, group="amateur"), ValueError, "group"),
        (lambda: models.compare_joint_rate(1.0, joint="knee"), ValueError, "joint"),
        (lambda: models.compare_club_energy(1.0, [1.0, -1.0, 1.0]), ValueError, "work"),
        (lambda: models.compare_ball_speed(0.0, 50.0), ValueError, "speed_light"),
        (lambda: models.compare_wrist_gain(40.0, 0.0), ValueError, "speed_without_wrist"),
        (lambda: models.compare_work_share([1.0, 2.0]), ValueError, "work"),
        (lambda: models.compare_work_share([1.0, -2.0, 3.0]), ValueError, "work"),
        (
            lambda: models.compare_trend(
                "x", key="ball", speed_before=1.0, speed_after=1.0, conditions="c", like=True
            ),
            ValueError,
            "key",
        ),
        (
            lambda: models.compare_trend(
                3,
                key="club_moi_difference",
                speed_before=1.0,
                speed_after=1.0,
                conditions="c",
                like=True,
            ),
            TypeError,
            "quantity",
        ),
    ],
)
def test_bad_input_is_refused_by_name(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_swing_without_impact_has_no_sequence_and_a_transfer_refuses_bad_steps(swing):
    generators, run = swing
    idle = models.simulate_downswing(
        GOLFER, models.swing_generators(ONSET, active=(0.0, 0.0, 0.0)), t_max=0.1
    )
    with pytest.raises(ValueError, match="downswing"):
        models.kinematic_sequence(idle)
    with pytest.raises(ValueError, match="branch_step"):
        models.passive_transfer(GOLFER, generators, run, branch_step=10**6)
    with pytest.raises(TypeError, match="pivot_fixed"):
        models.passive_transfer(GOLFER, generators, run, branch_step=0, pivot_fixed=1)
    with pytest.raises(TypeError, match="gravity: expected a bool"):
        models.passive_transfer(GOLFER, generators, run, branch_step=0, gravity=0)
    with pytest.raises(ValueError, match="trail_arm"):
        models.passive_transfer(
            GOLFER, generators, run, branch_step=0, trail_arm=False, pivot_fixed=False
        )
    with pytest.raises(TypeError, match="trail_arm"):
        models.passive_transfer(GOLFER, generators, run, branch_step=0, trail_arm=None)


@pytest.mark.slow
def test_weaker_and_stronger_golfers_flip_the_verdicts_that_should_flip():
    """Every generator 20 % weaker, onsets re-optimised: the peak club rate leaves the LPGA
    band it was inside, the speed stays below the low-handicap range, and the sequence and
    the tempo keep their verdicts.  Every generator 50 % stronger: the speed enters the
    low-handicap range (40.2 m/s), the rest keep theirs."""
    rows = {}
    for name, scale in (("stated", 1.0), ("weaker", 0.8), ("stronger", 1.5)):
        peaks = scale * np.array(models.GENERATOR_DEFAULTS["peak_torque"])
        optimum = models.optimise_onsets(GOLFER, peak_torque=peaks)
        sequence = models.kinematic_sequence(optimum.downswing)
        rows[name] = [
            models.compare_speed(optimum.speed).agrees,
            models.compare_shaft_rate(sequence.peak_rate[2], group="LPGA").agrees,
            models.compare_sequence(sequence).agrees,
            models.compare_tempo(float(optimum.impact.time)).agrees,
        ]
    assert rows["stated"] == [False, True, True, True]
    assert rows["weaker"] == [False, False, True, True]
    assert rows["stronger"] == [True, True, True, True]
