r"""The contact-wrench cone of a flat sole: every wrench a convex polygon of contact can
transmit with Coulomb friction, as linear inequalities.

A flat sole touches the ground over a convex polygon with vertices :math:`p_v` (sole
:math:`x, y` [m], the sole plane :math:`z = 0`), and at every point of contact the force
lies in the friction pyramid of :math:`N` faces inscribed in the Coulomb cone,

.. math:: F_\mu = \{\varphi : \cos\alpha_j\varphi_x + \sin\alpha_j\varphi_y \le
          \mu\cos(\pi/N)\,\varphi_z,\ j = 0, \dots, N - 1\},\qquad \alpha_j = 2\pi j/N.

A force :math:`\varphi` at a point :math:`x = \sum_v\lambda_vp_v` of the polygon (a convex
combination) has the wrench of the forces :math:`\lambda_v\varphi \in F_\mu` at the
vertices, so the wrenches the sole can transmit (moment-first, about the sole origin, in
sole axes) are exactly the sums of vertex forces in the pyramid (Caron, Pham and Nakamura
2015, "Stability of surface contacts for humanoid robots: closed-form formulae of the
contact wrench cone for rectangular support areas", ICRA):

.. math:: \mathcal C = \Big\{\sum_v (p_v\times\varphi_v,\ \varphi_v) :
          \varphi_v \in F_\mu\Big\}
          = \operatorname{cone}\{g_{vj} = (p_v\times d_j,\ d_j)\},\qquad
          d_j = (\mu\cos\beta_j, \mu\sin\beta_j, 1),\ \beta_j = \alpha_j + \pi/N,

with :math:`d_j` the pyramid's edges (on the Coulomb cone).  This is exact for a rigid
flat sole with pointwise Coulomb friction linearised by the pyramid; the pyramid's edges
lie on the Coulomb cone, so an admissible wrench is admissible for the true cone too.

Its face form :math:`Hw \le 0` (:func:`contact_wrench_cone`) is computed once per polygon
and number of faces: the generators at :math:`\mu = 1`, divided by :math:`f_z = 1`, are
:math:`VN` points in :math:`\mathbb R^5` whose convex hull (qhull, through
``scipy.spatial.ConvexHull``) has the cone's faces as facets; each facet is refitted as
the null vector of the generators on it and checked.  Since the generators at
:math:`\mu` are :math:`D_\mu g_{vj}` with :math:`D_\mu = \mathrm{diag}(1, 1, \mu, \mu,
\mu, 1)`, a face :math:`h` at :math:`\mu = 1` is :math:`(\mu h_0, \mu h_1, h_2, h_3, h_4,
\mu h_5)` at :math:`\mu`: linear in :math:`\mu`, and at :math:`\mu = 0` the limit, the
cone of normal forces at the vertices.  The faces fall in three families: the
pyramid's :math:`N` faces on the resultant force (``"friction"``), the polygon's edges
on the centre of pressure (``"support"``) and the rest, each of which bounds the moment
:math:`n_z` about the normal above or below (``"torsion"``; Caron et al.'s yaw bounds:
8 for a rectangle and 4 faces, 464 for a rectangle and 16).  The number of faces grows
with :math:`N^2` (11 000 for a rectangle and 64 faces); the linear programs that only ask
whether, or how far, a cone holds a wrench (:func:`geomotion.contact.load_share_range`,
:func:`geomotion.contact.least_friction`) use the definition instead, the forces at the
vertices as unknowns, exact for any :math:`N`.  Sole frames, wrenches and polygons follow
:mod:`geomotion.contact.feet`.
"""

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from .. import _validate
from ..errors import ConvergenceError
from .ground import _convex_polygon

#: Families of a foot's condition rows (:func:`_foot_rows`), by their code 0-3; padding
#: rows (when feet have different numbers of faces) have code -1.
FAMILIES = ("normal", "friction", "support", "torsion")

#: Relative distance below which a generator lies on a face (points of size about 1).
_ON_FACE = 1e-9


