"""Example mechanisms used throughout the book, its tests and its figures.

Every parameter here is an illustrative teaching value, not a measurement of a
particular golfer: the models exist to exercise and explain the algorithms.

``REVOLUTE_Z`` is :data:`geomotion.tree.REVOLUTE_Z`, the read-only joint screw
(0, 0, 1, 0, 0, 0) of a revolute joint about a body's own z axis; :mod:`geomotion.tree`
documents it with the other joint screws.  ``PLANE_GRAVITY`` = (0, -9.81, 0) m/s^2 is
the gravity of the planar models, which lie in the x-y plane.

The models are organised by idea, each in its own module; this package exports their
public names, and three modules are public in their own right:

* :mod:`geomotion.models.body_segments`: de Leva's (1996) segment data;
* :mod:`geomotion.models.golf_data`: the golf case study's sourced numbers;
* :mod:`geomotion.models.swing`: the swing-plane golfer (with ``BODY_NAMES``,
  ``INPUT_MATRIX``, ``POPULATION_RANGES`` and ``TOP_RANGES``).

The others are internal (a leading underscore): ``_mechanisms`` (the teaching arm, the
humanoid upper body, random trees), ``_closed_chains`` (planar closed chains),
``_golfer3d`` (the 3-D golfer), ``_golfer_limits`` (its range-of-motion data and
anatomical angles), ``_legs`` (chapter 2's legs and pelvis), ``_club`` (the
planar driver), ``_generators`` (the swing's muscle-like torque generators),
``_downswing`` (the downswing under them and the grip loads), ``_impact`` (the clubhead
reaching the ball), ``_timing`` (the onsets that maximise clubhead speed at impact),
``_swing_study`` (the swing study's measures), ``_comparisons`` (its comparisons with
published results),
``_population`` (the swing study's population, a golfer at a time), ``_population_run``
(the population on ``dask.distributed`` and its results file; ``make population``),
``_ground_wrench`` (the ground's resultant wrench on the 3-D golfer), ``_golfer_downswing``
(the 3-D golfer's downswing inside published ranges), ``_downswing_ranges`` (its angles,
published ranges and limit check), ``_downswing_motion`` (its trunk and lead-arm
profiles), ``_downswing_feet`` (its loads on two planted feet), ``_downswing_balance``
(the ground wrench it demands by body group, the support violation and the balanced
choices), ``_feet_comparisons`` (its feet against force plates, and the ground's impulse
and the load sharing), ``_swing_profiles`` (time profiles and rotation chains
with exact derivatives) and ``_shared`` (what several of them share).
"""

from .. import tree
from . import _shared, body_segments, golf_data, swing  # noqa: F401  (public submodules)
from ._closed_chains import PlanarClosedChain, planar_closed_chain, two_grounded_links_jacobian
from ._club import Club, driver
from ._comparisons import (
    Comparison,
    ball_speed,
    compare_arm_peak_timing,
    compare_ball_speed,
    compare_club_energy,
    compare_joint_rate,
    compare_sequence,
    compare_shaft_rate,
    compare_speed,
    compare_tempo,
    compare_transfer,
    compare_trend,
    compare_trunk_peak,
    compare_work_share,
    compare_wrist_gain,
    compare_wrist_onset,
)
from ._downswing import (
    DOWNSWING_HORIZON,
    Downswing,
    GripLoads,
    grip_loads,
    simulate_downswing,
)
from ._downswing_balance import (
    BALANCE_CHOICES,
    BALANCED_CHOICES,
    WRENCH_GROUPS,
    BalancedDownswing,
    balanced_downswing,
    ground_wrench_by_group,
    support_violation,
)
from ._downswing_feet import FRICTION_COEFFICIENT, DownswingFeet, downswing_feet
from ._downswing_ranges import (
    DOWNSWING_TARGETS,
    TRUNK_ROTATION_BOUND,
    TRUNK_ROTATION_READINGS,
    DownswingCheck,
    SwingAngles,
    SwingRates,
    Target,
    check_downswing,
    swing_angles,
    swing_rates,
)
from ._feet_comparisons import (
    CopStyle,
    GroundImpulse,
    LoadShare,
    compare_cop_style,
    compare_feet,
    compare_lead_share,
    compare_peak_torque,
    compare_peak_vertical,
    compare_vertical_range,
    cop_style,
    free_moment,
    ground_impulse,
    load_share_indeterminacy,
)
from ._generators import (
    GENERATOR_DEFAULTS,
    GENERATOR_RANGES,
    Holding,
    SwingGenerators,
    holding_activation,
    swing_generators,
)
from ._golfer3d import Golfer, golfer
from ._golfer_downswing import (
    DOWNSWING_CHOICES,
    X_FACTOR_TOP,
    GolferDownswing,
    golfer_downswing,
)
from ._golfer_limits import (
    GOLFER_JOINT_LIMITS,
    LIMIT_KINDS,
    GolferAngles,
    JointLimit,
    LimitCheck,
    check_golfer_limits,
    golfer_angles,
)
from ._ground_wrench import ground_wrench
from ._impact import (
    ADDRESS_WRIST_ANGLE,
    ADDRESS_WRIST_RANGE,
    IMPACT_BAND,
    IMPACT_BAND_RANGE,
    Impact,
    ball_at_address,
    locate_impact,
)
from ._legs import LegsAndPelvis, legs_and_pelvis
from ._mechanisms import (
    HUMANOID_BODIES,
    TWO_LINK_L1,
    humanoid_upper_body,
    random_rotation,
    random_tree,
    two_coordinate_metric,
    two_link_teaching_arm,
)
from ._population import POPULATION_STUDY_RANGES, GolferDraw, draw_golfers, optimise_golfer
from ._population_run import Population, read_population, run_population
from ._shared import GOLFER_LENGTHS, BodyFrame
from ._swing_study import (
    KinematicSequence,
    PassiveTransfer,
    kinematic_sequence,
    passive_transfer,
    positive_work,
)
from ._timing import ReachBrackets, TimingOptimum, bracket_reaching, optimise_onsets
from .golf_data import CLUB_HEAD
from .swing import ConstrainedTerms, SwingPlaneGolfer, swing_plane_golfer

