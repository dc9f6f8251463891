r"""The time profiles of the 3-D downswing's trunk and lead arm (:func:`golfer_downswing`).

:class:`_Trunk` turns the pelvis and the thorax between their published keyframes,
:class:`_LeadArm` carries the lead arm's coordinates from the top to impact; both with
exact first and second time derivatives (``models/_swing_profiles.py``).
"""

import numpy as np

from .. import spatial, tree
from ..errors import ConvergenceError
from ._golfer_limits import _trunk_cardan
from ._swing_profiles import (
    _CARDAN,
    _ZYX,
    _bump,
    _chain,
    _profile,
    _relative,
    _rotation,
    _smoothstep,
)


class _Trunk:
    """The pelvis's turn and the thorax relative to it (see :func:`golfer_downswing`)."""

    def __init__(self, pelvis, cardan):
        self.pelvis, self.cardan = pelvis, np.array(cardan)

    def timing(self, T, thorax_turn, choices, stretch):
        """Duration (s), the thorax's turn over the downswing (rad), the choices and the
        X-factor's stretch (rad); then the bump's amplitude that gives that stretch."""
        self.T, self.peak = T, choices["stretch_peak"]
        self.delay, self.k0 = choices["sequence_delay"], choices["release_exponent"]
        self.rate_p = choices["pelvis_rate_impact"] * (self.pelvis[1, 0] - self.pelvis[0, 0]) / T
        self.rate_t = choices["thorax_rate_impact"] * thorax_turn / T
        self.stretch = self._amplitude(stretch)

    def _amplitude(self, stretch):
        r"""The amplitude :math:`S` of the bump in :math:`\chi` that makes the X-factor's
        largest value, over 801 instants of the downswing, exceed its value at the top by
        ``stretch`` (rad): the thorax turns about its own tilted axis while the pelvis
        turns about the vertical, so the two differ.  Secant steps to 1e-10 rad."""
        t = np.linspace(0.0, self.T, 801)

        def error(amplitude):
            self.stretch = amplitude
            x = -_trunk_cardan(self.motion(t)[1][0])[2]
            return x.max() - x[0] - stretch

        a0, a1 = stretch, 2.0 * stretch
        e0, e1 = error(a0), error(a1)
        for _ in range(30):
            if abs(e1) < 1e-10:
                return a1
            a0, a1 = a1, a1 - e1 * (a1 - a0) / (e1 - e0)
            e0, e1 = e1, error(a1)
        raise ConvergenceError(
            "golfer_downswing: no stretch of the thorax's turn gives the X-factor's stretch",
            residual=float(abs(e1)),
            tolerance=1e-10,
            iterations=30,
            suggestion="x_factor_stretch and stretch_peak nearer their defaults",
        )

    def motion(self, t):
        r"""(R, omega, alpha) of the pelvis in the world and of the thorax in the pelvis.

        The pelvis :math:`R_z(\psi_P)R_y(\theta_P)R_x(\phi_P)` turns by :func:`_profile`;
        the thorax :math:`R_y(\theta)R_x(\phi)R_z(\chi)` in the world (tilted towards
        the ball, bent sideways and turned about its own long axis) follows
        :func:`_profile` (tilt and bend after the delay, the separation :math:`x` after
        the stretch's peak), with :math:`\dot\chi` at impact the thorax's turn rate and
        :math:`\chi` less the stretch :math:`S\,b(t)`
        (:func:`_bump` over the first ``2 stretch_peak`` of the downswing)."""
        T, d, k0 = self.T, self.delay, self.k0
        p = _profile(self.pelvis[0], self.pelvis[1], [self.rate_p, 0.0, 0.0], t, T, 0.0, k0)
        r = _profile(self.cardan[0, :2], self.cardan[1, :2], [0.0, 0.0], t, T, d, k0)
        x_ends = self.pelvis[:, 0] - self.cardan[:, 2]
        # The separation closes from its peak on: the thorax turns back after the pelvis.
        x = _profile(x_ends[0], x_ends[1], self.rate_p - self.rate_t, t, T, self.peak, k0)
        span = 2 * self.peak * T
        bump = _bump(t / span)
        thorax = [
            np.concatenate(
                [r[i], p[i][:, :1] - x[i] - self.stretch * bump[i][:, None] / span**i],
                axis=1,
            )
            for i in range(3)
        ]
        P = _chain(np.eye(3), _ZYX, p)
        return P, _relative(P, _chain(np.eye(3), _CARDAN, thorax))

    def velocity(self, parts):
        """The velocity of the pelvis and thorax at impact, zero elsewhere, (nv,)."""
        pelvis, thorax = self.motion(np.array([self.T]))
        v = np.zeros(parts.model.nv)
        v[0:3] = pelvis[1][0]
        start = parts.model.v_start[parts.bodies["thorax"]]
        v[start : start + 3] = thorax[1][0]
        return v


