r"""Chapter 3 figures: the swing-plane golfer's downswing (:mod:`geomotion.models.swing`).

Every figure draws the data it is given: a golfer (one parameter set of
:func:`geomotion.models.swing_plane_golfer`), a :class:`geomotion.models.Downswing` run
under its torque generators (:func:`geomotion.models.simulate_downswing`), the generators
themselves where their torques are needed, a :class:`geomotion.models.TimingOptimum`
(:func:`geomotion.models.optimise_onsets`) or the population's speeds.  Only
:func:`timing_landscape_figure` runs the model itself (one batched run over its grid of
onsets).  The ball is :func:`geomotion.models.ball_at_address`.  The swing's animation
is in :mod:`geomotion.figures.animation`.  Published values drawn
for comparison come from :data:`geomotion.models.golf_data.DATA`, never typed in here.
"""

import numpy as np
from matplotlib.patches import Rectangle

from .. import _validate, models
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
    "swing_strobe_figure",
    "onset_swing_figure",
    "clubhead_speed_figure",
    "swing_energy_figure",
    "grip_force_figure",
    "onset_grid",
    "timing_landscape_figure",
    "impact_speed_histogram_figure",
]

_BODY_COLOURS = (ACCENT, MOTION, FORCE, SECOND, SECOND)
_TIME_LABEL = "time from the top of the backswing (s)"


