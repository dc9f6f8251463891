"""Every book figure's text is legible where the book shows it: at least 10 px on screen.

The notebooks store each figure as a PNG written by the inline backend: at the figure's
own dpi (``STYLE["figure.dpi"]``, 110) and cropped to what is drawn (``bbox_inches=
"tight"``, IPython's ``print_figure``).  The HTML page shows that PNG at its natural width
or, when it is wider, scaled down to the text column.  So a text of ``s`` points appears

    s * dpi / 72 * min(1, COLUMN_PX / stored width)    pixels tall.

``COLUMN_PX`` is the width at which the built book shows a figure at a 1280 px window
(``tests/book/pagecheck.py``'s ``VIEWPORT``), measured in headless Chromium on the built
chapter 2 page (sphinx-book-theme 1.3.0): every figure ``<img>`` was 672 px wide.  The PDF
lays the same HTML out at 680 CSS px (180 mm of A4 text width, ``book/_tools/print_pdf.py``),
so a figure that passes here prints its smallest text at >= 10/96 in, about 7.5 pt.

Two kinds of figure reach the page as frames inside an HTML block instead: the static
explorers' frames (``geomotion.widgets.png_frame``: the whole canvas, uncropped) and the
swing animation's (``Animation.to_jshtml``, through ``figures.offline_animation_html``).
The page shows each frame's ``<img>`` the same way, so the same rule holds with the frame's
own drawing dpi, read from the stored PNG (its width over the figure's width in inches).
"""

import base64
import inspect
import io
import json
import re

import matplotlib
import matplotlib.image
import numpy as np
import pytest
from conftest import SLOW_EXPLORERS, SLOW_FIGURES, explorer_arguments, figure_call, slow_marked
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from geomotion import figures, widgets

#: Width [px] of the text column in which the HTML book shows a figure, at a 1280 px window.
COLUMN_PX = 672

#: The smallest legible text height on screen [px] (issue 23, item 6).
MIN_TEXT_PX = 10.0

#: The dpi at which the notebooks store figures (the inline backend saves at ``fig.dpi``).
BOOK_DPI = figures.STYLE["figure.dpi"]

#: Every public figure function: the names of ``figures.__all__`` that draw a figure.
FIGURE_FUNCTIONS = sorted(name for name in figures.__all__ if name.endswith("_figure"))


