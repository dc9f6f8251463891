r"""Grip kinematics and statics: contact point velocities, resultant wrenches, the grasp
matrix and the internal (zero-resultant) contact forces.

See :mod:`geomotion.contact` for the conventions.
"""

from dataclasses import dataclass

import numpy as np

from .. import _validate, constraints, spatial
from .._linalg import _check_batches


def _vectors3(value, name):
    return _validate.trailing_shape(value, name, (3,))


def _contact_points(r, name="r"):
    """Validate a (..., k, 3) stack of contact offsets with k >= 1."""
    points = _validate.trailing_shape(r, name, (3,))
    if points.ndim < 2 or points.shape[-2] == 0:
        raise ValueError(
            f"{name}: expected shape (..., k, 3) with k >= 1 contacts, got shape {points.shape}"
        )
    return points


def contact_point_velocity(V_O, r):
    r"""Velocity of a contact point of a rigid body: :math:`v_i = v_O + \omega\times r_i`.

    Two contacts at different offsets move differently whenever the body rotates:
    :math:`v_L - v_R = \omega\times(r_L - r_R)`.  A no-slip hand contact equates the
    hand's point velocity with this one, not with :math:`v_O` (point and soft-finger
    contacts constrain only these three components; a rigid attachment also equates the
    angular velocities).  The right-hand side of equation :eq:`eq-ch2-hand-no-slip`.

    Parameters
    ----------
    V_O : (..., 6) array_like
        Twist of the body (club), angular-first: :math:`\omega` [rad/s] and the velocity
        :math:`v_O` [m/s] of the reference point :math:`O`, in one spatial frame.
    r : (..., 3) array_like
        Offset from :math:`O` to the contact [m], in the same axes.  For k contacts of
        one twist pass ``r`` of shape (k, 3); with a batch of twists (B, 6) use
        ``V_O[:, None, :]`` against ``r`` of shape (B, k, 3).

    Returns
    -------
    (..., 3) ndarray
        Contact point velocity [m/s], in the frame of ``V_O``; leading axes broadcast.

    Raises
    ------
    ValueError
        If ``V_O`` is not a finite (..., 6) array, ``r`` not a finite (..., 3) array, or
        their leading axes do not broadcast.
    """
    V = _validate.trailing_shape(V_O, "V_O", (6,))
    r = _vectors3(r, "r")
    _check_batches(V_O=(V, 1), r=(r, 1))
    return V[..., 3:] + np.cross(V[..., :3], r)


def _resultant(r, f):
    """Unvalidated :func:`resultant_wrench`."""
    return np.concatenate([np.cross(r, f).sum(axis=-2), f.sum(axis=-2)], axis=-1)


def resultant_wrench(r, f):
    r"""Net wrench about :math:`O` of point forces :math:`f_i` applied at offsets :math:`r_i`.

    .. math:: \mathcal F_O = \begin{bmatrix} \sum_i r_i\times f_i \\ \sum_i f_i \end{bmatrix}
              = G\,(f_1, \dots, f_k)

    (:math:`G` is the :func:`grasp_matrix`).  For two hands it is equation
    :eq:`eq-ch2-grip-resultant`.

    Parameters
    ----------
    r : (..., k, 3) array_like
        Offsets from the reference point :math:`O` to the contacts [m].
    f : (..., k, 3) array_like
        Forces applied to the body at those contacts [N], in the same axes.

    Returns
    -------
    (..., 6) ndarray
        Moment-first wrench :math:`(n_O, f)` [N m, N] about :math:`O`.

    Raises
    ------
    ValueError
        If ``r`` or ``f`` is not a finite (..., k, 3) array with k >= 1, or their leading
        axes (contacts included) do not broadcast.
    """
    r = _contact_points(r, "r")
    f = _contact_points(f, "f")
    _check_batches(r=(r, 1), f=(f, 1))
    return _resultant(r, f)


