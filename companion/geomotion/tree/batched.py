r"""Fast path for large batches, in body frames: RNEA and ABA as structures of arrays.

Every per-body quantity is a ``(6, B)`` (twist, wrench) or ``(21, B)`` (symmetric 6x6)
array with the batch as the last, contiguous axis.  Stacked ``(B, 6, 6)`` matmuls were
measured 2.4-4.4x slower than Pinocchio at N = 7; here a constant operator is one BLAS
gemm on the whole batch (twist and acceleration stacked as ``(6, 2, B)`` share one), and
``Z(q)`` is a few elementwise operations on rows.

- RNEA and ABA run in the canonical body frames.  Articulated inertias are stored as
  their 21 unique entries, ordered so that a z-rotation acts on whole blocks of rows:
  3 entries are invariant, 4 pairs rotate by the joint angle, and each 2x2 block
  splits into trace and antisymmetric part (invariant) and a traceless symmetric part
  that rotates by twice the angle; the constant congruence ``X_C^T I X_C`` is one
  21x21 gemm.  The ABA folds each body's velocity-product acceleration ``c_i`` into
  its bias force, ``b_i = I_i c_i + v_i x* I_i v_i - f_i^ext`` (the accelerations left
  over then obey ``a_i = X_i a_parent + S_i qdd_i``), which removes the ``I^a c`` term.
- The CRBA, the Coriolis matrix and point kinematics run in base coordinates instead
  (:mod:`geomotion.tree.batched_base`), with the scratch arena and helpers of this file.
- numpy's float64 ``sin``/``cos`` cost ~30 ns per element here; a 256-entry table
  with short Taylor polynomials (``_sincos``, about 1 ulp) costs a third of that.
  Measured after the split into base-coordinate and body-frame files (10,000
  configurations, one BLAS thread): it saves 16-19 % of RNEA at N = 7 and 32, ~25 %
  of CRBA at N = 7 and 2-5 % of ABA, so it stays.
- Work arrays come from a scratch arena kept for the model between calls: fresh
  multi-megabyte temporaries were returned to the operating system and page-faulted
  back in on every call, which doubled the run time.  The arena holds no results, is
  checked out for one call at a time (concurrent calls each get their own), and the
  arenas kept for all models of the process together stay under ``_SCRATCH_LIMIT``
  bytes (least recently used ones are dropped first).

Functions take ``(B, N)`` arrays in the user's body order (one block of a batch, see
``geomotion.tree.model.BLOCK_SIZES``) and return ``(B, N)`` results.  The measurements
quoted in these notes are reproduced by ``make bench``.
"""

import collections
import math
import threading
import weakref

import numpy as np

from .compiled import (
    _BLOCK_XX,
    _BLOCK_XY,
    _BLOCK_YX,
    _BLOCK_YY,
    _COLUMN2,
    _COLUMN5,
    _DIAGONAL,
    _FULL_FROM_SYM,
    _SYM_PAIRS,
    _VECTOR_X,
    _VECTOR_Y,
    _check_joint_inertia,
    _reference_world_wrenches,
    _to_internal,
)
from .single import _stk_force_transforms

# ---------------------------------------------------------------------------
# Fast path 2: many configurations per call, structure of arrays (batch last)
# ---------------------------------------------------------------------------
# Every per-body quantity is an array with the batch as its last, contiguous axis:
# twists and wrenches (6, B), symmetric inertias (21, B) in the order of _SYM_PAIRS.
# X_i = Ad_Z(q)^-1 X_C,i: the constant X_C,i is one gemm, the joint motion Z(q)
# (rotation by theta = s_a q about z, slide d = s_l q along z) is elementwise on rows.

#: Largest total size (bytes) of the scratch arenas kept between calls, over all models.
_SCRATCH_LIMIT = 256 * 2**20

# Arenas kept between calls: id(compiled model) -> (weak reference to it, arena), least
# recently used first.  An entry goes when its model is collected or when the total
# would pass _SCRATCH_LIMIT.
_KEPT = collections.OrderedDict()
_KEPT_LOCK = threading.RLock()  # re-entrant: a weakref callback may run inside the lock


