"""The ground's resultant wrench on the 3-D golfer (models.ground_wrench) and the least
friction of a stance (contact.least_friction).

Independent checks: the ground wrench along the 3-D downswing against the rate of the
total spatial momentum (a second algorithm) and, at rest, against the weight through the
centre of mass; the least friction against a hand solution and against load_share_range."""

import numpy as np
import pytest

from geomotion import contact, models, spatial, tree


def test_ground_wrench_is_the_momentum_rate_minus_the_weight(golf_ground, golf_optimum):
    """Against central differences of the momentum on a motion sampled every 1.1 ms."""
    golfer = golf_ground.golfer
    down = models.golfer_downswing(
        golfer, golf_optimum.golfer, golf_optimum.optimum.downswing, samples=241
    )
    model = golfer.model
    R = models.ground_wrench(golfer, down.q, down.v, down.a)
    P = tree.spatial_momentum(model, down.q, down.v)  # about the world origin
    mass, com = model.masses.sum(), tree.center_of_mass(model, down.q)
    weight = np.array([0.0, 0.0, -9.81 * mass])
    gravity = np.concatenate([np.cross(com, weight), np.broadcast_to(weight, com.shape)], -1)
    dt = np.diff(down.t)
    rate = (P[2:] - P[:-2]) / (dt[1:] + dt[:-1])[:, None]
    assert np.abs(rate - gravity[1:-1] - R[1:-1]).max() < 1e-2 * np.abs(R).max()
    assert R[:, 5].max() > 1.2 * 9.81 * mass  # dynamic, not static


def test_at_rest_the_ground_carries_the_weight_through_the_centre_of_mass(golf_ground):
    golfer = golf_ground.golfer
    zero = np.zeros(golfer.model.nv)
    R = models.ground_wrench(golfer, golfer.q0, zero, zero)
    mass, com = golfer.model.masses.sum(), tree.center_of_mass(golfer.model, golfer.q0)
    club = golfer.parameters["club_mass"]
    assert mass == pytest.approx(golfer.parameters["body_mass"] + club, rel=1e-12)
    f = np.array([0.0, 0.0, 9.81 * mass])
    assert np.allclose(R, np.r_[np.cross(com, f), f], atol=1e-9)


def test_sole_outline_and_poses(golf_ground):
    golfer = golf_ground.golfer
    outline = golfer.sole_outline()
    L = golfer.parameters["lengths"]
    assert np.ptp(outline[:, 0]) == pytest.approx(L["foot"])
    assert np.ptp(outline[:, 1]) == pytest.approx(L["foot_width"])
    assert outline[0, 0] == pytest.approx(-L["heel_behind_ankle"])  # the heel behind the ankle
    soles = golfer.sole_poses()
    assert soles.shape == (2, 4, 4)
    assert np.allclose(soles[:, 2, 3], 0.0, atol=1e-9)  # on the ground
    assert soles[0, 1, 3] > 0 > soles[1, 1, 3]  # the lead foot on the target side


def test_sole_corners_are_the_outline_on_the_ground_where_the_feet_stand(golf_ground):
    """Independent of the poses' algebra: a flat rectangle of the foot's length and width on
    the ground, its heel-to-toe edges along each sole's own x axis (the lead foot's turned
    out from the trail foot's), and its centre where the outline's centre maps."""
    golfer = golf_ground.golfer
    L = golfer.parameters["lengths"]
    corners = golfer.sole_corners()
    assert corners.shape == (2, 4, 3)
    assert np.abs(corners[..., 2]).max() < 1e-12  # on the ground
    heel_to_toe = corners[:, 1] - corners[:, 0]  # outline order: heel, toe, toe, heel
    across = corners[:, 3] - corners[:, 0]
    np.testing.assert_allclose(np.linalg.norm(heel_to_toe, axis=1), L["foot"], rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(across, axis=1), L["foot_width"], rtol=1e-12)
    np.testing.assert_allclose(np.sum(heel_to_toe * across, axis=1), 0.0, atol=1e-12)
    poses = golfer.sole_poses()
    np.testing.assert_allclose(heel_to_toe / L["foot"], poses[:, :3, 0], atol=1e-12)
    centre = poses[:, :3, :3] @ np.r_[golfer.sole_outline().mean(axis=0), 0.0] + poses[:, :3, 3]
    np.testing.assert_allclose(corners.mean(axis=1), centre, atol=1e-12)
    lead, trail = (np.arctan2(d[1], d[0]) for d in heel_to_toe)
    assert abs(lead) > abs(trail) + np.radians(10)


