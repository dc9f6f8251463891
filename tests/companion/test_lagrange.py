"""geomotion.lagrange: the seed's two-coordinate metric worked by hand, the accuracy of
the Richardson derivatives (analytic metrics, and trees against an RNEA-only reference),
the identities of the Christoffel symbols as properties, batching, and bad input."""

from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, vectors
from trees import random_spec

from geomotion import lagrange, models, tree

# The seed metric's parameters used below: unequal masses and a non-unit length, so a
# misplaced l^2 or a swapped m1/m2 shows.
M1, M2, LENGTH = 2.0, 0.7, 0.4


def seed_metric(q, m1=M1, m2=M2, length=LENGTH):
    """M = l^2 [[m1 + m2, m2 cos q2], [m2 cos q2, m2]], written out here (kg m^2)."""
    cos2 = np.cos(np.asarray(q, dtype=float)[..., 1])
    M = np.empty(cos2.shape + (2, 2))
    M[..., 0, 0], M[..., 1, 1] = m1 + m2, m2
    M[..., 0, 1] = M[..., 1, 0] = m2 * cos2
    return length**2 * M


def seed_metric_derivatives(q, m1=M1, m2=M2, length=LENGTH):
    """By hand: only d M_12 / d q2 = d M_21 / d q2 = -l^2 m2 sin q2 is nonzero."""
    sin2 = np.sin(np.asarray(q, dtype=float)[..., 1])
    dM = np.zeros(sin2.shape + (2, 2, 2))
    dM[..., 0, 1, 1] = dM[..., 1, 0, 1] = -(length**2) * m2 * sin2
    return dM


def seed_grid():
    """Configurations and rates spread over all quadrants (q1 is irrelevant to M)."""
    rng = np.random.default_rng(4)
    return rng.uniform(-np.pi, np.pi, (64, 2)), rng.uniform(-3.0, 3.0, (64, 2))


def trig_metric(rng, n, regularization=0.1):
    """A random smooth SPD metric M(q) = A(q)^T A(q) + 0.1 I and its hand derivative.

    A(q) = A0 + sum_k (B_k sin q_k + C_k cos q_k), so
    d_k M_ij = sum_a (d_k A_ai A_aj + A_ai d_k A_aj) with d_k A = B_k cos q_k - C_k sin q_k.
    """
    A0 = rng.normal(size=(n, n))
    B, C = rng.normal(size=(2, n, n, n)) / np.sqrt(n)

    def A(q):
        return (
            A0
            + np.einsum("kab,...k->...ab", B, np.sin(q))
            + np.einsum("kab,...k->...ab", C, np.cos(q))
        )

    def M(q):
        a = A(q)
        return np.swapaxes(a, -1, -2) @ a + regularization * np.eye(n)

    def dM(q):
        dA = np.einsum("kab,...k->...abk", B, np.cos(q)) - np.einsum(
            "kab,...k->...abk", C, np.sin(q)
        )
        half = np.einsum("...aik,...aj->...ijk", dA, A(q))
        return half + np.swapaxes(half, -3, -2)

    return M, dM


# Weights w_m of the eighth-order central difference f'(0) ~ sum_m w_m (f(mh) - f(-mh)) / h,
# a stencil unrelated to the Richardson one under test (error h^8 f^(9) / 630).
EIGHTH_ORDER_WEIGHTS = np.array([4 / 5, -1 / 5, 4 / 105, -1 / 280])
PATH_STEP = 1e-2
# Absolute floor of tolerances that scale with powers of the rates (subnormal rates).
TINY = 1e-280


def derivative_along(function, q, direction):
    """d/ds function(q + s u) at s = 0, u = direction / max|direction|, times max|direction|.

    An eighth-order central difference with step PATH_STEP along u (entries at most 1), so
    the frequency it sees is that of the metric (not of the rates): truncation about
    PATH_STEP^8 w^9 / 630 max|f| for frequency w, rounding about 2 eps max|f| / PATH_STEP.
    """
    q, direction = np.asarray(q, dtype=float), np.asarray(direction, dtype=float)
    length = np.abs(direction).max()
    if length == 0.0:
        return 0.0 * np.asarray(function(q))
    unit = direction / length
    total = sum(
        weight * (function(q + m * PATH_STEP * unit) - function(q - m * PATH_STEP * unit))
        for m, weight in enumerate(EIGHTH_ORDER_WEIGHTS, start=1)
    )
    return length * total / PATH_STEP


def metric_rate_along_path(M, q, v):
    """Mdot = d/dt M(q + t v) at t = 0, differenced along the path (no dM involved)."""
    return derivative_along(M, q, v)


def velocity_load_by_lagrange(M, q, v):
    """c = Mdot v - grad_q (v^T M(q) v / 2): Lagrange's equation at zero acceleration.

    Both terms are differences of M itself (the rate along the path, the gradient of the
    kinetic energy along each coordinate), independent of any Christoffel symbol.
    """
    n = len(q)

    def kinetic(x):
        return 0.5 * v @ M(x) @ v

    gradient = np.array([derivative_along(kinetic, q, e) for e in np.eye(n)])
    return metric_rate_along_path(M, q, v) @ v - gradient


