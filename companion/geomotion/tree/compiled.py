r"""Constant data of the fast algorithms, built once per :class:`~geomotion.tree.Tree`.

Joint-space results (``M``, ``tau``, ``qdd``) do not depend on the body frames used
inside the algorithms.  At model construction every body ``i`` is re-expressed in a
*canonical joint frame* ``i'`` (``T_{i,i'} = G_i``): origin on the joint axis (the point
closest to the body origin), z along the axis.  Then ``exp([S_i] q) = G_i Z(q) G_i^{-1}``
with ``Z(q) = (R_z(s_a q), (0, 0, s_l q))``, the joint screw becomes
``S'_i = (0, 0, s_a, 0, 0, s_l)`` and

.. math:: T_{\lambda(i)',i'}(q_i) = C_i\,Z(q_i), \qquad C_i = G_{\lambda(i)}^{-1}T^0_{\lambda(i),i}G_i
          \ \text{(constant)},

so ``X_i = Ad_Z^{-1} X_{C,i}``: a constant 6x6 operator followed by a rotation about z
(and, for helical/prismatic joints, a slide along z).

Products formed in base coordinates lose relative precision with the distance of the
bodies from the base origin (measured: 4e-8 in the ABA of a tree 1 km away).  Subtrees
of different roots never couple, so each root's subtree uses its own internal origin,
the root joint frame's origin at ``q = 0`` (a translation: gravity is unchanged; world
external wrenches are re-referenced, ``n <- n - r x f``); accuracy is then independent of
where the tree sits.  Bodies are numbered internally in depth-first order (every subtree
a contiguous index range); inputs and outputs are always in the user's body order.
"""

import numpy as np

from .._kernels import _inverse_pose, _motion_transform, _pose, _skew

#: A joint's articulated inertia about its own screw, D_i = S_i^T I^A_i S_i, counts as zero
#: (the mass matrix as singular) at or below this fraction of |S_i|^2 tr(I^A_i), the size
#: of the terms it is summed from: rounding alone leaves ~1e-16 of that.
SINGULAR_JOINT_RTOL = 1e-12


# ---------------------------------------------------------------------------
# Model compilation: canonical joint frames and constant operators
# ---------------------------------------------------------------------------


def _frame_with_z(u):
    """A rotation matrix whose third column is the unit vector u."""
    a = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = a - (a @ u) * u
    x /= np.linalg.norm(x)
    y = np.array([u[1] * x[2] - u[2] * x[1], u[2] * x[0] - u[0] * x[2], u[0] * x[1] - u[1] * x[0]])
    return np.column_stack([x, y, u])


def _canonical_frame(S):
    """Canonical joint frame G (pose of i' in i) and the scalars (s_a, s_l) of S' = Ad_G^-1 S."""
    w, v = S[:3], S[3:]
    kw = np.linalg.norm(w)
    if kw > 0:
        u = w / kw
        wv = w @ v
        if abs(wv) <= 1e-14 * kw * np.linalg.norm(v):
            wv = 0.0  # revolute up to rounding: keep the cheaper, exact zero pitch
        r = (
            np.array(
                [w[1] * v[2] - w[2] * v[1], w[2] * v[0] - w[0] * v[2], w[0] * v[1] - w[1] * v[0]]
            )
            / kw**2
        )
        return _pose(_frame_with_z(u), r), kw, wv / kw
    kv = np.linalg.norm(v)
    return _pose(_frame_with_z(v / kv), np.zeros(3)), 0.0, kv


def _force_z_basis(slides):
    """Bases E_j with force_transform(Z) = sum_j coef_j E_j, coef = (1, c, s[, d c, d s])."""
    R0, Rc, Rs = np.diag([0.0, 0.0, 1.0]), np.diag([1.0, 1.0, 0.0]), np.zeros((3, 3))
    Rs[0, 1], Rs[1, 0] = -1.0, 1.0
    E = _skew(np.array([0.0, 0.0, 1.0]))
    basis = []
    for R in (R0, Rc, Rs):
        b = np.zeros((6, 6))
        b[:3, :3] = b[3:, 3:] = R
        basis.append(b)
    if slides:
        for R in (Rc, Rs):
            b = np.zeros((6, 6))
            b[:3, 3:] = E @ R
            basis.append(b)
    return np.array(basis)


