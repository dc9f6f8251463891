r"""Chapter 3 figures: the swing-plane golfer's downswing (:mod:`geomotion.models.swing`).

Every figure simulates the stated golfer (:func:`geomotion.models.swing_plane_golfer`
with its defaults) under the declared torques (:class:`geomotion.models.SwingTorques`)
by :func:`geomotion.models.simulate_downswing`; the runs are cached for the process, so
the chapter's figures share one simulation of each swing.  Published values drawn for
comparison come from :data:`geomotion.models.golf_data.DATA`, never typed in here.
"""

import base64
import functools
import io
import re

import numpy as np
from matplotlib.animation import Animation, FuncAnimation
from matplotlib.patches import Rectangle
from PIL import Image

from .. import contact, models
from ..models.golf_data import DATA
from ..models.swing import INPUT_MATRIX
from ._style import (
    ACCENT,
    BOOK_WIDTH,
    ENERGY,
    FORCE,
    MOTION,
    SECOND,
    fmt,
    new_figure,
    style_context,
)

__all__ = [
    "TIMING_GRID",
    "swing_strobe_figure",
    "clubhead_speed_figure",
    "swing_energy_figure",
    "grip_force_figure",
    "impact_speed_histogram_figure",
    "wrist_timing_figure",
    "swing_animation",
    "offline_animation_html",
    "ground_reaction_figure",
]

#: Slider positions of the wrist-timing explorer: the lead arm's angle below the
#: horizontal at which the wrist torque switches on (degrees; -30 is the top of the
#: backswing) and the head mass (kg: MacKenzie et al.'s 174 and 190 g, the measured 204 g).
TIMING_GRID = {
    "wrist_onset": (-30.0, 0.0, 30.0, 60.0),
    "head_mass": (0.174, 0.190, 0.204),
}

_BODY_COLOURS = (ACCENT, MOTION, FORCE, SECOND, SECOND)


@functools.lru_cache(maxsize=4)
def _downswing(wrist_peak=20.0):
    """The stated golfer's downswing (default torques, the wrist peak given), cached."""
    golfer = models.swing_plane_golfer()
    torques = models.SwingTorques(peak=(100.0, 60.0, wrist_peak))
    return golfer, torques, models.simulate_downswing(golfer, torques)


@functools.lru_cache(maxsize=1)
def _timing_runs():
    """Impact speed and trajectories over ``TIMING_GRID`` (one batched run), cached."""
    onsets, heads = np.meshgrid(TIMING_GRID["wrist_onset"], TIMING_GRID["head_mass"], indexing="ij")
    golfer = models.swing_plane_golfer(club=models.driver(head_mass=heads.ravel()))
    torques = models.SwingTorques(
        peak=np.tile([100.0, 60.0, 20.0], (onsets.size, 1)),
        wrist_onset_angle=np.radians(onsets.ravel()),
    )
    return golfer, models.simulate_downswing(golfer, torques)


@functools.lru_cache(maxsize=1)
def _population_speeds(count=1000):
    """Impact speeds of ``swing_population(count)`` under the declared torques, 2 ms step."""
    population = models.swing_population(count)
    torques = models.SwingTorques(peak=np.tile([100.0, 60.0, 20.0], (count, 1)))
    return models.simulate_downswing(population, torques, dt=2e-3).clubhead_speed


def _sampled_downswing(interval):
    """The stated golfer's downswing every ``interval`` s from the top, then at impact.

    Returns the golfer, the run, the times (s) and the postures (rad), the last of each
    the interpolated impact.
    """
    if not interval > 0:
        raise ValueError(f"interval: expected a positive time in s, got {interval!r}")
    golfer, _, run = _downswing()
    trajectory = run.trajectory
    steps = np.arange(0, int(run.impact_step) + 1, max(1, int(round(interval / trajectory.dt))))
    times = [trajectory.t[k] for k in steps] + [float(run.impact_time)]
    postures = [trajectory.q[k] for k in steps] + [run.q_impact]
    return golfer, run, times, postures


