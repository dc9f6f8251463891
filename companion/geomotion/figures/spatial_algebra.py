"""Chapter 1 figures: spatial vector algebra and inertia.

Reporting origins and power, point-mass and extended-body energy, the two-link joint
inertia, rotated inertia components, screw axes, and particle-sum energies.  Each
function computes what it draws with geomotion and returns a matplotlib Figure
in the shared style ``geomotion.figures.STYLE``.
"""

import matplotlib
import matplotlib.ticker
import numpy as np
from matplotlib.figure import Figure

from .. import _validate, inertia, models, spatial, tree, verification
from ._style import ACCENT, BOOK_WIDTH, ENERGY, FORCE, MOTION, STYLE, arrow, fmt

__all__ = [
    "POWER_EXAMPLE",
    "reporting_origin_figure",
    "inertia_energy_figure",
    "joint_inertia_figure",
    "rotated_inertia_figure",
    "screw_axis_figure",
    "particle_energy_figure",
]

#: Power-transport example (a 10 N force along y through B, B at 0.2 m along A's
#: x axis with parallel axes, body twist about B (0, 0, 3 rad/s, 1, 2, 0 m/s)).
POWER_EXAMPLE = {
    "p_AB": np.array([0.2, 0.0, 0.0]),
    "F_B": np.array([0.0, 0.0, 0.0, 0.0, 10.0, 0.0]),
    "V_B": np.array([0.0, 0.0, 3.0, 1.0, 2.0, 0.0]),
}


def _report_about(origin):
    """Wrench, twist and power of :data:`POWER_EXAMPLE` reported about a point of A's x-y plane."""
    T_OB = spatial.pose(np.eye(3), POWER_EXAMPLE["p_AB"] - origin)
    F = spatial.force_transform(T_OB) @ POWER_EXAMPLE["F_B"]
    V = spatial.motion_transform(T_OB) @ POWER_EXAMPLE["V_B"]
    return F, V, float(spatial.power(F, V))


def reporting_origin_figure(*, origin_x=0.0):
    """Figure: the reporting origin alters the moment and the twist's linear block but never the power.

    Top, the plane of motion: the force at B and the rigid velocity field's value
    at B and at the reporting origin O = (origin_x, 0, 0) (O = A by default).  Bottom,
    the moment n_z, the twist's linear y block and the power reported about B and about O
    (the transforms :eq:`eq-motion-force-transform` and the power :eq:`eq-power`).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    origin_x : float
        x coordinate of the reporting origin O in A's axes, m.

    Returns
    -------
    matplotlib.figure.Figure
    """
    origin = np.array([float(origin_x), 0.0, 0.0])
    about_B = _report_about(POWER_EXAMPLE["p_AB"])
    about_O = _report_about(origin)
    label_O = "A" if origin_x == 0 else "O"
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(BOOK_WIDTH, 6.0), layout="constrained")
        grid = fig.add_gridspec(2, 3, height_ratios=[1.3, 1])
        ax = fig.add_subplot(grid[0, :])
        p_B = POWER_EXAMPLE["p_AB"]
        for point, (_, V, _), name in ((p_B, about_B, "B"), (origin, about_O, label_O)):
            ax.plot(point[0], point[1], "o", color="black")
            ax.annotate(name, point[:2], xytext=(-12, -14), textcoords="offset points")
            arrow(ax, point, V[3:5], MOTION, width=0.008, scale=1 / 12)
        arrow(ax, p_B, [0.0, POWER_EXAMPLE["F_B"][4]], FORCE, width=0.008, scale=1 / 60)
        ax.plot([], [], color=MOTION, label="twist linear block (1/12 m per m/s)")
        ax.plot([], [], color=FORCE, label="force 10 N at B (1/60 m per N)")
        ax.set(
            xlim=(min(origin_x, 0) - 0.15, max(origin_x, 0.2) + 0.25),
            ylim=(-0.12, 0.32),
            xlabel="x (m)",
            ylabel="y (m)",
            aspect="equal",
            title=f"Rigid motion, omega_z = {POWER_EXAMPLE['V_B'][2]:g} rad/s",
        )
        ax.legend(loc="upper left", fontsize=8)
        bars = [
            ("moment n_z (N m)", lambda F, V, P: F[2], FORCE),
            ("linear block v_y (m/s)", lambda F, V, P: V[4], MOTION),
            ("power (W)", lambda F, V, P: P, ENERGY),
        ]
        for k, (title, value, colour) in enumerate(bars):
            bar_ax = fig.add_subplot(grid[1, k])
            values = [value(*about_B), value(*about_O)]
            bar_ax.bar(["about B", f"about {label_O}"], values, color=colour, alpha=0.85)
            for x, y in enumerate(values):
                bar_ax.annotate(fmt(y, ".3g"), (x, y), ha="center", va="bottom")
            bar_ax.set_title(title)
            bar_ax.margins(y=0.2)
    return fig


