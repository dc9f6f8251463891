r"""The solve path shared by the bounded allocations: minimize a convex objective
:math:`f(u)` subject to :math:`Gu = b` and :math:`\ell\le u\le h`.

1. Reachability, row by row (closed form): is :math:`b_j` inside the interval that
   :math:`G_ju` covers on the box?  If not, the error names the row and the interval.
2. Reachability of all rows together: a linear program finds the box point nearest
   :math:`Gu = b` in the 1-norm.  A nonzero miss is reported; otherwise the point is the
   feasible start.
3. Minimization: a linear objective goes to a linear program (HiGHS).  A smooth one goes
   to SLSQP, run twice (the second run rescaled around the first answer).  SLSQP stops
   on objective changes, which pins the minimizer down only to about the square root of
   its tolerance, so the face of the box it ended on is then solved exactly: Newton
   steps in the null space of the equality (one step for a quadratic), an entry pushed
   out of the box joining the held ones.
4. Certificate: multipliers fitted at the answer by bounded least squares
   (``scipy.optimize.lsq_linear``) give a Lagrangian lower bound :math:`D` on the
   minimum (weak duality), so :math:`(f - D)/f` bounds the relative suboptimality.  The
   face answer is kept if its bound passes, otherwise the SLSQP answer; if neither
   passes, the solve fails loudly.

Unknowns are divided by their largest bound magnitude and rows by their reach before any
solver sees them, so N-sized forces and m^2-sized areas do not upset the tolerances.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy import optimize

from .._linalg import _rank_threshold

#: Reachability tolerance, relative to each row's reach
#: :math:`\rho_j = \sum_i|G_{ji}|\max(|\ell_i|, |h_i|)`: a request within this fraction of
#: :math:`\rho_j` of what the box can produce counts as reachable (the linear-programming
#: solver, HiGHS, works to about 1e-9 on the scaled problem).
FEASIBILITY_RTOL = 1e-7

#: An entry within this fraction of the largest bound magnitude of its bound counts as
#: active (sitting at the bound).
ACTIVE_RTOL = 1e-9

#: Largest accepted certified optimality gap, relative to the objective value; a larger
#: one is a solver failure, raised rather than returned.
OPTIMALITY_RTOL = 1e-8

#: SLSQP settings: objective tolerance and iteration cap per run.
_SLSQP_OPTIONS = {"ftol": 1e-15, "maxiter": 500}

#: Newton steps allowed on the final face (a quadratic needs one).
_FACE_NEWTON_STEPS = 30


@dataclass(frozen=True)
class Labels:
    """Argument names of one bounded problem, for the error messages."""

    unknown: str  # "u" or "s"
    matrix: str  # "G" or "R"
    rhs: str  # "b" or "tau"
    lower: str  # "lower" or "0"
    upper: str  # "upper" or "s_max"

    @property
    def bound_arguments(self):
        """The bound arguments the caller passed (a literal 0 is not an argument)."""
        return ", ".join(name for name in (self.lower, self.upper) if name.isidentifier())

    @property
    def box(self):
        return f"{self.lower} <= {self.unknown} <= {self.upper}"


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found, in the caller's units."""

    x: np.ndarray
    iterations: int
    message: str
    optimality: float


