"""Numbers ready to print: without rounding dust and without negative zeros, and checks
that print exactly what they assert.

A quantity that is zero in theory often comes out of floating-point arithmetic as
``-0.0`` (``0.0 * -1.0``, a cross product) or as dust such as ``-1e-17``; NumPy prints
both as ``-0.`` (with ``suppress=True``) and an f-string as ``-0.0000``, which reads
like a sign error.  The notebooks pass printed values through :func:`tidy`, and check
the unrounded values in their assertions.

A residual or any quantity that is zero up to rounding differs from machine to machine
(another instruction set, another BLAS kernel), and so does the last digit of a number
printed to more digits than its tolerance guarantees.  :func:`assert_below` and
:func:`assert_close` assert a number and print what they asserted, a bound or the
expected value with its tolerance, so the printed line is the same on every correct
machine and cannot drift from the check beside it.
"""

import numpy as np

__all__ = ["tidy", "assert_below", "assert_close"]


def tidy(values, *, decimals=12):
    """``values`` rounded to ``decimals`` decimals, with every zero positive; for printing.

    Parameters
    ----------
    values : float or array_like
        Real numbers, any shape.
    decimals : int, optional, keyword only
        Decimals kept (default 12, far below what the notebooks print).  To format a
        number with ``d`` decimals, tidy it with ``decimals=d``: ``f"{tidy(x, decimals=4):.4f}"``.

    Returns
    -------
    float or ndarray
        A float for a scalar, otherwise an array of the same shape.

    Examples
    --------
    >>> tidy([-0.0, -1e-17, 0.25])
    array([0.  , 0.  , 0.25])
    >>> f"{tidy(-3e-5, decimals=4):.4f}"
    '0.0000'
    """
    rounded = np.round(np.asarray(values, dtype=float), decimals)
    cleaned = np.where(rounded == 0.0, 0.0, rounded)  # -0.0 == 0.0, so this drops the sign
    return float(cleaned) if cleaned.ndim == 0 else cleaned


def _with_unit(text, unit):
    return f"{text} {unit}" if unit else text


def _number(x, decimals):
    """``x`` as written: with ``decimals`` decimals, or its shortest form (up to 6 digits)."""
    x = tidy(x)
    return f"{x:.{decimals}f}" if decimals is not None else f"{x:.6g}"


def _numbers(values, decimals):
    """A number, or a list of numbers in brackets (nested like ``values``)."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 0:
        return _number(values, decimals)
    return "[" + ", ".join(_numbers(v, decimals) for v in values) + "]"


def assert_below(label, value, bound, *, unit=""):
    """Assert that every magnitude in ``value`` is below ``bound``; print ``label < bound``.

    For residuals and other quantities a correct computation gets right only to rounding:
    the line printed is the bound asserted, the same on every machine, never the digits of
    the rounding.

    Parameters
    ----------
    label : str
        What is bounded, e.g. ``"largest |G - G(null space)|"``.
    value : float or array_like
        The computed quantity (its largest magnitude is tested; NaN fails).
    bound : float
        Strict upper bound, positive, in the quantity's units.
    unit : str, optional, keyword only
        Printed after the bound.

    Returns
    -------
    None
        The line ``label < bound`` is printed.

    Raises
    ------
    AssertionError
        If a magnitude is not below ``bound``, naming the label, the largest magnitude and
        the bound.
    ValueError
        If ``bound`` is not a positive number.

    Examples
    --------
    >>> assert_below("largest |M - M^T|", [1e-17, -3e-16], 1e-12, unit="kg m^2")
    largest |M - M^T| < 1e-12 kg m^2
    """
    if not (np.ndim(bound) == 0 and float(bound) > 0.0):
        raise ValueError(f"bound: expected a positive number, got {bound!r}")
    largest = float(np.max(np.abs(np.asarray(value, dtype=float)), initial=0.0))
    if not largest < bound:  # a NaN fails too
        raise AssertionError(f"{label}: {largest:.3g} is not below {bound:g}")
    print(_with_unit(f"{label} < {bound:g}", unit))


def assert_close(label, value, expected, *, atol=0.0, rtol=0.0, unit="", decimals=None):
    r"""Assert ``value`` within the tolerance of ``expected``; print ``label: expected ± tol``.

    The test is numpy's, :math:`|v - e| \le \text{atol} + \text{rtol}\,|e|` for every
    entry.  The line printed shows the expected value, as written (or with ``decimals``
    decimals), and the tolerance: the digits the assertion guarantees, identical on every
    machine that passes it.

    Parameters
    ----------
    label : str
        What is checked, e.g. ``"clubhead speed at impact"``.
    value : float or array_like
        The computed value.
    expected : float or array_like
        The value the text states (broadcasts against ``value``).
    atol, rtol : float, optional, keyword only
        Absolute tolerance (in the units of the value) and relative tolerance; at least
        one positive.
    unit : str, optional, keyword only
        Printed after the value.
    decimals : int, optional, keyword only
        Decimals of the printed expected value (default: its shortest form).

    Returns
    -------
    None
        The line ``label: expected (± tolerance)`` is printed.

    Raises
    ------
    AssertionError
        If an entry is outside the tolerance, naming the label, the computed and the
        expected values.
    ValueError
        If no tolerance is positive, or one is negative.

    Examples
    --------
    >>> assert_close("M_11", 0.91750000000001, 0.9175, atol=1e-12, unit="kg m^2")
    M_11: 0.9175 kg m^2 (± 1e-12)
    >>> assert_close("speed", 40.63, 40.6, rtol=0.01, unit="m/s")
    speed: 40.6 m/s (± 1 %)
    """
    if atol < 0 or rtol < 0 or not (atol > 0 or rtol > 0):
        raise ValueError(
            f"atol, rtol: expected non-negative tolerances, one positive, got {atol!r}, {rtol!r}"
        )
    computed = np.asarray(value, dtype=float)
    wanted = np.asarray(expected, dtype=float)
    within = np.abs(computed - wanted) <= atol + rtol * np.abs(wanted)
    if not np.all(within):  # a NaN fails too
        raise AssertionError(
            f"{label}: computed {np.array2string(computed, precision=8)} is not within "
            f"atol={atol:g}, rtol={rtol:g} of {np.array2string(wanted, precision=8)}"
        )
    tolerance = [f"{atol:g}"] if atol else []
    tolerance += [f"{100 * rtol:g} %"] if rtol else []
    print(
        f"{_with_unit(f'{label}: {_numbers(expected, decimals)}', unit)} (± {' + '.join(tolerance)})"
    )
