"""Coupler objects without Blender: a coupler's sidebar settings as the solver call that adds
it, the kind Couple guesses from the selected joints, the pitch radius measured from a
gear's mesh, and the viewport's line between the joints a coupler ties.

A coupler object ties joint coordinates (solver/vocabulary/couplers.py has the relations
and signs).  It has up to three joint fields, A, B and C, whose meaning follows its kind
(SLOT_LABELS: gear 1 and gear 2; pinion and rack; screw and nut slide; joints 1 to 3).  The
reader passes each used field as (joint object name, solver joint kind) or None when unset;
errors name the coupler object, the field as the panel labels it, and what to put there.
Lengths are in Blender units, times ``scale`` (metres per unit) for the solver, like every
other length the add-on reads.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ...solver import JOINT_COORDINATES, MechanismError, quat_to_matrix
from .plots import coupler_prop

COUPLER_KINDS = [
    ("GEAR", "Gear", "Two joints' angles geared: external or internal mesh, belt or chain"),
    ("RACK_PINION", "Rack and Pinion", "A pinion's angle and a rack's slide: travel = radius x angle"),
    ("SCREW", "Screw", "A lead screw: advance = pitch x turns (a cylindrical joint, or a revolute "
                       "and a prismatic joint)"),
    ("COUPLER", "Coupler", "Any linear relation s1 q1 + s2 q2 (+ s3 q3) = 0 between two or three "
                           "joint coordinates")]
KIND_LABELS = {"GEAR": "Gear", "RACK_PINION": "Rack and pinion", "SCREW": "Screw", "COUPLER": "Coupler"}
# what the panel calls fields A, B, C for each kind (and how errors name them)
SLOT_LABELS = {"GEAR": ("Gear 1", "Gear 2"), "RACK_PINION": ("Pinion", "Rack"),
               "SCREW": ("Screw", "Nut Slide"), "COUPLER": ("Joint 1", "Joint 2", "Joint 3")}
# fields that must be set (the rest are optional: a screw's separate slide, a third term)
REQUIRED = {"GEAR": 2, "RACK_PINION": 2, "SCREW": 1, "COUPLER": 2}
_JOINTS_FOR = {"angle": "a revolute or cylindrical joint", "slide": "a prismatic or cylindrical joint",
               None: "a revolute, prismatic or cylindrical joint"}

Joint = tuple[str, str]          # (joint object name = solver joint name, solver joint kind)


@dataclass(frozen=True)
class CouplerSettings:
    """A coupler object's settings as plain values (properties.py: same names; lengths in
    Blender units, the pressure and helix angles in radians, enum values as stored)."""
    kind: str = "GEAR"
    ratio_mode: str = "RADII"
    radius_a: float = 0.0
    radius_b: float = 0.0
    teeth_a: int = 20
    teeth_b: int = 40
    gear_ratio: float = 2.0
    mesh: str = "EXTERNAL"
    pressure_angle: float = math.radians(20.0)
    helix_angle: float = 0.0
    pitch_radius: float = 0.0
    pitch: float = 0.0
    hand: str = "RIGHT"
    scales: tuple[float, ...] = (1.0, -1.0, 1.0)
    coordinates: tuple[str, ...] = ("ANGLE", "ANGLE", "ANGLE")


@dataclass(frozen=True)
class CouplerCall:
    """How to add a coupler to a Mechanism: ``getattr(mech, method)(name, **kwargs)``.
    ``terms``: (field number 1-3, "angle" | "slide") in the order of Result.coupler's
    columns; ``tooth_force``: a toothed gear (not a belt), whose Result.tooth_force exists
    given its pitch radii, or by teeth or ratio where its axes mesh at a pitch point
    (parallel: the radii as built)."""
    method: str
    kwargs: dict = field(default_factory=dict)
    terms: tuple[tuple[int, str], ...] = ()
    tooth_force: bool = False

    @property
    def props(self) -> tuple[str, ...]:
        """The custom properties a bake animates, one per term in Result.coupler's column
        order ("coupler_torque_<field>" on an angle, "coupler_force_<field>" on a slide),
        then "tooth_force" for a toothed gear (coupler_plots leaves it out where a gear by
        teeth or ratio has axes that do not mesh)."""
        return tuple(coupler_prop(c, k) for k, c in self.terms) + (
            ("tooth_force",) if self.tooth_force else ())


def coordinates_of(kind: str) -> tuple[str, ...]:
    """The coordinates a solver joint kind has ("revolute" -> ("angle",))."""
    return JOINT_COORDINATES.get(kind, ())


def chosen_coordinate(kind: str, choice: str) -> str | None:
    """The coordinate a general coupler's term takes on a joint of solver ``kind``: the
    choice ("ANGLE" | "SLIDE") on a cylindrical joint, the only one a revolute or prismatic
    joint has (whatever the hidden choice says), None for a joint without coordinates."""
    have = coordinates_of(kind)
    wanted = "angle" if choice == "ANGLE" else "slide"
    return wanted if wanted in have else (have[0] if len(have) == 1 else None)


def _joint(what: str, kind: str, joints: Sequence[Joint | None], k: int, need: str | None,
           optional: bool = False) -> str | None:
    """Field k's joint name, checked: set (unless ``optional``) and having coordinate ``need``."""
    label = SLOT_LABELS[kind][k]
    j = joints[k] if k < len(joints) else None
    if j is None:
        if optional:
            return None
        raise MechanismError(f"{what}: {label} is not set: pick {_JOINTS_FOR[need]}")
    name, jkind = j
    have = coordinates_of(jkind)
    if (need is None and not have) or (need is not None and need not in have):
        raise MechanismError(f"{what}: {label} {name!r} is a {jkind} joint, which has no "
                             f"{need or 'coordinate'}: pick {_JOINTS_FOR[need]}")
    return name


