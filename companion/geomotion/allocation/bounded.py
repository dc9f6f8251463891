r"""Allocation under bounds: a weighted quadratic program (:func:`bounded_allocation`) and
muscle-force sharing (:func:`muscle_forces`), solved with :mod:`scipy.optimize`.

See :mod:`geomotion.allocation` for the conventions; the shared solve path (reachability
checks, scaling, SLSQP, the exact face solve and the optimality certificate) is described
in ``geomotion.allocation._box``.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .. import _validate
from .._linalg import _vector
from . import _box
from ._box import ACTIVE_RTOL
from .family import _map
from .weighted import _metric_factor


@dataclass(frozen=True)
class BoundedAllocation:
    r"""Result of :func:`bounded_allocation` and :func:`muscle_forces`.

    Attributes
    ----------
    solution : (m,) ndarray
        The allocated unknowns: inputs :math:`u`, or muscle forces :math:`s` [N].
    objective : float
        Objective at ``solution``: :math:`\tfrac12u^TWu`, or :math:`\sum_i(s_i/A_i)^p`
        [Pa^p].
    residual : float
        :math:`\max_j|(Gu - b)_j|` in the units of ``b`` (N m for joint loads).
    at_lower, at_upper : (m,) ndarray of bool
        Which entries sit at their lower or upper bound (within ``ACTIVE_RTOL``).
    optimality : float
        Certified relative optimality gap :math:`(f - D)/f`, with :math:`D` a Lagrangian
        lower bound on the minimum from multipliers fitted at ``solution`` (weak
        duality): the objective is within this fraction of the true minimum.  Values
        above ``OPTIMALITY_RTOL`` raise instead of being returned.
    iterations : int
        Iterations of the minimizer (0 when no search was needed).
    message : str
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


def bounded_allocation(G, b, W, lower, upper):
    r"""The weighted allocation of eq. (10) under input bounds: a convex quadratic program.

    .. math:: \min_u \tfrac12u^TWu \quad\text{subject to}\quad Gu = b,\qquad
              \ell\le u\le h

    With no bound active the answer is
    :func:`~geomotion.allocation.weighted_allocation`.  With active bounds it is not the
    clipped unbounded answer: clipping breaks :math:`Gu = b`, and the other inputs must
    take over the clipped share in the proportions :math:`W` dictates (clipping is right
    only without the equality and with a diagonal :math:`W`).  Bounds can also rule out
    a request the unbounded family meets, e.g. :math:`G = (1, 1)`, :math:`b = 1` with
    :math:`0\le u\le 0.3` (at most 0.6 is reachable): that is a ValueError naming the
    row and the interval the box allows.

    Solved by SLSQP with the analytic gradient :math:`Wu`, from a feasible start found
    by ``scipy.optimize.linprog``, then finished by an exact solve on the face of
    the box SLSQP ends on and certified by a duality gap (``optimality`` in the report;
    see ``geomotion.allocation._box``).  SLSQP keeps linear equalities and bounds in
    every subproblem, so active bounds are met exactly; an interior-point method
    (``trust-constr``) only approaches them, and ``scipy.optimize.lsq_linear`` has
    no equality constraints (only a penalty would approximate them).

    Parameters
    ----------
    G : (d, m) array_like
        Effective input map (acceleration per input unit); dependent rows are fine when
        the request is consistent.
    b : (d,) array_like or 0
        Requested acceleration minus drift.
    W : (m, m) array_like
        Symmetric positive definite weight.
    lower, upper : float or (m,) array_like
        Input bounds with ``lower <= upper`` (equal entries fix an input).

    Returns
    -------
    BoundedAllocation
        ``solution`` is :math:`u`; ``objective`` is :math:`\tfrac12u^TWu`.

    Raises
    ------
    ValueError
        If an argument is malformed or non-finite, shapes disagree, ``W`` is not
        symmetric positive definite, ``lower > upper`` somewhere, or no input within the
        bounds achieves :math:`Gu = b` (naming the unreachable row of ``b`` and its
        reachable interval, or the joint miss when the rows are reachable only one at a
        time).
    RuntimeError
        If a solver fails on a feasible problem.
    """
    G = _single_map(G, "G")
    d, m = G.shape
    b = _single_rhs(b, "b", d)
    W, L = _metric_factor(W, "W", m, "G")
    if W.ndim != 2:
        raise ValueError(f"W: expected one ({m}, {m}) matrix, got shape {W.shape}")
    lower, upper = _bound(lower, "lower", m), _bound(upper, "upper", m)
    labels = _box.Labels("u", "G", "b", "lower", "upper")
    return _allocate(G, b, lower, upper, _Quadratic(W, L), labels)