class _Compiled:
    """Constant data derived from a Tree for the fast algorithms (internal depth-first order)."""

    def __init__(self, parents, S, placements, inertias, masses):
        n = len(parents)
        self.n = n

        # Depth-first numbering: internal k is user body perm[k]; each subtree is contiguous.
        children = [[] for _ in range(n)]
        roots = []
        for i, p in enumerate(parents):
            (roots if p < 0 else children[p]).append(i)
        order, stack = [], roots[::-1]
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(children[i][::-1])
        self.perm = np.array(order, dtype=np.intp)
        self.inv = np.empty(n, dtype=np.intp)
        self.inv[self.perm] = np.arange(n)
        self.identity = bool(np.all(self.perm == np.arange(n)))
        self.parent = [int(self.inv[parents[u]]) if parents[u] >= 0 else -1 for u in self.perm]
        self.chain_steps = [(k, p) for k, p in enumerate(self.parent) if p >= 0]
        A = np.eye(n)  # ancestor matrix: A[i, j] = 1 if j is i or an ancestor of i
        for k, p in self.chain_steps:
            A[k] += A[p]
        self.anc = A
        self.anc_T = np.ascontiguousarray(A.T)
        self.anc_T_strict = np.ascontiguousarray(A.T - np.eye(n))

        # Canonical joint frames G (pose of i' in i) and S' = (0, 0, s_a, 0, 0, s_l).
        G, sa, sl = [], np.zeros(n), np.zeros(n)
        for k, u in enumerate(self.perm):
            g, sa[k], sl[k] = _canonical_frame(S[u])
            G.append(g)
        G = np.array(G)
        self.sa, self.sl = sa, sl
        self.sa_list = [float(x) for x in sa]
        self.sl_list = [float(x) for x in sl]
        self.rot = [x != 0 for x in self.sa_list]
        self.trans = [x != 0 for x in self.sl_list]
        self.any_trans = any(self.trans)
        self.G = G  # pose of the canonical frame k' in body k (internal order)
        Ginv = _inverse_pose(G)
        Gp = np.array([Ginv[p] if p >= 0 else np.eye(4) for p in self.parent])
        C = Gp @ placements[self.perm] @ G  # T_{parent', i'} at q = 0
        # Base-coordinate algorithms lose precision with the distance from the base
        # origin, so each root's subtree (subtrees never couple) uses its own origin: the
        # root's joint frame origin at q = 0 (a pure translation, so gravity is unchanged).
        # Only world-frame external wrenches need re-referencing: n <- n - r x f.
        origin = np.zeros((n, 3))
        for k, p in enumerate(self.parent):
            origin[k] = C[k, :3, 3] if p < 0 else origin[p]
        C[[k for k, p in enumerate(self.parent) if p < 0], :3, 3] = 0.0
        self.origin = origin  # internal origin of each body's root subtree, base coordinates
        Cinv = _inverse_pose(C)
        XC = _motion_transform(Cinv[:, :3, :3], Cinv[:, :3, 3])  # constant part of X_i

        # Canonical inertias and mass properties (about the i' origin, in i' axes).
        AdG = _motion_transform(G[:, :3, :3], G[:, :3, 3])
        I = np.swapaxes(AdG, 1, 2) @ inertias[self.perm] @ AdG
        self.I = 0.5 * (I + np.swapaxes(I, 1, 2))
        self.mass = masses[self.perm]

        # Large-batch points (base coordinates): C = (R_C, p_C).
        self.RCT = [np.ascontiguousarray(x[:3, :3].T) for x in C]  # row j = column j of R_C
        self.pC = [np.ascontiguousarray(x[:3, 3]) for x in C]

        # Small-batch path (base coordinates): force transforms parent' <- i' at q are
        # coef(q) @ FCB with coef = (1, cos, sin[, d cos, d sin]); F0 @ Iu = [F0 I | F0 u]
        # with u = (0, 0, s_l, 0, 0, s_a), whose last column is the screw s_i, halves swapped.
        FZ = _force_z_basis(self.any_trans)
        FC = np.swapaxes(XC, 1, 2)  # Ad_C^-T
        self.FCB = np.ascontiguousarray((FC[:, None] @ FZ[None]).reshape(n, len(FZ), 36))
        self.Iu = np.zeros((n, 6, 7))
        self.Iu[:, :, :6] = self.I
        self.Iu[:, 2, 6] = sl
        self.Iu[:, 5, 6] = sa


def _to_internal(cm, x, axis=-1):
    """User body order -> internal depth-first order along ``axis``."""
    return x if cm.identity else np.take(x, cm.perm, axis=axis)
