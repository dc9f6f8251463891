r"""Local observability of an autonomous system from output Lie derivatives.

For :math:`\dot x = f(x)`, :math:`y = h(x)`, the output and its time derivatives along
the motion are the Lie derivatives

.. math:: L_f^0h = h,\qquad L_f^{k+1}h = D(L_f^kh)\,f,\qquad
          y^{(k)}(t) = L_f^kh(x(t)),

and :func:`observability_rank` reports the rank of their differentials
:math:`d(L_f^kh)(x)` at a state.  Full rank :math:`n` (with enough orders) is a
*sufficient local* condition, for smooth systems under the usual hypotheses: states near
:math:`x` are distinguished from :math:`x` by their output histories.  It does not give
global uniqueness (distant states may produce the same output), numerical conditioning
(a nearly dependent row distinguishes states only through tiny output differences;
the report's margins show how close to dependent the rows are), or identifiability of
parameters (augmenting them as constant states still needs inputs that excite them).
A system with inputs needs its input fields or a known input history as well.

A rank deficit is first-order information.  The kernel of the differentials holds the
directions in which the outputs do not change to first order; the set of states that
really give the same output need not be a linear space: for :math:`\dot x = 0`,
:math:`y = x_1^2 + x_2^2` the kernel at :math:`x` is the tangent line of the circle
through :math:`x`, while the indistinguishable states are the whole circle (and points
on the tangent line away from :math:`x` are distinguishable).
"""

from dataclasses import dataclass

import numpy as np

from .. import _numerics, _validate, constraints
from .brackets import _rank_rtol

__all__ = ["ObservabilityReport", "observability_rank"]


@dataclass(frozen=True)
class ObservabilityReport:
    r"""Result of :func:`observability_rank` at one state.

    Attributes
    ----------
    rank : int
        Number of independent differentials found.
    dimension : int
        Number of state coordinates :math:`n`.
    full_rank : bool
        ``rank == dimension``: the local rank condition holds at ``x`` (numerically).
    rows : tuple of str
        Labels of the independent differentials, e.g. ``("dh", "d(L_f h)")``.
    differentials : (rank, n) ndarray
        Those differentials at ``x`` (units of the output derivative per state unit).
    kernel : (n, n - rank) ndarray
        Orthonormal basis of the directions none of them sees: first-order
        indistinguishable directions, not a set of indistinguishable states.
    margins : (rank,) ndarray
        For each row, the sine of its angle to the span of the earlier rows.
    order : int
        Highest Lie-derivative order evaluated.
    tolerance : float
        The relative tolerance ``rtol`` used.
    """

    rank: int
    dimension: int
    full_rank: bool
    rows: tuple
    differentials: np.ndarray
    kernel: np.ndarray
    margins: np.ndarray
    order: int
    tolerance: float


def _output_function(h, x):
    """``h`` as a (trusted) function returning (..., p), and p; a scalar output gets p = 1."""
    value = _validate.real_array(h(x), "h")
    if value.ndim > 1:
        raise ValueError(
            f"h: expected an output of shape (p,) or () at one state, got shape {value.shape}"
        )
    if value.ndim == 1 and value.shape[0] == 0:
        raise ValueError("h: expected at least one output, got shape (0,)")
    if value.ndim == 0:
        return _numerics.Trusted(lambda y: _numerics.evaluate(h, (y,), (), "h")[..., None]), 1
    p = value.shape[0]
    return _numerics.Trusted(lambda y: _numerics.evaluate(h, (y,), (p,), "h")), p


def _next_lie_derivative(previous, f, p, step):
    r""":math:`L_f^{k+1}h = D(L_f^kh)f` as a new function, from the function of order k."""

    def derivative(y):
        D = _numerics.jacobian(previous, y, p, "h", step)
        value = _numerics.evaluate(f, (y,), (y.shape[-1],), "f")
        return np.einsum("...ij,...j->...i", D, value)

    return _numerics.Trusted(derivative)


def _labels(k, p):
    lie = "h" if k == 0 else ("L_f h" if k == 1 else f"L_f^{k} h")
    if p == 1:
        return [f"d({lie})" if k else "dh"]
    return [f"d({lie}[{j}])" if k else f"dh[{j}]" for j in range(p)]