def muscle_forces(R, tau, areas, s_max, p=2):
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
    is active, is eq. (10) with :math:`W = \mathrm{diag}(1/A_i^2)`.  Every ``p > 1``
    gives a strictly convex objective on :math:`s\ge 0`, minimized by SLSQP with the
    analytic gradient :math:`p\,s_i^{p-1}/A_i^p`, then finished on the final face and
    certified by a duality gap as in :func:`bounded_allocation` (which also says why
    SLSQP).  ``p = 1`` is a linear program, solved by ``scipy.optimize.linprog``
    (HiGHS); its minimizer need not be unique, and one vertex is returned.  Near
    ``p = 1`` the forces of weakly loaded muscles become tiny but stay positive (they
    scale like a power :math:`1/(p-1)` of their share).

    Parameters
    ----------
    R : (joints, muscles) array_like
        Signed moment arms [m].
    tau : (joints,) array_like or 0
        Required joint loads [N m].
    areas : float or (muscles,) array_like
        Physiological cross-sectional areas :math:`A_i` [m^2], positive.
    s_max : float or (muscles,) array_like
        Force capacities [N], nonnegative (a zero capacity removes a muscle).
    p : float
        Exponent, ``p >= 1``.

    Returns
    -------
    BoundedAllocation
        ``solution`` holds the forces :math:`s` [N]; ``objective`` is
        :math:`\sum_i(s_i/A_i)^p` [Pa^p]; ``residual`` is :math:`\max_j|Rs - \tau|_j`
        [N m].

    Raises
    ------
    ValueError
        If an argument is malformed or non-finite, shapes disagree, an area is not
        positive, a capacity is negative, ``p`` is not a number >= 1, or no forces
        within :math:`0\le s\le s_{\max}` produce :math:`\tau` (naming the joint and its
        reachable load range, or the joint miss when the joints are reachable only one
        at a time).
    RuntimeError
        If a solver fails on a feasible problem.
    """
    R = _single_map(R, "R")
    joints, muscles = R.shape
    tau = _single_rhs(tau, "tau", joints)
    areas = _bound(_validate.positive(areas, "areas"), "areas", muscles)
    s_max = _bound(_validate.nonnegative(s_max, "s_max"), "s_max", muscles)
    p = _exponent(p)

    labels = _box.Labels("s", "R", "tau", "0", "s_max")
    return _allocate(R, tau, np.zeros(muscles), s_max, _StressPower(areas, p), labels)


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _single_map(value, name):
    G = _map(value, name)
    if G.ndim != 2:
        raise ValueError(
            f"{name}: expected one (d, m) matrix (the bounded solvers do not batch), "
            f"got shape {G.shape}"
        )
    return G


def _single_rhs(value, name, d):
    b = _vector(value, name, d)
    if b.ndim != 1:
        raise ValueError(f"{name}: expected shape ({d},), got shape {b.shape}")
    return b


def _bound(value, name, m):
    """Validate a per-unknown quantity given as a scalar or an (m,) vector; return (m,)."""
    bound = _validate.real_array(value, name)
    if bound.ndim == 0:
        return np.full(m, float(bound))
    if bound.shape != (m,):
        raise ValueError(f"{name}: expected a scalar or shape ({m},), got shape {bound.shape}")
    return bound


def _exponent(value):
    p = _validate.real_array(value, "p")
    if p.ndim or p < 1:
        raise ValueError(f"p: expected one exponent p >= 1 (a convex objective), got {value!r}")
    return float(p)


# ---------------------------------------------------------------------------
# Objectives and the report
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Quadratic:
    r""":math:`\tfrac12u^TWu`."""

    W: np.ndarray
    L: np.ndarray  # lower Cholesky factor of W
    linear = False

    def value(self, u):
        return 0.5 * u @ self.W @ u

    def gradient(self, u):
        return self.W @ u

    def hessian(self, u):
        return self.W

    def dual_bound(self, y, mu, lower, upper):
        r"""Lagrangian bound :math:`\min_u \tfrac12u^TWu - (y + \mu)^Tu + \mu^Tb_\mu`.

        The bound multipliers :math:`\mu` enter with :math:`b_\mu` the lower bound where
        :math:`\mu_i > 0` and the upper one where :math:`\mu_i < 0`; the minimum over all
        :math:`u` is :math:`-\tfrac12(y + \mu)^TW^{-1}(y + \mu)` (Cholesky solve).
        """
        z = y + mu
        bounds = np.where(mu > 0, lower, upper)
        return -0.5 * z @ scipy.linalg.cho_solve((self.L, True), z) + mu @ bounds


@dataclass(frozen=True)
class _StressPower:
    r""":math:`\sum_i(s_i/A_i)^p` on :math:`s\ge 0` (negative probes count as zero)."""

    areas: np.ndarray
    p: float

    @property
    def linear(self):
        return self.p == 1

    def _stress(self, s):
        return np.maximum(s, 0.0) / self.areas

    def value(self, s):
        return float(np.sum(self._stress(s) ** self.p))

    def gradient(self, s):
        return self.p * self._stress(s) ** (self.p - 1) / self.areas

    def hessian(self, s):
        with np.errstate(divide="ignore"):  # infinite at zero stress when p < 2
            curvature = self.p * (self.p - 1) * self._stress(s) ** (self.p - 2)
        return np.diag(curvature / self.areas**2)

    def dual_bound(self, y, mu, lower, upper):
        r"""Lagrangian bound :math:`\sum_i\min_{\ell_i\le s_i\le h_i}(s_i/A_i)^p - y_is_i`.

        Separable, so each term is a one-dimensional convex minimum: at the stationary
        point :math:`s_i = A_i(A_iy_i/p)^{1/(p-1)}` clipped to the box, or at an end of
        the interval (``mu`` is not needed: the box stays in the inner problem).
        """
        ends = np.stack([lower, upper])
        if self.p > 1:
            with np.errstate(divide="ignore", over="ignore"):
                ratio = np.maximum(self.areas * y / self.p, 0.0) ** (1 / (self.p - 1))
            ends = np.vstack([ends, np.clip(self.areas * ratio, lower, upper)])
        terms = (ends / self.areas) ** self.p - y * ends
        return float(np.sum(terms.min(axis=0)))


def _allocate(G, b, lower, upper, objective, labels):
    found = _box.solve(G, b, lower, upper, objective, labels)
    u = found.x
    tol = ACTIVE_RTOL * float(np.max(np.maximum(np.abs(lower), np.abs(upper))))
    return BoundedAllocation(
        solution=u,
        objective=float(objective.value(u)),
        residual=float(np.max(np.abs(G @ u - b))),
        at_lower=u - lower <= tol,
        at_upper=upper - u <= tol,
        optimality=found.optimality,
        iterations=found.iterations,
        message=found.message,
    )
