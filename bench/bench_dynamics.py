"""Benchmark: geomotion.tree (crba, rnea, aba) against Pinocchio, side by side in one process.

Run with ``make bench`` (= ``OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_dynamics.py``).

Models: serial chains with rotated joint frames (random placement rotations and
offsets, revolute joints about random axes), built identically in both libraries.
Times are medians over repeats, in microseconds per configuration, with one BLAS
thread.  Pinocchio's batched references are ``pin.rneaInParallel`` /
``pin.abaInParallel`` on one thread (``pin.ModelPool(model, 1)``, Fortran-ordered
(nv, B) arrays) and ``pin.crba`` called once per configuration in a Python loop.

Targets (from the design brief):
  * 10,000 configurations in one call: ratio geomotion/Pinocchio <= 1.0 at N = 7 and
    <= 1.5 at N = 32 for crba, rnea and aba;
  * one configuration per call at N = 7: ratio <= 60;
  * growth of the batched cost over N = 16..64 (log-log slope): rnea and aba <= 1.15,
    crba <= 2.1.

This is a report: it exits with status 0 whether or not the targets are met, and
prints every missed target clearly at the end.
"""

import os
import sys
import time

import numpy as np

from geomotion import inertia, spatial, tree
from geomotion.models import random_rotation

try:
    import pinocchio as pin
except ImportError:  # pragma: no cover - the benchmark needs the peer engine
    pin = None

BATCH = 10_000
GROWTH_BATCH = 2_000
GROWTH_SIZES = (16, 32, 64)
TARGETS = {("batch", 7): 1.0, ("batch", 32): 1.5, ("single", 7): 60.0}
GROWTH_TARGETS = {"crba": 2.1, "rnea": 1.15, "aba": 1.15}


def chain(n, seed=0):
    """The same serial chain as a geomotion Tree and a Pinocchio Model."""
    rng = np.random.default_rng(seed)
    model = pin.Model()
    S, P, I = [], [], []
    for i in range(n):
        R, p = random_rotation(rng), rng.uniform(-0.3, 0.3, 3)
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        mass, com = rng.uniform(0.5, 2.0), rng.uniform(-0.1, 0.1, 3)
        s = rng.uniform(0.01, 0.05, 3)
        U = random_rotation(rng)
        Ic = U @ np.diag([s[1] + s[2], s[0] + s[2], s[0] + s[1]]) @ U.T * mass
        Ic = 0.5 * (Ic + Ic.T)
        jid = model.addJoint(i, pin.JointModelRevoluteUnaligned(axis), pin.SE3(R, p), f"joint{i}")
        model.appendBodyToJoint(jid, pin.Inertia(mass, com, Ic), pin.SE3.Identity())
        S.append(np.concatenate([axis, np.zeros(3)]))
        P.append(spatial.pose(R, p))
        I.append(inertia.spatial_inertia(mass, com, Ic))
    return tree.Tree(np.arange(n) - 1, np.array(S), np.array(P), np.array(I)), model


