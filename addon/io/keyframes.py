"""Exact evaluation of a keyframed F-curve with its first and second time derivatives, so a
keyframed joint value can drive a motion (the solver needs exact rates, not differences).

Blender's Bezier segment between keys k and k+1 is the parametric cubic with control
points (co_k, handle_right_k, handle_left_k+1, co_k+1) in (frame, value).  For a frame x
we solve x(u) = x for u (bisection then Newton, to machine precision) and use
    dy/dx = y'(u) / x'(u),   d2y/dx2 = (y''(u) x'(u) - y'(u) x''(u)) / x'(u)^3.
No bpy here: the caller passes plain numbers read from the F-curve.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Callable

from .timeline import Timeline


@dataclass(frozen=True)
class Key:
    """One keyframe as Blender stores it (frames and the F-curve's own units)."""
    frame: float
    value: float
    left: tuple[float, float]      # handle_left (frame, value)
    right: tuple[float, float]     # handle_right (frame, value)
    interpolation: str             # of the segment after this key: BEZIER, LINEAR, CONSTANT


SUPPORTED = ("BEZIER", "LINEAR", "CONSTANT")


def _cubic(p0: float, p1: float, p2: float, p3: float, u: float) -> tuple[float, float, float]:
    """Value, first and second derivative in u of a cubic Bezier coordinate."""
    v = 1.0 - u
    val = v * v * v * p0 + 3 * v * v * u * p1 + 3 * v * u * u * p2 + u * u * u * p3
    d1 = 3 * (v * v * (p1 - p0) + 2 * v * u * (p2 - p1) + u * u * (p3 - p2))
    d2 = 6 * (v * (p2 - 2 * p1 + p0) + u * (p3 - 2 * p2 + p1))
    return val, d1, d2


class KeyframedFunction:
    """f(frame) of a list of keys, with extrapolation "CONSTANT" or "LINEAR"."""

    def __init__(self, keys: list[Key], extrapolation: str = "CONSTANT", name: str = "") -> None:
        if not keys:
            raise ValueError(f"{name}: the F-curve has no keyframes")
        keys = sorted(keys, key=lambda k: k.frame)
        for k in keys[:-1]:
            if k.interpolation not in SUPPORTED:
                raise ValueError(f"{name}: keyframe at frame {k.frame:g} uses {k.interpolation} "
                                 f"interpolation; motions support {', '.join(SUPPORTED)}")
        self.keys, self.extrapolation, self.name = keys, extrapolation, name
        self.frames = [k.frame for k in keys]

    def __call__(self, x: float) -> tuple[float, float, float]:
        """(value, d/dframe, d2/dframe2) at frame x."""
        ks = self.keys
        if x <= ks[0].frame or x >= ks[-1].frame:
            end = ks[0] if x <= ks[0].frame else ks[-1]
            if self.extrapolation != "LINEAR" or len(ks) == 1:
                return end.value, 0.0, 0.0
            # linear extrapolation follows the end segment's slope at the end key
            first = x <= ks[0].frame
            k0, k1 = (ks[0], ks[1]) if first else (ks[-2], ks[-1])
            _, slope, _ = self._segment(k0, k1, k0.frame if first else k1.frame)
            return end.value + slope * (x - end.frame), slope, 0.0
        i = bisect.bisect_right(self.frames, x) - 1
        return self._segment(ks[i], ks[i + 1], x)

    @staticmethod
    def _segment(k0: Key, k1: Key, x: float) -> tuple[float, float, float]:
        if k0.interpolation == "CONSTANT":
            return (k1.value if x >= k1.frame else k0.value), 0.0, 0.0
        if k0.interpolation == "LINEAR":
            s = (k1.value - k0.value) / (k1.frame - k0.frame)
            return k0.value + s * (x - k0.frame), s, 0.0
        xs = (k0.frame, k0.right[0], k1.left[0], k1.frame)
        ys = (k0.value, k0.right[1], k1.left[1], k1.value)
        lo, hi = 0.0, 1.0
        u = (x - k0.frame) / (k1.frame - k0.frame)
        for _ in range(200):                  # bisection keeps Newton inside [0, 1]
            xv, xd, _ = _cubic(*xs, u)
            if xv > x:
                hi = u
            else:
                lo = u
            step = (xv - x) / xd if xd > 0 else 0.0
            un = u - step
            if not (lo <= un <= hi) or xd <= 0:
                un = 0.5 * (lo + hi)
            if abs(un - u) < 1e-15:
                u = un
                break
            u = un
        _, xd, xdd = _cubic(*xs, u)
        y, yd, ydd = _cubic(*ys, u)
        if xd <= 0.0:  # a cusp where handles meet: the slope is the limit along the curve
            return y, 0.0, 0.0
        return y, yd / xd, (ydd * xd - yd * xdd) / xd ** 3


def time_derivatives(fn: KeyframedFunction, timeline: Timeline, scale: float = 1.0
                     ) -> tuple[Callable[[float], float], ...]:
    """Callables f(t), f'(t), f''(t) of solver time t (s) for the scene's ``timeline``
    (frame = frame_start + t fps, so d/dt = fps d/dframe), values times ``scale`` (metres
    per Blender unit for a slide, 1 for an angle)."""
    fps = timeline.fps

    def at(t: float) -> tuple[float, float, float]:
        v, d, dd = fn(timeline.frame_of(t))
        return v * scale, d * fps * scale, dd * fps * fps * scale
    return (lambda t: at(t)[0]), (lambda t: at(t)[1]), (lambda t: at(t)[2])
