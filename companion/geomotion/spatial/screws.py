"""Lines, screws and wrench axes; the exponential of a twist and the logarithm of a pose."""

import math
from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._kernels import _pose, _skew, _vee

# ---------------------------------------------------------------------------
# Lines, screws and wrench axes
# ---------------------------------------------------------------------------


def plucker_line(direction, point):
    r"""Plücker coordinates :math:`(d, m)` of the line through ``point`` along ``direction``.

    .. math:: m = r \times d, \qquad d^T m = 0, \qquad (d, m) \sim (\lambda d, \lambda m)

    Any other point :math:`r + s d` on the line gives the same moment :math:`m`.
    Equation :eq:`eq-plucker`.

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


def same_line(L1, L2, *, oriented=False, rtol=1e-9):
    r"""Whether two Plücker coordinate vectors describe the same geometric line.

    Lines are equal when their coordinates are proportional,
    :math:`(d_2, m_2) = \lambda (d_1, m_1)` with :math:`\lambda \ne 0`; an oriented
    line additionally requires :math:`\lambda > 0` (equation :eq:`eq-plucker`).

    Parameters
    ----------
    L1, L2 : (..., 6) array_like
        Plücker coordinates ``(d, m)`` with ``d != 0`` and ``d . m = 0``.
    oriented : bool, optional, keyword only
        If True, opposite directions count as different lines.  Default False.
    rtol : float, optional, keyword only
        Relative tolerance, default 1e-9: after each line is scaled to a unit direction,
        two lines are the same when their coordinates differ by at most ``rtol`` times
        ``1 + |L|`` (the moment block is then in m); the same bound tests
        :math:`d^T m = 0`.

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


@dataclass(frozen=True)
class ScrewAxis:
    r"""The axis of a twist (:func:`screw_axis`) or the central axis of a wrench (:func:`wrench_axis`).

    Read the fields by name (``axis.pitch``); the result does not unpack like a tuple.
    Leading axes of the twists or wrenches are kept.

    Attributes
    ----------
    pitch : ndarray
        For a twist, :math:`h = \omega^T v/\|\omega\|^2` in m/rad (``inf`` for a pure
        translation); for a wrench, :math:`h_F = f^T n/\|f\|^2` in m (``inf`` for a pure
        couple).  A NumPy scalar for a single twist or wrench.
    point : (..., 3) ndarray
        Point of the axis closest to the origin, in m (0 when the pitch is infinite).
    direction : (..., 3) ndarray
        Unit vector along the axis: along :math:`\omega` (twist) or :math:`f` (wrench), or
        along :math:`v` or :math:`n` when the pitch is infinite.
    """

    pitch: np.ndarray
    point: np.ndarray
    direction: np.ndarray


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
    # [()] gives a scalar, not a 0-d array, for one vector
    return ScrewAxis(pitch=pitch[()], point=point, direction=direction)


def screw_axis(V):
    r"""Screw axis of a twist: pitch, closest point to the origin, and unit direction.

    For :math:`\omega \ne 0`,

    .. math:: h = \frac{\omega^T v}{\|\omega\|^2},\qquad
              r_\perp = \frac{\omega \times v}{\|\omega\|^2},\qquad
              v = r_\perp \times \omega + h\,\omega .

    Equation :eq:`eq-screw-axis`, and :eq:`conv-screw` of the conventions.  Points on
    the axis move with velocity :math:`h\omega` along it.  A pure translation
    (:math:`\omega = 0`, :math:`v \ne 0`) has infinite pitch and no unique axis: it is
    reported as ``pitch = inf``, ``direction = v/|v|`` and the parallel line through the
    origin, ``point = 0``.

    Parameters
    ----------
    V : (..., 6) array_like
        Twist(s), angular-first (omega [rad/s], v [m/s]), about the frame origin.

    Returns
    -------
    ScrewAxis
        ``pitch`` :math:`h` in m/rad (``inf`` for pure translation), ``point`` of the axis
        closest to the origin in m, unit ``direction`` along :math:`\omega` (or
        :math:`v` for pure translation).

    Raises
    ------
    ValueError
        If ``V`` is malformed or is the zero twist, which determines no axis.

    Examples
    --------
    A turn of 2 rad/s about the vertical line through (0, 1, 0) m, advancing 0.1 m per
    rad along it: :math:`v = r\times\omega + h\omega = (2, 0, 0.2)` m/s.

    >>> from geomotion import spatial
    >>> axis = spatial.screw_axis([0.0, 0.0, 2.0, 2.0, 0.0, 0.2])
    >>> float(axis.pitch.round(6)), axis.point.round(12), axis.direction.round(12)
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
    ScrewAxis
        ``pitch`` :math:`h_F` in m (``inf`` for a pure couple), ``point`` of the central
        axis closest to the origin in m, unit ``direction`` along :math:`f` (or :math:`n`
        for a pure couple).

    Raises
    ------
    ValueError
        If ``F`` is malformed or is the zero wrench.

    Examples
    --------
    A single force of 10 N along -y through (1, 0, 0) m, reported about the origin
    (moment (0, 0, -10) N m): its central axis is its line of action, with pitch 0.

    >>> from geomotion import spatial
    >>> axis = spatial.wrench_axis([0.0, 0.0, -10.0, 0.0, -10.0, 0.0])
    >>> float(axis.pitch), axis.point.round(12), axis.direction.round(12)
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
    Equation :eq:`eq-ch2-twist-exponential`, and :eq:`conv-exp` of the conventions.

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
    of :math:`R` near :math:`\theta = \pi`.  It inverts :eq:`eq-ch2-twist-exponential`
    (conventions :eq:`conv-exp`).

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
