r"""Frame pairs: one frame seen from another, and stacks of chosen rows of several pairs.

:class:`FramePair` is frame b (fixed in one body) seen from frame a (fixed in another,
or in the ground): its pose, relative twist and that twist's rate, in a's axes about
a's origin, the kinematics of a loop closure.  :class:`FramePairStack` stacks chosen
rows of several pairs (:class:`JacobianAndBias`) and solves the tree's dynamics with
those rows held (:class:`ClosedLoopDynamics`): what
:class:`geomotion.constraints.FrameClosure` and :class:`geomotion.constraints.ClosureSet`
are built on.  The single frame's kinematics, and the references its twist can be
expressed in, are in ``geomotion.tree._frames``.
"""

import math
from dataclasses import dataclass

import numpy as np

from .. import _linalg, _validate
from . import _closed_loop, _run
from ._flat import flat_tree, rows
from ._frames import FrameKinematics, _path
from ._model import _check_configuration, _check_tangent, check_model

__all__ = ["ClosedLoopDynamics", "FramePair", "FramePairStack", "JacobianAndBias"]


class FramePair:
    r"""Frame b (fixed in ``body_b``) seen from frame a (fixed in ``body_a``): its pose,
    its twist relative to a and that twist's rate, in a's axes about a's origin.

    .. math:: T_{ab} = T_{0a}^{-1}T_{0b},\qquad J = \mathrm{Ad}_{T_{0a}}^{-1}(J^0_b -
              J^0_a),\qquad \gamma = \mathrm{Ad}_{T_{0a}}^{-1}(\dot J^0_b - \dot
              J^0_a)v - \mathcal V_a\times\mathcal V_{ab},

    with :math:`J^0` the world Jacobians of :func:`frame_kinematics` (``reference=
    "world"``), :math:`\mathcal V_a` frame a's twist and :math:`\mathcal V_{ab} = Jv` the
    twist of b relative to a, both in a's axes; :math:`\gamma` is the rate of :math:`Jv`
    at :math:`a = 0`.  The bodies and frames are checked once, here; each call checks only
    ``q`` and ``v``, and walks the two paths in one compiled pass (what a loop closure
    or a planted foot evaluates at every step).

    Parameters
    ----------
    model : Tree
    body_a, body_b : int
        Bodies carrying the frames, ``-1 <= body < N`` (``-1``: the ground).
    frame_a, frame_b : (4, 4) array_like
        The frames' poses in their bodies' coordinates (translation in m).

    Raises
    ------
    TypeError
        If ``model`` is not a Tree or a body index is not an integer.
    ValueError
        If a body index is out of range or a frame is not one rigid (4, 4) pose.

    Examples
    --------
    The tip of the two-link arm seen from the ground frame at (1.1, 0, 0), at the
    stretched-out pose turning at 1 rad/s about joint 1: on the anchor, turning at
    1 rad/s about z and moving at 1.1 m/s along y.

    >>> import numpy as np
    >>> from geomotion import models, spatial, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tip, anchor = spatial.pose(np.eye(3), [0.5, 0, 0]), spatial.pose(np.eye(3), [1.1, 0, 0])
    >>> pair = tree.FramePair(arm, -1, anchor, 1, tip)
    >>> kin = pair.kinematics([0.0, 0.0], v=[1.0, 0.0])
    >>> kin.pose[:3, 3].round(12) + 0.0, kin.velocity.round(12) + 0.0
    (array([0., 0., 0.]), array([0. , 0. , 1. , 0. , 1.1, 0. ]))
    """

    def __init__(self, model, body_a, frame_a, body_b, frame_b):
        check_model(model)
        self.model = model
        top = model.num_bodies - 1
        self.body_a = _validate.count(body_a, "body_a", minimum=-1, maximum=top, whole_floats=False)
        self.body_b = _validate.count(body_b, "body_b", minimum=-1, maximum=top, whole_floats=False)
        frames = []
        for value, name in ((frame_a, "frame_a"), (frame_b, "frame_b")):
            T = _validate.pose(value, name)
            if T.shape != (4, 4):
                raise ValueError(f"{name}: expected one (4, 4) pose, got shape {T.shape}")
            frames.append(np.array(T, dtype=float))
        self.frame_a, self.frame_b = frames
        self._paths = (
            np.array(_path(model, self.body_a), dtype=np.int64),
            np.array(_path(model, self.body_b), dtype=np.int64),
        )

    def pose(self, q):
        r""":math:`T_{ab}(q)`, (..., 4, 4), translation in m.

        Parameters
        ----------
        q : (..., nq) array_like
        """
        q = _check_configuration(self.model, q, "q")
        return _run.run_relative_kinematics(self.model, q, None, *self._paths, *self._frames())[0]

    def kinematics(self, q, *, v=None):
        r"""Pose, Jacobian, twist and (with ``v``) acceleration bias of b relative to a.

        Parameters
        ----------
        q : (..., nq) array_like
        v : (..., nv) array_like, optional
            Without it, ``velocity`` and ``acceleration_bias`` are None.

        Returns
        -------
        FrameKinematics
            ``pose`` :math:`T_{ab}` (..., 4, 4); ``jacobian`` :math:`J` (..., 6, nv) in
            rad/s and m/s per unit of v; ``velocity`` :math:`\mathcal V_{ab} = Jv`
            (..., 6); ``acceleration_bias`` :math:`\gamma` (..., 6) in rad/s^2, m/s^2.

        Raises
        ------
        ValueError
            If ``q`` or ``v`` is malformed, a quaternion is not unit, or their leading
            axes do not broadcast.
        """
        q, v = self._checked(q, v)
        T, J, velocity, gamma = _run.run_relative_kinematics(
            self.model, q, v, *self._paths, *self._frames()
        )
        return FrameKinematics(T, J, velocity, gamma)

    def acceleration_bias(self, q, v):
        r""":math:`\gamma`, the rate of :math:`Jv` at :math:`a = 0` (..., 6), rad/s^2 and m/s^2:
        as ``kinematics(q, v=v).acceleration_bias``, without forming the Jacobian.

        Parameters
        ----------
        q : (..., nq) array_like
        v : (..., nv) array_like

        Raises
        ------
        ValueError
            As :meth:`kinematics`.
        """
        q, v = self._checked(q, v)
        return _run.run_relative_kinematics(
            self.model, q, v, *self._paths, *self._frames(), jacobian=False
        )[3]

    def _checked(self, q, v):
        model = self.model
        q = _check_configuration(model, q, "q")
        if v is not None:
            v = _check_tangent(model, v, "v")
            try:
                np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
            except ValueError as error:
                raise ValueError(
                    f"q, v: expected leading (batch) shapes that broadcast, got {q.shape} "
                    f"and {v.shape}"
                ) from error
        return q, v

    def _frames(self):
        return self.frame_a, self.frame_b


