r"""The small example systems several figures share (definitions, not algorithms).

* :func:`circle_constraint` -- the seed's circle :math:`\Phi = \tfrac12(q^Tq - R^2)`,
  :math:`J_c = q^T`, :math:`\gamma = \dot J_cv = v^Tv`;
* :func:`circle_pendulum` -- a particle of mass ``mass`` in the vertical x-y plane under
  gravity :math:`-g\,y`: :math:`M = mI`, :math:`h = (0, mg)`, :math:`V = mgy`.
"""

import numpy as np

from .. import constraints, integrators

#: Gravitational acceleration of the example pendulum, m/s^2.
GRAVITY = 9.81


def circle_constraint(radius):
    r"""The seed's circle of radius ``radius`` (m) as a constraint object."""
    return constraints.FunctionConstraint(
        residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - radius**2),
        jacobian=lambda q: q[..., None, :],
        acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True),
    )


def circle_pendulum(mass=1.0, gravity=GRAVITY):
    """A particle in the vertical plane under gravity, as a MechanicalSystem (kg, m/s^2)."""
    return integrators.MechanicalSystem(
        mass_matrix=lambda q: mass * np.broadcast_to(np.eye(2), q.shape[:-1] + (2, 2)),
        bias=lambda q, v: np.broadcast_to([0.0, mass * gravity], q.shape),
        potential=lambda q: mass * gravity * q[..., 1],
    )


def on_circle(angle, rate, radius):
    """State (q, v) on a circle at ``angle`` from the lowest point (rad), angular ``rate`` (rad/s)."""
    q = radius * np.array([np.sin(angle), -np.cos(angle)])
    return q, radius * rate * np.array([np.cos(angle), np.sin(angle)])
