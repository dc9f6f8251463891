r"""Ground contact: centre of pressure and free moment, contact feasibility, contact power.

See :mod:`geomotion.contact` for the conventions.
"""

import math
from dataclasses import dataclass

import numpy as np

from .. import _validate, spatial
from .._linalg import _check_batches

#: Action-reaction conventions of a force-plate wrench: the load of the plate on the body
#: (the book's choice) or of the body on the plate (the opposite sign, as some
#: manufacturers report it).
CONVENTIONS = ("plate_on_body", "body_on_plate")

#: Tolerance, in rad, on the total turning :math:`2\pi` of a convex support polygon.
_TURNING_TOL = 1e-9


def _convention_sign(convention):
    """+1 for a plate-on-body wrench, -1 for a body-on-plate one."""
    if not isinstance(convention, str):
        raise TypeError(
            f"convention: expected one of the strings {CONVENTIONS}, got {convention!r}"
        )
    if convention not in CONVENTIONS:
        raise ValueError(f"convention: expected one of {CONVENTIONS}, got {convention!r}")
    return 1.0 if convention == "plate_on_body" else -1.0


def _surface_wrench(wrench, depth, convention):
    r"""The plate-on-body wrench about the surface point above the plate origin.

    The surface origin S lies ``depth`` above the plate origin P, so P sits at
    :math:`p_{SP} = (0, 0, -d)` in S and :math:`n_S = n_P + p_{SP}\times f
    = (M_x + dF_y,\; M_y - dF_x,\; M_z)`.
    """
    sign = _convention_sign(convention)
    F = _validate.trailing_shape(wrench, "wrench", (6,))
    d = _plate_depth(depth)
    _check_batches(wrench=(F, 1), depth=(d, 0))
    p_SP = np.zeros(d.shape + (3,))
    p_SP[..., 2] = -d
    X_SP = spatial.force_transform(spatial.pose(np.eye(3), p_SP))
    return sign * np.einsum("...ij,...j->...i", X_SP, F)


def _plate_depth(depth):
    """``depth`` as a float array, refused with the fix if an entry is negative."""
    d = _validate.real_array(depth, "depth")
    if np.any(d < 0):
        index = np.unravel_index(np.argmax(d < 0), d.shape)
        at = f" at index {tuple(int(i) for i in index)}" if d.ndim else ""
        raise ValueError(
            f"depth: expected the distance in m of the plate origin below the contact "
            f"surface, so >= 0, got {d[index]:g}{at}; a plate origin {-d[index]:g} m below "
            f"the surface (at z = {d[index]:g} m) is depth={-d[index]:g}: pass the positive "
            f"distance"
        )
    return d


@dataclass(frozen=True)
class CenterOfPressure:
    r"""Result of :func:`center_of_pressure`, read by name (it does not unpack).

    Attributes
    ----------
    x_c, y_c : (...) ndarray or numpy.float64
        Centre of pressure [m] in the surface plane (plate x, y axes, origin above the
        plate origin); NaN for an unloaded sample of a batch.
    free_moment : (...) ndarray or numpy.float64
        Free moment :math:`M_{z,\mathrm{free}}` [N m] that the plate exerts on the body
        about the vertical through the centre of pressure; NaN where unloaded.
    loaded : (...) ndarray of bool or numpy.bool_
        True where the sample has a centre of pressure (a normal load above the noise
        floor and the relative threshold of :func:`center_of_pressure`); select the
        stance samples with ``result.x_c[result.loaded]``.
    """

    x_c: np.ndarray
    y_c: np.ndarray
    free_moment: np.ndarray
    loaded: np.ndarray


