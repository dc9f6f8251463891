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


API_INDEX = ROOT / "book" / "api.md"
API_PAGES = sorted((ROOT / "book" / "api").glob("*.md"))
#: ``.. automodule:: geomotion.X`` with its members (submodule notes have no :members:).
DOCUMENTED = re.compile(r"automodule:: geomotion\.(\w+)\n\s+:members:")


def test_api_reference_documents_every_public_module():
    """Each public module is documented once, with its members, on one of the API pages."""
    documented = [m for page in API_PAGES for m in DOCUMENTED.findall(page.read_text())]
    public = {
        module.name
        for module in pkgutil.iter_modules(geomotion.__path__)
        if not module.name.startswith("_")
    }
    assert public <= set(documented), (
        f"add to a page in book/api/: {sorted(public - set(documented))}"
    )
    twice = sorted({m for m in documented if documented.count(m) > 1})
    assert not twice, f"documented on more than one API page: {twice}"


def test_api_reference_is_one_page_per_package():
    """The API reference is an index page with one page per package as its sections.

    One page of every module was about 171,000 px tall; the index holds no automodule,
    lists each page as a section in _toc.yml, and links each.
    """
    assert len(API_PAGES) >= 10
    assert "automodule" not in API_INDEX.read_text()
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    (index,) = [
        chapter
        for part in toc["parts"]
        for chapter in part["chapters"]
        if chapter["file"] == "book/api"
    ]
    sections = [section["file"] for section in index.get("sections", [])]
    assert sorted(sections) == [f"book/api/{page.stem}" for page in API_PAGES]
    links = re.findall(r"\]\(api/(\w+)\.md\)", API_INDEX.read_text())
    assert sorted(links) == sorted(page.stem for page in API_PAGES)
    for page in API_PAGES:
        assert DOCUMENTED.search(page.read_text()), f"{page.name} documents no module"
