"""Validation and batched linear algebra shared by the constraint, allocation, contact and
control modules: the package's rank rule for constraint Jacobians and its constrained
solve.

Every batched routine here treats each element of a batch alone, with the same arithmetic
whatever else the batch holds (numpy has no batched triangular solver:
:func:`_solve_triangular` substitutes, compiled, one element after another), so an answer
never depends on its neighbours.
"""

import math

import numba
import numpy as np

from . import _kernel_cache, _validate


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


#: Compiler flags of the dense kernels: reassociation lets the dot products of contiguous
#: rows use SIMD lanes (results change at the rounding level only); NaN and infinity keep
#: their IEEE meaning, so a NaN pivot still fails ``not s > floor``.
_DENSE = dict(
    cache=_kernel_cache.CACHE, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"}
)

#: Flags of the kernels over lanes: no reassociation, so that every sum is taken in the
#: order written, whether the loop over lanes runs over one lane (a single element, with
#: the width known to the compiler) or over a block in SIMD registers: an element's answer
#: is the same, bit for bit, alone or in any batch.
_LANES = dict(cache=_kernel_cache.CACHE, nogil=True, error_model="numpy", fastmath={"contract"})


# ---------------------------------------------------------------------------
# Triangular solves (numpy has no batched triangular solver)
# ---------------------------------------------------------------------------


def _rows_of(x, batch, core):
    """``x`` (..., *core) as C-ordered float rows (R, *core) over the flattened ``batch``, or
    as one row (1, *core) when it has a single element (shared by every row: not copied)."""
    if math.prod(x.shape[: x.ndim - len(core)]) == 1:
        return np.ascontiguousarray(x, dtype=np.float64).reshape((1,) + core)
    x = np.broadcast_to(x, batch + core).reshape((math.prod(batch),) + core)
    return np.require(x, dtype=np.float64, requirements=["C", "W"])


@numba.njit(**_DENSE)
def _triangular_rows(T, B, lower, X):
    """X[r] = T[r]^-1 B[r] for each row r of X (R, n, k), T (R or 1, n, n) triangular and
    B (R or 1, n, k): substitution, the same arithmetic for every row."""
    R, n, k = X.shape
    for r in range(R):
        t, b, x = T[r if T.shape[0] > 1 else 0], B[r if B.shape[0] > 1 else 0], X[r]
        for step in range(n):  # row by row, every column at once (contiguous)
            i = step if lower else n - 1 - step
            x[i, :] = b[i, :]
            for j in range(0, i) if lower else range(i + 1, n):
                tij = t[i, j]
                for col in range(k):
                    x[i, col] -= tij * x[j, col]
            for col in range(k):
                x[i, col] /= t[i, i]


def _solve_triangular(T, B, lower):
    """X with T X = B for triangular T (..., n, n) and B (..., n, k).

    One compiled substitution for every batch size (:func:`_triangular_rows`), so that an
    element's answer does not depend on what else is in its batch.
    """
    batch = np.broadcast_shapes(T.shape[:-2], B.shape[:-2])
    n, k = B.shape[-2:]
    X = np.empty((math.prod(batch), n, k))
    if X.size:
        _triangular_rows(_rows_of(T, batch, (n, n)), _rows_of(B, batch, (n, k)), lower, X)
    return X.reshape(batch + (n, k))


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


def _row_norms(J):
    """Euclidean norms (..., c) of the rows of J (..., c, n), without overflow or underflow
    of the squares (each row divided by its largest entry first)."""
    largest = np.abs(J).max(axis=-1, initial=0.0)
    safe = np.where(largest > 0, largest, 1.0)[..., None]
    return largest * np.sqrt(np.einsum("...ij,...ij->...i", J / safe, J / safe))


