r"""Chapter 3's animation of a downswing, and its offline HTML player.

:func:`swing_animation` draws the postures of :mod:`geomotion.figures.golf`'s strobe one
per frame; :func:`offline_animation_html` embeds the frames in one HTML block that plays
without a kernel or any outside request.
"""

import base64
import io
import re

import numpy as np
from matplotlib.animation import Animation, FuncAnimation
from PIL import Image

from .. import models
from ._style import BOOK_WIDTH, fmt, new_figure, style_context
from .golf import _PART_COLOURS, _PART_LABELS, _check_swing, _plane_axes, _sampled_downswing, _stick

__all__ = ["swing_animation", "offline_animation_html"]


def swing_animation(golfer, downswing, *, interval=0.01):
    r"""An animation of a downswing, one frame every ``interval`` s.

    Returns a matplotlib ``FuncAnimation`` over the stored states of ``downswing`` up to
    impact (the last frame the interpolated impact posture);
    :func:`offline_animation_html` embeds its frames in one HTML block that plays without
    a kernel or any outside request.  The frames are drawn at the book's dpi and width
    (649 px, the width of the static figures), with the colour key beside the swing and
    the ball in view.

    Parameters
    ----------
    golfer : geomotion.models.SwingPlaneGolfer
        One parameter set.
    downswing : geomotion.models.Downswing
        A run of ``golfer`` whose clubhead crosses the ball's line.
    interval : float, keyword only
        Simulated time between frames, s, positive; frames play at 20 per second.

    Returns
    -------
    matplotlib.animation.FuncAnimation

    Raises
    ------
    TypeError
        If ``golfer`` or ``downswing`` has the wrong type.
    ValueError
        If either is a batch, the clubhead never crosses the ball's line, or ``interval``
        is not positive.
    """
    _check_swing(golfer, downswing)
    times, postures = _sampled_downswing(golfer, downswing, interval)
    ball = models.ball_at_address(golfer)
    with style_context():
        fig = new_figure((BOOK_WIDTH, 4.8))
        ax = fig.subplots()
        _plane_axes(ax, golfer)
        everything = np.concatenate(
            [np.concatenate(_stick(golfer, q)) for q in postures] + [ball[None]]
        )
        ax.set_xlim(everything[:, 0].min() - 0.1, everything[:, 0].max() + 0.1)
        ax.set_ylim(everything[:, 1].min() - 0.1, everything[:, 1].max() + 0.1)
        lines = [
            ax.plot([], [], color=colour, linewidth=2.2, label=label)[0]
            for colour, label in zip(_PART_COLOURS, _PART_LABELS)
        ]
        title = ax.set_title("")
        # The key in the space that the tall, equal-aspect swing leaves free on its right.
        ax.legend(loc="center left", bbox_to_anchor=(1.05, 0.5))

    def frame(i):
        for line, points in zip(lines, _stick(golfer, postures[i])):
            line.set_data(*points.T)
        title.set_text(
            f"t = {fmt(times[i], '.3f')} s" + (" (impact)" if i == len(postures) - 1 else "")
        )
        return lines + [title]

    # Lay the figure out once, with the longest title, and keep that layout: every frame
    # then has the swing in the same place (and is drawn without a layout pass).
    frame(len(postures) - 1)
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    return FuncAnimation(fig, frame, frames=len(postures), interval=50, blit=False)


# matplotlib's player draws its buttons with Font Awesome icons fetched from a CDN; the
# book must not fetch anything, so the link goes and each icon becomes characters that
# the basic fonts draw: the triangles U+25C0 and U+25B6 (Geometric Shapes) and the bars
# U+2759 and U+275A (Dingbats), all in DejaVu Sans, the sans-serif font of Debian's
# Chromium, and in the symbol fonts of Windows and macOS.  The media-control characters
# U+23EE and U+23ED (first and last frame) are in none of Debian's basic fonts: they
# showed as empty boxes (tests/book/test_animation_player.py renders the buttons).
_ICON_TEXT = {
    "fa-minus": "\u2212",
    "fa-fast-backward": "\u2759\u25c0\u25c0",
    "fa-step-backward": "\u2759\u25c0",
    "fa-play fa-flip-horizontal": "\u25c0",
    "fa-pause": "\u275a\u275a",
    "fa-play": "\u25b6",
    "fa-step-forward": "\u25b6\u2759",
    "fa-fast-forward": "\u25b6\u25b6\u2759",
    "fa-plus": "+",
}
_ICON = re.compile(r'<i class="fa ([a-z -]+)"></i>')
_STYLESHEET = re.compile(r"<link[^>]*font-awesome[^>]*>")
# One embedded frame of the player: base64 text that ``to_jshtml`` breaks into lines
# ending in a backslash (a JavaScript string continued over lines).
_FRAME = re.compile(r'"data:image/png;base64,((?:[A-Za-z0-9+/=]|\\\n)+)"')


def _palette_frame(match):
    """One embedded frame as a 64-colour palette PNG, encoded as the explorers' frames are.

    Median cut (the white background stays pure white), no dither, no metadata: see
    ``geomotion.widgets.png_frame``.
    """
    image = Image.open(io.BytesIO(base64.b64decode(match.group(1).replace("\\\n", ""))))
    palette = image.convert("RGB").quantize(colors=64, method=0, dither=0)
    small = io.BytesIO()
    palette.save(small, format="png", optimize=True)
    return '"data:image/png;base64,' + base64.b64encode(small.getvalue()).decode("ascii") + '"'


def offline_animation_html(animation):
    """The animation as one HTML block that plays with no request outside the page.

    matplotlib's ``Animation.to_jshtml`` (frames as ``data:`` URIs, played
    once by default) without its link to the Font Awesome stylesheet on a CDN; the
    player's button icons become characters that the basic fonts draw, and each frame
    becomes a 64-colour palette PNG (about a third of the size; no metadata).

    Parameters
    ----------
    animation : matplotlib.animation.Animation

    Returns
    -------
    str

    Raises
    ------
    TypeError
        If ``animation`` is not a matplotlib Animation.
    ValueError
        If matplotlib's player uses an icon this function does not know (a newer
        template), rather than leave a blank button, or embeds its frames in a form this
        function does not read.
    """
    if not isinstance(animation, Animation):
        raise TypeError(
            f"animation: expected a matplotlib Animation, got {type(animation).__name__}"
        )
    html = _STYLESHEET.sub("", animation.to_jshtml(default_mode="once"))
    unknown = sorted(set(_ICON.findall(html)) - set(_ICON_TEXT))
    if unknown:
        raise ValueError(f"animation: matplotlib's player uses icons {unknown} with no text")
    html, count = _FRAME.subn(_palette_frame, html)
    if count == 0 or count != html.count("data:image/png;base64,"):
        raise ValueError("animation: matplotlib's player embeds its frames in an unknown form")
    return _ICON.sub(lambda match: _ICON_TEXT[match.group(1)], html)
