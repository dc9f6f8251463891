r"""Muscle-like torque generators of the swing-plane golfer.

:class:`SwingGenerators`: the hub, lead-shoulder and lead-wrist generators of
:mod:`geomotion.muscles` (activation x peak isometric torque x torque-velocity factor),
each excited by a step at its onset from a holding activation, plus the wrist's passive
end stops; a callable ``u(t, q, v)`` for ``INPUT_MATRIX`` (:func:`swing_generators` builds
it).  :func:`holding_activation`: the activations that hold a posture at rest against
gravity (the top of the backswing), each generator's level before its onset.

Parameters and their sources (``GENERATOR_DEFAULTS``; the ranges are
``GENERATOR_RANGES``):

* hub: peak 200 N m and :math:`\omega_{max}` = 30 rad/s, the torso generator of MacKenzie
  & Sprigings as stated by McNally & McPhee (2018) (model-param; the 200 N m derived from
  their pelvis 250 N m "25 % greater than the torso"); the hub lumps the hips with the
  trunk, so its peak is varied from the torso's 200 to the pelvis's 250 N m, and its
  :math:`\omega_{max}` from the torso's 30 rad/s to 60 rad/s, the two in series (their
  pelvis's is "equal to that of the torso", and the rates of a chain add), an upper
  bound, not a measurement;
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
  taken as neutral deviation.  The stops are :class:`geomotion.muscles.DampedLimit`
  (exponential stiffness and damping beyond the edges; ``stop="elastic"`` gives the
  conservative quadratic :class:`geomotion.muscles.PassiveLimit` of earlier versions,
  which returns what it stores): the elastic torque equals the wrist generator's peak
  ``stop_angle`` past a stop (10 degrees, varied 5-20), its exponential rate
  :math:`k_2` is 20 per rad (the torque grows e-fold every 2.9 degrees far out; varied
  10-40), the damping :math:`c` is 3 N m s/rad (varied 1-10), reached ``damping_angle``
  past a stop (5 degrees, varied 2-10); all modelling choices with no source;
* holding activations: no source; each is computed, not chosen (the static balance of
  the top posture, :func:`holding_activation`).
"""

from dataclasses import dataclass, field

import numpy as np

from .. import _validate, muscles
from ._impact import ADDRESS_WRIST_ANGLE
from ._shared import frozen
from .swing import _TOP, INPUT_MATRIX, SwingPlaneGolfer

__all__ = ["GENERATOR_DEFAULTS", "GENERATOR_RANGES", "SwingGenerators", "swing_generators"]
__all__ += ["Holding", "holding_activation"]

#: Generator parameters (see the module documentation for their sources).
GENERATOR_DEFAULTS = {
    "peak_torque": (200.0, 100.0, 30.0),  # N m: hub (model-param), shoulder, wrist (choices)
    "max_velocity": (30.0, 30.0, 30.0),  # rad/s: hub (model-param), shoulder, wrist (choices)
    "shape": 3.0,  # Gamma, concentric curvature (choice)
    "time_constant": 0.03,  # s, activation (choice)
    "ulnar_range": np.radians(30.0),  # AAOS mean ulnar deviation
    "stop_angle": np.radians(10.0),  # past a stop where the elastic torque = wrist peak (choice)
    "stop_rate": 20.0,  # 1/rad, the stop's exponential rate k2 (choice)
    "stop_damping": 3.0,  # N m s/rad, the stop's damping c (choice)
    "damping_angle": np.radians(5.0),  # past a stop where the damping reaches c (choice)
}
#: The ranges over which every conclusion is checked.
GENERATOR_RANGES = {
    "hub_peak": (200.0, 250.0),
    "hub_max_velocity": (30.0, 60.0),
    "shoulder_peak": (60.0, 150.0),
    "wrist_peak": (15.0, 45.0),
    "arm_max_velocity": (20.0, 50.0),
    "shape": (2.0, 5.0),
    "time_constant": (0.02, 0.05),
    "ulnar_range": (np.radians(26.0), np.radians(41.0)),
    "stop_angle": (np.radians(5.0), np.radians(20.0)),
    "stop_rate": (10.0, 40.0),
    "stop_damping": (1.0, 10.0),
    "damping_angle": (np.radians(2.0), np.radians(10.0)),
}
#: The kinds of wrist stop ``swing_generators`` builds.
STOP_KINDS = ("damped", "elastic")


