"""Which code cells of a chapter are checks, and the tags that fold them in the book.

The rule, applied to the chapter notebooks (the files directly under the "Chapters"
part of ``_toc.yml``; not their exercises, whose code is the worked answer, nor "Using
geomotion", whose code is what it teaches):

    A code cell is a **check** when it asserts something (an ``assert`` statement or a
    call of a function whose name starts with ``assert``) and no later code cell of the
    notebook reads a name that it defines.

Such a cell confirms what the text has just said (a second algorithm, a finite
difference, a hand formula, random samples) and nothing after it depends on it.  A cell
that builds what later cells use (a model, a study), the set-up cell, figures and
explorers are the chapter's own material and stay open.

A check carries the tags ``check`` (what it is; ``book/_ext/verification_page.py``
gives it an anchor and lists it on the Verification page) and ``hide-input`` (how the
book shows it: the code folded behind a toggle, its printed result in view).  No other
cell carries ``hide-input``, ``hide-cell`` or ``hide-output``.

Usage (rewrites the tags of the chapter notebooks; sources and outputs are untouched)::

    python book/_tools/checks.py
"""

import ast
import sys
from pathlib import Path

import nbformat
import yaml
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parents[2]
CHECK_TAGS = ("check", "hide-input")
FOLDING_TAGS = {"hide-input", "hide-cell", "hide-output"}

# Cells whose tags are left as they are (none at present): the code cells of these
# notebooks that contain one of these texts.  The book test lists them as not yet decided
# instead of checking them.
PENDING = {}


def pending(path, cell):
    """True for a cell whose tags this tool does not touch (see PENDING)."""
    return any(text in cell.source for text in PENDING.get(Path(path).stem, ()))


def chapter_notebooks(root=ROOT):
    """Paths of the chapter notebooks, in table-of-contents order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    (part,) = [part for part in toc["parts"] if part.get("caption") == "Chapters"]
    return [root / f"{chapter['file']}.ipynb" for chapter in part["chapters"]]


def _tree(source):
    return ast.parse(TransformerManager().transform_cell(source))


def defined_names(tree):
    """Names a cell binds at any level (assignments, loops, functions, classes, imports)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def read_before_bound(tree):
    """Names a cell reads that it has not bound earlier in its own text (so come from before)."""
    events = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            events.append((node.lineno, node.col_offset, isinstance(node.ctx, ast.Load), node.id))
    bound, read = set(), set()
    for _, _, is_load, name in sorted(events):
        if is_load and name not in bound:
            read.add(name)
        elif not is_load:
            bound.add(name)
    return read


def asserts(tree):
    """True when the cell contains an assert statement or an ``assert*`` call."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            function = node.func
            name = (
                function.attr
                if isinstance(function, ast.Attribute)
                else getattr(function, "id", "")
            )
            if name.startswith("assert"):
                return True
    return False


def check_cells(notebook):
    """Indices (into ``notebook.cells``) of the code cells that are checks by the rule."""
    code = [
        (index, _tree(cell.source))
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code"
    ]
    checks = []
    for position, (index, tree) in enumerate(code):
        later = set().union(*(read_before_bound(other) for _, other in code[position + 1 :]))
        if asserts(tree) and not (defined_names(tree) & later):
            checks.append(index)
    return checks


def apply_tags(path):
    """Tag the checks of the notebook at ``path``; remove folding tags from every other cell.

    Returns the indices of the checks and of those left as they were (``PENDING``).
    """
    notebook = nbformat.read(path, as_version=4)
    checks = set(check_cells(notebook))
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or pending(path, cell):
            continue
        tags = [
            tag
            for tag in cell.metadata.get("tags", [])
            if tag not in CHECK_TAGS and tag not in FOLDING_TAGS
        ]
        if index in checks:
            tags += list(CHECK_TAGS)
        if tags:
            cell.metadata["tags"] = tags
        else:
            cell.metadata.pop("tags", None)
    nbformat.write(notebook, path)
    held = [index for index in checks if pending(path, notebook.cells[index])]
    return sorted(checks), held


def main():
    for path in chapter_notebooks():
        checks, held = apply_tags(path)
        note = f" ({len(held)} of them left untagged for now: cells {held})" if held else ""
        print(f"{path.relative_to(ROOT)}: {len(checks)} checks{note}")


if __name__ == "__main__":
    sys.exit(main())
