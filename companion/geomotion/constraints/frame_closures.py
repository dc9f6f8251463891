r"""Frame closures: welds, revolute, spherical, planar... joints between two frames of a tree.

:func:`geomotion.constraints.frame_closure` ties a frame of one body to a frame of
another (or of the ground) in any subset of the six components of their relative motion
(:class:`geomotion.constraints.FrameClosure`, the constraint protocol of
:mod:`geomotion.constraints`); :class:`geomotion.constraints.ClosureSet` stacks several
of them, evaluated in one compiled pass, and gives the closed-loop forward dynamics.
"""

from dataclasses import KW_ONLY, dataclass
from types import MappingProxyType

import numpy as np

from .. import _validate, tree
from .._kernels import _inverse_pose
from ..spatial import exp_twist, log_pose
from .closures import _body_index
from .dynamics import ConstrainedDynamics

#: Named component sets of :func:`frame_closure` (read-only), rows of the relative motion
#: of frame b with respect to frame a, in a's axes, angular-first: 0-2 rotations about a's
#: x, y, z; 3-5 translations along a's x, y, z.  Each name is the joint the closure
#: leaves: the components it lists are the ones the joint forbids.
FRAME_CLOSURE_COMPONENTS = MappingProxyType(
    {
        "weld": (0, 1, 2, 3, 4, 5),  # rigid: nothing free
        "revolute": (0, 1, 3, 4, 5),  # free: rotation about a's z
        "prismatic": (0, 1, 2, 3, 4),  # free: translation along a's z
        "cylindrical": (0, 1, 3, 4),  # free: rotation about and translation along a's z
        "spherical": (3, 4, 5),  # free: every rotation about a's origin (a point closure)
        "planar": (0, 1, 5),  # free: motion in a's x-y plane (rotation about z)
        "translation": (0, 1, 2),  # free: every translation, no rotation
    }
)


def _components(value):
    """A tuple of distinct integers in 0..5, from a name or a sequence (order kept)."""
    if isinstance(value, str):
        if value not in FRAME_CLOSURE_COMPONENTS:
            raise ValueError(
                f"components: expected a nonempty subset of 0..5 or one of the names "
                f"{sorted(FRAME_CLOSURE_COMPONENTS)}, got {value!r}"
            )
        return FRAME_CLOSURE_COMPONENTS[value]
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim == 1 else value
    if not isinstance(value, (tuple, list, range)):
        raise TypeError(
            f"components: expected a sequence of integers in 0..5 (or a name such as "
            f"'weld'), got {type(value).__name__} {value!r}"
        )
    entries = []
    for entry in value:
        if isinstance(entry, (bool, np.bool_)) or not isinstance(entry, (int, np.integer)):
            raise TypeError(
                f"components: expected integers in 0..5, got {type(entry).__name__} {entry!r} "
                f"in {value!r}"
            )
        if not 0 <= entry <= 5:
            raise ValueError(
                f"components: expected integers in 0..5 (0-2 rotations about frame a's x, y, "
                f"z; 3-5 translations along them), got {int(entry)} in {value!r}"
            )
        entries.append(int(entry))
    if not entries:
        raise ValueError("components: expected a nonempty subset of 0..5, got an empty sequence")
    if len(set(entries)) != len(entries):
        raise ValueError(f"components: expected distinct entries, got duplicates in {value!r}")
    return tuple(entries)


def _free_directions_close(components):
    """True if the free coordinate directions span a subalgebra of se(3) (see FrameClosure)."""
    free = set(range(6)) - set(components)
    rotations = [i for i in range(3) if i in free]
    if len(rotations) == 2:  # [w_i, w_j] = +-w_k, the third rotation
        return False
    for i in rotations:  # [w_i, v_j] = +-v_k for j != i
        for j in range(3):
            k = 3 - i - j
            if j != i and 3 + j in free and 3 + k not in free:
                return False
    return True


def _frame(value, name):
    T = _validate.pose(value, name)
    if T.shape != (4, 4):
        raise ValueError(f"{name}: expected one pose of shape (4, 4), got shape {T.shape}")
    T = T.copy()
    T.flags.writeable = False
    return T


