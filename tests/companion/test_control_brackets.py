"""geomotion.control brackets and accessibility: the seed's bracket numbers ([X, Y] = (-1, 0),
the car's [g2, g1] = (0, 0, sec^2 phi / L, 0) and its sideways bracket), full rank that
does not mean reachability (x' = 1, y' = u), the fields of second-order mechanics (zero
input brackets, drift brackets needed, the circle's normal acceleration), bracket
identities as properties of random trigonometric fields with hand derivatives, and bad
or degenerate input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp
from strategies import examples

from geomotion import constraints, control, integrators, models

# ---------------------------------------------------------------------------
# The seed's first example: X = (x2, -x1), Y = (0, 1)
# ---------------------------------------------------------------------------

STATES_2D = np.random.default_rng(0).uniform(-3.0, 3.0, (7, 2))


def test_seed_bracket_of_rotation_and_push_is_minus_e1_everywhere():
    system = control.oscillator_fields()
    X, Y = system.drift, system.inputs[0]
    # By hand: DY = 0, DX = [[0, 1], [-1, 0]], so [X, Y] = -DX Y = -(1, 0).
    exact = control.lie_bracket(
        X, Y, STATES_2D, dX=system.drift_jacobian, dY=system.input_jacobians[0]
    )
    np.testing.assert_array_equal(exact, np.tile([-1.0, 0.0], (7, 1)))
    # Differences of linear fields are exact up to rounding (achieved ~1e-13).
    np.testing.assert_allclose(control.lie_bracket(X, Y, STATES_2D), exact, atol=1e-11)
    np.testing.assert_allclose(control.lie_bracket(Y, X, STATES_2D), -exact, atol=1e-11)


def test_the_bracket_is_a_second_direction_not_a_third():
    # At the origin X vanishes: the input Y and [Y, X] = (1, 0) span the plane, rank 2 = n.
    report = control.accessibility_rank(control.oscillator_fields(), [0.0, 0.0], depth=3)
    assert report.rank == report.dimension == 2 and report.full_rank
    assert report.brackets == ("Y", "[Y, X]")
    np.testing.assert_allclose(report.vectors, [[0.0, 1.0], [1.0, 0.0]], atol=0)
    assert report.depth == 2  # stops once the rank is full


# ---------------------------------------------------------------------------
# The kinematic car
# ---------------------------------------------------------------------------

WHEELBASE = 2.5
CAR_STATES = np.column_stack(
    [
        np.random.default_rng(1).uniform(-5.0, 5.0, (9, 2)),
        np.linspace(-np.pi, np.pi, 9),
        np.linspace(-1.2, 1.2, 9),
    ]
)


def car_hand_brackets(x, L=WHEELBASE):
    """Written out here: [g2, g1] = (0, 0, sec^2 phi / L, 0) (seed) and, since D[g2, g1] g1
    = 0 (g1 has no phi component), [g1, [g2, g1]] = -Dg1 [g2, g1] = (sin th, -cos th, 0, 0)
    sec^2 phi / L: perpendicular to the heading (cos th, sin th)."""
    theta, sec2 = x[..., 2], 1.0 / np.cos(x[..., 3]) ** 2
    zero = np.zeros_like(theta)
    heading = np.stack([zero, zero, sec2 / L, zero], axis=-1)
    sideways = np.stack([np.sin(theta) * sec2 / L, -np.cos(theta) * sec2 / L, zero, zero], axis=-1)
    return heading, sideways


def test_car_heading_bracket_matches_the_seed_formula():
    car = control.car_kinematics(wheelbase=WHEELBASE)
    (g1, g2), (dg1, dg2) = car.inputs, car.input_jacobians
    heading, _ = car_hand_brackets(CAR_STATES)
    exact = control.lie_bracket(g2, g1, CAR_STATES, dX=dg2, dY=dg1)
    np.testing.assert_allclose(exact, heading, rtol=1e-15, atol=0)
    # Differences: achieved 6e-10 at |phi| <= 1.2 rad, where tan varies fastest.
    np.testing.assert_allclose(control.lie_bracket(g2, g1, CAR_STATES), heading, atol=1e-8)


def test_car_brackets_reach_rank_four_with_a_sideways_direction():
    car = control.car_kinematics(wheelbase=WHEELBASE)
    _, sideways = car_hand_brackets(CAR_STATES)
    for x, lateral in zip(CAR_STATES, sideways):
        report = control.accessibility_rank(car, x)
        assert report.rank == 4 and report.full_rank
        assert report.brackets == ("g1", "g2", "[g2, g1]", "[g1, [g2, g1]]")
        # Depth 3 differences the exact [g2, g1] (a function of phi alone) but multiplies the
        # result by g1's zero phi-component, so it stays exact (achieved 4e-16).
        np.testing.assert_allclose(report.vectors[:, 3], lateral, atol=1e-14)
        assert abs(report.vectors[:2, 3] @ [np.cos(x[2]), np.sin(x[2])]) < 1e-9


def test_car_rank_without_exact_jacobians_is_the_same():
    car = control.car_kinematics(wheelbase=WHEELBASE)
    by_differences = control.ControlAffineSystem(drift=None, inputs=car.inputs, names=("g1", "g2"))
    _, sideways = car_hand_brackets(CAR_STATES)
    for x, lateral in zip(CAR_STATES, sideways):
        report = control.accessibility_rank(by_differences, x)
        assert report.brackets == ("g1", "g2", "[g2, g1]", "[g1, [g2, g1]]")
        # Nested differences at 3 x the default step 2e-3: achieved 5e-8 (the truncation error of the
        # inner [g2, g1], tan phi varying fast at |phi| = 1.2 rad).
        np.testing.assert_allclose(report.vectors[:, 3], lateral, atol=2e-6)


def car_drive_flow(x, t, L=WHEELBASE):
    """Exact flow of g1 for time t (steering fixed): an arc of curvature tan(phi) / L."""
    X, Y, theta, phi = x
    kappa = np.tan(phi) / L
    turned = theta + kappa * t
    return np.array(
        [
            X + (np.sin(turned) - np.sin(theta)) / kappa,
            Y - (np.cos(turned) - np.cos(theta)) / kappa,
            turned,
            phi,
        ]
    )


def car_steer_flow(x, t):
    return x + np.array([0.0, 0.0, 0.0, t])


def test_a_loop_of_flows_moves_the_car_along_the_bracket():
    # Drive t, steer t, drive back, steer back: x + t^2 [g1, g2] + O(t^3), with the sign
    # convention [X, Y] = DY X - DX Y.  The flows are the exact arcs, written out here.
    car = control.car_kinematics(wheelbase=WHEELBASE)
    x = np.array([0.4, -1.0, 0.8, 0.3])
    bracket = control.lie_bracket(car.inputs[0], car.inputs[1], x)
    errors = []
    for t in (2e-2, 1e-2):
        end = car_steer_flow(car_drive_flow(car_steer_flow(car_drive_flow(x, t), t), -t), -t)
        errors.append(np.abs((end - x) / t**2 - bracket).max())
    assert errors[0] < 1e-2 and 1.6 < errors[0] / errors[1] < 2.4  # O(t): halves with t


def test_steering_alone_does_not_move_the_car():
    car = control.car_kinematics(wheelbase=WHEELBASE)
    velocity = car.velocity(CAR_STATES, np.array([0.0, 0.7]))
    np.testing.assert_array_equal(velocity[:, :3], 0.0)
    np.testing.assert_array_equal(velocity[:, 3], 0.7)


# ---------------------------------------------------------------------------
# Full rank is not reachability: x' = 1, y' = u
# ---------------------------------------------------------------------------


def test_forward_drift_has_full_rank_but_x_never_decreases():
    system = control.forward_drift_example()
    report = control.accessibility_rank(system, [0.3, -1.0])
    assert report.full_rank and report.rank == 2 and report.brackets == ("f", "g")
    rng = np.random.default_rng(2)
    levels = rng.uniform(-50.0, 50.0, 20)  # piecewise-constant inputs, 0.1 s each

    def rhs(t, x):
        u = levels[min(int(t / 0.1), levels.size - 1)]
        return system.velocity(x, [u])

    times = np.linspace(0.0, 2.0, 201)
    solution = solve_ivp(rhs, (0.0, 2.0), [0.3, -1.0], t_eval=times, max_step=0.01)
    assert np.all(np.diff(solution.y[0]) > 0)  # never decreases, whatever the input
    np.testing.assert_allclose(solution.y[0], 0.3 + times, atol=1e-12)  # x(t) = x0 + t
    assert np.ptp(solution.y[1]) > 1.0  # while y is steered freely


# ---------------------------------------------------------------------------
# Second-order mechanics: F0 = (v, f), F_i = (0, G_i)
# ---------------------------------------------------------------------------

ARM = integrators.MechanicalSystem.from_tree(models.two_link_teaching_arm(), gravity=(0, -9.81, 0))
ARM_STATE = np.array([0.3, -0.5, 0.7, -0.2])


def test_input_fields_of_mechanics_commute_and_drift_brackets_are_needed():
    fields = control.mechanical_fields(ARM, np.eye(2))
    F1, F2 = fields.inputs
    np.testing.assert_allclose(control.lie_bracket(F1, F2, ARM_STATE), 0.0, atol=1e-12)
    inputs_only = control.ControlAffineSystem(drift=None, inputs=fields.inputs)
    assert control.accessibility_rank(inputs_only, ARM_STATE, depth=3).rank == 2  # d, not 2d
    report = control.accessibility_rank(fields, ARM_STATE, depth=2)
    assert report.full_rank and report.dimension == 4
    assert "F0" in report.brackets and "[F1, F0]" in report.brackets
    # [F1, F0] = DF0 F1 - DF1 F0 = (G1, f_v G1 - dG1/dq v): configuration part M^-1 e1.
    G1 = np.linalg.solve(ARM.mass_matrix(ARM_STATE[:2]), [1.0, 0.0])
    bracket = control.lie_bracket(F1, fields.drift, ARM_STATE)
    # Differencing the configuration part v of F0 is exact: achieved 0.
    np.testing.assert_allclose(bracket[:2], G1, atol=1e-12)


def test_underactuated_arm_needs_deeper_drift_brackets():
    fields = control.mechanical_fields(ARM, np.array([[0.0], [1.0]]))
    shallow = control.accessibility_rank(fields, ARM_STATE, depth=2)
    assert shallow.rank == 3 and not shallow.full_rank
    deep = control.accessibility_rank(fields, ARM_STATE, depth=3)
    assert deep.full_rank and deep.brackets[-1] == "[F0, [F1, F0]]"
    assert 0 < deep.margins.min() < 1  # the report shows how close to dependent


def test_second_order_fields_of_a_pendulum_by_hand():
    # q'' = -sin q + u: F0 = (v, -sin q), F1 = (0, 1), [F1, F0] = DF0 F1 = (1, 0).
    fields = control.second_order_fields(
        lambda q, v: -np.sin(q), lambda q: np.ones(q.shape + (1,)), num_inputs=1
    )
    states = np.random.default_rng(3).uniform(-3, 3, (5, 2))
    np.testing.assert_allclose(
        control.lie_bracket(fields.inputs[0], fields.drift, states),
        np.tile([1.0, 0.0], (5, 1)),
        atol=1e-11,
    )
    np.testing.assert_allclose(
        fields.drift(states), np.column_stack([states[:, 1], -np.sin(states[:, 0])])
    )


def circle_particle(radius=1.0, mass=1.0):
    system = integrators.MechanicalSystem(
        mass_matrix=lambda q: mass * np.broadcast_to(np.eye(2), q.shape[:-1] + (2, 2)),
        bias=lambda q, v: np.zeros(np.broadcast_shapes(q.shape, v.shape)),
        potential=lambda q: np.zeros(q.shape[:-1]),
    )
    circle = constraints.FunctionConstraint(
        residual=lambda q: 0.5 * ((q * q).sum(-1, keepdims=True) - radius**2),
        jacobian=lambda q: q[..., None, :],
        acceleration_bias=lambda q, v: (v * v).sum(-1, keepdims=True),
    )
    return system, circle


def test_circle_fields_carry_the_seed_normal_acceleration():
    system, circle = circle_particle()
    fields = control.mechanical_fields(system, np.eye(2), constraint=circle)
    z = np.array([1.0, 0.0, 0.0, 2.0])  # q = (1, 0), v = (0, 2): the seed's state
    # Seed: radial acceleration -|v|^2 / R = -4 at zero input.
    np.testing.assert_allclose(fields.drift(z), [0.0, 2.0, -4.0, 0.0], atol=1e-14)
    # Input accelerations are tangent: G = P_v B = I - q q^T / R^2.
    np.testing.assert_allclose(fields.inputs[0](z), [0, 0, 0, 0], atol=1e-15)
    np.testing.assert_allclose(fields.inputs[1](z), [0, 0, 0, 1], atol=1e-15)


def test_circle_state_dimension_is_two_and_needs_the_drift():
    system, circle = circle_particle(radius=0.8)
    fields = control.mechanical_fields(system, np.eye(2), constraint=circle)
    angle, rate = 0.7, 1.3
    q = 0.8 * np.array([np.cos(angle), np.sin(angle)])
    z = np.concatenate([q, rate * np.array([-q[1], q[0]])])  # on TQ_c: J_c v = q.v = 0
    inputs_only = control.ControlAffineSystem(drift=None, inputs=fields.inputs, dimension=2)
    assert control.accessibility_rank(inputs_only, z).rank == 1  # d = 1 acceleration direction
    report = control.accessibility_rank(fields, z)
    assert report.dimension == 2 and report.rank == 2 and report.full_rank
    assert report.brackets[0] == "F0"


# ---------------------------------------------------------------------------
# Properties: random trigonometric fields with hand-written derivatives
# ---------------------------------------------------------------------------

N = 3


def trig_field(rng):
    """X_i = sum_j a_ij sin(b_ij . x + c_ij), its Jacobian and second derivatives by hand."""
    a, b, c = rng.normal(size=(N, N)), rng.normal(size=(N, N, N)), rng.uniform(0, 6, (N, N))

    def phase(x):
        return np.einsum("ijk,...k->...ij", b, x) + c

    def X(x):
        return np.einsum("ij,...ij->...i", a, np.sin(phase(x)))

    def dX(x):
        return np.einsum("ij,...ij,ijk->...ik", a, np.cos(phase(x)), b)

    def d2X(x):
        return -np.einsum("ij,...ij,ijk,ijl->...ikl", a, np.sin(phase(x)), b, b)

    return X, dX, d2X


def hand_bracket(X, dX, Y, dY, x):
    return dY(x) @ X(x) - dX(x) @ Y(x)


def hand_bracket_jacobian(X, dX, d2X, Y, dY, d2Y, x):
    """D[X, Y] = D2Y X + DY DX - D2X Y - DX DY, written out (index k is the derivative)."""
    return (
        np.einsum("ijk,j->ik", d2Y(x), X(x))
        + dY(x) @ dX(x)
        - np.einsum("ijk,j->ik", d2X(x), Y(x))
        - dX(x) @ dY(x)
    )


seeds = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=examples(40))
@given(seeds)
def test_brackets_are_antisymmetric_and_match_the_hand_formula(seed):
    rng = np.random.default_rng(seed)
    (X, dX, _), (Y, dY, _) = trig_field(rng), trig_field(rng)
    x = rng.uniform(-3, 3, (4, N))
    exact = control.lie_bracket(X, Y, x, dX=dX, dY=dY)
    np.testing.assert_allclose(exact, -control.lie_bracket(Y, X, x, dX=dY, dY=dX), atol=1e-14)
    reference = np.array([hand_bracket(X, dX, Y, dY, p) for p in x])
    scale = 1.0 + np.abs(reference).max()
    np.testing.assert_allclose(exact, reference, atol=1e-13 * scale)
    # Differences: achieved 4e-12 relative (200 seeds) for these unit-frequency fields.
    np.testing.assert_allclose(control.lie_bracket(X, Y, x), reference, atol=4e-10 * scale)


@settings(max_examples=examples(30))
@given(seeds)
def test_jacobi_identity_and_nested_differences(seed):
    rng = np.random.default_rng(seed)
    (X, dX, d2X), (Y, dY, d2Y), (Z, dZ, d2Z) = (trig_field(rng) for _ in range(3))
    x = rng.uniform(-3, 3, N)
    fields = {"X": (X, dX, d2X), "Y": (Y, dY, d2Y), "Z": (Z, dZ, d2Z)}

    def nested(a, b, c):
        """[a, [b, c]] with exact derivatives: the inner bracket's Jacobian by hand."""
        (A, dA, _), (B, dB, d2B), (C, dC, d2C) = fields[a], fields[b], fields[c]

        def inner(p):
            return control.lie_bracket(B, C, p, dX=dB, dY=dC)

        def d_inner(p):
            return hand_bracket_jacobian(B, dB, d2B, C, dC, d2C, p)

        return control.lie_bracket(A, inner, x, dX=dA, dY=d_inner)

    terms = [nested("X", "Y", "Z"), nested("Y", "Z", "X"), nested("Z", "X", "Y")]
    scale = 1.0 + max(np.abs(t).max() for t in terms)
    np.testing.assert_allclose(sum(terms), 0.0, atol=1e-13 * scale)

    # The same depth-2 bracket with every derivative by differences (nested): achieved
    # 2e-9 relative (200 seeds).
    def inner(p):
        return control.lie_bracket(Y, Z, p)

    np.testing.assert_allclose(control.lie_bracket(X, inner, x), terms[0], atol=1e-7 * scale)


