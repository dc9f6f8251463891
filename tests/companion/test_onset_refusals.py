"""Why optimise_onsets refused golfers of the population, and the defects that made it.

Each case is a golfer of the population's draw (``draw_golfers(200)``, seed 2026) that the
run of 7ea4fc8 refused, or a constructed case.  Every claim is checked against runs of the
simulation made here (re-runs of the returned onsets, steps along the reach constraint),
not against the optimiser's own certificate.
"""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from geomotion import ConvergenceError, models
from geomotion.models import _population, _timing


@pytest.fixture(scope="module")
def draws():
    """The draw as that run had it: the hub's maximum rate at its default, 30 rad/s (the
    population has varied it since, from a stream of its own)."""
    return [dataclasses.replace(d, hub_max_velocity=30.0) for d in models.draw_golfers(200)]


def _optimise(draw):
    """optimise_onsets as optimise_golfer calls it."""
    return _timing.optimise_onsets(
        draw.golfer(),
        ball=draw.ball(),
        top=draw.top(),
        dt=_population._DT,
        band=draw.impact_band,
        **draw.generator_options(),
    )


def _swings(draw):
    """The draw's swings, run in batches (speed, miss and their differences)."""
    golfer = draw.golfer()
    return _timing._Swings(
        golfer,
        True,
        draw.generator_options(),
        draw.ball(),
        _population._DT,
        golfer.top_of_backswing(**draw.top()),
        band=draw.impact_band,
    )


def _rerun(draw, optimum):
    """The returned onsets run again alone: (crossed, speed, miss)."""
    generators = models.swing_generators(
        optimum.onset - optimum.onset.min(), **draw.generator_options()
    )
    golfer = draw.golfer()
    impact = models.simulate_downswing(
        golfer,
        generators,
        ball=draw.ball(),
        q0=golfer.top_of_backswing(**draw.top()),
        dt=_population._DT,
        band=draw.impact_band,
    ).impact
    return bool(impact.crossed), float(impact.speed), float(impact.miss)


def _along_the_edge(swings, x, edge, delta):
    """The swing ``delta`` s from x along the edge's tangent, moved back onto the edge by
    Newton steps along the miss's gradient: its speed and miss from the edge."""
    swings = swings.shifted(edge)
    dm = swings.values_and_gradients(x)[3]
    y = x + delta * np.array([dm[1], -dm[0]]) / np.linalg.norm(dm)
    for _ in range(10):
        _, miss, _, dm_y = swings.values_and_gradients(y)
        y = y - miss * dm_y / (dm_y @ dm_y)
    return swings.values_and_gradients(y)[:2]


def _check_reaching_maximum(draw, optimum):
    """The optimum, run again, reaches the band at its speed, and no reaching swing 2 ms
    either side of it (along its edge, or along each onset inside the band) is faster."""
    crossed, speed, miss = _rerun(draw, optimum)
    assert crossed and abs(miss) <= draw.impact_band + 1e-4
    assert speed == pytest.approx(optimum.speed, abs=1e-6)
    swings, x = _swings(draw), optimum.onset[1:]
    if optimum.edge is not None:
        for delta in (-2e-3, 2e-3):
            other, off = _along_the_edge(swings, x, optimum.edge, delta)
            assert abs(off) < 1e-6
            assert other < optimum.speed
    else:
        steps = 2e-3 * np.vstack([np.eye(2), -np.eye(2)])
        speeds, misses = swings.speed_and_miss(x + steps)
        assert np.all((speeds < optimum.speed) | (np.abs(misses) > draw.impact_band))


@pytest.mark.slow
def test_slsqp_over_onsets_in_tenths_of_a_second_reaches_the_band(draws):
    """Golfer 92: the 20 ms grid brackets reaching swings, but SLSQP over the onsets in
    seconds took its first step to the wrist's bound (0.3 s, 280 mm over the ball) and
    ended 55 mm beyond the band after its 20 iterations: "no reaching swing".  Over onsets
    in units of 0.1 s its first step is of the optimum's scale, and it reaches."""
    draw = draws[92]
    assert draw.index == 92
    optimum = _optimise(draw)
    _check_reaching_maximum(draw, optimum)
    # the fixed search beats the grid's fastest bracketed swing, as the certificate asks
    assert optimum.speed >= optimum.grid_speed - 0.1


@pytest.mark.slow
def test_an_answer_that_still_climbs_is_polished_before_it_is_certified(draws):
    """Golfer 8: SLSQP stopped by its ftol (a step gaining less than 5 mm/s) inside the
    band, 3 mm below the face centre with the speed's gradient at 4.5 (m/s)/s; taken for
    a climb towards an edge, the answer was moved 13 mm onto the band's upper edge, where
    the speed still rose 16 (m/s)/s along it: "certificate failed".  Polished by SLSQP
    from there, it is a maximum inside the band."""
    draw = draws[8]
    optimum = _optimise(draw)
    assert optimum.edge is None and optimum.multiplier == 0.0
    _check_reaching_maximum(draw, optimum)


