r"""Feet on the ground: each foot's wrench, centre of pressure and feasibility, the
resultant of all feet, and the indeterminate share of the load between them.

Every foot :math:`k` has a *sole frame* :math:`S_k`: its origin on the sole, its
:math:`x, y` axes in the contact surface, its :math:`z` axis normal to the surface and
pointing into the foot; its pose in the world is ``T_WS[..., k, :, :]``.  A foot's
wrench is the moment-first load of the ground *on the foot*, :math:`(n, f)` [N m, N],
by default about the sole origin in sole axes (``frame="sole"``), or about the world
origin in world axes (``frame="world"``).  Support polygons are given in the sole
plane, in sole :math:`x, y` coordinates [m].

See :mod:`geomotion.contact` for the conventions.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .. import _validate, spatial
from .._linalg import _check_batches, _svd_with_rank
from ..errors import ConvergenceError
from .ground import _convex_polygon, _cop_fields, _feasibility_fields, _noise_floor, _scalar_rtol

#: Where a foot wrench may be given: about the sole origin in sole axes, or about the
#: world origin in world axes.
_FRAMES = ("sole", "world")


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _sole_poses(T_WS):
    """``T_WS`` as a (..., K, 4, 4) stack of rigid poses with K >= 1."""
    T = _validate.pose(T_WS, "T_WS")
    if T.ndim < 3 or T.shape[-3] == 0:
        raise ValueError(
            f"T_WS: expected shape (..., K, 4, 4), the sole pose of each of K >= 1 feet, "
            f"got shape {T.shape}"
        )
    return T


def _foot_wrenches(wrench, K):
    """``wrench`` as a (..., K, 6) array with the K of the sole poses."""
    F = _validate.trailing_shape(wrench, "wrench", (6,))
    if F.ndim < 2 or F.shape[-2] != K:
        raise ValueError(
            f"wrench: expected shape (..., K, 6) with K = {K}, one wrench per sole pose in "
            f"T_WS, got shape {F.shape}"
        )
    return F


def _frame(frame):
    if not isinstance(frame, str):
        raise TypeError(f"frame: expected one of the strings {_FRAMES}, got {frame!r}")
    if frame not in _FRAMES:
        raise ValueError(f"frame: expected one of {_FRAMES}, got {frame!r}")
    return frame


def _point(point):
    """The world point about which a resultant is taken, (..., 3); the origin if None."""
    if point is None:
        return np.zeros(3)
    return _validate.trailing_shape(point, "point", (3,))


def _per_foot(K, T, **arrays_and_core_ndims):
    """Broadcast per-foot arguments against the sole poses; the K axis must stay ``K``.

    Broadcasting alone would let a single foot (K = 1) silently grow into as many feet as a
    per-foot argument has entries.
    """
    shape = _check_batches(T_WS=(T, 2), **arrays_and_core_ndims)
    if shape[-1] != K:
        listing = ", ".join(
            f"{name} {array.shape}" for name, (array, _) in arrays_and_core_ndims.items()
        )
        raise ValueError(
            f"{', '.join(arrays_and_core_ndims)}: expected a feet axis of length {K} "
            f"(the feet of T_WS, shape {T.shape}) or 1, got {listing}"
        )
    return shape


def _sole_and_world(T, F, frame):
    """Foot wrenches about the sole origins in sole axes, and about the world origin in
    world axes, from either."""
    if frame == "sole":
        F_S = F
        F_W = np.einsum("...ij,...j->...i", spatial.force_transform(T), F_S)
    else:
        F_W = F
        F_S = np.einsum("...ij,...j->...i", spatial.inverse_force_transform(T), F_W)
    return F_S, F_W


# ---------------------------------------------------------------------------
# Per-foot contact
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FootContacts:
    r"""Result of :func:`foot_contacts`, read by name (it does not unpack).

    The leading shape ``(...)`` is the broadcast batch (a time series, say); ``K`` counts
    the feet.  Margins are in load units and defined for every wrench, as in
    :class:`ContactFeasibility`: a margin >= 0 means that condition holds.

    Attributes
    ----------
    wrench_sole : (..., K, 6) ndarray
        Ground-on-foot wrench [N m, N] about each sole origin, in sole axes.
    wrench_world : (..., K, 6) ndarray
        The same wrenches about the world origin, in world axes.
    resultant : (..., 6) ndarray
        Sum of ``wrench_world`` over the feet: the total ground wrench about the world
        origin [N m, N] (:func:`foot_resultant` takes it about another point).
    cop_sole : (..., K, 2) ndarray
        Centre of pressure [m] in each sole plane, sole :math:`x, y` coordinates:
        :math:`(-M_y, M_x)/F_z` of the sole wrench; NaN where the foot is unloaded.
    cop_world : (..., K, 3) ndarray
        The same points in world coordinates [m]; NaN where unloaded.
    free_moment : (..., K) ndarray
        Moment [N m] about the sole normal through the centre of pressure; NaN where
        unloaded.
    loaded : (..., K) ndarray of bool
        True where the foot has a centre of pressure (as in :func:`center_of_pressure`).
    normal_force, tangential_force : (..., K) ndarray
        :math:`F_z` and :math:`\|(F_x, F_y)\|` [N] of the sole wrench.
    normal_margin, friction_margin, support_margin : (..., K) ndarray
        :math:`F_z - F_{\min}` [N], :math:`\mu F_z - \|(F_x, F_y)\|` [N] and
        :math:`\min_e F_z d_e` [N m] (see :class:`ContactFeasibility`).
    compressive, within_friction_cone, cop_in_support : (..., K) ndarray of bool
        The three conditions per foot, as in :class:`ContactFeasibility`.
    foot_feasible : (..., K) ndarray of bool
        All three conditions, per foot.
    feasible : (...) ndarray of bool or numpy.bool_
        Every foot feasible.
    """

    wrench_sole: np.ndarray
    wrench_world: np.ndarray
    resultant: np.ndarray
    cop_sole: np.ndarray
    cop_world: np.ndarray
    free_moment: np.ndarray
    loaded: np.ndarray
    normal_force: np.ndarray
    tangential_force: np.ndarray
    normal_margin: np.ndarray
    friction_margin: np.ndarray
    support_margin: np.ndarray
    compressive: np.ndarray
    within_friction_cone: np.ndarray
    cop_in_support: np.ndarray
    foot_feasible: np.ndarray
    feasible: np.ndarray


def foot_contacts(
    T_WS,
    wrench,
    friction_coefficient,
    support_polygon,
    *,
    frame="sole",
    min_normal_force=0.0,
    rtol=1e-6,
):
    r"""Each foot's wrench, centre of pressure and feasibility, for several feet at once.

    The multi-foot form of :func:`center_of_pressure` and :func:`contact_feasibility`.
    Foot :math:`k`'s wrench is first expressed about its sole origin in sole axes,

    .. math:: \mathcal F_{S_k} = \mathrm{Ad}_{T_{WS_k}}^{T}\,\mathcal F_{W,k}
              \quad(\text{if given in world axes about the world origin}),

    then its centre of pressure :math:`(x_c, y_c) = (-M_y, M_x)/F_z` (sole plane,
    :math:`z = 0`), mapped to the world by :math:`T_{WS_k}`, and its three conditions
    are checked in sole axes: :math:`F_z > F_{\min}`,
    :math:`\|(F_x, F_y)\| \le \mu F_z`, centre of pressure in the sole's convex support
    polygon.  The stance is ``feasible`` when every foot is.  As for a single contact,
    a torsional friction limit on the free moment, slip history and deformation are not
    checked.

    An unloaded foot (a foot in swing, or one that the model leaves at zero load) is
    reported, not refused: NaN centre of pressure and free moment, ``loaded`` and
    ``compressive`` False, and so ``feasible`` False for the stance.  A foot that has
    really left the ground belongs out of the K feet (call again without it), or read
    the per-foot flags.

    Parameters
    ----------
    T_WS : (..., K, 4, 4) array_like
        Pose of each sole frame in the world (translation in m): maps sole coordinates to
        world coordinates.  Sole :math:`z` is the surface normal into the foot.
    wrench : (..., K, 6) array_like
        Moment-first ground-on-foot wrench of each foot [N m, N]: about its sole origin
        in sole axes (``frame="sole"``), or about the world origin in world axes
        (``frame="world"``).  The K must be that of ``T_WS``.
    friction_coefficient : array_like
        Coulomb coefficient :math:`\mu \ge 0` (dimensionless): a scalar for all feet, or
        per foot with shape (..., K) (a per-sample value of a time series is
        ``mu[:, None]``).
    support_polygon : (..., V, 2) or (..., K, V, 2) array_like
        Convex support polygon of each foot [m] in its sole plane (sole :math:`x, y`),
        V >= 3 vertices in either orientation; one (V, 2) outline is shared by all feet.
        Feet with different vertex counts need separate calls (a repeated vertex is
        refused).
    frame : {"sole", "world"}
        How ``wrench`` is expressed (see above).
    min_normal_force : float
        Noise floor :math:`F_{\min}` [N] of the normal load (default 0), as in
        :func:`center_of_pressure` and :func:`contact_feasibility`.
    rtol : float
        Smallest ratio :math:`|F_z|/\|f\|` at which a foot has a centre of pressure
        (dimensionless, default ``1e-6``), as in :func:`center_of_pressure`.

    Returns
    -------
    FootContacts
        Per-foot wrenches (sole and world), centres of pressure (sole and world), margins
        and flags of shape (..., K), the resultant (..., 6) and the stance's ``feasible``
        (...).

    Raises
    ------
    ValueError
        If ``T_WS`` is not a (..., K, 4, 4) stack of rigid poses, ``wrench`` not a finite
        (..., K, 6) array with the same K, ``friction_coefficient``,
        ``min_normal_force`` or ``rtol`` negative, a polygon not convex (or with a
        repeated vertex, fewer than 3 vertices, zero area), ``frame`` an unknown string,
        or the leading axes do not broadcast (the feet axis included).
    TypeError
        If ``frame`` is not a string, or an array argument is ``None`` or holds ``None``.

    Examples
    --------
    Two level feet 0.3 m apart, 400 N each through the sole origins:

    >>> import numpy as np
    >>> from geomotion import contact, spatial
    >>> T_WS = np.stack([spatial.pose(np.eye(3), [0.0, y, 0.0]) for y in (0.15, -0.15)])
    >>> foot = [[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]]
    >>> report = contact.foot_contacts(T_WS, [[0, 0, 0, 0, 0, 400.0]] * 2, 0.8, foot)
    >>> report.cop_world[:, 1], bool(report.feasible)
    (array([ 0.15, -0.15]), True)
    """
    T = _sole_poses(T_WS)
    K = T.shape[-3]
    F = _foot_wrenches(wrench, K)
    frame = _frame(frame)
    mu = _validate.nonnegative(friction_coefficient, "friction_coefficient")
    floor = _noise_floor(min_normal_force)
    ratio = _scalar_rtol(rtol)
    vertices, inward = _convex_polygon(support_polygon)
    shape = _per_foot(
        K,
        T,
        wrench=(F, 1),
        friction_coefficient=(mu, 0),
        support_polygon=(vertices, 2),
    )
    F_S, F_W = _sole_and_world(T, F, frame)
    F_S = np.broadcast_to(F_S, shape + (6,))
    F_W = np.broadcast_to(F_W, shape + (6,))
    x_c, y_c, free_moment, loaded = _cop_fields(F_S, floor, ratio)
    cop_sole = np.stack([x_c, y_c], axis=-1)
    R, p = T[..., :3, :3], T[..., :3, 3]
    cop_world = np.einsum("...ij,...j->...i", R[..., :2], cop_sole) + p
    fields = _feasibility_fields(F_S, mu, floor, vertices, inward)
    foot_feasible = fields[-1]
    return FootContacts(
        wrench_sole=np.array(F_S),
        wrench_world=np.array(F_W),
        resultant=F_W.sum(axis=-2),
        cop_sole=cop_sole,
        cop_world=cop_world,
        free_moment=free_moment,
        loaded=loaded,
        normal_force=fields[0],
        tangential_force=fields[1],
        normal_margin=fields[2],
        friction_margin=fields[3],
        support_margin=fields[4],
        compressive=fields[5],
        within_friction_cone=fields[6],
        cop_in_support=fields[7],
        foot_feasible=foot_feasible,
        feasible=np.asarray(np.all(foot_feasible, axis=-1))[()],
    )


# ---------------------------------------------------------------------------
# The resultant and the indeterminate share
# ---------------------------------------------------------------------------


def _shift_to_point(T, p):
    """Poses of the sole frames seen from a frame at the world point p with world axes."""
    T_PS = np.array(np.broadcast_to(T, np.broadcast_shapes(T.shape, p.shape[:-1] + (1, 4, 4))))
    T_PS[..., :3, 3] -= p[..., None, :]
    return T_PS


def _resultant_map(T, p):
    r"""The (..., 6, 6K) map from stacked sole wrenches to the resultant about p in world
    axes: :math:`[\mathrm{Ad}^{-T}_{T_{PS_1}}\ \cdots\ \mathrm{Ad}^{-T}_{T_{PS_K}}]`."""
    X = spatial.force_transform(_shift_to_point(T, p))  # (..., K, 6, 6)
    return np.moveaxis(X, -3, -2).reshape(X.shape[:-3] + (6, 6 * X.shape[-3]))


def foot_resultant(T_WS, wrench, *, point=None, frame="sole"):
    r"""Resultant ground wrench of all feet about a world point, in world axes.

    .. math:: \mathcal F_P = \sum_k \mathrm{Ad}^{-T}_{T_{PS_k}}\,\mathcal F_{S_k},
              \qquad n_P = \sum_k \big(R_k n_k + (p_k - p)\times R_k f_k\big),\quad
              f = \sum_k R_k f_k

    with :math:`T_{PS_k}` the sole pose seen from a frame at :math:`p` with world axes
    (:func:`geomotion.spatial.force_transform`).  This is the ground's whole load on the
    body: what the Newton-Euler equations of the body about :math:`p` need.

    Parameters
    ----------
    T_WS : (..., K, 4, 4) array_like
        Pose of each sole frame in the world (see :func:`foot_contacts`).
    wrench : (..., K, 6) array_like
        Ground-on-foot wrench of each foot [N m, N], as in :func:`foot_contacts`.
    point : (..., 3) array_like, optional
        World point :math:`p` [m] about which the moment is taken; the world origin if
        omitted.
    frame : {"sole", "world"}
        How ``wrench`` is expressed, as in :func:`foot_contacts`.

    Returns
    -------
    (..., 6) ndarray
        Moment-first resultant :math:`(n_P, f)` [N m, N] in world axes.

    Raises
    ------
    ValueError
        If ``T_WS`` is not a (..., K, 4, 4) stack of rigid poses, ``wrench`` not a finite
        (..., K, 6) array with the same K, ``point`` not a finite (..., 3) array,
        ``frame`` an unknown string, or the leading axes do not broadcast.
    TypeError
        If ``frame`` is not a string, or an array argument is ``None`` or holds ``None``.
    """
    T = _sole_poses(T_WS)
    F = _foot_wrenches(wrench, T.shape[-3])
    frame = _frame(frame)
    p = _point(point)
    _check_batches(T_WS=(T, 3), wrench=(F, 2), point=(p, 1))
    _, F_W = _sole_and_world(T, F, frame)
    F_O = F_W.sum(axis=-2)
    shift = np.zeros(p.shape[:-1] + (4, 4))
    shift[..., :3, :3] = np.eye(3)
    shift[..., :3, 3] = -p
    shift[..., 3, 3] = 1.0
    return np.einsum("...ij,...j->...i", spatial.force_transform(shift), F_O)


def _length_scale(T, length_scale, batch):
    """The length [m] that weighs moments against forces, per batch element."""
    if length_scale is not None:
        L = _validate.positive(length_scale, "length_scale")
        _validate.batch_shape({"length_scale": L.shape, "T_WS, resultant, point": batch})
        return np.broadcast_to(L, batch)
    origins = T[..., :3, 3]
    centred = origins - origins.mean(axis=-2, keepdims=True)
    spread = np.sqrt(np.mean(np.sum(centred**2, axis=-1), axis=-1))
    return np.broadcast_to(np.where(spread > 0, spread, 1.0), batch)


def _moment_weights(L, K):
    """(..., 6K) column scales :math:`D = \\mathrm{diag}(L, L, L, 1, 1, 1, \\dots)`."""
    per_foot = np.concatenate(
        [np.broadcast_to(L[..., None], L.shape + (3,)), np.ones(L.shape + (3,))], axis=-1
    )
    return np.tile(per_foot, K)


@dataclass(frozen=True)
class FootWrenchFamily:
    r"""Result of :func:`foot_wrench_family`: every set of foot wrenches with one resultant.

    The members are :math:`w(c) = w_p + Bc` for any coefficients :math:`c \in
    \mathbb R^{6K-6}`; read them with :meth:`member`.  Read the fields by name (the
    result does not unpack).

    Attributes
    ----------
    particular : (..., K, 6) ndarray
        The member of least weighted norm :math:`\sum_k \|f_k\|^2 + \|n_k\|^2/L^2`
        (sole wrenches about the sole origins, sole axes) [N m, N].
    basis : (..., K, 6, 6K - 6) ndarray
        Basis of the wrench distributions with zero resultant (a column per
        coefficient, foot :math:`k`'s block in ``basis[..., k, :, :]``; [N m] and [N] per
        N of coefficient), orthonormal in the weighted inner product
        :math:`\sum_k f_k\cdot f'_k + n_k\cdot n'_k/L^2`.  ``basis.reshape(..., 6 * K,
        6 * K - 6)`` is the stacked matrix.
    resultant : (..., 6) ndarray
        The resultant :math:`(n_P, f)` [N m, N] about ``point``, world axes.
    point : (..., 3) ndarray
        The world point :math:`p` [m] of the resultant's moment.
    length_scale : (...) ndarray or numpy.float64
        The length :math:`L` [m] that weighs moments against forces.
    """

    particular: np.ndarray
    basis: np.ndarray
    resultant: np.ndarray
    point: np.ndarray
    length_scale: np.ndarray

    def member(self, coefficients):
        r"""The distribution :math:`w_p + Bc` of the given coefficients.

        Parameters
        ----------
        coefficients : (..., 6K - 6) array_like
            Coefficients :math:`c` [N], leading axes broadcasting with the family's.

        Returns
        -------
        (..., K, 6) ndarray
            Sole wrenches of every foot [N m, N]; their resultant is the family's.

        Raises
        ------
        ValueError
            If ``coefficients`` is not a finite (..., 6K - 6) array, or its leading axes
            do not broadcast with the family's.
        """
        d = self.basis.shape[-1]
        c = _validate.trailing_shape(coefficients, "coefficients", (d,))
        _check_batches(coefficients=(c, 1), family=(self.particular, 2))
        return self.particular + np.einsum("...kid,...d->...ki", self.basis, c)


def foot_wrench_family(T_WS, resultant, *, point=None, length_scale=None):
    r"""The family of foot wrench distributions that give one resultant.

    With more than one foot on the ground the resultant does not fix how the load is
    shared: the map :math:`A = [\mathrm{Ad}^{-T}_{T_{PS_1}}\ \cdots\
    \mathrm{Ad}^{-T}_{T_{PS_K}}]` (:func:`foot_resultant`) from the stacked sole
    wrenches :math:`w \in \mathbb R^{6K}` to the resultant about :math:`p` has full
    rank 6 (each block is invertible), so the solutions of :math:`Aw = \mathcal F_P`
    form an affine family of dimension :math:`6K - 6` -- 6 for two feet: a squeeze or
    spread of the feet, a shift of vertical load from one to the other, opposite
    couples.  Which member a real stance takes is decided by what the model leaves
    out (compliance of the feet and legs, muscle action), not by statics.

    The particular member minimizes :math:`\sum_k \|f_k\|^2 + \|n_k\|^2/L^2`, the
    Euclidean norm after moments are divided by a length :math:`L` (otherwise the
    choice would change with the length unit): :math:`w_p = D(AD)^+\mathcal F_P` with
    :math:`D = \mathrm{diag}(L I_3, I_3, \dots)`; the basis is :math:`D` times an
    orthonormal basis of :math:`\ker AD` (both from one SVD).  For level feet and a
    vertical resultant through their midpoint this gives each foot half the load
    through its sole origin.  Which members are physically admissible (compression,
    friction cones, support polygons) is a convex subset: :func:`load_share_range`
    explores it, :func:`foot_contacts` checks one member.

    Parameters
    ----------
    T_WS : (..., K, 4, 4) array_like
        Pose of each sole frame in the world (see :func:`foot_contacts`).
    resultant : (..., 6) array_like
        Moment-first ground wrench on the body :math:`(n_P, f)` [N m, N] about ``point``,
        world axes (e.g. from :func:`foot_resultant`, or from the body's Newton-Euler
        equations).
    point : (..., 3) array_like, optional
        World point :math:`p` [m] of the moment; the world origin if omitted.
    length_scale : array_like, optional
        :math:`L` [m], > 0 (shape broadcasting with the batch).  Default: the RMS
        distance of the sole origins from their centroid (half the distance between two
        feet), or 1 m where the sole origins coincide.

    Returns
    -------
    FootWrenchFamily
        ``particular`` (..., K, 6), ``basis`` (..., K, 6, 6K - 6), ``resultant``,
        ``point`` and ``length_scale``; ``member(c)`` evaluates a distribution.

    Raises
    ------
    ValueError
        If ``T_WS`` is not a (..., K, 4, 4) stack of rigid poses, ``resultant`` not a
        finite (..., 6) array, ``point`` not a finite (..., 3) array, ``length_scale``
        not positive, or the leading axes do not broadcast.
    TypeError
        If an array argument is ``None`` or holds ``None``.
    """
    T = _sole_poses(T_WS)
    K = T.shape[-3]
    r = _validate.trailing_shape(resultant, "resultant", (6,))
    p = _point(point)
    batch = _check_batches(T_WS=(T, 3), resultant=(r, 1), point=(p, 1))
    L = _length_scale(T, length_scale, batch)
    A = np.broadcast_to(_resultant_map(T, p), batch + (6, 6 * K))
    D = _moment_weights(L, K)
    U, s, Vt, _ = _svd_with_rank(A * D[..., None, :], None)  # rank 6: invertible blocks
    r = np.broadcast_to(r, batch + (6,))
    y = np.einsum("...ji,...j->...i", Vt[..., :6, :], np.einsum("...ji,...j->...i", U, r) / s)
    particular = (D * y).reshape(batch + (K, 6))
    basis = (D[..., :, None] * np.swapaxes(Vt[..., 6:, :], -1, -2)).reshape(
        batch + (K, 6, 6 * K - 6)
    )
    return FootWrenchFamily(
        particular=particular,
        basis=basis,
        resultant=np.array(r),
        point=np.array(np.broadcast_to(p, batch + (3,))),
        length_scale=np.array(L)[()],
    )


@dataclass(frozen=True)
class LoadShareRange:
    r"""Result of :func:`load_share_range`, read by name (it does not unpack).

    Attributes
    ----------
    foot : int
        The foot :math:`k` whose load is bounded.
    feasible : (...) ndarray of bool or numpy.bool_
        Whether any distribution with the resultant satisfies every foot's conditions
        (with the pyramid friction cones).  Where it is False every other field is NaN.
    vertical_force_min, vertical_force_max : (...) ndarray or numpy.float64
        Least and largest upward component :math:`u\cdot R_kf_k` [N] of foot
        :math:`k`'s force over the admissible distributions; :math:`\mp\infty` if
        unbounded (feet that can squeeze against each other without limit).
    share_min, share_max : (...) ndarray or numpy.float64
        The same divided by the resultant's upward force :math:`u\cdot f`
        (dimensionless; NaN where that is not positive).
    wrench_min, wrench_max : (..., K, 6) ndarray
        A distribution (sole wrenches, [N m, N]) attaining each bound; NaN where the
        bound is infinite or the stance infeasible.
    """

    foot: int
    feasible: np.ndarray
    vertical_force_min: np.ndarray
    vertical_force_max: np.ndarray
    share_min: np.ndarray
    share_max: np.ndarray
    wrench_min: np.ndarray
    wrench_max: np.ndarray


#: HiGHS status codes of scipy.optimize.linprog.
_LP_OPTIMAL, _LP_INFEASIBLE, _LP_UNBOUNDED = 0, 2, 3


def _foot_inequalities(mu, vertices, inward, floor, facets):
    """Rows G, h of G w <= h for one foot's sole wrench w = (n, f).

    Compression, the inscribed friction pyramid (none if ``mu`` is None: friction without
    limit) and the support polygon, all linear in w.
    """
    angles = 2 * math.pi * np.arange(facets) / facets if mu is not None else ()
    rows = [np.array([0, 0, 0, 0, 0, -1.0])]  # -f_z <= -F_min
    bounds = [-floor]
    for angle in angles:  # cos(a) f_x + sin(a) f_y - mu cos(pi/N) f_z <= 0
        rows.append(np.array([0, 0, 0, math.cos(angle), math.sin(angle), 0]))
        rows[-1][5] = -mu * math.cos(math.pi / facets)
        bounds.append(0.0)
    for n_e, p_e in zip(inward, vertices):  # -n_e . ((-M_y, M_x) - f_z p_e) <= 0
        rows.append(np.array([-n_e[1], n_e[0], 0, 0, 0, n_e @ p_e]))
        bounds.append(0.0)
    return np.array(rows), np.array(bounds)


def load_share_range(
    T_WS,
    resultant,
    friction_coefficient,
    support_polygon,
    *,
    point=None,
    foot=0,
    up=(0.0, 0.0, 1.0),
    min_normal_force=0.0,
    cone_facets=16,
):
    r"""Range of one foot's vertical load over every admissible way to share a resultant.

    Among the distributions of :func:`foot_wrench_family` (:math:`Aw = \mathcal F_P`),
    the admissible ones satisfy, for every foot in its sole axes, :math:`f_z \ge
    F_{\min}`, the friction cone and the support polygon.  The cone is replaced by the
    inscribed pyramid of ``cone_facets`` = :math:`N` faces,

    .. math:: \cos\alpha_j f_x + \sin\alpha_j f_y \le \mu\cos(\pi/N) f_z,\qquad
              \alpha_j = 2\pi j/N,

    (its edges lie on the cone, so an admissible answer is admissible for the true cone
    too, while a tangential load between :math:`\mu\cos(\pi/N)f_z` and :math:`\mu f_z`
    can be called inadmissible: 1.9 % of :math:`\mu` at the default 16 faces; the range
    returned is that of the pyramid-admissible set, inside the true one).  The
    polygon condition :math:`n_e\cdot((-M_y, M_x) - f_z p_e) \ge 0` is linear and exact.
    The set is then a convex polyhedron, and the least and largest upward force of foot
    :math:`k`, :math:`u\cdot R_kf_k`, are two linear programs (HiGHS, through
    ``scipy.optimize.linprog``, on variables scaled by the load and by the feet's
    length scale of :func:`foot_wrench_family`).  The free moment (torsional friction) is
    not limited.

    An empty set (no admissible sharing: the resultant needs more friction than the
    feet have, or its centre of pressure lies outside the feet's support) is reported,
    not refused: ``feasible`` False and NaN bounds.  The bounds are attained on the
    boundary of the set, so a distribution that attains one may put a foot at exactly
    :math:`F_{\min}`, which the strict test :math:`F_z > F_{\min}` of
    :func:`foot_contacts` calls not compressive.

    Parameters
    ----------
    T_WS : (..., K, 4, 4) array_like
        Pose of each sole frame in the world (see :func:`foot_contacts`).
    resultant : (..., 6) array_like
        Ground wrench on the body :math:`(n_P, f)` [N m, N] about ``point``, world axes.
    friction_coefficient : array_like
        :math:`\mu \ge 0`, a scalar or per foot (..., K), as in :func:`foot_contacts`.
    support_polygon : (..., V, 2) or (..., K, V, 2) array_like
        Convex support polygons [m] in the sole planes, as in :func:`foot_contacts`.
    point : (..., 3) array_like, optional
        World point [m] of the resultant's moment; the world origin if omitted.
    foot : int
        Index :math:`k` of the foot whose load is bounded, ``0 <= foot < K`` (default 0).
    up : (3,) array_like
        Upward direction :math:`u` in world axes (normalized here; default +z).
    min_normal_force : float
        :math:`F_{\min}` [N], >= 0 (default 0): the least normal load of every foot.
    cone_facets : int
        Faces :math:`N \ge 3` of the friction pyramid (default 16).

    Returns
    -------
    LoadShareRange
        ``feasible``, the bounds ``vertical_force_min``/``vertical_force_max`` [N], the
        shares ``share_min``/``share_max`` of the resultant's upward force, and a
        distribution attaining each bound.

    Raises
    ------
    ValueError
        If an argument is invalid as in :func:`foot_contacts` or
        :func:`foot_wrench_family`, ``foot`` is outside ``0..K-1``, ``up`` is not a
        non-zero 3-vector, or ``cone_facets`` < 3.
    TypeError
        If ``foot`` or ``cone_facets`` is not an integer, or an array argument is
        ``None`` or holds ``None``.
    geomotion.ConvergenceError
        If HiGHS stops without an answer on a problem it did not find infeasible or
        unbounded.

    Notes
    -----
    **Batches**: leading axes broadcast, and the linear programs are solved one batch
    element at a time (about a millisecond each).
    """
    T = _sole_poses(T_WS)
    K = T.shape[-3]
    r = _validate.trailing_shape(resultant, "resultant", (6,))
    mu = _validate.nonnegative(friction_coefficient, "friction_coefficient")
    vertices, inward = _convex_polygon(support_polygon)
    p = _point(point)
    k = _validate.count(foot, "foot", minimum=0, maximum=K - 1, whole_floats=False)
    u = _validate.vector(up, "up", 3)
    if not np.linalg.norm(u) > 0:
        raise ValueError(f"up: expected a non-zero direction, got {u!r}")
    u = u / np.linalg.norm(u)
    floor = _noise_floor(min_normal_force)
    facets = _validate.count(cone_facets, "cone_facets", minimum=3, whole_floats=False)
    feet = _per_foot(K, T, friction_coefficient=(mu, 0), support_polygon=(vertices, 2))
    batch = _validate.batch_shape(
        {
            "T_WS, friction_coefficient, support_polygon": feet[:-1],
            "resultant": r.shape[:-1],
            "point": p.shape[:-1],
        }
    )
    A = np.broadcast_to(_resultant_map(T, p), batch + (6, 6 * K))
    L = _length_scale(T, None, batch)
    R = np.broadcast_to(T[..., :3, :3], batch + (K, 3, 3))
    mu = np.broadcast_to(mu, batch + (K,))
    vertices = np.broadcast_to(vertices, batch + (K,) + vertices.shape[-2:])
    inward = np.broadcast_to(inward, batch + (K,) + inward.shape[-2:])
    r = np.broadcast_to(r, batch + (6,))
    wrenches = {"min": np.full(batch + (K, 6), np.nan), "max": np.full(batch + (K, 6), np.nan)}
    bounds = {"min": np.full(batch, np.nan), "max": np.full(batch, np.nan)}
    feasible = np.zeros(batch, dtype=bool)
    for index in np.ndindex(*batch):
        solution = _share_extremes(
            A[index],
            r[index],
            R[index],
            u,
            k,
            mu[index],
            vertices[index],
            inward[index],
            floor,
            facets,
            float(L[index]),
        )
        if solution is None:
            continue
        feasible[index] = True
        for side in ("min", "max"):
            bounds[side][index], wrenches[side][index] = solution[side]
    upward = np.einsum("i,...i->...", u, r[..., 3:])
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = np.where(upward > 0, upward, np.nan)
    return LoadShareRange(
        foot=k,
        feasible=np.asarray(feasible)[()],
        vertical_force_min=np.asarray(bounds["min"])[()],
        vertical_force_max=np.asarray(bounds["max"])[()],
        share_min=np.asarray(bounds["min"] / denominator)[()],
        share_max=np.asarray(bounds["max"] / denominator)[()],
        wrench_min=wrenches["min"],
        wrench_max=wrenches["max"],
    )


def least_friction(
    T_WS,
    resultant,
    support_polygon,
    *,
    point=None,
    min_normal_force=0.0,
    cone_facets=16,
    rtol=1e-3,
    max_friction=1e3,
):
    r"""Least friction coefficient with which the feet can share a resultant.

    The smallest :math:`\mu` (the same for every foot) for which some distribution of
    :func:`foot_wrench_family` satisfies every foot's conditions of
    :func:`load_share_range` (compression, the inscribed friction pyramid of
    ``cone_facets`` faces, the support polygon): the friction the stance needs, found
    without assuming a friction coefficient.  Feasibility grows with :math:`\mu`, so
    it is found by bisection on linear-program feasibility (HiGHS), to ``rtol``; the
    value returned is feasible (at most ``rtol`` above the least).  With the pyramid,
    the least :math:`\mu` of the true cone is at most :math:`1/\cos(\pi/N)` times
    smaller (1.9 % at the default 16 faces).

    Where no distribution exists even with friction without limit (a foot would have to
    pull, or the resultant's centre of pressure lies beyond what the soles support), or
    only above ``max_friction``, the result is ``inf``: the stance cannot carry the
    resultant, whatever the shoes.

    Parameters
    ----------
    T_WS : (..., K, 4, 4) array_like
        Pose of each sole frame in the world (see :func:`foot_contacts`).
    resultant : (..., 6) array_like
        Ground wrench on the body :math:`(n_P, f)` [N m, N] about ``point``, world axes.
    support_polygon : (..., V, 2) or (..., K, V, 2) array_like
        Convex support polygons [m] in the sole planes, as in :func:`foot_contacts`.
    point : (..., 3) array_like, optional
        World point [m] of the resultant's moment; the world origin if omitted.
    min_normal_force : float
        :math:`F_{\min}` [N], >= 0 (default 0): the least normal load of every foot.
    cone_facets : int
        Faces :math:`N \ge 3` of the friction pyramid (default 16).
    rtol : float
        Relative width of the final bisection bracket (default 1e-3), in (0, 1).
    max_friction : float
        Largest coefficient tried (default 1000); beyond it the answer is ``inf``.

    Returns
    -------
    (...) ndarray or numpy.float64
        The least coefficient, dimensionless; ``inf`` where no coefficient up to
        ``max_friction`` lets the feet carry the resultant.

    Raises
    ------
    ValueError
        If an argument is invalid as in :func:`load_share_range`, or ``rtol`` is not in
        (0, 1), or ``max_friction`` is not positive.
    TypeError
        If ``cone_facets`` is not an integer, or an array argument is ``None`` or holds
        ``None``.
    geomotion.ConvergenceError
        If HiGHS stops without an answer on a problem it did not find infeasible.

    Notes
    -----
    **Batches**: leading axes broadcast, and each batch element takes some twenty linear
    programs (about a millisecond each).

    Examples
    --------
    Two level feet 0.3 m apart, 800 N down through their midpoint and 200 N sideways: a
    quarter of the load, so :math:`\mu = 0.25` (the pyramid's 16 faces make it 1.9 %
    more).

    >>> import numpy as np
    >>> from geomotion import contact, spatial
    >>> T_WS = np.stack([spatial.pose(np.eye(3), [0.0, y, 0.0]) for y in (0.15, -0.15)])
    >>> foot = [[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]]
    >>> mu = contact.least_friction(T_WS, [0, 0, 0, 200.0, 0, 800.0], foot)
    >>> round(float(mu * np.cos(np.pi / 16)), 3)
    0.25
    """
    T = _sole_poses(T_WS)
    K = T.shape[-3]
    r = _validate.trailing_shape(resultant, "resultant", (6,))
    vertices, inward = _convex_polygon(support_polygon)
    p = _point(point)
    floor = _noise_floor(min_normal_force)
    facets = _validate.count(cone_facets, "cone_facets", minimum=3, whole_floats=False)
    rtol = float(_validate.positive(rtol, "rtol"))
    if not rtol < 1:
        raise ValueError(f"rtol: expected a value in (0, 1), got {rtol}")
    top = float(_validate.positive(max_friction, "max_friction"))
    feet = _per_foot(K, T, support_polygon=(vertices, 2))
    batch = _validate.batch_shape(
        {"T_WS, support_polygon": feet[:-1], "resultant": r.shape[:-1], "point": p.shape[:-1]}
    )
    A = np.broadcast_to(_resultant_map(T, p), batch + (6, 6 * K))
    L = _length_scale(T, None, batch)
    vertices = np.broadcast_to(vertices, batch + (K,) + vertices.shape[-2:])
    inward = np.broadcast_to(inward, batch + (K,) + inward.shape[-2:])
    r = np.broadcast_to(r, batch + (6,))
    least = np.full(batch, np.inf)
    for index in np.ndindex(*batch):

        def admissible(mu, i=index):
            coefficients = None if mu is None else np.full(K, mu)
            program = _stance_program(
                A[i], r[i], coefficients, vertices[i], inward[i], floor, facets, float(L[i])
            )
            return _has_solution(*program[:4])

        least[index] = _bisect_friction(admissible, rtol, top)
    return np.asarray(least)[()]


def _has_solution(A_eq, b_eq, A_ub, b_ub):
    """Whether the scaled rows admit a point (a zero-objective HiGHS program)."""
    lp = optimize.linprog(
        np.zeros(A_eq.shape[1]),
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=(None, None),
        method="highs",
    )
    if lp.status == _LP_INFEASIBLE:
        return False
    if lp.status != _LP_OPTIMAL:
        raise ConvergenceError(
            f"least_friction: HiGHS stopped with status {lp.status} ({lp.message})",
            residual=np.inf,
            tolerance=0.0,
            iterations=int(getattr(lp, "nit", 0)),
            suggestion="a resultant and polygons in consistent units, or fewer cone facets",
        )
    return True


def _bisect_friction(admissible, rtol, top):
    """Least mu in (0, top] with ``admissible(mu)`` (monotone), to ``rtol``; inf if none."""
    if not admissible(None):  # not even with friction without limit
        return np.inf
    if admissible(0.0):  # no tangential load needed
        return 0.0
    high = 1.0
    while not admissible(high):
        if high >= top:
            return np.inf
        high = min(2.0 * high, top)
    low = 0.0 if high == 1.0 else high / 2.0
    while high - low > rtol * high:
        middle = 0.5 * (low + high)
        if admissible(middle):
            high = middle
        else:
            low = middle
    return high


def _stance_program(A, r, mu, vertices, inward, floor, facets, L):
    """The admissible set of one batch element as scaled linear-program rows.

    Returns (A_eq, b_eq, A_ub, b_ub, column, force_scale): the distribution is
    ``w = column * y`` for LP variables y; ``mu`` holds one coefficient per foot, or is
    None for friction without limit.
    """
    K = vertices.shape[0]
    force_scale = max(np.linalg.norm(r[3:]), np.linalg.norm(r[:3]) / L, floor)
    if force_scale == 0:
        force_scale = 1.0
    column = np.tile(np.r_[L, L, L, 1.0, 1.0, 1.0], K) * force_scale  # w = column * y
    row = np.r_[L, L, L, 1.0, 1.0, 1.0] * force_scale
    blocks, h = [], []
    for j in range(K):
        G, g = _foot_inequalities(
            None if mu is None else mu[j], vertices[j], inward[j], floor, facets
        )
        block = np.zeros((G.shape[0], 6 * K))
        block[:, 6 * j : 6 * j + 6] = G
        scale = np.where(np.any(G[:, :3] != 0, axis=1), L, 1.0) * force_scale
        blocks.append(block * column / scale[:, None])
        h.append(g / scale)
    return (
        A * column / row[:, None],
        r / row,
        np.concatenate(blocks),
        np.concatenate(h),
        column,
        force_scale,
    )


def _share_extremes(A, r, R, u, k, mu, vertices, inward, floor, facets, L):
    """The two linear programs of :func:`load_share_range` for one batch element.

    None if infeasible; else {"min": (value, w), "max": (value, w)} with value +-inf and
    w NaN when unbounded.
    """
    K = R.shape[0]
    A_eq, b_eq, A_ub, b_ub, column, force_scale = _stance_program(
        A, r, mu, vertices, inward, floor, facets, L
    )
    objective = np.zeros(6 * K)
    objective[6 * k + 3 : 6 * k + 6] = R[k].T @ u  # u . R_k f_k
    result = {}
    for side, sign in (("min", 1.0), ("max", -1.0)):
        lp = optimize.linprog(
            sign * objective * column / force_scale,
            A_ub=A_ub,
            b_ub=b_ub,
            A_eq=A_eq,
            b_eq=b_eq,
            bounds=(None, None),
            method="highs",
        )
        if lp.status == _LP_INFEASIBLE:
            return None
        if lp.status == _LP_UNBOUNDED:
            result[side] = (-sign * np.inf, np.full((K, 6), np.nan))
            continue
        if lp.status != _LP_OPTIMAL:
            raise ConvergenceError(
                f"load_share_range: HiGHS stopped with status {lp.status} ({lp.message})",
                residual=np.inf,
                tolerance=0.0,
                iterations=int(getattr(lp, "nit", 0)),
                suggestion="a resultant and polygons in consistent units, or fewer cone facets",
            )
        w = column * lp.x
        w = w + column * np.linalg.lstsq(A_eq, b_eq - A_eq @ lp.x, rcond=None)[0]
        result[side] = (float(objective @ w), w.reshape(K, 6))
    return result
