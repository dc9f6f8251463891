r"""The driver reduced to the swing plane: :func:`driver` builds a :class:`Club` from its parts.

The one club inertia (:func:`geomotion.models.golf_data.club_spatial_inertia`, also used by
the 3-D golfer) reduced to the swing-plane golfer's plane (:mod:`geomotion.models.swing`):
its mass, centre of mass along and off the shaft, and its moments about the plane normal.
Every part may carry a batch (P,) of parameter sets.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, inertia
from ._shared import checked_club_length, frozen
from .golf_data import CLUB_DEFAULTS, CLUB_HEAD, club_spatial_inertia

__all__ = ["Club", "driver", "club_from_parts"]


@dataclass(frozen=True, eq=False)
class Club:
    """A driver reduced to the swing plane (see :func:`driver`); arrays of the batch shape.

    Attributes
    ----------
    mass : ndarray
        kg.
    balance_point : ndarray
        Centre of mass from the butt along the shaft towards the head, m.
    com_offset : ndarray
        Centre of mass off the shaft line along the face normal (in the plane), m;
        negative: behind the face.
    inertia_butt : ndarray
        Moment of inertia about the plane normal through the butt, kg m^2.
    inertia_com : ndarray
        Moment of inertia about the plane normal through the centre of mass, kg m^2.
    length : ndarray
        Butt to face centre along the shaft, m.
    parts : dict of str to ndarray
        ``head_mass``, ``shaft_mass``, ``grip_mass`` (kg), ``length`` (m) and
        ``added_inertia`` (kg m^2).
    spatial_inertia : (..., 6, 6) ndarray
        The 3-D club about the butt, club axes (:func:`geomotion.models.golf_data.club_spatial_inertia`).
    """

    mass: np.ndarray
    balance_point: np.ndarray
    com_offset: np.ndarray
    inertia_butt: np.ndarray
    inertia_com: np.ndarray
    length: np.ndarray
    parts: dict
    spatial_inertia: np.ndarray

    @property
    def com(self):
        """In-plane centre of mass (along the shaft from the butt, along the face normal), m."""
        return np.stack([self.balance_point, self.com_offset], axis=-1)

    def row(self, i):
        """The club of parameter set ``i`` of a batch."""
        return club_from_parts({key: value[i] for key, value in self.parts.items()})


def driver(
    *,
    head_mass=CLUB_HEAD["mass"],
    shaft_mass=CLUB_DEFAULTS["shaft_mass"],
    grip_mass=CLUB_DEFAULTS["grip_mass"],
    length=CLUB_DEFAULTS["length"],
    added_inertia=0.0,
):
    r"""A driver built from its parts, reduced to the swing plane.

    Head (measured mass, centre of mass and inertia ``CLUB_HEAD``, ISEA2020Head; scaled
    with ``head_mass`` when another mass is asked for), uniform shaft over the whole
    length and uniform grip over 0.27 m from the butt (solid cylinders; shapes, radii and
    the 58 degree lie are modelling choices, ``CLUB_DEFAULTS``), combined by
    :func:`geomotion.models.golf_data.club_spatial_inertia` (the one implementation, also
    used by the 3-D golfer).  The face normal lies in the swing plane and the toe-heel
    axis along its normal, so the in-plane reduction keeps the club frame's x (face
    normal) and z (shaft) components of the centre of mass and its moment about y:

    .. math:: I_{butt} = \mathcal I_{yy},\qquad
              I_{com} = I_{butt} - m\,(c_x^2 + c_z^2)

    Parameters
    ----------
    head_mass, shaft_mass, grip_mass : float or (P,) array_like, keyword only
        kg, positive; defaults 0.204 (measured head), 0.065 and 0.050 (trade values,
        ranges in ``golf_data.DATA``).
    length : float or (P,) array_like, keyword only
        Butt to face centre, m, positive, at most 48 in (the rules); default 45 in.
    added_inertia : float or (P,) array_like, keyword only
        kg m^2, non-negative: a moment of inertia added about the two axes normal to the
        shaft, with no mass (how the whole-club moment-of-inertia study's second driver,
        0.04 kg m^2 higher, is represented here; its mass distribution is not known);
        default 0.

    Returns
    -------
    Club

    Raises
    ------
    ValueError
        If a mass or the length is not positive, the length exceeds 48 in, or the
        arguments' shapes do not broadcast.
    """
    parts = {
        "head_mass": _validate.positive(head_mass, "head_mass"),
        "shaft_mass": _validate.positive(shaft_mass, "shaft_mass"),
        "grip_mass": _validate.positive(grip_mass, "grip_mass"),
        "length": checked_club_length(length, "length"),
        "added_inertia": _validate.nonnegative(added_inertia, "added_inertia"),
    }
    shape = _validate.batch_shape({name: value.shape for name, value in parts.items()})
    return club_from_parts({k: np.broadcast_to(v, shape) for k, v in parts.items()})


def club_from_parts(parts):
    """The :class:`Club` of validated parts of one batch shape.

    Parameters
    ----------
    parts : dict of str to ndarray
        ``head_mass``, ``shaft_mass``, ``grip_mass`` (kg), ``length`` (m), positive, and
        ``added_inertia`` (kg m^2, non-negative), all of one shape (the batch shape).

    Returns
    -------
    Club
    """
    I = club_spatial_inertia(dict(CLUB_DEFAULTS, **parts))
    properties = inertia.mass_properties(I)
    com = properties.com
    mass = properties.mass
    inertia_butt = I[..., 1, 1]
    return Club(
        mass=frozen(mass),
        balance_point=frozen(-com[..., 2]),
        com_offset=frozen(com[..., 0]),
        inertia_butt=frozen(inertia_butt),
        inertia_com=frozen(inertia_butt - mass * (com[..., 0] ** 2 + com[..., 2] ** 2)),
        length=frozen(parts["length"]),
        parts={key: frozen(value) for key, value in parts.items()},
        spatial_inertia=frozen(I),
    )
