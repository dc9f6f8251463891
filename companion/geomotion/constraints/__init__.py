r"""Ideal constraints on generalized coordinates: regularity, reactions, projectors,
reduced dynamics, loop closures and integrability.

With :math:`c` ideal stationary constraints :math:`\Phi(q) = 0` on :math:`n` coordinates,
Jacobian :math:`J_c = \partial\Phi/\partial q` and :math:`\gamma = \dot J_c v`, the
equations of motion are

.. math:: M\dot v + h = \tau + J_c^T\lambda,\qquad J_c\dot v + \gamma = 0,

with :math:`M` the joint mass matrix, :math:`h` the velocity and gravity loads,
:math:`\tau = Bu` the applied generalized load and :math:`J_c^T\lambda` the reaction
(equations :eq:`eq-ch2-euler-lagrange-constrained` and :eq:`eq-ch2-accel-constraint`).
Eliminating :math:`\lambda` with :math:`K_c = J_cM^{-1}J_c^T` (:eq:`eq-ch2-multiplier`) gives
:func:`constrained_dynamics`; the same algebra gives the projectors :math:`P_v`, :math:`P_F`
(:func:`projectors`, :eq:`eq-ch2-projectors`) and the control-affine form
:math:`\dot v = f + Gu` (:func:`reduced_dynamics`, :eq:`eq-ch2-reduced-dynamics`).  The
null-space route with a tangent basis :math:`N` (:func:`null_space_basis`,
:func:`null_space_reduction`, :func:`kinetic_projector`; :eq:`eq-null-space-reduction`)
reaches the same accelerations without computing :math:`\lambda` first.

The constraint protocol
-----------------------
A *constraint* is any object with three methods, each broadcasting over leading axes:

* ``residual(q)`` -> ``(..., c)``: :math:`\Phi(q)`, zero on the constraint set (in the
  constraint's own units, e.g. m for a loop closure);
* ``jacobian(q)`` -> ``(..., c, n)``: :math:`J_c(q)`;
* ``acceleration_bias(q, v)`` -> ``(..., c)``: :math:`\gamma = \dot J_c v`, the second derivative of
  :math:`\Phi` along the motion at :math:`\dot v = 0`, so that :math:`J_c\dot v + \gamma = 0`
  (:eq:`eq-ch2-accel-constraint`).

:func:`loop_closure` (two points) and :func:`frame_closure` (two frames, any subset of
the six relative-motion components: welds, revolute, spherical, planar joints, planted
feet) build one from a :class:`geomotion.tree.Tree`; :class:`ClosureSet` stacks several
frame closures into one, evaluated in one compiled pass, and its
:meth:`ClosureSet.forward_dynamics` gives the tree's closed-loop accelerations and
multipliers from :math:`(q, v, \tau)`, a batch in one compiled pass;
:class:`FunctionConstraint` wraps three functions (e.g. an analytic example).
Velocity-level (Pfaffian) constraints :math:`A(q)v = 0` that need not come from any
:math:`\Phi` are tested for integrability by :func:`one_form_integrability`
(:eq:`eq-ch2-alpha-wedge`) and :func:`frobenius_involutivity`.

Units: generalized coordinates carry their own units (rad for revolute, m for prismatic
joints) and :math:`M`, :math:`h`, :math:`\tau` follow from them (kg m^2, N m for revolute
coordinates).  :math:`\lambda` has the units of load per unit constraint: N for a
position constraint in m, N m for an angle.  Linear systems are solved with Cholesky (or
QR) factors, never with explicit inverses.  Every function broadcasts over leading axes;
a rank is reported per element of a batch, and an irregular element of a batch is named
by its index and rank in the error.  Tolerances are keyword arguments: ``rtol`` is always
relative (a singular value counts as zero when it is at most ``rtol`` times the largest),
``atol`` absolute in the units of what it bounds, ``step`` a difference step in the units
of q.
"""

from ..tree import JacobianAndBias  # defined once in tree (the layer below), re-exported
from .closures import (
    REVOLUTE_ROTATION_ENTRIES,
    FunctionConstraint,
    LoopClosure,
    loop_closure,
    revolute_joint_jacobian,
    revolute_joint_residual,
)
from .dynamics import (
    ConstrainedDynamics,
    NullSpaceReduction,
    Projectors,
    ReducedDynamics,
    constrained_dynamics,
    constraint_rank,
    kinetic_projector,
    mobility,
    null_space_basis,
    null_space_reduction,
    projectors,
    reduced_dynamics,
    reduced_inertia,
)
from .frame_closures import (
    FRAME_CLOSURE_COMPONENTS,
    ClosureSet,
    FrameClosure,
    frame_closure,
)
from .integrability import (
    IntegrabilityTest,
    exterior_derivative,
    frobenius_involutivity,
    one_form_integrability,
)

__all__ = [
    "REVOLUTE_ROTATION_ENTRIES",
    "constraint_rank",
    "mobility",
    "null_space_basis",
    "ConstrainedDynamics",
    "constrained_dynamics",
    "Projectors",
    "projectors",
    "ReducedDynamics",
    "reduced_dynamics",
    "kinetic_projector",
    "reduced_inertia",
    "NullSpaceReduction",
    "null_space_reduction",
    "FunctionConstraint",
    "LoopClosure",
    "loop_closure",
    "FRAME_CLOSURE_COMPONENTS",
    "FrameClosure",
    "frame_closure",
    "ClosureSet",
    "JacobianAndBias",
    "revolute_joint_residual",
    "revolute_joint_jacobian",
    "exterior_derivative",
    "IntegrabilityTest",
    "one_form_integrability",
    "frobenius_involutivity",
]
