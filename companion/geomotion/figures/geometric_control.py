r"""Chapter 2 figures on geometric control: the car's bracket manoeuvre and a geometric phase.

* :func:`~geomotion.figures.car_bracket_figure` -- steer, drive, unsteer, reverse: the kinematic car
  (:func:`geomotion.control.car_kinematics`) comes back turned and shifted sideways, as
  the brackets :math:`[g_2, g_1]` and :math:`[g_1, [g_2, g_1]]`
  (:func:`geomotion.control.lie_bracket`) predict;
* :func:`~geomotion.figures.phase_loop_figure` -- a rectangular loop in shape space rotates the body at
  zero momentum by :math:`-ka_0b_0` (:func:`geomotion.symmetry.rectangle_loop`,
  :func:`geomotion.symmetry.loop_phase`, :func:`geomotion.symmetry.reconstruct_rate`).
"""

import dataclasses
import itertools

import numpy as np
import scipy.integrate

from .. import _validate, control, symmetry
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

__all__ = ["CarManoeuvre", "car_manoeuvre", "car_bracket_figure", "phase_loop_figure"]

#: Tolerances of the car's integration (solve_ivp, DOP853): the bracket effects of the
#: smallest loops drawn (about 1e-6 m) stay far above the integration error.
_CAR_RTOL, _CAR_ATOL = 1e-12, 1e-14

_PHASES = ("steer", "drive", "unsteer", "reverse")


@dataclasses.dataclass(frozen=True)
class CarManoeuvre:
    r"""The kinematic car's bracket manoeuvre, as returned by :func:`car_manoeuvre`.

    Attributes
    ----------
    path : ndarray, shape (4, samples, 4)
        States :math:`(x, y, \theta, \varphi)` (m, m, rad, rad) at ``samples`` equally
        spaced times of each of the four one-second phases (steer, drive, unsteer,
        reverse); the last state of a phase is the first of the next.
    final : ndarray, shape (4,)
        The final state: the net displacement, since the car starts at the origin with
        heading and steering angle 0.
    """

    path: np.ndarray
    final: np.ndarray


def car_manoeuvre(*, wheelbase=1.0, steer=0.3, drive=0.4, samples=60):
    r"""The bracket manoeuvre of the kinematic car, integrated phase by phase.

    From the origin, heading along x with straight wheels, four phases of one second
    each with constant inputs :math:`(u_1, u_2)` (speed m/s, steering rate rad/s):
    steer :math:`(0, \text{steer})`, drive :math:`(\text{drive}, 0)`, unsteer
    :math:`(0, -\text{steer})`, reverse :math:`(-\text{drive}, 0)` -- the flows of
    :math:`g_2, g_1, -g_2, -g_1`.  Each phase is integrated by
    ``scipy.integrate.solve_ivp`` (DOP853, rtol 1e-12) on
    :meth:`geomotion.control.ControlAffineSystem.velocity`.

    **Batches**: none; one manoeuvre per call (each phase is one ``solve_ivp`` run).

    Parameters
    ----------
    wheelbase : float
        :math:`L` > 0, m.
    steer : float
        Steering angle reached in the first phase, rad (:math:`|\cdot| < \pi/2`).
    drive : float
        Distance driven forward, then backward, m.
    samples : int
        Samples per phase in the returned path (>= 2).

    Returns
    -------
    CarManoeuvre
        ``path``, the (4, samples, 4) states per phase, and ``final``, the (4,) final
        state (the net displacement).

    Raises
    ------
    ValueError
        If ``wheelbase`` is not positive, ``steer`` is outside :math:`(-\pi/2, \pi/2)`,
        ``drive`` is not finite or ``samples`` is not an integer >= 2.
    """
    car = control.car_kinematics(wheelbase=wheelbase)
    steer, drive = float(steer), float(drive)
    if not (np.isfinite(steer) and abs(steer) < 0.5 * np.pi):
        raise ValueError(f"steer: expected an angle within (-pi/2, pi/2) rad, got {steer!r}")
    if not np.isfinite(drive):
        raise ValueError(f"drive: expected a finite distance in m, got {drive!r}")
    samples = _validate.count(samples, "samples", minimum=2)
    x = np.zeros(4)
    path = []
    times = np.linspace(0.0, 1.0, samples)
    for u in ((0.0, steer), (drive, 0.0), (0.0, -steer), (-drive, 0.0)):
        u = np.array(u)
        solution = scipy.integrate.solve_ivp(
            lambda t, state, u=u: car.velocity(state, u),
            (0.0, 1.0),
            x,
            method="DOP853",
            t_eval=times,
            rtol=_CAR_RTOL,
            atol=_CAR_ATOL,
        )
        path.append(solution.y.T)
        x = solution.y[:, -1]
    return CarManoeuvre(path=np.array(path), final=x)


