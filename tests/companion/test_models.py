"""Example models: the chapter's two-link arm, the humanoid tree and random trees."""

import numpy as np
import pytest

from geomotion import inertia, models, tree


def test_two_link_arm_carries_the_chapter_parameters():
    arm = models.two_link_teaching_arm()
    props = inertia.mass_properties(arm.inertias)
    m, c, I_C = props.mass, props.com, props.inertia_com
    np.testing.assert_allclose(m, [2.0, 1.0], rtol=1e-15)
    np.testing.assert_allclose(c, [[0.3, 0, 0], [0.25, 0, 0]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        I_C, [np.diag([0.05, 0.05, 0.01]), np.diag([0.02, 0.02, 0.005])], rtol=0, atol=1e-15
    )
    np.testing.assert_allclose(
        tree.forward_kinematics(arm, [0.0, 0.7])[1, :3, 3], [0.6, 0, 0], rtol=0, atol=1e-15
    )


def test_humanoid_is_a_depth_first_torso_with_two_three_segment_arms():
    body = models.humanoid_upper_body()
    np.testing.assert_array_equal(body.parents, [-1, 0, 1, 2, 0, 4, 5])
    assert len(models.HUMANOID_BODIES) == body.num_bodies
    props = inertia.mass_properties(body.inertias)
    m, _, I_C = props.mass, props.com, props.inertia_com
    np.testing.assert_allclose(m.sum(), 30 + 2 * (2.0 + 1.2 + 0.45), rtol=1e-14)
    assert all(inertia.is_physically_realizable(I_C))
    # Left and right arms mirror each other through the torso's x-z plane at q = 0.
    origins = tree.forward_kinematics(body, np.zeros(7))[:, :3, 3]
    np.testing.assert_allclose(origins[4:], origins[1:4] * [1, -1, 1], rtol=0, atol=1e-15)


def test_random_trees_are_depth_first_branched_and_have_no_parallel_axes():
    rng = np.random.default_rng(5)
    model = models.random_tree(
        12, rng=rng, branching=0.5, prismatic_fraction=0.3, helical_fraction=0.2
    )
    parents = np.array(model.parents)
    assert np.all(parents < np.arange(12))
    assert len(set(parents[parents >= 0])) < 11  # at least one body has two children: branched
    # Depth-first: every subtree is a contiguous block right after its root.
    for root in range(12):
        members = [root] + [i for i in range(root + 1, 12) if _is_descendant(parents, i, root)]
        assert members == list(range(root, root + len(members)))
    kinds = {_joint_kind(S) for S in model.screws}
    assert kinds == {"revolute", "prismatic", "helical"}
    # Joint directions in base axes at q = 0 (placements chained by hand, body order is
    # parent-first): no two parallel, and together they span space.
    R_base = []
    for T, p in zip(model.placements, parents):
        R_base.append(T[:3, :3] if p < 0 else R_base[p] @ T[:3, :3])
    local = np.array([S[:3] if np.any(S[:3]) else S[3:] for S in model.screws])
    axes = np.einsum("kij,kj->ki", np.array(R_base), local)
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    assert np.abs(axes @ axes.T - np.eye(12)).max() < 0.999  # no two axes parallel
    assert np.linalg.svd(axes, compute_uv=False)[2] > 0.1 * np.sqrt(12)  # not all in one plane
    offsets = np.linalg.norm(model.placements[:, :3, 3], axis=1)
    assert offsets.min() > 0


def _is_descendant(parents, i, root):
    while i > root:
        i = parents[i]
    return i == root


def _joint_kind(S):
    if not np.any(S[:3]):
        return "prismatic"
    return "helical" if abs(S[:3] @ S[3:]) > 1e-12 else "revolute"


def test_random_models_take_anything_default_rng_takes():
    # rng= is a seed or a Generator (used and advanced): the same numbers either way.
    by_seed = models.random_tree(6, rng=7, helical_fraction=0.2)
    rng = np.random.default_rng(7)
    by_generator = models.random_tree(6, rng=rng, helical_fraction=0.2)
    np.testing.assert_array_equal(by_seed.screws, by_generator.screws)
    np.testing.assert_array_equal(by_seed.placements, by_generator.placements)
    np.testing.assert_array_equal(by_seed.inertias, by_generator.inertias)
    after = rng.normal()  # the generator was advanced by the tree it drew
    assert after != np.random.default_rng(7).normal()
    rng = np.random.default_rng(3)
    R = models.random_rotation(rng=rng)
    np.testing.assert_array_equal(R, models.random_rotation(rng=3))
    np.testing.assert_allclose(R @ R.T, np.eye(3), rtol=0, atol=1e-15)
    assert not np.array_equal(models.random_rotation(rng=rng), R)  # advanced
    assert models.random_tree(2).num_bodies == 2  # rng=None: fresh entropy


def test_random_tree_rejects_bad_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_bodies: expected a positive integer"):
        models.random_tree(0, rng=rng)
    with pytest.raises(ValueError, match="branching: expected a probability"):
        models.random_tree(3, rng=rng, branching=1.5)
    with pytest.raises(
        ValueError, match=r"prismatic_fraction \+ helical_fraction: expected at most 1"
    ):
        models.random_tree(3, rng=rng, prismatic_fraction=0.7, helical_fraction=0.6)


def test_aligned_angles_of_the_closed_chain_are_where_links_one_and_two_line_up():
    chain = models.planar_closed_chain()
    for branch in (1, -1):
        roots = chain.aligned_angles(branch=branch)
        closed = chain.closed_configuration(roots, branch=branch)
        # Independent of the determinant the method samples: the links' directions by hand.
        np.testing.assert_allclose(np.sin(closed[:, 1] - closed[:, 0]), 0.0, atol=1e-12)
        assert roots.shape == (2,) and np.all(np.diff(roots) > 0)
        np.testing.assert_allclose(chain.residual(closed), 0.0, atol=1e-14)
    # The base lies on the x axis: mirroring in it swaps the branches and negates angles.
    np.testing.assert_allclose(
        chain.aligned_angles(branch=-1), -chain.aligned_angles(branch=1)[::-1], atol=1e-12
    )
    # A coarse grid finds the same roots.
    np.testing.assert_allclose(
        chain.aligned_angles(branch=1, samples=37), chain.aligned_angles(branch=1), atol=1e-12
    )
    with pytest.raises(ValueError, match="branch: expected 1 or -1"):
        chain.aligned_angles(branch=2)
    with pytest.raises(ValueError, match="samples: expected an integer >= 3"):
        chain.aligned_angles(branch=1, samples=2)
    with pytest.raises(TypeError, match="samples"):
        chain.aligned_angles(branch=1, samples=10.0)
