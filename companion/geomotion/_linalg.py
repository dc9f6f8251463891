"""Validation and batched linear algebra shared by the constraint, allocation, contact and
control modules.

numpy has no batched triangular solver: ``_solve_triangular`` substitutes one row
at a time across the whole batch for large batches and calls LAPACK per matrix for
small ones.
"""

import hashlib
import math
import pathlib

import numba
import numpy as np
from scipy.linalg import lapack

from . import _validate

#: The files of the package's compiled kernels, which call one another.  numba keys a
#: cached kernel by its own file alone: after an edit to ``tree/_jit.py``, a kernel of
#: ``tree/_lanes.py`` loaded from the cache would still run the old code of the functions
#: it calls there, and give the old numbers.
KERNEL_SOURCES = (
    "_linalg.py",
    "tree/_jit.py",
    "tree/_jit_frames.py",
    "tree/_lanes.py",
    "tree/_lanes_frames.py",
    "tree/_lanes_coriolis.py",
    "tree/_closed_loop.py",
)


def drop_stale_kernels(root=pathlib.Path(__file__).parent):
    """Delete numba's cached kernels under ``root`` when any of :data:`KERNEL_SOURCES`
    changed since they were cached (a digest of the sources kept beside them), so that
    every kernel is compiled again from the current code.  Silent where the package's
    folders are read only (numba then caches elsewhere, and nothing there changes).
    Returns the number of cache files deleted."""
    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        digest.update((root / name).read_bytes())
    stamp = root / "__pycache__" / "kernel-sources.sha256"
    try:
        if stamp.read_text() == digest.hexdigest():
            return 0
    except OSError:
        pass
    deleted = 0
    try:
        for cache in [*root.glob("__pycache__/*.nb[ic]"), *root.glob("*/__pycache__/*.nb[ic]")]:
            cache.unlink(missing_ok=True)
            deleted += 1
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass
    return deleted


drop_stale_kernels()


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


# ---------------------------------------------------------------------------
# The package's rank rule for constraint Jacobians, and the rank-revealing solve
# ---------------------------------------------------------------------------

#: Default relative threshold of the rank rule (see :func:`_constraint_rank`).  Well
#: above the round-off of computed kinematics (about 1e-15 relative) and well below the
#: smallest singular-value ratio of a mechanism away from its singular configurations.
_RANK_RTOL = 1e-10

#: Smallest relative tolerance of the range test of :func:`_constrained_solve`: about
#: the square root of the machine epsilon, so that rounding in a redundant bias never
#: reads as inconsistency.
_RANGE_RTOL = float(np.sqrt(np.finfo(float).eps))


def _constraint_rtol(rtol):
    """The rank rule's relative threshold: ``rtol``, or the package default 1e-10 if None."""
    if rtol is None:
        return _RANK_RTOL
    array = _validate.nonnegative(rtol, "rtol")
    if array.ndim:
        raise ValueError(f"rtol: expected a scalar, got shape {array.shape}")
    return float(array)


def _row_scales(J, rtol):
    r"""Row norms ``d`` and their inverses ``E`` (..., c) of the rank rule.

    A row whose norm is at most ``rtol`` times the longest row's counts as zero: its
    ``d`` and ``E`` are 0, so it neither adds to the rank nor carries a multiplier.
    """
    norms = np.sqrt(np.einsum("...ij,...ij->...i", J, J))
    longest = norms.max(axis=-1, keepdims=True, initial=0.0)
    kept = norms > rtol * longest
    d = np.where(kept, norms, 0.0)
    return d, np.where(kept, 1.0 / np.where(kept, norms, 1.0), 0.0)


def _constraint_rank(J, rtol):
    r"""Numerical rank (...) of constraint Jacobians (..., c, n): the package's one rank rule.

    Each row is divided by its Euclidean norm (so the rank does not depend on the units
    or the scale of the rows: a row in mm and one in km weigh the same), rows shorter
    than ``rtol`` times the longest count as zero, and the rank counts the singular values
    of the scaled matrix above ``rtol`` times the largest.  ``rtol`` is already resolved
    (:func:`_constraint_rtol`).
    """
    _, E = _row_scales(J, rtol)
    scaled = E[..., None] * J
    s = _singular_values(scaled)
    largest = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    return np.sum(s > rtol * largest, axis=-1)


