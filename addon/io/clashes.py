"""Clash detection: what a kinematic bake says of the contacts its motions drive into each
other.  A kinematic sweep follows the motions whatever the contact force, so two parts can
pass through each other; each frame's least gap (Result.interference: m, negative the
deepest penetration) tells where.  The note names the contact, its parts, the first frame
they overlap and the deepest overlap with its frame, the depth in the scene's units.

A frame clashes where the gap is below minus ``tolerance`` (m): parts designed exactly
touching read a gap of a few float32 roundings of their coordinates either side of 0
(Blender stores locations and meshes in float32, unit round-off 2^-24), which is no clash;
``clash_tolerance`` gives CLASH_ROUNDING times the contact's size.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .timeline import frame_text

CLASH_ROUNDING = 2.0 ** -20      # 16 float32 roundings of a coordinate, relative to the size


@dataclass(frozen=True)
class Clash:
    """Rows of a contact's frames where its parts overlap: the first, the deepest, how many,
    and the deepest penetration (m, positive)."""
    first: int
    deepest: int
    count: int
    depth: float


def clash_tolerance(size: float) -> float:
    """m: the least penetration that counts as a clash for a contact whose shapes are
    ``size`` m across (their bounding spheres' radii)."""
    return CLASH_ROUNDING * max(float(size), 0.0)


def find_clash(gap: np.ndarray, tolerance: float) -> Clash | None:
    """The frames (rows of ``gap`` (n,), m) whose gap is below -``tolerance``, or None."""
    gap = np.asarray(gap, dtype=float)
    inside = np.flatnonzero(gap < -tolerance)
    if not len(inside):
        return None
    deepest = int(np.argmin(gap))
    return Clash(int(inside[0]), deepest, len(inside), float(-gap[deepest]))


def clash_note(name: str, part_a: str, part_b: str, gap: np.ndarray, frames: np.ndarray,
               tolerance: float, length: Callable[[float], str]) -> str | None:
    """The sentence of contact ``name`` between ``part_a`` and ``part_b`` whose gap (n,) m
    is solved at scene ``frames`` (n,): "contact 'c': parts 'a' and 'b' overlap from frame
    12 (9 frames), deepest 3 mm at frame 20"; ``length(m)`` writes a length in the scene's
    units.  None when they never overlap."""
    found = find_clash(gap, tolerance)
    if found is None:
        return None
    return (f"contact {name!r}: parts {part_a!r} and {part_b!r} overlap from frame "
            f"{frame_text(frames[found.first])} ({found.count} frame(s)), deepest "
            f"{length(found.depth)} at frame {frame_text(frames[found.deepest])}; the motions "
            "drive them through each other (a kinematic bake follows the motions)")