_OTHER_MESH = {"EXTERNAL": "INTERNAL", "INTERNAL": "EXTERNAL"}


def _repeat_check(what: str, kind: str, terms: Sequence[tuple[str, str | None]]) -> None:
    """MechanismError naming the coupler, the field and the joint when a field repeats an
    earlier field's (joint, coordinate): a joint geared or coupled to itself.  Checked
    before the ratio and radii, since a fix of the field may change them (the solver
    refuses it too, but only after them and without the field's label)."""
    labels = SLOT_LABELS[kind]
    for k, term in enumerate(terms):
        if term in terms[:k]:
            first = labels[terms.index(term)]
            raise MechanismError(f"{what}: {labels[k]} {term[0]!r} is {first} too, and a "
                                 f"coupler ties two different joints' {term[1] or 'coordinate'}s: "
                                 f"pick another joint for {labels[k]}")


def _ratio_check(what: str, s: CouplerSettings) -> None:
    """MechanismError naming the coupler for pitch radii left at 0 (the solver checks teeth
    and ratios by the same name)."""
    if s.ratio_mode == "RADII" and not (s.radius_a > 0.0 and s.radius_b > 0.0):
        raise MechanismError(f"{what}: the pitch radii must be above 0 (Radius 1 "
                             f"{s.radius_a:g}, Radius 2 {s.radius_b:g}): type them, or "
                             "press Radii from Meshes")


