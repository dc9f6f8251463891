r"""Rigid-body trees: kinematics, joint mass matrix (CRBA), inverse (RNEA) and forward (ABA) dynamics.

Model
-----
A fixed-base tree of ``N`` rigid bodies, one scalar joint per body.  ``parents[i] < i``
(``-1`` is the fixed base).  Body ``i`` carries a constant joint screw ``S_i`` in its own
coordinates (angular-first) and a constant placement ``T_{parent,i}`` at ``q_i = 0``;
the joint moves body ``i`` by the screw exponential, so

.. math:: T_{\lambda(i),i}(q_i) = T^{0}_{\lambda(i),i}\,\exp([S_i]\,q_i),\qquad
          X_i = \mathrm{Ad}_{T_{\lambda(i),i}}^{-1},\qquad
          \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i .

Revolute (``omega != 0``, ``omega.v = 0``), helical (``omega.v != 0``) and prismatic
(``omega = 0``) joints all follow from ``S_i``; ``q_i`` is in rad (revolute, helical)
or m (prismatic), the matching ``tau_i`` in N m or N.  With ``S_i`` not of unit size,
``q_i`` is a scaled coordinate and ``tau_i`` the matching generalized force.

Two ways through the same mechanics
-----------------------------------
* The *readable* path, :class:`PreparedTree` with :func:`composite_inertias` and
  :func:`joint_mass_matrix`, is the textbook composite-rigid-body algorithm on explicit
  6x6 operators: what the book chapter shows.  :func:`body_jacobians`,
  :func:`body_twists`, :func:`joint_transforms` and :func:`forward_kinematics` are
  likewise plain propagations in the user's body frames.  They are the independent
  references the fast path is tested against.
* The *fast* path, :func:`crba`, :func:`rnea`, :func:`aba` (and :func:`bias_forces`),
  is organized for speed; see the implementation notes below.

Implementation notes (measured on the 2-core benchmark machine; ``bench/bench_dynamics.py``)
--------------------------------------------------------------------------------------------
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

Two code paths, dispatched on the number ``B`` of configurations in one call (batches of
at least ``_SOA_MIN_BATCH`` = 96, the measured crossover, take the first):

* Large batches, "structure of arrays".  Every per-body quantity is a ``(6, B)`` (twist,
  wrench) or ``(21, B)`` (symmetric 6x6) array with the batch as the last, contiguous
  axis.  Stacked ``(B, 6, 6)`` matmuls were measured 2.4-4.4x slower than Pinocchio at
  N = 7; here a constant operator is one BLAS gemm on the whole batch (twist and
  acceleration stacked as ``(6, 2, B)`` share one), and ``Z(q)`` is a few elementwise
  operations on rows.

  - RNEA and ABA run in the canonical body frames.  Articulated inertias are stored as
    their 21 unique entries, ordered so that a z-rotation acts on whole blocks of rows:
    3 entries are invariant, 4 pairs rotate by the joint angle, and each 2x2 block
    splits into trace and antisymmetric part (invariant) and a traceless symmetric part
    that rotates by twice the angle; the constant congruence ``X_C^T I X_C`` is one
    21x21 gemm.  The ABA folds each body's velocity-product acceleration ``c_i`` into
    its bias force, ``b_i = I_i c_i + v_i x* I_i v_i - f_i^ext`` (the accelerations left
    over then obey ``a_i = X_i a_parent + S_i qdd_i``), which removes the ``I^a c`` term.
  - The CRBA runs in base coordinates: body poses by the outward recursion, joint screws
    ``s_i``, and per body its mass, first moment and second moments about the base
    origin, whose subtree sums are the composite inertias; then
    ``M_ij = s_i . (I^C_j s_j)`` costs about 11 row operations per matrix entry, against
    about 60 for carrying body-frame force columns through every ancestor (that version
    measured 3.5x Pinocchio at N = 32).
  - numpy's float64 ``sin``/``cos`` cost ~30 ns per element here; a 256-entry table
    with short Taylor polynomials (``_sincos``, about 1 ulp) costs a third of that.
  - Work arrays come from a scratch arena kept with the model between calls: fresh
    multi-megabyte temporaries were returned to the operating system and page-faulted
    back in on every call, which doubled the run time.  The arena holds no results, is
    checked out for one call at a time (concurrent calls each get their own) and is kept
    only up to ``_SCRATCH_LIMIT`` bytes (a few times N x 6 x B doubles).
* Small batches (one configuration per call): the ~1-5 us overhead of each numpy call
  dominates (the straightforward 6x6 body-by-body version measures ~100x Pinocchio), so
  the work is vectorized across *bodies* instead, in base coordinates (Featherstone's
  spatial formulation).  One product with constant bases gives all joint transforms, a
  loop of N 6x6 ``ndarray.dot`` calls all force transforms to the base, and then joint
  screws, body inertias, velocities ``v_i = sum_{j<=i} s_j qd_j`` (a product with the
  constant ancestor matrix), the cross-product operators ``[v_i x]``/``[v_i x*]`` (one
  product with a constant (6, 72) basis), bias accelerations and subtree sums are a few
  calls for all bodies at once (the ancestor-matrix products cost O(N^2) flops, far
  below the call overhead at these sizes).  Only the articulated-body recursion needs a
  per-body loop, on augmented 7x7 matrices ``[[I^A, p^A], [p^A^T, *]]`` in base
  coordinates, where one rank-one update handles articulated inertia and bias force and
  no transforms are needed.

Products formed in base coordinates lose relative precision with the distance of the
bodies from the base origin (measured: 4e-8 in the ABA of a tree 1 km away).  Subtrees
of different roots never couple, so each root's subtree uses its own internal origin,
the root joint frame's origin at ``q = 0`` (a translation: gravity is unchanged; world
external wrenches are re-referenced, ``n <- n - r x f``); accuracy is then independent of
where the tree sits.  Bodies are numbered internally in depth-first order (every subtree
a contiguous index range, so the large-batch CRBA fills a whole subtree's row of ``M`` in
one call); inputs and outputs are always in the user's body order.
"""

import math
from dataclasses import dataclass, field

import numpy as np

from . import _validate
from .inertia import is_physically_realizable
from .spatial import _inverse_pose, _motion_transform, _pose, _skew, exp_twist

__all__ = [
    "Tree",
    "PreparedTree",
    "prepare",
    "joint_transforms",
    "forward_kinematics",
    "composite_inertias",
    "joint_mass_matrix",
    "crba",
    "body_jacobians",
    "body_twists",
    "rnea",
    "aba",
    "bias_forces",
    "kinetic_energy",
    "potential_energy",
    "spatial_momentum",
]

#: Default gravity in base coordinates, m/s^2.
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)
_DEFAULT_GRAVITY_ARRAY = np.array(DEFAULT_GRAVITY)
_DEFAULT_GRAVITY_ARRAY.flags.writeable = False

#: Batches of at least this many configurations use the structure-of-arrays path
#: (measured crossover on the benchmark machine, see bench/bench_dynamics.py).
_SOA_MIN_BATCH = 96

#: Relative tolerance for the structure checks of inertias and motion transforms.
_STRUCTURE_RTOL = 1e-9


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _readonly(array):
    array = np.array(array, copy=True)
    array.flags.writeable = False
    return array


def _check_parents(parents, name="parents"):
    try:
        raw = np.asarray(parents)
    except (TypeError, ValueError) as error:  # pragma: no cover - ragged input
        raise ValueError(f"{name}: expected a sequence of integers, got {parents!r}") from error
    if raw.ndim != 1:
        raise ValueError(
            f"{name}: expected a 1-D sequence of parent indices, got shape {raw.shape}"
        )
    if raw.size == 0:
        raise ValueError(f"{name}: expected at least one body, got an empty sequence")
    if raw.dtype.kind not in "iu":
        if raw.dtype.kind != "f" or not np.all(np.isfinite(raw)) or np.any(raw != np.round(raw)):
            raise ValueError(f"{name}: expected integer parent indices, got {raw!r}")
    out = raw.astype(np.int64)
    bad = [i for i, p in enumerate(out) if not -1 <= p < i]
    if bad:
        i = bad[0]
        raise ValueError(
            f"{name}: expected parent-before-child indices, -1 <= parents[i] < i, "
            f"got parents[{i}] = {int(out[i])}"
        )
    return out


def _check_count(array, n, name, what):
    if array.shape[0] != n:
        raise ValueError(f"{name}: expected {n} {what} (one per body), got {array.shape[0]}")