def stored_width_px(fig):
    """Width [px] of the PNG the inline backend stores for ``fig`` (IPython's print_figure)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi, bbox_inches="tight")
    buffer.seek(0)
    return matplotlib.image.imread(buffer, format="png").shape[1]


def drawn_texts(fig):
    """The visible, non-empty Text artists of a rendered figure (titles, ticks, legends...)."""
    FigureCanvasAgg(fig)  # figures are made without pyplot: give this one a drawing canvas
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for text in fig.findobj(matplotlib.text.Text):
        if not (text.get_visible() and text.get_text().strip()):
            continue
        # A tick label of a tick outside the view is never drawn: no extent.
        extent = text.get_window_extent(renderer)
        if extent.width > 0 and extent.height > 0:
            found.append(text)
    return found


def smallest_text_px(fig):
    """(smallest on-screen text height [px], its text, stored width [px]) for ``fig``."""
    width = stored_width_px(fig)
    scale = min(1.0, COLUMN_PX / width)
    texts = drawn_texts(fig)
    assert texts, "a figure without text cannot be checked"
    smallest = min(texts, key=lambda text: text.get_fontsize())
    pixels = smallest.get_fontsize() * fig.dpi / 72.0 * scale
    return pixels, smallest.get_text(), width


def test_the_list_of_figure_functions_is_complete():
    # A public function documented as returning a Figure must be checked here.
    for name in figures.__all__:
        obj = getattr(figures, name)
        if inspect.isfunction(obj) and "Figure" in (inspect.getdoc(obj) or "").split("Returns")[-1]:
            assert name in FIGURE_FUNCTIONS, name
    assert len(FIGURE_FUNCTIONS) >= 15


@pytest.mark.parametrize("name", slow_marked(FIGURE_FUNCTIONS, SLOW_FIGURES))
@pytest.mark.filterwarnings("error")  # e.g. "constrained_layout not applied": panels too small
def test_every_text_is_at_least_10_px_on_screen(name, request):
    fig = figure_call(name, request)  # with the data it takes (conftest.py)
    assert isinstance(fig, Figure)
    assert fig.dpi == BOOK_DPI  # the dpi the notebooks store the figure at
    pixels, text, width = smallest_text_px(fig)
    assert pixels >= MIN_TEXT_PX, (
        f"{name}: {text!r} is {pixels:.1f} px on screen "
        f"(stored {width} px wide, shown at {min(width, COLUMN_PX)} px)"
    )


# Calls the notebooks make with other than default options (longer labels, other values).
BOOK_CALLS = [
    ("joint_inertia_figure", {"q2": 0.0, "v": (1.0, -2.0)}),
    ("rotated_inertia_figure", {"angle": np.pi / 2}),
    ("phase_loop_figure", {"clockwise": True}),
    ("closed_chain_figure", {"lengths": (0.6, 0.5, 0.4), "base": (0.8, 0.1), "samples": 91}),
]


@pytest.mark.parametrize(("name", "options"), BOOK_CALLS)
@pytest.mark.filterwarnings("error")
def test_figures_stay_legible_with_other_options(name, options):
    pixels, text, width = smallest_text_px(getattr(figures, name)(**options))
    assert pixels >= MIN_TEXT_PX, f"{name}: {text!r} is {pixels:.1f} px on screen"


def test_the_measure_fails_on_a_wide_figure_with_small_text():
    # The check itself: 9 in at 110 dpi is 990 px, shown at 672 px, so 8 pt -> 8.1 px.
    with figures._style.style_context():
        fig = figures._style.new_figure((9.0, 3.0))
        ax = fig.subplots()
        ax.plot([0, 1], [0, 1], label="a line")
        ax.legend(fontsize=8)
        ax.set_xlabel("x (m)")
    pixels, text, width = smallest_text_px(fig)
    assert text == "a line" and width > COLUMN_PX
    np.testing.assert_allclose(pixels, 8 * 110 / 72 * COLUMN_PX / width, rtol=1e-12)
    assert pixels < MIN_TEXT_PX


# --- Frames inside HTML blocks: the explorers' and the animation's ----------------------

#: The explorers with a static form (frames behind HTML sliders), which the book shows.
STATIC_EXPLORERS = [
    "baumgarte_explorer",
    "phase_loop_explorer",
    "allocation_explorer",
    "onset_explorer",
]


def frame_text_px(fig, png):
    """(smallest on-screen text [px], its text, stored width [px], drawing dpi) of a frame.

    ``png`` is the frame as stored (bytes); ``fig`` the figure it was drawn from.  The
    drawing dpi is the stored width over the figure's width in inches.
    """
    width = Image.open(io.BytesIO(png)).width
    dpi = width / fig.get_figwidth()
    texts = drawn_texts(fig)
    assert texts, "a frame without text cannot be checked"
    smallest = min(texts, key=lambda text: text.get_fontsize())
    pixels = smallest.get_fontsize() * dpi / 72.0 * min(1.0, COLUMN_PX / width)
    return pixels, smallest.get_text(), width, dpi


def assert_legible_frame(name, fig, png):
    pixels, text, width, dpi = frame_text_px(fig, png)
    assert pixels >= MIN_TEXT_PX, (
        f"{name}: {text!r} is {pixels:.1f} px on screen "
        f"(frame drawn at {dpi:.0f} dpi, stored {width} px wide)"
    )
    # Shown near the column's width, as large as the static figures (649 px), not smaller.
    assert 0.9 * COLUMN_PX <= width <= COLUMN_PX, f"{name}: frames {width} px wide"


@pytest.mark.parametrize("name", slow_marked(widgets.__all__, SLOW_EXPLORERS))
def test_the_list_of_static_explorers_is_complete(name, request):
    has_frames = getattr(widgets, name)(*explorer_arguments(name, request)).static is not None
    assert has_frames == (name in STATIC_EXPLORERS), name


def stored_frames(block):
    """The frames of an explorer's HTML block (key -> base64 PNG, in grid order) and the
    key of the one its image shows first."""
    stored = json.loads(re.search(r'frames">(.*?)</script>', block).group(1))
    return stored, re.search(r'<img class="geomotion-explorer-frame" data-key="([^"]*)"', block)[1]


@pytest.mark.parametrize("name", slow_marked(STATIC_EXPLORERS, SLOW_EXPLORERS))
def test_explorer_frames_are_legible(explorer_build, name):
    build = explorer_build(name)  # drawn once for the session (conftest.py)
    stored, first = stored_frames(build.bundle["text/html"])
    # The block stores png_frame's output, frame by frame: what is measured is the page's.
    assert [png for _, png in build.frames] == list(stored.values())
    fig, png = build.frames[list(stored).index(first)]  # the frame the page shows first
    assert_legible_frame(name, fig, base64.b64decode(png))
    # Every frame as wide as the measured one: the image does not change size on the page.
    widths = {Image.open(io.BytesIO(base64.b64decode(text))).width for text in stored.values()}
    assert widths == {Image.open(io.BytesIO(base64.b64decode(png))).width}


def animation_frames(html):
    """The PNG bytes of every frame embedded in matplotlib's player."""
    pattern = r'"data:image/png;base64,((?:[A-Za-z0-9+/=]|\\\n)+)"'
    return [base64.b64decode(text.replace("\\\n", "")) for text in re.findall(pattern, html)]


@pytest.mark.filterwarnings("error")
def test_animation_frames_are_legible(golf_swing):
    animation = figures.swing_animation(golf_swing.golfer, golf_swing.downswing, interval=0.05)
    frames = animation_frames(figures.offline_animation_html(animation))
    assert len(frames) == len(list(animation.new_frame_seq()))
    assert len({Image.open(io.BytesIO(png)).size for png in frames}) == 1  # no jumps
    # After the player's run the figure shows the last frame: the longest title.
    assert animation._fig.axes[0].get_title().endswith("(impact)")
    assert_legible_frame("swing_animation", animation._fig, frames[0])


def test_the_frame_measure_fails_on_a_frame_drawn_at_72_dpi(monkeypatch):
    # The animation's frames were drawn at 72 dpi: 5.9 in is 424 px, and 9.5 pt is 9.5 px.
    monkeypatch.setattr(widgets, "_DPI", 72)
    with figures._style.style_context():
        fig = figures._style.new_figure((figures._style.BOOK_WIDTH, 3.0))
        fig.subplots().set_xlabel("x (m)")
    pixels, text, width, dpi = frame_text_px(fig, base64.b64decode(widgets.png_frame(fig)))
    assert (width, dpi) == (424, 424 / figures._style.BOOK_WIDTH)
    assert pixels < MIN_TEXT_PX
