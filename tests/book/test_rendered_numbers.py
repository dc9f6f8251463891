"""The numbers a reader sees in the built book: headings numbered once, equations per page.

Two defects this guards against, both visible only in the rendered HTML:

* "2.13.1. 1. Velocity and Force Projectors": Sphinx's section number in front of a
  heading that carries its own number (the exercises are numbered by hand, and _toc.yml
  numbers only two levels, so Sphinx leaves them alone);
* "Using geomotion" opening with equation (18): Sphinx counts the equations of all
  unnumbered pages with one counter; book/_ext/page_numbers.py restarts it on each page.
"""

import re
from pathlib import Path

import pytest

HTML = Path(__file__).resolve().parents[2] / "_build" / "html"

SECTION_NUMBER = re.compile(r'<span class="section-number">([\d.]+)\s*</span>')
TWICE = re.compile(r'<span class="section-number">([\d.]+)\s*</span>\s*(\d+\.\s[^<]{0,40})')
EQUATION_NUMBER = re.compile(r'<span class="eqno">\(([\d.]+)\)')
FIGURE_NUMBER = re.compile(r'<span class="caption-number">Fig\. ([\d.]+)')
TITLE = re.compile(r"<h1[^>]*>(.*?)</h1>", re.DOTALL)


def pages():
    if not (HTML / "index.html").is_file():
        pytest.fail(f"{HTML / 'index.html'} not found: build the book first (make book)")
    found = {
        path.relative_to(HTML).as_posix(): path.read_text(encoding="utf-8")
        for path in HTML.rglob("*.html")
        if "_static" not in path.relative_to(HTML).parts
    }
    assert len(found) >= 10
    return found


def is_unnumbered(text):
    """A page whose title (the <h1> of its content) has no section number."""
    titles = TITLE.findall(text)
    return bool(titles) and not any(SECTION_NUMBER.search(title) for title in titles)


def test_no_heading_is_numbered_twice():
    twice = {
        page: [" ".join(match) for match in TWICE.findall(text)]
        for page, text in pages().items()
        if TWICE.search(text)
    }
    assert not twice, f"Sphinx's number before a heading's own number: {twice}"


@pytest.mark.parametrize("pattern", [EQUATION_NUMBER, FIGURE_NUMBER], ids=["equations", "figures"])
def test_unnumbered_pages_count_from_one(pattern):
    """On every page outside the chapters the numbers run 1, 2, 3, ...; in a chapter they carry its number."""
    wrong, counted = {}, 0
    for page, text in pages().items():
        numbers = pattern.findall(text)
        if is_unnumbered(text):
            counted += bool(numbers)
            if numbers != [str(n) for n in range(1, len(numbers) + 1)]:
                wrong[page] = numbers
        elif any("." not in number for number in numbers):
            wrong[page] = numbers
    assert not wrong, f"numbers that do not restart on their page: {wrong}"
    if pattern is EQUATION_NUMBER:
        assert counted >= 3, "the preface, the conventions and Using geomotion number equations"


def test_using_geomotion_starts_at_equation_one():
    numbers = EQUATION_NUMBER.findall(pages()["notebooks/using_geomotion.html"])
    assert numbers[:1] == ["1"]