def _stick(golfer, q):
    """Polylines (trunk bar, lead arm and club, trail arm) of one posture, plane coordinates."""
    point = lambda name: golfer.point(q, name)  # noqa: E731
    return [
        np.array([point("trail shoulder"), [0.0, 0.0], point("lead shoulder")]),
        np.array([point("lead shoulder"), point("lead wrist")]),
        np.array([point("lead wrist"), point("clubhead")]),
        np.array([point("trail shoulder"), point("trail elbow"), point("trail hand tip")]),
    ]


_PART_COLOURS = (ACCENT, MOTION, FORCE, SECOND)
_PART_LABELS = ("trunk bar", "lead arm", "club", "trail arm")


def _draw_posture(ax, golfer, q, alpha=1.0, linewidth=1.2):
    for line, colour in zip(_stick(golfer, q), _PART_COLOURS):
        ax.plot(*line.T, color=colour, alpha=alpha, linewidth=linewidth, solid_capstyle="round")


def _plane_axes(ax, golfer):
    ax.plot(*golfer.ball, "o", color="black", markersize=4, label="ball")
    ax.plot(0.0, 0.0, "+", color="black", markersize=8, label="hub axis")
    ax.set_aspect("equal")
    ax.set_xlabel("X, towards the target (m)")
    ax.set_ylabel("Y, up the swing plane (m)")


def swing_strobe_figure(*, interval=0.03):
    r"""Figure: a stroboscopic stick figure of the stated golfer's downswing.

    Postures of :func:`geomotion.models.simulate_downswing` every ``interval`` seconds
    from the top of the backswing, fading in with time, and the impact posture in full
    (interpolated at the impact time located by equation :eq:`eq-ch3-impact`).  Trunk bar grey, lead arm blue, club red,
    trail arm purple; the plane coordinates of :mod:`geomotion.models.swing`.  Left the
    whole swing; right the same postures near the hub, enlarged (the dashed box on the
    left), where the trunk and both arms turn within half a metre of the hub axis.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    interval : float
        Time between drawn postures, s, positive.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``interval`` is not positive.
    """
    golfer, run, times, postures = _sampled_downswing(interval)
    before = postures[:-1]
    sticks = [_stick(golfer, q) for q in postures]
    everything = np.concatenate([np.concatenate(stick) for stick in sticks] + [golfer.ball[None]])
    # The box near the hub: the trunk bar, both arms and the lead wrist in every posture.
    body = np.concatenate([np.concatenate([s[0], s[1], s[3]]) for s in sticks])
    low, high = body.min(axis=0) - 0.06, body.max(axis=0) + 0.06
    whole_span = everything.max(axis=0) - everything.min(axis=0) + 0.2
    near_span = high - low
    with style_context():
        fig = new_figure((BOOK_WIDTH, 4.6))
        whole, near = fig.subplots(
            1,
            2,
            width_ratios=(whole_span[0] / whole_span[1], near_span[0] / near_span[1]),
        )
        for ax, width in ((whole, 1.2), (near, 1.6)):
            for i, q in enumerate(before):
                _draw_posture(ax, golfer, q, alpha=0.25 + 0.5 * i / len(before), linewidth=width)
            _draw_posture(ax, golfer, postures[-1], linewidth=2.2 if ax is whole else 2.8)
            _plane_axes(ax, golfer)
        whole.set_xlim(everything[:, 0].min() - 0.1, everything[:, 0].max() + 0.1)
        whole.set_ylim(everything[:, 1].min() - 0.1, everything[:, 1].max() + 0.1)
        whole.add_patch(
            Rectangle(low, *near_span, fill=False, edgecolor="black", linestyle="--", linewidth=0.8)
        )
        near.set_xlim(low[0], high[0])
        near.set_ylim(low[1], high[1])
        near.set_xlabel("X (m)")
        near.set_ylabel("Y (m)")
        whole.set_title(f"impact at {fmt(float(run.impact_time), '.3f')} s (bold)")
        near.set_title("near the hub (dashed box), enlarged")
        fig.suptitle(f"Downswing every {fmt(1000 * interval, '.0f')} ms")
        for colour, label in zip(_PART_COLOURS, _PART_LABELS):
            whole.plot([], [], color=colour, label=label)
        fig.legend(*whole.get_legend_handles_labels(), loc="outside lower center", ncol=3)
    return fig


