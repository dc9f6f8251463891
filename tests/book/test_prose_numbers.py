"""Every number the chapters' prose relies on is asserted by a cell of the same notebook.

A number in a markdown cell (in a sentence or in inline math) must be one that a code
cell of its notebook asserts (``book/_ext/asserted_numbers.py`` reads the checks: the
expected values, the bounds, the numbers in ``assert`` conditions, and an expected value's
tolerance interval), to the digits the prose shows; a percentage may match a fraction, and
centimetres, millimetres, milliseconds or grams a value in metres, seconds or kilograms.
What is not a result is listed below with the reason: an input the text states (and the
cell that uses it prints), a count, a year, a published value quoted from its source.
Integers below 10 are left out: they count things (two hands, three rows).
"""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import asserted_numbers  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: Numbers of the prose that are not results, per notebook: {number as written: reason}.
NOT_RESULTS = {
    "golf_downswing": {
        "1.80": "input: the stated golfer's height",
        "6.2": "published: Montgomery et al.'s increase of trunk rotation (R7)",
        "80": "input: the stated golfer's mass",
        "44": "published: the swing speed of Sprigings and Neal's study",
        "30": "published: Sprigings and Neal's best onset; input: the address wrist angle",
        "174": "published: MacKenzie et al.'s heads (input of the runs)",
        "190": "published: MacKenzie et al.'s heads",
        "200": "published: MacKenzie et al.'s heaviest head (input of the runs)",
        "69": "published: Nesbit and Serrano's shares",
        "72": "published: Nesbit and Serrano's shares",
        "18": "published: the handicap of Nesbit and Serrano's least skilled golfer",
        "0.04": "published: the whole-club study's difference of moments of inertia (input)",
        "0.1": "input: the onsets' lower bound",
        "441": "count: swings of the onset grid (21 x 21)",
        "47": "published: Tinmark et al.'s golfers (a count)",
        "1.70": "input: the population's stature range",
        "1.90": "input: the population's stature range",
        "70": "input: the population's body-mass range; the plane inclination's range",
        "50": "input: the population's plane-inclination range",
        "95": "input: the population's body-mass range",
        "0.83": "published: the measured head's coefficient of restitution (input); Worsfold "
        "et al.'s lead-foot range of vertical force",
        "45.9": "published: the ball's mass (input)",
        "1.87": "published: MacKenzie's rigid-shaft loss (a simulation result)",
        "20.2": "published: Nesbit and Serrano's share of the body's energy at the club",
        "26.8": "published: Nesbit and Serrano's share of the body's energy at the club",
        "20": "published: the same share, rounded",
        "27": "published: the same share, rounded",
        "40": "input: the address wrist angle's upper end; published: the low-handicap speeds' lower end",
        "137": "published: the adults of the trunk-mobility norm (a count)",
        "0.84": "published: Worsfold et al.'s lead-foot peak vertical force",
        "0.49": "published: Worsfold et al.'s trail-foot peak vertical force",
    },
    "parallel_mechanisms": {
        "16": "2^4, the Runge-Kutta order asserted in the step-size study",
        "22": "input: the trail hand's place on the shaft",
        "-400": "input: the figure's range of squeezes",
        "400": "input: the figure's range of squeezes",
        "25": "input: a step count of the study",
        "50": "input: a step count of the study",
        "200": "input: a step count of the study",
    },
    "parallel_mechanisms_exercises": {
        "0.15": "input: the right hand's position",
        "800": "input: the plate example's vertical force",
        "-30": "input: the plate example's tangential force",
        "100": "input: a force of the example; a step count of the study",
        "25": "input: a step count of the study",
        "20": "input: a step count of the study",
    },
    "spatial_algebra": {
        "0.4": "input: the centre of mass's offset",
        "0.15": "input: half the cylinder's length",
        "10": "input: the example's force; the base of a power of ten",
        "0.25": "input: link 2's centre of mass",
    },
    "spatial_algebra_exercises": {
        "0.30": "input: the link length",
        "0.3": "input: the link length",
        "11": "count: the exercise's number",
        "90": "input: the exercise's rotation",
        "16": "2^4, the definition of fourth order",
    },
    "using_geomotion": {
        "3.11": "the Python version the book needs",
        "0.30": "input: a link length",
        "0.27": "input: a link length",
        "1.2": "input: a link mass",
        "0.19": "input: a link length",
        "0.8": "input: the four-bar's link length",
        "0.6": "input: the four-bar's link length",
        "0.7": "input: the four-bar's link length",
        "60": "input: the four-bar's crank angle",
        "2.45": "the holding torque, asserted as 9.81 x 0.25",
        "700": "input: the synthetic record's peak load",
        "50": "input: the horizon's steps and step",
    },
}