def _car_brackets(wheelbase):
    r""":math:`[g_2, g_1]` and :math:`[g_1, [g_2, g_1]]` at the start state (the origin)."""
    car = control.car_kinematics(wheelbase=wheelbase)
    (g1, g2), (dg1, dg2) = car.inputs, car.input_jacobians
    start = np.zeros(4)

    def first(x):
        return control.lie_bracket(g2, g1, x, dX=dg2, dY=dg1)

    return first(start), control.lie_bracket(g1, first, start, dX=dg1)


def car_bracket_figure(*, wheelbase=1.0, steer=0.3, drive=0.4):
    r"""Figure: steer, drive, unsteer, reverse -- the car comes back turned and shifted sideways.

    The kinematic car :math:`g_1 = (\cos\theta, \sin\theta, \tan\varphi/L, 0)`,
    :math:`g_2 = (0, 0, 0, 1)` (:func:`geomotion.control.car_kinematics`) runs the loop
    of :func:`car_manoeuvre`.  To leading order the loop's net motion is given by the
    brackets at the start (:func:`geomotion.control.lie_bracket`):

    .. math:: \Delta\theta \approx s\,d\,[g_2, g_1]_\theta = \frac{s\,d\sec^2\varphi}{L},
              \qquad \Delta_\perp \approx \frac{s\,d^2}{2}[g_1, [g_2, g_1]]_\perp ,

    for steering angle :math:`s` and distance :math:`d` (:math:`\varphi = 0` at the
    start; the first bracket is equation :eq:`eq-ch2-car-bracket`): a heading change of
    second order and a sideways shift of third order in the size of the loop.  Top left:
    the rear-axle path (the y axis stretched); steering on the spot does not move it.
    Top right: the four states through the four phases.  Bottom: net heading change and
    sideways shift of the same loop scaled by :math:`\epsilon` (steer :math:`\epsilon s`,
    drive :math:`\epsilon d`), against the bracket predictions, on log axes (slopes 2
    and 3).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    wheelbase : float
        :math:`L` > 0, m.
    steer : float
        Steering angle :math:`s` of the loop, rad, nonzero.
    drive : float
        Distance :math:`d` of the loop, m, nonzero.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``wheelbase`` is not positive, ``steer`` is zero or outside
        :math:`(-\pi/2, \pi/2)`, or ``drive`` is zero or not finite.
    """
    if float(steer) == 0.0 or float(drive) == 0.0:
        raise ValueError(
            f"steer, drive: expected a nonzero loop, got steer {steer!r} rad, drive {drive!r} m"
        )
    run = car_manoeuvre(wheelbase=wheelbase, steer=steer, drive=drive)
    final = run.final
    heading_bracket, sideways_bracket = _car_brackets(wheelbase)
    s, d = float(steer), float(drive)
    predicted_heading = s * d * heading_bracket[2]
    predicted_side = 0.5 * s * d * d * sideways_bracket[:2]
    eps = np.geomspace(0.05, 1.0, 9)
    scaled = np.array(
        [car_manoeuvre(wheelbase=wheelbase, steer=e * s, drive=e * d, samples=2).final for e in eps]
    )

    path = run.path
    times = np.concatenate([k + np.linspace(0.0, 1.0, path.shape[1]) for k in range(4)])
    states = path.reshape(-1, 4)
    with style_context():
        fig = new_figure((BOOK_WIDTH, 7.0))
        panels = fig.subplot_mosaic([["left", "middle"], ["right", "right"]])
        left, middle, right = panels["left"], panels["middle"], panels["right"]
        colours = (ACCENT, MOTION, ACCENT, SECOND)
        for phase, name, colour in zip(path, _PHASES, colours):
            left.plot(
                phase[:, 0],
                phase[:, 1],
                color=colour,
                linewidth=2.0,
                label=name if name in ("drive", "reverse") else None,
            )
        left.plot(0.0, 0.0, "o", color="black", label="start")
        left.plot(*final[:2], "o", color=FORCE, label="end")
        for point, text, offset in (
            (path[0, -1, :2], "steer on the spot:\nno translation", (12, -34)),
            (path[2, -1, :2], "unsteer:\nno translation", (-70, 14)),
        ):
            left.annotate(
                text,
                point,
                xytext=offset,
                textcoords="offset points",
                fontsize=7.5,
                arrowprops={"arrowstyle": "->", "color": ACCENT},
            )
        left.set(
            xlabel="rear axle x (m)",
            ylabel="rear axle y (m)",
            title=f"path (y stretched); net Δy = {fmt(final[1], '.4f')} m,\n"
            f"Δx = {fmt(final[0], '.1e')} m, Δθ = {fmt(final[2], '.4f')} rad",
        )
        left.title.set_fontsize(8.5)
        left.legend(loc="upper left", fontsize=7.5)
        left.margins(x=0.1, y=0.35)

        for k, name in enumerate(_PHASES):
            middle.axvspan(k, k + 1, color=colours[k], alpha=0.08)
            middle.text(
                k + 0.5,
                1.0,
                name,
                transform=middle.get_xaxis_transform(),
                ha="center",
                va="bottom",
                fontsize=7.5,
            )
        for index, label, colour, style in (
            (0, "x (m)", ACCENT, "-"),
            (1, "y (m)", FORCE, "-"),
            (2, "θ heading (rad)", MOTION, "--"),
            (3, "φ steering (rad)", ENERGY, ":"),
        ):
            middle.plot(times, states[:, index], style, color=colour, label=label, linewidth=1.6)
        middle.set(xlabel="time (s): one second per phase", ylabel="state (m or rad)")
        middle.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7.5, ncol=2)

        right.loglog(eps, np.abs(scaled[:, 2]), "o", color=MOTION, label="|Δθ| (rad)")
        right.loglog(
            eps, np.abs(eps**2 * predicted_heading), "-", color=MOTION, label="ε² s d [g2, g1]_θ"
        )
        right.loglog(eps, np.abs(scaled[:, 1]), "s", color=FORCE, label="|Δy| (m)")
        right.loglog(
            eps,
            np.abs(eps**3 * predicted_side[1]),
            "--",
            color=FORCE,
            label="ε³ (s d²/2) [g1, [g2, g1]]_y",
        )
        right.set(
            xlabel="loop scale ε (steer ε s, drive ε d)",
            ylabel="net displacement",
            title=f"brackets predict the net motion\n(L = {float(wheelbase):g} m, "
            f"s = {s:g} rad, d = {d:g} m)",
        )
        right.title.set_fontsize(8.5)
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7.5, ncol=2)
    return fig


