r"""Counting measures: Jacobian singular values under declared scales and the
floating-base configuration count.

See :mod:`geomotion.contact` for the conventions.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._linalg import _check_batches


@dataclass(frozen=True)
class ScaledSingularValues:
    r"""Singular-value measures of a Jacobian after declared row and column scaling.

    Attributes
    ----------
    singular_values : (..., min(m, n)) ndarray
        Singular values of :math:`J_s = D_{\mathrm{row}}^{-1}JD_{\mathrm{col}}`, largest
        first (dimensionless).
    condition_number : (...) ndarray
        Largest over smallest singular value; ``inf`` when :math:`J_s` is numerically
        rank deficient (smallest at most ``max(m, n) * eps`` times the largest, the
        threshold of ``numpy.linalg.matrix_rank``).
    volume : (...) ndarray
        :math:`\sqrt{\det(J_sJ_s^T)}`, the volume factor of the image of the unit input
        ball: the product of the singular values when :math:`m \le n`, and 0 when
        :math:`m > n` (the rows cannot be independent).
    """

    singular_values: np.ndarray
    condition_number: np.ndarray
    volume: np.ndarray


def scaled_singular_values(J, *, row_scale, column_scale):
    r"""Singular values, condition number and volume of :math:`J` in declared units.

    .. math:: J_s = D_{\mathrm{row}}^{-1}\,J\,D_{\mathrm{col}},\qquad
              \mathrm{vol} = \sqrt{\det(J_sJ_s^T)} = \textstyle\prod_i\sigma_i

    Rows of a twist Jacobian mix rad/s and m/s, columns may mix revolute and prismatic
    rates, so a norm of either side -- and with it every singular value -- changes with
    the units unless a scale is declared: ``row_scale`` is the task rate counted as one
    unit in each row (:func:`twist_row_scale` for a length scale), ``column_scale`` the
    joint rate per unit input (e.g. each joint's rate limit).  Both are required.

    The volume alone is not a conditioning measure: :math:`\operatorname{diag}(100, 0.01)`
    has volume 1 and condition number :math:`10^4`.  Report the singular values, and the
    input limits behind ``column_scale``.  None of these numbers, on its own, says
    anything about stiffness, curvature, stabilizability or energy transfer.

    Parameters
    ----------
    J : (..., m, n) array_like
        Jacobian from input rates to task rates, m, n >= 1.
    row_scale : (..., m) array_like or float
        Positive task-rate unit of each row, in that row's units.
    column_scale : (..., n) array_like or float
        Positive input rate per unit normalized input, in each column's units.

    Returns
    -------
    ScaledSingularValues
        Singular values, condition number and volume of :math:`J_s`.

    Raises
    ------
    ValueError
        If ``J`` is not a finite (..., m, n) array with m, n >= 1, a scale is not positive
        and finite, or shapes do not match.
    """
    J = _validate.matrix(J, "J")
    m, n = J.shape[-2:]
    if m == 0 or n == 0:
        raise ValueError(f"J: expected at least one row and one column, got shape {J.shape}")
    rows = _scale(row_scale, "row_scale", m)
    columns = _scale(column_scale, "column_scale", n)
    _check_batches(J=(J, 2), row_scale=(rows, 1), column_scale=(columns, 1))
    s = np.linalg.svd(J / rows[..., :, None] * columns[..., None, :], compute_uv=False)
    smallest, largest = s[..., -1], s[..., 0]
    singular = smallest <= max(m, n) * np.finfo(float).eps * largest
    condition = np.where(singular, np.inf, largest / np.where(singular, 1.0, smallest))
    volume = np.prod(s, axis=-1) if m <= n else np.zeros(s.shape[:-1])
    return ScaledSingularValues(s, condition[()], volume[()])


def _scale(value, name, size):
    """A positive (..., size) scale; a scalar applies to every entry."""
    scale = _validate.positive(value, name)
    if scale.ndim == 0:
        return np.full(size, float(scale))
    if scale.shape[-1] != size:
        raise ValueError(f"{name}: expected a scalar or shape (..., {size}), got {scale.shape}")
    return scale


def twist_row_scale(length_scale):
    r"""Row scale of a twist Jacobian for :func:`scaled_singular_values`: :math:`(1, 1, 1, L, L, L)`.

    One rad/s of angular rate counts as much as :math:`L` m/s of linear speed (a point at
    distance :math:`L` from the axis): the scaled norm :eq:`conv-scaled-norm` of the
    conventions.  :math:`L` is a modelling choice -- e.g. the club length -- and must be
    reported with any singular value computed from it.

    Parameters
    ----------
    length_scale : array_like
        Characteristic length :math:`L` [m], positive; leading shape broadcasts.

    Returns
    -------
    (..., 6) ndarray
        Row units: rad/s for the angular rows, m/s for the linear rows.

    Raises
    ------
    ValueError
        If ``length_scale`` is not positive and finite.
    """
    L = _validate.positive(length_scale, "length_scale")[..., None]
    return np.concatenate([np.ones(L.shape[:-1] + (3,)), np.repeat(L, 3, axis=-1)], axis=-1)


# ---------------------------------------------------------------------------
# Counting the floating base
# ---------------------------------------------------------------------------


def floating_base_mobility(
    *, leg_joints=(7, 7), base_dof=6, stationary_feet=0, constraints_per_foot=6
):
    r"""Free configuration dimensions of a floating-base body standing on rigid feet.

    .. math:: d = n_{\mathrm{base}} + \sum_{\mathrm{legs}} n_\ell
              - n_{\mathrm{feet}}\,c_{\mathrm{foot}}

    With a 6-D floating pelvis and two 7-joint legs, :math:`n = 6 + 7 + 7 = 20`; a rigid
    stationary foot imposes up to 6 constraints, leaving 14, and two leave 8.  The base
    must be counted before constraints are subtracted: starting from the 14 joint
    coordinates alone drops it.  The count :math:`\dim Q_c = n - c` of equation
    :eq:`eq-ch2-tangent-constraint`.

    The constraint count bounds the number of *independent* constraints from above, so
    :math:`d` is the mobility at regular configurations and a lower bound elsewhere
    (dependent constraints leave more freedom; compare
    :func:`geomotion.constraints.mobility` on an actual Jacobian).  Point contacts
    (``constraints_per_foot=3`` for no slip), rolling, deformable shoes and other
    anatomical joint counts all change the result; the default is an idealized model.

    Parameters
    ----------
    leg_joints : sequence of int, keyword-only
        Joint coordinates of each leg (default ``(7, 7)``).
    base_dof : int, keyword-only
        Coordinates of the base pose, 0 (fixed) to 6 (floating in space; the default).
    stationary_feet : int, keyword-only
        Number of feet held stationary, at most ``len(leg_joints)`` (default 0).
    constraints_per_foot : int, keyword-only
        Independent constraints each stationary foot imposes, 0 to 6 (default 6, a rigid
        bilateral foot contact).

    Returns
    -------
    int
        The count :math:`d`.

    Raises
    ------
    TypeError
        If a count is not an integer (a float, a boolean, a string), or ``leg_joints`` is
        not a sequence.
    ValueError
        If a count is negative or out of range, or the constraints outnumber the
        coordinates (they cannot then all be independent).

    Notes
    -----
    **Batches**: none.  Every argument is a count of the model, not an array over
    configurations, so there is nothing to broadcast.
    """
    if isinstance(leg_joints, (str, bytes)) or not hasattr(leg_joints, "__iter__"):
        raise TypeError(
            f"leg_joints: expected a sequence of non-negative integers, got {leg_joints!r}"
        )
    legs = [
        _validate.count(n, f"leg_joints[{i}]", minimum=0, whole_floats=False)
        for i, n in enumerate(leg_joints)
    ]
    base = _validate.count(base_dof, "base_dof", minimum=0, maximum=6, whole_floats=False)
    feet = _validate.count(
        stationary_feet, "stationary_feet", minimum=0, maximum=len(legs), whole_floats=False
    )
    per_foot = _validate.count(
        constraints_per_foot, "constraints_per_foot", minimum=0, maximum=6, whole_floats=False
    )
    coordinates = base + sum(legs)
    if feet * per_foot > coordinates:
        raise ValueError(
            f"stationary_feet: {feet} feet x {per_foot} constraints exceed the {coordinates} "
            "coordinates; they cannot all be independent"
        )
    return coordinates - feet * per_foot
