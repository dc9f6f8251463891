r"""The swing study's population run on ``dask.distributed``, and its results file.

* :func:`run_population`: one task per golfer (:func:`geomotion.models.optimise_golfer`)
  on a ``dask.distributed`` client, by default a ``LocalCluster`` of one
  single-threaded worker process per core; the rows written to a CSV file after ``#``
  lines that record the code version, the seed, the dask version, the workers and the
  wall time;
* :func:`read_population` -> :class:`Population`: the file read back and validated.

``make population`` runs 200 golfers (``book/_tools/swing_population.py``) into
``notebooks/data/swing_population.csv``, the file the swing chapter reads; ``make
population SCHEDULER=tcp://host:8786`` runs the same code on a cluster whose workers
import geomotion.  dask is imported only inside :func:`run_population`: importing
:mod:`geomotion.models` does not import it.
"""

import contextlib
import csv
import dataclasses
import datetime
import os
import pathlib
import subprocess
import time
from dataclasses import dataclass

import numpy as np

from .. import __version__, _validate
from ._population import (
    COLUMNS,
    HEAD_MASSES,
    POPULATION_STUDY_RANGES,
    REASONS,
    RESULT_COLUMNS,
    SMOOTH_CERTIFICATE,
    STATUSES,
    GolferDraw,
    draw_golfers,
    optimise_golfer,
)

__all__ = ["Population", "run_population", "read_population"]


@dataclass(frozen=True)
class Population:
    """The study's rows and how they were made (:func:`run_population`,
    :func:`read_population`).

    Attributes
    ----------
    rows : tuple of dict
        One per golfer, sorted by index: ``COLUMNS`` to values (int ``index``, str
        ``sex``, ``status`` and ``reason`` (None for an optimum), floats, None for an
        empty result).
    metadata : dict of str to str
        ``geomotion_version``, ``git_commit``, ``date``, ``rng`` (the seed), ``count``,
        ``dask_version``, ``workers`` and ``wall_time`` (s).
    """

    rows: tuple
    metadata: dict

    def column(self, name):
        """The values of numeric column ``name`` of ``COLUMNS``, NaN where empty.

        Parameters
        ----------
        name : str

        Returns
        -------
        ndarray

        Raises
        ------
        ValueError
            If ``name`` is not a numeric column.
        """
        if name not in COLUMNS or name in ("sex", "status", "reason"):
            raise ValueError(f"name: expected a numeric column of COLUMNS, got {name!r}")
        return np.array([np.nan if r[name] is None else r[name] for r in self.rows])

    def draw(self, index):
        """The :class:`GolferDraw` of golfer ``index`` (to optimise it again).

        Parameters
        ----------
        index : int

        Returns
        -------
        GolferDraw

        Raises
        ------
        ValueError
            If no row has this index.
        """
        fields = [field.name for field in dataclasses.fields(GolferDraw)]
        for row in self.rows:
            if row["index"] == index:
                return GolferDraw(**{name: row[name] for name in fields})
        raise ValueError(f"index: expected a golfer index of the rows, got {index!r}")


_METADATA = ("geomotion_version", "git_commit", "date", "rng", "count", "dask_version", "workers")
_METADATA += ("wall_time",)
_HEAD_COLUMNS = tuple(f"{q}_head_{round(1000 * m)}" for m in HEAD_MASSES for q in ("speed", "miss"))


def _git_commit():
    """The commit of the package's checkout, or "unknown"."""
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=pathlib.Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return found.stdout.strip() or "unknown"


def run_population(count, *, rng=2026, client=None, path=None):
    """Optimise ``count`` drawn golfers, one ``dask.distributed`` task each.

    Parameters
    ----------
    count : int
        Number of golfers (:func:`draw_golfers`), >= 1 (``make population``: 200).
    rng : int, keyword only
        The seed of the draw (recorded in the file), >= 0; default 2026.
    client : None, str or distributed.Client, keyword only
        Default None: a ``LocalCluster`` of ``os.cpu_count()`` worker processes, one
        thread and one BLAS thread each, started and closed here.  A scheduler address
        (e.g. ``"tcp://host:8786"``, connected and closed here) or a client is used as
        it is; its workers must import geomotion.
    path : None, str or os.PathLike, keyword only
        Where to write the rows as CSV (``#`` lines first: the metadata); default None.

    Returns
    -------
    Population

    Raises
    ------
    TypeError
        If ``count`` or ``rng`` is not an integer, or ``client`` or ``path`` has the
        wrong type.
    ValueError
        If ``count`` < 1 or ``rng`` < 0.
    ModuleNotFoundError
        If ``dask.distributed`` is not installed (the ``book`` extra's).
    """
    count = _validate.count(count, "count", minimum=1, whole_floats=False)
    seed = _validate.count(rng, "rng", minimum=0, whole_floats=False)
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected None, a str or a path, got {type(path).__name__}")
    import dask
    import distributed

    if client is not None and not isinstance(client, (str, distributed.Client)):
        raise TypeError(
            f"client: expected None, a scheduler address or a distributed.Client, "
            f"got {type(client).__name__}"
        )
    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=os.cpu_count(),
                    threads_per_worker=1,
                    processes=True,
                    # Any free port for the scheduler's HTTP server: with None it still
                    # binds 8787, and warns if another cluster holds that port.
                    dashboard_address=":0",
                    env={"OPENBLAS_NUM_THREADS": "1"},
                )
            )
        if not isinstance(client, distributed.Client):  # a cluster or an address
            client = stack.enter_context(distributed.Client(client))
        commit, start = _git_commit(), time.perf_counter()  # the code that runs, at its start
        futures = client.map(optimise_golfer, draw_golfers(count, rng=seed), pure=False)
        rows = [future.result() for future in distributed.as_completed(futures)]
        wall_time = time.perf_counter() - start
        workers = len(client.nthreads())
    metadata = {
        "geomotion_version": __version__,
        "git_commit": commit,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "rng": str(seed),
        "count": str(count),
        "dask_version": dask.__version__,
        "workers": str(workers),
        "wall_time": f"{wall_time:.1f}",
    }
    population = Population(rows=tuple(sorted(rows, key=lambda r: r["index"])), metadata=metadata)
    if path is not None:
        _write(path, population)
    return population


