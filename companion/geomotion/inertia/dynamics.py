"""Inertia in motion: change of frame, kinetic energy, momentum, Newton–Euler, planar restriction."""

import numpy as np

from .. import _validate
from .._kernels import _force_transform
from ..spatial import planar_embedding


def transform_inertia(I_B, T_AB):
    r"""Re-express a spatial inertia from frame B in frame A (a congruence).

    .. math:: \mathcal I_A = \mathrm{Ad}_{T_{AB}}^{-T}\,\mathcal I_B\,\mathrm{Ad}_{T_{AB}}^{-1}

    It follows from :math:`K = \tfrac12\mathcal V_B^T\mathcal I_B\mathcal V_B` with
    :math:`\mathcal V_B = \mathrm{Ad}^{-1}\mathcal V_A`.  Not a similarity: rank and
    definiteness are kept, 6-D eigenvalues are not.  Singular ideal inertias are fine.
    Equation :eq:`eq-inertia-congruence`, and :eq:`conv-inertia-congruence` of the
    conventions.

    Parameters
    ----------
    I_B : (..., 6, 6) array_like
        Spatial inertia about B's origin in B's axes (symmetric).
    T_AB : (..., 4, 4) array_like
        Pose of B in A (translation in m).

    Returns
    -------
    (..., 6, 6) ndarray
        The same body's inertia about A's origin in A's axes.

    Raises
    ------
    ValueError
        If ``I_B`` is not a finite symmetric (..., 6, 6) array or ``T_AB`` not a rigid pose.

    Examples
    --------
    A uniform 0.3 m rod of 1 kg, given about its centre along B's x axis, turned to lie
    along A's y axis with its centre at (0, 0.15, 0) m: about A's origin (the rod's end)
    it has :math:`mL^2/3` = 0.03 kg m^2 across and nothing about its own axis.

    >>> import numpy as np
    >>> from geomotion import inertia, spatial
    >>> I_C = inertia.thin_rod_central_inertia(1.0, 0.3, axis=0)
    >>> I_B = inertia.spatial_inertia(1.0, [0.0, 0.0, 0.0], I_C)
    >>> T_AB = spatial.pose(spatial.rot_z(np.radians(90)), [0.0, 0.15, 0.0])
    >>> np.diag(inertia.transform_inertia(I_B, T_AB)[:3, :3]).round(6)
    array([0.03, 0.  , 0.03])
    """
    I_B = _validate.trailing_shape(I_B, "I_B", (6, 6))
    if np.any(np.abs(I_B - np.swapaxes(I_B, -1, -2)) > 1e-12 * (1 + np.abs(I_B).max())):
        raise ValueError("I_B: expected a symmetric 6x6 spatial inertia, got an asymmetric matrix")
    T = _validate.pose(T_AB, "T_AB")
    X = _force_transform(T[..., :3, :3], T[..., :3, 3])  # Ad^{-T}; its transpose is Ad^{-1}
    return X @ I_B @ np.swapaxes(X, -1, -2)


def kinetic_energy(I, V):
    r"""Kinetic energy :math:`K = \tfrac12\mathcal V^T\mathcal I\mathcal V` in J.

    Equation :eq:`eq-kinetic-energy-quadratic`.

    Parameters
    ----------
    I : (..., 6, 6) array_like
        Spatial inertia about some origin, in some axes.
    V : (..., 6) array_like
        The body's twist about the same origin in the same axes.

    Returns
    -------
    ndarray or float
        Energy in J, broadcast leading shape.

    Examples
    --------
    The rod of :func:`spatial_inertia`'s example (1 kg, 0.3 m, frame at one end) spinning
    about that end at 2 rad/s: :math:`\tfrac12 (mL^2/3)\,\omega^2` = 0.06 J.

    >>> from geomotion import inertia
    >>> I_C = inertia.thin_rod_central_inertia(1.0, 0.3, axis=0)
    >>> I_O = inertia.spatial_inertia(1.0, [0.15, 0.0, 0.0], I_C)
    >>> float(inertia.kinetic_energy(I_O, [0.0, 0.0, 2.0, 0.0, 0.0, 0.0]).round(9))
    0.06
    """
    I = _validate.trailing_shape(I, "I", (6, 6))
    V = _validate.trailing_shape(V, "V", (6,))
    return 0.5 * np.einsum("...i,...ij,...j->...", V, I, V)


def momentum(I, V):
    r"""Spatial momentum :math:`\mathcal P = \mathcal I\mathcal V` (moment-first).

    The upper block is the angular momentum about the reporting origin (kg m^2/s),
    the lower block the total linear momentum (kg m/s).  Equation :eq:`eq-spatial_momentum`.

    Parameters
    ----------
    I : (..., 6, 6) array_like
        Spatial inertia.
    V : (..., 6) array_like
        Twist about the same origin in the same axes.

    Returns
    -------
    (..., 6) ndarray

    Examples
    --------
    The spinning rod of :func:`kinetic_energy`'s example: angular momentum
    :math:`(mL^2/3)\,\omega` = 0.06 kg m^2/s about z, linear momentum
    :math:`m\omega L/2` = 0.3 kg m/s along y.

    >>> from geomotion import inertia
    >>> I_C = inertia.thin_rod_central_inertia(1.0, 0.3, axis=0)
    >>> I_O = inertia.spatial_inertia(1.0, [0.15, 0.0, 0.0], I_C)
    >>> inertia.momentum(I_O, [0.0, 0.0, 2.0, 0.0, 0.0, 0.0]).round(9)
    array([0.  , 0.  , 0.06, 0.  , 0.3 , 0.  ])
    """
    I = _validate.trailing_shape(I, "I", (6, 6))
    V = _validate.trailing_shape(V, "V", (6,))
    return np.einsum("...ij,...j->...i", I, V)