@dataclass(frozen=True, eq=False)
class FrameClosure:
    r"""Frame ``a`` (fixed in ``body_a``) tied to frame ``b`` (fixed in ``body_b``) in some components.

    Built by :func:`frame_closure` (which documents the parameters); follows the
    module's constraint protocol.  With :math:`T_{0a}(q)`, :math:`T_{0b}(q)` the frames'
    poses in the base (:func:`geomotion.tree.frame_pose`), the relative pose
    :math:`T_{ab} = T_{0a}^{-1}T_{0b}`, its exponential coordinates
    :math:`\xi = \log T_{ab}` (:func:`geomotion.spatial.log_pose`), :math:`E` the
    selection of the rows ``components`` (the set :math:`C`) and :math:`\xi_F` the vector
    :math:`\xi` with those rows zeroed (its *free* part):

    .. math:: \Phi(q) = E\,\log\big(T_{ab}\,\exp(-\hat\xi_F)\big),\qquad
              J_c = E\,\mathrm{Ad}_{T_{0a}}^{-1}(J^0_b - J^0_a),\qquad
              \gamma = E\big(\mathrm{Ad}_{T_{0a}}^{-1}(\dot J^0_b - \dot J^0_a)v
              - \mathcal V_a\times\mathcal V_{ab}\big),

    where :math:`J^0` are the bodies' world Jacobians (:func:`geomotion.tree.frame_kinematics`
    with ``reference="world"``), :math:`\mathcal V_a = \mathrm{Ad}_{T_{0a}}^{-1}J^0_av` is
    frame a's own twist and :math:`\mathcal V_{ab} = \mathrm{Ad}_{T_{0a}}^{-1}(J^0_b -
    J^0_a)v = \dot T_{ab}T_{ab}^{-1}` the twist of b relative to a, both in a's axes about
    a's origin.  So :math:`J_cv = E\,\mathcal V_{ab}` and :math:`\gamma =
    \tfrac{d}{dt}(J_c)v`, the rate of :math:`J_cv` at :math:`a = 0` (:math:`J_ca + \gamma =
    0` keeps :math:`E\mathcal V_{ab} = 0`; the sign is the module's: :math:`\gamma` is
    passed to :func:`geomotion.constraints.constrained_dynamics` as it is).  The multiplier :math:`\lambda` is
    the selected components of the wrench (moments in N m, forces in N, a's axes, about
    a's origin) that frame a exerts on body b; body a receives the opposite.

    **The residual.**  :math:`\Phi` is the log of the pose error left after undoing the
    free part of the motion, in rad and m.  For a weld it is :math:`\log T_{ab}` itself;
    for the spherical set it is the offset of b's origin in a's axes (:math:`\exp(\hat
    \xi_F)` is the rotation of :math:`T_{ab}`); in general :math:`\Phi = E\xi + O(|E\xi|\,
    |\xi_F|)`.  The plain :math:`E\xi` has the same zero set, but its rate on the
    constraint manifold is :math:`[\mathcal J_l^{-1}(\xi)]_{CC}J_cv` (:math:`\mathcal J_l`
    the left Jacobian of SE(3)), a matrix that strays from the identity as the free
    rotation grows (a Newton projection of a hinge stalls past about 1.5 rad); this
    :math:`\Phi` removes that factor.

    **Relation of** :math:`J_c` **to** :math:`\partial\Phi/\partial q`.  When the free
    coordinate directions (those not in ``components``) span a Lie subalgebra
    :math:`\mathfrak h` of se(3), as for every name in ``FRAME_CLOSURE_COMPONENTS`` (21 of
    the 63 subsets), the zero set of :math:`\Phi` is the subgroup :math:`\exp\mathfrak h`
    (the joint; rotations of less than pi from the reference), and on it

    .. math:: \dot\Phi = J_cv\quad\text{exactly},

    since :math:`\tfrac{d}{dt}\exp(\hat\xi_F)\exp(-\hat\xi_F) \in \mathfrak h` has no
    selected rows: the constraint is holonomic and ``integrable`` is True.  Otherwise (e.g.
    ``(2,)``, which leaves the x and y rotations free although their bracket is the z
    rotation) the velocity constraint :math:`E\mathcal V_{ab} = 0` is not integrable
    (Frobenius): it agrees with :math:`\dot\Phi = 0` only at :math:`T_{ab} = I`, and
    ``integrable`` is False.

    Attributes
    ----------
    model : geomotion.tree.Tree
        The tree whose frames are tied.
    body_a, body_b : int
        Bodies carrying the frames (``-1``: the ground).
    frame_a, frame_b : (4, 4) ndarray
        The frames' poses in their bodies' coordinates (read-only copies).
    components : tuple of int
        Keyword-only: the rows kept, in order, from (rotation about a's x, y, z,
        translation along a's x, y, z).
    """

    model: tree.Tree
    body_a: int
    frame_a: np.ndarray
    body_b: int
    frame_b: np.ndarray
    _: KW_ONLY
    components: tuple = (0, 1, 2, 3, 4, 5)

    def __post_init__(self):
        if not isinstance(self.model, tree.Tree):
            raise TypeError(
                f"model: expected a geomotion.tree.Tree, got {type(self.model).__name__}"
            )
        N = self.model.num_bodies
        body_a = _body_index(self.body_a, "body_a", N, lowest=-1)
        body_b = _body_index(self.body_b, "body_b", N, lowest=-1)
        if body_a == body_b:
            what = "the ground" if body_a < 0 else f"body {body_a}"
            raise ValueError(
                f"body_b: expected a body other than body_a = {body_a}, got {body_b}: two "
                f"frames of {what} never move relative to each other (a frame welded to "
                f"itself constrains nothing)"
            )
        object.__setattr__(self, "body_a", body_a)
        object.__setattr__(self, "body_b", body_b)
        object.__setattr__(self, "frame_a", _frame(self.frame_a, "frame_a"))
        object.__setattr__(self, "frame_b", _frame(self.frame_b, "frame_b"))
        object.__setattr__(self, "components", _components(self.components))
        # The two frames, checked once; every evaluation walks both paths in one pass.  The
        # Jacobian and bias rows are a one-pair stack's: the rows of a ClosureSet, computed
        # by the same kernel, rows zero up to rounding set to exactly zero.
        pair = tree.FramePair(self.model, body_a, self.frame_a, body_b, self.frame_b)
        object.__setattr__(self, "_pair", pair)
        object.__setattr__(self, "_stack", tree.FramePairStack([pair], [self.components]))

    def wrench(self, multiplier, *, on="a"):
        r"""The constraint's wrench on one of its bodies, from its multiplier.

        .. math:: \mathcal F_b = E^T\lambda,\qquad \mathcal F_a = -E^T\lambda

        moment-first, in frame a's axes about frame a's origin (N m, N); the components the
        closure leaves free carry no load.  For a foot welded to the ground (``body_a`` the
        foot, ``body_b = -1``), ``on="a"`` is the ground's wrench on the foot about its
        sole frame, as :func:`geomotion.contact.foot_contacts` takes it with ``frame="sole"``.

        Parameters
        ----------
        multiplier : (..., m) array_like
            The closure's multiplier :math:`\lambda` (for example a slice of
            the ``multiplier`` of :class:`~geomotion.constraints.ConstrainedDynamics`), m = the number
            of components.
        on : {"a", "b"}, optional, keyword only
            Which body receives the wrench; default ``"a"``.

        Returns
        -------
        (..., 6) ndarray

        Raises
        ------
        ValueError
            If ``multiplier`` does not have m entries on its last axis, or ``on`` is not
            "a" or "b".
        """
        if on not in ("a", "b"):
            raise ValueError(f"on: expected 'a' or 'b', got {on!r}")
        lam = _validate.real_array(multiplier, "multiplier")
        m = len(self.components)
        if lam.ndim == 0 or lam.shape[-1] != m:
            raise ValueError(
                f"multiplier: expected shape (..., {m}) (one entry per component), got shape "
                f"{lam.shape}"
            )
        wrench = np.zeros(lam.shape[:-1] + (6,))
        wrench[..., list(self.components)] = lam if on == "b" else -lam
        return wrench

    @property
    def integrable(self):
        """Whether the free directions span a subalgebra (then J_c is the residual's rate, see above)."""
        return _free_directions_close(self.components)

    def relative_pose(self, q):
        r""":math:`T_{ab} = T_{0a}^{-1}T_{0b}`, the pose of frame b in frame a.

        Parameters
        ----------
        q : (..., nq) array_like
            Configuration.

        Returns
        -------
        (..., 4, 4) ndarray
            Translation in m.
        """
        return self._pair.pose(q)

    def residual(self, q):
        r""":math:`E\log\big(T_{ab}\exp(-\hat\xi_F)\big)`, (..., c): rad for rows 0-2, m for rows 3-5.

        :math:`\xi_F` is :math:`\xi = \log T_{ab}` with the selected components zeroed
        (see the class notes); for a weld it is :math:`E\log T_{ab}`.

        Parameters
        ----------
        q : (..., nq) array_like
            Configuration.

        Returns
        -------
        (..., c) ndarray
        """
        T = self.relative_pose(q)
        rows = list(self.components)
        xi = log_pose(T)
        if len(rows) < 6:  # undo the free part first (a weld has none)
            xi[..., rows] = 0.0
            xi = log_pose(T @ _inverse_pose(exp_twist(xi)))
        return xi[..., list(self.components)]  # in the order given, as J's rows

    def jacobian(self, q):
        r""":math:`E\,\mathrm{Ad}_{T_{0a}}^{-1}(J^0_b - J^0_a)`, (..., c, nv): rad/s, m/s per unit of v.

        A row zero up to rounding (the out-of-plane rows of a planar mechanism drawn in a
        tilted plane) is exactly zero, as are its bias entry (see
        ``geomotion.tree._frame_pairs._rounding_floors``)."""
        return self._stack.jacobian(q)

    def acceleration_bias(self, q, v):
        r""":math:`\gamma = \tfrac{d}{dt}(J_c)\,v`, (..., c): rad/s^2, m/s^2 (see the class notes)."""
        return self._stack.acceleration_bias(q, v)


