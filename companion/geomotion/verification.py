r"""Independent checks of the fast tree algorithms.

The fast algorithms :func:`geomotion.tree.crba`, :func:`~geomotion.tree.rnea` and
:func:`~geomotion.tree.aba` are compiled kernels that read the same flat arrays of the
model (``geomotion.tree._flat``: joint codes, placements, subspaces, inertias).  So a
check that compares two fast results with each other (RNEA against CRBA, say) passes on
a wrong flat inertia or a transposed joint rotation: both sides carry the same error.
Every check here instead puts one fast result against a quantity built without the
kernels or their arrays, in the user's own body frames, from the readable oracle
:mod:`geomotion.tree.reference` (its Newton–Euler recursion on explicit 6x6 operators is
:func:`geomotion.tree.reference.rnea`):

* ``CRBA vs particle energy``: :math:`\tfrac12v^TMv` from
  :func:`~geomotion.tree.crba` against a direct sum over point particles that move with
  the reference body twists (:func:`tree_particle_energy`);
* ``CRBA vs body Jacobians``: :func:`~geomotion.tree.crba` against
  :math:`\sum_iJ_i^T\mathcal I_iJ_i` (:func:`mass_matrix_from_body_jacobians`,
  equation :eq:`eq-mass-matrix-jacobians`);
* ``RNEA columns vs reference M``: inverse dynamics with unit accelerations, no velocity
  and no gravity (:func:`mass_matrix_from_inverse_dynamics`) against
  :func:`~geomotion.tree.joint_mass_matrix` of :func:`~geomotion.tree.prepare`;
* ``RNEA vs reference RNEA``: :func:`~geomotion.tree.rnea` against
  :func:`geomotion.tree.reference.rnea` at the same random state (velocity products and
  gravity included);
* ``ABA vs dense solve``: :func:`~geomotion.tree.aba` against
  :func:`forward_dynamics_by_dense_solve` (reference ``M`` and bias ``b``);
* ``reference M qdd_ABA vs tau - b``: the residual of the fast accelerations in the
  reference equations of motion, relative to the net joint force ``tau - b``.

What the checks share.  All reference sides start from
:func:`~geomotion.tree.joint_transforms` (each joint's screw exponential and its 6x6
motion transform).  The particle check decodes each body's mass, centre of mass and
central inertia with :func:`geomotion.inertia.mass_properties`, as
:class:`~geomotion.tree.Tree` does for the fast path's compiled data (the other
references use the spatial inertias as given), and places the particles with
:func:`geomotion.inertia.particle_model`.  The references and the kernels share no code:
the kernels write their own joint motions and products (numba), the references use the
joints' own :meth:`~geomotion.tree.Joint.transform` and numpy.  An error in the kernels'
flat arrays therefore shows in every check of the algorithm it touches, and the two
CRBA checks stay at rounding level when only the Newton–Euler passes (RNEA, ABA) are
wrong; ``tests/companion/test_verification.py`` injects such errors into the flat
arrays, for one configuration and for batches of several blocks of lanes, to prove it.

:func:`tree_checks` runs them all on random states of a model and reports the
largest relative disagreement of each.
"""

from dataclasses import dataclass

import numpy as np

from . import _validate, inertia, printing, tree

__all__ = [
    "tree_particle_cloud",
    "tree_particle_energy",
    "particle_energy_comparison",
    "mass_matrix_from_body_jacobians",
    "mass_matrix_from_inverse_dynamics",
    "forward_dynamics_by_dense_solve",
    "TreeCheckReport",
    "EnergyComparison",
    "tree_checks",
]


def _body_particles(model):
    """Six particles per body, in body coordinates: masses (N, 6) and positions (N, 6, 3).

    A massless body gets six particles of zero mass at its origin.
    """
    masses, positions = np.zeros((model.num_bodies, 6)), np.zeros((model.num_bodies, 6, 3))
    for i, I in enumerate(model.inertias):
        if np.any(I):
            props = inertia.mass_properties(I)
            body = inertia.particle_model(props.mass, props.com, props.inertia_com)
            masses[i], positions[i] = body.masses, body.positions
    return masses, positions


