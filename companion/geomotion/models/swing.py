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

The hub turns about the plane normal, which is not the trunk's long axis: both lean
towards the ball in the golfer's sagittal plane, the normal by :math:`\iota` from the
vertical and the trunk by its forward tilt :math:`\phi` (31 degrees, the PGA mean at the
top of the backswing, Zheng et al. 2008b, measured; ``DATA["pga_trunk_forward_tilt"]``),
so the normal is :math:`\beta = \iota - \phi` from the long axis towards the
antero-posterior axis, and the hub's moment is

.. math:: I_{hub} = m_t\ell_t^2\,(r_{long}^2\cos^2\beta + r_{sag}^2\sin^2\beta)

with de Leva's trunk radii and the trunk length :math:`\ell_t` the sum of the upper,
middle and lower trunk of ``GOLFER_LENGTHS``.  Stated simplifications (modelling choices):
the tilt is held at its top-of-backswing value through the downswing, and the hub's
centre of mass is on its axis.
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
:func:`geomotion.models.driver`.

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
from types import MappingProxyType

import numpy as np

from .. import _numerics, _validate, constraints, inertia, spatial, tree
from ..systems import MechanicalSystem
from ._club import Club, club_from_parts, driver
from ._shared import GOLFER_LENGTHS, PLANE_GRAVITY, REFERENCE_HEIGHT, frozen, wrap_angle
from .body_segments import de_leva
from .golf_data import CLUB_DEFAULTS, DATA

__all__ = [
    "SwingPlaneGolfer",
    "ConstrainedTerms",
    "swing_plane_golfer",
    "BODY_NAMES",
    "INPUT_MATRIX",
    "POPULATION_RANGES",
    "TOP_RANGES",
]

#: Gravitational acceleration, m/s^2 (the package's planar models' value).
_G = -PLANE_GRAVITY[1]
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
# a_k a_k^T of each body's absolute-angle row, flattened (5, 25): sum_k I_k a_k a_k^T = I @ it.
_ANGLE_PRODUCTS = (_ANGLES[:, :, None] * _ANGLES[:, None, :]).reshape(len(_ANGLES), -1)
_TERM_PHASES = np.array([np.pi / 2, 0.0, 0.0, np.pi / 2, 0.0, 0.0])
#: Input matrix, 5 x 3, the hub, lead shoulder and lead wrist driven, the trail arm passive.
INPUT_MATRIX = np.eye(5)[:, :3]
#: Default plane inclination to the ground, rad (a modelling choice).
_PLANE_INCLINATION = np.radians(60.0)
#: Default forward tilt of the trunk from the vertical, rad (Zheng2008b, measured).
_TRUNK_TILT = DATA["pga_trunk_forward_tilt"].value[0]
#: The stated top-of-backswing posture, rad (modelling choices; see ``top_of_backswing``).
_TOP = {
    "hub_turn": np.radians(80.0),
    "lead_arm_above_horizontal": np.radians(30.0),
    "wrist_cock": np.radians(90.0),
}
#: The ranges of the top-of-backswing posture in rad, stated rather than measured, since no
#: source gives the swing-plane angles at the top (see the swing chapter); read-only.
TOP_RANGES = MappingProxyType(
    {
        "hub_turn": (np.radians(60.0), np.radians(100.0)),
        "lead_arm_above_horizontal": (np.radians(15.0), np.radians(45.0)),
        "wrist_cock": (np.radians(70.0), np.radians(110.0)),
    }
)
_PLANE_ROWS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


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
    return coefficients @ directions


def _point_jacobians(coefficients, q):
    """dp/dq, (..., K, 2, 5): sum_j c_j u'(.) a_j^T with u' = (cos, sin)."""
    alpha = _term_angles(q)
    derivative = np.stack([np.cos(alpha), np.sin(alpha)], axis=-2)  # (..., 2, 6)
    # (c_kj u'_x(.)_j) summed against the rows a_j: one matrix product for every point,
    # axis and configuration at once
    terms = coefficients[..., :, None, :] * derivative[..., None, :, :]  # (..., K, 2, 6)
    return (terms.reshape(-1, 6) @ _TERM_ROWS).reshape(terms.shape[:-1] + (5,))


def _point_bias(coefficients, q, v):
    """Jdot v, (..., K, 2): -sum_j c_j u(.) (a_j v)^2, m/s^2."""
    alpha = _term_angles(q)
    rates = v @ _TERM_ROWS.T
    directions = np.stack([np.sin(alpha), -np.cos(alpha)], axis=-1)
    return -(coefficients @ (directions * (rates**2)[..., None]))


def _stacked_rows(J):
    """Point Jacobians (..., K, 2, 5) as one stack of rows (..., 2K, 5)."""
    return J.reshape(J.shape[:-3] + (-1, J.shape[-1]))


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


