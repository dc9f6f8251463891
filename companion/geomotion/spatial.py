r"""Spatial vector algebra: poses, twists, wrenches and the operators between them.

Conventions (the book's coordinate contract):

* Motion vectors (twists) are angular-first, :math:`\mathcal V = (\omega, v)`, with
  :math:`\omega` in rad/s and :math:`v` in m/s.  Force vectors (wrenches) are
  moment-first, :math:`\mathcal F = (n, f)`, with :math:`n` in N m and :math:`f` in N.
* A pose ``T_AB`` is a 4x4 homogeneous matrix that maps point coordinates in frame B
  into frame A, :math:`r_A = R_{AB} r_B + p_{AB}`; :math:`p_{AB}` (m) locates B's
  origin in A.  Function and variable names carry this direction.
* Every function broadcasts over leading axes: a ``(..., 6)`` stack of twists is
  handled in one call.
"""

import math
import warnings

import numpy as np

from . import _validate

__all__ = [
    "AngleWarning",
    "skew",
    "rot_x",
    "rot_y",
    "rot_z",
    "pose",
    "inverse_pose",
    "compose_poses",
    "motion_transform",
    "inverse_motion_transform",
    "force_transform",
    "inverse_force_transform",
    "motion_cross",
    "force_cross",
    "power",
    "plucker_line",
    "same_line",
    "screw_axis",
    "wrench_axis",
    "exp_twist",
    "log_pose",
    "planar_embedding",
    "planar_motion_cross",
    "planar_force_cross",
]


# ---------------------------------------------------------------------------
# 3-vectors and rotations
# ---------------------------------------------------------------------------


def _skew(a):
    """Unvalidated :func:`skew` for internal use on trusted float arrays."""
    S = np.zeros(a.shape[:-1] + (3, 3))
    S[..., 0, 1] = -a[..., 2]
    S[..., 0, 2] = a[..., 1]
    S[..., 1, 0] = a[..., 2]
    S[..., 1, 2] = -a[..., 0]
    S[..., 2, 0] = -a[..., 1]
    S[..., 2, 1] = a[..., 0]
    return S


def _vee(S):
    """Inverse of :func:`_skew` applied to the antisymmetric part: (..., 3, 3) -> (..., 3)."""
    return 0.5 * np.stack(
        [S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]],
        axis=-1,
    )


def skew(a):
    r"""Cross-product matrix :math:`[a]`, so that :math:`[a]\,b = a \times b`.

    .. math:: [a] = \begin{bmatrix} 0 & -a_3 & a_2 \\ a_3 & 0 & -a_1 \\ -a_2 & a_1 & 0 \end{bmatrix}

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
    """An angle of more than one turn passed to ``rot_x``/``rot_y``/``rot_z``: degrees, perhaps."""


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


def _pose(R, p):
    """Unvalidated :func:`pose`."""
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def pose(R, p):
    r"""Homogeneous pose :math:`T_{AB}` from rotation :math:`R_{AB}` and offset :math:`p_{AB}`.

    .. math:: T_{AB} = \begin{bmatrix} R_{AB} & p_{AB} \\ 0 & 1 \end{bmatrix},\qquad
              r_A = R_{AB} r_B + p_{AB}

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


def _inverse_pose(T):
    """Unvalidated :func:`inverse_pose`."""
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return _pose(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def inverse_pose(T_AB):
    r"""Inverse pose :math:`T_{BA} = T_{AB}^{-1}`, computed from the rigid structure.

    .. math:: T_{BA} = \begin{bmatrix} R_{AB}^T & -R_{AB}^T p_{AB} \\ 0 & 1 \end{bmatrix}

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


def _motion_transform(R, p):
    """Unvalidated :func:`motion_transform` from a rotation and an offset."""
    X = np.zeros(np.broadcast_shapes(R.shape[:-2], p.shape[:-1]) + (6, 6))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., 3:, :3] = _skew(p) @ R
    return X


def _force_transform(R, p):
    """Unvalidated :func:`force_transform` from a rotation and an offset."""
    X = np.zeros(np.broadcast_shapes(R.shape[:-2], p.shape[:-1]) + (6, 6))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., :3, 3:] = _skew(p) @ R
    return X


def motion_transform(T_AB):
    r"""Motion transform :math:`\mathrm{Ad}_{T_{AB}}`: re-expresses twists given in B in frame A.

    .. math:: \mathcal V_A = \begin{bmatrix} R & 0 \\ [p]R & R \end{bmatrix} \mathcal V_B,
              \qquad (R, p) = (R_{AB}, p_{AB})

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
    about the origin), and not otherwise.

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

    Duality: :math:`\mathcal G^T [\mathcal V\times]\mathcal W = -([\mathcal V\times^*]\mathcal G)^T \mathcal W`.

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
    result is then independent of that choice.

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