#: A stacked closure row whose norm is at most this many machine epsilons times its
#: scale is zero up to rounding (see :func:`_rounding_floors`).
ROUNDING_FACTOR = 1e3


def _rounding_floors(model, pairs, components):
    r"""The rounding floor of each stacked row (c,): below it a row is zero up to rounding.

    A Jacobian entry of a frame pair is a joint's motion column seen in frame a: at most 1
    in a rotation row (a unit axis) and at most :math:`s + 2L` in a translation row
    (:math:`s` the largest translational part of a joint's columns, as a prismatic axis
    or a helix's pitch; :math:`L` the tree's extent, the sum of its placement offsets and
    of the largest frame offsets: a bound on any lever arm).  Rounding leaves a few
    machine epsilons of that in each entry, so a row whose norm is at most
    ``ROUNDING_FACTOR`` :math:`\epsilon\sqrt{n_v}` times its scale carries no
    information: the out-of-plane rows of a planar mechanism drawn in a tilted plane.
    The rank rule alone (relative to the longest row) cannot tell when every row is of
    that kind; this floor can, since it knows the tree's size.
    """
    flat = flat_tree(model)
    offsets = max(
        np.linalg.norm(pair.frame_a[:3, 3]) + np.linalg.norm(pair.frame_b[:3, 3]) for pair in pairs
    )
    extent = float(np.linalg.norm(flat.p0, axis=-1).sum()) + offsets
    angular = float(np.abs(flat.S[:, :3]).max(initial=0.0))
    linear = float(np.abs(flat.S[:, 3:]).max(initial=0.0)) + 2.0 * extent
    unit = ROUNDING_FACTOR * np.finfo(float).eps * np.sqrt(model.nv)
    return np.array([unit * (angular if r < 3 else linear) for rows in components for r in rows])


def _without_rounding_rows(J, gamma, floors):
    """``J`` (..., c, nv) and ``gamma`` (..., c) with each row at or below its floor set to
    exactly zero (in place; see :func:`_rounding_floors`)."""
    zero = np.linalg.norm(J, axis=-1) <= floors
    if np.any(zero):
        J[zero] = 0.0
        if gamma is not None:
            gamma[zero] = 0.0
    return J, gamma


@dataclass(frozen=True)
class ClosedLoopDynamics:
    r"""Result of :meth:`FramePairStack.forward_dynamics`.

    Equations of the book: :eq:`eq-gs-closed-loop-forward-dynamics` and
    :eq:`eq-ch2-multiplier`.

    Read by name; it does not unpack.

    Attributes
    ----------
    a : (..., nv) ndarray
        Accelerations :math:`\dot v` (rad/s^2 and m/s^2).
    multiplier : (..., c) ndarray
        :math:`\lambda`, the stacked rows in order (N m and N); for redundant rows the
        multiplier of least norm.
    rank : int or (...) ndarray of int
        Rank of the stacked rows used by the solve, per configuration.
    """

    a: np.ndarray
    multiplier: np.ndarray
    rank: object