@st.composite
def metric_states(draw):
    """(M callable, hand dM callable, q, v) for a random trigonometric metric, n = 1..5."""
    n = draw(st.integers(min_value=1, max_value=5))
    M, dM = trig_metric(np.random.default_rng(draw(st.integers(0, 2**32 - 1))), n)
    return M, dM, draw(vectors(n)), draw(vectors(n))


def tree_metric_derivatives_by_rnea(model, q):
    """dM of a tree from RNEA alone, with no differencing of M.

    RNEA at zero gravity and zero acceleration gives the velocity load c_i(v) =
    sum_jk Gamma_ijk v_j v_k, a quadratic form symmetric in j, k; polarization recovers
    Gamma_ijk = [c_i(e_j + e_k) - c_i(e_j - e_k)] / 4, and d_k M_ij = Gamma_ijk + Gamma_jik.
    """
    n = model.num_bodies
    E = np.eye(n)
    shape = q.shape[:-1] + (n, n, n)
    q_jk = np.broadcast_to(q[..., None, None, :], shape)
    loads = [
        tree.bias_forces(
            model,
            q_jk,
            np.broadcast_to(E[:, None, :] + sign * E[None, :, :], shape),
            gravity=(0.0, 0.0, 0.0),
        )
        for sign in (1.0, -1.0)
    ]
    gamma = np.moveaxis((loads[0] - loads[1]) / 4.0, -1, -3)  # [..., j, k, i] -> [..., i, j, k]
    return gamma + np.swapaxes(gamma, -3, -2)


def random_trees():
    """Branched random trees from both builders, with prismatic and helical joints."""
    rng = np.random.default_rng(11)
    built = [
        models.random_tree(n, rng=rng, prismatic_fraction=0.25, helical_fraction=0.2)
        for n in (1, 4, 7)
    ]
    return built + [random_spec(rng, n).tree() for n in (3, 6)]


# --- the two-coordinate metric of the seed ---------------------------------------------


def test_two_coordinate_metric_entries_determinant_and_defaults():
    q, _ = seed_grid()
    M = models.two_coordinate_metric(q, m1=M1, m2=M2, length=LENGTH)
    np.testing.assert_allclose(M, seed_metric(q), rtol=0, atol=1e-16)
    # det = l^4 (m1 m2 + m2^2 sin^2 q2) > 0 at every configuration.
    det = LENGTH**4 * (M1 * M2 + M2**2 * np.sin(q[:, 1]) ** 2)
    np.testing.assert_allclose(np.linalg.det(M), det, rtol=1e-13, atol=0)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    # Defaults m1 = m2 = 1 kg, l = 1 m: M = [[2, cos q2], [cos q2, 1]].
    np.testing.assert_allclose(
        models.two_coordinate_metric([0.3, np.pi / 3]), [[2.0, 0.5], [0.5, 1.0]], rtol=0, atol=1e-15
    )


def test_two_coordinate_metric_broadcasts_parameters_and_batches():
    q = np.array([[0.0, 0.0], [0.0, np.pi / 2]])
    M = models.two_coordinate_metric(q, m1=np.array([1.0, 3.0]))
    np.testing.assert_allclose(M[:, 0, 0], [2.0, 4.0], rtol=0, atol=0)
    np.testing.assert_allclose(M[:, 0, 1], [1.0, 0.0], rtol=0, atol=1e-16)
    assert models.two_coordinate_metric(np.zeros((3, 1, 2))).shape == (3, 1, 2, 2)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"q": [0.0, 1.0, 2.0]}, "q"),
        ({"q": [0.0, np.nan]}, "q"),
        ({"m1": 0.0}, "m1"),
        ({"m2": -1.0}, "m2"),
        ({"length": 0.0}, "length"),
        ({"length": np.inf}, "length"),
    ],
)
def test_two_coordinate_metric_rejects_bad_input(kwargs, name):
    arguments = {"q": [0.0, 0.5], **kwargs}
    with pytest.raises(ValueError, match=name):
        models.two_coordinate_metric(**arguments)


@pytest.mark.parametrize("analytic", [False, True])
def test_seed_velocity_load(analytic):
    # c = (-l^2 m2 sin q2 v2^2, 0) by hand (the seed's direct differentiation).
    q, v = seed_grid()
    dM = lagrange.mass_matrix_derivatives(
        seed_metric, q, dM=seed_metric_derivatives if analytic else None
    )
    c = lagrange.coriolis_forces(dM, v)
    expected = np.stack(
        [-(LENGTH**2) * M2 * np.sin(q[:, 1]) * v[:, 1] ** 2, np.zeros(len(q))], axis=-1
    )
    # Analytic: rounding only (1e-16).  Differences: dM within 1.5e-14 here, times |v2|^2 <= 9
    # (measured 9e-14).
    np.testing.assert_allclose(c, expected, rtol=0, atol=1e-15 if analytic else 5e-12)