# ---------------------------------------------------------------------------
# Degenerate and bad input
# ---------------------------------------------------------------------------


def test_batches_of_one_and_many_and_a_constant_field_of_shape_n():
    def X(x):
        return np.stack([x[..., 1], -x[..., 0]], axis=-1)

    def Y(x):
        return np.array([0.0, 1.0])  # constant: shape (n,) is broadcast

    for x in (
        np.zeros((1, 2)),
        np.random.default_rng(4).normal(size=(1000, 2)),
        np.zeros((2, 3, 2)),
    ):
        bracket = control.lie_bracket(X, Y, x)
        assert bracket.shape == x.shape
        np.testing.assert_allclose(bracket, np.broadcast_to([-1.0, 0.0], x.shape), atol=1e-11)


def test_vanishing_fields_give_rank_zero():
    def zero(x):
        return np.zeros_like(x)

    report = control.accessibility_rank(control.ControlAffineSystem(None, (zero, zero)), [1.0, 2.0])
    assert report.rank == 0 and not report.full_rank and report.brackets == ()
    assert report.vectors.shape == (2, 0)


def test_field_jacobian_of_the_car_against_the_exact_one():
    car = control.car_kinematics(wheelbase=WHEELBASE)
    D = control.field_jacobian(car.inputs[0], CAR_STATES)
    np.testing.assert_allclose(D, car.input_jacobians[0](CAR_STATES), atol=1e-8)  # 6e-10


