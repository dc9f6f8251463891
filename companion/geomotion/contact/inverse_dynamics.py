r"""Whole-body inverse dynamics on planted feet, as a quadratic program.

A floating-base body (a tree whose body 0 is a free flyer) performs a given motion
:math:`(q, v, \dot v)` on :math:`K` feet planted on the ground.  The joints' torques
:math:`\tau` and each foot's wrench :math:`w_k` must satisfy the equations of motion,

.. math:: M(q)\dot v + h(q, v) = S^T\tau + \sum_k J_k(q)^Tw_k + J_g(q)^T\lambda,
          \qquad S = [0_{n_a\times 6}\ \ I_{n_a}],

with :math:`J_k` the Jacobian of foot :math:`k`'s sole frame (its twist in its own
axes), :math:`w_k = (n, f)` the ground's wrench on the foot about the sole origin in
sole axes, and :math:`J_g^T\lambda` the loads of optional bilateral closures (a hand on
a club).  The six rows of the free flyer carry no torque: they are the whole body's
Newton-Euler equations, and fix the *resultant* of the contact wrenches (the rate of the
centroidal momentum minus the weight, :func:`geomotion.models.ground_wrench`).  How the
feet share it, and with it the torques, is chosen by a quadratic program
(:func:`contact_inverse_dynamics`), the task-space inverse-dynamics formulation of
humanoid control with the motion given.  Sole frames, wrenches and polygons follow
:mod:`geomotion.contact.feet`; the admissibility rows are each foot's contact-wrench cone
(:mod:`geomotion.contact.wrench_cone`), as in :mod:`geomotion.contact.sharing`.
"""

import math
from dataclasses import dataclass

import numpy as np

from .. import _qp, _validate, spatial, tree
from ..errors import ConvergenceError, InfeasibleContactError
from .feet import _sole_and_world
from .ground import _convex_polygon, _noise_floor
from .sharing import _LP_OPTIMAL, _highs
from .wrench_cone import FAMILIES, _foot_rows


@dataclass(frozen=True)
class ContactInverseDynamics:
    r"""Result of :func:`contact_inverse_dynamics`, read by name (it does not unpack).

    The leading shape ``(...)`` is the batch of samples, ``K`` counts the feet,
    :math:`n_a = n_v - 6` the actuated coordinates and ``c`` the closure rows.

    Attributes
    ----------
    tau : (..., nv - 6) ndarray
        Joint torques :math:`\tau` [N m or N] of ``v[6:]``, in the order of ``v``.
    wrench_sole : (..., K, 6) ndarray
        Ground-on-foot wrench :math:`w_k` [N m, N] about each sole origin, sole axes.
    wrench_world : (..., K, 6) ndarray
        The same wrenches about the world origin, world axes.
    resultant : (..., 6) ndarray
        Their sum [N m, N]: the ground's total wrench about the world origin.
    multiplier : (..., c) ndarray
        Closure multipliers :math:`\lambda` (the closures' loads are :math:`J_g^T\lambda`).
    normal_force : (..., K) ndarray
        :math:`f_z` [N] of each sole wrench (normal to the sole).
    vertical_force : (..., K) ndarray
        :math:`u\cdot R_kf_k` [N]: each foot's load along ``up``.
    cop_sole : (..., K, 2) ndarray
        Centre of pressure :math:`(-n_y, n_x)/f_z` [m] in each sole plane; NaN where a
        foot carries at most :math:`r_{tol}W` (unloaded: no centre of pressure).
    cop_world : (..., K, 3) ndarray
        The same points in world coordinates [m].
    equation_residual : (...) ndarray
        Certificate: the largest residual of a row of the equations of motion with these
        loads, relative to the sum of the magnitudes of the row's terms and of what a
        load of size :math:`W` (force :math:`W`, moment :math:`W\ell_k`) at every foot
        does in that row (dimensionless: each row in its own unit; the second part
        keeps a row whose terms all vanish, but for rounding, from counting it).
    violation : (...) ndarray
        Certificate: the largest violation of a foot's condition (compression, or a face
        of its contact-wrench cone: friction, support, torsion), in N (a support or
        torsion row, a moment, over :math:`\ell_k`), relative to the load scale :math:`W`;
        0 if none.
    kkt_residual : (...) ndarray
        Certificate, on DAQP's scaled program (dimensionless unknowns and rows of unit
        length, so that norms mix no units): the largest of the stationarity residual
        :math:`\|Hy + f + C^T\lambda\|_\infty` over the largest of its three terms,
        the most negative inequality multiplier over the largest multiplier, and the
        largest complementarity product :math:`|\lambda_i s_i|` (:math:`s_i` a row's
        slack) over the largest multiplier times the unknowns' size.
    """

    tau: np.ndarray
    wrench_sole: np.ndarray
    wrench_world: np.ndarray
    resultant: np.ndarray
    multiplier: np.ndarray
    normal_force: np.ndarray
    vertical_force: np.ndarray
    cop_sole: np.ndarray
    cop_world: np.ndarray
    equation_residual: np.ndarray
    violation: np.ndarray
    kkt_residual: np.ndarray


