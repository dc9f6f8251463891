r"""The onsets of the swing's torque generators that maximise clubhead speed at a real
impact: :func:`optimise_onsets` -> :class:`TimingOptimum`, the optimum and its certificate.
The generators are :mod:`geomotion.models._generators`' and the runs
:func:`geomotion.models.simulate_downswing`'s.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from scipy import optimize

from .. import _validate
from ..errors import ConvergenceError
from ._downswing import simulate_downswing
from ._generators import swing_generators
from ._impact import Impact, ball_at_address
from ._shared import frozen
from .swing import TOP_RANGES, SwingPlaneGolfer

__all__ = ["TimingOptimum", "optimise_onsets", "ReachBrackets", "bracket_reaching"]


@dataclass(frozen=True, eq=False)
class TimingOptimum:
    r"""The onsets that maximise the clubhead speed at impact (:func:`optimise_onsets`).

    Attributes
    ----------
    onset : (3,) ndarray
        Hub, shoulder and wrist onsets, s, the hub's at 0 (the wrist's is 0 and unused
        when the wrist is off).
    impact : Impact
        The impact of the optimal swing (``downswing.impact``).
    downswing : Downswing
        The optimal swing, its clock starting at the earliest onset.
    generators : SwingGenerators
        Its generators, on its clock (onsets ``onset - onset.min()``).
    speed : float
        Clubhead speed at that impact, m/s.
    multiplier : float
        :math:`\lambda` of the reach constraint, (m/s)/m: the speed gained per metre the
        ball's line could move up the plane.
    kkt_residual : float or None
        :math:`\|\nabla s - \lambda\nabla m\|` on the onsets off their bounds, over
        :math:`\|\nabla s\|` (dimensionless); None at a kink, where the speed has no
        gradient.
    wrist_onset_arm_angle : float or None
        The lead arm's angle below the horizontal when the wrist generator switches on,
        rad (Sprigings & Neal's measure of the wrist's timing; linear between the run's
        steps); None without the wrist.
    tangent_slope : float or None
        :math:`\|\nabla s - \lambda\nabla m\|`, (m/s)/s: the speed's slope along the
        constraint (zero at an exact optimum); an onset error of 1 ms costs at most this
        many mm/s at first order.  None at a kink.
    gradient_error : float or None
        Largest difference between the central-difference gradients at steps h and h/2,
        over the gradient's norm: their truncation error.  None at a kink.
    kink : tuple of str or None
        At a kink optimum, the two generators that switch on together (for example
        ``("hub", "wrist")``): the swing starts with whichever switches on first, so the
        speed is continuous but not differentiable where two of them tie for first.
        None at a smooth optimum.
    neighbour_slopes : (k,) ndarray
        The speed's slope leaving the optimum along the constraint, (m/s)/s: from the
        optimum to each reaching swing 1 ms away along the constraint's tangent (k = 2,
        or 1 where a bound cuts one side off).  Every one is negative at a local
        maximum; at a kink they are the one-sided derivatives, and certify it.
    start_onsets, start_speeds : ndarray
        Each start's optimum (rows) and its speed, m/s: the multi-start check (without
        the wrist: every root found on the grid).
    ball : (2,) ndarray
        The ball the swings reach, m.
    options : mapping
        The generator keyword arguments the optimum was found with (read-only; empty for
        the defaults), for :func:`geomotion.models.swing_generators`.
    top : mapping
        The top-of-backswing posture the swings start from, as keyword arguments of
        ``SwingPlaneGolfer.top_of_backswing`` (read-only; empty for the default posture).
    grid_speed : float or None
        The fastest reaching swing the 20 ms onset grid brackets (speed interpolated
        linearly between grid swings), m/s; the optimum must not be slower than it by
        more than 0.1 m/s.  None without the wrist.
    """

    onset: np.ndarray
    impact: Impact
    downswing: object
    generators: object
    speed: float
    multiplier: float
    kkt_residual: float | None
    wrist_onset_arm_angle: float | None
    tangent_slope: float | None
    gradient_error: float | None
    kink: tuple | None
    neighbour_slopes: np.ndarray
    start_onsets: np.ndarray
    start_speeds: np.ndarray
    ball: np.ndarray
    options: object
    top: object
    grid_speed: float | None


#: Bounds of the shoulder and wrist onsets relative to the hub's, s (a modelling choice:
#: from 0.1 s before the hub to 0.3 s after, wider than the downswing).
ONSET_BOUNDS = (-0.1, 0.3)
_STEP = 2e-4  # s, central-difference step of the onset gradients


class _Swings:
    """Speed and miss at impact for rows of onsets, one batched run per call, cached."""

    def __init__(self, golfer, wrist, options, ball, dt, q0=None):
        self.golfer, self.wrist, self.options, self.ball, self.dt = golfer, wrist, options, ball, dt
        self.q0 = q0
        self.cache = {}

    def swing(self, X):
        """The :class:`Downswing` of rows X of (shoulder[, wrist]) onsets, s, on a clock that
        starts at each row's earliest onset."""
        X = np.atleast_2d(X)
        onset = np.zeros((len(X), 3))
        onset[:, 1 : 1 + X.shape[1]] = X
        onset -= onset.min(axis=1, keepdims=True)
        active = (1.0, 1.0, 1.0 if self.wrist else 0.0)
        golfer = self.golfer.repeated(len(X))
        generators = swing_generators(onset, active=active, **self.options)
        ball = np.broadcast_to(self.ball, (len(X), 2))
        return simulate_downswing(golfer, generators, ball=ball, q0=self.q0, dt=self.dt)

    def run(self, X):
        """The :class:`Impact` of rows X of onsets."""
        return self.swing(X).impact

    def speed_and_miss(self, X):
        """Speed (0 without a crossing) and miss (1 m without one) of rows of onsets."""
        impact = self.run(X)
        return np.where(impact.crossed, impact.speed, 0.0), np.where(
            impact.crossed, impact.miss, 1.0
        )

    def gradients(self, Y, h=_STEP):
        """Speed, miss and their central-difference gradients (rows) at each row of Y, in
        one batched run."""
        k, n = Y.shape
        step = h * np.eye(n)
        speed, miss = self.speed_and_miss(
            np.vstack([Y, (Y[:, None] + step).reshape(-1, n), (Y[:, None] - step).reshape(-1, n)])
        )
        grad = lambda f: ((f[k : k + k * n] - f[k + k * n :]) / (2 * h)).reshape(k, n)  # noqa: E731
        return speed[:k], miss[:k], grad(speed), grad(miss)

    def values_and_gradients(self, x, h=_STEP):
        """:meth:`gradients` at one point x, cached."""
        key = (tuple(x), h)
        if key not in self.cache:
            speed, miss, ds, dm = self.gradients(np.asarray(x, dtype=float)[None, :], h)
            self.cache[key] = (speed[0], miss[0], ds[0], dm[0])
        return self.cache[key]


