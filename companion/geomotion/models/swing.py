r"""The swing-plane golfer: a planar five-coordinate downswing model with one closed loop.

Plane and axes
--------------
The model lives in the inclined swing plane.  Plane coordinates (m): X towards the
target, Y up the plane, the hub axis (the plane normal Z = X x Y) through the origin.
Gravity acts in the plane as :math:`g_p = (0, -g\sin\iota)` with :math:`g` = 9.81 m/s^2
and the plane inclination :math:`\iota` to the ground (default 60 degrees: a modelling
choice, not a measurement); its out-of-plane part is carried by the joints' bearings.
A segment direction at absolute angle :math:`\theta` is
:math:`u(\theta) = (\sin\theta, -\cos\theta)` (down the plane at :math:`\theta = 0`,
turning towards the target as :math:`\theta` grows) and :math:`e(\theta) =
(\cos\theta, \sin\theta) = u(\theta + \pi/2)`.  Every joint is revolute about the plane
normal; a positive rate turns towards the target, the direction of the downswing.

Coordinates and bodies
----------------------
``q`` (rad), relative joint angles, absolute angles :math:`\theta`:

====  ==================  ===========================  ===============================
q     joint               body it moves                absolute angle
====  ==================  ===========================  ===============================
0     hub (trunk turn)    hub: de Leva's trunk         :math:`\theta_0 = q_0`
1     lead shoulder       lead arm (upper arm and      :math:`\theta_1 = q_0 + q_1`
                          forearm rigid, elbow
                          straight)
2     lead wrist          club body (lead hand and     :math:`\theta_2 = q_0 + q_1 + q_2`
                          club)
3     trail shoulder      trail upper arm              :math:`\theta_3 = q_0 + q_3`
4     trail elbow         trail forearm and hand       :math:`\theta_4 = q_0 + q_3 + q_4`
====  ==================  ===========================  ===============================

Stated simplifications (modelling choices): the trunk's axis is taken normal to the
plane, so the hub's moment of inertia is de Leva's trunk longitudinal moment
:math:`m_t(r_{long}\ell_t)^2` with the trunk length :math:`\ell_t` the sum of the upper,
middle and lower trunk of ``GOLFER_LENGTHS``; the hub's centre of mass is on its axis.
The lead elbow is held straight (as Sprigings & Neal's rigid left arm).  The shoulders
sit on the hub at half the shoulder width from the axis, the lead one at
:math:`\tfrac12 w\,e(\theta_0)` (towards the target at :math:`q_0 = 0`), the trail one
opposite.  The shaft line passes through the lead wrist centre; the lead grip point is
``GOLFER_LENGTHS["palm"]`` from the wrist towards the head and the butt
``CLUB_DEFAULTS["lead_grip"]`` above it, so the butt is :math:`b = \text{palm} -
\text{lead grip}` from the wrist.  The hands lie along their forearm or shaft lines.
Arm and hand moments about the plane normal use de Leva's sagittal radius (the arms swing
across the body, about its antero-posterior axis; the transverse radius differs by at
most 6 % for the arm segments).

Masses and inertias: de Leva (1996) fractions of the stated sex (``de_leva``) times
``body_mass``; lengths ``GOLFER_LENGTHS`` (a modelling choice for a 1.80 m golfer) times
``height / 1.80`` times optional per-segment scale factors.  The club is
:func:`driver`.

Closure ``trail_grip`` (2 rows, m): the tip of the trail forearm-and-hand body (the trail
palm point, "palm" beyond the trail wrist centre) held at the club's trail grip point
(``CLUB_DEFAULTS["trail_grip"]`` from the butt).

Equations of motion (the particle sum)
--------------------------------------
Each body :math:`k` has mass :math:`m_k`, central moment :math:`I_k` about the plane
normal, centre of mass :math:`p_k(q)` and angular rate :math:`\omega_k = w_k^Tv` (a
constant 0/1 row :math:`w_k`).  Every point of the model is a sum of terms
:math:`p = \sum_j c_j\,u(a_j^Tq + \phi_j)` over six directions (hub X and the five
segment lines, plus the club's face normal): :math:`J_v = \sum_j c_j u'(\cdot)a_j^T` and
:math:`\dot J_v v = -\sum_j c_j u(\cdot)(a_j^Tv)^2`, since :math:`u'' = -u`.  Then

.. math:: M = \sum_k m_kJ_{vk}^TJ_{vk} + I_k w_kw_k^T,\qquad
          h = \sum_k m_kJ_{vk}^T(\dot J_{vk}v) - \sum_k m_kJ_{vk}^Tg_p,\qquad
          V = -\sum_k m_k\,g_p^Tp_k

(the rotational part of :math:`\tfrac d{dt}\partial T/\partial v - \partial T/\partial q`
vanishes in the plane, its Jacobian :math:`w_k` being constant).  Every parameter may be
an array of shape (P,): all P parameter sets are then evaluated at once on ``q`` of shape
(P, 5), and one :func:`geomotion.integrators.simulate_constrained` call simulates them
all.  For one parameter set, :attr:`SwingPlaneGolfer.model` builds the same mechanism as
a :class:`geomotion.tree.Tree` (with the club's full 3-D inertia), the independent check
of the particle sum.
"""

from dataclasses import dataclass, field

import numpy as np

from .. import _numerics, _validate, constraints, inertia, spatial, tree
from ..integrators import simulate_constrained
from ..systems import MechanicalSystem
from .body_segments import de_leva
from .golf_data import (
    CLUB_DEFAULTS,
    CLUB_HEAD,
    DATA,
    INCH,
    MAX_CLUB_LENGTH,
    club_spatial_inertia,
)
from .golfer import GOLFER_LENGTHS

__all__ = [
    "Club",
    "driver",
    "SwingPlaneGolfer",
    "swing_plane_golfer",
    "BODY_NAMES",
    "activation_ramp",
    "SwingTorques",
    "Downswing",
    "simulate_downswing",
    "GripLoads",
    "grip_loads",
    "POPULATION_RANGES",
    "swing_population",
]

#: Gravitational acceleration, m/s^2 (the package's planar models' value).
_G = 9.81
#: Stature that ``GOLFER_LENGTHS`` describes, m.
_REFERENCE_HEIGHT = 1.80
#: Segments whose length ``segment_scales`` may scale.
_SCALABLE = ("upper_arm", "forearm", "hand", "palm", "shoulder_width", "trunk")
#: Names of the five bodies, in the order of the per-body arrays.
BODY_NAMES = ("hub", "lead arm", "club and lead hand", "trail upper arm", "trail forearm")

# Direction terms: absolute-angle rows a_j (which joints turn term j) and phases phi_j.
_ANGLES = np.array(
    [
        [1, 0, 0, 0, 0],  # theta_0 hub
        [1, 1, 0, 0, 0],  # theta_1 lead arm
        [1, 1, 1, 0, 0],  # theta_2 club
        [1, 0, 0, 1, 0],  # theta_3 trail upper arm
        [1, 0, 0, 1, 1],  # theta_4 trail forearm
    ],
    dtype=float,
)
# Terms: hub X e(theta_0), lead arm u(theta_1), shaft u(theta_2), face normal
# e(theta_2), trail upper arm u(theta_3), trail forearm u(theta_4).
_TERM_ROWS = _ANGLES[[0, 1, 2, 2, 3, 4]]
_TERM_PHASES = np.array([np.pi / 2, 0.0, 0.0, np.pi / 2, 0.0, 0.0])
_HUB_X, _LEAD_ARM, _SHAFT, _FACE, _TRAIL_UPPER, _TRAIL_FORE = range(6)
#: Input matrix: hub, lead shoulder and lead wrist are driven; the trail arm is passive.
INPUT_MATRIX = np.eye(5)[:, :3]
#: Default plane inclination to the ground, rad (a modelling choice).
_PLANE_INCLINATION = np.radians(60.0)
#: The stated top-of-backswing posture, rad (modelling choices; see ``top_of_backswing``).
_TOP = {
    "hub_turn": np.radians(80.0),
    "lead_arm_above_horizontal": np.radians(30.0),
    "wrist_cock": np.radians(90.0),
}
_PLANE_ROWS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def _frozen(array):
    array = np.array(array, dtype=float)
    array.flags.writeable = False
    return array


