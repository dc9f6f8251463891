r"""Integrability of velocity constraints: the alpha ^ d alpha test and Frobenius involutivity.

A velocity constraint :math:`A(q)v = 0` need not come from a position constraint
:math:`\Phi(q) = 0`: it does (locally) exactly when the distribution :math:`\ker A` is
involutive.  Derivatives are Richardson-extrapolated central differences
(``geomotion._numerics.jacobian``), and the functions passed in follow the package's
one contract for user callables (written for one point or for a stack of points).
"""

import math
from dataclasses import dataclass

import numpy as np

from .. import _numerics, _validate
from .._linalg import _rank_rtol, _solve_lower
from .dynamics import _listed, constraint_rank, null_space_basis

#: Default central-difference step of the integrability tests, in the units of q.
_STEP = 1e-5

#: Default absolute tolerance on the residuals of :class:`IntegrabilityTest` (1/[q]).
#: Differences with ``_STEP`` reach about 1e-10 on smooth O(1) forms.
_INTEGRABILITY_ATOL = 1e-6


# ---------------------------------------------------------------------------
# Integrability of velocity constraints
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IntegrabilityTest:
    r"""Verdict of :func:`one_form_integrability` or :func:`frobenius_involutivity`.

    Attributes
    ----------
    integrable : bool or (...) ndarray of bool
        ``residual <= tolerance``: the distribution passes the (local) test, one verdict
        per point of the batch.
    residual : float or (...) ndarray
        How far from integrable, in 1/[q] for the Euclidean metric of the coordinates:
        the length of the normal part of the Lie brackets of orthonormal kernel fields,
        :math:`(\sum_{a<b}|[X_a, X_b]^{\perp}|^2)^{1/2}`.  For one form this equals
        :math:`\|\alpha\wedge d\alpha\|/|\alpha|^2`.
    tolerance : float
        The absolute threshold ``atol`` used, 1/[q].
    """

    integrable: np.ndarray
    residual: np.ndarray
    tolerance: float


def _forms_and_exterior_derivatives(forms, q, step, name):
    r"""Forms ``A = forms(q)`` (..., [k,] n) and their :math:`F = d\alpha` (..., [k,] n, n).

    ``forms`` is called through ``geomotion._numerics.evaluate``: first at one point,
    whose result fixes the core shape (n,) or (k, n); then on stacks of points, or once
    per point if it does not broadcast.
    """
    _numerics.callable_argument(forms, name, "of q")
    q = _numerics.state(q, "q")
    _validate.positive(step, "step")
    batch, n = q.shape[:-1], q.shape[-1]
    point = q.reshape(-1, n)[-1] if math.prod(batch) else np.zeros(n)
    core = _validate.real_array(forms(point), f"{name}(q)").shape
    if len(core) not in (1, 2) or core[-1] != n or 0 in core:
        raise ValueError(
            f"{name}(q): expected shape {(n,)} or {('k', n)} at one point, got shape {core}"
        )
    A = _numerics.evaluate(forms, (q,), core, f"{name}(q)")
    size = math.prod(core)

    def flat(x):
        return np.reshape(forms(x), np.shape(x)[:-1] + (size,))

    # D[..., l, j] = d a_l / d q_j;  F_jk = d_j a_k - d_k a_j = D_kj - D_jk
    D = _numerics.jacobian(flat, q, size, f"{name}(q)", step=step).reshape(batch + core + (n,))
    return A, np.swapaxes(D, -1, -2) - D


def exterior_derivative(alpha, q, *, step=_STEP):
    r"""Exterior derivative of a one-form by Richardson-extrapolated central differences.

    .. math:: \alpha = \sum_k a_k(q)\,dq_k,\qquad
              d\alpha = \sum_{j<k}(\partial_ja_k - \partial_ka_j)\,dq_j\wedge dq_k,

    returned as the antisymmetric matrix :math:`F_{jk} = \partial_ja_k - \partial_ka_j`.
    :math:`\alpha` is closed when :math:`F = 0`; an integrable form need not be closed
    (:math:`e^x dy`; the test is :eq:`eq-ch2-alpha-wedge`).  The error is about
    :math:`h^4|a^{(5)}|/480 + 3\epsilon|a|/h`.

    Parameters
    ----------
    alpha : callable
        ``alpha(q)`` -> (n,) coefficients :math:`a_k`, or (k, n) for k forms, at one
        point; it may also broadcast over leading axes (it is called once per point
        if it does not).
    q : (..., n) array_like
        Where to evaluate.
    step : float, optional
        Central-difference step h in the units of q; default 1e-5.

    Returns
    -------
    (..., [k,] n, n) ndarray
        :math:`F` (units of :math:`a` per unit of q).

    Raises
    ------
    TypeError
        If ``alpha`` is not callable.
    ValueError
        If ``alpha`` returns a wrong shape or non-finite values, ``q`` is not a finite
        (..., n) array, or ``step`` is not positive.  An exception raised by ``alpha``
        itself propagates unchanged.

    Examples
    --------
    :math:`\alpha = x\,dy` on the plane has :math:`d\alpha = dx\wedge dy`, so
    :math:`F_{12} = 1`:

    >>> import numpy as np
    >>> from geomotion import constraints
    >>> constraints.exterior_derivative(lambda q: np.array([0.0, q[0]]), [0.3, 0.2]).round(9)
    array([[ 0.,  1.],
           [-1.,  0.]])
    """
    return _forms_and_exterior_derivatives(alpha, q, step, "alpha")[1]


