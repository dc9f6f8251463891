r"""Step-size studies: how a constrained integrator's residuals shrink as the step shrinks.

One run proves little: a trajectory can look right and be wrong, and a residual can be
small because a solver tolerance holds it there rather than because the integration is
accurate.  :func:`~geomotion.integrators.step_size_study` repeats
:func:`~geomotion.integrators.simulate_constrained` over the same time interval with
successively more (smaller) steps and, for each method, reports the largest

* position residual :math:`|\Phi(q)|` (constraint units),
* velocity residual :math:`|J_cv|`,
* acceleration residual :math:`|J_ca + \gamma|` of the acceleration the method applies,
* work-inclusive energy-balance residual :math:`|E - E_0 - W_{in} - W_{other} + W_{diss}|`
  (J),

with the observed orders :math:`\log(e_k/e_{k+1})/\log(\Delta t_k/\Delta t_{k+1})`
between successive step sizes.  What to expect on a smooth problem:

* ``"projection"``: Runge-Kutta of order 4 followed by projection.  The energy residual
  falls at order 4 (often a little faster at coarse steps, because the projection
  removes part of the error); position and velocity residuals sit at the Newton
  tolerance and at round-off, so their "orders" carry no information (see floors below).
* ``"baumgarte"``: the same Runge-Kutta step on the stabilized equations, no projection.
  Started on the constraint, the violation stays of the size of the local error and is
  damped by the feedback, so position, velocity and energy residuals fall at order 4;
  its acceleration residual is the feedback term :math:`|2\alpha J_cv + \beta^2\Phi|`,
  which shrinks with the violation.  The stabilized equations are not the constrained
  equations plus nothing: with large gains they become stiff and the order is only
  seen at steps small against :math:`1/\alpha` and :math:`1/\beta`.
* ``"rattle"``: order 2 in the energy residual, which stays bounded over long times
  (the method is symplectic for a constant mass matrix); the position and velocity
  constraints hold to the solve tolerance at every step; the reported acceleration
  residual belongs to the opening half kick, a first-order estimate, so it falls at
  order 1.  RATTLE needs a constant mass matrix: for a system whose :math:`M` varies
  it is recorded as not applicable, with the reason, rather than run.

Floors.  An error at the level of a solve tolerance or of rounding says nothing about
the step.  Each quantity therefore carries a floor -- ten times the bound on
:math:`|\Phi|` that the Newton tolerance guarantees for the position residual (``atol``,
or the relative rule's per-row bounds), and 1000 times machine epsilon
times the size of the terms that cancel for the others (:math:`|J_c||v|`,
:math:`|\gamma|`, the largest energy or work term) -- and an order is reported (not NaN)
only when both errors it compares lie above the floor.
"""

import itertools
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .. import _validate
from ..errors import ConvergenceError
from .constrained import CONSTRAINED_METHODS, simulate_constrained
from .stabilization import _POSITION_RTOL, Tolerance

__all__ = ["QUANTITIES", "MethodStudy", "StepSizeStudy", "step_size_study"]

#: Multiple of machine epsilon (times the size of the cancelling terms) below which a
#: residual counts as rounding, not as discretization error.
_ROUNDOFF_FACTOR = 1e3

#: The residuals a study reports, in table order.
QUANTITIES = ("position", "velocity", "acceleration", "energy")

#: Options passed through to :func:`~geomotion.integrators.simulate_constrained`.
_OPTIONS = (
    "u",
    "B",
    "other_tau",
    "damping",
    "gravity",
    "alpha",
    "beta",
    "atol",
    "rtol",
    "length_scale",
    "max_iter",
)

#: The message with which simulate_constrained refuses RATTLE for a varying mass matrix.
_VARYING_MASS = "system: method 'rattle' needs a constant mass matrix"

_LABELS = {
    "position": "max|Phi|",
    "velocity": "max|J v|",
    "acceleration": "max|J a+gamma|",
    "energy": "max|dE bal.| (J)",
}


def _frozen(array):
    array = np.array(array, dtype=float)
    array.flags.writeable = False
    return array


