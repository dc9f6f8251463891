r"""The certificate of the swing's optimal onsets (:func:`geomotion.models.optimise_onsets`).

Given an optimum of the onsets (a ``swings`` object of :mod:`geomotion.models._timing`
that runs rows of onsets: ``speed_and_miss``, ``gradients``, ``values_and_gradients``,
``band``, ``shifted``), the functions here settle it (onto a kink, or by Newton steps
along the reach constraint) and certify it, on an edge of the contact band (the
equality :math:`m = \pm b`, or :math:`m = 0` for point contact) or inside it; a failed
check raises :class:`OnsetRefusal` (a :class:`geomotion.ConvergenceError`) naming it and
its cause (``REFUSAL_REASONS``).
"""

import numpy as np
from scipy import optimize

from ..errors import ConvergenceError
from ._shared import frozen

#: Bounds of the shoulder and wrist onsets relative to the hub's, s (a modelling choice:
#: from 0.1 s before the hub to 0.3 s after, wider than the downswing).
ONSET_BOUNDS = (-0.1, 0.3)
_STEP = 2e-4  # s, central-difference step of the onset gradients

#: Why :func:`geomotion.models.optimise_onsets` refused a golfer: the ``reason`` of an
#: :class:`OnsetRefusal`.  The first two mean no reaching swing was found, the others
#: that the answer failed its certificate (or its re-run).
REFUSAL_REASONS = {
    "unreachable": "no swing passes within the band: the lowest pass found over the onsets "
    "(the grid's nearest passes refined by zooming grids down to 0.02 ms) lies outside it",
    "search": "a swing within the band exists (the lowest-pass search found one) but SLSQP "
    "from every start ended outside the band",
    "shortfall": "the answer is slower than the grid's fastest reaching swing by over 0.1 m/s",
    "crossing lost": "a swing of the difference stencil (0.2 ms from the answer) never "
    "crosses the ball's line: the miss and the speed jump there, and the gradients are void",
    "no neighbour": "no swing 1 ms away along the constraint could be moved onto it: the "
    "one-sided slopes of the certificate cannot be measured",
    "stage kink": "an onset lies within the difference step (0.2 ms) of a stage time of the "
    "fixed-step integrator (a multiple of dt/2 after the first onset), where the simulated "
    "speed has a kink: the smooth certificate's slopes and gradients do not hold there",
    "tie kink": "at a tie of two generators the neighbours do not straddle it or the speed "
    "climbs along the tie's line",
    "inactive edge": "on an edge of the band the speed climbs into the band",
    "not smooth": "the gradients at steps 0.2 and 0.1 ms disagree, with no stage time inside, "
    "or the miss has no gradient there (the constraint has no tangent)",
    "not settled": "the speed still climbs along the constraint or inside the band",
    "request": "the returned swing, run again, misses the band or the certified speed",
}
_NO_REACH = ("unreachable", "search")


class OnsetRefusal(ConvergenceError):
    """A :class:`geomotion.ConvergenceError` of :func:`geomotion.models.optimise_onsets`
    that names its cause.

    Parameters
    ----------
    message : str
    reason : str, keyword only
        A key of ``REFUSAL_REASONS``.
    lowest_pass : None or float, keyword only
        For no reaching swing: the miss of the pass nearest the ball's centre that the
        search found, m (positive over the ball); None otherwise.
    **details
        ``residual``, ``tolerance``, ``iterations`` and ``suggestion`` of ConvergenceError.

    Attributes
    ----------
    reason : str
    lowest_pass : float or None
    reaching : bool
        False if no reaching swing was found (``reason`` "unreachable" or "search"), True
        if an answer failed its certificate.
    """

    def __init__(self, message, *, reason, lowest_pass=None, **details):
        if reason not in REFUSAL_REASONS:
            raise ValueError(f"reason: expected a key of REFUSAL_REASONS, got {reason!r}")
        super().__init__(message, **details)
        self.reason = reason
        self.lowest_pass = None if lowest_pass is None else float(lowest_pass)
        self.reaching = reason not in _NO_REACH


