"""Frames: 3-vectors and rotations, poses, motion and force transforms, cross products, power."""

import warnings

import numpy as np

from .. import _validate
from .._kernels import (  # noqa: F401  (spatial.screws uses them too)
    _force_transform,
    _inverse_pose,
    _motion_transform,
    _pose,
    _skew,
    _vee,
)

# ---------------------------------------------------------------------------
# 3-vectors and rotations
# ---------------------------------------------------------------------------


def skew(a):
    r"""Cross-product matrix :math:`[a]`, so that :math:`[a]\,b = a \times b`.

    .. math:: [a] = \begin{bmatrix} 0 & -a_3 & a_2 \\ a_3 & 0 & -a_1 \\ -a_2 & a_1 & 0 \end{bmatrix}

    Equation :eq:`conv-skew` of the conventions.

    Parameters
    ----------
    a : (..., 3) array_like
        Vector(s), in any units; the matrix carries the same units.

    Returns
    -------
    (..., 3, 3) ndarray
        Antisymmetric matrices, :math:`[a]^T = -[a]`.

    Raises
    ------
    ValueError
        If ``a`` does not have a trailing axis of length 3 or has non-finite entries.

    Examples
    --------
    >>> from geomotion import spatial
    >>> spatial.skew([1.0, 2.0, 3.0]) @ [4.0, 5.0, 6.0]  # (1, 2, 3) x (4, 5, 6)
    array([-3.,  6., -3.])
    """
    return _skew(_validate.trailing_shape(a, "a", (3,)))


class AngleWarning(UserWarning):
    """An angle of more than one turn passed to ``rot_x``/``rot_y``/``rot_z``: degrees, perhaps.

    Attributes
    ----------
    args : tuple
        ``(message,)``: the message, which says what was found and what to do.
    """


def _axis_rotation(theta, axis):
    """Active rotation by ``theta`` (rad) about coordinate axis ``axis`` (0, 1 or 2).

    Angles beyond one turn raise an :class:`AngleWarning`: ``rot_z(30)`` is far more
    often 30 degrees than 30 rad.
    """
    theta = _validate.real_array(theta, "theta")
    if theta.size and np.abs(theta).max() > 2 * np.pi:
        worst = float(theta.flat[np.argmax(np.abs(theta))])
        warnings.warn(
            f"theta: {worst:g} rad is more than one turn; geomotion's angles are in radians. "
            f"If you meant degrees, convert them: np.radians({worst:g}) = "
            f"{np.radians(worst):.6g} rad. To mean radians beyond a turn, reduce the angle "
            f"first (np.mod(theta, 2 * np.pi) gives the same rotation).",
            AngleWarning,
            stacklevel=3,
        )
    c, s = np.cos(theta), np.sin(theta)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = np.zeros(theta.shape + (3, 3))
    R[..., axis, axis] = 1.0
    R[..., i, i] = c
    R[..., j, j] = c
    R[..., i, j] = -s
    R[..., j, i] = s
    return R


def rot_x(theta):
    r"""Active rotation about x by ``theta``: :math:`R_x(\theta)`.

    .. math:: R_x(\theta) = \begin{bmatrix} 1 & 0 & 0 \\ 0 & \cos\theta & -\sin\theta \\
              0 & \sin\theta & \cos\theta \end{bmatrix}

    Parameters
    ----------
    theta : array_like
        Angle(s) in rad, any shape ``(...)``; for degrees use ``np.radians``.

    Returns
    -------
    (..., 3, 3) ndarray
        ``R_AB`` of a frame B rotated by ``theta`` about A's x axis: it maps
        coordinates in B into A.  This is the transpose of Featherstone's ``rx``.

    Examples
    --------
    A quarter turn about x carries y onto z:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> (spatial.rot_x(np.radians(90)) @ [0.0, 1.0, 0.0]).round(12)
    array([0., 0., 1.])
    """
    return _axis_rotation(theta, 0)