# ---------------------------------------------------------------------------
# Lines, screws and wrench axes
# ---------------------------------------------------------------------------


def plucker_line(direction, point):
    r"""Plücker coordinates :math:`(d, m)` of the line through ``point`` along ``direction``.

    .. math:: m = r \times d, \qquad d^T m = 0, \qquad (d, m) \sim (\lambda d, \lambda m)

    Any other point :math:`r + s d` on the line gives the same moment :math:`m`.

    Parameters
    ----------
    direction : (..., 3) array_like
        Nonzero direction :math:`d` (any length; its scale is kept).
    point : (..., 3) array_like
        A point :math:`r` on the line, in m.

    Returns
    -------
    (..., 6) ndarray
        ``(d, m)``; ``m`` has the units of ``d`` times m.

    Raises
    ------
    ValueError
        If ``direction`` is zero or either argument is malformed.

    Examples
    --------
    The vertical line through (1, 0, 0) m; another of its points gives the same moment:

    >>> from geomotion import spatial
    >>> spatial.plucker_line([0.0, 0.0, 1.0], [1.0, 0.0, 0.0])  # m = r x d = (0, -1, 0)
    array([ 0.,  0.,  1.,  0., -1.,  0.])
    >>> spatial.plucker_line([0.0, 0.0, 1.0], [1.0, 0.0, 5.0])
    array([ 0.,  0.,  1.,  0., -1.,  0.])
    """
    d = _validate.trailing_shape(direction, "direction", (3,))
    r = _validate.trailing_shape(point, "point", (3,))
    if np.any(np.linalg.norm(d, axis=-1) == 0):
        raise ValueError("direction: expected a nonzero vector, got a zero direction")
    d, r = np.broadcast_arrays(d, r)
    return np.concatenate([d, np.einsum("...ij,...j->...i", _skew(r), d)], axis=-1)


def same_line(L1, L2, oriented=False, rtol=1e-9):
    r"""Whether two Plücker coordinate vectors describe the same geometric line.

    Lines are equal when their coordinates are proportional,
    :math:`(d_2, m_2) = \lambda (d_1, m_1)` with :math:`\lambda \ne 0`; an oriented
    line additionally requires :math:`\lambda > 0`.

    Parameters
    ----------
    L1, L2 : (..., 6) array_like
        Plücker coordinates ``(d, m)`` with ``d != 0`` and ``d . m = 0``.
    oriented : bool
        If True, opposite directions count as different lines.
    rtol : float
        Tolerance on the normalized coordinates (m is compared in m).

    Returns
    -------
    ndarray of bool
        One entry per broadcast line pair.

    Raises
    ------
    ValueError
        If an argument has a zero direction or violates :math:`d^T m = 0`
        beyond ``rtol`` (it would not be a line).

    Examples
    --------
    >>> from geomotion import spatial
    >>> L1 = spatial.plucker_line([0.0, 0.0, 1.0], [1.0, 0.0, 0.0])
    >>> L2 = spatial.plucker_line([0.0, 0.0, -2.0], [1.0, 0.0, 5.0])  # reversed, rescaled
    >>> bool(spatial.same_line(L1, L2)), bool(spatial.same_line(L1, L2, oriented=True))
    (True, False)
    """
    normalized = []
    for name, L in (("L1", L1), ("L2", L2)):
        L = _validate.trailing_shape(L, name, (6,))
        scale = np.linalg.norm(L[..., :3], axis=-1, keepdims=True)
        if np.any(scale == 0):
            raise ValueError(f"{name}: expected a nonzero direction block, got d = 0")
        L = L / scale
        if np.any(
            np.abs(np.einsum("...i,...i->...", L[..., :3], L[..., 3:]))
            > rtol * (1 + np.linalg.norm(L[..., 3:], axis=-1))
        ):
            raise ValueError(f"{name}: expected line coordinates with d . m = 0, got d . m != 0")
        normalized.append(L)
    A, B = np.broadcast_arrays(*normalized)
    tolerance = rtol * (1 + np.maximum(np.linalg.norm(A, axis=-1), np.linalg.norm(B, axis=-1)))
    same = np.linalg.norm(A - B, axis=-1) <= tolerance
    if not oriented:
        same |= np.linalg.norm(A + B, axis=-1) <= tolerance
    return same


