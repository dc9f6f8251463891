r"""First-order vector fields of second-order mechanics, for brackets and accessibility.

Reaction elimination (:func:`geomotion.constraints.reduced_dynamics`) gives the
accelerations :math:`\dot v = f(q, v) + G(q)u`.  As a control-affine system on the state
:math:`z = (q, v)` its fields are

.. math:: F_0(q, v) = (v,\ f(q, v)),\qquad F_i(q, v) = (0,\ G_i(q)),

the drift carrying the velocity into the configuration rate.  Because :math:`F_i` has no
configuration component and depends on :math:`q` only, :math:`[F_i, F_j] = 0`: brackets
among input fields add nothing, and every further direction comes from brackets with the
drift, :math:`[F_0, F_i] = (-G_i,\ \partial_qG_i\,v - \partial_vf\,G_i)`.  Comparing the
columns of :math:`G` alone with the state dimension :math:`2d` is therefore wrong.
"""

import numpy as np

from .. import _numerics, _validate, constraints
from .._linalg import _cho_solve
from ..systems import CheckedConstraint, MechanicalSystem
from .brackets import ControlAffineSystem

__all__ = ["second_order_fields", "mechanical_fields"]


def _split(z):
    """Configuration and velocity halves of a state z = (q, v) of shape (..., 2d)."""
    if z.shape[-1] % 2:
        raise ValueError(f"x: expected a state (q, v) of even length 2d, got shape {z.shape}")
    d = z.shape[-1] // 2
    return z[..., :d], z[..., d:]


def second_order_fields(acceleration, G, num_inputs, *, dimension=None):
    r"""The fields :math:`F_0 = (v, f(q, v))`, :math:`F_i = (0, G_i(q))` of :math:`\dot v = f + Gu`.

    The first-order form of equation :eq:`eq-ch2-reduced-dynamics`.

    Parameters
    ----------
    acceleration : callable
        :math:`f(q, v) -> (..., d)`, the drift acceleration (rad/s^2 or m/s^2), reactions
        at zero input included; broadcasting over leading axes.
    G : callable
        :math:`G(q) -> (..., d, m)`, the effective input map: acceleration per unit input
        (rad/s^2 or m/s^2 per input unit; :math:`G = M^{-1}B` without constraints);
        broadcasting.
    num_inputs : int
        :math:`m` >= 1.
    dimension : int or callable, optional
        State-manifold dimension (see :class:`ControlAffineSystem`); default (None)
        :math:`2d`.

    Returns
    -------
    ControlAffineSystem
        On states :math:`z = (q, v)` (..., 2d), fields named ``("F0", "F1", ..., "Fm")``
        (Jacobians by differences).

    Raises
    ------
    TypeError
        If a function is not callable.
    ValueError
        If ``num_inputs`` is not an int >= 1; when
        evaluated, if a state has odd length or a function returns a wrong shape or
        non-finite values.
    """
    _numerics.callable_argument(acceleration, "acceleration", "f(q, v) -> (..., d)")
    _numerics.callable_argument(G, "G", "G(q) -> (..., d, m)")
    num_inputs = _validate.count(num_inputs, "num_inputs")

    def drift(z):
        q, v = _split(z)
        f = _numerics.evaluate(acceleration, (q, v), (q.shape[-1],), "acceleration(q, v)")
        return np.concatenate([np.broadcast_to(v, f.shape), f], axis=-1)

    def input_field(i):
        def field(z):
            q, _ = _split(z)
            d = q.shape[-1]
            G_q = _numerics.evaluate(G, (q,), (d, num_inputs), "G(q)")
            return np.concatenate([np.zeros(G_q.shape[:-1]), G_q[..., i]], axis=-1)

        return _numerics.Trusted(field)

    return ControlAffineSystem(
        drift=_numerics.Trusted(drift),
        inputs=tuple(input_field(i) for i in range(num_inputs)),
        names=("F0",) + tuple(f"F{i + 1}" for i in range(num_inputs)),
        dimension=dimension,
    )


