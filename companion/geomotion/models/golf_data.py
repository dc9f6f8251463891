r"""The golf case study's numbers, each with its source and the strength of that source.

Every value below was read from the source named by its bibliography key (the keys of
``book/references.bib``), as transcribed in the book's golf source notes.  ``strength``
says how the book may use it:

* ``"measured"``: a peer-reviewed measurement; a model input or a comparison target;
* ``"rule"``: the equipment rules (USGA/R&A); a bound, not a typical value;
* ``"trade"``: a manufacturer's or fitter's typical value; only as a labelled typical
  value inside its sensitivity range (``low``, ``high``), which every trade datum has;
* ``"model-result"``: an output of a published *simulation*; a trend to reproduce, not
  data to fit;
* ``"model-param"``: a value the authors of a published simulation chose for their model;
  an input to borrow with that label, never a measurement;
* ``"mechanism"``: a published mechanism to demonstrate under its own conditions (White's
  double pendulum), not a number.

These are the labels of the golf source notes and their addendum.

The measured driver head (``CLUB_HEAD``), the rules' length limit (``MAX_CLUB_LENGTH``)
and the club's stated shape (``CLUB_DEFAULTS``) live here too, with the one function that
turns head, shaft and grip into a club inertia (:func:`club_spatial_inertia`), used by
both the 3-D golfer (:func:`geomotion.models.golfer`) and the swing-plane golfer
(:func:`geomotion.models.driver`).
"""

from dataclasses import dataclass, field

import numpy as np

from .. import _validate, inertia

__all__ = [
    "STRENGTHS",
    "SOURCES",
    "Datum",
    "DATA",
    "CLUB_HEAD",
    "CLUB_DEFAULTS",
    "MAX_CLUB_LENGTH",
    "INCH",
    "club_spatial_inertia",
]

#: How a number may be used (see the module documentation).
STRENGTHS = ("measured", "rule", "trade", "model-result", "model-param", "mechanism")

#: Bibliography keys (``book/references.bib``) of the golf case study's sources.
SOURCES = (
    "deLeva1996",
    "ISEA2020Head",
    "ISEA2020ClubMOI",
    "USGARules",
    "USGADistance2015",
    "MacKenzie2015",
    "Fradkin2004",
    "SprigingsNeal2000",
    "White2006",
    "NesbitSerrano2005",
    "ClubComponentTrade",
    "Zheng2008a",
    "Zheng2008b",
    "Steele2018",
    "Vena2011",
    "GroberCholewicki",
    "McNallyMcPhee2018",
    "Tinmark2010",
    "NesbitMcGinnis2014",
    "Worsfold2007",
    "Worsfold2008",
    "Okuda2010",
    "BallBest2011",
)

#: One inch, m (exact, by definition).
INCH = 0.0254


@dataclass(frozen=True)
class Datum:
    """One sourced number (or tuple of numbers).

    Attributes
    ----------
    value : float or tuple of float
        The value, in ``unit``.
    unit : str
        SI unit of ``value``, ``low`` and ``high`` ("" for a dimensionless number).
    source : str
        Bibliography key, one of ``SOURCES``.
    strength : str
        One of ``STRENGTHS``.
    note : str
        What the number is and how it may be used.
    low, high : float or None
        The range the source gives; required for a ``"trade"`` value.

    Raises
    ------
    TypeError
        If ``source``, ``strength``, ``unit`` or ``note`` is not a string.
    ValueError
        If ``source`` or ``strength`` is unknown, a trade value has no range, or the
        range does not hold ``value`` (``low <= value <= high`` entry by entry).
    """

    value: object
    unit: str
    source: str
    strength: str
    note: str
    low: float | None = field(default=None, kw_only=True)
    high: float | None = field(default=None, kw_only=True)

    def __post_init__(self):
        for name in ("unit", "source", "strength", "note"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name}: expected a string, got {getattr(self, name)!r}")
        if self.source not in SOURCES:
            raise ValueError(f"source: expected one of {SOURCES}, got {self.source!r}")
        if self.strength not in STRENGTHS:
            raise ValueError(f"strength: expected one of {STRENGTHS}, got {self.strength!r}")
        value = _validate.real_array(self.value, "value")
        if self.strength == "trade" and (self.low is None or self.high is None):
            raise ValueError(
                f"low, high: a trade value needs its range, got {self.low}, {self.high}"
            )
        low = -np.inf if self.low is None else float(_validate.real_array(self.low, "low"))
        high = np.inf if self.high is None else float(_validate.real_array(self.high, "high"))
        if self.low is not None and self.high is not None and not low < high:
            raise ValueError(f"low, high: expected low < high, got {low}, {high}")
        if value.size and (np.any(value < low) or np.any(value > high)):
            raise ValueError(f"value: expected within [{low}, {high}], got {self.value}")


