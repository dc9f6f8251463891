"""An explorer puts its figure into its output area's state, and replaces it when a slider moves.

The state, not captured output: captured output made nbclient write to the kernel's
shell socket in the middle of a cell, and the cell then waited out its timeout
(issue 23; tests/book/test_execution_stall.py runs the explorers through nbconvert).
"""

import pytest
from conftest import SLOW_EXPLORERS, explorer_arguments, slow_marked
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.pylabtools import select_figure_formats

from geomotion import widgets


@pytest.fixture
def shell():
    """An IPython shell that formats figures as PNG, as a kernel after %matplotlib inline."""
    instance = InteractiveShell.instance()
    select_figure_formats(instance, {"png"})
    yield instance
    InteractiveShell.clear_instance()


def figures_shown(explorer):
    return [
        output["data"]["image/png"]
        for output in explorer.out.outputs
        if output["output_type"] == "display_data" and "image/png" in output["data"]
    ]


@pytest.mark.parametrize("name", slow_marked(widgets.__all__, SLOW_EXPLORERS))
def test_explorer_output_area_holds_one_figure_that_the_slider_replaces(shell, name, request):
    explorer = getattr(widgets, name)(*explorer_arguments(name, request))
    first = figures_shown(explorer)
    assert len(first) == 1 and len(explorer.out.outputs) == 1
    assert explorer.out.msg_id == ""  # nothing was captured into the area
    slider = explorer.children[0]
    slider.value = slider.max
    moved = figures_shown(explorer)
    assert len(moved) == 1 and len(explorer.out.outputs) == 1
    assert moved != first
