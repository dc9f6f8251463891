"""Interactive explorers: ipywidgets sliders around the book's figure functions.

Each explorer redraws one function of :mod:`geomotion.figures`, so what a reader
sees while dragging a slider is computed by the same code the book's static
figures and tests use.  The static default view of each explorer is that figure
function called with its defaults (the onset explorer's: the swing of the optimum it is
given); the rendered book shows it, and a live kernel (``make lab``) makes the sliders
work.

Each explorer puts its figure into its output area by setting the area's state
(``_Explorer``), not by capturing output with ``with out:``.  Captured
output would make a batch executor (nbclient, hence ``jupyter nbconvert
--execute`` and the book build) mimic a front end and send the area's state back
to the kernel on the shell channel while it waits there for the cell's reply;
that wait could then miss the reply, which sat unread until the cell's timeout
(or forever, without one), as was seen under nbconvert and nbclient alike.

Four explorers (Baumgarte, phase loop, allocation, onsets) also carry a static form
(``StaticExplorer``, below): frames drawn over a small grid of slider positions, with
HTML sliders that swap them.  Their display bundle holds both the
live widget view and that HTML block: JupyterLab (``make lab``) shows the live widget,
while the book, which renders no widget views (``nb_mime_priority_overrides`` in
``_config.yml``), shows the HTML block, which moves without a kernel.
"""

import base64
import html
import io
import itertools
import json

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display
from IPython.utils.capture import capture_output
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PIL import Image

from . import figures, models

__all__ = [
    "reporting_origin_explorer",
    "elbow_explorer",
    "inertia_rotation_explorer",
    "baumgarte_explorer",
    "phase_loop_explorer",
    "allocation_explorer",
    "onset_explorer",
]


# --- The static form of an explorer: precomputed frames behind HTML sliders ------------
#
# A static page has no kernel to redraw a figure when a slider moves.  So the figure is
# drawn beforehand at every point of a small grid of slider positions, each drawing is
# stored as a PNG (a 64-colour palette, to keep the page and the notebook small) inside
# one HTML block, and a few lines of JavaScript in the same block swap the image when a
# slider moves, the way matplotlib's ``Animation.to_jshtml`` embeds its frames.  Nothing
# is fetched: the frames are ``data:`` URIs and the script is inline.
#
# The block is deterministic (same grid, same library versions: same bytes), so nbval can
# compare it like any other output.  On paper the block shows its default frame, with a
# sentence that says where the sliders move (``book/_tools/print.css`` hides the sliders).

# HTML blocks already built in this process, by explorer name, grid and default: a
# notebook that shows one explorer twice (or a test that repeats it) draws its frames once.
_BUILT = {}

# Drawing resolution of a frame (dots per inch) and its palette size.  The dpi is the
# book's (``figures.STYLE``): a frame of the book's width is 649 px wide, as wide as the
# static figures, and the page shows it at that size in its 672 px text column, so a
# 7.5 pt legend is 11.5 px tall (tests/companion/test_figure_legibility.py).
_DPI = figures.STYLE["figure.dpi"]
_COLORS = 64

# Swaps the frame when a slider moves.  ``document.currentScript`` is this script, so
# several explorers on one page each drive their own image.
_SCRIPT = """
(function () {
  var box = document.currentScript.parentElement;
  var frames = JSON.parse(box.querySelector(".geomotion-explorer-frames").textContent);
  var image = box.querySelector("img.geomotion-explorer-frame");
  var sliders = Array.prototype.slice.call(box.querySelectorAll("input[type=range]"));
  function show() {
    var key = sliders.map(function (slider) { return slider.value; }).join(",");
    sliders.forEach(function (slider) {
      var labels = JSON.parse(slider.getAttribute("data-labels"));
      slider.nextElementSibling.textContent = labels[Number(slider.value)];
    });
    image.src = "data:image/png;base64," + frames[key];
    image.setAttribute("data-key", key);
  }
  sliders.forEach(function (slider) { slider.addEventListener("input", show); });
})();
"""


