"""Frame closures (constraints.frame_closure): residual, Jacobian, bias, zero sets, bad input.

Independent checks: the zero set of each named joint from relative poses built with scipy
(rotations about a's z, translations in a's plane...); the Jacobian against finite
differences of the relative pose along q(t) = integrate(q, v, t) (matrix logarithm); the
bias against differences of J_c v; for all 63 subsets, the relation between J_c and the
residual's derivative on the constraint manifold, with the Lie-subalgebra test done by
brute force on 6x6 ad matrices; the spherical set against the point loop closure.
"""

import itertools

import numpy as np
import pytest
from frame_models import random_frame, random_mixed_spec
from scipy.linalg import expm, logm, null_space
from scipy.spatial.transform import Rotation

from geomotion import constraints, spatial, tree

ALL_SUBSETS = [c for r in range(1, 7) for c in itertools.combinations(range(6), r)]


def hat(xi):
    w, v = xi[:3], xi[3:]
    X = np.zeros((4, 4))
    X[:3, :3] = [[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]
    X[:3, 3] = v
    return X


def vee(X):
    return np.array([X[2, 1], X[0, 2], X[1, 0], X[0, 3], X[1, 3], X[2, 3]])


def two_free_bodies(seed=0):
    """Two free-flyer bodies hanging from the ground: any relative pose can be set."""
    rng = np.random.default_rng(seed)
    spec = random_mixed_spec(rng, [-1, -1], ["free", "free"])
    return spec.tree()


def free_configuration(T):
    """Free-flyer coordinates (p, w, x, y, z) of a pose (placement identity is not assumed)."""
    x, y, z, w = Rotation.from_matrix(T[:3, :3]).as_quat()
    return np.concatenate([T[:3, 3], [w, x, y, z]])


def place(model, frame_a, frame_b, relative, rng):
    """A configuration of two_free_bodies where T_0a^-1 T_0b = relative (a random T_0a)."""
    T0a = random_frame(rng, 1.0)
    T0b = T0a @ relative
    P = model.placements
    # T_0i = P_i T_J(q_i), T_0a = T_0,0 frame_a
    body0 = np.linalg.inv(P[0]) @ T0a @ np.linalg.inv(frame_a)
    body1 = np.linalg.inv(P[1]) @ T0b @ np.linalg.inv(frame_b)
    return np.concatenate([free_configuration(body0), free_configuration(body1)])


def mixed_model(seed=3):
    rng = np.random.default_rng(seed)
    spec = random_mixed_spec(rng, [-1, 0, 1, 0, 3, 4], ["free", "ball", "r", "p", "h", "ball"])
    return spec.tree()


def rot_z(t):
    return Rotation.from_rotvec([0, 0, t]).as_matrix()


def pose(R, p):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


# allowed relative motions of each named joint, built without geomotion
ALLOWED = {
    "weld": lambda rng: np.eye(4),
    "revolute": lambda rng: pose(rot_z(rng.uniform(-3, 3)), np.zeros(3)),
    "prismatic": lambda rng: pose(np.eye(3), [0, 0, rng.uniform(-1, 1)]),
    "cylindrical": lambda rng: pose(rot_z(rng.uniform(-3, 3)), [0, 0, rng.uniform(-1, 1)]),
    "spherical": lambda rng: pose(Rotation.random(random_state=rng).as_matrix(), np.zeros(3)),
    "planar": lambda rng: pose(rot_z(rng.uniform(-3, 3)), [*rng.uniform(-1, 1, 2), 0]),
    "translation": lambda rng: pose(np.eye(3), rng.uniform(-1, 1, 3)),
}


def test_named_component_sets():
    assert dict(constraints.FRAME_CLOSURE_COMPONENTS) == {
        "weld": (0, 1, 2, 3, 4, 5),
        "revolute": (0, 1, 3, 4, 5),
        "prismatic": (0, 1, 2, 3, 4),
        "cylindrical": (0, 1, 3, 4),
        "spherical": (3, 4, 5),
        "planar": (0, 1, 5),
        "translation": (0, 1, 2),
    }
    with pytest.raises(TypeError):
        constraints.FRAME_CLOSURE_COMPONENTS["weld"] = (0,)  # read-only


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_zero_set_is_the_joint(name):
    model = two_free_bodies()
    rng = np.random.default_rng(1)
    frame_a, frame_b = random_frame(rng), random_frame(rng)
    closure = constraints.frame_closure(model, 0, frame_a, 1, frame_b, components=name)
    components = constraints.FRAME_CLOSURE_COMPONENTS[name]
    assert closure.components == components
    for _ in range(5):
        allowed = ALLOWED[name](rng)
        q = place(model, frame_a, frame_b, allowed, rng)
        np.testing.assert_allclose(closure.relative_pose(q), allowed, atol=1e-12)
        assert np.abs(closure.residual(q)).max() < 1e-12
        # a small motion along any forbidden direction, in a's axes, breaks it
        for k in components:
            eps = 1e-3 * rng.choice([-1, 1])
            moved = expm(hat(eps * np.eye(6)[k])) @ allowed
            r = closure.residual(place(model, frame_a, frame_b, moved, rng))
            assert np.abs(r).max() > 0.3e-3, (k, r)
        # and a random pose is not allowed
        other = expm(hat(rng.normal(size=6)))
        assert np.abs(closure.residual(place(model, frame_a, frame_b, other, rng))).max() > 1e-3


def anchored_log(T, components):
    """E log(T expm(-xi_F)), xi = logm(T) with the selected entries zeroed: scipy only."""
    xi = vee(np.real(logm(T)))
    free = xi.copy()
    free[list(components)] = 0.0
    return vee(np.real(logm(T @ expm(-hat(free)))))[list(components)]


@pytest.mark.parametrize("components", ALL_SUBSETS)
def test_residual_is_the_log_of_the_pose_error_from_the_allowed_motion(components):
    model = two_free_bodies()
    rng = np.random.default_rng(2)
    frame_a, frame_b = random_frame(rng), random_frame(rng)
    closure = constraints.frame_closure(model, 0, frame_a, 1, frame_b, components=components)
    xi = rng.normal(size=6)
    xi[:3] *= 2.5 / np.linalg.norm(xi[:3])  # a rotation of less than pi
    T = expm(hat(xi))
    q = place(model, frame_a, frame_b, T, rng)
    np.testing.assert_allclose(closure.residual(q), anchored_log(T, components), atol=1e-10)
    if len(components) == 6:  # a weld: the log of the relative pose itself
        np.testing.assert_allclose(closure.residual(q), xi, atol=1e-11)
    if components == (3, 4, 5):  # spherical: the offset of b's origin, in a's axes
        np.testing.assert_allclose(closure.residual(q), T[:3, 3], atol=1e-12)
    # motions exp(xi) with xi zero in the selected components are in the zero set
    xi[list(components)] = 0.0
    q = place(model, frame_a, frame_b, expm(hat(xi)), rng)
    assert np.abs(closure.residual(q)).max() < 1e-11


def relative_twist_by_differences(closure, q, v, h=1e-5):
    """(d/dt T_ab) T_ab^-1 along integrate(q, v, t), in a's axes, by the matrix logarithm."""
    T0 = closure.relative_pose(q)
    inv = np.linalg.inv(T0)
    Tp = closure.relative_pose(tree.integrate(closure.model, q, v, h))
    Tm = closure.relative_pose(tree.integrate(closure.model, q, v, -h))
    return vee(np.real(logm(Tp @ inv) - logm(Tm @ inv))) / (2 * h)


CASES = [(0, 5), (2, 4), (5, -1), (-1, 3), (1, 2)]  # (body_a, body_b), ground included


@pytest.mark.parametrize("bodies", CASES)
def test_jacobian_is_the_relative_twist_and_bias_its_rate(bodies):
    model = mixed_model()
    rng = np.random.default_rng(4)
    for components in [(0, 1, 2, 3, 4, 5), (0, 1, 3, 4, 5), (3, 4, 5), (0, 1, 5), (4, 2)]:
        closure = constraints.frame_closure(
            model,
            *bodies[:1],
            random_frame(rng),
            bodies[1],
            random_frame(rng),
            components=components,
        )
        q = tree.random_configuration(model, rng=rng)
        v = rng.normal(size=model.nv)
        J = closure.jacobian(q)
        assert J.shape == (len(components), model.nv)
        twist = relative_twist_by_differences(closure, q, v)
        np.testing.assert_allclose(
            J @ v, twist[list(components)], atol=1e-7 * max(1, abs(twist).max())
        )
        h = 1e-5
        rate = (
            closure.jacobian(tree.integrate(model, q, v, h)) @ v
            - closure.jacobian(tree.integrate(model, q, v, -h)) @ v
        ) / (2 * h)
        gamma = closure.acceleration_bias(q, v)
        np.testing.assert_allclose(gamma, rate, atol=1e-6 * max(1, abs(rate).max()))


def ad(xi):
    w, v = xi[:3], xi[3:]
    W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    V = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.block([[W, np.zeros((3, 3))], [V, W]])


def is_subalgebra(free):
    """Brute force: every bracket of two free basis twists stays in their span."""
    E = np.eye(6)
    span = E[:, free] if free else np.zeros((6, 0))
    for i, j in itertools.combinations(free, 2):
        bracket = ad(E[i]) @ E[j]
        residue = bracket - span @ np.linalg.lstsq(span, bracket, rcond=None)[0]
        if np.linalg.norm(residue) > 1e-12:
            return False
    return True


def residual_rate_matrix(closure, q, h=1e-6):
    """d(residual)/dv by central differences along integrate, one column per velocity."""
    model = closure.model
    columns = []
    for e in np.eye(model.nv):
        rp = closure.residual(tree.integrate(model, q, e, h))
        rm = closure.residual(tree.integrate(model, q, e, -h))
        columns.append((rp - rm) / (2 * h))
    return np.array(columns).T


@pytest.mark.parametrize("components", ALL_SUBSETS)
def test_jacobian_is_the_residual_rate_on_the_manifold_exactly_when_integrable(components):
    model = two_free_bodies(5)
    rng = np.random.default_rng(6)
    frame_a, frame_b = random_frame(rng), random_frame(rng)
    closure = constraints.frame_closure(model, 0, frame_a, 1, frame_b, components=components)
    free = [k for k in range(6) if k not in components]
    assert closure.integrable == is_subalgebra(free)
    # at T_ab = I the two are equal, for every subset
    q = place(model, frame_a, frame_b, np.eye(4), rng)
    np.testing.assert_allclose(residual_rate_matrix(closure, q), closure.jacobian(q), atol=1e-8)
    # on the constraint manifold away from the identity
    worst = 0.0
    for _ in range(3):
        xi = np.zeros(6)
        xi[free] = rng.uniform(-1.0, 1.0, len(free))
        q = place(model, frame_a, frame_b, expm(hat(xi)), rng)
        assert np.abs(closure.residual(q)).max() < 1e-12
        J = closure.jacobian(q)
        D = residual_rate_matrix(closure, q)
        N = null_space(J)
        worst = max(worst, np.abs(D @ N).max())
        if closure.integrable:
            # on the manifold the residual's rate is J_c v itself
            np.testing.assert_allclose(D, J, atol=1e-7)
    if closure.integrable:
        assert worst < 1e-7
    else:
        assert worst > 1e-3  # the velocity constraint is not the residual's derivative


@pytest.mark.parametrize(
    "kinds", [["r", "r", "r", "r", "r"], ["free", "ball", "r", "h", "ball"]], ids=["screw", "mixed"]
)
def test_spherical_set_is_the_point_closure_in_a_axes(kinds):
    # on the manifold (frame origins together) the rows are R_a^T (J_b - J_a) of the points;
    # the point closure works on trees with ball and free-flyer joints too
    rng = np.random.default_rng(7)
    spec = random_mixed_spec(rng, [-1, 0, 1, 0, 3], kinds)
    model = spec.tree()
    q = tree.random_configuration(model, rng=rng)
    frame_a = random_frame(rng)
    # frame b on body 4 at the world position of a's origin, any orientation
    T0a = tree.frame_pose(model, q, 2, frame_a)
    T04 = tree.frame_pose(model, q, 4, np.eye(4))
    frame_b = (
        np.linalg.inv(T04) @ T0a @ pose(Rotation.random(random_state=rng).as_matrix(), np.zeros(3))
    )
    closure = constraints.frame_closure(model, 2, frame_a, 4, frame_b, components="spherical")
    assert np.abs(closure.residual(q)).max() < 1e-12
    loop = constraints.loop_closure(model, 4, frame_b[:3, 3], 2, frame_a[:3, 3])
    R = T0a[:3, :3]
    np.testing.assert_allclose(closure.jacobian(q), R.T @ loop.jacobian(q), atol=1e-12)
    np.testing.assert_allclose(closure.residual(q), R.T @ loop.residual(q), atol=1e-12)
    v = rng.normal(size=model.nv)
    v = v - np.linalg.pinv(closure.jacobian(q)) @ (closure.jacobian(q) @ v)  # points together
    np.testing.assert_allclose(
        closure.acceleration_bias(q, v), R.T @ loop.acceleration_bias(q, v), atol=1e-11
    )


def test_batches_match_single_calls():
    model = mixed_model()
    rng = np.random.default_rng(8)
    closure = constraints.frame_closure(
        model, 5, random_frame(rng), 2, random_frame(rng), components="revolute"
    )
    q = tree.random_configuration(model, shape=(2, 3), rng=rng)
    v = rng.normal(size=(2, 3, model.nv))
    r, J, g = closure.residual(q), closure.jacobian(q), closure.acceleration_bias(q, v)
    assert r.shape == (2, 3, 5) and J.shape == (2, 3, 5, model.nv) and g.shape == (2, 3, 5)
    for i, j in itertools.product(range(2), range(3)):
        np.testing.assert_allclose(r[i, j], closure.residual(q[i, j]), atol=1e-14)
        np.testing.assert_allclose(J[i, j], closure.jacobian(q[i, j]), atol=1e-14)
        np.testing.assert_allclose(g[i, j], closure.acceleration_bias(q[i, j], v[i, j]), atol=1e-13)


@pytest.mark.parametrize("components", ALL_SUBSETS)
def test_rows_follow_the_order_given(components):
    # Every subset in a shuffled order: residual, Jacobian and bias rows are the sorted
    # closure's rows in that order, alone and stacked in a ClosureSet (a weld included:
    # its residual once took a shortcut that kept the natural order).
    model = mixed_model()
    rng = np.random.default_rng(sum(components) + 10 * len(components))
    fa, fb = random_frame(rng), random_frame(rng)
    q = tree.random_configuration(model, rng=rng)
    v = rng.normal(size=model.nv)
    order = rng.permutation(len(components))
    if len(components) > 1 and (order == np.arange(len(components))).all():
        order = order[::-1]
    shuffled = tuple(components[i] for i in order)
    natural = constraints.frame_closure(model, 1, fa, 4, fb, components=components)
    given = constraints.frame_closure(model, 1, fa, 4, fb, components=shuffled)
    np.testing.assert_array_equal(given.residual(q), natural.residual(q)[order])
    np.testing.assert_array_equal(given.jacobian(q), natural.jacobian(q)[order])
    np.testing.assert_array_equal(
        given.acceleration_bias(q, v), natural.acceleration_bias(q, v)[order]
    )
    stacked = constraints.ClosureSet([given, natural])
    c = len(components)
    np.testing.assert_array_equal(stacked.residual(q)[:c], natural.residual(q)[order])
    np.testing.assert_allclose(stacked.jacobian(q)[:c], natural.jacobian(q)[order], atol=1e-13)
    np.testing.assert_allclose(
        stacked.acceleration_bias(q, v)[:c], natural.acceleration_bias(q, v)[order], atol=1e-12
    )


def test_a_shuffled_weld_has_the_rate_of_its_residual_as_its_rows():
    # Closed where it is built (frame b is frame a's pose at q0), a weld's residual
    # changes at J_c v to first order: by central differences, row by row, in the
    # order given.
    model = mixed_model()
    rng = np.random.default_rng(12)
    q0 = tree.random_configuration(model, rng=rng)
    fa = random_frame(rng)
    at_q0 = tree.frame_pose(model, q0, 1, fa)
    weld = constraints.frame_closure(model, 1, fa, -1, at_q0, components=(4, 0, 5, 2, 3, 1))
    v = rng.normal(size=model.nv)
    h = 1e-6
    plus, minus = (weld.residual(tree.integrate(model, q0, v, s * h)) for s in (1, -1))
    np.testing.assert_allclose((plus - minus) / (2 * h), weld.jacobian(q0) @ v, atol=1e-7)


def test_frames_are_read_only_copies():
    model = mixed_model()
    fa = np.eye(4)
    closure = constraints.frame_closure(model, 1, fa, -1, np.eye(4))
    fa[0, 3] = 1.0
    assert closure.frame_a[0, 3] == 0.0
    with pytest.raises(ValueError):
        closure.frame_a[0, 3] = 1.0
    with pytest.raises(AttributeError):
        closure.body_a = 2


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_bad_input_names_the_argument():
    model = mixed_model()
    I = np.eye(4)
    make = constraints.frame_closure
    with pytest.raises(TypeError, match="model"):
        make("model", 0, I, 1, I)
    with pytest.raises(ValueError, match="body_b.*itself"):
        make(model, 2, I, 2, I)  # a frame welded to itself
    with pytest.raises(ValueError, match="body_b"):
        make(model, 2, I, 2, spatial.pose(np.eye(3), [1.0, 0, 0]))  # same body
    with pytest.raises(ValueError, match="body_b"):
        make(model, -1, I, -1, I)
    with pytest.raises(ValueError, match="body_a"):
        make(model, model.num_bodies, I, 1, I)
    with pytest.raises(ValueError, match="body_b"):
        make(model, 0, I, -2, I)
    with pytest.raises(TypeError, match="body_a: expected an integer body index, got float 1.0"):
        make(model, 1.0, I, 2, I)  # a wrong type: TypeError, as frame_pose and FramePair
    with pytest.raises(TypeError, match="body_b: expected an integer body index, got bool"):
        make(model, 1, I, True, I)
    sheared = np.eye(4)
    sheared[0, 1] = 0.2
    with pytest.raises(ValueError, match="frame_a"):
        make(model, 0, sheared, 1, I)
    with pytest.raises(ValueError, match="frame_b"):
        make(model, 0, I, 1, 2 * I)
    with pytest.raises(ValueError, match="frame_b"):
        make(model, 0, I, 1, np.stack([I, I]))
    for bad in [(), [], (0, 0), (6,), (-1,), (0, 1, 2, 3, 4, 5, 5), "hinge"]:
        with pytest.raises(ValueError, match="components"):
            make(model, 0, I, 1, I, components=bad)
    for bad in [(0.0, 1.0), ("0",), (True,), 3, None, {0, 1}]:
        with pytest.raises(TypeError, match="components"):
            make(model, 0, I, 1, I, components=bad)
    with pytest.raises(TypeError):
        make(model, 0, I, 1, I, (0, 1))  # components is keyword-only
    closure = make(model, 0, I, 1, I, components=np.array([3, 4, 5]))
    assert closure.components == (3, 4, 5)
    with pytest.raises(ValueError, match="q"):
        closure.residual(np.zeros(model.nq))  # zero quaternions


def test_newton_projection_converges_quadratically_at_large_hinge_angles():
    # With J_c as the Newton matrix of the residual (what a position projection does), the
    # violation shrinks quadratically at any hinge angle: on the manifold dPhi/dq = J_c.
    # (The plain log coordinates E log T_ab would give dPhi = [J_l^-1]_CC J_c v there, and
    # the iteration stalls or diverges past about 1.5 rad.)
    rng = np.random.default_rng(10)
    spec = random_mixed_spec(rng, [-1, 0, 1, 2, 0, 4, 5, 6], ["r"] * 8)
    model = spec.tree()
    for angle in (0.3, 1.5, 2.2, 3.0):
        q0 = tree.random_configuration(model, rng=rng)
        frame_a = random_frame(rng)
        T0a = tree.frame_pose(model, q0, 3, frame_a)
        T07 = tree.frame_pose(model, q0, 7, np.eye(4))
        frame_b = np.linalg.inv(T07) @ T0a @ pose(rot_z(angle), np.zeros(3))
        for name in ("revolute", "spherical", "cylindrical", "planar"):
            closure = constraints.frame_closure(model, 3, frame_a, 7, frame_b, components=name)
            q = q0 + 1e-2 * rng.normal(size=model.nq)
            norms = []
            for _ in range(6):
                r = closure.residual(q)
                norms.append(np.linalg.norm(r))
                q = q - np.linalg.pinv(closure.jacobian(q)) @ r
            assert norms[-1] < 1e-13, (angle, name, norms)
            assert norms[2] < 1e-3 * norms[1], (angle, name, norms)  # quadratic, not linear
