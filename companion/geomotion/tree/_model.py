r"""The tree model: :class:`Tree`, its validation, and the default gravity.

A tree of ``N`` rigid bodies, one joint model per body (:mod:`geomotion.tree._joints`).
``parents[i] < i`` (``-1`` is the fixed base).  Everything here checks input at the
boundary.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import _validate
from ..inertia import is_physically_realizable, mass_properties
from . import _run
from ._joints import ScrewJoint, _unit_quaternions, as_joint

#: Default gravity of a :class:`Tree`, in base coordinates (z up), m/s^2.
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)


def _joint_screw(values):
    screw = np.array(values, dtype=float)
    screw.flags.writeable = False
    return screw


#: Joint screw (angular-first) of a revolute joint about the body's own x axis through its origin.
REVOLUTE_X = _joint_screw([1, 0, 0, 0, 0, 0])
#: Joint screw of a revolute joint about the body's own y axis through its origin.
REVOLUTE_Y = _joint_screw([0, 1, 0, 0, 0, 0])
#: Joint screw of a revolute joint about the body's own z axis through its origin.
REVOLUTE_Z = _joint_screw([0, 0, 1, 0, 0, 0])
#: Joint screw of a prismatic joint along the body's own x axis (q in m).
PRISMATIC_X = _joint_screw([0, 0, 0, 1, 0, 0])
#: Joint screw of a prismatic joint along the body's own y axis (q in m).
PRISMATIC_Y = _joint_screw([0, 0, 0, 0, 1, 0])
#: Joint screw of a prismatic joint along the body's own z axis (q in m).
PRISMATIC_Z = _joint_screw([0, 0, 0, 0, 0, 1])

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


def _check_inertia_structure(I, name, allow_singular, massless):
    """Decode (N, 6, 6) spatial inertias; return masses, centres of mass, central inertias.

    The structure checks and the decoding are :func:`geomotion.inertia.mass_properties`'s
    (one decoder, tolerances on each body's own scale), so the tree and the public
    functions cannot disagree; each decoded central inertia must then pass
    :func:`geomotion.inertia.is_physically_realizable` and, unless singular bodies are
    allowed, be positive definite.  Massless bodies (``massless[i]``: an all-zero inertia)
    are skipped and get mass 0, centre of mass 0 and central inertia 0.
    """
    # A massless body is decoded as a unit placeholder (so that error messages keep the
    # tree's body indices), then zeroed.
    placeholder = np.where(massless[:, None, None], np.eye(6), I)
    try:
        decoded = mass_properties(placeholder)
    except (TypeError, ValueError) as error:  # name the tree's argument, not mass_properties's
        message = str(error)
        if message.startswith("I: "):
            raise type(error)(f"{name}: {message[3:]}") from None
        raise
    keep = ~massless
    m, com = decoded.mass * keep, decoded.com * keep[:, None]
    inertia_com = decoded.inertia_com * keep[:, None, None]
    unrealizable = ~is_physically_realizable(inertia_com) & ~massless
    if np.any(unrealizable):
        i = int(np.argmax(unrealizable))
        raise ValueError(
            f"{name}: expected a physically realizable body {i} (central principal moments "
            f"obeying the triangle inequalities), got moments "
            f"{np.linalg.eigvalsh(inertia_com[i]).tolist()}"
        )
    if not allow_singular:
        eig = np.linalg.eigvalsh(inertia_com)
        singular = ~massless & (
            eig[:, 0] <= _STRUCTURE_RTOL * np.maximum(eig[:, -1], np.finfo(float).tiny)
        )
        if np.any(singular):
            i = int(np.argmax(singular))
            raise ValueError(
                f"{name}: expected a positive definite central inertia for body {i}, got "
                f"principal moments {eig[i].tolist()} (pass allow_singular_inertias=True for "
                f"ideal point masses or thin rods)"
            )
    return m, com, inertia_com


class GravityWarning(UserWarning):
    """The default gravity does no work on a tree: probably a planar model in the wrong plane.

    Attributes
    ----------
    args : tuple
        ``(message,)``: the message, which says what was found and what to do.
    """


#: Gravity torques below this fraction of (total mass) x |g| x (model size) count as zero.
_GRAVITY_WORK_RTOL = 1e-9


def _warn_if_gravity_does_no_work(model, q):
    """Warn when the default gravity exerts no joint torque at any of the sample configurations.

    The gravity torques are :math:`\nabla V(q)`, an analytic function of ``q``: zero at
    ``q = 0`` and at three random configurations means (up to rounding) that gravity
    does no work on the tree, as for a mechanism in the x-y plane with z joints under
    the default (0, 0, -9.81).  Only called when the user left ``gravity`` unset.
    """
    zero = np.zeros(q.shape[:-1] + (model.nv,))
    torques = _run.run_rnea(model, q, zero, zero, model.gravity)
    size = (
        np.abs(model.placements[:, :3, 3]).sum()
        + np.linalg.norm(model.centers_of_mass, axis=1).sum()
    )
    scale = model.masses.sum() * np.linalg.norm(model.gravity) * max(size, np.finfo(float).tiny)
    if np.abs(torques).max() <= _GRAVITY_WORK_RTOL * scale:
        warnings.warn(
            "gravity: the default (0, 0, -9.81) m/s^2 does no work on this tree (its joint "
            "torques are zero at every configuration tried), as happens when every joint "
            "axis is parallel to it, e.g. a mechanism drawn in the x-y plane with z joints. "
            "If the mechanism moves in a vertical plane, give gravity in that plane, e.g. "
            "Tree(..., gravity=(0, -9.81, 0)); if it really moves horizontally, pass "
            "gravity=(0, 0, -9.81) explicitly to say so and silence this warning.",
            GravityWarning,
            stacklevel=4,
        )


def _check_mass_matrix_definite(model, q):
    r"""Refuse a tree in which some joint moves no inertia (along some freedom) at any q.

    A massless body with nothing beyond it, a point mass on a joint axis, or a thin rod
    spinning about its length has no inertia along that joint's freedom, so ``M`` is
    singular for every configuration.  :math:`\det M = \prod_i\det D_i` with the ABA's
    joint pivots :math:`D_i = S_i^T\mathcal I^A_iS_i` is analytic in ``q``: singular at
    each of the sample configurations ``q`` (the neutral one and random ones) means
    singular everywhere (up to rounding).  The ABA kernel finds the pivots, one
    configuration at a time (it stops a batch at its first singular configuration);
    the joint named is the one it finds at the first configuration.
    Configuration-dependent singularities are caught where ``M`` is inverted
    (:func:`geomotion.tree.aba`).
    """
    found = _run.singular_joints(model, q)
    if np.any(found < 0):
        return
    i = int(found[0])
    kind = model.joints[i].kind
    along = (
        "about its own axis"
        if model.joints[i].nv == 1
        else f"along one of its freedoms (a {kind} joint)"
    )
    raise ValueError(
        f"inertias: joint {i} moves no inertia {along} at any configuration (a massless "
        f"body, a point mass on the axis, or a thin rod spinning about its length, with "
        f"nothing beyond it), so the mass matrix would be singular for every q: give "
        f"that body inertia, or remove the joint"
    )


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


def _check_configuration(model, value, name):
    """A (..., nq) configuration with unit quaternions (see :mod:`geomotion.tree._joints`)."""
    array = _validate.real_array(value, name)
    n = model.nq
    if array.ndim == 0 or array.shape[-1] != n:
        raise ValueError(
            f"{name}: expected shape (..., {n}) (the model's nq configuration coordinates), got "
            f"shape {array.shape}"
        )
    columns, joints = model._quaternion_columns
    if joints.size:  # every unit quaternion checked in one pass
        _unit_quaternions(array[..., columns], name, joints=joints)
    return array


def _check_tangent(model, value, name):
    """A (..., nv) velocity, acceleration or force (one entry per velocity coordinate)."""
    array = _validate.real_array(value, name)
    n = model.nv
    if array.ndim == 0 or array.shape[-1] != n:
        raise ValueError(
            f"{name}: expected shape (..., {n}) (the model's nv velocity coordinates), got "
            f"shape {array.shape}"
        )
    return array


def _check_gravity(model, gravity):
    """The gravity of one call: the model's (``gravity=None``) or the given (..., 3) array."""
    if gravity is None:
        return model.gravity
    g = _validate.real_array(gravity, "gravity")
    if g.ndim == 0 or g.shape[-1] != 3:
        raise ValueError(
            f"gravity: expected shape (3,) or (..., 3) (m/s^2 in base coordinates), got shape {g.shape}"
        )
    return g


def _check_f_ext(model, f_ext, frame):
    if frame not in ("body", "world"):
        raise ValueError(f"f_ext_frame: expected 'body' or 'world', got {frame!r}")
    if f_ext is None:
        return None
    F = _validate.real_array(f_ext, "f_ext")
    n = model.num_bodies
    if F.ndim < 2 or F.shape[-2:] != (n, 6):
        raise ValueError(
            f"f_ext: expected shape (..., {n}, 6) (one wrench per body), got shape {F.shape}"
        )
    return F


def _batch_shape(arrays, names, *, wrench=None, gravity=None):
    """Broadcast leading (batch) shape of (..., nq) or (..., nv) arrays, a (..., N, 6) wrench and a (..., 3)
    gravity (each None when the call was not given one).

    ``names`` are the call's own names of ``arrays`` (``("q", "v", "a")`` for rnea); the
    ValueError raised when the shapes do not broadcast opens with them, followed by
    ``f_ext`` and ``gravity`` when given.
    """
    shapes = [a.shape[:-1] for a in arrays]
    names = list(names)
    if wrench is not None:
        shapes.append(wrench.shape[:-2])
        names.append("f_ext")
    if gravity is not None:
        shapes.append(gravity.shape[:-1])
        names.append("gravity")
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
            f"{', '.join(names)}: expected leading (batch) shapes that broadcast, got {shapes}"
        ) from error


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Tree:
    r"""A tree of rigid bodies, one joint model per body: screw, spherical or free-flyer joints.

    .. math:: T_{\lambda(i),i}(q) = T^0_{\lambda(i),i}\,T_{J,i}(q_i),\qquad
              \mathcal V_i = X_i(q)\,\mathcal V_{\lambda(i)} + S_i v_i,\quad
              X_i = \mathrm{Ad}_{T_{\lambda(i),i}}^{-1}

    Joint ``i`` owns ``joint_nq[i]`` entries of ``q``, from ``q_start[i]``, and
    ``joint_nv[i]`` entries of ``v`` (and of ``a`` and ``tau``), from ``v_start[i]``, in
    body order (see :mod:`geomotion.tree._joints`).  With only screw joints ``nq = nv = N``
    and ``v = dq/dt``; a ball or free-flyer joint stores a unit quaternion, so
    ``nq > nv`` and configurations advance with :func:`integrate`.  A root with a
    free-flyer joint is a floating base.

    Parameters
    ----------
    parents : (N,) sequence of int
        ``parents[i]`` is the parent body of body ``i``; ``-1`` for the fixed base (the
        ground).  Parents come before children: ``-1 <= parents[i] < i``.
    joints : sequence of N joint models or (6,) screws
        The joint of body ``i``: a :class:`~geomotion.tree.Joint`
        (``tree.SPHERICAL``, ``tree.FREE_FLYER``, ``tree.ScrewJoint(S)``) or a constant
        joint screw ``S_i = (omega, v)`` in body ``i`` coordinates (angular-first,
        nonzero), wrapped in a :class:`~geomotion.tree.ScrewJoint`: ``omega != 0,
        omega.v = 0`` revolute (q in rad), ``omega.v != 0`` helical, ``omega = 0``
        prismatic (q in m).  An (N, 6) array of screws works too.
    placements : (N, 4, 4) array_like
        ``T^0_{parent,i}``: the joint frame of body ``i`` in its parent's coordinates (the
        base frame for roots), i.e. body ``i``'s pose at the neutral configuration;
        translations in m.
    inertias : (N, 6, 6) array_like
        Spatial inertia of body ``i`` about its origin in its axes
        (:func:`geomotion.inertia.spatial_inertia`): symmetric, lower-right block
        ``m I3`` with ``m > 0`` kg, coupling blocks ``m[c]`` and ``-m[c]``, physically
        realizable central inertia; or all zeros, for a massless body (an intermediate
        frame), allowed wherever the mass matrix stays positive definite.
    allow_singular_inertias : bool, optional, keyword only
        If False (default) every central inertia of a body with mass must be positive
        definite; if True, ideal singular bodies (point mass, thin rod) that are still
        realizable are admitted.  Either way the mass matrix must stay positive definite:
        a joint that moves no inertia is refused by name.
    gravity : (3,) array_like, optional, keyword only
        Gravitational acceleration in base coordinates, m/s^2; default (0, 0, -9.81)
        (z up).  Every function that needs gravity uses it unless given another one for
        that call.  Left unset on a tree on which this default does no work (every
        joint axis parallel to it, e.g. a planar model drawn in the x-y plane), the
        constructor issues a :class:`GravityWarning`; passing ``gravity`` explicitly,
        even the default value, says the choice is deliberate.

    Attributes
    ----------
    nq, nv : int
        Sizes of ``q`` and of ``v`` (``a``, ``tau``).
    joint_nq, joint_nv, q_start, v_start : (N,) ndarray of int
        Each joint's coordinate counts and first index in ``q`` and in ``v``.

    Raises
    ------
    ValueError
        Naming the argument, for wrong shapes or counts, non-finite values, parents not
        ordered parent-before-child, zero joint screws, non-rigid placements, inertias
        that are asymmetric, have a negative mass, inconsistent coupling blocks, or an
        unrealizable (or, unless allowed, singular) central inertia, and for a joint that
        moves no inertia (massless bodies with nothing beyond them).
    TypeError
        If a joint is neither a joint model nor a numeric screw.

    Warns
    -----
    GravityWarning
        If ``gravity`` was left unset and the default does no work on the tree.

    Notes
    -----
    A frozen dataclass: the arrays are stored as read-only copies, and the constant
    operators of the fast algorithms are built once here.

    Examples
    --------
    A planar two-link arm in the x-y plane, hanging in gravity along -y: rods of 0.3 m
    (1 kg) and 0.25 m (0.5 kg), each body's origin at its joint.

    >>> import numpy as np
    >>> from geomotion import inertia, spatial, tree
    >>> rod = lambda m, length: inertia.spatial_inertia(
    ...     m, [length / 2, 0, 0], inertia.thin_rod_central_inertia(m, length, axis=0)
    ...     + 1e-6 * np.eye(3))
    >>> arm = tree.Tree(
    ...     parents=[-1, 0],
    ...     joints=[tree.REVOLUTE_Z, tree.REVOLUTE_Z],
    ...     placements=[np.eye(4), spatial.pose(np.eye(3), [0.3, 0, 0])],
    ...     inertias=[rod(1.0, 0.3), rod(0.5, 0.25)],
    ...     gravity=(0, -9.81, 0))
    >>> arm
    Tree(N=2, joints=['revolute', 'revolute'], masses=[1.0, 0.5] kg, parents=[-1, 0], gravity=[0.0, -9.81, 0.0] m/s^2)
    >>> tau_hold = tree.bias_forces(arm, [0.0, 0.0], [0.0, 0.0])  # holding torques, N m
    >>> np.round(tau_hold, 4)  # g (1 x 0.15 + 0.5 x 0.425) and g (0.5 x 0.125)
    array([3.5561, 0.6131])

    The same link hung from a ball joint on a floating block: nq = 7 + 4, nv = 6 + 3.

    >>> block = inertia.spatial_inertia(2.0, [0, 0, 0], 0.01 * np.eye(3))
    >>> swing = tree.Tree([-1, 0], [tree.FREE_FLYER, tree.SPHERICAL],
    ...                   [np.eye(4), np.eye(4)], [block, rod(0.5, 0.25)])
    >>> swing.nq, swing.nv, swing.q_start.tolist(), swing.v_start.tolist()
    (11, 9, [0, 7], [0, 6])
    """

    parents: np.ndarray
    joints: tuple
    placements: np.ndarray
    inertias: np.ndarray
    allow_singular_inertias: bool = field(default=False, kw_only=True)
    gravity: np.ndarray = field(default=None, kw_only=True)

    def __post_init__(self):
        parents = _check_parents(self.parents, "parents")
        n = parents.size
        joints = _check_joints(self.joints, n, "joints")
        P = _validate.real_array(self.placements, "placements")
        if P.ndim != 3 or P.shape[1:] != (4, 4):
            raise ValueError(f"placements: expected shape ({n}, 4, 4), got shape {P.shape}")
        _check_count(P, n, "placements", "poses")
        _validate.pose(P, "placements", item="body")
        I = _validate.real_array(self.inertias, "inertias")
        if I.ndim != 3 or I.shape[1:] != (6, 6):
            raise ValueError(f"inertias: expected shape ({n}, 6, 6), got shape {I.shape}")
        _check_count(I, n, "inertias", "spatial inertias")
        if not isinstance(self.allow_singular_inertias, (bool, np.bool_)):
            raise ValueError(
                f"allow_singular_inertias: expected True or False, got {self.allow_singular_inertias!r}"
            )
        massless = ~np.any(I.reshape(n, 36), axis=1)
        masses, coms, _ = _check_inertia_structure(
            I, "inertias", bool(self.allow_singular_inertias), massless
        )
        for name, value in (("parents", parents), ("placements", P), ("inertias", I)):
            object.__setattr__(self, name, _readonly(value))
        object.__setattr__(self, "joints", joints)
        object.__setattr__(self, "allow_singular_inertias", bool(self.allow_singular_inertias))
        gravity_given = self.gravity is not None
        g = _validate.vector(self.gravity if gravity_given else DEFAULT_GRAVITY, "gravity", 3)
        object.__setattr__(self, "gravity", _readonly(g))
        nqs = np.array([j.nq for j in joints], dtype=np.int64)
        nvs = np.array([j.nv for j in joints], dtype=np.int64)
        for name, value in (
            ("joint_nq", nqs),
            ("joint_nv", nvs),
            ("q_start", np.concatenate([[0], np.cumsum(nqs)[:-1]])),
            ("v_start", np.concatenate([[0], np.cumsum(nvs)[:-1]])),
            ("_masses", masses),
            ("_coms", coms),
        ):
            object.__setattr__(self, name, _readonly(value))
        object.__setattr__(self, "_sizes", (int(nqs.sum()), int(nvs.sum())))
        object.__setattr__(self, "_quaternion_columns", _quaternion_columns(joints, nqs))
        samples = random_configurations(self, 3)
        if self.allow_singular_inertias or massless.any():
            _check_mass_matrix_definite(self, samples)
        if not gravity_given:
            _warn_if_gravity_does_no_work(self, samples)

    def __repr__(self):
        kinds = [j.kind for j in self.joints]
        masses = [float(f"{m:.4g}") for m in self.masses]
        return (
            f"Tree(N={self.num_bodies}, joints={kinds}, masses={masses} kg, "
            f"parents={self.parents.tolist()}, gravity={self.gravity.tolist()} m/s^2)"
        )

    @property
    def num_bodies(self):
        """Number of bodies N (= number of joints)."""
        return self.parents.size

    @property
    def nq(self):
        """Number of configuration coordinates (entries of ``q``)."""
        return self._sizes[0]

    @property
    def nv(self):
        """Number of velocity coordinates (entries of ``v``, ``a`` and ``tau``)."""
        return self._sizes[1]

    @property
    def screws(self):
        """(N, 6) joint screws when every joint is a screw joint (read-only copy), else None."""
        if not all(isinstance(j, ScrewJoint) for j in self.joints):
            return None
        return np.array([j.screw for j in self.joints])

    @property
    def masses(self):
        """(N,) body masses in kg."""
        return self._masses.copy()

    @property
    def centers_of_mass(self):
        """(N, 3) centre of mass of each body in its own coordinates, m (0 for a massless body)."""
        return self._coms.copy()


