"""The exact contact-wrench cone of a flat sole (contact.contact_wrench_cone) and its use by
the programs on planted feet (contact_inverse_dynamics, least_friction, least_violation).

Independent checks: the cone's faces against a linear program over the forces at the
polygon's vertices written in vertex_forces.py (its definition, solved by HiGHS), on random wrenches
inside and outside, for several polygons, coefficients and pyramids; against Caron, Pham
and Nakamura's (2015) closed form for a rectangle and a four-face pyramid, typed here from
the paper's statement; a wrench built by hand that the old necessary bound on the free
moment admits and no pressure distribution produces; a block twisting on one foot,
whose largest free moment is found by the vertex-force program.
"""

import math

import numpy as np
import pytest
from scipy.optimize import linprog
from vertex_forces import vertex_forces_hold

from geomotion import contact, inertia, spatial, tree
from geomotion.errors import InfeasibleContactError

G = 9.81
RECTANGLE = np.array([[-0.06, -0.05], [0.21, -0.05], [0.21, 0.05], [-0.06, 0.05]])
POLYGONS = {
    "rectangle": RECTANGLE,
    "triangle": np.array([[0.0, 0.0], [0.3, 0.02], [0.1, 0.2]]),
    "pentagon, clockwise": np.array(
        [[0.0, 0.0], [-0.05, 0.12], [0.08, 0.2], [0.22, 0.1], [0.15, -0.04]]
    ),
}


def _verdict(wrench, polygon, mu, facets, slack=1e-6):
    """True or False where the vertex-force program says the same with the pyramid a
    relative ``slack`` narrower and wider; None at the boundary."""
    inner = vertex_forces_hold(wrench, polygon, mu * (1 - slack), facets)
    outer = vertex_forces_hold(wrench, polygon, mu * (1 + slack), facets)
    return inner if inner == outer else None


def _random_wrenches(rng, polygon, mu, count):
    """Half sums of random vertex forces inside the cone (tangential inside the pyramid's
    inscribed circle), half those moved by a random wrench of their own size."""
    V = len(polygon)
    out = []
    for k in range(count):
        z = rng.uniform(0.0, 1.0, V) * (rng.uniform(size=V) < 0.7)
        z[rng.integers(V)] += 0.1
        angle = rng.uniform(0, 2 * np.pi, V)
        radius = rng.uniform(0, 0.9 * mu * math.cos(math.pi / 3), V) * z
        forces = np.c_[radius * np.cos(angle), radius * np.sin(angle), z]
        p = np.c_[polygon, np.zeros(V)]
        w = np.r_[np.cross(p, forces).sum(axis=0), forces.sum(axis=0)]
        if k % 2:
            w = w + rng.normal(size=6) * np.abs(w).mean() * rng.uniform(0.05, 1.0)
        out.append(w)
    return np.array(out)


# ---------------------------------------------------------------------------
# The faces against the definition
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(POLYGONS))
@pytest.mark.parametrize(("mu", "facets"), [(0.8, 16), (0.3, 3), (1.5, 8), (0.6, 4)])
def test_the_faces_agree_with_the_vertex_force_program(name, mu, facets):
    rng = np.random.default_rng(hash((name, facets)) % 2**32)
    polygon = POLYGONS[name]
    cone = contact.contact_wrench_cone(polygon, mu, cone_facets=facets)
    counts = {True: 0, False: 0}
    for w in _random_wrenches(rng, polygon, mu, 120):
        expected = _verdict(w, polygon, mu, facets)
        if expected is None:
            continue
        assert bool(np.all(cone.face @ w <= 1e-12 * np.linalg.norm(w))) == expected, w
        counts[expected] += 1
    assert min(counts.values()) >= 30, counts  # both sides tested
    # The generators are the unit normal forces at the vertices along the pyramid's edges.
    V = len(polygon)
    assert cone.generators.shape == (V * facets, 6)
    np.testing.assert_allclose(cone.generators[:, 5], 1.0)
    np.testing.assert_allclose(np.hypot(*cone.generators[:, 3:5].T), mu)
    assert np.all(cone.face @ cone.generators.T <= 1e-12)
    assert cone.family.count("friction") == facets and cone.family.count("support") == V
    # A friction face's index names its direction alpha_j = 2 pi j / N: a unit load at the
    # polygon's mean with a shear along alpha_j just beyond the pyramid breaks face j most.
    friction = np.array([f == "friction" for f in cone.family])
    x, y = polygon.mean(axis=0)
    for j in range(facets):
        a = 2 * np.pi * j / facets
        shear = 1.01 * mu * np.cos(np.pi / facets) * np.array([np.cos(a), np.sin(a)])
        w = np.array([y, -x, x * shear[1] - y * shear[0], *shear, 1.0])
        assert cone.edge[friction][np.argmax(cone.face[friction] @ w)] == j


