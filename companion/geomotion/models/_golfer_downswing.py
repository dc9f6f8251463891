r"""A 3-D downswing inside published ranges: :func:`golfer_downswing`.

The trunk is *prescribed* from published angles at the top of the backswing and at
impact (the angles are defined in ``models/_downswing_ranges.py``); the club is
*solved*: inverse kinematics puts the face centre on the ball at impact with the planar
chapter's impact speed, and keeps both feet welded and both hands on the club at every
sample.  Every input number comes from the golf source notes' addendum
(``../shared/data/golf_sources_addendum.md``), named by its row: K4, K5, K8-K12, K14,
K16, K20 (section 2) and R1, R2, R6, R7 (section 5); what has no source is a stated
modelling choice (``DOWNSWING_CHOICES``), varied over its range in the tests.

The motion's coordinates are exact functions of time: each prescribed coordinate is a
time profile (:func:`_profile`) and each rotation a chain of rotations about fixed axes
(:func:`_chain`), both with closed-form first and second derivatives; the legs and the
trail arm are solved for the closures at every sample, and their rates and
accelerations from the closures' velocity and acceleration equations.  So ``v`` and
``a`` are the derivatives of ``q``, not differences.
"""

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .. import _validate, constraints, tree
from ..errors import ConvergenceError
from ._downswing import Downswing
from ._downswing_motion import _LeadArm, _Trunk
from ._downswing_ranges import DOWNSWING_TARGETS, SwingAngles, _checked_golfer, _zyx, swing_angles
from ._golfer_limits import _trunk_cardan, golfer_angles
from ._ground_wrench import _swing_plane
from ._shared import frozen, limb_columns, quaternion, set_joint, solve_posture, weld_to_ground
from ._swing_profiles import (
    _CARDAN,
    _ZYX,
    _chain,
    _profile,
    _quaternions,
    _rotation,
)
from .swing import SwingPlaneGolfer

__all__ = ["DOWNSWING_CHOICES", "X_FACTOR_TOP", "GolferDownswing", "golfer_downswing"]

_D = np.radians
#: Modelling choices without a source: name to (default, (low, high)), angles in deg; the
#: tests vary each over its range and the motion stays inside every limit and published
#: range.  The thorax's side bend at the top (the lead shoulder up); the delay of the
#: thorax's and the arms' profiles after the pelvis's, a share of the downswing (K16
#: gives only the order); when the X-factor's stretch peaks, a share of the downswing
#: (K16: early); the least exponent of each profile's late part; the pelvis's
#: and the thorax's turn rates at impact as multiples of their mean rates over the
#: downswing (K14 gives only that the pelvis peaks before impact and the upper torso
#: after); the lead arm's elevation and elbow flexion and the lead wrist's radial
#: deviation at the top (under R1's 20 deg); the pelvis's translation towards the target
#: over the downswing, m (the weight shift; Okuda et al. 2010 find that skilled golfers
#: shift their weight to the lead foot earlier, without a size; 0 keeps the pelvis where
#: it is at address; beyond 0.04 m the trail hand reaches the club at impact only with
#: the trail wrist beyond R2's 30 deg ulnar deviation, the thorax being at its address
#: orientation there).
DOWNSWING_CHOICES = MappingProxyType(
    {
        "thorax_side_bend_top": (15.0, (5.0, 25.0)),
        "sequence_delay": (0.1, (0.05, 0.2)),
        "stretch_peak": (0.25, (0.15, 0.35)),
        "release_exponent": (5.0, (4.0, 6.0)),
        "pelvis_rate_impact": (1.0, (0.5, 1.5)),
        "thorax_rate_impact": (2.0, (1.5, 2.2)),
        "lead_elevation_top": (90.0, (85.0, 95.0)),
        "lead_elbow_top": (10.0, (5.0, 20.0)),
        "lead_deviation_top": (18.0, (10.0, 19.0)),
        "pelvis_shift": (0.0, (0.0, 0.04)),
    }
)

#: Downswing durations accepted, s: K20's 7-10 video frames at 30 Hz, a frame (33 ms, the
#: frame rate's resolution) wider on each side.
_DURATION_RANGE = (6 / 30, 11 / 30)
_E = np.eye(3)
#: Tolerance of the closures' Newton solves (rad, m).
_TOL = 1e-12


