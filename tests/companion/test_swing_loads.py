"""The chapter-3 additions to the swing-plane golfer: hand loads, branched runs, the
population, and the chapter's figures of a downswing.

Independent checks: the multiplier against the Tree twin's constrained dynamics, the
club body's angular momentum balance about its centre of mass, finite differences of
the centres of mass, a branched run against the unbranched one, and figure data against
the runs they draw (finite differences, the energy balance, the club's Newton equation).
The runs are under the torque generators with fixed onsets near the optimum.
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


ONSET = np.array([0.0, 0.03, 0.08])  # s: hub, shoulder, wrist
GENERATORS = models.swing_generators(ONSET)


@pytest.fixture(scope="module")
def run(golfer):
    return models.simulate_downswing(golfer, GENERATORS, t_max=0.3)


def states(run, every=20):
    """Stored states up to impact, every few steps: t, q, v and the joint torques."""
    k = np.arange(0, int(run.impact.step) + 1, every)
    t, q, v = run.trajectory.t[k], run.trajectory.q[k], run.trajectory.v[k]
    tau = run.generators(t[:, None], q, v) @ swing.INPUT_MATRIX.T
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
    k = int(run.impact.step) // 2
    q, v = run.trajectory.q[k], run.trajectory.v[k]
    B4 = np.eye(5)[:, [0, 1, 2, 4]]
    terms = golfer.constrained_terms(q, v)
    G = constraints.reduced_dynamics(terms.M, terms.J_c, terms.h, terms.gamma, B4).G
    null = np.linalg.svd(G)[2][-1]
    tau = swing.INPUT_MATRIX @ run.generators(run.trajectory.t[k], q, v)
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
    k = int(run.impact.step) // 2
    t_branch = run.trajectory.t[k]
    # the branch keeps the run's holding activations (hold=False: not re-solved there)
    shifted = models.swing_generators(ONSET - t_branch, hold=run.generators.hold)
    branch = models.simulate_downswing(
        golfer, shifted, q0=run.trajectory.q[k], v0=run.trajectory.v[k], t_max=0.3, hold=False
    )
    assert branch.impact.crossed
    assert abs(branch.impact.speed - run.impact.speed) < 1e-6
    assert abs(t_branch + branch.impact.time - run.impact.time) < 1e-9
    with pytest.raises(ValueError, match="v0"):
        models.simulate_downswing(golfer, shifted, q0=run.trajectory.q[k], v0=np.zeros(4))


def test_bad_inputs_of_the_new_functions_name_the_argument(golfer, run):
    q = golfer.top_of_backswing()
    with pytest.raises(TypeError, match="golfer"):
        models.grip_loads("golfer", q, np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError, match="tau"):
        models.grip_loads(golfer, q, np.zeros(5), np.zeros(3))
    with pytest.raises(ValueError, match="interval"):
        figures.swing_strobe_figure(golfer, run, interval=0.0)
    with pytest.raises(ValueError, match="interval"):
        figures.swing_animation(golfer, run, interval=-1.0)
    with pytest.raises(TypeError, match="animation"):
        figures.offline_animation_html("<html>")
    with pytest.raises(ValueError, match="speeds"):
        figures.impact_speed_histogram_figure([40.0, np.nan])
    with pytest.raises(ValueError, match="reference"):
        figures.impact_speed_histogram_figure([40.0], reference=-1.0)
    with pytest.raises(TypeError, match="^downswing: expected a Downswing"):
        figures.clubhead_speed_figure(golfer, run.trajectory)
    with pytest.raises(TypeError, match="^golfer: expected a SwingPlaneGolfer"):
        figures.swing_energy_figure(models.golfer(), run)
    short = models.simulate_downswing(golfer, GENERATORS, t_max=0.05)  # no impact yet
    for figure in (figures.swing_strobe_figure, figures.clubhead_speed_figure):
        with pytest.raises(ValueError, match="^downswing: expected a swing whose clubhead"):
            figure(golfer, short)
    with pytest.raises(TypeError, match="^generators: expected a SwingGenerators"):
        figures.grip_force_figure(golfer, run, (100.0, 60.0, 20.0))


def test_speed_figure_draws_the_run_and_the_published_band(golfer, run):
    fig = figures.clubhead_speed_figure(golfer, run)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    low, high = DATA["low_handicap_speed_range"].value
    band = ax.patches[0].get_extents()  # axhspan: a polygon from low to high
    data = ax.transData.inverted().transform(band)
    np.testing.assert_allclose(data[:, 1], [low, high], atol=1e-9)
    (tour,) = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert tour.get_ydata()[0] == DATA["tour_mean_clubhead_speed"].value
    (point,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    at_impact = [float(run.impact.time), float(run.impact.speed)]
    np.testing.assert_allclose(point.get_xydata()[0], at_impact, rtol=1e-12)
    # The curve: the face's speed at the stored steps up to impact, against central
    # differences of the face positions (second order in the 1 ms step).
    (curve,) = [line for line in ax.get_lines() if line.get_label().startswith("simulated")]
    t, speed = curve.get_xdata(), curve.get_ydata()
    k = int(run.impact.step)
    np.testing.assert_array_equal(t, run.trajectory.t[: k + 1])
    head = golfer.clubhead(run.trajectory.q[: k + 2])
    rate = np.linalg.norm(head[2:] - head[:-2], axis=-1) / (2 * run.trajectory.dt)
    assert np.abs(speed[1:] - rate).max() < 1e-3 * speed.max()
    assert t[-1] <= run.impact.time  # the impact lies after the last stored step shown


def test_energy_figure_follows_the_energy_balance(golfer, run):
    fig = figures.swing_energy_figure(golfer, run)
    top, bottom = fig.axes
    k = int(run.impact.step)
    work = {line.get_label(): line.get_ydata() for line in top.get_lines()}
    for j, name in enumerate(("hub", "lead shoulder", "lead wrist")):
        np.testing.assert_array_equal(work[f"{name} generator"], run.joint_work[: k + 1, j])
    drawn = {line.get_label(): line.get_ydata() for line in bottom.get_lines()}
    total = drawn["total kinetic"]
    # The body energies add up, and the work less the potential gained is the kinetic
    # energy gained (the run starts at rest): the energy balance, to the trapezoid rule's
    # error in the work.
    bodies = sum(drawn[name] for name in swing.BODY_NAMES)
    np.testing.assert_allclose(bodies, total, rtol=1e-12, atol=1e-12)
    assert np.abs(drawn[r"work $-\ \Delta V$"] - total).max() < 1e-3 * total.max()
    assert total[-1] > 100.0  # J: the check is of a swing, not of a standing golfer


def test_grip_figure_draws_the_hands_loads_of_the_runs_generators(golfer, run):
    fig = figures.grip_force_figure(golfer, run, run.generators)
    (ax,) = fig.axes
    drawn = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
    # The resultant on the club body is its mass times its centre's acceleration less
    # gravity: central differences of the club's centre along the run (1 ms step).
    k = int(run.impact.step)
    centre = golfer.body_centres(run.trajectory.q[: k + 2])[:, 2]
    acceleration = (centre[2:] - 2 * centre[1:-1] + centre[:-2]) / run.trajectory.dt**2
    newton = golfer.masses[2] * np.linalg.norm(acceleration - golfer.gravity, axis=-1)
    resultant = drawn["resultant $|f_L+f_T|$"]
    assert np.abs(resultant[1:] - newton).max() < 1e-2 * resultant.max()
    assert "squeeze $s$ (internal)" in drawn
    # Other generators than the run's are refused: their work along it differs.
    with pytest.raises(ValueError, match="^generators: expected the generators of the run"):
        figures.grip_force_figure(golfer, run, models.swing_generators(ONSET + 0.01))


def test_histogram_draws_the_given_speeds_and_the_reference():
    speeds = np.linspace(30.0, 45.0, 61)
    fig = figures.impact_speed_histogram_figure(speeds, reference=38.0)
    (ax,) = fig.axes
    assert sum(patch.get_height() for patch in ax.patches[1:]) == len(speeds)
    (line,) = [line for line in ax.get_lines() if line.get_label().startswith("stated")]
    assert line.get_xdata()[0] == 38.0
    bare = figures.impact_speed_histogram_figure(speeds)
    assert not [line for line in bare.axes[0].get_lines() if line.get_label().startswith("stated")]


def test_animation_has_a_frame_per_interval_and_the_impact_last(golfer, run):
    animation = figures.swing_animation(golfer, run, interval=0.05)
    frames = list(animation.new_frame_seq())
    assert len(frames) == len(range(0, int(run.impact.step) + 1, 50)) + 1
    html = figures.offline_animation_html(animation)
    assert html.count("data:image/png;base64,") == len(frames)  # every frame embedded
    assert "http" not in html and "fa fa-" not in html  # nothing fetched, no blank buttons
    assert "\u25b6" in html  # the play button's character
    assert animation._fig.axes[0].get_title().endswith("(impact)")
