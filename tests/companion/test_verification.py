"""The independent checks must pass on correct algorithms and fail on broken ones.

The fast algorithms share compiled data, so the decisive tests here inject an error into
the arrays the compiled kernels read (a 1 % inertia error, a reversed joint rotation, a
transposed placement, a motion subspace longer than the joint's motion), for a few
configurations per call (one at a time), for a block of lanes and for several blocks,
and require every check to report it.
"""

import numpy as np
import pytest
from trees import random_spec, two_link_spec

from geomotion import figures, inertia, models, tree, verification
from geomotion.tree import _flat

# ---------------------------------------------------------------------------
# Hand derivations
# ---------------------------------------------------------------------------


def test_particle_energy_of_one_body_matches_the_hand_formula():
    arm = models.two_link_teaching_arm()
    # Only joint 1 turns: both links rotate rigidly about the base z axis at 1 rad/s.
    energy = verification.tree_particle_energy(arm, [0.0, 0.0], [1.0, 0.0])
    by_hand = 0.5 * (0.01 + 2.0 * 0.3**2) + 0.5 * (0.005 + 1.0 * 0.85**2)
    assert energy == pytest.approx(by_hand, rel=1e-14)


def test_particle_cloud_reproduces_each_body_centre_of_mass_in_the_base_frame():
    body = models.humanoid_upper_body()
    q = np.linspace(-0.3, 0.9, body.num_bodies)
    cloud = verification.tree_particle_cloud(body, q)
    assert cloud.shape == (body.num_bodies, 6, 3)
    T = tree.forward_kinematics(body, q)
    props = inertia.mass_properties(body.inertias)
    _, c, _ = props.mass, props.com, props.inertia_com
    expected = np.einsum("nij,nj->ni", T[:, :3, :3], c) + T[:, :3, 3]
    np.testing.assert_allclose(cloud.mean(axis=1), expected, rtol=0, atol=1e-15)


def two_link_closed_form_torques(q, qd, qdd, g):
    """The planar two-link arm's equations of motion, gravity along -y of the base.

    M from the chapter; Coriolis terms with h = m2 l1 lc2 sin q2 = 0.15 sin q2; gravity
    torques from U = g (m1 lc1 sin q1 + m2 (l1 sin q1 + lc2 sin(q1 + q2))).
    """
    q1, q2 = q
    c2, h = np.cos(q2), 0.15 * np.sin(q2)
    M = np.array([[0.6175 + 0.3 * c2, 0.0675 + 0.15 * c2], [0.0675 + 0.15 * c2, 0.0675]])
    coriolis = np.array([-h * (2 * qd[0] * qd[1] + qd[1] ** 2), h * qd[0] ** 2])
    gravity = g * np.array(
        [(2.0 * 0.3 + 1.0 * 0.6) * np.cos(q1) + 0.25 * np.cos(q1 + q2), 0.25 * np.cos(q1 + q2)]
    )
    return M @ qdd + coriolis + gravity


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_oracle_rnea_matches_the_two_link_closed_form(seed):
    arm = models.two_link_teaching_arm()
    q, qd, qdd = np.random.default_rng(seed).uniform(-2, 2, (3, 2))
    tau = tree.reference.rnea(arm, q, qd, qdd, gravity=(0.0, -9.81, 0.0))
    expected = two_link_closed_form_torques(q, qd, qdd, 9.81)
    # Achieved: 3.6e-15 N m on torques up to ~15 N m.
    np.testing.assert_allclose(tau, expected, rtol=0, atol=1e-14 * np.abs(expected).max())


def test_dense_solve_inverts_the_two_link_closed_form():
    arm = models.two_link_teaching_arm()
    q, qd, tau = np.array([0.3, -1.1]), np.array([0.7, 2.0]), np.array([1.5, -0.4])
    qdd = verification.forward_dynamics_by_dense_solve(arm, q, qd, tau, gravity=(0.0, -9.81, 0.0))
    np.testing.assert_allclose(
        two_link_closed_form_torques(q, qd, qdd, 9.81),
        tau,
        rtol=0,
        atol=5e-14,  # achieved 2e-15
    )