def median_time(fn, number, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return float(np.median(times))


def paired(fn_ours, fn_pin, number, repeat):
    """Interleave the two measurements so both see the same machine load."""
    ours, theirs = [], []
    fn_ours(), fn_pin()  # warm up (first call builds caches and work arrays)
    for _ in range(repeat):
        ours.append(median_time(fn_ours, number, 1))
        theirs.append(median_time(fn_pin, number, 1))
    return float(np.median(ours)), float(np.median(theirs))


def batched_cases(n, batch, repeat, seed=1):
    model, pmodel = chain(n)
    data = pmodel.createData()
    pool = pin.ModelPool(pmodel, 1)
    rng = np.random.default_rng(seed)
    q, qd, qdd = (rng.uniform(-np.pi, np.pi, (batch, n)) for _ in range(3))
    tau = tree.rnea(model, q, qd, qdd)
    Q, V, A, TAU = (np.asfortranarray(x.T) for x in (q, qd, qdd, tau))

    def pin_crba():
        for b in range(batch):
            pin.crba(pmodel, data, Q[:, b])

    return {
        "crba": paired(lambda: tree.crba(model, q), pin_crba, 1, repeat),
        "rnea": paired(
            lambda: tree.rnea(model, q, qd, qdd),
            lambda: pin.rneaInParallel(1, pool, Q, V, A),
            1,
            repeat,
        ),
        "aba": paired(
            lambda: tree.aba(model, q, qd, tau),
            lambda: pin.abaInParallel(1, pool, Q, V, TAU),
            1,
            repeat,
        ),
    }


def single_cases(n, number, repeat, seed=2):
    model, pmodel = chain(n)
    data = pmodel.createData()
    rng = np.random.default_rng(seed)
    q, qd, qdd = (rng.uniform(-np.pi, np.pi, n) for _ in range(3))
    tau = tree.rnea(model, q, qd, qdd)
    return {
        "crba": paired(
            lambda: tree.crba(model, q), lambda: pin.crba(pmodel, data, q), number, repeat
        ),
        "rnea": paired(
            lambda: tree.rnea(model, q, qd, qdd),
            lambda: pin.rnea(pmodel, data, q, qd, qdd),
            number,
            repeat,
        ),
        "aba": paired(
            lambda: tree.aba(model, q, qd, tau),
            lambda: pin.aba(pmodel, data, q, qd, tau),
            number,
            repeat,
        ),
    }


def check_agreement():
    """The two libraries must compute the same numbers before their times mean anything."""
    model, pmodel = chain(7)
    data = pmodel.createData()
    rng = np.random.default_rng(3)
    q, qd, qdd = (rng.uniform(-np.pi, np.pi, 7) for _ in range(3))
    M = np.triu(pin.crba(pmodel, data, q))
    M = M + np.triu(M, 1).T
    worst = max(
        np.abs(tree.crba(model, q) - M).max() / np.abs(M).max(),
        np.abs(tree.rnea(model, q, qd, qdd) - pin.rnea(pmodel, data, q, qd, qdd)).max(),
        np.abs(tree.aba(model, q, qd, qdd) - pin.aba(pmodel, data, q, qd, qdd)).max(),
    )
    print(f"agreement with Pinocchio on the N = 7 chain: worst difference {worst:.1e}")
    return worst < 1e-8


def main():
    print(
        f"geomotion vs Pinocchio {pin.__version__}, numpy {np.__version__}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}"
    )
    agree = check_agreement()
    rows, missed = [], []
    for n in (7, 32):
        for alg, (ours, theirs) in batched_cases(n, BATCH, repeat=9 if n == 7 else 7).items():
            rows.append(
                (n, BATCH, alg, ours / BATCH * 1e6, theirs / BATCH * 1e6, TARGETS[("batch", n)])
            )
    for alg, (ours, theirs) in single_cases(7, number=300, repeat=15).items():
        rows.append((7, 1, alg, ours * 1e6, theirs * 1e6, TARGETS[("single", 7)]))

    print()
    print(
        f"{'N':>3} {'batch':>6} {'algorithm':>9} {'geomotion':>11} {'pinocchio':>11} {'ratio':>7} {'target':>7}  met?"
    )
    print(f"{'':>3} {'':>6} {'':>9} {'us/config':>11} {'us/config':>11}")
    for n, batch, alg, ours, theirs, target in rows:
        ratio = ours / theirs
        met = ratio <= target
        if not met:
            missed.append(f"N={n} batch={batch} {alg}: ratio {ratio:.2f} > {target:g}")
        print(
            f"{n:>3} {batch:>6} {alg:>9} {ours:>11.3f} {theirs:>11.3f} {ratio:>7.2f} {target:>7.2f}  {'yes' if met else 'NO'}"
        )

    print()
    print(
        f"growth of the batched cost over N = {GROWTH_SIZES[0]}..{GROWTH_SIZES[-1]} "
        f"({GROWTH_BATCH} configurations per call; log-log slope of us/config):"
    )
    per_n = {n: batched_cases(n, GROWTH_BATCH, repeat=5) for n in GROWTH_SIZES}
    logn = np.log(GROWTH_SIZES)
    print(
        f"{'algorithm':>9} "
        + " ".join(f"{'N=' + str(n):>10}" for n in GROWTH_SIZES)
        + f" {'slope':>7} {'pin slope':>9} {'target':>7}  met?"
    )
    for alg, target in GROWTH_TARGETS.items():
        ours = np.array([per_n[n][alg][0] for n in GROWTH_SIZES]) / GROWTH_BATCH * 1e6
        theirs = np.array([per_n[n][alg][1] for n in GROWTH_SIZES]) / GROWTH_BATCH * 1e6
        slope = np.polyfit(logn, np.log(ours), 1)[0]
        pin_slope = np.polyfit(logn, np.log(theirs), 1)[0]
        met = slope <= target
        if not met:
            missed.append(f"growth of {alg}: slope {slope:.2f} > {target:g}")
        print(
            f"{alg:>9} "
            + " ".join(f"{t:>10.3f}" for t in ours)
            + f" {slope:>7.2f} {pin_slope:>9.2f} {target:>7.2f}  {'yes' if met else 'NO'}"
        )

    print()
    if not agree:
        missed.insert(
            0, "geomotion and Pinocchio disagree on the benchmark chain (times are meaningless)"
        )
    total = len(rows) + len(GROWTH_TARGETS)
    print(
        f"summary: {total - len(missed)} of {total} targets met"
        + ("" if agree else "; ENGINES DISAGREE")
    )
    for item in missed:
        print(f"  MISSED: {item}")
    return 0


if __name__ == "__main__":
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        # numpy reads the thread count when it is imported: restart with one BLAS thread
        os.execve(
            sys.executable, [sys.executable, *sys.argv], {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
        )
    if pin is None:
        print("Pinocchio (PyPI 'pin') is not installed: nothing to compare against.")
        sys.exit(0)
    sys.exit(main())
