"""Spatial inertia from mass properties and back, physical realizability, the about-origin check."""

import warnings
from dataclasses import dataclass

import numpy as np

from .. import _validate
from .._kernels import _skew, _vee

#: Default relative tolerance of the realizability test, scaled by trace(I_C) / 2.
_REALIZABILITY_RTOL = 1e-10

#: Default relative tolerance of :func:`mass_properties`, the decoder of spatial inertias
#: (also used by :class:`geomotion.tree.Tree`): a body's 6x6 matrix may miss the
#: rigid-body pattern by this much relative to its largest entry (SI units), and central
#: second moments this small relative to its rotational block are rounding noise.
_DECODE_RTOL = 1e-9


class InertiaFrameWarning(UserWarning):
    """A central inertia that looks as if it were given about the frame origin instead.

    Attributes
    ----------
    args : tuple
        ``(message,)``: the message, which says what was found and what to do.
    """


def _parallel_axis_term(m, c):
    r""":math:`m(\|c\|^2 I_3 - c c^T)`, the inertia about O of a point mass m at c (kg m^2)."""
    return m[..., None, None] * (
        np.einsum("...i,...i->...", c, c)[..., None, None] * np.eye(3)
        - c[..., :, None] * c[..., None, :]
    )


#: How close (relative) the half-length implied by a candidate central inertia must come
#: to the centre-of-mass offset for :func:`spatial_inertia` to suspect an inertia about O.
_END_OF_BODY_RTOL = 0.25


def _looks_about_origin(m, c, I_C):
    r"""Whether :math:`I_C` reads better as an inertia about O, at one end of the body.

    The typical slip is a segment's inertia about its proximal joint (a rod of length
    :math:`L` with its centre at :math:`L/2`, given :math:`mL^2/3` instead of
    :math:`mL^2/12`).  Read that way, removing the parallel-axis term leaves a
    realizable central inertia whose largest moment :math:`J` describes a body of
    half-length :math:`h = \sqrt{3J/m}` (exact for a uniform rod), and O sits at the
    end of that body: :math:`h \approx \lVert c\rVert`.  True where both hold
    (within ``_END_OF_BODY_RTOL``).  Some correct inputs share these numbers (a long
    body pivoting inside itself can), hence a warning, never an error.
    """
    offset2 = np.einsum("...i,...i->...", c, c)
    candidate = I_C - _parallel_axis_term(m, c)
    J = np.maximum(np.linalg.eigvalsh(candidate)[..., -1], 0.0)
    half_length = np.sqrt(3 * J / m)
    at_end = np.abs(half_length - np.sqrt(offset2)) <= _END_OF_BODY_RTOL * np.sqrt(offset2)
    return (offset2 > 0) & at_end & is_physically_realizable(candidate, rtol=1e-9)