def _speed_band(ax):
    low, high = DATA["low_handicap_speed_range"].value
    ax.axhspan(
        low, high, color=ENERGY, alpha=0.12, label=f"low-handicap range {low:g}-{high:g} m/s"
    )
    tour = DATA["tour_mean_clubhead_speed"].value
    ax.axhline(tour, color=ENERGY, linestyle="--", linewidth=1.0, label=f"tour mean {tour:g} m/s")


def clubhead_speed_figure():
    r"""Figure: clubhead speed against time, with and without the wrist torque, beside the
    published range.

    The face-centre speed :math:`|\dot p_{head}|` of the stated golfer's downswing under
    the declared torques and with the wrist torque off (peak 0), up to each run's impact
    (equation :eq:`eq-ch3-impact`);
    the impact speeds marked; the band is the low-handicap range of MacKenzie et al.
    (2015) and the dashed line the 2015 tour mean (``DATA``).

    **Batches**: none; one call draws one figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    with style_context():
        fig = new_figure((BOOK_WIDTH, 3.4))
        ax = fig.subplots()
        _speed_band(ax)
        for wrist, colour, label in (
            (20.0, FORCE, "declared torques"),
            (0.0, ACCENT, "wrist torque off"),
        ):
            golfer, _, run = _downswing(wrist)
            k = int(run.impact_step) + 1
            t = run.trajectory.t[:k]
            speed = np.linalg.norm(
                golfer.clubhead_velocity(run.trajectory.q[:k], run.trajectory.v[:k]), axis=-1
            )
            impact = float(run.clubhead_speed)
            ax.plot(t, speed, color=colour, label=f"{label}: {fmt(impact, '.1f')} m/s at impact")
            ax.plot(float(run.impact_time), impact, "o", color=colour)
        ax.set_xlabel("time from the top of the backswing (s)")
        ax.set_ylabel("clubhead speed (m/s)")
        ax.set_ylim(0.0, 62.0)
        ax.legend(loc="upper left", fontsize=8)
    return fig


def swing_energy_figure():
    r"""Figure: joint powers and stored energies over the stated golfer's downswing.

    Top: the power of each declared torque, :math:`P_j = u_j v_j` (W).  Bottom: each
    body's kinetic energy (J, ``BODY_NAMES``), and the work of the three torques less the
    potential energy gained, :math:`W - \Delta V`, which the total kinetic energy follows
    (the energy balance of the chapter-2 integrator; equation :eq:`eq-ch3-joint-work`).

    **Batches**: none; one call draws one figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    golfer, torques, run = _downswing()
    trajectory = run.trajectory
    k = int(run.impact_step) + 1
    t, q, v = trajectory.t[:k], trajectory.q[:k], trajectory.v[:k]
    u = torques(t[:, None], q, v)
    power = u * v[:, :3]
    work = run.joint_work[:k].sum(-1) - (trajectory.potential[:k] - trajectory.potential[0])
    names = ("hub", "lead shoulder", "lead wrist")
    with style_context():
        fig = new_figure((BOOK_WIDTH, 5.6))
        top, bottom = fig.subplots(2, 1, sharex=True)
        for j, (name, colour) in enumerate(zip(names, (ACCENT, MOTION, FORCE))):
            top.plot(t, power[:, j], color=colour, label=f"{name} torque")
        top.set_ylabel("power $u_jv_j$ (W)")
        top.legend(fontsize=8)
        for j, (name, colour) in enumerate(zip(models.swing.BODY_NAMES, _BODY_COLOURS)):
            style = ":" if j == 4 else "-"
            bottom.plot(t, run.body_kinetic[:k, j], style, color=colour, label=name)
        bottom.plot(t, run.body_kinetic[:k].sum(-1), color="black", label="total kinetic")
        bottom.plot(t, work, "--", color=ENERGY, label=r"work $-\ \Delta V$")
        bottom.set_xlabel("time from the top of the backswing (s)")
        bottom.set_ylabel("energy (J)")
        bottom.legend(fontsize=8, ncols=2)
    return fig


def _grip_history(wrist=20.0):
    golfer, torques, run = _downswing(wrist)
    trajectory = run.trajectory
    k = int(run.impact_step) + 1
    t, q, v = trajectory.t[:k], trajectory.q[:k], trajectory.v[:k]
    tau = torques(t[:, None], q, v) @ INPUT_MATRIX.T
    return t, models.grip_loads(golfer, q, v, tau)