class _Scratch:
    """Named work arrays of one large-batch call, reused across calls.

    Each name keeps one flat buffer; a request returns its leading part reshaped, so a
    smaller request (the last, partial block of a batch) reuses the buffer instead of
    replacing it, and the next full block finds it again.
    """

    __slots__ = ("buffers",)

    def __init__(self):
        self.buffers = {}

    def get(self, key, shape, dtype=float):
        size = math.prod(shape)
        buffer = self.buffers.get(key)
        if buffer is None or buffer.size < size or buffer.dtype != dtype:
            buffer = self.buffers[key] = np.empty(size, dtype=dtype)
        return buffer[:size].reshape(shape)

    def nbytes(self):
        return sum(buffer.nbytes for buffer in self.buffers.values())


def _checkout(cm):
    """The arena kept for ``cm``, or a new one; it belongs to the caller until checked in."""
    with _KEPT_LOCK:
        entry = _KEPT.pop(id(cm), None)
    if entry is not None and entry[0]() is cm:
        return entry[1]
    return _Scratch()


def _forget(key):
    with _KEPT_LOCK:
        _KEPT.pop(key, None)


def _checkin(cm, ws):
    """Keep ``ws`` for ``cm``'s next call, dropping least recently used arenas over the limit."""
    size = ws.nbytes()
    if size > _SCRATCH_LIMIT:
        return
    key = id(cm)
    with _KEPT_LOCK:
        if key in _KEPT:  # a concurrent call on the same model kept its arena already
            return
        _KEPT[key] = (weakref.ref(cm, lambda _, key=key: _forget(key)), ws)
        total = sum(arena.nbytes() for _, arena in _KEPT.values())
        while total > _SCRATCH_LIMIT:
            _, (_, dropped) = _KEPT.popitem(last=False)
            total -= dropped.nbytes()


# sin and cos together: numpy's float64 sin/cos cost ~30 ns per element here (scalar
# libm), a 256-entry table plus short polynomials ~3x less.  theta = k h + d with
# h = 2 pi/256 split as h1 + h2 + h3 (h1 has 25 significant bits, so k h1 is exact for
# |k| < 2^28), |d| <= pi/256; sin d and cos d - 1 by Taylor series with truncation
# error below 1e-17; then the angle-addition formulas.  Error about 1 ulp.
_TABLE_SIZE = 256
_H = np.pi / 128
_H1 = float(
    np.array([np.float64(_H).view(np.uint64) & np.uint64(0xFFFFFFFFF0000000)]).view(np.float64)[0]
)
_H2 = _H - _H1
_H3 = 1.2246467991473532e-16 / 128  # (pi - fl(pi)) / 128


def _sincos_table():
    """cos and sin of k pi/128, k < 256, from first-octant values by exact symmetries."""
    k = np.arange(33)
    angle = (k * _H1 + k * _H2) + k * _H3  # k pi/128 to within 1e-16 rad for k <= 32
    c8, s8 = np.cos(angle), np.sin(angle)
    r = np.arange(65)  # first quadrant: cos(r h) = sin((64 - r) h) for r > 32
    cq = np.where(r <= 32, c8[np.minimum(r, 32)], s8[np.clip(64 - r, 0, 32)])
    sq = np.where(r <= 32, s8[np.minimum(r, 32)], c8[np.clip(64 - r, 0, 32)])
    k = np.arange(_TABLE_SIZE)
    quadrant, r = k // 64, k % 64
    cos = np.choose(quadrant, [cq[r], -sq[r], -cq[r], sq[r]])
    sin = np.choose(quadrant, [sq[r], cq[r], -sq[r], -cq[r]])
    return cos, sin


_COS_TABLE, _SIN_TABLE = _sincos_table()
_SINCOS_RANGE = 1e6  # beyond this |theta| (rad) fall back to np.cos / np.sin


