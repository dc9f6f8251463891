r"""Independent checks of the tree algorithms.

Each function here reaches a quantity that :mod:`geomotion.tree` also computes, by a
route that shares none of the recursion it checks:

* kinetic energy as a direct sum over point particles that reproduce every body's
  mass, centre of mass and central inertia (:func:`tree_particle_energy`);
* the joint inertia as :math:`\sum_i J_i^T\mathcal I_iJ_i` from body Jacobians
  (:func:`mass_matrix_from_body_jacobians`);
* the joint inertia as inverse-dynamics columns with unit accelerations and no
  gravity or velocity (:func:`mass_matrix_from_inverse_dynamics`);
* forward dynamics as a dense linear solve :math:`M\ddot q = \tau - b`
  (:func:`forward_dynamics_by_dense_solve`).

:func:`tree_checks` runs them all on random states of a model and reports the
largest relative disagreement of each.
"""

from dataclasses import dataclass

import numpy as np

from . import _validate, inertia, tree

__all__ = [
    "tree_particle_cloud",
    "tree_particle_energy",
    "mass_matrix_from_body_jacobians",
    "mass_matrix_from_inverse_dynamics",
    "forward_dynamics_by_dense_solve",
    "TreeCheckReport",
    "tree_checks",
]


def _body_particles(model):
    """Six particles per body, in body coordinates: masses (N, 6) and positions (N, 6, 3)."""
    masses, positions = [], []
    m, c, I_C = inertia.mass_properties(model.inertias)
    for i in range(model.num_bodies):
        body_masses, body_positions = inertia.particle_model(m[i], c[i], I_C[i])
        masses.append(body_masses)
        positions.append(body_positions)
    return np.array(masses), np.array(positions)


def tree_particle_cloud(model, q):
    """Positions of the particle model of every body, in base coordinates.

    Parameters
    ----------
    model : Tree
        The mechanism; every body must be physically realizable.
    q : (..., N) array_like
        Joint positions (rad or m).

    Returns
    -------
    (..., N, 6, 3) ndarray
        Six particles per body (see :func:`geomotion.inertia.particle_model`), m.
    """
    _, positions = _body_particles(model)
    T = tree.forward_kinematics(model, q)  # (..., N, 4, 4): T_0i
    return np.einsum("...ij,...kj->...ki", T[..., :3, :3], positions) + T[..., None, :3, 3]


def tree_particle_energy(model, q, qd):
    r"""Kinetic energy of a tree as a direct sum over particles.

    .. math:: K = \sum_i\sum_k \tfrac12 m_{ik}\|v_i + \omega_i\times r_{ik}\|^2

    with :math:`(\omega_i, v_i)` body i's twist in its own frame (from the velocity
    recursion) and :math:`r_{ik}` its particles in that frame.

    Parameters
    ----------
    model : Tree
    q, qd : (..., N) array_like
        Joint positions and rates.

    Returns
    -------
    ndarray
        Energy in J, shape ``(...)``.
    """
    masses, positions = _body_particles(model)
    V = tree.body_twists(model, q, qd)  # (..., N, 6)
    return sum(
        inertia.particle_kinetic_energy(masses[i], positions[i], V[..., i, :])
        for i in range(model.num_bodies)
    )


def mass_matrix_from_body_jacobians(model, q):
    r"""Joint inertia :math:`M = \sum_i J_i^T\mathcal I_iJ_i` from body Jacobians.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like

    Returns
    -------
    (..., N, N) ndarray
        kg m^2 / kg m / kg entries by joint type.
    """
    J = tree.body_jacobians(model, q)  # (..., N, 6, N)
    return np.einsum("...iak,iab,...ibl->...kl", J, model.inertias, J)


def mass_matrix_from_inverse_dynamics(model, q):
    r"""Joint inertia column by column: :math:`M e_j = \mathrm{RNEA}(q, 0, e_j)` without gravity.

    Parameters
    ----------
    model : Tree
    q : (..., N) array_like

    Returns
    -------
    (..., N, N) ndarray
    """
    q = _validate.real_array(q, "q")
    n = model.num_bodies
    zero = np.zeros_like(q)
    columns = [tree.rnea(model, q, zero, np.broadcast_to(np.eye(n)[j], q.shape), gravity=(0.0, 0.0, 0.0))
               for j in range(n)]
    return np.stack(columns, axis=-1)