def spatial_inertia(mass, com, inertia_com, *, warn_if_about_origin=True):
    r"""Spatial inertia about a frame origin O, in that frame's axes.

    .. math:: \mathcal I_O = \begin{bmatrix} I_C - m[c][c] & m[c] \\ -m[c] & m I_3 \end{bmatrix}
              = \begin{bmatrix} I_C + m(\|c\|^2 I_3 - c c^T) & m[c] \\ m[c]^T & m I_3 \end{bmatrix}

    It is the matrix of the energy :math:`2K = \omega^T I_C\omega + m\|v_O - [c]\omega\|^2`:
    equations :eq:`eq-kinetic-energy-quadratic`, :eq:`eq-spatial_inertia_full` and
    :eq:`eq-spatial_inertia_alt`, and :eq:`conv-spatial-inertia` of the conventions; at the
    centre of mass (:math:`c = 0`) it is block diagonal, :eq:`eq-spatial_inertia_cocom`.

    Parameters
    ----------
    mass : array_like
        Mass :math:`m > 0` in kg, shape ``(...)``.
    com : (..., 3) array_like
        Vector :math:`c` from O to the centre of mass C, in m, in the frame's axes.
    inertia_com : (..., 3, 3) array_like
        Rotational inertia :math:`I_C` about C in the frame's axes, kg m^2; symmetric.
        Singular ideal bodies (point mass, thin rod) are allowed; use
        :func:`is_physically_realizable` to test the triangle inequalities.  For an
        inertia about O instead, use :func:`spatial_inertia_about_origin`.
    warn_if_about_origin : bool, optional, keyword only
        Default True: issue an :class:`InertiaFrameWarning` when ``inertia_com`` looks
        like an inertia about O at one end of the body (removing the parallel-axis term
        :math:`m(\|c\|^2 I_3 - cc^T)` still leaves a realizable inertia, of a body
        reaching from O to about :math:`2c`).  False says the central inertia is meant
        as given.

    Returns
    -------
    (..., 6, 6) ndarray
        Symmetric positive semidefinite spatial inertia (positive definite iff
        :math:`I_C` is).

    Raises
    ------
    ValueError
        If ``mass`` is not positive, shapes are wrong, values are non-finite, or
        ``inertia_com`` is not symmetric.

    Warns
    -----
    InertiaFrameWarning
        See ``warn_if_about_origin``.

    Examples
    --------
    A uniform 0.3 m rod of 1 kg along x, its frame at one end (the joint):

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> I_C = inertia.thin_rod_central_inertia(1.0, 0.3, axis=0)  # m L^2 / 12 across
    >>> I_O = inertia.spatial_inertia(1.0, [0.15, 0.0, 0.0], I_C)
    >>> float(I_O[2, 2].round(6))  # about the joint's z axis: m L^2 / 3
    0.03
    """
    m = _validate.positive(mass, "mass")
    c = _validate.trailing_shape(com, "com", (3,))
    I_C = _symmetric(inertia_com, "inertia_com")
    if not isinstance(warn_if_about_origin, (bool, np.bool_)):
        raise ValueError(
            f"warn_if_about_origin: expected True or False, got {warn_if_about_origin!r}"
        )
    if warn_if_about_origin and np.any(_looks_about_origin(m, c, I_C)):
        warnings.warn(
            "inertia_com: this looks like an inertia about the frame origin (the joint), "
            "not about the centre of mass: removing the parallel-axis term m(|c|^2 I - c c^T) "
            "still leaves a realizable inertia. spatial_inertia adds that term itself; for "
            "an inertia about the origin use spatial_inertia_about_origin(mass, com, "
            "inertia_origin). If the central inertia is right as given, pass "
            "warn_if_about_origin=False.",
            InertiaFrameWarning,
            stacklevel=2,
        )
    C = _skew(c)
    mC = m[..., None, None] * C
    shape = np.broadcast_shapes(m.shape, c.shape[:-1], I_C.shape[:-2])
    I = np.zeros(shape + (6, 6))
    I[..., :3, :3] = I_C - mC @ C
    I[..., :3, 3:] = mC
    I[..., 3:, :3] = -mC
    I[..., 3:, 3:] = m[..., None, None] * np.eye(3)
    return I


def spatial_inertia_about_origin(mass, com, inertia_origin):
    r"""Spatial inertia from a rotational inertia about the frame origin O (e.g. the joint).

    .. math:: I_C = I_O - m(\|c\|^2 I_3 - c c^T),\qquad
              \mathcal I_O = \begin{bmatrix} I_O & m[c] \\ m[c]^T & m I_3 \end{bmatrix}

    For data tabulated about a joint or a frame origin, so that the parallel-axis shift
    need not be done by hand.  Equation :eq:`eq-spatial_inertia_alt`, with its upper-left
    block read as :math:`I_O`.

    Parameters
    ----------
    mass : array_like
        Mass :math:`m > 0` in kg, shape ``(...)``.
    com : (..., 3) array_like
        Vector :math:`c` from O to the centre of mass, m, in the frame's axes.
    inertia_origin : (..., 3, 3) array_like
        Rotational inertia :math:`I_O` about O in the frame's axes, kg m^2; symmetric.

    Returns
    -------
    (..., 6, 6) ndarray
        The spatial inertia about O, as :func:`spatial_inertia` builds it.

    Raises
    ------
    ValueError
        As :func:`spatial_inertia`, and naming the first offending body, if the central
        inertia left after removing the parallel-axis term is not physically realizable
        (``inertia_origin`` too small for a body of that mass at that distance: perhaps
        it is already central; then use :func:`spatial_inertia`).

    Examples
    --------
    >>> import numpy as np
    >>> from geomotion import inertia
    >>> I_O = inertia.spatial_inertia_about_origin(1.0, [0.15, 0, 0], np.diag([0, 0.03, 0.03]))
    >>> bool(np.allclose(I_O, inertia.spatial_inertia(
    ...     1.0, [0.15, 0, 0], inertia.thin_rod_central_inertia(1.0, 0.3, axis=0))))
    True
    """
    m = _validate.positive(mass, "mass")
    c = _validate.trailing_shape(com, "com", (3,))
    I_O = _symmetric(inertia_origin, "inertia_origin")
    I_C = I_O - _parallel_axis_term(m, c)
    scale = np.abs(I_O).max(axis=(-1, -2), initial=0.0)
    I_C = _snap_second_moments(I_C, _DECODE_RTOL * np.broadcast_to(scale, I_C.shape[:-2]))
    _raise_at_first(
        ~is_physically_realizable(I_C),
        lambda i: (
            f"inertia_origin: expected an inertia about O of at least the parallel-axis "
            f"term m(|c|^2 I - c c^T) for {_body(i)}, got a central remainder with principal "
            f"moments {np.linalg.eigvalsh(I_C[i]).tolist()} kg m^2 (is it already about the "
            f"centre of mass? then use spatial_inertia)"
        ),
    )
    return spatial_inertia(m, c, I_C, warn_if_about_origin=False)