def test_reference_functions_broadcast_and_accept_a_batch_of_one():
    model = random_spec(np.random.default_rng(4), 5, "rph").tree()
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.normal(size=(3, 2, 3, 5))
    tau = tree.reference.rnea(model, q, qd[0, 0], qdd[:1])
    assert tau.shape == (2, 3, 5)
    np.testing.assert_allclose(
        tau[1, 2],
        tree.reference.rnea(model, q[1, 2], qd[0, 0], qdd[0, 2]),
        rtol=1e-14,
        atol=1e-14,
    )
    gravity = rng.normal(size=(3, 3))  # one gravity per configuration of a (2, 3) batch
    per_configuration = tree.reference.rnea(model, q, qd, qdd, gravity=gravity)
    np.testing.assert_allclose(
        per_configuration[0, 1],
        tree.reference.rnea(model, q[0, 1], qd[0, 1], qdd[0, 1], gravity=gravity[1]),
        rtol=1e-14,
        atol=1e-14,
    )
    one = verification.forward_dynamics_by_dense_solve(model, q[:1, 0], qd[:1, 0], qdd[:1, 0])
    assert one.shape == (1, 5)
    assert verification.mass_matrix_from_inverse_dynamics(model, q[0, 0]).shape == (5, 5)


# ---------------------------------------------------------------------------
# The checks pass on correct algorithms, on both fast paths
# ---------------------------------------------------------------------------

# States per call: one configuration at a time (fewer than 8), over lanes, and over
# lanes in more than one block.
ONE_BY_ONE, SMALL, LARGE = 5, 30, 120


def mixed_model():
    """Branched, two roots, not numbered depth-first, revolute, prismatic and helical joints."""
    return random_spec(np.random.default_rng(11), 9, "rph", roots=2).tree()


def helical_random_tree():
    """Numbered depth-first, with revolute, prismatic and helical joints."""
    return models.random_tree(8, rng=11, helical_fraction=0.2)


@pytest.mark.parametrize("n_states", [SMALL, LARGE])
@pytest.mark.parametrize("make", [mixed_model, helical_random_tree, models.humanoid_upper_body])
def test_tree_checks_pass_on_correct_algorithms(make, n_states):
    report = verification.tree_checks(make(), rng=np.random.default_rng(3), n_states=n_states)
    # Achieved: 6e-14 for the forward error of ABA (it carries cond M), 8e-15 or less for
    # the others (at most 1.3e-13 and 2.4e-14 over twelve random trees).
    assert report.max_relative_error() < 1e-12
    assert max(e for name, e in report.errors.items() if name != "ABA vs dense solve") < 2e-13
    assert set(report.errors) == EVERY_CHECK
    assert f"{n_states} random states of a {make().num_bodies}-body tree" in str(report)


def test_tree_checks_catch_a_wrong_mass_matrix(monkeypatch):
    body = models.humanoid_upper_body()
    correct_crba = tree.crba
    monkeypatch.setattr(tree, "crba", lambda model, q: 1.01 * correct_crba(model, q))
    report = verification.tree_checks(body, rng=np.random.default_rng(0), n_states=10)
    assert report.errors["CRBA vs particle energy"] > 5e-3
    assert report.errors["CRBA vs body Jacobians"] > 5e-3
    with pytest.raises(AssertionError, match="^  CRBA vs particle energy *: .* is not below 1e-12"):
        report.assert_below(1e-12)  # what a notebook runs


def test_tree_check_report_prints_the_bound_each_check_met(capsys):
    report = verification.TreeCheckReport(
        7, 50, {"CRBA vs particle energy": 8.2e-16, "ABA vs dense solve": 3e-15}
    )
    report.assert_below(1e-12)
    assert capsys.readouterr().out.splitlines() == [
        "50 random states of a 7-body tree; largest relative error of each check:",
        "  CRBA vs particle energy < 1e-12",
        "  ABA vs dense solve      < 1e-12",
    ]


