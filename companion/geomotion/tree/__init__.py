r"""Rigid-body trees: kinematics, mass matrix, Coriolis matrix, inverse and forward dynamics.

Build a model once with :class:`Tree` (bodies, joints -- screws, ``SPHERICAL`` ball joints,
a ``FREE_FLYER`` floating base --, placements, inertias and the model's gravity), then
ask for any quantity at one configuration or at a whole batch of them in one call
(leading axes of ``q`` are batch axes):

* :func:`crba` -- the joint-space mass matrix :math:`M(q)`;
* :func:`rnea` -- joint forces for a given motion (inverse dynamics), and
  :func:`bias_forces`, its value at zero acceleration (at rest: the holding torques);
* :func:`aba` -- joint accelerations for given forces (forward dynamics, O(N));
* :func:`coriolis_matrix` -- the Christoffel-consistent :math:`C(q,\dot q)`;
* :func:`point_position`, :func:`point_velocity`, :func:`point_jacobian`,
  :func:`point_acceleration_bias` -- a point fixed in a body, in base coordinates;
* :func:`frame_pose`, :func:`frame_jacobian`, :func:`frame_velocity`,
  :func:`frame_acceleration_bias`, :func:`frame_kinematics` -- a frame fixed in a body,
  in its own, the world's or world-aligned axes;
* :func:`forward_kinematics`, :func:`body_twists`, :func:`body_jacobians`,
  :func:`kinetic_energy`, :func:`potential_energy`, :func:`spatial_momentum`,
  :func:`center_of_mass`;
* :func:`neutral`, :func:`integrate`, :func:`difference`, :func:`random_configuration`,
  :func:`normalize`, :func:`lie_bracket` -- configurations on the manifold (quaternions).

Example: a pendulum of one 0.5 m uniform rod (2 kg) about the z axis, swinging in the
x-y plane under gravity along -y.

>>> import numpy as np
>>> from geomotion import inertia, tree
>>> rod = inertia.spatial_inertia(
...     2.0, [0.25, 0, 0], inertia.solid_cylinder_central_inertia(2.0, 0.01, 0.5, axis=0))
>>> pendulum = tree.Tree([-1], [tree.REVOLUTE_Z], [np.eye(4)], [rod], gravity=(0, -9.81, 0))
>>> tree.crba(pendulum, [0.0]).round(5)  # m L^2 / 3 + a thin rod's own spin, kg m^2
array([[0.16672]])
>>> tree.bias_forces(pendulum, [0.0], [0.0]).round(4)  # holding torque m g L / 2, N m
array([4.905])
>>> tree.crba(pendulum, np.zeros((10_000, 1))).shape  # 10^4 configurations, one call
(10000, 1, 1)

Joint screws
------------
``REVOLUTE_X``, ``REVOLUTE_Y``, ``REVOLUTE_Z`` and ``PRISMATIC_X``, ``PRISMATIC_Y``,
``PRISMATIC_Z`` are the read-only screws ``(omega, v)`` of a revolute joint about, or a
prismatic joint along, the body's own x, y or z axis through its origin.  Any other
nonzero screw works as well (see :class:`Tree`).

Gravity
-------
Gravity belongs to the model: ``Tree(..., gravity=(gx, gy, gz))`` in base coordinates,
m/s^2, default ``DEFAULT_GRAVITY`` = (0, 0, -9.81) (z up).  Every function that uses
gravity takes ``gravity=None``, meaning the model's, and accepts another value for one
call (or one per configuration, to sweep slopes).  A mechanism drawn in the x-y plane
with z joints moves in a plane on which the default does no work; the constructor then
warns (:class:`GravityWarning`) unless ``gravity`` was passed explicitly.

Model
-----
A tree of ``N`` rigid bodies, one joint per body.  ``parents[i] < i`` (``-1`` is the
fixed base, the ground).  Body ``i`` carries a joint model (:mod:`geomotion.tree._joints`)
with a constant motion subspace ``S_i`` (6 x ``nv_i``) in its own coordinates
(angular-first) and a constant placement ``T_{parent,i}`` of its joint frame; the joint
motion ``T_J(q_i)`` moves body ``i`` from there, so

.. math:: T_{\lambda(i),i}(q) = T^{0}_{\lambda(i),i}\,T_{J,i}(q_i),\qquad
          X_i = \mathrm{Ad}_{T_{\lambda(i),i}}^{-1},\qquad
          \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_iv_i .

A screw joint (a 6-vector ``S_i``) has ``T_J = exp([S_i] q_i)`` and ``v_i = dq_i/dt``:
revolute (``omega != 0``, ``omega.v = 0``), helical (``omega.v != 0``) and prismatic
(``omega = 0``) joints all follow from ``S_i``; ``q_i`` is in rad (revolute, helical)
or m (prismatic), the matching ``tau_i`` in N m or N.  With ``S_i`` not of unit size,
``q_i`` is a scaled coordinate and ``tau_i`` the matching generalized force.
``SPHERICAL`` (a ball joint: a unit quaternion, angular velocity in the child's axes) and
``FREE_FLYER`` (a floating base: position and unit quaternion, the child's twist in its
own axes) have ``nq_i > nv_i``: ``q`` has ``model.nq`` entries, ``v``, ``a`` and ``tau``
have ``model.nv``, and :func:`integrate`, :func:`difference`, :func:`neutral`,
:func:`random_configuration` and :func:`normalize` act on the configuration manifold.

Implementation notes: each algorithm once as readable code, once as a kernel
--------------------------------------------------------------------------------
* The *readable oracle*, :mod:`geomotion.tree.reference`: every algorithm body by body on
  explicit poses and 6x6 operators, as the book writes it (:class:`PreparedTree` with
  :func:`composite_inertias` and :func:`joint_mass_matrix`, the chapter's CRBA, and the
  RNEA, ABA, Coriolis matrix and point kinematics).  The compiled path is tested against
  it and imports none of it.
* The *compiled* path writes each algorithm once for any joint model (screw, ball and
  free-flyer joints).  :func:`rnea`, :func:`aba`, :func:`crba` (and :func:`bias_forces`)
  and :func:`coriolis_matrix`, and the kinematics of frames, frame pairs and points
  (pose, Jacobian, velocity, acceleration bias) run as compiled kernels (numba, cached
  as ``geomotion._kernel_cache`` says) on every tree, over lanes of up to 64
  configurations, the innermost axis of every work array, so that each product is one
  SIMD loop (``geomotion.tree._lanes``; a screw joint's motion comes from constant bases
  in :math:`(1, \sin, 1 - \cos, q)`, all lanes at once).  One kernel per algorithm
  serves every batch size (a single configuration is a block of one lane), the
  kinematics included (``geomotion.tree._lanes_frames``).  The tree's flat arrays, joint
  codes and tolerances live in the leaf module ``geomotion.tree._flat``; the Python entry
  points in ``geomotion.tree._run``.
"""

