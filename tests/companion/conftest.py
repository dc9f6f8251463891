"""Hypothesis profiles of the property tests, chosen by ``HYPOTHESIS_PROFILE``.

* ``ci`` (the default: ``make test``, CI and any plain ``pytest`` run) is deterministic:
  the examples are derived from each test itself (``derandomize``), no example database
  is read or written, and every test draws exactly the number of examples it asks for
  (``max_examples=examples(n)`` is ``n``; a test that asks for none draws 100).  The same
  commit therefore tests the same inputs on every machine and every run; a failure prints
  its ``@reproduce_failure`` blob, and the input it shrank to belongs in an ``@example``.
* ``dev`` explores: random examples, ten times each test's own count (``examples(60)`` is
  600; ``HYPOTHESIS_MAX_EXAMPLES`` sets the base, 1000 by default, so 5000 makes it 50
  times), and the local database under ``.hypothesis/`` (git-ignored) that replays what
  failed last time.  ``--hypothesis-seed=N`` repeats a run exactly.

No profile has a deadline: a test's time is no part of what it checks.

Also session fixtures: the explorers' static blocks, drawn once (``explorer_build``), and
the chapter-3 data the golf figures and the onset explorer draw (``golf_swing``,
``golf_optimum``, ``golf_ground``, the 3-D downswing and its ground wrench,
``golf_balanced``, the balanced one and its feet's loads; ``figure_call``
draws any figure with the data it takes).
"""

import dataclasses
import inspect
import os

import pytest
from hypothesis import settings

settings.register_profile(
    "ci", derandomize=True, max_examples=100, deadline=None, print_blob=True, database=None
)
settings.register_profile(
    "dev",
    derandomize=False,
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "1000")),
    deadline=None,
    print_blob=True,
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or "ci"
settings.load_profile(PROFILE)


def pytest_report_header(config):
    """Say in the log which profile ran (shown when pytest is given tests/companion)."""
    current = settings.default
    return (
        f"hypothesis profile {PROFILE!r}: derandomize={current.derandomize}, each property "
        f"test draws {current.max_examples / 100:g} times the examples it asks for"
    )


# --- The explorers' static blocks, drawn once for the session --------------------------


@dataclasses.dataclass(frozen=True)
class ExplorerBuild:
    """One explorer's display bundle, with what drawing it called and stored."""

    #: ``explorer()._repr_mimebundle_()``: the live widget's view and the static HTML block.
    bundle: dict
    #: ``(name, keyword arguments)`` of every call of a ``figures.*_figure`` function, in
    #: order: the live widget's default view first, then one per frame of the block.
    calls: list
    #: ``(figure, base64 PNG)`` of every frame ``widgets.png_frame`` stored, in grid order.
    frames: list


def _build_explorer(name, arguments):
    from geomotion import figures, widgets  # imported by the tests that ask, not by every run

    calls, frames = [], []

    def recording(function, original):
        signature = inspect.signature(original)

        def record(*args, **values):
            calls.append((function, dict(signature.bind(*args, **values).arguments)))
            return original(*args, **values)

        return record

    def keep(fig):
        png = real_png(fig)
        frames.append((fig, png))
        return png

    real_png = widgets.png_frame
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(widgets, "_BUILT", {})  # drawn here, not taken from an earlier block
        for function in figures.__all__:
            if function.endswith("_figure"):
                patch.setattr(figures, function, recording(function, getattr(figures, function)))
        patch.setattr(widgets, "png_frame", keep)
        bundle = getattr(widgets, name)(*arguments)._repr_mimebundle_()
    return ExplorerBuild(bundle, calls, frames)


@pytest.fixture(scope="session")
def explorer_build(request):
    """``explorer_build(name)``: the :class:`ExplorerBuild` of ``widgets.<name>``.

    Each explorer's frames are drawn once for the whole session (a block of nine frames
    takes seconds), and every test of the block reads the same drawing.  The onset
    explorer is built for the stated golfer and its optimum (``golf_optimum``).
    """
    built = {}

    def build(name):
        if name not in built:
            built[name] = _build_explorer(name, explorer_arguments(name, request))
        return built[name]

    return build


# --- Chapter 3: the data the golf figures and the onset explorer draw -------------------

#: Onsets of the hub, shoulder and wrist generators (s) of the fixed swing the figures are
#: tested on: near the stated golfer's optimum, a cheap input whose clubhead crosses the
#: ball's line.
SWING_ONSET = (0.0, 0.03, 0.08)