def rot_y(theta):
    r"""Active rotation about y by ``theta``: :math:`R_y(\theta)`.

    .. math:: R_y(\theta) = \begin{bmatrix} \cos\theta & 0 & \sin\theta \\ 0 & 1 & 0 \\
              -\sin\theta & 0 & \cos\theta \end{bmatrix}

    Parameters
    ----------
    theta : array_like
        Angle(s) in rad, any shape ``(...)``; for degrees use ``np.radians``.

    Returns
    -------
    (..., 3, 3) ndarray
        ``R_AB`` of a frame B rotated by ``theta`` about A's y axis.

    Examples
    --------
    A quarter turn about y carries z onto x:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> (spatial.rot_y(np.radians(90)) @ [0.0, 0.0, 1.0]).round(12)
    array([1., 0., 0.])
    """
    return _axis_rotation(theta, 1)


def rot_z(theta):
    r"""Active rotation about z by ``theta``: :math:`R_z(\theta)`.

    .. math:: R_z(\theta) = \begin{bmatrix} \cos\theta & -\sin\theta & 0 \\
              \sin\theta & \cos\theta & 0 \\ 0 & 0 & 1 \end{bmatrix}

    Parameters
    ----------
    theta : array_like
        Angle(s) in rad, any shape ``(...)``; for degrees use ``np.radians``.

    Returns
    -------
    (..., 3, 3) ndarray
        ``R_AB`` of a frame B rotated by ``theta`` about A's z axis.

    Examples
    --------
    A quarter turn about z carries x onto y:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> (spatial.rot_z(np.radians(90)) @ [1.0, 0.0, 0.0]).round(12)
    array([0., 1., 0.])
    """
    return _axis_rotation(theta, 2)


# ---------------------------------------------------------------------------
# Poses
# ---------------------------------------------------------------------------


def pose(R, p):
    r"""Homogeneous pose :math:`T_{AB}` from rotation :math:`R_{AB}` and offset :math:`p_{AB}`.

    .. math:: T_{AB} = \begin{bmatrix} R_{AB} & p_{AB} \\ 0 & 1 \end{bmatrix},\qquad
              r_A = R_{AB} r_B + p_{AB}

    Equation :eq:`eq-pose-map`, and :eq:`conv-pose` of the conventions.

    Parameters
    ----------
    R : (..., 3, 3) array_like
        Rotation ``R_AB`` (maps B axes into A axes).
    p : (..., 3) array_like
        Position of B's origin in A, in m.

    Returns
    -------
    (..., 4, 4) ndarray
        ``T_AB``; leading axes of ``R`` and ``p`` broadcast.

    Raises
    ------
    ValueError
        If ``R`` is not a rotation or ``p`` not a finite (..., 3) array.

    Examples
    --------
    Frame B turned a quarter turn about z and placed at (1, 0, 0) m in A: B's point
    (1, 0, 0) is A's (1, 1, 0).

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> T_AB = spatial.pose(spatial.rot_z(np.radians(90)), [1.0, 0.0, 0.0])
    >>> (T_AB @ [1.0, 0.0, 0.0, 1.0]).round(12)  # homogeneous coordinates (x, y, z, 1)
    array([1., 1., 0., 1.])
    """
    R = _validate.rotation(R, "R")
    p = _validate.trailing_shape(p, "p", (3,))
    return _pose(R, p)


def inverse_pose(T_AB):
    r"""Inverse pose :math:`T_{BA} = T_{AB}^{-1}`, computed from the rigid structure.

    .. math:: T_{BA} = \begin{bmatrix} R_{AB}^T & -R_{AB}^T p_{AB} \\ 0 & 1 \end{bmatrix}

    Equation :eq:`conv-pose-compose` of the conventions.

    Parameters
    ----------
    T_AB : (..., 4, 4) array_like
        Pose of B in A (maps B coordinates into A; translation in m).

    Returns
    -------
    (..., 4, 4) ndarray
        ``T_BA``, mapping A coordinates into B.

    Raises
    ------
    ValueError
        If ``T_AB`` is not a finite rigid pose.

    Examples
    --------
    The pose of :func:`pose`'s example, undone: A's point (1, 1, 0) is B's (1, 0, 0).

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> T_AB = spatial.pose(spatial.rot_z(np.radians(90)), [1.0, 0.0, 0.0])
    >>> (spatial.inverse_pose(T_AB) @ [1.0, 1.0, 0.0, 1.0]).round(12)
    array([1., 0., 0., 1.])
    >>> bool(np.allclose(spatial.inverse_pose(T_AB) @ T_AB, np.eye(4)))
    True
    """
    return _inverse_pose(_validate.pose(T_AB, "T_AB"))


