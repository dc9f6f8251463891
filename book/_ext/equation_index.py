r"""The page "Equations and the code": every equation a docstring cites, and who cites it.

A docstring of ``geomotion`` cites an equation of the book by its label, with Sphinx's
role ``:eq:`eq-ch2-general-control```, which the API pages render as the equation's
number linked to the equation.  This extension adds the other direction.
``book/equations.md`` holds a title, a sentence and the directive::

    ```{equation-index}
    ```

While the API pages are read, autodoc hands every docstring it renders to this extension
(event ``autodoc-process-docstring``), which records each label cited with ``:eq:`` and
the object (module, class, function, method) whose docstring cites it.  Once every page
is read, the directive's placeholder becomes a table with one row per cited label, in
the order of the book: the equation's number, linked to the equation (the same
reference ``:eq:`` makes), its label, the chapter or page that holds it, and every
object citing it, linked to its entry on the API pages.  Each row carries the anchor
``code-<label>``.

Docstrings that no API page renders (private helpers, submodules documented only through
their package) are not read, so their citations are not listed.  A label that no page
defines fails the strict build already at the citing docstring ("equation not found"),
and a link of the table that does not resolve fails it here (the table's references are
pending references, resolved and checked like the text's).
tests/book/test_equation_index.py checks the citations in the sources;
tests/book/test_equation_index_page.py the built page.
"""

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

#: Environment attribute: {docname: [(label, object kind, full name), ...]} in reading order.
CITATIONS = "geomotion_equation_citations"
#: Environment attribute: the documents that hold the index.
PAGES = "geomotion_equation_index_pages"

#: ``:eq:`label``` or ``:math:numref:`label``` in a docstring's lines.
CITATION = re.compile(r":(?:math:numref|eq):`([^`<>]+)`")

HEADERS = ["Equation", "Label", "In", "Cited by"]


def record_citations(app, what, name, obj, options, lines):
    """autodoc-process-docstring: note the labels that ``name``'s docstring cites."""
    labels = CITATION.findall("\n".join(lines))
    if not labels:
        return
    env = app.env
    found = getattr(env, CITATIONS, None)
    if found is None:
        found = {}
        setattr(env, CITATIONS, found)
    entries = found.setdefault(env.docname, [])
    for label in dict.fromkeys(label.strip() for label in labels):
        if (label, what, name) not in entries:
            entries.append((label, what, name))


class EquationIndexNode(nodes.General, nodes.Element):
    """Placeholder for the table; filled in once every page has been read."""


class EquationIndex(SphinxDirective):
    """The ``equation-index`` directive: marks where the generated table goes."""

    has_content = False

    def run(self):
        setattr(self.env, PAGES, getattr(self.env, PAGES, set()) | {self.env.docname})
        return [EquationIndexNode(docname=self.env.docname)]


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


def _paragraph(*children):
    paragraph = nodes.paragraph()
    for child in children:
        paragraph += nodes.Text(child) if isinstance(child, str) else child
    return paragraph


def _reference(from_doc, domain, kind, target, content, explicit=True):
    """A pending cross-reference, resolved (and checked) by Sphinx like one in the text."""
    link = addnodes.pending_xref(
        "",
        refdoc=from_doc,
        refdomain=domain,
        reftype=kind,
        reftarget=target,
        refexplicit=explicit,
        refwarn=True,
    )
    link += content
    return link


def _equation_link(from_doc, label):
    """The equation's number, linked to it: what ``:eq:`label``` gives."""
    return _reference(from_doc, "math", "eq", label, nodes.literal(text=label), explicit=False)


def _page_link(env, from_doc, docname):
    """The chapter or page holding an equation, by its number and title."""
    title = env.titles[docname].astext() if docname in env.titles else docname
    number = ".".join(map(str, env.toc_secnumbers.get(docname, {}).get("", ())))
    text = f"{number}. {title}" if number else title
    target = "/" + docname  # absolute: the index may live anywhere in the book
    return _reference(from_doc, "std", "doc", target, nodes.inline(text=text))


def _object_link(from_doc, what, name):
    """An API entry: module, class, function or method, by its name within ``geomotion``."""
    shown = name.removeprefix("geomotion.") if name != "geomotion" else name
    kind = "mod" if what == "module" else "obj"
    return _reference(from_doc, "py", kind, name, nodes.literal(text=shown))


