"""The feet's rows over every admissible split, and positive controls of their rules
(models.LoadShare.vertical_range and lead_share; compare_peak_vertical,
compare_peak_torque and compare_lead_share).

Independent checks: the range's bounds against every corner of the box of per-sample
intervals (the range, max - min, is convex, so its largest is at a corner) and against
the test's own linear program for its least (scipy's linprog, minimise M - N with
N <= x_t <= M); random splits inside the intervals; the quadratic program's own split.
The trail foot's intervals use the vertical resultant of models.ground_wrench, not the
feet's sum.  The rules' edges are derived from golf_data.DATA and the rule each docstring
states, never read from the code under test.
"""

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from strategies import examples

from geomotion import contact, models
from geomotion.models import _feet_comparisons
from geomotion.models.golf_data import DATA

#: Round-off allowed between the linear programs' bounds and the splits, body weights.
TOL = 1e-7
#: "The last 20 % of the downswing" (compare_lead_share's docstring).
LATE = 0.2


@pytest.fixture(scope="module")
def chapter(golf_balanced):
    """The balanced motion, its feet, their LoadShare and the vertical resultant V_t at
    the certified samples, body weights (from the ground wrench, not the feet)."""
    golfer, down, feet = golf_balanced.golfer, golf_balanced.downswing, golf_balanced.feet
    share = models.load_share_indeterminacy(golfer, feet, down)
    k = feet.feasible
    demand = models.ground_wrench(golfer, down.q[k], down.v[k], down.a[k])
    return golfer, down, feet, share, demand[:, 5] / feet.body_weight


def _ranges(x):
    return x.max(axis=-1) - x.min(axis=-1)


def _corners(low, high):
    """Every corner of the box prod [low_t, high_t], (2^m, m)."""
    pick = np.array(list(itertools.product((0, 1), repeat=low.size)), dtype=bool)
    return np.where(pick, high, low)


def _least_range(low, high):
    """min over the box of max(x) - min(x): a linear program in (x, M, N)."""
    m = low.size
    cost = np.r_[np.zeros(m), 1.0, -1.0]
    rows = np.zeros((2 * m, m + 2))
    rows[:m, :m], rows[:m, m] = np.eye(m), -1.0  # x_t - M <= 0
    rows[m:, :m], rows[m:, m + 1] = -np.eye(m), 1.0  # N - x_t <= 0
    bounds = [(lo, hi) for lo, hi in zip(low, high)] + [(None, None)] * 2
    result = linprog(cost, A_ub=rows, b_ub=np.zeros(2 * m), bounds=bounds, method="highs")
    assert result.status == 0
    return result.fun


def _foot_intervals(share, vertical):
    """Each foot's per-sample interval, body weights: lead [l, u], trail [V - u, V - l]."""
    low, high = share.lead_vertical.T
    return {"lead": (low, high), "trail": (vertical - high, vertical - low)}


# ---------------------------------------------------------------------------
# The range's bounds, on intervals of any kind
# ---------------------------------------------------------------------------


@st.composite
def _intervals(draw):
    m = draw(st.integers(min_value=1, max_value=7))
    ends = st.floats(min_value=0.0, max_value=2.0, allow_nan=False)
    pairs = draw(st.lists(st.tuples(ends, ends), min_size=m, max_size=m))
    return np.array([min(p) for p in pairs]), np.array([max(p) for p in pairs])


@settings(max_examples=examples(200))
@given(_intervals())
def test_the_range_bounds_are_the_least_and_largest_over_the_box(box):
    low, high = box
    least, largest = _feet_comparisons._range_bounds(low, high)
    assert largest == pytest.approx(_ranges(_corners(low, high)).max(), abs=1e-12)
    assert least == pytest.approx(_least_range(low, high), abs=1e-9)


def test_one_sample_cannot_give_both_extremes():
    # The middle sample holds the largest upper end and the least lower end: one force
    # takes one value, so the largest range pairs it with another sample (0.9 - 0.2).
    low, high = np.array([0.2, 0.0, 0.3]), np.array([0.5, 0.9, 0.4])
    least, largest = _feet_comparisons._range_bounds(low, high)
    assert largest == pytest.approx(_ranges(_corners(low, high)).max())
    assert largest == pytest.approx(0.7) and largest < high.max() - low.min()
    # Overlapping intervals share a value (0.3 to 0.4): a split of zero range.
    assert least == 0.0 and low.max() - high.min() < 0
    np.testing.assert_array_equal(_feet_comparisons._range_bounds(low[:1], high[:1]), [0, 0])


