"""The kinetic metric's blocks, the mechanical connection and reconstruction.

The metric is that of equation :eq:`eq-ch2-symmetry-kinetic-energy`, the connection and
the reconstruction are :eq:`eq-ch2-mechanical-connection`.

See :mod:`geomotion.symmetry` for the model and the units.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from ._common import _batch_shape, _coupling, _positive_locked_inertia, _scalar_or_array

# Largest accepted asymmetry of a kinetic metric, relative to its largest entry (as
# ``geomotion._validate.positive_definite``).
_SYMMETRY_RTOL = 1e-12


@dataclass(frozen=True)
class KineticBlocks:
    r"""The blocks of a kinetic metric in :math:`(\theta, s)` coordinates (:func:`kinetic_blocks`).

    The blocks of equation :eq:`eq-ch2-symmetry-kinetic-energy`.

    Attributes
    ----------
    locked_inertia : numpy.float64 or (...) ndarray
        :math:`I = \partial^2T/\partial\dot\theta^2 > 0` (kg m^2): the inertia about the
        symmetry axis with the shape held fixed, one per metric of the batch.
    coupling : (..., k) ndarray
        :math:`a`, the group--shape cross block: :math:`T \ni \dot\theta\,a^T\dot s`.
    shape_metric : (..., k, k) ndarray
        :math:`H`, the shape block.
    schur_complement : (..., k, k) ndarray
        :math:`H - aa^T/I`, positive definite.  It is the metric of the shape motion at
        zero momentum: with :math:`p_\theta = 0`, :math:`T = \tfrac12\dot s^T(H -
        aa^T/I)\dot s`.
    """

    locked_inertia: np.ndarray
    coupling: np.ndarray
    shape_metric: np.ndarray
    schur_complement: np.ndarray


def kinetic_blocks(metric):
    r"""Split a kinetic metric into locked inertia, coupling and shape blocks; check it.

    .. math:: G = \begin{bmatrix}I & a^T\\ a & H\end{bmatrix},\qquad
              G \succ 0 \iff I > 0 \text{ and } H - aa^T/I \succ 0

    The blocks of equation :eq:`eq-ch2-symmetry-kinetic-energy`.
    The first coordinate must be the symmetry coordinate :math:`\theta`.  Positive
    definiteness is checked through the Schur complement (a Cholesky factorization of
    it), which is also returned.

    Parameters
    ----------
    metric : (..., 1 + k, 1 + k) array_like
        Symmetric kinetic metric :math:`G` in :math:`(\theta, s_1, \dots, s_k)`
        coordinates, :math:`T = \tfrac12\dot x^TG\dot x` (kg m^2 for angles).

    Returns
    -------
    KineticBlocks
        The blocks :math:`I, a, H` and the Schur complement, with the batch shape of
        ``metric``.

    Raises
    ------
    ValueError
        If ``metric`` is not a finite symmetric (..., n, n) array with n >= 2, or its
        locked inertia is not positive, or its Schur complement is not positive
        definite.
    """
    G = _validate.square_matrix(metric, "metric")
    if G.shape[-1] < 2:
        raise ValueError(
            "metric: expected a (..., 1 + k, 1 + k) metric with k >= 1 shape coordinates, "
            f"got shape {G.shape}"
        )
    asymmetry = np.abs(G - np.swapaxes(G, -1, -2)).max(initial=0.0)
    if asymmetry > _SYMMETRY_RTOL * np.abs(G).max(initial=0.0):
        raise ValueError(f"metric: expected a symmetric matrix, got asymmetry {asymmetry:.3g}")
    I = _positive_locked_inertia(G[..., 0, 0], "metric[..., 0, 0] (locked inertia)")
    I, a, H = I.copy(), G[..., 1:, 0].copy(), G[..., 1:, 1:].copy()
    schur = H - a[..., :, None] * a[..., None, :] / I[..., None, None]
    _validate.positive_definite(schur, "metric (Schur complement H - a a^T / I)")
    return KineticBlocks(
        locked_inertia=_scalar_or_array(I), coupling=a, shape_metric=H, schur_complement=schur
    )


def kinetic_metric(locked_inertia, coupling, shape_metric):
    r"""Assemble :math:`G = [[I, a^T], [a, H]]` in :math:`(\theta, s)` coordinates.

    The inverse of :func:`kinetic_blocks`, without its positive-definiteness check
    (pass the result to :func:`kinetic_blocks` for that): the metric of equation
    :eq:`eq-ch2-symmetry-kinetic-energy`.

    Parameters
    ----------
    locked_inertia : (...) array_like
        :math:`I` (kg m^2).
    coupling : (..., k) array_like
        :math:`a`.
    shape_metric : (..., k, k) array_like
        :math:`H`.

    Returns
    -------
    (..., 1 + k, 1 + k) ndarray

    Raises
    ------
    ValueError
        If the arguments are not finite, their shapes disagree on k, or their batch axes
        do not broadcast.
    """
    I = _validate.real_array(locked_inertia, "locked_inertia")
    a = _coupling(coupling)
    k = a.shape[-1]
    H = _validate.trailing_shape(shape_metric, "shape_metric", (k, k))
    batch = _batch_shape(locked_inertia=I.shape, coupling=a.shape[:-1], shape_metric=H.shape[:-2])
    G = np.empty(batch + (1 + k, 1 + k))
    G[..., 0, 0] = I
    G[..., 1:, 0] = a
    G[..., 0, 1:] = a
    G[..., 1:, 1:] = H
    return G


# ---------------------------------------------------------------------------
# The mechanical connection and reconstruction (eq-ch2-mechanical-connection)
# ---------------------------------------------------------------------------


def mechanical_connection(locked_inertia, coupling):
    r"""Mechanical connection :math:`A = I^{-1}a^T`, at each shape sample.

    Equation :eq:`eq-ch2-mechanical-connection`.

    Parameters
    ----------
    locked_inertia : (...) array_like
        Locked inertia :math:`I > 0` (kg m^2).
    coupling : (..., k) array_like
        Coupling :math:`a` (the :math:`\theta`--shape block of the kinetic metric).

    Returns
    -------
    (..., k) ndarray
        :math:`A`, rad per unit of each shape coordinate: :math:`-A\dot s` is the
        rotation rate the shape motion induces at zero momentum.

    Raises
    ------
    ValueError
        If ``locked_inertia`` is zero (singular) or negative, the result overflows, or
        the inputs are non-finite or have batch axes that do not broadcast.
    """
    I = _positive_locked_inertia(locked_inertia)
    a = _coupling(coupling)
    _batch_shape(locked_inertia=I.shape, coupling=a.shape[:-1])
    with np.errstate(over="ignore"):
        A = a / I[..., None]
    if not np.all(np.isfinite(A)):
        raise ValueError(
            "locked_inertia: numerically singular, coupling / locked_inertia overflows "
            f"(smallest locked inertia {I.min():.3g} kg m^2)"
        )
    return A


def conjugate_momentum(locked_inertia, coupling, theta_rate, shape_rate):
    r"""Momentum conjugate to the symmetry coordinate, :math:`p_\theta = I\dot\theta + a^T\dot s`.

    The derivative :math:`\partial T/\partial\dot\theta` of the kinetic energy
    :eq:`eq-ch2-symmetry-kinetic-energy`.

    Parameters
    ----------
    locked_inertia : (...) array_like
        :math:`I` (kg m^2).
    coupling : (..., k) array_like
        :math:`a`.
    theta_rate : (...) array_like
        :math:`\dot\theta` (rad/s).
    shape_rate : (..., k) array_like
        :math:`\dot s`.

    Returns
    -------
    (...) ndarray
        :math:`p_\theta` (N m s).

    Raises
    ------
    ValueError
        For non-finite values, a non-positive locked inertia, shapes that disagree on k,
        or batch axes that do not broadcast.
    """
    I = _positive_locked_inertia(locked_inertia)
    a = _coupling(coupling)
    rate = _validate.real_array(theta_rate, "theta_rate")
    sdot = _validate.trailing_shape(shape_rate, "shape_rate", a.shape[-1:])
    _batch_shape(
        locked_inertia=I.shape,
        coupling=a.shape[:-1],
        theta_rate=rate.shape,
        shape_rate=sdot.shape[:-1],
    )
    return I * rate + np.sum(a * sdot, axis=-1)


def reconstruct_rate(locked_inertia, coupling, momentum, shape_rate):
    r"""Symmetry rate from momentum and shape rate: the reconstruction equation.

    .. math:: \dot\theta = I^{-1}p_\theta - A(s)\dot s,\qquad A = I^{-1}a^T

    Equation :eq:`eq-ch2-mechanical-connection`.
    The inverse of :func:`conjugate_momentum` at fixed shape and shape rate.

    Parameters
    ----------
    locked_inertia : (...) array_like
        :math:`I > 0` (kg m^2).
    coupling : (..., k) array_like
        :math:`a`.
    momentum : (...) array_like
        :math:`p_\theta` (N m s).
    shape_rate : (..., k) array_like
        :math:`\dot s`.

    Returns
    -------
    (...) ndarray
        :math:`\dot\theta` (rad/s).

    Raises
    ------
    ValueError
        As :func:`conjugate_momentum`.
    """
    A = mechanical_connection(locked_inertia, coupling)
    I = _validate.real_array(locked_inertia, "locked_inertia")
    p = _validate.real_array(momentum, "momentum")
    sdot = _validate.trailing_shape(shape_rate, "shape_rate", A.shape[-1:])
    _batch_shape(
        locked_inertia=I.shape, coupling=A.shape[:-1], momentum=p.shape, shape_rate=sdot.shape[:-1]
    )
    return p / I - np.sum(A * sdot, axis=-1)