def _sincos(x, c, s, ws):
    """c[...] = cos(x), s[...] = sin(x) for a (N, B) array x, using scratch buffers."""
    if x.size == 0 or np.abs(x).max() > _SINCOS_RANGE:
        np.cos(x, out=c)
        np.sin(x, out=s)
        return
    k, d, z, t = (ws.get(name, x.shape) for name in ("sc_k", "sc_d", "sc_z", "sc_t"))
    j = ws.get("sc_j", x.shape, dtype=np.intp)
    np.multiply(x, 1.0 / _H, out=k)
    np.rint(k, out=k)
    np.multiply(k, _H1, out=t)
    np.subtract(x, t, out=d)
    np.multiply(k, _H2, out=t)
    d -= t
    np.multiply(k, _H3, out=t)
    d -= t
    np.multiply(d, d, out=z)
    np.copyto(j, k, casting="unsafe")
    np.bitwise_and(j, _TABLE_SIZE - 1, out=j)
    # t <- sin(d) - d = d z (-1/6 + z/120);  z <- cos(d) - 1 = z (-1/2 + z (1/24 - z/720))
    np.multiply(z, 1.0 / 120.0, out=t)
    t -= 1.0 / 6.0
    t *= z
    t *= d
    np.multiply(z, -1.0 / 720.0, out=k)
    k += 1.0 / 24.0
    k *= z
    k -= 0.5
    z *= k
    t += d  # sin(d)
    np.take(_COS_TABLE, j, out=k)  # cos(k h)
    np.take(_SIN_TABLE, j, out=d)  # sin(k h)
    # c = cj + (cj (cos d - 1) - sj sin d),  s = sj + (sj (cos d - 1) + cj sin d)
    np.multiply(k, z, out=c)
    np.multiply(d, t, out=s)
    c -= s
    c += k
    np.multiply(d, z, out=s)
    s += d
    t *= k
    s += t


def _soa_screw_projection(cm, k, f, out):
    """``S_k^T f = s_a f_z + s_l f_{z,linear}`` for a canonical-frame (6, B) wrench, into ``out``."""
    sa, sl = cm.sa_list[k], cm.sl_list[k]
    if sa:
        np.multiply(f[2], sa, out=out)
        if sl:
            out += sl * f[5]
    else:
        np.multiply(f[5], sl, out=out)
    return out


def _soa_inputs(cm, ws, arrays, names):
    """(B, N) user-order inputs -> (N, B) internal-order work arrays named ``names``."""
    n, B = arrays[0].shape[1], arrays[0].shape[0]
    return [_soa_columns(cm, x, ws.get(name, (n, B))) for x, name in zip(arrays, names)]


def _soa_columns(cm, x, out):
    """(B, N) user order -> (N, B) internal order, into ``out``."""
    if cm.identity:
        np.copyto(out, x.T)
    else:
        np.take(x.T, cm.perm, axis=0, out=out)
    return out


def _soa_rows_to_user(cm, x, out=None):
    """(N, B) internal order -> contiguous (B, N) user order (into ``out`` if given)."""
    rows = x if cm.identity else x[cm.inv]
    if out is None:
        return np.ascontiguousarray(rows.T)
    out[...] = rows.T
    return out


def _soa_base_acceleration(g):
    """(6, 1) or (6, B) acceleration of the base, (0, -g), for g of shape (3,) or (B, 3)."""
    rows = g.T if g.ndim > 1 else g[:, None]
    return np.concatenate([np.zeros_like(rows), -rows])


def _soa_trig(cm, qs, ws, double=False):
    """Joint angle cosines/sines (and of twice the angle) and slides, each (N, B)."""
    shape = qs.shape
    c, s, d = ws.get("cos", shape), ws.get("sin", shape), ws.get("slide", shape)
    theta = ws.get("theta", shape)
    np.multiply(cm.sa[:, None], qs, out=theta)
    _sincos(theta, c, s, ws)
    np.multiply(cm.sl[:, None], qs, out=d)
    if not double:
        return c, s, d, None, None
    c2, s2 = ws.get("cos2", shape), ws.get("sin2", shape)
    np.multiply(c, c, out=c2)
    np.multiply(s, s, out=theta)
    c2 -= theta
    np.multiply(c, s, out=s2)
    s2 *= 2.0
    return c, s, d, c2, s2


