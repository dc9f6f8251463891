r"""Chapter 2 figures on constraints: the movable closed chain and the circle's acceleration.

* :func:`~geomotion.figures.closed_chain_figure` -- the one-parameter family of the planar closed chain
  (:func:`geomotion.models.planar_closed_chain`) and where a 2x2 block of its closure
  Jacobian loses rank while the chain itself stays regular;
* :func:`~geomotion.figures.circle_acceleration_figure` -- a particle on a circle: the admissible
  acceleration :math:`P_va_0 - q\|v\|^2/R^2` against the tangent-only update
  :math:`P_va_0` (:func:`geomotion.constraints.projectors`,
  :func:`geomotion.constraints.constrained_dynamics`).
"""

import numpy as np

from .. import _validate, constraints, models
from ._examples import circle_constraint
from ._style import (
    ACCENT,
    BOOK_WIDTH,
    ENERGY,
    FORCE,
    MOTION,
    SECOND,
    arrow,
    fmt,
    new_figure,
    style_context,
)

__all__ = ["closed_chain_figure", "circle_acceleration_figure"]


def _closed_family(chain, theta1, branch):
    """Absolute angles (K, 3) closing the loop at each theta1 (NaN rows where it cannot close)."""
    try:
        return chain.closed_configuration(theta1, branch=branch)
    except ValueError:  # some angles cannot close: solve them one by one
        rows = []
        for t in theta1:
            try:
                rows.append(chain.closed_configuration(t, branch=branch))
            except ValueError:
                rows.append(np.full(3, np.nan))
        return np.array(rows)


def _block_determinant(chain, theta):
    """det of the closure Jacobian's columns for links 1 and 2 (m^2); NaN where theta is NaN."""
    out = np.full(theta.shape[:-1], np.nan)
    ok = np.all(np.isfinite(theta), axis=-1)
    if np.any(ok):
        out[ok] = np.linalg.det(chain.jacobian(theta[ok])[..., :, :2])
    return out


#: Colours of the four sampled configurations of :func:`closed_chain_figure`.
_SAMPLE_COLOURS = (MOTION, "#ff7f0e", ENERGY, SECOND)


def _angle_label(angle):
    """An angle that is a multiple of pi/2 as text ("-π", "-π/2", "0", "π/2"), else in rad."""
    quarter = angle / (np.pi / 2)
    names = {-2: "-π", -1: "-π/2", 0: "0", 1: "π/2", 2: "π"}
    if abs(quarter - round(quarter)) < 1e-9 and round(quarter) in names:
        return names[round(quarter)]
    return f"{fmt(angle, '.2f')} rad"


def _draw_chain(
    ax,
    chain,
    theta,
    colour,
    alpha=1.0,
    linewidth=2.0,
    label=None,
    zorder=2,
    marker="o",
    linestyle="-",
):
    """Draw the three links of the chain at absolute angles ``theta`` (3,).

    The arm (links 1 and 2) carries ``marker`` at its joints and ``linestyle``; the
    third link is drawn solid in the same colour.
    """
    l1, l2, _ = chain.lengths
    base = chain.base
    elbow = l1 * np.array([np.cos(theta[0]), np.sin(theta[0])])
    tip = elbow + l2 * np.array([np.cos(theta[1]), np.sin(theta[1])])
    ax.plot(
        [0.0, elbow[0], tip[0]],
        [0.0, elbow[1], tip[1]],
        marker=marker,
        linestyle=linestyle,
        color=colour,
        alpha=alpha,
        linewidth=linewidth,
        markersize=4.5,
        label=label,
        zorder=zorder,
    )
    ax.plot(
        [base[0], tip[0]],
        [base[1], tip[1]],
        "-",
        color=colour,
        alpha=alpha,
        linewidth=linewidth,
        zorder=zorder,
    )
    return tip


