"""The golf case study's sourced numbers (geomotion.models.golf_data) and de Leva's tables.

Independent checks: unit conversions redone here from the sources' own units (inches,
mph, g cm^2), the measured head's principal moments as the source prints them, the
bibliography read from book/references.bib, and the realizability of the female hand's
two transcriptions.
"""

import importlib
import pathlib
import re

import numpy as np
import pytest

from geomotion import models
from geomotion.models import body_segments, golf_data
from geomotion.models.golf_data import DATA, Datum

REPO = pathlib.Path(__file__).resolve().parents[2]

#: The bibliography keys the case study cites (the brief's list, typed here).
BRIEF_KEYS = {  # the golf data sheets' sources
    "deLeva1996",
    "ISEA2020Head",
    "ISEA2020ClubMOI",
    "USGARules",
    "USGADistance2015",
    "MacKenzie2015",
    "Fradkin2004",
    "SprigingsNeal2000",
    "White2006",
    "NesbitSerrano2005",
    "ClubComponentTrade",
    # the addendum's sources (../shared/data/golf_sources_addendum.md)
    "Zheng2008a",
    "Zheng2008b",
    "Steele2018",
    "Vena2011",
    "GroberCholewicki",
    "McNallyMcPhee2018",
    "Tinmark2010",
    "NesbitMcGinnis2014",
    # issue 39's force-plate comparisons (addendum section 3)
    "Worsfold2007",
    "Worsfold2008",
    "Okuda2010",
    "BallBest2011",
}


def test_sources_are_the_brief_keys_and_every_datum_cites_one():
    assert set(golf_data.SOURCES) == BRIEF_KEYS
    assert {d.source for d in DATA.values()} <= BRIEF_KEYS


def test_every_source_key_is_in_the_bibliography():
    bib = (REPO / "book" / "references.bib").read_text()
    keys = set(re.findall(r"@\w+\{([^,\s]+),", bib))
    assert BRIEF_KEYS - keys == set()


def test_every_trade_value_has_a_range_that_holds_it():
    trade = [d for d in DATA.values() if d.strength == "trade"]
    assert len(trade) >= 4
    for d in trade:
        assert d.low is not None and d.high is not None
        assert d.low <= np.min(d.value) and np.max(d.value) <= d.high


def test_datum_refuses_a_trade_value_without_range_and_unknown_keys():
    with pytest.raises(ValueError, match="low, high"):
        Datum(0.2, "kg", "ClubComponentTrade", "trade", "no range")
    with pytest.raises(ValueError, match="source"):
        Datum(0.2, "kg", "Jorgensen1994", "measured", "a code value")
    with pytest.raises(ValueError, match="strength"):
        Datum(0.2, "kg", "ISEA2020Head", "code", "not a strength of the book")
    with pytest.raises(ValueError, match="value"):
        Datum(0.3, "kg", "ClubComponentTrade", "trade", "outside", low=0.1, high=0.2)
    with pytest.raises(TypeError, match="note"):
        Datum(0.2, "kg", "ISEA2020Head", "measured", None)


def test_unit_conversions_from_the_sources_units():
    inch, mph = 0.0254, 1609.344 / 3600
    assert DATA["max_club_length"].value == pytest.approx(48 * inch, abs=1e-12)
    assert DATA["club_length"].low == pytest.approx(44 * inch, abs=1e-12)
    assert DATA["club_length"].high == pytest.approx(46 * inch, abs=1e-12)
    assert DATA["tour_mean_clubhead_speed"].value == pytest.approx(113.2 * mph, abs=0.01)
    assert DATA["max_head_moi"].value == pytest.approx(5900 * 1e-3 * 1e-4, rel=1e-12)
    assert DATA["wrist_best_onset_arm_angle"].value == pytest.approx(30 * np.pi / 180)


def test_head_principal_moments_as_published_and_within_the_rule():
    moments = np.linalg.eigvalsh(np.reshape(DATA["head_inertia"].value, (3, 3)))
    assert moments * 1e7 == pytest.approx([2497, 4244, 5866], abs=1.0)
    assert moments.max() < DATA["max_head_moi"].value


