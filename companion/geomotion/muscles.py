r"""Muscle-like torque generators: joint torques that depend on activation and joint rate.

One generator lumps the muscles about one joint coordinate, :math:`\tau = d\,a(t)\,T_0\,
f(d\,\omega)`; :class:`PassiveLimit` is a conservative end stop of the joint's range and
:class:`DampedLimit` a stop of exponential stiffness with damping beyond the range's edges.
Not specific to golf; every function broadcasts over leading axes.
"""

from dataclasses import dataclass

import numpy as np

from . import _validate

__all__ = ["torque_velocity_factor", "step_activation", "integrate_activation"]
__all__ += ["TorqueGenerator", "PassiveLimit", "DampedLimit"]


def _store(instance, arrays):
    """Set fields of a frozen dataclass ``instance`` to read-only float copies of ``arrays``."""
    for name, array in arrays.items():
        array = np.array(array, dtype=float)
        array.flags.writeable = False
        object.__setattr__(instance, name, array)


def _within(test, expected):
    """A check of real numbers, then of ``test`` on every entry."""

    def check(value, name):
        array = _validate.real_array(value, name)
        if not np.all(test(array)):
            raise ValueError(f"{name}: expected {expected}, got {array!r}")
        return array

    return check


_UNIT = _within(lambda x: (x >= 0.0) & (x <= 1.0), "values in [0, 1]")
#: How each argument or field is checked, by its name.
_RULES = {
    **dict.fromkeys("omega t onset q v q_min q_max".split(), _validate.real_array),
    **dict.fromkeys("peak_torque max_velocity shape slope stiffness".split(), _validate.positive),
    **dict.fromkeys("scale rate damping_angle".split(), _validate.positive),
    "damping": _within(lambda x: x >= 0.0, "values >= 0"),
    **dict.fromkeys(("time_constant", "deactivation_time_constant"), _validate.positive),
    **dict.fromkeys("activation excitation initial".split(), _UNIT),
    "eccentric_ratio": _within(lambda x: x > 1.0, "values greater than 1"),
    "direction": _within(lambda x: np.abs(x) == 1.0, "+1 or -1"),
}


def _checked(**values):
    """Values checked by their names' ``_RULES`` and for broadcasting (a None optional dropped)."""
    if values.get("deactivation_time_constant", 0) is None:
        del values["deactivation_time_constant"]
    arrays = {name: _RULES[name](v, name) for name, v in values.items()}
    _validate.batch_shape({name: array.shape for name, array in arrays.items()})
    return arrays


def _factor(omega, max_velocity, shape, slope, eccentric_ratio):
    """The torque-velocity factor of checked arrays (see torque_velocity_factor)."""
    with np.errstate(over="ignore"):  # |omega| / max_velocity beyond 1e308 reads as inf
        x = omega / max_velocity
    shortening = np.clip(x, 0.0, 1.0)
    concentric = (1.0 - shortening) / (1.0 + shape * shortening)
    b = (eccentric_ratio - 1.0) / (slope * (1.0 + shape))
    eccentric = eccentric_ratio - (eccentric_ratio - 1.0) * b / (b - np.minimum(x, 0.0))
    return np.where(x >= 0.0, concentric, eccentric)


