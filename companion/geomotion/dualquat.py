r"""Unit dual quaternions as rigid poses: conversion, product, constraints, local DOF.

Conventions (stated because every one of them is a choice):

* Quaternions use the **Hamilton** product, :math:`ij = k`, and are stored
  **scalar-first**, ``(w, x, y, z)``.  A unit quaternion :math:`q` rotates a vector
  by :math:`v' = q\,v\,q^*` (with :math:`v` embedded as the pure quaternion
  :math:`(0, v)`), so :math:`q = (\cos\tfrac\theta2, \sin\tfrac\theta2\,u)` is the
  active rotation :math:`R = \exp(\theta[u])`, the same matrix as :func:`spatial.rot_z`
  and friends.
* A dual quaternion :math:`\hat q = q_r + \epsilon q_d` (:math:`\epsilon^2 = 0`) is
  stored as 8 numbers ``(q_r, q_d)``: ``dq[..., :4]`` is the real part, ``dq[..., 4:]``
  the dual part, each scalar-first.
* The pose :math:`T_{AB} = (R_{AB}, p_{AB})` of :mod:`geomotion.spatial` (mapping B
  coordinates into A) is represented by

  .. math:: q_r \leftrightarrow R_{AB},\qquad q_d = \tfrac12\,p\,q_r,\qquad p = (0, p_{AB}),

  i.e. translation is applied **after** rotation, :math:`T_{AB} = \mathrm{Trans}(p_{AB})
  \,\mathrm{Rot}(q_r)`; the offset is recovered as :math:`p = 2\,q_d\,q_r^*`.
* Unit dual quaternions satisfy two scalar constraints,
  :math:`q_r^T q_r = 1` and :math:`q_r^T q_d = 0`; :math:`\hat q` and :math:`-\hat q`
  are the same pose.  The constraint set is a 6-dimensional manifold in
  :math:`\mathbb R^8`, not a vector space: the sum of two unit dual quaternions is in
  general not a unit dual quaternion (see :func:`constraint_residuals`), and a
  6-component velocity is a tangent object, not a dual quaternion.

Every function broadcasts over leading axes.
"""

import numpy as np

from . import _validate
from ._kernels import _pose, _qconj, _qmul, _quaternion_to_rotation, _rotation_to_quaternion

__all__ = [
    "identity",
    "from_pose",
    "to_pose",
    "product",
    "conjugate",
    "constraint_residuals",
    "constraint_jacobian",
    "is_unit",
    "same_pose",
    "local_degrees_of_freedom",
]

#: Default absolute tolerance on the two constraint residuals for an 8-vector to count as
#: a unit dual quaternion (the dual-part residual has units of m, so this is 1e-9 m there).
_UNIT_ATOL = 1e-9


def _residuals(dq):
    qr, qd = dq[..., :4], dq[..., 4:]
    return np.stack([np.sum(qr * qr, axis=-1) - 1.0, np.sum(qr * qd, axis=-1)], axis=-1)


def _dual_quaternion(value, name):
    return _validate.trailing_shape(value, name, (8,))


def _unit_dual_quaternion(value, name, atol):
    dq = _dual_quaternion(value, name)
    worst = np.abs(_residuals(dq)).max(initial=0.0)
    if worst > atol:
        raise ValueError(
            f"{name}: expected a unit dual quaternion (q_r.q_r = 1 and q_r.q_d = 0 within "
            f"{atol:g}), got a constraint residual of {worst:.3g}"
        )
    return dq


# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------