@pytest.mark.parametrize(
    "build",
    [lambda length: models.driver(length=length), lambda length: models.golfer(club_length=length)],
    ids=["driver", "golfer"],
)
def test_the_club_length_limit_is_48_in_inclusive(build):
    """The rules (USGARules): a club other than a putter must not exceed 48 in = 1.2192 m.

    48 in itself is legal, in either spelling (``48 * 0.0254`` rounds a little below the
    double nearest 1.2192), and a club a nanometre longer, or 48.01 in, is not: both
    sides of the boundary, for both golfers' clubs.
    """
    assert golf_data.MAX_CLUB_LENGTH == pytest.approx(1.2192, rel=1e-15)
    for legal in (48 * 0.0254, 1.2192):
        build(legal)
    for illegal in (1.2192 * (1 + 1e-9), 48.01 * 0.0254):
        with pytest.raises(ValueError, match="length: expected at most 48 in"):
            build(illegal)


def test_the_3d_golfer_uses_the_one_club_inertia_and_head():
    golfer3d = importlib.import_module("geomotion.models._golfer3d")
    assert golfer3d.club_spatial_inertia is golf_data.club_spatial_inertia
    assert golfer3d.CLUB_HEAD is golf_data.CLUB_HEAD


def test_de_leva_by_sex():
    assert body_segments.de_leva("male") is body_segments.DE_LEVA_MALE
    female = body_segments.de_leva("female")
    assert set(female) == {"upper_arm", "forearm", "hand", "trunk"}
    assert female["trunk"].mass < body_segments.DE_LEVA_MALE["trunk"].mass
    for bad in ("Male", "f", None):
        with pytest.raises(ValueError, match="sex"):
            body_segments.de_leva(bad)


def test_female_hand_transcriptions_only_the_kept_one_is_realizable():
    # Principal moments of a rigid body obey I_sag <= I_trans + I_long; with radii of one
    # length that is r_sag^2 <= r_trans^2 + r_long^2.
    hand = body_segments.DE_LEVA_FEMALE["hand"]
    bound = hand.r_transverse**2 + hand.r_longitudinal**2
    assert hand.r_sagittal**2 <= bound
    assert body_segments.FEMALE_HAND_SAGITTAL_ALTERNATIVE**2 > bound


def test_segment_central_inertia_broadcasts_like_single_calls():
    row = body_segments.DE_LEVA_FEMALE["forearm"]
    masses, lengths = np.array([55.0, 70.0, 90.0]), np.array([0.24, 0.26, 0.29])
    batch = body_segments.segment_central_inertia(row, body_mass=masses, length=lengths)
    for i in range(3):
        m = row.mass * masses[i]
        expected = [m, m * (row.r_sagittal * lengths[i]) ** 2]
        assert batch[i, [0, 1]] == pytest.approx(expected, rel=1e-14)


def test_the_addendum_numbers_are_transcribed_in_their_units():
    degrees = {
        k: np.degrees(DATA[k].value)
        for k in ("pga_shaft_angular_velocity", "lpga_shaft_angular_velocity")
    }
    np.testing.assert_allclose(degrees["pga_shaft_angular_velocity"], [2413.0, 442.0])
    np.testing.assert_allclose(degrees["lpga_shaft_angular_velocity"], [2049.0, 512.0])
    tempo = DATA["tempo_downswing_time"]  # 7-10 frames at 30 Hz, typically 8
    assert (tempo.low, tempo.value, tempo.high) == pytest.approx((0.2333, 0.2667, 0.3333), abs=1e-4)


def test_added_inertia_moves_only_the_moment_of_inertia():
    base, heavier = models.driver(), models.driver(added_inertia=0.04)
    assert heavier.inertia_butt - base.inertia_butt == pytest.approx(0.04, abs=1e-15)
    assert heavier.mass == base.mass and heavier.balance_point == base.balance_point
    with pytest.raises(ValueError, match="added_inertia"):
        models.driver(added_inertia=-0.01)
