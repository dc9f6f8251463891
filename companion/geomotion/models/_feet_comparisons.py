r"""The 3-D downswing's feet held against force plates, and the seed chapter's questions on them.

**Comparisons** (issue 39, item 4), each a :class:`Comparison` row like the swing
study's: the published number, the model's, whether they are the same quantity, a
like-for-like flag, the rule and its verdict.  What always differs: the published
numbers are means over golfers on natural-grass force platforms in spiked shoes; the
model is one golfer (``golfer``'s stated 80 kg, 1.80 m) with rigid soles welded to the
ground, and it has only the downswing (top to impact), while the papers report peaks and
ranges over the whole swing.  The model's loads exist only at the samples where the
feet's quadratic program is certified (:func:`downswing_feet`), so every model number is
over those samples and says how many there are.

* :func:`compare_peak_vertical`: each foot's peak vertical force, body weights, against
  Worsfold, Smith & Dyson (2007) with a driver.
* :func:`compare_vertical_range`: its range (largest minus least), against their range
  over the whole swing.
* :func:`compare_peak_torque`: each foot's peak torque about the vertical axis at the
  shoe-ground interface, against Worsfold et al. (2008).  Their Tz is what a force plate
  under one foot reports about the vertical through that foot's centre of pressure: the
  *free moment* :math:`T_z = n_z - (c_xf_y - c_yf_x)` of the sole wrench about the centre
  of pressure :math:`c` (not the moment about a fixed point, which would grow with the
  horizontal force's lever arm); that is the model's quantity.
* :func:`compare_lead_share`: the lead foot carrying more of the vertical load toward
  impact (Okuda et al. 2010, qualitative).
* :func:`compare_cop_style`: Ball & Best's (2011) two centre-of-pressure styles, from the
  path of the feet's combined centre of pressure along the target line.

**Questions on the feet** (the seed chapter's, issue 39 item 5): :func:`ground_impulse`
(the ground's impulse against its zero work on welded soles) and
:func:`load_share_indeterminacy` (how far two feet's sharing of the load is left open,
and the least friction the swing needs).
"""

from dataclasses import dataclass

import numpy as np

from .. import contact, spatial, tree
from ._comparisons import Comparison
from ._downswing_balance import _checked_downswing
from ._downswing_feet import DownswingFeet
from ._ground_wrench import ground_wrench
from .golf_data import DATA

__all__ = [
    "compare_peak_vertical",
    "compare_vertical_range",
    "compare_peak_torque",
    "free_moment",
    "compare_lead_share",
    "compare_feet",
    "compare_cop_style",
    "CopStyle",
    "cop_style",
    "GroundImpulse",
    "ground_impulse",
    "LoadShare",
    "load_share_indeterminacy",
]

_FEET = ("lead", "trail")
#: Share of the downswing before impact called "toward impact" by compare_lead_share.
_LATE = 0.2
_UNLIKE = (
    "grass platforms and spiked shoes against rigid soles welded to the ground; a mean of "
    "24 golfers against one model golfer"
)
# The same for the two qualitative rows, whose studies had other golfers and plates.
_UNLIKE_OKUDA = (
    "golfers' weight transfer (13 skilled, 17 low-skilled) against one model golfer "
    "with rigid soles welded to the ground"
)
_UNLIKE_BALL = (
    "46 golfers on two force plates against one model golfer with rigid soles welded to the ground"
)


def _checked_feet(feet):
    if not isinstance(feet, DownswingFeet):
        raise TypeError(f"feet: expected a models.DownswingFeet, got {type(feet).__name__}")
    if feet.loads is None:
        raise ValueError("feet: expected at least one certified sample, got none")
    return feet


def _foot(foot):
    if foot not in _FEET:
        raise ValueError(f"foot: expected 'lead' or 'trail', got {foot!r}")
    return _FEET.index(foot)


def _certified(feet):
    n = int(np.count_nonzero(feet.feasible))
    return f"{n} of {feet.feasible.size} certified samples of the downswing"