def _on_stage_kink(swings, x):
    """Whether an onset of x other than the first lies within the difference step
    ``_STEP`` of a stage time of the run (a multiple of dt/2 on its clock, which starts at
    the first onset): the fixed-step integrator samples the activation's step there, so
    the speed has a kink inside the difference stencil."""
    clock = np.concatenate([[0.0], x])
    clock = clock - clock.min()
    half = swings.dt / 2
    near = np.abs(clock - half * np.round(clock / half)) < _STEP
    return bool(np.any(near & (clock > 0.0)))


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
    rows, their speeds and their misses (a row that never crosses, where the miss has no
    slope, stays where it is and keeps a large miss)."""
    for _ in range(6):
        speed, miss, _, dm = swings.gradients(Y)
        if np.all(np.abs(miss) <= 1e-9):
            break
        direction = dm if along is None else np.broadcast_to(along, dm.shape)
        slope = np.einsum("ij,ij->i", dm, direction)
        step = np.divide(miss, slope, out=np.zeros_like(miss), where=slope != 0.0)
        Y = Y - step[:, None] * direction
    else:
        speed, miss, _, _ = swings.gradients(Y)
    return Y, speed, miss


def _neighbours(swings, x, dm):
    """The reaching swings 1 ms either side of x along the constraint's tangent (the
    normal to the miss's gradient dm), inside the bounds: their onsets (rows) and speeds.
    Without a finite, nonzero dm the constraint has no tangent at x: refused."""
    norm = float(np.linalg.norm(dm))
    if not (np.isfinite(norm) and norm > 0.0):
        _fail_unless(swings, x, {"miss gradient undefined": (1.0, 0.0)})
    tangent = np.array([dm[1], -dm[0]]) / norm
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
    it, so that their slopes are its one-sided derivatives.  Where the kink that x's
    neighbours straddle fails its certificate, the maximum may lie on the smooth piece
    beside it: x itself, unmoved, is then certified as a smooth optimum.
    """
    if len(x) != 2:
        return _certificate_at(swings, x, None, None, grid_speed)
    settled, kink, neighbours = _settled(swings, x)
    try:
        return _certificate_at(swings, settled, kink, neighbours, grid_speed)
    except OnsetRefusal:
        if kink is None:
            raise
    Y, speeds = _neighbours(swings, x, swings.values_and_gradients(x)[3])
    return _certificate_at(swings, x, None, (Y, speeds), grid_speed)


def _certificate_at(swings, x, kink, neighbours, grid_speed):
    """The checks of :func:`_certified` at x, settled, on the ``kink`` (or None) with its
    ``neighbours`` (rows and speeds, or None to find them)."""
    wrist = len(x) == 2
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
    _fail_unless(swings, x, checks)
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


def _edge(swings, x):
    """The edge of the contact band the optimum x sits on: its miss (m; 0 for point
    contact), or None inside the band (more than 0.1 mm from both edges)."""
    miss = swings.values_and_gradients(x)[1]
    if swings.band == 0.0 or abs(miss) > swings.band - 1e-4:
        return float(np.copysign(swings.band, miss))
    return None


def _climb(swings, x):
    """The speed's slope at x that a certificate needs below ``_SLOPE``, (m/s)/s: along the
    constraint on an edge of the band (:func:`_stationarity` from that edge), the
    gradient's norm over the onsets off their bounds inside it."""
    edge = _edge(swings, x)
    if edge is not None:
        return _stationarity(swings.shifted(edge), x)[4]
    ds = swings.values_and_gradients(x)[2]
    free = (x > ONSET_BOUNDS[0] + 1e-6) & (x < ONSET_BOUNDS[1] - 1e-6)
    return float(np.linalg.norm(ds[free]))


def _inward_slope(swings, x, speed, dm, edge):
    """The speed's slope, (m/s)/s, from the optimum x on an edge to the swing whose miss
    is 1 mm inside the band (first order, along the miss's gradient dm)."""
    step = -np.sign(edge) * 1e-3 * dm / (dm @ dm)
    inside = swings.speed_and_miss(x + step)[0][0]
    return float((inside - speed) / np.linalg.norm(step))


