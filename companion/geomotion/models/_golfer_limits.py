r"""Range of motion of the 3-D golfer: sourced limits, the anatomical angles they bound, a check.

:data:`GOLFER_JOINT_LIMITS` holds the numbers the golf source notes' addendum (section 5,
rows R1-R7) gives for joints of :func:`geomotion.models.golfer`, each with its row, its
original source and its kind (``LIMIT_KINDS``); :func:`golfer_angles` computes the
anatomical angles they refer to (its docstring defines them) and
:func:`check_golfer_limits` reports, configuration by configuration, every measured norm
exceeded and by how much.
"""

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .. import spatial, tree
from ._golfer3d import Golfer
from ._shared import frozen

__all__ = [
    "LIMIT_KINDS",
    "JointLimit",
    "GOLFER_JOINT_LIMITS",
    "GolferAngles",
    "golfer_angles",
    "LimitCheck",
    "check_golfer_limits",
]

#: The kinds of a :class:`JointLimit`.  ``"measured norm"``: the mean range of motion of
#: people measured clinically (a goniometer, standing or seated), not during a swing; a
#: mean, not the most a joint can do (about half the people measured exceed it, and a
#: golfer's posture changes it, row R7), so an excess is something to look at, not a proof
#: that a posture is impossible.  ``"in-swing value"``: an angle golfers were measured to
#: reach during a swing (a mean and its standard deviation), a comparison target, not a
#: limit.
LIMIT_KINDS = ("measured norm", "in-swing value")


@dataclass(frozen=True, eq=False)
class GolferAngles:
    r"""Anatomical angles of the golfer, defined in :func:`golfer_angles`; every array has
    the batch shape of the configurations, read-only.

    Attributes
    ----------
    trunk_flexion, trunk_lateral_bending, trunk_rotation : ndarray
        :math:`\alpha` (forward > 0), :math:`\beta` (towards the trail > 0) and
        :math:`\gamma` (towards the target > 0) of the thorax relative to the pelvis,
        rad.
    lead_wrist_deviation, trail_wrist_deviation : ndarray
        Radial > 0, ulnar < 0, rad.
    lead_shoulder_elevation : ndarray
        The lead upper arm's angle from hanging along the trunk, rad, in [0, pi].
    lead_shoulder_horizontal_adduction : ndarray
        The plane of the lead upper arm from the thorax's lateral axis towards its
        anterior one, rad, in (-pi, pi].
    """

    trunk_flexion: np.ndarray
    trunk_lateral_bending: np.ndarray
    trunk_rotation: np.ndarray
    lead_wrist_deviation: np.ndarray
    trail_wrist_deviation: np.ndarray
    lead_shoulder_elevation: np.ndarray
    lead_shoulder_horizontal_adduction: np.ndarray

    def __post_init__(self):
        for name in self.__dataclass_fields__:
            object.__setattr__(self, name, frozen(getattr(self, name)))


