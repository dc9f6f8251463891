"""Run ``jupyter lab`` with a record of every outgoing network connection of the server.

Usage: ``python lab_launcher.py [jupyter lab options]`` with the environment variable
GEOMOTION_CONNECTIONS_LOG naming a file.  A Python audit hook sees each name lookup
(``socket.getaddrinfo``) and each connection (``socket.connect``) the server process
attempts; those aimed at any host other than this machine are appended to that file as
JSON lines.  The browser test cannot see such requests itself: a news feed or an update
check is fetched by the server on the page's behalf.
"""

import ipaddress
import json
import os
import sys

LOG_VARIABLE = "GEOMOTION_CONNECTIONS_LOG"
LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_local(host):
    """True for a loopback address or name, and for the wildcard address of a listener."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode()
    host = str(host)
    if host in LOCAL_NAMES or host == "":
        return True
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False  # a name other than localhost: resolving it may already leave the machine
    return address.is_loopback or address.is_unspecified


def record(event, args):
    """Audit hook: log lookups and connections to hosts that are not this machine."""
    if event == "socket.getaddrinfo":
        host, port = args[0], args[1]
    elif event == "socket.connect":
        address = args[1]
        if not isinstance(address, tuple):  # a Unix socket path
            return
        host, port = address[0], address[1]
    else:
        return
    if not is_local(host):
        with open(os.environ[LOG_VARIABLE], "a") as log:
            log.write(json.dumps({"event": event, "host": str(host), "port": str(port)}) + "\n")


if __name__ == "__main__":
    sys.addaudithook(record)
    from jupyterlab.labapp import main

    sys.argv[0] = "jupyter-lab"
    sys.exit(main())