def _theta_along(k, loop, seconds_per_side, points_per_side, momentum=0.0, tau=0.0):
    r""":math:`\theta(t)` along a sampled loop, from the reconstruction rate.

    The rate is equation :eq:`eq-ch2-mechanical-connection`.

    The loop is traversed at constant speed on each side and the momentum changes only
    by a constant external torque, :math:`p_\theta(t) = p_0 + \tau t`.  On each segment
    the rate :math:`\dot\theta = I^{-1}p_\theta - A(s)\dot s`
    (:func:`geomotion.symmetry.reconstruct_rate`, :math:`I = 1`) is then linear in time
    for this coupling, so the trapezoidal rule integrates it exactly.
    """
    dt = seconds_per_side / points_per_side
    times = dt * np.arange(loop.shape[0])
    rates = np.diff(loop, axis=0) / dt  # shape rate on each segment
    coupling = symmetry.constant_curvature_coupling(loop, k)
    momenta = momentum + tau * times
    start = symmetry.reconstruct_rate(1.0, coupling[:-1], momenta[:-1], rates)
    end = symmetry.reconstruct_rate(1.0, coupling[1:], momenta[1:], rates)
    theta = np.concatenate([[0.0], np.cumsum(0.5 * dt * (start + end))])
    return times, theta


