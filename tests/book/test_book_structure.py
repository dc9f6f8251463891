"""The book's table of contents, its pages and the API reference are complete.

With only_build_toc_files, a notebook missing from _toc.yml is silently left out of the
book (and of the strict build's execution), so the toc is checked in both directions.
"""

import pkgutil
import re
from pathlib import Path

import yaml

import geomotion

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = (".md", ".ipynb")


def toc_entries(node):
    """Every document named in a _toc.yml subtree (root and `file:` entries)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in {"root", "file"}:
                yield value
            else:
                yield from toc_entries(value)
    elif isinstance(node, list):
        for item in node:
            yield from toc_entries(item)


def toc_documents():
    """Toc entries without suffix, as sphinx-external-toc treats them."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [
        str(Path(entry).with_suffix("")) if entry.endswith(SUFFIXES) else entry
        for entry in toc_entries(toc)
    ]


def test_toc_uses_jupyter_book_format():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    assert toc["format"] == "jb-book" and toc["root"] == "book/preface"


def test_every_toc_entry_exists():
    missing = [
        doc
        for doc in toc_documents()
        if not any((ROOT / (doc + suffix)).is_file() for suffix in SUFFIXES)
    ]
    assert not missing, f"_toc.yml names files that do not exist: {missing}"


def test_every_notebook_and_page_is_in_the_toc():
    sources = [*(ROOT / "notebooks").rglob("*.ipynb"), *(ROOT / "book").rglob("*.md")]
    listed = set(toc_documents())
    orphans = sorted(
        path.relative_to(ROOT).with_suffix("").as_posix()
        for path in sources
        if ".ipynb_checkpoints" not in path.parts
        and path.relative_to(ROOT).with_suffix("").as_posix() not in listed
    )
    assert not orphans, f"not in _toc.yml, hence never built or executed: {orphans}"


def test_api_reference_documents_every_public_module():
    api_page = (ROOT / "book" / "api.md").read_text()
    documented = set(re.findall(r"automodule:: geomotion\.(\w+)", api_page))
    public = {
        module.name
        for module in pkgutil.iter_modules(geomotion.__path__)
        if not module.name.startswith("_")
    }
    assert public <= documented, f"add to book/api.md: {sorted(public - documented)}"