def _check_subspaces(subspaces, n, name="subspaces"):
    S = _validate.real_array(subspaces, name)
    if S.ndim != 2 or S.shape[1] != 6:
        raise ValueError(f"{name}: expected shape ({n}, 6), got shape {S.shape}")
    _check_count(S, n, name, "joint screws")
    norms = np.linalg.norm(S, axis=1)
    if np.any(norms == 0):
        i = int(np.argmin(norms))
        raise ValueError(f"{name}: expected nonzero joint screws, got a zero screw for body {i}")
    return S


def _check_inertia_structure(I, name, allow_singular):
    """Check (N, 6, 6) spatial inertias; return masses, centres of mass, central inertias."""
    scale = np.abs(I).max(axis=(1, 2))
    tol = _STRUCTURE_RTOL * (1.0 + scale)
    asym = np.abs(I - np.swapaxes(I, 1, 2)).max(axis=(1, 2))
    for i in np.nonzero(asym > tol)[0]:
        raise ValueError(
            f"{name}: expected a symmetric 6x6 inertia for body {i}, got asymmetry {asym[i]:.3g}"
        )
    lower = I[:, 3:, 3:]
    m = np.trace(lower, axis1=1, axis2=2) / 3
    for i in range(I.shape[0]):
        if not m[i] > 0:
            raise ValueError(
                f"{name}: expected a positive mass (lower-right block m*I3) for body {i}, "
                f"got m = {m[i]:.6g}"
            )
        if np.abs(lower[i] - m[i] * np.eye(3)).max() > tol[i]:
            raise ValueError(
                f"{name}: expected the lower-right block of body {i} to be m*I3, "
                f"got {lower[i].tolist()}"
            )
        coupling = I[i, :3, 3:]
        if np.abs(coupling + coupling.T).max() > tol[i]:
            raise ValueError(
                f"{name}: expected coupling blocks m[c] and -m[c] (a centre of mass) for body {i}, "
                f"got a non-antisymmetric upper-right block {coupling.tolist()}"
            )
    mc = 0.5 * np.stack(
        [I[:, 2, 4] - I[:, 1, 5], I[:, 0, 5] - I[:, 2, 3], I[:, 1, 3] - I[:, 0, 4]], axis=-1
    )
    com = mc / m[:, None]
    C = _skew(com)
    inertia_com = I[:, :3, :3] + m[:, None, None] * (C @ C)
    inertia_com = 0.5 * (inertia_com + np.swapaxes(inertia_com, 1, 2))
    # Recovering I_C = I_O + m[c][c] leaves rounding noise of the size of I_O (e.g. 1e-18
    # for a point mass, whose I_C is 0): snap central second moments below 1e-12 of the
    # body's rotational scale trace(I_O) to zero before judging realizability.
    sigma = 0.5 * np.trace(inertia_com, axis1=1, axis2=2)[:, None, None] * np.eye(3) - inertia_com
    lam, U = np.linalg.eigh(sigma)
    lam = np.where(
        np.abs(lam) <= 1e-12 * np.trace(I[:, :3, :3], axis1=1, axis2=2)[:, None], 0.0, lam
    )
    sigma = (U * lam[:, None, :]) @ np.swapaxes(U, 1, 2)
    inertia_com = np.trace(sigma, axis1=1, axis2=2)[:, None, None] * np.eye(3) - sigma
    for i in range(I.shape[0]):
        if not is_physically_realizable(inertia_com[i]):
            raise ValueError(
                f"{name}: expected a physically realizable body {i} (central principal moments "
                f"obeying the triangle inequalities), got moments "
                f"{np.linalg.eigvalsh(inertia_com[i]).tolist()}"
            )
        if not allow_singular:
            eig = np.linalg.eigvalsh(inertia_com[i])
            if eig.min() <= _STRUCTURE_RTOL * max(eig.max(), np.finfo(float).tiny):
                raise ValueError(
                    f"{name}: expected a positive definite central inertia for body {i}, got "
                    f"principal moments {eig.tolist()} (pass allow_singular_inertias=True for "
                    f"ideal point masses or thin rods)"
                )
    return m, com, inertia_com


def _check_motion_transforms(X, name):
    """Check (..., 6, 6) rigid motion transforms [[R, 0], [[p]R, R]]."""
    R = X[..., :3, :3]
    tol = _STRUCTURE_RTOL * (1.0 + np.abs(X).max(initial=0.0))
    if np.abs(X[..., :3, 3:]).max(initial=0.0) > tol:
        raise ValueError(
            f"{name}: expected motion transforms [[R, 0], [[p]R, R]], got a nonzero upper-right block"
        )
    if np.abs(X[..., 3:, 3:] - R).max(initial=0.0) > tol:
        raise ValueError(
            f"{name}: expected motion transforms with equal diagonal blocks R, got different blocks"
        )
    _validate.rotation(R, f"{name}[..., :3, :3]")
    P = np.swapaxes(R, -1, -2) @ X[..., 3:, :3]  # = R^T [p] R, antisymmetric
    if np.abs(P + np.swapaxes(P, -1, -2)).max(initial=0.0) > tol:
        raise ValueError(
            f"{name}: expected a lower-left block [p]R of a rigid motion, got a non-skew R^T B"
        )


def _finite_array(value, name):
    """``value`` as a float ndarray; ValueError naming ``name`` if not real and finite.

    The common case costs two cheap numpy calls: a sum of squares is finite unless an
    entry is not (or the sum overflows, which the full check then clears).
    """
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: expected real numbers, got {value!r}") from error
    flat = array.reshape(-1)
    if not math.isfinite(flat.dot(flat)):
        _validate.real_array(array, name)
    return array


def _check_configuration(model, value, name):
    array = _finite_array(value, name)
    n = model.num_bodies
    if array.ndim == 0 or array.shape[-1] != n:
        raise ValueError(
            f"{name}: expected shape (..., {n}) (one entry per joint), got shape {array.shape}"
        )
    return array


def _check_gravity(gravity):
    if gravity is DEFAULT_GRAVITY:
        return _DEFAULT_GRAVITY_ARRAY
    g = _finite_array(gravity, "gravity")
    if g.shape != (3,):
        raise ValueError(
            f"gravity: expected shape (3,) (m/s^2 in base coordinates), got shape {g.shape}"
        )
    return g


def _check_f_ext(model, f_ext, frame):
    if frame not in ("body", "world"):
        raise ValueError(f"f_ext_frame: expected 'body' or 'world', got {frame!r}")
    if f_ext is None:
        return None
    F = _finite_array(f_ext, "f_ext")
    n = model.num_bodies
    if F.ndim < 2 or F.shape[-2:] != (n, 6):
        raise ValueError(
            f"f_ext: expected shape (..., {n}, 6) (one wrench per body), got shape {F.shape}"
        )
    return F


def _batch_shape(arrays, wrench=None):
    """Broadcast leading (batch) shape of (..., N) arrays and an optional (..., N, 6) wrench array."""
    shapes = [a.shape[:-1] for a in arrays]
    if wrench is not None:
        shapes.append(wrench.shape[:-2])
    first = shapes[0]
    for shape in shapes:
        if shape != first:
            break
    else:
        return first
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError as error:
        raise ValueError(
            f"q, qd, qdd, tau, f_ext: expected leading (batch) shapes that broadcast, got {shapes}"
        ) from error


# ---------------------------------------------------------------------------
# Symmetric 6x6 storage for the structure-of-arrays path
# ---------------------------------------------------------------------------

# The 21 unique entries of a symmetric 6x6, ordered by how a rotation about z acts
# (x-like indices 0, 3; y-like 1, 4; z-like 2, 5):
#   [0:3]   invariant entries (z, z)
#   [3:7]   x-components and [7:11] matching y-components of 2-vectors (P, z): rotate by theta
#   [11:14] a = (x, x), [14:17] f = (y, y), [17:20] b = (x, y) of the 2x2 blocks aa, ll, al
#   [20]    e = (y, x) of the al block (aa and ll are symmetric)
_SYM_PAIRS = np.array(
    [(2, 2), (2, 5), (5, 5),
     (0, 2), (0, 5), (2, 3), (3, 5),
     (1, 2), (1, 5), (2, 4), (4, 5),
     (0, 0), (3, 3), (0, 3),
     (1, 1), (4, 4), (1, 4),
     (0, 1), (3, 4), (0, 4),
     (1, 3)]
)  # fmt: skip
_SYM_INDEX = np.empty((6, 6), dtype=np.intp)
for _k, (_a, _b) in enumerate(_SYM_PAIRS):
    _SYM_INDEX[_a, _b] = _SYM_INDEX[_b, _a] = _k
_FULL_FROM_SYM = _SYM_INDEX.reshape(36)
_COLUMN2 = _SYM_INDEX[:, 2].copy()
_COLUMN5 = _SYM_INDEX[:, 5].copy()


