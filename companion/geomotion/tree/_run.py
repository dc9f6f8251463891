r"""The Python entry points of the compiled kernels: validated arrays in, results out.

Each ``run_*`` function broadcasts its (already validated) inputs to one batch, lays them
out as rows (``geomotion.tree._flat.rows``), runs its kernel once for the whole batch
and gives the results their batch shape back:

* ``run_rnea``, ``run_aba``, ``run_crba`` -- ``geomotion.tree._lanes``;
* ``run_coriolis`` -- ``geomotion.tree._lanes_coriolis``;
* ``run_frame_kinematics``, ``run_relative_kinematics``,
  ``run_closure_rows``, and the world poses of ``body_wrenches`` --
  ``geomotion.tree._lanes_frames``.

``rnea_one``, ``aba_one`` and ``crba_one`` serve a single call on one configuration
(``geomotion.tree._single``): they take the arrays as given, without converting or
broadcasting them, and return None for anything the general path has to handle.

The kernels are compiled once and cached where ``geomotion._kernel_cache`` says (a
directory named by a digest of every kernel source: a new process loads them, and an
edited source is compiled afresh).  Nothing here imports the readable reference
(:mod:`geomotion.tree.reference`), which the kernels are tested against.
"""

import math

import numpy as np

from .. import _validate
from . import _lanes, _lanes_coriolis, _lanes_frames, _single
from ._flat import SINGULAR_JOINT_RTOL, flat_tree, rows
from ._joints import QUATERNION_ATOL

#: Codes of the ``reference`` argument of ``_lanes_frames.frame_kinematics``.
REFERENCE_CODES = {"world": 0, "local": 1, "local_world_aligned": 2}


def body_wrenches(model, q, f_ext, frame):
    r"""External wrenches in body coordinates about each body's origin: (..., N, 6).

    ``frame`` "body": ``f_ext`` as given.  "world": each wrench :math:`(m, f)` in base
    axes about the base origin becomes :math:`\mathrm{Ad}_{T_{0i}}^T(m, f) =
    (R^T(m - p\times f),\ R^Tf)` with the body's world pose :math:`(R, p)`
    (``_lanes_frames.body_poses``).
    """
    if frame == "body":
        return f_ext
    batch = q.shape[:-1]
    Q = rows(q, batch, q.shape[-1:])
    n = model.num_bodies
    R, p = np.empty((Q.shape[0], n, 3, 3)), np.empty((Q.shape[0], n, 3))
    fl = flat_tree(model)
    _lanes_frames.body_poses(fl.parent, fl.jtype, fl.bases, fl.R0, fl.p0, fl.iq, Q, R, p)
    R, p = R.reshape(batch + (n, 3, 3)), p.reshape(batch + (n, 3))
    m, f = f_ext[..., :3], f_ext[..., 3:]
    moment = m - np.cross(p, f)
    return np.concatenate(
        [np.einsum("...kji,...kj->...ki", R, moment), np.einsum("...kji,...kj->...ki", R, f)],
        axis=-1,
    )


def _inputs(model, arrays, g, f_ext, frame):
    """The kernels' rows of ``arrays`` (each (..., n)), of the gravity ``g`` ((3,) or
    (..., 3)) and of the body wrenches ``f_ext`` in body coordinates, all broadcast to
    one batch: ``(batch, rows, G, F, use_f)``."""
    batch = arrays[0].shape[:-1]
    if f_ext is not None or np.ndim(g) != 1 or any(x.shape[:-1] != batch for x in arrays):
        batch = np.broadcast_shapes(*(x.shape[:-1] for x in arrays), np.shape(g)[:-1])
    if f_ext is not None:
        f_ext = body_wrenches(model, arrays[0], f_ext, frame)
        batch = np.broadcast_shapes(batch, f_ext.shape[:-2])
    laid = [rows(x, batch, x.shape[-1:]) for x in arrays]
    G = np.empty(batch + (3,))  # one writable gravity row per configuration
    G[...] = g
    G = G.reshape(-1, 3)
    use_f = f_ext is not None
    F = rows(f_ext, batch, f_ext.shape[-2:]) if use_f else np.zeros((1, 1, 6))
    return batch, laid, G, F, use_f


_FLOAT64 = np.dtype(np.float64)

#: The quaternion tolerance of a single call's kernels (``geomotion.tree._single``): half
#: the validation's, so that a norm that rounds differently in the two never passes the
#: kernel and fails the validation (a norm between the two goes the general path).
SINGLE_QUATERNION_ATOL = QUATERNION_ATOL / 2