#: The onset grid that brackets the reaching swings (20 ms apart over the bounds), s.
_GRID = np.linspace(*ONSET_BOUNDS, 21)


@dataclass(frozen=True, eq=False)
class ReachBrackets:
    """Reaching swings bracketed on a grid of runs along its last axis
    (:func:`bracket_reaching`).

    Attributes
    ----------
    speed : (..., k - 1) ndarray
        Between grid points j and j + 1 where the miss changes sign and both runs
        crossed the ball's line: the speed interpolated linearly to the miss's zero, m/s;
        -inf where no reaching swing is bracketed.
    position : (..., k - 1) ndarray
        The last axis's value interpolated the same way (units of ``values``); the
        left grid value where nothing is bracketed.
    fastest : float
        The largest bracketed speed, m/s (-inf if none).
    """

    speed: np.ndarray
    position: np.ndarray
    fastest: float


def bracket_reaching(impact, values):
    """The reaching swings a grid of runs brackets along its last axis.

    Between neighbouring runs j and j + 1 along the last axis whose clubheads both
    crossed the ball's line and whose misses have opposite signs, a swing reaching the
    ball lies in between; its speed and its place on the axis are interpolated linearly
    to the miss's zero.

    Parameters
    ----------
    impact : Impact
        Of a batch of runs of shape (..., k) (:func:`geomotion.models.simulate_downswing`).
    values : (k,) array_like
        The grid's values along the last axis (an onset, s; an excitation level; ...).

    Returns
    -------
    ReachBrackets

    Raises
    ------
    TypeError
        If ``impact`` is not an Impact.
    ValueError
        If ``values`` does not match the last axis.
    """
    if not isinstance(impact, Impact):
        raise TypeError(f"impact: expected an Impact, got {type(impact).__name__}")
    speed = np.where(impact.crossed, impact.speed, 0.0)
    miss = np.where(impact.crossed, impact.miss, 1.0)
    values = _validate.vector(values, "values", speed.shape[-1] if speed.ndim else 0)
    crossed = impact.crossed[..., :-1] & impact.crossed[..., 1:]
    bracket = (miss[..., :-1] * miss[..., 1:] < 0) & crossed
    part = np.where(
        bracket, miss[..., :-1] / np.where(bracket, miss[..., :-1] - miss[..., 1:], 1.0), 0.0
    )
    speeds = np.where(bracket, speed[..., :-1] + part * (speed[..., 1:] - speed[..., :-1]), -np.inf)
    position = values[:-1] + part * np.diff(values)
    fastest = float(speeds.max()) if speeds.size else -np.inf
    return ReachBrackets(speed=frozen(speeds), position=frozen(position), fastest=fastest)