@dataclass(frozen=True)
class JointLimit:
    r"""One sourced number bounding (or describing) one anatomical angle of the golfer.

    The motion it describes is ``direction * angle`` (an angle of :class:`GolferAngles`);
    a measured norm bounds it, ``direction * angle <= value``, and an in-swing value is
    where golfers were measured to take it.

    Attributes
    ----------
    angle : str
        The field of :class:`GolferAngles` it applies to.
    direction : {1, -1}
        The sign of that angle in the direction of the motion.
    value : float
        rad, positive: the norm's mean or the in-swing mean.
    spread : float or None
        rad, the standard deviation the source gives, or None if it gives none.
    kind : str
        One of ``LIMIT_KINDS``.
    source : str
        The row of the golf source notes' addendum (section 5) the number was read
        from, e.g. ``"R1"``.
    reference : str
        The original publication, as far as it was read.
    note : str
        Why this number, and what it may not be used for.

    Raises
    ------
    TypeError
        If a text field is not a string, ``direction`` is not an integer, or ``value``
        or ``spread`` is not a real number (``spread`` may be None).
    ValueError
        If ``angle`` is not a field of :class:`GolferAngles`, ``direction`` is not +/-1,
        ``value`` or ``spread`` is not positive and finite, or ``kind`` is unknown.
    """

    angle: str
    direction: int
    value: float
    spread: float | None
    kind: str
    source: str
    reference: str
    note: str

    def __post_init__(self):
        for name in ("angle", "kind", "source", "reference", "note"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name}: expected a string, got {getattr(self, name)!r}")
        if self.angle not in GolferAngles.__dataclass_fields__:
            fields = tuple(GolferAngles.__dataclass_fields__)
            raise ValueError(f"angle: expected one of {fields}, got {self.angle!r}")
        if isinstance(self.direction, bool) or not isinstance(self.direction, (int, np.integer)):
            raise TypeError(f"direction: expected 1 or -1 (int), got {self.direction!r}")
        if self.direction not in (1, -1):
            raise ValueError(f"direction: expected 1 or -1, got {self.direction}")
        for name in ("value", "spread"):
            number = getattr(self, name)
            if number is None and name == "spread":
                continue
            if isinstance(number, bool) or not isinstance(number, (float, int)):
                raise TypeError(f"{name}: expected a real number (rad), got {number!r}")
            if not (np.isfinite(number) and number > 0):
                raise ValueError(f"{name}: expected a positive finite angle (rad), got {number!r}")
        if self.kind not in LIMIT_KINDS:
            raise ValueError(f"kind: expected one of {LIMIT_KINDS}, got {self.kind!r}")


_AAOS_TABLE = (
    "Norkin & White (2016), Measurement of Joint Motion: A Guide to Goniometry, 5th ed., "
    "F. A. Davis (bibliography key NorkinWhite2016), Appendix A, Table A.1, 'Shoulder, "
    "Elbow, Forearm, and Wrist Motion: Mean Values in Degrees', universal goniometer; "
    "read in the F. A. Davis PT collection (fadavispt.mhmedical.com), whose goniometry "
    "text this is: its table compiles the same six studies, Macedo & Magee's among them"
)
_RADIAL = (
    "The American Academy of Orthopaedic Surgeons' (AAOS) mean, chosen from the table's "
    "six norms of 18-25 deg (Macedo & Magee 18, Walker et al. 19, AAOS 20, AMA at least "
    "20, Boone & Azen 22, Green & Wolf 25) as the one the others are usually compared "
    "with.  Not Ryu et al.'s 17 deg (R3: the range needed for daily living) and not the "
    "39-41 deg of R4 (one group of young women, far above every other norm)."
)
_ULNAR = (
    "The AAOS mean, chosen from the table's six norms of 26-41 deg (Walker et al. 26, "
    "AAOS 30, AMA at least 30, Boone & Azen 36, Green & Wolf 39, Macedo & Magee 41); "
    "Ryu et al.'s functional 40 deg (R3) is not a limit."
)
_TRUNK_REFERENCE = (
    "'Normative values of trunk mobility in normal adults', Int J Health Sci "
    "(sciencescholar.us, article 9696): 137 adults, goniometry, right 41.93 +/- 3.35 deg "
    "and left 41.65 +/- 3.39 deg; abstract read"
)
_TRUNK = (
    "The standing norm, unscaled.  Montgomery, Boocock & Hing (2011, Clin Biomech 26, "
    "707-712; R7) found maximal trunk rotation 19 % (6.2 deg) larger with the trunk "
    "inclined 45 deg forward, as a golfer's is, and larger still with the pelvis fixed; "
    "their standing value (about 6.2 / 0.19 = 33 deg, optoelectronic) is not R6's "
    "goniometric 42 deg, so their ratio is not carried over to R6: an excess of up to a "
    "fifth of this norm (about 8 deg) is within what R7 reports for a golfer's posture.  "
    "Golfers' X-factor at the top of the backswing, 52.8 +/- 5.6 deg (K11, a differently "
    "defined angle), is beyond this norm too."
)