# ---------------------------------------------------------------------------
# The chapter's balanced motion
# ---------------------------------------------------------------------------


def test_the_feet_add_up_to_the_resultant(chapter):
    _, _, feet, share, vertical = chapter
    total = feet.loads.vertical_force.sum(axis=1) / feet.body_weight
    np.testing.assert_allclose(total, vertical, atol=TOL)
    assert share.vertical_range.shape == (2, 2) and share.lead_share.shape == (2,)


@pytest.mark.parametrize("foot", ["lead", "trail"])
def test_every_split_s_range_lies_inside_and_the_ends_are_attained(chapter, foot):
    _, _, feet, share, vertical = chapter
    low, high = _foot_intervals(share, vertical)[foot]
    least, largest = share.vertical_range[("lead", "trail").index(foot)]
    assert least <= largest
    # Every corner of the box (2^m splits) and random splits inside it.
    corners = _ranges(_corners(low, high))
    assert corners.max() == pytest.approx(largest, abs=TOL)
    rng = np.random.default_rng(39)
    inside = _ranges(low + rng.random((20000, low.size)) * (high - low))
    assert (least - TOL <= inside).all() and (inside <= largest + TOL).all()
    assert least == pytest.approx(_least_range(low, high), abs=TOL)
    # The docstring's extremal splits: x_t = min(max l, u_t) for the least, and the
    # upper end at one sample with the lower end at another for the largest.
    flat = np.minimum(low.max(), high)
    assert (low - TOL <= flat).all()
    assert _ranges(flat) == pytest.approx(least, abs=TOL)
    s, t = np.unravel_index(
        np.argmax(high[:, None] - low[None, :] - np.diag(np.full(low.size, np.inf))),
        (low.size,) * 2,
    )
    spread = low.copy()
    spread[s] = high[s]
    assert s != t and _ranges(spread) == pytest.approx(largest, abs=TOL)
    # The quadratic program's own split is one of them.
    chosen = feet.loads.vertical_force[:, ("lead", "trail").index(foot)] / feet.body_weight
    assert least - TOL <= _ranges(chosen) <= largest + TOL
    assert (low - TOL <= chosen).all() and (chosen <= high + TOL).all()


def test_the_lead_share_covers_every_split_s_late_share(chapter):
    _, down, feet, share, vertical = chapter
    low, high = share.lead_vertical.T
    late = share.t >= (1.0 - LATE) * down.t[-1]
    assert late.any()
    least, largest = share.lead_share
    rng = np.random.default_rng(38)
    x = low[late] + rng.random((20000, late.sum())) * (high[late] - low[late])
    shares = x / vertical[late]
    assert (least - TOL <= shares).all() and (shares <= largest + TOL).all()
    # Attained: every late sample at its lower end, and at its upper end.
    assert (low[late] / vertical[late]).min() == pytest.approx(least, abs=TOL)
    assert (high[late] / vertical[late]).max() == pytest.approx(largest, abs=TOL)
    chosen = feet.loads.vertical_force[late]
    chosen = chosen[:, 0] / chosen.sum(axis=1)
    assert (least - TOL <= chosen).all() and (chosen <= largest + TOL).all()


def test_the_verdicts_over_every_admissible_split(chapter):
    """Whether each row's verdict is the motion's or the program's split's, with the
    rules' edges from DATA and the docstrings: every row with an admissible interval
    has the same verdict for every split (the lead range "yes"; the peaks, the trail
    range and the lead share "no"), so none is the program's choice alone."""
    _, down, feet, share, _ = chapter
    peak = DATA["driver_peak_vertical_force"].value
    span = DATA["driver_vertical_force_range"].value
    rows = {"lead share": models.compare_lead_share(feet, down).agrees}
    for foot in ("lead", "trail"):
        rows[f"vertical {foot}"] = models.compare_peak_vertical(feet, foot=foot).agrees
        rows[f"range {foot}"] = models.compare_vertical_range(feet, foot=foot).agrees
    # Peak: |p - P| <= 0.25 P; every split agrees, none does, or it depends.
    low_p, high_p = share.peak_vertical.T

    def verdict(none, every):
        return "none" if none else ("every" if every else "depends")

    over = {"lead share": verdict(share.lead_share[1] <= 0.5, share.lead_share[0] > 0.5)}
    for k, foot in enumerate(("lead", "trail")):
        band = (0.75 * peak[k], 1.25 * peak[k])
        over[f"vertical {foot}"] = verdict(
            high_p[k] < band[0] or low_p[k] > band[1],
            band[0] <= low_p[k] and high_p[k] <= band[1],
        )
        least, largest = share.vertical_range[k]
        over[f"range {foot}"] = verdict(least > 1.25 * span[k], largest <= 1.25 * span[k])
    assert over == {
        "lead share": "none",
        "vertical lead": "none",
        "range lead": "every",
        "vertical trail": "none",
        "range trail": "none",
    }
    # The program's verdict is one of the admissible ones.
    for name, agrees in rows.items():
        assert over[name] == "depends" or agrees == (over[name] == "every"), name


