r"""Lie brackets of vector fields and the accessibility rank of a control-affine system.

For smooth fields :math:`X, Y` on :math:`\mathbb R^n`,

.. math:: [X, Y](x) = DY(x)\,X(x) - DX(x)\,Y(x),

the direction of the net motion left by a loop of flows: flowing along :math:`X`,
then :math:`Y`, then back along :math:`X`, then back along :math:`Y`, each for a time
:math:`t`, ends at :math:`x + t^2[X, Y](x) + O(t^3)`.  :func:`lie_bracket` evaluates it
with exact Jacobians when they are given and with central differences otherwise;
:func:`accessibility_rank` builds iterated brackets of the fields of a
:class:`ControlAffineSystem` and reports the rank of their span and which brackets
supplied it.  What that rank does and does not decide is stated in
:mod:`geomotion.control`.
"""

from dataclasses import KW_ONLY, dataclass

import numpy as np

from .. import _numerics, _validate

__all__ = [
    "lie_bracket",
    "field_jacobian",
    "ControlAffineSystem",
    "AccessibilityReport",
    "accessibility_rank",
]

# The default rtol = 1e-5 of the rank tests (:func:`accessibility_rank`,
# :func:`geomotion.control.observability_rank`): a vector adds a direction when the sine
# of its angle to the span of the earlier ones exceeds it.  Nested differences carry
# relative errors up to about 1e-9 for three levels and 3e-7 for four (measured on random
# linear systems, the car and a pendulum), so a dependent vector stays below it; an angle
# smaller than 1e-5 rad would not be a usable direction anyway.


def _field_value(field, x, name):
    return _numerics.evaluate(field, (x,), (x.shape[-1],), name)


def _field_derivative(field, jacobian, x, name, step):
    """DX at x: the exact Jacobian callable if given, else central differences of the field."""
    n = x.shape[-1]
    if jacobian is None:
        return _numerics.jacobian(field, x, n, name, step)
    return _numerics.evaluate(jacobian, (x,), (n, n), f"d{name}")


def field_jacobian(X, x, *, step=None):
    r"""Jacobian :math:`DX(x)`, ``D[..., i, k]`` = :math:`\partial X_i/\partial x_k` (differences).

    Central differences with one Richardson extrapolation step (four evaluations of the
    field per coordinate, all in one call), error about
    :math:`h^4|\partial^5X|/480 + 3\varepsilon|X|/h` per entry; see :func:`lie_bracket`.

    Parameters
    ----------
    X : callable
        ``X(x) -> (..., n)``, broadcasting over leading axes of ``x`` or written for one
        point (then called once per point; see the API convention page).
    x : (..., n) array_like
        Where to differentiate (coordinate units, e.g. m and rad).
    step : float or (..., n) array_like, optional
        Difference step per coordinate, > 0, in the units of each coordinate; default
        (None) 2e-3.

    Returns
    -------
    (..., n, n) ndarray
        ``D[..., i, k]`` = :math:`\partial X_i/\partial x_k`, one matrix per state of the
        batch.

    Raises
    ------
    TypeError
        If ``X`` is not callable.
    ValueError
        If ``X`` returns a wrong shape (at any point) or non-finite
        values; if ``x`` is not a finite (..., n) array; if ``step`` is not positive.
        Whatever ``X`` itself raises at a point propagates unchanged.
    """
    _numerics.callable_argument(X, "X", "X(x) -> (..., n)")
    x = _numerics.state(x)
    _field_value(X, x, "X")
    return _numerics.jacobian(X, x, x.shape[-1], "X", step)