def solve(G, b, lower, upper, objective, labels):
    """Minimize ``objective`` on :math:`Gu = b`, :math:`\\ell\\le u\\le h` (see the module).

    ``objective`` has ``value(u)``, ``gradient(u)``, ``hessian(u)`` and ``linear`` (True
    when the gradient is constant).  Raises ValueError for an unreachable request and
    RuntimeError when a solver fails or the certificate does not hold.
    """
    if np.any(lower > upper):
        j = int(np.flatnonzero(lower > upper)[0])
        raise ValueError(
            f"{labels.bound_arguments}: expected {labels.lower} <= {labels.upper} in every "
            f"entry, got {lower[j]:.6g} > {upper[j]:.6g} at entry {j}"
        )
    reach = _check_row_reach(G, b, lower, upper, labels)
    box = _scaled_box(G, b, lower, upper, reach)
    x0 = _feasible_point(box, labels)
    C, c = box.independent_rows()
    scaled = _ScaledObjective(objective, box.scale)
    if objective.linear:
        x, iterations, message = _minimize_linear(box, scaled.gradient(x0))
        candidates = [np.clip(x, box.lower, box.upper)]
    else:
        x, iterations, message = _minimize_smooth(C, c, box, x0, scaled)
        face = _solve_on_face(C, c, box.lower, box.upper, x, scaled)
        candidates = [x] if face is None else [face, x]
    # The first feasible candidate whose certified gap passes wins: the face answer is
    # exact to rounding, while SLSQP fixes the minimizer only to about sqrt(ftol), a
    # difference that objective values (and so the gaps) cannot resolve.
    optimality = np.inf
    for x in candidates:
        if np.abs(C @ x - c).max(initial=0.0) > FEASIBILITY_RTOL:
            continue
        optimality = _relative_gap(x, C, c, box.lower, box.upper, scaled)
        if optimality <= OPTIMALITY_RTOL:
            u = np.clip(x * box.scale, lower, upper)  # unscaling can cross a bound by an ulp
            return Solution(u, iterations, str(message), optimality)
    raise RuntimeError(
        f"the bounded solver found no feasible point whose certified relative optimality "
        f"gap passes {OPTIMALITY_RTOL:g} (best {optimality:.3g}): {message}"
    )


# ---------------------------------------------------------------------------
# Reachability and scaling
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _ScaledBox:
    r"""The problem :math:`Gx = b`, :math:`\ell\le x\le h` with scaled unknowns and rows.

    Unknowns are divided by ``scale`` (the largest bound magnitude) and each row by its
    reach; rows that nothing in the box can move are dropped (their request is zero).
    ``rows`` indexes the kept rows of the original problem, ``reach`` holds their reach.
    """

    G: np.ndarray
    b: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    scale: float
    rows: np.ndarray
    reach: np.ndarray

    def independent_rows(self):
        """An equivalent system with independent rows (SVD), for solvers that need them."""
        if not self.G.shape[0]:
            return self.G, self.b
        U, s, Vt = np.linalg.svd(self.G, full_matrices=False)
        r = int(np.sum(s > _rank_threshold(self.G, s, None)))
        return s[:r, None] * Vt[:r], U[:, :r].T @ self.b


@dataclass(frozen=True)
class _ScaledObjective:
    """The objective of the scaled unknowns ``x = u / scale``."""

    objective: object
    scale: float

    def value(self, x):
        return self.objective.value(x * self.scale)

    def gradient(self, x):
        return self.objective.gradient(x * self.scale) * self.scale

    def hessian(self, x):
        return self.objective.hessian(x * self.scale) * self.scale**2

    def dual_bound(self, y, mu, lower, upper):
        scale = self.scale
        return self.objective.dual_bound(y / scale, mu / scale, lower * scale, upper * scale)


def _check_row_reach(G, b, lower, upper, labels):
    r"""Each row on its own: is :math:`b_j` in the interval :math:`G_ju` covers on the box?

    Returns each row's reach :math:`\rho_j = \sum_i|G_{ji}|\max(|\ell_i|, |h_i|)`.
    """
    low = np.minimum(G * lower, G * upper).sum(axis=-1)
    high = np.maximum(G * lower, G * upper).sum(axis=-1)
    reach = np.abs(G) @ np.maximum(np.abs(lower), np.abs(upper))
    slack = FEASIBILITY_RTOL * reach
    unreachable = np.flatnonzero((b < low - slack) | (b > high + slack))
    if unreachable.size:
        j = unreachable[0]
        raise ValueError(
            f"{labels.rhs}, {labels.bound_arguments}: expected {labels.rhs}[{j}] within "
            f"[{low[j]:.6g}, {high[j]:.6g}], the range of ({labels.matrix} "
            f"{labels.unknown})[{j}] over {labels.box}; got {labels.rhs}[{j}] = "
            f"{b[j]:.6g}: loosen the bounds or lower the request"
        )
    return reach