def free_moment(feet):
    r"""Each foot's free moment at the certified samples (module notes).

    .. math:: T_z = n_z - (c_xf_y - c_yf_x)

    with :math:`(n, f)` the sole wrench about the sole's origin in sole axes and
    :math:`c` the centre of pressure there: the moment about the sole's normal through
    its centre of pressure, what a force plate under that foot reports as its free
    moment.

    Parameters
    ----------
    feet : DownswingFeet
        With at least one certified sample.

    Returns
    -------
    (m, 2) ndarray
        N m, at the m certified samples, lead foot then trail foot (0 where a foot is
        unloaded).

    Raises
    ------
    TypeError
        If ``feet`` is not a DownswingFeet.
    ValueError
        If no sample is certified.
    """
    loads = _checked_feet(feet).loads
    cop = np.nan_to_num(loads.cop_sole)
    n, f = loads.wrench_sole[..., :3], loads.wrench_sole[..., 3:]
    return n[..., 2] - (cop[..., 0] * f[..., 1] - cop[..., 1] * f[..., 0])


def compare_peak_vertical(feet, *, foot):
    """Peak vertical force under one foot, body weights, against Worsfold et al. (2007).

    Rule: within 25 % of the published mean (our tolerance for one golfer against the
    mean of 24, whose spread the abstract does not give).

    Parameters
    ----------
    feet : DownswingFeet
        With at least one certified sample.
    foot : {"lead", "trail"}, keyword only

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``feet`` is not a DownswingFeet.
    ValueError
        If ``foot`` is unknown or no sample is certified.
    """
    feet, k = _checked_feet(feet), _foot(foot)
    datum = DATA["driver_peak_vertical_force"]
    published = datum.value[k]
    model = float(feet.peak_vertical[k])
    return Comparison(
        quantity=f"peak vertical force, {foot} foot, driver",
        source=datum.source,
        strength=datum.strength,
        published=f"{published:.2f} BW",
        model=f"{model:.2f} BW ({_certified(feet)})",
        same_quantity=f"a vertical force in body weights, but the abstract's normalisation is "
        f"unknown; {_UNLIKE}; the downswing's peak against the whole swing's",
        like=False,
        rule="within 25 % of the published mean",
        agrees=bool(abs(model - published) <= 0.25 * published),
    )


def compare_vertical_range(feet, *, foot):
    """Range of the vertical force under one foot (largest minus least), body weights,
    against Worsfold et al.'s (2007) range over the whole swing.

    Rule: at most the published range plus 25 %: the downswing is part of the whole
    swing, so its range cannot much exceed the whole swing's.

    Parameters
    ----------
    feet : DownswingFeet
    foot : {"lead", "trail"}, keyword only

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``feet`` is not a DownswingFeet.
    ValueError
        If ``foot`` is unknown or no sample is certified.
    """
    feet, k = _checked_feet(feet), _foot(foot)
    datum = DATA["driver_vertical_force_range"]
    published = datum.value[k]
    vertical = feet.loads.vertical_force[:, k] / feet.body_weight
    model = float(vertical.max() - vertical.min())
    return Comparison(
        quantity=f"range of the vertical force, {foot} foot, driver",
        source=datum.source,
        strength=datum.strength,
        published=f"{published:.2f} BW (whole swing)",
        model=f"{model:.2f} BW ({_certified(feet)})",
        same_quantity=f"unlike: the downswing's certified samples against the whole swing; "
        f"{_UNLIKE}",
        like=False,
        rule="at most the published range plus 25 %",
        agrees=bool(model <= 1.25 * published),
    )