def grip_wrench(r_L, r_R, f_L, f_R):
    r"""Net wrench of the two hands on the club about its reference point :math:`O`.

    .. math:: f = f_L + f_R,\qquad n_O = r_L\times f_L + r_R\times f_R

    Equation :eq:`eq-ch2-grip-resultant`.

    The measured resultant constrains only these six numbers: the squeeze of
    :func:`internal_grip_forces` can be added without changing them.  The geometry comes
    before the loads, as everywhere in ``geomotion`` (``book/api_convention.md``).

    Parameters
    ----------
    r_L, r_R : (..., 3) array_like
        Offsets from :math:`O` to the left and right hand contacts [m].
    f_L, f_R : (..., 3) array_like
        Forces of the left and right hand on the club [N], in the same axes.

    Returns
    -------
    (..., 6) ndarray
        Moment-first wrench :math:`(n_O, f)` [N m, N] about :math:`O`; leading axes
        broadcast.

    Raises
    ------
    TypeError
        If an argument is ``None`` or holds ``None``.
    ValueError
        If an argument is not a finite (..., 3) array or the leading axes do not broadcast.
    """
    r_L, r_R, f_L, f_R = (
        _vectors3(r_L, "r_L"),
        _vectors3(r_R, "r_R"),
        _vectors3(f_L, "f_L"),
        _vectors3(f_R, "f_R"),
    )
    _check_batches(r_L=(r_L, 1), r_R=(r_R, 1), f_L=(f_L, 1), f_R=(f_R, 1))
    r_L, r_R, f_L, f_R = np.broadcast_arrays(r_L, r_R, f_L, f_R)
    return _resultant(np.stack([r_L, r_R], axis=-2), np.stack([f_L, f_R], axis=-2))


def grasp_matrix(r):
    r"""Grasp matrix :math:`G` mapping stacked contact forces to the net wrench about :math:`O`.

    .. math:: G = \begin{bmatrix} [r_1] & \cdots & [r_k] \\ I & \cdots & I \end{bmatrix},
              \qquad \mathcal F_O = G\,(f_1, \dots, f_k)

    Rows are moment-first like every wrench; column block :math:`i` acts on :math:`f_i`.
    The moment rows carry metres, the force rows are dimensionless, so singular values of
    :math:`G` depend on the length unit; its null space (:func:`internal_force_basis`)
    does not.  For two hands :math:`G(f_L, f_R)` is equation :eq:`eq-ch2-grip-resultant`.

    Parameters
    ----------
    r : (..., k, 3) array_like
        Offsets from :math:`O` to the k point contacts [m].

    Returns
    -------
    (..., 6, 3k) ndarray
        The grasp matrix.

    Raises
    ------
    ValueError
        If ``r`` is not a finite (..., k, 3) array with k >= 1.
    """
    r = _contact_points(r)
    k = r.shape[-2]
    blocks = np.concatenate([spatial.skew(r), np.broadcast_to(np.eye(3), r.shape + (3,))], -2)
    # (..., k, 6, 3) -> (..., 6, k, 3) -> (..., 6, 3k): block i in columns 3i..3i+2.
    return np.moveaxis(blocks, -3, -2).reshape(r.shape[:-2] + (6, 3 * k))


@dataclass(frozen=True)
class InternalGripForces:
    r"""Result of :func:`internal_grip_forces`: a zero-resultant pair of hand forces.

    Read the two forces by name (``pair.df_L``, ``pair.df_R``); the result does
    not unpack like a tuple.

    Attributes
    ----------
    df_L : (..., 3) ndarray
        Force :math:`\delta f_L = a\,(r_L - r_R)` added on the club at the left contact
        [N].
    df_R : (..., 3) ndarray
        Force :math:`\delta f_R = -\delta f_L` added on the club at the right contact [N].
    """

    df_L: np.ndarray
    df_R: np.ndarray


def internal_grip_forces(r_L, r_R, squeeze):
    r"""A squeeze between the hands that leaves the resultant wrench unchanged.

    .. math:: \delta f_L = a\,(r_L - r_R),\qquad \delta f_R = -\delta f_L

    with :math:`a` the ``squeeze`` intensity (the book's symbol; the argument is not
    called ``a``, which names an acceleration in ``geomotion``).  The pair has zero sum and zero moment
    about any point because both forces lie on the line through the two contacts.
    Adding it to any hand-force pair leaves :func:`grip_wrench` unchanged, so a measured
    resultant cannot reveal it; it still changes grip stiffness and friction reserves.
    For point contacts at two distinct points it spans all internal loads
    (:func:`internal_force_basis` finds one direction); coincident contacts give the
    zero pair here although any :math:`(g, -g)` is then internal.  It is the squeeze
    that equation :eq:`eq-ch2-grip-resultant` cannot see.

    Parameters
    ----------
    r_L, r_R : (..., 3) array_like
        Offsets of the left and right hand contacts from any common point [m].
    squeeze : array_like
        Squeeze intensity :math:`a` [N/m], shape broadcasting with the leading axes;
        ``squeeze > 0`` stretches the club between the contacts (each force points away
        from the other hand), ``squeeze < 0`` compresses it.

    Returns
    -------
    InternalGripForces
        ``df_L`` and ``df_R``, each (..., 3) [N]: the forces added on the club at the left
        and right contact.

    Raises
    ------
    TypeError
        If an argument is ``None`` or holds ``None``.
    ValueError
        If ``r_L`` or ``r_R`` is not a finite (..., 3) array, ``squeeze`` is not finite
        real, or the leading axes do not broadcast.
    """
    r_L = _vectors3(r_L, "r_L")
    r_R = _vectors3(r_R, "r_R")
    s = _validate.real_array(squeeze, "squeeze")
    _check_batches(r_L=(r_L, 1), r_R=(r_R, 1), squeeze=(s, 0))
    df_L = s[..., None] * (r_L - r_R)
    return InternalGripForces(df_L=df_L, df_R=-df_L)


