r"""Pointwise minimization of the Hamiltonian over the admissible inputs (Pontryagin).

For :math:`\dot z = \mathcal F_0(z) + \mathcal G(z)u`, running cost :math:`\ell` and
costate :math:`p`, the normal minimization Hamiltonian is
:math:`H = \ell + p^T\mathcal F` and an optimal input minimizes :math:`H` over the
admissible set :math:`\mathcal U` at every instant (equation :eq:`eq-ch2-pontryagin`).  The switching function
:math:`\sigma = \mathcal G^Tp` (plus any input-linear part of :math:`\ell`) collects what
multiplies :math:`u`:

* input-linear :math:`H = H_0 + \sigma^Tu` on a box: :func:`bang_bang_control`;
* :math:`\ell = \ell_0 + \tfrac12u^TRu`, :math:`R \succ 0`:
  :func:`quadratic_control` without bounds, :func:`box_quadratic_control` on a box.
  Like every cost of the package, the quadratic weight carries the factor 1/2; a text
  that writes :math:`\ell_0 + u^TRu` (chapter 2) passes ``2 * R``, since
  :math:`u^TRu = \tfrac12u^T(2R)u`.

Minimizing :math:`H` is what an optimal input must do (given regularity of the problem),
not a proof that an input is optimal; these helpers apply it at one instant to a given
:math:`\sigma`, and the costate itself comes from :math:`\dot p = -H_z` with the
transversality condition of the problem (:math:`p(T) = \nabla\phi` for a free final
state).  Inputs are in their own units (N m for joint torques); :math:`\sigma` in cost
per unit time per input unit, :math:`R` in cost per unit time per squared input unit.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import lsq_linear

from .. import _numerics, _validate
from .._linalg import _solve_lower

__all__ = [
    "BangBangControl",
    "bang_bang_control",
    "quadratic_control",
    "BoxQuadraticControl",
    "box_quadratic_control",
]


def _switching(sigma):
    sigma = _validate.real_array(sigma, "sigma")
    if sigma.ndim == 0 or sigma.shape[-1] == 0:
        raise ValueError(f"sigma: expected shape (..., m) with m >= 1, got shape {sigma.shape}")
    return sigma


def _box(u_min, u_max, m):
    """Validate finite bounds broadcastable to (..., m) with u_min <= u_max componentwise."""
    bounds = []
    for value, name in ((u_min, "u_min"), (u_max, "u_max")):
        array = _validate.real_array(value, name)
        if array.ndim and array.shape[-1] not in (1, m):
            raise ValueError(
                f"{name}: expected a scalar or shape (..., {m}), got shape {array.shape}"
            )
        bounds.append(array)
    lo, hi = bounds
    try:
        lo, hi = np.broadcast_arrays(lo, hi)
    except ValueError as error:
        raise ValueError(
            f"u_min, u_max: expected broadcastable shapes, got {lo.shape} and {hi.shape}"
        ) from error
    if np.any(lo > hi):
        worst = float((lo - hi).max())
        raise ValueError(
            f"u_min, u_max: expected u_min <= u_max componentwise (a non-empty "
            f"box), got u_min above u_max by up to {worst:.3g}"
        )
    return lo, hi


@dataclass(frozen=True)
class BangBangControl:
    r"""Result of :func:`bang_bang_control`.

    Attributes
    ----------
    control : (..., m) ndarray
        :math:`u_{\min}` where :math:`\sigma_i > atol`, :math:`u_{\max}` where
        :math:`\sigma_i < -atol`, and NaN where the component is singular: there the
        minimization of :math:`H` leaves it undetermined.
    singular : (..., m) ndarray of bool
        :math:`|\sigma_i| \le atol` on a box of nonzero width: a singular-arc candidate.
    tolerance : float
        The ``atol`` used.
    """

    control: np.ndarray
    singular: np.ndarray
    tolerance: float


def bang_bang_control(sigma, u_min, u_max, *, atol=0.0):
    r"""Minimize an input-linear Hamiltonian :math:`H = H_0 + \sigma^Tu` over a box, componentwise.

    .. math:: u_i = \begin{cases} u_{i,\min} & \sigma_i > 0 \\
                                  u_{i,\max} & \sigma_i < 0 \end{cases}

    Where :math:`|\sigma_i| \le atol` every value in :math:`[u_{i,\min}, u_{i,\max}]`
    minimizes :math:`H` (to within :math:`atol` times the box width), so the component is
    flagged singular and returned as NaN.  A single instant with :math:`\sigma_i = 0` is
    just a switch; when :math:`\sigma_i` vanishes on a whole interval the arc may be
    singular and the input there follows from higher-order conditions (differentiating
    :math:`\sigma_i` along the motion), which a pointwise test cannot decide.  A box of zero
    width (:math:`u_{i,\min} = u_{i,\max}`) fixes the component whatever :math:`\sigma_i`.
    The minimization :math:`u_*\in\arg\min_{u\in\mathcal U}H` of equation
    :eq:`eq-ch2-pontryagin`.

    Parameters
    ----------
    sigma : (..., m) array_like
        Switching function :math:`\sigma = \mathcal G^Tp` (plus the input-linear part of
        the running cost).
    u_min, u_max : float or (..., m) array_like
        Bounds of the box, :math:`u_{\min} \le u_{\max}`, broadcast with ``sigma``.
    atol : float, optional
        Absolute singularity threshold on :math:`|\sigma_i|`, >= 0, in the units of
        :math:`\sigma` (cost per unit time per input unit); default 0: only exact zeros.

    Batches
    -------
    Leading batch axes of ``sigma``, ``u_min`` and ``u_max`` broadcast.

    Returns
    -------
    BangBangControl
        ``control`` and ``singular`` with the broadcast shape (..., m); ``tolerance``
        the ``atol`` used (a Python float).

    Raises
    ------
    ValueError
        If ``sigma`` is not a finite (..., m) array, the bounds are non-finite, do not
        broadcast, or form an empty box (:math:`u_{\min} > u_{\max}`), or ``atol`` is
        negative.
    """
    sigma = _switching(sigma)
    lo, hi = _box(u_min, u_max, sigma.shape[-1])
    atol_array = _validate.nonnegative(atol, "atol")
    if atol_array.ndim:
        raise ValueError(f"atol: expected a non-negative number, got {atol!r}")
    tol = float(atol_array)
    try:
        sigma, lo, hi = np.broadcast_arrays(sigma, lo, hi)
    except ValueError as error:
        raise ValueError(
            f"u_min, u_max: expected shapes broadcastable with sigma {sigma.shape}, got {lo.shape}"
        ) from error
    pinned = lo == hi
    singular = (np.abs(sigma) <= tol) & ~pinned
    control = np.where(sigma > tol, lo, hi)
    control = np.where(pinned, lo, np.where(singular, np.nan, control))
    return BangBangControl(control=control, singular=singular, tolerance=tol)


def quadratic_control(R, sigma):
    r"""Unconstrained minimizer of :math:`\sigma^Tu + \tfrac12u^TRu`: :math:`u = -R^{-1}\sigma`.

    The gradient :math:`\sigma + Ru` vanishes there.  With :math:`\sigma = \mathcal G^Tp`
    this minimizes the Hamiltonian for :math:`\ell = \ell_0 + \tfrac12u^TRu`.  The seed
    writes :math:`\ell = \ell_0 + u^TRu` with minimizer
    :math:`-\tfrac12R^{-1}\mathcal G^Tp`: pass ``2 * R`` for it.  Solved with the Cholesky
    factor of :math:`R`.  The minimization of equation :eq:`eq-ch2-pontryagin`, without
    bounds.

    Parameters
    ----------
    R : (..., m, m) array_like
        Symmetric positive definite input weight, in cost per unit time per squared input
        unit.
    sigma : (..., m) array_like
        Switching function, in cost per unit time per input unit.

    Returns
    -------
    (..., m) ndarray
        The minimizer :math:`u = -R^{-1}\sigma`, in input units; batch axes of ``R`` and
        ``sigma`` broadcast.

    Raises
    ------
    ValueError
        If ``R`` is not symmetric positive definite, ``sigma`` is not a finite (..., m)
        array matching ``R``, or their batch axes do not broadcast.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import control
    >>> control.quadratic_control(np.diag([2.0, 4.0]), [1.0, 2.0])
    array([-0.5, -0.5])
    """
    sigma = _switching(sigma)
    R, L = _numerics.weight_matrix(R, "R", definite=True)
    if R.shape[-1] != sigma.shape[-1]:
        raise ValueError(
            f"sigma: expected shape (..., {R.shape[-1]}) to match R, got shape {sigma.shape}"
        )
    try:
        y = np.linalg.solve(L, -sigma[..., None])
    except ValueError as error:
        raise ValueError(
            f"R, sigma: expected broadcastable batch axes, got {R.shape} and {sigma.shape}"
        ) from error
    return np.linalg.solve(np.swapaxes(L, -1, -2), y)[..., 0]


@dataclass(frozen=True)
class BoxQuadraticControl:
    r"""Result of :func:`box_quadratic_control`.

    Attributes
    ----------
    control : (..., m) ndarray
        The minimizer.
    at_lower, at_upper : (..., m) ndarray of bool
        Components held at their lower / upper bound (both for a zero-width box).
    """

    control: np.ndarray
    at_lower: np.ndarray
    at_upper: np.ndarray


def _solve_one_box_qp(R, sigma, lo, hi):
    """min sigma^T u + 1/2 u^T R u on one box: fix zero-width components, then BVLS on the rest.

    With R_ff = L L^T on the free components and c = sigma_f + R_fx u_x,
    sigma^T u + 1/2 u^T R u = 1/2 |L^T u_f + L^-1 c|^2 + const: a bounded least-squares problem.
    """
    u, at_lower, at_upper = lo.copy(), lo == hi, lo == hi
    free = ~at_lower
    if free.any():
        c = sigma[free] + R[np.ix_(free, ~free)] @ lo[~free]
        L = np.linalg.cholesky(R[np.ix_(free, free)])
        b = -_solve_lower(L, c[:, None])[:, 0]
        result = lsq_linear(L.T, b, bounds=(lo[free], hi[free]), method="bvls", tol=1e-14)
        lower, upper = result.active_mask < 0, result.active_mask > 0
        # Active components sit exactly on their bounds (BVLS may leave them an ulp away).
        u[free] = np.where(
            lower, lo[free], np.where(upper, hi[free], np.clip(result.x, lo[free], hi[free]))
        )
        at_lower[free], at_upper[free] = lower, upper
    return u, at_lower, at_upper


def box_quadratic_control(R, sigma, u_min, u_max):
    r"""Minimize :math:`\sigma^Tu + \tfrac12u^TRu` over the box :math:`u_{\min} \le u \le u_{\max}`.

    A strictly convex quadratic program with a unique solution, characterized by the
    KKT conditions on the gradient :math:`g = \sigma + Ru`: :math:`g_i = 0` for free
    components, :math:`g_i \ge 0` at a lower and :math:`g_i \le 0` at an upper bound.
    Solved exactly (finite active-set iterations) by bounded-variable least squares
    (``scipy.optimize.lsq_linear``, ``method="bvls"``) after writing the objective as
    :math:`\tfrac12|L^Tu + L^{-1}\sigma|^2` with :math:`R = LL^T`.  The factor 1/2 is the
    package's convention for every quadratic cost; for :math:`\sigma^Tu + u^TRu` pass
    ``2 * R``.

    Clipping the unconstrained minimizer :func:`quadratic_control` to the box gives the
    same answer when :math:`R` is diagonal (the problem separates by component), but not
    in general: with coupled inputs, a bound active on one component shifts the optimum
    of the others.  The minimization of equation :eq:`eq-ch2-pontryagin` on a box.

    Parameters
    ----------
    R : (..., m, m) array_like
        Symmetric positive definite input weight, in cost per unit time per squared input
        unit.
    sigma : (..., m) array_like
        Switching function, in cost per unit time per input unit.
    u_min, u_max : float or (..., m) array_like
        Finite bounds, :math:`u_{\min} \le u_{\max}` (equal bounds fix a component).

    Returns
    -------
    BoxQuadraticControl
        ``control``, ``at_lower`` and ``at_upper`` with the broadcast batch shape (..., m).

    Batches
    -------
    Leading batch axes of ``R``, ``sigma``, ``u_min`` and ``u_max`` broadcast.  The
    problems of a batch are solved one after another in Python (one active-set solve
    each): the active sets differ from problem to problem, so a vectorized exact solver
    would need its own active-set bookkeeping; the cost is linear in the batch size.

    Raises
    ------
    ValueError
        As :func:`quadratic_control` and :func:`bang_bang_control` (empty box).
    """
    sigma = _switching(sigma)
    R, _ = _numerics.weight_matrix(R, "R", definite=True)
    m = R.shape[-1]
    if sigma.shape[-1] != m:
        raise ValueError(f"sigma: expected shape (..., {m}) to match R, got shape {sigma.shape}")
    lo, hi = _box(u_min, u_max, m)
    try:
        batch = np.broadcast_shapes(R.shape[:-2], sigma.shape[:-1], lo.shape[:-1])
    except ValueError as error:
        raise ValueError(
            f"R, sigma, u_min, u_max: expected broadcastable batch axes, got "
            f"{R.shape}, {sigma.shape}, {lo.shape}"
        ) from error
    flat = [
        np.broadcast_to(a, batch + a.shape[a.ndim - k :]).reshape((-1,) + a.shape[a.ndim - k :])
        for a, k in (
            (R, 2),
            (sigma, 1),
            (np.broadcast_to(lo, lo.shape[:-1] + (m,)), 1),
            (np.broadcast_to(hi, hi.shape[:-1] + (m,)), 1),
        )
    ]
    solutions = [_solve_one_box_qp(*problem) for problem in zip(*flat)]
    control, at_lower, at_upper = (
        np.array([s[j] for s in solutions]).reshape(batch + (m,)) for j in range(3)
    )
    return BoxQuadraticControl(control=control, at_lower=at_lower, at_upper=at_upper)
