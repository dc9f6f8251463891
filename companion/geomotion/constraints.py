r"""Ideal constraints on generalized coordinates: null-space bases and reduced dynamics.

For ideal stationary (scleronomic) velocity constraints the equations of motion are

.. math:: M\ddot q + b = Q + J_c^T\lambda,\qquad J_c\dot q = 0,

with :math:`M` the joint mass matrix, :math:`b` the bias (Coriolis, centrifugal and
gravity) forces, :math:`Q = Bu` the applied generalized load and :math:`\lambda` the
constraint multipliers.  If the columns of :math:`N` span the allowed velocities,
:math:`\dot q = N\nu` and :math:`\ddot q = N\dot\nu + \dot N\nu`; multiplying by
:math:`N^T` eliminates the reaction because :math:`J_c N = 0`:

.. math:: (N^TMN)\,\dot\nu + N^T(M\dot N\nu + b) = N^TQ .

Units: generalized coordinates carry their own units (rad for revolute, m for
prismatic joints), and :math:`M`, :math:`Q`, :math:`\lambda` follow from them
(kg m^2 and N m for revolute coordinates).  The reduced coordinate :math:`\nu`
has whatever units the chosen :math:`N` gives it, so :math:`N^TMN` and
:math:`\dot\nu` depend on that choice while :math:`\ddot q` does not.

Every function broadcasts over leading axes.
"""

from dataclasses import dataclass

import numpy as np

from . import _validate

__all__ = [
    "ORTHOGONALITY_TOL",
    "constraint_rank",
    "null_space_basis",
    "reduced_inertia",
    "NullSpaceReduction",
    "null_space_reduction",
]

#: Relative tolerance on ``J_c N = 0`` and on the multiplier equation residual.
ORTHOGONALITY_TOL = 1e-9


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _matrix(value, name):
    array = _validate.real_array(value, name)
    if array.ndim < 2:
        raise ValueError(
            f"{name}: expected a matrix of shape (..., rows, cols), got shape {array.shape}"
        )
    return array


def _mass_matrix(value, name="M"):
    """Validate a (..., n, n) symmetric positive definite matrix."""
    M = _matrix(value, name)
    if M.shape[-1] != M.shape[-2] or M.shape[-1] == 0:
        raise ValueError(
            f"{name}: expected a square (..., n, n) matrix with n >= 1, got shape {M.shape}"
        )
    asym = np.abs(M - np.swapaxes(M, -1, -2)).max(initial=0.0)
    if asym > 1e-12 * (1 + np.abs(M).max(initial=0.0)):
        raise ValueError(f"{name}: expected a symmetric matrix, got asymmetry {asym:.3g}")
    try:
        np.linalg.cholesky(M)
    except np.linalg.LinAlgError as error:
        smallest = float(np.linalg.eigvalsh(M).min())
        raise ValueError(
            f"{name}: expected a symmetric positive definite mass matrix, got smallest "
            f"eigenvalue {smallest:.3g}"
        ) from error
    return M


def _vector(value, name, n):
    """Validate a (..., n) vector; a scalar 0 is accepted as the zero vector."""
    array = _validate.real_array(value, name)
    if array.ndim == 0:
        if array != 0:
            raise ValueError(f"{name}: expected shape (..., {n}) or the scalar 0, got {array!r}")
        return np.zeros(n)
    if array.shape[-1] != n:
        raise ValueError(f"{name}: expected shape (..., {n}), got shape {array.shape}")
    return array


def _singular_values(J):
    if min(J.shape[-2:]) == 0:
        return np.zeros(J.shape[:-2] + (0,))
    return np.linalg.svd(J, compute_uv=False)


def _rank_threshold(J, s, rtol):
    """Absolute singular-value threshold: rtol times the largest, numpy's default if None."""
    if rtol is None:
        rtol = max(J.shape[-2:]) * np.finfo(float).eps
    largest = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    return rtol * largest