from . import reference
from ._configuration import (
    difference,
    integrate,
    lie_bracket,
    neutral,
    normalize,
    random_configuration,
)
from ._coriolis import coriolis_matrix
from ._dynamics import aba, bias_forces, crba, rnea
from ._frame_pairs import ClosedLoopDynamics, FramePair, FramePairStack, JacobianAndBias
from ._frames import (
    FrameKinematics,
    frame_acceleration_bias,
    frame_jacobian,
    frame_kinematics,
    frame_pose,
    frame_velocity,
)
from ._joints import (
    FREE_FLYER,
    SPHERICAL,
    FreeFlyerJoint,
    Joint,
    ScrewJoint,
    SphericalJoint,
)
from ._model import (
    DEFAULT_GRAVITY,
    PRISMATIC_X,
    PRISMATIC_Y,
    PRISMATIC_Z,
    REVOLUTE_X,
    REVOLUTE_Y,
    REVOLUTE_Z,
    GravityWarning,
    Tree,
    check_model,
)
from ._points import point_acceleration_bias, point_jacobian, point_position, point_velocity
from ._warmup import compile_kernels
from .reference import (
    PreparedTree,
    body_jacobians,
    body_twists,
    center_of_mass,
    composite_inertias,
    forward_kinematics,
    joint_mass_matrix,
    joint_transforms,
    kinetic_energy,
    potential_energy,
    prepare,
    spatial_momentum,
)

__all__ = [
    "reference",
    "Tree",
    "check_model",
    "Joint",
    "ScrewJoint",
    "SphericalJoint",
    "FreeFlyerJoint",
    "SPHERICAL",
    "FREE_FLYER",
    "neutral",
    "integrate",
    "difference",
    "random_configuration",
    "normalize",
    "lie_bracket",
    "GravityWarning",
    "DEFAULT_GRAVITY",
    "REVOLUTE_X",
    "REVOLUTE_Y",
    "REVOLUTE_Z",
    "PRISMATIC_X",
    "PRISMATIC_Y",
    "PRISMATIC_Z",
    "PreparedTree",
    "prepare",
    "joint_transforms",
    "forward_kinematics",
    "composite_inertias",
    "joint_mass_matrix",
    "crba",
    "body_jacobians",
    "body_twists",
    "rnea",
    "aba",
    "bias_forces",
    "kinetic_energy",
    "potential_energy",
    "spatial_momentum",
    "center_of_mass",
    "coriolis_matrix",
    "point_position",
    "point_velocity",
    "point_jacobian",
    "point_acceleration_bias",
    "frame_pose",
    "frame_velocity",
    "frame_jacobian",
    "frame_acceleration_bias",
    "FrameKinematics",
    "FramePair",
    "FramePairStack",
    "JacobianAndBias",
    "ClosedLoopDynamics",
    "compile_kernels",
    "frame_kinematics",
]
