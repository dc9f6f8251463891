"""The chapter's checkable example: a constant-curvature connection and a rectangular loop.

See :mod:`geomotion.symmetry` for the model.
"""

import numpy as np

from .. import _validate
from .connection import kinetic_metric


def constant_curvature_coupling(shape, k):
    r"""Coupling :math:`a(s) = (0, k s_1)` of the chapter's checkable example.

    With locked inertia :math:`I = 1` the connection is :math:`A = (0, ks_1)`, whose
    curvature :math:`\partial_1A_2 - \partial_2A_1 = k` is the same everywhere; at zero
    momentum :math:`\dot\theta = -ks_1\dot s_2`.

    Parameters
    ----------
    shape : (..., 2) array_like
        Shape :math:`(s_1, s_2)`.
    k : float
        Curvature (rad per unit shape area).

    Returns
    -------
    (..., 2) ndarray

    Raises
    ------
    ValueError
        For a shape not of shape (..., 2), or non-finite values.
    """
    s = _validate.trailing_shape(shape, "shape", (2,))
    curvature = _validate.real_array(k, "k")
    if curvature.ndim:
        raise ValueError(f"k: expected a scalar, got shape {curvature.shape}")
    a = np.zeros_like(s)
    a[..., 1] = curvature * s[..., 0]
    return a


def constant_curvature_metric(shape, k):
    r"""Full kinetic metric of the checkable example: :math:`I = 1`, :math:`a = (0, ks_1)`,
    :math:`H = I_2 + aa^T`.

    Its Schur complement :math:`H - aa^T/I` is :math:`I_2`, so the metric is positive
    definite at every shape.  The example exhibits a geometric phase in this specified
    model only; it says nothing about a golf swing until the inertia blocks, the external
    moments and a measured shape trajectory are known.

    Parameters
    ----------
    shape : (..., 2) array_like
        Shape :math:`(s_1, s_2)`.
    k : float
        Curvature of the connection.

    Returns
    -------
    (..., 3, 3) ndarray
        :math:`G` in :math:`(\theta, s_1, s_2)` coordinates.

    Raises
    ------
    ValueError
        As :func:`constant_curvature_coupling`.
    """
    a = constant_curvature_coupling(shape, k)
    H = np.eye(2) + a[..., :, None] * a[..., None, :]
    return kinetic_metric(np.ones(a.shape[:-1]), a, H)


def rectangle_loop(a0, b0, *, corner=(0.0, 0.0), clockwise=False, points_per_side=1):
    r"""Closed rectangular shape loop with sides :math:`a_0` along :math:`s_1` and
    :math:`b_0` along :math:`s_2`.

    Starts and ends at ``corner`` (its lower-left vertex); counterclockwise by default,
    i.e. first along :math:`+s_1`.  With the constant-curvature example the geometric
    phase of the counterclockwise loop is :math:`-ka_0b_0` wherever the corner lies
    (exercise :eq:`eq-ex2-phase-rectangle`):
    ``loop_phase(1.0, lambda s: constant_curvature_coupling(s, k), rectangle_loop(a0, b0))``.

    Parameters
    ----------
    a0, b0 : float
        Side lengths, >= 0 (zero gives a degenerate loop of zero area).
    corner : (2,) array_like, optional
        Lower-left vertex; default the origin.
    clockwise : bool, optional
        Traverse the loop the other way (first along :math:`+s_2`); default False.
    points_per_side : int, optional
        Segments per side (>= 1): samples at equal spacing along each side; default 1.

    Returns
    -------
    (4 * points_per_side + 1, 2) ndarray
        The samples; the last equals the first.

    Raises
    ------
    ValueError
        For negative or non-finite sides, a corner not of shape (2,), or
        ``points_per_side`` not a positive integer.
    """
    width = _validate.nonnegative(a0, "a0")
    height = _validate.nonnegative(b0, "b0")
    for name, value in (("a0", width), ("b0", height)):
        if value.ndim:
            raise ValueError(f"{name}: expected a scalar side length, got shape {value.shape}")
    origin = _validate.real_array(corner, "corner")
    if origin.shape != (2,):
        raise ValueError(f"corner: expected shape (2,), got shape {origin.shape}")
    if (
        isinstance(points_per_side, bool)
        or not isinstance(points_per_side, (int, np.integer))
        or points_per_side < 1
    ):
        raise ValueError(f"points_per_side: expected a positive integer, got {points_per_side!r}")
    vertices = origin + np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]) * [width, height]
    if clockwise:
        vertices = vertices[::-1]
    fractions = np.arange(points_per_side) / points_per_side
    sides = vertices[:-1, None, :] + fractions[:, None] * np.diff(vertices, axis=0)[:, None, :]
    return np.concatenate([sides.reshape(-1, 2), vertices[-1:]])
