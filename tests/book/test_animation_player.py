"""The swing animation's player draws every button and fetches nothing (chapter 3).

``figures.offline_animation_html`` replaces matplotlib's Font Awesome icons, which come
from a CDN, by characters.  A character that no installed font has is drawn as the
``.notdef`` glyph of the button's font: in Debian's Chromium, whose fonts are DejaVu, an
empty box.  The first- and last-frame buttons showed that box while they used U+23EE and
U+23ED.  Here the player is rendered in the offline headless Chromium of the page checks,
served from this machine like the book, and each button is judged by what it draws:

* the button's inside (within its border) holds dark pixels: a button whose icon is
  missing altogether (a Font Awesome ``<i>`` without its font) draws nothing there;
* every character of its label, drawn alone in the button's font, has dark pixels and
  differs from the same font's ``.notdef`` glyph, drawn the same way from a code point
  that no font maps (U+0378, unassigned).  A missing character is drawn as exactly that
  glyph, pixel for pixel; a character some font has is not.

``test_the_check_sees_a_missing_glyph`` puts U+23EE back on the first-frame button and
requires the check to flag it, so a check that stopped seeing boxes would be noticed.
"""

import io
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from pagecheck import VIEWPORT, check_page, serve
from PIL import Image

from geomotion import figures, models

SCREENSHOTS = Path(__file__).resolve().parents[2] / "_build" / "screenshots"

#: A code point that no font maps: the browser draws the font's .notdef glyph for it.
NOTDEF = "\u0378"

#: matplotlib's player: the titles of its buttons, in order.
BUTTONS = [
    "Decrease speed",
    "First frame",
    "Previous frame",
    "Play backwards",
    "Pause",
    "Play",
    "Next frame",
    "Last frame",
    "Increase speed",
]

#: A pixel darker than this (0-255 grey) is ink: black text on the light button face
#: (Chromium's default, #efefef) or on the white probe.
INK = 128

# Draws one string alone in a given font, black on white, on a layer over the whole page,
# so that nothing of the page shows in the probe's screenshot.
PROBE_JS = """
([text, font]) => {
  let layer = document.getElementById("glyph-probe-layer");
  if (!layer) {
    layer = document.createElement("div");
    layer.id = "glyph-probe-layer";
    layer.style.cssText = "position:fixed; inset:0; background:#fff; z-index:2147483647";
    const probe = document.createElement("span");
    probe.id = "glyph-probe";
    probe.style.cssText = "position:absolute; left:8px; top:8px; padding:4px; color:#000; " +
      "background:#fff; white-space:pre; line-height:normal; display:inline-block";
    layer.appendChild(probe);
    document.body.appendChild(layer);
  }
  const probe = document.getElementById("glyph-probe");
  probe.style.font = font;
  probe.textContent = text;
}
"""


