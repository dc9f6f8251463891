r"""Inertial terms of Lagrangian mechanics from any configuration-dependent mass matrix.

The kinetic energy :math:`K = \tfrac12 v^TM(q)v` of generalized coordinates :math:`q`
(rates :math:`v = \dot q`) produces, in the equations of motion
:math:`M\dot v + c(q, v) + \nabla V = \dots`, the velocity load

.. math:: c_i = \sum_{j,k}\Gamma_{ijk}v_jv_k,\qquad
          \Gamma_{ijk} = \tfrac12\left(\partial_kM_{ij} + \partial_jM_{ik}
                                        - \partial_iM_{jk}\right),

built from the first partial derivatives of the metric :math:`M` alone (equation
:eq:`eq-ch2-christoffel`, in the equations of motion :eq:`eq-ch2-euler-lagrange-constrained`;
the energy identity is :eq:`eq-ch2-energy-identity`).  This module
works for *any* mass-matrix function -- a tree's CRBA, a hand-written metric, a
reduced model -- in four steps:

* :func:`mass_matrix_derivatives` -- :math:`\partial_kM_{ij}` as an array
  ``dM[..., i, j, k]``, by Richardson-extrapolated central differences or from an
  analytic derivative;
* :func:`christoffel_first_kind` and :func:`christoffel_second_kind` -- the
  coefficients :math:`\Gamma_{ijk}` and :math:`\Gamma^i_{jk} = \sum_l (M^{-1})_{il}\Gamma_{ljk}`;
* :func:`coriolis_matrix`, :func:`coriolis_forces`, :func:`mass_matrix_rate` --
  :math:`C_{ij} = \sum_k\Gamma_{ijk}v_k` (so :math:`c = Cv`) and
  :math:`\dot M_{ij} = \sum_k\partial_kM_{ij}v_k`;
* :func:`energy_identity_residual` and :func:`skew_residual` -- the checks
  :math:`v^Tc = \tfrac12v^T\dot Mv` and :math:`\dot M - 2C` skew-symmetric, for this
  module's :math:`C` or for any other one (e.g. an analytic tree algorithm).

Many matrices :math:`C` satisfy :math:`Cv = c`; the one built from :math:`\Gamma_{ijk}`
makes :math:`\dot M - 2C` skew, which not every one does.  :math:`C \ne \dot M` in
general.

Units: with :math:`q` in rad (or m), :math:`M` in kg m^2 (or kg m, kg), the derivatives
``dM`` carry the units of :math:`M` per unit of :math:`q`, :math:`C` and :math:`\dot M`
those of :math:`M` per second, :math:`c` those of a generalized force (N m or N), and
:math:`\Gamma^i_{jk}` those of :math:`q_i / (q_j q_k)` (rad^-1, i.e. dimensionless, for
angles).

Every function broadcasts over leading (batch) axes.
"""

import numpy as np

from . import _numerics, _validate

__all__ = [
    "mass_matrix_derivatives",
    "christoffel_first_kind",
    "christoffel_second_kind",
    "coriolis_matrix",
    "coriolis_forces",
    "mass_matrix_rate",
    "energy_identity_residual",
    "skew_residual",
]

# The default finite-difference step of :func:`mass_matrix_derivatives` is
# ``geomotion._numerics.FD_STEP`` = 2e-3 in units of each coordinate (rad or m), near
# eps**(1/5), where the O(h^4) truncation error of the extrapolated difference meets its
# O(eps / h) rounding error (h = 1e-3 and 4e-3 measured up to 2x and 14x worse on the
# test metrics and trees).

#: Largest asymmetry accepted in ``M(q)`` (``M_ij`` vs ``M_ji``) and in ``dM`` (``i`` vs
#: ``j``), relative to the largest entry of the array checked.
_SYMMETRY_RTOL = 1e-10

