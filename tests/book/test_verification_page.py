"""The generated Verification page lists every notebook with counts that can be trusted.

The counts on the page come from book/_ext/verification_page.py.  Here they are
recounted from the .ipynb by other means: assert statements and assertion calls from
Python's tokenizer, asserted values by evaluating candidate sub-expressions, so a bug in
the extension's syntax-tree walk does not reproduce itself in the check.
"""

import ast
import io
import json
import re
import tokenize
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "_build" / "html" / "book" / "verification.html"
NOTEBOOKS = sorted(path for path in (ROOT / "notebooks").glob("*.ipynb"))
CHECKED_NOTEBOOK = "spatial_algebra"
COLUMNS = ["number", "notebook", "executed", "run time", "statements", "calls", "values"]


class TableRows(HTMLParser):
    """Rows of the page's verification table: the cell texts and the links in each row."""

    def __init__(self):
        super().__init__()
        self.rows, self._in_table, self._row, self._cell = [], False, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and "verification-table" in attrs.get("class", ""):
            self._in_table = True
        elif self._in_table and tag == "tr":
            self._row = {"cells": [], "links": [], "classes": attrs.get("class", "")}
        elif self._row is not None and tag in {"td", "th"}:
            self._cell = []
        elif self._row is not None and tag == "a":
            self._row["links"].append(attrs.get("href", ""))

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


@pytest.fixture(scope="module")
def page_html():
    if not PAGE.is_file():
        pytest.fail(f"{PAGE} not found: build the book first (make book)")
    return PAGE.read_text()


@pytest.fixture(scope="module")
def rows(page_html):
    """Notebook rows of the table, keyed by the notebook their link points to."""
    parser = TableRows()
    parser.feed(page_html)
    table = {}
    for row in parser.rows:
        targets = [link for link in row["links"] if link.endswith(".html")]
        if len(targets) == 1:
            table[Path(targets[0]).stem] = dict(zip(COLUMNS, row["cells"]))
    return table


def code_cells(notebook):
    cells = json.loads(notebook.read_text())["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def python_source(cell):
    """The cell without IPython line magics (these notebooks use only %matplotlib)."""
    return "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith("%"))


def count_by_tokens(source):
    """(assert statements, assertion calls): 'assert' keywords; names 'assert...' then '('."""
    tokens = [
        token
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type not in {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT}
    ]
    statements = sum(token.type == tokenize.NAME and token.string == "assert" for token in tokens)
    calls = sum(
        first.type == tokenize.NAME
        and first.string.startswith("assert")
        and first.string != "assert"
        and second.string == "("
        for first, second in zip(tokens, tokens[1:])
    )
    return statements, calls


def is_number(node):
    """Evaluate ``node`` with no names at all; True if it is a number (and not a bool)."""
    if not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Constant)):
        return False
    try:
        value = eval(compile(ast.Expression(node), "<value>", "eval"), {"__builtins__": {}})
    except Exception:
        return False
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def values_in(node):
    if is_number(node):
        return 1
    return sum(values_in(child) for child in ast.iter_child_nodes(node))


def count_values(source):
    total = 0
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            total += values_in(node.test)
        elif isinstance(node, ast.Call) and re.match(
            r"assert", ast.unparse(node.func).split(".")[-1]
        ):
            total += sum(values_in(arg) for arg in node.args[:2])
    return total


def test_every_notebook_has_a_linked_row(rows):
    missing = [path.stem for path in NOTEBOOKS if path.stem not in rows]
    assert NOTEBOOKS and not missing, f"notebooks missing from the Verification page: {missing}"


def test_every_notebook_was_executed_before_the_page_was_written(rows, page_html):
    built = re.search(r"generated by the build of (\d{4}-\d\d-\d\d \d\d:\d\d) UTC", page_html)
    for name, row in rows.items():
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", row["executed"]), f"{name}: {row}"
        assert row["executed"] <= built.group(1), f"{name}: {row}"  # ISO times sort as text
        assert float(row["run time"]) > 0.0, f"{name}: {row}"


def test_counts_match_an_independent_count(rows):
    cells = [
        python_source(cell) for cell in code_cells(ROOT / "notebooks" / f"{CHECKED_NOTEBOOK}.ipynb")
    ]
    statements = sum(count_by_tokens(cell)[0] for cell in cells)
    calls = sum(count_by_tokens(cell)[1] for cell in cells)
    values = sum(count_values(cell) for cell in cells)
    assert statements > 0 and calls > 0 and values > statements
    row = rows[CHECKED_NOTEBOOK]
    assert (int(row["statements"]), int(row["calls"]), int(row["values"])) == (
        statements,
        calls,
        values,
    )


def test_page_states_the_build_date_and_the_definitions(page_html):
    built = datetime.fromtimestamp(PAGE.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d")
    match = re.search(r"generated by the build of (\d{4}-\d\d-\d\d) \d\d:\d\d UTC", page_html)
    assert match and match.group(1) == built
    for term in ["assert statements", "Assertion calls", "Asserted values", "Executed, Run time"]:
        assert f"<strong>{term}</strong>" in page_html


def test_value_counter_follows_the_stated_definition():
    """The test's own counter, on cases worked by hand from the page's definition."""
    source = (
        "assert x < 1e-12\n"
        "np.testing.assert_allclose(P, [[2 / 3, -1 / 3], [-2 / 3, 1 / 3]], atol=1e-15)\n"
        "assert_array_equal(a, b, 'message 5')\n"
        "assert flag, 'message'\n"
    )
    assert count_by_tokens(source) == (2, 2)
    assert count_values(source) == 1 + 4
