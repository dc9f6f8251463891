r"""Muscle-like torque generators of the swing-plane golfer.

:class:`SwingGenerators`: the hub, lead-shoulder and lead-wrist generators of
:mod:`geomotion.muscles` (activation x peak isometric torque x torque-velocity factor),
each excited by a step at its onset, plus the wrist's passive end stops; a callable
``u(t, q, v)`` for ``INPUT_MATRIX`` (:func:`swing_generators` builds it).

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

from .. import _validate, muscles
from ._impact import ADDRESS_WRIST_ANGLE
from ._shared import frozen
from .swing import _TOP

__all__ = ["GENERATOR_DEFAULTS", "GENERATOR_RANGES", "SwingGenerators", "swing_generators"]

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

    Equation of the book: :eq:`eq-ch3-generator`.

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
