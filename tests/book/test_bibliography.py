"""The bibliography's labels are author and year, and every citation in the text reads
exactly as the label of the entry it links to.

The expected labels are derived here from book/references.bib on their own (surnames
and year, "et al." from three authors, a letter where two labels would coincide),
not taken from book/_ext/author_year_labels.py.
"""

import html
import re
from collections import Counter
from pathlib import Path
from string import ascii_lowercase

import pytest
from pybtex.database import parse_file

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
BIBLIOGRAPHY = HTML / "book" / "bibliography.html"

ENTRY = re.compile(
    r'<div class="citation" id="([^"]+)"[^>]*>\s*<span class="label">'
    r'<span class="fn-bracket">\[</span>(.*?)<span class="fn-bracket">\]</span>',
    re.S,
)
CITATION = re.compile(
    r'<a class="reference internal" href="(?:[^"#]*/)?bibliography\.html#([^"]+)"'
    r"[^>]*>([^<]*)</a>"
)


@pytest.fixture(scope="module")
def labels():
    """{anchor id: label} of the bibliography page."""
    if not BIBLIOGRAPHY.is_file():
        pytest.fail(f"{BIBLIOGRAPHY} not found: build the book first (make book)")
    return {
        anchor: html.unescape(label) for anchor, label in ENTRY.findall(BIBLIOGRAPHY.read_text())
    }


def plain(text):
    """BibTeX text as printed: group braces dropped, ``\\&`` an ampersand (a corporate
    author such as ``{{USGA and The R\\&A}}`` is one surname)."""
    return text.replace("{", "").replace("}", "").replace("\\&", "&")


def expected_bases():
    """'Surname, year' (two surnames joined by 'and', three or more as 'First et al.')."""
    bases = []
    for entry in parse_file(ROOT / "book" / "references.bib").entries.values():
        surnames = [plain(" ".join(person.last_names)) for person in entry.persons["author"]]
        who = (
            surnames[0]
            if len(surnames) == 1
            else " and ".join(surnames)
            if len(surnames) == 2
            else f"{surnames[0]} et al."
        )
        bases.append(f"{who}, {entry.fields['year']}")
    return bases


def expected_labels():
    """The labels, a letter appended (a, b, ...) to each of two or more equal ones."""
    counts = Counter(expected_bases())
    return sorted(
        base + letter
        for base, n in counts.items()
        for letter in (ascii_lowercase[:n] if n > 1 else [""])
    )


def test_labels_are_author_and_year(labels):
    assert "Featherstone, 2008a" in expected_labels()  # the .bib has two such works
    assert sorted(labels.values()) == expected_labels()


def test_every_citation_reads_as_the_label_it_links_to(labels):
    citations = [
        (page.relative_to(HTML).as_posix(), anchor, html.unescape(text))
        for page in HTML.rglob("*.html")
        if "_static" not in page.parts
        for anchor, text in CITATION.findall(page.read_text())
    ]
    assert len(citations) >= 10, "the chapters and the preface cite their sources"
    mismatched = [
        (page, text, labels.get(anchor))
        for page, anchor, text in citations
        if labels.get(anchor) != text
    ]
    assert not mismatched, f"citation text differs from the list's label: {mismatched}"
