"""Step-size studies: residuals and observed orders of the constrained integrators.

Independent references: direct calls of simulate_constrained (the study must report
exactly what they report), the theoretical orders of the methods on a smooth problem
(RK4-based projection and Baumgarte 4, RATTLE 2 and its first-order opening kick),
and hand-computed orders of made-up error sequences.
"""

import dataclasses

import numpy as np
import pytest
from circle_pendulum import CIRCLE, PARTICLE, G, R

from geomotion import ConvergenceError, integrators, models

# The bound on |Phi| (m^2) of the documented default tolerance of the Newton solves: rtol =
# 1e-12 times |grad Phi| = |q| = R (m) times the length scale max(1, |q0|) = 1 (m).
ATOL = 1e-12 * R

ANGLE, RATE = 1.2, 0.5  # rad from the bottom, rad/s
Q0 = R * np.array([np.sin(ANGLE), -np.cos(ANGLE)])
V0 = R * RATE * np.array([np.cos(ANGLE), np.sin(ANGLE)])
GAINS = {"alpha": 5.0, "beta": 5.0}
STEPS = (25, 50, 100, 200)


@pytest.fixture(scope="module")
def circle_study():
    return integrators.step_size_study(PARTICLE, CIRCLE, Q0, V0, 1.0, STEPS, **GAINS)


def test_study_reports_exactly_what_simulate_constrained_reports(circle_study):
    np.testing.assert_allclose(circle_study.dt, [0.04, 0.02, 0.01, 0.005], rtol=1e-15)
    assert circle_study.steps == STEPS and circle_study.methods == (
        "baumgarte",
        "projection",
        "rattle",
    )
    for method in ("baumgarte", "projection", "rattle"):
        result = circle_study[method]
        assert result.applicable and result.reason == ""
        for k in (0, 2):
            extra = GAINS if method == "baumgarte" else {}
            direct = integrators.simulate_constrained(
                PARTICLE, CIRCLE, Q0, V0, 1.0 / STEPS[k], STEPS[k], method=method, **extra
            )
            assert result.position[k] == np.max(direct.position_residual)
            assert result.velocity[k] == np.max(direct.velocity_residual)
            assert result.acceleration[k] == np.max(direct.acceleration_residual)
            assert result.energy[k] == np.max(np.abs(direct.energy_residual))


def test_energy_balance_converges_at_each_method_order(circle_study):
    # Measured on this pendulum: projection 4.75, 4.62, 4.45 (the projection removes part
    # of the RK4 error at coarse steps, approaching 4); Baumgarte 4.28, 4.16, 4.09;
    # RATTLE 2.00, 2.00, 2.00.
    orders = {method: circle_study[method].orders["energy"] for method in circle_study.methods}
    assert np.all((orders["projection"] > 3.8) & (orders["projection"] < 5.0)), orders
    assert np.all((orders["baumgarte"] > 3.8) & (orders["baumgarte"] < 4.5)), orders
    assert np.all((orders["rattle"] > 1.9) & (orders["rattle"] < 2.1)), orders


def test_baumgarte_constraint_residuals_fall_at_fourth_order(circle_study):
    # Started on the circle, Baumgarte's violation is the integration error, damped by
    # the feedback: |Phi|, |J v| and the feedback term fall at order 4 (4.00-4.11 measured).
    result = circle_study["baumgarte"]
    for name in ("position", "velocity", "acceleration"):
        assert np.all((result.orders[name] > 3.8) & (result.orders[name] < 4.3)), name
    assert result.position[-1] < 1e-8  # m^2: 4e-9 achieved at dt = 5 ms