def coupler_call(name: str, settings: CouplerSettings, joints: Sequence[Joint | None],
                 scale: float = 1.0, opposed: bool = False) -> CouplerCall:
    """The solver call that adds coupler object ``name`` with ``settings``; ``joints`` its
    fields A, B, C (unused ones ignored); ``scale`` metres per Blender unit; ``opposed``: a
    gear's joints count their gears' turns in opposite senses (``turns_opposed``), so the
    Mesh, which says how the gears turn, is the solver's other relation (an external mesh
    its internal one and the reverse; a belt or chain a coupler of the two angles).  MechanismError
    naming the coupler and the field for a field unset or of the wrong joint kind, and for
    a gear radius or rack pitch radius left at 0 (the solver checks the rest by the same
    name)."""
    s, kind = settings, settings.kind
    what = f"coupler {name!r}"
    if kind == "GEAR":
        a = _joint(what, kind, joints, 0, "angle")
        b = _joint(what, kind, joints, 1, "angle")
        _repeat_check(what, kind, [(a, "angle"), (b, "angle")])
        if opposed and s.mesh in ("BELT", "CHAIN"):
            _ratio_check(what, s)
            r1, r2 = _ratio_radii(s, scale)
            return CouplerCall("add_coupler", dict(joints=[a, b], scales=[r1, r2],
                                                   coordinates=["angle", "angle"]),
                               ((1, "angle"), (2, "angle")))
        mesh = _OTHER_MESH[s.mesh] if opposed else s.mesh
        args: dict = dict(joint1=a, joint2=b, mesh=mesh.lower(),
                          pressure_angle=math.degrees(s.pressure_angle))
        if s.mesh != "BELT":              # a belt has no teeth: the panel hides the field
            args["helix_angle"] = math.degrees(s.helix_angle)
        _ratio_check(what, s)
        if s.ratio_mode == "RADII":
            args["radii"] = (s.radius_a * scale, s.radius_b * scale)
        elif s.ratio_mode == "TEETH":
            args["teeth"] = (s.teeth_a, s.teeth_b)
        else:
            args["ratio"] = s.gear_ratio
        return CouplerCall("add_gear", args, ((1, "angle"), (2, "angle")),
                           s.mesh != "BELT")
    if kind == "RACK_PINION":
        pinion = _joint(what, kind, joints, 0, "angle")
        rack = _joint(what, kind, joints, 1, "slide")
        if s.pitch_radius == 0.0:
            raise MechanismError(f"{what}: the pinion's pitch radius is 0: type it (negative "
                                 "runs the rack the other way), or press Radii from Meshes")
        return CouplerCall("add_rack_pinion", dict(pinion=pinion, rack=rack,
                                                   pitch_radius=s.pitch_radius * scale),
                           ((1, "angle"), (2, "slide")))
    if kind == "SCREW":
        screw = _joint(what, kind, joints, 0, "angle")
        nut = _joint(what, kind, joints, 1, "slide", optional=True)
        if nut is None and "slide" not in coordinates_of(joints[0][1]):
            raise MechanismError(f"{what}: {SLOT_LABELS[kind][0]} {screw!r} is a {joints[0][1]} "
                                 f"joint, which has no slide: make it cylindrical, or set "
                                 f"{SLOT_LABELS[kind][1]} to the nut's prismatic joint")
        return CouplerCall("add_screw", dict(joint=screw, pitch=s.pitch * scale, slide_joint=nut,
                                             hand=s.hand.lower()),
                           ((1, "angle"), (1 if nut is None else 2, "slide")))
    if kind == "COUPLER":
        names, coords, scales, terms = [], [], [], []
        for k in range(3):
            jn = _joint(what, kind, joints, k, None, optional=k >= REQUIRED[kind])
            if jn is None:
                continue
            coord = chosen_coordinate(joints[k][1], s.coordinates[k])
            names.append(jn)
            coords.append(coord)
            _repeat_check(what, kind, list(zip(names, coords)))   # fields 1, 2 are required
            # the relation in scene units: a slide counted in Blender units is slide_m / scale
            scales.append(s.scales[k] / scale if coord == "slide" else s.scales[k])
            terms.append((k + 1, coord))
        return CouplerCall("add_coupler", dict(joints=names, scales=scales, coordinates=coords),
                           tuple(terms))
    raise MechanismError(f"{what}: unknown coupler kind {kind!r}")


def guess_kind(joints: Sequence[Joint]) -> tuple[str, list[int]]:
    """What Couple makes of the selected joints (in the order given, the active first):
    (kind, the order in which they fill fields A, B, C).  Two joints with angles (revolute
    or cylindrical): a gear; one with an angle and one prismatic: rack and pinion, the
    pinion (the one with the angle) first; two prismatic: a coupler of their slides; one
    cylindrical: a screw; three: a general coupler.  MechanismError naming a joint that has
    no coordinate, or a selection that makes no coupler."""
    for name, kind in joints:
        if not coordinates_of(kind):
            raise MechanismError(f"Couple: joint {name!r} is a {kind} joint, which has no "
                                 "coordinate to couple (revolute, prismatic or cylindrical only)")
    n = len(joints)
    if n == 1:
        name, kind = joints[0]
        if kind != "cylindrical":
            raise MechanismError(f"Couple: one joint selected, {name!r}, a {kind} joint: a "
                                 "screw on one joint needs a cylindrical joint (or select two "
                                 "or three joints)")
        return "SCREW", [0]
    if n == 2:
        angle = ["angle" in coordinates_of(k) for _, k in joints]
        if all(angle):
            return "GEAR", [0, 1]
        if any(angle):
            return "RACK_PINION", [0, 1] if angle[0] else [1, 0]
        return "COUPLER", [0, 1]
    if n == 3:
        return "COUPLER", [0, 1, 2]
    raise MechanismError(f"Couple: select one, two or three joints (got {n})")


