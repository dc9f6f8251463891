r"""Kinematics of points fixed in a body: position, Jacobian and acceleration bias.

For a point fixed in body ``b`` at coordinates ``r`` (m, in body ``b``'s frame), in base
coordinates:

.. math:: p(q) = T_{0,b}(q)\,r,\qquad \dot p = J_p(q)\,\dot q,\qquad
          \ddot p = J_p(q)\,\ddot q + \dot J_p\dot q .

With the joint screws :math:`s_j` and body twists :math:`\mathcal V_b = (\omega, v_O)`
expressed in base coordinates (about the base origin), column ``j`` of :math:`J_p` is
:math:`s_{v,j} + s_{\omega,j}\times p` for every ancestor ``j`` of ``b`` (``b`` included)
and zero otherwise, and the acceleration at :math:`\ddot q = 0`, the *bias*
:math:`\dot J_p\dot q`, is the classical acceleration of the point,

.. math:: \dot J_p\dot q = a_O + \alpha\times p + \omega\times(v_O + \omega\times p),
          \qquad (\alpha, a_O) = \sum_{j\preceq b}(\mathcal V_j\times s_j)\,\dot q_j ,

which includes the centripetal term :math:`\omega\times(\omega\times p)`.  These are
what a loop closure between two points needs (:func:`geomotion.constraints.loop_closure`).

A point is a frame with the body's axes at ``r``, seen in the ``"local_world_aligned"``
reference of :mod:`geomotion.tree._frames`: its position, the linear rows of that frame's
Jacobian and of its classical acceleration bias.  One compiled kernel computes both, for
every tree and every batch (``geomotion.tree._lanes_frames.frame_kinematics``);
:func:`geomotion.tree.reference.point_kinematics` is the readable oracle.
"""

import numpy as np

from .. import _validate
from . import _run
from ._frames import _path
from ._model import _check_configuration, _check_tangent, check_model

__all__ = ["point_position", "point_velocity", "point_jacobian", "point_acceleration_bias"]


def _check_body(model, body):
    n = model.num_bodies
    return _validate.count(body, "body", minimum=-1, maximum=n - 1, whole_floats=False)


def _check_point(point):
    r = _validate.real_array(point, "point")
    if r.ndim == 0 or r.shape[-1] != 3:
        raise ValueError(
            f"point: expected shape (..., 3) (m, in body coordinates), got shape {r.shape}"
        )
    return r


def _point_kinematics(model, q, v, body, point):
    """Validate, then (position, Jacobian, bias or None) with the batch shape restored."""
    check_model(model)
    arrays = [_check_configuration(model, q, "q")]
    if v is not None:
        arrays.append(_check_tangent(model, v, "v"))
    b = _check_body(model, body)
    r = _check_point(point)
    try:
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in arrays), r.shape[:-1])
    except ValueError as error:
        names = "q, v, point" if v is not None else "q, point"
        raise ValueError(
            f"{names}: expected leading (batch) shapes that broadcast, got "
            f"{[a.shape for a in arrays] + [r.shape]}"
        ) from error
    n = model.nv
    if b < 0:  # a point of the fixed base: it does not move
        zeros = np.zeros(batch + (3,))
        position = np.broadcast_to(r, batch + (3,)).copy()
        return position, np.zeros(batch + (3, n)), None if v is None else zeros
    frame = np.zeros(r.shape[:-1] + (4, 4))  # the point as a frame with the body's axes
    frame[..., :3, :3] = np.eye(3)
    frame[..., :3, 3] = r
    frame[..., 3, 3] = 1.0
    v = arrays[1] if v is not None else None
    T, J, _, bias = _run.run_frame_kinematics(
        model, arrays[0], v, _path(model, b), frame, "local_world_aligned", row0=3
    )
    return T[..., :3, 3], J, None if bias is None else bias[..., 3:]


def point_position(model, q, body, point):
    r"""Base coordinates of a point fixed in a body, :math:`p = T_{0,b}(q)\,r`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad or m).
    body : int
        Index of the body that carries the point; ``-1`` for the fixed base.
    point : (..., 3) array_like
        The point in body ``body``'s coordinates, m.  Leading axes broadcast with ``q``'s.

    Returns
    -------
    (..., 3) ndarray
        The point in base coordinates, m.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree, ``body`` is not an index in [-1, N), or ``q`` or
        ``point`` are malformed, non-finite or do not broadcast.

    Examples
    --------
    The tip of the two-link arm, 0.5 m along link 2 (body 1), with joint 1 at 90 degrees
    and joint 2 at -90 degrees: link 1 points up, link 2 along x again.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.point_position(arm, np.radians([90, -90]), body=1, point=[0.5, 0.0, 0.0]).round(12)
    array([0.5, 0.6, 0. ])
    """
    return _point_kinematics(model, q, None, body, point)[0]


