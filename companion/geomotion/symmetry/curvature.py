r"""Curvature on a two-dimensional patch, by central differences: of the mechanical
connection (the two-form :math:`dA`) and of a metric (its Gaussian curvature).

Both answer "is this flat?" with a number instead of an impression.  Nonzero
Christoffel symbols do not make a metric curved (polar coordinates on the plane have
them), and a connection whose components vary need not have curvature; the curvature
decides.
"""

import numpy as np

from .. import _numerics, _validate
from ._common import _coupling, _field, _locked_inertia_at, _scalar_or_array

__all__ = ["connection_curvature", "gaussian_curvature"]

# Relative central-difference step of :func:`connection_curvature` (Richardson
# extrapolated from h and h/2, truncation error O(h^4)).
_CONNECTION_STEP = 1e-3

# Relative central-difference step of :func:`gaussian_curvature` (second differences,
# truncation error O(h^2), rounding error about 1e-16 / h^2).
_METRIC_STEP = 1e-4


def _points2(points, name):
    """Validate (..., 2) points on a two-dimensional patch."""
    return _validate.trailing_shape(points, name, (2,))


def _steps(points, relative):
    """Per-coordinate steps ``relative * max(1, |x_i|)``, shape (..., 2)."""
    return relative * np.maximum(1.0, np.abs(points))


def _connection(locked_inertia, coupling, points):
    """:math:`A = a/I` at shape points (..., 2)."""
    I = _locked_inertia_at(locked_inertia, points)
    a = _coupling(_field(coupling, points, 1, (2,), "coupling"), 2)
    return a / I[..., None]


def connection_curvature(locked_inertia, coupling, shape):
    r"""Curvature :math:`dA = (\partial_1A_2 - \partial_2A_1)\,ds_1\wedge ds_2` of the
    mechanical connection :math:`A = I^{-1}a^T` over two shape coordinates.

    For a planar (abelian) symmetry the connection's curvature is the exterior
    derivative of the one-form :math:`A`.  By Stokes' theorem the geometric phase of a
    small counterclockwise loop enclosing the area :math:`\delta S` around :math:`s` is
    :math:`-\oint A\,ds \approx -dA(s)\,\delta S`; where :math:`dA = 0` on a simply
    connected patch, every loop in it has zero geometric phase.

    Derivatives are central differences of :math:`A` with steps
    ``1e-3 * max(1, |s_i|)`` and half of them, Richardson extrapolated (truncation error
    of fourth order in the step).

    Parameters
    ----------
    locked_inertia : float or callable
        :math:`I > 0` (kg m^2), a constant or a function of one shape sample (2,).
    coupling : (2,) array_like or callable
        :math:`a` (kg m^2 per unit of shape), a constant or a function of one shape
        sample returning a (2,) array.
    shape : (..., 2) array_like
        Shape points :math:`s` where the curvature is wanted.

    Returns
    -------
    numpy.float64 or (...) ndarray
        :math:`\partial_1A_2 - \partial_2A_1`, rad per unit shape area, one per point.

    Raises
    ------
    ValueError
        If ``shape`` is not (..., 2) and finite, the locked inertia is not positive
        near a point, or the coupling does not have two components.

    Examples
    --------
    The chapter's checkable example, :math:`I = 1` and :math:`a = (0, ks_1)`, has
    :math:`dA = k` everywhere:

    >>> from geomotion import symmetry
    >>> def coupling(s):
    ...     return symmetry.constant_curvature_coupling(s, 0.7)
    >>> print(round(symmetry.connection_curvature(1.0, coupling, [0.4, -0.3]), 12))
    0.7
    """
    s = _points2(shape, "shape")
    connection = _numerics.Trusted(lambda x: _connection(locked_inertia, coupling, x))
    D = _numerics.jacobian(connection, s, 2, "connection", _steps(s, _CONNECTION_STEP))
    return _scalar_or_array(D[..., 1, 0] - D[..., 0, 1])


def _metric_at(metric, points):
    """The metric at points (..., 2): symmetric positive definite (2, 2) values."""
    if not callable(metric):
        raise TypeError(
            f"metric: expected a callable of one point (2,) returning a (2, 2) matrix, got "
            f"{type(metric).__name__}"
        )
    values = _field(metric, points, 1, (2, 2), "metric")
    _validate.positive_definite(values, "metric")
    return values


