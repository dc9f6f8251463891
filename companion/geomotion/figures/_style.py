"""The shared look of the book's figures, and small drawing helpers used by several files."""

import re

import matplotlib
import numpy as np
from matplotlib.figure import Figure

#: Shared matplotlib settings of every book figure.
STYLE = {
    "figure.dpi": 110,
    "font.size": 9.5,
    "axes.titlesize": 10,
    "axes.labelsize": 9.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
}

#: Width [in] of every book figure: at ``figure.dpi`` 110 this is 649 px, and with the 0.1 in
#: margins that the inline backend's tight crop adds, the stored PNG stays under the 672 px
#: text column of the HTML book at a 1280 px window.  The book therefore shows every figure
#: at its natural size, so a text of s points is s * 110 / 72 px tall: the smallest font
#: used, 7.5 pt, is 11.5 px (tests/companion/test_figure_legibility.py).
BOOK_WIDTH = 5.9

#: Colours: twist/motion, wrench/force, energy/power, and a neutral accent.
MOTION, FORCE, ENERGY, ACCENT = "#1f77b4", "#d62728", "#2ca02c", "#7f7f7f"

#: A fifth colour for a second family of curves (e.g. a second method or branch).
SECOND = "#9467bd"

#: Colours of the constrained integration methods, in the order of
#: :data:`geomotion.integrators.CONSTRAINED_METHODS` plus the unstabilized run.
METHOD_COLOURS = {
    "projection": MOTION,
    "baumgarte": ENERGY,
    "rattle": SECOND,
    "unstabilized": ACCENT,
}


# A formatted number that is zero apart from its sign: "-0", "-0.000", "-0.0e+00".
_SIGNED_ZERO = re.compile(r"(\s*)-(0*\.?0*(?:[eE][+-]?\d+)?%?)")


def fmt(value, spec):
    """``format(value, spec)`` for a label, without the sign of a number that rounds to zero.

    Rounding noise makes computed zeros slightly negative (a rotated inertia's
    off-diagonal entries are about -1e-16), and ``f"{-1e-16:.3f}"`` is ``"-0.000"``;
    labels should read ``"0.000"``.  Every computed number in a figure's text goes
    through this function.

    >>> fmt(-1e-16, ".3f"), fmt(-0.0, "g"), fmt(-0.0004, ".3f"), fmt(-0.0005, ".4f")
    ('0.000', '0', '0.000', '-0.0005')
    """
    text = format(value, spec)
    match = _SIGNED_ZERO.fullmatch(text)
    return match.group(1) + match.group(2) if match else text


def new_figure(figsize, **kwargs):
    """An empty constrained-layout Figure in :data:`STYLE`; call inside ``rc_context(STYLE)``."""
    return Figure(figsize=figsize, layout="constrained", **kwargs)


def arrow(ax, start, vector, colour, label=None, width=0.006, scale=1.0, **kwargs):
    """Draw ``vector`` (in data units, times ``scale``) from ``start`` as a quiver arrow."""
    start = np.asarray(start, dtype=float)
    vector = np.asarray(vector, dtype=float) * scale
    return ax.quiver(
        start[0],
        start[1],
        vector[0],
        vector[1],
        color=colour,
        angles="xy",
        scale_units="xy",
        scale=1.0,
        width=width,
        label=label,
        **kwargs,
    )


def style_context():
    """The rc context of :data:`STYLE` (``with style_context(): ...``)."""
    return matplotlib.rc_context(STYLE)