def contact_inverse_dynamics(
    model,
    contacts,
    q,
    v,
    a,
    friction_coefficient,
    support_polygon,
    *,
    strength=None,
    balance=1.0,
    load_scale=None,
    length_scale=None,
    closures=(),
    min_normal_force=0.0,
    cone_facets=16,
    up=(0.0, 0.0, 1.0),
    rtol=1e-9,
):
    r"""Joint torques and foot wrenches of a motion on planted feet: a certified QP per sample.

    **Unknowns**: the torques :math:`\tau\in\mathbb R^{n_a}` of the actuated coordinates
    ``v[6:]``, the sole wrenches :math:`w_k\in\mathbb R^6` and the closure multipliers
    :math:`\lambda`.  Of the equations of motion

    .. math:: M\dot v + h = S^T\tau + \sum_k J_k^Tw_k + J_g^T\lambda,\qquad
              S = [0_{n_a\times 6}\ \ I_{n_a}],

    (:math:`J_k` the Jacobian of foot :math:`k`'s sole frame, its twist in its own axes;
    :math:`w_k = (n, f)` the ground's wrench on the foot about the sole origin in sole
    axes), the :math:`n_a` actuated rows give the torques exactly,

    .. math:: \tau = \tau_0 - B x,\qquad \tau_0 = (M\dot v + h)_{6:},\quad
              B = \big[J_1^T\ \cdots\ J_K^T\ J_g^T\big]_{6:},\quad
              x = (w_1, \dots, w_K, \lambda),

    (:math:`M\dot v + h` by :func:`geomotion.tree.rnea`), so the program is solved in
    :math:`x` and :math:`\tau` follows.

    **Equalities**: the six free-flyer rows :math:`(M\dot v + h)_{0:6} =
    \big[J_1^T\ \cdots\ J_g^T\big]_{0:6}\,x`, which fix the contact wrenches' resultant.

    **Inequalities**, per foot in sole axes (:func:`load_share_range`'s rows):
    :math:`f_z \ge F_{\min}`, and the sole wrench in its contact-wrench cone,
    :math:`H_kw_k \le 0` (:func:`contact_wrench_cone`): exactly the wrenches of forces at
    the sole polygon's vertices, each in the friction pyramid of :math:`N` =
    ``cone_facets`` faces inscribed in the Coulomb cone, :math:`\cos\alpha_j\varphi_x +
    \sin\alpha_j\varphi_y \le \mu\cos(\pi/N)\varphi_z`, :math:`\alpha_j = 2\pi j/N`
    (its edges lie on the cone: an admissible answer is admissible for the cone).  Its
    rows are the pyramid on the foot's force, the centre of pressure in the convex
    polygon, :math:`n_e\cdot((-n_y, n_x) - f_zp_e) \ge 0` per edge :math:`e` (inward
    normal :math:`n_e`, vertex :math:`p_e`), and the torsion faces, which bound the free
    moment as a function of the rest of the wrench (Caron, Pham and Nakamura 2015, in
    closed form for a rectangle and four faces).  For a rigid flat sole with pointwise
    Coulomb friction linearised by the pyramid the rows are necessary and sufficient: a
    certified answer is a wrench some distribution of pressure and traction over the
    sole produces.

    **Objective** (with the factor 1/2 of the book's costs),

    .. math:: \tfrac12\sum_j\Big(\frac{\tau_j}{s_j}\Big)^2
              + \frac{\beta}{2W^2}\sum_k\Big(\|f_k\|^2
              + \frac{\|n_k - c_k\times f_k\|^2}{\ell_k^2}\Big),

    the torques weighted by each joint's strength :math:`s_j`, and a balance term: each
    foot's wrench about its sole's centre :math:`c_k` (the mean of its polygon's
    vertices), moments over a length :math:`\ell_k`, the whole over a load :math:`W`.
    With the resultant's force fixed, :math:`\sum_k\|f_k\|^2` is least when the feet share
    it equally; the moment term draws each centre of pressure to its sole's centre and
    the free moment to zero.  The balance term makes the program strictly convex in the
    wrenches whatever the legs can do; :math:`\beta = 0` leaves the choice to the torques.

    **Certificate**: each sample is solved by DAQP (a dual active-set method, on
    unknowns scaled to unit curvature and rows of unit length) and accepted only if its
    ``equation_residual``, ``violation`` and ``kkt_residual`` (see
    :class:`ContactInverseDynamics`) are all at most ``rtol``.

    **No admissible loads**: where DAQP finds the rows incompatible, the first such
    sample is diagnosed by a phase-1 linear program (HiGHS): the least largest violation
    :math:`t` [N] of the feet's conditions subject to the equalities (support and torsion
    rows divided by :math:`\ell_k`), whose dual weights name the conditions in conflict,
    and :class:`geomotion.errors.InfeasibleContactError` is raised: it names that sample,
    every infeasible sample, and the foot, family (``"normal"``, ``"friction"``,
    ``"support"``, ``"torsion"``) and edge (pyramid face :math:`j`, polygon edge :math:`e`
    from vertex :math:`e` to :math:`e + 1`, or the torsion face's index in
    :func:`contact_wrench_cone`'s order) of the heaviest weight.  The weights are those of
    the same program without the torsion faces where that one is infeasible too (the
    force's pyramid, the centre of pressure or compression conflict by themselves; at
    such a limit the torsion faces through the same vertex forces are active as well, and
    the duals could put the weight on either), so that ``"torsion"`` is named only where
    the free moment's limit is what no sharing can meet, and then it is (the heaviest
    torsion face).  No answer is returned
    for an infeasible motion: an error rather than a status flag, as the API convention
    asks (no answer that is not one; a batch's error names its element).

    Parameters
    ----------
    model : geomotion.tree.Tree
        A tree whose body 0 has a free-flyer joint (``v[0:6]`` its twist in its axes).
    contacts : sequence of (int, (4, 4) array_like) or of objects with ``body`` and ``pose``
        Foot :math:`k`'s sole frame: the index of the body that carries it and its pose in
        that body (a ``models`` ``BodyFrame`` works), z the sole normal into the foot.
    q : (..., nq) array_like
        Configurations.
    v, a : (..., nv) array_like
        Velocities and accelerations; leading axes broadcast with ``q``'s.
    friction_coefficient : array_like
        Coulomb coefficient :math:`\mu \ge 0`: a scalar, or per foot (..., K).
    support_polygon : (V, 2) or (..., K, V, 2) array_like
        Convex sole polygon [m] in each sole plane (sole x, y), as in
        :func:`foot_contacts`; one (V, 2) outline is shared by every foot.
    strength : (..., nv - 6) array_like, optional
        Joint strengths :math:`s_j > 0` [N m or N]; default 1 for every joint (the
        Euclidean norm of :math:`\tau` in SI units, not a neutral choice).
    balance : float
        :math:`\beta \ge 0` (dimensionless, default 1): a foot load of size :math:`W`
        weighs like one joint at its full strength.
    load_scale : float, optional
        :math:`W > 0` [N]; default the model's weight :math:`m\|g\|`.
    length_scale : array_like, optional
        :math:`\ell_k > 0` [m], a scalar or per foot (..., K); default each sole
        polygon's RMS distance of its vertices from their mean.
    closures : sequence of constraints, optional
        Bilateral closures (objects with ``jacobian(q)``, (..., c_i, nv)) whose loads are
        unknowns without bounds, e.g. the trail hand on the club; default none.
    min_normal_force : float
        :math:`F_{\min} \ge 0` [N], the least normal load of every foot (default 0).
    cone_facets : int
        Faces :math:`N \ge 3` of the friction pyramid (default 16).
    up : (3,) array_like
        Upward direction in world axes for ``vertical_force`` (normalized; default +z).
    rtol : float
        Certificate tolerance in (0, 1), dimensionless (default 1e-9); also the share
        of :math:`W` below which a foot has no centre of pressure.

    Returns
    -------
    ContactInverseDynamics
        Torques, wrenches (sole and world), closure multipliers, per-foot loads and
        centres of pressure, and the certificate of every sample.

    Raises
    ------
    TypeError
        If ``model`` is not a Tree, ``contacts`` or ``closures`` is not a sequence of
        the kind above, a body index or ``cone_facets`` is not an integer, or an array
        argument is ``None``.
    ValueError
        If body 0 is not a free flyer, a body index is out of range, a pose is not
        rigid, a shape is wrong or batches do not broadcast, ``strength``,
        ``load_scale`` or ``length_scale`` is not positive, ``balance``,
        ``friction_coefficient`` or ``min_normal_force`` is negative, ``rtol`` is not in
        (0, 1), ``up`` is zero, a polygon is not convex, or the objective is not
        strictly convex at a sample (``balance`` 0 with wrench directions no torque
        sees, or closures with dependent rows).
    geomotion.errors.InfeasibleContactError
        (a ValueError) If no admissible loads exist at some sample.
    geomotion.ConvergenceError
        If DAQP stops otherwise, an answer fails its certificate, or the phase-1 program
        finds no violation where DAQP found no answer.

    Notes
    -----
    **Batches**: leading axes broadcast; the programs' matrices are built for the whole
    batch at once, and DAQP solves one sample at a time.
    """
    model = tree.check_model(model)
    if model.joints[0].kind != "free_flyer":
        raise ValueError(
            f"model: expected body 0 to have a free-flyer joint, got a {model.joints[0].kind} one"
        )
    feet = _contact_frames(model, contacts)
    closures = _closure_list(closures)
    K, na = len(feet), model.nv - 6
    vertices, inward = _convex_polygon(support_polygon)
    per_foot = {
        "friction_coefficient": _validate.nonnegative(friction_coefficient, "friction_coefficient"),
        "support_polygon": vertices,
        "length_scale": _sole_lengths(vertices, length_scale),
    }
    s = np.ones(na) if strength is None else _validate.positive(strength, "strength")
    if s.ndim == 0 or s.shape[-1] != na:
        raise ValueError(f"strength: expected shape (..., {na}), got shape {s.shape}")
    beta = _scalar(balance, "balance", _validate.nonnegative)
    W = _load_scale(model, load_scale)
    floor = _noise_floor(min_normal_force)
    facets = _validate.count(cone_facets, "cone_facets", minimum=3, whole_floats=False)
    u = _validate.vector(up, "up", 3)
    if not np.linalg.norm(u) > 0:
        raise ValueError(f"up: expected a non-zero direction, got {u!r}")
    rtol = _scalar(rtol, "rtol", _validate.positive)
    if not rtol < 1:
        raise ValueError(f"rtol: expected a value in (0, 1), got {rtol}")

    r = tree.rnea(model, q, v, a)  # M a + h, (..., nv)
    shapes = {"q, v, a": r.shape[:-1], "strength": s.shape[:-1]}
    for name, values in per_foot.items():
        core = 2 if name == "support_polygon" else 0
        if values.ndim > core and values.shape[values.ndim - core - 1] not in (1, K):
            raise ValueError(
                f"{name}: expected a feet axis of length {K} (the contacts) or 1, got shape "
                f"{values.shape}"
            )
        shapes[name] = values.shape[: max(values.ndim - core - 1, 0)]
    batch = _validate.batch_shape(shapes)
    n = math.prod(batch)
    flat = lambda x, core: np.broadcast_to(x, batch + core).reshape((n,) + core)  # noqa: E731
    where = lambda i: tuple(int(j) for j in np.unravel_index(i, batch))  # noqa: E731
    q = flat(_validate.real_array(q, "q"), (model.nq,))
    T = np.stack([tree.frame_pose(model, q, body, F) for body, F in feet], axis=-3)
    J = [tree.frame_jacobian(model, q, body, F) for body, F in feet]
    J += [_closure_jacobian(closure, q, model.nv) for closure in closures]
    V = vertices.shape[-2]
    verts, normals = flat(vertices, (K, V, 2)), flat(inward, (K, V, 2))
    mu = flat(per_foot["friction_coefficient"], (K,))
    G_foot, h_foot, family, edge = _foot_rows(mu, verts, normals, floor, facets)
    program = _Program(
        np.swapaxes(np.concatenate(J, axis=-2), -1, -2),  # (n, nv, 6K + c)
        flat(r, (model.nv,)),
        flat(s, (na,)),
        beta / W**2,
        verts.mean(axis=-2),
        flat(per_foot["length_scale"], (K,)),
        G_foot,
        h_foot,
        rtol,
    )
    if not program.convex.all():
        raise ValueError(
            f"balance, closures: expected a strictly convex objective, got one whose least "
            f"curvature is at most rtol = {rtol:g} times its largest at sample "
            f"{where(int(np.argmin(program.convex)))} (balance 0 with wrench directions that "
            f"no joint torque sees, or closures with dependent rows)"
        )
    infeasible = []
    for i in range(n):
        flag = program.solve(i)
        if flag == _qp.DAQP_INFEASIBLE:
            infeasible.append(i)
        elif flag != _qp.DAQP_OPTIMAL:
            raise ConvergenceError(
                f"contact_inverse_dynamics: DAQP stopped at sample {where(i)} with exit flag "
                f"{flag} ({_qp.DAQP_EXITS.get(flag, 'unknown')})",
                residual=np.inf,
                tolerance=rtol,
                iterations=int(program.iterations[i]),
                suggestion="loads and lengths in consistent units",
            )
    if infeasible:
        raise _diagnosis(program, infeasible, where, (family, edge), facets, V, W, rtol)
    x, *certificate = program.certificate(W)
    worst = np.max(np.stack(certificate), axis=0)
    if np.any(worst > rtol):
        i = int(np.argmax(worst))
        raise ConvergenceError(
            f"contact_inverse_dynamics: DAQP's answer at sample {where(i)} fails its "
            f"certificate (equation residual {certificate[0][i]:.3g}, violation "
            f"{certificate[1][i]:.3g}, KKT residual {certificate[2][i]:.3g})",
            residual=float(worst[i]),
            tolerance=rtol,
            iterations=int(program.iterations[i]),
            suggestion="a larger rtol, or loads and lengths in consistent units",
        )
    return _result(program, x, T, certificate, u / np.linalg.norm(u), rtol * W, batch)


