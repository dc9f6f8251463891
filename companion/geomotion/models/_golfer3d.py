r"""A 3-D golfer holding a driver, both feet planted (:func:`geomotion.models.golfer`).

The golfer stands on a floating pelvis (a free-flyer joint), as chapter 2's legs do
(``models/_legs.py``; the body-building pieces the two share are in ``models/_shared.py``),
and plants its feet with weld closures (:func:`geomotion.constraints.frame_closure`, all six components) to the
ground at the soles' current poses; it also holds one club with two hands.  How
many degrees of freedom are left is *computed* from the rank of the stacked closure
Jacobian (:func:`geomotion.constraints.constraint_rank`), not counted by hand.

Axes and names
--------------
World: z up, x the direction the golfer faces (towards the ball), y towards the target
(a right-handed golfer: the *lead* side is the left, +y; the *trail* side the right).
At the neutral configuration (every joint at zero, pelvis at the world origin) the body
stands upright in the anatomical position (palms forward), and every body's axes are
parallel to the world's: x anterior, y to the body's left, z up.  Each body's origin is
its proximal joint centre (the pelvis's is the mid-hip point MIDH, between the hip joint
centres); limb segments hang along their body's -z axis and the foot points along +x.

Segment data
------------
Masses, centres of mass and principal central moments come from de Leva's (1996) male
fractions (``geomotion.models.body_segments.DE_LEVA_MALE``, every row with its
source) applied to a stated body mass and to the segment lengths of ``GOLFER_LENGTHS``.
Those lengths are our modelling choice for a 1.80 m man (de Leva's fractions need a
length; his table's own mean lengths were not transcribed): they add up to the stature
(ankle height + shank + thigh + lower, middle and upper trunk + neck + head = 1.80 m),
and scale in proportion to ``height``.  Each centre of mass lies on the line between the
segment's two endpoints, where de Leva's table puts it (for the foot that line runs from
heel to toe tip on the sole, so the foot's centre of mass sits at sole level, a
simplification).  Joint signs: knee ``q > 0`` flexes (about +y), elbow, hip-flexion and
ankle ``q > 0`` flex or dorsiflex (about -y), subtalar ``q > 0`` everts (turns the sole
away from the other foot), forearm rotation ``q > 0`` pronates (about the forearm's long
axis, -z on the lead (left) side and +z on the trail side) and wrist deviation ``q > 0``
deviates radially (about the foot's or hand's axis, mirrored between sides).  Every
joint's zero is the anatomical position, so forearm rotation is measured from full
supination (palm forward): the clinical zero of the forearm (thumb forward with the arm
hanging) is ``q = pi/2``.

Range-of-motion norms and in-swing values for some of these joints, and the anatomical
angles they refer to, are in ``models/_golfer_limits.py``
(:data:`geomotion.models.GOLFER_JOINT_LIMITS`).
"""

from dataclasses import dataclass, field

import numpy as np

from .. import _validate, constraints, inertia, spatial, tree
from ._shared import (
    GOLFER_LENGTHS,
    MASSLESS,
    UPRIGHT,
    Y_AXIS,
    BodyFrame,
    Chain,
    add_ankle_and_foot,
    add_shank,
    check_posture,
    checked_club_length,
    frozen,
    hanging_segment,
    limb_columns,
    mobility,
    pelvis_inertia,
    pose_error,
    quaternion,
    revolute,
    scaled_lengths,
    segment_between,
    set_joint,
    solve_posture,
    translation,
    weld_to_ground,
)
from .golf_data import CLUB_DEFAULTS, CLUB_HEAD, club_spatial_inertia

__all__ = ["Golfer", "golfer"]

#: Elbow flexion of the address posture, lead and trail, rad (our choice).
_ADDRESS_ELBOWS = np.radians([5.0, 20.0])
#: Distance from the lead shoulder to the lead grip point that places the ball, m (x 1.80 m
#: stature; our choice).
_LEAD_REACH = 0.55
#: Relative cost of moving the thorax in the posture solve (the arms' cost is 1).
_THORAX_WEIGHT = 0.02
#: Initial guess of the thorax: forward flexion and side bend towards the trail, degrees.
_THORAX_START = (25.0, 10.0)


