r"""Chapter 3's animation of the 3-D golfer's downswing on two planted feet.

:func:`golfer_downswing_animation` draws the 3-D golfer (:func:`geomotion.models.golfer`)
as a stick figure at the samples of a :class:`geomotion.models.GolferDownswing`, with the
ground's force on each foot at its centre of pressure where
:func:`geomotion.models.downswing_feet` certified an admissible split, and elsewhere the
centre of pressure that the whole demand would need; played with
:func:`geomotion.figures.offline_animation_html` it needs no kernel and no outside request.
It draws the data it is given and runs no model.
"""

import numpy as np
from matplotlib.animation import FuncAnimation

from .. import models, tree
from ._style import (
    ACCENT,
    BOOK_WIDTH,
    FORCE,
    MOTION,
    SECOND,
    fmt,
    new_figure,
    style_context,
)

__all__ = ["golfer_downswing_animation"]

#: The stick figure's parts: (label, colour, chains of body names and frame names).  A
#: name in ``Golfer.frames`` is that frame's origin, any other a body's origin (its joint).
_PARTS = (
    (
        "trunk and legs",
        ACCENT,
        (
            ("lead ankle", "lead shank", "lead thigh", "pelvis", "trail thigh"),
            ("trail thigh", "trail shank", "trail ankle"),
            ("pelvis", "thorax"),
            ("lead upper arm", "thorax", "trail upper arm"),
        ),
    ),
    ("lead arm", MOTION, (("lead upper arm", "lead forearm", "lead wrist", "lead grip"),)),
    (
        "trail arm",
        SECOND,
        (("trail upper arm", "trail forearm", "trail wrist", "trail grip on hand"),),
    ),
    ("club", "black", (("club butt", "clubhead"),)),
)

#: The two views: (world axis drawn across, heading, its label); z is drawn up in both.
_VIEWS = (
    (1, "face-on", "y, towards the target (m)"),
    (0, "down the line", "x, towards the ball (m)"),
)

#: The colours of the ground's force on each foot.
_FORCE_COLOURS = (("lead", MOTION), ("trail", FORCE))  # as in downswing_feet_figure

#: Length [m] of the arrow of a force of one body weight.
_WEIGHT_ARROW = 0.5


def _origins(golfer, q):
    """World position [m] of every body origin and frame origin named in ``_PARTS``,
    (n, 3) per name, at the configurations ``q`` (n, nq)."""
    names = {name for _, _, chains in _PARTS for chain in chains for name in chain}
    out = {}
    for name in names:
        if name in golfer.frames:
            frame = golfer.frames[name]
            pose = frame.world_pose(golfer.model, q)
        else:
            pose = tree.frame_pose(golfer.model, q, golfer.bodies[name], np.eye(4))
        out[name] = pose[..., :3, 3]
    return out


def _sole_outlines(golfer):
    """Each planted sole's outline in world coordinates, closed: (2, 5, 3), m."""
    corners = golfer.sole_corners()
    return np.concatenate([corners, corners[:, :1]], axis=1)


def _check(golfer, downswing, feet, stride, demand):
    if not isinstance(golfer, models.Golfer):
        raise TypeError(f"golfer: expected a models.Golfer, got {type(golfer).__name__}")
    if not isinstance(downswing, models.GolferDownswing):
        raise TypeError(
            f"downswing: expected a models.GolferDownswing, got {type(downswing).__name__}"
        )
    if not isinstance(feet, models.DownswingFeet):
        raise TypeError(f"feet: expected a models.DownswingFeet, got {type(feet).__name__}")
    if feet.feasible.shape != downswing.t.shape:
        raise ValueError(
            f"feet: expected the loads of downswing ({downswing.t.size} samples), got "
            f"{feet.feasible.size} samples"
        )
    demand = np.asarray(demand, dtype=float)
    if demand.shape != (downswing.t.size, 6) or not np.isfinite(demand).all():
        raise ValueError(
            f"demand: expected the ground's resultant wrench at each of the "
            f"{downswing.t.size} samples, ({downswing.t.size}, 6) finite, got shape "
            f"{demand.shape}"
        )
    if (demand[:, 5] <= 0.0).any():
        raise ValueError("demand: expected a resultant that pushes up (f_z > 0) at every sample")
    if isinstance(stride, bool) or not isinstance(stride, (int, np.integer)):
        raise TypeError(f"stride: expected a positive integer, got {stride!r}")
    if stride < 1:
        raise ValueError(f"stride: expected a positive integer, got {stride}")


def _demanded_cop(demand):
    """The centre of pressure of the ground's resultant wrench (about the world origin,
    ``(n, f)``) on the ground plane z = 0: :math:`(-n_y, n_x, 0)/f_z`, (n, 3), m."""
    n, f_z = demand[:, :3], demand[:, 5]
    return np.column_stack([-n[:, 1] / f_z, n[:, 0] / f_z, np.zeros(len(f_z))])


