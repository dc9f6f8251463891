"""Trees with ball and free-flyer joints: independent properties and bad input (no Pinocchio).

Every check here uses a second route: finite differences along ``tree.integrate``,
particle sums, the inverse algorithm, a loop over the batch.  Pinocchio cross-checks are in
``test_tree_joints_cross_engine.py``.

Quaternion policy (stated and tested below): wherever ``q`` enters a function, each
quaternion must be unit to within 1e-9 (``| |q| - 1 | <= 1e-9``); otherwise ValueError
naming the argument.  Nothing normalizes silently; ``tree.normalize`` projects drifted
coordinates back, and ``tree.integrate`` returns unit quaternions.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import examples
from trees import joint_tree, joint_tree_specs, random_joint_spec, spatial_inertia

from geomotion import spatial, tree, verification
from geomotion.tree._joints import Joint

#: Documented tolerance of the unit-quaternion check.
QUATERNION_ATOL = 1e-9

SPECS = {
    "floating": dict(seed=2111, n=8, kinds="rphs", root="f", massless=2),
    "fixed-ball": dict(seed=2112, n=7, kinds="rphs", root="s", massless=1),
    "floating-balls": dict(seed=2113, n=6, kinds="sr", root="f", massless=1),
}


def make(name):
    case = dict(SPECS[name])
    spec = random_joint_spec(np.random.default_rng(case.pop("seed")), case.pop("n"), **case)
    return spec, joint_tree(spec)


@pytest.fixture(scope="module", params=list(SPECS), ids=list(SPECS))
def case(request):
    return make(request.param)


def relative(ours, reference):
    ours, reference = np.asarray(ours), np.asarray(reference)
    return np.abs(ours - reference).max() / max(np.abs(reference).max(), 1e-300)


def state(model, seed, shape=()):
    rng = np.random.default_rng(seed)
    q = tree.random_configuration(model, shape=shape, rng=rng)
    return (q, *rng.normal(size=(2,) + shape + (model.nv,)))


def quaternion_slices(model):
    """(start, stop) in q of every quaternion of the model."""
    out = []
    for joint, start in zip(model.joints, model.q_start):
        if joint.kind == "spherical":
            out.append((start, start + 4))
        elif joint.kind == "free_flyer":
            out.append((start + 3, start + 7))
    return out


def same_configuration(model, q0, q1):
    """Largest error between two configurations as poses (quaternions compared up to sign)."""
    return np.abs(tree.difference(model, q0, q1)).max()


# ---------------------------------------------------------------------------
# integrate / difference / random_configuration / normalize
# ---------------------------------------------------------------------------


def test_integrate_and_difference_round_trip(case):
    spec, model = case
    rng = np.random.default_rng(1)
    q0 = tree.random_configuration(model, shape=(50,), rng=rng)
    q1 = tree.random_configuration(model, shape=(50,), rng=rng)
    d = tree.difference(model, q0, q1)
    assert d.shape == (50, model.nv)
    back = tree.integrate(model, q0, d, 1.0)
    assert same_configuration(model, back, q1) < 1e-12
    # the poses agree as rigid motions, checked without difference
    assert (
        relative(tree.forward_kinematics(model, back), tree.forward_kinematics(model, q1)) < 1e-12
    )
    # the other way: a displacement with rotations below pi comes back unchanged
    v = 0.4 * rng.normal(size=(50, model.nv))
    assert relative(tree.difference(model, q0, tree.integrate(model, q0, v, 1.0)), v) < 1e-12
    assert np.abs(tree.difference(model, q0, q0)).max() < 1e-15


def test_integrate_of_a_constant_velocity_composes(case):
    spec, model = case
    q, v, _ = state(model, 2, (20,))
    s, t = 0.3, -0.85
    twice = tree.integrate(model, tree.integrate(model, q, v, s), v, t)
    once = tree.integrate(model, q, v, s + t)
    assert relative(twice, once) < 1e-12
    assert relative(tree.integrate(model, q, v, 0.0), q) < 1e-15


def test_integrate_matches_the_velocity_by_finite_differences(case):
    """d/dt of each body's pose along q(t) = q + v t is the body Jacobian times v."""
    spec, model = case
    q, v, _ = state(model, 3)
    h = 1e-6
    T = [tree.forward_kinematics(model, tree.integrate(model, q, v, s)) for s in (-h, h)]
    Tdot = (T[1] - T[0]) / (2 * h)
    T0 = tree.forward_kinematics(model, q)
    # body twist from the pose rate: T^-1 Tdot = [omega]; v
    body = np.einsum("kji,kjl->kil", T0[:, :3, :3], Tdot[:, :3, :3])
    omega = np.stack([body[:, 2, 1], body[:, 0, 2], body[:, 1, 0]], axis=-1)
    lin = np.einsum("kji,kj->ki", T0[:, :3, :3], Tdot[:, :3, 3])
    fd = np.concatenate([omega, lin], axis=-1)
    assert relative(tree.body_twists(model, q, v), fd) < 1e-7


