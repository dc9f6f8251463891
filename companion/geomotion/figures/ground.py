r"""Chapter 2 figure on ground contact: a force plate's centre of pressure and free moment.

:func:`~geomotion.figures.center_of_pressure_figure` draws what :func:`geomotion.contact.center_of_pressure`
extracts from a plate wrench -- the point where the resultant force acts and the vertical
couple that remains -- with the support check of
:func:`geomotion.contact.contact_feasibility`.
"""

import numpy as np
from matplotlib.patches import Polygon, Rectangle

from .. import contact
from ._style import ACCENT, BOOK_WIDTH, ENERGY, FORCE, MOTION, arrow, fmt, new_figure, style_context

__all__ = ["FOOT_OUTLINE", "COP_EXAMPLE", "center_of_pressure_figure"]

#: A convex outline of a right shoe sole in plate axes (x to the right, y forward), m:
#: 0.27 m long, 0.10 m across the forefoot, heel centred at y = -0.12 m.
FOOT_OUTLINE = np.array(
    [
        [-0.025, -0.135],
        [0.025, -0.135],
        [0.045, -0.10],
        [0.055, 0.02],
        [0.050, 0.09],
        [0.030, 0.125],
        [0.000, 0.135],
        [-0.030, 0.125],
        [-0.045, 0.08],
        [-0.045, -0.10],
    ]
)

#: Default plate-on-body wrench (M_x, M_y, M_z, F_x, F_y, F_z) about the plate origin on
#: the surface, N m and N: F = (40, -30, 800) N with the centre of pressure at
#: (0.02, 0.04) m and a free moment of 6 N m, so M_x = y_c F_z = 32, M_y = -x_c F_z = -16
#: and M_z = 6 + x_c F_y - y_c F_x = 3.8.
COP_EXAMPLE = np.array([32.0, -16.0, 3.8, 40.0, -30.0, 800.0])


def _curved_arrow(ax, centre, radius, moment, colour):
    """A circular arrow around ``centre``: counterclockwise (seen from above) for a positive moment."""
    angles = np.radians(np.linspace(-60.0, 240.0, 61))
    if moment < 0:
        angles = angles[::-1]
    arc = centre + radius * np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    ax.plot(*arc[:-1].T, color=colour, linewidth=1.6)
    ax.annotate(
        "",
        xy=arc[-1],
        xytext=arc[-4],
        arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": 1.6},
    )


