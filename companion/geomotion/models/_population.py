r"""The swing study's population: golfers drawn over stated ranges, each optimised alone.

* :func:`draw_golfers` -> :class:`GolferDraw`: golfers drawn uniformly and independently
  over ``POPULATION_STUDY_RANGES`` (reproducible from the seed; the first k of a larger
  draw are the k-golfer draw);
* :func:`optimise_golfer`: one golfer's row (``COLUMNS``): its parameters, then the
  onsets that maximise its clubhead speed at impact
  (:func:`geomotion.models.optimise_onsets`) and two runs at those onsets with the head
  at 174 and at 200 g.

:mod:`geomotion.models._population_run` runs them on ``dask.distributed`` and writes
the results file; ``make population`` runs the study (200 golfers) into
``notebooks/data/swing_population.csv``, which the swing chapter reads, and ``make
bench-population`` measures its cost (``bench/bench_population.py``).

The population is male: de Leva's male fractions with male statures.  No female golfer
is drawn, because the chapter has no female segment lengths (``GOLFER_LENGTHS`` are a
man's), and female fractions must not be applied to a man's lengths.
"""

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from .. import _validate
from ..errors import ConvergenceError
from ._club import driver
from ._downswing import simulate_downswing
from ._generators import GENERATOR_RANGES, swing_generators
from ._impact import ADDRESS_WRIST_RANGE, IMPACT_BAND_RANGE, ball_at_address
from ._onset_certificate import REFUSAL_REASONS
from ._swing_study import kinematic_sequence, positive_work
from ._timing import optimise_onsets
from .golf_data import DATA
from .swing import POPULATION_RANGES, TOP_RANGES, swing_plane_golfer

__all__ = [
    "POPULATION_STUDY_RANGES",
    "GolferDraw",
    "draw_golfers",
    "optimise_golfer",
]

_TILT = DATA["pga_trunk_forward_tilt"].value
_TILT_RANGE = (_TILT[0] - _TILT[1], _TILT[0] + _TILT[1])
_SEGMENTS = ("upper_arm", "forearm", "hand", "palm", "shoulder_width", "trunk")

#: The study's ranges, each drawn uniformly and independently (kg, m, N m, rad/s, s, rad).
POPULATION_STUDY_RANGES = {
    "height": (1.70, 1.90),  # m; modelling choice: a male golfer (compared with male pros)
    "body_mass": (70.0, 95.0),  # kg; modelling choice, as the height
    # segment-length factors, +/- 5 % each (modelling choice, as POPULATION_RANGES)
    **{f"{name}_scale": POPULATION_RANGES["segment_scale"] for name in _SEGMENTS},
    "head_mass": POPULATION_RANGES["head_mass"],  # kg; MacKenzie 2015's 174 g to ISEA's 204 g
    "shaft_mass": POPULATION_RANGES["shaft_mass"],  # kg; trade range (DATA["shaft_mass"])
    "grip_mass": POPULATION_RANGES["grip_mass"],  # kg; trade range (DATA["grip_mass"])
    "club_length": POPULATION_RANGES["length"],  # m; trade range 44-46 in (DATA["club_length"])
    "plane_inclination": POPULATION_RANGES["plane_inclination"],  # rad; modelling choice
    "trunk_tilt": _TILT_RANGE,  # rad; PGA mean +/- 1 SD at the top (Zheng 2008b, measured)
    "address_wrist_angle": ADDRESS_WRIST_RANGE,  # rad; the ball's place (modelling choice)
    # generators (GENERATOR_RANGES; sources in geomotion.models._timing)
    "hub_peak": GENERATOR_RANGES["hub_peak"],  # N m; torso 200 to pelvis 250 (model-param)
    # rad/s; torso 30 to torso and pelvis in series, 60 (model-param; its own stream)
    "hub_max_velocity": GENERATOR_RANGES["hub_max_velocity"],
    "shoulder_peak": GENERATOR_RANGES["shoulder_peak"],  # N m; modelling choice
    "wrist_peak": GENERATOR_RANGES["wrist_peak"],  # N m; modelling choice
    "arm_max_velocity": GENERATOR_RANGES["arm_max_velocity"],  # rad/s, shoulder and wrist; choice
    "shape": GENERATOR_RANGES["shape"],  # Gamma; modelling choice
    "time_constant": GENERATOR_RANGES["time_constant"],  # s; modelling choice
    "ulnar_range": GENERATOR_RANGES["ulnar_range"],  # rad; AAOS goniometric means 26-41 deg
    "stop_angle": GENERATOR_RANGES["stop_angle"],  # rad; modelling choice
    # the top-of-backswing posture (TOP_RANGES: stated, no source gives it)
    **{f"top_{name}": TOP_RANGES[name] for name in TOP_RANGES},  # rad
    # the damped wrist stop and the contact band
    "stop_rate": GENERATOR_RANGES["stop_rate"],  # 1/rad; modelling choice
    "stop_damping": GENERATOR_RANGES["stop_damping"],  # N m s/rad; modelling choice
    "damping_angle": GENERATOR_RANGES["damping_angle"],  # rad; modelling choice
    "impact_band": IMPACT_BAND_RANGE,  # m; modelling choice (0: point contact)
}

