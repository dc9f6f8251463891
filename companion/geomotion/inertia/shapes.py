"""Central inertias of ideal shapes: point mass, thin rod, solid cylinder, solid box."""

import numpy as np

from .. import _validate


def point_mass_central_inertia(mass):
    r"""Central rotational inertia of an ideal point mass: :math:`I_C = 0`.

    Its spatial inertia has rank 3; twists :math:`(\omega, [c]\omega)` leave the point
    still and cost no energy.

    Parameters
    ----------
    mass : array_like
        Mass in kg, positive, shape ``(...)``.

    Returns
    -------
    (..., 3, 3) ndarray
        Zeros, kg m^2.

    Examples
    --------
    0.5 kg at 1 m from the origin: :math:`mr^2` = 0.5 kg m^2 about z, and a spatial
    inertia of rank 3.

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> I_O = inertia.spatial_inertia(0.5, [1.0, 0.0, 0.0], inertia.point_mass_central_inertia(0.5))
    >>> float(I_O[2, 2]), int(np.linalg.matrix_rank(I_O))
    (0.5, 3)
    """
    m = _validate.positive(mass, "mass")
    return np.zeros(m.shape + (3, 3))


def _axis_index(axis):
    if axis not in (0, 1, 2):
        raise ValueError(f"axis: expected 0, 1 or 2 (x, y or z), got {axis!r}")
    return axis


def thin_rod_central_inertia(mass, length, *, axis=0):
    r"""Central inertia of a uniform thin rod along a coordinate axis.

    .. math:: I_C = \operatorname{diag}(0, mL^2/12, mL^2/12) \quad\text{(rod along x)}

    Parameters
    ----------
    mass : array_like
        Mass in kg, positive.
    length : array_like
        Length L in m, positive.
    axis : {0, 1, 2}, optional, keyword only
        Coordinate axis of the rod.

    Returns
    -------
    (..., 3, 3) ndarray
        kg m^2; rank 2, so the spatial inertia has rank 5.

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import inertia
    >>> np.diag(inertia.thin_rod_central_inertia(3.0, 2.0, axis=2))  # m L^2 / 12 = 1 kg m^2 across
    array([1., 1., 0.])
    """
    m = _validate.positive(mass, "mass")
    L = _validate.positive(length, "length")
    moment = m * L**2 / 12
    diag = np.stack([moment, moment, moment], axis=-1)
    diag[..., _axis_index(axis)] = 0.0
    return diag[..., None] * np.eye(3)


def solid_cylinder_central_inertia(mass, radius, length, *, axis=2):
    r"""Central inertia of a uniform solid cylinder with its symmetry axis along ``axis``.

    .. math:: I_C = \operatorname{diag}\Big(\frac{m(3r^2+L^2)}{12}, \frac{m(3r^2+L^2)}{12}, \frac{mr^2}{2}\Big)
              \quad\text{(axis z)}

    Equation :eq:`eq-cylinder-inertia`.

    Parameters
    ----------
    mass : array_like
        Mass in kg, positive.
    radius : array_like
        Radius r in m, positive.
    length : array_like
        Length L in m, positive.
    axis : {0, 1, 2}, optional, keyword only
        Coordinate axis of symmetry (default z).

    Returns
    -------
    (..., 3, 3) ndarray
        kg m^2, positive definite.

    Examples
    --------
    2 kg, radius 0.1 m, length 0.6 m: :math:`m(3r^2 + L^2)/12` = 0.065 kg m^2 across,
    :math:`mr^2/2` = 0.01 kg m^2 about its axis.

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> np.diag(inertia.solid_cylinder_central_inertia(2.0, 0.1, 0.6)).round(12)
    array([0.065, 0.065, 0.01 ])
    """
    m = _validate.positive(mass, "mass")
    r = _validate.positive(radius, "radius")
    L = _validate.positive(length, "length")
    transverse = m * (3 * r**2 + L**2) / 12
    diag = np.stack(np.broadcast_arrays(transverse, transverse, transverse), axis=-1)
    diag[..., _axis_index(axis)] = np.broadcast_to(m * r**2 / 2, transverse.shape)
    return diag[..., None] * np.eye(3)


def solid_box_central_inertia(mass, size):
    r"""Central inertia of a uniform solid box with edges along the coordinate axes.

    .. math:: I_C = \frac{m}{12}\operatorname{diag}(b^2 + c^2,\ a^2 + c^2,\ a^2 + b^2)

    Parameters
    ----------
    mass : array_like
        Mass in kg, positive.
    size : (..., 3) array_like
        Edge lengths (a, b, c) along x, y, z in m, positive.

    Returns
    -------
    (..., 3, 3) ndarray
        kg m^2.

    Examples
    --------
    12 kg, edges 1 x 2 x 3 m: (4 + 9, 1 + 9, 1 + 4) kg m^2.

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> np.diag(inertia.solid_box_central_inertia(12.0, [1.0, 2.0, 3.0])).round(12)
    array([13., 10.,  5.])
    """
    m = _validate.positive(mass, "mass")
    s = _validate.trailing_shape(size, "size", (3,))
    _validate.positive(s, "size")
    s2 = s**2
    diag = m[..., None] / 12 * (s2.sum(axis=-1, keepdims=True) - s2)
    return diag[..., None] * np.eye(3)
