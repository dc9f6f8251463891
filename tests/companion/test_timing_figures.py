"""The timing figures of chapter 3: the landscape of impact speed over the shoulder and
wrist onsets, the strobe of one choice of onsets with its score, and the onset explorer.

Independent checks: the landscape's contours against single runs at grid points, its
reach line against the optimum (a point on the constraint, found by the optimiser), the
explorer's scores against the miss of runs made here.  The optimum (``golf_optimum``,
conftest.py) takes about 15 s once per session: the tests that need it are slow.
"""

import re

import numpy as np
import pytest
from matplotlib.contour import ContourSet
from matplotlib.figure import Figure

from geomotion import figures, models, widgets


def onsets_run(golfer, onset, **options):
    """The generators at ``onset`` (s, hub first, shifted so the earliest is 0), with the
    run's holding activations, and their run."""
    onset = np.asarray(onset, dtype=float)
    generators = models.swing_generators(onset - onset.min())
    run = models.simulate_downswing(golfer, generators, dt=2e-3, **options)
    return run.generators, run


def heading(fig):
    return fig.get_suptitle()


# --- The strobe of given onsets, with its score (no optimum needed) ----------------------


def test_onset_figure_scores_a_swing_that_reaches_the_ball_and_not_one_that_misses(golf_swing):
    golfer = golf_swing.golfer
    # The fixed onsets' swing crosses the ball's line but misses it by millimetres (point
    # contact: the face centre judged to 1 mm).
    generators, run = onsets_run(golfer, [0.0, 0.03, 0.08], band=0.0)
    assert run.impact.crossed and not run.impact.reached
    text = heading(figures.onset_swing_figure(golfer, run, generators))
    assert text.startswith("shoulder 30.0 ms, wrist 80.0 ms after the hub")
    assert text.endswith("not scored")
    miss = float(re.search(r"passes ([\d.]+) mm (over|below)", text).group(1))
    assert miss == pytest.approx(1000 * abs(float(run.impact.miss)), abs=0.05)
    # The same swing with the ball moved onto the face's path reaches it: scored.
    ball = models.ball_at_address(golfer) + [0.0, float(run.impact.miss)]
    met = models.simulate_downswing(golfer, generators, ball=ball, dt=2e-3, band=0.0)
    assert met.impact.reached
    # (the figure draws the ball at address, but scores the run it is given)
    scored = heading(figures.onset_swing_figure(golfer, met, generators))
    assert "not scored" not in scored
    assert f"{float(met.impact.speed):.1f} m/s at impact" in scored


def test_onset_figure_of_a_swing_that_never_reaches_the_line(golf_swing):
    golfer = golf_swing.golfer
    generators, run = onsets_run(golfer, [0.0, 0.03, 0.08], t_max=0.1)
    assert not run.impact.crossed
    fig = figures.onset_swing_figure(golfer, run, generators)
    assert heading(fig).endswith("never reaches the ball's line: not scored")
    assert fig.axes[0].get_title().startswith("no impact")
    with pytest.raises(ValueError, match="^generators: expected one set of onsets"):
        figures.onset_swing_figure(golfer, run, models.swing_generators([[0, 0.03, 0.08]] * 2))
    with pytest.raises(ValueError, match="^generators: expected the generators of the run"):
        figures.onset_swing_figure(golfer, run, models.swing_generators([0.0, 0.04, 0.08]))


def test_onset_figure_names_the_onsets_after_the_hubs(golf_swing):
    """Onsets before the hub's: the run's clock starts at the shoulder, the heading still
    counts from the hub."""
    golfer = golf_swing.golfer
    generators, run = onsets_run(golfer, [0.0, -0.02, 0.05])
    np.testing.assert_allclose(generators.onset, [0.02, 0.0, 0.07], atol=1e-15)
    assert heading(figures.onset_swing_figure(golfer, run, generators)).startswith(
        "shoulder -20.0 ms, wrist 50.0 ms after the hub"
    )


# --- The landscape and the explorer (the optimum: slow) ---------------------------------


@pytest.fixture(scope="module")
def landscape(golf_optimum):
    fig = figures.timing_landscape_figure(golf_optimum.golfer, golf_optimum.optimum)
    return golf_optimum, fig


@pytest.mark.slow
def test_landscape_grid_contains_the_optimum_with_margin(golf_optimum):
    optimum = golf_optimum.optimum
    grid = figures.onset_grid(optimum)
    assert grid["shoulder"].shape == grid["wrist"].shape == (25,)
    for key, x in (("shoulder", optimum.onset[1]), ("wrist", optimum.onset[2])):
        assert grid[key][0] + 0.02 <= x <= grid[key][-1] - 0.02
    assert grid["shoulder"][0] <= 0.0 and grid["shoulder"][-1] >= 0.1
    assert grid["wrist"][0] <= 0.0 and grid["wrist"][-1] >= 0.2
    with pytest.raises(ValueError, match="count"):
        figures.onset_grid(optimum, count=1)


