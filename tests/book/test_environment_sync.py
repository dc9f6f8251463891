"""pyproject.toml and environment.yml must describe the same environment.

Two files list the dependencies, one for pip and one for conda.  These tests keep them
from drifting apart: the same packages with the same version specifiers, the conda
Python allowed by requires-python, and every pin explained by a comment in both files.
"""

import json
import re
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
ENVIRONMENT = ROOT / "environment.yml"

# Operators that pin a version or cap it from above: each needs a reason next to it.
NARROW = {"==", "===", "~=", "<", "<="}


def pyproject_requirements():
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    extras = project["optional-dependencies"]
    return [*project["dependencies"], *extras["book"], *extras["test"]]


def conda_entries():
    """(conda specs, pip specs) of environment.yml, without python and pip themselves."""
    conda, pip = [], []
    for entry in yaml.safe_load(ENVIRONMENT.read_text())["dependencies"]:
        if isinstance(entry, dict):
            pip.extend(entry["pip"])
        elif entry.split("=")[0] not in {"python", "pip"}:
            conda.append(entry)
    return conda, pip


def by_name(specs):
    parsed = {}
    for spec in specs:
        req = Requirement(spec)
        name = canonicalize_name(req.name)
        assert name not in parsed, f"{name} listed twice"
        parsed[name] = req.specifier
    return parsed


def test_same_packages_and_versions():
    conda, pip = conda_entries()
    expected = by_name(pyproject_requirements())
    found = by_name(conda + pip)
    assert sorted(found) == sorted(expected), (
        f"only in pyproject.toml: {sorted(set(expected) - set(found))}; "
        f"only in environment.yml: {sorted(set(found) - set(expected))}"
    )
    differing = {
        name: (str(expected[name]), str(found[name]))
        for name in expected
        if expected[name] != found[name]
    }
    assert not differing, f"version specifiers differ (pyproject, environment.yml): {differing}"


def test_conda_python_satisfies_requires_python():
    requires = tomllib.loads(PYPROJECT.read_text())["project"]["requires-python"]
    pythons = [
        entry
        for entry in yaml.safe_load(ENVIRONMENT.read_text())["dependencies"]
        if isinstance(entry, str) and entry.startswith("python=")
    ]
    assert len(pythons) == 1, f"environment.yml must pin one Python, found {pythons}"
    version = pythons[0].removeprefix("python=")
    assert SpecifierSet(requires).contains(version), f"python={version} violates {requires}"


def test_every_pin_has_a_reason():
    """A pin or upper bound without a comment is a pin nobody dares to lift."""
    conda, pip = conda_entries()
    unexplained = []
    for path, specs in [(PYPROJECT, pyproject_requirements()), (ENVIRONMENT, conda + pip)]:
        lines = path.read_text().splitlines()
        for spec in specs:
            if not any(s.operator in NARROW for s in Requirement(spec).specifier):
                continue
            line = next(line for line in lines if spec in line)
            if "#" not in line.split(spec, 1)[1]:
                unexplained.append(f"{path.name}: {spec}")
    python_line = next(line for line in ENVIRONMENT.read_text().splitlines() if "- python=" in line)
    if "#" not in python_line:
        unexplained.append(f"{ENVIRONMENT.name}: {python_line.strip()}")
    assert not unexplained, f"pins without a comment saying why: {unexplained}"


# Reading the book needs only the `book` extra; the checks add the `test` extra.

MAKEFILE = ROOT / "Makefile"
#: The targets a reader runs: they must work with `pip install -e '.[book]'` alone.
READER_TARGETS = ["book", "pdf", "lab", "notebooks"]
#: Modules that only the `test` extra provides.
TEST_ONLY_MODULES = {"pinocchio", "mujoco", "hypothesis", "pytest", "nbval", "ruff"}


def make_rules():
    """{target: (prerequisites, recipe lines)} of the Makefile's explicit rules."""
    rules, current = {}, None
    for line in MAKEFILE.read_text().splitlines():
        rule = re.match(r"^([^\s:=#][^:=]*):(?!=)\s*(.*)$", line)
        if rule and not line.startswith(".PHONY"):
            current = rule.group(1).strip()
            rules[current] = (rule.group(2).split(), [])
        elif line.startswith("\t") and current:
            rules[current][1].append(line.strip())
        elif line.strip() and not line.startswith("\t"):
            current = None  # a comment or an assignment ends the recipe
    return rules


def prerequisites(target, rules):
    """Every target that `make target` builds first, recursively."""
    seen, todo = set(), [target]
    while todo:
        for prerequisite in rules.get(todo.pop(), ((), ()))[0]:
            if prerequisite not in seen:
                seen.add(prerequisite)
                todo.append(prerequisite)
    return seen