def center_of_pressure_figure(
    *, wrench=COP_EXAMPLE, depth=0.0, polygon=FOOT_OUTLINE, friction_coefficient=0.6
):
    r"""Figure: the centre of pressure, the tangential force and the free moment on a force plate.

    A plate-on-body wrench :math:`(M, F)` (moment first, z up, about the plate origin
    ``depth`` below the surface) gives, by :func:`geomotion.contact.center_of_pressure`,

    .. math:: x_c = -\frac{M_y}{F_z},\qquad y_c = \frac{M_x}{F_z},\qquad
              M_{z,\mathrm{free}} = M_z - x_cF_y + y_cF_x .

    Equation :eq:`eq-ch2-center-of-pressure`.

    Top: the plate seen from above with the foot outline, the centre of pressure, the
    tangential force :math:`(F_x, F_y)` drawn from it and the free moment as a curved
    arrow; the title states whether the centre of pressure lies inside the outline and
    whether the traction ratio :math:`|F_t|/F_z` stays within the friction coefficient
    (:func:`geomotion.contact.contact_feasibility`).  Bottom: the measured :math:`M_z` split into the moment of the
    force acting at the centre of pressure, :math:`x_cF_y - y_cF_x`, and the free moment
    -- the part a centre of pressure alone would lose.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    wrench : (6,) array_like
        Plate-on-body wrench :math:`(M_x, M_y, M_z, F_x, F_y, F_z)`, N m and N, about the
        plate origin, plate axes with z up.  Default :data:`COP_EXAMPLE`.
    depth : float
        Depth of the plate origin below the contact surface, m (>= 0).
    polygon : (V, 2) array_like
        Convex support outline in plate x, y coordinates, m.  Default :data:`FOOT_OUTLINE`.
    friction_coefficient : float
        Coulomb coefficient of shoe on plate (>= 0) for the friction-cone check.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        As :func:`geomotion.contact.center_of_pressure` (near-zero normal load, negative
        depth) and :func:`geomotion.contact.contact_feasibility` (a polygon that is not
        convex), or a wrench not of shape (6,).
    """
    wrench = np.asarray(wrench, dtype=float)
    if wrench.shape != (6,):
        raise ValueError(f"wrench: expected one (6,) plate wrench, got shape {wrench.shape}")
    polygon = np.asarray(polygon, dtype=float)
    cop = contact.center_of_pressure(wrench, depth=depth)
    x_c, y_c, free = float(cop.x_c), float(cop.y_c), float(cop.free_moment)
    feasibility = contact.contact_feasibility(wrench, friction_coefficient, polygon, depth=depth)
    inside = bool(feasibility.cop_in_support)
    in_cone = bool(feasibility.within_friction_cone)
    F = wrench[3:]
    tangential = F[:2]
    through_cop = x_c * F[1] - y_c * F[0]
    # The measured M_z about the surface point above the origin (a depth shift leaves M_z alone).
    measured = float(wrench[2])

    with style_context():
        fig = new_figure((BOOK_WIDTH, 7.0))
        left, right = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.5, 1]})
        half = max(0.2, 1.3 * float(np.abs(polygon).max()), 1.3 * max(abs(x_c), abs(y_c)))
        left.add_patch(
            Rectangle(
                (-half, -half),
                2 * half,
                2 * half,
                facecolor="#f2f2f2",
                edgecolor=ACCENT,
                linewidth=1.0,
                label="force plate",
            )
        )
        left.add_patch(
            Polygon(
                polygon,
                closed=True,
                facecolor="#dce9f5",
                edgecolor=MOTION,
                linewidth=1.4,
                label="foot outline",
            )
        )
        left.plot(0.0, 0.0, "+", color="black", markersize=10, label="plate origin")
        left.plot(
            x_c,
            y_c,
            "o",
            color=FORCE,
            markersize=7,
            label=f"centre of pressure ({fmt(x_c, '.3f')}, {fmt(y_c, '.3f')}) m",
        )
        traction = float(np.linalg.norm(tangential))
        if traction > 0:
            scale = 0.6 * half / traction
            arrow(
                left,
                (x_c, y_c),
                tangential,
                FORCE,
                scale=scale,
                width=0.008,
                label=f"tangential force ({F[0]:g}, {F[1]:g}) N",
            )
        _curved_arrow(left, np.array([x_c, y_c]), 0.045, free, ENERGY)
        left.annotate(
            f"free moment\n{fmt(free, '.2f')} N m",
            (x_c - 0.045, y_c),
            xytext=(-14, 0),
            textcoords="offset points",
            color=ENERGY,
            ha="right",
            va="center",
            fontsize=8.5,
        )
        left.set(
            xlim=(-half, half),
            ylim=(-half, half),
            aspect="equal",
            xlabel="plate x (m)",
            ylabel="plate y (m)",
            title=f"F_z = {F[2]:g} N; CoP {'inside' if inside else 'OUTSIDE'} the foot;\n"
            f"|F_t|/F_z = {traction / F[2]:.3f} "
            f"{'within' if in_cone else 'OUTSIDE'} μ = {float(friction_coefficient):g}",
        )
        left.title.set_fontsize(9)
        left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=7.5, ncol=2)

        labels = ["measured M_z", "moment of F at\nthe CoP, x_c F_y - y_c F_x", "free moment"]
        values = [measured, through_cop, free]
        positions = np.arange(3)[::-1]
        right.barh(positions, values, color=[ACCENT, FORCE, ENERGY], alpha=0.85, height=0.6)
        right.set_yticks(positions, labels, fontsize=8)
        right.axvline(0.0, color=ACCENT, linewidth=0.8)
        for y, value in zip(positions, values):
            right.annotate(
                fmt(value, ".2f"),
                (value, y),
                va="center",
                ha="left" if value >= 0 else "right",
                xytext=(3 if value >= 0 else -3, 0),
                textcoords="offset points",
            )
        right.set(xlabel="vertical moment (N m)", title="measured M_z, split in two")
        right.title.set_fontsize(9)
        right.margins(x=0.25)
    return fig
