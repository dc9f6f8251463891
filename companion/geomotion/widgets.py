"""Interactive explorers: ipywidgets sliders around the book's figure functions.

Each explorer redraws one function of :mod:`geomotion.figures`, so what a reader
sees while dragging a slider is computed by the same code the book's static
figures and tests use.  The static default view of each explorer is that figure
function called with its defaults; the rendered book shows it, and a live kernel
(``make lab``) makes the sliders work.

Each explorer puts its figure into its output area by setting the area's state
(``_Explorer``), not by capturing output with ``with out:``.  Captured
output would make a batch executor (nbclient, hence ``jupyter nbconvert
--execute`` and the book build) mimic a front end and send the area's state back
to the kernel on the shell channel while it waits there for the cell's reply;
that wait could then miss the reply, which sat unread until the cell's timeout
(or forever, without one): issue 23, seen under nbconvert and nbclient alike.
"""

import ipywidgets
import numpy as np
from IPython.display import display
from IPython.utils.capture import capture_output

from . import figures

__all__ = [
    "reporting_origin_explorer",
    "elbow_explorer",
    "inertia_rotation_explorer",
    "baumgarte_explorer",
    "phase_loop_explorer",
    "allocation_explorer",
]


def _show(fig):
    """Display a figure inside an interact callback."""
    display(fig)


class _Explorer(ipywidgets.interactive):
    """An ``ipywidgets.interactive`` that fills its output area through the area's state.

    ``interactive.update`` runs the callback inside ``with self.out:``, so the kernel
    routes the figure to the area as captured output.  Here the callback's displays are
    collected in the kernel (:func:`IPython.utils.capture.capture_output`) and set as
    the area's ``outputs`` in one state update: the same figure on the page and in the
    widget state saved with the notebook, and no captured output for a batch executor
    to echo back to the kernel.  Exceptions of the callback propagate.
    """

    def update(self, *args):
        """Call the callback with the widgets' values; show its displays in the output area.

        Parameters
        ----------
        *args
            Ignored (a traitlets change when a slider moves).
        """
        self.kwargs = {widget._kwarg: widget.get_interact_value() for widget in self.kwargs_widgets}
        with capture_output(stdout=False, stderr=False) as captured:
            self.result = self.f(**self.kwargs)
        self.out.outputs = tuple(
            {"output_type": "display_data", "data": shown.data, "metadata": shown.metadata}
            for shown in captured.outputs
        )


def reporting_origin_explorer():
    """Move the reporting origin along x and watch moment, twist and power.

    Redraws :func:`geomotion.figures.reporting_origin_figure`; the moment and the
    twist's linear block change with the origin, the power stays at 20 W.

    Returns
    -------
    ipywidgets.interactive
        The slider and its output area.
    """
    slider = ipywidgets.FloatSlider(
        value=0.0, min=-0.6, max=0.8, step=0.05, description="origin x (m)", continuous_update=False
    )
    return _Explorer(
        lambda origin_x: _show(figures.reporting_origin_figure(origin_x=origin_x)), origin_x=slider
    )


def elbow_explorer():
    """Move the elbow angle and the joint rates and watch M(q2) and the kinetic energy.

    Redraws :func:`geomotion.figures.joint_inertia_figure` for the two-link arm.

    Returns
    -------
    ipywidgets.interactive
    """
    angle = ipywidgets.FloatSlider(
        value=0.0,
        min=-np.pi,
        max=np.pi,
        step=np.pi / 36,
        description="q2 (rad)",
        continuous_update=False,
    )
    rate1 = ipywidgets.FloatSlider(
        value=1.0, min=-3, max=3, step=0.25, description="v1 (rad/s)", continuous_update=False
    )
    rate2 = ipywidgets.FloatSlider(
        value=-2.0, min=-3, max=3, step=0.25, description="v2 (rad/s)", continuous_update=False
    )
    return _Explorer(
        lambda q2, v1, v2: _show(figures.joint_inertia_figure(q2=q2, v=(v1, v2))),
        q2=angle,
        v1=rate1,
        v2=rate2,
    )