def center_of_pressure(
    wrench, *, depth=0.0, convention="plate_on_body", min_normal_force=0.0, rtol=1e-6
):
    r"""Centre of pressure and free moment of a force-plate wrench.

    In plate axes with :math:`z` up and the moment taken about a point of the contact
    surface, a force :math:`F` through :math:`r_c = (x_c, y_c, 0)` plus a vertical couple
    :math:`M_{z,\mathrm{free}}` has moment
    :math:`r_c\times F + (0, 0, M_{z,\mathrm{free}}) = (y_cF_z,\; -x_cF_z,\;
    x_cF_y - y_cF_x + M_{z,\mathrm{free}})`, which inverts to

    .. math:: x_c = -\frac{M_y}{F_z},\qquad y_c = \frac{M_x}{F_z},\qquad
              M_{z,\mathrm{free}} = M_z - x_cF_y + y_cF_x.

    Equations :eq:`eq-ch2-cop-moment` and :eq:`eq-ch2-center-of-pressure` (and exercise
    :eq:`eq-ex2-cop-moment`).

    The free moment is part of the answer: without it the three numbers
    :math:`(x_c, y_c, F)` do not reproduce the measured :math:`M_z`, and a centre of
    pressure never replaces the full wrench.  If the plate origin lies ``depth`` below the
    surface, the moment is first shifted up to the surface:
    :math:`M_x \leftarrow M_x + dF_y`, :math:`M_y \leftarrow M_y - dF_x`.

    Parameters
    ----------
    wrench : (..., 6) array_like
        Moment-first :math:`(M, F)` [N m, N] about the plate origin, in plate axes with
        :math:`z` up (normal to the surface, pointing into the body).
    depth : array_like
        Distance [m] of the plate origin below the contact surface, >= 0 (shape
        broadcasting with the leading axes).  A plate origin given by its signed height
        relative to the surface in z-up axes, such as -0.04 m, is ``depth=0.04``;
        negative values are refused (most likely that sign slip) rather than read as an
        origin above the surface.
    convention : {"plate_on_body", "body_on_plate"}
        Which side's load ``wrench`` is.  A body-on-plate wrench is negated first; the
        returned free moment is always the one the plate exerts on the body.
    min_normal_force : float
        Noise floor [N] of the normal load (e.g. a plate's threshold, typically several
        N); default 0.
    rtol : float
        Smallest accepted ratio :math:`|F_z| / \|f\|` (dimensionless, default
        ``1e-6``).  A relative error :math:`\delta` in the measured force moves
        :math:`F_z` by about :math:`\delta\|f\|`, so the centre-of-pressure ratios carry
        a relative error of about :math:`\delta\|f\|/|F_z|`: at the default ratio an
        amplification of a million.  Such a load would also need a friction coefficient
        above :math:`10^6` to be transmitted.

    Returns
    -------
    CenterOfPressure
        Fields ``x_c``, ``y_c``, ``free_moment`` and ``loaded``, each of the leading
        shape ``(...)`` (NumPy scalars for a single wrench): centre of pressure [m] in the
        surface plane (plate x, y axes, origin above the plate origin), free moment
        [N m] about the vertical through it, and the boolean mask of the samples that
        have them.  A sample is *unloaded* when :math:`|F_z|` is at most
        ``min_normal_force`` or ``rtol`` times :math:`\|f\|`, e.g. a foot in swing: the
        ratios are then meaningless.  In a batch (a force-plate time series) an
        unloaded sample gets NaN in the three numbers and ``loaded`` False, so one
        swing-phase sample does not cost the stance samples their answer; NaN rather
        than a number keeps a meaningless value out of any later sum or plot, and the
        mask selects the stance samples (``x_c[result.loaded]``), the usual force-plate
        practice.  A tensile normal load (:math:`F_z < 0`) above the floor is not
        refused here; :func:`contact_feasibility` reports it.

    Raises
    ------
    ValueError
        If ``wrench`` is not a finite (..., 6) array, ``depth``, ``min_normal_force`` or
        ``rtol`` is negative, ``convention`` is an unknown string, or a single wrench
        (no batch axis) is unloaded.
    TypeError
        If ``convention`` is not a string, or an array argument is ``None`` or holds
        ``None``.

    Examples
    --------
    Stance, swing, stance: 800 N through (0.02, 0.04) m, no load, 500 N through
    (0.03, 0.02) m.

    >>> cop = center_of_pressure([[32.0, -16.0, 0, 0, 0, 800.0], np.zeros(6),
    ...                           [10.0, -15.0, 0, 0, 0, 500.0]], min_normal_force=20.0)
    >>> cop.x_c, cop.loaded
    (array([0.02,  nan, 0.03]), array([ True, False,  True]))
    """
    F = _surface_wrench(wrench, depth, convention)
    floor = _noise_floor(min_normal_force)
    ratio = _scalar_rtol(rtol)
    if F.ndim == 1:
        force = np.linalg.norm(F[3:])
        if not _loaded(F, floor, ratio):
            raise ValueError(
                f"wrench: expected a normal load |F_z| above {floor:g} N and above "
                f"rtol = {ratio:g} times |f|, got F_z = {float(F[5]):.3g} N with "
                f"|f| = {float(force):.3g} N; the centre of pressure is undefined"
            )
    x_c, y_c, free_moment, loaded = _cop_fields(F, floor, ratio)
    return CenterOfPressure(x_c=x_c, y_c=y_c, free_moment=free_moment, loaded=loaded)


