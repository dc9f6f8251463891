r"""The minimizers behind the bounded allocations, on the scaled problem of
``geomotion.allocation._box`` (:math:`Ax = c`, :math:`x_\ell\le x\le x_h`).

* Quadratic objectives: DAQP (Arnström, Bemporad and Axehill, 2022), a dual active-set
  solver for dense QPs, MIT licence.  An active-set method ends on an exact face solve, so
  its answers are accurate to rounding rather than to an iteration tolerance.  Measured on
  the book's examples and on 200 random problems (1 to 2 rows, 2 to 5 inputs, input
  scales 1e-3 to 1e3) against an enumeration of every face: largest relative error
  3e-13 (median 5e-16), about 80 us per problem from Python; ProxQP (proxsuite, BSD-2) gave
  2e-10 and stopped at its iteration limit on the 1e-5 N m muscle request; the former
  SLSQP pipeline took about 11 ms per problem and failed on 5 of the 200.
* ``p = 1`` muscle stress: a linear program, HiGHS through ``scipy.optimize.linprog``.
* Other ``p > 1``: the separable dual, maximized by Newton's method with a backtracking
  line search.  For row multipliers :math:`\lambda` and :math:`y = R^T\lambda`, each force
  minimizes :math:`(s_i/A_i)^p - y_is_i` on :math:`[0, h_i]` in closed form,
  :math:`s_i = \mathrm{clip}(A_i(A_iy_i/p)^{1/(p-1)}, 0, h_i)`; the dual
  :math:`D(\lambda) = \lambda^T\tau + \sum_i[(s_i/A_i)^p - y_is_i]` is concave with
  gradient :math:`\tau - Rs` and Hessian :math:`-R\,\mathrm{diag}(\partial s_i/\partial
  y_i)R^T`.  It starts from the multipliers that fit the ``p = 2`` answer (solved by DAQP
  first, which also settles feasibility), and the final forces get a least-norm
  correction on the free entries so that :math:`Rs = \tau` to rounding.

Each returns the scaled free unknowns ``x``, row multipliers in the caller's units, an
iteration count and a message; the caller checks the residual and the certificate.
"""

import daqp
import numpy as np
from scipy import optimize

from . import _box

#: DAQP settings: feasibility and dual tolerances on the scaled problem (solutions of
#: size about 1, rows of unit reach).
_DAQP_OPTIONS = {"primal_tol": 1e-12, "dual_tol": 1e-12, "iter_limit": 1000}

#: DAQP exit flags.
_DAQP_OPTIMAL, _DAQP_INFEASIBLE = 1, -1

#: Dual Newton: iteration cap and the residual, relative to the request, at which the
#: forces are corrected onto the rows.
_NEWTON_STEPS, _NEWTON_RTOL = 200, 1e-13


def minimize_quadratic(problem, H, g):
    r"""Minimize :math:`\tfrac12u_F^THu_F + g^Tu_F` on the problem's free inputs (DAQP).

    Raises the joint-miss ValueError when DAQP finds the rows and the box incompatible,
    and RuntimeError when it stops otherwise.
    """
    D = problem.col_scale
    H_x, g_x = D[:, None] * H * D, D * g
    kappa = np.abs(np.diag(H_x)).max()  # objective scale: it does not move the minimizer
    A, c = problem.independent_rows
    k, n = A.shape
    sense = np.concatenate([np.zeros(n), np.full(k, 5)]).astype(np.int32)  # 5: equality
    x, _, flag, info = daqp.solve(
        np.ascontiguousarray(H_x / kappa),
        np.ascontiguousarray(g_x / kappa),
        np.ascontiguousarray(A),
        np.concatenate([problem.x_upper, c]),
        np.concatenate([problem.x_lower, c]),
        sense,
        **_DAQP_OPTIONS,
    )
    if flag == _DAQP_INFEASIBLE:
        error = _box.joint_miss(problem)
        if error is not None:
            raise error
    if flag != _DAQP_OPTIMAL:
        raise RuntimeError(f"DAQP failed on a feasible problem: exit flag {flag}")
    # DAQP's stationarity is H x + g + A^T nu + (bound terms) = 0, scaled by kappa.
    lam = problem.row_multipliers(-kappa * info["lam"][n:])
    return x, lam, int(info["iterations"]), "DAQP: optimal"


