"""The user's vocabulary (parts, markers, joints, motions) and its compiled array form.

``Mechanism`` collects and validates items by name and keeps the current placement of
every part.  ``compile_model`` turns it into a frozen ``Model``: body arrays and one table
of constraint rows (seed 004: a joint is a few scalar primitives), so that the analyses in
``kinematics.py`` never touch a Python object per constraint.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import MechanismError
from .rotations import quat_to_matrix

# Constraint-row kinds (seed 003 primitives; at-point rows are DOT2 rows on world axes).
DOT1, DOT2, DIST, ANGLE = 0, 1, 2, 3

_EX, _EY, _EZ = np.eye(3)
# Rows of each joint kind: ("dot1", axis of I, axis of J) -- a_I . b_J = 0;
# ("dot2", axis of J) -- (P_I - P_J) . a_J = 0; ("at", k) -- world component k of P_I - P_J;
# ("dist",) -- |P_I - P_J| = length.  Axes are marker axes 0=x 1=y 2=z.
_AT = [("at", 0), ("at", 1), ("at", 2)]
_PARALLEL = [("dot1", 2, 0), ("dot1", 2, 1)]          # z_I parallel to z_J
_ON_AXIS = [("dot2", 0), ("dot2", 1)]                  # I's origin on J's z axis
JOINT_ROWS: dict[str, list[tuple]] = {
    "fixed": _AT + _PARALLEL + [("dot1", 0, 1)],
    "revolute": _AT + _PARALLEL,
    "prismatic": _ON_AXIS + _PARALLEL + [("dot1", 0, 1)],
    "cylindrical": _ON_AXIS + _PARALLEL,
    "spherical": _AT,
    "universal": _AT + [("dot1", 2, 2)],
    "planar": [("dot2", 2)] + _PARALLEL,
    "in-line": _ON_AXIS,
    "in-plane": [("dot2", 2)],
    "parallel-axes": _PARALLEL,
    "perpendicular": [("dot1", 2, 2)],
    "distance": [("dist",)],
}
# Joint coordinates a motion may drive (design.md "Conventions").
JOINT_COORDINATES = {"revolute": ("angle",), "prismatic": ("slide",),
                     "cylindrical": ("angle", "slide")}
_AXIS = "xyz"


def _label(prim: tuple) -> str:
    if prim[0] == "at":
        return f"at-point {_AXIS[prim[1]]}"
    if prim[0] == "dot1":
        return f"{_AXIS[prim[1]]}_I . {_AXIS[prim[2]]}_J"
    if prim[0] == "dot2":
        return f"(P_I - P_J) . {_AXIS[prim[1]]}_J"
    return "distance"


def canonical_kind(kind: str) -> str:
    """Joint kind spelled as in JOINT_ROWS ('in_line', 'In Line' -> 'in-line')."""
    k = str(kind).strip().lower().replace("_", "-").replace(" ", "-")
    k = {"inline": "in-line", "inplane": "in-plane", "parallel": "parallel-axes",
         "parallelaxes": "parallel-axes", "pin": "revolute", "ball": "spherical",
         "slider": "prismatic", "hooke": "universal"}.get(k, k)
    return k


# ---------------------------------------------------------------- input checking
def _vector(value: Any, n: int, what: str) -> np.ndarray:
    try:
        a = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise MechanismError(f"{what} must be {n} numbers, got {value!r}") from None
    if a.size != n:
        raise MechanismError(f"{what} must be {n} numbers, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise MechanismError(f"{what} has a NaN or infinite value: {value!r}")
    return a


def number(value: Any, what: str) -> float:
    """A finite float, or MechanismError naming ``what``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise MechanismError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise MechanismError(f"{what} is NaN or infinite")
    return x


def _quaternion(value: Any, what: str) -> np.ndarray:
    q = _vector(value, 4, what + " (w, x, y, z)")
    n = float(np.linalg.norm(q))
    if n < 1e-12:
        raise MechanismError(f"{what} is a zero quaternion")
    if abs(n - 1.0) > 1e-3:
        raise MechanismError(f"{what} is not a unit quaternion (norm {n:.6g}); "
                             "give (w, x, y, z) with w^2 + x^2 + y^2 + z^2 = 1")
    return q / n