def _loaded(F, floor, ratio):
    """Where a surface wrench (..., 6) has a normal load above the floor and the ratio."""
    F_z = F[..., 5]
    force = np.linalg.norm(F[..., 3:], axis=-1)
    return (np.abs(F_z) > floor) & (np.abs(F_z) > ratio * force)


def _cop_fields(F, floor, ratio):
    """Unvalidated centre of pressure ``x_c, y_c, free_moment, loaded`` of surface wrenches
    (..., 6), NaN where unloaded (a single wrench included: the caller decides to refuse)."""
    M_x, M_y, M_z, F_x, F_y, F_z = np.moveaxis(F, -1, 0)
    loaded = _loaded(F, floor, ratio)
    F_z = np.where(loaded, F_z, np.nan)  # the ratios below are NaN where unloaded
    x_c = -M_y / F_z
    y_c = M_x / F_z
    fields = (x_c, y_c, M_z - x_c * F_y + y_c * F_x, loaded)
    return tuple(np.asarray(value)[()] for value in fields)


def _scalar_rtol(rtol):
    value = _validate.nonnegative(rtol, "rtol")
    if value.ndim:
        raise ValueError(f"rtol: expected a scalar (a ratio), got shape {value.shape}")
    return float(value)


def _noise_floor(min_normal_force):
    floor = _validate.nonnegative(min_normal_force, "min_normal_force")
    if floor.ndim:
        raise ValueError(f"min_normal_force: expected a scalar in N, got shape {floor.shape}")
    return float(floor)


@dataclass(frozen=True)
class ContactFeasibility:
    r"""Whether a computed plate-on-body contact wrench is physically admissible.

    All margins are in load units and defined for every wrench (no division by the
    normal load); a margin >= 0 means the condition holds.

    Attributes
    ----------
    normal_force : (...) ndarray
        :math:`F_z` [N], positive when the ground pushes on the body.
    tangential_force : (...) ndarray
        :math:`\|(F_x, F_y)\|` [N].
    normal_margin : (...) ndarray
        :math:`F_z - F_{\min}` [N].
    friction_margin : (...) ndarray
        :math:`\mu F_z - \|(F_x, F_y)\|` [N]: the reserve of the Coulomb cone.
    support_margin : (...) ndarray
        :math:`\min_e F_zd_e = \min_e n_e^T((-M_y, M_x) - F_zp_e)` [N m], with
        :math:`d_e` the signed distance (positive inside) of the centre of pressure from
        the line of edge :math:`e` (inward unit normal :math:`n_e`, vertex :math:`p_e`).
        For :math:`F_z > 0`, dividing by :math:`F_z` gives the distance to the nearest
        edge line in m (outside, the largest violation, at most the distance to the
        polygon).  For :math:`F_z < 0` it is negative, since a point always lies inside
        some edge line of a bounded polygon.
    compressive, within_friction_cone, cop_in_support : (...) ndarray of bool
        ``normal_margin > 0``; ``friction_margin >= 0``; ``compressive`` and
        ``support_margin >= 0``.
    feasible : (...) ndarray of bool
        All three conditions.
    """

    normal_force: np.ndarray
    tangential_force: np.ndarray
    normal_margin: np.ndarray
    friction_margin: np.ndarray
    support_margin: np.ndarray
    compressive: np.ndarray
    within_friction_cone: np.ndarray
    cop_in_support: np.ndarray
    feasible: np.ndarray