def newton_euler_bias(I, V):
    r"""Velocity-product term of the body-frame Newton–Euler equation, :math:`[\mathcal V\times^*]\mathcal I\mathcal V`.

    It does no power on the body's own motion: :math:`\mathcal V^T[\mathcal V\times^*]\mathcal I\mathcal V = 0`.
    The second term of equation :eq:`eq-spatial_newton_euler_final`.

    Parameters
    ----------
    I : (..., 6, 6) array_like
        Body-fixed spatial inertia (constant in body coordinates).
    V : (..., 6) array_like
        Body twist in body coordinates.

    Returns
    -------
    (..., 6) ndarray
        Wrench, moment-first (N m, N).

    Raises
    ------
    ValueError
        If ``I`` is not a finite (..., 6, 6) array or ``V`` not a finite (..., 6) array.

    Examples
    --------
    The same rod spinning steadily about its end at 2 rad/s needs only the centripetal
    force :math:`m\omega^2L/2` = 0.6 N, towards the joint (-x in the body frame):

    >>> from geomotion import inertia
    >>> I_C = inertia.thin_rod_central_inertia(1.0, 0.3, axis=0)
    >>> I_O = inertia.spatial_inertia(1.0, [0.15, 0.0, 0.0], I_C)
    >>> inertia.newton_euler_bias(I_O, [0.0, 0.0, 2.0, 0.0, 0.0, 0.0]).round(9)
    array([ 0. ,  0. ,  0. , -0.6,  0. ,  0. ])
    """
    V = _validate.trailing_shape(V, "V", (6,))
    P = momentum(I, V)
    w, v = V[..., :3], V[..., 3:]
    n, f = P[..., :3], P[..., 3:]
    return np.concatenate([np.cross(w, n) + np.cross(v, f), np.cross(w, f)], axis=-1)


def newton_euler_wrench(I, V, A):
    r"""Net wrench on a rigid body from the body-frame Newton–Euler equation.

    .. math:: \mathcal F_B = \mathcal I_B\dot{\mathcal V}_B + [\mathcal V_B\times^*]\,\mathcal I_B\mathcal V_B

    ``A`` (:math:`\dot{\mathcal V}_B`, the body's twist rate, as ``a`` is the rate of
    ``v``) differentiates the body-coordinate components of ``V``; its linear block
    is not the Cartesian acceleration of the origin (that is
    :math:`\dot v_B + \omega_B\times v_B`, :eq:`eq-body-origin-acceleration`).
    Equation :eq:`eq-spatial_newton_euler_final`; about the centre of mass, whose inertia
    is block diagonal, its two blocks are the balances :eq:`eq-ch2-newton-euler-com`.

    Parameters
    ----------
    I : (..., 6, 6) array_like
        Body-fixed spatial inertia.
    V : (..., 6) array_like
        Body twist (rad/s, m/s).
    A : (..., 6) array_like
        Time derivative :math:`\dot{\mathcal V}_B` of the body twist components
        (rad/s^2, m/s^2).

    Returns
    -------
    (..., 6) ndarray
        Net applied wrench in body coordinates (N m, N).

    Raises
    ------
    ValueError
        If an argument is not a finite array of the stated trailing shape.

    Examples
    --------
    The rod of :func:`newton_euler_bias`'s example, also speeding up at 1 rad/s^2: the
    torque :math:`(mL^2/3)\,\alpha` = 0.03 N m and the tangential force
    :math:`m\alpha L/2` = 0.15 N join the centripetal -0.6 N.

    >>> from geomotion import inertia
    >>> I_C = inertia.thin_rod_central_inertia(1.0, 0.3, axis=0)
    >>> I_O = inertia.spatial_inertia(1.0, [0.15, 0.0, 0.0], I_C)
    >>> V, A = [0.0, 0.0, 2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    >>> inertia.newton_euler_wrench(I_O, V, A).round(9)
    array([ 0.  ,  0.  ,  0.03, -0.6 ,  0.15,  0.  ])
    """
    return momentum(I, _validate.trailing_shape(A, "A", (6,))) + newton_euler_bias(I, V)


def planar_inertia(I):
    r"""Planar restriction :math:`\mathcal I_p = E^T\mathcal I E` of a spatial inertia.

    For :math:`c = (c_x, c_y, 0)` and central moment :math:`J_C` about z,

    .. math:: \mathcal I_p = \begin{bmatrix} J_C + m(c_x^2+c_y^2) & -mc_y & mc_x \\
              -mc_y & m & 0 \\ mc_x & 0 & m \end{bmatrix}

    Equation :eq:`eq-planar-inertia`.

    Parameters
    ----------
    I : (..., 6, 6) array_like
        Spatial inertia.

    Returns
    -------
    (..., 3, 3) ndarray
        Acts on planar twists (omega_z, v_x, v_y).

    Examples
    --------
    Link 1 of the two-link arm (2 kg, centre 0.3 m along x, :math:`J_C` = 0.01 kg m^2):
    :math:`J_C + mc_x^2` = 0.19 kg m^2, :math:`mc_x` = 0.6 kg m, :math:`m` = 2 kg.

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> I_O = inertia.spatial_inertia(2.0, [0.3, 0, 0], 0.01 * np.diag([5, 5, 1]))
    >>> inertia.planar_inertia(I_O).round(9)
    array([[0.19, 0.  , 0.6 ],
           [0.  , 2.  , 0.  ],
           [0.6 , 0.  , 2.  ]])
    """
    I = _validate.trailing_shape(I, "I", (6, 6))
    E = planar_embedding()
    return E.T @ I @ E
