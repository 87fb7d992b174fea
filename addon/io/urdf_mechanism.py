"""A URDF robot as the solver's Mechanism, without Blender (the add-on's import and any
script share it).

- **Parts**: each link with an ``<inertial>`` is a part whose frame is the link frame
  (mass, centre of mass, inertia turned from the inertial frame into link axes).  A link
  without ``<inertial>`` hanging on a fixed joint is merged into its parent's part (tool
  frames, sensor mounts: URDF's massless links); a fixed joint between two links with mass
  stays a fixed joint (its reaction is then reported).  A massless link on a moving joint
  is an error: the solver's parts need mass.
- **Base**: the root link is the ground (a fixed part); with ``floating_base=True`` it is a
  free part of its own mass instead, or, for a root without ``<inertial>`` (a mobile
  robot's ``base_footprint``), the first link with mass fixed to it carries it.  A ``floating`` joint adds no joint (its child is a
  free part).
- **Joints**: each joint is marker I on the child at the child link's origin and marker J
  on the parent at the joint origin, both with z along the joint axis, so the solver's
  angle or slide is URDF's joint coordinate (zero at the zero configuration, positive by
  the right-hand rule about the axis).  revolute and continuous -> revolute, prismatic ->
  prismatic, fixed -> fixed, planar -> planar (the axis its normal).
- **Limits**: a revolute or prismatic joint's ``<limit lower upper>`` -> rigid stops
  ``"<joint>: limit"`` (the solver's default restitution 0.5; an angle's bounds counted over
  turns, a range may span several).  effort and velocity are ignored.  A revolute or
  prismatic joint without the ``<limit>`` URDF requires is free, with a warning.
- **Damping and friction**: ``<dynamics friction>`` (N m or N, a load-independent Coulomb
  force) is the preload of joint friction ``"<joint>: friction"`` with no coefficient, so
  the joint sticks while the force needed stays below it; ``damping`` is that element's
  viscous term.  Without dry friction, a revolute joint's damping is a torsion damper
  ``"<joint>: damping"`` (a smooth force with no sticking events to locate); a prismatic
  joint's is the friction element's viscous term alone (the solver has no damper along a
  slide other than this).  On a fixed, floating or planar joint they are not applied (a
  warning says so).
- **Names**: parts are named by their links, joints and their markers, stops, friction
  and dampers by the joints ("<joint>: I", "<joint>: limit", ...).  URDF keeps links and
  joints apart, the Mechanism (and Blender) has one namespace: a joint named like a link
  becomes "<joint> (joint)", with a warning; ``UrdfReport.joint_names`` maps each URDF
  joint to its Mechanism joint.
- **Mimic**: ``q = multiplier q_other + offset`` is a coupler ``"<joint>: mimic"``
  (q - q0) - multiplier (q_other - q_other0) = 0 with the robot built where every mimic
  joint is at multiplier q_other + offset (the other joints at zero), so the offset holds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...solver import Mechanism, MechanismError, matrix_to_quat
from .urdf import Joint, Robot, UrdfError, read_urdf

KIND = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
        "fixed": "fixed", "planar": "planar"}


@dataclass(frozen=True)
class UrdfReport:
    """What an import made: ``parts`` link -> the part that carries it (merged links name
    their parent's part), ``link_frames`` link -> its frame in that part's frame (4x4),
    ``markers`` joint -> (marker I, marker J), the element names added per kind, and the
    warnings (each with its URDF line); ``joint_names`` URDF joint -> Mechanism joint (the
    same name unless a link has it), the name ``markers``, ``joints`` and the element names
    use."""
    robot: Robot
    parts: dict
    link_frames: dict
    markers: dict
    joints: tuple
    limits: tuple
    frictions: tuple
    dampers: tuple
    couplers: tuple
    configuration: dict
    warnings: tuple
    joint_names: dict

    def summary(self) -> str:
        n_parts = len(set(self.parts.values()))
        text = (f"robot {self.robot.name!r}: {n_parts} parts, {len(self.joints)} joints, "
                f"{len(self.limits)} limits, {len(self.couplers)} mimic couplers")
        return text + (f"; {len(self.warnings)} warnings" if self.warnings else "")


def mechanism_from_urdf(source: Any, package_dirs: Any = (), floating_base: bool = False,
                        gravity: Any = (0.0, 0.0, -9.81)) -> tuple[Mechanism, UrdfReport]:
    """A Mechanism from URDF text or a file path, and a UrdfReport (module docstring)."""
    robot = read_urdf(source, package_dirs)
    return build_mechanism(robot, floating_base, gravity)


def build_mechanism(robot: Robot, floating_base: bool = False,
                    gravity: Any = (0.0, 0.0, -9.81)) -> tuple[Mechanism, UrdfReport]:
    """The Mechanism of a parsed robot (module docstring)."""
    warnings = list(robot.warnings)
    parts, frames = part_of_each_link(robot, floating_base)
    configuration = build_configuration(robot)
    world = robot.placements(configuration)
    names = mechanism_joint_names(robot, warnings)
    warnings += unused_dynamics(robot)
    m = Mechanism(gravity=gravity)
    for part in dict.fromkeys(parts.values()):
        add_link_part(m, robot, part, world[part], part == robot.root and not floating_base)
    markers, joints, limits, frictions, dampers, couplers = {}, [], [], [], [], []
    for name in robot.order:
        j = robot.joints[name]
        if j.kind == "floating" or parts[j.child] == parts[j.parent]:
            continue
        as_named = names[name]
        markers[as_named] = add_joint_markers(m, j, as_named, parts, frames)
        named(j.line, m.add_joint, as_named, KIND[j.kind], *markers[as_named])
        joints.append(as_named)
        limits += add_stops(m, j, as_named, warnings)
        f, d = add_losses(m, j, as_named)
        frictions += f
        dampers += d
    for name in robot.order:
        j = robot.joints[name]
        if j.mimic is not None:
            coupler = f"{names[name]}: mimic"
            named(j.line, m.add_coupler, coupler, [names[name], names[j.mimic.joint]],
                  [1.0, -j.mimic.multiplier])
            couplers.append(coupler)
    report = UrdfReport(robot, parts, frames, markers, tuple(joints), tuple(limits),
                        tuple(frictions), tuple(dampers), tuple(couplers), configuration,
                        tuple(warnings), names)
    return m, report


def unused_dynamics(robot: Robot) -> list[str]:
    """A warning for each fixed, floating or planar joint whose ``<dynamics>`` gives damping
    or friction: URDF defines them for one coordinate (revolute, continuous, prismatic),
    so they are not applied to these."""
    return [f"line {j.line}: {j.kind} joint {j.name!r}: <dynamics> damping {j.damping:g} "
            f"and friction {j.friction:g} are not applied (URDF defines them for revolute, "
            "continuous and prismatic joints)"
            for j in robot.joints.values()
            if j.kind not in ("revolute", "continuous", "prismatic") and (j.damping or j.friction)]


def mechanism_joint_names(robot: Robot, warnings: list) -> dict[str, str]:
    """URDF joint -> its name in the Mechanism: the same, or "<joint> (joint)" where a link
    has the joint's name (URDF's links and joints are separate namespaces, the Mechanism's
    parts and joints share one), with a warning naming both."""
    names = {}
    for name, j in robot.joints.items():
        as_named = name
        while as_named in robot.links or (as_named != name and as_named in robot.joints):
            as_named += " (joint)"
        if as_named != name:
            warnings.append(f"line {j.line}: joint {name!r} is named like link {name!r} "
                            f"(line {robot.links[name].line}); its joint is {as_named!r}")
        names[name] = as_named
    return names


def named(line: int, call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call(*args)``; a MechanismError it raises is re-raised naming the URDF line."""
    try:
        return call(*args, **kwargs)
    except UrdfError:
        raise
    except MechanismError as exc:
        raise UrdfError(str(exc), line) from None


