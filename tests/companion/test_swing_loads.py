"""The chapter-3 additions to the swing-plane golfer: hand loads, branched runs, the
population, and the chapter's figures and explorer.

Independent checks: the multiplier against the Tree twin's constrained dynamics, the
club body's angular momentum balance about its centre of mass, finite differences of
the centres of mass, a branched run against the unbranched one, and figure data against
the runs they draw.
"""

import numpy as np
import pytest
from matplotlib.figure import Figure

from geomotion import constraints, figures, models, tree
from geomotion.models import swing
from geomotion.models.golf_data import DATA


@pytest.fixture(scope="module")
def golfer():
    return swing.swing_plane_golfer()


@pytest.fixture(scope="module")
def run(golfer):
    return models.simulate_downswing(golfer, models.SwingTorques(), t_max=0.3)


def states(run, every=20):
    """Stored states up to impact, every few steps: t, q, v and the joint torques."""
    k = np.arange(0, int(run.impact_step) + 1, every)
    t, q, v = run.trajectory.t[k], run.trajectory.q[k], run.trajectory.v[k]
    tau = models.SwingTorques()(t[:, None], q, v) @ swing.INPUT_MATRIX.T
    return k, q, v, tau


def test_grip_multiplier_is_the_tree_twins(golfer, run):
    """The particle-sum multiplier against the Tree and loop_closure route."""
    k, q, v, tau = states(run)
    loads = models.grip_loads(golfer, q, v, tau)
    model, closure = golfer.model, golfer.tree_closure()
    twin = constraints.constrained_dynamics(
        tree.crba(model, q),
        closure.jacobian(q),
        tree.bias_forces(model, q, v),
        closure.acceleration_bias(q, v),
        tau,
    )
    np.testing.assert_allclose(loads.multiplier, twin.multiplier, atol=1e-9)
    np.testing.assert_allclose(loads.acceleration, twin.a, atol=1e-9)
    # ... and the reaction the integrator applied at those steps.
    np.testing.assert_allclose(loads.multiplier, run.trajectory.multiplier[k], atol=1e-9)


def test_hand_loads_balance_the_club_bodys_angular_momentum(golfer, run):
    _, q, v, tau = states(run)
    loads = models.grip_loads(golfer, q, v, tau)
    c = golfer.body_centres(q)[:, 2]

    def moment(point, force):
        r = golfer.point(q, point) - c
        return r[:, 0] * force[:, 1] - r[:, 1] * force[:, 0]

    spin = golfer.inertias[2] * loads.acceleration[:, :3].sum(-1)
    applied = (
        tau[:, 2]
        + moment("lead wrist", loads.lead_force)
        + moment("trail grip on club", loads.trail_force)
    )
    np.testing.assert_allclose(spin, applied, atol=1e-9)
    np.testing.assert_allclose(loads.lead_force + loads.trail_force, loads.resultant_force)
    assert np.abs(loads.trail_force).max() > 10.0  # the check has loads to balance


def test_a_null_input_changes_the_squeeze_not_the_motion(golfer, run):
    """A trail-elbow torque with the hub, shoulder and wrist torques that cancel its motion."""
    k = int(run.impact_step) // 2
    q, v = run.trajectory.q[k], run.trajectory.v[k]
    B4 = np.eye(5)[:, [0, 1, 2, 4]]
    terms = golfer.constrained_terms(q, v)
    G = constraints.reduced_dynamics(terms.M, terms.J_c, terms.h, terms.gamma, B4).G
    null = np.linalg.svd(G)[2][-1]
    tau = swing.INPUT_MATRIX @ models.SwingTorques()(run.trajectory.t[k], q, v)
    before = models.grip_loads(golfer, q, v, tau)
    after = models.grip_loads(golfer, q, v, tau + B4 @ (10.0 * null / null[3]))
    np.testing.assert_allclose(after.acceleration, before.acceleration, atol=1e-9)
    np.testing.assert_allclose(after.resultant_force, before.resultant_force, atol=1e-9)
    line = golfer.point(q, "trail grip on club") - golfer.point(q, "lead wrist")
    e = line / np.linalg.norm(line)
    change = after.lead_force - before.lead_force
    np.testing.assert_allclose(after.squeeze - before.squeeze, change @ e, atol=1e-9)
    assert abs(after.squeeze - before.squeeze) > 1.0


def test_centre_velocities_are_the_rate_of_the_centres(golfer):
    rng = np.random.default_rng(5)
    q, v = rng.uniform(-2, 2, 5), rng.uniform(-5, 5, 5)
    h = 1e-6
    rate = (golfer.body_centres(q + h * v) - golfer.body_centres(q - h * v)) / (2 * h)
    np.testing.assert_allclose(golfer.body_centre_velocities(q, v), rate, atol=1e-8)
    masses = golfer.masses[:, None]
    potential = -(masses * golfer.body_centres(q) @ golfer.gravity).sum()
    np.testing.assert_allclose(potential, golfer.potential(q), rtol=1e-12)


def test_a_branched_run_continues_the_unbranched_one(golfer, run):
    k = int(run.impact_step) // 2
    t_branch = run.trajectory.t[k]
    shifted = models.SwingTorques(onset=np.zeros(3) - t_branch)
    branch = models.simulate_downswing(
        golfer, shifted, q0=run.trajectory.q[k], v0=run.trajectory.v[k], t_max=0.3
    )
    assert abs(branch.clubhead_speed - run.clubhead_speed) < 1e-6
    assert abs(t_branch + branch.impact_time - run.impact_time) < 1e-9
    with pytest.raises(ValueError, match="v0"):
        models.simulate_downswing(golfer, shifted, q0=run.trajectory.q[k], v0=np.zeros(4))


