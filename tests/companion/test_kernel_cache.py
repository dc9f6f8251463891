"""numba's cached kernels are dropped when any kernel source changes (geomotion._linalg).

numba keys a cached kernel by its own file only; the package's kernels call one another
across five files, so after an edit to one of them a cached kernel of another would run
stale code.  ``drop_stale_kernels`` keeps a digest of the five sources beside the caches.
"""

import pathlib
import shutil

from geomotion import _linalg

PACKAGE = pathlib.Path(_linalg.__file__).parent


def copy_of_the_kernel_sources(root):
    for name in _linalg.KERNEL_SOURCES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PACKAGE / name, root / name)


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
