r"""Numerical pieces shared by the whole package: checked evaluation of user functions
(the one callable contract), Richardson central-difference Jacobians, the greedy rank
test of a list of vectors, and cost-weight validation.

User functions (vector fields, outputs, dynamics, costs) may broadcast over leading axes
(index ``x[..., i]``), and are then called once on a whole stack of points, e.g. the
perturbed points of a Jacobian; or they may be written for one point (``x[i]``, as a
reader writes ``lambda x: np.array([x[1], -x[0]])``), and are then called once per
point.  :func:`evaluate` is the one place that decides which, for every function of
the package that calls user code.
"""

import math

import numpy as np

from . import _validate

#: Default central-difference step, in the units of each coordinate (m, rad, N m...).
#: The Richardson-extrapolated difference has truncation error :math:`h^4|f^{(5)}|/480`
#: and rounding error about :math:`3\varepsilon|f|/h`; they balance near
#: :math:`\varepsilon^{1/5} \approx 10^{-3}` for fields that vary on the scale of one
#: coordinate unit (also the default step of :func:`geomotion.lagrange.mass_matrix_derivatives`).
FD_STEP = 2e-3

#: Growth of the step per nested level of differences (brackets of brackets, Lie
#: derivatives of Lie derivatives).  Differencing a result that already carries rounding
#: noise :math:`\delta` adds :math:`3\delta/h`, so :math:`L` nested levels with one
#: step :math:`h` reach :math:`\varepsilon(3/h)^L`: about 1e-3 for :math:`L = 4` at
#: ``FD_STEP`` (measured 4e-3 on random linear systems).  Every one of :math:`L` nested
#: levels therefore uses ``FD_STEP * NESTING_FACTOR**(L - 1)``, trading rounding for
#: truncation error: measured 6e-9 (linear systems) to 3e-7 (a pendulum) at :math:`L = 4`.
NESTING_FACTOR = 3.0

#: Stencil of :func:`jacobian`: +h, -h, +h/2, -h/2 along one coordinate.
_STENCIL = np.array([1.0, -1.0, 0.5, -0.5])

#: Relative tolerance of the single-point check in :func:`evaluate`.
_BROADCAST_RTOL = 1e-10


def callable_argument(function, name, signature):
    """Return ``function`` after checking that it is callable; TypeError naming ``name``."""
    if not callable(function):
        raise TypeError(f"{name}: expected a callable {signature}, got {type(function).__name__}")
    return function


def state(x, name="x"):
    """Validate a finite (..., n) state with n >= 1."""
    x = _validate.real_array(x, name)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"{name}: expected shape (..., n) with n >= 1, got shape {x.shape}")
    return x


def single_state(x, name="x"):
    """Validate one finite state of shape (n,), n >= 1."""
    x = state(x, name)
    if x.ndim != 1:
        raise ValueError(f"{name}: expected one state of shape (n,), got shape {x.shape}")
    return x


class Trusted:
    """Marks a function built by this package (it broadcasts by construction): no spot check."""

    def __init__(self, function):
        self._function = function

    def __call__(self, *args):
        return self._function(*args)


def evaluate(function, args, core, name):
    r"""``function(*args)`` as a finite float array of shape ``batch + core``.

    ``args`` are arrays of shape ``(..., k_i)`` whose leading axes broadcast to ``batch``.
    The contract for user functions:

    1. Unless ``function`` is :class:`Trusted` or ``batch`` is ``()`` or empty, it is first
       called at single points (the first and the last of the stack); whatever it raises
       there propagates unchanged, and its results must have shape ``core``.
    2. It is then called once on the whole stack.  The result is accepted when it has
       shape ``batch + core`` (or ``core`` alone: a constant, broadcast) and its first and
       last entries agree with the single-point calls (relative ``_BROADCAST_RTOL``).
    3. Otherwise the function does not broadcast -- its stacked result has another shape,
       disagrees with the single-point call, or the stacked call raised although the
       single-point call did not -- and it is called once per point, every result
       checked to have shape ``core``; an exception at any point propagates unchanged.

    Raises
    ------
    ValueError
        Naming ``name``: a result of the wrong shape (with the shape and the point), or
        non-finite values.
    """
    batch = np.broadcast_shapes(*(a.shape[:-1] for a in args))
    if isinstance(function, Trusted) or batch == () or math.prod(batch) == 0:
        return checked_result(function(*args), batch + core, name, core)
    points = _points(args, batch)
    probes = sorted({0, len(points) - 1})  # the first and the last point of the stack
    singles = [_point_result(function, points[i], core, name) for i in probes]
    try:
        stacked = np.asarray(function(*args))
    except Exception:  # it accepted one point but not the stack: it does not broadcast
        stacked = None
    if stacked is not None and stacked.shape in (batch + core, core):
        value = checked_result(stacked, batch + core, name, core)
        flat = value.reshape((-1,) + core)
        if all(_agrees(flat[i], single) for i, single in zip(probes, singles)):
            return value
    return _pointwise(function, points, batch, core, name)


def _agrees(stacked, single):
    """The stacked call's entry equals the single-point call's, to ``_BROADCAST_RTOL``."""
    scale = _BROADCAST_RTOL * (1.0 + np.abs(single).max(initial=0.0))
    return np.allclose(stacked, single, rtol=_BROADCAST_RTOL, atol=scale)


def _points(args, batch):
    """The points of the stack: one tuple of (k_i,) arguments per batch entry, in C order."""
    flat = [np.broadcast_to(a, batch + a.shape[-1:]).reshape(-1, a.shape[-1]) for a in args]
    return list(zip(*flat))


