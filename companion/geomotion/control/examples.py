r"""The chapter's example vector fields, as :class:`ControlAffineSystem` objects with exact
Jacobians (so their brackets need no differences).

* :func:`oscillator_fields` -- :math:`X = (x_2, -x_1)`, :math:`Y = (0, 1)`, with
  :math:`[X, Y] = (-1, 0)`;
* :func:`car_kinematics` -- the kinematic car, driftless, whose brackets supply heading
  and sideways directions;
* :func:`forward_drift_example` -- :math:`\dot x_1 = 1`, :math:`\dot x_2 = u`: full
  rank, yet :math:`x_1` never decreases.
"""

import numpy as np

from .. import _validate
from .brackets import ControlAffineSystem

__all__ = ["oscillator_fields", "car_kinematics", "forward_drift_example"]


def _fields(*components):
    """Stack broadcast components along a new last axis: (..., k)."""
    return np.stack(np.broadcast_arrays(*components), axis=-1)


def _constant(vector):
    """A constant field and its zero Jacobian."""
    vector = np.array(vector, dtype=float)
    n = vector.size
    return (
        lambda x: np.broadcast_to(vector, np.shape(x)[:-1] + (n,)),
        lambda x: np.zeros(np.shape(x)[:-1] + (n, n)),
    )


def oscillator_fields():
    r"""The seed's bracket example: drift :math:`X = (x_2, -x_1)`, input :math:`Y = (0, 1)`.

    .. math:: \dot x = X(x) + Y u,\qquad [X, Y] = DY\,X - DX\,Y = (-1, 0)

    (a unit-frequency oscillator pushed along :math:`x_2`).  :math:`Y` and
    :math:`[X, Y]` span the plane at every state: the bracket gives the second
    direction of a two-dimensional space, never a third.  The bracket is equation
    :eq:`eq-ch2-lie-bracket`.

    Returns
    -------
    ControlAffineSystem
        Fields named ``("X", "Y")``, with exact Jacobians; states (x1, x2) in
        consistent units, time in s.
    """
    Y, dY = _constant([0.0, 1.0])
    return ControlAffineSystem(
        drift=lambda x: _fields(x[..., 1], -x[..., 0]),
        inputs=(Y,),
        drift_jacobian=lambda x: np.broadcast_to(
            np.array([[0.0, 1.0], [-1.0, 0.0]]), np.shape(x)[:-1] + (2, 2)
        ),
        input_jacobians=(dY,),
        names=("X", "Y"),
    )


def _steering_angle(x):
    phi = x[..., 3]
    if np.any(np.abs(phi) >= 0.5 * np.pi):
        raise ValueError(
            "x: expected steering angles x[..., 3] within (-pi/2, pi/2) rad (tan phi "
            f"finite), got up to {np.abs(phi).max():.6g} rad"
        )
    return phi


def car_kinematics(*, wheelbase=1.0):
    r"""Kinematic car (rear-axle reference point), driftless: :math:`\dot x = g_1u_1 + g_2u_2`.

    State :math:`x = (x, y, \theta, \varphi)`: rear-axle position (m), heading (rad),
    steering angle (rad, :math:`|\varphi| < \pi/2`).  Inputs: forward speed
    :math:`u_1` (m/s) and steering rate :math:`u_2` (rad/s).

    .. math:: g_1 = (\cos\theta, \sin\theta, \tan\varphi/L, 0),\qquad g_2 = (0, 0, 0, 1),

    .. math:: [g_2, g_1] = (0, 0, \sec^2\varphi/L, 0),\qquad
              [g_1, [g_2, g_1]] = (\sin\theta, -\cos\theta, 0, 0)\sec^2\varphi/L .

    The first bracket (equation :eq:`eq-ch2-car-bracket`) turns the heading, the second
    moves the car sideways, so the four fields span all directions at every admissible
    state.  Steering alone does not move the car; a sideways displacement needs a
    sequence of steering and driving, forward and in reverse.

    Parameters
    ----------
    wheelbase : float, optional
        :math:`L` > 0, distance between the axles, m (default 1).

    Returns
    -------
    ControlAffineSystem
        Fields ``("g1", "g2")`` with exact Jacobians; they raise ValueError for
        :math:`|\varphi| \ge \pi/2`.

    Raises
    ------
    ValueError
        If ``wheelbase`` is not a positive finite number.
    """
    L = _validate.positive(wheelbase, "wheelbase")
    if L.ndim:
        raise ValueError(f"wheelbase: expected a positive number in m, got {wheelbase!r}")
    L = float(L)

    def drive(x):
        x = np.asarray(x, dtype=float)
        theta, phi = x[..., 2], _steering_angle(x)
        return _fields(np.cos(theta), np.sin(theta), np.tan(phi) / L, np.zeros_like(theta))

    def drive_jacobian(x):
        x = np.asarray(x, dtype=float)
        theta, phi = x[..., 2], _steering_angle(x)
        D = np.zeros(x.shape[:-1] + (4, 4))
        D[..., 0, 2], D[..., 1, 2] = -np.sin(theta), np.cos(theta)
        D[..., 2, 3] = 1.0 / (L * np.cos(phi) ** 2)
        return D

    steer, steer_jacobian = _constant([0.0, 0.0, 0.0, 1.0])
    return ControlAffineSystem(
        drift=None,
        inputs=(drive, steer),
        input_jacobians=(drive_jacobian, steer_jacobian),
        names=("g1", "g2"),
    )


def forward_drift_example():
    r"""The seed's warning example :math:`\dot x_1 = 1`, :math:`\dot x_2 = u`.

    Drift :math:`f = (1, 0)` and input :math:`g = (0, 1)` span the plane at every state,
    so the accessibility rank is full; yet :math:`x_1(t) = x_1(0) + t` along every
    forward trajectory, whatever the input: no state with smaller :math:`x_1` is
    reachable, and the system is not small-time locally controllable.

    Returns
    -------
    ControlAffineSystem
        Fields ``("f", "g")`` with exact (zero) Jacobians.
    """
    f, df = _constant([1.0, 0.0])
    g, dg = _constant([0.0, 1.0])
    return ControlAffineSystem(
        drift=f, inputs=(g,), drift_jacobian=df, input_jacobians=(dg,), names=("f", "g")
    )
