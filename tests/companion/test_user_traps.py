"""The traps a new user fell into, each now met by a warning or an error that names the fix.

A student built a planar three-link arm from the README and the docstrings alone.  Every
number was right except where the package accepted a mistake silently: gravity along the
joint axes (zero holding torques, an arm that does not fall), angles in degrees, an
inertia about the joint given as central (M 15 % too large).  Errors for malformed input
now name the body and the likely cause.  Each test feeds one trap.
"""

import re
import warnings

import numpy as np
import pytest

from geomotion import inertia, integrators, models, spatial, tree, verification
from geomotion.integrators import study

LENGTHS = np.array([0.30, 0.27, 0.19])  # m
MASSES = np.array([2.0, 1.2, 0.5])  # kg
RADIUS = 0.02  # m
IN_PLANE = (0.0, -9.81, 0.0)


def rod_central(mass, length):
    """m(3r^2 + L^2)/12 across, m r^2/2 along x: a solid rod, written out by hand."""
    across = mass * (3 * RADIUS**2 + length**2) / 12
    return np.diag([mass * RADIUS**2 / 2, across, across])


def arm_arguments():
    """The student's planar arm in the x-y plane, z hinges, frames on the joints."""
    placements = [np.eye(4)] + [spatial.pose(np.eye(3), [L, 0.0, 0.0]) for L in LENGTHS[:2]]
    inertias = [
        inertia.spatial_inertia(m, [L / 2, 0, 0], rod_central(m, L))
        for m, L in zip(MASSES, LENGTHS)
    ]
    return dict(
        parents=[-1, 0, 1],
        joints=[tree.REVOLUTE_Z] * 3,
        placements=placements,
        inertias=inertias,
    )


