"""constraints.ClosureSet: several frame closures stacked, evaluated in one compiled pass.

Checked against the concatenation of each closure's own residual, Jacobian and bias (a
different code path: one FramePair walk per closure), on the golfer's two welded feet and
its grip, at random states and batched, and against central differences of the stacked
twist rows along a motion (an independent check of the bias).
"""

import numpy as np
import pytest

from geomotion import _linalg, constraints, models, tree
from geomotion.tree import _closed_loop


@pytest.fixture(scope="module")
def golfer_set():
    golfer = models.golfer()
    closures = golfer.constraints(golfer.q0)
    return golfer.model, closures, constraints.ClosureSet(closures)


def random_states(model, rng, batch):
    q = tree.random_configuration(model, shape=batch, rng=rng)
    v = rng.normal(size=batch + (model.nv,))
    return q, v


def test_the_set_stacks_each_closure_rows_in_order(golfer_set):
    model, closures, both = golfer_set
    assert both.sizes == (6, 6, 3)
    rng = np.random.default_rng(3)
    q, v = random_states(model, rng, (4, 3))
    rows = both.jacobian_and_bias(q, v)
    J, gamma = rows.J_c, rows.gamma
    J_each = np.concatenate([c.jacobian(q) for c in closures], axis=-2)
    g_each = np.concatenate([c.acceleration_bias(q, v) for c in closures], axis=-1)
    assert J.shape == (4, 3, 15, model.nv) and gamma.shape == (4, 3, 15)
    scale = np.abs(J_each).max()
    np.testing.assert_allclose(J, J_each, rtol=0, atol=1e-13 * scale)
    np.testing.assert_allclose(gamma, g_each, rtol=0, atol=1e-12 * np.abs(g_each).max())
    np.testing.assert_allclose(both.jacobian(q), J, rtol=0, atol=0)
    np.testing.assert_allclose(both.acceleration_bias(q, v), gamma, rtol=0, atol=0)
    residual = np.concatenate([c.residual(q) for c in closures], axis=-1)
    np.testing.assert_array_equal(both.residual(q), residual)


def test_the_rows_are_one_class_defined_in_tree(golfer_set):
    # constraints.JacobianAndBias is tree's class re-exported (constraints is the layer
    # above tree), and the set passes on what its FramePairStack returns.
    model, _, both = golfer_set
    assert constraints.JacobianAndBias is tree.JacobianAndBias
    q, v = random_states(model, np.random.default_rng(5), ())
    rows = both.jacobian_and_bias(q, v)
    assert type(rows) is tree.JacobianAndBias
    with pytest.raises(TypeError):
        J, gamma = rows  # read by name; it does not unpack


def test_the_stacked_bias_is_the_rate_of_the_stacked_rows(golfer_set):
    # gamma = d/dt (J v) at a = 0: central differences of J(q(t)) v along q' = v.
    model, _, both = golfer_set
    rng = np.random.default_rng(4)
    q, v = random_states(model, rng, ())
    h = 1e-5
    plus = both.jacobian(tree.integrate(model, q, v, h)) @ v
    minus = both.jacobian(tree.integrate(model, q, v, -h)) @ v
    rate = (plus - minus) / (2 * h)
    gamma = both.acceleration_bias(q, v)
    np.testing.assert_allclose(gamma, rate, rtol=0, atol=1e-6 * np.abs(rate).max())


def test_a_closure_set_refuses_bad_input(golfer_set):
    model, closures, both = golfer_set
    with pytest.raises(TypeError, match="closures: expected a sequence of FrameClosure"):
        constraints.ClosureSet(closures[0])
    with pytest.raises(TypeError, match="got LoopClosure at position 1"):
        constraints.ClosureSet(
            [closures[0], constraints.loop_closure(model, 2, [0, 0, 0], -1, [0, 0, 0])]
        )
    with pytest.raises(ValueError, match="closures: expected at least one"):
        constraints.ClosureSet([])
    other = models.golfer()
    with pytest.raises(ValueError, match="closure 1 on another tree"):
        constraints.ClosureSet([closures[0], other.constraints(other.q0)[1]])
    with pytest.raises(ValueError, match="q"):
        both.jacobian(np.zeros(model.nq))  # a zero quaternion is not a unit one
    with pytest.raises(ValueError, match="v"):
        both.jacobian_and_bias(models.golfer().q0, np.zeros(model.nv + 1))


# ---------------------------------------------------------------------------
# Forward dynamics: one compiled pass, or the composition it must equal
# ---------------------------------------------------------------------------


def states_near_address(model, q0, rng, batch):
    """Configurations a few degrees from the golfer's address, random velocities and loads."""
    q = tree.integrate(model, q0, rng.normal(size=(batch, model.nv)), 0.05)
    v, tau = rng.normal(size=(2, batch, model.nv))
    return q, v, tau * 20.0