def coupler_object_name(kind: str, joints: Sequence[str]) -> str:
    """The name Couple gives a coupler object: its kind, then its joints ('Gear j1-j2')."""
    return f"{KIND_LABELS[kind]} {'-'.join(joints)}"


def radii_about_axis(points: np.ndarray, origin: np.ndarray,
                     direction: np.ndarray) -> tuple[float, float]:
    """(least, largest) distance of ``points`` (n, 3) from the line through ``origin`` along
    ``direction`` (any length): a ring gear's bore (the tip circle of its internal teeth)
    and a gear mesh's outer radius (a toothed mesh's tip circle; a cylinder's radius).
    MechanismError for no points or a zero direction."""
    p = np.asarray(points, float).reshape(-1, 3)
    d = np.asarray(direction, float)
    n = float(np.linalg.norm(d))
    if len(p) == 0 or n == 0.0:
        raise MechanismError("no vertices to measure" if len(p) == 0 else "the axis has no direction")
    rel = p - np.asarray(origin, float)
    along = rel @ (d / n)
    perp = rel - along[:, None] * (d / n)
    dist2 = np.sum(perp * perp, axis=1)
    return float(np.sqrt(np.min(dist2))), float(np.sqrt(np.max(dist2)))


def radius_about_axis(points: np.ndarray, origin: np.ndarray, direction: np.ndarray) -> float:
    """Largest distance of ``points`` from the line (``radii_about_axis``): a gear mesh's
    outer radius about its joint axis."""
    return radii_about_axis(points, origin, direction)[1]


def internal_radii(gear1: tuple[float, float], gear2: tuple[float, float]) -> tuple[float, float]:
    """The pitch radii Radii from Meshes gives an internal pair from each gear mesh's (least,
    largest) distance about its axis (``radii_about_axis``).  The ring, the gear of the
    larger outer radius, meshes on its inside: it gives its bore (its inner wall, the tip
    circle of internal teeth) where the other gear fits inside that, else (a ring drawn as
    a disc of its pitch circle) its outer radius; the other gear its outer radius."""
    ring = 1 if gear2[1] >= gear1[1] else 0
    radii = [gear1[1], gear2[1]]
    bore = (gear1, gear2)[ring][0]
    if bore > radii[1 - ring]:
        radii[ring] = bore
    return radii[0], radii[1]


def gear_sides(parts: Sequence[tuple[str, str]]) -> list[float]:
    """Which part of each of two joints is the gear (or pinion, or rack): ``parts`` each
    joint's (part I, part J).  +1 its part I, -1 its part J: the gear is the joint's part
    that the other joint does not also hold (the housing both share); +1 for both when
    they share no part or both (a planet on its carrier geared to a sun on the ground), as
    the solver places a pitch point (solver/model/gear_mesh.py)."""
    common = set(parts[0]) & set(parts[1])
    if len(common) != 1:
        return [1.0, 1.0]
    housing = common.pop()
    return [-1.0 if pi == housing else 1.0 for pi, _ in parts]


def turns_opposed(sides: Sequence[float], axes: Sequence[np.ndarray]) -> bool:
    """Whether two gear joints' angles count their gears' own turns in opposite senses: a
    joint whose marker I is on the housing (Connect with the housing active) counts its
    gear's turn backwards, and so does a joint whose axis (marker J's z, world ``axes``)
    points against the other's.  Axes more than 45 degrees apart (bevel gears) have no
    sense to compare: only the sides count.  An External mesh of opposed joints is then
    the relation the solver calls internal, and the reverse."""
    z0, z1 = (np.asarray(a, dtype=float) for a in axes)
    cos = float(z0 @ z1) / max(float(np.linalg.norm(z0) * np.linalg.norm(z1)), 1e-300)
    along = math.copysign(1.0, cos) if abs(cos) >= math.cos(math.radians(45.0)) else 1.0
    return sides[0] * sides[1] * along < 0.0


def _marker_world(mech, marker: str) -> tuple[np.ndarray, np.ndarray]:
    """(origin (3,), z axis (3,)) of a marker of the builder ``mech`` in the world, as built."""
    mk = mech.markers[marker]
    part = mech.parts[mk.part]
    R = quat_to_matrix(np.asarray(part.orientation, dtype=float))
    return (np.asarray(part.position, dtype=float) + R @ np.asarray(mk.position, dtype=float),
            R @ quat_to_matrix(np.asarray(mk.orientation, dtype=float))[:, 2])


