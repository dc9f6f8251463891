r"""The 3-D golfer driven through the swing-plane downswing: a prescribed motion and its ground loads.

The swing-plane golfer (``models/swing.py``) is simulated forward under declared torques;
the 3-D golfer (``models/_golfer3d.py``) cannot be driven by those torques, since its joints
are not the planar model's.  What carries over is the planar swing's *kinematics*: the
clubhead's path and speed, and the trunk's turn.  The 3-D golfer's face centre follows
the planar face centre, carried into the 3-D golfer's own swing plane, and its thorax
turns at the planar hub's rate; the rest of the body follows a stated rule (least
kinetic energy, :func:`drive_golfer`) with both feet planted and both hands on the
club.  This is how inverse dynamics is done from a measured motion: the motion is given,
and the loads are what it requires.

Ground loads.  With the motion given, the free flyer's six rows of the equations of
motion, :math:`(M\dot v + h)_{0:6} = (J_c^T\lambda)_{0:6}`, involve only the feet: the
grip closure ties two bodies that both hang below the pelvis, so its Jacobian has zero
columns for the pelvis's six coordinates.  Those six rows are the Newton-Euler equations
of the whole golfer: the ground's resultant wrench equals the rate of the total spatial
momentum minus the weight (:func:`ground_wrench`).  How the two feet share it is not
determined by the motion (:func:`geomotion.contact.foot_wrench_family`).
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, spatial, tree
from ._downswing import Downswing
from ._golfer3d import Golfer
from .swing import SwingPlaneGolfer

__all__ = ["DrivenSwing", "drive_golfer", "ground_wrench"]


@dataclass(frozen=True)
class DrivenSwing:
    r"""Result of :func:`drive_golfer`: the 3-D golfer's prescribed downswing.

    Equation of the book: :eq:`eq-ch2-minimum-energy-velocity` (with the rows below).

    Attributes
    ----------
    t : (n,) ndarray
        Time from the top of the backswing, s (the planar run's step times, interior
        samples: the first and the last are used only by the differences).
    q : (n, 41) ndarray
        Configurations (m, unit quaternions, rad).
    v : (n, 35) ndarray
        Velocities of the rule (see :func:`drive_golfer`).
    a : (n, 35) ndarray
        Accelerations, central differences of ``v``, second order in the step.
    plane : (4, 4) ndarray
        The swing plane's frame in the world at address: origin at the planar model's
        hub, x towards the target, y up the plane, z its normal (the hub axis), m.
    face_residual : float
        Largest distance of the face centre from its prescribed path over the samples, m.
    closure_residual : float
        Largest foot and grip closure residual over the samples (rad, m).
    step : float
        Sample spacing, s.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    plane: np.ndarray
    face_residual: float
    closure_residual: float
    step: float


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


def _face_path(planar, plane, q, v):
    """The prescribed face centre and its velocity in the world (m, m/s): the planar face
    centre carried into the world by the plane's frame."""
    pad = np.zeros(q.shape[:-1] + (1,))
    c = np.concatenate([planar.clubhead(q), pad], -1)
    c_dot = np.concatenate([planar.clubhead_velocity(q, v), pad], -1)
    return c @ plane[:3, :3].T + plane[:3, 3], c_dot @ plane[:3, :3].T


class _Rule:
    """The velocity rule of :func:`drive_golfer` for one golfer and one swing plane."""

    def __init__(self, golfer, plane, gain):
        self.model = golfer.model
        self.closures = golfer.constraints(golfer.q0)
        self.club = golfer.frames["clubhead"]
        self.thorax = golfer.bodies["thorax"]
        forearms = [golfer.bodies[f"{role} radioulnar"] for role in ("lead", "trail")]
        self.free = np.setdiff1d(np.arange(self.model.nv), self.model.v_start[forearms])
        self.axis = plane[:3, 2]
        self.gain = gain

    def task(self, q):
        r"""Rows of :math:`Jv = b` at ``q``: the closure rows (feet 12, grip 3 or 6), the
        face centre's velocity (3, world axes) and the thorax's rate about the hub axis
        (1); with the face centre (m) and the closure residuals."""
        model = self.model
        face = tree.frame_kinematics(
            model,
            q,
            np.zeros(model.nv),
            self.club.body,
            self.club.pose,
            reference="local_world_aligned",
        )
        thorax = tree.frame_jacobian(model, q, self.thorax, np.eye(4), reference="world")
        turn = (self.axis @ thorax[:3])[None]
        J = np.concatenate([c.jacobian(q) for c in self.closures] + [face.jacobian[3:], turn])
        residual = np.concatenate([c.residual(q) for c in self.closures])
        return J, face.pose[:3, 3], residual

    def velocity(self, q, face, face_velocity, turn_rate):
        r""":math:`v = \arg\min \tfrac12 v^TM(q)v` subject to :math:`Jv = b` and the
        forearms held: over the other coordinates :math:`f`,
        :math:`v_f = M_{ff}^{-1}J_f^T(J_fM_{ff}^{-1}J_f^T)^{-1}b`, for the face centre's
        place and velocity requested (m, m/s, world) and the thorax's turn rate (rad/s)."""
        J, face_now, residual = self.task(q)
        b = np.concatenate(
            [-self.gain * residual, face_velocity - self.gain * (face_now - face), [turn_rate]]
        )
        free = self.free
        J = J[:, free]
        MinvJt = np.linalg.solve(tree.crba(self.model, q)[np.ix_(free, free)], J.T)
        v = np.zeros(self.model.nv)
        v[free] = MinvJt @ np.linalg.solve(J @ MinvJt, b)
        return v


