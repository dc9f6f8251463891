"""The look of a folded check on screen (book/_tools/checks.py says which cells are checks).

myst-nb folds the code of a cell tagged ``hide-input`` into a ``<details>`` element that
the theme draws as an admonition, with padding on both sides: the folded code would be
about 20 px narrower than any other cell's, so a 76-column line that fits elsewhere would
scroll inside a check.  The rule below gives the folded code the full width.  It is
written into each page's head (no file under ``_static``, which jupyter-book would add to
every page as an asset).  book/_tools/print.css decides how a check prints.
"""

STYLE = """<style>
.bd-article details.hide.above-input { padding-left: 0; padding-right: 0; border-left-width: 0; }
.bd-article details.hide.above-input > summary { margin-left: 0; margin-right: 0; }
</style>
"""


def add_style(app, pagename, templatename, context, doctree):
    context["metatags"] = context.get("metatags", "") + STYLE


def setup(app):
    app.connect("html-page-context", add_style)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
