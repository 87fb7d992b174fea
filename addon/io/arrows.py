"""Geometry of the viewport's force arrows: each baked joint's reaction force drawn from its
marker I, ARROW_SCALE Blender units per newton, as line segments (pairs of points)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

ARROW_SCALE = 0.01     # Blender units per newton


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


def force_arrows(origins: Sequence[np.ndarray], forces: Sequence[np.ndarray]) -> np.ndarray:
    """Vertices (k, 3) float32 of the LINES batch for forces (N) at world origins (Blender
    units), ARROW_SCALE units per newton; (0, 3) for none."""
    lines = [arrow_segments(o, np.asarray(f, float) * ARROW_SCALE) for o, f in zip(origins, forces)]
    return np.concatenate(lines).astype(np.float32) if lines else np.zeros((0, 3), np.float32)
