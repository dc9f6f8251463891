"""Benchmark: cost per configuration and peak memory of the batched tree algorithms against batch size.

Run with ``make bench`` (after ``bench_dynamics.py``), or on its own:
``OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_scale.py``.

A parameter sweep of a million configurations is one call; its cost per configuration
must not grow with the batch, as Pinocchio's does not.  For the N = 7 chain of
``bench_dynamics.py`` this prints, at 10^3, 10^4, 10^5 and 10^6 configurations per
call, the time per configuration of crba, rnea, aba, coriolis_matrix and point_jacobian
(the fastest of a few rounds, one BLAS thread) next to Pinocchio's (``rneaInParallel`` /
``abaInParallel`` on one thread; ``crba``, ``computeCoriolisMatrix`` and
``computeJointJacobians`` in a loop, whose cost per configuration does not depend on
the batch, timed at 10^4 only), and the peak resident memory of a fresh process that
computes rnea, aba and crba on 10^6 configurations.

Targets (issue "Batched dynamics at any batch size"):
  * time per configuration at 10^6 within 1.25x of the time at 10^4, every algorithm;
  * peak resident memory of the 10^6 process at most 1.5 GiB (its inputs and outputs
    alone take about 0.7 GiB).

The machine's memory bandwidth varies by tens of percent from one run to the next, so
every size is timed over the same million configurations (1,000 calls of 10^3, ...,
one call of 10^6), in several rounds interleaved with the other sizes, and the
fastest round kept.
This is a report: it exits with status 0 whether or not the targets are met, and prints
every missed target at the end.
"""

import os
import subprocess
import sys
import time

import numpy as np
from bench_dynamics import chain, pin, run_report

from geomotion import tree

SIZES = (1_000, 10_000, 100_000, 1_000_000)
N = 7
FLATNESS_TARGET = 1.25  # time per configuration at 10^6 / at 10^4
ROUNDS = 3
TOTAL = 1_000_000  # configurations timed per size and round: 1,000 calls of 10^3, ..., one of 10^6
MEMORY_TARGET_GIB = 1.5

