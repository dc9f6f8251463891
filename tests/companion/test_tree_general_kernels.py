"""The compiled kernels (tree/_lanes.py, tree/_lanes_coriolis.py, tree/_lanes_frames.py) against the oracle.

Every tree runs RNEA, ABA, the CRBA, the Coriolis matrix and the frame kinematics in
compiled kernels; the same algorithms are written out once more, readably, in
:mod:`geomotion.tree.reference` (independent code: explicit 6x6 operators in numpy,
batched with leading axes, sharing nothing with the kernels).  Both are checked on random branched
trees mixing every joint type with massless intermediate bodies, single and batched, and
the ABA of each is checked to invert the other's RNEA.  The kernels of one configuration
(tree/_single.py) must give each configuration's row of a batch, bit for bit, and leave
what they do not admit to the general path.  The cross-checks against Pinocchio are in
test_tree_joints_cross_engine.py.
"""

import numpy as np
import pytest

from geomotion import inertia, spatial, tree
from geomotion.tree import _lanes, _run, _single, reference
from geomotion.tree._joints import QUATERNION_ATOL

SCREWS = [tree.REVOLUTE_X, tree.REVOLUTE_Y, tree.REVOLUTE_Z, tree.PRISMATIC_Z]


def random_tree(seed, n=8):
    rng = np.random.default_rng(seed)
    parents, joints, placements, inertias = [], [], [], []
    for i in range(n):
        parents.append(-1 if i == 0 else int(rng.integers(0, i)))
        if i == 0:
            joints.append(tree.FREE_FLYER if seed % 2 else tree.SPHERICAL)
        elif rng.random() < 0.3:
            joints.append(tree.SPHERICAL)
        elif rng.random() < 0.2:  # a helical joint about an axis that misses the origin
            axis = rng.normal(size=3)
            axis /= np.linalg.norm(axis)
            joints.append(np.concatenate([axis, np.cross(rng.normal(size=3), axis) + 0.1 * axis]))
        else:
            joints.append(SCREWS[int(rng.integers(0, len(SCREWS)))])
        R = spatial.rot_z(rng.uniform(-3, 3)) @ spatial.rot_x(rng.uniform(-3, 3))
        placements.append(spatial.pose(R, rng.normal(size=3) * 0.3))
        inertias.append(
            inertia.spatial_inertia(
                rng.uniform(0.5, 2.0), rng.normal(size=3) * 0.1, np.diag(rng.uniform(0.03, 0.05, 3))
            )
        )
    # Massless intermediate frames: bodies with children lose their inertia.
    for i in range(1, n):
        if i in parents[i + 1 :] and i % 3 == 1:
            inertias[i] = np.zeros((6, 6))
    return tree.Tree(parents, joints, placements, inertias, gravity=(0.3, -1.0, -9.81))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("batch", [(), (5,), (2, 3)])
def test_compiled_kernels_match_the_oracle(seed, batch):
    model = random_tree(seed)
    rng = np.random.default_rng(100 + seed)
    q = tree.random_configuration(model, shape=batch, rng=rng)
    v, a = rng.normal(size=(2, *batch, model.nv))
    f_ext = rng.normal(size=(*batch, model.num_bodies, 6))
    g = model.gravity
    for frame in ("body", "world"):
        tau = reference.rnea(model, q, v, a, gravity=g, f_ext=f_ext, f_ext_frame=frame)
        compiled = tree.rnea(model, q, v, a, f_ext=f_ext, f_ext_frame=frame)
        assert compiled.shape == batch + (model.nv,)
        np.testing.assert_allclose(compiled, tau, rtol=0, atol=1e-12 * np.abs(tau).max())
        # each ABA inverts the other's RNEA
        np.testing.assert_allclose(
            tree.aba(model, q, v, tau, f_ext=f_ext, f_ext_frame=frame), a, rtol=0, atol=1e-9
        )
        np.testing.assert_allclose(
            reference.aba(model, q, v, compiled, gravity=g, f_ext=f_ext, f_ext_frame=frame),
            a,
            rtol=0,
            atol=1e-9,
        )
    M = reference.crba(model, q)
    np.testing.assert_allclose(tree.crba(model, q), M, rtol=0, atol=1e-13 * np.abs(M).max())


@pytest.mark.parametrize("seed", range(2))
def test_a_batch_is_the_loop_of_its_configurations(seed):
    # One configuration takes the kernels of tree/_single.py (every lane function inlined
    # for one lane); each result is its row of the batch, bit for bit.
    model = random_tree(seed)
    rng = np.random.default_rng(7)
    q = tree.random_configuration(model, shape=(4,), rng=rng)
    v, x = rng.normal(size=(2, 4, model.nv))
    rnea, aba, crba = tree.rnea(model, q, v, x), tree.aba(model, q, v, x), tree.crba(model, q)
    for b in range(4):
        one = (q[b], v[b], x[b])
        for lean, public, rows in (
            (_run.rnea_one(model, *one), tree.rnea(model, *one), rnea),
            (_run.aba_one(model, *one), tree.aba(model, *one), aba),
            (_run.crba_one(model, q[b]), tree.crba(model, q[b]), crba),
        ):
            assert lean is not None  # the single kernel served it
            np.testing.assert_array_equal(lean, rows[b])
            np.testing.assert_array_equal(public, rows[b])
    np.testing.assert_array_equal(
        tree.bias_forces(model, q[0], v[0]), tree.rnea(model, q, v, 0.0 * x)[0]
    )