# ---------------------------------------------------------------------------
# The downswing
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GolferDownswing:
    r"""Result of :func:`golfer_downswing`: the 3-D golfer from the top to impact.

    Attributes
    ----------
    t : (n,) ndarray
        s, from the top (``t[0] = 0``) to impact (``t[-1]``).
    q : (n, 41) ndarray
        Configurations (m, unit quaternions, rad).
    v, a : (n, 35) ndarray
        Their exact first and second time derivatives (rad/s, m/s; rad/s^2, m/s^2).
    angles : SwingAngles
        At every sample.
    targets : mapping of str to float
        The angles requested, rad, by the names of ``DOWNSWING_TARGETS`` (the trunk
        rotation at the top is the X-factor's), and ``"x-factor impact"``, the one the
        impact keyframe gives.
    choices : mapping of str to float
        The modelling choices used (``DOWNSWING_CHOICES``'s names; angles in rad).
    plane : (4, 4) ndarray
        The swing plane's frame in the world: x along the target line, y from the ball
        towards the mid-shoulder point, z their cross product (the hub axis), placed so
        that the planar face centre at impact falls on the 3-D face centre at address, m.
    impact_velocity : (3,) ndarray
        The face centre's velocity at impact, m/s, world: ``planar_velocity`` without its
        component along the shaft, at the planar speed (see :func:`golfer_downswing`).
    planar_velocity : (3,) ndarray
        The planar model's face-centre velocity at impact carried into the plane, m/s.
    closure_residual : float
        Largest foot-weld and grip-weld residual over the samples (rad, m).
    ball_error : float
        Distance of the face centre from the ball at impact, m.
    velocity_error : float
        Largest component of the face centre's velocity at impact minus
        ``impact_velocity``, over the speed (dimensionless).
    direction_change : float
        Angle between ``impact_velocity`` and ``planar_velocity``, rad.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    angles: SwingAngles
    targets: MappingProxyType
    choices: MappingProxyType
    plane: np.ndarray
    impact_velocity: np.ndarray
    planar_velocity: np.ndarray
    closure_residual: float
    ball_error: float
    velocity_error: float
    direction_change: float

    def __post_init__(self):
        for name in ("t", "q", "v", "a", "plane", "impact_velocity", "planar_velocity"):
            object.__setattr__(self, name, frozen(getattr(self, name)))


class _Golfer:
    """Index bookkeeping and closures of one golfer for the downswing."""

    def __init__(self, golfer):
        m, b = golfer.model, golfer.bodies
        self.golfer, self.model, self.bodies = golfer, m, b
        self.q0 = golfer.q0
        hand, club = golfer.frames["trail grip on hand"], golfer.frames["trail grip on club"]
        self.feet = [
            weld_to_ground(m, golfer.frames[f"{s} sole"], golfer.q0) for s in ("lead", "trail")
        ]
        self.grip = constraints.frame_closure(m, club.body, club.pose, hand.body, hand.pose)
        self.closures = self.feet + [self.grip]
        self.lead = [b[f"lead {x}"] for x in ("upper arm", "forearm", "radioulnar", "wrist")]
        self.lead.append(b["lead hand and club"])
        self.trail = [
            b[f"trail {x}"] for x in ("upper arm", "forearm", "radioulnar", "wrist", "hand")
        ]
        legs = [
            limb_columns(m, range(b[f"{s} thigh"], b[f"{s} foot"] + 1)) for s in ("lead", "trail")
        ]
        self.legs = legs
        self.trail_pronation = int(m.v_start[b["trail radioulnar"]])
        trail = limb_columns(m, self.trail)
        self.dependent = np.concatenate(legs + [trail[trail != self.trail_pronation]])
        self.arms = np.concatenate([limb_columns(m, self.lead), trail])
        self.club = golfer.frames["clubhead"]

    def coordinate(self, q, body):
        return q[..., self.model.q_start[body]]

    def residual(self, q):
        return np.concatenate([c.residual(q) for c in self.closures], axis=-1)

    def jacobian(self, q):
        return np.concatenate([c.jacobian(q) for c in self.closures], axis=-2)

    def bias(self, q, v):
        return np.concatenate([c.acceleration_bias(q, v) for c in self.closures], axis=-1)


def _set_trunk(parts, q, pelvis_R, thorax_R, shift=0.0):
    """``q`` with the pelvis and the thorax at the given world orientations, the pelvis
    ``shift`` (m) towards the target from its address position, and the legs solved for
    the planted feet."""
    m, b = parts.model, parts.bodies
    origin = parts.q0[:3] + shift * _E[1]
    q = set_joint(m, q, 0, np.concatenate([origin, quaternion(pelvis_R)]))
    q = set_joint(m, q, b["thorax"], quaternion(pelvis_R.T @ thorax_R))
    for foot, columns in zip(parts.feet, parts.legs):
        q = solve_posture(m, q, columns, foot.residual, "golfer_downswing (legs)")
    return q


def _top_arms(parts, q, choices, adduction):
    r"""The arms at the top: the lead shoulder's plane of elevation ``adduction`` (K4) and
    its elevation, the lead elbow and the lead wrist's radial deviation as chosen, the
    trail wrist's deviation 0, the trail hand on the club (a weld); minimum-norm
    Gauss-Newton over the lead shoulder, forearm rotation and wrist flexion and the
    trail arm, from a lead arm turned across the chest."""
    m, b = parts.model, parts.bodies
    P, E = adduction, choices["lead_elevation_top"]
    R = _rotation(_E[2], np.array([-P]))[0] @ _rotation(_E[0], np.array([E]))[0]
    R = R @ _rotation(_E[2], np.array([_D(-30.0)]))[0]
    q = set_joint(m, q, b["lead upper arm"], quaternion(R))
    q = set_joint(m, q, b["lead forearm"], [choices["lead_elbow_top"]])
    q = set_joint(m, q, b["lead wrist"], [_D(20.0)])
    q = set_joint(m, q, b["lead hand and club"], [choices["lead_deviation_top"]])
    columns = np.concatenate(
        [
            limb_columns(m, [b["lead upper arm"], b["lead radioulnar"], b["lead wrist"]]),
            limb_columns(m, parts.trail),
        ]
    )
    trail_deviation = m.q_start[b["trail hand"]]

    def error(q):
        angles = golfer_angles(parts.golfer, q)
        return np.concatenate(
            [
                np.stack(
                    [
                        angles.lead_shoulder_horizontal_adduction - P,
                        angles.lead_shoulder_elevation - E,
                        q[..., trail_deviation],
                    ],
                    -1,
                ),
                parts.grip.residual(q),
            ],
            -1,
        )

    return solve_posture(m, q, columns, error, "golfer_downswing (top of the backswing)")


def _impact_arms(parts, q):
    """The arms at impact: the face centre on the ball (its address point) with the face
    square (its normal along the target line, as at address), the shaft's lean in the
    face's plane free, and the trail hand on the club; minimum-norm Gauss-Newton over
    both arms from their address coordinates."""
    m = parts.model
    target = parts.club.world_pose(m, parts.q0)

    def error(q):
        club = parts.club.world_pose(m, q)
        normal = club[..., :3, 0] - target[:3, 0]
        return np.concatenate(
            [club[..., :3, 3] - target[:3, 3], normal[..., [0, 2]], parts.grip.residual(q)], -1
        )

    return solve_posture(m, q, parts.arms, error, "golfer_downswing (impact)")


def _impact_velocity(parts, q, planar_velocity):
    r"""The face centre's velocity at impact, m/s: the planar one :math:`u` without its
    component along the shaft :math:`z` (which only the hands sliding along the shaft
    could give), scaled back to the planar speed:
    :math:`s\,(u - (u\cdot z)z)/|u - (u\cdot z)z|`."""
    z = parts.club.world_pose(parts.model, q)[:3, 2]
    across = planar_velocity - (planar_velocity @ z) * z
    return np.linalg.norm(planar_velocity) * across / np.linalg.norm(across)


def _impact_rates(parts, q, v_trunk, velocity):
    """Arm rates at impact that give the face centre ``velocity`` (m/s, world), no spin
    of the club about its shaft, and keep the trail hand on the club: least norm over
    both arms' rates (rad/s)."""
    m = parts.model
    J_club = tree.frame_jacobian(
        m, q, parts.club.body, parts.club.pose, reference="local_world_aligned"
    )
    shaft = parts.club.world_pose(m, q)[:3, 2]
    J = np.concatenate([J_club[3:], (shaft @ J_club[:3])[None], parts.grip.jacobian(q)])
    target = np.concatenate([velocity, np.zeros(7)])
    r = parts.arms
    v = v_trunk.copy()
    v[r] = np.linalg.lstsq(J[:, r], target - J @ v_trunk, rcond=None)[0]
    miss = float(np.abs(J @ v - target).max())
    if not miss <= 1e-9 * np.linalg.norm(velocity):
        raise ConvergenceError(
            "golfer_downswing: the arms cannot give the face centre its impact velocity",
            residual=miss,
            tolerance=1e-9,
            iterations=1,
            suggestion="choices nearer the defaults",
        )
    return v