def _sym21(I):
    """(..., 6, 6) symmetric -> (..., 21) in the rotation-friendly order."""
    return I[..., _SYM_PAIRS[:, 0], _SYM_PAIRS[:, 1]]


def _congruence21(X):
    """Matrix L (21x21) with sym21(X^T I X) = L @ sym21(I) for symmetric I."""
    a, b = _SYM_PAIRS[:, 0], _SYM_PAIRS[:, 1]
    i, j = _SYM_PAIRS[:, 0], _SYM_PAIRS[:, 1]
    L = X[i[None, :], a[:, None]] * X[j[None, :], b[:, None]]
    L += (i != j)[None, :] * X[j[None, :], a[:, None]] * X[i[None, :], b[:, None]]
    return L


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


class _Compiled:
    """Constant data derived from a Tree for the fast algorithms (internal depth-first order)."""

    def __init__(self, parents, S, placements, inertias, masses, coms, inertias_com):
        n = len(parents)
        self.n = n
        self.user_mass, self.user_com = masses.copy(), coms.copy()

        # Depth-first numbering: internal k is user body perm[k]; subtree of k = [k, end[k]).
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
        size = [1] * n
        for k in reversed(range(n)):
            if self.parent[k] >= 0:
                size[self.parent[k]] += size[k]
        self.end = [k + size[k] for k in range(n)]
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
        self.shifted = bool(np.any(origin))
        self.origin_skew = _skew(origin)
        Cinv = _inverse_pose(C)
        XC = _motion_transform(Cinv[:, :3, :3], Cinv[:, :3, 3])  # constant part of X_i

        # Canonical inertias and mass properties (about the i' origin, in i' axes).
        AdG = _motion_transform(G[:, :3, :3], G[:, :3, 3])
        I = np.swapaxes(AdG, 1, 2) @ inertias[self.perm] @ AdG
        self.I = 0.5 * (I + np.swapaxes(I, 1, 2))
        self.mass = masses[self.perm]
        Rg = G[:, :3, :3]
        com = np.einsum("kji,kj->ki", Rg, coms[self.perm] - G[:, :3, 3])
        inertia_com = np.swapaxes(Rg, 1, 2) @ inertias_com[self.perm] @ Rg
        self.GT = np.ascontiguousarray(np.swapaxes(AdG, 1, 2))  # body wrench -> canonical: Ad_G^T

        # Large-batch RNEA/ABA (canonical body frames).
        self.XC = [np.ascontiguousarray(x) for x in XC]
        self.XCT = [np.ascontiguousarray(x.T) for x in XC]
        self.L21 = [np.ascontiguousarray(_congruence21(x)) for x in XC]
        self.I6 = [np.ascontiguousarray(x) for x in self.I]
        self.I21 = [np.ascontiguousarray(_sym21(x)) for x in self.I]
        self.L22 = [  # [L_k | I21 of the parent]: folds the parent's own inertia into the gemm
            np.ascontiguousarray(np.column_stack([L, self.I21[p] if p >= 0 else np.zeros(21)]))
            for L, p in zip(self.L21, self.parent)
        ]

        # Large-batch CRBA (base coordinates): C = (R_C, p_C) and per-body mass terms,
        # second moments R Sigma'_C R^T = sum_j w_j w_j^T with w_j = Gk[j] . (columns of R).
        self.RCT = [np.ascontiguousarray(x[:3, :3].T) for x in C]  # row j = column j of R_C
        self.pC = [np.ascontiguousarray(x[:3, 3]) for x in C]
        self.com = [np.ascontiguousarray(x) for x in com]
        self.mass_list = [float(x) for x in self.mass]
        sigma = (
            0.5 * np.trace(inertia_com, axis1=1, axis2=2)[:, None, None] * np.eye(3) - inertia_com
        )
        lam, U = np.linalg.eigh(sigma)
        self.Gk = [
            np.ascontiguousarray(np.sqrt(np.clip(l, 0, None))[:, None] * u.T)
            for l, u in zip(lam, U)
        ]
        sub = self.mass.copy()
        for k in reversed(range(n)):
            if self.parent[k] >= 0:
                sub[self.parent[k]] += sub[k]
        self.subtree_mass = sub

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

        self.scratch_pool = []  # work arrays of the large-batch path, reused across calls

    def __getstate__(self):
        state = dict(self.__dict__)
        state["scratch_pool"] = []  # scratch is never worth pickling
        return state


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Tree:
    r"""A fixed-base tree of rigid bodies with one scalar joint each.

    .. math:: T_{\lambda(i),i}(q_i) = T^0_{\lambda(i),i}\exp([S_i]q_i),\qquad
              \mathcal V_i = X_i(q)\,\mathcal V_{\lambda(i)} + S_i\dot q_i,\quad
              X_i = \mathrm{Ad}_{T_{\lambda(i),i}}^{-1}

    Parameters
    ----------
    parents : (N,) sequence of int
        ``parents[i]`` is the parent body of body ``i``; ``-1`` for the fixed base.
        Parents come before children: ``-1 <= parents[i] < i``.
    subspaces : (N, 6) array_like
        Constant joint screw ``S_i`` of body ``i`` in body ``i`` coordinates,
        angular-first ``(omega, v)``.  ``omega != 0, omega.v = 0``: revolute (q in rad);
        ``omega.v != 0``: helical with pitch ``omega.v/|omega|^2`` m/rad; ``omega = 0``:
        prismatic along ``v`` (q in m).  Nonzero.
    placements : (N, 4, 4) array_like
        ``T_{parent,i}`` at ``q_i = 0``: maps body ``i`` coordinates into its parent's
        (the base frame for roots); translations in m.
    inertias : (N, 6, 6) array_like
        Spatial inertia of body ``i`` about its origin in its axes
        (:func:`geomotion.inertia.spatial_inertia`): symmetric, lower-right block
        ``m I3`` with ``m > 0`` kg, coupling blocks ``m[c]`` and ``-m[c]``, physically
        realizable central inertia.
    allow_singular_inertias : bool
        If False (default) every central inertia must be positive definite; if True,
        ideal singular bodies (point mass, thin rod) that are still realizable are
        admitted.  The mass matrix stays positive definite as long as every joint moves
        some mass; :func:`aba` needs that.

    Raises
    ------
    ValueError
        Naming the argument, for wrong shapes or counts, non-finite values, parents not
        ordered parent-before-child, zero joint screws, non-rigid placements, and
        inertias that are asymmetric, have a non-positive mass, inconsistent coupling
        blocks, or an unrealizable (or, unless allowed, singular) central inertia.

    Notes
    -----
    A frozen dataclass: the arrays are stored as read-only copies, and the constant
    operators of the fast algorithms are built once here.
    """

    parents: np.ndarray
    subspaces: np.ndarray
    placements: np.ndarray
    inertias: np.ndarray
    allow_singular_inertias: bool = False
    _compiled: _Compiled = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        parents = _check_parents(self.parents, "parents")
        n = parents.size
        S = _check_subspaces(self.subspaces, n, "subspaces")
        P = _validate.real_array(self.placements, "placements")
        if P.ndim != 3 or P.shape[1:] != (4, 4):
            raise ValueError(f"placements: expected shape ({n}, 4, 4), got shape {P.shape}")
        _check_count(P, n, "placements", "poses")
        _validate.pose(P, "placements")
        I = _validate.real_array(self.inertias, "inertias")
        if I.ndim != 3 or I.shape[1:] != (6, 6):
            raise ValueError(f"inertias: expected shape ({n}, 6, 6), got shape {I.shape}")
        _check_count(I, n, "inertias", "spatial inertias")
        if not isinstance(self.allow_singular_inertias, (bool, np.bool_)):
            raise ValueError(
                f"allow_singular_inertias: expected True or False, got {self.allow_singular_inertias!r}"
            )
        masses, coms, inertias_com = _check_inertia_structure(
            I, "inertias", bool(self.allow_singular_inertias)
        )
        for name, value in (
            ("parents", parents),
            ("subspaces", S),
            ("placements", P),
            ("inertias", I),
        ):
            object.__setattr__(self, name, _readonly(value))
        object.__setattr__(self, "allow_singular_inertias", bool(self.allow_singular_inertias))
        object.__setattr__(
            self, "_compiled", _Compiled(parents, S, P, I, masses, coms, inertias_com)
        )

    @property
    def num_bodies(self):
        """Number of bodies N (= number of joints)."""
        return self.parents.size

    @property
    def masses(self):
        """(N,) body masses in kg."""
        return self._compiled.user_mass.copy()

    @property
    def centers_of_mass(self):
        """(N, 3) centre of mass of each body in its own coordinates, m."""
        return self._compiled.user_com.copy()


