"""A URDF robot as the solver's Mechanism, without Blender (the add-on's import and any
script share it).

- **Parts**: each link with an ``<inertial>`` is a part whose frame is the link frame
  (mass, centre of mass, inertia turned from the inertial frame into link axes).  A link
  without ``<inertial>`` hanging on a fixed joint is merged into its parent's part (tool
  frames, sensor mounts: URDF's massless links); a fixed joint between two links with mass
  stays a fixed joint (its reaction is then reported).  A massless link on a moving joint
  is an error: the solver's parts need mass.
- **Base**: the root link is the ground (a fixed part); with ``floating_base=True`` it is a
  free part of its own mass instead.  A ``floating`` joint adds no joint (its child is a
  free part).
- **Joints**: each joint is marker I on the child at the child link's origin and marker J
  on the parent at the joint origin, both with z along the joint axis, so the solver's
  angle or slide is URDF's joint coordinate (zero at the zero configuration, positive by
  the right-hand rule about the axis).  revolute and continuous -> revolute, prismatic ->
  prismatic, fixed -> fixed, planar -> planar (the axis its normal).
- **Limits**: a revolute or prismatic joint's ``<limit lower upper>`` -> rigid stops
  ``"<joint>: limit"`` (the solver's default restitution 0.5; an angle's bounds counted over
  turns, a range may span several).  effort and velocity are ignored.
- **Damping and friction**: ``<dynamics friction>`` (N m or N, a load-independent Coulomb
  force) is the preload of joint friction ``"<joint>: friction"`` with no coefficient, so
  the joint sticks while the force needed stays below it; ``damping`` is that element's
  viscous term.  Without dry friction, a revolute joint's damping is a torsion damper
  ``"<joint>: damping"`` (a smooth force with no sticking events to locate); a prismatic
  joint's is the friction element's viscous term alone (the solver has no damper along a
  slide other than this).
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
    warnings (each with its URDF line)."""
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
    m = Mechanism(gravity=gravity)
    for part in dict.fromkeys(parts.values()):
        add_link_part(m, robot, part, world[part], part == robot.root and not floating_base)
    markers, joints, limits, frictions, dampers, couplers = {}, [], [], [], [], []
    for name in robot.order:
        j = robot.joints[name]
        if j.kind == "floating" or parts[j.child] == parts[j.parent]:
            continue
        markers[name] = add_joint_markers(m, j, parts, frames)
        named(j.line, m.add_joint, name, KIND[j.kind], *markers[name])
        joints.append(name)
        limits += add_stops(m, j, warnings)
        f, d = add_losses(m, j)
        frictions += f
        dampers += d
    for name in robot.order:
        j = robot.joints[name]
        if j.mimic is not None:
            named(j.line, m.add_coupler, f"{name}: mimic", [name, j.mimic.joint],
                  [1.0, -j.mimic.multiplier])
            couplers.append(f"{name}: mimic")
    report = UrdfReport(robot, parts, frames, markers, tuple(joints), tuple(limits),
                        tuple(frictions), tuple(dampers), tuple(couplers), configuration,
                        tuple(warnings))
    return m, report


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
    parts, frames = {robot.root: robot.root}, {robot.root: np.eye(4)}
    root = robot.links[robot.root]
    if floating_base and root.inertial is None:
        raise UrdfError(f"link {root.name!r}: a floating base needs its <inertial>", root.line)
    for name in robot.order:
        j = robot.joints[name]
        link = robot.links[j.child]
        if link.inertial is None and j.kind == "fixed":
            parts[j.child] = parts[j.parent]
            frames[j.child] = frames[j.parent] @ j.origin
            continue
        if link.inertial is None:
            raise UrdfError(f"link {link.name!r} moves on {j.kind} joint {j.name!r} (line {j.line}) "
                            f"but has no <inertial>: a moving link needs its mass", link.line)
        parts[j.child], frames[j.child] = j.child, np.eye(4)
    return parts, frames


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


def add_joint_markers(m: Mechanism, j: Joint, parts: dict, frames: dict) -> tuple[str, str]:
    """Marker I on the child at its link origin, marker J on the parent at the joint origin,
    both z along the axis (in the joint frame); positions and orientations in part frames."""
    align = np.eye(4)
    align[:3, :3] = axis_frame(j.axis)
    on_child = frames[j.child] @ align
    on_parent = frames[j.parent] @ j.origin @ align
    names = (f"{j.name}: I", f"{j.name}: J")
    for marker, part, T in ((names[0], parts[j.child], on_child),
                            (names[1], parts[j.parent], on_parent)):
        named(j.line, m.add_marker, marker, part, position=T[:3, 3],
              orientation=matrix_to_quat(T[:3, :3]))
    return names


def add_stops(m: Mechanism, j: Joint, warnings: list) -> list[str]:
    if j.limit is None:
        return []
    lower, upper = j.limit.lower, j.limit.upper
    name = f"{j.name}: limit"
    named(j.line, m.add_limit, name, j.name, lower=lower, upper=upper)
    return [name]


def add_losses(m: Mechanism, j: Joint) -> tuple[list[str], list[str]]:
    """(friction elements, dampers) for the joint's <dynamics> (module docstring)."""
    if j.kind not in ("revolute", "continuous", "prismatic") or (j.friction == 0 and j.damping == 0):
        return [], []
    if j.friction == 0.0 and j.kind != "prismatic":
        name = f"{j.name}: damping"
        named(j.line, m.add_torsion_spring, name, j.name, damping=j.damping)
        return [], [name]
    name = f"{j.name}: friction"
    named(j.line, m.add_friction, name, j.name, static=0.0, preload=j.friction, viscous=j.damping)
    return [name], []
