"""Planar restriction: the embedding of planar motion and its cross products."""

import numpy as np

from .. import _validate
from .frames import _motion_cross

# ---------------------------------------------------------------------------
# Planar restriction
# ---------------------------------------------------------------------------


def planar_embedding():
    r"""Embedding :math:`E = [e_3\ e_4\ e_5]` of planar motion :math:`\nu = (\omega_z, v_x, v_y)`.

    Motion restricts as :math:`\mathcal V = E\nu`, forces by the dual map
    :math:`E^T\mathcal F = (n_z, f_x, f_y)`, which keeps power:
    :math:`\mathcal F^T E \nu = (E^T\mathcal F)^T \nu`.

    Returns
    -------
    (6, 3) ndarray
        Columns are the 6-D angular-first unit vectors of ``omega_z``, ``v_x``, ``v_y``.

    Examples
    --------
    >>> from geomotion import spatial
    >>> E = spatial.planar_embedding()
    >>> E @ [2.0, 0.5, 0.0]  # omega_z = 2 rad/s, v_x = 0.5 m/s as a 6-D twist
    array([0. , 0. , 2. , 0.5, 0. , 0. ])
    >>> E.T @ [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]  # a wrench's planar part (n_z, f_x, f_y)
    array([3., 4., 5.])
    """
    E = np.zeros((6, 3))
    E[2, 0] = E[3, 1] = E[4, 2] = 1.0
    return E


def planar_motion_cross(nu):
    r"""Planar motion cross product :math:`[\nu\times]_p = E^T [E\nu\times] E`.

    .. math:: [\nu\times]_p = \begin{bmatrix} 0 & 0 & 0 \\ v_y & 0 & -\omega_z \\
              -v_x & \omega_z & 0 \end{bmatrix}

    Equation :eq:`eq-planar-cross`.

    Parameters
    ----------
    nu : (..., 3) array_like
        Planar twist(s) (omega_z [rad/s], v_x [m/s], v_y [m/s]).

    Returns
    -------
    (..., 3, 3) ndarray
        The restricted operator; its first row is zero because planar angular
        velocities about parallel z axes commute.

    Raises
    ------
    ValueError
        If ``nu`` is not a finite (..., 3) array.

    Examples
    --------
    As in 3-D, a spin of 1 rad/s turns a velocity along x towards y:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> spatial.planar_motion_cross([1.0, 0.0, 0.0]) @ [0.0, 1.0, 0.0]
    array([0., 0., 1.])
    >>> nu, E = [1.0, 0.5, -0.2], spatial.planar_embedding()
    >>> bool(np.allclose(spatial.planar_motion_cross(nu), E.T @ spatial.motion_cross(E @ nu) @ E))
    True
    """
    nu = _validate.trailing_shape(nu, "nu", (3,))
    E = planar_embedding()
    return E.T @ _motion_cross(nu @ E.T) @ E


def planar_force_cross(nu):
    r"""Planar force cross product :math:`[\nu\times^*]_p = -[\nu\times]_p^T`.

    Equation :eq:`eq-planar-cross`.

    Parameters
    ----------
    nu : (..., 3) array_like
        Planar twist(s) (omega_z [rad/s], v_x [m/s], v_y [m/s]).

    Returns
    -------
    (..., 3, 3) ndarray
        Acts on planar wrenches (n_z [N m], f_x [N], f_y [N]).

    Raises
    ------
    ValueError
        If ``nu`` is not a finite (..., 3) array.

    Examples
    --------
    A spin of 1 rad/s turns a force along x towards y; duality with
    :func:`planar_motion_cross` holds for any planar twists and wrench:

    >>> import numpy as np
    >>> from geomotion import spatial
    >>> spatial.planar_force_cross([1.0, 0.0, 0.0]) @ [0.0, 1.0, 0.0]
    array([0., 0., 1.])
    >>> nu, mu, F = [1.0, 0.5, -0.2], [0.3, -1.0, 2.0], [0.5, 1.5, -2.0]
    >>> lhs = F @ spatial.planar_motion_cross(nu) @ mu
    >>> bool(np.isclose(lhs, -(spatial.planar_force_cross(nu) @ F) @ mu))
    True
    """
    return -np.swapaxes(planar_motion_cross(nu), -1, -2)
