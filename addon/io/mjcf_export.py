"""A Mechanism as a MuJoCo model (MJCF text), without Blender: the add-on's File > Export >
MJCF and any script share it.

MuJoCo facts used (MuJoCo's XML reference, mujoco.readthedocs.io, "XML Reference"):
bodies nest as a kinematic tree whose ``pos``/``quat`` (w x y z) place a body in its
parent's frame; a body's joints act between it and its parent, their ``pos`` and ``axis``
in the body frame, their coordinate zero at the pose written (qpos0); a body without a
joint is welded to its parent; ``<inertial pos mass fullinertia="ixx iyy izz ixy ixz
iyz">`` is about the centre of mass in body axes; equality constraints are soft, their
stiffness set by ``solref`` (time constant, damping ratio) and ``solimp``; ``<equality
joint>`` holds y - y0 = a0 + a1 (x - x0) + ..., y0 and x0 the coordinates at qpos0.

What each item becomes:
- **Parts**: the fixed parts are MuJoCo's world; the joints that MuJoCo's tree can carry
  (fixed, revolute, prismatic, spherical, cylindrical, universal, planar) make a spanning
  tree from the ground outwards, each moving part a body under its parent (its frame the
  part frame, its inertial block exact); a part no such joint reaches is a free body
  (``<freejoint>``) with the parts hanging from it.
- **Tree joints**: revolute -> hinge, prismatic -> slide, spherical -> ball, fixed -> no
  joint (welded), cylindrical -> hinge + slide, universal -> two hinges (about z_J, then
  z_I), planar -> slide, slide, hinge.  The axis is signed so that each MuJoCo coordinate
  is the solver's coordinate minus its value as built (``offsets``), whichever of the two
  parts is the child.
- **Loop-closing joints** (the joints left out of the tree) are equality constraints:
  spherical -> ``connect`` at marker I; revolute -> two ``connect`` points, at marker I and
  ``axis_length`` along its z axis (one connect would keep the point only and let the axis
  tilt; the second point holds the axis, the pair repeating one equation along the axis,
  which MuJoCo's regularized solver takes); fixed -> ``weld``.  Other kinds cannot close a
  loop in MJCF and are listed in ``unmapped``.
- **Couplers** of two mapped coordinates (gears, racks, screws between two joints,
  couplers) -> ``<equality joint polycoef="0 a1 0 0 0">``, a1 = -s2/s1; they act on the
  joint coordinates only (no tooth force at a pitch point).
- **Torsion springs** on a tree hinge -> joint ``stiffness``, ``springref``, ``damping``;
  **spring-dampers** -> a spatial tendon between two sites with ``stiffness``,
  ``damping`` and ``springlength``; **stops** -> joint ``range`` (MuJoCo's soft limit, no
  restitution); **friction** with a preload and no coefficient -> ``frictionloss`` (and
  its viscous term -> ``damping``); **motions** -> ``<position>`` servos: the control that
  tracks motion f(t) without lag is f(t) - q0 + (kv / kp) f'(t) (``MotionServo.control``).
- What has no MJCF form (loads, vector forces, bushings, general motions, contacts,
  load-dependent friction, three-term couplers, spring preloads, friction and actuators,
  restitution, initial velocities of jointed parts) is named in ``unmapped``, never
  dropped silently.  Contacts stay disabled (``<flag contact="disable"/>``): the parts
  carry no geoms.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...solver import Mechanism, MechanismError, coupler_terms, matrix_to_quat, quat_to_matrix

TREE_KINDS = ("fixed", "revolute", "prismatic", "spherical", "cylindrical", "universal", "planar")
WORLD = "world"
UNBOUNDED = 1e10            # the open side of a one-sided stop, rad or m


@dataclass(frozen=True)
class MotionServo:
    """A motion written as a position actuator: ``actuator`` on MuJoCo joint ``joint``,
    ``offset`` the coordinate as built (q0), ``kp``, ``kv`` the servo's gains."""
    motion: str
    actuator: str
    joint: str
    offset: float
    kp: float
    kv: float
    function: Any

    def control(self, t: float) -> float:
        """The control at time t (s) that makes the servo track the motion with no lag:
        f(t) - q0 + (kv / kp) f'(t), so kp (ctrl - q) - kv qdot = kp (f - q0 - q) + kv (f'
        - qdot), zero error and zero error rate on the motion.  MuJoCo holds a control over
        a step: pass the step's midpoint time (the motion's mean over the step to O(dt^2));
        what the hold leaves grows as kv dt^2."""
        d = self.function.derivatives(float(t))
        return float(d[0]) - self.offset + self.kv / self.kp * float(d[1])