#: Default of ``rtol`` in :func:`christoffel_second_kind`: the smallest accepted ratio of
#: the smallest to the largest squared Cholesky pivot of M; below it M is numerically
#: singular and a solve would keep fewer than about three correct digits.
_SINGULARITY_RTOL = 1e3 * np.finfo(float).eps


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _configuration(q):
    """Validate a finite (..., n) configuration with n >= 1."""
    q = _validate.real_array(q, "q")
    if q.ndim < 1 or q.shape[-1] < 1:
        raise ValueError(f"q: expected shape (..., n) with n >= 1, got shape {q.shape}")
    return q


def _symmetric_part(array, name, axes, what):
    """Return the symmetric part of ``array`` over ``axes`` after checking its asymmetry."""
    transposed = np.swapaxes(array, *axes)
    asymmetry = np.abs(array - transposed).max(initial=0.0)
    scale = np.abs(array).max(initial=0.0)
    if asymmetry > _SYMMETRY_RTOL * scale:
        raise ValueError(
            f"{name}: expected {what}, got asymmetry {asymmetry:.3g} "
            f"(largest entry {scale:.3g}, relative tolerance {_SYMMETRY_RTOL:g})"
        )
    return 0.5 * (array + transposed)


def _metric_derivatives(dM, name="dM"):
    """Validate a finite (..., n, n, n) array symmetric in its first two core axes."""
    dM = _validate.real_array(dM, name)
    n = dM.shape[-1] if dM.ndim else 0
    if dM.ndim < 3 or n < 1 or dM.shape[-3:] != (n, n, n):
        raise ValueError(f"{name}: expected shape (..., n, n, n) with n >= 1, got shape {dM.shape}")
    return _symmetric_part(dM, name, (-3, -2), "dM[..., i, j, k] symmetric in i and j")


def _well_conditioned(L, rtol):
    """Return the Cholesky factor ``L`` of M after refusing a numerically singular M."""
    pivots = np.diagonal(L, axis1=-2, axis2=-1) ** 2
    ratio = pivots.min(axis=-1) / pivots.max(axis=-1)
    if np.any(ratio < rtol):
        raise ValueError(
            f"M: expected a well-conditioned mass matrix, got a Cholesky pivot ratio "
            f"{ratio.min():.3g} below {rtol:.3g} (numerically singular)"
        )
    return L


def _rates(v, n):
    """Validate finite (..., n) generalized velocities."""
    return _validate.trailing_shape(v, "v", (n,))


def _batch_shape(*named_batches):
    """Broadcast the leading shapes of ``(name, shape)`` pairs; name them if they clash."""
    return _validate.batch_shape(dict(named_batches))


# ---------------------------------------------------------------------------
# Metric derivatives
# ---------------------------------------------------------------------------


