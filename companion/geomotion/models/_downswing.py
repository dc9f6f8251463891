r"""The downswing of the swing-plane golfer (:mod:`geomotion.models.swing`): declared
torque inputs, the simulation from the top of the backswing to impact, and the two hands'
loads on the club.

* :func:`activation_ramp` and :class:`SwingTorques`: hub, lead-shoulder and lead-wrist
  torques rising along smooth ramps (a wrist onset by time or by the lead arm's angle);
* :func:`simulate_downswing` -> :class:`Downswing`: one constrained run of every parameter
  set (:func:`geomotion.integrators.simulate_constrained`), impact located as an event
  between steps, per-joint work, per-body energy, the stand's moment and impulse;
* :func:`grip_loads` -> :class:`GripLoads`: the lead and trail hands' forces on the club,
  their resultant and the internal squeeze at one state.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..integrators import simulate_constrained
from ._shared import frozen, wrap_angle
from .swing import INPUT_MATRIX, SwingPlaneGolfer

__all__ = [
    "activation_ramp",
    "SwingTorques",
    "Downswing",
    "simulate_downswing",
    "GripLoads",
    "grip_loads",
]


# ---------------------------------------------------------------------------
# Torque inputs
# ---------------------------------------------------------------------------


def activation_ramp(t, onset, rise_time):
    r"""A smooth switch from 0 to 1: the cubic smoothstep, C1 (zero slope at both ends).

    .. math:: a(t) = 3x^2 - 2x^3,\qquad x = \mathrm{clip}\big((t - t_{on})/t_r,\ 0,\ 1\big)

    Parameters
    ----------
    t : float or array_like
        Time (or any monotone variable, e.g. an angle), s.
    onset : float or array_like
        :math:`t_{on}`, where the ramp leaves 0, in the units of ``t``.
    rise_time : float or array_like
        :math:`t_r` > 0, from 0 to 1, in the units of ``t``.

    Returns
    -------
    ndarray
        The activation in [0, 1], broadcast over the arguments.
    """
    x = np.clip((np.asarray(t, dtype=float) - onset) / rise_time, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


@dataclass(frozen=True, eq=False, kw_only=True)
class SwingTorques:
    r"""Joint torques of the hub, the lead shoulder and the lead wrist, :math:`u = a(t, q)\,
    u_{peak}` (N m), the trail joints passive (:math:`B` = ``INPUT_MATRIX``, 5 x 3).

    Each torque rises from 0 to its peak along :func:`activation_ramp`: in time from its
    onset over ``rise_time``, or, for the wrist when ``wrist_onset_angle`` is given, in
    the lead arm's angle below the horizontal through the shoulder (Sprigings & Neal's
    convention, :meth:`geomotion.models.swing.SwingPlaneGolfer.lead_arm_below_horizontal`) from that angle over
    ``wrist_rise_angle`` (a state-dependent input, C1 in q).  Every field may carry the
    batch (P,) of the golfer (e.g. a sweep of wrist onsets).

    Default peaks (hub 100, shoulder 60, wrist 20 N m), onsets 0 s and rise 0.05 s are
    modelling choices from an energy-and-timing budget, not fitted to any outcome: a
    45 m/s clubhead turning about the lead wrist carries about :math:`\tfrac12
    I_{butt}(v/\ell)^2 \approx \tfrac12 (0.30)(45/1.16)^2 \approx` 225 J, the arms about
    as much again, and the downswing takes about 0.25-0.3 s.  A first budget (hub 150 N m
    over an assumed 2 rad turn, Nesbit & Serrano's 70 % back-and-hip share) spun the hub
    through 295 degrees before impact; the peaks were chosen once more, on a grid of
    round hub (30-150) and shoulder (40-100 N m) torques, by two criteria only: impact
    within 0.25-0.3 s and the hub less than 90 degrees open at impact (impact speed was
    not looked at).  Only (100, 60) met both.

    Attributes
    ----------
    peak : (..., 3) array_like
        Peak torques (hub, lead shoulder, lead wrist), N m.
    onset : (..., 3) array_like
        Onset times, s (the wrist's ignored when ``wrist_onset_angle`` is given).
    rise_time : float or array_like
        s, positive.
    wrist_onset_angle : None or array_like
        Lead-arm angle below the horizontal at which the wrist switches on, rad.
    wrist_rise_angle : float
        rad, positive; default 10 degrees (a modelling choice).
    """

    peak: object = (100.0, 60.0, 20.0)
    onset: object = (0.0, 0.0, 0.0)
    rise_time: object = 0.05
    wrist_onset_angle: object = None
    wrist_rise_angle: float = np.radians(10.0)

    def __post_init__(self):
        for name in ("peak", "onset"):
            object.__setattr__(
                self, name, frozen(_validate.trailing_shape(getattr(self, name), name, (3,)))
            )
        object.__setattr__(
            self, "rise_time", frozen(_validate.positive(self.rise_time, "rise_time"))
        )
        object.__setattr__(
            self,
            "wrist_rise_angle",
            float(_validate.positive(self.wrist_rise_angle, "wrist_rise_angle")),
        )
        if self.wrist_onset_angle is not None:
            angle = _validate.real_array(self.wrist_onset_angle, "wrist_onset_angle")
            object.__setattr__(self, "wrist_onset_angle", frozen(angle))

    def activation(self, t, q):
        """Activations (..., 3) in [0, 1] at time ``t`` (s) and configuration ``q``."""
        rise = self.rise_time[..., None]
        a = activation_ramp(t, self.onset, rise)
        if self.wrist_onset_angle is not None:
            below = q[..., 0] + q[..., 1] + np.pi / 2
            wrist = activation_ramp(below, self.wrist_onset_angle, self.wrist_rise_angle)
            a = np.array(np.broadcast_to(a, np.broadcast_shapes(a.shape[:-1], wrist.shape) + (3,)))
            a[..., 2] = wrist
        return a

    def __call__(self, t, q, v):
        """u(t, q, v) (..., 3), N m: the inputs of ``simulate_constrained``."""
        return self.activation(t, q) * self.peak


# ---------------------------------------------------------------------------
# The downswing
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Downswing:
    r"""Result of :func:`simulate_downswing`; batch axes follow the time axis.

    Equations of the book: :eq:`eq-ch3-impact` and :eq:`eq-ch3-joint-work`.

    Attributes
    ----------
    trajectory : geomotion.integrators.ConstrainedTrajectory
    impact_time : (...) ndarray
        s, located between steps (see :func:`simulate_downswing`).
    impact_step : (...) ndarray of int
        Index k of the step [t_k, t_k+1] that holds the impact.
    q_impact, v_impact : (..., 5) ndarray
        rad and rad/s at impact.
    clubhead_speed : (...) ndarray
        Face-centre speed at impact, m/s.
    joint_work : (n_steps + 1, ..., 3) ndarray
        Work of the hub, lead-shoulder and wrist torques, J, trapezoid rule on the
        stored states (:math:`\int u_jv_j\,dt`).
    body_kinetic : (n_steps + 1, ..., 5) ndarray
        Kinetic energy of each body of ``BODY_NAMES``, J.
    stand_moment : (n_steps + 1, ...) ndarray
        Moment of the golfer on the stand about the hub axis, N m: minus the hub motor's
        torque (the stand does not turn, so this moment does no work).
    stand_angular_impulse : (n_steps + 1, ...) ndarray
        Its time integral, N m s (trapezoid rule).
    angular_momentum : (n_steps + 1, ...) ndarray
        About the hub axis, kg m^2/s.
    """

    trajectory: object
    impact_time: np.ndarray
    impact_step: np.ndarray
    q_impact: np.ndarray
    v_impact: np.ndarray
    clubhead_speed: np.ndarray
    joint_work: np.ndarray
    body_kinetic: np.ndarray
    stand_moment: np.ndarray
    stand_angular_impulse: np.ndarray
    angular_momentum: np.ndarray


def _cumulative_trapezoid(values, dt):
    """Running trapezoid integral along axis 0, starting at 0."""
    steps = 0.5 * dt * (values[1:] + values[:-1])
    return np.concatenate([np.zeros_like(values[:1]), np.cumsum(steps, axis=0)])


def simulate_downswing(golfer, tau, *, q0=None, v0=None, dt=1e-3, t_max=0.45, method="projection"):
    r"""Simulate the downswing of every parameter set in one constrained run; locate impact.

    Equations of the book: :eq:`eq-ch3-impact` and :eq:`eq-ch3-joint-work`.

    :func:`geomotion.integrators.simulate_constrained` with ``golfer.system()``,
    ``golfer.trail_grip``, ``u = tau`` and ``B = INPUT_MATRIX``, from ``(q0, v0)``
    (default: rest at the top of the backswing) for ``round(t_max / dt)`` steps.  IMPACT
    is the clubhead's polar angle about the hub axis,
    :math:`\varphi(q) = \operatorname{atan2}(Y, X)` of the face centre,
    reaching the ball's, turning the downswing's way (counter-clockwise) from its start:
    the first sign change of :math:`\varphi - \varphi_{ball}` (unwrapped in time).  Within
    that step the state is the quintic Hermite interpolant of :math:`q, v, \dot v` at its
    two ends (accelerations from :func:`geomotion.constraints.constrained_dynamics`;
    its error, :math:`O(\Delta t^6)` in q, stays below the integrator's), and the
    crossing is found by bisection to round-off.

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    tau : SwingTorques
        The schedule of the joint torques (N m), the inputs ``u`` of ``INPUT_MATRIX``.
    q0 : None or (..., 5) array_like, keyword only
        Start, rad; default ``golfer.top_of_backswing()``.
    v0 : None or (..., 5) array_like, keyword only
        Starting rates, rad/s, admissible (:math:`J_cv_0 = 0`); default rest.  With
        ``q0`` and a ``tau`` whose onsets are shifted by the branch time, a run branched
        from a state of another run (time restarts at 0).
    dt : float, keyword only
        Step, s; default 1 ms.
    t_max : float, keyword only
        Simulated time, s; default 0.45.
    method : str, keyword only
        Passed to ``simulate_constrained``; default "projection".

    Returns
    -------
    Downswing

    Raises
    ------
    TypeError
        If ``golfer`` or ``tau`` has the wrong type.
    ValueError
        If some rows never reach the ball within ``t_max`` (naming them), or as
        ``simulate_constrained``.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(tau, SwingTorques):
        raise TypeError(f"tau: expected a SwingTorques, got {type(tau).__name__}")
    dt = float(_validate.positive(dt, "dt"))
    t_max = float(_validate.positive(t_max, "t_max"))
    q0 = golfer.top_of_backswing() if q0 is None else _validate.trailing_shape(q0, "q0", (5,))
    v0 = np.zeros_like(q0) if v0 is None else _validate.trailing_shape(v0, "v0", (5,))
    shapes = {
        "golfer": golfer.batch_shape,
        "q0": q0.shape[:-1],
        "v0": v0.shape[:-1],
        "tau.peak": tau.peak.shape[:-1],
    }
    shape = _validate.batch_shape(shapes)
    if shape != golfer.batch_shape or q0.shape[:-1] != shape or v0.shape[:-1] != shape:
        listing = ", ".join(f"{name} {value}" for name, value in shapes.items())
        raise ValueError(
            f"golfer, q0, v0, tau: expected the golfer's batch shape {golfer.batch_shape} "
            f"(one row per parameter set), got {listing}"
        )
    n_steps = max(1, int(round(t_max / dt)))
    run = simulate_constrained(
        golfer.system(),
        golfer.trail_grip,
        q0,
        v0,
        dt,
        n_steps,
        method=method,
        u=tau,
        B=INPUT_MATRIX,
    )
    step = _impact_step(golfer, run)
    q_imp, v_imp, fraction = _locate_impact(golfer, tau, run, step)
    t, q, v = run.t, run.q, run.v
    u = tau(t.reshape((-1,) + (1,) * (q.ndim - 1)), q, v)
    hub = u[..., 0]
    return Downswing(
        trajectory=run,
        impact_time=t[step] + fraction * dt,
        impact_step=step,
        q_impact=q_imp,
        v_impact=v_imp,
        clubhead_speed=np.linalg.norm(golfer.clubhead_velocity(q_imp, v_imp), axis=-1),
        joint_work=_cumulative_trapezoid(u * v[..., :3], dt),
        body_kinetic=golfer.body_kinetic_energies(q, v),
        stand_moment=-hub,
        stand_angular_impulse=_cumulative_trapezoid(-hub, dt),
        angular_momentum=golfer.angular_momentum(q, v),
    )


@dataclass(frozen=True, eq=False)
class GripLoads:
    r"""Loads of the two hands on the club body at one state (:func:`grip_loads`).

    Equations of the book: :eq:`eq-ch3-grip-split` and :eq:`eq-ch2-grip-resultant`.

    Plane coordinates, N and N m; batch axes as ``q``.

    Attributes
    ----------
    acceleration : (..., 5) ndarray
        :math:`\dot v` of the constrained dynamics, rad/s^2.
    multiplier : (..., 2) ndarray
        :math:`\lambda` of ``trail_grip``, N: the club pulls the trail hand with
        :math:`\lambda` and the hand pulls the club with :math:`-\lambda`.
    trail_force : (..., 2) ndarray
        Trail hand on the club, at the trail grip point: :math:`f_T = -\lambda`.
    lead_force : (..., 2) ndarray
        Lead arm on the club body (club and lead hand), at the lead wrist centre, from
        the club body's Newton equation :math:`f_L = m_c(a_c - g_p) - f_T`.
    lead_moment : (...) ndarray
        The wrist torque on the club body, N m (the joint's moment about the plane normal).
    resultant_force : (..., 2) ndarray
        :math:`f_L + f_T = m_c(a_c - g_p)`: fixed by the club body's motion.
    squeeze : (...) ndarray
        Internal force along the line from the lead wrist to the trail grip point,
        :math:`s = \tfrac12(f_L - f_T)\cdot e`: positive when the hands push towards each
        other, negative when they pull apart.  Equal and opposite forces along that line
        change :math:`s` and leave the resultant wrench unchanged
        (eq. ``eq-ch2-grip-resultant``).
    """

    acceleration: np.ndarray
    multiplier: np.ndarray
    trail_force: np.ndarray
    lead_force: np.ndarray
    lead_moment: np.ndarray
    resultant_force: np.ndarray
    squeeze: np.ndarray


def grip_loads(golfer, q, v, tau):
    r"""The two hands' loads on the club at ``(q, v)`` under joint torques ``tau``.

    Equations of the book: :eq:`eq-ch3-grip-split` and :eq:`eq-ch2-grip-resultant`.

    Solves :math:`M\dot v + h = \tau + J_c^T\lambda`, :math:`J_c\dot v + \gamma = 0`
    (:func:`geomotion.constraints.constrained_dynamics`), then splits the load on the club
    body (club and lead hand, body 2) by its Newton equation (see :class:`GripLoads`).

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    q, v : (..., 5) array_like
        rad, rad/s, on the closure (the result is that of the constrained equations).
    tau : (..., 5) array_like
        Joint torques, N m, one per coordinate (``INPUT_MATRIX @ u`` for the three inputs;
        the trail joints may carry torques too).

    Returns
    -------
    GripLoads

    Raises
    ------
    TypeError
        If ``golfer`` is not a SwingPlaneGolfer.
    ValueError
        If ``q``, ``v`` or ``tau`` do not end in 5 entries, or as
        :func:`geomotion.constraints.constrained_dynamics`.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    q = _validate.trailing_shape(q, "q", (5,))
    v = _validate.trailing_shape(v, "v", (5,))
    tau = _validate.trailing_shape(tau, "tau", (5,))
    solved = golfer.constrained_dynamics(q, v, tau)
    a, lam = solved.a, solved.multiplier
    a_club = golfer.body_centre_accelerations(q, v, a)[..., 2, :]
    m_club = golfer.masses[..., 2, None]
    trail = -lam
    resultant = m_club * (a_club - golfer.gravity)
    lead = resultant - trail
    line = golfer.point(q, "trail grip on club") - golfer.point(q, "lead wrist")
    e = line / np.linalg.norm(line, axis=-1, keepdims=True)
    return GripLoads(
        acceleration=a,
        multiplier=lam,
        trail_force=trail,
        lead_force=lead,
        lead_moment=np.broadcast_to(tau[..., 2], a.shape[:-1]).copy(),
        resultant_force=resultant,
        squeeze=0.5 * np.einsum("...x,...x->...", lead - trail, e),
    )


def _polar_angle(golfer, q):
    head = golfer.clubhead(q)
    return np.arctan2(head[..., 1], head[..., 0])


def _ball_angle(golfer):
    return np.arctan2(golfer.ball[..., 1], golfer.ball[..., 0])


def _impact_step(golfer, run):
    """First step k of each row where the unwrapped polar angle passes the ball's."""
    phi = np.unwrap(_polar_angle(golfer, run.q), axis=0)
    target = phi[0] + np.mod(_ball_angle(golfer) - phi[0], 2 * np.pi)
    passed = phi >= target
    missed = ~passed.any(axis=0)
    if np.any(missed):
        rows = np.flatnonzero(missed).tolist() if missed.ndim else []
        raise ValueError(
            f"t_max: the clubhead never reached the ball within {run.t[-1]:.3f} s"
            + (f" in rows {rows}" if missed.ndim else "")
            + " (a longer t_max, or torques that turn the club towards the target)"
        )
    return np.maximum(np.argmax(passed, axis=0) - 1, 0)


def _accelerations(golfer, torques, t, q, v):
    return golfer.constrained_dynamics(q, v, torques(t, q, v) @ INPUT_MATRIX.T).a


def _take(array, step):
    """array[step[i], i, ...] for each batch row i (or array[step] without a batch)."""
    if np.ndim(step) == 0:
        return array[step]
    return np.take_along_axis(array, step.reshape((1, -1) + (1,) * (array.ndim - 2)), 0)[0]


def _step_interpolant(run, step, accelerations):
    r"""The quintic Hermite interpolant of (q, v, a) over step ``step`` of each row.

    Returns ``(t0, state)``: the step's start time and ``state(s)`` -> (q, v) at the
    fraction ``s`` in [0, 1] of the step; ``accelerations(t, q, v)`` gives :math:`\dot v`
    at its two ends.
    """
    dt = run.dt
    t0 = run.t[step]
    q0, v0 = _take(run.q, step), _take(run.v, step)
    q1, v1 = _take(run.q, step + 1), _take(run.v, step + 1)
    shape = np.shape(t0) + (1,)
    a0 = accelerations(np.reshape(t0, shape), q0, v0)
    a1 = accelerations(np.reshape(t0 + dt, shape), q1, v1)

    def state(s):
        s = np.reshape(s, shape)
        h, d = _quintic_hermite(s), _quintic_hermite(s, derivative=True)
        q = h[0] * q0 + h[1] * dt * v0 + h[2] * dt**2 * a0 + h[3] * q1 + h[4] * dt * v1
        q = q + h[5] * dt**2 * a1
        v = (d[0] * q0 + d[3] * q1) / dt + d[1] * v0 + d[2] * dt * a0 + d[4] * v1
        return q, v + d[5] * dt * a1

    return t0, state


def _bisect_step(ahead, shape):
    """The fraction s in [0, 1] where ``ahead(s)`` turns True, by bisection to round-off
    (2^-60 of a step), each row of ``shape`` on its own."""
    low, high = np.zeros(shape), np.ones(shape)
    for _ in range(60):
        middle = 0.5 * (low + high)
        passed = ahead(middle)
        low, high = np.where(passed, low, middle), np.where(passed, middle, high)
    return 0.5 * (low + high)


def _locate_impact(golfer, torques, run, step):
    r"""Quintic Hermite of (q, v, a) over the impact step; bisection on the polar angle."""
    t0, state = _step_interpolant(
        run, step, lambda t, q, v: _accelerations(golfer, torques, t, q, v)
    )
    ball = _ball_angle(golfer)
    s = _bisect_step(
        lambda s: wrap_angle(_polar_angle(golfer, state(s)[0]) - ball) >= 0, np.shape(t0)
    )
    q, v = state(s)
    return q, v, s


#: Quintic Hermite basis on [0, 1]: rows (q0, dt v0, dt^2 a0, q1, dt v1, dt^2 a1), columns
#: the coefficients of s^0 ... s^5.
_QUINTIC = np.array(
    [
        [1, 0, 0, -10, 15, -6],
        [0, 1, 0, -6, 8, -3],
        [0, 0, 0.5, -1.5, 1.5, -0.5],
        [0, 0, 0, 10, -15, 6],
        [0, 0, 0, -4, 7, -3],
        [0, 0, 0, 0.5, -1, 0.5],
    ]
)


def _quintic_hermite(s, derivative=False):
    """The six basis functions at ``s`` (or their s-derivatives), a list of arrays."""
    powers = np.arange(6)
    if derivative:
        coefficients = _QUINTIC[:, 1:] * powers[1:]
        terms = [s**k for k in range(5)]
    else:
        coefficients = _QUINTIC
        terms = [s**k for k in range(6)]
    return [sum(c * term for c, term in zip(row, terms)) for row in coefficients]