class _ConstraintRows:
    r"""The rank rule applied to ``J`` (..., c, n), and the pieces of a rank-revealing solve.

    With row scales :math:`E` (:func:`_row_scales`), :math:`\tilde J = EJ = USV^T` (thin
    SVD, :math:`p = \min(c, n)` triplets) and the rank :math:`r` of :func:`_constraint_rank`
    per element: the first :math:`r` rows of :math:`V^T` span the row space of
    :math:`J` (``active`` marks them), and :math:`J\dot v = -\gamma` reads
    :math:`V_r^T\dot v = -S_r^{-1}U_r^TE\gamma` on it.  Inactive triplets are masked so
    that one vectorized solve serves a batch whose ranks differ.
    """

    def __init__(self, J, rtol, *, full=False):
        self.rtol = rtol
        self.J = J
        self.d, self.E = _row_scales(J, rtol)
        scaled = self.E[..., None] * J
        c, n = J.shape[-2:]
        batch = J.shape[:-2]
        if min(c, n) == 0:
            self.U, self.s = np.zeros(batch + (c, 0)), np.zeros(batch + (0,))
            self.Vt = np.broadcast_to(np.eye(n), batch + (n, n)).copy() if full else None
            if not full:
                self.Vt = np.zeros(batch + (0, n))
        else:
            self.U, self.s, self.Vt = np.linalg.svd(scaled, full_matrices=full)
        p = self.s.shape[-1]
        self.U = self.U[..., :p]
        largest = self.s[..., :1] if p else np.zeros(batch + (1,))
        self.rank = np.sum(self.s > rtol * largest, axis=-1)
        self.p = p
        self.active = np.arange(p) < self.rank[..., None]

    def mask(self, A):
        """(..., p, p) ``A`` restricted to the active block, identity on the inactive diagonal."""
        both = self.active[..., :, None] & self.active[..., None, :]
        return np.where(both, A, 0.0) + np.where(self.active, 0.0, 1.0)[..., None] * np.eye(self.p)

    def rotate(self, values):
        r""":math:`U^TE\,x` of row values (..., c, k), zero on inactive triplets (..., p, k)."""
        rotated = np.swapaxes(self.U, -1, -2) @ (self.E[..., None] * values)
        return np.where(self.active[..., None], rotated, 0.0)

    def basis(self):
        r""":math:`V` (..., n, p), columns of inactive triplets zeroed: the row space of J."""
        V = np.swapaxes(self.Vt[..., : self.p, :], -1, -2)
        return np.where(self.active[..., None, :], V, 0.0)

    def multiplier(self, mu):
        r"""Minimum-norm :math:`\lambda` (..., c, k) with :math:`J^T\lambda = V_r\mu`.

        :math:`\lambda` lies in :math:`\operatorname{range}J = E^{-1}\operatorname{range}U_r`:
        :math:`\lambda = D U_r z`, :math:`D = \operatorname{diag}(d)`, and
        :math:`S_r(U_r^TD^2U_r)z = \mu`.  Being in the range of :math:`J` (orthogonal to
        :math:`\ker J^T`), it is the smallest of all multipliers with that reaction.
        """
        if self.p == 0:
            batch = np.broadcast_shapes(self.d.shape[:-1], mu.shape[:-2])
            return np.zeros(batch + self.d.shape[-1:] + mu.shape[-1:])
        if self.p == self.d.shape[-1] and np.all(self.rank == self.p):
            # Independent rows: U is square and orthogonal, so D lambda = U S^-1 mu.
            return self.E[..., None] * (self.U @ (mu / self.s[..., None]))
        G = self.mask(np.swapaxes(self.U, -1, -2) @ ((self.d**2)[..., None] * self.U))
        safe = np.where(self.active, self.s, 1.0)[..., None]
        z = _spd_solve(G, np.where(self.active[..., None], mu / safe, 0.0))
        return self.d[..., None] * (self.U @ z)


