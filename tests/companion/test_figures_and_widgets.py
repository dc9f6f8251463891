"""Figures draw the numbers the chapter quotes; explorers redraw them from their sliders."""

import inspect
import re

import ipywidgets
import matplotlib
import numpy as np
import pytest
from conftest import SLOW_FIGURES, figure_call, slow_marked
from matplotlib.figure import Figure
from scipy.integrate import solve_ivp
from trees import random_spec

from geomotion import figures, integrators, models, verification, widgets


def texts(fig):
    """Every string drawn on a figure: titles, annotations, tick labels, legend entries."""
    fig.draw_without_rendering()  # tick labels exist only once the figure is laid out
    return " | ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))


def bar_heights(ax):
    return [patch.get_height() for patch in ax.patches]


def test_reporting_origin_figure_shows_20_watts_about_both_points():
    fig = figures.reporting_origin_figure()
    _, moment, linear, power = fig.axes
    np.testing.assert_allclose(bar_heights(moment), [0.0, 2.0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(bar_heights(linear), [2.0, 1.4], rtol=0, atol=1e-14)
    np.testing.assert_allclose(bar_heights(power), [20.0, 20.0], rtol=0, atol=1e-13)
    assert "about A" in texts(fig)


@pytest.mark.parametrize("origin_x", [-0.5, 0.35, 0.8])
def test_power_stays_20_watts_wherever_the_reporting_origin_goes(origin_x):
    fig = figures.reporting_origin_figure(origin_x=origin_x)
    # Achieved: 3.6e-15 W (rounding of the transported twist and wrench).
    np.testing.assert_allclose(bar_heights(fig.axes[3]), [20.0, 20.0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(
        bar_heights(fig.axes[1])[1], 10.0 * (0.2 - origin_x), rtol=0, atol=1e-14
    )


def test_inertia_energy_figure_has_the_zero_point_mass_energy_and_the_retained_0_05_joules():
    fig = figures.inertia_energy_figure()
    left, right = fig.axes
    point, disk = (line.get_ydata() for line in left.get_lines()[:2])
    v_y = left.get_lines()[0].get_xdata()
    assert v_y[np.argmin(point)] == pytest.approx(-0.3, abs=1e-15)  # a grid point
    assert point.min() == pytest.approx(0.0, abs=1e-15) and disk.min() == pytest.approx(
        0.05, abs=1e-15
    )
    m11, m12, m22 = (line.get_ydata() for line in right.get_lines()[:3])
    assert m11.max() == pytest.approx(0.9175, abs=1e-14) and m11.min() == pytest.approx(
        0.3175, abs=1e-14
    )
    assert m12.min() < 0 < m12.max()
    np.testing.assert_allclose(m22, 0.0675, rtol=0, atol=1e-15)


def test_joint_inertia_figure_reports_the_chapter_energy():
    assert "K = v^T M v / 2 = 0.15875 J" in texts(
        figures.joint_inertia_figure(q2=0.0, v=(1.0, -2.0))
    )


def test_rotated_inertia_figure_keeps_the_energy():
    drawn = texts(figures.rotated_inertia_figure(angle=np.pi / 2))
    assert drawn.count("K = 0.500 J") == 2 and "2.000" in drawn


# A number in a label that is zero but for its sign: "-0", "-0.000", "-0.0e+00" (also with
# matplotlib's minus sign U+2212).
NEGATIVE_ZERO = re.compile(r"(?<![\w.])[-\u2212]0(?:\.0+)?(?:e[+-]?\d+)?(?![\w.])")


def test_rotated_inertia_figure_prints_rounded_zeros_without_a_sign():
    # R I_C R^T at 90 degrees has off-diagonal entries of about +-1e-16, and R omega an
    # x component of 6e-17: all must read 0.000 or 0.00, none -0.000.
    fig = figures.rotated_inertia_figure(angle=np.pi / 2)
    cells = [t.get_text() for t in fig.axes[1].texts]
    assert cells.count("0.000") == 6 and "-0.000" not in cells
    assert "omega = (0.00, 1.00, 0.00) rad/s" in fig.axes[1].get_title()


@pytest.mark.parametrize(
    "name", slow_marked(sorted(n for n in figures.__all__ if n.endswith("_figure")), SLOW_FIGURES)
)
def test_no_figure_label_shows_a_negative_zero(name, request):
    drawn = texts(figure_call(name, request))  # with the data it takes (conftest.py)
    assert not NEGATIVE_ZERO.findall(drawn), NEGATIVE_ZERO.findall(drawn)


@pytest.mark.parametrize(
    "value, spec, text",
    [
        (-1e-16, ".3f", "0.000"),
        (-0.0, "g", "0"),
        (-0.0, ".1e", "0.0e+00"),
        (-4e-4, ".3f", "0.000"),
        (-5e-4, ".4f", "-0.0005"),
        (-0.5, ".3g", "-0.5"),
        (-1e-16, ".3g", "-1e-16"),
        (-0.0, ".0%", "0%"),
        (2.5, ".2f", "2.50"),
    ],
)
def test_label_numbers_lose_only_the_sign_of_a_zero(value, spec, text):
    assert figures._style.fmt(value, spec) == text


@pytest.mark.parametrize("far", [False, True])
def test_particle_energy_figure_labels_the_cloud_wherever_the_tree_sits(far):
    spec = random_spec(np.random.default_rng(33), 6, "rph", roots=2)
    if far:  # the roots 1 km from the base origin
        spec.offsets[:2] = [[1000.0, -800.0, 500.0], [-700.0, 900.0, 20.0]]
    model = spec.tree()
    fig = figures.particle_energy_figure(model=model, n_states=5)
    fig.draw_without_rendering()
    x = verification.tree_particle_cloud(model, np.zeros(spec.n))[..., 0]
    ticks = fig.axes[0].get_xticks()
    assert np.any((ticks >= x.min()) & (ticks <= x.max()))
    assert np.ptp(ticks) >= 0.1 * np.ptp(x)  # spread over the cloud, not crowded into one spot
    matrix_energy, particle_energy = fig.axes[1].get_lines()[0].get_data()
    np.testing.assert_allclose(particle_energy, matrix_energy, rtol=3e-14)


def test_screw_axis_figure_states_pitch_and_axis():
    drawn = texts(figures.screw_axis_figure(V=[0, 0, 2, 0, -2, 1]))
    assert "r_perp = (1.00, 0.00, 0.00) m" in drawn and "pitch h = 0.50 m/rad" in drawn


def test_particle_energy_figure_compares_particle_sums_with_the_mass_matrix():
    fig = figures.particle_energy_figure(n_states=20)
    matrix_energy, particle_energy = fig.axes[1].get_lines()[0].get_data()
    np.testing.assert_allclose(particle_energy, matrix_energy, rtol=3e-14)  # achieved 7e-16
    assert len(matrix_energy) == 20


def elbow_energy_by_hand(q2, v):
    """Two-link kinetic energy from the chapter's closed-form M(q2), J."""
    M = np.array(
        [
            [0.6175 + 0.3 * np.cos(q2), 0.0675 + 0.15 * np.cos(q2)],
            [0.0675 + 0.15 * np.cos(q2), 0.0675],
        ]
    )
    return 0.5 * v @ M @ v


def shows_origin(origin_x):
    """The figure's moment about O is 10 N x (0.2 m - origin_x) and O is drawn at origin_x."""

    def check(fig):
        np.testing.assert_allclose(
            bar_heights(fig.axes[1]), [0.0, 10.0 * (0.2 - origin_x)], rtol=0, atol=1e-12
        )
        markers = [
            line.get_xdata()[0] for line in fig.axes[0].get_lines() if line.get_marker() == "o"
        ]
        assert markers == pytest.approx([0.2, origin_x], abs=1e-15)

    return check


def shows_elbow(q2, v1, v2):
    """The elbow marker sits at q2; title, rates and energy are those of the slider values."""

    def check(fig):
        vertical = [
            line.get_xdata()[0]
            for line in fig.axes[0].get_lines()
            if len(line.get_xdata()) == 2 and line.get_xdata()[0] == line.get_xdata()[1]
        ]
        assert vertical == pytest.approx([q2], abs=1e-15)
        energy = elbow_energy_by_hand(q2, np.array([v1, v2]))
        drawn = texts(fig)
        assert f"q2 = {q2:.3f} rad" in drawn and f"rates ({v1:g}, {v2:g}) rad/s" in drawn
        assert f"K = v^T M v / 2 = {energy:.5f} J" in drawn

    return check


def shows_rotation(degrees):
    """The rotated panel's title, angular velocity and off-diagonal (1 - 2) cos sin follow the slider."""

    def check(fig):
        angle = np.radians(degrees)
        drawn = texts(fig)
        assert f"rotated by {degrees:.0f} deg about z" in drawn
        assert f"omega = ({np.cos(angle):.2f}, {np.sin(angle):.2f}, 0.00) rad/s" in drawn
        off_diagonal = f"{(1.0 - 2.0) * np.cos(angle) * np.sin(angle):.3f}"
        assert (off_diagonal if float(off_diagonal) != 0 else "0.000") in drawn  # never -0.000

    return check


def shows_baumgarte(alpha, beta, dt):
    """The stabilized run has the slider gains and step, and the closed form its gains."""

    def check(fig):
        left = fig.axes[0]
        run = lines_labelled(left, f"Baumgarte α = {alpha:g}, β = {beta:g} 1/s")
        assert len(run) == 1
        t = run[0].get_xdata()
        assert t[1] - t[0] == pytest.approx(dt, rel=1e-12)
        closed_form = lines_labelled(left, "closed form")[0]
        expected = figures.violation_closed_form(t, 0.5 * (1.1**2 - 1.0), 0.22, alpha, beta)
        np.testing.assert_allclose(closed_form.get_ydata(), expected, rtol=0, atol=1e-14)
        assert f"dt = {dt:g} s" in texts(fig)

    return check


def shows_phase(a0, b0, k, clockwise):
    """The loop has the slider sides and orientation; theta ends at -/+ k a0 b0."""

    def check(fig):
        vertices = fig.axes[0].get_lines()[0].get_xydata()
        np.testing.assert_allclose(np.ptp(vertices, axis=0), [a0, b0], rtol=0, atol=1e-15)
        theta = fig.axes[1].get_lines()[0].get_ydata()
        assert theta[-1] == pytest.approx(k * a0 * b0 * (1 if clockwise else -1), abs=1e-13)
        assert (
            f"{'clockwise' if clockwise else 'counterclockwise'} loop, a0 = {a0:g}, b0 = {b0:g}"
        ) in texts(fig)

    return check


def shows_allocation(w1, w2):
    """For G = (1, 1), b = 1, W = diag(w1, w2) the weighted input is (w2, w1) / (w1 + w2)."""

    def check(fig):
        weighted = markers(fig.axes[0], "s")[0][0]
        np.testing.assert_allclose(weighted, np.array([w2, w1]) / (w1 + w2), rtol=1e-13)
        np.testing.assert_allclose(markers(fig.axes[0], "o")[0][0], [0.5, 0.5], rtol=1e-14)

    return check


@pytest.mark.parametrize(
    "explorer, values, default_view, moved_view",
    [
        (
            widgets.reporting_origin_explorer,
            {"origin_x": 0.4},
            shows_origin(0.0),
            shows_origin(0.4),
        ),
        (
            widgets.elbow_explorer,
            {"q2": 1.0, "v1": 0.5, "v2": -1.0},
            shows_elbow(0.0, 1.0, -2.0),
            shows_elbow(1.0, 0.5, -1.0),
        ),
        (
            widgets.inertia_rotation_explorer,
            {"degrees": 45.0},
            shows_rotation(90.0),
            shows_rotation(45.0),
        ),
        (
            widgets.baumgarte_explorer,
            {"alpha": 5.0, "beta": 1.5, "dt": 0.01},
            shows_baumgarte(2.0, 3.0, 0.02),
            shows_baumgarte(5.0, 1.5, 0.01),
        ),
        (
            widgets.phase_loop_explorer,
            {"a0": 0.6, "b0": 1.2, "k": -1.5, "clockwise": True},
            shows_phase(1.0, 0.5, 1.0, False),
            shows_phase(0.6, 1.2, -1.5, True),
        ),
        (
            widgets.allocation_explorer,
            {"w1": 2.0, "w2": 0.5},
            shows_allocation(1.0, 4.0),
            shows_allocation(2.0, 0.5),
        ),
    ],
    ids=["reporting origin", "elbow", "inertia rotation", "baumgarte", "phase loop", "allocation"],
)
def test_explorers_redraw_their_figure_from_the_sliders(
    explorer, values, default_view, moved_view, monkeypatch
):
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)
    interactive = explorer()
    assert isinstance(interactive, ipywidgets.interactive)
    sliders = {child.description: child for child in interactive.children[:-1]}
    assert len(sliders) == len(values)
    interactive.f(**values)
    assert len(shown) == 2 and all(
        isinstance(fig, Figure) for fig in shown
    )  # default view, then ours
    default_view(shown[0])
    moved_view(shown[1])
    with pytest.raises(AssertionError):  # the checks tell the two views apart
        moved_view(shown[0])


@pytest.mark.parametrize(
    "explorer, end_view",
    [
        (widgets.reporting_origin_explorer, shows_origin(0.8)),
        (widgets.elbow_explorer, shows_elbow(np.pi, 1.0, -2.0)),
        (widgets.inertia_rotation_explorer, shows_rotation(180.0)),
        (widgets.baumgarte_explorer, shows_baumgarte(10.0, 3.0, 0.02)),
        (widgets.phase_loop_explorer, shows_phase(2.0, 0.5, 1.0, False)),
        (widgets.allocation_explorer, shows_allocation(8.0, 4.0)),
    ],
    ids=["reporting origin", "elbow", "inertia rotation", "baumgarte", "phase loop", "allocation"],
)
def test_dragging_the_first_slider_to_its_end_redraws_the_figure_there(
    explorer, end_view, monkeypatch
):
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)
    slider = explorer().children[0]
    slider.value = slider.max  # what a reader's drag does: the widget calls back with the value
    assert len(shown) == 2
    end_view(shown[1])


# --- chapter 2 figures -----------------------------------------------------------------
#
# Each figure's drawn data are checked against numbers computed here independently: hand
# formulas of the chapter, closed forms, or a different route through the geometry.


def cross2(a, b):
    """z component of the cross product of planar vectors (..., 2)."""
    a, b = np.asarray(a), np.asarray(b)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def lines_labelled(ax, label):
    return [line for line in ax.get_lines() if line.get_label() == label]


def markers(ax, marker="o"):
    """Data of the marker-only lines of ``ax``."""
    return [
        line.get_xydata()
        for line in ax.get_lines()
        if line.get_marker() == marker and line.get_linestyle() == "None"
    ]


def quivers(ax):
    """{label: (U, V)} of the labelled quiver arrows on ``ax``."""
    return {
        q.get_label(): np.column_stack([q.U, q.V])
        for q in ax.collections
        if isinstance(q, matplotlib.quiver.Quiver)
    }


def inside_canvas(fig):
    """Nothing drawn (labels, titles, legends) sticks out of the figure."""
    fig.draw_without_rendering()
    tight = fig.get_tightbbox()
    width, height = fig.get_size_inches()
    return (
        tight.x0 >= -1e-9
        and tight.y0 >= -1e-9
        and tight.x1 <= width + 1e-9
        and tight.y1 <= height + 1e-9
    )


CHAPTER_2_FIGURES = [
    "closed_chain_figure",
    "circle_acceleration_figure",
    "allocation_figure",
    "grip_figure",
    "center_of_pressure_figure",
    "car_bracket_figure",
    "phase_loop_figure",
    "baumgarte_figure",
    "integrator_study_figure",
]


@pytest.fixture(scope="module")
def default_chapter_2_figures():
    return {name: getattr(figures, name)() for name in CHAPTER_2_FIGURES}


@pytest.mark.parametrize("name", CHAPTER_2_FIGURES)
def test_chapter_2_figures_are_figures_at_book_width_with_labelled_axes(
    name, default_chapter_2_figures
):
    fig = default_chapter_2_figures[name]
    assert isinstance(fig, Figure)
    width, height = fig.get_size_inches()
    # Column width (test_figure_legibility.py), panels stacked: at most 8 in tall, so a
    # figure fits one printed A4 page.
    assert width == figures._style.BOOK_WIDTH and 3.0 <= height <= 8.0
    fig.draw_without_rendering()
    for ax in fig.axes:
        categories = [label.get_text() for label in ax.get_yticklabels()]
        assert ax.get_xlabel(), (name, ax.get_title())
        assert ax.get_ylabel() or all(any(c.isalpha() for c in text) for text in categories)
    assert inside_canvas(fig), name
    assert name in figures.__all__


def closing_tip(l1, l2, l3, base, theta1):
    """Tips closing the chain at theta1, by the law of cosines (both branches), (K, 2, 2)."""
    elbow = l1 * np.stack([np.cos(theta1), np.sin(theta1)], axis=-1)
    to_base = base - elbow
    d = np.linalg.norm(to_base, axis=-1)
    # Angle at the elbow between the direction to the base and link 2.
    opening = np.arccos((l2**2 + d**2 - l3**2) / (2 * l2 * d))
    heading = np.arctan2(to_base[:, 1], to_base[:, 0])
    return np.stack(
        [
            elbow
            + l2 * np.stack([np.cos(heading + s * opening), np.sin(heading + s * opening)], axis=-1)
            for s in (1, -1)
        ],
        axis=1,
    ), elbow


def test_closed_chain_figure_draws_closed_configurations_and_the_aligned_ones():
    lengths, base = np.array([0.3, 0.8, 0.6]), np.array([0.7, 0.0])
    fig = figures.closed_chain_figure(lengths=lengths, base=base)
    left, right = fig.axes
    # Every drawn configuration closes: |elbow| = l1, |tip - elbow| = l2, |tip - base| = l3.
    arms = [line.get_xydata() for line in left.get_lines() if len(line.get_xdata()) == 3]
    thirds = [
        line.get_xydata()
        for line in left.get_lines()
        if len(line.get_xdata()) == 2 and line.get_linestyle() == "-"
    ]
    assert len(arms) == len(thirds) == 6  # four sampled configurations, two aligned ones
    for arm, third in zip(arms, thirds):
        origin, elbow, tip = arm
        np.testing.assert_allclose(origin, 0.0, atol=1e-15)
        np.testing.assert_allclose(
            [np.linalg.norm(elbow), np.linalg.norm(tip - elbow), np.linalg.norm(tip - third[0])],
            lengths,
            rtol=1e-12,
        )
        np.testing.assert_allclose(third[0], base, atol=1e-15)
        np.testing.assert_allclose(third[1], tip, atol=1e-15)
    # The red ones have links 1 and 2 aligned: elbow x (tip - elbow) = 0.
    red = [
        line.get_xydata()
        for line in left.get_lines()
        if line.get_color() == figures.FORCE and len(line.get_xdata()) == 3
    ]
    assert len(red) == 2
    for _, elbow, tip in red:
        assert abs(cross2(elbow, tip - elbow)) < 1e-12
    # Right: det J12 = l1 l2 sin(theta2 - theta1) = elbow x link 2, for both branches.
    curves = [line for line in right.get_lines() if line.get_label().startswith("assembly")]
    theta1 = curves[0].get_xdata()
    tips, elbow = closing_tip(*lengths, base, theta1)
    by_hand = [cross2(elbow, tips[:, k] - elbow) for k in (0, 1)]
    for curve, expected in zip(curves, by_hand):
        np.testing.assert_allclose(curve.get_ydata(), expected, rtol=0, atol=1e-12)
    # The marked zeros: two per branch, where the hand determinant vanishes.
    zeros = markers(right)
    assert [len(z) for z in zeros] == [2, 2]
    for points, k in zip(zeros, (0, 1)):
        tip, elbow = closing_tip(*lengths, base, points[:, 0])
        np.testing.assert_allclose(cross2(elbow, tip[:, k] - elbow), 0.0, atol=1e-12)
    assert "smallest singular value 0.289 m" in texts(fig)


def test_closed_chain_figure_names_every_configuration_it_draws():
    # Issue 23: the sampled configurations were one unlabelled colour, drawn over each other.
    left = figures.closed_chain_figure().axes[0]
    arms = [line for line in left.get_lines() if len(line.get_xdata()) == 3]
    labels = [line.get_label() for line in arms]
    assert labels[:4] == [f"branch 1, θ1 = {angle}" for angle in ("-π", "-π/2", "0", "π/2")]
    assert [label.split(":")[0] for label in labels[4:]] == [
        "det J12 = 0, arm folded",
        "det J12 = 0, arm stretched",
    ]
    # Each configuration has its own look (colour, marker, line style) and a legend entry.
    looks = {(line.get_color(), line.get_marker(), line.get_linestyle()) for line in arms}
    assert len(looks) == len(arms) == 6
    shown = [text.get_text() for text in left.get_legend().get_texts()]
    assert set(labels) <= set(shown) and "path of the common tip" in shown
    # The folded one really is folded: links 1 and 2 point opposite ways.
    _, elbow, tip = arms[4].get_xydata()
    assert np.dot(elbow, tip - elbow) < 0


def test_closed_chain_figure_handles_a_chain_whose_first_link_cannot_turn_fully():
    # A rocker-rocker: the loop closes only for some theta1; the rest is left out.
    fig = figures.closed_chain_figure(lengths=(0.6, 0.5, 0.4), base=(0.8, 0.1), samples=91)
    curve = fig.axes[1].get_lines()[0]
    assert np.isnan(curve.get_ydata()).any() and np.isfinite(curve.get_ydata()).any()
    with pytest.raises(ValueError, match="^samples"):
        figures.closed_chain_figure(samples=2)
    with pytest.raises(ValueError, match="^lengths, base: the loop closes at no"):
        figures.closed_chain_figure(lengths=(0.1, 0.1, 0.1), base=(2.0, 0.0))


def test_circle_acceleration_figure_shows_the_radial_minus_four():
    fig = figures.circle_acceleration_figure()
    left, right = fig.axes
    np.testing.assert_allclose(bar_heights(right), [0.5, 0.0, -4.0], rtol=0, atol=1e-14)
    drawn = texts(fig)
    assert all(f"Ja + γ = {r:g}" in drawn for r in (4.5, 4, 0))
    assert "required -|v|²/R = -4 m/s²" in drawn
    # Arrows at q = (1, 0): with P = I - q q^T / |q|^2, P a0 = (0, 1) and a = (0, 1) - 4 (1, 0).
    arrows = quivers(left)
    scale = arrows["velocity v"][0, 1] / 2.0  # v = (0, 2) m/s
    np.testing.assert_allclose(arrows["candidate a0"][0] / scale, [0.5, 1.0], rtol=1e-12)
    np.testing.assert_allclose(
        arrows["tangent-only P_v a0"][0] / scale, [0.0, 1.0], rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(arrows["admissible a"][0] / scale, [-4.0, 1.0], rtol=1e-12)


def test_circle_acceleration_figure_anywhere_on_the_circle():
    q, v, a0, radius = 2.0 * np.array([0.6, 0.8]), 3.0 * np.array([-0.8, 0.6]), [1.0, -2.0], 2.0
    fig = figures.circle_acceleration_figure(q=q, v=v, a0=a0, radius=radius)
    # Radial part of a is -|v|^2 / R = -4.5; of a0, its own; of P_v a0, zero.
    np.testing.assert_allclose(
        bar_heights(fig.axes[1]), [np.dot(a0, q) / radius, 0.0, -4.5], rtol=0, atol=1e-13
    )
    with pytest.raises(ValueError, match="^q: expected a point on the circle"):
        figures.circle_acceleration_figure(q=(1.1, 0.0))
    with pytest.raises(ValueError, match="^v: expected a velocity tangent"):
        figures.circle_acceleration_figure(v=(1.0, 2.0))
    with pytest.raises(ValueError, match="^radius"):
        figures.circle_acceleration_figure(radius=0.0)


def test_allocation_figure_marks_the_weighted_and_the_minimum_norm_inputs():
    fig = figures.allocation_figure()
    left, right = fig.axes
    minimum_norm = lines_labelled(left, "minimum norm G⁺b = (0.50, 0.50)")[0].get_xydata()
    weighted = lines_labelled(left, "weighted u_W = (0.80, 0.20)")[0].get_xydata()
    np.testing.assert_allclose(minimum_norm, [[0.5, 0.5]], rtol=1e-14)
    np.testing.assert_allclose(weighted, [[0.8, 0.2]], rtol=1e-14)
    line = lines_labelled(left, "solutions of Gu = 1")[0].get_xydata()
    np.testing.assert_allclose(line.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    # Level sets through each point: |u|^2 = 0.5 and u^T diag(1, 4) u = 0.8.
    circle = lines_labelled(left, "level set of |u|²/2")[0].get_xydata()
    ellipse = lines_labelled(left, "level set of uᵀWu/2")[0].get_xydata()
    np.testing.assert_allclose((circle**2).sum(axis=1), 0.5, rtol=1e-13)
    np.testing.assert_allclose(ellipse[:, 0] ** 2 + 4 * ellipse[:, 1] ** 2, 0.8, rtol=1e-13)
    # They touch the line only there: nowhere on the line is either objective smaller.
    assert (line**2).sum(axis=1).min() >= 0.5 - 1e-12
    assert (line[:, 0] ** 2 + 4 * line[:, 1] ** 2).min() >= 0.8 - 1e-12
    # Right: the objectives along the line have their minima at z = 0 and at u_W.
    euclid, weighted_cost = (line.get_ydata() for line in right.get_lines()[:2])
    assert euclid.min() == pytest.approx(0.25, abs=1e-4)
    assert weighted_cost.min() == pytest.approx(0.4, abs=1e-4)


def test_allocation_figure_with_other_weights_and_a_full_matrix():
    fig = figures.allocation_figure(G=(2.0, 1.0), b=3.0, W=[[2.0, 0.5], [0.5, 1.0]])
    weighted = markers(fig.axes[0], "s")[0][0]
    W, G = np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([2.0, 1.0])
    # Lagrange conditions by hand: W u = mu G^T and G u = 3.
    u = np.linalg.solve(W, G)
    np.testing.assert_allclose(weighted, 3.0 * u / (G @ u), rtol=1e-13)
    with pytest.raises(ValueError, match="^W"):
        figures.allocation_figure(W=(1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="^G"):
        figures.allocation_figure(G=(1.0, 1.0, 1.0))


def test_grip_figure_resultant_is_flat_in_the_squeeze_and_the_hand_loads_are_not():
    r_L, r_R = np.array([0.03, 0.0, 0.0]), np.array([0.12, 0.0, 0.0])
    f_L, f_R = np.array([-30.0, 25.0, 0.0]), np.array([10.0, -12.0, 0.0])
    fig = figures.grip_figure()
    left, middle, right = fig.axes
    # By hand: f = f_L + f_R = (-20, 13) N, n_z = 0.03 * 25 + 0.12 * (-12) = -0.69 N m.
    fx, fy, nz = (
        lines_labelled(middle, label)[0].get_ydata()
        for label in ("f_x (N)", "f_y (N)", "n_z about O (N m)")
    )
    np.testing.assert_allclose(fx, -20.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fy, 13.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(nz, -0.69, rtol=0, atol=1e-13)
    a = right.get_lines()[0].get_xdata()
    left_load, right_load = (line.get_ydata() for line in right.get_lines()[:2])
    separation = r_L - r_R
    np.testing.assert_allclose(
        left_load, np.linalg.norm(f_L + a[:, None] * separation, axis=1), rtol=1e-13
    )
    np.testing.assert_allclose(
        right_load, np.linalg.norm(f_R - a[:, None] * separation, axis=1), rtol=1e-13
    )
    assert np.ptp(left_load) > 40.0  # N: the squeeze is anything but invisible to the hands
    # Left: the base forces and, per squeeze value, the squeezed ones along the shaft.
    arrows = quivers(left)
    ratio = arrows["left hand force f_L"][0] / f_L[:2]
    np.testing.assert_allclose(arrows["right hand force f_R"][0], ratio[0] * f_R[:2], rtol=1e-12)
    assert "hands 9 cm apart" in texts(fig)
    with pytest.raises(ValueError, match="^r_L, r_R"):
        figures.grip_figure(r_R=(0.03, 0.0, 0.0))


def test_center_of_pressure_figure_places_the_cop_and_splits_the_vertical_moment():
    fig = figures.center_of_pressure_figure()
    left, right = fig.axes
    cop = lines_labelled(left, "centre of pressure (0.020, 0.040) m")[0].get_xydata()[0]
    # By hand from r_c x F: x_c = -M_y / F_z = 16 / 800, y_c = M_x / F_z = 32 / 800.
    np.testing.assert_allclose(cop, [0.02, 0.04], rtol=1e-14)
    widths = [patch.get_width() for patch in right.patches]
    # M_z = 3.8 N m, of which x_c F_y - y_c F_x = 0.02 (-30) - 0.04 (40) = -2.2, free 6.0.
    np.testing.assert_allclose(widths, [3.8, -2.2, 6.0], rtol=0, atol=1e-13)
    drawn = texts(fig)
    assert "CoP inside the foot" in drawn and "free moment\n6.00 N m" in drawn
    assert "|F_t|/F_z = 0.062 within μ = 0.6" in drawn


def test_center_of_pressure_figure_shifts_a_buried_plate_origin_and_flags_outside_points():
    depth, F = 0.05, np.array([40.0, -30.0, 800.0])
    # About an origin 5 cm below the surface point S: M_origin = M_S + (S - origin) x F.
    surface = np.array([32.0, -16.0, 3.8])
    buried = surface + np.cross([0.0, 0.0, depth], F)
    fig = figures.center_of_pressure_figure(wrench=np.concatenate([buried, F]), depth=depth)
    cop = markers(fig.axes[0])[0][0]
    np.testing.assert_allclose(cop, [0.02, 0.04], rtol=1e-13)
    far = np.array([0.3 * 800, 0.0, 0.0, 0.0, 0.0, 800.0])  # y_c = 0.3 m: past the toe
    assert "CoP OUTSIDE the foot" in texts(figures.center_of_pressure_figure(wrench=far))
    with pytest.raises(ValueError, match="^wrench"):
        figures.center_of_pressure_figure(wrench=np.zeros((2, 6)))


def car_loop_by_hand(L, s, d):
    """Final (x, y, theta) of steer s, drive d, unsteer, reverse d: an arc, then a straight line."""
    theta = d * np.tan(s) / L
    rho = L / np.tan(s)
    x, y = rho * np.sin(theta), rho * (1 - np.cos(theta))
    return np.array([x - d * np.cos(theta), y - d * np.sin(theta), theta])


def test_car_bracket_figure_follows_the_exact_manoeuvre_and_the_brackets():
    fig = figures.car_bracket_figure()
    left, middle, right = fig.axes
    end = lines_labelled(left, "end")[0].get_xydata()[0]
    exact = car_loop_by_hand(1.0, 0.3, 0.4)
    np.testing.assert_allclose(end, exact[:2], rtol=0, atol=1e-10)
    heading = lines_labelled(middle, "θ heading (rad)")[0].get_ydata()
    assert heading[-1] == pytest.approx(exact[2], abs=1e-10)
    # While steering (first second) the car does not move.
    x, y = (lines_labelled(middle, label)[0] for label in ("x (m)", "y (m)"))
    steering = x.get_xdata() <= 1.0
    np.testing.assert_array_equal(x.get_ydata()[steering], 0.0)
    np.testing.assert_array_equal(y.get_ydata()[steering], 0.0)
    # Right: net motion of scaled loops, exact, and the bracket predictions
    # eps^2 s d sec^2(0) / L and eps^3 s d^2 / (2 L).
    eps, dtheta = lines_labelled(right, "|Δθ| (rad)")[0].get_data()
    dy = lines_labelled(right, "|Δy| (m)")[0].get_ydata()
    by_hand = np.array([car_loop_by_hand(1.0, e * 0.3, e * 0.4) for e in eps])
    np.testing.assert_allclose(dtheta, by_hand[:, 2], rtol=1e-9)
    np.testing.assert_allclose(dy, np.abs(by_hand[:, 1]), rtol=1e-6)
    np.testing.assert_allclose(
        lines_labelled(right, "ε² s d [g2, g1]_θ")[0].get_ydata(), eps**2 * 0.12, rtol=1e-12
    )
    np.testing.assert_allclose(
        lines_labelled(right, "ε³ (s d²/2) [g1, [g2, g1]]_y")[0].get_ydata(),
        eps**3 * 0.3 * 0.16 / 2,
        rtol=1e-6,
    )
    assert "Δθ = 0.1237 rad" in texts(fig)


def test_car_bracket_figure_other_wheelbase_and_bad_loops():
    fig = figures.car_bracket_figure(wheelbase=2.5, steer=-0.2, drive=0.5)
    end = lines_labelled(fig.axes[0], "end")[0].get_xydata()[0]
    np.testing.assert_allclose(end, car_loop_by_hand(2.5, -0.2, 0.5)[:2], rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match="^steer, drive"):
        figures.car_bracket_figure(steer=0.0)
    with pytest.raises(ValueError, match="^steer"):
        figures.car_bracket_figure(steer=1.6)
    with pytest.raises(ValueError, match="^wheelbase"):
        figures.car_bracket_figure(wheelbase=-1.0)


def theta_by_hand(t, k, a0, b0, corner, clockwise):
    """theta(t) = -k int s1 ds2 along the rectangle traversed one side per second.

    Only the sides along s2 turn the body, each by -k s1 (its signed length) in full.
    """
    sides = (
        [(0, a0), (1, b0), (0, -a0), (1, -b0)]
        if not clockwise
        else [(1, b0), (0, a0), (1, -b0), (0, -a0)]
    )
    out = []
    for t_k in t:
        s1, theta = corner[0], 0.0
        for j, (axis, length) in enumerate(sides):
            fraction = float(np.clip(t_k - j, 0.0, 1.0))
            if axis == 1:
                theta -= k * s1 * length * fraction
            else:
                s1 += length * fraction
        out.append(theta)
    return np.array(out)


@pytest.mark.parametrize(
    "k, a0, b0, corner, clockwise",
    [
        (1.0, 1.0, 0.5, (0.0, 0.0), False),
        (1.0, 1.0, 0.5, (0.0, 0.0), True),
        (-2.0, 0.7, 1.3, (0.5, -0.2), False),
        (0.5, 1.5, 0.4, (-1.0, 2.0), True),
    ],
)
def test_phase_loop_figure_ends_at_minus_k_a0_b0_with_the_loop_sign(k, a0, b0, corner, clockwise):
    fig = figures.phase_loop_figure(k=k, a0=a0, b0=b0, corner=corner, clockwise=clockwise)
    left, right = fig.axes
    t, theta = right.get_lines()[0].get_data()
    expected = theta_by_hand(t, k, a0, b0, corner, clockwise)
    np.testing.assert_allclose(theta, expected, rtol=0, atol=1e-13)
    net = -k * a0 * b0 * (-1 if clockwise else 1)
    assert theta[-1] == pytest.approx(net, abs=1e-13)
    assert f"Δθ = {net:.4g} rad" in texts(fig)
    loop = left.get_lines()[0].get_xydata()
    np.testing.assert_allclose(loop[0], corner, atol=1e-15)
    assert ("clockwise loop" in texts(fig)) and (("counterclockwise" in texts(fig)) != clockwise)


def test_phase_loop_figure_adds_the_dynamic_phase_of_a_momentum_and_a_known_torque():
    # p(t) = p0 + tau t with I = 1: theta gains p0 t + tau t^2 / 2 on top of the geometric part.
    p0, tau = 0.05, 0.1
    fig = figures.phase_loop_figure(momentum=p0, tau=tau)
    t, theta = fig.axes[1].get_lines()[0].get_data()
    geometric = theta_by_hand(t, 1.0, 1.0, 0.5, (0.0, 0.0), False)
    np.testing.assert_allclose(theta, geometric + p0 * t + 0.5 * tau * t**2, rtol=0, atol=1e-13)
    assert theta[-1] == pytest.approx(-0.5 + 4 * p0 + 8 * tau, abs=1e-13)
    drawn = texts(fig)
    assert "Δθ = 0.5 rad (k = 1; dynamic part 1)" in drawn and "θ(t) at p_θ = 0" in drawn
    with pytest.raises(ValueError, match="^tau"):
        figures.phase_loop_figure(tau=np.nan)


def damped_violation_by_scipy(t, phi0, rate0, alpha, beta):
    solution = solve_ivp(
        lambda _, y: [y[1], -2 * alpha * y[1] - beta**2 * y[0]],
        (0.0, t[-1]),
        [phi0, rate0],
        t_eval=t,
        rtol=1e-12,
        atol=1e-14,
        method="DOP853",
    )
    return solution.y[0]


@pytest.mark.parametrize("alpha, beta", [(2.0, 3.0), (3.0, 3.0), (4.0, 2.0)])
def test_baumgarte_figure_follows_the_damped_oscillator(alpha, beta):
    fig = figures.baumgarte_figure(alpha=alpha, beta=beta, duration=2.0)
    left, right = fig.axes
    # Initial state: |q| = 1.1 m at 1 rad from the bottom, radial speed 0.2 m/s:
    # Phi0 = (1.1^2 - 1) / 2, Phi'0 = q.v = 1.1 * 0.2.
    phi0, rate0 = 0.5 * (1.1**2 - 1.0), 1.1 * 0.2
    t, closed_form = lines_labelled(left, "closed form")[0].get_data()
    np.testing.assert_allclose(
        closed_form, damped_violation_by_scipy(t, phi0, rate0, alpha, beta), rtol=0, atol=1e-11
    )
    stabilized = lines_labelled(left, f"Baumgarte α = {alpha:g}, β = {beta:g} 1/s")[0].get_ydata()
    np.testing.assert_allclose(stabilized, closed_form, rtol=0, atol=2e-6)  # RK4 at 20 ms
    free_t, free = lines_labelled(left, "no feedback (α = β = 0)")[0].get_data()
    # Without feedback Phi'' = 0: the violation grows linearly from its initial rate.
    # (Plus the integration drift: 3.7e-6 m^2 after 2 s at 20 ms, nothing pulls it back.)
    np.testing.assert_allclose(free, phi0 + rate0 * free_t, rtol=0, atol=1e-5)
    gap = right.get_lines()[0].get_ydata()
    np.testing.assert_allclose(gap, np.maximum(np.abs(stabilized - closed_form), 1e-18), rtol=1e-12)
    assert 12 < gap.max() / right.get_lines()[1].get_ydata().max() < 20


def test_integrator_study_figure_draws_the_study_values():
    study = figures.default_study()
    fig = figures.integrator_study_figure(study=study)
    for ax, name in zip(fig.axes, integrators.QUANTITIES):
        for method in study.methods:
            line = lines_labelled(ax, method)
            if name == "energy":
                order = study[method].orders["energy"][-1]
                line = lines_labelled(ax, f"{method} (order {order:.1f})")
            x, y = line[0].get_data()
            np.testing.assert_array_equal(x, study.dt)
            np.testing.assert_array_equal(y, np.maximum(study[method].residual(name), 1e-17))
    drawn = texts(fig)
    assert "rattle (order 2.0)" in drawn and "projection (order 4." in drawn
    with pytest.raises(TypeError, match="^study"):
        figures.integrator_study_figure(study="not a study")


def test_integrator_study_figure_names_methods_that_do_not_apply():
    chain = models.planar_closed_chain()
    q0 = chain.joint_coordinates(chain.closed_configuration(0.5))
    study = integrators.step_size_study(
        chain.model,
        chain.loop_closure,
        q0,
        np.zeros(3),
        0.1,
        (5, 10),
        methods=("projection", "rattle"),
        gravity=(0.0, -9.81, 0.0),
    )
    fig = figures.integrator_study_figure(study=study)
    assert "not applicable: rattle" in texts(fig)
    assert not lines_labelled(fig.axes[0], "rattle")


def test_car_manoeuvre_is_read_by_name_and_takes_its_options_by_name():
    run = figures.car_manoeuvre(steer=0.3, drive=0.4, samples=3)
    assert isinstance(run, figures.CarManoeuvre)
    assert run.path.shape == (4, 3, 4)
    np.testing.assert_array_equal(run.final, run.path[-1, -1])
    with pytest.raises(TypeError):
        _, _ = run  # a named result does not unpack
    with pytest.raises(TypeError):
        figures.car_manoeuvre(1.0, 0.3, 0.4)  # options are keyword-only
    with pytest.raises(ValueError, match="^samples"):
        figures.car_manoeuvre(samples=1)


@pytest.mark.parametrize("name", sorted(n for n in figures.__all__ if n.endswith("_figure")))
def test_figure_options_are_keyword_only(name):
    function = getattr(figures, name)
    parameters = inspect.signature(function).parameters.values()
    assert all(p.kind == p.KEYWORD_ONLY for p in parameters if p.default is not p.empty)


# --- Chapter 3: the strobe figure and the animation --------------------------------------


def test_strobe_figure_shows_every_posture_whole_and_enlarged_near_the_hub(golf_swing):
    golfer, run = golf_swing.golfer, golf_swing.downswing
    fig = figures.swing_strobe_figure(golfer, run)
    _, postures = figures.golf._sampled_downswing(golfer, run, 0.03)
    # every 30 ms of the stored steps up to the impact step, then the impact posture
    steps = range(0, int(run.impact.step) + 1, 30)
    np.testing.assert_array_equal(postures[:-1], run.trajectory.q[list(steps)])
    np.testing.assert_array_equal(postures[-1], run.impact.q)
    whole, near = fig.axes
    width, height = fig.get_size_inches()
    assert width == figures._style.BOOK_WIDTH and 3.0 <= height <= 8.0
    assert f"impact at {float(run.impact.time):.3f} s" in whole.get_title()
    assert "every 30 ms" in fig.get_suptitle()
    # Both panels draw every posture, four polylines each (trunk bar, lead arm, club,
    # trail arm), the impact posture last: the enlargement loses nothing.
    for ax in (whole, near):
        drawn = [line.get_xydata() for line in ax.get_lines() if len(line.get_xydata()) >= 2]
        assert len(drawn) == 4 * len(postures)
        for got, expected in zip(drawn[-4:], figures.golf._stick(golfer, postures[-1])):
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    # The enlarged panel holds the trunk bar and both arms of every posture, at a larger
    # scale; the dashed box on the whole swing marks it.
    sticks = [figures.golf._stick(golfer, q) for q in postures]
    body = np.concatenate([np.concatenate([s[0], s[1], s[3]]) for s in sticks])
    (x0, x1), (y0, y1) = near.get_xlim(), near.get_ylim()
    assert x0 < body[:, 0].min() and body[:, 0].max() < x1
    assert y0 < body[:, 1].min() and body[:, 1].max() < y1
    (box,) = [patch for patch in whole.patches if patch.get_linestyle() == "--"]
    np.testing.assert_allclose(box.get_bbox().extents, [x0, y0, x1, y1], rtol=0, atol=1e-12)
    fig.draw_without_rendering()
    scale = [ax.get_window_extent().width / np.ptp(ax.get_xlim()) for ax in (whole, near)]
    assert scale[1] > 2.5 * scale[0]
    # The ball, in the whole swing, and the key: every part named.
    bx, by = models.ball_at_address(golfer)
    (ball,) = [line for line in whole.get_lines() if line.get_label() == "ball"]
    np.testing.assert_array_equal(ball.get_xydata()[0], [bx, by])
    assert whole.get_xlim()[0] < bx < whole.get_xlim()[1]
    assert whole.get_ylim()[0] < by < whole.get_ylim()[1]
    (legend,) = fig.legends
    labels = [text.get_text() for text in legend.get_texts()]
    assert labels == ["ball", "hub axis", "trunk bar", "lead arm", "club", "trail arm"]
    for ax in (whole, near):
        assert ax.get_xlabel() and ax.get_ylabel()
    assert inside_canvas(fig)


def test_animation_keeps_one_layout_with_the_ball_and_the_key_in_view(golf_swing):
    golfer, run = golf_swing.golfer, golf_swing.downswing
    animation = figures.swing_animation(golfer, run, interval=0.05)
    fig = animation._fig
    (ax,) = fig.axes
    _, postures = figures.golf._sampled_downswing(golfer, run, 0.05)
    bx, by = models.ball_at_address(golfer)
    assert ax.get_xlim()[0] < bx < ax.get_xlim()[1] and ax.get_ylim()[0] < by < ax.get_ylim()[1]
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["ball", "hub axis", "trunk bar", "lead arm", "club", "trail arm"]
    assert fig.dpi == figures.STYLE["figure.dpi"]
    animation._init_draw()  # the player's first draw, then every frame in turn
    positions = []
    for i in range(len(postures)):
        animation._func(i)
        fig.draw_without_rendering()
        positions.append(ax.get_position().bounds)
    assert len(set(positions)) == 1  # the swing does not move from frame to frame
    assert ax.get_title().endswith("(impact)")
