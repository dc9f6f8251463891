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
API reference (the code blocks inside a documented object, ``dl.py div.highlight pre``).
Code cells do not wrap: their source stops at 76 columns (notebooks/ruff.toml), and the
page check fails on one that scrolls.
"""

STYLE = """<style>
.bd-article details.hide.above-input { padding-left: 0; padding-right: 0; border-left-width: 0; }
.bd-article details.hide.above-input > summary { margin-left: 0; margin-right: 0; }
.bd-article .cell_output pre, .bd-article dl.py div.highlight pre {
  white-space: pre-wrap; overflow-wrap: anywhere;
}
</style>
"""


def add_style(app, pagename, templatename, context, doctree):
    context["metatags"] = context.get("metatags", "") + STYLE


def setup(app):
    app.connect("html-page-context", add_style)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
