r"""The Verification page: what the build ran and checked, notebook by notebook.

``book/verification.md`` holds only a title and the directive::

    ```{verification-table}
    ```

The directive leaves a placeholder; once every notebook has been executed, this
extension replaces it with an explanation and a table: one row per notebook of the
book, in table-of-contents order, with a link to the chapter, myst-nb's record of its
execution in this build (status and run time), and the assertions in its code cells.
The page states the date of the build and the definitions of the counts, so it is
never written or updated by hand.

Counts are static: they are read from the code cells of the ``.ipynb`` file (IPython
syntax such as ``%matplotlib inline`` is first turned into Python), so an assertion in
a loop or a helper function counts once however often it runs.

* **assert statements**: Python ``assert`` statements;
* **assertion calls**: calls of a function whose name starts with ``assert``, such as
  ``np.testing.assert_allclose``;
* **asserted values**: the numbers written into those checks.  In an ``assert``
  statement's condition, and in the first two arguments (actual and desired) of an
  assertion call, each largest sub-expression made only of number literals and
  arithmetic (``0.2175``, ``2 / 3``, ``-1e-12``) counts once.  Keyword arguments
  (tolerances such as ``atol``, messages) and an ``assert``'s message are not counted.

A notebook that myst-nb did not execute, or whose execution failed, is reported as a
warning, which fails the strict build.

Below the table the page lists, notebook by notebook and section by section, **what each
code cell asserts** (``asserted_numbers.py`` reads it from the source): the label or the
expression checked, the value or bound, the tolerance, and a link to the cell.  Every code
cell gets an anchor, ``cell-<notebook>-<index>`` (its index among all the notebook's cells),
and a small script opens a folded cell (a check, ``book/_tools/checks.py``) when a link
lands on it, so the reader sees the code that asserts the number.  Folded checks keep their
own anchors, ``check-<notebook>-<n>`` (numbered from 1 in the order of the notebook).
"""

import ast
import json
import os
import posixpath
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import asserted_numbers
from docutils import nodes
from IPython.core.inputtransformer2 import TransformerManager
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: Name of the environment attribute listing the documents that contain the table.
PAGES = "geomotion_verification_pages"


@dataclass(frozen=True)
class AssertionCount:
    """Static assertion counts of a notebook's code (see the module docstring)."""

    statements: int = 0
    calls: int = 0
    values: int = 0

    def __add__(self, other):
        return AssertionCount(
            self.statements + other.statements, self.calls + other.calls, self.values + other.values
        )


def _is_number_literal(node):
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float, complex))
        and not isinstance(node.value, bool)
    )


def _is_number_expression(node):
    """True for a tree of number literals joined only by arithmetic operators."""
    if _is_number_literal(node):
        return True
    if isinstance(node, ast.BinOp):
        return _is_number_expression(node.left) and _is_number_expression(node.right)
    if isinstance(node, ast.UnaryOp):
        return _is_number_expression(node.operand)
    return False


def count_values(node):
    """Number of largest number-only sub-expressions in the tree ``node``."""
    if _is_number_expression(node):
        return 1
    return sum(count_values(child) for child in ast.iter_child_nodes(node))


def _is_assertion_call(node):
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return name.startswith("assert")


def count_assertions(code):
    """Assertion counts of one code cell's source (IPython syntax allowed)."""
    tree = ast.parse(TransformerManager().transform_cell(code))
    count = AssertionCount()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            count += AssertionCount(statements=1, values=count_values(node.test))
        elif _is_assertion_call(node):
            compared = node.args[:2]
            count += AssertionCount(calls=1, values=sum(count_values(arg) for arg in compared))
    return count


def notebook_assertions(path):
    """Assertion counts summed over the code cells of the notebook file ``path``."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    total = AssertionCount()
    for cell in cells:
        if cell["cell_type"] == "code":
            source = cell["source"]
            total += count_assertions("".join(source) if isinstance(source, list) else source)
    return total


TIME_FORMAT = "%Y-%m-%d %H:%M"


def utc(timestamp):
    """A POSIX timestamp as "YYYY-MM-DD HH:MM" in UTC."""
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime(TIME_FORMAT)


def build_time():
    """The build's date and time (UTC); SOURCE_DATE_EPOCH, when set, makes it reproducible."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    return utc(int(epoch) if epoch else datetime.now(timezone.utc).timestamp()) + " UTC"