def _label(value):
    """A slider position as text: 0.5, 2, 'clockwise'."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return str(value)


def png_frame(fig):
    """Base64 text of ``fig`` drawn at ``_DPI`` as a palette PNG (the figure is closed afterwards).

    The whole canvas, uncropped, so that every frame of an explorer has the same size and
    the image does not jump when a slider moves.  One draw straight into the palette
    encoder: ``savefig`` would draw a constrained-layout figure twice (once for the
    layout) and compress a PNG only to have it decoded again here (the pixels are the same).
    """
    fig.set_dpi(_DPI)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    size = canvas.get_width_height()
    image = Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    image = image.convert("RGB")
    plt.close(fig)
    # method 0 is median cut (it keeps the white background pure white), dither 0 none
    # (integers: the enums are Pillow >= 9.1; Pillow itself comes with matplotlib, which
    # writes its PNGs with it).  figures.offline_animation_html encodes its frames alike.
    palette = image.quantize(colors=_COLORS, method=0, dither=0)
    small = io.BytesIO()
    palette.save(small, format="png", optimize=True)
    return base64.b64encode(small.getvalue()).decode("ascii")


class StaticExplorer:
    """Frames of ``draw`` over a grid of parameter values, shown with one HTML slider per parameter.

    Parameters
    ----------
    name : str
        What the explorer shows, for the image's alternative text and the plain-text form.
    draw : callable
        ``draw(**values)`` returns a matplotlib figure.
    grid : dict of str to (str, sequence)
        For each keyword of ``draw``: the slider's label and its positions (in order).
    default : dict of str to object
        The starting position of each slider; each value must be one of its positions.
    label : callable, keyword only
        ``label(value)``: a slider position as text; default: 0.5, 2, "yes".
    key : object, keyword only
        What else the frames depend on (e.g. the model drawn), hashable, part of the key
        of the process's cache of built blocks (a dataclass with ``eq=False`` is compared
        by identity); default None.

    Raises
    ------
    ValueError
        If a default is not one of its slider's positions.
    """

    def __init__(self, name, draw, grid, default, *, label=None, key=None):
        self.name = name
        self.draw = draw
        self.grid = dict(grid)
        self.default = dict(default)
        self.label = _label if label is None else label
        self.key = key
        for key, (_, values) in self.grid.items():
            if self.default[key] not in list(values):
                raise ValueError(f"default {key}={self.default[key]!r} is not one of {values}")

    @property
    def start(self):
        """Index of each slider's default position."""
        return tuple(
            list(values).index(self.default[key]) for key, (_, values) in self.grid.items()
        )

    def frames(self):
        """Dict of frame key ("i,j,...": slider indices) to base64 PNG, drawn in grid order."""
        keys = list(self.grid)
        positions = [range(len(values)) for _, values in self.grid.values()]
        frames = {}
        for index in itertools.product(*positions):
            values = {key: self.grid[key][1][i] for key, i in zip(keys, index)}
            frames[",".join(map(str, index))] = png_frame(self.draw(**values))
        return frames

    def text(self):
        """Plain-text description (what a front end without HTML shows)."""
        sliders = ", ".join(
            f"{label} in ({', '.join(self.label(v) for v in values)})"
            for label, values in self.grid.values()
        )
        return f"<{self.name}: precomputed frames over {sliders}>"

    def html(self):
        """The HTML block: sliders, the default frame, the frames and the script (computed once)."""
        key = (self.name, repr(self.grid), repr(self.default), self.key)
        if key not in _BUILT:
            _BUILT[key] = self._build()
        return _BUILT[key]

    def _build(self):
        frames = self.frames()
        start = self.start
        controls = []
        for (key, (label, values)), position in zip(self.grid.items(), start):
            labels = [self.label(value) for value in values]
            controls.append(
                '<label class="geomotion-explorer-slider">'
                f'<span class="geomotion-explorer-name">{html.escape(label)}</span> '
                f'<input type="range" min="0" max="{len(values) - 1}" step="1" '
                f'value="{position}" name="{html.escape(key)}" aria-label="{html.escape(label)}" '
                f"data-labels='{html.escape(json.dumps(labels), quote=True)}'>"
                f'<output class="geomotion-explorer-value">{html.escape(labels[position])}</output>'
                "</label>"
            )
        key = ",".join(map(str, start))
        alt = f"{self.name}, default view"
        return (
            '<div class="geomotion-explorer">\n'
            '<div class="geomotion-explorer-controls">' + " ".join(controls) + "</div>\n"
            f'<img class="geomotion-explorer-frame" data-key="{key}" alt="{html.escape(alt)}" '
            f'src="data:image/png;base64,{frames[key]}">\n'
            '<p class="geomotion-explorer-note">Drag the sliders to redraw the figure: its '
            f"{len(frames)} frames were drawn when the book was built. On paper this is the "
            "default view; in the HTML book the sliders move, and in a live notebook "
            "(<code>make lab</code>) every slider value can be chosen.</p>\n"
            '<script type="application/json" class="geomotion-explorer-frames">'
            + json.dumps(frames, separators=(",", ":"))
            + "</script>\n"
            "<script>" + _SCRIPT + "</script>\n"
            "</div>"
        )


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

    ``static``, when given, is a ``StaticExplorer``
    whose HTML block is added to the display bundle (and whose text replaces the
    widget's plain-text form, which names random model ids).
    """

    def __init__(self, *args, static=None, **kwargs):
        self.static = static
        super().__init__(*args, **kwargs)

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if self.static is not None and bundle is not None:
            bundle["text/plain"] = self.static.text()
            bundle["text/html"] = self.static.html()
        return bundle

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
        static=StaticExplorer(
            "Baumgarte explorer",
            figures.baumgarte_figure,
            {"alpha": ("alpha (1/s)", (2.0, 10.0)), "dt": ("dt (s)", (0.02, 0.05))},
            {"alpha": 2.0, "dt": 0.02},
        ),
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
        static=StaticExplorer(
            "Phase-loop explorer",
            figures.phase_loop_figure,
            {"a0": ("a0", (0.5, 1.0, 1.5, 2.0)), "clockwise": ("clockwise", (False, True))},
            {"a0": 1.0, "clockwise": False},
        ),
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
    return _Explorer(
        lambda w1, w2: _show(figures.allocation_figure(W=(w1, w2))),
        w1=w1,
        w2=w2,
        static=StaticExplorer(
            "Allocation explorer",
            lambda w1, w2: figures.allocation_figure(W=(w1, w2)),
            {"w1": ("w1", (1.0, 4.0, 8.0)), "w2": ("w2", (1.0, 4.0, 8.0))},
            {"w1": 1.0, "w2": 4.0},
        ),
    )


def _onset_swing(golfer, optimum, shoulder, wrist):
    """The onset explorer's frame: one run (2 ms step) with the shoulder and wrist onsets
    ``shoulder`` and ``wrist`` ms after the hub's, its clock starting at the earliest;
    the generators, top of the backswing and ball of ``optimum``."""
    onset = np.array([0.0, shoulder, wrist]) / 1000.0
    generators = models.swing_generators(onset - onset.min(), **optimum.options)
    q0 = golfer.top_of_backswing(**optimum.top)
    downswing = models.simulate_downswing(golfer, generators, ball=optimum.ball, q0=q0, dt=2e-3)
    return figures.onset_swing_figure(golfer, downswing, downswing.generators)


def onset_explorer(golfer, optimum):
    """Move the shoulder and wrist onsets; watch the swing reach the ball, or miss it.

    Each slider position runs :func:`geomotion.models.simulate_downswing` of ``golfer``
    once (2 ms step, the optimum's generators: :func:`geomotion.models.swing_generators`
    with ``optimum.options``, from ``optimum.top``, towards ``optimum.ball``)
    with the shoulder and wrist generators switching on the set times after the hub's,
    and redraws :func:`geomotion.figures.onset_swing_figure`: the postures, and the
    clubhead speed and impact time of a swing that reaches the ball, or by how much it
    misses (not scored).  The sliders (ms) start at ``optimum.onset`` and span
    :func:`geomotion.figures.onset_grid`; the static form shows nine frames, the
    optimum's and 20 ms (shoulder) and 40 ms (wrist) either side.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set.
    optimum : geomotion.models.TimingOptimum
        Its optimum (:func:`geomotion.models.optimise_onsets`, wrist active).

    Returns
    -------
    ipywidgets.interactive

    Raises
    ------
    TypeError
        If ``optimum`` is not a TimingOptimum.
    ValueError
        If the optimum's wrist is off.
    """
    grid = figures.onset_grid(optimum)
    start = 1000.0 * np.asarray(optimum.onset, dtype=float)
    sliders, positions = {}, {}
    for j, (name, spread) in enumerate((("shoulder", 20.0), ("wrist", 40.0)), start=1):
        low, high = 1000.0 * grid[name][0], 1000.0 * grid[name][-1]
        sliders[name] = ipywidgets.FloatSlider(
            value=start[j],
            min=low,
            max=high,
            step=1.0,
            description=f"{name} (ms)",
            continuous_update=False,
        )
        near = (max(low, start[j] - spread), start[j], min(high, start[j] + spread))
        positions[name] = (f"{name} onset after the hub's (ms)", near)
    return _Explorer(
        lambda shoulder, wrist: _show(_onset_swing(golfer, optimum, shoulder, wrist)),
        **sliders,
        static=StaticExplorer(
            "Onset explorer",
            lambda shoulder, wrist: _onset_swing(golfer, optimum, shoulder, wrist),
            positions,
            {"shoulder": start[1], "wrist": start[2]},
            label=lambda value: f"{value:.1f}",
            key=(golfer, optimum),
        ),
    )
