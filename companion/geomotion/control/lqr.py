r"""Discrete-time infinite-horizon LQR by a structure-preserving doubling iteration.

For :math:`z_{k+1} = Az_k + Bu_k` and the cost
:math:`\sum_{k\ge0}\tfrac12 z_k^TQz_k + \tfrac12 u_k^TRu_k` (the package's factor ½), the
optimal input is :math:`u = -Kz` with :math:`K = (R + B^TPB)^{-1}B^TPA`, where :math:`P`
solves the discrete algebraic Riccati equation (DARE)

.. math:: P = Q + A^TPA - A^TPB(R + B^TPB)^{-1}B^TPA

and the optimal cost from :math:`z_0` is :math:`\tfrac12 z_0^TPz_0`.  The factor ½ scales
the whole cost and so changes neither :math:`P` nor the gain: the same :math:`P` solves
the problem written without it, whose cost is then :math:`z_0^TPz_0`.

The DARE is solved by the structure-preserving doubling algorithm (SDA) of Chu, Fan and
Lin: with :math:`G = BR^{-1}B^T` and :math:`W_j = I + G_jH_j`,

.. math:: A_{j+1} = A_jW_j^{-1}A_j,\quad G_{j+1} = G_j + A_jW_j^{-1}G_jA_j^T,\quad
          H_{j+1} = H_j + A_j^TH_jW_j^{-1}A_j,

from :math:`A_0 = A`, :math:`G_0 = G`, :math:`H_0 = Q`.  :math:`H_j` is the value matrix of
the horizon :math:`2^j`, so it converges to :math:`P` quadratically, at the rate
:math:`\rho(A - BK)^{2^j}`, when :math:`(A, B)` is stabilizable and :math:`(Q, A)` is
detectable (both are checked before iterating, by the Popov-Belevitch-Hautus test on every
eigenvalue of :math:`A` with :math:`|\lambda| \ge 1`).
"""

from dataclasses import dataclass

import numpy as np

from .. import _numerics, _validate
from ..errors import ConvergenceError

__all__ = ["DiscreteLQRResult", "discrete_lqr"]


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


def _smallest_relative_singular_value(M):
    s = np.linalg.svd(M, compute_uv=False)
    return 0.0 if s[0] == 0 else float(s[-1] / s[0])


def _check_modes(A, B, Q, rank_rtol):
    """PBH tests on the eigenvalues of A outside the open unit disc."""
    n = A.shape[0]
    for lam in np.linalg.eigvals(A):
        if abs(lam) < 1.0:
            continue
        shifted = A - lam * np.eye(n)
        if _smallest_relative_singular_value(np.hstack([shifted, B])) <= rank_rtol:
            raise ValueError(
                f"(A, B): expected a stabilizable pair, but the mode of A with eigenvalue "
                f"{lam:.6g} (|lambda| = {abs(lam):.6g} >= 1) is not reached by B, so no input "
                "can stabilize it; add an input that acts on it, or remove the mode"
            )
        if _smallest_relative_singular_value(np.vstack([shifted, Q])) <= rank_rtol:
            raise ValueError(
                f"(Q, A): expected a detectable pair, but the mode of A with eigenvalue "
                f"{lam:.6g} (|lambda| = {abs(lam):.6g} >= 1) is not seen by Q, so the cost "
                "does not penalize it and the optimal input leaves it unstable; weight it in Q"
            )


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
    doubling (equations in the docstring of the module ``geomotion.control.lqr``); the
    answer is checked before it is returned: its DARE residual, symmetry and positive
    semidefiniteness of :math:`P`, and a closed-loop spectral radius below 1.

    Parameters
    ----------
    A : (n, n) array_like
        State transition matrix.
    B : (n, m) array_like
        Input matrix.
    Q : (n, n) array_like
        Symmetric positive semidefinite state weight.
    R : (m, m) array_like
        Symmetric positive definite input weight.
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
        Naming the argument: a shape that is not as listed (including a batch of
        matrices), an asymmetric or indefinite weight, a non-positive tolerance; or
        input with no stabilizing solution: :math:`(A, B)` not stabilizable or
        :math:`(Q, A)` not detectable (the message names the eigenvalue of the mode).
    geomotion.errors.ConvergenceError
        When the doubling has not converged after ``max_iter`` steps, or its answer's
        DARE residual exceeds ``rtol`` (``residual`` and ``tolerance`` are relative).

    Examples
    --------
    The scalar system :math:`z_{k+1} = z_k + u_k` with :math:`Q = R = 1` has
    :math:`P = (1 + \sqrt5)/2` and :math:`K = P/(1 + P)`:

    >>> from geomotion import control
    >>> lqr = control.discrete_lqr([[1.0]], [[1.0]], [[1.0]], [[1.0]])
    >>> print(f"P = {lqr.P[0, 0]:.6f}, K = {lqr.K[0, 0]:.6f}, rho = {lqr.spectral_radius:.6f}")
    P = 1.618034, K = 0.618034, rho = 0.381966
    """
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
    Q, _ = _numerics.weight_matrix(Q, "Q", definite=False)
    R, _ = _numerics.weight_matrix(R, "R", definite=True)
    if Q.shape != (n, n):
        raise ValueError(f"Q: expected shape ({n}, {n}) like A, got shape {Q.shape}")
    if R.shape != (m, m):
        raise ValueError(f"R: expected shape ({m}, {m}) for the {m} inputs, got shape {R.shape}")
    for value, name in ((rtol, "rtol"), (rank_rtol, "rank_rtol")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise TypeError(f"{name}: expected a positive number, got {value!r}")
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"{name}: expected a positive finite number, got {value!r}")
    max_iter = _validate.count(max_iter, "max_iter")

    _check_modes(A, B, Q, rank_rtol)

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
