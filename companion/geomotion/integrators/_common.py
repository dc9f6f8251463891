"""Pieces shared by the integrators: step settings, applied loads, damping, one RK4 step.

Every integrator of the package splits the generalized force acting on the
coordinates into *load channels* (applied torques or inputs, declared other
sources, viscous damping) and integrates the work of each channel alongside the
motion, so that the energy report can name where energy came from and went.
"""

import numpy as np

from .. import _validate


def step_settings(dt, n_steps):
    """Validate a fixed step ``dt`` > 0 (s) and a step count ``n_steps`` >= 1."""
    dt_array = _validate.real_array(dt, "dt")
    if dt_array.ndim != 0 or dt_array <= 0:
        raise ValueError(f"dt: expected a positive step in s, got {dt!r}")
    return float(dt_array), _validate.count(n_steps, "n_steps")


def initial_state(q0, v0, n, names, *batches, nq=None):
    """Validate q0 (..., nq), v0 (..., n) and broadcast them with the loads' batch shapes.

    ``names`` are the two arguments' names for error messages; ``batches`` the
    leading shapes of constant loads, which the state must broadcast with; ``nq``
    the number of coordinates when it differs from the number of velocities ``n``.
    """
    q_name, v_name = names
    nq = n if nq is None else nq
    q0 = _validate.trailing_shape(q0, q_name, (nq,))
    v0 = _validate.trailing_shape(v0, v_name, (n,))
    try:
        batch = np.broadcast_shapes(q0.shape[:-1], v0.shape[:-1])
    except ValueError as error:
        raise ValueError(
            f"{v_name}: expected leading axes broadcastable with {q_name} {q0.shape}, "
            f"got shape {v0.shape}"
        ) from error
    try:
        batch = np.broadcast_shapes(batch, *batches)
    except ValueError as error:
        raise ValueError(
            f"{q_name}, {v_name}: expected leading axes broadcastable with those of the "
            f"constant loads {batches}, got shape {batch + (n,)}"
        ) from error
    return np.broadcast_to(q0, batch + (nq,)).copy(), np.broadcast_to(v0, batch + (n,)).copy()


def load_function(load, name, size, call):
    """An applied load as a function ``(t, q, v) -> (..., size)``, and its batch shape.

    Parameters
    ----------
    load : None, (..., size) array_like, or callable
        None (no load), a constant, or ``load(t, q, v)`` returning an array that
        broadcasts to ``q.shape[:-1] + (size,)``.
    name : str
        Argument name for error messages.
    size : int
        Number of load components.
    call : str
        How the callable is called, e.g. ``"tau(t, q, v)"``, for error messages.

    Returns
    -------
    function : callable
        ``(t, q, v)`` -> load of shape ``q.shape[:-1] + (size,)`` (or broadcast with a
        constant's own leading axes).
    batch : tuple of int
        Leading axes of a constant load (``()`` for None or a callable): the state
        must broadcast with them.
    """
    if load is None:
        return (lambda t, q, v: np.zeros(q.shape[:-1] + (size,))), ()
    if callable(load):

        def evaluate(t, q, v):
            value = _validate.real_array(load(t, q.copy(), v.copy()), call)
            shape = q.shape[:-1] + (size,)
            try:
                return np.broadcast_to(value, shape)
            except ValueError as error:
                raise ValueError(
                    f"{call}: expected an array broadcastable to {shape}, got shape {value.shape}"
                ) from error

        return evaluate, ()
    value = _validate.real_array(load, name)
    if value.ndim == 0 or value.shape[-1] != size:
        raise ValueError(
            f"{name}: expected None, a callable {call}, or an array of shape (..., {size}), "
            f"got {load!r}"
        )
    return (lambda t, q, v: np.broadcast_to(value, q.shape[:-1] + (size,))), value.shape[:-1]