def contact_feasibility(
    wrench,
    friction_coefficient,
    support_polygon,
    *,
    depth=0.0,
    convention="plate_on_body",
    min_normal_force=0.0,
):
    r"""Check a contact wrench against compression, the friction cone and the support polygon.

    A rigid bilateral contact model can return any wrench its equality constraints
    require, including a ground that pulls on the foot, a tangential load no friction
    could carry, or a centre of pressure outside the foot.  Such a solution is a formal
    result of the model, not a prediction of what a real foot can do; the model (or the
    contact mode) must change.  This function reports, for the plate-on-body wrench
    about the surface point (moved as in :func:`center_of_pressure`):

    * compression: :math:`F_z > F_{\min}`;
    * friction: :math:`\|(F_x, F_y)\| \le \mu F_z`;
    * support: the centre of pressure :math:`(-M_y, M_x)/F_z` lies in the convex polygon.

    It does not check a torsional friction limit on the free moment (the exact conditions
    of a flat sole with it are :func:`contact_wrench_cone`'s), slip history or
    deformation.  An unloaded wrench (a foot in swing) is reported, not refused: its
    margins are defined and ``compressive`` is False, single or batched, so a time
    series is checked sample by sample as :func:`center_of_pressure` reports it.
    For several feet, each with its sole pose in the world, use :func:`foot_contacts`.

    Parameters
    ----------
    wrench : (..., 6) array_like
        Moment-first contact wrench [N m, N] about the plate origin, plate axes, z up.
    friction_coefficient : array_like
        Coulomb coefficient :math:`\mu \ge 0` (dimensionless); shape broadcasts.
    support_polygon : (..., V, 2) array_like
        Vertices [m] of a convex polygon (V >= 3, either orientation, no repeated
        vertex) in the surface plane, plate x, y axes -- e.g. a foot outline.
    depth, convention, min_normal_force
        As in :func:`center_of_pressure`.

    Returns
    -------
    ContactFeasibility
        Margins and flags, with the broadcast leading shape.

    Raises
    ------
    ValueError
        If the wrench, depth or convention is invalid (see :func:`center_of_pressure`),
        ``friction_coefficient`` or ``min_normal_force`` is negative, or the polygon is
        not convex, has a repeated vertex, fewer than 3 vertices or zero area.
    TypeError
        If ``convention`` is not a string, or an array argument is ``None`` or holds
        ``None``.
    """
    F = _surface_wrench(wrench, depth, convention)
    mu = _validate.nonnegative(friction_coefficient, "friction_coefficient")
    floor = _noise_floor(min_normal_force)
    vertices, inward = _convex_polygon(support_polygon)
    _check_batches(wrench=(F, 1), friction_coefficient=(mu, 0), support_polygon=(vertices, 2))
    return ContactFeasibility(*_feasibility_fields(F, mu, floor, vertices, inward))


def _feasibility_fields(F, mu, floor, vertices, inward):
    """Unvalidated fields of :class:`ContactFeasibility`, in order, for surface wrenches F."""
    F_z = F[..., 5]
    tangential = np.hypot(F[..., 3], F[..., 4])
    pressure_moment = np.stack([-F[..., 1], F[..., 0]], axis=-1)  # F_z * (x_c, y_c)
    edge_margins = np.einsum(
        "...ej,...ej->...e", inward, pressure_moment[..., None, :] - F_z[..., None, None] * vertices
    )
    normal_margin = F_z - floor
    friction_margin = mu * F_z - tangential
    support_margin = edge_margins.min(axis=-1)
    compressive = normal_margin > 0
    in_cone = friction_margin >= 0
    in_support = compressive & (support_margin >= 0)
    fields = (F_z, tangential, normal_margin, friction_margin, support_margin)
    flags = (compressive, in_cone, in_support, compressive & in_cone & in_support)
    # [()] turns 0-d arrays into numpy scalars, so a single wrench gives plain numbers.
    return tuple(np.asarray(value)[()] for value in fields + flags)


