r"""The downswing's published ranges and limits: its angles, and a check (:func:`check_downswing`).

Angles (:func:`swing_angles`)
-----------------------------
World axes as :func:`geomotion.models.golfer`'s: z up, x towards the ball, y towards the
target.  Rows are those of the golf source notes' addendum
(``../shared/data/golf_sources_addendum.md``); only the papers' abstracts were read, so
their angle definitions are not known, and each model angle below is ours.

* **pelvis rotation** :math:`\psi_P` (K9: 42 +/- 7 deg closed at the top, K10: 42 +/-
  12 deg open at impact, PGA; K10's sign is the paper's, -42 deg, open): the heading of
  the pelvis's anterior axis in the horizontal plane from the address's (+x), positive
  *open* (towards the target), :math:`\psi = \operatorname{atan2}(R_{10}, R_{00})` of
  its orientation :math:`R`.  **thorax rotation** :math:`\psi_T`: the same of the
  thorax.
* **X-factor** :math:`X = -\gamma`: the thorax's axial rotation relative to the pelvis,
  towards the trail, the Cardan angle of :func:`golfer_angles` (the joint coordinate
  system in which R6's norm is checked).  Two published numbers describe it at the top:
  Sorbie et al.'s X-factor (K11, 52.82 +/- 5.64 deg, 15 low-handicap golfers) and Zheng
  et al.'s "trunk rotation" (K5, 60 +/- 7 deg, 18 professionals), read here as the same
  relative angle.  Read as the thorax's turn from the target line instead, K5 could not
  hold together with K9 and K11 (60 - 42 = 18 deg of separation against K11's 53), so
  the three are consistent only if K5 is a relative angle; the model's X-factor at the
  top must lie in both one-SD bands, 53-58.5 deg.  Its *stretch* (K12, 1.54 +/- 1.05
  deg) is its largest value in the downswing minus its value at the top.
  **separation** :math:`\psi_P - \psi_T`: the same separation projected on the
  horizontal plane, the other usual definition (reported, not checked).
* **trunk forward tilt** :math:`\theta_T` (K8, 31 +/- 4 deg at the top, PGA) and side
  bend :math:`\phi_T` of the thorax's orientation
  :math:`R = R_y(\theta_T)R_x(\phi_T)R_z(\chi_T)`: the tilt of its long axis towards
  the ball, and its bend (the lead shoulder up > 0).
* **lead-shoulder horizontal adduction** (K4, 125 +/- 6 deg at the top):
  :func:`golfer_angles`'s, the plane of the lead upper arm in the thorax, from lateral
  towards anterior.

Limits (:func:`check_downswing`)
--------------------------------
The wrists' radial (R1, 20 deg) and ulnar (R2, 30 deg) deviation norms bound every
sample, as :func:`check_golfer_limits` checks them.  The trunk is different: R6's 41.9
deg is the *mean* of 137 adults standing, and low-handicap golfers reach more at the top
(K5's 60 +/- 7, K11's 52.8 +/- 5.6 deg).  The bound applied here,
``TRUNK_ROTATION_BOUND`` = 57.9 deg, is the upper end of R6's normal range, its mean
plus two standard deviations (41.93 + 2 x 3.35 = 48.6 deg, above which about 2 % of
normal adults lie if the spread is normal), increased by R7's 19 % for a trunk inclined
45 deg forward as a golfer's is.  R7's standing value is not R6's (module notes of
``_golfer_limits``), so carrying its ratio over is our choice, stated here; R6's mean
itself is still checked (``DownswingCheck.limits``) and its excess reported, not
hidden.  The two sources allow other readings (``TRUNK_ROTATION_READINGS``): R7's
increase added as its absolute 6.2 deg instead of its 19 %, 54.8 deg, or its 19 %
scaled linearly to the 31 deg of K8's forward tilt (0 % standing, 19 % at 45 deg),
55.0 deg.  The trunk's flexion and side bend relative to the pelvis, the hips, knees,
elbows and wrist flexion have no sourced limit in the addendum and are not checked.
"""

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .. import _validate, tree
from ._golfer3d import Golfer
from ._golfer_limits import GOLFER_JOINT_LIMITS, _trunk_cardan, check_golfer_limits, golfer_angles
from ._shared import frozen

__all__ = [
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
]


@dataclass(frozen=True)
class Target:
    """A published angle of the downswing.

    Attributes
    ----------
    angle : str
        The :class:`SwingAngles` field it is read on.
    event : str
        ``"top"`` (the first sample), ``"impact"`` (the last) or ``"early downswing"``
        (the stretch: the largest value minus the first).
    mean, spread : float
        The published mean and standard deviation, rad.
    row : str
        The row of the golf source notes' addendum.
    """

    angle: str
    event: str
    mean: float
    spread: float
    row: str


