r"""Impact of the swing-plane golfer: the clubhead reaching the ball.

The ball sits where the clubhead is at address (:func:`ball_at_address`): the hub square
(:math:`q_0 = 0`), the lead arm hanging straight down the plane (:math:`\theta_1 = 0`)
and the club cocked back from the arm's line by the address wrist angle
:math:`\alpha_a` (:math:`q_2 = -\alpha_a`; the trail arm does not move the clubhead).
:math:`\alpha_a` has no source in the golf data: it is a modelling choice, 30 degrees,
varied over ``ADDRESS_WRIST_RANGE`` (20-40 degrees) wherever a conclusion depends on it.

IMPACT is the first instant the face centre crosses the line through the ball normal to
the target line in the swing plane, moving towards the target below the hub axis:

.. math:: g(q) = X_{head}(q) - X_{ball},\qquad g \text{ from } < 0 \text{ to } \ge 0,
          \quad Y_{head} < 0,

located between steps by the quintic Hermite interpolant of :math:`(q, v, \dot v)` and
bisection to round-off.  There the MISS is the face centre's height above the ball along
the plane, :math:`m = Y_{head} - Y_{ball}` (m; positive: the club passes over the ball,
negative: the ground would have been struck first).  A swing REACHES the ball when the
ball meets the face: :math:`|m| \le b`, with :math:`b` the half-width of the contact
band (``IMPACT_BAND``, 25 mm: about half a driver face's height; the face height is
not in the project's golf data, so :math:`b` is a modelling choice, varied over
``IMPACT_BAND_RANGE``, 0-30 mm).  :math:`b = 0` is point contact (the face centre
itself on the ball); the edge is judged to the numerical ``tolerance`` (1 mm): a swing
reaches when :math:`|m| \le b + \text{tolerance}`.  Only a swing that reaches is scored.  A
swing whose clubhead never crosses that line has no impact at all.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from .. import _validate
from ._shared import frozen
from .swing import SwingPlaneGolfer

__all__ = [
    "ADDRESS_WRIST_ANGLE",
    "ADDRESS_WRIST_RANGE",
    "IMPACT_BAND",
    "IMPACT_BAND_RANGE",
    "Impact",
    "ball_at_address",
    "locate_impact",
]

#: Address wrist angle, rad: the club cocked back from the lead arm's line at address
#: (a modelling choice; no source in the golf data).
ADDRESS_WRIST_ANGLE = np.radians(30.0)
#: The range over which conclusions are checked, rad (a modelling choice).
ADDRESS_WRIST_RANGE = (np.radians(20.0), np.radians(40.0))
#: Half-width of the contact band along the plane, m: a swing whose face centre passes
#: within it of the ball reaches it (a modelling choice, about half a driver face's height).
IMPACT_BAND = 0.025
#: The range over which conclusions are checked, m; 0 is point contact (a modelling choice).
IMPACT_BAND_RANGE = (0.0, 0.03)


def ball_at_address(golfer, *, wrist_angle=ADDRESS_WRIST_ANGLE):
    r"""The ball's centre in the plane, (..., 2) m: the face centre at address.

    Address: :math:`q = (0, 0, -\alpha_a, 0, 0)` (the trail arm does not move the
    clubhead), with :math:`\alpha_a` = ``wrist_angle``.

    Parameters
    ----------
    golfer : SwingPlaneGolfer
    wrist_angle : float or array_like, keyword only
        :math:`\alpha_a`, rad, in [0, pi/2); broadcast with the golfer's batch.

    Returns
    -------
    ndarray

    Raises
    ------
    TypeError
        If ``golfer`` is not a SwingPlaneGolfer.
    ValueError
        If ``wrist_angle`` is not finite or outside [0, pi/2).
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    alpha = _validate.real_array(wrist_angle, "wrist_angle")
    if np.any((alpha < 0) | (alpha >= np.pi / 2)):
        raise ValueError(f"wrist_angle: expected in [0, pi/2) rad, got {wrist_angle!r}")
    shape = np.broadcast_shapes(golfer.batch_shape, alpha.shape)
    q = np.zeros(shape + (5,))
    q[..., 2] = -alpha
    return golfer.point(q, "clubhead")


