"""The static form of the explorers: frames over a grid, HTML sliders, nothing fetched.

The rendered book shows this form (it renders no widget views); JupyterLab shows the live
widget from the same display bundle.  tests/book/test_static_explorers.py moves a slider
on the built page.
"""

import base64
import io
import itertools
import json
import re

import numpy as np
import pytest
from bs4 import BeautifulSoup
from conftest import SLOW_EXPLORERS, slow_marked
from PIL import Image

from geomotion import figures, widgets

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# Each explorer's HTML block stays under this size (characters = bytes; base64 PNGs).
# The frames are drawn at the book's 110 dpi (649 px wide, legible in the 672 px column;
# tests/companion/test_figure_legibility.py), 1.49 times the pixels of the former 90 dpi:
# the largest block, the allocation explorer's nine tall frames, grew from 233 to 296 kB.
MAX_HTML = 350_000

# name: (figure function that the frames redraw, grid of slider values, default position)
STATIC = {
    "allocation_explorer": (
        "allocation_figure",
        {"w1": (1.0, 4.0, 8.0), "w2": (1.0, 4.0, 8.0)},
        {"w1": 1.0, "w2": 4.0},
    ),
    "phase_loop_explorer": (
        "phase_loop_figure",
        {"a0": (0.5, 1.0, 1.5, 2.0), "clockwise": (False, True)},
        {"a0": 1.0, "clockwise": False},
    ),
    "baumgarte_explorer": (
        "baumgarte_figure",
        {"alpha": (2.0, 10.0), "dt": (0.02, 0.05)},
        {"alpha": 2.0, "dt": 0.02},
    ),
}
NAMES = slow_marked([*STATIC, "onset_explorer"], SLOW_EXPLORERS)


def block_spec(name, request):
    """(figure function, grid, default) of an explorer's block.  The onset explorer's
    grid is its optimum's onsets (ms after the hub's) and 20 ms (shoulder), 40 ms (wrist)
    either side, within ``figures.onset_grid``."""
    if name != "onset_explorer":
        return STATIC[name]
    optimum = request.getfixturevalue("golf_optimum").optimum
    ranges = figures.onset_grid(optimum)
    grid, default = {}, {}
    for j, (key, spread) in enumerate((("shoulder", 20.0), ("wrist", 40.0)), start=1):
        low, high = 1000 * ranges[key][0], 1000 * ranges[key][-1]
        start = 1000 * optimum.onset[j]
        grid[key] = (max(low, start - spread), start, min(high, start + spread))
        default[key] = start
    return "onset_swing_figure", grid, default


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch):
    """A test that builds a block draws its frames (the module keeps built blocks per
    process); the blocks most tests read are drawn once for the session (conftest.py)."""
    monkeypatch.setattr(widgets, "_BUILT", {})


def bundle_of(name):
    return getattr(widgets, name)()._repr_mimebundle_()


def frames_of(soup):
    return json.loads(soup.select_one("script.geomotion-explorer-frames").string)


@pytest.mark.parametrize("name", NAMES)
def test_bundle_holds_the_live_widget_and_the_static_block(explorer_build, name):
    bundle = explorer_build(name).bundle  # drawn once for the session (conftest.py)
    assert set(bundle) == {WIDGET_VIEW, "text/html", "text/plain"}
    # The plain text names the grid, not a widget's random model id (nbval compares it).
    assert "model_id" not in bundle["text/plain"] and "precomputed frames" in bundle["text/plain"]
    assert len(bundle["text/html"]) < MAX_HTML, f"{name}: {len(bundle['text/html'])} characters"