_D = np.radians
#: Rounding allowance of the range checks, rad (a keyframe requested at a band's edge).
_ROUNDING = 1e-9
#: Published angles the downswing is built on and checked against (rad; addendum rows):
#: pelvis at the top -42 +/- 7 deg (K9, PGA, closed) and at impact +42 +/- 12 deg (K10,
#: PGA, open), X-factor at the top 52.82 +/- 5.64 deg (K11), trunk rotation at the top 60
#: +/- 7 deg (K5), the X-factor's stretch, its largest value in the downswing minus its
#: value at the top, 1.54 +/- 1.05 deg (K12), trunk forward tilt at the top 31 +/- 4 deg
#: (K8, PGA), lead-shoulder horizontal adduction at the top 125 +/- 6 deg (K4).
DOWNSWING_TARGETS = MappingProxyType(
    {
        "pelvis top": Target("pelvis_rotation", "top", _D(-42.0), _D(7.0), "K9"),
        "pelvis impact": Target("pelvis_rotation", "impact", _D(42.0), _D(12.0), "K10"),
        "x-factor top": Target("x_factor", "top", _D(52.82), _D(5.64), "K11"),
        "x-factor stretch": Target("x_factor", "early downswing", _D(1.54), _D(1.05), "K12"),
        "trunk rotation top": Target("x_factor", "top", _D(60.0), _D(7.0), "K5"),
        "trunk tilt top": Target("trunk_forward_tilt", "top", _D(31.0), _D(4.0), "K8"),
        "lead adduction top": Target(
            "lead_shoulder_horizontal_adduction", "top", _D(125.0), _D(6.0), "K4"
        ),
    }
)

#: The trunk-rotation bound of :func:`check_downswing`, rad, 57.9 deg; R6's mean plus two
#: standard deviations, 41.93 + 2 x 3.35 deg, times 1.19, R7's increase in a golfer's
#: forward inclination (module notes).
TRUNK_ROTATION_BOUND = float(_D((41.93 + 2 * 3.35) * 1.19))
#: Readings of R6 and R7 that give the trunk-rotation bound, rad, by name: the one applied
#: (``TRUNK_ROTATION_BOUND``), R7's increase as its absolute +6.2 deg at 45 deg forward
#: inclination, and its 19 % scaled linearly to K8's 31 deg forward tilt, 1 + 0.19 x
#: 31/45 (module notes).  Only the first is checked; the others say how much the verdict
#: rests on the reading.
TRUNK_ROTATION_READINGS = MappingProxyType(
    {
        "+19 % at 45 deg inclination": TRUNK_ROTATION_BOUND,
        "+6.2 deg at 45 deg inclination": float(_D(41.93 + 2 * 3.35 + 6.2)),
        "+19 % scaled to a 31 deg tilt": float(_D((41.93 + 2 * 3.35) * (1 + 0.19 * 31 / 45))),
    }
)


@dataclass(frozen=True, eq=False)
class SwingAngles:
    r"""The downswing's angles (:func:`swing_angles`, module notes), rad, each of the batch
    shape of q.

    Attributes
    ----------
    pelvis_rotation, thorax_rotation : ndarray
        :math:`\psi_P`, :math:`\psi_T`: headings, positive open (towards the target).
    x_factor : ndarray
        :math:`-\gamma`: the thorax's axial rotation relative to the pelvis, positive
        towards the trail (:func:`golfer_angles`'s ``trunk_rotation`` negated).
    separation : ndarray
        :math:`\psi_P - \psi_T`, the same separation projected on the horizontal plane.
    trunk_forward_tilt, trunk_side_bend : ndarray
        :math:`\theta_T`, :math:`\phi_T` of :math:`R_{0,T} = R_y(\theta_T)R_x(\phi_T)
        R_z(\chi_T)` (side bend positive with the lead shoulder up).
    lead_shoulder_horizontal_adduction : ndarray
        As :func:`golfer_angles`.
    """

    pelvis_rotation: np.ndarray
    thorax_rotation: np.ndarray
    x_factor: np.ndarray
    separation: np.ndarray
    trunk_forward_tilt: np.ndarray
    trunk_side_bend: np.ndarray
    lead_shoulder_horizontal_adduction: np.ndarray

    def __post_init__(self):
        for name in self.__dataclass_fields__:
            object.__setattr__(self, name, frozen(getattr(self, name)))


def _zyx(R):
    """(psi, theta, phi) of R = Rz(psi) Ry(theta) Rx(phi), rad."""
    psi = np.arctan2(R[..., 1, 0], R[..., 0, 0])
    theta = np.arcsin(np.clip(-R[..., 2, 0], -1.0, 1.0))
    return psi, theta, np.arctan2(R[..., 2, 1], R[..., 2, 2])