def _certified_edge(swings, x, grid_speed, edge):
    """The certificate of an optimum x on an edge of the band (miss ``edge``): the
    equality certificate (:func:`_certified` from that edge), then, for a band, the
    constraint must be active: the multiplier points out of the band (the speed grows
    outwards) and the swing 1 mm inside is not faster (slope below ``_SLOPE``)."""
    certificate = _certified(swings.shifted(edge), x, grid_speed)
    if swings.band > 0.0:
        x = certificate["onsets"]
        dm = swings.values_and_gradients(x)[3]
        inward = _inward_slope(swings, x, certificate["speed"], dm, edge)
        sign = np.sign(edge) * certificate["multiplier"]
        _fail_unless(
            swings, x, {"inward slope": (inward, _SLOPE), "multiplier into the band": (-sign, 0.0)}
        )
    return certificate | {"edge": edge}


_SMOOTH_CHECKS = {"steepest neighbour slope", "slope along the constraint", "gradient"}
_SMOOTH_CHECKS |= {"gradient error"}


def _reason(checks, failed, stage, crossing_lost):
    """The key of ``REFUSAL_REASONS`` for the failed checks (names ``failed`` of the
    ``checks``, name to (value, bound)); ``stage``: an onset lies on a stage kink
    (:func:`_on_stage_kink`); ``crossing_lost``: a swing of the difference stencil never
    crosses the ball's line."""
    if "shortfall" in failed:
        return "shortfall"
    if crossing_lost:
        return "crossing lost"
    if "miss gradient undefined" in failed:
        return "not smooth"
    if checks.get("steepest neighbour slope", (0.0,))[0] == np.inf:  # no neighbour reaches
        return "no neighbour"
    if stage and failed & _SMOOTH_CHECKS:
        return "stage kink"
    if failed & {"kink crossed", "slope along the kink"}:
        return "tie kink"
    if failed & {"inward slope", "multiplier into the band"}:
        return "inactive edge"
    return "not smooth" if failed == {"gradient error"} else "not settled"


def _fail_unless(swings, x, checks):
    """Raise OnsetRefusal naming every check (value, bound) with value > bound, and the
    cause (:func:`_reason`)."""
    failed = {name for name, (value, bound) in checks.items() if not value <= bound}
    if failed:
        listed = ", ".join(
            f"{name} {value:.2g} of {bound:g}"
            for name, (value, bound) in checks.items()
            if name in failed
        )
        x = np.asarray(x, dtype=float)
        stencil = x + _STEP * np.vstack([np.eye(len(x)), -np.eye(len(x))])
        lost = bool(np.any(swings.speed_and_miss(stencil)[0] == 0.0))  # 0: no crossing
        reason = _reason(checks, failed, _on_stage_kink(swings, x), lost)
        raise OnsetRefusal(
            f"optimise_onsets at {x.tolist()} s: certificate ({listed}; {reason})",
            reason=reason,
            residual=len(failed) + 1.0,
            tolerance=1.0,
            iterations=20,
            suggestion="other starts, or a smaller simulation step dt",
        )


def _axis_neighbours(swings, x):
    """The swings 1 ms either side of x along each onset (inside the bounds and the
    band): their onsets (rows) and speeds."""
    Y = x + _NEIGHBOUR * np.vstack([np.eye(len(x)), -np.eye(len(x))])
    Y = Y[np.all((Y >= ONSET_BOUNDS[0]) & (Y <= ONSET_BOUNDS[1]), axis=1)]
    speed, miss = swings.speed_and_miss(Y)
    keep = (np.abs(miss) <= swings.band) & (speed > 0)
    return Y[keep], speed[keep]