def tree_particle_cloud(model, q):
    """Positions of the particle model of every body, in base coordinates.

    Parameters
    ----------
    model : Tree
        The mechanism; ideal point masses and thin rods are allowed.
    q : (..., nq) array_like
        Configurations (rad or m; unit quaternions for ball and free-flyer joints).

    Returns
    -------
    (..., N, 6, 3) ndarray
        Six particles per body (see :func:`geomotion.inertia.particle_model`), m.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., nq) array.
    """
    T = tree.forward_kinematics(model, q)  # (..., N, 4, 4): T_0i
    _, positions = _body_particles(model)
    return np.einsum("...ij,...kj->...ki", T[..., :3, :3], positions) + T[..., None, :3, 3]


def tree_particle_energy(model, q, v):
    r"""Kinetic energy of a tree as a direct sum over particles.

    .. math:: K = \sum_i\sum_k \tfrac12 m_{ik}\|v_i + \omega_i\times r_{ik}\|^2

    with :math:`(\omega_i, v_i)` body i's twist in its own frame (from the reference
    velocity recursion :func:`geomotion.tree.body_twists`, equation
    :eq:`eq-velocity-recursion`) and :math:`r_{ik}` its particles in that frame.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configurations (rad or m; unit quaternions for ball and free-flyer joints).
    v : (..., nv) array_like
        Velocities (rad/s or m/s).

    Returns
    -------
    ndarray
        Energy in J, shape ``(...)``.

    Raises
    ------
    ValueError
        If an argument is malformed.
    """
    V = tree.body_twists(model, q, v)  # (..., N, 6)
    masses, positions = _body_particles(model)
    return sum(
        inertia.particle_kinetic_energy(masses[i], positions[i], V[..., i, :])
        for i in range(model.num_bodies)
    )


@dataclass(frozen=True)
class EnergyComparison:
    """Kinetic energies of the same random states computed two ways (:func:`particle_energy_comparison`).

    Read the fields by name; the result does not unpack like a tuple.

    Attributes
    ----------
    particle_energy : (n_states,) ndarray
        By summing over each body's six particles (:func:`tree_particle_energy`), J.
    matrix_energy : (n_states,) ndarray
        :math:`\tfrac12 v^TMv` with :math:`M` from :func:`geomotion.tree.crba`, J.
    """

    particle_energy: np.ndarray
    matrix_energy: np.ndarray


def particle_energy_comparison(model, *, n_states=200, rng=0):
    r"""Kinetic energies at random states by particle sums and by the fast mass matrix.

    States: :math:`q` from :func:`geomotion.tree.random_configuration` (angles uniform in
    [-pi, pi], offsets in [-1, 1] m, rotations uniform) and :math:`v` standard normal, from
    ``numpy.random.default_rng(rng)``.  The two energies agree to rounding error
    for a correct CRBA (about 1e-15 relative for the book's humanoid tree).

    **Batches**: the call draws its own batch of ``n_states`` states for one model.

    Parameters
    ----------
    model : Tree
    n_states : int
        Number of random states.
    rng : None, int or numpy.random.Generator, optional, keyword only
        Random source (anything :func:`numpy.random.default_rng` takes; a Generator is
        used and advanced); default 0, a fixed seed, so that the book's numbers repeat.

    Returns
    -------
    EnergyComparison
        ``particle_energy`` (:func:`tree_particle_energy`) and ``matrix_energy``
        (:math:`\tfrac12 v^TMv` with :math:`M` from :func:`geomotion.tree.crba`), each
        (n_states,), in J.
    """
    n_states = _validate.count(n_states, "n_states")
    rng = np.random.default_rng(rng)
    q = tree.random_configuration(model, shape=(n_states,), rng=rng)
    v = rng.normal(size=(n_states, model.nv))
    matrix_energy = 0.5 * np.einsum("bi,bij,bj->b", v, tree.crba(model, q), v)
    return EnergyComparison(
        particle_energy=tree_particle_energy(model, q, v), matrix_energy=matrix_energy
    )


