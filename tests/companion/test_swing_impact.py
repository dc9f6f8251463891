"""The swing-plane golfer's impact at the ball, its torque generators and the optimal
timing (geomotion.models._impact and _timing), checked against hand geometry, a finer
simulation step and the constraint manifold around the optimum."""

import numpy as np
import pytest

from geomotion import models
from geomotion.models import _impact, _timing

GOLFER = models.swing_plane_golfer()
ONSET = np.array([0.0, 0.03, 0.06])


def test_the_ball_is_the_clubhead_at_address_by_hand_geometry():
    alpha = np.radians(30.0)
    L = GOLFER.parameters["lengths"]
    s, arm = L["shoulder_width"] / 2, L["upper_arm"] + L["forearm"]
    reach = (
        L["palm"] - models.golf_data.CLUB_DEFAULTS["lead_grip"] + GOLFER.parameters["club"].length
    )
    expected = [s - reach * np.sin(alpha), -arm - reach * np.cos(alpha)]
    np.testing.assert_allclose(
        _impact.ball_at_address(GOLFER, wrist_angle=alpha), expected, atol=1e-14
    )


@pytest.fixture(scope="module")
def swing():
    return models.simulate_downswing(GOLFER, models.swing_generators(ONSET))


def test_impact_is_on_the_ball_line_inside_its_step(swing):
    run, impact = swing.trajectory, swing.impact
    ball = _impact.ball_at_address(GOLFER)
    head = GOLFER.clubhead(impact.q)
    assert impact.crossed and impact.crossed.dtype == bool
    assert abs(head[0] - ball[0]) < 1e-9
    assert head[1] < 0
    assert run.t[impact.step] <= impact.time <= run.t[impact.step + 1]
    assert impact.miss == pytest.approx(head[1] - ball[1], abs=1e-15)
    assert impact.speed == pytest.approx(np.hypot(*GOLFER.clubhead_velocity(impact.q, impact.v)))


def test_impact_converges_with_the_step(swing):
    """Halving dt moves the impact by much less than the quantities the book prints."""
    coarse = swing.impact
    fine = models.simulate_downswing(GOLFER, models.swing_generators(ONSET), dt=5e-4).impact
    assert abs(fine.time - coarse.time) < 1e-5
    assert abs(fine.speed - coarse.speed) < 1e-3
    assert abs(fine.miss - coarse.miss) < 1e-5


def test_the_miss_follows_the_ball_and_decides_reached(swing):
    impact = swing.impact
    ball = _impact.ball_at_address(GOLFER)
    raised = models.simulate_downswing(
        GOLFER, models.swing_generators(ONSET), ball=ball + [0.0, impact.miss]
    ).impact
    assert raised.time == pytest.approx(impact.time, abs=1e-12)
    assert abs(raised.miss) < 1e-12 and raised.reached
    lowered = models.simulate_downswing(
        GOLFER, models.swing_generators(ONSET), ball=ball + [0.0, impact.miss - 0.01]
    ).impact
    # 10 mm over the ball: inside the 25 mm contact band, outside point contact's 1 mm
    # numerical tolerance; 2 mm beyond the band's edge (past its 1 mm tolerance) it misses
    assert lowered.miss == pytest.approx(0.01, abs=1e-12) and lowered.reached
    point = models.simulate_downswing(
        GOLFER, models.swing_generators(ONSET), ball=ball + [0.0, impact.miss - 0.01], band=0.0
    ).impact
    assert point.miss == pytest.approx(0.01, abs=1e-12) and not point.reached
    beyond = models.simulate_downswing(
        GOLFER,
        models.swing_generators(ONSET),
        ball=ball + [0.0, impact.miss + models.IMPACT_BAND + 2e-3],
    ).impact
    assert beyond.miss == pytest.approx(-models.IMPACT_BAND - 2e-3, abs=1e-12)
    assert not beyond.reached


def test_a_swing_that_never_meets_the_ball_line_has_no_impact():
    generators = models.swing_generators(ONSET, active=(0.0, 0.0, 0.0))
    impact = models.simulate_downswing(GOLFER, generators, t_max=0.1).impact
    assert not impact.crossed and not impact.reached


