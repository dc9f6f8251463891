"""The random trees of ``trees.py`` built in the peer engines, Pinocchio and MuJoCo.

Every convention conversion is written out here, once, for all cross-engine tests:

* Pinocchio orders motion linear-first, ``[v; w]``, and force ``[f; n]``: with
  ``P = [[0, I], [I, 0]]``, ``P @ X_pin @ P`` is our 6x6 operator.  Its joints rotate
  about an axis through the joint frame's origin, so each body's joint frame is our
  body frame moved to the point ``r`` on the joint axis (same axes), and the body's
  inertia is given about that frame (centre of mass ``c - r``).  Joints are added
  depth-first (``pin.crba`` assumes it) and mapped by joint name.
* MuJoCo nests bodies in MJCF: ``pos``/``quat`` of a body are its placement in the
  parent, a hinge's ``axis``/``pos`` and the ``inertial`` element are in the body frame.
  Numbers are written as plain Python floats.  Degrees of freedom follow the depth-first
  nesting and are mapped by joint name.
"""

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
mujoco = pytest.importorskip("mujoco")

P_SWAP = np.block([[np.zeros((3, 3)), np.eye(3)], [np.eye(3), np.zeros((3, 3))]])


def axis_point(spec, i):
    """Point of body i's joint axis used as the peer engines' joint origin (body coordinates)."""
    return np.zeros(3) if spec.kinds[i] == "p" else spec.points[i]


def pinocchio_model(spec):
    """Pinocchio model with joints added depth-first; returns (model, index of our body i)."""
    model = pin.Model()
    joint_id, index = {}, np.empty(spec.n, dtype=int)
    for i in spec.depth_first_order():
        p = spec.parents[i]
        r_i = axis_point(spec, i)
        r_p = axis_point(spec, p) if p >= 0 else np.zeros(3)
        R = spec.rotations[i]
        # joint frame of i in joint frame of p: Trans(-r_p) T_{p,i} Trans(r_i)
        placement = pin.SE3(R, spec.offsets[i] + R @ r_i - r_p)
        u = spec.axes[i]
        if spec.kinds[i] == "r":
            joint = pin.JointModelRevoluteUnaligned(u)
        elif spec.kinds[i] == "p":
            joint = pin.JointModelPrismaticUnaligned(u)
        else:
            joint = pin.JointModelHelicalUnaligned(u, float(spec.pitches[i]))
        jid = model.addJoint(joint_id[p] if p >= 0 else 0, joint, placement, f"joint{i}")
        model.appendBodyToJoint(
            jid,
            pin.Inertia(spec.masses[i], spec.coms[i] - r_i, spec.inertias_com[i]),
            pin.SE3.Identity(),
        )
        joint_id[i] = jid
    for i in range(spec.n):
        index[i] = model.joints[model.getJointId(f"joint{i}")].idx_v
    return model, index


def quaternion(R):
    q = np.empty(4)
    mujoco.mju_mat2Quat(q, np.ascontiguousarray(R).reshape(9))
    return q


def floats(values):
    return " ".join(repr(float(x)) for x in np.ravel(values))


def mujoco_model(spec):
    """MuJoCo model nested depth-first; returns (model, dof index of our body i)."""
    children = {i: [] for i in range(-1, spec.n)}
    for i, p in enumerate(spec.parents):
        children[p].append(i)

    def body(i):
        Ic = spec.inertias_com[i]
        kind = {"r": "hinge", "p": "slide"}[spec.kinds[i]]
        inner = "".join(body(c) for c in children[i])
        return (
            f'<body name="body{i}" pos="{floats(spec.offsets[i])}" quat="{floats(quaternion(spec.rotations[i]))}">'
            f'<joint name="joint{i}" type="{kind}" axis="{floats(spec.axes[i])}" pos="{floats(axis_point(spec, i))}"/>'
            f'<inertial pos="{floats(spec.coms[i])}" mass="{floats([spec.masses[i]])}" '
            f'fullinertia="{floats([Ic[0, 0], Ic[1, 1], Ic[2, 2], Ic[0, 1], Ic[0, 2], Ic[1, 2]])}"/>'
            f"{inner}</body>"
        )

    xml = (
        '<mujoco><compiler angle="radian"/>'
        '<option gravity="0 0 -9.81"><flag contact="disable"/></option>'
        f"<worldbody>{''.join(body(r) for r in children[-1])}</worldbody></mujoco>"
    )
    model = mujoco.MjModel.from_xml_string(xml)
    index = np.array(
        [
            model.jnt_dofadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, f"joint{i}")]
            for i in range(spec.n)
        ]
    )
    return model, index


def to_peer(x, index):
    """Our joint order -> the peer's."""
    out = np.empty_like(x)
    out[index] = x
    return out


