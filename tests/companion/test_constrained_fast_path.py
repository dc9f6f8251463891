"""The constrained solve's fast path for certified independent rows.

``constraints.constrained_dynamics`` first tries to certify that the row-scaled Jacobian
is well conditioned (sigma_min / sigma_max >= 1e-3, from a Cholesky factor of its Gram
matrix) and then solves with that factor; otherwise it takes the SVD (rank-revealing)
path.  Both must give the KKT solution, checked here against a dense solve of
[[M, -J^T], [J, 0]] (a different algorithm), and the certificate must accept and refuse
exactly around its threshold.
"""

import numpy as np
import pytest

from geomotion import _linalg, constraints


def random_problem(rng, n=9, c=4, batch=(5,), ratio=None):
    A = rng.normal(size=batch + (n, n))
    M = A @ np.swapaxes(A, -1, -2) + n * np.eye(n)
    U = np.linalg.qr(rng.normal(size=batch + (c, c)))[0]
    V = np.linalg.qr(rng.normal(size=batch + (n, c)))[0]
    s = np.linspace(1.0, ratio if ratio is not None else 0.3, c)
    J = (U * s[..., None, :]) @ np.swapaxes(V, -1, -2)
    J = J * rng.uniform(0.5, 50.0, size=batch + (c, 1))  # rows in different units
    h, tau = rng.normal(size=(2,) + batch + (n,))
    gamma = rng.normal(size=batch + (c,))
    return M, J, h, gamma, tau


def kkt(M, J, h, gamma, tau):
    n, c = M.shape[-1], J.shape[-2]
    K = np.zeros(M.shape[:-2] + (n + c, n + c))
    K[..., :n, :n], K[..., :n, n:], K[..., n:, :n] = M, -np.swapaxes(J, -1, -2), J
    rhs = np.concatenate([tau - h, -gamma], axis=-1)
    x = np.linalg.solve(K, rhs[..., None])[..., 0]
    return x[..., :n], x[..., n:]


@pytest.mark.parametrize("ratio", [0.3, 2e-3, 1e-5])  # certified, certified, SVD path
def test_both_paths_give_the_kkt_solution(ratio):
    M, J, h, gamma, tau = random_problem(np.random.default_rng(1), ratio=ratio)
    a_ref, lam_ref = kkt(M, J, h, gamma, tau)
    result = constraints.constrained_dynamics(M, J, h, gamma, tau)
    scale = np.abs(a_ref).max()
    np.testing.assert_allclose(result.a, a_ref, atol=1e-9 * scale / min(ratio, 1e-2))
    np.testing.assert_allclose(
        result.multiplier, lam_ref, atol=1e-9 * np.abs(lam_ref).max() / min(ratio, 1e-2)
    )
    np.testing.assert_array_equal(result.rank, 4)


def certified_status(M, J, load, gamma, rtol):
    """The certified solve's status for each element of a (B, ...) batch."""
    rows = [np.ascontiguousarray(x, dtype=float) for x in (M, J, load, gamma)]
    B, n, c, k = J.shape[0], M.shape[-1], J.shape[-2], load.shape[-1]
    a, lam, status = np.empty((B, n, k)), np.empty((B, c, k)), np.empty(B, dtype=np.int64)
    _linalg._certified_rows(*rows, _linalg._CERTIFIED_SIGMA_RATIO, rtol, a, lam, status)
    return status


def test_the_certificate_accepts_and_refuses_around_its_threshold():
    rng = np.random.default_rng(2)
    rtol = _linalg._constraint_rtol(None)
    M, well, h, gamma, tau = random_problem(rng, ratio=0.1, batch=())
    poor = random_problem(rng, ratio=1e-5, batch=())[1]
    load = (tau - h)[None, :, None]

    def status(*Js):
        J = np.stack(Js)
        return certified_status(M[None], J, load, np.zeros(J.shape[:2] + (1,)), rtol).tolist()

    solved, refused = _linalg.SOLVED, _linalg.ROWS_NOT_CERTIFIED
    assert status(well) == [solved]
    assert status(poor) == [refused]  # the SVD decides
    assert status(well, poor, well) == [solved, refused, solved]  # element by element
    assert status(np.vstack([well, well[:1]])[:4]) == [solved]
    assert status(np.vstack([well[:3], well[:1]])) == [refused]  # a repeated row
    assert status(np.vstack([well[:3], np.zeros(9)])) == [refused]  # a zero row
    # a row the rank rule counts as zero (1e-11 of the longest), however independent
    tiny = np.vstack([well[:3], 1e-11 * np.abs(well[3]).max() * rng.normal(size=9)])
    assert constraints.constraint_rank(tiny) == 3
    assert status(tiny) == [refused]
    # a certified set is one the package's rank rule calls independent
    assert constraints.constraint_rank(well) == well.shape[0]


def test_the_fast_path_refuses_an_asymmetric_mass_matrix_like_the_svd_path():
    # The kernel checks M's symmetry itself (the SVD path's rule, element by element):
    # an asymmetry far above rounding is refused with the validator's message, and one at
    # rounding level in one element of a batch is still solved, by either path.
    rng = np.random.default_rng(5)
    M, J, h, gamma, tau = random_problem(rng, ratio=0.3)
    bad = M.copy()
    bad[2, 0, 1] += 1e-6
    with pytest.raises(ValueError, match="M: expected a symmetric matrix, got asymmetry 1e-06"):
        constraints.constrained_dynamics(bad, J, h, gamma, tau)
    rounding = M.copy()
    rounding[2, 0, 1] += 1e-13 * np.abs(M[2]).max()
    a_ref, _ = kkt(M, J, h, gamma, tau)
    result = constraints.constrained_dynamics(rounding, J, h, gamma, tau)
    np.testing.assert_allclose(result.a, a_ref, atol=1e-9 * np.abs(a_ref).max())


def test_the_fast_path_reads_only_the_lower_triangle_of_a_symmetric_matrix():
    # The factor reads M's lower triangle; the upper one only enters the symmetry check.
    # A NaN anywhere must still be refused (by the validator), not solved around.
    rng = np.random.default_rng(6)
    M, J, h, gamma, tau = random_problem(rng, ratio=0.3, batch=())
    broken = M.copy()
    broken[0, 3] = np.nan
    with pytest.raises(ValueError, match="M"):
        constraints.constrained_dynamics(broken, J, h, gamma, tau)