def _brioschi(g, dg_u, dg_v, g_uu, g_uv, g_vv):
    r"""Gaussian curvature from :math:`E, F, G` and their derivatives (Brioschi formula)."""
    E, F, G = g[..., 0, 0], g[..., 0, 1], g[..., 1, 1]
    E_u, F_u, G_u = dg_u[..., 0, 0], dg_u[..., 0, 1], dg_u[..., 1, 1]
    E_v, F_v, G_v = dg_v[..., 0, 0], dg_v[..., 0, 1], dg_v[..., 1, 1]
    first = np.stack(
        [
            np.stack(
                [
                    -0.5 * g_vv[..., 0, 0] + g_uv[..., 0, 1] - 0.5 * g_uu[..., 1, 1],
                    0.5 * E_u,
                    F_u - 0.5 * E_v,
                ],
                axis=-1,
            ),
            np.stack([F_v - 0.5 * G_u, E, F], axis=-1),
            np.stack([0.5 * G_v, F, G], axis=-1),
        ],
        axis=-2,
    )
    second = np.stack(
        [
            np.stack([np.zeros_like(E), 0.5 * E_v, 0.5 * G_u], axis=-1),
            np.stack([0.5 * E_v, E, F], axis=-1),
            np.stack([0.5 * G_u, F, G], axis=-1),
        ],
        axis=-2,
    )
    return (np.linalg.det(first) - np.linalg.det(second)) / (E * G - F * F) ** 2


def gaussian_curvature(metric, points):
    r"""Gaussian curvature :math:`K` of a two-dimensional metric
    :math:`g = \begin{bmatrix}E&F\\F&G\end{bmatrix}` in coordinates :math:`(u, v)`.

    :math:`K` is intrinsic: it does not change with the coordinates, and it vanishes
    exactly where the metric is locally Euclidean.  It is evaluated with the Brioschi
    formula,

    .. math:: K = \frac{1}{(EG-F^2)^2}\left(\det\begin{bmatrix}
              -\tfrac12E_{vv}+F_{uv}-\tfrac12G_{uu} & \tfrac12E_u & F_u-\tfrac12E_v\\
              F_v-\tfrac12G_u & E & F\\ \tfrac12G_v & F & G\end{bmatrix}
              - \det\begin{bmatrix}0 & \tfrac12E_v & \tfrac12G_u\\
              \tfrac12E_v & E & F\\ \tfrac12G_u & F & G\end{bmatrix}\right),

    with the first and second derivatives of the metric taken by central differences
    of step ``1e-4 * max(1, |x_i|)`` (truncation error of second order, so a
    relative accuracy of about 1e-7 for a smooth metric of unit scale).

    Parameters
    ----------
    metric : callable
        ``metric(x)`` for one point ``x`` of shape (2,), returning the symmetric
        positive definite (2, 2) metric (e.g. a mass matrix in kg m^2 for angles).
    points : (..., 2) array_like
        Points :math:`(u, v)` where :math:`K` is wanted.

    Returns
    -------
    numpy.float64 or (...) ndarray
        :math:`K`, one per point, in inverse units of the metric (1/m^2 for a metric in m^2 per unit
        coordinate squared).

    Raises
    ------
    TypeError
        If ``metric`` is not callable.
    ValueError
        If ``points`` is not (..., 2) and finite, or the metric is not a symmetric
        positive definite (2, 2) matrix at a stencil point.

    Examples
    --------
    The round sphere of radius 2 m in colatitude and longitude,
    :math:`g = \operatorname{diag}(4, 4\sin^2u)`, has :math:`K = 1/4` m^-2; the plane
    in polar coordinates, :math:`g = \operatorname{diag}(1, r^2)`, has :math:`K = 0`:

    >>> import numpy as np
    >>> from geomotion import symmetry
    >>> sphere = lambda x: np.diag([4.0, 4.0 * np.sin(x[0]) ** 2])
    >>> print(round(symmetry.gaussian_curvature(sphere, [0.8, 0.3]), 6))
    0.25
    >>> polar = lambda x: np.diag([1.0, x[0] ** 2])
    >>> print(abs(symmetry.gaussian_curvature(polar, [1.5, 0.4])) < 1e-7)
    True
    """
    x = _points2(points, "points")
    h = _steps(x, _METRIC_STEP)
    hu, hv = h[..., 0, None, None], h[..., 1, None, None]
    zero = np.zeros_like(h[..., 0])
    du = np.stack([h[..., 0], zero], axis=-1)
    dv = np.stack([zero, h[..., 1]], axis=-1)

    def at(offset):
        return _metric_at(metric, x + offset)

    g, g_pu, g_mu, g_pv, g_mv = at(0 * du), at(du), at(-du), at(dv), at(-dv)
    g_uv = (at(du + dv) - at(du - dv) - at(dv - du) + at(-du - dv)) / (4 * hu * hv)
    curvature = _brioschi(
        g,
        (g_pu - g_mu) / (2 * hu),
        (g_pv - g_mv) / (2 * hv),
        (g_pu - 2 * g + g_mu) / hu**2,
        g_uv,
        (g_pv - 2 * g + g_mv) / hv**2,
    )
    return _scalar_or_array(curvature)
