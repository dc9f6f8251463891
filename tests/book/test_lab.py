"""`make lab`: the chapter notebook in the real JupyterLab, headless and offline.

JupyterLab starts with the project's configuration (jupyter_config/), opens
notebooks/spatial_algebra.ipynb (a copy, so the repository is never written), clears
the stored outputs and runs all cells in a fresh kernel.  Then:

* markdown cells are rendered by jupyterlab-myst, not as plain markdown: no role is
  left as raw text; every labelled equation is numbered; every {eq} reference is a
  link showing that number; every {cite:p} is a citation element;
* the widget explorers are live: their sliders appear, and moving one redraws the
  figure through the kernel;
* nothing leaves the machine: neither the page (every request is recorded; the browser
  resolves no host but 127.0.0.1) nor the server (lab_launcher.py records its
  connections); in particular the news feed is neither shown nor fetched.

What jupyterlab-myst cannot render, and this test therefore does not claim: {cite:p}
keys stay keys (it does not read book/references.bib; each shows as the key marked
"Citation Not Found"), {numref} to figures made by code cells (myst-nb's cell
metadata) shows the figure's label marked as not found, and equations are numbered per
notebook, (1), (2), ..., where the book numbers them per chapter, (1.1), (1.2), ....
"""

import json
import re
import shutil
from urllib.parse import urlsplit

import pytest
from labcheck import CONFIG_DIR, LOCAL_HOSTS, ROOT, outside_connections, run_notebook, running_lab

pytestmark = pytest.mark.browser

NOTEBOOK = "spatial_algebra.ipynb"
SCREENSHOT = ROOT / "_build" / "screenshots" / "lab.png"
RAW_ROLE = re.compile(r"\{[a-z]+(?::[a-z]+)?\}")  # "{numref}", with or without its backtick
# A display closed by "$$ (label)" at the end of a line (not "$$" opening one that
# happens to start with a parenthesis).
LABELLED_EQUATION = re.compile(r"\$\$[ \t]*\(([^)\s]+)\)[ \t]*$", re.MULTILINE)
EQ_ROLE = re.compile(r"\{eq\}`([^`]+)`")
CITE_ROLE = re.compile(r"\{cite:p\}`([^`]+)`")

# Runs in the page: what the rendered markdown cells contain.
RENDERED_MARKDOWN_JS = r"""
() => {
  const cells = Array.from(document.querySelectorAll(".jp-MarkdownCell"));
  // jupyterlab-myst renders into ".myst"; JupyterLab's own markdown renderer (the
  // fallback) into ".jp-RenderedMarkdown".
  const rendered = cells.map((cell) => cell.querySelector(".myst, .jp-RenderedMarkdown"));
  const text = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll(".katex-mathml, annotation").forEach((node) => node.remove());
    return copy.textContent;
  };
  const numbers = {};
  for (const el of document.querySelectorAll(".jp-MarkdownCell .myst [id^='eq-']")) {
    const anchor = el.querySelector(`a[href='#${el.id}']`);
    numbers[el.id] = anchor ? anchor.textContent.trim() : null;
  }
  const references = Array.from(
    document.querySelectorAll(".jp-MarkdownCell .myst a.hover-link[href^='#eq-']"),
    (a) => [a.getAttribute("href").slice(1), a.textContent.trim()]);
  return {
    cells: cells.length,
    myst: cells.filter((cell) => cell.querySelector(".myst") !== null).length,
    text: rendered.filter((el) => el !== null).map(text).join("\n"),
    unrendered: rendered.filter((el) => el === null).length,
    numbers,
    references,
    citations: Array.from(document.querySelectorAll(".jp-MarkdownCell .myst .cite-group"),
                          (el) => el.textContent.trim()),
  };
}
"""


def myst_identifier(label):
    """The HTML id MyST gives a label: lower case, '_' and spaces as '-'."""
    return re.sub(r"[\s_]+", "-", label.strip().lower())


def notebook_markdown():
    cells = json.loads((ROOT / "notebooks" / NOTEBOOK).read_text())["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]


@pytest.fixture(scope="module")
def lab_run(browser, tmp_path_factory):
    """Run the notebook once in JupyterLab; yield what the checks need."""
    work = tmp_path_factory.mktemp("lab")
    shutil.copytree(
        ROOT / "notebooks", work / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints")
    )
    requests = []
    with running_lab(work / "notebooks", work) as (base_url, token, connections):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda request: requests.append(request.url))
        try:
            run_notebook(page, base_url, token, NOTEBOOK)
            SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=SCREENSHOT)
            yield {
                "page": page,
                "requests": requests,
                "connections": connections,
                "markdown": page.evaluate(RENDERED_MARKDOWN_JS),
            }
        finally:
            page.close()