def _joint_parts(mech, joints: Sequence[str]) -> list[tuple[str, str]]:
    """(part I, part J) of each of ``joints`` of the builder ``mech``."""
    return [(mech.markers[mech.joints[j].marker_i].part, mech.markers[mech.joints[j].marker_j].part)
            for j in joints]


def gear_opposed(mech, joints: Sequence[str]) -> bool:
    """``turns_opposed`` for two joints of the builder ``mech`` (a gear's fields A and B),
    their parts and marker J axes as built."""
    axes = [_marker_world(mech, mech.joints[j].marker_j)[1] for j in joints]
    return turns_opposed(gear_sides(_joint_parts(mech, joints)), axes)


def rack_side_note(name: str, mech, joints: Sequence[str], pitch_radius: float) -> str | None:
    """Check's note on a rack and pinion (coupler ``name``, joints pinion and rack of the
    builder ``mech``) whose Pitch Radius has the sign that meshes a rack on the other side
    of the pinion than its rack part's centre of mass (``rack_pitch_sign``): the rack then
    runs as a rack on the far side would, and its tooth force acts where it is not.  None
    when the sign fits, or there is no side to read."""
    parts = _joint_parts(mech, joints)
    sides = gear_sides(parts)
    rack = parts[1][0] if sides[1] > 0 else parts[1][1]
    part = mech.parts[rack]
    if part.fixed:
        return None
    centre = np.asarray(part.position, dtype=float) + quat_to_matrix(
        np.asarray(part.orientation, dtype=float)) @ np.asarray(part.center_of_mass, dtype=float)
    origin, axis = _marker_world(mech, mech.joints[joints[0]].marker_j)
    slide = _marker_world(mech, mech.joints[joints[1]].marker_j)[1]
    if rack_pitch_sign(sides, axis, slide, centre - origin) * pitch_radius >= 0.0:
        return None
    return (f"rack and pinion {name!r}: its rack (part {rack!r}) lies on the other side of the "
            f"pinion from where a Pitch Radius of this sign meshes it, so it runs the way a "
            f"rack on the far side would: make the Pitch Radius "
            f"{'negative' if pitch_radius > 0 else 'positive'} (Radii from Meshes sets it)")


def rack_pitch_sign(sides: Sequence[float], pinion_axis: np.ndarray, slide: np.ndarray,
                    offset: np.ndarray) -> float:
    """The sign of a rack and pinion's pitch radius (s = r theta) that makes the rack run as
    it meshes where it is: ``offset`` from a point of the pinion's axis to the rack, world;
    ``pinion_axis``, ``slide`` the two joints' marker J z axes; ``sides`` their gear sides
    (``gear_sides``).  A pinion turning positively about its axis a moves its rim on the
    rack's side n along a x n, so s = r theta with r > 0 holds where (slide x a) . n > 0,
    each joint counting its part's motion backwards (side -1) flipping it; the solver puts
    the pitch point on that side (solver/model/gear_mesh.py).  +1 for a rack on the
    pinion's axis or a slide along it (no side to read)."""
    across = np.cross(np.asarray(slide, dtype=float), np.asarray(pinion_axis, dtype=float))
    side = float(across @ np.asarray(offset, dtype=float))
    scale = float(np.linalg.norm(across) * np.linalg.norm(offset))
    if not abs(side) > 1e-9 * scale or scale == 0.0:
        return 1.0
    return math.copysign(1.0, side) * sides[0] * sides[1]


def _ratio_radii(s: CouplerSettings, scale: float) -> tuple[float, float]:
    """A gear's (r_1, r_2) as its Ratio From gives them: pitch radii (m), teeth, or 1 and
    the ratio."""
    if s.ratio_mode == "RADII":
        return s.radius_a * scale, s.radius_b * scale
    if s.ratio_mode == "TEETH":
        return float(s.teeth_a), float(s.teeth_b)
    return 1.0, float(s.gear_ratio)


def tie_lines(origins: Sequence[Sequence[np.ndarray]]) -> np.ndarray:
    """Vertices (k, 3) float32 of a LINES batch: for each coupler the origins (Blender units,
    world) of the joints it ties, in field order, joined one to the next (a screw on one
    joint draws nothing); (0, 3) for none."""
    segs = [np.array([a, b], float) for pts in origins for a, b in zip(pts[:-1], pts[1:])]
    return np.concatenate(segs).astype(np.float32) if segs else np.zeros((0, 3), np.float32)
