r"""Flat arrays of a tree for the compiled kernels (numba), the joint motions, and the
Python entry points of the dynamics kernels.

RNEA, ABA, CRBA and the Coriolis matrix run as the kernels of
``geomotion.tree._lanes`` for every batch size (one configuration is a block of one lane);
the ``run_*`` functions here broadcast the inputs to rows, run the kernel and restore the
shape.  The frame-kinematics kernels are in ``geomotion.tree._lanes_frames`` (their
entry points, and the relative kinematics of a frame pair, in
``geomotion.tree._jit_frames``).  Kernels are compiled once and cached where
``geomotion._kernel_cache`` says (a directory named by a digest of every kernel source:
a new process loads them, and an edited source is compiled afresh).

A tree enters as flat arrays (:class:`FlatTree`), built once per model: per body its
parent, joint type (0 screw, 1 ball, 2 free flyer), the screw, the placement ``(R0, p0)``,
its slices of ``q`` and ``v``, the spatial inertia, and the motion-subspace columns of all
velocity coordinates, ``S[k]`` (nv, 6).  Joint motions: ``exp([S] q)`` for a screw (the
coefficients of :func:`geomotion.spatial.exp_twist`, with its series below 1 rad), the
quaternion's rotation for a ball joint, rotation and offset for a free flyer.
"""

import math
import weakref

import numba
import numpy as np

from .. import _kernel_cache, _validate
from . import _lanes, _lanes_coriolis, general
from .general import SINGULAR_JOINT_RTOL

SCREW, BALL, FREE = 0, 1, 2

# Taylor coefficients of (theta - sin theta)/theta^3 in theta^2 (as spatial.screws).
_C_SERIES = np.array([(-1.0) ** k / math.factorial(2 * k + 3) for k in range(9)])

_JIT = dict(cache=_kernel_cache.CACHE, nogil=True, fastmath=False, error_model="numpy")


class FlatTree:
    """The flat arrays of a :class:`~geomotion.tree.Tree` that the kernels read."""

    def __init__(self, model):
        n = model.num_bodies
        kinds = {"spherical": BALL, "free_flyer": FREE}
        self.parent = np.array(model.parents, dtype=np.int64)
        self.jtype = np.array([kinds.get(j.kind, SCREW) for j in model.joints], dtype=np.int64)
        self.screw = np.zeros((n, 6))
        for i, joint in enumerate(model.joints):
            if self.jtype[i] == SCREW:
                self.screw[i] = joint.screw
        self.R0 = np.array(model.placements[:, :3, :3])
        self.p0 = np.array(model.placements[:, :3, 3])
        self.iq = np.array(model.q_start, dtype=np.int64)
        self.iv = np.array(model.v_start, dtype=np.int64)
        self.nvj = np.array(model.joint_nv, dtype=np.int64)
        # fresh, writable and C-ordered whatever the joints' layouts (one kernel signature)
        self.S = np.ascontiguousarray(np.concatenate([j.subspace.T for j in model.joints]))
        self.I = np.array(model.inertias)

    def arrays(self):
        """The arrays in kernel argument order."""
        return (
            self.parent,
            self.jtype,
            self.screw,
            self.R0,
            self.p0,
            self.iq,
            self.iv,
            self.nvj,
            self.S,
            self.I,
        )