# ---------------------------------------------------------------------------
# The club
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Club:
    """A driver reduced to the swing plane (see :func:`driver`); arrays of the batch shape.

    Attributes
    ----------
    mass : ndarray
        kg.
    balance_point : ndarray
        Centre of mass from the butt along the shaft towards the head, m.
    com_offset : ndarray
        Centre of mass off the shaft line along the face normal (in the plane), m;
        negative: behind the face.
    inertia_butt : ndarray
        Moment of inertia about the plane normal through the butt, kg m^2.
    inertia_com : ndarray
        Moment of inertia about the plane normal through the centre of mass, kg m^2.
    length : ndarray
        Butt to face centre along the shaft, m.
    parts : dict of str to ndarray
        ``head_mass``, ``shaft_mass``, ``grip_mass`` (kg) and ``length`` (m).
    spatial_inertia : (..., 6, 6) ndarray
        The 3-D club about the butt, club axes (:func:`geomotion.models.golf_data.club_spatial_inertia`).
    """

    mass: np.ndarray
    balance_point: np.ndarray
    com_offset: np.ndarray
    inertia_butt: np.ndarray
    inertia_com: np.ndarray
    length: np.ndarray
    parts: dict
    spatial_inertia: np.ndarray

    @property
    def com(self):
        """In-plane centre of mass (along the shaft from the butt, along the face normal), m."""
        return np.stack([self.balance_point, self.com_offset], axis=-1)

    def row(self, i):
        """The club of parameter set ``i`` of a batch."""
        return _club_from_parts({key: value[i] for key, value in self.parts.items()})


def driver(
    *,
    head_mass=CLUB_HEAD["mass"],
    shaft_mass=CLUB_DEFAULTS["shaft_mass"],
    grip_mass=CLUB_DEFAULTS["grip_mass"],
    length=CLUB_DEFAULTS["length"],
):
    r"""A driver built from its parts, reduced to the swing plane.

    Head (measured mass, centre of mass and inertia ``CLUB_HEAD``, ISEA2020Head; scaled
    with ``head_mass`` when another mass is asked for), uniform shaft over the whole
    length and uniform grip over 0.27 m from the butt (solid cylinders; shapes, radii and
    the 58 degree lie are modelling choices, ``CLUB_DEFAULTS``), combined by
    :func:`geomotion.models.golf_data.club_spatial_inertia` (the one implementation, also
    used by the 3-D golfer).  The face normal lies in the swing plane and the toe-heel
    axis along its normal, so the in-plane reduction keeps the club frame's x (face
    normal) and z (shaft) components of the centre of mass and its moment about y:

    .. math:: I_{butt} = \mathcal I_{yy},\qquad
              I_{com} = I_{butt} - m\,(c_x^2 + c_z^2)

    Parameters
    ----------
    head_mass, shaft_mass, grip_mass : float or (P,) array_like, keyword only
        kg, positive; defaults 0.204 (measured head), 0.065 and 0.050 (trade values,
        ranges in ``golf_data.DATA``).
    length : float or (P,) array_like, keyword only
        Butt to face centre, m, positive, at most 48 in (the rules); default 45 in.

    Returns
    -------
    Club

    Raises
    ------
    ValueError
        If a mass or the length is not positive, the length exceeds 48 in, or the
        arguments' shapes do not broadcast.
    """
    parts = {
        "head_mass": _validate.positive(head_mass, "head_mass"),
        "shaft_mass": _validate.positive(shaft_mass, "shaft_mass"),
        "grip_mass": _validate.positive(grip_mass, "grip_mass"),
        "length": _validate.positive(length, "length"),
    }
    too_long = parts["length"] > MAX_CLUB_LENGTH * (1 + 1e-12)
    if np.any(too_long):
        raise ValueError(
            f"length: expected at most 48 in = {MAX_CLUB_LENGTH} m (the equipment rules' "
            f"limit, USGARules), got {parts['length'][too_long].max()} m "
            f"({parts['length'][too_long].max() / INCH:.2f} in)"
        )
    shape = _validate.batch_shape({name: value.shape for name, value in parts.items()})
    return _club_from_parts({k: np.broadcast_to(v, shape) for k, v in parts.items()})


def _club_from_parts(parts):
    I = club_spatial_inertia(dict(CLUB_DEFAULTS, **parts))
    properties = inertia.mass_properties(I)
    com = properties.com
    mass = properties.mass
    inertia_butt = I[..., 1, 1]
    return Club(
        mass=_frozen(mass),
        balance_point=_frozen(-com[..., 2]),
        com_offset=_frozen(com[..., 0]),
        inertia_butt=_frozen(inertia_butt),
        inertia_com=_frozen(inertia_butt - mass * (com[..., 0] ** 2 + com[..., 2] ** 2)),
        length=_frozen(parts["length"]),
        parts={key: _frozen(value) for key, value in parts.items()},
        spatial_inertia=_frozen(I),
    )


# ---------------------------------------------------------------------------
# Point kinematics of the term representation
# ---------------------------------------------------------------------------


def _term_angles(q):
    """Absolute angles of the six direction terms, (..., 6), rad."""
    return q @ _TERM_ROWS.T + _TERM_PHASES


def _points(coefficients, q):
    """Points sum_j c_j u(a_j q + phi_j): coefficients (..., K, 6), q (..., 5) -> (..., K, 2)."""
    alpha = _term_angles(q)
    directions = np.stack([np.sin(alpha), -np.cos(alpha)], axis=-1)  # (..., 6, 2)
    return np.einsum("...kj,...jx->...kx", coefficients, directions)


def _point_jacobians(coefficients, q):
    """dp/dq, (..., K, 2, 5): sum_j c_j u'(.) a_j^T with u' = (cos, sin)."""
    alpha = _term_angles(q)
    derivative = np.stack([np.cos(alpha), np.sin(alpha)], axis=-1)
    return np.einsum("...kj,...jx,ji->...kxi", coefficients, derivative, _TERM_ROWS)


def _point_bias(coefficients, q, v):
    """Jdot v, (..., K, 2): -sum_j c_j u(.) (a_j v)^2, m/s^2."""
    alpha = _term_angles(q)
    rates = v @ _TERM_ROWS.T
    directions = np.stack([np.sin(alpha), -np.cos(alpha)], axis=-1)
    return -np.einsum("...kj,...jx,...j->...kx", coefficients, directions, rates**2)


def _combine(parts):
    """Rigid union of parts on one body, each (m, along, across, I_central) in body axes."""
    m = sum(p[0] for p in parts)
    along = sum(p[0] * p[1] for p in parts) / m
    across = sum(p[0] * p[2] for p in parts) / m
    moment = sum(p[3] + p[0] * ((p[1] - along) ** 2 + (p[2] - across) ** 2) for p in parts)
    return m, along, across, moment