def test_quaternions_stay_unit_over_ten_thousand_steps():
    """10^4 steps of integrate: unit to 1e-14 and equal to one step of the whole time."""
    spec, model = make("floating")
    q, v, _ = state(model, 4, (4,))
    dt = 1e-3
    x = q
    for _ in range(10_000):
        x = tree.integrate(model, x, v, dt)
    for start, stop in quaternion_slices(model):
        assert np.abs(np.linalg.norm(x[..., start:stop], axis=-1) - 1).max() < 1e-14
    assert same_configuration(model, x, tree.integrate(model, q, v, 10.0)) < 1e-9


def test_random_configuration_gives_unit_quaternions_spread_over_so3():
    spec, model = make("floating")
    q = tree.random_configuration(model, shape=(4000,), rng=5)
    assert q.shape == (4000, model.nq)
    for start, stop in quaternion_slices(model):
        quat = q[:, start:stop]
        assert np.abs(np.linalg.norm(quat, axis=-1) - 1).max() < 1e-15
        assert (quat[:, 0] >= 0).all()
    # uniform rotations: E[R] = 0 (|mean| about 1/sqrt(4000) per entry)
    T = tree.forward_kinematics(model, q)
    placement = model.placements[0, :3, :3]
    R = np.einsum("ji,bjk->bik", placement, T[:, 0, :3, :3])
    assert np.abs(R.mean(axis=0)).max() < 0.06
    # reproducible from an integer seed, different for another
    again = tree.random_configuration(model, shape=(4000,), rng=5)
    assert np.array_equal(q, again)
    assert not np.array_equal(q, tree.random_configuration(model, shape=(4000,), rng=6))


def test_each_joint_draws_from_anything_default_rng_takes():
    # Joint.random(shape, *, rng=None): a seed or a Generator (used and advanced); the
    # joints of a tree drawn in order from one Generator are random_configuration's.
    joints = [tree.ScrewJoint(tree.REVOLUTE_Z), tree.ScrewJoint(tree.PRISMATIC_X)]
    joints += [tree.SphericalJoint(), tree.FreeFlyerJoint()]
    for joint in joints:
        drawn = joint.random((3,), rng=4)
        assert drawn.shape == (3, joint.nq)
        np.testing.assert_array_equal(drawn, joint.random((3,), rng=np.random.default_rng(4)))
    _, model = make("floating")
    rng = np.random.default_rng(7)
    by_joint = np.concatenate([joint.random((2,), rng=rng) for joint in model.joints], axis=-1)
    np.testing.assert_array_equal(by_joint, tree.random_configuration(model, shape=(2,), rng=7))


def test_neutral_places_every_body_at_its_placement(case):
    spec, model = case
    T = tree.forward_kinematics(model, tree.neutral(model))
    for i, p in enumerate(spec.parents):
        expected = model.placements[i] if p < 0 else T[p] @ model.placements[i]
        assert np.abs(T[i] - expected).max() < 1e-14


def test_normalize_fixes_drifted_quaternions(case):
    spec, model = case
    q, v, _ = state(model, 6)
    drifted = q.copy()
    for start, stop in quaternion_slices(model):
        drifted[start:stop] *= 1.3
    with pytest.raises(ValueError, match="unit quaternion"):
        tree.crba(model, drifted)
    fixed = tree.normalize(model, drifted)
    assert relative(fixed, q) < 1e-15
    tree.crba(model, fixed)


# ---------------------------------------------------------------------------
# Dynamics: independent identities
# ---------------------------------------------------------------------------


def particle_kinetic_energy(model, q, v, h=1e-6):
    """Sum of 1/2 m |r_dot|^2 over each body's particles, r_dot by central differences."""
    masses = np.zeros((model.num_bodies, 6))
    for i, I in enumerate(model.inertias):
        if np.any(I):
            masses[i] = verification._body_particles(model)[0][i]
    clouds = [
        verification.tree_particle_cloud(model, tree.integrate(model, q, v, s)) for s in (-h, h)
    ]
    rdot = (clouds[1] - clouds[0]) / (2 * h)
    return 0.5 * np.einsum("...kp,...kpi,...kpi->...", masses, rdot, rdot)