def damping_matrix(damping, n):
    r"""Validate viscous damping: None, (n,) diagonal or (n, n) symmetric PSD ``B_d``.

    The damping force is :math:`-B_d\dot q` and the dissipated power
    :math:`D = \dot q^TB_d\dot q \ge 0` (N m s/rad for revolute coordinates).
    Returns an (n, n) matrix, zero for None.
    """
    if damping is None:
        return np.zeros((n, n))
    B = _validate.real_array(damping, "damping")
    if B.shape == (n,):
        if np.any(B < 0):
            raise ValueError(f"damping: expected non-negative coefficients, got {B!r}")
        return np.diag(B)
    if B.shape != (n, n):
        raise ValueError(f"damping: expected None, shape ({n},) or ({n}, {n}), got shape {B.shape}")
    scale = np.abs(B).max(initial=0.0)
    if np.abs(B - B.T).max(initial=0.0) > 1e-12 * scale:
        raise ValueError("damping: expected a symmetric matrix, got an asymmetric one")
    smallest = float(np.linalg.eigvalsh(B).min())
    if smallest < -1e-12 * scale:
        raise ValueError(
            f"damping: expected a positive semidefinite matrix (D >= 0), got smallest "
            f"eigenvalue {smallest:.3g}"
        )
    return B


def _euclidean(q, v, dt):
    return q + dt * v


def power(loads, v):
    """Power of each load channel: loads (..., k, n) on rates (..., n) -> (..., k), W."""
    return np.einsum("...kn,...n->...k", loads, v)


def rk4_step(dynamics, t, q, v, dt, integrate=None, bracket=None):
    r"""One classical Runge-Kutta step of :math:`\dot q = v,\ \dot v = a(t, q, v)`.

    ``integrate(q, v, dt)`` (default ``q + dt v``) advances the configuration: every
    stage and the final update are taken from the step's start :math:`q_k` along a
    velocity-space increment :math:`u`, :math:`q = q_k \oplus u`.  On a group whose
    increments do not commute (rotations), ``bracket(u, w)`` gives the Lie bracket and
    each stage's rate of :math:`u` is corrected (Runge–Kutta–Munthe-Kaas),

    .. math:: \dot u = w + \tfrac12[u, w] + \tfrac1{12}[u, [u, w]],

    which keeps the step fourth order (without it: second order on rotations).  With
    ``bracket=None`` the increments are taken to commute (Euclidean coordinates,
    circles, tori) and the scheme is the classical one.

    ``dynamics(t, q, v)`` returns a tuple whose first two entries are the
    acceleration ``a`` (..., n) and the load channels (..., k, n); the work of each
    channel, :math:`\dot W_j = f_j^Tv`, is integrated as k more states at the same
    four stages, so it is accurate to the same fourth order as the motion.

    Returns
    -------
    q, v : (..., n) ndarray
        State after the step.
    work : (..., k) ndarray
        Work of each channel over the step, J.
    first : tuple
        Everything ``dynamics`` returned at the first stage ``(t, q, v)``.
    """
    if integrate is None:
        integrate = _euclidean

    def rate(u, w):  # dexp^-1 of the right-trivialized velocity w at the increment u
        if bracket is None:
            return w
        uw = bracket(u, w)
        return w + 0.5 * uw + bracket(u, uw) / 12.0

    first = dynamics(t, q, v)
    a1, f1 = first[:2]
    k1 = v
    v2 = v + 0.5 * dt * a1
    k2 = rate(0.5 * dt * k1, v2)
    a2, f2 = dynamics(t + 0.5 * dt, integrate(q, k1, 0.5 * dt), v2)[:2]
    v3 = v + 0.5 * dt * a2
    k3 = rate(0.5 * dt * k2, v3)
    a3, f3 = dynamics(t + 0.5 * dt, integrate(q, k2, 0.5 * dt), v3)[:2]
    v4 = v + dt * a3
    k4 = rate(dt * k3, v4)
    a4, f4 = dynamics(t + dt, integrate(q, k3, dt), v4)[:2]
    q_next = integrate(q, (k1 + 2 * k2 + 2 * k3 + k4) / 6, dt)
    v_next = v + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
    work = dt / 6 * (power(f1, v) + 2 * power(f2, v2) + 2 * power(f3, v3) + power(f4, v4))
    return q_next, v_next, work, first
