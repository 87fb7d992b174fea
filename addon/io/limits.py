"""A joint's stops and friction as the solver's calls, and the viewport's drawing
of a limit's range, without Blender.

Settings as the sidebar stores them on a JOINT object: angle bounds in radians, slide bounds
and lengths (pin radius, thrust arm, bearing length) in Blender units (times the scene's
``scale_length`` for the solver's metres); coefficients, restitution, transition speed
(rad/s or m/s), viscous term and preload in SI; a compliant stop's stiffness and damping
in SI, its penetration depth in radians or Blender units (0 on a slide: the solver's
1e-3 m, a physical depth whatever the unit scale).  A cylindrical joint's limit and friction
act on the coordinate chosen (the motion's rule: a revolute has only its angle, a prismatic
only its slide).  The solver names the items "<joint>: limit" and "<joint>: friction", so
its errors name the joint object.  A spherical joint's friction acts on its relative
rotation (any direction) with the ball's radius as its lever (Pin Radius in the panel);
thrust arm and bearing length do not apply to a ball.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...solver import FRICTION_COORDINATES, JOINT_COORDINATES, quat_to_matrix
from .part_frames import marker_frame
from .settings import kind_name, motion_coordinate



@dataclass(frozen=True)
class LimitSettings:
    """A joint's stops as stored (see the module docstring for units)."""
    kind: str                       # the JOINT_KINDS enum value ("REVOLUTE", ...)
    coordinate: str                 # "ANGLE" or "SLIDE" (a cylindrical joint's choice)
    use_lower: bool
    use_upper: bool
    lower_angle: float = 0.0
    upper_angle: float = 0.0
    lower_slide: float = 0.0
    upper_slide: float = 0.0
    restitution: float = 0.5
    compliant: bool = False         # a compliant stop (Adams IMPACT) instead of a rigid one
    stiffness: float = 0.0          # N/m^n or N m/rad^n
    exponent: float = 1.0
    damping: float = 0.0            # N s/m or N m s/rad, reached at the penetration below
    penetration_angle: float = 1e-3     # rad
    penetration_slide: float = 0.0      # Blender units; 0: the solver's 1e-3 m


@dataclass(frozen=True)
class FrictionSettings:
    """A joint's friction as stored (see the module docstring for units)."""
    kind: str
    coordinate: str
    use: bool
    static: float = 0.0
    dynamic: float = 0.0
    transition_speed: float = 0.0   # 0: the solver's default
    viscous: float = 0.0
    preload: float = 0.0
    radius: float = 0.0
    arm: float = 0.0
    bearing_length: float = 0.0


def limit_name(joint: str) -> str:
    """Solver name of the stops on a joint (errors and the CSV show it)."""
    return f"{joint}: limit"


def friction_name(joint: str) -> str:
    """Solver name of the friction on a joint."""
    return f"{joint}: friction"


def has_coordinate(kind: str) -> bool:
    """Whether a joint kind (enum value) has an angle or slide to limit or rub on."""
    return bool(JOINT_COORDINATES.get(kind_name(kind), ()))


def has_angle(kind: str) -> bool:
    """Whether a joint kind (enum value) has an angle a torsion spring winds."""
    return "angle" in JOINT_COORDINATES.get(kind_name(kind), ())


def limit_bounds(s: LimitSettings) -> tuple[str, float | None, float | None]:
    """(coordinate, lower, upper): "angle" (rad) or "slide" (Blender units); None for a
    bound that is off."""
    coord = motion_coordinate(s.kind, s.coordinate)
    if coord == "angle":
        lo, hi = s.lower_angle, s.upper_angle
    else:
        lo, hi = s.lower_slide, s.upper_slide
    return coord, (lo if s.use_lower else None), (hi if s.use_upper else None)


def unused_notes(joint: str, stops: LimitSettings, friction: FrictionSettings,
                 torsion: bool = False, motion: bool = False) -> list[str]:
    """Check's and Bake's lines for a joint's stops, friction, torsion spring or motion that
    are on for a kind with nothing for them to act on (a joint changed to spherical or
    prismatic after they were set: the panel hides them and the solver gets none, as
    ``has_angle`` and ``has_coordinate`` say), so none is dropped unsaid."""
    out = []
    if motion and not has_coordinate(stops.kind):
        out.append(f"joint {joint!r}: its motion is on, but a {kind_name(stops.kind)} joint has "
                   "no angle or slide to drive: it is not used (untick it, or change its Kind)")
    if torsion and not has_angle(stops.kind):
        out.append(f"joint {joint!r}: its torsion spring is on, but a {kind_name(stops.kind)} "
                   "joint has no angle to wind: it is not used (untick it, or change its Kind)")
    if (stops.use_lower or stops.use_upper) and not has_coordinate(stops.kind):
        out.append(f"joint {joint!r}: its stops are on, but a {kind_name(stops.kind)} joint has "
                   "no angle or slide to stop: they are not used (untick them, or change its Kind)")
    if friction.use and not has_friction(friction.kind):
        out.append(f"joint {joint!r}: its friction is on, but a {kind_name(friction.kind)} "
                   "joint has no angle, "
                   "slide or ball to rub on: it is not used (untick it, or change its Kind)")
    return out


