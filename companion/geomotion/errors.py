r"""The package's own exception.

Wrong input raises the built-in exceptions: :class:`TypeError` for a value of the wrong
type (a string where a model is expected, a non-callable field), :class:`ValueError` for
a value of the right type that is wrong (a shape, a sign, a singular matrix).  An
iterative method that stops before meeting its tolerance raises
:class:`ConvergenceError`, which carries what a caller needs to decide what to do next.
"""

__all__ = ["ConvergenceError"]


class ConvergenceError(RuntimeError):
    """An iterative method stopped before its answer met the requested tolerance.

    A subclass of :class:`RuntimeError`: the input was valid, the method did not get
    there.  The message states the method, the residual reached, the tolerance and what
    to try; the same facts are attributes.

    Parameters
    ----------
    message : str
        What failed, in words (the method and the request).
    residual : float
        The best residual reached, in the units of ``tolerance``.
    tolerance : float
        The tolerance that was requested.
    iterations : int
        Iterations (or steps) taken before stopping.
    suggestion : str
        What to try, e.g. "a smaller step dt" or "a larger max_iter".

    Examples
    --------
    >>> from geomotion import ConvergenceError
    >>> error = ConvergenceError("Newton projection", residual=3e-9, tolerance=1e-12,
    ...                          iterations=20, suggestion="a smaller step dt")
    >>> print(error)
    Newton projection: residual 3e-09 > tolerance 1e-12 after 20 iterations; try a smaller step dt
    >>> isinstance(error, RuntimeError), error.residual
    (True, 3e-09)
    """

    def __init__(self, message, *, residual, tolerance, iterations, suggestion):
        self.residual = float(residual)
        self.tolerance = float(tolerance)
        self.iterations = int(iterations)
        self.suggestion = str(suggestion)
        super().__init__(
            f"{message}: residual {self.residual:.3g} > tolerance {self.tolerance:.3g} "
            f"after {self.iterations} iterations; try {self.suggestion}"
        )
