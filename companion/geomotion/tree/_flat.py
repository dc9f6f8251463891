"""What the compiled path needs of a tree, and nothing else: the leaf of ``geomotion.tree``.

A :class:`~geomotion.tree.Tree` enters the kernels as flat arrays (``FlatTree``),
built once per model and kept as long as the model lives (``flat_tree``): per body
its parent, joint code (``SCREW``, ``BALL``, ``FREE``), the constant bases
of a screw joint's motion (``screw_bases``, computed here once), placement
``(R0, p0)``, slices of ``q`` and ``v``, spatial inertia, and the motion-subspace columns
of all velocity coordinates, ``S[k]`` (nv, 6).  Also here: the kernels' compile options
(``KERNEL``), the singular-joint tolerance shared by the kernels and the tree's
validation, and ``rows``, which puts an input in the one array layout the kernels
are compiled for.  This module imports nothing from ``geomotion.tree``, so every module
of the compiled path can import it without a cycle.
"""

import math
import weakref

import numba
import numpy as np

from .. import _kernel_cache

#: Joint codes of :attr:`FlatTree.jtype`: a screw joint (revolute, prismatic, helical),
#: a ball joint (a unit quaternion) and a free flyer (position and unit quaternion).
SCREW, BALL, FREE = 0, 1, 2

#: A joint's articulated inertia about its own screw, D_i = S_i^T I^A_i S_i, counts as zero
#: (the mass matrix as singular) at or below this fraction of |S_i|^2 tr(I^A_i), the size
#: of the terms it is summed from: rounding alone leaves ~1e-16 of that.
SINGULAR_JOINT_RTOL = 1e-12

#: numba options of every kernel: cached where ``geomotion._kernel_cache`` says, no
#: reassociation (IEEE arithmetic, so a lane computes alike in any batch).
KERNEL = dict(cache=_kernel_cache.CACHE, nogil=True, fastmath=False, error_model="numpy")


@numba.njit(**KERNEL)
def screw_bases(jtype, screw, R0, p0):
    r"""Constant bases of each screw joint's placed motion, linear in (1, sin, 1 - cos, q).

    For :math:`S = (\omega, v)`, :math:`w = |\omega|`, the unit axis :math:`k` and
    :math:`K = [k]`, :math:`\phi = wq`: :math:`e^{[S]q}` has :math:`R_J = I + \sin\phi\,K
    + (1 - \cos\phi)K^2` and :math:`p_J = (I - R_J)(k\times v)/w + k(k\cdot v)q`
    (Murray, Li and Sastry, prop. 2.9); a prismatic joint (:math:`\omega = 0`) has
    :math:`R_J = I`, :math:`p_J = vq`.  So the placed pose :math:`(R_0R_J, R_0p_J + p_0)`
    is ``A[i] @ (1, s, 1 - c)`` and ``b[i] @ (1, s, 1 - c, q)``.  Returns them packed
    per body, (n, 40): ``A`` (3, 3, 3) in columns 0-26, ``b`` (4, 3) in 27-38 and ``w``
    (1 for a prismatic joint) in 39, what ``geomotion.tree._lanes._block_poses`` reads.
    """
    n = jtype.shape[0]
    A, b, w = np.zeros((n, 3, 3, 3)), np.zeros((n, 4, 3)), np.ones(n)
    K, K2, u = np.empty((3, 3)), np.empty((3, 3)), np.empty(3)
    for i in range(n):
        if jtype[i] != SCREW:
            continue
        om, v = screw[i, :3], screw[i, 3:]
        norm = math.sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2])
        for r in range(3):
            for c in range(3):
                A[i, 0, r, c] = R0[i, r, c]
            b[i, 0, r] = p0[i, r]
        if norm == 0.0:  # prismatic: R = R0, p = p0 + q R0 v
            for r in range(3):
                b[i, 3, r] = R0[i, r, 0] * v[0] + R0[i, r, 1] * v[1] + R0[i, r, 2] * v[2]
            continue
        w[i] = norm
        k0, k1, k2 = om[0] / norm, om[1] / norm, om[2] / norm
        K[0, 0], K[0, 1], K[0, 2] = 0.0, -k2, k1
        K[1, 0], K[1, 1], K[1, 2] = k2, 0.0, -k0
        K[2, 0], K[2, 1], K[2, 2] = -k1, k0, 0.0
        for r in range(3):
            for c in range(3):
                K2[r, c] = K[r, 0] * K[0, c] + K[r, 1] * K[1, c] + K[r, 2] * K[2, c]
        u[0] = (k1 * v[2] - k2 * v[1]) / norm  # k x v / w
        u[1] = (k2 * v[0] - k0 * v[2]) / norm
        u[2] = (k0 * v[1] - k1 * v[0]) / norm
        kv = k0 * v[0] + k1 * v[1] + k2 * v[2]
        for r in range(3):
            for c in range(3):
                A[i, 1, r, c] = (
                    R0[i, r, 0] * K[0, c] + R0[i, r, 1] * K[1, c] + R0[i, r, 2] * K[2, c]
                )
                A[i, 2, r, c] = (
                    R0[i, r, 0] * K2[0, c] + R0[i, r, 1] * K2[1, c] + R0[i, r, 2] * K2[2, c]
                )
        for r in range(3):  # p = p0 - s R0 K u - (1 - c) R0 K^2 u + q R0 k (k.v)
            b[i, 1, r] = -(A[i, 1, r, 0] * u[0] + A[i, 1, r, 1] * u[1] + A[i, 1, r, 2] * u[2])
            b[i, 2, r] = -(A[i, 2, r, 0] * u[0] + A[i, 2, r, 1] * u[1] + A[i, 2, r, 2] * u[2])
            b[i, 3, r] = (R0[i, r, 0] * k0 + R0[i, r, 1] * k1 + R0[i, r, 2] * k2) * kv
    packed = np.empty((n, 40))
    for i in range(n):
        for k in range(3):
            for r in range(3):
                for c in range(3):
                    packed[i, 9 * k + 3 * r + c] = A[i, k, r, c]
        for k in range(4):
            for r in range(3):
                packed[i, 27 + 3 * k + r] = b[i, k, r]
        packed[i, 39] = w[i]
    return packed


