r"""Forward dynamics of a tree with frame closures in one compiled pass over lanes.

What :meth:`geomotion.tree.FramePairStack.forward_dynamics` (and so
:meth:`geomotion.constraints.ClosureSet.forward_dynamics`) runs for batches of
``geomotion.tree._jit.LANES_FROM`` configurations or more: per block of ``BLOCK``
configurations, held lane-major (the configurations as the innermost axis of every work
array), the placed joint poses once, then

* the bias forces :math:`h = \mathrm{RNEA}(q, v, 0)` (``_lanes._rnea_block``),
* the mass matrix :math:`M` (``_lanes._crba_block``),
* the closures' stacked Jacobian :math:`J_c` and bias :math:`\gamma`
  (``_lanes_frames._closure_block``),
* the certified solve of :math:`M\dot v + h = \tau + J_c^T\lambda`,
  :math:`J_c\dot v + \gamma = 0` (``geomotion._linalg._independent_rows_lanes``),

without writing :math:`M` or :math:`J_c` out and reading them back: the composition of
:func:`geomotion.tree.crba`, :func:`geomotion.tree.bias_forces`,
:meth:`~geomotion.tree.FramePairStack.jacobian_and_bias` and the rank-revealing
constrained solve (:func:`geomotion.constraints.constrained_dynamics`) spends about a fifth of its time
moving those arrays between layouts.  The same formulas, so the same results up to
rounding.  An element whose rows fail the certificate (redundant or nearly dependent
closures) makes the caller take that composition for the whole call.
"""

import numba
import numpy as np

from .. import _linalg
from . import _jit, _lanes, _lanes_frames

#: Configurations per block.  Measured on the golfer (nv = 33, 15 rows) at 10^4
#: configurations: 15.2, 11.5, 9.6 and 11.8 us per configuration for blocks of 16, 32, 64
#: and 128 (the composition: 20.6 us); the solve's loops over the block vectorize better
#: the longer they are, until the block's factors leave the caches.
BLOCK = 64


@numba.njit(**_lanes._KERNEL)
def closed_loop_dynamics(
    parent, jtype, screw, R0, p0, iq, iv, nvj, S, I, paths, ends, frames, rows, Q, V, T, G,
    ratio, a, lam,
):  # fmt: skip
    r"""Accelerations ``a`` (B, nv) and multipliers ``lam`` (B, c) of the closed-loop
    dynamics, block by block; ``G`` (B, 3) is the gravity of each configuration.  Returns
    -1, or the index of a configuration whose mass matrix is not positive definite or
    whose closure rows fail the certificate of the fast constrained solve."""
    n, nv, B, c, W = parent.shape[0], S.shape[0], Q.shape[0], rows.shape[0], BLOCK
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    X, IC = np.empty((n, 6, 6, W)), np.empty((n, 10, W))
    Fc, Fn = np.empty((6, 6, W)), np.empty((6, 6, W))
    Mt = np.zeros((nv, nv, W))  # entries across branches stay zero
    Vb, Ab, Fb = np.empty((n, 6, W)), np.empty((n, 6, W)), np.empty((n, 6, W))
    Vt, At, h = np.empty((nv, W)), np.zeros((nv, W)), np.empty((nv, W))
    a0, wr, no_wrench = np.empty((6, W)), np.empty((4, 6, W)), np.zeros((1, 1, 6))
    Jl, Gl, Jd, poses, points, vectors, wk, _, _ = _lanes_frames._closure_work(n, nv, c, paths, W)
    solve = _linalg._lanes_work(nv, c, W)
    load, al, laml = np.empty((nv, W)), np.empty((nv, W)), np.empty((c, W))
    for start in range(0, B, W):
        m = min(W, B - start)
        _lanes._block_transforms(jtype, screw, R0, p0, iq, Q, start, m, Rl, pl, X)
        _lanes._to_lanes(V, start, m, Vt)
        _lanes._base_acceleration(G, start, m, a0)
        _lanes._rnea_block(
            parent, S, iv, nvj, I, X, Vt, At, a0, no_wrench, False, start, m, Vb, Ab, Fb, wr, h
        )
        _lanes._crba_block(parent, iv, nvj, S, I, Rl, pl, X, m, IC, Fc, Fn, Mt)
        _lanes_frames._closure_block(
            p0, iv, nvj, S, paths, ends, frames, rows, Rl, pl, V, start, m, True, True, Jl, Gl,
            Jd, poses, points, vectors, wk,
        )  # fmt: skip
        for l in range(m):
            for j in range(nv):
                load[j, l] = T[start + l, j] - h[j, l]
        failed = _linalg._independent_rows_lanes(Mt, Jl, load, Gl, ratio, m, solve, al, laml)
        if failed >= 0:
            return start + failed
        for l in range(m):
            for j in range(nv):
                a[start + l, j] = al[j, l]
            for i in range(c):
                lam[start + l, i] = laml[i, l]
    return -1


def run(stack, q, v, tau, batch):
    """``(a, multiplier)`` of the closed-loop dynamics of ``stack`` (a
    :class:`geomotion.tree.FramePairStack`) at validated q, v, tau broadcast to ``batch``,
    or None when a configuration fails the certified solve."""
    model = stack.model
    Q, V, T = (_jit._rows(x, batch, x.shape[-1:]) for x in (q, v, tau))
    G = np.broadcast_to(model.gravity, (Q.shape[0], 3))
    a, lam = np.empty((Q.shape[0], model.nv)), np.empty((Q.shape[0], stack._rows.shape[0]))
    failed = closed_loop_dynamics(
        *_jit.flat_tree(model).arrays(), stack._paths, stack._ends, stack._frames, stack._rows,
        Q, V, T, np.ascontiguousarray(G), _linalg._CERTIFIED_SIGMA_RATIO, a, lam,
    )  # fmt: skip
    if failed >= 0:
        return None
    return a.reshape(batch + (model.nv,)), lam.reshape(batch + (lam.shape[-1],))
