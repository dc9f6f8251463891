"""Batches of any size: the large-batch path runs block by block, with the same results.

A batch larger than one block is cut into blocks (the last one partial); every block is
computed by the same code and written into outputs allocated once.  The results must
equal those of one unblocked call (bit for bit, but for the odd last-bit difference when
BLAS treats a block's width differently), and the work arrays kept between calls must
hold one block, however long the batch.
"""

import numpy as np
import pytest
from trees import random_spec

from geomotion import tree
from geomotion.tree import batched
from geomotion.tree import model as tree_model

BLOCK = 128  # small blocks for the tests; the large-batch path starts at 96 configurations


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(tree_model, "POINTS_BLOCK", BLOCK)


def unblocked(monkeypatch):
    monkeypatch.setattr(tree_model, "POINTS_BLOCK", 10**9)


def everything(model, q, qd, x, g):
    n = model.num_bodies
    point = np.array([0.1, -0.2, 0.05])
    return {
        "crba": tree.crba(model, q),
        "rnea": tree.rnea(model, q, qd, x, gravity=g),
        "aba": tree.aba(model, q, qd, x, gravity=g),
        "coriolis": tree.coriolis_matrix(model, q, qd),
        "point position": tree.point_position(model, q, n - 1, point),
        "point jacobian": tree.point_jacobian(model, q, n - 1, point),
        "point bias": tree.point_acceleration_bias(model, q, qd, n - 1, point),
    }


@pytest.mark.parametrize("batch", [BLOCK + 1, 3 * BLOCK, 3 * BLOCK + 17, 1024 + 1])
def test_blocked_results_equal_one_unblocked_call(monkeypatch, small_blocks, batch):
    spec = random_spec(np.random.default_rng(batch), 7, "rph", roots=2)
    model = spec.tree()
    rng = np.random.default_rng(batch)
    q, qd, x = rng.uniform(-np.pi, np.pi, (3, batch, 7))
    g = rng.normal(size=(batch, 3))  # one gravity per configuration, sliced with the blocks
    blocked = everything(model, q, qd, x, g)
    unblocked(monkeypatch)
    whole = everything(model, q, qd, x, g)
    for name, value in blocked.items():
        reference = whole[name]
        assert value.shape == reference.shape and value.flags.c_contiguous, name
        scale = np.abs(reference).max()
        assert np.abs(value - reference).max() <= 1e-14 * scale, name  # rounding at most
        # The same arithmetic per configuration: bit for bit, except where BLAS picks
        # another kernel for a block's width (seen: 2 entries in 7,000 differ by 1 ulp).
        assert np.mean(value == reference) > 0.99, name


def test_the_last_partial_block_equals_single_configurations(small_blocks):
    model = random_spec(np.random.default_rng(3), 5, "rp").tree()
    q, qd = np.random.default_rng(3).normal(size=(2, BLOCK + 1, 5))
    C = tree.coriolis_matrix(model, q, qd)
    np.testing.assert_allclose(
        C[-1], tree.coriolis_matrix(model, q[-1], qd[-1]), rtol=0, atol=1e-13 * np.abs(C[-1]).max()
    )


def test_work_arrays_kept_between_calls_hold_one_block(small_blocks):
    """The arena kept for a model is the same size after a batch of 3 blocks and of 40."""
    model = random_spec(np.random.default_rng(4), 6, "rp").tree()
    rng = np.random.default_rng(4)

    def kept_after(batch):
        q, qd = rng.normal(size=(2, batch, 6))
        tree.point_acceleration_bias(model, q, qd, 5, [0.1, 0.0, 0.0])
        entry = batched._KEPT.get(id(model._compiled))
        return entry[1].nbytes()

    short = kept_after(3 * BLOCK)
    assert short > 0
    assert kept_after(40 * BLOCK + 5) == short