def golfer_downswing_animation(golfer, downswing, feet, *, demand, stride=2):
    r"""An animation of the 3-D downswing with the ground's force on each foot.

    One frame every ``stride`` samples of ``downswing`` and always its last (impact),
    each in two views of the world, on equal axes at one scale: face-on (the target line
    y across, as a camera in front of the golfer sees it) and down the line (x, towards
    the ball, across; the camera behind the golfer on the target line).  Drawn: the
    golfer as a stick figure of its joint centres (trunk and legs grey, lead arm blue,
    trail arm purple, club black, from the butt to the face centre), both soles, the ball
    (the face centre's position at impact), and, at each sample where ``feet``
    certified loads, the ground's force on each foot as a line from its centre of
    pressure, 0.5 m long per body weight (lead foot blue, trail foot red, as in
    :func:`geomotion.figures.downswing_feet_figure`); where no admissible split exists,
    a cross on the ground instead, at the centre of pressure of the whole demand
    (``demand``: :math:`(-n_y, n_x)/f_z` about the world origin), which may lie far from
    the soles.  The title gives the time from the top and says where no admissible split
    exists.  The frames
    are 649 px wide, like the static figures.

    Parameters
    ----------
    golfer : geomotion.models.Golfer
        The 3-D golfer of ``downswing``.
    downswing : geomotion.models.GolferDownswing
        Its motion (:func:`geomotion.models.golfer_downswing`), n samples.
    feet : geomotion.models.DownswingFeet
        :func:`geomotion.models.downswing_feet` of that motion (n samples; the arrows are
        drawn where it certified loads).
    demand : (n, 6) array_like, keyword only
        The ground's resultant wrench on the golfer about the world origin at each
        sample, N m and N (:func:`geomotion.models.ground_wrench`), upwards.
    stride : int, keyword only
        Samples between frames, at least 1 (default 2); frames play at 20 per second.

    Returns
    -------
    matplotlib.animation.FuncAnimation

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If ``feet`` or ``demand`` does not have one entry per sample of ``downswing``,
        ``demand`` does not push up at every sample, or ``stride`` is below 1.
    """
    _check(golfer, downswing, feet, stride, demand)
    n = downswing.t.size
    shown = np.unique(np.r_[np.arange(0, n, stride), n - 1])
    points = _origins(golfer, downswing.q[shown])
    soles = _sole_outlines(golfer)
    ball = points["clubhead"][-1]
    arrows = np.full((n, 2, 2, 3), np.nan)  # sample, foot, (tail, head), xyz
    if feet.loads is not None:
        tail = feet.loads.cop_world
        force = feet.loads.wrench_world[..., 3:] / feet.body_weight
        arrows[feet.feasible] = np.stack([tail, tail + _WEIGHT_ARROW * force], axis=-2)
    arrows = arrows[shown]
    cop = _demanded_cop(np.asarray(demand, dtype=float))[shown]
    cop[np.isin(shown, np.flatnonzero(feet.feasible))] = np.nan  # only where refused
    everything = np.concatenate(
        [np.concatenate(list(points.values())), soles.reshape(-1, 3), ball[None]]
        + [arrows[np.isfinite(arrows)].reshape(-1, 3), cop[np.isfinite(cop[:, 0])]]
    )
    low, high = everything.min(axis=0) - 0.05, everything.max(axis=0) + 0.05
    # The same width in both views, so that on equal axes they are the same height.
    half = 0.5 * (high[:2] - low[:2]).max()
    middle = 0.5 * (low[:2] + high[:2])
    low[:2], high[:2] = middle - half, middle + half
    with style_context():
        fig = new_figure((BOOK_WIDTH, 4.6))
        views = fig.subplots(1, 2, sharey=True)
        artists = []
        for ax, (axis, heading, label) in zip(views, _VIEWS):
            ax.set_aspect("equal")
            ax.set(xlim=(low[axis], high[axis]), ylim=(low[2], high[2]))
            ax.set(title=heading, xlabel=label)
            ax.plot(*ball[[axis, 2]], "o", color="black", markersize=4, label="ball")
            for k, sole in enumerate(soles):
                ax.plot(
                    *sole[:, [axis, 2]].T,
                    color=ACCENT,
                    linewidth=1.0,
                    label="soles" if k == 0 else None,
                )
            drawn = []
            for part, colour, chains in _PARTS:
                for j, _ in enumerate(chains):
                    (line,) = ax.plot(
                        [], [], color=colour, linewidth=2.0, label=part if j == 0 else None
                    )
                    drawn.append(line)
            for foot, colour in _FORCE_COLOURS:
                (line,) = ax.plot(
                    [], [], color=colour, linewidth=1.6, label=f"ground on {foot} foot"
                )
                drawn.append(line)
            (mark,) = ax.plot(
                [], [], "x", color=FORCE, markersize=7, label="demand's centre of pressure"
            )
            drawn.append(mark)
            artists.append((axis, drawn))
        views[0].set_ylabel("z, up (m)")
        title = fig.suptitle("")
        fig.legend(*views[0].get_legend_handles_labels(), loc="outside lower center", ncols=4)

    chains = [chain for _, _, part in _PARTS for chain in part]

    def frame(i):
        for axis, drawn in artists:
            segments = [np.array([points[name][i] for name in c]) for c in chains]
            for line, xyz in zip(drawn, segments + list(arrows[i]) + [cop[i][None]]):
                line.set_data(xyz[:, axis], xyz[:, 2])
        carried = np.isfinite(arrows[i]).all()
        title.set_text(
            f"t = {fmt(1e3 * downswing.t[shown[i]], '.0f')} ms from the top"
            + (" (impact)" if i == shown.size - 1 else "")
            + ("" if carried else ": no admissible split")
        )
        return [line for _, drawn in artists for line in drawn] + [title]

    # Lay the figure out once, with the longest title, and keep that layout: every frame
    # then has the golfer in the same place (and is drawn without a layout pass).
    frame(shown.size - 1)
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    return FuncAnimation(fig, frame, frames=shown.size, interval=50, blit=False)