def test_seed_coriolis_matrix_and_metric_rate_by_hand():
    # Gamma_122 = -l^2 m2 sin q2 =: s is the only nonzero first-kind symbol, so
    # C = [[0, s v2], [0, 0]] while Mdot = [[0, s v2], [s v2, 0]]: C != Mdot, Mdot - 2C skew.
    q, v = seed_grid()
    dM = seed_metric_derivatives(q)
    s_v2 = -(LENGTH**2) * M2 * np.sin(q[:, 1]) * v[:, 1]
    zero = np.zeros(len(q))
    C_hand = np.stack([np.stack([zero, s_v2], -1), np.stack([zero, zero], -1)], -2)
    Mdot_hand = np.stack([np.stack([zero, s_v2], -1), np.stack([s_v2, zero], -1)], -2)
    np.testing.assert_allclose(lagrange.coriolis_matrix(dM, v), C_hand, rtol=0, atol=1e-16)
    np.testing.assert_allclose(lagrange.mass_matrix_rate(dM, v), Mdot_hand, rtol=0, atol=1e-16)
    # skew_residual on the hand C: zero; on C = Mdot (not a valid choice): Mdot - 2 Mdot =
    # -Mdot is symmetric, residual 2 max|Mdot|.
    np.testing.assert_allclose(lagrange.skew_residual(dM, v, C=C_hand), 0.0, rtol=0, atol=1e-16)
    np.testing.assert_allclose(
        lagrange.skew_residual(dM, v, C=Mdot_hand), 2 * np.abs(s_v2), rtol=1e-15
    )


def test_seed_second_kind_symbols():
    # Gamma^i_jk = sum_l (M^-1)_il Gamma_ljk with (M^-1)_11 = l^2 m2 / det, (M^-1)_21 =
    # -l^2 m2 cos q2 / det and Gamma_122 the only nonzero first-kind symbol, det = l^4 D,
    # D = m1 m2 + m2^2 sin^2 q2.  The l^4 cancels: the symbols are dimensionless (rad^-1)
    #   Gamma^1_22 = -m2^2 sin q2 / D   (the seed's value),   Gamma^2_22 = m2^2 sin q2 cos q2 / D,
    # and every other one vanishes (Gamma^1_12 = 0 as the seed says).
    q, _ = seed_grid()
    D = M1 * M2 + M2**2 * np.sin(q[:, 1]) ** 2
    expected = np.zeros((len(q), 2, 2, 2))
    expected[:, 0, 1, 1] = -(M2**2) * np.sin(q[:, 1]) / D
    expected[:, 1, 1, 1] = M2**2 * np.sin(q[:, 1]) * np.cos(q[:, 1]) / D
    for length in (LENGTH, 1.0, 3.0):
        gamma2 = lagrange.christoffel_second_kind(
            seed_metric(q, length=length), seed_metric_derivatives(q, length=length)
        )
        np.testing.assert_allclose(gamma2, expected, rtol=0, atol=1e-14)


def test_seed_energy_identity_for_arbitrary_rates():
    # v^T c = -l^2 m2 sin q2 v1 v2^2, and (1/2) v^T Mdot v = (1/2)(2 v1 v2)(-l^2 m2 sin q2 v2):
    # the same, for every v.
    q, v = seed_grid()
    dM = lagrange.mass_matrix_derivatives(seed_metric, q)
    power = -(LENGTH**2) * M2 * np.sin(q[:, 1]) * v[:, 0] * v[:, 1] ** 2
    c = lagrange.coriolis_forces(dM, v)
    Mdot = lagrange.mass_matrix_rate(dM, v)
    # Differences: dM within 1.5e-14, times |v|^3 <= 27 (measured 2e-13).
    np.testing.assert_allclose(np.einsum("bi,bi->b", v, c), power, rtol=0, atol=1e-11)
    np.testing.assert_allclose(
        0.5 * np.einsum("bi,bij,bj->b", v, Mdot, v), power, rtol=0, atol=1e-11
    )
    # The rate of the differenced dM against M differenced along each path q + t v (a
    # different stencil), and the residual checker on the hand load c against that dM.
    Mdot_path = np.array([metric_rate_along_path(seed_metric, a, b) for a, b in zip(q, v)])
    np.testing.assert_allclose(Mdot, Mdot_path, rtol=0, atol=1e-12)  # measured 2.6e-14
    c_hand = np.stack(
        [-(LENGTH**2) * M2 * np.sin(q[:, 1]) * v[:, 1] ** 2, np.zeros(len(q))], axis=-1
    )
    np.testing.assert_allclose(
        lagrange.energy_identity_residual(dM, v, c=c_hand), 0.0, rtol=0, atol=1e-11
    )


# --- accuracy of the Richardson derivatives ----------------------------------------------