@pytest.mark.parametrize("stop", ["elastic", "damped"])
def test_generators_by_hand(stop):
    """Hub at one time constant after its onset, turning at half its maximum rate."""
    generators = models.swing_generators(ONSET, stop=stop)
    tau_a, peak, angle = 0.03, np.array([200.0, 100.0, 30.0]), np.radians(10.0)
    q = GOLFER.top_of_backswing()
    q[2] = np.radians(-30.0) + np.radians(30.0) + 0.1  # 0.1 rad past the ulnar stop
    v = np.array([15.0, 0.0, -10.0, 0.0, 0.0])
    u = generators(np.array([tau_a]), q, v)
    a = 1 - np.exp(-1.0)
    assert u[0] == pytest.approx(a * peak[0] * 0.5 / 2.5, rel=1e-12)
    a_shoulder = 1 - np.exp(-(tau_a - 0.03) / tau_a)
    assert u[1] == pytest.approx(a_shoulder * peak[1], abs=1e-12)
    if stop == "elastic":  # k = peak / stop_angle^2, quadratic beyond the stop
        assert u[2] == pytest.approx(-(peak[2] / angle**2) * 0.1**2, rel=1e-12)
    else:  # k1 E(k2 x), E(y) = e^y - 1 - y - y^2/2, k1 from the peak at the stop angle;
        # the wrist turning back at 10 rad/s 0.1 rad past the stop (beyond the 5 degree
        # ramp of the damping): +3 N m s/rad x 10 rad/s
        def E(y):
            return np.exp(y) - 1 - y - y * y / 2

        k1 = peak[2] / E(20.0 * angle)
        assert u[2] == pytest.approx(-k1 * E(20.0 * 0.1) + 30.0, rel=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: _impact.ball_at_address("golfer"), TypeError, "golfer"),
        (lambda: _impact.ball_at_address(GOLFER, wrist_angle=2.0), ValueError, "wrist_angle"),
        (lambda: models.swing_generators([0.0, 0.1]), ValueError, "onset"),
        (lambda: models.swing_generators(ONSET, active=(1, 0.5, 1)), ValueError, "active"),
        (lambda: models.simulate_downswing(GOLFER, ONSET), TypeError, "generators"),
        (
            lambda: models.simulate_downswing(GOLFER, models.swing_generators(np.zeros((2, 3)))),
            ValueError,
            "generators",
        ),
        (lambda: _timing.optimise_onsets(GOLFER, wrist=1), TypeError, "wrist"),
        (lambda: _timing.optimise_onsets(GOLFER, starts=[[0.0]]), ValueError, "starts"),
    ],
)
def test_bad_input_is_refused(call, error, name):
    with pytest.raises(error, match=name):
        call()


def test_a_ball_out_of_reach_is_refused_before_any_swing():
    far = _impact.ball_at_address(GOLFER) + [0.0, -0.5]
    with pytest.raises(ValueError, match="ball: expected within the clubhead's reach"):
        _timing.optimise_onsets(GOLFER, ball=far)


@pytest.fixture(scope="module")
def optimum():
    return _timing.optimise_onsets(GOLFER)


@pytest.mark.slow
def test_the_optimum_reaches_the_ball_with_its_certificate(optimum):
    assert optimum.impact.reached and optimum.edge is not None
    assert abs(abs(optimum.impact.miss) - models.IMPACT_BAND) < 1e-4
    assert np.sign(optimum.edge) * optimum.multiplier > 0  # the band's edge is active
    # (the band's edge has a smaller multiplier than the old m = 0: the relative residual
    # is larger at the same slope along the constraint, itself far below 1 (m/s)/s)
    assert optimum.tangent_slope < 0.5 and optimum.kkt_residual < 1e-2
    assert optimum.gradient_error < 1e-2
    assert optimum.onset[0] == 0.0
    # no reaching swing bracketed on the 20 ms grid is faster, and a start elsewhere on the
    # constraint line climbs to the same optimum
    assert optimum.speed >= optimum.grid_speed
    other = _timing.optimise_onsets(GOLFER, starts=[[0.03, 0.08]])
    assert other.speed == pytest.approx(optimum.speed, abs=0.01)


