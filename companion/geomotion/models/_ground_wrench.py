r"""The ground's resultant wrench on the 3-D golfer, and the swing plane in its world.

With a motion given, the free flyer's six rows of the equations of motion,
:math:`(M\dot v + h)_{0:6} = (J_c^T\lambda)_{0:6}`, involve only the feet: the grip
closure ties two bodies that both hang below the pelvis, so its Jacobian has zero columns
for the pelvis's six coordinates.  Those six rows are the Newton-Euler equations of the
whole golfer: the ground's resultant wrench equals the rate of the total spatial momentum
minus the weight (:func:`ground_wrench`).  How the two feet share it is not determined by
the motion (:func:`geomotion.contact.foot_wrench_family`).
"""

import numpy as np

from .. import spatial, tree
from ._golfer3d import Golfer

__all__ = ["ground_wrench"]


def _swing_plane(golfer, planar, q_impact):
    r"""The plane's frame :math:`F` in the world at address (plane coordinates -> world).

    x along the target line, y from the ball towards the mid-shoulder point (off the
    target line), z = x cross y the hub axis; origin placed so that the planar face centre
    at impact falls on the 3-D face centre at address.
    """
    model, q0 = golfer.model, golfer.q0
    face = golfer.frames["clubhead"].world_pose(model, q0)[:3, 3]
    T = tree.forward_kinematics(model, q0)
    shoulders = 0.5 * (
        T[golfer.bodies["lead upper arm"], :3, 3] + T[golfer.bodies["trail upper arm"], :3, 3]
    )
    x = np.array([0.0, 1.0, 0.0])
    up = shoulders - face
    y = (up - (up @ x) * x) / np.linalg.norm(up - (up @ x) * x)
    R = np.column_stack([x, y, np.cross(x, y)])
    head = np.concatenate([planar.clubhead(q_impact), [0.0]])
    return spatial.pose(R, face - R @ head)


def ground_wrench(golfer, q, v, a):
    r"""The ground's resultant wrench on the golfer that a motion requires, about the world
    origin in world axes (moment-first, N m and N).

    Equation of the book: :eq:`eq-spatial_newton_euler_basic`.

    The free flyer's rows of inverse dynamics (:func:`geomotion.tree.rnea`, gravity
    included), :math:`\mathcal F_{pelvis} = (M\dot v + h)_{0:6}`, are the wrench that the
    pelvis's joint would have to transmit, in pelvis axes about its origin; the golfer has
    no such joint, so the feet supply it (the grip is internal):
    :math:`\mathcal F_O = \mathrm{Ad}_{T_{0,pelvis}}^{-T}\mathcal F_{pelvis}`.

    Parameters
    ----------
    golfer : Golfer
    q : (..., 41) array_like
    v, a : (..., 35) array_like
        A motion that keeps the feet where they are (e.g. a
        :class:`GolferDownswing`).

    Returns
    -------
    (..., 6) ndarray
    """
    if not isinstance(golfer, Golfer):
        raise TypeError(f"golfer: expected a models.Golfer, got {type(golfer).__name__}")
    model = golfer.model
    tau = tree.rnea(model, q, v, a)
    T_pelvis = tree.forward_kinematics(model, q)[..., 0, :, :]
    return np.einsum("...ij,...j->...i", spatial.force_transform(T_pelvis), tau[..., :6])