def test_default_step_meets_the_documented_error_on_the_seed_metric():
    q, _ = seed_grid()
    dM = lagrange.mass_matrix_derivatives(seed_metric, q)
    # Documented: below 1e-10 max|M|.  Measured 1.5e-14 here (max|M| = 0.43); the bound
    # asserted is 100x tighter than the documented one, 30x above what is achieved.
    scale = np.abs(seed_metric(q)).max()
    error = np.abs(dM - seed_metric_derivatives(q)).max()
    assert error <= 1e-12 * scale, error


def test_extrapolated_error_is_the_documented_fourth_order_term():
    # For M_12 = l^2 m2 cos q2, d^5 M_12 / dq2^5 = -l^2 m2 sin q2, so the documented error
    # -h^4/480 d^5 M predicts dM_122(h) - exact = h^4 l^2 m2 sin q2 / 480 (next term O(h^6),
    # relative size 0.03 h^2).  Plain central differences would err by O(h^2) instead.
    q = np.array([0.2, 1.1])
    exact = seed_metric_derivatives(q)[0, 1, 1]
    for h in (0.2, 0.1, 0.05):
        dM = lagrange.mass_matrix_derivatives(seed_metric, q, step=h)
        predicted = h**4 * LENGTH**2 * M2 * np.sin(q[1]) / 480
        # Measured relative deviation 0.030 h^2, as the O(h^6) term predicts.
        np.testing.assert_allclose(dM[0, 1, 1] - exact, predicted, rtol=0.05 * h**2)
        np.testing.assert_allclose(dM[..., 0], 0.0, rtol=0, atol=1e-15)  # M does not depend on q1


def test_default_step_meets_the_documented_error_on_trees():
    # Reference: dM from RNEA (polarized velocity loads), exact up to rounding.
    rng = np.random.default_rng(5)
    for model in random_trees():
        q = rng.uniform(-np.pi, np.pi, (24, model.num_bodies))
        dM = lagrange.mass_matrix_derivatives(partial(tree.crba, model), q)
        reference = tree_metric_derivatives_by_rnea(model, q)
        scale = np.abs(tree.crba(model, q)).max()
        # Documented bound 1e-10 max|M|; measured 2.8e-12 max|M| on these trees.
        assert np.abs(dM - reference).max() <= 1e-10 * scale


def test_rnea_reference_derivatives_agree_with_a_hand_two_link_arm():
    # Guard on the reference itself: the teaching arm's M_11 = const + 2 m2 L1 c2x cos q2
    # (m2 = 1, c2 = (0.25, 0, 0), L1 = 0.6) gives dM_11/dq2 = -2 * 0.6 * 0.25 sin q2, and
    # dM_12/dq2 = dM_21/dq2 half of it.
    model = models.two_link_teaching_arm()
    q = np.array([0.4, -1.3])
    reference = tree_metric_derivatives_by_rnea(model, q)
    s = -0.6 * 0.25 * np.sin(q[1])
    expected = np.zeros((2, 2, 2))
    expected[0, 0, 1], expected[0, 1, 1], expected[1, 0, 1] = 2 * s, s, s
    np.testing.assert_allclose(reference, expected, rtol=0, atol=1e-15)


# --- the Christoffel identities on random metrics (properties) ---------------------------


@settings(max_examples=examples(60))
@given(metric_states())
def test_differences_match_the_analytic_derivative(state):
    M, dM_hand, q, _ = state
    dM = lagrange.mass_matrix_derivatives(M, q)
    # Documented bound 1e-10 max|M|; measured up to 6e-12 max|M| on 400 such metrics.
    assert np.abs(dM - dM_hand(q)).max() <= 1e-10 * np.abs(M(q)).max()
    np.testing.assert_array_equal(dM, np.swapaxes(dM, 0, 1))


@settings(max_examples=examples(60))
@given(metric_states())
def test_first_kind_symbols_are_symmetric_and_recover_the_metric_derivative(state):
    _, dM_hand, q, _ = state
    dM = dM_hand(q)
    gamma = lagrange.christoffel_first_kind(dM)
    scale = np.abs(dM).max()
    np.testing.assert_allclose(gamma, np.swapaxes(gamma, -1, -2), rtol=0, atol=1e-15 * scale)
    # Gamma_ijk + Gamma_jik = d_k M_ij (rounding of a few additions).
    np.testing.assert_allclose(gamma + np.swapaxes(gamma, 0, 1), dM, rtol=0, atol=1e-14 * scale)


@settings(max_examples=examples(60))
@given(metric_states())
def test_rate_and_load_of_the_differenced_derivatives_match_lagranges_equation(state):
    # dM from Richardson differences, checked through quantities computed from M alone:
    # Mdot = d/dt M(q + t v) along the path, and c = Mdot v - grad(v^T M v / 2).  The
    # energy identity is then asserted against that independent Mdot, not against dM's own.
    M, _, q, v = state
    dM = lagrange.mass_matrix_derivatives(M, q)
    Mdot_path, c_path = metric_rate_along_path(M, q, v), velocity_load_by_lagrange(M, q, v)
    # Documented dM error 1e-10 max|M|, times sum|v_k| (and one more sum|v| for the load);
    # measured 2.6e-11 and 1.3e-11 of these scales on 300 such metrics, of which the path
    # differences account for 1.2e-13.  TINY: subnormal rates.
    rate_scale = np.abs(M(q)).max() * np.abs(v).sum()
    np.testing.assert_allclose(
        lagrange.mass_matrix_rate(dM, v), Mdot_path, rtol=0, atol=1e-10 * rate_scale + TINY
    )
    c = lagrange.coriolis_forces(dM, v)
    load_scale = rate_scale * np.abs(v).sum()
    np.testing.assert_allclose(c, c_path, rtol=0, atol=1e-10 * load_scale + TINY)
    np.testing.assert_allclose(
        v @ c, 0.5 * v @ Mdot_path @ v, rtol=0, atol=1e-10 * load_scale * np.abs(v).sum() + TINY
    )