def _point_result(function, point, core, name):
    """``function`` at one point; its result must be finite with shape ``core``."""
    array = _validate.real_array(function(*point), name)
    if array.shape != tuple(core):
        where = ", ".join(np.array2string(p, precision=6) for p in point)
        raise ValueError(
            f"{name}: expected a result of shape {core} at one point, got shape "
            f"{array.shape} at the point {where}"
        )
    return array


def _pointwise(function, points, batch, core, name):
    """``function`` called once per point (it does not broadcast), shape ``batch + core``."""
    values = [_point_result(function, point, core, name) for point in points]
    return np.array(values).reshape(batch + core)


def checked_result(value, shape, name, core=None):
    """``value`` as a finite array of ``shape``; a constant of shape ``core`` is broadcast."""
    array = _validate.real_array(value, name)
    if array.shape == tuple(shape) or (core is not None and array.shape == tuple(core)):
        return np.broadcast_to(array, shape)
    raise ValueError(f"{name}: expected a result of shape {shape}, got shape {array.shape}")


def steps(step, x):
    """Finite-difference steps (..., n): ``step`` (default ``FD_STEP``) broadcast to ``x``,
    raised to 1000 units in the last place of ``x`` where that is larger (so x +- h differ)."""
    h = FD_STEP if step is None else _validate.positive(step, "step")
    try:
        h = np.broadcast_to(h, x.shape)
    except ValueError as error:
        raise ValueError(
            f"step: expected a scalar or an array broadcastable to shape {x.shape}, "
            f"got shape {np.shape(h)}"
        ) from error
    return np.maximum(h, 1e3 * np.spacing(np.abs(x)))


def nested_step(step, levels):
    """Step for ``levels`` nested differentiations: ``step`` (default ``FD_STEP``) times
    ``NESTING_FACTOR ** (levels - 1)``."""
    base = FD_STEP if step is None else _validate.positive(step, "step")
    return base * NESTING_FACTOR ** (levels - 1)


def jacobian(function, x, rows, name, step=None):
    r"""Jacobian ``D[..., i, k]`` = :math:`\partial f_i/\partial x_k` of (..., n) -> (..., rows).

    Central differences with one Richardson extrapolation,
    :math:`(4D(h/2) - D(h))/3 = f' - h^4f^{(5)}/480 + O(h^6)`, dividing by the steps
    actually taken after rounding :math:`x \pm h`; ``function`` is called once on the
    stack of all :math:`4n` perturbed points, shape ``(4, n, ..., n)``.
    """
    n = x.shape[-1]
    ones = (1,) * (x.ndim - 1)
    unit = np.eye(n).reshape((n,) + ones + (n,))
    h = np.moveaxis(steps(step, x), -1, 0)[..., None]  # (n, ..., 1)
    stencil = x + _STENCIL.reshape((4, 1) + ones + (1,)) * h * unit  # (4, n, ..., n)
    taken = np.sum((stencil - x) * unit, axis=-1)[..., None]  # (4, n, ..., 1)
    values = evaluate(function, (stencil,), (rows,), name)  # (4, n, ..., rows)
    wide = (values[0] - values[1]) / (taken[0] - taken[1])
    narrow = (values[2] - values[3]) / (taken[2] - taken[3])
    return np.moveaxis((4.0 * narrow - wide) / 3.0, 0, -1)


def independent_vectors(vectors, rtol, scale):
    r"""Greedy selection of the vectors that each add a new direction, in the given order.

    A vector counts as zero when its norm is at most ``rtol * scale``.  The others are
    normalized (so the units of different vectors do not matter), and one is kept when
    the part of its unit vector orthogonal to the span of those kept before is longer
    than ``rtol``: that length is the sine of its angle to the span.

    Returns
    -------
    kept : list of int
        Indices of the kept vectors, in order.
    margins : list of float
        For each kept vector, the sine of its angle to the span of the earlier ones.
    """
    basis, kept, margins = [], [], []
    for index, v in enumerate(vectors):
        length = float(np.linalg.norm(v))
        if length <= rtol * scale:
            continue
        residual = v / length
        for _ in range(2):  # Gram-Schmidt twice: orthogonal to working precision
            for b in basis:
                residual = residual - (b @ residual) * b
        margin = float(np.linalg.norm(residual))
        if margin > rtol:
            basis.append(residual / margin)
            kept.append(index)
            margins.append(margin)
    return kept, margins


def weight_matrix(value, name, definite):
    r"""A (..., m, m) symmetric cost weight and, if ``definite``, its Cholesky factor.

    ``definite=True`` requires positive definiteness (Cholesky succeeds); otherwise
    positive semidefiniteness (smallest eigenvalue >= -1e-12 times the largest entry),
    and the factor returned is None.
    """
    W = _validate.square_matrix(value, name)
    scale = max(np.abs(W).max(initial=0.0), np.finfo(float).tiny)
    asymmetry = np.abs(W - np.swapaxes(W, -1, -2)).max(initial=0.0)
    if asymmetry > 1e-12 * scale:
        raise ValueError(f"{name}: expected a symmetric matrix, got asymmetry {asymmetry:.3g}")
    W = 0.5 * (W + np.swapaxes(W, -1, -2))
    if definite:
        try:
            return W, np.linalg.cholesky(W)
        except np.linalg.LinAlgError:
            kind = "positive definite"
    elif np.linalg.eigvalsh(W).min() >= -1e-12 * scale:
        return W, None
    else:
        kind = "positive semidefinite"
    raise ValueError(
        f"{name}: expected a symmetric {kind} matrix, got smallest eigenvalue "
        f"{np.linalg.eigvalsh(W).min():.3g}"
    )
