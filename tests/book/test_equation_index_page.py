"""The generated page "Equations and the code" links every cited equation both ways.

``book/_ext/equation_index.py`` writes the page from the docstrings the API pages render.
Here the built HTML is read as a reader's browser would follow it: every equation that an
API page links to has a row; the row's number links to that equation, shows the number
the equation carries in its chapter, and names that chapter; every entry the row lists
exists on its API page and links back to the equation; and every docstring that links to
an equation is listed in that equation's row.  Needs the build (``make book``).
"""

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
PAGE = "book/equations.html"
API = "book/api/"
EQUATION_ANCHOR = re.compile(r"^equation-(.+)$")
EQUATION_NUMBER = re.compile(r"\([\d.]+\)")


def anchor(prefix, label):
    """The HTML id Sphinx gives ``prefix-label`` (docutils' make_id: ``_`` becomes ``-``)."""
    return re.sub(r"[^a-z0-9]+", "-", f"{prefix}-{label}".lower()).strip("-")


class Document(HTMLParser):
    """One built page: its element ids, its equation numbers, and its links in context.

    ``links`` holds (href, entry) for every ``<a href>``, where ``entry`` is the id of the
    innermost API entry (``<dl class="py ...">`` with its ``<dt id>``) around the link, or
    None outside one.  ``numbers`` maps an equation's anchor to the number it shows.
    """

    def __init__(self, text):
        super().__init__()
        self.ids, self.links, self.numbers = set(), [], {}
        self._lists = []  # one item per open <dl>: the API entry's id, "" before its <dt>, None
        self._equation, self._number = None, None
        self.feed(text)

    def entry(self):
        return next((entry for entry in reversed(self._lists) if entry), None)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if "id" in attrs:
            self.ids.add(attrs["id"])
            if EQUATION_ANCHOR.match(attrs["id"]):
                self._equation = attrs["id"]
        if tag == "dl":
            self._lists.append("" if "py" in classes else None)
        elif tag == "dt" and self._lists and self._lists[-1] == "" and "id" in attrs:
            self._lists[-1] = attrs["id"]
        elif tag == "a" and "href" in attrs:
            self.links.append((attrs["href"], self.entry()))
        elif tag == "span" and "eqno" in classes and self._equation:
            self._number = []

    def handle_data(self, data):
        if self._number is not None:
            self._number.append(data)

    def handle_endtag(self, tag):
        if tag == "dl" and self._lists:
            self._lists.pop()
        elif tag == "span" and self._number is not None:
            number = EQUATION_NUMBER.search("".join(self._number))
            self.numbers[self._equation] = number.group(0) if number else ""
            self._number, self._equation = None, None


class IndexRows(HTMLParser):
    """Rows of the page's table.equation-index: row id, cell texts, links per cell."""

    def __init__(self, text):
        super().__init__()
        self.rows, self._in_table, self._row, self._cell = [], False, None, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "equation-index" in (attrs.get("class") or ""):
            self._in_table = True
        elif self._in_table and tag == "tr":
            self._row = {"id": attrs.get("id"), "cells": [], "links": []}
        elif self._row is not None and tag in {"td", "th"}:
            self._cell = []
            self._row["links"].append([])
        elif self._cell is not None and tag == "a":
            self._row["links"][-1].append(attrs.get("href", ""))

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in {"td", "th"} and self._cell is not None:
            self._row["cells"].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None
        elif tag == "table":
            self._in_table = False


_documents = {}


def document(page):
    """The parsed built page ``page`` (relative to _build/html), read once."""
    if page not in _documents:
        path = HTML / page
        assert path.is_file(), f"link to a page that was not built: {page}"
        _documents[page] = Document(path.read_text(encoding="utf-8"))
    return _documents[page]


def resolve(from_page, href):
    """(page, anchor) that ``href`` on ``from_page`` points to."""
    target = urljoin("/" + from_page, href)
    page, _, anchor = target.partition("#")
    return page.lstrip("/"), unquote(anchor)


