r"""Chapter 2 figures on redundancy: many inputs, or many hand loads, with the same effect.

* :func:`~geomotion.figures.allocation_figure` -- the solution line of :math:`Gu = b` in the input plane,
  the Euclidean minimum-norm member (:func:`geomotion.allocation.solution_family`) and
  the :math:`W`-weighted one (:func:`geomotion.allocation.weighted_allocation`), each
  where a level set of its objective touches the line;
* :func:`~geomotion.figures.grip_figure` -- two hands on a club: a hand-force pair, the internal squeeze
  family (:func:`geomotion.contact.internal_grip_forces`) and the resultant wrench
  (:func:`geomotion.contact.grip_wrench`) that does not see it.
"""

import numpy as np

from .. import _validate, allocation, contact
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

__all__ = ["allocation_figure", "grip_figure"]


def _weight_matrix(W):
    W = _validate.real_array(W, "W")
    if W.shape == (2,):
        return np.diag(W)
    if W.shape == (2, 2):
        return W
    raise ValueError(
        f"W: expected the diagonal (2,) or the matrix (2, 2) of the weight, got shape {W.shape}"
    )


def _level_set(W, level, samples=241):
    r"""Points of :math:`\tfrac12u^TWu = \text{level}` (an ellipse) for SPD ``W``, (samples, 2)."""
    values, vectors = np.linalg.eigh(W)
    angle = np.linspace(0.0, 2.0 * np.pi, samples)
    unit = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    return (unit * np.sqrt(2.0 * level / values)) @ vectors.T


def allocation_figure(*, G=(1.0, 1.0), b=1.0, W=(1.0, 4.0)):
    r"""Figure: the weighted allocation and the Euclidean minimum-norm input on the solution line.

    Two inputs, one requirement :math:`Gu = b` (a single row :math:`G`): every solution
    lies on a line, :math:`u = G^+b + Zz` (equation :eq:`eq-ch2-general-control`,
    :func:`geomotion.allocation.solution_family`).  The objective :math:`\tfrac12u^TWu`
    picks the point where one of its elliptic level sets just touches the line (equation
    :eq:`eq-ch2-optimal-null-space`, :func:`geomotion.allocation.weighted_allocation`);
    the Euclidean :math:`W = I` picks :math:`G^+b` with a circle.  With the seed's
    :math:`G = (1, 1)`, :math:`b = 1`, :math:`W = \mathrm{diag}(1, 4)` these are
    :math:`(0.8, 0.2)` and :math:`(0.5, 0.5)`.  Top: the input plane.  Bottom: both
    objectives along the line, against the coordinate :math:`z` of the kernel direction.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    G : (2,) or (1, 2) array_like
        The single row of the effective input map (acceleration per input unit).
    b : float
        The requested acceleration minus drift.
    W : (2,) or (2, 2) array_like
        The weight: its diagonal, or the full symmetric positive definite matrix.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        As :func:`geomotion.allocation.solution_family` and
        :func:`geomotion.allocation.weighted_allocation` (e.g. ``G = 0`` or ``W`` not
        positive definite), or for shapes other than those above.
    """
    G = np.atleast_2d(_validate.real_array(G, "G"))
    if G.shape != (1, 2):
        raise ValueError(f"G: expected one row of two entries, (2,) or (1, 2), got shape {G.shape}")
    b = np.atleast_1d(_validate.real_array(b, "b"))
    if b.shape != (1,):
        raise ValueError(f"b: expected one number, got shape {b.shape}")
    W = _weight_matrix(W)
    family = allocation.solution_family(G, b)
    u0, Z = family.u0, family.Z
    u_W = allocation.weighted_allocation(G, b, W)
    direction = Z[:, 0]
    z_W = float(direction @ (u_W - u0))
    span = max(1.5, 1.6 * abs(z_W), 1.5 * float(np.linalg.norm(u0)))
    z = np.linspace(-span, span, 401)
    line = u0 + z[:, None] * direction
    euclidean_cost = 0.5 * np.einsum("ki,ki->k", line, line)
    weighted_cost = 0.5 * np.einsum("ki,ij,kj->k", line, W, line)

    with style_context():
        fig = new_figure((BOOK_WIDTH, 7.4))
        left, right = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1.5, 1]})
        left.plot(*line.T, color="black", linewidth=1.4, label=f"solutions of Gu = {b[0]:g}")
        circle = _level_set(np.eye(2), 0.5 * u0 @ u0)
        ellipse = _level_set(W, 0.5 * u_W @ W @ u_W)
        left.plot(*circle.T, "--", color=MOTION, linewidth=1.1, label="level set of |u|²/2")
        left.plot(*ellipse.T, "--", color=FORCE, linewidth=1.1, label="level set of uᵀWu/2")
        left.plot(
            *u0,
            "o",
            color=MOTION,
            markersize=7,
            label=f"minimum norm G⁺b = ({fmt(u0[0], '.2f')}, {fmt(u0[1], '.2f')})",
        )
        left.plot(
            *u_W,
            "s",
            color=FORCE,
            markersize=7,
            label=f"weighted u_W = ({fmt(u_W[0], '.2f')}, {fmt(u_W[1], '.2f')})",
        )
        arrow(left, u0, 0.5 * direction, ACCENT, width=0.005)
        left.annotate(
            "ker G", u0 + 0.5 * direction, xytext=(4, 4), textcoords="offset points", color=ACCENT
        )
        reach = 1.25 * max(np.abs(ellipse).max(), np.abs(circle).max(), np.abs(u_W).max()) or 1.0
        left.set(
            xlim=(-reach, reach),
            ylim=(-reach, reach),
            aspect="equal",
            xlabel="input u1 (input units)",
            ylabel="input u2 (input units)",
            title=f"G = ({G[0, 0]:g}, {G[0, 1]:g}), W = [[{W[0, 0]:g}, {W[0, 1]:g}], "
            f"[{W[1, 0]:g}, {W[1, 1]:g}]]",
        )
        left.axhline(0.0, color=ACCENT, linewidth=0.6)
        left.axvline(0.0, color=ACCENT, linewidth=0.6)
        left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7.5, ncol=2)

        right.plot(z, euclidean_cost, color=MOTION, label="|u|²/2")
        right.plot(z, weighted_cost, color=FORCE, label="uᵀWu/2")
        right.plot([0.0], [0.5 * u0 @ u0], "o", color=MOTION)
        right.plot([z_W], [0.5 * u_W @ W @ u_W], "s", color=FORCE)
        right.set(
            xlabel="position z along ker G",
            ylabel="objective (input units²)",
            title="each objective has its own minimizer",
        )
        right.set_ylim(0.0, 1.2 * max(weighted_cost.min(), euclidean_cost.min()) + 1.5)
        right.legend(loc="upper center", fontsize=8)
    return fig