def limit_call(joint: str, s: LimitSettings, scale: float) -> dict | None:
    """Keyword arguments of ``Mechanism.add_limit`` for a joint's stops (slides in metres:
    Blender units times ``scale``); None when neither bound is on or the kind has no angle
    or slide."""
    if not (s.use_lower or s.use_upper) or not has_coordinate(s.kind):
        return None
    coord, lo, hi = limit_bounds(s)
    k = scale if coord == "slide" else 1.0
    call = dict(name=limit_name(joint), joint=joint, coordinate=coord,
                lower=None if lo is None else lo * k, upper=None if hi is None else hi * k,
                restitution=s.restitution)
    if s.compliant:
        call.update(stiffness=s.stiffness, exponent=s.exponent, damping=s.damping,
                    penetration=s.penetration_angle if coord == "angle"
                    else s.penetration_slide * scale if s.penetration_slide > 0.0 else None)
    return call


def bounds_in_scene_units(message: str, names, slides: dict, scale: float,
                          length_text: Callable[[float], str]) -> str:
    """A solver message naming a slide limit (its names among ``names``) with that limit's
    bounds also as their Lower and Upper fields show them (the solver speaks metres; a
    millimetre scene's user typed millimetres): ``length_text`` writes metres in the scene's
    units.  ``slides``: limit name -> (lower, upper) in metres, None for a bound that is
    off.  Unchanged at a scale of 1 or for an angle limit."""
    if scale == 1.0:
        return message
    for name in names:
        if name in slides:
            text = ", ".join(f"{label} {length_text(b)}"
                             for label, b in zip(("lower", "upper"), slides[name])
                             if b is not None)
            return f"{message} (the stops as their fields show them: {text})"
    return message


def has_friction(kind: str) -> bool:
    """Whether a joint kind (enum value) can have friction: an angle, a slide or a ball's
    rotation to rub on."""
    return bool(FRICTION_COORDINATES.get(kind_name(kind), ()))


def friction_call(joint: str, s: FrictionSettings, scale: float) -> dict | None:
    """Keyword arguments of ``Mechanism.add_friction`` for a joint's friction (lengths in
    metres); None when it is off or the kind has nothing to rub on."""
    if not s.use or not has_friction(s.kind):
        return None
    if kind_name(s.kind) == "spherical":
        return dict(name=friction_name(joint), joint=joint, coordinate="rotation",
                    static=s.static, dynamic=s.dynamic,
                    transition_speed=s.transition_speed if s.transition_speed > 0.0 else None,
                    viscous=s.viscous, preload=s.preload, radius=s.radius * scale)
    return dict(name=friction_name(joint), joint=joint,
                coordinate=motion_coordinate(s.kind, s.coordinate),
                static=s.static, dynamic=s.dynamic,
                transition_speed=s.transition_speed if s.transition_speed > 0.0 else None,
                viscous=s.viscous, preload=s.preload, radius=s.radius * scale,
                arm=s.arm * scale, bearing_length=s.bearing_length * scale)


def _axes(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(origin, x, y, z) of marker J's frame as the solver has it (part_frames.marker_frame)."""
    origin, orientation = marker_frame(np.asarray(matrix, dtype=float))
    R = quat_to_matrix(orientation)
    return origin, R[:, 0], R[:, 1], R[:, 2]


def limit_lines(matrix: np.ndarray, coordinate: str, lower: float | None, upper: float | None,
                size: float, segments: int = 64) -> np.ndarray:
    """Vertices (k, 3) float32 of a LINES batch drawing a limit's range at marker J (its
    world ``matrix`` (4, 4), Blender units; scale taken out of its axes).  An angle: an arc
    of radius ``size`` in J's xy plane from ``lower`` to ``upper`` about J's z axis (angles
    from J's x axis), a bound that is off reaching round to -pi or pi, and a radial stroke
    from the origin to 1.25 ``size`` at each bound that is on.  A slide: a segment along
    J's z axis from ``lower`` to ``upper`` (Blender units), a bound that is off drawn
    ``size`` beyond the other, and a stroke of ``size``/2 along J's x axis across each bound
    that is on.  (0, 3) when both bounds are off."""
    try:
        o, x, y, z = _axes(matrix)
    except ValueError:                     # marker J scaled to zero: no frame to draw in
        lower = upper = None
    if lower is None and upper is None:
        return np.zeros((0, 3), np.float32)
    lines = []
    if coordinate == "angle":
        lo = -math.pi if lower is None else lower
        hi = math.pi if upper is None else upper
        n = max(2, int(math.ceil(segments * (hi - lo) / (2.0 * math.pi))))
        a = np.linspace(lo, hi, n + 1)
        pts = o + size * (np.cos(a)[:, None] * x + np.sin(a)[:, None] * y)
        lines.append(np.stack([pts[:-1], pts[1:]], axis=1).reshape(-1, 3))
        for b in (lower, upper):
            if b is not None:
                lines.append(np.array([o, o + 1.25 * size * (math.cos(b) * x + math.sin(b) * y)]))
    else:
        lo = upper - size if lower is None else lower
        hi = lower + size if upper is None else upper
        lines.append(np.array([o + lo * z, o + hi * z]))
        for b in (lower, upper):
            if b is not None:
                lines.append(np.array([o + b * z - 0.25 * size * x, o + b * z + 0.25 * size * x]))
    return np.concatenate(lines).astype(np.float32)
