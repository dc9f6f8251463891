"""The offline browser setup shared by the PDF printer and the browser checks.

``print_pdf.py`` (next to this file) and ``tests/book/pagecheck.py`` both load built
pages the way a reader would, over HTTP from this machine only, in Debian's Chromium
with every other host unresolvable.
"""

import contextlib
import functools
import http.server
import os
import threading
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")  # Debian's package; playwright never downloads a browser

# Quiet, offline Chromium.  The resolver rule makes every host name except 127.0.0.1
# unresolvable, so a page that reaches for the network fails loudly instead of working
# on a developer's machine and breaking for an offline reader.
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]

#: The only host the rendered book may talk to.
LOCAL_HOST = "127.0.0.1"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # keep the callers' output readable
        pass


@contextlib.contextmanager
def serve(directory):
    """Serve ``directory`` over HTTP on 127.0.0.1 at a free port; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=os.fspath(directory))
    with http.server.ThreadingHTTPServer((LOCAL_HOST, 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://{LOCAL_HOST}:{server.server_address[1]}"
        finally:
            server.shutdown()
            thread.join()
