r"""DAQP, the dense quadratic-program solver that ``allocation`` and ``contact`` share.

DAQP (Arnström, Bemporad and Axehill, 2022) is a dual active-set method for dense QPs,

.. math:: \min_x\ \tfrac12x^THx + f^Tx\quad\text{subject to}\quad
          b_{\min} \le Ax \le b_{\max},

with :math:`H` positive definite; a row whose sense is 5 is an equality.  Its multipliers
:math:`\lambda` (``info["lam"]``) satisfy :math:`Hx + f + A^T\lambda = 0`, positive at an
upper bound and negative at a lower one.  Why DAQP (and not a proximal method) is
written in ``geomotion.allocation._solvers``.  Callers scale their problems so that the
unknowns are about 1 and the rows of unit reach, which is what the tolerances below
assume, and check the answer themselves.
"""

import daqp
import numpy as np

#: DAQP settings: feasibility and dual tolerances on a scaled problem (solutions of size
#: about 1, rows of unit reach).
DAQP_OPTIONS = {"primal_tol": 1e-12, "dual_tol": 1e-12, "iter_limit": 1000}

#: DAQP exit flags that a caller acts on.
DAQP_OPTIMAL, DAQP_INFEASIBLE = 1, -1

#: Sense of a row: an inequality (both bounds, either may be infinite) or an equality.
INEQUALITY, EQUALITY = 0, 5

#: What DAQP's other exit flags mean, for messages.
DAQP_EXITS = {
    2: "optimal with soft constraints relaxed",
    -2: "cycling",
    -3: "unbounded",
    -4: "iteration limit",
    -5: "non-convex problem",
    -6: "overdetermined initial active set",
}


def daqp_solve(H, f, A, b_max, b_min, sense):
    """One DAQP call with :data:`DAQP_OPTIONS`: ``(x, multipliers, exit flag, iterations)``.

    ``sense`` holds :data:`INEQUALITY` or :data:`EQUALITY` per row of ``A``.
    """
    x, _, flag, info = daqp.solve(
        np.ascontiguousarray(H, dtype=float),
        np.ascontiguousarray(f, dtype=float),
        np.ascontiguousarray(A, dtype=float),
        np.ascontiguousarray(b_max, dtype=float),
        np.ascontiguousarray(b_min, dtype=float),
        np.ascontiguousarray(sense, dtype=np.int32),
        **DAQP_OPTIONS,
    )
    return np.asarray(x), np.asarray(info["lam"]), int(flag), int(info.get("iterations", 0))