@dataclass(frozen=True)
class ContactWrenchCone:
    r"""Result of :func:`contact_wrench_cone`, read by name (it does not unpack).

    Attributes
    ----------
    face : (R, 6) ndarray
        The cone's faces :math:`H`: a sole wrench :math:`w = (n, f)` [N m, N] (about the
        sole origin, sole axes) is admissible if and only if :math:`Hw \le 0`.  Friction
        rows :math:`(0, 0, 0, \cos\alpha_j, \sin\alpha_j, -\mu\cos(\pi/N))`
        (dimensionless; the row is in N), support rows :math:`(-n_{e,y}, n_{e,x}, 0, 0,
        0, n_e\cdot p_e)` (inward unit normal :math:`n_e` of edge :math:`e` from vertex
        :math:`p_e`; a moment, N m) and torsion rows (a moment, N m) of unit length in
        the coordinates :math:`(n_c/\ell, f)`, with :math:`n_c = n - c\times f` the
        moment about the vertices' mean :math:`c` and :math:`\ell` their RMS distance from
        it (the polygon's own scale, whatever the sole origin): a torsion row over
        :math:`\ell` is the distance [N] of a wrench from the face's plane in those
        coordinates.  A support row over :math:`\ell` has length
        :math:`\sqrt{1 + d_e^2/\ell^2}` there, :math:`d_e` the edge's distance from
        :math:`c` (1.06 and 1.37 for the golfer's sole).  A positive :math:`n_z`
        coefficient makes a torsion row an upper bound on :math:`n_z`.
    family : tuple of str
        Each row's family: ``"friction"``, ``"support"`` or ``"torsion"``.
    edge : (R,) ndarray of int
        Each row's index in its family: the pyramid face :math:`j`, the polygon edge
        :math:`e` (vertex :math:`e` to :math:`e + 1`), or the torsion face (upper bounds
        first).
    generators : (V N, 6) ndarray
        :math:`g_{vj} = (p_v\times d_j, d_j)` [N m, N per N of normal force]: the unit
        normal force at vertex :math:`v` along pyramid edge :math:`j` (row :math:`vN + j`);
        the cone is their non-negative combinations.
    friction_coefficient : float
        :math:`\mu`, dimensionless.
    cone_facets : int
        :math:`N`.
    support_polygon : (V, 2) ndarray
        The polygon's vertices [m], sole :math:`x, y`.
    """

    face: np.ndarray
    family: tuple
    edge: np.ndarray
    generators: np.ndarray
    friction_coefficient: float
    cone_facets: int
    support_polygon: np.ndarray


def contact_wrench_cone(support_polygon, friction_coefficient, *, cone_facets=16):
    r"""The exact contact-wrench cone of a convex sole polygon, in face form.

    Every sole wrench :math:`w = (n, f)` that forces at the polygon's vertices, each in the
    inscribed friction pyramid of ``cone_facets`` faces, can sum to (module notes):
    :math:`w` is admissible if and only if :math:`Hw \le 0` (``face``).  The rows include
    the friction pyramid on the resultant force and the centre of pressure in the polygon;
    the torsion rows bound the moment about the normal as a function of the rest of the
    wrench, so that the cone is the whole condition (compression :math:`f_z \ge 0`
    follows from it).  With :math:`\mu = 0` the cone is that of normal forces only
    (:math:`f_x = f_y = n_z = 0`).

    Parameters
    ----------
    support_polygon : (V, 2) array_like
        One convex polygon [m] in the sole plane (sole :math:`x, y`), V >= 3 vertices in
        either orientation, as in :func:`foot_contacts`.
    friction_coefficient : float
        Coulomb coefficient :math:`\mu \ge 0` (dimensionless).
    cone_facets : int
        Faces :math:`N \ge 3` of the friction pyramid (default 16).

    Returns
    -------
    ContactWrenchCone
        The faces, their families and indices, and the generators.

    Raises
    ------
    ValueError
        If ``support_polygon`` is not one (V, 2) convex polygon of non-zero area without
        repeated vertices, ``friction_coefficient`` is negative, not finite or not a
        scalar, or ``cone_facets`` < 3.
    TypeError
        If ``cone_facets`` is not an integer, or an argument is ``None``.
    geomotion.ConvergenceError
        If qhull fails on the generators or its facets fail their check.

    Notes
    -----
    **Batches**: none; one polygon and one coefficient per call (the faces of a polygon
    are computed once and kept, and scale with :math:`\mu`).

    Examples
    --------
    A 25 cm by 10 cm sole with a four-face pyramid has Caron et al.'s 16 faces; all its
    load at a corner with a free moment is not admissible, though the moment is well
    within :math:`\mu R f_z`:

    >>> import numpy as np
    >>> from geomotion import contact
    >>> foot = [[-0.125, -0.05], [0.125, -0.05], [0.125, 0.05], [-0.125, 0.05]]
    >>> cone = contact.contact_wrench_cone(foot, 0.8, cone_facets=4)
    >>> [cone.family.count(name) for name in ("friction", "support", "torsion")]
    [4, 4, 8]
    >>> at_corner = np.array([0.05 * 400, -0.125 * 400, 1.0, 0, 0, 400.0])
    >>> bool(np.all(cone.face @ at_corner <= 0))
    False
    >>> bool(np.all(cone.face @ (at_corner * [1, 1, 0, 1, 1, 1]) <= 0))
    True
    """
    vertices, inward = _convex_polygon(support_polygon)
    if vertices.ndim != 2:
        raise ValueError(
            f"support_polygon: expected one polygon of shape (V, 2), got shape {vertices.shape}"
        )
    mu = _validate.nonnegative(friction_coefficient, "friction_coefficient")
    if mu.ndim:
        raise ValueError(f"friction_coefficient: expected a scalar, got shape {mu.shape}")
    facets = _validate.count(cone_facets, "cone_facets", minimum=3, whole_floats=False)
    G, _, family, edge = _foot_rows(float(mu), vertices, inward, 0.0, facets)
    face = np.array(G[1:])  # without the compression row, which the cone implies
    face.flags.writeable = False
    generators = _generators(vertices, float(mu), facets)
    generators.flags.writeable = False
    edge = np.array(edge[1:])
    edge.flags.writeable = False
    polygon = np.array(vertices)
    polygon.flags.writeable = False
    return ContactWrenchCone(
        face=face,
        family=tuple(FAMILIES[code] for code in family[1:]),
        edge=edge,
        generators=generators,
        friction_coefficient=float(mu),
        cone_facets=facets,
        support_polygon=polygon,
    )