def _row_scales(J, rtol):
    r"""Row norms ``d`` and their inverses ``E`` (..., c) of the rank rule.

    A row whose norm is at most ``rtol`` times the longest row's counts as zero: its
    ``d`` and ``E`` are 0, so it neither adds to the rank nor carries a multiplier.
    """
    norms = _row_norms(J)
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
    (:func:`_constraint_rtol`).  Computed by :class:`_ConstraintRows`, from the same
    decomposition as every solve, so the two can never disagree, even at a tie.
    """
    return _ConstraintRows(J, rtol).rank


class _ConstraintRows:
    r"""The rank rule applied to ``J`` (..., c, n), and the pieces of a rank-revealing solve.

    With row scales :math:`E` (:func:`_row_scales`), :math:`\tilde J = EJ = USV^T` (the full
    SVD, :math:`p = \min(c, n)` triplets; the package's one decomposition for the rank, so
    that every caller counts alike) and the rank :math:`r` per element: the first
    :math:`r` rows of :math:`V^T` span the row space of :math:`J` (``active`` marks them),
    the remaining rows of :math:`V^T` its kernel, and :math:`J\dot v = -\gamma` reads
    :math:`V_r^T\dot v = -S_r^{-1}U_r^TE\gamma` on it.  Inactive triplets are masked so
    that one vectorized solve serves a batch whose ranks differ.
    """

    def __init__(self, J, rtol):
        self.rtol = rtol
        self.J = J
        self.d, self.E = _row_scales(J, rtol)
        scaled = self.E[..., None] * J
        c, n = J.shape[-2:]
        batch = J.shape[:-2]
        if min(c, n) == 0:
            self.U, self.s = np.zeros(batch + (c, 0)), np.zeros(batch + (0,))
            self.Vt = np.broadcast_to(np.eye(n), batch + (n, n)).copy()
        else:
            self.U, self.s, self.Vt = np.linalg.svd(scaled, full_matrices=True)
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

        :math:`J^T = V_rS_rU_r^TD` (:math:`D = \operatorname{diag}(d)`), so the condition
        reads :math:`(DU_r)^T\lambda = S_r^{-1}\mu`, whose minimum-norm solution lies in
        the range of :math:`DU_r`, the range of :math:`J` (orthogonal to
        :math:`\ker J^T`): the smallest of all multipliers with that reaction.  With the
        QR factors :math:`DU_r = QR`, :math:`\lambda = QR^{-T}S_r^{-1}\mu`: the row norms
        enter once (the condition number of :math:`R` is at most the ratio of the longest
        to the shortest kept row), never squared as in the normal equations.  Inactive
        triplets give zero columns, whose pivots are set to one (their right-hand side is
        zero).
        """
        if self.p == 0:
            batch = np.broadcast_shapes(self.d.shape[:-1], mu.shape[:-2])
            return np.zeros(batch + self.d.shape[-1:] + mu.shape[-1:])
        W = self.d[..., None] * np.where(self.active[..., None, :], self.U, 0.0)
        Q, R = np.linalg.qr(W)
        R = R + np.where(self.active, 0.0, 1.0)[..., None] * np.eye(self.p)
        safe = np.where(self.active, self.s, 1.0)[..., None]
        z = _solve_lower(np.swapaxes(R, -1, -2), np.where(self.active[..., None], mu / safe, 0.0))
        return Q @ z


#: Smallest ratio sigma_min / sigma_max of the row-scaled constraint Jacobian certified by
#: the fast path of the constrained solve: far above the rank rule's rtol (so the rank is
#: surely full), and small enough that W = EJ M^-1 J^T E squares a condition number of at
#: most 1e3.
_CERTIFIED_SIGMA_RATIO = 1e-3

#: What :func:`_independent_rows_lanes` reports for each element: solved; its rows are
#: not certified (a row the rank rule counts as zero, nearly dependent or redundant rows);
#: its M is not positive definite to the kernel's Cholesky factor.
SOLVED, ROWS_NOT_CERTIFIED, NOT_POSITIVE_DEFINITE = 0, 1, 2

#: Elements per block of the certified solve of row-major input (:func:`_certified_rows`).
_CERTIFIED_BLOCK = 64


@numba.njit(**_LANES)
def _flag(status, l, code):
    """Record ``code`` for lane ``l`` unless it already failed (the first reason is kept)."""
    if status[l] == SOLVED:
        status[l] = code


@numba.njit(**_LANES)
def _cholesky_lanes(A, n, m, status, code):
    """Lower Cholesky factor of each lane's A[:n, :n, l], l < m, in place (upper part left).
    A lane with a pivot that is not positive gets ``code`` in ``status`` and a unit pivot,
    so that the other lanes go on (its factor is then meaningless)."""
    for j in range(n):
        for k in range(j):
            for l in range(m):
                A[j, j, l] -= A[j, k, l] * A[j, k, l]
        for l in range(m):
            pivot = A[j, j, l]
            if not pivot > 0.0:
                _flag(status, l, code)
                pivot = 1.0
            A[j, j, l] = math.sqrt(pivot)
        for i in range(j + 1, n):
            for k in range(j):
                for l in range(m):
                    A[i, j, l] -= A[i, k, l] * A[j, k, l]
            for l in range(m):
                A[i, j, l] /= A[j, j, l]