@dataclasses.dataclass(frozen=True)
class GolfSwing:
    """The stated swing-plane golfer, its generators at ``SWING_ONSET`` and their run."""

    golfer: object
    generators: object
    downswing: object


@dataclasses.dataclass(frozen=True)
class GolfOptimum:
    """The stated golfer and its optimal onsets (``models.optimise_onsets``, about 15 s)."""

    golfer: object
    optimum: object


@dataclasses.dataclass(frozen=True)
class GolfGround:
    """The 3-D golfer's downswing with every choice at its default (built on
    ``golf_optimum``'s swing), the ground wrench it demands and the least friction of each
    sample."""

    golfer: object
    downswing: object
    resultant: object
    friction: object


@pytest.fixture(scope="session")
def golf_swing():
    import numpy as np

    from geomotion import models

    golfer = models.swing_plane_golfer()
    generators = models.swing_generators(np.array(SWING_ONSET))
    run = models.simulate_downswing(golfer, generators)
    return GolfSwing(golfer, run.generators, run)  # with the run's holding activations


@pytest.fixture(scope="session")
def golf_optimum():
    from geomotion import models

    golfer = models.swing_plane_golfer()
    return GolfOptimum(golfer, models.optimise_onsets(golfer))


@pytest.fixture(scope="session")
def golf_ground(golf_optimum):
    from geomotion import contact, models

    golfer = models.golfer()
    down = models.golfer_downswing(golfer, golf_optimum.golfer, golf_optimum.optimum.downswing)
    resultant = models.ground_wrench(golfer, down.q, down.v, down.a)
    friction = contact.least_friction(golfer.sole_poses(), resultant, golfer.sole_outline())
    return GolfGround(golfer, down, resultant, friction.friction_coefficient)


@dataclasses.dataclass(frozen=True)
class GolfBalanced:
    """The chapter's balanced 3-D downswing (``models.BALANCED_CHOICES``, built on
    ``golf_optimum``'s swing) and its feet's certified loads."""

    golfer: object
    downswing: object
    feet: object


@pytest.fixture(scope="session")
def golf_balanced(golf_optimum):
    from geomotion import models

    golfer = models.golfer()
    down = models.golfer_downswing(
        golfer, golf_optimum.golfer, golf_optimum.optimum.downswing, **models.BALANCED_CHOICES
    )
    return GolfBalanced(golfer, down, models.downswing_feet(golfer, down))


#: Figures that need ``golf_optimum`` (the optimisation, about 15 s once per session).
SLOW_FIGURES = {"timing_landscape_figure", "downswing_feet_figure"}
#: Explorers that need it.
SLOW_EXPLORERS = {"onset_explorer"}


def slow_marked(names, slow):
    """``names`` as pytest parameters, those in ``slow`` marked slow."""
    return [pytest.param(name, marks=pytest.mark.slow) if name in slow else name for name in names]


def explorer_arguments(name, request):
    """The positional arguments of ``widgets.<name>`` (the onset explorer's data)."""
    if name == "onset_explorer":
        study = request.getfixturevalue("golf_optimum")
        return (study.golfer, study.optimum)
    return ()


def figure_call(name, request, **options):
    """``figures.<name>`` drawn with the data it takes (the session's golf fixtures), or
    with its defaults; ``options`` are passed on."""
    import numpy as np

    from geomotion import figures

    function = getattr(figures, name)
    swing = lambda: request.getfixturevalue("golf_swing")  # noqa: E731
    if name in ("swing_strobe_figure", "clubhead_speed_figure", "swing_energy_figure"):
        return function(swing().golfer, swing().downswing, **options)
    if name in ("grip_force_figure", "onset_swing_figure"):
        return function(swing().golfer, swing().downswing, swing().generators, **options)
    if name == "timing_landscape_figure":
        study = request.getfixturevalue("golf_optimum")
        return function(study.golfer, study.optimum, **options)
    if name == "impact_speed_histogram_figure":
        speeds = 30.0 + 5.0 * (1.0 + np.sin(np.arange(200)))  # 200 speeds, m/s, 30-40
        return function(speeds, reference=35.0, **options)
    if name == "downswing_feet_figure":
        from geomotion import models

        study = request.getfixturevalue("golf_optimum")
        golfer = models.golfer()
        down = models.golfer_downswing(
            golfer, study.golfer, study.optimum.downswing, **models.BALANCED_CHOICES
        )
        feet = models.downswing_feet(golfer, down)
        violation = models.support_violation(golfer, down)
        share = models.load_share_indeterminacy(golfer, feet, down)
        return function(golfer, down, feet, violation, share=share, **options)
    return function(**options)
