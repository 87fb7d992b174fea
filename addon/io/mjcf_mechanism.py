"""A MuJoCo model (MJCF) as the solver's Mechanism, without Blender (the add-on's import
and any script share it).

- **Parts**: the world and every body welded to it (no joint) are the fixed part "world";
  each body with joints is a part whose frame is the body frame at qpos0, its mass
  properties the ``<inertial>`` or those MuJoCo infers from its geoms; a body without a
  joint under a moving body is a part on a fixed joint ``"<body>: fixed"`` if it and that
  body's part have mass (so its reaction is reported), else merged into the part (a frame;
  a massless moving body so takes its first massive child's mass, as MuJoCo's weld group
  does).  A moving part without mass is an error naming the body.
- **Joints**: hinge -> revolute, slide -> prismatic, ball -> spherical, free (or
  ``<freejoint>``) -> a free part; marker I on the body and marker J on its parent's part
  where the joint is at qpos0, z along the axis, so the solver's angle or slide is MuJoCo's
  coordinate minus its ``ref``.  Several joints in one body map where they make a solver
  joint: a hinge and a slide on one axis -> cylindrical, two perpendicular hinges at one
  point -> universal, two slides and a hinge normal to them -> planar, three hinges at one
  point on independent axes (a gimbal) -> spherical; others are an error.
- **Joint fields**: ``range`` -> rigid stops ``"<joint>: limit"`` (an angle's bounds counted
  over turns) with restitution 0: MuJoCo's limit is a soft constraint, critically damped
  by default (solreflimit 0.02 s, damping ratio 1), which stops the joint without a
  rebound, a few degrees past the bound and back within ~0.1 s; a hinge's ``stiffness``, ``springref`` and
  ``damping`` -> torsion spring ``"<joint>: spring"``; ``frictionloss`` -> joint friction
  ``"<joint>: friction"`` with that preload and no coefficient (a slide's damping its
  viscous term); ``armature``, a slide's stiffness, a ball's damping and a
  ``springdamper`` in use (which MuJoCo turns into a stiffness and damping of its own, set
  from the joint's inertia, in place of the typed ones) have no solver element and are
  named in the report.
- **Equalities**: ``connect`` -> spherical joint at the anchor (two connects between the
  same two bodies -> one revolute joint about the line through their anchors, the pair
  MJCF export writes for a revolute loop); ``weld`` -> fixed joint (its markers at the
  anchor, given in body2's frame); ``joint`` with a linear polycoef (a0 = 0) -> coupler;
  with joint1 alone -> a motion holding it at a0.
- Tendons, actuators (and their dynamics), contacts (``<contact>`` and the geom pairs
  MuJoCo collides), sensors, a nonlinear joint coupling, an inactive equality, a body's gravity
  compensation (``gravcomp``) and the fluid forces of ``<option>`` (density, viscosity,
  wind) are named in the report's ``unmapped``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...solver import Mechanism, MechanismError, matrix_to_quat
from .mjcf import MjcfError, MjcfModel, combine, read_mjcf

WORLD = "world"


@dataclass(frozen=True)
class MjcfReport:
    """What an import made: ``parts`` body -> the part that carries it, ``frames`` body ->
    its frame in that part's frame (4x4), ``joints`` solver joint -> the MuJoCo joints or
    equalities it came from, the element names added per kind, ``unmapped`` (what has no
    solver element) and ``warnings``, each naming its element."""
    model: MjcfModel
    parts: dict
    frames: dict
    joints: dict
    limits: tuple
    springs: tuple
    frictions: tuple
    couplers: tuple
    motions: tuple
    unmapped: tuple
    warnings: tuple

    def summary(self) -> str:
        n = len(set(self.parts.values()) - {WORLD})
        text = (f"model {self.model.name!r}: {n} moving parts, {len(self.joints)} joints, "
                f"{len(self.limits)} limits, {len(self.couplers)} couplers")
        return text + (f"; not imported: {len(self.unmapped)}" if self.unmapped else "")


def mechanism_from_mjcf(source: Any) -> tuple[Mechanism, MjcfReport]:
    """A Mechanism from MJCF text or a file path, and an MjcfReport (module docstring)."""
    return build_mechanism(read_mjcf(source))


def named(line: int, call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call(*args)``; a MechanismError it raises is re-raised naming the MJCF line."""
    try:
        return call(*args, **kwargs)
    except MjcfError:
        raise
    except MechanismError as exc:
        raise MjcfError(str(exc), line) from None