def _generators(vertices, mu, facets):
    """(V N, 6) wrenches of the unit-normal forces along the pyramid's edges at the
    vertices: row v N + j is (p_v x d_j, d_j), d_j = (mu cos b_j, mu sin b_j, 1)."""
    beta = 2 * math.pi * (np.arange(facets) + 0.5) / facets
    d = np.stack([mu * np.cos(beta), mu * np.sin(beta), np.ones(facets)], axis=-1)
    p = np.concatenate([vertices, np.zeros(vertices.shape[:-1] + (1,))], axis=-1)
    moments = np.cross(p[:, None, :], d[None, :, :])
    return np.concatenate([moments, np.broadcast_to(d, moments.shape)], axis=-1).reshape(-1, 6)


def _vertex_map(vertices):
    """(6, 3 V) map from the forces phi_v at the (V, 2) vertices, stacked, to their wrench
    about the sole origin: sum_v (p_v x phi_v, phi_v)."""
    V = vertices.shape[0]
    B = np.zeros((6, 3 * V))
    for v, (x, y) in enumerate(vertices):
        B[:, 3 * v : 3 * v + 3] = [
            [0, 0, y],
            [0, 0, -x],
            [-y, x, 0],
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
        ]
    return B


def _pyramid(mu, facets):
    """Rows (N + 1, 3) of a force in the friction pyramid, F phi <= 0: the N faces and
    -phi_z <= 0 (which the faces imply unless mu = 0); only the latter if mu is None."""
    rows = [[0.0, 0.0, -1.0]]
    if mu is not None:
        angles = 2 * math.pi * np.arange(facets) / facets
        face = np.stack(
            [np.cos(angles), np.sin(angles), np.full(facets, -mu * math.cos(math.pi / facets))], -1
        )
        rows = np.concatenate([face, rows])
    return np.asarray(rows, dtype=float)