# ---------------------------------------------------------------------------
# The golfer
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SwingPlaneGolfer:
    r"""The swing-plane golfer of :func:`swing_plane_golfer` (see the module documentation).

    Attributes
    ----------
    parameters : dict
        The parameter set(s): ``body_mass`` (kg), ``height`` (m), ``sex`` (tuple of str),
        ``plane_inclination`` (rad), ``lengths`` (dict, m), ``club`` (Club).
    batch_shape : tuple
        ``()`` for one parameter set, ``(P,)`` for P.
    masses, inertias : (..., 5) ndarray
        Body masses (kg) and central moments about the plane normal (kg m^2), in the
        order of ``BODY_NAMES``.
    body_terms : (..., 5, 6) ndarray
        Term coefficients of the bodies' centres of mass, m.
    point_terms : dict of str to (..., 6) ndarray
        Term coefficients of named points (m): ``"lead shoulder"``, ``"lead wrist"``,
        ``"clubhead"`` (the face centre), ``"trail grip on club"``, ``"trail hand tip"``,
        ``"trail shoulder"``, ``"trail elbow"``.
    gravity : (..., 2) ndarray
        In-plane gravity :math:`(0, -g\sin\iota)`, m/s^2.
    ball : (..., 2) ndarray
        The ball: the clubhead at ``q = 0`` (hub square, lead arm hanging straight down
        the plane, club in line with it), m.
    """

    parameters: dict
    batch_shape: tuple
    masses: np.ndarray
    inertias: np.ndarray
    body_terms: np.ndarray
    point_terms: dict
    gravity: np.ndarray
    ball: np.ndarray = field(init=False)

    def __post_init__(self):
        ball = self.point(np.zeros(self.batch_shape + (5,)), "clubhead")
        object.__setattr__(self, "ball", _frozen(ball))

    # Kinematics -----------------------------------------------------------------

    def point(self, q, name):
        """Position of the named point (``point_terms``) at ``q`` (..., 5), m, (..., 2)."""
        return _points(self.point_terms[name][..., None, :], q)[..., 0, :]

    def clubhead(self, q):
        """Face centre at ``q`` (..., 5), plane coordinates, m, (..., 2)."""
        return self.point(q, "clubhead")

    def clubhead_velocity(self, q, v):
        """Face-centre velocity at ``(q, v)``, m/s, (..., 2)."""
        J = _point_jacobians(self.point_terms["clubhead"][..., None, :], q)[..., 0, :, :]
        return np.einsum("...xi,...i->...x", J, v)

    def body_centres(self, q):
        """Centres of mass of the bodies of ``BODY_NAMES`` at ``q``, m, (..., 5, 2)."""
        return _points(self.body_terms, q)

    def body_centre_velocities(self, q, v):
        """Velocities of the bodies' centres of mass at ``(q, v)``, m/s, (..., 5, 2)."""
        return np.einsum("...kxi,...i->...kx", _point_jacobians(self.body_terms, q), v)

    def body_kinetic_energies(self, q, v):
        r"""Kinetic energy of each body, J, (..., 5): :math:`\tfrac12m_k|J_{vk}v|^2 +
        \tfrac12I_k(w_k^Tv)^2`."""
        velocity = np.einsum("...kxi,...i->...kx", _point_jacobians(self.body_terms, q), v)
        rates = v @ _ANGLES.T
        return 0.5 * self.masses * (velocity**2).sum(-1) + 0.5 * self.inertias * rates**2

    def angular_momentum(self, q, v):
        r"""Angular momentum about the hub axis, kg m^2/s, (...):
        :math:`\sum_k m_k(p_k\times\dot p_k)_Z + I_k\omega_k`."""
        p = _points(self.body_terms, q)
        velocity = np.einsum("...kxi,...i->...kx", _point_jacobians(self.body_terms, q), v)
        cross = p[..., 0] * velocity[..., 1] - p[..., 1] * velocity[..., 0]
        return (self.masses * cross + self.inertias * (v @ _ANGLES.T)).sum(-1)

    def gravity_moment(self, q):
        r"""Moment of gravity about the hub axis, N m, (...): :math:`\sum_k m_k(p_k\times
        g_p)_Z`."""
        p = _points(self.body_terms, q)
        g = self.gravity[..., None, :]
        return (self.masses * (p[..., 0] * g[..., 1] - p[..., 1] * g[..., 0])).sum(-1)

    # Equations of motion ----------------------------------------------------------

    def mass_matrix(self, q):
        r""":math:`M(q)` (..., 5, 5), kg m^2 (see the module documentation)."""
        J = _point_jacobians(self.body_terms, q)
        rotation = np.einsum("...k,ki,kj->...ij", self.inertias, _ANGLES, _ANGLES)
        return np.einsum("...kxi,...k,...kxj->...ij", J, self.masses, J) + rotation

    def bias(self, q, v):
        r""":math:`h(q, v) = \sum_k m_kJ_{vk}^T(\dot J_{vk}v - g_p)`, N m, (..., 5)."""
        J = _point_jacobians(self.body_terms, q)
        relative = _point_bias(self.body_terms, q, v) - self.gravity[..., None, :]
        return np.einsum("...kxi,...k,...kx->...i", J, self.masses, relative)

    def potential(self, q):
        r""":math:`V(q) = -\sum_k m_kg_p^Tp_k`, J, (...); zero with every centre of mass
        on the hub axis' height."""
        p = _points(self.body_terms, q)
        return -np.einsum("...k,...kx,...x->...", self.masses, p, self.gravity)

    def system(self):
        """The batched equations as a :class:`geomotion.systems.MechanicalSystem`."""
        return MechanicalSystem(
            mass_matrix=_numerics.Trusted(self.mass_matrix),
            bias=_numerics.Trusted(self.bias),
            potential=_numerics.Trusted(self.potential),
        )

    @property
    def trail_grip(self):
        r"""The trail-grip closure, two rows in m, the trail hand tip minus the club's trail grip point,
        :math:`\Phi = p_{tip} - p_{grip}` with :math:`J_c` and :math:`\gamma = \dot J_cv`
        from the term representation, per parameter set."""
        terms = (self.point_terms["trail hand tip"] - self.point_terms["trail grip on club"])[
            ..., None, :
        ]
        return constraints.FunctionConstraint(
            residual=_numerics.Trusted(lambda q: _points(terms, q)[..., 0, :]),
            jacobian=_numerics.Trusted(lambda q: _point_jacobians(terms, q)[..., 0, :, :]),
            acceleration_bias=_numerics.Trusted(lambda q, v: _point_bias(terms, q, v)[..., 0, :]),
        )

    # One parameter set ---------------------------------------------------------

    def parameter_set(self, i):
        """The golfer of parameter set ``i`` of a batch (a scalar golfer)."""
        if self.batch_shape == ():
            raise ValueError("i: this golfer has one parameter set (batch_shape ()), no index")
        i = _validate.count(i, "i", minimum=0, maximum=self.batch_shape[0] - 1, whole_floats=False)
        p = self.parameters
        return swing_plane_golfer(
            body_mass=p["body_mass"][i],
            height=p["height"][i],
            sex=p["sex"][i],
            club=p["club"].row(i),
            plane_inclination=p["plane_inclination"][i],
            segment_scales={name: value[i] for name, value in p["segment_scales"].items()},
        )

    @property
    def model(self):
        """The same mechanism as a :class:`geomotion.tree.Tree` (one parameter set only).

        Bodies in the order of ``BODY_NAMES``, each frame at its joint with the segment
        hanging along -y at ``q = 0``; the club's full 3-D inertia (club axes x face
        normal, y = -Z, z from head to butt) folded into the club body.
        """
        if self.batch_shape != ():
            raise ValueError(
                f"model: a Tree holds one parameter set, this golfer has {self.batch_shape}: "
                f"use parameter_set(i).model"
            )
        return _tree(self.parameters)

    def tree_closure(self):
        """``trail_grip`` built on :attr:`model` by :func:`geomotion.constraints.loop_closure`."""
        L = self.parameters["lengths"]
        butt = L["palm"] - CLUB_DEFAULTS["lead_grip"]
        return constraints.loop_closure(
            self.model,
            4,
            [0.0, -(L["forearm"] + L["palm"]), 0.0],
            2,
            [0.0, -(butt + CLUB_DEFAULTS["trail_grip"]), 0.0],
            directions=_PLANE_ROWS,
        )

    # Postures -------------------------------------------------------------------

    def top_of_backswing(
        self,
        *,
        hub_turn=_TOP["hub_turn"],
        lead_arm_above_horizontal=_TOP["lead_arm_above_horizontal"],
        wrist_cock=_TOP["wrist_cock"],
    ):
        r"""A stated top-of-backswing posture, q (..., 5), rad.

        Modelling choices, not measurements: the hub turned back by ``hub_turn``
        (:math:`q_0 = -`hub_turn), the lead arm ``lead_arm_above_horizontal`` above the
        horizontal through the shoulder pointing away from the target
        (:math:`\theta_1 = -\pi/2 -` that angle) and the club cocked ``wrist_cock`` back
        from the arm's line (:math:`q_2 = -`wrist_cock).  The trail arm is solved in
        closed form (two-link inverse kinematics, law of cosines) so that the closure
        holds, on the branch with the trail elbow bent towards the ground
        (:math:`q_4 < 0`).

        Raises
        ------
        ValueError
            If the trail hand cannot reach the club's trail grip point in that posture.
        """
        q0 = -_validate.real_array(hub_turn, "hub_turn")
        theta1 = -np.pi / 2 - _validate.real_array(
            lead_arm_above_horizontal, "lead_arm_above_horizontal"
        )
        q2 = -_validate.real_array(wrist_cock, "wrist_cock")
        shape = np.broadcast_shapes(self.batch_shape, q0.shape, theta1.shape, q2.shape)
        q = np.zeros(shape + (5,))
        q[..., 0], q[..., 1], q[..., 2] = q0, theta1 - q0, q2
        L = self.parameters["lengths"]
        shoulder = self.point(q, "trail shoulder")
        target = self.point(q, "trail grip on club") - shoulder
        upper, lower = L["upper_arm"], L["forearm"] + L["palm"]
        distance = np.linalg.norm(target, axis=-1)
        cosine = (upper**2 + distance**2 - lower**2) / (2 * upper * distance)
        if np.any(np.abs(cosine) > 1):
            raise ValueError(
                f"hub_turn, lead_arm_above_horizontal, wrist_cock: the trail hand cannot reach "
                f"the trail grip point (distance {distance.max():.3f} m, reach "
                f"{np.max(upper + lower):.3f} m)"
            )
        towards = np.arctan2(target[..., 0], -target[..., 1])  # u(towards) = target / |target|
        theta3 = towards + np.arccos(cosine)
        elbow = target - upper[..., None] * np.stack([np.sin(theta3), -np.cos(theta3)], -1)
        theta4 = np.arctan2(elbow[..., 0], -elbow[..., 1])
        q[..., 3] = _wrap(theta3 - q0)
        q[..., 4] = _wrap(theta4 - theta3)
        return q

    def lead_arm_below_horizontal(self, q):
        r"""Angle of the lead arm below the horizontal through the shoulder, rad:
        :math:`\theta_1 + \pi/2` (Sprigings & Neal's convention)."""
        return q[..., 0] + q[..., 1] + np.pi / 2


