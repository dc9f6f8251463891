r"""Sharing a resultant between planted feet: the admissible distributions as linear programs.

Among the distributions of :func:`geomotion.contact.foot_wrench_family` (every set of
foot wrenches with one resultant), the *admissible* ones keep every foot compressive,
its centre of pressure on its sole and its force inside the (inscribed pyramid of its)
friction cone: a convex polyhedron, on which :func:`load_share_range` bounds one foot's
vertical load and :func:`least_friction` finds the least friction coefficient with which
the polyhedron is not empty.  Sole frames, wrenches and polygons follow
:mod:`geomotion.contact.feet`.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .. import _validate
from ..errors import ConvergenceError
from .feet import _length_scale, _per_foot, _point, _resultant_map, _sole_poses
from .ground import _convex_polygon, _noise_floor


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


def _highs(objective, A_eq, b_eq, A_ub, b_ub, caller):
    """One scaled HiGHS program; the result, unless HiGHS stopped without an answer
    on a problem it did not find infeasible or unbounded (then ConvergenceError)."""
    lp = optimize.linprog(
        objective, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=(None, None), method="highs"
    )
    if lp.status not in (_LP_OPTIMAL, _LP_INFEASIBLE, _LP_UNBOUNDED):
        raise ConvergenceError(
            f"{caller}: HiGHS stopped with status {lp.status} ({lp.message})",
            residual=np.inf,
            tolerance=0.0,
            iterations=int(getattr(lp, "nit", 0)),
            suggestion="a resultant and polygons in consistent units, or fewer cone facets",
        )
    return lp


def _foot_inequalities(mu, vertices, inward, floor, facets):
    """Rows G (..., R, 6), h (..., R) of G w <= h for sole wrenches w = (n, f).

    Compression, the inscribed friction pyramid (none if ``mu`` is None: friction without
    limit) and the support polygon, all linear in w, in that order (1 + N + V rows, see
    :func:`_row_family`).  Leading axes of ``mu`` (...) and of ``vertices``, ``inward``
    (..., V, 2) broadcast.
    """
    batch = np.broadcast_shapes(np.shape(mu) if mu is not None else (), vertices.shape[:-2])
    compression = np.broadcast_to(np.array([0, 0, 0, 0, 0, -1.0]), batch + (1, 6))
    blocks, bounds = [compression], [np.full(batch + (1,), -floor)]  # -f_z <= -F_min
    if mu is not None:  # cos(a) f_x + sin(a) f_y - mu cos(pi/N) f_z <= 0
        angles = 2 * math.pi * np.arange(facets) / facets
        friction = np.zeros(batch + (facets, 6))
        friction[..., 3], friction[..., 4] = np.cos(angles), np.sin(angles)
        friction[..., 5] = -np.asarray(mu)[..., None] * math.cos(math.pi / facets)
        blocks.append(friction)
        bounds.append(np.zeros(batch + (facets,)))
    # -n_e . ((-M_y, M_x) - f_z p_e) <= 0
    support = np.zeros(batch + vertices.shape[-2:-1] + (6,))
    support[..., 0], support[..., 1] = -inward[..., 1], inward[..., 0]
    support[..., 5] = np.einsum("...j,...j->...", inward, vertices)
    blocks.append(support)
    bounds.append(np.zeros(support.shape[:-1]))
    return np.concatenate(blocks, axis=-2), np.concatenate(bounds, axis=-1)


def _row_family(row, facets):
    """Which condition row ``row`` of :func:`_foot_inequalities` (with friction rows) is:
    ``("normal", 0)``, ``("friction", facet j)`` or ``("support", edge e)``."""
    if row == 0:
        return "normal", 0
    if row <= facets:
        return "friction", row - 1
    return "support", row - 1 - facets


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
    lp = _highs(np.zeros(A_eq.shape[1]), A_eq, b_eq, A_ub, b_ub, "least_friction")
    return lp.status != _LP_INFEASIBLE


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
        lp = _highs(
            sign * objective * column / force_scale, A_eq, b_eq, A_ub, b_ub, "load_share_range"
        )
        if lp.status == _LP_INFEASIBLE:
            return None
        if lp.status == _LP_UNBOUNDED:
            result[side] = (-sign * np.inf, np.full((K, 6), np.nan))
            continue
        w = column * lp.x
        w = w + column * np.linalg.lstsq(A_eq, b_eq - A_eq @ lp.x, rcond=None)[0]
        result[side] = (float(objective @ w), w.reshape(K, 6))
    return result