def _choice(value, name):
    """A modelling choice: its default for None, else a real number inside its range
    (angles in rad)."""
    default, (low, high) = DOWNSWING_CHOICES[name]
    angle = name.endswith("_top")
    scale = _D(1.0) if angle else 1.0
    if value is None:
        return float(default * scale)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a real number{' (rad)' if angle else ''}, got {value!r}")
    if not (np.isfinite(value) and low * scale - 1e-12 <= value <= high * scale + 1e-12):
        raise ValueError(
            f"{name}: expected a value in [{low * scale:.4g}, {high * scale:.4g}]"
            f"{' rad' if angle else ''} (DOWNSWING_CHOICES's range), got {value!r}"
        )
    return float(value)


#: The default X-factor at the top, rad: 55 deg, inside both the K11 (52.82 +/- 5.64 deg) and
#: the K5 (60 +/- 7 deg) one-standard-deviation bands, which overlap on 53-58.5 deg.
X_FACTOR_TOP = float(_D(55.0))


def _published(value, key):
    """A keyframe angle, rad: the published mean for None (``X_FACTOR_TOP`` for the
    X-factor at the top), else within mean +/- SD (both K5's and K11's for that one)."""
    name = key.replace(" ", "_").replace("-", "_")
    if value is None:
        return X_FACTOR_TOP if key == "x-factor top" else DOWNSWING_TARGETS[key].mean
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a real number (rad), got {value!r}")
    keys = (key, "trunk rotation top") if key == "x-factor top" else (key,)
    for k in keys:
        target = DOWNSWING_TARGETS[k]
        if not (np.isfinite(value) and abs(value - target.mean) <= target.spread + 1e-12):
            raise ValueError(
                f"{name}: expected an angle within the published {np.degrees(target.mean):.1f} "
                f"+/- {np.degrees(target.spread):.1f} deg ({target.row}), got "
                f"{np.degrees(value):.1f} deg"
            )
    return float(value)


