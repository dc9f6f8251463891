r"""Forward dynamics of a tree with frame closures in one compiled pass over lanes.

What :meth:`geomotion.tree.FramePairStack.forward_dynamics` (and so
:meth:`geomotion.constraints.ClosureSet.forward_dynamics`) runs first, for every batch
size: per block of up to ``BLOCK`` configurations, held lane-major (the configurations as
the innermost axis of every work array), the placed joint poses once, then

* the bias forces :math:`h = \mathrm{RNEA}(q, v, 0)` (``_lanes._rnea_block``),
* the mass matrix :math:`M` (``_lanes._crba_block``),
* the closures' stacked Jacobian :math:`J_c` and bias :math:`\gamma`
  (``_lanes_frames._closure_block``),
* the certified solve of :math:`M\dot v + h = \tau + J_c^T\lambda`,
  :math:`J_c\dot v + \gamma = 0` (``geomotion._linalg._independent_rows_lanes``),

without writing :math:`M` or :math:`J_c` out and reading them back: the composition of
:func:`geomotion.tree.crba`, :func:`geomotion.tree.bias_forces`,
:meth:`~geomotion.tree.FramePairStack.jacobian_and_bias` and the package's constrained
solve spends about a fifth of its time moving those arrays between layouts.  Each lane is
computed alike whatever the others hold.  Rows zero up to rounding (below the stack's
floors) are set to exactly zero first, as the stack's own rows are; a configuration whose
rows the certified solve does not accept (a row the rank rule counts as zero, redundant or
nearly dependent closures) is reported in ``status``, and the caller solves it, alone,
by that composition.
"""

import numba
import numpy as np

from .. import _linalg
from . import _lanes, _lanes_frames
from ._flat import KERNEL, flat_tree, rows

#: Configurations per block.  Measured on the golfer (nv = 33, 15 rows) at 10^4
#: configurations: 15.2, 11.5, 9.6 and 11.8 us per configuration for blocks of 16, 32, 64
#: and 128 (the composition: 20.6 us); the solve's loops over the block vectorize better
#: the longer they are, until the block's factors leave the caches.
BLOCK = 64


@numba.njit(**KERNEL)
def closed_loop_dynamics(
    parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, paths, ends, frames, rows, Q, V, T, G,
    floors, ratio, rtol, a, lam, status,
):  # fmt: skip
    r"""Accelerations ``a`` (B, nv) and multipliers ``lam`` (B, c) of the closed-loop
    dynamics, block by block; ``G`` (B, 3) is the gravity of each configuration.  A row
    whose norm is at most its ``floors`` entry (c,) is zero up to rounding and set to
    exactly zero, as :meth:`geomotion.tree.FramePairStack.jacobian` does.  ``status`` (B,)
    gets each configuration's ``geomotion._linalg`` code: ``SOLVED``, or why its ``a`` and
    ``lam`` hold no answer."""
    n, nv, B, c = parent.shape[0], S.shape[0], Q.shape[0], rows.shape[0]
    W = min(BLOCK, B)
    Rl, pl = np.empty((n, 3, 3, W)), np.empty((n, 3, W))
    X, IC = np.empty((n, 6, 6, W)), np.empty((n, 10, W))
    Fc, Fn = np.empty((6, 6, W)), np.empty((6, 6, W))
    Mt = np.zeros((nv, nv, W))  # entries across branches stay zero
    Vb, Ab, Fb = np.empty((n, 6, W)), np.empty((n, 6, W)), np.empty((n, 6, W))
    Vt, At, h = np.empty((nv, W)), np.zeros((nv, W)), np.empty((nv, W))
    a0, wr, no_wrench = np.empty((6, W)), np.empty((4, 6, W)), np.zeros((1, 1, 6))
    Jl, Gl, Jd, poses, points, vectors, wk, _, _ = _lanes_frames._closure_work(n, nv, c, paths, W)
    solve = _linalg._lanes_work(nv, c, 1, W)
    load, al, laml = np.empty((1, nv, W)), np.empty((1, nv, W)), np.empty((1, c, W))
    st, squares = np.empty(W, dtype=np.int64), np.empty(W)
    for start in range(0, B, W):
        m = min(W, B - start)
        _lanes._block_transforms(jtype, bases, R0, p0, iq, Q, start, m, Rl, pl, X)
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
        for out in range(c):  # rows zero up to rounding: exactly zero
            squares[:m] = 0.0
            for j in range(nv):
                for l in range(m):
                    squares[l] += Jl[out, j, l] * Jl[out, j, l]
            for l in range(m):
                if squares[l] <= floors[out] * floors[out]:
                    Gl[out, l] = 0.0
                    for j in range(nv):
                        Jl[out, j, l] = 0.0
        for l in range(m):
            for j in range(nv):
                load[0, j, l] = T[start + l, j] - h[j, l]
        gl = Gl.reshape((1, c, W))
        if m == 1:  # one configuration: with m a constant the loops over lanes fold away
            _linalg._independent_rows_lanes(Mt, Jl, load, gl, ratio, rtol, 1, solve, al, laml, st)
        else:
            _linalg._independent_rows_lanes(Mt, Jl, load, gl, ratio, rtol, m, solve, al, laml, st)
        for l in range(m):
            status[start + l] = st[l]
            for j in range(nv):
                a[start + l, j] = al[0, j, l]
            for i in range(c):
                lam[start + l, i] = laml[0, i, l]


def run(stack, q, v, tau, batch, rtol):
    """``(a, multiplier, status)`` of the closed-loop dynamics of ``stack`` (a
    :class:`geomotion.tree.FramePairStack`) at validated q, v, tau broadcast to ``batch``,
    flattened: (B, nv), (B, c), and (B,) the ``geomotion._linalg`` status of each
    configuration (the others hold no answer)."""
    model = stack.model
    Q, V, T = (rows(x, batch, x.shape[-1:]) for x in (q, v, tau))
    G = np.empty((Q.shape[0], 3))  # writable for every batch size: one compiled signature
    G[:] = model.gravity
    a, lam = np.empty((Q.shape[0], model.nv)), np.empty((Q.shape[0], stack._rows.shape[0]))
    status = np.empty(Q.shape[0], dtype=np.int64)
    closed_loop_dynamics(
        *flat_tree(model).arrays(), stack._paths, stack._ends, stack._frames, stack._rows,
        Q, V, T, G, stack._floors, _linalg._CERTIFIED_SIGMA_RATIO, rtol,
        a, lam, status,
    )  # fmt: skip
    return a, lam, status