def compare_peak_torque(feet, *, foot):
    """Peak magnitude of the torque about the vertical axis at the sole-ground interface
    (the free moment about the centre of pressure, module notes), N m, against Worsfold
    et al. (2008).

    Rule: within the published range widened by a factor 1.5 on each side (our
    tolerance: the range spans three handicap groups' means).

    Parameters
    ----------
    feet : DownswingFeet
    foot : {"lead", "trail"}, keyword only

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If ``feet`` is not a DownswingFeet.
    ValueError
        If ``foot`` is unknown or no sample is certified.
    """
    feet, k = _checked_feet(feet), _foot(foot)
    datum = DATA["peak_vertical_torque"]
    low, high = datum.value[k]
    model = float(np.abs(free_moment(feet)[:, k]).max())
    return Comparison(
        quantity=f"peak torque about the vertical axis, {foot} foot",
        source=datum.source,
        strength=datum.strength,
        published=f"{low:.0f}-{high:.0f} N m",
        model=f"{model:.1f} N m ({_certified(feet)})",
        same_quantity="ours the moment about the vertical through the foot's centre of "
        "pressure, theirs a free-moment-like torque at the shoe-turf interface; grass "
        "platforms and spiked shoes against rigid soles welded to the ground; the range of "
        "three handicap groups' means (8 golfers each) against one model golfer; the "
        "downswing against backswing and downswing",
        like=False,
        rule="within [low / 1.5, 1.5 high]",
        agrees=bool(low / 1.5 <= model <= 1.5 * high),
    )


def _late(feet, downswing):
    """Rows of the certified samples in the last _LATE of the downswing."""
    t = downswing.t[feet.feasible]
    return t >= (1.0 - _LATE) * downswing.t[-1]


def compare_lead_share(feet, downswing):
    """Whether the lead foot carries the larger vertical load toward impact (Okuda et al.
    2010: skilled golfers shift their weight to the lead foot earlier; qualitative).

    Rule: at every certified sample of the last 20 % of the downswing the lead foot's
    vertical force exceeds the trail foot's (no verdict of agreement without such a
    sample).

    Parameters
    ----------
    feet : DownswingFeet
    downswing : GolferDownswing
        The motion ``feet`` was computed on.

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If no sample is certified or the two do not match.
    """
    feet = _checked_feet(feet)
    late = _late(feet, _matched(feet, downswing))
    vertical = feet.loads.vertical_force[late]
    lead_share = vertical[:, 0] / np.maximum(vertical.sum(axis=1), 1e-300)
    model = (
        f"lead share {lead_share.min():.2f}-{lead_share.max():.2f} at {late.sum()} certified "
        f"samples of the last {_LATE:.0%}"
        if late.any()
        else "no certified sample in the last 20 %"
    )
    datum = DATA["skilled_weight_shift_groups"]
    return Comparison(
        quantity="the lead foot carries the larger vertical load toward impact",
        source=datum.source,
        strength=datum.strength,
        published="skilled golfers shift weight to the lead foot earlier (qualitative)",
        model=model,
        same_quantity=f"a pattern, not a number; {_UNLIKE_OKUDA}",
        like=False,
        rule="lead > trail at every certified sample of the last 20 % (and one exists)",
        agrees=bool(late.any() and (lead_share > 0.5).all()),
    )


def compare_feet(golfer, feet, downswing):
    """The eight force-plate rows of one motion, in the chapter's order: for the lead and
    then the trail foot :func:`compare_peak_vertical`, :func:`compare_vertical_range` and
    :func:`compare_peak_torque`, then :func:`compare_lead_share` and
    :func:`compare_cop_style`.

    Parameters
    ----------
    golfer : Golfer
    feet : DownswingFeet
        With at least one certified sample.
    downswing : GolferDownswing
        The motion ``feet`` was computed on.

    Returns
    -------
    list of Comparison

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If no sample is certified or the arguments do not match.
    """
    rows = []
    for foot in ("lead", "trail"):
        rows += [
            compare_peak_vertical(feet, foot=foot),
            compare_vertical_range(feet, foot=foot),
            compare_peak_torque(feet, foot=foot),
        ]
    return rows + [
        compare_lead_share(feet, downswing),
        compare_cop_style(golfer, feet, downswing),
    ]


