r"""The swing study's comparisons with published results.

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
* :func:`compare_arm_peak_timing`: the lead arm's peak rate at the end of the downswing,
  as in Vena et al.'s subject;
* :func:`compare_wrist_gain`, :func:`compare_wrist_onset`: Sprigings & Neal's wrist
  torque, within half their value (their numbers are approximate: "about");
* :func:`compare_trend`: a published direction of change (head mass, club moment of
  inertia);
* :func:`compare_joint_rate`: a joint's peak rate within one standard deviation of
  Zheng et al.'s professionals;
* :func:`compare_work_share`: the hub the largest source of positive work, with more
  than half of it;
* :func:`compare_club_energy`: the club's share of the body's work inside Nesbit &
  Serrano's range;
* :func:`ball_speed`, :func:`compare_ball_speed`: the ball's speed from a point-mass
  collision, and MacKenzie et al.'s "no meaningful effect" of the head's mass on it;
* :func:`compare_tempo`: downswing time inside the trade band;
* :func:`compare_transfer`: White's passive transfer from the arms to the club.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from ._swing_study import SEGMENTS, KinematicSequence, PassiveTransfer
from .golf_data import DATA

__all__ = [
    "Comparison",
    "compare_speed",
    "compare_shaft_rate",
    "compare_sequence",
    "compare_trunk_peak",
    "compare_arm_peak_timing",
    "compare_wrist_gain",
    "compare_wrist_onset",
    "compare_trend",
    "compare_work_share",
    "compare_tempo",
    "compare_transfer",
    "compare_joint_rate",
    "compare_club_energy",
    "ball_speed",
    "compare_ball_speed",
]


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
    like : bool
        True when they are (a like-for-like row), False when the row compares unlike
        quantities or conditions (its verdict is reported, and weighs less).
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
    like: bool
    rule: str
    agrees: bool


def _finite(value, name):
    value = _validate.real_array(value, name)
    if value.ndim != 0:
        raise ValueError(f"{name}: expected a number, got shape {value.shape}")
    return float(value)


def _positive_works(work):
    """``work`` as 3 non-negative works (J) with a positive sum, or a ValueError."""
    work = _validate.trailing_shape(work, "work", (3,))
    if work.ndim != 1 or np.any(work < 0) or not work.sum() > 0:
        raise ValueError(f"work: expected 3 non-negative works with a positive sum, got {work}")
    return work


def _rate_row(quantity, key, peak_rate, *, same_quantity, like):
    """A peak rate (rad/s) against a published mean and standard deviation, DATA[key]:
    agreement within one standard deviation."""
    datum = DATA[key]
    mean, sd = datum.value
    return Comparison(
        quantity=quantity,
        source=datum.source,
        strength=datum.strength,
        published=f"{np.degrees(mean):.0f} +/- {np.degrees(sd):.0f} deg/s",
        model=f"{np.degrees(peak_rate):.0f} deg/s",
        same_quantity=same_quantity,
        like=like,
        rule="within one standard deviation of the mean",
        agrees=bool(abs(peak_rate - mean) <= sd),
    )


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
        same_quantity="same quantity (driver, at impact); 18 golfers against one model "
        "golfer with a rigid shaft",
        like=True,
        rule="inside the range",
        agrees=bool(low <= speed <= high),
    )


#: What the 3-D golfer's rates are (``motion="3-D"`` of the rate comparisons).
_PRESCRIBED = (
    "unlike: a 3-D rate, but of a motion prescribed through published angles at the planar "
    "optimum's clubhead speed, not one the model's muscles produce"
)


def compare_shaft_rate(peak_rate, *, group, motion="planar"):
    """Peak club angular velocity, rad/s, against Zheng et al.'s professionals.

    Parameters
    ----------
    peak_rate : float
        rad/s.
    group : {"PGA", "LPGA"}, keyword only
        Zheng et al. (2008a) male or (2008b) female professionals.
    motion : {"planar", "3-D"}, keyword only
        Whose rate: the planar model's in-plane rate (default), or the 3-D golfer's
        shaft angular velocity (:func:`geomotion.models.swing_rates`).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``peak_rate`` is not a finite number, or ``group`` or ``motion`` is unknown.
    """
    peak_rate = _finite(peak_rate, "peak_rate")
    keys = {"PGA": "pga_shaft_angular_velocity", "LPGA": "lpga_shaft_angular_velocity"}
    if group not in keys:
        raise ValueError(f"group: expected 'PGA' or 'LPGA', got {group!r}")
    sameness = {
        "planar": "unlike: their 3-D shaft rate is at least our in-plane one, so a "
        "shortfall is expected and inconclusive; only an excess would be decisive",
        "3-D": _PRESCRIBED,
    }
    if motion not in sameness:
        raise ValueError(f"motion: expected 'planar' or '3-D', got {motion!r}")
    return _rate_row(
        f"peak club angular velocity, {group} professionals",
        keys[group],
        peak_rate,
        same_quantity=sameness[motion]
        + ("" if group == "PGA" else "; unlike in sex too (female players, a male model)"),
        like=False,
    )


def _checked_sequence(sequence):
    if not isinstance(sequence, KinematicSequence):
        raise TypeError(f"sequence: expected a KinematicSequence, got {type(sequence).__name__}")


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
    _checked_sequence(sequence)
    times = ", ".join(f"{name} {1e3 * t:.0f} ms" for name, t in zip(SEGMENTS, sequence.peak_time))
    return Comparison(
        quantity="order of peak angular velocities",
        source="Tinmark2010",
        strength="measured",
        published="proximal to distal, pelvis, upper torso, hand (47 skilled golfers)",
        model=f"{times}; impact {1e3 * sequence.impact_time:.0f} ms",
        same_quantity="unlike: their pelvis, upper torso and hand in 3-D; our lumped trunk, "
        "arm and club",
        like=False,
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
    _checked_sequence(sequence)
    step = float(_validate.positive(step, "step"))
    lead = sequence.impact_time - sequence.peak_time[0]
    return Comparison(
        quantity="trunk's peak rate relative to impact",
        source="Steele2018",
        strength="measured",
        published="after impact (11 professionals)",
        model=f"{1e3 * lead:.0f} ms before impact",
        same_quantity="unlike: our hub lumps pelvis and trunk, and their pelvis peaks in the "
        "downswing",
        like=False,
        rule="at or after impact (within one step)",
        agrees=bool(lead <= step),
    )


def compare_arm_peak_timing(sequence):
    """When the lead arm's angular velocity peaks, as a fraction of the downswing from the
    top to impact, against Vena et al. (2011): at 100 % (impact) in their subject.

    Rule: within 5 % of the downswing of the published time (our tolerance: their spread is
    0 over one subject's trials; the model's peak is read on 2 ms steps, under 1 % of a
    downswing).

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
    _checked_sequence(sequence)
    datum = DATA["screw_axis_peak_timing"]
    published = datum.value[2]  # pelvis, shoulders, left arm
    fraction = sequence.peak_time[SEGMENTS.index("lead arm")] / sequence.impact_time
    return Comparison(
        quantity="lead arm's peak angular velocity, fraction of the downswing",
        source=datum.source,
        strength=datum.strength,
        published=f"{100 * published:.0f} % (one subject; 2 of 5 in proximal-to-distal order)",
        model=f"{100 * fraction:.0f} %",
        same_quantity="unlike: their left arm's screw-axis rate in 3-D from one subject, our "
        "lead arm's rate in the plane; the same fraction of the downswing",
        like=False,
        rule="within 5 % of the downswing",
        agrees=bool(abs(fraction - published) <= 0.05),
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
        same_quantity="unlike: the same measure, but the golfer without the wrist torque "
        "has other freedoms than theirs, and their parameters and constraint are unknown",
        like=False,
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
        same_quantity="unlike: the same measure, but their generators' parameters and "
        "impact constraint were not read, and theirs is a 44 m/s swing, ours slower",
        like=False,
        rule="within half the published angle of it",
        agrees=bool(abs(arm_angle - datum.value) <= 0.5 * datum.value),
    )


