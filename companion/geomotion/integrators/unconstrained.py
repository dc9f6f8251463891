r"""Fixed-step integration of tree dynamics, with a work-inclusive energy report.

:func:`simulate` integrates the unconstrained equations of motion of a
:class:`geomotion.tree.Tree` with optional viscous joint damping,

.. math:: \ddot q = \mathrm{ABA}(q, \dot q, \tau - B_d\dot q),

and reports along the trajectory the kinetic energy :math:`K`, the potential energy
:math:`V` (uniform gravity), the work :math:`W` of the applied joint torques, the
energy :math:`W_{diss}` dissipated by the damping, and the residual of the energy
balance :math:`\dot E = \tau^T\dot q - \dot q^TB_d\dot q`:

.. math:: r(t) = K(t) + V(t) - K(0) - V(0) - W(t) + W_{diss}(t),\qquad
          W = \int_0^t \tau^T\dot q\,dt,\quad W_{diss} = \int_0^t \dot q^TB_d\dot q\,dt .

For exact solutions :math:`r \equiv 0`; numerically it measures integration error
(drift), separately from the modelled energy input and loss.  Both integrals are
accumulated consistently with each method, so the residual converges at the
method's order:

* ``"rk4"`` (classical Runge-Kutta, order 4): the work and the dissipated energy are
  carried as extra states, evaluated at the same four stages as the dynamics, so
  :math:`r = O(\Delta t^4)`.
* ``"semi_implicit_euler"`` (symplectic Euler, order 1): velocity first, then
  position with the new velocity,

  .. math:: \dot q_{k+1} = \dot q_k + \Delta t\,\ddot q(t_k, q_k, \dot q_k),\qquad
            q_{k+1} = q_k + \Delta t\,\dot q_{k+1},

  and each load's share of the step is the work of the force the step applied over
  the displacement it took, :math:`\Delta W_k = \tau_k^T(q_{k+1} - q_k)` and
  :math:`\Delta W_{diss,k} = (B_d\dot q_k)^T(q_{k+1} - q_k)` (exact for a constant
  torque, which then acts like the potential :math:`-\tau^Tq`).  For a constant mass
  matrix and no damping (separable energy) the scheme is symplectic and its energy
  error oscillates without drift.  With a configuration-dependent mass matrix the
  update in :math:`(q, \dot q)` is not symplectic (that would need the momenta
  :math:`M(q)\dot q` and an implicit step): the energy error can drift, at a rate
  that shrinks linearly with :math:`\Delta t`.

Every array of the result has the time index first; leading batch axes of the
initial state follow it, so a sweep over initial conditions is one call.
"""

from dataclasses import dataclass

import numpy as np

from .. import systems, tree
from . import _common

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
    q : (n_steps + 1, ..., nq) ndarray
        Configurations (rad, m, unit quaternions).
    v : (n_steps + 1, ..., nv) ndarray
        Velocities (rad/s, m/s).
    kinetic : (n_steps + 1, ...) ndarray
        Kinetic energy :math:`K = \tfrac12v^TM(q)v` in J.
    potential : (n_steps + 1, ...) ndarray
        Gravitational potential energy in J (reference of ``tree.potential_energy``).
    input_work : (n_steps + 1, ...) ndarray
        Work :math:`\int\tau^Tv\,dt` of the applied joint torques since ``t = 0`` in J,
        accumulated consistently with ``method`` (see the module documentation).
    dissipated : (n_steps + 1, ...) ndarray
        Energy removed by the viscous damping since ``t = 0`` in J,
        :math:`\int\dot q^TB_d\dot q\,dt` (zero without damping).
    energy_residual : (n_steps + 1, ...) ndarray
        :math:`K + V - K_0 - V_0 - W_{in} + W_{diss}` in J: zero for the exact motion.
    method : str
        The integration method used.
    dt : float
        Step in s.

    Examples
    --------
    The two-link arm released from rest, stretched out horizontally: after 0.2 s it has
    traded potential for kinetic energy, with the balance closed to RK4 accuracy.

    >>> import numpy as np
    >>> from geomotion import integrators, models
    >>> arm = models.two_link_teaching_arm()
    >>> run = integrators.simulate(arm, [0.0, 0.0], [0.0, 0.0], dt=0.01, n_steps=20)
    >>> run.t.shape, run.q.shape  # 21 states of 2 joints
    ((21,), (21, 2))
    >>> float(run.kinetic[-1].round(3)), float(run.potential[-1].round(3))  # J
    (4.971, -4.971)
    >>> bool(np.abs(run.energy_residual).max() < 1e-5)
    True
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    input_work: np.ndarray
    dissipated: np.ndarray
    energy_residual: np.ndarray
    method: str
    dt: float

    @property
    def energy(self):
        """Total mechanical energy :math:`K + V` in J, shape ``(n_steps + 1, ...)``."""
        return self.kinetic + self.potential


