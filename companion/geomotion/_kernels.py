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
