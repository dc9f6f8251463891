r"""The checks, scaling and certificate shared by the bounded allocations: minimize a convex
objective :math:`f(u)` subject to :math:`Gu = b` and :math:`\ell\le u\le h`.

1. Reachability, row by row (closed form): is :math:`b_j` inside the interval that
   :math:`G_ju` covers on the box?  If not, the error names the row and the interval.
2. Reduction: inputs with :math:`\ell_i = h_i` are fixed and moved to the right-hand side
   (so no solver ever sees a zero-width interval or a zero column); rows that no free
   input moves must then ask for zero (to rounding) and are dropped.
3. Scaling, each input by its own bound magnitude :math:`\beta_i = \max(|\ell_i|, |h_i|)`,
   each row by its reach :math:`\rho_j = \sum_i|G_{ji}|\beta_i`, and all inputs once more by
   the size :math:`\eta\le 1` of the least-norm solution of the scaled rows (a request far
   inside the box gives a solution far smaller than the bounds; without :math:`\eta` a
   solver's absolute tolerances would swallow it).
4. After the solve (``geomotion.allocation._solvers``), the residual of the request,
   :math:`|(Gu - b)_j|\le` ``rtol`` :math:`(|b_j| + \sum_i|G_{ji}u_i|)` (the caller's
   keyword, default ``1e-9``), is checked in the caller's units, and the optimality
   certificate of :func:`relative_gap` must pass ``_OPTIMALITY_RTOL``; either failure
   raises :class:`~geomotion.errors.ConvergenceError` instead of returning.
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .._linalg import _rank_threshold
from ..errors import ConvergenceError

#: Reachability slack of the row-by-row check, relative to each row's reach
#: :math:`\rho_j = \sum_i|G_{ji}|\max(|\ell_i|, |h_i|)`: a request within this fraction of
#: :math:`\rho_j` outside the interval the box covers is passed on to the solver (which
#: then meets it or reports the joint miss) instead of being refused as out of reach.
_FEASIBILITY_RTOL = 1e-7

#: An entry within this fraction of its scale of a bound counts as active (sitting at the
#: bound); the scale is the entry's bound magnitude :math:`\beta_i = \max(|\ell_i|, |h_i|)`
#: times the size :math:`\eta\le 1` of the solution relative to the bounds (step 3).
_ACTIVE_RTOL = 1e-9

#: Largest accepted certified optimality gap, relative to the objective value; a larger
#: one is a solver failure, raised rather than returned.
_OPTIMALITY_RTOL = 1e-8


@dataclass(frozen=True)
class Labels:
    """Argument names of one bounded problem, for the error messages."""

    unknown: str  # "u" or "s"
    matrix: str  # "G" or "R"
    rhs: str  # "b" or "tau"
    lower: str  # "u_min" or "0"
    upper: str  # "u_max" or "s_max"

    @property
    def bound_arguments(self):
        """The bound arguments the caller passed (a literal 0 is not an argument)."""
        return ", ".join(name for name in (self.lower, self.upper) if name.isidentifier())

    @property
    def box(self):
        return f"{self.lower} <= {self.unknown} <= {self.upper}"


@dataclass(frozen=True)
class Problem:
    r"""One bounded problem after the checks: the caller's data and its scaled reduction.

    The free inputs ``free`` are :math:`u_F = Dx` with :math:`D = \eta\,\mathrm{diag}(\beta)`
    (``col_scale``); the kept rows ``rows`` become :math:`Ax = c` with
    :math:`A = \mathrm{diag}(1/r)G_{rF}D` and :math:`c = (b - Gu_{\text{fixed}})_r/r`, where
    :math:`r = \eta\rho` (``row_scale``); ``x_lower``, ``x_upper`` bound :math:`x`.
    """

    G: np.ndarray
    b: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    labels: Labels
    u_fixed: np.ndarray  # (m,): the fixed inputs at their value, zero elsewhere
    free: np.ndarray
    rows: np.ndarray
    row_scale: np.ndarray
    col_scale: np.ndarray
    A: np.ndarray
    c: np.ndarray
    x_lower: np.ndarray
    x_upper: np.ndarray
    basis: np.ndarray  # orthonormal columns spanning range(A): the independent rows
    rtol: float  # accepted residual of the request, relative to |b_j| + sum_i |G_ji u_i|

    def unscale(self, x):
        """Inputs :math:`u` (m,) from scaled free inputs ``x``, clipped to the box."""
        u = self.u_fixed.copy()
        u[self.free] = np.clip(x * self.col_scale, self.lower[self.free], self.upper[self.free])
        return u

    @property
    def active_scale(self):
        r"""Per input, the size :math:`\eta\beta_i` that ``_ACTIVE_RTOL`` is relative to (0 if fixed)."""
        scale = np.zeros(len(self.lower))
        scale[self.free] = self.col_scale
        return scale

    @property
    def independent_rows(self):
        r"""The rows :math:`S^TAx = S^Tc` (``S = basis``): independent, and equivalent to
        :math:`Ax = c` once :func:`prepare` has checked that :math:`c` is in range(A)."""
        return self.basis.T @ self.A, self.basis.T @ self.c

    def row_multipliers(self, nu):
        """Multipliers of :math:`Gu = b` (all rows) from multipliers ``nu`` of the
        independent rows, for the objective as the caller states it."""
        lam = np.zeros(len(self.b))
        lam[self.rows] = (self.basis @ nu) / self.row_scale
        return lam


def prepare(G, b, lower, upper, labels, rtol):
    """Check one problem for bad bounds and unreachable rows; return its scaled reduction.

    ``rtol`` is the accepted residual of the request relative to each row's size.
    """
    if np.any(lower > upper):
        j = int(np.flatnonzero(lower > upper)[0])
        raise ValueError(
            f"{labels.bound_arguments}: expected {labels.lower} <= {labels.upper} in every "
            f"entry, got {lower[j]:.6g} > {upper[j]:.6g} at entry {j}"
        )
    _check_row_reach(G, b, lower, upper, labels)
    fixed = lower == upper
    u_fixed = np.where(fixed, lower, 0.0)
    rhs = b - G @ u_fixed
    free = np.flatnonzero(~fixed)
    beta = np.maximum(np.abs(lower), np.abs(upper))[free]  # > 0: lower < upper there
    G_scaled = G[:, free] * beta
    reach = np.abs(G_scaled).sum(axis=1)
    rows = np.flatnonzero(reach > 0)
    _check_unmoved_rows(G, b, u_fixed, rhs, np.flatnonzero(reach == 0), labels, rtol)
    A, c = G_scaled[rows] / reach[rows, None], rhs[rows] / reach[rows]
    eta = _request_size(A, c, lower[free] / beta, upper[free] / beta)
    basis = _range_basis(A)
    problem = Problem(
        G, b, lower, upper, labels, u_fixed, free, rows, reach[rows] * eta, beta * eta,
        A, c / eta, lower[free] / (beta * eta), upper[free] / (beta * eta), basis, rtol,
    )  # fmt: skip
    outside = problem.c - basis @ (basis.T @ problem.c)  # dependent rows asking too much
    if np.any(np.abs(outside) > rtol * (1 + np.abs(problem.c))):
        raise joint_miss(problem) or ValueError(
            f"{labels.rhs}: expected a request consistent with the dependent rows of "
            f"{labels.matrix}, got a part {np.abs(outside).max():.3g} outside their range"
        )
    return problem


def _range_basis(A):
    """Orthonormal columns spanning the range of ``A`` (SVD; numerical rank)."""
    if not A.size:
        return np.zeros((A.shape[0], 0))
    U, s, _ = np.linalg.svd(A, full_matrices=False)
    return U[:, s > _rank_threshold(A, s, None)[..., 0]]


def _check_row_reach(G, b, lower, upper, labels):
    r"""Each row on its own: is :math:`b_j` in the interval :math:`G_ju` covers on the box?"""
    low = np.minimum(G * lower, G * upper).sum(axis=-1)
    high = np.maximum(G * lower, G * upper).sum(axis=-1)
    slack = _FEASIBILITY_RTOL * (np.abs(G) @ np.maximum(np.abs(lower), np.abs(upper)))
    unreachable = np.flatnonzero((b < low - slack) | (b > high + slack))
    if unreachable.size:
        j = unreachable[0]
        raise ValueError(
            f"{labels.rhs}, {labels.bound_arguments}: expected {labels.rhs}[{j}] within "
            f"[{low[j]:.6g}, {high[j]:.6g}], the range of ({labels.matrix} "
            f"{labels.unknown})[{j}] over {labels.box}; got {labels.rhs}[{j}] = "
            f"{b[j]:.6g}: loosen the bounds or lower the request"
        )


def _check_unmoved_rows(G, b, u_fixed, rhs, unmoved, labels, rtol):
    """Rows that no free input moves must already be met by the fixed inputs."""
    scale = np.abs(b) + np.abs(G) @ np.abs(u_fixed)
    missed = unmoved[np.abs(rhs[unmoved]) > rtol * scale[unmoved]]
    if missed.size:
        j = missed[0]
        raise ValueError(
            f"{labels.rhs}, {labels.bound_arguments}: expected {labels.rhs}[{j}] = "
            f"{b[j] - rhs[j]:.6g}, the only value of ({labels.matrix} {labels.unknown})[{j}] "
            f"over {labels.box}; got {labels.rhs}[{j}] = {b[j]:.6g}: loosen the bounds or "
            "lower the request"
        )


def _request_size(A, c, x_lower, x_upper):
    r"""The size :math:`\eta\in(0, 1]` of the solution in bound-scaled units.

    The larger of the least-norm solution of :math:`Ax = c` and the distance of the box
    from the origin (a box that excludes zero forces entries at least that large).
    """
    least = np.linalg.lstsq(A, c, rcond=None)[0] if A.size else np.zeros(A.shape[1])
    offset = np.maximum(np.maximum(x_lower, -x_upper), 0.0)
    size = max(np.abs(least).max(initial=0.0), offset.max(initial=0.0))
    return min(size, 1.0) if size > 0 else 1.0


def joint_miss(problem):
    r"""The error for rows reachable one at a time but not together, or None if they are.

    A linear program finds the box point nearest the request in the 1-norm of the scaled
    rows: variables :math:`(x, e^+, e^-)` minimize :math:`\sum(e^+ + e^-)` subject to
    :math:`Ax + e^+ - e^- = c`.  Used only to explain a solver's infeasibility verdict.
    """
    k, n = problem.A.shape
    cost = np.concatenate([np.zeros(n), np.ones(2 * k)])
    A_eq = np.hstack([problem.A, np.eye(k), -np.eye(k)])
    bounds = list(zip(problem.x_lower, problem.x_upper)) + [(0, None)] * (2 * k)
    result = optimize.linprog(cost, A_eq=A_eq, b_eq=problem.c, bounds=bounds, method="highs")
    if result.status != 0:
        return None
    miss = (result.x[n : n + k] - result.x[n + k :]) * problem.row_scale  # b - G u
    scale = np.abs(problem.b[problem.rows]) + problem.row_scale * np.abs(problem.c)
    if np.all(np.abs(miss) <= problem.rtol * scale):
        return None
    labels, rows = problem.labels, problem.rows
    j = int(np.argmax(np.abs(miss)))
    return ValueError(
        f"{labels.rhs}, {labels.bound_arguments}: expected a request that "
        f"{labels.box} can produce in every row at once; each row of {labels.rhs} is "
        f"within reach on its own, but the nearest reachable {labels.matrix} "
        f"{labels.unknown} (in the 1-norm relative to each row's reach) still misses "
        f"{labels.rhs} by {np.array2string(miss, precision=4)} in rows "
        f"{rows.tolist()}, most in {labels.rhs}[{rows[j]}]: loosen the bounds "
        "or lower the request"
    )


def check_residual(problem, u, iterations):
    r"""Raise unless :math:`|(Gu - b)_j|\le` ``rtol`` :math:`(|b_j| + \sum_i|G_{ji}u_i|)`.

    Returns :math:`\max_j|(Gu - b)_j|`; a miss raises :class:`~geomotion.errors.ConvergenceError`
    carrying the largest relative miss and the solver's ``iterations``.
    """
    G, b = problem.G, problem.b
    miss = np.abs(G @ u - b)
    size = np.abs(b) + np.abs(G) @ np.abs(u)
    allowed = problem.rtol * size
    if np.any(miss > allowed):
        j = int(np.argmax(miss - allowed))
        labels = problem.labels
        raise ConvergenceError(
            f"the bounded solver returned {labels.unknown} with "
            f"|({labels.matrix} {labels.unknown} - {labels.rhs})[{j}]| = {miss[j]:.3g} above "
            f"{allowed[j]:.3g} (rtol = {problem.rtol:g} relative to the request and the "
            "row's terms)",
            residual=float(np.max(miss / np.where(size > 0, size, 1.0))),
            tolerance=problem.rtol,
            iterations=iterations,
            suggestion=f"a larger rtol, or {labels.matrix} and the bounds in units that "
            "make the inputs of comparable size",
        )
    return float(miss.max(initial=0.0))


def relative_gap(u, lam, objective, G, b, lower, upper):
    r"""Certified relative optimality gap :math:`(f(u) - D)/f(u)` of a feasible ``u``.

    Weak duality: for any row multipliers :math:`\lambda` (put :math:`y = G^T\lambda`)
    the minimum of :math:`f` on :math:`Gv = b`, :math:`\ell\le v\le h` is at least a
    Lagrangian bound :math:`D = \lambda^Tb + \ldots` that each objective evaluates as
    ``objective.dual_excess(u, y, lower, upper)`` :math:`= f(u) - y^Tu - (D - \lambda^Tb)`,
    so that

    .. math:: f(u) - D = \lambda^T(Gu - b) + \text{dual\_excess}(u, y)

    bounds how far :math:`f(u)` is above the minimum (written this way, without the
    cancellation of :math:`f(u) - D`).  It is zero exactly when :math:`\lambda` and the
    bounds' multipliers satisfy the KKT conditions at :math:`u`; every :math:`\lambda`
    gives a valid bound, so no choice of multipliers can certify a suboptimal point.  A
    zero objective is optimal (both objectives are nonnegative) and has gap 0.

    Parameters
    ----------
    u : (m,) ndarray
        A point of the box with :math:`Gu = b` (to rounding).
    lam : (d,) ndarray
        Any multipliers of the rows (the solver's are the sharpest).
    objective
        Has ``value(u)`` and ``dual_excess(u, y, lower, upper)``.
    G, b, lower, upper : ndarray
        The problem, in the caller's units.

    Returns
    -------
    float
        The relative gap, >= 0.
    """
    f = objective.value(u)
    if f == 0.0:
        return 0.0
    excess = lam @ (G @ u - b) + objective.dual_excess(u, G.T @ lam, lower, upper)
    return max(float(excess / f), 0.0)
