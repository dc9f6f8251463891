"""The code cites the book's equations by label, and every label it cites exists.

The chapters label their display equations MyST-style, ``$$ ... $$ (eq-some-label)`` (or
a ``{math}`` directive with ``:label:``), and the conventions page does the same with
``conv-...`` labels.  A docstring cites one with Sphinx's role ``:eq:`eq-some-label```,
which the API pages render as the equation's number, linked to it; the page "Equations
and the code" (``book/_ext/equation_index.py``) lists the same citations the other way
round.  Numbers drift when a chapter gains an equation ("eq. 9" meant what the book
numbers (2.19)); labels do not.

Fast: the notebooks and the sources are read as text, nothing is built or imported.

* every label cited in the package, or in the companion tests, is defined by the book;
* nothing there cites an equation by its number ("eq. 9", "eqs. 7, 8", "equation (2.19)");
* the citations are the reStructuredText role that the API pages render, not MyST's
  ``{eq}`` (which a docstring would show verbatim);
* and each check reports a bogus input, so a silent parser cannot pass them.
"""

import io
import json
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
PAGES = ROOT / "book"
#: The sources whose docstrings and comments cite equations: the package (its API pages)
#: and the tests that check it.
SOURCES = [ROOT / "companion" / "geomotion", ROOT / "tests" / "companion"]

#: ``$$ ... $$ (label)``: the label right after the closing ``$$`` (MyST dollarmath).
DOLLAR_LABEL = re.compile(r"\$\$[ \t]*\(([^()\s]+)\)")
#: ``:label: name`` inside a ``{math}`` directive.
DIRECTIVE_LABEL = re.compile(r"```\{math\}[^`]*?^:label:[ \t]*(\S+)", re.MULTILINE)

#: ``:eq:`label``` (and Sphinx's long form ``:math:numref:`label``).
CITATION = re.compile(r":(?:math:numref|eq):`([^`<>]+)`")
#: A label named in plain text, as comments do: ``eq-ch2-drift``.
PLAIN_LABEL = re.compile(r"(?<![\w`-])(eq-[a-z0-9][\w-]*[a-z0-9])")
#: MyST's role, which reStructuredText docstrings would print as it stands.
MYST_ROLE = re.compile(r"\{(?:eq|numref)\}`")
#: An equation cited by number: "eq. 9", "eqs. 7, 8", "eq. (10)", "Equation 2.19",
#: "equation (2.19)", "eqn 3".
NUMBERED = re.compile(
    r"\b(?:eqs?|eqns?|equations?)\b\.?[ \t]*\(?[ \t]*\d+(?:\.\d+)*", re.IGNORECASE
)


