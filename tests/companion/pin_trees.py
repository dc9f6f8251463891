"""Whole models of ``geomotion.models`` (free flyer, ball and revolute joints) built in
Pinocchio, for cross-engine tests of the golfer and the legs.

The conversions, once: each body's joint frame is its body frame (joints added in body
order, parents before children); Pinocchio stores a quaternion (x, y, z, w) where we store
(w, x, y, z), and orders a free flyer's velocity linear first where we put the angular
part first.
"""

import numpy as np
import pytest

from geomotion import inertia


def pinocchio_tree(model, frames):
    """The tree in Pinocchio (joints in body order, each joint frame the body frame)."""
    pin = pytest.importorskip("pinocchio")
    peer = pin.Model()
    for i in range(model.num_bodies):
        joint = model.joints[i]
        if joint.kind == "free_flyer":
            joint_model = pin.JointModelFreeFlyer()
        elif joint.kind == "spherical":
            joint_model = pin.JointModelSpherical()
        else:
            assert joint.kind == "revolute" and not np.any(joint.screw[3:])
            joint_model = pin.JointModelRevoluteUnaligned(joint.screw[:3])
        T = model.placements[i]
        jid = peer.addJoint(
            int(model.parents[i]) + 1, joint_model, pin.SE3(T[:3, :3], T[:3, 3]), f"b{i}"
        )
        if np.any(model.inertias[i]):
            p = inertia.mass_properties(model.inertias[i])
            body = pin.Inertia(float(p.mass), p.com, p.inertia_com)
        else:
            body = pin.Inertia.Zero()
        peer.appendBodyToJoint(jid, body, pin.SE3.Identity())
    for name, frame in frames.items():
        peer.addFrame(
            pin.Frame(
                name,
                frame.body + 1,
                pin.SE3(frame.pose[:3, :3], frame.pose[:3, 3]),
                pin.FrameType.OP_FRAME,
            )
        )
    return pin, peer


def pin_q(model, q):
    """Our configuration in Pinocchio's: quaternions (w, x, y, z) -> (x, y, z, w)."""
    out = np.array(q, dtype=float)
    for i, joint in enumerate(model.joints):
        s = model.q_start[i]
        quat = {"free_flyer": slice(s + 3, s + 7), "spherical": slice(s, s + 4)}.get(joint.kind)
        if quat is not None:
            out[quat] = np.roll(q[quat], -1)
    return out


def pin_v_order(model):
    """Index of each Pinocchio velocity coordinate in ours (free flyer: linear first)."""
    order = np.arange(model.nv)
    for i, joint in enumerate(model.joints):
        if joint.kind == "free_flyer":
            s = model.v_start[i]
            order[s : s + 6] = np.r_[s + 3 : s + 6, s : s + 3]
    return order