@dataclass(frozen=True, eq=False)
class Impact:
    r"""The state where the clubhead meets the ball's line (:func:`locate_impact`).

    Arrays have the batch shape of the run (one entry per parameter set).  Where
    ``crossed`` is False the clubhead never met the line: the fields then hold the run's
    last state and mean nothing as an impact.

    Attributes
    ----------
    crossed : ndarray of bool
        The face centre met the ball's line within the run.
    reached : ndarray of bool
        Crossed with :math:`|m|` within the contact band (or, for point contact, the
        tolerance): an impact that may be scored.
    time : ndarray
        s, on the run's clock.
    step : ndarray of int
        Index k of the step [t_k, t_k+1] holding the impact.
    q, v : (..., 5) ndarray
        rad, rad/s.
    miss : ndarray
        :math:`m = Y_{head} - Y_{ball}`, m.
    clubhead_velocity : (..., 2) ndarray
        Face-centre velocity in plane coordinates, m/s.
    speed : ndarray
        Its magnitude, m/s.
    path_angle : ndarray
        Direction of that velocity from the target line (+X) in the plane, rad, positive
        up the plane (the club still rising through the ball's line).
    shaft_lean : ndarray
        The club's absolute angle :math:`\theta_2 = q_0 + q_1 + q_2`, rad: 0 with the shaft
        pointing straight down the plane, positive with the clubhead ahead of the hands
        (towards the target).  The face normal is :math:`e(\theta_2)`, so this is also the
        face's turn from square in the plane.
    lead_arm_below_horizontal : ndarray
        rad (Sprigings & Neal's arm angle, see
        :meth:`SwingPlaneGolfer.lead_arm_below_horizontal`).
    shaft_angular_velocity : ndarray
        :math:`\dot\theta_2 = v_0 + v_1 + v_2`, rad/s: the club's angular velocity in the
        plane, positive the downswing's way.
    """

    crossed: np.ndarray
    reached: np.ndarray
    time: np.ndarray
    step: np.ndarray
    q: np.ndarray
    v: np.ndarray
    miss: np.ndarray
    clubhead_velocity: np.ndarray
    speed: np.ndarray
    path_angle: np.ndarray
    shaft_lean: np.ndarray
    lead_arm_below_horizontal: np.ndarray
    shaft_angular_velocity: np.ndarray

    def reshaped(self, shape):
        """The same impacts with the batch laid out in ``shape`` (as ``numpy.reshape``; a
        grid of runs made in one flat batch, say).

        Parameters
        ----------
        shape : tuple of int

        Returns
        -------
        Impact
        """
        batch = np.ndim(self.crossed)
        return Impact(
            **{
                field.name: _frozen_flags(np.reshape(value, tuple(shape) + np.shape(value)[batch:]))
                for field in dataclasses.fields(self)
                for value in (getattr(self, field.name),)
            }
        )


def contact_band(band):
    """``band`` checked: one non-negative float, m."""
    band = _validate.real_array(band, "band")
    if band.ndim or not band >= 0.0:
        raise ValueError(f"band: expected one half-width >= 0 m, got {band!r}")
    return float(band)


def _frozen_flags(values):
    """A read-only copy of boolean or integer ``values``, keeping their type."""
    values = np.array(values)
    values.flags.writeable = False
    return values


def _ball_line_distance(golfer, q, ball):
    """g(q) = X_head - X_ball (m) and the head's height Y_head (m)."""
    head = golfer.clubhead(q)
    return head[..., 0] - ball[..., 0], head[..., 1]


def _crossing_step(golfer, run, ball):
    """First step k with g_k < 0 <= g_k+1 and the head below the hub axis at t_k+1."""
    g, height = _ball_line_distance(golfer, run.q, ball)
    crossing = (g[:-1] < 0) & (g[1:] >= 0) & (height[1:] < 0)
    crossed = crossing.any(axis=0)
    step = np.where(crossed, np.argmax(crossing, axis=0), len(run.t) - 2)
    return step, crossed