def _scaled_box(G, b, lower, upper, reach):
    scale = float(np.max(np.maximum(np.abs(lower), np.abs(upper)))) or 1.0
    rows = np.flatnonzero(reach > 0)  # a row nothing moves has b_j = 0 (checked) and drops
    return _ScaledBox(
        G[rows] * (scale / reach[rows, None]),
        b[rows] / reach[rows],
        lower / scale,
        upper / scale,
        scale,
        rows,
        reach[rows],
    )


def _feasible_point(box, labels):
    r"""The box point nearest :math:`Gx = b` in the 1-norm (linprog); raise if it misses.

    Variables :math:`(x, e^+, e^-)` minimize :math:`\sum(e^+ + e^-)` subject to
    :math:`Gx + e^+ - e^- = b`: the optimum is zero exactly when the request is reachable.
    """
    k, m = box.G.shape
    if not k:
        return np.clip(0.0, box.lower, box.upper)
    cost = np.concatenate([np.zeros(m), np.ones(2 * k)])
    A_eq = np.hstack([box.G, np.eye(k), -np.eye(k)])
    bounds = list(zip(box.lower, box.upper)) + [(0, None)] * (2 * k)
    result = optimize.linprog(cost, A_eq=A_eq, b_eq=box.b, bounds=bounds, method="highs")
    if result.status != 0:
        raise RuntimeError(f"linprog failed on the reachability problem: {result.message}")
    if result.fun > FEASIBILITY_RTOL:
        miss = (result.x[m : m + k] - result.x[m + k :]) * box.reach  # b - G u, original units
        j = int(np.argmax(np.abs(miss)))
        raise ValueError(
            f"{labels.rhs}, {labels.bound_arguments}: expected a request that "
            f"{labels.box} can produce in every row at once; each row of {labels.rhs} is "
            f"within reach on its own, but the nearest reachable {labels.matrix} "
            f"{labels.unknown} (in the 1-norm relative to each row's reach) still misses "
            f"{labels.rhs} by {np.array2string(miss, precision=4)} in rows "
            f"{box.rows.tolist()}, most in {labels.rhs}[{box.rows[j]}]: loosen the bounds "
            "or lower the request"
        )
    return np.clip(result.x[:m], box.lower, box.upper)


# ---------------------------------------------------------------------------
# Minimization
# ---------------------------------------------------------------------------


def _minimize_linear(box, cost):
    """linprog (HiGHS) for the linear objective ``cost @ x`` on the scaled box."""
    has_rows = box.G.shape[0] > 0
    result = optimize.linprog(
        cost / np.abs(cost).max(initial=1.0),
        A_eq=box.G if has_rows else None,
        b_eq=box.b if has_rows else None,
        bounds=list(zip(box.lower, box.upper)),
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"linprog failed: {result.message}")
    return result.x, result.nit, result.message


def _minimize_smooth(C, c, box, x0, objective):
    """Two SLSQP runs from ``x0``, the second rescaled around the first answer."""
    x, iterations, message = x0, 0, "the feasible start has zero objective"
    for _ in range(2):
        if objective.value(x) == 0.0:  # the objectives are nonnegative: zero is optimal
            break
        x, nit, message = _slsqp(C, c, box.lower, box.upper, x, objective)
        iterations += nit
    return x, iterations, message


def _slsqp(C, c, lower, upper, x0, objective):
    """One SLSQP run with unknowns and objective normalized at the start point ``x0``."""
    size, f0 = np.abs(x0).max(), objective.value(x0)

    def normalized(y):
        x = y * size
        return objective.value(x) / f0, objective.gradient(x) * (size / f0)

    equality = {"type": "eq", "fun": lambda y: C @ (size * y) - c, "jac": lambda y: size * C}
    result = optimize.minimize(
        normalized,
        x0 / size,
        jac=True,
        method="SLSQP",
        bounds=optimize.Bounds(lower / size, upper / size),
        constraints=[equality] if C.shape[0] else [],
        options=_SLSQP_OPTIONS,
    )
    if not result.success:  # keep the feasible start; the face solve may still finish
        return x0, result.nit, f"SLSQP stopped early: {result.message}"
    return np.clip(result.x * size, lower, upper), result.nit, result.message


def _active_sets(x, lower, upper):
    return x - lower <= ACTIVE_RTOL, upper - x <= ACTIVE_RTOL


