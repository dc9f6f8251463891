"""Print the environment of the notebooks' second instruction set (``make test``).

Usage: ``python .ci/second_isa_env.py NUMBA_CACHE_DIR`` prints ``NAME=value`` pairs for
``env``: numpy's SIMD dispatch turned off for every feature this machine offers above the
build's baseline (``NPY_DISABLE_CPU_FEATURES``), OpenBLAS's kernels for an older core
(``OPENBLAS_CORETYPE=Nehalem``, SSE only), and geomotion's compiled kernels built for a
generic x86-64 (``NUMBA_CPU_NAME=generic``) and cached apart in the given directory.  On
another architecture only the numba settings are printed.
"""

import platform
import sys


def dispatched_features():
    """numpy's dispatched SIMD features that this machine has (empty if none or unknown)."""
    try:
        from numpy._core import _multiarray_umath as umath  # numpy 2
    except ImportError:  # pragma: no cover - numpy 1
        from numpy.core import _multiarray_umath as umath
    found = getattr(umath, "__cpu_features__", {})
    return [name for name in getattr(umath, "__cpu_dispatch__", []) if found.get(name)]


def main(cache_dir):
    settings = ["NUMBA_CPU_NAME=generic", f"NUMBA_CACHE_DIR={cache_dir}"]
    if platform.machine() in ("x86_64", "AMD64"):
        features = dispatched_features()
        if features:
            settings.insert(0, "NPY_DISABLE_CPU_FEATURES=" + ",".join(features))
        settings.insert(1 if features else 0, "OPENBLAS_CORETYPE=Nehalem")
    print(" ".join(settings))


if __name__ == "__main__":
    main(sys.argv[1])
