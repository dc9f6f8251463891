r"""Time integration of tree dynamics, with a work-energy report.

:func:`simulate` integrates the unconstrained equations of motion of a
:class:`geomotion.tree.Tree`, :math:`\ddot q = \mathrm{ABA}(q, \dot q, \tau)`, with a
fixed step, and reports along the trajectory the kinetic energy :math:`K`, the
potential energy :math:`V` (uniform gravity), the work :math:`W` done by the applied
joint torques, and the work-energy residual

.. math:: r(t) = K(t) + V(t) - K(0) - V(0) - W(t),\qquad
          W(t) = \int_0^t \tau^T\dot q\,dt .

For exact solutions :math:`r \equiv 0`; numerically it measures integration error
(drift), separately from modelled energy input or dissipation, which enters
through :math:`W`.  The work is accumulated consistently with each method, so the
residual converges at the method's order:

* ``"rk4"`` (classical Runge-Kutta, order 4): the work is carried as one more
  state, :math:`\dot W = \tau^T\dot q`, evaluated at the same four stages as the
  dynamics, so :math:`r = O(\Delta t^4)`.
* ``"semi_implicit_euler"`` (symplectic Euler, order 1): velocity first, then
  position with the new velocity,

  .. math:: \dot q_{k+1} = \dot q_k + \Delta t\,\ddot q(t_k, q_k, \dot q_k),\qquad
            q_{k+1} = q_k + \Delta t\,\dot q_{k+1},

  and the work of the step is that of the torque the step applied over the
  displacement it took, :math:`\Delta W_k = \tau_k^T(q_{k+1} - q_k)` (exact for a
  constant torque, which then acts like the potential :math:`-\tau^Tq`).  For a
  constant mass matrix (separable energy) the scheme is symplectic and its energy
  error oscillates without drift.  With a configuration-dependent mass matrix the
  update in :math:`(q, \dot q)` is not symplectic (that would need the momenta
  :math:`M(q)\dot q` and an implicit step): the energy error can drift, at a rate
  that shrinks linearly with :math:`\Delta t`.

Every array of the result has the time index first; leading batch axes of the
initial state follow it, so a sweep over initial conditions is one call.
"""

from dataclasses import dataclass
from numbers import Integral

import numpy as np

from . import _validate, tree

__all__ = ["METHODS", "Trajectory", "simulate"]

#: Integration methods understood by :func:`simulate`.
METHODS = ("rk4", "semi_implicit_euler")


