"""Open HTML pages in headless Chromium with the network cut off and list what is wrong.

The checker is shared by the test over the built book (test_book_pages.py) and by the
tests that feed it deliberately broken pages (test_pagecheck.py), so a check that
silently stopped detecting its defect would be noticed.
"""

import contextlib
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

# The Chromium flags and the local server are the PDF printer's too: one definition.
sys.path.insert(0, os.fspath(Path(__file__).resolve().parents[2] / "book" / "_tools"))
from offline_browser import CHROMIUM, CHROMIUM_ARGS, LOCAL_HOST, serve  # noqa: E402, F401

# Runs in the page after load: wait for MathJax (when the page loads it), then report
# untypeset math, MathJax errors, raw TeX in visible prose and broken images.
PAGE_AUDIT_JS = r"""
async () => {
  const problems = [];
  const mathNodes = Array.from(document.querySelectorAll(".math"));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  } else if (mathNodes.length > 0) {
    problems.push(`${mathNodes.length} math element(s) but MathJax is not loaded`);
  }
  const untypeset = mathNodes.filter((el) => !el.querySelector("mjx-container"));
  for (const el of untypeset.slice(0, 5)) {
    problems.push(`math not typeset: ${el.textContent.trim().slice(0, 80)}`);
  }
  for (const el of Array.from(document.querySelectorAll("mjx-merror")).slice(0, 5)) {
    problems.push(`MathJax error: ${el.textContent.trim().slice(0, 80)}`);
  }

  // Raw TeX left in visible prose: delimiters, or any control word such as \frac (a
  // markdown "\[" loses its backslash but keeps the TeX inside).  Code listings may
  // legitimately show TeX source.
  const raw = /\$\$|\\[\[(]|\\[A-Za-z]+/;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("pre, code, script, style, textarea, mjx-container")) continue;
    if (!parent.checkVisibility() || !raw.test(node.textContent)) continue;
    problems.push(`raw TeX in text: ${node.textContent.trim().slice(0, 80)}`);
  }

  // Lazy images below the fold would not have loaded yet: load them all first.
  const images = Array.from(document.images);
  images.forEach((img) => { img.loading = "eager"; });
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  for (const img of images) {
    if (!(img.complete && img.naturalWidth > 0)) {
      problems.push(`image not loaded: ${img.getAttribute("src")}`);
    }
  }

  // An output (or an API example) the reader would have to scroll sideways: its text is
  // wider than its box (book/_ext/page_styles.py wraps them at the column).
  for (const pre of Array.from(document.querySelectorAll(".cell_output pre, dl.py div.highlight pre"))) {
    if (pre.scrollWidth > pre.clientWidth + 1) {
      const line = pre.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "");
      problems.push(`output overflows (${pre.scrollWidth} > ${pre.clientWidth} px): ${line.trim().slice(0, 80)}`);
    }
  }

  // A code cell the reader has to scroll sideways: its source is wider than the cell.
  // (Notebook code stops at 76 columns, notebooks/ruff.toml; outputs may be wider.)
  for (const pre of Array.from(document.querySelectorAll(".cell_input pre"))) {
    if (pre.scrollWidth > pre.clientWidth + 1) {
      const line = pre.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "");
      problems.push(`code cell overflows (${pre.scrollWidth} > ${pre.clientWidth} px): ${line.trim().slice(0, 80)}`);
    }
  }
  return problems;
}
"""

#: The window of every page check: a common laptop width, at which a code cell shows 77
#: characters of the theme's monospace font.
VIEWPORT = {"width": 1280, "height": 800}


@contextlib.contextmanager
def chromium():
    """Launch the offline headless Chromium; yield a playwright Browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.fspath(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


#: Pages up to this height [px] are captured whole; taller ones by their first screen.
FULL_SCREENSHOT_HEIGHT = 16384


def _is_local(url):
    parts = urlsplit(url)
    return parts.scheme in {"data", "blob", "about"} or parts.hostname == LOCAL_HOST


def check_page(browser, url, screenshot=None):
    """Load ``url`` and return a list of human-readable problems (empty when all is well).

    Reports: console errors and uncaught exceptions, requests to hosts other than
    127.0.0.1, requests that failed or returned an HTTP error, untypeset math or MathJax
    errors, raw TeX in visible text, images that did not load, and code cells wider
    than the page shows (at ``VIEWPORT``).  If ``screenshot`` is a path, a PNG is saved
    there: the whole page up to ``FULL_SCREENSHOT_HEIGHT`` pixels tall, the first screen of
    a taller one (the API reference: a full capture of it took over 30 s on a 2-core
    machine, and Chromium tiles captures past its texture limit anyway).
    """
    problems = []

    def on_console(message):
        source = message.location.get("url", "")
        # Chromium probes /favicon.ico on its own when a page declares no icon; the
        # 404 it logs is not a defect of the page.
        if message.type == "error" and not source.endswith("/favicon.ico"):
            problems.append(f"console error: {message.text} ({source})")

    def on_request(request):
        if not _is_local(request.url):
            problems.append(f"request leaves the machine: {request.url}")

    def on_response(response):
        if response.status >= 400:
            problems.append(f"HTTP {response.status}: {response.url}")

    page = browser.new_page(viewport=VIEWPORT)
    try:
        page.on("console", on_console)
        page.on("pageerror", lambda error: problems.append(f"uncaught exception: {error}"))
        page.on("request", on_request)
        page.on(
            "requestfailed",
            lambda request: problems.append(f"request failed ({request.failure}): {request.url}"),
        )
        page.on("response", on_response)

        page.goto(url, wait_until="networkidle")
        problems.extend(page.evaluate(PAGE_AUDIT_JS))
        if screenshot is not None:
            Path(screenshot).parent.mkdir(parents=True, exist_ok=True)
            height = page.evaluate("document.documentElement.scrollHeight")
            full_page = height <= FULL_SCREENSHOT_HEIGHT
            page.screenshot(path=os.fspath(screenshot), full_page=full_page)
    finally:
        page.close()
    return problems
