"""Unvalidated kernels of rigid-body geometry shared by several packages (bottom layer).

Skew matrices, poses and motion/force transforms on trusted float arrays, with leading
batch axes.  The public, validated versions are in :mod:`geomotion.spatial`
(:func:`~geomotion.spatial.skew`, :func:`~geomotion.spatial.pose`,
:func:`~geomotion.spatial.inverse_pose`, :func:`~geomotion.spatial.motion_transform`,
:func:`~geomotion.spatial.force_transform`); ``spatial``, ``dualquat``, ``inertia`` and
``tree`` call these inside their algorithms, where the inputs were checked already.
"""

import numpy as np


def _skew(a):
    """Unvalidated :func:`geomotion.spatial.skew`: (..., 3) -> (..., 3, 3)."""
    S = np.zeros(a.shape[:-1] + (3, 3))
    S[..., 0, 1] = -a[..., 2]
    S[..., 0, 2] = a[..., 1]
    S[..., 1, 0] = a[..., 2]
    S[..., 1, 2] = -a[..., 0]
    S[..., 2, 0] = -a[..., 1]
    S[..., 2, 1] = a[..., 0]
    return S


def _cross(a, b):
    """a x b over the last axis, broadcasting; explicit components (no numpy.cross overhead)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def _vee(S):
    """Inverse of ``_skew`` applied to the antisymmetric part: (..., 3, 3) -> (..., 3)."""
    return 0.5 * np.stack(
        [S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]],
        axis=-1,
    )


def _pose(R, p):
    """Unvalidated :func:`geomotion.spatial.pose`."""
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = np.zeros(shape + (4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def _inverse_pose(T):
    """Unvalidated :func:`geomotion.spatial.inverse_pose`."""
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    return _pose(Rt, -np.einsum("...ij,...j->...i", Rt, T[..., :3, 3]))


def _motion_transform(R, p):
    """Unvalidated :func:`geomotion.spatial.motion_transform` from a rotation and an offset."""
    X = np.zeros(np.broadcast_shapes(R.shape[:-2], p.shape[:-1]) + (6, 6))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., 3:, :3] = _skew(p) @ R
    return X


def _force_transform(R, p):
    """Unvalidated :func:`geomotion.spatial.force_transform` from a rotation and an offset."""
    X = np.zeros(np.broadcast_shapes(R.shape[:-2], p.shape[:-1]) + (6, 6))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., :3, 3:] = _skew(p) @ R
    return X


# Quaternions: scalar-first (w, x, y, z), Hamilton product (ij = k)


def _qmul(a, b):
    """Hamilton product of scalar-first quaternions, broadcasting: (..., 4) x (..., 4)."""
    aw, av = a[..., :1], a[..., 1:]
    bw, bv = b[..., :1], b[..., 1:]
    w = aw * bw - np.sum(av * bv, axis=-1, keepdims=True)
    v = aw * bv + bw * av + np.cross(av, bv)
    return np.concatenate([w, v], axis=-1)


def _qconj(q):
    """Quaternion conjugate (w, -x, -y, -z)."""
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def _quaternion_to_rotation(q):
    r"""Rotation of a unit quaternion: :math:`R = I + 2w[v] + 2[v]^2`."""
    W = _skew(q[..., 1:])
    return np.eye(3) + 2.0 * q[..., 0, None, None] * W + 2.0 * (W @ W)


def _rotation_to_quaternion(R):
    """Unit quaternion of a rotation matrix (Shepperd's method), representative with w >= 0.

    Of the four squared components 4w^2 = 1 + tr R, 4x^2 = 1 + R00 - R11 - R22, ...
    the largest (always >= 1) is taken by square root and the others are read from
    the off-diagonal sums and differences, which keeps full accuracy near 180 degrees.
    """
    r00, r11, r22 = R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]
    squares = np.stack(
        [1 + r00 + r11 + r22, 1 + r00 - r11 - r22, 1 - r00 + r11 - r22, 1 - r00 - r11 + r22],
        axis=-1,
    )
    k = np.argmax(squares, axis=-1)
    big = 0.5 * np.sqrt(np.take_along_axis(squares, k[..., None], axis=-1)[..., 0])
    d21 = R[..., 2, 1] - R[..., 1, 2]
    d02 = R[..., 0, 2] - R[..., 2, 0]
    d10 = R[..., 1, 0] - R[..., 0, 1]
    s01 = R[..., 0, 1] + R[..., 1, 0]
    s02 = R[..., 0, 2] + R[..., 2, 0]
    s12 = R[..., 1, 2] + R[..., 2, 1]
    # Row k: four times the chosen component times (w, x, y, z).
    candidates = np.stack(
        [
            np.stack([4 * big**2, d21, d02, d10], axis=-1),
            np.stack([d21, 4 * big**2, s01, s02], axis=-1),
            np.stack([d02, s01, 4 * big**2, s12], axis=-1),
            np.stack([d10, s02, s12, 4 * big**2], axis=-1),
        ],
        axis=-2,
    )
    q = np.take_along_axis(candidates, k[..., None, None], axis=-2)[..., 0, :]
    q = q / (4 * big[..., None])
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., :1] < 0, -q, q)
