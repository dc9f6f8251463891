"""lab_launcher.py must record a connection attempt that leaves the machine, and only those.

test_lab.py relies on it to see requests that JupyterLab's server makes on the page's
behalf; a recorder that silently recorded nothing would make that check pass vacuously.
"""

import json
import subprocess
import sys
from pathlib import Path

LAUNCHER_DIR = Path(__file__).parent

# Installs the launcher's hook, then looks up one outside name (".invalid" never
# resolves, so nothing is sent) and connects to a closed local port.
PROBE = """
import socket, sys
import lab_launcher
sys.addaudithook(lab_launcher.record)
try:
    socket.getaddrinfo("geomotion-probe.invalid", 443)
except OSError:
    pass
for host in ("127.0.0.1", "localhost"):
    try:
        socket.create_connection((host, 9), timeout=1).close()
    except OSError:
        pass
"""


def test_outside_lookups_are_recorded_and_local_connections_are_not(tmp_path):
    log = tmp_path / "connections.jsonl"
    subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=LAUNCHER_DIR,
        check=True,
        timeout=60,
        env={"GEOMOTION_CONNECTIONS_LOG": str(log), "PATH": "/usr/bin:/bin"},
    )
    recorded = [json.loads(line) for line in log.read_text().splitlines()]
    assert recorded == [
        {"event": "socket.getaddrinfo", "host": "geomotion-probe.invalid", "port": "443"}
    ]