class _Paraboloid(_timing._Swings):
    """Constructed swings: the speed a paraboloid with its maximum, 40 m/s, at onsets
    (50, 100) ms, with a ripple of 1e-6 m/s (the simulated speed's noise floor) and
    ``step`` m/s more beyond a shoulder onset of 50.15 ms; the miss 10 mm per 1 s of
    shoulder onset, 0 at the maximum, inside a 20 mm band."""

    def __init__(self, step=0.0):
        # a step of 2.4 ms puts no stage time (a multiple of 1.2 ms) within 0.2 ms of x
        super().__init__(None, True, {}, np.zeros(2), 2.4e-3, band=0.02)
        self.step = step

    def speed_and_miss(self, X):
        X = np.atleast_2d(X)
        speed = 40.0 - 500.0 * ((X[:, 0] - 0.05) ** 2 + (X[:, 1] - 0.1) ** 2)
        speed = speed + 1e-6 * np.sin(X[:, 0] / 7e-6) + self.step * (X[:, 0] > 0.05015)
        return speed, 0.01 * (X[:, 0] - 0.05) - self.offset


def test_an_interior_maximum_is_certified_where_its_gradient_vanishes():
    """At an interior maximum the central differences give a gradient of the noise's
    size (here up to 1e-2 (m/s)/s), and their difference between steps over that
    gradient's norm is noise over noise: the check refused every well-converged interior
    optimum.  Held against the slope bound instead, it passes; a gradient that a jump of
    the speed inside the difference step changes by 0.5 (m/s)/s is still refused."""
    from geomotion.models import _onset_certificate

    x = np.array([0.05, 0.1])
    certificate = _onset_certificate._certified_band(_Paraboloid(), x, 40.0)
    assert certificate["edge"] is None and certificate["kink"] is None
    assert certificate["speed"] == pytest.approx(40.0, abs=1e-6)
    assert certificate["gradient_error"] < 5e-2 and certificate["tangent_slope"] < 1e-2
    # a 0.2 mm/s jump 0.15 ms from x: inside the 0.2 ms step (2e-4 m/s over 0.4 ms, a
    # difference of 0.5 (m/s)/s), outside the 0.1 ms one (0)
    with pytest.raises(
        ConvergenceError, match="certificate \\(gradient error 0.5 of 0.05; not smooth\\)"
    ):
        _onset_certificate._certified_band(_Paraboloid(step=2e-4), x, 40.0)


@pytest.mark.slow
def test_a_kink_beside_the_maximum_is_not_taken_for_it(draws):
    """Golfer 55: SLSQP's answer lies 0.9 ms from the line where the shoulder and the
    wrist tie for first (before the hub), so its neighbours 1 ms along the constraint
    straddle that kink, and the answer was moved onto it; but the maximum lies on the
    smooth piece beside the kink, and from the kink the speed still rose 2.4 (m/s)/s
    towards it: "certificate failed".  Where the kink fails its certificate, the answer
    beside it is certified as a smooth maximum."""
    draw = draws[55]
    optimum = _optimise(draw)
    assert optimum.kink is None and optimum.edge is not None
    _check_reaching_maximum(draw, optimum)
    # the tie on the same edge, found here: onsets (t, t), Newton steps in t
    swings = _swings(draw).shifted(optimum.edge)
    tie = np.full(2, optimum.onset[1])
    for _ in range(5):
        _, miss, _, dm = swings.values_and_gradients(tie)
        tie -= miss / dm.sum()
    speed, miss = swings.values_and_gradients(tie)[:2]
    assert abs(miss) < 1e-6 and tie[0] < 0.0  # both before the hub
    assert speed < optimum.speed - 1e-3


@pytest.mark.slow
def test_an_unreachable_ball_is_refused_with_its_lowest_pass(draws):
    """Golfer 5: no swing over the onset box passes within its 8.9 mm band.  The refusal
    names the lowest pass its search found, 29 mm over the ball's centre; no swing of an
    independent 10 ms grid over the box passes within the band, and the lowest of them
    passes within 1 mm of the search's."""
    draw = draws[5]
    with pytest.raises(ConvergenceError) as refused:
        _optimise(draw)
    error = refused.value
    assert error.reason == "unreachable" and not error.reaching
    assert draw.impact_band + 0.015 < error.lowest_pass < 0.035
    grid = np.linspace(-0.1, 0.3, 41)
    S, W = np.meshgrid(grid, grid, indexing="ij")
    impact = _swings(draw).run(np.column_stack([S.ravel(), W.ravel()]))
    crossing = np.asarray(impact.miss)[np.asarray(impact.crossed)]
    assert crossing.size > 800  # most of the box crosses the ball's line
    assert crossing.min() > draw.impact_band and error.lowest_pass > draw.impact_band
    assert abs(crossing.min() - error.lowest_pass) < 1e-3


