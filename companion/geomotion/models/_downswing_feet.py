r"""The 3-D downswing on two planted feet: whole-body inverse dynamics per sample.

:func:`downswing_feet` runs :func:`geomotion.contact.contact_inverse_dynamics` (a certified
quadratic program per sample) over a :class:`GolferDownswing`, both soles planted where
they are at address and the trail hand held on the club, and reports where a certified
distribution of the feet's loads exists, where it does not and why, and the peak loads
that issue 39's force-plate comparison needs: the vertical force under each foot in body
weights (Worsfold, Smith & Dyson 2007; addendum row G1) and the torque about the vertical
axis under each foot (Worsfold et al. 2008; G4, G5).
"""

from dataclasses import dataclass

import numpy as np

from .. import constraints, contact
from ..errors import InfeasibleContactError
from ._downswing_ranges import _checked_golfer
from ._golfer_downswing import GolferDownswing
from ._ground_wrench import ground_wrench
from ._shared import frozen

__all__ = ["FRICTION_COEFFICIENT", "DownswingFeet", "downswing_feet"]

#: Coulomb coefficient of the shoe-turf contact used by default, dimensionless: 0.8, our
#: choice.  The golf source notes' addendum has no measured shoe-turf value (issue 39 asks
#: for one "if one can be found"; none was), so :func:`downswing_feet` reports the least
#: coefficient each sample needs as well.
FRICTION_COEFFICIENT = 0.8


@dataclass(frozen=True, eq=False)
class DownswingFeet:
    r"""Result of :func:`downswing_feet`.

    Attributes
    ----------
    friction_coefficient : float
        :math:`\mu` used, dimensionless.
    feasible : (n,) ndarray of bool
        Per sample: a certified distribution of the feet's loads exists.
    first_infeasible : int or None
        The first sample without one (None if every sample has one).
    reason : str
        Why, for ``first_infeasible``: the foot, the condition's family (``"normal"``,
        ``"friction"``, ``"support"``, ``"torsion"``) and edge, and the least largest
        violation (N), from :class:`geomotion.errors.InfeasibleContactError`; ``""`` if
        every sample is feasible.
    loads : ContactInverseDynamics or None
        The certified loads at the feasible samples (in their order), or None if none.
    body_weight : float
        The golfer's weight without the club, N.
    peak_vertical : (2,) ndarray
        Largest vertical force under the lead and the trail foot over the feasible
        samples, in body weights (NaN if none).
    peak_free_moment : (2,) ndarray
        Largest magnitude of each foot's moment about the vertical axis through its centre
        of pressure (the free moment), N m, over the feasible samples (NaN if none).
    least_friction : (n,) ndarray
        The least :math:`\mu` with which some sharing of each sample's ground wrench
        between the feet keeps both soles' wrenches in their contact-wrench cones (the
        friction pyramid and the free moment's limit together;
        :func:`geomotion.contact.least_friction`, to a relative 1e-3 above the least;
        inf where no coefficient is enough).
    resultant_error : float
        Largest difference between the feet's total wrench and the ground wrench the
        motion requires (:func:`ground_wrench`, the rate of the spatial momentum minus
        the weight), over the weight (N, N m over N and m: forces and moments about the
        world origin, each over :math:`W` and :math:`W\cdot 1\,\mathrm{m}`).
    certificate : float
        Largest equation residual, violation and KKT residual of the feasible samples
        (dimensionless).
    """

    friction_coefficient: float
    feasible: np.ndarray
    first_infeasible: object
    reason: str
    loads: object
    body_weight: float
    peak_vertical: np.ndarray
    peak_free_moment: np.ndarray
    least_friction: np.ndarray
    resultant_error: float
    certificate: float

    def __post_init__(self):
        for name in ("peak_vertical", "peak_free_moment", "least_friction"):
            object.__setattr__(self, name, frozen(getattr(self, name)))
        feasible = np.array(self.feasible, dtype=bool)
        feasible.flags.writeable = False
        object.__setattr__(self, "feasible", feasible)


