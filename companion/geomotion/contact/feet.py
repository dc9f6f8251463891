r"""Feet on the ground: each foot's wrench, centre of pressure and feasibility, the
resultant of all feet, and the family of distributions that share one resultant
(which of them are admissible: :mod:`geomotion.contact.sharing`).

Every foot :math:`k` has a *sole frame* :math:`S_k`: its origin on the sole, its
:math:`x, y` axes in the contact surface, its :math:`z` axis normal to the surface and
pointing into the foot; its pose in the world is ``T_WS[..., k, :, :]``.  A foot's
wrench is the moment-first load of the ground *on the foot*, :math:`(n, f)` [N m, N],
by default about the sole origin in sole axes (``frame="sole"``), or about the world
origin in world axes (``frame="world"``).  Support polygons are given in the sole
plane, in sole :math:`x, y` coordinates [m].

See :mod:`geomotion.contact` for the conventions.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, spatial
from .._linalg import _check_batches, _svd_with_rank
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
    checked (the exact conditions of a flat sole, the free moment's limit with them, are
    :func:`contact_wrench_cone`'s).

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