def _foot_rows(mu, vertices, inward, floor, facets):
    r"""Rows :math:`Gw \le h` of every foot's conditions on its sole wrench :math:`w`.

    In order: compression :math:`-f_z \le -F_{\min}`; the :math:`N` friction faces; the
    :math:`V` support edges; the torsion faces of the contact-wrench cone, each of unit
    length in the coordinates :math:`(n_c/\ell, f)` (:math:`n_c` the moment about the
    vertices' mean :math:`c`, :math:`\ell` their RMS distance from it; fewer for a
    polygon with fewer faces than the batch's largest count: the rest are padding rows
    :math:`0 \le 0`).  With ``mu`` None
    (friction without limit) only compression and support: the closure of the cone as
    :math:`\mu\to\infty`.

    Parameters: ``mu`` (...) or None, ``vertices`` and ``inward`` (..., V, 2) (as from
    ``_convex_polygon``), broadcasting.  Returns G (..., R, 6), h (..., R), and each row's
    family code (index into ``FAMILIES``, -1 padding) and index in its family, (..., R).
    """
    V = vertices.shape[-2]
    batch = np.broadcast_shapes(() if mu is None else np.shape(mu), vertices.shape[:-2])
    n = math.prod(batch)
    P = np.broadcast_to(vertices, batch + (V, 2)).reshape(n, V, 2)
    inward = np.broadcast_to(inward, batch + (V, 2)).reshape(n, V, 2)
    N = 0 if mu is None else facets
    if mu is None:
        torsion, which = [np.zeros((0, 2, 6))], np.zeros(n, dtype=int)
    else:
        m = np.broadcast_to(np.asarray(mu, dtype=float), batch).reshape(n)
        distinct, which = np.unique(P.reshape(n, 2 * V), axis=0, return_inverse=True)
        torsion = [_torsion_faces(d.tobytes(), V, facets) for d in distinct]
        which = which.reshape(n)
    T = max(len(t) for t in torsion)
    R = 1 + N + V + T
    G, h = np.zeros((n, R, 6)), np.zeros((n, R))
    family, edge = np.full((n, R), -1, dtype=int), np.zeros((n, R), dtype=int)
    G[:, 0, 5], h[:, 0], family[:, 0] = -1.0, -floor, 0  # -f_z <= -F_min
    if N:  # cos(a) f_x + sin(a) f_y - mu cos(pi/N) f_z <= 0
        angles = 2 * math.pi * np.arange(N) / N
        G[:, 1 : 1 + N, 3], G[:, 1 : 1 + N, 4] = np.cos(angles), np.sin(angles)
        G[:, 1 : 1 + N, 5] = -m[:, None] * math.cos(math.pi / N)
        family[:, 1 : 1 + N], edge[:, 1 : 1 + N] = 1, np.arange(N)
    # -n_e . ((-n_y, n_x) - f_z p_e) <= 0
    rows = slice(1 + N, 1 + N + V)
    G[:, rows, 0], G[:, rows, 1] = -inward[..., 1], inward[..., 0]
    G[:, rows, 5] = np.einsum("nej,nej->ne", inward, P)
    family[:, rows], edge[:, rows] = 2, np.arange(V)
    for d, faces in enumerate(torsion):  # P + mu Q, per distinct polygon
        if not len(faces):
            continue
        rows = which == d
        t = len(faces)
        face = faces[:, 0] + m[rows, None, None] * faces[:, 1]
        # Unit length in (n_c / ell, f), n_c the moment about the vertices' mean c and ell
        # their RMS distance from it (the polygon's own, whatever the sole origin): as
        # h_n . n + h_f . f = h_n . n_c + (h_f + h_n x c) . f.
        c = np.r_[P[rows][0].mean(axis=0), 0.0]
        ell = np.sqrt(np.mean(np.sum((P[rows][0] - c[:2]) ** 2, axis=-1)))
        about_c = face[..., 3:] + np.cross(face[..., :3], c)
        length = np.hypot(
            np.linalg.norm(face[..., :3], axis=-1), np.linalg.norm(about_c, axis=-1) / ell
        )
        G[rows, 1 + N + V : 1 + N + V + t] = face / length[..., None]
        family[rows, 1 + N + V : 1 + N + V + t] = 3
        edge[rows, 1 + N + V : 1 + N + V + t] = np.arange(t)
    return (
        G.reshape(batch + (R, 6)),
        h.reshape(batch + (R,)),
        family.reshape(batch + (R,)),
        edge.reshape(batch + (R,)),
    )