def no_warning(build):
    """Run ``build()`` and require that it warns about nothing; return its result."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return build()


# ---------------------------------------------------------------------------
# Trap 1: the default gravity along the joint axes of a planar model
# ---------------------------------------------------------------------------


def test_a_planar_model_under_the_unset_default_gravity_warns_and_names_the_fix():
    with pytest.warns(tree.GravityWarning, match=re.escape("gravity=(0, -9.81, 0)")):
        floating = tree.Tree(**arm_arguments())
    # What the warning is about: with gravity along the hinges nothing holds or falls.
    np.testing.assert_array_equal(tree.bias_forces(floating, [0.3, -0.5, 0.8], np.zeros(3)), 0.0)


def test_an_explicit_gravity_says_it_is_meant_and_silences_the_warning():
    horizontal = no_warning(lambda: tree.Tree(**arm_arguments(), gravity=(0.0, 0.0, -9.81)))
    np.testing.assert_array_equal(horizontal.gravity, [0.0, 0.0, -9.81])
    vertical = no_warning(lambda: tree.Tree(**arm_arguments(), gravity=IN_PLANE))
    # Holding torques at the stretched-out pose, by hand: g times each joint's moment of the
    # weights beyond it, lever arms along x.
    centres = np.array([0.15, 0.30 + 0.135, 0.57 + 0.095])
    joints = np.array([0.0, 0.30, 0.57])
    by_hand = [9.81 * np.sum(MASSES[i:] * (centres[i:] - joints[i])) for i in range(3)]
    np.testing.assert_allclose(
        tree.bias_forces(vertical, np.zeros(3), np.zeros(3)), by_hand, rtol=1e-14
    )


def test_models_on_which_the_default_gravity_works_build_without_a_warning():
    no_warning(models.humanoid_upper_body)
    no_warning(lambda: models.random_tree(5, rng=3))


def test_every_gravity_user_defaults_to_the_models_gravity():
    arm = tree.Tree(**arm_arguments(), gravity=IN_PLANE)
    q, qd = np.array([0.3, -0.5, 0.8]), np.array([0.2, 0.1, -0.4])
    np.testing.assert_array_equal(
        tree.bias_forces(arm, q, qd), tree.bias_forces(arm, q, qd, gravity=IN_PLANE)
    )
    # Potential energy: minus g . (sum m_k c_k), with the centres by hand at q = 0 (all on x).
    np.testing.assert_allclose(tree.potential_energy(arm, np.zeros(3)), 0.0, atol=1e-15)
    lifted = tree.potential_energy(arm, [np.pi / 2, 0.0, 0.0])  # arm straight up
    np.testing.assert_allclose(lifted, 9.81 * np.sum(MASSES * [0.15, 0.435, 0.665]), rtol=1e-14)
    # The integrators too: from rest the arm falls, and releases potential energy.
    fall = integrators.simulate(arm, q, np.zeros(3), 1e-3, 50)
    assert fall.potential[-1] < fall.potential[0] - 1e-3
    # A per-call gravity still overrides the model's (a sweep over slopes, one per state).
    slopes = np.array([IN_PLANE, (0.0, 0.0, -9.81)])
    swept = tree.bias_forces(arm, q, np.zeros(3), gravity=slopes)
    np.testing.assert_array_equal(swept[1], 0.0)
    np.testing.assert_array_equal(swept[0], tree.bias_forces(arm, q, np.zeros(3)))


def test_a_bad_gravity_at_construction_names_the_argument():
    with pytest.raises(ValueError, match=r"gravity: expected a vector of shape \(3,\)"):
        tree.Tree(**arm_arguments(), gravity=(0.0, -9.81))
    with pytest.raises(ValueError, match="gravity: expected finite"):
        tree.Tree(**arm_arguments(), gravity=(0.0, np.nan, 0.0))


# ---------------------------------------------------------------------------
# Trap 2: angles in degrees
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("rotation", [spatial.rot_x, spatial.rot_y, spatial.rot_z])
def test_an_angle_beyond_one_turn_warns_and_suggests_radians(rotation):
    with pytest.warns(spatial.AngleWarning, match=re.escape("np.radians(30)")):
        rotation(30)
    with pytest.warns(spatial.AngleWarning, match=re.escape("np.radians(-400)")):
        rotation([0.1, -400.0])  # the worst entry of a batch is the one named
    no_warning(lambda: rotation(np.radians(30)))
    no_warning(lambda: rotation(2 * np.pi))  # one full turn is still a turn


# ---------------------------------------------------------------------------
# Trap 3: an inertia about the joint passed as central
# ---------------------------------------------------------------------------


def test_an_inertia_about_the_joint_passed_as_central_warns():
    m, L = 2.0, 0.30
    about_joint = rod_central(m, L) + m * (L / 2) ** 2 * np.diag([0.0, 1.0, 1.0])
    with pytest.warns(inertia.InertiaFrameWarning, match="spatial_inertia_about_origin"):
        inertia.spatial_inertia(m, [L / 2, 0, 0], about_joint)
    no_warning(lambda: inertia.spatial_inertia(m, [L / 2, 0, 0], rod_central(m, L)))
    no_warning(
        lambda: inertia.spatial_inertia(m, [L / 2, 0, 0], about_joint, warn_if_about_origin=False)
    )


def test_what_the_inertia_trap_costs_and_the_constructor_that_avoids_it():
    right = tree.Tree(**arm_arguments(), gravity=IN_PLANE)
    about_joint = [
        rod_central(m, L) + m * (L / 2) ** 2 * np.diag([0.0, 1.0, 1.0])
        for m, L in zip(MASSES, LENGTHS)
    ]
    wrong_inertias = [
        inertia.spatial_inertia(m, [L / 2, 0, 0], I, warn_if_about_origin=False)
        for m, L, I in zip(MASSES, LENGTHS, about_joint)
    ]
    wrong = tree.Tree(**{**arm_arguments(), "inertias": wrong_inertias}, gravity=IN_PLANE)
    q = [0.3, -0.5, 0.8]
    excess = tree.crba(wrong, q)[0, 0] / tree.crba(right, q)[0, 0] - 1
    assert 0.14 < excess < 0.15  # what the student saw: M 14-15 % too large
    fixed = [
        inertia.spatial_inertia_about_origin(m, [L / 2, 0, 0], I)
        for m, L, I in zip(MASSES, LENGTHS, about_joint)
    ]
    np.testing.assert_allclose(fixed, right.inertias, rtol=0, atol=1e-15)


def test_an_inertia_about_the_origin_too_small_for_its_offset_is_refused():
    m, L = 2.0, 0.30
    with pytest.raises(
        ValueError, match=r"inertia_origin: .* for body 1, .*already about the centre"
    ):
        inertia.spatial_inertia_about_origin(
            [m, m],
            [[L / 2, 0, 0]] * 2,
            [rod_central(m, L) + m * (L / 2) ** 2 * np.diag([0, 1, 1]), rod_central(m, L)],
        )
    with pytest.raises(ValueError, match="warn_if_about_origin: expected True or False"):
        inertia.spatial_inertia(m, [L / 2, 0, 0], rod_central(m, L), warn_if_about_origin="no")


# ---------------------------------------------------------------------------
# Errors that name the body and the fix
# ---------------------------------------------------------------------------


def test_a_transposed_pose_is_recognised_and_its_body_named():
    arguments = arm_arguments()
    arguments["placements"][1] = arguments["placements"][1].T
    with pytest.raises(ValueError, match=r"\(body 1\)\. It looks transposed .* last column"):
        tree.Tree(**arguments, gravity=IN_PLANE)


def test_a_rotation_rounded_by_hand_is_recognised_and_its_body_named():
    arguments = arm_arguments()
    arguments["placements"][2] = arguments["placements"][2].copy()
    arguments["placements"][2][:3, :3] = [[0.866, -0.5, 0], [0.5, 0.866, 0], [0, 0, 1]]
    with pytest.raises(ValueError, match=r"\(body 2\)\. It is close to a rotation.*rot_z"):
        tree.Tree(**arguments, gravity=IN_PLANE)


def test_a_reflection_is_told_apart_from_a_rounded_rotation():
    with pytest.raises(ValueError, match=r"R: .*It is a reflection \(det R = -1\)"):
        spatial.pose(np.diag([1.0, 1.0, -1.0]), np.zeros(3))


def test_a_linear_first_inertia_is_diagnosed():
    arguments = arm_arguments()
    order = [3, 4, 5, 0, 1, 2]
    arguments["inertias"][1] = arguments["inertias"][1][np.ix_(order, order)]
    with pytest.raises(ValueError, match=r"body 1 .*linear-first .*Pinocchio"):
        tree.Tree(**arguments, gravity=IN_PLANE)
    # The public decoder gives the same diagnosis.
    with pytest.raises(ValueError, match="linear-first"):
        inertia.mass_properties(arguments["inertias"][1])


def test_whole_number_floats_count_and_other_floats_are_refused():
    arm = tree.Tree(**arm_arguments(), gravity=IN_PLANE)
    dt = 0.01
    run = integrators.simulate(arm, np.zeros(3), np.zeros(3), dt, 0.1 / dt)  # 10.000000000000002
    assert run.t.size == 11
    with pytest.raises(ValueError, match=r"n_steps: expected a whole number >= 1, got 33\.3"):
        integrators.simulate(arm, np.zeros(3), np.zeros(3), 0.003, 0.1 / 0.003)
    with pytest.raises(TypeError, match="n_steps: expected an integer >= 1, got True"):
        integrators.simulate(arm, np.zeros(3), np.zeros(3), dt, True)
    with pytest.raises(ValueError, match="n_states: expected an integer >= 1"):
        verification.particle_energy_comparison(arm, n_states=0.0)
    assert verification.particle_energy_comparison(arm, n_states=4.0).particle_energy.shape == (4,)
    with pytest.raises(ValueError, match="steps: expected a whole number"):
        study.step_size_study(None, None, None, None, 1.0, steps=[10, 20.5])


def test_a_tree_prints_as_one_short_line():
    text = repr(tree.Tree(**arm_arguments(), gravity=IN_PLANE))
    assert text == (
        "Tree(N=3, joints=['revolute', 'revolute', 'revolute'], masses=[2.0, 1.2, 0.5] kg, "
        "parents=[-1, 0, 1], gravity=[0.0, -9.81, 0.0] m/s^2)"
    )
    screws = [tree.PRISMATIC_X, [0, 0, 1.0, 0, 0, 0.1]]  # a slider, then a helical joint
    body = inertia.spatial_inertia(1.0, [0.1, 0, 0], np.diag([0.01, 0.02, 0.03]))
    mixed = tree.Tree([-1, 0], screws, [np.eye(4)] * 2, [body] * 2)
    assert "joints=['prismatic', 'helical']" in repr(mixed)


# ---------------------------------------------------------------------------
# An everyday tool that was missing: the velocity of a point
# ---------------------------------------------------------------------------


def test_point_velocity_matches_a_finite_difference_of_the_position():
    model = models.random_tree(6, rng=11)
    rng = np.random.default_rng(12)
    q, qd = rng.uniform(-np.pi, np.pi, (2, 6))
    point = [0.1, -0.2, 0.05]
    h = 1e-6
    ahead = tree.point_position(model, q + h * qd, 4, point)
    behind = tree.point_position(model, q - h * qd, 4, point)
    np.testing.assert_allclose(
        tree.point_velocity(model, q, qd, 4, point), (ahead - behind) / (2 * h), atol=1e-8
    )
    np.testing.assert_array_equal(tree.point_velocity(model, q, qd, -1, point), 0.0)
    batch = tree.point_velocity(model, np.stack([q, q]), qd, 4, point)
    assert batch.shape == (2, 3)
    with pytest.raises(ValueError, match=r"v: expected shape \(\.\.\., 6\)"):
        tree.point_velocity(model, q, qd[:3], 4, point)


def test_a_real_segment_about_its_joint_is_caught_and_its_central_inertia_is_not():
    # A forearm by de Leva's (1996) male proportions: 1.62 % of 73 kg, 0.2689 m long, centre
    # of mass 45.74 % from the elbow, radii of gyration 27.6, 26.5, 12.1 % of the length.
    m, L = 0.0162 * 73.0, 0.2689
    c = np.array([0.4574 * L, 0.0, 0.0])  # along the forearm, from the elbow
    central = m * (L * np.array([0.121, 0.276, 0.265])) ** 2 * np.eye(3)  # long axis x
    about_elbow = central + m * c[0] ** 2 * np.diag([0.0, 1.0, 1.0])
    no_warning(lambda: inertia.spatial_inertia(m, c, central))
    with pytest.warns(inertia.InertiaFrameWarning):
        inertia.spatial_inertia(m, c, about_elbow)