def test_ground_wrench_refuses_a_tree():
    with pytest.raises(TypeError, match="^golfer: expected a models.Golfer"):
        models.ground_wrench(models.two_link_teaching_arm(), [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])


# ---------------------------------------------------------------------------
# contact.least_friction
# ---------------------------------------------------------------------------

FOOT = [[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]]
PYRAMID = np.cos(np.pi / 16)  # a load along a face normal of the 16-face pyramid


def _level_feet(width=0.3):
    return np.stack([spatial.pose(np.eye(3), [0.0, y, 0.0]) for y in (width / 2, -width / 2)])


@pytest.mark.parametrize("ratio", [0.1, 0.4, 1.3])
def test_least_friction_is_the_tangential_ratio_of_a_centred_load(ratio):
    """Level feet, the load through their midpoint: every foot may take the resultant's
    direction, so the least coefficient is |f_t|/f_z (over cos(pi/16) for the pyramid)."""
    least = contact.least_friction(
        _level_feet(), [0, 0, 0, ratio * 800.0, 0, 800.0], FOOT, rtol=1e-6
    )
    assert least.friction_coefficient * PYRAMID == pytest.approx(ratio, rel=2e-6)
    # The bracket: infeasible within rtol below, and a distribution at the answer that
    # carries the resultant with every vertex force in the pyramid (checked here by a
    # hand decomposition: each foot takes half, at its sole's centre).
    assert (1 - 1e-6) * least.friction_coefficient <= least.infeasible_coefficient
    assert least.infeasible_coefficient < least.friction_coefficient
    np.testing.assert_allclose(
        contact.foot_resultant(_level_feet(), least.wrench),
        [0, 0, 0, ratio * 800.0, 0, 800.0],
        atol=1e-6,
    )


def test_least_friction_agrees_with_load_share_range_on_either_side():
    rng = np.random.default_rng(3)
    T = np.stack(
        [
            spatial.pose(spatial.rot_z(0.3), [0.05, 0.2, 0.0]),
            spatial.pose(spatial.rot_z(-0.1), [-0.02, -0.18, 0.0]),
        ]
    )
    for _ in range(4):
        wrench = np.r_[rng.normal(scale=[30.0, 30.0, 20.0]), rng.normal(scale=120.0, size=2), 700.0]
        mu = float(contact.least_friction(T, wrench, FOOT, rtol=1e-4).friction_coefficient)
        assert np.isfinite(mu) and mu > 0
        above = contact.load_share_range(T, wrench, mu * (1 + 1e-3), FOOT)
        below = contact.load_share_range(T, wrench, mu * (1 - 1e-3), FOOT)
        assert bool(above.feasible) and not bool(below.feasible)


def test_least_friction_is_infinite_when_no_sharing_exists():
    T = _level_feet()
    pulling = [0, 0, 0, 10.0, 0, -800.0]  # the ground would have to pull
    beyond = [0, -800.0 * 0.5, 0, 0, 0, 800.0]  # centre of pressure 0.5 m ahead of the toes
    least = contact.least_friction(T, [pulling, beyond, [0, 0, 0, 0, 0, 800.0]], FOOT)
    mu = least.friction_coefficient
    assert np.isinf(mu[0]) and np.isinf(mu[1])
    assert mu[2] == 0.0  # no tangential load, no friction needed
    assert np.isnan(least.infeasible_coefficient).all()  # nothing refuted below
    assert np.isnan(least.wrench[:2]).all() and np.isfinite(least.wrench[2]).all()


def test_least_friction_batches_like_single_calls():
    T = _level_feet()
    wrenches = np.array([[0, 10.0, 0, 100.0, 50.0, 700.0], [5.0, 0, 0, -60.0, 0, 600.0]])
    batch = contact.least_friction(T, wrenches, FOOT)
    assert batch.friction_coefficient.shape == (2,) and batch.wrench.shape == (2, 2, 6)
    for k, w in enumerate(wrenches):
        one = contact.least_friction(T, w, FOOT)
        assert one.friction_coefficient == batch.friction_coefficient[k]
        assert one.infeasible_coefficient == batch.infeasible_coefficient[k]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(rtol=1.0), ValueError, "^rtol: expected a value in"),
        (dict(rtol=0.0), ValueError, "^rtol"),
        (dict(max_friction=0.0), ValueError, "^max_friction"),
        (dict(cone_facets=2), ValueError, "^cone_facets"),
        (dict(cone_facets=4.0), TypeError, "^cone_facets"),
        (dict(min_normal_force=-1.0), ValueError, "min_normal_force"),
    ],
)
def test_least_friction_refuses_bad_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        contact.least_friction(_level_feet(), [0, 0, 0, 0, 0, 800.0], FOOT, **kwargs)
