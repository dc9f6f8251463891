"""Input hardening across modules: dtypes at the shared boundary, one inertia decoder, constants.

* Complex and boolean arrays are refused with a ValueError naming the argument, at the
  shared boundary (``_validate.real_array``, which the tree uses too), so every
  public function inherits it; integer arrays are legal numbers.
* ``tree.Tree`` decodes its spatial inertias with ``inertia.mass_properties``'s decoder:
  every tree it accepts decodes to realizable central inertias through the public
  functions, and it accepts a body exactly when those functions call it realizable.
"""

import numpy as np
import pytest
from strategies import quaternion_rotation

from geomotion import inertia, models, tree

#: The default rtol of inertia.mass_properties (and of the tree's decoding of inertias).
DECODE_RTOL = 1e-9


def random_pose(rng, max_offset):
    """A pose with a quaternion rotation (numpy only) and an offset up to ``max_offset`` m."""
    T = np.eye(4)
    T[:3, :3] = quaternion_rotation(rng.normal(size=4))
    direction = rng.normal(size=3)
    T[:3, 3] = rng.uniform(0, max_offset) * direction / np.linalg.norm(direction)
    return T


def ideal_body(rng, kind, max_offset=10.0):
    """(m, c, I_C) of a point mass ('p'), thin rod ('r') or cylinder ('c'), c up to 10 m away."""
    m = rng.uniform(0.1, 5.0)
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    L = rng.uniform(0.05, 1.0)
    I_C = {
        "p": np.zeros((3, 3)),
        "r": m * L**2 / 12 * (np.eye(3) - np.outer(u, u)),
        "c": m * L**2 / 12 * (np.eye(3) - np.outer(u, u))
        + m * 0.01**2 * (np.eye(3) + np.outer(u, u)) / 4,
    }[kind]
    return m, random_pose(rng, max_offset)[:3, 3], I_C


def singular_chain(rng, kinds, max_offset=10.0):
    """A chain of bodies of the given kinds, each re-expressed in a rotated, shifted frame."""
    n = len(kinds)
    inertias = []
    for kind in kinds:
        I = inertia.spatial_inertia(*ideal_body(rng, kind, max_offset))
        inertias.append(inertia.transform_inertia(I, random_pose(rng, 1.0)))  # noise in every entry
    axes = [quaternion_rotation(rng.normal(size=4))[:, 2] for _ in range(n)]
    subspaces = np.array([np.concatenate([a, np.zeros(3)]) for a in axes])
    placements = np.array([random_pose(rng, 1.0) for _ in range(n)])
    return tree.Tree(
        list(range(-1, n - 1)),
        subspaces,
        placements,
        np.array(inertias),
        allow_singular_inertias=True,
    )


# --- one decoder for trees and the inertia module ----------------------------


@pytest.mark.parametrize("seed", range(8))
def test_every_accepted_tree_decodes_to_realizable_inertias_through_the_public_functions(seed):
    rng = np.random.default_rng(seed)
    model = singular_chain(rng, rng.choice(list("prc"), size=6))
    props = inertia.mass_properties(model.inertias)
    m, c, I_C = props.mass, props.com, props.inertia_com
    assert np.all(inertia.is_physically_realizable(I_C))
    np.testing.assert_array_equal(model.masses, m)  # one decoder: identical, not merely close
    np.testing.assert_array_equal(model.centers_of_mass, c)
    for i in range(model.num_bodies):  # what verification's particle checks rely on
        particles = inertia.particle_model(m[i], c[i], I_C[i])
        masses, positions = particles.masses, particles.positions
        np.testing.assert_allclose(masses.sum(), m[i], rtol=1e-15)
        np.testing.assert_allclose(
            masses @ positions / m[i], c[i], rtol=0, atol=1e-14 * np.linalg.norm(c[i])
        )


def test_tree_accepts_a_body_exactly_when_the_public_functions_call_it_realizable():
    rng = np.random.default_rng(50)
    good = inertia.spatial_inertia(1.0, [0.2, 0, 0], np.diag([0.01, 0.02, 0.02]))
    c = np.array([6.0, -5.0, 5.0])  # 9.3 m from the body origin
    size = np.abs(inertia.spatial_inertia(2.0, c, np.zeros((3, 3)))[:3, :3]).max()
    arguments = {
        "parents": [-1, 0],
        "joints": np.array([[0, 0, 1.0, 0, 0, 0], [0, 1.0, 0, 0, 0, 0]]),
        "placements": np.array([np.eye(4), random_pose(rng, 1.0)]),
        "allow_singular_inertias": True,
    }
    for factor in (0.1, 0.5, 2.0, 10.0):
        # A point mass whose central "inertia" diag(0, 0, delta) violates a triangle
        # inequality by delta/2 = factor * DECODE_RTOL * size.
        delta = 2 * factor * DECODE_RTOL * size
        body = inertia.spatial_inertia(2.0, c, np.diag([0.0, 0.0, delta]))
        public = bool(inertia.is_physically_realizable(inertia.mass_properties(body).inertia_com))
        assert public is (factor < 1)
        if public:
            tree.Tree(inertias=np.array([good, body]), **arguments)
        else:
            with pytest.raises(
                ValueError, match="inertias: expected a physically realizable body 1"
            ):
                tree.Tree(inertias=np.array([good, body]), **arguments)