def test_every_markdown_cell_is_rendered_by_myst(lab_run):
    rendered = lab_run["markdown"]
    assert rendered["cells"] == len(notebook_markdown()) > 0
    assert rendered["myst"] == rendered["cells"], "some markdown cells are not rendered by MyST"


def test_no_role_is_left_as_raw_text(lab_run):
    assert lab_run["markdown"]["unrendered"] == 0, "some markdown cells are not rendered"
    raw = sorted(set(RAW_ROLE.findall(lab_run["markdown"]["text"])))
    assert RAW_ROLE.search("".join(notebook_markdown()))  # the notebook does use roles
    assert not raw, f"roles shown as raw text in JupyterLab: {raw}"


def test_labelled_equations_are_numbered(lab_run):
    labels = [
        label for source in notebook_markdown() for label in LABELLED_EQUATION.findall(source)
    ]
    numbers = lab_run["markdown"]["numbers"]
    expected = {myst_identifier(label): f"({n})" for n, label in enumerate(labels, start=1)}
    assert len(expected) > 10
    assert {key: numbers.get(key) for key in expected} == expected


def test_eq_references_link_to_the_numbered_equation(lab_run):
    targets = [
        myst_identifier(label)
        for source in notebook_markdown()
        for label in EQ_ROLE.findall(source)
    ]
    numbers = lab_run["markdown"]["numbers"]
    assert targets, "the notebook has no {eq} reference to check"
    assert sorted(lab_run["markdown"]["references"]) == sorted(
        [target, numbers[target]] for target in targets
    )


def test_citations_are_citation_elements(lab_run):
    keys = [
        key.strip()
        for source in notebook_markdown()
        for role in CITE_ROLE.findall(source)
        for key in role.split(",")
    ]
    assert keys and sorted(lab_run["markdown"]["citations"]) == sorted(keys)


def test_cells_run_without_errors(lab_run):
    page = lab_run["page"]
    code_cells = [
        cell
        for cell in json.loads((ROOT / "notebooks" / NOTEBOOK).read_text())["cells"]
        if cell["cell_type"] == "code"
    ]
    assert page.locator(".jp-CodeCell").count() == len(code_cells)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, f"error or stderr output: {errors.all_inner_texts()}"


def test_widget_sliders_are_live(lab_run):
    """A slider appears, and moving it makes the kernel redraw the explorer's figure."""
    page = lab_run["page"]
    slider = page.locator(".widget-slider").first
    slider.wait_for(timeout=30_000)
    explorer = page.locator(".jp-CodeCell", has=slider).first
    before = explorer.locator(".jp-OutputArea img").first.get_attribute("src")
    readout = slider.locator(".widget-readout").inner_text()
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        """([cell, old]) => {
             const img = cell.querySelector(".jp-OutputArea img");
             return img !== null && img.complete && img.src !== old;
           }""",
        arg=[explorer.element_handle(), before],
        timeout=30_000,
    )
    assert slider.locator(".widget-readout").inner_text() != readout


def test_no_request_leaves_the_machine(lab_run):
    outside = [
        url
        for url in lab_run["requests"]
        if urlsplit(url).scheme in {"http", "https", "ws", "wss"}
        and urlsplit(url).hostname not in LOCAL_HOSTS
    ]
    assert lab_run["requests"], "no request was recorded at all"
    assert not outside, f"JupyterLab requested hosts outside the machine: {outside}"
    assert not outside_connections(lab_run["connections"]), (
        f"the server connected outside: {outside_connections(lab_run['connections'])}"
    )


def test_no_news_prompt_and_no_news_fetch(lab_run):
    page = lab_run["page"]
    assert page.get_by_text("official Jupyter news").count() == 0
    asked = [
        url for url in lab_run["requests"] if "/lab/api/news" in url or "/lab/api/update" in url
    ]
    assert not asked, f"JupyterLab asked the server for news or updates: {asked}"


def test_make_lab_uses_the_tested_configuration():
    recipe = (ROOT / "Makefile").read_text().split("\nlab:", 1)[1].split("\n\n", 1)[0]
    assert f"JUPYTER_CONFIG_DIR=$(CURDIR)/{CONFIG_DIR.name}" in recipe