@pytest.mark.slow
def test_without_the_wrist_every_reaching_onset_is_found():
    """One onset, one equality (point contact; the elastic stop and the ball at the 40 deg
    address angle, with which the passive wrist releases onto the ball): the optimiser's
    roots against a 2 ms scan of the miss."""
    angle = np.radians(40.0)
    ball = _impact.ball_at_address(GOLFER, wrist_angle=angle)
    options = {"stop": "elastic", "address_wrist_angle": angle}
    optimum = _timing.optimise_onsets(GOLFER, wrist=False, ball=ball, band=0.0, **options)
    swings = _timing._Swings(GOLFER, False, options, ball, 2e-3)
    scan = np.arange(-0.1, 0.3 + 1e-9, 2e-3)
    speed, miss = swings.speed_and_miss(scan[:, None])
    roots = scan[:-1][(miss[:-1] * miss[1:] < 0) & (speed[:-1] > 0) & (speed[1:] > 0)]
    assert len(roots) == len(optimum.start_onsets)
    np.testing.assert_allclose(np.sort(optimum.start_onsets[:, 0]), roots, atol=2e-3)
    assert optimum.speed == optimum.start_speeds.max() and abs(optimum.impact.miss) < 1e-4
    assert optimum.onset[2] == 0.0 and optimum.wrist_onset_arm_angle is None


@pytest.mark.slow
def test_no_neighbour_on_the_constraint_is_faster(optimum):
    """Step along the reach constraint's tangent, return to it by Newton steps in the wrist
    onset, and compare speeds: the optimum must be the fastest of its neighbours."""
    ball = _impact.ball_at_address(GOLFER)
    swings = _timing._Swings(GOLFER, True, {}, ball, 2e-3, band=models.IMPACT_BAND)
    swings = swings.shifted(optimum.edge)  # the miss measured from the band's active edge
    x = optimum.onset[1:]
    _, _, _, dm = swings.values_and_gradients(x)
    tangent = np.array([dm[1], -dm[0]]) / np.linalg.norm(dm)
    for delta in (-2e-3, 2e-3):
        y = x + delta * tangent
        for _ in range(3):
            _, miss, _, dm_y = swings.values_and_gradients(y)
            y = y - np.array([0.0, miss / dm_y[1]])
        speed, miss = swings.values_and_gradients(y)[:2]
        assert abs(miss) < 1e-6
        assert speed < optimum.speed


def test_bad_top_postures_are_refused():
    with pytest.raises(TypeError, match="top: expected a mapping"):
        _timing.optimise_onsets(GOLFER, top=[1.4])
    with pytest.raises(ValueError, match="top: expected keys among"):
        _timing.optimise_onsets(GOLFER, top={"hub": 1.4})
    with pytest.raises(ValueError, match="top\\['wrist_cock'\\]"):
        _timing.optimise_onsets(GOLFER, top={"wrist_cock": -1.0})


@pytest.mark.slow
def test_the_top_posture_starts_every_swing_and_sets_the_radial_stop():
    top = {"hub_turn": np.radians(95.0), "wrist_cock": np.radians(105.0)}
    optimum = _timing.optimise_onsets(GOLFER, top=top)
    start = optimum.downswing.trajectory.q[0]
    np.testing.assert_allclose(start, GOLFER.top_of_backswing(**top), atol=1e-12)
    assert start[0] == pytest.approx(-np.radians(95.0)) and start[2] == pytest.approx(
        -np.radians(105.0)
    )
    assert optimum.generators.wrist_stop.q_min == pytest.approx(-np.radians(105.0))
    assert dict(optimum.top) == top
    assert abs(optimum.impact.miss) <= models.IMPACT_BAND + 1e-4
    assert optimum.speed >= optimum.grid_speed - 0.1


