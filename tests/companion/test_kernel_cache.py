"""numba's cached kernels are dropped when any kernel source changes (geomotion._linalg).

numba keys a cached kernel by its own file only; the package's kernels call one another
across several files, so after an edit to one of them a cached kernel of another would
run stale code.  ``drop_stale_kernels`` keeps a digest of those sources beside the
caches, and every file of the package that compiles a kernel must be among them.
"""

import pathlib
import shutil

from geomotion import _linalg

PACKAGE = pathlib.Path(_linalg.__file__).parent


def copy_of_the_kernel_sources(root):
    for name in _linalg.KERNEL_SOURCES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PACKAGE / name, root / name)


def test_every_file_that_compiles_a_kernel_is_a_kernel_source():
    compiling = {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "numba.njit" in path.read_text()
    }
    assert compiling == set(_linalg.KERNEL_SOURCES)


def test_cached_kernels_are_dropped_after_a_kernel_source_changes(tmp_path):
    copy_of_the_kernel_sources(tmp_path)
    index = tmp_path / "tree" / "__pycache__" / "_lanes.crba-500.py311.nbi"
    data = tmp_path / "__pycache__" / "_linalg._cholesky_in_place-300.py311.1.nbc"
    for cache in (index, data):
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(b"compiled")
    assert _linalg.drop_stale_kernels(tmp_path) == 2  # no digest yet: nothing is trusted
    assert not index.exists() and not data.exists()
    index.write_bytes(b"compiled")
    assert _linalg.drop_stale_kernels(tmp_path) == 0  # the same sources: kept
    assert index.exists()
    jit = tmp_path / "tree" / "_jit.py"
    jit.write_text(jit.read_text() + "\n# an edit\n")
    assert _linalg.drop_stale_kernels(tmp_path) == 1
    assert not index.exists()


WARM_THEN_USE = """
import numba, numpy as np
from geomotion import constraints, models, tree, _linalg
from geomotion.tree import _closed_loop, _jit, _jit_frames, _lanes

def compiled():
    return {
        (module.__name__, name): len(obj.signatures)
        for module in (_linalg, _jit, _jit_frames, _lanes, _closed_loop)
        for name, obj in vars(module).items()
        if isinstance(obj, numba.core.registry.CPUDispatcher)
    }

tree.compile_kernels()
before = compiled()
golfer = models.golfer()
both = constraints.ClosureSet(golfer.constraints(golfer.q0))
chain = models.random_tree(np.random.default_rng(1), 6)
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

    result = subprocess.run(
        [sys.executable, "-c", WARM_THEN_USE], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", result.stdout
