"""Layer 4: every page of the built book, opened in headless Chromium with the network cut off."""

from pathlib import Path

import pytest
from pagecheck import check_page, serve

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
    assert not problems, f"{page}:\n  " + "\n  ".join(problems)
