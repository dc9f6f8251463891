"""Where the package's compiled kernels are cached, so that a cache can never serve old code.

numba keys a cached kernel by its own source file alone, while the package's kernels call
one another across files: after an edit to one of them (or an upgrade of the package), a
kernel of another file loaded from its cache would still run the old code it compiled in,
and give the old numbers.  So every kernel of the package is cached in a directory named
by a digest of all the kernel sources (:data:`KERNEL_SOURCES`): any change to any of them
means a new directory and a fresh compile; no cache of other code can be found there.

The directory, ``kernels-<digest>``, is made under the first writable of (the package's
own ``__pycache__`` keeps only the current one):

* ``NUMBA_CACHE_DIR``, when it is set (clusters and containers set it): honoured, and
  the only place tried;
* the package's own ``__pycache__`` (a development checkout, a user's environment);
* the user's cache directory, ``$XDG_CACHE_HOME/geomotion`` or ``~/.cache/geomotion`` (a
  system-wide, read-only install).

Where none is writable, kernels compile in memory at each process's first call (``CACHE``
is False) and one warning says how to enable caching.  The locator is numba's own
mechanism (a cache locator class, asked first), registered for this package's files only:
numba's settings and other libraries' kernels are left alone.
"""

import hashlib
import os
import pathlib
import shutil
import tempfile
import warnings

from numba.core import caching

PACKAGE = pathlib.Path(__file__).resolve().parent

#: The files of the package that compile kernels (a test checks the list is complete).
KERNEL_SOURCES = (
    "_linalg.py",
    "tree/_flat.py",
    "tree/_lanes.py",
    "tree/_lanes_frames.py",
    "tree/_lanes_coriolis.py",
    "tree/_single.py",
    "tree/_closed_loop.py",
)


def sources_digest(root=PACKAGE):
    """The first 16 hex digits of a SHA-256 of every kernel source (names and bytes)."""
    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        digest.update(name.encode())
        digest.update((root / name).read_bytes())
    return digest.hexdigest()[:16]


def _writable(path):
    """Whether ``path`` exists or can be made, and a file can be written in it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def candidate_bases(environ=os.environ, root=PACKAGE):
    """The directories tried, in order, for the cache (see the module notes)."""
    if environ.get("NUMBA_CACHE_DIR"):
        return [pathlib.Path(environ["NUMBA_CACHE_DIR"])]
    bases = [root / "__pycache__"]
    if environ.get("XDG_CACHE_HOME"):
        bases.append(pathlib.Path(environ["XDG_CACHE_HOME"]) / "geomotion")
    else:
        try:
            bases.append(pathlib.Path.home() / ".cache" / "geomotion")
        except (RuntimeError, KeyError):  # no home directory
            pass
    return bases


def cache_directory(environ=os.environ, root=PACKAGE):
    """The kernels' cache directory for the current sources, or None if none is writable.

    In the package's own ``__pycache__``, the directories of earlier sources are deleted
    (they belong to this copy of the package and can never be loaded again); elsewhere
    they are left alone, since another installed copy may use them.
    """
    name = f"kernels-{sources_digest(root)}"
    for base in candidate_bases(environ, root):
        if _writable(base / name):
            if base == root / "__pycache__":
                for old in base.glob("kernels-*"):
                    if old.name != name:
                        shutil.rmtree(old, ignore_errors=True)
            return base / name
    return None


class _DigestLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """numba's cache locator for this package's kernels: :data:`DIRECTORY`."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._path = os.path.join(DIRECTORY, self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._path

    @classmethod
    def from_function(cls, py_func, py_file):
        if DIRECTORY is None or not pathlib.Path(py_file).resolve().is_relative_to(PACKAGE):
            return None  # not ours: numba's own locators decide
        return super().from_function(py_func, py_file)


#: The cache directory of this process's kernels, or None (compiled in memory).
DIRECTORY = cache_directory()

#: Whether the kernels are cached (the ``cache`` flag of every kernel decorator).
CACHE = DIRECTORY is not None

if CACHE:
    if _DigestLocator not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes.insert(0, _DigestLocator)
else:
    warnings.warn(
        "geomotion: no writable directory for the compiled kernels' cache (tried "
        + ", ".join(str(base) for base in candidate_bases())
        + "); the kernels compile in memory in every process, about two minutes at first use. "
        "Set NUMBA_CACHE_DIR to a writable directory to cache them.",
        RuntimeWarning,
        stacklevel=2,
    )
