r"""Chapter 2 figures on constrained integration: Baumgarte's decay and a step-size study.

* :func:`~geomotion.figures.baumgarte_figure` -- a violation of the circle constraint decays as the damped
  oscillator :math:`\ddot\Phi + 2\alpha\dot\Phi + \beta^2\Phi = 0` under
  :func:`geomotion.integrators.simulate_constrained` with ``method="baumgarte"``, and
  persists (or grows) without the feedback;
* :func:`~geomotion.figures.integrator_study_figure` -- residuals and the work-inclusive energy balance of
  projection, Baumgarte and RATTLE against the step size
  (:func:`geomotion.integrators.step_size_study`).
"""

import matplotlib.ticker
import numpy as np

from .. import integrators
from ._examples import circle_constraint, circle_pendulum, on_circle
from ._style import (
    ACCENT,
    BOOK_WIDTH,
    ENERGY,
    FORCE,
    METHOD_COLOURS,
    MOTION,
    fmt,
    new_figure,
    style_context,
)

__all__ = ["violation_closed_form", "baumgarte_figure", "default_study", "integrator_study_figure"]


def violation_closed_form(t, phi0, rate0, alpha, beta):
    r"""Closed-form solution of :math:`\ddot\Phi + 2\alpha\dot\Phi + \beta^2\Phi = 0`.

    With :math:`\Phi(0) = \Phi_0`, :math:`\dot\Phi(0) = \dot\Phi_0` and
    :math:`\omega^2 = \beta^2 - \alpha^2`:

    .. math:: \Phi(t) = e^{-\alpha t}\left(\Phi_0\,C(t) + (\dot\Phi_0 + \alpha\Phi_0)\,S(t)\right),

    :math:`C = \cos\omega t`, :math:`S = \sin(\omega t)/\omega` (underdamped),
    :math:`C = \cosh\kappa t`, :math:`S = \sinh(\kappa t)/\kappa` with
    :math:`\kappa^2 = -\omega^2` (overdamped), and :math:`C = 1`, :math:`S = t` at
    critical damping.  An independent reference for the Baumgarte runs (a formula for
    the error equation :eq:`eq-ch2-baumgarte-violation`, not for the mechanics).

    **Batches**: ``t``, ``phi0`` and ``rate0`` broadcast against each other; ``alpha``
    and ``beta`` are single numbers, since their values choose the formula.

    Parameters
    ----------
    t : array_like
        Times, s.
    phi0, rate0 : float
        Initial violation and its rate (constraint units, and per s).
    alpha, beta : float
        Gains, 1/s.

    Returns
    -------
    ndarray
        :math:`\Phi(t)`, the broadcast shape of ``t``, ``phi0`` and ``rate0``.
    """
    t = np.asarray(t, dtype=float)
    omega2 = beta**2 - alpha**2
    if omega2 > 0:
        w = np.sqrt(omega2)
        C, S = np.cos(w * t), np.sin(w * t) / w
    elif omega2 < 0:
        kappa = np.sqrt(-omega2)
        C, S = np.cosh(kappa * t), np.sinh(kappa * t) / kappa
    else:
        C, S = np.ones_like(t), t
    return np.exp(-alpha * t) * (phi0 * C + (rate0 + alpha * phi0) * S)


