r"""The swing study's measures and its comparisons with published results.

Measures of one :class:`geomotion.models.Downswing`:

* :func:`kinematic_sequence` -> :class:`KinematicSequence`: when the trunk (hub), the
  lead arm and the club reach their peak angular velocities in the plane;
* :func:`positive_work`: each generator's positive work up to impact;
* :func:`passive_transfer` -> :class:`PassiveTransfer`: every generator switched off at
  one state, the pivot (hub) held fixed as in White's (2006) double pendulum or left free,
  and the energy the arms and the club then exchange.

The comparisons with published results built on them are in
:mod:`geomotion.models._comparisons`.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np
from scipy.integrate import cumulative_simpson

from .. import _numerics, _validate, constraints, muscles
from ..integrators import simulate_constrained
from ..systems import MechanicalSystem
from ._downswing import Downswing
from ._generators import SwingGenerators
from ._shared import frozen
from .swing import INPUT_MATRIX, SwingPlaneGolfer

__all__ = [
    "KinematicSequence",
    "kinematic_sequence",
    "positive_work",
    "PassiveTransfer",
    "passive_transfer",
]

#: The segments of :class:`KinematicSequence`, proximal to distal.
SEGMENTS = ("trunk", "lead arm", "club")


@dataclass(frozen=True, eq=False)
class KinematicSequence:
    r"""Peak angular velocities of trunk, lead arm and club in the plane before impact.

    The absolute angles are :math:`\theta_0 = q_0`, :math:`\theta_1 = q_0 + q_1` and
    :math:`\theta_2 = q_0 + q_1 + q_2`; their rates are read on the run's stored steps
    before impact and at the located impact itself (never past it: a segment still
    speeding up at impact peaks there).

    Attributes
    ----------
    peak_time : (3,) ndarray
        s, on the run's clock.
    peak_rate : (3,) ndarray
        rad/s.
    impact_time : float
        s.
    """

    peak_time: np.ndarray
    peak_rate: np.ndarray
    impact_time: float

    @property
    def proximal_to_distal(self):
        """Whether the peaks come trunk, then arm, then club."""
        return bool(np.all(np.diff(self.peak_time) > 0))


def _one_swing(downswing):
    if not isinstance(downswing, Downswing):
        raise TypeError(f"downswing: expected a Downswing, got {type(downswing).__name__}")
    if np.ndim(downswing.impact.time) != 0:
        raise ValueError(
            f"downswing: expected one parameter set, got batch {np.shape(downswing.impact.time)}"
        )
    if not downswing.impact.crossed:
        raise ValueError("downswing: expected a swing that meets the ball's line, got none")
    return int(downswing.impact.step)


def kinematic_sequence(downswing):
    """The :class:`KinematicSequence` of one swing.

    Parameters
    ----------
    downswing : Downswing
        One parameter set, with an impact.

    Returns
    -------
    KinematicSequence

    Raises
    ------
    TypeError
        If ``downswing`` is not a Downswing.
    ValueError
        If it holds several parameter sets or has no impact.
    """
    k = _one_swing(downswing)  # t_k <= impact < t_k+1
    impact = downswing.impact
    v = np.concatenate([downswing.trajectory.v[: k + 1, :3], impact.v[None, :3]])
    t = np.append(downswing.trajectory.t[: k + 1], impact.time)
    rates = np.cumsum(v, axis=1)  # theta_0, theta_1, theta_2 rates
    peak = np.argmax(rates, axis=0)
    return KinematicSequence(
        peak_time=frozen(t[peak]),
        peak_rate=frozen(rates[peak, np.arange(3)]),
        impact_time=float(impact.time),
    )


def positive_work(downswing):
    r"""Each generator's positive work up to impact, J.

    .. math:: W_j^+ = \int_0^{t_{imp}} \max(u_j v_j, 0)\,dt

    by the trapezoid rule on the stored steps before impact, plus the fraction
    :math:`(t_{imp} - t_k)/\Delta t` of the positive work over the step
    :math:`[t_k, t_{k+1}]` that holds impact (the wrist's includes its passive stops,
    which are part of its joint torque).

    Parameters
    ----------
    downswing : Downswing
        One parameter set, with an impact.

    Returns
    -------
    (3,) ndarray
        Hub, lead shoulder, lead wrist, J.

    Raises
    ------
    TypeError
        If ``downswing`` is not a Downswing.
    ValueError
        If it holds several parameter sets or has no impact.
    """
    k = _one_swing(downswing)  # t_k <= impact < t_k+1
    trajectory = downswing.trajectory
    increments = np.clip(np.diff(downswing.joint_work[: k + 2], axis=0), 0.0, None)
    share = (float(downswing.impact.time) - trajectory.t[k]) / trajectory.dt
    return increments[:k].sum(axis=0) + share * increments[k]


@dataclass(frozen=True, eq=False)
class PassiveTransfer:
    r"""Energies after every generator is switched off at one state (:func:`passive_transfer`).

    Attributes
    ----------
    branch_time : float
        The swing's time of the state, s.
    pivot_fixed : bool
        Whether the hub was held (White's fixed pivot) or left free.
    trail_arm : bool
        Whether the trail arm rode on the grip, or was held still off the club.
    gravity, wrist_stop : bool
        Whether gravity and the wrist's passive stops acted.
    t : (n,) ndarray
        s from the branch.
    arms_kinetic, club_kinetic : (n,) ndarray
        Kinetic energy of the three arm bodies, and of the club with the lead hand, J.
    energy_residual : float
        Largest change of the kinetic plus gravitational plus wrist-stop energy less the
        work of the stop's damping (cumulative Simpson rule), J (no other source does work, so it
        measures the integration alone).
    trajectory : geomotion.integrators.ConstrainedTrajectory
        The passive run.
    """

    branch_time: float
    pivot_fixed: bool
    trail_arm: bool
    gravity: bool
    wrist_stop: bool
    t: np.ndarray
    arms_kinetic: np.ndarray
    club_kinetic: np.ndarray
    energy_residual: float
    trajectory: object

    @property
    def club_gain(self):
        """The club's largest kinetic-energy gain over the run, J."""
        return float(self.club_kinetic.max() - self.club_kinetic[0])

    @property
    def arms_change(self):
        """The arms' kinetic energy change when the club's peaks, J."""
        k = int(np.argmax(self.club_kinetic))
        return float(self.arms_kinetic[k] - self.arms_kinetic[0])


