"""`make lab`: an explorer with a static form is still the live widget in JupyterLab.

The display bundle of ``widgets.allocation_explorer()`` holds the live widget view and the
static HTML block of the book (geomotion.widgets).  JupyterLab must choose the widget:
its sliders, not the book's precomputed frames, and moving one redraws the figure
through the kernel.  Runs notebooks/parallel_mechanisms_exercises.ipynb (a copy) in the
headless, offline JupyterLab of test_lab.py.
"""

import shutil

import pytest
from labcheck import ROOT, run_notebook, running_lab

pytestmark = pytest.mark.browser

NOTEBOOK = "parallel_mechanisms_exercises.ipynb"


def test_allocation_explorer_is_live_in_lab(browser, tmp_path):
    shutil.copytree(
        ROOT / "notebooks",
        tmp_path / "notebooks",
        ignore=shutil.ignore_patterns(".ipynb_checkpoints"),
    )
    with running_lab(tmp_path / "notebooks", tmp_path) as (base_url, token, _):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            run_notebook(page, base_url, token, NOTEBOOK)
            cell = page.locator(".jp-CodeCell", has_text="widgets.allocation_explorer()").last
            slider = cell.locator(".widget-slider").first
            slider.wait_for(timeout=30_000)
            assert cell.locator(".geomotion-explorer").count() == 0, "the static block is shown"
            before = cell.locator(".jp-OutputArea img").first.get_attribute("src")
            slider.locator(".noUi-handle").focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                """([cell, old]) => {
                     const img = cell.querySelector(".jp-OutputArea img");
                     return img !== null && img.complete && img.src !== old;
                   }""",
                arg=[cell.element_handle(), before],
                timeout=30_000,
            )
        finally:
            page.close()
