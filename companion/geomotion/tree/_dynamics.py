r"""The public fast dynamics of a tree: CRBA, RNEA, ABA and the bias forces.

Each validates its arguments (naming the one at fault) and runs its compiled kernel
once for the whole batch (``geomotion.tree._run``); the readable oracle of each is in
:mod:`geomotion.tree.reference`.

A single configuration takes a lean path first (``geomotion.tree._run.rnea_one`` and the
others): when the arrays are already what the kernels take (float64 vectors of the model's
sizes, C-contiguous and writable) and the call uses the model's gravity and no external
wrench, a kernel compiled for one configuration (``geomotion.tree._single``) checks them
(finite, unit quaternions) and runs at once, without the general path's conversions,
broadcasting and reshapes, which cost more than the kernel at N = 7.  Inputs it does not
admit, a result that is not finite (an overflow, a singular joint), every other call and
every bad input go the general way, so the messages are the same.
"""

import numpy as np

from .. import _validate
from . import _run
from ._model import (
    Tree,
    _batch_shape,
    _check_configuration,
    _check_f_ext,
    _check_gravity,
    _check_tangent,
    check_model,
)

__all__ = ["crba", "rnea", "bias_forces", "aba"]


def crba(model, q):
    r"""Joint-space mass matrix :math:`M(q)` by the composite-rigid-body algorithm.

    Equations of the book: :eq:`eq-composite-accumulation`, :eq:`eq-mass-matrix-jacobians`
    and :eq:`conv-joint-space`.

    .. math:: M_{ij} = M_{ji} = S_i^T\,({}^{j}X_{i})^T\,\mathcal I^C_j S_j
              \quad (i \text{ an ancestor of, or equal to, } j),\qquad
              K = \tfrac12\dot q^T M(q)\dot q

    with :math:`{}^{j}X_{i} = X_j X_{\lambda(j)}\cdots` the motion transform from body
    :math:`i`'s coordinates to body :math:`j`'s; :math:`M_{ij} = 0` across branches.

    Same mathematics as :func:`joint_mass_matrix` on :func:`prepare`, organized for
    speed (see the module notes); batches of configurations are one call.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., nv, nv) ndarray
        Symmetric positive (semi)definite ``M`` (kg m^2, kg m or kg by joint types).
        For large batches the result may be a non-contiguous view.

    Raises
    ------
    TypeError
        If ``model`` is not a Tree, or ``q`` is None (or holds None).
    ValueError
        If ``q`` is not a finite (..., nq) configuration.

    Examples
    --------
    The book's two-link arm stretched out along x, then with the elbow bent 90 degrees,
    where the terms :math:`m_2L_1c_2\cos q_2` (0.15 kg m^2 at :math:`q_2 = 0`) vanish:

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.crba(arm, [0.0, 0.0]).round(6)
    array([[0.9175, 0.2175],
           [0.2175, 0.0675]])
    >>> tree.crba(arm, [0.0, np.radians(90)]).round(6)
    array([[0.6175, 0.0675],
           [0.0675, 0.0675]])
    """
    if type(model) is Tree:  # the lean path of one configuration (see the module notes)
        M = _run.crba_one(model, q)
        if M is not None:
            return M
    check_model(model)
    return _run.run_crba(model, _check_configuration(model, q, "q"))


def _model_defaults(model, gravity, f_ext, f_ext_frame):
    """Whether a call is on a Tree with its own gravity and no external wrench: the calls
    the lean path of one configuration serves."""
    return type(model) is Tree and gravity is None and f_ext is None and f_ext_frame == "body"


def _dynamics_inputs(model, args, names, gravity, f_ext, f_ext_frame, *, given=None):
    """The checked arrays ``args`` (named ``names``), gravity and external wrenches.

    ``given``: the names of the arrays the call itself was given, the first of ``names``
    (default all of them; bias_forces has no ``a``: its zero ``a``, of ``v``'s shape,
    cannot break the broadcast), which the message of a batch that does not broadcast
    names, with ``f_ext`` and ``gravity`` when the call gave them.
    """
    check_model(model)
    arrays = [_check_configuration(model, args[0], names[0])]
    arrays += [_check_tangent(model, a, name) for a, name in zip(args[1:], names[1:])]
    g = _check_gravity(model, gravity)
    F = _check_f_ext(model, f_ext, f_ext_frame)
    given = names if given is None else given
    _batch_shape(arrays[: len(given)], given, wrench=F, gravity=None if gravity is None else g)
    return arrays, g, F