def _wrap(angle):
    return (angle + np.pi) % (2 * np.pi) - np.pi


def swing_plane_golfer(
    *,
    body_mass=80.0,
    height=_REFERENCE_HEIGHT,
    sex="male",
    club=None,
    plane_inclination=_PLANE_INCLINATION,
    segment_scales=None,
):
    r"""The swing-plane golfer (see the module documentation) for one or P parameter sets.

    Parameters
    ----------
    body_mass : float or (P,) array_like, keyword only
        kg, positive; default 80 (a stated golfer, not a measurement).
    height : float or (P,) array_like, keyword only
        Stature, m, positive; default 1.80 (``GOLFER_LENGTHS`` scale in proportion).
    sex : {"male", "female"} or sequence of them, keyword only
        de Leva's table of each parameter set; default "male".
    club : Club or None, keyword only
        Default None: ``driver()``.
    plane_inclination : float or (P,) array_like, keyword only
        Swing plane to the ground, rad, in (0, pi/2]; default 60 degrees (a modelling
        choice).
    segment_scales : dict or None, keyword only
        Factors (positive, float or (P,)) on the lengths of ``"upper_arm"``,
        ``"forearm"``, ``"hand"``, ``"palm"``, ``"shoulder_width"`` and ``"trunk"``;
        default None (all 1).

    Returns
    -------
    SwingPlaneGolfer

    Raises
    ------
    TypeError
        If ``club`` is not a Club, ``sex`` not a string or sequence of strings, or
        ``segment_scales`` not a dict.
    ValueError
        If a value is not positive, ``sex`` is unknown, ``plane_inclination`` is out of
        range, a scale key is unknown, or the batch shapes do not broadcast (naming the
        arguments).
    """
    if club is None:
        club = driver()
    if not isinstance(club, Club):
        raise TypeError(f"club: expected a Club (see driver()), got {type(club).__name__}")
    if segment_scales is None:
        segment_scales = {}
    if not isinstance(segment_scales, dict):
        raise TypeError(f"segment_scales: expected a dict, got {type(segment_scales).__name__}")
    unknown = set(segment_scales) - set(_SCALABLE)
    if unknown:
        raise ValueError(f"segment_scales: expected keys among {_SCALABLE}, got {sorted(unknown)}")
    sexes = _sexes(sex)
    values = {
        "body_mass": _validate.positive(body_mass, "body_mass"),
        "height": _validate.positive(height, "height"),
        "plane_inclination": _validate.positive(plane_inclination, "plane_inclination"),
        "club": club.mass,
        "sex": np.empty(sexes.shape),
    }
    if np.any(values["plane_inclination"] > np.pi / 2):
        raise ValueError(
            f"plane_inclination: expected in (0, pi/2] rad, got {values['plane_inclination']!r}"
        )
    scales = {
        name: _validate.positive(value, f"segment_scales[{name!r}]")
        for name, value in segment_scales.items()
    }
    shapes = {name: value.shape for name, value in values.items()}
    shapes.update({f"segment_scales[{name!r}]": value.shape for name, value in scales.items()})
    shape = _validate.batch_shape(shapes)
    if len(shape) > 1:
        raise ValueError(f"body_mass, height, ...: expected scalars or (P,) arrays, got {shape}")
    if club.mass.shape != shape:
        club = _club_from_parts({k: np.broadcast_to(v, shape) for k, v in club.parts.items()})
    sexes = np.broadcast_to(sexes, shape)
    b = lambda x: _frozen(np.broadcast_to(x, shape))  # noqa: E731
    parameters = {
        "body_mass": b(values["body_mass"]),
        "height": b(values["height"]),
        "plane_inclination": b(values["plane_inclination"]),
        "sex": sexes.tolist() if shape else str(sexes),
        "segment_scales": {name: b(value) for name, value in scales.items()},
        "club": club,
    }
    parameters["lengths"] = _lengths(parameters["height"], scales, b)
    parameters["fractions"] = _fractions(sexes, b)
    return _assemble(parameters, shape)


