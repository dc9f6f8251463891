"""Each chapter notebook mirrors its source chapter: the same section titles, order and levels.

The expected headings are the source chapter's (seed 004 for chapter 2), copied once into
``chapter_headings.yml`` so that the check does not depend on files outside the
repository.  A renamed, dropped, reordered or re-levelled heading fails the test.
"""

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


CHAPTERS = {
    notebook: [tuple(heading) for heading in expected]
    for notebook, expected in yaml.safe_load(
        (Path(__file__).with_name("chapter_headings.yml")).read_text()
    ).items()
}


def headings(path):
    """(level, title) of the notebook's headings of levels 1-3, in order (code fences skipped)."""
    found = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        fenced = False
        for line in "".join(cell["source"]).splitlines():
            if line.lstrip().startswith(("```", ":::")):
                fenced = not fenced
            match = re.match(r"^(#{1,3})\s+(.*?)\s*$", line)
            if match and not fenced:
                found.append((match.group(1), match.group(2)))
    return found


@pytest.mark.parametrize("notebook", sorted(CHAPTERS))
def test_chapter_headings_are_the_source_chapters(notebook):
    expected = CHAPTERS[notebook]
    assert headings(ROOT / notebook) == expected
    assert sum(level == "##" for level, _ in expected) == 12
    assert sum(level == "###" for level, _ in expected) == 22
