"""Cross-checks of trees with ball and free-flyer joints against Pinocchio 4.1.

Random branched trees (``trees.random_joint_spec``) mix a free-flyer root (or a fixed
base), ball joints and revolute, prismatic and helical joints about arbitrary axes, with
rotated offset placements and massless intermediate bodies (``pin.Inertia.Zero()`` in
Pinocchio).  Every convention conversion (Pinocchio's linear-first twists, its
scalar-last quaternions, its depth-first joint order) is in ``peers.pinocchio_joint_model``:
two index permutations, ``q_pin[qperm] = q`` and ``v_pin[vperm] = v``.

Agreement is required to a relative error of 1e-9 (largest difference over the largest
entry of Pinocchio's value).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from peers import (
    P_SWAP,
    add_point_frames,
    axis_point,
    pin,
    pin_wrenches,
    pinocchio_joint_model,
    to_peer,
)
from strategies import examples
from trees import joint_tree, joint_tree_specs, random_joint_spec

from geomotion import tree

RTOL = 1e-9


def assert_close(ours, theirs, rtol=RTOL):
    ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    scale = max(np.abs(theirs).max(), 1e-12)
    error = np.abs(ours - theirs).max() / scale
    assert error <= rtol, f"relative error {error:.2e}"


def pin_mass_matrix(pmodel, data, qp, vperm):
    Mp = np.triu(pin.crba(pmodel, data, qp))
    Mp = Mp + np.triu(Mp, 1).T  # pin.crba fills the upper triangle only
    return Mp[np.ix_(vperm, vperm)]


#: Floating (free-flyer root) and fixed-base trees; ``massless`` intermediate bodies.
CASES = {
    "floating-8": dict(seed=2101, n=8, kinds="rphs", root="f", roots=1, massless=2),
    "floating-12": dict(seed=2102, n=12, kinds="rphs", root="f", roots=1, massless=3),
    "floating-balls": dict(seed=2103, n=9, kinds="sr", root="f", roots=1, massless=2),
    "fixed-ball-root": dict(seed=2104, n=9, kinds="rphs", root="s", roots=1, massless=2),
    "fixed-two-roots": dict(seed=2105, n=10, kinds="rphs", root=None, roots=2, massless=2),
    "two-free-flyers": dict(seed=2106, n=7, kinds="rsf", root="f", roots=1, massless=0),
}


def build(case):
    spec = random_joint_spec(
        np.random.default_rng(case["seed"]),
        case["n"],
        case["kinds"],
        root=case["root"],
        roots=case["roots"],
        massless=case["massless"],
    )
    model = joint_tree(spec)
    return spec, model, pinocchio_joint_model(spec, model)


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def peers(request):
    return build(CASES[request.param])


def test_cases_cover_the_joint_kinds_and_massless_bodies():
    """The cases are what the module says: both multi-DoF joints, screw kinds, zero masses."""
    specs = [build(case)[0] for case in CASES.values()]
    kinds = "".join(spec.kinds for spec in specs)
    assert set(kinds) == set("rphsf")
    assert sum(np.count_nonzero(spec.masses == 0) for spec in specs) >= 8
    assert any("f" in spec.kinds[1:] for spec in specs)  # a free flyer below another body
    assert any(spec.kinds[0] != "f" for spec in specs)  # fixed-base trees
    for spec in specs:
        massless = np.flatnonzero(spec.masses == 0)
        assert all(i in spec.parents for i in massless)  # intermediate bodies only


def states(model, batch, seed):
    rng = np.random.default_rng(seed)
    q = tree.random_configuration(model, shape=(batch,), rng=rng)
    v, a = rng.normal(size=(2, batch, model.nv))
    return q, v, a


@pytest.mark.parametrize("batch", [1, 40], ids=["one-configuration", "batch"])
def test_dynamics_against_pinocchio(peers, batch):
    spec, model, (pmodel, qperm, vperm) = peers
    data = pmodel.createData()
    q, v, a = states(model, batch, seed=batch)
    M, tau = tree.crba(model, q), tree.rnea(model, q, v, a)
    qdd, bias = tree.aba(model, q, v, a), tree.bias_forces(model, q, v)
    U = tree.potential_energy(model, q)
    for b in range(0, batch, max(1, batch // 5)):
        qp, vp, ap = to_peer(q[b], qperm), to_peer(v[b], vperm), to_peer(a[b], vperm)
        assert_close(M[b], pin_mass_matrix(pmodel, data, qp, vperm))
        assert_close(tau[b], pin.rnea(pmodel, data, qp, vp, ap)[vperm])
        assert_close(bias[b], pin.nonLinearEffects(pmodel, data, qp, vp)[vperm])
        assert_close(qdd[b], pin.aba(pmodel, data, qp, vp, ap)[vperm])
        assert_close(U[b], pin.computePotentialEnergy(pmodel, data, qp))


def test_unbatched_call_matches_pinocchio(peers):
    """A single (nq,) configuration, no leading axis, through every dynamics entry point."""
    spec, model, (pmodel, qperm, vperm) = peers
    data = pmodel.createData()
    q, v, a = (x[0] for x in states(model, 1, seed=11))
    qp, vp, ap = to_peer(q, qperm), to_peer(v, vperm), to_peer(a, vperm)
    assert_close(tree.crba(model, q), pin_mass_matrix(pmodel, data, qp, vperm))
    assert_close(tree.rnea(model, q, v, a), pin.rnea(pmodel, data, qp, vp, ap)[vperm])
    assert_close(tree.aba(model, q, v, a), pin.aba(pmodel, data, qp, vp, ap)[vperm])
    zero = np.zeros(3)
    assert_close(
        tree.rnea(model, q, v, a, gravity=zero),
        pin.rnea(pmodel, data, qp, vp, ap)[vperm]
        - pin.computeGeneralizedGravity(pmodel, data, qp)[vperm],
    )


def test_external_wrenches_against_pinocchio(peers):
    spec, model, (pmodel, qperm, vperm) = peers
    data = pmodel.createData()
    q, v, a = (x[0] for x in states(model, 1, seed=12))
    wrenches = np.random.default_rng(13).normal(size=(spec.n, 6))
    fext = pin_wrenches(spec, pmodel, wrenches)
    qp, vp, ap = to_peer(q, qperm), to_peer(v, vperm), to_peer(a, vperm)
    assert_close(
        tree.rnea(model, q, v, a, f_ext=wrenches), pin.rnea(pmodel, data, qp, vp, ap, fext)[vperm]
    )
    assert_close(
        tree.aba(model, q, v, a, f_ext=wrenches), pin.aba(pmodel, data, qp, vp, ap, fext)[vperm]
    )


@pytest.mark.parametrize("batch", [1, 30], ids=["one-configuration", "batch"])
def test_coriolis_matrix_against_pinocchio(peers, batch):
    spec, model, (pmodel, qperm, vperm) = peers
    data = pmodel.createData()
    q, v, _ = states(model, batch, seed=20 + batch)
    C = tree.coriolis_matrix(model, q, v)
    for b in range(0, batch, max(1, batch // 4)):
        Cp = pin.computeCoriolisMatrix(pmodel, data, to_peer(q[b], qperm), to_peer(v[b], vperm))
        assert_close(C[b], Cp[np.ix_(vperm, vperm)])


@pytest.mark.parametrize("batch", [1, 25], ids=["one-configuration", "batch"])
def test_point_kinematics_against_pinocchio_frames(peers, batch):
    """A point of every body as an operational frame: position, Jacobian, J-dot v (LOCAL_WORLD_ALIGNED)."""
    spec, model, (pmodel, qperm, vperm) = peers
    pmodel = pin.Model(pmodel)  # a copy: the frames stay out of the shared model
    points = np.random.default_rng(30).normal(scale=0.3, size=(spec.n, 3))
    frames = add_point_frames(spec, pmodel, points)
    data = pmodel.createData()
    q, v, _ = states(model, batch, seed=31 + batch)
    world = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    for i in range(spec.n):
        r = tree.point_position(model, q, i, points[i])
        J = tree.point_jacobian(model, q, i, points[i])
        rdot = tree.point_velocity(model, q, v, i, points[i])
        bias = tree.point_acceleration_bias(model, q, v, i, points[i])
        for b in range(0, batch, max(1, batch // 3)):
            qp, vp = to_peer(q[b], qperm), to_peer(v[b], vperm)
            pin.forwardKinematics(pmodel, data, qp, vp, 0 * vp)
            pin.computeJointJacobians(pmodel, data, qp)
            pin.updateFramePlacements(pmodel, data)
            assert_close(r[b], data.oMf[frames[i]].translation)
            Jp = pin.getFrameJacobian(pmodel, data, frames[i], world)[:3]
            assert_close(J[b], Jp[:, vperm])
            assert_close(rdot[b], pin.getFrameVelocity(pmodel, data, frames[i], world).linear)
            ap = pin.getFrameClassicalAcceleration(pmodel, data, frames[i], world).linear
            assert_close(bias[b], ap)


def test_integrate_and_difference_against_pinocchio(peers):
    """tree.integrate / tree.difference against pin.integrate / pin.difference, batched."""
    spec, model, (pmodel, qperm, vperm) = peers
    rng = np.random.default_rng(40)
    q0 = tree.random_configuration(model, shape=(6,), rng=rng)
    q1 = tree.random_configuration(model, shape=(6,), rng=rng)
    v = rng.normal(scale=2.0, size=(6, model.nv))
    dt = 0.37
    stepped, apart = tree.integrate(model, q0, v, dt), tree.difference(model, q0, q1)
    for b in range(6):
        qp0, qp1 = to_peer(q0[b], qperm), to_peer(q1[b], qperm)
        assert_close(stepped[b], pin.integrate(pmodel, qp0, dt * to_peer(v[b], vperm))[qperm])
        assert_close(apart[b], pin.difference(pmodel, qp0, qp1)[vperm])
    assert_close(tree.neutral(model), pin.neutral(pmodel)[qperm])


@settings(max_examples=examples(12), suppress_health_check=[HealthCheck.too_slow])
@given(spec=joint_tree_specs(max_bodies=7))
def test_generated_trees_against_pinocchio(spec):
    """Hypothesis-drawn trees (floating, ball or drawn root; 0-2 massless bodies)."""
    model = joint_tree(spec)
    pmodel, qperm, vperm = pinocchio_joint_model(spec, model)
    data = pmodel.createData()
    q, v, a = (x[0] for x in states(model, 1, seed=50))
    qp, vp, ap = to_peer(q, qperm), to_peer(v, vperm), to_peer(a, vperm)
    assert_close(tree.crba(model, q), pin_mass_matrix(pmodel, data, qp, vperm))
    assert_close(tree.rnea(model, q, v, a), pin.rnea(pmodel, data, qp, vp, ap)[vperm])
    assert_close(tree.aba(model, q, v, a), pin.aba(pmodel, data, qp, vp, ap)[vperm])
    Cp = pin.computeCoriolisMatrix(pmodel, data, qp, vp)
    assert_close(tree.coriolis_matrix(model, q, v), Cp[np.ix_(vperm, vperm)])


# ---------------------------------------------------------------------------
# Massless bodies: accepted with children, as Pinocchio's Inertia.Zero(), and the 1e-9 kg
# workaround gives the same mass-matrix eigenvalues
# ---------------------------------------------------------------------------


def test_massless_bodies_match_inertia_zero_and_the_tiny_mass_workaround():
    spec, model, (pmodel, qperm, vperm) = build(CASES["floating-8"])
    massless = np.flatnonzero(spec.masses == 0)
    assert massless.size == 2
    tiny, _, _ = pinocchio_joint_model(spec, model, zero_mass=1e-9)
    data, tiny_data = pmodel.createData(), tiny.createData()
    for q in tree.random_configuration(model, shape=(4,), rng=3):
        qp = to_peer(q, qperm)
        M = tree.crba(model, q)
        assert_close(M, pin_mass_matrix(pmodel, data, qp, vperm))
        ours = np.linalg.eigvalsh(M)
        workaround = np.linalg.eigvalsh(pin_mass_matrix(tiny, tiny_data, qp, vperm))
        assert ours[0] > 0
        # 1e-9 kg (and 1e-9 kg m^2) moves each eigenvalue by at most ~1e-9 of the largest
        assert_close(ours, workaround, rtol=1e-8)


def quaternion_sign_aligned(q, reference, model):
    """``q`` with each quaternion's sign flipped to the hemisphere of ``reference``'s."""
    q = np.array(q)
    for joint, start in zip(model.joints, model.q_start):
        if joint.kind in ("spherical", "free_flyer"):
            s = slice(start + joint.nq - 4, start + joint.nq)
            if q[s] @ reference[s] < 0:
                q[s] = -q[s]
    return q


@pytest.mark.parametrize("angle", [1e-300, 1e-9, np.pi - 1e-9, np.pi, np.pi + 1e-7, 4.7, 7.0])
def test_integrate_and_difference_at_small_and_large_rotations(angle):
    """Rotations near zero and past a half turn: same rotations as Pinocchio's integrate (whose
    quaternion may have the other sign past pi: ours stays continuous, q times exp(v/2)), and
    the same shortest displacement from difference."""
    spec, model, (pmodel, qperm, vperm) = build(CASES["floating-8"])
    rng = np.random.default_rng(41)
    q0 = tree.random_configuration(model, rng=rng)
    v = rng.normal(size=model.nv)
    for joint, start in zip(model.joints, model.v_start):
        if joint.kind in ("spherical", "free_flyer"):
            axis = rng.normal(size=3)
            v[start : start + 3] = angle * axis / np.linalg.norm(axis)
    q1 = tree.integrate(model, q0, v, 1.0)
    qp0 = to_peer(q0, qperm)
    qp1 = pin.integrate(pmodel, qp0, to_peer(v, vperm))
    assert_close(q1, quaternion_sign_aligned(qp1[qperm], q1, model), rtol=1e-12)
    assert_close(tree.difference(model, q0, q1), pin.difference(pmodel, qp0, qp1)[vperm])
    back = tree.integrate(model, q0, tree.difference(model, q0, q1), 1.0)
    assert np.abs(tree.difference(model, q1, back)).max() < 1e-12


def test_world_frame_external_wrenches_against_pinocchio(peers):
    """Our wrenches about the base origin in base axes -> each joint frame by oMi.actInv."""
    spec, model, (pmodel, qperm, vperm) = peers
    data = pmodel.createData()
    q, v, a = (x[0] for x in states(model, 1, seed=14))
    wrenches = np.random.default_rng(15).normal(size=(spec.n, 6))
    qp, vp, ap = to_peer(q, qperm), to_peer(v, vperm), to_peer(a, vperm)
    pin.forwardKinematics(pmodel, data, qp)
    fext = [pin.Force.Zero() for _ in range(pmodel.njoints)]
    for i in range(spec.n):
        jid = pmodel.getJointId(f"joint{i}")
        fext[jid] = data.oMi[jid].actInv(pin.Force(wrenches[i, 3:], wrenches[i, :3]))
    expected_tau = pin.rnea(pmodel, data, qp, vp, ap, fext)[vperm]
    expected_a = pin.aba(pmodel, data, qp, vp, ap, fext)[vperm]
    assert_close(tree.rnea(model, q, v, a, f_ext=wrenches, f_ext_frame="world"), expected_tau)
    assert_close(tree.aba(model, q, v, a, f_ext=wrenches, f_ext_frame="world"), expected_a)


def test_frames_twists_momentum_and_energy_against_pinocchio(peers):
    """Body poses and 6-D body Jacobians (LOCAL frames at the body origins), body twists,
    kinetic energy, and spatial momentum about the base origin (from Pinocchio's centroidal
    momentum and centre of mass)."""
    spec, model, (pmodel, qperm, vperm) = peers
    pmodel = pin.Model(pmodel)  # a copy: the frames stay out of the shared model
    frames = [
        pmodel.addFrame(
            pin.Frame(
                f"origin{i}",
                pmodel.getJointId(f"joint{i}"),
                0,
                pin.SE3(np.eye(3), -axis_point(spec, i)),
                pin.FrameType.OP_FRAME,
            )
        )
        for i in range(spec.n)
    ]
    data = pmodel.createData()
    q, v, _ = states(model, 3, seed=60)
    T, J = tree.forward_kinematics(model, q), tree.body_jacobians(model, q)
    V, K = tree.body_twists(model, q, v), tree.kinetic_energy(model, q, v)
    momentum = tree.spatial_momentum(model, q, v)
    local = pin.ReferenceFrame.LOCAL
    for b in range(3):
        qp, vp = to_peer(q[b], qperm), to_peer(v[b], vperm)
        pin.forwardKinematics(pmodel, data, qp, vp)
        pin.computeJointJacobians(pmodel, data, qp)
        pin.updateFramePlacements(pmodel, data)
        for i in range(spec.n):
            assert_close(T[b, i], data.oMf[frames[i]].homogeneous)
            Jp = pin.getFrameJacobian(pmodel, data, frames[i], local)
            assert_close(J[b, i], (P_SWAP @ Jp)[:, vperm])
            assert_close(
                V[b, i], P_SWAP @ pin.getFrameVelocity(pmodel, data, frames[i], local).vector
            )
        assert_close(K[b], pin.computeKineticEnergy(pmodel, data, qp, vp))
        h = pin.computeCentroidalMomentum(pmodel, data, qp, vp)
        c = pin.centerOfMass(pmodel, data, qp)
        about_origin = np.concatenate([h.angular + np.cross(c, h.linear), h.linear])
        assert_close(momentum[b], about_origin)