def baumgarte_figure(*, alpha=2.0, beta=3.0, dt=0.02, duration=4.0, offset=0.1, radial_speed=0.2):
    r"""Figure: Baumgarte stabilization damps a constraint violation as a damped oscillator.

    A 1 kg particle on the seed's circle :math:`\Phi = \tfrac12(q^Tq - R^2)`, :math:`R`
    = 1 m, in a vertical plane under gravity (a pendulum), starts off the constraint:
    at 1 rad from the bottom, a fraction ``offset`` outside the circle, moving
    tangentially at 1 rad/s plus ``radial_speed`` outward, so :math:`\Phi(0) > 0` and
    :math:`\dot\Phi(0) = q^Tv > 0`.  It is integrated by
    :func:`geomotion.integrators.simulate_constrained` (``method="baumgarte"``, RK4,
    step ``dt``) with the gains ``alpha``, ``beta`` (equation :eq:`eq-ch2-baumgarte`),
    and without feedback (:math:`\alpha = \beta = 0`).

    Top: :math:`\Phi(t)` of both runs and the closed form of
    :math:`\ddot\Phi + 2\alpha\dot\Phi + \beta^2\Phi = 0`
    (:eq:`eq-ch2-baumgarte-violation`, :func:`violation_closed_form`); without feedback :math:`\ddot\Phi = 0`, so the
    violation grows linearly.  Bottom: the gap between the stabilized run and the closed
    form, at ``dt`` and ``dt/2`` (fourth-order convergence of the step, not of the
    model: the feedback forces are not physical, and the stabilized motion does not
    conserve energy exactly).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    alpha, beta : float
        Baumgarte gains, 1/s, >= 0.
    dt : float
        Step, s.  Large gains make the equations stiff: keep :math:`\alpha\,dt` and
        :math:`\beta\,dt` well below 1.
    duration : float
        Simulated time, s.
    offset : float
        Initial radial offset as a fraction of :math:`R` (> -1).
    radial_speed : float
        Initial outward speed, m/s.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        As :func:`geomotion.integrators.simulate_constrained` (negative gains, bad
        ``dt``), or for ``duration`` shorter than two steps.
    """
    radius = 1.0
    n_steps = round(float(duration) / float(dt))
    if n_steps < 2:
        raise ValueError(
            f"duration: expected at least two steps of dt = {dt!r} s, got {duration!r}"
        )
    if not float(offset) > -1.0:
        raise ValueError(f"offset: expected a fraction of the radius above -1, got {offset!r}")
    q_on, v_on = on_circle(1.0, 1.0, radius)
    q0 = (1.0 + float(offset)) * q_on
    v0 = v_on + float(radial_speed) * q_on / radius
    circle, pendulum = circle_constraint(radius), circle_pendulum()
    phi0, rate0 = float(circle.residual(q0)[0]), float(q0 @ v0)

    def violation(alpha_, beta_, step, steps):
        run = integrators.simulate_constrained(
            pendulum, circle, q0, v0, step, steps, method="baumgarte", alpha=alpha_, beta=beta_
        )
        return run.t, circle.residual(run.q)[:, 0]

    t, phi = violation(alpha, beta, float(dt), n_steps)
    t_half, phi_half = violation(alpha, beta, 0.5 * float(dt), 2 * n_steps)
    t_free, phi_free = violation(0.0, 0.0, float(dt), n_steps)
    exact = violation_closed_form(t, phi0, rate0, float(alpha), float(beta))
    gap = np.abs(phi - exact)
    gap_half = np.abs(
        phi_half - violation_closed_form(t_half, phi0, rate0, float(alpha), float(beta))
    )
    floor = 1e-18

    with style_context():
        fig = new_figure((BOOK_WIDTH, 6.2))
        left, right = fig.subplots(2, 1)
        left.plot(t_free, phi_free, color=ACCENT, linewidth=1.6, label="no feedback (α = β = 0)")
        left.plot(
            t, phi, color=ENERGY, linewidth=2.2, label=f"Baumgarte α = {alpha:g}, β = {beta:g} 1/s"
        )
        left.plot(t, exact, "--", color="black", linewidth=1.0, label="closed form")
        left.axhline(0.0, color=ACCENT, linewidth=0.8)
        left.set(
            xlabel="time (s)",
            ylabel="violation Φ = (|q|² - R²)/2 (m²)",
            title=f"Φ(0) = {fmt(phi0, '.3f')} m², Φ'(0) = {fmt(rate0, '.3f')} m²/s",
        )
        left.legend(loc="upper left", fontsize=8)
        right.semilogy(t, np.maximum(gap, floor), color=MOTION, label=f"dt = {dt:g} s")
        right.semilogy(
            t_half,
            np.maximum(gap_half, floor),
            color=FORCE,
            linestyle="--",
            label=f"dt = {0.5 * dt:g} s",
        )
        ratio = gap.max() / max(gap_half.max(), floor)
        right.set(
            xlabel="time (s)",
            ylabel="|Φ_RK4 - Φ_closed form| (m²)",
            title=f"halving dt divides the gap by {ratio:.1f} (RK4: 16)",
        )
        right.legend(loc="lower right", fontsize=8)
    return fig


