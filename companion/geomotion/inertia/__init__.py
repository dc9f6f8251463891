r"""Rigid-body inertia: spatial inertia, physical realizability, shape models and energy.

A spatial inertia :math:`\mathcal I_O` (6x6) maps an angular-first twist about an
origin O to the body's momentum about O (moment-first): :math:`\mathcal P = \mathcal I_O\mathcal V`,
and gives the kinetic energy :math:`K = \tfrac12\mathcal V^T\mathcal I_O\mathcal V`.
Its blocks carry kg m^2 (rotational), kg m (coupling) and kg (translational).

The particle model (:func:`particle_model`, :func:`particle_kinetic_energy`) is an
independent route to the same energies: it replaces a body by six point masses with
exactly the same mass, centre of mass and rotational inertia, and sums
:math:`\tfrac12 m_k\|v + \omega\times r_k\|^2` directly.

Files, by idea: ``bodies.py`` (spatial inertia from mass properties and back, the
realizability test), ``shapes.py`` (ideal shapes), ``dynamics.py`` (change of frame,
energy, momentum, Newton–Euler, planar restriction), ``particles.py`` (the particle
model).
"""

from .bodies import (
    InertiaFrameWarning,
    MassProperties,
    central_second_moments,
    is_physically_realizable,
    mass_properties,
    spatial_inertia,
    spatial_inertia_about_origin,
)
from .dynamics import (
    kinetic_energy,
    momentum,
    newton_euler_bias,
    newton_euler_wrench,
    planar_inertia,
    transform_inertia,
)
from .particles import ParticleModel, particle_kinetic_energy, particle_model
from .shapes import (
    point_mass_central_inertia,
    solid_box_central_inertia,
    solid_cylinder_central_inertia,
    thin_rod_central_inertia,
)

__all__ = [
    "spatial_inertia",
    "spatial_inertia_about_origin",
    "InertiaFrameWarning",
    "MassProperties",
    "mass_properties",
    "central_second_moments",
    "is_physically_realizable",
    "point_mass_central_inertia",
    "thin_rod_central_inertia",
    "solid_cylinder_central_inertia",
    "solid_box_central_inertia",
    "transform_inertia",
    "kinetic_energy",
    "momentum",
    "newton_euler_bias",
    "newton_euler_wrench",
    "planar_inertia",
    "ParticleModel",
    "particle_model",
    "particle_kinetic_energy",
]
