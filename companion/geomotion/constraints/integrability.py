r"""Integrability of velocity constraints: the alpha ^ d alpha test and Frobenius involutivity.

A velocity constraint :math:`A(q)v = 0` need not come from a position constraint
:math:`\Phi(q) = 0`: it does (locally) exactly when the distribution :math:`\ker A` is
involutive.  Derivatives are central differences.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._linalg import _rank_rtol, _solve_lower
from .dynamics import constraint_rank, null_space_basis

#: Default central-difference step of the integrability tests, in the units of q.
FD_STEP = 1e-5

#: Default integrability tolerance on the residuals of :class:`IntegrabilityTest` (1/[q]).
#: Central differences with ``FD_STEP`` reach about 1e-10 on smooth O(1) forms.
INTEGRABILITY_TOL = 1e-6


# ---------------------------------------------------------------------------
# Integrability of velocity constraints
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IntegrabilityTest:
    r"""Verdict of :func:`one_form_integrability` or :func:`frobenius_involutivity`.

    Attributes
    ----------
    integrable : bool or (...) ndarray of bool
        ``residual <= tolerance``: the distribution passes the (local) test.
    residual : float or (...) ndarray
        How far from integrable, in 1/[q] for the Euclidean metric of the coordinates:
        the length of the normal part of the Lie brackets of orthonormal kernel fields,
        :math:`(\sum_{a<b}|[X_a, X_b]^{\perp}|^2)^{1/2}`.  For one form this equals
        :math:`\|\alpha\wedge d\alpha\|/|\alpha|^2`.
    tolerance : float
        The threshold used.
    """

    integrable: np.ndarray
    residual: np.ndarray
    tolerance: float


def _forms_and_exterior_derivatives(forms, q, step, name):
    r"""Forms ``A = forms(q)`` (..., [k,] n) and their :math:`F = d\alpha` (..., [k,] n, n)."""
    if not callable(forms):
        raise ValueError(f"{name}: expected a callable of q, got {type(forms).__name__}")
    q = _validate.real_array(q, "q")
    if q.ndim == 0 or q.shape[-1] == 0:
        raise ValueError(f"q: expected shape (..., n) with n >= 1, got shape {q.shape}")
    h = float(_validate.positive(step, "step"))
    batch, n = q.shape[:-1], q.shape[-1]
    A = _validate.real_array(forms(q), f"{name}(q)")
    if A.shape[: len(batch)] != batch or A.ndim not in (q.ndim, q.ndim + 1) or A.shape[-1] != n:
        raise ValueError(
            f"{name}(q): expected shape {batch + (n,)} or {batch + ('k', n)}, got shape {A.shape}"
        )
    # Row j of the (..., n, n) stacks is q shifted by +-h along coordinate j.
    shifted = np.stack([q[..., None, :] + h * np.eye(n), q[..., None, :] - h * np.eye(n)])
    values = _validate.real_array(forms(shifted), f"{name}(q +- step e_j)")
    expected = (2,) + batch + (n,) + A.shape[len(batch) :]
    if values.shape != expected:
        raise ValueError(
            f"{name}: expected a function that broadcasts over leading axes (shape {expected} "
            f"for input shape {shifted.shape}), got shape {values.shape}"
        )
    # D[..., l, j] = d a_l / d q_j;  F_jk = d_j a_k - d_k a_j = D_kj - D_jk
    D = np.moveaxis((values[0] - values[1]) / (2 * h), len(batch), -1)
    return A, np.swapaxes(D, -1, -2) - D


def exterior_derivative(alpha, q, step=FD_STEP):
    r"""Exterior derivative of a one-form by central differences.

    .. math:: \alpha = \sum_k a_k(q)\,dq_k,\qquad
              d\alpha = \sum_{j<k}(\partial_ja_k - \partial_ka_j)\,dq_j\wedge dq_k,

    returned as the antisymmetric matrix :math:`F_{jk} = \partial_ja_k - \partial_ka_j`.
    :math:`\alpha` is closed when :math:`F = 0`; an integrable form need not be closed
    (:math:`e^x dy`).  The error is about :math:`h^2|a'''|/6 + \epsilon|a|/h`.

    Parameters
    ----------
    alpha : callable
        ``alpha(q)`` -> (..., n) coefficients :math:`a_k`, or (..., k, n) for k forms; must
        accept extra leading axes in ``q``.
    q : (..., n) array_like
        Where to evaluate.
    step : float
        Central-difference step h in the units of q.

    Returns
    -------
    (..., [k,] n, n) ndarray
        :math:`F` (units of :math:`a` per unit of q).

    Raises
    ------
    ValueError
        If ``alpha`` is not callable or returns a wrong shape or non-finite values, ``q``
        is not a finite (..., n) array, or ``step`` is not positive.
    """
    return _forms_and_exterior_derivatives(alpha, q, step, "alpha")[1]


def _integrability_test(residual, tol):
    tol = float(_validate.nonnegative(tol, "tol"))
    return IntegrabilityTest(residual <= tol, residual, tol)


def one_form_integrability(alpha, q, step=FD_STEP, tol=INTEGRABILITY_TOL):
    r"""Test :math:`\alpha\wedge d\alpha = 0` for the constraint :math:`\alpha(v) = 0` (one form).

    A nonvanishing one-form defines a codimension-one distribution :math:`\ker\alpha`;
    locally it is integrable (holonomic, :math:`\alpha = \mu\,d\phi`) iff

    .. math:: (\alpha\wedge d\alpha)_{ijk} = a_iF_{jk} + a_jF_{ki} + a_kF_{ij} = 0,
              \qquad F = d\alpha \;(\text{see } \texttt{exterior\_derivative}).

    The residual :math:`\|\alpha\wedge d\alpha\|/|\alpha|^2` (norm over :math:`i<j<k`) is
    the value for the unit form :math:`\alpha/|\alpha|`, so rescaling :math:`\alpha` does
    not change it; for :math:`n \le 2` it is zero.

    Parameters
    ----------
    alpha : callable
        ``alpha(q)`` -> (..., n) coefficients; must accept extra leading axes.
    q : (..., n) array_like
        Where to test.
    step : float
        Central-difference step (units of q).
    tol : float
        Verdict threshold on the residual (1/[q]).

    Returns
    -------
    IntegrabilityTest

    Raises
    ------
    ValueError
        As :func:`exterior_derivative`, and if :math:`\alpha(q) = 0` or ``tol < 0``.
    """
    q = _validate.real_array(q, "q")
    a, F = _forms_and_exterior_derivatives(alpha, q, step, "alpha")
    if a.ndim != q.ndim:
        raise ValueError(f"alpha(q): expected one form of shape {q.shape}, got shape {a.shape}")
    wedge = (
        np.einsum("...i,...jk->...ijk", a, F)
        + np.einsum("...j,...ki->...ijk", a, F)
        + np.einsum("...k,...ij->...ijk", a, F)
    )
    length2 = (a * a).sum(-1)
    if np.any(length2 == 0):
        raise ValueError("alpha(q): expected a nonvanishing one-form, got alpha = 0")
    # Each i<j<k component appears 6 times in the full antisymmetric array.
    residual = np.sqrt((wedge**2).sum(axis=(-3, -2, -1)) / 6) / length2
    return _integrability_test(residual, tol)


def frobenius_involutivity(forms, q, step=FD_STEP, tol=INTEGRABILITY_TOL, rtol=None):
    r"""Frobenius test: is the common kernel of several one-forms closed under Lie brackets?

    The rows of :math:`A(q)` (k x n) are the forms :math:`\alpha^i`, the constraints
    :math:`A(q)v = 0`.  For fields :math:`X, Y` in :math:`\ker A`,
    :math:`\alpha^i([X, Y]) = X(\alpha^i(Y)) - Y(\alpha^i(X)) - d\alpha^i(X, Y)
    = -d\alpha^i(X, Y)`, so brackets stay in the kernel iff every :math:`d\alpha^i`
    vanishes on it: :math:`N^TF^iN = 0` for a kernel basis :math:`N`.  The residual is the
    length of the bracket components normal to the kernel,
    :math:`|A^{+}A[X_a, X_b]| = (c^T(AA^T)^{-1}c)^{1/2}` with :math:`c_i = -F^i(X_a, X_b)`,
    summed in quadrature over the pairs of the orthonormal basis of
    :func:`null_space_basis` (the sum does not depend on which orthonormal basis).

    Parameters
    ----------
    forms : callable
        ``forms(q)`` -> (..., k, n), the rows :math:`\alpha^i`; must accept extra leading axes.
    q : (..., n) array_like
        Where to test.
    step : float
        Central-difference step (units of q).
    tol : float
        Verdict threshold on the residual (1/[q]).
    rtol : float, optional
        Rank threshold for the regularity of :math:`A`, see :func:`constraint_rank`.

    Returns
    -------
    IntegrabilityTest

    Raises
    ------
    ValueError
        As :func:`exterior_derivative`; if ``forms(q)`` is not (..., k, n); if the forms
        are dependent at ``q`` (the message gives the rank).
    """
    q = _validate.real_array(q, "q")
    A, F = _forms_and_exterior_derivatives(forms, q, step, "forms")
    if A.ndim != q.ndim + 1:
        raise ValueError(
            f"forms(q): expected shape {q.shape[:-1] + ('k', q.shape[-1])}, got shape {A.shape}"
        )
    rank, k = np.min(constraint_rank(A, rtol)), A.shape[-2]
    if rank < k:
        raise ValueError(
            f"forms(q): expected {k} independent forms, got rank {rank} (singular values "
            f"counted above rtol = {_rank_rtol(A, rtol):.3g} times the largest)"
        )
    N = null_space_basis(A, rtol)
    Nt = np.swapaxes(N, -1, -2)[..., None, :, :]
    c = -(Nt @ F @ N[..., None, :, :])  # (..., k, a, b)
    L = np.linalg.cholesky(A @ np.swapaxes(A, -1, -2))
    d = c.shape[-1]
    normal = _solve_lower(L, c.reshape(c.shape[:-2] + (d * d,)))
    residual = np.sqrt((normal**2).sum(axis=(-2, -1)) / 2)
    return _integrability_test(residual, tol)