@dataclass(frozen=True, eq=False)
class Golfer:
    r"""A 3-D golfer holding a driver, both feet planted: build with :func:`golfer`.

    Attributes
    ----------
    model : geomotion.tree.Tree
        20 bodies (see :func:`golfer`), :math:`n_q = 41`, :math:`n_v = 35`.
    bodies : dict of str to int
        Body indices by name.
    frames : dict of str to BodyFrame
        ``"lead sole"``, ``"trail sole"`` (on the feet, under the ankle joint centres,
        z out of the sole); ``"trail grip on hand"`` (on the trail hand) and ``"trail
        grip on club"`` (on the lead hand and club body), which coincide at ``q0``;
        ``"lead grip"`` (the lead hand's grip point on the club); ``"club butt"`` (the
        club frame: origin at the butt, z along the shaft from head to butt, x the face
        normal) and ``"clubhead"`` (the face centre, axes of the club frame).
    q0 : (41,) ndarray
        The address posture (see :func:`golfer`).
    trail_grip : str
        ``"point"`` or ``"weld"``.
    parameters : dict
        The stated golfer and club: ``body_mass``, ``height``, ``lengths`` (m), ``club``
        (club values) and ``club_mass`` (kg).
    """

    model: tree.Tree
    bodies: dict
    frames: dict
    q0: np.ndarray
    trail_grip: str
    parameters: dict = field(repr=False)

    def __post_init__(self):
        object.__setattr__(self, "q0", frozen(self.q0))

    def sole_outline(self):
        """The support polygon of each sole in its own frame: the rectangle from heel to toe
        tip, ``foot_width`` wide (``GOLFER_LENGTHS``, scaled), counter-clockwise, m.

        Returns
        -------
        (4, 2) ndarray
            Sole x (along the foot, from the ankle's foot-print), y; for
            :func:`geomotion.contact.foot_contacts` and
            :func:`geomotion.contact.load_share_range`.
        """
        L = self.parameters["lengths"]
        heel, toe = -L["heel_behind_ankle"], L["foot"] - L["heel_behind_ankle"]
        w = 0.5 * L["foot_width"]
        return np.array([[heel, -w], [toe, -w], [toe, w], [heel, w]])

    def sole_poses(self):
        """World poses of the two soles where they are planted (at ``q0``): (2, 4, 4), m,
        lead foot first."""
        return np.stack(
            [self.frames[f"{s} sole"].world_pose(self.model, self.q0) for s in ("lead", "trail")]
        )

    def sole_corners(self):
        r"""The corners of each planted sole's outline in the world, m: :meth:`sole_outline`
        at height 0 in each sole's frame, mapped by :meth:`sole_poses`,
        :math:`p_0 = R_{0,k}\,(x, y, 0) + o_{0,k}`.

        Returns
        -------
        (2, 4, 3) ndarray
            Lead sole first; corners in :meth:`sole_outline`'s order (heel, toe, toe, heel).
        """
        corners = np.c_[self.sole_outline(), np.zeros(4)]
        poses = self.sole_poses()
        return np.einsum("kij,vj->kvi", poses[:, :3, :3], corners) + poses[:, None, :3, 3]

    def grip_components(self):
        """Components of the trail grip closure: (3, 4, 5) for a point grip, 0-5 for a weld.

        Returns
        -------
        tuple of int
        """
        return (3, 4, 5) if self.trail_grip == "point" else (0, 1, 2, 3, 4, 5)

    def constraints(self, q):
        """The closures of the address: both feet welded where they are at ``q``, and the grip.

        Parameters
        ----------
        q : (41,) array_like
            The configuration that fixes where each sole is planted (usually ``q0``).

        Returns
        -------
        list of constraints.FrameClosure
            Lead-foot weld, trail-foot weld (to the ground, six components each) and the
            trail grip: ``"trail grip on hand"`` tied to ``"trail grip on club"`` with
            :meth:`grip_components`.

        Raises
        ------
        ValueError
            If ``q`` is not a configuration of the model.
        """
        q = check_posture(self.model, q)
        feet = [weld_to_ground(self.model, self.frames[f"{s} sole"], q) for s in ("lead", "trail")]
        hand, club = self.frames["trail grip on hand"], self.frames["trail grip on club"]
        grip = constraints.frame_closure(
            self.model,
            club.body,
            club.pose,
            hand.body,
            hand.pose,
            components=self.grip_components(),
        )
        return feet + [grip]

    def mobility(self, q):
        r"""Local mobility :math:`n_v - \operatorname{rank}J` with the closures of ``q``.

        Parameters
        ----------
        q : (41,) array_like

        Returns
        -------
        int
            From :func:`geomotion.constraints.constraint_rank` of the stacked Jacobians of
            :meth:`constraints` at ``q``.
        """
        return mobility(self.model, self.constraints(q), check_posture(self.model, q))


