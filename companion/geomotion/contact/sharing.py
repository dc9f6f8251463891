r"""Sharing a resultant between planted feet: the admissible distributions as linear programs.

Among the distributions of :func:`geomotion.contact.foot_wrench_family` (every set of
foot wrenches with one resultant), the *admissible* ones keep every foot's wrench in its
contact-wrench cone (:func:`geomotion.contact.contact_wrench_cone`: forces at the sole's
vertices, each in the friction pyramid inscribed in the Coulomb cone) and its normal load
at least :math:`F_{\min}`: a convex polyhedron, on which :func:`load_share_range` bounds
one foot's vertical load, :func:`least_friction` finds the least friction coefficient with
which the polyhedron is not empty and :func:`least_violation` measures by how much it is
empty.  Sole frames, wrenches and polygons follow :mod:`geomotion.contact.feet`.
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .. import _validate
from ..errors import ConvergenceError
from .feet import _length_scale, _per_foot, _point, _resultant_map, _sole_poses
from .ground import _convex_polygon, _noise_floor
from .wrench_cone import _foot_rows, _pyramid, _vertex_map


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
    the admissible ones keep, for every foot in its sole axes, :math:`f_z \ge F_{\min}`
    and the sole wrench in its contact-wrench cone :math:`H_kw_k \le 0`
    (:func:`contact_wrench_cone`: the sums of forces at the sole's vertices, each in the
    pyramid of ``cone_facets`` = :math:`N` faces inscribed in the Coulomb cone,
    :math:`\cos\alpha_j\varphi_x + \sin\alpha_j\varphi_y \le \mu\cos(\pi/N)\varphi_z`,
    :math:`\alpha_j = 2\pi j/N`).  Its rows are the pyramid on the foot's force, the
    centre of pressure in the polygon, :math:`n_e\cdot((-M_y, M_x) - f_z p_e) \ge 0`, and
    the bounds on the free moment that the two leave (torsion).  The pyramid's edges lie on
    the Coulomb cone, so an admissible answer is admissible for the true cone too, while a
    tangential load between :math:`\mu\cos(\pi/N)f_z` and :math:`\mu f_z` can be called
    inadmissible (1.9 % of :math:`\mu` at the default 16 faces; the range returned is that
    of the pyramid-admissible set, inside the true one).  The set is a convex polyhedron,
    and the least and largest upward force of foot :math:`k`, :math:`u\cdot R_kf_k`, are
    two linear programs (HiGHS, through ``scipy.optimize.linprog``) whose unknowns are the
    forces at every sole's vertices, each in the pyramid, scaled by the load: the cone's
    definition, exact for any number of faces (the cone's face form, used by
    :func:`contact_inverse_dynamics` and :func:`least_violation`, grows with :math:`N^2`).
    A distribution attaining a bound is checked against the resultant and the pyramid
    rows before it is returned.

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


@dataclass(frozen=True)
class LeastFriction:
    r"""Result of :func:`least_friction`, read by name (it does not unpack).

    Attributes
    ----------
    friction_coefficient : (...) ndarray or numpy.float64
        The least coefficient found with which a distribution is admissible,
        dimensionless: at most ``rtol`` times itself above the least; 0 where no
        tangential load or free moment is needed, ``inf`` where no coefficient up to
        ``max_friction`` is enough.
    infeasible_coefficient : (...) ndarray or numpy.float64
        The largest coefficient found with which no distribution is admissible (the
        bisection's lower end), at least ``(1 - rtol) * friction_coefficient``;
        ``max_friction`` where that is not enough, NaN where the least is 0 or where no
        distribution exists even with friction without limit.
    wrench : (..., K, 6) ndarray
        A distribution admissible at ``friction_coefficient``: sole wrenches about the
        sole origins in sole axes [N m, N], checked against the resultant and every
        foot's rows before they are returned; NaN where the coefficient is ``inf``.
    """

    friction_coefficient: np.ndarray
    infeasible_coefficient: np.ndarray
    wrench: np.ndarray


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
    :func:`load_share_range`: :math:`f_z \ge F_{\min}` and the sole wrench in its
    contact-wrench cone (:func:`contact_wrench_cone`), which limits the tangential force
    and the free moment together.  It is the friction the stance needs, found without
    assuming a friction coefficient.  The cone grows with :math:`\mu` (its generators are
    forces at the vertices in a pyramid that grows with :math:`\mu`), so feasibility is
    monotone and the least is found by bisection on linear-program feasibility (HiGHS,
    over the forces at the soles' vertices, as :func:`load_share_range`), to ``rtol``:
    the answer is certified by a distribution admissible at it (``wrench``, checked) and
    by HiGHS's verdict of infeasibility at ``infeasible_coefficient``, at most ``rtol``
    times the answer below it.  It is not one linear program: the pyramid's rows
    :math:`\mu\cos(\pi/N)\varphi_z` are bilinear in :math:`\mu` and the vertex forces
    :math:`\varphi`.  With the pyramid, the least
    :math:`\mu` of the true cone is at most :math:`1/\cos(\pi/N)` times smaller (1.9 % at
    the default 16 faces).

    Where no distribution exists even with friction without limit (a foot would have to
    pull, or the resultant's centre of pressure lies beyond what the soles support), or
    only above ``max_friction``, the coefficient is ``inf``: the stance cannot carry the
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
    LeastFriction
        ``friction_coefficient`` (...), ``infeasible_coefficient`` (...) and an
        admissible distribution ``wrench`` (..., K, 6).

    Raises
    ------
    ValueError
        If an argument is invalid as in :func:`load_share_range`, or ``rtol`` is not in
        (0, 1), or ``max_friction`` is not positive.
    TypeError
        If ``cone_facets`` is not an integer, or an array argument is ``None`` or holds
        ``None``.
    geomotion.ConvergenceError
        If HiGHS stops without an answer on a problem it did not find infeasible, or its
        admissible distribution fails the check.

    Notes
    -----
    **Batches**: leading axes broadcast, and each batch element takes some twenty linear
    programs (a few milliseconds each).

    Examples
    --------
    Two level feet 0.3 m apart, 800 N down through their midpoint and 200 N sideways: a
    quarter of the load, so :math:`\mu = 0.25` (the pyramid's 16 faces make it 1.9 %
    more).

    >>> import numpy as np
    >>> from geomotion import contact, spatial
    >>> T_WS = np.stack([spatial.pose(np.eye(3), [0.0, y, 0.0]) for y in (0.15, -0.15)])
    >>> foot = [[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]]
    >>> least = contact.least_friction(T_WS, [0, 0, 0, 200.0, 0, 800.0], foot)
    >>> round(float(least.friction_coefficient * np.cos(np.pi / 16)), 3)
    0.25
    >>> bool(least.infeasible_coefficient < least.friction_coefficient)
    True
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
    least, below = np.full(batch, np.inf), np.full(batch, np.nan)
    wrench = np.full(batch + (K, 6), np.nan)
    for index in np.ndindex(*batch):

        def admissible(mu, i=index):
            """A checked admissible distribution at mu (None: no limit), or None."""
            coefficients = None if mu is None else np.full(K, mu)
            stance = _Stance(
                A[i],
                r[i],
                coefficients,
                vertices[i],
                inward[i],
                floor,
                facets,
                float(L[i]),
                faces=False,
            )
            A_ub, b_ub = stance.inequalities(stance.L)
            lp = _highs(
                np.zeros(A_ub.shape[1]), stance.A_eq, stance.b_eq, A_ub, b_ub, "least_friction"
            )
            return None if lp.status == _LP_INFEASIBLE else stance.checked(lp.x, "least_friction")

        least[index], below[index], wrench[index] = _bisect_friction(admissible, rtol, top, K)
    return LeastFriction(
        friction_coefficient=np.asarray(least)[()],
        infeasible_coefficient=np.asarray(below)[()],
        wrench=wrench,
    )


def _bisect_friction(admissible, rtol, top, K):
    """Least mu in [0, top] with ``admissible(mu)`` (monotone), to ``rtol``: (mu, the largest
    mu found inadmissible, the distribution at mu); (inf, top or NaN, NaN) if none."""
    nothing = np.full((K, 6), np.nan)
    if admissible(None) is None:  # not even with friction without limit
        return np.inf, np.nan, nothing
    found = admissible(0.0)
    if found is not None:  # no tangential load needed
        return 0.0, np.nan, found
    low, high = 0.0, min(1.0, top)
    found = admissible(high)
    while found is None:
        if high >= top:
            return np.inf, top, nothing
        low, high = high, min(2.0 * high, top)
        found = admissible(high)
    while high - low > rtol * high:
        middle = 0.5 * (low + high)
        at_middle = admissible(middle)
        if at_middle is None:
            low = middle
        else:
            high, found = middle, at_middle
    return high, low, found


def least_violation(
    T_WS,
    resultant,
    friction_coefficient,
    support_polygon,
    *,
    point=None,
    min_normal_force=0.0,
    cone_facets=16,
    length_scale=None,
):
    r"""By how much the feet fail to share a resultant: the least largest violation of
    their conditions over every distribution.

    .. math:: t = \min_{w:\ Aw = \mathcal F_P}\ \max_{k,\,r}\ \frac{(G_kw_k - h_k)_r}{s_{kr}}

    over the distributions of :func:`foot_wrench_family`, with :math:`G_kw_k \le h_k`
    foot :math:`k`'s rows of :func:`load_share_range`: compression :math:`-f_z \le
    -F_{\min}` and the faces of its contact-wrench cone (:func:`contact_wrench_cone`:
    the friction pyramid's faces in N, the support edges and the torsion faces in N m,
    each torsion face of unit length with moments about the polygon's centre over its
    RMS radius), and
    :math:`s_{kr}` = ``length_scale`` :math:`\ell_k` for the rows that are moments, 1
    for the others, so that :math:`t` is in N.  A linear program (HiGHS) per batch
    element: :math:`t > 0` where no admissible distribution exists (the shortfall of the
    worst row at the best distribution), :math:`t \le 0` where one does, its magnitude
    the margin by which the worst row is kept.  It is the phase-1 program of
    :func:`contact_inverse_dynamics`'s diagnosis, taken on the resultant alone; with the
    same :math:`\ell_k` they agree on which resultants the feet can carry.

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
    min_normal_force : float
        :math:`F_{\min}` [N], >= 0 (default 0).
    cone_facets : int
        Faces :math:`N \ge 3` of the friction pyramid (default 16).
    length_scale : array_like, optional
        :math:`\ell_k > 0` [m], a scalar or per foot (..., K); default each polygon's RMS
        distance of its vertices from their mean (as :func:`contact_inverse_dynamics`).

    Returns
    -------
    (...) ndarray or numpy.float64
        :math:`t` [N].

    Raises
    ------
    ValueError
        If an argument is invalid as in :func:`load_share_range`, or ``length_scale`` is
        not positive or does not broadcast.
    TypeError
        If ``cone_facets`` is not an integer, or an array argument is ``None`` or holds
        ``None``.
    geomotion.ConvergenceError
        If HiGHS stops without an answer, or its answer fails the check.

    Notes
    -----
    **Batches**: leading axes broadcast; one linear program per batch element (a few
    milliseconds).

    Examples
    --------
    Two level feet 0.3 m apart carry 800 N through their midpoint with a margin; a
    resultant whose centre of pressure is 0.3 m ahead of the toes is refused:

    >>> import numpy as np
    >>> from geomotion import contact, spatial
    >>> T_WS = np.stack([spatial.pose(np.eye(3), [0.0, y, 0.0]) for y in (0.15, -0.15)])
    >>> foot = [[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]]
    >>> t = contact.least_violation(T_WS, [[0, 0, 0, 0, 0, 800.0], [0, -340, 0, 0, 0, 800]],
    ...                             0.8, foot)
    >>> bool(t[0] < 0 < t[1])
    True
    """
    T = _sole_poses(T_WS)
    K = T.shape[-3]
    r = _validate.trailing_shape(resultant, "resultant", (6,))
    mu = _validate.nonnegative(friction_coefficient, "friction_coefficient")
    vertices, inward = _convex_polygon(support_polygon)
    p = _point(point)
    floor = _noise_floor(min_normal_force)
    facets = _validate.count(cone_facets, "cone_facets", minimum=3, whole_floats=False)
    if length_scale is None:
        centred = vertices - vertices.mean(axis=-2, keepdims=True)
        ell = np.sqrt(np.mean(np.sum(centred**2, axis=-1), axis=-1))
    else:
        ell = _validate.positive(length_scale, "length_scale")
    feet = _per_foot(
        K,
        T,
        friction_coefficient=(mu, 0),
        support_polygon=(vertices, 2),
        length_scale=(ell, 0),
    )
    batch = _validate.batch_shape(
        {
            "T_WS, friction_coefficient, support_polygon, length_scale": feet[:-1],
            "resultant": r.shape[:-1],
            "point": p.shape[:-1],
        }
    )
    A = np.broadcast_to(_resultant_map(T, p), batch + (6, 6 * K))
    L = _length_scale(T, None, batch)
    mu = np.broadcast_to(mu, batch + (K,))
    ell = np.broadcast_to(ell, batch + (K,))
    vertices = np.broadcast_to(vertices, batch + (K,) + vertices.shape[-2:])
    inward = np.broadcast_to(inward, batch + (K,) + inward.shape[-2:])
    r = np.broadcast_to(r, batch + (6,))
    out = np.empty(batch)
    for index in np.ndindex(*batch):
        stance = _Stance(
            A[index],
            r[index],
            mu[index],
            vertices[index],
            inward[index],
            floor,
            facets,
            float(L[index]),
            faces=True,
        )
        G, h = stance.inequalities(ell[index][stance.foot])  # rows in N / force_scale
        rows = G.shape[0]
        lp = _highs(
            np.r_[np.zeros(6 * K), 1.0],
            np.hstack([stance.A_eq, np.zeros((6, 1))]),
            stance.b_eq,
            np.hstack([G, -np.ones((rows, 1))]),
            h,
            "least_violation",
        )
        if lp.status != _LP_OPTIMAL:
            raise ConvergenceError(
                f"least_violation: the linear program stopped at batch element {index} "
                f"({lp.message})",
                residual=np.inf,
                tolerance=0.0,
                iterations=int(getattr(lp, "nit", 0)),
                suggestion="a resultant and polygons in consistent units",
            )
        y = stance.corrected(lp.x[:-1], "least_violation")
        t = float(np.max(G @ y - h))  # the worst row of the corrected distribution
        if not abs(t - lp.x[-1]) <= 1e-6 * max(1.0, abs(t)):
            raise _check_error("least_violation", f"its worst row {t:.6g} is not its t", t)
        out[index] = t * stance.force_scale
    return np.asarray(out)[()]


class _Stance:
    """The admissible set of one batch element as scaled linear-program rows.

    ``faces``: the unknowns are the sole wrenches, ``w = M y``, M = diag(L, L, L, 1, 1, 1)
    times ``force_scale`` per foot, with the rows of :func:`_foot_rows` (compression, the
    contact-wrench cone's faces); otherwise the unknowns are the forces at every sole
    vertex (the cone's definition, exact for any number of pyramid faces), ``phi = M y``,
    M = ``force_scale``, with each vertex force in the pyramid and ``phi_z >= 0``, and each
    foot's normal load at least the floor; the wrenches are ``w = B phi``
    (:func:`_vertex_map`).  ``mu`` None: friction without limit (no friction or torsion
    rows).  ``A_eq y = b_eq`` is the resultant over (L, 1) times ``force_scale``; ``G`` and
    ``h`` the rows on the physical unknowns, ``foot`` each row's foot and ``moment``
    whether it is a moment.
    """

    def __init__(self, A, r, mu, vertices, inward, floor, facets, L, *, faces):
        K, V = vertices.shape[:2]
        force_scale = max(np.linalg.norm(r[3:]), np.linalg.norm(r[:3]) / L, floor)
        self.force_scale = force_scale if force_scale > 0 else 1.0
        self.L = L
        row = np.r_[L, L, L, 1.0, 1.0, 1.0] * self.force_scale
        blocks, h, foot = [], [], []
        if faces:
            self.M = np.diag(np.tile(np.r_[L, L, L, 1.0, 1.0, 1.0], K) * self.force_scale)
            self.to_wrench = np.eye(6 * K)
            for j in range(K):
                G, g, _, _ = _foot_rows(
                    None if mu is None else mu[j], vertices[j], inward[j], floor, facets
                )
                blocks.append(np.kron(np.eye(K)[j], G))
                h.append(g)
                foot.append(np.full(G.shape[0], j))
        else:
            self.M = np.eye(3 * V * K) * self.force_scale
            self.to_wrench = np.zeros((6 * K, 3 * V * K))
            for j in range(K):
                self.to_wrench[6 * j : 6 * j + 6, 3 * V * j : 3 * V * (j + 1)] = _vertex_map(
                    vertices[j]
                )
                pyramid = _pyramid(None if mu is None else mu[j], facets)
                rows = np.kron(np.eye(V), pyramid)  # each vertex force in the pyramid
                load = np.tile([0.0, 0.0, -1.0], V)[None]  # the foot's normal load
                blocks.append(np.kron(np.eye(K)[j], np.concatenate([rows, load])))
                h.append(np.r_[np.zeros(len(rows)), -floor])
                foot.append(np.full(len(rows) + 1, j))
        self.A_eq = A @ self.to_wrench @ self.M / row[:, None]
        self.b_eq = r / row
        self.G, self.h, self.foot = np.concatenate(blocks), np.concatenate(h), np.concatenate(foot)
        moments = (self.G.reshape(len(self.G), K, -1)[..., :3] != 0).any(axis=(1, 2))
        self.moment = moments if faces else np.zeros(len(self.G), dtype=bool)

    def inequalities(self, length):
        """(A_ub, b_ub) on y: every row over ``force_scale`` and, if a moment, over
        ``length`` (a scalar or per row), so that a row is a force in units of the load."""
        scale = np.where(self.moment, length, 1.0) * self.force_scale
        return self.G @ self.M / scale[:, None], self.h / scale

    def corrected(self, y, caller):
        """y moved onto the equalities (least squares), checked there to rounding."""
        y = y + np.linalg.lstsq(self.A_eq, self.b_eq - self.A_eq @ y, rcond=None)[0]
        residual = float(np.abs(self.A_eq @ y - self.b_eq).max())
        if not residual <= 1e-9:
            raise _check_error(caller, f"its resultant misses by {residual:.3g}", residual)
        return y

    def checked(self, y, caller):
        """The sole wrenches (K, 6) of y, checked: the resultant to rounding, every row to
        HiGHS's tolerance (1e-6 of the load, moments over L)."""
        y = self.corrected(y, caller)
        A_ub, b_ub = self.inequalities(self.L)
        worst = float(np.max(A_ub @ y - b_ub))
        if not worst <= 1e-6:
            raise _check_error(caller, f"a foot's row is violated by {worst:.3g}", worst)
        return (self.to_wrench @ self.M @ y).reshape(-1, 6)


def _check_error(caller, what, residual):
    return ConvergenceError(
        f"{caller}: HiGHS's answer fails its check: {what}",
        residual=residual,
        tolerance=1e-6,
        iterations=0,
        suggestion="a resultant and polygons in consistent units",
    )


def _share_extremes(A, r, R, u, k, mu, vertices, inward, floor, facets, L):
    """The two linear programs of :func:`load_share_range` for one batch element.

    None if infeasible; else {"min": (value, w), "max": (value, w)} with value +-inf and
    w NaN when unbounded.
    """
    K = R.shape[0]
    stance = _Stance(A, r, mu, vertices, inward, floor, facets, L, faces=False)
    A_ub, b_ub = stance.inequalities(L)
    objective = np.zeros(6 * K)
    objective[6 * k + 3 : 6 * k + 6] = R[k].T @ u  # u . R_k f_k
    result = {}
    for side, sign in (("min", 1.0), ("max", -1.0)):
        lp = _highs(
            sign * objective @ stance.to_wrench @ stance.M / stance.force_scale,
            stance.A_eq,
            stance.b_eq,
            A_ub,
            b_ub,
            "load_share_range",
        )
        if lp.status == _LP_INFEASIBLE:
            return None
        if lp.status == _LP_UNBOUNDED:
            result[side] = (-sign * np.inf, np.full((K, 6), np.nan))
            continue
        w = stance.checked(lp.x, "load_share_range")
        result[side] = (float(objective @ w.reshape(-1)), w)
    return result