@dataclass(frozen=True)
class ConstrainedTerms:
    r"""The terms of the swing-plane golfer's constrained equations at one state.

    :math:`M\dot v + h = \tau + J_c^T\lambda` with the trail grip held,
    :math:`J_c\dot v + \gamma = 0`: the arguments of
    :func:`geomotion.constraints.constrained_dynamics` and
    :func:`geomotion.constraints.reduced_dynamics`.  Returned by
    :meth:`SwingPlaneGolfer.constrained_terms`; read by name, it does not unpack.

    Attributes
    ----------
    M : (..., 5, 5) ndarray
        Mass matrix, kg m^2.
    h : (..., 5) ndarray
        Bias forces (velocity terms and gravity), N m.
    J_c : (..., 2, 5) ndarray
        The trail grip's closure Jacobian, m/rad.
    gamma : (..., 2) ndarray
        Its acceleration bias :math:`\dot J_cv`, m/s^2.
    """

    M: np.ndarray
    h: np.ndarray
    J_c: np.ndarray
    gamma: np.ndarray


@dataclass(frozen=True, eq=False)
class SwingPlaneGolfer:
    r"""The swing-plane golfer of :func:`swing_plane_golfer` (see the module documentation).

    Attributes
    ----------
    parameters : dict
        The parameter set(s): ``body_mass`` (kg), ``height`` (m), ``sex`` (tuple of str),
        ``plane_inclination``, ``trunk_tilt`` (rad), ``lengths`` (dict, m), ``club`` (Club).
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
        object.__setattr__(self, "ball", frozen(ball))

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

    def body_centre_accelerations(self, q, v, a):
        r"""Accelerations of the bodies' centres of mass, :math:`J_{vk}a + \dot J_{vk}v`,
        m/s^2, (..., 5, 2), at ``(q, v)`` with joint accelerations ``a`` (rad/s^2)."""
        J = _point_jacobians(self.body_terms, q)
        return np.einsum("...kxi,...i->...kx", J, a) + _point_bias(self.body_terms, q, v)

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
        J = _stacked_rows(_point_jacobians(self.body_terms, q))  # (..., 2K, 5)
        weighted = J * np.repeat(self.masses, 2, axis=-1)[..., None]
        rotation = self.inertias @ _ANGLE_PRODUCTS  # sum_k I_k a_k a_k^T, flattened
        return weighted.swapaxes(-1, -2) @ J + rotation.reshape(rotation.shape[:-1] + (5, 5))

    def bias(self, q, v):
        r""":math:`h(q, v) = \sum_k m_kJ_{vk}^T(\dot J_{vk}v - g_p)`, N m, (..., 5)."""
        J = _stacked_rows(_point_jacobians(self.body_terms, q))  # (..., 2K, 5)
        relative = _point_bias(self.body_terms, q, v) - self.gravity[..., None, :]
        weighted = relative * self.masses[..., None]  # (..., K, 2)
        flat = weighted.reshape(weighted.shape[:-2] + (-1, 1))
        return (J.swapaxes(-1, -2) @ flat)[..., 0]

    def potential(self, q):
        r""":math:`V(q) = -\sum_k m_kg_p^Tp_k`, J, (...); zero with every centre of mass
        on the hub axis' height."""
        p = _points(self.body_terms, q)
        return -np.einsum("...k,...kx,...x->...", self.masses, p, self.gravity)

    def constrained_terms(self, q, v):
        r"""The terms of the constrained equations at ``(q, v)``.

        Parameters
        ----------
        q : (..., 5) array_like
            Joint angles, rad.
        v : (..., 5) array_like
            Joint rates, rad/s.

        Returns
        -------
        ConstrainedTerms
            :math:`M` (..., 5, 5) in kg m^2, :math:`h` (..., 5) in N m, the trail grip's
            :math:`J_c` (..., 2, 5) in m/rad and :math:`\gamma = \dot J_cv` (..., 2) in
            m/s^2, read by name (``terms.M``, ``terms.J_c``).
        """
        closure = self.trail_grip
        return ConstrainedTerms(
            M=self.mass_matrix(q),
            h=self.bias(q, v),
            J_c=closure.jacobian(q),
            gamma=closure.acceleration_bias(q, v),
        )

    def constrained_dynamics(self, q, v, tau):
        r"""Accelerations and trail-grip multiplier at ``(q, v)`` under joint torques ``tau``
        (N m, (..., 5)): :math:`M\dot v + h = \tau + J_c^T\lambda`,
        :math:`J_c\dot v + \gamma = 0` (:func:`geomotion.constraints.constrained_dynamics`).
        """
        terms = self.constrained_terms(q, v)
        return constraints.constrained_dynamics(terms.M, terms.J_c, terms.h, terms.gamma, tau)

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

    def repeated(self, count):
        """This one parameter set as a batch of ``count`` identical sets (batch_shape
        ``(count,)``), e.g. for one batched run over several inputs.

        Raises
        ------
        ValueError
            If the golfer is already a batch, or ``count`` is not a positive integer.
        """
        if self.batch_shape != ():
            raise ValueError(
                f"repeated: expected a golfer of one parameter set, got batch {self.batch_shape}"
            )
        count = _validate.count(count, "count", minimum=1, whole_floats=False)
        p = self.parameters
        return swing_plane_golfer(
            body_mass=np.full(count, float(p["body_mass"])),
            height=float(p["height"]),
            sex=[p["sex"]] * count,
            club=p["club"],
            plane_inclination=float(p["plane_inclination"]),
            trunk_tilt=float(p["trunk_tilt"]),
            segment_scales={k: float(v) for k, v in p["segment_scales"].items()},
        )

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
            trunk_tilt=p["trunk_tilt"][i],
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
        q[..., 3] = wrap_angle(theta3 - q0)
        q[..., 4] = wrap_angle(theta4 - theta3)
        return q

    def lead_arm_below_horizontal(self, q):
        r"""Angle of the lead arm below the horizontal through the shoulder, rad:
        :math:`\theta_1 + \pi/2` (Sprigings & Neal's convention)."""
        return q[..., 0] + q[..., 1] + np.pi / 2