def torque_velocity_factor(omega, *, max_velocity, shape, slope=2.0, eccentric_ratio=1.5):
    r"""Torque-velocity factor :math:`f`: joint torque over activation times peak isometric torque.

    With :math:`x = \omega/\omega_{max}` (positive when shortening), shape factor
    :math:`\Gamma`, slope factor :math:`S` and eccentric ratio :math:`E`:

    .. math::

        f = \begin{cases}
        E - (E - 1)\,\dfrac{b}{b - x}, \quad b = \dfrac{E - 1}{S\,(1 + \Gamma)}
            & x < 0 \ \text{(eccentric: lengthening)} \\[1ex]
        \dfrac{1 - x}{1 + \Gamma x} & 0 \le x \le 1 \ \text{(concentric)} \\[1ex]
        0 & x > 1
        \end{cases}

    Concentric: Hill's hyperbola in rotational form, :math:`df/dx(0^+) = -(1 + \Gamma)`.
    Eccentric: van Soest & Bobbert's (1993) hyperbola as used by McNally & McPhee (2018):
    :math:`f(0) = E - (E - 1) = 1`, :math:`f \to E` as :math:`\omega \to -\infty`, and
    :math:`df/dx = -(E - 1)b/(b - x)^2 = -(E - 1)/b` at :math:`0^-`, which is :math:`S` times
    the concentric slope for the :math:`b` above: :math:`df/d\omega(0^-) = -S(1 +
    \Gamma)/\omega_{max}`.  :math:`f` is continuous, non-increasing, in :math:`[0, E)`.

    Sources: :math:`S = 2`, :math:`E = 1.5` (defaults) as in McNally & McPhee (2018,
    *Proceedings* 2(6), 243, doi 10.3390/proceedings2060243; model parameters, not
    measurements), after van Soest & Bobbert (1993).  :math:`\omega_{max}` and peak torques
    are the caller's.  :math:`\Gamma` has no source in the project's data sheets (the
    :math:`\Gamma = 3` of McNally & McPhee's Fig. 2 is illustrative only): no default.

    Parameters
    ----------
    omega : float or array_like
        Joint rate :math:`\omega` in the shortening sense (positive shortens), rad/s.
    max_velocity : float or array_like
        :math:`\omega_{max} > 0`, where the concentric torque falls to zero, rad/s.
    shape : float or array_like
        :math:`\Gamma > 0`, dimensionless.
    slope : float or array_like, optional
        :math:`S > 0`, eccentric over concentric slope at rest; default 2.
    eccentric_ratio : float or array_like, optional
        :math:`E > 1`, maximum eccentric over isometric torque; default 1.5.

    Returns
    -------
    ndarray
        :math:`f`, dimensionless, broadcast over the arguments.

    Raises
    ------
    TypeError, ValueError
        Naming the argument: TypeError if one is not real numbers (None, a string, complex...);
        ValueError if one is not finite or in its range, or shapes do not broadcast.
    """
    arguments = dict(omega=omega, max_velocity=max_velocity, shape=shape, slope=slope)
    return _factor(**_checked(**arguments, eccentric_ratio=eccentric_ratio))


def step_activation(t, onset, time_constant, *, initial=0.0):
    r"""Activation after a step of excitation :math:`e` to 1 at ``onset`` from a held level.

    The exact solution of :math:`\dot a = (e - a)/\tau` with :math:`a = a_0` (``initial``)
    held until the onset:

    .. math:: a(t) = a_0 \ \ (t < t_{on}), \qquad
              a(t) = 1 - (1 - a_0)\,e^{-(t - t_{on})/\tau} \ \ (t \ge t_{on})

    (from rest, :math:`a_0 = 0`: :math:`a = 1 - e^{-(t - t_{on})/\tau}`).

    Parameters
    ----------
    t, onset : float or array_like
        Time and :math:`t_{on}`, s.
    time_constant : float or array_like
        :math:`\tau > 0`, s.
    initial : float or array_like, keyword only
        :math:`a_0 \in [0, 1]`, the activation held before the onset (a holding level);
        default 0 (rest).

    Returns
    -------
    ndarray
        :math:`a \in [a_0, 1]`, dimensionless, broadcast over the arguments.

    Raises
    ------
    TypeError, ValueError
        Naming the argument: TypeError if one is not real numbers; ValueError if one is not
        finite or in its range, or shapes do not broadcast.
    """
    c = _checked(t=t, onset=onset, time_constant=time_constant, initial=initial)
    return _stepped(c["t"], c["onset"], c["time_constant"], c["initial"])


def _stepped(t, onset, time_constant, initial):
    """:func:`step_activation` of checked arrays."""
    rise = -np.expm1(-np.maximum(t - onset, 0.0) / time_constant)
    return initial + (1.0 - initial) * rise