def point_jacobian(model, q, body, point):
    r"""Jacobian of a point fixed in a body: joint rates to its base-frame velocity.

    Equation of the book: :eq:`eq-ch2-hand-no-slip`.

    .. math:: \dot p = J_p\dot q,\qquad J_p[:, j] = s_{v,j} + s_{\omega,j}\times p
              \quad (j \text{ an ancestor of, or equal to, } b;\ 0 \text{ otherwise})

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad or m).
    body : int
        Index of the body that carries the point; ``-1`` for the fixed base (zero Jacobian).
    point : (..., 3) array_like
        The point in body ``body``'s coordinates, m.

    Returns
    -------
    (..., 3, N) ndarray
        Column ``j``: the point's velocity in base coordinates (m/s) per unit rate of
        joint ``j`` (rad/s or m/s).

    Raises
    ------
    ValueError
        As :func:`point_position`.

    Examples
    --------
    The tip of the stretched-out two-link arm, 1.1 m from joint 1 and 0.5 m from joint 2:
    each joint moves it along y at its distance per rad/s.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.point_jacobian(arm, [0.0, 0.0], body=1, point=[0.5, 0.0, 0.0]).round(12)
    array([[0. , 0. ],
           [1.1, 0.5],
           [0. , 0. ]])
    """
    return _point_kinematics(model, q, None, body, point)[1]


def point_velocity(model, q, v, body, point):
    r"""Velocity of a point fixed in a body, in base coordinates: :math:`\dot p = J_p(q)\,\dot q`.

    Equation of the book: :eq:`eq-ch2-hand-no-slip`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad or m; unit quaternions of ball and free-flyer joints).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s); leading axes broadcast.
    body : int
        Index of the body that carries the point; ``-1`` for the fixed base (at rest).
    point : (..., 3) array_like
        The point in body ``body``'s coordinates, m.

    Returns
    -------
    (..., 3) ndarray
        m/s, in base coordinates.

    Raises
    ------
    ValueError
        As :func:`point_position`, or if ``v`` is malformed.
    TypeError
        If ``v`` is None (or holds None).

    Examples
    --------
    The tip of the book's two-link arm, 0.5 m along link 2, with only joint 1 turning
    at 2 rad/s from the stretched-out pose: the tip moves at 2 x 1.1 m/s along +y.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.point_velocity(arm, [0.0, 0.0], [2.0, 0.0], body=1, point=[0.5, 0.0, 0.0]).round(12)
    array([0. , 2.2, 0. ])
    """
    check_model(model)
    J = _point_kinematics(model, q, None, body, point)[1]
    v = _check_tangent(model, v, "v")
    return np.einsum("...ij,...j->...i", J, v)


def point_acceleration_bias(model, q, v, body, point):
    r"""Acceleration of a point fixed in a body at zero joint acceleration, :math:`\dot J_p\dot q`.

    Equations of the book: :eq:`eq-ch2-accel-constraint` and :eq:`eq-ch2-com-acceleration`.

    .. math:: \ddot p = J_p\ddot q + \dot J_p\dot q,\qquad
              \dot J_p\dot q = a_O + \alpha\times p + \omega\times(v_O + \omega\times p)

    (see the module notes); gravity does not enter: this is kinematics.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad or m; unit quaternions of ball and free-flyer joints).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s).
    body : int
        Index of the body that carries the point; ``-1`` for the fixed base (zero).
    point : (..., 3) array_like
        The point in body ``body``'s coordinates, m.

    Returns
    -------
    (..., 3) ndarray
        m/s^2 in base coordinates.

    Raises
    ------
    ValueError
        As :func:`point_position`, and for a malformed ``v``.
    TypeError
        If ``v`` is None (or holds None).

    Examples
    --------
    The tip of the stretched-out two-link arm, 1.1 m out, with joint 1 turning at
    2 rad/s: the centripetal acceleration :math:`\omega^2r` = 4.4 m/s^2 towards the axis.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tip = [0.5, 0.0, 0.0]
    >>> tree.point_acceleration_bias(arm, [0.0, 0.0], [2.0, 0.0], body=1, point=tip).round(12)
    array([-4.4,  0. ,  0. ])
    """
    check_model(model)
    v = _check_tangent(model, v, "v")  # None here would mean "no rates" below
    return _point_kinematics(model, q, v, body, point)[2]