def part_of_each_link(robot: Robot, floating_base: bool) -> tuple[dict, dict]:
    """(link -> part name, link -> its frame in the part's frame): a massless link on a
    fixed joint joins its parent's part; any other link is a part of its own."""
    base, root_frame = floating_base_part(robot) if floating_base else (robot.root, np.eye(4))
    parts, frames = {robot.root: base}, {robot.root: root_frame}
    for name in robot.order:
        j = robot.joints[name]
        link = robot.links[j.child]
        if j.child == base:
            parts[j.child], frames[j.child] = base, np.eye(4)
            continue
        if link.inertial is None and j.kind == "fixed":
            parts[j.child] = parts[j.parent]
            frames[j.child] = frames[j.parent] @ j.origin
            continue
        if link.inertial is None:
            raise UrdfError(f"link {link.name!r} moves on {j.kind} joint {j.name!r} (line {j.line}) "
                            f"but has no <inertial>: a moving link needs its mass", link.line)
        parts[j.child], frames[j.child] = j.child, np.eye(4)
    return parts, frames


def floating_base_part(robot: Robot) -> tuple[str, np.ndarray]:
    """(the part a floating root link belongs to, the root's frame in that part's frame):
    the root itself when it has mass, else the first link with mass on a fixed joint to it
    (a massless ``base_footprint`` over ``base_link``)."""
    root = robot.links[robot.root]
    if root.inertial is not None:
        return root.name, np.eye(4)
    for name in robot.order:
        j = robot.joints[name]
        if j.parent == root.name and j.kind == "fixed" and robot.links[j.child].inertial:
            return j.child, np.linalg.inv(j.origin)
    raise UrdfError(f"link {root.name!r}: a floating base needs its <inertial> or a link with "
                    "mass on a fixed joint to it", root.line)


