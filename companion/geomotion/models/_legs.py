r"""Chapter 2's counting model: a floating pelvis on two legs whose feet can be planted.

Built from the same segments, lengths and helpers as the 3-D golfer (``models/_shared.py``;
the notes of ``models/_golfer3d.py`` give the axes, joint signs and de Leva (1996) data);
its mobility is the rank count of the feet's weld closures.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, spatial, tree
from ._shared import (
    GOLFER_LENGTHS,
    MASSLESS,
    Y_AXIS,
    BodyFrame,
    Chain,
    add_ankle_and_foot,
    add_shank,
    check_posture,
    frozen,
    hanging_segment,
    limb_columns,
    mobility,
    pelvis_inertia,
    pose_error,
    quaternion,
    revolute,
    scaled_lengths,
    set_joint,
    solve_posture,
    translation,
    weld_to_ground,
)

__all__ = ["LegsAndPelvis", "legs_and_pelvis"]


@dataclass(frozen=True, eq=False)
class LegsAndPelvis:
    r"""Chapter 2's counting model: a floating pelvis on two legs, feet to be planted.

    Build with :func:`legs_and_pelvis`, which documents the joints.

    Attributes
    ----------
    model : geomotion.tree.Tree
        The pelvis (body 0, free flyer) and the legs, left leg first.
    bodies : dict of str to int
        Body indices by name (``"pelvis"``, ``"left thigh"``, ..., ``"right foot"``;
        massless intermediate bodies are named after their joint, e.g. ``"left ankle"``).
    soles : dict of str to BodyFrame
        ``"left"`` and ``"right"``: a frame on each foot's sole, under the ankle joint
        centre, axes those of the foot (x towards the toes, z up out of the sole).
    q0 : (nq,) ndarray
        A stance: pelvis level with its origin 0.93 m (scaled with the height) above the
        ground, each sole level on the ground (z = 0) under its hip joint centre, knees
        flexed.
    leg_joints : int
        7 or 5, see :func:`legs_and_pelvis`.
    """

    model: tree.Tree
    bodies: dict
    soles: dict
    q0: np.ndarray
    leg_joints: int

    def __post_init__(self):
        object.__setattr__(self, "q0", frozen(self.q0))

    def foot_welds(self, q, *, feet=("left", "right")):
        """Weld closures of the given feet to the ground, at the soles' poses at ``q``.

        Parameters
        ----------
        q : (nq,) array_like
            The configuration that fixes where each sole is planted.
        feet : sequence of {"left", "right"}, optional, keyword only
            Which feet are planted; default both.

        Returns
        -------
        list of constraints.FrameClosure
            One weld (six components) per foot, ``body_b = -1`` (the ground).

        Raises
        ------
        ValueError
            If ``q`` is not a configuration of the model or a foot name is unknown.
        """
        q = check_posture(self.model, q)
        names = [_foot_name(f) for f in feet]
        return [weld_to_ground(self.model, self.soles[name], q) for name in names]

    def mobility(self, q, *, feet=("left", "right")):
        r"""Local mobility :math:`n_v - \operatorname{rank}J` with the given feet planted at ``q``.

        Parameters
        ----------
        q : (nq,) array_like
        feet : sequence of {"left", "right"}, optional, keyword only
            Planted feet; default both.  No feet: the count is ``nv``.

        Returns
        -------
        int
            Degrees of freedom left, from :func:`geomotion.constraints.constraint_rank`
            of the stacked weld Jacobians.
        """
        closures = self.foot_welds(q, feet=feet)
        if not closures:
            return self.model.nv
        return mobility(self.model, closures, check_posture(self.model, q))


def _foot_name(value):
    if value not in ("left", "right"):
        raise ValueError(f"feet: expected 'left' or 'right' for each foot, got {value!r}")
    return value


def legs_and_pelvis(*, leg_joints=7, body_mass=80.0, height=1.80):
    r"""Chapter 2's floating pelvis with two legs: the model behind its 20 -> 14 -> 8 count.

    Equation of the book: :eq:`eq-ch2-tangent-constraint`.

    The pelvis is a free body (free-flyer joint, 6 velocity coordinates).  With
    ``leg_joints=7`` (the chapter's seven joints per leg) each leg has

    * a ball hip (3), at the hip joint centre;
    * a knee of two revolutes (2): flexion about the thigh's medio-lateral axis, then the
      shank's axial (tibial) rotation about its long axis, through a massless body;
    * a two-axis ankle (2): dorsiflexion about the medio-lateral axis, then subtalar
      inversion about the foot's long axis, through a massless body;

    so :math:`n_v = 6 + 2 \times 7 = 20`.  The chapter does not name the seven joints; the
    knee's axial rotation is our choice for the seventh (OpenSim's gait models reach seven
    with a toe joint instead, which a rigid planted foot would leave free).

    With ``leg_joints=5`` the legs cannot twist: a hip of two revolutes (flexion, then
    abduction, through a massless body), a knee flexion and the two-axis ankle, so
    :math:`n_v = 16`; in the stance ``q0`` every leg axis is horizontal and two planted
    feet are redundant (the rank of their 12 weld rows is 11, not 12: no leg can turn
    the pelvis about the vertical).  The redundancy belongs to that stance: where the
    leg axes tilt out of the horizontal, as at random configurations, the rank is 12.

    Segments: the pelvis is de Leva's lower trunk, the legs his thigh, shank and foot
    (``geomotion.models.body_segments``), with the lengths of ``GOLFER_LENGTHS``
    scaled to ``height``; the rest of the body is left out (the count does not depend
    on the masses), so the model weighs 50.9 % of ``body_mass``.

    Parameters
    ----------
    leg_joints : {7, 5}, optional, keyword only
        Joints per leg; default 7.
    body_mass : float, optional, keyword only
        Whole-body mass, kg; default 80.
    height : float, optional, keyword only
        Stature, m; default 1.80 (lengths scale in proportion).

    Returns
    -------
    LegsAndPelvis

    Raises
    ------
    ValueError
        If ``leg_joints`` is not 7 or 5, or ``body_mass``/``height`` is not positive.

    Examples
    --------
    >>> from geomotion import models
    >>> legs = models.legs_and_pelvis()
    >>> legs.model.nv, legs.model.nq
    (20, 23)
    """
    if leg_joints not in (7, 5) or isinstance(leg_joints, bool):
        raise ValueError(f"leg_joints: expected 7 or 5 joints per leg, got {leg_joints!r}")
    body_mass = float(_validate.positive(body_mass, "body_mass"))
    height = float(_validate.positive(height, "height"))
    L = scaled_lengths(height)
    chain = Chain()
    add = chain.add
    add("pelvis", -1, tree.FREE_FLYER, np.eye(4), pelvis_inertia(body_mass, L))
    for side, sign in (("left", 1.0), ("right", -1.0)):
        hip = translation([0.0, sign * L["hip_width"] / 2, 0.0])
        thigh = hanging_segment("thigh", body_mass, L["thigh"])
        if leg_joints == 7:
            b = add(f"{side} thigh", 0, tree.SPHERICAL, hip, thigh)
            b = add(f"{side} knee", b, revolute(Y_AXIS), translation([0, 0, -L["thigh"]]), MASSLESS)
            b = add(
                f"{side} shank",
                b,
                tree.REVOLUTE_Z,
                np.eye(4),
                hanging_segment("shank", body_mass, L["shank"]),
            )
        else:
            b = add(f"{side} hip", 0, revolute(-Y_AXIS), hip, MASSLESS)
            b = add(f"{side} thigh", b, revolute([sign, 0, 0]), np.eye(4), thigh)
            b = add_shank(add, side, b, body_mass, L)
        add_ankle_and_foot(add, side, b, sign, body_mass, L)
    model, bodies = chain.tree(), chain.bodies()
    sole = translation([0.0, 0.0, -L["ankle_height"]])
    soles = {side: BodyFrame(bodies[f"{side} foot"], sole) for side in ("left", "right")}
    q0 = _legs_stance(model, bodies, soles, L, leg_joints)
    return LegsAndPelvis(model, bodies, soles, q0, leg_joints)


def _legs_stance(model, bodies, soles, L, leg_joints):
    """Pelvis level at 0.93 m (x 1.80 m stature), soles level under the hips, knees flexed."""
    scale = L["thigh"] / GOLFER_LENGTHS["thigh"]
    q = tree.neutral(model)
    q = set_joint(model, q, 0, [0.0, 0.0, 0.93 * scale, 1.0, 0.0, 0.0, 0.0])
    for side, sign in (("left", 1.0), ("right", -1.0)):
        # A flexed initial guess: hip 0.3 rad, knee 0.6 rad, ankle 0.3 rad.
        thigh, shank = bodies[f"{side} thigh"], bodies[f"{side} shank"]
        ankle = bodies[f"{side} ankle"]
        if leg_joints == 7:
            q = set_joint(model, q, thigh, quaternion(spatial.rot_y(-0.3)))
            q = set_joint(model, q, bodies[f"{side} knee"], [0.6])
        else:
            q = set_joint(model, q, bodies[f"{side} hip"], [0.3])
            q = set_joint(model, q, shank, [0.6])
        q = set_joint(model, q, ankle, [0.3])
        target = translation([0.0, sign * L["hip_width"] / 2, 0.0])
        error = pose_error(target)
        frame = soles[side]
        first = bodies[f"{side} hip"] if leg_joints == 5 else thigh
        columns = limb_columns(model, range(first, bodies[f"{side} foot"] + 1))
        q = solve_posture(
            model,
            q,
            columns,
            lambda q, f=frame, e=error: e(f.world_pose(model, q)),
            "legs_and_pelvis",
        )
    return q
