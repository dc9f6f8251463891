r"""Geometric control: Lie brackets and accessibility, Pontryagin helpers, LQR, iLQR, observability.

Files, by idea:

* ``brackets.py``: :func:`lie_bracket` :math:`[X, Y] = DY\,X - DX\,Y` (equation
  :eq:`eq-ch2-lie-bracket`; exact Jacobians or central differences),
  :func:`field_jacobian`, the :class:`ControlAffineSystem`
  :math:`\dot x = f(x) + \sum_i g_i(x)u_i`, and :func:`accessibility_rank`, the rank of its
  iterated brackets with the brackets that supplied it (:class:`AccessibilityReport`);
* ``examples.py``: the chapter's fields -- :func:`oscillator_fields` (:math:`[X, Y] =
  (-1, 0)`), :func:`car_kinematics`, :func:`forward_drift_example`;
* ``mechanical.py``: the first-order fields :math:`F_0 = (v, f)`, :math:`F_i = (0, G_i)`
  of second-order mechanics (:func:`second_order_fields`), built from
  :func:`geomotion.constraints.reduced_dynamics` by :func:`mechanical_fields`
  (equations :eq:`eq-ch2-drift` and :eq:`eq-ch2-input-field`);
* ``pontryagin.py``: minimizing the Hamiltonian over the inputs (:eq:`eq-ch2-pontryagin`)
  -- :func:`bang_bang_control`, :func:`quadratic_control`, :func:`box_quadratic_control`;
* ``ilqr.py``: :func:`ilqr` for discrete transitions (rollout :eq:`eq-ch2-ilqr-rollout`),
  with :class:`QuadraticCost` (its derivatives read by name: :class:`RunningCostDerivatives`,
  :class:`TerminalCostDerivatives`);
* ``riccati.py``: the infinite-horizon LQR gains of a linear system, each checked before it
  is returned -- :func:`lqr` in continuous time (the CARE, by scipy's Schur method, with
  the closed loop's eigenvalues, :class:`LQRResult`) and :func:`discrete_lqr` in discrete
  time (the DARE by structure-preserving doubling, :class:`DiscreteLQRResult`);
* ``discretization.py``: :func:`zero_order_hold`, the exact discrete :math:`(A_d, B_d)` of
  :math:`\dot z = Az + Bu` with the input held over each step (:class:`ZeroOrderHold`);
* ``observability.py``: :func:`observability_rank` from output Lie derivatives.

Rank is not reachability
------------------------
Four different statements, in decreasing strength of what is usually wanted:

* *reachability over a horizon*: a given target can be reached from :math:`x` in a
  given forward time with admissible inputs;
* *small-time local controllability* (STLC): every state near :math:`x` can be reached in
  arbitrarily short time;
* *accessibility*: the states reachable in short time fill a set with nonempty interior;
* the *accessibility rank condition*: the fields and their iterated brackets span the
  tangent space at :math:`x` -- what :func:`accessibility_rank` checks.

For analytic fields the rank condition implies accessibility, nothing more.  With drift,
neither STLC nor reachability follows: :math:`\dot x_1 = 1`, :math:`\dot x_2 = u` has full
rank everywhere, yet :math:`x_1` can only grow.  For driftless systems whose inputs can
take both signs, full rank on a connected region gives controllability there
(Chow-Rashevskii); a bracket direction is then produced by a sequence of motions forward
and back (the car's sideways motion), not by any input at an instant.  In second-order
mechanics the input fields :math:`(0, G_i(q))` bracket to zero among themselves, so
brackets with the drift are indispensable, and the state dimension to reach is
:math:`2d`, not the :math:`d` acceleration directions.

Every vector field and output is a callable of the state.  It may be written for one
point (``lambda x: np.array([x[1], -x[0]])``) or broadcast over leading axes (index
``x[..., i]``): differences first try one call on a stack of points and otherwise call it
point by point, checking the shape of every result; an exception raised by the callable at
a point reaches the caller unchanged.
"""

from .brackets import (
    AccessibilityReport,
    ControlAffineSystem,
    accessibility_rank,
    field_jacobian,
    lie_bracket,
)
from .discretization import ZeroOrderHold, zero_order_hold
from .examples import car_kinematics, forward_drift_example, oscillator_fields
from .ilqr import (
    ILQRReport,
    ILQRResult,
    QuadraticCost,
    RunningCostDerivatives,
    TerminalCostDerivatives,
    ilqr,
)
from .mechanical import mechanical_fields, second_order_fields
from .observability import ObservabilityReport, observability_rank
from .pontryagin import (
    BangBangControl,
    BoxQuadraticControl,
    bang_bang_control,
    box_quadratic_control,
    quadratic_control,
)
from .riccati import DiscreteLQRResult, LQRResult, discrete_lqr, lqr

__all__ = [
    "lie_bracket",
    "field_jacobian",
    "ControlAffineSystem",
    "AccessibilityReport",
    "accessibility_rank",
    "oscillator_fields",
    "car_kinematics",
    "forward_drift_example",
    "second_order_fields",
    "mechanical_fields",
    "BangBangControl",
    "bang_bang_control",
    "quadratic_control",
    "BoxQuadraticControl",
    "box_quadratic_control",
    "QuadraticCost",
    "RunningCostDerivatives",
    "TerminalCostDerivatives",
    "ILQRReport",
    "ILQRResult",
    "ilqr",
    "LQRResult",
    "lqr",
    "DiscreteLQRResult",
    "discrete_lqr",
    "ZeroOrderHold",
    "zero_order_hold",
    "ObservabilityReport",
    "observability_rank",
]