def _integrability_test(residual, atol):
    return IntegrabilityTest(residual <= atol, residual, atol)


def one_form_integrability(alpha, q, *, step=_STEP, atol=_INTEGRABILITY_ATOL):
    r"""Test :math:`\alpha\wedge d\alpha = 0` for the constraint :math:`\alpha(v) = 0` (one form).

    A nonvanishing one-form defines a codimension-one distribution :math:`\ker\alpha`;
    locally it is integrable (holonomic, :math:`\alpha = \mu\,d\phi`) iff

    .. math:: (\alpha\wedge d\alpha)_{ijk} = a_iF_{jk} + a_jF_{ki} + a_kF_{ij} = 0,
              \qquad F = d\alpha \;(\text{see } \texttt{exterior\_derivative}).

    The residual :math:`\|\alpha\wedge d\alpha\|/|\alpha|^2` (norm over :math:`i<j<k`) is
    the value for the unit form :math:`\alpha/|\alpha|`, so rescaling :math:`\alpha` does
    not change it; for :math:`n \le 2` it is zero.  Equation :eq:`eq-ch2-alpha-wedge`.

    Parameters
    ----------
    alpha : callable
        ``alpha(q)`` -> (n,) coefficients at one point (it may broadcast over leading axes).
    q : (..., n) array_like
        Where to test.
    step : float, optional
        Central-difference step (units of q); default 1e-5.
    atol : float, optional
        Absolute verdict threshold on the residual, 1/[q]; default 1e-6.

    Returns
    -------
    IntegrabilityTest
        ``integrable``, ``residual`` (one per point of the batch) and ``tolerance``.

    Raises
    ------
    TypeError
        If ``alpha`` is not callable.
    ValueError
        As :func:`exterior_derivative`, and if :math:`\alpha(q) = 0` or ``atol < 0``.

    Examples
    --------
    :math:`dz - y\,dx` (the contact form) is not integrable:

    >>> import numpy as np
    >>> from geomotion import constraints
    >>> contact = constraints.one_form_integrability(
    ...     lambda q: np.array([-q[1], 0.0, 1.0]), [0.0, 0.0, 0.0])
    >>> bool(contact.integrable), float(contact.residual.round(9))
    (False, 1.0)
    """
    atol = float(_validate.nonnegative(atol, "atol"))
    q = _numerics.state(q, "q")
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
    return _integrability_test(residual, atol)


def frobenius_involutivity(forms, q, *, step=_STEP, atol=_INTEGRABILITY_ATOL, rtol=None):
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
        ``forms(q)`` -> (k, n), the rows :math:`\alpha^i`, at one point (it may broadcast
        over leading axes).
    q : (..., n) array_like
        Where to test.
    step : float, optional
        Central-difference step (units of q); default 1e-5.
    atol : float, optional
        Absolute verdict threshold on the residual, 1/[q]; default 1e-6.
    rtol : float, optional
        Rank threshold (relative to the largest singular value) for the regularity of
        :math:`A`, see :func:`constraint_rank`; default ``max(k, n) * eps``.

    Returns
    -------
    IntegrabilityTest
        ``integrable``, ``residual`` (one per point of the batch) and ``tolerance``.

    Raises
    ------
    TypeError
        If ``forms`` is not callable.
    ValueError
        As :func:`exterior_derivative`; if ``forms(q)`` is not (k, n); if the forms
        are dependent at some point of ``q`` (the message gives each such point's batch
        index and rank).

    Examples
    --------
    The rolling disk's constraints (q = (x, y, theta, phi)) are not involutive:

    >>> import numpy as np
    >>> from geomotion import constraints
    >>> def rolling(q):
    ...     return np.array([[1.0, 0.0, 0.0, -np.cos(q[2])], [0.0, 1.0, 0.0, -np.sin(q[2])]])
    >>> bool(constraints.frobenius_involutivity(rolling, [0.0, 0.0, 0.3, 0.0]).integrable)
    False
    """
    atol = float(_validate.nonnegative(atol, "atol"))
    q = _numerics.state(q, "q")
    A, F = _forms_and_exterior_derivatives(forms, q, step, "forms")
    if A.ndim != q.ndim + 1:
        raise ValueError(
            f"forms(q): expected shape {q.shape[:-1] + ('k', q.shape[-1])}, got shape {A.shape}"
        )
    rank, k = np.asarray(constraint_rank(A, rtol=rtol)), A.shape[-2]
    if np.any(rank < k):
        where = (
            f" at batch index {_listed(np.argwhere(rank < k), rank[rank < k])}"
            if rank.ndim
            else f" {int(rank)}"
        )
        raise ValueError(
            f"forms(q): expected {k} independent forms, got rank{where} (singular values "
            f"counted above rtol = {_rank_rtol(A, rtol):.3g} times the largest)"
        )
    N = null_space_basis(A, rtol=rtol)
    Nt = np.swapaxes(N, -1, -2)[..., None, :, :]
    c = -(Nt @ F @ N[..., None, :, :])  # (..., k, a, b)
    L = np.linalg.cholesky(A @ np.swapaxes(A, -1, -2))
    d = c.shape[-1]
    normal = _solve_lower(L, c.reshape(c.shape[:-2] + (d * d,)))
    residual = np.sqrt((normal**2).sum(axis=(-2, -1)) / 2)
    return _integrability_test(residual, atol)