#: The measured driver head, from ISEA2020Head (Proceedings 2020, 49(1), 47, Table 1); mass kg,
#: centre of mass from the face centre in the face frame (m), and the inertia about the
#: centre of mass in the head frame (kg m^2, from g cm^2).  Face frame, as we read it: x the
#: outward face normal, z up with the head soled, y = z x x (toe towards heel for a
#: right-handed club).
CLUB_HEAD = {
    "mass": 0.204,
    "com": np.array([-42.3, 2.9, 1.0]) * 1e-3,
    "inertia_com": np.array([[2843.0, -733.0, 530.2], [-733.0, 5679.0, 0.5], [530.2, 0.5, 4085.0]])
    * 1e-7,
}

#: Largest club length the equipment rules allow, 48 in (USGARules), in m.  48 x 0.0254 =
#: 1.2192 exactly, written as that decimal (its nearest double), since ``48 * INCH``
#: rounds to the double just below it and would refuse a club given as 1.2192 m.
MAX_CLUB_LENGTH = 1.2192

#: The club's shape and parts, trade values (with the ranges of ``DATA``) or modelling
#: choices (not measurements), as marked.
CLUB_DEFAULTS = {
    "length": 45 * INCH,  # m; trade-typical 44-46 in (DATA["club_length"]); rules <= 48 in
    "shaft_mass": 0.065,  # kg; trade value, range 0.055-0.075 (DATA["shaft_mass"])
    "grip_mass": 0.050,  # kg; trade value, range 0.040-0.060 (DATA["grip_mass"])
    "grip_length": 0.27,  # m; modelling choice
    "grip_radius": 0.0125,  # m; modelling choice
    "shaft_radius": 0.006,  # m; modelling choice (solid cylinder of the tube's size)
    "lie": np.radians(58.0),  # shaft to the head's horizontal; modelling choice
    "lead_grip": 0.05,  # m from the butt: the lead hand's grip point; modelling choice
    "trail_grip": 0.11,  # m from the butt: the trail hand's grip point; modelling choice
    "shaft_to_hand": np.radians(35.0),  # shaft from the lead hand's axis; modelling choice
}

_G_CM2 = 1e-7  # kg m^2 per g cm^2

