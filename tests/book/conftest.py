"""Fixture shared by the browser tests: the offline headless Chromium."""

import os

import pytest
from pagecheck import CHROMIUM, chromium

SKIP_MESSAGE = (
    f"browser check skipped: {CHROMIUM} not found, so the rendered pages were NOT checked; "
    "install Debian's chromium (apt-get install chromium) to enable it"
)
_skipped = []


@pytest.fixture(scope="session")
def browser():
    """Headless offline Chromium, shared by all browser tests.

    Without /usr/bin/chromium the browser check cannot run.  In CI (CI=true) that is
    a failure; on a developer's machine the tests are skipped with a message that
    says how to enable them.
    """
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser check needs {CHROMIUM}; in CI .ci/run installs it")
        _skipped.append(True)
        pytest.skip(SKIP_MESSAGE)
    with chromium() as browser:
        yield browser


def pytest_terminal_summary(terminalreporter):
    """State the skip once, prominently, above the per-test summary."""
    if _skipped:
        terminalreporter.write_sep("!", SKIP_MESSAGE, yellow=True, bold=True)