def test_mass_matrix_gives_the_particle_kinetic_energy(case):
    spec, model = case
    q, v, _ = state(model, 7, (10,))
    M = tree.crba(model, q)
    K = 0.5 * np.einsum("bi,bij,bj->b", v, M, v)
    assert relative(K, particle_kinetic_energy(model, q, v)) < 1e-7
    assert relative(K, verification.tree_particle_energy(model, q, v)) < 1e-12
    assert relative(K, tree.kinetic_energy(model, q, v)) < 1e-12
    assert (np.linalg.eigvalsh(M)[:, 0] > 0).all()
    assert np.abs(M - np.swapaxes(M, -1, -2)).max() < 1e-15 * np.abs(M).max()


def test_coriolis_matrix_skew_property_and_bias(case):
    """Mdot = C + C^T (so Mdot - 2C is skew), Mdot by differences along integrate; C v = b at g = 0."""
    spec, model = case
    q, v, _ = state(model, 8, (5,))
    h = 1e-6
    Mdot = (
        tree.crba(model, tree.integrate(model, q, v, h))
        - tree.crba(model, tree.integrate(model, q, v, -h))
    ) / (2 * h)
    C = tree.coriolis_matrix(model, q, v)
    N = Mdot - 2 * C
    assert np.abs(N + np.swapaxes(N, -1, -2)).max() < 1e-7 * np.abs(Mdot).max()
    assert relative(C + np.swapaxes(C, -1, -2), Mdot) < 1e-7
    Cv = np.einsum("bij,bj->bi", C, v)
    assert relative(Cv, tree.bias_forces(model, q, v, gravity=np.zeros(3))) < 1e-12


def test_aba_inverts_rnea_and_crba_completes_the_equation(case):
    spec, model = case
    q, v, a = state(model, 9, (7,))
    tau = tree.rnea(model, q, v, a)
    assert relative(tree.aba(model, q, v, tau), a) < 1e-10
    M, b = tree.crba(model, q), tree.bias_forces(model, q, v)
    assert relative(np.einsum("bij,bj->bi", M, a) + b, tau) < 1e-12


def test_gravity_forces_are_the_potential_gradient(case):
    """g(q) = dU/dq along every velocity direction (finite differences along integrate)."""
    spec, model = case
    q, _, _ = state(model, 10)
    g = tree.bias_forces(model, q, np.zeros(model.nv))
    h = 1e-6
    grad = np.array(
        [
            (
                tree.potential_energy(model, tree.integrate(model, q, e, h))
                - tree.potential_energy(model, tree.integrate(model, q, e, -h))
            )
            / (2 * h)
            for e in np.eye(model.nv)
        ]
    )
    assert relative(grad, g) < 1e-7


def energy(model, q, v):
    return tree.kinetic_energy(model, q, v) + tree.potential_energy(model, q)


def test_energy_rate_is_the_power_of_the_joint_forces(case):
    """d(K+U)/dt = v.tau: at a state (differences along q + v t, v + a t), then over a motion."""
    spec, model = case
    q, v, tau = state(model, 11, (4,))
    a = tree.aba(model, q, v, tau)
    h = 1e-5
    rate = (
        energy(model, tree.integrate(model, q, v, h), v + h * a)
        - energy(model, tree.integrate(model, q, v, -h), v - h * a)
    ) / (2 * h)
    power = np.einsum("bi,bi->b", v, tau)
    assert np.abs(rate - power).max() < 1e-6 * (np.abs(power).max() + np.abs(rate).max())

    # a short motion under constant tau (RK4 on velocities, configurations by integrate)
    q, v, tau = q[0], v[0], tau[0]
    dt, steps = 1e-3, 100
    work, E0 = 0.0, energy(model, q, v)
    f = lambda q_, v_: tree.aba(model, q_, v_, tau)  # noqa: E731
    for _ in range(steps):
        k1v = f(q, v)
        k2v = f(tree.integrate(model, q, v, dt / 2), v + dt / 2 * k1v)
        v2 = v + dt / 2 * k1v
        k3v = f(tree.integrate(model, q, v2, dt / 2), v + dt / 2 * k2v)
        v3 = v + dt / 2 * k2v
        k4v = f(tree.integrate(model, q, v3, dt), v + dt * k3v)
        v4 = v + dt * k3v
        q_next = tree.integrate(model, q, (v + 2 * v2 + 2 * v3 + v4) / 6, dt)
        v_next = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        work += dt / 6 * (v + 2 * v2 + 2 * v3 + v4) @ tau
        q, v = q_next, v_next
    change = energy(model, q, v) - E0
    assert abs(change - work) < 1e-5 * max(abs(work), abs(E0), 1.0)