def _result(program, x, T, certificate, up, floor, batch):
    """The result of :func:`contact_inverse_dynamics` from the certified unknowns."""
    n, K = x.shape[0], T.shape[-3]
    tau = program.r[:, 6:] - np.einsum("nai,ni->na", program.Jt[:, 6:], x)
    w = x[:, : 6 * K].reshape(n, K, 6)
    w_world = _sole_and_world(T, w, "sole")[1]
    R, p = T[..., :3, :3], T[..., :3, 3]
    f_z = w[..., 5]
    loaded = f_z > floor
    pressure = np.stack([-w[..., 1], w[..., 0]], axis=-1)  # f_z (x_c, y_c)
    cop = np.full((n, K, 2), np.nan)
    cop[loaded] = pressure[loaded] / f_z[loaded][:, None]
    shaped = lambda y: np.asarray(y.reshape(batch + y.shape[1:]))[()]  # noqa: E731
    return ContactInverseDynamics(
        tau=shaped(tau),
        wrench_sole=shaped(w),
        wrench_world=shaped(w_world),
        resultant=shaped(w_world.sum(axis=-2)),
        multiplier=shaped(x[:, 6 * K :]),
        normal_force=shaped(f_z),
        vertical_force=shaped(np.einsum("nkij,nkj,i->nk", R, w[..., 3:], up)),
        cop_sole=shaped(cop),
        cop_world=shaped(np.einsum("nkij,nkj->nki", R[..., :2], cop) + p),
        equation_residual=shaped(certificate[0]),
        violation=shaped(certificate[1]),
        kkt_residual=shaped(certificate[2]),
    )


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