def compose_poses(T_AB, T_BC):
    r"""Composition :math:`T_{AC} = T_{AB} T_{BC}`: adjacent frame letters cancel.

    Equation :eq:`conv-pose-compose` of the conventions.

    Parameters
    ----------
    T_AB : (..., 4, 4) array_like
        Pose of B in A.
    T_BC : (..., 4, 4) array_like
        Pose of C in B.

    Returns
    -------
    (..., 4, 4) ndarray
        ``T_AC``, mapping C coordinates into A.

    Raises
    ------
    ValueError
        If either argument is not a finite rigid pose.

    Examples
    --------
    C sits 1 m along B's x axis, which points along A's y axis:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> T_AB = spatial.pose(spatial.rot_z(np.radians(90)), [1.0, 0.0, 0.0])
    >>> T_BC = spatial.pose(np.eye(3), [1.0, 0.0, 0.0])
    >>> spatial.compose_poses(T_AB, T_BC)[:3, 3].round(12)  # p_AB + R_AB p_BC
    array([1., 1., 0.])
    """
    return _validate.pose(T_AB, "T_AB") @ _validate.pose(T_BC, "T_BC")


# ---------------------------------------------------------------------------
# Motion and force transforms
# ---------------------------------------------------------------------------


def motion_transform(T_AB):
    r"""Motion transform :math:`\mathrm{Ad}_{T_{AB}}`: re-expresses twists given in B in frame A.

    .. math:: \mathcal V_A = \begin{bmatrix} R & 0 \\ [p]R & R \end{bmatrix} \mathcal V_B,
              \qquad (R, p) = (R_{AB}, p_{AB})

    Equations :eq:`eq-motion-force-transform` and :eq:`eq-ch2-adjoint`, and
    :eq:`conv-motion-transform` of the conventions.

    Parameters
    ----------
    T_AB : (..., 4, 4) array_like
        Pose of B in A: maps point coordinates in B into A (translation in m).

    Returns
    -------
    (..., 6, 6) ndarray
        Acts on angular-first twists (omega [rad/s], v [m/s]).

    Raises
    ------
    ValueError
        If ``T_AB`` is not a finite rigid pose (orthonormal R with det +1, last row 0 0 0 1).

    Examples
    --------
    A spin of 1 rad/s about B's z axis, B's origin 1 m along A's x axis: about A's
    origin the body moves at v = p x omega = (0, -1, 0) m/s.

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> X = spatial.motion_transform(spatial.pose(np.eye(3), [1.0, 0.0, 0.0]))
    >>> X @ [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    array([ 0.,  0.,  1.,  0., -1.,  0.])
    """
    T = _validate.pose(T_AB, "T_AB")
    return _motion_transform(T[..., :3, :3], T[..., :3, 3])


def inverse_motion_transform(T_AB):
    r"""Inverse motion transform :math:`\mathrm{Ad}_{T_{AB}}^{-1} = \mathrm{Ad}_{T_{BA}}`: twists from A to B.

    .. math:: \mathcal V_B = \begin{bmatrix} R^T & 0 \\ -R^T[p] & R^T \end{bmatrix} \mathcal V_A

    The inverse of :eq:`eq-motion-force-transform`.

    Parameters
    ----------
    T_AB : (..., 4, 4) array_like
        Pose of B in A (translation in m).

    Returns
    -------
    (..., 6, 6) ndarray
        Maps angular-first twists in A coordinates to B coordinates.

    Raises
    ------
    ValueError
        If ``T_AB`` is not a finite rigid pose.

    Examples
    --------
    The twist of :func:`motion_transform`'s example, back in B: about B's origin it is a
    pure spin.

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> T_AB = spatial.pose(np.eye(3), [1.0, 0.0, 0.0])
    >>> spatial.inverse_motion_transform(T_AB) @ [0.0, 0.0, 1.0, 0.0, -1.0, 0.0]
    array([0., 0., 1., 0., 0., 0.])
    >>> T = spatial.pose(spatial.rot_z(np.radians(30)), [0.2, 0.1, 0.0])
    >>> X, X_inv = spatial.motion_transform(T), spatial.inverse_motion_transform(T)
    >>> bool(np.allclose(X_inv @ X, np.eye(6)))
    True
    """
    T = _inverse_pose(_validate.pose(T_AB, "T_AB"))
    return _motion_transform(T[..., :3, :3], T[..., :3, 3])