def test_projection_and_rattle_hold_the_constraint_at_the_solve_tolerance(circle_study):
    for method in ("projection", "rattle"):
        result = circle_study[method]
        assert np.all(result.position <= ATOL)
        assert np.all(result.velocity < 1e-14)  # 4e-16 achieved
        # Errors at their floors carry no order: reported as NaN, printed '(-)'.
        assert np.all(np.isnan(result.orders["position"]))
        assert np.all(np.isnan(result.orders["velocity"]))
        assert result.floors["position"] == pytest.approx(10 * ATOL, rel=1e-9)
    assert np.all(np.isnan(circle_study["projection"].orders["acceleration"]))
    # RATTLE's acceleration residual is that of its first-order opening half kick.
    orders = circle_study["rattle"].orders["acceleration"]
    assert np.all((orders > 0.95) & (orders < 1.1)), orders


def test_table_lists_every_method_and_step_with_orders(circle_study):
    table = circle_study.table()
    assert str(circle_study) == table
    lines = table.splitlines()
    assert lines[0] == "Step-size study over 1 s; steps 25, 50, 100, 200"
    rows = [
        line for line in lines if line.split()[:1] in (["baumgarte"], ["projection"], ["rattle"])
    ]
    assert len(rows) == 3
    rattle = lines[lines.index(rows[2]) :][:4]
    energy, orders = circle_study["rattle"].energy, circle_study["rattle"].orders["energy"]
    assert f"{energy[1]:.2e} ({orders[0]:.2f})" in rattle[1] and 1.9 < orders[0] < 2.1
    assert rattle[0].endswith(f"{energy[0]:.2e}")  # no order on the first row
    # Residuals at their floors print no digits (they are rounding or solve tolerance).
    assert rows[1].split()[:5] == ["projection", "25", "0.04", "at", "floor"]
    assert all(f"{dt:g}" in table for dt in circle_study.dt)


def test_rattle_is_not_applicable_to_a_varying_mass_matrix():
    chain = models.planar_closed_chain()
    q0 = chain.joint_coordinates(chain.closed_configuration(0.5))
    study = integrators.step_size_study(
        chain.model,
        chain.loop_closure,
        q0,
        np.zeros(3),
        0.2,
        (10, 20),
        methods=("projection", "rattle"),
        gravity=(0.0, -G, 0.0),
    )
    rattle = study["rattle"]
    assert not rattle.applicable and "mass matrix varies" in rattle.reason
    assert np.all(np.isnan(rattle.energy)) and np.all(np.isnan(rattle.orders["energy"]))
    assert "rattle      not applicable: the mass matrix varies" in study.table()
    projection = study["projection"]
    assert projection.applicable and projection.energy[1] < projection.energy[0]
    direct = integrators.simulate_constrained(
        chain.model, chain.loop_closure, q0, np.zeros(3), 0.01, 20, gravity=(0.0, -G, 0.0)
    )
    assert projection.energy[1] == np.max(np.abs(direct.energy_residual))


def test_a_batch_of_initial_states_reports_the_worst_member():
    angles = np.array([0.4, 1.2])
    q0 = R * np.stack([np.sin(angles), -np.cos(angles)], axis=-1)
    v0 = R * RATE * np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    batch = integrators.step_size_study(
        PARTICLE, CIRCLE, q0, v0, 0.5, (10, 20), methods=("projection",)
    )
    singles = [
        integrators.step_size_study(PARTICLE, CIRCLE, q, v, 0.5, (10, 20), methods=("projection",))
        for q, v in zip(q0, v0)
    ]
    np.testing.assert_array_equal(
        batch["projection"].energy, np.maximum(*(s["projection"].energy for s in singles))
    )


def test_observed_orders_and_their_floor():
    from geomotion.integrators.study import observed_orders

    dt = np.array([0.1, 0.05, 0.025])
    np.testing.assert_allclose(observed_orders(dt, [1.6e-3, 1e-4, 6.25e-6]), [4.0, 4.0], rtol=1e-12)
    np.testing.assert_allclose(observed_orders([0.3, 0.1], [9.0, 1.0]), [2.0], rtol=1e-12)
    orders = observed_orders(dt, [1e-3, 1e-13, 0.0], floor=1e-12)
    assert np.all(np.isnan(orders))


