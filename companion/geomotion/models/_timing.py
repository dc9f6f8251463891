r"""Muscle-like torque generators on the swing-plane golfer, and the timing that maximises
clubhead speed at a real impact.

* :class:`SwingGenerators`: the hub, lead-shoulder and lead-wrist generators of
  :mod:`geomotion.muscles` (activation x peak isometric torque x torque-velocity factor),
  each excited by a step at its onset, plus the wrist's passive end stops; a callable
  ``u(t, q, v)`` for ``INPUT_MATRIX``.
* :func:`swing_to_impact`: one batched run from rest at the top of the backswing, and
  its :class:`geomotion.models._impact.Impact`.
* :func:`optimise_onsets` -> :class:`TimingOptimum`: the onsets (relative to the hub's)
  that maximise the clubhead speed at impact subject to the clubhead reaching the ball,
  with its certificate.

Parameters and their sources (``GENERATOR_DEFAULTS``; the ranges are
``GENERATOR_RANGES``):

* hub: peak 200 N m and :math:`\omega_{max}` = 30 rad/s, the torso generator of MacKenzie
  & Sprigings as stated by McNally & McPhee (2018) (model-param; the 200 N m derived from
  their pelvis 250 N m "25 % greater than the torso"); the hub lumps the hips with the
  trunk, so its peak is varied from the torso's 200 to the pelvis's 250 N m;
* eccentric slope factor 2 and eccentric ratio 1.5: as in McNally & McPhee (2018)
  (model-param);
* lead shoulder and lead wrist peaks, every :math:`\omega_{max}` but the hub's, the
  concentric shape :math:`\Gamma`, the activation time constant: no source in the golf
  data; modelling choices, each varied over its stated range;
* wrist stops: the radial stop at the top of the backswing's cock (the top is fully
  hinged: a modelling choice; the hinge there lumps radial deviation with wrist extension
  and forearm rotation, so the anatomical radial range, 18-25 degrees, cannot bound it);
  the ulnar stop the mean ulnar-deviation range beyond the address angle, 30 degrees
  (AAOS; the six goniometric means of the source span 26-41 degrees), the address being
  taken as neutral deviation; the stop stiffness set so that the passive torque equals
  the wrist generator's peak 10 degrees past a stop (a modelling choice, varied 5-20).
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .. import _validate, muscles
from ..errors import ConvergenceError
from ..integrators import simulate_constrained
from ._impact import ADDRESS_WRIST_ANGLE, Impact, ball_at_address, locate_impact
from ._shared import frozen
from .swing import _TOP, INPUT_MATRIX, SwingPlaneGolfer, swing_plane_golfer

__all__ = [
    "GENERATOR_DEFAULTS",
    "GENERATOR_RANGES",
    "SwingGenerators",
    "swing_generators",
    "SwingRun",
    "swing_to_impact",
    "TimingOptimum",
    "optimise_onsets",
]

#: Generator parameters (see the module documentation for their sources).
GENERATOR_DEFAULTS = {
    "peak_torque": (200.0, 100.0, 30.0),  # N m: hub (model-param), shoulder, wrist (choices)
    "max_velocity": (30.0, 30.0, 30.0),  # rad/s: hub (model-param), shoulder, wrist (choices)
    "shape": 3.0,  # Gamma, concentric curvature (choice)
    "time_constant": 0.03,  # s, activation (choice)
    "ulnar_range": np.radians(30.0),  # AAOS mean ulnar deviation
    "stop_angle": np.radians(10.0),  # past a stop where the passive torque = wrist peak (choice)
}
#: The ranges over which every conclusion is checked.
GENERATOR_RANGES = {
    "hub_peak": (200.0, 250.0),
    "shoulder_peak": (60.0, 150.0),
    "wrist_peak": (15.0, 45.0),
    "arm_max_velocity": (20.0, 50.0),
    "shape": (2.0, 5.0),
    "time_constant": (0.02, 0.05),
    "ulnar_range": (np.radians(26.0), np.radians(41.0)),
    "stop_angle": (np.radians(5.0), np.radians(20.0)),
}


@dataclass(frozen=True, eq=False, kw_only=True)
class SwingGenerators:
    r"""Hub, lead-shoulder and lead-wrist torque generators with the wrist's end stops.

    .. math:: u_j = s_j\,a_j(t)\,T_{0j}\,f_j(v_j) + \tau_{stop}(q_2)\,[j = 2],\qquad
              a_j(t) = 1 - e^{-(t - t_j)/\tau_a}\ (t \ge t_j)

    (:func:`geomotion.muscles.step_activation`,
    :func:`geomotion.muscles.torque_velocity_factor`,
    :class:`geomotion.muscles.PassiveLimit`), with :math:`s_j` 1 for an active generator
    and 0 for one switched off; every generator turns its joint the downswing's way.

    Attributes
    ----------
    generators : tuple of geomotion.muscles.TorqueGenerator
        Hub, lead shoulder, lead wrist.
    onset : (..., 3) ndarray
        Excitation onsets, s, on the run's clock.
    active : (..., 3) ndarray
        :math:`s_j`, 1.0 or 0.0.
    wrist_stop : geomotion.muscles.PassiveLimit
        The wrist's radial and ulnar stops on :math:`q_2`.
    """

    generators: tuple
    onset: np.ndarray
    active: np.ndarray
    wrist_stop: object

    def __call__(self, t, q, v):
        """u(t, q, v) (..., 3), N m: the inputs of ``simulate_constrained``."""
        t = np.asarray(t, dtype=float)
        t = t[..., 0] if t.ndim else t
        columns = [
            self.active[..., j] * g.step_tau(t, self.onset[..., j], v[..., j])
            for j, g in enumerate(self.generators)
        ]
        columns[2] = columns[2] + self.wrist_stop.tau(q[..., 2])
        return np.stack(columns, axis=-1)


def swing_generators(
    onset,
    *,
    peak_torque=GENERATOR_DEFAULTS["peak_torque"],
    max_velocity=GENERATOR_DEFAULTS["max_velocity"],
    active=(1.0, 1.0, 1.0),
    shape=GENERATOR_DEFAULTS["shape"],
    time_constant=GENERATOR_DEFAULTS["time_constant"],
    ulnar_range=GENERATOR_DEFAULTS["ulnar_range"],
    stop_angle=GENERATOR_DEFAULTS["stop_angle"],
    top_wrist_cock=_TOP["wrist_cock"],
    address_wrist_angle=ADDRESS_WRIST_ANGLE,
):
    r"""The golfer's :class:`SwingGenerators` (see the module documentation).

    Parameters
    ----------
    onset : (..., 3) array_like
        Excitation onsets of the hub, shoulder and wrist, s.
    peak_torque, max_velocity : (..., 3) array_like, keyword only
        N m and rad/s, per generator, positive.
    active : (..., 3) array_like, keyword only
        1 for an active generator, 0 for one switched off (e.g. no wrist torque).
    shape, time_constant : float or array_like, keyword only
        :math:`\Gamma` and :math:`\tau_a` (s), shared by the three generators.
    ulnar_range, stop_angle : float or array_like, keyword only
        rad: the ulnar stop beyond the address angle, and the angle past a stop where the
        passive torque equals the wrist generator's peak.
    top_wrist_cock, address_wrist_angle : float or array_like, keyword only
        rad: the radial stop is at :math:`q_2 = -` top_wrist_cock, the ulnar stop at
        :math:`q_2 = -` address_wrist_angle + ulnar_range.

    Returns
    -------
    SwingGenerators

    Raises
    ------
    ValueError
        If an array has the wrong trailing shape, ``active`` holds other values than 0
        and 1, a value is out of range, the stops are out of order, or as
        :class:`geomotion.muscles.TorqueGenerator`.
    """
    onset = _validate.trailing_shape(onset, "onset", (3,))
    peak = _validate.trailing_shape(peak_torque, "peak_torque", (3,))
    rates = _validate.trailing_shape(max_velocity, "max_velocity", (3,))
    active = _validate.trailing_shape(active, "active", (3,))
    if not np.all((active == 0) | (active == 1)):
        bad = active[(active != 0) & (active != 1)].ravel()[0]
        raise ValueError(f"active: expected entries 0 or 1, got an entry {bad!r}")
    stop_angle = _validate.positive(stop_angle, "stop_angle")
    lower = -_validate.positive(top_wrist_cock, "top_wrist_cock")
    upper = -_validate.real_array(address_wrist_angle, "address_wrist_angle")
    upper = upper + _validate.positive(ulnar_range, "ulnar_range")
    generators = tuple(
        muscles.TorqueGenerator(
            peak_torque=peak[..., j],
            max_velocity=rates[..., j],
            shape=shape,
            time_constant=time_constant,
        )
        for j in range(3)
    )
    stop = muscles.PassiveLimit(q_min=lower, q_max=upper, stiffness=peak[..., 2] / stop_angle**2)
    return SwingGenerators(
        generators=generators, onset=frozen(onset), active=frozen(active), wrist_stop=stop
    )


@dataclass(frozen=True, eq=False)
class SwingRun:
    """A downswing run and its impact (:func:`swing_to_impact`).

    Attributes
    ----------
    trajectory : geomotion.integrators.ConstrainedTrajectory
        States from the first onset (the run's clock starts there).
    impact : Impact
    """

    trajectory: object
    impact: Impact


def swing_to_impact(golfer, generators, *, ball=None, q0=None, dt=1e-3, t_max=0.4):
    r"""Run the downswing from rest at the top under ``generators``; locate impact.

    The run's clock starts at the earliest onset of each row (the generators' onsets are
    shifted by it), so ``Impact.time`` is the downswing's duration from the first
    excitation.  :func:`geomotion.integrators.simulate_constrained` (projection method)
    with the trail grip held.

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    generators : SwingGenerators
        Batch shape the golfer's.
    ball : None or (..., 2) array_like, keyword only
        m; default :func:`ball_at_address` of the golfer.
    q0 : None or (..., 5) array_like, keyword only
        rad; default ``golfer.top_of_backswing()``.
    dt, t_max : float, keyword only
        Step and simulated time, s.

    Returns
    -------
    SwingRun

    Raises
    ------
    TypeError
        If ``golfer`` or ``generators`` has the wrong type.
    ValueError
        If the batch shapes differ, or as ``simulate_constrained``.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(generators, SwingGenerators):
        raise TypeError(f"generators: expected a SwingGenerators, got {type(generators).__name__}")
    shape = golfer.batch_shape
    if generators.onset.shape[:-1] != shape:
        raise ValueError(
            f"generators: expected onsets of the golfer's batch shape {shape + (3,)}, "
            f"got {generators.onset.shape}"
        )
    ball = ball_at_address(golfer) if ball is None else ball
    q0 = golfer.top_of_backswing() if q0 is None else _validate.trailing_shape(q0, "q0", (5,))
    dt = float(_validate.positive(dt, "dt"))
    n_steps = max(1, int(round(float(_validate.positive(t_max, "t_max")) / dt)))
    clock = SwingGenerators(
        generators=generators.generators,
        onset=frozen(generators.onset - generators.onset.min(axis=-1, keepdims=True)),
        active=generators.active,
        wrist_stop=generators.wrist_stop,
    )
    run = simulate_constrained(
        golfer.system(),
        golfer.trail_grip,
        q0,
        np.zeros_like(q0),
        dt,
        n_steps,
        u=clock,
        B=INPUT_MATRIX,
    )

    def accelerations(t, q, v):
        return golfer.constrained_dynamics(q, v, clock(t, q, v) @ INPUT_MATRIX.T).a

    return SwingRun(trajectory=run, impact=locate_impact(golfer, run, accelerations, ball))


