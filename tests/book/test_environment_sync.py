"""pyproject.toml and environment.yml must describe the same environment.

Two files list the dependencies, one for pip and one for conda.  These tests keep them
from drifting apart: the same packages with the same version specifiers, the conda
Python allowed by requires-python, and every pin explained by a comment in both files.
"""

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