@dataclass(frozen=True)
class MassProperties:
    """Mass, centre of mass and central inertia of a rigid body, from :func:`mass_properties`.

    Read the fields by name (``props.mass``); the result does not unpack like a tuple.

    Attributes
    ----------
    mass : ndarray
        Mass :math:`m` in kg, shape ``(...)`` (a NumPy scalar for one body).
    com : (..., 3) ndarray
        Centre of mass :math:`c` in m, from the frame origin, in the frame's axes.
    inertia_com : (..., 3, 3) ndarray
        Central rotational inertia :math:`I_C` in kg m^2, symmetric, in the frame's axes.
    """

    mass: np.ndarray
    com: np.ndarray
    inertia_com: np.ndarray


def mass_properties(I, *, rtol=_DECODE_RTOL):
    r"""Mass, centre of mass and central inertia of a spatial inertia: the inverse of :func:`spatial_inertia`.

    .. math:: m = \tfrac13\operatorname{tr}\mathcal I_{22},\qquad [c] = \mathcal I_{12}/m,\qquad
              I_C = \mathcal I_{11} + m[c][c]

    Recovering :math:`I_C` cancels :math:`m[c][c]` against :math:`\mathcal I_{11}`, which leaves
    rounding noise of the size of :math:`m\|c\|^2` (a point mass 10 m away gets an
    "inertia" of 1e-14 kg m^2 with a negative triangle inequality).  Central second
    moments (eigenvalues of :func:`central_second_moments`) within
    ``rtol`` times the body's rotational size, the largest entry of
    :math:`\mathcal I_{11}`, are therefore set to zero: ideal point masses and thin rods
    at any distance come back exactly singular and realizable, while a body that
    violates a triangle inequality by more than that stays unrealizable.

    Parameters
    ----------
    I : (..., 6, 6) array_like
        Rigid-body spatial inertia(s) about a frame origin, in that frame's axes.
    rtol : float, optional, keyword only
        Relative tolerance, default 1e-9, on each body's own scale: the 6x6 matrix may
        miss the rigid-body pattern by ``rtol`` times its largest entry (SI units), and
        central second moments within ``rtol`` times the largest entry of its rotational
        block are rounding noise, set to zero.

    Returns
    -------
    MassProperties
        ``mass`` in kg, shape ``(...)``; ``com``, the centre of mass in m; ``inertia_com``,
        the central rotational inertia in kg m^2, symmetric.

    Raises
    ------
    ValueError
        Naming the first offending body of a batch, if ``I`` is not the spatial inertia
        of a rigid body within ``rtol`` times its largest entry (SI units): not
        symmetric, a translational block that is not :math:`m I_3` with :math:`m > 0`, or
        coupling blocks that are not :math:`\pm m[c]`.

    Examples
    --------
    Link 1 of the book's two-link arm, decoded from its spatial inertia about the joint:

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> I_O = inertia.spatial_inertia(2.0, [0.3, 0, 0], 0.01 * np.diag([5, 5, 1]))
    >>> link = inertia.mass_properties(I_O)
    >>> float(link.mass), link.com.round(12), np.diag(link.inertia_com).round(12)
    (2.0, array([0.3, 0. , 0. ]), array([0.05, 0.05, 0.01]))
    """
    mass, com, inertia_com = _decode_spatial_inertia(I, "I", rtol)
    return MassProperties(mass=mass, com=com, inertia_com=inertia_com)