def _axis_of_pair(angular, linear, angular_name):
    """Shared geometry of screw and wrench axes: pitch, closest point and direction.

    For a pair (a, b) with a != 0: pitch a.b/|a|^2, axis point a x b/|a|^2 (for a
    twist, a = omega, b = v; for a wrench the roles are f and n, see callers).
    Where a = 0 and b != 0 the pitch is infinite and the direction is b/|b|.
    """
    a2 = np.einsum("...i,...i->...", angular, angular)
    b2 = np.einsum("...i,...i->...", linear, linear)
    if np.any((a2 == 0) & (b2 == 0)):
        raise ValueError(f"{angular_name}: expected a nonzero six-vector, got all zeros")
    finite = a2 > 0
    safe = np.where(finite, a2, 1.0)
    pitch = np.where(finite, np.einsum("...i,...i->...", angular, linear) / safe, np.inf)
    point = np.where(finite[..., None], np.cross(angular, linear) / safe[..., None], 0.0)
    norm = np.sqrt(np.where(finite, a2, b2))
    direction = np.where(finite[..., None], angular, linear) / norm[..., None]
    return pitch[()], point, direction  # [()] gives a scalar, not a 0-d array, for one vector


def screw_axis(V):
    r"""Screw axis of a twist: pitch, closest point to the origin, and unit direction.

    For :math:`\omega \ne 0`,

    .. math:: h = \frac{\omega^T v}{\|\omega\|^2},\qquad
              r_\perp = \frac{\omega \times v}{\|\omega\|^2},\qquad
              v = r_\perp \times \omega + h\,\omega .

    Points on the axis move with velocity :math:`h\omega` along it.  A pure
    translation (:math:`\omega = 0`, :math:`v \ne 0`) has infinite pitch and no
    unique axis: it is reported as ``pitch = inf``, ``direction = v/|v|`` and the
    parallel line through the origin, ``point = 0``.

    Parameters
    ----------
    V : (..., 6) array_like
        Twist(s), angular-first (omega [rad/s], v [m/s]), about the frame origin.

    Returns
    -------
    pitch : ndarray
        :math:`h` in m/rad (``inf`` for pure translation).
    point : (..., 3) ndarray
        Point of the axis closest to the origin, in m.
    direction : (..., 3) ndarray
        Unit vector along :math:`\omega` (or :math:`v` for pure translation).

    Raises
    ------
    ValueError
        If ``V`` is malformed or is the zero twist, which determines no axis.

    Examples
    --------
    A turn of 2 rad/s about the vertical line through (0, 1, 0) m, advancing 0.1 m per
    rad along it: :math:`v = r\times\omega + h\omega = (2, 0, 0.2)` m/s.

    >>> from geomotion import spatial
    >>> pitch, point, direction = spatial.screw_axis([0.0, 0.0, 2.0, 2.0, 0.0, 0.2])
    >>> float(pitch.round(6)), point.round(12), direction.round(12)
    (0.1, array([0., 1., 0.]), array([0., 0., 1.]))
    """
    V = _validate.trailing_shape(V, "V", (6,))
    return _axis_of_pair(V[..., :3], V[..., 3:], "V")


def wrench_axis(F):
    r"""Central axis of a wrench: residual pitch, closest point, and unit direction.

    For :math:`f \ne 0`,

    .. math:: h_F = \frac{f^T n}{\|f\|^2},\qquad r_\perp = \frac{f \times n}{\|f\|^2},

    and about any point of the axis the moment reduces to :math:`h_F f`.  A single
    force has :math:`h_F = 0`.  A pure couple (:math:`f = 0`) is a free vector: it
    is reported as ``pitch = inf``, ``direction = n/|n|`` and ``point = 0``.

    Parameters
    ----------
    F : (..., 6) array_like
        Wrench(es), moment-first (n [N m], f [N]), about the frame origin.

    Returns
    -------
    pitch : ndarray
        :math:`h_F` in m (``inf`` for a pure couple).
    point : (..., 3) ndarray
        Point of the central axis closest to the origin, in m.
    direction : (..., 3) ndarray
        Unit vector along :math:`f` (or :math:`n` for a pure couple).

    Raises
    ------
    ValueError
        If ``F`` is malformed or is the zero wrench.

    Examples
    --------
    A single force of 10 N along -y through (1, 0, 0) m, reported about the origin
    (moment (0, 0, -10) N m): its central axis is its line of action, with pitch 0.

    >>> from geomotion import spatial
    >>> pitch, point, direction = spatial.wrench_axis([0.0, 0.0, -10.0, 0.0, -10.0, 0.0])
    >>> float(pitch), point.round(12), direction.round(12)
    (0.0, array([1., 0., 0.]), array([ 0., -1.,  0.]))
    """
    F = _validate.trailing_shape(F, "F", (6,))
    return _axis_of_pair(F[..., 3:], F[..., :3], "F")


