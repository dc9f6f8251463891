"""Validation and batched linear algebra shared by the constraint, allocation, contact and
control modules.

numpy has no batched triangular solver: ``_solve_triangular`` substitutes one row
at a time across the whole batch for large batches and calls LAPACK per matrix for
small ones.
"""

import math

import numpy as np
from scipy.linalg import lapack

from . import _validate


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


def _constraint_jacobian(value, n):
    """Validate a (..., c, n) constraint Jacobian whose columns match an n x n mass matrix."""
    J = _validate.matrix(value, "J_c")
    if J.shape[-1] != n:
        raise ValueError(f"J_c: expected shape (..., c, {n}) to match M, got shape {J.shape}")
    return J


def _check_batches(**arrays_and_core_ndims):
    """Broadcast leading (batch) shapes of ``name=(array, core ndim)``; a ValueError names them."""
    return _validate.batch_shape(
        {name: a.shape[: a.ndim - core] for name, (a, core) in arrays_and_core_ndims.items()}
    )


def _singular_values(J):
    if min(J.shape[-2:]) == 0:
        return np.zeros(J.shape[:-2] + (0,))
    return np.linalg.svd(J, compute_uv=False)


def _rank_rtol(J, rtol):
    """The relative rank threshold: ``rtol``, or numpy's default ``max(m, n) * eps`` if None."""
    if rtol is None:
        return max(J.shape[-2:]) * np.finfo(float).eps
    return float(_validate.nonnegative(rtol, "rtol"))


def _rank_threshold(J, s, rtol):
    """Absolute singular-value threshold: the relative threshold times the largest."""
    largest = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    return _rank_rtol(J, rtol) * largest


def _svd_with_rank(J, rtol):
    """Full SVD ``U, s, Vt`` of (..., m, n) ``J`` and its numerical rank per element.

    The package's one null-space computation (constraint tangent spaces, allocation
    kernels): the rank counts singular values above ``rtol`` times the largest, and the
    last ``n - rank`` rows of ``Vt`` span the kernel.  With no rows (m = 0), ``Vt`` is the
    identity and the rank is 0.
    """
    m, n = J.shape[-2:]
    if m == 0:
        batch = J.shape[:-2]
        U, s = np.zeros(batch + (0, 0)), np.zeros(batch + (0,))
        Vt = np.broadcast_to(np.eye(n), batch + (n, n)).copy()
    else:
        U, s, Vt = np.linalg.svd(J, full_matrices=True)
    return U, s, Vt, np.sum(s > _rank_threshold(J, s, rtol), axis=-1)


# ---------------------------------------------------------------------------
# Triangular solves (numpy has no batched triangular solver)
# ---------------------------------------------------------------------------

#: From this many matrices on, row-by-row substitution vectorized across the batch beats
#: LAPACK's general solve called per matrix (measured crossover about 30 for n = 7).
_SUBSTITUTION_MIN_BATCH = 32


def _solve_triangular(T, B, lower):
    """X with T X = B for triangular T (..., n, n) and B (..., n, k).

    One matrix goes to LAPACK's triangular solve (``dtrtrs``, ~1 us against ~6 us for
    :func:`numpy.linalg.solve`); small batches use :func:`numpy.linalg.solve` (LU; exact
    on triangular input, only slower); large ones substitute one row at a time, each row
    one vectorized operation over the whole batch.
    """
    if T.ndim == 2 and B.ndim == 2 and B.size:  # (LAPACK refuses empty matrices)
        X, _ = lapack.dtrtrs(T, B, lower=lower)  # T is a Cholesky factor: never singular here
        return X
    batch = np.broadcast_shapes(T.shape[:-2], B.shape[:-2])
    if math.prod(batch) < _SUBSTITUTION_MIN_BATCH:
        return np.linalg.solve(T, B)
    n = T.shape[-1]
    X = np.empty(batch + B.shape[-2:])
    for i in range(n) if lower else reversed(range(n)):
        done = slice(0, i) if lower else slice(i + 1, n)
        known = np.einsum("...j,...jk->...k", T[..., i, done], X[..., done, :])
        X[..., i, :] = (B[..., i, :] - known) / T[..., i, i, None]
    return X


def _solve_lower(L, B):
    """X with L X = B, L lower triangular: forward substitution."""
    return _solve_triangular(L, B, lower=True)


def _solve_upper(U, B):
    """X with U X = B, U upper triangular: back substitution."""
    return _solve_triangular(U, B, lower=False)


def _cho_solve(L, B):
    """X with (L L^T) X = B, from the Cholesky factor L."""
    return _solve_upper(np.swapaxes(L, -1, -2), _solve_lower(L, B))


def _spd_solve(A, B):
    """X with A X = B for symmetric positive definite A (..., n, n), B (..., n, k).

    The package's one Cholesky solve; ``numpy.linalg.LinAlgError`` if A is not positive
    definite (callers that regularize catch it).
    """
    return _cho_solve(np.linalg.cholesky(A), B)