def markdown_of_notebook(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


def labels_in(text):
    return DOLLAR_LABEL.findall(text) + DIRECTIVE_LABEL.findall(text)


def book_labels():
    """{label: [files defining it]} over the notebooks' markdown cells and the book's pages."""
    found = {}
    sources = [(path, markdown_of_notebook(path)) for path in sorted(NOTEBOOKS.glob("*.ipynb"))]
    sources += [(path, [path.read_text(encoding="utf-8")]) for path in sorted(PAGES.glob("*.md"))]
    for path, texts in sources:
        for text in texts:
            for label in labels_in(text):
                found.setdefault(label, []).append(path.relative_to(ROOT).as_posix())
    return found


def text_pieces(source):
    """(line, text) of every string (docstrings included) and comment of Python ``source``."""
    kinds = {tokenize.STRING, tokenize.COMMENT}
    kinds |= {getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in kinds:
            yield token.start[0], token.string


def python_files():
    return sorted(path for folder in SOURCES for path in folder.rglob("*.py"))


def cited_labels(source):
    """(line, label) of every label that ``source`` cites, by role or in plain text."""
    for line, text in text_pieces(source):
        for match in CITATION.finditer(text):
            yield line + text[: match.start()].count("\n"), match.group(1).strip()
        for match in PLAIN_LABEL.finditer(CITATION.sub("", text)):
            yield line, match.group(1)


def unknown_labels(source, labels):
    return [(line, label) for line, label in cited_labels(source) if label not in labels]


def numbered_citations(source):
    """(line, text) of every citation of an equation by its number in ``source``."""
    return [
        (line + text[: match.start()].count("\n"), match.group(0))
        for line, text in text_pieces(source)
        for match in NUMBERED.finditer(text)
    ]


def myst_roles(source):
    return [(line, text) for line, text in text_pieces(source) if MYST_ROLE.search(text)]


def findings(check, *args):
    """``check`` over every Python file, as "path:line: what" lines."""
    return [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in python_files()
        for line, what in check(path.read_text(encoding="utf-8"), *args)
    ]


# ---------------------------------------------------------------------------
# The book and the code
# ---------------------------------------------------------------------------


def test_the_book_labels_its_equations_once_each():
    labels = book_labels()
    # the chapters' labels and the conventions page's, in both syntaxes
    assert len(labels) >= 100
    assert {"eq-ch2-general-control", "eq-pose-map", "conv-pose", "eq-ch3-onsets"} <= set(labels)
    twice = {label: files for label, files in labels.items() if len(files) > 1}
    assert not twice, f"labels defined more than once: {twice}"


def test_every_cited_label_is_an_equation_of_the_book():
    labels = book_labels()
    missing = findings(unknown_labels, labels)
    assert not missing, "cited labels that no notebook or page defines:\n  " + "\n  ".join(missing)
    cited = {label for path in python_files() for _, label in cited_labels(path.read_text())}
    assert len(cited) >= 60, f"only {len(cited)} labels cited: is the citation pattern still right?"


def test_no_docstring_or_comment_cites_an_equation_by_its_number():
    found = findings(numbered_citations)
    assert not found, (
        "equations cited by number (cite the label instead, :eq:`eq-...`):\n  " + "\n  ".join(found)
    )


def test_citations_use_the_role_that_the_api_pages_render():
    found = findings(myst_roles)
    assert not found, "MyST's {eq} in Python sources (write :eq:`label`):\n  " + "\n  ".join(
        f"{where}" for where in found
    )


# ---------------------------------------------------------------------------
# The checks can fail
# ---------------------------------------------------------------------------

CITING = '''
def f():
    r"""The family of equation :eq:`eq-ch2-general-control`, and :eq:`eq-no-such-label`.

    Also :math:numref:`conv-pose` and :eq:`conv-nowhere`.
    """
    # the drift (eq-ch2-drift) and a typo (eq-ch2-drfit)
'''


def test_a_bogus_label_is_reported():
    labels = book_labels()
    assert unknown_labels(CITING, labels) == [
        (3, "eq-no-such-label"),
        (5, "conv-nowhere"),
        (7, "eq-ch2-drfit"),
    ]
    assert [label for _, label in cited_labels(CITING)] == [
        "eq-ch2-general-control",
        "eq-no-such-label",
        "conv-pose",
        "conv-nowhere",
        "eq-ch2-drift",
        "eq-ch2-drfit",
    ]


def test_equation_numbers_are_reported_and_labels_are_not():
    numbered = '''
def f():
    """Every solution (eq. 9); the weighted one, eq. (10); eqs. 7, 8.

    As in Equation 2.19 and equation (2.19), see eqn 3.
    """
    # the reconstruction (eq. 12)
'''
    assert [text for _, text in numbered_citations(numbered)] == [
        "eq. 9",
        "eq. (10",
        "eqs. 7",
        "Equation 2.19",
        "equation (2.19",
        "eqn 3",
        "eq. 12",
    ]
    assert [line for line, _ in numbered_citations(numbered)] == [3, 3, 3, 5, 5, 5, 7]
    assert numbered_citations(CITING) == []
    assert numbered_citations('"""The Riccati equation (CARE), its equations."""') == []


def test_a_myst_role_in_a_docstring_is_reported():
    assert myst_roles('"""See {eq}`eq-pose-map`."""') == [(1, '"""See {eq}`eq-pose-map`."""')]
    assert myst_roles(CITING) == []
