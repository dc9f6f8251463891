"""A link to the book as one PDF, shown only in an HTML build that has the PDF.

`make pdf` prints the whole book into ``_build/pdf/geometry-of-motion.pdf`` (see
``book/_tools/print_pdf.py``) after the HTML build, then builds the HTML again (only
the pages that need it are written).  A page that contains the directive::

    ```{pdf-download}
    ```

then shows a paragraph with a link to the PDF, and the PDF is copied next to the HTML
pages.  Without the PDF (a plain `make book`), and in other builders (the singlehtml
page from which the PDF itself is printed), the directive leaves nothing, so no link
can point to a missing file.

The PDF's path, relative to the book's root, is the configuration value ``book_pdf``.
"""

import shutil
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

#: Environment attribute listing the documents that contain the directive.
PAGES = "geomotion_pdf_pages"


class PdfDownloadNode(nodes.General, nodes.Element):
    """Placeholder, resolved when the page is written."""


class PdfDownload(SphinxDirective):
    """The ``pdf-download`` directive."""

    has_content = False

    def run(self):
        setattr(self.env, PAGES, getattr(self.env, PAGES, set()) | {self.env.docname})
        return [PdfDownloadNode(docname=self.env.docname)]


def pdf_source(app):
    """The PDF made by `make pdf`, or None when there is none."""
    path = Path(app.confdir, app.config.book_pdf)
    return path if app.config.book_pdf and path.is_file() else None


def download_paragraph(app, docname, pdf):
    """'The whole book is also one PDF: <link> (size).' with a link relative to the page."""
    uri = relative_uri(app.builder.get_target_uri(docname), pdf.name)
    link = nodes.reference("", "", nodes.Text(pdf.name), internal=False, refuri=uri)
    size = pdf.stat().st_size / 1e6
    paragraph = nodes.paragraph(classes=["pdf-download"])
    paragraph += [
        nodes.Text("This build also has the whole book as one PDF: "),
        link,
        nodes.Text(f" ({size:.1f} MB)."),
    ]
    return paragraph


class PdfDownloadTransform(SphinxPostTransform):
    """Replace each placeholder with the link, or with nothing."""

    default_priority = 8

    def run(self, **kwargs):
        pdf = pdf_source(self.app) if self.app.builder.name == "html" else None
        for node in list(self.document.findall(PdfDownloadNode)):
            node.replace_self(download_paragraph(self.app, node["docname"], pdf) if pdf else [])


def pages_to_rewrite(app, env):
    """Write the pages with the directive at every build: the PDF may have come or gone."""
    return sorted(getattr(env, PAGES, set()) & env.found_docs)


def copy_pdf(app, exception):
    """Put the PDF next to the HTML pages, or remove a copy the PDF no longer backs."""
    if exception is not None or app.builder.name != "html" or not app.config.book_pdf:
        return
    target = Path(app.outdir, Path(app.config.book_pdf).name)
    pdf = pdf_source(app)
    if pdf:
        shutil.copyfile(pdf, target)
    else:
        target.unlink(missing_ok=True)


def purge_page(app, env, docname):
    setattr(env, PAGES, getattr(env, PAGES, set()) - {docname})


def merge_pages(app, env, docnames, other):
    setattr(env, PAGES, getattr(env, PAGES, set()) | (getattr(other, PAGES, set()) & docnames))


def setup(app):
    app.add_config_value("book_pdf", "", "html", types=[str])
    app.add_node(PdfDownloadNode)
    app.add_directive("pdf-download", PdfDownload)
    app.add_post_transform(PdfDownloadTransform)
    app.connect("env-updated", pages_to_rewrite)
    app.connect("env-purge-doc", purge_page)
    app.connect("env-merge-info", merge_pages)
    app.connect("build-finished", copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