def rnea(model, q, v, a, *, gravity=None, f_ext=None, f_ext_frame="body"):
    r"""Inverse dynamics by the recursive Newton–Euler algorithm: joint forces for a motion.

    Equations of the book: :eq:`eq-velocity-recursion`, :eq:`eq-spatial_newton_euler_final`
    and :eq:`conv-joint-space`.

    Outward, with the base accelerating at :math:`-g` (so gravity needs no separate term):

    .. math:: \mathcal V_i = X_i\mathcal V_{\lambda(i)} + S_i\dot q_i,\qquad
              \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_i\ddot q_i + \mathcal V_i\times S_i\dot q_i,

    .. math:: \mathcal F_i = \mathcal I_i\mathcal A_i
              + \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i ;

    inward: :math:`\tau_i = S_i^T\mathcal F_i`,
    :math:`\mathcal F_{\lambda(i)} \mathrel{+}= X_i^T\mathcal F_i`.  Equivalently
    :math:`\tau = M(q)\ddot q + C(q,\dot q)\dot q + g(q) - \sum_i J_i^T\mathcal F^{ext}_i`
    with the body Jacobians :math:`J_i` of :func:`body_jacobians`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration: joint positions (rad or m), unit quaternions of ball and
        free-flyer joints.
    v, a : (..., nv) array_like
        Joint rates (rad/s or m/s) and accelerations (rad/s^2 or m/s^2).  Leading axes
        broadcast against each other.
    gravity : None or (3,) or (..., 3) array_like
        Default None: the model's gravity (``model.gravity``, set where the tree is
        built).  Or gravitational acceleration in base coordinates for this call,
        m/s^2; leading axes broadcast with the configurations' (one gravity per
        configuration).
    f_ext : (..., N, 6) array_like, optional
        External wrench on each body, moment-first (N m, N).
    f_ext_frame : {"body", "world"}
        ``"body"``: ``f_ext[..., i, :]`` in body ``i`` coordinates about body ``i``'s
        origin; ``"world"``: in base coordinates about the base origin.

    Returns
    -------
    (..., nv) ndarray
        Joint forces ``tau`` (N m for revolute/helical, N for prismatic joints).

    Raises
    ------
    ValueError
        Naming the argument, for wrong shapes or lengths, non-broadcasting batches,
        non-finite values, or an unknown ``f_ext_frame``.
    TypeError
        Naming the argument, if ``model`` is not a Tree, or ``q``, ``v`` or ``a`` is None
        (or holds None).
    FloatingPointError
        If finite inputs overflow the float range inside the recursion (velocities
        beyond about 1e154 rad/s or m/s, whose squares pass 1.8e308), naming the inputs
        and their sizes, instead of returning NaN.

    Examples
    --------
    The two-link arm at rest, stretched out along x, made to accelerate joint 1 at
    1 rad/s^2: without gravity the torques are the first column of :math:`M(0)`; with
    the model's gravity the holding torques (14.2245, 2.4525) N m are added.

    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> q, v = [0.0, 0.0], [0.0, 0.0]
    >>> tree.rnea(arm, q, v, [1.0, 0.0], gravity=[0.0, 0.0, 0.0]).round(6)
    array([0.9175, 0.2175])
    >>> tree.rnea(arm, q, v, [1.0, 0.0]).round(6)
    array([15.142,  2.67 ])
    """
    return _rnea(model, q, v, a, gravity, f_ext, f_ext_frame, given=("q", "v", "a"))


def _rnea(model, q, v, a, gravity, f_ext, f_ext_frame, *, given):
    """:func:`rnea`, for rnea and bias_forces; ``given`` as in :func:`_dynamics_inputs`."""
    if _model_defaults(model, gravity, f_ext, f_ext_frame):
        tau = _run.rnea_one(model, q, v, a)
        if tau is not None:
            return tau
    (q, v, a), g, F = _dynamics_inputs(
        model, (q, v, a), ("q", "v", "a"), gravity, f_ext, f_ext_frame, given=given
    )
    return _run.run_rnea(model, q, v, a, g, F, f_ext_frame)