def mass_matrix_derivatives(mass_matrix, q, *, step=None, dM=None):
    r"""Partial derivatives of a mass matrix, ``dM[..., i, j, k]`` = :math:`\partial_k M_{ij}`.

    Without ``dM``, central differences with one Richardson extrapolation step:

    .. math:: D_k(h) = \frac{M(q + he_k) - M(q - he_k)}{2h},\qquad
              \partial_kM \approx \frac{4D_k(h/2) - D_k(h)}{3}
              = \partial_kM - \frac{h^4}{480}\,\partial_k^5M + O(h^6),

    i.e. four evaluations of :math:`M` per coordinate.  The default step is
    :math:`h_k = 2\cdot10^{-3}` in the units of :math:`q_k`, near
    :math:`\varepsilon^{1/5}` for double precision, where the truncation error
    :math:`\sim h^4|\partial_k^5M|/480` meets the rounding error
    :math:`\sim 3\varepsilon|M|/h`.  It does not grow with :math:`|q_k|`: a joint
    angle or position varies the metric on the scale of its unit (rad, m) wherever it
    is.  The differences divide by the steps actually taken after rounding
    :math:`q \pm h`, and the step (default or given) is raised to 1000 units in the
    last place of :math:`q_k` should that be larger (:math:`|q_k| \ge 2^{34} \approx 1.7\cdot10^{10}`), so that
    :math:`q \pm h` stay distinct.

    For a smooth metric whose entries vary on the scale of one unit of ``q``, the
    absolute error is below :math:`10^{-10}\max|M|`.  Largest errors measured:
    :math:`1.1\cdot10^{-13}` for :func:`geomotion.models.two_coordinate_metric`
    (default parameters, :math:`\max|M| = 2`, :math:`q \in [-\pi, \pi]^2`);
    :math:`6\cdot10^{-12}\max|M|` for 400 random metrics
    :math:`A(q)^TA(q) + 0.1I` with :math:`A` trigonometric in :math:`q \in [-10, 10]^n`,
    :math:`n \le 5`; :math:`6\cdot10^{-12}\max|M|` for random seven-body trees through
    :func:`geomotion.tree.crba` at :math:`q \in [-\pi, \pi]^7`.  A metric varying on a
    shorter scale :math:`s` gains truncation error as :math:`s^{-5}`: pass a smaller
    ``step``, about :math:`2\cdot10^{-3}s`.

    ``mass_matrix`` may broadcast over leading axes of its argument (like
    :func:`geomotion.tree.crba`) or accept only a single configuration of shape
    ``(n,)``, as every function passed to ``geomotion`` (see the API convention
    page): it is called at one configuration first, whose result must
    be an ``(n, n)`` matrix; then once on the stack of all ``4n`` perturbed
    configurations (shape ``(4, n, ..., n)``), whose result is used when it has the
    shape ``(4, n, ..., n, n)`` and agrees with the single call; otherwise it is called
    once per configuration.  An exception raised by ``mass_matrix`` at one
    configuration reaches the caller unchanged.  The differences are
    ``geomotion._numerics.jacobian``'s, the package's one Richardson stencil.

    Parameters
    ----------
    mass_matrix : callable
        ``M(q) -> (..., n, n)``, symmetric, in kg m^2 (kg m, kg for prismatic
        coordinates).  Only evaluated when ``dM`` is None.
    q : (..., n) array_like
        Configuration(s) at which to differentiate (rad or m).
    step : float or (..., n) array_like, optional
        Finite-difference step(s) :math:`h` in the units of ``q``, > 0, broadcast
        against ``q``; default as above.  Not allowed together with ``dM``.
    dM : callable, optional
        Analytic derivative ``dM(q) -> (..., n, n, n)`` with ``dM[..., i, j, k]`` =
        :math:`\partial_kM_{ij}`; used instead of differences (same broadcasting
        fallback as ``mass_matrix``).

    Returns
    -------
    (..., n, n, n) ndarray
        ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`, exactly symmetric
        in ``i, j`` (units of :math:`M` per unit of :math:`q_k`).

    Raises
    ------
    TypeError
        If ``mass_matrix`` (or ``dM``, when given) is not callable.
    ValueError
        If ``mass_matrix`` (or ``dM``) returns non-finite values, a wrong shape, or a
        matrix not symmetric in ``i, j`` (asymmetry above 1e-10 times its largest
        entry); if ``q`` is not a finite (..., n) array with n >= 1; if ``step`` is not
        positive or does not broadcast against ``q``, or is given together with ``dM``.
    """
    _numerics.callable_argument(mass_matrix, "mass_matrix", "M(q)")
    q = _configuration(q)
    n = q.shape[-1]
    if dM is not None:
        _numerics.callable_argument(dM, "dM", "dM(q) or None")
        if step is not None:
            raise ValueError("step: expected None with an analytic dM (no finite differences)")
        return _metric_derivatives(_numerics.evaluate(dM, (q,), (n, n, n), "dM"), "dM")
    return _richardson_derivatives(mass_matrix, q, step)