def _matched(feet, downswing):
    from ._golfer_downswing import GolferDownswing

    if not isinstance(downswing, GolferDownswing):
        raise TypeError(
            f"downswing: expected a models.GolferDownswing, got {type(downswing).__name__}"
        )
    if downswing.t.size != feet.feasible.size:
        raise ValueError(
            f"downswing: expected the motion of feet ({feet.feasible.size} samples), got "
            f"{downswing.t.size} samples"
        )
    return downswing


@dataclass(frozen=True, eq=False)
class CopStyle:
    r"""Result of :func:`cop_style`.

    Attributes
    ----------
    t : (m,) ndarray
        s, the certified samples' times.
    along_target : (m,) ndarray
        The feet's combined centre of pressure along the target line (world y, m, from
        the stance's centre; the lead foot is at +y).
    style : str
        Both of Ball & Best's styles first move the centre of pressure towards the
        target: ``"front foot"`` if it moved forward of where it started by more than
        ``tolerance`` and is at its most forward (within ``tolerance``) at the last
        certified sample; ``"reverse"`` if it moved forward so and then back from its
        most forward position by more than ``tolerance``; ``"neither"`` if it never
        moved forward by more than ``tolerance``.
    tolerance : float
        m: a tenth of the distance between the soles' origins.
    """

    t: np.ndarray
    along_target: np.ndarray
    style: str
    tolerance: float


def cop_style(golfer, feet, downswing):
    r"""Ball & Best's centre-of-pressure style (module notes) of the model's downswing.

    The feet's combined centre of pressure along the target line is
    :math:`y = \sum_k f_{z,k}c_{y,k}/\sum_k f_{z,k}` with :math:`c_k` each foot's centre of
    pressure in the world; "Front Foot" golfers move it toward the lead foot and keep it
    there to impact, "Reverse" golfers move it forward early and back toward the trail
    foot at impact.

    Parameters
    ----------
    golfer : Golfer
    feet : DownswingFeet
    downswing : GolferDownswing

    Returns
    -------
    CopStyle

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If no sample is certified or the arguments do not match.
    """
    golfer = _checked_downswing(golfer, _matched(_checked_feet(feet), downswing))
    loads = feet.loads
    fz = loads.vertical_force
    y = np.nan_to_num(loads.cop_world[..., 1])
    along = (fz * y).sum(axis=1) / fz.sum(axis=1)
    soles = golfer.sole_poses()
    tolerance = 0.1 * float(np.linalg.norm(soles[0, :3, 3] - soles[1, :3, 3]))
    if along.max() - along[0] <= tolerance:
        style = "neither"
    elif along[-1] >= along.max() - tolerance:
        style = "front foot"
    else:
        style = "reverse"
    return CopStyle(
        t=downswing.t[feet.feasible], along_target=along, style=style, tolerance=tolerance
    )


def compare_cop_style(golfer, feet, downswing):
    """Which of Ball & Best's (2011) two centre-of-pressure styles the model shows.

    Rule: the model shows one of the two published styles (a model golfer whose
    centre of pressure ends behind where it started, moving away from the target
    throughout, would show neither).

    Parameters
    ----------
    golfer : Golfer
    feet : DownswingFeet
    downswing : GolferDownswing

    Returns
    -------
    Comparison

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If no sample is certified or the arguments do not match.
    """
    style = cop_style(golfer, feet, downswing)
    y = style.along_target
    forward = bool(y.max() - y[0] > style.tolerance)
    datum = DATA["cop_style_golfers"]
    return Comparison(
        quantity="centre-of-pressure style along the target line",
        source=datum.source,
        strength=datum.strength,
        published="two styles, 'Front Foot' and 'Reverse' (46 golfers)",
        model=f"{style.style} (y from {y[0] * 100:.1f} cm to at most {y.max() * 100:.1f} cm, "
        f"{y[-1] * 100:.1f} cm at the last of {y.size} certified samples)",
        same_quantity="a pattern of the centre of pressure's path, over the certified "
        f"samples only; {_UNLIKE_BALL}",
        like=False,
        rule="the centre of pressure moves toward the target at some point (either style)",
        agrees=forward,
    )