#: Every sourced number of the case study (see the module documentation).
DATA = {
    "head_mass": Datum(
        CLUB_HEAD["mass"], "kg", "ISEA2020Head", "measured", "driver head, Table 1 (204 g)"
    ),
    "head_com": Datum(
        tuple(CLUB_HEAD["com"]),
        "m",
        "ISEA2020Head",
        "measured",
        "head centre of mass from the face centre, face frame (-42.3, 2.9, 1) mm",
    ),
    "head_inertia": Datum(
        tuple(CLUB_HEAD["inertia_com"].ravel()),
        "kg m^2",
        "ISEA2020Head",
        "measured",
        "head inertia about its centre of mass, head frame, row by row (from g cm^2)",
    ),
    "ball_mass": Datum(0.0459, "kg", "ISEA2020Head", "measured", "ball mass (45.9 g)"),
    "restitution": Datum(
        0.83, "", "ISEA2020Head", "measured", "coefficient of restitution of the head and ball"
    ),
    "max_club_length": Datum(
        MAX_CLUB_LENGTH, "m", "USGARules", "rule", "club length at most 48.0 in"
    ),
    "max_head_moi": Datum(
        5900 * _G_CM2,
        "kg m^2",
        "USGARules",
        "rule",
        "head moment of inertia about the vertical axis through its CoM at most 5900 g cm^2 "
        "(test tolerance 100 g cm^2)",
    ),
    "typical_head_mass": Datum(
        0.200,
        "kg",
        "ClubComponentTrade",
        "trade",
        "driver heads mostly 200 +/- 4 g",
        low=0.196,
        high=0.204,
    ),
    "shaft_mass": Datum(
        CLUB_DEFAULTS["shaft_mass"],
        "kg",
        "ClubComponentTrade",
        "trade",
        "graphite driver shaft, '60-something' grams",
        low=0.055,
        high=0.075,
    ),
    "grip_mass": Datum(
        CLUB_DEFAULTS["grip_mass"],
        "kg",
        "ClubComponentTrade",
        "trade",
        "grip about 50 g",
        low=0.040,
        high=0.060,
    ),
    "club_length": Datum(
        CLUB_DEFAULTS["length"],
        "m",
        "ClubComponentTrade",
        "trade",
        "driver assembled at about 45 in",
        low=44 * INCH,
        high=46 * INCH,
    ),
    "tour_mean_clubhead_speed": Datum(
        50.6,
        "m/s",
        "USGADistance2015",
        "measured",
        "average PGA Tour driver clubhead speed, 2015 (113.2 mph); a population mean",
    ),
    "low_handicap_speed_range": Datum(
        (40.0, 58.0),
        "m/s",
        "MacKenzie2015",
        "measured",
        "clubhead speeds of 18 low-handicap golfers (handicap 1.7 +/- 2.2)",
        low=40.0,
        high=58.0,
    ),
    "mackenzie_head_masses": Datum(
        (0.174, 0.190, 0.200),
        "kg",
        "MacKenzie2015",
        "measured",
        "three head masses of one driver; a heavier head decreased clubhead speed "
        "(p < .001), with no meaningful effect on ball speed",
    ),
    "wrist_timing_gain": Datum(
        0.09,
        "",
        "SprigingsNeal2000",
        "model-result",
        "fractional clubhead-speed gain of a correctly timed active wrist torque (a 44 m/s "
        "swing of a planar torso-arm-club model with muscle-like torque generators)",
    ),
    "wrist_best_onset_arm_angle": Datum(
        np.radians(30.0),
        "rad",
        "SprigingsNeal2000",
        "model-result",
        "best wrist-torque onset: lead arm about 30 degrees below the horizontal through "
        "the shoulder (44 m/s swing)",
    ),
    "handicap_speed_correlation": Datum(
        0.950,
        "",
        "Fradkin2004",
        "measured",
        "correlation of clubhead speed with handicap, 45 male golfers (only the "
        "correlation may be used, not the regression)",
    ),
    "club_moi_difference": Datum(
        0.04,
        "kg m^2",
        "ISEA2020ClubMOI",
        "measured",
        "difference of whole-club moments of inertia of two drivers; the higher one "
        "reduced clubhead velocity (p = 0.001), seven skilled golfers",
    ),
    "pga_shaft_angular_velocity": Datum(
        (np.radians(2413.0), np.radians(442.0)),
        "rad/s",
        "Zheng2008a",
        "measured",
        "peak club-shaft angular velocity in the downswing, mean and standard deviation "
        "(2413 +/- 442 deg/s), 18 male professionals, optoelectronic capture at 240 Hz",
    ),
    "lpga_shaft_angular_velocity": Datum(
        (np.radians(2049.0), np.radians(512.0)),
        "rad/s",
        "Zheng2008b",
        "measured",
        "peak club-shaft angular velocity in the downswing, mean and standard deviation "
        "(2049 +/- 512 deg/s), 25 LPGA professionals, 240 Hz",
    ),
    "screw_axis_peak_timing": Datum(
        (0.682, 0.728, 1.0),
        "",
        "Vena2011",
        "measured",
        "time of the peak angular velocity as a fraction of the downswing, pelvis, shoulders "
        "and left (lead) arm, instantaneous-screw-axis method, one subject's trials (SDs "
        "0.032, 0.017, 0.0: screw_axis_peak_timing_sd); only 2 of 5 subjects showed the "
        "proximal-to-distal order",
    ),
    "screw_axis_peak_timing_sd": Datum(
        (0.032, 0.017, 0.0),
        "",
        "Vena2011",
        "measured",
        "standard deviations of screw_axis_peak_timing over one subject's trials",
    ),
    "tempo_downswing_time": Datum(
        8 / 30,
        "s",
        "GroberCholewicki",
        "trade",
        "downswing of tour players from broadcast video: typically 8 frames at 30 Hz, "
        "7-10 frames (+/- one frame, 33 ms); a plausibility band only",
        low=7 / 30,
        high=10 / 30,
    ),
    "pga_trunk_forward_tilt": Datum(
        (np.radians(31.0), np.radians(4.0)),
        "rad",
        "Zheng2008b",
        "measured",
        "trunk forward tilt at the top of the backswing, mean and standard deviation "
        "(31 +/- 4 deg), 25 PGA professionals (LPGA 25 +/- 4 deg), 240 Hz",
    ),
    "pga_trail_elbow_extension_rate": Datum(
        (np.radians(854.0), np.radians(150.0)),
        "rad/s",
        "Zheng2008a",
        "measured",
        "right (trail) elbow extension angular velocity, mean and standard deviation "
        "(854 +/- 150 deg/s), 18 male professionals",
    ),
    "pga_lead_wrist_rate": Datum(
        (np.radians(1085.0), np.radians(338.0)),
        "rad/s",
        "Zheng2008a",
        "measured",
        "left (lead) wrist angular velocity, mean and standard deviation (1085 +/- 338 "
        "deg/s), 18 male professionals (the angle's definition is the paper's)",
    ),
    "energy_to_club_share": Datum(
        (0.202, 0.268),
        "",
        "NesbitMcGinnis2014",
        "measured",
        "share of the energy developed by the body in the downswing that reaches the club, "
        "four golfers (Nesbit & Serrano 2005, as quoted by Nesbit & McGinnis 2014)",
    ),
    "driver_peak_vertical_force": Datum(
        (0.84, 0.49),
        "",
        "Worsfold2007",
        "measured",
        "peak vertical ground reaction force with a driver, lead (front) and trail (back) "
        "foot, body weights; 24 golfers on two natural-grass-covered force platforms, "
        "metal-spike and alternative-spike shoes (addendum G1)",
    ),
    "driver_vertical_force_range": Datum(
        (0.83, 0.33),
        "",
        "Worsfold2007",
        "measured",
        "range of the vertical force over the whole swing with a driver, metal-spike shoe, "
        "lead and trail foot, body weights (addendum G3)",
    ),
    "peak_vertical_torque": Datum(
        ((17.0, 19.0), (6.0, 7.0)),
        "N m",
        "Worsfold2008",
        "measured",
        "peak torque about the vertical axis at the shoe-natural grass interface, lead "
        "(front) and trail (back) foot, the range over three handicap groups of 8 golfers "
        "and three clubs (addendum G4, G5)",
    ),
    "skilled_weight_shift_groups": Datum(
        (13.0, 17.0),
        "",
        "Okuda2010",
        "measured",
        "golfers studied, skilled and low-skilled: the skilled shift their weight to the "
        "lead foot earlier in the downswing (qualitative; no size read)",
    ),
    "cop_style_golfers": Datum(
        (46.0, 0.96),
        "",
        "BallBest2011",
        "measured",
        "golfers studied, and the share who used the same centre-of-pressure style with "
        "every club; two styles, 'Front Foot' and 'Reverse' (qualitative; addendum G8)",
    ),
    "back_and_hip_work_share": Datum(
        (0.718, 0.722, 0.700, 0.687),
        "",
        "NesbitSerrano2005",
        "measured",
        "share of total body work generated by the back and hip joints, four golfers "
        "(scratch, 5, 13, 18 handicap)",
    ),
}


