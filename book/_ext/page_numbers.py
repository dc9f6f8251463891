"""Equations and figures of an unnumbered page are numbered from 1 on that page.

With ``numfig`` and ``math_numfig``, Sphinx gives every labelled equation and captioned
figure of a page outside the numbered chapters a plain number, but it counts them with
one counter shared by all such pages, in table-of-contents order.  So the front matter's
third page, "Using geomotion", began at equation (18): the preface and the conventions
page had used (1) to (17).  Chapter numbers carry the chapter as a prefix (2.1, 2.2, ...)
and restart with each chapter; a page without a chapter number has no prefix, and a
reader takes its first equation to be (1).

Sphinx has no setting for this, so this extension renumbers: after Sphinx's toctree
collector has assigned the numbers (event ``env-get-updated``, connected at a later
priority) and before any page is written, each figure type (equations, figures, tables,
code blocks) of each unnumbered page counts 1, 2, 3, ... in the page's own order.  Every
consumer reads the same table (``env.toc_fignumbers``): the number shown beside an
equation, ``{eq}`` and ``{numref}`` references from any page, and the single-page build
that `make pdf` prints.  tests/book/test_rendered_numbers.py checks the built pages.
"""

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Later than the toctree collector, which assigns the numbers at the default 500.
PRIORITY = 900


def renumber_unnumbered_pages(app, env):
    """Restart each figure type's count on every page outside a numbered toctree.

    Returns the pages whose numbers changed, for Sphinx to write again.
    """
    if not env.config.numfig:
        return []
    changed = set()
    for docname, by_type in env.toc_fignumbers.items():
        if env.toc_secnumbers.get(docname):
            continue  # a chapter or a section of one: its numbers carry its prefix
        for figtype, numbers in by_type.items():
            # Insertion order is the order in which Sphinx walked the page.
            renumbered = {node_id: (count,) for count, node_id in enumerate(numbers, start=1)}
            if renumbered != numbers:
                by_type[figtype] = renumbered
                changed.add(docname)
    if changed:
        logger.verbose("numbers restarted on unnumbered pages: %s", ", ".join(sorted(changed)))
    return sorted(changed)


def setup(app):
    app.connect("env-get-updated", renumber_unnumbered_pages, priority=PRIORITY)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