@dataclass(frozen=True)
class MjcfExport:
    """An export: ``xml`` the MJCF text; ``parents`` part -> its parent body ("world" for
    the ground); ``tree`` the joints MuJoCo's tree carries; ``equalities`` the joints and
    couplers written as equality constraints; ``coordinates`` (joint, "angle" | "slide")
    -> MuJoCo joint name; ``offsets`` MuJoCo joint name -> the solver coordinate as built
    (rad or m), so solver q = MuJoCo q + offset; ``servos`` motion -> MotionServo;
    ``unmapped`` what MJCF cannot hold, one line per item naming it."""
    xml: str
    parents: dict
    tree: tuple
    equalities: tuple
    coordinates: dict
    offsets: dict
    servos: dict
    unmapped: tuple

    def summary(self) -> str:
        text = (f"{len(self.parents)} bodies, {len(self.tree)} tree joints, "
                f"{len(self.equalities)} equality constraints, {len(self.servos)} servos")
        return text + (f"; not exported: {len(self.unmapped)}" if self.unmapped else "")


def mjcf_from_mechanism(mech: Mechanism, model_name: str = "mechanism", timestep: float = 1e-3,
                        integrator: str = "RK4", servo_kp: float = 1e4, servo_kv: float = 1e2,
                        axis_length: float = 0.1, solref_timeconst: float | None = None,
                        impedance: float = 0.9999) -> MjcfExport:
    """The mechanism as built (its parts' poses; assemble it first) as MJCF (module
    docstring).  ``timestep`` s and ``integrator`` go into ``<option>``; ``servo_kp`` (N m
    per rad or N per m) and ``servo_kv`` (per rad/s or m/s) are the motions' servo gains;
    ``axis_length`` m the second point of a revolute loop closure; equality constraints get
    ``solref="tc 1"`` (tc = ``solref_timeconst``, default 2 timesteps, the stiffest MuJoCo
    keeps stable) and ``solimp`` with impedance ``impedance`` (0.9999: the constraint force
    is 99.99% of the one that would hold it exactly)."""
    if not mech.parts:
        raise MechanismError("MJCF export: the mechanism has no parts")
    if WORLD in mech.parts and not mech.parts[WORLD].fixed:
        raise MechanismError(f"MJCF export: part {WORLD!r} moves, but MuJoCo keeps that name "
                             f"for the ground: rename the part")
    tc = 2.0 * timestep if solref_timeconst is None else float(solref_timeconst)
    solref, solimp = f"{fmt(tc)} 1", f"{fmt(impedance)} {fmt(impedance)} 0.001 0.5 2"
    parents, tree, free = spanning_tree(mech)
    w = Writer(mech, parents, tree, free, solref, solimp)
    root = ET.Element("mujoco", model=model_name)
    ET.SubElement(root, "compiler", angle="radian", autolimits="true")
    option = ET.SubElement(root, "option", gravity=vec(mech.gravity), timestep=fmt(timestep),
                           integrator=integrator)
    if not mech.contacts:
        ET.SubElement(option, "flag", contact="disable")
    else:
        w.unmapped += [f"contact {c!r}: no geoms are exported; MuJoCo's contacts need them"
                       for c in mech.contacts]
    world = ET.SubElement(root, "worldbody")
    w.body_el[WORLD], w.axis_length = world, float(axis_length)
    for part in w.children[WORLD]:
        w.body(world, part)
    w.loops()
    w.couplers()
    w.forces()
    w.motions(servo_kp, servo_kv)
    w.not_mapped()
    for tag in ("tendon", "equality", "actuator"):
        if len(w.sections[tag]):
            root.append(w.sections[tag])
    ET.indent(root)
    xml = ET.tostring(root, encoding="unicode")
    return MjcfExport(xml, dict(parents), tuple(tree.values()), tuple(w.equalities), dict(w.coordinates),
                      dict(w.offsets), dict(w.servos), tuple(w.unmapped))


