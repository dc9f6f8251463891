r"""Redundancy and allocation: choosing one input (or velocity) among many that do the job.

A linear requirement :math:`Gu = b` with :math:`m` unknowns and numerical rank :math:`r`
has, when :math:`b\in\operatorname{range}G`, the affine family of solutions
(equation :eq:`eq-ch2-general-control`)

.. math:: u = G^+b + (I - G^+G)z,\qquad z\in\mathbb R^m,

of dimension :math:`m - r` (:func:`solution_family`, :func:`redundancy_dimension`).  Its
members change the input without changing the instantaneous acceleration of the ideal
model (reactions may still change).  Fewer inputs do not make more solutions: with
:math:`m < d` and full column rank the family is a single point.

Picking one member is a modelling choice expressed by an objective:

* the :math:`W`-weighted minimum of :math:`\tfrac12u^TWu` gives
  :eq:`eq-ch2-optimal-null-space`, :func:`weighted_allocation`; the Euclidean
  pseudoinverse is the special case :math:`W = I`, not a neutral default;
* the same algebra with the mass matrix, :math:`\tfrac12v^TMv` subject to
  :math:`Av = b`, gives the minimum-kinetic-energy velocity
  :eq:`eq-ch2-minimum-energy-velocity`, :func:`minimum_energy_velocity` (stack the
  constraint rows over the task rows with :func:`stack_constraint_and_task`);
* bounds on the unknowns (actuator limits, muscles that only pull) turn the choice into
  a constrained optimization solved numerically: :func:`bounded_allocation` (weighted
  quadratic objective, general box) and :func:`muscle_forces` (stress objective
  :math:`\sum_i(s_i/A_i)^p` on :math:`0\le s\le s_{\max}`).  Bounds can make an
  algebraically solvable request infeasible; that is reported, never clipped away.

Units follow the caller's problem: :math:`G` maps input units to acceleration units
(e.g. rad/s^2 per N m) and :math:`b` is an acceleration; for muscles :math:`R` holds
moment arms in m, :math:`s` is in N, :math:`\tau` in N m, areas in m^2.  Linear systems
are solved with SVD, QR and Cholesky factors, never with explicit inverses.  Every
function broadcasts over leading (batch) axes: the closed forms in one vectorized solve,
the bounded ones one problem after another (see ``geomotion.allocation.bounded``); a rank
that varies across a batch is reported per element.  Options (``rtol``, ``p``) are
keyword-only, each tolerance with its default in the signature; results with several
fields are frozen dataclasses read by name (``book/api_convention.md``).
"""

from .bounded import BoundedAllocation, bounded_allocation, muscle_forces
from .family import SolutionFamily, redundancy_dimension, solution_family
from .weighted import (
    StackedTask,
    minimum_energy_velocity,
    stack_constraint_and_task,
    weighted_allocation,
)

__all__ = [
    "BoundedAllocation",
    "SolutionFamily",
    "StackedTask",
    "bounded_allocation",
    "minimum_energy_velocity",
    "muscle_forces",
    "redundancy_dimension",
    "solution_family",
    "stack_constraint_and_task",
    "weighted_allocation",
]