INDEFINITE = integrators.MechanicalSystem(
    mass_matrix=lambda q: np.broadcast_to(np.diag([1.0, -1.0]), q.shape[:-1] + (2, 2)),
    bias=lambda q, v: np.zeros(np.broadcast_shapes(q.shape, v.shape)),
    potential=lambda q: np.zeros(q.shape[:-1]),
)


# --- fields written for one point (the contract of geomotion._numerics.evaluate) ---------


def single_point_field(x):
    """The seed's X = (x2, -x1) as a reader writes it: x[1] indexes the batch of a stack."""
    return np.array([x[1], -x[0]])


def broadcasting_field(x):
    return np.stack([x[..., 1], -x[..., 0]], axis=-1)


def single_point_curl(x):
    """Y = (x2^2, sin x1) for one point: [X, Y] is not constant, so stacking errors show."""
    return np.array([x[1] ** 2, np.sin(x[0])])


def broadcasting_curl(x):
    return np.stack([x[..., 1] ** 2, np.sin(x[..., 0])], axis=-1)


def bracket_by_hand(x):
    # [X, Y] = DY X - DX Y with DY = [[0, 2 x2], [cos x1, 0]], DX = [[0, 1], [-1, 0]].
    x1, x2 = x[..., 0], x[..., 1]
    return np.stack([-2 * x2 * x1 - np.sin(x1), x2 * np.cos(x1) + x2**2], axis=-1)


