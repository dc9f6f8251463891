"""A test's own statement of a flat sole's admissible wrenches: forces at the sole
polygon's vertices, each in the friction pyramid, that sum to the wrench (the definition
of the contact-wrench cone), decided by a feasibility program (HiGHS).  Written here from
the definition, not from geomotion's code, for the tests that check the package's cone."""

import numpy as np
from scipy.optimize import linprog


def vertex_forces_hold(wrench, polygon, mu, facets=16):
    """Whether forces at the (V, 2) polygon's vertices, each in the pyramid
    cos(a_j) x + sin(a_j) y <= mu cos(pi/N) z (a_j = 2 pi j / N) and z >= 0, sum to
    ``wrench`` = (n, f), moment first, about the sole origin in sole axes."""
    polygon = np.asarray(polygon, dtype=float)
    V = len(polygon)
    A_eq = np.zeros((6, 3 * V))
    for v, (x, y) in enumerate(polygon):
        # moment of (fx, fy, fz) at (x, y, 0): (y fz, -x fz, x fy - y fx)
        A_eq[0, 3 * v + 2], A_eq[1, 3 * v + 2] = y, -x
        A_eq[2, 3 * v], A_eq[2, 3 * v + 1] = -y, x
        A_eq[3:, 3 * v : 3 * v + 3] = np.eye(3)
    a = 2 * np.pi * np.arange(facets) / facets
    pyramid = np.c_[np.cos(a), np.sin(a), -mu * np.cos(np.pi / facets) * np.ones(facets)]
    pyramid = np.r_[pyramid, [[0.0, 0.0, -1.0]]]
    A_ub = np.kron(np.eye(V), pyramid)
    scale = np.linalg.norm(wrench)
    lp = linprog(
        np.zeros(3 * V),
        A_ub=A_ub,
        b_ub=np.zeros(len(A_ub)),
        A_eq=A_eq,
        b_eq=np.asarray(wrench, dtype=float) / scale,
        bounds=(None, None),
        method="highs",
    )
    assert lp.status in (0, 2), lp.message
    return lp.status == 0