def test_moving_the_sole_origin_moves_the_cone_as_a_wrench_moves():
    """The same polygon about another origin: a wrench w about the first origin is
    w' = (n - d x f, f) about the second (d the second origin in the first's coordinates),
    so every face h' of the moved polygon's cone is h with h' . w' = h . w (rows in the
    same order, torsion rows scaled by the polygon alone)."""
    d = np.array([0.11, -0.03, 0.0])
    for facets in (4, 16):
        here = contact.contact_wrench_cone(RECTANGLE, 0.8, cone_facets=facets)
        there = contact.contact_wrench_cone(RECTANGLE - d[:2], 0.8, cone_facets=facets)
        move = np.eye(6)
        move[:3, 3:] = -spatial.skew(d)  # w' = move w
        np.testing.assert_allclose(there.face @ move, here.face, rtol=0, atol=1e-12)
        assert there.family == here.family


def test_with_no_friction_only_normal_forces_at_the_vertices_are_admissible():
    """mu = 0: the limit of the faces is the cone of normal forces (f_x = f_y = n_z = 0,
    centre of pressure in the polygon)."""
    rng = np.random.default_rng(7)
    cone = contact.contact_wrench_cone(RECTANGLE, 0.0)
    for _ in range(40):
        z = rng.uniform(0.1, 1.0, 4)
        w = np.r_[
            np.cross(np.c_[RECTANGLE, np.zeros(4)], np.c_[0 * z, 0 * z, z]).sum(0), 0, 0, z.sum()
        ]
        assert np.all(cone.face @ w <= 1e-12)
        for k, push in ((2, 1e-3), (3, 1e-3), (4, -1e-3)):  # a free moment, a shear
            moved = w.copy()
            moved[k] += push * w[5]
            assert np.any(cone.face @ moved > 0)
            assert not vertex_forces_hold(moved, RECTANGLE, 0.0, 16)


# ---------------------------------------------------------------------------
# Caron, Pham and Nakamura's closed form
# ---------------------------------------------------------------------------


def _caron_rows(half_x, half_y, mu):
    """The 16 rows U (f, tau) <= 0 of the paper's statement for a rectangle of half-sides
    X, Y about its centre and the pyramid |f_x|, |f_y| <= mu f_z, as rows on (tau, f):
    |f_x| <= mu f_z, |f_y| <= mu f_z, |tau_x| <= Y f_z, |tau_y| <= X f_z and
    tau_min <= tau_z <= tau_max with
    tau_min = -mu (X + Y) f_z + |Y f_x - mu tau_x| + |X f_y - mu tau_y|,
    tau_max = +mu (X + Y) f_z - |Y f_x + mu tau_x| - |X f_y + mu tau_y|."""
    X, Y = half_x, half_y
    rows = []
    for s in (1.0, -1.0):
        rows.append([0, 0, 0, s, 0, -mu])  # s f_x <= mu f_z
        rows.append([0, 0, 0, 0, s, -mu])
        rows.append([s, 0, 0, 0, 0, -Y])  # s tau_x <= Y f_z
        rows.append([0, s, 0, 0, 0, -X])
    for a in (1.0, -1.0):
        for b in (1.0, -1.0):
            # tau_min <= tau_z: -mu (X+Y) f_z + a (Y f_x - mu tau_x) + b (X f_y - mu tau_y) - tau_z <= 0
            rows.append([-a * mu, -b * mu, -1.0, a * Y, b * X, -mu * (X + Y)])
            # tau_z <= tau_max: tau_z - mu (X+Y) f_z + a (Y f_x + mu tau_x) + b (X f_y + mu tau_y) <= 0
            rows.append([a * mu, b * mu, 1.0, a * Y, b * X, -mu * (X + Y)])
    return np.array(rows)