def _checked_impact(planar, impact):
    if not isinstance(planar, SwingPlaneGolfer):
        raise TypeError(f"planar: expected a models.SwingPlaneGolfer, got {type(planar).__name__}")
    if not isinstance(impact, Downswing):
        raise TypeError(
            f"run: expected the planar optimum's models.Downswing (TimingOptimum.downswing), "
            f"got {type(impact).__name__}"
        )
    if planar.batch_shape or np.shape(impact.impact.time) != ():
        raise ValueError("run: expected one planar swing (batch shape ()), got a batch")
    if not bool(impact.impact.crossed):
        raise ValueError("run: expected a swing whose clubhead meets the ball's line, got none")
    return impact.impact


def golfer_downswing(
    golfer,
    planar,
    run,
    *,
    samples=61,
    duration=None,
    pelvis_top=None,
    pelvis_impact=None,
    x_factor_top=None,
    x_factor_stretch=None,
    trunk_tilt_top=None,
    lead_adduction_top=None,
    thorax_side_bend_top=None,
    sequence_delay=None,
    stretch_peak=None,
    release_exponent=None,
    pelvis_rate_impact=None,
    thorax_rate_impact=None,
    lead_elevation_top=None,
    lead_elbow_top=None,
    lead_deviation_top=None,
    pelvis_shift=None,
):
    r"""A 3-D downswing from the top of the backswing to impact, inside published ranges.

    Angles as defined in ``models/_downswing_ranges.py`` (:func:`swing_angles`).

    **Keyframes of the trunk.**  The pelvis :math:`R_z(\psi_P)R_y(\theta_P)R_x(\phi_P)`
    keeps its tilt and side bend where they are at address and turns about the
    vertical: :math:`\psi_P` = ``pelvis_top`` at the top (K9), ``pelvis_impact`` at
    impact (K10); its origin is where it is at address at the top and ``pelvis_shift``
    towards the target at impact (the weight shift).  The thorax
    :math:`R_y(\theta)R_x(\phi)R_z(\chi)` (tilted towards the
    ball, bent sideways, turned about its own long axis; the world axes) has at the top
    the forward tilt :math:`\theta` = ``trunk_tilt_top`` (K8), the side bend
    ``thorax_side_bend_top`` (choice) and the turn :math:`\chi` that puts the X-factor
    (its axial rotation relative to the pelvis) at ``x_factor_top`` (K11 and K5); at
    impact, its address orientation, which lets the arms return the club to the ball
    (opening it by 5 deg more already takes the trail hand out of the arms' reach).

    **Time profiles** (``_profile``; all start at rest at the top).  The pelvis's turn
    starts at once and reaches impact at ``pelvis_rate_impact`` times its mean rate
    (past its peak, K14).  The thorax's tilt and side bend follow ``_profile`` from
    the top's values to impact's, starting ``sequence_delay`` of the downswing later,
    as do the arms.  Its turn about its own axis is :math:`\chi = \psi_P - x - S\,b(t)`:
    while the pelvis starts to turn, the separation grows by the X-factor's stretch
    :math:`S` = ``x_factor_stretch`` (K12; ``_bump`` over the first
    ``2 stretch_peak`` of the downswing, peaking at ``stretch_peak``, early as K16 has
    it), and from that peak on :math:`x` closes it by ``_profile`` (K16: the pelvis
    reverses first, then the upper torso), the thorax's turn reaching impact at
    ``thorax_rate_impact`` times its mean rate (still rising: K14 puts its peak after
    impact).

    **Arms and club** (inverse kinematics).  At the top: the lead shoulder's horizontal
    adduction ``lead_adduction_top`` (K4) and elevation ``lead_elevation_top``, the lead
    elbow and the lead wrist's radial deviation as chosen, the trail wrist's deviation
    0 and the trail hand on the club; least-norm Gauss-Newton.  At impact: the face
    centre on the ball and the face square to the target as at address, the shaft's
    lean in the face's plane free, the trail hand on the club.  The face centre's
    velocity at impact: the planar optimum's (speed and direction in the plane, carried
    into the world by the swing plane's frame :math:`F`, ``plane``), less its component along
    the 3-D shaft, at the planar speed (``_impact_velocity``: the planar path
    descends 20 deg through the ball with the hands 0.4 m ahead of it, which the 3-D
    arms cannot reach; ``direction_change`` reports the difference); the arms' rates
    there by least norm, with no spin of the club about its shaft.  Between the
    keyframes the lead arm's coordinates follow ``_profile`` (the shoulder as a chain
    of three rotations from the top's orientation, the first about the axis that
    carries it to impact's), as does the trail forearm's rotation; the legs and the
    other trail-arm coordinates are solved at every sample by Newton's method for the
    feet welded at address and the trail hand welded to the club, and their rates and
    accelerations from :math:`J_dv_d = -J_pv_p` and :math:`J_d\dot v_d = -J_p\dot v_p -
    \dot Jv`.  The club's path between top and impact is this modelling choice.

    Parameters
    ----------
    golfer : Golfer
        :func:`golfer` (either trail grip: the trail hand is held welded to the club).
    planar : SwingPlaneGolfer
        The planar golfer, one parameter set.
    run : Downswing
        Its optimum's swing (``optimise_onsets(planar).downswing``): the impact state,
        the duration and the plane come from it.
    samples : int, keyword only
        Number of samples, at least 3 (default 61).
    duration : float, keyword only
        s; default the planar optimum's impact time.  Within 0.2-0.367 s (K20's 7-10
        frames at 30 Hz, a frame wider each side).
    pelvis_top, pelvis_impact, trunk_tilt_top, lead_adduction_top : float
        rad, keyword only; default the published mean, accepted within one standard
        deviation of it (``DOWNSWING_TARGETS``).
    x_factor_top : float
        rad, keyword only; default ``X_FACTOR_TOP`` (55 deg), accepted within both K11's
        and K5's one-standard-deviation bands (53-58.5 deg).
    x_factor_stretch : float
        rad, keyword only; default K12's mean, accepted within one standard deviation.
    thorax_side_bend_top, lead_elevation_top, lead_elbow_top, lead_deviation_top : float
        rad, keyword only, within ``DOWNSWING_CHOICES``'s ranges (given there in deg).
    sequence_delay, stretch_peak, release_exponent : float
        Dimensionless, keyword only, within ``DOWNSWING_CHOICES``'s ranges.
    pelvis_rate_impact, thorax_rate_impact : float
        Dimensionless, keyword only, within ``DOWNSWING_CHOICES``'s ranges.
    pelvis_shift : float
        m, keyword only, within ``DOWNSWING_CHOICES``'s range: the pelvis's translation
        towards the target (world y) from the top (where it is at address) to impact,
        from rest to rest (the quintic smoothstep of ``_profile``, no delay); the impact
        keyframe's arms are solved with the pelvis there.

    Returns
    -------
    GolferDownswing
        Checked before it is returned: closure residuals at most 1e-9, the face centre
        within 1e-9 m of the ball and its velocity within 1e-9 (relative) of
        ``impact_velocity`` at impact, the keyframe angles within 1e-9 rad of the
        requested ones.

    Raises
    ------
    TypeError
        If ``golfer``, ``planar`` or ``run`` has the wrong type, or an option is not a
        real number.
    ValueError
        If an option is outside its range, ``samples`` is below 3, or the run has no
        impact.
    geomotion.errors.ConvergenceError
        If a posture cannot be reached, or the result fails its checks.
    """
    parts = _Golfer(_checked_golfer(golfer))
    impact = _checked_impact(planar, run)
    n = _validate.count(samples, "samples", minimum=3)
    T = _duration(impact, duration)
    targets = {
        name: _published(value, name)
        for name, value in (
            ("pelvis top", pelvis_top),
            ("pelvis impact", pelvis_impact),
            ("x-factor top", x_factor_top),
            ("x-factor stretch", x_factor_stretch),
            ("trunk tilt top", trunk_tilt_top),
            ("lead adduction top", lead_adduction_top),
        )
    }
    given = {
        "thorax_side_bend_top": thorax_side_bend_top,
        "sequence_delay": sequence_delay,
        "stretch_peak": stretch_peak,
        "release_exponent": release_exponent,
        "pelvis_rate_impact": pelvis_rate_impact,
        "thorax_rate_impact": thorax_rate_impact,
        "lead_elevation_top": lead_elevation_top,
        "lead_elbow_top": lead_elbow_top,
        "lead_deviation_top": lead_deviation_top,
        "pelvis_shift": pelvis_shift,
    }
    m, b = parts.model, parts.bodies
    T0 = tree.forward_kinematics(m, parts.q0)
    _, *pelvis_tilt = _zyx(T0[0, :3, :3])
    choices = {name: _choice(value, name) for name, value in given.items()}
    pelvis = np.array([[targets[f"pelvis {e}"], *pelvis_tilt] for e in ("top", "impact")])
    tilt, bend = targets["trunk tilt top"], choices["thorax_side_bend_top"]
    thorax_top = _yxz_matrix(
        tilt, bend, _axial_turn(tilt, bend, _zyx_matrix(pelvis[0]), targets["x-factor top"])
    )
    thorax_impact = T0[b["thorax"], :3, :3]
    R = [_zyx_matrix(pelvis[0]), thorax_top, _zyx_matrix(pelvis[1]), thorax_impact]
    turn = _trunk_cardan(thorax_impact)[2] - _trunk_cardan(thorax_top)[2]
    targets["x-factor impact"] = -_trunk_cardan(R[2].T @ R[3])[2]
    q_top = _set_trunk(parts, parts.q0, R[0], R[1])
    q_top = _top_arms(parts, q_top, choices, targets["lead adduction top"])
    plane, planar_velocity = _impact_planar(planar, impact, golfer)
    shift = choices["pelvis_shift"]
    q_imp = _impact_arms(parts, _set_trunk(parts, parts.q0, R[2], R[3], shift))
    velocity = _impact_velocity(parts, q_imp, planar_velocity)
    trunk = _Trunk(pelvis, np.array([_trunk_cardan(R[1]), _trunk_cardan(R[3])]))
    trunk.timing(T, turn, choices, targets["x-factor stretch"])
    v_imp = _impact_rates(parts, q_imp, trunk.velocity(parts), velocity)
    lead = _LeadArm(parts, q_top, q_imp, v_imp)
    pronation = [parts.coordinate(q, b["trail radioulnar"]) for q in (q_top, q_imp)]
    t = np.linspace(0.0, T, n)
    delay, k0 = choices["sequence_delay"], choices["release_exponent"]
    trail = _profile(*pronation, v_imp[parts.trail_pronation], t, T, delay, k0)
    translation = _profile(0.0, shift, 0.0, t, T, 0.0, k0)
    arms = lead.motion(t, T, delay, k0)
    q, v, a = _samples(parts, t, q_top, (*trunk.motion(t), translation), arms, trail)
    return _checked_result(parts, t, q, v, a, targets, choices, plane, velocity, planar_velocity)


