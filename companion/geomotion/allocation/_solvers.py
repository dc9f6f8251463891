r"""The minimizers behind the bounded allocations, on the scaled problem of
``geomotion.allocation._box`` (:math:`Ax = c`, :math:`x_\ell\le x\le x_h`).

* Quadratic objectives: DAQP (Arnström, Bemporad and Axehill, 2022), a dual active-set
  solver for dense QPs, MIT licence, finished by primal active-set steps on exact face
  solves (:func:`_polish_on_face`).  Chosen over ProxQP (proxsuite, BSD-2): measured
  alone on the book's examples and 200 random problems (1 to 2 rows, 2 to 5 inputs,
  input scales 1e-3 to 1e3) against an enumeration of every face, DAQP was exact to
  3e-13 (median 5e-16) in about 80 us per problem; ProxQP, a proximal method, reached
  2e-10 and 7e-7 on the b = 1e-6 example, and hit its iteration limit on the 1e-5 N m
  muscle request.  The whole checked path here (validation, scaling, DAQP, face
  correction, residual and certificate) takes about 1.3 ms per problem and agrees with
  the enumeration to 1e-14 of each input's scale (median 2e-16), on all 200; the former
  SLSQP pipeline took about 9 ms, raised RuntimeError on 5 of the 200 and returned
  u = 0 for the issue's 1e9-bound example.
* ``p = 1`` muscle stress: a linear program, HiGHS through ``scipy.optimize.linprog``.
* Other ``p > 1``: the separable dual, maximized by Newton's method (Levenberg-Marquardt
  damped, Armijo steps).  For row multipliers :math:`\lambda` and :math:`y = R^T\lambda`,
  each force minimizes :math:`(s_i/A_i)^p - y_is_i` on :math:`[0, h_i]` in closed form,
  :math:`s_i = \mathrm{clip}(A_i(A_iy_i/p)^{1/(p-1)}, 0, h_i)`; the dual
  :math:`D(\lambda) = \lambda^T\tau + \sum_i[(s_i/A_i)^p - y_is_i]` is concave with
  gradient :math:`\tau - Rs` and Hessian :math:`-R\,\mathrm{diag}(\partial s_i/\partial
  y_i)R^T`.  It starts from the multipliers that fit the ``p = 2`` answer (solved by DAQP
  first, which also settles feasibility), and ends with one linearized step that puts
  the forces on the rows to rounding.  Tested for ``1.05 <= p <= 3`` (1500 random
  problems); for large exponents (``p = 6``) the curvature of weakly loaded forces is
  unbounded and the iteration can stall (4 of about 200 random problems), which raises
  geomotion.ConvergenceError (a RuntimeError) rather than returning.

Each returns the scaled free unknowns ``x``, row multipliers in the caller's units, an
iteration count and a message; the caller checks the residual and the certificate.
"""

import numpy as np
from scipy import optimize

from .. import _qp
from ..errors import ConvergenceError
from . import _box

#: Dual Newton: iteration cap and the residual, relative to the request, at which the
#: forces are corrected onto the rows.
_NEWTON_STEPS, _NEWTON_RTOL = 200, 1e-10


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
    sense = np.concatenate([np.full(n, _qp.INEQUALITY), np.full(k, _qp.EQUALITY)])
    x, multipliers, flag, iterations = _qp.daqp_solve(
        H_x / kappa,
        g_x / kappa,
        A,
        np.concatenate([problem.x_upper, c]),
        np.concatenate([problem.x_lower, c]),
        sense,
    )
    if flag == _qp.DAQP_INFEASIBLE:
        error = _box.joint_miss(problem)
        if error is not None:
            raise error
    if flag != _qp.DAQP_OPTIMAL:
        finite = np.all(np.isfinite(x))
        raise ConvergenceError(
            f"DAQP stopped on a feasible problem with exit flag {flag}",
            residual=np.abs(A @ x - c).max(initial=0.0) if finite else np.inf,
            tolerance=_qp.DAQP_OPTIONS["primal_tol"],
            iterations=iterations,
            suggestion="rescaling the request, or a looser rtol",
        )
    # DAQP's stationarity is H x + g + A^T nu + (bound terms) = 0, scaled by kappa; its
    # bound multipliers are positive at an upper bound, negative at a lower one.
    bound_lam = multipliers[:n]
    polished = _polish_on_face(problem, A, c, H_x, g_x, x, bound_lam)
    if polished is not None:
        x, nu = polished
        return x, problem.row_multipliers(nu), iterations, "DAQP: optimal, polished"
    lam = problem.row_multipliers(-kappa * multipliers[n:])
    return x, lam, iterations, "DAQP: optimal"


