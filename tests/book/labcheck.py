"""Drive the real JupyterLab of `make lab` in the offline headless Chromium.

Used by test_lab.py.  :func:`running_lab` starts ``jupyter lab`` on 127.0.0.1 at a free
port with a random token and the project's Jupyter configuration (``jupyter_config/``,
the directory `make lab` points JUPYTER_CONFIG_DIR at).  The server runs under
``lab_launcher.py``, which records every outgoing network connection the server process
attempts, so that a request made by the server on the browser's behalf (news feed,
update check) is seen too.  :func:`run_notebook` opens a notebook, clears its stored
outputs, runs all cells in a fresh kernel and waits until every code cell has run.
"""

import contextlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ROOT / "jupyter_config"  # the directory `make lab` uses (test_lab.py checks)
LAUNCHER = Path(__file__).with_name("lab_launcher.py")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}

# Seconds: server start-up, first page load (a cold JupyterLab loads ~10 MB of
# JavaScript), and running the whole notebook.
START_TIMEOUT = 60
LOAD_TIMEOUT = 60_000
RUN_TIMEOUT = 120_000


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_serving(url, process, log):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.3)
    raise RuntimeError(f"jupyter lab did not answer within {START_TIMEOUT} s:\n{log.read_text()}")


# JupyterLab keeps only the cells near the viewport in the page ("windowing"); the
# checks read every cell, so the test's user settings switch that off.  It changes what
# is in the page, not how a cell is rendered.
TEST_USER_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


@contextlib.contextmanager
def running_lab(root_dir, work_dir):
    """Start JupyterLab serving ``root_dir``; yield ``(base_url, token, connections_log)``.

    User settings (:data:`TEST_USER_SETTINGS`) and workspaces go to ``work_dir``, so the
    run neither reads nor changes anything in the repository or in the user's home.  The
    connections log (JSON lines) lists the server's outgoing connection attempts to
    non-local hosts.
    """
    port, token = _free_port(), secrets.token_hex(16)
    work_dir = Path(work_dir)
    for name, settings in TEST_USER_SETTINGS.items():
        path = work_dir / "user-settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    server_log, connections = work_dir / "lab.log", work_dir / "connections.jsonl"
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=os.fspath(CONFIG_DIR),
        JUPYTER_PREFER_ENV_PATH="1",
        GEOMOTION_CONNECTIONS_LOG=os.fspath(connections),
    )
    command = [
        sys.executable,
        os.fspath(LAUNCHER),
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root_dir}",
        f"--LabApp.user_settings_dir={work_dir / 'user-settings'}",
        f"--LabApp.workspaces_dir={work_dir / 'workspaces'}",
    ]
    with open(server_log, "w") as log_file:
        process = subprocess.Popen(command, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(f"{base_url}/api/status?token={token}", process, server_log)
        yield base_url, token, connections
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def outside_connections(connections_log):
    """The server's recorded connection attempts to hosts other than this machine."""
    if not Path(connections_log).exists():
        return []
    return [json.loads(line) for line in Path(connections_log).read_text().splitlines()]


# True once every code cell shows an execution count and the kernel is idle.
ALL_CELLS_RAN_JS = r"""
() => {
  const prompts = Array.from(document.querySelectorAll(".jp-CodeCell .jp-InputArea-prompt"));
  const status = document.querySelector(".jp-Notebook-ExecutionIndicator");
  const idle = !status || status.getAttribute("data-status") === "idle";
  return prompts.length > 0 && idle && prompts.every((p) => /^\[\d+\]:$/.test(p.textContent.trim()));
}
"""


def _menu(page, menu, item):
    page.get_by_role("menuitem", name=menu, exact=True).click()
    page.get_by_role("menuitem", name=item, exact=True).click()


def run_notebook(page, base_url, token, notebook):
    """Open ``notebook`` in JupyterLab, clear its stored outputs and run all its cells.

    Returns once every code cell has an execution count from this kernel and the
    kernel is idle.  Clearing first makes sure that nothing checked afterwards is an
    output stored in the file.
    """
    page.goto(f"{base_url}/lab/tree/{notebook}?token={token}", wait_until="load")
    page.wait_for_selector(".jp-NotebookPanel .jp-MarkdownCell", timeout=LOAD_TIMEOUT)
    page.get_by_text("| Idle").wait_for(timeout=LOAD_TIMEOUT)  # the kernel has started
    _menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-CodeCell .jp-OutputArea-output').length === 0",
        timeout=LOAD_TIMEOUT,
    )
    _menu(page, "Run", "Run All Cells")
    page.wait_for_function(ALL_CELLS_RAN_JS, timeout=RUN_TIMEOUT, polling=500)