# ---------------------------------------------------------------------------
# Exponential and logarithm
# ---------------------------------------------------------------------------

#: Below this angle (rad) :math:`(\theta - \sin\theta)/\theta^3` is summed from its
#: Taylor series (see :func:`_exp_coefficients`).
_SERIES_ANGLE = 1.0

#: Taylor coefficients :math:`(-1)^k/(2k+3)!` of :math:`(\theta - \sin\theta)/\theta^3`
#: in powers of :math:`\theta^2`, k = 0..8; the first omitted term, :math:`\theta^{18}/21!`,
#: is below 2e-20 (1.3e-19 of the sum) for :math:`\theta < 1`.
_THETA_MINUS_SIN_SERIES = tuple((-1) ** k / math.factorial(2 * k + 3) for k in range(9))


def _sinc(theta):
    """sin(theta)/theta for theta >= 0, with its limit 1 at 0; no cancellation anywhere."""
    positive = theta > 0
    safe = np.where(positive, theta, 1.0)
    return np.where(positive, np.sin(safe) / safe, 1.0)


def _exp_coefficients(theta):
    r"""Coefficients :math:`a = \sin\theta/\theta`, :math:`b = (1-\cos\theta)/\theta^2`,
    :math:`c = (\theta-\sin\theta)/\theta^3` of the twist exponential, for :math:`\theta \ge 0`.

    Each is evaluated in a form without cancellation: :math:`a` directly;
    :math:`b = \tfrac12 a(\theta/2)^2` from :math:`1 - \cos\theta = 2\sin^2(\theta/2)`;
    :math:`c` from its Taylor series below ``_SERIES_ANGLE`` = 1 rad and directly above,
    where :math:`\theta - \sin\theta` is at least 1/5.3 of :math:`\sin\theta`.
    Measured against 80-digit decimal arithmetic for 1e-9 <= theta <= pi (test_spatial.py):
    relative errors of at most 1.0, 1.7 and 1.6 units of 2^-52 for a, b and c, and 3.0
    for the coefficient of :func:`log_pose` built from them at the half angle.
    """
    a = _sinc(theta)
    b = 0.5 * _sinc(0.5 * theta) ** 2
    series = theta < _SERIES_ANGLE
    safe = np.where(series, 1.0, theta)
    t2 = theta * theta
    power_sum = np.zeros_like(t2)
    for coefficient in reversed(_THETA_MINUS_SIN_SERIES):  # Horner in theta^2
        power_sum = power_sum * t2 + coefficient
    c = np.where(series, power_sum, (safe - np.sin(safe)) / safe**3)
    return a, b, c


def exp_twist(xi):
    r"""Pose reached by following a unit-time twist: :math:`T = \exp([\xi])`.

    With :math:`\xi = (\omega, v)`, :math:`\theta = \|\omega\|` and :math:`W = [\omega]`,

    .. math:: R = I + \frac{\sin\theta}{\theta} W + \frac{1-\cos\theta}{\theta^2} W^2,\qquad
              p = \Big(I + \frac{1-\cos\theta}{\theta^2} W + \frac{\theta-\sin\theta}{\theta^3} W^2\Big) v .

    The coefficients are evaluated without cancellation (half-angle forms, and a
    Taylor series for :math:`(\theta-\sin\theta)/\theta^3` below 1 rad), so they keep
    full double precision at every angle and arbitrarily small rotations (1e-9 rad,
    say) are kept, never rounded to a pure translation.
    In a tree, ``exp_twist(S * q)`` is the joint motion of a constant screw ``S``.

    Parameters
    ----------
    xi : (..., 6) array_like
        Exponential coordinates (omega [rad], v [m]), i.e. a twist times a time.

    Returns
    -------
    (..., 4, 4) ndarray
        The pose ``T_AB`` of the moved frame B in the original frame A.

    Raises
    ------
    ValueError
        If ``xi`` is not a finite (..., 6) array.

    Examples
    --------
    A quarter turn about the vertical line through (1, 0, 0) m
    (:math:`v = r\times\omega`): the origin swings round to (1, -1, 0).

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> theta = np.radians(90)
    >>> T = spatial.exp_twist([0.0, 0.0, theta, 0.0, -theta, 0.0])
    >>> T[:3, 3].round(12)
    array([ 1., -1.,  0.])
    """
    xi = _validate.trailing_shape(xi, "xi", (6,))
    w, v = xi[..., :3], xi[..., 3:]
    theta = np.linalg.norm(w, axis=-1)
    a, b, c = _exp_coefficients(theta)
    W = _skew(w)
    W2 = W @ W
    eye = np.eye(3)
    R = eye + a[..., None, None] * W + b[..., None, None] * W2
    V = eye + b[..., None, None] * W + c[..., None, None] * W2
    return _pose(R, np.einsum("...ij,...j->...i", V, v))