def drive_golfer(golfer, planar, run, *, stride=2, index=None):
    r"""Drive the 3-D golfer through a planar downswing (a prescribed motion).

    Equation of the book: :eq:`eq-ch2-minimum-energy-velocity` (with the rows below).

    **The clubhead**: the face centre follows the planar face centre :math:`c(t)`, carried
    into the world by the plane's frame :math:`F` (``DrivenSwing.plane``): x along the
    target line, y from the ball towards the 3-D golfer's mid-shoulder point at address,
    z = x cross y the hub axis; origin placed so that the planar face centre at impact is
    the 3-D face centre at address.  So the path and the speed of the clubhead are the
    planar ones, and at impact the face is where the 3-D golfer addressed the ball (a
    stated simplification).  **The trunk**: the thorax turns about the hub axis at the
    planar hub's rate :math:`v_0(t)`.  The club's orientation (its lean out of the plane,
    its roll about the shaft, even its turn in the plane) is left to the rule below.

    **The rest of the body** follows the least kinetic energy: at every instant

    .. math:: v = \arg\min_v \tfrac12 v^TM(q)v\quad\text{subject to}\quad
              J_c v = -\kappa\Phi_c,\quad J_{face}v = \dot p(t) -
              \kappa\,(p(q) - p(t)),\quad z^T\omega_{thorax} = v_0(t),\quad
              v_{forearms} = 0,

    with :math:`J_c, \Phi_c` the feet welded at address and the trail grip
    (:meth:`Golfer.constraints`), :math:`p = Fc` the prescribed face centre, :math:`z`
    the hub axis and :math:`\kappa = 0.2/h` a feedback gain, signed so that errors decay
    in the direction of integration.  The forearm rotations are held at their address
    angles (the minimum is taken over the other coordinates, whose mass matrix stays
    regular where the full one is singular, at the wrists' gimbal lock): the rule knows
    no range of motion, and left free it spins the light hands about the forearms.  The
    configuration is integrated backward in time from the address at the impact time (a
    Heun step to the last stored step before impact, then Runge-Kutta-Munthe-Kaas 4 on
    the manifold with step :math:`h` = ``stride`` stored steps, whose stages fall on
    stored steps) to the top of the backswing.  Accelerations are central differences of
    the velocities, second order in :math:`h`.

    Parameters
    ----------
    golfer : Golfer
        The 3-D golfer (:func:`golfer`), best with ``trail_grip="weld"`` (a point grip
        leaves the trail hand free to spin, which the least-energy rule does not stop).
    planar : SwingPlaneGolfer
        One parameter set (``batch_shape == ()``), or a batch with ``index`` naming one.
    run : Downswing
        The planar run (:func:`simulate_downswing` on ``planar``).
    stride : int, optional, keyword only
        Even number of stored steps per integration step (default 2).
    index : int, optional, keyword only
        Which parameter set of a batched ``planar``/``run`` to drive.

    Returns
    -------
    DrivenSwing
        The samples with a neighbour on each side (for the differences), in time order.

    Raises
    ------
    TypeError
        If ``golfer``, ``planar`` or ``run`` has the wrong type, or ``stride`` or
        ``index`` is not an integer.
    ValueError
        If ``stride`` is not even and positive, ``index`` is missing for a batch or out of
        range, the run has no impact (``run.impact.crossed`` False), or it has fewer
        than three samples before impact.
    """
    if not isinstance(golfer, Golfer):
        raise TypeError(f"golfer: expected a models.Golfer, got {type(golfer).__name__}")
    if not isinstance(planar, SwingPlaneGolfer):
        raise TypeError(f"planar: expected a models.SwingPlaneGolfer, got {type(planar).__name__}")
    if not isinstance(run, Downswing):
        raise TypeError(f"run: expected a models.Downswing, got {type(run).__name__}")
    stride = _validate.count(stride, "stride", minimum=2, whole_floats=False)
    if stride % 2:
        raise ValueError(f"stride: expected an even number of stored steps, got {stride}")
    trajectory = run.trajectory
    q_p, v_p = trajectory.q, trajectory.v
    impact = (run.impact.step, run.impact.time, run.impact.q, run.impact.v, run.impact.crossed)
    if planar.batch_shape:
        if index is None:
            raise ValueError(
                f"index: expected the parameter set to drive (planar has batch shape "
                f"{planar.batch_shape}), got None"
            )
        i = _validate.count(index, "index", minimum=0, maximum=planar.batch_shape[0] - 1)
        planar = planar.parameter_set(i)
        q_p, v_p = q_p[:, i], v_p[:, i]
        impact = tuple(np.asarray(x)[i] for x in impact)
    elif index is not None:
        raise ValueError(f"index: expected None for one parameter set, got {index!r}")
    k_impact, t_impact, q_impact, v_impact, crossed = impact
    if not crossed:
        raise ValueError("run: expected a swing whose clubhead meets the ball's line, got none")
    steps = np.arange(int(k_impact), -1, -stride)[::-1]  # ... up to the last before impact
    if steps.size < 3:
        raise ValueError(
            f"run: expected at least 3 samples before impact at stride {stride}, got {steps.size}"
        )
    h, dt = float(trajectory.dt) * stride, -float(trajectory.dt) * stride  # backward
    plane = _swing_plane(golfer, planar, q_impact)
    rule = _Rule(golfer, plane, -0.2 / h)
    model = golfer.model

    def velocity(q, q_planar, v_planar):
        face, face_velocity = _face_path(planar, plane, q_planar, v_planar)
        return rule.velocity(q, face, face_velocity, v_planar[0])

    def stored(j):
        return q_p[j], v_p[j]

    def rate(u, w):  # Runge-Kutta-Munthe-Kaas: the increment's rate (as integrators.rk4_step)
        uw = tree.lie_bracket(model, u, w)
        return w + 0.5 * uw + tree.lie_bracket(model, u, uw) / 12.0

    q = np.empty((steps.size, model.nq))
    v = np.empty((steps.size, model.nv))
    short = float(trajectory.t[steps[-1]]) - float(t_impact)  # <= 0: impact -> last stored step
    v_impact_3d = velocity(golfer.q0, q_impact, v_impact)
    predicted = tree.integrate(model, golfer.q0, v_impact_3d, short)
    k2 = rate(short * v_impact_3d, velocity(predicted, *stored(steps[-1])))
    q[-1] = tree.integrate(model, golfer.q0, 0.5 * (v_impact_3d + k2), short)
    half = stride // 2

    def stage(q_start, k, fraction, j):  # the rate at q_start + fraction dt k, stored step j
        u = fraction * dt * k
        return rate(u, velocity(tree.integrate(model, q_start, u, 1.0), *stored(j)))

    for m in range(steps.size - 1, 0, -1):
        j = steps[m]
        k1 = v[m] = velocity(q[m], *stored(j))
        k2 = stage(q[m], k1, 0.5, j - half)
        k3 = stage(q[m], k2, 0.5, j - half)
        k4 = stage(q[m], k3, 1.0, j - stride)
        q[m - 1] = tree.integrate(model, q[m], (k1 + 2 * k2 + 2 * k3 + k4) / 6, dt)
    v[0] = velocity(q[0], *stored(steps[0]))
    targets, _ = _face_path(planar, plane, q_p[steps], v_p[steps])
    face = tree.frame_pose(model, q, rule.club.body, rule.club.pose)[:, :3, 3]
    face_residual = np.linalg.norm(face - targets, axis=-1).max()
    closure_residual = max(float(np.abs(c.residual(q)).max()) for c in rule.closures)
    return DrivenSwing(
        t=trajectory.t[steps][1:-1],
        q=q[1:-1],
        v=v[1:-1],
        a=(v[2:] - v[:-2]) / (2 * h),
        plane=plane,
        face_residual=float(face_residual),
        closure_residual=closure_residual,
        step=h,
    )


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
        A motion that keeps the feet where they are (e.g. :class:`DrivenSwing`).

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