def downswing_feet(golfer, downswing, *, friction_coefficient=FRICTION_COEFFICIENT):
    r"""The feet's loads along a downswing: a certified quadratic program at every sample.

    The program is :func:`geomotion.contact.contact_inverse_dynamics`.  Contacts: the
    ``"lead sole"`` and ``"trail sole"`` frames, each sole the golfer's own outline
    (:meth:`Golfer.sole_outline`), friction pyramids of 16 faces with coefficient
    ``friction_coefficient``, each sole's wrench in its exact contact-wrench cone
    (:func:`geomotion.contact.contact_wrench_cone`, which bounds the free moment); closures:
    the trail hand welded to the club (as :func:`golfer_downswing` holds it).  The objective is the
    package's default (every joint strength 1, balance 1).  Infeasible samples are
    located by the error the program raises and dropped; the rest are solved and
    certified together.

    Parameters
    ----------
    golfer : Golfer
        The golfer of ``downswing``.
    downswing : GolferDownswing
        From :func:`golfer_downswing`.
    friction_coefficient : float, keyword only
        :math:`\mu \ge 0`; default ``FRICTION_COEFFICIENT``.

    Returns
    -------
    DownswingFeet

    Raises
    ------
    TypeError
        If ``golfer`` or ``downswing`` has the wrong type, or ``friction_coefficient`` is
        not a real number.
    ValueError
        If ``friction_coefficient`` is negative or not finite, or ``downswing`` is not a
        motion of ``golfer``.
    """
    golfer = _checked_golfer(golfer)
    if not isinstance(downswing, GolferDownswing):
        raise TypeError(
            f"downswing: expected a models.GolferDownswing, got {type(downswing).__name__}"
        )
    mu = friction_coefficient
    if isinstance(mu, bool) or not isinstance(mu, (int, float, np.integer, np.floating)):
        raise TypeError(f"friction_coefficient: expected a real number, got {mu!r}")
    if not (np.isfinite(mu) and mu >= 0):
        raise ValueError(f"friction_coefficient: expected a finite value >= 0, got {mu!r}")
    model = golfer.model
    if downswing.q.shape[-1] != model.nq:
        raise ValueError(
            f"downswing: expected a motion of this golfer (nq = {model.nq}), got nq = "
            f"{downswing.q.shape[-1]}"
        )
    q, v, a = downswing.q, downswing.v, downswing.a
    feet = [golfer.frames["lead sole"], golfer.frames["trail sole"]]
    hand, club = golfer.frames["trail grip on hand"], golfer.frames["trail grip on club"]
    grip = constraints.frame_closure(model, club.body, club.pose, hand.body, hand.pose)

    def solve(k):
        return contact.contact_inverse_dynamics(
            model, feet, q[k], v[k], a[k], float(mu), golfer.sole_outline(), closures=[grip]
        )

    feasible = np.ones(len(q), dtype=bool)
    reason, first = "", None
    try:
        loads = solve(slice(None))
    except InfeasibleContactError as error:
        feasible[[s[0] for s in error.samples]] = False
        first = error.sample[0]
        reason = (
            f"sample {first} (t = {downswing.t[first]:.4f} s): foot {error.foot} "
            f"({('lead', 'trail')[error.foot]}), {error.family} condition, edge "
            f"{error.edge}; least largest violation {error.violation:.3g} N"
        )
        loads = solve(feasible) if feasible.any() else None
    weight = float(golfer.parameters["body_mass"]) * float(-model.gravity[2])
    wrench = ground_wrench(golfer, q, v, a)
    nan2 = np.full(2, np.nan)
    if loads is None:
        peak_vertical, peak_free, resultant_error, certificate = nan2, nan2, np.nan, np.nan
    else:
        peak_vertical = loads.vertical_force.max(axis=0) / weight
        cop = np.nan_to_num(loads.cop_sole)
        f, n = loads.wrench_sole[..., 3:], loads.wrench_sole[..., :3]
        free = n[..., 2] - (cop[..., 0] * f[..., 1] - cop[..., 1] * f[..., 0])
        peak_free = np.abs(free).max(axis=0)
        scale = np.array([weight] * 3 + [weight] * 3)
        resultant_error = float(np.abs((loads.resultant - wrench[feasible]) / scale).max())
        certificate = float(
            max(loads.equation_residual.max(), loads.violation.max(), loads.kkt_residual.max())
        )
    least = contact.least_friction(golfer.sole_poses(), wrench, golfer.sole_outline())
    least = least.friction_coefficient
    return DownswingFeet(
        friction_coefficient=float(mu),
        feasible=feasible,
        first_infeasible=first,
        reason=reason,
        loads=loads,
        body_weight=weight,
        peak_vertical=np.asarray(peak_vertical, dtype=float),
        peak_free_moment=np.asarray(peak_free, dtype=float),
        least_friction=np.asarray(least, dtype=float),
        resultant_error=resultant_error,
        certificate=certificate,
    )