def identity(*, shape=()):
    r"""The identity pose as a dual quaternion, :math:`\hat q = (1, 0, 0, 0) + \epsilon\,0`.

    Parameters
    ----------
    shape : tuple of int, optional, keyword only
        Leading shape of the returned stack (non-negative integers); default ``()``, a
        single ``(8,)`` vector.

    Returns
    -------
    (..., 8) ndarray
        ``(1, 0, 0, 0, 0, 0, 0, 0)`` repeated over ``shape``.

    Raises
    ------
    ValueError
        If ``shape`` is not a tuple of non-negative integers.
    """
    shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if not isinstance(shape, tuple) or not all(
        isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        raise ValueError(f"shape: expected a tuple of non-negative integers, got {shape!r}")
    dq = np.zeros(shape + (8,))
    dq[..., 0] = 1.0
    return dq


def from_pose(T_AB):
    r"""Unit dual quaternion of a rigid pose :math:`T_{AB}`.

    .. math:: q_r \leftrightarrow R_{AB},\qquad q_d = \tfrac12\,(0, p_{AB})\,q_r

    (Hamilton product, scalar-first; translation applied after rotation.)  Of the two
    representatives :math:`\pm\hat q` of the pose, the one with :math:`w \ge 0` in the
    real part is returned; for a half-turn (:math:`w = 0`) either may come back.

    Parameters
    ----------
    T_AB : (..., 4, 4) array_like
        Pose of B in A: maps point coordinates in B into A (translation in m).

    Returns
    -------
    (..., 8) ndarray
        ``(q_r, q_d)``; ``q_r`` is dimensionless, ``q_d`` is in m.

    Raises
    ------
    ValueError
        If ``T_AB`` is not a finite rigid pose (orthonormal R with det +1, last row 0 0 0 1).
    """
    T = _validate.pose(T_AB, "T_AB")
    qr = _rotation_to_quaternion(T[..., :3, :3])
    p = np.concatenate([np.zeros(T.shape[:-2] + (1,)), T[..., :3, 3]], axis=-1)
    return np.concatenate([qr, 0.5 * _qmul(p, qr)], axis=-1)


def to_pose(dq, *, atol=_UNIT_ATOL):
    r"""Rigid pose :math:`T_{AB}` of a unit dual quaternion.

    .. math:: R_{AB} = I + 2w[v] + 2[v]^2 \;\;(q_r = (w, v)),\qquad
              (0, p_{AB}) = 2\,q_d\,q_r^*

    ``dq`` and ``-dq`` give the same pose.  The input is not re-normalized: it must
    satisfy the unit constraints within ``atol``.

    Parameters
    ----------
    dq : (..., 8) array_like
        Unit dual quaternion ``(q_r, q_d)``, scalar-first parts, ``q_d`` in m.
    atol : float, optional, keyword only
        Absolute tolerance, default 1e-9: the largest accepted :math:`|q_r^Tq_r - 1|`
        (dimensionless) and :math:`|q_r^Tq_d|` (m).

    Returns
    -------
    (..., 4, 4) ndarray
        ``T_AB``, mapping B coordinates into A (translation in m).

    Raises
    ------
    ValueError
        If ``dq`` is not a finite (..., 8) array or violates a unit constraint by more
        than ``atol``.
    """
    dq = _unit_dual_quaternion(dq, "dq", atol)
    qr, qd = dq[..., :4], dq[..., 4:]
    p = 2.0 * _qmul(qd, _qconj(qr))[..., 1:]
    return _pose(_quaternion_to_rotation(qr), p)


def product(a, b):
    r"""Dual-quaternion product :math:`\hat a\hat b = a_r b_r + \epsilon(a_r b_d + a_d b_r)`.

    With the convention of this module it composes poses with cancelling letters:
    ``to_pose(product(from_pose(T_AB), from_pose(T_BC))) == T_AB @ T_BC``.  The
    product is defined for any dual quaternions, so no unit constraint is checked;
    the product of two unit dual quaternions is unit.

    Parameters
    ----------
    a, b : (..., 8) array_like
        Dual quaternions ``(q_r, q_d)``, scalar-first parts; leading axes broadcast.

    Returns
    -------
    (..., 8) ndarray
        The product.

    Raises
    ------
    ValueError
        If an argument is not a finite (..., 8) array.
    """
    a = _dual_quaternion(a, "a")
    b = _dual_quaternion(b, "b")
    ar, ad, br, bd = a[..., :4], a[..., 4:], b[..., :4], b[..., 4:]
    return np.concatenate([_qmul(ar, br), _qmul(ar, bd) + _qmul(ad, br)], axis=-1)


def conjugate(dq):
    r"""Quaternion conjugate of both parts, :math:`\hat q^* = q_r^* + \epsilon q_d^*`.

    For a unit dual quaternion of :math:`T_{AB}` this is the inverse pose
    :math:`T_{BA}`: :math:`\hat q\hat q^* = 1 + \epsilon\,2(q_r^Tq_d)\cdot 1 = 1`.  (It is
    neither the dual-number conjugate :math:`q_r - \epsilon q_d` nor their combination.)

    Parameters
    ----------
    dq : (..., 8) array_like
        Dual quaternion ``(q_r, q_d)``.

    Returns
    -------
    (..., 8) ndarray
        ``(w_r, -x_r, -y_r, -z_r, w_d, -x_d, -y_d, -z_d)``.

    Raises
    ------
    ValueError
        If ``dq`` is not a finite (..., 8) array.
    """
    dq = _dual_quaternion(dq, "dq")
    return np.concatenate([_qconj(dq[..., :4]), _qconj(dq[..., 4:])], axis=-1)


def constraint_residuals(dq):
    r"""Residuals of the two unit constraints, :math:`(q_r^Tq_r - 1,\ q_r^Tq_d)`.

    Both vanish exactly on the set of unit dual quaternions (rigid poses).  Summing
    two poses' dual quaternions generally leaves that set: the sum's normalization
    residual is :math:`1 + 2\,q_{r,1}^Tq_{r,2}`, which vanishes only when
    :math:`q_{r,1}^Tq_{r,2} = -\tfrac12` (the relative rotation :math:`q_{r,1}^*q_{r,2}`
    turns by 240 degrees; e.g. the identity plus a 240-degree turn about z is the
    120-degree turn about z, and with no translation the sum is then a unit dual
    quaternion).

    Parameters
    ----------
    dq : (..., 8) array_like
        Any dual quaternion ``(q_r, q_d)`` (``q_d`` in m).

    Returns
    -------
    (..., 2) ndarray
        Normalization residual (dimensionless) and orthogonality residual (m).

    Raises
    ------
    ValueError
        If ``dq`` is not a finite (..., 8) array.
    """
    return _residuals(_dual_quaternion(dq, "dq"))


def constraint_jacobian(dq):
    r"""Jacobian of :func:`constraint_residuals` with respect to the 8 components.

    .. math:: G(\hat q) = \begin{bmatrix} 2q_r^T & 0 \\ q_d^T & q_r^T \end{bmatrix}
              \in \mathbb R^{2\times 8}

    Parameters
    ----------
    dq : (..., 8) array_like
        Dual quaternion ``(q_r, q_d)``.

    Returns
    -------
    (..., 2, 8) ndarray
        Row 0: gradient of :math:`q_r^Tq_r - 1`; row 1: gradient of :math:`q_r^Tq_d`.

    Raises
    ------
    ValueError
        If ``dq`` is not a finite (..., 8) array.
    """
    dq = _dual_quaternion(dq, "dq")
    qr, qd = dq[..., :4], dq[..., 4:]
    G = np.zeros(dq.shape[:-1] + (2, 8))
    G[..., 0, :4] = 2.0 * qr
    G[..., 1, :4] = qd
    G[..., 1, 4:] = qr
    return G


def is_unit(dq, *, atol=_UNIT_ATOL):
    r"""Whether each dual quaternion satisfies both unit constraints within ``atol``.

    Parameters
    ----------
    dq : (..., 8) array_like
        Dual quaternion(s).
    atol : float, optional, keyword only
        Absolute tolerance, default 1e-9: the largest accepted residual (dimensionless
        for the real part, m for the dual part).

    Returns
    -------
    ndarray of bool
        Shape ``(...)``.

    Raises
    ------
    ValueError
        If ``dq`` is not a finite (..., 8) array.
    """
    return np.all(np.abs(constraint_residuals(dq)) <= atol, axis=-1)


def same_pose(a, b, *, atol=1e-9, unit_atol=_UNIT_ATOL):
    r"""Whether two unit dual quaternions describe the same pose (:math:`\hat q \sim -\hat q`).

    True where :math:`\|\hat a - \hat b\| \le` ``atol`` or :math:`\|\hat a + \hat b\| \le`
    ``atol``.  The 8-vector norm mixes a dimensionless part and a part in m; ``atol``
    therefore means "1e-9 and 1e-9 m" at its default.

    Parameters
    ----------
    a, b : (..., 8) array_like
        Unit dual quaternions; leading axes broadcast.
    atol : float, optional, keyword only
        Absolute tolerance on the distance to ``b`` or ``-b``, default 1e-9
        (dimensionless and m, see above).
    unit_atol : float, optional, keyword only
        Absolute unit-constraint tolerance, default 1e-9, as ``atol`` of :func:`to_pose`.

    Returns
    -------
    ndarray of bool
        Shape of the broadcast leading axes.

    Raises
    ------
    ValueError
        If an argument is malformed or not a unit dual quaternion.
    """
    a = _unit_dual_quaternion(a, "a", unit_atol)
    b = _unit_dual_quaternion(b, "b", unit_atol)
    return (np.linalg.norm(a - b, axis=-1) <= atol) | (np.linalg.norm(a + b, axis=-1) <= atol)


def local_degrees_of_freedom(dq, *, rtol=1e-10, atol=_UNIT_ATOL):
    r"""Local dimension of the unit-dual-quaternion set, :math:`8 - \operatorname{rank} G(\hat q)`.

    :math:`G` is :func:`constraint_jacobian`; its rank is computed from its singular
    values (those above ``rtol`` times the largest count).  At every unit dual
    quaternion the two rows are independent (:math:`q_r \ne 0`), so the answer is
    :math:`8 - 2 = 6`, the dimension of rigid motion; the discrete identification
    :math:`\hat q \sim -\hat q` does not change a local count.

    Parameters
    ----------
    dq : (..., 8) array_like
        Point(s) on the constraint set (:func:`identity` for the identity pose).
    rtol : float, optional, keyword only
        Relative tolerance, default 1e-10: singular values of :math:`G` above ``rtol``
        times the largest one count towards the rank.
    atol : float, optional, keyword only
        Absolute unit-constraint tolerance, default 1e-9, as in :func:`to_pose`.

    Returns
    -------
    int or ndarray of int
        Local degrees of freedom, shape ``(...)`` (a Python int for a single ``dq``).

    Raises
    ------
    ValueError
        If ``dq`` is malformed or not a unit dual quaternion (off the set, the
        count would not describe poses).
    """
    dq = _unit_dual_quaternion(dq, "dq", atol)
    s = np.linalg.svd(constraint_jacobian(dq), compute_uv=False)
    rank = np.sum(s > rtol * s[..., :1], axis=-1)
    dof = 8 - rank
    return int(dof) if dof.ndim == 0 else dof