@numba.njit(**_LANES)
def _forward_lanes(L, x, n, m):
    """x[:n, l] <- L_l^-1 x[:n, l] for each lane (L (n, n, W) lower, x (n, W))."""
    for i in range(n):
        for k in range(i):
            for l in range(m):
                x[i, l] -= L[i, k, l] * x[k, l]
        for l in range(m):
            x[i, l] /= L[i, i, l]


@numba.njit(**_LANES)
def _backward_lanes(L, x, n, m):
    """x[:n, l] <- L_l^-T x[:n, l] for each lane (row-wise updates)."""
    for i in range(n - 1, -1, -1):
        for l in range(m):
            x[i, l] /= L[i, i, l]
        for k in range(i):
            for l in range(m):
                x[k, l] -= L[i, k, l] * x[i, l]


@numba.njit(**_LANES)
def _dot_lanes(x, y, n, out, m):
    """out[l] = x[:n, l] . y[:n, l]."""
    out[:m] = 0.0
    for q in range(n):
        for l in range(m):
            out[l] += x[q, l] * y[q, l]


#: The certified solve's margin on the rank rule's row test: it takes rows at least this
#: many times ``rtol`` longer than the longest, and leaves a row near the threshold to the
#: rank-revealing solve, whose norms are the rule's own (:func:`_row_scales`).
_ROW_MARGIN = 4.0


@numba.njit(**_LANES)
def _unit_rows(J, rtol, m, d, longest, X, status):
    r"""The rank rule's row scaling, lane by lane: ``d`` (c, W) the row norms of J (c, n,
    W) and ``X`` the rows divided by them.  A row whose norm is not above ``_ROW_MARGIN``
    times ``rtol`` times the longest row's (a row the rule counts as zero, or one near the
    rule's threshold, or norms out of the float range) flags the lane
    ``ROWS_NOT_CERTIFIED``: the rank-revealing solve decides it by the rule itself."""
    c, n = J.shape[0], J.shape[1]
    for i in range(c):
        _dot_lanes(J[i], J[i], n, d[i], m)
    longest[:m] = 0.0
    for i in range(c):
        for l in range(m):
            d[i, l] = math.sqrt(d[i, l])
            longest[l] = max(longest[l], d[i, l])
    for i in range(c):
        for l in range(m):
            if not (d[i, l] > _ROW_MARGIN * rtol * longest[l] and d[i, l] < np.inf):
                _flag(status, l, ROWS_NOT_CERTIFIED)
                d[i, l] = 1.0
        for j in range(n):
            for l in range(m):
                X[i, j, l] = J[i, j, l] / d[i, l]


