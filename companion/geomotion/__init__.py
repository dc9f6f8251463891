"""geomotion: the companion package of *The Geometry of Motion*.

Spatial vector algebra, rigid-body inertia and tree dynamics on numpy arrays, with
the book's coordinate contract: motion angular-first ``(omega, v)``, force
moment-first ``(n, f)``, poses ``T_AB`` mapping B coordinates into A, SI units.
Every function broadcasts over leading axes.
"""

from . import constraints, dualquat, inertia, integrators, lagrange, spatial, tree

__all__ = ["spatial", "inertia", "dualquat", "tree", "lagrange", "constraints", "integrators"]
__version__ = "0.1.0"
