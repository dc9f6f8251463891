r"""Kinematics of frames fixed in a body: pose, Jacobian, velocity and acceleration bias.

A frame :math:`F` fixed in body :math:`b` has the constant pose :math:`T_{bF}` in the
body's coordinates (``body = -1``: a frame fixed in the ground, the base).  Its pose in
the base is :math:`T_{0F}(q) = T_{0b}(q)\,T_{bF}`, and its motion is the body's.  The
Jacobian maps the velocity :math:`v` to the frame's twist :math:`(\omega, v)`
(angular-first, rad/s and m/s per unit of :math:`v`), expressed in one of three ways
(the ``reference`` argument, named as in Pinocchio):

``"world"``
    base axes, about the base origin: the spatial twist :math:`\mathcal V^s = J^0 v`,
    :math:`J^0` the columns :math:`\mathrm{Ad}_{T_{0j}}S_j` of the joints that move
    the body (every frame of one body has the same :math:`J^0`);
``"local"``
    the frame's own axes, about its origin: :math:`J^F = \mathrm{Ad}_{T_{0F}}^{-1}J^0`;
``"local_world_aligned"``
    base axes, about the frame's origin :math:`p`: the angular velocity and the
    classical velocity :math:`\dot p` of the origin,
    :math:`J^{p} = \begin{bmatrix} J^0_\omega \\ J^0_v - [p]J^0_\omega \end{bmatrix}`.

The **acceleration bias** is :math:`\dot J v`, the derivative of :math:`J v` along the
motion at :math:`a = 0`, in the same reference, so that the frame's acceleration is
:math:`J a + \dot J v`.  With :math:`(\alpha, a_O) = \dot J^0 v` (the spatial acceleration
at :math:`a = 0`, Featherstone's, in base coordinates about the base origin):

* ``"world"``: :math:`\dot J^0 v = (\alpha, a_O)`;
* ``"local"``: :math:`\mathrm{Ad}_{T_{0F}}^{-1}(\alpha, a_O)`, the spatial acceleration
  in the moving frame's axes about its origin, which is also :math:`\tfrac{d}{dt}(J^Fv)`
  (the derivative of the body twist in body axes);
* ``"local_world_aligned"``: :math:`(\alpha,\ a_O + \alpha\times p + \omega\times\dot p)`,
  the angular acceleration and the classical acceleration :math:`\ddot p` of the origin
  (with the centripetal term).

Pinocchio's ``getFrameAcceleration`` gives the first two, its
``getFrameClassicalAcceleration(..., LOCAL_WORLD_ALIGNED)`` the third (Pinocchio orders
twists linear-first).  The classical acceleration in the frame's own axes is the third
rotated, :math:`R_{0F}^T\ddot p`, which differs from the ``"local"`` linear part by
:math:`\omega\times v`.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from . import _run
from ._model import _check_configuration, _check_tangent, check_model

__all__ = [
    "FrameKinematics",
    "frame_kinematics",
    "frame_pose",
    "frame_jacobian",
    "frame_velocity",
    "frame_acceleration_bias",
]

#: The three ways a frame's twist can be expressed (see the module notes).
_REFERENCES = ("local", "world", "local_world_aligned")


def _check_reference(reference):
    if not isinstance(reference, str):
        raise TypeError(
            f"reference: expected one of {_REFERENCES}, got {type(reference).__name__} "
            f"{reference!r}"
        )
    if reference not in _REFERENCES:
        raise ValueError(f"reference: expected one of {_REFERENCES}, got {reference!r}")
    return reference


def _path(model, body):
    """Bodies from the root to ``body`` (its ancestors and itself): the joints that move it.

    The compiled kernels of ``geomotion.tree._lanes_frames`` walk only these; the oracle,
    :func:`geomotion.tree.reference.point_kinematics`, visits every body."""
    path = []
    while body >= 0:
        path.append(body)
        body = model.parents[body]
    return path[::-1]


def _kinematics(model, q, v, body, frame, reference, want):
    """Validate; return (pose, J, velocity, bias) in ``reference`` (None where not asked).

    ``want`` is "pose", "jacobian" or "bias": how far to compute (bias needs ``v``).
    """
    check_model(model)
    arrays = [_check_configuration(model, q, "q")]
    if v is not None:
        arrays.append(_check_tangent(model, v, "v"))
    b = _validate.count(body, "body", minimum=-1, maximum=model.num_bodies - 1, whole_floats=False)
    T_bF = _validate.pose(frame, "frame")
    reference = _check_reference(reference)
    try:
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in arrays), T_bF.shape[:-2])
    except ValueError as error:
        names = "q, v, frame" if v is not None else "q, frame"
        shapes = [a.shape for a in arrays] + [T_bF.shape]
        raise ValueError(
            f"{names}: expected leading (batch) shapes that broadcast, got {shapes}"
        ) from error
    nv = model.nv
    if b < 0:  # a frame of the ground: it does not move
        T = np.broadcast_to(T_bF, batch + (4, 4)).copy()
        if want == "pose":
            return T, None, None, None
        zeros = np.zeros(batch + (6,))
        return T, np.zeros(batch + (6, nv)), zeros, (zeros.copy() if v is not None else None)
    q = arrays[0]
    v = arrays[1] if v is not None else None
    T, J, velocity, bias = _run.run_frame_kinematics(
        model, q, v, _path(model, b), T_bF, reference, jacobian=want != "pose"
    )
    return T, J, velocity, (bias if want == "bias" else None)


def frame_pose(model, q, body, frame):
    r"""Pose in the base of a frame fixed in a body: :math:`T_{0F}(q) = T_{0b}(q)\,T_{bF}`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad, m; unit quaternions for ball and free-flyer joints).
    body : int
        Index of the body that carries the frame, ``-1 <= body < N`` (``-1``: the ground).
    frame : (..., 4, 4) array_like
        The frame's pose :math:`T_{bF}` in the body's coordinates (translation in m);
        leading axes broadcast with ``q``'s.

    Returns
    -------
    (..., 4, 4) ndarray
        :math:`T_{0F}`, translation in m.

    Raises
    ------
    TypeError
        If ``model`` is not a Tree, or ``body`` is not an integer.
    ValueError
        If ``body`` is out of range, ``frame`` is not a rigid pose, ``q`` is malformed
        (wrong length, non-unit quaternion) or the batch shapes do not broadcast.

    Examples
    --------
    A frame 0.5 m along link 2 of the two-link arm, turned 90 degrees about its z axis,
    with joint 1 at 90 degrees (both links point up): the frame's origin is at
    (0, 1.1, 0) and its x axis points along -x of the base.

    >>> import numpy as np
    >>> from geomotion import models, spatial, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tip = spatial.pose(spatial.rot_z(np.pi / 2), [0.5, 0.0, 0.0])
    >>> tree.frame_pose(arm, [np.pi / 2, 0.0], 1, tip).round(12) + 0.0
    array([[-1. ,  0. ,  0. ,  0. ],
           [ 0. , -1. ,  0. ,  1.1],
           [ 0. ,  0. ,  1. ,  0. ],
           [ 0. ,  0. ,  0. ,  1. ]])
    """
    return _kinematics(model, q, None, body, frame, "world", "pose")[0]


def frame_jacobian(model, q, body, frame, *, reference="local"):
    r"""Jacobian of a frame fixed in a body: the velocity ``v`` to the frame's twist.

    Equation of the book: :eq:`eq-motion-force-transform`.

    .. math:: \mathcal V = J(q)\,v,\qquad
              J = \begin{cases}
              J^0 & \text{"world"}\\
              \mathrm{Ad}_{T_{0F}}^{-1}J^0 & \text{"local"}\\
              \begin{bmatrix} J^0_\omega \\ J^0_v - [p]J^0_\omega \end{bmatrix}
              & \text{"local\_world\_aligned"}
              \end{cases}

    with :math:`J^0` the columns :math:`\mathrm{Ad}_{T_{0j}}S_j` of the joints that move
    the body, zero elsewhere, and :math:`p` the frame's origin in the base.  The matching
    rates :math:`\dot J v` are :func:`frame_acceleration_bias`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration.
    body : int
        Index of the body that carries the frame (``-1``: the ground; zero Jacobian).
    frame : (..., 4, 4) array_like
        The frame's pose in the body's coordinates.
    reference : {"local", "world", "local_world_aligned"}, optional
        How the twist is expressed: the frame's axes about its origin (default), base axes
        about the base origin, or base axes about the frame's origin.

    Returns
    -------
    (..., 6, nv) ndarray
        Angular-first: rad/s then m/s per unit of each velocity coordinate.

    Raises
    ------
    TypeError
        As :func:`frame_pose`, or if ``reference`` is not a string.
    ValueError
        As :func:`frame_pose`, or for an unknown ``reference``.

    Examples
    --------
    The tip of the stretched-out two-link arm, 1.1 m from joint 1: in base axes about the
    tip it turns at 1 rad/s about z and moves at 1.1 m/s along y per rad/s of joint 1.

    >>> import numpy as np
    >>> from geomotion import models, spatial, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tip = spatial.pose(np.eye(3), [0.5, 0.0, 0.0])
    >>> tree.frame_jacobian(arm, [0.0, 0.0], 1, tip, reference="local_world_aligned").round(12)
    array([[0. , 0. ],
           [0. , 0. ],
           [1. , 1. ],
           [0. , 0. ],
           [1.1, 0.5],
           [0. , 0. ]])
    """
    return _kinematics(model, q, None, body, frame, reference, "jacobian")[1]


def frame_velocity(model, q, v, body, frame, *, reference="local"):
    r"""Twist of a frame fixed in a body, :math:`J(q)\,v`, in the chosen reference.

    Equation of the book: :eq:`eq-motion-force-transform`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration.
    v : (..., nv) array_like
        Velocity (rad/s, m/s; a ball or free flyer's in its child's axes).
    body : int
        Index of the body that carries the frame (``-1``: the ground, at rest).
    frame : (..., 4, 4) array_like
        The frame's pose in the body's coordinates.
    reference : {"local", "world", "local_world_aligned"}, optional
        See :func:`frame_jacobian`; default "local".

    Returns
    -------
    (..., 6) ndarray
        :math:`(\omega, v)`: rad/s, m/s.

    Raises
    ------
    TypeError
        As :func:`frame_jacobian`, or if ``v`` is None.
    ValueError
        As :func:`frame_jacobian`, or for a malformed ``v``.

    Examples
    --------
    The tip of the stretched-out two-link arm, joint 1 turning at 2 rad/s: in its own
    axes (which are the base's here) the tip moves at 2.2 m/s along y.

    >>> from geomotion import models, tree
    >>> import numpy as np
    >>> arm = models.two_link_teaching_arm()
    >>> tip = np.eye(4)
    >>> tip[0, 3] = 0.5
    >>> tree.frame_velocity(arm, [0.0, 0.0], [2.0, 0.0], 1, tip).round(12)
    array([0. , 0. , 2. , 0. , 2.2, 0. ])
    """
    check_model(model)
    v_arr = _check_tangent(model, v, "v")
    return _kinematics(model, q, v_arr, body, frame, reference, "jacobian")[2]


def frame_acceleration_bias(model, q, v, body, frame, *, reference="local"):
    r"""Acceleration of a frame fixed in a body at :math:`a = 0`: :math:`\dot J v` in ``reference``.

    Equation of the book: :eq:`eq-ch2-accel-constraint`.

    The frame's acceleration is :math:`J a + \dot J v`, with :math:`J` from
    :func:`frame_jacobian` in the same reference; with :math:`(\alpha, a_O) = \dot J^0 v`
    the spatial acceleration at :math:`a = 0` (base axes, about the base origin):

    .. math:: \dot J v = \begin{cases}
              (\alpha, a_O) & \text{"world": the spatial acceleration}\\
              \mathrm{Ad}_{T_{0F}}^{-1}(\alpha, a_O) & \text{"local": the same, in the
              frame's axes about its origin}\\
              (\alpha,\ a_O + \alpha\times p + \omega\times\dot p) & \text{"local\_world\_aligned":
              angular and classical acceleration of the origin}
              \end{cases}

    Kinematics only: gravity does not enter.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration.
    v : (..., nv) array_like
        Velocity.
    body : int
        Index of the body that carries the frame (``-1``: the ground; zero).
    frame : (..., 4, 4) array_like
        The frame's pose in the body's coordinates.
    reference : {"local", "world", "local_world_aligned"}, optional
        See :func:`frame_jacobian`; default "local".

    Returns
    -------
    (..., 6) ndarray
        rad/s^2, then m/s^2.

    Raises
    ------
    TypeError
        As :func:`frame_velocity`.
    ValueError
        As :func:`frame_velocity`.

    Examples
    --------
    The tip of the stretched-out two-link arm, 1.1 m out, joint 1 turning at 2 rad/s:
    the classical acceleration of the tip is the centripetal 4.4 m/s^2 towards the axis,
    while the spatial acceleration is zero (the body turns at a constant rate about a
    fixed axis; the local linear part is the classical one minus :math:`\omega\times v`).

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tip = np.eye(4)
    >>> tip[0, 3] = 0.5
    >>> state = ([0.0, 0.0], [2.0, 0.0], 1, tip)
    >>> tree.frame_acceleration_bias(arm, *state, reference="local_world_aligned").round(12) + 0.0
    array([ 0. ,  0. ,  0. , -4.4,  0. ,  0. ])
    >>> tree.frame_acceleration_bias(arm, *state).round(12) + 0.0
    array([0., 0., 0., 0., 0., 0.])
    """
    check_model(model)
    v_arr = _check_tangent(model, v, "v")
    return _kinematics(model, q, v_arr, body, frame, reference, "bias")[3]


@dataclass(frozen=True, eq=False)
class FrameKinematics:
    r"""Pose, Jacobian, twist and acceleration bias of one frame, from :func:`frame_kinematics`.

    Attributes
    ----------
    pose : (..., 4, 4) ndarray
        :math:`T_{0F}`, translation in m.
    jacobian : (..., 6, nv) ndarray
        :math:`J` in the reference asked for (as :func:`frame_jacobian`).
    velocity : (..., 6) ndarray
        :math:`Jv`, rad/s and m/s (as :func:`frame_velocity`).
    acceleration_bias : (..., 6) ndarray
        :math:`\dot Jv`, rad/s^2 and m/s^2 (as :func:`frame_acceleration_bias`).
    """

    pose: np.ndarray
    jacobian: np.ndarray
    velocity: np.ndarray
    acceleration_bias: np.ndarray


def frame_kinematics(model, q, v, body, frame, *, reference="local"):
    r"""Everything about one frame in one pass: pose, Jacobian, twist and acceleration bias.

    The same numbers as :func:`frame_pose`, :func:`frame_jacobian`, :func:`frame_velocity`
    and :func:`frame_acceleration_bias`, walking the joints between the base and the body
    once (what a constraint between two frames needs at every step).

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration.
    v : (..., nv) array_like
        Velocity.
    body : int
        Index of the body that carries the frame (``-1``: the ground).
    frame : (..., 4, 4) array_like
        The frame's pose in the body's coordinates.
    reference : {"local", "world", "local_world_aligned"}, optional
        See :func:`frame_jacobian`; default "local".

    Returns
    -------
    FrameKinematics
        ``pose`` (..., 4, 4), ``jacobian`` (..., 6, nv), ``velocity`` (..., 6),
        ``acceleration_bias`` (..., 6).

    Raises
    ------
    TypeError
        As :func:`frame_acceleration_bias`.
    ValueError
        As :func:`frame_acceleration_bias`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tip = np.eye(4)
    >>> tip[0, 3] = 0.5
    >>> tip_motion = tree.frame_kinematics(arm, [0.0, 0.0], [2.0, 0.0], 1, tip)
    >>> tip_motion.pose[:3, 3], tip_motion.velocity.round(12)
    (array([1.1, 0. , 0. ]), array([0. , 0. , 2. , 0. , 2.2, 0. ]))
    """
    check_model(model)
    v_arr = _check_tangent(model, v, "v")
    return FrameKinematics(*_kinematics(model, q, v_arr, body, frame, reference, "bias"))