def lie_bracket(X, Y, x, *, dX=None, dY=None, step=None):
    r"""Lie bracket :math:`[X, Y](x) = DY(x)X(x) - DX(x)Y(x)` of two vector fields.

    With ``dX`` and ``dY`` the bracket is exact up to rounding.  A missing Jacobian is
    taken by Richardson-extrapolated central differences with step :math:`h` (default
    2e-3 in the units of each coordinate), whose error per Jacobian entry
    is about :math:`h^4|\partial^5X|/480 + 3\varepsilon|X|/h`: near :math:`10^{-12}` of
    the field scale for fields that vary on the scale of one coordinate unit.  Measured:
    :math:`4\cdot10^{-12}` relative for random trigonometric fields with unit-size
    frequencies, :math:`6\cdot10^{-10}` for the car's :math:`[g_2, g_1]` at
    :math:`|\varphi| \le 1.2` rad, where :math:`\tan\varphi` varies fast.  A field that
    varies on a shorter scale :math:`s` needs a step of about :math:`2\cdot10^{-3}s`.
    Differencing a bracket again (a bracket of brackets) multiplies the rounding part by
    about :math:`3/h`: measured :math:`2\cdot10^{-9}` relative for depth-two brackets of
    the trigonometric fields at the default step.  :func:`accessibility_rank` therefore
    lets the step grow with the nesting depth (by a factor 3 per level).

    Example (seed): :math:`X = (x_2, -x_1)`, :math:`Y = (0, 1)` give
    :math:`[X, Y] = (-1, 0)` everywhere: a second direction in the plane, not a third.
    Equation :eq:`eq-ch2-lie-bracket`.

    Parameters
    ----------
    X, Y : callable
        Fields ``X(x) -> (..., n)``, broadcasting over leading axes (index ``x[..., i]``),
        or written for one point (``x[i]``), then called once per point; a constant field
        may return shape ``(n,)``.
    x : (..., n) array_like
        State(s) at which to evaluate, in the fields' coordinates.
    dX, dY : callable, optional
        Exact Jacobians ``dX(x) -> (..., n, n)``,
        ``dX[..., i, k]`` = :math:`\partial X_i/\partial x_k`; default (None): differences.
    step : float or (..., n) array_like, optional
        Difference step per coordinate, in the units of each coordinate; only when a
        Jacobian is missing; default (None) 2e-3.

    Returns
    -------
    (..., n) ndarray
        :math:`[X, Y](x)`, in units of :math:`[X][Y]/[x]`.

    Raises
    ------
    TypeError
        Naming the argument: a field or Jacobian that is not callable.
    ValueError
        Naming the argument: a field or Jacobian that returns a wrong
        shape (at any point) or non-finite values; ``x`` not a finite (..., n)
        array; ``step`` not positive, or given although both Jacobians are.
    """
    for function, name in ((X, "X"), (Y, "Y")):
        _numerics.callable_argument(function, name, f"{name}(x) -> (..., n)")
    for function, name in ((dX, "dX"), (dY, "dY")):
        if function is not None:
            _numerics.callable_argument(function, name, f"{name}(x) -> (..., n, n)")
    x = _numerics.state(x)
    if step is not None and dX is not None and dY is not None:
        raise ValueError("step: expected None when dX and dY are given (no differences are taken)")
    vX, vY = _field_value(X, x, "X"), _field_value(Y, x, "Y")
    DX = _field_derivative(X, dX, x, "X", step)
    DY = _field_derivative(Y, dY, x, "Y", step)
    return np.einsum("...ij,...j->...i", DY, vX) - np.einsum("...ij,...j->...i", DX, vY)