def test_study_results_are_frozen(circle_study):
    with pytest.raises(dataclasses.FrozenInstanceError):
        circle_study.duration = 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        circle_study["rattle"].energy = None
    with pytest.raises(ValueError, match="read-only"):
        circle_study["rattle"].energy[0] = 0.0
    with pytest.raises(TypeError):
        circle_study["rattle"].orders["energy"] = None
    with pytest.raises(KeyError, match="shake"):
        circle_study["shake"]
    with pytest.raises(ValueError, match="^quantity"):
        circle_study["rattle"].residual("momentum")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"steps": ()}, "steps"),
        ({"steps": (50, 50)}, "steps"),
        ({"steps": (50, 25)}, "steps"),
        ({"steps": (10, 20.5)}, "steps"),
        ({"steps": (0, 10)}, "steps"),
        ({"steps": 10}, "steps"),
        ({"methods": ("projection", "shake")}, "methods"),
        ({"methods": ()}, "methods"),
        ({"methods": ("rattle", "rattle")}, "methods"),
        ({"duration": 0.0}, "duration"),
        ({"duration": -1.0}, "duration"),
        ({"duration": np.inf}, "duration"),
        ({"duration": [1.0]}, "duration"),
        ({"dt": 0.01}, "dt"),
        ({"methods": ("baumgarte",)}, "alpha, beta"),
        ({"methods": ("baumgarte",), "alpha": 1.0}, "alpha, beta"),
        ({"methods": ("baumgarte",), "alpha": -1.0, "beta": 1.0}, "alpha"),
        ({"q0": [0.1, np.nan]}, "q0"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(kwargs, name):
    arguments = {
        "system": PARTICLE,
        "constraint": CIRCLE,
        "q0": Q0,
        "v0": V0,
        "duration": 0.1,
        "steps": (5, 10),
        "methods": ("projection",),
        **kwargs,
    }
    with pytest.raises(ValueError, match=f"^{name}"):
        integrators.step_size_study(**arguments)


def test_a_wrong_system_type_is_a_type_error():
    with pytest.raises(TypeError, match="^system"):
        integrators.step_size_study(
            "particle", CIRCLE, Q0, V0, 0.1, (5, 10), methods=("projection",)
        )
    with pytest.raises(TypeError):  # methods is keyword-only
        integrators.step_size_study(PARTICLE, CIRCLE, Q0, V0, 0.1, (5, 10), ("projection",))


def test_a_failed_run_is_a_convergence_error_naming_the_method_and_steps():
    with pytest.raises(
        ConvergenceError,
        match=r"^steps: method 'projection' with 2 steps \(dt = 0\.5 s\): Newton projection"
        r".*try a smaller step dt",
    ) as error:
        integrators.step_size_study(
            PARTICLE, CIRCLE, Q0, V0, 1.0, (2, 4), methods=("projection",), max_iter=1
        )
    assert error.value.iterations == 1


def test_a_boolean_step_count_is_a_type_error():
    with pytest.raises(TypeError, match="^steps: expected an integer >= 1, got True"):
        integrators.step_size_study(PARTICLE, CIRCLE, Q0, V0, 0.1, (True, 10))


def test_markdown_table_has_a_row_per_method_and_step_and_escapes_the_bars(circle_study):
    text = circle_study.table(format="markdown")
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + len(circle_study.methods) * len(circle_study.steps)
    assert rows[0].startswith("| method | steps | dt (s) | max\\|Phi\\| |")
    # every row has the header's number of cells (escaped bars are not borders)
    cells = {len(row.replace("\\|", "").split("|")) for row in rows}
    assert cells == {len(rows[0].replace("\\|", "").split("|"))}
    # the same numbers as the text table
    for row in circle_study.table().splitlines()[3:-2]:
        first_number = row.split()[-1]
        assert first_number in text or first_number.strip("()") in text
    with pytest.raises(ValueError, match="^format: expected 'text' or 'markdown'"):
        circle_study.table(format="html")