def _yxz_matrix(tilt, bend, turn):
    """R_y(tilt) R_x(bend) R_z(turn), rad: tilted forward, bent sideways, turned about its
    own long axis (the Cardan sequence of golfer_angles, here in the world)."""
    zero = np.zeros((1, 3))
    return _chain(np.eye(3), _CARDAN, (np.array([[tilt, bend, turn]]), zero, zero))[0][0]


def _axial_turn(tilt, bend, pelvis, x_factor):
    r"""The turn :math:`\psi` of the thorax about its own long axis that puts
    :math:`R_y(\text{tilt})R_x(\text{bend})R_z(\psi)` at the X-factor ``x_factor``
    relative to the pelvis's orientation ``pelvis`` (:math:`-\gamma` of
    :func:`golfer_angles`), rad: Newton's method on the wrapped error."""

    def error(turn):
        gamma = _trunk_cardan(pelvis.T @ _yxz_matrix(tilt, bend, turn))[2]
        return np.angle(np.exp(1j * (-gamma - x_factor)))

    turn, step = _trunk_cardan(pelvis)[2] - x_factor, 1e-7
    for _ in range(50):
        e = error(turn)
        if abs(e) < 1e-14:
            return turn
        turn -= e * step / (error(turn + step) - e)
    raise ConvergenceError(
        "golfer_downswing: no thorax turn gives the requested X-factor",
        residual=float(abs(e)),
        tolerance=1e-14,
        iterations=50,
        suggestion="trunk_tilt_top and thorax_side_bend_top nearer their defaults",
    )