def _along_kink(swings, x, pair):
    """The fastest swing on the line where the generators ``pair`` tie, near x and inside
    the band (a bounded scalar search over 20 ms either side of x's projection)."""
    along = _kink_line(pair)
    base = (x @ along) * along

    def slower(s):
        speed, miss = swings.speed_and_miss(base + s * along)
        return -speed[0] if abs(miss[0]) <= swings.band else 0.0

    result = optimize.minimize_scalar(slower, bounds=(-0.02, 0.02), method="bounded")
    return base + float(result.x) * along


def _certified_inside(swings, x, grid_speed):
    """The certificate of an optimum x inside the band (the constraint inactive, so the
    multiplier is 0): no slower than the grid's fastest (0.1 m/s), no swing 1 ms away
    along an onset faster by more than ``_SLOPE`` x 1 ms, and at a smooth optimum the
    speed's gradient below ``_SLOPE`` (its steps h and h/2 agreeing to 5e-2 of the
    gradient's norm or of ``_SLOPE``, whichever is larger); at a kink
    (the neighbours straddle a tie of two generators) x is moved to the fastest swing on
    the tie's line, where the slope along the line must be below ``_SLOPE``."""
    Y, speeds = _axis_neighbours(swings, x)
    firsts = set(_first(np.vstack([x, Y])).tolist()) if len(x) == 2 else set()
    kink = tuple(sorted(firsts)) if len(firsts) == 2 else None
    if kink is not None:
        x = _along_kink(swings, x, kink)
        Y, speeds = _axis_neighbours(swings, x)
    speed, _, ds, _ = swings.values_and_gradients(x)
    slopes = (speeds - speed) / _NEIGHBOUR
    checks = {
        "shortfall": (0.0 if grid_speed is None else grid_speed - speed, 0.1),
        "steepest neighbour slope": (max(slopes, default=np.inf), _SLOPE),
        "inside the band": (abs(swings.values_and_gradients(x)[1]) - swings.band, 0.0),
    }
    free = (x > ONSET_BOUNDS[0] + 1e-6) & (x < ONSET_BOUNDS[1] - 1e-6)
    slope = error = kkt = None
    if kink is None:
        slope = float(np.linalg.norm(ds[free]))
        kkt = slope / float(np.linalg.norm(ds)) if slope > 0.0 else 0.0  # 0/0 at a maximum
        error = float(np.max(np.abs(ds - swings.values_and_gradients(x, _STEP / 2)[2])))
        # over the gradient's norm, or over _SLOPE where the gradient is smaller: at an
        # interior maximum the gradient vanishes, and what the check needs is that its
        # error is small against the bound the gradient is held to
        error /= max(float(np.linalg.norm(ds)), _SLOPE)
        checks |= {"gradient": (slope, _SLOPE), "gradient error": (error, 5e-2)}
    else:
        along = _kink_line(kink)
        h = _NEIGHBOUR * along
        ahead, behind = swings.speed_and_miss(np.vstack([x + h, x - h]))[0]
        checks["slope along the kink"] = (abs(ahead - behind) / (2 * _NEIGHBOUR), _SLOPE)
    _fail_unless(swings, x, checks)
    return {
        "onsets": x,
        "speed": float(speed),
        "multiplier": 0.0,
        "kkt_residual": kkt,
        "tangent_slope": slope,
        "gradient_error": error,
        "kink": None if kink is None else tuple(GENERATORS[k] for k in kink),
        "neighbour_slopes": frozen(slopes),
        "edge": None,
    }


def _certified_band(swings, x, grid_speed):
    """The certificate of the optimum x under |m| <= band: on an edge or inside.  An
    answer inside the band whose speed still climbs (gradient above ``_SLOPE``) is no
    interior optimum: it is moved onto the edge the speed climbs towards (Newton steps
    along the miss's gradient) and certified there."""
    edge = _edge(swings, x)
    if edge is None:
        _, _, ds, dm = swings.values_and_gradients(x)
        if np.linalg.norm(ds) <= _SLOPE or ds @ dm == 0.0:
            return _certified_inside(swings, x, grid_speed)
        edge = float(np.copysign(swings.band, ds @ dm))
        x = _onto_constraint(swings.shifted(edge), x[None, :])[0][0]
    return _certified_edge(swings, x, grid_speed, edge)