def closed_chain_figure(*, lengths=(0.3, 0.8, 0.6), base=(0.7, 0.0), samples=181):
    r"""Figure: the movable planar closed chain and where links 1 and 2 line up.

    The chain of the chapter (:func:`geomotion.models.planar_closed_chain`): a two-link
    arm from the origin (links 1 and 2) meets a third link grounded at ``base``.  Three
    angles minus two closure equations leave a one-parameter family, here swept by the
    first link's absolute angle :math:`\theta_1` on both assembly branches
    (:meth:`~geomotion.models.PlanarClosedChain.closed_configuration`); the closure
    equations are :eq:`eq-ch2-closed-chain`.

    Top: the chain at four configurations of branch 1 (first-link angles -π, -π/2, 0
    and π/2, each in its own colour and marker and named in the legend), the path of
    the common tip, and, in red, the configurations where links 1 and 2 are aligned
    (solid: arm stretched, dashed: arm folded; the legend gives each one's first-link
    angle).  Bottom: along the
    family, the determinant of the closure Jacobian's columns for links 1 and 2,
    :math:`\det J_{12} = \ell_1\ell_2\sin(\theta_2 - \theta_1)` (the seed's
    two-grounded-link determinant :math:`\ell_1\ell_2\sin(\theta_1 - \theta_2)` of equation
    :eq:`eq-ch2-two-link-determinant`, up to the orientation of link 2), with its zeros
    marked.

    Why this geometry.  The defaults are the package's crank-rocker (links 0.3, 0.8,
    0.6 m, ground 0.7 m): link 1 turns fully round, so the family is a closed curve,
    and the distance from the origin to the common tip sweeps through both
    :math:`\ell_1 + \ell_2` (arm stretched) and :math:`\ell_2 - \ell_1` (arm folded).
    There links 1 and 2 align and :math:`\det J_{12} = 0`: with link 3 held, the arm
    could not move its tip across the line of the links, which is why link 3 is at a
    turning point there.  The full 2x3 Jacobian keeps rank 2 along the whole family
    (its smallest singular value, reported in the panel, stays well away from zero), so
    the chain passes through these configurations smoothly: rank loss of a block is
    not a singularity of the mechanism, and detecting first-order rank loss says
    nothing yet about finite mobility.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    lengths : (3,) array_like
        Link lengths :math:`(\ell_1, \ell_2, \ell_3)`, m.
    base : (2,) array_like
        Base :math:`(a, b)` of the third link, m.
    samples : int
        Number of :math:`\theta_1` samples over :math:`[-\pi, \pi]` (>= 3).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For an invalid chain (see :func:`geomotion.models.planar_closed_chain`),
        ``samples`` below 3, or a geometry whose loop closes at no sampled angle.
    """
    samples = _validate.count(samples, "samples", minimum=3)
    chain = models.planar_closed_chain(lengths=lengths, base=base)
    theta1 = np.linspace(-np.pi, np.pi, samples)
    families = {branch: _closed_family(chain, theta1, branch) for branch in (1, -1)}
    if not np.any(np.isfinite(families[1][:, 0])):
        raise ValueError("lengths, base: the loop closes at no sampled first-link angle")
    determinants = {branch: _block_determinant(chain, theta) for branch, theta in families.items()}
    singular = {branch: chain.aligned_angles(branch=branch, samples=samples) for branch in families}
    valid = np.concatenate(
        [theta[np.all(np.isfinite(theta), axis=-1)] for theta in families.values()]
    )
    sigma_min = float(np.linalg.svd(chain.jacobian(valid), compute_uv=False)[:, -1].min())

    with style_context():
        fig = new_figure((BOOK_WIDTH, 7.4))
        left, right = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.6, 1]})
        theta = families[1]
        shown = [
            index
            for index in np.linspace(0, theta1.size - 1, 5).astype(int)[:-1]
            if np.all(np.isfinite(theta[index]))
        ]
        # Four sampled configurations: one colour and marker each, named in the legend.
        for index, colour, marker in zip(shown, _SAMPLE_COLOURS, "osDv"):
            _draw_chain(
                left,
                chain,
                theta[index],
                colour,
                linewidth=1.6,
                marker=marker,
                label=f"branch 1, θ1 = {_angle_label(theta1[index])}",
            )
        tips = np.array(
            [_tip(chain, row) if np.all(np.isfinite(row)) else (np.nan, np.nan) for row in theta]
        )
        left.plot(
            tips[:, 0], tips[:, 1], ":", color=ACCENT, linewidth=1.2, label="path of the common tip"
        )
        for angle in singular[1]:
            aligned = chain.closed_configuration(angle, branch=1)
            # Links 1 and 2 point the same way (arm stretched) or opposite ways (folded).
            stretched = np.cos(aligned[1] - aligned[0]) > 0
            _draw_chain(
                left,
                chain,
                aligned,
                FORCE,
                linewidth=2.4,
                marker="o",
                linestyle="-" if stretched else "--",
                label=f"det J12 = 0, arm {'stretched' if stretched else 'folded'}: "
                f"θ1 = {fmt(angle, '.2f')} rad",
                zorder=3,
            )
        for point in ((0.0, 0.0), tuple(chain.base)):
            left.plot(*point, "^", color="black", markersize=8, zorder=4)
        left.set(
            xlabel="x (m)",
            ylabel="y (m)",
            aspect="equal",
            title=f"links {chain.lengths[0]:g}, {chain.lengths[1]:g}, {chain.lengths[2]:g} m; "
            f"third link grounded at ({chain.base[0]:g}, {chain.base[1]:g}) m",
        )
        left.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=8, ncol=2, handlelength=2.6
        )
        left.margins(0.06)

        for branch, colour, style in ((1, MOTION, "-"), (-1, SECOND, "--")):
            right.plot(
                theta1, determinants[branch], style, color=colour, label=f"assembly branch {branch}"
            )
            marks = singular[branch]
            right.plot(
                marks,
                np.zeros_like(marks),
                "o",
                color=FORCE,
                markersize=6,
                label="links 1 and 2 aligned" if branch == 1 else None,
            )
        right.axhline(0.0, color=ACCENT, linewidth=0.8)
        right.set(
            xlabel="first-link angle θ1 (rad)",
            ylabel="det J12 = l1 l2 sin(θ2 - θ1) (m²)",
            xticks=np.pi * np.array([-1, -0.5, 0, 0.5, 1]),
            xticklabels=["-π", "-π/2", "0", "π/2", "π"],
            title=f"block determinant along the family; the full J keeps\n"
            f"rank 2 (smallest singular value {sigma_min:.3f} m or more)",
        )
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), fontsize=8, ncol=3)
        right.margins(y=0.08)
    return fig