@functools.lru_cache(maxsize=64)
def _torsion_faces(key, V, facets):
    r"""The torsion faces of the cone of the polygon whose (V, 2) vertices are the bytes
    ``key``: a read-only (T, 2, 6) array of pairs (P, Q), the face at :math:`\mu` being
    :math:`P + \mu Q` (up to a positive factor) with :math:`n_z` coefficient :math:`\pm 1`
    (upper bounds first).

    From qhull's facets of the generators at :math:`\mu = 1` over :math:`f_z`, in
    coordinates centred on the vertices' mean :math:`c` and scaled by their RMS distance
    :math:`L` from it (moments about :math:`c` over :math:`L`); each facet refitted as the
    null vector of the generators on it and mapped back to the sole origin.  Checked: every
    facet holds exactly five independent generators' directions and no generator outside;
    the friction and support facets are the pyramid's faces and the polygon's edges.
    """
    vertices = np.frombuffer(key).reshape(V, 2)
    c = vertices.mean(axis=0)
    L = float(np.sqrt(np.mean(np.sum((vertices - c) ** 2, axis=-1))))
    g = _generators((vertices - c) / L, 1.0, facets)
    try:
        hull = ConvexHull(g[:, :5])
    except QhullError as error:
        raise _hull_error(f"qhull failed ({str(error).splitlines()[0]})") from error
    found = {}
    for equation in hull.equations:
        on = np.abs(g[:, :5] @ equation[:5] + equation[5]) <= _ON_FACE
        if on.tobytes() in found:
            continue
        _, s, vt = np.linalg.svd(g[on])
        if np.count_nonzero(s > _ON_FACE * s[0]) != 5:
            raise _hull_error(f"a facet holds generators of rank {np.count_nonzero(s > 0)}")
        row = vt[-1] if (g @ vt[-1]).sum() < 0 else -vt[-1]
        found[on.tobytes()] = (row, tuple(np.flatnonzero(on)))
    rows = np.array([row for row, _ in found.values()])
    if (g @ rows.T).max() > _ON_FACE * np.abs(g).max():
        raise _hull_error("a generator lies outside a facet")
    # Back to moments about the sole origin: w~ = M w with n~ = (n - c x f) / L.
    M = np.eye(6)
    M[:3, :3] /= L
    M[:3, 3:] = -np.array([[0, 0, c[1]], [0, 0, -c[0]], [-c[1], c[0], 0]]) / L
    rows = rows @ M
    rows /= np.abs(rows).max(axis=-1, keepdims=True)
    moment = np.abs(rows[:, :3]).max(axis=-1) > _ON_FACE
    yaw = np.abs(rows[:, 2:5]).max(axis=-1) > _ON_FACE
    _check_families(rows[~moment], rows[moment & ~yaw], vertices, facets)
    torsion = rows[moment & yaw]
    if np.any(np.abs(torsion[:, 2]) <= _ON_FACE):
        raise _hull_error("a face bounds the moment about the normal and not only it")
    torsion = torsion / np.abs(torsion[:, 2:3])
    on_sets = [on for (row, on), keep in zip(found.values(), moment & yaw) if keep]
    order = sorted(range(len(torsion)), key=lambda i: (-torsion[i, 2], on_sets[i]))
    faces = np.zeros((len(torsion), 2, 6))
    faces[:, 0, 2:5] = torsion[order, 2:5]  # n_z, f_x, f_y: independent of mu
    faces[:, 1, [0, 1, 5]] = torsion[order][:, [0, 1, 5]]  # n_x, n_y, f_z: times mu
    faces.flags.writeable = False
    return faces


def _check_families(friction, support, vertices, facets):
    """The facets without a moment must be the pyramid's faces, those without n_z and
    tangential force the polygon's edge lines: one facet per face and per line."""
    angles = 2 * math.pi * np.arange(facets) / facets
    expected = np.zeros((facets, 6))
    expected[:, 3], expected[:, 4], expected[:, 5] = (
        np.cos(angles),
        np.sin(angles),
        -math.cos(math.pi / facets),
    )
    _, inward = _convex_polygon(vertices)
    edges = np.zeros((len(vertices), 6))
    edges[:, 0], edges[:, 1] = -inward[:, 1], inward[:, 0]
    edges[:, 5] = np.einsum("ej,ej->e", inward, vertices)
    for name, rows, wanted in (("friction", friction, expected), ("support", support, edges)):
        unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)  # noqa: E731
        match = unit(wanted) @ unit(rows).T > 1 - 1e-9
        if not (match.any(axis=1).all() and match.any(axis=0).all()):
            raise _hull_error(
                f"its {len(rows)} {name} facets are not the {len(wanted)} expected faces"
            )


def _hull_error(what):
    return ConvergenceError(
        f"contact_wrench_cone: the face form of the cone could not be certified: {what}",
        residual=np.inf,
        tolerance=_ON_FACE,
        iterations=0,
        suggestion="a polygon without nearly coincident vertices, or fewer cone facets",
    )