def mass_matrix_from_body_jacobians(model, q):
    r"""Joint inertia :math:`M = \sum_i J_i^T\mathcal I_iJ_i` from the reference body Jacobians.

    Equation :eq:`eq-mass-matrix-jacobians`.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configurations (rad or m; unit quaternions for ball and free-flyer joints).

    Returns
    -------
    (..., nv, nv) ndarray
        kg m^2 / kg m / kg entries by joint type.

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., nq) array.
    """
    J = tree.body_jacobians(model, q)  # (..., N, 6, nv)
    return np.einsum("...iak,iab,...ibl->...kl", J, model.inertias, J)


def mass_matrix_from_inverse_dynamics(model, q):
    r"""Joint inertia column by column from the fast RNEA, without velocity or gravity.

    .. math:: M(q)\,e_j = \mathrm{RNEA}(q, \dot q = 0, \ddot q = e_j, g = 0)

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configurations (rad or m; unit quaternions for ball and free-flyer joints).

    Returns
    -------
    (..., nv, nv) ndarray

    Raises
    ------
    ValueError
        If ``model`` is not a Tree or ``q`` is not a finite (..., nq) array.
    """
    q = _validate.real_array(q, "q")
    zero = np.zeros(q.shape[:-1] + (model.nv,))
    columns = [
        tree.rnea(model, q, zero, np.broadcast_to(unit, zero.shape), gravity=(0.0, 0.0, 0.0))
        for unit in np.eye(model.nv)
    ]
    return np.stack(columns, axis=-1)


def forward_dynamics_by_dense_solve(model, q, v, tau, *, gravity=None):
    r"""Joint accelerations from the reference mass matrix and bias by a dense solve.

    .. math:: M(q)\,\ddot q = \tau - b(q, \dot q)

    (the joint-space equations :eq:`conv-joint-space` of the conventions, with
    :math:`b = C\dot q + g`), with ``M`` from :func:`geomotion.tree.joint_mass_matrix` of
    :func:`geomotion.tree.prepare` and ``b`` from :func:`geomotion.tree.reference.rnea` at
    zero acceleration; the system is solved with the Cholesky factor of ``M``.

    Parameters
    ----------
    model : Tree
    q : (..., nq) array_like
        Configurations (rad or m; unit quaternions for ball and free-flyer joints).
    v, tau : (..., nv) array_like
        Velocities (rad/s or m/s) and joint forces (N m or N).
    gravity : None or (3,) or (..., 3) array_like
        Default None: ``model.gravity``.  Or gravity in base coordinates, m/s^2.

    Returns
    -------
    (..., nv) ndarray
        Joint accelerations (rad/s^2 or m/s^2).

    Raises
    ------
    ValueError
        If an argument is malformed, or if ``M`` is not positive definite at some
        configuration (a joint that moves no inertia has no forward dynamics).
    """
    M = tree.joint_mass_matrix(tree.prepare(model, q))
    _, L = _validate.positive_definite_factor(M, "model (its joint mass matrix at q)")
    bias = tree.reference.rnea(model, q, v, np.zeros(model.nv), gravity=gravity)
    rhs = _validate.trailing_shape(tau, "tau", (model.nv,)) - bias
    y = np.linalg.solve(L, rhs[..., None])  # M = L L^T
    return np.linalg.solve(np.swapaxes(L, -1, -2), y)[..., 0]


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

    def assert_below(self, bound):
        """Assert every check's largest relative error below ``bound``; print each bound.

        What a notebook prints: the bound each check met, the same on every machine (the
        errors themselves are rounding, different from one machine to another).

        Parameters
        ----------
        bound : float
            Positive, dimensionless.

        Raises
        ------
        AssertionError
            Naming the first check whose error is not below ``bound``.

        Examples
        --------
        >>> TreeCheckReport(2, 5, {"CRBA vs particle energy": 3e-16}).assert_below(1e-12)
        5 random states of a 2-body tree; largest relative error of each check:
          CRBA vs particle energy < 1e-12
        """
        width = max(len(name) for name in self.errors)
        print(
            f"{self.n_states} random states of a {self.num_bodies}-body tree; largest "
            "relative error of each check:"
        )
        for name, error in self.errors.items():
            printing.assert_below(f"  {name:<{width}}", error, bound)

    def __str__(self):
        width = max(len(name) for name in self.errors)
        rows = [
            f"{self.n_states} random states of a {self.num_bodies}-body tree; largest relative error:"
        ]
        rows += [f"  {name:<{width}}  {error:.1e}" for name, error in self.errors.items()]
        return "\n".join(rows)