@dataclass(frozen=True, eq=False, kw_only=True)
class SwingGenerators:
    r"""Hub, lead-shoulder and lead-wrist torque generators with the wrist's end stops.

    Equation of the book: :eq:`eq-ch3-generator`.

    .. math:: u_j = s_j\,a_j(t)\,T_{0j}\,f_j(v_j) + \tau_{stop}(q_2, v_2)\,[j = 2],

              a_j(t) = h_j\ (t < t_j),\qquad
              a_j(t) = 1 - (1 - h_j)\,e^{-(t - t_j)/\tau_a}\ (t \ge t_j)

    (:func:`geomotion.muscles.step_activation`,
    :func:`geomotion.muscles.torque_velocity_factor`,
    :class:`geomotion.muscles.DampedLimit`), with :math:`s_j` 1 for an active generator
    and 0 for one switched off, :math:`h_j` the activation held before the onset
    (:func:`holding_activation`; 0 from rest); every generator turns its joint the
    downswing's way.

    Attributes
    ----------
    generators : tuple of geomotion.muscles.TorqueGenerator
        Hub, lead shoulder, lead wrist.
    onset : (..., 3) ndarray
        Excitation onsets, s, on the run's clock.
    active : (..., 3) ndarray
        :math:`s_j`, 1.0 or 0.0.
    wrist_stop : geomotion.muscles.DampedLimit or geomotion.muscles.PassiveLimit
        The wrist's radial and ulnar stops on :math:`q_2`.
    hold : (..., 3) ndarray
        :math:`h_j \in [0, 1]`, the activation before each onset; default zeros.
    """

    generators: tuple
    onset: np.ndarray
    active: np.ndarray
    wrist_stop: object
    hold: np.ndarray = field(default_factory=lambda: frozen(np.zeros(3)))

    def __post_init__(self):
        # __call__ does not check its fields at every step: check them once here (also
        # after dataclasses.replace, as simulate_downswing does with ``hold``).
        onset = _validate.trailing_shape(self.onset, "onset", (3,))
        hold = _validate.trailing_shape(self.hold, "hold", (3,))
        if np.any((hold < 0) | (hold > 1)):
            raise ValueError(f"hold: expected activations in [0, 1], got {self.hold!r}")
        if len(self.generators) != 3 or not all(
            isinstance(g, muscles.TorqueGenerator) for g in self.generators
        ):
            kinds = [type(g).__name__ for g in self.generators]
            raise TypeError(f"generators: expected three muscles.TorqueGenerator, got {kinds}")
        if not isinstance(self.wrist_stop, (muscles.DampedLimit, muscles.PassiveLimit)):
            raise TypeError(
                f"wrist_stop: expected a DampedLimit or a PassiveLimit, got "
                f"{type(self.wrist_stop).__name__}"
            )
        _validate.batch_shape(
            {"onset": onset.shape[:-1], "hold": hold.shape[:-1], "active": self.active.shape[:-1]}
        )

    def stop_tau(self, q, v):
        """The wrist stops' torque at wrist angle ``q`` (rad) and rate ``v`` (rad/s), N m."""
        if isinstance(self.wrist_stop, muscles.PassiveLimit):
            return self.wrist_stop.tau(q)
        return self.wrist_stop.tau(q, v)

    def __call__(self, t, q, v):
        """u(t, q, v) (..., 3), N m: the inputs of ``simulate_constrained``.

        Called at every stage of every step, with the integrator's states (the
        generators' own fields were checked when they were built): it evaluates the
        checked formulas of ``step_tau`` and ``stop_tau`` without checking again
        (tests/companion/test_muscles_damped.py compares the two).
        """
        t = np.asarray(t, dtype=float)
        t = t[..., 0] if t.ndim else t
        columns = [
            self.active[..., j]
            * g._step_torque(t, self.onset[..., j], v[..., j], self.hold[..., j])
            for j, g in enumerate(self.generators)
        ]
        columns[2] = columns[2] + self.wrist_stop._unchecked_tau(q[..., 2], v[..., 2])
        return np.stack(columns, axis=-1)