#: The ranges of the uncertainty study (:func:`swing_population`), each uniform: segment
#: length factors (every ``segment_scales`` key, independently; +/- 5 %, a modelling
#: choice), shaft and grip mass and club length (the trade ranges of ``DATA``), head mass
#: (kg; from MacKenzie et al.'s lightest head, 174 g, to the measured 204 g head).
POPULATION_RANGES = {
    "segment_scale": (0.95, 1.05),
    "shaft_mass": (DATA["shaft_mass"].low, DATA["shaft_mass"].high),
    "grip_mass": (DATA["grip_mass"].low, DATA["grip_mass"].high),
    "head_mass": (min(DATA["mackenzie_head_masses"].value), DATA["head_mass"].value),
    "length": (DATA["club_length"].low, DATA["club_length"].high),
}


def swing_population(count, *, seed=2026, head_mass=None, body_mass=80.0, height=_REFERENCE_HEIGHT):
    r"""``count`` parameter sets of the swing-plane golfer, drawn for the uncertainty study.

    Each set draws independently and uniformly from ``POPULATION_RANGES``: six
    segment-length factors, the club's shaft, grip and head masses and its length; and de
    Leva's male or female fractions with equal probability.  Body mass and height stay
    at the stated golfer's.

    Parameters
    ----------
    count : int
        Number of parameter sets, >= 1.
    seed : int, keyword only
        Seed of :func:`numpy.random.default_rng` (the same seed, the same population).
    head_mass : None or float, keyword only
        kg: replaces the drawn head masses (every other parameter is drawn as before,
        so two calls with the same seed differ in the head only); default None.
    body_mass, height : float, keyword only
        kg and m, as :func:`swing_plane_golfer`.

    Returns
    -------
    SwingPlaneGolfer
        With ``batch_shape == (count,)``.

    Raises
    ------
    TypeError, ValueError
        If ``count`` is not a positive integer (or as :func:`swing_plane_golfer`).
    """
    count = _validate.count(count, "count", minimum=1, whole_floats=False)
    rng = np.random.default_rng(seed)
    draw = lambda name: rng.uniform(*POPULATION_RANGES[name], size=count)  # noqa: E731
    scales = {name: draw("segment_scale") for name in _SCALABLE}
    heads = draw("head_mass")
    if head_mass is not None:
        heads = np.broadcast_to(_validate.positive(head_mass, "head_mass"), heads.shape)
    club = driver(
        head_mass=heads,
        shaft_mass=draw("shaft_mass"),
        grip_mass=draw("grip_mass"),
        length=draw("length"),
    )
    sex = np.where(rng.random(count) < 0.5, "male", "female").tolist()
    return swing_plane_golfer(
        body_mass=body_mass, height=height, sex=sex, club=club, segment_scales=scales
    )


def _sexes(sex):
    if isinstance(sex, str):
        sexes = np.array(sex)
    elif isinstance(sex, (list, tuple, np.ndarray)) and all(isinstance(s, str) for s in sex):
        sexes = np.array(list(sex))
    else:
        raise TypeError(f"sex: expected 'male', 'female' or a sequence of them, got {sex!r}")
    for s in sexes.reshape(-1):
        de_leva(str(s))
    return sexes


def _lengths(height, scales, b):
    scale = height / _REFERENCE_HEIGHT
    base = dict(GOLFER_LENGTHS)
    base["trunk"] = base["upper_trunk"] + base["middle_trunk"] + base["lower_trunk"]
    return {name: b(base[name] * scale * scales.get(name, 1.0)) for name in _SCALABLE}


def _fractions(sexes, b):
    """de Leva fractions per parameter set: {segment: {field: array}}."""
    fields = ("mass", "com", "r_sagittal", "r_longitudinal")
    rows = [de_leva(str(s)) for s in sexes.reshape(-1)]
    return {
        segment: {
            f: b(np.reshape([getattr(row[segment], f) for row in rows], sexes.shape))
            for f in fields
        }
        for segment in ("upper_arm", "forearm", "hand", "trunk")
    }


def _segment(fractions, body_mass, length, start=0.0):
    """(m, along, across, I_central) of a de Leva segment from ``start`` along its line."""
    m = fractions["mass"] * body_mass
    return (
        m,
        start + fractions["com"] * length,
        0.0 * m,
        m * (fractions["r_sagittal"] * length) ** 2,
    )


def _assemble(p, shape):
    L, f, mass, club = p["lengths"], p["fractions"], p["body_mass"], p["club"]
    s = L["shoulder_width"] / 2
    arm = L["upper_arm"] + L["forearm"]
    butt = L["palm"] - CLUB_DEFAULTS["lead_grip"]
    trunk = f["trunk"]["mass"] * mass
    hub = (trunk, 0.0 * s, 0.0 * s, trunk * (f["trunk"]["r_longitudinal"] * L["trunk"]) ** 2)
    upper_arm = _segment(f["upper_arm"], mass, L["upper_arm"])
    forearm = _segment(f["forearm"], mass, L["forearm"], L["upper_arm"])
    lead_arm = _combine([upper_arm, forearm])
    club_part = (club.mass, butt + club.balance_point, club.com_offset, club.inertia_com)
    club_body = _combine([_segment(f["hand"], mass, L["hand"]), club_part])
    trail_fore = _combine(
        [
            _segment(f["forearm"], mass, L["forearm"]),
            _segment(f["hand"], mass, L["hand"], L["forearm"]),
        ]
    )
    zero = np.zeros(shape)

    def terms(**c):
        names = ("hub_x", "lead_arm", "shaft", "face", "trail_upper", "trail_fore")
        return np.stack([np.broadcast_to(c.get(n, zero), shape) for n in names], axis=-1)

    bodies = [
        (hub, terms()),
        (lead_arm, terms(hub_x=s, lead_arm=lead_arm[1])),
        (club_body, terms(hub_x=s, lead_arm=arm, shaft=club_body[1], face=club_body[2])),
        (upper_arm, terms(hub_x=-s, trail_upper=upper_arm[1])),
        (trail_fore, terms(hub_x=-s, trail_upper=L["upper_arm"], trail_fore=trail_fore[1])),
    ]
    points = {
        "lead shoulder": terms(hub_x=s),
        "lead wrist": terms(hub_x=s, lead_arm=arm),
        "clubhead": terms(hub_x=s, lead_arm=arm, shaft=butt + club.length),
        "trail grip on club": terms(
            hub_x=s, lead_arm=arm, shaft=butt + CLUB_DEFAULTS["trail_grip"]
        ),
        "trail shoulder": terms(hub_x=-s),
        "trail elbow": terms(hub_x=-s, trail_upper=L["upper_arm"]),
        "trail hand tip": terms(
            hub_x=-s, trail_upper=L["upper_arm"], trail_fore=L["forearm"] + L["palm"]
        ),
    }
    gravity = np.stack([zero, -_G * np.sin(p["plane_inclination"]) + zero], axis=-1)
    return SwingPlaneGolfer(
        parameters=p,
        batch_shape=shape,
        masses=_frozen(np.stack([np.broadcast_to(b[0][0], shape) for b in bodies], -1)),
        inertias=_frozen(np.stack([np.broadcast_to(b[0][3], shape) for b in bodies], -1)),
        body_terms=_frozen(np.stack([b[1] for b in bodies], axis=-2)),
        point_terms={name: _frozen(value) for name, value in points.items()},
        gravity=_frozen(gravity),
    )