def force_transform(T_AB):
    r"""Force transform :math:`\mathrm{Ad}_{T_{AB}}^{-T}`: re-expresses wrenches given in B in frame A.

    .. math:: \mathcal F_A = \begin{bmatrix} R & [p]R \\ 0 & R \end{bmatrix} \mathcal F_B,
              \qquad n_A = R n_B + p \times R f_B,\quad f_A = R f_B

    It is fixed by power invariance, :math:`\mathcal F_A^T \mathcal V_A = \mathcal F_B^T \mathcal V_B`.
    Equations :eq:`eq-motion-force-transform` and :eq:`eq-ch2-wrench-transform`, and
    :eq:`conv-force-transform` and :eq:`conv-power-invariance` of the conventions.

    Parameters
    ----------
    T_AB : (..., 4, 4) array_like
        Pose of B in A (translation in m).

    Returns
    -------
    (..., 6, 6) ndarray
        Acts on moment-first wrenches (n [N m], f [N]).

    Raises
    ------
    ValueError
        If ``T_AB`` is not a finite rigid pose.

    Examples
    --------
    A 10 N force along -y acting at B's origin, 1 m along A's x axis: about A's origin
    it has the moment p x f = (0, 0, -10) N m.

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> X = spatial.force_transform(spatial.pose(np.eye(3), [1.0, 0.0, 0.0]))
    >>> X @ [0.0, 0.0, 0.0, 0.0, -10.0, 0.0]
    array([  0.,   0., -10.,   0., -10.,   0.])
    """
    T = _validate.pose(T_AB, "T_AB")
    return _force_transform(T[..., :3, :3], T[..., :3, 3])


def inverse_force_transform(T_AB):
    r"""Inverse force transform :math:`\mathrm{Ad}_{T_{AB}}^{T}`: wrenches from A to B.

    .. math:: \mathcal F_B = \mathrm{Ad}_{T_{AB}}^T \mathcal F_A

    The reverse map of :eq:`eq-ch2-wrench-transform`.

    Parameters
    ----------
    T_AB : (..., 4, 4) array_like
        Pose of B in A (translation in m).

    Returns
    -------
    (..., 6, 6) ndarray
        Maps moment-first wrenches in A coordinates to B coordinates.

    Raises
    ------
    ValueError
        If ``T_AB`` is not a finite rigid pose.

    Examples
    --------
    The wrench of :func:`force_transform`'s example, back at B's origin, where the force
    acts: no moment is left.

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> T_AB = spatial.pose(np.eye(3), [1.0, 0.0, 0.0])
    >>> spatial.inverse_force_transform(T_AB) @ [0.0, 0.0, -10.0, 0.0, -10.0, 0.0]
    array([  0.,   0.,   0.,   0., -10.,   0.])
    """
    return np.swapaxes(motion_transform(T_AB), -1, -2)


# ---------------------------------------------------------------------------
# Cross products and power
# ---------------------------------------------------------------------------


def _motion_cross(V):
    """Unvalidated :func:`motion_cross`."""
    X = np.zeros(V.shape[:-1] + (6, 6))
    w = _skew(V[..., :3])
    X[..., :3, :3] = w
    X[..., 3:, 3:] = w
    X[..., 3:, :3] = _skew(V[..., 3:])
    return X