def _grid_starts(swings, count=1):
    """Reaching swings bracketed on the grid along the wrist onset (:func:`bracket_reaching`):
    the ``count`` fastest of them from distinct shoulder onsets (rows, fastest first; none
    if the grid brackets none) and the fastest bracketed speed."""
    S, W = np.meshgrid(_GRID, _GRID, indexing="ij")
    impact = swings.run(np.column_stack([S.ravel(), W.ravel()]))
    reach = bracket_reaching(impact.reshaped(S.shape), _GRID)
    best = np.argmax(reach.speed, axis=1)  # per shoulder onset
    rows = np.arange(len(_GRID))
    order = [
        i for i in np.argsort(-reach.speed[rows, best]) if np.isfinite(reach.speed[i, best[i]])
    ]
    starts = np.array([[_GRID[i], reach.position[i, best[i]]] for i in order[:count]])
    return starts.reshape(-1, 2), reach.fastest


def _slsqp_optima(swings, starts):
    """SLSQP from each start: the optima that reach the ball (speed, onsets), and the misses."""
    scale_s, scale_m = 50.0, 1.0  # m/s and m: the objective's and constraint's units
    fun = lambda x: -swings.values_and_gradients(x)[0] / scale_s  # noqa: E731
    jac = lambda x: -swings.values_and_gradients(x)[2] / scale_s  # noqa: E731
    constraint = {
        "type": "eq",
        "fun": lambda x: np.atleast_1d(swings.values_and_gradients(x)[1] / scale_m),
        "jac": lambda x: swings.values_and_gradients(x)[3][None, :] / scale_m,
    }
    found, misses = [], []
    for x0 in starts:
        result = optimize.minimize(
            fun,
            x0,
            jac=jac,
            method="SLSQP",
            bounds=[ONSET_BOUNDS] * starts.shape[1],
            constraints=[constraint],
            options={"ftol": 1e-4, "maxiter": 20},  # 5e-3 m/s: above the speed's noise
        )
        speed, miss = swings.values_and_gradients(result.x)[:2]
        misses.append(abs(miss))
        if abs(miss) <= 1e-4:
            found.append((speed, result.x))
    return found, misses


def _stationarity(swings, x):
    """Speed, its gradient, the miss's gradient, the multiplier, the speed's slope along the
    constraint and the KKT residual at onsets ``x`` (see :class:`TimingOptimum`)."""
    speed, _, ds, dm = swings.values_and_gradients(x)
    free = (x > ONSET_BOUNDS[0] + 1e-6) & (x < ONSET_BOUNDS[1] - 1e-6)
    multiplier = float(ds[free] @ dm[free] / (dm[free] @ dm[free])) if free.any() else 0.0
    slope = float(np.linalg.norm((ds - multiplier * dm)[free]))
    return speed, ds, dm, multiplier, slope, slope / float(np.linalg.norm(ds))