class ClosureSet:
    r"""Several frame closures of one tree as one constraint, their rows stacked in order.

    .. math:: \Phi = (\Phi_1, \dots, \Phi_m),\qquad J_c = \begin{pmatrix}J_1\\ \vdots\\
              J_m\end{pmatrix},\qquad \gamma = (\gamma_1, \dots, \gamma_m)

    The same values as concatenating each closure's ``residual``, ``jacobian`` and
    ``acceleration_bias``, but the Jacobian and the bias of all closures come from one
    compiled pass over the batch (each closure's two paths walked once), and
    :meth:`jacobian_and_bias` gives both from that one pass, as a constrained forward
    dynamics step needs them.  Follows the module's constraint protocol.

    Parameters
    ----------
    closures : sequence of FrameClosure
        At least one, all on the same tree (a golfer's two planted feet and its grip, say).

    Attributes
    ----------
    closures : tuple of FrameClosure
    model : geomotion.tree.Tree
    sizes : tuple of int
        Rows of each closure, in order (to split a multiplier by closure).

    Raises
    ------
    TypeError
        If ``closures`` is not a sequence of :class:`FrameClosure`.
    ValueError
        If it is empty or its closures are on different trees.

    Examples
    --------
    The two-link arm's tip held on a revolute hinge about z and, redundantly, at a
    point: eight rows, the hinge's five then the point's three.

    >>> import numpy as np
    >>> from geomotion import constraints, models, spatial
    >>> arm = models.two_link_teaching_arm()
    >>> tip, anchor = spatial.pose(np.eye(3), [0.5, 0, 0]), spatial.pose(np.eye(3), [1.1, 0, 0])
    >>> both = constraints.ClosureSet([
    ...     constraints.frame_closure(arm, 1, tip, -1, anchor, components="revolute"),
    ...     constraints.frame_closure(arm, 1, tip, -1, anchor, components="spherical")])
    >>> both.sizes
    (5, 3)
    >>> q, v = [0.0, 0.0], [1.0, -2.0]
    >>> rows = both.jacobian_and_bias(q, v)
    >>> rows.J_c[:, 0].round(12) + 0.0  # joint 1: the anchor seen from the tip moves at -1.1 m/s along y
    array([ 0. ,  0. ,  0. , -1.1,  0. ,  0. , -1.1,  0. ])
    >>> each = [c.acceleration_bias(q, v) for c in both.closures]
    >>> bool(np.allclose(rows.gamma, np.concatenate(each), rtol=0, atol=1e-14))
    True
    """

    def __init__(self, closures):
        if isinstance(closures, FrameClosure) or not isinstance(closures, (list, tuple)):
            raise TypeError(
                f"closures: expected a sequence of FrameClosure, got {type(closures).__name__}"
            )
        if not closures:
            raise ValueError("closures: expected at least one FrameClosure, got none")
        for k, closure in enumerate(closures):
            if not isinstance(closure, FrameClosure):
                raise TypeError(
                    f"closures: expected a sequence of FrameClosure, got "
                    f"{type(closure).__name__} at position {k}"
                )
            if closure.model is not closures[0].model:
                raise ValueError(
                    f"closures: expected closures of one tree, got closure {k} on another "
                    f"tree than closure 0"
                )
        self.closures = tuple(closures)
        self.model = closures[0].model
        self.sizes = tuple(len(c.components) for c in closures)
        self._stack = tree.FramePairStack(
            [c._pair for c in closures], [c.components for c in closures]
        )

    def residual(self, q):
        """Each closure's residual (see :meth:`FrameClosure.residual`), stacked: (..., c)."""
        return np.concatenate([c.residual(q) for c in self.closures], axis=-1)

    def jacobian(self, q):
        """:math:`J_c` (..., c, nv): rad/s and m/s per unit of v."""
        return self._stack.jacobian(q)

    def acceleration_bias(self, q, v):
        r""":math:`\gamma = \dot J_cv` (..., c): rad/s^2 and m/s^2."""
        return self._stack.acceleration_bias(q, v)

    def jacobian_and_bias(self, q, v):
        r""":math:`J_c` and :math:`\gamma = \dot J_cv` from one compiled pass.

        The same values as :meth:`jacobian` and :meth:`acceleration_bias` at the same
        state, for the price of one.

        Parameters
        ----------
        q : (..., nq) array_like
            Configurations (unit quaternions for ball and free-flyer joints).
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
        return self._stack.jacobian_and_bias(q, v)

    def forward_dynamics(self, q, v, tau, *, rtol=None):
        r"""Accelerations and multipliers of the tree held by these closures, under ``tau``.

        .. math:: M(q)\dot v + h(q, v) = \tau + J_c^T\lambda,\qquad J_c\dot v + \gamma = 0

        (equation :eq:`eq-gs-closed-loop-forward-dynamics`)
        with the model's gravity in :math:`h`: the same result as
        :func:`geomotion.constraints.constrained_dynamics` given
        :func:`geomotion.tree.crba`, :func:`geomotion.tree.bias_forces` and
        :meth:`jacobian_and_bias` at the same state (equal up to rounding), redundant rows
        included.  Computed by :meth:`geomotion.tree.FramePairStack.forward_dynamics`: one
        compiled pass over blocks of configurations that never writes :math:`M` or
        :math:`J_c` out solves each configuration whose rows the certified solve accepts,
        and that composition each other one (a row the rank rule counts as zero,
        redundant or nearly dependent rows), so that a configuration's answer does not
        depend on the rest of its batch and ``rank`` is
        :func:`geomotion.constraints.constraint_rank` of its rows.

        Parameters
        ----------
        q : (..., nq) array_like
            Configurations (unit quaternions for ball and free-flyer joints).
        v : (..., nv) array_like
            Velocities (rad/s, m/s).
        tau : (..., nv) array_like or 0
            Applied joint loads (N m, N).
        rtol : float, optional
            Rank threshold of :func:`geomotion.constraints.constraint_rank` (default 1e-10).

        Returns
        -------
        ConstrainedDynamics
            ``a`` (..., nv) in rad/s^2 and m/s^2, ``multiplier`` (..., c) (N m and N, the
            closures' rows in order), ``rank``.

        Raises
        ------
        ValueError
            If ``q``, ``v`` or ``tau`` is malformed or their leading axes do not
            broadcast, a quaternion is not unit, or the constraints are inconsistent
            (see :func:`geomotion.constraints.constrained_dynamics`).

        Examples
        --------
        The two-link arm's tip pinned at a point of the base, from rest, under gravity
        along -y: the tip does not accelerate.

        >>> import numpy as np
        >>> from geomotion import constraints, models, spatial
        >>> arm = models.two_link_teaching_arm()
        >>> tip = spatial.pose(np.eye(3), [0.5, 0, 0])
        >>> anchor = spatial.pose(np.eye(3), [0.8, 0.3, 0])
        >>> pinned = constraints.ClosureSet(
        ...     [constraints.frame_closure(arm, 1, tip, -1, anchor, components=(3, 4))])
        >>> q, v = np.radians([30.0, -60.0]), np.zeros(2)
        >>> result = pinned.forward_dynamics(q, v, tau=0.0)
        >>> float(np.abs(pinned.jacobian(q) @ result.a).max()) < 1e-12, result.rank
        (True, 2)
        """
        solved = self._stack.forward_dynamics(q, v, tau, rtol=rtol)
        return ConstrainedDynamics(solved.a, solved.multiplier, solved.rank)


def frame_closure(model, body_a, frame_a, body_b, frame_b, *, components=(0, 1, 2, 3, 4, 5)):
    r"""Tie a frame of one body to a frame of another body (or of the ground) in chosen components.

    The relative pose of frame b in frame a, :math:`T_{ab} = T_{0a}^{-1}T_{0b}`, is held to
    the motions of a joint: the selected components of its exponential coordinates
    :math:`\xi = \log T_{ab}` (angular-first, a's axes) vanish.  The residual measures the
    error left after undoing the free part :math:`\xi_F` of the motion (:math:`\xi` with
    the selected rows zeroed), so that on the joint its rate is exactly :math:`J_cv`:

    .. math:: \Phi(q) = E\,\log\big(T_{ab}\exp(-\hat\xi_F)\big) = 0
              \quad(\text{a weld: } \log T_{ab};\ \text{spherical: b's origin in a's axes}).

    ==============  ========================  =========================================
    name            components                what stays free (the joint)
    ==============  ========================  =========================================
    "weld"          (0, 1, 2, 3, 4, 5)        nothing: a rigid grip, a planted foot
    "revolute"      (0, 1, 3, 4, 5)           rotation about a's z axis
    "prismatic"     (0, 1, 2, 3, 4)           translation along a's z axis
    "cylindrical"   (0, 1, 3, 4)              rotation about and translation along a's z
    "spherical"     (3, 4, 5)                 every rotation about a's origin
    "planar"        (0, 1, 5)                 motion in a's x-y plane
    "translation"   (0, 1, 2)                 every translation, no rotation
    ==============  ========================  =========================================

    For these (and every subset whose free directions span a Lie subalgebra of se(3)) the
    zero set of :math:`\Phi` is exactly the joint's motion (for rotations of less than pi
    from the reference), and on it the Jacobian, the selected rows of the twist of b
    relative to a in a's axes, is the rate of the residual; see :class:`FrameClosure` for
    the other subsets (whose velocity constraint is not integrable).

    Parameters
    ----------
    model : geomotion.tree.Tree
    body_a : int
        Body carrying frame a, ``-1 <= body_a < N`` (``-1``: the ground).
    frame_a : (4, 4) array_like
        Pose of frame a in ``body_a``'s coordinates (translation in m); its axes define the
        components.
    body_b : int
        Body carrying frame b, ``-1 <= body_b < N``, different from ``body_a``.
    frame_b : (4, 4) array_like
        Pose of frame b in ``body_b``'s coordinates (the base's if ``body_b = -1``; to plant
        a foot where it stands, its current pose ``tree.frame_pose(model, q, foot, sole)``).
    components : str or sequence of int, optional
        A name from the table (``FRAME_CLOSURE_COMPONENTS``) or distinct integers in 0..5:
        0-2 rotations about a's x, y, z (rad), 3-5 translations along a's x, y, z (m).
        Rows come in the order given.  Default: all six (a weld).

    Returns
    -------
    FrameClosure
        ``residual(q)`` (..., c) in rad and m, ``jacobian(q)`` (..., c, nv) in rad/s and
        m/s per unit of v,
        ``acceleration_bias(q, v)`` (..., c) in rad/s^2 and m/s^2, with c the number of
        components.

    Raises
    ------
    TypeError
        If ``model`` is not a Tree, a body index is not an integer, or ``components`` is
        not a name or a sequence of integers.
    ValueError
        If a body index is out of range or ``body_b == body_a`` (a frame welded to itself),
        a frame is not one rigid (4, 4) pose, or ``components`` is empty, has duplicates,
        an entry outside 0..5 or an unknown name.

    Examples
    --------
    The tip of the two-link arm held on the ground's x axis at 1.1 m by a revolute joint
    about z: at the stretched-out pose the residual is zero, and the rows of :math:`J_c`
    are the tip's velocity components (the two rotation rows are zero in the plane).

    >>> import numpy as np
    >>> from geomotion import constraints, models, spatial
    >>> arm = models.two_link_teaching_arm()
    >>> tip, anchor = spatial.pose(np.eye(3), [0.5, 0, 0]), spatial.pose(np.eye(3), [1.1, 0, 0])
    >>> hinge = constraints.frame_closure(arm, 1, tip, -1, anchor, components="revolute")
    >>> hinge.residual([0.0, 0.0]).round(12) + 0.0
    array([0., 0., 0., 0., 0.])
    >>> hinge.jacobian([0.0, 0.0]).round(12) + 0.0
    array([[ 0. ,  0. ],
           [ 0. ,  0. ],
           [ 0. ,  0. ],
           [-1.1, -0.5],
           [ 0. ,  0. ]])
    """
    return FrameClosure(model, body_a, frame_a, body_b, frame_b, components=components)
