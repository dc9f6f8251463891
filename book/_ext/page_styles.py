"""Page styles that the theme lacks, written into each page's head.

Each rule is a ``<style>`` block in the page's ``<head>`` (no file under ``_static``, which
jupyter-book would add to every page as an asset).  book/_tools/print.css decides how the
same elements print.

**Folded checks keep the width of a code cell.**  myst-nb folds the code of a cell tagged
``hide-input`` (book/_tools/checks.py says which cells are checks) into a ``<details>``
element that the theme draws as an admonition, with padding on both sides: the folded
code would be about 20 px narrower than any other cell's, so a 76-column line that fits
elsewhere would scroll inside a check.  The first rule gives the folded code the full
width.

**Outputs and docstring examples fit the text column instead of scrolling sideways.**  A
printed array, a table row or an error message wider than the column would make its box
scroll, and the reader would miss its end (the energy column of a step-size table, the
last words of an error).  On screen these boxes wrap their long lines at the column, as
they already do on paper: notebook outputs (``.cell_output pre``) and the examples of the
API reference (the code blocks inside a documented object, ``dl.py div.highlight pre``,
and every docstring example, ``div.doctest pre``, a module's docstring included: the
pendulum of ``geomotion.tree``'s and ``geomotion.integrators``' docstrings was 808 px
of text in a 686 px box).  Code cells do not wrap: their source stops at 76 columns
(notebooks/ruff.toml); nor do the code blocks of the prose pages, whose lines are kept
short; the page check fails on any box that scrolls.

**The Verification page's table takes the width it needs.**  Its rows name the notebooks
by their titles (the longest has 95 characters) beside columns of numbers; in the text
column (688 px at a 1280 px window) that title wrapped to 9 lines.  On a wide screen
(from 1200 px, where the theme keeps a column free for a page's table of contents) a page
that has no such table of contents lends the free column to the table, which is set a
little smaller than the text, and a cell that links a notebook is kept at least 26 em
wide: each title then takes at most two lines (tests/book/test_book_pages.py measures
it).  On narrower screens the table keeps the text column's width.  Paper is left to
book/_tools/print.css.

**The tables of what each cell asserts fit too.**  They take the free column as well, and
their columns have fixed shares of the width (the checked expression the largest); a long
expression or value wraps inside its cell instead of widening the table.
"""

STYLE = """<style>
.bd-article details.hide.above-input { padding-left: 0; padding-right: 0; border-left-width: 0; }
.bd-article details.hide.above-input > summary { margin-left: 0; margin-right: 0; }
.bd-article .cell_output pre, .bd-article dl.py div.highlight pre, .bd-article div.doctest pre {
  white-space: pre-wrap; overflow-wrap: anywhere;
}
@media screen and (min-width: 1200px) {
  .bd-main:not(:has(.bd-sidebar-secondary))
    .bd-article .pst-scrollable-table-container:has(> table.verification-table) {
    width: calc(100% + var(--pst-sidebar-secondary)); max-width: none;
  }
  .bd-article table.verification-table { font-size: 0.875em; }
  .bd-article table.verification-table td:has(a.reference) { min-width: 26em; }
  .bd-main:not(:has(.bd-sidebar-secondary))
    .bd-article .pst-scrollable-table-container:has(> table.asserted-numbers) {
    width: calc(100% + var(--pst-sidebar-secondary)); max-width: none;
  }
}
.bd-article table.asserted-numbers { table-layout: fixed; width: 100%; font-size: 0.8em; }
.bd-article table.asserted-numbers th:nth-child(1) { width: 20%; }
.bd-article table.asserted-numbers th:nth-child(2) { width: 40%; }
.bd-article table.asserted-numbers th:nth-child(3) { width: 20%; }
.bd-article table.asserted-numbers th:nth-child(4) { width: 13%; }
.bd-article table.asserted-numbers th:nth-child(5) { width: 7%; }
.bd-article table.asserted-numbers td { overflow-wrap: anywhere; }
.bd-article table.asserted-numbers code { white-space: normal; overflow-wrap: anywhere; }
</style>
"""


def add_style(app, pagename, templatename, context, doctree):
    context["metatags"] = context.get("metatags", "") + STYLE


def setup(app):
    app.connect("html-page-context", add_style)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