@dataclass(frozen=True, eq=False)
class PreparedTree:
    r"""A tree frozen at one configuration: explicit 6x6 joint transforms.

    The object the textbook algorithms (:func:`composite_inertias`,
    :func:`joint_mass_matrix`) act on.  Build it from a :class:`Tree` with
    :func:`prepare`, or by hand as in the book's worked example.

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i

    Parameters
    ----------
    parents : (N,) sequence of int
        Parent indices, ``-1 <= parents[i] < i``.
    transform : (..., N, 6, 6) array_like
        ``X_i``: motion transform from the parent's coordinates to body ``i``'s
        (Featherstone's ``Xup``), ``X_i = Ad_{T_{parent,i}}^{-1}``.  Leading axes are a
        batch of configurations.
    subspace : (N, 6) array_like
        Joint screws ``S_i`` in body ``i`` coordinates (angular-first), nonzero.
    inertia : (N, 6, 6) array_like
        Body inertias about body ``i``'s origin in its axes, symmetric positive
        semidefinite (kg, kg m, kg m^2 blocks).

    Raises
    ------
    ValueError
        Naming the argument, for wrong shapes, non-finite values, parents not ordered
        parent-before-child, transforms that are not rigid motion transforms, zero joint
        screws, and inertias that are asymmetric or not positive semidefinite.
    """

    parents: np.ndarray
    transform: np.ndarray
    subspace: np.ndarray
    inertia: np.ndarray

    def __post_init__(self):
        parents = _check_parents(self.parents, "parents")
        n = parents.size
        X = _validate.real_array(self.transform, "transform")
        if X.ndim < 3 or X.shape[-3:] != (n, 6, 6):
            raise ValueError(f"transform: expected shape (..., {n}, 6, 6), got shape {X.shape}")
        _check_motion_transforms(X, "transform")
        S = _check_subspaces(self.subspace, n, "subspace")
        I = _validate.real_array(self.inertia, "inertia")
        if I.shape != (n, 6, 6):
            raise ValueError(f"inertia: expected shape ({n}, 6, 6), got shape {I.shape}")
        scale = np.abs(I).max(axis=(1, 2))
        asym = np.abs(I - np.swapaxes(I, 1, 2)).max(axis=(1, 2))
        for i in np.nonzero(asym > _STRUCTURE_RTOL * (1 + scale))[0]:
            raise ValueError(
                f"inertia: expected symmetric 6x6 inertias, got asymmetry {asym[i]:.3g} for body {i}"
            )
        eig = np.linalg.eigvalsh(0.5 * (I + np.swapaxes(I, 1, 2)))
        for i in np.nonzero(eig.min(axis=1) < -_STRUCTURE_RTOL * (1 + scale))[0]:
            raise ValueError(
                f"inertia: expected positive semidefinite inertias, "
                f"got eigenvalue {eig[i].min():.3g} for body {i}"
            )
        for name, value in (
            ("parents", parents),
            ("transform", X),
            ("subspace", S),
            ("inertia", I),
        ):
            object.__setattr__(self, name, _readonly(value))

    @property
    def num_bodies(self):
        """Number of bodies N."""
        return self.parents.size


def _check_model(model, name="model"):
    if type(model) is not Tree and not isinstance(model, Tree):
        raise ValueError(f"{name}: expected a geomotion.tree.Tree, got {type(model).__name__}")
    return model


# ---------------------------------------------------------------------------
# Plain kinematics in the user's body frames (the independent references)
# ---------------------------------------------------------------------------


def _joint_poses(model, q):
    """T_{parent,i}(q) = placements[i] @ exp_twist(S_i q_i): (..., N, 4, 4)."""
    return model.placements @ exp_twist(q[..., None] * model.subspaces)


def joint_transforms(model, q):
    r"""Parent-to-child motion transforms :math:`X_i(q)` of every joint.

    .. math:: X_i = \mathrm{Ad}_{T_{\lambda(i),i}(q_i)}^{-1},\qquad
              T_{\lambda(i),i}(q_i) = T^0_{\lambda(i),i}\exp([S_i]q_i)

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad for revolute/helical, m for prismatic joints).

    Returns
    -------
    (..., N, 6, 6) ndarray
        ``X_i`` maps angular-first twists in the parent's coordinates (base frame for
        roots) into body ``i``'s coordinates.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.
    """
    _check_model(model)
    q = _check_configuration(model, q, "q")
    T = _inverse_pose(_joint_poses(model, q))  # T_{i, parent}
    return _motion_transform(T[..., :3, :3], T[..., :3, 3])


def forward_kinematics(model, q):
    r"""Pose of every body in the base frame, :math:`T_{0,i}(q)`.

    .. math:: T_{0,i} = T_{0,\lambda(i)}\,T^0_{\lambda(i),i}\exp([S_i]q_i)

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, 4, 4) ndarray
        ``T_{0,i}`` maps body ``i`` coordinates into base coordinates (m).

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.
    """
    _check_model(model)
    q = _check_configuration(model, q, "q")
    T = _joint_poses(model, q)
    out = np.empty_like(T)
    for i, p in enumerate(model.parents):
        out[..., i, :, :] = T[..., i, :, :] if p < 0 else out[..., p, :, :] @ T[..., i, :, :]
    return out


def body_jacobians(model, q):
    r"""Body Jacobians: joint rates to each body's twist in its own coordinates.

    .. math:: \mathcal V_i = J_i(q)\,\dot q,\qquad J_i = X_i J_{\lambda(i)} + S_i e_i^T

    Computed by its own propagation in the user's body frames (independent of the
    CRBA code), so that :math:`M = \sum_i J_i^T\mathcal I_i J_i` is a genuine check.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, 6, N) ndarray
        ``J[..., i, :, j]``: twist of body ``i`` (rad/s, m/s; body ``i`` coordinates,
        about its origin) per unit rate of joint ``j``.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.
    """
    X = joint_transforms(model, q)
    n = model.num_bodies
    J = np.zeros(X.shape[:-3] + (n, 6, n))
    for i, p in enumerate(model.parents):
        if p >= 0:
            J[..., i, :, :] = X[..., i, :, :] @ J[..., p, :, :]
        J[..., i, :, i] += model.subspaces[i]
    return J


def body_twists(model, q, qd):
    r"""Twist of every body in its own coordinates.

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i,\qquad
              \mathcal V_{\text{base}} = 0

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).
    qd : (..., N) array_like
        Joint rates (rad/s or m/s).

    Returns
    -------
    (..., N, 6) ndarray
        ``(omega, v)`` of body ``i`` about its origin in its axes (rad/s, m/s).

    Raises
    ------
    ValueError
        If an argument is malformed.
    """
    X = joint_transforms(model, q)
    qd = _check_configuration(model, qd, "qd")
    shape = np.broadcast_shapes(X.shape[:-3], qd.shape[:-1])
    X = np.broadcast_to(X, shape + X.shape[-3:])
    V = qd[..., None] * model.subspaces
    V = np.array(np.broadcast_to(V, shape + V.shape[-2:]))
    for i, p in enumerate(model.parents):
        if p >= 0:
            V[..., i, :] += np.einsum("...ij,...j->...i", X[..., i, :, :], V[..., p, :])
    return V


def prepare(model, q):
    r"""Freeze a tree at configuration ``q``: a :class:`PreparedTree` with explicit ``X_i(q)``.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m); leading axes give a batch of configurations, kept
        as leading axes of ``transform``.

    Returns
    -------
    PreparedTree
        ``transform = joint_transforms(model, q)``; subspaces and inertias from the model.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is malformed.
    """
    return PreparedTree(model.parents, joint_transforms(model, q), model.subspaces, model.inertias)


# ---------------------------------------------------------------------------
# The textbook composite-rigid-body algorithm on a PreparedTree
# ---------------------------------------------------------------------------


def _check_prepared(prepared):
    if not isinstance(prepared, PreparedTree):
        raise ValueError(
            f"prepared: expected a geomotion.tree.PreparedTree, got {type(prepared).__name__}"
        )
    return prepared


def composite_inertias(prepared):
    r"""Composite inertia of every subtree, with its internal joints locked.

    Initialize :math:`\mathcal I^C_i = \mathcal I_i`, then visit children before parents:

    .. math:: \mathcal I^C_{\lambda(i)} \mathrel{+}= X_i^T\,\mathcal I^C_i\,X_i

    (the energy of the locked child under a parent twist :math:`\mathcal V_p` is
    :math:`\tfrac12 \mathcal V_p^T X_i^T\mathcal I^C_i X_i\mathcal V_p`).

    Parameters
    ----------
    prepared : PreparedTree

    Returns
    -------
    (..., N, 6, 6) ndarray
        ``I^C_i`` about body ``i``'s origin in body ``i``'s axes (kg, kg m, kg m^2 blocks).

    Raises
    ------
    ValueError
        If ``prepared`` is not a PreparedTree.
    """
    _check_prepared(prepared)
    X = prepared.transform
    IC = np.array(np.broadcast_to(prepared.inertia, X.shape))
    for i in reversed(range(prepared.num_bodies)):
        p = prepared.parents[i]
        if p >= 0:
            Xi = X[..., i, :, :]
            IC[..., p, :, :] += np.swapaxes(Xi, -1, -2) @ IC[..., i, :, :] @ Xi
    return IC


