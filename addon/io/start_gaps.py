"""How far a mechanism is from assembled where the user left it, so that Check can say which
joint is open at the start and by how much before a Bake makes a part jump there.

A joint's gap is read from the joint table (``JOINT_ROWS``, docs/conventions.md "what each joint kind
holds") at the parts' placements: the length rows (at-point, on-axis, in-plane, distance)
give the distance by which marker I's origin misses where the joint holds it (m), the
direction rows (dot-1) the angle by which the axes miss (rad).  A part's move is the
largest displacement of its origin and markers from the user's placement to the assembled
one.  Both count when above OPEN_SHARE of the model's size (``model_size``: the spread of the
parts' and markers' origins, the parts' radii of gyration and marker arms), or OPEN_SHARE
radians.  SI units in, as the solver's builder holds them.
Joints on curves: a point on curve misses by marker I's origin's distance from its curve; a
cam by the distance between its two curves where they are apart (``cam_gap``), or by how
deep one reaches into the other's closed profile where they overlap.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...solver import JOINT_ROWS, canonical_kind, quat_to_matrix

# a joint open, or a part moved by the assembly, by more than this share of the model's
# size (or this many radians) shows on a Bake as a jump at the first frame
OPEN_SHARE = 1e-4

Pose = tuple[np.ndarray, np.ndarray]          # position (3,) m, orientation (4,) w x y z


def marker_frames(mech, poses: dict[str, Pose]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """World (origin (3,) m, axes (3, 3) as columns) of every marker of the builder ``mech``
    with its part at ``poses[part]`` (a part not in ``poses``: where the builder has it)."""
    out = {}
    for mk in mech.markers.values():
        part = mech.parts[mk.part]
        pos, quat = poses.get(mk.part, (part.position, part.orientation))
        R = quat_to_matrix(np.asarray(quat, dtype=float))
        out[mk.name] = (pos + R @ mk.position, R @ quat_to_matrix(mk.orientation))
    return out


def joint_gap(kind: str, frame_i, frame_j, length: float | None = None) -> tuple[float, float]:
    """(distance m, angle rad) by which markers I and J (world (origin, axes) each) miss
    what a joint of ``kind`` holds; ``length`` of a distance joint (None: the present one)."""
    (oi, ai), (oj, aj) = frame_i, frame_j
    d = oi - oj
    lengths, sines = [], []
    for prim in JOINT_ROWS[canonical_kind(kind)]:
        if prim[0] == "at":
            lengths.append(d[prim[1]])
        elif prim[0] == "dot2":
            lengths.append(d @ aj[:, prim[1]])
        elif prim[0] == "dist":
            lengths.append(np.linalg.norm(d) - length if length is not None else 0.0)
        else:
            sines.append(ai[:, prim[1]] @ aj[:, prim[2]])
    sine = min(1.0, float(np.linalg.norm(sines))) if sines else 0.0
    return float(np.linalg.norm(lengths)) if lengths else 0.0, float(np.arcsin(sine))


def curve_gap(kind: str, curves: tuple, frame_i, frame_j) -> float:
    """Distance (m) by which a joint on curves misses (a point on curve, or a cam: module
    docstring), its curves in its markers' frames, the markers at ``frame_i``, ``frame_j``
    (world (origin, axes) each)."""
    (oi, ai), (oj, aj) = frame_i, frame_j
    if kind == "point-on-curve":
        return float(_off(curves[0], (aj.T @ (oi - oj))[None])[0])
    ci, cj = curves
    i_in_j = (_dense(ci) @ ai.T + oi - oj) @ aj      # points along curve I in J's frame
    j_in_i = (_dense(cj) @ aj.T + oj - oi) @ ai      # points along curve J in I's frame
    return cam_gap(_off(cj, i_in_j), _inside(i_in_j, cj) if cj.closed else None,
                   _off(ci, j_in_i), _inside(j_in_i, ci) if ci.closed else None)


def _dense(curve, count: int = 2000) -> np.ndarray:
    """(count, 3) points evenly along a curve's parameter (its knots alone may be sparse: a
    poly spline's)."""
    u = np.linspace(0.0, curve.length, count, endpoint=not curve.closed)
    return curve.evaluate(u, 0)[0]


def _off(curve, points: np.ndarray) -> np.ndarray:
    """(m,) distance of each point (m, 3) from the curve."""
    return np.linalg.norm(curve.evaluate(np.atleast_1d(curve.nearest(points)), 0)[0] - points, axis=1)


