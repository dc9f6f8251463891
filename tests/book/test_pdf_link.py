"""The preface links the PDF exactly when the HTML build has it beside the pages.

After `make book` there is no PDF and no link; after `make pdf` both (test_pdf.py checks
that the link works).  A link without its file would be a dead link in the book.
"""

import re
from pathlib import Path

import pytest

HTML = Path(__file__).resolve().parents[2] / "_build" / "html"


def test_preface_links_the_pdf_only_when_it_is_there():
    preface = HTML / "book" / "preface.html"
    if not preface.is_file():
        pytest.fail(f"{preface} not found: build the book first (make book)")
    linked = re.search(r'href="[^"]*geometry-of-motion\.pdf"', preface.read_text()) is not None
    assert linked == (HTML / "geometry-of-motion.pdf").is_file()
