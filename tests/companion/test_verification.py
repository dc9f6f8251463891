"""The independent checks must pass on correct algorithms and fail on broken ones."""

import numpy as np
import pytest

from geomotion import inertia, models, tree, verification


def test_particle_energy_of_one_body_matches_the_hand_formula():
    arm = models.two_link_teaching_arm()
    # Only joint 1 turns: both links rotate rigidly about the base z axis at 1 rad/s.
    energy = verification.tree_particle_energy(arm, [0.0, 0.0], [1.0, 0.0])
    by_hand = 0.5 * (0.01 + 2.0 * 0.3**2) + 0.5 * (0.005 + 1.0 * 0.85**2)
    assert energy == pytest.approx(by_hand, rel=1e-14)


def test_particle_cloud_reproduces_each_body_centre_of_mass_in_the_base_frame():
    body = models.humanoid_upper_body()
    q = np.linspace(-0.3, 0.9, body.num_bodies)
    cloud = verification.tree_particle_cloud(body, q)
    assert cloud.shape == (body.num_bodies, 6, 3)
    T = tree.forward_kinematics(body, q)
    _, c, _ = inertia.mass_properties(body.inertias)
    expected = np.einsum("nij,nj->ni", T[:, :3, :3], c) + T[:, :3, 3]
    np.testing.assert_allclose(cloud.mean(axis=1), expected, atol=1e-14)


def test_tree_checks_pass_on_a_random_branched_tree():
    model = models.random_tree(np.random.default_rng(11), 8, helical_fraction=0.2)
    report = verification.tree_checks(model, np.random.default_rng(3), n_states=30)
    assert report.max_relative_error() < 1e-12
    assert set(report.errors) >= {"particle energy vs qd^T M qd / 2", "ABA vs dense solve"}
    assert "30 random states of a 8-body tree" in str(report)


def test_tree_checks_catch_a_wrong_mass_matrix(monkeypatch):
    body = models.humanoid_upper_body()
    correct_crba = tree.crba
    monkeypatch.setattr(tree, "crba", lambda model, q: 1.01 * correct_crba(model, q))
    report = verification.tree_checks(body, np.random.default_rng(0), n_states=10)
    assert report.errors["particle energy vs qd^T M qd / 2"] > 5e-3
    assert report.errors["RNEA columns vs CRBA"] > 5e-3


def test_tree_checks_catch_a_wrong_forward_dynamics(monkeypatch):
    body = models.humanoid_upper_body()
    correct_aba = tree.aba
    monkeypatch.setattr(tree, "aba", lambda *args, **kwargs: correct_aba(*args, **kwargs) + 1e-3)
    report = verification.tree_checks(body, np.random.default_rng(0), n_states=10)
    assert report.errors["ABA vs dense solve"] > 1e-6
    assert report.errors["RNEA(ABA(tau)) vs tau"] > 1e-6


def test_tree_checks_reject_a_bad_state_count():
    with pytest.raises(ValueError, match="n_states: expected a positive integer"):
        verification.tree_checks(models.two_link_teaching_arm(), np.random.default_rng(0), n_states=0)
