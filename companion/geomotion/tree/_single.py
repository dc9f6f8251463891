r"""RNEA, ABA and CRBA of one configuration: the lane kernels compiled for one lane.

A kernel of ``geomotion.tree._lanes`` runs one configuration as a block of one lane, but
it is compiled for any width: every loop over lanes tests its length, every work array
has strides known only at run time, and every lane operation is a call.  At N = 7 its
RNEA, CRBA and ABA take 4.2, 4.5 and 11.1 us for one configuration, against 0.3 to
0.9 us per configuration in blocks of 64.  Here the same source is compiled again
(:func:`_inlined`): every lane function inlined, on configurations of one row and work
arrays one lane wide, whose sizes the compiler then knows, so that it removes the loops
over lanes: 1.4, 1.1 and 2.8 us (numba's inlining makes most of the 25 s of CPU that
compiling the three takes).  The arithmetic is the lane kernels', operation for
operation (numba's ``fastmath`` is off in both, so nothing is reassociated): the results
are those of the configuration in any batch, bit for bit.

Each kernel also checks what the lean path of one call (``geomotion.tree._run``) needs:
finite inputs, unit quaternions (within ``atol``, which the caller makes stricter than
the tree's validation, so that a rounding of the norm cannot accept a quaternion the
validation refuses), no singular joint (ABA) and a finite result.  It returns whether all
held; when one did not, the caller takes the general path, which says what went wrong.
"""

import math
import types

import numba
import numpy as np
from numba.extending import is_jitted

from . import _lanes
from ._flat import BALL, KERNEL, SCREW


def _inlined(module):
    """The kernels of ``module`` compiled again to be inlined wherever they are called.

    Each is a new function on the same code, compiled with ``inline="always"``, whose
    global names are those of ``module`` with every kernel of it replaced by its inlined
    twin: a call of one inlines the whole tree of lane functions under it.  The twins
    are not cached on their own; the kernels that call them are.
    """
    namespace = dict(vars(module))
    for name, kernel in vars(module).items():
        if is_jitted(kernel) and kernel.py_func.__module__ == module.__name__:
            f = kernel.py_func
            twin = types.FunctionType(f.__code__, namespace, name, f.__defaults__, f.__closure__)
            namespace[name] = numba.njit(**dict(KERNEL, cache=False, inline="always"))(twin)
    return namespace


_LANE = _inlined(_lanes)
_rnea, _crba, _aba_blocks = _LANE["rnea"], _LANE["crba"], _LANE["_aba_blocks"]


@numba.njit(**KERNEL)
def _finite(x):
    """Whether every entry of ``x`` is finite."""
    for value in x.flat:
        if not math.isfinite(value):
            return False
    return True


@numba.njit(**KERNEL)
def _admissible(jtype, iq, q, atol):
    """Whether the configuration ``q`` (nq,) is finite and the quaternion of each ball and
    free-flyer joint has a norm within ``atol`` of 1."""
    if not _finite(q):
        return False
    for i in range(jtype.shape[0]):
        if jtype[i] == SCREW:
            continue
        k = iq[i] if jtype[i] == BALL else iq[i] + 3
        norm = math.sqrt(
            q[k] * q[k] + q[k + 1] * q[k + 1] + q[k + 2] * q[k + 2] + q[k + 3] * q[k + 3]
        )
        if not abs(norm - 1.0) <= atol:
            return False
    return True


@numba.njit(**KERNEL)
def rnea(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, G, q, v, a, atol, out):
    """Joint forces ``out`` (nv,) of ``_lanes.rnea`` at one configuration ``q`` (nq,),
    velocities ``v`` and accelerations ``a`` (nv,), gravity ``G`` (1, 3), no external
    wrench; whether the inputs were admissible and the result is finite."""
    if not (_admissible(jtype, iq, q, atol) and _finite(v) and _finite(a)):
        return False
    Q, V, A, F = q[None], v[None], a[None], np.zeros((1, 1, 6))  # one row each
    _rnea(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, A, G, F, False, out[None])
    return _finite(out)


@numba.njit(**KERNEL)
def aba(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, G, q, v, tau, atol, out):
    """Accelerations ``out`` (nv,) of ``_lanes.aba`` at one configuration (as :func:`rnea`,
    with joint forces ``tau``); whether the inputs were admissible, no joint singular and
    the result finite."""
    if not (_admissible(jtype, iq, q, atol) and _finite(v) and _finite(tau)):
        return False
    Q, V, T, F = q[None], v[None], tau[None], np.zeros((1, 1, 6))
    status = np.full(2, -1, dtype=np.int64)
    _aba_blocks(
        parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, Q, V, T, G, F, False, out[None], status, 1
    )
    return status[0] < 0 and _finite(out)


@numba.njit(**KERNEL)
def crba(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, q, atol, out):
    """The mass matrix ``out`` (nv, nv) of ``_lanes.crba`` at one configuration ``q``
    (nq,); whether ``q`` was admissible and the result is finite."""
    if not _admissible(jtype, iq, q, atol):
        return False
    _crba(parent, jtype, bases, R0, p0, iq, iv, nvj, S, I, q[None], out[None])
    return _finite(out)
