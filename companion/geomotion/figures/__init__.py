"""The book's figures: one function per figure, each returning a matplotlib Figure.

Every number drawn is computed by geomotion in the function itself, so a figure
cannot drift from the algorithms it illustrates.  All figures share one style
(:data:`STYLE`) and are meant to be saved or displayed as PNG.  Figures are created
without pyplot, so nothing is registered globally: a notebook cell ending in a
figure call displays it exactly once, and callers never close figures.

Every option of a figure function has a default, the figure the book shows, and is
keyword-only (``reporting_origin_figure(origin_x=0.4)``), as the API convention asks of
every option; a figure function draws one figure and takes no batch axes.  Chapter 3's
figures take their data (a golfer and its :class:`geomotion.models.Downswing`, a
:class:`geomotion.models.TimingOptimum`, speeds) as required arguments: the notebook
runs the model once and every figure draws that run.

Files, by idea (every public name is re-exported here, so ``geomotion.figures.X``
works for all of them):

* ``spatial_algebra.py``: chapter 1 -- reporting origins and power, point-mass and
  extended-body energy, the two-link joint inertia, rotated inertias, screw axes,
  particle-sum energies;
* ``constrained.py``: the movable closed chain (:func:`closed_chain_figure`) and the
  circle's admissible acceleration (:func:`circle_acceleration_figure`);
* ``redundancy.py``: weighted allocation (:func:`allocation_figure`) and the internal
  grip squeeze (:func:`grip_figure`);
* ``ground.py``: the force plate's centre of pressure and free moment
  (:func:`center_of_pressure_figure`);
* ``geometric_control.py``: the car's bracket manoeuvre (:func:`car_bracket_figure`,
  computed by :func:`car_manoeuvre`) and the geometric phase of a shape loop
  (:func:`phase_loop_figure`);
* ``golf.py``: chapter 3 -- the swing-plane golfer's downswing: strobe figure (and the
  onset explorer's frames, :func:`onset_swing_figure`), clubhead speed, the generators'
  work and the energies, grip forces, the timing landscape over the onsets, the
  population histogram, and the 3-D golfer's ground reaction;
* ``feet.py``: the 3-D golfer's downswing on two planted feet: each foot's vertical force
  and free moment where a certified split exists, and the support violation
  (:func:`downswing_feet_figure`);
* ``animation.py``: the downswing's animation and its offline HTML player;
* ``golfer_animation.py``: the 3-D golfer's downswing on two planted feet, animated
  (:func:`golfer_downswing_animation`);
* ``numerics.py``: Baumgarte's decay (:func:`baumgarte_figure`) and the step-size
  study (:func:`integrator_study_figure`).
"""

from . import _style, ground, spatial_algebra
from ._style import ACCENT, ENERGY, FORCE, METHOD_COLOURS, MOTION, SECOND
from .animation import offline_animation_html, swing_animation
from .constrained import circle_acceleration_figure, closed_chain_figure
from .feet import downswing_feet_figure
from .geometric_control import CarManoeuvre, car_bracket_figure, car_manoeuvre, phase_loop_figure
from .golf import (
    clubhead_speed_figure,
    grip_force_figure,
    impact_speed_histogram_figure,
    onset_grid,
    onset_swing_figure,
    swing_energy_figure,
    swing_strobe_figure,
    timing_landscape_figure,
)
from .golfer_animation import golfer_downswing_animation
from .ground import center_of_pressure_figure
from .numerics import (
    baumgarte_figure,
    default_study,
    integrator_study_figure,
    violation_closed_form,
)
from .redundancy import allocation_figure, grip_figure
from .spatial_algebra import (
    inertia_energy_figure,
    joint_inertia_figure,
    particle_energy_figure,
    reporting_origin_figure,
    rotated_inertia_figure,
    screw_axis_figure,
)

# The shared data, assigned here (not only imported) so that the API reference documents them.

#: Shared matplotlib settings of every book figure (rc parameters).
STYLE = _style.STYLE

#: The power-transport example of chapter 1 (a 10 N force along y through B, B at 0.2 m
#: along A's x axis with parallel axes, body twist about B (0, 0, 3 rad/s, 1, 2, 0 m/s)).
POWER_EXAMPLE = spatial_algebra.POWER_EXAMPLE

#: Convex outline of a right shoe sole in force-plate axes (x right, y forward), m, (V, 2).
FOOT_OUTLINE = ground.FOOT_OUTLINE

#: Default plate-on-body wrench (M_x, M_y, M_z, F_x, F_y, F_z) of
#: :func:`center_of_pressure_figure`, N m and N: F = (40, -30, 800) N with the centre of
#: pressure at (0.02, 0.04) m and a free moment of 6 N m.
COP_EXAMPLE = ground.COP_EXAMPLE

__all__ = [
    "STYLE",
    "MOTION",
    "FORCE",
    "ENERGY",
    "ACCENT",
    "SECOND",
    "METHOD_COLOURS",
    # chapter 1
    "POWER_EXAMPLE",
    "reporting_origin_figure",
    "inertia_energy_figure",
    "joint_inertia_figure",
    "rotated_inertia_figure",
    "screw_axis_figure",
    "particle_energy_figure",
    # chapter 2
    "closed_chain_figure",
    "circle_acceleration_figure",
    "allocation_figure",
    "grip_figure",
    "FOOT_OUTLINE",
    "COP_EXAMPLE",
    "center_of_pressure_figure",
    "CarManoeuvre",
    "car_manoeuvre",
    "car_bracket_figure",
    "phase_loop_figure",
    "violation_closed_form",
    "baumgarte_figure",
    "default_study",
    "integrator_study_figure",
    # chapter 3
    "swing_strobe_figure",
    "onset_swing_figure",
    "clubhead_speed_figure",
    "swing_energy_figure",
    "grip_force_figure",
    "onset_grid",
    "timing_landscape_figure",
    "impact_speed_histogram_figure",
    "downswing_feet_figure",
    "swing_animation",
    "offline_animation_html",
    "golfer_downswing_animation",
]