def _contact_frames(model, contacts):
    """``contacts`` as a list of K >= 1 pairs (body index, (4, 4) pose in the body)."""
    if isinstance(contacts, (str, bytes)) or not isinstance(contacts, (list, tuple)):
        raise TypeError(
            f"contacts: expected a list of (body, frame) pairs or of body frames, got "
            f"{type(contacts).__name__}"
        )
    if not contacts:
        raise ValueError("contacts: expected at least one foot, got none")
    frames = []
    for k, item in enumerate(contacts):
        if hasattr(item, "body") and hasattr(item, "pose"):
            body, pose = item.body, item.pose
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            body, pose = item
        else:
            raise TypeError(
                f"contacts[{k}]: expected a (body, frame) pair or an object with body and "
                f"pose, got {item!r}"
            )
        body = _validate.count(
            body, f"contacts[{k}] body", minimum=0, maximum=model.num_bodies - 1, whole_floats=False
        )
        pose = _validate.pose(pose, f"contacts[{k}] pose")
        if pose.shape != (4, 4):
            raise ValueError(f"contacts[{k}] pose: expected one (4, 4) pose, got {pose.shape}")
        frames.append((body, pose))
    return frames


def _closure_list(closures):
    if isinstance(closures, (str, bytes)) or not isinstance(closures, (list, tuple)):
        raise TypeError(f"closures: expected a list of constraints, got {type(closures).__name__}")
    for i, closure in enumerate(closures):
        if not callable(getattr(closure, "jacobian", None)):
            raise TypeError(
                f"closures[{i}]: expected a constraint with jacobian(q), got {closure!r}"
            )
    return closures


