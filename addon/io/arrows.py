"""Geometry of the viewport's force arrows: each baked joint's reaction force drawn from its
marker I, and each baked contact's force on its Part A drawn from its contact point,
ARROW_SCALE metres per newton (drawn in Blender units: the same length in metres whatever
the scene's Unit Scale), as line segments (pairs of points)."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

ARROW_SCALE = 0.01     # metres per newton
CONTACT_FORCE = ("part_contact_force_x", "part_contact_force_y", "part_contact_force_z")
CONTACT_POINT = ("part_contact_point_x", "part_contact_point_y", "part_contact_point_z")


def contact_arrow(props: Mapping[str, float], scale: float
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """(origin (3,) world, Blender units; force (3,) N) of a contact's arrow from its baked
    custom properties at the current frame (io/plots.py: the force on Part A, N, and where
    it acts, m, world), ``scale`` metres per Blender unit; None when they are not baked or
    not finite."""
    if not all(k in props for k in CONTACT_FORCE + CONTACT_POINT):
        return None
    force = np.array([props[k] for k in CONTACT_FORCE], dtype=float)
    origin = np.array([props[k] for k in CONTACT_POINT], dtype=float) / scale
    if not (np.isfinite(force).all() and np.isfinite(origin).all()):
        return None
    return origin, force


def arrow_segments(origin: np.ndarray, vector: np.ndarray, head: float = 0.2) -> np.ndarray:
    """Line segments (6, 3) of an arrow from ``origin`` along ``vector``: the shaft and two
    head strokes of ``head`` times its length, in a plane containing the shaft; (2, 3), a
    point, for a zero vector."""
    origin, vector = np.asarray(origin, float), np.asarray(vector, float)
    tip = origin + vector
    n = float(np.linalg.norm(vector))
    if n == 0.0:
        return np.array([origin, origin])
    d = vector / n
    side = np.cross(d, [0.0, 0.0, 1.0] if abs(d[2]) < 0.9 else [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side)
    back = tip - head * n * d
    return np.array([origin, tip, tip, back + 0.5 * head * n * side, tip, back - 0.5 * head * n * side])


def force_arrows(origins: Sequence[np.ndarray], forces: Sequence[np.ndarray],
                 scale: float = 1.0) -> np.ndarray:
    """Vertices (k, 3) float32 of the LINES batch for forces (N) at world origins (Blender
    units), ARROW_SCALE metres per newton, ``scale`` metres per Blender unit; (0, 3) for
    none."""
    per_newton = ARROW_SCALE / scale
    lines = [arrow_segments(o, np.asarray(f, float) * per_newton)
             for o, f in zip(origins, forces)]
    return np.concatenate(lines).astype(np.float32) if lines else np.zeros((0, 3), np.float32)