def test_tree_checks_catch_a_wrong_forward_dynamics(monkeypatch):
    body = models.humanoid_upper_body()
    correct_aba = tree.aba
    monkeypatch.setattr(tree, "aba", lambda *args, **kwargs: correct_aba(*args, **kwargs) + 1e-3)
    report = verification.tree_checks(body, rng=np.random.default_rng(0), n_states=10)
    assert report.errors["ABA vs dense solve"] > 1e-6
    assert report.errors["reference M qdd_ABA vs tau - b"] > 1e-6


# ---------------------------------------------------------------------------
# Errors injected into the compiled kernels' arrays
# ---------------------------------------------------------------------------

BODY = 3  # user index of the body whose data is corrupted (it has a parent and children)
CRBA = {"CRBA vs particle energy", "CRBA vs body Jacobians"}
RNEA = {"RNEA columns vs reference M", "RNEA vs reference RNEA"}
ABA = {"ABA vs dense solve", "reference M qdd_ABA vs tau - b"}
EVERY_CHECK = CRBA | RNEA | ABA


def one_percent_heavier_body(monkeypatch, model):
    """The compiled kernels' arrays, from a model whose body BODY is 1 % heavier."""
    heavier = np.array(model.inertias)
    heavier[BODY] *= 1.01
    wrong = tree.Tree(model.parents, model.screws, model.placements, heavier)
    monkeypatch.setitem(_flat._FLAT, model, _flat.FlatTree(wrong))


def broken_kernel_arrays(monkeypatch, model, attribute, change):
    """The compiled kernels' array ``attribute`` of ``model`` changed."""
    flat = _flat.FlatTree(model)
    setattr(flat, attribute, change(getattr(flat, attribute)))
    monkeypatch.setitem(_flat._FLAT, model, flat)


def reversed_joint_rotation(monkeypatch, model):
    """Every joint moves by exp(-[S] q): the kernels' arrays (the screws' motion bases
    among them) from the model with every screw negated."""
    negated = tree.Tree(model.parents, -model.screws, model.placements, model.inertias)
    monkeypatch.setitem(_flat._FLAT, model, _flat.FlatTree(negated))


def transposed_placement(monkeypatch, model):
    """Body BODY's constant joint-frame rotation transposed: the kernels' arrays (the
    placement and the screw's motion bases built on it) from such a model."""
    placements = np.array(model.placements)
    placements[BODY, :3, :3] = placements[BODY, :3, :3].T
    wrong = tree.Tree(model.parents, model.screws, placements, model.inertias)
    monkeypatch.setitem(_flat._FLAT, model, _flat.FlatTree(wrong))


def scaled_motion_subspace(monkeypatch, model):
    """Body BODY's motion subspace 1 % longer than its joint's motion."""

    def scale_one(S):
        S = S.copy()
        S[model.v_start[BODY]] *= 1.01
        return S

    broken_kernel_arrays(monkeypatch, model, "S", scale_one)


# (states per call, injection, the checks that must report it).  An error shared by all
# three algorithms of a path must show in every check; one that only the Newton-Euler
# passes use (RNEA and ABA) cannot move the two CRBA checks, which then stay at rounding
# level and point at the broken algorithm; the RNEA columns run at zero velocity, so a
# velocity-product error escapes them by construction.
INJECTIONS = [
    (n_states, inject, EVERY_CHECK)
    for n_states in (ONE_BY_ONE, SMALL, LARGE)
    for inject in (
        one_percent_heavier_body,
        reversed_joint_rotation,
        transposed_placement,
        scaled_motion_subspace,
    )
]


@pytest.mark.parametrize(
    "n_states, inject, caught_by",
    INJECTIONS,
    ids=[f"{inject.__name__}-{n}" for n, inject, _ in INJECTIONS],
)
def test_every_check_of_a_broken_algorithm_reports_an_injected_error(
    monkeypatch, n_states, inject, caught_by
):
    model = mixed_model()
    inject(monkeypatch, model)
    report = verification.tree_checks(model, rng=np.random.default_rng(3), n_states=n_states)
    missed = {
        name: error
        for name, error in report.errors.items()
        if name in caught_by and not error > 1e-5
    }
    # Caught errors measure 2.5e-4 (a 2 % second-moment error of one body) to O(1);
    # an unmodified model stays below 1e-12.
    assert not missed, f"{inject.__name__} not reported by {missed}"
    assert set(report.errors) == EVERY_CHECK


