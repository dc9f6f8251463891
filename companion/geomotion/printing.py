"""Numbers ready to print: without rounding dust and without negative zeros.

A quantity that is zero in theory often comes out of floating-point arithmetic as
``-0.0`` (``0.0 * -1.0``, a cross product) or as dust such as ``-1e-17``; NumPy prints
both as ``-0.`` (with ``suppress=True``) and an f-string as ``-0.0000``, which reads
like a sign error.  The notebooks pass printed values through :func:`tidy`, and check
the unrounded values in their assertions.
"""

import numpy as np

__all__ = ["tidy"]


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