#: The generators in onset order of the rows (hub, shoulder, wrist).
GENERATORS = ("hub", "shoulder", "wrist")
_NEIGHBOUR = 1e-3  # s, from the optimum to its neighbours along the constraint
#: The largest slope of the speed along the constraint a certified optimum may keep,
#: (m/s)/s: 1 ms along the constraint gains at most 1 mm/s (far below every comparison's
#: resolution, and above the speed's noise of about 1e-6 m/s over a 1 ms step).
_SLOPE = 1.0
_ONSET_ROWS = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # onset_j = row_j . (t_s, t_w)


def _first(Y):
    """Index into GENERATORS of the generator that switches on first, per row of onsets."""
    return np.argmin(np.atleast_2d(Y) @ _ONSET_ROWS.T, axis=1)


def _onto_constraint(swings, Y, along=None):
    """Rows Y of (shoulder, wrist) onsets moved onto the reach constraint m = 0 by Newton's
    method, along the miss's gradient (or along the unit vector ``along``).  Returns the
    rows, their speeds and their misses (a row that never crosses keeps a large miss)."""
    for _ in range(6):
        speed, miss, _, dm = swings.gradients(Y)
        if np.all(np.abs(miss) <= 1e-9):
            break
        direction = dm if along is None else np.broadcast_to(along, dm.shape)
        Y = Y - (miss / np.einsum("ij,ij->i", dm, direction))[:, None] * direction
    else:
        speed, miss, _, _ = swings.gradients(Y)
    return Y, speed, miss


def _neighbours(swings, x, dm):
    """The reaching swings 1 ms either side of x along the constraint's tangent (the
    normal to the miss's gradient dm), inside the bounds: their onsets (rows) and speeds."""
    tangent = np.array([dm[1], -dm[0]]) / np.linalg.norm(dm)
    Y, speed, miss = _onto_constraint(swings, x + np.outer([-1.0, 1.0], _NEIGHBOUR * tangent))
    keep = (np.abs(miss) <= 1e-4) & np.all((Y >= ONSET_BOUNDS[0]) & (Y <= ONSET_BOUNDS[1]), 1)
    return Y[keep], speed[keep]


def _kink_between(Y):
    """The two generators (indices into GENERATORS, ascending) that switch on first at the
    two neighbours Y if they differ (a kink lies between them), else None."""
    firsts = _first(Y)
    return tuple(sorted(firsts.tolist())) if len(Y) == 2 and firsts[0] != firsts[1] else None


def _kink_line(pair):
    """Unit direction of the line, in (shoulder, wrist) onsets, where the generators
    ``pair`` switch on together (it passes through the origin)."""
    normal = _ONSET_ROWS[pair[0]] - _ONSET_ROWS[pair[1]]
    return np.array([normal[1], -normal[0]]) / np.linalg.norm(normal)


def _onto_kink(swings, x, pair):
    """The reaching swing nearest x on the line where the generators ``pair`` switch on
    together: x projected onto the line, then moved along it onto the reach constraint."""
    along = _kink_line(pair)
    return _onto_constraint(swings, ((x @ along) * along)[None, :], along=along)[0][0]


def _parabola_step(swings, x, speed, Y, speeds):
    """Newton's step along the constraint: the vertex of the parabola through the speeds
    of x and its two neighbours Y (over their tangent coordinate), moved onto the
    constraint (the faster neighbour if the parabola is not concave)."""
    tangent = (Y[1] - Y[0]) / np.linalg.norm(Y[1] - Y[0])
    tau = np.array([(Y[0] - x) @ tangent, 0.0, (Y[1] - x) @ tangent])
    a, b, _ = np.polyfit(tau, [speeds[0], speed, speeds[1]], 2)
    if a >= 0:  # no vertex: the faster neighbour, if either is faster
        return Y[np.argmax(speeds)] if max(speeds) > speed else x
    step = np.clip(-b / (2 * a), 2 * tau[0], 2 * tau[2])
    return _onto_constraint(swings, (x + step * tangent)[None, :])[0][0]