def forward_dynamics_by_dense_solve(model, q, qd, tau, gravity=tree.DEFAULT_GRAVITY):
    r"""Joint accelerations from a dense solve, :math:`\ddot q = M^{-1}(\tau - b(q, \dot q))`.

    Parameters
    ----------
    model : Tree
    q, qd, tau : (..., N) array_like
    gravity : (3,) array_like
        In base coordinates, m/s^2.

    Returns
    -------
    (..., N) ndarray
    """
    bias = tree.bias_forces(model, q, qd, gravity=gravity)
    return np.linalg.solve(tree.crba(model, q), (np.asarray(tau, dtype=float) - bias)[..., None])[..., 0]


def _relative_error(value, reference):
    """Largest over the batch of |value - reference| / |reference| (norm over the trailing axes)."""
    axes = tuple(range(1, np.ndim(reference)))
    difference = np.sqrt(np.sum((np.asarray(value) - reference) ** 2, axis=axes))
    return float(np.max(difference / np.sqrt(np.sum(np.asarray(reference) ** 2, axis=axes))))


@dataclass(frozen=True)
class TreeCheckReport:
    """Largest relative disagreements found by :func:`tree_checks`.

    Attributes
    ----------
    num_bodies : int
    n_states : int
        Number of random states checked.
    errors : dict of str to float
        Check name -> largest relative error over the states.
    """

    num_bodies: int
    n_states: int
    errors: dict

    def max_relative_error(self):
        """Largest relative error over all checks."""
        return max(self.errors.values())

    def __str__(self):
        width = max(len(name) for name in self.errors)
        rows = [f"{self.n_states} random states of a {self.num_bodies}-body tree; largest relative error:"]
        rows += [f"  {name:<{width}}  {error:.1e}" for name, error in self.errors.items()]
        return "\n".join(rows)


def tree_checks(model, rng, n_states=100, gravity=tree.DEFAULT_GRAVITY):
    """Run every independent check of this module on random states of ``model``.

    Parameters
    ----------
    model : Tree
    rng : numpy.random.Generator
        Source of the random states (q uniform in [-pi, pi], qd and tau normal).
    n_states : int
        Number of states, checked in one batched call per algorithm.
    gravity : (3,) array_like
        In base coordinates, m/s^2.

    Returns
    -------
    TreeCheckReport
    """
    if not isinstance(n_states, (int, np.integer)) or n_states < 1:
        raise ValueError(f"n_states: expected a positive integer, got {n_states!r}")
    n = model.num_bodies
    q = rng.uniform(-np.pi, np.pi, size=(n_states, n))
    qd, qdd, tau = rng.normal(size=(3, n_states, n))
    M = tree.crba(model, q)
    qdd_aba = tree.aba(model, q, qd, tau, gravity=gravity)
    errors = {
        "particle energy vs qd^T M qd / 2": _relative_error(
            tree_particle_energy(model, q, qd), 0.5 * np.einsum("bi,bij,bj->b", qd, M, qd)),
        "body-Jacobian M vs CRBA": _relative_error(mass_matrix_from_body_jacobians(model, q), M),
        "RNEA columns vs CRBA": _relative_error(mass_matrix_from_inverse_dynamics(model, q), M),
        "ABA vs dense solve": _relative_error(qdd_aba, forward_dynamics_by_dense_solve(model, q, qd, tau, gravity)),
        "RNEA(ABA(tau)) vs tau": _relative_error(tree.rnea(model, q, qd, qdd_aba, gravity=gravity), tau),
        "M qdd + b vs RNEA": _relative_error(
            np.einsum("bij,bj->bi", M, qdd) + tree.bias_forces(model, q, qd, gravity=gravity),
            tree.rnea(model, q, qd, qdd, gravity=gravity)),
    }
    return TreeCheckReport(num_bodies=n, n_states=n_states, errors=errors)
