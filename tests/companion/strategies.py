"""Hypothesis strategies shared by the companion's property tests.

Rotations are built from normalized quaternions (independently of geomotion), so a
bug in geomotion's rotation code cannot hide in the test inputs.
"""

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st


def examples(n):
    """A property test's number of examples: ``n`` under the ``ci`` profile, scaled with the
    profile's ``max_examples`` otherwise (``n`` per 100: ten times ``n`` under ``dev``; see
    ``conftest.py``)."""
    return max(1, round(n * settings.default.max_examples / 100))


finite = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)


def vectors(n):
    """Strategy for float vectors of length n with entries in [-10, 10]."""
    return st.lists(finite, min_size=n, max_size=n).map(np.array)


def quaternion_rotation(q):
    """Rotation matrix of a (not necessarily unit) nonzero quaternion (w, x, y, z)."""
    w, x, y, z = q / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


rotations = vectors(4).filter(lambda q: np.linalg.norm(q) > 1e-3).map(quaternion_rotation)


@st.composite
def poses(draw):
    """Random rigid poses T_AB with offsets up to 10 m."""
    T = np.eye(4)
    T[:3, :3] = draw(rotations)
    T[:3, 3] = draw(vectors(3))
    return T


@st.composite
def realizable_bodies(draw):
    """(mass, com, inertia_com) of a random realizable rigid body.

    The central inertia comes from non-negative second moments s along random
    principal axes U: I_C = U diag(s2 + s3, s1 + s3, s1 + s2) U^T.
    """
    mass = draw(st.floats(min_value=0.1, max_value=10.0))
    com = draw(vectors(3)) / 10
    s = np.abs(draw(vectors(3))) / 10 + 1e-3
    U = draw(rotations)
    inertia_com = U @ np.diag([s[1] + s[2], s[0] + s[2], s[0] + s[1]]) @ U.T * mass
    return mass, com, 0.5 * (inertia_com + inertia_com.T)