def _reaching_onsets(swings):
    """Every shoulder onset whose swing reaches the ball: a 5 ms grid over the bounds
    brackets the roots of the miss, Brent's method refines each (speed, onset), and the
    misses of the refined roots."""
    grid = np.linspace(*ONSET_BOUNDS, 81)
    miss = swings.speed_and_miss(grid[:, None])[1]
    found, misses = [], [float(np.min(np.abs(miss)))]
    for k in np.nonzero(miss[:-1] * miss[1:] < 0)[0]:
        root = optimize.brentq(
            lambda s: swings.speed_and_miss([[s]])[1][0], grid[k], grid[k + 1], xtol=1e-9
        )
        x = np.array([float(np.squeeze(root))])
        speed, miss_x = swings.values_and_gradients(x)[:2]
        misses.append(abs(miss_x))
        if abs(miss_x) <= 1e-4:  # a jump in the miss (a crossing lost) is no root
            found.append((speed, x))
    return found, misses


def _settled(swings, x):
    """The optimum near the SLSQP answer x, the kink it sits on (or None), and its
    neighbours along the constraint (rows and speeds; None after a move onto a kink).

    x's neighbours along the constraint decide: if the generator that switches on first
    differs between them, x is moved onto that kink (the line where the two tie);
    otherwise Newton's steps along the constraint (at most two) settle x while the
    speed's slope along the constraint is above ``_SLOPE``."""
    for step in range(3):
        Y, speeds = _neighbours(swings, x, swings.values_and_gradients(x)[3])
        kink = _kink_between(Y)
        if kink is not None:
            return _onto_kink(swings, x, kink), kink, None
        if step == 2 or _stationarity(swings, x)[4] <= _SLOPE or len(Y) < 2:
            return x, None, (Y, speeds)
        x = _parabola_step(swings, x, swings.values_and_gradients(x)[0], Y, speeds)


def _certified(swings, x, grid_speed):
    """The certificate of the optimum x (fields of :class:`TimingOptimum`); raises
    ConvergenceError if it fails.

    Every optimum: it is no slower than the fastest swing the grid brackets (by
    0.1 m/s), and with the wrist no neighbour 1 ms away along the constraint is faster
    by more than ``_SLOPE`` x 1 ms.  At a smooth optimum the speed's slope along the
    constraint is below ``_SLOPE`` and the gradients at steps h and h/2 agree to 5e-2; at
    a kink (``kink``) no gradient exists and the neighbours must lie on both sides of
    it, so that their slopes are its one-sided derivatives.
    """
    wrist = len(x) == 2
    x, kink, neighbours = _settled(swings, x) if wrist else (x, None, None)
    speed, ds, dm, multiplier, slope, kkt = _stationarity(swings, x)
    checks = {"shortfall": (0.0 if grid_speed is None else grid_speed - speed, 0.1)}
    slopes = np.empty(0)
    if wrist:
        Y, speeds = _neighbours(swings, x, dm) if neighbours is None else neighbours
        slopes = (speeds - speed) / np.linalg.norm(Y - x, axis=1)
        checks["steepest neighbour slope"] = (max(slopes, default=np.inf), _SLOPE)
    if kink is None:
        ds_half = swings.values_and_gradients(x, _STEP / 2)[2]
        error = float(np.max(np.abs(ds - ds_half)) / np.linalg.norm(ds))
        checks |= {"slope along the constraint": (slope, _SLOPE), "gradient error": (error, 5e-2)}
    else:  # along the kink's line the speed and the miss are smooth
        along = _kink_line(kink)
        multiplier = float(ds @ along / (dm @ along))
        kkt = slope = error = None
        checks["kink crossed"] = (float(_kink_between(Y) != kink), 0.0)
    failed = [
        f"{name} {value:.2g} of {bound:g}"
        for name, (value, bound) in checks.items()
        if not value <= bound
    ]
    if failed:
        raise ConvergenceError(
            f"optimise_onsets at {x.tolist()} s: certificate ({', '.join(failed)})",
            residual=len(failed) + 1.0,
            tolerance=1.0,
            iterations=20,
            suggestion="other starts, or a smaller simulation step dt",
        )
    return {
        "onsets": x,
        "speed": float(speed),
        "multiplier": multiplier,
        "kkt_residual": kkt,
        "tangent_slope": slope,
        "gradient_error": error,
        "kink": None if kink is None else tuple(GENERATORS[k] for k in kink),
        "neighbour_slopes": frozen(slopes),
    }


