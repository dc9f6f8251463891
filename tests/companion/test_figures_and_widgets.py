"""Figures draw the numbers the chapter quotes; explorers redraw them from their sliders."""

import ipywidgets
import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

from geomotion import figures, widgets


def texts(fig):
    """Every string drawn on a figure: titles, annotations, tick labels, legend entries."""
    fig.draw_without_rendering()  # tick labels exist only once the figure is laid out
    return " | ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))


def bar_heights(ax):
    return [patch.get_height() for patch in ax.patches]


def test_reporting_origin_figure_shows_20_watts_about_both_points():
    fig = figures.reporting_origin_figure()
    _, moment, linear, power = fig.axes
    np.testing.assert_allclose(bar_heights(moment), [0.0, 2.0], atol=1e-12)
    np.testing.assert_allclose(bar_heights(linear), [2.0, 1.4], atol=1e-12)
    np.testing.assert_allclose(bar_heights(power), [20.0, 20.0], atol=1e-12)
    assert "about A" in texts(fig)


@pytest.mark.parametrize("origin_x", [-0.5, 0.35, 0.8])
def test_power_stays_20_watts_wherever_the_reporting_origin_goes(origin_x):
    fig = figures.reporting_origin_figure(origin_x)
    np.testing.assert_allclose(bar_heights(fig.axes[3]), [20.0, 20.0], atol=1e-12)
    np.testing.assert_allclose(bar_heights(fig.axes[1])[1], 10.0 * (0.2 - origin_x), atol=1e-12)


def test_inertia_energy_figure_has_the_zero_point_mass_energy_and_the_retained_0_05_joules():
    fig = figures.inertia_energy_figure()
    left, right = fig.axes
    point, disk = (line.get_ydata() for line in left.get_lines()[:2])
    v_y = left.get_lines()[0].get_xdata()
    assert v_y[np.argmin(point)] == pytest.approx(-0.3, abs=1e-9)
    assert point.min() == pytest.approx(0.0, abs=1e-15) and disk.min() == pytest.approx(0.05, abs=1e-12)
    m11, m12, m22 = (line.get_ydata() for line in right.get_lines()[:3])
    assert m11.max() == pytest.approx(0.9175) and m11.min() == pytest.approx(0.3175)
    assert m12.min() < 0 < m12.max()
    np.testing.assert_allclose(m22, 0.0675, atol=1e-15)


def test_joint_inertia_figure_reports_the_chapter_energy():
    assert "K = qd^T M qd / 2 = 0.15875 J" in texts(figures.joint_inertia_figure(0.0, (1.0, -2.0)))


def test_rotated_inertia_figure_keeps_the_energy():
    drawn = texts(figures.rotated_inertia_figure(np.pi / 2))
    assert drawn.count("K = 0.500 J") == 2 and "2.000" in drawn


def test_screw_axis_figure_states_pitch_and_axis():
    drawn = texts(figures.screw_axis_figure([0, 0, 2, 0, -2, 1]))
    assert "r_perp = (1.00, 0.00, 0.00) m" in drawn and "pitch h = 0.50 m/rad" in drawn


def test_particle_energy_figure_compares_particle_sums_with_the_mass_matrix():
    fig = figures.particle_energy_figure(n_states=20)
    matrix_energy, particle_energy = fig.axes[1].get_lines()[0].get_data()
    np.testing.assert_allclose(particle_energy, matrix_energy, rtol=1e-12)
    assert len(matrix_energy) == 20


@pytest.mark.parametrize(
    "explorer, values",
    [
        (widgets.reporting_origin_explorer, {"origin_x": 0.4}),
        (widgets.elbow_explorer, {"q2": 1.0, "qd1": 0.5, "qd2": -1.0}),
        (widgets.inertia_rotation_explorer, {"degrees": 45.0}),
    ],
)
def test_explorers_redraw_their_figure_from_the_sliders(explorer, values, monkeypatch):
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)
    interactive = explorer()
    assert isinstance(interactive, ipywidgets.interactive)
    sliders = {child.description: child for child in interactive.children[:-1]}
    assert len(sliders) == len(values)
    interactive.f(**values)
    assert len(shown) == 2 and all(isinstance(fig, Figure) for fig in shown)  # default view, then ours
