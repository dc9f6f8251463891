"""Dynamic and geometric phase of sampled shape paths (equation :eq:`eq-ch2-berry-phase-formula`).

See :mod:`geomotion.symmetry` for the model, the quadrature and its accuracy.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from ._common import (
    _W,
    _XI,
    _batch_shape,
    _field,
    _locked_inertia_at,
    _path_samples,
    _sample_times,
    _scalar_or_array,
    _segment_nodes,
    _time_nodes,
)
from .connection import mechanical_connection


@dataclass(frozen=True)
class LoopPhase:
    r"""Net rotation over a shape loop, split as in :eq:`eq-ch2-berry-phase-formula` (:func:`loop_phase`).

    Read by name (``phase.dynamic``, ``phase.geometric``, ``phase.total``); it does not
    unpack like a tuple.

    Attributes
    ----------
    dynamic : numpy.float64 or (...) ndarray
        :math:`\int_0^T I(s(t))^{-1}p_\theta(t)\,dt` (rad); zero at zero momentum and no
        torque.  One value per loop of the batch (a NumPy scalar for one loop).
    geometric : numpy.float64 or (...) ndarray
        :math:`-\oint A(s)\,ds` (rad), with the sign it has in :math:`\Delta\theta`.
    """

    dynamic: np.float64 | np.ndarray
    geometric: np.float64 | np.ndarray

    @property
    def total(self):
        r""":math:`\Delta\theta` = dynamic + geometric (rad)."""
        return self.dynamic + self.geometric


def _torque_impulses(tau, t, h):
    r"""Impulse :math:`\int_{t_0}^{t}\tau` at the Gauss time nodes of every segment (..., K-1, n).

    Inside segment i the impulse from its start to node j is
    :math:`\xi_jh_i\sum_m w_m\tau(t_i + \xi_j\xi_mh_i)`; earlier segments add their whole
    impulses :math:`h_i\sum_m w_m\tau(t_i + \xi_mh_i)`.
    """
    start = t[..., :-1]
    inner_times = start[..., None, None] + (_XI[:, None] * _XI) * h[..., None, None]
    tau_inner = _field(tau, inner_times, 0, (), "tau")
    tau_nodes = _field(tau, _time_nodes(start, h), 0, (), "tau")
    within = _XI * h[..., None] * (tau_inner @ _W)
    whole = h * (tau_nodes @ _W)
    before = np.cumsum(whole, axis=-1) - whole
    return before[..., None] + within


def dynamic_phase(locked_inertia, shape, times, *, momentum=0.0, tau=None):
    r"""Dynamic phase :math:`\int_{t_0}^{t_K} I(s(t))^{-1}p_\theta(t)\,dt` along a sampled path.

    The first term of equation :eq:`eq-ch2-berry-phase-formula`.  The momentum starts at
    ``momentum`` and changes only by the impulse of a known external torque ``tau`` about
    :math:`\theta`, :math:`p_\theta(t) = p_\theta(t_0) + \int_{t_0}^t\tau\,dt'`.  The phase
    is linear in :math:`(p_\theta(t_0), \tau)`: the part owed to the torque is this function
    with ``momentum=0`` (the second term of exercise :eq:`eq-ex2-phase-torque`).  The path
    need not be closed.

    Parameters
    ----------
    locked_inertia : callable or float
        :math:`I(s) > 0` (kg m^2): a function of one shape sample (k,), or a constant.
    shape : (..., K, k) array_like
        Shape samples, read as piecewise linear between the sample times.
    times : (..., K) array_like
        Strictly increasing sample times (s).
    momentum : float or (...) array_like, optional
        :math:`p_\theta` at ``times[..., 0]`` (N m s); default 0.
    tau : callable or float, optional
        Known external torque :math:`\tau` about :math:`\theta` (N m): a function of one
        time (s), or a constant.  None (default) conserves the momentum.

    Returns
    -------
    numpy.float64 or (...) ndarray
        The dynamic phase (rad), one per path of the batch.  Gauss--Legendre on each segment (see the module notes).

    Raises
    ------
    ValueError
        For malformed or non-finite arguments, times that do not increase strictly, a
        non-positive locked inertia, or batch axes that do not broadcast.
    """
    s = _path_samples(shape, closed=False)
    t = _sample_times(times, s)
    p0 = _validate.real_array(momentum, "momentum")
    _batch_shape(shape=s.shape[:-2], times=t.shape[:-1], momentum=p0.shape)
    h = np.diff(t, axis=-1)
    I = _locked_inertia_at(locked_inertia, _segment_nodes(s[..., :-1, :], np.diff(s, axis=-2)))
    p = p0[..., None, None]
    if tau is not None:
        p = p + _torque_impulses(tau, t, h)
    return _scalar_or_array(np.sum(h * ((p / I) @ _W), axis=-1))


def geometric_phase(locked_inertia, coupling, shape):
    r"""Geometric phase :math:`-\oint A(s)\,ds` of a closed shape loop.

    The second term of equation :eq:`eq-ch2-berry-phase-formula`.

    The net rotation the loop produces at zero momentum, whatever its timing; the sign
    is that of the reconstruction :math:`\dot\theta = I^{-1}p_\theta - A\dot s`, so a
    reversed loop gives the opposite phase.  With two shape coordinates it equals minus
    the integral of the curvature :math:`\partial_1A_2 - \partial_2A_1` over the
    enclosed region (counterclockwise loop); not for non-commuting rotations (see the
    module notes).

    Parameters
    ----------
    locked_inertia : callable or float
        :math:`I(s) > 0` (kg m^2): a function of one shape sample (k,), or a constant.
    coupling : callable or (k,) array_like
        :math:`a(s)`: a function of one shape sample returning (k,), or a constant.
    shape : (..., K, k) array_like
        Closed loop of shape samples (the last equals the first), read as a polygon.

    Returns
    -------
    numpy.float64 or (...) ndarray
        The geometric phase (rad), one per loop of the batch.  Exact for polygons and
        polynomial :math:`A` of degree up to 9 (five Gauss nodes per segment); second order in the sample spacing on
        smooth curves (see the module notes).

    Raises
    ------
    ValueError
        If the path is not closed, the arguments are malformed or non-finite, or the
        locked inertia is not positive somewhere on the loop.
    """
    s = _path_samples(shape, closed=True)
    ds = np.diff(s, axis=-2)
    points = _segment_nodes(s[..., :-1, :], ds)
    I = _locked_inertia_at(locked_inertia, points)
    a = _field(coupling, points, 1, s.shape[-1:], "coupling")
    A = mechanical_connection(I, a)
    return _scalar_or_array(-np.einsum("...ink,...ik,n->...", A, ds, _W))


def loop_phase(locked_inertia, coupling, shape, *, momentum=0.0, times=None, tau=None):
    r"""Dynamic and geometric phase of a closed shape loop.

    .. math:: \Delta\theta = \int_0^T I(s(t))^{-1}p_\theta\,dt - \oint A(s)\,ds

    Equation :eq:`eq-ch2-berry-phase-formula` (with a ``torque``, exercise
    :eq:`eq-ex2-phase-torque`).
    See :func:`dynamic_phase` and :func:`geometric_phase`.  At zero momentum and without
    torque the dynamic part is zero and ``times`` may be omitted.

    Parameters
    ----------
    locked_inertia : callable or float
        :math:`I(s) > 0` (kg m^2).
    coupling : callable or (k,) array_like
        :math:`a(s)`.
    shape : (..., K, k) array_like
        Closed loop of shape samples (the last equals the first).
    momentum : float or (...) array_like, optional
        :math:`p_\theta` at the first sample (N m s); default 0.
    times : (..., K) array_like, optional
        Strictly increasing sample times (s); required unless the momentum is zero and
        there is no torque.
    tau : callable or float, optional
        Known external torque :math:`\tau` about :math:`\theta` (N m), see
        :func:`dynamic_phase`; default None (no torque).

    Returns
    -------
    LoopPhase
        ``dynamic`` and ``geometric``, and their sum ``total`` (rad), read by name.

    Raises
    ------
    ValueError
        As :func:`dynamic_phase` and :func:`geometric_phase`, and if ``times`` is missing
        where the dynamic phase needs it.
    """
    geometric = geometric_phase(locked_inertia, coupling, shape)
    p0 = _validate.real_array(momentum, "momentum")
    if times is None:
        if tau is not None or np.any(p0 != 0):
            raise ValueError(
                "times: expected the sample times (s) of the loop, required for the dynamic "
                "phase at nonzero momentum or torque, got None"
            )
        batch = _batch_shape(shape=np.shape(geometric), momentum=p0.shape)
        dynamic = _scalar_or_array(np.zeros(batch))
    else:
        dynamic = dynamic_phase(locked_inertia, shape, times, momentum=p0, tau=tau)
    return LoopPhase(dynamic=dynamic, geometric=geometric)