def _tree(p):
    """The Tree of one parameter set (see :attr:`SwingPlaneGolfer.model`)."""
    L, f, mass, club = p["lengths"], p["fractions"], float(p["body_mass"]), p["club"]
    L = {k: float(v) for k, v in L.items()}
    f = {seg: {k: float(v) for k, v in row.items()} for seg, row in f.items()}

    def hanging(segment, length, start=0.0):
        m, along, _, moment = _segment(f[segment], mass, length, start)
        return inertia.spatial_inertia(m, [0.0, -along, 0.0], moment * np.eye(3))

    def at(x, y):
        return spatial.pose(np.eye(3), [x, y, 0.0])

    trunk = f["trunk"]["mass"] * mass
    hub = inertia.spatial_inertia(
        trunk, [0.0, 0.0, 0.0], trunk * (f["trunk"]["r_longitudinal"] * L["trunk"]) ** 2 * np.eye(3)
    )
    s, arm = L["shoulder_width"] / 2, L["upper_arm"] + L["forearm"]
    butt = L["palm"] - CLUB_DEFAULTS["lead_grip"]
    club_axes = np.column_stack([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    club_in_body = inertia.transform_inertia(
        club.spatial_inertia, spatial.pose(club_axes, [0.0, -butt, 0.0])
    )
    return tree.Tree(
        parents=[-1, 0, 1, 0, 3],
        joints=[tree.REVOLUTE_Z] * 5,
        placements=[np.eye(4), at(s, 0.0), at(0.0, -arm), at(-s, 0.0), at(0.0, -L["upper_arm"])],
        inertias=[
            hub,
            hanging("upper_arm", L["upper_arm"]) + hanging("forearm", L["forearm"], L["upper_arm"]),
            hanging("hand", L["hand"]) + club_in_body,
            hanging("upper_arm", L["upper_arm"]),
            hanging("forearm", L["forearm"]) + hanging("hand", L["hand"], L["forearm"]),
        ],
        gravity=(0.0, -_G * np.sin(float(p["plane_inclination"])), 0.0),
    )


# ---------------------------------------------------------------------------
# Torque inputs
# ---------------------------------------------------------------------------


def activation_ramp(t, onset, rise_time):
    r"""A smooth switch from 0 to 1: the cubic smoothstep, C1 (zero slope at both ends).

    .. math:: a(t) = 3x^2 - 2x^3,\qquad x = \mathrm{clip}\big((t - t_{on})/t_r,\ 0,\ 1\big)

    Parameters
    ----------
    t : float or array_like
        Time (or any monotone variable, e.g. an angle), s.
    onset : float or array_like
        :math:`t_{on}`, where the ramp leaves 0, in the units of ``t``.
    rise_time : float or array_like
        :math:`t_r` > 0, from 0 to 1, in the units of ``t``.

    Returns
    -------
    ndarray
        The activation in [0, 1], broadcast over the arguments.
    """
    x = np.clip((np.asarray(t, dtype=float) - onset) / rise_time, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)


@dataclass(frozen=True, eq=False, kw_only=True)
class SwingTorques:
    r"""Joint torques of the hub, the lead shoulder and the lead wrist, :math:`u = a(t, q)\,
    u_{peak}` (N m), the trail joints passive (:math:`B` = ``INPUT_MATRIX``, 5 x 3).

    Each torque rises from 0 to its peak along :func:`activation_ramp`: in time from its
    onset over ``rise_time``, or, for the wrist when ``wrist_onset_angle`` is given, in
    the lead arm's angle below the horizontal through the shoulder (Sprigings & Neal's
    convention, :meth:`SwingPlaneGolfer.lead_arm_below_horizontal`) from that angle over
    ``wrist_rise_angle`` (a state-dependent input, C1 in q).  Every field may carry the
    batch (P,) of the golfer (e.g. a sweep of wrist onsets).

    Default peaks (hub 100, shoulder 60, wrist 20 N m), onsets 0 s and rise 0.05 s are
    modelling choices from an energy-and-timing budget, not fitted to any outcome: a
    45 m/s clubhead turning about the lead wrist carries about :math:`\tfrac12
    I_{butt}(v/\ell)^2 \approx \tfrac12 (0.30)(45/1.16)^2 \approx` 225 J, the arms about
    as much again, and the downswing takes about 0.25-0.3 s.  A first budget (hub 150 N m
    over an assumed 2 rad turn, Nesbit & Serrano's 70 % back-and-hip share) spun the hub
    through 295 degrees before impact; the peaks were chosen once more, on a grid of
    round hub (30-150) and shoulder (40-100 N m) torques, by two criteria only: impact
    within 0.25-0.3 s and the hub less than 90 degrees open at impact (impact speed was
    not looked at).  Only (100, 60) met both.

    Attributes
    ----------
    peak : (..., 3) array_like
        Peak torques (hub, lead shoulder, lead wrist), N m.
    onset : (..., 3) array_like
        Onset times, s (the wrist's ignored when ``wrist_onset_angle`` is given).
    rise_time : float or array_like
        s, positive.
    wrist_onset_angle : None or array_like
        Lead-arm angle below the horizontal at which the wrist switches on, rad.
    wrist_rise_angle : float
        rad, positive; default 10 degrees (a modelling choice).
    """

    peak: object = (100.0, 60.0, 20.0)
    onset: object = (0.0, 0.0, 0.0)
    rise_time: object = 0.05
    wrist_onset_angle: object = None
    wrist_rise_angle: float = np.radians(10.0)

    def __post_init__(self):
        for name in ("peak", "onset"):
            object.__setattr__(
                self, name, _frozen(_validate.trailing_shape(getattr(self, name), name, (3,)))
            )
        object.__setattr__(
            self, "rise_time", _frozen(_validate.positive(self.rise_time, "rise_time"))
        )
        object.__setattr__(
            self,
            "wrist_rise_angle",
            float(_validate.positive(self.wrist_rise_angle, "wrist_rise_angle")),
        )
        if self.wrist_onset_angle is not None:
            angle = _validate.real_array(self.wrist_onset_angle, "wrist_onset_angle")
            object.__setattr__(self, "wrist_onset_angle", _frozen(angle))

    def activation(self, t, q):
        """Activations (..., 3) in [0, 1] at time ``t`` (s) and configuration ``q``."""
        rise = self.rise_time[..., None]
        a = activation_ramp(t, self.onset, rise)
        if self.wrist_onset_angle is not None:
            below = q[..., 0] + q[..., 1] + np.pi / 2
            wrist = activation_ramp(below, self.wrist_onset_angle, self.wrist_rise_angle)
            a = np.array(np.broadcast_to(a, np.broadcast_shapes(a.shape[:-1], wrist.shape) + (3,)))
            a[..., 2] = wrist
        return a

    def __call__(self, t, q, v):
        """u(t, q, v) (..., 3), N m: the inputs of ``simulate_constrained``."""
        return self.activation(t, q) * self.peak


# ---------------------------------------------------------------------------
# The downswing
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Downswing:
    r"""Result of :func:`simulate_downswing`; batch axes follow the time axis.

    Attributes
    ----------
    trajectory : geomotion.integrators.ConstrainedTrajectory
    impact_time : (...) ndarray
        s, located between steps (see :func:`simulate_downswing`).
    impact_step : (...) ndarray of int
        Index k of the step [t_k, t_k+1] that holds the impact.
    q_impact, v_impact : (..., 5) ndarray
        rad and rad/s at impact.
    clubhead_speed : (...) ndarray
        Face-centre speed at impact, m/s.
    joint_work : (n_steps + 1, ..., 3) ndarray
        Work of the hub, lead-shoulder and wrist torques, J, trapezoid rule on the
        stored states (:math:`\int u_jv_j\,dt`).
    body_kinetic : (n_steps + 1, ..., 5) ndarray
        Kinetic energy of each body of ``BODY_NAMES``, J.
    stand_moment : (n_steps + 1, ...) ndarray
        Moment of the golfer on the stand about the hub axis, N m: minus the hub motor's
        torque (the stand does not turn, so this moment does no work).
    stand_angular_impulse : (n_steps + 1, ...) ndarray
        Its time integral, N m s (trapezoid rule).
    angular_momentum : (n_steps + 1, ...) ndarray
        About the hub axis, kg m^2/s.
    """

    trajectory: object
    impact_time: np.ndarray
    impact_step: np.ndarray
    q_impact: np.ndarray
    v_impact: np.ndarray
    clubhead_speed: np.ndarray
    joint_work: np.ndarray
    body_kinetic: np.ndarray
    stand_moment: np.ndarray
    stand_angular_impulse: np.ndarray
    angular_momentum: np.ndarray


def _cumulative_trapezoid(values, dt):
    """Running trapezoid integral along axis 0, starting at 0."""
    steps = 0.5 * dt * (values[1:] + values[:-1])
    return np.concatenate([np.zeros_like(values[:1]), np.cumsum(steps, axis=0)])


def simulate_downswing(
    golfer, torques, *, q0=None, v0=None, dt=1e-3, t_max=0.45, method="projection"
):
    r"""Simulate the downswing of every parameter set in one constrained run; locate impact.

    :func:`geomotion.integrators.simulate_constrained` with ``golfer.system()``,
    ``golfer.trail_grip``, ``u = torques`` and ``B = INPUT_MATRIX``, from ``(q0, v0)``
    (default: rest at the top of the backswing) for ``round(t_max / dt)`` steps.  IMPACT
    is the clubhead's polar angle about the hub axis,
    :math:`\varphi(q) = \operatorname{atan2}(Y, X)` of the face centre,
    reaching the ball's, turning the downswing's way (counter-clockwise) from its start:
    the first sign change of :math:`\varphi - \varphi_{ball}` (unwrapped in time).  Within
    that step the state is the quintic Hermite interpolant of :math:`q, v, \dot v` at its
    two ends (accelerations from :func:`geomotion.constraints.constrained_dynamics`;
    its error, :math:`O(\Delta t^6)` in q, stays below the integrator's), and the
    crossing is found by bisection to round-off.

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    torques : SwingTorques
    q0 : None or (..., 5) array_like, keyword only
        Start, rad; default ``golfer.top_of_backswing()``.
    v0 : None or (..., 5) array_like, keyword only
        Starting rates, rad/s, admissible (:math:`J_cv_0 = 0`); default rest.  With
        ``q0`` and torques whose onsets are shifted by the branch time, a run branched
        from a state of another run (time restarts at 0).
    dt : float, keyword only
        Step, s; default 1 ms.
    t_max : float, keyword only
        Simulated time, s; default 0.45.
    method : str, keyword only
        Passed to ``simulate_constrained``; default "projection".

    Returns
    -------
    Downswing

    Raises
    ------
    TypeError
        If ``golfer`` or ``torques`` has the wrong type.
    ValueError
        If some rows never reach the ball within ``t_max`` (naming them), or as
        ``simulate_constrained``.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(torques, SwingTorques):
        raise TypeError(f"torques: expected a SwingTorques, got {type(torques).__name__}")
    dt = float(_validate.positive(dt, "dt"))
    t_max = float(_validate.positive(t_max, "t_max"))
    q0 = golfer.top_of_backswing() if q0 is None else _validate.trailing_shape(q0, "q0", (5,))
    v0 = np.zeros_like(q0) if v0 is None else _validate.trailing_shape(v0, "v0", (5,))
    shapes = {
        "golfer": golfer.batch_shape,
        "q0": q0.shape[:-1],
        "v0": v0.shape[:-1],
        "torques.peak": torques.peak.shape[:-1],
    }
    shape = _validate.batch_shape(shapes)
    if shape != golfer.batch_shape or q0.shape[:-1] != shape or v0.shape[:-1] != shape:
        listing = ", ".join(f"{name} {value}" for name, value in shapes.items())
        raise ValueError(
            f"golfer, q0, v0, torques: expected the golfer's batch shape {golfer.batch_shape} "
            f"(one row per parameter set), got {listing}"
        )
    n_steps = max(1, int(round(t_max / dt)))
    run = simulate_constrained(
        golfer.system(),
        golfer.trail_grip,
        q0,
        v0,
        dt,
        n_steps,
        method=method,
        u=torques,
        B=INPUT_MATRIX,
    )
    step = _impact_step(golfer, run)
    q_imp, v_imp, fraction = _locate_impact(golfer, torques, run, step)
    t, q, v = run.t, run.q, run.v
    u = torques(t.reshape((-1,) + (1,) * (q.ndim - 1)), q, v)
    hub = u[..., 0]
    return Downswing(
        trajectory=run,
        impact_time=t[step] + fraction * dt,
        impact_step=step,
        q_impact=q_imp,
        v_impact=v_imp,
        clubhead_speed=np.linalg.norm(golfer.clubhead_velocity(q_imp, v_imp), axis=-1),
        joint_work=_cumulative_trapezoid(u * v[..., :3], dt),
        body_kinetic=golfer.body_kinetic_energies(q, v),
        stand_moment=-hub,
        stand_angular_impulse=_cumulative_trapezoid(-hub, dt),
        angular_momentum=golfer.angular_momentum(q, v),
    )


@dataclass(frozen=True, eq=False)
class GripLoads:
    r"""Loads of the two hands on the club body at one state (:func:`grip_loads`).

    Plane coordinates, N and N m; batch axes as ``q``.

    Attributes
    ----------
    acceleration : (..., 5) ndarray
        :math:`\dot v` of the constrained dynamics, rad/s^2.
    multiplier : (..., 2) ndarray
        :math:`\lambda` of ``trail_grip``, N: the club pulls the trail hand with
        :math:`\lambda` and the hand pulls the club with :math:`-\lambda`.
    trail_force : (..., 2) ndarray
        Trail hand on the club, at the trail grip point: :math:`f_T = -\lambda`.
    lead_force : (..., 2) ndarray
        Lead arm on the club body (club and lead hand), at the lead wrist centre, from
        the club body's Newton equation :math:`f_L = m_c(a_c - g_p) - f_T`.
    lead_moment : (...) ndarray
        The wrist torque on the club body, N m (the joint's moment about the plane normal).
    resultant_force : (..., 2) ndarray
        :math:`f_L + f_T = m_c(a_c - g_p)`: fixed by the club body's motion.
    squeeze : (...) ndarray
        Internal force along the line from the lead wrist to the trail grip point,
        :math:`s = \tfrac12(f_L - f_T)\cdot e`: positive when the hands push towards each
        other, negative when they pull apart.  Equal and opposite forces along that line
        change :math:`s` and leave the resultant wrench unchanged
        (eq. ``eq-ch2-grip-resultant``).
    """

    acceleration: np.ndarray
    multiplier: np.ndarray
    trail_force: np.ndarray
    lead_force: np.ndarray
    lead_moment: np.ndarray
    resultant_force: np.ndarray
    squeeze: np.ndarray


def grip_loads(golfer, q, v, tau):
    r"""The two hands' loads on the club at ``(q, v)`` under joint torques ``tau``.

    Solves :math:`M\dot v + h = \tau + J_c^T\lambda`, :math:`J_c\dot v + \gamma = 0`
    (:func:`geomotion.constraints.constrained_dynamics`), then splits the load on the club
    body (club and lead hand, body 2) by its Newton equation (see :class:`GripLoads`).

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    q, v : (..., 5) array_like
        rad, rad/s, on the closure (the result is that of the constrained equations).
    tau : (..., 5) array_like
        Joint torques, N m, one per coordinate (``INPUT_MATRIX @ u`` for the three inputs;
        the trail joints may carry torques too).

    Returns
    -------
    GripLoads

    Raises
    ------
    TypeError
        If ``golfer`` is not a SwingPlaneGolfer.
    ValueError
        If ``q``, ``v`` or ``tau`` do not end in 5 entries, or as
        :func:`geomotion.constraints.constrained_dynamics`.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    q = _validate.trailing_shape(q, "q", (5,))
    v = _validate.trailing_shape(v, "v", (5,))
    tau = _validate.trailing_shape(tau, "tau", (5,))
    closure = golfer.trail_grip
    solved = constraints.constrained_dynamics(
        golfer.mass_matrix(q),
        closure.jacobian(q),
        golfer.bias(q, v),
        closure.acceleration_bias(q, v),
        tau,
    )
    a, lam = solved.a, solved.multiplier
    club = golfer.body_terms[..., 2:3, :]
    a_club = (
        np.einsum("...xi,...i->...x", _point_jacobians(club, q)[..., 0, :, :], a)
        + _point_bias(club, q, v)[..., 0, :]
    )
    m_club = golfer.masses[..., 2, None]
    trail = -lam
    resultant = m_club * (a_club - golfer.gravity)
    lead = resultant - trail
    line = golfer.point(q, "trail grip on club") - golfer.point(q, "lead wrist")
    e = line / np.linalg.norm(line, axis=-1, keepdims=True)
    return GripLoads(
        acceleration=a,
        multiplier=lam,
        trail_force=trail,
        lead_force=lead,
        lead_moment=np.broadcast_to(tau[..., 2], a.shape[:-1]).copy(),
        resultant_force=resultant,
        squeeze=0.5 * np.einsum("...x,...x->...", lead - trail, e),
    )


def _polar_angle(golfer, q):
    head = golfer.clubhead(q)
    return np.arctan2(head[..., 1], head[..., 0])


def _ball_angle(golfer):
    return np.arctan2(golfer.ball[..., 1], golfer.ball[..., 0])


def _impact_step(golfer, run):
    """First step k of each row where the unwrapped polar angle passes the ball's."""
    phi = np.unwrap(_polar_angle(golfer, run.q), axis=0)
    target = phi[0] + np.mod(_ball_angle(golfer) - phi[0], 2 * np.pi)
    passed = phi >= target
    missed = ~passed.any(axis=0)
    if np.any(missed):
        rows = np.flatnonzero(missed).tolist() if missed.ndim else []
        raise ValueError(
            f"t_max: the clubhead never reached the ball within {run.t[-1]:.3f} s"
            + (f" in rows {rows}" if missed.ndim else "")
            + " (a longer t_max, or torques that turn the club towards the target)"
        )
    return np.maximum(np.argmax(passed, axis=0) - 1, 0)


def _accelerations(golfer, torques, t, q, v):
    M, h = golfer.mass_matrix(q), golfer.bias(q, v)
    closure = golfer.trail_grip
    tau = torques(t, q, v) @ INPUT_MATRIX.T
    return constraints.constrained_dynamics(
        M, closure.jacobian(q), h, closure.acceleration_bias(q, v), tau
    ).a


def _take(array, step):
    """array[step[i], i, ...] for each batch row i (or array[step] without a batch)."""
    if np.ndim(step) == 0:
        return array[step]
    return np.take_along_axis(array, step.reshape((1, -1) + (1,) * (array.ndim - 2)), 0)[0]


def _locate_impact(golfer, torques, run, step):
    r"""Quintic Hermite of (q, v, a) over the impact step; bisection on the polar angle."""
    dt = run.dt
    t0 = run.t[step]
    q0, v0 = _take(run.q, step), _take(run.v, step)
    q1, v1 = _take(run.q, step + 1), _take(run.v, step + 1)
    shape = np.shape(t0) + (1,)
    a0 = _accelerations(golfer, torques, np.reshape(t0, shape), q0, v0)
    a1 = _accelerations(golfer, torques, np.reshape(t0 + dt, shape), q1, v1)

    def state(s):
        s = np.reshape(s, shape)
        h = _quintic_hermite(s)
        q = (
            h[0] * q0
            + h[1] * dt * v0
            + h[2] * dt**2 * a0
            + h[3] * q1
            + h[4] * dt * v1
            + h[5] * dt**2 * a1
        )
        d = _quintic_hermite(s, derivative=True)
        v = (d[0] * q0 + d[3] * q1) / dt + d[1] * v0 + d[2] * dt * a0 + d[4] * v1 + d[5] * dt * a1
        return q, v

    ball = _ball_angle(golfer)
    low, high = np.zeros(np.shape(t0)), np.ones(np.shape(t0))
    for _ in range(60):  # bisection to round-off (2^-60 of a step)
        middle = 0.5 * (low + high)
        q, _ = state(middle)
        ahead = _wrap(_polar_angle(golfer, q) - ball) >= 0
        low, high = np.where(ahead, low, middle), np.where(ahead, middle, high)
    s = 0.5 * (low + high)
    q, v = state(s)
    return q, v, s


#: Quintic Hermite basis on [0, 1]: rows (q0, dt v0, dt^2 a0, q1, dt v1, dt^2 a1), columns
#: the coefficients of s^0 ... s^5.
_QUINTIC = np.array(
    [
        [1, 0, 0, -10, 15, -6],
        [0, 1, 0, -6, 8, -3],
        [0, 0, 0.5, -1.5, 1.5, -0.5],
        [0, 0, 0, 10, -15, 6],
        [0, 0, 0, -4, 7, -3],
        [0, 0, 0, 0.5, -1, 0.5],
    ]
)


def _quintic_hermite(s, derivative=False):
    """The six basis functions at ``s`` (or their s-derivatives), a list of arrays."""
    powers = np.arange(6)
    if derivative:
        coefficients = _QUINTIC[:, 1:] * powers[1:]
        terms = [s**k for k in range(5)]
    else:
        coefficients = _QUINTIC
        terms = [s**k for k in range(6)]
    return [sum(c * term for c, term in zip(row, terms)) for row in coefficients]