def joint_mass_matrix(prepared):
    r"""Joint-space mass matrix by the composite-rigid-body algorithm (explicit 6x6 operators).

    For each body ``i``: :math:`F = \mathcal I^C_i S_i`, :math:`M_{ii} = S_i^T F`; then walk to
    the base, carrying the force column into each ancestor's coordinates and projecting:

    .. math:: F \leftarrow X_j^T F,\quad j \leftarrow \lambda(j),\quad M_{ij} = M_{ji} = S_j^T F .

    Bodies on different branches have :math:`M_{ij} = 0`.  Kinetic energy is
    :math:`K = \tfrac12\dot q^T M\dot q`.

    Parameters
    ----------
    prepared : PreparedTree

    Returns
    -------
    (..., N, N) ndarray
        Symmetric ``M`` (kg m^2 between revolute joints, kg between prismatic ones,
        kg m mixed).

    Raises
    ------
    ValueError
        If ``prepared`` is not a PreparedTree.
    """
    IC = composite_inertias(prepared)
    X, S, parents = prepared.transform, prepared.subspace, prepared.parents
    n = prepared.num_bodies
    M = np.zeros(X.shape[:-3] + (n, n))
    for i in range(n):
        F = IC[..., i, :, :] @ S[i]
        M[..., i, i] = F @ S[i]
        j = i
        while parents[j] >= 0:
            F = np.einsum("...ji,...j->...i", X[..., j, :, :], F)  # X_j^T F
            j = parents[j]
            M[..., i, j] = M[..., j, i] = F @ S[j]
    return M


# ---------------------------------------------------------------------------
# Fast path 1: few configurations per call, vectorized across bodies (base coordinates)
# ---------------------------------------------------------------------------
# One numpy call costs 1-5 us here (``@`` more than ``ndarray.dot``), so this path
# minimizes the number of calls: the joint transforms of all bodies come from one
# product with constant bases, a loop of N 6x6 products gives every body's force
# transform to the base, and the rest (screws s_i, inertias, velocities
# v_i = sum_{j <= i} s_j qd_j via the constant ancestor matrix, bias terms, subtree sums)
# are a few calls for all bodies at once, with the cross-product operators [v x] and
# [v x*] of all bodies built by one product with a constant (6, 72) basis.  Arrays carry
# an optional leading batch axis: (N, ...) for one configuration, (B, N, ...) otherwise.

_CROSS_BASIS = np.zeros((6, 2, 6, 6))  # v @ basis = ([v x], [v x*]) flattened
for _k in range(6):
    _e = np.zeros(6)
    _e[_k] = 1.0
    _CROSS_BASIS[_k, 0, :3, :3] = _CROSS_BASIS[_k, 0, 3:, 3:] = _skew(_e[:3])
    _CROSS_BASIS[_k, 0, 3:, :3] = _skew(_e[3:])
    _CROSS_BASIS[_k, 1] = -_CROSS_BASIS[_k, 0].T
_CROSS_BASIS = _CROSS_BASIS.reshape(6, 72)


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


def _to_internal(cm, x, axis=-1):
    """User body order -> internal depth-first order along ``axis``."""
    return x if cm.identity else np.take(x, cm.perm, axis=axis)


def _to_user(cm, x, axis=-1):
    return x if cm.identity else np.take(x, cm.inv, axis=axis)


def _lmul(A, x):
    """A @ x for a constant (N, N) A and x (..., N, k): ``dot`` when x is 2-D (cheaper)."""
    return A.dot(x) if x.ndim == 2 else A @ x


def _stk_force_transforms(cm, q):
    """Force transforms Ad_{T_{0,i'}}^{-T} of every canonical frame to the base, (..., N, 6, 6)."""
    slides = cm.any_trans
    coef = np.empty((5 if slides else 3,) + q.shape)  # coefficient-major: contiguous rows
    coef[0] = 1.0
    theta = q * cm.sa
    np.cos(theta, out=coef[1])
    np.sin(theta, out=coef[2])
    if slides:
        d = q * cm.sl
        np.multiply(coef[1], d, out=coef[3])
        np.multiply(coef[2], d, out=coef[4])
    coef = coef.T if q.ndim == 1 else np.moveaxis(coef, 0, -1)
    F = (coef[..., None, :] @ cm.FCB).reshape(q.shape + (6, 6))  # parent' <- i', at q
    if q.ndim == 1:
        T = np.empty_like(F)
        Tl, Fl = list(T), list(F)
        for k, p in enumerate(cm.parent):
            if p < 0:
                Tl[k][...] = Fl[k]
            else:
                np.dot(Tl[p], Fl[k], out=Tl[k])
        return T
    for k, p in cm.chain_steps:
        F[:, k] = F[:, p] @ F[:, k]
    return F


def _stk_frames(cm, q):
    """Base-coordinate joint screws (..., N, 6), inertias (..., N, 6, 6), force transforms."""
    F0 = _stk_force_transforms(cm, q)
    P = F0 @ cm.Iu  # [F0 I | F0 u] with u = (0, 0, s_l, 0, 0, s_a)
    I0 = P[..., :6] @ np.swapaxes(F0, -1, -2)
    # s_i = Ad_{T_{0,i'}} S'_i = (R s_a e_z, [p] R s_a e_z + R s_l e_z); F0 u gives it halves swapped
    w = P[..., 6]
    s = np.concatenate((w[..., 3:], w[..., :3]), axis=-1)
    return s, I0, F0


def _stk_external(cm, f_ext, frame, F0):
    if f_ext is None:
        return None
    F = _to_internal(cm, f_ext, axis=-2)
    if frame == "world":
        return _reference_world_wrenches(cm, F)
    return (F0 @ (cm.GT @ F[..., None]))[..., 0]


def _reference_world_wrenches(cm, F):
    """World wrenches about the base origin -> about each root subtree's internal origin."""
    if not cm.shifted:
        return F
    F = np.array(F)
    F[..., :3] -= (cm.origin_skew @ F[..., 3:, None])[..., 0]
    return F


def _stk_motion(cm, s, qd, qdd_or_none, I0, g):
    """Net body wrenches I_i a_i + v_i x* I_i v_i in base coordinates.

    a_i = a_base + sum_{j <= i} (s_j qdd_j + (v_j x s_j) qd_j) with a_base = (0, -g); with
    ``qdd=None`` and ``g=None`` only the velocity-product acceleration.
    """
    v = _lmul(cm.anc, s * qd[..., None])
    ops = (v.dot(_CROSS_BASIS) if v.ndim == 2 else v @ _CROSS_BASIS).reshape(
        v.shape[:-1] + (2, 6, 6)
    )
    sdot = (ops[..., 0, :, :] @ s[..., None])[..., 0]  # ds_j/dt = v_j x s_j
    if qdd_or_none is None:
        acc = _lmul(cm.anc, sdot * qd[..., None])
    else:
        acc = _lmul(cm.anc, s * qdd_or_none[..., None] + sdot * qd[..., None])
    if g is not None:
        acc[..., 3:] -= g  # the base accelerating at -g stands in for gravity
    Y = np.empty(v.shape + (2,))
    Y[..., 0] = acc
    Y[..., 1] = v
    h = I0 @ Y
    return h[..., 0] + (ops[..., 1, :, :] @ h[..., 1:])[..., 0]


def _stk_rnea(cm, q, qd, qdd, g, f_ext=None, frame="body"):
    """RNEA, vectorized across bodies in base coordinates; (..., N) user-order arrays."""
    q, qd, qdd = _to_internal(cm, q), _to_internal(cm, qd), _to_internal(cm, qdd)
    s, I0, F0 = _stk_frames(cm, q)
    f = _stk_motion(cm, s, qd, qdd, I0, g)
    fe = _stk_external(cm, f_ext, frame, F0)
    if fe is not None:
        f -= fe
    F = _lmul(cm.anc_T, f)  # subtree sums
    return _to_user(cm, np.add.reduce(s * F, axis=-1))