def fmt(x: float) -> str:
    """A number as MJCF text, exact to float64 rounding (17 significant digits at most)."""
    x = float(x)
    return "0" if x == 0.0 else repr(x)


def vec(values: Any) -> str:
    return " ".join(fmt(v) for v in np.asarray(values, float).ravel())


def spanning_tree(mech: Mechanism) -> tuple[dict, dict, list]:
    """(part -> parent part or "world", part -> the joint that joins it to its parent,
    free parts): breadth first from the fixed parts over the joints MuJoCo's tree can carry,
    in the order they were added; a part left over roots a free subtree."""
    side = {n: (mech.markers[j.marker_i].part, mech.markers[j.marker_j].part)
            for n, j in mech.joints.items() if j.kind in TREE_KINDS}
    parents = {p: WORLD for p, part in mech.parts.items() if part.fixed}
    tree: dict[str, str] = {}
    free: list[str] = []

    def grow(frontier: list) -> None:
        while frontier:
            nxt = []
            for name, (pi, pj) in side.items():
                for a, b in ((pi, pj), (pj, pi)):
                    if a in frontier and b not in parents:
                        parents[b] = WORLD if mech.parts[a].fixed else a
                        tree[b] = name
                        nxt.append(b)
            frontier = nxt

    grow(list(parents))
    for p in mech.parts:
        if p not in parents:
            parents[p] = WORLD
            free.append(p)
            grow([p])
    for p, part in mech.parts.items():
        if part.fixed:
            del parents[p]
    return parents, tree, free


def world_pose(mech: Mechanism, part: str) -> np.ndarray:
    """A part's frame in world as built (4x4, m)."""
    T = np.eye(4)
    p = mech.parts[part]
    T[:3, :3], T[:3, 3] = quat_to_matrix(p.orientation), p.position
    return T


def marker_pose(mech: Mechanism, marker: str) -> np.ndarray:
    """A marker's frame in its part frame (4x4)."""
    mk = mech.markers[marker]
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = quat_to_matrix(mk.orientation), mk.position
    return T


def coordinate_at_build(mech: Mechanism, joint: str, coordinate: str) -> float:
    """The joint coordinate as built: the angle of x_I from x_J about z_J (rad) or the slide
    of I's origin from J's along z_J (m), as docs/conventions.md defines them."""
    j = mech.joints[joint]
    TI = world_pose(mech, mech.markers[j.marker_i].part) @ marker_pose(mech, j.marker_i)
    TJ = world_pose(mech, mech.markers[j.marker_j].part) @ marker_pose(mech, j.marker_j)
    if coordinate == "slide":
        return float((TI[:3, 3] - TJ[:3, 3]) @ TJ[:3, 2])
    R = TJ[:3, :3].T @ TI[:3, :3]
    return math.atan2(R[1, 0], R[0, 0])


