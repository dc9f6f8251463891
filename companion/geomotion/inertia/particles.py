"""Particle model: six point masses with a body's mass, centre of mass and inertia, and their energy."""

from dataclasses import dataclass

import numpy as np

from .. import _validate
from .bodies import (
    _REALIZABILITY_RTOL,
    central_second_moments,
    is_physically_realizable,
)


@dataclass(frozen=True)
class ParticleModel:
    """Six point masses with a body's mass, centre of mass and inertia (:func:`particle_model`).

    Read the fields by name (``particles.masses``); the result does not unpack like a tuple.

    Attributes
    ----------
    masses : (6,) ndarray
        Particle masses in kg (each one sixth of the body's mass).
    positions : (6, 3) ndarray
        Particle positions in m, in the same axes and about the same origin as the
        centre of mass they were built from.
    """

    masses: np.ndarray
    positions: np.ndarray


def particle_model(mass, com, inertia_com, *, rtol=_REALIZABILITY_RTOL):
    r"""Six point masses with exactly the given mass, centre of mass and central inertia.

    With :math:`\Sigma = U\operatorname{diag}(s)U^T` the central second moments, put
    :math:`m/6` at :math:`c \pm \sqrt{3 s_i/m}\,u_i` for each principal axis :math:`u_i`:
    each pair contributes :math:`s_i u_i u_i^T` to :math:`\Sigma`, nothing to the first moment.

    **Batches**: one body per call (``mass`` a scalar, ``com`` of shape (3,)); a tree's
    bodies are modelled one by one, as :mod:`geomotion.verification` does.

    Parameters
    ----------
    mass : float
        Mass in kg, positive.
    com : (3,) array_like
        Centre of mass in m.
    inertia_com : (3, 3) array_like
        Realizable central inertia, kg m^2.
    rtol : float, optional, keyword only
        Relative realizability tolerance, default 1e-10, see
        :func:`is_physically_realizable`.

    Returns
    -------
    ParticleModel
        ``masses`` (6,) in kg and ``positions`` (6, 3) in m, in the same axes and about
        the same origin as ``com``.

    Raises
    ------
    ValueError
        If the inertia is not physically realizable (no non-negative mass
        distribution has it) or arguments are malformed.

    Examples
    --------
    A 12 kg box of 1 x 2 x 3 m becomes six 2 kg particles at the centres of its faces:
    :math:`\sqrt{3s_i/m}` is half an edge, since :math:`s_i = ma_i^2/12`.

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> I_C = inertia.solid_box_central_inertia(12.0, [1.0, 2.0, 3.0])
    >>> particles = inertia.particle_model(12.0, [0.0, 0.0, 0.0], I_C)
    >>> particles.masses
    array([2., 2., 2., 2., 2., 2.])
    >>> np.linalg.norm(particles.positions, axis=1).round(12)  # distances from the centre, m
    array([0.5, 1. , 1.5, 0.5, 1. , 1.5])
    """
    m = float(_validate.positive(mass, "mass"))
    c = _validate.trailing_shape(com, "com", (3,)).reshape(3)
    if not is_physically_realizable(inertia_com, rtol=rtol):
        raise ValueError(
            "inertia_com: expected a physically realizable inertia (triangle inequalities), "
            f"got principal moments {np.linalg.eigvalsh(inertia_com)}"
        )
    s, U = np.linalg.eigh(central_second_moments(inertia_com))
    offsets = np.sqrt(3 * np.clip(s, 0, None) / m) * U  # column i = offset along u_i
    positions = c + np.concatenate([offsets.T, -offsets.T])
    return ParticleModel(masses=np.full(6, m / 6), positions=positions)


def particle_kinetic_energy(masses, positions, V):
    r"""Kinetic energy of point masses moving with a rigid twist, by direct summation.

    .. math:: K = \sum_k \tfrac12 m_k \|v + \omega\times r_k\|^2

    Parameters
    ----------
    masses : (K,) array_like
        Particle masses in kg, non-negative.
    positions : (K, 3) array_like
        Particle positions in m, relative to the twist's reporting origin.
    V : (..., 6) array_like
        Rigid twist (omega [rad/s], v [m/s]) about that origin.

    Returns
    -------
    ndarray or float
        Energy in J, shape ``(...)``.

    Examples
    --------
    The particles of :func:`particle_model`'s box (12 kg, 1 x 2 x 3 m) under a spin of
    1 rad/s about x and a velocity of 0.5 m/s along y: the rigid body's
    :math:`\tfrac12 I_{xx}\omega^2 + \tfrac12 mv^2` = 6.5 + 1.5 J.

    >>> from geomotion import inertia
    >>> I_C = inertia.solid_box_central_inertia(12.0, [1.0, 2.0, 3.0])
    >>> particles = inertia.particle_model(12.0, [0.0, 0.0, 0.0], I_C)
    >>> V = [1.0, 0.0, 0.0, 0.0, 0.5, 0.0]
    >>> float(inertia.particle_kinetic_energy(particles.masses, particles.positions, V).round(9))
    8.0
    >>> I_O = inertia.spatial_inertia(12.0, [0.0, 0.0, 0.0], I_C)
    >>> float(inertia.kinetic_energy(I_O, V).round(9))
    8.0
    """
    m = _validate.nonnegative(masses, "masses")
    r = _validate.trailing_shape(positions, "positions", (3,))
    V = _validate.trailing_shape(V, "V", (6,))
    velocity = V[..., None, 3:] + np.cross(V[..., None, :3], r)
    return 0.5 * np.einsum("k,...ki,...ki->...", m, velocity, velocity)