def toc_order(env):
    """Every document reachable from the root through toctrees, depth first."""
    order, pending = [], [env.config.root_doc]
    while pending:
        docname = pending.pop(0)
        if docname in order:
            continue
        order.append(docname)
        pending[:0] = env.toctree_includes.get(docname, [])
    return order


def book_notebooks(env):
    """The notebooks of the book (``.ipynb`` sources), in table-of-contents order."""
    return [docname for docname in toc_order(env) if str(env.doc2path(docname)).endswith(".ipynb")]


class VerificationTableNode(nodes.General, nodes.Element):
    """Placeholder for the table; replaced once all notebooks have executed."""


class VerificationTable(SphinxDirective):
    """The ``verification-table`` directive: marks where the generated table goes."""

    has_content = False

    def run(self):
        setattr(self.env, PAGES, getattr(self.env, PAGES, set()) | {self.env.docname})
        return [VerificationTableNode(docname=self.env.docname)]


CHECK_CLASS = "tag_check"


def _is_check(node):
    return (
        isinstance(node, nodes.container)
        and node.get("nb_element") == "cell_code"
        and CHECK_CLASS in node["classes"]
    )


def check_anchor(docname, number):
    """The anchor of the ``number``-th check cell (from 1) of notebook ``docname``."""
    return "check-" + nodes.make_id(posixpath.basename(docname)) + f"-{number}"


def _is_code_cell(node):
    return isinstance(node, nodes.container) and node.get("nb_element") == "cell_code"


def cell_anchor(docname, index):
    """The anchor of the code cell at ``index`` (among all cells) of notebook ``docname``."""
    return "cell-" + nodes.make_id(posixpath.basename(docname)) + f"-{index}"


class CheckAnchors(SphinxTransform):
    """Give every code cell its anchor, and every check cell its own (module docstring)."""

    default_priority = 900

    def apply(self, **kwargs):
        number = 0
        for node in self.document.findall(_is_code_cell):
            if _is_check(node):  # the check's anchor first: the element's own id
                number += 1
                node["ids"].append(check_anchor(self.env.docname, number))
            node["ids"].append(cell_anchor(self.env.docname, node["cell_index"]))


#: Opens the folded parts of the cell a link lands on (on load and on every later jump),
#: so that a link from the Verification page shows the code of a folded check at once.
OPEN_TARGET_JS = """
(function () {
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (!target) { return; }
    var cell = target.closest(".cell") || target;  // a second anchor is a span in the cell
    cell.querySelectorAll("details").forEach(function (part) { part.open = true; });
    cell.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", openTarget);
  } else {
    openTarget();
  }
})();
"""


def cell_sections(env, docname):
    """Title of the section holding each code cell of ``docname``, by cell index."""
    found = {}
    for node in env.get_doctree(docname).findall(_is_code_cell):
        section = node.parent
        while section is not None and not isinstance(section, nodes.section):
            section = section.parent
        found[node["cell_index"]] = section[0].astext() if section is not None else ""
    return found


def _paragraph(*children):
    paragraph = nodes.paragraph()
    for child in children:
        paragraph += nodes.Text(child) if isinstance(child, str) else child
    return paragraph


def _entry(content, classes=()):
    entry = nodes.entry(classes=list(classes))
    entry += content if isinstance(content, nodes.Node) else _paragraph(str(content))
    return entry


def _doc_link(from_doc, docname, text):
    """A cross-reference to ``docname`` that every HTML builder resolves (singlehtml too)."""
    link = addnodes.pending_xref(
        refdoc=from_doc,
        refdomain="std",
        reftype="doc",
        refexplicit=True,
        refwarn=True,
        reftarget=posixpath.relpath(docname, posixpath.dirname(from_doc)),
    )
    link += nodes.inline(text=text)
    return _paragraph(link)