def observed_orders(dt, errors, floor=0.0):
    r"""Observed orders :math:`\log(e_k/e_{k+1})/\log(\Delta t_k/\Delta t_{k+1})`.

    Parameters
    ----------
    dt : (K,) array_like
        Step sizes, s, strictly decreasing.
    errors : (K,) array_like
        Errors at those steps.
    floor : float
        Errors at or below it (rounding, solve tolerances) give NaN orders.

    Returns
    -------
    (K - 1,) ndarray
        The orders; NaN where an error is at or below ``floor``, zero or not finite.
    """
    dt, errors = np.asarray(dt, dtype=float), np.asarray(errors, dtype=float)
    usable = np.isfinite(errors) & (errors > floor) & (errors > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        orders = np.log(errors[:-1] / errors[1:]) / np.log(dt[:-1] / dt[1:])
    return np.where(usable[:-1] & usable[1:], orders, np.nan)


@dataclass(frozen=True, eq=False)
class MethodStudy:
    r"""One method's residuals over the step sizes of a :class:`~geomotion.integrators.StepSizeStudy`.

    Attributes
    ----------
    method : str
        ``"projection"``, ``"baumgarte"`` or ``"rattle"``.
    applicable : bool
        False when the method cannot integrate the system (RATTLE with a varying mass
        matrix); every array is then NaN.
    reason : str
        Why the method is not applicable ('' when it is).
    dt : (K,) ndarray
        Step sizes, s, from coarse to fine.
    position, velocity, acceleration, energy : (K,) ndarray
        Largest :math:`|\Phi|`, :math:`|J_cv|`, :math:`|J_ca + \gamma|` and energy-balance
        residual (J) over the run (all states and batch members) at each step size.
    floors : mapping of str to float
        The floor of each quantity (largest over the step sizes): errors at or below
        it are rounding or solve tolerance, not discretization error.
    orders : mapping of str to (K - 1,) ndarray
        Observed orders of each quantity between successive step sizes; NaN where an
        error is at or below its floor.
    """

    method: str
    applicable: bool
    reason: str
    dt: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    energy: np.ndarray
    floors: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), kw_only=True)
    orders: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), kw_only=True)

    def residual(self, quantity):
        """The (K,) array of ``quantity``, one of ``QUANTITIES``.

        Parameters
        ----------
        quantity : {"position", "velocity", "acceleration", "energy"}

        Returns
        -------
        (K,) ndarray

        Raises
        ------
        ValueError
            For any other name.
        """
        if quantity not in QUANTITIES:
            raise ValueError(f"quantity: expected one of {QUANTITIES}, got {quantity!r}")
        return getattr(self, quantity)


