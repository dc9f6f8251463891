"""Notebook habits that the notebook layer (nbval) depends on."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(
    path for path in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in path.parts
)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_no_cell_relies_on_a_trailing_semicolon(notebook):
    """nbval runs cells with store_history=False, and IPython decides whether a trailing
    ';' silences the result by looking at the stored history: under nbval the result
    is printed anyway, unlike in Jupyter, nbconvert and the book build, and the stored
    output no longer matches.  Assign the value instead (``_ = ...``)."""
    cells = json.loads(notebook.read_text())["cells"]
    offending = []
    for index, cell in enumerate(cells):
        source = "".join(cell["source"]).rstrip()
        if cell["cell_type"] == "code" and source.endswith(";"):
            offending.append(f"cell {index}: {source.splitlines()[-1]}")
    assert not offending, f"{notebook.name}: trailing ';' is ignored by nbval: {offending}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_printed_zeros_are_tidied_not_patched(notebook):
    """``x + 0.0`` turns -0.0 into 0.0 but leaves -1e-17 (printed "-0.") alone, and it
    puzzles readers; printed values go through geomotion.printing.tidy instead."""
    cells = json.loads(notebook.read_text())["cells"]
    offending = [
        f"cell {index}: {line.strip()}"
        for index, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        for line in "".join(cell["source"]).splitlines()
        if re.search(r"\+\s*0\.0(?![\d.eE])", line)
    ]
    assert not offending, f"{notebook.name}: use tidy(...) instead of '+ 0.0': {offending}"
