"""The explorers move on the static page: no kernel, no outside request (issue 23, item 4).

The page shows each explorer's static block (geomotion._static_explorer): HTML sliders
over precomputed frames.  In Chromium at 1280 px, moving a slider with the keyboard must
change the image and the slider's readout; a page with an explorer left as an empty
widget view fails.
"""

import os
from pathlib import Path

import pytest
from pagecheck import VIEWPORT, serve

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"

# Page: the explorers it shows, in order.
PAGES = {
    "notebooks/parallel_mechanisms.html": ["Allocation", "Phase-loop", "Baumgarte"],
    "notebooks/parallel_mechanisms_exercises.html": ["Allocation"],
    "notebooks/golf_downswing.html": ["Onset explorer"],
}


def _open(browser, url, page, problems):
    tab = browser.new_page(viewport=VIEWPORT)
    tab.on("request", lambda request: _note_outside(request.url, problems))
    tab.on("pageerror", lambda error: problems.append(f"uncaught exception: {error}"))
    tab.goto(f"{url}/{page}", wait_until="networkidle")
    tab.wait_for_load_state("load")  # "networkidle" may come before it
    return tab


def _note_outside(address, problems):
    if not address.startswith(("http://127.0.0.1", "data:", "blob:", "about:")):
        problems.append(f"request leaves the machine: {address}")


@pytest.mark.browser
@pytest.mark.parametrize("page", list(PAGES))
def test_every_explorer_moves_on_the_page(browser, page):
    if not (HTML / page).is_file():
        pytest.fail(f"{HTML / page} not found: build the book first (make book)")
    problems = []
    with serve(HTML) as url:
        tab = _open(browser, url, page, problems)
        try:
            explorers = tab.locator("div.geomotion-explorer")
            assert explorers.count() == len(PAGES[page])
            for number, name in enumerate(PAGES[page]):
                box = explorers.nth(number)
                image = box.locator("img.geomotion-explorer-frame")
                assert image.get_attribute("alt").startswith(name)
                assert image.evaluate("img => img.complete && img.naturalWidth > 0")
                slider = box.locator("input[type=range]").first
                readout = box.locator("output").first
                before = (image.get_attribute("src"), readout.inner_text())
                box.scroll_into_view_if_needed()
                stem = f"{Path(page).stem}-{name.lower()}"
                if number == 0:
                    tab.screenshot(path=_shot(f"explorer-{stem}-default.png"))
                slider.focus()
                tab.keyboard.press("End")  # the reader drags it to its last position
                after = (image.get_attribute("src"), readout.inner_text())
                assert after[0] != before[0], f"{name}: the image did not change"
                assert after[1] != before[1], f"{name}: the readout did not change"
                assert image.evaluate("img => img.complete && img.naturalWidth > 0")
                if number == 0:
                    tab.screenshot(path=_shot(f"explorer-{stem}-moved.png"))
                tab.keyboard.press("Home")  # and to its first position
                assert image.get_attribute("data-key").split(",")[0] == "0"
        finally:
            tab.close()
    assert not problems, "\n".join(problems)


def _shot(name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return os.fspath(SCREENSHOTS / name)


def test_no_explorer_is_left_as_code_without_output():
    """Each explorer cell of the pages shows its block (not an empty output)."""
    for page in PAGES:
        if not (HTML / page).is_file():
            pytest.fail(f"{HTML / page} not found: build the book first (make book)")
        soup = (HTML / page).read_text(encoding="utf-8")
        assert soup.count('class="geomotion-explorer"') == len(PAGES[page]), page


ANIMATION_PAGE = "notebooks/golf_downswing.html"


@pytest.mark.browser
def test_the_swing_animations_play_on_the_page(browser):
    """matplotlib's players (frames embedded, no CDN), the planar swing's and the 3-D
    golfer's: in each, a frame step changes its own image and leaves the other's."""
    if not (HTML / ANIMATION_PAGE).is_file():
        pytest.fail(f"{HTML / ANIMATION_PAGE} not found: build the book first (make book)")
    problems = []
    with serve(HTML) as url:
        tab = _open(browser, url, ANIMATION_PAGE, problems)
        try:
            players = tab.locator("div.animation")
            assert players.count() == 2
            images = [players.nth(i).locator("img[id^=_anim_img]") for i in range(2)]
            for i, image in enumerate(images):
                image.scroll_into_view_if_needed()
                before = [other.get_attribute("src") for other in images]
                assert before[i].startswith("data:image/png;base64,")
                players.nth(i).locator("button[title='Next frame']").click()
                after = [other.get_attribute("src") for other in images]
                assert after[i] != before[i], f"player {i}: the frame did not change"
                assert after[1 - i] == before[1 - i], f"player {i} moved the other one"
                play = players.nth(i).locator("button[title='Play']")
                assert play.inner_text().strip() == "\u25b6"
        finally:
            tab.close()
    assert not problems, "\n".join(problems)
