r"""Contacts: grip twists and wrenches, internal loads, scaled Jacobian measures, the
floating-base count, force-plate centre of pressure, contact feasibility and power.

Two kinds of contact run through the golf swing: the two hands on the club and the two
feet on the ground.  This module collects the small computations they need.

* Grip kinematics and statics -- :func:`contact_point_velocity` (:math:`v_i = v_O +
  \omega\times r_i`), :func:`resultant_wrench` and :func:`grip_wrench` (the net load about
  the club reference point :math:`O`), :func:`grasp_matrix`, :func:`internal_grip_forces`
  and :func:`internal_force_basis` (hand or finger forces that leave the net load
  unchanged).
* Jacobian measures -- :func:`scaled_singular_values` (singular values, condition number
  and :math:`\sqrt{\det JJ^T}` after declared row and column scales) and
  :func:`twist_row_scale`.
* The floating-base count -- :func:`floating_base_mobility`.
* Ground contact -- :func:`center_of_pressure` (with the free moment),
  :func:`contact_feasibility` (compression, friction cone, support polygon) and
  :func:`contact_power`.
* Several feet -- :func:`foot_contacts` (each foot's wrench in its sole frame, centre of
  pressure in the sole and in the world, and the feasibility of the stance),
  :func:`foot_resultant` (the ground's total wrench about a world point),
  :func:`foot_wrench_family` (every distribution of foot wrenches with that resultant:
  a particular one plus a basis of the :math:`6K - 6` indeterminate directions) and
  :func:`load_share_range` (the range of one foot's vertical load over the admissible
  distributions, a linear program), :func:`least_friction` (the least friction
  coefficient with which any distribution is admissible) and :func:`least_violation` (by
  how much every distribution misses the feet's conditions).
* The exact conditions of a flat foot -- :func:`contact_wrench_cone` (the wrenches a
  convex sole polygon can transmit with friction at every point: forces at its vertices
  in the friction pyramid, in face form, after Caron, Pham and Nakamura 2015).
* Whole-body inverse dynamics on planted feet -- :func:`contact_inverse_dynamics` (the
  joint torques and foot wrenches of a given motion: a quadratic program per sample,
  solved by DAQP and certified, or the conditions in conflict where none is admissible).

Conventions (the book's coordinate contract): twists are angular-first
:math:`(\omega, v)` in rad/s and m/s, wrenches moment-first :math:`(n, f)` in N m and N.
A wrench and a twist are only combined when both are expressed about the same reference
point in the same axes.  Offsets :math:`r_i` run from the reference point to contact
:math:`i`, in m, in the axes of the twist and wrench.  Every function of arrays broadcasts
over leading (batch) axes; :func:`internal_force_basis` needs one contact geometry per
batch, and :func:`floating_base_mobility` counts (its **Batches** paragraphs say why).
Options are keyword-only and results with several fields are frozen dataclasses read by
name (``book/api_convention.md``).

What these computations do not establish: a zero resultant does not make an internal
squeeze harmless (it changes grip stiffness and later contact behaviour); a small
manipulability volume is not a stiffness, curvature or stabilizability statement; the
full wrench carries more than its centre of pressure (the free moment, for one); and an
equality-constrained contact wrench is a physical prediction only while
:func:`contact_feasibility` accepts it.
"""

from .feet import (
    FootContacts,
    FootWrenchFamily,
    foot_contacts,
    foot_resultant,
    foot_wrench_family,
)
from .grip import (
    InternalGripForces,
    contact_point_velocity,
    grasp_matrix,
    grip_wrench,
    internal_force_basis,
    internal_grip_forces,
    resultant_wrench,
)
from .ground import (
    CONVENTIONS,
    CenterOfPressure,
    ContactFeasibility,
    center_of_pressure,
    contact_feasibility,
    contact_power,
)
from .inverse_dynamics import ContactInverseDynamics, contact_inverse_dynamics
from .measures import (
    ScaledSingularValues,
    floating_base_mobility,
    scaled_singular_values,
    twist_row_scale,
)
from .sharing import (
    LeastFriction,
    LoadShareRange,
    least_friction,
    least_violation,
    load_share_range,
)
from .wrench_cone import ContactWrenchCone, contact_wrench_cone

__all__ = [
    "CONVENTIONS",
    "contact_point_velocity",
    "resultant_wrench",
    "grip_wrench",
    "grasp_matrix",
    "InternalGripForces",
    "internal_grip_forces",
    "internal_force_basis",
    "ScaledSingularValues",
    "scaled_singular_values",
    "twist_row_scale",
    "floating_base_mobility",
    "CenterOfPressure",
    "center_of_pressure",
    "ContactFeasibility",
    "contact_feasibility",
    "contact_power",
    "FootContacts",
    "foot_contacts",
    "foot_resultant",
    "FootWrenchFamily",
    "foot_wrench_family",
    "LoadShareRange",
    "load_share_range",
    "LeastFriction",
    "least_friction",
    "least_violation",
    "ContactWrenchCone",
    "contact_wrench_cone",
    "ContactInverseDynamics",
    "contact_inverse_dynamics",
]