@pytest.mark.parametrize(
    "x",
    [
        [0.3, -0.8],
        [[0.3, -0.8], [1.2, 0.5], [-2.0, 0.1]],
        [[0.4, 0.9]],
        # Two states of two coordinates: the stacked call returns the expected shape (2, 2)
        # with the numbers transposed; only the single-point comparison catches that.
        [[0.3, -0.8], [1.2, 0.5]],
    ],
)
def test_fields_written_for_one_point_give_the_broadcasting_bracket(x):
    # Before: "X: expected a result of shape (4, 2, 2), got shape (2, 2, 2)".
    x = np.asarray(x)
    natural = control.lie_bracket(single_point_field, single_point_curl, x)
    np.testing.assert_allclose(
        natural, control.lie_bracket(broadcasting_field, broadcasting_curl, x), rtol=0, atol=1e-15
    )
    np.testing.assert_allclose(natural, bracket_by_hand(x), rtol=0, atol=1e-10)  # 3e-12
    np.testing.assert_allclose(
        control.field_jacobian(single_point_curl, x),
        control.field_jacobian(broadcasting_curl, x),
        rtol=0,
        atol=1e-15,
    )


def test_accessibility_rank_of_fields_written_for_one_point():
    # X = (x2, -x1), Y = (x2^2, sin x1) at (0.3, -0.8): Y and [X, Y] span the plane.
    system = control.ControlAffineSystem(None, (single_point_field, single_point_curl))
    reference = control.ControlAffineSystem(None, (broadcasting_field, broadcasting_curl))
    x = [0.3, -0.8]
    natural, broadcast = (
        control.accessibility_rank(system, x),
        control.accessibility_rank(reference, x),
    )
    assert natural.rank == broadcast.rank == 2 and natural.brackets == broadcast.brackets
    np.testing.assert_allclose(natural.vectors, broadcast.vectors, rtol=0, atol=1e-15)