def grip_figure(
    *,
    r_L=(0.03, 0.0, 0.0),
    r_R=(0.12, 0.0, 0.0),
    f_L=(-30.0, 25.0, 0.0),
    f_R=(10.0, -12.0, 0.0),
    squeeze=(-400.0, -200.0, 200.0, 400.0),
):
    r"""Figure: a squeeze between the hands changes each hand's force, not the club's resultant.

    The club's reference point :math:`O` is the butt end of the grip, the shaft runs
    along +x and the figure shows the x-y plane (all vectors in m and N, in those
    axes).  The hands hold the club at :math:`r_L` and :math:`r_R` (defaults 3 cm and
    12 cm down the grip, 9 cm apart) with the forces :math:`f_L`, :math:`f_R`.  Adding
    the internal pair :math:`\delta f_L = a(r_L - r_R)`, :math:`\delta f_R = -\delta f_L`
    (:func:`geomotion.contact.internal_grip_forces`) for each ``a`` in ``squeeze``
    leaves the resultant wrench about :math:`O` (:func:`geomotion.contact.grip_wrench`,
    equation :eq:`eq-ch2-grip-resultant`) unchanged.

    Top: the grip with the base forces (solid) and the squeezed ones (faded).  Bottom
    left: the resultant's components against :math:`a`: flat.  Bottom right: the hand-force
    magnitudes against :math:`a`: far from flat.  A measured resultant cannot reveal the
    squeeze, yet the squeeze changes grip stiffness and how close each hand is to
    slipping.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    r_L, r_R : (3,) array_like
        Offsets from :math:`O` to the left and right hand contacts, m.
    f_L, f_R : (3,) array_like
        Forces of the left and right hand on the club, N.
    squeeze : sequence of float
        Squeeze intensities :math:`a` drawn on the left, N/m (> 0 stretches the grip).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a vector is not finite of shape (3,), ``squeeze`` is empty or non-finite,
        or the contacts coincide (no squeeze direction).
    """
    r_L, r_R, f_L, f_R = (
        _validate.vector(value, name, 3)
        for value, name in ((r_L, "r_L"), (r_R, "r_R"), (f_L, "f_L"), (f_R, "f_R"))
    )
    squeeze = np.atleast_1d(np.asarray(squeeze, dtype=float))
    if squeeze.ndim != 1 or squeeze.size == 0 or not np.all(np.isfinite(squeeze)):
        raise ValueError(f"squeeze: expected a non-empty sequence of finite N/m, got {squeeze!r}")
    if np.allclose(r_L, r_R, rtol=0, atol=1e-12):
        raise ValueError("r_L, r_R: expected two distinct contacts, got the same point")
    resultant = contact.grip_wrench(r_L, r_R, f_L, f_R)
    extent = 1.25 * max(np.abs(squeeze).max(), 1.0)
    a = np.linspace(-extent, extent, 201)
    internal = contact.internal_grip_forces(r_L, r_R, a)
    dL, dR = internal.df_L, internal.df_R
    swept = contact.grip_wrench(r_L, r_R, f_L + dL, f_R + dR)

    with style_context():
        fig = new_figure((BOOK_WIDTH, 7.0))
        panels = fig.subplot_mosaic([["left", "left"], ["middle", "right"]])
        left, middle, right = panels["left"], panels["middle"], panels["right"]
        shaft_end = max(r_L[0], r_R[0]) + 0.1
        left.plot(
            [0.0, shaft_end],
            [0.0, 0.0],
            color="black",
            linewidth=6,
            alpha=0.3,
            solid_capstyle="round",
        )
        left.plot(0.0, 0.0, "o", color="black")
        left.annotate("O", (0.0, 0.0), xytext=(-4, -15), textcoords="offset points")
        left.annotate(
            "shaft continues\nto the clubhead",
            (shaft_end, 0.0),
            xytext=(-52, -28),
            textcoords="offset points",
            color=ACCENT,
            fontsize=7.5,
        )
        forces = np.concatenate([np.abs(f_L + dL), np.abs(f_R + dR)]).max()
        scale = 0.1 / forces  # the largest force drawn 0.1 m long
        for value in squeeze:
            internal_k = contact.internal_grip_forces(r_L, r_R, value)
            dL_k, dR_k = internal_k.df_L, internal_k.df_R
            for point, force, colour in ((r_L, f_L + dL_k, MOTION), (r_R, f_R + dR_k, SECOND)):
                arrow(left, point[:2], force[:2], colour, scale=scale, alpha=0.3, width=0.006)
        arrow(left, r_L[:2], f_L[:2], MOTION, label="left hand force f_L", scale=scale, width=0.009)
        arrow(
            left, r_R[:2], f_R[:2], SECOND, label="right hand force f_R", scale=scale, width=0.009
        )
        left.plot(
            [],
            [],
            color=ACCENT,
            alpha=0.5,
            linewidth=3,
            label=f"plus squeeze, a = {', '.join(f'{v:g}' for v in squeeze)} N/m",
        )
        for point, name in ((r_L, "L"), (r_R, "R")):
            left.plot(*point[:2], "o", color="black", markersize=4)
            left.annotate(name, point[:2], xytext=(2, -14), textcoords="offset points")
        left.set(
            xlabel="x along the shaft (m)",
            ylabel="y (m)",
            aspect="equal",
            ylim=(-0.11, 0.11),
            xlim=(-0.06, shaft_end + 0.02),
            title=f"hands {np.linalg.norm(r_R - r_L) * 100:.0f} cm apart; "
            f"arrows {scale * 1000:.1f} mm per N",
        )
        left.title.set_fontsize(9)
        left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize=7.5)

        for index, label, colour, style in (
            (3, "f_x (N)", FORCE, "-"),
            (4, "f_y (N)", MOTION, "--"),
            (2, "n_z about O (N m)", ENERGY, "-."),
        ):
            middle.plot(a, swept[:, index], style, color=colour, label=label, linewidth=1.8)
        middle.set(
            xlabel="squeeze a (N/m)",
            ylabel="resultant on the club (N, N m)",
            title=f"resultant f = ({fmt(resultant[3], '.3g')}, {fmt(resultant[4], '.3g')}) N,\n"
            f"n_z = {fmt(resultant[2], '.3g')} N m for every a",
        )
        middle.title.set_fontsize(9)
        middle.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize=7.5)
        middle.margins(y=0.3)

        right.plot(
            a, np.linalg.norm(f_L + dL, axis=-1), color=MOTION, label="|f_L + δf_L|", linewidth=1.8
        )
        right.plot(
            a, np.linalg.norm(f_R + dR, axis=-1), color=SECOND, label="|f_R + δf_R|", linewidth=1.8
        )
        right.set(
            xlabel="squeeze a (N/m)",
            ylabel="hand force magnitude (N)",
            title="but each hand's load changes",
        )
        right.title.set_fontsize(9)
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), fontsize=7.5)
        right.set_ylim(bottom=0.0)
    return fig