def tree_checks(model, *, rng=0, n_states=100, gravity=None):
    """Run every independent check of this module on random states of ``model``.

    Each fast algorithm is called once on the whole batch, which the kernels run in
    blocks of 64 configurations (``geomotion.tree._lanes.LANES``; a smaller batch is one
    block of its own size), so ``n_states`` below and above 64 exercises both block
    widths.

    **Batches**: the call draws its own batch of ``n_states`` states for one model.

    Parameters
    ----------
    model : Tree
        Any tree :class:`~geomotion.tree.Tree` accepts, ideal point masses and thin
        rods included.  The forward-dynamics checks need a positive definite joint mass
        matrix at the sampled states: a singular configuration (an arm of point masses
        held straight, say) is met with probability zero by random states.
    rng : None, int or numpy.random.Generator, optional, keyword only
        Source of the random states (q from :func:`geomotion.tree.random_configuration`;
        v, a and tau standard normal): anything :func:`numpy.random.default_rng` takes
        (a Generator is used and advanced); default 0, a fixed seed, so that a failing
        check can be repeated.
    n_states : int
        Number of states, checked in one batched call per algorithm.
    gravity : None or (3,) array_like
        Default None: ``model.gravity``.  Or gravity in base coordinates, m/s^2.

    Returns
    -------
    TreeCheckReport
        The checks named as in the list of the module notes.

    Raises
    ------
    ValueError
        For a bad ``n_states`` or ``model``, or a singular joint mass matrix.
    """
    n_states = _validate.count(n_states, "n_states")
    rng = np.random.default_rng(rng)
    n = model.num_bodies
    q = tree.random_configuration(model, shape=(n_states,), rng=rng)
    v, a, tau = rng.normal(size=(3, n_states, model.nv))
    M = tree.crba(model, q)
    M_reference = tree.joint_mass_matrix(tree.prepare(model, q))
    a_dense = forward_dynamics_by_dense_solve(model, q, v, tau, gravity=gravity)  # checks M first
    a_aba = tree.aba(model, q, v, tau, gravity=gravity)
    bias_reference = tree.reference.rnea(model, q, v, np.zeros(model.nv), gravity=gravity)
    errors = {
        "CRBA vs particle energy": _relative_error(
            0.5 * np.einsum("bi,bij,bj->b", v, M, v), tree_particle_energy(model, q, v)
        ),
        "CRBA vs body Jacobians": _relative_error(M, mass_matrix_from_body_jacobians(model, q)),
        "RNEA columns vs reference M": _relative_error(
            mass_matrix_from_inverse_dynamics(model, q), M_reference
        ),
        "RNEA vs reference RNEA": _relative_error(
            tree.rnea(model, q, v, a, gravity=gravity),
            tree.reference.rnea(model, q, v, a, gravity=gravity),
        ),
        "ABA vs dense solve": _relative_error(a_aba, a_dense),
        "reference M qdd_ABA vs tau - b": _relative_error(
            np.einsum("bij,bj->bi", M_reference, a_aba), tau - bias_reference
        ),
    }
    return TreeCheckReport(num_bodies=n, n_states=n_states, errors=errors)
