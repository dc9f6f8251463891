r"""Allocation under bounds: a weighted quadratic program (:func:`bounded_allocation`) and
muscle-force sharing (:func:`muscle_forces`).

See :mod:`geomotion.allocation` for the conventions.  The checks, the scaling, the
residual check and the optimality certificate are described in
``geomotion.allocation._box``; the minimizers (DAQP for quadratics, HiGHS for ``p = 1``,
Newton on the dual for other stress exponents), with the measurements behind the choice
of DAQP, in ``geomotion.allocation._solvers``.

Both functions accept batches: leading axes of the map and the request, broadcast with
those of the weight, bounds, areas or capacities, give one problem per batch element,
solved one after the other in a loop here (DAQP has no batched interface).  The result's
arrays then carry the batch shape.  The first element that is infeasible or fails stops
the loop with its error, prefixed by ``batch element (i, ...)``.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._linalg import _check_batches, _vector
from ..errors import ConvergenceError
from . import _box, _solvers
from .family import _map
from .weighted import _metric_factor


@dataclass(frozen=True)
class BoundedAllocation:
    r"""Result of :func:`bounded_allocation` and :func:`muscle_forces`.

    For a batch of problems (leading axes ``...``) every field is an array with the
    batch shape in front; for one problem the scalars are Python scalars.

    Attributes
    ----------
    solution : (..., m) ndarray
        The allocated unknowns: inputs :math:`u`, or muscle forces :math:`s` [N].
    objective : numpy.float64 or (...) ndarray
        Objective at ``solution``: :math:`\tfrac12u^TWu`, or :math:`\sum_i(s_i/A_i)^p`
        [Pa^p].
    residual : numpy.float64 or (...) ndarray
        :math:`\max_j|(Gu - b)_j|` in the units of ``b`` (N m for joint loads); checked
        before returning to be at most ``rtol`` (the call's keyword, default ``1e-9``)
        times :math:`|b_j| + \sum_i|G_{ji}u_i|` in every row.
    at_lower, at_upper : (..., m) ndarray of bool
        Which entries sit at their lower or upper bound, within :math:`10^{-9}` times
        that entry's own scale (its bound magnitude, the larger of :math:`|u_{\min,i}|` and
        :math:`|u_{\max,i}|` (or of 0 and :math:`s_{\max,i}`), times
        the size, at most 1, of the solution relative to the bounds; see
        ``geomotion.allocation._box``).
    optimality : numpy.float64 or (...) ndarray
        Certified relative optimality gap :math:`(f - D)/f`, with :math:`D` a Lagrangian
        lower bound on the minimum built from the solver's row multipliers (weak
        duality, see ``geomotion.allocation._box.relative_gap``): the objective is
        within this fraction of the true minimum.  Values above :math:`10^{-8}` raise
        :class:`~geomotion.errors.ConvergenceError` instead of being returned.
    iterations : int or (...) ndarray of int
        Iterations of the minimizer (DAQP active-set changes, HiGHS iterations, or dual
        Newton steps for ``p`` other than 1 and 2); 0 when every input is fixed.
    message : str or (...) ndarray of str
        The minimizer's termination message.
    """

    solution: np.ndarray
    objective: float
    residual: float
    at_lower: np.ndarray
    at_upper: np.ndarray
    optimality: float
    iterations: int
    message: str


def bounded_allocation(G, b, W, u_min, u_max, *, rtol=1e-9):
    r"""The weighted allocation under input bounds: a convex quadratic program.

    .. math:: \min_u \tfrac12u^TWu \quad\text{subject to}\quad Gu = b,\qquad
              u_{\min}\le u\le u_{\max}

    With no bound active the answer is
    :func:`~geomotion.allocation.weighted_allocation`, equation
    :eq:`eq-ch2-optimal-null-space`.  With active bounds it is not the
    clipped unbounded answer: clipping breaks :math:`Gu = b`, and the other inputs must
    take over the clipped share in the proportions :math:`W` dictates (clipping is right
    only without the equality and with a diagonal :math:`W`).  Bounds can also rule out
    a request the unbounded family meets, e.g. :math:`G = (1, 1)`, :math:`b = 1` with
    :math:`0\le u\le 0.3` (at most 0.6 is reachable): that is a ValueError naming the
    row and the interval the box allows.

    Solved by the dual active-set QP solver DAQP on a problem scaled input by input (see
    ``geomotion.allocation._box`` and ``_solvers``); the answer's residual of the request
    and its certified optimality gap are checked before it is returned.  Example:
    :math:`G = (1, 1, 1/2)`, :math:`b = 1`, :math:`W = \mathrm{diag}(1, 4, 2)` and
    :math:`0\le u\le 10^9` give :math:`u = (8, 2, 2)/11` (no bound active).

    Parameters
    ----------
    G : (..., d, m) array_like
        Effective input map (acceleration per input unit); dependent rows are fine when
        the request is consistent.
    b : (..., d) array_like or 0
        Requested acceleration minus drift.
    W : (..., m, m) array_like
        Symmetric positive definite weight.
    u_min, u_max : float or (..., m) array_like
        Finite input bounds with ``u_min <= u_max`` (equal entries fix an input), in the
        units of the inputs.
    rtol : float, keyword-only
        Accepted residual of the request, row by row, relative to the request's size
        :math:`|b_j| + \sum_i|G_{ji}u_i|` (default ``1e-9``).  The same tolerance decides
        whether dependent rows of ``G`` ask for consistent values and whether a row that
        only fixed inputs move is met.

    Returns
    -------
    BoundedAllocation
        ``solution`` is :math:`u`; ``objective`` is :math:`\tfrac12u^TWu` (the factor ½
        of every quadratic cost in ``geomotion``: a text that writes :math:`u^TWu`
        passes ``2 * W`` and gets the same :math:`u`); arrays carry the broadcast batch
        shape of the arguments.

    Notes
    -----
    **Batches**: leading axes of ``G``, ``b``, ``W``, ``u_min`` and ``u_max`` broadcast to
    one problem per element, solved one after the other (DAQP has no batched
    interface); every field of the result carries the batch shape, and an element that
    is infeasible or fails raises with ``batch element (i, ...)`` in front of its
    message.

    Raises
    ------
    ValueError
        If an argument is malformed or non-finite, shapes or batches disagree, ``W`` is
        not symmetric positive definite, ``u_min > u_max`` somewhere, or no input within
        the bounds achieves :math:`Gu = b` (naming the unreachable row of ``b`` and its
        reachable interval, or the joint miss when the rows are reachable only one at a
        time; in a batch, prefixed by the element's index).
    geomotion.errors.ConvergenceError
        If the solver's answer misses the request by more than ``rtol`` or fails the
        optimality certificate (a ``RuntimeError``).
    RuntimeError
        If the solver stops without an answer on a feasible problem.
    """
    G = _map(G, "G")
    d, m = G.shape[-2:]
    b = _vector(b, "b", d)
    W, _ = _metric_factor(W, "W", m, "G")
    lower, upper = _per_unknown(u_min, "u_min", m), _per_unknown(u_max, "u_max", m)
    labels = _box.Labels("u", "G", "b", "u_min", "u_max")

    rtol = _residual_rtol(rtol)

    def solve_one(G, b, W, lower, upper):
        return _allocate(G, b, lower, upper, _Quadratic(W), labels, rtol)

    arguments = {"G": (G, 2), "b": (b, 1), "W": (W, 2), "u_min": (lower, 1), "u_max": (upper, 1)}
    return _over_batch(arguments, solve_one)


def muscle_forces(R, tau, areas, s_max, *, p=2, rtol=1e-9):
    r"""Muscle forces that produce the joint loads with the least summed stress to the ``p``.

    .. math:: \min_s \sum_i\left(\frac{s_i}{A_i}\right)^p \quad\text{subject to}\quad
              Rs = \tau,\qquad 0\le s\le s_{\max}

    :math:`R(q)` holds signed moment arms (joints x muscles), so :math:`(Rs)_j` is the
    load the muscles apply about joint :math:`j`.  Unbounded solutions differ from each
    other by elements of :math:`\ker R`, and a nonzero load needs a solution outside it.
    The bounds (muscles only pull, up to a capacity) can shrink that freedom to nothing
    or leave no solution at all; the latter is a ValueError naming the joint that cannot
    be served and the range of loads the muscles can produce there.

    The objective is a modelling assumption that picks one pattern among many; it is not
    a measured account of what the nervous system optimizes (Zajac, 1989), and the
    activation dynamics that further restrict the forces are not modelled here.

    For ``p = 2`` the problem is a convex quadratic program whose answer, while no bound
    is active, is equation :eq:`eq-ch2-optimal-null-space` with
    :math:`W = \mathrm{diag}(1/A_i^2)`; it is solved as in
    :func:`bounded_allocation`.  Every ``p > 1`` gives a strictly convex objective on
    :math:`s\ge 0`, minimized by Newton's method on the separable dual, started from the
    ``p = 2`` answer.  ``p = 1`` is a linear program, solved by
    ``scipy.optimize.linprog`` (HiGHS); its minimizer need not be unique, and one vertex
    is returned.  Every answer's residual and its duality-gap certificate are checked
    before it is returned.  Near ``p = 1`` the forces of weakly loaded muscles become
    tiny but stay positive (they scale like a power :math:`1/(p-1)` of their share).

    Parameters
    ----------
    R : (..., joints, muscles) array_like
        Signed moment arms [m].
    tau : (..., joints) array_like or 0
        Required joint loads [N m].
    areas : float or (..., muscles) array_like
        Physiological cross-sectional areas :math:`A_i` [m^2], positive.
    s_max : float or (..., muscles) array_like
        Force capacities [N], nonnegative (a zero capacity removes a muscle).
    p : float, keyword-only
        Exponent, ``p >= 1`` (default 2).
    rtol : float, keyword-only
        Accepted residual of the joint loads, row by row, relative to
        :math:`|\tau_j| + \sum_i|R_{ji}s_i|` (default ``1e-9``), as in
        :func:`bounded_allocation`.

    Returns
    -------
    BoundedAllocation
        ``solution`` holds the forces :math:`s` [N]; ``objective`` is
        :math:`\sum_i(s_i/A_i)^p` [Pa^p] (no factor ½: for ``p = 2`` it is twice the
        :math:`\tfrac12s^TWs` of :func:`bounded_allocation` with
        :math:`W = \mathrm{diag}(1/A_i^2)`, and the minimizer is the same);
        ``residual`` is :math:`\max_j|Rs - \tau|_j` [N m]; arrays carry the broadcast
        batch shape of the arguments.

    Notes
    -----
    **Batches**: leading axes of ``R``, ``tau``, ``areas`` and ``s_max`` broadcast to one
    problem per element, solved one after the other; an element that is infeasible or
    fails raises with ``batch element (i, ...)`` in front of its message.  ``p`` is one
    exponent for the whole call.

    Raises
    ------
    ValueError
        If an argument is malformed or non-finite, shapes or batches disagree, an area is
        not positive, a capacity is negative, ``p`` is not a number >= 1, or no forces
        within :math:`0\le s\le s_{\max}` produce :math:`\tau` (naming the joint and its
        reachable load range, or the joint miss when the joints are reachable only one
        at a time; in a batch, prefixed by the element's index).
    geomotion.errors.ConvergenceError
        If the answer misses the request by more than ``rtol`` or fails the optimality
        certificate, or the dual Newton iteration (``p`` other than 1 and 2) stops
        before meeting the rows (a ``RuntimeError``).
    RuntimeError
        If a solver stops without an answer on a feasible problem.
    """
    R = _map(R, "R")
    joints, muscles = R.shape[-2:]
    tau = _vector(tau, "tau", joints)
    areas = _per_unknown(_validate.positive(areas, "areas"), "areas", muscles)
    s_max = _per_unknown(_validate.nonnegative(s_max, "s_max"), "s_max", muscles)
    p = _exponent(p)
    labels = _box.Labels("s", "R", "tau", "0", "s_max")

    rtol = _residual_rtol(rtol)

    def solve_one(R, tau, areas, s_max):
        return _allocate(R, tau, np.zeros(muscles), s_max, _StressPower(areas, p), labels, rtol)

    arguments = {"R": (R, 2), "tau": (tau, 1), "areas": (areas, 1), "s_max": (s_max, 1)}
    return _over_batch(arguments, solve_one)


# ---------------------------------------------------------------------------
# Validation and batches
# ---------------------------------------------------------------------------


def _per_unknown(value, name, m):
    """Validate a per-unknown quantity given as a scalar or a (..., m) array."""
    array = _validate.real_array(value, name)
    if array.ndim == 0:
        return np.full(m, float(array))
    if array.shape[-1] != m:
        raise ValueError(
            f"{name}: expected a scalar or shape ({m},) (or (..., {m}) for a batch), "
            f"got shape {array.shape}"
        )
    return array


def _residual_rtol(value):
    rtol = _validate.nonnegative(value, "rtol")
    if rtol.ndim:
        raise ValueError(f"rtol: expected one relative tolerance, got shape {rtol.shape}")
    return float(rtol)


def _exponent(value):
    p = _validate.real_array(value, "p")
    if p.ndim or p < 1:
        raise ValueError(f"p: expected one exponent p >= 1 (a convex objective), got {value!r}")
    return float(p)


def _over_batch(arguments, solve_one):
    """Solve one problem per element of the broadcast batch; stack the reports.

    ``arguments`` maps names to ``(array, core ndim)``.  A problem's error is re-raised
    with the index of its batch element in front.
    """
    batch = _check_batches(**arguments)
    arrays = [
        np.broadcast_to(a, batch + a.shape[a.ndim - core :]) for a, core in arguments.values()
    ]
    if not batch:
        return solve_one(*arrays)
    reports = []
    for index in np.ndindex(batch):
        try:
            reports.append(solve_one(*(a[index] for a in arrays)))
        except (ValueError, RuntimeError) as error:
            # The same exception (a ConvergenceError keeps its attributes), its index first;
            # built without __init__, whose signature differs between the classes.
            located = type(error).__new__(type(error))
            located.__dict__.update(error.__dict__)
            located.args = (f"batch element {index}: {error}",)
            raise located from error
    fields = {
        name: np.reshape(
            [getattr(r, name) for r in reports], batch + np.shape(getattr(reports[0], name))
        )
        for name in BoundedAllocation.__dataclass_fields__
    }
    return BoundedAllocation(**fields)


# ---------------------------------------------------------------------------
# Objectives and the report
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Quadratic:
    r""":math:`\tfrac12u^TWu`."""

    W: np.ndarray

    def value(self, u):
        return 0.5 * u @ self.W @ u

    def dual_excess(self, u, y, lower, upper):
        r""":math:`f(u) - y^Tu - \min_v[f(v) - (y + \mu)^Tv] - \mu^T\beta` for bound
        multipliers :math:`\mu = Wu - y` kept on the entries that sit at the bound
        :math:`\beta_i` their sign picks (:math:`\ell_i` if :math:`\mu_i > 0`, else
        :math:`h_i`) and zero elsewhere.

        The inner minimum over all :math:`v` is :math:`-\tfrac12z^TW^{-1}z`,
        :math:`z = y + \mu`; the expression equals
        :math:`\tfrac12(Wu - z)^TW^{-1}(Wu - z) + \mu^T(u - \beta)`, in which rounding
        noise of the fitted multipliers enters only quadratically.
        """
        mu = self.W @ u - y
        ends = np.where(mu > 0, lower, upper)
        mu[np.abs(u - ends) > 8 * np.finfo(float).eps * np.abs(ends)] = 0.0
        r = self.W @ u - (y + mu)
        return 0.5 * r @ np.linalg.solve(self.W, r) + mu @ (u - ends)

    def minimize(self, problem):
        """DAQP on the free inputs; the fixed ones enter through the coupling of ``W``."""
        free = problem.free
        H, g = self.W[np.ix_(free, free)], self.W[free] @ problem.u_fixed
        return _solvers.minimize_quadratic(problem, H, g)


@dataclass(frozen=True)
class _StressPower:
    r""":math:`\sum_i(s_i/A_i)^p` on :math:`s\ge 0` (negative probes count as zero)."""

    areas: np.ndarray
    p: float

    def _stress(self, s):
        return np.maximum(s, 0.0) / self.areas

    def value(self, s):
        return float(np.sum(self._stress(s) ** self.p))

    def gradient(self, s):
        """The gradient; for ``p = 1`` the right derivative ``1/A`` (a subgradient at 0)."""
        return self.p * self._stress(s) ** (self.p - 1) / self.areas

    def dual_excess(self, u, y, lower, upper):
        r""":math:`\sum_i[f_i(u_i) - y_iu_i - \min_{\ell_i\le v\le h_i}(f_i(v) - y_iv)]`.

        Separable, so each minimum is one-dimensional and convex: at the stationary point
        :math:`v = A_i(A_iy_i/p)^{1/(p-1)}` clipped to the interval, or at an end (``p = 1``:
        the ends only).
        """
        candidates = [lower, upper]
        if self.p > 1:
            with np.errstate(over="ignore"):
                ratio = np.maximum(self.areas * y / self.p, 0.0) ** (1 / (self.p - 1))
            candidates.append(np.clip(self.areas * ratio, lower, upper))
        inner = np.min([(v / self.areas) ** self.p - y * v for v in candidates], axis=0)
        return float(np.sum((self._stress(u) ** self.p - y * u) - inner))

    def minimize(self, problem):
        areas = self.areas[problem.free]
        if self.p == 1:
            return _solvers.minimize_linear(problem, 1 / areas)
        H = np.diag(2 / areas**2)  # sum (s/A)^2 = (1/2) s^T diag(2/A^2) s
        x, lam, steps, message = _solvers.minimize_quadratic(problem, H, np.zeros(len(areas)))
        if self.p == 2:
            return x, lam, steps, message
        start = _fitted_multipliers(problem, self, problem.unscale(x))
        return _solvers.maximize_stress_dual(problem, self, start)


def _fitted_multipliers(problem, objective, u):
    r"""Row multipliers :math:`\lambda` fitting :math:`\nabla f = G^T\lambda` (least squares)
    on the entries strictly inside their bounds (on all entries if there are none)."""
    tol = _box._ACTIVE_RTOL * problem.active_scale
    inside = (u > problem.lower + tol) & (u < problem.upper - tol)
    entries = inside if inside.any() else np.ones(len(u), dtype=bool)
    return np.linalg.lstsq(problem.G[:, entries].T, objective.gradient(u)[entries], rcond=None)[0]


def _allocate(G, b, lower, upper, objective, labels, rtol):
    problem = _box.prepare(G, b, lower, upper, labels, rtol)
    if problem.free.size:
        x, lam, iterations, message = objective.minimize(problem)
    else:
        x, lam, iterations, message = np.zeros(0), np.zeros(len(b)), 0, "every input is fixed"
    u = problem.unscale(x)
    residual = _box.check_residual(problem, u, iterations)
    optimality = _box.relative_gap(u, lam, objective, G, b, lower, upper)
    if optimality > _box._OPTIMALITY_RTOL:
        raise ConvergenceError(
            f"the bounded solver's answer has certified relative optimality gap "
            f"{optimality:.3g} above {_box._OPTIMALITY_RTOL:g} ({message})",
            residual=optimality,
            tolerance=_box._OPTIMALITY_RTOL,
            iterations=iterations,
            suggestion="inputs, bounds and weights in units that make the inputs of "
            "comparable size",
        )
    tol = _box._ACTIVE_RTOL * problem.active_scale
    return BoundedAllocation(
        solution=u,
        objective=np.float64(objective.value(u)),  # per-problem numbers are NumPy scalars
        residual=np.float64(residual),
        at_lower=u - lower <= tol,
        at_upper=upper - u <= tol,
        optimality=np.float64(optimality),
        iterations=iterations,
        message=str(message),
    )