def _richardson_derivatives(mass_matrix, q, step):
    """Richardson-extrapolated central differences of ``mass_matrix`` at q (``_numerics.jacobian``)."""
    n = q.shape[-1]

    def flat(x):
        # M(x) as n*n entries, checked symmetric; at one point a wrong shape is reported
        # as the (n, n) matrix expected, and on a stack it makes evaluate call per point.
        value = np.asarray(mass_matrix(x))
        if value.shape != x.shape[:-1] + (n, n):
            if x.ndim == 1:
                raise ValueError(
                    f"mass_matrix: expected a result of shape {(n, n)} for q of shape "
                    f"{x.shape}, got shape {value.shape}"
                )
            return value
        value = _symmetric_part(
            _validate.real_array(value, "mass_matrix"),
            "mass_matrix",
            (-1, -2),
            "a symmetric matrix M(q)",
        )
        return value.reshape(value.shape[:-2] + (n * n,))

    D = _numerics.jacobian(flat, q, n * n, "mass_matrix", step=step)  # (..., n*n, n)
    return D.reshape(D.shape[:-2] + (n, n, n))


# ---------------------------------------------------------------------------
# Christoffel symbols
# ---------------------------------------------------------------------------


def christoffel_first_kind(dM):
    r"""Christoffel symbols of the first kind of a metric, symmetric in ``j, k``.

    .. math:: \Gamma_{ijk} = \tfrac12\left(\partial_kM_{ij} + \partial_jM_{ik}
                                            - \partial_iM_{jk}\right)

    Equation :eq:`eq-ch2-christoffel`.

    Parameters
    ----------
    dM : (..., n, n, n) array_like
        ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`, as returned by
        :func:`mass_matrix_derivatives`; symmetric in ``i, j``.

    Returns
    -------
    (..., n, n, n) ndarray
        ``Gamma[..., i, j, k]`` = :math:`\Gamma_{ijk}` (units of :math:`M` per unit of
        :math:`q`), with :math:`\Gamma_{ijk} = \Gamma_{ikj}` and
        :math:`\Gamma_{ijk} + \Gamma_{jik} = \partial_kM_{ij}`.

    Raises
    ------
    ValueError
        If ``dM`` is not a finite (..., n, n, n) array symmetric in ``i, j``.
    """
    dM = _metric_derivatives(dM)
    d_j_M_ik = np.swapaxes(dM, -1, -2)  # [..., i, j, k] -> dM[..., i, k, j]
    d_i_M_jk = np.moveaxis(dM, -1, -3)  # [..., i, j, k] -> dM[..., j, k, i]
    return 0.5 * (dM + d_j_M_ik - d_i_M_jk)


def christoffel_second_kind(M, dM, *, rtol=_SINGULARITY_RTOL):
    r"""Christoffel symbols of the second kind, the first kind's raised by the inverse metric.

    .. math:: \Gamma^i_{jk} = \sum_l (M^{-1})_{il}\,\Gamma_{ljk}

    Computed by solving :math:`M\,\Gamma^{\cdot}_{jk} = \Gamma_{\cdot jk}` with the
    Cholesky factor :math:`M = LL^T` (no inverse is formed).  With them the
    force-free motion reads :math:`\ddot q^i = -\sum_{j,k}\Gamma^i_{jk}\dot q^j\dot q^k`,
    since :math:`(M^{-1}c)_i = \sum_{j,k}\Gamma^i_{jk}v_jv_k` (:math:`c` of
    :eq:`eq-ch2-christoffel`).

    Parameters
    ----------
    M : (..., n, n) array_like
        Symmetric positive definite mass matrix at the configuration(s) of ``dM``.
    dM : (..., n, n, n) array_like
        Its derivatives ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`.
        Leading axes broadcast against those of ``M``.
    rtol : float, optional, keyword only
        Relative tolerance, default ``1000 * eps`` (about 2.2e-13): ``M`` counts as
        numerically singular when the ratio of its smallest to its largest squared
        Cholesky pivot is below ``rtol`` (a solve would then keep fewer than about three
        correct digits).

    Returns
    -------
    (..., n, n, n) ndarray
        ``Gamma2[..., i, j, k]`` = :math:`\Gamma^i_{jk}`, symmetric in ``j, k``
        (units of :math:`q_i` per unit of :math:`q_j q_k`: rad^-1 for angles).

    Raises
    ------
    ValueError
        If ``M`` is not symmetric positive definite or numerically singular (squared
        Cholesky pivots spanning more than ``1 / rtol``), ``dM`` is
        malformed, their sizes ``n`` differ or their leading shapes do not broadcast.
    """
    M, L = _validate.positive_definite_factor(M, "M")
    gamma = christoffel_first_kind(dM)
    n = M.shape[-1]
    if gamma.shape[-1] != n:
        raise ValueError(
            f"dM: expected shape (..., {n}, {n}, {n}) to match M of shape {M.shape}, "
            f"got shape {gamma.shape}"
        )
    batch = _batch_shape(("M", M.shape[:-2]), ("dM", gamma.shape[:-3]))
    L = _well_conditioned(np.broadcast_to(L, batch + (n, n)), rtol)
    rhs = np.broadcast_to(gamma, batch + (n, n, n)).reshape(batch + (n, n * n))
    forward = np.linalg.solve(L, rhs)
    return np.linalg.solve(np.swapaxes(L, -1, -2), forward).reshape(batch + (n, n, n))