def test_point_jacobian_and_bias_by_finite_differences(case):
    spec, model = case
    q, v, _ = state(model, 12, (3,))
    points = np.random.default_rng(13).normal(scale=0.3, size=(model.num_bodies, 3))
    h = 1e-4
    for i in range(model.num_bodies):
        r = [
            tree.point_position(model, tree.integrate(model, q, v, s), i, points[i])
            for s in (-h, 0, h)
        ]
        J = tree.point_jacobian(model, q, i, points[i])
        assert relative(np.einsum("bij,bj->bi", J, v), (r[2] - r[0]) / (2 * h)) < 1e-7
        assert (
            relative(tree.point_velocity(model, q, v, i, points[i]), (r[2] - r[0]) / (2 * h)) < 1e-7
        )
        # along q (+) v t with constant v the acceleration is J-dot v, the bias
        second = (r[2] - 2 * r[1] + r[0]) / h**2
        bias = tree.point_acceleration_bias(model, q, v, i, points[i])
        assert np.abs(bias - second).max() < 1e-5 * max(np.abs(bias).max(), 1.0)


def test_batches_equal_a_loop(case):
    """Leading axes (2, 3) and broadcasting (3, 1) against (4,) give what a loop gives."""
    spec, model = case
    q, v, a = state(model, 14, (2, 3))
    point = np.array([0.1, -0.2, 0.3])
    body = model.num_bodies - 1
    batched = {
        "crba": tree.crba(model, q),
        "rnea": tree.rnea(model, q, v, a),
        "aba": tree.aba(model, q, v, a),
        "C": tree.coriolis_matrix(model, q, v),
        "J": tree.point_jacobian(model, q, body, point),
        "bias": tree.point_acceleration_bias(model, q, v, body, point),
        "K": tree.kinetic_energy(model, q, v),
        "U": tree.potential_energy(model, q),
        "step": tree.integrate(model, q, v, 0.1),
    }
    for idx in np.ndindex(2, 3):
        single = {
            "crba": tree.crba(model, q[idx]),
            "rnea": tree.rnea(model, q[idx], v[idx], a[idx]),
            "aba": tree.aba(model, q[idx], v[idx], a[idx]),
            "C": tree.coriolis_matrix(model, q[idx], v[idx]),
            "J": tree.point_jacobian(model, q[idx], body, point),
            "bias": tree.point_acceleration_bias(model, q[idx], v[idx], body, point),
            "K": tree.kinetic_energy(model, q[idx], v[idx]),
            "U": tree.potential_energy(model, q[idx]),
            "step": tree.integrate(model, q[idx], v[idx], 0.1),
        }
        for key, value in single.items():
            assert batched[key][idx].shape == np.shape(value), key
            assert relative(batched[key][idx], value) < 1e-13, key
    # broadcasting: 3 configurations against 4 velocities
    qb, vb = q[0][:, None, :], v.reshape(-1, model.nv)[:4]
    out = tree.rnea(model, qb, vb, vb)
    assert out.shape == (3, 4, model.nv)
    assert relative(out[2, 1], tree.rnea(model, qb[2, 0], vb[1], vb[1])) < 1e-13
    steps = tree.integrate(model, q[0], v[0], np.array([0.1, 0.2, 0.3]))
    assert relative(steps[2], tree.integrate(model, q[0, 2], v[0, 2], 0.3)) < 1e-13
    gravities = np.array([[0, 0, -9.81], [0, -9.81, 0], [1.0, 2.0, 3.0]])
    tau_g = tree.aba(model, q[0], v[0], a[0], gravity=gravities)
    assert (
        relative(tau_g[1], tree.aba(model, q[0, 1], v[0, 1], a[0, 1], gravity=gravities[1])) < 1e-13
    )


