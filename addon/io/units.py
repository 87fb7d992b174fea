"""Lengths as the user reads them: the solver speaks metres, a scene may be drawn in
millimetres (unit scale 0.001) or inches. ``LENGTH_UNITS`` gives each fixed Length unit of
Blender's Units panel its symbol and size; ``lengths_in_scene_units`` writes a solver
message's metres also in the scene's units; ``angle_text`` writes an angle in the scene's
rotation unit; ``metres_per_unit`` is the scene's Blender unit in metres. No Blender
needed."""
from __future__ import annotations

import math
import re
from typing import Callable

# Blender's unit_settings.length_unit (a fixed unit, not Adaptive) -> (symbol, metres)
LENGTH_UNITS = {"KILOMETERS": ("km", 1e3), "METERS": ("m", 1.0), "CENTIMETERS": ("cm", 1e-2),
                "MILLIMETERS": ("mm", 1e-3), "MICROMETERS": ("µm", 1e-6),
                "MILES": ("mi", 1609.344), "FEET": ("ft", 0.3048), "INCHES": ("in", 0.0254),
                "THOU": ("thou", 2.54e-5)}

# a number followed by the unit m alone: not m/s, m^2, mm, nor the m of "N m" (a number
# must come right before it); or by m/s, a speed (not m/s^2)
_METRES = re.compile(r"(?<![\w.+-])(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?) m(?![\w/^²³])")
_SPEED = re.compile(r"(?<![\w.+-])(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?) m/s(?![\w/^²³])")

# a number followed by deg or degrees, not inside "x rad (y deg)", after "+-" nor degrees
# of freedom
_DEGREES = re.compile(r"(?<![\w.+-])(?<!rad \()(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?) "
                      r"deg(?:rees)?(?!\w)(?! of freedom)")

# a number followed by rad or rad/s, not already followed by its degrees "(x deg"
_RADIANS = re.compile(r"(?<![\w.+-])(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?) rad(/s)?(?![\w/^²])"
                      r"(?! \(-?[\d.]+(?:[eE][-+]?\d+)? deg)")

_QUOTED = re.compile(r"""((?<!\w)'[^']*'(?!\w)|(?<!\w)"[^"]*"(?!\w))""")


def metres_per_unit(system: str, scale_length: float) -> float:
    """Metres per Blender unit: the Unit Scale in a unit system (Metric, Imperial); 1 with
    the unit system None, where Blender applies no Unit Scale to any field, length, speed,
    acceleration or mass, and greys the Unit Scale out (BKE_unit_value_scale returns the
    stored value), so a Blender unit is the metre its physics takes it for."""
    return 1.0 if system == "NONE" else (scale_length or 1.0)


def in_metres(system: str, length_unit: str, scale_length: float) -> bool:
    """Whether the scene's fields show lengths in metres, so a solver message's are already
    the user's: Metric with the Length unit Metres, or Adaptive at unit scale 1 (a
    millimetre scene, unit scale 0.001 with Millimetres, shows them in mm); or no unit
    system, whose Blender unit is a metre (``metres_per_unit``): "0.2 m" needs no "(0.2)"."""
    return system == "NONE" or system == "METRIC" and (
        length_unit == "METERS" or (length_unit == "ADAPTIVE" and scale_length == 1.0))


def fixed_unit_text(length_unit: str, metres: float) -> str | None:
    """A length in a fixed Length unit ("200 mm"), as the scene's fields show it; None for
    Adaptive (Blender's own choice of unit)."""
    if length_unit not in LENGTH_UNITS:
        return None
    symbol, size = LENGTH_UNITS[length_unit]
    return f"{metres / size:.4g} {symbol}"


def angle_text(system_rotation: str, radians: float, digits: int = 6) -> str:
    """An angle as the scene's rotation fields show it: "60 degrees" in a scene in Degrees,
    "1.0472 rad" in one in Radians (Blender's unit_settings.system_rotation), to ``digits``
    significant digits."""
    if system_rotation == "RADIANS":
        return f"{radians:.{digits}g} rad"
    return f"{math.degrees(radians):.{digits}g} degrees"


def angles_in_radians(message: str) -> str:
    """``message`` with each angle in degrees ("turned by 2.86 deg", "90 degrees apart")
    followed by the same angle in radians ("2.86 deg (0.04992 rad)"), for a scene whose
    rotation fields show radians; an angle the message already gives in radians first
    ("0.5 rad (28.6479 deg)") and a "+-90 deg" are left as they are."""
    pieces = _QUOTED.split(message)           # names in quotes are left as they are
    return "".join(piece if k % 2 else _DEGREES.sub(
        lambda found: f"{found.group(0)} ({math.radians(float(found.group(1))):.4g} rad)",
        piece) for k, piece in enumerate(pieces))


def angles_in_degrees(message: str) -> str:
    """``message`` with each angle in radians ("1.5 rad") followed by the same angle in
    degrees ("1.5 rad (85.94 deg)"), for a scene whose rotation fields show degrees, and
    each angular speed so too ("2 rad/s (114.6 deg/s)"); one that gives its degrees
    already ("0.5 rad (28.6479 deg)") is left alone."""
    pieces = _QUOTED.split(message)           # names in quotes are left as they are
    return "".join(piece if k % 2 else _RADIANS.sub(
        lambda found: (f"{found.group(0)} ({math.degrees(float(found.group(1))):.4g} deg"
                       f"{found.group(2) or ''})"), piece) for k, piece in enumerate(pieces))


def lengths_in_scene_units(message: str, length_text: Callable[[float], str]) -> str:
    """``message`` with each length in metres ("a gap of 0.2 m") followed by the same length
    as ``length_text`` writes it in the scene's units ("a gap of 0.2 m (200 mm)"), and each
    speed in m/s so too ("0.1 m/s (100 mm/s)", as the scene's velocity fields show it)."""
    def lengths(piece: str) -> str:
        piece = _METRES.sub(
            lambda found: f"{found.group(0)} ({length_text(float(found.group(1)))})", piece)
        return _SPEED.sub(
            lambda found: f"{found.group(0)} ({length_text(float(found.group(1)))}/s)", piece)
    pieces = _QUOTED.split(message)           # names in quotes are left as they are
    return "".join(piece if k % 2 else lengths(piece) for k, piece in enumerate(pieces))