def compare_trend(quantity, *, key, speed_before, speed_after, conditions, like):
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
    like : bool, keyword only
        Whether the model's experiment is the study's.

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``quantity`` or ``conditions`` is not a string, or ``like`` not a bool.
    ValueError
        If ``key`` is unknown or a speed is not a finite number.
    """
    for name, value in (("quantity", quantity), ("conditions", conditions)):
        if not isinstance(value, str):
            raise TypeError(f"{name}: expected a str, got {type(value).__name__}")
    if not isinstance(like, bool):
        raise TypeError(f"like: expected a bool, got {type(like).__name__}")
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
        like=like,
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
    work = _positive_works(work)
    datum = DATA["back_and_hip_work_share"]
    low, high = min(datum.value), max(datum.value)
    share = work[0] / work.sum()
    return Comparison(
        quantity="trunk-and-hips share of the work",
        source=datum.source,
        strength=datum.strength,
        published=f"{100 * low:.1f}-{100 * high:.1f} %, the largest source",
        model=f"{100 * share:.1f} %",
        same_quantity="unlike: their share of all joints' work in 3-D; ours the lumped "
        "hub's share of the positive work at the three driven joints (the wrist's includes "
        "its stops)",
        like=False,
        rule="inside the published range (the largest source, as theirs)",
        agrees=bool(work[0] == work.max() and low <= share <= high),
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
        published=f"{datum.low:.2f}-{datum.high:.2f} s (+/- one 33 ms frame)",
        model=f"{duration:.3f} s",
        same_quantity="unlike in its start: a golfer's transition is under way at the top, "
        "ours starts from rest",
        like=False,
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
    conditions = [
        "pivot fixed" if transfer.pivot_fixed else "pivot free",
        "trail arm on the club" if transfer.trail_arm else "no trail arm",
        "gravity" if transfer.gravity else "no gravity",
        "wrist stop" if transfer.wrist_stop else "no stop",
    ]
    departures = [
        text
        for text, present in (
            ("his pivot is fixed, the hub here turns", not transfer.pivot_fixed),
            (
                "his double pendulum has no trail arm, whose two links here add a second pivot",
                transfer.trail_arm,
            ),
            ("gravity does work, which his model has not", transfer.gravity),
            ("the wrist stop does work, which his model has not", transfer.wrist_stop),
        )
        if present
    ]
    same = (
        "unlike: " + "; ".join(departures)
        if departures
        else "like: his double pendulum (the lead arm and the club about a fixed "
        "shoulder), no torque, no gravity, no stop"
    )
    return Comparison(
        quantity=f"passive transfer, every torque off, {', '.join(conditions)}",
        source="White2006",
        strength="mechanism",
        published="the arms' energy passes to the club",
        model=f"club {transfer.club_gain:+.1f} J, arms {transfer.arms_change:+.1f} J",
        same_quantity=same,
        like=not departures,
        rule="the club gains energy while the arms lose it",
        agrees=bool(transfer.club_gain > 0 and transfer.arms_change < 0),
    )


def compare_joint_rate(peak_rate, *, joint, motion="planar"):
    """A joint's peak rate in the downswing, rad/s, against Zheng et al.'s (2008a) male
    professionals.

    Parameters
    ----------
    peak_rate : float
        rad/s.
    joint : {"trail elbow extension", "lead wrist"}, keyword only
    motion : {"planar", "3-D"}, keyword only
        Whose rate: the planar model's hinge (default) or the 3-D golfer's joint
        (:func:`geomotion.models.swing_rates`; the trail elbow only).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``peak_rate`` is not a finite number, ``joint`` or ``motion`` is unknown, or
        the 3-D motion is asked for the lead wrist.
    """
    peak_rate = _finite(peak_rate, "peak_rate")
    if motion not in ("planar", "3-D"):
        raise ValueError(f"motion: expected 'planar' or '3-D', got {motion!r}")
    keys = {
        "trail elbow extension": (
            "pga_trail_elbow_extension_rate",
            False,
            "unlike: the elbow's hinge rate, but ours about the plane's normal, and the "
            "model's trail arm has no muscles",
        ),
        "lead wrist": (
            "pga_lead_wrist_rate",
            False,
            "unlike: their wrist angle's definition "
            "was not read; ours the in-plane hinge (radial-ulnar lumped)",
        ),
    }
    if joint not in keys:
        raise ValueError(f"joint: expected one of {tuple(keys)}, got {joint!r}")
    key, like, sameness = keys[joint]
    if motion == "3-D":
        if joint != "trail elbow extension":
            raise ValueError(f"joint: the 3-D motion has the trail elbow only, got {joint!r}")
        sameness = _PRESCRIBED + "; the elbow's own hinge"
    return _rate_row(
        f"peak {joint} rate, PGA professionals", key, peak_rate, same_quantity=sameness, like=like
    )


def compare_club_energy(club_energy, work):
    """The club's kinetic energy at impact as a share of the body's positive work, against
    Nesbit & Serrano's 20.2-26.8 % (as quoted by Nesbit & McGinnis 2014).

    Parameters
    ----------
    club_energy : float
        J, at impact.
    work : (3,) array_like
        Positive work of the generators up to impact, J (:func:`positive_work`).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If ``club_energy`` is not a finite number, or ``work`` not 3 non-negative works
        with a positive sum.
    """
    club_energy = _finite(club_energy, "club_energy")
    work = _positive_works(work)
    datum = DATA["energy_to_club_share"]
    low, high = datum.value
    share = club_energy / work.sum()
    return Comparison(
        quantity="share of the body's work that reaches the club",
        source=datum.source,
        strength=datum.strength,
        published=f"{100 * low:.1f}-{100 * high:.1f} %",
        model=f"{100 * share:.0f} %",
        same_quantity="unlike: their whole body's work in 3-D (legs included); ours the "
        "positive work at the three driven joints (the wrist's includes its stops), "
        "the club with the lead hand",
        like=False,
        rule="inside the four golfers' range",
        agrees=bool(low <= share <= high),
    )


def ball_speed(clubhead_speed, head_mass):
    r"""The ball's speed after a head-on point-mass collision, m/s.

    .. math:: v_b = \frac{(1 + e)\,M}{M + m}\,v

    with :math:`e` the measured head's coefficient of restitution (0.83) and :math:`m`
    the ball's mass (45.9 g), ``golf_data.DATA``; :math:`M` the head's mass.  A
    simplification: the head's effective mass at the impact point, loft and spin are left
    out.

    Parameters
    ----------
    clubhead_speed : float or array_like
        m/s.
    head_mass : float or array_like
        kg, positive.

    Returns
    -------
    ndarray
        m/s.

    Raises
    ------
    ValueError
        If ``head_mass`` is not positive or ``clubhead_speed`` not finite.
    """
    speed = _validate.real_array(clubhead_speed, "clubhead_speed")
    head = _validate.positive(head_mass, "head_mass")
    e, m = DATA["restitution"].value, DATA["ball_mass"].value
    return (1 + e) * head * speed / (head + m)


def compare_ball_speed(speed_light, speed_heavy):
    """Ball speeds with the lightest and heaviest heads, against MacKenzie et al.'s (2015)
    "no meaningful effect on ball speed".

    Parameters
    ----------
    speed_light, speed_heavy : float
        Ball speeds, m/s (:func:`ball_speed`).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        If a speed is not a positive number.
    """
    light = float(_validate.positive(_finite(speed_light, "speed_light"), "speed_light"))
    heavy = float(_validate.positive(_finite(speed_heavy, "speed_heavy"), "speed_heavy"))
    change = heavy / light - 1.0
    return Comparison(
        quantity="ball speed, head 174 -> 200 g",
        source="MacKenzie2015",
        strength="measured",
        published="no meaningful effect",
        model=f"{100 * change:+.1f} %",
        same_quantity="unlike: an estimate, a point-mass collision with the measured "
        "head's restitution, against their measured ball speeds",
        like=False,
        rule="a change under 1 % (our reading of 'no meaningful effect')",
        agrees=bool(abs(change) < 0.01),
    )
