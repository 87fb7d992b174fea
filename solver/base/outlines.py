"""Outlines for ``Shape.profile``: an involute spur gear and an external Geneva drive's
wheel and crank (locking disc), as closed polygons in the xy plane, counter-clockwise, in
metres.  Formulas: docs/references.md (Litvin and Fuentes 2004; Budynas and Nisbett 2011, Shigley's; Bickford 1972).
"""
from __future__ import annotations

import math

import numpy as np

from .elementary import arccos, tan
from .errors import MechanismError, whole_number


def _involute(angle: np.ndarray) -> np.ndarray:
    """inv(a) = tan a - a (Litvin and Fuentes 2004, eq. 10.2.5)."""
    return tan(angle) - angle


def _arc(centre: np.ndarray, radius: float, start: float, stop: float, count: int
         ) -> np.ndarray:
    """(count, 2) points on a circle from angle ``start`` toward ``stop`` (rad), the last
    one left out (the next piece starts there)."""
    t = np.linspace(start, stop, count + 1)[:-1]
    return centre + radius * np.column_stack([np.cos(t), np.sin(t)])


def _positive(value: float, what: str) -> float:
    x = float(value)
    if not x > 0.0:
        raise MechanismError(f"{what} must be positive, got {x}")
    return x


def involute_gear(teeth: int, module: float, pressure_angle: float = 20.0,
                  backlash: float = 0.0, points: int = 12) -> np.ndarray:
    """(k, 2) an external involute spur gear's outline about its centre, a tooth on the
    +x axis: pitch radius r = module teeth / 2, base radius r cos(pressure_angle, degrees),
    tip radius r + module, root radius r - 1.25 module (Budynas and Nisbett 2011: standard full-depth
    teeth); each flank the involute of the base circle (radial below it), ``points``
    points from root to tip; the tooth thickness on the pitch circle pi module / 2 less
    half the ``backlash`` (m: two gears made with the same backlash mesh with that much).
    The root has no fillet: fewer than 2 / sin^2(pressure angle) teeth (17 at 20 degrees)
    would be undercut, and are refused.  Two gears mesh at the centre distance
    module (teeth_1 + teeth_2) / 2, the second turned by pi - pi / teeth_2 to face the
    first's tooth with a space."""
    z = whole_number(teeth, "gear teeth")
    m = _positive(module, "gear module")
    alpha = math.radians(float(pressure_angle))
    if not 0.0 < alpha < math.radians(35.0):
        raise MechanismError(f"gear pressure angle must be in (0, 35) degrees, got "
                             f"{pressure_angle}")
    least = math.ceil(2.0 / math.sin(alpha) ** 2)
    if z < least:
        raise MechanismError(f"a gear of {z} teeth at {pressure_angle} degrees would be "
                             f"undercut; at least {least} teeth")
    r, ra, rf = 0.5 * m * z, 0.5 * m * z + m, 0.5 * m * z - 1.25 * m
    rb = r * math.cos(alpha)
    thickness = 0.5 * math.pi * m - 0.5 * float(backlash)
    if not 0.0 < thickness < math.pi * m:
        raise MechanismError(f"gear backlash {backlash} leaves no tooth")
    # the flank's half angle about the tooth's axis at radius rho (Litvin and Fuentes
    # 2004, eq. 10.2.6): thickness / (2 r) + inv(alpha) - inv(alpha_rho), cos alpha_rho = rb / rho
    rho = np.linspace(max(rf, rb), ra, int(points))
    half = thickness / (2.0 * r) + _involute(alpha) - _involute(arccos(rb / rho))
    if half[-1] <= 0.0:
        raise MechanismError(f"gear of {z} teeth: the teeth come to a point below the tip "
                             "circle (too much backlash)")
    if rf < rb:
        rho, half = np.r_[rf, rho], np.r_[half[0], half]
    pitch = 2.0 * math.pi / z
    gap = pitch - 2.0 * half[0]
    rising = np.column_stack([rho, -half])                    # (radius, angle) right flank
    falling = np.column_stack([rho[::-1], half[::-1]])
    tip = np.column_stack([np.full(3, ra), np.linspace(-half[-1], half[-1], 5)[1:-1]])
    root = np.column_stack([np.full(3, rf), half[0] + gap * np.arange(1, 4) / 4.0])
    tooth = np.concatenate([rising, tip, falling, root])       # polar (rho, angle)
    angle = tooth[None, :, 1] + pitch * np.arange(z)[:, None]
    radius = np.broadcast_to(tooth[:, 0], angle.shape)
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], -1).reshape(-1, 2)


def geneva_crank_radius(slots: int, center_distance: float) -> float:
    """The crank (pin circle) radius of an external Geneva of ``slots`` slots whose pin
    enters each slot along it: center_distance sin(pi / slots) (Bickford 1972)."""
    return float(center_distance) * math.sin(math.pi / whole_number(slots, "Geneva slots"))