def _inertia(value: Any, mass: float, what: str) -> np.ndarray:
    if value is None:  # a solid sphere of radius 0.1 m of the part's mass
        return np.eye(3) * 0.4 * mass * 0.01
    a = np.array(value, dtype=float)
    if a.size == 3:
        a = np.diag(a.reshape(-1))
    if a.shape != (3, 3):
        raise MechanismError(f"{what} must be (Ixx, Iyy, Izz) or a 3x3 matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise MechanismError(f"{what} has a NaN or infinite value")
    scale = float(np.max(np.abs(a))) or 1.0
    if np.max(np.abs(a - a.T)) > 1e-9 * scale:
        raise MechanismError(f"{what} is not symmetric")
    a = 0.5 * (a + a.T)
    lam = np.linalg.eigvalsh(a)
    if lam[0] <= 0.0:
        raise MechanismError(f"{what} is not positive definite (principal moments {lam.tolist()})")
    if lam[2] > lam[0] + lam[1] + 1e-9 * lam[2]:
        raise MechanismError(f"{what} breaks the triangle inequality: principal moments "
                             f"{lam.tolist()} (the largest must not exceed the sum of the others)")
    return a


def _check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise MechanismError(f"{what} name must be a non-empty string, got {name!r}")
    return name


# ---------------------------------------------------------------- user vocabulary
@dataclass
class Part:
    name: str
    fixed: bool
    mass: float
    inertia: np.ndarray          # (3, 3) about the centre of mass, part axes, kg m^2
    center_of_mass: np.ndarray   # (3,) in the part frame, m
    position: np.ndarray         # (3,) part-frame origin in world, m
    orientation: np.ndarray      # (4,) part frame in world, w x y z
    velocity: np.ndarray         # (3,) of the part-frame origin, world, m/s
    angular_velocity: np.ndarray  # (3,) world axes, rad/s


@dataclass
class Marker:
    name: str
    part: str
    position: np.ndarray         # (3,) in the part frame
    orientation: np.ndarray      # (4,) in the part frame


@dataclass
class Joint:
    name: str
    kind: str
    marker_i: str
    marker_j: str
    length: float | None = None  # distance joints only


@dataclass
class Motion:
    name: str
    joint: str
    coordinate: str              # "angle" (rad) or "slide" (m)
    function: Any                # expressions.TimeFunction
    source: Any = None


@dataclass
class Model:
    """Frozen arrays of a mechanism (MuJoCo naming: entity_quantity, shapes in comments).

    Bodies are the moving parts; index ``nb`` is the ground (all fixed parts), whose points
    and axes are stored in world coordinates.
    """
    body_part: list[str]          # (nb,) part name of each body
    body_mass: np.ndarray         # (nb,) kg
    body_inertia: np.ndarray      # (nb, 3, 3) about the centre of mass, body (= part) axes
    body_com: np.ndarray          # (nb, 3) centre of mass in the part frame
    body_length: np.ndarray       # (nb,) characteristic length, m (rotation weights)
    gravity: np.ndarray           # (3,)
    # constraint rows, in joint order then motion order
    row_kind: np.ndarray          # (nc,) DOT1 | DOT2 | DIST | ANGLE
    row_bi: np.ndarray            # (nc,) body of marker I (nb = ground)
    row_bj: np.ndarray            # (nc,) body of marker J
    row_ui: np.ndarray            # (nc, 3) vector (DOT1, ANGLE: x_I) or point (DOT2, DIST) on body I
    row_uj: np.ndarray            # (nc, 3) point on body J (DOT2, DIST)
    row_a: np.ndarray             # (nc, 3) vector on body J (or on ground if not row_a_on_j)
    row_a_on_j: np.ndarray        # (nc,) bool
    row_b: np.ndarray             # (nc, 3) second vector on body J (ANGLE: y_J)
    row_target: np.ndarray        # (nc,) DIST length
    row_joint: np.ndarray         # (nc,) joint index, -1 for motion rows
    row_motion: np.ndarray        # (nc,) motion index, -1 for joint rows
    row_length: np.ndarray        # (nc,) residual unit: the length scale for length rows, else 1
    row_label: list[str]          # (nc,) "pin: at-point x"
    joint_names: list[str]
    joint_marker_i: list[str]
    joint_marker_j: list[str]
    motion_names: list[str]
    motion_functions: list[Any]
    marker_body: dict[str, int]   # marker -> body index (nb = ground)
    marker_point: dict[str, np.ndarray]  # marker origin in its body frame (ground: world)
    marker_axes: dict[str, np.ndarray]   # (3, 3) marker axes (columns) in body frame (ground: world)
    length_scale: float
    forces: Any = None                    # forces.ForceModel
    fixed_parts: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def nb(self) -> int:
        return len(self.body_part)

    @property
    def kind_index(self) -> dict:
        """The evaluation plan, made once: the rows grouped by primitive kind (at-point,
        dot-2, distance, dot-1, angle) so that constraints.evaluate works on contiguous
        slices, with the per-row data in that order and the permutation back."""
        ix = self.__dict__.get("_kind_index")
        if ix is None:
            k = self.row_kind
            at = (k == DOT2) & ~self.row_a_on_j                     # a fixed world axis
            groups = [at, (k == DOT2) & self.row_a_on_j, k == DIST, k == DOT1, k == ANGLE]
            order = np.concatenate([np.flatnonzero(g) for g in groups]).astype(int)
            ends = np.cumsum([0] + [int(g.sum()) for g in groups])
            inv = np.empty(len(order), dtype=int)
            inv[order] = np.arange(len(order))
            ix = {"order": order, "inv": inv, "identity": bool(np.all(np.diff(order) == 1)),
                  "at": slice(ends[0], ends[1]), "dot2": slice(ends[1], ends[2]),
                  "dist": slice(ends[2], ends[3]), "point": slice(0, ends[3]),
                  "dot1": slice(ends[3], ends[4]), "angle": slice(ends[4], ends[5]),
                  "ba": np.where(self.row_a_on_j, self.row_bj, self.nb)[order]}
            for key in ("bi", "bj", "ui", "uj", "a", "b", "a_on_j", "target"):
                ix[key] = getattr(self, "row_" + key)[order]
            # at-point rows come as x, y, z triples per joint point (JOINT_ROWS' _AT), so
            # evaluate() computes each point once: at_points is each triple's first row
            n_at = int(ends[1])
            tp = np.arange(0, n_at, 3)
            same = all(np.array_equal(ix[key][tp + k], ix[key][tp]) for k in (1, 2)
                       for key in ("bi", "bj", "ui", "uj"))
            axes = np.tile(np.eye(3), (n_at // 3, 1))
            if n_at % 3 or not same or not np.array_equal(ix["a"][:n_at], axes):
                raise AssertionError("at-point rows must come as x, y, z triples per joint")
            ix["at_points"] = tp
            self.__dict__["_kind_index"] = ix
        return ix

    @property
    def nc(self) -> int:
        return len(self.row_kind)


class Mechanism:
    """A mechanism described by named parts, markers, joints and motions (SI units).

    >>> m = Mechanism()
    >>> m.add_part("ground", fixed=True)
    >>> m.add_part("crank", mass=2.0, inertia=(0.01, 0.01, 0.02))
    >>> m.add_marker("O", part="ground"); m.add_marker("A", part="crank")
    >>> m.add_joint("pin", "revolute", "A", "O")
    >>> m.add_motion("drive", joint="pin", expression="2*pi*t")
    >>> m.dof
    0
    """

    def __init__(self, gravity: Any = (0.0, 0.0, -9.81)) -> None:
        self.gravity = _vector(gravity, 3, "gravity")
        self.parts: dict[str, Part] = {}
        self.markers: dict[str, Marker] = {}
        self.joints: dict[str, Joint] = {}
        self.motions: dict[str, Motion] = {}
        self.springs: dict[str, Any] = {}            # forces.SpringDamper
        self.torsion_springs: dict[str, Any] = {}    # forces.TorsionSpring
        self.loads: dict[str, Any] = {}              # forces.Load

    # -- building
    def _new_name(self, name: Any, what: str) -> str:
        name = _check_name(name, what)
        for table, kind in ((self.parts, "part"), (self.markers, "marker"),
                            (self.joints, "joint"), (self.motions, "motion"),
                            (self.springs, "spring-damper"), (self.torsion_springs, "torsion spring"),
                            (self.loads, "force")):
            if name in table:
                raise MechanismError(f"{what} name {name!r} is already used by a {kind}")
        return name

    def add_part(self, name: str, fixed: bool = False, mass: float = 1.0, inertia: Any = None,
                 center_of_mass: Any = (0.0, 0.0, 0.0), position: Any = (0.0, 0.0, 0.0),
                 orientation: Any = (1.0, 0.0, 0.0, 0.0), velocity: Any = (0.0, 0.0, 0.0),
                 angular_velocity: Any = (0.0, 0.0, 0.0)) -> None:
        """Add a rigid part.  Inertia is about the centre of mass in part axes (kg m^2),
        (Ixx, Iyy, Izz) or 3x3; default: a solid 0.1 m sphere of the part's mass.  Velocity
        is the part-frame origin's, angular velocity in world axes."""
        name = self._new_name(name, "part")
        what = f"part {name!r}"
        m = number(mass, f"{what}: mass")
        if not fixed and m <= 0.0:
            raise MechanismError(f"{what}: mass must be positive, got {m}")
        self.parts[name] = Part(
            name, bool(fixed), m,
            _inertia(inertia, m, f"{what}: inertia") if not fixed else np.eye(3),
            _vector(center_of_mass, 3, f"{what}: center_of_mass"),
            _vector(position, 3, f"{what}: position"),
            _quaternion(orientation, f"{what}: orientation"),
            _vector(velocity, 3, f"{what}: velocity"),
            _vector(angular_velocity, 3, f"{what}: angular_velocity"))

    def add_marker(self, name: str, part: str, position: Any = (0.0, 0.0, 0.0),
                   orientation: Any = (1.0, 0.0, 0.0, 0.0)) -> None:
        """Add a marker frame fixed to ``part``; position and orientation in the part frame."""
        name = self._new_name(name, "marker")
        if part not in self.parts:
            raise MechanismError(f"marker {name!r}: unknown part {part!r}")
        self.markers[name] = Marker(name, part, _vector(position, 3, f"marker {name!r}: position"),
                                    _quaternion(orientation, f"marker {name!r}: orientation"))

    def add_joint(self, name: str, kind: str, marker_i: str, marker_j: str,
                  length: float | None = None) -> None:
        """Join marker I to marker J.  Kinds: fixed, revolute, prismatic, cylindrical,
        spherical, universal, planar, in-line, in-plane, parallel-axes, perpendicular,
        distance (``length`` in m; default the markers' present distance).  The marker z
        axes are the joint axis."""
        name = self._new_name(name, "joint")
        k = canonical_kind(kind)
        if k not in JOINT_ROWS:
            raise MechanismError(f"joint {name!r}: unknown kind {kind!r} "
                                 f"(known: {', '.join(JOINT_ROWS)})")
        for label, mk in (("marker I", marker_i), ("marker J", marker_j)):
            if mk not in self.markers:
                raise MechanismError(f"joint {name!r}: {label} {mk!r} is not a marker")
        pi, pj = self.markers[marker_i].part, self.markers[marker_j].part
        if pi == pj:
            raise MechanismError(f"joint {name!r}: markers {marker_i!r} and {marker_j!r} are both "
                                 f"on part {pi!r}; a joint must connect two different parts")
        if self.parts[pi].fixed and self.parts[pj].fixed:
            raise MechanismError(f"joint {name!r}: parts {pi!r} and {pj!r} are both fixed")
        if length is not None:
            if k != "distance":
                raise MechanismError(f"joint {name!r}: length applies to distance joints only")
            length = float(length)
            if not (math.isfinite(length) and length > 0.0):
                raise MechanismError(f"joint {name!r}: length must be positive and finite")
        self.joints[name] = Joint(name, k, marker_i, marker_j, length)

    def add_motion(self, name: str, joint: str, expression: Any, coordinate: str | None = None,
                   derivatives: Any = None) -> None:
        """Drive a joint coordinate: the angle (rad) of x_I from x_J about z_J, or the slide
        (m) of I's origin from J's along z_J.  ``expression``: a number, a string of ``t``
        (parsed safely, see ``expressions.py``) or a callable f(t)."""
        from .expressions import ExpressionError, time_function
        name = self._new_name(name, "motion")
        if joint not in self.joints:
            raise MechanismError(f"motion {name!r}: unknown joint {joint!r}")
        kind = self.joints[joint].kind
        allowed = JOINT_COORDINATES.get(kind, ())
        if not allowed:
            raise MechanismError(f"motion {name!r}: a {kind} joint ({joint!r}) has no coordinate to "
                                 "drive (motions drive revolute, prismatic and cylindrical joints)")
        coord = allowed[0] if coordinate is None else str(coordinate)
        if coord not in allowed:
            raise MechanismError(f"motion {name!r}: joint {joint!r} is {kind}; its coordinates are "
                                 f"{', '.join(allowed)}, not {coord!r}")
        for other in self.motions.values():
            if other.joint == joint and other.coordinate == coord:
                raise MechanismError(f"motion {name!r}: the {coord} of joint {joint!r} is already "
                                     f"driven by motion {other.name!r}")
        try:
            fn = time_function(expression, name=f"motion {name!r}", derivatives=derivatives)
            fn.derivatives(0.0)
        except ExpressionError as exc:
            raise MechanismError(str(exc)) from None
        self.motions[name] = Motion(name, joint, coord, fn, expression)

    # -- force elements (forces.py has the conventions)
    def add_spring_damper(self, name: str, marker_i: str, marker_j: str, stiffness: float = 0.0,
                          damping: float = 0.0, free_length: float | None = None,
                          preload: float = 0.0, friction: float = 0.0, actuator: Any = None) -> None:
        """Translational spring-damper-actuator between two markers' origins.  Tension
        k (l - L0) + c dl/dt + preload + friction + actuator(t, length, speed) pulls them
        together (N, m, s); free_length defaults to the present distance."""
        from .forces import make_spring_damper
        name = self._new_name(name, "spring-damper")
        for mk in (marker_i, marker_j):
            if mk not in self.markers:
                raise MechanismError(f"spring-damper {name!r}: unknown marker {mk!r}")
        if self.markers[marker_i].part == self.markers[marker_j].part:
            raise MechanismError(f"spring-damper {name!r}: both markers are on part "
                                 f"{self.markers[marker_i].part!r}")
        self.springs[name] = make_spring_damper(name, marker_i, marker_j, stiffness, damping,
                                                free_length, preload, friction, actuator)

    def add_torsion_spring(self, name: str, joint: str, stiffness: float = 0.0, damping: float = 0.0,
                           free_angle: float = 0.0, preload: float = 0.0, friction: float = 0.0,
                           actuator: Any = None) -> None:
        """Rotational spring-damper-actuator on a revolute or cylindrical joint's angle:
        torque k (theta - free_angle) + c dtheta/dt + preload + friction + actuator(t, angle,
        speed) resists the angle (N m, rad)."""
        from .forces import make_torsion_spring
        name = self._new_name(name, "torsion spring")
        if joint not in self.joints:
            raise MechanismError(f"torsion spring {name!r}: unknown joint {joint!r}")
        if "angle" not in JOINT_COORDINATES.get(self.joints[joint].kind, ()):
            raise MechanismError(f"torsion spring {name!r}: joint {joint!r} is "
                                 f"{self.joints[joint].kind}; it needs a revolute or cylindrical joint")
        self.torsion_springs[name] = make_torsion_spring(name, joint, stiffness, damping, free_angle,
                                                         preload, friction, actuator)

    def add_force(self, name: str, marker: str, force: Any = (0.0, 0.0, 0.0),
                  torque: Any = (0.0, 0.0, 0.0), frame: str = "world") -> None:
        """Force (N) at a marker's origin and torque (N m) on its part; each component a
        number, an expression of t or a callable; axes of the world or of the marker."""
        from .forces import make_load
        name = self._new_name(name, "force")
        if marker not in self.markers:
            raise MechanismError(f"force {name!r}: unknown marker {marker!r}")
        self.loads[name] = make_load(name, marker, force, torque, frame)

    # -- placement
    def pose(self, part: str) -> tuple[np.ndarray, np.ndarray]:
        """Present placement of a part: (position (3,), orientation (4,) w x y z) in world."""
        p = self._part(part)
        return p.position.copy(), p.orientation.copy()

    def _part(self, name: str) -> Part:
        if name not in self.parts:
            raise MechanismError(f"unknown part {name!r}")
        return self.parts[name]

    # -- analyses (kinematics.py does the work)
    @property
    def dof(self) -> int:
        """Degrees of freedom by rank at the assembled position, motions not counted."""
        return self.check().dof

    def check(self):
        """Diagnose without moving anything: DOF, redundant equations by joint, problems."""
        from .kinematics import check
        return check(self)

    def assemble(self, time: float = 0.0) -> None:
        """Move the parts the least so that every joint and motion (at ``time``) holds."""
        from .kinematics import assemble_mechanism
        assemble_mechanism(self, time)

    def statics(self, time: float = 0.0, update: bool = False):
        """Static equilibrium under gravity, springs and loads (motions held at ``time``):
        a one-frame Result with the reactions there; ``update=True`` moves the parts."""
        from .statics import statics
        return statics(self, time, update)

    def solve(self, duration: float, fps: float = 24.0, analysis: str = "auto",
              tolerance: float = 1e-6, method: str = "auto", progress: Any = None,
              **options: Any):
        """Assemble, then compute frames k/fps for k = 0..round(duration*fps); returns a
        Result.  analysis: "auto" (kinematic when motions drive every DOF, else dynamic),
        "kinematic" or "dynamic"; tolerance: the dynamic integrator's accuracy goal; method:
        "auto", "explicit" or "implicit" (stiff springs and dampers; see dynamics.py);
        progress: optional callable(frames done, frames in all) called after each frame,
        returning False to cancel (SolverCancelled, with the frames done in .result)."""
        from .kinematics import solve
        return solve(self, duration, fps, analysis, tolerance, method, progress, **options)


def compile_model(mech: Mechanism) -> Model:
    """Arrays of bodies and constraint rows for the mechanism's present placement."""
    if not mech.parts:
        raise MechanismError("the mechanism has no parts")
    moving = [p for p in mech.parts.values() if not p.fixed]
    index = {p.name: i for i, p in enumerate(moving)}
    nb = len(moving)
    rot = {p.name: quat_to_matrix(p.orientation) for p in mech.parts.values()}

    # markers: body-frame (COM-centred) point and axes; ground markers in world
    marker_body, marker_point, marker_axes = {}, {}, {}
    extent = 0.0
    for mk in mech.markers.values():
        part = mech.parts[mk.part]
        C = quat_to_matrix(mk.orientation)
        if part.fixed:
            marker_body[mk.name] = nb
            marker_point[mk.name] = part.position + rot[part.name] @ mk.position
            marker_axes[mk.name] = rot[part.name] @ C
        else:
            marker_body[mk.name] = index[part.name]
            marker_point[mk.name] = mk.position - part.center_of_mass
            marker_axes[mk.name] = C
            extent = max(extent, float(np.linalg.norm(marker_point[mk.name])))
    # the mechanism's size, independent of where it sits in the world: marker arms, radii of
    # gyration, and the spread of the parts and ground points
    for p in moving:
        extent = max(extent, float(np.sqrt(np.trace(p.inertia) / (2.0 * p.mass))))
    points = [p.position + rot[p.name] @ p.center_of_mass for p in moving]
    points += [marker_point[m] for m in marker_point if marker_body[m] == nb]
    if len(points) > 1:
        extent = max(extent, float(np.max(np.ptp(np.array(points), axis=0))))
    length_scale = max(extent, 1e-3)
    body_length = np.full(nb, 0.0)
    for mk in mech.markers.values():
        b = marker_body[mk.name]
        if b < nb:
            body_length[b] = max(body_length[b], float(np.linalg.norm(marker_point[mk.name])))
    body_length = np.where(body_length > 1e-6 * length_scale, body_length, length_scale)

    rows: list[dict] = []
    for jn, (name, jt) in enumerate(mech.joints.items()):
        mi, mj = jt.marker_i, jt.marker_j
        for prim in JOINT_ROWS[jt.kind]:
            row = dict(kind=DOT1, bi=marker_body[mi], bj=marker_body[mj], ui=np.zeros(3),
                       uj=np.zeros(3), a=np.zeros(3), a_on_j=True, b=np.zeros(3), target=0.0,
                       joint=jn, motion=-1, label=f"{name}: {_label(prim)}")
            Ci, Cj = marker_axes[mi], marker_axes[mj]
            if prim[0] == "dot1":
                row.update(kind=DOT1, ui=Ci[:, prim[1]], a=Cj[:, prim[2]])
            elif prim[0] in ("dot2", "at"):
                row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj])
                if prim[0] == "dot2":
                    row.update(a=Cj[:, prim[1]])
                else:
                    row.update(a=np.eye(3)[prim[1]], a_on_j=False)
            else:
                L = jt.length
                if L is None:
                    L = float(np.linalg.norm(_marker_world(mech, mi) - _marker_world(mech, mj)))
                if L <= 1e-9 * length_scale:
                    raise MechanismError(f"joint {name!r}: distance joint with zero length "
                                         "(use a spherical joint)")
                row.update(kind=DIST, ui=marker_point[mi], uj=marker_point[mj], target=L)
            rows.append(row)
    for mn, (name, mo) in enumerate(mech.motions.items()):
        jt = mech.joints[mo.joint]
        mi, mj = jt.marker_i, jt.marker_j
        Ci, Cj = marker_axes[mi], marker_axes[mj]
        row = dict(bi=marker_body[mi], bj=marker_body[mj], a_on_j=True, target=0.0,
                   joint=-1, motion=mn, label=f"{name}: {mo.coordinate} of {mo.joint}")
        if mo.coordinate == "angle":
            row.update(kind=ANGLE, ui=Ci[:, 0], uj=np.zeros(3), a=Cj[:, 0], b=Cj[:, 1])
        else:
            row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2],
                       b=np.zeros(3))
        rows.append(row)

    def col(key: str, dtype: Any = float) -> np.ndarray:
        if not rows:
            return np.zeros((0, 3) if key in ("ui", "uj", "a", "b") else (0,), dtype=dtype)
        return np.array([r[key] for r in rows], dtype=dtype)

    kinds = col("kind", int)
    row_length = np.where((kinds == DOT2) | (kinds == DIST), length_scale, 1.0)
    from .forces import compile_forces
    fixed = {p.name: (p.position.copy(), p.orientation.copy()) for p in mech.parts.values() if p.fixed}
    return Model(
        body_part=[p.name for p in moving],
        body_mass=np.array([p.mass for p in moving], dtype=float),
        body_inertia=np.array([p.inertia for p in moving], dtype=float).reshape(nb, 3, 3),
        body_com=np.array([p.center_of_mass for p in moving], dtype=float).reshape(nb, 3),
        body_length=body_length, gravity=mech.gravity.copy(),
        row_kind=kinds, row_bi=col("bi", int), row_bj=col("bj", int), row_ui=col("ui"),
        row_uj=col("uj"), row_a=col("a"), row_a_on_j=col("a_on_j", bool), row_b=col("b"),
        row_target=col("target"), row_joint=col("joint", int), row_motion=col("motion", int),
        row_length=row_length, row_label=[r["label"] for r in rows],
        joint_names=list(mech.joints), joint_marker_i=[j.marker_i for j in mech.joints.values()],
        joint_marker_j=[j.marker_j for j in mech.joints.values()],
        motion_names=list(mech.motions), motion_functions=[m.function for m in mech.motions.values()],
        marker_body=marker_body, marker_point=marker_point, marker_axes=marker_axes,
        length_scale=length_scale, fixed_parts=fixed,
        forces=compile_forces(mech, marker_body, marker_point, marker_axes,
                              lambda mk: _marker_world(mech, mk)))


def _marker_world(mech: Mechanism, marker: str) -> np.ndarray:
    mk = mech.markers[marker]
    part = mech.parts[mk.part]
    return part.position + quat_to_matrix(part.orientation) @ mk.position


def body_state(model: Model, mech: Mechanism) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(r (nb,3) COM in world, p (nb,4), v (nb,3) COM velocity, w (nb,3)) from the parts' placement."""
    r, p, v, w = (np.zeros((model.nb, 3)), np.zeros((model.nb, 4)),
                  np.zeros((model.nb, 3)), np.zeros((model.nb, 3)))
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        arm = quat_to_matrix(part.orientation) @ part.center_of_mass
        r[b] = part.position + arm
        p[b] = part.orientation
        w[b] = part.angular_velocity
        v[b] = part.velocity + np.cross(part.angular_velocity, arm)
    return r, p, v, w


def store_pose(model: Model, mech: Mechanism, r: np.ndarray, p: np.ndarray) -> None:
    """Write body states (COM positions r, quaternions p) back as part-frame placements."""
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        q = p[b] / np.linalg.norm(p[b])
        if q[0] < 0:
            q = -q
        part.orientation = q
        part.position = r[b] - quat_to_matrix(q) @ part.center_of_mass