# ---------------------------------------------------------------------------
# The seed chapter's questions
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GroundImpulse:
    r"""Result of :func:`ground_impulse`.

    Attributes
    ----------
    linear : (3,) ndarray
        :math:`\int_0^T f\,dt`, N s, world axes: the ground's linear impulse over the
        downswing (trapezoidal rule on the samples).
    angular : (3,) ndarray
        :math:`\int_0^T n_O\,dt`, N m s: its angular impulse about the world origin.
    momentum_change : (3,) ndarray
        The independent route, :math:`p(T) - p(0) - m g T`, N s (exact: the total linear
        momentum at the two ends, and the weight's impulse).
    angular_momentum_change : (3,) ndarray
        :math:`h_O(T) - h_O(0) - \int_0^T c\times mg\,dt`, N m s (the weight's moment by
        the trapezoidal rule).
    sole_power : (m, 2) ndarray
        :math:`w_k\cdot V_k` of each foot's certified wrench on its sole's twist, W:
        zero, the soles being welded (:math:`V_k = 0`).
    work : float
        The ground's work over the certified samples, J (trapezoidal rule on
        ``sole_power``; zero).
    """

    linear: np.ndarray
    angular: np.ndarray
    momentum_change: np.ndarray
    angular_momentum_change: np.ndarray
    sole_power: np.ndarray
    work: float


def _momentum(golfer, q, v):
    """Total spatial momentum (h_O, p) about the world origin, world axes; and the centre
    of mass, (n, 3)."""
    model = golfer.model
    total = np.zeros((len(q), 6))
    com = np.zeros((len(q), 3))
    coms = model.centers_of_mass
    for body in range(model.num_bodies):
        kin = tree.frame_kinematics(model, q, v, body, np.eye(4), reference="local")
        h = kin.velocity @ model.inertias[body].T
        total += np.einsum("nij,nj->ni", spatial.force_transform(kin.pose), h)
        com += model.masses[body] * (
            kin.pose[:, :3, 3] + np.einsum("nij,j->ni", kin.pose[:, :3, :3], coms[body])
        )
    return total, com / model.masses.sum()


def ground_impulse(golfer, feet, downswing):
    r"""The ground's impulse over the downswing against its work (the seed chapter's
    question).

    The impulse is that of the ground's resultant :math:`\mathcal F_O` (:func:`ground_wrench`,
    which the feet's certified loads reproduce to round-off where they exist; where the
    program has no admissible split the resultant the motion demands is still defined):
    :math:`\int f\,dt = p(T) - p(0) - mgT` (momentum theorem, the independent route).
    The work is :math:`\int\sum_k w_k\cdot V_k\,dt` with :math:`V_k` the sole's twist:
    zero for stationary contacts, whatever the impulse.

    Parameters
    ----------
    golfer : Golfer
    feet : DownswingFeet
    downswing : GolferDownswing

    Returns
    -------
    GroundImpulse

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If no sample is certified or the arguments do not match.
    """
    golfer = _checked_downswing(golfer, _matched(_checked_feet(feet), downswing))
    model, t = golfer.model, downswing.t
    q, v, a = downswing.q, downswing.v, downswing.a
    wrench = ground_wrench(golfer, q, v, a)
    momentum, com = _momentum(golfer, q[[0, -1]], v[[0, -1]])
    weight = model.masses.sum() * np.asarray(model.gravity, dtype=float)
    _, com_all = _momentum(golfer, q, v)
    weight_moment = np.trapezoid(np.cross(com_all, weight), t, axis=0)
    twists = np.stack(
        [
            tree.frame_velocity(
                model,
                q,
                v,
                golfer.frames[f"{s} sole"].body,
                golfer.frames[f"{s} sole"].pose,
                reference="local",
            )
            for s in _FEET
        ],
        axis=1,
    )[feet.feasible]
    power = np.einsum("nki,nki->nk", feet.loads.wrench_sole, twists)
    tc = t[feet.feasible]
    work = float(np.trapezoid(power.sum(axis=1), tc)) if tc.size > 1 else 0.0
    return GroundImpulse(
        linear=np.trapezoid(wrench[:, 3:], t, axis=0),
        angular=np.trapezoid(wrench[:, :3], t, axis=0),
        momentum_change=momentum[1, 3:] - momentum[0, 3:] - weight * t[-1],
        angular_momentum_change=momentum[1, :3] - momentum[0, :3] - weight_moment,
        sole_power=power,
        work=work,
    )


