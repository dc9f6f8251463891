r"""Fixed-step integrators with residual and work-inclusive energy reports.

What to call:

* :func:`simulate` -- a tree's forward dynamics from an initial state, with applied
  joint torques (constant or a function of time and state) and viscous damping,
  under the tree's own gravity; RK4 or symplectic Euler;
* :func:`simulate_constrained` -- a tree or any :class:`MechanicalSystem` held on
  constraints :math:`\Phi(q) = 0` (a closed loop, a grip), by projection, Baumgarte
  stabilization or RATTLE;
* :func:`step_size_study` -- the same problem at successively halved steps, with the
  observed orders of the residuals and of the energy balance.

Every result keeps the books: stored energy :math:`E = T + V`, the work of each load
channel and the residual :math:`E - E_0 - W_{in} - W_{other} + W_{diss}`, which vanishes
for the exact motion and converges at each method's order, so a run reports its own
accuracy.  Arrays of a result have the time index first, then the batch axes of the
initial state.

Example: a 1 kg point-like bob on a 1 m rod, released horizontal, for 0.5 s.

>>> import numpy as np
>>> from geomotion import inertia, integrators, tree
>>> bob = inertia.spatial_inertia(1.0, [1.0, 0, 0], 1e-4 * np.eye(3))
>>> pendulum = tree.Tree([-1], [tree.REVOLUTE_Z], [np.eye(4)], [bob], gravity=(0, -9.81, 0))
>>> run = integrators.simulate(pendulum, [0.0], [0.0], dt=1e-3, n_steps=500)
>>> bool(abs(run.energy_residual).max() < 1e-9)  # J: RK4 keeps the books
True

Files, by idea:

* ``unconstrained.py``: :func:`simulate`;
* :mod:`geomotion.systems` (re-exported here): :class:`MechanicalSystem`, equations of
  motion given by functions for systems that are not trees;
* ``stabilization.py``: keeping a solution on :math:`\Phi(q) = 0`: Baumgarte
  stabilization (:func:`baumgarte_bias`, :eq:`eq-ch2-baumgarte`), Newton projection in the
  kinetic metric (:func:`project_position`, :eq:`eq-ch2-newton-projection`), velocity
  projection (:func:`project_velocity`, :eq:`eq-ch2-projectors`);
* ``rattle.py``: the RATTLE step for a constant mass matrix (:func:`rattle_step`);
* ``constrained.py``: :func:`simulate_constrained`;
* ``study.py``: :func:`step_size_study`.

Both simulators report the balance :math:`\dot E = u^Ty + P_{other} - D` (input power
:math:`u^Ty` with :math:`y = B^Tv`, other declared sources :math:`P_{other}`,
dissipation :math:`D \ge 0`; equation :eq:`eq-ch2-passivity`) as accumulated work terms,
integrated as in exercise :eq:`eq-ex2-energy-balance`.

Options are keyword-only.  Tolerances are per call.  By default a Newton solve stops
when every constraint row's first-order distance to its surface,
:math:`|\Phi_i|/|\nabla\Phi_i|`, is at most ``rtol`` (1e-12) times a length scale
(``length_scale``, default :math:`\max(1, \max_j|q_{0,j}|)`): for a loop closure the
gradient is a lever arm, so the same mechanism converges alike at 0.1 mm and at 10 km;
``atol`` instead bounds :math:`|\Phi|` absolutely, in the constraint's own units (m for a
loop closure).  ``max_iter`` caps each iterative solve, and a solve that stops short
raises :class:`~geomotion.errors.ConvergenceError` with the residual it reached, the
tolerance, the step and the time.  Redundant constraint rows are accepted everywhere
(the rank rule of :func:`geomotion.constraints.constraint_rank`).  A system whose
configuration lives on a manifold gives :class:`MechanicalSystem` an ``integrate``
function, through which every step and projection moves ``q``.
"""

from ..systems import MechanicalSystem
from .constrained import (
    CONSTRAINED_METHODS,
    ConstrainedTrajectory,
    simulate_constrained,
)
from .rattle import RattleStep, rattle_step
from .stabilization import (
    baumgarte_bias,
    project_position,
    project_velocity,
)
from .study import QUANTITIES, MethodStudy, StepSizeStudy, step_size_study
from .unconstrained import METHODS, Trajectory, simulate

__all__ = [
    "METHODS",
    "Trajectory",
    "simulate",
    "MechanicalSystem",
    "baumgarte_bias",
    "project_position",
    "project_velocity",
    "RattleStep",
    "rattle_step",
    "CONSTRAINED_METHODS",
    "ConstrainedTrajectory",
    "simulate_constrained",
    "QUANTITIES",
    "MethodStudy",
    "StepSizeStudy",
    "step_size_study",
]
