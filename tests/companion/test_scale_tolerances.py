"""Scale-aware tolerances of the constrained integrators, and Baumgarte's stability limit.

The crank-rocker of chapter 2 is scaled geometrically (lengths by s, masses kept, time
kept; gravity scaled by s too, so that the angular accelerations g/L stay the same and
the motion in joint angles is exactly the same at every scale).  Independent references:
the unit-scale run (angles must agree), and for the Baumgarte limit the spectral radius
of the RK4 step matrix of the 2x2 violation dynamics, computed here as a matrix
polynomial.
"""

import numpy as np
import pytest

from geomotion import ConvergenceError, constraints, integrators, models, tree

SCALES = (1e-4, 1.0, 1e4)
DT, STEPS = 0.002, 300


def scaled(s):
    """(chain, system, q0) of the crank-rocker scaled by s, at rest, loop closed."""
    chain = models.planar_closed_chain(lengths=s * np.array([0.3, 0.8, 0.6]), base=(0.7 * s, 0.0))
    system = integrators.MechanicalSystem.from_tree(chain.model, gravity=(0.0, -9.81 * s, 0.0))
    return chain, system, chain.joint_coordinates(chain.closed_configuration(0.5))


@pytest.fixture(scope="module")
def runs():
    out = {}
    for s in SCALES:
        chain, system, q0 = scaled(s)
        out[s] = integrators.simulate_constrained(
            system, chain.loop_closure, q0, np.zeros(3), DT, STEPS
        )
    return out


def test_the_same_mechanism_moves_the_same_at_every_scale(runs):
    reference = runs[1.0]
    assert np.ptp(reference.q[:, 0]) > 0.3  # it falls and swings (rad)
    for s in (1e-4, 1e4):
        run = runs[s]
        np.testing.assert_allclose(run.q, reference.q, rtol=0, atol=1e-12)  # rad; 5e-15 seen
        np.testing.assert_allclose(run.v, reference.v, rtol=0, atol=1e-11)
        # Loop residuals and reactions scale with the mechanism (m; N = kg m/s^2 * s).
        np.testing.assert_allclose(
            run.position_residual / s, reference.position_residual, rtol=0, atol=1e-13
        )
        assert run.position_residual.max() / s < 5e-12
        np.testing.assert_allclose(
            run.multiplier / s,
            reference.multiplier,
            rtol=0,
            atol=1e-10 * np.abs(reference.multiplier).max(),
        )


def test_an_absolute_tolerance_fails_at_large_scale_where_the_default_does_not():
    chain, system, q0 = scaled(1e4)
    # The old default, 1e-12 m, is below the rounding of a 10 km loop: no step size helps.
    with pytest.raises(
        ConvergenceError, match=r"tolerance 1e-12 .*dt = 0.002 s from t = "
    ) as error:
        integrators.simulate_constrained(
            system, chain.loop_closure, q0, np.zeros(3), DT, STEPS, atol=1e-12
        )
    assert "tolerance" in str(error.value) and error.value.tolerance == 1e-12
    # RATTLE's message names the tolerance, the step and the time too.
    with pytest.raises(
        ConvergenceError, match=r"^RATTLE position multiplier.*t = 0 s with dt = 0.5 s"
    ):
        integrators.rattle_step(
            np.eye(2),
            constraints.FunctionConstraint(
                residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - 1.0),
                jacobian=lambda q: q[..., None, :],
                acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True),
            ),
            [1.0, 0.0],
            [0.0, 3.0],
            None,
            0.5,
            max_iter=1,
        )


def relative_violation(chain, q):
    """max_i |Phi_i| / |grad Phi_i|, in rad: the first-order angular distance to closure."""
    Phi, J = chain.loop_closure.residual(q), chain.loop_closure.jacobian(q)
    return np.max(np.abs(Phi) / np.linalg.norm(J, axis=-1))


@pytest.mark.parametrize("s", SCALES)
def test_a_relative_error_of_5e_5_never_passes_as_converged(s):
    chain, _, q0 = scaled(s)
    M = tree.crba(chain.model, q0)
    start = q0 + np.array([5e-5, -2e-5, 1e-5])  # rad
    violation = relative_violation(chain, start)
    assert 2e-5 < violation < 1e-4
    # One Newton step (quadratic: about 1e-9 left) is not enough at any scale, and the
    # dimensionless residual reported is the same at every scale.
    with pytest.raises(ConvergenceError, match="dimensionless") as error:
        integrators.project_position(M, chain.loop_closure, start, max_iter=1)
    _, _, q_unit = scaled(1.0)
    chain_unit = scaled(1.0)[0]
    with pytest.raises(ConvergenceError) as unit_error:
        integrators.project_position(
            tree.crba(chain_unit.model, q_unit), chain_unit.loop_closure, start, max_iter=1
        )
    assert error.value.residual == pytest.approx(unit_error.value.residual, rel=1e-5)
    assert error.value.residual > 1e-10
    # Converged, the angles are those of the unit-scale chain.
    projected = integrators.project_position(M, chain.loop_closure, start)
    assert relative_violation(chain, projected) < 1e-12
    np.testing.assert_allclose(
        projected,
        integrators.project_position(
            tree.crba(chain_unit.model, q_unit), chain_unit.loop_closure, start
        ),
        rtol=0,
        atol=1e-13,
    )


