r"""Spatial vector algebra: poses, twists, wrenches and the operators between them.

Conventions (the book's coordinate contract):

* Motion vectors (twists) are angular-first, :math:`\mathcal V = (\omega, v)`, with
  :math:`\omega` in rad/s and :math:`v` in m/s.  Force vectors (wrenches) are
  moment-first, :math:`\mathcal F = (n, f)`, with :math:`n` in N m and :math:`f` in N.
* A pose ``T_AB`` is a 4x4 homogeneous matrix that maps point coordinates in frame B
  into frame A, :math:`r_A = R_{AB} r_B + p_{AB}`; :math:`p_{AB}` (m) locates B's
  origin in A.  Function and variable names carry this direction.
* Every function broadcasts over leading axes: a ``(..., 6)`` stack of twists is
  handled in one call.

Files, by idea: ``frames.py`` (rotations, poses, motion and force transforms, cross
products, power), ``screws.py`` (lines, screw and wrench axes, exponential and
logarithm), ``planar.py`` (the planar restriction).
"""

from .frames import (
    AngleWarning,
    compose_poses,
    force_cross,
    force_transform,
    inverse_force_transform,
    inverse_motion_transform,
    inverse_pose,
    motion_cross,
    motion_transform,
    pose,
    power,
    rot_x,
    rot_y,
    rot_z,
    skew,
)
from .planar import planar_embedding, planar_force_cross, planar_motion_cross
from .screws import (  # noqa: F401  (tests check _exp_coefficients's accuracy)
    ScrewAxis,
    _exp_coefficients,
    exp_twist,
    log_pose,
    plucker_line,
    same_line,
    screw_axis,
    wrench_axis,
)

__all__ = [
    "AngleWarning",
    "skew",
    "rot_x",
    "rot_y",
    "rot_z",
    "pose",
    "inverse_pose",
    "compose_poses",
    "motion_transform",
    "inverse_motion_transform",
    "force_transform",
    "inverse_force_transform",
    "motion_cross",
    "force_cross",
    "power",
    "plucker_line",
    "same_line",
    "ScrewAxis",
    "screw_axis",
    "wrench_axis",
    "exp_twist",
    "log_pose",
    "planar_embedding",
    "planar_motion_cross",
    "planar_force_cross",
]
