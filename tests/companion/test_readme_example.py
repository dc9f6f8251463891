"""The README's Python example runs, and gives the value its comment states."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_example_runs_and_its_comment_is_true():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) == 1, "expected one Python example in the README"
    namespace = {}
    exec(blocks[0], namespace)  # noqa: S102 - the repository's own README
    torque = namespace["tree"].bias_forces(namespace["pendulum"], [0.0], [0.0])
    np.testing.assert_allclose(torque, [2.0 * 9.81 * 0.5 / 2], rtol=1e-14)  # m g L / 2
    assert "4.905 N m" in blocks[0]