#: The golfer's sourced range-of-motion numbers, a read-only mapping from the motion's name
#: to its :class:`JointLimit` (angles in rad; the degrees are those of the addendum's rows):
#: wrist radial (20 degrees, R1) and ulnar (30, R2) deviation of either wrist and trunk
#: rotation towards the trail (41.93, R6) and the target (41.65, R6), measured norms; the
#: lead shoulder's horizontal adduction at the top of the backswing (125 +/- 6, R5), an
#: in-swing value.  Each entry's ``note`` says why that number.
GOLFER_JOINT_LIMITS = MappingProxyType(
    {
        **{
            f"{role} wrist radial deviation": JointLimit(
                f"{role}_wrist_deviation",
                1,
                float(np.radians(20.0)),
                None,
                "measured norm",
                "R1",
                _AAOS_TABLE,
                _RADIAL,
            )
            for role in ("lead", "trail")
        },
        **{
            f"{role} wrist ulnar deviation": JointLimit(
                f"{role}_wrist_deviation",
                -1,
                float(np.radians(30.0)),
                None,
                "measured norm",
                "R2",
                _AAOS_TABLE,
                _ULNAR,
            )
            for role in ("lead", "trail")
        },
        "trunk rotation towards the trail": JointLimit(
            "trunk_rotation",
            -1,
            float(np.radians(41.93)),
            float(np.radians(3.35)),
            "measured norm",
            "R6",
            _TRUNK_REFERENCE,
            "Rotation to the right, the trail side of a right-handed golfer.  " + _TRUNK,
        ),
        "trunk rotation towards the target": JointLimit(
            "trunk_rotation",
            1,
            float(np.radians(41.65)),
            float(np.radians(3.39)),
            "measured norm",
            "R6",
            _TRUNK_REFERENCE,
            "Rotation to the left, the target side of a right-handed golfer.  " + _TRUNK,
        ),
        "lead shoulder horizontal adduction": JointLimit(
            "lead_shoulder_horizontal_adduction",
            1,
            float(np.radians(125.0)),
            float(np.radians(6.0)),
            "in-swing value",
            "R5",
            "Zheng, Barrentine, Fleisig & Andrews (2008), Int J Sports Med 29(6), 487-493 "
            "(Zheng2008a; row K4): 18 male professionals, at the top of the backswing; "
            "abstract read",
            "Reached in the swing, not a limit (no clinical norm of horizontal adduction "
            "could be read).  The paper's definition of the angle was not read: compare "
            "with this module's definition only as an order of magnitude.",
        ),
    }
)


def _checked_golfer(golfer):
    if not isinstance(golfer, Golfer):
        raise TypeError(f"golfer: expected a models.Golfer, got {type(golfer).__name__}")
    return golfer


def _trunk_cardan(R):
    r"""(alpha, beta, gamma) of :math:`R = R_y(\alpha)R_x(\beta)R_z(\gamma)`, rad: alpha and
    beta from R's third column, gamma from :math:`R_z(\gamma) = R_x(\beta)^T R_y(\alpha)^T R`
    (see :func:`golfer_angles`)."""
    alpha = np.arctan2(R[..., 0, 2], R[..., 2, 2])
    beta = np.arctan2(-R[..., 1, 2], np.hypot(R[..., 0, 2], R[..., 2, 2]))
    rest = np.swapaxes(spatial.rot_y(alpha) @ spatial.rot_x(beta), -1, -2) @ R
    gamma = np.arctan2(rest[..., 1, 0], rest[..., 0, 0])
    return alpha, beta, gamma


