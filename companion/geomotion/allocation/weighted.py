r"""Metric minimum-norm solutions: the weighted allocation (equation
:eq:`eq-ch2-optimal-null-space`) and the minimum-kinetic-energy velocity (equation
:eq:`eq-ch2-minimum-energy-velocity`).

See :mod:`geomotion.allocation` for the conventions.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._linalg import (
    _check_batches,
    _rank_rtol,
    _rank_threshold,
    _singular_values,
    _solve_lower,
    _solve_upper,
    _vector,
)
from .family import _map


def _metric_factor(value, name, m, map_name):
    """Validate an SPD (..., m, m) metric matching the m columns of ``map_name``; return (W, L)."""
    W, L = _validate.positive_definite_factor(value, name)
    if W.shape[-1] != m:
        raise ValueError(
            f"{name}: expected shape (..., {m}, {m}) to match the {m} columns of "
            f"{map_name}, got shape {W.shape}"
        )
    return W, L


def _metric_minimum_norm(G, b, L, rtol, names):
    r"""The minimizer of :math:`\tfrac12u^TWu` subject to :math:`Gu = b`, with :math:`W = LL^T`.

    With :math:`y = L^Tu` the problem becomes the Euclidean minimum norm of
    :math:`X^Ty = b`, :math:`X = L^{-1}G^T`.  The thin QR :math:`X = QR` gives
    :math:`y = QR^{-T}b` and :math:`u = L^{-T}y`, which equals
    :math:`W^{-1}G^T(GW^{-1}G^T)^{-1}b` without forming :math:`GW^{-1}G^T` (whose condition
    number is the square of :math:`X`'s).
    """
    map_name, metric_name = names
    _check_batches(**{map_name: (G, 2), "b": (b, 1), metric_name: (L, 2)})
    X = _solve_lower(L, np.swapaxes(G, -1, -2))
    s = _singular_values(X)
    rank = np.sum(s > _rank_threshold(X, s, rtol), axis=-1)
    d = G.shape[-2]
    if np.any(rank < d):
        index = np.unravel_index(np.argmin(rank), rank.shape)
        where = f" at batch element {tuple(int(i) for i in index)}" if rank.ndim else ""
        raise ValueError(
            f"{map_name}: expected independent rows (full row rank {d}), got rank "
            f"{int(rank[index])}{where} (singular values of {map_name} {metric_name}^-1/2 above "
            f"rtol = {_rank_rtol(X, rtol):.3g} times the largest); for a rank-deficient "
            "map use solution_family"
        )
    Q, R = np.linalg.qr(X)
    y = Q @ _solve_lower(np.swapaxes(R, -1, -2), b[..., None])
    return _solve_upper(np.swapaxes(L, -1, -2), y)[..., 0]


def weighted_allocation(G, b, W, *, rtol=None):
    r"""The input of least weighted effort :math:`\tfrac12u^TWu` that achieves :math:`Gu = b`.

    .. math:: u_W = W^{-1}G^T(GW^{-1}G^T)^{-1}b

    Equation :eq:`eq-ch2-optimal-null-space` (derived in exercise
    :eq:`eq-ex2-allocation-lagrange`).

    It is the :math:`W`-smallest member of the family of
    :func:`~geomotion.allocation.solution_family`: changing :math:`W` slides the answer
    along :math:`\ker G` and leaves :math:`Gu` alone.  Example: :math:`G = (1, 1)`,
    :math:`b = 1`, :math:`W = \mathrm{diag}(1, 4)` gives :math:`(0.8, 0.2)`, whereas the
    Euclidean :math:`W = I` gives :math:`(0.5, 0.5)`.  The weights express a modelling
    choice at one fixed state: differentiating :math:`W` along a posture path does not
    stand in for solving this problem at each state, and input bounds are ignored here
    (see :func:`~geomotion.allocation.bounded_allocation`).

    Parameters
    ----------
    G : (..., d, m) array_like
        Effective input map (e.g. the reduced :math:`\bar G`, rad/s^2 per input unit)
        with full row rank ``d``.
    b : (..., d) array_like or 0
        Requested acceleration minus drift.
    W : (..., m, m) array_like
        Symmetric positive definite weight (objective units per input unit squared) of
        the cost :math:`\tfrac12u^TWu`.  The factor ½ is the package's convention for
        every quadratic cost; it does not move the minimizer, so a text that writes
        :math:`u^TWu` gets the same :math:`u_W` (pass ``2 * W`` to match its cost value).
    rtol : float, optional, keyword-only
        Row-rank threshold: a singular value of :math:`GW^{-1/2}` counts as zero when it
        is at most ``rtol`` times the largest (default ``max(d, m) * eps``).

    Returns
    -------
    (..., m) ndarray
        :math:`u_W`, in input units.

    Raises
    ------
    ValueError
        If an argument is malformed or non-finite, shapes or batches disagree, ``W`` is
        not symmetric positive definite, or ``G`` has dependent rows (the message gives
        the rank and, in a batch, the first element of lowest rank; ``solution_family``
        handles that case).
    """
    G = _map(G, "G")
    b = _vector(b, "b", G.shape[-2])
    _, L = _metric_factor(W, "W", G.shape[-1], "G")
    return _metric_minimum_norm(G, b, L, rtol, ("G", "W"))


def minimum_energy_velocity(M, A, b, *, rtol=None):
    r"""The velocity of least kinetic energy :math:`\tfrac12v^TMv` that satisfies :math:`Av = b`.

    .. math:: v_* = M^{-1}A^T(AM^{-1}A^T)^{-1}b

    Equation :eq:`eq-ch2-minimum-energy-velocity`.

    For a task rate :math:`\dot y_d` that must respect the constraints, ``A`` stacks the
    constraint rows over the task rows and ``b`` puts zeros over :math:`\dot y_d`
    (:func:`stack_constraint_and_task`).  :math:`v_*` is :math:`M`-orthogonal to
    :math:`\ker A`: :math:`n^TMv_* = 0` whenever :math:`An = 0`.  The Euclidean
    pseudoinverse :math:`A^+b` minimizes :math:`|v|` instead; the two agree when :math:`M`
    is a multiple of the identity.  The answer is instantaneous: carrying the task out
    over time (position-level feasibility, input limits) needs integration and input
    checks.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite joint mass matrix (kg m^2 for revolute coordinates).
    A : (..., k, n) array_like
        Independent rows, e.g. the constraint Jacobian :math:`J_c` over the task
        Jacobian :math:`J_t`.
    b : (..., k) array_like or 0
        Required rates :math:`Av` (zeros for the constraints, then :math:`\dot y_d`).
    rtol : float, optional, keyword-only
        Row-rank threshold: a singular value of :math:`AM^{-1/2}` counts as zero when it
        is at most ``rtol`` times the largest (default ``max(k, n) * eps``).

    Returns
    -------
    (..., n) ndarray
        :math:`v_*` in generalized velocity units (rad/s or m/s).

    Raises
    ------
    ValueError
        If an argument is malformed or non-finite, shapes or batches disagree, ``M`` is
        not symmetric positive definite, or ``A`` has dependent rows (e.g. a task row
        that the constraints already fix; in a batch the message names the element).
    """
    A = _map(A, "A")
    b = _vector(b, "b", A.shape[-2])
    _, L = _metric_factor(M, "M", A.shape[-1], "A")
    return _metric_minimum_norm(A, b, L, rtol, ("A", "M"))


@dataclass(frozen=True)
class StackedTask:
    r"""Rows and rates of a constrained task, from :func:`stack_constraint_and_task`.

    Read the fields by name and pass them on:
    ``minimum_energy_velocity(M, task.A, task.b)``; the result does not unpack.

    Attributes
    ----------
    A : (..., c + t, n) ndarray
        :math:`(J_c; J_t)`: the constraint rows over the task rows.
    b : (..., c + t) ndarray
        :math:`(0; \dot y_d)`: zeros for the constraints, then the task rate.
    """

    A: np.ndarray
    b: np.ndarray


def stack_constraint_and_task(J_c, J_t, task_rate):
    r"""Rows :math:`A = (J_c; J_t)` and rates :math:`b = (0; \dot y_d)` of a constrained task.

    Pass the result to :func:`minimum_energy_velocity`: the velocity it returns keeps the
    constraints (:math:`J_cv = 0`) and produces the task rate (:math:`J_tv = \dot y_d`),
    as in equation :eq:`eq-ch2-minimum-energy-velocity`.

    Parameters
    ----------
    J_c : (..., c, n) array_like
        Constraint Jacobian.
    J_t : (..., t, n) array_like
        Task Jacobian :math:`\partial\psi/\partial q` (task units per generalized unit).
    task_rate : (..., t) array_like
        Desired task rate :math:`\dot y_d`.

    Returns
    -------
    StackedTask
        ``A`` (..., c + t, n) and ``b`` (..., c + t), with the broadcast batch shape.

    Raises
    ------
    ValueError
        If an argument is malformed or non-finite, the column counts differ, or the
        batches do not broadcast.
    """
    Jc = _map(J_c, "J_c")
    Jt = _map(J_t, "J_t")
    if Jt.shape[-1] != Jc.shape[-1]:
        raise ValueError(
            f"J_t: expected shape (..., t, {Jc.shape[-1]}) to match the columns of J_c, "
            f"got shape {Jt.shape}"
        )
    rate = _vector(task_rate, "task_rate", Jt.shape[-2])
    batch = _check_batches(J_c=(Jc, 2), J_t=(Jt, 2), task_rate=(rate, 1))
    A = np.concatenate(
        [np.broadcast_to(Jc, batch + Jc.shape[-2:]), np.broadcast_to(Jt, batch + Jt.shape[-2:])],
        axis=-2,
    )
    zeros = np.zeros(batch + (Jc.shape[-2],))
    b = np.concatenate([zeros, np.broadcast_to(rate, batch + rate.shape[-1:])], axis=-1)
    return StackedTask(A=A, b=b)
