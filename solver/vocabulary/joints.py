"""Joint kinds as data: each kind is a short list of scalar constraint primitives (Koh, OndselSolver:
revolute = 3 at-point + 2 dot-1), the coordinates a motion may drive, and the primitive-row
kinds of the compiled model.  The add-on's joint menu reads this table."""
from __future__ import annotations

from typing import Any

from ..base.errors import MechanismError, unknown

# Constraint-row kinds of the compiled model (Haug 1989's primitives), and the order in which
# kernels/constraints.py evaluates them (rows grouped by kind, contiguous).
# COUPLER: a linear relation of joint coordinates (vocabulary/couplers.py), one row per coupler;
# CURVE: a point on a curve (two rows per joint), CAM: two curves in contact (one row):
# kernels/curve_rows.py.  SPIN: the relative rotation about one of marker J's axes (three
# rows: a spherical joint's friction holding it while it sticks, analyses/dynamics/friction.py).
# EULER: one of the body-fixed 1-2-3 angles of marker I relative to marker J (a general
# motion's B1, B2, B3; kernels/constraints.py ``euler_angle``).
DOT1, DOT2, DIST, ANGLE, AT, COUPLER, CURVE, CAM, SPIN, EULER = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
EVAL_ORDER = (AT, DOT2, DIST, DOT1, ANGLE, SPIN, EULER, COUPLER, CURVE, CAM)
KIND_NAMES = {AT: "at-point", DOT2: "dot-2", DIST: "distance", DOT1: "dot-1", ANGLE: "angle",
              COUPLER: "coupler", CURVE: "point on curve", CAM: "cam contact",
              SPIN: "relative rotation", EULER: "body-fixed angle"}
EULER_AXES = ("b1", "b2", "b3")      # a general motion's angles, the EULER rows' 0, 1, 2

# Rows of each joint kind: ("dot1", axis of I, axis of J) -- a_I . b_J = 0;
# ("dot2", axis of J) -- (P_I - P_J) . a_J = 0; ("at", k) -- world component k of P_I - P_J;
# ("dist",) -- |P_I - P_J| = length.  Axes are marker axes 0=x 1=y 2=z.
_AT = [("at", 0), ("at", 1), ("at", 2)]
_PARALLEL = [("dot1", 2, 0), ("dot1", 2, 1)]          # z_I parallel to z_J
_ON_AXIS = [("dot2", 0), ("dot2", 1)]                  # I's origin on J's z axis
JOINT_ROWS: dict[str, list[tuple]] = {
    "fixed": _AT + _PARALLEL + [("dot1", 0, 1)],
    "revolute": _AT + _PARALLEL,
    "prismatic": _ON_AXIS + _PARALLEL + [("dot1", 0, 1)],
    "cylindrical": _ON_AXIS + _PARALLEL,
    "spherical": _AT,
    "universal": _AT + [("dot1", 2, 2)],
    "planar": [("dot2", 2)] + _PARALLEL,
    "in-line": _ON_AXIS,
    "in-plane": [("dot2", 2)],
    "parallel-axes": _PARALLEL,
    "perpendicular": [("dot1", 2, 2)],
    "distance": [("dist",)],
}
# Joints on curves (added by add_point_on_curve and add_cam, which take the curves): the
# point's two normal components off the curve; the two curves' separation along their normal.
CURVE_JOINT_ROWS: dict[str, list[tuple]] = {
    "point-on-curve": [("curve", 0), ("curve", 1)],
    "cam": [("cam",)],
}
# Joint coordinates a motion may drive (docs/conventions.md).
JOINT_COORDINATES = {"revolute": ("angle",), "prismatic": ("slide",),
                     "cylindrical": ("angle", "slide")}
# Friction also acts on a spherical joint's relative rotation (three components).
FRICTION_COORDINATES = {**JOINT_COORDINATES, "spherical": ("rotation",)}
_AXIS = "xyz"


def label(prim: tuple) -> str:
    """Readable name of one primitive row (its place in a joint)."""
    if prim[0] == "at":
        return f"at-point {_AXIS[prim[1]]}"
    if prim[0] == "dot1":
        return f"{_AXIS[prim[1]]}_I . {_AXIS[prim[2]]}_J"
    if prim[0] == "dot2":
        return f"(P_I - P_J) . {_AXIS[prim[1]]}_J"
    if prim[0] == "curve":
        return ("normal", "binormal")[prim[1]] + " off the curve"
    if prim[0] == "cam":
        return "separation of the curves"
    return "distance"


def joint_coordinate(joints: dict, what: str, joint: Any, coordinate: str | None = None,
                     need: str | None = None, table: dict | None = None) -> tuple[str, str]:
    """(joint, coordinate) of an item that acts on a joint coordinate (a motion's coupler,
    a limit, friction): the joint exists and has that coordinate ("angle" or "slide"; by
    default ``need``, else the joint's first; ``table``: the coordinates each kind has,
    JOINT_COORDINATES unless given); MechanismError naming ``what`` otherwise."""
    if not isinstance(joint, str) or joint not in joints:
        raise MechanismError(f"{what}: {unknown('joint', joint, joints)}")
    kind = joints[joint].kind
    table = table or JOINT_COORDINATES
    allowed = table.get(kind, ())
    coord = coordinate if coordinate is not None else (need or (allowed[0] if allowed else None))
    if coord not in allowed:
        kinds = list(table)
        have = (f"its coordinates are {', '.join(allowed)}, not {coord!r}" if allowed else
                f"it has no {' or '.join(dict.fromkeys(c for cs in table.values() for c in cs))}"
                f" ({', '.join(kinds[:-1])} and {kinds[-1]} joints have)")
        raise MechanismError(f"{what}: joint {joint!r} is {kind}; {have}")
    return joint, str(coord)


def canonical_kind(kind: str) -> str:
    """Joint kind spelled as in JOINT_ROWS ('in_line', 'In Line' -> 'in-line')."""
    k = str(kind).strip().lower().replace("_", "-").replace(" ", "-")
    k = {"inline": "in-line", "inplane": "in-plane", "parallel": "parallel-axes",
         "parallelaxes": "parallel-axes", "pin": "revolute", "ball": "spherical",
         "slider": "prismatic", "hooke": "universal"}.get(k, k)
    return k

