"""The ``integrate`` hook: configurations on a manifold, advanced as q (+) v dt.

(Named test_scale_* only to stay inside the files this change owns.)

Toy: two pendulums whose angles are stored as points on circles, q = (cos t1, sin t1,
cos t2, sin t2) (nq = 4), with angle rates v = (t1', t2') (nv = 2), welded by the
constraint sin(t2 - t1) = 0.  Welded, each swings as one pendulum, whose exact motion
from rest is theta(t) = 2 arcsin(k sn(K - w t, k)), k = sin(theta0 / 2), w = sqrt(g/L)
(scipy's Jacobi elliptic functions: an independent reference).
"""

import numpy as np
import pytest
from scipy.special import ellipj, ellipk

from geomotion import constraints, inertia, integrators, models, tree

G, L, MASS = 9.81, 0.7, 1.3
THETA0 = 1.1


def rotate(q, v, dt):
    """Each (cos, sin) pair turned by its angle rate times dt: exact on the circles."""
    q = np.asarray(q, dtype=float)
    angle = np.asarray(v, dtype=float) * dt
    c, s = q[..., 0::2], q[..., 1::2]
    ca, sa = np.cos(angle), np.sin(angle)
    out = np.empty(np.broadcast_shapes(q.shape[:-1], angle.shape[:-1]) + (4,))
    out[..., 0::2] = c * ca - s * sa
    out[..., 1::2] = s * ca + c * sa
    return out


SYSTEM = integrators.MechanicalSystem(
    mass_matrix=lambda q: np.broadcast_to(MASS * L**2 * np.eye(2), q.shape[:-1] + (2, 2)),
    bias=lambda q, v: MASS * G * L * np.stack([q[..., 1], q[..., 3]], axis=-1),
    potential=lambda q: -MASS * G * L * (q[..., 0] + q[..., 2]),
    integrate=rotate,
)


def _sin_difference(q):
    return q[..., 3] * q[..., 0] - q[..., 2] * q[..., 1]


WELD = constraints.FunctionConstraint(
    residual=lambda q: _sin_difference(q)[..., None],
    jacobian=lambda q: (
        (q[..., 0] * q[..., 2] + q[..., 1] * q[..., 3])[..., None, None] * np.array([[-1.0, 1.0]])
    ),
    acceleration_bias=lambda q, v: (-_sin_difference(q) * (v[..., 1] - v[..., 0]) ** 2)[..., None],
)


def on_circles(theta1, theta2):
    return np.array([np.cos(theta1), np.sin(theta1), np.cos(theta2), np.sin(theta2)])


def exact_angle(t):
    k = np.sin(THETA0 / 2)
    sn, _, _, _ = ellipj(ellipk(k**2) - np.sqrt(G / L) * t, k**2)
    return 2 * np.arcsin(k * sn)


@pytest.mark.parametrize(
    "method, options, tol",
    [
        ("projection", {}, 1e-9),
        ("baumgarte", {"alpha": 10.0, "beta": 10.0}, 1e-9),
        ("rattle", {}, 2e-5),  # second order
    ],
)
def test_welded_pendulums_stay_on_their_circles_and_follow_the_exact_motion(method, options, tol):
    run = integrators.simulate_constrained(
        SYSTEM, WELD, on_circles(THETA0, THETA0), [0.0, 0.0], 2e-3, 1000, method=method, **options
    )
    assert run.q.shape == (1001, 4) and run.v.shape == (1001, 2)
    radii = np.hypot(run.q[:, 0::2], run.q[:, 1::2])
    np.testing.assert_allclose(radii, 1.0, rtol=0, atol=1e-13)  # on the manifold, always
    theta = np.arctan2(run.q[:, 1::2], run.q[:, 0::2])
    np.testing.assert_allclose(theta[:, 1], theta[:, 0], rtol=0, atol=1e-10)  # welded
    np.testing.assert_allclose(theta[:, 0], exact_angle(run.t), rtol=0, atol=tol)
    assert np.ptp(theta[:, 0]) > 2.0  # a full swing from 1.1 to -1.1 rad
    assert np.abs(run.energy_residual).max() < (1e-8 if method != "rattle" else 5e-4)  # J


def test_projection_corrects_q_through_the_hook():
    # Off the weld by 1e-3 rad: equal inertias meet halfway, at theta0 + 5e-4 each.
    start = on_circles(THETA0, THETA0 + 1e-3)
    projected = integrators.project_position(MASS * L**2 * np.eye(2), WELD, start, integrate=rotate)
    np.testing.assert_allclose(projected, on_circles(THETA0 + 5e-4, THETA0 + 5e-4), atol=1e-15)
    run = integrators.simulate_constrained(SYSTEM, WELD, start, [0.0, 0.0], 1e-3, 1)
    np.testing.assert_allclose(run.q[0], projected, atol=1e-15)


def test_rattle_step_takes_the_hook():
    q0 = on_circles(THETA0, THETA0)
    step = integrators.rattle_step(
        MASS * L**2 * np.eye(2),
        WELD,
        q0,
        [0.0, 0.0],
        lambda t, q, v: -SYSTEM.bias(q, v),
        1e-3,
        integrate=rotate,
    )
    np.testing.assert_allclose(np.hypot(step.q[0::2], step.q[1::2]), 1.0, atol=1e-15)
    theta = np.arctan2(step.q[1::2], step.q[0::2])
    np.testing.assert_allclose(theta, exact_angle(1e-3), atol=1e-9)


def test_bad_hooks_are_refused_naming_them():
    with pytest.raises(TypeError, match="^integrate: expected None or a callable"):
        integrators.MechanicalSystem(
            SYSTEM.mass_matrix, SYSTEM.bias, SYSTEM.potential, integrate="rotate"
        )
    wrong = integrators.MechanicalSystem(
        SYSTEM.mass_matrix, SYSTEM.bias, SYSTEM.potential, integrate=lambda q, v, dt: q[..., :3]
    )
    with pytest.raises(ValueError, match=r"^system.integrate\(q, v, dt\): expected shape"):
        integrators.simulate_constrained(wrong, WELD, on_circles(1.0, 1.0), [0.0, 0.0], 1e-3, 2)
    with pytest.raises(TypeError, match="^integrate:"):
        integrators.project_position(np.eye(2), WELD, on_circles(1.0, 1.0), integrate=3)
    with pytest.raises(TypeError):
        integrators.MechanicalSystem(SYSTEM.mass_matrix, SYSTEM.bias, SYSTEM.potential, rotate)


def test_from_tree_uses_tree_integrate_only_when_nq_differs_from_nv():
    chain = models.planar_closed_chain()
    assert integrators.MechanicalSystem.from_tree(chain.model).integrate is None
    # A real tree with quaternion joints: a rod on a ball joint (nq = 4 > nv = 3).
    rod = inertia.spatial_inertia(1.0, [0.0, 0.0, -0.5], np.diag([0.02, 0.02, 0.001]))
    ball = tree.Tree([-1], [tree.SPHERICAL], [np.eye(4)], [rod])
    hook = integrators.MechanicalSystem.from_tree(ball).integrate
    assert hook is not None
    q = tree.random_configuration(ball, rng=3)
    v = np.array([0.3, -1.2, 0.7])
    np.testing.assert_array_equal(hook(q, v, 0.25), tree.integrate(ball, q, v, 0.25))
    assert not np.allclose(hook(q, v, 0.25), q + 0.25 * np.concatenate([[0.0], v]))