@pytest.mark.slow
def test_a_reaching_island_between_grid_points_is_found(draws):
    """Golfer 110: the swings that pass within its 3.5 mm band form an island a few ms
    wide, between the 20 ms grid's points, and no grid pair brackets it: "no reaching
    swing".  The lowest-pass search (zooming grids from the grid's nearest passes) finds
    the island and SLSQP the fastest swing on its edge."""
    draw = draws[110]
    swings = _swings(draw)
    grid = np.linspace(-0.1, 0.3, 21)
    S, W = np.meshgrid(grid, grid, indexing="ij")
    impact = swings.run(np.column_stack([S.ravel(), W.ravel()])).reshaped(S.shape)
    miss = np.where(impact.crossed, impact.miss, np.nan)
    assert np.nanmin(np.abs(miss)) > draw.impact_band  # no grid swing inside the band
    for level in (-draw.impact_band, draw.impact_band):  # and no bracket along the wrist
        assert not np.isfinite(_timing.bracket_reaching(impact, grid, level=level).fastest)
    optimum = _optimise(draw)
    _check_reaching_maximum(draw, optimum)


@pytest.mark.slow
def test_an_answer_on_a_stage_kink_is_refused_as_one(draws):
    """Golfer 28: the answer's shoulder onset lies 0.06 ms from a stage time of the
    fixed-step integrator (1 ms apart on the run's clock, which starts at the hub's
    onset): the speed's slope along the shoulder onset jumps there, so the central
    differences at 0.2 and 0.1 ms disagree and the smooth certificate cannot hold.  The
    refusal says so; the jump is measured here by a 0.1 ms scan."""
    draw = draws[28]
    with pytest.raises(ConvergenceError) as refused:
        _optimise(draw)
    assert refused.value.reason == "stage kink" and refused.value.reaching
    shoulder, wrist = (float(v) for v in str(refused.value).split("[")[1].split("]")[0].split(","))
    assert 0.0 < shoulder and 0.0 < wrist  # the hub first: the clock starts at 0
    stage = round(shoulder / 1e-3) * 1e-3  # the nearest multiple of dt/2
    assert abs(shoulder - stage) < 2e-4
    scan = stage + np.arange(-0.9, 1.0, 0.1) * 1e-3
    speed, _ = _swings(draw).speed_and_miss(np.column_stack([scan, np.full(scan.size, wrist)]))
    slope = np.diff(speed) / 1e-4
    before, after = slope[:8], slope[10:]  # pieces each side of the stage time
    assert np.ptp(before) < 1.0 and np.ptp(after) < 1.0  # smooth on each piece
    assert abs(np.mean(after) - np.mean(before)) > 3.0  # (m/s)/s: the kink


@pytest.mark.slow
def test_an_answer_beside_a_lost_crossing_is_refused_as_one(draws):
    """Golfer 31: its reaching swings form an island (its lowest pass 4.6 mm under a
    6.6 mm band) that the 20 ms grid missed and the lowest-pass search finds; SLSQP's
    answer on it lies within the difference step (0.2 ms) of onsets whose clubhead never
    crosses the ball's line, where the miss and the speed jump: the gradients are void
    and no certificate can hold.  Checked here: one of the four swings 0.2 ms from the
    refused onsets, run alone, has no impact."""
    draw = draws[31]
    with pytest.raises(ConvergenceError) as refused:
        _optimise(draw)
    assert refused.value.reason == "crossing lost" and refused.value.reaching
    x = np.array([float(v) for v in str(refused.value).split("[")[1].split("]")[0].split(",")])
    crossed = []
    for step in 2e-4 * np.vstack([np.eye(2), -np.eye(2)]):
        onset = np.array([0.0, *(x + step)])
        optimum = SimpleNamespace(onset=onset, speed=None)
        crossed.append(_rerun(draw, optimum)[0])
    assert not all(crossed)
    crossing = SimpleNamespace(onset=np.array([0.0, *x]), speed=None)
    hit, _, miss = _rerun(draw, crossing)
    assert hit and abs(miss) <= draw.impact_band + 1e-4  # the answer itself reaches


@pytest.mark.parametrize(
    ("stencil_speed", "reason"), [(30.0, "not smooth"), (0.0, "crossing lost")]
)
def test_an_undefined_miss_gradient_is_refused_not_followed(stencil_speed, reason):
    """Where the miss has no gradient (a NaN or zero difference), the constraint has no
    tangent: the neighbours along it cannot be found, and the answer is refused with its
    reason instead of NaN onsets reaching the simulation (a population golfer of the
    hub-rate run crashed the study that way)."""
    from geomotion.models import _onset_certificate as certificate

    swings = SimpleNamespace(
        dt=2e-3,
        speed_and_miss=lambda Y: (np.full(len(Y), stencil_speed), np.zeros(len(Y))),
    )
    for dm in (np.array([np.nan, np.nan]), np.zeros(2)):
        with pytest.raises(certificate.OnsetRefusal) as refused:
            certificate._neighbours(swings, np.array([0.05, 0.05]), dm)
        assert refused.value.reason == reason and refused.value.reaching