def _body(index):
    """How an error message names entry ``index`` of a batch of inertias."""
    if index == ():
        return "the body"
    return f"body {index[0]}" if len(index) == 1 else f"body {index}"


def _raise_at_first(failed, message):
    """Raise ``ValueError(message(index))`` for the first index where ``failed`` is True."""
    if np.any(failed):
        raise ValueError(message(tuple(int(i) for i in np.argwhere(failed)[0])))


def _linear_first_hint(I, tol):
    """A hint for a 6x6 inertia whose upper-left block, not its lower-right, is m*I3."""
    upper = I[:3, :3]
    m = np.trace(upper) / 3
    if m > 0 and np.abs(upper - m * np.eye(3)).max() <= tol:
        return (
            ". Its upper-left block is m*I3: this looks like a linear-first inertia "
            "[[m I3, ...], [..., I_rot]] (the order of Pinocchio's and Drake's 6x6 "
            "matrices); geomotion is angular-first: reorder it with I[np.ix_(p, p)] for "
            "p = [3, 4, 5, 0, 1, 2], or build it with spatial_inertia(mass, com, inertia_com)"
        )
    return ""


def _decode_spatial_inertia(I, name, rtol):
    """:func:`mass_properties` as a tuple, with the argument name ``name`` in its messages.

    The one decoder of spatial inertias (:class:`geomotion.tree.Tree` goes through
    :func:`mass_properties`).  Every tolerance is relative to the body's own size, never
    to the rest of a batch.
    """
    I = _validate.trailing_shape(I, name, (6, 6))
    size = np.abs(I).max(axis=(-1, -2))  # largest entry in SI units (kg, kg m, kg m^2)
    tol = rtol * size
    asymmetry = np.abs(I - np.swapaxes(I, -1, -2)).max(axis=(-1, -2))
    _raise_at_first(
        asymmetry > tol,
        lambda i: (
            f"{name}: expected a symmetric 6x6 inertia for {_body(i)}, "
            f"got asymmetry {asymmetry[i]:.3g}"
        ),
    )
    lower = I[..., 3:, 3:]
    m = np.trace(lower, axis1=-2, axis2=-1) / 3
    _raise_at_first(
        ~(m > 0),
        lambda i: (
            f"{name}: expected a positive mass (lower-right block m*I3) for {_body(i)}, "
            f"got m = {m[i]:.6g}"
        ),
    )
    _raise_at_first(
        np.abs(lower - m[..., None, None] * np.eye(3)).max(axis=(-1, -2)) > tol,
        lambda i: (
            f"{name}: expected the lower-right block of {_body(i)} to be m*I3, "
            f"got {lower[i].tolist()}{_linear_first_hint(I[i], tol[i])}"
        ),
    )
    mC = I[..., :3, 3:]
    _raise_at_first(
        np.abs(mC + np.swapaxes(mC, -1, -2)).max(axis=(-1, -2)) > tol,
        lambda i: (
            f"{name}: expected coupling blocks m[c] and -m[c] (a centre of mass) for "
            f"{_body(i)}, got a non-antisymmetric upper-right block {mC[i].tolist()}"
        ),
    )
    c = _vee(mC) / m[..., None]
    C = _skew(c)
    inertia_com = I[..., :3, :3] + m[..., None, None] * (C @ C)
    inertia_com = 0.5 * (inertia_com + np.swapaxes(inertia_com, -1, -2))
    rotational_size = np.abs(I[..., :3, :3]).max(axis=(-1, -2))
    return m, c, _snap_second_moments(inertia_com, rtol * rotational_size)


