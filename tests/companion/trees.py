"""Random rigid-body trees shared by the tree tests (geomotion, Pinocchio, MuJoCo).

A tree is described engine-neutrally by :class:`TreeSpec`: per body, the parent, the
placement (R, p) of its frame in the parent's at q = 0, the joint kind ('r' revolute,
'p' prismatic, 'h' helical), the joint axis direction and a point on the axis (body
coordinates), the pitch, and the mass properties.  Rotations come from normalized
quaternions, not from geomotion, so a bug in geomotion cannot hide in the test inputs.
"""

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from strategies import quaternion_rotation, realizable_bodies, rotations, vectors


def random_rotation(rng):
    return quaternion_rotation(rng.normal(size=4))


def skew(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def spatial_inertia(m, c, Ic):
    """About the frame origin, angular-first (written out here, independently of geomotion)."""
    C = skew(c)
    return np.block([[Ic + m * (C @ C.T), m * C], [m * C.T, m * np.eye(3)]])


@dataclass
class TreeSpec:
    parents: list
    rotations: np.ndarray  # (N, 3, 3) R_{parent,i} at q = 0
    offsets: np.ndarray  # (N, 3) p_{parent,i} at q = 0, m
    kinds: str
    axes: np.ndarray  # (N, 3) unit axis, body coordinates
    points: np.ndarray  # (N, 3) point on the axis, body coordinates (m)
    pitches: np.ndarray  # (N,) m/rad, helical only
    masses: np.ndarray
    coms: np.ndarray  # (N, 3) centre of mass, body coordinates
    inertias_com: np.ndarray  # (N, 3, 3) about the centre of mass, body axes

    @property
    def n(self):
        return len(self.parents)

    def subspaces(self):
        S = np.zeros((self.n, 6))
        for i, (kind, u, r, h) in enumerate(zip(self.kinds, self.axes, self.points, self.pitches)):
            if kind == "p":
                S[i, 3:] = u
            else:
                S[i, :3] = u
                S[i, 3:] = np.cross(r, u) + (h * u if kind == "h" else 0.0)
        return S

    def placements(self):
        T = np.zeros((self.n, 4, 4))
        T[:, :3, :3] = self.rotations
        T[:, :3, 3] = self.offsets
        T[:, 3, 3] = 1.0
        return T

    def spatial_inertias(self):
        return np.array(
            [
                spatial_inertia(m, c, Ic)
                for m, c, Ic in zip(self.masses, self.coms, self.inertias_com)
            ]
        )

    def tree(self, **kwargs):
        from geomotion import tree

        kwargs.setdefault("gravity", tree.DEFAULT_GRAVITY)  # random axes: no gravity warning
        return tree.Tree(
            self.parents, self.subspaces(), self.placements(), self.spatial_inertias(), **kwargs
        )

    def depth_first_order(self):
        children = [[] for _ in range(self.n)]
        roots = []
        for i, p in enumerate(self.parents):
            (roots if p < 0 else children[p]).append(i)
        order, stack = [], roots[::-1]
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(children[i][::-1])
        return order


def random_central_inertia(rng, mass):
    """Realizable central inertia from positive second moments along random principal axes."""
    s = rng.uniform(0.002, 0.03, 3)
    U = random_rotation(rng)
    Ic = mass * U @ np.diag([s[1] + s[2], s[0] + s[2], s[0] + s[1]]) @ U.T
    return 0.5 * (Ic + Ic.T)


def random_spec(rng, n, kinds="rph", branched=True, roots=1):
    """A random tree: rotated placements with offsets, non-parallel axes off the body origin."""
    parents = []
    for i in range(n):
        if i < roots:
            parents.append(-1)
        elif branched:
            parents.append(int(rng.integers(0, i)))
        else:
            parents.append(i - 1)
    kind = "".join(kinds[int(rng.integers(len(kinds)))] for _ in range(n))
    axes = rng.normal(size=(n, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    masses = rng.uniform(0.5, 2.5, n)
    return TreeSpec(
        parents=parents,
        rotations=np.array([random_rotation(rng) for _ in range(n)]),
        offsets=rng.uniform(-0.4, 0.4, (n, 3)),
        kinds=kind,
        axes=axes,
        points=rng.uniform(-0.2, 0.2, (n, 3)),
        pitches=rng.uniform(-0.1, 0.1, n),
        masses=masses,
        coms=rng.uniform(-0.15, 0.15, (n, 3)),
        inertias_com=np.array([random_central_inertia(rng, m) for m in masses]),
    )


def two_link_spec():
    """The chapter's two-link teaching mechanism (both joints about local z)."""
    return TreeSpec(
        parents=[-1, 0],
        rotations=np.array([np.eye(3), np.eye(3)]),
        offsets=np.array([[0.0, 0, 0], [0.6, 0, 0]]),
        kinds="rr",
        axes=np.array([[0.0, 0, 1], [0.0, 0, 1]]),
        points=np.zeros((2, 3)),
        pitches=np.zeros(2),
        masses=np.array([2.0, 1.0]),
        coms=np.array([[0.3, 0, 0], [0.25, 0, 0]]),
        inertias_com=np.array([np.diag([0.05, 0.05, 0.01]), np.diag([0.02, 0.02, 0.005])]),
    )


# ---------------------------------------------------------------------------
# Hypothesis strategies: generated trees and batches of states
# ---------------------------------------------------------------------------

#: Batch shapes of generated states: one unbatched configuration, small batches (the
#: small-batch fast path) and batches across the 96-configuration crossover (the
#: large-batch fast path).
batch_shapes = st.one_of(
    st.just(()),
    st.integers(1, 5).map(lambda b: (b,)),
    st.integers(90, 140).map(lambda b: (b,)),
)


@st.composite
def tree_specs(draw, max_bodies=6, kinds="rph"):
    """Hypothesis strategy for a TreeSpec: structure, joints, placements and bodies all drawn.

    Parents are any earlier body or the base (several roots, branches, not necessarily
    depth-first); joint kinds from ``kinds``; axes from random rotations (so also exactly
    along a frame axis); offsets up to 1 m, axis points up to 0.5 m from the body origin,
    helical pitches up to 0.2 m/rad; realizable bodies with positive definite central
    inertia (see :func:`strategies.realizable_bodies`).
    """
    n = draw(st.integers(1, max_bodies))
    parents = [draw(st.integers(-1, i - 1)) for i in range(n)]
    bodies = [draw(realizable_bodies()) for _ in range(n)]
    return TreeSpec(
        parents=parents,
        rotations=np.array([draw(rotations) for _ in range(n)]),
        offsets=np.array([draw(vectors(3)) / 10 for _ in range(n)]),
        kinds="".join(draw(st.sampled_from(kinds)) for _ in range(n)),
        axes=np.array([draw(rotations)[:, 2] for _ in range(n)]),
        points=np.array([draw(vectors(3)) / 20 for _ in range(n)]),
        pitches=np.array([draw(st.floats(-0.2, 0.2)) for _ in range(n)]),
        masses=np.array([m for m, _, _ in bodies]),
        coms=np.array([c for _, c, _ in bodies]),
        inertias_com=np.array([I for _, _, I in bodies]),
    )


def random_states(seed, n, batch, count=3):
    """``count`` arrays of shape ``batch + (n,)``: joint positions uniform in [-pi, pi], the rest normal."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, batch + (n,))
    return (q, *rng.normal(size=(count - 1,) + batch + (n,)))


def branch_ends(parents):
    """Two leaves on different branches: the last body and the deepest leaf not in its line."""

    def line(i):
        out = []
        while i >= 0:
            out.append(i)
            i = parents[i]
        return out

    leaves = [i for i in range(len(parents)) if i not in parents]
    a = leaves[-1]
    others = [i for i in leaves if not set(line(i)) >= set(line(a)) and i != a]
    return a, max(others, key=lambda i: len(line(i)))


# ---------------------------------------------------------------------------
# Trees with multi-degree-of-freedom joints ('s' ball, 'f' free flyer) and massless bodies
# ---------------------------------------------------------------------------

#: Joint kinds of :func:`random_joint_spec`: screw joints, then the ball and the free flyer.
JOINT_KINDS = "rphsf"


def joint_models(spec):
    """The joints of a spec with any kinds: 6-vector screws, ``tree.SPHERICAL``, ``tree.FREE_FLYER``."""
    from geomotion import tree

    S = np.zeros((spec.n, 6))
    for i, (kind, u, r, h) in enumerate(zip(spec.kinds, spec.axes, spec.points, spec.pitches)):
        if kind == "p":
            S[i, 3:] = u
        elif kind in "rh":
            S[i, :3] = u
            S[i, 3:] = np.cross(r, u) + (h * u if kind == "h" else 0.0)
    special = {"s": tree.SPHERICAL, "f": tree.FREE_FLYER}
    return [special.get(kind, S[i]) for i, kind in enumerate(spec.kinds)]


def joint_tree(spec, **kwargs):
    """A geomotion Tree of a spec whose kinds may include 's' and 'f' (massless bodies allowed)."""
    from geomotion import tree

    kwargs.setdefault("gravity", tree.DEFAULT_GRAVITY)
    return tree.Tree(
        spec.parents, joint_models(spec), spec.placements(), spec.spatial_inertias(), **kwargs
    )


def _massless_candidates(spec):
    """Bodies whose inertia can be removed with M staying positive definite (generically).

    A screw joint with at least one child, or a ball with two or more children, none of
    them on a free flyer (a free flyer after a massless body repeats its freedoms).
    """
    children = [[c for c, p in enumerate(spec.parents) if p == i] for i in range(spec.n)]
    return [
        i
        for i in range(spec.n)
        if children[i]
        and all(spec.kinds[c] != "f" for c in children[i])
        and (spec.kinds[i] in "rph" or (spec.kinds[i] == "s" and len(children[i]) >= 2))
    ]


def random_joint_spec(rng, n, kinds="rphs", *, root="f", roots=1, massless=1):
    """A random branched tree mixing screw, ball and free-flyer joints, some bodies massless.

    ``root`` is the kind of the root joints (``"f"``: a floating base; ``None``: drawn from
    ``kinds`` like the others).  Ball and free-flyer joints sit at their body's origin
    (``points`` zero).  Up to ``massless`` intermediate bodies (see
    :func:`_massless_candidates`) get zero mass and zero inertia.
    """
    spec = random_spec(rng, n, "r", branched=True, roots=roots)
    chosen = [
        root if (i < roots and root is not None) else kinds[int(rng.integers(len(kinds)))]
        for i in range(n)
    ]
    spec.kinds = "".join(chosen)
    for i, kind in enumerate(spec.kinds):
        if kind in "sf":
            spec.points[i] = 0.0
    candidates = _massless_candidates(spec)
    for i in rng.permutation(candidates)[:massless]:
        spec.masses[i] = 0.0
        spec.coms[i] = 0.0
        spec.inertias_com[i] = 0.0
    return spec


@st.composite
def joint_tree_specs(draw, max_bodies=7, kinds="rphs"):
    """Hypothesis strategy for :func:`random_joint_spec` trees (floating or fixed base)."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(2, max_bodies))
    root = draw(st.sampled_from(["f", "s", None]))
    massless = draw(st.integers(0, 2))
    return random_joint_spec(np.random.default_rng(seed), n, kinds, root=root, massless=massless)
