"""Frame kinematics against Pinocchio: pose, Jacobian, velocity and acceleration bias.

Screw-only random trees come from ``peers.py`` (each Pinocchio joint frame is our body frame
moved to a point of the joint axis, so a frame fixed in body i sits at
``Trans(-r_i) @ frame`` on Pinocchio's joint); trees with free-flyer and ball joints from
``frame_models.py`` (quaternions scalar-last and a free flyer's velocity linear-first in
Pinocchio).  Pinocchio's twists are linear-first: ``P_SWAP`` swaps the halves.

What is compared, per reference (LOCAL, WORLD, LOCAL_WORLD_ALIGNED):
``getFrameJacobian`` and ``getFrameVelocity``; for the bias at a = 0,
``getFrameAcceleration`` (LOCAL and WORLD: the spatial acceleration) and
``getFrameClassicalAcceleration`` (LOCAL_WORLD_ALIGNED), and ``getFrameJacobianTimeVariation``
times v in all three.  Agreement to a relative error of 1e-9.
"""

import numpy as np
import pytest
from frame_models import (
    columns_from_pin,
    pinocchio_mixed,
    q_to_pin,
    random_frame,
    random_mixed_spec,
    v_to_pin,
)
from peers import P_SWAP, axis_point, pin, pinocchio_model, to_peer
from trees import random_spec

from geomotion import tree

RTOL = 1e-9
REFERENCES = {
    "local": pin.ReferenceFrame.LOCAL,
    "world": pin.ReferenceFrame.WORLD,
    "local_world_aligned": pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
}


def assert_close(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    scale = max(np.abs(theirs).max(), 1.0)
    error = np.abs(ours - theirs).max()
    assert error <= RTOL * scale, f"relative error {error / scale:.2e}"


def motion(m):
    """A Pinocchio Motion as our angular-first 6-vector."""
    return np.concatenate([m.angular, m.linear])


class Engine:
    """One model in both engines, with conversions for q, v and Jacobian columns."""

    @classmethod
    def screw(cls, seed, n=6):
        self = cls()
        spec = random_spec(np.random.default_rng(seed), n)
        self.ours = spec.tree()
        self.pin, index = pinocchio_model(spec)
        self.offset = [axis_point(spec, i) for i in range(spec.n)]
        self.q_pin = lambda q: to_peer(q, index)
        self.v_pin = lambda v: to_peer(v, index)
        self.columns = lambda J: J[:, index]
        return self

    @classmethod
    def mixed(cls, seed):
        self = cls()
        rng = np.random.default_rng(seed)
        spec = random_mixed_spec(
            rng, [-1, 0, 1, 2, 0, 4, 5, 1], ["free", "ball", "r", "ball", "p", "h", "r", "ball"]
        )
        self.ours = spec.tree()
        self.pin = pinocchio_mixed(pin, spec)
        self.offset = [np.zeros(3)] * spec.n
        self.q_pin = lambda q: q_to_pin(spec, q)
        self.v_pin = lambda v: v_to_pin(spec, v)
        self.columns = lambda J: columns_from_pin(spec, J)
        return self


MODELS = {
    "screw": lambda: Engine.screw(0),
    "screw_chain": lambda: Engine.screw(1, 4),
    "mixed": lambda: Engine.mixed(2),
}


def joint_of_body(engine, body):
    """Pinocchio joint id of our body (peers.py maps joints by name)."""
    return engine.pin.getJointId(f"joint{body}")


@pytest.mark.parametrize("name", MODELS)
def test_frames_agree_with_pinocchio(name):
    engine = MODELS[name]()
    model = engine.ours
    rng = np.random.default_rng(3)
    frames = []
    for body in range(model.num_bodies):
        frame = random_frame(rng)
        placement = frame.copy()
        placement[:3, 3] -= engine.offset[body]
        fid = engine.pin.addFrame(
            pin.Frame(
                f"frame{body}",
                joint_of_body(engine, body),
                pin.SE3(placement[:3, :3], placement[:3, 3]),
                pin.FrameType.OP_FRAME,
            )
        )
        frames.append((body, frame, fid))
    data = engine.pin.createData()
    for _ in range(3):
        q = tree.random_configuration(model, rng=rng)
        v = rng.normal(size=model.nv)
        qp, vp = engine.q_pin(q), engine.v_pin(v)
        pin.forwardKinematics(engine.pin, data, qp, vp, np.zeros(engine.pin.nv))
        pin.computeJointJacobians(engine.pin, data, qp)
        pin.computeJointJacobiansTimeVariation(engine.pin, data, qp, vp)
        pin.updateFramePlacements(engine.pin, data)
        for body, frame, fid in frames:
            assert_close(tree.frame_pose(model, q, body, frame), data.oMf[fid].homogeneous)
            for reference, rf in REFERENCES.items():
                J = tree.frame_jacobian(model, q, body, frame, reference=reference)
                J_pin = pin.getFrameJacobian(engine.pin, data, fid, rf)
                assert_close(J, engine.columns(P_SWAP @ J_pin))
                twist = tree.frame_velocity(model, q, v, body, frame, reference=reference)
                assert_close(twist, motion(pin.getFrameVelocity(engine.pin, data, fid, rf)))
                bias = tree.frame_acceleration_bias(model, q, v, body, frame, reference=reference)
                if reference == "local_world_aligned":
                    theirs = motion(pin.getFrameClassicalAcceleration(engine.pin, data, fid, rf))
                else:
                    theirs = motion(pin.getFrameAcceleration(engine.pin, data, fid, rf))
                assert_close(bias, theirs)
                dJ = pin.getFrameJacobianTimeVariation(engine.pin, data, fid, rf)
                assert_close(bias, P_SWAP @ dJ @ vp)
