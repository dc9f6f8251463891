"""The Coriolis matrix and point kinematics of trees, checked by routes that do not share their code.

* ``coriolis_matrix``: ``C qd`` against the velocity terms of RNEA (a body-frame
  recursion); ``Mdot - 2C`` skew with ``Mdot`` from central differences of ``crba``;
  the symmetry ``C(q, v) w = C(q, w) v`` that singles out the Christoffel matrix among
  all factorizations of the velocity terms; the energy identity; and, independently,
  Christoffel symbols written out from finite differences of ``crba``.
* point kinematics: positions against ``forward_kinematics`` (the readable path),
  Jacobians against central differences of positions, and the acceleration bias
  against a central difference of ``J(q + t qd) qd`` in ``t``.

Both fast paths are exercised: batches below 96 take the implementation vectorized
across bodies, larger batches the structure-of-arrays one.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples
from trees import random_spec

from geomotion import models, tree

BATCHES = [1, 7, 150]  # one configuration, the small-batch path, the large-batch path


def random_model(seed, n=8, kinds="rph", roots=1):
    return random_spec(np.random.default_rng(seed), n, kinds, branched=True, roots=roots).tree()


def states(model, batch, seed):
    rng = np.random.default_rng(seed)
    shape = (batch, model.num_bodies)
    return rng.uniform(-np.pi, np.pi, shape), rng.normal(size=shape), rng.normal(size=shape)


def mass_matrix_rate(model, q, qd, h=1e-5):
    """dM/dt along qd by a fourth-order central difference of crba (error ~1e-11 here)."""

    def M(t):
        return tree.crba(model, q + t * qd)

    return (8 * (M(h) - M(-h)) - (M(2 * h) - M(-2 * h))) / (12 * h)


def christoffel_from_differences(model, q, h=1e-5):
    """Gamma_ijk from fourth-order central differences of crba at one configuration."""
    n = model.num_bodies
    dM = np.empty((n, n, n))
    for k in range(n):
        e = np.eye(n)[k]
        dM[:, :, k] = (
            8 * (tree.crba(model, q + h * e) - tree.crba(model, q - h * e))
            - (tree.crba(model, q + 2 * h * e) - tree.crba(model, q - 2 * h * e))
        ) / (12 * h)
    return 0.5 * (dM + np.swapaxes(dM, 1, 2) - np.transpose(dM, (2, 0, 1)).swapaxes(1, 2))


# ---------------------------------------------------------------------------
# Coriolis matrix
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_coriolis_times_rates_is_the_velocity_part_of_inverse_dynamics(seed, batch):
    model = random_model(seed, roots=1 + seed % 2)
    q, qd, _ = states(model, batch, seed)
    C = tree.coriolis_matrix(model, q, qd)
    h = tree.rnea(model, q, qd, np.zeros_like(q), gravity=(0.0, 0.0, 0.0))
    scale = np.abs(h).max()
    assert np.abs(np.einsum("bij,bj->bi", C, qd) - h).max() <= 1e-13 * scale  # achieved ~1e-15


@pytest.mark.parametrize("batch", BATCHES)
def test_mass_matrix_rate_minus_twice_coriolis_is_skew(batch):
    model = random_model(7)
    q, qd, _ = states(model, batch, 7)
    C = tree.coriolis_matrix(model, q, qd)
    N = mass_matrix_rate(model, q, qd) - 2 * C
    scale = np.abs(C).max()
    assert np.abs(N + np.swapaxes(N, -1, -2)).max() <= 1e-8 * scale  # difference error ~1e-10
    assert np.abs(N).max() > 1e-2 * scale  # and it is not zero: C differs from Mdot / 2


@pytest.mark.parametrize("batch", BATCHES)
def test_coriolis_matrix_is_bilinear_and_symmetric_in_the_rates(batch):
    """C(q, v) w = C(q, w) v: true for the Christoffel matrix, false for other factorizations."""
    model = random_model(11, n=7, roots=2)
    q, v, w = states(model, batch, 11)
    Cv_w = np.einsum("bij,bj->bi", tree.coriolis_matrix(model, q, v), w)
    Cw_v = np.einsum("bij,bj->bi", tree.coriolis_matrix(model, q, w), v)
    scale = np.abs(Cv_w).max()
    assert np.abs(Cv_w - Cw_v).max() <= 1e-13 * scale
    C_sum = tree.coriolis_matrix(model, q, 2.0 * v - 3.0 * w)
    linear = 2.0 * tree.coriolis_matrix(model, q, v) - 3.0 * tree.coriolis_matrix(model, q, w)
    assert np.abs(C_sum - linear).max() <= 1e-13 * np.abs(linear).max()


def test_coriolis_matrix_equals_christoffel_symbols_from_the_mass_matrix():
    model = random_model(5, n=6, kinds="rp")
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, qd = rng.uniform(-np.pi, np.pi, 6), rng.normal(size=6)
        Gamma = christoffel_from_differences(model, q)
        expected = np.einsum("ijk,k->ij", Gamma, qd)
        C = tree.coriolis_matrix(model, q, qd)
        assert np.abs(C - expected).max() <= 1e-8 * np.abs(expected).max()  # achieved ~1e-10


def test_energy_identity_for_the_tree_coriolis_matrix():
    model = random_model(9)
    q, qd, _ = states(model, 40, 9)
    c = np.einsum("bij,bj->bi", tree.coriolis_matrix(model, q, qd), qd)
    half_qd_Mdot_qd = 0.5 * np.einsum("bi,bij,bj->b", qd, mass_matrix_rate(model, q, qd), qd)
    lhs = np.einsum("bi,bi->b", qd, c)
    assert np.abs(lhs - half_qd_Mdot_qd).max() <= 1e-8 * np.abs(half_qd_Mdot_qd).max()


def test_coriolis_matrix_of_the_two_link_arm_by_hand():
    """Planar two-link arm: C = h [[-qd2, -(qd1 + qd2)], [qd1, 0]], h = m2 l1 c2 sin q2."""
    arm = models.two_link_teaching_arm()
    q, qd = np.array([0.3, 0.9]), np.array([1.5, -0.7])
    m2, l1, c2 = 1.0, 0.6, 0.25  # the arm's second mass, first length, second centre of mass
    h = m2 * l1 * c2 * np.sin(q[1])
    expected = h * np.array([[-qd[1], -(qd[0] + qd[1])], [qd[0], 0.0]])
    np.testing.assert_allclose(tree.coriolis_matrix(arm, q, qd), expected, rtol=0, atol=1e-15)


def test_small_and_large_batch_paths_agree():
    model = random_model(13, n=10, roots=2)
    q, qd, _ = states(model, 200, 13)
    large = tree.coriolis_matrix(model, q, qd)
    small = np.array([tree.coriolis_matrix(model, a, b) for a, b in zip(q, qd)])
    assert np.abs(large - small).max() <= 1e-13 * np.abs(small).max()


def test_coriolis_matrix_broadcasts_and_is_contiguous():
    model = random_model(3, n=5)
    q, qd, _ = states(model, 120, 3)
    C = tree.coriolis_matrix(model, q.reshape(2, 60, 5), qd[0])
    assert C.shape == (2, 60, 5, 5) and C.flags.c_contiguous
    np.testing.assert_allclose(
        C[1, 7], tree.coriolis_matrix(model, q[67], qd[0]), rtol=0, atol=1e-13
    )
    assert tree.coriolis_matrix(model, q[0], qd[0]).shape == (5, 5)
    np.testing.assert_array_equal(tree.coriolis_matrix(model, q[0], np.zeros(5)), np.zeros((5, 5)))


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("not a tree", np.zeros(2), np.zeros(2)), "model: expected a geomotion.tree.Tree"),
        ((None, np.zeros(3), np.zeros(2)), r"q: expected shape \(\.\.\., 2\)"),
        ((None, np.zeros(2), np.zeros((2, 3))), r"v: expected shape \(\.\.\., 2\)"),
        ((None, np.zeros(2), [np.nan, 0.0]), "v: expected finite values"),
        (
            (None, np.zeros((3, 2)), np.zeros((4, 2))),
            "expected leading .batch. shapes that broadcast",
        ),
    ],
)
def test_coriolis_matrix_rejects_bad_input(args, match):
    arm = models.two_link_teaching_arm()
    args = tuple(arm if a is None else a for a in args)
    with pytest.raises(TypeError if "geomotion.tree.Tree" in match else ValueError, match=match):
        tree.coriolis_matrix(*args)


@settings(max_examples=examples(25))
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 9), batch=st.sampled_from([1, 3, 100]))
def test_coriolis_properties_on_generated_trees(seed, n, batch):
    rng = np.random.default_rng(seed)
    roots = int(rng.integers(1, n + 1))
    model = random_spec(rng, n, "rph", branched=True, roots=roots).tree()
    q, v, w = states(model, batch, seed)
    C = tree.coriolis_matrix(model, q, v)
    h = tree.rnea(model, q, v, np.zeros_like(q), gravity=(0.0, 0.0, 0.0))
    assert np.abs(np.einsum("bij,bj->bi", C, v) - h).max() <= 1e-12 * (1 + np.abs(h).max())
    Cw = tree.coriolis_matrix(model, q, w)
    sym = np.einsum("bij,bj->bi", C, w) - np.einsum("bij,bj->bi", Cw, v)
    assert np.abs(sym).max() <= 1e-12 * (1 + np.abs(C).max() * np.abs(w).max())


# ---------------------------------------------------------------------------
# Point kinematics
# ---------------------------------------------------------------------------


def positions_by_forward_kinematics(model, q, body, point):
    T = tree.forward_kinematics(model, q)[..., body, :, :]
    return np.einsum("...ij,...j->...i", T[..., :3, :3], point) + T[..., :3, 3]


@pytest.mark.parametrize("batch", BATCHES)
def test_point_position_matches_forward_kinematics(batch):
    model = random_model(21, roots=2)
    q, _, _ = states(model, batch, 21)
    rng = np.random.default_rng(21)
    for body in range(model.num_bodies):
        r = rng.normal(size=3)
        p = tree.point_position(model, q, body, r)
        assert np.abs(p - positions_by_forward_kinematics(model, q, body, r)).max() <= 1e-14 * (
            1 + np.abs(p).max()
        )


@pytest.mark.parametrize("batch", BATCHES)
def test_point_jacobian_matches_differences_of_positions(batch):
    model = random_model(22, roots=2)
    q, _, _ = states(model, batch, 22)
    n, h = model.num_bodies, 1e-6
    rng = np.random.default_rng(22)
    for body in range(n):
        r = rng.normal(size=3)
        J = tree.point_jacobian(model, q, body, r)
        columns = [
            (
                positions_by_forward_kinematics(model, q + h * e, body, r)
                - positions_by_forward_kinematics(model, q - h * e, body, r)
            )
            / (2 * h)
            for e in np.eye(n)
        ]
        assert np.abs(J - np.stack(columns, axis=-1)).max() <= 1e-8  # difference error ~1e-10


@pytest.mark.parametrize("batch", BATCHES)
def test_point_acceleration_bias_is_the_rate_of_the_point_velocity(batch):
    model = random_model(23, roots=2)
    q, qd, _ = states(model, batch, 23)
    t = 1e-5
    rng = np.random.default_rng(23)
    for body in range(model.num_bodies):
        r = rng.normal(size=3)
        bias = tree.point_acceleration_bias(model, q, qd, body, r)

        def velocity(s, body=body, r=r):
            return np.einsum(
                "...ij,...j->...i", tree.point_jacobian(model, q + s * qd, body, r), qd
            )

        expected = (8 * (velocity(t) - velocity(-t)) - (velocity(2 * t) - velocity(-2 * t))) / (
            12 * t
        )
        assert np.abs(bias - expected).max() <= 1e-8 * (1 + np.abs(expected).max())


def test_point_acceleration_bias_of_uniform_rotation_is_centripetal():
    """One revolute joint at 2 rad/s, point 0.5 m off the axis: |a| = w^2 r = 2 m/s^2, inward."""
    arm = models.two_link_teaching_arm()
    q, qd = np.array([0.4, 0.0]), np.array([2.0, 0.0])
    r = np.array([0.5, 0.0, 0.0])
    p = tree.point_position(arm, q, 0, r)
    a = tree.point_acceleration_bias(arm, q, qd, 0, r)
    np.testing.assert_allclose(a, -4.0 * p, rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(a), 2.0, rtol=1e-15)


def test_points_on_the_base_do_not_move():
    arm = models.two_link_teaching_arm()
    q = np.zeros((4, 2))
    r = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tree.point_position(arm, q, -1, r), np.tile(r, (4, 1)))
    np.testing.assert_array_equal(tree.point_jacobian(arm, q, -1, r), np.zeros((4, 3, 2)))
    np.testing.assert_array_equal(tree.point_acceleration_bias(arm, q, q, -1, r), np.zeros((4, 3)))


def test_point_kinematics_broadcast_points_against_configurations():
    model = random_model(25, n=5)
    q, qd, _ = states(model, 120, 25)
    points = np.random.default_rng(25).normal(size=(120, 3))
    J = tree.point_jacobian(model, q, 4, points)
    assert J.shape == (120, 3, 5)
    np.testing.assert_allclose(
        J[17], tree.point_jacobian(model, q[17], 4, points[17]), rtol=0, atol=1e-14
    )
    a = tree.point_acceleration_bias(model, q[0], qd[0], 4, points[:3])
    assert a.shape == (3, 3)
    np.testing.assert_allclose(
        a[2], tree.point_acceleration_bias(model, q[0], qd[0], 4, points[2]), rtol=0, atol=1e-14
    )


def test_points_of_a_tree_far_from_the_base_keep_their_precision():
    spec = random_spec(np.random.default_rng(26), 4, "rp", branched=False)
    spec.offsets[0] += 1000.0  # the whole tree 1 km from the base origin
    model = spec.tree()
    q, _, _ = states(model, 5, 26)
    r = np.array([0.1, -0.2, 0.05])
    p = tree.point_position(model, q, 3, r)
    assert np.abs(p - positions_by_forward_kinematics(model, q, 3, r)).max() <= 1e-12
    near = random_spec(np.random.default_rng(26), 4, "rp", branched=False).tree()
    np.testing.assert_allclose(
        tree.point_jacobian(model, q, 3, r), tree.point_jacobian(near, q, 3, r), rtol=0, atol=1e-13
    )


@pytest.mark.parametrize(
    ("body", "point", "match"),
    [
        (2, np.zeros(3), "body: expected an integer >= -1 and <= 1, got 2"),
        (-2, np.zeros(3), "body: expected an integer >= -1 and <= 1, got -2"),
        (True, np.zeros(3), "body: expected an integer >= -1, got True"),
        (0.0, np.zeros(3), "body: expected an integer >= -1, got 0.0"),
        (0, np.zeros(2), r"point: expected shape \(\.\.\., 3\)"),
        (0, [np.inf, 0, 0], "point: expected finite values"),
        (0, np.zeros((5, 3)), "expected leading .batch. shapes that broadcast"),
    ],
)
def test_point_kinematics_reject_bad_input(body, point, match):
    arm = models.two_link_teaching_arm()
    q = np.zeros((4, 2))
    for call in (
        lambda: tree.point_position(arm, q, body, point),
        lambda: tree.point_jacobian(arm, q, body, point),
        lambda: tree.point_acceleration_bias(arm, q, q, body, point),
    ):
        # A body index that is not an int (a bool, a float) is a TypeError.
        wrong_type = isinstance(body, (bool, float))
        with pytest.raises(TypeError if wrong_type else ValueError, match=match):
            call()


@pytest.mark.parametrize("batch", [1, 5])
def test_coriolis_matrix_equals_the_lagrange_module_on_the_mass_matrix(batch):
    """The generic route: Christoffel symbols from Richardson differences of tree.crba."""
    from geomotion import lagrange

    model = random_model(17, n=6, roots=2)
    q, qd, _ = states(model, batch, 17)
    dM = lagrange.mass_matrix_derivatives(lambda x: tree.crba(model, x), q)
    expected = lagrange.coriolis_matrix(dM, qd)
    C = tree.coriolis_matrix(model, q, qd)
    assert np.abs(C - expected).max() <= 1e-9 * np.abs(expected).max()  # ~1e-12 achieved
