r"""Time profiles and rotation chains with closed-form derivatives, for the 3-D downswing
(``models/_golfer_downswing.py``).

Every function returns values with their first and second time derivatives, so a motion
built from them has exact velocities and accelerations.
"""

import numpy as np

from .. import spatial
from ._shared import quaternion

_E = np.eye(3)


def _smoothstep(s):
    """h(s) = 10s^3 - 15s^4 + 6s^5 and its first two derivatives."""
    return (
        10 * s**3 - 15 * s**4 + 6 * s**5,
        30 * s**2 - 60 * s**3 + 30 * s**4,
        60 * s - 180 * s**2 + 120 * s**3,
    )


def _profile(x0, x1, v1, t, duration, delay, exponent):
    r"""Coordinates from rest at ``x0`` to ``x1`` with rate ``v1`` at ``t = duration``.

    .. math:: x = x_0 + A\,h(s) + B\,s^k,\quad s = \frac{t/T - d}{1 - d}\in[0, 1],\quad
              B = \frac{v_1T(1 - d)}{k},\quad A = x_1 - x_0 - B

    with :math:`h` the quintic smoothstep (zero rate and acceleration at both ends) and
    :math:`k = \max(k_0, m)`, :math:`m = v_1T(1-d)/(x_1 - x_0)` when :math:`m > 0`: then
    :math:`A` and :math:`B` share the sign of :math:`x_1 - x_0` and the coordinate moves
    monotonically, the faster the later (:math:`k \ge 3` keeps the acceleration
    continuous at the onset).  Returns (x, x', x''), each (n, m).
    """
    x0, x1, v1 = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (x0, x1, v1))
    span = duration * (1.0 - delay)
    s = np.clip((t / duration - delay) / (1.0 - delay), 0.0, 1.0)[:, None]
    dx = x1 - x0
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(dx != 0, v1 * span / np.where(dx != 0, dx, 1.0), -1.0)
    k = np.where(m > exponent, m, exponent)
    B = v1 * span / k
    A = dx - B
    h, hd, hdd = _smoothstep(s)
    x = x0 + A * h + B * s**k
    xd = (A * hd + B * k * s ** (k - 1)) / span
    xdd = (A * hdd + B * k * (k - 1) * s ** (k - 2)) / span**2
    return x, xd, xdd


def _bump(u):
    r"""b(u) = 64 u^3 (1 - u)^3 on [0, 1], 0 outside (peak 1 at u = 1/2; the value and
    the first two derivatives vanish at both ends), and its first two derivatives."""
    u = np.clip(u, 0.0, 1.0)
    w = u * (1 - u)
    return 64 * w**3, 192 * w**2 * (1 - 2 * u), 384 * w * (1 - 2 * u) ** 2 - 384 * w**2


def _rotation(axis, angle):
    """Rotations by ``angle`` (n,) about the unit ``axis`` (3,): (n, 3, 3)."""
    twist = np.concatenate([np.multiply.outer(angle, axis), np.zeros(angle.shape + (3,))], -1)
    return spatial.exp_twist(twist)[..., :3, :3]


def _chain(R0, axes, angles):
    r"""Orientation, body angular velocity and acceleration of :math:`R = R_0E_1E_2E_3`,
    :math:`E_i = \exp(\hat a_i\theta_i)` (fixed unit axes :math:`a_i`): with
    :math:`\omega_i = E_i^T\omega_{i-1} + a_i\dot\theta_i` and
    :math:`\alpha_i = E_i^T\alpha_{i-1} + (E_i^T\omega_{i-1})\times a_i\dot\theta_i +
    a_i\ddot\theta_i`.  ``angles`` is the triple (theta, theta', theta'') of (n, 3)."""
    th, thd, thdd = angles
    n = th.shape[0]
    R = np.broadcast_to(R0, (n, 3, 3)).copy()
    w, al = np.zeros((n, 3)), np.zeros((n, 3))
    for i, a in enumerate(axes):
        Ei = _rotation(a, th[:, i])
        before = np.einsum("nji,nj->ni", Ei, w)
        al = (
            np.einsum("nji,nj->ni", Ei, al)
            + np.cross(before, a) * thd[:, i, None]
            + a * thdd[:, i, None]
        )
        w = before + a * thd[:, i, None]
        R = R @ Ei
    return R, w, al


#: Axes of R_z(psi) R_y(theta) R_x(phi) and of golfer_angles's R_y(alpha) R_x(beta) R_z(gamma).
_ZYX = (_E[2], _E[1], _E[0])
_CARDAN = (_E[1], _E[0], _E[2])


def _quaternions(R):
    return np.stack([quaternion(Ri) for Ri in R])


def _relative(outer, inner):
    r"""Orientation, angular velocity and acceleration of ``inner`` relative to ``outer``
    (each (R, omega, alpha) in its own body axes), in the inner body's axes:
    :math:`\omega_r = \omega_i - R_r^T\omega_o`,
    :math:`\alpha_r = \alpha_i - R_r^T\alpha_o + \omega_r\times R_r^T\omega_o`."""
    Ro, wo, ao = outer
    Ri, wi, ai = inner
    Rr = np.swapaxes(Ro, -1, -2) @ Ri
    wo_in = np.einsum("nji,nj->ni", Rr, wo)
    wr = wi - wo_in
    return Rr, wr, ai - np.einsum("nji,nj->ni", Rr, ao) + np.cross(wr, wo_in)