def integrate_activation(
    t, excitation, *, time_constant, deactivation_time_constant=None, initial=0.0
):
    r"""Activation at the times ``t`` under an excitation held constant between them.

    .. math:: \dot a = \frac{e - a}{\tau}, \qquad
        \tau = \begin{cases} \tau_{act} & e > a \\ \tau_{deact} & e \le a \end{cases}

    with :math:`e = e_k` on :math:`[t_k, t_{k+1})` (zero-order hold; ``excitation[-1]`` is
    not used).  :math:`a` moves monotonically towards :math:`e_k` without crossing it, so the
    :math:`\tau_k` chosen at :math:`t_k` holds and this update, a convex combination, is exact:

    .. math:: a_{k+1} = e_k + (a_k - e_k)\, e^{-(t_{k+1} - t_k)/\tau_k}

    Parameters
    ----------
    t : (n,) array_like
        Sample times, strictly increasing, s.
    excitation : (n, ...) array_like
        :math:`e_k \in [0, 1]`, dimensionless; the trailing axes are a batch.
    time_constant : float or array_like
        :math:`\tau_{act} > 0`, s; broadcasts over the batch.
    deactivation_time_constant : None or float or array_like, optional
        :math:`\tau_{deact} > 0`, s; default None (``time_constant``).
    initial : float or array_like, optional
        :math:`a(t_0) \in [0, 1]`; default 0 (rest).

    Returns
    -------
    (n, ...) ndarray
        :math:`a(t_k)`, dimensionless, in [0, 1].

    Raises
    ------
    TypeError, ValueError
        Naming the argument: TypeError if one is not real numbers; ValueError if one is not
        finite or in its range, ``t`` is not strictly increasing, ``excitation``'s first axis is
        not ``t``'s, or shapes do not broadcast.
    """
    t = _checked(t=t)["t"]
    if t.ndim != 1 or t.size == 0 or np.any(np.diff(t) <= 0.0):
        raise ValueError(f"t: expected a non-empty, strictly increasing (n,) vector, got {t!r}")
    e = _RULES["excitation"](excitation, "excitation")
    if e.ndim == 0 or e.shape[0] != t.size:
        raise ValueError(f"excitation: expected shape ({t.size}, ...) like t, got shape {e.shape}")
    tau_d = time_constant if deactivation_time_constant is None else deactivation_time_constant
    c = _checked(time_constant=time_constant, deactivation_time_constant=tau_d, initial=initial)
    shapes = {name: array.shape for name, array in c.items()}
    a = np.empty((t.size, *_validate.batch_shape(dict(excitation=e.shape[1:], **shapes))))
    a[0] = c["initial"]
    for k, dt in enumerate(np.diff(t)):
        tau = np.where(e[k] > a[k], c["time_constant"], c["deactivation_time_constant"])
        a[k + 1] = e[k] + (a[k] - e[k]) * np.exp(-dt / tau)
    return np.clip(a, 0.0, 1.0)  # a convex combination: clipping removes rounding only