def club_spatial_inertia(club):
    r"""Spatial inertia of head, shaft and grip about the club frame at the butt.

    Club frame: origin at the butt, :math:`z_c` along the shaft from the head to the butt,
    :math:`x_c` the face normal.  The face centre sits at :math:`-L z_c` (no hosel offset).
    The head's frame is turned so that the shaft meets the head's horizontal at the lie:
    :math:`z_c = (0, \cos\text{lie}, \sin\text{lie})` and :math:`x_c = (1, 0, 0)` in head
    axes.  Shaft and grip are uniform solid cylinders from the butt (lengths :math:`L` and
    the grip length; modelling choices).  The measured head inertia (``CLUB_HEAD``, 204 g)
    is scaled in proportion to ``head_mass`` when another mass is asked for (a modelling
    choice: the same shape, denser or lighter).

    .. math:: I = I_{head} + I_{shaft} + I_{grip},\quad
              I_{part} = \begin{pmatrix} \bar I + m[c]^T[c] & m[c] \\ -m[c] & m\,1
              \end{pmatrix}

    Parameters
    ----------
    club : mapping
        ``length``, ``shaft_mass``, ``grip_mass``, ``grip_length``, ``grip_radius``,
        ``shaft_radius``, ``lie`` (as ``CLUB_DEFAULTS``; m, kg, rad) and optionally
        ``head_mass`` (kg; default ``CLUB_HEAD["mass"]``) and ``added_inertia`` (kg m^2;
        default 0: a moment of inertia added about both axes normal to the shaft, with
        no mass, as the whole-club study's second driver is modelled).  Masses and ``length`` may be
        arrays of one shape (P,): the result is then (P, 6, 6).

    Returns
    -------
    (..., 6, 6) ndarray
        About the butt, club axes; kg, kg m, kg m^2.
    """
    length = np.asarray(club["length"], dtype=float)
    head_mass = np.asarray(club.get("head_mass", CLUB_HEAD["mass"]), dtype=float)
    lie = club["lie"]
    z_c_in_head = np.array([0.0, np.cos(lie), np.sin(lie)])
    x_c_in_head = np.array([1.0, 0.0, 0.0])
    R_head_club = np.column_stack([x_c_in_head, np.cross(z_c_in_head, x_c_in_head), z_c_in_head])
    R_club_head = R_head_club.T
    axis = np.array([0.0, 0.0, -1.0])
    face = length[..., None] * axis
    head_ratio = head_mass / CLUB_HEAD["mass"]
    head = inertia.spatial_inertia(
        head_mass,
        face + R_club_head @ CLUB_HEAD["com"],
        head_ratio[..., None, None] * (R_club_head @ CLUB_HEAD["inertia_com"] @ R_club_head.T),
    )
    shaft = _cylinder(club["shaft_mass"], club["shaft_radius"], length)
    grip = _cylinder(club["grip_mass"], club["grip_radius"], club["grip_length"])
    added = np.asarray(club.get("added_inertia", 0.0), dtype=float)[..., None, None]
    return head + shaft + grip + added * np.diag([1.0, 1.0, 0.0, 0.0, 0.0, 0.0])


def _cylinder(mass, radius, length):
    """A uniform solid cylinder from the butt along -z_c."""
    mass, length = np.asarray(mass, dtype=float), np.asarray(length, dtype=float)
    com = (-length / 2)[..., None] * np.array([0.0, 0.0, 1.0])
    return inertia.spatial_inertia(
        mass, com, inertia.solid_cylinder_central_inertia(mass, radius, length)
    )