NUMBER = re.compile(r"(?<![\w.\\{^_])-?\d+(?:,\d{3})*(?:\.\d+)?(?![\w}])")


def prose(text):
    """The markdown without what is not prose: roles, labels, headings, code, display math."""
    text = re.sub(r"\{[\w:]+\}`[^`]*`", " ", text)  # {cite}`...`, {eq}`...`, {doc}`...`
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\([\w-]+\)=", " ", text)
    text = re.sub(r"^#+ .*$", " ", text, flags=re.M)
    text = re.sub(r"\$\$.*?\$\$(\s*\([\w-]+\))?", " ", text, flags=re.S)  # equations
    return text


def numbers(text):
    """(number as written, value, scale) of each number: the scale is 100 before a percent
    sign and 1000 before mm, ms or g (a fraction, metres, seconds or kilograms asserted)."""
    found = []
    for m in NUMBER.finditer(text):
        after = text[m.end() : m.end() + 6].lstrip("$ \\,")
        scale = (
            100 if re.match(r"(%|cm\b)", after) else 1000 if re.match(r"(mm|ms|g)\b", after) else 1
        )
        found.append((m.group(), float(m.group().replace(",", "")), scale))
    return found


def asserted(cells):
    """(values, ends): every number a check of the notebook holds, and the ends of the
    tolerance intervals of expected values (which the prose may quote, "between 3.8 and
    4.2", and which must then match exactly)."""
    values, ends = [], []
    for row in asserted_numbers.notebook_rows(cells):
        found = [v for _, v, _ in numbers(row.value + " " + row.what)]
        values += found
        tolerance = re.search(r"atol ([\d.e-]+)", row.tolerance)
        if tolerance:
            ends += [v + s * float(tolerance.group(1)) for v in found for s in (-1, 1)]
    return values, ends


def matches(text, value, scale, checked):
    """Whether ``value``, written as ``text``, is one of the ``checked`` values to the digits
    shown (a percentage or a milli-unit against ``scale`` times it), or exactly one end of
    a tolerance interval."""
    values, ends = checked
    digits = len(text.split(".")[1]) if "." in text else 0
    half = 0.5 * 10.0**-digits * (1 + 1e-9)
    near = any(abs(abs(value) - s * abs(v)) <= half for v in values for s in {1, scale})
    return near or any(abs(value - s * v) <= 1e-9 * abs(value) for v in ends for s in {1, scale})


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_number_of_the_prose_is_asserted_or_declared(path):
    cells = json.loads(path.read_text())["cells"]
    checked = asserted(cells)
    allowed = NOT_RESULTS.get(path.stem, {})
    missing = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for text, value, scale in numbers(prose("".join(cell["source"]))):
            if abs(value) < 10 and "." not in text:
                continue  # a count
            if not matches(text, value, scale, checked) and text not in allowed:
                missing.append(f"cell {index}: {text}")
    assert not missing, "numbers of the prose that no cell asserts:\n" + "\n".join(missing)
    unused = set(allowed) - {
        text
        for c in cells
        if c["cell_type"] == "markdown"
        for text, _, _ in numbers(prose("".join(c["source"])))
    }
    assert not unused, f"declared but not in the prose any more: {sorted(unused)}"


def test_the_check_sees_an_unasserted_number():
    cells = [
        {"cell_type": "markdown", "source": "The peak is 3870 N, or 4.9 body weights."},
        {"cell_type": "code", "source": 'assert_close("peak", f, 3870, atol=20, unit="N")'},
    ]
    checked = asserted(cells)
    found = numbers(prose(cells[0]["source"]))
    assert [matches(text, value, scale, checked) for text, value, scale in found] == [True, False]
