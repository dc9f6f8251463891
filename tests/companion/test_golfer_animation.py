"""The 3-D downswing's animation (figures.golfer_downswing_animation): what each frame
draws is the motion and the certified foot loads it was given, in one fixed layout, in
frames as legible as the static figures."""

import dataclasses

import numpy as np
import pytest
from test_figure_legibility import animation_frames, assert_legible_frame

from geomotion import figures, models, tree


@pytest.fixture(scope="module")
def three_d(golf_optimum):
    golfer = models.golfer()
    down = models.golfer_downswing(
        golfer, golf_optimum.golfer, golf_optimum.optimum.downswing, **models.BALANCED_CHOICES
    )
    demand = models.ground_wrench(golfer, down.q, down.v, down.a)
    return golfer, down, models.downswing_feet(golfer, down), demand


def _animation(*args, **options):
    """The animation after the player's first draw (matplotlib warns about an animation
    deleted undrawn)."""
    animation = figures.golfer_downswing_animation(*args, **options)
    animation._init_draw()
    return animation


def _lines(fig, label):
    """The line labelled ``label`` in each of the two views."""
    return [next(line for line in ax.get_lines() if line.get_label() == label) for ax in fig.axes]


def test_every_stride_th_sample_and_impact_is_a_frame(three_d):
    golfer, down, feet, demand = three_d
    n = down.t.size  # 61: samples 0, 3, ..., 60, then nothing more (60 is the last)
    for stride, count in ((1, n), (3, 21), (7, 10)):  # 0..56 by 7, then impact (60)
        animation = _animation(golfer, down, feet, demand=demand, stride=stride)
        assert len(list(animation.new_frame_seq())) == count
    animation._func(count - 1)
    assert animation._fig._suptitle.get_text().startswith(f"t = {1e3 * down.t[-1]:.0f} ms")
    assert "(impact)" in animation._fig._suptitle.get_text()


def test_the_drawn_golfer_is_the_motion_and_the_feet_stay_planted(three_d):
    golfer, down, feet, demand = three_d
    animation = _animation(golfer, down, feet, demand=demand, stride=1)
    fig = animation._fig
    face_on, down_the_line = fig.axes
    lead_arm = _lines(fig, "lead arm")
    club = _lines(fig, "club")
    for i in (0, 30, 60):
        animation._func(i)
        # The lead arm starts at the shoulder joint: the upper arm's origin, by tree.
        shoulder = tree.frame_pose(
            golfer.model, down.q[i], golfer.bodies["lead upper arm"], np.eye(4)
        )[:3, 3]
        np.testing.assert_allclose(lead_arm[0].get_xydata()[0], shoulder[[1, 2]], atol=1e-12)
        np.testing.assert_allclose(lead_arm[1].get_xydata()[0], shoulder[[0, 2]], atol=1e-12)
        # The club ends at the face centre (the clubhead frame's origin).
        head = golfer.frames["clubhead"].world_pose(golfer.model, down.q[i])[:3, 3]
        np.testing.assert_allclose(club[0].get_xydata()[-1], head[[1, 2]], atol=1e-12)
    # At impact the face centre is on the ball drawn.
    ball = _lines(fig, "ball")
    np.testing.assert_allclose(club[1].get_xydata()[-1], ball[1].get_xydata()[0], atol=1e-9)
    assert face_on.get_title() == "face-on" and down_the_line.get_title() == "down the line"
    # The legs end at the ankles, which stay where they are at address (welded feet).
    legs = _lines(fig, "trunk and legs")
    ankle = tree.frame_pose(golfer.model, golfer.q0, golfer.bodies["lead ankle"], np.eye(4))
    for i in (0, 60):
        animation._func(i)
        np.testing.assert_allclose(legs[0].get_xydata()[0], ankle[[1, 2], 3], atol=1e-9)


