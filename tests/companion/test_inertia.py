"""Inertia: the seed chapter's numbers, particle sums, congruence properties, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import examples, poses, quaternion_rotation, realizable_bodies, vectors

from geomotion import inertia, spatial

# Random bodies: spatial_inertia's heuristic may read a few as inertias about the origin
# (test_user_traps.py tests that warning); these properties concern the algebra.
RANDOM_BODIES_MAY_LOOK_ABOUT_ORIGIN = pytest.mark.filterwarnings(
    "ignore::geomotion.inertia.InertiaFrameWarning"
)

#: The default rtol of inertia.mass_properties (and of the tree's decoding of inertias).
DECODE_RTOL = 1e-9


def link_one():
    return inertia.spatial_inertia(2.0, [0.3, 0, 0], np.diag([0.05, 0.05, 0.01]))


# --- the seed's worked numbers ---------------------------------------------


def test_first_link_matrix_matches_the_chapter():
    expected = np.array(
        [
            [0.05, 0, 0, 0, 0, 0],
            [0, 0.23, 0, 0, 0, -0.6],
            [0, 0, 0.19, 0, 0.6, 0],
            [0, 0, 0, 2, 0, 0],
            [0, 0, 0.6, 0, 2, 0],
            [0, -0.6, 0, 0, 0, 2],
        ]
    )
    np.testing.assert_allclose(link_one(), expected, atol=1e-15)


def test_unit_spin_about_z_splits_into_central_and_translational_energy():
    V = np.array([0, 0, 1.0, 0, 0, 0])  # origin O stationary
    total = inertia.kinetic_energy(link_one(), V)
    central = 0.5 * 0.01 * 1.0**2
    translational = 0.5 * 2.0 * np.linalg.norm(np.cross([0, 0, 1.0], [0.3, 0, 0])) ** 2
    assert total == pytest.approx(0.095, abs=1e-15)
    assert central == pytest.approx(0.005) and translational == pytest.approx(0.09)
    assert total == pytest.approx(central + translational, abs=1e-15)


def test_planar_restriction_first_row_and_direct_energy():
    m, J_C, c = 2.0, 0.1, np.array([0.3, 0.4, 0.0])
    I_p = inertia.planar_inertia(inertia.spatial_inertia(m, c, np.diag([0.05, 0.05, J_C])))
    np.testing.assert_allclose(I_p[0], [0.6, -0.8, 0.6], atol=1e-15)
    closed_form = np.array(
        [
            [J_C + m * (c[0] ** 2 + c[1] ** 2), -m * c[1], m * c[0]],
            [-m * c[1], m, 0],
            [m * c[0], 0, m],
        ]
    )
    np.testing.assert_allclose(I_p, closed_form, atol=1e-15)
    nu = np.array([1.3, -0.4, 0.7])  # (omega_z, v_x, v_y)
    direct = (
        0.5 * m * np.sum((nu[1:] + nu[0] * np.array([-c[1], c[0]])) ** 2) + 0.5 * J_C * nu[0] ** 2
    )
    assert 0.5 * nu @ I_p @ nu == pytest.approx(direct, rel=1e-14)


def test_cylinder_moments_and_end_coupling():
    I_C = inertia.solid_cylinder_central_inertia(2.0, 0.05, 0.30)
    np.testing.assert_allclose(np.diag(I_C), [0.01625, 0.01625, 0.0025], rtol=1e-14)
    I_end = inertia.spatial_inertia(2.0, [0, 0, 0.15], I_C)
    np.testing.assert_allclose(np.diag(I_end)[:3] - np.diag(I_C), [0.045, 0.045, 0], atol=1e-15)
    assert I_end[0, 4] == pytest.approx(-0.3) and I_end[1, 3] == pytest.approx(0.3)
    assert np.linalg.matrix_rank(I_end) == 6


def test_principal_moments_1_1_3_are_rejected_and_1_2_2p5_rotate_to_2_1_2p5():
    assert not inertia.is_physically_realizable(np.diag([1.0, 1.0, 3.0]))
    assert np.all(np.linalg.eigvalsh(np.diag([1.0, 1.0, 3.0])) > 0)  # yet positive definite
    sigma = inertia.central_second_moments(np.diag([1.0, 1.0, 3.0]))
    assert sigma[2, 2] == pytest.approx((1 + 1 - 3) / 2)
    I_C = np.diag([1.0, 2.0, 2.5])
    assert inertia.is_physically_realizable(I_C)
    R = spatial.rot_z(np.pi / 2)
    rotated = R @ I_C @ R.T
    np.testing.assert_allclose(rotated, np.diag([2.0, 1.0, 2.5]), atol=1e-15)
    w = np.array([1.0, 0, 0])
    assert 0.5 * w @ I_C @ w == pytest.approx(0.5)
    assert 0.5 * (R @ w) @ rotated @ (R @ w) == pytest.approx(0.5, abs=1e-15)


def test_ranks_of_point_mass_rod_and_cylinder_are_3_5_6():
    c = np.array([0.2, -0.1, 0.4])
    point = inertia.spatial_inertia(1.5, c, inertia.point_mass_central_inertia(1.5))
    rod = inertia.spatial_inertia(1.5, c, inertia.thin_rod_central_inertia(1.5, 0.8))
    cylinder = inertia.spatial_inertia(
        1.5, c, inertia.solid_cylinder_central_inertia(1.5, 0.05, 0.8)
    )
    assert [np.linalg.matrix_rank(I) for I in (point, rod, cylinder)] == [3, 5, 6]
    # Every (omega, [c] omega) keeps the point still: zero energy.
    for omega in np.eye(3):
        V = np.concatenate([omega, np.cross(c, omega)])
        np.testing.assert_allclose(point @ V, 0, atol=1e-15)
    assert all(
        inertia.is_physically_realizable(I)
        for I in (np.zeros((3, 3)), inertia.thin_rod_central_inertia(1.5, 0.8))
    )


def test_thin_rod_at_its_end_and_the_thin_cylinder_limit():
    m, L = 3.0, 0.9
    rod = inertia.thin_rod_central_inertia(m, L, axis=0)
    np.testing.assert_allclose(np.diag(rod), [0, m * L**2 / 12, m * L**2 / 12])
    at_end = inertia.spatial_inertia(m, [L / 2, 0, 0], rod)
    np.testing.assert_allclose(np.diag(at_end)[1:3], m * L**2 / 3, rtol=1e-14)
    thin = inertia.solid_cylinder_central_inertia(m, 1e-7, L, axis=0)
    np.testing.assert_allclose(thin, rod, atol=1e-13)


def test_box_inertia_matches_a_fine_grid_of_particles():
    m, size = 2.0, np.array([0.4, 0.2, 0.1])
    n = 40
    axes = [((np.arange(n) + 0.5) / n - 0.5) * s for s in size]
    x, y, z = (a.ravel() for a in np.meshgrid(*axes, indexing="ij"))
    dm = m / x.size
    grid = dm * np.array(
        [[np.sum(y**2 + z**2), 0, 0], [0, np.sum(x**2 + z**2), 0], [0, 0, np.sum(x**2 + y**2)]]
    )
    np.testing.assert_allclose(inertia.solid_box_central_inertia(m, size), grid, rtol=1e-3)


# --- block forms, congruence and particles ---------------------------------


@settings(max_examples=examples(60))
@RANDOM_BODIES_MAY_LOOK_ABOUT_ORIGIN
@given(realizable_bodies())
def test_both_block_forms_of_the_chapter_agree(body):
    m, c, I_C = body
    C = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    second_form = np.block(
        [[I_C + m * (c @ c * np.eye(3) - np.outer(c, c)), m * C], [m * C.T, m * np.eye(3)]]
    )
    np.testing.assert_allclose(inertia.spatial_inertia(m, c, I_C), second_form, atol=1e-12)


@settings(max_examples=examples(60))
@RANDOM_BODIES_MAY_LOOK_ABOUT_ORIGIN
@given(realizable_bodies(), vectors(6))
def test_particle_sums_reproduce_the_spatial_energy(body, V):
    m, c, I_C = body
    particles = inertia.particle_model(m, c, I_C)
    masses, positions = particles.masses, particles.positions
    assert masses.sum() == pytest.approx(m)
    np.testing.assert_allclose(masses @ positions / m, c, atol=1e-12)
    d = positions - c
    I_particles = np.einsum(
        "k,kij->ij",
        masses,
        np.einsum("ki,ki->k", d, d)[:, None, None] * np.eye(3) - np.einsum("ki,kj->kij", d, d),
    )
    np.testing.assert_allclose(I_particles, I_C, atol=1e-12)
    spatial_energy = inertia.kinetic_energy(inertia.spatial_inertia(m, c, I_C), V)
    particle_energy = inertia.particle_kinetic_energy(masses, positions, V)
    assert particle_energy == pytest.approx(spatial_energy, rel=1e-10, abs=1e-12)
    assert spatial_energy >= -1e-12


@settings(max_examples=examples(60))
@RANDOM_BODIES_MAY_LOOK_ABOUT_ORIGIN
@given(realizable_bodies(), poses(), vectors(6))
def test_congruence_keeps_energy_rank_and_definiteness(body, T_AB, V_B):
    m, c, I_C = body
    I_B = inertia.spatial_inertia(m, c, I_C)
    I_A = inertia.transform_inertia(I_B, T_AB)
    V_A = spatial.motion_transform(T_AB) @ V_B
    energy = inertia.kinetic_energy(I_B, V_B)
    assert inertia.kinetic_energy(I_A, V_A) == pytest.approx(energy, rel=1e-9, abs=1e-9)
    assert np.linalg.eigvalsh(I_A).min() > 0
    # The same body described directly in A: centre of mass and central inertia moved by T_AB.
    R, p = T_AB[:3, :3], T_AB[:3, 3]
    direct = inertia.spatial_inertia(m, R @ c + p, R @ I_C @ R.T)
    np.testing.assert_allclose(I_A, direct, atol=1e-9 * (1 + np.abs(direct).max()))


@settings(max_examples=examples(30))
@given(poses())
def test_congruence_keeps_the_rank_of_singular_ideal_bodies(T_AB):
    point = inertia.spatial_inertia(1.0, [0.1, 0.2, 0.3], np.zeros((3, 3)))
    rod = inertia.spatial_inertia(1.0, [0.1, 0.2, 0.3], inertia.thin_rod_central_inertia(1.0, 0.5))
    assert np.linalg.matrix_rank(inertia.transform_inertia(point, T_AB), tol=1e-9) == 3
    assert np.linalg.matrix_rank(inertia.transform_inertia(rod, T_AB), tol=1e-9) == 5


def test_congruence_is_not_a_similarity():
    I_B = link_one()
    T_AB = spatial.pose(spatial.rot_x(0.3), [0.5, -0.2, 0.1])
    I_A = inertia.transform_inertia(I_B, T_AB)
    assert not np.allclose(np.linalg.eigvalsh(I_A), np.linalg.eigvalsh(I_B))


def test_centre_of_mass_frame_block_formula():
    m, I_C_B = 2.0, np.diag([0.05, 0.04, 0.01])
    R, c_A = spatial.rot_y(0.4) @ spatial.rot_z(-0.7), np.array([0.3, -0.1, 0.2])
    I_A = inertia.transform_inertia(
        inertia.spatial_inertia(m, [0, 0, 0], I_C_B), spatial.pose(R, c_A)
    )
    upper_left = R @ I_C_B @ R.T + m * (c_A @ c_A * np.eye(3) - np.outer(c_A, c_A))
    np.testing.assert_allclose(I_A[:3, :3], upper_left, atol=1e-15)
    np.testing.assert_allclose(I_A[:3, 3:], m * spatial.skew(c_A), atol=1e-15)
    np.testing.assert_allclose(I_A[3:, :3], m * spatial.skew(c_A).T, atol=1e-15)


def test_at_the_centre_of_mass_the_inertia_is_block_diagonal():
    I_C = np.diag([0.05, 0.04, 0.01])
    np.testing.assert_allclose(
        inertia.spatial_inertia(2.0, [0, 0, 0], I_C),
        np.block([[I_C, np.zeros((3, 3))], [np.zeros((3, 3)), 2 * np.eye(3)]]),
    )


# --- momentum and Newton-Euler ---------------------------------------------


def test_momentum_blocks_are_angular_about_origin_and_linear_total():
    m, c, I_C = 2.0, np.array([0.3, 0.1, 0]), np.diag([0.05, 0.05, 0.01])
    V = np.array([0.2, -0.5, 1.0, 0.3, 0.1, -0.2])
    P = inertia.momentum(inertia.spatial_inertia(m, c, I_C), V)
    v_C = V[3:] + np.cross(V[:3], c)
    np.testing.assert_allclose(P[3:], m * v_C, atol=1e-15)
    np.testing.assert_allclose(P[:3], I_C @ V[:3] + np.cross(c, m * v_C), atol=1e-15)


def test_bias_at_the_centre_of_mass_restores_euler_and_newton():
    m, I_C = 2.0, np.diag([0.05, 0.04, 0.01])
    w, v = np.array([0.2, -0.5, 1.0]), np.array([0.3, 0.1, -0.2])
    bias = inertia.newton_euler_bias(
        inertia.spatial_inertia(m, [0, 0, 0], I_C), np.concatenate([w, v])
    )
    np.testing.assert_allclose(bias[:3], np.cross(w, I_C @ w), atol=1e-15)
    np.testing.assert_allclose(bias[3:], np.cross(w, m * v), atol=1e-15)


@settings(max_examples=examples(60))
@RANDOM_BODIES_MAY_LOOK_ABOUT_ORIGIN
@given(realizable_bodies(), vectors(6))
def test_bias_does_no_power(body, V):
    I = inertia.spatial_inertia(*body)
    assert abs(V @ inertia.newton_euler_bias(I, V)) <= 1e-12 * (1 + (V @ V) * np.abs(I).max())


def body_pose(t):
    """A smooth, non-trivial rigid motion T_sB(t) used for finite differences."""
    R = spatial.rot_z(0.8 * t + 0.3 * t**2) @ spatial.rot_x(1.1 * t) @ spatial.rot_y(-0.4 * t**2)
    return spatial.pose(R, [0.5 * t, -0.2 * t**2, 0.1 + 0.3 * t**3])


def body_twist(t, h=1e-5):
    """V_B = (T^{-1} dT/dt)^vee by a central difference."""
    T = body_pose(t)
    dT = (body_pose(t + h) - body_pose(t - h)) / (2 * h)
    S = np.linalg.inv(T) @ dT
    return np.array([S[2, 1], S[0, 2], S[1, 0], S[0, 3], S[1, 3], S[2, 3]])


def test_newton_euler_matches_the_rate_of_inertial_momentum():
    I_B = inertia.spatial_inertia(2.0, [0.3, -0.1, 0.2], np.diag([0.05, 0.04, 0.02]))
    t, h = 0.7, 1e-4

    def momentum_in_space(s):
        return spatial.force_transform(body_pose(s)) @ inertia.momentum(I_B, body_twist(s))

    F_space = (momentum_in_space(t + h) - momentum_in_space(t - h)) / (2 * h)
    A = (body_twist(t + h) - body_twist(t - h)) / (2 * h)
    F_body = inertia.newton_euler_wrench(I_B, body_twist(t), A)
    np.testing.assert_allclose(
        spatial.force_transform(body_pose(t)) @ F_body, F_space, rtol=1e-5, atol=1e-6
    )
    # Without the bias term the balance fails: the test can tell.
    wrong = spatial.force_transform(body_pose(t)) @ inertia.momentum(I_B, A)
    assert np.abs(wrong - F_space).max() > 1e-2


# --- bad input ---------------------------------------------------------------


def test_bad_inputs_raise_clear_value_errors():
    with pytest.raises(ValueError, match="mass: expected positive values"):
        inertia.spatial_inertia(0.0, [0, 0, 0], np.eye(3))
    with pytest.raises(ValueError, match=r"com: expected shape \(\.\.\., 3\)"):
        inertia.spatial_inertia(1.0, [0, 0], np.eye(3))
    with pytest.raises(ValueError, match="inertia_com: expected a symmetric 3x3 matrix"):
        inertia.spatial_inertia(1.0, [0, 0, 0], [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="inertia_com: expected finite values"):
        inertia.is_physically_realizable(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="length: expected positive values"):
        inertia.thin_rod_central_inertia(1.0, -0.3)
    with pytest.raises(ValueError, match="axis: expected 0, 1 or 2"):
        inertia.thin_rod_central_inertia(1.0, 0.3, axis="x")
    with pytest.raises(ValueError, match="radius: expected positive values"):
        inertia.solid_cylinder_central_inertia(1.0, 0.0, 0.3)
    with pytest.raises(ValueError, match="size: expected positive values"):
        inertia.solid_box_central_inertia(1.0, [0.1, -0.2, 0.3])
    with pytest.raises(ValueError, match="I_B: expected a symmetric 6x6"):
        inertia.transform_inertia(np.triu(np.ones((6, 6))), np.eye(4))
    with pytest.raises(ValueError, match="T_AB: expected a homogeneous pose"):
        inertia.transform_inertia(link_one(), np.zeros((4, 4)))
    with pytest.raises(ValueError, match="inertia_com: expected a physically realizable inertia"):
        inertia.particle_model(1.0, [0, 0, 0], np.diag([1.0, 1.0, 3.0]))
    with pytest.raises(ValueError, match="masses: expected non-negative values"):
        inertia.particle_kinetic_energy([-1.0], [[0, 0, 0]], np.zeros(6))
    with pytest.raises(ValueError, match=r"^A: expected shape \(\.\.\., 6\)"):
        inertia.newton_euler_wrench(link_one(), np.zeros(6), np.zeros(3))
    with pytest.raises(ValueError, match=r"V: expected shape \(\.\.\., 6\)"):
        inertia.kinetic_energy(link_one(), np.zeros(5))


@settings(max_examples=examples(40))
@RANDOM_BODIES_MAY_LOOK_ABOUT_ORIGIN
@given(realizable_bodies())
def test_mass_properties_invert_spatial_inertia(body):
    m, c, I_C = body
    props = inertia.mass_properties(inertia.spatial_inertia(m, c, I_C))
    mass, com, inertia_com = props.mass, props.com, props.inertia_com
    assert mass == pytest.approx(m, rel=1e-14)
    np.testing.assert_allclose(com, c, atol=1e-13)
    np.testing.assert_allclose(inertia_com, I_C, atol=1e-12)


def test_mass_properties_rejects_matrices_that_are_not_rigid_body_inertias():
    with pytest.raises(
        ValueError, match=r"I: expected the lower-right block of the body to be m\*I3"
    ):
        inertia.mass_properties(np.eye(6) * np.array([1, 1, 1, 1, 2, 3.0]))
    with pytest.raises(ValueError, match="I: expected a positive mass .* got m = -1"):
        inertia.mass_properties(-np.eye(6))
    with pytest.raises(ValueError, match="I: expected a symmetric 6x6 inertia for the body"):
        inertia.mass_properties(np.triu(np.ones((6, 6))))
    wrong_sign = link_one()
    wrong_sign[:3, 3:] *= -1  # symmetric, but the coupling is no longer m[c] / -m[c]
    wrong_sign[3:, :3] *= -1
    assert np.allclose(wrong_sign, wrong_sign.T)
    np.testing.assert_allclose(inertia.mass_properties(wrong_sign).com, [-0.3, 0, 0])
    with pytest.raises(ValueError, match=r"I: expected coupling blocks m\[c\] and -m\[c\]"):
        bad = link_one()
        bad[0, 4] = bad[4, 0] = 0.6
        inertia.mass_properties(bad)


# --- decoding spatial inertias: one decoder, tolerances on each body's own scale ---


def random_unit_vectors(rng, n):
    u = rng.normal(size=(n, 3))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


def random_frame_changes(rng, n, max_offset):
    """Poses T_AB with random rotations and offsets up to ``max_offset`` m (numpy only)."""
    T = np.zeros((n, 4, 4))
    T[:, :3, :3] = [quaternion_rotation(q) for q in rng.normal(size=(n, 4))]
    T[:, :3, 3] = random_unit_vectors(rng, n) * rng.uniform(0, max_offset, size=(n, 1))
    T[:, 3, 3] = 1.0
    return T


def test_a_point_mass_decodes_to_an_exactly_zero_realizable_inertia_at_any_distance():
    rng = np.random.default_rng(40)
    n = 300
    m = 10.0 ** rng.uniform(-3, 3, size=n)  # kg
    distance = 10.0 ** rng.uniform(-6, 4, size=n)  # m, up to 10 km
    c = random_unit_vectors(rng, n) * distance[:, None]
    I = inertia.spatial_inertia(m, c, np.zeros((n, 3, 3)))
    # Re-expressed in rotated, shifted frames: rounding noise in every entry.
    T = random_frame_changes(rng, n, max_offset=10.0)
    I_A = inertia.transform_inertia(I, T)
    for matrix, com in ((I, c), (I_A, np.einsum("nij,nj->ni", T[:, :3, :3], c) + T[:, :3, 3])):
        props = inertia.mass_properties(matrix)
        mass, decoded_com, I_C = props.mass, props.com, props.inertia_com
        assert np.all(inertia.is_physically_realizable(I_C))  # before: False in ~90% of cases
        np.testing.assert_array_equal(I_C, 0.0)
        np.testing.assert_allclose(mass, m, rtol=1e-14)
        # Achieved: 1.1e-15 of the distance (mass: 8.5e-16 relative).
        assert np.all(
            np.linalg.norm(decoded_com - com, axis=1) <= 1e-14 * np.linalg.norm(com, axis=1)
        )


def test_thin_rods_decode_to_realizable_rank_two_inertias_at_offsets_up_to_10_m():
    rng = np.random.default_rng(41)
    n = 200
    m, L = rng.uniform(0.1, 10, size=n), rng.uniform(0.01, 2, size=n)
    u = random_unit_vectors(rng, n)
    rod = (m * L**2 / 12)[:, None, None] * (np.eye(3) - u[:, :, None] * u[:, None, :])  # by hand
    c = random_unit_vectors(rng, n) * rng.uniform(0, 10, size=(n, 1))
    props = inertia.mass_properties(inertia.spatial_inertia(m, c, rod))
    _, _, I_C = props.mass, props.com, props.inertia_com
    assert np.all(inertia.is_physically_realizable(I_C))
    second_moments = np.linalg.eigvalsh(inertia.central_second_moments(I_C))
    # Thin up to the rounding of eigvalsh itself (achieved: 2.0 eps of the largest moment).
    assert np.all(np.abs(second_moments[:, :2]) <= 1e-15 * second_moments[:, 2:])
    # Achieved: 3e-16 of the inertia about the origin, m (|c|^2 + L^2).
    scale = m * (np.sum(c**2, axis=1) + L**2)
    assert np.all(np.abs(I_C - rod).max(axis=(1, 2)) <= 1e-14 * scale)


def test_a_triangle_violation_beyond_the_decoding_tolerance_stays_unrealizable():
    rng = np.random.default_rng(42)
    m, c = 2.0, 10.0 * random_unit_vectors(rng, 1)[0]  # 10 m from the origin
    rotational_size = np.abs(inertia.spatial_inertia(m, c, np.zeros((3, 3)))[:3, :3]).max()
    for violation, realizable in (
        (10 * DECODE_RTOL, False),
        (0.1 * DECODE_RTOL, True),
    ):
        # I_C = diag(0, 0, delta): second moments (delta, delta, -delta)/2 in the body's axes.
        delta = 2 * violation * rotational_size
        I = inertia.spatial_inertia(m, c, np.diag([0.0, 0.0, delta]))
        assert not inertia.is_physically_realizable(np.diag([0.0, 0.0, delta]))
        assert (
            bool(inertia.is_physically_realizable(inertia.mass_properties(I).inertia_com))
            is realizable
        )
    # The chapter's diag(1, 1, 3), 10 m away, and a 1 g body with one violating moment.
    far = inertia.spatial_inertia(1.0, [10.0, 0, 0], np.diag([1.0, 1.0, 3.0]))
    light = inertia.spatial_inertia(1e-3, [0.0, 0.1, 0], np.diag([1e-8, 1e-8, 3e-8]))
    assert not np.any(
        inertia.is_physically_realizable(inertia.mass_properties([far, light]).inertia_com)
    )


def test_tolerances_are_per_body_not_per_batch():
    heavy = inertia.spatial_inertia(
        1000.0, [10.0, 0, 0], np.diag([10.0, 20.0, 25.0])
    )  # entries ~1e5
    light = inertia.spatial_inertia(
        1e-3, [0.1, 0, 0], np.diag([1e-6, 1e-6, 1e-6])
    )  # entries <= 1e-3
    light[0, 4] += 1e-8  # coupling no longer antisymmetric by 1e-5 of the body's size...
    light[4, 0] += 1e-8  # ...yet only 1e-13 of the heavy body's
    with pytest.raises(ValueError, match=r"I: expected coupling blocks .* for body 1, got"):
        inertia.mass_properties([heavy, light])
    with pytest.raises(ValueError, match=r"I: expected coupling blocks .* for body \(1, 0\), got"):
        inertia.mass_properties([[heavy, heavy], [light, heavy]])
    # A point mass next to a heavy body still decodes to exactly zero.
    point = inertia.spatial_inertia(1e-3, [0.0, 0.3, 0.4], np.zeros((3, 3)))
    np.testing.assert_array_equal(inertia.mass_properties([heavy, point]).inertia_com[1], 0.0)


def test_newton_euler_functions_accept_python_lists():
    I, V, A = link_one(), np.array([0.2, -0.5, 1.0, 0.3, 0.1, -0.2]), np.arange(6.0)
    np.testing.assert_array_equal(
        inertia.newton_euler_bias(I.tolist(), V.tolist()), inertia.newton_euler_bias(I, V)
    )
    np.testing.assert_array_equal(
        inertia.newton_euler_wrench(I.tolist(), list(V), list(A)),
        inertia.newton_euler_wrench(I, V, A),
    )
    with pytest.raises(ValueError, match=r"V: expected shape \(\.\.\., 6\)"):
        inertia.newton_euler_bias(I, [1.0, 2.0])
    with pytest.raises(TypeError, match="V: expected real numbers, got complex dtype"):
        inertia.newton_euler_bias(I, V + 1j)


def test_inertia_inputs_refuse_complex_and_boolean_dtypes_and_accept_integers():
    with pytest.raises(TypeError, match="I: expected real numbers, got complex dtype"):
        inertia.mass_properties(link_one() + 0j)
    with pytest.raises(TypeError, match="inertia_com: expected real numbers, got complex dtype"):
        inertia.spatial_inertia(1.0, [0, 0, 0], np.eye(3) * (1 + 1j))
    with pytest.raises(TypeError, match="mass: expected real numbers, got boolean dtype"):
        inertia.spatial_inertia(True, [0, 0, 0], np.eye(3))
    np.testing.assert_array_equal(
        inertia.spatial_inertia(2, np.array([1, 0, 0]), np.eye(3, dtype=int)),
        inertia.spatial_inertia(2.0, [1.0, 0.0, 0.0], np.eye(3)),
    )


def test_mass_properties_and_particle_model_are_read_by_name_and_do_not_unpack():
    props = inertia.mass_properties(link_one())
    assert isinstance(props, inertia.MassProperties)
    assert float(props.mass) == 2.0
    with pytest.raises(TypeError):
        m, c, I_C = props  # noqa: F841
    particles = inertia.particle_model(props.mass, props.com, props.inertia_com)
    assert isinstance(particles, inertia.ParticleModel)
    with pytest.raises(TypeError):
        masses, positions = particles  # noqa: F841
    with pytest.raises(TypeError):
        inertia.thin_rod_central_inertia(1.0, 2.0, 2)  # axis is keyword-only