def _stk_crba(cm, q):
    """CRBA in base coordinates: M_ij = s_i . I^C_j s_j for i an ancestor of (or equal to) j."""
    q = _to_internal(cm, q)
    s, I0, _ = _stk_frames(cm, q)
    IC = _lmul(cm.anc_T, I0.reshape(I0.shape[:-2] + (36,))).reshape(I0.shape)
    Fw = (IC @ s[..., None])[..., 0]
    full = s @ np.swapaxes(Fw, -1, -2)
    M = full * cm.anc_T
    M += np.swapaxes(full * cm.anc_T_strict, -1, -2)
    if not cm.identity:
        M = np.take(np.take(M, cm.inv, axis=-1), cm.inv, axis=-2)
    return M


def _stk_aba(cm, q, qd, tau, g, f_ext=None, frame="body"):
    """ABA in base coordinates on augmented 7x7 articulated inertias [[I^A, p^A], [p^A^T, *]].

    With c_i the velocity-product acceleration of body i (at qdd = 0) folded into the bias
    b_i = I_i c_i + v_i x* I_i v_i - f_i, the accelerations without it obey
    a_i = a_parent + s_i qdd_i, so no transforms or c terms appear in the recursion:
    r = A_i (s_i, 0) - tau_i e_7 = (U_i, -u_i), D_i = s_i . U_i, A_parent += A_i - r r^T / D_i,
    then qdd_i = -(r . (a_parent, 1)) / D_i outward from a_base = (0, -g).
    """
    q, qd, tau = _to_internal(cm, q), _to_internal(cm, qd), _to_internal(cm, tau)
    s, I0, F0 = _stk_frames(cm, q)
    b = _stk_motion(cm, s, qd, None, I0, None)
    fe = _stk_external(cm, f_ext, frame, F0)
    if fe is not None:
        b -= fe
    n = cm.n
    A = np.zeros(I0.shape[:-2] + (7, 7))
    A[..., :6, :6] = I0
    A[..., :6, 6] = b
    A[..., 6, :6] = b
    s7 = np.zeros(s.shape[:-1] + (7,))
    s7[..., :6] = s
    base = np.zeros(7)
    base[3:6] = -g
    base[6] = 1.0
    if q.ndim == 1:  # one configuration: lists of 2-D views, ndarray.dot and Python scalars
        Al, sc, sr = list(A), list(s7[..., None]), list(s7[:, None, :])
        rD = [None] * n
        taus = tau.tolist()
        for k in range(n - 1, -1, -1):
            Ak = Al[k]
            r = Ak.dot(sc[k])  # (7, 1)
            r[6, 0] -= taus[k]
            rk = rD[k] = r * (1.0 / sr[k].dot(r)[0, 0])
            p = cm.parent[k]
            if p >= 0:
                Ap = Al[p]
                Ap += Ak
                Ap -= r.dot(rk.T)
        a = [None] * (n + 1)  # a[0] is the base, a[k + 1] body k
        a[0] = base
        qdd = []
        for k in range(n):
            ap = a[cm.parent[k] + 1]
            qk = -float(rD[k][:, 0].dot(ap))
            qdd.append(qk)
            a[k + 1] = ap + s7[k] * qk
        return _to_user(cm, np.array(qdd))
    B = q.shape[0]
    s7 = s7[..., None]
    s7T = np.swapaxes(s7, -1, -2)
    R = np.empty((B, n, 7, 1))  # r_i / D_i
    for k in range(n - 1, -1, -1):
        Ak = A[:, k]
        r = Ak @ s7[:, k]
        r[:, 6, 0] -= tau[:, k]
        rD = R[:, k]
        np.divide(r, s7T[:, k] @ r, out=rD)
        p = cm.parent[k]
        if p >= 0:
            Ap = A[:, p]
            Ap += Ak
            Ap -= r @ np.swapaxes(rD, -1, -2)
    RT = np.swapaxes(R, -1, -2)
    a = np.empty((B, n + 1, 7, 1))
    a[:, 0, :, 0] = base
    qdd = np.empty((B, n))
    for k in range(n):
        ap = a[:, cm.parent[k] + 1]
        qk = RT[:, k] @ ap
        np.negative(qk[:, 0, 0], out=qdd[:, k])
        np.subtract(ap, s7[:, k] * qk, out=a[:, k + 1])
    return _to_user(cm, qdd)


# ---------------------------------------------------------------------------
# Fast path 2: many configurations per call, structure of arrays (batch last)
# ---------------------------------------------------------------------------
# Every per-body quantity is an array with the batch as its last, contiguous axis:
# twists and wrenches (6, B), symmetric inertias (21, B) in the order of _SYM_PAIRS.
# X_i = Ad_Z(q)^-1 X_C,i: the constant X_C,i is one gemm, the joint motion Z(q)
# (rotation by theta = s_a q about z, slide d = s_l q along z) is elementwise on rows.
#
# Work arrays come from a per-model scratch arena (_Scratch) that is reused from one
# call to the next.  Measured here: fresh multi-megabyte temporaries are returned to
# the operating system between calls and page-faulted back in on every call, which
# doubled the run time of these functions; reusing them removes that cost.  The arena
# holds no results (every call fully overwrites what it reads), is checked out for the
# duration of one call (so concurrent calls on one model each get their own), and is
# kept only up to _SCRATCH_LIMIT bytes.

#: Largest scratch arena (bytes) kept with a model between calls.
_SCRATCH_LIMIT = 256 * 2**20


class _Scratch:
    """Named work arrays of one large-batch call, reused across calls."""

    __slots__ = ("arrays",)

    def __init__(self):
        self.arrays = {}

    def get(self, key, shape):
        a = self.arrays.get(key)
        if a is None or a.shape != shape:
            a = self.arrays[key] = np.empty(shape)
        return a

    def nbytes(self):
        return sum(a.nbytes for a in self.arrays.values())


def _checkout(cm):
    try:
        return cm.scratch_pool.pop()
    except IndexError:
        return _Scratch()


def _checkin(cm, ws):
    if not cm.scratch_pool and ws.nbytes() <= _SCRATCH_LIMIT:
        cm.scratch_pool.append(ws)


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
    j = ws.arrays.get("sc_j")
    if j is None or j.shape != x.shape:
        j = ws.arrays["sc_j"] = np.empty(x.shape, dtype=np.intp)
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