def test_massless_intermediate_bodies_keep_m_positive_definite():
    spec, model = make("floating")
    assert np.count_nonzero(spec.masses == 0) == 2
    q = tree.random_configuration(model, shape=(20,), rng=15)
    assert (np.linalg.eigvalsh(tree.crba(model, q))[:, 0] > 0).all()


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def floating_pendulum(inertias=None, joints=None):
    """A free-flyer block with a ball-jointed link and a revolute link below it."""
    body = spatial_inertia(1.0, np.array([0.0, 0.0, -0.2]), 0.01 * np.eye(3))
    placements = np.array([np.eye(4)] * 3)
    placements[1:, 2, 3] = -0.4
    return tree.Tree(
        [-1, 0, 1],
        joints if joints is not None else [tree.FREE_FLYER, tree.SPHERICAL, tree.REVOLUTE_X],
        placements,
        inertias if inertias is not None else np.array([body] * 3),
        gravity=(0, 0, -9.81),
    )


MODEL = floating_pendulum()


def _q_functions():
    point = np.zeros(3)
    nv = MODEL.nv
    zero = np.zeros(nv)
    return {
        "crba": lambda q: tree.crba(MODEL, q),
        "rnea": lambda q: tree.rnea(MODEL, q, zero, zero),
        "bias_forces": lambda q: tree.bias_forces(MODEL, q, zero),
        "aba": lambda q: tree.aba(MODEL, q, zero, zero),
        "coriolis_matrix": lambda q: tree.coriolis_matrix(MODEL, q, zero),
        "point_position": lambda q: tree.point_position(MODEL, q, 2, point),
        "point_jacobian": lambda q: tree.point_jacobian(MODEL, q, 2, point),
        "point_velocity": lambda q: tree.point_velocity(MODEL, q, zero, 2, point),
        "point_acceleration_bias": lambda q: tree.point_acceleration_bias(MODEL, q, zero, 2, point),
        "forward_kinematics": lambda q: tree.forward_kinematics(MODEL, q),
        "joint_transforms": lambda q: tree.joint_transforms(MODEL, q),
        "body_jacobians": lambda q: tree.body_jacobians(MODEL, q),
        "body_twists": lambda q: tree.body_twists(MODEL, q, zero),
        "kinetic_energy": lambda q: tree.kinetic_energy(MODEL, q, zero),
        "potential_energy": lambda q: tree.potential_energy(MODEL, q),
        "center_of_mass": lambda q: tree.center_of_mass(MODEL, q),
        "spatial_momentum": lambda q: tree.spatial_momentum(MODEL, q, zero),
        "prepare": lambda q: tree.joint_mass_matrix(tree.prepare(MODEL, q)),
        "integrate": lambda q: tree.integrate(MODEL, q, zero, 0.1),
        "difference(q0)": lambda q: tree.difference(MODEL, q, tree.neutral(MODEL)),
        "difference(q1)": lambda q: tree.difference(MODEL, tree.neutral(MODEL), q),
        "frame_pose": lambda q: tree.frame_pose(MODEL, q, 1, np.eye(4)),
        "frame_jacobian": lambda q: tree.frame_jacobian(MODEL, q, 1, np.eye(4)),
        "frame_velocity": lambda q: tree.frame_velocity(MODEL, q, zero, 1, np.eye(4)),
        "frame_acceleration_bias": lambda q: tree.frame_acceleration_bias(
            MODEL, q, zero, 1, np.eye(4)
        ),
        "frame_kinematics": lambda q: tree.frame_kinematics(MODEL, q, zero, 1, np.eye(4)),
    }


Q_FUNCTIONS = _q_functions()


def test_every_public_function_taking_q_is_listed():
    """The list above covers every public tree function with a q (or q0, q1) argument."""
    import inspect

    taking_q = {
        name
        for name in tree.__all__
        if callable(getattr(tree, name))
        and not isinstance(getattr(tree, name), type)
        and {"q", "q0", "q1"} & set(inspect.signature(getattr(tree, name)).parameters)
    }
    listed = {name.split("(")[0] for name in Q_FUNCTIONS} | {"normalize"}  # the one fixer
    assert taking_q <= listed, taking_q - listed