def internal_force_basis(r, *, rtol=None):
    r"""Orthonormal basis of the contact forces with zero resultant: :math:`\ker G`.

    Stacked point forces :math:`(f_1, \dots, f_k)` are internal when
    :math:`G\,(f_1, \dots, f_k) = 0` (:func:`grasp_matrix`).  The dimension is
    :math:`3k - \operatorname{rank}G`: rank 3 for one point (or coincident points), 5 for
    distinct collinear points (a moment about their common line cannot be produced) and 6
    otherwise.  So two distinct hands have exactly one internal direction, the squeeze
    along :math:`r_L - r_R`, and :math:`k \ge 3` non-collinear contacts have
    :math:`3k - 6` (for two hands, the squeeze that equation :eq:`eq-ch2-grip-resultant`
    cannot see).

    The kernel does not depend on the reference point or the length unit, so the rank is
    decided on the grasp matrix about the contacts' centroid with offsets divided by
    their RMS distance from it: the decision is the same for a hand and a fingertip.
    This covers point contacts only; contact moments (soft fingers, flat feet),
    compliance and friction limits change the admissible set.

    Parameters
    ----------
    r : (..., k, 3) array_like
        Contact offsets from any common point [m], in one frame.
    rtol : float, optional
        Relative singular-value threshold of the rank decision, see
        :func:`geomotion.constraints.constraint_rank` (default ``max(6, 3k) * eps``).

    Returns
    -------
    (..., 3k, d) ndarray
        Orthonormal columns spanning the internal forces (force block :math:`i` in rows
        ``3i:3i+3``), :math:`d = 3k - \operatorname{rank}G`; ``d = 0`` for one contact.

    Raises
    ------
    TypeError
        If ``r`` is ``None`` or holds ``None``.
    ValueError
        If ``r`` is not a finite (..., k, 3) array with k >= 1, ``rtol`` is negative, or
        the rank (the contact geometry class) differs across the batch (the message
        names the first element whose rank differs from element 0's).

    Notes
    -----
    **Batches**: leading axes of ``r`` are a batch, but every element must have the same
    grasp-matrix rank, since the result is one array with :math:`3k - \operatorname{rank}G`
    columns.  For a sweep through a change of geometry (contacts becoming collinear),
    call once per element, or read the per-element rank from
    :func:`geomotion.constraints.constraint_rank` of :func:`grasp_matrix` first.
    """
    r = _contact_points(r)
    if rtol is not None:
        _validate.nonnegative(rtol, "rtol")
    centred = r - r.mean(axis=-2, keepdims=True)
    spread = np.sqrt(np.mean(np.sum(centred**2, axis=-1), axis=-1))[..., None, None]
    normalized = centred / np.where(spread > 0, spread, 1.0)
    G = grasp_matrix(normalized)
    rank = np.asarray(constraints.constraint_rank(G, rtol=rtol))
    if rank.ndim and np.any(rank != rank.flat[0]):
        index = tuple(int(i) for i in np.unravel_index(np.argmax(rank != rank.flat[0]), rank.shape))
        first = (0,) * rank.ndim
        raise ValueError(
            f"r: expected the same contact geometry (grasp-matrix rank) across the batch, "
            f"got rank {int(rank[first])} at batch element {first} and {int(rank[index])} "
            f"at batch element {index}"
        )
    return constraints.null_space_basis(G, rtol=rtol, require_regular=False)