def _tip(chain, theta):
    """The common tip of the arm (links 1, 2) at absolute angles ``theta``, m."""
    l1, l2, _ = chain.lengths
    return l1 * np.array([np.cos(theta[0]), np.sin(theta[0])]) + l2 * np.array(
        [np.cos(theta[1]), np.sin(theta[1])]
    )


def circle_acceleration_figure(*, q=(1.0, 0.0), v=(0.0, 2.0), a0=(0.5, 1.0), radius=1.0, rtol=1e-9):
    r"""Figure: on a circle, the admissible acceleration needs a normal part; the tangent-only update lacks it.

    The seed's circle :math:`\Phi = \tfrac12(q^Tq - R^2)` with :math:`M = I`:
    :math:`J_c = q^T`, :math:`\gamma = \dot J_cv = v^Tv`.  For an unconstrained
    candidate :math:`a_0` the admissible acceleration is

    .. math:: a = P_va_0 - \frac{q}{R^2}\|v\|^2,

    (equation :eq:`eq-ch2-circle-acceleration`)
    computed by :func:`geomotion.constraints.constrained_dynamics` with the load
    :math:`Ma_0`; the tangent-only update :math:`P_va_0` uses
    :func:`geomotion.constraints.projectors`.  Top: the circle, the state and the
    three accelerations at :math:`q`.  Bottom: their radial components against the
    required :math:`-\|v\|^2/R` (-4 m/s^2 by default), with the acceleration-constraint
    residual :math:`J_ca + \gamma` of each.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    q : (2,) array_like
        Position on the circle, m (:math:`|q| = R`).
    v : (2,) array_like
        Tangent velocity, m/s (:math:`q^Tv = 0`).
    a0 : (2,) array_like
        Unconstrained candidate acceleration, m/s^2.
    radius : float
        :math:`R` > 0, m.
    rtol : float
        Relative tolerance of the two state checks: :math:`||q| - R| \le` ``rtol`` :math:`R`
        and :math:`|q^Tv| \le` ``rtol`` :math:`R\max(|v|, 1)`.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a vector is not finite of shape (2,), ``radius`` is not positive, ``q`` is
        not on the circle or ``v`` not tangent to it (within ``rtol``).
    """
    q, v, a0 = (
        _validate.vector(value, name, 2) for value, name in ((q, "q"), (v, "v"), (a0, "a0"))
    )
    radius = float(radius)
    if not np.isfinite(radius) or radius <= 0:
        raise ValueError(f"radius: expected a positive radius in m, got {radius!r}")
    if abs(np.linalg.norm(q) - radius) > rtol * radius:
        raise ValueError(
            f"q: expected a point on the circle |q| = {radius:g} m, got |q| = "
            f"{np.linalg.norm(q):.6g} m"
        )
    if abs(q @ v) > rtol * radius * max(np.linalg.norm(v), 1.0):
        raise ValueError(
            f"v: expected a velocity tangent to the circle (q.v = 0), got q.v = {q @ v:.6g} m^2/s"
        )
    circle = circle_constraint(radius)
    M, J, gamma = np.eye(2), circle.jacobian(q), circle.acceleration_bias(q, v)
    P_v = constraints.projectors(M, J).P_v
    tangent_only = P_v @ a0
    admissible = constraints.constrained_dynamics(M, J, np.zeros(2), gamma, M @ a0).a
    normal = q / radius
    required = -float(v @ v) / radius
    cases = (
        ("candidate a0", a0, ACCENT),
        ("tangent-only P_v a0", tangent_only, SECOND),
        ("admissible a", admissible, FORCE),
    )

    with style_context():
        fig = new_figure((BOOK_WIDTH, 6.6))
        left, right = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.3, 1]})
        angle = np.linspace(0.0, 2.0 * np.pi, 721)
        left.plot(
            radius * np.cos(angle),
            radius * np.sin(angle),
            color=ACCENT,
            linewidth=1.0,
            label=f"circle R = {radius:g} m",
        )
        tangent = np.array([-normal[1], normal[0]])
        left.plot(
            *(q[:, None] + np.outer(tangent, [-0.5 * radius, 0.5 * radius])),
            ":",
            color=ACCENT,
            linewidth=1.0,
            label="tangent line",
        )
        left.plot(*q, "o", color="black", zorder=4)
        extent = max(np.linalg.norm(value) for value in (v, a0, tangent_only, admissible))
        scale = 0.8 * radius / extent
        arrow(left, q, v, MOTION, label="velocity v", scale=scale, width=0.012)
        for label, value, colour in cases:
            arrow(left, q, value, colour, label=label, scale=scale, width=0.012)
        ends = np.array(
            [q + scale * value for value in (v, a0, tangent_only, admissible)]
            + [q + 0.5 * radius * tangent, q - 0.5 * radius * tangent]
        )
        low, high = ends.min(axis=0) - 0.2 * radius, ends.max(axis=0) + 0.2 * radius
        left.set(
            xlim=(low[0], high[0]),
            ylim=(low[1], high[1]),
            xlabel="x (m)",
            ylabel="y (m)",
            aspect="equal",
            title=f"q = ({q[0]:g}, {q[1]:g}) m, v = ({v[0]:g}, {v[1]:g}) m/s, M = I;\n"
            f"arrows {scale:.3g} m per m/s or per m/s²",
        )
        left.title.set_fontsize(9)
        left.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7.5)

        radial = [float(value @ normal) for _, value, _ in cases]
        residual = [float(J[0] @ value + gamma[0]) for _, value, _ in cases]
        names = ["a0", "P_v a0", "a"]
        right.bar(names, radial, color=[colour for *_, colour in cases], alpha=0.85)
        right.axhline(
            required,
            color="black",
            linestyle="--",
            linewidth=1.0,
            label=f"required -|v|²/R = {required:g} m/s²",
        )
        right.axhline(0.0, color=ACCENT, linewidth=0.8)
        for x, (value, res) in enumerate(zip(radial, residual)):
            right.annotate(
                f"{fmt(value, '.3g')}\nJa + γ = {fmt(res, '.3g')}",
                (x, value),
                ha="center",
                va="bottom" if value >= 0 else "top",
                fontsize=8,
                xytext=(0, 3 if value >= 0 else -3),
                textcoords="offset points",
            )
        right.set(
            ylabel="radial component a·q/R (m/s²)",
            xlabel="acceleration",
            title="radial parts: the constraint needs Ja + γ = 0",
        )
        right.title.set_fontsize(9)
        low, high = min(radial + [required]), max(radial + [0.0])
        right.set_ylim(low - 0.45 * (high - low) - 0.5, high + 0.45 * (high - low) + 0.5)
        right.legend(loc="lower left", fontsize=8)
    return fig
