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
fixed base, the ground).  Body ``i`` carries a joint model (:mod:`geomotion.tree.joints`)
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

Implementation notes: the ways through the same mechanics
---------------------------------------------------------
* The *readable* path, :class:`PreparedTree` with :func:`composite_inertias` and
  :func:`joint_mass_matrix` (module :mod:`geomotion.tree.reference`), is the textbook
  composite-rigid-body algorithm on explicit 6x6 operators: what the book chapter
  shows, and the independent reference the fast path is tested against.
* The *compiled* path writes each algorithm once for any joint model (screw, ball and
  free-flyer joints).  :func:`rnea`, :func:`aba`, :func:`crba` (and :func:`bias_forces`)
  and :func:`coriolis_matrix`, and the kinematics of frames and points (pose, Jacobian,
  velocity, acceleration bias) run as compiled kernels (numba, cached as
  ``geomotion._kernel_cache`` says) on every tree, over lanes of up to 64 configurations, the innermost
  axis of every work array, so that each product is one SIMD loop
  (``geomotion.tree._lanes``; a screw joint's motion comes from constant bases in
  :math:`(1, \sin, 1 - \cos, q)`, all lanes at once).  One kernel per algorithm serves
  every batch size (a single configuration is a block of one lane), the kinematics of
  frames and points included (``geomotion.tree._lanes_frames``).  Measured at 10,000
  configurations of the 7-body benchmark chain: 0.44, 1.23, 0.75 and 1.3 us per
  configuration, and 1.5, 4.4, 3.4 and 5.0 us on the golfer (nv = 33).  The same
  recursions in numpy, body by body with the configurations as leading axes
  (:mod:`geomotion.tree.general`), are the readable version the kernels are tested
  against.