def test_an_absolute_tolerance_accepts_a_large_relative_error_on_a_small_mechanism():
    # The trap the relative default removes: at 0.1 mm, |Phi| <= 1e-12 m accepts a
    # 5e-9 rad violation (5000 times the default rtol) without a single step.
    chain, _, q0 = scaled(1e-4)
    M = tree.crba(chain.model, q0)
    start = q0 + np.array([5e-9, 0.0, 0.0])
    assert relative_violation(chain, start) > 1e-9
    accepted = integrators.project_position(M, chain.loop_closure, start, atol=1e-12)
    np.testing.assert_array_equal(accepted, start)
    projected = integrators.project_position(M, chain.loop_closure, start)
    assert relative_violation(chain, projected) < 1e-12


def test_length_scale_and_rtol_set_the_relative_rule():
    chain, _, q0 = scaled(1.0)
    M = tree.crba(chain.model, q0)
    start = q0 + np.array([5e-5, -2e-5, 1e-5])
    loose = integrators.project_position(M, chain.loop_closure, start, rtol=1e-3)
    np.testing.assert_array_equal(loose, start)  # 5e-5 rad within 1e-3 x 1 rad
    with pytest.raises(ConvergenceError):
        integrators.project_position(
            M, chain.loop_closure, start, rtol=1e-3, length_scale=1e-10, max_iter=1
        )
    for bad in (dict(rtol=0.0), dict(rtol=-1.0), dict(length_scale=0.0), dict(atol=-1e-3)):
        with pytest.raises(ValueError, match=f"^{next(iter(bad))}:"):
            integrators.project_position(M, chain.loop_closure, start, **bad)


# --- Baumgarte's stability limit under RK4 ---------------------------------------------


def rk4_spectral_radius(alpha_dt, beta_dt):
    """Spectral radius of the RK4 step of x' = A x, A = [[0, 1], [-beta^2, -2 alpha]], dt = 1."""
    A = np.array([[0.0, 1.0], [-(beta_dt**2), -2.0 * alpha_dt]])
    P = np.eye(2) + A + A @ A / 2 + A @ A @ A / 6 + A @ A @ A @ A / 24
    return np.abs(np.linalg.eigvals(P)).max()


def baumgarte_run(alpha, beta, dt):
    chain, system, q0 = scaled(1.0)
    return integrators.simulate_constrained(
        system,
        chain.loop_closure,
        q0,
        np.zeros(3),
        dt,
        2,
        method="baumgarte",
        alpha=alpha,
        beta=beta,
    )


def test_the_documented_limits_are_those_of_the_rk4_step_matrix():
    # Critical damping: alpha dt <= 2.7853; no damping: beta dt <= 2 sqrt 2.
    assert rk4_spectral_radius(2.785, 2.785) <= 1.0 < rk4_spectral_radius(2.786, 2.786)
    assert rk4_spectral_radius(0.0, 2.828) <= 1.0 < rk4_spectral_radius(0.0, 2.829)
    dt = 0.01
    baumgarte_run(278.5, 278.5, dt)
    with pytest.raises(ValueError, match=r"^alpha, beta:.*alpha dt = 2.786, beta dt = 2.786"):
        baumgarte_run(278.6, 278.6, dt)
    baumgarte_run(0.0, 282.8, dt)
    with pytest.raises(ValueError, match=r"^alpha, beta:.*beta dt = 2.829 at dt = 0.01 s"):
        baumgarte_run(0.0, 282.9, dt)


@pytest.mark.parametrize("alpha_dt", [0.0, 0.5, 1.0, 1.3, 1.4, 2.0, 2.7, 3.0])
@pytest.mark.parametrize("beta_dt", [0.0, 1.0, 2.0, 2.5, 2.8, 2.9, 3.5])
def test_the_check_agrees_with_the_step_matrix_everywhere(alpha_dt, beta_dt):
    dt = 0.01
    radius = rk4_spectral_radius(alpha_dt, beta_dt)
    if radius > 1.0 + 1e-9:  # (a zero mode, beta = 0, sits on the boundary: allowed)
        with pytest.raises(ValueError, match="^alpha, beta:.*stability"):
            baumgarte_run(alpha_dt / dt, beta_dt / dt, dt)
    else:
        baumgarte_run(alpha_dt / dt, beta_dt / dt, dt)


def test_inside_the_limit_a_violation_decays_on_the_real_mechanism():
    # Started 1e-3 rad off the loop, with gains at half the critical limit, the loop
    # residual shrinks by three orders in 0.2 s (by 1e-2 asserted).  (The limit is linear: nearer to it a
    # violation this large can still grow through the curvature of the constraint, as
    # the docstring says; at 99 % this start blows up.)
    chain, system, q0 = scaled(1.0)
    dt = 0.002
    gain = 0.5 * 2.785 / dt
    run = integrators.simulate_constrained(
        system,
        chain.loop_closure,
        q0 + np.array([1e-3, 0.0, 0.0]),
        np.zeros(3),
        dt,
        100,
        method="baumgarte",
        alpha=gain,
        beta=gain,
    )
    assert run.position_residual[-1] < 1e-2 * run.position_residual[0]  # 1.1e-3 -> 1.2e-6 m
