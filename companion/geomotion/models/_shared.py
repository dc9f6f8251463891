r"""What the models of :mod:`geomotion.models` share: one internal module, imported by name.

Every name in ``__all__`` is meant for the sibling modules of ``geomotion.models`` (the
models export to users only what ``models/__init__.py`` lists: ``PLANE_GRAVITY``,
``GOLFER_LENGTHS`` and ``BodyFrame`` from here).

* Small helpers: :func:`frozen` read-only arrays, :func:`wrap_angle`, the joint screw of
  :func:`revolute` and the pose of a :func:`translation`; ``PLANE_GRAVITY``.
* The stated golfer's body, shared by the 3-D golfer (``_golfer3d``), chapter 2's legs
  (``_legs``) and the swing-plane golfer (``swing``): the lengths ``GOLFER_LENGTHS`` of
  a 1.80 m man (``REFERENCE_HEIGHT``), frames fixed in bodies (:class:`BodyFrame`), de
  Leva's segments as spatial inertias, a tree built body by body (:class:`Chain`) with
  the legs' shank, ankle and foot, a Gauss-Newton posture solver and the closures of
  planted feet.
* The equipment rules' club-length limit (:func:`checked_club_length`), checked for both
  golfers' clubs.

Axes, joint signs and segment data are those of the 3-D golfer, documented in the notes
of ``models/_golfer3d.py``: world z up, x the direction the golfer faces, y to the
lead (left) side; at the neutral configuration every body's axes are parallel to the
world's (x anterior, y to the body's left, z up), each body's origin is its proximal
joint centre, limb segments hang along -z and the foot points along +x.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, constraints, inertia, spatial, tree
from ..errors import ConvergenceError
from .body_segments import DE_LEVA_MALE, segment_central_inertia
from .golf_data import INCH, MAX_CLUB_LENGTH

__all__ = [
    "PLANE_GRAVITY",
    "frozen",
    "wrap_angle",
    "revolute",
    "translation",
    "checked_club_length",
    "REFERENCE_HEIGHT",
    "GOLFER_LENGTHS",
    "scaled_lengths",
    "BodyFrame",
    "MASSLESS",
    "Y_AXIS",
    "UPRIGHT",
    "hanging_segment",
    "segment_between",
    "pelvis_inertia",
    "Chain",
    "add_shank",
    "add_ankle_and_foot",
    "quaternion",
    "set_joint",
    "limb_columns",
    "pose_error",
    "solve_posture",
    "check_posture",
    "weld_to_ground",
    "mobility",
]

#: Gravity of the planar models, which lie in the x-y plane, along -y, in m/s^2.
PLANE_GRAVITY = (0.0, -9.81, 0.0)


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def frozen(array):
    """A read-only float copy of ``array`` (the caller's array stays writable).

    Parameters
    ----------
    array : array_like
        Any values, in their own units.

    Returns
    -------
    ndarray
        A new float array with ``flags.writeable`` False.
    """
    array = np.array(array, dtype=float)
    array.flags.writeable = False
    return array


def wrap_angle(angle):
    r"""An angle wrapped into :math:`[-\pi, \pi)`, rad.

    Parameters
    ----------
    angle : float or ndarray
        rad.

    Returns
    -------
    float or ndarray
        :math:`((\alpha + \pi) \bmod 2\pi) - \pi`, rad.
    """
    return (angle + np.pi) % (2 * np.pi) - np.pi


def revolute(axis):
    """Joint screw of a revolute joint about ``axis`` through the body origin.

    Parameters
    ----------
    axis : (3,) array_like
        The joint axis in the body's coordinates (a unit vector, dimensionless).

    Returns
    -------
    (6,) ndarray
        Angular-first screw ``(axis, 0)``.
    """
    return np.concatenate([np.asarray(axis, dtype=float), np.zeros(3)])


def translation(p):
    """The pose of a pure translation.

    Parameters
    ----------
    p : (3,) array_like
        Translation, m.

    Returns
    -------
    (4, 4) ndarray
        Identity rotation, translation ``p``.
    """
    return spatial.pose(np.eye(3), p)


def checked_club_length(value, name):
    r"""A club length checked against the equipment rules' limit of 48 in.

    The rules allow a club (other than a putter) of at most 48 in, :math:`48 \times 0.0254
    = 1.2192` m (``MAX_CLUB_LENGTH``, USGARules): 48 in itself is legal, whether given as
    1.2192 or as ``48 * 0.0254`` (which rounds just below it), and anything longer is not.

    Parameters
    ----------
    value : float or array_like
        Butt to face centre along the shaft, m.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    ndarray
        ``value`` as a positive float array, m.

    Raises
    ------
    ValueError
        If a length is not positive and finite, or exceeds 48 in.
    """
    length = _validate.positive(value, name)
    too_long = length > MAX_CLUB_LENGTH
    if np.any(too_long):
        longest = length[too_long].max()
        raise ValueError(
            f"{name}: expected at most 48 in = {MAX_CLUB_LENGTH:.4f} m (the equipment rules' "
            f"limit, USGARules), got {longest} m ({longest / INCH:.2f} in)"
        )
    return length


# ---------------------------------------------------------------------------
# The stated body: lengths and frames
# ---------------------------------------------------------------------------

#: Stature that ``GOLFER_LENGTHS`` describes, m.
REFERENCE_HEIGHT = 1.80

#: Segment lengths and joint-centre offsets of the stated 1.80 m golfer, m (our modelling
#: choice, not a measurement; see :func:`geomotion.models.golfer`).  Keys with a de Leva
#: row are that row's endpoint distance; the others place joint centres.
GOLFER_LENGTHS = {
    "head": 0.21,  # VERT-MIDG
    "neck": 0.08,  # SUPR up to MIDG (placement of the head on the trunk)
    "upper_trunk": 0.18,  # SUPR-XYPH
    "middle_trunk": 0.22,  # XYPH-OMPH
    "lower_trunk": 0.15,  # OMPH-MIDH
    "upper_arm": 0.30,  # SJC-EJC
    "forearm": 0.27,  # EJC-WJC
    "hand": 0.09,  # WJC-MET3
    "thigh": 0.44,  # HJC-KJC
    "shank": 0.44,  # KJC-AJC
    "ankle_height": 0.08,  # AJC above the sole
    "foot": 0.27,  # HEEL-TTIP
    "heel_behind_ankle": 0.06,  # HEEL behind AJC, along the foot
    "foot_width": 0.10,  # the sole's width (its support rectangle)
    "hip_width": 0.18,  # between the hip joint centres
    "shoulder_width": 0.38,  # between the shoulder joint centres
    "shoulder_below_suprasternale": 0.04,
    "palm": 0.07,  # grip point on the hand: this far from WJC towards MET3 ...
    "palm_depth": 0.02,  # ... and this far in front of the palm
}


def scaled_lengths(height):
    """``GOLFER_LENGTHS`` scaled in proportion to a stature.

    Parameters
    ----------
    height : float
        Stature, m.

    Returns
    -------
    dict of str to float
        The lengths times ``height / REFERENCE_HEIGHT``, m.
    """
    scale = height / REFERENCE_HEIGHT
    return {key: value * scale for key, value in GOLFER_LENGTHS.items()}


@dataclass(frozen=True, eq=False)
class BodyFrame:
    """A frame fixed in a body: its pose in the body's coordinates.

    Attributes
    ----------
    body : int
        Index of the body in the model.
    pose : (4, 4) ndarray
        The frame's pose in the body's coordinates (translation in m), read-only.

    Raises
    ------
    TypeError
        If ``body`` is not an integer.
    ValueError
        If ``body`` is negative or ``pose`` is not one rigid (4, 4) pose.
    """

    body: int
    pose: np.ndarray

    def __post_init__(self):
        if isinstance(self.body, bool) or not isinstance(self.body, (int, np.integer)):
            raise TypeError(f"body: expected a body index (int), got {self.body!r}")
        if self.body < 0:
            raise ValueError(f"body: expected a body index >= 0, got {self.body}")
        pose = _validate.pose(self.pose, "pose")
        if pose.shape != (4, 4):
            raise ValueError(f"pose: expected one (4, 4) pose, got shape {pose.shape}")
        object.__setattr__(self, "pose", frozen(pose))

    def world_pose(self, model, q):
        """The frame's pose in the world at configuration ``q``.

        Parameters
        ----------
        model : geomotion.tree.Tree
        q : (..., nq) array_like

        Returns
        -------
        (..., 4, 4) ndarray
            :math:`T_{0,b}(q)\\,T_{b,f}`, translation in m.
        """
        return tree.forward_kinematics(model, q)[..., self.body, :, :] @ self.pose


# ---------------------------------------------------------------------------
# Segment inertias (de Leva's male fractions)
# ---------------------------------------------------------------------------

#: Spatial inertia of a massless body (between the hinges of a two-axis joint).
MASSLESS = np.zeros((6, 6))
#: The y axis, about which the knees, elbows, hip flexion and ankles turn.
Y_AXIS = np.array([0.0, 1.0, 0.0])
#: Body axes of the (sagittal, transverse, longitudinal) radii of an upright segment:
#: x, y, z.
UPRIGHT = (0, 1, 2)
# Of the foot: sagittal about z (vertical), transverse about y, longitudinal about x.
_FOOT_AXES = (2, 1, 0)


def hanging_segment(name, body_mass, length):
    """A limb segment along -z from its proximal joint (its body origin).

    Parameters
    ----------
    name : str
        Row of ``DE_LEVA_MALE`` (e.g. ``"thigh"``).
    body_mass : float
        Whole-body mass, kg.
    length : float
        The segment's length between its row's endpoints, m.

    Returns
    -------
    (6, 6) ndarray
        Spatial inertia about the body origin (kg, kg m, kg m^2), principal axes along the
        body's: sagittal x, transverse y, longitudinal z.
    """
    row = DE_LEVA_MALE[name]
    m, i_sag, i_trans, i_long = segment_central_inertia(row, body_mass=body_mass, length=length)
    return inertia.spatial_inertia(
        m, [0.0, 0.0, -row.com * length], np.diag([i_sag, i_trans, i_long])
    )


def segment_between(name, body_mass, origin_point, other_point, axes):
    """A segment whose row's origin and other endpoint sit at the given body points.

    Parameters
    ----------
    name : str
        Row of ``DE_LEVA_MALE``.
    body_mass : float
        Whole-body mass, kg.
    origin_point, other_point : (3,) array_like
        The row's origin and other endpoint in the body's coordinates, m; their distance
        is the segment's length.
    axes : tuple of int
        Indices (sagittal, transverse, longitudinal) of the body axes about which the
        three radii act, e.g. ``UPRIGHT``.

    Returns
    -------
    (6, 6) ndarray
        Spatial inertia about the body origin (kg, kg m, kg m^2).
    """
    row = DE_LEVA_MALE[name]
    origin_point, other_point = np.asarray(origin_point), np.asarray(other_point)
    length = float(np.linalg.norm(other_point - origin_point))
    m, *moments = segment_central_inertia(row, body_mass=body_mass, length=length)
    I_C = np.zeros((3, 3))
    for axis, moment in zip(axes, moments):
        I_C[axis, axis] = moment
    com = origin_point + row.com * (other_point - origin_point)
    return inertia.spatial_inertia(m, com, I_C)


def _foot(body_mass, L):
    """The foot, heel to toe tip on the sole, under its ankle joint centre (body origin)."""
    heel = np.array([-L["heel_behind_ankle"], 0.0, -L["ankle_height"]])
    toe = heel + np.array([L["foot"], 0.0, 0.0])
    return segment_between("foot", body_mass, heel, toe, _FOOT_AXES)


def pelvis_inertia(body_mass, L):
    """The pelvis: de Leva's lower trunk, OMPH (above) to MIDH (the body origin).

    Parameters
    ----------
    body_mass : float
        Whole-body mass, kg.
    L : dict of str to float
        Segment lengths (``scaled_lengths``), m.

    Returns
    -------
    (6, 6) ndarray
        Spatial inertia about mid-hip (kg, kg m, kg m^2).
    """
    return segment_between("lower_trunk", body_mass, [0, 0, L["lower_trunk"]], [0, 0, 0], UPRIGHT)


# ---------------------------------------------------------------------------
# A tree built body by body, and the legs' distal segments
# ---------------------------------------------------------------------------


class Chain:
    """The bodies of a tree as they are added: :meth:`add` returns the new body's index.

    Attributes
    ----------
    names, parents, joints, placements, inertias : list
        One entry per body added, in order.
    """

    def __init__(self):
        self.names, self.parents, self.joints, self.placements, self.inertias = [], [], [], [], []

    def add(self, name, parent, joint, placement, body_inertia):
        """Append a body; returns its index (int)."""
        for values, value in zip(
            (self.names, self.parents, self.joints, self.placements, self.inertias),
            (name, parent, joint, placement, body_inertia),
        ):
            values.append(value)
        return len(self.names) - 1

    def tree(self):
        """The Tree of the bodies added, under the default gravity (z up)."""
        return tree.Tree(
            parents=tuple(self.parents),
            joints=self.joints,
            placements=np.array(self.placements),
            inertias=np.array(self.inertias),
            gravity=tree.DEFAULT_GRAVITY,
        )

    def bodies(self):
        """Body index by name (dict of str to int)."""
        return {name: i for i, name in enumerate(self.names)}


def add_shank(add, side, knee, body_mass, L):
    """The shank on a knee hinge (about y) at the end of the thigh.

    Parameters
    ----------
    add : callable
        :meth:`Chain.add` of the chain being built.
    side : str
        Prefix of the body's name (``"lead"``, ``"left"``, ...).
    knee : int
        Index of the parent body (the thigh).
    body_mass : float
        Whole-body mass, kg.
    L : dict of str to float
        Segment lengths, m.

    Returns
    -------
    int
        The shank's index.
    """
    return add(
        f"{side} shank",
        knee,
        revolute(Y_AXIS),
        translation([0, 0, -L["thigh"]]),
        hanging_segment("shank", body_mass, L["shank"]),
    )


def add_ankle_and_foot(add, side, shank, sign, body_mass, L):
    """A two-axis ankle (a massless body between its hinges) and the foot under the shank.

    Dorsiflexion about -y, then subtalar inversion-eversion about the foot's long axis
    ``(sign, 0, 0)``: ``sign`` is +1 on the left (lead) side and -1 on the right (trail)
    side, so that a positive angle everts either foot, turning its sole away from the
    other foot (the two axes are mirror images across the sagittal plane).

    Parameters
    ----------
    add : callable
        :meth:`Chain.add` of the chain being built.
    side : str
        Prefix of the bodies' names.
    shank : int
        Index of the parent body (the shank).
    sign : {1.0, -1.0}
        +1 for the left (lead) side, -1 for the right (trail) side.
    body_mass : float
        Whole-body mass, kg.
    L : dict of str to float
        Segment lengths, m.

    Returns
    -------
    int
        The foot's index.
    """
    ankle = add(
        f"{side} ankle", shank, revolute(-Y_AXIS), translation([0, 0, -L["shank"]]), MASSLESS
    )
    return add(f"{side} foot", ankle, revolute([sign, 0, 0]), np.eye(4), _foot(body_mass, L))


# ---------------------------------------------------------------------------
# Posture solver (used to build the stated postures, not a public IK)
# ---------------------------------------------------------------------------

_POSTURE_ATOL = 1e-12
_POSTURE_MAX_ITER = 60
_POSTURE_STEP = 1e-7


def quaternion(R):
    """Unit quaternion (w, x, y, z) of a rotation matrix, with w >= 0.

    Parameters
    ----------
    R : (3, 3) array_like
        A rotation matrix.

    Returns
    -------
    (4,) ndarray
        Dimensionless.
    """
    rotvec = spatial.log_pose(spatial.pose(R, np.zeros(3)))[:3]
    angle = np.linalg.norm(rotvec)
    axis = rotvec / angle if angle > 0 else np.zeros(3)
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])


def set_joint(model, q, body, value):
    """A copy of ``q`` with the joint coordinates of ``body`` set to ``value``.

    Parameters
    ----------
    model : geomotion.tree.Tree
    q : (nq,) array_like
        Configuration (m, unit quaternions, rad).
    body : int
        Index of the body whose joint is set.
    value : array_like
        Its ``joint_nq[body]`` coordinates.

    Returns
    -------
    (nq,) ndarray
    """
    q = np.array(q, dtype=float)
    q[model.q_start[body] : model.q_start[body] + model.joint_nq[body]] = value
    return q


def limb_columns(model, bodies):
    """Velocity coordinates of the joints of ``bodies``, in order.

    Parameters
    ----------
    model : geomotion.tree.Tree
    bodies : iterable of int

    Returns
    -------
    ndarray of int
    """
    return np.concatenate(
        [np.arange(model.v_start[b], model.v_start[b] + model.joint_nv[b]) for b in bodies]
    )


def pose_error(T_target):
    """The error of a pose from a target, as a function of the pose.

    Parameters
    ----------
    T_target : (4, 4) array_like
        Target pose, m.

    Returns
    -------
    callable
        ``T -> log(T_target^-1 T)``, (..., 6): rad, then m.
    """
    T_inv = spatial.inverse_pose(T_target)
    return lambda T: spatial.log_pose(T_inv @ T)


def solve_posture(model, q, columns, residual, what, weights=None):
    """Gauss-Newton on ``residual(q) = 0`` over the velocity coordinates ``columns``.

    Minimum-norm steps (``lstsq``, in the coordinates scaled by ``weights``: a small
    weight makes a coordinate expensive to move) from the given ``q``, central-difference
    Jacobian along :func:`geomotion.tree.integrate`, steps capped at 0.5 (rad or m).
    ``residual`` takes a stack of configurations (..., nq): the two displaced
    configurations of every column are evaluated in one call.

    Parameters
    ----------
    model : geomotion.tree.Tree
    q : (nq,) ndarray
        Initial guess (m, unit quaternions, rad).
    columns : array_like of int
        The velocity coordinates that may move.
    residual : callable
        ``(..., nq) -> (..., k)``, in its own units.
    what : str
        Names the posture in the error message.
    weights : array_like or None, optional
        Per column, dimensionless; default None (all 1).

    Returns
    -------
    (nq,) ndarray
        The configuration where the largest residual component is at most 1e-12.

    Raises
    ------
    geomotion.errors.ConvergenceError
        If 60 steps do not get there.
    """
    columns = np.asarray(columns)
    weights = np.ones(columns.size) if weights is None else np.asarray(weights)
    displacements = np.zeros((2, columns.size, model.nv))  # +step, then -step, per column
    displacements[0, np.arange(columns.size), columns] = _POSTURE_STEP
    displacements[1] = -displacements[0]
    norm = np.inf
    for _ in range(_POSTURE_MAX_ITER):
        r = residual(q)
        norm = float(np.abs(r).max())
        if norm <= _POSTURE_ATOL:
            return q
        plus, minus = residual(tree.integrate(model, q, displacements, 1.0))
        J = (plus - minus).T / (2 * _POSTURE_STEP)
        step = weights * np.linalg.lstsq(J * weights, -r, rcond=None)[0]
        step *= min(1.0, 0.5 / max(float(np.abs(step).max()), np.finfo(float).tiny))
        dv = np.zeros(model.nv)
        dv[columns] = step
        q = tree.integrate(model, q, dv, 1.0)
    raise ConvergenceError(
        f"{what}: the stated posture was not reached (residual {norm:.3g} after "
        f"{_POSTURE_MAX_ITER} Gauss-Newton steps)",
        residual=norm,
        tolerance=_POSTURE_ATOL,
        iterations=_POSTURE_MAX_ITER,
        suggestion="keep the body proportions and club length near the stated golfer's",
    )


# ---------------------------------------------------------------------------
# Planted feet and the rank count
# ---------------------------------------------------------------------------


def check_posture(model, q):
    """A single configuration of shape (nq,); quaternions are checked (not normalized)
    where the tree uses it.

    Parameters
    ----------
    model : geomotion.tree.Tree
    q : (nq,) array_like

    Returns
    -------
    (nq,) ndarray

    Raises
    ------
    ValueError
        If ``q`` is not one finite configuration of ``model``.
    """
    q = _validate.trailing_shape(q, "q", (model.nq,))
    if q.ndim != 1:
        raise ValueError(f"q: expected one configuration of shape ({model.nq},), got {q.shape}")
    return q


def weld_to_ground(model, frame, q):
    """Weld ``frame`` to the ground at its current world pose.

    Parameters
    ----------
    model : geomotion.tree.Tree
    frame : BodyFrame
    q : (nq,) ndarray
        The configuration that fixes where the frame is welded.

    Returns
    -------
    geomotion.constraints.FrameClosure
        All six components, ``body_b = -1`` (the ground).
    """
    return constraints.frame_closure(model, frame.body, frame.pose, -1, frame.world_pose(model, q))


def mobility(model, closures, q):
    r"""Local mobility :math:`n_v - \operatorname{rank}J` of the stacked closures at ``q``.

    Parameters
    ----------
    model : geomotion.tree.Tree
    closures : sequence of constraints
        Each with ``jacobian(q)``.
    q : (nq,) ndarray

    Returns
    -------
    int
        From :func:`geomotion.constraints.constraint_rank`.
    """
    J = np.concatenate([c.jacobian(q) for c in closures], axis=-2)
    return model.nv - constraints.constraint_rank(J)