def golfer_angles(golfer, q):
    r"""The anatomical angles of the golfer's range-of-motion data at configurations ``q``.

    All from the bodies' orientations (:func:`geomotion.tree.forward_kinematics`), in rad.

    **Trunk (thorax relative to pelvis).**  With :math:`R = R_{0,p}^T R_{0,t}` the
    thorax's orientation in the pelvis's axes (x anterior, y to the left, z up), the
    Cardan angles

    .. math:: R = R_y(\alpha)\,R_x(\beta)\,R_z(\gamma),\qquad
              \alpha\in(-\pi, \pi],\ \beta\in[-\tfrac{\pi}{2}, \tfrac{\pi}{2}],\
              \gamma\in(-\pi, \pi],

    are the trunk's *flexion* :math:`\alpha` (about the pelvis's lateral axis, positive
    forward), *lateral bending* :math:`\beta` (about the floating anterior axis, positive
    towards the right, the trail side) and *axial rotation* :math:`\gamma` (about the
    thorax's own long axis, positive towards the left, the target side).  This is the
    order of Grood and Suntay's joint coordinate system, on which the International
    Society of Biomechanics (ISB) builds its recommended joint angles: flexion about an
    axis fixed in the proximal body, axial rotation about an axis fixed in the distal
    one.  The alternative that turns first, about the pelvis's long axis, gives other
    numbers once the trunk is flexed; at the upright posture of the clinical norms the
    two agree.  At :math:`\beta = \pm\pi/2` (a right angle of side bend, beyond any
    spine) the split between :math:`\alpha` and :math:`\gamma` is not unique; one valid
    split is returned (:math:`\alpha` from the third column of :math:`R`, :math:`\gamma`
    from what is left, so that the three reproduce :math:`R`).

    **Wrists.**  Radial-ulnar deviation is the deviation hinge's own angle (positive
    radial, towards the thumb): the rotation of the hand, after wrist flexion, about the
    axis through the wrist joint centre normal to the palm.

    **Lead shoulder.**  With :math:`d` the lead upper arm's direction (shoulder to elbow)
    in the thorax's axes, its *elevation* is its angle from hanging along the trunk,
    :math:`\arccos(-d_z)`, and its *horizontal adduction* the direction of its
    projection onto the thorax's transverse plane, from lateral (+y, the lead side)
    towards anterior, :math:`\operatorname{atan2}(d_x, d_y)`: 0 for the arm abducted
    sideways, 90 degrees for the arm raised straight forward, more for an arm across the
    chest.  It is the first angle (plane of elevation) of the y-x-y sequence that the
    ISB recommends for the humerus relative to the thorax.  At zero elevation every
    vertical plane holds the arm, and the angle returned is whichever the rounding gives.

    Parameters
    ----------
    golfer : Golfer
        From :func:`geomotion.models.golfer`.
    q : (..., nq) array_like
        Configurations of ``golfer.model`` (m, unit quaternions, rad).

    Returns
    -------
    GolferAngles
        Arrays of the batch shape of ``q``, rad.

    Raises
    ------
    TypeError
        If ``golfer`` is not a Golfer, or ``q`` is not an array of real numbers.
    ValueError
        If ``q`` is not finite, its last axis is not ``nq`` long, or a quaternion in it
        is not of unit length.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> g = models.golfer()
    >>> angles = models.golfer_angles(g, tree.neutral(g.model))
    >>> float(angles.trunk_rotation), float(angles.lead_shoulder_elevation)
    (0.0, 0.0)
    """
    model, bodies = _checked_golfer(golfer).model, golfer.bodies
    T = tree.forward_kinematics(model, q)
    R = T[..., :3, :3]

    def relative(parent, child):
        return np.swapaxes(R[..., bodies[parent], :, :], -1, -2) @ R[..., bodies[child], :, :]

    alpha, beta, gamma = _trunk_cardan(relative("pelvis", "thorax"))
    arm = relative("thorax", "lead upper arm")[..., :, 2] * -1.0  # shoulder to elbow
    q = np.asarray(q, dtype=float)

    def deviation(hand):
        return q[..., model.q_start[bodies[hand]]]

    return GolferAngles(
        trunk_flexion=alpha,
        trunk_lateral_bending=beta,
        trunk_rotation=gamma,
        lead_wrist_deviation=deviation("lead hand and club"),
        trail_wrist_deviation=deviation("trail hand"),
        lead_shoulder_elevation=np.arccos(np.clip(-arm[..., 2], -1.0, 1.0)),
        lead_shoulder_horizontal_adduction=np.arctan2(arm[..., 0], arm[..., 1]),
    )