def golfer(
    *,
    trail_grip="point",
    body_mass=80.0,
    height=1.80,
    club_length=45 * 0.0254,
    shaft_mass=0.065,
    grip_mass=0.050,
):
    r"""A right-handed male golfer at address with a driver: 20 bodies, 35 velocity coordinates.

    Bodies and joints (velocity coordinates in brackets):

    =====  ======================  ===========  ===============================================
    body   name                    parent       joint
    =====  ======================  ===========  ===============================================
    0      pelvis                  ground       free flyer (6), origin at mid-hip
    1      thorax                  pelvis       ball (3), at the omphalion (top of the pelvis):
                                                the trunk-pelvis joint
    2-6    lead upper arm,         thorax, ...  ball shoulder (3), revolute elbow (1), forearm
           forearm, radioulnar,                 rotation (1) to a massless ``radioulnar``
           wrist, hand and club                 body, wrist flexion (1) to a massless
                                                ``wrist`` body, then radial/ulnar
                                                deviation (1)
    7-11   trail upper arm, ...    thorax, ...  the same
    12-15  lead thigh, shank,      pelvis, ...  ball hip (3), revolute knee (1), ankle
           ankle, foot                          dorsiflexion (1) to a massless ``ankle``
                                                body, then subtalar inversion (1)
    16-19  trail thigh, ...        pelvis, ...  the same
    =====  ======================  ===========  ===============================================

    :math:`n_v = 6 + 3 + 2(3 + 1 + 1 + 2) + 2(3 + 1 + 2) = 35`, :math:`n_q = 41`
    (quaternions).

    The arm's joints follow the anatomical order: elbow flexion (about the forearm's -y),
    forearm pronation-supination (about the forearm's long axis, the line through the
    elbow and wrist joint centres), wrist flexion-extension, then radial-ulnar deviation;
    each later axis is carried by the earlier ones.  The forearm rotation's massless
    ``radioulnar`` body sits at the wrist joint centre (any point of the axis would do):
    the forearm's mass stays with the elbow, and the rotation turns the hand (and the
    club).  In a forearm the radius turns about the ulna, carrying part of the forearm's
    mass; ours does not, a simplification that changes the inertia about the rotation
    axis only by the forearm's small longitudinal moment (de Leva's radius of gyration
    0.121 of its length, 0.0014 kg m^2 for the stated golfer), while its sagittal and
    transverse moments are nearly equal (radii 0.276 and 0.265).  The anatomical axis
    runs obliquely, from the radial head to the ulnar head; ours is the segment's axis.
    Forearm rotation, wrist flexion and deviation turn about three axes through the
    wrist centre, and like any such three they lose a freedom where two line up: at
    wrist flexion of +/-90 degrees (beyond the wrist's range) the deviation axis lies
    along the forearm's, and the mass matrix is singular there.

    Segment parameters (de Leva 1996, male fractions, ``body_segments``;
    lengths ``GOLFER_LENGTHS``, our stated choice for a 1.80 m man, scaled to ``height``):

    ====================  ================================  ========  ============
    body                  de Leva segments                  fraction  length (m)
    ====================  ================================  ========  ============
    pelvis                lower trunk OMPH-MIDH             0.1117    0.15
    thorax                middle + upper trunk + head,      0.3923    0.22, 0.18,
                          the head rigid (no neck joint)              0.21
    upper arm (x2)        SJC-EJC                           0.0271    0.30
    forearm (x2)          EJC-WJC                           0.0162    0.27
    hand (x2)             WJC-MET3                          0.0061    0.09
    thigh (x2)            HJC-KJC                           0.1416    0.44
    shank (x2)            KJC-AJC                           0.0433    0.44
    foot (x2)             HEEL-TTIP                         0.0137    0.27
    ====================  ================================  ========  ============

    The fractions add up to 1, so the bodies weigh ``body_mass`` plus the club.  Joint
    centres (our choice): hips 0.18 m apart on the pelvis's y axis, shoulders 0.38 m
    apart 0.04 m below the suprasternale, the head's mid-gonion 0.08 m above the
    suprasternale, ankles 0.08 m above the sole, heels 0.06 m behind the ankles.

    The club (a rigid part of the lead hand's body: a tree has no fixed joint, so its
    inertia is folded into the lead hand, which becomes the "lead hand and club" body):

    ===============  =====================================  ==================================
    part             value                                  source
    ===============  =====================================  ==================================
    head             204 g, CoM and inertia ``CLUB_HEAD``   measured (Proceedings 2020,
                                                            49(1), 47, Table 1)
    shaft            ``shaft_mass`` = 65 g, uniform over    trade value (range 55-75 g);
                     the club length, radius 6 mm           the shape is our choice
    grip             ``grip_mass`` = 50 g, uniform over     trade value (range 40-60 g);
                     0.27 m from the butt, radius 12.5 mm   the shape is our choice
    length           ``club_length`` = 45 in (1.143 m),     trade-typical (44-46 in); the
                     butt to face centre along the shaft    rules allow at most 48 in
    ===============  =====================================  ==================================

    The head's face frame is turned so that the shaft meets its horizontal at a lie of
    58 degrees (our choice), with the shaft axis through the face centre (no hosel
    offset).  The lead hand holds the grip 0.05 m from the butt, at a point 0.07 m from
    the wrist towards the knuckles and 0.02 m in front of the palm, the shaft 35 degrees
    from the hand's long axis towards the thumb and the face normal along the back of
    the hand; the trail hand holds it 0.11 m from the butt at the same point of its
    own palm (``"trail grip on hand"`` / ``"trail grip on club"``).

    Address posture ``q0`` (our choice, solved once by minimum-norm Gauss-Newton steps on
    the stated targets): soles level on the ground (z = 0), ankles at y = +/-0.22 m,
    the lead foot turned 20 degrees towards the target and the trail foot square; the
    pelvis origin 0.90 m high, 0.06 m behind the ankles, tilted 20 degrees forward; the
    club's face square to the target (its normal along +y), the shaft 45 degrees above
    the ground in the x-z plane, the face centre 0.03 m above the ground at y = 0 and as
    far out as puts the lead grip point 0.55 m from the lead shoulder; the lead elbow
    flexed 5 degrees and the trail elbow 20; the trail palm point on the club's trail
    grip point.  The thorax and the arms are solved together from a thorax flexed 25
    degrees and bent 10 degrees towards the trail and both forearms at their clinical
    zero (pronated 90 degrees, thumbs forward), with moving the thorax 50 times dearer
    than the arms.  The thorax ends 43 degrees from the vertical; relative to the pelvis
    (the Cardan angles of :func:`geomotion.models.golfer_angles`) it is flexed 15.1
    degrees, bent 27.5 degrees towards the trail and turned 12.8 degrees towards the
    target.  The lead forearm ends pronated 84 degrees and the trail forearm 100, both
    within 10 degrees of their clinical zero; the knees are flexed 38 degrees.  Heights
    scale with ``height``; the club does not.

    The thorax takes part in placing the hands because of the lead arm's reach, not for
    want of forearm rotation.  With its elbow held, the lead arm can give the club only
    a 5-parameter family of poses, with or without forearm rotation: the wrist centre
    stays on a sphere about the shoulder, and the forearm's rotation duplicates the
    humerus's rotation about the shoulder-wrist line.  From the starting thorax, the
    lead wrist centre that the club's pose requires is 0.48 m from the lead shoulder,
    where the lead arm with its elbow at 5 degrees spans 0.57 m (the model has no
    shoulder girdle to take up the difference), so the thorax moves.  The forearm
    rotation then shares the lead arm's turn with the humerus; the split between the
    two is the solve's minimum-norm choice (with the elbow at 5 degrees their axes are
    nearly parallel).

    Closures (:meth:`Golfer.constraints`): each sole welded to the ground where it is
    (6 + 6 rows), and the trail grip, ``trail_grip="point"`` (3 rows, the hand may turn
    on the grip) or ``"weld"`` (6 rows).  Expected mobility at ``q0``, from the rank:
    the two legs with the pelvis form one loop through the ground whose 12 joint
    freedoms move the pelvis in all six directions, so the feet remove 12 of the 18
    lower-body coordinates; the arms and club form a loop of 14 joint freedoms that
    the grip closes with 3 (point) or 6 (weld) independent rows.  Hence
    :math:`35 - 12 - 3 = 20` with a point grip and :math:`35 - 12 - 6 = 17` with a weld.

    Parameters
    ----------
    trail_grip : {"point", "weld"}, optional, keyword only
        How the trail hand holds the club; default ``"point"``.
    body_mass : float, optional, keyword only
        Body mass without the club, kg; default 80.
    height : float, optional, keyword only
        Stature, m; default 1.80 (all lengths scale in proportion).
    club_length : float, optional, keyword only
        m, positive, at most 48 in (1.2192 m, the rules' limit); default 45 in.
    shaft_mass, grip_mass : float, optional, keyword only
        kg, positive; defaults 0.065 and 0.050 (trade values, see the table).

    Returns
    -------
    Golfer

    Raises
    ------
    ValueError
        If ``trail_grip`` is not "point" or "weld", a mass or length is not positive, or
        ``club_length`` exceeds 48 in.
    geomotion.errors.ConvergenceError
        If the address posture cannot be reached (far from the stated proportions).

    Examples
    --------
    >>> from geomotion import models
    >>> g = models.golfer()
    >>> g.model.nq, g.model.nv, len(g.bodies)
    (41, 35, 20)
    """
    if trail_grip not in ("point", "weld"):
        raise ValueError(f"trail_grip: expected 'point' or 'weld', got {trail_grip!r}")
    body_mass = float(_validate.positive(body_mass, "body_mass"))
    height = float(_validate.positive(height, "height"))
    club_length = float(checked_club_length(club_length, "club_length"))
    club = dict(
        CLUB_DEFAULTS,
        length=club_length,
        shaft_mass=float(_validate.positive(shaft_mass, "shaft_mass")),
        grip_mass=float(_validate.positive(grip_mass, "grip_mass")),
    )
    L = scaled_lengths(height)
    T_hand_club = _lead_hand_club_pose(L, club)
    club_inertia = club_spatial_inertia(club)
    chain = Chain()
    add = chain.add
    add("pelvis", -1, tree.FREE_FLYER, np.eye(4), pelvis_inertia(body_mass, L))
    add("thorax", 0, tree.SPHERICAL, translation([0, 0, L["lower_trunk"]]), _thorax(body_mass, L))
    shoulder_z = L["middle_trunk"] + L["upper_trunk"] - L["shoulder_below_suprasternale"]
    for role, sign in (("lead", 1.0), ("trail", -1.0)):
        b = add(
            f"{role} upper arm",
            1,
            tree.SPHERICAL,
            translation([0, sign * L["shoulder_width"] / 2, shoulder_z]),
            hanging_segment("upper_arm", body_mass, L["upper_arm"]),
        )
        b = add(
            f"{role} forearm",
            b,
            revolute(-Y_AXIS),
            translation([0, 0, -L["upper_arm"]]),
            hanging_segment("forearm", body_mass, L["forearm"]),
        )
        b = add(
            f"{role} radioulnar",
            b,
            revolute([0.0, 0.0, -sign]),
            translation([0, 0, -L["forearm"]]),
            MASSLESS,
        )
        b = add(f"{role} wrist", b, revolute(-Y_AXIS), np.eye(4), MASSLESS)
        hand = hanging_segment("hand", body_mass, L["hand"])
        if role == "lead":
            hand = hand + inertia.transform_inertia(club_inertia, T_hand_club)
        add(
            f"{role} hand" + (" and club" if role == "lead" else ""),
            b,
            revolute([sign, 0, 0]),
            np.eye(4),
            hand,
        )
    for role, sign in (("lead", 1.0), ("trail", -1.0)):
        b = add(
            f"{role} thigh",
            0,
            tree.SPHERICAL,
            translation([0, sign * L["hip_width"] / 2, 0]),
            hanging_segment("thigh", body_mass, L["thigh"]),
        )
        b = add_shank(add, role, b, body_mass, L)
        add_ankle_and_foot(add, role, b, sign, body_mass, L)
    model, bodies = chain.tree(), chain.bodies()
    lead_hand = bodies["lead hand and club"]
    sole = translation([0.0, 0.0, -L["ankle_height"]])
    along = lambda s: T_hand_club @ translation([0.0, 0.0, -s])  # noqa: E731
    frames = {
        "lead sole": BodyFrame(bodies["lead foot"], sole),
        "trail sole": BodyFrame(bodies["trail foot"], sole),
        "club butt": BodyFrame(lead_hand, T_hand_club),
        "clubhead": BodyFrame(lead_hand, along(club["length"])),
        "lead grip": BodyFrame(lead_hand, along(club["lead_grip"])),
        "trail grip on club": BodyFrame(lead_hand, along(club["trail_grip"])),
    }
    q0 = _address(model, bodies, frames, L)
    # The trail hand's grip frame: where the club's grip frame is, seen from the trail
    # hand at the address (so the two coincide there, up to rounding).
    T_hand = tree.forward_kinematics(model, q0)[bodies["trail hand"]]
    frames["trail grip on hand"] = BodyFrame(
        bodies["trail hand"],
        spatial.inverse_pose(T_hand) @ frames["trail grip on club"].world_pose(model, q0),
    )
    club_mass = CLUB_HEAD["mass"] + club["shaft_mass"] + club["grip_mass"]
    parameters = {
        "body_mass": body_mass,
        "height": height,
        "lengths": L,
        "club": club,
        "club_mass": club_mass,
    }
    return Golfer(model, bodies, frames, q0, trail_grip, parameters)