@dataclass(frozen=True, eq=False, kw_only=True)
class TorqueGenerator:
    r"""A muscle-like torque generator about one joint coordinate, :math:`\tau = d\,a\,T_0\,f(d\,\omega)`.

    :math:`f` is :func:`torque_velocity_factor`, :math:`a` from :func:`step_activation` or
    :func:`integrate_activation` (pass it the two time constants).  Fields may be arrays
    that broadcast (a batch, e.g. peak torques of shape (P,)), stored read-only.

    Attributes
    ----------
    peak_torque : float or array_like
        :math:`T_0 > 0`, peak isometric torque, N m.
    max_velocity : float or array_like
        :math:`\omega_{max} > 0`, rad/s.
    shape : float or array_like
        :math:`\Gamma > 0` (no sourced value; see :func:`torque_velocity_factor`).
    time_constant : float or array_like
        :math:`\tau_{act} > 0`, s.
    deactivation_time_constant : None or float or array_like
        :math:`\tau_{deact} > 0`, s; default None (``time_constant``).
    slope : float or array_like
        :math:`S > 0`; default 2 (McNally & McPhee 2018, after van Soest & Bobbert 1993).
    eccentric_ratio : float or array_like
        :math:`E > 1`; default 1.5 (as ``slope``).
    direction : float or array_like
        :math:`d`, +1 or -1, the sign of the joint rate that shortens it (and of its torque).

    Raises
    ------
    TypeError, ValueError
        Naming the field: TypeError if one is not real numbers; ValueError if one is not finite
        or in its range, or shapes do not broadcast.
    """

    peak_torque: object
    max_velocity: object
    shape: object
    time_constant: object
    deactivation_time_constant: object = None
    slope: object = 2.0
    eccentric_ratio: object = 1.5
    direction: object = 1.0

    def __post_init__(self):
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        _store(self, _checked(**fields))

    def tau(self, activation, omega):
        r"""Joint torque :math:`\tau = d\,a\,T_0\,f(d\,\omega)`, N m.

        Parameters
        ----------
        activation : float or array_like
            :math:`a \in [0, 1]`, dimensionless.
        omega : float or array_like
            Joint rate :math:`\omega`, rad/s, in the joint's own sign convention.

        Returns
        -------
        ndarray
            N m, broadcast over the arguments and the generator's batch.

        Raises
        ------
        TypeError, ValueError
            Naming the argument: TypeError if one is not real numbers; ValueError if one is not
            finite or in its range, or shapes do not broadcast.
        """
        fields = (self.peak_torque, self.max_velocity, self.shape, self.slope, self.direction)
        c = _checked(activation=activation, omega=omega)
        shapes = {name: array.shape for name, array in c.items()}
        _validate.batch_shape(dict(**shapes, generator=np.broadcast(*fields).shape))
        return self._torque(c["activation"], c["omega"])

    def _torque(self, activation, omega):
        """:meth:`tau` of checked arrays."""
        d = self.direction
        f = _factor(d * omega, self.max_velocity, self.shape, self.slope, self.eccentric_ratio)
        return d * activation * self.peak_torque * f

    def _step_torque(self, t, onset, omega, initial):
        """:meth:`step_tau` of checked arrays, without the checks: for a caller that
        checked its inputs once and calls it at every step of an integration."""
        return self._torque(_stepped(t, onset, self.time_constant, initial), omega)

    def step_tau(self, t, onset, omega, *, initial=0.0):
        r"""Torque after a step of excitation at ``onset`` from a held activation, N m.

        ``tau(step_activation(t, onset, time_constant, initial=initial), omega)``; the
        generator's batch axes are the trailing ones (for a (P,) batch, pass times of
        shape (n, 1)).

        Parameters
        ----------
        t, onset, omega : float or array_like
            Time and the step's time, s; joint rate, rad/s.
        initial : float or array_like, keyword only
            Activation held before the onset, in [0, 1]; default 0 (rest).

        Returns
        -------
        ndarray
            N m, broadcast over the arguments and the generator's batch.

        Raises
        ------
        TypeError, ValueError
            As :func:`step_activation` and :meth:`tau`.
        """
        activation = step_activation(t, onset, self.time_constant, initial=initial)
        return self.tau(activation, omega)


def _overshoots(limit, q):
    """(q - q_u)^+ and (q_l - q)^+ of an end stop ``limit`` (a PassiveLimit or a
    DampedLimit), rad, ``q`` broadcast against every field of the limit."""
    q = _checked(q=q)["q"]
    fields = (getattr(limit, name) for name in limit.__dataclass_fields__)
    _validate.batch_shape(dict(q=q.shape, limit=np.broadcast(*fields).shape))
    return _unchecked_overshoots(limit, q)


def _unchecked_overshoots(limit, q):
    """:func:`_overshoots` of a checked ``q``."""
    return np.maximum(q - limit.q_max, 0.0), np.maximum(limit.q_min - q, 0.0)