@dataclass(frozen=True, eq=False)
class LimitCheck:
    r"""The golfer's configurations against the measured norms (:func:`check_golfer_limits`).

    Attributes
    ----------
    angles : GolferAngles
        The angles checked.
    excess : mapping of str to ndarray
        For every ``"measured norm"`` of ``GOLFER_JOINT_LIMITS``, by its name: how far
        beyond the norm each configuration is, :math:`\max(0, d\,\theta - \theta_{lim})`
        (rad, batch shape; 0 within the norm).  Read-only.
    exceeded : ndarray of bool
        Batch shape: some norm is exceeded.
    """

    angles: GolferAngles
    excess: MappingProxyType
    exceeded: np.ndarray

    def messages(self):
        """One line per configuration and exceeded norm, configurations in C order.

        Returns
        -------
        list of str
            E.g. ``"q[3]: trunk rotation towards the trail 50.0 deg, beyond the
            measured norm 41.9 deg (R6) by 8.1 deg"``; empty if no norm is exceeded.
        """
        lines = []
        for index in np.argwhere(self.exceeded):
            where = "q" + (f"[{', '.join(str(int(i)) for i in index)}]" if index.size else "")
            for name, excess in self.excess.items():
                amount = excess[tuple(index)]
                if amount > 0:
                    limit = GOLFER_JOINT_LIMITS[name]
                    angle = limit.direction * getattr(self.angles, limit.angle)[tuple(index)]
                    lines.append(
                        f"{where}: {name} {np.degrees(angle):.1f} deg, beyond the "
                        f"{limit.kind} {np.degrees(limit.value):.1f} deg ({limit.source}) by "
                        f"{np.degrees(amount):.1f} deg"
                    )
        return lines


def check_golfer_limits(golfer, q):
    r"""Which measured norms of ``GOLFER_JOINT_LIMITS`` each configuration exceeds, and by how much.

    For each ``"measured norm"`` limit with angle :math:`\theta` (:func:`golfer_angles`),
    direction :math:`d` and value :math:`\theta_{lim}`, the excess is
    :math:`\max(0,\ d\,\theta - \theta_{lim})`.  Nothing is clipped or dropped: every
    configuration is reported, and :meth:`LimitCheck.messages` spells out each excess.
    In-swing values are comparison targets, not limits, and are not checked.

    Parameters
    ----------
    golfer : Golfer
        From :func:`geomotion.models.golfer`.
    q : (..., nq) array_like
        Configurations of ``golfer.model``.

    Returns
    -------
    LimitCheck

    Raises
    ------
    TypeError
        If ``golfer`` is not a Golfer, or ``q`` is not an array of real numbers.
    ValueError
        If ``q`` is not finite, its last axis is not ``nq`` long, or a quaternion in it
        is not of unit length.
    """
    angles = golfer_angles(golfer, q)
    excess = {
        name: frozen(np.maximum(0.0, limit.direction * getattr(angles, limit.angle) - limit.value))
        for name, limit in GOLFER_JOINT_LIMITS.items()
        if limit.kind == "measured norm"
    }
    exceeded = np.array(np.any(np.stack(list(excess.values())) > 0, axis=0))
    exceeded.flags.writeable = False
    return LimitCheck(angles, MappingProxyType(excess), exceeded)