def _soa_rows_to_user(cm, x):
    """(N, B) internal order -> (B, N) user order (a transposed view of a new array)."""
    return (x if cm.identity else x[cm.inv]).T


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

    In the order of _SYM_PAIRS: rows 0-2 are invariant; rows 3-6 and 7-10 are the x and y
    components of 2-vectors that rotate by the angle; each 2x2 block [[a, b], [e, f]]
    (rows 11-13, 17-19, 14-16 and 20) keeps its trace and antisymmetric part while its
    traceless symmetric part (delta, sigma) = ((a - f)/2, (b + e)/2) rotates by twice the angle.
    """
    B = I.shape[-1]
    t4, u4 = ws.get("r21_t4", (4, B)), ws.get("r21_u4", (4, B))
    tr, delta, dn, u3 = (ws.get(name, (3, B)) for name in ("r21_tr", "r21_de", "r21_dn", "r21_u3"))
    w = ws.get("r21_w", (B,))
    X, Y = I[3:7], I[7:11]
    np.multiply(X, c, out=t4)
    np.multiply(Y, s, out=u4)
    t4 -= u4
    np.multiply(X, s, out=u4)
    Y *= c
    Y += u4
    X[...] = t4
    a, f, b, e = I[11:14], I[14:17], I[17:20], I[20]
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
            Y[:, 1] = (cm.XC[k] @ a_base)[:, None]
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


def _soa_rnea(cm, q, qd, qdd, g, f_ext=None, frame="body"):
    """RNEA on (B, N) user-order arrays, structure-of-arrays layout."""
    B, n = q.shape
    ws = _checkout(cm)
    try:
        qs, qds, qdds = _soa_inputs(cm, ws, (q, qd, qdd), ("q", "qd", "qdd"))
        trig = _soa_trig(cm, qs, ws)
        a_base = np.concatenate([np.zeros(3), -g])
        _, F = _soa_forward(cm, trig, qds, qdds, a_base, ws)
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
    return _soa_rows_to_user(cm, tau)


def _soa_crba(cm, q):
    """CRBA on (B, N) user-order configurations, in base coordinates; returns (B, N, N).

    M_ij = s_i . (I^C_j s_j) for i an ancestor of (or equal to) j, all in base
    coordinates: body poses by the outward recursion T_{0,k'} = T_{0,p'} C_k Z(q_k);
    world screws s_k; each body's mass m, first moment h = m c and second moments
    Sigma = R Sigma'_C R^T + m c c^T about the base origin (subtree sums of these give the
    composite inertias); then F_j = I^C_j s_j and one product per matrix entry.  This
    costs about 11 row operations per entry of M, against about 60 for carrying body-frame
    force columns through every ancestor.
    """
    B, n = q.shape
    ws = _checkout(cm)
    try:
        qs = _soa_columns(cm, q, ws.get("q", (n, B)))
        c, s, d, _, _ = _soa_trig(cm, qs, ws)
        Rw = ws.get("cr_R", (n, 3, 3, B))  # Rw[k, col]: column col of R_{0,k'} (3 rows, B)
        pw = ws.get("cr_p", (n, 3, B))
        S = ws.get("cr_S", (6, n, B))  # base-coordinate joint screws
        Y = ws.get("cr_Y", (9, n, B))  # second moments xx yy zz xy xz yz, first moment h
        F = ws.get("cr_F", (6, n, B))
        Q = ws.get("cr_Q", (3, 3, B))
        W = ws.get("cr_W", (3, 3, B))
        t, u = ws.get("cr_t", (3, B)), ws.get("cr_u", (3, B))
        t1 = ws.get("t1", (B,))
        for k in range(n):
            p = cm.parent[k]
            Rk, pk = Rw[k], pw[k]
            if p < 0:
                Q[...] = cm.RCT[k][:, :, None]
                pk[...] = cm.pC[k][:, None]
            else:
                Rp = Rw[p].reshape(3, 3 * B)
                np.matmul(cm.RCT[k], Rp, out=Q.reshape(3, 3 * B))  # Q = R_{0,p'} R_C
                np.matmul(cm.pC[k], Rp, out=t.reshape(3 * B))
                np.add(pw[p], t, out=pk)
            if cm.rot[k]:  # R_{0,k'} = Q R_z(theta)
                ck, sk = c[k], s[k]
                np.multiply(Q[0], ck, out=Rk[0])
                np.multiply(Q[1], sk, out=t)
                Rk[0] += t
                np.multiply(Q[1], ck, out=Rk[1])
                np.multiply(Q[0], sk, out=t)
                Rk[1] -= t
            else:
                Rk[0:2] = Q[0:2]
            z = Rk[2]
            z[...] = Q[2]
            if cm.trans[k]:
                np.multiply(z, d[k], out=t)
                pk += t
            # screw s = (s_a z, s_a p x z + s_l z)
            sa, sl = cm.sa_list[k], cm.sl_list[k]
            sw, sv = S[0:3, k], S[3:6, k]
            np.multiply(z, sa, out=sw)
            for i, (a, b) in enumerate(((1, 2), (2, 0), (0, 1))):
                np.multiply(pk[a], z[b], out=sv[i])
                np.multiply(pk[b], z[a], out=t1)
                sv[i] -= t1
            sv *= sa
            if sl:
                np.multiply(z, sl, out=t)
                sv += t
            # mass terms: c0 = R c' + p, h = m c0, Sigma = sum_j w_j w_j^T + m c0 c0^T
            Rflat = Rk.reshape(3, 3 * B)
            np.matmul(cm.com[k], Rflat, out=u.reshape(3 * B))
            u += pk
            m = cm.mass_list[k]
            np.multiply(u, m, out=Y[6:9, k])
            np.matmul(cm.Gk[k], Rflat, out=W.reshape(3, 3 * B))
            for e, (a, b) in enumerate(((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))):
                ye = Y[e, k]
                np.multiply(u[a], u[b], out=ye)
                ye *= m
                for j in range(3):
                    np.multiply(W[j, a], W[j, b], out=t1)
                    ye += t1
        for k in range(n - 1, 0, -1):  # subtree sums
            p = cm.parent[k]
            if p >= 0:
                Y[:, p] += Y[:, k]
        # F_k = I^C_k s_k = (tr(Sigma) s_w - Sigma s_w + h x s_v, m s_v - h x s_w)
        tr = ws.get("cr_tr", (n, B))
        np.add(Y[0], Y[1], out=tr)
        tr += Y[2]
        Fw, Fv = F[0:3], F[3:6]
        sw, sv = S[0:3], S[3:6]
        h = Y[6:9]
        tmp = ws.get("cr_tmp", (n, B))
        sym = ((0, 3, 4), (3, 1, 5), (4, 5, 2))  # Sigma rows in Y indices
        for a in range(3):
            fa = Fw[a]
            np.multiply(tr, sw[a], out=fa)
            for b in range(3):
                np.multiply(Y[sym[a][b]], sw[b], out=tmp)
                fa -= tmp
        for i, (a, b) in enumerate(((1, 2), (2, 0), (0, 1))):
            np.multiply(h[a], sv[b], out=tmp)
            Fw[i] += tmp
            np.multiply(h[b], sv[a], out=tmp)
            Fw[i] -= tmp
            np.multiply(sv[i], cm.subtree_mass[:, None], out=Fv[i])
            np.multiply(h[a], sw[b], out=tmp)
            Fv[i] -= tmp
            np.multiply(h[b], sw[a], out=tmp)
            Fv[i] += tmp
        M = np.empty((n, n, B))  # every entry is written once below (np.zeros costs more here)
        for k in range(n):
            e = cm.end[k]
            np.einsum("rb,rjb->jb", S[:, k], F[:, k:e], out=M[k, k:e])  # s_k . F_j, j in subtree(k)
            M[k + 1 : e, k] = M[k, k + 1 : e]
            if e < n:  # bodies after the subtree: no ancestry, no coupling
                M[k, e:] = 0.0
                M[e:, k] = 0.0
    finally:
        _checkin(cm, ws)
    if not cm.identity:
        M = M[cm.inv][:, cm.inv]
    return M.transpose(2, 0, 1)


def _soa_aba(cm, q, qd, tau, g, f_ext=None, frame="body"):
    """ABA on (B, N) user-order arrays, structure-of-arrays layout."""
    B, n = q.shape
    ws = _checkout(cm)
    try:
        qs, qds, taus = _soa_inputs(cm, ws, (q, qd, tau), ("q", "qd", "qdd"))
        trig = _soa_trig(cm, qs, ws, double=True)
        VA, P = _soa_forward(cm, trig, qds, None, np.zeros(6), ws)  # P: bias wrenches b_i
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
        a_base = np.concatenate([np.zeros(3), -g])
        qdd = np.empty((n, B))
        for k in range(n):
            p = cm.parent[k]
            a = A[k]
            if p < 0:
                a[...] = (cm.XC[k] @ a_base)[:, None]
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
    return _soa_rows_to_user(cm, qdd)


# ---------------------------------------------------------------------------
# Public dynamics
# ---------------------------------------------------------------------------


def _flat(x, batch, core=1):
    """Broadcast ``x`` to ``batch + core shape`` and flatten the batch: (B, ...), or (...) if B = 1."""
    tail = x.shape[x.ndim - core :]
    if x.shape[: x.ndim - core] != batch:
        x = np.broadcast_to(x, batch + tail)
    return x.reshape(tail if math.prod(batch) == 1 else (-1,) + tail)


def _path(batch, soa, stacked):
    """The large-batch (structure of arrays) or small-batch implementation."""
    return soa if math.prod(batch) >= _SOA_MIN_BATCH else stacked


def crba(model, q):
    r"""Joint-space mass matrix :math:`M(q)` by the composite-rigid-body algorithm.

    .. math:: M_{ij} = M_{ji} = S_i^T\,({}^{j}X_{i})^T\,\mathcal I^C_j S_j
              \quad (i \text{ an ancestor of, or equal to, } j),\qquad
              K = \tfrac12\dot q^T M(q)\dot q

    with :math:`{}^{j}X_{i} = X_j X_{\lambda(j)}\cdots` the motion transform from body
    :math:`i`'s coordinates to body :math:`j`'s; :math:`M_{ij} = 0` across branches.

    Same mathematics as :func:`joint_mass_matrix` on :func:`prepare`, organized for
    speed (see the module notes); batches of configurations are one call.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, N) ndarray
        Symmetric positive (semi)definite ``M`` (kg m^2, kg m or kg by joint types).
        For large batches the result may be a non-contiguous view.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., N) array.
    """
    _check_model(model)
    q = _check_configuration(model, q, "q")
    batch, n = q.shape[:-1], model.num_bodies
    cm = model._compiled
    q2 = _flat(q, batch)
    M = _path(batch, _soa_crba, _stk_crba)(cm, q2)
    return M.reshape(batch + (n, n))


def _dynamics_inputs(model, args, names, gravity, f_ext, f_ext_frame):
    _check_model(model)
    arrays = [_check_configuration(model, a, name) for a, name in zip(args, names)]
    g = _check_gravity(gravity)
    F = _check_f_ext(model, f_ext, f_ext_frame)
    batch = _batch_shape(arrays, F)
    flat = [_flat(a, batch) for a in arrays]
    F = None if F is None else _flat(F, batch, core=2)
    return batch, flat, g, F


def rnea(model, q, qd, qdd, gravity=DEFAULT_GRAVITY, f_ext=None, f_ext_frame="body"):
    r"""Inverse dynamics by the recursive Newton–Euler algorithm: joint forces for a motion.

    Outward, with the base accelerating at :math:`-g` (so gravity needs no separate term):

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i,\qquad
              \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_i\ddot q_i + \mathcal V_i\times S_i\dot q_i,

    .. math:: \mathcal F_i = \mathcal I_i\mathcal A_i
              + \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i ;

    inward: :math:`\tau_i = S_i^T\mathcal F_i`,
    :math:`\mathcal F_{\lambda(i)} \mathrel{+}= X_i^T\mathcal F_i`.  Equivalently
    :math:`\tau = M(q)\ddot q + C(q,\dot q)\dot q + g(q) - \sum_i J_i^T\mathcal F^{ext}_i`
    with the body Jacobians :math:`J_i` of :func:`body_jacobians`.

    Parameters
    ----------
    model : Tree
    q, qd, qdd : (..., N) array_like
        Joint positions (rad or m), rates (rad/s or m/s), accelerations (rad/s^2 or
        m/s^2).  Leading axes broadcast against each other.
    gravity : (3,) array_like
        Gravitational acceleration in base coordinates, m/s^2.
    f_ext : (..., N, 6) array_like, optional
        External wrench on each body, moment-first (N m, N).
    f_ext_frame : {"body", "world"}
        ``"body"``: ``f_ext[..., i, :]`` in body ``i`` coordinates about body ``i``'s
        origin; ``"world"``: in base coordinates about the base origin.

    Returns
    -------
    (..., N) ndarray
        Joint forces ``tau`` (N m for revolute/helical, N for prismatic joints).

    Raises
    ------
    ValueError
        Naming the argument, for a wrong model type, wrong shapes or lengths,
        non-broadcasting batches, non-finite values, or an unknown ``f_ext_frame``.
    """
    batch, (q, qd, qdd), g, F = _dynamics_inputs(
        model, (q, qd, qdd), ("q", "qd", "qdd"), gravity, f_ext, f_ext_frame
    )
    path = _path(batch, _soa_rnea, _stk_rnea)
    return path(model._compiled, q, qd, qdd, g, F, f_ext_frame).reshape(batch + (model.num_bodies,))


def bias_forces(model, q, qd, gravity=DEFAULT_GRAVITY, f_ext=None, f_ext_frame="body"):
    r"""Joint forces at zero joint acceleration, the bias of the equations of motion.

    .. math:: b(q,\dot q) = C(q,\dot q)\dot q + g(q) - \sum_i J_i^T\mathcal F^{ext}_i

    Equal to ``rnea(model, q, qd, 0, gravity, f_ext, f_ext_frame)``, so that
    :math:`M\ddot q + b = \tau`.

    Parameters
    ----------
    model : Tree
    q, qd : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).
    gravity : (3,) array_like
        Gravity in base coordinates, m/s^2.
    f_ext : (..., N, 6) array_like, optional
        External wrenches, see :func:`rnea`.
    f_ext_frame : {"body", "world"}
        Frame of ``f_ext``, see :func:`rnea`.

    Returns
    -------
    (..., N) ndarray
        N m or N per joint.

    Raises
    ------
    ValueError
        As :func:`rnea`.
    """
    qd_arr = _finite_array(qd, "qd")
    return rnea(model, q, qd_arr, np.zeros(qd_arr.shape), gravity, f_ext, f_ext_frame)


def aba(model, q, qd, tau, gravity=DEFAULT_GRAVITY, f_ext=None, f_ext_frame="body"):
    r"""Forward dynamics by the articulated-body algorithm, O(N): accelerations for given forces.

    Solves :math:`M(q)\ddot q = \tau - b(q,\dot q)` without forming :math:`M`.  Inward,
    starting from :math:`\mathcal I^A_i = \mathcal I_i` and the bias wrenches :math:`p^A_i`,
    with :math:`U_i = \mathcal I^A_i S_i`, :math:`D_i = S_i^T U_i`,
    :math:`u_i = \tau_i - S_i^T p^A_i`:

    .. math:: \mathcal I^A_{\lambda(i)} \mathrel{+}=
              X_i^T\Big(\mathcal I^A_i - \frac{U_iU_i^T}{D_i}\Big)X_i,\qquad
              p^A_{\lambda(i)} \mathrel{+}= X_i^T\Big(p^A_i + U_i\frac{u_i}{D_i}\Big);

    outward, from the base accelerating at :math:`-g`:

    .. math:: \ddot q_i = \big(u_i - U_i^T X_i\mathcal A_{\lambda(i)}\big)/D_i,\qquad
              \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_i\ddot q_i .

    Here each body's velocity-product acceleration :math:`c_i` (its acceleration when all
    :math:`\ddot q = 0` and :math:`g = 0`) is folded into the bias wrench,
    :math:`p^A_i = \mathcal I_i c_i + \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i`,
    and :math:`\mathcal A_i` excludes it; this is algebraically the textbook algorithm
    (whose :math:`\mathcal I^a_i c_i` terms it absorbs).

    Parameters
    ----------
    model : Tree
    q, qd : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).
    tau : (..., N) array_like
        Joint forces (N m or N).
    gravity : (3,) array_like
        Gravity in base coordinates, m/s^2.
    f_ext : (..., N, 6) array_like, optional
        External wrenches, see :func:`rnea`.
    f_ext_frame : {"body", "world"}
        Frame of ``f_ext``, see :func:`rnea`.

    Returns
    -------
    (..., N) ndarray
        Joint accelerations (rad/s^2 or m/s^2).

    Raises
    ------
    ValueError
        As :func:`rnea`.
    """
    batch, (q, qd, tau), g, F = _dynamics_inputs(
        model, (q, qd, tau), ("q", "qd", "tau"), gravity, f_ext, f_ext_frame
    )
    path = _path(batch, _soa_aba, _stk_aba)
    return path(model._compiled, q, qd, tau, g, F, f_ext_frame).reshape(batch + (model.num_bodies,))


def kinetic_energy(model, q, qd):
    r"""Kinetic energy of the tree, summed over bodies, in J.

    .. math:: K = \sum_i \tfrac12\mathcal V_i^T\mathcal I_i\mathcal V_i = \tfrac12\dot q^T M(q)\dot q

    Parameters
    ----------
    model : Tree
    q, qd : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).

    Returns
    -------
    ndarray or float
        Shape ``(...)``, J.

    Raises
    ------
    ValueError
        If an argument is malformed.
    """
    V = body_twists(model, q, qd)
    return 0.5 * np.einsum("...ki,kij,...kj->...", V, model.inertias, V)


def potential_energy(model, q, gravity=DEFAULT_GRAVITY):
    r"""Gravitational potential energy, zero at the base origin, in J.

    .. math:: U = -\sum_i m_i\, g^T c_{0,i}(q)

    with :math:`c_{0,i}` the centre of mass of body ``i`` in base coordinates, so that
    :math:`dU/dt = -\sum_i m_i g^T\dot c_{0,i}` and, for an unforced tree,
    :math:`d(K + U)/dt = \dot q^T\tau`.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like
        Joint positions (rad or m).
    gravity : (3,) array_like
        Gravity in base coordinates, m/s^2.

    Returns
    -------
    ndarray or float
        Shape ``(...)``, J.

    Raises
    ------
    ValueError
        If an argument is malformed.
    """
    T = forward_kinematics(model, q)
    g = _check_gravity(gravity)
    c0 = np.einsum("...kij,kj->...ki", T[..., :3, :3], model.centers_of_mass) + T[..., :3, 3]
    return -np.einsum("k,...ki,i->...", model.masses, c0, g)


def spatial_momentum(model, q, qd):
    r"""Total spatial momentum of the tree about the base origin, in base axes.

    .. math:: \mathcal P_0 = \sum_i \mathrm{Ad}_{T_{0,i}}^{-T}\,\mathcal I_i\mathcal V_i

    Moment-first: angular momentum about the base origin (kg m^2/s), then linear
    momentum (kg m/s).

    Parameters
    ----------
    model : Tree
    q, qd : (..., N) array_like
        Joint positions (rad or m) and rates (rad/s or m/s).

    Returns
    -------
    (..., 6) ndarray

    Raises
    ------
    ValueError
        If an argument is malformed.
    """
    V = body_twists(model, q, qd)
    T = forward_kinematics(model, q)
    T = np.broadcast_to(T, V.shape[:-1] + (4, 4))
    R, p = T[..., :3, :3], T[..., :3, 3]
    X = np.zeros(R.shape[:-2] + (6, 6))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., :3, 3:] = _skew(p) @ R
    return np.einsum("...kij,kjl,...kl->...i", X, model.inertias, V)