__all__ = [
    "REVOLUTE_Z",
    "PLANE_GRAVITY",
    "TWO_LINK_L1",
    "two_link_teaching_arm",
    "HUMANOID_BODIES",
    "humanoid_upper_body",
    "random_tree",
    "random_rotation",
    "two_coordinate_metric",
    "PlanarClosedChain",
    "planar_closed_chain",
    "two_grounded_links_jacobian",
    "GOLFER_LENGTHS",
    "CLUB_HEAD",
    "BodyFrame",
    "LegsAndPelvis",
    "legs_and_pelvis",
    "Golfer",
    "golfer",
    "LIMIT_KINDS",
    "JointLimit",
    "GOLFER_JOINT_LIMITS",
    "GolferAngles",
    "golfer_angles",
    "LimitCheck",
    "check_golfer_limits",
    "Club",
    "driver",
    "SwingPlaneGolfer",
    "ConstrainedTerms",
    "swing_plane_golfer",
    "Downswing",
    "simulate_downswing",
    "DOWNSWING_HORIZON",
    "GripLoads",
    "grip_loads",
    "ADDRESS_WRIST_ANGLE",
    "ADDRESS_WRIST_RANGE",
    "IMPACT_BAND",
    "IMPACT_BAND_RANGE",
    "ball_at_address",
    "Impact",
    "locate_impact",
    "GENERATOR_DEFAULTS",
    "GENERATOR_RANGES",
    "SwingGenerators",
    "swing_generators",
    "Holding",
    "holding_activation",
    "TimingOptimum",
    "optimise_onsets",
    "ReachBrackets",
    "bracket_reaching",
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
    "POPULATION_STUDY_RANGES",
    "GolferDraw",
    "draw_golfers",
    "optimise_golfer",
    "Population",
    "run_population",
    "read_population",
    "ground_wrench",
    "Target",
    "DOWNSWING_TARGETS",
    "TRUNK_ROTATION_BOUND",
    "TRUNK_ROTATION_READINGS",
    "SwingAngles",
    "swing_angles",
    "SwingRates",
    "swing_rates",
    "DownswingCheck",
    "check_downswing",
    "DOWNSWING_CHOICES",
    "X_FACTOR_TOP",
    "GolferDownswing",
    "golfer_downswing",
    "FRICTION_COEFFICIENT",
    "DownswingFeet",
    "downswing_feet",
    "WRENCH_GROUPS",
    "BALANCE_CHOICES",
    "BALANCED_CHOICES",
    "ground_wrench_by_group",
    "support_violation",
    "BalancedDownswing",
    "balanced_downswing",
    "compare_peak_vertical",
    "compare_vertical_range",
    "compare_peak_torque",
    "free_moment",
    "compare_lead_share",
    "compare_feet",
    "compare_cop_style",
    "CopStyle",
    "cop_style",
    "GroundImpulse",
    "ground_impulse",
    "LoadShare",
    "load_share_indeterminacy",
]

#: Joint screw of a revolute joint about the body's own z axis through its origin
#: (the same read-only array as :data:`geomotion.tree.REVOLUTE_Z`).
REVOLUTE_Z = tree.REVOLUTE_Z

#: Gravity of the planar models, which lie in the x-y plane, along -y, in m/s^2 (the
#: tuple the planar models use, ``_shared.PLANE_GRAVITY``).
PLANE_GRAVITY = _shared.PLANE_GRAVITY