def _top_posture(top):
    """``top`` checked: a dict of ``top_of_backswing`` keyword arguments (positive
    floats, rad)."""
    if top is None:
        return {}
    if not isinstance(top, Mapping):
        raise TypeError(f"top: expected a mapping or None, got {type(top).__name__}")
    unknown = set(top) - set(TOP_RANGES)
    if unknown:
        raise ValueError(f"top: expected keys among {sorted(TOP_RANGES)}, got {sorted(unknown)}")
    checked = {}
    for name, value in top.items():
        value = _validate.positive(value, f"top[{name!r}]")
        if np.ndim(value):
            raise ValueError(f"top[{name!r}]: expected one angle, got shape {np.shape(value)}")
        checked[name] = float(value)
    return checked


def optimise_onsets(golfer, *, wrist=True, ball=None, starts=None, top=None, dt=2e-3, **options):
    r"""The shoulder and wrist onsets (after the hub's) that maximise clubhead speed at impact.

    Equation of the book: :eq:`eq-ch3-onsets`.

    .. math:: \max_{t_s,\ t_w}\ s(t_s, t_w)\quad\text{subject to}\quad m(t_s, t_w) = 0,
              \quad t \in [-0.1, 0.3]\ \text{s}

    with :math:`s` the clubhead speed and :math:`m` the miss at impact
    (:func:`geomotion.models.simulate_downswing`).  With the wrist: a 21 x 21 grid of
    onsets 20 ms apart over the bounds (one batched run) brackets the reaching swings
    along the wrist onset; the fastest starts SLSQP (``scipy.optimize.minimize``), with
    gradients by central differences (step 0.2 ms, every perturbed run in one batched
    simulation).  The speed is continuous but has kinks where two generators tie for
    first (the swing starts with the first), so SLSQP's answer is then settled: moved
    onto the kink its neighbours along the constraint straddle, or else improved by at
    most two Newton steps along the constraint.  Without ``wrist`` the wrist generator
    is off, only :math:`t_s` is free and the one equality leaves a finite feasible set:
    every root of :math:`m` bracketed on a 5 ms grid over the bounds is refined by
    Brent's method (``scipy.optimize.brentq``), and the fastest is returned (a jump of
    :math:`m` where a crossing appears or vanishes is not a root).  Before returning,
    the best optimum is certified: the reach constraint holds to 0.1 mm; it is not
    slower than any reaching swing the grid brackets (by 0.1 m/s); with the wrist, no
    reaching swing 1 ms away along the constraint is faster by more than 1 mm/s; and
    at a smooth optimum the speed's slope along the constraint is below 1 (m/s)/s and
    the gradients agree with those at half the step to 5e-2 (relative: the speed's
    noise floor, about 1e-6 m/s from the located impact, over a 0.1 ms step reaches a
    few per cent of the gradient near some optima).  At a kink the neighbours must lie
    on both sides of it: their slopes are its one-sided derivatives.

    Parameters
    ----------
    golfer : SwingPlaneGolfer
        One parameter set.
    wrist : bool, keyword only
        Whether the wrist generator is active.
    ball : None or (2,) array_like, keyword only
        m; default :func:`ball_at_address`.
    starts : None or (k, 2) array_like, keyword only
        Starting onsets of SLSQP instead of the grid's best (with the wrist only; the grid
        is still run for the certificate), s; default None.
    top : None or mapping, keyword only
        The top-of-backswing posture the swings start from: keyword arguments of
        ``golfer.top_of_backswing`` (``hub_turn``, ``lead_arm_above_horizontal``,
        ``wrist_cock``, rad; ``TOP_RANGES`` states their ranges); default None, the
        stated posture.  A ``wrist_cock`` also moves the radial wrist stop (the
        generators' ``top_wrist_cock``) unless ``options`` set it.
    dt : float, keyword only
        Simulation step, s (default 2 ms: the default golfer's optimum moves by less
        than 0.1 ms and 1e-3 m/s when it is halved; ``tests/companion/test_swing_impact.py``).
    **options
        Keyword arguments of :func:`swing_generators` (generator parameters).

    Returns
    -------
    TimingOptimum

    Raises
    ------
    TypeError
        If ``golfer`` is not a SwingPlaneGolfer or ``wrist`` not a bool.
    ValueError
        If the golfer holds several parameter sets, ``starts`` has the wrong shape, or the
        ball lies beyond any clubhead position's distance from the hub axis.
    geomotion.ConvergenceError
        If no start converges to a swing that reaches the ball, or the best optimum fails
        its certificate (the message gives the residuals).
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if golfer.batch_shape != ():
        raise ValueError(f"golfer: expected one parameter set, got batch {golfer.batch_shape}")
    if not isinstance(wrist, bool):
        raise TypeError(f"wrist: expected a bool, got {type(wrist).__name__}")
    n = 2 if wrist else 1
    if starts is not None:
        starts = _validate.trailing_shape(np.atleast_2d(starts), "starts", (n,))
    ball = ball_at_address(golfer) if ball is None else _validate.vector(ball, "ball", 2)
    # farthest the head can be from the hub axis: the shoulder's offset plus the arm and
    # club in line (their length from the shoulder to the head at q = 0)
    straight = golfer.point(np.zeros(5), "clubhead") - golfer.point(np.zeros(5), "lead shoulder")
    reach = golfer.parameters["lengths"]["shoulder_width"] / 2 + np.linalg.norm(straight)
    if np.linalg.norm(ball) >= reach:
        raise ValueError(
            f"ball: expected within the clubhead's reach of the hub axis ({reach:.3f} m), "
            f"got {np.linalg.norm(ball):.3f} m from it"
        )
    top = _top_posture(top)
    if "wrist_cock" in top:
        options = {"top_wrist_cock": top["wrist_cock"], **options}
    q0 = golfer.top_of_backswing(**top)
    swings = _Swings(golfer, wrist, options, ball, dt, q0)
    grid_speed = None
    if wrist:
        grid_starts, grid_speed = _grid_starts(swings)
        starts = grid_starts if starts is None else starts
        found, misses = _slsqp_optima(swings, starts) if len(starts) else ([], [np.inf])
    else:
        found, misses = _reaching_onsets(swings)
    if not found:
        where = (
            "on the onset grid"
            if starts is None or not len(starts)
            else f"from starts {starts.tolist()} s"
        )
        raise ConvergenceError(
            f"optimise_onsets {where}: no swing reaching the ball (miss m)",
            residual=float(min(misses)),
            tolerance=1e-4,
            iterations=20,
            suggestion="other starts, or check that the ball is within the golfer's reach",
        )
    speeds = np.array([f[0] for f in found])
    onsets = np.array([f[1] for f in found])
    x = onsets[np.argmax(speeds)]
    certificate = _certified(swings, x, grid_speed)
    x = certificate.pop("onsets")
    onset = np.zeros(3)
    onset[1 : 1 + n] = x
    clock = onset - onset.min()  # the run starts at the earliest onset
    active = (1.0, 1.0, 1.0 if wrist else 0.0)
    generators = swing_generators(clock, active=active, **options)
    final = simulate_downswing(golfer, generators, ball=ball, q0=q0, dt=dt)
    arm_angle = None
    if wrist:
        run = final.trajectory
        arm = golfer.lead_arm_below_horizontal(run.q)
        arm_angle = float(np.interp(clock[2], run.t, arm))
    return TimingOptimum(
        onset=frozen(onset),
        impact=final.impact,
        downswing=final,
        generators=generators,
        wrist_onset_arm_angle=arm_angle,
        **certificate,
        start_onsets=frozen(onsets),
        start_speeds=frozen(speeds),
        ball=frozen(ball),
        options=MappingProxyType(dict(options)),
        top=MappingProxyType(top),
        grid_speed=grid_speed,
    )