@pytest.mark.slow
def test_landscape_draws_speed_contours_the_reach_line_and_the_optimum(landscape):
    study, fig = landscape
    optimum = study.optimum
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert "(ms)" in ax.get_xlabel() and "(ms)" in ax.get_ylabel()
    filled, reach = [c for c in ax.collections if isinstance(c, ContourSet)]
    band = optimum.band
    assert filled.filled and not reach.filled and list(reach.levels) == [-band, band]
    # The filled levels span the speeds of single runs at grid corners and at the optimum.
    grid = figures.onset_grid(optimum)
    corners = [(grid["shoulder"][i], grid["wrist"][j]) for i in (0, -1) for j in (0, -1)]
    for shoulder, wrist in corners:
        impact = onsets_run(study.golfer, [0.0, shoulder, wrist])[1].impact
        assert impact.crossed
        assert filled.levels[0] <= impact.speed <= filled.levels[-1]
    # The star is the optimum, in ms; the crosses are the optima of the starts.
    (star,) = [line for line in ax.get_lines() if line.get_marker() == "*"]
    np.testing.assert_allclose(star.get_xydata()[0], 1000 * optimum.onset[1:], rtol=1e-12)
    (starts,) = [line for line in ax.get_lines() if line.get_marker() == "x"]
    np.testing.assert_allclose(starts.get_xydata(), 1000 * optimum.start_onsets, rtol=1e-12)
    # The optimum reaches the ball, so it lies on the reach line (to the grid's resolution:
    # the line is interpolated between grid points about 4 and 8 ms apart).
    edge = reach.get_paths()[[-band, band].index(optimum.edge)]  # the optimum's edge
    vertices = edge.vertices
    distance = np.linalg.norm(vertices - 1000 * optimum.onset[1:], axis=-1).min()
    cell = 1000 * max(np.diff(grid["shoulder"]).max(), np.diff(grid["wrist"]).max())
    assert distance < cell / 2  # ms: within half a cell of the interpolated edge
    # ... and a point on the line far from it reaches the ball too (a miss under 1 mm
    # away from the optimum's neighbourhood is the constraint, not an accident).
    far = vertices[np.argmax(np.linalg.norm(vertices - 1000 * optimum.onset[1:], axis=-1))]
    impact = onsets_run(study.golfer, [0.0, *far / 1000])[1].impact
    assert abs(impact.miss - optimum.edge) < 5e-3  # m: linear interpolation across a cell


@pytest.mark.slow
def test_landscape_takes_its_own_grid(golf_optimum):
    shoulder, wrist = np.linspace(0.0, 0.06, 4), np.linspace(0.04, 0.12, 3)
    fig = figures.timing_landscape_figure(
        golf_optimum.golfer, golf_optimum.optimum, shoulder=shoulder, wrist=wrist
    )
    filled = [c for c in fig.axes[0].collections if isinstance(c, ContourSet)][0]
    assert filled.filled
    with pytest.raises(ValueError, match="^shoulder: expected at least two increasing"):
        figures.timing_landscape_figure(golf_optimum.golfer, golf_optimum.optimum, shoulder=[0.1])
    with pytest.raises(TypeError, match="^optimum: expected a TimingOptimum"):
        figures.timing_landscape_figure(golf_optimum.golfer, "optimum")


@pytest.mark.slow
def test_onset_explorer_starts_at_the_optimum_and_scores_each_choice(golf_optimum, monkeypatch):
    golfer, optimum = golf_optimum.golfer, golf_optimum.optimum
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)
    explorer = widgets.onset_explorer(golfer, optimum)
    shoulder, wrist = explorer.children[:2]
    assert (shoulder.value, wrist.value) == pytest.approx(tuple(1000 * optimum.onset[1:]))
    grid = figures.onset_grid(optimum)
    assert (shoulder.min, shoulder.max) == pytest.approx((1000 * grid["shoulder"][[0, -1]]))
    assert (wrist.min, wrist.max) == pytest.approx((1000 * grid["wrist"][[0, -1]]))
    # The default view: the optimum's swing, which reaches the ball at its speed.
    (first,) = shown
    assert "not scored" not in heading(first)
    assert f"{optimum.speed:.1f} m/s at impact" in heading(first)
    # Onsets whose swing misses (found by a run here): the explorer says so.
    late = [0.0, optimum.onset[1], optimum.onset[2] + 0.04]
    impact = onsets_run(golfer, late)[1].impact
    assert impact.crossed and abs(impact.miss) > 1e-3
    wrist.value = 1000 * late[2]
    assert len(shown) == 2
    assert heading(shown[1]).endswith("not scored")
    assert f"{1000 * abs(float(impact.miss)):.1f} mm" in heading(shown[1])