"""

import numpy as np

from .. import _validate
from . import _jit
from .configuration import (
    difference,
    integrate,
    lie_bracket,
    neutral,
    normalize,
    random_configuration,
)
from .coriolis import coriolis_matrix
from .frames import (
    ClosedLoopDynamics,
    FrameKinematics,
    FramePair,
    FramePairStack,
    frame_acceleration_bias,
    frame_jacobian,
    frame_kinematics,
    frame_pose,
    frame_velocity,
)
from .joints import (
    FREE_FLYER,
    SPHERICAL,
    FreeFlyerJoint,
    Joint,
    ScrewJoint,
    SphericalJoint,
)
from .model import (
    DEFAULT_GRAVITY,
    PRISMATIC_X,
    PRISMATIC_Y,
    PRISMATIC_Z,
    REVOLUTE_X,
    REVOLUTE_Y,
    REVOLUTE_Z,
    GravityWarning,
    Tree,
    _batch_shape,
    _check_configuration,
    _check_f_ext,
    _check_gravity,
    _check_tangent,
    check_model,
)
from .points import point_acceleration_bias, point_jacobian, point_position, point_velocity
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
from .warmup import compile_kernels

__all__ = [
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
    "ClosedLoopDynamics",
    "compile_kernels",
    "frame_kinematics",
]

# ---------------------------------------------------------------------------
# Public dynamics
# ---------------------------------------------------------------------------


def crba(model, q):
    r"""Joint-space mass matrix :math:`M(q)` by the composite-rigid-body algorithm.

    .. math:: M_{ij} = M_{ji} = S_i^T\,({}^{j}X_{i})^T\,\mathcal I^C_j S_j
              \quad (i \text{ an ancestor of, or equal to, } j),\qquad
              K = \tfrac12\dot q^T M(q)\dot q

    with :math:`{}^{j}X_{i} = X_j X_{\lambda(j)}\cdots` the motion transform from body
    :math:`i`'s coordinates to body :math:`j`'s; :math:`M_{ij} = 0` across branches.

    Same mathematics as :func:`joint_mass_matrix` on :func:`prepare`, organized for
    speed (see the module notes); batches of configurations are one call.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, N) ndarray
        Symmetric positive (semi)definite ``M`` (kg m^2, kg m or kg by joint types).
        For large batches the result may be a non-contiguous view.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.

    Examples
    --------
    The book's two-link arm stretched out along x, then with the elbow bent 90 degrees,
    where the terms :math:`m_2L_1c_2\cos q_2` (0.15 kg m^2 at :math:`q_2 = 0`) vanish:

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.crba(arm, [0.0, 0.0]).round(6)
    array([[0.9175, 0.2175],
           [0.2175, 0.0675]])
    >>> tree.crba(arm, [0.0, np.radians(90)]).round(6)
    array([[0.6175, 0.0675],
           [0.0675, 0.0675]])
    """
    check_model(model)
    return _jit.run_crba(model, _check_configuration(model, q, "q"))


def _dynamics_inputs(model, args, names, gravity, f_ext, f_ext_frame):
    check_model(model)
    arrays = [_check_configuration(model, args[0], names[0])]
    arrays += [_check_tangent(model, a, name) for a, name in zip(args[1:], names[1:])]
    g = _check_gravity(model, gravity)
    F = _check_f_ext(model, f_ext, f_ext_frame)
    _batch_shape(arrays, F, g)  # a ValueError naming the arguments if they do not broadcast
    return arrays, g, F


def rnea(model, q, v, a, *, gravity=None, f_ext=None, f_ext_frame="body"):
    r"""Inverse dynamics by the recursive Newton–Euler algorithm: joint forces for a motion.

    Outward, with the base accelerating at :math:`-g` (so gravity needs no separate term):

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i,\qquad
              \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_i\ddot q_i + \mathcal V_i\times S_i\dot q_i,

    .. math:: \mathcal F_i = \mathcal I_i\mathcal A_i
              + \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i ;

    inward: :math:`\tau_i = S_i^T\mathcal F_i`,
    :math:`\mathcal F_{\lambda(i)} \mathrel{+}= X_i^T\mathcal F_i`.  Equivalently
    :math:`\tau = M(q)\ddot q + C(q,\dot q)\dot q + g(q) - \sum_i J_i^T\mathcal F^{ext}_i`
    with the body Jacobians :math:`J_i` of :func:`body_jacobians`.

    Parameters
    ----------
    model : Tree
    q, v, a : (..., N) array_like
        Joint positions (rad or m), rates (rad/s or m/s), accelerations (rad/s^2 or
        m/s^2).  Leading axes broadcast against each other.
    gravity : None or (3,) or (..., 3) array_like
        Default None: the model's gravity (``model.gravity``, set where the tree is
        built).  Or gravitational acceleration in base coordinates for this call,
        m/s^2; leading axes broadcast with the configurations' (one gravity per
        configuration).
    f_ext : (..., N, 6) array_like, optional
        External wrench on each body, moment-first (N m, N).
    f_ext_frame : {"body", "world"}
        ``"body"``: ``f_ext[..., i, :]`` in body ``i`` coordinates about body ``i``'s
        origin; ``"world"``: in base coordinates about the base origin.

    Returns
    -------
    (..., N) ndarray
        Joint forces ``tau`` (N m for revolute/helical, N for prismatic joints).

    Raises
    ------
    ValueError
        Naming the argument, for a wrong model type, wrong shapes or lengths,
        non-broadcasting batches, non-finite values, or an unknown ``f_ext_frame``.
    TypeError
        Naming the argument, if ``q``, ``v`` or ``a`` is None (or holds None).
    FloatingPointError
        If finite inputs overflow the float range inside the recursion (velocities
        beyond about 1e154 rad/s or m/s, whose squares pass 1.8e308), naming the inputs
        and their sizes, instead of returning NaN.

    Examples
    --------
    The two-link arm at rest, stretched out along x, made to accelerate joint 1 at
    1 rad/s^2: without gravity the torques are the first column of :math:`M(0)`; with
    the model's gravity the holding torques (14.2245, 2.4525) N m are added.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> q, v = [0.0, 0.0], [0.0, 0.0]
    >>> tree.rnea(arm, q, v, [1.0, 0.0], gravity=[0.0, 0.0, 0.0]).round(6)
    array([0.9175, 0.2175])
    >>> tree.rnea(arm, q, v, [1.0, 0.0]).round(6)
    array([15.142,  2.67 ])
    """
    (q, v, a), g, F = _dynamics_inputs(
        model, (q, v, a), ("q", "v", "a"), gravity, f_ext, f_ext_frame
    )
    return _jit.run_rnea(model, q, v, a, g, F, f_ext_frame)


def bias_forces(model, q, v, *, gravity=None, f_ext=None, f_ext_frame="body"):
    r"""Joint forces at zero joint acceleration, the bias of the equations of motion.

    .. math:: b(q,\dot q) = C(q,\dot q)\dot q + g(q) - \sum_i J_i^T\mathcal F^{ext}_i

    Equal to ``rnea(model, q, v, 0, gravity=gravity, f_ext=f_ext, f_ext_frame=f_ext_frame)``, so that
    :math:`M\ddot q + b = \tau`.

    Parameters
    ----------
    model : Tree
    q, v : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).
    gravity : None or (3,) or (..., 3) array_like
        Default None: ``model.gravity``; see :func:`rnea`.
    f_ext : (..., N, 6) array_like, optional
        External wrenches, see :func:`rnea`.
    f_ext_frame : {"body", "world"}
        Frame of ``f_ext``, see :func:`rnea`.

    Returns
    -------
    (..., N) ndarray
        N m or N per joint.

    Raises
    ------
    ValueError, TypeError, FloatingPointError
        As :func:`rnea`.

    Examples
    --------
    The two-link arm held still, stretched out along x: :math:`g(m_1c_1 + m_2(L_1 + c_2))`
    and :math:`gm_2c_2`.  Then, without gravity, the elbow bent 90 degrees and joint 1
    turning at 2 rad/s: the centrifugal load :math:`m_2L_1c_2\sin q_2\,\dot q_1^2` =
    0.6 N m on joint 2.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.bias_forces(arm, [0.0, 0.0], [0.0, 0.0]).round(6)
    array([14.2245,  2.4525])
    >>> tree.bias_forces(arm, [0.0, np.radians(90)], [2.0, 0.0], gravity=[0.0, 0.0, 0.0]).round(6)
    array([0. , 0.6])
    """
    v_arr = _validate.real_array(v, "v")
    return rnea(
        model,
        q,
        v_arr,
        np.zeros(v_arr.shape),
        gravity=gravity,
        f_ext=f_ext,
        f_ext_frame=f_ext_frame,
    )


def aba(model, q, v, tau, *, gravity=None, f_ext=None, f_ext_frame="body"):
    r"""Forward dynamics by the articulated-body algorithm, O(N): accelerations for given forces.

    Solves :math:`M(q)\ddot q = \tau - b(q,\dot q)` without forming :math:`M`.  Inward,
    starting from :math:`\mathcal I^A_i = \mathcal I_i` and the bias wrenches :math:`p^A_i`,
    with :math:`U_i = \mathcal I^A_i S_i`, :math:`D_i = S_i^T U_i`,
    :math:`u_i = \tau_i - S_i^T p^A_i`:

    .. math:: \mathcal I^A_{\lambda(i)} \mathrel{+}=
              X_i^T\Big(\mathcal I^A_i - \frac{U_iU_i^T}{D_i}\Big)X_i,\qquad
              p^A_{\lambda(i)} \mathrel{+}= X_i^T\Big(p^A_i + U_i\frac{u_i}{D_i}\Big);

    outward, from the base accelerating at :math:`-g`:

    .. math:: \ddot q_i = \big(u_i - U_i^T X_i\mathcal A_{\lambda(i)}\big)/D_i,\qquad
              \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_i\ddot q_i .

    Here each body's velocity-product acceleration :math:`c_i` (its acceleration when all
    :math:`\ddot q = 0` and :math:`g = 0`) is folded into the bias wrench,
    :math:`p^A_i = \mathcal I_i c_i + \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i`,
    and :math:`\mathcal A_i` excludes it; this is algebraically the textbook algorithm
    (whose :math:`\mathcal I^a_i c_i` terms it absorbs).

    Parameters
    ----------
    model : Tree
    q, v : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).
    tau : (..., N) array_like
        Joint forces (N m or N).
    gravity : None or (3,) or (..., 3) array_like
        Default None: ``model.gravity``; see :func:`rnea`.
    f_ext : (..., N, 6) array_like, optional
        External wrenches, see :func:`rnea`.
    f_ext_frame : {"body", "world"}
        Frame of ``f_ext``, see :func:`rnea`.

    Returns
    -------
    (..., N) ndarray
        Joint accelerations (rad/s^2 or m/s^2).

    Raises
    ------
    ValueError, TypeError, FloatingPointError
        As :func:`rnea`.

    Examples
    --------
    The two-link arm at rest, stretched out along x: without gravity the first column of
    :math:`M(0)` as torques gives :math:`\ddot q = (1, 0)`; under gravity the holding
    torques of :func:`bias_forces` hold it still.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> q, v = [0.0, 0.0], [0.0, 0.0]
    >>> tree.aba(arm, q, v, [0.9175, 0.2175], gravity=[0.0, 0.0, 0.0]).round(6)
    array([1., 0.])
    >>> bool(np.allclose(tree.aba(arm, q, v, tree.bias_forces(arm, q, v)), 0.0))
    True
    """
    (q, v, tau), g, F = _dynamics_inputs(
        model, (q, v, tau), ("q", "v", "tau"), gravity, f_ext, f_ext_frame
    )
    return _jit.run_aba(model, q, v, tau, g, F, f_ext_frame)