class Writer:
    """Writes the bodies, equalities, tendons and actuators of one export."""

    def __init__(self, mech: Mechanism, parents: dict, tree: dict, free: list, solref: str,
                 solimp: str) -> None:
        self.mech, self.parents, self.tree, self.free = mech, parents, tree, free
        self.solref, self.solimp = solref, solimp
        self.children: dict[str, list] = {WORLD: []}
        for part, parent in parents.items():
            self.children.setdefault(parent, []).append(part)
            self.children.setdefault(part, [])
        self.sections = {t: ET.Element(t) for t in ("tendon", "equality", "actuator")}
        self.coordinates: dict = {}
        self.offsets: dict = {}
        self.servos: dict = {}
        self.equalities: list = []
        self.unmapped: list = []
        self.joint_elements: dict = {}
        self.body_el: dict = {}
        self.axis_length = 0.1

    # -- bodies and tree joints
    def frame(self, part: str) -> np.ndarray:
        """A body's frame in world, or the identity for the world."""
        return np.eye(4) if part == WORLD or self.mech.parts[part].fixed else world_pose(self.mech, part)

    def body_name(self, part: str) -> str:
        return WORLD if self.mech.parts[part].fixed else part

    def body(self, parent_el: ET.Element, part: str) -> None:
        p = self.mech.parts[part]
        rel = np.linalg.inv(self.frame(self.parents[part])) @ self.frame(part)
        el = ET.SubElement(parent_el, "body", name=part, pos=vec(rel[:3, 3]),
                           quat=vec(matrix_to_quat(rel[:3, :3])))
        I = p.inertia
        ET.SubElement(el, "inertial", pos=vec(p.center_of_mass), mass=fmt(p.mass),
                      fullinertia=vec([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]))
        if part in self.free:
            ET.SubElement(el, "freejoint", name=part)
            if np.any(p.velocity) or np.any(p.angular_velocity):
                self.unmapped.append(f"part {part!r}: its initial velocity (MJCF has no "
                                     f"initial velocity; set MjData.qvel)")
        elif part in self.tree:
            self.tree_joint(el, part, self.tree[part])
            if np.any(p.velocity) or np.any(p.angular_velocity):
                self.unmapped.append(f"part {part!r}: its initial velocity (set MjData.qvel)")
        self.body_el[part] = el
        for child in self.children[part]:
            self.body(el, child)

    def tree_joint(self, el: ET.Element, child: str, name: str) -> None:
        """The MuJoCo joints of solver joint ``name`` in body ``child`` (module docstring)."""
        j = self.mech.joints[name]
        child_is_i = self.mech.markers[j.marker_i].part == child
        mc = marker_pose(self.mech, j.marker_i if child_is_i else j.marker_j)
        mo = self.in_body(j.marker_j if child_is_i else j.marker_i, child)   # as built
        sign = 1.0 if child_is_i else -1.0
        z_i, z_j = (mc[:3, 2], mo[:3, 2]) if child_is_i else (mo[:3, 2], mc[:3, 2])
        pos = vec(mc[:3, 3])
        if j.kind == "revolute":
            self.mj_joint(el, name, "angle", name, "hinge", pos, sign * z_j)
        elif j.kind == "prismatic":
            self.mj_joint(el, name, "slide", name, "slide", pos, sign * z_j)
        elif j.kind == "cylindrical":
            self.mj_joint(el, name, "angle", f"{name}: angle", "hinge", pos, sign * z_j)
            self.mj_joint(el, name, "slide", f"{name}: slide", "slide", pos, sign * z_j)
        elif j.kind == "spherical":
            self.joint_elements[name] = ET.SubElement(el, "joint", name=name, type="ball", pos=pos)
        elif j.kind == "universal":
            first, second = (z_j, z_i) if child_is_i else (z_i, z_j)
            self.mj_joint(el, name, None, f"{name}: 1", "hinge", pos, first)
            self.mj_joint(el, name, None, f"{name}: 2", "hinge", pos, second)
        elif j.kind == "planar":
            xj = mo[:3, :3] if child_is_i else mc[:3, :3]
            for k, axis in enumerate("xy"):
                self.mj_joint(el, name, None, f"{name}: {axis}", "slide", pos, xj[:, k])
            self.mj_joint(el, name, None, f"{name}: angle", "hinge", pos, xj[:, 2])

    def mj_joint(self, el: ET.Element, joint: str, coordinate: str | None, mj_name: str,
                 kind: str, pos: str, axis: np.ndarray) -> None:
        node = ET.SubElement(el, "joint", name=mj_name, type=kind, pos=pos, axis=vec(axis))
        if coordinate is not None:
            self.coordinates[(joint, coordinate)] = mj_name
            self.offsets[mj_name] = coordinate_at_build(self.mech, joint, coordinate)
            self.joint_elements[mj_name] = node

    # -- loop closures and couplers
    def in_body(self, marker: str, part: str) -> np.ndarray:
        """A marker's frame (4x4) in the body frame of ``part`` as built (world for a fixed
        part)."""
        mk = self.mech.markers[marker]
        T = world_pose(self.mech, mk.part) @ marker_pose(self.mech, marker)
        return np.linalg.inv(self.frame(part)) @ T

    def anchor(self, marker: str, offset: np.ndarray = np.zeros(3)) -> tuple[str, str]:
        """(body, the point in the body frame) of a point fixed to a marker (``offset`` in
        the marker's axes)."""
        part = self.mech.markers[marker].part
        T = self.in_body(marker, part)
        return self.body_name(part), vec(T[:3, :3] @ offset + T[:3, 3])

    def equality(self, tag: str, name: str, **attrib: str) -> None:
        ET.SubElement(self.sections["equality"], tag, name=name, solref=self.solref,
                      solimp=self.solimp, **attrib)

    def loops(self) -> None:
        used = set(self.tree.values())
        for name, j in self.mech.joints.items():
            if name in used:
                continue
            pj = self.body_name(self.mech.markers[j.marker_j].part)
            if j.kind == "spherical":
                body, anchor = self.anchor(j.marker_i)
                self.equality("connect", name, body1=body, body2=pj, anchor=anchor)
            elif j.kind == "revolute":
                for k, off in enumerate((0.0, self.axis_length)):
                    body, anchor = self.anchor(j.marker_i, np.array([0.0, 0.0, off]))
                    self.equality("connect", f"{name}: {'point' if k == 0 else 'axis'}",
                                  body1=body, body2=pj, anchor=anchor)
            elif j.kind == "fixed":      # a weld's anchor is in body2's frame
                _, anchor = self.anchor(j.marker_j)
                body = self.body_name(self.mech.markers[j.marker_i].part)
                self.equality("weld", name, body1=body, body2=pj, anchor=anchor)
            else:
                self.unmapped.append(f"joint {name!r}: a {j.kind} joint outside MuJoCo's body "
                                     f"tree has no MJCF equality that holds it")
                continue
            self.equalities.append(name)

    def couplers(self) -> None:
        for name, c in self.mech.couplers.items():
            mj = [self.coordinates.get((jt, co)) for jt, co, _ in c.terms]
            if len(c.terms) != 2 or None in mj:
                why = ("it couples three coordinates" if len(c.terms) != 2 else
                       "a coupled joint closes a loop (no MuJoCo joint coordinate)")
                self.unmapped.append(f"{c.kind} {name!r}: {why}")
                continue
            (_, _, s1), (_, _, s2) = coupler_terms(self.mech, name)   # a screw's hand
            self.equality("joint", name, joint1=mj[0], joint2=mj[1],
                          polycoef=f"0 {fmt(-s2 / s1)} 0 0 0")
            self.equalities.append(name)
            if c.kind in ("gear", "rack-and-pinion"):
                self.unmapped.append(f"{c.kind} {name!r}: its tooth force at the pitch point "
                                     f"(MuJoCo's joint equality acts on the coordinates only)")

    # -- forces, stops, friction, motions
    def forces(self) -> None:
        for name, s in self.mech.torsion_springs.items():
            mj = self.coordinates.get((s.joint, "angle"))
            if mj is None:
                self.unmapped.append(f"torsion spring {name!r}: joint {s.joint!r} is not a "
                                     f"MuJoCo hinge (it closes a loop)")
                continue
            el = self.joint_elements[mj]
            el.set("stiffness", fmt(s.stiffness))
            el.set("springref", fmt(s.free_angle - self.offsets[mj]))
            self.add_damping(el, s.damping)
            extras(self.unmapped, f"torsion spring {name!r}", s)
        for name, s in self.mech.springs.items():
            self.tendon(name, s)
        for name, lim in self.mech.limits.items():
            mj = self.coordinates.get((lim.joint, lim.coordinate))
            if mj is None:
                self.unmapped.append(f"limit {name!r}: joint {lim.joint!r} is not a MuJoCo joint")
                continue
            q0 = self.offsets[mj]
            lo = -UNBOUNDED if lim.lower is None else lim.lower - q0
            hi = UNBOUNDED if lim.upper is None else lim.upper - q0
            self.joint_elements[mj].set("range", f"{fmt(lo)} {fmt(hi)}")
            self.unmapped.append(f"limit {name!r}: its restitution (MuJoCo's joint limit is a "
                                 f"soft constraint set by solreflimit)")
        for name, f in self.mech.frictions.items():
            self.friction(name, f)

    def add_damping(self, el: ET.Element, c: float) -> None:
        el.set("damping", fmt(float(el.get("damping", "0")) + c))

    def friction(self, name: str, f: Any) -> None:
        mj = self.coordinates.get((f.joint, f.coordinate))
        if f.coordinate == "rotation" and f.joint in self.joint_elements:
            mj = f.joint
            self.unmapped.append(f"friction {name!r}: a ball joint's frictionloss bounds each "
                                 f"of its three rates apart, not the torque's magnitude")
        if mj is None:
            self.unmapped.append(f"friction {name!r}: joint {f.joint!r} is not a MuJoCo joint")
            return
        el = self.joint_elements[mj]
        el.set("frictionloss", fmt(f.preload))
        self.add_damping(el, f.viscous)
        if f.static or f.dynamic:
            self.unmapped.append(f"friction {name!r}: its coefficients (load-dependent "
                                 f"friction; only the preload is MuJoCo's frictionloss)")

    def tendon(self, name: str, s: Any) -> None:
        sites = []
        for marker in (s.marker_i, s.marker_j):
            body, pos = self.anchor(marker)
            site = f"{name}: {marker}"
            parent = self.body_el[body]
            ET.SubElement(parent, "site", name=site, pos=pos)
            sites.append(site)
        length = s.free_length
        if length is None:
            a = [self.world_point(m) for m in (s.marker_i, s.marker_j)]
            length = float(np.linalg.norm(a[0] - a[1]))
        el = ET.SubElement(self.sections["tendon"], "spatial", name=name,
                           stiffness=fmt(s.stiffness), damping=fmt(s.damping),
                           springlength=fmt(length))
        for site in sites:
            ET.SubElement(el, "site", site=site)
        extras(self.unmapped, f"spring-damper {name!r}", s)

    def world_point(self, marker: str) -> np.ndarray:
        return self.in_body(marker, WORLD)[:3, 3]

    def motions(self, kp: float, kv: float) -> None:
        for name, mo in self.mech.motions.items():
            mj = self.coordinates.get((mo.joint, mo.coordinate))
            if mj is None:
                self.unmapped.append(f"motion {name!r}: joint {mo.joint!r} is not a MuJoCo joint")
                continue
            ET.SubElement(self.sections["actuator"], "position", name=name, joint=mj,
                          kp=fmt(kp), kv=fmt(kv))
            self.servos[name] = MotionServo(name, name, mj, self.offsets[mj], kp, kv, mo.function)

    def not_mapped(self) -> None:
        m = self.mech
        for table, what in ((m.loads, "force"), (m.vector_forces, "vector force"),
                            (m.bushings, "bushing"), (m.general_motions, "general motion")):
            self.unmapped += [f"{what} {n!r}: no MJCF element" for n in table]


def extras(unmapped: list, what: str, s: Any) -> None:
    """Name a spring's preload, friction and actuator, which MJCF's springs lack."""
    if s.preload:
        unmapped.append(f"{what}: its preload")
    if s.friction:
        unmapped.append(f"{what}: its friction")
    if s.actuator is not None:
        unmapped.append(f"{what}: its actuator")