def _closure_jacobian(closure, q, nv):
    """A closure's (n, c, nv) Jacobian at the (n, nq) configurations."""
    J = _validate.real_array(closure.jacobian(q), "closures: jacobian(q)")
    if J.ndim < 2 or J.shape[-1] != nv:
        raise ValueError(
            f"closures: expected jacobian(q) of shape (..., c, {nv}), got shape {J.shape}"
        )
    return np.broadcast_to(J, q.shape[:1] + J.shape[-2:])


def _scalar(value, name, check):
    array = check(value, name)
    if array.ndim:
        raise ValueError(f"{name}: expected a scalar, got shape {array.shape}")
    return float(array)


def _load_scale(model, load_scale):
    """:math:`W` [N]: ``load_scale``, or the model's weight."""
    if load_scale is not None:
        return _scalar(load_scale, "load_scale", _validate.positive)
    weight = float(model.masses.sum() * np.linalg.norm(model.gravity))
    if not weight > 0:
        raise ValueError(
            f"load_scale: the model has no weight (mass {model.masses.sum():g} kg, gravity "
            f"{model.gravity.tolist()} m/s^2); expected a load scale in N, got None"
        )
    return weight


def _sole_lengths(vertices, length_scale):
    r""":math:`\ell_k` [m]: ``length_scale``, or each polygon's RMS vertex distance from
    the vertices' mean."""
    if length_scale is not None:
        return _validate.positive(length_scale, "length_scale")
    centred = vertices - vertices.mean(axis=-2, keepdims=True)
    return np.sqrt(np.mean(np.sum(centred**2, axis=-1), axis=-1))