def default_study():
    r"""The step-size study drawn by :func:`integrator_study_figure` by default.

    The seed's circle (:math:`R` = 1 m) as a pendulum: a 1 kg particle under gravity
    9.81 m/s^2 in the vertical plane, from 1.2 rad off the bottom at 0.5 rad/s, over
    1 s with 25, 50, 100 and 200 steps; Baumgarte gains :math:`\alpha = \beta = 5`
    1/s.  The mass matrix is constant, so RATTLE applies.

    Returns
    -------
    geomotion.integrators.StepSizeStudy
    """
    radius = 1.0
    q0, v0 = on_circle(1.2, 0.5, radius)
    return integrators.step_size_study(
        circle_pendulum(),
        circle_constraint(radius),
        q0,
        v0,
        1.0,
        (25, 50, 100, 200),
        alpha=5.0,
        beta=5.0,
    )


_PANELS = (
    ("position", "position |Φ| (m²)"),
    ("velocity", "velocity |J v| (m²/s)"),
    ("acceleration", "acceleration |J a + γ| (m²/s²)"),
    ("energy", "energy balance (J)"),
)


def integrator_study_figure(*, study=None):
    r"""Figure: residuals and the work-inclusive energy balance against the step size.

    Four log-log panels, one per residual of a
    :class:`geomotion.integrators.StepSizeStudy` (largest position, velocity and
    acceleration residual, largest residual of the energy balance :eq:`eq-ch2-passivity`),
    one line per method, with
    each method's observed order between the two finest steps in the legend of the
    energy panel.  Values at or below a method's rounding or solve-tolerance floor are
    drawn as open markers: they say nothing about the step.  Methods recorded as not
    applicable are listed in the title.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    study : geomotion.integrators.StepSizeStudy, optional
        Default: :func:`default_study` (the circle pendulum; under a second).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``study`` is not a :class:`geomotion.integrators.StepSizeStudy`.
    """
    study = default_study() if study is None else study
    if not isinstance(study, integrators.StepSizeStudy):
        raise TypeError(
            f"study: expected a StepSizeStudy from integrators.step_size_study, got "
            f"{type(study).__name__}"
        )
    floor = 1e-17  # exact zeros cannot be drawn on log axes
    skipped = [result for result in study.results if not result.applicable]

    with style_context():
        fig = new_figure((BOOK_WIDTH, 6.0))
        axes = fig.subplots(2, 2, sharex=True).ravel()
        for ax, (name, title) in zip(axes, _PANELS):
            for result in study.results:
                if not result.applicable:
                    continue
                values = np.maximum(result.residual(name), floor)
                colour = METHOD_COLOURS.get(result.method, ACCENT)
                order = result.orders[name][-1] if result.dt.size > 1 else np.nan
                label = (
                    result.method
                    if name != "energy" or np.isnan(order)
                    else f"{result.method} (order {order:.1f})"
                )
                ax.loglog(result.dt, values, "-", color=colour, linewidth=1.4, label=label)
                resolved = result.residual(name) > result.floors[name]
                ax.loglog(result.dt[resolved], values[resolved], "o", color=colour, markersize=4)
                ax.loglog(
                    result.dt[~resolved],
                    values[~resolved],
                    "o",
                    color=colour,
                    markersize=4,
                    markerfacecolor="white",
                )
            ax.set(title=title, xlabel="step dt (s)")
            ax.title.set_fontsize(8.5)
        for ax in axes:
            ax.set_xticks(study.dt, [f"{dt:g}" for dt in study.dt], fontsize=7.5)
            ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        axes[0].set_ylabel("largest residual over the run")
        fig.legend(
            *axes[-1].get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8
        )
        note = "" if not skipped else "; not applicable: " + ", ".join(r.method for r in skipped)
        fig.suptitle(
            f"Step-size study over {study.duration:g} s (open markers: at the "
            f"rounding or tolerance floor){note}",
            fontsize=9.5,
        )
    return fig