def test_the_single_kernels_leave_to_the_general_path_what_they_do_not_admit():
    model = random_tree(1)  # a free-flyer root: its quaternion is q[3:7]
    rng = np.random.default_rng(8)
    q = tree.random_configuration(model, rng=rng)
    v, x = rng.normal(size=(2, model.nv))
    tau, M = tree.rnea(model, q, v, x), tree.crba(model, q)
    readonly = q.copy()
    readonly.flags.writeable = False
    for other in (readonly, q.tolist(), np.repeat(q, 2)[::2]):  # converted: the same numbers
        assert _run.rnea_one(model, other, v, x) is None and _run.crba_one(model, other) is None
        np.testing.assert_array_equal(tree.rnea(model, other, v, x), tau)
        np.testing.assert_array_equal(tree.crba(model, other), M)
    for kernel in (_single.rnea, _single.aba, _single.crba):  # one compiled version each
        assert len(kernel.signatures) == 1
    # a quaternion off unit by more than the single kernels accept, less than the
    # validation refuses: the general path computes it
    off = q.copy()
    off[3:7] *= 1.0 + 0.75 * QUATERNION_ATOL
    assert _run.aba_one(model, off, v, x) is None
    assert np.all(np.isfinite(tree.aba(model, off, v, x)))
    off[3:7] *= 1.0 + 2.0 * QUATERNION_ATOL
    with pytest.raises(ValueError, match="^q: expected a unit quaternion"):
        tree.aba(model, off, v, x)
    for bad in (np.nan, np.inf):
        for index in (0, 3):
            wrong = q.copy()
            wrong[index] = bad
            assert _run.crba_one(model, wrong) is None
            with pytest.raises(ValueError, match="^q: "):
                tree.crba(model, wrong)
        wrong = v.copy()
        wrong[-1] = bad
        with pytest.raises(ValueError, match="^v: "):
            tree.rnea(model, q, wrong, x)


def test_a_singular_joint_at_one_configuration_names_the_joint_and_the_batch_element():
    # A massless ball joint carrying, 0.5 m out, a revolute joint (about x) with a thin rod
    # along its y axis.  Turned a quarter turn, the rod lies on a line through the ball's
    # centre: no inertia about that line, so the ball's pivot is singular there only.
    rod = inertia.spatial_inertia(1.0, np.zeros(3), np.diag([1 / 12, 0.0, 1 / 12]) * 0.16)
    model = tree.Tree(
        [-1, 0],
        [tree.SPHERICAL, tree.REVOLUTE_X],
        [np.eye(4), spatial.pose(np.eye(3), [0.0, 0.0, 0.5])],
        [np.zeros((6, 6)), rod],
        allow_singular_inertias=True,
    )
    fine = np.array([1.0, 0.0, 0.0, 0.0, 0.3])
    lined_up = np.array([1.0, 0.0, 0.0, 0.0, np.pi / 2])
    v, tau = np.zeros(4), np.zeros(4)
    assert np.all(np.isfinite(tree.aba(model, fine, v, tau)))
    with pytest.raises(ValueError, match=r"singular at this configuration: joint 0 \(spherical\)"):
        tree.aba(model, lined_up, v, tau)
    with pytest.raises(ValueError, match=r"singular at configuration 2 of the batch: joint 0"):
        tree.aba(model, np.stack([fine, fine, lined_up]), v, tau)
    # the oracle agrees that this is where M loses rank
    assert np.linalg.eigvalsh(reference.crba(model, lined_up))[0] < 1e-12
    assert np.linalg.eigvalsh(reference.crba(model, fine))[0] > 1e-3
    # the oracle's own rule, pivot_rtol, a keyword of its aba: the same verdicts
    assert np.all(np.isfinite(reference.aba(model, fine, v, tau)))
    with pytest.raises(ValueError, match=r"singular at this configuration: joint 0 \(spherical\)"):
        reference.aba(model, lined_up, v, tau)
    with pytest.raises(ValueError, match=r"configuration: joint 1 .*, at most 1 of its size"):
        reference.aba(model, fine, v, tau, pivot_rtol=1.0)  # every pivot is below its size
    with pytest.raises(ValueError, match="^pivot_rtol"):
        reference.aba(model, fine, v, tau, pivot_rtol=-1.0)