class _LeadArm:
    r"""The lead arm's coordinates between the top and impact (see :func:`golfer_downswing`).

    The shoulder turns in two stages that both move one way:
    :math:`R(t) = R_{top}\exp(\hat u\,\phi(t))\exp(\hat w\,\psi(t))`, with
    :math:`w = \omega_1/|\omega_1|` the direction of its angular velocity at impact (its
    own axes), :math:`\psi = \Psi s^k` (``release_exponent`` :math:`k`, :math:`\Psi =
    |\omega_1|T(1-d)/k`, so that :math:`\dot\psi = |\omega_1|` at impact) and
    :math:`\phi = \Phi h(s)` (the quintic smoothstep, at rest at both ends) about the
    fixed axis :math:`u` that closes :math:`R_{top}\exp(\hat u\Phi)\exp(\hat w\Psi) =
    R_{imp}`.  (A chain of three fixed axes, the first from the top to impact, made the
    two others start and end at zero with a rate at impact, so the arm swung 22 deg one
    way and back before it released: the oscillation of the ground's horizontal force
    found in issue 39's diagnosis.)
    """

    def __init__(self, parts, q_top, q_imp, v_imp):
        m, b = parts.model, parts.bodies
        shoulder = b["lead upper arm"]
        self.R_top = _ball(m, q_top, shoulder)
        self.R_imp = _ball(m, q_imp, shoulder)
        start = m.v_start[shoulder]
        self.omega = np.array(v_imp[start : start + 3])
        self.scalars = [b[x] for x in ("lead forearm", "lead radioulnar", "lead wrist")]
        self.scalars.append(b["lead hand and club"])
        self.x0 = np.array([parts.coordinate(q_top, i) for i in self.scalars])
        self.x1 = np.array([parts.coordinate(q_imp, i) for i in self.scalars])
        self.v1 = np.array([v_imp[m.v_start[i]] for i in self.scalars])

    def motion(self, t, T, delay, exponent):
        """((R, omega, alpha) of the shoulder, (x, x', x'') of the elbow, forearm
        rotation, wrist flexion and deviation) at times ``t``."""
        speed = float(np.linalg.norm(self.omega))
        w = self.omega / speed
        span = T * (1.0 - delay)
        psi = speed * span / exponent
        rest = self.R_top.T @ self.R_imp @ _rotation(w, np.array([-psi]))[0]
        turn = spatial.log_pose(spatial.pose(rest, np.zeros(3)))[:3]
        phi = float(np.linalg.norm(turn))
        s = np.clip((t / T - delay) / (1.0 - delay), 0.0, 1.0)[:, None]
        h = _smoothstep(s)
        k = exponent
        power = (s**k, k * s ** (k - 1), k * (k - 1) * s ** (k - 2))
        angles = tuple(
            np.concatenate([phi * h[i], psi * power[i]], axis=1) / span**i for i in range(3)
        )
        scalars = _profile(self.x0, self.x1, self.v1, t, T, delay, exponent)
        return _chain(self.R_top, (turn / phi, w), angles), scalars


def _ball(model, q, body):
    """The rotation of a ball joint at its coordinates (w, x, y, z)."""
    start = model.q_start[body]
    return tree.SPHERICAL.transform(q[start : start + 4])[:3, :3]
