"""Local Sphinx extension of the book: offline pages, and the book's way of naming functions.

The book promises that its pages render with the network cut off.  Three things can
quietly break that promise, so this extension turns each into a build error:

* ``mathjax_path`` left at Sphinx's CDN default (for instance when
  ``sphinx-mathjax-offline`` is not loaded): checked when the configuration is read;
* the MathJax files missing from the output even though pages load them (the copy
  step of ``sphinx-mathjax-offline`` failed or was skipped): checked when the build
  finishes;
* a page asking for a script or style sheet from another host (a CDN default of some
  extension): reported as a warning per page, which fails the strict build.

It also removes duplicate ``<script>`` entries: with Sphinx 7.4, sphinx-thebe registers
its inline configuration script twice, and the second copy raises "Identifier
'THEBE_JS_URL' has already been declared" in the browser console of every page.

Finally, it resolves cross-references such as :func:`spatial.rot_z` in the companion's
docstrings to ``geomotion.spatial.rot_z``: the book names functions relative to the
package, and a name that exists nowhere still fails the nitpicky build.
"""

from pathlib import Path
from urllib.parse import urlsplit

from sphinx.errors import ConfigError, ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

PACKAGE = "geomotion"


def _is_remote(uri):
    """True for an absolute URL ("https://...") or a protocol-relative one ("//host/...")."""
    parts = urlsplit(str(uri))
    return bool(parts.scheme in {"http", "https"} or parts.netloc)


def check_mathjax_path(app, config):
    if _is_remote(config.mathjax_path):
        raise ConfigError(
            f"mathjax_path is {config.mathjax_path!r}, a remote URL; the book must serve "
            "MathJax from its own files. Is 'sphinx-mathjax-offline' installed and listed "
            "in _config.yml under sphinx.extra_extensions?"
        )


def dedupe_and_check_assets(app, pagename, templatename, context, doctree):
    # Identify a script by its source and attributes: the two copies of the thebe
    # configuration differ only in filename (None in one, "" in the other).
    scripts = context.get("script_files", [])
    unique = {}
    for script in scripts:
        key = (script.filename or "", tuple(sorted(script.attributes.items())))
        unique.setdefault(key, script)
    scripts[:] = unique.values()

    for asset in [*scripts, *context.get("css_files", [])]:
        if _is_remote(asset.filename):
            logger.warning(
                "page loads %s from another host; the book must render offline",
                asset.filename,
                location=pagename,
            )


def check_mathjax_copied(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    mathjax = Path(app.outdir, "_static", app.config.mathjax_path)
    if not mathjax.is_file():
        raise ExtensionError(
            f"local MathJax not found at {mathjax}: pages would show raw TeX offline. "
            "Reinstall the book extra (pip install -e '.[book]') so that "
            "sphinx-mathjax-offline can copy its files."
        )


def resolve_within_package(app, env, node, contnode):
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or target.startswith(PACKAGE + "."):
        return None
    return env.get_domain("py").resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], f"{PACKAGE}.{target}", node, contnode
    )


def setup(app):
    app.connect("config-inited", check_mathjax_path)
    app.connect("html-page-context", dedupe_and_check_assets)
    # Priority above the default 500: run after sphinx-mathjax-offline has copied its files.
    app.connect("build-finished", check_mathjax_copied, priority=900)
    app.connect("missing-reference", resolve_within_package)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
