"""Cross-engine: the constrained dynamics of a closed loop against Pinocchio.

A random branched tree (rotated, offset revolute and prismatic joints about arbitrary axes,
built in Pinocchio exactly as in ``test_tree_cross_engine``) is closed by a 3-D loop between
points on the ends of two different branches.  Our pipeline is

    M = tree.crba(q),  h = tree.rnea(q, v, 0),  J, gamma = loop.jacobian(q), loop.acceleration_bias(q, v),
    (qdd, lam) = constraints.constrained_dynamics(M, J, h, gamma, tau);

Pinocchio's is ``constraintDynamics`` with a ``CONTACT_3D`` ``RigidConstraintModel`` between
the same two points (contact frames given in Pinocchio's joint frames, which sit at the
joint-axis points of our body frames, same axes), and ``forwardDynamics`` given our J and
gamma.  Both engines express the loop force in base (world) axes with the same sign.

The two points are made to coincide at the test configurations (Newton projection) and the
rates are admissible (J v = 0): a closed loop moving as it should.  At such states every
convention for the relative acceleration of two contact frames agrees, so differences can
only come from the dynamics.  Errors are relative to the largest entry of Pinocchio's value.
"""

import numpy as np
import pytest
from peers import axis_point, pin, pinocchio_model, to_peer
from trees import branch_ends, random_spec

from geomotion import constraints, tree

#: constraintDynamics runs one proximal iteration with mu = 1e-12: agreement reached
#: 1.1e-11 relative; forwardDynamics (a direct KKT solve) 6e-15.
RTOL_CONSTRAINT_DYNAMICS = 1e-10
RTOL_FORWARD_DYNAMICS = 5e-13
BATCH = 100  # takes the batched paths of both tree and constraints


def relative_error(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    return np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-12)


def closed_configurations(loop, q, iterations=30):
    """Gauss-Newton projection q <- q - J^T (J J^T)^-1 Phi onto the loop (test helper)."""
    for _ in range(iterations):
        J = loop.jacobian(q)
        step = np.linalg.solve(J @ np.swapaxes(J, -1, -2), loop.residual(q)[..., None])
        q = q - (np.swapaxes(J, -1, -2) @ step)[..., 0]
    return q


@pytest.fixture(scope="module", params=[31, 47], ids=lambda seed: f"tree{seed}")
def closed_loop(request):
    rng = np.random.default_rng(request.param)
    spec = random_spec(rng, 9, "rp", branched=True, roots=1)
    model = spec.tree()
    a, b = branch_ends(spec.parents)
    # Point b is placed where point a is at q0, so the loop is closed at q0.
    q0 = rng.uniform(-1.0, 1.0, spec.n)
    point_a = np.array([0.1, -0.05, 0.2])
    T_b = tree.forward_kinematics(model, q0)[b]
    point_b = T_b[:3, :3].T @ (tree.point_position(model, q0, a, point_a) - T_b[:3, 3])
    loop = constraints.loop_closure(model, a, point_a, b, point_b)
    q = closed_configurations(loop, q0 + rng.uniform(-0.2, 0.2, (BATCH, spec.n)))
    N = constraints.null_space_basis(loop.jacobian(q))
    v = (N @ rng.uniform(-1.5, 1.5, (BATCH, N.shape[-1], 1)))[..., 0]
    tau = rng.uniform(-2.0, 2.0, (BATCH, spec.n))
    return spec, model, loop, q, v, tau


def our_pipeline(model, loop, q, v, tau):
    J, gamma = loop.jacobian(q), loop.acceleration_bias(q, v)
    M, h = tree.crba(model, q), tree.rnea(model, q, v, np.zeros_like(q))
    dynamics = constraints.constrained_dynamics(M, J, h, gamma, tau)
    qdd, lam = dynamics.a, dynamics.multiplier
    return J, gamma, qdd, lam


def test_the_loop_is_closed_regular_and_moving_admissibly(closed_loop):
    _, _, loop, q, v, _ = closed_loop
    np.testing.assert_allclose(loop.residual(q), 0.0, atol=1e-14)
    J = loop.jacobian(q)
    s = np.linalg.svd(J, compute_uv=False)
    assert np.all(s[:, -1] > 0.05 * s[:, 0]), "the branches must leave J full row rank"
    np.testing.assert_allclose(np.einsum("bcn,bn->bc", J, v), 0.0, atol=1e-14)
    assert np.abs(v).max() > 0.5


def pinocchio_loop(spec, pmodel, loop):
    """The same loop as a Pinocchio CONTACT_3D constraint (models, datas)."""
    a, b = loop.body_a, loop.body_b
    contact = pin.RigidConstraintModel(
        pin.ContactType.CONTACT_3D,
        pmodel,
        pmodel.getJointId(f"joint{a}"),
        pin.SE3(np.eye(3), loop.point_a - axis_point(spec, a)),
        pmodel.getJointId(f"joint{b}"),
        pin.SE3(np.eye(3), loop.point_b - axis_point(spec, b)),
        pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
    )
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    models.append(contact)
    datas.append(contact.createData())
    return models, datas


def test_against_pinocchio_constraint_dynamics(closed_loop):
    spec, model, loop, q, v, tau = closed_loop
    J, _, qdd, lam = our_pipeline(model, loop, q, v, tau)
    pmodel, index = pinocchio_model(spec)
    data = pmodel.createData()
    models, datas = pinocchio_loop(spec, pmodel, loop)
    pin.initConstraintDynamics(pmodel, data, models, datas)
    settings = pin.ProximalSettings(1e-12, 1e-12, 1)
    for k in range(0, BATCH, 9):
        qp, vp, taup = (to_peer(x[k], index) for x in (q, v, tau))
        qdd_pin = pin.constraintDynamics(pmodel, data, qp, vp, taup, models, datas, settings)
        J_pin = pin.getConstraintJacobian(pmodel, data, models[0], datas[0])[:, index]
        assert relative_error(J[k], J_pin) <= 1e-13  # achieved 2e-15
        assert relative_error(qdd[k], qdd_pin[index]) <= RTOL_CONSTRAINT_DYNAMICS
        assert relative_error(lam[k], data.lambda_c) <= RTOL_CONSTRAINT_DYNAMICS
        assert relative_error(J[k].T @ lam[k], J_pin.T @ data.lambda_c) <= RTOL_CONSTRAINT_DYNAMICS
        # Pinocchio's own reaction: its inverse dynamics of its acceleration minus the load
        reaction_pin = (pin.rnea(pmodel, data, qp, vp, qdd_pin) - taup)[index]
        assert relative_error(J[k].T @ lam[k], reaction_pin) <= RTOL_CONSTRAINT_DYNAMICS


def test_against_pinocchio_forward_dynamics_with_our_jacobian_and_bias(closed_loop):
    spec, model, loop, q, v, tau = closed_loop
    J, gamma, qdd, lam = our_pipeline(model, loop, q, v, tau)
    pmodel, index = pinocchio_model(spec)
    data = pmodel.createData()
    for k in range(0, BATCH, 9):
        J_peer = np.empty_like(J[k])
        J_peer[:, index] = J[k]
        qp, vp, taup = (to_peer(x[k], index) for x in (q, v, tau))
        qdd_pin = pin.forwardDynamics(pmodel, data, qp, vp, taup, J_peer, gamma[k], 0.0)
        assert relative_error(qdd[k], qdd_pin[index]) <= RTOL_FORWARD_DYNAMICS
        assert relative_error(lam[k], data.lambda_c) <= RTOL_FORWARD_DYNAMICS
