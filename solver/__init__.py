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

Public API (``__all__``; docs/reference.md): ``Mechanism`` (build, check, assemble, statics,
modes, solve, study, poser), ``Result``, ``MechanismError`` (bad input, a ValueError) and
``SolverError`` (a failed analysis; names time and joints); design studies; and the
vocabulary's tables and helpers a tool that builds mechanisms needs.  The add-on imports
the solver through this module only (tests/test_architecture.py).
"""
from .analyses.checks.check import CheckReport
from .analyses.checks.joint_angles import joint_coordinate
from .analyses.equilibrium.modes import Modes
from .analyses.posing.drag import Poser
from .base.curves import Curve
from .base.elementary import arctan2
from .base.errors import ExpressionError, MechanismError, SolverCancelled, SolverError, StudyError
from .base.outlines import geneva_crank, geneva_crank_radius, geneva_wheel, involute_gear
from .base.mass_properties import mesh_mass_properties, part_frame_from_matrix
from .base.rotations import continuous_quats, matrix_to_quat, quat_to_matrix
from .base.time_table import not_a_knot_slopes
from .mechanism import Mechanism
from .model.impacts import Impact
from .model.plans import coupler_terms
from .model.results import Result
from .study import Study, StudyResult, grid, latin_hypercube, parameter_names, quantity
from .study import resolve as resolve_parameter
from .study.params import shared_constants
from .study.table import column_units, result_columns, result_row
from .vocabulary.contacts import Shape
from .vocabulary.expressions import named_constants
from .vocabulary.expressions import parse as parse_expression
from .vocabulary.joints import (CURVE_JOINT_ROWS, FRICTION_COORDINATES, JOINT_COORDINATES,
                                JOINT_ROWS, canonical_kind)

JOINT_KINDS = tuple(JOINT_ROWS)

__all__ = [
    # build, solve, read
    "Mechanism", "Result", "CheckReport", "Impact", "Curve", "Shape", "Poser", "Modes",
    "joint_coordinate", "MechanismError", "SolverError", "SolverCancelled", "ExpressionError",
    # outlines for Shape.profile
    "involute_gear", "geneva_wheel", "geneva_crank", "geneva_crank_radius",
    # design studies
    "Study", "StudyResult", "StudyError", "grid", "latin_hypercube", "parameter_names",
    "quantity", "resolve_parameter", "shared_constants", "column_units", "result_columns",
    "result_row",
    # the vocabulary's tables and helpers, for tools that build mechanisms (the add-on)
    "JOINT_KINDS", "JOINT_ROWS", "CURVE_JOINT_ROWS", "JOINT_COORDINATES",
    "FRICTION_COORDINATES", "canonical_kind", "parse_expression", "named_constants",
    "mesh_mass_properties", "part_frame_from_matrix", "quat_to_matrix", "matrix_to_quat",
    "continuous_quats", "not_a_knot_slopes", "arctan2", "coupler_terms"]