def test_population_draws_within_its_ranges_and_repeats_with_its_seed():
    population = swing.swing_population(200, rng=11)
    assert population.batch_shape == (200,)
    club = population.parameters["club"]
    for name in ("shaft_mass", "grip_mass", "head_mass", "length"):
        low, high = swing.POPULATION_RANGES[name]
        values = club.parts[name]
        assert low <= values.min() and values.max() <= high
        assert values.max() - values.min() > 0.8 * (high - low)  # the range is used
    assert swing.POPULATION_RANGES["head_mass"] == (0.174, DATA["head_mass"].value)
    scales = population.parameters["segment_scales"]
    assert set(scales) == set(swing._SCALABLE)
    assert all(0.95 <= s.min() and s.max() <= 1.05 for s in scales.values())
    sexes = population.parameters["sex"]
    assert {"male", "female"} == set(sexes)
    again = swing.swing_population(200, rng=11)
    np.testing.assert_array_equal(again.masses, population.masses)
    by_generator = swing.swing_population(200, rng=np.random.default_rng(11))
    np.testing.assert_array_equal(by_generator.masses, population.masses)
    heavy = swing.swing_population(200, rng=11, head_mass=0.2)
    np.testing.assert_array_equal(heavy.parameters["club"].parts["head_mass"], 0.2)
    np.testing.assert_array_equal(heavy.parameters["club"].parts["length"], club.parts["length"])
    np.testing.assert_array_equal(heavy.masses[:, :2], population.masses[:, :2])
    assert not np.array_equal(heavy.masses[:, 2], population.masses[:, 2])


def test_bad_inputs_of_the_new_functions_name_the_argument(golfer):
    q = golfer.top_of_backswing()
    with pytest.raises(TypeError, match="golfer"):
        models.grip_loads("golfer", q, np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError, match="tau"):
        models.grip_loads(golfer, q, np.zeros(5), np.zeros(3))
    with pytest.raises(ValueError, match="count"):
        swing.swing_population(0)
    with pytest.raises(TypeError, match="count"):
        swing.swing_population(2.0)
    with pytest.raises(ValueError, match="head_mass"):
        swing.swing_population(3, head_mass=-0.2)
    with pytest.raises(ValueError, match="interval"):
        figures.swing_strobe_figure(interval=0.0)
    with pytest.raises(ValueError, match="interval"):
        figures.swing_animation(interval=-1.0)
    with pytest.raises(TypeError, match="animation"):
        figures.offline_animation_html("<html>")
    with pytest.raises(ValueError, match="speeds"):
        figures.impact_speed_histogram_figure(speeds=[40.0, np.nan])


def test_speed_figure_draws_the_runs_and_the_published_band(golfer, run):
    fig = figures.clubhead_speed_figure()
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    low, high = DATA["low_handicap_speed_range"].value
    band = ax.patches[0].get_extents()  # axhspan: a polygon from low to high
    data = ax.transData.inverted().transform(band)
    np.testing.assert_allclose(data[:, 1], [low, high], atol=1e-9)
    impact_points = [line.get_ydata()[0] for line in ax.get_lines() if line.get_marker() == "o"]
    off = models.simulate_downswing(golfer, models.SwingTorques(peak=(100.0, 60.0, 0.0)))
    np.testing.assert_allclose(impact_points, [run.clubhead_speed, off.clubhead_speed], rtol=1e-12)


def test_wrist_timing_figure_grid_and_single_runs_agree():
    grid = figures.wrist_timing_figure(wrist_onset=30.0, head_mass=0.190)
    golfer = swing.swing_plane_golfer(club=models.driver(head_mass=0.190))
    alone = models.simulate_downswing(
        golfer, models.SwingTorques(wrist_onset_angle=np.radians(30.0))
    )
    (point,) = [line for line in grid.axes[0].get_lines() if line.get_marker() == "o"]
    np.testing.assert_allclose(point.get_ydata()[0], alone.clubhead_speed, rtol=1e-9)
    off_grid = figures.wrist_timing_figure(wrist_onset=25.0, head_mass=0.19)
    assert "25 deg" in off_grid.axes[0].get_title()


def test_animation_has_a_frame_per_interval_and_the_impact_last():
    animation = figures.swing_animation(interval=0.05)
    frames = list(animation.new_frame_seq())
    _, _, run = figures.golf._downswing()
    assert len(frames) == len(range(0, int(run.impact_step) + 1, 50)) + 1
    html = figures.offline_animation_html(animation)
    assert html.count("data:image/png;base64,") == len(frames)  # every frame embedded
    assert "http" not in html and "fa fa-" not in html  # nothing fetched, no blank buttons
    assert "\u25b6" in html  # the play button's character
    assert animation._fig.axes[0].get_title().endswith("(impact)")


def test_energy_and_grip_figures_are_drawn_from_the_run():
    energy = figures.swing_energy_figure()
    _, _, run = figures.golf._downswing()
    k = int(run.impact_step)
    total = [line for line in energy.axes[1].get_lines() if line.get_label() == "total kinetic"]
    np.testing.assert_allclose(total[0].get_ydata()[-1], run.body_kinetic[k].sum())
    grip = figures.grip_force_figure()
    labels = [line.get_label() for line in grip.axes[0].get_lines()]
    assert any("squeeze" in label for label in labels)
    strobe = figures.swing_strobe_figure()
    assert f"{float(run.impact_time):.3f} s" in strobe.axes[0].get_title()


def test_wrist_timing_explorer_has_a_frame_per_grid_point(explorer_build):
    html = explorer_build("wrist_timing_explorer").bundle["text/html"]  # drawn once (conftest)
    grid = figures.TIMING_GRID
    assert html.count('type="range"') == len(grid)
    assert "Wrist-timing explorer" in html