def swing_plane_golfer(
    *,
    body_mass=80.0,
    height=REFERENCE_HEIGHT,
    sex="male",
    club=None,
    plane_inclination=_PLANE_INCLINATION,
    trunk_tilt=_TRUNK_TILT,
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
    trunk_tilt : float or (P,) array_like, keyword only
        The trunk's forward tilt from the vertical, rad, in [0, pi/2); default 31 degrees
        (Zheng et al. 2008b, PGA mean at the top, measured).  It sets the hub's moment of
        inertia about the plane normal (module documentation).
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
        If a value is not positive, ``sex`` is unknown, ``plane_inclination`` or
        ``trunk_tilt`` is out of range, a scale key is unknown, or the batch shapes do not broadcast (naming the
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
        "trunk_tilt": _validate.real_array(trunk_tilt, "trunk_tilt"),
        "club": club.mass,
        "sex": np.empty(sexes.shape),
    }
    if np.any(values["plane_inclination"] > np.pi / 2):
        raise ValueError(
            f"plane_inclination: expected in (0, pi/2] rad, got {values['plane_inclination']!r}"
        )
    if np.any((values["trunk_tilt"] < 0) | (values["trunk_tilt"] >= np.pi / 2)):
        raise ValueError(f"trunk_tilt: expected in [0, pi/2) rad, got {trunk_tilt!r}")
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
        club = club_from_parts({k: np.broadcast_to(v, shape) for k, v in club.parts.items()})
    sexes = np.broadcast_to(sexes, shape)
    b = lambda x: frozen(np.broadcast_to(x, shape))  # noqa: E731
    parameters = {
        "body_mass": b(values["body_mass"]),
        "height": b(values["height"]),
        "plane_inclination": b(values["plane_inclination"]),
        "trunk_tilt": b(values["trunk_tilt"]),
        "sex": sexes.tolist() if shape else str(sexes),
        "segment_scales": {name: b(value) for name, value in scales.items()},
        "club": club,
    }
    parameters["lengths"] = _lengths(parameters["height"], scales, b)
    parameters["fractions"] = _fractions(sexes, b)
    return _assemble(parameters, shape)


#: The club and segment ranges of the population study
#: (``geomotion.models.POPULATION_STUDY_RANGES``), each uniform: segment
#: length factors (every ``segment_scales`` key, independently; +/- 5 %, a modelling
#: choice), shaft and grip mass and club length (the trade ranges of ``DATA``), head mass
#: (kg; from MacKenzie et al.'s lightest head, 174 g, to the measured 204 g head), and the
#: swing plane's inclination to the ground (rad; 50-70 degrees around the stated 60, a
#: modelling choice, since no source gives it).
POPULATION_RANGES = {
    "segment_scale": (0.95, 1.05),
    "plane_inclination": (np.radians(50.0), np.radians(70.0)),
    "shaft_mass": (DATA["shaft_mass"].low, DATA["shaft_mass"].high),
    "grip_mass": (DATA["grip_mass"].low, DATA["grip_mass"].high),
    "head_mass": (min(DATA["mackenzie_head_masses"].value), DATA["head_mass"].value),
    "length": (DATA["club_length"].low, DATA["club_length"].high),
}


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
    scale = height / REFERENCE_HEIGHT
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


def _hub_moment(fractions, mass, length, p):
    """I_hub, kg m^2: the trunk's moment about the plane normal (module documentation)."""
    beta = p["plane_inclination"] - p["trunk_tilt"]
    radii = fractions["r_longitudinal"] ** 2 * np.cos(beta) ** 2
    radii = radii + fractions["r_sagittal"] ** 2 * np.sin(beta) ** 2
    return mass * length**2 * radii


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
    hub = (trunk, 0.0 * s, 0.0 * s, _hub_moment(f["trunk"], trunk, L["trunk"], p))
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
        masses=frozen(np.stack([np.broadcast_to(b[0][0], shape) for b in bodies], -1)),
        inertias=frozen(np.stack([np.broadcast_to(b[0][3], shape) for b in bodies], -1)),
        body_terms=frozen(np.stack([b[1] for b in bodies], axis=-2)),
        point_terms={name: frozen(value) for name, value in points.items()},
        gravity=frozen(gravity),
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
        trunk, [0.0, 0.0, 0.0], float(_hub_moment(f["trunk"], trunk, L["trunk"], p)) * np.eye(3)
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