def _geneva_sizes(slots: int, c: float, pin_radius: float, clearance: float) -> dict:
    """The Geneva's sizes: the crank radius a = c sin(pi / n) and the pin's entry radius
    b = c cos(pi / n) (the pin enters and leaves each slot along it, Bickford 1972); the
    slot's half width s and its bottom; the wheel's outer radius through the slot's mouth
    corners (b, +-s); the locking arc's radius about the crank's centre at dwell, a - 1.5 s
    (half a slot width of wheel left beside the slot) and the angle about the wheel's
    centre between the bisector and where the locking arc meets the rim."""
    n = whole_number(slots, "Geneva slots")
    if n < 3:
        raise MechanismError(f"a Geneva wheel needs at least 3 slots, got {n}")
    c = _positive(c, "Geneva center distance")
    rp = _positive(pin_radius, "Geneva pin radius")
    a, b = c * math.sin(math.pi / n), c * math.cos(math.pi / n)
    s = rp + float(clearance)
    bottom = c - a - s - float(clearance)
    rim = math.hypot(b, s)
    lock = a - 1.5 * s
    cos_meet = (rim * rim + c * c - lock * lock) / (2.0 * rim * c)
    if bottom <= s or lock <= s or not -1.0 < cos_meet < 1.0 \
            or math.acos(cos_meet) >= math.pi / n - math.atan2(s, b):
        raise MechanismError(f"Geneva of {n} slots: pin radius {rp} and clearance "
                             f"{clearance} are too large for center distance {c}")
    return dict(n=n, c=c, a=a, b=b, s=s, bottom=bottom, rim=rim, lock=lock,
                meet=math.acos(cos_meet), clearance=float(clearance))


def geneva_wheel(slots: int, center_distance: float, pin_radius: float,
                 clearance: float = 0.0, points: int = 24) -> np.ndarray:
    """(k, 2) an external Geneva wheel's outline about its centre, slot k along angle
    2 pi k / slots: each slot ``pin_radius`` + ``clearance`` wide on either side of its
    axis, from beyond the pin's deepest reach (center_distance less the crank radius, the
    slot's half width and the clearance) out to the pin's entry radius center_distance
    cos(pi / slots); the rim through the slots' mouth corners; between slots a concave
    locking arc about the point at center_distance on the bisector (where the crank's
    centre is at dwell) of radius crank radius - 1.5 (pin_radius + clearance), ``points``
    points per arc."""
    g = _geneva_sizes(slots, center_distance, pin_radius, clearance)
    n, s, b, rim, half = g["n"], g["s"], g["b"], g["rim"], math.pi / g["n"]
    C = g["c"] * np.array([math.cos(half), math.sin(half)])
    mouth = math.atan2(s, b)
    P1, P2 = (rim * np.array([math.cos(t), math.sin(t)]) for t in (half - g["meet"],
                                                                  half + g["meet"]))
    start, stop = (math.atan2(*(P - C)[::-1]) for P in (P1, P2))
    if stop > start:
        stop -= 2.0 * math.pi                           # concave: clockwise about C
    rim_points = max(3, int(points) // 4)
    sector = np.concatenate([[[b, -s], [g["bottom"], -s], [g["bottom"], s]],
                             _arc(np.zeros(2), rim, mouth, half - g["meet"], rim_points),
                             _arc(C, g["lock"], start, stop, int(points)),
                             _arc(np.zeros(2), rim, half + g["meet"], 2 * half - mouth,
                                  rim_points)])
    turn = 2.0 * math.pi * np.arange(n) / n
    cos, sin = np.cos(turn)[:, None], np.sin(turn)[:, None]
    x, y = sector[None, :, 0], sector[None, :, 1]
    return np.stack([x * cos - y * sin, x * sin + y * cos], -1).reshape(-1, 2)


def geneva_crank(slots: int, center_distance: float, pin_radius: float,
                 clearance: float = 0.0, points: int = 96) -> np.ndarray:
    """(k, 2) the locking disc of the Geneva's crank about the crank's centre, its pin on
    the +x axis at the crank radius: a disc of the wheel's locking radius less the
    clearance, with a circular relief about the point at center_distance along +x (where
    the wheel's centre is when the pin is deepest in a slot) of the wheel's outer radius
    plus half the slot's half width and the clearance, so that the wheel's mouth corners
    pass while the pin drives it."""
    g = _geneva_sizes(slots, center_distance, pin_radius, clearance)
    R = g["lock"] - g["clearance"]
    Rr = g["rim"] + 0.5 * g["s"] + g["clearance"]
    c = g["c"]
    # the disc's circle meets the relief's where x = (c^2 + R^2 - Rr^2) / (2 c)
    cos_meet = (c * c + R * R - Rr * Rr) / (2.0 * c * R)
    if not -1.0 < cos_meet < 1.0:
        raise MechanismError(f"Geneva of {g['n']} slots: the locking disc has no relief "
                             "(pin too large for the center distance)")
    meet = math.acos(cos_meet)
    outer = _arc(np.zeros(2), R, meet, 2.0 * math.pi - meet, int(points))
    corner = R * np.array([math.cos(meet), -math.sin(meet)])
    back = math.atan2(corner[1], corner[0] - c)
    relief = _arc(np.array([c, 0.0]), Rr, back, -2.0 * math.pi - back, max(8, int(points) // 4))
    return np.concatenate([outer, relief])
