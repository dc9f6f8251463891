"""The browser checker must catch each defect it exists for: feed it broken pages.

Each test writes a tiny page into a temporary directory, serves it on 127.0.0.1 and
asserts that check_page reports the defect.  A clean page with real (local) MathJax is
the control: the checker must not cry wolf either.
"""

import importlib.util
from pathlib import Path

import pytest
from pagecheck import check_page, serve

pytestmark = pytest.mark.browser

# The MathJax 3 files that sphinx-mathjax-offline ships and copies into every build.
MATHJAX = Path(importlib.util.find_spec("sphinx-mathjax-offline").origin).parent / "static/mathjax"


def page_problems(browser, tmp_path, body, with_mathjax=False):
    """Write ``body`` into an HTML page, check it in the browser, return the problems."""
    head = '<script defer src="mathjax/tex-chtml.js"></script>' if with_mathjax else ""
    if with_mathjax:
        (tmp_path / "mathjax").symlink_to(MATHJAX, target_is_directory=True)
    (tmp_path / "page.html").write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>"
    )
    with serve(tmp_path) as url:
        return check_page(browser, f"{url}/page.html")


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
    problems = page_problems(browser, tmp_path, r'<p><span class="math">\(x^2\)</span></p>')
    assert_reported(
        problems, "MathJax is not loaded", r"math not typeset: \(x^2\)", r"raw TeX in text: \(x^2\)"
    )


def test_mathjax_error_is_reported(browser, tmp_path):
    body = r'<p><span class="math">\(x^1^2\)</span></p>'  # TeX error: double exponent
    problems = page_problems(browser, tmp_path, body, with_mathjax=True)
    assert_reported(problems, "MathJax error")


def test_console_error_is_reported(browser, tmp_path):
    body = "<script>null.boom();</script><script>console.error('broken')</script>"
    problems = page_problems(browser, tmp_path, body)
    assert_reported(problems, "uncaught exception", "console error: broken")


@pytest.mark.parametrize(
    "box, wide, report",
    [
        ("cell_input", "x = " + "1 + " * 200 + "1", "code cell overflows"),
        ("cell_output", "residual " + "0.123456 " * 120, "output overflows"),
    ],
)
def test_a_box_wider_than_the_page_is_reported(browser, tmp_path, box, wide, report):
    body = (
        f'<div style="width: 600px"><div class="{box}"><pre style="overflow: auto">'
        f"{wide}</pre></div>"
        f'<div class="{box}"><pre style="overflow: auto">short = 1</pre></div></div>'
    )
    problems = page_problems(browser, tmp_path, body)
    assert_reported(problems, report, wide[:12])
    assert not any("short = 1" in problem for problem in problems)
