"""Mechanism Animator's multibody solver: pure numpy, no Blender.

Constrained Lagrangian dynamics in Cartesian coordinates: every moving part has the
position of its centre of mass and the Euler parameters of its frame; joints are tables of
scalar constraint primitives; Lagrange multipliers give joint reactions and motion efforts.

Layers (each imports only the ones above it in this list; docs/architecture.md):
  base/         errors, rotations (spatial maths), jet (exact-derivative numbers), mass properties
  vocabulary/   the user's vocabulary: joint table, expressions, f(t), items, Builder
  model/        compiled, read-only Model (and force arrays), run state, Result
  kernels/      one formula per constraint primitive kind; force elements
  algebra/      Newton's pieces, rank, J M^-1 J^T (Schur), banded Cholesky, BLAS threads
  integrators/  explicit Runge-Kutta (DOP853, DoPri5), Radau IIA (order 9), step control
  analyses/     assembly, structure and check, kinematic sweep, dynamics, statics, run
  study/        design studies: parameters by name, samples, solve_batch, StudyResult
  mechanism.py  Mechanism = Builder + the analyses as methods

Glossary (ours -> Haug 1989; Koh, OndselSolver's notes):
  r (nb, 3)      centre-of-mass position, world           Haug {r}, Koh rOpO (q_X)
  p (nb, 4)      Euler parameters w, x, y, z of the part   Haug {p}, Koh q_E (E4, E1..E3)
  A (nb, 3, 3)   rotation matrix, part axes -> world       Haug [A], Koh [A]ap
  v, w (nb, 3)   COM velocity, angular velocity (world)    Koh v_X, omega_apa
  marker point   marker origin from the COM, part axes     Haug {s'}, Koh rpmp
  marker axes    (3, 3) columns x, y, z in part axes       Haug [C], Koh [A]pm
  J (nc, 6 nb)   constraint Jacobian, columns r and pi     Haug [Phi_r  Phi_pi']
  gamma (nc,)    acceleration right-hand side              Haug {gamma}
  lambda (nc,)   multipliers; force on bodies -J^T lambda  Haug {lambda}

Public API: ``Mechanism`` (build, check, assemble, solve, study), ``Result``, ``MechanismError``
(bad input, a ValueError) and ``SolverError`` (a failed analysis; names time and joints);
design studies: ``Study``, ``StudyResult``, ``grid``, ``latin_hypercube``, ``StudyError``.
"""
from .analyses.check import CheckReport
from .base.errors import ExpressionError, MechanismError, SolverCancelled, SolverError, StudyError
from .mechanism import Mechanism
from .model.results import Result
from .study import Study, StudyResult, grid, latin_hypercube
from .vocabulary.joints import JOINT_ROWS

JOINT_KINDS = tuple(JOINT_ROWS)

__all__ = ["Mechanism", "Result", "CheckReport", "MechanismError", "SolverError", "SolverCancelled",
           "ExpressionError", "JOINT_KINDS", "Study", "StudyResult", "StudyError", "grid",
           "latin_hypercube"]