@dataclass(frozen=True, eq=False)
class LoadShare:
    r"""Result of :func:`load_share_indeterminacy`.

    Attributes
    ----------
    t : (m,) ndarray
        s, the certified samples' times.
    lead_vertical : (m, 2) ndarray
        Least and largest vertical force the lead foot can carry among every admissible
        split of the same resultant (:func:`geomotion.contact.load_share_range`), body
        weights; the trail foot carries the rest of the vertical resultant.
    width : (m,) ndarray
        Their difference, body weights: how far the sharing is left open.
    chosen : (m,) ndarray
        The lead foot's vertical force in the quadratic program's answer, body weights
        (inside the range).
    peak_vertical : (2, 2) ndarray
        Each foot's (lead, trail) least and largest peak vertical force over the
        certified samples among every admissible split, body weights: the splits at
        different samples are independent, so the lead foot's peak ranges over
        :math:`[\max_t \ell_t, \max_t u_t]` with :math:`[\ell_t, u_t]` its interval at
        sample :math:`t`, and the trail foot's over :math:`[\max_t (V_t - u_t),
        \max_t (V_t - \ell_t)]`, :math:`V_t` the vertical resultant.  A verdict on a peak
        holds for every admissible split only if it holds over the whole interval.
    vertical_range : (2, 2) ndarray
        Each foot's (lead, trail) least and largest range of the vertical force (largest
        minus least over the certified samples, the quantity of
        :func:`compare_vertical_range`) among every admissible split, body weights.  With
        the force :math:`x_t` free in :math:`[\ell_t, u_t]` at each of the :math:`m`
        samples independently, the range :math:`R = \max_t x_t - \min_t x_t` lies in

        .. math:: \Bigl[\max\bigl(0, \max_t \ell_t - \min_t u_t\bigr),\;
                  \max_{s \ne t} (u_s - \ell_t)\Bigr]

        (0 and 0 if :math:`m = 1`).  Least: :math:`\max_t x_t \ge \max_t \ell_t` and
        :math:`\min_t x_t \le \min_t u_t`, and :math:`x_t = \min(\max_s \ell_s, u_t)`
        attains it.  Largest: :math:`R = x_s - x_t \le u_s - \ell_t` for some
        :math:`s \ne t` (or 0), and :math:`x_s = u_s`, :math:`x_t = \ell_t` attains it.
        This is :math:`\max_t u_t - \min_t \ell_t` unless one sample alone holds both
        extremes, which one force cannot take at once.  The trail foot's intervals are
        :math:`[V_t - u_t, V_t - \ell_t]`.
    lead_share : (2,) ndarray or None
        The lead foot's least and largest share of the vertical load,
        :math:`x_t / V_t`, at any certified sample of the last 20 % of the downswing
        (those of :func:`compare_lead_share`) among every admissible split:
        :math:`[\min_t \ell_t / V_t, \max_t u_t / V_t]`, dimensionless.  If the largest
        is at most 0.5, no admissible split puts more load on the lead foot at any of
        these samples (that rule's verdict is "no" for every split); if the least
        exceeds 0.5, every split does.  None if no certified sample lies in that window
        (there is no share to bound; ``compare_lead_share`` then says "no" too).
    least_friction : float
        The largest over the certified samples of the least friction coefficient each
        needs, the free moment's limit included (:func:`geomotion.contact.least_friction`);
        no measured shoe-turf value is in the golf source notes to hold it against.
    sensor : str
        What would resolve the sharing.
    """

    t: np.ndarray
    lead_vertical: np.ndarray
    width: np.ndarray
    chosen: np.ndarray
    peak_vertical: np.ndarray
    vertical_range: np.ndarray
    lead_share: object
    least_friction: float
    sensor: str


