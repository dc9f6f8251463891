r"""The Coriolis matrix of a tree, Christoffel-consistent and analytic.

The velocity terms of the equations of motion, :math:`c(q,\dot q) = C(q,\dot q)\,\dot q`,
can be written with many matrices :math:`C`; the one built from the Christoffel symbols
of the first kind,

.. math:: C_{ij} = \sum_k\Gamma_{ijk}\dot q_k,\qquad
          \Gamma_{ijk} = \tfrac12(\partial_kM_{ij} + \partial_jM_{ik} - \partial_iM_{jk}),

is the one for which :math:`\dot M - 2C` is skew-symmetric (the property passivity-based
controllers and the energy identity :math:`\dot q^Tc = \tfrac12\dot q^T\dot M\dot q`
use).  It is computed here without differentiating :math:`M`: with the body Jacobians
:math:`J_k` in base coordinates,

.. math:: C = \sum_k J_k^T\big(\mathcal I_k\dot J_k + B_k J_k\big),\qquad
          B_k = \tfrac12\big((\mathcal V_k\times^*)\mathcal I_k
          + ((\mathcal V_k\times^*)\mathcal I_k)^T + (\mathcal I_k\mathcal V_k)\bar\times^*\big),

where :math:`(f\bar\times^*)\,x = x\times^* f`; Echeandia and Wensing (2021) show that
this factorization is the Christoffel one.  Organized by subtrees it costs
:math:`O(N^2)` per configuration (the size of :math:`C`); the compiled
kernel (``geomotion.tree._lanes_coriolis.coriolis``, over lanes of configurations) runs
these formulas, and :func:`geomotion.tree.reference.coriolis_matrix` is their readable
oracle.
"""

from . import _run
from ._model import (
    _batch_shape,
    _check_configuration,
    _check_tangent,
    check_model,
)

__all__ = ["coriolis_matrix"]


def coriolis_matrix(model, q, v):
    r"""Christoffel-consistent Coriolis matrix :math:`C(q, \dot q)` of a tree.

    Equations of the book: :eq:`eq-ch2-christoffel` and :eq:`eq-ch2-energy-identity`.

    .. math:: C(q,\dot q)\,\dot q = \mathrm{RNEA}(q, \dot q, 0)\big|_{g = 0},\qquad
              \dot M - 2C = -(\dot M - 2C)^T,\qquad C_{ij} = \sum_k\Gamma_{ijk}\dot q_k

    Analytic (no finite differences), batched over configurations, :math:`O(N^2)` per
    configuration; see the module notes for the algorithm.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad or m; unit quaternions of ball and free-flyer joints).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s); leading axes broadcast.

    Returns
    -------
    (..., nv, nv) ndarray
        :math:`C` (kg m^2/s for revolute joints); :math:`C\dot q` are the centrifugal and
        Coriolis joint forces (N m or N).

    Raises
    ------
    TypeError
        If ``model`` is not a Tree, or ``q`` or ``v`` is None (or holds None).
    ValueError
        If ``q``, ``v`` are malformed, non-finite or do not broadcast.

    Examples
    --------
    The two-link arm with the elbow bent 90 degrees and joint 1 turning at 2 rad/s: with
    :math:`h = m_2L_1c_2\sin q_2` = 0.15 kg m^2,
    :math:`C = [[-h\dot q_2, -h(\dot q_1 + \dot q_2)], [h\dot q_1, 0]]`, and
    :math:`C\dot q` is the centrifugal load of :func:`~geomotion.tree.bias_forces`.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> C = tree.coriolis_matrix(arm, [0.0, np.radians(90)], [2.0, 0.0])
    >>> C.round(6)
    array([[ 0. , -0.3],
           [ 0.3,  0. ]])
    >>> (C @ [2.0, 0.0]).round(6)
    array([0. , 0.6])
    """
    check_model(model)
    arrays = [_check_configuration(model, q, "q"), _check_tangent(model, v, "v")]
    _batch_shape(arrays, ("q", "v"))  # a ValueError naming q and v if they do not broadcast
    return _run.run_coriolis(model, *arrays)