@dataclass(frozen=True, eq=False, kw_only=True)
class PassiveLimit:
    r"""A conservative end stop at the edges of one joint coordinate's range of motion.

    Zero torque inside :math:`[q_l, q_u]`; outside, a quadratic torque pushing back:

    .. math::

        V(q) = \tfrac{k}{3}\big(\max(q - q_u, 0)^3 + \max(q_l - q, 0)^3\big), \qquad
        \tau = -\frac{dV}{dq} = -k\max(q - q_u, 0)^2 + k\max(q_l - q, 0)^2 .

    The torque and its slope are continuous at the stops (:math:`V` is C2), and the work
    of :math:`\tau` around any closed path is zero.  Fields may be arrays that broadcast
    (a batch of joints or of limits); they are stored read-only.

    Attributes
    ----------
    q_min : float or array_like
        :math:`q_l`, the lower edge of the range, rad.
    q_max : float or array_like
        :math:`q_u > q_l`, the upper edge, rad.
    stiffness : float or array_like
        :math:`k > 0`, N m/rad^2.

    Raises
    ------
    TypeError, ValueError
        Naming the field: TypeError if one is not real numbers; ValueError if one is not finite,
        ``q_min >= q_max``, ``stiffness <= 0``, or the shapes do not broadcast.
    """

    q_min: object
    q_max: object
    stiffness: object

    def __post_init__(self):
        c = _checked(q_min=self.q_min, q_max=self.q_max, stiffness=self.stiffness)
        q_min, q_max = c["q_min"], c["q_max"]
        if np.any(q_min >= q_max):
            raise ValueError(f"q_min, q_max: expected q_min < q_max, got {q_min} and {q_max}")
        _store(self, c)

    def tau(self, q):
        r"""Torque of the stop, :math:`-k\max(q - q_u, 0)^2 + k\max(q_l - q, 0)^2`, N m.

        Parameters
        ----------
        q : float or array_like
            Joint coordinate, rad.

        Returns
        -------
        ndarray
            N m, broadcast over ``q`` and the limit's batch.

        Raises
        ------
        TypeError, ValueError
            Naming the argument: TypeError if ``q`` is not real numbers; ValueError if ``q`` is
            not finite or does not broadcast.
        """
        return self._torque(*_overshoots(self, q))

    def _torque(self, above, below):
        """:meth:`tau` of the overshoots (q - q_u)^+ and (q_l - q)^+, rad."""
        return self.stiffness * (below * below - above * above)

    def _unchecked_tau(self, q, v):
        """:meth:`tau` of a checked ``q`` (``v`` unused: the stop is conservative), for a
        caller that checked its inputs once and calls it at every step of an integration."""
        return self._torque(*_unchecked_overshoots(self, q))

    def potential(self, q):
        r"""Potential energy of the stop, :math:`\tfrac{k}{3}(\max(q - q_u, 0)^3 + \max(q_l - q, 0)^3)`, J.

        Parameters
        ----------
        q : float or array_like
            Joint coordinate, rad.

        Returns
        -------
        ndarray
            J, broadcast over ``q`` and the limit's batch.

        Raises
        ------
        TypeError, ValueError
            As :meth:`tau`.
        """
        above, below = _overshoots(self, q)
        return self.stiffness / 3.0 * (above**3 + below**3)


def _exp_excess(y, order):
    """:math:`e^y` minus its Taylor polynomial of degree ``order`` (2 or 3) about 0."""
    excess = np.expm1(y) - y - 0.5 * y * y
    return excess if order == 2 else excess - y * y * y / 6.0


def _smoothstep(s):
    """:math:`10s^3 - 15s^4 + 6s^5` of s clipped to [0, 1]: 0 at 0, 1 from 1 on, C2."""
    s = np.clip(s, 0.0, 1.0)
    return s * s * s * (10.0 + s * (6.0 * s - 15.0))