def test_tree_inertia_errors_name_the_body_even_next_to_a_heavy_body():
    heavy = inertia.spatial_inertia(1000.0, [10.0, 0, 0], np.diag([10.0, 20.0, 25.0]))
    light = inertia.spatial_inertia(1e-3, [0.1, 0, 0], np.diag([1e-6, 1e-6, 1e-6]))
    light[0, 4] += 1e-8  # 1e-5 of the light body's size, 1e-13 of the heavy body's
    light[4, 0] += 1e-8
    with pytest.raises(ValueError, match=r"inertias: expected coupling blocks .* for body 1"):
        tree.Tree(
            [-1, 0],
            np.array([[0, 0, 1.0, 0, 0, 0]] * 2),
            np.array([np.eye(4)] * 2),
            np.array([heavy, light]),
        )


# --- spatial momentum: force transforms of the body momenta -----------------


def test_spatial_momentum_of_a_singular_tree_is_the_sum_of_particle_momenta():
    rng = np.random.default_rng(51)
    model = singular_chain(rng, "prcpr")
    q = rng.normal(size=(3, 5))
    qd = rng.normal(size=5)  # broadcast against the batch of configurations
    T = tree.forward_kinematics(model, q)
    V = tree.body_twists(model, q, qd)
    props = inertia.mass_properties(model.inertias)
    m, c, I_C = props.mass, props.com, props.inertia_com
    expected = np.zeros((3, 6))
    for b in range(3):
        for i in range(5):
            particles = inertia.particle_model(m[i], c[i], I_C[i])
            masses, positions = particles.masses, particles.positions
            R, p = T[b, i, :3, :3], T[b, i, :3, 3]
            velocity = (V[b, i, 3:] + np.cross(V[b, i, :3], positions)) @ R.T  # base axes
            position = positions @ R.T + p
            expected[b] += np.concatenate(
                [np.sum(masses[:, None] * np.cross(position, velocity), axis=0), masses @ velocity]
            )
    P = tree.spatial_momentum(model, q, qd)
    # Achieved: 1.2e-15 of the largest momentum component (20 seeds).
    np.testing.assert_allclose(P, expected, rtol=0, atol=1e-13 * np.abs(expected).max())


# --- dtypes at the tree boundary ---------------------------------------------


TEACHING_ARM = models.two_link_teaching_arm()
REST = np.zeros(2)
TIP = [0.5, 0.0, 0.0]


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda x: tree.crba(TEACHING_ARM, x), "q"),
        (lambda x: tree.rnea(TEACHING_ARM, REST, x, REST), "v"),
        (lambda x: tree.rnea(TEACHING_ARM, REST, REST, x), "a"),
        (lambda x: tree.bias_forces(TEACHING_ARM, REST, x), "v"),
        (lambda x: tree.aba(TEACHING_ARM, REST, x, REST), "v"),
        (lambda x: tree.aba(TEACHING_ARM, REST, REST, x), "tau"),
        (lambda x: tree.coriolis_matrix(TEACHING_ARM, REST, x), "v"),
        (lambda x: tree.body_twists(TEACHING_ARM, REST, x), "v"),
        (lambda x: tree.kinetic_energy(TEACHING_ARM, REST, x), "v"),
        (lambda x: tree.spatial_momentum(TEACHING_ARM, REST, x), "v"),
        (lambda x: tree.point_velocity(TEACHING_ARM, REST, x, 1, TIP), "v"),
        (lambda x: tree.point_acceleration_bias(TEACHING_ARM, REST, x, 1, TIP), "v"),
        (lambda x: tree.point_acceleration_bias(TEACHING_ARM, REST, x, -1, TIP), "v"),
    ],
)
@pytest.mark.parametrize("missing", [None, [0.0, None]])
def test_tree_functions_refuse_a_missing_array_naming_it(call, name, missing):
    # numpy reads None as NaN: without the check point_acceleration_bias returned None
    # (its "no rates" sentinel) and the others blamed a non-finite entry.
    with pytest.raises(TypeError, match=f"^{name}: expected real numbers .*got None"):
        call(missing)