# Run in a fresh interpreter, so that its peak resident set is this computation's alone.
MEMORY_PROBE = """
import resource, sys
import numpy as np
sys.path.insert(0, {bench!r})
from bench_dynamics import chain
from geomotion import tree
model, _ = chain({n})
rng = np.random.default_rng(0)
q, qd, qdd = (rng.uniform(-np.pi, np.pi, ({batch}, {n})) for _ in range(3))
tau = tree.rnea(model, q, qd, qdd)
qdd_back = tree.aba(model, q, qd, tau)
M = tree.crba(model, q)
assert np.abs(qdd_back - qdd).max() < 1e-6
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def best_time(fn, calls):
    """Wall time of ``calls`` consecutive calls of ``fn()`` per call, after one warm-up call.

    Every size is timed over the same total work (``calls * batch`` = 10^6
    configurations), so that short and long calls see the machine for as long.
    """
    fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def per_configuration_times(model, pmodel, batch, repeat, with_pin_loops):
    rng = np.random.default_rng(batch)
    q, qd, qdd = (rng.uniform(-np.pi, np.pi, (batch, N)) for _ in range(3))
    tau = tree.rnea(model, q, qd, qdd)
    Q, V, A, TAU = (np.asfortranarray(x.T) for x in (q, qd, qdd, tau))
    pool = pin.ModelPool(pmodel, 1)
    data = pmodel.createData()
    tip, point = N - 1, np.array([0.1, -0.05, 0.2])

    def pin_loop(function):
        def run():
            for b in range(batch):
                function(pmodel, data, Q[:, b], V[:, b])

        return run if with_pin_loops else None

    ours = {
        "crba": best_time(lambda: tree.crba(model, q), repeat),
        "rnea": best_time(lambda: tree.rnea(model, q, qd, qdd), repeat),
        "aba": best_time(lambda: tree.aba(model, q, qd, tau), repeat),
        "coriolis": best_time(lambda: tree.coriolis_matrix(model, q, qd), repeat),
        "point J": best_time(lambda: tree.point_jacobian(model, q, tip, point), repeat),
    }
    loops = {
        "crba": pin_loop(lambda m, d, q, v: pin.crba(m, d, q)),
        "coriolis": pin_loop(pin.computeCoriolisMatrix),
        "point J": pin_loop(lambda m, d, q, v: pin.computeJointJacobians(m, d, q)),
    }
    theirs = {
        "rnea": best_time(lambda: pin.rneaInParallel(1, pool, Q, V, A), repeat),
        "aba": best_time(lambda: pin.abaInParallel(1, pool, Q, V, TAU), repeat),
        **{k: best_time(f, repeat) if f is not None else np.nan for k, f in loops.items()},
    }
    scale = 1e6 / batch
    return {k: v * scale for k, v in ours.items()}, {k: v * scale for k, v in theirs.items()}


def peak_memory_bytes(batch):
    code = MEMORY_PROBE.format(bench=os.path.dirname(os.path.abspath(__file__)), n=N, batch=batch)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ
    )
    return int(out.stdout.strip().splitlines()[-1])


def main():
    model, pmodel = chain(N)
    print(
        f"time per configuration against batch size, N = {N} chain, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')} "
        f"(fastest of {ROUNDS} rounds of {TOTAL:,} configurations, us per configuration)"
    )
    rows = {}
    for _ in range(ROUNDS):  # sizes interleaved, the minimum of every round kept
        for batch in SIZES:
            repeat = max(1, TOTAL // batch)
            ours, theirs = per_configuration_times(
                model, pmodel, batch, repeat, with_pin_loops=batch == 10_000
            )
            if batch in rows:
                ours = {k: min(v, rows[batch][0][k]) for k, v in ours.items()}
                theirs = {k: np.fmin(v, rows[batch][1][k]) for k, v in theirs.items()}
            rows[batch] = ours, theirs
    algorithms = ("crba", "rnea", "aba", "coriolis", "point J")
    print(
        f"{'batch':>9} "
        + " ".join(f"{a:>9} {'(pin)':>7}" for a in algorithms)
        + "\n(pin): Pinocchio on one thread; 'point J' against computeJointJacobians (all joints)"
    )
    for batch, (ours, theirs) in rows.items():
        print(
            f"{batch:>9,} "
            + " ".join(
                f"{ours[a]:>9.3f} {theirs[a]:>7.3f}"
                if np.isfinite(theirs[a])
                else f"{ours[a]:>9.3f} {'':>7}"
                for a in algorithms
            )
        )
    missed = []
    print()
    print(f"{'algorithm':>9} {'10^6 / 10^4':>12} {'target':>7}  met?")
    for a in algorithms:
        ratio = rows[1_000_000][0][a] / rows[10_000][0][a]
        met = ratio <= FLATNESS_TARGET
        if not met:
            missed.append(f"{a}: time per configuration at 10^6 is {ratio:.2f}x that at 10^4")
        print(f"{a:>9} {ratio:>12.2f} {FLATNESS_TARGET:>7.2f}  {'yes' if met else 'NO'}")

    peak = peak_memory_bytes(1_000_000) / 2**30
    met = peak <= MEMORY_TARGET_GIB
    if not met:
        missed.append(f"peak memory at 10^6: {peak:.2f} GiB > {MEMORY_TARGET_GIB} GiB")
    print()
    print(
        f"peak resident memory of a process computing rnea, aba and crba on 10^6 "
        f"configurations: {peak:.2f} GiB (target {MEMORY_TARGET_GIB} GiB)  {'yes' if met else 'NO'}"
    )
    total = len(algorithms) + 1
    print()
    print(f"summary: {total - len(missed)} of {total} scale targets met")
    for item in missed:
        print(f"  MISSED: {item}")
    return 0


if __name__ == "__main__":
    run_report(main)