def _solve_on_face(C, c, lower, upper, x, objective):
    """Minimize exactly with the active entries held at their bounds; None if that fails.

    Starts from the entries SLSQP left at a bound; an entry that the face solve pushes
    out of the box joins them and the solve is repeated (at most once per entry).
    """
    at_lower, at_upper = _active_sets(x, lower, upper)
    for _ in range(len(x) + 1):
        x = np.where(at_lower, lower, np.where(at_upper, upper, x))
        face = _newton_on_face(C, c, lower, upper, x, at_lower | at_upper, objective)
        if face is None:
            return None
        below, above = face < lower - ACTIVE_RTOL, face > upper + ACTIVE_RTOL
        if not (below.any() or above.any()):
            return np.clip(face, lower, upper)
        at_lower, at_upper = at_lower | below, at_upper | above
    return None


def _newton_on_face(C, c, lower, upper, x, held, objective):
    r"""Newton steps :math:`\Delta z = -(N^THN)^{-1}N^Tg` on the entries not ``held``.

    ``N`` spans the null space of the free columns of ``C``; the held entries keep their
    values (the caller puts them at their bounds).  Returns the face minimizer, or the
    first iterate that leaves the box, or None when the equality cannot be met on the
    face or a Newton system is not positive definite.
    """
    x, free = x.copy(), ~held
    if C.shape[0]:
        x[free] += np.linalg.lstsq(C[:, free], c - C @ x, rcond=None)[0]
        if np.abs(C @ x - c).max() > 1e-12:  # the held entries already decide the rows
            return None
    N = scipy.linalg.null_space(C[:, free]) if C.shape[0] else np.eye(int(free.sum()))
    for _ in range(_FACE_NEWTON_STEPS if N.shape[1] else 0):
        H = objective.hessian(x)[np.ix_(free, free)]
        g = objective.gradient(x)[free]
        try:
            step = -N @ scipy.linalg.cho_solve(scipy.linalg.cho_factor(N.T @ H @ N), N.T @ g)
        except (np.linalg.LinAlgError, ValueError):  # singular or non-finite Hessian
            return None
        x[free] += step
        if np.any(x < lower - ACTIVE_RTOL) or np.any(x > upper + ACTIVE_RTOL):
            return x
        if np.abs(step).max() <= 4 * np.finfo(float).eps * (1 + np.abs(x[free]).max()):
            break
    return x


def _multipliers(x, g, C, lower, upper):
    r"""Multipliers of :math:`g = C^T\lambda + \mu`, fitted by bounded least squares.

    :math:`\mu_i \ge 0` at a lower bound, :math:`\le 0` at an upper bound, either sign for
    a fixed entry, zero for a free entry.
    """
    at_lower, at_upper = _active_sets(x, lower, upper)
    active = np.flatnonzero(at_lower | at_upper)
    A = np.hstack([C.T, np.eye(len(x))[:, active]])
    mu = np.zeros(len(x))
    if not A.shape[1]:
        return np.zeros(0), mu
    low = np.concatenate([np.full(C.shape[0], -np.inf), np.where(at_upper, -np.inf, 0.0)[active]])
    high = np.concatenate([np.full(C.shape[0], np.inf), np.where(at_lower, np.inf, 0.0)[active]])
    fit = optimize.lsq_linear(A, g, bounds=(low, high), method="bvls").x
    mu[active] = fit[C.shape[0] :]
    return fit[: C.shape[0]], mu


def _relative_gap(x, C, c, lower, upper, objective):
    r"""Relative duality gap :math:`(f(x) - D)/f(x)`, a bound on the relative suboptimality.

    :math:`D = \lambda^Tc + \text{objective.dual\_bound}(C^T\lambda, \mu)` is a
    Lagrangian lower bound on the minimum for any sign-feasible multipliers (weak
    duality), here the ones fitted at ``x``.
    """
    f = objective.value(x)
    if f == 0.0:  # the objectives are nonnegative
        return 0.0
    lam, mu = _multipliers(x, objective.gradient(x), C, lower, upper)
    bound = lam @ c + objective.dual_bound(C.T @ lam, mu, lower, upper)
    return max(float((f - bound) / f), 0.0)
