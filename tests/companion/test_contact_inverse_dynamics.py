"""Whole-body inverse dynamics on planted feet (contact.contact_inverse_dynamics).

Independent checks: the feet's total wrench against Pinocchio's rate of the centroidal
momentum (computeCentroidalMomentumTimeVariation) minus the weight; the torques against
the recursive Newton-Euler algorithm with the foot wrenches applied as external forces;
a rigid block on two feet and a symmetric stance of chapter 2's legs solved by hand;
infeasible accelerations reported at the sample and with the condition a hand
calculation predicts; the friction threshold against contact.least_friction (a linear
program on the same contact-wrench cone, over the vertex forces rather than the cone's
faces) at a sample and along the 3-D golfer's downswing."""

import numpy as np
import pytest
from pin_trees import pin_q, pin_v_order, pinocchio_tree

from geomotion import constraints, contact, inertia, models, spatial, tree
from geomotion.errors import InfeasibleContactError

G = 9.81
FOOT = [[-0.1, -0.05], [0.15, -0.05], [0.15, 0.05], [-0.1, 0.05]]  # sole x, y [m]
WIDTH = 0.15  # the block's sole origins at y = +-WIDTH [m]


def _block(com=(0.025, 0.0, 0.4), mass=50.0):
    """A rigid block on a free flyer (no joints), its two sole frames at y = +-WIDTH."""
    body = inertia.spatial_inertia(mass, com, np.diag([2.0, 1.5, 1.0]))
    model = tree.Tree([-1], [tree.FREE_FLYER], [np.eye(4)], [body])
    soles = [(0, spatial.pose(np.eye(3), [0.0, y, 0.0])) for y in (WIDTH, -WIDTH)]
    return model, soles


def _block_accelerating(a_x, **block):
    """The block at rest at the origin, accelerating along x at each of ``a_x`` [m/s^2]."""
    model, soles = _block(**block)
    a = np.zeros((len(a_x), 6))
    a[:, 3] = a_x
    return model, soles, tree.neutral(model), np.zeros(6), a


@pytest.fixture(scope="module")
def golfer():
    return models.golfer(trail_grip="weld")


@pytest.fixture(scope="module")
def sway(golfer):
    """A short smooth motion of the golfer from the address, feet planted and hands on the
    club to first order: q(t) = q0 + s(t) z (the manifold's exponential), with z the
    least-norm velocity that keeps the feet and the grip closed and moves the pelvis
    towards the target at 1 m/s, s = A sin(wt); so v = s'(t) z and a = s''(t) z exactly.
    """
    model, q0 = golfer.model, golfer.q0
    closures = golfer.constraints(q0)
    pelvis = tree.frame_jacobian(model, q0, 0, np.eye(4), reference="local_world_aligned")
    rows = np.concatenate([c.jacobian(q0) for c in closures] + [pelvis[3:5]])
    z = np.linalg.lstsq(rows, np.r_[np.zeros(len(rows) - 2), 0.0, 1.0], rcond=None)[0]
    t = np.linspace(0.0, 0.25, 11)
    amplitude, omega = 0.03, 3 * np.pi  # m, rad/s
    s = amplitude * np.sin(omega * t)
    q = tree.integrate(model, q0, z, s)
    v = np.outer(amplitude * omega * np.cos(omega * t), z)
    a = np.outer(-amplitude * omega**2 * np.sin(omega * t), z)
    feet = [golfer.frames["lead sole"], golfer.frames["trail sole"]]
    grip = closures[2]
    result = contact.contact_inverse_dynamics(
        model, feet, q, v, a, 0.8, golfer.sole_outline(), closures=[grip]
    )
    return q, v, a, feet, grip, result


# ---------------------------------------------------------------------------
# Independent checks
# ---------------------------------------------------------------------------


def test_foot_wrenches_give_pinocchios_centroidal_momentum_rate(golfer, sway):
    """Newton-Euler of the whole golfer about its centre of mass: the feet's wrench (the
    grip is internal) is the rate of the centroidal momentum minus the weight."""
    q, v, a, _, _, result = sway
    model = golfer.model
    pin, peer = pinocchio_tree(model, golfer.frames)
    peer.gravity.linear = np.array(model.gravity)
    order = pin_v_order(model)
    weight = model.masses.sum() * np.array(model.gravity)
    for k in range(len(q)):
        data = peer.createData()
        rate = pin.computeCentroidalMomentumTimeVariation(
            peer, data, pin_q(model, q[k]), v[k, order], a[k, order]
        )
        com = data.com[0]
        n_O, f = result.resultant[k, :3], result.resultant[k, 3:]
        about_com = np.r_[n_O - np.cross(com, f), f]
        expected = np.r_[rate.angular, rate.linear - weight]
        np.testing.assert_allclose(about_com, expected, rtol=0, atol=1e-12 * np.abs(expected).max())
    assert np.abs(result.resultant[:, 3:5]).max() > 100.0  # N: a dynamic load, not the weight