def _checked_golfer(golfer):
    if not isinstance(golfer, Golfer):
        raise TypeError(f"golfer: expected a models.Golfer, got {type(golfer).__name__}")
    return golfer


def swing_angles(golfer, q):
    r"""The angles of the module's notes at configurations ``q``, from the bodies' poses.

    .. math:: \psi = \operatorname{atan2}(R_{10}, R_{00}),\qquad
              R_{0,T} = R_y(\theta_T)R_x(\phi_T)R_z(\chi_T),\qquad
              X = -\gamma

    with :math:`R` a body's orientation in the world and :math:`\gamma` the thorax's
    axial rotation in the pelvis (:func:`golfer_angles`).

    Parameters
    ----------
    golfer : Golfer
    q : (..., 41) array_like

    Returns
    -------
    SwingAngles
        rad.

    Raises
    ------
    TypeError
        If ``golfer`` is not a Golfer.
    ValueError
        If ``q`` is not a batch of configurations of the golfer.
    """
    golfer = _checked_golfer(golfer)
    T = tree.forward_kinematics(golfer.model, q)
    R_p, R_t = T[..., golfer.bodies["pelvis"], :3, :3], T[..., golfer.bodies["thorax"], :3, :3]
    psi_p, psi_t = _zyx(R_p)[0], _zyx(R_t)[0]
    theta_t, phi_t, _ = _trunk_cardan(R_t)
    anatomical = golfer_angles(golfer, q)
    return SwingAngles(
        pelvis_rotation=psi_p,
        thorax_rotation=psi_t,
        x_factor=-anatomical.trunk_rotation,
        separation=np.angle(np.exp(1j * (psi_p - psi_t))),
        trunk_forward_tilt=theta_t,
        trunk_side_bend=phi_t,
        lead_shoulder_horizontal_adduction=anatomical.lead_shoulder_horizontal_adduction,
    )


# ---------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SwingRates:
    r"""The rates of the 3-D downswing that Zheng et al. (2008a) measured
    (:func:`swing_rates`), rad/s, each (n,).

    Attributes
    ----------
    shaft_angular_velocity : ndarray
        :math:`|\omega - (\omega\cdot e)\,e|`: the club's angular velocity in the world
        without its spin about the shaft, :math:`e` the unit vector from the butt to the
        face centre.
    trail_elbow_extension_rate : ndarray
        :math:`-\dot q_e`, the trail elbow's flexion rate negated (extension > 0).
    pelvis_turn_rate, thorax_turn_rate : ndarray
        The vertical component of each body's angular velocity in the world, positive
        turning open (towards the target, as ``SwingAngles``' headings).
    """

    shaft_angular_velocity: np.ndarray
    trail_elbow_extension_rate: np.ndarray
    pelvis_turn_rate: np.ndarray
    thorax_turn_rate: np.ndarray

    def __post_init__(self):
        for name in self.__dataclass_fields__:
            object.__setattr__(self, name, frozen(getattr(self, name)))


def swing_rates(golfer, downswing):
    r"""The club shaft's angular velocity and the trail elbow's extension rate along a 3-D
    downswing (:class:`SwingRates`).

    .. math:: \omega_0 = R_{0,c}\,\omega_c,\qquad
              |\omega_0 - (\omega_0\cdot e)\,e|,\qquad
              e = \frac{p_{head} - p_{butt}}{|p_{head} - p_{butt}|}

    with :math:`\omega_c` the club body's angular velocity in its own axes
    (:func:`geomotion.tree.frame_kinematics`).

    Parameters
    ----------
    golfer : Golfer
    downswing : GolferDownswing
        A motion of ``golfer``, n samples.

    Returns
    -------
    SwingRates
        rad/s.

    Raises
    ------
    TypeError
        If ``golfer`` is not a Golfer or ``downswing`` not a GolferDownswing.
    ValueError
        If ``downswing`` is not a motion of ``golfer``.
    """
    from ._downswing_balance import _checked_downswing  # it imports this module

    golfer = _checked_downswing(golfer, downswing)
    model, q, v = golfer.model, downswing.q, downswing.v

    def world_angular_velocity(body):
        kin = tree.frame_kinematics(model, q, v, golfer.bodies[body], np.eye(4), reference="local")
        return np.einsum("nij,nj->ni", kin.pose[:, :3, :3], kin.velocity[:, :3])

    omega = world_angular_velocity("lead hand and club")
    shaft = golfer.frames["clubhead"].world_pose(model, q)[:, :3, 3]
    shaft = shaft - golfer.frames["club butt"].world_pose(model, q)[:, :3, 3]
    e = shaft / np.linalg.norm(shaft, axis=1, keepdims=True)
    across = omega - np.sum(omega * e, axis=1, keepdims=True) * e
    elbow = golfer.bodies["trail forearm"]
    return SwingRates(
        shaft_angular_velocity=np.linalg.norm(across, axis=1),
        trail_elbow_extension_rate=-v[:, model.v_start[elbow]],
        pelvis_turn_rate=world_angular_velocity("pelvis")[:, 2],
        thorax_turn_rate=world_angular_velocity("thorax")[:, 2],
    )


