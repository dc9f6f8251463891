"""The notebook kernel of the build and of nbval is the project's own Python.

Both start the kernel named in each notebook ("python3").  A kernelspec of that name
left in a user's ~/.local/share/jupyter would shadow the environment's and run the
notebooks with some other interpreter and other package versions.  The Makefile sets
JUPYTER_PREFER_ENV_PATH=1 against this; here a decoy user kernelspec checks that it
works.
"""

import json
import sys
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import start_new_kernel


def test_python3_kernel_runs_this_environment(tmp_path, monkeypatch):
    decoy = tmp_path / "kernels" / "python3"
    decoy.mkdir(parents=True)
    (decoy / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [
                    "/nonexistent/python",
                    "-m",
                    "ipykernel_launcher",
                    "-f",
                    "{connection_file}",
                ],
                "display_name": "decoy",
                "language": "python",
            }
        )
    )
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path))  # the user-level data directory

    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.resource_dir).is_relative_to(sys.prefix), (
        f"kernel 'python3' resolves to {spec.resource_dir}, outside {sys.prefix}; "
        "run through make (it sets JUPYTER_PREFER_ENV_PATH=1)"
    )

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        lines = []
        client.execute_interactive(
            "import sys; print(sys.executable); print(sys.prefix)",
            output_hook=lambda msg: lines.append(msg["content"].get("text", "")),
            timeout=60,
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert "".join(lines).split() == [sys.executable, sys.prefix]