@dataclass(frozen=True)
class ControlAffineSystem:
    r"""A control-affine system :math:`\dot x = f(x) + \sum_i g_i(x)u_i`, by its vector fields.

    Attributes
    ----------
    drift : callable or None
        :math:`f(x) -> (..., n)`; None for a driftless system.
    inputs : tuple of callable
        Input fields :math:`g_i(x) -> (..., n)`, at least one (state units per input unit
        per second).
    drift_jacobian : callable, optional
        Exact :math:`Df(x) -> (..., n, n)`; differences are used when absent.  This and
        the following attributes are keyword-only when constructing.
    input_jacobians : tuple of (callable or None), optional
        Exact :math:`Dg_i`, one entry per input field.
    names : tuple of str, optional
        Labels of the fields, drift first; default ``("f", "g1", ..., "gm")``.
    dimension : int or callable, optional
        Dimension of the state manifold at ``x``: an int, a callable ``dimension(x)``, or
        None for the number of coordinates :math:`n`.  Smaller than :math:`n` when the
        coordinates are dependent (e.g. :math:`2d` on :math:`TQ_c` in ambient
        coordinates), where no field can leave the manifold.

    Every field broadcasts over leading axes of ``x`` (index ``x[..., i]``) or is written
    for one point, as in :func:`lie_bracket`.

    Raises
    ------
    TypeError
        If a field or Jacobian is not callable.
    ValueError
        If there is no input field, the numbers of
        names or input Jacobians do not match the fields, or ``dimension`` is not a
        positive int, a callable or None.
    """

    drift: object
    inputs: tuple
    _: KW_ONLY
    drift_jacobian: object = None
    input_jacobians: tuple = None
    names: tuple = None
    dimension: object = None

    def __post_init__(self):
        inputs = tuple(self.inputs) if isinstance(self.inputs, (list, tuple)) else (self.inputs,)
        if not inputs:
            raise ValueError("inputs: expected at least one input field g_i(x), got none")
        for i, g in enumerate(inputs):
            _numerics.callable_argument(g, f"inputs[{i}]", "g_i(x) -> (..., n)")
        if self.drift is not None:
            _numerics.callable_argument(self.drift, "drift", "f(x) -> (..., n)")
        elif self.drift_jacobian is not None:
            raise ValueError("drift_jacobian: expected None for a driftless system (drift=None)")
        if self.drift_jacobian is not None:
            _numerics.callable_argument(self.drift_jacobian, "drift_jacobian", "Df(x)")
        jacobians = (
            (None,) * len(inputs) if self.input_jacobians is None else tuple(self.input_jacobians)
        )
        if len(jacobians) != len(inputs):
            raise ValueError(
                f"input_jacobians: expected {len(inputs)} entries (one per input "
                f"field), got {len(jacobians)}"
            )
        for i, dg in enumerate(jacobians):
            if dg is not None:
                _numerics.callable_argument(dg, f"input_jacobians[{i}]", "Dg_i(x)")
        count = len(inputs) + (self.drift is not None)
        default = (("f",) if self.drift is not None else ()) + tuple(
            f"g{i + 1}" for i in range(len(inputs))
        )
        names = default if self.names is None else tuple(str(name) for name in self.names)
        if len(names) != count:
            raise ValueError(f"names: expected {count} labels (drift first), got {names!r}")
        if self.dimension is not None and not callable(self.dimension):
            # A fixed state dimension (or None / a callable dimension(x)).
            object.__setattr__(self, "dimension", _validate.count(self.dimension, "dimension"))
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "input_jacobians", jacobians)
        object.__setattr__(self, "names", names)

    @property
    def fields(self):
        """The generating fields as ``(label, field, jacobian or None)``, drift first."""
        pairs = ([(self.drift, self.drift_jacobian)] if self.drift is not None else []) + list(
            zip(self.inputs, self.input_jacobians)
        )
        return tuple((name, f, df) for name, (f, df) in zip(self.names, pairs))

    def velocity(self, x, u):
        r""":math:`\dot x = f(x) + \sum_i g_i(x)u_i`.

        Parameters
        ----------
        x : (..., n) array_like
            States.
        u : (..., m) array_like
            Inputs, one per input field; batch axes broadcast with those of ``x``.

        Returns
        -------
        (..., n) ndarray
            The state velocity.
        """
        x = _numerics.state(x)
        u = _numerics.state(u, "u")
        if u.shape[-1] != len(self.inputs):
            raise ValueError(f"u: expected shape (..., {len(self.inputs)}), got shape {u.shape}")
        labels = self.names[-len(self.inputs) :]
        total = 0.0 if self.drift is None else _field_value(self.drift, x, self.names[0])
        for g, label, u_i in zip(self.inputs, labels, np.moveaxis(u, -1, 0)):
            total = total + _field_value(g, x, label) * u_i[..., None]
        return total

    def state_dimension(self, x):
        """Dimension of the state manifold at ``x`` (see the ``dimension`` attribute).

        Parameters
        ----------
        x : (n,) ndarray
            One state.

        Returns
        -------
        int
        """
        if self.dimension is None:
            return x.shape[-1]
        return int(self.dimension(x)) if callable(self.dimension) else int(self.dimension)


