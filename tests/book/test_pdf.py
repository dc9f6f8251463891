"""The PDF of `make pdf`: the whole book, with its numbered equations and figures.

Run by `make pdf` (pytest -m pdf) right after printing; `make test` leaves these out.
Reads the PDF with poppler-utils (pdfinfo, pdftotext, pdfimages): without them, or
without the PDF, the tests are skipped with a message, except in CI (CI=true).

What the book must contain is taken from the sources, not from the build: chapter
titles from the notebooks' first headings, page titles from the pages' first headings,
the numbers of labelled equations and captioned figures from the notebooks; a few
formulas written out by hand from their TeX.
"""

import json
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.pdf

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "_build" / "pdf" / "geometry-of-motion.pdf"
HTML = ROOT / "_build" / "html"
PAGES = (150, 900)  # 262 pages when written, 642 with the 3-D feet section and its API; far
# outside means lost or duplicated content (a book printed twice would pass 1200)
LABELLED_EQUATION = re.compile(r"\$\$[ \t]*\(([^)\s]+)\)[ \t]*$", re.MULTILINE)
POPPLER = ("pdfinfo", "pdftotext", "pdfimages")

# Formulas of the book as their typeset text reads once spaces are removed (TeX source
# in the comment), so that an untypeset or lost formula shows.
FORMULAS = [
    "P=FTV",  # preface: $P = \mathcal F^T \mathcal V$
    "rA=RABrB+pAB",  # conventions: \mathbf r_A = R_{AB}\mathbf r_B + \mathbf p_{AB}
    "dimQc=n−c=:d",  # chapter 2, eq. (2.1): \dim Q_c = n - c =: d
    "M(q)v˙+h(q,v)=B(q)u+Jc(q)Tλ",  # preface: M(q)\,\dot v + h(q, v) = B(q)\,u + J_c(q)^T \lambda
]
RAW_TEX = re.compile(r"\\(mathcal|mathbf|boldsymbol|frac|begin|operatorname|tfrac|dot)\b|\$\$")


def require(condition, message):
    """Skip with ``message`` on a developer's machine; fail in CI."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def pdf():
    require(PDF.is_file(), f"{PDF} not found: the PDF checks need `make pdf`")
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    require(not missing, f"{', '.join(missing)} not found: apt-get install poppler-utils")
    return PDF


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def text(pdf):
    """The PDF's text, Unicode-normalized (mathematical italic letters become plain)."""
    return unicodedata.normalize("NFKC", run("pdftotext", str(pdf), "-"))


def notebook_cells(name):
    return json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())["cells"]


def first_heading(markdown):
    """A page's title as it prints: inline code marks (`geomotion`) are not printed."""
    title = re.search(r"^# (.+)$", markdown, re.MULTILINE).group(1).strip()
    return title.replace("`", "")


def toc_files():
    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                yield from ([value] if key in {"root", "file"} else walk(value))
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    return list(walk(yaml.safe_load((ROOT / "_toc.yml").read_text())))


def chapters():
    """Chapter number and notebook names of the numbered part of the toc."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = next(part for part in toc["parts"] if part.get("numbered"))
    return [
        (
            number,
            [Path(chapter["file"]).name]
            + [Path(section["file"]).name for section in chapter.get("sections", [])],
        )
        for number, chapter in enumerate(numbered["chapters"], start=1)
    ]


def test_page_count_is_sane(pdf):
    pages = int(re.search(r"^Pages:\s+(\d+)", run("pdfinfo", str(pdf)), re.MULTILINE).group(1))
    assert PAGES[0] <= pages <= PAGES[1]


def test_every_page_of_the_toc_is_in_the_pdf(text):
    titles = []
    for entry in toc_files():
        source = ROOT / entry
        if source.suffix == ".ipynb" or (ROOT / f"{entry}.ipynb").is_file():
            cell = notebook_cells(Path(entry).stem)[0]
            titles.append(first_heading("".join(cell["source"])))
        else:
            titles.append(first_heading(source.with_suffix(".md").read_text()))
    flat = " ".join(text.split())
    missing = [title for title in titles if " ".join(title.split()) not in flat]
    assert len(titles) >= 8 and not missing, f"titles missing from the PDF: {missing}"


def test_formulas_are_typeset(text):
    def compact(string):
        return "".join(unicodedata.normalize("NFKC", string).split())

    missing = [formula for formula in FORMULAS if compact(formula) not in compact(text)]
    assert not missing, f"formulas missing from the PDF's text: {missing}"
    assert not RAW_TEX.search(text), f"raw TeX in the PDF: {RAW_TEX.search(text).group(0)}"


def test_every_labelled_equation_has_its_chapter_number(text):
    for number, notebooks in chapters():
        count = sum(
            len(LABELLED_EQUATION.findall("".join(cell["source"])))
            for name in notebooks
            for cell in notebook_cells(name)
            if cell["cell_type"] == "markdown"
        )
        expected = [f"({number}.{k})" for k in range(1, count + 1)]
        missing = [label for label in expected if label not in text]
        assert count > 0 and not missing, f"chapter {number}: {missing}"


def figures_per_chapter():
    return [
        (
            number,
            sum(
                "figure" in cell["metadata"].get("mystnb", {})
                for name in notebooks
                for cell in notebook_cells(name)
                if cell["cell_type"] == "code"
            ),
        )
        for number, notebooks in chapters()
    ]


def test_every_figure_is_numbered_and_drawn(pdf, text):
    for number, count in figures_per_chapter():
        captions = set(re.findall(rf"Fig\. {number}\.(\d+)", text))
        assert captions == {str(k) for k in range(1, count + 1)}, f"chapter {number}"
    images = run("pdfimages", "-list", str(pdf)).splitlines()[2:]  # two header lines
    assert len(images) >= sum(count for _, count in figures_per_chapter())


def test_the_html_preface_links_the_pdf_beside_it(pdf):
    preface = (HTML / "book" / "preface.html").read_text()
    assert 'href="../geometry-of-motion.pdf"' in preface
    assert (HTML / "geometry-of-motion.pdf").read_bytes() == pdf.read_bytes()


def test_checks_print_as_a_label_and_their_result_explorers_as_their_default_view(text):
    """Folded checks (tag ``check``): a label and the result, not the code; explorers: a frame."""
    checks, explorers, sources = 0, 0, []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in notebook_cells(path.stem):
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            if "check" in cell["metadata"].get("tags", []):
                checks += 1
                # The check's three longest code lines (one alone may recur in open cells).
                lines = [line.strip() for line in source.splitlines()]
                code = sorted((line for line in lines if not line.startswith("#")), key=len)
                sources.append(code[-3:])
            outputs = cell.get("outputs", [])
            explorers += sum(
                'class="geomotion-explorer"' in "".join(out.get("data", {}).get("text/html", ""))
                for out in outputs
            )
    flat = " ".join(text.split())
    assert flat.count("Check (code in the HTML book and the notebook):") == checks > 0
    printed = [lines for lines in sources if all(" ".join(line.split()) in flat for line in lines)]
    assert not printed, f"code of folded checks is printed: {printed[:3]}"
    assert flat.count("Drag the sliders to redraw the figure") == explorers > 0
