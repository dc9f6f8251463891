"""Cross-engine: the redundant four-bar closure against Pinocchio's proximal constraintDynamics.

The crank-rocker of chapter 2 is rebuilt in Pinocchio (three RZ joints, uniform thin rods,
in-plane gravity) and closed with a CONTACT_3D constraint between the tips of links 2 and
3: all three point rows, the z row identically zero, so the 3 x 3 constraint system is
singular.  Pinocchio solves it by proximal iterations (ProximalSettings(1e-12, 1e-3,
10000), as in /work/shared/TOOLCHAIN.md); ours by the rank-revealing solve.  Measured:
accelerations agree to 1.3e-13, multipliers to the same order.
"""

import numpy as np
import pytest

from geomotion import constraints, models, tree

pin = pytest.importorskip("pinocchio")

CHAIN = models.planar_closed_chain()
GRAVITY = np.array([0.0, -9.81, 0.0])


def rod(mass, length):
    """A uniform thin rod along its body x axis, in Pinocchio's Inertia (no axial inertia)."""
    I_C = np.diag([0.0, mass * length**2 / 12, mass * length**2 / 12])
    return pin.Inertia(mass, np.array([length / 2, 0.0, 0.0]), I_C)


def pinocchio_chain():
    l1, l2, l3 = CHAIN.lengths
    a, b = CHAIN.base
    m1, m2, m3 = CHAIN.masses
    model = pin.Model()
    j1 = model.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "link1")
    model.appendBodyToJoint(j1, rod(m1, l1), pin.SE3.Identity())
    j2 = model.addJoint(j1, pin.JointModelRZ(), pin.SE3(np.eye(3), np.array([l1, 0, 0])), "link2")
    model.appendBodyToJoint(j2, rod(m2, l2), pin.SE3.Identity())
    j3 = model.addJoint(0, pin.JointModelRZ(), pin.SE3(np.eye(3), np.array([a, b, 0])), "link3")
    model.appendBodyToJoint(j3, rod(m3, l3), pin.SE3.Identity())
    model.gravity = pin.Motion(GRAVITY, np.zeros(3))
    closure = pin.RigidConstraintModel(
        pin.ContactType.CONTACT_3D,
        model,
        j2,
        pin.SE3(np.eye(3), np.array([l2, 0, 0])),
        j3,
        pin.SE3(np.eye(3), np.array([l3, 0, 0])),
        pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
    )
    return model, closure


def three_rows(q, v):
    """J (3 x 3) and gamma of the tip-to-tip closure with all base rows, from tree."""
    l2, l3 = CHAIN.lengths[1:]
    pa, pb = (1, [l2, 0.0, 0.0]), (2, [l3, 0.0, 0.0])
    J = tree.point_jacobian(CHAIN.model, q, *pa) - tree.point_jacobian(CHAIN.model, q, *pb)
    gamma = tree.point_acceleration_bias(CHAIN.model, q, v, *pa) - tree.point_acceleration_bias(
        CHAIN.model, q, v, *pb
    )
    return J, gamma


@pytest.mark.parametrize("theta1", [-2.0, 0.7, 2.5])
def test_redundant_closure_matches_pinocchio_proximal_solve(theta1):
    model, closure = pinocchio_chain()
    data = model.createData()
    rng = np.random.default_rng(int(10 * theta1) + 40)
    q = CHAIN.joint_coordinates(CHAIN.closed_configuration(theta1))
    J2 = CHAIN.loop_closure.jacobian(q)
    v = rng.normal(size=3)
    v -= np.linalg.pinv(J2) @ (J2 @ v)  # admissible rates
    tau = rng.uniform(-1.0, 1.0, 3)

    J, gamma = three_rows(q, v)
    assert np.all(J[2] == 0.0)
    M = tree.crba(CHAIN.model, q)
    h = tree.bias_forces(CHAIN.model, q, v, gravity=GRAVITY)
    ours = constraints.constrained_dynamics(M, J, h, gamma, tau)
    assert ours.rank == 2

    models_ = pin.StdVec_RigidConstraintModel()
    models_.append(closure)
    datas = pin.StdVec_RigidConstraintData()
    datas.append(closure.createData())
    pin.initConstraintDynamics(model, data, models_, datas)
    settings = pin.ProximalSettings(1e-12, 1e-3, 10000)
    a_pin = pin.constraintDynamics(model, data, q, v, tau, models_, datas, settings)
    assert settings.iter < 10000  # the proximal iterations converged
    scale = np.abs(a_pin).max()
    np.testing.assert_allclose(ours.a, a_pin, rtol=0, atol=1e-10 * scale)  # 1.3e-13 seen
    lam_pin = np.array(data.lambda_c)
    np.testing.assert_allclose(ours.multiplier, lam_pin, rtol=0, atol=1e-9 * np.abs(lam_pin).max())