@dataclass(frozen=True)
class AccessibilityReport:
    r"""Result of :func:`accessibility_rank` at one state.

    Attributes
    ----------
    rank : int
        Number of independent directions found among the fields and brackets.
    dimension : int
        Dimension of the state manifold at ``x``.
    full_rank : bool
        ``rank >= dimension``: the accessibility rank condition holds at ``x`` (numerically).
    brackets : tuple of str
        Labels of the fields and brackets that supplied the directions, in the order
        found (shallowest first), e.g. ``("g1", "g2", "[g2, g1]", "[g1, [g2, g1]]")``.
    vectors : (n, rank) ndarray
        Their values at ``x``, one per column.
    margins : (rank,) ndarray
        For each, the sine of its angle to the span of the earlier ones: a small margin
        means a nearly dependent, poorly conditioned direction.
    depth : int
        Deepest bracket level evaluated (1 = the fields themselves).
    evaluated : int
        Number of fields and brackets evaluated.
    tolerance : float
        The relative tolerance ``rtol`` used.
    """

    rank: int
    dimension: int
    full_rank: bool
    brackets: tuple
    vectors: np.ndarray
    margins: np.ndarray
    depth: int
    evaluated: int
    tolerance: float


def _label(generators, indices):
    """Label of the right-nested bracket [g_i1, [g_i2, ... g_ik]]."""
    first = generators[indices[0]][0]
    return first if len(indices) == 1 else f"[{first}, {_label(generators, indices[1:])}]"


def _nested_field(generators, indices, step):
    """Field and exact Jacobian (or None) of the right-nested bracket [g_i1, [g_i2, ... g_ik]]."""
    _, field, jacobian = generators[indices[0]]
    if len(indices) == 1:
        return field, jacobian
    inner, inner_jacobian = _nested_field(generators, indices[1:], step)
    exact = jacobian is not None and inner_jacobian is not None

    def bracket(y):
        return lie_bracket(
            field, inner, y, dX=jacobian, dY=inner_jacobian, step=None if exact else step
        )

    return _numerics.Trusted(bracket), None


def _level(count, depth, previous):
    """Index tuples of level ``depth``: pairs (a, b) with a > b at depth 2, then (a,) + B."""
    if depth == 1:
        return [(a,) for a in range(count)]
    if depth == 2:
        return [(a, b) for a in range(count) for b in range(a)]
    return [(a,) + inner for a in range(count) for inner in previous]


