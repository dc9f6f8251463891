"""Input validation shared by the public functions of geomotion.

Every public function checks its arguments here, at the boundary, so that bad
input raises a ``ValueError`` (a ``TypeError`` for a missing array, ``None``) naming
the argument, what was expected and what came, instead of propagating a silent wrong
number or a NaN.
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


#: Most axes an argument may have.  numpy's functions over several arrays stop at 32 axes
#: and the package adds up to three core axes to an argument's own (a column of loads, a
#: matrix per row), so 24 keeps every computation inside numpy's limit: 22 batch axes for
#: a matrix argument, 23 for a vector.
MAX_AXES = 24


def real_array(value, name):
    """Return ``value`` as a float ndarray; reject non-real, non-numeric or non-finite entries.

    Integers are legal numbers and come back as floats.  A value of the wrong type --
    ``None`` (or an entry ``None``: numpy would read it as NaN, hiding a missing argument
    behind a "non-finite" message), strings, booleans, complex numbers, other objects --
    raises ``TypeError``; the right type with a wrong value (ragged nesting, a non-finite
    entry) raises ``ValueError``.
    """
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as error:  # e.g. ragged nesting
        raise ValueError(f"{name}: expected real numbers, got {value!r}") from error
    if raw.dtype.kind == "O" and any(entry is None for entry in raw.flat):
        got = "None" if value is None else f"None among the entries of {value!r}"
        raise TypeError(f"{name}: expected real numbers (an array_like), got {got}")
    if raw.dtype.kind not in _REAL_KINDS:
        kind = _KIND_NAMES.get(raw.dtype.kind, "non-numeric")
        raise TypeError(f"{name}: expected real numbers, got {kind} dtype ({raw.dtype})")
    try:
        array = raw.astype(float, copy=False)
    except (TypeError, ValueError) as error:  # object entries that are not real numbers
        raise TypeError(f"{name}: expected real numbers, got {value!r}") from error
    if array.ndim > MAX_AXES:
        raise ValueError(
            f"{name}: expected at most {MAX_AXES} axes (leading batch axes and the value's "
            f"own), got {array.ndim} axes, shape {array.shape}"
        )
    flat = array.reshape(-1)
    # A sum of squares is finite unless an entry is not (or it overflows, which the full
    # check then clears): one cheap call in the common case.
    with np.errstate(over="ignore"):
        finite = math.isfinite(flat.dot(flat))
    if not finite and not np.all(np.isfinite(array)):
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
    if array.shape[array.ndim - len(shape) :] != tuple(shape) or array.ndim < len(shape):
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


def _first_index(failed):
    """Batch index (a tuple) of the first True entry of ``failed``."""
    return tuple(int(i) for i in np.argwhere(failed)[0])


def _where(index, item):
    """How a message names batch entry ``index``: "" for a single value, else " (body 3)"."""
    if index == ():
        return ""
    label = index[0] if len(index) == 1 else index
    return f" ({item} {label})"


#: Rotations that miss orthonormality by less than this look typed or rounded by hand.
_HAND_ROUNDED_TOL = 1e-2


def rotation(value, name, item="entry"):
    """Return ``value`` as a (..., 3, 3) array of proper rotations (orthonormal, det +1).

    The error names the first failing entry of a batch (``item`` says what an entry is,
    e.g. "body"), and suggests a remedy for a rotation rounded by hand or a reflection.
    """
    R = trailing_shape(value, name, (3, 3))
    gram_error = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(axis=(-1, -2), initial=0.0)
    det = np.linalg.det(R) if R.size else np.ones(R.shape[:-2])
    deviation = np.maximum(gram_error, np.abs(det - 1.0))
    failed = deviation > ROTATION_TOL
    if np.any(failed):
        i = _first_index(failed)
        if det[i] < 0 and gram_error[i] <= ROTATION_TOL:
            hint = " It is a reflection (det R = -1): flip the sign of one axis."
        elif deviation[i] < _HAND_ROUNDED_TOL:
            hint = (
                " It is close to a rotation, as if typed or rounded by hand: build it "
                "with geomotion.spatial.rot_x/rot_y/rot_z (angles in rad) or "
                "compose those, rather than writing out rounded cosines."
            )
        else:
            hint = ""
        raise ValueError(
            f"{name}: expected a rotation matrix (R^T R = I, det R = +1 within "
            f"{ROTATION_TOL:g}), got a deviation of {deviation[i]:.3g}{_where(i, item)}.{hint}"
        )
    return R


def pose(value, name, item="entry"):
    """Return ``value`` as a (..., 4, 4) array of rigid homogeneous transforms.

    Errors name the first failing entry of a batch (``item`` says what an entry is), and
    recognise a transposed (row-vector convention) pose.
    """
    T = trailing_shape(value, name, (4, 4))
    bottom = T[..., 3, :]
    failed = np.any(np.abs(bottom - np.array([0.0, 0.0, 0.0, 1.0])) > 0, axis=-1)
    if np.any(failed):
        i = _first_index(failed)
        transposed = np.all(T[i][:3, 3] == 0) and T[i][3, 3] == 1
        hint = (
            " It looks transposed (the row-vector convention): the translation belongs in "
            "the last column, T[:3, 3]; pass the transpose, or build poses with "
            "geomotion.spatial.pose(R, p)."
            if transposed
            else ""
        )
        raise ValueError(
            f"{name}: expected a homogeneous pose with last row (0, 0, 0, 1), got last row "
            f"{bottom[i].tolist()}{_where(i, item)}.{hint}"
        )
    rotation(T[..., :3, :3], f"{name}[..., :3, :3]", item)
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


def symmetric_matrix(value, name="M"):
    """Return ``value`` as a finite symmetric (..., n, n) float array (to rounding)."""
    M = square_matrix(value, name)
    # Each matrix of a batch on its own scale (its asymmetry against 1e-12 of its largest
    # entry: a matrix of 1e-20 entries is judged as one of 1), so that whether one is
    # accepted does not depend on the others or on the units.  M - M^T is antisymmetric:
    # its largest entry is its largest magnitude.
    asym = (M - np.swapaxes(M, -1, -2)).max(axis=(-2, -1), initial=0.0)
    bad = asym > 1e-12 * np.abs(M).max(axis=(-2, -1), initial=0.0)
    if np.any(bad):
        worst = np.unravel_index(np.argmax(np.where(bad, asym, -1.0)), bad.shape)
        where = f" at batch index {tuple(int(i) for i in worst)}" if bad.ndim else ""
        raise ValueError(
            f"{name}: expected a symmetric matrix, got asymmetry {asym[worst]:.3g}{where}"
        )
    return M


def positive_definite_factor(value, name="M", *, where=None):
    """Validate a (..., n, n) symmetric positive definite matrix (a mass matrix, a weight
    matrix...); return it and its Cholesky factor L.  The error names the first matrix
    of a batch that is not, by its batch index (``where`` maps a flat index of ``value``'s
    batch to the index to print, for a caller that passed part of its own batch)."""
    M = symmetric_matrix(value, name)
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError as error:
        smallest = np.linalg.eigvalsh(M).min(axis=-1)
        flat = int(np.argmin(smallest.reshape(-1) > 0))  # the first that is not positive
        index = where(flat) if where else np.unravel_index(flat, smallest.shape)
        at = f" at batch index {tuple(int(i) for i in index)}" if len(index) else ""
        raise ValueError(
            f"{name}: expected a symmetric positive definite matrix, got smallest "
            f"eigenvalue {float(smallest.reshape(-1)[flat]):.3g}{at}"
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


def count(value, name, *, minimum=1, maximum=None, whole_floats=True):
    """Return a whole number in ``[minimum, maximum]`` as an ``int``, for arguments that count.

    The one integer check of the package (steps, iterations, depths, orders, bodies).
    Integers are accepted, and so are whole-number floats (``1 / 0.01``, ``1e4``) unless
    ``whole_floats`` is False (for indices and joint counts, where a float is a mistake).
    A boolean or a non-number (or a float when ``whole_floats`` is False) raises
    ``TypeError``; a float that is not whole within rounding (``1 / 0.003`` = 333.33...)
    raises ``ValueError``, since rounding it would silently change the count, and so does
    a number outside the range.
    """
    numbers = (int, float, np.integer, np.floating) if whole_floats else (int, np.integer)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers):
        raise TypeError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    if isinstance(value, (float, np.floating)):
        whole = round(value) if math.isfinite(value) else None
        if whole is None or abs(value - whole) > 1e-9 * max(1.0, abs(value)):
            raise ValueError(
                f"{name}: expected a whole number >= {minimum}, got {value!r} (not whole: "
                f"round it yourself if that is what you mean, e.g. round({value!r}))"
            )
        value = whole
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f" and <= {maximum}"
        raise ValueError(f"{name}: expected an integer >= {minimum}{upper}, got {value!r}")
    return value


def finite_result(out, what, **inputs):
    """``out``, unless the kernel's arithmetic overflowed the float range (finite inputs,
    an entry of ``out`` infinite or NaN: velocities near 1e154 square past 1.8e308):
    then a FloatingPointError naming the inputs and their largest magnitudes."""
    if np.isfinite(out).all():
        return out
    sizes = ", ".join(
        f"|{name}| <= {float(np.abs(x).max(initial=0.0)):.3g}" for name, x in inputs.items()
    )
    raise FloatingPointError(
        f"{', '.join(inputs)}: {what} overflowed the float range ({sizes}); products of "
        f"the inputs passed 1.8e308.  Rescale the units or the inputs"
    )