@dataclass(frozen=True, eq=False, kw_only=True)
class DampedLimit:
    r"""End stops of one joint coordinate with exponential stiffness and damping beyond them.

    The form of the passive joint moments of biomechanical models, a double exponential
    in the joint angle plus a damping term, made one-sided: zero inside
    :math:`[q_l, q_u]`, and with the overshoots :math:`x_u = \max(q - q_u, 0)` and
    :math:`x_l = \max(q_l - q, 0)` (at most one of them non-zero),

    .. math::

        \tau_e = k_1\big(E(k_2x_l) - E(k_2x_u)\big),\qquad E(y) = e^y - 1 - y - \tfrac12y^2,

        \tau_d = -c\,w(x_u + x_l)\,\dot q,\qquad
        w(x) = 10s^3 - 15s^4 + 6s^5,\ s = \min(x/\delta, 1),

        \tau = \tau_e + \tau_d .

    The elastic part :math:`\tau_e` is :math:`-dV/dq` of

    .. math:: V(q) = \frac{k_1}{k_2}\big(P(k_2x_u) + P(k_2x_l)\big),
              \qquad P(y) = e^y - 1 - y - \tfrac12y^2 - \tfrac16y^3,

    so its work around any closed path is zero; near an edge it is cubic,
    :math:`\tau_e \approx \mp\tfrac16k_1k_2^3x^3`, and it stiffens exponentially further
    out; :math:`\tau_e`, its slope and its curvature are continuous at the edges (C2, so
    that a fixed-step Runge-Kutta 4 run crossing an edge keeps close to its order).  The
    damping part acts only beyond an edge, weighted by how far: :math:`w` rises from 0 at
    the edge to 1 at :math:`\delta` past it (C2 as well), so its power :math:`\tau_d\dot q = -c\,w\,
    \dot q^2 \le 0`: it only dissipates.  No parameter here has a source; a model using
    the stop states its values as modelling choices.  Fields may be arrays that
    broadcast, stored read-only.

    Attributes
    ----------
    q_min : float or array_like
        :math:`q_l`, the lower edge of the range, rad.
    q_max : float or array_like
        :math:`q_u > q_l`, the upper edge, rad.
    scale : float or array_like
        :math:`k_1 > 0`, N m.
    rate : float or array_like
        :math:`k_2 > 0`, 1/rad.
    damping : float or array_like
        :math:`c \ge 0`, N m s/rad.
    damping_angle : float or array_like
        :math:`\delta > 0`, rad: how far past an edge the damping reaches :math:`c`.

    Raises
    ------
    TypeError, ValueError
        Naming the field: TypeError if one is not real numbers; ValueError if one is not
        finite or in its range, ``q_min >= q_max``, or the shapes do not broadcast.
    """

    q_min: object
    q_max: object
    scale: object
    rate: object
    damping: object
    damping_angle: object

    def __post_init__(self):
        c = _checked(**{name: getattr(self, name) for name in self.__dataclass_fields__})
        if np.any(c["q_min"] >= c["q_max"]):
            raise ValueError(
                f"q_min, q_max: expected q_min < q_max, got {c['q_min']} and {c['q_max']}"
            )
        _store(self, c)

    def elastic_tau(self, q):
        r"""The conservative part :math:`\tau_e = k_1(E(k_2x_l) - E(k_2x_u))`, N m (see the class).

        Parameters
        ----------
        q : float or array_like
            Joint coordinate, rad.

        Returns
        -------
        ndarray
            N m, broadcast over ``q`` and the limit's batch.

        Raises
        ------
        TypeError, ValueError
            Naming the argument: TypeError if ``q`` is not real numbers; ValueError if ``q`` is
            not finite or does not broadcast.
        """
        return self._elastic(*_overshoots(self, q))

    def _elastic(self, above, below):
        """:meth:`elastic_tau` of the overshoots (q - q_u)^+ and (q_l - q)^+, rad."""
        k = self.rate
        return self.scale * (_exp_excess(k * below, 2) - _exp_excess(k * above, 2))

    def damping_tau(self, q, v):
        r"""The dissipative part :math:`\tau_d = -c\,w(x_u + x_l)\,\dot q`, N m.

        Parameters
        ----------
        q : float or array_like
            Joint coordinate, rad.
        v : float or array_like
            Joint rate :math:`\dot q`, rad/s.

        Returns
        -------
        ndarray
            N m, broadcast over the arguments and the limit's batch.

        Raises
        ------
        TypeError, ValueError
            As :meth:`elastic_tau`, for ``q`` and ``v``.
        """
        above, below = _overshoots(self, q)
        return self._damping(above, below, _checked(v=v)["v"])

    def _damping(self, above, below, v):
        """:meth:`damping_tau` of the overshoots and a checked rate ``v``, rad/s."""
        return -self.damping * _smoothstep((above + below) / self.damping_angle) * v

    def _unchecked_tau(self, q, v):
        """:meth:`tau` of a checked ``q`` and ``v``, for a caller that checked its inputs
        once and calls it at every step of an integration."""
        above, below = _unchecked_overshoots(self, q)
        return self._elastic(above, below) + self._damping(above, below, v)

    def tau(self, q, v):
        r"""The stop's torque :math:`\tau_e + \tau_d`, N m.

        Parameters
        ----------
        q : float or array_like
            Joint coordinate, rad.
        v : float or array_like
            Joint rate :math:`\dot q`, rad/s.

        Returns
        -------
        ndarray
            N m, broadcast over the arguments and the limit's batch.

        Raises
        ------
        TypeError, ValueError
            As :meth:`damping_tau`.
        """
        return self.elastic_tau(q) + self.damping_tau(q, v)

    def potential(self, q):
        r"""Potential energy of the elastic part, :math:`\frac{k_1}{k_2}(P(k_2x_u) + P(k_2x_l))`, J.

        Parameters
        ----------
        q : float or array_like
            Joint coordinate, rad.

        Returns
        -------
        ndarray
            J, broadcast over ``q`` and the limit's batch.

        Raises
        ------
        TypeError, ValueError
            As :meth:`elastic_tau`.
        """
        above, below = _overshoots(self, q)
        k = self.rate
        return self.scale / k * (_exp_excess(k * above, 3) + _exp_excess(k * below, 3))