@numba.njit(inline="always", **_LANES)
def _independent_rows_lanes(M, J, load, gamma, ratio, rtol, m, work, a, lam, status):
    r"""The certified constrained solve for one block of m elements held lane-major (the
    elements as the innermost axis): M (n, n, W) (lower triangle read), J (c, n, W),
    ``load`` (k, n, W) and ``gamma`` (k, c, W), one right-hand side per column k;
    accelerations into ``a`` (k, n, W) and multipliers into ``lam`` (k, c, W).

    With :math:`M = L_ML_M^T`, row scales :math:`E` (the rank rule's, :func:`_unit_rows`),
    :math:`X = L_M^{-1}(EJ)^T`, :math:`y = L_M^{-1}F`: :math:`(X^TX)\lambda_E = -E\gamma -
    X^Ty`, :math:`\dot v = L_M^{-T}(y + X\lambda_E)`, :math:`\lambda = E\lambda_E`.  The
    rows are certified when no row counts as zero under the rank rule and
    :math:`1/\|L_G^{-1}\|_F^2 \ge` ``ratio``:sup:`2` :math:`\operatorname{tr}G` for
    :math:`G = EJJ^TE = L_GL_G^T` (:math:`\sigma_{\min}^2 = \lambda_{\min}(G) \ge
    1/\|L_G^{-1}\|_F^2`, :math:`\sigma_{\max}^2 \le \operatorname{tr}G`), so that the
    rule's rank is c.  ``status`` (W,) gets ``SOLVED`` or the reason a lane holds no
    answer (``ROWS_NOT_CERTIFIED``, ``NOT_POSITIVE_DEFINITE``); every lane is computed
    the same way whatever the others hold.  ``work`` is :func:`_lanes_work`'s tuple."""
    L, G, Wm, X, y, inv, d, frob, acc = work
    n, c, k = M.shape[0], J.shape[0], load.shape[0]
    status[:m] = SOLVED
    for i in range(n):
        for j in range(i + 1):
            L[i, j, :m] = M[i, j, :m]
    _cholesky_lanes(L, n, m, status, NOT_POSITIVE_DEFINITE)
    _unit_rows(J, rtol, m, d, acc, X, status)
    for i in range(c):  # G = E J J^T E, lower
        for j in range(i + 1):
            _dot_lanes(X[i], X[j], n, G[i, j], m)
    _cholesky_lanes(G, c, m, status, ROWS_NOT_CERTIFIED)
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
        if not 1.0 / frob[l] >= ratio * ratio * c:
            _flag(status, l, ROWS_NOT_CERTIFIED)
    for i in range(c):
        _forward_lanes(L, X[i], n, m)
    for i in range(c):
        for j in range(i + 1):
            _dot_lanes(X[i], X[j], n, Wm[i, j], m)
    _cholesky_lanes(Wm, c, m, status, ROWS_NOT_CERTIFIED)
    for col in range(k):
        yc, lc = y[col], lam[col]
        yc[:, :m] = load[col, :, :m]
        _forward_lanes(L, yc, n, m)
        for i in range(c):
            _dot_lanes(X[i], yc, n, acc, m)
            for l in range(m):
                lc[i, l] = -gamma[col, i, l] / d[i, l] - acc[l]
        _forward_lanes(Wm, lc, c, m)
        _backward_lanes(Wm, lc, c, m)  # lambda_E
        for j in range(c):
            for i in range(n):
                for l in range(m):
                    yc[i, l] += X[j, i, l] * lc[j, l]
        _backward_lanes(L, yc, n, m)
        a[col, :, :m] = yc[:, :m]
        for i in range(c):
            for l in range(m):
                lc[i, l] /= d[i, l]


@numba.njit(**_LANES)
def _lanes_work(n, c, k, W):
    """The work arrays of :func:`_independent_rows_lanes` for n coordinates, c rows, k
    right-hand sides and blocks of W elements."""
    return (
        np.empty((n, n, W)), np.empty((c, c, W)), np.empty((c, c, W)), np.empty((c, n, W)),
        np.empty((k, n, W)), np.empty((c, c, W)), np.empty((c, W)), np.empty(W), np.empty(W),
    )  # fmt: skip


@numba.njit(**_LANES)
def _certified_rows(M, J, load, gamma, ratio, rtol, a, lam, status):
    """:func:`_independent_rows_lanes` over rows of row-major input: M (R or 1, n, n), J
    (R or 1, c, n), ``load`` (R or 1, n, k), ``gamma`` (R or 1, c, k) (one row: shared by
    every element); ``a`` (R, n, k), ``lam`` (R, c, k) and ``status`` (R,) out, blocks
    of ``_CERTIFIED_BLOCK`` elements moved into lanes and back."""
    R, n, k, c = status.shape[0], M.shape[1], load.shape[2], J.shape[1]
    W = min(_CERTIFIED_BLOCK, R)
    Ml, Jl = np.empty((n, n, W)), np.empty((c, n, W))
    Fl, gl = np.empty((k, n, W)), np.empty((k, c, W))
    al, laml = np.empty((k, n, W)), np.empty((k, c, W))
    st = np.empty(W, dtype=np.int64)
    work = _lanes_work(n, c, k, W)
    for start in range(0, R, W):
        m = min(W, R - start)
        for l in range(m):
            r = start + l
            Mr, Jr = M[r if M.shape[0] > 1 else 0], J[r if J.shape[0] > 1 else 0]
            Fr, gr = load[r if load.shape[0] > 1 else 0], gamma[r if gamma.shape[0] > 1 else 0]
            for i in range(n):
                for j in range(i + 1):
                    Ml[i, j, l] = Mr[i, j]
            for i in range(c):
                for j in range(n):
                    Jl[i, j, l] = Jr[i, j]
            for col in range(k):
                for i in range(n):
                    Fl[col, i, l] = Fr[i, col]
                for i in range(c):
                    gl[col, i, l] = gr[i, col]
        if m == 1:  # one element: with m a constant the loops over lanes fold away
            _independent_rows_lanes(Ml, Jl, Fl, gl, ratio, rtol, 1, work, al, laml, st)
        else:
            _independent_rows_lanes(Ml, Jl, Fl, gl, ratio, rtol, m, work, al, laml, st)
        for l in range(m):
            r = start + l
            status[r] = st[l]
            for col in range(k):
                for i in range(n):
                    a[r, i, col] = al[col, i, l]
                for i in range(c):
                    lam[r, i, col] = laml[col, i, l]