def _soa_down(Y, k, cm, trig, t1, t2):
    """In place: Y <- Ad_Z(q_k)^-1 Y for motion rows Y (6, ..., B); t1, t2 scratch like Y[:2]."""
    if cm.trans[k]:  # v <- v - d e_z x omega
        dk = trig[2][k]
        t = t1[0]
        np.multiply(Y[1], dk, out=t)
        Y[3] += t
        np.multiply(Y[0], dk, out=t)
        Y[4] -= t
    if cm.rot[k]:  # (omega, v) <- R_z(theta)^T (omega, v)
        ck, sk = trig[0][k], trig[1][k]
        Y4 = Y.reshape((2, 3) + Y.shape[1:])
        x, y = Y4[:, 0], Y4[:, 1]
        np.multiply(x, ck, out=t1)
        np.multiply(y, sk, out=t2)
        t1 += t2
        np.multiply(x, sk, out=t2)
        y *= ck
        y -= t2
        x[...] = t1


def _soa_up(F, k, cm, trig, t1, t2):
    """In place: F <- Ad_Z(q_k)^-T F for force rows F (6, ..., B); t1, t2 scratch like F[:2]."""
    if cm.rot[k]:  # (n, f) <- R_z(theta) (n, f)
        ck, sk = trig[0][k], trig[1][k]
        F4 = F.reshape((2, 3) + F.shape[1:])
        x, y = F4[:, 0], F4[:, 1]
        np.multiply(x, ck, out=t1)
        np.multiply(y, sk, out=t2)
        t1 -= t2
        np.multiply(x, sk, out=t2)
        y *= ck
        y += t2
        x[...] = t1
    if cm.trans[k]:  # n <- n + d e_z x f
        dk = trig[2][k]
        t = t1[0]
        np.multiply(F[4], dk, out=t)
        F[0] -= t
        np.multiply(F[3], dk, out=t)
        F[1] += t


def _rot21(I, c, s, c2, s2, ws):
    """In place: I <- blkdiag(R, R) I blkdiag(R, R)^T with R = R_z, on (21, B) storage.

    In the order of _SYM_PAIRS: the _INVARIANT rows stay; _VECTOR_X and _VECTOR_Y are the x
    and y components of 2-vectors that rotate by the angle; each 2x2 block [[a, b], [e, f]]
    (rows _BLOCK_XX, _BLOCK_XY, _BLOCK_YY and, for the one non-symmetric block, _BLOCK_YX)
    keeps its trace and antisymmetric part while its traceless symmetric part
    (delta, sigma) = ((a - f)/2, (b + e)/2) rotates by twice the angle.
    """
    B = I.shape[-1]
    t4, u4 = ws.get("r21_t4", (4, B)), ws.get("r21_u4", (4, B))
    tr, delta, dn, u3 = (ws.get(name, (3, B)) for name in ("r21_tr", "r21_de", "r21_dn", "r21_u3"))
    w = ws.get("r21_w", (B,))
    X, Y = I[_VECTOR_X], I[_VECTOR_Y]
    np.multiply(X, c, out=t4)
    np.multiply(Y, s, out=u4)
    t4 -= u4
    np.multiply(X, s, out=u4)
    Y *= c
    Y += u4
    X[...] = t4
    a, f, b, e = I[_BLOCK_XX], I[_BLOCK_YY], I[_BLOCK_XY], I[_BLOCK_YX]
    np.add(a, f, out=tr)
    tr *= 0.5
    np.subtract(a, f, out=delta)
    delta *= 0.5
    np.subtract(b[2], e, out=w)
    w *= 0.5
    b[2] += e
    b[2] *= 0.5  # b now holds sigma
    np.multiply(delta, c2, out=dn)
    np.multiply(b, s2, out=u3)
    dn -= u3
    np.multiply(delta, s2, out=u3)
    b *= c2
    b += u3  # the rotated sigma
    np.add(tr, dn, out=a)
    np.subtract(tr, dn, out=f)
    np.subtract(b[2], w, out=e)
    b[2] += w