def _check_joints(joints, n, name):
    """A tuple of N joint models from joint models and screws (or an (N, 6) screw array)."""
    if isinstance(joints, np.ndarray):
        if joints.ndim != 2 or joints.shape[1] != 6:
            raise ValueError(
                f"{name}: expected shape ({n}, 6) for screws, got shape {joints.shape}"
            )
        joints = list(joints)
    elif isinstance(joints, (str, bytes)) or not hasattr(joints, "__len__"):
        raise TypeError(f"{name}: expected a sequence of {n} joints, got {type(joints).__name__}")
    if len(joints) != n:
        raise ValueError(f"{name}: expected {n} joints (one per body), got {len(joints)}")
    return tuple(as_joint(j, name, i) for i, j in enumerate(joints))


def _quaternion_columns(joints, nqs):
    """(K, 4) indices into q of the K quaternions (a ball's q, a free flyer's last four), and
    the (K,) indices of their joints."""
    ends = np.cumsum(nqs)
    owners = [i for i, joint in enumerate(joints) if joint.nq > joint.nv]
    columns = np.array([np.arange(ends[i] - 4, ends[i]) for i in owners], dtype=np.int64)
    return columns.reshape(-1, 4), np.array(owners, dtype=np.int64)


def random_configurations(model, count, *, seed=0):
    """The neutral configuration and ``count`` random ones (fixed seed), for construction checks."""
    rng = np.random.default_rng(seed)
    columns = [np.vstack([j.neutral()[None], j.random((count,), rng=rng)]) for j in model.joints]
    return np.concatenate(columns, axis=-1)


def check_model(model):
    """Check that ``model`` is a :class:`Tree`, for functions that take one.

    Every function of :mod:`geomotion.tree` (and the packages built on it, such as
    ``geomotion.systems.MechanicalSystem.from_tree``) calls it first, so that a wrong
    argument fails with one message that names it.

    Parameters
    ----------
    model : Tree
        The object to check.

    Returns
    -------
    Tree
        ``model`` itself, unchanged.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`Tree` (message ``"model: expected a
        geomotion.tree.Tree, got ..."``).

    Examples
    --------
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.check_model(arm) is arm
    True
    """
    if not isinstance(model, Tree):
        raise TypeError(f"model: expected a geomotion.tree.Tree, got {type(model).__name__}")
    return model
