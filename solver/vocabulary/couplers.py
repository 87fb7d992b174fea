"""Couplers: linear relations between joint coordinates (Adams COUPLER), and the gears,
racks and screws that are couplers with named parameters.

A coupler with terms (joint_i, coordinate_i, s_i) holds

    sum_i s_i (q_i - q_i0) = 0,

q_i the joint coordinate (the angle of x_I from x_J about z_J, rad, unwrapped over turns; or
the slide of I's origin from J's along z_J, m: docs/conventions.md), q_i0 its value in
the pose the mechanism is built in: the gears mesh, the rack sits on the pinion, as
modelled, and assembly and every analysis keep that relation.  Each coordinate is relative
to its own joint's marker J, so a gear on a turning carrier (a planetary train) counts its
turns from the carrier.

Named kinds, all couplers:
- gear (external mesh): r_1 theta_1 + r_2 theta_2 = 0 (the gears turn opposite ways, their
  pitch circles roll without slip); internal mesh, belt and chain: r_1 theta_1 - r_2 theta_2
  = 0.  Ratio from pitch radii, teeth counts or ``ratio`` = theta_1 / theta_2 magnitude =
  r_2 / r_1.  Bevel and worm pairs are the same relation on their joints' angles.
- rack and pinion: s = r theta (a revolute's angle, a prismatic's slide; negative r turns
  the other way).
- screw: s = pitch theta / (2 pi) on a cylindrical joint's two coordinates (right-handed:
  the nut turning positively about z advances along +z), or between a revolute and a
  prismatic.  The hand is the thread's: a right-hand thread advances whatever turns
  along the axis it turns positively about, relative to its mate (Budynas and
  Nisbett 2011, sec. 8-1), so between a revolute (the shaft) and a prismatic (the nut), on one common part,
  the shaft turning positively about the screw's axis moves the nut backwards along it,
  whatever the order of either joint's markers (the sign is set when the model is
  compiled: model/plans.py ``screw_sense``); ``terms`` hold the relation as on one
  cylindrical joint.

``terms`` are in the order the joints are given: a rack and pinion's (pinion angle, rack
slide), a screw's (angle, slide); Result.coupler's columns follow them.

Where the forces act: an external or internal gear pair with parallel axes, and a rack
and pinion, act on their parts at the pitch point along the line of action
(model/gear_mesh.py), so the axle joints' reactions carry the tooth force; a screw's
force and torque act through the shaft and the nut along their common axis.  A general
coupler, a belt, a chain and crossed-axis gears act along the joint coordinates only
(torques about the axes, forces along the slides): their joints may be far apart, with
no contact point the relation tells.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..base.errors import MechanismError
from .joints import joint_coordinate
from .validate import number


@dataclass(frozen=True)
class Coupler:
    name: str
    kind: str                          # "gear", "rack-and-pinion", "screw", "coupler"
    terms: tuple[tuple[str, str, float], ...]   # (joint, "angle" | "slide", scale)
    radii: tuple[float, float] | None = None    # gears: pitch radii (m), for the tooth force
    pressure_angle: float = math.radians(20.0)  # gears: rad
    mesh: str | None = None                     # gears: external, internal, belt or chain
    helix_angle: float = 0.0                    # gears: rad, + gear 1's teeth right-handed

    @property
    def parameters(self) -> list[str]:
        """The numbers a design study may vary (study/params.py): a gear's ratio r_2 / r_1,
        a rack's pitch radius (m), a screw's pitch (m per turn), a coupler's scales."""
        if self.kind == "gear":
            return ["ratio"]
        if self.kind == "rack-and-pinion":
            return ["pitch_radius"]
        if self.kind == "screw":
            return ["pitch"]
        return [f"scale{k + 1}" for k in range(len(self.terms))]

    def parameter(self, field: str) -> float:
        """The value of the parameter ``field`` (one of ``parameters``) as built."""
        s = [t[2] for t in self.terms]
        values = {"gear": {"ratio": abs(s[1] / s[0])},
                  "rack-and-pinion": {"pitch_radius": -s[0]},
                  "screw": {"pitch": 2.0 * math.pi * abs(s[0])}}.get(
                      self.kind, {f"scale{k + 1}": x for k, x in enumerate(s)})
        return values[field]


def _positive(value: Any, what: str) -> float:
    x = number(value, what)
    if x <= 0.0:
        raise MechanismError(f"{what} must be positive, got {x}")
    return x


def _tooth_count(value: Any, what: str) -> float:
    """A gear's number of teeth: a whole number >= 1 (12.0 is 12; 12.5 is no gear)."""
    x = _positive(value, what)
    if not x.is_integer():
        raise MechanismError(f"{what} must be whole numbers, got {x:g}")
    return x


def _listed(given: Any, what: str, label: str) -> list:
    """``given`` as a list, or MechanismError naming the coupler (never Python's TypeError
    for None or a number where a sequence belongs)."""
    if isinstance(given, str) or not hasattr(given, "__iter__"):
        raise MechanismError(f"{what}: {label} must be a list of two or three, got {given!r}")
    return list(given)