@numba.njit(**_JIT)
def _joint_pose(jtype, screw, q, iq, R, p):
    """Joint motion T_J(q_i) into R (3, 3), p (3,)."""
    if jtype == SCREW:
        x = q[iq]
        wx, wy, wz = screw[0] * x, screw[1] * x, screw[2] * x
        vx, vy, vz = screw[3] * x, screw[4] * x, screw[5] * x
        t2 = wx * wx + wy * wy + wz * wz
        t = math.sqrt(t2)
        if t > 0.0:
            a = math.sin(t) / t
            h = 0.5 * t
            sh = math.sin(h) / h
            b = 0.5 * sh * sh
        else:
            a, b = 1.0, 0.5
        if t < 1.0:
            c = 0.0
            for k in range(_C_SERIES.shape[0] - 1, -1, -1):
                c = c * t2 + _C_SERIES[k]
        else:
            c = (t - math.sin(t)) / (t * t2)
        # R = I + a[w] + b(w w^T - t2 I);  p = v + b w x v + c (w (w.v) - t2 v)
        R[0, 0] = 1.0 + b * (wx * wx - t2)
        R[0, 1] = -a * wz + b * wx * wy
        R[0, 2] = a * wy + b * wx * wz
        R[1, 0] = a * wz + b * wx * wy
        R[1, 1] = 1.0 + b * (wy * wy - t2)
        R[1, 2] = -a * wx + b * wy * wz
        R[2, 0] = -a * wy + b * wx * wz
        R[2, 1] = a * wx + b * wy * wz
        R[2, 2] = 1.0 + b * (wz * wz - t2)
        wv = wx * vx + wy * vy + wz * vz
        p[0] = vx + b * (wy * vz - wz * vy) + c * (wx * wv - t2 * vx)
        p[1] = vy + b * (wz * vx - wx * vz) + c * (wy * wv - t2 * vy)
        p[2] = vz + b * (wx * vy - wy * vx) + c * (wz * wv - t2 * vz)
        return
    k = iq if jtype == BALL else iq + 3
    w, x, y, z = q[k], q[k + 1], q[k + 2], q[k + 3]
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - w * z)
    R[0, 2] = 2.0 * (x * z + w * y)
    R[1, 0] = 2.0 * (x * y + w * z)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - w * x)
    R[2, 0] = 2.0 * (x * z - w * y)
    R[2, 1] = 2.0 * (y * z + w * x)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)
    if jtype == BALL:
        p[0] = p[1] = p[2] = 0.0
    else:
        p[0], p[1], p[2] = q[iq], q[iq + 1], q[iq + 2]


@numba.njit(**_JIT)
def _placed_pose(jtype, screw, R0, p0, iq, q, i, RJ, pJ, R, p):
    """Body i's pose in its parent, (R, p) = (R0 R_J, R0 p_J + p0), at ``q`` (work RJ, pJ)."""
    _joint_pose(jtype[i], screw[i], q, iq[i], RJ, pJ)
    for r in range(3):
        acc = p0[i, r]
        for k in range(3):
            acc += R0[i, r, k] * pJ[k]
        p[r] = acc
        for c in range(3):
            R[r, c] = R0[i, r, 0] * RJ[0, c] + R0[i, r, 1] * RJ[1, c] + R0[i, r, 2] * RJ[2, c]


@numba.njit(**_JIT)
def _near_origin(p0, path_a, path_b, o):
    """The point the frame walks measure positions from (``geomotion.tree._jit_frames._walk``
    and ``geomotion.tree._lanes_frames._path_walk``): the first body's placement on a nonempty
    path (the base origin when both are empty), into ``o`` (3,)."""
    path = path_a if path_a.shape[0] > 0 else path_b
    for r in range(3):
        o[r] = p0[path[0], r] if path.shape[0] > 0 else 0.0


@numba.njit(**_JIT)
def _joint_size(S, base, k):
    """Largest squared length of the k motion-subspace columns from row ``base`` of S."""
    size = 0.0
    for j in range(k):
        col = 0.0
        for r in range(6):
            col += S[base + j, r] * S[base + j, r]
        size = max(size, col)
    return size


@numba.njit(**_JIT)
def _cross_motion(V, x, out):
    """out = V x x (motion cross), angular-first."""
    out[0] = V[1] * x[2] - V[2] * x[1]
    out[1] = V[2] * x[0] - V[0] * x[2]
    out[2] = V[0] * x[1] - V[1] * x[0]
    out[3] = V[1] * x[5] - V[2] * x[4] + V[4] * x[2] - V[5] * x[1]
    out[4] = V[2] * x[3] - V[0] * x[5] + V[5] * x[0] - V[3] * x[2]
    out[5] = V[0] * x[4] - V[1] * x[3] + V[3] * x[1] - V[4] * x[0]


# ---------------------------------------------------------------------------
# Python entry points: broadcast the inputs to rows, run the kernel, restore the shape
# ---------------------------------------------------------------------------

_FLAT = weakref.WeakKeyDictionary()


def flat_tree(model):
    """The model's :class:`FlatTree`, built on first use and kept as long as the model lives."""
    flat = _FLAT.get(model)
    if flat is None:
        flat = _FLAT[model] = FlatTree(model)
    return flat


def _rows(x, batch, tail):
    """``x`` broadcast to ``batch + tail`` as a writable C-contiguous (B, *tail) float array.

    Writable and contiguous always, so that the kernels compile for one array type only.
    """
    if x.shape != batch + tail:
        x = np.broadcast_to(x, batch + tail)
    rows = x.reshape((-1,) + tail)
    if rows.dtype == np.float64 and rows.flags.c_contiguous and rows.flags.writeable:
        return rows
    return np.array(rows, dtype=np.float64, order="C")


