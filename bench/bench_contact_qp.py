"""Benchmark: cost per sample of contact.contact_inverse_dynamics on the 3-D golfer.

Run with ``make bench``, or on its own:
``OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/bench_contact_qp.py``.

The golfer (weld grip, 33 velocity coordinates) sways from its address, feet planted and
hands on the club (the motion of ``tests/companion/test_contact_inverse_dynamics.py``),
sampled 1, 10, 100 and 1,000 times over its first 0.25 s; each batch is solved in one call
(two feet, the grip closure, 16-face pyramids, torsion bounds: 18 unknowns, 46
inequality and 6 equality rows per sample).  The table gives the time per sample of the
whole call, of its dynamics and kinematics alone (``tree.rnea``, two frame poses and
Jacobians, the grip's Jacobian, batched) and of the DAQP calls alone (one per sample,
on the programs the call built), the fastest of a few rounds.  The matrices are built
for the whole batch at once, so the cost per sample should fall with the batch towards
the DAQP calls' cost, which a Python loop cannot batch.

This is a report: it exits with status 0 and prints the measured times.
"""

import time

import numpy as np

from geomotion import _qp, contact, models, tree
from geomotion.contact import inverse_dynamics

SIZES = (1, 10, 100, 1000)
ROUNDS = 3


def sway(golfer, samples):
    """q, v, a of the golfer's sway (as in the tests), ``samples`` instants over 0.25 s."""
    model, q0 = golfer.model, golfer.q0
    closures = golfer.constraints(q0)
    pelvis = tree.frame_jacobian(model, q0, 0, np.eye(4), reference="local_world_aligned")
    rows = np.concatenate([c.jacobian(q0) for c in closures] + [pelvis[3:5]])
    z = np.linalg.lstsq(rows, np.r_[np.zeros(len(rows) - 2), 0.0, 1.0], rcond=None)[0]
    amplitude, omega = 0.03, 3 * np.pi
    t = np.linspace(0.0, 0.25, samples)
    q = tree.integrate(model, q0, z, amplitude * np.sin(omega * t))
    v = np.outer(amplitude * omega * np.cos(omega * t), z)
    a = np.outer(-amplitude * omega**2 * np.sin(omega * t), z)
    return q, v, a, closures[2]


def fastest(fn):
    fn()
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def cases(golfer, n):
    """The whole call, its dynamics and kinematics, and its DAQP calls, on n samples."""
    model = golfer.model
    feet = [golfer.frames["lead sole"], golfer.frames["trail sole"]]
    q, v, a, grip = sway(golfer, n)

    def whole():
        return contact.contact_inverse_dynamics(
            model, feet, q, v, a, 0.8, golfer.sole_outline(), closures=[grip]
        )

    def dynamics():
        tree.rnea(model, q, v, a)
        for frame in feet:
            tree.frame_pose(model, q, frame.body, frame.pose)
            tree.frame_jacobian(model, q, frame.body, frame.pose)
        grip.jacobian(q)

    captured = []
    build = inverse_dynamics._Program.__init__

    def keep(self, *args):
        build(self, *args)
        captured.append(self)

    inverse_dynamics._Program.__init__ = keep
    try:
        whole()
    finally:
        inverse_dynamics._Program.__init__ = build
    program = captured[0]

    def daqp_calls():
        for i in range(n):
            _qp.daqp_solve(
                program.H[i],
                program.f[i],
                program.C[i],
                program.b_max[i],
                program.b_min[i],
                program.sense,
            )

    return whole, dynamics, daqp_calls


def main():
    golfer = models.golfer(trail_grip="weld")
    print(f"{'samples':>8} {'whole call':>14} {'dynamics':>14} {'DAQP calls':>14}  (us per sample)")
    for n in SIZES:
        row = [fastest(f) / n * 1e6 for f in cases(golfer, n)]
        print(f"{n:>8} {row[0]:>14.0f} {row[1]:>14.0f} {row[2]:>14.0f}")


if __name__ == "__main__":
    main()