def _polish_on_face(problem, A, c, H, g, x, bound_lam):
    r"""The exact minimizer, found by finishing DAQP's answer with primal active-set
    steps; None if that does not settle.

    DAQP's tolerances act on the scaled problem; where the inputs' bound scales differ
    from their weights' by orders of magnitude, a weakly weighted input can end off its
    bound or off its optimum by far more than rounding.  Starting from DAQP's ``x`` with
    its working set (bound multipliers positive at an upper bound, negative at a lower
    one) and the entries it left at a bound held, each pass solves the face exactly
    (:func:`_face_minimizer`) and moves towards it until a free entry meets a bound,
    which is then held; at the face minimizer, the held entry whose multiplier has the
    wrong sign is released, until none has (at most ``4 n + 4`` passes).
    """
    x = np.clip(x, problem.x_lower, problem.x_upper)
    at_lower = (bound_lam < 0) | (x - problem.x_lower <= 1e-12 * (1 + np.abs(x)))
    at_upper = ~at_lower & ((bound_lam > 0) | (problem.x_upper - x <= 1e-12 * (1 + np.abs(x))))
    for _ in range(4 * len(g) + 4):
        x = np.where(at_lower, problem.x_lower, np.where(at_upper, problem.x_upper, x))
        face, nu = _face_minimizer(problem, A, c, H, g, at_lower, at_upper)
        step = face - x
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(step > 0, (problem.x_upper - x) / step, (problem.x_lower - x) / step)
        room = np.where((at_lower | at_upper) | (step == 0), np.inf, room)
        blocking = int(np.argmin(room))
        if room[blocking] < 1:
            x = x + max(room[blocking], 0.0) * step
            at_lower[blocking], at_upper[blocking] = step[blocking] < 0, step[blocking] > 0
            continue
        x = face
        mu = H @ x + g - A.T @ nu
        wrong = np.where(at_lower, -mu, 0.0) + np.where(at_upper, mu, 0.0)
        tol = 1e-12 * (np.abs(H @ x + g) + np.abs(A.T) @ np.abs(nu)).max(initial=0.0)
        if wrong.max(initial=0.0) <= tol:
            return np.clip(x, problem.x_lower, problem.x_upper), nu
        release = int(np.argmax(wrong))
        at_lower[release] = at_upper[release] = False
    return None


def _face_minimizer(problem, A, c, H, g, at_lower, at_upper):
    r"""Minimize :math:`\tfrac12x^THx + g^Tx` on :math:`Ax = c` with the held entries at
    their bounds: the bordered system
    :math:`\begin{pmatrix}EHE & EA^T\\ AE & 0\end{pmatrix}
    \begin{pmatrix}w\\ -\nu\end{pmatrix} = \begin{pmatrix}-Eg\\ c\end{pmatrix}`
    on the free entries (reduced by the held ones), :math:`x = Ew`, equilibrated by
    :math:`E = \mathrm{diag}(H)^{-1/2}` and unit rows of :math:`AE`, and solved by least squares (a face with
    dependent rows gives the least-norm multipliers).  Returns ``x`` and the row
    multipliers :math:`\nu`."""
    held = at_lower | at_upper
    free = ~held
    x = np.where(at_upper, problem.x_upper, np.where(at_lower, problem.x_lower, 0.0))
    e = 1 / np.sqrt(np.diag(H)[free])
    H_f, A_f = e[:, None] * H[np.ix_(free, free)] * e, A[:, free] * e
    r = np.linalg.norm(A_f, axis=1)
    r[r == 0] = 1.0  # a row the free entries do not touch: the held ones meet it
    A_f /= r[:, None]
    k, n_f = A.shape[0], int(free.sum())
    K = np.block([[H_f, A_f.T], [A_f, np.zeros((k, k))]])
    top = -e * (g[free] + H[np.ix_(free, held)] @ x[held])
    bottom = (c - A[:, held] @ x[held]) / r
    solution = np.linalg.lstsq(K, np.concatenate([top, bottom]), rcond=None)[0]
    x[free] = e * solution[:n_f]
    return x, -solution[n_f:] / r


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
        x = result.get("x")
        finite = x is not None and np.all(np.isfinite(x))
        raise ConvergenceError(
            f"linprog (HiGHS) stopped: {result.message}",
            residual=np.abs(A @ x - c).max(initial=0.0) if finite and has_rows else np.inf,
            tolerance=0.0,
            iterations=int(result.get("nit", 0)),
            suggestion="rescaling the request",
        )
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

    def linearized(nu):
        """Forces, the rows' miss, and the dual curvature with the forces' slopes dx/dy."""
        x, y = forces(nu)
        inside = (x > 0) & (x < upper)
        slope = np.where(inside, x / ((p - 1) * np.where(inside, y, 1.0)), 0.0)
        return x, tau - R @ x, slope, (R * slope) @ R.T

    damping = 1e-12
    for step in range(_NEWTON_STEPS):  # noqa: B007 (the count is returned)
        x, gradient, slope, curvature = linearized(nu)
        if np.all(np.abs(gradient) <= _NEWTON_RTOL * (np.abs(tau) + np.abs(R) @ x)):
            break
        start = dual(nu)
        size = np.trace(curvature) / max(len(nu), 1) or 1.0
        for _ in range(60):
            damped = curvature + damping * size * np.eye(len(nu))
            direction = np.linalg.lstsq(damped, gradient, rcond=None)[0]
            trial = nu + direction
            allowance = 16 * np.finfo(float).eps * abs(start)
            if dual(trial) >= start + 1e-4 * gradient @ direction - allowance:
                nu, damping = trial, max(damping / 10, 1e-12)
                break
            damping *= 10
    else:
        scale = np.abs(tau) + np.abs(R) @ x
        raise ConvergenceError(
            f"the dual Newton iteration for p = {p:g} did not meet the rows in "
            f"{_NEWTON_STEPS} steps (largest row miss {np.abs(gradient).max():.3g}, "
            "relative to each row's load)",
            residual=float(np.max(np.abs(gradient) / np.where(scale > 0, scale, 1.0))),
            tolerance=_NEWTON_RTOL,
            iterations=_NEWTON_STEPS,
            suggestion="p = 2 (a quadratic program, solved exactly) or rescaled moment arms",
        )
    # A last linearized step puts the forces on the rows to rounding and moves the
    # multipliers with them (a weakly loaded force moves in proportion to its slope, so
    # its gradient stays consistent with the multipliers).
    step_nu = np.linalg.lstsq(curvature, gradient, rcond=None)[0]
    x = np.clip(x + slope * (R.T @ step_nu), 0.0, upper)
    nu = nu + step_nu
    return x, problem.row_multipliers(kappa * nu), step, f"dual Newton: converged in {step} steps"