def locate_impact(golfer, run, accelerations, ball, *, band=IMPACT_BAND, tolerance=1e-3):
    r"""Locate impact in a run of the swing-plane golfer (see the module documentation).

    Parameters
    ----------
    golfer : SwingPlaneGolfer
        The golfer of the run (its batch shape is the run's).
    run : geomotion.integrators.ConstrainedTrajectory
        States ``run.q``, ``run.v`` of shape (n_steps + 1, ..., 5) at ``run.t``.
    accelerations : callable
        ``accelerations(t, q, v)`` -> :math:`\dot v` (..., 5) of the run's dynamics, for
        the quintic Hermite interpolant inside the impact step.
    ball : (..., 2) array_like
        The ball's centre, m (:func:`ball_at_address`).
    band : float, keyword only
        :math:`b \ge 0`, the contact band's half-width, m; default ``IMPACT_BAND``.
    tolerance : float, keyword only
        Numerical tolerance at the band's edge, m, positive; default 1e-3.  A swing
        reaches the ball when :math:`|m| \le b + \text{tolerance}`.

    Returns
    -------
    Impact

    Raises
    ------
    TypeError
        If ``golfer`` is not a SwingPlaneGolfer or ``accelerations`` is not callable.
    ValueError
        If ``ball`` does not end in 2 entries, ``band`` is negative or ``tolerance`` is
        not positive.
    """
    if not isinstance(golfer, SwingPlaneGolfer):
        raise TypeError(f"golfer: expected a SwingPlaneGolfer, got {type(golfer).__name__}")
    if not callable(accelerations):
        raise TypeError(f"accelerations: expected a callable, got {type(accelerations).__name__}")
    ball = _validate.trailing_shape(ball, "ball", (2,))
    tolerance = float(_validate.positive(tolerance, "tolerance"))
    band = contact_band(band)
    step, crossed = _crossing_step(golfer, run, ball)
    t0, state = _step_interpolant(run, step, accelerations)
    s = _bisect_step(lambda s: _ball_line_distance(golfer, state(s)[0], ball)[0] >= 0, np.shape(t0))
    s = np.where(crossed, s, 1.0)
    q, v = state(s)
    velocity = golfer.clubhead_velocity(q, v)
    miss = golfer.clubhead(q)[..., 1] - ball[..., 1]
    return Impact(
        crossed=_frozen_flags(crossed),
        reached=_frozen_flags(crossed & (np.abs(miss) <= band + tolerance)),
        time=frozen(t0 + s * run.dt),
        step=_frozen_flags(step),
        q=frozen(q),
        v=frozen(v),
        miss=frozen(miss),
        clubhead_velocity=frozen(velocity),
        speed=frozen(np.linalg.norm(velocity, axis=-1)),
        path_angle=frozen(np.arctan2(velocity[..., 1], velocity[..., 0])),
        shaft_lean=frozen(q[..., 0] + q[..., 1] + q[..., 2]),
        lead_arm_below_horizontal=frozen(golfer.lead_arm_below_horizontal(q)),
        shaft_angular_velocity=frozen(v[..., 0] + v[..., 1] + v[..., 2]),
    )


def _take(array, step):
    """array[step[i], i, ...] for each batch row i (or array[step] without a batch)."""
    if np.ndim(step) == 0:
        return array[step]
    return np.take_along_axis(array, step.reshape((1, -1) + (1,) * (array.ndim - 2)), 0)[0]


def _step_interpolant(run, step, accelerations):
    r"""The quintic Hermite interpolant of (q, v, a) over step ``step`` of each row.

    Returns ``(t0, state)``: the step's start time and ``state(s)`` -> (q, v) at the
    fraction ``s`` in [0, 1] of the step; ``accelerations(t, q, v)`` gives :math:`\dot v`
    at its two ends.
    """
    dt = run.dt
    t0 = run.t[step]
    q0, v0 = _take(run.q, step), _take(run.v, step)
    q1, v1 = _take(run.q, step + 1), _take(run.v, step + 1)
    shape = np.shape(t0) + (1,)
    a0 = accelerations(np.reshape(t0, shape), q0, v0)
    a1 = accelerations(np.reshape(t0 + dt, shape), q1, v1)

    def state(s):
        s = np.reshape(s, shape)
        h, d = _quintic_hermite(s), _quintic_hermite(s, derivative=True)
        q = h[0] * q0 + h[1] * dt * v0 + h[2] * dt**2 * a0 + h[3] * q1 + h[4] * dt * v1
        q = q + h[5] * dt**2 * a1
        v = (d[0] * q0 + d[3] * q1) / dt + d[1] * v0 + d[2] * dt * a0 + d[4] * v1
        return q, v + d[5] * dt * a1

    return t0, state


def _bisect_step(ahead, shape):
    """The fraction s in [0, 1] where ``ahead(s)`` turns True, by bisection to round-off
    (2^-60 of a step), each row of ``shape`` on its own."""
    low, high = np.zeros(shape), np.ones(shape)
    for _ in range(60):
        middle = 0.5 * (low + high)
        passed = ahead(middle)
        low, high = np.where(passed, low, middle), np.where(passed, middle, high)
    return 0.5 * (low + high)


#: Quintic Hermite basis on [0, 1]: rows (q0, dt v0, dt^2 a0, q1, dt v1, dt^2 a1), columns
#: the coefficients of s^0 ... s^5.
_QUINTIC = np.array(
    [
        [1, 0, 0, -10, 15, -6],
        [0, 1, 0, -6, 8, -3],
        [0, 0, 0.5, -1.5, 1.5, -0.5],
        [0, 0, 0, 10, -15, 6],
        [0, 0, 0, -4, 7, -3],
        [0, 0, 0, 0.5, -1, 0.5],
    ]
)


def _quintic_hermite(s, derivative=False):
    """The six basis functions at ``s`` (or their s-derivatives), a list of arrays."""
    powers = np.arange(6)
    if derivative:
        coefficients = _QUINTIC[:, 1:] * powers[1:]
        terms = [s**k for k in range(5)]
    else:
        coefficients = _QUINTIC
        terms = [s**k for k in range(6)]
    return [sum(c * term for c, term in zip(row, terms)) for row in coefficients]
