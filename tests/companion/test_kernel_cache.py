"""The compiled kernels' cache (geomotion._kernel_cache): never stale, never in the way.

numba keys a cached kernel by its own file only; the package's kernels call one another
across several files, so a cache keyed that way could serve a kernel compiled from old
code.  The package caches every kernel in a directory named by a digest of all kernel
sources, under NUMBA_CACHE_DIR when set, else the package's __pycache__, else the user's
cache directory; where nothing is writable, kernels compile in memory with one warning.
Checked end to end in subprocesses on a copy of the package: an edited kernel source is
compiled afresh under NUMBA_CACHE_DIR, and an unprivileged user imports a read-only copy.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from geomotion import _kernel_cache

PACKAGE = _kernel_cache.PACKAGE


def test_every_file_that_compiles_a_kernel_is_a_kernel_source():
    compiling = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "numba.njit" in path.read_text()
    }
    assert compiling == set(_kernel_cache.KERNEL_SOURCES)


def copy_of_the_package(tmp_path):
    """A copy of the package's sources (no caches) under tmp_path/src/geomotion."""
    target = tmp_path / "src" / "geomotion"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def test_the_cache_directory_is_named_by_every_kernel_source(tmp_path):
    copy = copy_of_the_package(tmp_path)
    first = _kernel_cache.sources_digest(copy)
    assert first == _kernel_cache.sources_digest(PACKAGE)
    for name in _kernel_cache.KERNEL_SOURCES:  # an edit anywhere moves the directory
        source = copy / name
        text = source.read_text()
        source.write_text(text + "\n# an edit\n")
        assert _kernel_cache.sources_digest(copy) != first, name
        source.write_text(text)
    assert _kernel_cache.sources_digest(copy) == first


def test_numba_cache_dir_is_honoured_and_the_package_cache_is_the_default(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cluster")}
    assert _kernel_cache.candidate_bases(env) == [tmp_path / "cluster"]
    directory = _kernel_cache.cache_directory(env)
    assert directory.parent == tmp_path / "cluster" and directory.name.startswith("kernels-")
    home = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert _kernel_cache.candidate_bases(home)[0] == PACKAGE / "__pycache__"
    assert _kernel_cache.candidate_bases(home)[1] == tmp_path / "xdg" / "geomotion"


RUN_A_KERNEL = """
import warnings
warnings.simplefilter("always")
import numpy as np
from geomotion import _kernel_cache, _linalg
T = np.array([[2.0, 0.0], [1.0, 4.0]])
x = _linalg._solve_lower(T, np.array([[2.0], [9.0]]))
print(float(x[1, 0]), _kernel_cache.DIRECTORY)
"""


def run_a_kernel(copy, env):
    environment = {
        key: value for key, value in os.environ.items() if key not in ("NUMBA_CACHE_DIR",)
    }
    environment.update(env, PYTHONPATH=str(copy.parent), PYTHONDONTWRITEBYTECODE="1")
    result = subprocess.run(
        [sys.executable, "-c", RUN_A_KERNEL], capture_output=True, text=True, env=environment
    )
    assert result.returncode == 0, result.stderr
    value, directory = result.stdout.split()
    return float(value), directory, result.stderr


@pytest.mark.slow  # two subprocesses that compile a kernel: 4.4 s, 12 s on a loaded machine
def test_an_edited_kernel_is_compiled_afresh_under_numba_cache_dir(tmp_path):
    # The review's scenario: NUMBA_CACHE_DIR set, a kernel source edited after its kernel
    # was cached.  Before, the cached kernel kept returning the old numbers.
    copy = copy_of_the_package(tmp_path)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    value, first, _ = run_a_kernel(copy, env)
    assert value == 2.0  # x1 = (9 - 1 * 1) / 4
    assert any(pathlib.Path(first).rglob("*_triangular_rows*.nbi"))  # cached there
    source = copy / "_linalg.py"
    text = source.read_text()
    edited = text.replace("x[i, col] /= t[i, i]", "x[i, col] /= 0.5 * t[i, i]")
    assert edited != text
    source.write_text(edited)
    value, second, _ = run_a_kernel(copy, env)
    assert second != first and pathlib.Path(second).parent == tmp_path / "cache"
    assert value == (9.0 - 1.0 * 2.0) / 2.0  # the edited code ran (x0 = 2), not the old cache


@pytest.mark.skipif(not shutil.which("setpriv"), reason="needs setpriv (util-linux)")
def test_an_unprivileged_user_imports_a_read_only_copy(tmp_path):
    # A system-wide install: the package read-only, no home directory, no NUMBA_CACHE_DIR.
    # Before, import failed with "cannot cache function ... no locator available".
    copy = copy_of_the_package(tmp_path)
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    prefix = []
    if os.geteuid() == 0:  # root writes anywhere: run as nobody
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        # nobody must reach this environment's interpreter and numpy (a checkout inside a
        # private directory, as mktemp -d makes, hides them: nothing to test there)
        probe = subprocess.run(
            [*prefix, sys.executable, "-c", "import numpy, numba"], capture_output=True, cwd="/"
        )
        if probe.returncode != 0:
            pytest.skip("this Python environment is not readable by an unprivileged user")
    environment = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(copy.parent),
        "PYTHONDONTWRITEBYTECODE": "1",
        "HOME": "/nonexistent",
        "OPENBLAS_NUM_THREADS": "1",
    }
    result = subprocess.run(
        [*prefix, sys.executable, "-c", RUN_A_KERNEL],
        capture_output=True,
        text=True,
        env=environment,
        cwd="/",
    )
    assert result.returncode == 0, result.stderr
    value, directory = result.stdout.split()
    assert float(value) == 2.0 and directory == "None"
    assert result.stderr.count("no writable directory for the compiled kernels' cache") == 1
    assert "NUMBA_CACHE_DIR" in result.stderr