def _rotation_log(R):
    """Rotation vector omega (rad) with |omega| in [0, pi] and exp([omega]) = R."""
    axial = _vee(R)  # = sin(theta) * unit axis
    sin_theta = np.linalg.norm(axial, axis=-1)
    cos_theta = 0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0)
    theta = np.arctan2(sin_theta, cos_theta)
    # omega = theta * axial / |axial|: both factors carry full relative precision even for
    # tiny angles, so no series is needed; sin_theta = 0 means theta = 0 (omega = 0) or pi
    # (decided by the near-pi branch below).
    safe_sin = np.where(sin_theta > 0, sin_theta, 1.0)
    omega = (theta / safe_sin)[..., None] * axial
    # Near pi, sin(theta) carries no accuracy: read the axis off the symmetric part,
    # (R + R^T)/2 - cos(theta) I = (1 - cos(theta)) u u^T, and take the sign from axial.
    near_pi = cos_theta < -0.99
    if np.any(near_pi):
        S = 0.5 * (R + np.swapaxes(R, -1, -2)) - cos_theta[..., None, None] * np.eye(3)
        diag = np.diagonal(S, axis1=-2, axis2=-1)
        column = np.take_along_axis(S, np.argmax(diag, axis=-1)[..., None, None], axis=-1)[..., 0]
        u = column / np.linalg.norm(column, axis=-1, keepdims=True)
        sign = np.where(np.einsum("...i,...i->...", u, axial) < 0, -1.0, 1.0)
        omega = np.where(near_pi[..., None], (sign * theta)[..., None] * u, omega)
    return omega, theta


def log_pose(T):
    r"""Exponential coordinates of a pose: the inverse of :func:`exp_twist`.

    With :math:`\omega = \log R` (:math:`\|\omega\| = \theta \in [0, \pi]`) and :math:`W = [\omega]`,

    .. math:: v = \Big(I - \tfrac12 W + d(\theta)\, W^2\Big) p ,\qquad
              d(\theta) = \frac{1}{\theta^2}\Big(1 - \frac{\theta\sin\theta}{2(1-\cos\theta)}\Big)
              = \frac{b(\theta/2) - c(\theta/2)}{4\,a(\theta/2)},

    where :math:`a, b, c` are the coefficients of :func:`exp_twist` at the half angle
    (from :math:`\sin\theta = 2\sin\tfrac\theta2\cos\tfrac\theta2` and
    :math:`1 - \cos\theta = 2\sin^2\tfrac\theta2`).  This form loses at most a factor 2
    to cancellation (:math:`b \approx 1/2`, :math:`c \approx 1/6`) and tends smoothly to
    :math:`d(0) = 1/12` with no cut-off; the rotation axis is read from the symmetric part
    of :math:`R` near :math:`\theta = \pi`.

    Parameters
    ----------
    T : (..., 4, 4) array_like
        Rigid pose(s) ``T_AB`` (translation in m).

    Returns
    -------
    (..., 6) ndarray
        ``xi = (omega [rad], v [m])`` with ``exp_twist(xi) == T``.

    Raises
    ------
    ValueError
        If ``T`` is not a finite rigid pose.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import spatial
    >>> theta = np.radians(90)
    >>> T = spatial.exp_twist([0.0, 0.0, theta, 0.0, -theta, 0.0])
    >>> bool(np.allclose(spatial.log_pose(T), [0.0, 0.0, theta, 0.0, -theta, 0.0]))
    True
    >>> spatial.log_pose(spatial.pose(np.eye(3), [0.1, 0.2, 0.3])).round(12)  # translation: v = p
    array([0. , 0. , 0. , 0.1, 0.2, 0.3])
    """
    T = _validate.pose(T, "T")
    omega, theta = _rotation_log(T[..., :3, :3])
    a, b, c = _exp_coefficients(0.5 * theta)
    d = (b - c) / (4 * a)  # b ~ 1/2 and c ~ 1/6: the difference loses at most a factor 2
    W = _skew(omega)
    V_inv = np.eye(3) - 0.5 * W + d[..., None, None] * (W @ W)
    return np.concatenate([omega, np.einsum("...ij,...j->...i", V_inv, T[..., :3, 3])], axis=-1)