@pytest.fixture(scope="module")
def rows():
    if not (HTML / PAGE).is_file():
        pytest.fail(f"{HTML / PAGE} not found: build the book first (make book)")
    parsed = IndexRows((HTML / PAGE).read_text(encoding="utf-8")).rows
    header, body = parsed[0], parsed[1:]
    assert header["cells"] == ["Equation", "Label", "In", "Cited by"]
    return {row["cells"][1]: row for row in body}


@pytest.fixture(scope="module")
def api_citations():
    """{equation anchor: {(API page, entry id or None)}}: where the API pages link to equations."""
    found = {}
    for path in sorted((HTML / API).glob("*.html")):
        page = path.relative_to(HTML).as_posix()
        for href, entry in document(page).links:
            target = resolve(page, href)[1]
            if EQUATION_ANCHOR.match(target):
                found.setdefault(target, set()).add((page, entry))
    return found


def test_every_equation_cited_on_the_api_pages_has_a_row(rows, api_citations):
    assert len(api_citations) >= 60, "the API pages link to few equations: are they built?"
    listed = {anchor("equation", label) for label in rows}
    missing = sorted(set(api_citations) - listed)
    assert not missing, f"equations the API pages cite but the index lacks: {missing}"
    extra = sorted(listed - set(api_citations))
    assert not extra, f"rows for equations that no API page cites: {extra}"


def test_each_row_links_to_its_equation_with_its_number_and_chapter(rows):
    for label, row in rows.items():
        assert row["id"] == anchor("code", label), row
        (equation_link,), _, (chapter_link,), _ = row["links"]
        page, target = resolve(PAGE, equation_link)
        assert target == anchor("equation", label), f"{label}: {equation_link}"
        assert target in document(page).ids, f"{label}: {equation_link} leads nowhere"
        shown = document(page).numbers.get(target)
        assert shown and row["cells"][0] == shown, f"{label}: {row['cells'][0]} != {shown}"
        assert resolve(PAGE, chapter_link)[0] == page, f"{label}: chapter {chapter_link}"


def test_each_listed_entry_exists_and_cites_the_equation(rows):
    for label, row in rows.items():
        links = row["links"][3]
        assert links, f"{label}: no code listed"
        for href in links:
            page, entry = resolve(PAGE, href)
            assert page.startswith(API), f"{label}: {href} is not an API page"
            found = document(page)
            assert entry in found.ids, f"{label}: {href} leads nowhere"
            cites = [
                where
                for link, where in found.links
                if resolve(page, link)[1] == anchor("equation", label)
            ]
            assert cites, f"{label}: {href} lists an entry whose page does not cite it"
            if not entry.startswith("module-"):
                assert entry in cites, f"{label}: the docstring of {entry} does not cite it"


def test_every_citing_docstring_is_listed_in_its_row(rows, api_citations):
    by_anchor = {anchor("equation", label): row for label, row in rows.items()}
    for label, places in api_citations.items():
        listed = {resolve(PAGE, href) for href in by_anchor[label]["links"][3]}
        for page, entry in places:
            if entry is None:  # a module's docstring: the row names a module of that page
                assert any(p == page and a.startswith("module-") for p, a in listed), (
                    f"{label}: a module docstring of {page} cites it, the row lists none"
                )
            else:
                assert (page, entry) in listed, f"{label}: {page}#{entry} cites it, not listed"


def test_the_page_counts_what_it_lists(rows):
    text = (HTML / PAGE).read_text(encoding="utf-8")
    match = re.search(r"(\d+) equations of the book are cited by the docstrings of (\d+)", text)
    assert match, "the page's sentence of counts is missing"
    objects = {href for row in rows.values() for href in row["links"][3]}
    assert (int(match.group(1)), int(match.group(2))) == (len(rows), len(objects))