def phase_loop_figure(
    *, k=1.0, a0=1.0, b0=0.5, corner=(0.0, 0.0), clockwise=False, momentum=0.0, tau=0.0
):
    r"""Figure: a rectangular shape loop at zero momentum turns the body by :math:`-ka_0b_0`.

    The chapter's checkable example: locked inertia :math:`I = 1` kg m^2, coupling
    :math:`a = (0, ks_1)` (:func:`geomotion.symmetry.constant_curvature_coupling`), so at
    zero momentum :math:`\dot\theta = -ks_1\dot s_2`.  Top: the rectangle of sides
    :math:`a_0` (along :math:`s_1`) and :math:`b_0` (along :math:`s_2`) from
    :func:`geomotion.symmetry.rectangle_loop`, its direction of travel and its area.
    Bottom: :math:`\theta(t)` along the loop (each side taking one second), from
    :func:`geomotion.symmetry.reconstruct_rate`; at zero momentum it ends at the
    geometric phase of :func:`geomotion.symmetry.loop_phase`, :math:`-ka_0b_0`
    counterclockwise and :math:`+ka_0b_0` clockwise, wherever the corner lies (the
    curvature is :math:`k` everywhere; exercise :eq:`eq-ex2-phase-rectangle`).  The result
    holds in this specified model only.

    With an initial ``momentum`` or a known external torque ``tau`` about :math:`\theta`
    (:math:`p_\theta(t) = p_0 + \tau t`; exercise :eq:`eq-ex2-phase-torque`) the net
    rotation gains the dynamic phase :math:`\int_0^T I^{-1}p_\theta\,dt = p_0T + \tau T^2/2`
    (:math:`T` = 4 s); the
    zero-momentum curve is then drawn too, for comparison.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    k : float
        Curvature of the connection, rad per unit shape area.
    a0, b0 : float
        Side lengths, >= 0 (shape units).
    corner : (2,) array_like
        Lower-left vertex, where the loop starts.
    clockwise : bool
        Traverse the loop clockwise (first along +s2).
    momentum : float
        :math:`p_\theta` at the start, N m s.
    tau : float
        Constant external torque :math:`\tau` about :math:`\theta`, N m.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        As :func:`geomotion.symmetry.rectangle_loop` (negative sides, bad corner) or for
        a non-finite ``k``, ``momentum`` or ``tau``.
    """
    k, momentum, tau = float(k), float(momentum), float(tau)
    for name, value in (("k", k), ("momentum", momentum), ("tau", tau)):
        if not np.isfinite(value):
            raise ValueError(f"{name}: expected a finite number, got {value!r}")
    points_per_side = 50
    vertices = symmetry.rectangle_loop(a0, b0, corner=corner, clockwise=clockwise)
    loop = symmetry.rectangle_loop(
        a0, b0, corner=corner, clockwise=clockwise, points_per_side=points_per_side
    )
    forced = momentum != 0.0 or tau != 0.0
    phase = symmetry.loop_phase(
        1.0,
        lambda s: symmetry.constant_curvature_coupling(s, k),
        vertices,
        momentum=momentum,
        times=np.arange(5.0) if forced else None,
        tau=tau if forced else None,
    )
    times, theta = _theta_along(k, loop, 1.0, points_per_side, momentum, tau)
    direction = "clockwise" if clockwise else "counterclockwise"

    with style_context():
        fig = new_figure((BOOK_WIDTH, 6.6))
        left, right = fig.subplots(2, 1)
        left.fill(vertices[:, 0], vertices[:, 1], color=ENERGY, alpha=0.18)
        left.plot(vertices[:, 0], vertices[:, 1], color=ENERGY, linewidth=1.8)
        for start, end in itertools.pairwise(vertices):
            middle = 0.5 * (start + end)
            step = 0.12 * (end - start)
            if np.any(step):
                arrow(left, middle - 0.5 * step, step, ENERGY, width=0.012)
        centre = vertices[:4].mean(axis=0)
        left.annotate(
            f"area a0 b0\n= {float(a0) * float(b0):g}",
            centre,
            ha="center",
            va="center",
            fontsize=8.5,
            color=ENERGY,
        )
        left.plot(*vertices[0], "o", color="black")
        left.annotate(
            "start, end",
            vertices[0],
            xytext=(-6, -14),
            textcoords="offset points",
            ha="right",
            fontsize=8,
        )
        left.set(
            xlabel="shape s1",
            ylabel="shape s2",
            aspect="equal",
            title=f"{direction} loop, a0 = {float(a0):g}, b0 = {float(b0):g}",
        )
        left.margins(0.25)

        if forced:
            right.plot(
                times,
                theta,
                color=MOTION,
                linewidth=2.0,
                label=f"θ(t), p_θ(0) = {momentum:g} N m s, τ = {tau:g} N m",
            )
            right.plot(
                *_theta_along(k, loop, 1.0, points_per_side),
                ":",
                color=MOTION,
                linewidth=1.4,
                label="θ(t) at p_θ = 0",
            )
        else:
            right.plot(times, theta, color=MOTION, linewidth=2.0, label="θ(t) at p_θ = 0")
        right.axhline(
            phase.geometric,
            color=FORCE,
            linestyle="--",
            linewidth=1.0,
            label=f"geometric phase -∮A ds = {fmt(phase.geometric, '.4g')} rad",
        )
        for side in range(1, 4):
            right.axvline(float(side), color=ACCENT, linewidth=0.6)
        right.set(
            xlabel="time along the loop (s; one side per second)",
            ylabel="θ (rad)",
            title=f"Δθ = {fmt(phase.total, '.4g')} rad (k = {k:g}; "
            f"dynamic part {fmt(phase.dynamic, '.4g')})",
        )
        right.legend(loc="best", fontsize=8)
        right.margins(y=0.2)
    return fig