def test_a_wrong_shape_at_one_point_of_a_stack_is_named():
    # Shape (2,) at two of the points, (3,) at the middle one: every result is checked.
    def uneven(x):
        return np.zeros(3) if x[0] > 1.5 else np.array([x[1], -x[0]])

    with pytest.raises(
        ValueError, match=r"^Y: expected a result of shape \(2,\) .*got shape \(3,\)"
    ):
        control.lie_bracket(broadcasting_field, uneven, [[0.0, 0.0], [2.0, 0.0], [0.5, 0.5]])


@pytest.mark.parametrize("x", [[0.3, -0.8], [[0.3, -0.8], [2.0, 0.5]]])
def test_the_users_own_exception_propagates_unchanged(x):
    class OwnError(TypeError):
        pass

    def failing(x):
        raise OwnError("my field is not defined here")

    with pytest.raises(OwnError) as caught:
        control.lie_bracket(broadcasting_field, failing, x)
    assert caught.value.args == ("my field is not defined here",)

    def failing_at_one_point(x):  # raises for one point of the stack, not at the last one
        if x[0] > 1.5:
            raise ZeroDivisionError("outside the domain")
        return np.array([x[1], -x[0]])

    with pytest.raises(ZeroDivisionError, match="^outside the domain$"):
        control.lie_bracket(broadcasting_field, failing_at_one_point, [[2.0, 0.0], [0.5, 0.5]])