def _trans21(J, d):
    """Slide congruence T J T^T with T = [[I, d[e_z]], [0, I]] on (21, B) storage."""
    full = J[_FULL_FROM_SYM].reshape(6, 6, -1)
    full[0] -= d * full[4]
    full[1] += d * full[3]
    full[:, 0] -= d * full[:, 4]
    full[:, 1] += d * full[:, 3]
    return full[_SYM_PAIRS[:, 0], _SYM_PAIRS[:, 1]]


class _ArticulatedInertias:
    """Articulated inertias (21, B) of the bodies whose children are being folded in.

    ``fold(k, Ia)`` adds ``X_k^T Ia X_k`` to the parent's entry: the joint rotation and
    slide in place on ``Ia`` (rows 0-20; row 21 holds ones), then one gemm with the constant
    congruence; for a parent's first child the gemm is ``[L_k | I_parent] @ [Ia; 1]``, which
    also adds the parent's own body inertia.
    """

    def __init__(self, cm, ws, B, trig):
        self.cm, self.ws, self.B, self.trig = cm, ws, B, trig
        self.live = {}
        self.free = []
        self.count = 0

    def get(self, k):
        """Body k's articulated inertia, or its constant body inertia (21, 1) if it has no children."""
        return self.live.get(k, self.cm.I21[k][:, None])

    def release(self, k):
        if k in self.live:
            self.free.append(self.live.pop(k))

    def fold(self, k, Ia):
        cm = self.cm
        c, s, d, c2, s2 = self.trig
        J = Ia[:21]
        if cm.rot[k]:
            _rot21(J, c[k], s[k], c2[k], s2[k], self.ws)
        if cm.trans[k]:
            J[...] = _trans21(J, d[k])
        p = cm.parent[k]
        if p in self.live:
            contribution = self.ws.get("contribution", (21, self.B))
            np.matmul(cm.L21[k], J, out=contribution)
            self.live[p] += contribution
            return
        if self.free:
            buf = self.free.pop()
        else:
            buf = self.ws.get(("IA", self.count), (21, self.B))
            self.count += 1
        np.matmul(cm.L22[k], Ia, out=buf)
        self.live[p] = buf


def _soa_fcross_add(v, h, out, t2, t1):
    """out += [v x*] h on rows: (omega x n + v_lin x f, omega x f); t2 (2, B), t1 (B,) scratch."""
    w0, w1, w2, l0, l1, l2 = v
    h4 = h.reshape(2, 3, -1)  # h4[:, k] = (n_k, f_k)
    o4 = out.reshape(2, 3, -1)
    for i, (wa, wb, ha, hb) in enumerate(((w1, w2, 2, 1), (w2, w0, 0, 2), (w0, w1, 1, 0))):
        np.multiply(h4[:, ha], wa, out=t2)
        o4[:, i] += t2
        np.multiply(h4[:, hb], wb, out=t2)
        o4[:, i] -= t2
    f0, f1, f2 = h[3], h[4], h[5]
    for i, (la, lb, fa, fb) in enumerate(((l1, l2, f2, f1), (l2, l0, f0, f2), (l0, l1, f1, f0))):
        np.multiply(la, fa, out=t1)
        out[i] += t1
        np.multiply(lb, fb, out=t1)
        out[i] -= t1


