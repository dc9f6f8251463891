r"""The solution family of a linear requirement :math:`Gu = b` (eq. 9) and its dimension.

See :mod:`geomotion.allocation` for the conventions.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, constraints
from .._linalg import _check_batches, _rank_rtol, _rank_threshold, _vector

#: Default relative tolerance of the range test in :func:`solution_family`: a residual
#: :math:`|Gu_0 - b|` up to this fraction of :math:`\sigma_{\max}|u_0| + |b|` is rounding.
RANGE_RTOL = 1e-9


def _map(value, name):
    """Validate a (..., d, m) linear map with at least one row and one column."""
    G = _validate.matrix(value, name)
    if 0 in G.shape[-2:]:
        raise ValueError(
            f"{name}: expected shape (..., d, m) with d >= 1 rows and m >= 1 columns, "
            f"got shape {G.shape}"
        )
    return G


def redundancy_dimension(G, rtol=None):
    r"""Input redundancy :math:`m - r`: the dimension of :math:`\ker G`.

    Parameters
    ----------
    G : (..., d, m) array_like
        Effective input map (acceleration per unit input); ``m`` inputs.
    rtol : float, optional
        Relative rank threshold on the singular values, see
        :func:`geomotion.constraints.constraint_rank`.

    Returns
    -------
    int or ndarray of int
        ``m - rank G``, shape ``(...)``.  Zero for an underactuated map with full column
        rank (``m < d``): each reachable ``b`` then has exactly one input.

    Raises
    ------
    ValueError
        If ``G`` is not a finite (..., d, m) array with d, m >= 1, or ``rtol`` is negative.
    """
    G = _map(G, "G")
    return G.shape[-1] - constraints.constraint_rank(G, rtol=rtol)


@dataclass(frozen=True)
class SolutionFamily:
    r"""All solutions :math:`u = u_0 + Zz` of :math:`Gu = b` (eq. 9), from :func:`solution_family`.

    Unpacks as a pair: ``u0, Z = solution_family(G, b)``.

    Attributes
    ----------
    u0 : (..., m) ndarray
        :math:`G^+b`, the Euclidean minimum-norm solution; it lies in
        :math:`\operatorname{range}G^T`, orthogonal to every column of ``Z``.
    Z : (..., m, m - r) ndarray
        Orthonormal basis of :math:`\ker G`, so :math:`ZZ^T = I - G^+G`.  Its columns
        change the input without changing :math:`Gu`.
    rank : int
        Numerical rank :math:`r` of :math:`G` (the same for every matrix of a batch).
    """

    u0: np.ndarray
    Z: np.ndarray
    rank: int

    @property
    def redundancy(self):
        """Dimension :math:`m - r` of the family (the number of columns of ``Z``)."""
        return self.Z.shape[-1]

    def member(self, z):
        r"""The solution :math:`u_0 + Zz` for coordinates ``z`` of shape (..., m - r)."""
        z = _vector(z, "z", self.redundancy)
        return self.u0 + np.einsum("...ij,...j->...i", self.Z, z)

    def __iter__(self):
        return iter((self.u0, self.Z))


def solution_family(G, b, rtol=None, range_tol=RANGE_RTOL):
    r"""Every solution of :math:`Gu = b`: :math:`u = G^+b + (I - G^+G)z` (eq. 9).

    From the SVD :math:`G = U\Sigma V^T` with :math:`r` singular values above the rank
    threshold, :math:`u_0 = V_r\Sigma_r^{-1}U_r^Tb` and :math:`Z` holds the remaining
    :math:`m - r` columns of :math:`V`.  The family exists only when
    :math:`b\in\operatorname{range}G`.  That is checked: otherwise :math:`G^+b` is merely
    the least-squares input and does not produce the requested :math:`b`.  Input bounds,
    force signs and friction limits can still exclude every member (see
    :func:`bounded_allocation`).

    Parameters
    ----------
    G : (..., d, m) array_like
        Effective input map: acceleration (e.g. rad/s^2) per unit input.
    b : (..., d) array_like or 0
        Requested :math:`b = a_d - f`: desired acceleration minus drift.
    rtol : float, optional
        Relative rank threshold, as :func:`geomotion.constraints.constraint_rank`
        (default ``max(d, m) * eps``).
    range_tol : float
        Relative tolerance of the range test: :math:`|Gu_0 - b|` may reach
        ``max(range_tol, rtol)`` times :math:`\sigma_{\max}|u_0| + |b|` (singular values
        dropped by ``rtol`` leave a residual of that order).

    Returns
    -------
    SolutionFamily
        ``u0`` (..., m), ``Z`` (..., m, m - r), ``rank``; unpacks as ``u0, Z``.

    Raises
    ------
    ValueError
        If ``G`` or ``b`` is malformed or non-finite, their batches do not broadcast, the
        rank differs across a batch, or ``b`` is not in the range of ``G`` (the message
        gives the residual and the tolerance).
    """
    G = _map(G, "G")
    d, m = G.shape[-2:]
    b = _vector(b, "b", d)
    _check_batches(G=(G, 2), b=(b, 1))
    U, s, Vt = np.linalg.svd(G, full_matrices=True)
    rank = np.sum(s > _rank_threshold(G, s, rtol), axis=-1)
    if rank.size and np.any(rank != rank.flat[0]):
        raise ValueError(
            f"G: expected the same rank for every matrix of the batch, got ranks from "
            f"{int(rank.min())} to {int(rank.max())}"
        )
    r = int(rank.flat[0]) if rank.size else min(d, m)
    coefficients = np.einsum("...ji,...j->...i", U[..., :, :r], b) / s[..., :r]
    u0 = np.einsum("...ji,...j->...i", Vt[..., :r, :], coefficients)
    tol = max(float(_validate.nonnegative(range_tol, "range_tol")), _rank_rtol(G, rtol))
    _check_in_range(G, b, u0, s[..., 0], tol)
    return SolutionFamily(u0, np.swapaxes(Vt[..., r:, :], -1, -2), r)


def _check_in_range(G, b, u, largest_singular_value, tol):
    residual = np.linalg.norm(np.einsum("...ij,...j->...i", G, u) - b, axis=-1)
    scale = largest_singular_value * np.linalg.norm(u, axis=-1) + np.linalg.norm(b, axis=-1)
    excess = residual - tol * scale
    if np.any(excess > 0):
        worst = np.unravel_index(np.argmax(excess), excess.shape)
        raise ValueError(
            f"b: expected a request in the range of G (G u = b solvable), got a residual "
            f"|G u - b| = {residual[worst]:.3g} for the least-squares u, above the tolerance "
            f"{tol * scale[worst]:.3g} ({tol:.3g} times sigma_max |u| + |b|)"
        )