def _hub_held(golfer, hub_angle):
    """The trail grip and the hub held at ``hub_angle``: three rows (m, m, rad)."""
    grip = golfer.trail_grip
    row = np.eye(5)[0]
    return constraints.FunctionConstraint(
        residual=lambda q: np.concatenate([grip.residual(q), q[..., :1] - hub_angle], axis=-1),
        jacobian=lambda q: np.concatenate(
            [grip.jacobian(q), np.broadcast_to(row, q.shape[:-1] + (1, 5))], axis=-2
        ),
        acceleration_bias=lambda q, v: np.concatenate(
            [grip.acceleration_bias(q, v), np.zeros(q.shape[:-1] + (1,))], axis=-1
        ),
    )


def _lead_side_only(hub_angle, trail_angles):
    """The hub and the trail arm held, the trail hand off the club: three rows (rad).

    The trail arm hangs from the held hub and nothing joins it to the club, so the lead
    arm and the club swing as a double pendulum about the lead shoulder.
    """
    rows = np.eye(5)[[0, 3, 4]]
    held = np.array([hub_angle, *trail_angles])
    return constraints.FunctionConstraint(
        residual=lambda q: q[..., [0, 3, 4]] - held,
        jacobian=lambda q: np.broadcast_to(rows, q.shape[:-1] + (3, 5)),
        acceleration_bias=lambda q, v: np.zeros(q.shape[:-1] + (3,)),
    )


def _without_gravity(golfer):
    """The golfer's equations with gravity removed: :math:`h(q, v) - h(q, 0)` (the
    Coriolis and centripetal terms are quadratic in v) and a zero potential."""
    return MechanicalSystem(
        mass_matrix=_numerics.Trusted(golfer.mass_matrix),
        bias=_numerics.Trusted(lambda q, v: golfer.bias(q, v) - golfer.bias(q, np.zeros_like(v))),
        potential=_numerics.Trusted(lambda q: np.zeros(np.shape(q)[:-1])),
    )