def accessibility_rank(system, x, *, depth=3, step=None, rtol=1e-5):
    r"""Rank of the span of a control-affine system's fields and iterated brackets at ``x``.

    Level 1 holds the drift :math:`f` (if any) and the input fields :math:`g_i`; level 2
    the brackets :math:`[X_a, X_b]` of pairs of them; level :math:`k > 2` the right-nested
    brackets :math:`[X_a, B]` of a field with every bracket :math:`B` of level
    :math:`k - 1` (these span the whole Lie algebra the fields generate).  Levels are
    evaluated in turn until the rank reaches the state dimension or ``depth`` levels are
    done; the report names the brackets that added directions, shallowest first.

    Full rank is the accessibility rank condition at ``x``: it implies that the states
    reachable from ``x`` within any time :math:`T > 0` form a set with nonempty interior.
    It is not controllability.  With drift, a full rank says nothing about reaching a
    neighbourhood of ``x`` (small-time local controllability) or a given target in a given
    forward time: for :math:`\dot x_1 = 1,\ \dot x_2 = u` the drift and input alone span
    the plane, yet :math:`x_1` only grows (:func:`geomotion.control.forward_drift_example`).
    For driftless systems whose inputs take both signs, full rank on a connected region
    does give controllability there (Chow-Rashevskii), a bracket direction being realized
    by a sequence of forward and reverse motions rather than by any single input; with
    drift, controllability needs further conditions (a recurrent drift, or sufficient
    conditions on the brackets for small-time local controllability) that a rank count
    does not check.

    Numerics: rank decisions use normalized vectors (the units of the brackets do not
    matter), so the coordinates should be scaled so that the fields vary on the scale of
    one coordinate unit; a bracket counts as zero below ``rtol`` times the largest vector
    evaluated.  Brackets are evaluated as in :func:`lie_bracket`, deeper levels by
    differencing the level below (exact Jacobians, when given, serve level 2).  A
    level-:math:`k` bracket nests :math:`k - 1` differentiations, all with the step
    ``step * 3**(k - 2)`` (default ``step`` = 2e-3), since each nesting
    multiplies the rounding error by about :math:`3/h`.  Measured errors: below
    :math:`10^{-9}` relative through level 3 on unit-scale fields, :math:`5\cdot10^{-8}` for
    the car's level-3 bracket without exact Jacobians; check the margins, or pass exact
    Jacobians, before trusting decisions at level 5 and beyond.

    Parameters
    ----------
    system : ControlAffineSystem
        The fields (their exact Jacobians, if given, are used at level 2).
    x : (n,) array_like
        One state (on the state manifold, if the coordinates are dependent).
    depth : int, optional
        Deepest bracket level, >= 1 (default 3).
    step : float or (n,) array_like, optional
        Base difference step per coordinate, in the units of each coordinate (default
        None: 2e-3), scaled up for deeper levels, see above.
    rtol : float, optional
        Relative rank tolerance, in (0, 1) (default 1e-5): a vector counts as zero when
        its norm is at most ``rtol`` times the largest vector evaluated, and adds a
        direction when the sine of its angle to the span of the earlier ones exceeds
        ``rtol``.

    Returns
    -------
    AccessibilityReport
        The rank at ``x`` and the brackets that supplied it.

    Batches
    -------
    One state per call: ``x`` has shape (n,).  The search is adaptive -- it stops at the
    level where the rank reaches the dimension, and the brackets that supply the
    directions (and so the report's ``brackets``, ``vectors`` and ``margins``) differ
    from state to state -- so a report per element does not fit one array; call it once
    per state.  The brackets themselves (:func:`lie_bracket`) do take batches.

    Raises
    ------
    TypeError
        If ``system`` is not a :class:`ControlAffineSystem`.
    ValueError
        If ``x`` is not one finite
        state, ``depth`` is not an int >= 1, ``rtol`` is not in (0, 1), or a field fails
        as in :func:`lie_bracket`.
    """
    if not isinstance(system, ControlAffineSystem):
        raise TypeError(f"system: expected a ControlAffineSystem, got {type(system).__name__}")
    x = _numerics.single_state(x)
    depth = _validate.count(depth, "depth")
    rtol = _rank_rtol(rtol)
    dimension = system.state_dimension(x)
    generators = list(system.fields)
    level, labels, values, kept, margins, scale = [], [], [], [], [], 0.0
    for current in range(1, depth + 1):
        level = _level(len(generators), current, level)
        # A level-k bracket nests k - 1 differentiations: their step grows with k.
        level_step = _numerics.nested_step(step, max(current - 1, 1))
        for indices in level:
            label = _label(generators, indices)
            field, _ = _nested_field(generators, indices, level_step)
            labels.append(label)
            values.append(_field_value(field, x, label))
        scale = max([scale] + [float(np.linalg.norm(v)) for v in values])
        kept, margins = _numerics.independent_vectors(values, rtol, scale)
        if len(kept) >= dimension:
            break
    vectors = np.array([values[i] for i in kept]).reshape(len(kept), x.shape[-1]).T
    return AccessibilityReport(
        rank=len(kept),
        dimension=dimension,
        full_rank=len(kept) >= dimension,
        brackets=tuple(labels[i] for i in kept),
        vectors=vectors,
        margins=np.array(margins),
        depth=current,
        evaluated=len(values),
        tolerance=rtol,
    )


def _rank_rtol(rtol):
    value = _validate.real_array(rtol, "rtol")
    if value.ndim != 0 or not 0 < value < 1:
        raise ValueError(f"rtol: expected a number in (0, 1), got {rtol!r}")
    return float(value)