def _vector(x, shape):
    """Whether ``x`` is already what the kernels of one configuration take: an ndarray of
    float64 and of ``shape``, C-contiguous, aligned and writable (numba would compile
    another version of a kernel for any other layout)."""
    return type(x) is np.ndarray and x.dtype is _FLOAT64 and x.shape == shape and x.flags.carray


def _dynamics_one(kernel, model, q, v, x):
    """``kernel`` of ``geomotion.tree._single`` (rnea or aba) at one configuration, with the
    model's gravity and no external wrench: (nv,), or None to take the general path (an
    input of another type or layout, or the kernel's checks failed)."""
    flat = flat_tree(model)
    if not (_vector(q, flat.q_shape) and _vector(v, flat.v_shape) and _vector(x, flat.v_shape)):
        return None
    out = np.empty(flat.v_shape)
    admitted = kernel(*flat.arrays(), flat.gravity_row, q, v, x, SINGLE_QUATERNION_ATOL, out)
    return out if admitted else None


def rnea_one(model, q, v, a):
    """Joint forces (nv,) of :func:`geomotion.tree.rnea` at one configuration by
    ``_single.rnea``, or None to take the general path (which then says why, if the
    input is at fault)."""
    return _dynamics_one(_single.rnea, model, q, v, a)


def aba_one(model, q, v, tau):
    """Accelerations (nv,) of :func:`geomotion.tree.aba` at one configuration by
    ``_single.aba``, or None to take the general path (also when a joint is singular)."""
    return _dynamics_one(_single.aba, model, q, v, tau)


def crba_one(model, q):
    """The mass matrix (nv, nv) of :func:`geomotion.tree.crba` at one configuration by
    ``_single.crba``, or None to take the general path."""
    flat = flat_tree(model)
    if not _vector(q, flat.q_shape):
        return None
    out = np.empty(flat.v_shape * 2)
    return out if _single.crba(*flat.arrays(), q, SINGLE_QUATERNION_ATOL, out) else None


def run_rnea(model, q, v, a, g, f_ext=None, frame="body", *, finite=True):
    """Joint forces of :func:`geomotion.tree.rnea` by ``_lanes.rnea``: (..., nv); with
    ``finite``, a FloatingPointError if the result overflowed (else the caller checks)."""
    batch, (Q, V, A), G, F, use_f = _inputs(model, (q, v, a), g, f_ext, frame)
    out = np.empty((Q.shape[0], model.nv))
    _lanes.rnea(*flat_tree(model).arrays(), Q, V, A, G, F, use_f, out)
    if finite:
        _validate.finite_result(out, "the joint forces", q=q, v=v, a=a)
    return out.reshape(batch + (model.nv,))


