"""Run the swing study's population and write the file the swing chapter reads.

``make population`` runs it: 200 golfers (:func:`geomotion.models.run_population`) on a
``LocalCluster`` of the machine's cores, written to ``notebooks/data/swing_population.csv``.
``make population COUNT=20 SCHEDULER=tcp://host:8786`` runs 20 golfers on a running
``dask.distributed`` scheduler instead (its workers must import geomotion).  The summary
printed at the end gives the wall time, the cost per golfer and the status counts.
"""

import argparse
import collections

from geomotion import models


def main():
    """Parse the options, run the study, write the file and print its summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="golfers (default 200)")
    parser.add_argument("--rng", type=int, default=2026, help="seed of the draw (default 2026)")
    parser.add_argument("--scheduler", default="", help="a scheduler address (default: local)")
    parser.add_argument("--output", default="notebooks/data/swing_population.csv")
    options = parser.parse_args()
    population = models.run_population(
        options.count, rng=options.rng, client=options.scheduler or None, path=options.output
    )
    meta = population.metadata
    wall, workers = float(meta["wall_time"]), int(meta["workers"])
    statuses = collections.Counter(row["status"] for row in population.rows)
    print(f"{options.count} golfers on {workers} workers in {wall:.0f} s -> {options.output}")
    print(f"cost per golfer: {wall * workers / options.count:.1f} s of a worker")
    print("statuses:", dict(statuses))


if __name__ == "__main__":
    main()
