r"""Helpers of the large-batch numpy path of the point kinematics
(:mod:`geomotion.tree.batched_base`): the scratch arena, joint trigonometry and the
batch-last layout.

Every per-body quantity of that path is an array with the batch as its last, contiguous
axis.  (RNEA, ABA and CRBA of large batches run in the compiled kernels over lanes,
``geomotion.tree._lanes``, instead: measured on the 7-body benchmark chain at
10,000 configurations, 0.44, 1.23 and 0.75 us per configuration against 0.55, 1.21 and
0.85 us for the numpy structure of arrays that lived here.)

- numpy's float64 ``sin``/``cos`` cost ~30 ns per element here; a 256-entry table
  with short Taylor polynomials (``_sincos``, about 1 ulp) costs a third of that.
- Work arrays come from a scratch arena kept for the model between calls: fresh
  multi-megabyte temporaries were returned to the operating system and page-faulted
  back in on every call, which doubled the run time.  The arena holds no results, is
  checked out for one call at a time (concurrent calls each get their own), and the
  arenas kept for all models of the process together stay under ``_SCRATCH_LIMIT``
  bytes (least recently used ones are dropped first).
"""

import collections
import math
import threading
import weakref

import numpy as np

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


def _soa_columns(cm, x, out):
    """(B, N) user order -> (N, B) internal order, into ``out``."""
    if cm.identity:
        np.copyto(out, x.T)
    else:
        np.take(x.T, cm.perm, axis=0, out=out)
    return out


def _soa_trig(cm, qs, ws):
    """Joint angle cosines and sines and joint slides, each (N, B), for internal-order q."""
    shape = qs.shape
    c, s, d = ws.get("cos", shape), ws.get("sin", shape), ws.get("slide", shape)
    theta = ws.get("theta", shape)
    np.multiply(cm.sa[:, None], qs, out=theta)
    _sincos(theta, c, s, ws)
    np.multiply(cm.sl[:, None], qs, out=d)
    return c, s, d
