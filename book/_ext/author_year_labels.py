"""Author-year labels for the bibliography list and the citations in the text, alike.

sphinxcontrib-bibtex labels the bibliography list with the formatting style's labels
(pybtex's default "alpha" gives ``[BL04]``), while an ``author_year`` reference style
writes citations as "Bullo and Lewis, 2004": the reader cannot match one with the
other.  This extension registers

* a pybtex label style that writes "Featherstone, 2008", "Bullo and Lewis, 2004",
  "Murray et al., 1994" (three or more authors), with a letter after the year when
  one author has several works of one year ("Featherstone, 2008a" and "2008b"), and
  "n.d." when a work has no year;
* a pybtex formatting style, ``geomotion_author_year``: pybtex's ``unsrt`` with those
  labels, sorted by author, year and title;
* a sphinxcontrib-bibtex reference style, ``geomotion_label``: citations show those
  same labels, in square brackets as in the list, separated by semicolons because the
  labels contain commas: "[Featherstone, 2008a; Lynch and Park, 2017]".

_config.yml selects the two styles (``bibtex_default_style`` and
``bibtex_reference_style``).
"""

from collections import Counter
from dataclasses import dataclass, field
from itertools import count
from string import ascii_lowercase

import pybtex.plugin
import sphinxcontrib.bibtex.plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.label import LabelReferenceStyle

FORMATTING_STYLE = "geomotion_author_year"
REFERENCE_STYLE = "geomotion_label"


def surname(person):
    """A person's surname as plain text ("van der Pol"), LaTeX markup decoded."""
    return Text.from_latex(" ".join(person.prelast_names + person.last_names)).render_as("text")


def authors_part(entry):
    """ "Zajac", "Bullo and Lewis" or "Murray et al." from the authors (or editors)."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [surname(person) for person in persons]
    if not names:
        return entry.fields.get("title", entry.key)
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al."


class AuthorYearLabelStyle(BaseLabelStyle):
    """Labels "Author, year", with a, b, ... after the year where they would coincide."""

    def format_labels(self, sorted_entries):
        bases = [
            f"{authors_part(entry)}, {entry.fields.get('year', 'n.d.')}" for entry in sorted_entries
        ]
        repeated = {base for base, n in Counter(bases).items() if n > 1}
        letters = {base: count() for base in repeated}
        for base in bases:
            yield base + (ascii_lowercase[next(letters[base])] if base in repeated else "")


class AuthorYearStyle(UnsrtStyle):
    """pybtex's unsrt entries with author-year labels, sorted by author, year, title."""

    default_label_style = AuthorYearLabelStyle
    default_sorting_style = "author_year_title"


def _square_brackets_semicolons():
    return BracketStyle(left="[", right="]", sep="; ")


@dataclass
class LabelSemicolonReferenceStyle(LabelReferenceStyle):
    """Citations by label in square brackets; several labels separated by semicolons."""

    bracket_parenthetical: BracketStyle = field(default_factory=_square_brackets_semicolons)
    bracket_textual: BracketStyle = field(default_factory=_square_brackets_semicolons)


def setup(app):
    pybtex.plugin.register_plugin("pybtex.style.formatting", FORMATTING_STYLE, AuthorYearStyle)
    sphinxcontrib.bibtex.plugin.register_plugin(
        "sphinxcontrib.bibtex.style.referencing", REFERENCE_STYLE, LabelSemicolonReferenceStyle
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