def _soa_forward(cm, trig, qd, qdd, a_base, ws):
    """Twists and net body wrenches I a + v x* I v of every body.

    Returns ``(VA, F)``: ``VA`` (N, 6, 2, B) twist and acceleration, ``F`` (N, 6, B).
    With ``qdd=None`` and ``a_base = 0`` the accelerations are the velocity-product
    accelerations c_i, as the ABA needs.
    """
    n, B = qd.shape
    VA = ws.get("VA", (n, 6, 2, B))
    F = ws.get("F", (n, 6, B))
    H = ws.get("H", (6, 2, B))
    t22a, t22b = ws.get("t22a", (2, 2, B)), ws.get("t22b", (2, 2, B))
    t2, t1 = ws.get("t2", (2, B)), ws.get("t1", (B,))
    wq = ws.get("wq", (n, B))
    np.multiply(cm.sa[:, None], qd, out=wq)
    vq = None
    if cm.any_trans:
        vq = ws.get("vq", (n, B))
        np.multiply(cm.sl[:, None], qd, out=vq)
    for k in range(n):
        p = cm.parent[k]
        Y = VA[k]
        if p < 0:
            Y[:, 0] = 0.0
            Y[:, 1] = cm.XC[k] @ a_base
        else:
            np.matmul(cm.XC[k], VA[p].reshape(6, 2 * B), out=Y.reshape(6, 2 * B))
        _soa_down(Y, k, cm, trig, t22a, t22b)
        v, a = Y[:, 0], Y[:, 1]
        sa, sl = cm.sa_list[k], cm.sl_list[k]
        # joint twist S qd, joint acceleration S qdd, and v x S qd
        # (omega x w e_z = w (omega_y, -omega_x, 0), likewise for the linear parts)
        if sa:
            w = wq[k]
            v[2] += w
            if qdd is not None:
                np.multiply(qdd[k], sa, out=t1)
                a[2] += t1
            v4, a4 = v.reshape(2, 3, B), a.reshape(2, 3, B)
            np.multiply(v4[:, 1], w, out=t2)
            a4[:, 0] += t2
            np.multiply(v4[:, 0], w, out=t2)
            a4[:, 1] -= t2
        if sl:
            w = vq[k]
            v[5] += w
            if qdd is not None:
                np.multiply(qdd[k], sl, out=t1)
                a[5] += t1
            np.multiply(v[1], w, out=t1)
            a[3] += t1
            np.multiply(v[0], w, out=t1)
            a[4] -= t1
        np.matmul(cm.I6[k], Y.reshape(6, 2 * B), out=H.reshape(6, 2 * B))
        f = F[k]
        f[...] = H[:, 1]
        _soa_fcross_add(v, H[:, 0], f, t2, t1)
    return VA, F


def _soa_external(cm, f_ext, frame, q_user):
    """External wrenches (B, N, 6) user order -> canonical body coordinates (N, 6, B)."""
    F = _to_internal(cm, f_ext, axis=-2)
    if frame == "world":  # body wrench = F0^-1 F_world: f_b = R^T f, n_b = R^T (n - [p] f)
        F = _reference_world_wrenches(cm, F)
        F0 = _stk_force_transforms(cm, _to_internal(cm, q_user))
        Rt, PR = np.swapaxes(F0[..., :3, :3], -1, -2), F0[..., :3, 3:]
        fb = Rt @ F[..., 3:, None]
        nb = Rt @ (F[..., :3, None] - PR @ fb)
        F = np.concatenate([nb, fb], axis=-2)[..., 0]
    else:
        F = (cm.GT @ F[..., None])[..., 0]
    return F.transpose(1, 2, 0)


def _soa_rnea(cm, q, qd, qdd, g, f_ext=None, frame="body", out=None):
    """RNEA on (B, N) user-order arrays, structure-of-arrays layout."""
    B, n = q.shape
    ws = _checkout(cm)
    try:
        qs, qds, qdds = _soa_inputs(cm, ws, (q, qd, qdd), ("q", "qd", "qdd"))
        trig = _soa_trig(cm, qs, ws)
        _, F = _soa_forward(cm, trig, qds, qdds, _soa_base_acceleration(g), ws)
        if f_ext is not None:
            F -= _soa_external(cm, f_ext, frame, q)
        tau = np.empty((n, B))
        tmp = ws.get("tmp6", (6, B))
        t2a, t2b = ws.get("t2", (2, B)), ws.get("t2b", (2, B))
        for k in range(n - 1, -1, -1):
            f = F[k]
            _soa_screw_projection(cm, k, f, tau[k])
            p = cm.parent[k]
            if p >= 0:
                _soa_up(f, k, cm, trig, t2a, t2b)
                np.matmul(cm.XCT[k], f, out=tmp)
                F[p] += tmp
    finally:
        _checkin(cm, ws)
    return _soa_rows_to_user(cm, tau, out)