def _two_link_inertia_curves(ax, marker_q2=None):
    """Plot M_11, M_12, M_22 of the two-link arm against the elbow angle on ``ax``."""
    arm = models.two_link_teaching_arm()
    q2 = np.linspace(-np.pi, np.pi, 181)
    M = tree.crba(arm, np.stack([np.zeros_like(q2), q2], axis=-1))
    for (i, j), style in (((0, 0), "-"), ((0, 1), "--"), ((1, 1), ":")):
        ax.plot(q2, M[:, i, j], style, label=f"M{i + 1}{j + 1}", linewidth=1.8)
    ax.axhline(0, color=ACCENT, linewidth=0.8)
    if marker_q2 is not None:
        ax.axvline(marker_q2, color=ACCENT, linewidth=1.0)
    ax.set(
        xlabel="elbow angle q2 (rad)",
        ylabel="joint inertia (kg m^2)",
        xticks=np.pi * np.array([-1, -0.5, 0, 0.5, 1]),
        xticklabels=["-pi", "-pi/2", "0", "pi/2", "pi"],
    )
    ax.legend(loc="upper right")


def inertia_energy_figure():
    """Figure: point-mass vs extended-body energy, and the two-link joint inertia against the elbow angle.

    Top: a 2 kg body whose centre of mass is 0.3 m from the origin along x spins at
    1 rad/s about z while the origin moves along y.  As a point mass its energy
    vanishes at v_y = -0.3 m/s (the mass is then at rest); as a uniform thin disk
    (J_C = 0.1 kg m^2) it keeps its rotational 0.05 J (equation
    :eq:`eq-kinetic-energy-quadratic`).  Bottom: entries of the two-link arm's joint
    inertia M(q2) from :func:`geomotion.tree.crba` (equation :eq:`eq-two-link-mass-matrix`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    m, c, J_C = 2.0, np.array([0.3, 0.0, 0.0]), 0.1
    v_y = np.linspace(-1.0, 0.4, 141)
    V = np.zeros((v_y.size, 6))
    V[:, 2], V[:, 4] = 1.0, v_y
    point = inertia.kinetic_energy(
        inertia.spatial_inertia(m, c, inertia.point_mass_central_inertia(m)), V
    )
    disk = inertia.kinetic_energy(
        inertia.spatial_inertia(m, c, np.diag([J_C / 2, J_C / 2, J_C])), V
    )
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(BOOK_WIDTH, 6.2), layout="constrained")
        left, right = fig.subplots(2, 1)
        left.plot(v_y, point, color=MOTION, label="point mass")
        left.plot(v_y, disk, color=ENERGY, label="thin disk, J_C = 0.1 kg m^2")
        left.plot([-0.3], [0.0], "o", color=MOTION)
        left.annotate(
            "0.05 J retained",
            (-0.3, disk.min()),
            xytext=(10, 25),
            textcoords="offset points",
            arrowprops={"arrowstyle": "->", "color": ACCENT},
        )
        left.set(
            xlabel="origin velocity v_y (m/s)",
            ylabel="kinetic energy (J)",
            title="m = 2 kg, offset 0.3 m, omega = 1 rad/s",
        )
        left.legend(loc="upper left")
        _two_link_inertia_curves(right)
        right.set_title("Two-link arm: joint inertia vs elbow angle")
    return fig


def joint_inertia_figure(*, q2=0.0, v=(1.0, -2.0)):
    """Figure for the elbow explorer: M(q2) curves with the current elbow angle and its kinetic energy.

    The curves are equation :eq:`eq-two-link-mass-matrix`.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    q2 : float
        Elbow angle, rad.
    v : (2,) array_like
        Joint velocities :math:`v = (v_1, v_2)`, rad/s.

    Returns
    -------
    matplotlib.figure.Figure
    """
    arm = models.two_link_teaching_arm()
    q = np.array([0.0, float(q2)])
    v = _validate.real_array(v, "v")
    M = tree.crba(arm, q)
    energy = float(tree.kinetic_energy(arm, q, v))
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(BOOK_WIDTH, 3.4), layout="constrained")
        left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
        _two_link_inertia_curves(left, marker_q2=q2)
        left.set_title(f"q2 = {fmt(q2, '.3f')} rad")
        right.axis("off")
        right.text(0.0, 0.95, "M(q2) (kg m^2)", fontweight="bold", va="top")
        entries = [[fmt(value, ".4f") for value in row] for row in M]
        right.text(
            0.0,
            0.78,
            f"[[{entries[0][0]}, {entries[0][1]}],\n [{entries[1][0]}, {entries[1][1]}]]",
            family="monospace",
            va="top",
        )
        right.text(0.0, 0.45, f"rates ({v[0]:g}, {v[1]:g}) rad/s", va="top")
        right.text(0.0, 0.32, f"K = v^T M v / 2 = {fmt(energy, '.5f')} J", va="top", color=ENERGY)
    return fig


def rotated_inertia_figure(*, angle=np.pi / 2, inertia_com=(1.0, 2.0, 2.5), omega=(1.0, 0.0, 0.0)):
    """Figure for the rotation explorer: the components of R I_C R^T change, the energy does not.

    The body and its angular velocity are rotated together by ``angle`` about z;
    the rotational energy omega^T I_C omega / 2 is the same in both descriptions (the
    congruence :eq:`eq-inertia-congruence` with a pure rotation).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    angle : float
        Rotation about z, rad.
    inertia_com : (3,) array_like
        Principal moments of the central inertia, kg m^2.
    omega : (3,) array_like
        Angular velocity in the original axes, rad/s.

    Returns
    -------
    matplotlib.figure.Figure
    """
    I_C = np.diag(_validate.real_array(inertia_com, "inertia_com"))
    w = _validate.real_array(omega, "omega")
    R = spatial.rot_z(angle)
    rotated, w_rotated = R @ I_C @ R.T, R @ w
    energy, energy_rotated = 0.5 * w @ I_C @ w, 0.5 * w_rotated @ rotated @ w_rotated
    vmax = float(np.abs(I_C).max())
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(BOOK_WIDTH, 3.6), layout="constrained")
        axes = fig.subplots(1, 2)
        for ax, matrix, w_shown, K, title in (
            (axes[0], I_C, w, energy, "original axes"),
            (
                axes[1],
                rotated,
                w_rotated,
                energy_rotated,
                f"rotated by {np.degrees(angle):.0f} deg about z",
            ),
        ):
            ax.imshow(matrix, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
            for (i, j), value in np.ndenumerate(matrix):
                shade = "white" if abs(value) > 0.6 * vmax else "black"
                ax.text(j, i, fmt(value, ".3f"), ha="center", va="center", color=shade)
            omega_text = ", ".join(fmt(value, ".2f") for value in w_shown)
            ax.set(
                xticks=[],
                yticks=[],
                title=f"{title}\nomega = ({omega_text}) rad/s\nK = {fmt(K, '.3f')} J",
            )
            ax.grid(False)
    return fig


def screw_axis_figure(*, V=(0.0, 0.0, 2.0, 0.0, -2.0, 1.0)):
    """Figure: the screw axis of a twist, its pitch, and the rigid velocity field around it.

    Velocities v + omega x r are drawn at points on the axis (purely axial, h omega)
    and on a ring around it (axial plus tangential): the motion is a screw (equation
    :eq:`eq-screw-axis`).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    V : (6,) array_like
        Twist about the origin (omega [rad/s], v [m/s]), with omega != 0.

    Returns
    -------
    matplotlib.figure.Figure
    """
    V = _validate.real_array(V, "V")
    axis = spatial.screw_axis(V)
    pitch, point, direction = axis.pitch, axis.point, axis.direction
    s = np.linspace(-0.6, 0.6, 3)
    on_axis = point + s[:, None] * direction
    helper = np.cross(direction, [1.0, 0.0, 0.0] if abs(direction[0]) < 0.9 else [0.0, 1.0, 0.0])
    e1 = helper / np.linalg.norm(helper)
    e2 = np.cross(direction, e1)
    phi = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    ring = point + 0.5 * (np.cos(phi)[:, None] * e1 + np.sin(phi)[:, None] * e2)
    samples = np.concatenate([on_axis, ring])
    velocity = V[3:] + np.cross(V[:3], samples)
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(5.6, 4.6), layout="constrained")
        ax = fig.add_subplot(projection="3d")
        line = point + np.outer([-1.0, 1.0], direction)
        ax.plot(*line.T, color=ACCENT, linewidth=2, label="screw axis")
        ax.quiver(
            *samples.T, *velocity.T, length=0.25, color=MOTION, label="velocity v + omega x r"
        )
        ax.scatter(*point, color="black", label="closest point r_perp")
        ax.scatter([0], [0], [0], color=FORCE, label="origin")
        r_perp = ", ".join(fmt(value, ".2f") for value in point)
        ax.set(
            xlabel="x (m)",
            ylabel="y (m)",
            zlabel="z (m)",
            aspect="equal",
            title=f"axis through r_perp = ({r_perp}) m\n"
            f"pitch h = {fmt(pitch, '.2f')} m/rad: on the axis v = h omega",
        )
        ax.legend(loc="upper left", fontsize=8)
        ax.set_xticks(np.round(point[0] + np.array([-0.5, 0.0, 0.5]), 2))
        ax.view_init(elev=22, azim=-58)
    return fig


def particle_energy_figure(*, model=None, n_states=200, rng=0):
    """Figure: a tree's particle cloud, and particle-sum energies against spatial-inertia energies.

    Each body is replaced by six point masses with its exact mass, centre of mass and
    central inertia (:func:`geomotion.inertia.particle_model`).  For ``n_states``
    random states the direct sum of particle energies is compared with
    v^T M v / 2 from :func:`geomotion.tree.crba`
    (:func:`geomotion.verification.particle_energy_comparison`; equation
    :eq:`eq-mass-matrix-jacobians`).

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    model : Tree, optional
        Any tree, ideal point masses and thin rods included; defaults to
        :func:`geomotion.models.humanoid_upper_body`.
    n_states : int
        Number of random (q, v) states.
    rng : None, int or numpy.random.Generator
        Source of the random states (as :func:`numpy.random.default_rng` takes it);
        default 0, the book's figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    model = models.humanoid_upper_body() if model is None else model
    energies = verification.particle_energy_comparison(model, n_states=n_states, rng=rng)
    particle_energy, matrix_energy = energies.particle_energy, energies.matrix_energy
    posture = np.zeros(model.num_bodies)
    cloud = verification.tree_particle_cloud(model, posture)
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(BOOK_WIDTH, 7.0), layout="constrained")
        grid = fig.add_gridspec(2, 1, height_ratios=[1.5, 1])
        ax = fig.add_subplot(grid[0], projection="3d")
        origins = tree.forward_kinematics(model, posture)[:, :3, 3]
        for i, parent in enumerate(model.parents):
            ax.scatter(*cloud[i].T, s=12)
            if parent >= 0:
                ax.plot(*np.stack([origins[parent], origins[i]]).T, color=ACCENT, linewidth=1)
        ax.set(
            xlabel="x (m)",
            ylabel="y (m)",
            zlabel="z (m)",
            aspect="equal",
            title="six particles per body, all joints at q = 0",
        )
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(1))  # x is seen end-on
        ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))  # labels that do not touch
        ax.view_init(elev=12, azim=20)  # a frontal view: the arms hang either side of the torso
        right = fig.add_subplot(grid[1])
        right.plot(matrix_energy, particle_energy, ".", color=ENERGY, markersize=4)
        limit = float(matrix_energy.max()) * 1.05
        right.plot([0, limit], [0, limit], color=ACCENT, linewidth=0.8)
        worst = float(np.max(np.abs(particle_energy - matrix_energy) / matrix_energy))
        right.set(
            xlabel="v^T M v / 2 (J)",
            ylabel="sum of particle energies (J)",
            title=f"{n_states} random states; largest relative gap {worst:.1e}",
        )
    return fig