def test_tree_functions_refuse_complex_and_boolean_arrays_naming_the_argument():
    model = models.two_link_teaching_arm()
    q, qd = np.array([0.3, -0.4]), np.array([1.0, 2.0])
    for call, name in (
        (lambda z: tree.crba(model, q + z), "q"),
        (lambda z: tree.rnea(model, q, qd + z, qd), "v"),
        (lambda z: tree.rnea(model, q, qd, qd + z), "a"),
        (lambda z: tree.aba(model, q, qd, qd + z), "tau"),
        (lambda z: tree.rnea(model, q, qd, qd, gravity=np.array([0, 0, -9.81]) + z), "gravity"),
        (lambda z: tree.rnea(model, q, qd, qd, f_ext=np.ones((2, 6)) + z), "f_ext"),
        (lambda z: tree.forward_kinematics(model, q + z), "q"),
        (lambda z: tree.spatial_momentum(model, q, qd + z), "v"),
    ):
        with pytest.raises(TypeError, match=f"^{name}: expected real numbers, got complex dtype"):
            call(0j)  # a zero imaginary part is refused too: the dtype is the error
        with pytest.raises(TypeError, match=f"^{name}: expected real numbers, got complex dtype"):
            call(1e-3j)
    with pytest.raises(TypeError, match="^q: expected real numbers, got boolean dtype"):
        tree.crba(model, np.array([True, False]))
    with pytest.raises(TypeError, match="^inertias: expected real numbers, got complex dtype"):
        tree.Tree(model.parents, model.screws, model.placements, model.inertias + 0j)
    for batch in ((), (200,)):  # both the single-configuration and the batched path
        with pytest.raises(TypeError, match="^q: expected real numbers, got complex dtype"):
            tree.crba(model, np.zeros(batch + (2,), dtype=complex))


def test_tree_functions_read_integer_arrays_as_numbers():
    model = models.two_link_teaching_arm()
    q = np.array([1, -2])
    np.testing.assert_array_equal(tree.crba(model, q), tree.crba(model, q.astype(float)))
    np.testing.assert_array_equal(
        tree.rnea(model, q, [0, 1], np.array([2, 0], dtype=np.int8)),
        tree.rnea(model, [1.0, -2.0], [0.0, 1.0], [2.0, 0.0]),
    )
    # The chapter's two-link mass matrix at q = 0 (chapter 1), from integer input.
    np.testing.assert_allclose(
        tree.crba(model, [0, 0]), [[0.9175, 0.2175], [0.2175, 0.0675]], atol=1e-15
    )


# --- constants ------------------------------------------------------------------


def test_revolute_z_is_read_only_and_documented():
    with pytest.raises(ValueError, match="read-only"):
        models.REVOLUTE_Z[2] = 5.0
    np.testing.assert_array_equal(models.REVOLUTE_Z, [0, 0, 1, 0, 0, 0])
    assert "REVOLUTE_Z" in models.__doc__


def test_too_many_batch_axes_are_refused_naming_the_argument():
    # numpy's functions over several arrays stop at 32 axes; the boundary refuses what
    # would reach that limit inside (MAX_AXES axes in all), and takes what is below it.
    from geomotion import _validate, constraints

    arm = models.two_link_teaching_arm()
    most = (1,) * (_validate.MAX_AXES - 1)
    q = np.zeros(most + (2,))
    assert tree.rnea(arm, q, q, q).shape == most + (2,)
    M, J = np.broadcast_to(np.eye(2), most[:-1] + (2, 2)), np.ones(most[:-1] + (1, 2))
    assert constraints.constrained_dynamics(M, J, 0.0, 0.0, 0.0).a.shape == most[:-1] + (2,)
    over = np.zeros((1,) * _validate.MAX_AXES + (2,))
    with pytest.raises(ValueError, match=r"^q: expected at most 24 axes .* got 25 axes"):
        tree.rnea(arm, over, q, q)
    with pytest.raises(ValueError, match=r"^J_c: expected at most 24 axes"):
        constraints.constrained_dynamics(M, np.ones((1,) * 24 + (1, 2)), 0.0, 0.0, 0.0)


@pytest.mark.parametrize("function", ["rnea", "aba", "bias_forces"])
def test_velocities_that_overflow_the_dynamics_raise_instead_of_returning_nan(function):
    # |v| = 1e200: the velocity products pass the float range.  The answer would be NaN;
    # a FloatingPointError names the inputs instead.  1e150 still computes.
    arm = models.two_link_teaching_arm()
    calls = {
        "rnea": lambda v: tree.rnea(arm, [0.1, 0.2], v, [0.0, 0.0]),
        "aba": lambda v: tree.aba(arm, [0.1, 0.2], v, [0.0, 0.0]),
        "bias_forces": lambda v: tree.bias_forces(arm, [0.1, 0.2], v),
    }
    assert np.isfinite(calls[function]([1e150, -1e150])).all()
    with pytest.raises(FloatingPointError, match=r"overflowed the float range .*\|v\| <= 1e\+200"):
        calls[function]([1e200, 0.0])