@pytest.mark.slow
def test_an_optimum_on_a_kink_is_certified_by_its_one_sided_slopes():
    """A drawn golfer whose fastest reaching swing switches the wrist on with the hub:
    the speed has a kink there (the swing starts with whichever is first).  The kink is
    the earlier model's (elastic stop, every generator from zero activation, point
    contact, the hub's moment about the trunk's long axis); the population's kinks under
    the current model are counted in its results file."""
    import dataclasses

    from geomotion.models import _population

    now_draw = models.draw_golfers(12)[11]
    draw = dataclasses.replace(
        now_draw, trunk_tilt=now_draw.plane_inclination, hub_max_velocity=30.0
    )
    golfer = draw.golfer()
    options = {**draw.generator_options(), "stop": "elastic"}
    earlier = dict(hold=False, band=0.0)
    optimum = _timing.optimise_onsets(
        golfer, ball=draw.ball(), top=draw.top(), **earlier, **options
    )
    assert optimum.kink == ("hub", "wrist") and optimum.onset[2] == 0.0
    assert optimum.kkt_residual is None and optimum.gradient_error is None
    # independently: the speed along the constraint, 1 ms either side, measured by runs
    # whose wrist onset is moved and whose shoulder onset is re-solved onto the ball
    swings = _timing._Swings(
        golfer,
        True,
        {"top_wrist_cock": draw.top_wrist_cock, **options},
        optimum.ball,
        _population._DT,
        golfer.top_of_backswing(**draw.top()),
        hold=False,
    )
    x = optimum.onset[1:]
    for wrist in (-1e-3, 1e-3):
        y = np.array([x[0], wrist])
        for _ in range(4):
            _, miss, _, dm = swings.values_and_gradients(y)
            y = y - np.array([miss / dm[0], 0.0])
        speed, miss = swings.values_and_gradients(y)[:2]
        assert abs(miss) < 1e-6
        assert speed < optimum.speed - 1e-3  # slower by at least 1 mm/s on each side
    assert np.all(optimum.neighbour_slopes < -1.0) and len(optimum.neighbour_slopes) == 2


def test_brackets_on_a_grid_locate_reaching_swings():
    """Along the wrist onset (shoulder fixed at 28 ms), the miss changes sign once in
    the window (between 0 and 10 ms); the bracket's interpolated onset, run again, nearly
    reaches the ball and has nearly the interpolated speed (linear over 10 ms)."""
    wrist = np.linspace(0.0, 0.07, 8)
    onsets = np.column_stack([np.zeros(8), np.full(8, 0.028), wrist])
    ball = np.broadcast_to(_impact.ball_at_address(GOLFER), (8, 2))
    run = models.simulate_downswing(
        GOLFER.repeated(8), models.swing_generators(onsets), ball=ball, dt=2e-3
    )
    reach = _timing.bracket_reaching(run.impact.reshaped((2, 4)), wrist.reshape(2, 4)[0])
    assert reach.speed.shape == (2, 3)
    flat = _timing.bracket_reaching(run.impact, wrist)
    found = np.isfinite(flat.speed)
    assert found.sum() == 1
    where = float(flat.position[found][0])
    assert wrist[:-1][found][0] < where < wrist[1:][found][0]
    again = models.simulate_downswing(
        GOLFER, models.swing_generators([0.0, 0.028, where]), dt=2e-3
    ).impact
    assert abs(again.miss) < 5e-3
    assert float(again.speed) == pytest.approx(flat.fastest, abs=0.05)
    # the (2, 4) layout holds the same runs, so it brackets the same swing unless the
    # bracket lies between the layout's rows
    assert np.isfinite(reach.speed).sum() <= 1


def test_bracket_reaching_refuses_bad_input():
    with pytest.raises(TypeError, match="impact: expected an Impact"):
        _timing.bracket_reaching(np.zeros(3), [0.0, 1.0, 2.0])
    run = models.simulate_downswing(GOLFER, models.swing_generators([0.0, 0.03, 0.08]))
    with pytest.raises(ValueError, match="values"):
        _timing.bracket_reaching(run.impact.reshaped((1,)), [0.0, 1.0])


# --- the holding activation ------------------------------------------------------------

#: A top posture every generator can hold (the lead arm 20 degrees past vertical, so that
#: gravity turns the arms the backswing's way); at the stated top the hub and shoulder
#: would have to pull the backswing's way and cannot.
HELD_TOP = {"hub_turn": np.radians(80.0), "lead_arm_above_horizontal": np.radians(110.0)}


