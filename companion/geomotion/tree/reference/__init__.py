r"""The readable oracle of every algorithm of :mod:`geomotion.tree`.

Each algorithm is written here once, as the book writes it: body by body, on explicit
poses and 6x6 operators in the user's own body frames, with the configurations as
leading axes.  The compiled path (:func:`geomotion.tree.crba`, :func:`~geomotion.tree.rnea`,
:func:`~geomotion.tree.aba`, :func:`~geomotion.tree.coriolis_matrix`, the frame and point
kinematics) is tested against these functions and shares no code with them: no module
of the compiled path imports this one (``tests/companion/test_api_convention.py``
checks).

======================================  ==============================================
algorithm                               readable oracle (here)  /  compiled kernel
======================================  ==============================================
joint-space mass matrix (CRBA)          :func:`crba`, :func:`~geomotion.tree.joint_mass_matrix` on
                                        :func:`~geomotion.tree.prepare`  /  :func:`geomotion.tree.crba`
inverse dynamics (RNEA)                 :func:`rnea`  /  :func:`geomotion.tree.rnea`
forward dynamics (ABA)                  :func:`aba`  /  :func:`geomotion.tree.aba`
Coriolis matrix                         :func:`coriolis_matrix`  /
                                        :func:`geomotion.tree.coriolis_matrix`
point kinematics                        :func:`point_kinematics`  /
                                        :func:`geomotion.tree.point_jacobian`, ...
body poses, twists, Jacobians           :func:`~geomotion.tree.forward_kinematics`, :func:`~geomotion.tree.body_twists`,
                                        :func:`~geomotion.tree.body_jacobians` (no kernel)
======================================  ==============================================

The readable path of the book's first chapter (:class:`~geomotion.tree.PreparedTree`, :func:`~geomotion.tree.prepare`,
:func:`~geomotion.tree.composite_inertias`, :func:`~geomotion.tree.joint_mass_matrix`) and the energies and momentum are
also exported by :mod:`geomotion.tree` itself.
"""

from ._dynamics import aba, coriolis_matrix, rnea
from ._kinematics import (
    PointKinematics,
    body_jacobians,
    body_twists,
    center_of_mass,
    forward_kinematics,
    joint_transforms,
    kinetic_energy,
    point_kinematics,
    potential_energy,
    spatial_momentum,
)
from ._prepared import PreparedTree, composite_inertias, crba, joint_mass_matrix, prepare

__all__ = [
    "PreparedTree",
    "prepare",
    "composite_inertias",
    "joint_mass_matrix",
    "crba",
    "rnea",
    "aba",
    "coriolis_matrix",
    "joint_transforms",
    "forward_kinematics",
    "body_jacobians",
    "body_twists",
    "point_kinematics",
    "PointKinematics",
    "kinetic_energy",
    "potential_energy",
    "center_of_mass",
    "spatial_momentum",
]
