"""Planted feet carry the body: frame-closure multipliers, foot wrenches and the weight.

The legs-and-pelvis model stands still at its stance with both feet welded to the ground.
With v = 0 and a = 0 the floating base's six equations of motion hold only if the feet
supply the six gravity rows, h_base = J_base^T lambda (joint torques act on the joints
only).  The foot wrenches made from lambda by ``FrameClosure.wrench`` must then add up,
about the centre of mass, to the weight turned upwards and no moment: an independent
check of the closure's multiplier convention, of ``wrench`` and of
``contact.foot_resultant``, because the weight and the centre of mass come from the body
masses alone.
"""

import numpy as np
import pytest

from geomotion import constraints, contact, models, tree


@pytest.fixture(scope="module")
def stance():
    legs = models.legs_and_pelvis()
    model, q = legs.model, legs.q0
    welds = legs.foot_welds(q)
    J = np.concatenate([w.jacobian(q) for w in welds])  # (12, nv)
    h = tree.bias_forces(model, q, np.zeros(model.nv))  # gravity only: v = 0
    # The free flyer's six rows, h_ff = J_ff^T lambda: the least-norm support.
    lam = np.linalg.lstsq(J[:, :6].T, h[:6], rcond=None)[0]
    sole_poses = np.stack([legs.soles[f].world_pose(model, q) for f in ("left", "right")])
    wrenches = np.stack([w.wrench(lam[6 * k : 6 * k + 6], on="a") for k, w in enumerate(welds)])
    return legs, lam, sole_poses, wrenches, J, h


def test_the_feet_carry_the_weight_through_the_centre_of_mass(stance):
    legs, lam, sole_poses, wrenches, J, h = stance
    model, q = legs.model, legs.q0
    np.testing.assert_allclose(J[:, :6].T @ lam, h[:6], atol=1e-9)  # the base is held
    mass = model.masses.sum()
    T = tree.forward_kinematics(model, q)
    com = np.einsum("k,kij,kj->i", model.masses, T[:, :3, :3], model.centers_of_mass)
    com = (com + model.masses @ T[:, :3, 3]) / mass
    total = contact.foot_resultant(sole_poses, wrenches, point=com)
    g = np.linalg.norm(model.gravity)
    np.testing.assert_allclose(total[3:], [0.0, 0.0, mass * g], atol=1e-8 * mass * g)
    np.testing.assert_allclose(total[:3], 0.0, atol=1e-8 * mass * g)


def test_each_foot_pushes_and_the_stance_is_feasible(stance):
    legs, lam, sole_poses, wrenches, J, h = stance
    sole = [[-0.06, -0.045], [0.21, -0.045], [0.21, 0.045], [-0.06, 0.045]]  # m, sole axes
    report = contact.foot_contacts(sole_poses, wrenches, 0.8, [sole, sole])
    assert report.loaded.all() and report.normal_force.min() > 0.0
    np.testing.assert_allclose(report.normal_force.sum(), report.resultant[5], rtol=1e-12)


def test_the_load_share_is_indeterminate(stance):
    legs, lam, sole_poses, wrenches, J, h = stance
    family = contact.foot_wrench_family(sole_poses, contact.foot_resultant(sole_poses, wrenches))
    assert family.basis.shape[-1] == 6  # 6K - 6 free directions for two feet
    other = family.member(np.linspace(-1.0, 1.0, 6) * 10.0)
    np.testing.assert_allclose(
        contact.foot_resultant(sole_poses, other),
        contact.foot_resultant(sole_poses, wrenches),
        atol=1e-9,
    )
    assert np.abs(other - wrenches).max() > 1.0


def test_wrench_on_a_and_b_are_opposite_and_checked():
    legs = models.legs_and_pelvis()
    weld = legs.foot_welds(legs.q0, feet=("left",))[0]
    lam = np.arange(6.0)
    np.testing.assert_array_equal(weld.wrench(lam, on="b"), -weld.wrench(lam, on="a"))
    point = constraints.frame_closure(
        legs.model, weld.body_a, weld.frame_a, -1, weld.frame_b, components="spherical"
    )
    np.testing.assert_array_equal(point.wrench([1.0, 2.0, 3.0], on="b"), [0, 0, 0, 1, 2, 3])
    with pytest.raises(ValueError, match=r"multiplier: expected shape \(\.\.\., 3\)"):
        point.wrench(lam)
    with pytest.raises(ValueError, match="on: expected 'a' or 'b'"):
        point.wrench([1.0, 2.0, 3.0], on="ground")