def grip_force_figure():
    r"""Figure: the two hands' forces on the club over the downswing, and the squeeze.

    From :func:`geomotion.models.grip_loads` along the stated golfer's downswing: the
    magnitudes of the lead arm's force at the wrist, of the trail hand's force at its grip
    point and of their resultant :math:`m_c(a_c - g_p)` (fixed by the club's motion), and
    the internal squeeze along the line between the hands, which the resultant cannot
    see (positive: the hands push towards each other); equation :eq:`eq-ch3-grip-split`.

    **Batches**: none; one call draws one figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    t, loads = _grip_history()
    with style_context():
        fig = new_figure((BOOK_WIDTH, 3.6))
        ax = fig.subplots()
        ax.plot(
            t, np.linalg.norm(loads.lead_force, axis=-1), color=MOTION, label="lead hand $|f_L|$"
        )
        ax.plot(
            t, np.linalg.norm(loads.trail_force, axis=-1), color=SECOND, label="trail hand $|f_T|$"
        )
        ax.plot(
            t,
            np.linalg.norm(loads.resultant_force, axis=-1),
            color="black",
            label="resultant $|f_L+f_T|$",
        )
        ax.plot(t, loads.squeeze, "--", color=FORCE, label="squeeze $s$ (internal)")
        ax.axhline(0.0, color=ACCENT, linewidth=0.8)
        ax.set_xlabel("time from the top of the backswing (s)")
        ax.set_ylabel("force (N)")
        ax.legend(fontsize=8)
    return fig


@functools.lru_cache(maxsize=1)
def _driven_ground():
    """The 3-D golfer (weld grip) driven through the stated downswing, its ground wrench
    and least friction, cached."""
    planar, _, run = _downswing()
    golfer = models.golfer(trail_grip="weld")
    driven = models.drive_golfer(golfer, planar, run, stride=4)
    resultant = models.ground_wrench(golfer, driven.q, driven.v, driven.a)
    friction = contact.least_friction(golfer.sole_poses(), resultant, golfer.sole_outline())
    return golfer, driven, resultant, friction


def ground_reaction_figure(*, golfer=None, driven=None, resultant=None, friction=None):
    r"""Figure: what the ground must supply to the 3-D golfer's prescribed downswing.

    Three panels over the samples of ``driven`` (the motion of equation
    :eq:`eq-ch3-least-energy`): (a) the ground's resultant force, its
    vertical component and the magnitude of its horizontal part, against the golfer's
    weight; (b) a top view of the two planted soles (``golfer.sole_outline()`` at
    ``golfer.sole_poses()``) and the resultant's centre of pressure on the ground,
    :math:`(-n_y, n_x)/f_z` about the world origin; (c) the least friction coefficient
    with which the feet can share the resultant (``friction``, from
    :func:`geomotion.contact.least_friction`).  Samples where no sharing exists
    (``friction`` infinite) are shaded in (a) and (c) and drawn hollow in (b).

    Parameters
    ----------
    golfer : geomotion.models.Golfer, optional, keyword only
    driven : geomotion.models.DrivenSwing, optional, keyword only
    resultant : (n, 6) array_like, optional, keyword only
        Ground wrench about the world origin, world axes [N m, N]
        (:func:`geomotion.models.ground_wrench`).
    friction : (n,) array_like, optional, keyword only
        Least friction coefficient per sample (``inf`` where none suffices).

    All four or none: by default the stated golfer (``models.golfer(trail_grip="weld")``)
    driven through the stated downswing (:func:`geomotion.models.drive_golfer`, every
    4 ms).

    **Batches**: none; one call draws one figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    given = [x is not None for x in (golfer, driven, resultant, friction)]
    if any(given) and not all(given):
        raise ValueError(
            "golfer, driven, resultant, friction: expected all four or none, got "
            f"{sum(given)} of them"
        )
    if not any(given):
        golfer, driven, resultant, friction = _driven_ground()
    t = np.asarray(driven.t)
    F = np.asarray(resultant, dtype=float)
    mu = np.asarray(friction, dtype=float)
    if F.shape != t.shape + (6,) or mu.shape != t.shape:
        raise ValueError(
            f"resultant, friction: expected shapes {t.shape + (6,)} and {t.shape} (one per "
            f"sample of driven), got {F.shape} and {mu.shape}"
        )
    weight = golfer.model.masses.sum() * 9.81
    held = np.isfinite(mu)
    cop = np.stack([-F[:, 1] / F[:, 5], F[:, 0] / F[:, 5]], axis=-1)
    with style_context():
        fig = new_figure((BOOK_WIDTH, 5.6))
        top, bottom = fig.subfigures(2, 1, height_ratios=(1.0, 1.0))
        ax_force, ax_cop = top.subplots(1, 2, width_ratios=(1.4, 1.0))
        ax_mu = bottom.subplots()
        ax_force.plot(t, F[:, 5], color=FORCE, label="vertical $f_z$")
        ax_force.plot(t, np.hypot(F[:, 3], F[:, 4]), color=MOTION, label="horizontal $|f_{xy}|$")
        ax_force.axhline(weight, color=ACCENT, linestyle="--", linewidth=0.8, label="weight")
        ax_force.set_xlabel("time (s)")
        ax_force.set_ylabel("ground force (N)")
        ax_force.set_title("(a) resultant force", fontsize=9)
        ax_force.legend(fontsize=7)
        for pose in golfer.sole_poses():
            corners = np.c_[golfer.sole_outline(), np.zeros(4), np.ones(4)] @ pose.T
            outline = np.vstack([corners, corners[:1]])
            ax_cop.plot(outline[:, 1], outline[:, 0], color="black", linewidth=1.0)
        ax_cop.plot(cop[held, 1], cop[held, 0], ".", color=FORCE, markersize=3, label="held")
        ax_cop.plot(
            cop[~held, 1],
            cop[~held, 0],
            "o",
            mfc="none",
            color=SECOND,
            markersize=3,
            label="no sharing",
        )
        ax_cop.set_xlim(0.5, -0.5)
        ax_cop.set_ylim(-0.3, 1.2)
        ax_cop.set_aspect("equal")
        ax_cop.set_xlabel("y (m), target on the left")
        ax_cop.set_ylabel("x, towards the ball (m)")
        ax_cop.set_title("(b) centre of pressure", fontsize=9)
        ax_cop.legend(fontsize=7, loc="lower left")
        ax_mu.plot(t[held], mu[held], color=MOTION)
        ax_mu.set_xlim(t[0], t[-1])
        ax_mu.set_xlabel("time from the top of the backswing (s)")
        ax_mu.set_ylabel("least friction coefficient")
        ax_mu.set_title("(c) friction the planted stance needs", fontsize=9)
        for ax in (ax_force, ax_mu):
            if np.any(~held):
                ax.axvspan(t[~held][0], t[-1], color=SECOND, alpha=0.15, linewidth=0)
    return fig