def _certifiable(c, n, rtol):
    """Whether c constraint rows on n coordinates may take the certified fast solve: at
    least one row, no more rows than coordinates, and a rank threshold ``rtol`` far below
    the certified ratio (so that certified rows are surely of full rank by its rule)."""
    return 0 < c <= n and rtol * 1e3 <= _CERTIFIED_SIGMA_RATIO


def _constrained_solve(M, J, load, gamma, rtol, *, check_range=True, inputs=None):
    r"""Accelerations, minimum-norm multipliers and rank: the package's constrained solve.

    Solves :math:`M\dot v = F + J^T\lambda`, :math:`J\dot v = -\gamma` for each column of
    ``load`` (..., n, k) and ``gamma`` (..., c, k) whatever the rank of ``J`` (..., c, n),
    with the rank rule of :func:`_constraint_rank` (``rtol`` already resolved).  Each
    element takes one of two paths, decided by that element alone (so its answer does
    not depend on what else is in its batch, to the last bit):

    * the certified solve (:func:`_independent_rows_lanes`), when no row counts as zero
      under the rule and the row-scaled :math:`EJ` is certified well conditioned: its
      rank is then :math:`c` by the rule, and the classical solve with
      :math:`W = EJM^{-1}J^TE` (Cholesky) gives the unique multipliers;
    * otherwise the rank-revealing solve (:func:`_rank_revealing_solve`), which applies
      the rule through the SVD (redundant, dependent and vanishing rows).

    Returns ``(a, multiplier, rank)``, shapes (..., n, k), (..., c, k), (...) (a Python
    int for one element).  ``ValueError`` for an M that is not symmetric positive
    definite, and (with ``check_range``) for an inconsistent bias (see
    :func:`_check_range`); ``FloatingPointError`` when finite inputs overflow, naming
    ``inputs`` (the caller's arguments, by name; by default these four).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a, multiplier, rank = _solve_each(M, J, load, gamma, rtol, check_range)
    inputs = inputs or {"M": M, "J_c": J, "load": load, "gamma": gamma}
    _validate.finite_result(a, "the accelerations", **inputs)
    _validate.finite_result(multiplier, "the multipliers", **inputs)
    return a, multiplier, rank


def _solve_each(M, J, load, gamma, rtol, check_range):
    """The body of :func:`_constrained_solve`: each element by its own path."""
    c, n = J.shape[-2:]
    k = load.shape[-1]
    batch = np.broadcast_shapes(M.shape[:-2], J.shape[:-2], load.shape[:-2], gamma.shape[:-2])
    M = _validate.symmetric_matrix(M)
    rows = [_rows_of(x, batch, x.shape[-2:]) for x in (M, J, load, gamma)]
    size = math.prod(batch)
    a, multiplier = np.empty((size, n, k)), np.empty((size, c, k))
    rank = np.full(size, c)
    rest = np.arange(size)
    if size and _certifiable(c, n, rtol):
        status = np.empty(size, dtype=np.int64)
        _certified_rows(*rows, _CERTIFIED_SIGMA_RATIO, rtol, a, multiplier, status)
        rest = np.flatnonzero(status != SOLVED)
    if rest.size:
        part = [x if x.shape[0] == 1 else x[rest] for x in rows]
        a[rest], multiplier[rest], rank[rest] = _rank_revealing_solve(
            *part, rtol, check_range=check_range, positions=rest, batch=batch
        )
    a, multiplier = a.reshape(batch + (n, k)), multiplier.reshape(batch + (c, k))
    return a, multiplier, int(rank[0]) if batch == () else rank.reshape(batch)


def _rank_revealing_solve(M, J, load, gamma, rtol, *, check_range, positions, batch):
    r"""The constrained solve of :func:`_constrained_solve` by the SVD, for rows (R, ...)
    of a flattened batch (M, J, load, gamma each with R rows or one shared row);
    ``positions`` (R,) are the rows' flat indices in ``batch``, for error messages.

    On the row space :math:`V_r` of :math:`J` (:class:`_ConstraintRows`) the reaction
    is :math:`V_r\mu` and

    .. math:: (V_r^TM^{-1}V_r)\,\mu = -S_r^{-1}U_r^TE\gamma - V_r^TM^{-1}F,\qquad
              \dot v = M^{-1}(F + V_r\mu),

    a system whose condition number is at most that of :math:`M` (the columns of
    :math:`V_r` are orthonormal): the conditioning of :math:`J` enters only through
    :math:`S_r^{-1}`.  The multiplier is the minimum-norm one
    (:meth:`_ConstraintRows.multiplier`), equal to :math:`-W^+(JM^{-1}F + \gamma)`,
    :math:`W = JM^{-1}J^T`, at full and at deficient rank.  With ``check_range`` the bias
    must be consistent (:func:`_check_range`); without it the solve is the least-squares
    (Gauss-Newton) one, as projections need.
    """
    M, L = _validate.positive_definite_factor(
        M, where=lambda i: np.unravel_index(positions[i], batch) if batch else ()
    )
    rows = _ConstraintRows(J, rtol)
    y = _solve_lower(L, load)
    Lt = np.swapaxes(L, -1, -2)
    X = _solve_lower(L, rows.basis())  # M^-1/2 V, (..., n, p)
    Xt = np.swapaxes(X, -1, -2)
    K = rows.mask(Xt @ X)
    safe = np.where(rows.active, rows.s, 1.0)[..., None]
    rhs = np.where(rows.active[..., None], -rows.rotate(gamma) / safe - Xt @ y, 0.0)
    mu = _spd_solve(K, rhs)
    a = _solve_upper(Lt, y + X @ mu)
    multiplier = rows.multiplier(mu)
    if check_range and np.any(rows.rank < J.shape[-2]):  # independent rows: always consistent
        _check_range(rows, J, a, gamma, rtol, _solve_upper(Lt, y), positions, batch)
    R = len(positions)
    return (
        np.broadcast_to(a, (R,) + a.shape[1:]),
        np.broadcast_to(multiplier, (R,) + multiplier.shape[1:]),
        np.broadcast_to(rows.rank, (R,)),
    )


def _check_range(rows, J, a, gamma, rtol, a_free, positions, batch):
    r"""ValueError about ``gamma`` when the bias is outside the range of J (see the solve).

    The scaled residual :math:`|E(J\dot v + \gamma)|_\infty` may reach
    :math:`\max(\text{rtol}, \sqrt\epsilon)` times :math:`|E\gamma|_\infty +
    \sigma_{\max}(EJ)(|\dot v| + |M^{-1}F|)` for the elements of deficient rank
    (independent rows are always consistent; zero rows are scaled by the longest row's
    inverse).  ``a_free`` (R, n, k) is the unconstrained acceleration :math:`M^{-1}F`:
    the terms of :math:`J\dot v` cancel down to :math:`-\gamma`, so their size enters the
    scale.  ``positions`` and ``batch`` name the failing element in the caller's batch.
    """
    longest = rows.d.max(axis=-1, keepdims=True, initial=0.0)
    E = np.where(rows.d > 0, rows.E, 1.0 / np.where(longest > 0, longest, 1.0))
    residual = np.abs(E[..., None] * (J @ a + gamma)).max(axis=-2, initial=0.0)  # (R, k)
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
    index = np.unravel_index(positions[worst[0]], batch) if batch else ()
    where = f" at batch index {tuple(int(i) for i in index)}" if batch else ""
    raise ValueError(
        f"gamma: expected a bias in the range of J_c (consistent constraints; J_c has rank "
        f"{int(rank)} with {J.shape[-2]} rows{where}), got a part outside it: scaled residual "
        f"|E (J_c a + gamma)| = {residual[worst]:.3g} above the tolerance "
        f"{factor * scale[worst]:.3g} ({factor:.3g} x (|E gamma| + sigma_max (|a| + |M^-1 F|)), "
        f"E = inverse row norms); the constraint rows are inconsistent"
    )