# ---------------------------------------------------------------------------
# Null-space basis
# ---------------------------------------------------------------------------


def constraint_rank(J_c, rtol=None):
    r"""Numerical rank of a constraint Jacobian, from its singular values.

    Singular values above ``rtol`` times the largest count; a zero matrix has rank 0.
    The constraints are *regular* at a configuration when the rank equals the number
    of rows (independent constraints).

    Parameters
    ----------
    J_c : (..., m, n) array_like
        Constraint Jacobian: row k maps generalized velocities to the rate of
        constraint k.
    rtol : float, optional
        Relative threshold; default ``max(m, n) * eps`` (as :func:`numpy.linalg.matrix_rank`).

    Returns
    -------
    int or ndarray of int
        Rank, shape ``(...)`` (a Python int for a single matrix).

    Raises
    ------
    ValueError
        If ``J_c`` is not a finite (..., m, n) array.
    """
    J = _matrix(J_c, "J_c")
    s = _singular_values(J)
    rank = np.sum(s > _rank_threshold(J, s, rtol), axis=-1)
    return int(rank) if rank.ndim == 0 else rank


def null_space_basis(J_c, rtol=None, require_regular=True):
    r"""Orthonormal basis :math:`N` of the allowed velocities :math:`\{\dot q : J_c\dot q = 0\}`.

    From the SVD :math:`J_c = U\Sigma V^T`, the columns of :math:`V` belonging to zero
    singular values span the null space, so :math:`J_cN = 0` and :math:`N^TN = I`.
    Any other basis :math:`N' = NA` (:math:`A` invertible) describes the same motion
    with different reduced coordinates.

    Regularity is required by default: with :math:`m` independent constraints on
    :math:`n` coordinates the allowed motion has exactly :math:`n - m` dimensions, and
    a rank drop (redundant or singular constraints) is reported instead of silently
    changing that count.  With ``require_regular=False`` the basis has
    :math:`n - \operatorname{rank} J_c` columns, which must then be the same for every
    matrix of a batch.

    Parameters
    ----------
    J_c : (..., m, n) array_like
        Constraint Jacobian (units: constraint rate per unit generalized velocity).
    rtol : float, optional
        Relative rank threshold, see :func:`constraint_rank`.
    require_regular : bool
        If True (default), raise unless ``J_c`` has full row rank ``m``.

    Returns
    -------
    (..., n, k) ndarray
        Orthonormal columns spanning the null space, ``k = n - rank``; ``(n, 0)`` when
        the constraints lock every coordinate.

    Raises
    ------
    ValueError
        If ``J_c`` is malformed, or rank-deficient while ``require_regular`` is True,
        or (with ``require_regular=False``) its rank differs across the batch.
    """
    J = _matrix(J_c, "J_c")
    m, n = J.shape[-2:]
    if n == 0:
        raise ValueError(
            f"J_c: expected at least one generalized coordinate (column), got shape {J.shape}"
        )
    # Full SVD: V has n columns even when m < n.
    if m:
        _, s, Vt = np.linalg.svd(J, full_matrices=True)
    else:
        s = np.zeros(J.shape[:-2] + (0,))
    rank = np.sum(s > _rank_threshold(J, s, rtol), axis=-1)
    if require_regular and np.any(rank < m):
        raise ValueError(
            f"J_c: expected a regular constraint Jacobian (full row rank {m}), got rank "
            f"{int(np.min(rank))}; remove redundant constraints or pass require_regular=False"
        )
    if rank.size and np.any(rank != rank.flat[0]):
        raise ValueError(
            f"J_c: expected the same rank for every matrix of the batch, got ranks from "
            f"{int(rank.min())} to {int(rank.max())}"
        )
    if not m:
        return np.broadcast_to(np.eye(n), J.shape[:-2] + (n, n)).copy()
    r = int(rank.flat[0]) if rank.size else m
    return np.swapaxes(Vt[..., r:, :], -1, -2)