def motion_cross(V):
    r"""Motion cross-product operator :math:`[\mathcal V\times] = \mathrm{ad}_{\mathcal V}`.

    .. math:: [\mathcal V\times] = \begin{bmatrix} [\omega] & 0 \\ [v] & [\omega] \end{bmatrix},
              \qquad [\mathcal V\times]\mathcal W = \begin{bmatrix} \omega\times\eta \\
              v\times\eta + \omega\times w \end{bmatrix}

    It acts on twists expressed in the same frame as ``V``, and
    :math:`[\mathcal V\times]\mathcal V = 0`.  Its symmetric part is
    :math:`\begin{bmatrix} 0 & [v]^T \\ [v] & 0 \end{bmatrix}`: the operator is
    skew-symmetric in the 6-D dot product exactly when :math:`v = 0` (a pure rotation
    about the origin), and not otherwise.  Equations :eq:`eq-motion_cross_matrix` and
    :eq:`eq-motion_cross_action`, and :eq:`conv-cross` of the conventions.

    Parameters
    ----------
    V : (..., 6) array_like
        Twist(s) (omega [rad/s], v [m/s]).

    Returns
    -------
    (..., 6, 6) ndarray
        The operator; its product with a twist has units of the twist times 1/s.

    Raises
    ------
    ValueError
        If ``V`` is not a finite (..., 6) array.

    Examples
    --------
    A spin of 1 rad/s about z turns a velocity along x towards y, and leaves itself alone:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> V = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    >>> spatial.motion_cross(V) @ [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    array([0., 0., 0., 0., 1., 0.])
    >>> bool(np.allclose(spatial.motion_cross(V) @ V, 0.0))
    True
    """
    return _motion_cross(_validate.trailing_shape(V, "V", (6,)))


def force_cross(V):
    r"""Force cross-product operator :math:`[\mathcal V\times^*] = -[\mathcal V\times]^T`.

    .. math:: [\mathcal V\times^*] = \begin{bmatrix} [\omega] & [v] \\ 0 & [\omega] \end{bmatrix},
              \qquad [\mathcal V\times^*]\mathcal G = \begin{bmatrix} \omega\times n + v\times f \\
              \omega\times f \end{bmatrix}

    Duality: :math:`\mathcal G^T [\mathcal V\times]\mathcal W = -([\mathcal V\times^*]\mathcal G)^T \mathcal W`
    (:eq:`eq-duality`).  Equations :eq:`eq-force_cross_matrix` and :eq:`eq-force_cross_action`,
    and :eq:`conv-cross` of the conventions.

    Parameters
    ----------
    V : (..., 6) array_like
        Twist(s) (omega [rad/s], v [m/s]).

    Returns
    -------
    (..., 6, 6) ndarray
        Acts on moment-first wrenches or momenta expressed in the frame of ``V``.

    Raises
    ------
    ValueError
        If ``V`` is not a finite (..., 6) array.

    Examples
    --------
    A spin of 1 rad/s about z turns a force along x towards y; the operator is
    :math:`-[\mathcal V\times]^T` for any twist:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> spatial.force_cross([0.0, 0.0, 1.0, 0.0, 0.0, 0.0]) @ [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    array([0., 0., 0., 0., 1., 0.])
    >>> V = [0.1, 0.2, 0.3, 1.0, 2.0, 3.0]
    >>> bool(np.allclose(spatial.force_cross(V), -spatial.motion_cross(V).T))
    True
    """
    return -np.swapaxes(motion_cross(V), -1, -2)


def power(F, V):
    r"""Power of a wrench on a twist, :math:`P = \mathcal F^T \mathcal V` (W).

    .. math:: P = n^T \omega + f^T v

    Both arguments must be expressed about the same origin in the same axes; the
    result is then independent of that choice.  Equation :eq:`eq-power`, and
    :eq:`conv-six-vectors` of the conventions.

    Parameters
    ----------
    F : (..., 6) array_like
        Wrench(es), moment-first (n [N m], f [N]).
    V : (..., 6) array_like
        Twist(s), angular-first (omega [rad/s], v [m/s]).

    Returns
    -------
    ndarray or float
        Power in W, with the broadcast leading shape.

    Raises
    ------
    ValueError
        If either argument is not a finite (..., 6) array.

    Examples
    --------
    A torque of 2 N m about z on a spin of 3 rad/s about z, plus a force of 1 N along x
    on a velocity of 0.5 m/s along x:

    >>> from geomotion import spatial
    >>> float(spatial.power([0.0, 0.0, 2.0, 1.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.5, 0.0, 0.0]))
    6.5
    """
    F = _validate.trailing_shape(F, "F", (6,))
    V = _validate.trailing_shape(V, "V", (6,))
    return np.einsum("...i,...i->...", F, V)
