"""The 3-D golfer and chapter 2's legs in Pinocchio, for the tests that compare the two.

Conventions converted here, once: joints are added in body order (the golfer's bodies are
numbered depth-first, as ``pin.crba`` needs), each joint frame is the body frame (every
revolute axis of these models passes through its body's origin); quaternions are ours
(w, x, y, z) and Pinocchio's (x, y, z, w); a free flyer's velocity is ours (omega, v) and
Pinocchio's (v, omega), both in the body's axes.
"""

import numpy as np
import pytest

from geomotion import inertia


def pinocchio_golfer(model, frames):
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


def pin_configuration(model, q):
    """Our configuration in Pinocchio's: quaternions (w, x, y, z) -> (x, y, z, w)."""
    out = np.array(q, dtype=float)
    for i, joint in enumerate(model.joints):
        s = model.q_start[i]
        quat = {"free_flyer": slice(s + 3, s + 7), "spherical": slice(s, s + 4)}.get(joint.kind)
        if quat is not None:
            out[quat] = np.roll(q[quat], -1)
    return out


def pin_velocity_order(model):
    """Index of each Pinocchio velocity coordinate in ours (free flyer: linear first)."""
    order = np.arange(model.nv)
    for i, joint in enumerate(model.joints):
        if joint.kind == "free_flyer":
            s = model.v_start[i]
            order[s : s + 6] = np.r_[s + 3 : s + 6, s : s + 3]
    return order