def passive_transfer(
    golfer,
    generators,
    downswing,
    *,
    branch_step,
    pivot_fixed=True,
    trail_arm=True,
    gravity=True,
    wrist_stop=True,
    duration=0.1,
):
    r"""Switch every generator off at one state of a swing and follow the energies.

    From the state at ``branch_step`` with every generator off (the wrist's passive stops
    stay unless ``wrist_stop`` is False; gravity acts unless ``gravity`` is False, when the
    bias loses its gravity term, :math:`h(q, v) - h(q, 0)`, and the potential is zero).
    With all of White's conditions (``pivot_fixed``, no trail arm, no gravity, no stop)
    the lead arm and the club are his double pendulum about a fixed shoulder, nothing but
    their inertia acts, and their kinetic energy is conserved.

    With ``pivot_fixed`` the hub is held where it is, as the fixed pivot of White's
    (2006) double pendulum: the velocity keeps the arm's and the club's absolute rates
    (:math:`v_1 \leftarrow v_0 + v_1`, :math:`v_0 \leftarrow 0`) and is then projected on
    the three constraint rows in the kinetic metric,
    :math:`v = v' - M^{-1}J^T(JM^{-1}J^T)^{-1}Jv'`; without it the state is the swing's
    own.  Without ``trail_arm`` the trail hand lets go of the club and the trail arm is
    held where it is on the held hub (:math:`q_0, q_3, q_4` fixed; the lead side's rates
    are kept exactly, since no body couples them with the trail arm's), so the lead arm
    and the club swing alone.  Runge-Kutta 4 with projection, the swing's step.

    Parameters
    ----------
    golfer : SwingPlaneGolfer
        One parameter set.
    generators : SwingGenerators
        The swing's generators (their wrist stops are kept).
    downswing : Downswing
        The swing (:func:`geomotion.models.simulate_downswing`).
    branch_step : int, keyword only
        Stored step of the state.
    pivot_fixed : bool, keyword only
        Hold the hub; default True.
    trail_arm : bool, keyword only
        Keep the trail hand on the club; default True.  False needs ``pivot_fixed``.
    gravity, wrist_stop : bool, keyword only
        Keep gravity in the plane, and the wrist's passive stops; default True.
    duration : float, keyword only
        s, positive; default 0.1.

    Returns
    -------
    PassiveTransfer

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If the golfer holds several parameter sets, ``branch_step`` is out of the run,
        ``duration`` is not positive, or ``trail_arm`` is False with a free pivot.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(generators, SwingGenerators):
        raise TypeError(f"generators: expected a SwingGenerators, got {type(generators).__name__}")
    if not isinstance(downswing, Downswing):
        raise TypeError(f"downswing: expected a Downswing, got {type(downswing).__name__}")
    for name, flag in (
        ("pivot_fixed", pivot_fixed),
        ("trail_arm", trail_arm),
        ("gravity", gravity),
        ("wrist_stop", wrist_stop),
    ):
        if not isinstance(flag, bool):
            raise TypeError(f"{name}: expected a bool, got {type(flag).__name__}")
    if golfer.batch_shape != ():
        raise ValueError(f"golfer: expected one parameter set, got batch {golfer.batch_shape}")
    if not (trail_arm or pivot_fixed):
        raise ValueError(
            "trail_arm: False needs pivot_fixed True (the trail arm is held on the hub)"
        )
    run = downswing.trajectory
    k = _validate.count(branch_step, "branch_step", minimum=0, maximum=len(run.t) - 1)
    duration = float(_validate.positive(duration, "duration"))
    q, v = run.q[k], run.v[k].copy()
    off = dataclasses.replace(generators, active=frozen(np.zeros(3)))
    closure = golfer.trail_grip
    if pivot_fixed:
        closure = _hub_held(golfer, q[0]) if trail_arm else _lead_side_only(q[0], q[3:])
        v[1], v[0] = v[0] + v[1], 0.0
        M, J = golfer.mass_matrix(q), closure.jacobian(q)
        MinvJt = np.linalg.solve(M, J.T)
        v = v - MinvJt @ np.linalg.solve(J @ MinvJt, J @ v)
    passive = simulate_constrained(
        golfer.system() if gravity else _without_gravity(golfer),
        closure,
        q,
        v,
        run.dt,
        max(1, int(round(duration / run.dt))),
        u=off if wrist_stop else np.zeros(3),
        B=INPUT_MATRIX,
    )
    kinetic = golfer.body_kinetic_energies(passive.q, passive.v)
    energy = passive.kinetic + passive.potential
    if wrist_stop:  # the stop's stored energy, and the work its damping dissipated
        q2, v2 = passive.q[:, 2], passive.v[:, 2]
        energy = energy + off.wrist_stop.potential(q2)
        if isinstance(off.wrist_stop, muscles.DampedLimit):
            power = off.wrist_stop.damping_tau(q2, v2) * v2
            energy = energy - cumulative_simpson(power, dx=run.dt, initial=0.0)
    return PassiveTransfer(
        branch_time=float(run.t[k]),
        pivot_fixed=pivot_fixed,
        trail_arm=trail_arm,
        gravity=gravity,
        wrist_stop=wrist_stop,
        t=frozen(passive.t),
        arms_kinetic=frozen(kinetic[:, [1, 3, 4]].sum(axis=1)),
        club_kinetic=frozen(kinetic[:, 2]),
        energy_residual=float(np.abs(energy - energy[0]).max()),
        trajectory=passive,
    )