# Matches of the cases that pass a value of the wrong type (TypeError, not ValueError).
WRONG_TYPES = {
    "X: expected a callable",
    "Y: expected a callable",
    "dX: expected a callable",
    r"inputs\[0\]: expected a callable",
    "system: expected",
}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: control.lie_bracket(3.0, lambda x: x, [1.0, 2.0]), "X: expected a callable"),
        (lambda: control.lie_bracket(lambda x: x, None, [1.0, 2.0]), "Y: expected a callable"),
        (
            lambda: control.lie_bracket(lambda x: x, lambda x: x, [1.0, 2.0], dX=1),
            "dX: expected a callable",
        ),
        (
            lambda: control.lie_bracket(lambda x: x[..., :1], lambda x: x, [1.0, 2.0]),
            "X: expected a result of shape",
        ),
        (
            lambda: control.lie_bracket(
                lambda x: x, lambda x: np.full(x.shape, np.inf), [1.0, 2.0]
            ),
            "Y: expected finite values",
        ),
        (
            lambda: control.lie_bracket(lambda x: x, lambda x: x, [np.nan, 2.0]),
            "x: expected finite values",
        ),
        (lambda: control.lie_bracket(lambda x: x, lambda x: x, 1.0), "x: expected shape"),
        (
            lambda: control.lie_bracket(lambda x: x, lambda x: x, [1.0, 2.0], step=-1e-3),
            "step: expected positive",
        ),
        (
            lambda: control.lie_bracket(
                lambda x: x,
                lambda x: x,
                [1.0],
                dX=lambda x: 0 * x[..., None],
                dY=lambda x: 0 * x[..., None],
                step=1e-3,
            ),
            "step: expected None",
        ),
        (lambda: control.ControlAffineSystem(None, ()), "inputs: expected at least one"),
        (lambda: control.ControlAffineSystem(None, (1.0,)), r"inputs\[0\]: expected a callable"),
        (
            lambda: control.ControlAffineSystem(lambda x: x, (lambda x: x,), names=("a",)),
            "names: expected 2 labels",
        ),
        (
            lambda: control.ControlAffineSystem(None, (lambda x: x,), input_jacobians=()),
            "input_jacobians: expected 1 entries",
        ),
        (
            lambda: control.ControlAffineSystem(None, (lambda x: x,), dimension=0),
            "dimension: expected",
        ),
        (lambda: control.accessibility_rank("car", [0.0, 0, 0, 0]), "system: expected"),
        (
            lambda: control.accessibility_rank(control.car_kinematics(), [0.0, 0, 0, 0], depth=0),
            "depth: expected",
        ),
        (
            lambda: control.accessibility_rank(control.car_kinematics(), [0.0, 0, 0, 0], rtol=1.5),
            "rtol: expected",
        ),
        (
            lambda: control.accessibility_rank(control.car_kinematics(), np.zeros((2, 4))),
            "x: expected one state",
        ),
        (
            lambda: control.accessibility_rank(control.car_kinematics(), [0.0, 0, 0, np.pi / 2]),
            "x: expected steering angles",
        ),
        (lambda: control.car_kinematics(wheelbase=0.0), "wheelbase: expected positive"),
        (lambda: control.second_order_fields(lambda q, v: q, lambda q: q, 0), "num_inputs"),
        (
            lambda: control.second_order_fields(lambda q, v: q, lambda q: q[..., None], 1).drift(
                np.zeros(3)
            ),
            "x: expected a state",
        ),
        (lambda: control.mechanical_fields("arm", np.eye(2)), "system: expected"),
        (lambda: control.mechanical_fields(ARM, np.eye(2)[None]), "^B: expected"),
        (
            lambda: control.mechanical_fields(INDEFINITE, np.eye(2)).drift(np.zeros(4)),
            r"system.mass_matrix\(q\): expected a symmetric positive definite",
        ),
    ],
)
def test_bad_input_is_refused_with_the_argument_named(call, match):
    # A value of the wrong type (a non-callable field, not a system) is a TypeError.
    error = TypeError if match in WRONG_TYPES else ValueError
    with pytest.raises(error, match=match):
        call()


def test_a_constraint_without_the_protocol_is_a_type_error():
    with pytest.raises(TypeError, match="constraint: expected an object"):
        control.mechanical_fields(ARM, np.eye(2), constraint=object())