# ---------------------------------------------------------------------------
# Multi-degree-of-freedom joints (trees.random_joint_spec): every conversion here
# ---------------------------------------------------------------------------
#
# * Ball ('s'): Pinocchio's JointModelSpherical, q = quaternion (x, y, z, w) scalar-last,
#   v = angular velocity in the child's axes (ours: (w, x, y, z), same v).
# * Free flyer ('f'): Pinocchio's JointModelFreeFlyer, q = (p, x, y, z, w), v = (v, omega)
#   linear-first in the child's axes; ours q = (p, w, x, y, z), v = (omega, v).  Both put p
#   in the joint frame's (parent-side) axes: T = placement * (R(quat), p).
# * Generalized forces follow the velocities (a free flyer's is a wrench, force first in
#   Pinocchio, moment first here).
#
# All of it is two index permutations: ``q_pin[qperm] = q`` and ``v_pin[vperm] = v`` (the
# same for a, tau); back: ``v = v_pin[vperm]``, ``M = M_pin[ix_(vperm, vperm)]``.

#: Our quaternion (w, x, y, z) -> Pinocchio's slots (x, y, z, w): w goes to slot 3, etc.
QUATERNION_SLOTS = np.array([3, 0, 1, 2])
#: Our free-flyer (omega, v) -> Pinocchio's (v, omega) slots.
FREE_FLYER_V_SLOTS = np.array([3, 4, 5, 0, 1, 2])


def _pin_joint(spec, i):
    kind, u = spec.kinds[i], spec.axes[i]
    if kind == "r":
        return pin.JointModelRevoluteUnaligned(u)
    if kind == "p":
        return pin.JointModelPrismaticUnaligned(u)
    if kind == "h":
        return pin.JointModelHelicalUnaligned(u, float(spec.pitches[i]))
    if kind == "s":
        return pin.JointModelSpherical()
    return pin.JointModelFreeFlyer()


def pinocchio_joint_model(spec, model, *, zero_mass=None):
    """Pinocchio model of a spec with any joint kinds; returns (pmodel, qperm, vperm).

    ``model`` is our Tree of the same spec (for its ``q_start``/``v_start``).  Joints are
    added depth-first.  A massless body gets ``pin.Inertia.Zero()``, or, if ``zero_mass``
    is a number, a body of that mass at the joint origin with inertia ``zero_mass`` I (kg m^2).
    """
    pmodel = pin.Model()
    joint_id = {}
    for i in spec.depth_first_order():
        p = spec.parents[i]
        r_i = axis_point(spec, i)
        r_p = axis_point(spec, p) if p >= 0 else np.zeros(3)
        R = spec.rotations[i]
        placement = pin.SE3(R, spec.offsets[i] + R @ r_i - r_p)
        jid = pmodel.addJoint(
            joint_id[p] if p >= 0 else 0, _pin_joint(spec, i), placement, f"joint{i}"
        )
        if spec.masses[i] > 0:
            body = pin.Inertia(spec.masses[i], spec.coms[i] - r_i, spec.inertias_com[i])
        elif zero_mass is None:
            body = pin.Inertia.Zero()
        else:
            body = pin.Inertia(zero_mass, np.zeros(3), zero_mass * np.eye(3))
        pmodel.appendBodyToJoint(jid, body, pin.SE3.Identity())
        joint_id[i] = jid
    qperm = np.empty(model.nq, dtype=int)
    vperm = np.empty(model.nv, dtype=int)
    for i, kind in enumerate(spec.kinds):
        joint = pmodel.joints[pmodel.getJointId(f"joint{i}")]
        iq, iv, qs, vs = joint.idx_q, joint.idx_v, model.q_start[i], model.v_start[i]
        if kind == "s":
            qperm[qs : qs + 4] = iq + QUATERNION_SLOTS
            vperm[vs : vs + 3] = iv + np.arange(3)
        elif kind == "f":
            qperm[qs : qs + 3] = iq + np.arange(3)
            qperm[qs + 3 : qs + 7] = iq + 3 + QUATERNION_SLOTS
            vperm[vs : vs + 6] = iv + FREE_FLYER_V_SLOTS
        else:
            qperm[qs], vperm[vs] = iq, iv
    assert sorted(qperm) == list(range(pmodel.nq)) and sorted(vperm) == list(range(pmodel.nv))
    return pmodel, qperm, vperm


def add_point_frames(spec, pmodel, points):
    """One operational frame per body at ``points[i]`` (body coordinates); returns frame ids."""
    return [
        pmodel.addFrame(
            pin.Frame(
                f"point{i}",
                pmodel.getJointId(f"joint{i}"),
                0,
                pin.SE3(np.eye(3), points[i] - axis_point(spec, i)),
                pin.FrameType.OP_FRAME,
            )
        )
        for i in range(spec.n)
    ]


def pin_wrenches(spec, pmodel, wrenches):
    """Our body wrenches (moment, force) about body origins -> Pinocchio's per-joint forces."""
    fext = [pin.Force.Zero() for _ in range(pmodel.njoints)]
    for i in range(spec.n):
        n, f = wrenches[i, :3], wrenches[i, 3:]
        fext[pmodel.getJointId(f"joint{i}")] = pin.Force(f, n - np.cross(axis_point(spec, i), f))
    return fext