# ---------------------------------------------------------------------------
# Planar restriction
# ---------------------------------------------------------------------------


def planar_embedding():
    r"""Embedding :math:`E = [e_3\ e_4\ e_5]` of planar motion :math:`\nu = (\omega_z, v_x, v_y)`.

    Motion restricts as :math:`\mathcal V = E\nu`, forces by the dual map
    :math:`E^T\mathcal F = (n_z, f_x, f_y)`, which keeps power:
    :math:`\mathcal F^T E \nu = (E^T\mathcal F)^T \nu`.

    Returns
    -------
    (6, 3) ndarray
        Columns are the 6-D angular-first unit vectors of ``omega_z``, ``v_x``, ``v_y``.

    Examples
    --------
    >>> from geomotion import spatial
    >>> E = spatial.planar_embedding()
    >>> E @ [2.0, 0.5, 0.0]  # omega_z = 2 rad/s, v_x = 0.5 m/s as a 6-D twist
    array([0. , 0. , 2. , 0.5, 0. , 0. ])
    >>> E.T @ [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]  # a wrench's planar part (n_z, f_x, f_y)
    array([3., 4., 5.])
    """
    E = np.zeros((6, 3))
    E[2, 0] = E[3, 1] = E[4, 2] = 1.0
    return E


def planar_motion_cross(nu):
    r"""Planar motion cross product :math:`[\nu\times]_p = E^T [E\nu\times] E`.

    .. math:: [\nu\times]_p = \begin{bmatrix} 0 & 0 & 0 \\ v_y & 0 & -\omega_z \\
              -v_x & \omega_z & 0 \end{bmatrix}

    Parameters
    ----------
    nu : (..., 3) array_like
        Planar twist(s) (omega_z [rad/s], v_x [m/s], v_y [m/s]).

    Returns
    -------
    (..., 3, 3) ndarray
        The restricted operator; its first row is zero because planar angular
        velocities about parallel z axes commute.

    Raises
    ------
    ValueError
        If ``nu`` is not a finite (..., 3) array.

    Examples
    --------
    As in 3-D, a spin of 1 rad/s turns a velocity along x towards y:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> spatial.planar_motion_cross([1.0, 0.0, 0.0]) @ [0.0, 1.0, 0.0]
    array([0., 0., 1.])
    >>> nu, E = [1.0, 0.5, -0.2], spatial.planar_embedding()
    >>> bool(np.allclose(spatial.planar_motion_cross(nu), E.T @ spatial.motion_cross(E @ nu) @ E))
    True
    """
    nu = _validate.trailing_shape(nu, "nu", (3,))
    E = planar_embedding()
    return E.T @ _motion_cross(nu @ E.T) @ E


def planar_force_cross(nu):
    r"""Planar force cross product :math:`[\nu\times^*]_p = -[\nu\times]_p^T`.

    Parameters
    ----------
    nu : (..., 3) array_like
        Planar twist(s) (omega_z [rad/s], v_x [m/s], v_y [m/s]).

    Returns
    -------
    (..., 3, 3) ndarray
        Acts on planar wrenches (n_z [N m], f_x [N], f_y [N]).

    Raises
    ------
    ValueError
        If ``nu`` is not a finite (..., 3) array.

    Examples
    --------
    A spin of 1 rad/s turns a force along x towards y; duality with
    :func:`planar_motion_cross` holds for any planar twists and wrench:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> spatial.planar_force_cross([1.0, 0.0, 0.0]) @ [0.0, 1.0, 0.0]
    array([0., 0., 1.])
    >>> nu, mu, F = [1.0, 0.5, -0.2], [0.3, -1.0, 2.0], [0.5, 1.5, -2.0]
    >>> lhs = F @ spatial.planar_motion_cross(nu) @ mu
    >>> bool(np.isclose(lhs, -(spatial.planar_force_cross(nu) @ F) @ mu))
    True
    """
    return -np.swapaxes(planar_motion_cross(nu), -1, -2)
