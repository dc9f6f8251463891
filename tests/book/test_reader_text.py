"""What a reader meets around the chapters: the prose pages and the way to open the book.

* The pages are written for readers, who never see the project's issue tracker: no prose
  page of book/ names an issue by its number ("the targets are issue 24's" told a reader
  nothing), and neither does the text that bench/bench_dynamics.py writes into
  book/speed.md at the next `make bench`.
* `make serve` serves the built book over HTTP on this machine only, without building it
  again: opened as a file, the search page loses the snippets of its results.
"""

import ast
import os
import re
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
BENCH = ROOT / "bench" / "bench_dynamics.py"

#: "issue 24", "Issue 21's", "issues 21 and 24", "issue #36"
ISSUE_NUMBER = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)


def prose_pages():
    """Every markdown page under book/ (the book's own pages, not its tools)."""
    return sorted(
        path for path in BOOK.rglob("*.md") if not path.relative_to(BOOK).parts[0].startswith("_")
    )


def test_no_prose_page_names_an_issue_number():
    pages = prose_pages()
    assert BOOK / "preface.md" in pages and BOOK / "speed.md" in pages
    found = [
        f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}"
        for path in pages
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in ISSUE_NUMBER.finditer(line)
    ]
    assert not found, "prose pages name issue numbers (say what is meant):\n  " + "\n  ".join(found)


def test_the_benchmark_writes_no_issue_number_into_the_book():
    """The strings of write_page, the function that writes book/speed.md (its comments may)."""
    tree = ast.parse(BENCH.read_text(encoding="utf-8"))
    write_page = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "write_page"
    )
    strings = [
        node.value
        for node in ast.walk(write_page)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    text = " ".join(strings)
    assert "Speed against Pinocchio" in text, "write_page no longer writes the page's title"
    found = ISSUE_NUMBER.findall(text)
    assert not found, f"bench/bench_dynamics.py writes issue numbers into book/speed.md: {found}"


def make_dry_run(*arguments):
    """The commands `make -n ...` would run in the repository (none of them is run)."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PORT"}
    }
    result = subprocess.run(
        ["make", "--no-print-directory", "-n", *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def test_make_serve_serves_the_build_on_this_machine_only():
    for arguments, port in [(["serve"], "8000"), (["serve", "PORT=8123"], "8123")]:
        commands = make_dry_run(*arguments)
        servers = [line for line in commands.splitlines() if "http.server" in line]
        assert len(servers) == 1, commands
        words = shlex.split(servers[0])
        assert words[1:4] == ["-m", "http.server", port], servers[0]
        assert words[words.index("--bind") + 1] == "127.0.0.1", servers[0]
        assert words[words.index("--directory") + 1] == "_build/html", servers[0]
        # it serves what is there: no build, no install
        assert not re.search(r"jupyter-book|pip install|nbconvert", commands), commands
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert "serve" in phony.group(1).replace("\\\n", " ").split()
