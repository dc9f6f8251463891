r"""Body-segment inertia parameters with their sources: de Leva (1996), adults.

Each row of ``DE_LEVA_MALE`` gives, for one segment between two stated endpoints, the
fractions that de Leva's adjustment of Zatsiorsky and Seluyanov's data attaches to it
(de Leva, 1996, *Journal of Biomechanics* 29(9), 1223-1230; key ``deLeva1996`` in the
book's bibliography):

* ``mass``: the segment's mass as a fraction of the whole body's mass;
* ``com``: the distance of its centre of mass from the *origin* endpoint (the first one
  named), as a fraction of the segment length (the distance between the two endpoints),
  measured along the line joining them;
* ``r_sagittal``, ``r_transverse``, ``r_longitudinal``: radii of gyration about the
  centre of mass, as fractions of the segment length, about the sagittal
  (antero-posterior), transverse (medio-lateral) and longitudinal axes.

The axis reading of the two radii that de Leva calls sagittal and transverse is ours,
checked against the shapes: the trunk is wider than it is deep and has the larger
radius about the antero-posterior axis (0.372 against 0.347), the head is deeper than it
is wide and has the larger radius about the medio-lateral axis (0.376 against 0.362).
For the foot, whose longitudinal axis runs from heel to toe, we take the sagittal radius
about the vertical axis (the third axis); its two transverse radii differ by 5 %.

Where the numbers were read
---------------------------
Two transcriptions of de Leva's Table 4 were used; every row cites the paper:

* ``upper_arm``, ``forearm``, ``hand`` (wrist joint centre to third metacarpale) and
  ``trunk`` (suprasternale to mid-hip): the book's source notes on the golf case study
  (section 1, "Body segments"), which checked them against both the BMClab/BMC file
  below and the Visual3D documentation page of the same table;
* ``head`` (vertex to mid-gonion), ``upper_trunk`` (suprasternale to xiphoid),
  ``middle_trunk`` (xiphoid to omphalion), ``lower_trunk`` (omphalion to mid-hip),
  ``thigh`` (hip to knee joint centre), ``shank`` (knee to ankle joint centre) and
  ``foot`` (heel to toe tip): the data file ``data/BSP_ZdeLeva.txt`` of the open
  repository BMClab/BMC (M. Duarte's *Notes on Scientific Computing for Biomechanics
  and Motor Control*), rows "Head", "UpperTrunk", "MiddleTrunk", "LowerTrunk", "Thigh",
  "Shank" and "Foot", male columns (given there in percent; here as fractions).

That file also has a "Pelvis" row (mid-abdominal to mid-hip, centre of mass at 50 %) and
a "Torso" row (suprasternale to mid-abdominal) that are not rows of de Leva's table (the
torso's mass is the sum of the upper and middle trunk's): they are not used.  The three
trunk parts add up to the whole trunk's mass, 0.1596 + 0.1633 + 0.1117 = 0.4346, and the
male fractions of all segments (each limb counted twice) add up to 1.0000.

``DE_LEVA_FEMALE`` has the female columns of the four rows of the golf source notes
(``upper_arm``, ``forearm``, ``hand``, ``trunk``), the ones the swing-plane golfer
(:mod:`geomotion.models.swing`) needs; :func:`de_leva` picks the table by sex.  The
female hand's sagittal radius is a known transcription discrepancy: the BMClab file has
0.531, the Visual3D page 0.631, and one of the two is wrong.  We keep the BMClab value
(0.531, the file that agrees with the Visual3D page on every other row used here); a
result that uses it should be shown not to depend on the choice.  The other segments
are transcribed for males only: the 3-D golfer of :func:`geomotion.models.golfer` is a
stated male.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate

__all__ = [
    "SegmentFractions",
    "DE_LEVA_MALE",
    "DE_LEVA_FEMALE",
    "FEMALE_HAND_SAGITTAL_ALTERNATIVE",
    "de_leva",
    "segment_central_inertia",
]

#: Citation key (book/references.bib) of every row below.
DE_LEVA_1996 = "deLeva1996"

_GOLF_NOTES = "book source notes, golf case study, section 1 (de Leva 1996, Table 4)"
_BMC_FILE = "BMClab/BMC data/BSP_ZdeLeva.txt, row {row!r}, male (de Leva 1996, Table 4)"


@dataclass(frozen=True, eq=False)
class SegmentFractions:
    """One segment's de Leva (1996) fractions (see the module documentation).

    Attributes
    ----------
    origin, other : str
        The endpoints that define the segment length, origin first (de Leva's
        abbreviations: VERT vertex, MIDG mid-gonion, SUPR suprasternale, XYPH xiphoid,
        OMPH omphalion, MIDH mid-hip, SJC/EJC/WJC/HJC/KJC/AJC shoulder, elbow, wrist,
        hip, knee and ankle joint centres, MET3 third metacarpale, HEEL, TTIP toe tip).
    mass : float
        Fraction of body mass.
    com : float
        Centre of mass from ``origin`` towards ``other``, fraction of the length.
    r_sagittal, r_transverse, r_longitudinal : float
        Radii of gyration about the centre of mass, fractions of the length.
    citation : str
        Citation key of the source, ``"deLeva1996"``.
    transcription : str
        Where the numbers were read.
    """

    origin: str
    other: str
    mass: float
    com: float
    r_sagittal: float
    r_transverse: float
    r_longitudinal: float
    citation: str
    transcription: str


def _row(origin, other, mass, com, r_sag, r_trans, r_long, transcription):
    return SegmentFractions(
        origin, other, mass, com, r_sag, r_trans, r_long, DE_LEVA_1996, transcription
    )


#: de Leva (1996) male fractions by segment name (see the module documentation).
DE_LEVA_MALE = {
    # Rows transcribed in the book's golf source notes (section 1).
    "upper_arm": _row("SJC", "EJC", 0.0271, 0.5772, 0.285, 0.269, 0.158, _GOLF_NOTES),
    "forearm": _row("EJC", "WJC", 0.0162, 0.4574, 0.276, 0.265, 0.121, _GOLF_NOTES),
    "hand": _row("WJC", "MET3", 0.0061, 0.7900, 0.628, 0.513, 0.401, _GOLF_NOTES),
    "trunk": _row("SUPR", "MIDH", 0.4346, 0.4486, 0.372, 0.347, 0.191, _GOLF_NOTES),
    # Rows read from BMClab/BMC's data/BSP_ZdeLeva.txt (percent there, fractions here).
    "head": _row("VERT", "MIDG", 0.0694, 0.5976, 0.362, 0.376, 0.312, _BMC_FILE.format(row="Head")),
    "upper_trunk": _row(
        "SUPR", "XYPH", 0.1596, 0.2999, 0.716, 0.454, 0.659, _BMC_FILE.format(row="UpperTrunk")
    ),
    "middle_trunk": _row(
        "XYPH", "OMPH", 0.1633, 0.4502, 0.482, 0.383, 0.468, _BMC_FILE.format(row="MiddleTrunk")
    ),
    "lower_trunk": _row(
        "OMPH", "MIDH", 0.1117, 0.6115, 0.615, 0.551, 0.587, _BMC_FILE.format(row="LowerTrunk")
    ),
    "thigh": _row("HJC", "KJC", 0.1416, 0.4095, 0.329, 0.329, 0.149, _BMC_FILE.format(row="Thigh")),
    "shank": _row("KJC", "AJC", 0.0433, 0.4395, 0.251, 0.246, 0.102, _BMC_FILE.format(row="Shank")),
    "foot": _row("HEEL", "TTIP", 0.0137, 0.4415, 0.257, 0.245, 0.124, _BMC_FILE.format(row="Foot")),
}

_FEMALE_NOTES = "book source notes, golf case study, section 1 (de Leva 1996, Table 4, female)"

#: de Leva (1996) female fractions of the four rows of the golf source notes (see the
#: module documentation, also for the female hand's sagittal radius).
DE_LEVA_FEMALE = {
    "upper_arm": _row("SJC", "EJC", 0.0255, 0.5754, 0.278, 0.260, 0.148, _FEMALE_NOTES),
    "forearm": _row("EJC", "WJC", 0.0138, 0.4559, 0.261, 0.257, 0.094, _FEMALE_NOTES),
    "hand": _row("WJC", "MET3", 0.0056, 0.7474, 0.531, 0.454, 0.335, _FEMALE_NOTES),
    "trunk": _row("SUPR", "MIDH", 0.4257, 0.4151, 0.357, 0.339, 0.171, _FEMALE_NOTES),
}

#: The Visual3D page's female-hand sagittal radius (0.631), against the BMClab file's
#: 0.531 kept in ``DE_LEVA_FEMALE``: one of the two transcriptions is wrong.
FEMALE_HAND_SAGITTAL_ALTERNATIVE = 0.631

_TABLES = {"male": DE_LEVA_MALE, "female": DE_LEVA_FEMALE}


def de_leva(sex):
    """The de Leva (1996) table of one sex: ``DE_LEVA_MALE`` or ``DE_LEVA_FEMALE``.

    Parameters
    ----------
    sex : {"male", "female"}

    Returns
    -------
    dict of str to SegmentFractions

    Raises
    ------
    ValueError
        If ``sex`` is neither "male" nor "female".
    """
    if not isinstance(sex, str) or sex not in _TABLES:
        raise ValueError(f"sex: expected 'male' or 'female', got {sex!r}")
    return _TABLES[sex]


def segment_central_inertia(segment, *, body_mass, length):
    r"""Mass and principal central moments of one segment of a stated body.

    .. math:: m = f_m\,m_{body},\qquad
              I_k = m\,(r_k\,\ell)^2,\quad k \in \{\text{sag}, \text{trans}, \text{long}\}

    Parameters
    ----------
    segment : SegmentFractions
        A row of ``DE_LEVA_MALE`` or ``DE_LEVA_FEMALE``.
    body_mass : float or array_like, keyword only
        Whole-body mass, kg, positive.
    length : float or array_like, keyword only
        Segment length (distance between the row's endpoints), m, positive; broadcasts
        with ``body_mass`` (a batch of bodies).

    Returns
    -------
    (..., 4) ndarray
        ``(m, I_sag, I_trans, I_long)`` in kg and kg m^2, one row per body of the batch.

    Raises
    ------
    TypeError
        If ``segment`` is not a :class:`SegmentFractions`.
    ValueError
        If ``body_mass`` or ``length`` is not positive and finite.
    """
    if not isinstance(segment, SegmentFractions):
        raise TypeError(
            f"segment: expected a SegmentFractions (a row of DE_LEVA_MALE), got {segment!r}"
        )
    body_mass = _validate.positive(body_mass, "body_mass")
    length = _validate.positive(length, "length")
    m = segment.mass * body_mass
    radii = (segment.r_sagittal, segment.r_transverse, segment.r_longitudinal)
    return np.stack(np.broadcast_arrays(m, *(m * (r * length) ** 2 for r in radii)), axis=-1)