def test_reader_targets_install_only_the_book_extra():
    rules = make_rules()
    installs = {
        stamp: [line.split("pip install", 1)[1].strip() for line in recipe if "pip install" in line]
        for stamp, (_, recipe) in rules.items()
        if stamp in {"$(BOOK_STAMP)", "$(TEST_STAMP)"}
    }
    assert installs == {"$(BOOK_STAMP)": ["-e '.[book]'"], "$(TEST_STAMP)": ["-e '.[book,test]'"]}
    assert "pyproject.toml" in rules["$(BOOK_STAMP)"][0], "re-install when pyproject.toml changes"
    for target in READER_TARGETS:
        needs = prerequisites(target, rules)
        assert "$(BOOK_STAMP)" in needs and "$(TEST_STAMP)" not in needs, (target, sorted(needs))
    for target in ["test", "print-pdf", "format", "bench", "floors"]:
        assert "$(TEST_STAMP)" in prerequisites(target, rules), target
    # every target that runs notebooks compiles the kernels first (no cell pauses to compile),
    # by a step that always runs (it only loads a current cache): not a file stamp, which
    # `make clean` or `git clean` would leave behind with the cache gone
    for target in [*READER_TARGETS, "test", "test-notebooks", "test-book-build", "bench"]:
        assert "kernels" in prerequisites(target, rules), target
    assert "kernels-second-isa" in prerequisites("test-notebooks-second-isa", rules)
    phony = " ".join(line for line in MAKEFILE.read_text().split("\n\n") if ".PHONY:" in line)
    assert "kernels" in phony.split() and "kernels-second-isa" in phony.split()
    assert rules["kernels"][1] == ["$(COMPILE_KERNELS)"]
    assert re.search(
        r"^COMPILE_KERNELS = .*\n.*tree\.compile_kernels\(\)", MAKEFILE.read_text(), re.M
    )


def test_make_test_runs_every_companion_test_in_one_of_two_layers():
    """The tests marked slow leave the companion layer for a layer of their own, not make test."""
    text = MAKEFILE.read_text()
    layers = re.search(r"^TEST_LAYERS = ((?:.*\\\n)*.*)$", text, re.M).group(1)
    layers = layers.replace("\\\n", " ").split()
    assert {"test-companion", "test-companion-slow"} <= set(layers), layers
    rules = make_rules()
    fast, slow = (" ".join(rules[name][1]) for name in ("test-companion", "test-companion-slow"))
    assert '$(PYTEST) tests/companion -m "not slow" --doctest-modules companion/geomotion' in fast
    assert "$(PYTEST) tests/companion -m slow" in slow
    marked = [
        path.name
        for path in sorted((ROOT / "tests" / "companion").glob("test_*.py"))
        if "pytest.mark.slow" in path.read_text()
    ]
    assert marked, "no companion test is marked slow: the slow layer would collect nothing"


def test_the_second_instruction_set_changes_numpy_openblas_and_the_kernels():
    """`make test` runs the notebooks again with other SIMD paths (.ci/second_isa_env.py)."""
    import platform
    import subprocess
    import sys

    settings = subprocess.run(
        [sys.executable, ROOT / ".ci" / "second_isa_env.py", "/tmp/cache"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    names = dict(setting.split("=", 1) for setting in settings)
    assert names["NUMBA_CPU_NAME"] == "generic" and names["NUMBA_CACHE_DIR"] == "/tmp/cache"
    if platform.machine() == "x86_64":
        assert names["OPENBLAS_CORETYPE"] == "Nehalem"
    rules = make_rules()
    recipe = " ".join(rules["test-notebooks-second-isa"][1])
    assert "env $(SECOND_ISA) $(NBVAL) notebooks/" in recipe
    assert "--nbval-sanitize-with notebooks/nbval-sanitize.cfg" in MAKEFILE.read_text()


def test_the_book_imports_nothing_test_only():
    """What `make book` executes or loads (notebooks, book/_ext, book/_tools) works without the test extra."""
    sources = {
        path: "\n".join(
            "".join(cell["source"])
            for cell in json.loads(path.read_text())["cells"]
            if cell["cell_type"] == "code"
        )
        for path in sorted((ROOT / "notebooks").glob("*.ipynb"))
    }
    sources |= {path: path.read_text() for path in sorted((ROOT / "book").glob("_*/*.py"))}
    assert len(sources) >= 8
    found = {
        path.relative_to(ROOT).as_posix(): sorted(modules)
        for path, text in sources.items()
        if (
            modules := set(re.findall(r"^\s*(?:from|import)\s+(\w+)", text, re.M))
            & TEST_ONLY_MODULES
        )
    }
    assert not found, f"test-only modules imported by the book: {found}"