def test_force_arrows_only_where_the_feet_were_certified(three_d):
    golfer, down, feet, demand = three_d
    animation = _animation(golfer, down, feet, demand=demand, stride=1)
    fig = animation._fig
    weight = feet.body_weight
    certified = np.flatnonzero(feet.feasible)
    refused = np.flatnonzero(~feet.feasible)
    assert certified.size and refused.size  # both kinds are drawn
    for k, foot in enumerate(("lead", "trail")):
        face_on = _lines(fig, f"ground on {foot} foot")[0]
        for i in certified[:: max(1, certified.size // 4)]:
            animation._func(i)
            j = np.searchsorted(certified, i)
            (tail, head) = face_on.get_xydata()
            # From the centre of pressure, 0.5 m per body weight of vertical load.
            np.testing.assert_allclose(tail, feet.loads.cop_world[j, k, [1, 2]], atol=1e-12)
            rise = head[1] - tail[1]
            assert rise == pytest.approx(0.5 * feet.loads.vertical_force[j, k] / weight, abs=1e-9)
            assert "no admissible split" not in fig._suptitle.get_text()
        animation._func(refused[0])
        assert np.isnan(face_on.get_xydata()).all()
        assert fig._suptitle.get_text().endswith(": no admissible split")


def test_one_layout_for_every_frame_and_legible_frames(three_d):
    golfer, down, feet, demand = three_d
    animation = _animation(golfer, down, feet, demand=demand, stride=6)
    fig = animation._fig
    positions = set()
    for i in range(len(list(animation.new_frame_seq()))):
        animation._func(i)
        fig.draw_without_rendering()
        positions.add(tuple(tuple(ax.get_position().bounds) for ax in fig.axes))
    assert len(positions) == 1  # the golfer does not move on the page
    # The two views are drawn at one scale: equal axes of the same width and height.
    spans = [(np.ptp(ax.get_xlim()), np.ptp(ax.get_ylim())) for ax in fig.axes]
    assert spans[0] == pytest.approx(spans[1])
    frames = animation_frames(figures.offline_animation_html(animation))
    assert len(frames) == len(list(animation.new_frame_seq()))
    assert_legible_frame("golfer_downswing_animation", fig, frames[0])


def test_bad_input_is_refused_with_its_name(three_d):
    golfer, down, feet, demand = three_d
    with pytest.raises(TypeError, match="golfer: expected a models.Golfer"):
        figures.golfer_downswing_animation(models.swing_plane_golfer(), down, feet, demand=demand)
    with pytest.raises(TypeError, match="downswing: expected a models.GolferDownswing"):
        figures.golfer_downswing_animation(golfer, feet, feet, demand=demand)
    with pytest.raises(TypeError, match="feet: expected a models.DownswingFeet"):
        figures.golfer_downswing_animation(golfer, down, down, demand=demand)
    for stride in (0, -2):
        with pytest.raises(ValueError, match="stride: expected a positive integer"):
            figures.golfer_downswing_animation(golfer, down, feet, demand=demand, stride=stride)
    for stride in (1.0, True, "2"):
        with pytest.raises(TypeError, match="stride: expected a positive integer"):
            figures.golfer_downswing_animation(golfer, down, feet, demand=demand, stride=stride)
    fewer = dataclasses.replace(feet, feasible=feet.feasible[:-1])
    with pytest.raises(ValueError, match=r"feet: expected the loads of downswing \(61 samples"):
        figures.golfer_downswing_animation(golfer, down, fewer, demand=demand)
    with pytest.raises(ValueError, match=r"demand: expected the ground's resultant"):
        figures.golfer_downswing_animation(golfer, down, feet, demand=demand[:-1])
    falling = demand.copy()
    falling[5, 5] = -1.0
    with pytest.raises(ValueError, match="demand: expected a resultant that pushes up"):
        figures.golfer_downswing_animation(golfer, down, feet, demand=falling)


def test_the_demands_centre_of_pressure_where_no_split_exists(three_d):
    """In a refused frame a cross on the ground where the resultant's moment about it has
    no horizontal part (p x f = n in x and y: checked by the cross product, not by the
    formula drawn); in a certified frame none."""
    golfer, down, feet, demand = three_d
    animation = _animation(golfer, down, feet, demand=demand, stride=1)
    fig = animation._fig
    face_on, down_the_line = _lines(fig, "demand's centre of pressure")
    refused = np.flatnonzero(~feet.feasible)
    for i in refused[:: max(1, refused.size // 5)]:
        animation._func(i)
        (y, z_face), (x, z_line) = face_on.get_xydata()[0], down_the_line.get_xydata()[0]
        assert z_face == z_line == 0.0
        p = np.array([x, y, 0.0])
        moment = np.cross(p, demand[i, 3:])
        np.testing.assert_allclose(moment[:2], demand[i, :2], rtol=1e-9, atol=1e-9)
    for i in np.flatnonzero(feet.feasible)[::4]:
        animation._func(i)
        assert np.isnan(face_on.get_xydata()).all()
