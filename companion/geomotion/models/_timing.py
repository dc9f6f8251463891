r"""The onsets of the swing's torque generators that maximise clubhead speed at a real
impact: :func:`optimise_onsets` -> :class:`TimingOptimum`, the optimum and its certificate.
The generators are :mod:`geomotion.models._generators`' and the runs
:func:`geomotion.models.simulate_downswing`'s.
"""

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from scipy import optimize

from .. import _validate
from ._downswing import simulate_downswing
from ._generators import swing_generators
from ._impact import IMPACT_BAND, Impact, ball_at_address, contact_band
from ._onset_certificate import (
    _SLOPE,
    _STEP,
    ONSET_BOUNDS,
    OnsetRefusal,
    _certified_band,
    _climb,
)
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
        ball's line could move down the plane (the miss grow); 0 inside the band.
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
        over the gradient's norm (inside the band: over the norm or 1 (m/s)/s, whichever
        is larger, since the gradient vanishes at an interior maximum): their truncation
        error.  None at a kink.
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
        The fastest reaching swing the 20 ms onset grid gives (bracketed on an edge of
        the band, speed interpolated linearly between grid swings, or a grid swing
        inside it), m/s; the optimum must not be slower than it by more than 0.1 m/s.
        None without the wrist.
    edge : float or None
        The miss of the band's edge the optimum sits on, m (+band or -band; 0 for point
        contact), None inside the band (the constraint inactive, ``multiplier`` 0).
    band : float
        The contact band's half-width the swings were held to, m.
    holding : Holding or None
        The holding activations at the top (None without ``hold``): ``holding.held``
        False where a generator cannot hold (it would have to pull the backswing's way).
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
    edge: float | None
    band: float
    holding: object


class _Swings:
    """Speed and miss at impact for rows of onsets, one batched run per call, cached.

    The miss is reported relative to ``offset`` (m): :meth:`shifted` gives the same swings
    measured from an edge of the contact band (the cache is shared)."""

    def __init__(self, golfer, wrist, options, ball, dt, q0=None, *, hold=True, band=0.0):
        self.golfer, self.wrist, self.options, self.ball, self.dt = golfer, wrist, options, ball, dt
        self.q0, self.hold, self.band, self.offset = q0, hold, band, 0.0
        self.cache = {}

    def shifted(self, offset):
        """The same swings with the miss measured from ``offset``, m."""
        other = copy.copy(self)
        other.offset = float(offset)
        return other

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
        return simulate_downswing(
            golfer, generators, ball=ball, q0=self.q0, dt=self.dt, hold=self.hold, band=self.band
        )

    def run(self, X):
        """The :class:`Impact` of rows X of onsets."""
        return self.swing(X).impact

    def speed_and_miss(self, X):
        """Speed (0 without a crossing) and miss from ``offset`` (1 m without a crossing)
        of rows of onsets."""
        impact = self.run(X)
        return np.where(impact.crossed, impact.speed, 0.0), np.where(
            impact.crossed, impact.miss - self.offset, 1.0
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
        key = (tuple(x), h, self.offset)
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


def bracket_reaching(impact, values, *, level=0.0):
    """The reaching swings a grid of runs brackets along its last axis.

    Between neighbouring runs j and j + 1 along the last axis whose clubheads both
    crossed the ball's line and whose misses minus ``level`` have opposite signs, a swing
    with miss ``level`` lies in between (reaching the ball at the face centre for level
    0, at an edge of the contact band for level +-band); its speed and its place on the
    axis are interpolated linearly to that miss.

    Parameters
    ----------
    impact : Impact
        Of a batch of runs of shape (..., k) (:func:`geomotion.models.simulate_downswing`).
    values : (k,) array_like
        The grid's values along the last axis (an onset, s; an excitation level; ...).
    level : float, keyword only
        The miss bracketed, m; default 0.

    Returns
    -------
    ReachBrackets

    Raises
    ------
    TypeError
        If ``impact`` is not an Impact.
    ValueError
        If ``values`` does not match the last axis or ``level`` is not one real number.
    """
    if not isinstance(impact, Impact):
        raise TypeError(f"impact: expected an Impact, got {type(impact).__name__}")
    level = _validate.real_array(level, "level")
    if level.ndim:
        raise ValueError(f"level: expected one miss in m, got shape {level.shape}")
    speed = np.where(impact.crossed, impact.speed, 0.0)
    miss = np.where(impact.crossed, impact.miss - level, 1.0)
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


def _grid_starts(swings, count=3):
    """The fastest swings within the contact band that the onset grid gives: bracketed on
    an edge (:func:`bracket_reaching` at miss +-band; at the face centre for point
    contact) or grid swings inside the band.  Returns the onsets of up to ``count`` of
    them, fastest first and at least one grid step apart (rows; none if the grid has
    none), the fastest's speed (-inf if none) and the grid's impacts (21 x 21)."""
    S, W = np.meshgrid(_GRID, _GRID, indexing="ij")
    impact = swings.run(np.column_stack([S.ravel(), W.ravel()])).reshaped(S.shape)
    band = swings.band
    speeds, onsets = [], []
    for level in {-band, band}:
        reach = bracket_reaching(impact, _GRID, level=level)
        i, j = np.nonzero(np.isfinite(reach.speed))
        speeds.append(reach.speed[i, j])
        onsets.append(np.column_stack([_GRID[i], reach.position[i, j]]))
    i, j = np.nonzero(impact.crossed & (np.abs(impact.miss) < band))
    speeds.append(impact.speed[i, j])
    onsets.append(np.column_stack([_GRID[i], _GRID[j]]))
    speeds, onsets = np.concatenate(speeds), np.concatenate(onsets)
    starts = []
    for k in np.argsort(-speeds, kind="stable"):
        if all(np.max(np.abs(onsets[k] - start)) >= _GRID[1] - _GRID[0] for start in starts):
            starts.append(onsets[k])
        if len(starts) == count:
            break
    fastest = float(speeds.max()) if speeds.size else -np.inf
    return np.array(starts).reshape(-1, 2), fastest, impact


def _lowest_pass(swings, impact):
    """The pass nearest the ball's centre: the five grid swings (``impact``, over
    ``_GRID`` x ``_GRID``) whose clubheads cross the ball's line with the smallest
    :math:`|m|`, each refined by zooming grids (9 x 9 over +-20 ms, then +-5, 1.25,
    0.31 and 0.08 ms around the five best so far; all in one batched run per level),
    stopping once a pass lies inside the band.  Returns its onsets and miss (m), or
    (None, inf) if no grid swing crosses."""
    S, W = np.meshgrid(_GRID, _GRID, indexing="ij")
    X = np.column_stack([S.ravel(), W.ravel()])
    distance = np.where(impact.crossed, np.abs(impact.miss), np.inf).ravel()
    miss = impact.miss.ravel()
    if not np.isfinite(distance).any():
        return None, np.inf
    offsets = np.linspace(-1.0, 1.0, 9)
    square = np.stack(np.meshgrid(offsets, offsets, indexing="ij"), -1).reshape(-1, 2)
    half = _GRID[1] - _GRID[0]
    for _ in range(5):
        best = np.argsort(distance, kind="stable")[:5]
        best = best[np.isfinite(distance[best])]
        if distance[best[0]] < swings.band:
            break
        Y = np.clip((X[best][:, None, :] + half * square).reshape(-1, 2), *ONSET_BOUNDS)
        found = swings.run(Y)
        X = np.vstack([X[best], Y])
        distance = np.concatenate(
            [distance[best], np.where(found.crossed, np.abs(found.miss), np.inf)]
        )
        miss = np.concatenate([miss[best], found.miss])
        half /= 4
    k = int(np.argmin(distance))
    return X[k], float(miss[k])


def _search_from_grid(swings, starts, impact):
    """SLSQP from the grid's starts in turn until one reaches the ball; if none does, from
    the lowest pass (:func:`_lowest_pass`) when it lies inside the band.  Returns the
    optima found (as :func:`_slsqp_optima`), the misses beyond the band and the lowest
    pass's miss (m; None if a grid start reached)."""
    misses = []
    for start in starts:
        found, beyond = _slsqp_optima(swings, start[None, :])
        misses += beyond
        if found:
            return found, misses, None
    onsets, lowest = _lowest_pass(swings, impact)
    misses.append(max(abs(lowest) - swings.band, 0.0))
    if abs(lowest) < swings.band:
        found, beyond = _slsqp_optima(swings, onsets[None, :])
        return found, misses + beyond, lowest
    return [], misses, lowest


#: SLSQP's unit of the onsets, s.  Its first step takes the identity for the Hessian of
#: the speed over 50 m/s: in seconds that is a curvature of 50 (m/s)/s^2, while the
#: speed's curvature along the reach constraint is 10^2-10^4 (m/s)/s^2, so the first step
#: ran 0.1-0.4 s to the bounds' corners, where the clubhead often never crosses the
#: ball's line (speed 0, miss 1 m, no gradient), and SLSQP either ended off the band or
#: stopped after a backtracked short step (a false convergence by ``ftol``).  In units of
#: 0.1 s the identity is a curvature of 5000 (m/s)/s^2: the first step is of the
#: optimum's own scale.  The unit of the second attempt only: the first keeps seconds,
#: so that every answer the earlier versions certified stays as it was, to the bit.
_SLSQP_UNIT = 0.1
#: SLSQP's ``ftol`` when it polishes an answer it stopped short of an optimum (5e-5 m/s).
#: Its own ``ftol`` of 1e-4 stops it once a step gains less than 5 mm/s; the certificate
#: wants the speed's slope below 1 (m/s)/s, within about 0.2 mm/s of the maximum (for the
#: curvature above), which the two Newton steps of the settling cannot always reach.
_POLISH_FTOL = 1e-6


def _slsqp_optima(swings, starts, *, repaired=True):
    """SLSQP from each start: the optima that reach the ball (speed, onsets), and the
    misses.  ``repaired``: over the onsets in units of ``_SLSQP_UNIT``, an answer that
    still climbs polished (``_POLISH_FTOL``); else over onsets in seconds, unpolished
    (the first attempt of :func:`optimise_onsets`, as its earlier versions searched)."""
    unit = _SLSQP_UNIT if repaired else 1.0
    scale_s, scale_m = 50.0, 1.0  # m/s and m: the objective's and constraint's units
    at = lambda y: swings.values_and_gradients(y * unit)  # noqa: E731
    fun = lambda y: -at(y)[0] / scale_s  # noqa: E731
    jac = lambda y: -at(y)[2] * unit / scale_s  # noqa: E731
    miss = lambda y: at(y)[1] / scale_m  # noqa: E731
    dmiss = lambda y: at(y)[3][None, :] * unit / scale_m  # noqa: E731
    band = swings.band / scale_m
    if band == 0.0:
        constraints = [{"type": "eq", "fun": lambda y: np.atleast_1d(miss(y)), "jac": dmiss}]
    else:  # |m| <= band as two inequalities
        constraints = [
            {
                "type": "ineq",
                "fun": lambda y: np.atleast_1d(band - miss(y)),
                "jac": lambda y: -dmiss(y),
            },
            {"type": "ineq", "fun": lambda y: np.atleast_1d(band + miss(y)), "jac": dmiss},
        ]

    def slsqp(x0, ftol, maxiter):
        result = optimize.minimize(
            fun,
            x0 / unit,
            jac=jac,
            method="SLSQP",
            bounds=[(ONSET_BOUNDS[0] / unit, ONSET_BOUNDS[1] / unit)] * starts.shape[1],
            constraints=constraints,
            options={"ftol": ftol, "maxiter": maxiter},
        )
        x = np.clip(result.x * unit, *ONSET_BOUNDS)  # 3.0 * 0.1 is 0.30000000000000004
        speed, m = swings.values_and_gradients(x)[:2]
        return x, speed, max(abs(m) - swings.band, 0.0)

    found, misses = [], []
    for x0 in starts:
        x, speed, beyond = slsqp(x0, 1e-4, 20)  # ftol 5e-3 m/s: above the speed's noise
        if repaired and beyond <= 1e-4 and _climb(swings, x) > _SLOPE:  # stopped short
            polished = slsqp(x, _POLISH_FTOL, 10)
            if polished[2] <= 1e-4 and polished[1] >= speed:
                x, speed, beyond = polished
        misses.append(beyond)
        if beyond <= 1e-4:
            found.append((speed, x))
    return found, misses


def _reaching_onsets(swings):
    """Every shoulder onset whose swing reaches the ball on an edge of the contact band
    (at the face centre for point contact), and every local maximum of the speed inside
    the band: a 5 ms grid over the bounds brackets each, Brent's method refines the
    edges' roots and a bounded scalar search the maxima.  Returns the (speed, onset)
    found and the misses beyond the band of the refined roots (m)."""
    grid = np.linspace(*ONSET_BOUNDS, 81)
    speed, miss = swings.speed_and_miss(grid[:, None])
    band = swings.band
    found, misses = [], [float(np.min(np.maximum(np.abs(miss) - band, 0.0)))]
    for level in sorted({-band, band}):
        edge = swings.shifted(level)
        m = miss - level
        for k in np.nonzero(m[:-1] * m[1:] < 0)[0]:
            root = optimize.brentq(
                lambda s, edge=edge: edge.speed_and_miss([[s]])[1][0],
                grid[k],
                grid[k + 1],
                xtol=1e-9,
            )
            x = np.array([float(np.squeeze(root))])
            speed_x, miss_x = edge.values_and_gradients(x)[:2]
            misses.append(abs(miss_x))
            if abs(miss_x) <= 1e-4:  # a jump in the miss (a crossing lost) is no root
                found.append((speed_x, x))
    inside = (np.abs(miss) < band) & (speed > 0)
    peaks = inside[1:-1] & inside[:-2] & inside[2:]
    peaks &= (speed[1:-1] >= speed[:-2]) & (speed[1:-1] >= speed[2:])
    for k in np.nonzero(peaks)[0] + 1:
        result = optimize.minimize_scalar(
            lambda s: -swings.speed_and_miss([[s]])[0][0],
            bounds=(grid[k - 1], grid[k + 1]),
            method="bounded",
            options={"xatol": 1e-7},
        )
        x = np.array([float(result.x)])
        speed_x, miss_x = swings.values_and_gradients(x)[:2]
        if abs(miss_x) < band:
            found.append((speed_x, x))
    return found, misses


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


def optimise_onsets(
    golfer,
    *,
    wrist=True,
    ball=None,
    starts=None,
    top=None,
    dt=2e-3,
    band=IMPACT_BAND,
    hold=True,
    **options,
):
    r"""The shoulder and wrist onsets (after the hub's) that maximise clubhead speed at impact.

    Equation of the book: :eq:`eq-ch3-onsets`.

    .. math:: \max_{t_s,\ t_w}\ s(t_s, t_w)\quad\text{subject to}\quad |m(t_s, t_w)| \le b,
              \quad t \in [-0.1, 0.3]\ \text{s}

    with :math:`s` the clubhead speed, :math:`m` the miss at impact
    (:func:`geomotion.models.simulate_downswing`) and :math:`b` the contact band's
    half-width (``band``; :math:`b = 0`, point contact, is the equality :math:`m = 0`).
    The optimum sits on an edge (:math:`m = \pm b`, the constraint active) or inside the
    band; each case has its certificate (below).  With the wrist: a 21 x 21 grid of
    onsets 20 ms apart over the bounds (one batched run) brackets the reaching swings
    along the wrist onset; the fastest starts SLSQP (``scipy.optimize.minimize``, over the
    onsets in seconds), with gradients by central differences (step 0.2 ms, every
    perturbed run in one batched simulation; for a band, :math:`|m| \le b` as two
    inequalities, the grid's start the fastest swing bracketed on an edge or lying
    inside).  The speed is continuous but has kinks where two generators tie for first
    (the swing starts with the first), so SLSQP's answer is then settled: moved onto the
    kink its neighbours along the constraint straddle (and if the kink fails its
    certificate, the answer beside it is certified as a smooth optimum), or else improved
    by at most two Newton steps along the constraint.
    Where that first attempt finds no reaching swing or its answer fails the certificate
    (below), a second one searches again: SLSQP over the onsets in units of 0.1 s (in
    seconds its first step can run to the bounds' corners, where no swing crosses the
    ball's line), an answer whose speed still climbs polished by SLSQP with ``ftol``
    1e-6, from the grid's fastest start, then its next two, then the lowest pass (the
    grid's nearest passes refined by zooming grids); if the lowest pass lies
    outside the band too, no swing reaches and the refusal gives it.  Without ``wrist``
    the wrist generator is off and only :math:`t_s` is free: every root of
    :math:`m \mp b` bracketed on a 5 ms grid over the bounds is refined by Brent's method
    (``scipy.optimize.brentq``), every local maximum of the speed inside the band by a
    bounded scalar search, and the fastest is returned (a jump
    of :math:`m` where a crossing appears or vanishes is not a root).  Before returning,
    the best optimum is certified: the reach constraint holds to 0.1 mm; it is not
    slower than any reaching swing the grid brackets (by 0.1 m/s); with the wrist, no
    reaching swing 1 ms away along the constraint is faster by more than 1 mm/s; and
    at a smooth optimum the speed's slope along the constraint is below 1 (m/s)/s and
    the gradients agree with those at half the step to 5e-2 (relative: the speed's
    noise floor, about 1e-6 m/s from the located impact, over a 0.1 ms step reaches a
    few per cent of the gradient near some optima).  At a kink the neighbours must lie
    on both sides of it: their slopes are its one-sided derivatives.  On an edge of a
    band the constraint must also be active: the multiplier points out of the band and
    the swing 1 mm inside is not faster (by 1 (m/s)/s); inside the band (the multiplier
    0) the speed's gradient is below 1 (m/s)/s (at a kink: its slope along the tie's
    line) and no swing 1 ms away along an onset is faster by more than 1 mm/s.
    Finally the returned swing is run again and checked against the request: it
    crosses the ball's line within the band (0.1 mm) at the certified speed.

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
    band : float, keyword only
        :math:`b \ge 0`, the contact band's half-width, m; default ``IMPACT_BAND``
        (0: point contact).
    hold : bool, keyword only
        Each generator holds the top posture before its onset
        (:func:`geomotion.models.holding_activation`); default True (False: every
        generator from zero activation, as earlier versions).
    **options
        Keyword arguments of :func:`swing_generators` (generator parameters; not its
        ``hold``, which ``hold`` sets).

    Returns
    -------
    TimingOptimum

    Raises
    ------
    TypeError
        If ``golfer`` is not a SwingPlaneGolfer or ``wrist`` or ``hold`` not a bool.
    ValueError
        If the golfer holds several parameter sets, ``starts`` has the wrong shape, ``band``
        is negative, or the ball lies beyond any clubhead position's distance from the hub
        axis.
    geomotion.ConvergenceError
        If no start converges to a swing that reaches the ball, or the best optimum fails
        its certificate (the message gives the residuals): an ``OnsetRefusal``
        (``geomotion.models._onset_certificate``) whose ``reason`` names the cause (a
        key of its ``REFUSAL_REASONS``), whose ``reaching`` says whether a reaching swing
        was found, and whose ``lowest_pass`` is, without one, the miss of the nearest
        pass found (m).
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if golfer.batch_shape != ():
        raise ValueError(f"golfer: expected one parameter set, got batch {golfer.batch_shape}")
    for name, flag in (("wrist", wrist), ("hold", hold)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name}: expected a bool, got {type(flag).__name__}")
    band = contact_band(band)
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
    swings = _Swings(golfer, wrist, options, ball, dt, q0, hold=hold, band=band)
    grid_speed = None
    if wrist and starts is None:
        grid_starts, grid_speed, grid = _grid_starts(swings)
        where = "from the onset grid"
        attempts = (
            lambda: (*_slsqp_optima(swings, grid_starts[:1], repaired=False), None),
            lambda: _search_from_grid(swings, grid_starts, grid),
        )
    elif wrist:
        grid_speed = _grid_starts(swings)[1]
        where = f"from starts {starts.tolist()} s"
        attempts = tuple(
            lambda repaired=repaired: (*_slsqp_optima(swings, starts, repaired=repaired), None)
            for repaired in (False, True)
        )
    else:
        where = "on the onset grid"
        attempts = (lambda: (*_reaching_onsets(swings), None),)
    refusal = None
    for attempt in attempts:
        found, misses, lowest = attempt()
        try:
            if not found:
                _no_reaching_swing(where, misses, lowest, band, wrist)
            speeds = np.array([f[0] for f in found])
            onsets = np.array([f[1] for f in found])
            certificate = _certified_band(swings, onsets[np.argmax(speeds)], grid_speed)
            x = certificate.pop("onsets")
            onset = np.zeros(3)
            onset[1 : 1 + n] = x
            clock = onset - onset.min()  # the run starts at the earliest onset
            active = (1.0, 1.0, 1.0 if wrist else 0.0)
            generators = swing_generators(clock, active=active, **options)
            final = simulate_downswing(
                golfer, generators, ball=ball, q0=q0, dt=dt, hold=hold, band=band
            )
            _checked_against_request(final.impact, x, band, certificate["speed"])
            break
        except OnsetRefusal as error:  # the next attempt; a found swing's refusal prevails
            if refusal is None or error.reaching or not refusal.reaching:
                refusal = error
    else:
        raise refusal
    arm_angle = None
    if wrist:
        run = final.trajectory
        arm = golfer.lead_arm_below_horizontal(run.q)
        arm_angle = float(np.interp(clock[2], run.t, arm))
    return TimingOptimum(
        onset=frozen(onset),
        impact=final.impact,
        downswing=final,
        generators=final.generators,
        wrist_onset_arm_angle=arm_angle,
        **certificate,
        start_onsets=frozen(onsets),
        start_speeds=frozen(speeds),
        ball=frozen(ball),
        options=MappingProxyType(dict(options)),
        top=MappingProxyType(top),
        grid_speed=grid_speed,
        band=band,
        holding=final.holding,
    )


def _no_reaching_swing(where, misses, lowest, band, wrist):
    """Raise the OnsetRefusal of a search ``where`` that found no reaching swing: its
    misses beyond the band (m) and the lowest pass found (m, or None)."""
    unreachable = lowest is not None and abs(lowest) >= band
    passing = "" if lowest is None else f", the lowest pass found {1e3 * lowest:.1f} mm"
    raise OnsetRefusal(
        f"optimise_onsets {where}: no swing reaching the ball (miss m{passing})",
        reason="unreachable" if unreachable or not wrist else "search",
        lowest_pass=lowest,
        residual=float(min(misses, default=np.inf)),
        tolerance=1e-4,
        iterations=20,
        suggestion="other starts, or check that the ball is within the golfer's reach",
    )


def _checked_against_request(impact, x, band, speed):
    """Raise OnsetRefusal (reason "request") unless the returned swing crosses the ball's
    line within the band (0.1 mm) at the certified ``speed`` (1e-6 m/s)."""
    miss = float(impact.miss)
    if not (bool(impact.crossed) and abs(miss) <= band + 1e-4):
        raise OnsetRefusal(
            f"optimise_onsets at {x.tolist()} s: the returned swing misses the band "
            f"(miss {miss:.3g} m, band {band:g} m)",
            reason="request",
            residual=abs(miss) - band,
            tolerance=1e-4,
            iterations=20,
            suggestion="a smaller simulation step dt",
        )
    if abs(float(impact.speed) - speed) > 1e-6:
        raise OnsetRefusal(
            f"optimise_onsets at {x.tolist()} s: the returned swing's speed "
            f"{float(impact.speed):.9g} m/s is not the certified {speed:.9g} m/s",
            reason="request",
            residual=abs(float(impact.speed) - speed),
            tolerance=1e-6,
            iterations=20,
            suggestion="a smaller simulation step dt",
        )