def _lead_hand_club_pose(L, club):
    """Club frame (origin at the butt, z from head to butt, x face normal) in the lead hand."""
    beta = club["shaft_to_hand"]
    towards_head = np.array([0.0, np.sin(beta), -np.cos(beta)])  # thumb side is +y (left)
    z = -towards_head
    x = np.array([-1.0, 0.0, 0.0])  # face normal along the back of the lead hand
    R = np.column_stack([x, np.cross(z, x), z])
    grip_point = np.array([L["palm_depth"], 0.0, -L["palm"]])
    butt = grip_point + club["lead_grip"] * z
    return spatial.pose(R, butt)


def _address(model, bodies, frames, L):
    """The stated address posture (see :func:`golfer`)."""
    scale = L["thigh"] / GOLFER_LENGTHS["thigh"]
    q = tree.neutral(model)
    pelvis_R = spatial.rot_y(np.radians(20.0))
    q = set_joint(model, q, 0, _free_flyer(pelvis_R, np.array([-0.06, 0.0, 0.90]) * scale))
    thorax_R = spatial.rot_y(np.radians(_THORAX_START[0])) @ spatial.rot_x(
        np.radians(_THORAX_START[1])
    )
    q = set_joint(model, q, bodies["thorax"], quaternion(thorax_R))
    # Legs: each sole onto its target (6 equations, 6 joint coordinates).
    for role, sign, yaw in (("lead", 1.0, 20.0), ("trail", -1.0, 0.0)):
        q = set_joint(model, q, bodies[f"{role} thigh"], quaternion(spatial.rot_y(-0.6)))
        q = set_joint(model, q, bodies[f"{role} shank"], [0.7])
        q = set_joint(model, q, bodies[f"{role} ankle"], [0.1])
        target = spatial.pose(
            spatial.rot_z(np.radians(yaw)), np.array([0.0, sign * 0.22, 0.0]) * scale
        )
        error, frame = pose_error(target), frames[f"{role} sole"]
        columns = limb_columns(model, range(bodies[f"{role} thigh"], bodies[f"{role} foot"] + 1))
        q = solve_posture(
            model,
            q,
            columns,
            lambda q, f=frame, e=error: e(f.world_pose(model, q)),
            "golfer (legs)",
        )
    # Lead arm: the club frame onto the address pose of the club.
    alpha = np.radians(45.0)
    z_club = np.array([-np.cos(alpha), 0.0, np.sin(alpha)])
    x_club = np.array([0.0, 1.0, 0.0])
    face = np.array([0.0, 0.0, 0.03]) * scale
    length = np.linalg.norm(frames["clubhead"].pose[:3, 3] - frames["club butt"].pose[:3, 3])
    to_grip = np.linalg.norm(frames["clubhead"].pose[:3, 3] - frames["lead grip"].pose[:3, 3])
    face[0] = _ball_distance(model, q, bodies, face, z_club, to_grip, scale)
    R_club = np.column_stack([x_club, np.cross(z_club, x_club), z_club])
    butt = face + length * z_club
    club_error = pose_error(spatial.pose(R_club, butt))
    # Arms and thorax together: the club frame onto its address pose (6 equations), the
    # trail palm point onto the club's trail grip point (3) and the elbows at
    # _ADDRESS_ELBOWS (2), over the thorax's and both arms' 17 coordinates (moving the
    # thorax weighted 1/_THORAX_WEIGHT times dearer).
    palm = np.array([L["palm_depth"], 0.0, -L["palm"]])
    club, grip_frame = frames["club butt"], frames["trail grip on club"]
    hand = bodies["trail hand"]
    for role in ("lead", "trail"):  # initial guess: arms flexed forward
        q = set_joint(model, q, bodies[f"{role} upper arm"], quaternion(spatial.rot_y(-0.5)))
    q = set_joint(model, q, bodies["lead forearm"], [0.2])
    q = set_joint(model, q, bodies["trail forearm"], [0.8])
    for role in ("lead", "trail"):  # forearms at their clinical zero (thumbs forward)
        q = set_joint(model, q, bodies[f"{role} radioulnar"], [np.pi / 2])

    elbows = model.q_start[[bodies["lead forearm"], bodies["trail forearm"]]]

    def arms_error(q):
        T = tree.forward_kinematics(model, q)
        grip = T[..., club.body, :, :] @ grip_frame.pose
        return np.concatenate(
            [
                club_error(T[..., club.body, :, :] @ club.pose),
                T[..., hand, :3, :3] @ palm + T[..., hand, :3, 3] - grip[..., :3, 3],
                q[..., elbows] - _ADDRESS_ELBOWS,
            ],
            axis=-1,
        )

    columns = limb_columns(model, range(bodies["thorax"], hand + 1))
    weights = np.where(columns < model.v_start[bodies["thorax"]] + 3, _THORAX_WEIGHT, 1.0)
    return solve_posture(model, q, columns, arms_error, "golfer (arms)", weights)