@pytest.mark.parametrize("n_states", [SMALL, LARGE])
def test_fast_against_fast_comparisons_miss_what_tree_checks_catch(monkeypatch, n_states):
    """Why each check needs a reference side: RNEA columns agree with a CRBA sharing its error."""
    model = mixed_model()
    one_percent_heavier_body(monkeypatch, model)
    q = np.random.default_rng(4).uniform(-np.pi, np.pi, (n_states, model.num_bodies))
    np.testing.assert_allclose(
        verification.mass_matrix_from_inverse_dynamics(model, q),
        tree.crba(model, q),
        rtol=0,
        atol=1e-12,
    )
    report = verification.tree_checks(model, rng=np.random.default_rng(3), n_states=n_states)
    assert min(report.errors.values()) > 1e-4


# ---------------------------------------------------------------------------
# Every tree that Tree accepts: ideal point masses and thin rods
# ---------------------------------------------------------------------------


def singular_model():
    """A point mass off its body origin (body 1) and a thin rod (body 3)."""
    spec = random_spec(np.random.default_rng(30), 5, "rp", roots=1)
    spec.inertias_com[1] = np.zeros((3, 3))
    spec.inertias_com[3] = inertia.thin_rod_central_inertia(spec.masses[3], 0.4, axis=1)
    return spec, spec.tree(allow_singular_inertias=True)


@pytest.mark.parametrize("n_states", [SMALL, LARGE])
def test_tree_checks_accept_point_masses_and_thin_rods(n_states):
    _, model = singular_model()
    report = verification.tree_checks(model, rng=np.random.default_rng(6), n_states=n_states)
    assert report.max_relative_error() < 1e-12  # achieved: 4e-14


def test_particle_cloud_of_a_point_mass_sits_at_its_centre_of_mass():
    spec, model = singular_model()
    q = np.linspace(-1.0, 1.0, spec.n)
    cloud = verification.tree_particle_cloud(model, q)
    T = tree.forward_kinematics(model, q)
    centre = T[1, :3, :3] @ spec.coms[1] + T[1, :3, 3]
    np.testing.assert_allclose(cloud[1], np.tile(centre, (6, 1)), rtol=0, atol=1e-15)
    # The rod's particles lie on its axis (body y) through its centre of mass.
    offsets = np.linalg.solve(T[3, :3, :3], (cloud[3] - T[3, :3, 3]).T).T - spec.coms[3]
    np.testing.assert_allclose(offsets[:, [0, 2]], 0.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        np.sort(offsets[:, 1]), 0.2 * np.array([-1, 0, 0, 0, 0, 1]), rtol=0, atol=1e-15
    )  # rod of length 0.4: +-L/2 reproduces m L^2 / 12


def test_particle_energy_figure_accepts_point_masses_and_thin_rods():
    _, model = singular_model()
    fig = figures.particle_energy_figure(model=model, n_states=12)
    matrix_energy, particle_energy = fig.axes[1].get_lines()[0].get_data()
    np.testing.assert_allclose(particle_energy, matrix_energy, rtol=3e-14)  # achieved 8e-16


def straight_arm_of_point_masses():
    """Two revolute z joints 0.5 m apart, point masses on the base joint and 0.25 m beyond
    the elbow (1 kg): M = [[0.3125 + 0.25 c2, 0.0625 + 0.125 c2], [., 0.0625]] kg m^2 and
    det M = sin^2(q2) / 64, singular where the arm is straight or folded."""
    spec = two_link_spec()
    spec.offsets[1] = [0.5, 0.0, 0.0]
    spec.coms = np.array([[0.0, 0.0, 0.0], [0.25, 0.0, 0.0]])
    spec.inertias_com = np.zeros((2, 3, 3))
    return spec.tree(allow_singular_inertias=True)


