r"""Chapter 3 figure: the 3-D golfer's downswing on two planted feet.

:func:`downswing_feet_figure` draws what :func:`geomotion.models.downswing_feet` and
:func:`geomotion.models.support_violation` found along a
:class:`geomotion.models.GolferDownswing`: each foot's vertical force and free moment at
the certified samples, and the support violation at every sample.  It draws the data it
is given and runs no model.  The published values drawn for comparison (Worsfold et al.
2007 and 2008) come from :data:`geomotion.models.golf_data.DATA`, never typed in here.
"""

import numpy as np

from .. import models
from ..models.golf_data import DATA
from ._style import ACCENT, BOOK_WIDTH, FORCE, MOTION, SECOND, fmt, new_figure, style_context

__all__ = ["downswing_feet_figure"]

_FEET = ("lead", "trail")
_FOOT_COLOURS = (MOTION, FORCE)


def _runs(mask):
    """(first, last) index of every run of True in ``mask``."""
    edges = np.diff(np.r_[0, mask.astype(int), 0])
    return list(zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1))


def _on_certified(t, feasible, values):
    """``values`` (m,) at the certified samples spread over all n samples, NaN elsewhere,
    so that a line breaks where the program refused a sample."""
    out = np.full(t.shape, np.nan)
    out[feasible] = values
    return out


def _shade(ax, t, refused, *, label):
    """Shade the spans of refused samples (half a step beyond each end), the first one
    labelled if ``label``."""
    half = 0.5 * (t[1] - t[0])
    for k, (i, j) in enumerate(_runs(refused)):
        ax.axvspan(
            t[i] - half,
            t[j] + half,
            color=SECOND,
            alpha=0.13,
            linewidth=0,
            label="no admissible split" if label and k == 0 else None,
        )


