"""Small trees mixing free-flyer, ball and screw joints, for the frame and closure tests.

A :class:`MixedSpec` describes a tree engine-neutrally: per body its parent, its joint kind
(``"free"``, ``"ball"``, ``"r"`` revolute, ``"p"`` prismatic, ``"h"`` helical; screw axes
pass through the body origin), its placement at the neutral configuration and its mass
properties.  :meth:`MixedSpec.tree` builds it in geomotion; :func:`pinocchio_mixed` builds
it in Pinocchio, and the converters below write out every convention difference once:

* Pinocchio stores quaternions scalar-last ``(x, y, z, w)``, geomotion scalar-first;
* a free flyer's velocity is linear-first in Pinocchio, ``(v, omega)``, angular-first here
  (both in the child's axes), so its six columns of a Jacobian are swapped in halves;
* Pinocchio twists are linear-first (``P_SWAP`` swaps the halves of a 6-vector).

Bodies are listed depth-first so that Pinocchio's joint ``i + 1`` is our body ``i`` and
the q and v slices line up joint by joint.
"""

from dataclasses import dataclass

import numpy as np
from strategies import quaternion_rotation
from trees import random_central_inertia, random_rotation, spatial_inertia

NQ = {"free": 7, "ball": 4, "r": 1, "p": 1, "h": 1}
NV = {"free": 6, "ball": 3, "r": 1, "p": 1, "h": 1}


@dataclass
class MixedSpec:
    parents: list
    kinds: list
    placements: np.ndarray  # (N, 4, 4)
    axes: np.ndarray  # (N, 3) unit screw axes (screw joints), body coordinates
    pitches: np.ndarray  # (N,) m/rad for helical joints
    masses: np.ndarray
    coms: np.ndarray
    inertias_com: np.ndarray

    @property
    def n(self):
        return len(self.parents)

    @property
    def nq(self):
        return sum(NQ[k] for k in self.kinds)

    @property
    def nv(self):
        return sum(NV[k] for k in self.kinds)

    def joints(self):
        from geomotion import tree

        out = []
        for kind, u, h in zip(self.kinds, self.axes, self.pitches):
            if kind == "free":
                out.append(tree.FREE_FLYER)
            elif kind == "ball":
                out.append(tree.SPHERICAL)
            elif kind == "r":
                out.append(np.concatenate([u, np.zeros(3)]))
            elif kind == "p":
                out.append(np.concatenate([np.zeros(3), u]))
            else:
                out.append(np.concatenate([u, h * u]))
        return out

    def inertias(self):
        return np.array(
            [spatial_inertia(m, c, I) for m, c, I in zip(self.masses, self.coms, self.inertias_com)]
        )

    def tree(self, **kwargs):
        from geomotion import tree

        kwargs.setdefault("gravity", tree.DEFAULT_GRAVITY)
        return tree.Tree(self.parents, self.joints(), self.placements, self.inertias(), **kwargs)

    def v_permutation(self):
        """Index array ``perm`` with ``v_pin = v_ours[perm]`` (a free flyer's halves swapped)."""
        perm, start = [], 0
        for kind in self.kinds:
            idx = list(range(start, start + NV[kind]))
            perm += idx[3:] + idx[:3] if kind == "free" else idx
            start += NV[kind]
        return np.array(perm)


def placement(rng, scale=0.4):
    T = np.eye(4)
    T[:3, :3] = random_rotation(rng)
    T[:3, 3] = rng.uniform(-scale, scale, 3)
    return T


def random_mixed_spec(rng, parents, kinds):
    n = len(parents)
    axes = rng.normal(size=(n, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    masses = rng.uniform(0.5, 2.5, n)
    return MixedSpec(
        parents=list(parents),
        kinds=list(kinds),
        placements=np.array([placement(rng) for _ in range(n)]),
        axes=axes,
        pitches=rng.uniform(-0.1, 0.1, n),
        masses=masses,
        coms=rng.uniform(-0.15, 0.15, (n, 3)),
        inertias_com=np.array([random_central_inertia(rng, m) for m in masses]),
    )


def random_frame(rng, scale=0.3):
    return placement(rng, scale)


def pinocchio_mixed(pin, spec):
    """The spec in Pinocchio; joint ``i + 1`` is body ``i`` (the spec must be depth-first)."""
    order = list(range(spec.n))
    model = pin.Model()
    for i in order:
        p = spec.parents[i]
        assert p < i
        kind, u = spec.kinds[i], spec.axes[i]
        if kind == "free":
            joint = pin.JointModelFreeFlyer()
        elif kind == "ball":
            joint = pin.JointModelSpherical()
        elif kind == "r":
            joint = pin.JointModelRevoluteUnaligned(u)
        elif kind == "p":
            joint = pin.JointModelPrismaticUnaligned(u)
        else:
            joint = pin.JointModelHelicalUnaligned(u, float(spec.pitches[i]))
        T = spec.placements[i]
        jid = model.addJoint(p + 1, joint, pin.SE3(T[:3, :3], T[:3, 3]), f"joint{i}")
        assert jid == i + 1
        model.appendBodyToJoint(
            jid,
            pin.Inertia(spec.masses[i], spec.coms[i], spec.inertias_com[i]),
            pin.SE3.Identity(),
        )
    # depth-first check: each joint's subtree is contiguous after it (pin.crba needs it)
    for i in range(spec.n):
        assert model.joints[i + 1].idx_v == sum(NV[k] for k in spec.kinds[:i])
    return model


def q_to_pin(spec, q):
    """Our configuration (quaternions w, x, y, z) -> Pinocchio's (x, y, z, w)."""
    q = np.array(q, dtype=float)
    out = q.copy()
    start = 0
    for kind in spec.kinds:
        if kind in ("free", "ball"):
            s = start + (3 if kind == "free" else 0)
            out[..., s : s + 3] = q[..., s + 1 : s + 4]
            out[..., s + 3] = q[..., s]
        start += NQ[kind]
    return out


def v_to_pin(spec, v):
    return np.asarray(v)[..., spec.v_permutation()]


def v_from_pin(spec, v_pin):
    out = np.empty_like(v_pin)
    out[..., spec.v_permutation()] = v_pin
    return out


def columns_from_pin(spec, J_pin):
    """A Pinocchio Jacobian's columns (its v order) -> ours."""
    out = np.empty_like(J_pin)
    out[..., spec.v_permutation()] = J_pin
    return out


def random_unit_quaternion(rng):
    g = rng.normal(size=4)
    return g / np.linalg.norm(g)


def rotation_of(quaternion):
    return quaternion_rotation(np.asarray(quaternion))