# ---------------------------------------------------------------------------
# The programs
# ---------------------------------------------------------------------------


class _Program:
    """The scaled programs of a batch of n samples, built at once, solved one at a time.

    Unknowns x = (w_1..w_K, lambda) [N m, N, closure units]; DAQP works on y = x / d with
    d = gamma diag(H)^(-1/2), on rows of unit length: inequalities first, then the
    equalities.
    """

    def __init__(self, Jt, r, s, weight, centre, ell, G_foot, h_foot, rtol):
        n, _, nx = Jt.shape
        K, R = G_foot.shape[1:3]
        self.Jt, self.r, self.K, self.R = Jt, r, K, R
        B = Jt[:, 6:] / s[..., None]  # torque per unit of x, over the strengths
        H = np.swapaxes(B, -1, -2) @ B
        g = -(np.swapaxes(B, -1, -2) @ (r[:, 6:] / s)[..., None])[..., 0]
        E = np.zeros((n, K, 6, 6))  # wrench about the sole centre, moments over ell
        E[..., :3, :3] = np.eye(3) / ell[..., None, None]
        c3 = np.concatenate([centre, np.zeros((n, K, 1))], axis=-1)
        E[..., :3, 3:] = -spatial.skew(c3) / ell[..., None, None]
        E[..., 3:, 3:] = np.eye(3)
        G = np.zeros((n, K * R, nx))
        for k in range(K):
            H[:, 6 * k : 6 * k + 6, 6 * k : 6 * k + 6] += (
                weight * np.swapaxes(E[:, k], -1, -2) @ E[:, k]
            )
            G[:, k * R : (k + 1) * R, 6 * k : 6 * k + 6] = G_foot[:, k]
        self.G, self.h = G, h_foot.reshape(n, K * R)
        # A foot load of unit size: force 1, moment ell_k (0 for the closures' columns).
        self.foot_unit = np.zeros((n, nx))
        self.foot_unit[:, : 6 * K] = np.concatenate(
            [np.repeat(ell[..., None], 3, -1), np.ones((n, K, 3))], axis=-1
        ).reshape(n, 6 * K)
        # A support row is a moment [N m]: over ell_k it is a load like the others [N].
        moment = np.any(G_foot[..., :3] != 0, axis=-1)
        self.row_unit = np.where(moment, ell[..., None], 1.0).reshape(n, K * R)
        # Unit curvature per unknown (d), rows of unit length, and unknowns of about 1
        # (gamma: the size of the unconstrained minimizer and of the equalities' right side).
        diag = np.einsum("nii->ni", H)
        d = 1 / np.sqrt(np.where(diag > 0, diag, np.inf))
        self.H = d[:, :, None] * H * d[:, None, :]
        C = np.concatenate([G, Jt[:, :6]], axis=1) * d[:, None, :]
        length = np.linalg.norm(C, axis=-1)
        length = np.where(length > 0, length, 1.0)
        self.C = C / length[..., None]
        b = np.concatenate([self.h, r[:, :6]], axis=1) / length
        gamma = np.maximum(np.abs(d * g).max(axis=-1), np.abs(b[:, K * R :]).max(axis=-1))
        gamma = np.where(gamma > 0, gamma, 1.0)
        self.d, self.f = d * gamma[:, None], d * g / gamma[:, None]
        self.b_max = b / gamma[:, None]
        self.b_min = np.concatenate([np.full((n, K * R), -np.inf), self.b_max[:, K * R :]], 1)
        self.sense = np.r_[np.full(K * R, _qp.INEQUALITY), np.full(6, _qp.EQUALITY)]
        self.y, self.multipliers = np.zeros((n, nx)), np.zeros((n, K * R + 6))
        self.iterations = np.zeros(n, dtype=int)
        eigenvalues = np.linalg.eigvalsh(self.H)
        self.convex = eigenvalues[:, 0] > rtol * eigenvalues[:, -1]

    def solve(self, i):
        """DAQP on sample i: the exit flag; the answer is kept in ``y`` and ``multipliers``."""
        y, multipliers, flag, self.iterations[i] = _qp.daqp_solve(
            self.H[i], self.f[i], self.C[i], self.b_max[i], self.b_min[i], self.sense
        )
        if flag == _qp.DAQP_OPTIMAL:
            self.y[i], self.multipliers[i] = y, multipliers
        return flag

    def certificate(self, W):
        """Unknowns x and the three relative residuals of every sample (see the result)."""
        x = self.d * self.y
        Jt, r = self.Jt, self.r
        tau = r[:, 6:] - np.einsum("nai,ni->na", Jt[:, 6:], x)
        load = np.concatenate([np.zeros_like(r[:, :6]), tau], axis=1)
        e = r - load - np.einsum("nai,ni->na", Jt, x)
        terms = np.abs(r) + np.abs(load) + np.einsum("nai,ni->na", np.abs(Jt), np.abs(x))
        terms += W * np.einsum("nai,ni->na", np.abs(Jt), self.foot_unit)
        equation = _ratio(np.abs(e), terms).max(axis=-1)
        miss = (np.einsum("nri,ni->nr", self.G, x) - self.h) / self.row_unit  # N
        violation = np.maximum(miss.max(axis=-1), 0.0) / W
        # Stationarity, multiplier signs and complementarity on the scaled program, whose
        # unknowns and rows are dimensionless (so that their norms mix no units).
        KR = self.K * self.R
        y, m = self.y, self.multipliers
        parts = (
            np.einsum("nij,nj->ni", self.H, y),
            self.f,
            np.einsum("nri,nr->ni", self.C, m),
        )
        size = np.max([np.abs(part).max(axis=-1) for part in parts], axis=0)
        largest = np.abs(m).max(axis=-1)
        slack = self.b_max[:, :KR] - np.einsum("nri,ni->nr", self.C[:, :KR], y)
        reach = np.maximum(np.abs(y).max(axis=-1), np.abs(self.b_max).max(axis=-1))
        kkt = np.maximum.reduce(
            [
                _ratio(np.abs(sum(parts)).max(axis=-1), size),
                _ratio(np.maximum(-m[:, :KR], 0.0).max(axis=-1), largest),
                _ratio(np.abs(m[:, :KR] * slack).max(axis=-1), largest * reach),
            ]
        )
        return x, equation, violation, kkt

    def least_violation(self, i, rtol, rows):
        """Phase 1 on sample i: min t s.t. the equalities and every condition row (in N)
        that ``rows`` (a mask) selects <= t.  Returns t [N] and the dual weight of each
        condition row (summing to 1; 0 for the rows left out).

        Unknowns that no condition bounds (the closure multipliers) are eliminated first,
        with the part of the equalities they can meet: left in, they let the program trade
        rounding for violation along an unbounded direction.
        """
        KR = self.K * self.R
        G, A, b = (
            (self.G[i] * self.d[i] / self.row_unit[i][:, None])[rows],
            self.C[i, KR:],
            self.b_max[i, KR:],
        )
        free = ~np.any(G != 0, axis=0)
        U, s, _ = np.linalg.svd(A[:, free])
        keep = U[:, np.sum(s > rtol * s.max(initial=0.0)) :]  # the rows the free ones miss
        A_ub = np.hstack([G[:, ~free], -np.ones((len(G), 1))])
        A_eq = np.hstack([keep.T @ A[:, ~free], np.zeros((keep.shape[1], 1))])
        objective = np.r_[np.zeros(A_ub.shape[1] - 1), 1.0]
        lp = _highs(
            objective,
            A_eq,
            keep.T @ b,
            A_ub,
            (self.h[i] / self.row_unit[i])[rows],
            "contact_inverse_dynamics",
        )
        if lp.status != _LP_OPTIMAL:
            raise ConvergenceError(
                f"contact_inverse_dynamics: the phase-1 program stopped ({lp.message})",
                residual=np.inf,
                tolerance=0.0,
                iterations=int(getattr(lp, "nit", 0)),
                suggestion="loads and lengths in consistent units",
            )
        weights = np.zeros(KR)
        weights[rows] = -lp.ineqlin.marginals
        return float(lp.x[-1]), weights