class FlatTree:
    """The flat arrays of a :class:`~geomotion.tree.Tree` that the kernels read.

    Parameters
    ----------
    model : Tree
        A validated tree (its joints, placements, inertias and coordinate slices).
    """

    def __init__(self, model):
        n = model.num_bodies
        codes = {"spherical": BALL, "free_flyer": FREE}
        self.parent = np.array(model.parents, dtype=np.int64)
        self.jtype = np.array([codes.get(j.kind, SCREW) for j in model.joints], dtype=np.int64)
        screws = np.zeros((n, 6))  # the screw joints' (the others' rows stay zero)
        for i, joint in enumerate(model.joints):
            if self.jtype[i] == SCREW:
                screws[i] = joint.screw
        self.R0 = np.array(model.placements[:, :3, :3])
        self.p0 = np.array(model.placements[:, :3, 3])
        self.iq = np.array(model.q_start, dtype=np.int64)
        self.iv = np.array(model.v_start, dtype=np.int64)
        self.nvj = np.array(model.joint_nv, dtype=np.int64)
        # fresh, writable and C-ordered whatever the joints' layouts (one kernel signature)
        self.S = np.ascontiguousarray(np.concatenate([j.subspace.T for j in model.joints]))
        #: The screw joints' motion bases, packed once per model (:func:`screw_bases`).
        self.bases = screw_bases(self.jtype, screws, self.R0, self.p0)
        self.I = np.array(model.inertias)
        #: The model's gravity as the kernels' one row (1, 3), for a single configuration.
        self.gravity_row = np.array(model.gravity, dtype=np.float64).reshape(1, 3)
        #: The shapes of one configuration, (nq,), and of one velocity, (nv,).
        self.q_shape, self.v_shape = (model.nq,), (model.nv,)

    def arrays(self):
        """The arrays in kernel argument order."""
        return (
            self.parent,
            self.jtype,
            self.bases,
            self.R0,
            self.p0,
            self.iq,
            self.iv,
            self.nvj,
            self.S,
            self.I,
        )


_FLAT = weakref.WeakKeyDictionary()


def flat_tree(model):
    """The model's :class:`FlatTree`, built on first use and kept as long as the model lives."""
    flat = _FLAT.get(model)
    if flat is None:
        flat = _FLAT[model] = FlatTree(model)
    return flat


def rows(x, batch, tail):
    """``x`` broadcast to ``batch + tail`` as a writable C-contiguous (B, *tail) float array.

    Writable and contiguous always, so that the kernels compile for one array type only.
    """
    if x.shape != batch + tail:
        x = np.broadcast_to(x, batch + tail)
    flat = x.reshape((-1,) + tail)
    if flat.dtype == np.float64 and flat.flags.c_contiguous and flat.flags.writeable:
        return flat
    return np.array(flat, dtype=np.float64, order="C")