# ---------------------------------------------------------------------------
# Reduced dynamics
# ---------------------------------------------------------------------------


def _basis(value, n):
    N = _matrix(value, "N")
    if N.shape[-2] != n:
        raise ValueError(
            f"N: expected shape (..., {n}, k) to match M ({n}x{n}), got shape {N.shape}"
        )
    if N.shape[-1] > n:
        raise ValueError(f"N: expected at most {n} columns, got shape {N.shape}")
    return N


def reduced_inertia(M, N):
    r"""Reduced (projected) inertia :math:`N^TMN` of the allowed motion :math:`\dot q = N\nu`.

    It is the matrix of the kinetic energy in the reduced rates,
    :math:`K = \tfrac12\dot q^TM\dot q = \tfrac12\nu^T(N^TMN)\nu`.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite joint mass matrix (kg m^2 for revolute coordinates).
    N : (..., n, k) array_like
        Basis of allowed velocities (columns in generalized-velocity units per unit of
        the reduced rate).

    Returns
    -------
    (..., k, k) ndarray
        Symmetric positive semidefinite; positive definite iff ``N`` has independent columns.

    Raises
    ------
    ValueError
        If ``M`` is not symmetric positive definite or ``N`` has the wrong shape or
        non-finite entries.
    """
    M = _mass_matrix(M)
    N = _basis(N, M.shape[-1])
    return np.swapaxes(N, -1, -2) @ M @ N


@dataclass(frozen=True)
class NullSpaceReduction:
    r"""Result of :func:`null_space_reduction` (all arrays broadcast over leading axes).

    Attributes
    ----------
    reduced_inertia : (..., k, k) ndarray
        :math:`N^TMN`.
    projected_load : (..., k) ndarray
        :math:`N^TQ`, the applied load seen by the reduced coordinates.
    reduced_bias : (..., k) ndarray
        :math:`N^T(M\dot N\nu + b)`.
    nudot : (..., k) ndarray
        Reduced acceleration :math:`\dot\nu`, solving
        :math:`(N^TMN)\dot\nu = N^TQ - N^T(M\dot N\nu + b)`.
    qdd : (..., n) ndarray
        Coordinate accelerations :math:`\ddot q = N\dot\nu + \dot N\nu` (independent of
        the choice of basis).
    multiplier : (..., m) ndarray or None
        :math:`\lambda` with :math:`J_c^T\lambda = M\ddot q + b - Q` (generalized units
        of the constraint rows), or None if no ``J_c`` was given.  Its power on any
        allowed motion, :math:`\lambda^TJ_c N\nu`, is zero.
    """

    reduced_inertia: np.ndarray
    projected_load: np.ndarray
    reduced_bias: np.ndarray
    nudot: np.ndarray
    qdd: np.ndarray
    multiplier: np.ndarray | None = None