@pytest.mark.parametrize("name", list(Q_FUNCTIONS))
@pytest.mark.parametrize("which", ["free flyer", "ball"])
def test_a_non_unit_quaternion_is_refused_everywhere(name, which):
    call = Q_FUNCTIONS[name]
    argument = {"difference(q0)": "q0", "difference(q1)": "q1"}.get(name, "q")
    q = tree.neutral(MODEL)
    call(q)  # the neutral configuration is accepted
    slot = 3 if which == "free flyer" else 7  # the quaternions' scalar parts
    for off in (1e-6, -1e-3, 0.5):
        bad = q.copy()
        bad[slot] += off
        with pytest.raises(ValueError, match=rf"^{argument}: expected a unit quaternion") as info:
            call(bad)
        assert "normalize" in str(info.value) and f"{QUATERNION_ATOL:g}" in str(info.value)
        assert "batch index" not in str(info.value)  # one configuration: no batch to point into
    # inside the stated tolerance: accepted
    near = q.copy()
    near[slot] += 0.5 * QUATERNION_ATOL
    call(near)
    # a batch names the offending configuration
    batch = np.array([q] * 3)
    batch[2, slot] = 2.0
    with pytest.raises(ValueError, match=r"batch index \(2,\)"):
        call(batch)


def test_velocity_of_length_nq_is_refused_naming_nv():
    q = tree.neutral(MODEL)
    nq, nv = MODEL.nq, MODEL.nv
    assert (nq, nv) == (12, 10)
    for call, name in [
        (lambda x: tree.rnea(MODEL, q, x, np.zeros(nv)), "v"),
        (lambda x: tree.rnea(MODEL, q, np.zeros(nv), x), "a"),
        (lambda x: tree.aba(MODEL, q, np.zeros(nv), x), "tau"),
        (lambda x: tree.coriolis_matrix(MODEL, q, x), "v"),
        (lambda x: tree.point_velocity(MODEL, q, x, 1, np.zeros(3)), "v"),
        (lambda x: tree.kinetic_energy(MODEL, q, x), "v"),
        (lambda x: tree.integrate(MODEL, q, x, 0.1), "v"),
        (lambda x: tree.bias_forces(MODEL, q, x), "v"),
    ]:
        with pytest.raises(ValueError, match=rf"^{name}: expected shape \(\.\.\., {nv}\).*nv"):
            call(np.zeros(nq))


def test_configuration_of_length_nv_is_refused_naming_nq():
    zero = np.zeros(MODEL.nv)
    for call in (
        lambda x: tree.crba(MODEL, x),
        lambda x: tree.aba(MODEL, x, zero, zero),
        lambda x: tree.integrate(MODEL, x, zero, 0.1),
        lambda x: tree.normalize(MODEL, x),
    ):
        with pytest.raises(ValueError, match=rf"^q: expected shape \(\.\.\., {MODEL.nq}\)"):
            call(zero)
    with pytest.raises(ValueError, match=r"^q0: expected shape"):
        tree.difference(MODEL, zero, tree.neutral(MODEL))


def test_normalize_refuses_a_zero_quaternion():
    q = tree.neutral(MODEL)
    q[3:7] = 0.0
    with pytest.raises(ValueError, match=r"^q: expected nonzero quaternions.*joint 0 \(free_flyer"):
        tree.normalize(MODEL, q)
    q = np.array([tree.neutral(MODEL)] * 2)
    q[1, 7:11] = 0.0
    with pytest.raises(
        ValueError, match=r"^q: expected nonzero.*joint 1 \(spherical, q\[\.\.\., 7:11\]"
    ):
        tree.normalize(MODEL, q)


def test_non_finite_and_wrong_types_in_q():
    q = tree.neutral(MODEL)
    q[4] = np.nan
    with pytest.raises(ValueError, match=r"^q: "):
        tree.crba(MODEL, q)
    with pytest.raises(TypeError, match=r"^q: "):
        tree.crba(MODEL, None)
    with pytest.raises(TypeError, match=r"^q: "):
        tree.crba(MODEL, ["a"] * MODEL.nq)
    with pytest.raises(TypeError, match=r"^shape: "):
        tree.random_configuration(MODEL, shape=3)
    with pytest.raises(TypeError, match=r"^model: "):
        tree.integrate("tree", q, np.zeros(MODEL.nv), 0.1)


def test_a_massless_leaf_is_refused_naming_its_joint():
    body = spatial_inertia(1.0, np.array([0.0, 0.0, -0.2]), 0.01 * np.eye(3))
    for leaf_joint in (tree.REVOLUTE_X, tree.SPHERICAL):
        with pytest.raises(ValueError, match=r"^inertias: joint 2 moves no inertia"):
            floating_pendulum(
                inertias=np.array([body, body, np.zeros((6, 6))]),
                joints=[tree.FREE_FLYER, tree.SPHERICAL, leaf_joint],
            )


