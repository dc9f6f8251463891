"""The browser checker must catch each defect it exists for: feed it broken pages.

Each test writes a tiny page into a temporary directory, serves it on 127.0.0.1 and
asserts that check_page reports the defect.  A clean page with real (local) MathJax is
the control: the checker must not cry wolf either.
"""

import importlib.util
import re
from pathlib import Path

import pytest
from pagecheck import check_page, serve

pytestmark = pytest.mark.browser

# The MathJax 3 files that sphinx-mathjax-offline ships and copies into every build.
MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static/mathjax"


#: What a book page puts before the MathJax script: its configuration, as window.MathJax.
MATHJAX_CONFIG = '<script>window.MathJax = {"options": {"processHtmlClass": "math"}}</script>'


def page_problems(browser, tmp_path, body, with_mathjax=False, head="", **check):
    """Write ``body`` into an HTML page, check it in the browser, return the problems.

    ``with_mathjax`` loads the real (vendored) MathJax the way the book's pages do, and in
    any case makes it available at ``mathjax/tex-chtml.js``; ``head`` is added to the head;
    ``check`` holds keywords of check_page.
    """
    (tmp_path / "mathjax").symlink_to(MATHJAX, target_is_directory=True)
    if with_mathjax:
        head = f'{MATHJAX_CONFIG}<script defer src="mathjax/tex-chtml.js"></script>{head}'
    (tmp_path / "page.html").write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>"
    )
    with serve(tmp_path) as url:
        return check_page(browser, f"{url}/page.html", **check)


def assert_reported(problems, *fragments):
    for fragment in fragments:
        assert any(fragment in problem for problem in problems), (
            f"checker missed {fragment!r}; it reported: {problems}"
        )


def test_clean_page_with_typeset_math_passes(browser, tmp_path):
    body = r'<p>Power <span class="math">\(P = \mathcal F^T \mathcal V\)</span> in watts.</p>'
    assert page_problems(browser, tmp_path, body, with_mathjax=True) == []


def test_outside_url_is_reported(browser, tmp_path):
    body = '<script src="https://cdn.example.com/x.js"></script>'
    problems = page_problems(browser, tmp_path, body)
    assert_reported(problems, "request leaves the machine: https://cdn.example.com/x.js")


def test_missing_image_is_reported(browser, tmp_path):
    problems = page_problems(browser, tmp_path, '<img src="missing.png" alt="a figure">')
    assert_reported(problems, "image not loaded: missing.png", "HTTP 404")


def test_raw_display_math_is_reported(browser, tmp_path):
    problems = page_problems(browser, tmp_path, "<p>The energy is $$K = m v^2 / 2$$ here.</p>")
    assert_reported(problems, "raw TeX in text: The energy is $$K")


def test_tex_without_delimiters_is_reported(browser, tmp_path):
    # What MyST makes of \[ K = \tfrac12 m v^2 \]: the markdown escape eats "\[".
    problems = page_problems(browser, tmp_path, r"<p>Energy: [ K = \tfrac12 m v^2 ]</p>")
    assert_reported(problems, r"raw TeX in text: Energy: [ K = \tfrac12")


def test_math_without_mathjax_is_reported(browser, tmp_path):
    body = r'<p><span class="math">\(x^2\)</span></p>'
    problems = page_problems(browser, tmp_path, body, ready_timeout=1)
    assert_reported(
        problems, "MathJax is not loaded", r"math not typeset: \(x^2\)", r"raw TeX in text: \(x^2\)"
    )


# MathJax arriving late: what a long chapter does on a loaded machine, where Playwright's
# "networkidle" comes before the deferred MathJax script has run (pagecheck.py).  Here the
# page adds the script itself, LATE_MS after it has loaded: well after "networkidle".
LATE_MS = 2500
LATE_MATHJAX = (
    f"{MATHJAX_CONFIG}<script>setTimeout(() => {{"
    " const script = document.createElement('script');"
    " script.src = 'mathjax/tex-chtml.js'; document.head.appendChild(script);"
    f" }}, {LATE_MS});</script>"
)
POWER = r'<p>Power <span class="math">\(P = \mathcal F^T \mathcal V\)</span> in watts.</p>'


def test_mathjax_arriving_late_is_waited_for(browser, tmp_path):
    problems = page_problems(browser, tmp_path, POWER, head=LATE_MATHJAX)
    assert problems == []
    # it waited for MathJax (the waits count from "networkidle", about 0.5 s after load)
    waited = problems.load_wait + problems.mathjax_wait
    print(f"waited {problems.load_wait:.2f} s for load, {problems.mathjax_wait:.2f} s for MathJax")
    assert waited > (LATE_MS - 1000) / 1000, waited


def test_mathjax_that_never_arrives_is_reported_with_the_wait(browser, tmp_path):
    # the page's MathJax configuration, but the script never comes
    problems = page_problems(browser, tmp_path, POWER, head=MATHJAX_CONFIG, ready_timeout=2)
    assert_reported(problems, "1 math element(s) but MathJax is not loaded: waited")
    waited = re.search(r"MathJax is not loaded: waited (\d+\.\d) s", " ".join(problems))
    assert waited and float(waited.group(1)) >= 2.0, problems
    assert 2.0 <= problems.mathjax_wait < 10, problems.mathjax_wait


def test_mathjax_error_is_reported(browser, tmp_path):
    body = r'<p><span class="math">\(x^1^2\)</span></p>'  # TeX error: double exponent
    problems = page_problems(browser, tmp_path, body, with_mathjax=True)
    assert_reported(problems, "MathJax error")


def test_console_error_is_reported(browser, tmp_path):
    body = "<script>null.boom();</script><script>console.error('broken')</script>"
    problems = page_problems(browser, tmp_path, body)
    assert_reported(problems, "uncaught exception", "console error: broken")


WIDE_CODE = "x = " + "1 + " * 200 + "1"
WIDE_OUTPUT = "residual " + "0.123456 " * 120
WIDE_COMMAND = "make pdf     # " + "print the whole book into one PDF, " * 4


@pytest.mark.parametrize(
    "box, wide, report",
    [
        ('<div class="cell_input">{}</div>', WIDE_CODE, "code cell overflows"),
        ('<div class="cell_output">{}</div>', WIDE_OUTPUT, "output overflows"),
        # a code block of a prose page (a fenced block of book/*.md), and a docstring's
        # example outside a documented object (a module's docstring in the API reference)
        (
            '<article class="bd-article"><div class="highlight-bash notranslate">'
            '<div class="highlight">{}</div></div></article>',
            WIDE_COMMAND,
            "code block overflows",
        ),
        (
            '<div class="doctest highlight-default notranslate"><div class="highlight">{}</div>'
            "</div>",
            ">>> " + WIDE_CODE,
            "code block overflows",
        ),
    ],
    ids=["code cell", "output", "prose code block", "module docstring example"],
)
def test_a_box_wider_than_the_page_is_reported(browser, tmp_path, box, wide, report):
    pre = '<pre style="overflow: auto">{}</pre>'
    body = (
        f'<div style="width: 600px">{box.format(pre.format(wide))}'
        f"{box.format(pre.format('short = 1'))}</div>"
    )
    problems = page_problems(browser, tmp_path, body)
    assert_reported(problems, report, wide[:12])
    assert not any("short = 1" in problem for problem in problems)