def test_a_rectangle_with_four_faces_is_carons_closed_form():
    """Our four-face pyramid, inscribed, is Caron's |f_x|, |f_y| <= mu' f_z with
    mu' = mu cos(pi/4); the rectangle is off the sole origin, so the closed form (about
    the centre c) acts on the wrench moved there, n_c = n - c x f."""
    mu = 0.7
    cone = contact.contact_wrench_cone(RECTANGLE, mu, cone_facets=4)
    (x0, y0), (x1, y1) = RECTANGLE.min(axis=0), RECTANGLE.max(axis=0)
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2, 0.0])
    shift = np.eye(6)
    shift[:3, 3:] = -spatial.skew(c)  # (n, f) -> (n - c x f, f)
    caron = _caron_rows((x1 - x0) / 2, (y1 - y0) / 2, mu * math.cos(math.pi / 4)) @ shift
    assert cone.face.shape == (16, 6)
    unit = lambda rows: rows / np.linalg.norm(rows, axis=1, keepdims=True)  # noqa: E731
    match = unit(cone.face) @ unit(caron).T
    # one row of the closed form for each face, and no other
    assert np.all(np.isclose(match, 1.0, atol=1e-12).sum(axis=1) == 1)
    assert np.all(np.isclose(match, 1.0, atol=1e-12).sum(axis=0) == 1)
    rng = np.random.default_rng(11)
    inside = 0
    for w in _random_wrenches(rng, RECTANGLE, mu * math.cos(math.pi / 4), 200):
        tol = 1e-12 * np.linalg.norm(w)  # some lie on a face (a corner left unloaded)
        ours, theirs = np.all(cone.face @ w <= tol), np.all(caron @ w <= tol)
        assert ours == theirs
        inside += bool(ours)
    assert 40 <= inside <= 160


# ---------------------------------------------------------------------------
# What the old necessary condition let through
# ---------------------------------------------------------------------------


def test_a_free_moment_with_the_centre_of_pressure_at_a_corner_is_refused():
    """All the pressure at a corner p: the weights of the vertex forces, f_z,v >= 0 with
    sum_v f_z,v p_v = f_z p, can only be (0, ..., f_z, ..., 0), so the force acts at the
    corner alone and its moment about the corner vanishes: no free moment.  The old rows
    (pyramid, centre of pressure in the sole, |n_z - c_x f_y + c_y f_x| <= mu R f_z about
    the sole's centre c, R its largest corner distance) admit half that bound."""
    mu, F = 0.8, 600.0
    p = RECTANGLE[2]
    c = RECTANGLE.mean(axis=0)
    R = np.linalg.norm(RECTANGLE - c, axis=1).max()
    free = 0.5 * mu * R * F
    w = np.array([p[1] * F, -p[0] * F, free, 0.0, 0.0, F])  # f = (0, 0, F) at p, plus n_z
    # the old rows hold: centre of pressure (-n_y, n_x)/f_z = p, no shear, and the bound
    assert np.allclose([-w[1] / F, w[0] / F], p)
    assert abs(w[2] - (c[0] * w[4] - c[1] * w[3])) <= mu * R * w[5]
    cone = contact.contact_wrench_cone(RECTANGLE, mu)
    assert np.any(cone.face @ w > 1e-3 * F)  # refused, by a clear margin
    assert not vertex_forces_hold(w, RECTANGLE, mu, 16)
    refused = [cone.family[j] for j in np.flatnonzero(cone.face @ w > 0)]
    assert set(refused) == {"torsion"}  # friction and support hold: the moment is too much
    w[2] = 0.0  # without the free moment it is admissible
    assert np.all(cone.face @ w <= 1e-9 * F)


# ---------------------------------------------------------------------------
# The programs on planted feet
# ---------------------------------------------------------------------------


def _block(mass=50.0, com=(0.075, 0.0, 0.4)):
    """A rigid block on a free flyer, one sole frame at the origin."""
    body = inertia.spatial_inertia(mass, com, np.diag([2.0, 1.5, 1.0]))
    model = tree.Tree([-1], [tree.FREE_FLYER], [np.eye(4)], [body])
    return model, [(0, np.eye(4))]