def null_space_reduction(M, N, load, bias=0.0, Ndot_nu=0.0, J_c=None, tol=ORTHOGONALITY_TOL):
    r"""Solve ideal constrained dynamics by projection onto the allowed velocities.

    .. math:: (N^TMN)\,\dot\nu + N^T(M\dot N\nu + b) = N^TQ,\qquad
              \ddot q = N\dot\nu + \dot N\nu,\qquad
              J_c^T\lambda = M\ddot q + b - Q

    The reaction :math:`J_c^T\lambda` drops out of the projected equation because
    :math:`J_cN = 0`, not because it is absent: given ``J_c``, the multiplier is
    recovered afterwards by least squares, and the residual of that fit is checked
    (it vanishes exactly when ``N`` spans the whole null space of ``J_c``).

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite joint mass matrix.
    N : (..., n, k) array_like
        Basis of allowed velocities, :math:`\dot q = N\nu`, independent columns.
    load : (..., n) array_like
        Applied generalized load :math:`Q = Bu` (N m for revolute, N for prismatic
        coordinates).
    bias : (..., n) array_like or 0
        Bias forces :math:`b(q, \dot q)` (Coriolis, centrifugal, gravity), same units.
    Ndot_nu : (..., n) array_like or 0
        The product :math:`\dot N\nu` (generalized acceleration units); zero for a
        constant basis.
    J_c : (..., m, n) array_like, optional
        Constraint Jacobian, :math:`J_c\dot q = 0`; if given, :math:`J_cN = 0` is checked
        and the multiplier computed.  It must then have full row rank (regular
        constraints), otherwise :math:`\lambda` is not unique.
    tol : float
        Relative tolerance of the checks :math:`J_cN = 0` and
        :math:`J_c^T\lambda = M\ddot q + b - Q`.

    Returns
    -------
    NullSpaceReduction
        Reduced inertia, projected load, reduced bias, :math:`\dot\nu`, :math:`\ddot q`
        and (if ``J_c`` is given) :math:`\lambda`.

    Raises
    ------
    ValueError
        If ``M`` is not symmetric positive definite; shapes disagree; ``N`` has
        dependent columns, violates :math:`J_cN = 0`, or does not span the null space
        of ``J_c`` (the multiplier equation has no solution); or ``J_c`` is
        rank-deficient.
    """
    M = _mass_matrix(M)
    n = M.shape[-1]
    N = _basis(N, n)
    Q = _vector(load, "load", n)
    b = _vector(bias, "bias", n)
    a0 = _vector(Ndot_nu, "Ndot_nu", n)

    Nt = np.swapaxes(N, -1, -2)
    Mr = Nt @ M @ N
    if N.shape[-1]:
        try:
            np.linalg.cholesky(Mr)
        except np.linalg.LinAlgError as error:
            raise ValueError(
                "N: expected linearly independent columns (N^T M N positive definite), "
                "got a singular reduced inertia"
            ) from error
    projected_load = np.einsum("...ij,...j->...i", Nt, Q)
    reduced_bias = np.einsum("...ij,...j->...i", Nt, np.einsum("...ij,...j->...i", M, a0) + b)
    nudot = np.linalg.solve(Mr, (projected_load - reduced_bias)[..., None])[..., 0]
    qdd = np.einsum("...ij,...j->...i", N, nudot) + a0

    multiplier = None
    if J_c is not None:
        J = _matrix(J_c, "J_c")
        if J.shape[-1] != n:
            raise ValueError(f"J_c: expected shape (..., m, {n}) to match M, got shape {J.shape}")
        m = J.shape[-2]
        if np.any(np.asarray(constraint_rank(J)) < m):
            raise ValueError(
                f"J_c: expected a regular constraint Jacobian (full row rank {m}) so that the "
                f"multiplier is unique, got rank {int(np.min(constraint_rank(J)))}"
            )
        JN = J @ N
        scale = 1.0 + np.abs(J).max(initial=0.0) * np.abs(N).max(initial=0.0)
        if np.abs(JN).max(initial=0.0) > tol * scale:
            raise ValueError(
                f"N: expected allowed velocities with J_c N = 0, got |J_c N| up to "
                f"{np.abs(JN).max():.3g}"
            )
        rhs = np.einsum("...ij,...j->...i", M, qdd) + b - Q
        Jt = np.swapaxes(J, -1, -2)
        multiplier = np.einsum("...ij,...j->...i", np.linalg.pinv(Jt), rhs)
        misfit = np.abs(np.einsum("...ij,...j->...i", Jt, multiplier) - rhs).max(initial=0.0)
        if misfit > tol * (1.0 + np.abs(rhs).max(initial=0.0)):
            raise ValueError(
                "N: expected a basis of the whole null space of J_c (the reaction J_c^T lambda "
                f"must balance M qdd + b - load), got an unbalanced residual of {misfit:.3g}"
            )
    return NullSpaceReduction(Mr, projected_load, reduced_bias, nudot, qdd, multiplier)