@pytest.mark.parametrize("name", NAMES)
def test_one_slider_per_parameter_one_frame_per_grid_point(explorer_build, name, request):
    _, grid, default = block_spec(name, request)
    soup = BeautifulSoup(explorer_build(name).bundle["text/html"], "html.parser")
    sliders = soup.select("input[type=range]")
    assert [slider["name"] for slider in sliders] == list(grid)
    for slider, (key, values) in zip(sliders, grid.items()):
        assert (int(slider["min"]), int(slider["max"])) == (0, len(values) - 1)
        assert int(slider["value"]) == values.index(default[key])  # starts at the default
        assert len(json.loads(slider["data-labels"])) == len(values)
    frames = frames_of(soup)
    expected = {
        ",".join(map(str, index))
        for index in itertools.product(*(range(len(v)) for v in grid.values()))
    }
    assert set(frames) == expected
    assert len(set(frames.values())) == len(frames), "two grid points gave the same frame"
    image = soup.select_one("img.geomotion-explorer-frame")
    start = ",".join(str(values.index(default[key])) for key, values in grid.items())
    assert image["data-key"] == start
    assert image["src"] == "data:image/png;base64," + frames[start]
    sizes = set()
    for text in frames.values():
        picture = Image.open(io.BytesIO(base64.b64decode(text)))
        assert picture.format == "PNG" and picture.mode == "P"  # a palette PNG
        sizes.add(picture.size)
    # One size for every frame (the image does not jump when a slider moves), as wide as
    # the book's static figures: 5.9 in at 110 dpi.
    ((width, _),) = sizes
    assert width == int(figures._style.BOOK_WIDTH * figures.STYLE["figure.dpi"]) == 649


@pytest.mark.parametrize("name", NAMES)
def test_block_fetches_nothing(explorer_build, name):
    soup = BeautifulSoup(explorer_build(name).bundle["text/html"], "html.parser")
    assert all(not script.get("src") for script in soup.select("script"))
    addresses = [
        tag.get(key) for tag in soup.find_all(True) for key in ("src", "href") if tag.get(key)
    ]
    assert addresses and all(address.startswith("data:image/png;base64,") for address in addresses)
    frames = soup.select_one("script.geomotion-explorer-frames")
    frames.decompose()  # base64 text, like the image's address: what remains is markup and code
    del soup.select_one("img.geomotion-explorer-frame")["src"]
    assert not re.search(r"https?:|//[a-z]", str(soup).replace("</", "")), "an outside address"
    assert soup.select_one(".geomotion-explorer-note").get_text().startswith("Drag the sliders")


@pytest.mark.parametrize("name", NAMES)
def test_frames_redraw_the_figure_at_every_grid_point(explorer_build, name, request):
    function, grid, _ = block_spec(name, request)
    calls = [values for called, values in explorer_build(name).calls if called == function]
    # The first call is the live widget's default view; then one call per grid point.
    drawn = calls[1:]
    if function == "allocation_figure":
        drawn = [{"w1": call["W"][0], "w2": call["W"][1]} for call in drawn]
    elif function == "onset_swing_figure":  # the onsets the run's generators had
        onsets = [1000 * (call["generators"].onset - call["generators"].onset[0]) for call in drawn]
        drawn = [{"shoulder": after[1], "wrist": after[2]} for after in onsets]
    else:
        drawn = [{key: call[key] for key in grid} for call in drawn]
    points = [dict(zip(grid, point)) for point in itertools.product(*grid.values())]
    assert drawn == [pytest.approx(point, abs=1e-9) for point in points]


def test_allocation_frame_shows_its_weights(explorer_build):
    """The frame at (w1, w2) = (8, 1) marks the weighted input (w2, w1) / (w1 + w2)."""
    build = explorer_build("allocation_explorer")
    # grid order: w1 over (1, 4, 8) outer, w2 inner; (8, 1) is the seventh frame.
    fig, png = build.frames[6]
    assert frames_of(BeautifulSoup(build.bundle["text/html"], "html.parser"))["2,0"] == png
    (weighted,) = [
        line.get_xydata()[0]
        for line in fig.axes[0].get_lines()
        if line.get_marker() == "s" and line.get_linestyle() == "None"
    ]
    np.testing.assert_allclose(weighted, np.array([1.0, 8.0]) / 9.0, rtol=1e-13)


def test_default_must_be_a_grid_value():
    with pytest.raises(ValueError, match="default a=3"):
        widgets.StaticExplorer("x", figures.allocation_figure, {"a": ("a", (1, 2))}, {"a": 3})


def test_same_grid_gives_the_same_bytes(explorer_build):
    """nbval compares the stored block: drawing it twice must give the same text."""
    first = explorer_build("phase_loop_explorer").bundle["text/html"]  # the session's drawing
    assert bundle_of("phase_loop_explorer")["text/html"] == first  # drawn again (fresh_cache)
