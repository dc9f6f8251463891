"""Benchmark: the swing study's population on one ``dask.distributed`` worker and on two.

Run with ``make bench-population``, or on its own:
``OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_population.py [--count 20]``.

The same golfers (the first ``--count`` of the study's draw, seed 2026) are optimised
by :func:`geomotion.models.run_population` on a ``LocalCluster`` of one worker process
and then of two (one thread each); the time is run_population's own, from the first
task submitted to the last result (the cluster's start-up, about 2 s, is left out).
Printed: the wall time, the throughput (golfers per minute), the cost per golfer (s of
one worker), the speed-up of two workers over one, and the golfers' statuses and own
times (``wall_time``: the spread that load balancing has to absorb).

Targets (issue 38, item 6): 200 golfers within 20 min on the 2-core machine (at most
12 s of a worker per golfer with both cores), and two workers close to twice one
worker's throughput.  This is a report: it exits with status 0 whether or not the
targets are met, and prints every missed target at the end.

Measured on the 2-core machine (2026-12-05, after the damped stops, the holding
activations, the contact band and the hub's moment about the plane normal; 20 golfers,
seed 2026, the machine otherwise idle, load 0.9-1.9):

=========  =======  ============  ==========================
workers    wall, s  golfers/min   s of a worker per golfer
=========  =======  ============  ==========================
1          180.1    6.66          9.0
2          91.6     13.10         9.2
=========  =======  ============  ==========================

Two workers: a speed-up of 1.97 over one.  The golfers' own times spread from 2.0 to 14 s
(median 8.6 s; 18 optima, 1 certificate failed, 1 with no reaching swing).  At this
cost 200 golfers take about 15.3 min on the two cores.  The full run of ``make
population`` (200 golfers, while two other jobs shared the machine): 1504 s, 15.0 s of a
worker per golfer; 169 optima, 12 failed certificates, 19 golfers with no reaching swing.
"""

import argparse
import collections
import os

import numpy as np
from distributed import Client, LocalCluster

from geomotion import models

TARGET_COST = 20 * 60 * 2 / 200  # s of a worker per golfer: 200 golfers, 2 cores, 20 min
TARGET_SPEEDUP = 1.8  # "close to twice"


def run(count, workers):
    """run_population of ``count`` golfers on a fresh LocalCluster of ``workers`` processes."""
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            env={"OPENBLAS_NUM_THREADS": "1"},
        ) as cluster,
        Client(cluster) as client,
    ):
        client.wait_for_workers(workers)
        return models.run_population(count, client=client)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20, help="golfers per run (default 20)")
    count = parser.parse_args().count
    print(f"{count} golfers (seed 2026) on {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}")
    walls = {}
    for workers in (1, 2):
        population = run(count, workers)
        walls[workers] = wall = float(population.metadata["wall_time"])
        own = population.column("wall_time")
        statuses = dict(collections.Counter(row["status"] for row in population.rows))
        print(
            f"{workers} worker(s): {wall:6.1f} s, {60 * count / wall:5.2f} golfers/min, "
            f"{wall * workers / count:5.1f} s of a worker per golfer; load "
            f"{os.getloadavg()[0]:.2f}\n"
            f"  each golfer's own time: min {own.min():.1f}, median {np.median(own):.1f}, "
            f"max {own.max():.1f} s; statuses {statuses}"
        )
    speedup = walls[1] / walls[2]
    cost = walls[2] * 2 / count
    print(f"speed-up of two workers over one: {speedup:.2f}")
    print(f"200 golfers on two workers at this cost: {200 * cost / 2 / 60:.1f} min")
    missed = []
    if cost > TARGET_COST:
        missed.append(f"cost per golfer {cost:.1f} s of a worker > {TARGET_COST:.0f} s")
    if speedup < TARGET_SPEEDUP:
        missed.append(f"speed-up {speedup:.2f} < {TARGET_SPEEDUP}")
    print("missed targets:", "; ".join(missed) if missed else "none")


if __name__ == "__main__":
    main()