@settings(max_examples=examples(60))
@given(metric_states())
def test_coriolis_matrix_of_the_hand_derivative_is_skew_against_the_path_rate(state):
    # C from the hand dM (so this checks coriolis_matrix and skew_residual, not the
    # differences): C v is Lagrange's load and Mdot - 2C is skew with Mdot differenced
    # along the path.  A C built from a wrong combination of dM fails both.
    M, dM_hand, q, v = state
    C = lagrange.coriolis_matrix(dM_hand(q), v)
    Mdot_path = metric_rate_along_path(M, q, v)
    rate_scale = np.abs(M(q)).max() * np.abs(v).sum()
    # Path differences: measured 1.1e-13 (load) and 2.4e-13 (skew part) of these scales.
    np.testing.assert_allclose(
        C @ v,
        velocity_load_by_lagrange(M, q, v),
        rtol=0,
        atol=1e-11 * rate_scale * np.abs(v).sum() + TINY,
    )
    S = Mdot_path - 2 * C
    np.testing.assert_allclose(S + S.T, 0.0, rtol=0, atol=1e-11 * rate_scale + TINY)
    assert lagrange.skew_residual(dM_hand(q), v, C=C) <= 1e-13 * rate_scale + TINY


@settings(max_examples=examples(60))
@given(metric_states())
def test_second_kind_symbols_solve_the_metric_and_give_the_force_free_acceleration(state):
    M, dM_hand, q, v = state
    Mq, dM = M(q), dM_hand(q)
    gamma1, gamma2 = lagrange.christoffel_first_kind(dM), lagrange.christoffel_second_kind(Mq, dM)
    np.testing.assert_allclose(
        np.einsum("il,ljk->ijk", Mq, gamma2), gamma1, rtol=0, atol=1e-12 * np.abs(gamma1).max()
    )
    # sum_jk Gamma^i_jk v_j v_k = (M^-1 c)_i, without a minus sign (the seed's remark).
    acceleration_load = np.einsum("ijk,j,k->i", gamma2, v, v)
    # Measured up to 1.5e-14 of max|acceleration_load| (as M Gamma2 = Gamma1: 1.2e-14).
    np.testing.assert_allclose(
        np.linalg.solve(Mq, lagrange.coriolis_forces(dM, v)),
        acceleration_load,
        rtol=0,
        atol=1e-12 * np.abs(acceleration_load).max() + 1e-300,
    )


def test_a_different_representation_of_c_passes_the_energy_check_but_not_the_skew_check():
    # C' = C + E with E v = 0 (E the projector orthogonal to v) still gives C' v = c ...
    _, dM_hand = trig_metric(np.random.default_rng(2), 3)
    q, v = np.array([0.3, -1.2, 2.0]), np.array([1.0, -0.5, 2.0])
    dM = dM_hand(q)
    E = np.eye(3) - np.outer(v, v) / (v @ v)
    C_other = lagrange.coriolis_matrix(dM, v) + E
    np.testing.assert_allclose(C_other @ v, lagrange.coriolis_forces(dM, v), rtol=0, atol=1e-13)
    assert abs(lagrange.energy_identity_residual(dM, v, c=C_other @ v)) <= 1e-13
    # ... but (Mdot - 2C') has the symmetric part -4E, whose largest entry is 4 max|E|.
    np.testing.assert_allclose(
        lagrange.skew_residual(dM, v, C=C_other), 4 * np.abs(E).max(), rtol=1e-14
    )
    # and a load that is not c fails the energy check by exactly the added power.
    c_wrong = lagrange.coriolis_forces(dM, v) + np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(
        lagrange.energy_identity_residual(dM, v, c=c_wrong), v[2], rtol=1e-14
    )


# --- trees: the module on tree.crba, against RNEA ----------------------------------------