@dataclass(frozen=True)
class Trajectory:
    r"""Result of :func:`simulate`; index ``k`` of every array is time ``t[k] = k dt``.

    Attributes
    ----------
    t : (n_steps + 1,) ndarray
        Times in s, starting at 0.
    q : (n_steps + 1, ..., N) ndarray
        Joint coordinates (rad for revolute, m for prismatic joints).
    qd : (n_steps + 1, ..., N) ndarray
        Joint rates (rad/s, m/s).
    kinetic : (n_steps + 1, ...) ndarray
        Kinetic energy :math:`K = \tfrac12\dot q^TM(q)\dot q` in J.
    potential : (n_steps + 1, ...) ndarray
        Gravitational potential energy in J (reference of :func:`tree.potential_energy`).
    work : (n_steps + 1, ...) ndarray
        Work of the applied joint torques since ``t = 0`` in J, accumulated
        consistently with ``method`` (see the module documentation).
    energy_residual : (n_steps + 1, ...) ndarray
        :math:`K + V - K_0 - V_0 - W` in J: zero for the exact motion.
    method : str
        The integration method used.
    dt : float
        Step in s.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    work: np.ndarray
    energy_residual: np.ndarray
    method: str
    dt: float

    @property
    def energy(self):
        """Total mechanical energy :math:`K + V` in J, shape ``(n_steps + 1, ...)``."""
        return self.kinetic + self.potential


def _n_dof(model):
    return model.num_bodies


def _torque_function(torque, n):
    """Return a callable (t, q, qd) -> tau of shape (..., n), validated at each call."""
    if torque is None:
        return lambda t, q, qd: np.zeros(q.shape)
    if callable(torque):

        def call(t, q, qd):
            tau = _validate.real_array(torque(t, q.copy(), qd.copy()), "torque(t, q, qd)")
            try:
                return np.broadcast_to(tau, q.shape)
            except ValueError as error:
                raise ValueError(
                    f"torque(t, q, qd): expected an array broadcastable to {q.shape}, "
                    f"got shape {tau.shape}"
                ) from error

        return call
    tau = _validate.real_array(torque, "torque")
    if tau.ndim == 0 or tau.shape[-1] != n:
        raise ValueError(
            f"torque: expected None, a callable (t, q, qd) -> tau, or an array of shape "
            f"(..., {n}), got {torque!r}"
        )
    return lambda t, q, qd: np.broadcast_to(tau, np.broadcast_shapes(tau.shape, q.shape))


def _power(tau, qd):
    return np.einsum("...i,...i->...", tau, qd)


def simulate(model, q0, qd0, dt, n_steps, method="rk4", torque=None, gravity=(0.0, 0.0, -9.81)):
    r"""Integrate a tree's forward dynamics with a fixed step and report the energy balance.

    .. math:: \ddot q = \mathrm{ABA}(q, \dot q, \tau),\qquad
              r(t) = K(t) + V(t) - K(0) - V(0) - \int_0^t \tau^T\dot q\,dt

    See the module documentation for the update formulas and how each method
    accumulates the work.  No external wrenches act; joint torques are the only
    non-conservative load.

    Parameters
    ----------
    model : tree.Tree
        The mechanism (fixed base, one coordinate per body).
    q0 : (..., N) array_like
        Initial joint coordinates (rad, m); leading axes form a batch.
    qd0 : (..., N) array_like
        Initial joint rates (rad/s, m/s); broadcast with ``q0``.
    dt : float
        Step in s, positive.
    n_steps : int
        Number of steps, at least 1.
    method : {"rk4", "semi_implicit_euler"}
        Classical fourth-order Runge-Kutta, or first-order symplectic Euler.
    torque : None, (..., N) array_like, or callable
        Applied joint torques (N m for revolute, N for prismatic joints): None for
        none, a constant array, or ``torque(t, q, qd)`` returning an array
        broadcastable to ``q``'s shape (``t`` in s).
    gravity : (3,) array_like
        Gravitational acceleration in base coordinates, m/s^2.

    Returns
    -------
    Trajectory
        Times, states, energies, work and the energy residual.

    Raises
    ------
    ValueError
        If ``dt`` is not positive and finite, ``n_steps`` is not an integer >= 1,
        ``method`` is unknown, ``q0``/``qd0``/``torque``/``gravity`` have the wrong
        shape or non-finite values, or the torque callable returns a wrong shape.
    """
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    dt_array = _validate.real_array(dt, "dt")
    if dt_array.ndim != 0 or dt_array <= 0:
        raise ValueError(f"dt: expected a positive step in s, got {dt!r}")
    dt = float(dt_array)
    if isinstance(n_steps, bool) or not isinstance(n_steps, Integral) or n_steps < 1:
        raise ValueError(f"n_steps: expected an integer >= 1, got {n_steps!r}")
    n_steps = int(n_steps)
    n = _n_dof(model)
    q0 = _validate.trailing_shape(q0, "q0", (n,))
    qd0 = _validate.trailing_shape(qd0, "qd0", (n,))
    try:
        q0, qd0 = (np.array(a) for a in np.broadcast_arrays(q0, qd0))
    except ValueError as error:
        raise ValueError(
            f"qd0: expected leading axes broadcastable with q0 {q0.shape}, got shape {qd0.shape}"
        ) from error
    g = _validate.trailing_shape(gravity, "gravity", (3,))
    if g.shape != (3,):
        raise ValueError(f"gravity: expected shape (3,), got shape {g.shape}")
    tau_of = _torque_function(torque, n)
    # Validate a constant torque's batch shape against the state once, up front.
    shape = np.broadcast_shapes(tau_of(0.0, q0, qd0).shape, q0.shape)
    q0, qd0 = np.broadcast_to(q0, shape).copy(), np.broadcast_to(qd0, shape).copy()

    def acceleration(t, q, qd):
        tau = tau_of(t, q, qd)
        return tree.aba(model, q, qd, tau, gravity=g), tau

    t = dt * np.arange(n_steps + 1)
    q = np.empty((n_steps + 1,) + shape)
    qd = np.empty((n_steps + 1,) + shape)
    work = np.zeros((n_steps + 1,) + shape[:-1])
    q[0], qd[0] = q0, qd0

    for k in range(n_steps):
        tk, qk, vk = t[k], q[k], qd[k]
        if method == "rk4":
            a1, tau1 = acceleration(tk, qk, vk)
            p1 = _power(tau1, vk)
            q2, v2 = qk + 0.5 * dt * vk, vk + 0.5 * dt * a1
            a2, tau2 = acceleration(tk + 0.5 * dt, q2, v2)
            p2 = _power(tau2, v2)
            q3, v3 = qk + 0.5 * dt * v2, vk + 0.5 * dt * a2
            a3, tau3 = acceleration(tk + 0.5 * dt, q3, v3)
            p3 = _power(tau3, v3)
            q4, v4 = qk + dt * v3, vk + dt * a3
            a4, tau4 = acceleration(tk + dt, q4, v4)
            p4 = _power(tau4, v4)
            q[k + 1] = qk + dt / 6 * (vk + 2 * v2 + 2 * v3 + v4)
            qd[k + 1] = vk + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
            work[k + 1] = work[k] + dt / 6 * (p1 + 2 * p2 + 2 * p3 + p4)
        else:
            a, tau = acceleration(tk, qk, vk)
            qd[k + 1] = vk + dt * a
            q[k + 1] = qk + dt * qd[k + 1]
            work[k + 1] = work[k] + _power(tau, q[k + 1] - qk)

    kinetic = tree.kinetic_energy(model, q, qd)
    potential = tree.potential_energy(model, q, gravity=g)
    residual = kinetic + potential - kinetic[0] - potential[0] - work
    return Trajectory(t, q, qd, kinetic, potential, work, residual, method, dt)