def _inputs(model, arrays, g, f_ext, frame):
    """The kernels' rows of ``arrays`` (each (..., n)), of the gravity ``g`` ((3,) or
    (..., 3)) and of the body wrenches ``f_ext`` in body coordinates, all broadcast to
    one batch: ``(batch, rows, G, F, use_f)``."""
    batch = arrays[0].shape[:-1]
    if f_ext is not None or np.ndim(g) != 1 or any(x.shape[:-1] != batch for x in arrays):
        batch = np.broadcast_shapes(*(x.shape[:-1] for x in arrays), np.shape(g)[:-1])
    if f_ext is not None:
        f_ext = general.body_wrenches(model, arrays[0], f_ext, frame)
        batch = np.broadcast_shapes(batch, f_ext.shape[:-2])
    rows = [_rows(x, batch, x.shape[-1:]) for x in arrays]
    G = np.empty(batch + (3,))  # one writable gravity row per configuration
    G[...] = g
    G = G.reshape(-1, 3)
    use_f = f_ext is not None
    F = _rows(f_ext, batch, f_ext.shape[-2:]) if use_f else np.zeros((1, 1, 6))
    return batch, rows, G, F, use_f


def run_rnea(model, q, v, a, g, f_ext=None, frame="body", *, finite=True):
    """:func:`geomotion.tree.general.rnea` by the compiled kernel (``_lanes.rnea``); with
    ``finite``, a FloatingPointError if the result overflowed (else the caller checks)."""
    batch, (Q, V, A), G, F, use_f = _inputs(model, (q, v, a), g, f_ext, frame)
    out = np.empty((Q.shape[0], model.nv))
    _lanes.rnea(*flat_tree(model).arrays(), Q, V, A, G, F, use_f, out)
    if finite:
        _validate.finite_result(out, "the joint forces", q=q, v=v, a=a)
    return out.reshape(batch + (model.nv,))


def run_aba(model, q, v, tau, g, f_ext=None, frame="body"):
    """:func:`geomotion.tree.general.aba` by the compiled kernel (``_lanes.aba``);
    ValueError naming the first configuration with a singular joint, and the joint."""
    batch, (Q, V, T), G, F, use_f = _inputs(model, (q, v, tau), g, f_ext, frame)
    out = np.empty((Q.shape[0], model.nv))
    status = np.full(2, -1, dtype=np.int64)
    _lanes.aba(*flat_tree(model).arrays(), Q, V, T, G, F, use_f, out, status)
    if status[0] >= 0:
        b, i = int(status[0]), int(status[1])
        where = f"configuration {b} of the batch" if math.prod(batch) > 1 else "this configuration"
        raise ValueError(
            f"q: the mass matrix is singular at {where}: joint {i} ({model.joints[i].kind}) "
            f"moves no inertia along one of its freedoms there (a pivot of its articulated "
            f"inertia at most {SINGULAR_JOINT_RTOL:g} of its size); the joint acceleration is "
            f"undefined"
        )
    return _validate.finite_result(out, "the accelerations", q=q, v=v, tau=tau).reshape(
        batch + (model.nv,)
    )


def run_crba(model, q):
    """:func:`geomotion.tree.general.crba` by the compiled kernel (``_lanes.crba``)."""
    batch = q.shape[:-1]
    Q = _rows(q, batch, q.shape[-1:])
    out = np.empty((Q.shape[0], model.nv, model.nv))
    _lanes.crba(*flat_tree(model).arrays(), Q, out)
    return out.reshape(batch + (model.nv, model.nv))


def run_coriolis(model, q, v):
    """:func:`geomotion.tree.general.coriolis` by the compiled kernel (``_lanes_coriolis.coriolis``):
    (..., nv, nv)."""
    batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    Q, V = _rows(q, batch, q.shape[-1:]), _rows(v, batch, v.shape[-1:])
    out = np.empty((Q.shape[0], model.nv, model.nv))
    _lanes_coriolis.coriolis(*flat_tree(model).arrays(), Q, V, out)
    return _validate.finite_result(out, "the Coriolis matrix", q=q, v=v).reshape(
        batch + (model.nv, model.nv)
    )