def bias_forces(model, q, v, *, gravity=None, f_ext=None, f_ext_frame="body"):
    r"""Joint forces at zero joint acceleration, the bias of the equations of motion.

    Equations of the book: :eq:`eq-gs-holding-torques` and :eq:`eq-ch2-christoffel`.

    .. math:: b(q,\dot q) = C(q,\dot q)\dot q + g(q) - \sum_i J_i^T\mathcal F^{ext}_i

    Equal to ``rnea(model, q, v, 0, gravity=gravity, f_ext=f_ext, f_ext_frame=f_ext_frame)``, so that
    :math:`M\ddot q + b = \tau`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad or m; unit quaternions of ball and free-flyer joints).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s).
    gravity : None or (3,) or (..., 3) array_like
        Default None: ``model.gravity``; see :func:`rnea`.
    f_ext : (..., N, 6) array_like, optional
        External wrenches, see :func:`rnea`.
    f_ext_frame : {"body", "world"}
        Frame of ``f_ext``, see :func:`rnea`.

    Returns
    -------
    (..., nv) ndarray
        N m or N per joint.

    Raises
    ------
    ValueError, TypeError, FloatingPointError
        As :func:`rnea`.

    Examples
    --------
    The two-link arm held still, stretched out along x: :math:`g(m_1c_1 + m_2(L_1 + c_2))`
    and :math:`gm_2c_2`.  Then, without gravity, the elbow bent 90 degrees and joint 1
    turning at 2 rad/s: the centrifugal load :math:`m_2L_1c_2\sin q_2\,\dot q_1^2` =
    0.6 N m on joint 2.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> tree.bias_forces(arm, [0.0, 0.0], [0.0, 0.0]).round(6)
    array([14.2245,  2.4525])
    >>> tree.bias_forces(arm, [0.0, np.radians(90)], [2.0, 0.0], gravity=[0.0, 0.0, 0.0]).round(6)
    array([0. , 0.6])
    """
    v_arr = _validate.real_array(v, "v")
    zero = np.zeros(v_arr.shape)
    return _rnea(model, q, v_arr, zero, gravity, f_ext, f_ext_frame, given=("q", "v"))


def aba(model, q, v, tau, *, gravity=None, f_ext=None, f_ext_frame="body"):
    r"""Forward dynamics by the articulated-body algorithm, O(N): accelerations for given forces.

    Equation of the book: :eq:`conv-joint-space`.

    Solves :math:`M(q)\ddot q = \tau - b(q,\dot q)` without forming :math:`M`.  Inward,
    starting from :math:`\mathcal I^A_i = \mathcal I_i` and the bias wrenches :math:`p^A_i`,
    with :math:`U_i = \mathcal I^A_i S_i`, :math:`D_i = S_i^T U_i`,
    :math:`u_i = \tau_i - S_i^T p^A_i`:

    .. math:: \mathcal I^A_{\lambda(i)} \mathrel{+}=
              X_i^T\Big(\mathcal I^A_i - \frac{U_iU_i^T}{D_i}\Big)X_i,\qquad
              p^A_{\lambda(i)} \mathrel{+}= X_i^T\Big(p^A_i + U_i\frac{u_i}{D_i}\Big);

    outward, from the base accelerating at :math:`-g`:

    .. math:: \ddot q_i = \big(u_i - U_i^T X_i\mathcal A_{\lambda(i)}\big)/D_i,\qquad
              \mathcal A_i = X_i\mathcal A_{\lambda(i)} + S_i\ddot q_i .

    Here each body's velocity-product acceleration :math:`c_i` (its acceleration when all
    :math:`\ddot q = 0` and :math:`g = 0`) is folded into the bias wrench,
    :math:`p^A_i = \mathcal I_i c_i + \mathcal V_i\times^*\mathcal I_i\mathcal V_i - \mathcal F^{ext}_i`,
    and :math:`\mathcal A_i` excludes it; this is algebraically the textbook algorithm
    (whose :math:`\mathcal I^a_i c_i` terms it absorbs).

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configuration (rad or m; unit quaternions of ball and free-flyer joints).
    v : (..., nv) array_like
        Joint rates (rad/s or m/s).
    tau : (..., nv) array_like
        Joint forces (N m or N).
    gravity : None or (3,) or (..., 3) array_like
        Default None: ``model.gravity``; see :func:`rnea`.
    f_ext : (..., N, 6) array_like, optional
        External wrenches, see :func:`rnea`.
    f_ext_frame : {"body", "world"}
        Frame of ``f_ext``, see :func:`rnea`.

    Returns
    -------
    (..., nv) ndarray
        Joint accelerations (rad/s^2 or m/s^2).

    Raises
    ------
    ValueError, TypeError, FloatingPointError
        As :func:`rnea`.

    Examples
    --------
    The two-link arm at rest, stretched out along x: without gravity the first column of
    :math:`M(0)` as torques gives :math:`\ddot q = (1, 0)`; under gravity the holding
    torques of :func:`bias_forces` hold it still.

    >>> import numpy as np
    >>> from geomotion import models, tree
    >>> arm = models.two_link_teaching_arm()
    >>> q, v = [0.0, 0.0], [0.0, 0.0]
    >>> tree.aba(arm, q, v, [0.9175, 0.2175], gravity=[0.0, 0.0, 0.0]).round(6)
    array([1., 0.])
    >>> bool(np.allclose(tree.aba(arm, q, v, tree.bias_forces(arm, q, v)), 0.0))
    True
    """
    if _model_defaults(model, gravity, f_ext, f_ext_frame):
        a = _run.aba_one(model, q, v, tau)
        if a is not None:
            return a
    (q, v, tau), g, F = _dynamics_inputs(
        model, (q, v, tau), ("q", "v", "tau"), gravity, f_ext, f_ext_frame
    )
    return _run.run_aba(model, q, v, tau, g, F, f_ext_frame)