#: Smallest ratio sigma_min / sigma_max of the row-scaled constraint Jacobian certified by
#: the fast path of the constrained solve: far above the rank rule's rtol (so the rank is
#: surely full), and small enough that W = EJ M^-1 J^T E squares a condition number of at
#: most 1e3.
_CERTIFIED_SIGMA_RATIO = 1e-3


#: Compiler flags of the dense kernels: reassociation lets the dot products of contiguous
#: rows use SIMD lanes (results change at the rounding level only); NaN and infinity keep
#: their IEEE meaning, so a NaN pivot still fails ``not s > floor``.
_DENSE = dict(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})


@numba.njit(**_DENSE)
def _cholesky_in_place(A, n, floor=0.0):
    """Lower Cholesky factor of A[:n, :n] in place (upper part left); False if a pivot is
    at most ``floor`` (not positive definite, or singular to that tolerance)."""
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= A[j, k] * A[j, k]
        if not s > floor:
            return False
        A[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s / A[j, j]
    return True


@numba.njit(**_DENSE)
def _forward(L, b, n, m=-1):
    """b[:n, :m] <- L^-1 b (L lower; all columns of b when m < 0) in place."""
    for i in range(n):
        for col in range(b.shape[1] if m < 0 else m):
            s = b[i, col]
            for k in range(i):
                s -= L[i, k] * b[k, col]
            b[i, col] = s / L[i, i]


@numba.njit(**_DENSE)
def _backward(L, b, n, m=-1):
    """b[:n, :m] <- L^-T b in place (all columns when m < 0)."""
    for i in range(n - 1, -1, -1):
        for col in range(b.shape[1] if m < 0 else m):
            s = b[i, col]
            for k in range(i + 1, n):
                s -= L[k, i] * b[k, col]
            b[i, col] = s / L[i, i]


@numba.njit(**_DENSE)
def _forward_row(L, x, n):
    """x <- L^-1 x for one contiguous vector x (n,), L lower."""
    for i in range(n):
        s = x[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]


@numba.njit(**_DENSE)
def _backward_row(L, x, n):
    """x <- L^-T x for one contiguous vector x (n,), L lower (row-wise updates)."""
    for i in range(n - 1, -1, -1):
        x[i] /= L[i, i]
        xi = x[i]
        for k in range(i):
            x[k] -= L[i, k] * xi


@numba.njit(**_DENSE)
def _independent_rows_kernel(M, J, load, gamma, ratio, a, lam):
    r"""The certified fast path for each row of a batch; returns -1, or the first element
    whose certificate fails, or whose M is not symmetric (the rule of
    :func:`geomotion._validate.symmetric_matrix` with that element's own largest entry,
    stricter than the batch's) or not positive definite: the caller then takes the SVD
    path, which validates M again and raises its error.

    Row-major throughout: ``X[i]`` is :math:`L_M^{-1}` times the i-th scaled row of J and
    ``y[col]`` :math:`L_M^{-1}` times a column of the load, so every inner product runs
    over contiguous memory.
    """
    B, n, c, k = M.shape[0], M.shape[1], J.shape[1], load.shape[2]
    L = np.empty((n, n))
    G = np.empty((c, c))
    X = np.empty((c, n))
    Js = np.empty((c, n))
    y = np.empty((k, n))
    W = np.empty((c, c))
    rhs = np.empty((c, k))
    inv = np.empty((c, c))
    d = np.empty(c)
    for b in range(B):
        asym, size = 0.0, 0.0
        for i in range(n):
            for j in range(i + 1):  # the factor reads the lower triangle only
                m = M[b, i, j]
                L[i, j] = m
                asym = max(asym, abs(m - M[b, j, i]))
                size = max(size, abs(m))
        if asym > 1e-12 and asym > 1e-12 * (1.0 + size):  # symmetric_matrix's rule
            return b
        if not _cholesky_in_place(L, n):
            return b
        for i in range(c):
            s = 0.0
            for j in range(n):
                s += J[b, i, j] * J[b, i, j]
            d[i] = math.sqrt(s)
            if not d[i] > 0.0:
                return b
            for j in range(n):
                Js[i, j] = J[b, i, j] / d[i]
                X[i, j] = Js[i, j]
        for i in range(c):
            for j in range(i + 1):
                s = 0.0
                for m in range(n):
                    s += Js[i, m] * Js[j, m]
                G[i, j] = s
        if not _cholesky_in_place(G, c):
            return b
        # certificate: 1 / |L_G^-1|_F^2 >= ratio^2 tr G  (tr G = c: unit rows)
        for i in range(c):
            for j in range(c):
                inv[i, j] = 1.0 if i == j else 0.0
        _forward(G, inv, c)
        frob = 0.0
        for i in range(c):
            for j in range(c):
                frob += inv[i, j] * inv[i, j]
        if 1.0 / frob < ratio * ratio * c:
            return b
        for i in range(c):
            _forward_row(L, X[i], n)
        for col in range(k):
            for i in range(n):
                y[col, i] = load[b, i, col]
            _forward_row(L, y[col], n)
        for i in range(c):
            for j in range(i + 1):
                s = 0.0
                for m in range(n):
                    s += X[i, m] * X[j, m]
                W[i, j] = s
            for col in range(k):
                s = 0.0
                for m in range(n):
                    s += X[i, m] * y[col, m]
                rhs[i, col] = -gamma[b, i, col] / d[i] - s
        if not _cholesky_in_place(W, c):
            return b
        _forward(W, rhs, c)
        _backward(W, rhs, c)  # lambda_E
        for col in range(k):
            z = y[col]
            for j in range(c):
                r = rhs[j, col]
                for i in range(n):
                    z[i] += X[j, i] * r
            _backward_row(L, z, n)
            for i in range(n):
                a[b, i, col] = z[i]
        for i in range(c):
            for col in range(k):
                lam[b, i, col] = rhs[i, col] / d[i]
    return -1


@numba.njit(**_DENSE)
def _cholesky_lanes(A, n, m):
    """Lower Cholesky factor of each lane's A[:n, :n, l], l < m, in place (upper part left);
    the first lane whose pivot is not positive, or -1."""
    for j in range(n):
        for k in range(j):
            for l in range(m):
                A[j, j, l] -= A[j, k, l] * A[j, k, l]
        for l in range(m):
            if not A[j, j, l] > 0.0:
                return l
            A[j, j, l] = math.sqrt(A[j, j, l])
        for i in range(j + 1, n):
            for k in range(j):
                for l in range(m):
                    A[i, j, l] -= A[i, k, l] * A[j, k, l]
            for l in range(m):
                A[i, j, l] /= A[j, j, l]
    return -1


@numba.njit(**_DENSE)
def _forward_lanes(L, x, n, m):
    """x[:n, l] <- L_l^-1 x[:n, l] for each lane (L (n, n, W) lower, x (n, W))."""
    for i in range(n):
        for k in range(i):
            for l in range(m):
                x[i, l] -= L[i, k, l] * x[k, l]
        for l in range(m):
            x[i, l] /= L[i, i, l]


@numba.njit(**_DENSE)
def _backward_lanes(L, x, n, m):
    """x[:n, l] <- L_l^-T x[:n, l] for each lane (row-wise updates)."""
    for i in range(n - 1, -1, -1):
        for l in range(m):
            x[i, l] /= L[i, i, l]
        for k in range(i):
            for l in range(m):
                x[k, l] -= L[i, k, l] * x[i, l]


@numba.njit(**_DENSE)
def _dot_lanes(x, y, n, out, m):
    """out[l] = x[:n, l] . y[:n, l]."""
    out[:m] = 0.0
    for q in range(n):
        for l in range(m):
            out[l] += x[q, l] * y[q, l]


@numba.njit(**_DENSE)
def _independent_rows_lanes(M, J, load, gamma, ratio, m, work, a, lam):
    r"""The certified solve of :func:`_independent_rows_kernel` for one block of m
    elements held lane-major (innermost axis): M (n, n, W) (lower triangle read), J
    (c, n, W), ``load`` (n, W), ``gamma`` (c, W); accelerations into ``a`` (n, W) and
    multipliers into ``lam`` (c, W).  Returns -1, or the first lane whose M is not
    positive definite or whose rows fail the certificate (the caller then takes the
    general path).  ``work`` is :func:`_lanes_work`'s tuple for these sizes."""
    L, G, Wm, X, y, inv, d, frob, acc = work
    n, c = M.shape[0], J.shape[0]
    for i in range(n):
        for j in range(i + 1):
            L[i, j, :m] = M[i, j, :m]
    failed = _cholesky_lanes(L, n, m)
    if failed >= 0:
        return failed
    for i in range(c):  # unit rows E J into X
        _dot_lanes(J[i], J[i], n, acc, m)
        for l in range(m):
            d[i, l] = math.sqrt(acc[l])
            if not d[i, l] > 0.0:
                return l
        for j in range(n):
            for l in range(m):
                X[i, j, l] = J[i, j, l] / d[i, l]
    for i in range(c):  # G = E J J^T E, lower
        for j in range(i + 1):
            _dot_lanes(X[i], X[j], n, G[i, j], m)
    failed = _cholesky_lanes(G, c, m)
    if failed >= 0:
        return failed
    frob[:m] = 0.0  # certificate: 1 / |L_G^-1|_F^2 >= ratio^2 tr G  (tr G = c: unit rows)
    for col in range(c):
        unit = inv[col]
        unit[:, :m] = 0.0
        unit[col, :m] = 1.0
        _forward_lanes(G, unit, c, m)
        for i in range(c):
            for l in range(m):
                frob[l] += unit[i, l] * unit[i, l]
    for l in range(m):
        if 1.0 / frob[l] < ratio * ratio * c:
            return l
    for i in range(c):
        _forward_lanes(L, X[i], n, m)
    y[:, :m] = load[:, :m]
    _forward_lanes(L, y, n, m)
    for i in range(c):
        for j in range(i + 1):
            _dot_lanes(X[i], X[j], n, Wm[i, j], m)
        _dot_lanes(X[i], y, n, acc, m)
        for l in range(m):
            lam[i, l] = -gamma[i, l] / d[i, l] - acc[l]
    failed = _cholesky_lanes(Wm, c, m)
    if failed >= 0:
        return failed
    _forward_lanes(Wm, lam, c, m)
    _backward_lanes(Wm, lam, c, m)  # lambda_E
    for j in range(c):
        for i in range(n):
            for l in range(m):
                y[i, l] += X[j, i, l] * lam[j, l]
    _backward_lanes(L, y, n, m)
    a[:, :m] = y[:, :m]
    for i in range(c):
        for l in range(m):
            lam[i, l] /= d[i, l]
    return -1


@numba.njit(**_DENSE)
def _lanes_work(n, c, W):
    """The work arrays of :func:`_independent_rows_lanes` for n coordinates, c rows and
    blocks of W elements."""
    return (
        np.empty((n, n, W)), np.empty((c, c, W)), np.empty((c, c, W)), np.empty((c, n, W)),
        np.empty((n, W)), np.empty((c, c, W)), np.empty((c, W)), np.empty(W), np.empty(W),
    )  # fmt: skip


def _certifiable(c, n, rtol):
    """Whether c constraint rows on n coordinates may take the certified fast solve: at
    least one row, no more rows than coordinates, and a rank threshold ``rtol`` far below
    the certified ratio (so that certified rows are surely of full rank by its rule)."""
    return 0 < c <= n and rtol * 1e3 <= _CERTIFIED_SIGMA_RATIO


def _independent_rows_solve(M, J, load, gamma, rtol):
    r"""The constrained solve for certified independent rows, or None (see the caller).

    With :math:`M = L_ML_M^T`, row scales :math:`E`, :math:`X = L_M^{-1}(EJ)^T`,
    :math:`y = L_M^{-1}F`: :math:`(X^TX)\lambda_E = -E\gamma - X^Ty`,
    :math:`\dot v = L_M^{-T}(y + X\lambda_E)`, :math:`\lambda = E\lambda_E`, one compiled
    pass per element.  The rows are certified when
    :math:`1/\|L_G^{-1}\|_F^2 \ge` ``_CERTIFIED_SIGMA_RATIO``:sup:`2` :math:`\operatorname{tr}G`
    for :math:`G = EJJ^TE = L_GL_G^T` (:math:`\sigma_{\min}^2 = \lambda_{\min}(G) \ge
    1/\|L_G^{-1}\|_F^2`, :math:`\sigma_{\max}^2 \le \operatorname{tr}G`); any element that
    fails (or whose M is not positive definite: the SVD path then raises the error)
    sends the whole call to the SVD path.
    """
    c, n = J.shape[-2:]
    if not _certifiable(c, n, rtol):
        return None
    batch = np.broadcast_shapes(M.shape[:-2], J.shape[:-2], load.shape[:-2], gamma.shape[:-2])
    k = load.shape[-1]

    def rows(x, tail):
        x = np.broadcast_to(x, batch + tail).reshape((-1,) + tail)
        return np.require(x, dtype=np.float64, requirements=["C", "W"])  # one compiled type

    Mb, Jb = rows(M, (n, n)), rows(J, (c, n))
    Fb, gb = rows(load, (n, k)), rows(gamma, (c, k))
    a, lam = np.empty(Fb.shape), np.empty(gb.shape)
    if _independent_rows_kernel(Mb, Jb, Fb, gb, _CERTIFIED_SIGMA_RATIO, a, lam) >= 0:
        return None
    rank = np.full(batch, c)
    return (
        a.reshape(batch + (n, k)),
        lam.reshape(batch + (c, k)),
        int(rank) if rank.ndim == 0 else rank,
    )


def _constrained_solve(M, J, load, gamma, rtol, *, check_range=True):
    r"""Accelerations, minimum-norm multipliers and rank: the package's constrained solve.

    Solves :math:`M\dot v = F + J^T\lambda`, :math:`J\dot v = -\gamma` for each column of
    ``load`` (..., n, k) and ``gamma`` (..., c, k) whatever the rank of ``J``
    (..., c, n), with the rank rule of :func:`_constraint_rank` (``rtol`` already
    resolved).  On the row space :math:`V_r` of :math:`J` (:class:`_ConstraintRows`) the
    reaction is :math:`V_r\mu` and

    .. math:: (V_r^TM^{-1}V_r)\,\mu = -S_r^{-1}U_r^TE\gamma - V_r^TM^{-1}F,\qquad
              \dot v = M^{-1}(F + V_r\mu),

    a system whose condition number is at most that of :math:`M` (the columns of
    :math:`V_r` are orthonormal): the conditioning of :math:`J` enters only through
    :math:`S_r^{-1}`.  The multiplier is the minimum-norm one
    (:meth:`_ConstraintRows.multiplier`), equal to :math:`-W^+(JM^{-1}F + \gamma)`,
    :math:`W = JM^{-1}J^T`, at full and at deficient rank.

    With ``check_range`` the bias must be consistent: the scaled residual
    :math:`|E(J\dot v + \gamma)|_\infty` may reach :math:`\max(\text{rtol}, \sqrt\epsilon)`
    times :math:`|E\gamma|_\infty + \sigma_{\max}(EJ)(|\dot v| + |M^{-1}F|)` for the elements
    of deficient rank (independent rows are always consistent; zero rows are scaled by the
    longest row's inverse), otherwise a ValueError about ``gamma`` names the residual.
    Without it the solve is the least-squares (Gauss-Newton) one, as projections need.

    Returns ``(a, multiplier, rank)``, shapes (..., n, k), (..., c, k), (...).

    Fast path: when every element's row-scaled :math:`EJ` is certified well conditioned
    (:func:`_independent_rows_solve`), its rank is :math:`c` under the rule above, and the
    classical solve with :math:`W = EJM^{-1}J^TE` (Cholesky) gives the same, unique,
    multipliers without the SVD.
    """
    fast = _independent_rows_solve(M, J, load, gamma, rtol)  # checks M's symmetry itself
    if fast is not None:
        return fast
    M, L = _validate.positive_definite_factor(M)
    rows = _ConstraintRows(J, rtol)
    y = _solve_lower(L, load)
    Lt = np.swapaxes(L, -1, -2)
    if rows.p == 0:
        a = _solve_upper(Lt, y)
        multiplier = np.zeros(
            np.broadcast_shapes(J.shape[:-2], gamma.shape[:-2], load.shape[:-2])
            + (J.shape[-2], load.shape[-1])
        )
    else:
        X = _solve_lower(L, rows.basis())  # M^-1/2 V, (..., n, p)
        Xt = np.swapaxes(X, -1, -2)
        K = rows.mask(Xt @ X)
        safe = np.where(rows.active, rows.s, 1.0)[..., None]
        rhs = np.where(rows.active[..., None], -rows.rotate(gamma) / safe - Xt @ y, 0.0)
        mu = _spd_solve(K, rhs)
        a = _solve_upper(Lt, y + X @ mu)
        multiplier = rows.multiplier(mu)
    if check_range and np.any(rows.rank < J.shape[-2]):  # independent rows: always consistent
        _check_range(rows, J, a, gamma, rtol, _solve_upper(Lt, y))
    return a, multiplier, rows.rank


def _check_range(rows, J, a, gamma, rtol, a_free):
    r"""ValueError about ``gamma`` when the bias is outside the range of J (see the solve).

    ``a_free`` (..., n, k) is the unconstrained acceleration :math:`M^{-1}F`: the terms of
    :math:`J\dot v` cancel down to :math:`-\gamma`, so their size enters the scale.
    """
    longest = rows.d.max(axis=-1, keepdims=True, initial=0.0)
    E = np.where(rows.d > 0, rows.E, 1.0 / np.where(longest > 0, longest, 1.0))
    residual = np.abs(E[..., None] * (J @ a + gamma)).max(axis=-2, initial=0.0)  # (..., k)
    largest = rows.s[..., :1] if rows.p else np.zeros(rows.s.shape[:-1] + (1,))
    size = np.sqrt(np.einsum("...ik,...ik->...k", a, a)) + np.sqrt(
        np.einsum("...ik,...ik->...k", a_free, a_free)
    )
    scale = np.abs(E[..., None] * gamma).max(axis=-2, initial=0.0) + largest * size
    scale = np.where(rows.rank[..., None] < J.shape[-2], scale, np.inf)  # only deficient ones
    factor = max(rtol, _RANGE_RTOL)
    excess = residual - factor * scale
    if not np.any(excess > 0):
        return
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    rank = np.broadcast_to(rows.rank, excess.shape[:-1])[worst[:-1]]
    where = f" at batch index {tuple(int(i) for i in worst[:-1])}" if len(worst) > 1 else ""
    raise ValueError(
        f"gamma: expected a bias in the range of J_c (consistent constraints; J_c has rank "
        f"{int(rank)} with {J.shape[-2]} rows{where}), got a part outside it: scaled residual "
        f"|E (J_c a + gamma)| = {residual[worst]:.3g} above the tolerance "
        f"{factor * scale[worst]:.3g} ({factor:.3g} x (|E gamma| + sigma_max (|a| + |M^-1 F|)), "
        f"E = inverse row norms); the constraint rows are inconsistent"
    )