def index_rows(env):
    """[(label, equation's document, [(kind, name), ...])] in the book's order."""
    equations = env.get_domain("math").equations
    order = {docname: i for i, docname in enumerate(toc_order(env))}
    cited = {}
    found = getattr(env, CITATIONS, {})
    for docname in sorted(found, key=lambda doc: (order.get(doc, len(order)), doc)):
        for label, what, name in found[docname]:
            objects = cited.setdefault(label, [])
            if (what, name) not in objects:
                objects.append((what, name))

    def position(label):
        docname, serial = equations.get(label, ("", 0))
        number = env.toc_fignumbers.get(docname, {}).get("displaymath", {})
        return (
            order.get(docname, len(order)),
            number.get(nodes.make_id(f"equation-{label}"), ()),
            serial,
            label,
        )

    return [
        (label, equations.get(label, ("", 0))[0], cited[label])
        for label in sorted(cited, key=position)
    ]


def _entry(*children):
    entry = nodes.entry()
    entry += _paragraph(*children)
    return entry


def _table(env, from_doc, rows):
    table = nodes.table(classes=["colwidths-auto", "equation-index"])
    group = nodes.tgroup(cols=len(HEADERS))
    table += group
    for _ in HEADERS:
        group += nodes.colspec(colwidth=1)
    head, body = nodes.thead(), nodes.tbody()
    header = nodes.row()
    for text in HEADERS:
        header += _entry(text)
    head += header
    group += head
    for label, docname, objects in rows:
        row = nodes.row(ids=[nodes.make_id(f"code-{label}")])
        row += _entry(_equation_link(from_doc, label))
        row += _entry(nodes.literal(text=label))
        row += _entry(_page_link(env, from_doc, docname) if docname else "")
        links = []
        for i, (what, name) in enumerate(objects):
            links += [", "] if i else []
            links.append(_object_link(from_doc, what, name))
        row += _entry(*links)
        body += row
    group += body
    return table


def index_nodes(env, from_doc):
    """The generated content of the page: a sentence of counts, then the table."""
    rows = index_rows(env)
    if not rows:
        logger.warning("no docstring of the API pages cites an equation", location=from_doc)
    objects = {name for _, _, cited in rows for _, name in cited}
    intro = _paragraph(
        f"{len(rows)} equations of the book are cited by the docstrings of {len(objects)} "
        "modules, classes, functions and methods of the API reference. A docstring cites "
        "an equation by its label, ",
        nodes.literal(text=":eq:`eq-ch2-general-control`"),
        ", which the API reference shows as the equation's number, linked to it; this "
        "table, generated by the build from the same docstrings, goes the other way. Each "
        "row gives the equation's number (a link to the equation), its label, the chapter "
        "or page that holds it, and every entry of the API reference whose docstring cites "
        "it.",
    )
    intro["classes"].append("equation-index-intro")
    return [intro, _table(env, from_doc, rows)]


class EquationIndexTransform(SphinxPostTransform):
    """Replace each placeholder with the generated content."""

    default_priority = 8  # before the references resolver (10): the links are pending_xref

    def run(self, **kwargs):
        for node in list(self.document.findall(EquationIndexNode)):
            node.replace_self(index_nodes(self.env, node["docname"]))


def pages_to_rewrite(app, env):
    """Rewrite the index at every build: any API page read anew may change it."""
    return sorted(getattr(env, PAGES, set()) & env.found_docs)


def purge_doc(app, env, docname):
    setattr(env, PAGES, getattr(env, PAGES, set()) - {docname})
    getattr(env, CITATIONS, {}).pop(docname, None)


def merge_info(app, env, docnames, other):
    setattr(env, PAGES, getattr(env, PAGES, set()) | (getattr(other, PAGES, set()) & docnames))
    found = getattr(env, CITATIONS, None)
    if found is None:
        found = {}
        setattr(env, CITATIONS, found)
    for docname, entries in getattr(other, CITATIONS, {}).items():
        if docname in docnames:
            found[docname] = entries


def setup(app):
    app.add_node(EquationIndexNode)
    app.add_directive("equation-index", EquationIndex)
    app.add_post_transform(EquationIndexTransform)
    app.connect("autodoc-process-docstring", record_citations)
    app.connect("env-updated", pages_to_rewrite)
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-merge-info", merge_info)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
