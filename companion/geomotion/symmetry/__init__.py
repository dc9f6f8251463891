r"""Symmetry: locked inertia, the mechanical connection, reconstruction, and the dynamic
and geometric phase of a shape loop.

The model has one symmetry coordinate :math:`\theta` (rad, e.g. the heading of a body
rotating in a plane) and :math:`k` shape coordinates :math:`s`.  Its kinetic energy is
(equation :eq:`eq-ch2-symmetry-kinetic-energy`)

.. math:: T = \tfrac12 I(s)\dot\theta^2 + \dot\theta\,a(s)^T\dot s
              + \tfrac12\dot s^TH(s)\dot s
          = \tfrac12\begin{bmatrix}\dot\theta\\ \dot s\end{bmatrix}^T
            \begin{bmatrix}I & a^T\\ a & H\end{bmatrix}
            \begin{bmatrix}\dot\theta\\ \dot s\end{bmatrix},

so the :math:`(1+k)\times(1+k)` kinetic metric in :math:`(\theta, s)` coordinates holds
the *locked inertia* :math:`I = \partial^2T/\partial\dot\theta^2` (the metric entry
itself: :math:`T` carries the one half, :math:`I` does not), the group--shape *coupling*
:math:`a` and the shape block :math:`H`.  The momentum conjugate to :math:`\theta` is
:math:`p_\theta = \partial T/\partial\dot\theta = I\dot\theta + a^T\dot s`.  Solving it
for the rate gives the reconstruction equation :eq:`eq-ch2-mechanical-connection`

.. math:: \dot\theta = I^{-1}p_\theta - A(s)\dot s,\qquad A = I^{-1}a^T,

with :math:`A` the *mechanical connection*.  It needs the cross block :math:`a`: the
shape derivatives of :math:`I` alone do not determine it.  Integrating over a closed shape loop
traversed in time :math:`[0, T]` splits the net rotation in two
(:eq:`eq-ch2-berry-phase-formula`):

.. math:: \Delta\theta = \underbrace{\int_0^T I(s(t))^{-1}p_\theta\,dt}_{\text{dynamic}}
                        \;\underbrace{-\oint A(s)\,ds}_{\text{geometric}}.

The geometric part depends only on the loop traced in shape space, not on how fast it is
traversed; at zero momentum it is all that remains.

When the momentum is conserved
------------------------------
:math:`\dot p_\theta = 0` needs two things: :math:`\theta` is cyclic (the Lagrangian does
not depend on it, so constraints and potentials must respect the symmetry too) and no
applied load acts about it.  A known external torque :math:`\tau(t)` about :math:`\theta`
instead gives :math:`p_\theta(t) = p_\theta(0) + \int_0^t\tau\,dt'`, which only adds to
the dynamic phase (exercise :eq:`eq-ex2-phase-torque`): :func:`dynamic_phase` and
:func:`loop_phase` take it as ``tau``.  A
golfer standing on the ground receives such moments from the ground, so conservation is a
property of a model, to be checked, not a given.

Scope
-----
Everything here is for a single, scalar symmetry coordinate, whose rotations commute.
Spatial rotations do not: a group-valued reconstruction :math:`g^{-1}\dot g = \dots`
must then be integrated in time order (ordered transport), the net rotation is not the
line integral of a scalar one-form, and neither :eq:`eq-ch2-berry-phase-formula` nor the
area formula below
applies as written.

Quadrature
----------
A sampled path is read as piecewise linear between its samples, in shape and (for the
dynamic phase) in time.  Each segment is integrated by Gauss--Legendre quadrature with
five nodes, exact when the integrand is a polynomial of degree up to 9 along the
segment.  Polygonal loops, such as the rectangle
example, are therefore integrated exactly (to rounding) when :math:`I` is constant and
:math:`a` a polynomial of modest degree, and otherwise to an error that falls very fast
as the segments shorten (a rational :math:`A = a/I` is smooth but not polynomial).  For
a smooth curve sampled at spacing :math:`h` the error is that of replacing the curve by
the inscribed polygon (and the timing by a piecewise-linear one), of second order
(:math:`O(h^2)`; for a circle of :math:`K` segments the enclosed area is short by the
fraction :math:`(2\pi/K)^2/6`).  Refine the sampling, not the quadrature, to converge.

Stokes' theorem
---------------
For two shape coordinates and a loop bounding a region :math:`D` of a patch where
:math:`A` is smooth, :math:`\oint_{\partial D}A\,ds = \iint_D(\partial_1A_2 -
\partial_2A_1)\,ds_1ds_2` for counterclockwise traversal (a self-crossing loop counts each
region with its winding number).  The geometric phase is then minus the integral of the
curvature :math:`dA` over the enclosed area, and reversing the loop flips its sign.

:func:`connection_curvature` evaluates :math:`dA` at shape points, and
:func:`gaussian_curvature` the curvature of any two-dimensional metric (zero exactly
where it is locally Euclidean, whatever its Christoffel symbols).

Callables
---------
``locked_inertia`` and ``coupling`` may be constants or functions of one shape sample
``s`` (shape ``(k,)``), returning a float (kg m^2) and a ``(k,)`` array; ``tau`` may
be a constant or a function of one time (s) returning a float (N m); ``metric`` (of
:func:`gaussian_curvature`) a function of one point returning a (2, 2) matrix.  They go
through the package's one contract for functions you pass in (see the API convention
page): a function that broadcasts over a stack of points (index ``s[..., i]``) is called
once on all quadrature nodes, one written for a single point is called once per node;
every value is checked for shape and finiteness, and an exception it raises reaches you
unchanged.

Units: :math:`\theta` in rad, :math:`I` in kg m^2, :math:`p_\theta` in N m s, torques in
N m, times in s; :math:`a` and :math:`A` per unit of the shape coordinates (:math:`A` in
rad per unit of :math:`s`).  The value functions broadcast over leading (batch) axes, and
so do the phase functions over stacks of paths.
"""

from .connection import (
    KineticBlocks,
    conjugate_momentum,
    kinetic_blocks,
    kinetic_metric,
    mechanical_connection,
    reconstruct_rate,
)
from .curvature import connection_curvature, gaussian_curvature
from .example import constant_curvature_coupling, constant_curvature_metric, rectangle_loop
from .phase import LoopPhase, dynamic_phase, geometric_phase, loop_phase

__all__ = [
    "KineticBlocks",
    "LoopPhase",
    "conjugate_momentum",
    "connection_curvature",
    "constant_curvature_coupling",
    "constant_curvature_metric",
    "dynamic_phase",
    "gaussian_curvature",
    "geometric_phase",
    "kinetic_blocks",
    "kinetic_metric",
    "loop_phase",
    "mechanical_connection",
    "reconstruct_rate",
    "rectangle_loop",
]