@dataclass(frozen=True, eq=False)
class StepSizeStudy:
    r"""Result of :func:`~geomotion.integrators.step_size_study`: residuals of each method at each step size.

    Index it by method name (``study["rattle"]``) for a :class:`~geomotion.integrators.MethodStudy`;
    ``str(study)`` (or ``table()``) is a readable table.

    Attributes
    ----------
    duration : float
        Simulated time, s.
    steps : tuple of int
        Step counts, increasing.
    dt : (K,) ndarray
        Step sizes ``duration / steps``, s.
    methods : tuple of str
        The methods studied, in the order asked for.
    results : tuple of MethodStudy
        One per method, same order.
    """

    duration: float
    steps: tuple
    dt: np.ndarray
    methods: tuple
    results: tuple

    def __getitem__(self, method):
        for result in self.results:
            if result.method == method:
                return result
        raise KeyError(f"method {method!r} is not part of this study (studied: {self.methods})")

    def table(self, *, format="text"):
        """The study as a table: fixed-width text, or Markdown for a rendered page.

        Each cell holds the largest residual over the run with, in parentheses, the
        observed order against the previous step size.  A residual at or below its
        floor is printed as ``at floor``: its digits are rounding or solve tolerance
        (and would differ from one machine to the next), not discretization error.

        Parameters
        ----------
        format : {"text", "markdown"}, optional, keyword only
            ``"text"`` (default; also ``str(study)``) aligns columns with spaces;
            ``"markdown"`` writes a pipe table, which a notebook shows with
            ``IPython.display.Markdown`` and which fits the page as an HTML table.

        Returns
        -------
        str

        Raises
        ------
        ValueError
            If ``format`` is neither "text" nor "markdown".
        """
        if format not in ("text", "markdown"):
            raise ValueError(f"format: expected 'text' or 'markdown', got {format!r}")
        first = (
            f"Step-size study over {self.duration:g} s; steps "
            f"{', '.join(str(n) for n in self.steps)}"
        )
        labels = ["method", "steps", "dt (s)"] + [_LABELS[name] for name in QUANTITIES]
        rows = []  # each a list of cell texts; a method that does not apply: two cells
        for result in self.results:
            if not result.applicable:
                rows.append([result.method, f"not applicable: {result.reason}"])
                continue
            for k, (n, dt) in enumerate(zip(self.steps, self.dt)):
                row = [result.method if k == 0 else "", f"{n:d}", f"{dt:.3g}"]
                for name in QUANTITIES:
                    value = result.residual(name)[k]
                    if value <= result.floors[name]:
                        row.append("at floor")  # rounding or solve tolerance: no digits
                    else:
                        order = "" if k == 0 else _order_text(result.orders[name][k - 1])
                        row.append(f"{value:.2e}{order}")
                rows.append(row)
        note = (
            "In parentheses: observed order against the previous step size ('(-)': "
            "not measurable).\n'at floor': at or below the rounding or solve-tolerance "
            "floor, which says nothing about the step."
        )
        if format == "markdown":
            escaped = [label.replace("|", "\\|") for label in labels]  # not a cell border
            lines = [first + ".", "", "| " + " | ".join(escaped) + " |"]
            lines.append("|" + "|".join([":--"] + ["--:"] * (len(labels) - 1)) + "|")
            for row in rows:
                cells = row if len(row) == len(labels) else row + [""] * (len(labels) - 2)
                lines.append("| " + " | ".join(cells) + " |")
            return "\n".join(lines + ["", note.replace("\n", " ")])
        widths = [11, 6, 8] + [18] * len(QUANTITIES)
        header = f"{labels[0]:<11}" + "".join(f"{x:>{w}}" for x, w in zip(labels[1:], widths[1:]))
        lines = [first, header, "-" * len(header)]
        for row in rows:
            if len(row) == 2:
                lines.append(f"{row[0]:<11} {row[1]}")
                continue
            lines.append(
                f"{row[0]:<11}" + "".join(f"{x:>{w}}" for x, w in zip(row[1:], widths[1:]))
            )
        lines.append(note)
        return "\n".join(lines)

    def __str__(self):
        return self.table()


def _order_text(order):
    return " (-)" if np.isnan(order) else f" ({order:.2f})"


def _steps(steps):
    try:
        counts = tuple(steps)
    except TypeError as error:
        raise ValueError(
            f"steps: expected a sequence of increasing step counts, got {steps!r}"
        ) from error
    if not counts:
        raise ValueError("steps: expected at least one step count, got an empty sequence")
    counts = tuple(_validate.count(n, "steps") for n in counts)
    if any(b <= a for a, b in itertools.pairwise(counts)):
        raise ValueError(
            f"steps: expected strictly increasing step counts (successively "
            f"smaller steps), got {counts!r}"
        )
    return tuple(int(n) for n in counts)


def _methods(methods):
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    if not methods:
        raise ValueError(f"methods: expected at least one of {CONSTRAINED_METHODS}, got none")
    for method in methods:
        if method not in CONSTRAINED_METHODS:
            raise ValueError(f"methods: expected names from {CONSTRAINED_METHODS}, got {method!r}")
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods: expected each method once, got {methods!r}")
    return methods


def _norms(rows):
    return np.sqrt(np.einsum("...i,...i->...", rows, rows))