def test_rnea_with_the_foot_wrenches_applied_returns_the_torques(golfer, sway):
    q, v, a, feet, grip, result = sway
    model = golfer.model
    f_ext = np.zeros((len(q), model.num_bodies, 6))
    for k, frame in enumerate(feet):  # sole wrench -> the foot's frame
        f_ext[:, frame.body] += result.wrench_sole[:, k] @ spatial.force_transform(frame.pose).T
    load = tree.rnea(model, q, v, a, f_ext=f_ext)
    load -= np.einsum("kci,kc->ki", grip.jacobian(q), result.multiplier)
    scale = np.abs(result.tau).max()
    np.testing.assert_allclose(load[:, :6], 0.0, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(load[:, 6:], result.tau, rtol=0, atol=1e-12 * scale)


def test_the_certificate_is_at_rounding_and_conditions_bind(golfer, sway):
    """Every sample certified to rounding, while some feet sit on an edge of their sole or
    at their torsion bound (the inequalities act; the answer is not the unconstrained one)."""
    _, _, _, feet, _, result = sway
    for name in ("equation_residual", "violation", "kkt_residual"):
        assert getattr(result, name).max() < 1e-13, name
    check = contact.foot_contacts(
        np.stack([f.world_pose(golfer.model, sway[0]) for f in feet], axis=1),
        result.wrench_sole,
        0.8,
        golfer.sole_outline(),
    )
    assert np.all(check.within_friction_cone & (check.support_margin > -1e-9))
    assert np.abs(check.support_margin).min() < 1e-9  # a centre of pressure on an edge
    assert np.allclose(check.cop_world, result.cop_world, atol=1e-12)


def test_a_rigid_block_shares_its_weight_as_the_balance_term_says():
    """No joints: the balance term alone chooses.  With the centre of mass e off the feet's
    midline, minimizing sum_k (f_z,k^2 + n_x,k^2 / l^2) under f_1 + f_2 = mg and
    D (f_1 - f_2) + n_1 + n_2 = mg e gives f_1,2 = mg/2 +- D c, n = l^2 c, with
    c = (mg e / 2) / (D^2 + l^2); every other component vanishes, the centre of pressure
    along the foot is under the centre of mass."""
    for e in (0.0, 0.04):
        model, soles = _block(com=(0.025, e, 0.4))
        zero = np.zeros(6)
        result = contact.contact_inverse_dynamics(
            model, soles, tree.neutral(model), zero, zero, 0.8, FOOT
        )
        mg = 50.0 * G
        ell = np.sqrt(np.mean(np.sum((np.array(FOOT) - np.mean(FOOT, axis=0)) ** 2, axis=1)))
        c = (mg * e / 2) / (WIDTH**2 + ell**2)
        expected = np.zeros((2, 6))
        expected[:, 5] = mg / 2 + WIDTH * c, mg / 2 - WIDTH * c
        expected[:, 0] = ell**2 * c
        expected[:, 1] = -0.025 * expected[:, 5]  # x_c = 0.025 m, under the centre of mass
        np.testing.assert_allclose(result.wrench_sole, expected, rtol=0, atol=1e-10 * mg)
        assert result.tau.shape == (0,) and result.multiplier.shape == (0,)


def test_a_symmetric_stance_carries_half_the_weight_on_each_foot():
    """Chapter 2's legs standing still, mirror-symmetric: the (unique) answer is the mirror
    of itself, so each foot carries half the weight, the centres of pressure lie at the
    same distance along the feet, under the centre of mass (moment balance), and the
    sideways forces are opposite."""
    legs = models.legs_and_pelvis()
    feet = [legs.soles["left"], legs.soles["right"]]
    zero = np.zeros(legs.model.nv)
    mg = legs.model.masses.sum() * G
    com = tree.center_of_mass(legs.model, legs.q0)
    for balance in (1.0, 0.0):  # the legs' torques alone decide too
        result = contact.contact_inverse_dynamics(
            legs.model, feet, legs.q0, zero, zero, 0.8, FOOT, balance=balance
        )
        np.testing.assert_allclose(result.vertical_force, mg / 2, rtol=1e-12)
        np.testing.assert_allclose(result.cop_world[:, 0], com[0], rtol=0, atol=1e-12)
        left, right = result.wrench_world
        np.testing.assert_allclose(left[4], -right[4], rtol=0, atol=1e-9 * mg)
        np.testing.assert_allclose(left[3], right[3], rtol=0, atol=1e-9 * mg)
        assert np.all(result.cop_sole[:, 0] > 0.0)  # ahead of the ankle, above the origin


# ---------------------------------------------------------------------------
# No admissible loads
# ---------------------------------------------------------------------------


def test_a_centre_of_pressure_behind_the_heels_is_reported_at_its_sample():
    """Accelerating forward at a, the block needs its centre of pressure h a / g behind its
    centre of mass (0.025 m ahead of the sole origins, 0.4 m up): behind the heels
    (x = -0.1 m) once a > 0.125 g / 0.4 = 3.07 m/s^2, first at the 8th sample."""
    a_x = np.arange(9) * 0.5
    model, soles, q, v, a = _block_accelerating(a_x)
    with pytest.raises(InfeasibleContactError) as caught:
        contact.contact_inverse_dynamics(model, soles, q, v, a, 2.0, FOOT)
    error = caught.value
    assert error.sample == (7,) and error.samples == ((7,), (8,))
    assert error.family == "support" and error.edge == 3  # vertex 3 -> 0: the heel
    assert error.foot in (0, 1) and error.violation > 0
    assert "sample (7,)" in str(error) and "support edge 3" in str(error)
    assert isinstance(error, ValueError)
    feasible = contact.contact_inverse_dynamics(model, soles, q, v, a[:7], 2.0, FOOT)
    assert feasible.cop_sole[6, :, 0].min() == pytest.approx(0.025 - 0.4 * 3.0 / G, abs=1e-9)


def test_too_little_friction_is_reported_at_its_sample_and_facet():
    """A low block (0.05 m) accelerating forward: the feet must push at m a along x with
    m g down, so the 16-face pyramid admits it while a / g <= mu cos(pi / 16): for
    mu = 0.5 up to 4.81 m/s^2, so the 6th sample (5 m/s^2) is the first to fail, on the
    face that points along x (facet 0)."""
    model, soles, q, v, a = _block_accelerating(np.arange(9.0), com=(0.025, 0.0, 0.05))
    with pytest.raises(InfeasibleContactError) as caught:
        contact.contact_inverse_dynamics(model, soles, q, v, a, 0.5, FOOT)
    assert caught.value.sample == (5,) and len(caught.value.samples) == 4
    assert (caught.value.family, caught.value.edge) == ("friction", 0)
    assert "friction facet 0" in str(caught.value)


def test_the_friction_threshold_is_least_frictions():
    """The legs standing, their pelvis accelerating forwards, sideways and in yaw, the
    feet's soles level (parallel): the least coefficient of the linear program on the
    same cone (over vertex forces) divides feasible from infeasible to 1e-5.  Just below
    it the free moments the yaw needs are what fails (the friction pyramid and the soles'
    edges alone still hold a thousandth below); a tenth below, the pyramid alone fails."""
    legs = models.legs_and_pelvis()
    model, q, feet = legs.model, legs.q0, [legs.soles["left"], legs.soles["right"]]
    v, a = np.zeros(model.nv), np.zeros(model.nv)
    a[[2, 3, 4]] = 2.0, 0.5, 0.5  # rad/s^2, m/s^2 in pelvis axes
    T_WS = np.stack([f.world_pose(model, q) for f in feet])
    pelvis = tree.forward_kinematics(model, q)[0]
    resultant = spatial.force_transform(pelvis) @ tree.rnea(model, q, v, a)[:6]
    mu = float(contact.least_friction(T_WS, resultant, FOOT, rtol=1e-8).friction_coefficient)
    assert 0.05 < mu < 0.2

    def solve(coefficient):
        return contact.contact_inverse_dynamics(model, feet, q, v, a, coefficient, FOOT)

    above = solve(mu * (1 + 1e-5))
    assert above.violation < 1e-15 and above.kkt_residual < 1e-13  # on a face, to rounding
    np.testing.assert_allclose(above.resultant, resultant, rtol=0, atol=1e-12 * 400.0)
    with pytest.raises(InfeasibleContactError) as caught:
        solve(mu * (1 - 1e-5))
    assert caught.value.family == "torsion" and "torsion faces decide" in str(caught.value)
    with pytest.raises(InfeasibleContactError) as caught:
        solve(mu * (1 - 1e-3))
    assert caught.value.family == "torsion"
    with pytest.raises(InfeasibleContactError) as caught:
        solve(mu * 0.9)
    assert caught.value.family == "friction" and "decide" not in str(caught.value)


def test_the_downswing_fails_where_least_friction_does(golf_ground):
    """Along the 3-D golfer's downswing (the trail hand welded to the club), with mu = 1:
    the program refuses exactly the samples at which the linear program of least_friction
    needs a coefficient above 1, the first of them is the first such sample, and where it
    answers the feet's total wrench is the ground wrench of models.ground_wrench."""
    golfer, down = golf_ground.golfer, golf_ground.downswing
    model = golfer.model
    feet = [golfer.frames["lead sole"], golfer.frames["trail sole"]]
    hand, club = golfer.frames["trail grip on hand"], golfer.frames["trail grip on club"]
    grip = constraints.frame_closure(model, club.body, club.pose, hand.body, hand.pose)

    def solve(samples):
        return contact.contact_inverse_dynamics(
            model,
            feet,
            down.q[samples],
            down.v[samples],
            down.a[samples],
            1.0,
            golfer.sole_outline(),
            closures=[grip],
        )

    with pytest.raises(InfeasibleContactError) as caught:
        solve(slice(None))
    (first,) = caught.value.sample
    refused = {s[0] for s in caught.value.samples}
    assert refused == set(np.flatnonzero(golf_ground.friction > 1.0).tolist())
    assert first == np.argmax(golf_ground.friction > 1.0) > 2
    kept = golf_ground.friction <= 1.0
    solved = solve(kept)
    scale = np.abs(solved.resultant).max()
    np.testing.assert_allclose(solved.resultant, golf_ground.resultant[kept], atol=1e-12 * scale)
    assert solved.kkt_residual.max() < 1e-12


# ---------------------------------------------------------------------------
# Options, batches and bad input
# ---------------------------------------------------------------------------


def test_options_act_as_documented():
    model, soles, q, v, a = _block_accelerating([0.0, 1.0], com=(0.025, 0.04, 0.4))
    base = contact.contact_inverse_dynamics(model, soles, q, v, a, 0.8, FOOT)
    assert base.normal_force.min() < 230.0  # the lighter foot, 209 N at rest
    floor = contact.contact_inverse_dynamics(
        model, soles, q, v, a, 0.8, FOOT, min_normal_force=230.0
    )
    assert floor.normal_force.min() >= 230.0 - 1e-9
    tilted = contact.contact_inverse_dynamics(model, soles, q, v, a, 0.8, FOOT, up=(0, 0, 2.0))
    np.testing.assert_allclose(tilted.vertical_force, base.vertical_force, rtol=1e-12)
    per_foot = contact.contact_inverse_dynamics(model, soles, q, v, a, [0.8, 0.8], FOOT)
    np.testing.assert_allclose(per_foot.wrench_sole, base.wrench_sole, rtol=0, atol=1e-10)


def test_batches_broadcast_like_single_calls():
    legs = models.legs_and_pelvis()
    feet = [legs.soles["left"], legs.soles["right"]]
    rng = np.random.default_rng(4)
    v = 0.1 * rng.standard_normal((2, 3, legs.model.nv))
    a = 0.5 * rng.standard_normal((2, 3, legs.model.nv))
    mu = np.array([[0.9], [1.0]])[..., None]  # per sample of the first axis
    batch = contact.contact_inverse_dynamics(legs.model, feet, legs.q0, v, a, mu, FOOT)
    assert batch.tau.shape == (2, 3, legs.model.nv - 6)
    assert batch.wrench_world.shape == (2, 3, 2, 6) and batch.violation.shape == (2, 3)
    for index in np.ndindex(2, 3):
        one = contact.contact_inverse_dynamics(
            legs.model, feet, legs.q0, v[index], a[index], mu[index[0], 0], FOOT
        )
        np.testing.assert_allclose(batch.tau[index], one.tau, rtol=0, atol=1e-9)
        assert one.equation_residual.shape == ()


def _call(**change):
    model, soles = _block()
    arguments = dict(
        model=model,
        contacts=soles,
        q=tree.neutral(model),
        v=np.zeros(6),
        a=np.zeros(6),
        friction_coefficient=0.8,
        support_polygon=FOOT,
    )
    options = {k: change.pop(k) for k in list(change) if k not in arguments}
    arguments.update(change)
    return contact.contact_inverse_dynamics(*arguments.values(), **options)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (dict(model="block"), TypeError, "^model: expected a geomotion.tree.Tree"),
        (dict(contacts="soles"), TypeError, "^contacts: expected a list"),
        (dict(contacts=[]), ValueError, "^contacts: expected at least one foot"),
        (dict(contacts=[(0, np.eye(4), 1)]), TypeError, r"^contacts\[0\]: expected a \(body"),
        (dict(contacts=[(1, np.eye(4))]), ValueError, r"^contacts\[0\] body"),
        (dict(contacts=[(0.0, np.eye(4))]), TypeError, r"^contacts\[0\] body"),
        (dict(contacts=[(0, 2 * np.eye(4))]), ValueError, r"^contacts\[0\] pose"),
        (dict(q=np.zeros(6)), ValueError, "^q"),
        (dict(a=None), TypeError, "^a"),
        (dict(friction_coefficient=-0.1), ValueError, "^friction_coefficient"),
        (
            dict(friction_coefficient=[0.8] * 3),
            ValueError,
            "^friction_coefficient: expected a feet",
        ),
        (dict(support_polygon=[[0, 0], [1, 1], [1, 0], [0, 1]]), ValueError, "^support_polygon"),
        (dict(strength=[1.0]), ValueError, r"^strength: expected shape \(\.\.\., 0\)"),
        (dict(balance=-1.0), ValueError, "^balance"),
        (dict(balance=0.0), ValueError, "^balance, closures: expected a strictly convex"),
        (dict(load_scale=0.0), ValueError, "^load_scale"),
        (dict(length_scale=[0.1, -0.1]), ValueError, "^length_scale"),
        (dict(closures=None), TypeError, "^closures: expected a list"),
        (dict(closures=[3.0]), TypeError, r"^closures\[0\]: expected a constraint"),
        (dict(min_normal_force=-1.0), ValueError, "^min_normal_force"),
        (dict(cone_facets=2), ValueError, "^cone_facets"),
        (dict(cone_facets=4.0), TypeError, "^cone_facets"),
        (dict(up=(0, 0, 0)), ValueError, "^up: expected a non-zero"),
        (dict(rtol=1.0), ValueError, r"^rtol: expected a value in \(0, 1\)"),
        (dict(rtol=0.0), ValueError, "^rtol"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(change, error, message):
    with pytest.raises(error, match=message):
        _call(**change)


def test_a_tree_without_a_floating_base_is_refused():
    arm = models.two_link_teaching_arm()
    with pytest.raises(ValueError, match="^model: expected body 0 to have a free-flyer joint"):
        contact.contact_inverse_dynamics(
            arm, [(1, np.eye(4))], [0.0, 0.0], [0, 0], [0, 0], 0.8, FOOT
        )


def test_a_weightless_model_needs_a_load_scale():
    model, soles = _block()
    weightless = tree.Tree(
        [-1], [tree.FREE_FLYER], [np.eye(4)], model.inertias, gravity=(0.0, 0.0, 0.0)
    )
    a = np.r_[0, 0, 0, 0, 0, 1.0]  # pushed up at 1 m/s^2: 50 N
    with pytest.raises(ValueError, match="^load_scale: the model has no weight"):
        contact.contact_inverse_dynamics(
            weightless, soles, tree.neutral(model), np.zeros(6), a, 0.8, FOOT
        )
    result = contact.contact_inverse_dynamics(
        weightless, soles, tree.neutral(model), np.zeros(6), a, 0.8, FOOT, load_scale=50.0
    )
    np.testing.assert_allclose(result.normal_force, 25.0, rtol=1e-12)


def test_closures_with_dependent_rows_are_refused(golfer):
    grip = golfer.constraints(golfer.q0)[2]
    feet = [golfer.frames["lead sole"], golfer.frames["trail sole"]]
    zero = np.zeros(golfer.model.nv)
    with pytest.raises(ValueError, match="^balance, closures: expected a strictly convex"):
        contact.contact_inverse_dynamics(
            golfer.model,
            feet,
            golfer.q0,
            zero,
            zero,
            0.8,
            golfer.sole_outline(),
            closures=[grip, grip],
        )
