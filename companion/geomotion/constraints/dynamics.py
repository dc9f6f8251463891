r"""Regularity, reactions, projectors and the reduced dynamics of ideal constraints.

See :mod:`geomotion.constraints` for the equations and the constraint protocol.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._linalg import (
    _check_batches,
    _cho_solve,
    _constrained_solve,
    _constraint_jacobian,
    _constraint_rank,
    _constraint_rtol,
    _ConstraintRows,
    _solve_upper,
    _vector,
)

#: Default ``rtol`` of :func:`null_space_reduction`: relative tolerance on ``J_c N = 0``
#: and on the multiplier equation residual.
_ORTHOGONALITY_RTOL = 1e-9

#: How many failing batch elements an error message lists.
_LISTED = 8


@dataclass(frozen=True)
class ConstrainedDynamics:
    r"""Result of :func:`constrained_dynamics`: accelerations and multipliers.

    Read by name; it does not unpack.

    Attributes
    ----------
    a : (..., n) ndarray
        Generalized accelerations :math:`\dot v` (rad/s^2 or m/s^2 by coordinate).
    multiplier : (..., c) ndarray
        Lagrange multipliers :math:`\lambda`; :math:`J_c^T\lambda` is the generalized
        reaction load (N for a position constraint in m, N m for an angle).  For
        redundant rows, the multiplier of smallest Euclidean norm among all those that
        give the same reaction.
    rank : int or (...) ndarray of int
        Rank of ``J_c`` used by the solve, by the rule of :func:`constraint_rank`
        (and equal to what it reports for the same ``J_c`` and ``rtol``): one per matrix
        of the batch, a Python int for a single matrix.
    """

    a: np.ndarray
    multiplier: np.ndarray
    rank: object


@dataclass(frozen=True)
class Projectors:
    r"""Result of :func:`projectors`: the velocity projector and its dual.

    Read by name; it does not unpack.

    Attributes
    ----------
    P_v : (..., n, n) ndarray
        :math:`P_v = I - M^{-1}J_c^TK_c^{-1}J_c`, onto :math:`\ker J_c` along the
        mass-metric normal directions.
    P_F : (..., n, n) ndarray
        :math:`P_F = P_v^T`, annihilating the reactions :math:`\operatorname{range}J_c^T`.
    """

    P_v: np.ndarray
    P_F: np.ndarray


@dataclass(frozen=True)
class ReducedDynamics:
    r"""Result of :func:`reduced_dynamics`: :math:`\dot v = f + Gu` on the constraint.

    Read by name; it does not unpack.

    Attributes
    ----------
    f : (..., n) ndarray
        Drift acceleration (rad/s^2 or m/s^2 by coordinate), :math:`J_cf = -\gamma`.
    G : (..., n, m) ndarray
        Acceleration per unit input, :math:`J_cG = 0`.
    """

    f: np.ndarray
    G: np.ndarray


def _listed(indices, ranks):
    """'index (i, j): rank r, ...' for the first ``_LISTED`` failing batch elements."""
    items = [
        f"{tuple(int(i) for i in index)}: rank {int(rank)}"
        for index, rank in zip(indices[:_LISTED], ranks[:_LISTED])
    ]
    more = f" and {len(indices) - _LISTED} more" if len(indices) > _LISTED else ""
    return "; ".join(items) + more


# ---------------------------------------------------------------------------
# Rank, mobility and the null-space basis
# ---------------------------------------------------------------------------


def constraint_rank(J_c, *, rtol=None):
    r"""Numerical rank of a constraint Jacobian: the package's one rank rule.

    Each row is first divided by its Euclidean norm, so that the rank does not depend on
    the units or the scale of the rows (a closure written in mm and one in km, or a
    position row next to an angle row, count alike); a row shorter than ``rtol`` times
    the longest counts as zero.  Then, with :math:`\sigma_i` the singular values of the
    scaled matrix :math:`\tilde J = EJ_c`, :math:`E = \operatorname{diag}(1/|J_{c,i}|)`,

    .. math:: \operatorname{rank}J_c = \#\{i : \sigma_i > \texttt{rtol}\,\sigma_{max}\}.

    A zero matrix has rank 0.  Each matrix of a batch has its own rank.  The same rule,
    with the same default, decides the rank in :func:`mobility`,
    :func:`null_space_basis`, :func:`constrained_dynamics` (whose ``rank`` field
    reports it), :func:`projectors`, :func:`reduced_dynamics` and the constrained
    integrators.  The constraints are *regular* at a configuration when the rank equals
    the number of rows (independent constraints).

    Parameters
    ----------
    J_c : (..., m, n) array_like
        Constraint Jacobian: row k maps generalized velocities to the rate of
        constraint k.
    rtol : float, optional
        Relative threshold (dimensionless) on the singular values of the row-scaled
        Jacobian relative to the largest, and on the row norms relative to the longest;
        default None: 1e-10 (far above the round-off of computed kinematics, about
        1e-15, and below the singular-value ratios of a mechanism away from its
        singular configurations).

    Returns
    -------
    int or (...) ndarray of int
        Rank, one per matrix of the batch (a Python int for a single matrix).

    Raises
    ------
    ValueError
        If ``J_c`` is not a finite (..., m, n) array, or ``rtol`` is negative.

    Examples
    --------
    Rows in different units (the second is the first in mm) are one constraint:

    >>> from geomotion import constraints
    >>> constraints.constraint_rank([[1.0, 2.0], [1000.0, 2000.0]])
    1
    """
    J = _validate.matrix(J_c, "J_c")
    rank = _constraint_rank(J, _constraint_rtol(rtol))
    return int(rank) if rank.ndim == 0 else rank


def mobility(J_c, *, rtol=None):
    r"""Local mobility :math:`d = n - \operatorname{rank} J_c`: the number of free directions.

    At a regular configuration (rank :math:`c`) this is :math:`\dim Q_c = n - c`, the
    dimension of :math:`T_qQ_c = \ker J_c` (equation :eq:`eq-ch2-tangent-constraint`).  A
    rank drop raises the count computed here but, on its own, proves neither a change of
    the finite mobility nor a singular constraint set (redundant equations lose rank too).

    Parameters
    ----------
    J_c : (..., c, n) array_like
        Constraint Jacobian.
    rtol : float, optional
        Relative rank threshold, see :func:`constraint_rank` (default 1e-10).

    Returns
    -------
    int or (...) ndarray of int
        ``n - rank``, one per matrix of the batch (a Python int for a single matrix).

    Raises
    ------
    ValueError
        If ``J_c`` is not a finite (..., c, n) array.
    """
    J = _validate.matrix(J_c, "J_c")
    return J.shape[-1] - constraint_rank(J, rtol=rtol)


def null_space_basis(J_c, *, rtol=None, require_regular=True):
    r"""Orthonormal basis :math:`N` of the allowed velocities :math:`\{\dot q : J_c\dot q = 0\}`.

    From the SVD :math:`EJ_c = U\Sigma V^T` of the row-scaled Jacobian of
    :func:`constraint_rank` (scaling rows does not change the null space), the columns of
    :math:`V` belonging to zero singular values span the null space, so :math:`J_cN = 0`
    and :math:`N^TN = I`: a basis of :math:`T_qQ_c = \ker J_c`, equation
    :eq:`eq-ch2-tangent-constraint`.  Any other basis :math:`N' = NA` (:math:`A`
    invertible) describes the same motion with different reduced coordinates.

    Regularity is required by default: with :math:`m` independent constraints on
    :math:`n` coordinates the allowed motion has exactly :math:`n - m` dimensions, and
    a rank drop (redundant or singular constraints) is reported instead of silently
    changing that count.  With ``require_regular=False`` the basis has
    :math:`n - \operatorname{rank} J_c` columns, which must then be the same for every
    matrix of a batch.

    Batches: the basis of a batch is one array, so every matrix of it must have the
    same rank.  When some do not (a sweep through a singular configuration), the
    ValueError names each failing element's batch index and rank; compute those
    elements apart (or call :func:`constraint_rank`, which reports per element).

    Parameters
    ----------
    J_c : (..., m, n) array_like
        Constraint Jacobian (units: constraint rate per unit generalized velocity).
    rtol : float, optional
        Relative rank threshold, see :func:`constraint_rank` (default 1e-10).
    require_regular : bool, optional
        If True (default), raise unless ``J_c`` has full row rank ``m``.

    Returns
    -------
    (..., n, k) ndarray
        Orthonormal columns spanning the null space, ``k = n - rank``; ``(n, 0)`` when
        the constraints lock every coordinate.

    Raises
    ------
    ValueError
        If ``J_c`` is malformed, or rank-deficient while ``require_regular`` is True,
        or (with ``require_regular=False``) its rank differs across the batch; the
        message lists the batch indices of the offending matrices and their ranks.
    """
    J = _validate.matrix(J_c, "J_c")
    m, n = J.shape[-2:]
    if n == 0:
        raise ValueError(
            f"J_c: expected at least one generalized coordinate (column), got shape {J.shape}"
        )
    rtol = _constraint_rtol(rtol)
    rows = _ConstraintRows(J, rtol)  # the full SVD: V has n columns even when m < n
    Vt, rank = rows.Vt, rows.rank
    if require_regular and np.any(rank < m):
        where = (
            f" at batch index {_listed(np.argwhere(rank < m), rank[rank < m])}"
            if rank.ndim
            else f" {int(rank)}"
        )
        raise ValueError(
            f"J_c: expected a regular constraint Jacobian (full row rank {m}), got rank"
            f"{where} (singular values of the row-scaled J_c counted above rtol = {rtol:.3g} "
            "times the largest); remove redundant constraints or pass require_regular=False"
        )
    if rank.size and np.any(rank != rank.flat[0]):
        values, counts = np.unique(rank, return_counts=True)
        odd = rank != values[np.argmax(counts)]
        raise ValueError(
            f"J_c: expected the same rank for every matrix of the batch, got ranks from "
            f"{int(rank.min())} to {int(rank.max())} (most have rank "
            f"{int(values[np.argmax(counts)])}; batch index {_listed(np.argwhere(odd), rank[odd])})"
        )
    r = int(rank.flat[0]) if rank.size else m
    return np.swapaxes(Vt[..., r:, :], -1, -2)


# ---------------------------------------------------------------------------
# Reactions, projectors and the reduced (control-affine) dynamics
# ---------------------------------------------------------------------------


def _concat_columns(*blocks):
    """Concatenate (..., r, k_i) blocks along the last axis after broadcasting their batch axes."""
    batch = np.broadcast_shapes(*(b.shape[:-2] for b in blocks))
    return np.concatenate([np.broadcast_to(b, batch + b.shape[-2:]) for b in blocks], axis=-1)


def constrained_dynamics(M, J_c, h, gamma, tau, *, rtol=None):
    r"""Accelerations and multipliers of ideal constrained dynamics, redundant rows included.

    .. math:: M\dot v + h = \tau + J_c^T\lambda,\qquad J_c\dot v + \gamma = 0,

    .. math:: \lambda = -W^+\big[J_cM^{-1}(\tau - h) + \gamma\big],\qquad
              W = J_cM^{-1}J_c^T,\qquad \dot v = M^{-1}(\tau - h + J_c^T\lambda).

    Equations :eq:`eq-ch2-euler-lagrange-constrained` and :eq:`eq-ch2-accel-constraint`
    (or :eq:`eq-constrained-dynamics`, :eq:`eq-gs-closed-loop-forward-dynamics`), solved
    for the multiplier :eq:`eq-ch2-multiplier` (:math:`W = K_c`, :math:`\tau = Bu`).

    The accelerations are unique whatever the rank of :math:`J_c`; the multipliers are
    unique only for independent rows, and for redundant rows (a planar loop closed with
    all three point rows, two feet planted on a leg that cannot twist) the result is the
    minimum-norm multiplier, the one in :math:`\operatorname{range}J_c` (the
    pseudo-inverse above).  The rank is decided by the rule of :func:`constraint_rank`
    (rows scaled to unit length, singular values above ``rtol`` times the largest) and
    reported in the result.  A redundant set must be consistent: :math:`\gamma` in the
    range of :math:`J_c` (automatic when the rows are dependent as functions, e.g.
    duplicated or identically zero); otherwise no acceleration satisfies the constraint
    and a ValueError says so.

    The multiplier depends on the applied load :math:`\tau` at the same state
    :math:`(q, v)`: the reaction is not part of an input-independent drift.  Computed with
    the Cholesky factor of :math:`M` and the SVD of the row-scaled :math:`J_c`: on its
    row space :math:`V_r` the reduced constraint inertia :math:`V_r^TM^{-1}V_r` has a
    condition number at most that of :math:`M` (no normal equations in :math:`J_c`); no
    inverse is formed.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite joint mass matrix (kg m^2 for revolute coordinates).
    J_c : (..., c, n) array_like
        Constraint Jacobian :math:`\partial\Phi/\partial q`, of any rank.
    h : (..., n) array_like or 0
        Velocity and gravity loads :math:`h(q, v)` (e.g. ``tree.rnea(model, q, v, 0)``),
        N m for revolute and N for prismatic coordinates.
    gamma : (..., c) array_like or 0
        :math:`\gamma = \dot J_cv` (a constraint's ``acceleration_bias(q, v)``), in
        constraint units per s^2.
    tau : (..., n) array_like or 0
        Applied generalized load :math:`\tau = Bu`, same units as ``h``.
    rtol : float, optional
        Rank threshold (dimensionless) of :func:`constraint_rank`; default 1e-10.  It
        also bounds the consistency test: the residual :math:`|E(J_c\dot v + \gamma)|`
        of the row-scaled equations (:math:`E` the inverse row norms) may reach
        :math:`\max(\texttt{rtol}, \sqrt\epsilon)` times
        :math:`|E\gamma| + \sigma_{max}(EJ_c)(|\dot v| + |M^{-1}(\tau - h)|)` (checked
        only where the rank is below the number of rows).

    Returns
    -------
    ConstrainedDynamics
        ``a`` (..., n): accelerations :math:`\dot v` (rad/s^2 or m/s^2);
        ``multiplier`` (..., c): the minimum-norm :math:`\lambda`, whose
        :math:`J_c^T\lambda` is the generalized reaction load; ``rank``: the rank used,
        per matrix of the batch.

    Raises
    ------
    ValueError
        Naming the argument: ``M`` not symmetric positive definite; shapes that disagree
        or batches that do not broadcast; non-finite values; a negative ``rtol``;
        ``gamma`` not in the range of a rank-deficient ``J_c`` (inconsistent
        constraints: the message gives the rank, the scaled residual and the tolerance,
        and on a batch the index of the worst element).

    Examples
    --------
    A 2 kg particle on the unit circle at :math:`q = (0, -1)`, moving at 1 m/s, under
    gravity: :math:`\Phi = (|q|^2 - 1)/2`, :math:`J_c = q^T`, :math:`\gamma = |v|^2`.

    >>> import numpy as np
    >>> from geomotion import constraints
    >>> result = constraints.constrained_dynamics(
    ...     2.0 * np.eye(2), [[0.0, -1.0]], h=[0.0, 2.0 * 9.81], gamma=[1.0], tau=[0.0, 0.0])
    >>> result.a.round(6), result.multiplier.round(6)  # centripetal 1 m/s^2; -(m g + m v^2)
    (array([0., 1.]), array([-21.62]))

    The same constraint written twice: same acceleration, the reaction shared equally
    (the minimum-norm split), rank 1.

    >>> twice = constraints.constrained_dynamics(
    ...     2.0 * np.eye(2), [[0.0, -1.0], [0.0, -1.0]], h=[0.0, 2.0 * 9.81], gamma=[1.0, 1.0],
    ...     tau=[0.0, 0.0])
    >>> twice.a.round(6), twice.multiplier.round(6), twice.rank
    (array([0., 1.]), array([-10.81, -10.81]), 1)
    """
    M = _validate.square_matrix(M)
    J = _constraint_jacobian(J_c, M.shape[-1])
    h, tau = _vector(h, "h", M.shape[-1]), _vector(tau, "tau", M.shape[-1])
    gamma = _vector(gamma, "gamma", J.shape[-2])
    _check_batches(M=(M, 2), J_c=(J, 2), h=(h, 1), gamma=(gamma, 1), tau=(tau, 1))
    with np.errstate(over="ignore", invalid="ignore"):
        load = (tau - h)[..., None]
    a, multiplier, rank = _constrained_solve(
        M,
        J,
        load,
        gamma[..., None],
        _constraint_rtol(rtol),
        inputs={"M": M, "J_c": J, "h": h, "gamma": gamma, "tau": tau},
    )
    return ConstrainedDynamics(a[..., 0], multiplier[..., 0], _rank_result(rank))


def _rank_result(rank):
    """A rank as the API reports it: a Python int for one matrix, an int array for a batch."""
    return int(rank) if np.ndim(rank) == 0 else rank


def projectors(M, J_c, *, rtol=None):
    r"""The velocity projector :math:`P_v` and its dual force projector :math:`P_F = P_v^T`.

    .. math:: P_v = I - M^{-1}J_c^TK_c^{-1}J_c,\qquad P_F = P_v^T,\qquad
              K_c = J_cM^{-1}J_c^T .

    :math:`P_v` maps velocities (vectors) onto :math:`\ker J_c` along
    :math:`\operatorname{range}(M^{-1}J_c^T)`, the mass-metric normal directions;
    :math:`P_F` maps loads (covectors) and annihilates reactions
    :math:`\operatorname{range}J_c^T`.  They satisfy :math:`P_v^2 = P_v`,
    :math:`J_cP_v = 0`, :math:`P_v^TM = MP_v` and :math:`P_FJ_c^T = 0`.  Equation
    :eq:`eq-ch2-projectors`; the normal directions are :eq:`eq-ch2-orthogonal-complement`.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite mass matrix.
    J_c : (..., c, n) array_like
        Constraint Jacobian, of any rank: redundant rows leave :math:`\ker J_c` and so
        the projectors unchanged (:math:`K_c^{-1}` is then the pseudo-inverse).
    rtol : float, optional
        Rank threshold of :func:`constraint_rank` (default 1e-10).

    Returns
    -------
    Projectors
        ``P_v`` and ``P_F``, (..., n, n): dimensionless when all coordinates share units; otherwise entry (i, j) carries
        [q_i]/[q_j] (P_v) or [q_j]/[q_i] (P_F).

    Raises
    ------
    ValueError
        As :func:`constrained_dynamics`.
    """
    M = _validate.square_matrix(M)
    n = M.shape[-1]
    J = _constraint_jacobian(J_c, n)
    _check_batches(M=(M, 2), J_c=(J, 2))
    # P_v v is the constrained motion driven by the load M v with gamma = 0: one solve
    # with the n columns of M as loads gives every column of P_v.
    P_v, _, _ = _constrained_solve(
        M, J, M, np.zeros(J.shape[-2:-1] + (n,)), _constraint_rtol(rtol), check_range=False
    )
    return Projectors(P_v, np.swapaxes(P_v, -1, -2))


def reduced_dynamics(M, J_c, h, gamma, B, *, rtol=None):
    r"""Drift and input matrix of the constrained dynamics :math:`\dot v = f(q, v) + G(q)u`.

    .. math:: f = -P_vM^{-1}h - M^{-1}J_c^TK_c^{-1}\gamma,\qquad G = P_vM^{-1}B,

    so :math:`J_cG = 0` (every input acceleration is tangent) and :math:`J_cf = -\gamma`
    (the drift carries the normal acceleration the turning tangent space needs).  The
    drift is the constrained acceleration at :math:`u = 0`, reaction included; column
    :math:`i` of :math:`G` is the constrained acceleration produced by input :math:`i`
    alone, at :math:`h = 0` and :math:`\gamma = 0`.  Equations
    :eq:`eq-ch2-reduced-dynamics`, :eq:`eq-ch2-drift` and :eq:`eq-ch2-input-field`.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite mass matrix.
    J_c : (..., c, n) array_like
        Constraint Jacobian, of any rank (see :func:`constrained_dynamics`).
    h : (..., n) array_like or 0
        Velocity and gravity loads (N m or N per coordinate).
    gamma : (..., c) array_like or 0
        :math:`\gamma = \dot J_cv`, constraint units per s^2.
    B : (..., n, m) array_like
        Input matrix: the applied load is :math:`Bu` (N m or N per coordinate, per input unit).
    rtol : float, optional
        Rank threshold of :func:`constraint_rank` and consistency tolerance, see
        :func:`constrained_dynamics` (default 1e-10).

    Returns
    -------
    ReducedDynamics
        ``f`` (..., n): drift acceleration (rad/s^2 or m/s^2); ``G`` (..., n, m):
        acceleration per unit input.

    Raises
    ------
    ValueError
        As :func:`constrained_dynamics`, and if ``B`` does not have n rows.
    """
    M = _validate.square_matrix(M)
    n = M.shape[-1]
    J = _constraint_jacobian(J_c, n)
    h, gamma = _vector(h, "h", n), _vector(gamma, "gamma", J.shape[-2])
    B = _validate.matrix(B, "B")
    if B.shape[-2] != n:
        raise ValueError(f"B: expected shape (..., {n}, m) to match M, got shape {B.shape}")
    _check_batches(M=(M, 2), J_c=(J, 2), h=(h, 1), gamma=(gamma, 1), B=(B, 2))
    load = _concat_columns(-h[..., None], B)
    rates = _concat_columns(gamma[..., None], np.zeros((J.shape[-2], B.shape[-1])))
    a, _, _ = _constrained_solve(M, J, load, rates, _constraint_rtol(rtol))
    return ReducedDynamics(a[..., 0], a[..., 1:])


def _basis(value, n):
    N = _validate.matrix(value, "N")
    if N.shape[-2] != n:
        raise ValueError(
            f"N: expected shape (..., {n}, k) to match M ({n}x{n}), got shape {N.shape}"
        )
    if N.shape[-1] > n:
        raise ValueError(f"N: expected at most {n} columns, got shape {N.shape}")
    return N


def _reduced_inertia_factor(Mr):
    """Cholesky factor of N^T M N; a ValueError about N if its columns are dependent."""
    try:
        return np.linalg.cholesky(Mr)
    except np.linalg.LinAlgError as error:
        raise ValueError(
            "N: expected linearly independent columns (N^T M N positive definite), "
            "got a singular reduced inertia"
        ) from error


def kinetic_projector(M, N):
    r"""Projector onto the tangent space spanned by ``N``, orthogonal in the kinetic metric.

    .. math:: P_N = N(N^TMN)^{-1}N^TM

    :math:`P_N` keeps :math:`\operatorname{range}N` and annihilates its
    :math:`M`-orthogonal complement.  With ``N`` spanning :math:`\ker J_c` it equals
    :math:`P_v` of :func:`projectors`, whatever the basis; the Euclidean projector
    :math:`NN^T` (for orthonormal columns) differs from it unless :math:`M` maps
    :math:`\operatorname{range}N` into itself (as a multiple of the identity does).
    Neither tangent projector supplies the acceleration offset
    :math:`-M^{-1}J_c^TK_c^{-1}\gamma`: projecting a candidate acceleration this way gives
    :math:`J_c\dot v = 0` instead of :math:`J_c\dot v = -\gamma`, wrong whenever the
    constraint turns with the motion (see :func:`reduced_dynamics`).  Equation
    :eq:`eq-ch2-kinetic-projector`.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite mass matrix.
    N : (..., n, k) array_like
        Tangent basis with independent columns (e.g. :func:`null_space_basis`).

    Returns
    -------
    (..., n, n) ndarray
        :math:`P_N`; idempotent and self-adjoint in the metric, :math:`P_N^TM = MP_N`.

    Raises
    ------
    ValueError
        If ``M`` is not symmetric positive definite, or ``N`` has the wrong shape,
        non-finite entries or dependent columns.
    """
    M = _validate.positive_definite(M)
    N = _basis(N, M.shape[-1])
    _check_batches(M=(M, 2), N=(N, 2))
    NtM = np.swapaxes(N, -1, -2) @ M
    L_r = _reduced_inertia_factor(NtM @ N)
    return N @ _cho_solve(L_r, NtM)


def reduced_inertia(M, N):
    r"""Reduced (projected) inertia :math:`N^TMN` of the allowed motion :math:`\dot q = N\nu`.

    It is the matrix of the kinetic energy in the reduced rates,
    :math:`K = \tfrac12\dot q^TM\dot q = \tfrac12\nu^T(N^TMN)\nu`: the leading matrix of
    equation :eq:`eq-null-space-reduction`.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite joint mass matrix (kg m^2 for revolute coordinates).
    N : (..., n, k) array_like
        Basis of allowed velocities (columns in generalized-velocity units per unit of
        the reduced rate).

    Returns
    -------
    (..., k, k) ndarray
        Symmetric positive semidefinite; positive definite iff ``N`` has independent columns.

    Raises
    ------
    ValueError
        If ``M`` is not symmetric positive definite or ``N`` has the wrong shape or
        non-finite entries.
    """
    M = _validate.positive_definite(M)
    N = _basis(N, M.shape[-1])
    return np.swapaxes(N, -1, -2) @ M @ N


@dataclass(frozen=True)
class NullSpaceReduction:
    r"""Result of :func:`null_space_reduction` (all arrays broadcast over leading axes).

    Attributes
    ----------
    reduced_inertia : (..., k, k) ndarray
        :math:`N^TMN`.
    projected_load : (..., k) ndarray
        :math:`N^TQ`, the applied load seen by the reduced coordinates.
    reduced_bias : (..., k) ndarray
        :math:`N^T(M\dot N\nu + b)`.
    a_reduced : (..., k) ndarray
        Reduced acceleration :math:`\dot\nu`, solving
        :math:`(N^TMN)\dot\nu = N^T\tau - N^T(M\dot N\nu + h)` (units of :math:`\nu`
        per second).
    a : (..., n) ndarray
        Generalized accelerations :math:`\dot v = N\dot\nu + \dot N\nu` (independent
        of the choice of basis).
    multiplier : (..., m) ndarray or None
        :math:`\lambda` with :math:`J_c^T\lambda = M\dot v + h - \tau` (generalized
        units of the constraint rows), or None if no ``J_c`` was given.  Its power on any
        allowed motion, :math:`\lambda^TJ_c N\nu`, is zero.
    """

    reduced_inertia: np.ndarray
    projected_load: np.ndarray
    reduced_bias: np.ndarray
    a_reduced: np.ndarray
    a: np.ndarray
    multiplier: np.ndarray | None


def null_space_reduction(M, N, h, tau, *, a_bias=0.0, J_c=None, rtol=_ORTHOGONALITY_RTOL):
    r"""Solve ideal constrained dynamics by projection onto the allowed velocities.

    .. math:: (N^TMN)\,\dot\nu + N^T(M\dot N\nu + h) = N^T\tau,\qquad
              \dot v = N\dot\nu + \dot N\nu,\qquad
              J_c^T\lambda = M\dot v + h - \tau

    The reaction :math:`J_c^T\lambda` drops out of the projected equation because
    :math:`J_cN = 0`, not because it is absent: given ``J_c``, the multiplier is
    recovered afterwards by least squares (QR of :math:`J_c^T`), and the residual of
    that fit is checked (it vanishes exactly when ``N`` spans the whole null space of
    ``J_c``).  Equation :eq:`eq-null-space-reduction`.

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite joint mass matrix.
    N : (..., n, k) array_like
        Basis of allowed velocities, :math:`\dot q = N\nu`, independent columns.
    h : (..., n) array_like or 0
        Bias forces :math:`h(q, v)` (Coriolis, centrifugal, gravity), N m for revolute,
        N for prismatic coordinates.
    tau : (..., n) array_like or 0
        Applied generalized load :math:`\tau = Bu`, same units.
    a_bias : (..., n) array_like or 0, optional
        The product :math:`\dot N\nu`, the generalized acceleration at zero reduced
        acceleration (rad/s^2, m/s^2 by coordinate); default 0, right for a constant
        basis.
    J_c : (..., m, n) array_like, optional
        Constraint Jacobian, :math:`J_c\dot q = 0`; if given, :math:`J_cN = 0` is checked
        and the multiplier computed.  It must then have full row rank (regular
        constraints), otherwise :math:`\lambda` is not unique.
    rtol : float, optional
        Relative tolerance (dimensionless) of the checks: :math:`|J_cN|` at most ``rtol``
        times :math:`1 + |J_c||N|` (largest entries), and the misfit of
        :math:`J_c^T\lambda = M\dot v + h - \tau` at most ``rtol`` times
        :math:`1 + |M\dot v + h - \tau|`; default 1e-9.

    Returns
    -------
    NullSpaceReduction
        Reduced inertia, projected load, reduced bias, ``a_reduced`` = :math:`\dot\nu`, ``a`` =
        :math:`\dot v` and (if ``J_c`` is given) ``multiplier`` = :math:`\lambda`.

    Raises
    ------
    ValueError
        If ``M`` is not symmetric positive definite; shapes disagree; ``N`` has
        dependent columns, violates :math:`J_cN = 0`, or does not span the null space
        of ``J_c`` (the multiplier equation has no solution); or ``J_c`` is
        rank-deficient.
    """
    rtol = float(_validate.nonnegative(rtol, "rtol"))
    M = _validate.positive_definite(M)
    n = M.shape[-1]
    N = _basis(N, n)
    Q = _vector(tau, "tau", n)
    b = _vector(h, "h", n)
    a0 = _vector(a_bias, "a_bias", n)

    Nt = np.swapaxes(N, -1, -2)
    Mr = Nt @ M @ N
    projected_load = np.einsum("...ij,...j->...i", Nt, Q)
    reduced_bias = np.einsum("...ij,...j->...i", Nt, np.einsum("...ij,...j->...i", M, a0) + b)
    a_reduced = np.zeros(np.broadcast_shapes(Mr.shape[:-1], projected_load.shape))
    if N.shape[-1]:
        L_r = _reduced_inertia_factor(Mr)
        a_reduced = _cho_solve(L_r, (projected_load - reduced_bias)[..., None])[..., 0]
    a = np.einsum("...ij,...j->...i", N, a_reduced) + a0

    multiplier = None
    if J_c is not None:
        J = _constraint_jacobian(J_c, n)
        m = J.shape[-2]
        rank = np.asarray(constraint_rank(J))
        if np.any(rank < m):
            where = (
                f" at batch index {_listed(np.argwhere(rank < m), rank[rank < m])}"
                if rank.ndim
                else f" {int(rank)}"
            )
            raise ValueError(
                f"J_c: expected a regular constraint Jacobian (full row rank {m}) so that the "
                f"multiplier is unique, got rank{where}"
            )
        JN = J @ N
        scale = 1.0 + np.abs(J).max(initial=0.0) * np.abs(N).max(initial=0.0)
        if np.abs(JN).max(initial=0.0) > rtol * scale:
            raise ValueError(
                f"N: expected allowed velocities with J_c N = 0, got |J_c N| up to "
                f"{np.abs(JN).max():.3g}"
            )
        rhs = np.einsum("...ij,...j->...i", M, a) + b - Q
        Jt = np.swapaxes(J, -1, -2)
        # Least squares J^T lambda = rhs: J^T = QR (thin), lambda = R^-1 Q^T rhs.
        Q_t, R_t = np.linalg.qr(Jt)
        multiplier = _solve_upper(R_t, np.swapaxes(Q_t, -1, -2) @ rhs[..., None])[..., 0]
        misfit = np.abs(np.einsum("...ij,...j->...i", Jt, multiplier) - rhs).max(initial=0.0)
        if misfit > rtol * (1.0 + np.abs(rhs).max(initial=0.0)):
            raise ValueError(
                "N: expected a basis of the whole null space of J_c (the reaction J_c^T lambda "
                f"must balance M a + h - tau), got an unbalanced residual of {misfit:.3g}"
            )
    return NullSpaceReduction(Mr, projected_load, reduced_bias, a_reduced, a, multiplier)