def test_tree_usage_single_and_batched_against_rnea():
    # The lead's intended use: coriolis_matrix(mass_matrix_derivatives(crba), v), checked
    # through C v = RNEA(q, v, 0) at zero gravity (an independent analytic algorithm).
    rng = np.random.default_rng(8)
    for model in random_trees():
        n = model.num_bodies
        for batch in ((), (5,), (1,)):
            q, v = rng.uniform(-np.pi, np.pi, batch + (n,)), rng.uniform(-2.0, 2.0, batch + (n,))
            dM = lagrange.mass_matrix_derivatives(partial(tree.crba, model), q)
            C = lagrange.coriolis_matrix(dM, v)
            assert dM.shape == batch + (n, n, n) and C.shape == batch + (n, n)
            c_rnea = tree.bias_forces(model, q, v, gravity=(0.0, 0.0, 0.0))
            # Error scale: max|M| times sum_jk |v_j v_k| (and one more |v| for the power);
            # measured 3e-14 and 4e-15 of it.
            scale = np.abs(tree.crba(model, q)).max() * np.abs(v).max() ** 2 * n**2
            np.testing.assert_allclose(
                np.einsum("...ij,...j->...i", C, v), c_rnea, rtol=0, atol=1e-12 * scale
            )
            np.testing.assert_allclose(
                lagrange.energy_identity_residual(dM, v, c=c_rnea),
                0.0,
                rtol=0,
                atol=1e-13 * scale * np.abs(v).max() * n,
            )


# --- callables that broadcast and callables that do not ----------------------------------


def counting(function):
    """Wrap ``function`` so that the number of calls is recorded in ``wrapped.calls``."""

    def wrapped(q):
        wrapped.calls += 1
        return function(q)

    wrapped.calls = 0
    return wrapped


def single_configuration_metric(q):
    """The seed metric written for one configuration only (indexes q[1], builds a list)."""
    c = LENGTH**2 * M2 * np.cos(q[1])
    return np.array([[LENGTH**2 * (M1 + M2), c], [c, LENGTH**2 * M2]])


def test_broadcasting_callable_is_called_once_and_others_once_per_configuration():
    q = np.array([[0.1, 0.7], [-2.0, 2.5], [1.0, -0.4]])
    broadcasting, single = counting(seed_metric), counting(single_configuration_metric)
    dM_broadcast = lagrange.mass_matrix_derivatives(broadcasting, q)
    dM_single = lagrange.mass_matrix_derivatives(single, q)
    assert broadcasting.calls == 3  # the first and last configurations (the contract), the stack
    # two configurations, the failed stacked attempt, then 4 n per configuration
    assert single.calls == 2 + 1 + 4 * 2 * 3
    # Same metric up to the rounding of its entries (1e-17), divided by h = 2e-3.
    np.testing.assert_allclose(dM_single, dM_broadcast, rtol=0, atol=1e-13)
    np.testing.assert_allclose(
        lagrange.mass_matrix_derivatives(single_configuration_metric, q[0]),
        dM_broadcast[0],
        rtol=0,
        atol=1e-13,
    )