HEADERS = [
    "",
    "Notebook",
    "Executed (UTC)",
    "Run time (s)",
    "assert statements",
    "Assertion calls",
    "Asserted values",
]


def _row(cells, classes=()):
    row = nodes.row(classes=list(classes))
    for content in cells:
        row += _entry(content)
    return row


def _table(rows, headers=HEADERS, kind="verification-table"):
    """A table of class ``kind``: a head row of ``headers``, then the rows."""
    table = nodes.table(classes=["colwidths-auto", kind])
    group = nodes.tgroup(cols=len(headers))
    table += group
    for _ in headers:
        group += nodes.colspec(colwidth=1)
    head, body = nodes.thead(), nodes.tbody()
    head += _row(headers)
    group += head
    for row in rows:
        body += row
    group += body
    return table


def notebook_row(env, from_doc, docname):
    """(table row, assertion counts, run time) of one notebook."""
    data = NbMetadataCollector.get_exec_data(env, docname)
    counts = notebook_assertions(env.doc2path(docname))
    number = ".".join(map(str, env.toc_secnumbers.get(docname, {}).get("", ())))
    title = env.titles[docname].astext() if docname in env.titles else docname
    executed = bool(data and data.get("succeeded") and data.get("mtime"))
    if not executed:
        logger.warning(
            "notebook %s has no successful execution recorded by myst-nb",
            docname,
            location=from_doc,
        )
    runtime = data.get("runtime") if executed else None
    cells = [
        number,
        _doc_link(from_doc, docname, title),
        utc(data["mtime"]) if executed else "not executed",
        "–" if runtime is None else f"{runtime:.1f}",
        counts.statements,
        counts.calls,
        counts.values,
    ]
    return _row(cells, classes=["notebook"]), counts, runtime or 0.0


def _rich(text):
    """Text nodes, with `backquoted` parts as inline code."""
    parts = text.split("`")
    return [
        nodes.literal(text=part) if odd else nodes.Text(part)
        for odd, part in ((i % 2 == 1, part) for i, part in enumerate(parts))
        if part
    ]


DEFINITIONS = [
    (
        "Executed, Run time",
        "when myst-nb executed the notebook in a fresh kernel, and how "
        "many seconds that took (a strict build executes every notebook).",
    ),
    ("assert statements", "Python `assert` statements in the code cells."),
    (
        "Assertion calls",
        "calls of a function whose name starts with `assert`, such as "
        "`np.testing.assert_allclose`.",
    ),
    (
        "Asserted values",
        "the numbers written into those checks: in an `assert` statement's "
        "condition and in the first two arguments (actual, desired) of an "
        "assertion call, each largest sub-expression made only of number "
        "literals and arithmetic (`0.2175`, `2 / 3`, `-1e-12`) counts once; "
        "keyword arguments such as the tolerances `atol` and `rtol`, and "
        "messages, are not counted.",
    ),
]


def _definitions():
    items = nodes.bullet_list()
    for term, text in DEFINITIONS:
        item = nodes.list_item()
        item += _paragraph(nodes.strong(text=term), nodes.Text(": "), *_rich(text))
        items += item
    return items


def verification_nodes(env, from_doc):
    """The generated content of the page: date, explanation, definitions, table."""
    rows, total, total_time = [], AssertionCount(), 0.0
    notebooks = book_notebooks(env)
    for docname in notebooks:
        row, counts, runtime = notebook_row(env, from_doc, docname)
        rows.append(row)
        total, total_time = total + counts, total_time + runtime
    rows.append(
        _row(
            [
                "",
                "All notebooks",
                "",
                f"{total_time:.1f}",
                total.statements,
                total.calls,
                total.values,
            ],
            classes=["total"],
        )
    )
    intro = _paragraph(
        f"This page was generated by the build of {build_time()} from the {len(notebooks)} "
        "notebooks of the book, each executed afresh, in a fresh kernel, at the time shown; "
        "a failing cell, a failing assertion or any output on stderr would have stopped the "
        "build. The counts are read from the notebooks' code cells, statically: an "
        "assertion in a loop or in a helper function counts once, however often it runs."
    )
    intro["classes"].append("verification-build")
    return [intro, _definitions(), _table(rows), *asserted_nodes(env, from_doc, notebooks)]