def build_configuration(robot: Robot) -> dict[str, float]:
    """The joint coordinates the mechanism is built at: each mimic joint at multiplier x
    the joint it follows + offset, every other joint at zero."""
    q: dict[str, float] = {}

    def value(name: str, seen: tuple) -> float:
        j = robot.joints[name]
        if j.mimic is None:
            return 0.0
        if name in seen:
            raise UrdfError(f"joint {name!r}: the mimic joints follow each other in a loop "
                            f"({' -> '.join(seen + (name,))})", j.line)
        return j.mimic.multiplier * value(j.mimic.joint, seen + (name,)) + j.mimic.offset

    for name, j in robot.joints.items():
        if j.mimic is not None:
            q[name] = value(name, ())
    return q


def add_link_part(m: Mechanism, robot: Robot, part: str, world: np.ndarray, ground: bool) -> None:
    link = robot.links[part]
    placement = dict(position=world[:3, 3], orientation=matrix_to_quat(world[:3, :3]))
    if ground:
        named(link.line, m.add_part, part, fixed=True, **placement)
        return
    inertial = link.inertial
    named(inertial.line, m.add_part, part, mass=inertial.mass, inertia=inertial.inertia,
          center_of_mass=inertial.center, **placement)


def axis_frame(axis: np.ndarray) -> np.ndarray:
    """A rotation whose z column is the unit ``axis`` (x, y any right-handed completion)."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, axis)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(axis, x), axis])


def add_joint_markers(m: Mechanism, j: Joint, name: str, parts: dict,
                      frames: dict) -> tuple[str, str]:
    """Marker I on the child at its link origin, marker J on the parent at the joint origin,
    both z along the axis (in the joint frame); positions and orientations in part frames."""
    align = np.eye(4)
    align[:3, :3] = axis_frame(j.axis)
    on_child = frames[j.child] @ align
    on_parent = frames[j.parent] @ j.origin @ align
    names = (f"{name}: I", f"{name}: J")
    for marker, part, T in ((names[0], parts[j.child], on_child),
                            (names[1], parts[j.parent], on_parent)):
        named(j.line, m.add_marker, marker, part, position=T[:3, 3],
              orientation=matrix_to_quat(T[:3, :3]))
    return names


def add_stops(m: Mechanism, j: Joint, joint: str, warnings: list) -> list[str]:
    """The stops of URDF joint ``j`` (Mechanism joint ``joint``) at its limit's bounds.  The
    URDF specification requires a ``<limit>`` on revolute and prismatic joints; one without
    is imported free, with a warning (a revolute that turns freely is 'continuous')."""
    if j.limit is None:
        if j.kind in ("revolute", "prismatic"):
            warnings.append(f"line {j.line}: {j.kind} joint {j.name!r} has no <limit> (URDF "
                            f"requires one): imported without stops, free as a "
                            f"{'continuous joint' if j.kind == 'revolute' else 'slide'}")
        return []
    name = f"{joint}: limit"
    named(j.line, m.add_limit, name, joint, lower=j.limit.lower, upper=j.limit.upper)
    return [name]


def add_losses(m: Mechanism, j: Joint, joint: str) -> tuple[list[str], list[str]]:
    """(friction elements, dampers) for URDF joint ``j``'s <dynamics> on Mechanism joint
    ``joint`` (module docstring)."""
    if j.kind not in ("revolute", "continuous", "prismatic") or (j.friction == 0 and j.damping == 0):
        return [], []
    if j.friction == 0.0 and j.kind != "prismatic":
        name = f"{joint}: damping"
        named(j.line, m.add_torsion_spring, name, joint, damping=j.damping)
        return [], [name]
    name = f"{joint}: friction"
    named(j.line, m.add_friction, name, joint, static=0.0, preload=j.friction, viscous=j.damping)
    return [name], []