def test_holding_balances_the_static_equations_by_hand():
    """B u + J_c^T lambda = h(q, 0) solved independently: the trail arm's two rows fix
    lambda, the three driven rows then give u."""
    q = GOLFER.top_of_backswing(**HELD_TOP)
    generators = models.swing_generators(ONSET)
    holding = models.holding_activation(GOLFER, generators, q)
    gravity = GOLFER.bias(q, np.zeros(5))
    Jt = GOLFER.trail_grip.jacobian(q).T
    lam = np.linalg.solve(Jt[3:], gravity[3:])
    u = gravity[:3] - Jt[:3] @ lam
    np.testing.assert_allclose(holding.tau, u, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(holding.activation, u / [200.0, 100.0, 30.0], rtol=1e-10)
    assert holding.held and np.all((0 < holding.activation) & (holding.activation < 1))
    stated = models.holding_activation(GOLFER, generators, GOLFER.top_of_backswing())
    assert not stated.held and stated.tau[0] < 0 and stated.tau[1] < 0
    np.testing.assert_array_equal(stated.activation[:2], 0.0)
    assert 0 < stated.activation[2] < 1  # the wrist holds the club off the radial stop


def test_a_held_golfer_stays_at_rest_until_the_first_onset():
    onset = np.array([0.05, 0.07, 0.09])
    q0 = GOLFER.top_of_backswing(**HELD_TOP)
    run = models.simulate_downswing(
        GOLFER, models.swing_generators(onset), q0=q0, t_max=0.12, dt=1e-3
    )
    assert run.holding.held
    np.testing.assert_array_equal(run.generators.hold, run.holding.activation)
    before = run.trajectory.t <= 0.05
    # at rest to round-off (1e-9 rad, 1e-8 rad/s) until the hub's onset, moving after it
    assert np.max(np.abs(run.trajectory.q[before] - q0)) < 1e-9
    assert np.max(np.abs(run.trajectory.v[before])) < 1e-8
    assert np.max(np.abs(run.trajectory.v[-1])) > 1.0
    falls = models.simulate_downswing(
        GOLFER, models.swing_generators(onset), q0=q0, t_max=0.05, dt=1e-3, hold=False
    )
    assert np.max(np.abs(falls.trajectory.v[-1])) > 0.1  # without holding it moves at once


def test_hold_refuses_a_moving_start_and_bad_levels():
    q0 = GOLFER.top_of_backswing()
    with pytest.raises(ValueError, match="hold: a held start needs the golfer at rest"):
        models.simulate_downswing(GOLFER, models.swing_generators(ONSET), v0=np.ones(5) * 0.1)
    with pytest.raises(TypeError, match="hold"):
        models.simulate_downswing(GOLFER, models.swing_generators(ONSET), q0=q0, hold=1)
    with pytest.raises(ValueError, match="hold"):
        models.swing_generators(ONSET, hold=[0.1, 1.2, 0.0])
    with pytest.raises(ValueError, match="stop"):
        models.swing_generators(ONSET, stop="rigid")
    with pytest.raises(ValueError, match="band"):
        _timing.optimise_onsets(GOLFER, band=-0.01)
    with pytest.raises(TypeError, match="generators"):
        models.holding_activation(GOLFER, ONSET, q0)


def test_a_neighbour_that_never_crosses_stays_put_and_is_dropped():
    """Newton's steps onto the constraint: a row whose swing never crosses the ball's line
    (miss 1 m, no slope) must not be divided by its zero slope; it stays where it is,
    keeps its large miss, and the neighbour search drops it."""
    from geomotion.models import _onset_certificate

    class Swings:  # miss = t_s - 0.05 for t_s < 0.1; beyond, no crossing at all
        def gradients(self, Y):
            crossing = Y[:, 0] < 0.1
            miss = np.where(crossing, Y[:, 0] - 0.05, 1.0)
            dm = np.where(crossing[:, None], [[1.0, 0.0]], 0.0)
            return np.full(len(Y), 30.0), miss, np.zeros_like(Y), dm

    Y = np.array([[0.04, 0.02], [0.2, 0.02]])
    moved, _, miss = _onset_certificate._onto_constraint(Swings(), Y)
    assert np.all(np.isfinite(moved))
    np.testing.assert_allclose(moved[0], [0.05, 0.02], atol=1e-12)
    np.testing.assert_array_equal(moved[1], Y[1])
    assert miss[0] == pytest.approx(0.0, abs=1e-12) and miss[1] == 1.0
    kept, _ = _onset_certificate._neighbours(Swings(), np.array([0.15, 0.02]), [1.0, 0.0])
    assert len(kept) == 0