def test_compiled_kernels_see_the_same_arrays_whatever_the_input_layout():
    model = random_tree(1)
    rng = np.random.default_rng(2)
    q = tree.random_configuration(model, shape=(6,), rng=rng)
    v, tau = rng.normal(size=(2, 6, model.nv))
    reference = tree.aba(model, q, v, tau)
    fortran = [np.asfortranarray(x) for x in (q, v, tau)]
    readonly = [x.copy() for x in (q, v, tau)]
    for x in readonly:
        x.flags.writeable = False
    np.testing.assert_array_equal(tree.aba(model, *fortran), reference)
    np.testing.assert_array_equal(tree.aba(model, *readonly), reference)
    np.testing.assert_array_equal(tree.aba(model, q[::2], v[::2], tau[::2]), reference[::2])
    assert len(_lanes.aba.signatures) == 1  # one compiled specialization serves every layout


def _path(model, body):
    path = []
    while body >= 0:
        path.append(body)
        body = model.parents[body]
    return path[::-1]


@pytest.mark.parametrize("seed", range(4))
def test_compiled_frame_kinematics_match_the_oracle(seed):
    # World reference: pose from the oracle's forward kinematics, columns Ad_T0i J_body,
    # twist J v; the bias's linear rows at a point from the oracle's point kinematics,
    # its angular rows (d/dt J_w) v by central differences along q(t) = q + t v.
    model = random_tree(seed)
    rng = np.random.default_rng(50 + seed)
    q = tree.random_configuration(model, shape=(3,), rng=rng)
    v = rng.normal(size=(3, model.nv))
    T_all = reference.forward_kinematics(model, q)
    J_body = reference.body_jacobians(model, q)
    h = 1e-6
    J_ahead = reference.body_jacobians(model, tree.integrate(model, q, v, h))
    J_behind = reference.body_jacobians(model, tree.integrate(model, q, v, -h))
    T_ahead = reference.forward_kinematics(model, tree.integrate(model, q, v, h))
    T_behind = reference.forward_kinematics(model, tree.integrate(model, q, v, -h))
    for body in range(model.num_bodies):
        path = _path(model, body)
        T, J, twist, bias = _run.run_frame_kinematics(model, q, v, path, np.eye(4), "world")
        np.testing.assert_allclose(T, T_all[:, body], atol=1e-13)
        Ad = spatial.motion_transform(T_all[:, body])
        np.testing.assert_allclose(J, Ad @ J_body[:, body], atol=1e-12)
        np.testing.assert_allclose(twist, np.einsum("bij,bj->bi", J, v), atol=1e-12)
        w_rate = (
            np.einsum("bij,bjk,bk->bi", T_ahead[:, body, :3, :3], J_ahead[:, body, :3], v)
            - np.einsum("bij,bjk,bk->bi", T_behind[:, body, :3, :3], J_behind[:, body, :3], v)
        ) / (2 * h)
        np.testing.assert_allclose(
            bias[:, :3], w_rate, rtol=0, atol=1e-6 * (1 + np.abs(w_rate).max())
        )
        r = rng.normal(size=3) * 0.2
        frame = spatial.pose(np.eye(3), r)
        _, Jp, _, point_bias = _run.run_frame_kinematics(
            model, q, v, path, frame, "local_world_aligned"
        )
        point = reference.point_kinematics(model, q, v, body, r)
        J_r, expected = point.jacobian, point.acceleration_bias
        np.testing.assert_allclose(Jp[:, 3:], J_r, atol=1e-12)
        np.testing.assert_allclose(
            point_bias[:, 3:], expected, atol=1e-11 * (1 + np.abs(expected).max())
        )
        T1, J1, none, _ = _run.run_frame_kinematics(model, q[0], None, path, np.eye(4), "world")
        assert none is None
        np.testing.assert_allclose(J1, J[0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("batch", [(), (4,)])
def test_compiled_coriolis_matches_the_oracle(seed, batch):
    # reference.coriolis_matrix sums J_k^T (I_k dJ_k + B_k J_k) body by body; the kernel uses
    # subtree sums per column: two organisations of the same factorization.
    model = random_tree(seed)
    rng = np.random.default_rng(400 + seed)
    q = tree.random_configuration(model, shape=batch, rng=rng)
    v = rng.normal(size=(*batch, model.nv))
    expected = reference.coriolis_matrix(model, q, v)
    got = tree.coriolis_matrix(model, q, v)
    assert got.shape == batch + (model.nv, model.nv)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13 * np.abs(expected).max())
    # C v is the velocity part of the bias forces (no gravity, no external load)
    c = tree.bias_forces(model, q, v, gravity=[0.0, 0.0, 0.0])
    np.testing.assert_allclose(
        np.einsum("...ij,...j->...i", got, v), c, rtol=0, atol=1e-12 * np.abs(c).max()
    )