class Builder:
    def __init__(self, model: MjcfModel) -> None:
        self.model = model
        self.world = model.world()
        self.m = Mechanism(gravity=model.gravity)
        self.parts: dict = {WORLD: WORLD}
        self.frames: dict = {WORLD: np.eye(4)}
        self.joints: dict = {}
        self.out: dict = {k: [] for k in ("limits", "springs", "frictions", "couplers", "motions")}
        self.unmapped: list = []
        self.warnings: list = []
        self.coordinate: dict = {}          # MuJoCo joint -> (solver joint, coordinate, ref)

    def assign_parts(self) -> None:
        pieces: dict = {WORLD: []}
        for name, b in self.model.bodies.items():
            parent = self.parts[b.parent]
            if b.joints or (b.mass > 0 and parent != WORLD and sum(m for m, _, _ in pieces[parent])):
                self.parts[name], self.frames[name] = name, np.eye(4)
                pieces[name] = []
            else:
                self.parts[name] = self.parts[b.parent]
                self.frames[name] = self.frames[b.parent] @ b.frame
            T = np.eye(4)
            T[:3, 3] = b.center
            pieces[self.parts[name]].append((b.mass, self.frames[name] @ T, b.inertia,))
        self.m.add_part(WORLD, fixed=True)
        for part, items in pieces.items():
            if part == WORLD:
                continue
            b = self.model.bodies[part]
            mass, center, inertia = combine(items)
            if mass <= 0:
                raise MjcfError(f"body {part!r} moves on its joints but has no mass (give it "
                                f"an <inertial> or geoms with mass)", b.line)
            W = self.world[part]
            named(b.line, self.m.add_part, part, mass=mass, inertia=inertia,
                  center_of_mass=center, position=W[:3, 3], orientation=matrix_to_quat(W[:3, :3]))

    def add_joints(self) -> None:
        for name, b in self.model.bodies.items():
            if not b.joints and self.parts[name] == name:
                mi, mj = self.markers(f"{name}: fixed", name, np.eye(4), np.eye(4), b.line)
                named(b.line, self.m.add_joint, f"{name}: fixed", "fixed", mi, mj)
                self.joints[f"{name}: fixed"] = ()
                continue
            if not b.joints or b.joints[0].kind == "free":
                if len(b.joints) > 1:
                    raise MjcfError(f"body {name!r}: a free joint with other joints", b.line)
                if b.joints:
                    self.free_joint_fields(b.joints[0])
                continue
            self.body_joint(b)

    def markers(self, label: str, body: str, frame_i: np.ndarray, frame_j: np.ndarray,
                line: int) -> tuple:
        """Marker I on ``body``'s part and marker J on its parent's part at the frames
        ``frame_i``, ``frame_j`` given in the body frame as placed at qpos0."""
        b = self.model.bodies[body]
        on_i = self.frames[body] @ frame_i
        parent_part = self.parts[b.parent]
        on_j = np.linalg.inv(self.frames_part_world(parent_part)) @ self.world[body] @ frame_j
        names = (f"{label}: I", f"{label}: J")
        for mk, part, T in ((names[0], self.parts[body], on_i), (names[1], parent_part, on_j)):
            named(line, self.m.add_marker, mk, part, position=T[:3, 3],
                  orientation=matrix_to_quat(T[:3, :3]))
        return names

    def body_joint(self, b: Any) -> None:
        js = b.joints
        kinds = tuple(j.kind for j in js)
        base = common_name([j.name for j in js], self.model.bodies)
        if kinds == ("hinge",) or kinds == ("slide",) or kinds == ("ball",):
            kind = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical"}[kinds[0]]
            z, other = js[0].axis, None
        elif sorted(kinds) == ["hinge", "slide"] and js[0].axis @ js[1].axis > 1 - 1e-9 \
                and np.allclose(np.cross(js[1].pos - js[0].pos, js[0].axis), 0, atol=1e-9):
            kind, z, other = "cylindrical", js[0].axis, None
        elif kinds == ("hinge", "hinge") and abs(js[0].axis @ js[1].axis) < 1e-9 \
                and np.allclose(js[0].pos, js[1].pos):
            kind, z, other = "universal", js[1].axis, js[0].axis
        elif sorted(kinds) == ["hinge", "slide", "slide"] and all(
                abs(j.axis @ next(h for h in js if h.kind == "hinge").axis) < 1e-9
                for j in js if j.kind == "slide"):
            kind, z, other = "planar", next(h for h in js if h.kind == "hinge").axis, None
        elif kinds == ("hinge", "hinge", "hinge") and all(np.allclose(j.pos, js[0].pos) for j in js) \
                and abs(np.linalg.det([j.axis for j in js])) > 1e-6:
            kind, z, other = "spherical", js[0].axis, None      # a gimbal: any turn about pos
        else:
            raise MjcfError(f"body {b.name!r}: joints {', '.join(kinds)} make no solver joint "
                            f"(one hinge, slide or ball; hinge + slide on one axis, one direction; two "
                            f"perpendicular hinges; two slides and a hinge; three hinges at one "
                            f"point on independent axes)", js[0].line)
        F = np.eye(4)
        F[:3, :3], F[:3, 3] = axis_frame(z), js[0].pos
        G = F.copy()
        if other is not None:       # universal: marker J's z along the first hinge
            G[:3, :3] = axis_frame(other)
        mi, mj = self.markers(base, b.name, F, G, js[0].line)
        named(js[0].line, self.m.add_joint, base, kind, mi, mj)
        self.joints[base] = tuple(j.name for j in js)
        for j in js:
            coord = {"hinge": "angle", "slide": "slide"}.get(j.kind)
            if kind in ("universal", "planar", "spherical") or coord is None:
                self.fields_without_coordinate(base, j)
                continue
            self.coordinate[j.name] = (base, coord, j.ref)
            self.joint_fields(base, coord, j, len(js) > 1)

    def frames_part_world(self, part: str) -> np.ndarray:
        return np.eye(4) if part == WORLD else self.world[part]

    def joint_fields(self, joint: str, coord: str, j: Any, shared: bool) -> None:
        label = f"{joint}: {coord}" if shared else joint
        j = self.without_timed_spring(j)
        if j.range is not None:
            lo, hi = j.range[0] - j.ref, j.range[1] - j.ref
            if lo is not None or hi is not None:
                named(j.line, self.m.add_limit, f"{label}: limit", joint, lower=lo, upper=hi,
                      coordinate=coord, restitution=0.0)
                self.out["limits"].append(f"{label}: limit")
        if coord == "angle" and (j.stiffness or j.damping):
            named(j.line, self.m.add_torsion_spring, f"{label}: spring", joint,
                  stiffness=j.stiffness, damping=j.damping, free_angle=j.springref - j.ref)
            self.out["springs"].append(f"{label}: spring")
        if coord == "slide" and j.stiffness:
            self.unmapped.append(f"line {j.line}: joint {j.name!r}: stiffness {j.stiffness:g} "
                                 f"N/m along a slide (no solver element)")
        if j.frictionloss or (coord == "slide" and j.damping):
            named(j.line, self.m.add_friction, f"{label}: friction", joint, static=0.0,
                  preload=j.frictionloss, viscous=j.damping if coord == "slide" else 0.0,
                  coordinate=coord)
            self.out["frictions"].append(f"{label}: friction")
        if j.armature:
            self.unmapped.append(f"line {j.line}: joint {j.name!r}: armature {j.armature:g} "
                                 f"(rotor inertia; no solver element)")

    def without_timed_spring(self, j: Any) -> Any:
        """The joint as read, or, when its ``springdamper`` is in use (both numbers
        positive), without stiffness and damping (MuJoCo replaces them by the spring and
        damper of that time constant and damping ratio, set from the joint's inertia at the
        model's pose, which has no counterpart here), named in ``unmapped``."""
        if not all(v > 0.0 for v in j.springdamper):
            return j
        self.unmapped.append(f"line {j.line}: joint {j.name!r}: springdamper "
                             f"{j.springdamper[0]:g} s, damping ratio {j.springdamper[1]:g} "
                             "(MuJoCo sets its stiffness and damping from the joint's inertia; "
                             "give them as stiffness and damping instead)")
        return replace(j, stiffness=0.0, damping=0.0)

    def free_joint_fields(self, j: Any) -> None:
        """A free joint's damping, stiffness, armature and frictionloss (MuJoCo applies
        them to its six velocities) have no solver element on a free part: named."""
        for key in ("damping", "stiffness", "armature", "frictionloss"):
            if getattr(j, key):
                self.unmapped.append(f"line {j.line}: joint {j.name!r}: {key} "
                                     f"{getattr(j, key):g} (no solver element on a free part)")

    def fields_without_coordinate(self, joint: str, j: Any) -> None:
        j = self.without_timed_spring(j)
        for key in ("range", "stiffness", "damping", "armature", "frictionloss"):
            v = getattr(j, key)
            if v is not None and (key == "range" or v):
                if key == "frictionloss" and j.kind == "ball":
                    named(j.line, self.m.add_friction, f"{joint}: friction", joint, static=0.0,
                          preload=v)
                    self.out["frictions"].append(f"{joint}: friction")
                    continue
                self.unmapped.append(f"line {j.line}: joint {j.name!r}: {key} (no solver "
                                     f"element on a {j.kind} in a {self.m.joints[joint].kind} joint)")

    def add_equalities(self) -> None:
        eqs = [e for e in self.model.equalities]
        connects: dict = {}
        for e in eqs:
            if not e.active:
                self.unmapped.append(f"line {e.line}: equality {e.name!r} is inactive")
            elif e.kind == "connect":
                key = (e.attrib.get("body1"), e.attrib.get("body2", WORLD))
                connects.setdefault(key, []).append(e)
            elif e.kind == "weld":
                self.weld(e)
            elif e.kind == "joint":
                self.joint_equality(e)
            else:
                self.unmapped.append(f"line {e.line}: equality {e.kind} {e.name!r}")
        for (b1, b2), group in connects.items():
            for pair in ([group] if len(group) == 2 else [[g] for g in group]):
                self.connect(b1, b2, pair)

    def point_markers(self, name: str, e: Any, b1: str, b2: str, frame: np.ndarray,
                      in_body2: bool = False) -> tuple:
        """Markers I on b1's part and J on b2's at ``frame``, given in b1's frame (a
        connect's anchor) or with ``in_body2`` in b2's (a weld's), as placed at qpos0."""
        for body in (b1, b2):
            if body != WORLD and body not in self.model.bodies:
                raise MjcfError(f"equality {name!r}: unknown body {body!r}", e.line)
        world = self.world[b2 if in_body2 else b1] @ frame
        names = (f"{name}: I", f"{name}: J")
        for mk, body in zip(names, (b1, b2)):
            part = self.parts[body]
            T = np.linalg.inv(self.frames_part_world(part)) @ world
            named(e.line, self.m.add_marker, mk, part, position=T[:3, 3],
                  orientation=matrix_to_quat(T[:3, :3]))
        return names

    def connect(self, b1: str, b2: str, group: list) -> None:
        e = group[0]
        if "body1" not in e.attrib:
            self.unmapped.append(f"line {e.line}: connect {e.name!r} between sites (give body1, "
                                 f"body2 and anchor)")
            return
        anchors = [np.array([float(s) for s in g.attrib.get("anchor", "0 0 0").split()]) for g in group]
        F = np.eye(4)
        F[:3, 3] = anchors[0]
        kind, name = "spherical", e.name
        if len(group) == 2:
            kind, name = "revolute", common_name([g.name for g in group], self.model.bodies)
            F[:3, :3] = axis_frame((anchors[1] - anchors[0]) / np.linalg.norm(anchors[1] - anchors[0]))
        mi, mj = self.point_markers(name, e, b1, b2, F)
        named(e.line, self.m.add_joint, name, kind, mi, mj)
        self.joints[name] = tuple(g.name for g in group)

    def weld(self, e: Any) -> None:
        if "body1" not in e.attrib:
            self.unmapped.append(f"line {e.line}: weld {e.name!r} between sites (give body1, "
                                 f"body2 and anchor)")
            return
        rel = [float(s) for s in e.attrib.get("relpose", "0 1 0 0 0 0 0").split()]
        if any(rel[3:]):
            self.unmapped.append(f"line {e.line}: weld {e.name!r}: relpose (held at qpos0 instead)")
        F = np.eye(4)
        F[:3, 3] = [float(s) for s in e.attrib.get("anchor", "0 0 0").split()]
        b1, b2 = e.attrib.get("body1"), e.attrib.get("body2", WORLD)
        mi, mj = self.point_markers(e.name, e, b1, b2, F, in_body2=True)   # MuJoCo's weld anchor
        named(e.line, self.m.add_joint, e.name, "fixed", mi, mj)
        self.joints[e.name] = (e.name,)

    def joint_equality(self, e: Any) -> None:
        poly = [float(s) for s in e.attrib.get("polycoef", "0 1 0 0 0").split()] + [0.0] * 5
        j1, j2 = e.attrib.get("joint1"), e.attrib.get("joint2")
        known = {j.name for b in self.model.bodies.values() for j in b.joints}
        if j1 is None:
            raise MjcfError(f"joint equality {e.name!r} needs the attribute 'joint1'", e.line)
        for j in (j1, j2):
            if j is not None and j not in known:      # (MuJoCo refuses the model)
                raise MjcfError(f"joint equality {e.name!r}: unknown joint {j!r}", e.line)
            if j is not None and j not in self.coordinate:
                self.unmapped.append(f"line {e.line}: joint equality {e.name!r}: joint {j!r} "
                                     f"has no solver coordinate")
                return
        if j2 is None:
            joint, coord, ref = self.coordinate[j1]
            named(e.line, self.m.add_motion, e.name, joint, poly[0], coordinate=coord)
            self.out["motions"].append(e.name)
            return
        if any(poly[2:5]) or poly[0]:
            self.unmapped.append(f"line {e.line}: joint equality {e.name!r}: polycoef "
                                 f"{poly[:5]} is not linear through qpos0")
            return
        (ja, ca, _), (jb, cb, _) = self.coordinate[j1], self.coordinate[j2]
        named(e.line, self.m.add_coupler, e.name, [ja, jb], [1.0, -poly[1]], coordinates=[ca, cb])
        self.out["couplers"].append(e.name)

    def report(self) -> MjcfReport:
        for tag, names in self.model.others.items():
            self.unmapped += [f"{tag} {n!r}" for n in names]
        self.unmapped += [f"line {b.line}: body {b.name!r}: gravcomp {b.gravcomp:g} (gravity "
                          "compensation; Bake applies the scene's gravity to it in full)"
                          for b in self.model.bodies.values() if b.gravcomp]
        self.unmapped += self.colliding_geoms()
        for g in self.model.world_geoms:
            if g.kind not in ("plane",):
                self.unmapped.append(f"line {g.line}: world geom {g.name!r} (no part)")
        o = {k: tuple(v) for k, v in self.out.items()}
        return MjcfReport(self.model, dict(self.parts), dict(self.frames), dict(self.joints),
                          o["limits"], o["springs"], o["frictions"], o["couplers"], o["motions"],
                          tuple(self.unmapped), tuple(self.warnings))


    def colliding_geoms(self) -> list[str]:
        """One line naming the geom pairs MuJoCo collides, which the import makes no
        contacts for: geoms on two parts (not both fixed), neither's moving body welded
        to the other's parent (MuJoCo's filterparent; the world is no parent there), with
        contype of one and conaffinity of the other sharing a bit, their bodies not a pair
        of ``<contact><exclude>``."""
        if not self.model.contacts:
            return []
        weld = {WORLD: WORLD}
        for name, b in self.model.bodies.items():
            weld[name] = name if b.joints else weld[b.parent]
        up = {w: (self.model.bodies[w].parent if w != WORLD else WORLD) for w in set(weld.values())}
        geoms = [(WORLD, g) for g in self.model.world_geoms] + \
                [(name, g) for name, b in self.model.bodies.items() for g in b.geoms]
        pairs = []
        for k, (b1, g1) in enumerate(geoms):
            for b2, g2 in geoms[k + 1:]:
                w1, w2 = weld[b1], weld[b2]
                if w1 == w2 or not (g1.contype & g2.conaffinity or g2.contype & g1.conaffinity) \
                        or frozenset((b1, b2)) in self.model.excluded:
                    continue
                if WORLD not in (w1, w2) and (weld[up[w1]] == w2 or weld[up[w2]] == w1):
                    continue
                pairs.append((g1.name, g2.name))
        if not pairs:
            return []
        return [f"contacts: MuJoCo collides {len(pairs)} geom pair(s) (contype, conaffinity), "
                f"{pairs[0][0]!r} and {pairs[0][1]!r} the first; the import makes no contacts"]


def build_mechanism(model: MjcfModel) -> tuple[Mechanism, MjcfReport]:
    """The Mechanism of a parsed MJCF model (module docstring)."""
    b = Builder(model)
    b.assign_parts()
    b.add_joints()
    b.add_equalities()
    return b.m, b.report()


def common_name(names: list[str], taken: Any = ()) -> str:
    """The joint name several MuJoCo elements share ("pin: angle", "pin: slide" -> "pin");
    one element keeps its own name, and a shared head that is already a name in ``taken``
    (the body "a" of unnamed joints "a: joint0", "a: joint1") gives way to the names joined."""
    if len(names) == 1:
        return names[0]
    heads = {n.rsplit(": ", 1)[0] for n in names}
    head = heads.pop() if len(heads) == 1 else None
    return head if head is not None and head not in taken else " + ".join(names)


def axis_frame(axis: np.ndarray) -> np.ndarray:
    """A rotation whose z column is the unit ``axis``."""
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(axis[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, axis)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(axis, x), axis])