def _ball_distance(model, q, bodies, face, z_club, to_grip, scale):
    """x of the face centre that puts the lead grip point ``_LEAD_REACH`` from the lead shoulder."""
    shoulder = tree.forward_kinematics(model, q)[bodies["lead upper arm"], :3, 3]
    grip = face + to_grip * z_club  # with face x = 0
    reach = _LEAD_REACH * scale
    dz, dy = shoulder[2] - grip[2], shoulder[1] - grip[1]
    dx = np.sqrt(max(reach**2 - dz**2 - dy**2, 0.0))
    return shoulder[0] + dx - grip[0]


def _thorax(body_mass, L):
    """Middle and upper trunk and the head, one rigid body with its origin at OMPH."""
    xyph = L["middle_trunk"]
    supr = xyph + L["upper_trunk"]
    vert = supr + L["neck"] + L["head"]
    parts = [
        segment_between("middle_trunk", body_mass, [0, 0, xyph], [0, 0, 0], UPRIGHT),
        segment_between("upper_trunk", body_mass, [0, 0, supr], [0, 0, xyph], UPRIGHT),
        segment_between("head", body_mass, [0, 0, vert], [0, 0, vert - L["head"]], UPRIGHT),
    ]
    return sum(parts)


def _free_flyer(R, p):
    """Free-flyer coordinates (position in m, then the unit quaternion) of a pose."""
    return np.concatenate([p, quaternion(R)])