@dataclass(frozen=True, eq=False)
class TimingOptimum:
    r"""The onsets that maximise the clubhead speed at impact (:func:`optimise_onsets`).

    Attributes
    ----------
    onset : (3,) ndarray
        Hub, shoulder and wrist onsets, s, the hub's at 0 (the wrist's is 0 and unused
        when the wrist is off).
    impact : Impact
        The impact of the optimal swing (one row).
    speed : float
        Clubhead speed at that impact, m/s.
    multiplier : float
        :math:`\lambda` of the reach constraint, (m/s)/m: the speed gained per metre the
        ball's line could move up the plane.
    kkt_residual : float
        :math:`\|\nabla s - \lambda\nabla m\|` on the onsets off their bounds, over
        :math:`\|\nabla s\|` (dimensionless).
    wrist_onset_arm_angle : float or None
        The lead arm's angle below the horizontal when the wrist generator switches on,
        rad (Sprigings & Neal's measure of the wrist's timing; linear between the run's
        steps); None without the wrist.
    tangent_slope : float
        :math:`\|\nabla s - \lambda\nabla m\|`, (m/s)/s: the speed's slope along the
        constraint (zero at an exact optimum); a onset error of 1 ms costs at most this
        many mm/s at first order.
    gradient_error : float
        Largest difference between the central-difference gradients at steps h and h/2,
        over the gradient's norm: their truncation error.
    start_onsets, start_speeds : ndarray
        Each start's optimum (rows) and its speed, m/s: the multi-start check (without
        the wrist: every root found on the grid).
    """

    onset: np.ndarray
    impact: Impact
    speed: float
    multiplier: float
    kkt_residual: float
    wrist_onset_arm_angle: float | None
    tangent_slope: float
    gradient_error: float
    start_onsets: np.ndarray
    start_speeds: np.ndarray


