r"""Sampling a linear system: the exact discrete system under a zero-order hold.

When the input of :math:`\dot z = Az + Bu` is held constant over each step of length
:math:`\Delta t` (what a digital controller does between two samples), the state at the
next sample is exactly

.. math:: z_{k+1} = A_dz_k + B_du_k,\qquad A_d = e^{A\Delta t},\qquad
          B_d = \int_0^{\Delta t} e^{As}\,ds\;B,

and both blocks come out of one matrix exponential (Van Loan 1978):

.. math:: \exp\left(\begin{bmatrix} A & B\\ 0 & 0\end{bmatrix}\Delta t\right)
          = \begin{bmatrix} A_d & B_d\\ 0 & I\end{bmatrix}.

``scipy.linalg.expm`` (scaling and squaring with a Padé approximant, Al-Mohy and
Higham 2009) evaluates it; no inverse of :math:`A` is needed, so a singular :math:`A`
(an integrator, a pendulum at rest) is as good as any other.
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .. import _validate

__all__ = ["ZeroOrderHold", "zero_order_hold"]


@dataclass(frozen=True)
class ZeroOrderHold:
    r"""Result of :func:`zero_order_hold`: the sampled system :math:`z_{k+1} = A_dz_k + B_du_k`.

    Attributes
    ----------
    A_d : (..., n, n) ndarray
        State transition over one step, :math:`e^{A\Delta t}` (dimensionless per state
        unit).
    B_d : (..., n, m) ndarray
        Response after one step to a unit input held over it,
        :math:`\int_0^{\Delta t} e^{As}\,ds\,B` (state units per input unit).
    """

    A_d: np.ndarray
    B_d: np.ndarray


def zero_order_hold(A, B, dt):
    r"""The exact discrete system of :math:`\dot z = Az + Bu` with ``u`` held over each step.

    .. math:: \begin{bmatrix} A_d & B_d\\ 0 & I\end{bmatrix}
              = \exp\left(\begin{bmatrix} A & B\\ 0 & 0\end{bmatrix}\Delta t\right)

    so that :math:`z(t + \Delta t) = A_dz(t) + B_du` when :math:`u` is constant over the
    step (equations in the docstring of the module
    ``geomotion.control.discretization``).  The result feeds
    :func:`geomotion.control.discrete_lqr` for a sampled controller; as :math:`\Delta t`
    shrinks, its gain tends to that of :func:`geomotion.control.lqr`.

    Parameters
    ----------
    A : (..., n, n) array_like
        State matrix (1/s).
    B : (..., n, m) array_like
        Input matrix (state units per second per input unit).
    dt : float or (...) array_like
        Sampling step (s), positive.

    Returns
    -------
    ZeroOrderHold
        ``A_d`` (..., n, n) and ``B_d`` (..., n, m), with the broadcast batch shape of
        ``A``, ``B`` and ``dt``.

    Raises
    ------
    TypeError
        An argument that is not an array of real numbers (``None``, a string, complex
        numbers, a boolean).
    ValueError
        Naming the argument: ``A`` not square, ``B`` without the rows of ``A`` or with no
        column, non-finite entries, a step that is not positive, batch axes that do not
        broadcast, or a step so long that the exponential overflows.

    Examples
    --------
    The double integrator :math:`\ddot x = u` held for 0.1 s: :math:`A_d = [[1, \Delta t],
    [0, 1]]`, :math:`B_d = [\Delta t^2/2, \Delta t]`.

    >>> from geomotion import control
    >>> held = control.zero_order_hold([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], 0.1)
    >>> held.A_d.round(12).tolist(), held.B_d.round(12).tolist()
    ([[1.0, 0.1], [0.0, 1.0]], [[0.005], [0.1]])
    """
    A = _validate.square_matrix(A, "A")
    B = _validate.matrix(B, "B")
    dt = _validate.real_array(dt, "dt")
    n = A.shape[-1]
    if B.shape[-2] != n or B.shape[-1] == 0:
        raise ValueError(
            f"B: expected shape (..., {n}, m) with m >= 1 (a row per state of A), got shape "
            f"{B.shape}"
        )
    if np.any(dt <= 0):
        bad = dt if dt.ndim == 0 else dt[dt <= 0][0]
        raise ValueError(f"dt: expected a positive sampling step in s, got {float(bad)!r}")
    m = B.shape[-1]
    batch = _validate.batch_shape({"A": A.shape[:-2], "B": B.shape[:-2], "dt": dt.shape})
    block = np.zeros(batch + (n + m, n + m))
    step = dt[..., None, None]
    block[..., :n, :n] = A * step
    block[..., :n, n:] = B * step
    with np.errstate(over="ignore", invalid="ignore"):
        exponential = scipy.linalg.expm(block)
    if not np.all(np.isfinite(exponential)):
        raise ValueError(
            f"dt: expected a step over which exp(A dt) stays finite, got a step of up to "
            f"{float(dt.max())!r} s with a largest |A| entry {float(np.abs(A).max()):.3g} 1/s "
            "(the exponential overflows); use a shorter step"
        )
    return ZeroOrderHold(A_d=exponential[..., :n, :n], B_d=exponential[..., :n, n:])
