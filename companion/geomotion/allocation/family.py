r"""The solution family of a linear requirement :math:`Gu = b` and its dimension.

The family is equation :eq:`eq-ch2-general-control`.

See :mod:`geomotion.allocation` for the conventions.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, constraints
from .._linalg import _check_batches, _rank_rtol, _svd_with_rank, _vector


def _map(value, name):
    """Validate a (..., d, m) linear map with at least one row and one column."""
    G = _validate.matrix(value, name)
    if 0 in G.shape[-2:]:
        raise ValueError(
            f"{name}: expected shape (..., d, m) with d >= 1 rows and m >= 1 columns, "
            f"got shape {G.shape}"
        )
    return G


def redundancy_dimension(G, *, rtol=None):
    r"""Input redundancy :math:`m - r`: the dimension of :math:`\ker G`.

    The dimension of the family of equation :eq:`eq-ch2-general-control`.

    Parameters
    ----------
    G : (..., d, m) array_like
        Effective input map (acceleration per unit input); ``m`` inputs.
    rtol : float, optional, keyword-only
        Relative rank threshold: a singular value counts as zero when it is at most
        ``rtol`` times the largest one of its matrix (default ``max(d, m) * eps``), see
        :func:`geomotion.constraints.constraint_rank`.

    Returns
    -------
    numpy.int64 or (...) ndarray of int
        ``m - rank G`` per matrix, shape ``(...)``: a batch through a singularity gets
        each element's own value.  Zero for an underactuated map with full column rank
        (``m < d``): each reachable ``b`` then has exactly one input.

    Raises
    ------
    ValueError
        If ``G`` is not a finite (..., d, m) array with d, m >= 1, or ``rtol`` is negative.
    """
    G = _map(G, "G")
    return G.shape[-1] - constraints.constraint_rank(G, rtol=rtol)


@dataclass(frozen=True)
class SolutionFamily:
    r"""All solutions :math:`u = u_0 + Zz` of :math:`Gu = b`, from :func:`solution_family`.

    The family of equation :eq:`eq-ch2-general-control`.

    Read the fields by name (``family.u0``, ``family.Z``); the result does not unpack.

    Attributes
    ----------
    u0 : (..., m) ndarray
        :math:`G^+b`, the Euclidean minimum-norm solution; it lies in
        :math:`\operatorname{range}G^T`, orthogonal to every column of ``Z``.
    Z : (..., m, m - r_min) ndarray
        Basis of :math:`\ker G` with orthonormal nonzero columns, so
        :math:`ZZ^T = I - G^+G`; its columns change the input without changing
        :math:`Gu`.  ``r_min`` is the smallest rank of the batch: an element of larger
        rank :math:`r` has only :math:`m - r` nonzero columns (the last ones) and zero
        columns in front.  With one rank for the whole batch (or one matrix) every
        column is a unit vector.
    rank : numpy.int64 or (...) ndarray of int
        Numerical rank :math:`r` of :math:`G`, per matrix of the batch.
    redundancy : numpy.int64 or (...) ndarray of int
        :math:`m - r`, the dimension of the family, per matrix of the batch.
    """

    u0: np.ndarray
    Z: np.ndarray
    rank: np.ndarray
    redundancy: np.ndarray

    def member(self, z):
        r"""The solution :math:`u_0 + Zz`.

        Parameters
        ----------
        z : (..., m - r_min) array_like
            Coordinates along the columns of ``Z``.

        Returns
        -------
        (..., m) ndarray
            A solution of :math:`Gu = b`, in input units.
        """
        z = _vector(z, "z", self.Z.shape[-1])
        return self.u0 + np.einsum("...ij,...j->...i", self.Z, z)


def solution_family(G, b, *, rtol=None, range_rtol=1e-9):
    r"""Every solution of :math:`Gu = b`: :math:`u = G^+b + (I - G^+G)z`.

    Equation :eq:`eq-ch2-general-control`.

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
    rtol : float, optional, keyword-only
        Relative rank threshold: a singular value counts as zero when it is at most
        ``rtol`` times the largest of its matrix (default ``max(d, m) * eps``), as
        :func:`geomotion.constraints.constraint_rank`.
    range_rtol : float, keyword-only
        Relative tolerance of the range test, relative to the request's size:
        :math:`|Gu_0 - b|` may reach ``max(range_rtol, rtol)`` times
        :math:`\sigma_{\max}|u_0| + |b|` (singular values dropped by ``rtol`` leave a
        residual of that order).  Default ``1e-9``.

    Returns
    -------
    SolutionFamily
        ``u0`` (..., m), ``Z`` (..., m, m - r_min), ``rank`` and ``redundancy`` per
        element; read by name.

    Raises
    ------
    ValueError
        If ``G`` or ``b`` is malformed or non-finite, their batches do not broadcast, a
        tolerance is negative, or ``b`` is not in the range of ``G`` (the message gives
        the residual, the tolerance and, in a batch, the element's index).

    Notes
    -----
    **Batches**: leading axes of ``G`` and ``b`` broadcast.  The rank may differ from
    element to element (a sweep through a singularity): ``rank`` and ``redundancy`` are
    per matrix (the batch shape of ``G``), and ``Z`` has as many columns as the largest
    redundancy, with zero columns for the elements that have fewer.
    """
    G = _map(G, "G")
    d, m = G.shape[-2:]
    b = _vector(b, "b", d)
    _check_batches(G=(G, 2), b=(b, 1))
    tol = max(float(_validate.nonnegative(range_rtol, "range_rtol")), _rank_rtol(G, rtol))
    U, s, Vt, rank = _svd_with_rank(G, rtol)
    r_min, r_max = (int(rank.min()), int(rank.max())) if rank.size else (min(d, m),) * 2
    kept = np.arange(r_max) < rank[..., None]  # (..., r_max): singular values above threshold
    projected = np.einsum("...ji,...j->...i", U[..., :, :r_max], b)
    coefficients = np.where(kept, projected / np.where(kept, s[..., :r_max], 1.0), 0.0)
    u0 = np.einsum("...ji,...j->...i", Vt[..., :r_max, :], coefficients)
    _check_in_range(G, b, u0, s[..., 0], tol)
    kernel = np.arange(r_min, m) >= rank[..., None]  # (..., m - r_min): kernel columns
    Z = np.swapaxes(Vt[..., r_min:, :], -1, -2) * kernel[..., None, :]
    return SolutionFamily(u0=u0, Z=Z, rank=rank[()], redundancy=(m - rank)[()])


def _check_in_range(G, b, u, largest_singular_value, tol):
    residual = np.linalg.norm(np.einsum("...ij,...j->...i", G, u) - b, axis=-1)
    scale = largest_singular_value * np.linalg.norm(u, axis=-1) + np.linalg.norm(b, axis=-1)
    excess = residual - tol * scale
    if np.any(excess > 0):
        worst = np.unravel_index(np.argmax(excess), excess.shape)
        where = f" at batch element {tuple(int(i) for i in worst)}" if excess.ndim else ""
        raise ValueError(
            f"b: expected a request in the range of G (G u = b solvable), got a residual "
            f"|G u - b| = {residual[worst]:.3g} for the least-squares u{where}, above the "
            f"tolerance {tol * scale[worst]:.3g} ({tol:.3g} times sigma_max |u| + |b|)"
        )
