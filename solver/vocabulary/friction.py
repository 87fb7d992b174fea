"""Joint friction in the manner of Adams' joint friction: Coulomb friction on a
revolute angle, a prismatic or cylindrical slide or a spherical joint's relative rotation,
whose normal load is the joint's own reaction, with true sticking.

Load.  From the joint's reaction at marker I (force F, moment M, in marker J's axes, z the
joint axis): a slide's friction force is mu (|F_xy| + |M_xy| / bearing_length) + preload; an
angle's friction torque is mu (radius |F_xy| + arm |F_z| + radius |M_xy| / bearing_length)
+ preload (radius: the pin's; arm: the thrust face's mean radius; bearing_length 0: the
bending moment ignored); a spherical joint's friction torque is mu radius |F| + preload
(radius: the ball's; a ball carries its load in every direction and no moment), acting
against the relative angular velocity, whatever its direction.  So friction grows with load.

Coefficient.  mu = mu_static below the transition speed v_s, mu_dynamic above 1.5 v_s, a
smooth step between; slipping, the force opposes the relative motion (its sign held through
each integrator step) and a viscous term c v is added.  Sticking: when the relative speed
reaches zero (the instant located like an impact) and the force needed to hold the joint is
at most the static limit, the coordinate is held (a constraint row whose multiplier is the
friction force) until the needed force exceeds the limit; a ball sticks when its relative
angular velocity reaches zero and its three rotations are held while the needed torque's
magnitude is at most the limit.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base.errors import MechanismError
from .joints import FRICTION_COORDINATES, joint_coordinate
from .validate import number

# The transition speed when none is given: 1e-3 rad/s on an angle or a ball's rotation,
# 1e-3 m/s on a slide.  A physical speed, the same whatever else the mechanism holds (not a
# share of the model's size, which an unrelated marker far away would change): well below
# the speeds machines run at, and 1e-3 rad/s is the same 1 mm/s at a 1 m lever.  Below it the static
# coefficient acts, so a slipping joint's rest pose moves by at most about (1.5 v_s)^2 / (2 a),
# a its deceleration: ~1e-7 m at 1 g.
DEFAULT_TRANSITION_SPEED = 1e-3


@dataclass(frozen=True)
class Friction:
    name: str
    joint: str
    coordinate: str                  # "angle", "slide" or "rotation" (spherical)
    static: float
    dynamic: float
    transition_speed: float | None   # rad/s or m/s; None: DEFAULT_TRANSITION_SPEED
    viscous: float                   # N m s / rad or N s / m
    preload: float                   # N m or N
    radius: float                    # m (angles)
    arm: float                       # m (angles: thrust)
    bearing_length: float            # m (0: bending ignored)


def make_friction(name: str, joints: dict, joint: Any, coordinate: Any, static: Any, dynamic: Any,
                  transition_speed: Any, viscous: Any, preload: Any, radius: Any, arm: Any,
                  bearing_length: Any, frictions: dict | None = None) -> Friction:
    """A validated Friction; ``frictions``: the elements already added, none of which may
    act on the same joint coordinate."""
    what = f"friction {name!r}"
    joint, coord = joint_coordinate(joints, what, joint, coordinate, table=FRICTION_COORDINATES)

    def nonneg(x: Any, label: str) -> float:
        v = number(x, f"{what}: {label}")
        if v < 0.0:
            raise MechanismError(f"{what}: {label} must not be negative, got {v:g}")
        return v
    mu_s, mu_d = nonneg(static, "static coefficient"), nonneg(dynamic, "dynamic coefficient")
    if mu_d > mu_s:
        raise MechanismError(f"{what}: the dynamic coefficient {mu_d:g} exceeds the static {mu_s:g}")
    vs = None if transition_speed is None else nonneg(transition_speed, "transition_speed")
    if vs is not None and vs == 0.0:
        raise MechanismError(f"{what}: transition_speed must be positive")
    r = nonneg(radius, "radius")
    arm_, length = nonneg(arm, "arm"), nonneg(bearing_length, "bearing_length")
    if coord == "angle" and r == 0.0 and arm_ == 0.0 and mu_s > 0.0:
        # the load's levers (pin radius on the side load, arm on the thrust) all zero: mu
        # would multiply nothing, friction that silently never acts
        raise MechanismError(f"{what}: an angle's friction needs the pin radius (m), or the "
                             "thrust arm (m) for a thrust bearing: its load is the joint's "
                             "reaction times them")
    if coord == "rotation":
        if r == 0.0 and mu_s > 0.0:
            raise MechanismError(f"{what}: a spherical joint's friction needs the ball radius (m)")
        if arm_ or length:
            raise MechanismError(f"{what}: a spherical joint's friction takes the ball radius; "
                                 f"arm and bearing_length do not apply to a ball")
    _coordinate_free(what, joint, coord, frictions or {})
    return Friction(name, joint, coord, mu_s, mu_d, vs, nonneg(viscous, "viscous"),
                    nonneg(preload, "preload"), r, arm_, length)


def _coordinate_free(what: str, joint: str, coord: str, frictions: dict) -> None:
    """One friction element per joint coordinate: a second one's sticking row would repeat
    the first's (a singular system as soon as both stick).  Two elements of the same pin
    radius, arm and bearing length read the same reaction, so they are one element whose
    coefficients, viscous terms and preloads are the sums."""
    for other in frictions.values():
        if other.joint == joint and other.coordinate == coord:
            raise MechanismError(f"{what}: the {coord} of joint {joint!r} already has friction "
                                 f"{other.name!r}; a joint coordinate takes one friction element: "
                                 f"combine them into one")
