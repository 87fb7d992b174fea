"""Drag and wiggle without Blender: the mouse ray on the drag plane, a grabbed point in its
part's frame, a joint coordinate read from its markers' world matrices, and the one-DOF
slider's position over the range of motion.

Units: Blender units (BU) in the scene, metres in the solver (``scale`` metres per BU);
angles in radians.  Matrices are (4, 4) numpy arrays (``matrix_world``)."""
from __future__ import annotations

import math
from functools import partial
from typing import Callable

import numpy as np

from ...solver import quat_to_matrix
from . import units
from .part_frames import PartFrame, marker_frame


def drag_plane_point(origin, direction, plane_point, plane_normal) -> np.ndarray | None:
    """Where the ray origin + s direction (s >= 0) meets the plane through ``plane_point``
    with normal ``plane_normal`` (all BU, world); None when the ray runs along the plane or
    points away from it."""
    o, d = np.asarray(origin, float), np.asarray(direction, float)
    n = np.asarray(plane_normal, float)
    den = float(d @ n)
    if abs(den) <= 1e-12 * np.linalg.norm(d) * np.linalg.norm(n):
        return None
    s = float((np.asarray(plane_point, float) - o) @ n) / den
    return None if s < 0.0 else o + s * d


def point_in_part(frame: PartFrame, world_point, scale: float) -> np.ndarray:
    """A world point (BU) in the part's rigid frame (``PartFrame``), in metres."""
    return frame.rotation.T @ (np.asarray(world_point, float) - frame.position) * scale


def rigid(matrix) -> tuple[np.ndarray, np.ndarray]:
    """(origin (3,), unit axes (3, 3) as columns) of a marker's world matrix, its scale
    dropped: the frame the solver is given (part_frames.marker_frame: the drawn z and x
    axes, y = z x x where a negative scale mirrors it)."""
    origin, orientation = marker_frame(np.asarray(matrix, float))
    return origin, quat_to_matrix(orientation)


def joint_coordinate(marker_i, marker_j, coordinate: str, scale: float) -> float:
    """A joint's angle (rad: x_I from x_J about z_J, in (-pi, pi]) or slide (m: I's origin
    from J's along z_J) from the markers' world matrices (docs/conventions.md)."""
    oi, Ci = rigid(marker_i)
    oj, Cj = rigid(marker_j)
    if coordinate == "angle":
        return math.atan2(float(Ci[:, 0] @ Cj[:, 1]), float(Ci[:, 0] @ Cj[:, 0]))
    return float((oi - oj) @ Cj[:, 2]) * scale


def wrap(angle: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def angle_in_stops(angle: float, lower: float | None, upper: float | None) -> float:
    """An angle (rad, read within one turn) on the turn of a joint's stops (None: no stop
    on that side): inside [lower, upper] when it is in the range at all (else on the turn
    nearest the range's middle), within a turn above a lone lower stop or below a lone
    upper one; as it is without stops or for a range wider than a turn (the turn the
    posing takes a value typed for such a joint on: solver/analyses/posing/wiggle.py)."""
    if lower is not None and upper is not None:
        if upper - lower > 2.0 * math.pi:
            return angle
        mid = 0.5 * (lower + upper)
        return mid + wrap(angle - mid)
    if lower is not None:
        return lower + (angle - lower) % (2.0 * math.pi)
    if upper is not None:
        return upper - (upper - angle) % (2.0 * math.pi)
    return angle


def range_value(fraction: float, lower: float, upper: float) -> float:
    """The coordinate at ``fraction`` (0..1, clamped) of the range [lower, upper]."""
    f = min(max(float(fraction), 0.0), 1.0)
    return lower + f * (upper - lower)


def range_fraction(value: float, lower: float, upper: float, angle: bool,
                   full_turn: bool = False, near: float | None = None) -> float:
    """Where ``value`` lies in [lower, upper], 0..1 (clamped): an angle taken on the turn
    nearest ``near`` (the joint's own turn, where the posing follows it: a range wider than
    a turn), else the turn that puts it in the range (or nearest to its middle); a full
    turn is [-pi, pi)."""
    if upper <= lower:
        return 0.0
    if angle:
        mid = 0.5 * (lower + upper) if near is None else near
        value = mid + wrap(value - mid) if not full_turn else wrap(value)
    return min(max((value - lower) / (upper - lower), 0.0), 1.0)


def range_path(present: float, target: float, lower: float, upper: float, angle: bool,
               full_turn: bool = False, near: float | None = None) -> list[float]:
    """The values (rad or m) a move from ``present`` to ``target`` on the range [lower,
    upper] passes through, ending at ``target``: an angle on a range that is not a full
    turn goes through the range in moves under a quarter turn (the posing reaches each
    value the shorter way round, which across a range wider than half a turn would leave
    it through a toggle or a stop); ``present`` is taken on the range's turn as
    ``range_fraction`` takes it; else the target alone."""
    if not angle or full_turn or upper <= lower:
        return [float(target)]
    start = lower + range_fraction(present, lower, upper, True, False, near) * (upper - lower)
    n = max(1, math.ceil(abs(target - start) / (0.5 * math.pi) - 1e-12))
    return [start + (target - start) * k / n for k in range(1, n)] + [float(target)]


def wiggle_candidates(joints: list[tuple[str, str, str, bool]]) -> list[tuple[str, str]]:
    """The joint coordinates a one-DOF mechanism's slider may move, best first, from
    (joint name, solver kind, the coordinate a motion drives: "angle", "slide" or "" for
    none, one of its markers on the ground) in scene order: undriven revolute and
    cylindrical angles at the ground first (a crank or a rocker), then the other angles,
    then the undriven slides of prismatic and cylindrical joints (a cylindrical joint
    whose angle a motion drives still offers its slide)."""
    coordinates = {"revolute": ("angle",), "prismatic": ("slide",),
                   "cylindrical": ("angle", "slide")}
    rank = []
    for k, (name, kind, driven, grounded) in enumerate(joints):
        for coord in coordinates.get(kind, ()):
            if coord != driven:
                rank.append(((0 if coord == "angle" else 2) + (0 if grounded else 1), k, name,
                             coord))
    return [(name, coord) for *_, name, coord in sorted(rank)]


def time_of_frame(frame_start: int, fps: float, frame: float) -> float:
    """The solver time (s) of a scene frame, as a bake counts it: motions are held at
    their values at this time while the mechanism is posed by hand."""
    return (float(frame) - frame_start) / fps


def stops_note(stops, length_text: Callable[[float], str],
               angle_text: Callable[[float], str] = partial(units.angle_text, "DEGREES")) -> str:
    """The panel's line for the stops that hold a pose set by hand (records with ``joint``,
    ``side``, ``value`` in rad or m and ``angle``, as the solver's ``Poser.stopped``): an
    angle as ``angle_text`` writes radians, a slide as ``length_text`` writes metres (the
    scene's units, as the Lower and Upper fields show them); "" for none."""
    said = []
    for s in stops:
        value = angle_text(s.value) if s.angle else length_text(s.value)
        said.append(f"{s.joint!r} rests on its {s.side} stop ({value})")
    return "; ".join(said)
