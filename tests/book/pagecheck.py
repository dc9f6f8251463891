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

# Runs in the page once Playwright reports "networkidle": wait for the page to be ready,
# then report untypeset math, MathJax errors, raw TeX in visible prose, broken images and
# boxes the reader would have to scroll sideways.
#
# "networkidle" is Playwright's own timer (500 ms without a request), not a signal of the
# page: on a long chapter page in a loaded machine it comes while the parser is still
# working through the document, before the deferred scripts, MathJax among them, have run
# (measured on notebooks/parallel_mechanisms.html with Chromium's CPU slowed 8 times:
# document.readyState "loading", 429 of its 443 math elements parsed, tex-chtml.js fetched
# but not run, MathJax.startup there 12-16 s later).  So the audit first waits for the
# load event, then for MathJax's own ready signal, MathJax.startup.promise, which exists
# once the MathJax script has run (until then window.MathJax is the page's configuration
# object) and resolves when the page is typeset.  Both waits share one bound (timeoutMs);
# the audit returns how long each took.
PAGE_AUDIT_JS = r"""
async (timeoutMs) => {
  const problems = [];
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // true if the promise settles before the shared deadline, false if the deadline comes first
  const settles = (promise) => Promise.race([
    promise.then(() => true, () => true),
    sleep(Math.max(0, timeoutMs - elapsed())).then(() => false),
  ]);

  if (document.readyState !== "complete") {
    const loaded = new Promise((resolve) => window.addEventListener("load", resolve, { once: true }));
    if (!(await settles(loaded))) {
      problems.push(`page still loading after ${seconds(elapsed())} (document.readyState ${document.readyState})`);
    }
  }
  const loadWait = elapsed();

  const mathNodes = Array.from(document.querySelectorAll(".math"));
  const startup = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
  if (mathNodes.length > 0 || startup()) {
    while (!startup() && elapsed() < timeoutMs) await sleep(50);
    if (!startup()) {
      problems.push(
        `${mathNodes.length} math element(s) but MathJax is not loaded: ` +
          `waited ${seconds(elapsed())} for MathJax.startup.promise`
      );
    } else if (!(await settles(startup()))) {
      problems.push(`MathJax started but did not finish typesetting within ${seconds(elapsed())}`);
    }
  }
  const mathjaxWait = elapsed() - loadWait;
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

  // A box the reader would have to scroll sideways: its text is wider than the box.  Every
  // <pre> of the page is one: a code cell (its source stops at 76 columns,
  // notebooks/ruff.toml), an output or an API example (book/_ext/page_styles.py wraps
  // them at the column), or a code block of a prose page (its lines are kept short).
  const kind = (pre) =>
    pre.closest(".cell_input") ? "code cell" : pre.closest(".cell_output, dl.py") ? "output" : "code block";
  for (const pre of Array.from(document.querySelectorAll("pre"))) {
    if (pre.scrollWidth > pre.clientWidth + 1) {
      const line = pre.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "");
      problems.push(`${kind(pre)} overflows (${pre.scrollWidth} > ${pre.clientWidth} px): ${line.trim().slice(0, 80)}`);
    }
  }
  return { problems, loadWait, mathjaxWait };
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


#: How long the audit waits, in all, for a page's load event and for MathJax to typeset it
#: [s].  Measured: a few tenths of a second on an idle 2-core machine; 12-16 s for the
#: longest chapter with Chromium's CPU slowed 8 times.
READY_TIMEOUT = 60


class PageProblems(list):
    """What check_page found wrong (a list of strings), and how long the page took to get ready.

    ``load_wait`` and ``mathjax_wait``: the seconds the audit waited, after Playwright's
    "networkidle", for the page's load event and then for ``MathJax.startup.promise``.
    """

    load_wait = 0.0
    mathjax_wait = 0.0


def check_page(browser, url, screenshot=None, ready_timeout=READY_TIMEOUT, cpu_slowdown=1):
    """Load ``url`` and return its problems, a ``PageProblems`` list (empty when all is well).

    Reports: console errors and uncaught exceptions, requests to hosts other than
    127.0.0.1, requests that failed or returned an HTTP error, a page that did not finish
    loading or whose math MathJax did not typeset within ``ready_timeout`` seconds,
    MathJax errors, raw TeX in visible text, images that did not load, and any code
    cell, output or code block wider than its box (at ``VIEWPORT``).  ``cpu_slowdown``
    above 1 slows Chromium's CPU that many times (a loaded machine).  If ``screenshot`` is
    a path, a PNG is saved there: the whole page up to ``FULL_SCREENSHOT_HEIGHT`` pixels
    tall, the first screen of a taller one (the API reference: a full capture of it took
    over 30 s on a 2-core machine, and Chromium tiles captures past its texture limit
    anyway).
    """
    problems = PageProblems()

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
        if cpu_slowdown != 1:
            page.context.new_cdp_session(page).send(
                "Emulation.setCPUThrottlingRate", {"rate": cpu_slowdown}
            )
        page.on("console", on_console)
        page.on("pageerror", lambda error: problems.append(f"uncaught exception: {error}"))
        page.on("request", on_request)
        page.on(
            "requestfailed",
            lambda request: problems.append(f"request failed ({request.failure}): {request.url}"),
        )
        page.on("response", on_response)

        page.goto(url, wait_until="networkidle")
        audit = page.evaluate(PAGE_AUDIT_JS, ready_timeout * 1000)
        problems.extend(audit["problems"])
        problems.load_wait = audit["loadWait"] / 1000
        problems.mathjax_wait = audit["mathjaxWait"] / 1000
        if screenshot is not None:
            Path(screenshot).parent.mkdir(parents=True, exist_ok=True)
            height = page.evaluate("document.documentElement.scrollHeight")
            full_page = height <= FULL_SCREENSHOT_HEIGHT
            page.screenshot(path=os.fspath(screenshot), full_page=full_page)
    finally:
        page.close()
    return problems