WARM_THEN_USE = """
import numba, numpy as np
from geomotion import constraints, models, tree, _linalg
from geomotion.tree import _closed_loop, _flat, _lanes, _lanes_coriolis, _lanes_frames

def compiled():
    return {
        (module.__name__, name): len(obj.signatures)
        for module in (_linalg, _flat, _lanes, _lanes_coriolis, _lanes_frames, _closed_loop)
        for name, obj in vars(module).items()
        if isinstance(obj, numba.core.registry.CPUDispatcher)
    }

tree.compile_kernels()
before = compiled()
# the kernels called from Python (the helpers they call may serve several callers)
entries = {"_certified_rows", "_triangular_rows"}
print(sorted(
    key for key, count in before.items()
    if count > 1 and (not key[1].startswith("_") or key[1] in entries)
))
golfer = models.golfer()
both = constraints.ClosureSet(golfer.constraints(golfer.q0))
chain = models.random_tree(6, rng=1)
rng = np.random.default_rng(2)
for batch in ((), (20,)):
    for model in (golfer.model, chain):
        q = tree.random_configuration(model, shape=batch, rng=rng)
        v = rng.normal(size=(*batch, model.nv))
        tree.aba(model, q, v, v), tree.rnea(model, q, v, v), tree.crba(model, q)
        tree.coriolis_matrix(model, q, v), tree.bias_forces(model, q, v)
        tree.point_acceleration_bias(model, q, v, model.num_bodies - 1, [0.1, 0.0, 0.0])
        tree.frame_kinematics(model, q, v, 1, np.eye(4), reference="local_world_aligned")
    q = tree.integrate(golfer.model, golfer.q0, rng.normal(size=(*batch, golfer.model.nv)), 0.01)
    v = rng.normal(size=(*batch, golfer.model.nv))
    both.forward_dynamics(q, v, v)
    constraints.constrained_dynamics(tree.crba(golfer.model, q), both.jacobian(q), 0.0, 0.0, v)
after = compiled()
print(sorted(key for key in after if after[key] > before.get(key, 0)))
"""


def test_compile_kernels_leaves_nothing_to_compile_at_first_use():
    # After tree.compile_kernels, the calls a notebook makes (every algorithm, both
    # paths, other models) compile no new kernel signature: a kernel it missed would
    # compile in the middle of a cell (it took a fresh clone's cell past 30 s).
    import subprocess
    import sys

    # And compile_kernels compiles each kernel called from Python once: a second
    # signature of the same kernel (a read-only gravity row for one configuration, a
    # writable one for a batch) doubled the closed-loop pass's compile, 9 s of 96.
    result = subprocess.run(
        [sys.executable, "-c", WARM_THEN_USE], capture_output=True, text=True, check=True
    )
    twice, missed = result.stdout.strip().splitlines()
    assert twice == "[]", f"kernels compiled for more than one signature: {twice}"
    assert missed == "[]", missed
