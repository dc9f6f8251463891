"""The seed's circle as a pendulum, shared by the constrained-integrator tests.

A particle of mass ``MASS`` in the vertical x-y plane under gravity -g y (M = m I,
h = (0, m g), V = m g y), held on the circle Phi = (q.q - R^2)/2, J = q^T, gamma = v.v.
"""

import numpy as np

from geomotion import constraints, integrators

G = 9.81
R, MASS = 0.8, 1.5  # circle radius (m) and particle mass (kg)

CIRCLE = constraints.FunctionConstraint(
    residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - R**2),
    jacobian=lambda q: q[..., None, :],
    acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True),
)

PARTICLE = integrators.MechanicalSystem(
    mass_matrix=lambda q: MASS * np.eye(2),
    bias=lambda q, v: np.broadcast_to([0.0, MASS * G], q.shape),
    potential=lambda q: MASS * G * q[..., 1],
)