def _largest_twist(polygon, mu, load, centre):
    """The largest n_z (about the centre of pressure) that vertex forces in the pyramid give
    with f = (0, 0, load) through ``centre``: a linear program on the definition."""
    V = len(polygon)
    A_eq = np.zeros((5, 3 * V))
    for v, (x, y) in enumerate(polygon):
        x, y = x - centre[0], y - centre[1]
        A_eq[0, 3 * v + 2], A_eq[1, 3 * v + 2] = y, -x
        A_eq[2:, 3 * v : 3 * v + 3] = np.eye(3)
    objective = np.zeros(3 * V)
    for v, (x, y) in enumerate(polygon):
        objective[3 * v], objective[3 * v + 1] = y - centre[1], -(x - centre[0])  # -n_z
    a = 2 * np.pi * np.arange(16) / 16
    pyramid = np.c_[np.cos(a), np.sin(a), -mu * np.cos(np.pi / 16) * np.ones(16)]
    lp = linprog(
        objective,
        A_ub=np.kron(np.eye(V), np.r_[pyramid, [[0, 0, -1.0]]]),
        b_ub=np.zeros(17 * V),
        A_eq=A_eq,
        b_eq=[0, 0, 0, 0, load],
        bounds=(None, None),
        method="highs",
    )
    assert lp.status == 0
    return -lp.fun


def test_a_block_twisting_on_one_foot_is_refused_by_a_torsion_face():
    """The block's centre of mass above the sole's centre, its yaw acceleration about the
    vertical through it: the foot must give the weight through the sole's centre and a
    moment I_zz alpha about the normal.  Admissible up to the largest twist of the vertex
    forces (a linear program here), refused above, and the torsion face is named."""
    model, sole = _block()
    mu, mg = 0.8, 50.0 * G
    limit = _largest_twist(RECTANGLE, mu, mg, RECTANGLE.mean(axis=0))
    r = np.array([0.075, 0.0, 0.4])  # the centre of mass in the body
    alpha = np.array([0.97, 1.03]) * limit / 1.0  # rad/s^2, I_zz = 1 kg m^2
    a = np.zeros((2, 6))
    a[:, 2] = alpha
    a[:, 3:] = -np.cross(a[:, :3], r)  # the centre of mass does not accelerate
    q, v = tree.neutral(model), np.zeros(6)
    ok = contact.contact_inverse_dynamics(model, sole, q, v, a[:1], mu, RECTANGLE)
    np.testing.assert_allclose(ok.wrench_sole[0, 0, 2], alpha[0], rtol=1e-9)
    with pytest.raises(InfeasibleContactError) as caught:
        contact.contact_inverse_dynamics(model, sole, q, v, a, mu, RECTANGLE)
    assert caught.value.sample == (1,) and caught.value.family == "torsion"
    assert "torsion faces decide" in str(caught.value)
    # the old bound mu R f_z is necessary: here, a pure twist about the sole's centre, it
    # is within 2 % of the exact limit (it is the corner loads off the centre it misses)
    R = np.linalg.norm(RECTANGLE - RECTANGLE.mean(axis=0), axis=1).max()
    assert 0.98 * mu * R * mg < limit <= mu * R * mg


