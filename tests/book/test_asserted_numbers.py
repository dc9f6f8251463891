"""The Verification page lists what every cell asserts, and its links open the cell.

``book/_ext/asserted_numbers.py`` reads the checks from each code cell's source; the page
(``book/_ext/verification_page.py``) shows one row per check with a link to its cell.
Here: the reader on hand-written cells (each kind of check, with its value and
tolerance); on the built page, one row per check of every notebook, recounted from the
notebooks with Python's tokenizer, and every link landing on an anchor inside the cell
that holds the check; in Chromium, a link to a folded check opens its code.
"""

import io
import json
import os
import sys
import tokenize
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from pagecheck import VIEWPORT, serve

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
PAGE = HTML / "book" / "verification.html"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
sys.path.insert(0, os.fspath(ROOT / "book" / "_ext"))
import asserted_numbers  # noqa: E402

CELL = """
assert_close("clubhead speed", speed, 40.61, atol=0.005, unit="m/s")
assert_below(f"largest |{name}|", error, 1e-10, unit="m")
report.assert_below(1e-12)
np.testing.assert_allclose(M[0, 1], 0.2175, atol=1e-12)
np.testing.assert_allclose(a, b)
np.testing.assert_array_equal(rank, [2, 2])
for k in range(3):
    assert gain[k] > 0.5
"""


def test_each_kind_of_check_gives_its_row():
    rows = asserted_numbers.cell_rows(CELL, cell=7)
    table = [(row.what, row.value, row.tolerance) for row in rows]
    assert table == [
        ("clubhead speed", "40.61 m/s", "atol 0.005"),
        ("largest |{name}|", "< 1e-10 m", ""),
        ("every check of report", "< 1e-12", ""),
        ("M[0, 1]", "0.2175", "atol 1e-12, rtol 1e-07"),
        ("a", "b", "rtol 1e-07"),  # numpy's default tolerance, stated
        ("rank", "[2, 2]", "exact"),
        ("gain[k] > 0.5", "", ""),  # a condition: once, though it runs three times
    ]
    assert {row.cell for row in rows} == {7}


def test_a_long_expression_is_shortened_not_dropped():
    (row,) = asserted_numbers.cell_rows("assert " + " + ".join(["x"] * 60) + " > 0", cell=0)
    assert len(row.what) == asserted_numbers.WIDTH and row.what.endswith("…")


def checks_by_tokens(source):
    """Assert statements and calls of a function named assert...: Python's tokenizer."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith("%")]
    tokens = [
        token
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines)).readline)
        if token.type not in {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT}
    ]
    return sum(
        token.type == tokenize.NAME
        and token.string.startswith("assert")
        and (token.string == "assert" or after.string == "(")
        for token, after in zip(tokens, tokens[1:] + tokens[:1])
    )


@pytest.fixture(scope="module")
def page():
    if not PAGE.is_file():
        pytest.fail(f"{PAGE} not found: build the book first (make book)")
    return BeautifulSoup(PAGE.read_text(encoding="utf-8"), "html.parser")


def built(path):
    return BeautifulSoup((HTML / "notebooks" / f"{path.stem}.html").read_text(), "html.parser")


def cell_of(target):
    """The rendered cell an anchor belongs to: the cell itself, or the cell around a span."""
    return target if "cell" in target.get("class", []) else target.find_parent("div", "cell")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_page_has_a_row_for_every_check_and_each_link_lands_in_its_cell(page, path):
    cells = json.loads(path.read_text())["cells"]
    expected = sum(
        checks_by_tokens("".join(cell["source"])) for cell in cells if cell["cell_type"] == "code"
    )
    links = [
        a["href"]
        for a in page.select("table.asserted-numbers a.check-link")
        if a["href"].startswith(f"../notebooks/{path.stem}.html#")
    ]
    assert len(links) == expected > 0
    chapter = built(path)
    for link in set(links):
        anchor = link.split("#", 1)[1]
        index = int(anchor.rsplit("-", 1)[1])
        target = chapter.find(id=anchor)
        assert target is not None, f"{link}: no such anchor"
        code = cell_of(target).select_one(".cell_input").get_text()
        source = "".join(cells[index]["source"])
        assert source.splitlines()[-1].strip() in code, f"{link}: lands on another cell"


@pytest.mark.browser
def test_a_link_to_a_folded_check_opens_its_code(browser, page):
    chapter = built(ROOT / "notebooks" / "golf_downswing.ipynb")
    link = next(
        a["href"]
        for a in page.select("table.asserted-numbers a.check-link")
        if "golf_downswing" in a["href"]
        and cell_of(chapter.find(id=a["href"].split("#")[1])).select_one("details") is not None
    )
    with serve(HTML) as url:
        tab = browser.new_page(viewport=VIEWPORT)
        try:
            tab.goto(f"{url}/book/verification.html", wait_until="load")
            tab.locator(f'a.check-link[href="{link}"]').first.click()
            tab.wait_for_load_state("load")
            anchor = link.split("#", 1)[1]
            cell = tab.locator(f'div.cell:has([id="{anchor}"]), div.cell[id="{anchor}"]').first
            code = cell.locator(".cell_input")
            code.wait_for(state="visible", timeout=5_000)  # opened, not left folded
            assert cell.locator("details").first.evaluate("d => d.open")
            assert code.is_visible() and cell.is_visible()
        finally:
            tab.close()