def _zyx_matrix(angles):
    """R_z(psi) R_y(theta) R_x(phi) of angles (psi, theta, phi), rad."""
    zero = np.zeros((1, 3))
    return _chain(np.eye(3), _ZYX, (np.asarray(angles)[None], zero, zero))[0][0]


def _duration(impact, duration):
    """The downswing's duration, s: the planar impact time for None."""
    T = float(impact.time) if duration is None else duration
    if isinstance(T, bool) or not isinstance(T, (int, float, np.integer, np.floating)):
        raise TypeError(f"duration: expected a real number (s), got {duration!r}")
    if not (np.isfinite(T) and _DURATION_RANGE[0] <= T <= _DURATION_RANGE[1]):
        raise ValueError(
            f"duration: expected {_DURATION_RANGE[0]:.3f}-{_DURATION_RANGE[1]:.3f} s (K20's "
            f"7-10 frames at 30 Hz, a frame wider each side), got {T!r}"
        )
    return float(T)


def _impact_planar(planar, impact, golfer):
    r"""The swing plane :math:`F` (``GolferDownswing.plane``) and the planar face centre's
    velocity at impact carried into it, :math:`F\dot c` (m/s, world)."""
    plane = _swing_plane(golfer, planar, np.asarray(impact.q))
    return plane, plane[:3, :2] @ np.asarray(impact.clubhead_velocity)