def _snap_second_moments(inertia_com, tol):
    """Set central second moments with magnitude <= ``tol`` (kg m^2, per body) to zero."""
    s, U = np.linalg.eigh(central_second_moments(inertia_com))
    snap = np.abs(s) <= tol[..., None]
    sigma = (U * np.where(snap, 0.0, s)[..., None, :]) @ np.swapaxes(U, -1, -2)
    snapped = np.trace(sigma, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - sigma
    return np.where(np.any(snap, axis=-1)[..., None, None], snapped, inertia_com)


def _symmetric(value, name):
    """Validate a (..., 3, 3) symmetric matrix (tolerance relative to its size)."""
    A = _validate.trailing_shape(value, name, (3, 3))
    asym = np.abs(A - np.swapaxes(A, -1, -2)).max(axis=(-1, -2), initial=0.0)
    scale = np.abs(A).max(axis=(-1, -2), initial=0.0)
    if np.any(asym > 1e-12 * (1 + scale)):
        raise ValueError(f"{name}: expected a symmetric 3x3 matrix, got asymmetry {asym.max():.3g}")
    return A


def central_second_moments(inertia_com):
    r"""Central second-moment matrix :math:`\Sigma = \tfrac12\operatorname{tr}(I_C) I_3 - I_C`.

    :math:`\Sigma = \int (r - c)(r - c)^T\,dm` for a real mass distribution, so it is
    positive semidefinite exactly when :math:`I_C` is physically realizable.

    Parameters
    ----------
    inertia_com : (..., 3, 3) array_like
        Rotational inertia about the centre of mass, kg m^2, symmetric.

    Returns
    -------
    (..., 3, 3) ndarray
        :math:`\Sigma` in kg m^2.

    Raises
    ------
    ValueError
        If ``inertia_com`` is malformed or not symmetric.

    Examples
    --------
    A thin rod along x has all its mass on the x axis: only the second moment along x,
    :math:`mL^2/12`, is nonzero.

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> I_C = inertia.thin_rod_central_inertia(1.0, 0.3, axis=0)
    >>> np.diag(inertia.central_second_moments(I_C)).round(12)  # 1 x 0.3^2 / 12 kg m^2
    array([0.0075, 0.    , 0.    ])
    """
    I_C = _symmetric(inertia_com, "inertia_com")
    trace = np.trace(I_C, axis1=-2, axis2=-1)
    return 0.5 * trace[..., None, None] * np.eye(3) - I_C


def is_physically_realizable(inertia_com, *, rtol=_REALIZABILITY_RTOL):
    r"""Whether :math:`I_C` can be the central inertia of a non-negative mass distribution.

    Equivalent conditions: :math:`\Sigma = \tfrac12\operatorname{tr}(I_C)I_3 - I_C \succeq 0`;
    principal moments satisfy the triangle inequalities
    :math:`J_1 \le J_2 + J_3` (and cyclic), since :math:`J_2 + J_3 - J_1 = 2\int x_1^2\,dm`.
    Ideal point masses (:math:`I_C = 0`) and thin rods (one zero moment) are realizable.

    The tolerance is relative to :math:`I_C` itself, which cannot tell a tiny body from
    the rounding noise left by subtracting :math:`m[c][c]` from an inertia about a distant
    origin.  Decode spatial inertias with :func:`mass_properties`, which removes that
    noise on the scale of the body it came from; its results pass this test for every
    realizable body, point masses at any distance included.

    Parameters
    ----------
    inertia_com : (..., 3, 3) array_like
        Rotational inertia about the centre of mass, kg m^2, symmetric.
    rtol : float, optional, keyword only
        Relative tolerance, default 1e-10: eigenvalues of :math:`\Sigma` down to
        :math:`-\mathrm{rtol}\,\operatorname{tr}\Sigma = -\mathrm{rtol}\,\operatorname{tr}(I_C)/2`
        count as zero.

    Returns
    -------
    ndarray of bool
        Shape ``(...)``.

    Raises
    ------
    ValueError
        If ``inertia_com`` is malformed or not symmetric.

    Examples
    --------
    Principal moments (1, 2, 2.5) kg m^2 satisfy the triangle inequalities; (1, 1, 3)
    do not (3 > 1 + 1):

    >>> import numpy as np
    >>> from geomotion import inertia
    >>> inertia.is_physically_realizable([np.diag([1.0, 2.0, 2.5]), np.diag([1.0, 1.0, 3.0])])
    array([ True, False])
    """
    sigma = central_second_moments(inertia_com)
    trace = np.trace(sigma, axis1=-2, axis2=-1)
    return np.linalg.eigvalsh(sigma).min(axis=-1) >= -rtol * np.abs(trace)
