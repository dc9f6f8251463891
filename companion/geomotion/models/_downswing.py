r"""The downswing of the swing-plane golfer (:mod:`geomotion.models.swing`) under its
torque generators, from the top of the backswing to impact, and the two hands' loads on
the club.

* :func:`simulate_downswing` -> :class:`Downswing`: one constrained run of every parameter
  set (:func:`geomotion.integrators.simulate_constrained`) under
  :class:`geomotion.models.SwingGenerators`, impact located as an event between steps
  (:func:`geomotion.models.locate_impact`), per-joint work, per-body energy, the stand's
  moment and impulse;
* :func:`grip_loads` -> :class:`GripLoads`: the lead and trail hands' forces on the club,
  their resultant and the internal squeeze at one state.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..integrators import simulate_constrained
from ._generators import Holding, SwingGenerators, holding_activation
from ._impact import IMPACT_BAND, Impact, ball_at_address, locate_impact
from .swing import INPUT_MATRIX, SwingPlaneGolfer

__all__ = ["DOWNSWING_HORIZON", "Downswing", "simulate_downswing", "GripLoads", "grip_loads"]


@dataclass(frozen=True, eq=False)
class Downswing:
    r"""Result of :func:`simulate_downswing`; batch axes follow the time axis.

    Equations of the book: :eq:`eq-ch3-impact` and :eq:`eq-ch3-joint-work`.

    Attributes
    ----------
    trajectory : geomotion.integrators.ConstrainedTrajectory
        States from t = 0 (the generators' clock) every ``dt``.
    impact : Impact
        The clubhead at the ball's line (:func:`geomotion.models.locate_impact`): time,
        step, state, speed, miss, and whether it reached the ball.
    joint_work : (n_steps + 1, ..., 3) ndarray
        Work of the hub, lead-shoulder and wrist torques (generators and the wrist's
        stops), J, trapezoid rule on the stored states (:math:`\int u_jv_j\,dt`).
    body_kinetic : (n_steps + 1, ..., 5) ndarray
        Kinetic energy of each body of ``BODY_NAMES``, J.
    stand_moment : (n_steps + 1, ...) ndarray
        Moment of the golfer on the stand about the hub axis, N m: minus the hub
        generator's torque (the stand does not turn, so this moment does no work).
    stand_angular_impulse : (n_steps + 1, ...) ndarray
        Its time integral, N m s (trapezoid rule).
    angular_momentum : (n_steps + 1, ...) ndarray
        About the hub axis, kg m^2/s.
    generators : SwingGenerators
        The generators that drove the run (with the holding activations when ``hold``).
    holding : Holding or None
        The holding activations at the start (:func:`geomotion.models.holding_activation`),
        None for a run without ``hold``.
    """

    trajectory: object
    impact: Impact
    joint_work: np.ndarray
    body_kinetic: np.ndarray
    stand_moment: np.ndarray
    stand_angular_impulse: np.ndarray
    angular_momentum: np.ndarray
    generators: object
    holding: Holding | None


def _cumulative_trapezoid(values, dt):
    """Running trapezoid integral along axis 0, starting at 0."""
    steps = 0.5 * dt * (values[1:] + values[:-1])
    return np.concatenate([np.zeros_like(values[:1]), np.cumsum(steps, axis=0)])


#: The simulated time of every downswing, s (``simulate_downswing``'s ``t_max``, which
#: :func:`geomotion.models.optimise_onsets` and the population keep): a swing whose
#: clubhead crosses the ball's line later is not an impact, and counts as not reaching.
DOWNSWING_HORIZON = 0.4


def simulate_downswing(
    golfer,
    generators,
    *,
    ball=None,
    q0=None,
    v0=None,
    dt=1e-3,
    t_max=DOWNSWING_HORIZON,
    method="projection",
    hold=True,
    band=IMPACT_BAND,
):
    r"""Simulate the downswing of every parameter set in one constrained run; locate impact.

    Equations of the book: :eq:`eq-ch3-impact` and :eq:`eq-ch3-joint-work`.

    :func:`geomotion.integrators.simulate_constrained` with ``golfer.system()``,
    ``golfer.trail_grip``, ``u = generators`` and ``B = INPUT_MATRIX``, from
    ``(q0, v0)`` (default: rest at the top of the backswing) for ``round(t_max / dt)``
    steps, on the generators' clock (t = 0 at the first step; an onset before 0 means a
    generator already partly active).  Impact: :func:`geomotion.models.locate_impact`
    (the face centre crossing the ball's line, quintic Hermite and bisection inside the
    step); a row that never crosses has ``impact.crossed`` False and is not an impact.
    With ``hold`` (the default) each generator holds, before its onset, the activation
    that balances the start posture against gravity
    (:func:`geomotion.models.holding_activation`, clipped to [0, 1]: the run's
    ``holding`` says whether the posture is held); without it the generators' own
    ``hold`` is used (zero from rest; a branched run passes the original run's).

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    generators : SwingGenerators
        The joint torques (N m), the inputs ``u`` of ``INPUT_MATRIX``; onsets of the
        golfer's batch shape.
    ball : None or (..., 2) array_like, keyword only
        m; default :func:`geomotion.models.ball_at_address` of the golfer.
    q0 : None or (..., 5) array_like, keyword only
        Start, rad; default ``golfer.top_of_backswing()``.
    v0 : None or (..., 5) array_like, keyword only
        Starting rates, rad/s, admissible (:math:`J_cv_0 = 0`); default rest.  With
        ``q0`` and generators whose onsets are shifted by the branch time, a run branched
        from a state of another run (time restarts at 0).
    dt, t_max : float, keyword only
        Step and simulated time, s; default 1 ms and ``DOWNSWING_HORIZON`` (0.4 s).
    method : str, keyword only
        Passed to ``simulate_constrained``; default "projection".
    hold : bool, keyword only
        Hold the start posture before the onsets; default True.  Needs a start at rest.
    band : float, keyword only
        The contact band's half-width, m (:func:`geomotion.models.locate_impact`);
        default ``IMPACT_BAND``.

    Returns
    -------
    Downswing

    Raises
    ------
    TypeError
        If ``golfer`` or ``generators`` has the wrong type.
    ValueError
        If the batch shapes differ, ``hold`` with a moving start, or as
        ``simulate_constrained``.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(generators, SwingGenerators):
        raise TypeError(f"generators: expected a SwingGenerators, got {type(generators).__name__}")
    if not isinstance(hold, bool):
        raise TypeError(f"hold: expected a bool, got {type(hold).__name__}")
    dt = float(_validate.positive(dt, "dt"))
    t_max = float(_validate.positive(t_max, "t_max"))
    q0 = golfer.top_of_backswing() if q0 is None else _validate.trailing_shape(q0, "q0", (5,))
    v0 = np.zeros_like(q0) if v0 is None else _validate.trailing_shape(v0, "v0", (5,))
    shapes = {
        "golfer": golfer.batch_shape,
        "q0": q0.shape[:-1],
        "v0": v0.shape[:-1],
        "generators.onset": generators.onset.shape[:-1],
    }
    shape = golfer.batch_shape
    starts = (shapes["q0"], shapes["v0"])
    if shapes["generators.onset"] != shape or any(s not in ((), shape) for s in starts):
        listing = ", ".join(f"{name} {value}" for name, value in shapes.items())
        raise ValueError(
            f"golfer, q0, v0, generators: expected the golfer's batch shape {shape} "
            f"(one row per parameter set), got {listing}"
        )
    q0 = np.broadcast_to(q0, shape + (5,))
    v0 = np.broadcast_to(v0, shape + (5,))
    holding = None
    if hold:
        if np.any(v0 != 0.0):
            raise ValueError(
                "hold: a held start needs the golfer at rest (v0 zero); for a branched run "
                "pass hold=False and generators carrying the original run's hold"
            )
        holding = holding_activation(golfer, generators, q0)
        generators = dataclasses.replace(generators, hold=holding.activation)
    ball = ball_at_address(golfer) if ball is None else ball
    run = simulate_constrained(
        golfer.system(),
        golfer.trail_grip,
        q0,
        v0,
        dt,
        max(1, int(round(t_max / dt))),
        method=method,
        u=generators,
        B=INPUT_MATRIX,
    )

    def accelerations(t, q, v):
        return golfer.constrained_dynamics(q, v, generators(t, q, v) @ INPUT_MATRIX.T).a

    t, q, v = run.t, run.q, run.v
    u = generators(t.reshape((-1,) + (1,) * (q.ndim - 1)), q, v)
    hub = u[..., 0]
    return Downswing(
        trajectory=run,
        impact=locate_impact(golfer, run, accelerations, ball, band=band),
        joint_work=_cumulative_trapezoid(u * v[..., :3], dt),
        body_kinetic=golfer.body_kinetic_energies(q, v),
        stand_moment=-hub,
        stand_angular_impulse=_cumulative_trapezoid(-hub, dt),
        angular_momentum=golfer.angular_momentum(q, v),
        generators=generators,
        holding=holding,
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