#: The ranges drawn from a stream of their own (:func:`draw_golfers`).
_OWN_STREAM = ("hub_max_velocity",)

#: The two heads of the fixed-onset runs, kg: MacKenzie et al.'s (2015) lightest and heaviest.
HEAD_MASSES = (min(DATA["mackenzie_head_masses"].value), max(DATA["mackenzie_head_masses"].value))
_HEADS = tuple(f"head_{round(1000 * m)}" for m in HEAD_MASSES)
_DT = 2e-3  # s: optimise_onsets' default simulation step, used by the fixed-onset runs too

#: The certificate's columns of a smooth optimum (empty at a kink, ``at_kink`` = 1).
SMOOTH_CERTIFICATE = ("kkt_residual", "tangent_slope", "gradient_error")
#: Statuses of a row: an optimum, or the ConvergenceError that stopped the search.
STATUSES = ("optimum", "no reaching swing", "certificate failed")
#: The ``reason`` of a row that is not an optimum: why optimise_onsets refused it (the keys
#: of ``REFUSAL_REASONS``), or "unclassified" for a ConvergenceError that names none.
REASONS = (*REFUSAL_REASONS, "unclassified")
PARAMETER_COLUMNS = ("index", "sex", *POPULATION_STUDY_RANGES)
RESULT_COLUMNS = (
    *("shoulder_onset", "wrist_onset", "speed", "impact_time", "miss", "path_angle"),
    *("shaft_lean", "lead_arm_below_horizontal", "shaft_angular_velocity"),
    *("wrist_onset_arm_angle", "at_kink", "steepest_neighbour_slope"),
    *SMOOTH_CERTIFICATE,
    *("peak_club_rate", "trunk_peak_lead", "proximal_to_distal", "hub_work_share"),
    *(f"{quantity}_{head}" for head in _HEADS for quantity in ("speed", "miss")),
)
COLUMNS = (*PARAMETER_COLUMNS, "status", "reason", "lowest_pass", *RESULT_COLUMNS, "wall_time")