def minimize_linear(problem, cost):
    r"""Minimize :math:`\text{cost}^Tu_F` on the problem's free inputs (HiGHS)."""
    cost_x = cost * problem.col_scale
    kappa = np.abs(cost_x).max(initial=0.0) or 1.0
    A, c = problem.independent_rows
    has_rows = A.shape[0] > 0
    result = optimize.linprog(
        cost_x / kappa,
        A_eq=A if has_rows else None,
        b_eq=c if has_rows else None,
        bounds=list(zip(problem.x_lower, problem.x_upper)),
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"linprog failed: {result.message}")
    nu = result.eqlin.marginals if has_rows else np.zeros(0)  # d(optimum)/d(c)
    return result.x, problem.row_multipliers(kappa * nu), int(result.nit), result.message


def maximize_stress_dual(problem, objective, lam):
    r"""Forces minimizing :math:`\sum_i(s_i/A_i)^p` (``p > 1``) by Newton on the dual.

    Works on the scaled independent rows :math:`\tilde Rx = \tilde\tau` with the
    objective :math:`\sum_i(x_i/a_i)^p = f(Dx)/\kappa`, :math:`a_i = A_i/D_i` times
    :math:`\kappa^{1/p}`, :math:`\kappa = \max_i(D_i/A_i)^p`.  The Newton system is damped
    (Levenberg-Marquardt) where the free forces do not span the rows; a step must raise the
    dual (Armijo, with a rounding allowance).  ``lam`` holds starting row multipliers in
    the caller's units.  Returns scaled free forces, the final multipliers, the Newton
    steps taken and a message.
    """
    R, tau = problem.independent_rows
    D, p = problem.col_scale, objective.p
    kappa = np.max(D / objective.areas[problem.free]) ** p
    areas = objective.areas[problem.free] / D * kappa ** (1 / p)
    upper = problem.x_upper
    nu = problem.basis.T @ (lam[problem.rows] * problem.row_scale) / kappa

    def forces(nu):
        y = R.T @ nu
        with np.errstate(over="ignore"):
            x = areas * np.maximum(areas * y / p, 0.0) ** (1 / (p - 1))
        return np.minimum(x, upper), y

    def dual(nu):
        x, y = forces(nu)
        return nu @ tau + np.sum((x / areas) ** p - y * x)

    damping = 1e-12
    for step in range(_NEWTON_STEPS):  # noqa: B007 (the count is returned)
        x, y = forces(nu)
        gradient = tau - R @ x
        if np.all(np.abs(gradient) <= _NEWTON_RTOL * (np.abs(tau) + np.abs(R) @ x)):
            break
        inside = (x > 0) & (x < upper)
        slope = np.where(inside, x / ((p - 1) * np.where(inside, y, 1.0)), 0.0)  # dx/dy
        curvature = (R * slope) @ R.T
        start = dual(nu)
        for _ in range(60):
            direction = np.linalg.solve(curvature + damping * np.eye(len(nu)), gradient)
            trial = nu + direction
            allowance = 16 * np.finfo(float).eps * abs(start)
            if dual(trial) >= start + 1e-4 * gradient @ direction - allowance:
                nu, damping = trial, max(damping / 10, 1e-12)
                break
            damping *= 10
    else:
        raise RuntimeError(
            f"the dual Newton iteration for p = {p:g} did not meet the rows in "
            f"{_NEWTON_STEPS} steps (residual {np.abs(gradient).max():.3g})"
        )
    x = _onto_rows(R, tau, x, upper)
    return x, problem.row_multipliers(kappa * nu), step, f"dual Newton: converged in {step} steps"


def _onto_rows(R, tau, x, upper):
    """The least-norm correction of the free forces that meets :math:`Rx = \tau`."""
    inside = (x > 0) & (x < upper)
    if inside.any():
        x = x.copy()
        x[inside] += np.linalg.lstsq(R[:, inside], tau - R @ x, rcond=None)[0]
    return np.clip(x, 0.0, upper)