def observability_rank(f, h, x, *, order=None, step=None, rtol=1e-5):
    r"""Rank of the output Lie derivatives' differentials, :math:`\dot x = f(x)`, :math:`y = h(x)`.

    Orders :math:`k = 0, 1, \dots` are evaluated in turn, each differential
    :math:`d(L_f^kh)(x)` by differences of the order-:math:`k` function, so order
    :math:`k` nests :math:`k + 1` differentiations, all with the step
    ``step * 3**k`` (default ``step`` = 2e-3): each nesting multiplies
    the rounding error by about :math:`3/h`.  Measured relative errors: :math:`10^{-13}`
    for order 0, :math:`6\cdot10^{-9}` for order 3 of random linear systems,
    :math:`3\cdot10^{-7}` for order 3 of a pendulum; higher orders need exact
    derivatives.  The search stops when the rank reaches :math:`n` or ``order`` is done.
    Rows are normalized before the rank test, as in
    :func:`geomotion.control.accessibility_rank`.  See
    ``geomotion.control.observability`` for what a full or deficient rank does and does
    not establish.

    Parameters
    ----------
    f : callable
        ``f(x) -> (..., n)``, broadcasting over leading axes or written for one state
        (then called once per point of a stack, as in :func:`geomotion.control.lie_bracket`).
    h : callable
        ``h(x) -> (..., p)`` or a scalar output ``(...)``, likewise.
    x : (n,) array_like
        One state.
    order : int, optional
        Highest Lie-derivative order, >= 0; default (None) :math:`n - 1`.
    step : float or (n,) array_like, optional
        Base difference step per coordinate, in the units of each coordinate (default
        None: 2e-3), scaled up with the order as above.
    rtol : float, optional
        Relative rank tolerance, in (0, 1) (default 1e-5): a differential counts as zero
        when its norm is at most ``rtol`` times the largest one evaluated, and adds a
        direction when the sine of its angle to the span of the earlier ones exceeds
        ``rtol``.

    Returns
    -------
    ObservabilityReport
        The rank at ``x``, the differentials that supplied it and the unseen directions.

    Batches
    -------
    One state per call: ``x`` has shape (n,).  The search is adaptive (it stops at the
    order where the rank reaches :math:`n`), and the rows, margins and kernel of the
    report differ in number from state to state, so they do not fit one array; call it
    once per state.

    Raises
    ------
    TypeError
        If ``f`` or ``h`` is not callable.
    ValueError
        If ``f`` or ``h`` returns a wrong shape (at any point) or
        non-finite values; ``x`` is not one finite state; ``order`` is not an int >= 0;
        ``rtol`` is not in (0, 1); ``step`` is not positive.
    """
    _numerics.callable_argument(f, "f", "f(x) -> (..., n)")
    _numerics.callable_argument(h, "h", "h(x) -> (..., p)")
    x = _numerics.single_state(x)
    n = x.shape[0]
    order = n - 1 if order is None else order
    order = _validate.count(order, "order", minimum=0)
    rtol = _rank_rtol(rtol)
    _numerics.evaluate(f, (x,), (n,), "f")
    output, p = _output_function(h, x)
    labels, rows, kept, margins, scale = [], [], [], [], 0.0
    for k in range(order + 1):
        # d(L_f^k h) nests k + 1 differentiations; all of them use the step for that depth.
        level_step = _numerics.nested_step(step, k + 1)
        lie = output
        for _ in range(k):
            lie = _next_lie_derivative(lie, f, p, level_step)
        labels += _labels(k, p)
        rows += list(_numerics.jacobian(lie, x, p, "h", level_step))
        scale = max([scale] + [float(np.linalg.norm(r)) for r in rows])
        kept, margins = _numerics.independent_vectors(rows, rtol, scale)
        if len(kept) == n:
            break
    selected = np.array([rows[i] for i in kept]).reshape(len(kept), n)
    unit_rows = selected / np.linalg.norm(selected, axis=1, keepdims=True)
    kernel = constraints.null_space_basis(unit_rows, require_regular=False)
    return ObservabilityReport(
        rank=len(kept),
        dimension=n,
        full_rank=len(kept) == n,
        rows=tuple(labels[i] for i in kept),
        differentials=selected,
        kernel=kernel,
        margins=np.array(margins),
        order=k,
        tolerance=rtol,
    )