def _check_swing(golfer, downswing, *, crossed=True):
    """Raise unless ``golfer`` is one parameter set and ``downswing`` one run of it (that
    crossed the ball's line, if ``crossed``)."""
    if not isinstance(golfer, models.SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(downswing, models.Downswing):
        raise TypeError(f"downswing: expected a Downswing, got {type(downswing).__name__}")
    if golfer.batch_shape != () or np.shape(downswing.impact.time) != ():
        raise ValueError(
            f"golfer, downswing: expected one parameter set and one run, got batches "
            f"{golfer.batch_shape} and {np.shape(downswing.impact.time)}"
        )
    if crossed and not bool(downswing.impact.crossed):
        raise ValueError(
            "downswing: expected a swing whose clubhead crosses the ball's line (an impact), "
            "got one that never does"
        )


def _sampled_downswing(golfer, downswing, interval):
    """The run every ``interval`` s from its start, then at impact (or its last state).

    Returns the times (s) and the postures (rad), the last of each the interpolated
    impact (the run's end when the clubhead never crossed the ball's line).
    """
    if not interval > 0:
        raise ValueError(f"interval: expected a positive time in s, got {interval!r}")
    trajectory, impact = downswing.trajectory, downswing.impact
    every = max(1, int(round(interval / trajectory.dt)))
    steps = np.arange(0, int(impact.step) + 1, every)
    times = [float(trajectory.t[k]) for k in steps] + [float(impact.time)]
    postures = [trajectory.q[k] for k in steps] + [impact.q]
    return times, postures


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
    ax.plot(*models.ball_at_address(golfer), "o", color="black", markersize=4, label="ball")
    ax.plot(0.0, 0.0, "+", color="black", markersize=8, label="hub axis")
    ax.set_aspect("equal")
    ax.set_xlabel("X, towards the target (m)")
    ax.set_ylabel("Y, up the swing plane (m)")


def _strobe(golfer, downswing, interval, heading, *, enlarged=True):
    """The strobe figure of a run (see :func:`swing_strobe_figure`), ``heading`` its
    suptitle; without the enlarged panel near the hub unless ``enlarged``."""
    times, postures = _sampled_downswing(golfer, downswing, interval)
    ball = models.ball_at_address(golfer)
    before = postures[:-1]
    sticks = [_stick(golfer, q) for q in postures]
    everything = np.concatenate([np.concatenate(stick) for stick in sticks] + [ball[None]])
    # The box near the hub: the trunk bar, both arms and the lead wrist in every posture.
    body = np.concatenate([np.concatenate([s[0], s[1], s[3]]) for s in sticks])
    low, high = body.min(axis=0) - 0.06, body.max(axis=0) + 0.06
    whole_span = everything.max(axis=0) - everything.min(axis=0) + 0.2
    near_span = high - low
    with style_context():
        fig = new_figure((BOOK_WIDTH, 4.6))
        if enlarged:
            whole, near = fig.subplots(
                1,
                2,
                width_ratios=(whole_span[0] / whole_span[1], near_span[0] / near_span[1]),
            )
            panels = ((whole, 1.2, 2.2), (near, 1.6, 2.8))
        else:
            whole = fig.subplots()
            panels = ((whole, 1.2, 2.2),)
        for ax, width, bold in panels:
            for i, q in enumerate(before):
                _draw_posture(ax, golfer, q, alpha=0.25 + 0.5 * i / len(before), linewidth=width)
            _draw_posture(ax, golfer, postures[-1], linewidth=bold)
            _plane_axes(ax, golfer)
        whole.set_xlim(everything[:, 0].min() - 0.1, everything[:, 0].max() + 0.1)
        whole.set_ylim(everything[:, 1].min() - 0.1, everything[:, 1].max() + 0.1)
        if enlarged:
            whole.add_patch(
                Rectangle(
                    low, *near_span, fill=False, edgecolor="black", linestyle="--", linewidth=0.8
                )
            )
            near.set_xlim(low[0], high[0])
            near.set_ylim(low[1], high[1])
            near.set_xlabel("X (m)")
            near.set_ylabel("Y (m)")
            near.set_title("near the hub (dashed box), enlarged")
        if bool(downswing.impact.crossed):
            whole.set_title(f"impact at {fmt(times[-1], '.3f')} s (bold)")
        else:
            whole.set_title(f"no impact: end of the run, {fmt(times[-1], '.3f')} s (bold)")
        fig.suptitle(heading)
        for colour, label in zip(_PART_COLOURS, _PART_LABELS):
            whole.plot([], [], color=colour, label=label)
        if enlarged:
            fig.legend(*whole.get_legend_handles_labels(), loc="outside lower center", ncol=3)
        else:
            whole.legend(loc="center left", bbox_to_anchor=(1.05, 0.5))
    return fig


def swing_strobe_figure(golfer, downswing, *, interval=0.03):
    r"""Figure: a stroboscopic stick figure of a downswing.

    Postures of ``downswing`` every ``interval`` seconds from the start of its run,
    fading in with time, and the impact posture in full (interpolated at the impact
    located by equation :eq:`eq-ch3-impact`, ``downswing.impact``); the ball
    (:func:`geomotion.models.ball_at_address`) as a black dot.  Trunk bar grey, lead arm
    blue, club red, trail arm purple; the plane coordinates of
    :mod:`geomotion.models.swing`.  Left the whole swing; right the same postures near
    the hub, enlarged (the dashed box on the left), where the trunk and both arms turn
    within half a metre of the hub axis.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set.
    downswing : geomotion.models.Downswing
        A run of ``golfer`` whose clubhead crosses the ball's line.
    interval : float, keyword only
        Time between drawn postures, s, positive.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``golfer`` or ``downswing`` has the wrong type.
    ValueError
        If either is a batch, the clubhead never crosses the ball's line, or ``interval``
        is not positive.
    """
    _check_swing(golfer, downswing)
    return _strobe(golfer, downswing, interval, f"Downswing every {fmt(1000 * interval, '.0f')} ms")


def onset_swing_figure(golfer, downswing, generators, *, interval=0.03):
    r"""Figure: the strobe of a downswing under given onsets, with its score.

    :func:`swing_strobe_figure`'s whole swing (without the enlargement), headed by the generators' onsets relative to
    the hub's (ms) and the outcome at the ball's line (equation :eq:`eq-ch3-impact`): the
    clubhead speed, the miss and the impact time of a swing that reaches the ball
    (``impact.reached``); the miss of one that crosses the line too high or too low,
    "not scored"; or no impact at all (the last posture in bold is then the run's end).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set.
    downswing : geomotion.models.Downswing
        A run of ``golfer`` under ``generators``.
    generators : geomotion.models.SwingGenerators
        Its generators (one set of onsets), for the heading; checked against the run's
        stored joint work.
    interval : float, keyword only
        Time between drawn postures, s, positive.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If one is a batch, the work of ``generators`` along the run differs from
        ``downswing.joint_work`` (other generators than the run's), or ``interval`` is
        not positive.
    """
    _check_swing(golfer, downswing, crossed=False)
    _run_inputs(downswing, generators)
    onset = np.asarray(generators.onset, dtype=float)
    impact = downswing.impact
    after = 1000 * (onset - onset[0])
    heading = f"shoulder {fmt(after[1], '.1f')} ms, wrist {fmt(after[2], '.1f')} ms after the hub\n"
    miss = 1000 * float(impact.miss)
    if bool(impact.reached):
        heading += (
            f"{fmt(float(impact.speed), '.1f')} m/s at impact, {fmt(float(impact.time), '.3f')} s"
            f" (miss {fmt(miss, '.2f')} mm)"
        )
    elif bool(impact.crossed):
        side = "over the ball" if miss > 0 else "below the ball (the ground first)"
        heading += f"passes {fmt(abs(miss), '.1f')} mm {side}: not scored"
    else:
        heading += "never reaches the ball's line: not scored"
    return _strobe(golfer, downswing, interval, heading, enlarged=False)


def _run_inputs(downswing, generators):
    """The inputs u (n_steps + 1, 3) of ``generators`` along the run, N m; raise unless they
    are one set of generators whose work along the run is the run's stored joint work."""
    if not isinstance(generators, models.SwingGenerators):
        raise TypeError(f"generators: expected a SwingGenerators, got {type(generators).__name__}")
    if generators.onset.shape != (3,):
        raise ValueError(
            f"generators: expected one set of onsets (3,), got {generators.onset.shape}"
        )
    trajectory = downswing.trajectory
    u = generators(trajectory.t[:, None], trajectory.q, trajectory.v)
    power = u * trajectory.v[:, :3]
    work = np.concatenate([np.zeros((1, 3)), np.cumsum(0.5 * (power[1:] + power[:-1]), 0)])
    work *= trajectory.dt
    scale = max(1.0, float(np.abs(downswing.joint_work).max()))
    if not np.allclose(work, downswing.joint_work, rtol=0, atol=1e-9 * scale):
        raise ValueError(
            "generators: expected the generators of the run (their work along it differs "
            f"from downswing.joint_work by up to "
            f"{float(np.abs(work - downswing.joint_work).max()):.3g} J)"
        )
    return u


def _speed_band(ax):
    low, high = DATA["low_handicap_speed_range"].value
    ax.axhspan(
        low, high, color=ENERGY, alpha=0.12, label=f"low-handicap range {low:g}-{high:g} m/s"
    )
    tour = DATA["tour_mean_clubhead_speed"].value
    ax.axhline(tour, color=ENERGY, linestyle="--", linewidth=1.0, label=f"tour mean {tour:g} m/s")


def _to_impact(downswing):
    """Times, postures and rates of the stored steps up to the impact step, inclusive."""
    trajectory = downswing.trajectory
    k = int(downswing.impact.step) + 1
    return trajectory.t[:k], trajectory.q[:k], trajectory.v[:k]


def clubhead_speed_figure(golfer, downswing):
    r"""Figure: clubhead speed against time up to impact, beside the published range.

    The face-centre speed :math:`|\dot p_{head}|` of ``downswing`` at its stored steps up
    to impact (equation :eq:`eq-ch3-impact`), the impact speed marked; the band is the
    low-handicap range of MacKenzie et al. (2015) and the dashed line the 2015 tour mean
    (``DATA``).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set.
    downswing : geomotion.models.Downswing
        A run of ``golfer`` whose clubhead crosses the ball's line.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``golfer`` or ``downswing`` has the wrong type.
    ValueError
        If either is a batch or the clubhead never crosses the ball's line.
    """
    _check_swing(golfer, downswing)
    t, q, v = _to_impact(downswing)
    impact = downswing.impact
    speed = np.linalg.norm(golfer.clubhead_velocity(q, v), axis=-1)
    at_impact = float(impact.speed)
    with style_context():
        fig = new_figure((BOOK_WIDTH, 3.4))
        ax = fig.subplots()
        _speed_band(ax)
        label = f"simulated swing: {fmt(at_impact, '.1f')} m/s at impact"
        ax.plot(t, speed, color=FORCE, label=label)
        ax.plot(float(impact.time), at_impact, "o", color=FORCE)
        ax.set_xlabel(_TIME_LABEL)
        ax.set_ylabel("clubhead speed (m/s)")
        ax.set_ylim(0.0, 62.0)
        ax.legend(loc="upper left", fontsize=8)
    return fig


def swing_energy_figure(golfer, downswing):
    r"""Figure: the generators' work and the bodies' energies over a downswing.

    Top: the work of each generator up to each instant, :math:`W_j = \int u_jv_j\,dt`
    (J, ``downswing.joint_work``; the wrist's includes its end stops).  Bottom: each
    body's kinetic energy (J, ``BODY_NAMES``), their total, and the work of the three
    torques less the potential energy gained, :math:`W - \Delta V`, which the total
    kinetic energy follows (the energy balance of the chapter-2 integrator; equation
    :eq:`eq-ch3-joint-work`).  Both up to the impact step.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set.
    downswing : geomotion.models.Downswing
        A run of ``golfer`` whose clubhead crosses the ball's line.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``golfer`` or ``downswing`` has the wrong type.
    ValueError
        If either is a batch or the clubhead never crosses the ball's line.
    """
    _check_swing(golfer, downswing)
    trajectory = downswing.trajectory
    t = _to_impact(downswing)[0]
    k = len(t)
    joint_work = downswing.joint_work[:k]
    kinetic = downswing.body_kinetic[:k]
    work = joint_work.sum(-1) - (trajectory.potential[:k] - trajectory.potential[0])
    names = ("hub", "lead shoulder", "lead wrist")
    with style_context():
        fig = new_figure((BOOK_WIDTH, 5.6))
        top, bottom = fig.subplots(2, 1, sharex=True)
        for j, (name, colour) in enumerate(zip(names, (ACCENT, MOTION, FORCE))):
            top.plot(t, joint_work[:, j], color=colour, label=f"{name} generator")
        top.set_ylabel("work $W_j$ (J)")
        top.legend(fontsize=8)
        for j, (name, colour) in enumerate(zip(models.swing.BODY_NAMES, _BODY_COLOURS)):
            style = ":" if j == 4 else "-"
            bottom.plot(t, kinetic[:, j], style, color=colour, label=name)
        bottom.plot(t, kinetic.sum(-1), color="black", label="total kinetic")
        bottom.plot(t, work, "--", color=ENERGY, label=r"work $-\ \Delta V$")
        bottom.set_xlabel(_TIME_LABEL)
        bottom.set_ylabel("energy (J)")
        bottom.legend(fontsize=8, ncols=2)
    return fig


def grip_force_figure(golfer, downswing, generators):
    r"""Figure: the two hands' forces on the club over a downswing, and the squeeze.

    From :func:`geomotion.models.grip_loads` at the stored steps of ``downswing`` up to
    impact, under the joint torques ``INPUT_MATRIX @ u`` of its generators: the
    magnitudes of the lead arm's force at the wrist, of the trail hand's force at its grip
    point and of their resultant :math:`m_c(a_c - g_p)` (fixed by the club's motion), and
    the internal squeeze along the line between the hands, which the resultant cannot
    see (positive: the hands push towards each other); equation :eq:`eq-ch3-grip-split`.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set.
    downswing : geomotion.models.Downswing
        A run of ``golfer`` whose clubhead crosses the ball's line.
    generators : geomotion.models.SwingGenerators
        The generators it ran under (a :class:`geomotion.models.Downswing` does not keep
        them); checked against the run's stored joint work.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If one is a batch, the clubhead never crosses the ball's line, or the work of
        ``generators`` along the run differs from ``downswing.joint_work`` (other
        generators than the run's).
    """
    _check_swing(golfer, downswing)
    u = _run_inputs(downswing, generators)
    t, q, v = _to_impact(downswing)
    loads = models.grip_loads(golfer, q, v, u[: len(t)] @ INPUT_MATRIX.T)
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
        ax.set_xlabel(_TIME_LABEL)
        ax.set_ylabel("force (N)")
        ax.legend(fontsize=8)
    return fig


def onset_grid(optimum, *, count=25):
    r"""The default grid of shoulder and wrist onsets around an optimum, s after the hub's.

    Shoulder onsets from 0 to 0.1 s and wrist onsets from 0 to 0.2 s, each widened (to
    the next 5 ms) to keep the optimum's onset at least 20 ms inside; ``count`` evenly
    spaced values each.  The range of :func:`timing_landscape_figure`'s axes and of the
    sliders of :func:`geomotion.widgets.onset_explorer`.

    Parameters
    ----------
    optimum : geomotion.models.TimingOptimum
        An optimum with the wrist generator active.
    count : int, keyword only
        Values per onset, at least 2.

    Returns
    -------
    dict
        ``"shoulder"`` and ``"wrist"``: (count,) ndarrays of onsets, s.

    Raises
    ------
    TypeError
        If ``optimum`` is not a TimingOptimum or ``count`` not an integer.
    ValueError
        If the optimum's wrist is off or ``count`` is below 2.
    """
    onset = _wrist_onsets(optimum)
    count = _validate.count(count, "count", minimum=2)
    margin, unit = 0.02, 0.005
    grid = {}
    for name, x, widest in (("shoulder", onset[1], 0.1), ("wrist", onset[2], 0.2)):
        low = min(0.0, unit * np.floor((x - margin) / unit))
        high = max(widest, unit * np.ceil((x + margin) / unit))
        grid[name] = np.linspace(low, high, count)
    return grid


def _wrist_onsets(optimum):
    """The (3,) onsets of an optimum with the wrist active (raise otherwise)."""
    if not isinstance(optimum, models.TimingOptimum):
        raise TypeError(f"optimum: expected a TimingOptimum, got {type(optimum).__name__}")
    if optimum.wrist_onset_arm_angle is None:
        raise ValueError("optimum: expected an optimum with the wrist generator active")
    return np.asarray(optimum.onset, dtype=float)


def _axis(values, name):
    """A grid axis: at least two increasing finite onsets, s."""
    values = _validate.real_array(values, name)
    if values.ndim != 1 or len(values) < 2 or np.any(np.diff(values) <= 0):
        raise ValueError(
            f"{name}: expected at least two increasing onsets in s, got {values.tolist()!r}"
        )
    return values


def timing_landscape_figure(golfer, optimum, *, shoulder=None, wrist=None):
    r"""Figure: clubhead speed at the ball's line over the shoulder and wrist onsets.

    One batched :func:`geomotion.models.simulate_downswing` (2 ms step) of ``golfer``
    under the optimum's generators (:func:`geomotion.models.swing_generators` with
    ``optimum.options``, from ``optimum.top``, towards ``optimum.ball``) at every
    point of the grid of onsets after the hub's (each row's clock starting at its
    earliest onset, as :func:`geomotion.models.optimise_onsets` runs them); filled
    contours of the clubhead speed where the face centre crosses the ball's line
    (equation :eq:`eq-ch3-impact`), blank where it never does; the thick lines are the
    edges of the contact band, miss = :math:`\pm` ``optimum.band`` (one line, miss = 0,
    for point contact), between which swings reach the ball; the star is
    ``optimum.onset`` and the small crosses the optima of its starts
    (``optimum.start_onsets``).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set (that of ``optimum``).
    optimum : geomotion.models.TimingOptimum
        With the wrist generator active.
    shoulder, wrist : None or (n,) array_like, keyword only
        Increasing onsets after the hub's, s, at least two each; default
        :func:`onset_grid` of ``optimum`` (25 each).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``golfer`` or ``optimum`` has the wrong type.
    ValueError
        If ``golfer`` is a batch, the optimum's wrist is off, or a grid axis is not
        increasing with at least two values.
    """
    if not isinstance(golfer, models.SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if golfer.batch_shape != ():
        raise ValueError(f"golfer: expected one parameter set, got batch {golfer.batch_shape}")
    optimal = _wrist_onsets(optimum)
    grid = onset_grid(optimum)
    shoulder = grid["shoulder"] if shoulder is None else _axis(shoulder, "shoulder")
    wrist = grid["wrist"] if wrist is None else _axis(wrist, "wrist")
    S, W = np.meshgrid(shoulder, wrist)  # rows: wrist onsets; columns: shoulder onsets
    onset = np.stack([np.zeros(S.size), S.ravel(), W.ravel()], axis=-1)
    onset -= onset.min(axis=1, keepdims=True)
    count = len(onset)
    ball = np.broadcast_to(optimum.ball, (count, 2))
    generators = models.swing_generators(onset, **optimum.options)
    q0 = golfer.top_of_backswing(**optimum.top)
    impact = models.simulate_downswing(
        golfer.repeated(count), generators, ball=ball, q0=q0, dt=2e-3
    ).impact
    speed = np.where(impact.crossed, impact.speed, np.nan).reshape(S.shape)
    miss = np.where(impact.crossed, impact.miss, np.nan).reshape(S.shape)
    with style_context():
        fig = new_figure((BOOK_WIDTH, 4.4))
        ax = fig.subplots()
        filled = ax.contourf(1000 * S, 1000 * W, speed, levels=12, cmap="viridis")
        fig.colorbar(filled, ax=ax, label="clubhead speed at the ball's line (m/s)")
        band = float(optimum.band)
        edges = sorted({-band, band})  # the contact band's edges (miss 0: point contact)
        ax.contour(1000 * S, 1000 * W, miss, levels=edges, colors="black", linewidths=2.5)
        label = (
            f"edges of the contact band (miss ±{fmt(1000 * band, '.0f')} mm)"
            if band
            else "reaches the ball (miss 0)"
        )
        ax.plot([], [], color="black", linewidth=2.5, label=label)
        starts = 1000 * np.asarray(optimum.start_onsets)
        ax.plot(*starts.T, "x", color=FORCE, markersize=5, label="optima of the starts")
        ax.plot(
            *(1000 * optimal[1:]),
            "*",
            color=FORCE,
            markeredgecolor="white",
            markersize=14,
            label=f"optimum {fmt(float(optimum.speed), '.1f')} m/s",
        )
        ax.set_xlabel("shoulder onset after the hub's (ms)")
        ax.set_ylabel("wrist onset after the hub's (ms)")
        ax.legend(loc="lower right", fontsize=8)
    return fig


def impact_speed_histogram_figure(speeds, *, reference=None):
    r"""Figure: a population's impact speeds, beside the published range.

    A histogram of ``speeds`` (30 bins) over the low-handicap range of MacKenzie et al.
    (2015) (``DATA``), and the stated golfer's speed as a line if given.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    speeds : (P,) array_like
        Impact speeds, m/s (e.g. the optimal speeds of a population study).
    reference : None or float, keyword only
        The stated golfer's impact speed, m/s, drawn as a line; default None: no line.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``speeds`` is empty or holds a value that is not finite and positive, or
        ``reference`` is given and is not.
    """
    speeds = np.asarray(speeds, dtype=float).ravel()
    if speeds.size == 0 or not np.all(np.isfinite(speeds) & (speeds > 0)):
        raise ValueError(f"speeds: expected finite positive speeds in m/s, got {speeds!r}")
    if reference is not None and not (np.isfinite(reference) and reference > 0):
        raise ValueError(f"reference: expected a finite positive speed in m/s, got {reference!r}")
    with style_context():
        fig = new_figure((BOOK_WIDTH, 3.4))
        ax = fig.subplots()
        low, high = DATA["low_handicap_speed_range"].value
        ax.axvspan(
            low, high, color=ENERGY, alpha=0.12, label=f"low-handicap range {low:g}-{high:g} m/s"
        )
        ax.hist(speeds, bins=30, color=MOTION, alpha=0.8, label=f"{speeds.size} parameter sets")
        if reference is not None:
            reference = float(reference)
            ax.axvline(reference, color=FORCE, label=f"stated golfer {fmt(reference, '.1f')} m/s")
        ax.set_xlabel("clubhead speed at impact (m/s)")
        ax.set_ylabel("parameter sets")
        ax.legend(fontsize=8)
    return fig