def _inside(points: np.ndarray, curve, most: int = 512) -> np.ndarray:
    """(m,) whether each point's xy lies inside a closed curve's xy (even-odd rule on at
    most ``most`` of its knots)."""
    poly = curve.points[:: -(-len(curve.points) // most)]
    x, y = points[:, 0, None], points[:, 1, None]
    a, b = poly[:, :2], np.roll(poly[:, :2], -1, axis=0)
    crosses = (a[:, 1] > y) != (b[:, 1] > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = a[:, 0] + (y - a[:, 1]) * (b[:, 0] - a[:, 0]) / (b[:, 1] - a[:, 1])
    return (np.sum(crosses & (x < at), axis=1) % 2) == 1


def cam_gap(off_i: np.ndarray, inside_i, off_j: np.ndarray, inside_j) -> float:
    """A cam's miss (m): ``off_i`` the distances of curve I's points from curve J and
    ``inside_i`` which of them lie inside J's closed profile (None: J is open), and the same
    of J's points from I.  Where a point lies inside the other profile, the largest such
    depth; else the least distance between the curves."""
    depths = [off[inside] for off, inside in ((off_i, inside_i), (off_j, inside_j))
              if inside is not None and inside.any()]
    if depths:
        return float(max(d.max() for d in depths))
    return float(min(off_i.min(), off_j.min()))


def model_size(mech, frames: dict, poses: dict[str, Pose]) -> float:
    """The mechanism's size (m), wherever it sits in the world: the spread (largest extent
    along a world axis) of the markers' and moving parts' origins, each moving part's
    radius of gyration sqrt(trace(I) / 2m) and its markers' distances from its origin, as
    the solver measures a model's size (solver/model/compile.py).  The spread alone is 0 for
    a wheel whose markers all sit at its origin (an axle at its centre): every float32
    rounding of the scene would then count as a joint open at the start."""
    points = [o for o, _ in frames.values()] + [pos for pos, _ in poses.values()]
    sizes = [float(np.max(np.ptp(np.array(points), axis=0)))] if len(points) > 1 else []
    for name in poses:
        part = mech.parts[name]
        if part.mass > 0.0:
            sizes.append(float(np.sqrt(np.trace(np.asarray(part.inertia, dtype=float)) / (2.0 * part.mass))))
    sizes += [float(np.linalg.norm(mk.position)) for mk in mech.markers.values() if mk.part in poses]
    return max(sizes + [1e-9])


def start_notes(mech, before: dict[str, Pose], after: dict[str, Pose],
                length_text: Callable[[float], str],
                angle_text: Callable[[float], str] | None = None) -> list[str]:
    """Check's lines about the start: nothing when the assembly moves no part by more than
    OPEN_SHARE of the model's size; else each joint open at the user's placement (``before``,
    the moving parts' poses) and by how much, and the parts the assembly (``after``) moves and
    how far.  ``length_text`` writes a length in metres in the scene's units, ``angle_text``
    an angle in radians (None: in degrees)."""
    angle_text = angle_text or (lambda radians: f"{np.degrees(radians):.3g} degrees")
    was, now = marker_frames(mech, before), marker_frames(mech, after)
    size = model_size(mech, was, before)
    moved = {}
    for name, (pos, _) in before.items():
        points = [(pos, after[name][0])] + [(was[m.name][0], now[m.name][0])
                                            for m in mech.markers.values() if m.part == name]
        moved[name] = max(float(np.linalg.norm(b - a)) for a, b in points)
    moved = {name: d for name, d in moved.items() if d > OPEN_SHARE * size}
    if not moved:
        return []
    lines = []
    for j in mech.joints.values():
        if j.curves:
            dist, angle = curve_gap(j.kind, j.curves, was[j.marker_i], was[j.marker_j]), 0.0
        else:
            dist, angle = joint_gap(j.kind, was[j.marker_i], was[j.marker_j], j.length)
        by = ([length_text(dist)] if dist > OPEN_SHARE * size else []) + (
            [angle_text(angle)] if angle > OPEN_SHARE else [])
        if by:
            lines.append(f"joint {j.name!r} is open at the start by {' and '.join(by)}")
    parts = ", ".join(f"part {name!r} by {length_text(d)}" for name, d in moved.items())
    why = "to close them" if lines else "to meet the motions at the start"
    lines.append(f"the assembly moves {parts} {why}: a Bake starts there (Assemble shows it)")
    return lines