def impact_speed_histogram_figure(*, speeds=None, reference=None):
    r"""Figure: the population's impact speeds, beside the published range.

    Parameters
    ----------
    speeds : None or (P,) array_like
        Impact speeds, m/s (e.g. ``simulate_downswing(swing_population(1000), ...)
        .clubhead_speed``); default None: that population of 1000 sets at a 2 ms step.
    reference : None or float
        The stated golfer's impact speed, m/s, drawn as a line; default None: computed.

    **Batches**: none; one call draws one figure.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``speeds`` is empty or holds a value that is not finite and positive.
    """
    if speeds is None:
        speeds = _population_speeds()
    speeds = np.asarray(speeds, dtype=float).ravel()
    if speeds.size == 0 or not np.all(np.isfinite(speeds) & (speeds > 0)):
        raise ValueError(f"speeds: expected finite positive speeds in m/s, got {speeds!r}")
    if reference is None:
        reference = float(_downswing()[2].clubhead_speed)
    with style_context():
        fig = new_figure((BOOK_WIDTH, 3.4))
        ax = fig.subplots()
        low, high = DATA["low_handicap_speed_range"].value
        ax.axvspan(
            low, high, color=ENERGY, alpha=0.12, label=f"low-handicap range {low:g}-{high:g} m/s"
        )
        ax.hist(speeds, bins=30, color=MOTION, alpha=0.8, label=f"{speeds.size} parameter sets")
        ax.axvline(reference, color=FORCE, label=f"stated golfer {fmt(reference, '.1f')} m/s")
        ax.set_xlabel("clubhead speed at impact (m/s)")
        ax.set_ylabel("parameter sets")
        ax.legend(fontsize=8)
    return fig