def grey(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"))


def draw_alone(tab, text, font):
    """Grey pixels of ``text`` drawn alone in CSS ``font`` (black on white)."""
    tab.evaluate(PROBE_JS, [text, font])
    return grey(tab.locator("#glyph-probe").screenshot())


def inside(tab, button):
    """Grey pixels of a button inside its border: what its label draws on its face."""
    box = button.evaluate(
        """(b) => {
          const r = b.getBoundingClientRect(), s = getComputedStyle(b);
          const x = parseFloat(s.borderLeftWidth) + 1, y = parseFloat(s.borderTopWidth) + 1;
          const w = r.width - x - parseFloat(s.borderRightWidth) - 1;
          const h = r.height - y - parseFloat(s.borderBottomWidth) - 1;
          return {x: r.x + x, y: r.y + y, width: w, height: h};
        }"""
    )
    return grey(tab.screenshot(clip=box))


def button_problems(tab):
    """What is wrong with the drawing of each player button (empty when all is well)."""
    buttons = tab.locator(".anim-buttons button")
    assert [buttons.nth(i).get_attribute("title") for i in range(buttons.count())] == BUTTONS
    faces = [inside(tab, buttons.nth(i)) for i in range(buttons.count())]  # before any probe
    problems = []
    for i, face in enumerate(faces):
        button = buttons.nth(i)
        title = button.get_attribute("title")
        if not (face < INK).any():
            problems.append(f"{title}: the button is blank")
        font = button.evaluate("(b) => getComputedStyle(b).font")
        notdef = draw_alone(tab, NOTDEF, font)
        for char in button.inner_text().strip():
            if char.isspace():
                continue
            drawn = draw_alone(tab, char, font)
            if not (drawn < INK).any():
                problems.append(f"{title}: U+{ord(char):04X} draws nothing")
            elif drawn.shape == notdef.shape and np.array_equal(drawn, notdef):
                problems.append(f"{title}: U+{ord(char):04X} is drawn as the empty box (.notdef)")
    tab.evaluate("() => document.getElementById('glyph-probe-layer')?.remove()")
    return problems


@pytest.fixture(scope="module")
def player_url(tmp_path_factory):
    """The player of a short swing animation (four frames), as one page served locally."""
    golfer = models.swing_plane_golfer()
    run = models.simulate_downswing(golfer, models.swing_generators(np.array([0.0, 0.03, 0.08])))
    html = figures.offline_animation_html(figures.swing_animation(golfer, run, interval=0.1))
    folder = tmp_path_factory.mktemp("player")
    (folder / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>swing animation</title></head><body>\n{html}\n</body></html>\n",
        encoding="utf-8",
    )
    with serve(folder) as url:
        yield f"{url}/index.html"


def open_player(browser, url, requests):
    tab = browser.new_page(viewport=VIEWPORT)
    tab.on("request", lambda request: requests.append(request.url))
    tab.goto(url, wait_until="networkidle")
    tab.wait_for_load_state("load")  # "networkidle" may come before it
    return tab


@pytest.mark.browser
def test_every_button_draws_its_icon(browser, player_url):
    tab = open_player(browser, player_url, [])
    try:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.locator(".animation").screenshot(path=os.fspath(SCREENSHOTS / "animation-player.png"))
        problems = button_problems(tab)
    finally:
        tab.close()
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_the_check_sees_a_missing_glyph(browser, player_url):
    if (
        shutil.which("fc-list")
        and subprocess.run(
            ["fc-list", ":charset=23ee", "family"], capture_output=True, text=True, check=False
        ).stdout.strip()
    ):
        pytest.skip("a font on this machine has U+23EE: it is drawn, not a box, here")
    tab = open_player(browser, player_url, [])
    try:
        # The first-frame button as it was: U+23EE, which no font of Debian's Chromium has.
        tab.locator("button[title='First frame']").evaluate("(b) => { b.textContent = '\u23ee'; }")
        problems = button_problems(tab)
    finally:
        tab.close()
    assert problems == ["First frame: U+23EE is drawn as the empty box (.notdef)"]


@pytest.mark.browser
def test_the_player_plays_and_fetches_nothing(browser, player_url):
    problems = check_page(browser, player_url)  # console, requests, images: the page check
    assert not problems, "\n".join(problems)
    requests = []
    tab = open_player(browser, player_url, requests)
    try:
        image = tab.locator("img[id^=_anim_img]")
        slider = tab.locator("input.anim-slider")
        last = int(slider.get_attribute("max"))
        assert last == 3  # four frames: 0, 0.1, 0.2 s and impact
        tab.locator("button[title='Last frame']").click()
        assert slider.input_value() == str(last)
        final = image.get_attribute("src")
        tab.locator("button[title='First frame']").click()
        assert slider.input_value() == "0" and image.get_attribute("src") != final
        tab.locator("button[title='Next frame']").click()
        assert slider.input_value() == "1"
        tab.locator("button[title='Previous frame']").click()
        assert slider.input_value() == "0"
        for title in BUTTONS:  # every button, then played to the end
            tab.locator(f"button[title='{title}']").click()
        tab.locator("button[title='Play']").click()
        tab.wait_for_function(
            f"() => document.querySelector('input.anim-slider').value === '{last}'"
        )
        assert image.get_attribute("src") == final
    finally:
        tab.close()
    outside = [url for url in requests if not url.startswith(("http://127.0.0.1", "data:"))]
    assert requests and not outside, outside
