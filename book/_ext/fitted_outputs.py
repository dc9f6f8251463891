"""Outputs and docstring examples fit the text column instead of scrolling sideways.

A printed array, a table row or an error message wider than the column would make its
box scroll, and the reader would miss its end (the energy column of a step-size table,
the last words of an error).  On screen these boxes wrap their long lines at the column
instead, as they already do on paper (book/_tools/print.css): notebook outputs
(``.cell_output pre``) and the examples of the API reference (the code blocks inside a
documented object, ``dl.py div.highlight pre``).  Code cells do not wrap: their source
stops at 76 columns (notebooks/ruff.toml), and the page check fails on one that scrolls.
The rule is written into each page's head, like book/_ext/folded_checks.py's.
"""

STYLE = """<style>
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
