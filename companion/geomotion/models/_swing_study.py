r"""The swing study's measures and its comparisons with published results.

Measures of one :class:`geomotion.models.Downswing`:

* :func:`kinematic_sequence` -> :class:`KinematicSequence`: when the trunk (hub), the
  lead arm and the club reach their peak angular velocities in the plane;
* :func:`positive_work`: each generator's positive work up to impact;
* :func:`passive_transfer` -> :class:`PassiveTransfer`: every generator switched off at
  one state, the pivot (hub) held fixed as in White's (2006) double pendulum or left free,
  and the energy the arms and the club then exchange.

Comparisons (:class:`Comparison`): each states the published number with its source and
strength label (``golf_data.DATA``), the model's number, whether the two are the same
quantity under the same conditions, the rule of the verdict and the verdict.  The rules
are fixed before the model is run and are narrow enough for a wrong model to fail them
(``tests/companion/test_swing_study.py`` perturbs the model and watches the verdicts
change):

* :func:`compare_speed`: clubhead speed inside the low-handicap range;
* :func:`compare_shaft_rate`: peak club angular velocity within one standard deviation of
  a group's mean;
* :func:`compare_sequence`: peaks in proximal-to-distal order before impact;
* :func:`compare_trunk_peak`: the trunk's rate still rising at impact (its peak comes
  after impact in professionals);
* :func:`compare_wrist_gain`, :func:`compare_wrist_onset`: Sprigings & Neal's wrist
  torque, within half their value (their numbers are approximate: "about");
* :func:`compare_trend`: a published direction of change (head mass, club moment of
  inertia);
* :func:`compare_work_share`: the trunk-and-hips share of positive work inside the
  four golfers' range;
* :func:`compare_tempo`: downswing time inside the trade band;
* :func:`compare_transfer`: White's passive transfer from the arms to the club.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from .. import _validate, constraints
from ..integrators import simulate_constrained
from ._downswing import Downswing
from ._generators import SwingGenerators
from ._shared import frozen
from .golf_data import DATA
from .swing import INPUT_MATRIX, SwingPlaneGolfer

__all__ = [
    "KinematicSequence",
    "kinematic_sequence",
    "positive_work",
    "PassiveTransfer",
    "passive_transfer",
    "Comparison",
    "compare_speed",
    "compare_shaft_rate",
    "compare_sequence",
    "compare_trunk_peak",
    "compare_wrist_gain",
    "compare_wrist_onset",
    "compare_trend",
    "compare_work_share",
    "compare_tempo",
    "compare_transfer",
]

#: The segments of :class:`KinematicSequence`, proximal to distal.
SEGMENTS = ("trunk", "lead arm", "club")


@dataclass(frozen=True, eq=False)
class KinematicSequence:
    r"""Peak angular velocities of trunk, lead arm and club in the plane before impact.

    The absolute angles are :math:`\theta_0 = q_0`, :math:`\theta_1 = q_0 + q_1` and
    :math:`\theta_2 = q_0 + q_1 + q_2`; their rates are read on the run's stored steps up
    to the step holding impact.

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
    return int(downswing.impact.step) + 1


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
    k = _one_swing(downswing)
    v = downswing.trajectory.v[: k + 1]
    rates = np.cumsum(v[:, :3], axis=1)  # theta_0, theta_1, theta_2 rates
    peak = np.argmax(rates, axis=0)
    return KinematicSequence(
        peak_time=frozen(downswing.trajectory.t[peak]),
        peak_rate=frozen(rates[peak, np.arange(3)]),
        impact_time=float(downswing.impact.time),
    )


