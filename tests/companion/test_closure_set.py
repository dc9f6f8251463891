"""constraints.ClosureSet: several frame closures stacked, evaluated in one compiled pass.

Checked against the concatenation of each closure's own residual, Jacobian and bias (a
different code path: one FramePair walk per closure), on the golfer's two welded feet and
its grip, at random states and batched, and against central differences of the stacked
twist rows along a motion (an independent check of the bias).
"""

import numpy as np
import pytest

from geomotion import constraints, models, tree


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
    J, gamma = both.jacobian_and_bias(q, v)
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