def wrist_timing_figure(*, wrist_onset=-30.0, head_mass=0.204):
    r"""Figure: clubhead speed against time for one wrist onset and head mass.

    The stated golfer and torques, the wrist torque switching on when the lead arm passes
    ``wrist_onset`` degrees below the horizontal through the shoulder (-30: at the top,
    where the arm is 30 degrees above it), with a driver of head mass ``head_mass``; the
    published range as a band.  Points of ``TIMING_GRID`` come from one batched run
    (cached); other values are simulated alone.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    wrist_onset : float
        Degrees below the horizontal.
    head_mass : float
        kg, positive.

    Returns
    -------
    matplotlib.figure.Figure
    """
    onsets, heads = TIMING_GRID["wrist_onset"], TIMING_GRID["head_mass"]
    if wrist_onset in onsets and head_mass in heads:
        golfer, run = _timing_runs()
        i = onsets.index(wrist_onset) * len(heads) + heads.index(head_mass)
        golfer, k = golfer.parameter_set(i), int(run.impact_step[i]) + 1
        q, v = run.trajectory.q[:k, i], run.trajectory.v[:k, i]
        impact, time = float(run.clubhead_speed[i]), float(run.impact_time[i])
    else:
        golfer = models.swing_plane_golfer(club=models.driver(head_mass=head_mass))
        torques = models.SwingTorques(wrist_onset_angle=np.radians(wrist_onset))
        run = models.simulate_downswing(golfer, torques)
        k = int(run.impact_step) + 1
        q, v = run.trajectory.q[:k], run.trajectory.v[:k]
        impact, time = float(run.clubhead_speed), float(run.impact_time)
    t = run.trajectory.t[:k]
    with style_context():
        fig = new_figure((BOOK_WIDTH, 3.4))
        ax = fig.subplots()
        _speed_band(ax)
        ax.plot(t, np.linalg.norm(golfer.clubhead_velocity(q, v), axis=-1), color=FORCE)
        ax.plot(time, impact, "o", color=FORCE)
        ax.set_title(
            f"wrist on at {fmt(wrist_onset, 'g')} deg below horizontal, head "
            f"{fmt(1000 * head_mass, '.0f')} g: {fmt(impact, '.1f')} m/s at impact"
        )
        ax.set_xlabel("time from the top of the backswing (s)")
        ax.set_ylabel("clubhead speed (m/s)")
        ax.set_ylim(0.0, 62.0)
        ax.legend(loc="upper left", fontsize=8)
    return fig


def swing_animation(*, interval=0.01):
    r"""An animation of the stated golfer's downswing, one frame every ``interval`` s.

    Returns a matplotlib ``FuncAnimation`` over the stored states up to
    impact (the last frame the interpolated impact posture);
    :func:`offline_animation_html` embeds its frames in one HTML block that plays without
    a kernel or any outside request.  The frames are drawn at the book's dpi and width
    (649 px, the width of the static figures), with the colour key beside the swing and
    the ball in view.

    Parameters
    ----------
    interval : float
        Simulated time between frames, s, positive; frames play at 20 per second.

    Returns
    -------
    matplotlib.animation.FuncAnimation

    Raises
    ------
    ValueError
        If ``interval`` is not positive.
    """
    golfer, _, times, postures = _sampled_downswing(interval)
    with style_context():
        fig = new_figure((BOOK_WIDTH, 4.8))
        ax = fig.subplots()
        _plane_axes(ax, golfer)
        everything = np.concatenate(
            [np.concatenate(_stick(golfer, q)) for q in postures] + [golfer.ball[None]]
        )
        ax.set_xlim(everything[:, 0].min() - 0.1, everything[:, 0].max() + 0.1)
        ax.set_ylim(everything[:, 1].min() - 0.1, everything[:, 1].max() + 0.1)
        lines = [
            ax.plot([], [], color=colour, linewidth=2.2, label=label)[0]
            for colour, label in zip(_PART_COLOURS, _PART_LABELS)
        ]
        title = ax.set_title("")
        # The key in the space that the tall, equal-aspect swing leaves free on its right.
        ax.legend(loc="center left", bbox_to_anchor=(1.05, 0.5))

    def frame(i):
        for line, points in zip(lines, _stick(golfer, postures[i])):
            line.set_data(*points.T)
        title.set_text(
            f"t = {fmt(times[i], '.3f')} s" + (" (impact)" if i == len(postures) - 1 else "")
        )
        return lines + [title]

    # Lay the figure out once, with the longest title, and keep that layout: every frame
    # then has the swing in the same place (and is drawn without a layout pass).
    frame(len(postures) - 1)
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    return FuncAnimation(fig, frame, frames=len(postures), interval=50, blit=False)