def simulate(model, q0, v0, dt, n_steps, *, method="rk4", tau=None, gravity=None, damping=None):
    r"""Integrate a tree's forward dynamics with a fixed step and report the energy balance.

    .. math:: \ddot q = \mathrm{ABA}(q, \dot q, \tau - B_d\dot q),\qquad
              r(t) = K + V - K_0 - V_0 - \int_0^t \tau^T\dot q\,dt
                     + \int_0^t \dot q^TB_d\dot q\,dt

    See the module documentation for the update formulas and how each method
    accumulates the work and the dissipated energy (the balance of equation
    :eq:`eq-ch2-passivity`).  No external wrenches act; joint torques and damping are
    the only non-conservative loads.  A ``tau`` callable is called exactly once per
    stage (four times per ``"rk4"`` step, once per ``"semi_implicit_euler"`` step), in
    time order.

    Parameters
    ----------
    model : tree.Tree
        The mechanism: any joints, a free-flyer root included (its ``q`` holds
        quaternions, which each step moves on the unit sphere by the model's own exponential map).
    q0 : (..., nq) array_like
        Initial configuration (rad, m, unit quaternions); leading axes form a batch.
    v0 : (..., nv) array_like
        Initial velocities (rad/s, m/s); broadcast with ``q0``.
    dt : float
        Step in s, positive.
    n_steps : int
        Number of steps, at least 1.
    method : {"rk4", "semi_implicit_euler"}, optional
        Classical fourth-order Runge-Kutta (default), or first-order symplectic Euler.
    tau : None, (..., nv) array_like, or callable, optional
        Applied joint loads (N m for rotations, N for translations): None for
        none, a constant array, or ``tau(t, q, v)`` returning an array
        broadcastable to ``v``'s shape (``t`` in s).
    gravity : None or (3,) array_like, optional
        Default None: the tree's own ``model.gravity``.  Or gravitational acceleration
        in base coordinates for this run, m/s^2.
    damping : None, (nv,) or (nv, nv) array_like, optional
        Viscous joint damping :math:`B_d` (N m s/rad for revolute, N s/m for
        prismatic joints): the damping force is :math:`-B_d\dot q` and the dissipated
        power :math:`D = \dot q^TB_d\dot q`.  A vector is the diagonal; a matrix must
        be symmetric positive semidefinite, so that :math:`D \ge 0`.

    Returns
    -------
    Trajectory
        Times, states, energies, input work, dissipated energy and the energy residual.

    Raises
    ------
    TypeError
        If ``model`` is not a Tree.
    ValueError
        If ``dt`` is not positive and finite, ``n_steps``
        is not an integer >= 1, ``method`` is unknown, ``q0``/``v0``/``tau``/
        ``gravity``/``damping`` have the wrong shape or non-finite values,
        ``damping`` is negative, asymmetric or indefinite, or the torque callable
        returns a wrong shape.

    Examples
    --------
    A horizontal turntable: one 2 kg link on a vertical joint (gravity along the axis does
    no work), :math:`J_O = 0.01 + 2\times 0.3^2` = 0.19 kg m^2, driven from rest by a
    constant 0.19 N m.  Then :math:`\ddot q` = 1 rad/s^2, and RK4 is exact for the
    quadratic :math:`q = t^2/2`; the torque's work :math:`\tau q` is the kinetic energy.

    >>> import numpy as np
    >>> from geomotion import inertia, integrators, tree
    >>> link = inertia.spatial_inertia(2.0, [0.3, 0, 0], 0.01 * np.diag([5, 5, 1]))
    >>> table = tree.Tree([-1], [tree.REVOLUTE_Z], [np.eye(4)], [link], gravity=(0, 0, -9.81))
    >>> run = integrators.simulate(table, [0.0], [0.0], dt=0.1, n_steps=10, tau=[0.19])
    >>> float(run.q[-1, 0].round(9)), float(run.v[-1, 0].round(9))  # at t = 1 s
    (0.5, 1.0)
    >>> float(run.input_work[-1].round(9)), float(run.kinetic[-1].round(9))
    (0.095, 0.095)
    """
    tree.check_model(model)
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    dt, n_steps = _common.step_settings(dt, n_steps)
    nq, n = systems.dimensions(model)
    equations = systems.MechanicalSystem.from_tree(model)
    advance = equations.integrate or systems.euclidean
    g = systems.gravity_vector(model, gravity)
    tau_of, tau_batch = _common.load_function(tau, "tau", n, "tau(t, q, v)")
    B_d = _common.damping_matrix(damping, n)
    q0, v0 = _common.initial_state(q0, v0, n, ("q0", "v0"), tau_batch, nq=nq)

    def dynamics(t, q, v):
        """Acceleration and the load channels (applied torque, damping force)."""
        loads = np.stack([tau_of(t, q, v), -v @ B_d], axis=-2)
        return tree.aba(model, q, v, loads.sum(axis=-2), gravity=g), loads

    t = dt * np.arange(n_steps + 1)
    q = np.empty((n_steps + 1,) + q0.shape)
    v = np.empty((n_steps + 1,) + v0.shape)
    work = np.zeros((n_steps + 1,) + v0.shape[:-1] + (2,))
    q[0], v[0] = q0, v0

    for k in range(n_steps):
        if method == "rk4":
            q[k + 1], v[k + 1], step_work, _ = _common.rk4_step(
                dynamics, t[k], q[k], v[k], dt, advance, equations.bracket
            )
        else:
            a, loads = dynamics(t[k], q[k], v[k])
            v[k + 1] = v[k] + dt * a
            q[k + 1] = advance(q[k], v[k + 1], dt)
            # The displacement in velocity space (q_k+1 - q_k on Euclidean coordinates).
            step_work = _common.power(loads, dt * v[k + 1])
        work[k + 1] = work[k] + step_work

    kinetic = tree.kinetic_energy(model, q, v)
    potential = tree.potential_energy(model, q, gravity=g)
    applied, dissipated = work[..., 0], -work[..., 1]
    residual = kinetic + potential - kinetic[0] - potential[0] - applied + dissipated
    return Trajectory(t, q, v, kinetic, potential, applied, dissipated, residual, method, dt)