@dataclass(frozen=True, kw_only=True)
class GolferDraw:
    """One drawn golfer of the study, its parameters as plain floats.

    Attributes
    ----------
    index : int
        Its place in the draw, from 0.
    height, body_mass, upper_arm_scale, ..., top_wrist_cock : float
        One per key of ``POPULATION_STUDY_RANGES``, in its units: the golfer
        (:func:`geomotion.models.swing_plane_golfer`, male; the ``*_scale`` factors are
        its ``segment_scales``; ``plane_inclination`` its swing plane's and
        ``trunk_tilt`` its trunk's forward tilt, rad), the ball's place
        (``address_wrist_angle``, rad, :func:`geomotion.models.ball_at_address`), the
        driver's parts (:func:`geomotion.models.driver`),
        the generators (:func:`geomotion.models.swing_generators`; ``arm_max_velocity``
        is the shoulder's and the wrist's, ``hub_max_velocity`` the hub's) and the top of the
        backswing (``top_*``, the keys of ``TOP_RANGES``; the radial wrist stop follows
        ``top_wrist_cock``).
    """

    index: int
    height: float
    body_mass: float
    upper_arm_scale: float
    forearm_scale: float
    hand_scale: float
    palm_scale: float
    shoulder_width_scale: float
    trunk_scale: float
    head_mass: float
    shaft_mass: float
    grip_mass: float
    club_length: float
    plane_inclination: float
    trunk_tilt: float
    address_wrist_angle: float
    hub_peak: float
    hub_max_velocity: float
    shoulder_peak: float
    wrist_peak: float
    arm_max_velocity: float
    shape: float
    time_constant: float
    ulnar_range: float
    stop_angle: float
    top_hub_turn: float
    top_lead_arm_above_horizontal: float
    top_wrist_cock: float
    stop_rate: float
    stop_damping: float
    damping_angle: float
    impact_band: float

    def golfer(self, *, head_mass=None):
        """The swing-plane golfer of this draw (male fractions).

        Parameters
        ----------
        head_mass : None, float or (P,) array_like, keyword only
            kg; default None: the drawn head.  An array gives P golfers differing in the
            head only.

        Returns
        -------
        SwingPlaneGolfer
        """
        club = driver(
            head_mass=self.head_mass if head_mass is None else head_mass,
            shaft_mass=self.shaft_mass,
            grip_mass=self.grip_mass,
            length=self.club_length,
        )
        scales = {name: getattr(self, f"{name}_scale") for name in _SEGMENTS}
        return swing_plane_golfer(
            body_mass=self.body_mass,
            height=self.height,
            sex="male",
            club=club,
            segment_scales=scales,
            plane_inclination=self.plane_inclination,
            trunk_tilt=self.trunk_tilt,
        )

    def generator_options(self):
        """Keyword arguments of :func:`geomotion.models.swing_generators` (and of
        :func:`geomotion.models.optimise_onsets`) for this draw.

        Returns
        -------
        dict
        """
        return {
            "peak_torque": (self.hub_peak, self.shoulder_peak, self.wrist_peak),
            "max_velocity": (self.hub_max_velocity, self.arm_max_velocity, self.arm_max_velocity),
            "shape": self.shape,
            "time_constant": self.time_constant,
            "ulnar_range": self.ulnar_range,
            "stop_angle": self.stop_angle,
            "stop_rate": self.stop_rate,
            "stop_damping": self.stop_damping,
            "damping_angle": self.damping_angle,
            "top_wrist_cock": self.top_wrist_cock,
            "address_wrist_angle": self.address_wrist_angle,
        }

    def ball(self):
        """The ball of this draw, (2,) m: the drawn golfer's face centre at its address
        wrist angle (:func:`geomotion.models.ball_at_address`; the head's mass does not
        move it).

        Returns
        -------
        ndarray
        """
        return ball_at_address(self.golfer(), wrist_angle=self.address_wrist_angle)

    def top(self):
        """Keyword arguments of ``SwingPlaneGolfer.top_of_backswing`` (and ``top`` of
        :func:`geomotion.models.optimise_onsets`) for this draw, rad.

        Returns
        -------
        dict
        """
        return {name: getattr(self, f"top_{name}") for name in TOP_RANGES}


def draw_golfers(count, *, rng=2026):
    """``count`` golfers drawn uniformly and independently over ``POPULATION_STUDY_RANGES``.

    Golfer by golfer, each draws every range in the order of ``POPULATION_STUDY_RANGES``,
    so the first k golfers of a larger draw with the same seed are the k-golfer draw.  The
    ranges added after the study's first runs (``_OWN_STREAM``: the hub's maximum rate)
    are drawn the same way from a stream of their own (``rng.spawn``), which leaves every
    other parameter of golfer k what earlier versions drew.

    Parameters
    ----------
    count : int
        Number of golfers, >= 1.
    rng : None, int or numpy.random.Generator, keyword only
        Anything :func:`numpy.random.default_rng` takes; default 2026.

    Returns
    -------
    tuple of GolferDraw

    Raises
    ------
    TypeError, ValueError
        If ``count`` is not a positive integer.
    """
    count = _validate.count(count, "count", minimum=1, whole_floats=False)
    rng = np.random.default_rng(rng)
    own = rng.spawn(1)[0]
    names = [name for name in POPULATION_STUDY_RANGES if name not in _OWN_STREAM]
    values = np.hstack([_uniform(rng, names, count), _uniform(own, _OWN_STREAM, count)])
    return tuple(
        GolferDraw(index=i, **dict(zip([*names, *_OWN_STREAM], map(float, row), strict=True)))
        for i, row in enumerate(values)
    )


def _uniform(rng, names, count):
    """``count`` rows of draws over the ranges of ``names``, golfer by golfer."""
    ranges = np.array([POPULATION_STUDY_RANGES[name] for name in names]).reshape(-1, 2)
    return rng.uniform(ranges[:, 0], ranges[:, 1], size=(count, len(names)))


