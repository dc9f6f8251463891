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

Also a session fixture: the explorers' static blocks, drawn once (``explorer_build``).
"""

import dataclasses
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


def _build_explorer(name):
    from geomotion import figures, widgets  # imported by the tests that ask, not by every run

    calls, frames = [], []

    def recording(function, original):
        def record(**values):
            calls.append((function, values))
            return original(**values)

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
        bundle = getattr(widgets, name)()._repr_mimebundle_()
    return ExplorerBuild(bundle, calls, frames)


@pytest.fixture(scope="session")
def explorer_build():
    """``explorer_build(name)``: the :class:`ExplorerBuild` of ``widgets.<name>``.

    Each explorer's frames are drawn once for the whole session (the block of the largest,
    twelve frames, takes seconds), and every test of the block reads the same drawing.
    """
    built = {}

    def build(name):
        if name not in built:
            built[name] = _build_explorer(name)
        return built[name]

    return build
