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
    return [("#" * level, title) for level, title in all_headings(path) if level <= 3]


@pytest.mark.parametrize("notebook", sorted(CHAPTERS))
def test_chapter_headings_are_the_source_chapters(notebook):
    expected = CHAPTERS[notebook]
    assert headings(ROOT / notebook) == expected
    assert sum(level == "##" for level, _ in expected) == 12
    assert sum(level == "###" for level, _ in expected) == 22


# The exercises: one title pattern, and each exercise numbered exactly once.

TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
NUMBERED_PART = next(part for part in TOC["parts"] if part.get("numbered"))
EXERCISES = {
    chapter["file"]: section["file"]
    for chapter in NUMBERED_PART["chapters"]
    for section in chapter.get("sections", [])
    if section["file"].endswith("_exercises") or section["file"].endswith("_exercises.ipynb")
}
#: A heading that carries its own number: "1. Motion Operator", "12. Dual-Quaternion Scope".
OWN_NUMBER = re.compile(r"^(\d+)\.\s")


def notebook_path(entry):
    return ROOT / (entry if entry.endswith(".ipynb") else f"{entry}.ipynb")


def all_headings(path):
    """(level, title) of every heading of levels 1-6, in order (code fences skipped)."""
    found = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        fenced = False
        for line in "".join(cell["source"]).splitlines():
            if line.lstrip().startswith(("```", ":::")):
                fenced = not fenced
            match = re.match(r"^(#{1,6})\s+(.*?)\s*$", line)
            if match and not fenced:
                found.append((len(match.group(1)), match.group(2)))
    return found


def toc_depths():
    """Depth in the numbered toctree of each of its notebooks: chapter 1, section 2."""
    depths = {}
    for chapter in NUMBERED_PART["chapters"]:
        depths[chapter["file"]] = 1
        for section in chapter.get("sections", []):
            depths[section["file"]] = 2
    return depths


#: The closing case study: the book's own chapter, with no source chapter to mirror and no
#: exercise list; every other chapter mirrors a source chapter and has its exercises.
CASE_STUDY = "notebooks/golf_downswing"


def test_every_source_chapter_has_its_exercises():
    """Each chapter but the case study has its exercises notebook; the case study has none."""
    chapters = [chapter["file"] for chapter in NUMBERED_PART["chapters"]]
    assert chapters[-1] == CASE_STUDY, "the case study closes the numbered chapters"
    assert sorted(EXERCISES) == sorted(chapters[:-1])


@pytest.mark.parametrize("chapter", sorted(EXERCISES))
def test_exercise_titles_follow_one_pattern(chapter):
    """The title is "Exercises and Worked Answers: <the chapter's title>" in every chapter."""
    (chapter_title,) = [t for level, t in all_headings(notebook_path(chapter)) if level == 1]
    titles = [t for level, t in all_headings(notebook_path(EXERCISES[chapter])) if level == 1]
    assert titles == [f"Exercises and Worked Answers: {chapter_title}"]


@pytest.mark.parametrize("notebook", sorted(toc_depths()))
def test_headings_are_numbered_once(notebook):
    """A heading with its own number lies below the depth Sphinx numbers, and the numbers run 1, 2, 3.

    Sphinx numbers a heading of level L in a notebook at toc depth d when
    d + L - 1 <= the part's ``numbered`` depth (``true`` means every depth); a heading
    that also writes its number would read "2.13.1. 1. Velocity ...".
    """
    numbered = NUMBERED_PART["numbered"]
    limit = float("inf") if numbered is True else int(numbered)
    depth = toc_depths()[notebook]
    own = [
        (level, title)
        for level, title in all_headings(notebook_path(notebook))
        if OWN_NUMBER.match(title)
    ]
    twice = [title for level, title in own if depth + level - 1 <= limit]
    assert not twice, f"numbered by Sphinx (numbered: {numbered}) and by hand: {twice}"
    numbers = [int(OWN_NUMBER.match(title).group(1)) for _, title in own]
    assert numbers == list(range(1, len(numbers) + 1)), f"hand-numbered headings: {numbers}"
    if notebook in EXERCISES.values():
        assert len(numbers) >= 8, "the exercises are numbered by hand"