def _range_bounds(low, high):
    """Least and largest of max(x) - min(x) over x_t in [low_t, high_t] (LoadShare)."""
    if low.size < 2:
        return np.zeros(2)
    pairs = high[:, None] - low[None, :]
    np.fill_diagonal(pairs, -np.inf)  # one sample cannot sit at both of its ends
    return np.array([max(0.0, low.max() - high.min()), pairs.max()])


def _share_bounds(low, high, total, late):
    """Least and largest lead share over the late samples (LoadShare), or None."""
    if not late.any():
        return None
    return np.array([(low[late] / total[late]).min(), (high[late] / total[late]).max()])


def load_share_indeterminacy(golfer, feet, downswing):
    r"""How far the two feet's sharing of the load is indeterminate along the downswing.

    At each certified sample the resultant :math:`\mathcal F_O` fixes six numbers of the
    twelve in the two sole wrenches; the admissible splits (each sole's wrench in its
    contact-wrench cone at the coefficient of ``feet``: friction, the centre of pressure in
    the sole and the free moment's limit together) leave the lead foot's
    vertical force anywhere in an interval (two linear programs,
    :func:`geomotion.contact.load_share_range`).  The quadratic program picks one split
    by its objective, not by anything measured.  One force plate under each foot
    measures each foot's wrench and so resolves it; a single plate under both feet
    measures only the resultant, which the motion already fixes.  From the intervals
    follow, exactly, each foot's least and largest peak and range of the vertical force
    and the lead foot's least and largest late share over every admissible split (the
    splits at different samples being independent): the verdicts of
    :func:`compare_peak_vertical`, :func:`compare_vertical_range` and
    :func:`compare_lead_share` for every split, not the program's alone.

    Parameters
    ----------
    golfer : Golfer
    feet : DownswingFeet
    downswing : GolferDownswing

    Returns
    -------
    LoadShare

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If no sample is certified or the arguments do not match.
    """
    golfer = _checked_downswing(golfer, _matched(_checked_feet(feet), downswing))
    q, v, a = (x[feet.feasible] for x in (downswing.q, downswing.v, downswing.a))
    wrench = ground_wrench(golfer, q, v, a)
    share = contact.load_share_range(
        golfer.sole_poses(),
        wrench,
        feet.friction_coefficient,
        golfer.sole_outline(),
        foot=0,
    )
    low = np.asarray(share.vertical_force_min, dtype=float) / feet.body_weight
    high = np.asarray(share.vertical_force_max, dtype=float) / feet.body_weight
    total = feet.loads.vertical_force.sum(axis=1) / feet.body_weight
    late = _late(feet, downswing)
    return LoadShare(
        t=downswing.t[feet.feasible],
        lead_vertical=np.stack([low, high], axis=-1),
        width=high - low,
        chosen=feet.loads.vertical_force[:, 0] / feet.body_weight,
        peak_vertical=np.array(
            [[low.max(), high.max()], [(total - high).max(), (total - low).max()]]
        ),
        vertical_range=np.stack(
            [_range_bounds(low, high), _range_bounds(total - high, total - low)]
        ),
        lead_share=_share_bounds(low, high, total, late),
        least_friction=float(feet.least_friction[feet.feasible].max()),
        sensor="two force plates, one under each foot (each measures its foot's wrench); "
        "one plate under both feet measures only the resultant",
    )