def mechanical_fields(system, B, *, constraint=None):
    r"""The first-order fields of a mechanical system, with or without ideal constraints.

    Without a constraint, :math:`f = -M^{-1}h` and :math:`G = M^{-1}B` (Cholesky solves).
    With one, :math:`f` and :math:`G` come from
    :func:`geomotion.constraints.reduced_dynamics` (equations :eq:`eq-ch2-drift` and
    :eq:`eq-ch2-input-field`):
    :math:`f = -P_vM^{-1}h - M^{-1}J_c^TK_c^{-1}\gamma`, :math:`G = P_vM^{-1}B`, and the
    coordinates :math:`(q, v)` are ambient: the fields are tangent to
    :math:`TQ_c = \{\Phi = 0, J_cv = 0\}`, whose dimension
    :math:`2d = 2(n - \operatorname{rank}J_c)` the returned system reports, so evaluate
    brackets at states on :math:`TQ_c`.

    Parameters
    ----------
    system : geomotion.integrators.MechanicalSystem
        :math:`M(q)` and :math:`h(q, v)` (e.g. ``MechanicalSystem.from_tree(model)``).
    B : (n, m) array_like
        Constant input map: the applied load is :math:`\tau = Bu` (N m or N per
        coordinate per input unit).
    constraint : object, optional
        A constraint with ``jacobian(q)`` and ``acceleration_bias(q, v)`` (the protocol of
        :mod:`geomotion.constraints`); regular where evaluated.  Default (None):
        unconstrained.

    Returns
    -------
    ControlAffineSystem
        Fields ``("F0", "F1", ..., "Fm")`` on :math:`z = (q, v)` (..., 2n).

    Raises
    ------
    TypeError
        If ``system`` is not a MechanicalSystem.
    ValueError
        If ``B`` is not a finite
        (n, m) matrix with n, m >= 1, or ``constraint`` lacks the protocol's methods;
        when evaluated, as :func:`geomotion.constraints.reduced_dynamics`.
    """
    if not isinstance(system, MechanicalSystem):
        raise TypeError(
            f"system: expected a geomotion.integrators.MechanicalSystem, got "
            f"{type(system).__name__}"
        )
    B = _validate.matrix(B, "B")
    if B.ndim != 2 or 0 in B.shape:
        raise ValueError(
            f"B: expected a constant (n, m) matrix with n, m >= 1, got shape {B.shape}"
        )
    n, m = B.shape
    checked = None if constraint is None else CheckedConstraint(constraint, n)

    def mass(q):
        return _numerics.evaluate(system.mass_matrix, (q,), (n, n), "system.mass_matrix(q)")

    def solve_mass(q, rhs):
        """M(q)^-1 rhs with the Cholesky factor of M (validated symmetric positive definite)."""
        _, L = _validate.positive_definite_factor(mass(q), "system.mass_matrix(q)")
        return _cho_solve(L, rhs)

    def acceleration(q, v):
        h = _numerics.evaluate(system.bias, (q, v), (n,), "system.bias(q, v)")
        if checked is None:
            return solve_mass(q, -h[..., None])[..., 0]
        gamma = checked.acceleration_bias(q, v)
        return constraints.reduced_dynamics(mass(q), checked.jacobian(q), h, gamma, B).f

    def inputs(q):
        if checked is None:
            return solve_mass(q, np.broadcast_to(B, q.shape[:-1] + B.shape))
        return constraints.reduced_dynamics(mass(q), checked.jacobian(q), 0.0, 0.0, B).G

    def dimension(z):
        q, _ = _split(z)
        return 2 * constraints.mobility(checked.jacobian(q))

    return second_order_fields(
        _numerics.Trusted(acceleration),
        _numerics.Trusted(inputs),
        m,
        dimension=2 * n if checked is None else dimension,
    )
