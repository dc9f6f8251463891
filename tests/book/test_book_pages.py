"""Layer 4: every page of the built book, opened in headless Chromium with the network cut off."""

from pathlib import Path

import pytest
from pagecheck import VIEWPORT, check_page, serve

BUILD = Path(__file__).resolve().parents[2] / "_build"
HTML = BUILD / "html"
SCREENSHOTS = BUILD / "screenshots"


def built_pages():
    """Every HTML page of the book, relative to _build/html.

    Sphinx's utility pages (genindex, py-modindex, search) are included on purpose:
    readers reach them from every page, and the search page runs JavaScript that must
    work offline too.  Only _static/ is left out: it holds assets, not pages.
    """
    if not (HTML / "index.html").is_file():
        return [pytest.param(None, id="book-not-built")]
    return sorted(
        path.relative_to(HTML).as_posix()
        for path in HTML.rglob("*.html")
        if "_static" not in path.relative_to(HTML).parts
    )


@pytest.fixture(scope="module")
def book_url():
    with serve(HTML) as url:
        yield url


@pytest.mark.browser
@pytest.mark.parametrize("page", built_pages())
def test_page_renders_offline(page, browser, book_url):
    if page is None:
        pytest.fail(f"{HTML / 'index.html'} not found: build the book first (make book)")
    screenshot = SCREENSHOTS / page.replace("/", "__").replace(".html", ".png")
    problems = check_page(browser, f"{book_url}/{page}", screenshot=screenshot)
    waits = f"waited {problems.load_wait:.1f} s for load, {problems.mathjax_wait:.1f} s for MathJax"
    print(f"{page}: {waits}")
    assert not problems, f"{page} ({waits}):\n  " + "\n  ".join(problems)


#: Chromium's CPU slowed this many times: a machine busy with other work.  At 8 the page
#: check without its waits failed 6 times in 7 on the longest chapter ("404 math
#: element(s) but MathJax is not loaded": Playwright's "networkidle" came while the page
#: was still being parsed, before its deferred MathJax script had run).
SLOWDOWN = 8


@pytest.mark.browser
def test_the_longest_chapter_renders_on_a_slow_machine(browser, book_url):
    """The page check waits for the page's own signals, load and MathJax, not for a clock."""
    chapters = sorted((HTML / "notebooks").glob("*.html"), key=lambda path: path.stat().st_size)
    if not chapters:
        pytest.fail(f"no chapter pages under {HTML / 'notebooks'}: build the book first")
    page = chapters[-1].relative_to(HTML).as_posix()
    problems = check_page(browser, f"{book_url}/{page}", cpu_slowdown=SLOWDOWN)
    waits = f"waited {problems.load_wait:.1f} s for load, {problems.mathjax_wait:.1f} s for MathJax"
    print(f"{page}, CPU slowed {SLOWDOWN} times: {waits}")
    assert not problems, f"{page} ({waits}):\n  " + "\n  ".join(problems)


VERIFICATION = "book/verification.html"

# The lines each cell of the Verification table takes that names a notebook (a cell with a
# link), counted as the distinct tops of its text's line boxes.
TITLE_LINES_JS = r"""
() => Array.from(document.querySelectorAll("table.verification-table td"))
  .filter((cell) => cell.querySelector("a"))
  .map((cell) => {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    const tops = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
    }
    return [cell.textContent.trim(), tops.size];
  })
"""


@pytest.mark.browser
def test_verification_titles_take_at_most_two_lines(browser, book_url):
    """At the 1280 px window the table is not squeezed into the text column (page_styles.py)."""
    if not (HTML / VERIFICATION).is_file():
        pytest.fail(f"{HTML / VERIFICATION} not found: build the book first (make book)")
    tab = browser.new_page(viewport=VIEWPORT)
    try:
        tab.goto(f"{book_url}/{VERIFICATION}", wait_until="load")
        titles = tab.evaluate(TITLE_LINES_JS)
        scrolls = tab.evaluate(
            "() => { const box = document.querySelector('table.verification-table').parentElement;"
            " return box.scrollWidth > box.clientWidth + 1; }"
        )
    finally:
        tab.close()
    assert titles, "no cell of table.verification-table names a notebook"
    squeezed = [f"{title!r}: {lines} lines" for title, lines in titles if lines > 2]
    assert not squeezed, "titles wrapped to more than 2 lines:\n  " + "\n  ".join(squeezed)
    assert not scrolls, "the Verification table scrolls sideways"
