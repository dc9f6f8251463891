"""Checks fold, teaching cells stay open (issue 23, item 3).

The rule that says which code cell is a check lives in book/_tools/checks.py.  Here:

* in the notebooks, exactly the checks carry ``check`` and ``hide-input``, and no other
  cell of any notebook is folded;
* on the built pages, every check's code sits in a closed toggle with its anchor, every
  other cell's code is in plain view, and the Verification page links every check (its
  table of what each cell asserts links the cell);
* in Chromium at 1280 px, a check's code is hidden until its toggle is clicked, while a
  teaching cell's code is visible.
"""

import os
import sys
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from pagecheck import VIEWPORT, serve

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
SCREENSHOTS = ROOT / "_build" / "screenshots"
sys.path.insert(0, os.fspath(ROOT / "book" / "_tools"))
import checks  # noqa: E402

CHAPTERS = checks.chapter_notebooks()
ALL_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def decided_cells(path):
    """(index, cell, is_check) for the code cells of ``path`` whose tags the rule decides."""
    notebook = nbformat.read(path, as_version=4)
    found = set(checks.check_cells(notebook)) if path in CHAPTERS else set()
    return [
        (index, cell, index in found)
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code" and not checks.pending(path, cell)
    ]


def tags(cell):
    return set(cell.metadata.get("tags", []))


def test_rule_finds_checks_and_teaching_cells_in_every_chapter():
    for path in CHAPTERS:
        decided = decided_cells(path)
        assert any(is_check for *_, is_check in decided), f"{path.name}: no check found"
        assert any(not is_check for *_, is_check in decided), f"{path.name}: nothing open"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.stem)
def test_exactly_the_checks_carry_the_folding_tags(path):
    wrong = []
    for index, cell, is_check in decided_cells(path):
        has = tags(cell)
        if is_check and not {"check", "hide-input"} <= has:
            wrong.append(f"cell {index} is a check but is not tagged check + hide-input")
        if not is_check and has & ({"check"} | checks.FOLDING_TAGS):
            wrong.append(f"cell {index} teaches but is folded: {sorted(has)}")
    assert not wrong, f"{path.name} (run python book/_tools/checks.py):\n  " + "\n  ".join(wrong)


def test_rule_on_small_cells():
    """The rule itself: asserting and feeding nothing forward makes a check."""
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("x = 2\nassert x > 0"),  # x is read below: open
            nbformat.v4.new_code_cell("y = x + 1\nnp.testing.assert_allclose(y, 3)"),  # check
            nbformat.v4.new_code_cell("print(x)"),  # no assertion: open
            nbformat.v4.new_code_cell("name = 1\nassert name"),  # rebound before read below
            nbformat.v4.new_code_cell("name = 'a'\nprint(name)"),
        ]
    )
    assert checks.check_cells(notebook) == [1, 3]


def built(path):
    page = HTML / "notebooks" / f"{path.stem}.html"
    if not page.is_file():
        pytest.fail(f"{page} not found: build the book first (make book)")
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda path: path.stem)
def test_built_page_folds_exactly_the_checks(path):
    soup = built(path)
    cells = soup.select("div.cell")
    notebook = nbformat.read(path, as_version=4)
    code = [(index, cell) for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    assert len(cells) == len(code), "code cells and rendered cells do not pair up"
    decided = {index: is_check for index, _, is_check in decided_cells(path)}
    number = 0
    for (index, _), div in zip(code, cells):
        if index not in decided:
            continue
        toggle = div.select_one("details.above-input")
        if decided[index]:
            number += 1
            assert toggle is not None, f"cell {index} is a check but its code is in view"
            assert toggle.select_one(".cell_input") is not None
            assert "open" not in toggle.attrs, f"cell {index}: the check starts open"
            assert "Show the check" in toggle.summary.get_text()
            anchor = f"check-{path.stem.replace('_', '-')}-{number}"
            assert anchor in div.get("id", "").split(), f"cell {index}: no anchor {anchor}"
        else:
            assert toggle is None and div.select_one("details") is None, f"cell {index} is folded"
            assert div.select_one(".cell_input") is not None, f"cell {index}: code not shown"


def test_verification_page_links_every_check():
    page = HTML / "book" / "verification.html"
    if not page.is_file():
        pytest.fail(f"{page} not found: build the book first (make book)")
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    links = {a["href"] for a in soup.select("a.check-link")}
    linked = 0
    for path in CHAPTERS:
        for div in built(path).select("div.cell[id^=check-]"):  # each folded check...
            anchors = [div["id"]] + [span["id"] for span in div.select("span[id]")]
            targets = {f"../notebooks/{path.stem}.html#{anchor}" for anchor in anchors}
            assert targets & links, f"{path.stem}: {div['id']} is not linked"  # ...is linked
            linked += 1
    assert linked > 0


@pytest.mark.browser
def test_reader_opens_a_check_with_its_toggle(browser):
    chapter = CHAPTERS[-1]
    with serve(HTML) as url:
        tab = browser.new_page(viewport=VIEWPORT)
        try:
            tab.goto(f"{url}/notebooks/{chapter.stem}.html", wait_until="networkidle")
            tab.wait_for_load_state("load")  # "networkidle" may come before it
            check = tab.locator(f"#check-{chapter.stem.replace('_', '-')}-1")
            code = check.locator(".cell_input")
            teaching = tab.locator("div.cell:not([id^=check-])").nth(1).locator(".cell_input")
            assert teaching.is_visible() and not code.is_visible()
            assert check.locator(".cell_output").is_visible()  # the result stays in view
            check.scroll_into_view_if_needed()
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            tab.screenshot(path=os.fspath(SCREENSHOTS / "folded-check-closed.png"))
            check.locator("summary").click()
            code.wait_for(state="visible", timeout=5_000)
            assert "Hide the check" in check.locator("summary").inner_text()
            tab.wait_for_timeout(1_000)  # the theme fades the opened code in
            tab.screenshot(path=os.fspath(SCREENSHOTS / "folded-check-open.png"))
        finally:
            tab.close()