def _soa_aba(cm, q, qd, tau, g, f_ext=None, frame="body", out=None):
    """ABA on (B, N) user-order arrays, structure-of-arrays layout."""
    B, n = q.shape
    ws = _checkout(cm)
    try:
        qs, qds, taus = _soa_inputs(cm, ws, (q, qd, tau), ("q", "qd", "tau"))
        trig = _soa_trig(cm, qs, ws, double=True)
        VA, P = _soa_forward(cm, trig, qds, None, np.zeros((6, 1)), ws)  # P: bias wrenches b_i
        if f_ext is not None:
            P -= _soa_external(cm, f_ext, frame, q)
        # After the forward pass VA is free: its storage holds U (inward) and A (outward).
        storage = VA.reshape(2, n * 6 * B)
        U = storage[0].reshape(n, 6, B)
        A = storage[1].reshape(n, 6, B)
        Dinv, u = ws.get("Dinv", (n, B)), ws.get("u", (n, B))
        IA = _ArticulatedInertias(cm, ws, B, trig)
        Ia = ws.get("Ia", (22, B))
        Ia[21] = 1.0
        W, tmp = ws.get("W", (6, B)), ws.get("tmp6", (6, B))
        t1 = ws.get("t1", (B,))
        t2a, t2b = ws.get("t2", (2, B)), ws.get("t2b", (2, B))
        pairs = _SYM_PAIRS.tolist()
        for k in range(n - 1, -1, -1):
            ia = IA.get(k)
            pa = P[k]
            sa, sl = cm.sa_list[k], cm.sl_list[k]
            Uk, Dk, uk = U[k], Dinv[k], u[k]
            # U = I^A S, D = S^T U, u = tau - S^T p^A
            if sa:
                np.multiply(ia[_COLUMN2], sa, out=Uk)
                if sl:
                    Uk += sl * ia[_COLUMN5]
            else:
                np.multiply(ia[_COLUMN5], sl, out=Uk)
            _soa_screw_projection(cm, k, Uk, Dk)
            _check_joint_inertia(cm, k, Dk, (sa * sa + sl * sl) * ia[_DIAGONAL].sum(axis=0))
            _soa_screw_projection(cm, k, pa, t1)
            np.divide(1.0, Dk, out=Dk)
            np.subtract(taus[k], t1, out=uk)
            p = cm.parent[k]
            if p >= 0:
                # I^a = I^A - U U^T / D and p^a = p^A + U u / D, carried to the parent
                np.multiply(Uk, Dk, out=W)
                for m, (r, c) in enumerate(pairs):
                    np.multiply(Uk[r], W[c], out=t1)
                    np.subtract(ia[m], t1, out=Ia[m])
                np.multiply(uk, Dk, out=t1)
                np.multiply(Uk, t1, out=tmp)
                pa += tmp
                IA.fold(k, Ia)
                _soa_up(pa, k, cm, trig, t2a, t2b)
                np.matmul(cm.XCT[k], pa, out=tmp)
                P[p] += tmp
            IA.release(k)
        a_base = _soa_base_acceleration(g)
        qdd = np.empty((n, B))
        for k in range(n):
            p = cm.parent[k]
            a = A[k]
            if p < 0:
                a[...] = cm.XC[k] @ a_base
            else:
                np.matmul(cm.XC[k], A[p], out=a)
            _soa_down(a, k, cm, trig, t2a, t2b)
            qk = qdd[k]
            np.multiply(U[k], a, out=tmp)
            np.add.reduce(tmp, axis=0, out=qk)
            np.subtract(u[k], qk, out=qk)
            qk *= Dinv[k]
            sa, sl = cm.sa_list[k], cm.sl_list[k]
            if sa:
                np.multiply(qk, sa, out=t1)
                a[2] += t1
            if sl:
                np.multiply(qk, sl, out=t1)
                a[5] += t1
    finally:
        _checkin(cm, ws)
    return _soa_rows_to_user(cm, qdd, out)