@dataclass(frozen=True, eq=False)
class DownswingCheck:
    r"""A motion against the limits and the published ranges (:func:`check_downswing`).

    Attributes
    ----------
    limits : LimitCheck
        :func:`check_golfer_limits` at every sample (the wrists' R1/R2 norms and R6's
        trunk mean).
    wrists_within : ndarray of bool
        Per sample: both wrists within their R1 and R2 norms.
    trunk_excess : ndarray
        Per sample, :math:`\max(0, -\gamma - \gamma_{max})`, rad, with
        :math:`\gamma_{max}` = ``TRUNK_ROTATION_BOUND``.
    published : mapping of str to float
        The motion's value of each ``DOWNSWING_TARGETS`` entry, rad (top: the first
        sample; impact: the last; the stretch: the largest X-factor minus the top's).
    in_range : mapping of str to bool
        Whether each is within the published mean +/- one standard deviation.
    within : bool
        Every sample within the wrists' norms and the trunk bound, and every published
        value in range.
    """

    limits: object
    wrists_within: np.ndarray
    trunk_excess: np.ndarray
    published: MappingProxyType
    in_range: MappingProxyType
    within: bool

    def messages(self):
        """What is out: one line per failed range, then the samples beyond a limit.

        Returns
        -------
        list of str
        """
        lines = [
            f"{name}: {np.degrees(self.published[name]):.1f} deg, outside "
            f"{np.degrees(DOWNSWING_TARGETS[name].mean):.1f} +/- "
            f"{np.degrees(DOWNSWING_TARGETS[name].spread):.1f} deg ({DOWNSWING_TARGETS[name].row})"
            for name, ok in self.in_range.items()
            if not ok
        ]
        for k in np.flatnonzero(self.trunk_excess > 0):
            lines.append(
                f"q[{k}]: trunk rotation beyond {np.degrees(TRUNK_ROTATION_BOUND):.1f} deg "
                f"(R6 mean + 2 SD, x 1.19 for R7) by {np.degrees(self.trunk_excess[k]):.1f} deg"
            )
        wrists = [x for x in self.limits.messages() if "wrist" in x]
        return lines + wrists


def check_downswing(golfer, q):
    r"""Check a downswing, sample by sample, against the limits and the published ranges.

    The wrists' deviation against R1 (radial, 20 deg) and R2 (ulnar, 30 deg) at every
    sample; the trunk's axial rotation towards the trail against ``TRUNK_ROTATION_BOUND``
    at every sample (R6's mean is reported by ``limits`` as well, see the module notes);
    the first sample (the top) and the last (impact) against ``DOWNSWING_TARGETS``.

    Parameters
    ----------
    golfer : Golfer
    q : (n, 41) array_like
        Configurations from the top (first) to impact (last), n >= 2.

    Returns
    -------
    DownswingCheck

    Raises
    ------
    TypeError
        If ``golfer`` is not a Golfer.
    ValueError
        If ``q`` is not a sequence of at least two configurations of the golfer.
    """
    golfer = _checked_golfer(golfer)
    q = _validate.trailing_shape(q, "q", (golfer.model.nq,))
    if q.ndim != 2 or q.shape[0] < 2:
        raise ValueError(f"q: expected (n >= 2, {golfer.model.nq}) configurations, got {q.shape}")
    limits = check_golfer_limits(golfer, q)
    wrists = [name for name in GOLFER_JOINT_LIMITS if "wrist" in name]
    wrists_within = ~np.any(np.stack([limits.excess[name] > 0 for name in wrists]), axis=0)
    angles = swing_angles(golfer, q)
    trunk_excess = np.maximum(0.0, angles.x_factor - TRUNK_ROTATION_BOUND)
    published = {}
    for name, target in DOWNSWING_TARGETS.items():
        values = getattr(angles, target.angle)
        if target.event == "early downswing":
            published[name] = float(values.max() - values[0])
        else:
            published[name] = float(values[0] if target.event == "top" else values[-1])
    in_range = {
        name: bool(abs(published[name] - t.mean) <= t.spread + _ROUNDING)
        for name, t in DOWNSWING_TARGETS.items()
    }
    within = bool(wrists_within.all() and not trunk_excess.any() and all(in_range.values()))
    return DownswingCheck(
        limits=limits,
        wrists_within=frozen(wrists_within),
        trunk_excess=frozen(trunk_excess),
        published=MappingProxyType(published),
        in_range=MappingProxyType(in_range),
        within=within,
    )