def test_a_configuration_where_m_is_singular_has_no_forward_dynamics_to_check():
    model = straight_arm_of_point_masses()
    with pytest.raises(
        ValueError,
        match=r"model \(its joint mass matrix at q\): expected a "
        r"symmetric positive definite",
    ):
        verification.forward_dynamics_by_dense_solve(model, [0.3, 0.0], [1.0, 2.0], [0.5, 0.1])
    # Away from q2 = 0 the arm is an ordinary tree: every check applies.
    report = verification.tree_checks(model, rng=np.random.default_rng(0), n_states=SMALL)
    assert report.max_relative_error() < 1e-11  # achieved 5e-13, from states near q2 = 0


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


def test_tree_checks_reject_a_bad_state_count():
    with pytest.raises(ValueError, match="n_states: expected an integer >= 1"):
        verification.tree_checks(models.two_link_teaching_arm(), n_states=0)


def test_random_sources_are_seeds_or_generators():
    """rng= takes what numpy.random.default_rng takes: the same seed, the same states."""
    arm = models.two_link_teaching_arm()
    by_seed = verification.tree_checks(arm, rng=4, n_states=5)
    by_generator = verification.tree_checks(arm, rng=np.random.default_rng(4), n_states=5)
    assert by_seed.errors == by_generator.errors
    assert verification.tree_checks(arm, n_states=5).errors == (
        verification.tree_checks(arm, rng=0, n_states=5).errors
    )
    one = verification.particle_energy_comparison(arm, n_states=6, rng=2)
    two = verification.particle_energy_comparison(arm, n_states=6, rng=np.random.default_rng(2))
    np.testing.assert_array_equal(one.matrix_energy, two.matrix_energy)


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda m: tree.reference.rnea(m, [0, 0], [0, 0, 0], [0, 0]),
            r"v: expected shape \(\.\.\., 2\)",
        ),
        (
            lambda m: tree.reference.rnea(m, [0, 0], [0, 0], [np.nan, 0]),
            r"a: expected finite",
        ),
        (
            lambda m: tree.reference.rnea(m, [0, 0], [0, 0], [0, 0], gravity=(0, 1)),
            r"gravity: expected shape \(3,\) or \(\.\.\., 3\)",
        ),
        (
            lambda m: tree.reference.rnea(m, [0], [0, 0], [0, 0]),
            r"q: expected shape \(\.\.\., 2\)",
        ),
        (
            lambda m: verification.forward_dynamics_by_dense_solve(m, [0, 0], [0, 0], [1, 2, 3]),
            r"tau: expected shape \(\.\.\., 2\)",
        ),
        (
            lambda m: verification.tree_particle_energy("arm", [0, 0], [0, 0]),
            r"model: expected a geomotion.tree.Tree",
        ),
        (lambda m: verification.tree_particle_cloud(m, [0, 0, 0]), r"q: expected shape"),
    ],
)
def test_bad_arguments_name_the_argument(call, match):
    with pytest.raises(TypeError if "geomotion.tree.Tree" in match else ValueError, match=match):
        call(models.two_link_teaching_arm())


def test_particle_energy_comparison_agrees_and_catches_a_wrong_mass_matrix(monkeypatch):
    body = models.humanoid_upper_body()
    energies = verification.particle_energy_comparison(body, n_states=50, rng=3)
    particles, matrix = energies.particle_energy, energies.matrix_energy
    assert particles.shape == matrix.shape == (50,)
    assert np.max(np.abs(particles - matrix) / matrix) < 1e-13  # ~1e-15 achieved
    correct_crba = tree.crba
    monkeypatch.setattr(tree, "crba", lambda model, q: 1.01 * correct_crba(model, q))
    energies = verification.particle_energy_comparison(body, n_states=50, rng=3)
    particles, matrix = energies.particle_energy, energies.matrix_energy
    np.testing.assert_allclose(matrix / particles, 1.01, rtol=1e-12)
    with pytest.raises(ValueError, match="n_states: expected an integer >= 1"):
        verification.particle_energy_comparison(body, n_states=0)