def make_coupler(name: str, joints: dict, coupled: Any, scales: Any,
                 coordinates: Any = None) -> Coupler:
    """A general coupler over two or three joint coordinates: sum s_i (q_i - q_i0) = 0."""
    what = f"coupler {name!r}"
    coupled = [coupled] if isinstance(coupled, str) else _listed(coupled, what, "joints")
    if not 2 <= len(coupled) <= 3:
        raise MechanismError(f"{what}: couples two or three joint coordinates, got {len(coupled)}")
    scales = [scales] if isinstance(scales, (int, float)) else _listed(scales, what, "scales")
    if len(scales) != len(coupled):
        raise MechanismError(f"{what}: {len(coupled)} joints but {len(scales)} scales")
    coords = ([None] * len(coupled) if coordinates is None
              else [coordinates] if isinstance(coordinates, str)
              else _listed(coordinates, what, "coordinates"))
    if len(coords) != len(coupled):
        raise MechanismError(f"{what}: {len(coupled)} joints but {len(coords)} coordinates")
    terms = []
    for k, (jn, c, s) in enumerate(zip(coupled, coords, scales)):
        joint, coord = joint_coordinate(joints, what, jn, c)
        if (joint, coord) in [(t[0], t[1]) for t in terms]:
            raise MechanismError(f"{what}: the {coord} of joint {joint!r} appears twice")
        terms.append((joint, coord, number(s, f"{what}: scale {k + 1}")))
    if sum(1 for t in terms if t[2] != 0.0) < 2:
        raise MechanismError(f"{what}: at least two scales must be non-zero")
    return Coupler(name, "coupler", tuple(terms))


def make_gear(name: str, joints: dict, joint1: Any, joint2: Any, ratio: Any = None,
              teeth: Any = None, radii: Any = None, mesh: str = "external",
              pressure_angle: Any = 20.0, helix_angle: Any = 0.0) -> Coupler:
    """Two revolute or cylindrical joints' angles geared together (module docstring); one
    of ``radii`` (pitch radii r_1, r_2, m), ``teeth`` (z_1, z_2) or ``ratio`` (r_2 / r_1).
    ``pressure_angle`` in degrees (tooth force along the line of action, with radii), in
    the plane across the axes; ``helix_angle`` in degrees, helical teeth: positive where
    gear 1's are right-handed (gear 2's then left-handed on an external mesh, right-handed
    on an internal one), whose thrust F_t tan(helix) the axles carry."""
    what = f"gear {name!r}"
    j1 = joint_coordinate(joints, what, joint1, None, "angle")
    j2 = joint_coordinate(joints, what, joint2, None, "angle")
    if j1[0] == j2[0]:
        raise MechanismError(f"{what}: joint {j1[0]!r} is geared to itself")
    given = [x is not None for x in (ratio, teeth, radii)]
    if sum(given) != 1:
        raise MechanismError(f"{what}: give exactly one of ratio, teeth or radii")
    pitch = None
    if radii is not None:
        r1, r2 = (_positive(x, f"{what}: pitch radius") for x in _pair(radii, what, "radii"))
        pitch = (r1, r2)
    elif teeth is not None:
        r1, r2 = (_tooth_count(x, f"{what}: teeth") for x in _pair(teeth, what, "teeth"))
    else:
        r1, r2 = 1.0, _positive(ratio, f"{what}: ratio")
    mesh = str(mesh).strip().lower()
    if mesh not in ("external", "internal", "belt", "chain"):
        raise MechanismError(f"{what}: mesh must be external, internal, belt or chain, got {mesh!r}")
    sign = 1.0 if mesh == "external" else -1.0
    pa = number(pressure_angle, f"{what}: pressure_angle")
    if not 0.0 <= pa < 60.0:
        raise MechanismError(f"{what}: pressure_angle must be in [0, 60) degrees, got {pa}")
    helix = number(helix_angle, f"{what}: helix_angle")
    if not abs(helix) < 45.0:
        raise MechanismError(f"{what}: helix_angle must be in (-45, 45) degrees, got {helix}")
    if helix != 0.0 and mesh not in ("external", "internal"):
        raise MechanismError(f"{what}: a {mesh} has no helical teeth (helix_angle {helix})")
    return Coupler(name, "gear", ((j1[0], "angle", r1), (j2[0], "angle", sign * r2)),
                   pitch, math.radians(pa), mesh, math.radians(helix))


def make_rack_pinion(name: str, joints: dict, pinion: Any, rack: Any, pitch_radius: Any) -> Coupler:
    """A revolute (or cylindrical) joint's angle and a prismatic (or cylindrical) joint's
    slide: s = r theta."""
    what = f"rack and pinion {name!r}"
    jp = joint_coordinate(joints, what, pinion, None, "angle")
    jr = joint_coordinate(joints, what, rack, None, "slide")
    r = number(pitch_radius, f"{what}: pitch_radius")
    if r == 0.0:
        raise MechanismError(f"{what}: pitch_radius must not be zero")
    return Coupler(name, "rack-and-pinion", ((jp[0], "angle", -r), (jr[0], "slide", 1.0)))


def make_screw(name: str, joints: dict, joint: Any, pitch: Any, slide_joint: Any = None,
               hand: str = "right") -> Coupler:
    """A lead screw: s = pitch theta / (2 pi), pitch in m per turn; on one cylindrical
    joint, or the angle of ``joint`` and the slide of ``slide_joint``."""
    what = f"screw {name!r}"
    lead = _positive(pitch, f"{what}: pitch")
    ja = joint_coordinate(joints, what, joint, None, "angle")
    js = joint_coordinate(joints, what, joint if slide_joint is None else slide_joint, None, "slide")
    hand = str(hand).strip().lower()
    if hand not in ("right", "left"):
        raise MechanismError(f"{what}: hand must be 'right' or 'left', got {hand!r}")
    lead = lead if hand == "right" else -lead
    return Coupler(name, "screw", ((ja[0], "angle", -lead / (2.0 * math.pi)), (js[0], "slide", 1.0)))


def _pair(value: Any, what: str, label: str) -> tuple[Any, Any]:
    try:
        a, b = value
    except (TypeError, ValueError):
        raise MechanismError(f"{what}: {label} must be two numbers, got {value!r}") from None
    return a, b