def _convex_polygon(polygon):
    """Validate a convex polygon; return its vertices and inward unit edge normals.

    Edge e runs from vertex e to vertex e + 1.  Convexity: every turn has the sign of the
    enclosed area and the turns add up to one full revolution (a star polygon turns
    twice).
    """
    P = _validate.trailing_shape(polygon, "support_polygon", (2,))
    if P.ndim < 2 or P.shape[-2] < 3:
        raise ValueError(
            f"support_polygon: expected shape (..., V, 2) with V >= 3 vertices, got {P.shape}"
        )
    edges = np.roll(P, -1, axis=-2) - P
    lengths = np.linalg.norm(edges, axis=-1)
    size = np.abs(P).max(axis=(-1, -2), initial=0.0)
    if np.any(lengths <= 1e-12 * size[..., None]):
        raise ValueError(
            "support_polygon: expected distinct consecutive vertices, got a "
            "repeated vertex (zero-length edge)"
        )
    area2 = np.sum(
        P[..., 0] * np.roll(P[..., 1], -1, -1) - np.roll(P[..., 0], -1, -1) * P[..., 1], axis=-1
    )
    if np.any(np.abs(area2) <= 1e-12 * size**2):
        raise ValueError(
            f"support_polygon: expected a polygon of non-zero area, got twice "
            f"the signed area {area2!r}"
        )
    orientation = np.sign(area2)[..., None]
    following = np.roll(edges, -1, axis=-2)
    turns = (
        np.arctan2(
            edges[..., 0] * following[..., 1] - edges[..., 1] * following[..., 0],
            np.sum(edges * following, axis=-1),
        )
        * orientation
    )
    if np.any(turns < -_TURNING_TOL) or np.any(
        np.abs(turns.sum(axis=-1) - 2 * math.pi) > _TURNING_TOL * P.shape[-2]
    ):
        raise ValueError(
            "support_polygon: expected a convex, simple polygon (every turn to "
            "the same side, one revolution in total), got a non-convex one"
        )
    inward = orientation[..., None] * np.stack([-edges[..., 1], edges[..., 0]], axis=-1)
    return P, inward / lengths[..., None]


def contact_power(wrench, twist):
    r"""Mechanical power a contact wrench delivers to a body: :math:`P_c = f^Tv + n^T\omega`.

    Both six-vectors must be expressed about the same reference point in the same axes
    (:func:`geomotion.spatial.force_transform` and
    :func:`geomotion.spatial.motion_transform` move them); the result is then independent
    of that choice.  A stationary rigid foot has a zero twist and so receives zero power
    however large its ground wrench: the ground can redirect momentum without supplying
    work.  A pivoting, rolling or deforming foot needs its actual contact twist or
    pressure distribution: a single non-slipping point (a heel) leaves the foot free to
    turn about it.  Equation :eq:`eq-ch2-contact-power`.

    Parameters
    ----------
    wrench : (..., 6) array_like
        Contact wrench on the body, moment-first (n [N m], f [N]).
    twist : (..., 6) array_like
        Twist of the body at the contact, angular-first (omega [rad/s], v [m/s]), about
        the same point and in the same axes.

    Returns
    -------
    ndarray or float
        Power [W] with the broadcast leading shape.

    Raises
    ------
    ValueError
        If either argument is not a finite (..., 6) array.
    """
    F = _validate.trailing_shape(wrench, "wrench", (6,))
    V = _validate.trailing_shape(twist, "twist", (6,))
    _check_batches(wrench=(F, 1), twist=(V, 1))
    return spatial.power(F, V)
