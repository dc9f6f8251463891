r"""Compile every kernel of :mod:`geomotion.tree` now, instead of at its first use.

The compiled kernels (numba) are built the first time each is called and cached (in a
directory named by a digest of their sources, ``geomotion._kernel_cache``); building them
all takes about two minutes of one core of the 2-core machine (two processes
share it in :func:`compile_kernels`), which a notebook cell would otherwise pay in the
middle of its work.  :func:`compile_kernels` calls each public
algorithm for one configuration and for a batch of eight on a small tree with every
joint model, so that every kernel is compiled, or loaded from the cache when it is
already there.  ``make`` runs it before anything that executes notebooks.
"""

import os
import subprocess
import sys
import time

import numpy as np

from .. import _kernel_cache, inertia, spatial
from ._configuration import random_configuration
from ._coriolis import coriolis_matrix
from ._dynamics import aba, crba, rnea
from ._frame_pairs import FramePair, FramePairStack
from ._frames import frame_kinematics
from ._joints import FREE_FLYER, SPHERICAL
from ._model import PRISMATIC_X, REVOLUTE_Z, Tree
from ._points import point_acceleration_bias

__all__ = ["compile_kernels"]


def _every_joint_tree():
    """A free-flyer root, a ball joint, a revolute, a prismatic and a helical joint."""
    joints = [FREE_FLYER, SPHERICAL, REVOLUTE_Z, PRISMATIC_X, np.array([0, 1, 0, 0, 0.05, 0])]
    placements = [spatial.pose(spatial.rot_x(0.3 * i), [0.1, 0.2 * i, 0.3]) for i in range(5)]
    body = inertia.spatial_inertia(1.0, [0.05, 0.0, 0.0], np.diag([0.02, 0.03, 0.04]))
    return Tree([-1, 0, 1, 2, 3], joints, placements, [body] * 5, gravity=(0.0, 0.0, -9.81))


def _steps(model):
    """The warm-up calls in two groups that share few kernels and take about as long to
    compile: the tree algorithms and the kinematics, and the closed-loop passes.  Of the
    kernels of one configuration (``geomotion.tree._single``, 25 s of CPU to compile), the
    ABA's and the CRBA's (19 s) are in the first group, the RNEA's (6 s) in the second."""
    rng = np.random.default_rng(0)
    tip = spatial.pose(spatial.rot_z(0.4), [0.1, 0.0, 0.2])
    hinge = FramePair(model, 4, tip, -1, np.eye(4))
    point = FramePair(model, 2, tip, 4, tip)
    certified = FramePairStack([hinge], [[3, 4, 5]])
    redundant = FramePairStack([hinge, hinge], [[3, 4, 5], [3, 4, 5]])
    algorithms, closed_loops = [], []
    for batch in ((), (8,)):
        q = random_configuration(model, shape=batch, rng=rng)
        v, x = rng.normal(size=(2, *batch, model.nv))
        wrenches = rng.normal(size=(*batch, model.num_bodies, 6))
        algorithms += [
            lambda q=q, v=v, x=x, w=wrenches: rnea(model, q, v, x, f_ext=w, f_ext_frame="world"),
            lambda q=q, v=v, x=x, w=wrenches: aba(model, q, v, x, f_ext=w),
            lambda q=q, v=v, x=x: aba(model, q, v, x),
            lambda q=q: crba(model, q),
            lambda q=q, v=v: coriolis_matrix(model, q, v),
            lambda q=q, v=v: frame_kinematics(model, q, v, 4, tip),
            lambda q=q, v=v: point_acceleration_bias(model, q, v, 4, tip[:3, 3]),
            lambda q=q, v=v: hinge.kinematics(q, v=v),
            lambda q=q, v=v: point.acceleration_bias(q, v),
        ]
        closed_loops += [
            lambda q=q, v=v, x=x: certified.forward_dynamics(q, v, x),
            lambda q=q, v=v, x=x: redundant.forward_dynamics(q, v, x),
        ]
        if not batch:  # the RNEA of tree._single (its batch kernel is the first group's)
            closed_loops.append(lambda q=q, v=v, x=x: rnea(model, q, v, x))
    return {"algorithms": algorithms, "closed loops": closed_loops}


def warm(group):
    """Run the warm-up calls of one group of :func:`_steps` (what the helper process of
    :func:`compile_kernels` runs)."""
    for call in _steps(_every_joint_tree())[group]:
        call()


def _helper_process():
    """A second process compiling the closed-loop kernels into the shared cache while this
    one compiles the rest (the machine's second core), or None without an on-disk cache."""
    if not _kernel_cache.CACHE:
        return None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(_kernel_cache.PACKAGE.parent)] + [p for p in [env.get("PYTHONPATH")] if p]
    )
    code = "from geomotion.tree import _warmup; _warmup.warm('closed loops')"
    return subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def compile_kernels():
    """Compile (or load from the cache) every compiled kernel of the tree algorithms.

    Runs RNEA, ABA, CRBA, the Coriolis matrix, frame and point kinematics, a frame pair,
    a stack of frame pairs and its closed-loop forward dynamics (certified and not) on a
    five-body tree with every joint model, for one configuration and for a batch that
    takes the lanes.  With an on-disk cache (``geomotion._kernel_cache``), a second
    process compiles the closed-loop kernels (and the RNEA's of one configuration)
    meanwhile, and this one then loads them: a cold compile takes about half its time
    on two cores.

    Returns
    -------
    float
        Seconds it took (about 64 s on the 2-core machine when nothing is cached yet,
        about a second when everything is).

    Examples
    --------
    >>> from geomotion import tree
    >>> tree.compile_kernels() >= 0.0
    True
    """
    start = time.perf_counter()
    helper = _helper_process()
    steps = _steps(_every_joint_tree())
    for call in steps["algorithms"]:
        call()
    if helper is not None:
        helper.wait()  # a helper that failed leaves its kernels for the next lines to compile
    for call in steps["closed loops"]:
        call()
    return time.perf_counter() - start