def optimise_golfer(draw):
    """One golfer's row: its parameters, its optimal onsets and the swing they give.

    :func:`geomotion.models.optimise_onsets` (step 2 ms; its onset grid starts the
    search and certifies it), the optimum's kinematic sequence and positive work
    (:func:`geomotion.models.kinematic_sequence`, :func:`geomotion.models.positive_work`),
    then two runs at the optimum's onsets with the head at 174
    and at 200 g (``HEAD_MASSES``), each's speed and miss at its own impact (the onsets
    stay fixed, so the miss is no longer zero; empty if the clubhead never crossed the
    ball's line).

    Parameters
    ----------
    draw : GolferDraw

    Returns
    -------
    dict
        ``COLUMNS`` to values: the draw's parameters and ``sex`` ("male"); ``status``
        ("optimum", or "no reaching swing" / "certificate failed" when the search raised
        ConvergenceError, and then every result is None, never a number); ``reason``
        (None for an optimum; else a key of ``REFUSAL_REASONS``, from the error's
        ``reason``, or "unclassified" for a ConvergenceError without one, whose status
        then follows its message); ``lowest_pass`` (m: for no reaching swing, the miss of
        the pass nearest the ball's centre the search found; else None); onsets (s),
        speed (m/s), impact time (s), miss (m), path angle, shaft lean, lead arm below the
        horizontal (rad), shaft angular velocity at impact (rad/s), wrist-onset arm angle
        (rad), the certificate (``at_kink``, 1.0 at a kink and 0.0 at a smooth optimum;
        ``steepest_neighbour_slope`` (m/s)/s; and at a smooth optimum only,
        ``SMOOTH_CERTIFICATE``: ``kkt_residual``, ``tangent_slope`` (m/s)/s,
        ``gradient_error``), the club's peak angular velocity before impact (rad/s), how
        long before impact the trunk's rate peaks (s), whether the peaks are proximal to
        distal (1.0 or 0.0), the hub's share of the positive work, ``speed_head_174``,
        ``miss_head_174``, ``speed_head_200``, ``miss_head_200`` (m/s, m), and the wall
        time, s.

    Raises
    ------
    TypeError
        If ``draw`` is not a GolferDraw.
    """
    if not isinstance(draw, GolferDraw):
        raise TypeError(
            f"draw: expected a GolferDraw (see draw_golfers), got {type(draw).__name__}"
        )
    start = time.perf_counter()
    row = {"index": draw.index, "sex": "male", **dataclasses.asdict(draw)}
    row.update(dict.fromkeys(("reason", "lowest_pass", *RESULT_COLUMNS)))
    try:
        options = dict(ball=draw.ball(), top=draw.top(), dt=_DT, band=draw.impact_band)
        optimum = optimise_onsets(draw.golfer(), **options, **draw.generator_options())
    except ConvergenceError as error:
        reason = getattr(error, "reason", None)
        if reason is None:  # a ConvergenceError from elsewhere: its status by its message
            failed = "certificate" in str(error)
            row.update(reason="unclassified", lowest_pass=None)
        else:
            failed = error.reaching
            row.update(reason=reason, lowest_pass=error.lowest_pass)
        row["status"] = "certificate failed" if failed else "no reaching swing"
        row["wall_time"] = time.perf_counter() - start
        return {name: row[name] for name in COLUMNS}
    impact = optimum.impact
    row.update(
        status="optimum",
        shoulder_onset=float(optimum.onset[1]),
        wrist_onset=float(optimum.onset[2]),
        speed=optimum.speed,
        impact_time=float(impact.time),
        miss=float(impact.miss),
        **{
            name: float(getattr(impact, name))
            for name in ("path_angle", "shaft_lean", "lead_arm_below_horizontal")
        },
        shaft_angular_velocity=float(impact.shaft_angular_velocity),
        wrist_onset_arm_angle=optimum.wrist_onset_arm_angle,
        at_kink=float(optimum.kink is not None),
        steepest_neighbour_slope=float(np.max(optimum.neighbour_slopes)),
        kkt_residual=optimum.kkt_residual,
        tangent_slope=optimum.tangent_slope,
        gradient_error=optimum.gradient_error,
    )
    sequence, work = kinematic_sequence(optimum.downswing), positive_work(optimum.downswing)
    row.update(
        peak_club_rate=float(sequence.peak_rate[2]),
        trunk_peak_lead=float(sequence.impact_time - sequence.peak_time[0]),
        proximal_to_distal=float(sequence.proximal_to_distal),
        hub_work_share=float(work[0] / work.sum()),
    )
    heads = draw.golfer(head_mass=np.array(HEAD_MASSES))
    clock = np.broadcast_to(optimum.onset - optimum.onset.min(), (len(HEAD_MASSES), 3))
    generators = swing_generators(clock, **draw.generator_options())
    q0 = heads.top_of_backswing(**draw.top())
    fixed = simulate_downswing(
        heads, generators, ball=draw.ball(), q0=q0, dt=_DT, band=draw.impact_band
    )
    fixed = fixed.impact
    for k, head in enumerate(_HEADS):
        if fixed.crossed[k]:
            row[f"speed_{head}"] = float(fixed.speed[k])
            row[f"miss_{head}"] = float(fixed.miss[k])
    row["wall_time"] = time.perf_counter() - start
    return {name: row[name] for name in COLUMNS}