def _samples(parts, t, q_top, trunk, lead, trail_pronation):
    r"""q, v, a at the times ``t``: the prescribed coordinates set, the dependent ones
    solved (Newton on the closures, warm-started from the previous sample).  The
    pelvis's translation :math:`p(t)` along the target line (world y) enters the free
    flyer's body twist as :math:`v = R^Tp'` and its rate as :math:`R^Tp'' - \omega\times
    v`."""
    m, b = parts.model, parts.bodies
    n = t.size
    (pelvis, thorax, (y, yd, ydd)), (shoulder, scalars) = trunk, lead
    relative = thorax
    q = np.tile(q_top, (n, 1))
    v, a = np.zeros((n, m.nv)), np.zeros((n, m.nv))
    joints = [(0, pelvis), (b["thorax"], relative), (b["lead upper arm"], shoulder)]
    for body, (R, w, al) in joints:
        start, vs = m.q_start[body], m.v_start[body]
        quats = _quaternions(R)
        if body == 0:
            q[:, start + 3 : start + 7] = quats
        else:
            q[:, start : start + 4] = quats
        v[:, vs : vs + 3], a[:, vs : vs + 3] = w, al
    R, w = pelvis[0], pelvis[1]
    q[:, 1] = parts.q0[1] + y[:, 0]
    v[:, 3:6] = R[:, 1, :] * yd  # R^T (0, y', 0)
    a[:, 3:6] = R[:, 1, :] * ydd - np.cross(w, v[:, 3:6])
    bodies = [b[x] for x in ("lead forearm", "lead radioulnar", "lead wrist")] + [
        b["lead hand and club"]
    ]
    for j, body in enumerate(bodies):
        q[:, m.q_start[body]] = scalars[0][:, j]
        v[:, m.v_start[body]], a[:, m.v_start[body]] = scalars[1][:, j], scalars[2][:, j]
    x, xd, xdd = trail_pronation
    q[:, m.q_start[b["trail radioulnar"]]] = x[:, 0]
    v[:, parts.trail_pronation], a[:, parts.trail_pronation] = xd[:, 0], xdd[:, 0]
    dep = parts.dependent
    guess = q_top
    for k in range(n):
        guess = _newton(parts, q[k], guess, dep)
        q[k] = guess
    J = parts.jacobian(q)
    J_d = J[:, :, dep]
    v[:, dep] = -np.linalg.solve(J_d, np.einsum("nij,nj->ni", J, v)[..., None])[..., 0]
    rhs = np.einsum("nij,nj->ni", J, a) + parts.bias(q, v)
    a[:, dep] = -np.linalg.solve(J_d, rhs[..., None])[..., 0]
    return q, v, a