@dataclass(frozen=True)
class JacobianAndBias:
    r"""The Jacobian and the acceleration bias of stacked constraint rows at one state, from
    one pass (:meth:`geomotion.tree.FramePairStack.jacobian_and_bias`, and
    :meth:`geomotion.constraints.ClosureSet.jacobian_and_bias`, which re-exports this class
    as ``geomotion.constraints.JacobianAndBias``).

    Read by name (``rows.J_c``, ``rows.gamma``); it does not unpack like a tuple.  The
    constrained equations they enter are :math:`J_c\dot v + \gamma = 0`.

    Attributes
    ----------
    J_c : (..., c, nv) ndarray
        Constraint Jacobian :math:`J_c(q)`: rad/s and m/s per unit of v (the units of
        each row's relative motion).
    gamma : (..., c) ndarray
        Acceleration bias :math:`\gamma = \dot J_cv`: rad/s^2 and m/s^2.
    """

    J_c: np.ndarray
    gamma: np.ndarray


class FramePairStack:
    r"""Chosen rows of several :class:`FramePair` relative kinematics, stacked, in one
    compiled pass over the batch.

    Row ``j`` of the stack is component ``components[k][m]`` (0-2 rotation, 3-5
    translation, frame a's axes) of pair ``k``, pairs in order: the Jacobian rows
    :math:`J_k[c]` and bias entries :math:`\gamma_k[c]` of :meth:`FramePair.kinematics`.
    Each pair's two paths are walked once for both.  What
    :class:`geomotion.constraints.ClosureSet` evaluates.

    Parameters
    ----------
    pairs : sequence of FramePair
        At least one, all on the same tree.
    components : sequence of sequences of int
        For each pair, the rows kept (distinct integers in 0..5), in order.

    Raises
    ------
    TypeError
        If ``pairs`` is not a sequence of FramePair.
    ValueError
        If it is empty, the pairs are on different trees, or ``components`` does not
        give valid rows for each pair.
    """

    def __init__(self, pairs, components):
        if not isinstance(pairs, (list, tuple)) or not all(isinstance(p, FramePair) for p in pairs):
            raise TypeError(f"pairs: expected a sequence of FramePair, got {pairs!r:.80}")
        if not pairs:
            raise ValueError("pairs: expected at least one FramePair, got none")
        if any(p.model is not pairs[0].model for p in pairs):
            raise ValueError("pairs: expected frame pairs of one tree, got several trees")
        if len(components) != len(pairs) or any(
            len(set(c)) != len(c) or not all(0 <= int(r) <= 5 for r in c) for c in components
        ):
            raise ValueError(
                f"components: expected distinct rows in 0..5 for each of the {len(pairs)} "
                f"pairs, got {components!r}"
            )
        self.pairs, self.model = tuple(pairs), pairs[0].model
        paths = [path for pair in pairs for path in pair._paths]
        self._paths = np.concatenate(paths).astype(np.int64)
        self._ends = np.concatenate([[0], np.cumsum([len(p) for p in paths])]).astype(np.int64)
        self._frames = np.array([F for pair in pairs for F in pair._frames()])
        self._rows = np.array(
            [(k, int(r)) for k, rows in enumerate(components) for r in rows], dtype=np.int64
        ).reshape(-1, 2)
        self._floors = _rounding_floors(self.model, self.pairs, components)

    def jacobian(self, q):
        """Stacked Jacobian rows (..., c, nv): rad/s and m/s per unit of v.  A row zero up
        to rounding of the tree's own scale (``_rounding_floors``) is exactly zero."""
        q = self.pairs[0]._checked(q, None)[0]
        return self._run(q, None)[0]

    def acceleration_bias(self, q, v):
        r"""Stacked bias entries :math:`\gamma` (..., c): rad/s^2 and m/s^2 (zero where the
        row of :meth:`jacobian` is)."""
        q, v = self.pairs[0]._checked(q, v)
        return self._run(q, v)[1]

    def jacobian_and_bias(self, q, v):
        r"""The stacked Jacobian rows and bias entries from one pass: the same values as
        :meth:`jacobian` and :meth:`acceleration_bias` at the same state.

        Parameters
        ----------
        q : (..., nq) array_like
        v : (..., nv) array_like
            Velocities (rad/s, m/s); leading axes broadcast with those of ``q``.

        Returns
        -------
        JacobianAndBias
            ``J_c`` (..., c, nv) in rad/s and m/s per unit of v, and ``gamma`` (..., c)
            in rad/s^2 and m/s^2.

        Raises
        ------
        ValueError
            If ``q`` or ``v`` is malformed, a quaternion is not unit, or their leading
            axes do not broadcast.
        """
        q, v = self.pairs[0]._checked(q, v)
        J_c, gamma = self._run(q, v)
        return JacobianAndBias(J_c=J_c, gamma=gamma)

    def forward_dynamics(self, q, v, tau, *, rtol=None):
        r"""Accelerations and multipliers of the tree with the stacked rows held, under ``tau``.

        Equations of the book: :eq:`eq-gs-closed-loop-forward-dynamics` and
        :eq:`eq-ch2-multiplier`.

        .. math:: M(q)\dot v + h(q, v) = \tau + J^T\lambda,\qquad J\dot v + \gamma = 0

        with :math:`J, \gamma` the stacked rows of :meth:`jacobian_and_bias` and the model's
        gravity in :math:`h`.  One compiled pass over blocks of configurations
        (``geomotion.tree._closed_loop``) that never writes :math:`M` or :math:`J` out
        solves every configuration whose rows the certified solve accepts; each other
        one (a row that the rank rule of :func:`geomotion.constraints.constraint_rank`
        counts as zero, redundant or nearly dependent rows) is solved by :func:`crba`,
        :func:`bias_forces`, :meth:`jacobian_and_bias` and the package's rank-revealing
        solve (that of :func:`geomotion.constraints.constrained_dynamics`).  Which path a
        configuration takes depends on it alone, so its answer is the same, to the last
        bit, alone or in any batch; ``rank`` is the rule's rank of its rows.  What
        :meth:`geomotion.constraints.ClosureSet.forward_dynamics` runs.

        Parameters
        ----------
        q : (..., nq) array_like
        v : (..., nv) array_like
            Velocities (rad/s, m/s).
        tau : (..., nv) array_like or 0
            Applied joint loads (N m, N).
        rtol : float, optional
            Rank threshold of :func:`geomotion.constraints.constraint_rank` (default 1e-10).

        Returns
        -------
        ClosedLoopDynamics

        Raises
        ------
        ValueError
            If ``q``, ``v``, ``tau`` or ``rtol`` is malformed, a quaternion is not unit,
            their leading axes do not broadcast, or the rows are inconsistent (as
            :func:`geomotion.constraints.constrained_dynamics`).
        """
        q, v = self.pairs[0]._checked(q, v)
        model = self.model
        tau = _linalg._vector(tau, "tau", model.nv)
        try:
            batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1], tau.shape[:-1])
        except ValueError as error:
            raise ValueError(
                f"q, v, tau: expected leading (batch) shapes that broadcast, got {q.shape}, "
                f"{v.shape} and {tau.shape}"
            ) from error
        c, nv, tol = self._rows.shape[0], model.nv, _linalg._constraint_rtol(rtol)
        size = math.prod(batch)
        if size and _linalg._certifiable(c, nv, tol):
            a, multiplier, status = _closed_loop.run(self, q, v, tau, batch, tol)
            rest = np.flatnonzero(status != _linalg.SOLVED)
        else:
            a, multiplier = np.empty((size, nv)), np.empty((size, c))
            rest = np.arange(size)
        rank = np.full(size, c)
        if rest.size:  # each configuration the pass did not solve, by the composition
            qr, vr, taur = (rows(x, batch, x.shape[-1:])[rest] for x in (q, v, tau))
            J, gamma = self._run(qr, vr)
            M = _run.run_crba(model, qr)
            h = _run.run_rnea(model, qr, vr, np.zeros(vr.shape), model.gravity, finite=False)
            with np.errstate(over="ignore", invalid="ignore"):
                load = (taur - h)[..., None]
            solved = _linalg._constrained_solve(
                M, J, load, gamma[..., None], tol, inputs={"q": q, "v": v, "tau": tau}
            )
            a[rest], multiplier[rest], rank[rest] = solved[0][..., 0], solved[1][..., 0], solved[2]
        _validate.finite_result(a, "the accelerations", q=q, v=v, tau=tau)
        _validate.finite_result(multiplier, "the multipliers", q=q, v=v, tau=tau)
        a, multiplier = a.reshape(batch + (nv,)), multiplier.reshape(batch + (c,))
        return ClosedLoopDynamics(
            a, multiplier, int(rank[0]) if batch == () else rank.reshape(batch)
        )

    def _run(self, q, v):
        """(J, gamma) of the stacked rows (gamma None without v), rounding rows zeroed."""
        J, gamma = _run.run_closure_rows(
            self.model, q, v, self._paths, self._ends, self._frames, self._rows, True
        )
        return _without_rounding_rows(J, gamma, self._floors)
