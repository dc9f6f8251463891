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
"""

import inspect
import io

import matplotlib
import matplotlib.image
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from geomotion import figures

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


@pytest.mark.parametrize("name", FIGURE_FUNCTIONS)
@pytest.mark.filterwarnings("error")  # e.g. "constrained_layout not applied": panels too small
def test_every_text_is_at_least_10_px_on_screen(name):
    fig = getattr(figures, name)()
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