def downswing_feet_figure(golfer, downswing, feet, violation, *, share):
    r"""Figure: the feet's loads along the 3-D downswing, where two planted feet carry it.

    Three panels against time from the top of the backswing: (a) the vertical force
    under each foot in body weights at the certified samples, the quadratic program's
    split as dots and the interval every admissible split allows as a band (``share``),
    with Worsfold, Smith & Dyson's (2007) mean peaks with a driver as dashed lines (their
    normalisation is unknown: the legend says so); (b) the magnitude of each
    foot's free moment (:func:`geomotion.models.free_moment`), N m, with Worsfold et
    al.'s (2008) ranges of the peak torque as bands; (c) the support violation
    (:func:`geomotion.models.support_violation`), body weights, positive where no
    admissible split of the demand between the feet exists.  The samples without one
    are shaded in every panel; there panels (a) and (b) have no value.

    **Batches**: none; one call draws one figure.

    Parameters
    ----------
    golfer : geomotion.models.Golfer
        The 3-D golfer of ``downswing``.
    downswing : geomotion.models.GolferDownswing
        Its motion (:func:`geomotion.models.golfer_downswing`), n samples.
    feet : geomotion.models.DownswingFeet
        :func:`geomotion.models.downswing_feet` of that motion, with at least one certified
        sample.
    violation : (n,) array_like
        :func:`geomotion.models.support_violation` of that motion, body weights.
    share : geomotion.models.LoadShare, keyword only
        :func:`geomotion.models.load_share_indeterminacy` of ``feet``: the lead foot's least
        and largest vertical force at each certified sample (the trail foot's are the
        vertical resultant less them).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    TypeError
        If ``golfer``, ``downswing``, ``feet`` or ``share`` has the wrong type.
    ValueError
        If ``feet`` has no certified sample or does not have one entry per sample of
        ``downswing``, ``violation`` is not n finite values, or ``share`` does not have
        one interval per certified sample.
    """
    if not isinstance(golfer, models.Golfer):
        raise TypeError(f"golfer: expected a models.Golfer, got {type(golfer).__name__}")
    if not isinstance(downswing, models.GolferDownswing):
        raise TypeError(
            f"downswing: expected a models.GolferDownswing, got {type(downswing).__name__}"
        )
    if not isinstance(feet, models.DownswingFeet):
        raise TypeError(f"feet: expected a models.DownswingFeet, got {type(feet).__name__}")
    t = np.asarray(downswing.t, dtype=float)
    if feet.feasible.shape != t.shape or feet.loads is None:
        raise ValueError(
            f"feet: expected the loads of downswing ({t.size} samples, one certified at "
            f"least), got {feet.feasible.size} samples, {int(feet.feasible.sum())} certified"
        )
    violation = np.asarray(violation, dtype=float)
    if violation.shape != t.shape or not np.isfinite(violation).all():
        raise ValueError(
            f"violation: expected {t.size} finite values (body weights), one per sample of "
            f"downswing, got shape {violation.shape}"
        )
    if not isinstance(share, models.LoadShare):
        raise TypeError(f"share: expected a models.LoadShare, got {type(share).__name__}")
    if share.lead_vertical.shape != (int(feet.feasible.sum()), 2):
        raise ValueError(
            f"share: expected one interval per certified sample of feet "
            f"({int(feet.feasible.sum())}), got shape {share.lead_vertical.shape}"
        )
    refused = ~feet.feasible
    vertical = feet.loads.vertical_force / feet.body_weight
    total = vertical.sum(axis=1)
    bands = (share.lead_vertical, total[:, None] - share.lead_vertical[:, ::-1])
    free = np.abs(models.free_moment(feet))
    peaks = DATA["driver_peak_vertical_force"].value
    torques = DATA["peak_vertical_torque"].value
    ms = 1e3 * t
    with style_context():
        fig = new_figure((BOOK_WIDTH, 6.4))
        ax_f, ax_m, ax_v = fig.subplots(3, 1, sharex=True)
        for k, (foot, colour) in enumerate(zip(_FEET, _FOOT_COLOURS)):
            ax_f.plot(
                ms,
                _on_certified(t, feet.feasible, vertical[:, k]),
                ".-",
                color=colour,
                markersize=4,
                label=f"{foot} foot",
            )
            ax_f.fill_between(
                ms,
                _on_certified(t, feet.feasible, bands[k][:, 0]),
                _on_certified(t, feet.feasible, bands[k][:, 1]),
                color=colour,
                alpha=0.2,
                linewidth=0,
                label=f"{foot}, every admissible split",
            )
            ax_f.axhline(
                peaks[k],
                color=colour,
                linestyle="--",
                linewidth=1.0,
                label=f"{foot}, published peak {fmt(peaks[k], '.2f')} (units unclear)",
            )
            ax_m.plot(
                ms,
                _on_certified(t, feet.feasible, free[:, k]),
                ".-",
                color=colour,
                markersize=4,
                label=f"{foot} foot",
            )
            low, high = torques[k]
            ax_m.axhspan(
                low,
                high,
                color=colour,
                alpha=0.25,
                linewidth=0,
                label=f"{foot}, published {fmt(low, '.0f')}-{fmt(high, '.0f')} N m",
            )
        ax_v.plot(ms, violation, color=ACCENT, label="support violation")
        ax_v.axhline(0.0, color="black", linewidth=0.8)
        for ax in (ax_f, ax_m, ax_v):
            _shade(ax, ms, refused, label=ax is not ax_m)
        ax_f.set_ylabel("vertical force (BW)")
        ax_f.set_title("(a) vertical force under each foot, certified samples", fontsize=9.5)
        ax_f.legend(fontsize=7.5, ncol=2, loc="upper left")
        ax_f.set_ylim(0.0, max(1.05 * np.nanmax(vertical), 1.0) * 1.6)
        ax_m.set_ylabel("|free moment| (N m)")
        ax_m.set_title("(b) free moment under each foot", fontsize=9.5)
        ax_m.legend(fontsize=7.5, ncol=2, loc="upper left")
        ax_m.set_ylim(0.0, 1.45 * np.nanmax(free))
        ax_v.set_ylabel("violation (BW)")
        ax_v.set_title("(c) least largest violation of the feet's conditions", fontsize=9.5)
        ax_v.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(0.68, 1.0))
        ax_v.set_xlabel("time from the top of the backswing (ms)")
        ax_v.set_xlim(ms[0], ms[-1])
    return fig