#: Bounds of the shoulder and wrist onsets relative to the hub's, s (a modelling choice:
#: from 0.1 s before the hub to 0.3 s after, wider than the downswing).
ONSET_BOUNDS = (-0.1, 0.3)
_STEP = 2e-4  # s, central-difference step of the onset gradients


def _repeat(golfer, count):
    """The scalar ``golfer`` repeated as a batch of ``count`` identical parameter sets."""
    p = golfer.parameters
    return swing_plane_golfer(
        body_mass=np.full(count, float(p["body_mass"])),
        height=float(p["height"]),
        sex=[p["sex"]] * count,
        club=p["club"],
        plane_inclination=float(p["plane_inclination"]),
        segment_scales={k: float(v) for k, v in p["segment_scales"].items()},
    )


class _Swings:
    """Speed and miss at impact for rows of onsets, one batched run per call, cached."""

    def __init__(self, golfer, wrist, options, ball, dt):
        self.golfer, self.wrist, self.options, self.ball, self.dt = golfer, wrist, options, ball, dt
        self.cache = {}

    def swing(self, X):
        """The :class:`SwingRun` of rows X of (shoulder[, wrist]) onsets, s."""
        X = np.atleast_2d(X)
        onset = np.zeros((len(X), 3))
        onset[:, 1 : 1 + X.shape[1]] = X
        active = (1.0, 1.0, 1.0 if self.wrist else 0.0)
        golfer = _repeat(self.golfer, len(X))
        generators = swing_generators(onset, active=active, **self.options)
        ball = np.broadcast_to(self.ball, (len(X), 2))
        return swing_to_impact(golfer, generators, ball=ball, dt=self.dt)

    def run(self, X):
        """The :class:`Impact` of rows X of onsets."""
        return self.swing(X).impact

    def speed_and_miss(self, X):
        """Speed (0 without a crossing) and miss (1 m without one) of rows of onsets."""
        impact = self.run(X)
        return np.where(impact.crossed, impact.speed, 0.0), np.where(
            impact.crossed, impact.miss, 1.0
        )

    def values_and_gradients(self, x, h=_STEP):
        key = (tuple(x), h)
        if key not in self.cache:
            n = len(x)
            speed, miss = self.speed_and_miss(np.vstack([x, x + h * np.eye(n), x - h * np.eye(n)]))
            grad = lambda f: (f[1 : 1 + n] - f[1 + n :]) / (2 * h)  # noqa: E731
            self.cache[key] = (speed[0], miss[0], grad(speed), grad(miss))
        return self.cache[key]


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
            options={"ftol": 1e-5, "maxiter": 20},
        )
        speed, miss = swings.values_and_gradients(result.x)[:2]
        misses.append(abs(miss))
        if abs(miss) <= 1e-4:
            found.append((speed, result.x))
    return found, misses


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


