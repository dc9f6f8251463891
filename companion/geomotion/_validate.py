"""Input validation shared by the public functions of geomotion.

Every public function checks its arguments here, at the boundary, so that bad
input raises a ``ValueError`` naming the argument, what was expected and what
came, instead of propagating a silent wrong number or a NaN.
"""

import math

import numpy as np

#: Tolerance on ``R^T R - I`` and ``det R - 1`` for a matrix to count as a rotation.
ROTATION_TOL = 1e-9


#: Array kinds read as real numbers: signed and unsigned integers, floats, and object
#: arrays whose entries convert to float (Python ints, Fractions, Decimals...).
#: Complex arrays are refused even with a zero imaginary part (casting would silently
#: drop it), and so are booleans, strings, dates and durations.
_REAL_KINDS = "iufO"
_KIND_NAMES = {"c": "complex", "b": "boolean", "U": "string", "S": "bytes"}


def real_array(value, name):
    """Return ``value`` as a float ndarray; reject non-real, non-numeric or non-finite entries.

    Integers are legal numbers and come back as floats; complex and boolean arrays
    raise (see ``_REAL_KINDS``).
    """
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as error:  # e.g. ragged nesting
        raise ValueError(f"{name}: expected real numbers, got {value!r}") from error
    if raw.dtype.kind not in _REAL_KINDS:
        kind = _KIND_NAMES.get(raw.dtype.kind, "non-numeric")
        raise ValueError(f"{name}: expected real numbers, got {kind} dtype ({raw.dtype})")
    try:
        array = raw.astype(float, copy=False)
    except (TypeError, ValueError) as error:  # object entries that are not real numbers
        raise ValueError(f"{name}: expected real numbers, got {value!r}") from error
    flat = array.reshape(-1)
    # A sum of squares is finite unless an entry is not (or it overflows, which the full
    # check then clears): one cheap call in the common case.
    if not math.isfinite(flat.dot(flat)) and not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: expected finite values, got non-finite entries in {array!r}")
    return array


def trailing_shape(value, name, shape):
    """Return ``value`` as a finite float array whose trailing axes equal ``shape``.

    Parameters
    ----------
    value : array_like
        The argument as the user passed it.
    name : str
        Argument name, used in the error message.
    shape : tuple of int
        Required trailing shape, e.g. ``(6,)`` or ``(4, 4)``.
    """
    array = real_array(value, name)
    if array.shape[array.ndim - len(shape):] != tuple(shape) or array.ndim < len(shape):
        expected = "(..., " + ", ".join(str(n) for n in shape) + ")"
        raise ValueError(f"{name}: expected shape {expected}, got shape {array.shape}")
    return array


def positive(value, name):
    """Return ``value`` as a finite float array with every entry > 0."""
    array = real_array(value, name)
    if np.any(array <= 0):
        raise ValueError(f"{name}: expected positive values, got {array!r}")
    return array


def nonnegative(value, name):
    """Return ``value`` as a finite float array with every entry >= 0."""
    array = real_array(value, name)
    if np.any(array < 0):
        raise ValueError(f"{name}: expected non-negative values, got {array!r}")
    return array


def rotation(value, name):
    """Return ``value`` as a (..., 3, 3) array of proper rotations (orthonormal, det +1)."""
    R = trailing_shape(value, name, (3, 3))
    gram_error = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-1, -2), initial=0.0)
    det_error = np.abs(np.linalg.det(R) - 1.0) if R.size else np.zeros(R.shape[:-2])
    if np.any(gram_error > ROTATION_TOL) or np.any(det_error > ROTATION_TOL):
        worst = float(np.max(np.maximum(gram_error, det_error)))
        raise ValueError(
            f"{name}: expected a rotation matrix (R^T R = I, det R = +1 within "
            f"{ROTATION_TOL:g}), got a deviation of {worst:.3g}"
        )
    return R


def pose(value, name):
    """Return ``value`` as a (..., 4, 4) array of rigid homogeneous transforms."""
    T = trailing_shape(value, name, (4, 4))
    bottom = T[..., 3, :]
    if np.any(np.abs(bottom - np.array([0.0, 0.0, 0.0, 1.0])) > 0):
        raise ValueError(
            f"{name}: expected a homogeneous pose with last row (0, 0, 0, 1), "
            f"got last row(s) {bottom!r}"
        )
    rotation(T[..., :3, :3], f"{name}[..., :3, :3]")
    return T


def matrix(value, name):
    """Return ``value`` as a finite float array of shape (..., rows, cols)."""
    array = real_array(value, name)
    if array.ndim < 2:
        raise ValueError(
            f"{name}: expected a matrix of shape (..., rows, cols), got shape {array.shape}"
        )
    return array


def square_matrix(value, name="M"):
    """Return ``value`` as a finite float array of shape (..., n, n), n >= 1."""
    M = matrix(value, name)
    if M.shape[-1] != M.shape[-2] or M.shape[-1] == 0:
        raise ValueError(
            f"{name}: expected a square (..., n, n) matrix with n >= 1, got shape {M.shape}"
        )
    return M


def positive_definite_factor(value, name="M"):
    """Validate a (..., n, n) symmetric positive definite matrix (a mass matrix, a weight
    matrix...); return it and its Cholesky factor L."""
    M = square_matrix(value, name)
    # M - M^T is antisymmetric, so its largest entry is its largest magnitude.
    asym = (M - np.swapaxes(M, -1, -2)).max(initial=0.0)
    if asym > 1e-12 and asym > 1e-12 * (1 + np.abs(M).max(initial=0.0)):
        raise ValueError(f"{name}: expected a symmetric matrix, got asymmetry {asym:.3g}")
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError as error:
        smallest = float(np.linalg.eigvalsh(M).min())
        raise ValueError(
            f"{name}: expected a symmetric positive definite matrix, got smallest "
            f"eigenvalue {smallest:.3g}"
        ) from error
    return M, L


def positive_definite(value, name="M"):
    """Validate a (..., n, n) symmetric positive definite matrix."""
    return positive_definite_factor(value, name)[0]


def batch_shape(shapes):
    """Broadcast the leading (batch) shapes of named arguments, ``{name: shape}``.

    A ValueError names the arguments and their shapes if they do not broadcast.
    """
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listing = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(
            f"{', '.join(shapes)}: expected leading (batch) axes that broadcast, got {listing}"
        ) from None


def vector(value, name, size):
    """Return ``value`` as a finite real vector of shape ``(size,)``."""
    array = real_array(value, name)
    if array.shape != (size,):
        raise ValueError(f"{name}: expected a vector of shape ({size},), got shape {array.shape}")
    return array