def _newton(parts, q_prescribed, guess, dep):
    """The dependent coordinates of ``q_prescribed`` by Newton's method from ``guess``."""
    m = parts.model
    q = guess.copy()
    free = np.ones(m.nq, dtype=bool)
    for body in range(m.num_bodies):
        columns = np.arange(m.v_start[body], m.v_start[body] + m.joint_nv[body])
        if not np.isin(columns, dep).any():
            s = m.q_start[body]
            free[s : s + m.joint_nq[body]] = False
    q[~free] = q_prescribed[~free]
    for _ in range(30):
        r = parts.residual(q)
        if np.abs(r).max() <= _TOL:
            return q
        step = np.zeros(m.nv)
        step[dep] = -np.linalg.solve(parts.jacobian(q)[:, dep], r)
        q = tree.integrate(m, q, step, 1.0)
    raise ConvergenceError(
        "golfer_downswing: the legs and the trail arm cannot follow (Newton's method did "
        f"not converge; residual {np.abs(r).max():.3g})",
        residual=float(np.abs(r).max()),
        tolerance=_TOL,
        iterations=30,
        suggestion="choices nearer the defaults",
    )


def _checked_result(parts, t, q, v, a, targets, choices, plane, velocity, planar_velocity):
    """The result, after checking it against the request (see :func:`golfer_downswing`)."""
    m = parts.model
    closure = float(np.abs(parts.residual(q)).max())
    ball = parts.club.world_pose(m, parts.q0)[:3, 3]
    kin = tree.frame_kinematics(
        m, q[-1], v[-1], parts.club.body, parts.club.pose, reference="local_world_aligned"
    )
    ball_error = float(np.linalg.norm(kin.pose[:3, 3] - ball))
    velocity_error = float(np.abs(kin.velocity[3:] - velocity).max() / np.linalg.norm(velocity))
    angles = swing_angles(parts.golfer, q)
    keyframes = {
        "pelvis top": angles.pelvis_rotation[0],
        "pelvis impact": angles.pelvis_rotation[-1],
        "x-factor top": angles.x_factor[0],
        "x-factor impact": angles.x_factor[-1],
        "trunk tilt top": angles.trunk_forward_tilt[0],
        "lead adduction top": angles.lead_shoulder_horizontal_adduction[0],
    }
    miss = max(abs(float(keyframes[k]) - targets[k]) for k in keyframes)
    worst = max(closure, ball_error, velocity_error, miss)
    if not worst <= 1e-9:
        raise ConvergenceError(
            f"golfer_downswing: the result fails its checks (closure {closure:.3g}, ball "
            f"{ball_error:.3g} m, impact twist {velocity_error:.3g}, keyframe angles "
            f"{miss:.3g} rad)",
            residual=worst,
            tolerance=1e-9,
            iterations=1,
            suggestion="choices nearer the defaults",
        )
    return GolferDownswing(
        t=t,
        q=q,
        v=v,
        a=a,
        angles=angles,
        targets=MappingProxyType(dict(targets)),
        choices=MappingProxyType(dict(choices)),
        plane=plane,
        impact_velocity=velocity,
        planar_velocity=planar_velocity,
        closure_residual=closure,
        ball_error=ball_error,
        velocity_error=velocity_error,
        direction_change=float(
            np.arccos(
                np.clip(
                    velocity
                    @ planar_velocity
                    / (np.linalg.norm(velocity) * np.linalg.norm(planar_velocity)),
                    -1.0,
                    1.0,
                )
            )
        ),
    )