def test_degenerate_but_legal_inputs():
    # Batch of one and an empty batch keep their leading shape.
    q = np.array([[0.3, -0.9]])
    dM = lagrange.mass_matrix_derivatives(seed_metric, q)
    assert dM.shape == (1, 2, 2, 2)
    np.testing.assert_array_equal(dM[0], lagrange.mass_matrix_derivatives(seed_metric, q[0]))
    assert lagrange.mass_matrix_derivatives(seed_metric, np.zeros((0, 2))).shape == (0, 2, 2, 2)
    # A constant metric that ignores the shape of q: zero derivatives, zero load.
    dM = lagrange.mass_matrix_derivatives(lambda _: np.diag([1.0, 2.0]), [[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(dM, np.zeros((2, 2, 2, 2)))
    # One coordinate: M = 2 + sin q, c = (1/2) M' v^2 = (1/2) cos q v^2; integer input is fine.
    c = lagrange.coriolis_forces(
        lagrange.mass_matrix_derivatives(lambda x: 2 + np.sin(x)[..., None], [1]), [3]
    )
    np.testing.assert_allclose(c, [0.5 * np.cos(1.0) * 9.0], rtol=1e-12)
    # Far from the origin the step is unchanged (variation scale of an angle) and accurate.
    far = np.array([0.0, 1e4 + 0.25])
    np.testing.assert_allclose(
        lagrange.mass_matrix_derivatives(seed_metric, far),
        seed_metric_derivatives(far),
        rtol=0,
        atol=5e-13,
    )  # measured 9e-15


@pytest.mark.parametrize("q", [1.5 * 2.0**33, 2.0**34, -(2.0**34)])
def test_default_step_near_the_guard_threshold_is_accurate(q):
    # Around |q| = 2^34 the default step switches from 2e-3 to 1000 ulp(q) = 3.8e-3; on
    # M = 2 + sin q the documented bound 1e-10 max|M| holds on both sides (measured 5e-11
    # below, where q +- h round, and 1.2e-13 at the threshold).
    dM = lagrange.mass_matrix_derivatives(lambda x: (2.0 + np.sin(x))[..., None], [q])
    np.testing.assert_allclose(dM[0, 0, 0], np.cos(q), rtol=0, atol=1e-10 * 3.0)


@pytest.mark.parametrize("q", [1e15, -1e15, 3e17])
def test_default_step_grows_with_the_spacing_of_huge_coordinates(q):
    # At |q| = 1e15 an ulp is 0.125, so q +- 2e-3 == q and a fixed step divides 0 by 0.
    # The step of 1000 ulp(q) keeps the differences finite.  On the quadratic
    # M = 3 + 5q + q^2 the extrapolated difference has no truncation error, so only the
    # rounding bound 3 eps max|M| / h remains, with h = 1000 ulp(q) (measured 0.3 of it).
    h = 1e3 * np.spacing(abs(q))
    dM = lagrange.mass_matrix_derivatives(lambda x: (3.0 + 5.0 * x + x**2)[..., None], [q])
    bound = 3 * np.finfo(float).eps * (3.0 + 5.0 * abs(q) + (abs(q) + h) ** 2) / h
    assert np.isfinite(dM).all()
    np.testing.assert_allclose(dM[0, 0, 0], 5.0 + 2.0 * q, rtol=0, atol=bound)


def test_singular_metric_has_derivatives_but_no_second_kind_symbols():
    # M = a a^T, a = (cos q1, sin q1) (rank 1) at every q: its derivatives exist, M^-1 does not.
    def rank_one(q):
        a = np.stack([np.cos(q[..., 0]), np.sin(q[..., 0])], axis=-1)
        return a[..., :, None] * a[..., None, :]

    q = np.array([0.4, 0.0])
    dM = lagrange.mass_matrix_derivatives(rank_one, q)
    # d/dq1 [[c^2, cs], [cs, s^2]] = [[-sin 2q, cos 2q], [cos 2q, sin 2q]].
    # Frequency 2 in q1: truncation error up to 2^5 h^4 / 480 = 1e-12 (measured 4.6e-13).
    t = 2 * q[0]
    np.testing.assert_allclose(
        dM[..., 0], [[-np.sin(t), np.cos(t)], [np.cos(t), np.sin(t)]], rtol=0, atol=5e-12
    )
    # Exactly singular at q1 = 0 (Cholesky fails); at q1 = 0.4 only rounding keeps the last
    # Cholesky pivot off zero (about 1e-17 against 1), which is as singular.
    with pytest.raises(ValueError, match="M: expected a symmetric positive definite"):
        lagrange.christoffel_second_kind(rank_one(np.zeros(2)), dM)
    with pytest.raises(ValueError, match="M: expected a well-conditioned"):
        lagrange.christoffel_second_kind(rank_one(q), dM)


def test_christoffel_second_kind_and_coriolis_matrix_broadcast_batches():
    q, v = seed_grid()
    dM = seed_metric_derivatives(q)
    M_single = seed_metric(q[0])
    gamma2 = lagrange.christoffel_second_kind(M_single, dM)  # one M against a batch of dM
    for b in (0, 5, 63):
        np.testing.assert_allclose(
            gamma2[b], lagrange.christoffel_second_kind(M_single, dM[b]), rtol=0, atol=1e-16
        )
    C = lagrange.coriolis_matrix(dM[0], v)  # one configuration, many rates
    np.testing.assert_allclose(
        C, lagrange.coriolis_matrix(np.broadcast_to(dM[0], dM.shape), v), rtol=0, atol=0
    )


# --- bad input ---------------------------------------------------------------------------


def asymmetric_metric(q):
    return seed_metric(q) + np.array([[0.0, 1e-3], [0.0, 0.0]])


@pytest.mark.parametrize(
    "mass_matrix, q, kwargs, message",
    [
        (np.eye(2), [0.0, 1.0], {}, "mass_matrix: expected a callable"),
        (seed_metric, 0.5, {}, r"q: expected shape \(\.\.\., n\)"),
        (seed_metric, np.zeros((3, 0)), {}, r"q: expected shape \(\.\.\., n\)"),
        (seed_metric, [0.0, np.nan], {}, "q: expected finite"),
        (seed_metric, [0.0, 1.0, 2.0], {}, "mass_matrix: expected a result of shape"),
        (
            lambda q: np.ones(q.shape[:-1] + (2, 3)),
            [0.0, 1.0],
            {},
            "mass_matrix: expected a result of shape",
        ),
        (lambda q: np.ones(2), [0.0, 1.0], {}, "mass_matrix: expected a result of shape"),
        (asymmetric_metric, [0.0, 1.0], {}, "mass_matrix: expected a symmetric matrix"),
        (
            lambda q: np.full(q.shape[:-1] + (2, 2), np.nan),
            [0.0, 1.0],
            {},
            "mass_matrix: expected finite",
        ),
        (seed_metric, [0.0, 1.0], {"step": 0.0}, "step: expected positive"),
        (
            seed_metric,
            [0.0, 1.0],
            {"step": [1e-3, 1e-3, 1e-3]},
            "step: expected a scalar or an array",
        ),
        (
            seed_metric,
            [0.0, 1.0],
            {"step": 1e-3, "dM": seed_metric_derivatives},
            "step: expected None",
        ),
        (seed_metric, [0.0, 1.0], {"dM": np.zeros((2, 2, 2))}, "dM: expected a callable"),
        (
            seed_metric,
            [0.0, 1.0],
            {"dM": lambda q: np.zeros((2, 2))},
            "dM: expected a result of shape",
        ),
        (
            seed_metric,
            [0.0, 1.0],
            {"dM": lambda q: np.arange(8.0).reshape(2, 2, 2)},
            "dM: expected dM",
        ),
    ],
)
def test_mass_matrix_derivatives_rejects_bad_input(mass_matrix, q, kwargs, message):
    error = TypeError if "expected a callable" in message else ValueError
    with pytest.raises(error, match=message):
        lagrange.mass_matrix_derivatives(mass_matrix, q, **kwargs)


def test_errors_raised_by_the_callable_itself_propagate():
    def broken(q):
        raise ValueError("broken metric")

    with pytest.raises(ValueError, match="broken metric"):
        lagrange.mass_matrix_derivatives(broken, [0.0, 1.0])

    def failing(q):
        raise RuntimeError("not a shape problem")

    with pytest.raises(RuntimeError, match="not a shape problem"):
        lagrange.mass_matrix_derivatives(failing, [0.0, 1.0])


GOOD_DM = seed_metric_derivatives(np.array([0.0, 1.0]))


@pytest.mark.parametrize(
    "function",
    [
        lagrange.christoffel_first_kind,
        lambda dM: lagrange.coriolis_matrix(dM, [1.0, 2.0]),
        lambda dM: lagrange.mass_matrix_rate(dM, [1.0, 2.0]),
        lambda dM: lagrange.coriolis_forces(dM, [1.0, 2.0]),
        lambda dM: lagrange.energy_identity_residual(dM, [1.0, 2.0]),
        lambda dM: lagrange.skew_residual(dM, [1.0, 2.0]),
        lambda dM: lagrange.christoffel_second_kind(np.eye(2), dM),
    ],
)
@pytest.mark.parametrize(
    "dM, message",
    [
        (np.zeros((2, 2)), r"dM: expected shape \(\.\.\., n, n, n\)"),
        (np.zeros((2, 2, 3)), r"dM: expected shape \(\.\.\., n, n, n\)"),
        (np.zeros((0, 0, 0)), r"dM: expected shape \(\.\.\., n, n, n\) with n >= 1"),
        (np.where(np.arange(8).reshape(2, 2, 2) == 3, np.inf, GOOD_DM), "dM: expected finite"),
        (
            GOOD_DM + np.array([[[0.0, 0.0], [1e-6, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]),
            "dM: expected dM.*symmetric",
        ),
    ],
)
def test_functions_of_dM_reject_bad_dM(function, dM, message):
    with pytest.raises(ValueError, match=message):
        function(dM)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: lagrange.coriolis_matrix(GOOD_DM, [1.0, 2.0, 3.0]),
            r"v: expected shape \(\.\.\., 2\)",
        ),
        (lambda: lagrange.coriolis_matrix(GOOD_DM, [1.0, np.nan]), "v: expected finite"),
        (lambda: lagrange.mass_matrix_rate(GOOD_DM, 1.0), r"v: expected shape \(\.\.\., 2\)"),
        (lambda: lagrange.coriolis_matrix(np.stack([GOOD_DM] * 3), np.ones((2, 2))), "dM .*v "),
        (
            lambda: lagrange.christoffel_second_kind(np.eye(3), GOOD_DM),
            r"dM: expected shape \(\.\.\., 3, 3, 3\)",
        ),
        (
            lambda: lagrange.christoffel_second_kind(
                np.stack([np.eye(2)] * 3), np.stack([GOOD_DM] * 2)
            ),
            "M .*dM ",
        ),
        (
            lambda: lagrange.christoffel_second_kind(np.diag([1.0, -1.0]), GOOD_DM),
            "M: expected a symmetric pos",
        ),
        (
            lambda: lagrange.christoffel_second_kind([[1.0, 0.5], [0.0, 1.0]], GOOD_DM),
            "M: expected a symmetric",
        ),
        (
            lambda: lagrange.christoffel_second_kind(np.ones((2, 3)), GOOD_DM),
            "M: expected a square",
        ),
        (
            lambda: lagrange.energy_identity_residual(GOOD_DM, [1.0, 2.0], c=[1.0]),
            r"c: expected shape \(\.\.\., 2\)",
        ),
        (
            lambda: lagrange.energy_identity_residual(GOOD_DM, np.ones((2, 2)), c=np.ones((3, 2))),
            "c ",
        ),
        (
            lambda: lagrange.skew_residual(GOOD_DM, [1.0, 2.0], C=np.ones((2, 3))),
            r"C: expected shape \(\.\.\., 2, 2\)",
        ),
        (
            lambda: lagrange.skew_residual(GOOD_DM, [1.0, 2.0], C=[[np.inf, 0.0], [0.0, 0.0]]),
            "C: expected finite",
        ),
    ],
)
def test_bad_rates_shapes_and_metrics_are_rejected(call, message):
    with pytest.raises(ValueError, match=message):
        call()