def positive_work(downswing):
    r"""Each generator's positive work up to impact, J.

    .. math:: W_j^+ = \int_0^{t_{imp}} \max(u_j v_j, 0)\,dt

    by the trapezoid rule on the stored steps up to the step holding impact (the wrist's
    includes its passive stops, which are part of its joint torque).

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
    k = _one_swing(downswing)
    increments = np.diff(downswing.joint_work[: k + 1], axis=0)
    return np.clip(increments, 0.0, None).sum(axis=0)


@dataclass(frozen=True, eq=False)
class PassiveTransfer:
    r"""Energies after every generator is switched off at one state (:func:`passive_transfer`).

    Attributes
    ----------
    branch_time : float
        The swing's time of the state, s.
    pivot_fixed : bool
        Whether the hub was held (White's fixed pivot) or left free.
    t : (n,) ndarray
        s from the branch.
    arms_kinetic, club_kinetic : (n,) ndarray
        Kinetic energy of the three arm bodies, and of the club with the lead hand, J.
    energy_residual : float
        Largest change of the kinetic plus gravitational plus wrist-stop energy, J (no
        source does work, so it measures the integration alone).
    trajectory : geomotion.integrators.ConstrainedTrajectory
        The passive run.
    """

    branch_time: float
    pivot_fixed: bool
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


def passive_transfer(golfer, generators, downswing, *, branch_step, pivot_fixed=True, duration=0.1):
    r"""Switch every generator off at one state of a swing and follow the energies.

    From the state at ``branch_step`` with every generator off (the wrist's passive stops
    stay).  With ``pivot_fixed`` the hub is held where it is, as the fixed pivot of White's
    (2006) double pendulum: the velocity keeps the arm's and the club's absolute rates
    (:math:`v_1 \leftarrow v_0 + v_1`, :math:`v_0 \leftarrow 0`) and is then projected on
    the three constraint rows in the kinetic metric,
    :math:`v = v' - M^{-1}J^T(JM^{-1}J^T)^{-1}Jv'`; without it the state is the swing's
    own.  Runge-Kutta 4 with projection, the swing's step.

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
        If the golfer holds several parameter sets, ``branch_step`` is out of the run or
        ``duration`` is not positive.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(generators, SwingGenerators):
        raise TypeError(f"generators: expected a SwingGenerators, got {type(generators).__name__}")
    if not isinstance(downswing, Downswing):
        raise TypeError(f"downswing: expected a Downswing, got {type(downswing).__name__}")
    if not isinstance(pivot_fixed, bool):
        raise TypeError(f"pivot_fixed: expected a bool, got {type(pivot_fixed).__name__}")
    if golfer.batch_shape != ():
        raise ValueError(f"golfer: expected one parameter set, got batch {golfer.batch_shape}")
    run = downswing.trajectory
    k = _validate.count(branch_step, "branch_step", minimum=0, maximum=len(run.t) - 1)
    duration = float(_validate.positive(duration, "duration"))
    q, v = run.q[k], run.v[k].copy()
    off = dataclasses.replace(generators, active=frozen(np.zeros(3)))
    closure = golfer.trail_grip
    if pivot_fixed:
        closure = _hub_held(golfer, q[0])
        v[1], v[0] = v[0] + v[1], 0.0
        M, J = golfer.mass_matrix(q), closure.jacobian(q)
        MinvJt = np.linalg.solve(M, J.T)
        v = v - MinvJt @ np.linalg.solve(J @ MinvJt, J @ v)
    passive = simulate_constrained(
        golfer.system(),
        closure,
        q,
        v,
        run.dt,
        max(1, int(round(duration / run.dt))),
        u=off,
        B=INPUT_MATRIX,
    )
    kinetic = golfer.body_kinetic_energies(passive.q, passive.v)
    energy = passive.kinetic + passive.potential + off.wrist_stop.potential(passive.q[:, 2])
    return PassiveTransfer(
        branch_time=float(run.t[k]),
        pivot_fixed=pivot_fixed,
        t=frozen(passive.t),
        arms_kinetic=frozen(kinetic[:, [1, 3, 4]].sum(axis=1)),
        club_kinetic=frozen(kinetic[:, 2]),
        energy_residual=float(np.abs(energy - energy[0]).max()),
        trajectory=passive,
    )


@dataclass(frozen=True, eq=False)
class Comparison:
    """One row of the swing study's comparison table.

    Attributes
    ----------
    quantity : str
        What is compared.
    source : str
        Bibliography key of the published number.
    strength : str
        Its strength label (``golf_data.STRENGTHS``).
    published : str
        The published number as printed (with its unit).
    model : str
        The model's number as printed (with its unit).
    same_quantity : str
        Whether the two are the same quantity under the same conditions, and what differs.
    rule : str
        The verdict's rule.
    agrees : bool
        The verdict.
    """

    quantity: str
    source: str
    strength: str
    published: str
    model: str
    same_quantity: str
    rule: str
    agrees: bool


def _finite(value, name):
    value = _validate.real_array(value, name)
    if value.ndim != 0:
        raise ValueError(f"{name}: expected a number, got shape {value.shape}")
    return float(value)


def compare_speed(speed):
    """Clubhead speed at impact, m/s, against the low-handicap range (MacKenzie et al. 2015).

    Parameters
    ----------
    speed : float
        m/s.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``speed`` is not a finite number.
    """
    speed = _finite(speed, "speed")
    datum = DATA["low_handicap_speed_range"]
    low, high = datum.value
    return Comparison(
        quantity="clubhead speed at impact",
        source=datum.source,
        strength=datum.strength,
        published=f"{low:.0f}-{high:.0f} m/s",
        model=f"{speed:.1f} m/s",
        same_quantity="same quantity (driver, at impact); 18 golfers against one model golfer",
        rule="inside the range",
        agrees=bool(low <= speed <= high),
    )


def compare_shaft_rate(peak_rate, *, group):
    """Peak club angular velocity, rad/s, against Zheng et al.'s professionals.

    Parameters
    ----------
    peak_rate : float
        rad/s.
    group : {"PGA", "LPGA"}, keyword only
        Zheng et al. (2008a) male or (2008b) female professionals.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``peak_rate`` is not a finite number or ``group`` is unknown.
    """
    peak_rate = _finite(peak_rate, "peak_rate")
    keys = {"PGA": "pga_shaft_angular_velocity", "LPGA": "lpga_shaft_angular_velocity"}
    if group not in keys:
        raise ValueError(f"group: expected 'PGA' or 'LPGA', got {group!r}")
    datum = DATA[keys[group]]
    mean, sd = datum.value
    return Comparison(
        quantity=f"peak club angular velocity, {group} professionals",
        source=datum.source,
        strength=datum.strength,
        published=f"{np.degrees(mean):.0f} +/- {np.degrees(sd):.0f} deg/s",
        model=f"{np.degrees(peak_rate):.0f} deg/s",
        same_quantity="same quantity if the club turns in one plane (ours does; theirs in 3-D)",
        rule="within one standard deviation of the mean",
        agrees=bool(abs(peak_rate - mean) <= sd),
    )


def compare_sequence(sequence):
    """Order of the peaks before impact against the kinematic-sequence findings.

    Parameters
    ----------
    sequence : KinematicSequence

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``sequence`` is not a KinematicSequence.
    """
    if not isinstance(sequence, KinematicSequence):
        raise TypeError(f"sequence: expected a KinematicSequence, got {type(sequence).__name__}")
    times = ", ".join(f"{name} {1e3 * t:.0f} ms" for name, t in zip(SEGMENTS, sequence.peak_time))
    return Comparison(
        quantity="order of peak angular velocities",
        source="Vena2011",
        strength="measured",
        published="proximal to distal in 2 of 5 subjects",
        model=f"{times}; impact {1e3 * sequence.impact_time:.0f} ms",
        same_quantity="unlike: their pelvis, shoulders and arm in 3-D; our trunk, arm, club",
        rule="peaks in proximal-to-distal order",
        agrees=sequence.proximal_to_distal,
    )


def compare_trunk_peak(sequence, *, step):
    """Whether the trunk's rate peaks at impact or later, against Steele et al. (2018):
    in professionals the peak upper-torso rotational velocity comes after impact.

    Parameters
    ----------
    sequence : KinematicSequence
    step : float, keyword only
        The run's step, s: a peak within one step of impact is at impact (the rates are
        read on the stored steps).

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``sequence`` is not a KinematicSequence.
    ValueError
        If ``step`` is not positive.
    """
    if not isinstance(sequence, KinematicSequence):
        raise TypeError(f"sequence: expected a KinematicSequence, got {type(sequence).__name__}")
    step = float(_validate.positive(step, "step"))
    lead = sequence.impact_time - sequence.peak_time[0]
    return Comparison(
        quantity="trunk's peak rate relative to impact",
        source="Steele2018",
        strength="measured",
        published="after impact (11 professionals)",
        model=f"{1e3 * lead:.0f} ms before impact",
        same_quantity="comparable: their upper torso in 3-D, our trunk in the plane",
        rule="at or after impact (within one step)",
        agrees=bool(lead <= step),
    )


def compare_wrist_gain(speed, speed_without_wrist):
    """Speed gained by an active wrist torque, against Sprigings & Neal's about 9 %.

    Parameters
    ----------
    speed, speed_without_wrist : float
        Optimal clubhead speeds with and without the wrist generator, m/s.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If a speed is not a positive number.
    """
    speed = float(_validate.positive(_finite(speed, "speed"), "speed"))
    without = _finite(speed_without_wrist, "speed_without_wrist")
    without = float(_validate.positive(without, "speed_without_wrist"))
    datum = DATA["wrist_timing_gain"]
    gain = speed / without - 1.0
    return Comparison(
        quantity="speed gained by the wrist torque",
        source=datum.source,
        strength=datum.strength,
        published=f"about {100 * datum.value:.0f} %",
        model=f"{100 * gain:.0f} %",
        same_quantity="same experiment (onsets optimised with and without the wrist "
        "generator, impact position imposed); their generator values unknown",
        rule="within half the published gain of it",
        agrees=bool(abs(gain - datum.value) <= 0.5 * datum.value),
    )


def compare_wrist_onset(arm_angle):
    """The lead arm's angle below the horizontal at the wrist's onset, rad.

    Parameters
    ----------
    arm_angle : float
        rad.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``arm_angle`` is not a finite number.
    """
    arm_angle = _finite(arm_angle, "arm_angle")
    datum = DATA["wrist_best_onset_arm_angle"]
    return Comparison(
        quantity="lead arm below the horizontal at the wrist's onset",
        source=datum.source,
        strength=datum.strength,
        published=f"about {np.degrees(datum.value):.0f} deg",
        model=f"{np.degrees(arm_angle):.0f} deg",
        same_quantity="same measure; theirs for a 44 m/s swing",
        rule="within half the published angle of it",
        agrees=bool(abs(arm_angle - datum.value) <= 0.5 * datum.value),
    )


def compare_trend(quantity, *, key, speed_before, speed_after, conditions):
    """A published direction of change: the clubhead slows when the club gets heavier.

    Parameters
    ----------
    quantity : str
        What changed, e.g. "head 174 -> 200 g, onsets re-optimised".
    key : {"mackenzie_head_masses", "club_moi_difference"}, keyword only
        The published result (``golf_data.DATA``).
    speed_before, speed_after : float, keyword only
        Clubhead speeds, m/s.
    conditions : str, keyword only
        How the model's change was made, against the study's.

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``quantity`` or ``conditions`` is not a string.
    ValueError
        If ``key`` is unknown or a speed is not a finite number.
    """
    for name, value in (("quantity", quantity), ("conditions", conditions)):
        if not isinstance(value, str):
            raise TypeError(f"{name}: expected a str, got {type(value).__name__}")
    if key not in ("mackenzie_head_masses", "club_moi_difference"):
        raise ValueError(
            f"key: expected 'mackenzie_head_masses' or 'club_moi_difference', got {key!r}"
        )
    before = _finite(speed_before, "speed_before")
    after = _finite(speed_after, "speed_after")
    datum = DATA[key]
    return Comparison(
        quantity=quantity,
        source=datum.source,
        strength=datum.strength,
        published="slower (a trend; no magnitude given)",
        model=f"{after - before:+.2f} m/s ({100 * (after / before - 1):+.1f} %)",
        same_quantity=conditions,
        rule="slower",
        agrees=bool(after < before),
    )


def compare_work_share(work):
    """The hub's share of the generators' positive work against Nesbit & Serrano's
    back-and-hip share of total body work.

    Parameters
    ----------
    work : (3,) array_like
        Positive work of hub, lead shoulder and lead wrist, J (:func:`positive_work`).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``work`` is not 3 non-negative numbers with a positive sum.
    """
    work = _validate.trailing_shape(work, "work", (3,))
    if work.ndim != 1 or np.any(work < 0) or not work.sum() > 0:
        raise ValueError(f"work: expected 3 non-negative works with a positive sum, got {work}")
    datum = DATA["back_and_hip_work_share"]
    low, high = min(datum.value), max(datum.value)
    share = work[0] / work.sum()
    return Comparison(
        quantity="trunk-and-hips share of the work",
        source=datum.source,
        strength=datum.strength,
        published=f"{100 * low:.1f}-{100 * high:.1f} %",
        model=f"{100 * share:.1f} %",
        same_quantity="unlike: their share of all joints' work in 3-D (legs, both arms); "
        "ours the hub's share of three generators' positive work",
        rule="inside the four golfers' range",
        agrees=bool(low <= share <= high),
    )


def compare_tempo(duration):
    """Downswing time, s, against the tour players' video band (trade).

    Parameters
    ----------
    duration : float
        From the first onset to impact, s.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``duration`` is not a finite number.
    """
    duration = _finite(duration, "duration")
    datum = DATA["tempo_downswing_time"]
    return Comparison(
        quantity="downswing time",
        source=datum.source,
        strength=datum.strength,
        published=f"{datum.low:.2f}-{datum.high:.2f} s",
        model=f"{duration:.3f} s",
        same_quantity="unlike in its start: video from the top's last frame, ours from the "
        "first excitation",
        rule="inside the band",
        agrees=bool(datum.low <= duration <= datum.high),
    )


def compare_transfer(transfer):
    """White's (2006) passive transfer: with no torque, the arms' kinetic energy passes to
    the club.

    Parameters
    ----------
    transfer : PassiveTransfer

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``transfer`` is not a PassiveTransfer.
    """
    if not isinstance(transfer, PassiveTransfer):
        raise TypeError(f"transfer: expected a PassiveTransfer, got {type(transfer).__name__}")
    pivot = "pivot fixed" if transfer.pivot_fixed else "pivot free"
    return Comparison(
        quantity=f"passive transfer, every torque off, {pivot}",
        source="White2006",
        strength="model",
        published="the arms' energy passes to the club",
        model=f"club {transfer.club_gain:+.1f} J, arms {transfer.arms_change:+.1f} J",
        same_quantity="same conditions (no torque, fixed pivot)"
        if transfer.pivot_fixed
        else "unlike: his pivot is fixed, the hub here turns",
        rule="the club gains energy while the arms lose it",
        agrees=bool(transfer.club_gain > 0 and transfer.arms_change < 0),
    )