# matplotlib's player draws its buttons with Font Awesome icons fetched from a CDN; the
# book must not fetch anything, so the link goes and each icon becomes characters that
# the basic fonts draw: the triangles U+25C0 and U+25B6 (Geometric Shapes) and the bars
# U+2759 and U+275A (Dingbats), all in DejaVu Sans, the sans-serif font of Debian's
# Chromium, and in the symbol fonts of Windows and macOS.  The media-control characters
# U+23EE and U+23ED (first and last frame) are in none of Debian's basic fonts: they
# showed as empty boxes (tests/book/test_animation_player.py renders the buttons).
_ICON_TEXT = {
    "fa-minus": "\u2212",
    "fa-fast-backward": "\u2759\u25c0\u25c0",
    "fa-step-backward": "\u2759\u25c0",
    "fa-play fa-flip-horizontal": "\u25c0",
    "fa-pause": "\u275a\u275a",
    "fa-play": "\u25b6",
    "fa-step-forward": "\u25b6\u2759",
    "fa-fast-forward": "\u25b6\u25b6\u2759",
    "fa-plus": "+",
}
_ICON = re.compile(r'<i class="fa ([a-z -]+)"></i>')
_STYLESHEET = re.compile(r"<link[^>]*font-awesome[^>]*>")
# One embedded frame of the player: base64 text that ``to_jshtml`` breaks into lines
# ending in a backslash (a JavaScript string continued over lines).
_FRAME = re.compile(r'"data:image/png;base64,((?:[A-Za-z0-9+/=]|\\\n)+)"')


def _palette_frame(match):
    """One embedded frame as a 64-colour palette PNG, encoded as the explorers' frames are.

    Median cut (the white background stays pure white), no dither, no metadata: see
    ``geomotion.widgets.png_frame``.
    """
    image = Image.open(io.BytesIO(base64.b64decode(match.group(1).replace("\\\n", ""))))
    palette = image.convert("RGB").quantize(colors=64, method=0, dither=0)
    small = io.BytesIO()
    palette.save(small, format="png", optimize=True)
    return '"data:image/png;base64,' + base64.b64encode(small.getvalue()).decode("ascii") + '"'


def offline_animation_html(animation):
    """The animation as one HTML block that plays with no request outside the page.

    matplotlib's ``Animation.to_jshtml`` (frames as ``data:`` URIs, played
    once by default) without its link to the Font Awesome stylesheet on a CDN; the
    player's button icons become characters that the basic fonts draw, and each frame
    becomes a 64-colour palette PNG (about a third of the size; no metadata).

    Parameters
    ----------
    animation : matplotlib.animation.Animation

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``animation`` is not a matplotlib Animation.
    ValueError
        If matplotlib's player uses an icon this function does not know (a newer
        template), rather than leave a blank button, or embeds its frames in a form this
        function does not read.
    """
    if not isinstance(animation, Animation):
        raise TypeError(
            f"animation: expected a matplotlib Animation, got {type(animation).__name__}"
        )
    html = _STYLESHEET.sub("", animation.to_jshtml(default_mode="once"))
    unknown = sorted(set(_ICON.findall(html)) - set(_ICON_TEXT))
    if unknown:
        raise ValueError(f"animation: matplotlib's player uses icons {unknown} with no text")
    html, count = _FRAME.subn(_palette_frame, html)
    if count == 0 or count != html.count("data:image/png;base64,"):
        raise ValueError("animation: matplotlib's player embeds its frames in an unknown form")
    return _ICON.sub(lambda match: _ICON_TEXT[match.group(1)], html)