def _ratio(values, scale):
    """values / scale, 0 where the scale is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(scale > 0, values / scale, 0.0)


#: Dual weights of the phase-1 program below this are rounding, not conflict: HiGHS's
#: dual feasibility tolerance is 1e-7 (the weights add up to 1).
_WEIGHT_FLOOR = 1e-6

#: Infeasible samples named in the message (the error's ``samples`` holds them all).
_LISTED = 8


def _diagnosis(program, infeasible, where, labels, facets, V, W, rtol):
    """The error for the first infeasible sample, from its phase-1 program; ``labels``
    holds each row's family code and index in its family, (n, K, R) each."""
    i = infeasible[0]
    family_of = labels[0][i].reshape(-1)  # codes of FAMILIES, -1 for padding
    t, weights = program.least_violation(i, rtol, family_of >= 0)
    if not t > rtol * W:
        return ConvergenceError(
            f"contact_inverse_dynamics: DAQP found no admissible loads at sample {where(i)}, "
            f"but the least largest violation of the feet's conditions is {t:.3g} N",
            residual=t,
            tolerance=rtol * W,
            iterations=int(program.iterations[i]),
            suggestion="a min_normal_force away from a load the motion needs exactly, or "
            "loads and lengths in consistent units",
        )
    # Name the conditions without the torsion faces if those alone conflict (the pyramid
    # on the force, the centre of pressure, compression); the torsion faces only when
    # they are what makes the rows incompatible.  (At a friction or support limit the
    # torsion faces through the same vertex forces are active too, and the phase-1
    # program's duals may put the weight on either.)
    t_base, base = program.least_violation(i, rtol, (family_of >= 0) & (family_of != 3))
    torsion_decides = not t_base > rtol * W
    if not torsion_decides:
        weights = base
    rows = []
    for j in np.argsort(-weights):
        if not weights[j] > _WEIGHT_FLOOR:
            break
        foot, row = divmod(j, program.R)
        family = FAMILIES[labels[0][i, foot, row]]
        upper = program.G[i, j, 6 * foot + 2] > 0  # a torsion face bounding n_z above
        rows.append((foot, family, labels[1][i, foot, row], weights[j], upper))
    # the condition named: the heaviest, a torsion face where those decide
    foot, family, edge, _, _ = next(
        (r for r in rows if r[1] == "torsion" or not torsion_decides), rows[0]
    )
    listing = "; ".join(
        f"foot {k} {_describe(kind, e, upper, facets, V)} (weight {weight:.3g})"
        for k, kind, e, weight, upper in rows
    )
    others = ", ".join(str(where(j)) for j in infeasible[:_LISTED])
    others += ", ..." if len(infeasible) > _LISTED else ""
    return InfeasibleContactError(
        f"contact_inverse_dynamics: no admissible contact loads at sample {where(i)} "
        f"({len(infeasible)} infeasible: {others}); the least largest violation of the "
        f"feet's conditions is {t:.4g} N (moment rows over the sole length; "
        f"{max(t_base, 0.0):.4g} N without the torsion faces), with the conditions in "
        f"conflict weighted by the phase-1 program's duals"
        f"{' (the torsion faces decide)' if torsion_decides else ''}: {listing}",
        sample=where(i),
        samples=tuple(where(j) for j in infeasible),
        foot=int(foot),
        family=family,
        edge=int(edge),
        violation=t,
    )


def _describe(family, edge, upper, facets, V):
    if family == "torsion":
        return (
            f"torsion face {edge} (the contact-wrench cone's {'upper' if upper else 'lower'} "
            f"bound on the moment n_z about the sole normal)"
        )
    if family == "normal":
        return "normal load (f_z >= min_normal_force)"
    if family == "friction":
        return (
            f"friction facet {edge} (the pyramid face towards "
            f"{360.0 * edge / facets:.4g} deg in the sole plane)"
        )
    return f"support edge {edge} (from vertex {edge} to vertex {(edge + 1) % V})"