# ---------------------------------------------------------------------------
# Coriolis matrix, velocity load, metric rate
# ---------------------------------------------------------------------------


def _contract_last(array, v, name_of_array):
    """``sum_k array[..., k] v[..., k]`` with validated, broadcast batch axes."""
    v = _rates(v, array.shape[-1])
    _batch_shape((name_of_array, array.shape[:-3]), ("v", v.shape[:-1]))
    return np.einsum("...ijk,...k->...ij", array, v)


def coriolis_matrix(dM, v):
    r"""Coriolis matrix of the Christoffel symbols, :math:`C_{ij} = \sum_k\Gamma_{ijk}v_k`.

    It represents the velocity load, :math:`Cv = c` (equation :eq:`eq-ch2-christoffel`),
    and makes :math:`\dot M - 2C` skew-symmetric.

    Parameters
    ----------
    dM : (..., n, n, n) array_like
        ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`.
    v : (..., n) array_like
        Generalized velocities (rad/s or m/s); leading axes broadcast against ``dM``'s.

    Returns
    -------
    (..., n, n) ndarray
        :math:`C` (units of :math:`M` per second, e.g. kg m^2/s).

    Raises
    ------
    ValueError
        If ``dM`` is malformed, ``v`` is not a finite (..., n) array, or their leading
        shapes do not broadcast.
    """
    return _contract_last(christoffel_first_kind(dM), v, "dM")


def coriolis_forces(dM, v):
    r"""Velocity load of the equations of motion, :math:`c_i = \sum_{j,k}\Gamma_{ijk}v_jv_k`.

    The centrifugal and Coriolis part of the generalized force, :math:`c = Cv`; it is
    independent of the matrix chosen to represent it.  For a tree it equals
    ``geomotion.tree.bias_forces(model, q, v, gravity=(0, 0, 0))``.  Equation
    :eq:`eq-ch2-christoffel`.

    Parameters
    ----------
    dM : (..., n, n, n) array_like
        ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`.
    v : (..., n) array_like
        Generalized velocities (rad/s or m/s).

    Returns
    -------
    (..., n) ndarray
        :math:`c` (N m for angular, N for linear coordinates).

    Raises
    ------
    ValueError
        As :func:`coriolis_matrix`.
    """
    C = coriolis_matrix(dM, v)
    return np.einsum("...ij,...j->...i", C, _rates(v, C.shape[-1]))


def mass_matrix_rate(dM, v):
    r"""Rate of the mass matrix along a motion, :math:`\dot M_{ij} = \sum_k\partial_kM_{ij}v_k`.

    Parameters
    ----------
    dM : (..., n, n, n) array_like
        ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`.
    v : (..., n) array_like
        Generalized velocities (rad/s or m/s).

    Returns
    -------
    (..., n, n) ndarray
        :math:`\dot M`, symmetric (units of :math:`M` per second).

    Raises
    ------
    ValueError
        As :func:`coriolis_matrix`.
    """
    return _contract_last(_metric_derivatives(dM), v, "dM")


