"""Print the single-page HTML build of the book to one PDF, offline, with Debian's Chromium.

Usage::

    python book/_tools/print_pdf.py _build/singlehtml _build/pdf/geometry-of-motion.pdf

The page of the singlehtml build where the whole book is assembled (``book/preface.html``,
named after the root document) links its style sheets, scripts and images relative to
the top of the build, as if it were there; so it is copied there (``<output stem>.html``)
and printed from that copy.  The build is served on 127.0.0.1 and opened in headless
Chromium with every other host unresolvable.  Printing waits until MathJax has typeset
every formula and every image has loaded, and refuses to print (exit status 1) if a
formula is left untypeset, an image is missing or the page asked for anything outside
the machine: a PDF with raw TeX or empty figures would be worse than none.
``print.css`` next to this file adapts the page to paper (no navigation, each document
on a new sheet, wrapped code); displayed formulas wider than the text are scaled down
to fit.  The PDF has page numbers and an outline (bookmarks) from the headings.
"""

import argparse
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from offline_browser import CHROMIUM, CHROMIUM_ARGS, LOCAL_HOST, serve

# The singlehtml builder writes no search index, but the theme's search script still asks
# for it; paper has no search box.
IGNORED_FAILURES = {"/searchindex.js"}
PRINT_CSS = Path(__file__).with_name("print.css")

# Runs in the page: wait for MathJax, load every image, report what would spoil the PDF.
PREPARE_JS = r"""
async () => {
  const problems = [];
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const math = Array.from(document.querySelectorAll(".math"));
  const untypeset = math.filter((el) => !el.querySelector("mjx-container"));
  if (untypeset.length) problems.push(`${untypeset.length} formula(s) not typeset`);
  const errors = document.querySelectorAll("mjx-merror").length;
  if (errors) problems.push(`${errors} MathJax error(s)`);
  const images = Array.from(document.images);
  images.forEach((img) => { img.loading = "eager"; });
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  for (const img of images) {
    if (!(img.complete && img.naturalWidth > 0)) problems.push(`image not loaded: ${img.src}`);
  }
  return {problems, formulas: math.length, images: images.length};
}
"""

# Runs in the page laid out at the width of the printed text: a displayed formula wider
# than the text is scaled down to fit (MathJax 3 does not break lines), instead of being
# cut at the edge of the sheet.  Returns how many were scaled.
FIT_FORMULAS_JS = r"""
() => {
  let scaled = 0;
  for (const box of document.querySelectorAll('mjx-container[display="true"]')) {
    const formula = box.querySelector("mjx-math");
    const available = box.parentElement.getBoundingClientRect().width;
    const needed = formula ? formula.getBoundingClientRect().width : 0;
    if (needed > available) {
      box.style.fontSize = `${Math.floor((100 * available) / needed) - 1}%`;
      scaled += 1;
    }
  }
  return scaled;
}
"""

PAPER = {"format": "A4", "width_mm": 210.0}
MARGIN_MM = {"top": 16, "bottom": 18, "left": 15, "right": 15}

FOOTER = (
    '<div style="font-size: 8px; width: 100%; text-align: center; color: #555;">'
    '<span class="title"></span> &middot; <span class="pageNumber"></span> / '
    '<span class="totalPages"></span></div>'
)


def _outside(url):
    parts = urlsplit(url)
    return parts.scheme not in {"data", "blob", "about"} and parts.hostname != LOCAL_HOST


def _lay_out_for_paper(tab):
    """Apply print.css and the print media at the printed text width; fit wide formulas."""
    tab.add_style_tag(content=PRINT_CSS.read_text())
    tab.emulate_media(media="print")
    text_width_mm = PAPER["width_mm"] - MARGIN_MM["left"] - MARGIN_MM["right"]
    tab.set_viewport_size({"width": round(text_width_mm / 25.4 * 96), "height": 1200})
    return tab.evaluate(FIT_FORMULAS_JS)


def _problems(report, requested, failed):
    """What would spoil the PDF: the page's own report, outside and failed requests."""
    problems = list(report["problems"])
    problems += [f"request leaves the machine: {url}" for url in requested if _outside(url)]
    problems += [
        f"request failed: {url}"
        for url in failed
        if not _outside(url) and urlsplit(url).path not in IGNORED_FAILURES
    ]
    return problems


def print_pdf(site, page, output):
    """Print ``site/page`` to ``output``; return counts of formulas and images; raise on a defect."""
    from playwright.sync_api import sync_playwright

    source = Path(site) / page
    if not source.is_file():
        raise FileNotFoundError(f"{source} not found: build the singlehtml book first")
    at_top = Path(site) / (Path(output).stem + ".html")
    at_top.write_bytes(source.read_bytes())
    requested, failed = [], []
    with serve(site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.fspath(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            tab = browser.new_page()
            tab.on("request", lambda request: requested.append(request.url))
            tab.on("requestfailed", lambda request: failed.append(request.url))
            tab.goto(f"{base}/{at_top.name}", wait_until="networkidle", timeout=120_000)
            # "networkidle" can come before the load event on this 3.5 MB page, while
            # MathJax (a deferred script) has not replaced its configuration object yet;
            # PREPARE_JS would then find no startup promise to wait for and report every
            # formula untypeset.  Wait for the load event and for MathJax itself.
            tab.wait_for_load_state("load", timeout=120_000)
            tab.wait_for_function(
                "() => !document.querySelector('.math') || "
                "(window.MathJax && MathJax.startup && MathJax.startup.promise)",
                timeout=120_000,
            )
            report = tab.evaluate(PREPARE_JS)
            report["scaled"] = _lay_out_for_paper(tab)
            problems = _problems(report, requested, failed)
            if problems:
                raise RuntimeError("not printing the PDF:\n  " + "\n  ".join(problems))
            Path(output).parent.mkdir(parents=True, exist_ok=True)
            tab.pdf(
                path=os.fspath(output),
                format=PAPER["format"],
                print_background=True,
                margin={side: f"{mm}mm" for side, mm in MARGIN_MM.items()},
                display_header_footer=True,
                header_template="<span></span>",
                footer_template=FOOTER,
                outline=True,
                tagged=True,
            )
        finally:
            browser.close()
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the singlehtml build directory")
    parser.add_argument("output", type=Path, help="the PDF to write")
    parser.add_argument(
        "--page",
        default="book/preface.html",
        help="the assembled page, relative to SITE (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)")
    start = time.monotonic()
    try:
        report = print_pdf(args.site, args.page, args.output)
    except (RuntimeError, FileNotFoundError) as error:
        sys.exit(str(error))
    size = args.output.stat().st_size / 1e6
    print(
        f"{args.output}: {size:.1f} MB, {report['formulas']} formulas typeset "
        f"({report['scaled']} wide ones scaled to the text width), {report['images']} images, "
        f"printed in {time.monotonic() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