def optimise_onsets(golfer, *, wrist=True, ball=None, starts=None, dt=2e-3, **options):
    r"""The shoulder and wrist onsets (after the hub's) that maximise clubhead speed at impact.

    .. math:: \max_{t_s,\ t_w}\ s(t_s, t_w)\quad\text{subject to}\quad m(t_s, t_w) = 0,
              \quad t \in [-0.1, 0.3]\ \text{s}

    with :math:`s` the clubhead speed and :math:`m` the miss at impact
    (:func:`swing_to_impact`).  With the wrist: SLSQP (``scipy.optimize.minimize``) from
    each start; gradients by central differences (step 0.2 ms, every perturbed run in one
    batched simulation).  Without ``wrist`` the wrist generator is off, only :math:`t_s`
    is free and the one equality leaves a finite feasible set: every root of :math:`m`
    bracketed on a 5 ms grid over the bounds is refined by Brent's method
    (``scipy.optimize.brentq``), and the fastest is returned (a jump of :math:`m` where a
    crossing appears or vanishes is not a root).  Before returning, the best optimum is
    certified: the reach constraint holds to 0.1 mm, the KKT residual (see
    :class:`TimingOptimum`) is below 1e-2, and the gradients agree with those at half the
    step to 1e-2 (relative).

    Parameters
    ----------
    golfer : SwingPlaneGolfer
        One parameter set.
    wrist : bool, keyword only
        Whether the wrist generator is active.
    ball : None or (2,) array_like, keyword only
        m; default :func:`ball_at_address`.
    starts : None or (k, n) array_like, keyword only
        Starting onsets of SLSQP (n = 2 with the wrist; without it the grid replaces
        the starts and they are not used), s; default two starts, (0, 50) and (30, 80) ms.
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
    if starts is None:
        starts = np.array([[0.0, 0.05], [0.03, 0.08]])[:, :n]
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
    swings = _Swings(golfer, wrist, options, ball, dt)
    if wrist:
        found, misses = _slsqp_optima(swings, starts)
    else:
        found, misses = _reaching_onsets(swings)
    if not found:
        raise ConvergenceError(
            f"optimise_onsets from starts {starts.tolist()} s: no swing reaching the ball (miss m)",
            residual=float(min(misses)),
            tolerance=1e-4,
            iterations=20,
            suggestion="other starts, or check that the ball is within the golfer's reach",
        )
    speeds = np.array([f[0] for f in found])
    onsets = np.array([f[1] for f in found])
    x = onsets[np.argmax(speeds)]
    speed, miss, ds, dm = swings.values_and_gradients(x)
    free = (x > ONSET_BOUNDS[0] + 1e-6) & (x < ONSET_BOUNDS[1] - 1e-6)
    multiplier = float(ds[free] @ dm[free] / (dm[free] @ dm[free])) if free.any() else 0.0
    slope = float(np.linalg.norm((ds - multiplier * dm)[free]))
    kkt = slope / float(np.linalg.norm(ds))
    ds_half = swings.values_and_gradients(x, _STEP / 2)[2]
    gradient_error = float(np.max(np.abs(ds - ds_half)) / np.linalg.norm(ds))
    if kkt > 1e-2 or gradient_error > 1e-2:
        raise ConvergenceError(
            f"optimise_onsets at {x.tolist()} s: certificate (KKT residual {kkt:.1e} of 1e-2, "
            f"gradient error {gradient_error:.1e} of 1e-2)",
            residual=max(kkt, gradient_error) / 1e-2,
            tolerance=1.0,
            iterations=20,
            suggestion="other starts, or a smaller simulation step dt",
        )
    onset = np.zeros(3)
    onset[1 : 1 + n] = x
    final = swings.swing(x[None, :])
    impact = final.impact
    arm_angle = None
    if wrist:  # the run's clock starts at the earliest onset
        run = final.trajectory
        arm = golfer.lead_arm_below_horizontal(run.q[:, 0])
        arm_angle = float(np.interp(onset[2] - onset.min(), run.t, arm))
    return TimingOptimum(
        onset=frozen(onset),
        impact=Impact(**{k: getattr(impact, k)[0] for k in Impact.__dataclass_fields__}),
        wrist_onset_arm_angle=arm_angle,
        speed=float(speed),
        multiplier=multiplier,
        kkt_residual=kkt,
        tangent_slope=slope,
        gradient_error=gradient_error,
        start_onsets=frozen(onsets),
        start_speeds=frozen(speeds),
    )
