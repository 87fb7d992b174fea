"""The builder: a mechanism's parts, markers, joints, motions and force elements by name,
validated as they are added (the user's vocabulary; no analysis code here)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.errors import ExpressionError, MechanismError, known_names, unknown
from .contacts import make_contact
from .couplers import make_coupler, make_gear, make_rack_pinion, make_screw
from .curve_joints import as_curve, check_planar
from .friction import make_friction
from .limits import make_limit
from .expressions import named_constants
from .items import (GeneralMotion, Joint, Marker, Motion, Part, make_bushing, make_load,
                    make_spring_damper, make_torsion_spring, make_vector_force,
                    unused_constants)
from .joints import CURVE_JOINT_ROWS, EULER_AXES, JOINT_COORDINATES, JOINT_ROWS, canonical_kind
from .timefunctions import time_function
from .validate import check_name, inertia as inertia_tensor, number, quaternion, vector


class Builder:
    """A mechanism described by named parts, markers, joints, motions and force elements
    (SI units): validation and the user's vocabulary only.  ``solver.Mechanism`` adds the
    analyses; ``model.compile.compile_model`` turns a Builder into arrays."""

    def __init__(self, gravity: Any = (0.0, 0.0, -9.81), input_precision: float = 0.0) -> None:
        """``input_precision``: the relative rounding of the positions and orientations given
        (0: exact; 2**-24 for numbers read from float32, as Blender stores locations and
        matrices): redundant equations that disagree by no more than that rounding can
        leave are not reported as imperfect geometry."""
        self.gravity = vector(gravity, 3, "gravity")
        self.input_precision = number(input_precision, "input_precision")
        if not 0.0 <= self.input_precision < 1e-3:
            raise MechanismError(f"input_precision is a relative rounding (2**-24 for float32), "
                                 f"below 1e-3; got {self.input_precision:g}")
        self.parts: dict[str, Part] = {}
        self.markers: dict[str, Marker] = {}
        self.joints: dict[str, Joint] = {}
        self.motions: dict[str, Motion] = {}
        self.general_motions: dict[str, Any] = {}    # items.GeneralMotion
        self.springs: dict[str, Any] = {}            # items.SpringDamper
        self.torsion_springs: dict[str, Any] = {}    # items.TorsionSpring
        self.loads: dict[str, Any] = {}              # items.Load
        self.bushings: dict[str, Any] = {}           # items.Bushing
        self.vector_forces: dict[str, Any] = {}      # items.VectorForce
        self.couplers: dict[str, Any] = {}           # couplers.Coupler
        self.limits: dict[str, Any] = {}             # limits.Limit
        self.frictions: dict[str, Any] = {}          # friction.Friction
        self.contacts: dict[str, Any] = {}           # contacts.Contact

    # -- building
    def _new_name(self, name: Any, what: str) -> str:
        name = check_name(name, what)
        for table, kind in ((self.parts, "part"), (self.markers, "marker"),
                            (self.joints, "joint"), (self.motions, "motion"),
                            (self.general_motions, "general motion"),
                            (self.springs, "spring-damper"), (self.torsion_springs, "torsion spring"),
                            (self.loads, "force"), (self.bushings, "bushing"),
                            (self.vector_forces, "vector force"),
                            (self.couplers, "coupler"),
                            (self.limits, "limit"), (self.frictions, "friction"),
                            (self.contacts, "contact")):
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
            inertia_tensor(inertia, m, f"{what}: inertia") if not fixed else np.eye(3),
            vector(center_of_mass, 3, f"{what}: center_of_mass"),
            vector(position, 3, f"{what}: position"),
            quaternion(orientation, f"{what}: orientation"),
            vector(velocity, 3, f"{what}: velocity"),
            vector(angular_velocity, 3, f"{what}: angular_velocity"))

    def add_marker(self, name: str, part: str, position: Any = (0.0, 0.0, 0.0),
                   orientation: Any = (1.0, 0.0, 0.0, 0.0)) -> None:
        """Add a marker frame fixed to ``part``; position and orientation in the part frame."""
        name = self._new_name(name, "marker")
        if part not in self.parts:
            raise MechanismError(f"marker {name!r}: {unknown('part', part, self.parts)}")
        self.markers[name] = Marker(name, part, vector(position, 3, f"marker {name!r}: position"),
                                    quaternion(orientation, f"marker {name!r}: orientation"))

    def add_joint(self, name: str, kind: str, marker_i: str, marker_j: str,
                  length: float | None = None) -> None:
        """Join marker I to marker J.  Kinds: fixed, revolute, prismatic, cylindrical,
        spherical, universal, planar, in-line, in-plane, parallel-axes, perpendicular,
        distance (``length`` in m; default the markers' present distance).  The marker z
        axes are the joint axis."""
        name = self._new_name(name, "joint")
        k = canonical_kind(kind)
        if k in CURVE_JOINT_ROWS:
            raise MechanismError(f"joint {name!r}: a {k} joint needs its curves: use "
                                 + ("add_point_on_curve" if k == "point-on-curve" else "add_cam"))
        if k not in JOINT_ROWS:
            raise MechanismError(f"joint {name!r}: unknown kind {kind!r} "
                                 f"(known: {', '.join(JOINT_ROWS)})")
        self._joint_markers(name, marker_i, marker_j)
        if length is not None:
            if k != "distance":
                raise MechanismError(f"joint {name!r}: length applies to distance joints only")
            length = number(length, f"joint {name!r}: length (m)")
            if length <= 0.0:
                raise MechanismError(f"joint {name!r}: length must be positive, got {length} m")
        self.joints[name] = Joint(name, k, marker_i, marker_j, length)

    def _joint_markers(self, name: str, marker_i: str, marker_j: str) -> None:
        """A joint's two markers exist, on two parts that are not both fixed."""
        for label, mk in (("marker I", marker_i), ("marker J", marker_j)):
            if mk not in self.markers:
                raise MechanismError(f"joint {name!r}: {label} {mk!r} is not a marker "
                                     f"{known_names(self.markers)}")
        pi, pj = self.markers[marker_i].part, self.markers[marker_j].part
        if marker_i == marker_j:
            raise MechanismError(f"joint {name!r}: marker {marker_i!r} is both marker I and "
                                 f"marker J; marker J must be a marker on another part than "
                                 f"{pi!r}")
        if pi == pj:
            raise MechanismError(f"joint {name!r}: markers {marker_i!r} and {marker_j!r} are both "
                                 f"on part {pi!r}; a joint must connect two different parts")
        if self.parts[pi].fixed and self.parts[pj].fixed:
            raise MechanismError(f"joint {name!r}: parts {pi!r} and {pj!r} are both fixed")

    def add_motion(self, name: str, joint: str, expression: Any, coordinate: str | None = None,
                   derivatives: Any = None, constants: dict | None = None,
                   breakpoints: Any = None) -> None:
        """Drive a joint coordinate: the angle (rad) of x_I from x_J about z_J, or the slide
        (m) of I's origin from J's along z_J.  ``expression``: a number, a string of ``t``
        (parsed safely, see ``expressions.py``), a callable f(t) or a table (times, values)
        followed through its not-a-knot C2 cubic spline (base/time_table.py; refused,
        naming the motion, unless its times increase strictly and all are finite).  ``constants``: named
        numbers the string uses ({"omega": 6.0} for "omega*t"; a design study varies them
        as "<motion>.omega").  ``breakpoints``: times (s) where a callable's rate or
        acceleration jumps (a keyed curve's keys): a dynamic run's steps end on them, as on
        the kinks an expression's own parse finds."""
        name = self._new_name(name, "motion")
        if joint not in self.joints:
            raise MechanismError(f"motion {name!r}: {unknown('joint', joint, self.joints)}")
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
            consts = named_constants(constants, ("t",), f"motion {name!r}: ")
            fn = time_function(expression, name=f"motion {name!r}", derivatives=derivatives,
                               constants=consts, breakpoints=breakpoints)
            fn.derivatives(fn.start)
        except ExpressionError as exc:
            raise MechanismError(str(exc), time=exc.time) from None
        unused_constants(consts, [fn], f"motion {name!r}")
        self.motions[name] = Motion(name, joint, coord, fn, expression, consts, breakpoints)

    def add_general_motion(self, name: str, marker_i: str, marker_j: str, x: Any = None,
                           y: Any = None, z: Any = None, constants: dict | None = None,
                           b1: Any = None, b2: Any = None, b3: Any = None,
                           actuators: Any = ()) -> None:
        """Prescribe marker I's pose relative to marker J (Adams MOTION X, Y, Z, B1, B2, B3
        between two markers): ``x``, ``y``, ``z`` marker I's origin in J's axes (m);
        ``b1``, ``b2``, ``b3`` I's orientation as body-fixed 1-2-3 angles (rad): C_J^T C_I
        = Rx(b1) Ry(b2) Rz(b3), turn about J's x by b1, then about the new y by b2, then
        about the new z by b3.  Each given (a number, a text of ``t``, a callable f(t) or a
        table (times, values), as add_motion's) is
        held to its function; None leaves it free.  The parts between I and J move as their
        joints allow (closed loops solve themselves); ``Result.general_motion(name)`` is the
        force the motion applies to I's part along J's axes and
        ``Result.general_motion_torque(name)`` the torque (the effort of an actuator that
        would make it).  b2 = +-pi/2 is singular (b1 and b3 turn about one axis there): a
        run refuses it, naming the motion and time.  ``constants`` as add_motion's.

        ``actuators``: the joints whose coordinates make the motion's freedoms (hydraulic
        cylinders, motors), each a joint name (its first coordinate: a revolute's angle, a
        prismatic's slide, a cylindrical's angle) or a (joint, "angle" | "slide") pair, as
        many as the freedoms the motion takes.  The motion's effort is then carried by them:
        ``Result.actuator_efforts(name)`` gives each one's force or torque along its
        coordinate (signed as ``Result.effort``), found by virtual work, and the motion
        itself applies nothing (``general_motion`` and ``general_motion_torque`` are zero;
        the joints' reactions are those of the actuated mechanism)."""
        name = self._new_name(name, "general motion")
        what = f"general motion {name!r}"
        self._between_parts(what, marker_i, marker_j)
        given = [(a, spec) for a, spec in zip(("x", "y", "z") + EULER_AXES, (x, y, z, b1, b2, b3))
                 if spec is not None]
        if not given:
            raise MechanismError(f"{what}: give at least one of x, y, z, b1, b2, b3 "
                                 "(the others stay free)")
        try:
            consts = named_constants(constants, ("t",), f"{what}: ")
            fns = []
            for a, spec in given:
                fn = time_function(spec, name=f"{what}: {a}", constants=consts)
                fn.derivatives(fn.start)
                fns.append(fn)
            unused_constants(consts, fns, what)
        except ExpressionError as exc:
            raise MechanismError(str(exc), time=exc.time) from None
        self.general_motions[name] = GeneralMotion(name, marker_i, marker_j,
                                                   tuple(a for a, _ in given), tuple(fns),
                                                   tuple(s for _, s in given), consts,
                                                   tuple(actuators),
                                                   self._actuated(what, actuators))

    def _actuated(self, what: str, actuators: Any) -> tuple[tuple[str, str, str], ...]:
        """(joint, coordinate, label) of each actuator of a general motion (its docstring)."""
        if isinstance(actuators, str):
            actuators = (actuators,)
        out: list[tuple[str, str, str]] = []
        for spec in actuators:
            if isinstance(spec, str):
                joint, coord = spec, None
            elif isinstance(spec, (tuple, list)) and len(spec) == 2:
                joint, coord = str(spec[0]), str(spec[1])
            else:
                raise MechanismError(f"{what}: actuator {spec!r} is neither a joint name nor a "
                                     "(joint, coordinate) pair")
            if joint not in self.joints:
                raise MechanismError(f"{what}: actuator {joint!r} is not a joint")
            allowed = JOINT_COORDINATES.get(self.joints[joint].kind, ())
            if not allowed or (coord is not None and coord not in allowed):
                raise MechanismError(f"{what}: actuator {joint!r} is a {self.joints[joint].kind} "
                                     f"joint; an actuator is a revolute's angle, a prismatic's "
                                     f"slide or a cylindrical's angle or slide")
            label = joint if coord is None else f"{joint}.{coord}"
            if label in [a[2] for a in out]:
                raise MechanismError(f"{what}: actuator {label!r} is given twice")
            out.append((joint, coord or allowed[0], label))
        return tuple(out)

    # -- force elements (kernels/forces.py has the conventions)
    def add_spring_damper(self, name: str, marker_i: str, marker_j: str, stiffness: float = 0.0,
                          damping: float = 0.0, free_length: float | None = None,
                          preload: float = 0.0, friction: float = 0.0, actuator: Any = None,
                          constants: dict | None = None) -> None:
        """Translational spring-damper-actuator between two markers' origins.  Tension
        k (l - L0) + c dl/dt + preload + friction + actuator(t, length, speed) pulls them
        together (N, m, s); free_length defaults to the markers' distance as built (before
        any assembly).  ``constants``: named numbers a text actuator uses (as add_motion's)."""
        name = self._new_name(name, "spring-damper")
        self._between_parts(f"spring-damper {name!r}", marker_i, marker_j)
        self.springs[name] = make_spring_damper(name, marker_i, marker_j, stiffness, damping,
                                                free_length, preload, friction, actuator, constants)

    def add_torsion_spring(self, name: str, joint: str, stiffness: float = 0.0, damping: float = 0.0,
                           free_angle: float = 0.0, preload: float = 0.0, friction: float = 0.0,
                           actuator: Any = None, constants: dict | None = None) -> None:
        """Rotational spring-damper-actuator on a revolute or cylindrical joint's angle:
        torque k (theta - free_angle) + c dtheta/dt + preload + friction + actuator(t, angle,
        speed) resists the angle (N m, rad); ``constants`` as add_spring_damper's."""
        name = self._new_name(name, "torsion spring")
        if joint not in self.joints:
            raise MechanismError(f"torsion spring {name!r}: "
                                 f"{unknown('joint', joint, self.joints)}")
        if "angle" not in JOINT_COORDINATES.get(self.joints[joint].kind, ()):
            raise MechanismError(f"torsion spring {name!r}: joint {joint!r} is "
                                 f"{self.joints[joint].kind}; it needs a revolute or cylindrical joint")
        self.torsion_springs[name] = make_torsion_spring(name, joint, stiffness, damping, free_angle,
                                                         preload, friction, actuator, constants)

    def add_bushing(self, name: str, marker_i: str, marker_j: str, stiffness: Any = 0.0,
                    damping: Any = 0.0, preload: Any = 0.0) -> None:
        """Six-component linear spring-damper (Adams BUSHING) holding marker I to marker J:
        on I, force -K_t d - C_t d_dot + F_0 and torque -K_r theta - C_r w_rel + T_0 in
        marker J's axes, d the displacement of I's origin from J's and theta the rotation of
        I's axes from J's (model/bushings.py).  ``stiffness`` (N/m, N/m, N/m, N m/rad x3),
        ``damping`` (N s/m x3, N m s/rad x3), ``preload`` (N x3, N m x3): six numbers along
        and about J's x, y, z, or one for all six.  The load is zero (but for the preload)
        when the two markers coincide."""
        name = self._new_name(name, "bushing")
        self._between_parts(f"bushing {name!r}", marker_i, marker_j)
        self.bushings[name] = make_bushing(name, marker_i, marker_j, stiffness, damping, preload)

    def _between_parts(self, what: str, marker_i: str, marker_j: str) -> None:
        """A force element's two markers exist and lie on two parts (else MechanismError)."""
        for mk in (marker_i, marker_j):
            if mk not in self.markers:
                raise MechanismError(f"{what}: {unknown('marker', mk, self.markers)}")
        part = self.markers[marker_i].part
        if marker_i == marker_j:
            raise MechanismError(f"{what}: marker {marker_i!r} is both of its ends; the other "
                                 f"end must be a marker on another part than {part!r}")
        if part == self.markers[marker_j].part:
            raise MechanismError(f"{what}: both markers are on part {part!r}; a force element "
                                 "acts between two parts")

    def add_vector_force(self, name: str, marker_i: str, marker_j: str,
                         force: Any = (0.0, 0.0, 0.0), torque: Any = (0.0, 0.0, 0.0),
                         frame: str | None = None, constants: dict | None = None) -> None:
        """Force (N) on marker I's part at marker I's origin and torque (N m) on it, the
        opposite on marker J's part at the same point (Adams GFORCE): three components each
        along ``frame``'s axes (a marker's name; None: marker J's; "world"), each a number or
        an expression of t and the mechanism's state: DX, DY, DZ, DM, VX, VY, VZ, VR, WX,
        WY, WZ, WM, AX, AY, AZ of markers named in quotes (model/vector_forces.py), e.g.
        ``force=("-2000*DX('I', 'J') - 30*VX('I', 'J')", 0, 0)``.  ``constants``: named
        numbers the expressions use."""
        name = self._new_name(name, "vector force")
        what = f"vector force {name!r}"
        self._between_parts(what, marker_i, marker_j)
        frame = marker_j if frame is None else frame
        if frame != "world" and frame not in self.markers:
            raise MechanismError(f"{what}: frame must be a marker's name or 'world', got {frame!r}")
        vf = make_vector_force(name, marker_i, marker_j, force, torque, frame, constants)
        for c, fn in zip(("force x", "force y", "force z", "torque x", "torque y", "torque z"),
                         vf.components):
            for measure, names in getattr(fn, "measures", ()):
                for mk in names:
                    if mk not in self.markers:
                        raise MechanismError(f"{what}: {c}: {measure} names an unknown marker "
                                             f"{mk!r}")
        self.vector_forces[name] = vf

    def add_force(self, name: str, marker: str, force: Any = (0.0, 0.0, 0.0),
                  torque: Any = (0.0, 0.0, 0.0), frame: str = "world",
                  constants: dict | None = None) -> None:
        """Force (N) at a marker's origin and torque (N m) on its part; each component a
        number, an expression of t or a callable; axes of the world or of the marker.
        ``constants``: named numbers the expressions use (as add_motion's)."""
        name = self._new_name(name, "force")
        if marker not in self.markers:
            raise MechanismError(f"force {name!r}: {unknown('marker', marker, self.markers)}")
        part = self.markers[marker].part
        if self.parts[part].fixed:          # (it would move nothing, without a word)
            raise MechanismError(f"force {name!r}: marker {marker!r} is on the fixed part "
                                 f"{part!r}, which a force cannot move; put it on a moving "
                                 "part's marker (a force between two parts: add_vector_force; "
                                 "in Blender, the Force's Reaction marker)")
        self.loads[name] = make_load(name, marker, force, torque, frame, constants)

    def add_limit(self, name: str, joint: str, lower: float | None = None, upper: float | None = None,
                  coordinate: str | None = None, restitution: float = 0.5,
                  rest_speed: float | None = None, stiffness: float | None = None,
                  exponent: float = 1.0, damping: float = 0.0,
                  penetration: float | None = None) -> None:
        """Stops on a joint's angle (rad, on its turns: a range may be wider than a turn) or
        slide (m): a rigid stop with coefficient of restitution e, or with ``stiffness`` a
        compliant one (Adams IMPACT: stiffness, force exponent, maximum damping reached at
        the penetration depth; vocabulary/limits.py).  Either bound may be None."""
        name = self._new_name(name, "limit")
        self.limits[name] = make_limit(name, self.joints, joint, lower, upper, coordinate,
                                       restitution, rest_speed, stiffness, exponent, damping,
                                       penetration)

    def add_friction(self, name: str, joint: str, static: float, dynamic: float | None = None,
                     coordinate: str | None = None, transition_speed: float | None = None,
                     viscous: float = 0.0, preload: float = 0.0, radius: float = 0.0,
                     arm: float = 0.0, bearing_length: float = 0.0) -> None:
        """Coulomb friction with sticking on a joint's angle or slide, its load the joint's
        reaction (vocabulary/friction.py): coefficients, transition speed (rad/s or m/s),
        viscous term, preload (N m or N), pin radius, thrust arm, bearing length (m)."""
        name = self._new_name(name, "friction")
        self.frictions[name] = make_friction(name, self.joints, joint, coordinate, static,
                                             static if dynamic is None else dynamic,
                                             transition_speed, viscous, preload, radius, arm,
                                             bearing_length, self.frictions)

    def add_contact(self, name: str, part_a: str, part_b: str, shape_a: Any, shape_b: Any,
                    restitution: float = 0.5, stiffness: float | None = None,
                    exponent: float | None = None, time_constant: float | None = None,
                    young: Any = None, poisson: Any = 0.3, friction: float = 0.0,
                    dynamic_friction: float | None = None, slip_speed: float = 1e-2) -> None:
        """Contact between two parts' shapes (``Shape``, in each part's frame): a compliant
        Hunt-Crossley force with Flores' damping for the restitution e (kernels/contacts.py).
        Stiffness (N/m^n, exponent n, default 1.5), or Hertz's from ``young`` (Pa) and
        ``poisson`` (each one number or a pair (a, b); needs a sphere or capsule side), or
        by default from ``time_constant`` (s, 0.01: a linear spring whose contact lasts
        that long with the parts' reduced mass).  Coulomb friction (``friction`` static,
        ``dynamic_friction``) regularized below ``slip_speed`` (m/s)."""
        name = self._new_name(name, "contact")
        self.contacts[name] = make_contact(name, self.parts, part_a, part_b, shape_a, shape_b,
                                           restitution, stiffness, exponent, time_constant,
                                           young, poisson, friction, dynamic_friction,
                                           slip_speed)

    # -- joints on curves (vocabulary/curve_joints.py has the conventions)
    def add_point_on_curve(self, name: str, marker_i: str, marker_j: str, curve: Any,
                           closed: bool | None = None) -> None:
        """Keep marker I's origin on ``curve`` (a Curve, or points with ``closed``), given in
        marker J's frame (m): a pin in a slot, a roller in a track.  Removes two freedoms."""
        name = self._new_name(name, "joint")
        self._joint_markers(name, marker_i, marker_j)
        c = as_curve(curve, closed, f"joint {name!r}: curve")
        self.joints[name] = Joint(name, "point-on-curve", marker_i, marker_j, None, (c,))

    def add_cam(self, name: str, marker_i: str, curve_i: Any, marker_j: str, curve_j: Any,
                closed_i: bool | None = None, closed_j: bool | None = None) -> None:
        """Keep planar curve I (in marker I's xy plane, on I's part) touching planar curve J
        (in marker J's xy plane) with a common tangent: a cam and its follower.  The
        markers' z axes must stay parallel.  Removes one freedom."""
        name = self._new_name(name, "joint")
        self._joint_markers(name, marker_i, marker_j)
        ci = as_curve(curve_i, closed_i, f"joint {name!r}: curve I")
        cj = as_curve(curve_j, closed_j, f"joint {name!r}: curve J")
        check_planar(ci, f"joint {name!r}: curve I")
        check_planar(cj, f"joint {name!r}: curve J")
        self.joints[name] = Joint(name, "cam", marker_i, marker_j, None, (ci, cj))

    # -- couplers (vocabulary/couplers.py has the relations and signs)
    def add_gear(self, name: str, joint1: str, joint2: str, ratio: float | None = None,
                 teeth: Any = None, radii: Any = None, mesh: str = "external",
                 pressure_angle: float = 20.0, helix_angle: float = 0.0) -> None:
        """Gear the angles of two revolute or cylindrical joints: r_1 theta_1 = -r_2 theta_2
        (external), = +r_2 theta_2 (internal, belt, chain), each angle counted from its
        joint's marker J (a planet counts from its carrier).  One of ``radii`` (pitch radii,
        m: also gives the tooth force), ``teeth`` (z_1, z_2) or ``ratio`` (r_2 / r_1).
        An external or internal mesh whose axes are parallel acts on the gears at the pitch
        point (model/gear_mesh.py: on the line between the joints' marker I origins,
        dividing it as the pitch radii do, half way between them along the axis), so the
        axle joints' reactions carry the tooth force (and, with ``helix_angle`` in degrees,
        positive for a right-handed gear 1, the helical teeth's thrust: revolute axles);
        belts, chains and crossed axes act as torques on the joint angles only."""
        name = self._new_name(name, "gear")
        self.couplers[name] = make_gear(name, self.joints, joint1, joint2, ratio, teeth, radii,
                                        mesh, pressure_angle, helix_angle)

    def add_rack_pinion(self, name: str, pinion: str, rack: str, pitch_radius: float) -> None:
        """Couple a pinion's revolute angle and a rack's prismatic slide: s = r theta (m,
        rad; a negative radius runs the rack the other way).  With the slide across the
        pinion's axis the teeth meet at the pitch point (model/gear_mesh.py: |r| from the
        pinion's axis, on the side where its rim moves with the rack), so the pinion's
        axle carries the rack's force and the rack's guide its moment."""
        name = self._new_name(name, "rack and pinion")
        self.couplers[name] = make_rack_pinion(name, self.joints, pinion, rack, pitch_radius)

    def add_screw(self, name: str, joint: str, pitch: float, slide_joint: str | None = None,
                  hand: str = "right") -> None:
        """A lead screw on a cylindrical joint (or a revolute's angle and ``slide_joint``'s
        slide): advance = pitch (m per turn) x turns, right- or left-handed."""
        name = self._new_name(name, "screw")
        self.couplers[name] = make_screw(name, self.joints, joint, pitch, slide_joint, hand)

    def add_coupler(self, name: str, joints: Any, scales: Any, coordinates: Any = None) -> None:
        """General coupler (Adams COUPLER): sum_i scales_i (q_i - q_i0) = 0 over two or three
        joint coordinates (angles in rad, slides in m; ``coordinates`` picks "angle" or
        "slide" of a cylindrical joint), q_i0 the coordinates in the pose as built."""
        name = self._new_name(name, "coupler")
        self.couplers[name] = make_coupler(name, self.joints, joints, scales, coordinates)

    # -- placement
    def pose(self, part: str) -> tuple[np.ndarray, np.ndarray]:
        """Present placement of a part: (position (3,), orientation (4,) w x y z) in world."""
        p = self._part(part)
        return p.position.copy(), p.orientation.copy()

    def _part(self, name: str) -> Part:
        if name not in self.parts:
            raise unknown("part", name, self.parts)
        return self.parts[name]

    # -- analyses (kinematics.py does the work)
