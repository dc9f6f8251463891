"""Validation, quadrature nodes and evaluation of constants or callables, shared by the
files of :mod:`geomotion.symmetry`."""

import numpy as np

from .. import _numerics, _validate

# Gauss--Legendre nodes per path segment: exact for polynomial integrands of degree up
# to 9 along a segment.
_GAUSS_NODES = 5

# Largest gap between the last and the first sample of a loop, relative to the largest
# shape coordinate on the loop, for the loop to count as closed.
_CLOSURE_RTOL = 1e-9

_legendre_x, _legendre_w = np.polynomial.legendre.leggauss(_GAUSS_NODES)
#: Gauss--Legendre nodes and weights mapped to [0, 1] (the weights sum to one).
_XI = 0.5 * (_legendre_x + 1.0)
_W = 0.5 * _legendre_w


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _batch_shape(**named_shapes):
    """Broadcast leading (batch) shapes; a ValueError names the arguments if they clash."""
    return _validate.batch_shape(named_shapes)


def _positive_locked_inertia(I, name="locked_inertia", points=None):
    """Refuse a zero, negative (or non-finite) locked inertia; name where it happened."""
    I = _validate.real_array(I, name)
    if np.all(I > 0):
        return I
    worst = np.unravel_index(np.argmin(I), I.shape)
    where = (
        f" at s = {points[worst]}"
        if points is not None
        else (f" at index {tuple(int(i) for i in worst)}" if I.ndim else "")
    )
    raise ValueError(
        f"{name}: expected a positive locked inertia (kg m^2; zero is singular), got "
        f"{I[worst]:.6g}{where}"
    )


def _coupling(coupling, k=None):
    """Validate a (..., k) coupling, k >= 1 (and equal to ``k`` when given)."""
    a = _validate.real_array(coupling, "coupling")
    if a.ndim == 0 or a.shape[-1] == 0 or (k is not None and a.shape[-1] != k):
        expected = f"(..., {k})" if k is not None else "(..., k) with k >= 1"
        raise ValueError(f"coupling: expected shape {expected}, got shape {a.shape}")
    return a


def _path_samples(shape, closed):
    """Validate sampled shape paths (..., K, k), K >= 2; a loop must end where it starts."""
    s = _validate.real_array(shape, "shape")
    if s.ndim < 2 or s.shape[-2] < 2 or s.shape[-1] < 1:
        raise ValueError(
            "shape: expected samples of shape (..., K, k) with K >= 2 samples of k >= 1 "
            f"coordinates, got shape {s.shape}"
        )
    if closed:
        gap = np.abs(s[..., -1, :] - s[..., 0, :]).max(initial=0.0)
        if gap > _CLOSURE_RTOL * np.abs(s).max(initial=0.0):
            raise ValueError(
                f"shape: expected a closed loop (last sample equal to the first within "
                f"{_CLOSURE_RTOL:g} of the largest |s|), got a gap of {gap:.3g}; repeat the "
                "first sample at the end to close it"
            )
    return s


def _sample_times(times, s):
    """Validate strictly increasing sample times (..., K) matching the path samples."""
    t = _validate.real_array(times, "times")
    K = s.shape[-2]
    if t.ndim == 0 or t.shape[-1] != K:
        raise ValueError(
            f"times: expected shape (..., {K}), one time per shape sample, got shape {t.shape}"
        )
    _batch_shape(shape=s.shape[:-2], times=t.shape[:-1])
    steps = np.diff(t, axis=-1)
    if np.any(steps <= 0):
        worst = np.unravel_index(np.argmin(steps), steps.shape)
        raise ValueError(
            f"times: expected strictly increasing sample times, got a step of "
            f"{steps[worst]:.3g} s after sample {int(worst[-1])}"
        )
    return t


# ---------------------------------------------------------------------------
# Evaluating constants or callables at quadrature nodes
# ---------------------------------------------------------------------------


def _evaluate_each(function, points, point_ndim, core, name):
    """``function(point)`` for every point of a stack, result ``batch + core``, through the
    package's one callable contract (``geomotion._numerics.evaluate``): one call on the
    whole stack when the function broadcasts, else one call per point; a point is a
    shape sample (``point_ndim`` 1) or a time (``point_ndim`` 0, passed as a scalar)."""
    if point_ndim == 0:
        return _numerics.evaluate(lambda t: function(t[..., 0]), (points[..., None],), core, name)
    return _numerics.evaluate(function, (points,), core, name)


def _field(value, points, point_ndim, core, name):
    """A constant of shape ``core``, or a callable evaluated at every point."""
    if callable(value):
        return _evaluate_each(value, points, point_ndim, core, name)
    constant = _validate.real_array(value, name)
    if constant.shape != core:
        raise ValueError(
            f"{name}: expected a callable or a constant of shape {core}, got shape {constant.shape}"
        )
    return np.broadcast_to(constant, points.shape[: points.ndim - point_ndim] + core)


def _locked_inertia_at(locked_inertia, points):
    """The locked inertia at shape points (..., k), checked positive."""
    I = _field(locked_inertia, points, 1, (), "locked_inertia")
    return _positive_locked_inertia(I, points=points)


def _segment_nodes(start, step):
    """``start + xi * step`` at each segment's Gauss nodes: (..., K-1, d) -> (..., K-1, n, d)."""
    return start[..., None, :] + _XI[:, None] * step[..., None, :]


def _time_nodes(start, h):
    """Times ``start + xi * h`` at the Gauss nodes of each segment: (..., K-1) -> (..., K-1, n)."""
    return _segment_nodes(start[..., None], h[..., None])[..., 0]


def _scalar_or_array(x):
    """A ``numpy.float64`` for a 0-d result (one path), the array otherwise."""
    return np.float64(x) if np.ndim(x) == 0 else x