def test_feet_with_different_polygons_get_their_own_cones():
    """A block on a rectangle and a trapezoid (different numbers of torsion faces: the
    shorter list is padded with rows 0 <= 0); each foot's answer lies in its own cone by
    the vertex-force program, and a sideways push beyond the friction is reported on a
    friction face."""
    body = inertia.spatial_inertia(50.0, (0.05, 0.0, 0.05), np.diag([2.0, 1.5, 1.0]))
    model = tree.Tree([-1], [tree.FREE_FLYER], [np.eye(4)], [body])
    soles = [(0, spatial.pose(np.eye(3), [0.0, y, 0.0])) for y in (0.15, -0.15)]
    trapezoid = np.array([[-0.06, -0.03], [0.2, -0.06], [0.2, 0.06], [-0.06, 0.03]])
    polygons = np.stack([RECTANGLE, trapezoid])
    faces = [len(contact.contact_wrench_cone(P, 0.8).face) for P in polygons]
    assert faces[0] != faces[1]
    a = np.zeros((3, 6))
    a[:, 2] = [0.0, 4.0, 0.0]  # rad/s^2: a twist
    a[:, 4] = [0.5, 0.0, 9.0]  # m/s^2 sideways, the last beyond friction
    q, v = tree.neutral(model), np.zeros(6)
    result = contact.contact_inverse_dynamics(model, soles, q, v, a[:2], 0.8, polygons)
    assert result.violation.max() < 1e-12 and result.kkt_residual.max() < 1e-12
    for k in range(2):
        for foot in range(2):
            w = result.wrench_sole[k, foot]
            assert vertex_forces_hold(w, polygons[foot], 0.8 * (1 + 1e-9), 16)
    with pytest.raises(InfeasibleContactError) as caught:
        contact.contact_inverse_dynamics(model, soles, q, v, a, 0.8, polygons)
    assert caught.value.sample == (2,) and caught.value.family == "friction"


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        (([[0, 0], [1, 1], [1, 0], [0, 1]], 0.8), ValueError, "^support_polygon"),
        (([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5]], 0.8), ValueError, "^support_polygon"),
        (([[0, 0, 0], [1, 0, 0], [1, 1, 0]], 0.8), ValueError, "^support_polygon"),
        (([RECTANGLE, RECTANGLE], 0.8), ValueError, "^support_polygon: expected one polygon"),
        ((RECTANGLE, -0.1), ValueError, "^friction_coefficient"),
        ((RECTANGLE, [0.8, 0.8]), ValueError, "^friction_coefficient: expected a scalar"),
        ((RECTANGLE, None), TypeError, "^friction_coefficient"),
        ((RECTANGLE, np.inf), ValueError, "^friction_coefficient"),
        ((None, 0.8), TypeError, "^support_polygon"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(arguments, error, message):
    with pytest.raises(error, match=message):
        contact.contact_wrench_cone(*arguments)


def test_bad_facets_are_refused():
    with pytest.raises(ValueError, match="^cone_facets"):
        contact.contact_wrench_cone(RECTANGLE, 0.8, cone_facets=2)
    with pytest.raises(TypeError, match="^cone_facets"):
        contact.contact_wrench_cone(RECTANGLE, 0.8, cone_facets=4.0)


# ---------------------------------------------------------------------------
# The linear programs on a resultant: the cone's two forms agree
# ---------------------------------------------------------------------------


def _stance():
    return np.stack(
        [
            spatial.pose(spatial.rot_z(0.3), [0.05, 0.2, 0.0]),
            spatial.pose(spatial.rot_z(-0.1), [-0.02, -0.18, 0.0]),
        ]
    )


def test_least_friction_and_least_violation_agree_across_the_cones_two_forms():
    """least_friction works on the vertex forces, least_violation on the cone's faces:
    the witness of the first lies in the faces at its coefficient, and the second changes
    sign between the bracket's ends."""
    rng = np.random.default_rng(5)
    T = _stance()
    for _ in range(6):
        wrench = np.r_[rng.normal(scale=[30.0, 30.0, 40.0]), rng.normal(scale=150.0, size=2), 700.0]
        least = contact.least_friction(T, wrench, RECTANGLE, rtol=1e-4)
        mu = float(least.friction_coefficient)
        assert np.isfinite(mu) and mu > 0
        for foot in range(2):
            cone = contact.contact_wrench_cone(RECTANGLE, mu)
            w = least.wrench[foot]
            assert np.all(cone.face @ w <= 1e-6 * np.linalg.norm(w))
        np.testing.assert_allclose(contact.foot_resultant(T, least.wrench), wrench, atol=1e-6)
        above = contact.least_violation(T, wrench, mu * (1 + 1e-3), RECTANGLE)
        below = contact.least_violation(T, wrench, float(least.infeasible_coefficient), RECTANGLE)
        assert above <= 1e-9 < below


def test_least_violation_measures_a_centre_of_pressure_beyond_the_toes():
    """One level foot (the resultant fixes its wrench): the centre of pressure d beyond
    the toe edge x = 0.21 m violates that edge's row by F d, over the length scale."""
    T = spatial.pose(np.eye(3), [0.0, 0.0, 0.0])[None]
    F, d = 500.0, 0.03
    w = [0, -F * (0.21 + d), 0, 0, 0, F]  # centre of pressure (0.24, 0)
    t = contact.least_violation(T, w, 0.8, RECTANGLE, length_scale=0.1)
    assert t == pytest.approx(F * d / 0.1, rel=1e-9)
    with pytest.raises(ValueError, match="^length_scale"):
        contact.least_violation(T, w, 0.8, RECTANGLE, length_scale=-0.1)