def test_a_massless_body_repeating_freedoms_is_refused_naming_a_joint():
    """A massless free-flyer block whose only child hangs from a ball: 9 freedoms, one body."""
    body = spatial_inertia(1.0, np.array([0.0, 0.0, -0.2]), 0.01 * np.eye(3))
    with pytest.raises(ValueError, match=r"^inertias: joint \d moves no inertia"):
        tree.Tree(
            [-1, 0],
            [tree.FREE_FLYER, tree.SPHERICAL],
            np.array([np.eye(4), spatial.pose(np.eye(3), [0, 0, -0.4])]),
            np.array([np.zeros((6, 6)), body]),
            gravity=(0, 0, -9.81),
        )


def test_a_massless_body_with_children_is_accepted():
    body = spatial_inertia(1.0, np.array([0.0, 0.0, -0.2]), 0.01 * np.eye(3))
    model = floating_pendulum(inertias=np.array([body, np.zeros((6, 6)), body]))
    M = tree.crba(model, tree.random_configuration(model, shape=(10,), rng=1))
    assert (np.linalg.eigvalsh(M)[:, 0] > 0).all()
    assert model.masses.tolist() == [1.0, 0.0, 1.0]


def test_bad_joint_models_are_refused():
    with pytest.raises(TypeError, match=r"^joints\[1\]: expected a joint model subclass"):
        floating_pendulum(joints=[tree.FREE_FLYER, Joint(), tree.REVOLUTE_X])
    with pytest.raises(TypeError, match=r"^joints\[1\]: expected a joint screw"):
        floating_pendulum(joints=[tree.FREE_FLYER, "spherical", tree.REVOLUTE_X])
    with pytest.raises(TypeError, match=r"^joints\[2\]: expected a joint screw"):
        floating_pendulum(joints=[tree.FREE_FLYER, tree.SPHERICAL, None])
    with pytest.raises(TypeError, match=r"^joints: expected a sequence"):
        floating_pendulum(joints="rrr")
    with pytest.raises(ValueError, match=r"^joints\[2\]: expected a nonzero joint screw"):
        floating_pendulum(joints=[tree.FREE_FLYER, tree.SPHERICAL, np.zeros(6)])
    with pytest.raises(ValueError, match=r"^joints: expected 3 joints"):
        floating_pendulum(joints=[tree.FREE_FLYER, tree.SPHERICAL])
    with pytest.raises(TypeError, match=r"^joints\[0\]: expected a joint model instance"):
        floating_pendulum(joints=[tree.FreeFlyerJoint, tree.SPHERICAL, tree.REVOLUTE_X])
    with pytest.raises(TypeError, match=r"^joints\[2\]: expected real numbers"):
        floating_pendulum(joints=[tree.FREE_FLYER, tree.SPHERICAL, [1, 0, 0, 0, 0, object()]])
    with pytest.raises(ValueError, match=r"^joints\[2\]: expected a vector of shape \(6,\)"):
        floating_pendulum(joints=[tree.FREE_FLYER, tree.SPHERICAL, [1.0, 0, 0]])


def test_a_quaternion_and_its_negative_are_the_same_configuration(case):
    spec, model = case
    q, v, a = state(model, 16)
    flipped = q.copy()
    for start, stop in quaternion_slices(model):
        flipped[start:stop] *= -1
    assert (
        relative(tree.forward_kinematics(model, flipped), tree.forward_kinematics(model, q)) < 1e-15
    )
    assert relative(tree.crba(model, flipped), tree.crba(model, q)) < 1e-14
    assert relative(tree.aba(model, flipped, v, a), tree.aba(model, q, v, a)) < 1e-13
    assert np.abs(tree.difference(model, q, flipped)).max() < 1e-15
    assert (
        relative(tree.difference(model, flipped, tree.integrate(model, q, v, 0.5)), 0.5 * v) < 1e-12
    )


@pytest.mark.parametrize("frame", ["body", "world"])
def test_a_batch_of_external_wrenches_on_one_configuration_equals_a_loop(case, frame):
    """f_ext with leading axes (3,) on a single q: one answer per load, as on screw trees."""
    spec, model = case
    q, v, a = state(model, 17)
    loads = np.random.default_rng(18).normal(size=(3, model.num_bodies, 6))
    for name, x in (("rnea", a), ("aba", a)):
        f = getattr(tree, name)
        out = f(model, q, v, x, f_ext=loads, f_ext_frame=frame)
        assert out.shape == (3, model.nv)
        for b in range(3):
            assert relative(out[b], f(model, q, v, x, f_ext=loads[b], f_ext_frame=frame)) < 1e-13


