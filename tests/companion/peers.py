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