def run_aba(model, q, v, tau, g, f_ext=None, frame="body"):
    """Accelerations of :func:`geomotion.tree.aba` by ``_lanes.aba``: (..., nv);
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


def singular_joints(model, q):
    """For each configuration of ``q`` (..., nq), at rest and without gravity, the first
    joint (inward) whose articulated pivot ``_lanes.aba`` finds singular, or -1: (B,) int.

    One kernel call per configuration, since the kernel stops a batch at its first
    singular configuration.
    """
    Q = rows(q, q.shape[:-1], q.shape[-1:])
    arrays = flat_tree(model).arrays()
    zero, G, F = np.zeros((1, model.nv)), np.zeros((1, 3)), np.zeros((1, 1, 6))
    found = np.full(Q.shape[0], -1, dtype=np.int64)
    for b in range(Q.shape[0]):
        status = np.full(2, -1, dtype=np.int64)
        out = np.empty((1, model.nv))
        _lanes.aba(*arrays, Q[b : b + 1], zero, zero, G, F, False, out, status)
        found[b] = status[1]
    return found


def run_crba(model, q):
    """The mass matrix of :func:`geomotion.tree.crba` by ``_lanes.crba``: (..., nv, nv)."""
    batch = q.shape[:-1]
    Q = rows(q, batch, q.shape[-1:])
    out = np.empty((Q.shape[0], model.nv, model.nv))
    _lanes.crba(*flat_tree(model).arrays(), Q, out)
    return out.reshape(batch + (model.nv, model.nv))


def run_coriolis(model, q, v):
    """The Coriolis matrix of :func:`geomotion.tree.coriolis_matrix` by
    ``_lanes_coriolis.coriolis``: (..., nv, nv)."""
    batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    Q, V = rows(q, batch, q.shape[-1:]), rows(v, batch, v.shape[-1:])
    out = np.empty((Q.shape[0], model.nv, model.nv))
    _lanes_coriolis.coriolis(*flat_tree(model).arrays(), Q, V, out)
    return _validate.finite_result(out, "the Coriolis matrix", q=q, v=v).reshape(
        batch + (model.nv, model.nv)
    )


def run_frame_kinematics(model, q, v, path, frame, reference, jacobian=True, row0=0):
    """Pose (..., 4, 4), Jacobian rows ``row0``..5 (..., 6 - row0, nv) or None, twist and
    bias (..., 6) or None without ``v``, by ``geomotion.tree._lanes_frames.frame_kinematics``.
    ``frame`` (..., 4, 4) broadcasts with the configurations; ``reference`` is a key of
    :data:`REFERENCE_CODES`."""
    shapes = [q.shape[:-1], frame.shape[:-2]] + ([] if v is None else [v.shape[:-1]])
    batch = np.broadcast_shapes(*shapes)
    Q = rows(q, batch, q.shape[-1:])
    n = Q.shape[0]
    use_v = v is not None
    V = rows(v, batch, v.shape[-1:]) if use_v else np.zeros((1, model.nv))
    F = rows(frame, batch, (4, 4)) if frame.shape[:-2] else frame.reshape(1, 4, 4)
    F = np.ascontiguousarray(F, dtype=np.float64)
    T = np.empty((n, 4, 4))
    J = np.zeros((n if jacobian else 1, 6 - row0, model.nv))
    Vel, Bias = np.empty((n if use_v else 1, 6)), np.empty((n if use_v else 1, 6))
    _lanes_frames.frame_kinematics(
        *flat_tree(model).arrays(), np.array(path, dtype=np.int64), F,
        REFERENCE_CODES[reference], row0, Q, V, use_v, jacobian, T, J, Vel, Bias,
    )  # fmt: skip
    T = T.reshape(batch + (4, 4))
    J = J.reshape(batch + (6 - row0, model.nv)) if jacobian else None
    if not use_v:
        return T, J, None, None
    return T, J, Vel.reshape(batch + (6,)), Bias.reshape(batch + (6,))


def run_relative_kinematics(model, q, v, path_a, path_b, frame_a, frame_b, jacobian=True):
    """(T_ab (..., 4, 4), J (..., 6, nv) or None, twist and gamma (..., 6) or None) of
    the frame pair by ``_lanes_frames.relative_kinematics``; ``jacobian=False`` skips J."""
    batch = q.shape[:-1] if v is None else np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    Q = rows(q, batch, q.shape[-1:])
    use_v = v is not None
    V = rows(v, batch, v.shape[-1:]) if use_v else np.zeros((1, model.nv))
    n = Q.shape[0]
    J = np.zeros((n if jacobian else 1, 6, model.nv))
    T, W, G = np.empty((n, 4, 4)), np.empty((n, 6)), np.empty((n, 6))
    _lanes_frames.relative_kinematics(
        *flat_tree(model).arrays(),
        np.array(path_a, dtype=np.int64),
        np.array(path_b, dtype=np.int64),
        np.ascontiguousarray(frame_a, dtype=np.float64),
        np.ascontiguousarray(frame_b, dtype=np.float64),
        Q,
        V,
        use_v,
        jacobian,
        T,
        J,
        W,
        G,
    )
    T = T.reshape(batch + (4, 4))
    J = J.reshape(batch + (6, model.nv)) if jacobian else None
    if not use_v:
        return T, J, None, None
    return T, J, W.reshape(batch + (6,)), G.reshape(batch + (6,))


def run_closure_rows(model, q, v, paths, ends, frames, selected, jacobian=True):
    """Stacked rows of frame pairs (``geomotion.tree._lanes_frames.closure_rows``): J (..., c,
    nv) or None, and gamma (..., c) or None without ``v``."""
    batch = q.shape[:-1] if v is None else np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    Q = rows(q, batch, q.shape[-1:])
    use_v = v is not None
    V = rows(v, batch, v.shape[-1:]) if use_v else np.zeros((1, model.nv))
    n, c = Q.shape[0], selected.shape[0]
    J = np.zeros((n if jacobian else 1, c, model.nv))
    G = np.empty((n if use_v else 1, c))
    _lanes_frames.closure_rows(
        *flat_tree(model).arrays(), paths, ends, frames, selected, Q, V, use_v, jacobian, J, G
    )
    J = J.reshape(batch + (c, model.nv)) if jacobian else None
    return J, (G.reshape(batch + (c,)) if use_v else None)