def test_configuration_functions_name_their_arguments():
    q, zero = tree.neutral(MODEL), np.zeros(MODEL.nv)
    with pytest.raises(ValueError, match=r"^q, v, dt: expected leading \(batch\) shapes"):
        tree.integrate(MODEL, np.array([q] * 2), zero, np.ones(3))
    with pytest.raises(ValueError, match=r"^q0, q1: expected leading \(batch\) shapes"):
        tree.difference(MODEL, np.array([q] * 2), np.array([q] * 3))
    with pytest.raises(TypeError, match=r"^dt: "):
        tree.integrate(MODEL, q, zero, None)
    with pytest.raises(ValueError, match=r"^dt: "):
        tree.integrate(MODEL, q, zero, np.inf)
    with pytest.raises(ValueError, match=r"^shape: expected non-negative"):
        tree.random_configuration(MODEL, shape=(2, -1))
    assert tree.random_configuration(MODEL, shape=(0,)).shape == (0, MODEL.nq)
    assert tree.difference(MODEL, q, np.array([q] * 4)).shape == (4, MODEL.nv)


def test_the_readable_reference_path_agrees(case):
    """Second algorithms of geomotion.verification (body Jacobians, dense solve, reference RNEA)."""
    spec, model = case
    q, v, a = state(model, 19, (3,))
    M = tree.crba(model, q)
    assert relative(verification.mass_matrix_from_body_jacobians(model, q), M) < 1e-13
    assert relative(verification.mass_matrix_from_inverse_dynamics(model, q), M) < 1e-13
    assert relative(tree.joint_mass_matrix(tree.prepare(model, q)), M) < 1e-13
    tau = tree.rnea(model, q, v, a)
    assert relative(tree.reference.rnea(model, q, v, a), tau) < 1e-13
    assert relative(verification.forward_dynamics_by_dense_solve(model, q, v, tau), a) < 1e-10
    report = verification.tree_checks(model, rng=np.random.default_rng(20), n_states=5)
    assert report.max_relative_error() < 1e-10


def massless_ball_with_one_child(axis_point):
    """A massless ball-jointed body whose one child turns about x through ``axis_point``."""
    body = spatial_inertia(1.0, np.array([0.0, 0.1, -0.2]), 0.01 * np.eye(3))
    u = np.array([1.0, 0.0, 0.0])
    return tree.Tree(
        [-1, 0],
        [tree.SPHERICAL, np.concatenate([u, np.cross(axis_point, u)])],
        np.array([np.eye(4), spatial.pose(np.eye(3), [0, 0, -0.4])]),
        np.array([np.zeros((6, 6)), body]),
        gravity=(0, 0, -9.81),
    )


def test_a_massless_ball_whose_child_turns_about_its_centre_is_refused():
    """The child's hinge axis through the ball's centre repeats one of the ball's rotations."""
    # the ball's centre is at (0, 0, 0.4) in the child's coordinates
    with pytest.raises(ValueError, match=r"^inertias: joint \d moves no inertia"):
        massless_ball_with_one_child(np.array([0.0, 0.0, 0.4]))
    model = massless_ball_with_one_child(np.array([0.0, 0.0, 0.1]))  # axis off the centre
    M = tree.crba(model, tree.random_configuration(model, shape=(10,), rng=2))
    assert (np.linalg.eigvalsh(M)[:, 0] > 0).all()


@settings(max_examples=examples(15), suppress_health_check=[HealthCheck.too_slow])
@given(spec=joint_tree_specs(max_bodies=6))
def test_generated_trees_identities(spec):
    """Hypothesis-drawn trees: aba inverts rnea, K from particles, M-dot = C + C^T."""
    model = joint_tree(spec)
    q, v, a = state(model, 21, (2,))
    tau = tree.rnea(model, q, v, a)
    assert relative(tree.aba(model, q, v, tau), a) < 1e-9
    M = tree.crba(model, q)
    K = 0.5 * np.einsum("bi,bij,bj->b", v, M, v)
    assert relative(K, particle_kinetic_energy(model, q, v)) < 1e-6
    h = 1e-6
    Mdot = (
        tree.crba(model, tree.integrate(model, q, v, h))
        - tree.crba(model, tree.integrate(model, q, v, -h))
    ) / (2 * h)
    C = tree.coriolis_matrix(model, q, v)
    assert relative(C + np.swapaxes(C, -1, -2), Mdot) < 1e-6
