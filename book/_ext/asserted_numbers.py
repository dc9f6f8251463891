"""What each code cell of a notebook asserts, read from its source: one row per check.

The Verification page (``verification_page.py``) lists these rows per chapter, each with a
link to its cell.  Read statically from the code (IPython syntax first turned into Python),
so a check in a loop or a helper counts once:

* ``assert_close(label, value, expected, atol=..., rtol=..., unit=...)`` and
  ``assert_below(label, value, bound, unit=...)`` (``geomotion.printing``): the label,
  the expected value or the bound, the tolerance and the unit, as written;
* ``report.assert_below(bound)`` (``geomotion.verification.TreeCheckReport``): every
  check of the report below the bound;
* numpy's ``assert_allclose(actual, desired, rtol=1e-07, atol=0)`` and its exact
  relatives (``assert_array_equal``, ``assert_equal``): the actual expression, the
  desired value and the tolerance (numpy's defaults when none is written);
* an ``assert`` statement: its condition, which holds the numbers it checks.
"""

import ast
from dataclasses import dataclass

from IPython.core.inputtransformer2 import TransformerManager

#: Longest expression shown in a row; longer ones end with an ellipsis.
WIDTH = 72

#: numpy.testing's functions that compare exactly, and the one with a tolerance.
EXACT = {"assert_array_equal", "assert_equal", "assert_array_less"}
CLOSE = {"assert_allclose"}


@dataclass(frozen=True)
class Row:
    """One asserted number (or condition) of a cell.

    Attributes
    ----------
    what : str
        The label of the check or the expression checked.
    value : str
        The expected value, ``< bound``, or empty for an ``assert`` condition.
    tolerance : str
        ``atol 0.005``, ``rtol 0.01``, ``exact``, or empty.
    cell : int
        Index of the cell in the notebook (all cells counted).
    """

    what: str
    value: str
    tolerance: str
    cell: int


def _short(text, width=WIDTH):
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _text(node):
    """A label: a string as written, an f-string with its fields as ``{expression}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    return ast.unparse(node)


def _keywords(call):
    return {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}


def _tolerance(keywords, defaults):
    """``atol x, rtol y %`` from the call's keywords (``defaults`` where none is written)."""
    parts = []
    for name in ("atol", "rtol"):
        node = keywords.get(name)
        text = ast.unparse(node) if node is not None else defaults.get(name)
        if text is None or text in ("0", "0.0"):
            continue
        parts.append(f"{name} {text}")
    return ", ".join(parts) or "exact"


def _with_unit(text, keywords):
    unit = keywords.get("unit")
    if isinstance(unit, ast.Constant) and unit.value:
        return f"{text} {unit.value}"
    return text


def _name(call):
    function = call.func
    return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")


def call_row(call, cell):
    """The row of an assertion call, or None for a call that is not one."""
    name, args, keywords = _name(call), call.args, _keywords(call)
    if name == "assert_close" and len(args) >= 3:
        value = _with_unit(_short(ast.unparse(args[2])), keywords)
        return Row(_short(_text(args[0])), value, _tolerance(keywords, {}), cell)
    if name == "assert_below" and len(args) >= 3:
        value = _with_unit("< " + ast.unparse(args[2]), keywords)
        return Row(_short(_text(args[0])), value, "", cell)
    if name == "assert_below" and len(args) == 1 and isinstance(call.func, ast.Attribute):
        what = f"every check of {ast.unparse(call.func.value)}"
        return Row(what, "< " + ast.unparse(args[0]), "", cell)
    if name in CLOSE and len(args) >= 2:
        tolerance = _tolerance(keywords, {"rtol": "1e-07"})
        return Row(_short(ast.unparse(args[0])), _short(ast.unparse(args[1])), tolerance, cell)
    if name in EXACT and len(args) >= 2:
        return Row(_short(ast.unparse(args[0])), _short(ast.unparse(args[1])), "exact", cell)
    if name.startswith("assert") and args:
        return Row(_short(ast.unparse(call)), "", "", cell)
    return None


def cell_rows(source, cell):
    """Every row of one code cell, in the order of the source."""
    tree = ast.parse(TransformerManager().transform_cell(source))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            found.append(
                (node.lineno, node.col_offset, Row(_short(ast.unparse(node.test)), "", "", cell))
            )
        elif isinstance(node, ast.Call):
            row = call_row(node, cell)
            if row is not None:
                found.append((node.lineno, node.col_offset, row))
    return [row for _, _, row in sorted(found, key=lambda item: item[:2])]


def notebook_rows(cells):
    """Every row of a notebook, given its cells (``nbformat`` dictionaries), in order."""
    rows = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            source = cell["source"]
            rows += cell_rows("".join(source) if isinstance(source, list) else source, index)
    return rows