def _floors(trajectory, constraint, tolerance):
    """Rounding / tolerance floors of the four residuals of one run."""
    eps = np.finfo(float).eps
    J = np.asarray(constraint.jacobian(trajectory.q), dtype=float)
    jacobian_size = np.sqrt(np.einsum("...ij,...ij->...", J, J))
    gamma = np.asarray(constraint.acceleration_bias(trajectory.q, trajectory.v), dtype=float)
    terms = [
        trajectory.kinetic,
        trajectory.potential,
        trajectory.input_work,
        trajectory.other_work,
        trajectory.dissipated,
    ]
    energy_size = sum(np.abs(term).max() for term in terms)
    return {
        "position": 10.0 * tolerance.at(trajectory.q[0]).floor(trajectory.q, J),
        "velocity": _ROUNDOFF_FACTOR * eps * float((jacobian_size * _norms(trajectory.v)).max()),
        "acceleration": _ROUNDOFF_FACTOR * eps * float(_norms(gamma).max()),
        "energy": _ROUNDOFF_FACTOR * eps * float(energy_size),
    }


def _not_applicable(method, reason, dt):
    nan = _frozen(np.full(dt.shape, np.nan))
    return MethodStudy(
        method,
        False,
        reason,
        _frozen(dt),
        nan,
        nan,
        nan,
        nan,
        floors=MappingProxyType(dict.fromkeys(QUANTITIES, np.nan)),
        orders=MappingProxyType(
            {name: _frozen(np.full(dt.size - 1, np.nan)) for name in QUANTITIES}
        ),
    )


