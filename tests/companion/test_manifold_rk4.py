"""Runge–Kutta on the configuration manifold: the Lie bracket and fourth order on rotations.

With ball and free-flyer joints, RK4 takes its stages along velocity increments u from
the step's start, q = q_k (+) u.  Rotations do not commute, so each stage's rate of u
must be corrected by the Lie bracket (Munthe-Kaas): without the correction the method
is second order.  The brackets are checked against matrix commutators of the hat maps,
and the order against a reference solution with a much smaller step, and with the
correction switched off.
"""

import numpy as np
import pytest

from geomotion import inertia, integrators, spatial, tree
from geomotion.integrators import _common


def hat_twist(xi):
    """4x4 matrix of an angular-first twist (omega, v)."""
    H = np.zeros(xi.shape[:-1] + (4, 4))
    H[..., :3, :3] = spatial.skew(xi[..., :3])
    H[..., :3, 3] = xi[..., 3:]
    return H


@pytest.fixture(scope="module")
def floating():
    body = inertia.spatial_inertia(2.0, [0.0, 0.1, 0.0], np.diag([0.02, 0.03, 0.04]))
    rod = inertia.spatial_inertia(1.0, [0.3, 0.1, -0.5], np.diag([0.03, 0.02, 0.01]))
    return tree.Tree(
        [-1, 0, 1],
        [tree.FREE_FLYER, tree.SPHERICAL, tree.REVOLUTE_X],
        [np.eye(4), spatial.pose(np.eye(3), [0, 0, -0.1]), spatial.pose(np.eye(3), [0, 0, -0.6])],
        [body, rod, rod],
    )


def test_lie_bracket_is_the_matrix_commutator_joint_by_joint(floating):
    rng = np.random.default_rng(0)
    u, w = rng.normal(size=(2, 5, floating.nv))
    bracket = tree.lie_bracket(floating, u, w)
    # free flyer: [hat(u), hat(w)] = hat([u, w])
    Hu, Hw = hat_twist(u[:, :6]), hat_twist(w[:, :6])
    np.testing.assert_allclose(hat_twist(bracket[:, :6]), Hu @ Hw - Hw @ Hu, atol=1e-12)
    # ball: [skew(u), skew(w)] = skew(u x w)
    Su, Sw = spatial.skew(u[:, 6:9]), spatial.skew(w[:, 6:9])
    np.testing.assert_allclose(spatial.skew(bracket[:, 6:9]), Su @ Sw - Sw @ Su, atol=1e-12)
    np.testing.assert_array_equal(bracket[:, 9], 0.0)  # a hinge commutes with itself
    np.testing.assert_allclose(tree.lie_bracket(floating, w, u), -bracket, atol=1e-15)
    with pytest.raises(ValueError, match=r"w: expected shape \(\.\.\., 10\)"):
        tree.lie_bracket(floating, u, w[:, :9])


def final_error(model, q0, v0, n, reference, bracket="model"):
    if bracket == "model":
        run = integrators.simulate(model, q0, v0, 1.0 / n, n)
        q_end = run.q[-1]
    else:  # the same RK4 without the Munthe-Kaas correction
        system = integrators.MechanicalSystem.from_tree(model)

        def dynamics(t, q, v):
            return tree.aba(model, q, v, np.zeros(model.nv)), np.zeros((1, model.nv))

        q, v = q0, v0
        for k in range(n):
            q, v, _, _ = _common.rk4_step(dynamics, k / n, q, v, 1.0 / n, system.integrate, None)
        q_end = q
    return np.abs(tree.difference(model, reference, q_end)).max()


def observed_order(errors):
    return np.log2(np.array(errors[:-1]) / np.array(errors[1:]))


def test_rk4_is_fourth_order_on_a_floating_body_with_a_ball_joint(floating):
    q0 = tree.random_configuration(floating, rng=4)
    v0 = np.random.default_rng(5).normal(size=floating.nv) * 1.5
    reference = integrators.simulate(floating, q0, v0, 1.0 / 512, 512).q[-1]  # 1/8 of the finest
    errors = [final_error(floating, q0, v0, n, reference) for n in (16, 32, 64)]
    assert np.all(observed_order(errors) > 3.7), errors
    uncorrected = [final_error(floating, q0, v0, n, reference, bracket=None) for n in (16, 32, 64)]
    assert np.all(observed_order(uncorrected) < 2.5), uncorrected  # what the bracket fixes


def test_a_system_bracket_must_be_callable():
    arm = integrators.MechanicalSystem.from_tree(
        tree.Tree([-1], [tree.REVOLUTE_Z], [np.eye(4)], [np.eye(6)], gravity=(0, -9.81, 0))
    )
    assert arm.bracket is None  # screw joints commute
    with pytest.raises(TypeError, match="bracket: expected None or a callable"):
        integrators.MechanicalSystem(arm.mass_matrix, arm.bias, arm.potential, bracket=3)
