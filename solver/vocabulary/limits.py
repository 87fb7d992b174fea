"""Joint limits: stops on a revolute angle or a prismatic or cylindrical slide.

A limit has a lower and/or an upper bound on one joint coordinate (rad or m: the motion's
angle of x_I from x_J about z_J, or slide of I's origin along z_J).  Its stops are rigid or
compliant.

A rigid stop has a coefficient of restitution e in [0, 1]: dynamics locates the instant
the coordinate reaches a bound, applies Newton's impact law through all the constraints (the coordinate's rate
reverses to -e times itself; every joint and motion holds at the velocity level), and a
bounce slower than ``rest_speed`` (rad/s or m/s; DEFAULT_REST_SPEED when not given)
becomes resting contact, held while the stop pushes and released when it would pull.  A kinematic sweep driven past a bound stops
with an error naming the limit, the bound and the frame.  An angle bound is on the
joint's continuous angle (the turns it has made, carried by every analysis:
analyses/limit_turns.py), so a range may be wider than a turn (a handwheel's -10 to 10 rad).

A compliant stop (``stiffness`` given) is a force along the coordinate in the manner of
Adams' IMPACT function: with the penetration delta >= 0 past the bound and its rate,

    F = max(0, k delta^n + c(delta) d delta/dt),   c(delta) = c_max STEP(delta; 0, 0; d, 1),

(STEP the cubic s^2 (3 - 2 s)), pushing the coordinate back into its range (N or N m):
stiffness k, force exponent n > 0, maximum damping c_max reached at the penetration depth d.
It acts in dynamics and statics (an equilibrium may rest on it); a kinematic sweep driven
past its bound stops as for a rigid stop.  Its work is booked with the non-conservative
loads in Result.energy (its elastic part comes back as the stop releases).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..base.errors import MechanismError
from .joints import joint_coordinate
from .validate import number

# The rest speed when none is given: 1e-3 rad/s on an angle, 1e-3 m/s on a slide.  A
# physical speed, the same whatever else the mechanism holds (not a share of the model's
# size, which an unrelated marker far away would change).  A rebound that slow rises
# v^2 / (2 g) = 5e-8 m and flies 2 v / g = 0.2 ms under 1 g: invisible in any animation,
# while bouncing on would cost a located impact for each of its ever shorter flights.
# It matches the friction's DEFAULT_TRANSITION_SPEED (1e-3 rad/s is 1 mm/s at a 1 m lever).
DEFAULT_REST_SPEED = 1e-3
# A compliant stop's depth of full damping when none is given: 1e-3 m on a slide, 1e-3 rad
# on an angle (1 mm at a 1 m lever), a physical depth as the rest speed is, not a share of
# the model's size that an unrelated marker far away would change.
DEFAULT_PENETRATION = 1e-3


@dataclass(frozen=True)
class Limit:
    name: str
    joint: str
    coordinate: str                # "angle" or "slide"
    lower: float | None
    upper: float | None
    restitution: float
    rest_speed: float | None       # rad/s or m/s; None: DEFAULT_REST_SPEED
    stiffness: float | None = None  # a compliant stop's k (N/m^n or N m/rad^n); None: rigid
    exponent: float = 1.0
    damping: float = 0.0           # c_max, N s/m or N m s/rad
    penetration: float | None = None   # d, m or rad; None: 1e-3 rad or 1e-3 model sizes


def _bound(x: float, coordinate: str) -> str:
    """A bound in its unit: "0.05 m", or for an angle "1 rad (57.2958 deg)" (Blender shows
    angles in degrees)."""
    if coordinate == "slide":
        return f"{x:.6g} m"
    return f"{x:.6g} rad ({math.degrees(x):.6g} deg)"


def make_limit(name: str, joints: dict, joint: Any, lower: Any, upper: Any, coordinate: Any,
               restitution: Any, rest_speed: Any, stiffness: Any = None, exponent: Any = 1.0,
               damping: Any = 0.0, penetration: Any = None) -> Limit:
    what = f"limit {name!r}"
    joint, coord = joint_coordinate(joints, what, joint, coordinate)
    lo = None if lower is None else number(lower, f"{what}: lower")
    hi = None if upper is None else number(upper, f"{what}: upper")
    if lo is None and hi is None:
        raise MechanismError(f"{what}: give a lower or an upper bound (or both)")
    if lo is not None and hi is not None and not lo < hi:
        raise MechanismError(f"{what}: the lower bound {_bound(lo, coord)} is not below the "
                             f"upper {_bound(hi, coord)} (joint {joint!r}'s {coord})")
    e = number(restitution, f"{what}: restitution")
    if not 0.0 <= e <= 1.0:
        raise MechanismError(f"{what}: restitution must be between 0 and 1, got {e:g}")
    speed = None if rest_speed is None else number(rest_speed, f"{what}: rest_speed")
    if speed is not None and speed < 0.0:
        raise MechanismError(f"{what}: rest_speed must not be negative, got {speed:g}")
    if stiffness is None:
        for label, val, default in (("exponent", exponent, 1.0), ("damping", damping, 0.0),
                                    ("penetration", penetration, None)):
            if val is not None and val != default:
                raise MechanismError(f"{what}: {label} is a compliant stop's setting: give its "
                                     "stiffness too (or leave it out for a rigid stop)")
        return Limit(name, joint, coord, lo, hi, e, speed)
    k = number(stiffness, f"{what}: stiffness")
    n = number(exponent, f"{what}: exponent")
    c = number(damping, f"{what}: damping")
    d = None if penetration is None else number(penetration, f"{what}: penetration")
    if not k > 0.0:
        raise MechanismError(f"{what}: a compliant stop's stiffness must be positive, got {k:g}")
    if not n > 0.0:
        raise MechanismError(f"{what}: the force exponent must be positive, got {n:g}")
    if c < 0.0:
        raise MechanismError(f"{what}: damping must not be negative, got {c:g}")
    if d is not None and not d > 0.0:
        raise MechanismError(f"{what}: the penetration depth of full damping must be positive, "
                             f"got {d:g}")
    return Limit(name, joint, coord, lo, hi, e, speed, k, n, c, d)