def step_size_study(
    system,
    constraint,
    q0,
    v0,
    duration,
    steps,
    *,
    methods=("baumgarte", "projection", "rattle"),
    **options,
):
    r"""Run :func:`~geomotion.integrators.simulate_constrained` at smaller and smaller steps; report orders.

    For each method and each step count :math:`N` in ``steps`` the system is integrated
    over ``duration`` with :math:`\Delta t = T/N`, and the largest position, velocity,
    acceleration and energy-balance residuals of the run are kept (see the module
    documentation for what each method should show, and for the floors below which an
    error is rounding).  Nothing is re-implemented: every number is read off a
    :class:`~geomotion.integrators.ConstrainedTrajectory`.

    Parameters
    ----------
    system : tree.Tree or MechanicalSystem
        As for :func:`~geomotion.integrators.simulate_constrained`.
    constraint : constraint object
        As for :func:`~geomotion.integrators.simulate_constrained`.
    q0, v0 : (..., n) array_like
        Initial state (projected onto the constraint by ``"projection"`` and
        ``"rattle"``, used as given by ``"baumgarte"``).
    duration : float
        Simulated time :math:`T` > 0, s, the same for every run.
    steps : sequence of int
        Step counts, positive and strictly increasing (so the steps shrink), at least one.
    methods : sequence of str, optional
        Any of ``"baumgarte"``, ``"projection"``, ``"rattle"``, each once; default all
        three in that order.
    **options
        Passed to :func:`~geomotion.integrators.simulate_constrained`: ``u``, ``B``, ``other_tau``,
        ``damping``, ``gravity``, ``atol``, ``rtol``, ``length_scale``, ``max_iter``, and
        the Baumgarte gains
        ``alpha``, ``beta`` (1/s; required when ``"baumgarte"`` is studied, given to
        that method only).

    Returns
    -------
    StepSizeStudy
        The residuals of every method at every step size, and their observed orders.

    Raises
    ------
    geomotion.errors.ConvergenceError
        When a run's Newton projection or RATTLE solve does not converge; the message
        names the method and the step count.
    ValueError
        Naming the argument: ``steps`` empty, not positive integers or not strictly
        increasing; ``duration`` not positive and finite; an unknown or repeated
        method; an unknown option; Baumgarte gains missing although ``"baumgarte"`` is
        studied; any error of :func:`~geomotion.integrators.simulate_constrained`.
        RATTLE on a system with a varying mass matrix is not an error: it is recorded
        as not applicable.

    Examples
    --------
    RATTLE on a pendulum (a 2 kg particle on the unit circle, from the bottom at 1 m/s):
    halving the step quarters the energy-balance residual, order 2.

    >>> import numpy as np
    >>> from geomotion import constraints, integrators
    >>> m, g = 2.0, 9.81
    >>> particle = integrators.MechanicalSystem(
    ...     mass_matrix=lambda q: np.broadcast_to(m * np.eye(2), q.shape[:-1] + (2, 2)),
    ...     bias=lambda q, v: np.broadcast_to([0.0, m * g], q.shape),
    ...     potential=lambda q: m * g * q[..., 1])
    >>> circle = constraints.FunctionConstraint(  # Phi = (|q|^2 - 1) / 2: the unit circle
    ...     residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - 1.0),
    ...     jacobian=lambda q: q[..., None, :],
    ...     acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True))
    >>> study = integrators.step_size_study(particle, circle, [0.0, -1.0], [1.0, 0.0],
    ...                                     duration=0.2, steps=(4, 8), methods=("rattle",))
    >>> study.dt  # s
    array([0.05 , 0.025])
    >>> float(study["rattle"].orders["energy"][0].round(1))
    2.0
    """
    counts = _steps(steps)
    methods = _methods(methods)
    duration_array = np.asarray(duration, dtype=float) if np.isscalar(duration) else None
    if duration_array is None or not np.isfinite(duration_array) or duration_array <= 0:
        raise ValueError(f"duration: expected a positive, finite time in s, got {duration!r}")
    duration = float(duration_array)
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ValueError(
            f"{unknown[0]}: not an option of simulate_constrained; expected some of {_OPTIONS}"
        )
    gains = {name: options.pop(name) for name in ("alpha", "beta") if name in options}
    if "baumgarte" in methods and len(gains) < 2:
        raise ValueError(
            "alpha, beta: studying method 'baumgarte' needs both gains (1/s); "
            "pass alpha=..., beta=... or leave 'baumgarte' out of methods"
        )
    tolerance = Tolerance(
        options.get("atol"), options.get("rtol", _POSITION_RTOL), options.get("length_scale")
    )
    dt = np.array([duration / n for n in counts])

    results = []
    for method in methods:
        extra = gains if method == "baumgarte" else {}
        values = {name: [] for name in QUANTITIES}
        floors = dict.fromkeys(QUANTITIES, 0.0)
        reason = ""
        for n, step in zip(counts, dt):
            try:
                trajectory = simulate_constrained(
                    system, constraint, q0, v0, step, n, method=method, **options, **extra
                )
            except ConvergenceError as error:
                raise ConvergenceError(
                    f"steps: method {method!r} with {n} steps (dt = {step:.6g} s): "
                    f"{error.args[0].split(': residual')[0]}",
                    residual=error.residual,
                    tolerance=error.tolerance,
                    iterations=error.iterations,
                    suggestion=error.suggestion,
                ) from error
            except ValueError as error:
                if method == "rattle" and str(error).startswith(_VARYING_MASS):
                    reason = f"the mass matrix varies along the motion ({error})"
                    break
                raise
            values["position"].append(float(np.max(trajectory.position_residual)))
            values["velocity"].append(float(np.max(trajectory.velocity_residual)))
            values["acceleration"].append(float(np.max(trajectory.acceleration_residual)))
            values["energy"].append(float(np.max(np.abs(trajectory.energy_residual))))
            for name, value in _floors(trajectory, constraint, tolerance).items():
                floors[name] = max(floors[name], value)
        if reason:
            results.append(_not_applicable(method, reason, dt))
            continue
        orders = {
            name: _frozen(observed_orders(dt, values[name], floors[name])) for name in QUANTITIES
        }
        results.append(
            MethodStudy(
                method,
                True,
                "",
                _frozen(dt),
                *(_frozen(values[name]) for name in QUANTITIES),
                floors=MappingProxyType(floors),
                orders=MappingProxyType(orders),
            )
        )
    return StepSizeStudy(duration, counts, _frozen(dt), methods, tuple(results))