# ---------------------------------------------------------------------------
# Checks of the two identities
# ---------------------------------------------------------------------------


def energy_identity_residual(dM, v, *, c=None):
    r"""Residual of the energy identity, :math:`v^Tc - \tfrac12v^T\dot Mv` (zero exactly).

    The power of the velocity load is half the rate of the metric along the motion,
    contracted twice with the rates:

    .. math:: v^Tc = \sum_{i,j,k}\Gamma_{ijk}v_iv_jv_k = \tfrac12v^T\dot Mv .

    Equation :eq:`eq-ch2-energy-identity`.  With ``c`` given, checks that load (e.g. a
    tree's bias forces at zero gravity) against the metric derivatives instead of this
    module's own :func:`coriolis_forces`.

    Parameters
    ----------
    dM : (..., n, n, n) array_like
        ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`.
    v : (..., n) array_like
        Generalized velocities (rad/s or m/s).
    c : (..., n) array_like, optional, keyword only
        Velocity load to check (N m or N); default :func:`coriolis_forces` ``(dM, v)``.

    Returns
    -------
    (...) ndarray
        The residual in W (power; units of :math:`M` times velocity^3 in general).
        Compare it with the size of :math:`\tfrac12v^T\dot Mv`.

    Raises
    ------
    ValueError
        As :func:`coriolis_matrix`; or if ``c`` is not a finite (..., n) array.
    """
    M_rate = mass_matrix_rate(dM, v)
    n = M_rate.shape[-1]
    v = _rates(v, n)
    c = coriolis_forces(dM, v) if c is None else _validate.trailing_shape(c, "c", (n,))
    _batch_shape(("dM and v", M_rate.shape[:-2]), ("c", c.shape[:-1]))
    return np.einsum("...i,...i->...", v, c) - 0.5 * np.einsum("...i,...ij,...j->...", v, M_rate, v)


def skew_residual(dM, v, *, C=None):
    r"""Largest entry of the symmetric part of :math:`\dot M - 2C` (zero if it is skew).

    .. math:: r = \max_{ij}\left|S_{ij}\right|,\qquad S = (\dot M - 2C) + (\dot M - 2C)^T

    For the Christoffel :math:`C` of :func:`coriolis_matrix` (the default) :math:`r` is
    zero up to rounding; pass another representation ``C`` (e.g. from an analytic tree
    algorithm) to check it.  Not every ``C`` with :math:`Cv = c` passes.  The
    skew-symmetry is the matrix form of the energy identity :eq:`eq-ch2-energy-identity`.

    Parameters
    ----------
    dM : (..., n, n, n) array_like
        ``dM[..., i, j, k]`` = :math:`\partial M_{ij}/\partial q_k`.
    v : (..., n) array_like
        Generalized velocities (rad/s or m/s).
    C : (..., n, n) array_like, optional, keyword only
        Coriolis matrix to check; default :func:`coriolis_matrix` ``(dM, v)``.

    Returns
    -------
    (...) ndarray
        :math:`r` per configuration, in the units of :math:`\dot M` (compare it with
        :math:`\max|\dot M|`).

    Raises
    ------
    ValueError
        As :func:`coriolis_matrix`; or if ``C`` is not a finite (..., n, n) array.
    """
    M_rate = mass_matrix_rate(dM, v)
    n = M_rate.shape[-1]
    C = coriolis_matrix(dM, v) if C is None else _validate.trailing_shape(C, "C", (n, n))
    _batch_shape(("dM and v", M_rate.shape[:-2]), ("C", C.shape[:-2]))
    D = M_rate - 2.0 * C
    return np.abs(D + np.swapaxes(D, -1, -2)).max(axis=(-1, -2))