def composed(closure_set, q, v, tau):
    model = closure_set.model
    rows = closure_set.jacobian_and_bias(q, v)
    J, gamma = rows.J_c, rows.gamma
    M, h = tree.crba(model, q), tree.bias_forces(model, q, v)
    return constraints.constrained_dynamics(M, J, h, gamma, tau), (M, J, h, gamma)


def test_forward_dynamics_in_one_pass_solves_the_closed_loop_equations(golfer_set):
    # 131 states: two full blocks and a partial one.  The equations are checked with M,
    # h, J and gamma from the separate kernels, then the composition's result itself.
    model, _, both = golfer_set
    golfer = models.golfer()
    q, v, tau = states_near_address(model, golfer.q0, np.random.default_rng(11), 131)
    status = _closed_loop.run(both._stack, q, v, tau, (131,), 1e-10)[2]
    assert (status == _linalg.SOLVED).all()  # the fused pass solves every state
    result = both.forward_dynamics(q, v, tau)
    expected, (M, J, h, gamma) = composed(both, q, v, tau)
    assert result.a.shape == (131, model.nv) and result.multiplier.shape == (131, 15)
    assert result.rank.tolist() == [15] * 131
    reaction = np.einsum("bci,bc->bi", J, result.multiplier)
    balance = np.einsum("bij,bj->bi", M, result.a) + h - tau - reaction
    assert np.abs(balance).max() <= 1e-10 * np.abs(tau - h).max()
    held = np.einsum("bci,bi->bc", J, result.a) + gamma
    assert np.abs(held).max() <= 1e-10 * (1 + np.abs(gamma).max())
    np.testing.assert_allclose(result.a, expected.a, rtol=0, atol=1e-11 * np.abs(expected.a).max())
    np.testing.assert_allclose(
        result.multiplier,
        expected.multiplier,
        rtol=0,
        atol=1e-11 * np.abs(expected.multiplier).max(),
    )


def test_forward_dynamics_of_one_state_is_its_row_of_any_batch(golfer_set):
    # Every batch size runs the same pass, a lane per state: one state alone, a small
    # batch and a batch of two blocks give each state the same answer to the last bit.
    model, _, both = golfer_set
    golfer = models.golfer()
    q, v, tau = states_near_address(model, golfer.q0, np.random.default_rng(12), 70)
    batch = both.forward_dynamics(q, v, tau)
    one = both.forward_dynamics(q[4], v[4], tau[4])
    assert isinstance(one.rank, int) and one.rank == 15
    np.testing.assert_array_equal(one.a, batch.a[4])
    np.testing.assert_array_equal(one.multiplier, batch.multiplier[4])
    small = both.forward_dynamics(q[65:68], v[65:68], tau[65:68])
    np.testing.assert_array_equal(small.a, batch.a[65:68])


def test_forward_dynamics_with_redundant_rows_is_the_composition():
    # A hinge and, redundantly, a point at the same place: the certificate fails and the
    # rank-revealing solve of constrained_dynamics answers (rank 6 of 8 rows).
    arm = models.two_link_teaching_arm()
    tip = np.eye(4)
    tip[0, 3] = 0.5
    anchor = np.eye(4)
    anchor[:2, 3] = [0.8, 0.3]
    both = constraints.ClosureSet(
        [
            constraints.frame_closure(arm, 1, tip, -1, anchor, components="revolute"),
            constraints.frame_closure(arm, 1, tip, -1, anchor, components="spherical"),
        ]
    )
    rng = np.random.default_rng(13)
    q, v, tau = rng.normal(size=(3, 20, 2))
    status = _closed_loop.run(both._stack, q, v, tau, (20,), 1e-10)[2]
    assert (status == _linalg.ROWS_NOT_CERTIFIED).all()
    result = both.forward_dynamics(q, v, tau)
    expected, _ = composed(both, q, v, tau)
    np.testing.assert_array_equal(result.rank, expected.rank)
    assert (result.rank < 8).all()
    np.testing.assert_array_equal(result.a, expected.a)


@pytest.mark.parametrize(
    ("tau", "error", "match"),
    [
        (np.zeros(36), ValueError, r"tau: expected shape \(\.\.\., 35\)"),
        (np.zeros((4, 35)), ValueError, r"q, v, tau: expected leading \(batch\) shapes"),
        (np.full(35, np.nan), ValueError, "tau"),
        ("load", TypeError, "tau"),
    ],
)
def test_forward_dynamics_refuses_bad_loads(golfer_set, tau, error, match):
    model, _, both = golfer_set
    q = np.broadcast_to(models.golfer().q0, (3, model.nq))
    with pytest.raises(error, match=match):
        both.forward_dynamics(q, np.zeros((3, model.nv)), tau)
