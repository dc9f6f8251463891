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
"""

import os

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
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
