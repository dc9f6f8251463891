r"""Infinite-horizon LQR in continuous and in discrete time: the two algebraic Riccati equations.

Both minimize a quadratic cost with the package's factor ½ over state feedback
:math:`u = -Kz`, and both check their answer before returning it.

**Continuous time** (:func:`lqr`).  For :math:`\dot z = Az + Bu` and the cost
:math:`\int_0^\infty \tfrac12 z^TQz + \tfrac12 u^TRu\,dt`, the optimal gain is
:math:`K = R^{-1}B^TP`, where :math:`P` is the stabilizing solution of the continuous
algebraic Riccati equation (CARE)

.. math:: A^TP + PA - PBR^{-1}B^TP + Q = 0,

and the optimal cost from :math:`z_0` is :math:`\tfrac12 z_0^TPz_0`.  The CARE is solved
by ``scipy.linalg.solve_continuous_are`` (the Schur method on the balanced
Hamiltonian pencil, Laub 1979; Arnold and Laub 1984).  Before solving, the
Popov-Belevitch-Hautus test is applied to every eigenvalue of :math:`A` that is not in the
open left half-plane (stabilizability of :math:`(A, B)`, detectability of :math:`(Q, A)`),
so that a problem with no stabilizing solution is refused with the mode named; after
solving, the CARE residual, the symmetry and semidefiniteness of :math:`P` and the
closed-loop spectrum (every eigenvalue of :math:`A - BK` with negative real part) are
checked.

**Discrete time** (:func:`discrete_lqr`).  For :math:`z_{k+1} = Az_k + Bu_k` and the cost
:math:`\sum_{k\ge0}\tfrac12 z_k^TQz_k + \tfrac12 u_k^TRu_k`, the optimal input is
:math:`u = -Kz` with :math:`K = (R + B^TPB)^{-1}B^TPA`, where :math:`P` solves the
discrete algebraic Riccati equation (DARE)

.. math:: P = Q + A^TPA - A^TPB(R + B^TPB)^{-1}B^TPA

and the optimal cost from :math:`z_0` is :math:`\tfrac12 z_0^TPz_0`.  The factor ½ scales
the whole cost and so changes neither :math:`P` nor the gain: the same :math:`P` solves
the problem written without it, whose cost is then :math:`z_0^TPz_0` (in both times).

The DARE is solved by the structure-preserving doubling algorithm (SDA) of Chu, Fan and
Lin: with :math:`G = BR^{-1}B^T` and :math:`W_j = I + G_jH_j`,

.. math:: A_{j+1} = A_jW_j^{-1}A_j,\quad G_{j+1} = G_j + A_jW_j^{-1}G_jA_j^T,\quad
          H_{j+1} = H_j + A_j^TH_jW_j^{-1}A_j,

from :math:`A_0 = A`, :math:`G_0 = G`, :math:`H_0 = Q`.  :math:`H_j` is the value matrix of
the horizon :math:`2^j`, so it converges to :math:`P` quadratically, at the rate
:math:`\rho(A - BK)^{2^j}`, when :math:`(A, B)` is stabilizable and :math:`(Q, A)` is
detectable (both are checked before iterating, by the Popov-Belevitch-Hautus test on every
eigenvalue of :math:`A` with :math:`|\lambda| \ge 1`).

A sampled design goes through :func:`geomotion.control.zero_order_hold`, which gives the
exact discrete :math:`(A, B)` of a continuous system whose input is held over each step;
as the step shrinks, the discrete gain tends to the continuous one.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .. import _numerics, _validate
from ..errors import ConvergenceError

__all__ = ["LQRResult", "lqr", "DiscreteLQRResult", "discrete_lqr"]


@dataclass(frozen=True)
class LQRResult:
    r"""Result of :func:`lqr` (continuous time).

    Attributes
    ----------
    K : (m, n) ndarray
        Optimal state feedback, :math:`u = -Kz` (input units per state unit).
    P : (n, n) ndarray
        Symmetric positive semidefinite stabilizing solution of the CARE; the optimal
        cost from :math:`z_0` is :math:`\tfrac12 z_0^TPz_0`.
    closed_loop_eigenvalues : (n,) complex ndarray
        Eigenvalues of :math:`A - BK` (1/s), sorted by real part, then imaginary part.
    spectral_abscissa : float
        Largest real part of the closed-loop eigenvalues (1/s, negative): the slowest
        mode decays like :math:`e^{\alpha t}`.
    residual : float
        Frobenius norm of the CARE residual :math:`A^TP + PA - PBR^{-1}B^TP + Q`
        divided by the sum of the Frobenius norms of its terms,
        :math:`2\lVert A^TP\rVert + \lVert K^TRK\rVert + \lVert Q\rVert`
        (dimensionless).
    """

    K: np.ndarray
    P: np.ndarray
    closed_loop_eigenvalues: np.ndarray
    spectral_abscissa: float
    residual: float


@dataclass(frozen=True)
class DiscreteLQRResult:
    r"""Result of :func:`discrete_lqr`.

    Attributes
    ----------
    K : (m, n) ndarray
        Optimal state feedback, :math:`u = -Kz`.
    P : (n, n) ndarray
        Symmetric positive semidefinite solution of the DARE; the optimal cost from
        :math:`z_0` is :math:`\tfrac12 z_0^TPz_0`.
    spectral_radius : float
        Largest eigenvalue magnitude of the closed loop :math:`A - BK` (below 1).
    residual : float
        Frobenius norm of the DARE residual divided by the largest of the Frobenius norms
        of :math:`P` and :math:`Q` (dimensionless).
    iterations : int
        Doubling steps taken (step :math:`j` covers a horizon of :math:`2^j` steps).
    """

    K: np.ndarray
    P: np.ndarray
    spectral_radius: float
    residual: float
    iterations: int


# -- validation shared by both times ------------------------------------------------------


def _written(x):
    """A float as a reader would type it back: 0.1, 2.0, 1e-07."""
    return repr(float(x))


def _weight(value, name, size, *, definite, per):
    """A (size, size) symmetric cost weight (and its Cholesky factor if ``definite``).

    A scalar or a vector -- the usual slip for a single input or a diagonal weight -- is
    refused with the matrix to pass instead.
    """
    array = _validate.real_array(value, name)
    if array.shape != (size, size):
        kind = "positive definite" if definite else "positive semidefinite"
        expected = (
            f"{name}: expected a symmetric {kind} ({size}, {size}) matrix, one row and "
            f"column per {per}"
        )
        if array.ndim == 0:
            x = _written(array)
            fix = (
                f"pass {name}=[[{x}]]"
                if size == 1
                else f"pass {name}={x} * np.eye({size}) for the same weight on every {per}"
            )
            raise ValueError(f"{expected}, got the scalar {x}; {fix}")
        if array.ndim == 1 and array.size == size:
            listed = ", ".join(_written(x) for x in array)
            fix = f"[[{listed}]]" if size == 1 else f"np.diag([{listed}])"
            raise ValueError(
                f"{expected}, got a vector of shape {array.shape}; pass {name}={fix}"
                + ("" if size == 1 else " for a diagonal weight")
            )
        raise ValueError(f"{expected}, got shape {array.shape}")
    return _numerics.weight_matrix(array, name, definite=definite)


def _system(A, B, Q, R):
    """Validated (A, B, Q, R, cholesky(R)) of one linear system with its cost weights."""
    A = _validate.square_matrix(A, "A")
    B = _validate.matrix(B, "B")
    if A.ndim != 2:
        raise ValueError(
            f"A: expected one (n, n) matrix (one system per call), got shape {A.shape}"
        )
    n = A.shape[0]
    if B.ndim != 2 or B.shape[0] != n or B.shape[1] == 0:
        raise ValueError(f"B: expected shape ({n}, m) with m >= 1, got shape {B.shape}")
    m = B.shape[1]
    Q, _ = _weight(Q, "Q", n, definite=False, per="state coordinate")
    R, L_R = _weight(R, "R", m, definite=True, per="input")
    return A, B, Q, R, L_R


def _positive_option(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{name}: expected a positive number, got {value!r}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name}: expected a positive finite number, got {value!r}")
    return float(value)


def _smallest_relative_singular_value(M):
    s = np.linalg.svd(M, compute_uv=False)
    return 0.0 if s[0] == 0 else float(s[-1] / s[0])


def _pbh(A, B, Q, lam, rank_rtol, where):
    """Refuse the mode ``lam`` of A if B does not reach it or Q does not see it."""
    shifted = A - lam * np.eye(A.shape[0])
    if _smallest_relative_singular_value(np.hstack([shifted, B])) <= rank_rtol:
        raise ValueError(
            f"(A, B): expected a stabilizable pair, but the mode of A with eigenvalue "
            f"{lam:.6g} ({where}) is not reached by B, so no input can stabilize it; add an "
            "input that acts on it, or remove the mode"
        )
    if _smallest_relative_singular_value(np.vstack([shifted, Q])) <= rank_rtol:
        raise ValueError(
            f"(Q, A): expected a detectable pair, but the mode of A with eigenvalue "
            f"{lam:.6g} ({where}) is not seen by Q, so the cost does not penalize it and the "
            "optimal input leaves it unstable; weight it in Q"
        )


# -- continuous time ----------------------------------------------------------------------


def lqr(A, B, Q, R, *, rtol=1e-10, rank_rtol=1e-9):
    r"""Infinite-horizon continuous-time LQR: the gain, the Riccati matrix and the closed loop.

    Minimizes :math:`\int_0^\infty \tfrac12 z^TQz + \tfrac12 u^TRu\,dt` subject to
    :math:`\dot z = Az + Bu` over state feedback; the minimizer is :math:`u = -Kz` with

    .. math:: K = R^{-1}B^TP,\qquad A^TP + PA - PBR^{-1}B^TP + Q = 0,

    :math:`P` the stabilizing solution of the CARE.  The factor ½ (the package's
    convention for every quadratic cost) does not change :math:`K` or :math:`P`; a text
    that writes the cost without it gets the same matrices from the same ``Q`` and ``R``.
    The CARE is solved by ``scipy.linalg.solve_continuous_are`` (equations and
    references in the docstring of the module ``geomotion.control.riccati``); the answer is
    checked before it is returned: its CARE residual, symmetry and positive
    semidefiniteness of :math:`P`, and every closed-loop eigenvalue in the open left
    half-plane.  For a sampled controller, discretize with
    :func:`geomotion.control.zero_order_hold` and use :func:`discrete_lqr`.

    Parameters
    ----------
    A : (n, n) array_like
        State matrix (1/s), :math:`\dot z = Az + Bu`.
    B : (n, m) array_like
        Input matrix (state units per second per input unit).
    Q : (n, n) array_like
        Symmetric positive semidefinite state weight.  A single state still needs a
        matrix: ``[[1.0]]``.
    R : (m, m) array_like
        Symmetric positive definite input weight.  A single input still needs a matrix:
        ``[[0.1]]``, not ``0.1``.
    rtol : float, optional
        Relative tolerance of the CARE residual, > 0 (default 1e-10): the answer is
        accepted when the Frobenius norm of the residual is at most ``rtol`` times the sum
        of the norms of its terms (see :class:`LQRResult`).
    rank_rtol : float, optional
        Relative threshold of the stabilizability and detectability tests, > 0 (default
        1e-9).  A mode of :math:`A` is tested when its real part is at least
        :math:`-` ``rank_rtol`` :math:`\lVert A\rVert_2` (not clearly stable); it counts
        as not reached by :math:`B` (not seen by :math:`Q`) when the smallest singular
        value of :math:`[A - \lambda I,\ B]` (of :math:`[A - \lambda I;\ Q]`) is at most
        ``rank_rtol`` times the largest.

    Returns
    -------
    LQRResult
        ``K`` (u = -K z), ``P``, the ``closed_loop_eigenvalues`` of :math:`A - BK`, their
        ``spectral_abscissa`` (negative) and the relative ``residual``.

    Batches
    -------
    One system per call: ``A`` is one (n, n) matrix.  The stabilizability check and the
    Schur decomposition are per system; run one call per system.

    Raises
    ------
    TypeError
        An argument that is not an array of real numbers (``None``, a string, complex
        numbers), or a non-numeric ``rtol`` or ``rank_rtol``.
    ValueError
        Naming the argument: a shape that is not as listed (a scalar or a vector weight
        gets the matrix to pass instead, e.g. ``R=[[0.1]]``; a batch of matrices is
        refused), an asymmetric or indefinite weight, a non-positive tolerance; or input
        with no stabilizing solution: :math:`(A, B)` not stabilizable or :math:`(Q, A)` not
        detectable (the message names the eigenvalue of the mode), or a solution that
        fails the closed-loop or semidefiniteness check.
    geomotion.errors.ConvergenceError
        When the solution's CARE residual exceeds ``rtol`` (``residual`` and ``tolerance``
        relative).

    Examples
    --------
    The double integrator :math:`\ddot x = u` with :math:`Q = I`, :math:`R = 1` has
    :math:`P = \begin{bmatrix}\sqrt3 & 1\\ 1 & \sqrt3\end{bmatrix}` and
    :math:`K = (1, \sqrt3)`:

    >>> from geomotion import control
    >>> result = control.lqr([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], [[1.0, 0.0], [0.0, 1.0]], [[1.0]])
    >>> print(f"K = {result.K.round(6).tolist()}, abscissa {result.spectral_abscissa:.6f} 1/s")
    K = [[1.0, 1.732051]], abscissa -0.866025 1/s
    """
    A, B, Q, R, L_R = _system(A, B, Q, R)
    rtol = _positive_option(rtol, "rtol")
    rank_rtol = _positive_option(rank_rtol, "rank_rtol")

    margin = rank_rtol * np.linalg.norm(A, 2)
    for lam in np.linalg.eigvals(A):
        if lam.real >= -margin:
            _pbh(A, B, Q, lam, rank_rtol, f"real part {lam.real:.3g}, not negative")

    try:
        P = scipy.linalg.solve_continuous_are(A, B, Q, R)
    except (np.linalg.LinAlgError, ValueError) as error:
        raise ValueError(
            f"(A, B, Q, R): no stabilizing solution of the CARE was found ({error}); the "
            "system is close to losing stabilizability or detectability (a mode near the "
            "imaginary axis that B barely reaches or Q barely sees)"
        ) from error
    P = 0.5 * (P + P.T)
    K = scipy.linalg.cho_solve((L_R, True), B.T @ P)

    terms = (A.T @ P, P @ A, -(K.T @ R @ K), Q)
    scale = 2 * np.linalg.norm(terms[0]) + np.linalg.norm(terms[2]) + np.linalg.norm(Q)
    residual = float(np.linalg.norm(sum(terms)) / max(scale, np.finfo(float).tiny))
    if not residual <= rtol:
        raise ConvergenceError(
            "lqr: the CARE residual of the Schur solution",
            residual=residual,
            tolerance=rtol,
            iterations=1,
            suggestion="a larger rtol, or a better scaled system (state and input units of "
            "similar size): the problem may be ill conditioned",
        )
    size_P = max(np.linalg.norm(P), np.finfo(float).tiny)
    smallest = float(np.linalg.eigvalsh(P).min())
    if smallest < -rtol * size_P:
        raise ValueError(
            f"(A, B, Q, R): the Riccati solution is not positive semidefinite (smallest "
            f"eigenvalue {smallest:.3g}): the system is close to unstabilizable or undetectable"
        )
    eigenvalues = np.sort_complex(np.linalg.eigvals(A - B @ K).astype(complex))
    abscissa = float(eigenvalues.real.max())
    if not abscissa < 0.0:
        raise ValueError(
            f"(A, B, Q, R): no stabilizing solution: the closed loop A - B K has an "
            f"eigenvalue with real part {abscissa:.6g} >= 0; check that (A, B) is "
            "stabilizable and (Q, A) detectable"
        )
    return LQRResult(
        K=K,
        P=P,
        closed_loop_eigenvalues=eigenvalues,
        spectral_abscissa=abscissa,
        residual=residual,
    )


# -- discrete time ------------------------------------------------------------------------


def _dare_residual(A, B, Q, R, P):
    """The DARE residual matrix and the gain K of the candidate P."""
    BtP = B.T @ P
    K = np.linalg.solve(R + BtP @ B, BtP @ A)
    return Q + A.T @ P @ A - A.T @ P @ B @ K - P, K


def discrete_lqr(A, B, Q, R, *, rtol=1e-10, max_iter=60, rank_rtol=1e-9):
    r"""Infinite-horizon discrete-time LQR: the gain, the value matrix and the closed loop.

    Minimizes :math:`\sum_{k\ge0}\tfrac12 z_k^TQz_k + \tfrac12 u_k^TRu_k` subject to
    :math:`z_{k+1} = Az_k + Bu_k` over state feedback; the minimizer is :math:`u = -Kz`.
    The factor ½ (the package's convention for every quadratic cost) does not change the
    gain or :math:`P`: a text that writes the cost without it gets the same :math:`K` and
    :math:`P` from the same ``Q`` and ``R``, and an optimal cost of :math:`z_0^TPz_0`
    instead of :math:`\tfrac12 z_0^TPz_0`.  The DARE is solved by structure-preserving
    doubling (equations in the docstring of the module ``geomotion.control.riccati``); the
    answer is checked before it is returned: its DARE residual, symmetry and positive
    semidefiniteness of :math:`P`, and a closed-loop spectral radius below 1.  The
    discrete system of a continuous one under a held input comes from
    :func:`geomotion.control.zero_order_hold`; the continuous-time design is :func:`lqr`.

    Parameters
    ----------
    A : (n, n) array_like
        State transition matrix.
    B : (n, m) array_like
        Input matrix.
    Q : (n, n) array_like
        Symmetric positive semidefinite state weight.  A single state still needs a
        matrix: ``[[1.0]]``.
    R : (m, m) array_like
        Symmetric positive definite input weight.  A single input still needs a matrix:
        ``[[0.1]]``, not ``0.1``.
    rtol : float, optional
        Relative tolerance, > 0 (default 1e-10).  The doubling stops when an update of
        :math:`P` is at most ``rtol`` times the size of :math:`P` (Frobenius norms), and
        the answer is accepted when the Frobenius norm of the DARE residual is at most
        ``rtol`` times the larger of those of :math:`P` and :math:`Q`.
    max_iter : int, optional
        Most doubling steps, >= 1 (default 60: a horizon of :math:`2^{60}` steps).
    rank_rtol : float, optional
        Relative rank threshold of the stabilizability and detectability tests, > 0
        (default 1e-9): a mode of :math:`A` with :math:`|\lambda| \ge 1` counts as not
        reached by :math:`B` (not seen by :math:`Q`) when the smallest singular value of
        :math:`[A - \lambda I,\ B]` (of :math:`[A - \lambda I;\ Q]`) is at most
        ``rank_rtol`` times the largest.

    Returns
    -------
    DiscreteLQRResult
        ``K`` (u = -K z), ``P``, ``spectral_radius`` of :math:`A - BK`, the relative
        ``residual`` and the number of ``iterations``.

    Batches
    -------
    One system per call: ``A`` is one (n, n) matrix.  The doubling takes a different
    number of steps for different systems and a stabilizability check is per system;
    run one call per system.

    Raises
    ------
    TypeError
        An argument that is not an array of real numbers (``None``, a string, complex
        numbers), or a non-numeric ``rtol``, ``rank_rtol`` or ``max_iter``.
    ValueError
        Naming the argument: a shape that is not as listed (a scalar or a vector weight
        gets the matrix to pass instead, e.g. ``R=[[0.1]]``; a batch of matrices is
        refused), an asymmetric or indefinite weight, a non-positive tolerance; or input
        with no stabilizing solution: :math:`(A, B)` not stabilizable or :math:`(Q, A)` not
        detectable (the message names the eigenvalue of the mode).
    geomotion.errors.ConvergenceError
        When the doubling has not converged after ``max_iter`` steps, or its answer's
        DARE residual exceeds ``rtol`` (``residual`` and ``tolerance`` are relative).

    Examples
    --------
    The scalar system :math:`z_{k+1} = z_k + u_k` with :math:`Q = R = 1` has
    :math:`P = (1 + \sqrt5)/2` and :math:`K = P/(1 + P)`:

    >>> from geomotion import control
    >>> result = control.discrete_lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]])
    >>> print(f"P = {result.P[0, 0]:.6f}, K = {result.K[0, 0]:.6f}, rho = {result.spectral_radius:.6f}")
    P = 1.618034, K = 0.618034, rho = 0.381966
    """
    A, B, Q, R, _ = _system(A, B, Q, R)
    rtol = _positive_option(rtol, "rtol")
    rank_rtol = _positive_option(rank_rtol, "rank_rtol")
    max_iter = _validate.count(max_iter, "max_iter")
    n = A.shape[0]

    for lam in np.linalg.eigvals(A):
        if abs(lam) >= 1.0:
            _pbh(A, B, Q, lam, rank_rtol, f"|lambda| = {abs(lam):.6g} >= 1")

    # Structure-preserving doubling; G and H stay symmetric positive semidefinite.
    A_j, G_j, H_j = A.copy(), B @ np.linalg.solve(R, B.T), Q.copy()
    G_j = 0.5 * (G_j + G_j.T)
    identity = np.eye(n)
    change, size, iterations = np.inf, np.inf, 0
    while iterations < max_iter:
        W = identity + G_j @ H_j
        WinvA = np.linalg.solve(W, A_j)
        H_next = H_j + A_j.T @ H_j @ WinvA
        G_next = G_j + A_j @ np.linalg.solve(W, G_j) @ A_j.T
        A_j = A_j @ WinvA
        H_next, G_j = 0.5 * (H_next + H_next.T), 0.5 * (G_next + G_next.T)
        iterations += 1
        if not np.all(np.isfinite(H_next)):
            change, size = np.inf, np.inf
            break
        change, size = np.linalg.norm(H_next - H_j), np.linalg.norm(H_next)
        H_j = H_next
        if change <= rtol * size:
            break
    if not change <= rtol * size:
        raise ConvergenceError(
            "discrete_lqr: structure-preserving doubling for the DARE",
            residual=change / size if np.isfinite(size) and size > 0 else np.inf,
            tolerance=rtol,
            iterations=iterations,
            suggestion="a larger max_iter, or a system that is further from losing "
            "stabilizability (a closed-loop pole near the unit circle converges slowly)",
        )

    P = H_j
    residual_matrix, K = _dare_residual(A, B, Q, R, P)
    scale = max(np.linalg.norm(P), np.linalg.norm(Q), np.finfo(float).tiny)
    residual = float(np.linalg.norm(residual_matrix) / scale)
    if residual > rtol:
        raise ConvergenceError(
            "discrete_lqr: the DARE residual of the doubling's answer",
            residual=residual,
            tolerance=rtol,
            iterations=iterations,
            suggestion="a larger rtol (the problem may be ill conditioned)",
        )
    smallest = float(np.linalg.eigvalsh(P).min())
    if smallest < -rtol * scale:
        raise ValueError(
            f"(A, B, Q, R): the Riccati solution is not positive semidefinite (smallest "
            f"eigenvalue {smallest:.3g}): the system is close to unstabilizable or undetectable"
        )
    radius = float(np.abs(np.linalg.eigvals(A - B @ K)).max())
    if radius >= 1.0:
        raise ValueError(
            f"(A, B, Q, R): no stabilizing solution: the closed loop A - B K has spectral "
            f"radius {radius:.6g} >= 1; check that (A, B) is stabilizable and (Q, A) detectable"
        )
    return DiscreteLQRResult(
        K=K, P=P, spectral_radius=radius, residual=residual, iterations=iterations
    )