def _write(path, population):
    """The population as CSV: ``#`` metadata lines, then the columns and rows."""
    with open(path, "w", newline="") as file:
        file.write("# The swing study's population (geomotion.models.run_population)\n")
        file.writelines(f"# {key}: {value}\n" for key, value in population.metadata.items())
        writer = csv.writer(file)
        writer.writerow(COLUMNS)
        for row in population.rows:
            writer.writerow(["" if row[c] is None else row[c] for c in COLUMNS])


def _parsed(row, path, line):
    """A CSV row's values, validated (see read_population)."""
    where = f"{path}, line {line}"
    values = dict(zip(COLUMNS, row, strict=True))
    if values["sex"] != "male" or values["status"] not in STATUSES:
        raise ValueError(f"{where}: expected sex 'male' and a status among {STATUSES}, got {row}")
    optimum = values["status"] == "optimum"
    if (values["reason"] != "") if optimum else (values["reason"] not in REASONS):
        raise ValueError(
            f"{where}: expected no reason for an optimum, else a reason among {REASONS}, "
            f"got status {values['status']!r} with reason {values['reason']!r}"
        )
    parsed = {"sex": "male", "status": values["status"], "reason": values["reason"] or None}
    try:
        parsed["index"] = int(values["index"])
        for name in (*POPULATION_STUDY_RANGES, "wall_time"):
            parsed[name] = float(values[name])
        for name in ("lowest_pass", *RESULT_COLUMNS):
            parsed[name] = float(values[name]) if values[name] else None
    except ValueError as error:
        raise ValueError(f"{where}: expected numbers, got {row} ({error})") from None
    if parsed["lowest_pass"] is not None and values["status"] != "no reaching swing":
        raise ValueError(f"{where}: a lowest pass with status {values['status']!r}")
    empty = [name for name in RESULT_COLUMNS if parsed[name] is None]
    optional = _HEAD_COLUMNS + (SMOOTH_CERTIFICATE if parsed["at_kink"] == 1.0 else ())
    required = [name for name in empty if name not in optional]
    if parsed["status"] == "optimum" and required:
        raise ValueError(f"{where}: an optimum without {required}")
    if parsed["status"] != "optimum" and len(empty) < len(RESULT_COLUMNS):
        raise ValueError(f"{where}: status {parsed['status']!r} with results (expected empty)")
    return {name: parsed[name] for name in COLUMNS}


def read_population(path):
    """The rows and metadata of a file that :func:`run_population` wrote.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    Population

    Raises
    ------
    TypeError
        If ``path`` is not a str or a path.
    FileNotFoundError
        If there is no such file.
    ValueError
        If the file is not such a file (naming the path and the problem): metadata
        missing, other columns, a non-numeric value, a result for a failed golfer or
        none for an optimum, a reason for an optimum or none (or an unknown one) for a
        failed golfer, a lowest pass for a golfer that reached, indices not increasing,
        or a row count other than the metadata's.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a str or a path, got {type(path).__name__}")
    lines = pathlib.Path(path).read_text().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    metadata = dict(line[1:].strip().split(": ", 1) for line in comments if ": " in line)
    missing = [key for key in _METADATA if key not in metadata]
    if missing:
        raise ValueError(f"{path}: expected the metadata {_METADATA}, missing {missing}")
    table = list(csv.reader(line for line in lines if not line.startswith("#")))
    if not table or tuple(table[0]) != COLUMNS:
        found = table[0] if table else []
        raise ValueError(
            f"{path}: expected the columns {COLUMNS}; missing {[c for c in COLUMNS if c not in found]}, "
            f"unexpected {[c for c in found if c not in COLUMNS]} (or another order)"
        )
    rows = []
    for line, row in enumerate(table[1:], start=len(comments) + 2):
        if len(row) != len(COLUMNS):
            raise ValueError(f"{path}, line {line}: expected {len(COLUMNS)} fields, got {len(row)}")
        rows.append(_parsed(row, path, line))
    indices = [row["index"] for row in rows]
    if any(b <= a for a, b in zip(indices, indices[1:])):
        raise ValueError(f"{path}: expected golfer indices increasing, got {indices}")
    if str(len(rows)) != metadata["count"]:
        raise ValueError(
            f"{path}: expected {metadata['count']} rows (the metadata's count), got {len(rows)}"
        )
    return Population(rows=tuple(rows), metadata=metadata)