def inertia_rotation_explorer():
    """Rotate an inertia about z and watch its components change while the energy does not.

    Redraws :func:`geomotion.figures.rotated_inertia_figure` for principal moments
    (1, 2, 2.5) kg m^2 and omega = (1, 0, 0) rad/s rotated with the body.

    Returns
    -------
    ipywidgets.interactive
    """
    angle = ipywidgets.FloatSlider(
        value=90.0, min=0.0, max=180.0, step=5.0, description="angle (deg)", continuous_update=False
    )
    return _Explorer(
        lambda degrees: _show(figures.rotated_inertia_figure(angle=np.radians(degrees))),
        degrees=angle,
    )


def baumgarte_explorer():
    """Change the Baumgarte gains and the step and watch a constraint violation decay.

    Redraws :func:`geomotion.figures.baumgarte_figure` for the circle pendulum started
    off its circle: gains alpha and beta (1/s) and the step dt (s).  Large gains decay
    the violation faster but make the equations stiff: at alpha dt or beta dt near 1
    the step no longer follows the closed form.

    Returns
    -------
    ipywidgets.interactive
    """
    alpha = ipywidgets.FloatSlider(
        value=2.0, min=0.0, max=10.0, step=0.5, description="alpha (1/s)", continuous_update=False
    )
    beta = ipywidgets.FloatSlider(
        value=3.0, min=0.0, max=10.0, step=0.5, description="beta (1/s)", continuous_update=False
    )
    step = ipywidgets.SelectionSlider(
        options=[0.005, 0.01, 0.02, 0.05], value=0.02, description="dt (s)", continuous_update=False
    )
    return _Explorer(
        lambda alpha, beta, dt: _show(figures.baumgarte_figure(alpha=alpha, beta=beta, dt=dt)),
        alpha=alpha,
        beta=beta,
        dt=step,
    )


def phase_loop_explorer():
    """Resize the shape loop, change the curvature and reverse the loop; watch the net rotation.

    Redraws :func:`geomotion.figures.phase_loop_figure`: at zero momentum the body
    turns by -k a0 b0 counterclockwise and +k a0 b0 clockwise.

    Returns
    -------
    ipywidgets.interactive
    """
    a0 = ipywidgets.FloatSlider(
        value=1.0, min=0.0, max=2.0, step=0.1, description="a0", continuous_update=False
    )
    b0 = ipywidgets.FloatSlider(
        value=0.5, min=0.0, max=2.0, step=0.1, description="b0", continuous_update=False
    )
    k = ipywidgets.FloatSlider(
        value=1.0, min=-2.0, max=2.0, step=0.25, description="k", continuous_update=False
    )
    clockwise = ipywidgets.Checkbox(value=False, description="clockwise")
    return _Explorer(
        lambda a0, b0, k, clockwise: _show(
            figures.phase_loop_figure(k=k, a0=a0, b0=b0, clockwise=clockwise)
        ),
        a0=a0,
        b0=b0,
        k=k,
        clockwise=clockwise,
    )


def allocation_explorer():
    """Change the weights of the two inputs and watch the chosen input slide along the solution line.

    Redraws :func:`geomotion.figures.allocation_figure` for G = (1, 1), b = 1 and
    W = diag(w1, w2); the Euclidean minimum-norm input (0.5, 0.5) stays put.

    Returns
    -------
    ipywidgets.interactive
    """
    w1 = ipywidgets.FloatSlider(
        value=1.0, min=0.25, max=8.0, step=0.25, description="w1", continuous_update=False
    )
    w2 = ipywidgets.FloatSlider(
        value=4.0, min=0.25, max=8.0, step=0.25, description="w2", continuous_update=False
    )
    return _Explorer(lambda w1, w2: _show(figures.allocation_figure(W=(w1, w2))), w1=w1, w2=w2)