def _wrist_stop(kind, lower, upper, peak, stop_angle, rate, damping, damping_angle):
    """The wrist's stops of ``kind`` (STOP_KINDS) whose elastic torque is ``peak`` (N m)
    ``stop_angle`` (rad) past a stop."""
    if kind == "elastic":
        return muscles.PassiveLimit(q_min=lower, q_max=upper, stiffness=peak / stop_angle**2)
    rate = _validate.positive(rate, "stop_rate")
    y = rate * stop_angle
    return muscles.DampedLimit(
        q_min=lower,
        q_max=upper,
        scale=peak / (np.expm1(y) - y - y * y / 2),
        rate=rate,
        damping=damping,
        damping_angle=damping_angle,
    )


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
    stop_rate=GENERATOR_DEFAULTS["stop_rate"],
    stop_damping=GENERATOR_DEFAULTS["stop_damping"],
    damping_angle=GENERATOR_DEFAULTS["damping_angle"],
    stop="damped",
    hold=0.0,
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
        elastic stop torque equals the wrist generator's peak.
    stop_rate, stop_damping, damping_angle : float or array_like, keyword only
        The damped stop's :math:`k_2` (1/rad), :math:`c` (N m s/rad) and :math:`\delta`
        (rad) (:class:`geomotion.muscles.DampedLimit`); unused by an elastic stop.
    stop : str, keyword only
        "damped" (default: :class:`geomotion.muscles.DampedLimit`) or "elastic" (the
        conservative :class:`geomotion.muscles.PassiveLimit`, stiffness
        peak / stop_angle^2).
    hold : float or (..., 3) array_like, keyword only
        Activation held before each onset, in [0, 1]; default 0 (from rest).
        :func:`holding_activation` gives the levels that hold a posture.
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
        and 1, ``stop`` is not one of ``STOP_KINDS``, a value is out of range, the stops
        are out of order, or as :class:`geomotion.muscles.TorqueGenerator`.
    """
    onset = _validate.trailing_shape(onset, "onset", (3,))
    peak = _validate.trailing_shape(peak_torque, "peak_torque", (3,))
    rates = _validate.trailing_shape(max_velocity, "max_velocity", (3,))
    active = _validate.trailing_shape(active, "active", (3,))
    if not np.all((active == 0) | (active == 1)):
        bad = active[(active != 0) & (active != 1)].ravel()[0]
        raise ValueError(f"active: expected entries 0 or 1, got an entry {bad!r}")
    if stop not in STOP_KINDS:
        raise ValueError(f"stop: expected one of {STOP_KINDS}, got {stop!r}")
    hold = _validate.real_array(hold, "hold")
    if hold.ndim and hold.shape[-1] != 3 or np.any((hold < 0) | (hold > 1)):
        raise ValueError(f"hold: expected activations in [0, 1], one per generator, got {hold!r}")
    hold = np.broadcast_to(hold, hold.shape[:-1] + (3,) if hold.ndim else (3,))
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
    wrist_stop = _wrist_stop(
        stop, lower, upper, peak[..., 2], stop_angle, stop_rate, stop_damping, damping_angle
    )
    return SwingGenerators(
        generators=generators,
        onset=frozen(onset),
        active=frozen(active),
        wrist_stop=wrist_stop,
        hold=frozen(hold),
    )


@dataclass(frozen=True, eq=False)
class Holding:
    r"""The activations that hold a posture at rest (:func:`holding_activation`).

    Attributes
    ----------
    activation : (..., 3) ndarray
        :math:`h_j = \mathrm{clip}(u_j / T_{0j}, 0, 1)`, 0 for a generator switched off.
    tau : (..., 3) ndarray
        :math:`u_j`, the generator torques of the static balance, N m (before clipping).
    multiplier : (..., 2) ndarray
        The trail grip's :math:`\lambda` of that balance, N.
    residual : (...) ndarray
        :math:`\|B\,s\,T_0h + B\,\tau_{stop} + J_c^T\lambda - h(q, 0)\|` with the clipped
        activations, N m: zero where the posture is held.
    held : (...) ndarray of bool
        The residual is below 1e-9 N m times the largest gravity moment (no generator
        clipped, none needed that is switched off).
    """

    activation: np.ndarray
    tau: np.ndarray
    multiplier: np.ndarray
    residual: np.ndarray
    held: np.ndarray


def holding_activation(golfer, generators, q):
    r"""The activations that hold the golfer at rest in posture ``q`` against gravity.

    At rest the constrained equations :math:`M\dot v + h = \tau + J_c^T\lambda` with
    :math:`\dot v = 0` read

    .. math:: B\,u + J_c^T\lambda = h(q, 0) - B\,\tau_{stop}(q_2, 0)\,e_2,

    five equations (``INPUT_MATRIX`` :math:`B`; :math:`h(q, 0)` is the gravity term)
    for the active generators' torques :math:`u_j` and the trail grip's two
    :math:`\lambda` (the passive trail arm's two rows fix :math:`\lambda`, the other
    three the torques): solved exactly when all three generators are active, in least
    squares otherwise.  At rest :math:`f(0) = 1`, so :math:`h_j = u_j / T_{0j}`; a
    generator only turns its joint the downswing's way and saturates at 1, so
    :math:`h_j` is clipped to [0, 1] and ``held`` reports whether the clipped levels
    still balance.

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    generators : SwingGenerators
        Its peaks, active flags and wrist stop are used (its ``hold`` is not).
    q : (..., 5) array_like
        The posture, rad, on the closure (``golfer.top_of_backswing()``).

    Returns
    -------
    Holding

    Raises
    ------
    TypeError
        If ``golfer`` or ``generators`` has the wrong type.
    ValueError
        If ``q`` does not end in 5 entries or does not broadcast with the golfer.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not isinstance(generators, SwingGenerators):
        raise TypeError(f"generators: expected a SwingGenerators, got {type(generators).__name__}")
    q = _validate.trailing_shape(q, "q", (5,))
    q = np.broadcast_to(q, np.broadcast_shapes(golfer.batch_shape, q.shape[:-1]) + (5,))
    gravity = golfer.bias(q, np.zeros_like(q))
    stop = generators.stop_tau(q[..., 2], np.zeros(q.shape[:-1]))
    rhs = gravity - stop[..., None] * INPUT_MATRIX[:, 2]
    active = np.broadcast_to(generators.active, q.shape[:-1] + (3,))
    A = np.concatenate(
        [INPUT_MATRIX * active[..., None, :], golfer.trail_grip.jacobian(q).swapaxes(-1, -2)],
        axis=-1,
    )
    x = (np.linalg.pinv(A) @ rhs[..., None])[..., 0]
    torque, multiplier = x[..., :3] * active, x[..., 3:]
    peaks = [np.broadcast_to(g.peak_torque, q.shape[:-1]) for g in generators.generators]
    peak = np.stack(peaks, axis=-1)
    activation = np.clip(torque / peak, 0.0, 1.0) * active
    balance = np.concatenate([activation * peak, multiplier], axis=-1)
    residual = np.linalg.norm((A @ balance[..., None])[..., 0] - rhs, axis=-1)
    scale = np.max(np.abs(gravity), axis=-1)
    return Holding(
        activation=frozen(activation),
        tau=frozen(torque),
        multiplier=frozen(multiplier),
        residual=frozen(residual),
        held=frozen(residual <= 1e-9 * scale),
    )
