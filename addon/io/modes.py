"""Modes in the add-on without Blender: a mode's oscillation as a bake reads a result (part
poses at the scene's frames), and the line the Modes list shows for a mode."""
from __future__ import annotations

import math
from typing import Any

import numpy as np


class ModeAnimation:
    """One mode's oscillation over a frame range, read like a solver Result by the bake's
    pose writer: ``times`` (s, as the timeline's), ``position(part)`` and
    ``orientation(part)`` (n, 3), (n, 4).  The mode swings through ``cycles`` periods over
    the range (phase 2 pi cycles (frame - first) / (frames - 1)), starting at the
    equilibrium and, for a whole number, ending there, whatever its real frequency: a viewing
    aid, not a dynamic run."""

    def __init__(self, modes: Any, mode: int, amplitude: float, cycles: float,
                 times: np.ndarray) -> None:
        self.times = np.asarray(times, dtype=float)
        n = len(self.times)
        phases = 2.0 * math.pi * cycles * np.arange(n) / max(n - 1, 1)
        self._poses = modes.poses(mode, amplitude, phases)

    def position(self, part: str) -> np.ndarray:
        return self._poses[part][0]

    def orientation(self, part: str) -> np.ndarray:
        return self._poses[part][1]


def mode_label(index: int, frequency: float, damping_ratio: float) -> str:
    """"1: 2.35 Hz, damping 0.012" (a diverging mode: "unstable, grows at 1.2 Hz"; a free
    motion: "free (no stiffness)")."""
    if frequency == 0.0:
        return f"{index + 1}: free (no stiffness)"
    if frequency < 0.0:
        return f"{index + 1}: unstable, grows at {-frequency:.4g} Hz"
    return f"{index + 1}: {frequency:.4g} Hz, damping {damping_ratio:.3g}"
