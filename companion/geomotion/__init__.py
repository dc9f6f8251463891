"""geomotion: the companion package of *The Geometry of Motion*.

Spatial vector algebra, rigid-body inertia and tree dynamics; constrained dynamics,
redundancy and allocation, grip and ground contact, geometric control and symmetry;
integrators that report their residuals.  All on numpy arrays, with the book's
coordinate contract: motion angular-first ``(omega, v)``, force moment-first ``(n, f)``,
poses ``T_AB`` mapping B coordinates into A, SI units.  Functions broadcast over
leading axes.

Importing geomotion limits BLAS to one thread (numpy's and scipy's OpenBLAS) unless an
environment variable such as ``OPENBLAS_NUM_THREADS`` sets a number: with its small
matrices, several BLAS threads only wait for one another (see ``geomotion._threads``).
"""

from . import (
    allocation,
    constraints,
    contact,
    control,
    dualquat,
    inertia,
    integrators,
    lagrange,
    muscles,
    spatial,
    symmetry,
    systems,
    tree,
)
from ._threads import limit_blas_threads
from .errors import ConvergenceError

limit_blas_threads()  # after the imports above, which load numpy's and scipy's BLAS

__all__ = [
    "ConvergenceError",
    "spatial",
    "inertia",
    "dualquat",
    "tree",
    "lagrange",
    "constraints",
    "allocation",
    "contact",
    "control",
    "symmetry",
    "integrators",
    "systems",
    "muscles",
]
__version__ = "2.0.0"
