r"""Fixed-step integrators with residual and work-inclusive energy reports.

Files, by idea:

* ``unconstrained.py``: :func:`simulate` integrates a tree's forward dynamics with
  applied torques and viscous damping;
* ``system.py``: :class:`MechanicalSystem`, equations of motion given by functions
  for systems that are not trees;
* ``stabilization.py``: keeping a solution on :math:`\Phi(q) = 0`: Baumgarte
  stabilization (:func:`baumgarte_bias`), Newton projection in the kinetic metric
  (:func:`project_position`), velocity projection (:func:`project_velocity`);
* ``rattle.py``: the RATTLE step for a constant mass matrix (:func:`rattle_step`);
* ``constrained.py``: :func:`simulate_constrained`, whole constrained trajectories
  by projection, Baumgarte or RATTLE.

Both simulators report the balance :math:`\dot E = u^Ty + P_{other} - D` (stored
energy :math:`E = T + V`, input power :math:`u^Ty` with :math:`y = B^Tv`, other
declared sources :math:`P_{other}`, dissipation :math:`D \ge 0`) as accumulated
work terms and the residual :math:`E - E_0 - W_{in} - W_{other} + W_{diss}`, which
vanishes for the exact motion and converges at each method's order.  Arrays of a
result have the time index first, then the batch axes of the initial state.
"""

from .constrained import (
    CONSTANT_MASS_RTOL,
    CONSTRAINED_METHODS,
    ConstrainedTrajectory,
    simulate_constrained,
)
from .rattle import LOAD_RTOL, RattleStep, rattle_step
from .stabilization import (
    MAX_ITERATIONS,
    POSITION_TOL,
    baumgarte_bias,
    project_position,
    project_velocity,
)
from .study import QUANTITIES, ROUNDOFF_FACTOR, MethodStudy, StepSizeStudy, step_size_study
from .system import MechanicalSystem
from .unconstrained import METHODS, Trajectory, simulate

__all__ = [
    "METHODS",
    "Trajectory",
    "simulate",
    "MechanicalSystem",
    "POSITION_TOL",
    "MAX_ITERATIONS",
    "baumgarte_bias",
    "project_position",
    "project_velocity",
    "LOAD_RTOL",
    "RattleStep",
    "rattle_step",
    "CONSTRAINED_METHODS",
    "CONSTANT_MASS_RTOL",
    "ConstrainedTrajectory",
    "simulate_constrained",
    "ROUNDOFF_FACTOR",
    "QUANTITIES",
    "MethodStudy",
    "StepSizeStudy",
    "step_size_study",
]