def _restricted(feet, keep):
    """feet at the certified samples ``keep`` (a mask over them) only: the same
    certified loads, fewer samples."""
    loads = dataclasses.replace(
        feet.loads,
        **{f.name: getattr(feet.loads, f.name)[keep] for f in dataclasses.fields(feet.loads)},
    )
    feasible = feet.feasible.copy()
    feasible[np.flatnonzero(feasible)[~keep]] = False
    return dataclasses.replace(feet, feasible=feasible, loads=loads)


def test_no_late_sample_has_no_share(chapter):
    golfer, down, feet, share, _ = chapter
    early = share.t < (1.0 - LATE) * down.t[-1]
    fewer = _restricted(feet, early)
    restricted = models.load_share_indeterminacy(golfer, fewer, down)
    assert restricted.lead_share is None
    assert not models.compare_lead_share(fewer, down).agrees
    np.testing.assert_allclose(restricted.lead_vertical, share.lead_vertical[early], atol=TOL)


# ---------------------------------------------------------------------------
# Positive controls: each rule can say yes
# ---------------------------------------------------------------------------


def _reshared(golfer, down, feet, lead, trail):
    """``feet`` with each foot's certified wrench scaled by its own positive factor at
    each sample (``lead``, ``trail``: scalars or (m,)).

    Not the loads of any motion computed here: the chapter's motion has no admissible
    split that agrees with these rows (test_the_verdicts_over_every_admissible_split), so
    an agreeing DownswingFeet of it would lie.  Instead each foot keeps its wrench's
    direction and centre of pressure, so it stays in its contact-wrench cone (a cone;
    checked here), and only the two feet's sum changes: the resultant is the new sum,
    ``resultant_error`` says how far it is from the motion's ground wrench, and what
    the program computed and no longer holds (joint torques, multipliers, residuals,
    the certificate) is NaN.  The rules read each foot's loads only, so this is what
    they test.
    """
    loads, m = feet.loads, feet.loads.vertical_force.shape[0]
    factor = np.stack(
        [np.broadcast_to(np.asarray(f, dtype=float), (m,)) for f in (lead, trail)], -1
    )
    assert (factor > 0).all()
    nan = {
        name: np.full(np.shape(getattr(loads, name)), np.nan)
        for name in ("tau", "multiplier", "equation_residual", "violation", "kkt_residual")
    }
    world = loads.wrench_world * factor[..., None]
    new = dataclasses.replace(
        loads,
        wrench_sole=loads.wrench_sole * factor[..., None],
        wrench_world=world,
        resultant=world.sum(axis=1),
        normal_force=loads.normal_force * factor,
        vertical_force=loads.vertical_force * factor,
        **nan,
    )
    cone = contact.contact_wrench_cone(golfer.sole_outline(), feet.friction_coefficient)
    assert (new.wrench_sole @ cone.face.T <= 1e-9 * feet.body_weight).all()
    weight = feet.body_weight
    k = feet.feasible
    demand = models.ground_wrench(golfer, down.q[k], down.v[k], down.a[k])
    cop = np.nan_to_num(new.cop_world)
    free = (world[..., :3] - np.cross(cop, world[..., 3:]))[..., 2]  # n_c = n_O - c x f
    return dataclasses.replace(
        feet,
        loads=new,
        peak_vertical=new.vertical_force.max(axis=0) / weight,
        peak_free_moment=np.abs(free).max(axis=0),
        resultant_error=float(np.abs((new.resultant - demand) / weight).max()),
        certificate=np.nan,
    )


