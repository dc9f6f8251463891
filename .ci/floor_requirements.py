"""Print the declared dependency floors as exact pins, one per line, for `make floors`.

The floors are the lower bounds (``>=``) of the package's own dependencies in
pyproject.toml and of the two book dependencies that the package imports
(matplotlib for geomotion.figures, ipywidgets for geomotion.widgets).  `make floors`
installs exactly these versions in .venv-floors and runs the companion tests there, so
that every declared floor is one a run has passed.
"""

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
IMPORTED_BOOK_EXTRAS = {"matplotlib", "ipywidgets"}


def floor_pins():
    """``name==version`` for each lower bound the package's imports depend on."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    book = [
        Requirement(spec)
        for spec in project["optional-dependencies"]["book"]
        if Requirement(spec).name in IMPORTED_BOOK_EXTRAS
    ]
    pins = []
    for requirement in [*map(Requirement, project["dependencies"]), *book]:
        lowers = [s.version for s in requirement.specifier if s.operator == ">="]
        if not lowers:
            raise SystemExit(f"{requirement}: expected a lower bound (>=) to test at")
        pins.append(f"{requirement.name}=={lowers[0]}")
    return pins


if __name__ == "__main__":
    print("\n".join(floor_pins()))