def _check_link(builder, from_doc, docname, anchor, text):
    """A link to an anchor in another document, for the HTML and the single-page builds."""
    if builder.name == "singlehtml":
        uri = "#" + anchor
    else:
        uri = builder.get_relative_uri(from_doc, docname) + "#" + anchor
    return nodes.reference("", text, internal=True, refuri=uri, classes=["check-link"])


ASSERTED_HEADERS = ["Section", "Checked", "Value or bound", "Tolerance", "Cell"]


def _asserted_table(builder, env, from_doc, docname, rows):
    """The table of one notebook's asserted numbers, a link to each cell."""
    sections = cell_sections(env, docname)
    body, previous = [], None
    for row in rows:
        section = sections.get(row.cell, "")
        link = _check_link(builder, from_doc, docname, cell_anchor(docname, row.cell), "open")
        cells = [
            "" if section == previous else section,
            _paragraph(nodes.literal(text=row.what)),
            _paragraph(nodes.literal(text=row.value)) if row.value else "",
            row.tolerance,
            _paragraph(link),
        ]
        body.append(_row(cells))
        previous = section
    return _table(body, ASSERTED_HEADERS, "asserted-numbers")


def asserted_nodes(env, from_doc, notebooks):
    """Per notebook, what its cells assert (``asserted_numbers``), with links to the cells."""
    builder = env.app.builder
    found = []
    for docname in notebooks:
        cells = json.loads(Path(env.doc2path(docname)).read_text(encoding="utf-8"))["cells"]
        found.append((docname, asserted_numbers.notebook_rows(cells)))
    total = sum(len(rows) for _, rows in found)
    intro = _paragraph(
        nodes.strong(text="What each cell asserts. "),
        *_rich(
            f"The {total} checks of the notebooks, in order: the label or the expression "
            "checked, the value or the bound it must meet, the tolerance (numpy's "
            "`assert_allclose` applies `rtol 1e-07` unless another is written), and a link "
            "that opens the cell, its code unfolded. A row without a value is an `assert` "
            "of the condition shown. Checks are read from the code, so a check in a loop "
            "appears once."
        ),
    )
    intro["classes"].append("verification-checks")
    out = [intro]
    for docname, rows in found:
        title = env.titles[docname].astext() if docname in env.titles else docname
        heading = _paragraph(nodes.strong(text=title + " "), nodes.Text(f"({len(rows)} checks): "))
        heading += _doc_link(from_doc, docname, "the chapter").children
        out += [heading, _asserted_table(builder, env, from_doc, docname, rows)]
    return out


class VerificationTableTransform(SphinxPostTransform):
    """Replace each placeholder with the generated content."""

    default_priority = 8  # before the references resolver (10): the links are pending_xref

    def run(self, **kwargs):
        for node in list(self.document.findall(VerificationTableNode)):
            node.replace_self(verification_nodes(self.env, node["docname"]))


def pages_to_rewrite(app, env):
    """Rewrite the pages with a table at every build: run times and date change."""
    return sorted(getattr(env, PAGES, set()) & env.found_docs)


def purge_page(app, env, docname):
    setattr(env, PAGES, getattr(env, PAGES, set()) - {docname})


def merge_pages(app, env, docnames, other):
    setattr(env, PAGES, getattr(env, PAGES, set()) | (getattr(other, PAGES, set()) & docnames))


def setup(app):
    app.add_node(VerificationTableNode)
    app.add_directive("verification-table", VerificationTable)
    app.add_post_transform(VerificationTableTransform)
    app.add_transform(CheckAnchors)
    app.add_js_file(None, body=OPEN_TARGET_JS)
    app.connect("env-updated", pages_to_rewrite)
    app.connect("env-purge-doc", purge_page)
    app.connect("env-merge-info", merge_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