def _shared(feet, share):
    """Per-sample factors giving the lead foot ``share`` (scalar or (m,)) of the feet's
    vertical load and the trail foot the rest: the vertical sum is kept."""
    vertical = feet.loads.vertical_force
    assert (vertical > 0).all()  # both feet loaded, so a factor exists
    total = vertical.sum(axis=1)
    return share * total / vertical[:, 0], (1.0 - share) * total / vertical[:, 1]


#: A relative step either side of a rule's edge.
STEP = 1e-6


def test_the_peak_vertical_rule_says_yes_inside_its_band(chapter):
    """The chapter's feet re-shared (_reshared: no admissible split of its motion
    agrees) so that the lead foot peaks at the published mean, just inside and just
    outside each edge of the rule's band."""
    golfer, down, feet, _, _ = chapter
    published = DATA["driver_peak_vertical_force"].value[0]  # lead foot, BW
    band = (0.75 * published, 1.25 * published)  # "within 25 % of the published mean"
    largest = (feet.loads.vertical_force.sum(axis=1) / feet.body_weight).max()
    verdicts = []
    for target in (
        published,
        band[0] * (1 + STEP),
        band[0] * (1 - STEP),
        band[1] * (1 - STEP),
        band[1] * (1 + STEP),
    ):
        # A constant lead share puts the lead foot's peak where the vertical sum peaks.
        other = _reshared(golfer, down, feet, *_shared(feet, target / largest))
        assert other.peak_vertical[0] == pytest.approx(target, rel=1e-12)
        assert other.resultant_error > 0.01  # not this motion's loads (docstring)
        verdicts.append(models.compare_peak_vertical(other, foot="lead").agrees)
    assert verdicts == [True, True, False, True, False]


def test_the_peak_torque_rule_says_yes_inside_its_band(chapter):
    """The trail foot's wrench scaled (_reshared) so that its peak free moment is the
    middle of the published range, just inside and just outside each widened edge."""
    golfer, down, feet, _, _ = chapter
    low, high = DATA["peak_vertical_torque"].value[1]  # trail foot, N m
    band = (low / 1.5, 1.5 * high)  # "within [low / 1.5, 1.5 high]"
    peak = feet.peak_free_moment[1]
    verdicts = []
    for target in (
        (low + high) / 2,
        band[0] * (1 + STEP),
        band[0] * (1 - STEP),
        band[1] * (1 - STEP),
        band[1] * (1 + STEP),
    ):
        other = _reshared(golfer, down, feet, 1.0, target / peak)
        assert other.peak_free_moment[1] == pytest.approx(target, rel=1e-9)
        row = models.compare_peak_torque(other, foot="trail")
        assert f"{target:.1f} N m" in row.model
        verdicts.append(row.agrees)
    assert verdicts == [True, True, False, True, False]
    assert not models.compare_peak_torque(feet, foot="trail").agrees  # the chapter's


def test_the_lead_share_rule_says_yes_when_the_lead_foot_carries_more(chapter):
    """The late samples re-shared (_reshared: the lead share's admissible interval is
    below one half) to 0.6 with the vertical sum kept, the last one also just either
    side of one half, or at 0.3."""
    golfer, down, feet, share, _ = chapter
    late = share.t >= (1.0 - LATE) * down.t[-1]
    assert late.sum() >= 2

    def verdict(last):
        # 0.6 at the late samples but the last, ``last`` there; the earlier as they are.
        ratio = feet.loads.vertical_force[:, 0] / feet.loads.vertical_force.sum(axis=1)
        target = np.where(late, 0.6, ratio)
        target[-1] = last
        other = _reshared(golfer, down, feet, *_shared(feet, target))
        vertical = other.loads.vertical_force[late]
        np.testing.assert_allclose(vertical[:, 0] / vertical.sum(axis=1), target[late])
        return models.compare_lead_share(other, down).agrees

    # "lead > trail at every certified sample of the last 20 %": the edge is one half.
    assert [verdict(s) for s in (0.6, 0.5 * (1 + STEP), 0.5 * (1 - STEP), 0.3)] == [
        True,
        True,
        False,
        False,
    ]
    assert share.t[-1] >= (1.0 - LATE) * down.t[-1]  # the edited sample is a late one
