r"""The package's own exceptions.

Wrong input raises the built-in exceptions: :class:`TypeError` for a value of the wrong
type (a string where a model is expected, a non-callable field), :class:`ValueError` for
a value of the right type that is wrong (a shape, a sign, a singular matrix).  An
iterative method that stops before meeting its tolerance raises
:class:`ConvergenceError`, which carries what a caller needs to decide what to do next.
A motion that no admissible contact loads can carry raises
:class:`InfeasibleContactError`, a :class:`ValueError` that says where and why.
"""

__all__ = ["ConvergenceError", "InfeasibleContactError"]


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


class InfeasibleContactError(ValueError):
    """No admissible contact loads exist for a requested motion at some sample.

    A subclass of :class:`ValueError`: the request (a motion on planted feet) lies outside
    what the contacts can carry.  Raised by
    :func:`geomotion.contact.contact_inverse_dynamics`; the message lists every condition
    in conflict, the attributes name the first infeasible sample and the heaviest one.

    Parameters
    ----------
    message : str
        What failed, in words.
    sample : tuple of int
        Index of the first infeasible sample in the batch.
    samples : tuple of tuple of int
        Indices of every infeasible sample.
    foot : int
        The foot of the condition with the heaviest weight in the infeasibility
        certificate of ``sample``.
    family : str
        Its kind: ``"normal"`` (compression), or a face of the foot's contact-wrench
        cone: ``"friction"`` (a face of the friction pyramid), ``"support"`` (an edge of
        the sole polygon) or ``"torsion"`` (a bound on the free moment).
    edge : int
        Which pyramid face, polygon edge or torsion face (its index in
        :func:`geomotion.contact.contact_wrench_cone`'s order); 0 for ``"normal"``.
    violation : float
        The least largest violation of the feet's conditions at ``sample``, N.

    Examples
    --------
    >>> from geomotion.errors import InfeasibleContactError
    >>> error = InfeasibleContactError("no loads", sample=(3,), samples=((3,), (4,)),
    ...                                foot=1, family="friction", edge=5, violation=12.0)
    >>> isinstance(error, ValueError), error.sample, error.family
    (True, (3,), 'friction')
    """

    def __init__(self, message, *, sample, samples, foot, family, edge, violation):
        self.sample = tuple(int(i) for i in sample)
        self.samples = tuple(tuple(int(i) for i in s) for s in samples)
        self.foot = int(foot)
        self.family = str(family)
        self.edge = int(edge)
        self.violation = float(violation)
        super().__init__(message)
