"""Exact evaluation of a keyframed F-curve with its first and second time derivatives, so a
keyframed joint value can drive a motion (the solver needs exact rates, not differences).

Blender's Bezier segment between keys k and k+1 is the parametric cubic with control
points (co_k, handle_right_k, handle_left_k+1, co_k+1) in (frame, value), a handle longer in
frames than the segment shortened to its length as Blender does.  For a frame x
we solve x(u) = x for u (bisection then Newton, to machine precision) and use
    dy/dx = y'(u) / x'(u),   d2y/dx2 = (y''(u) x'(u) - y'(u) x''(u)) / x'(u)^3.
A Cycles F-curve modifier (the usual way to loop keyed motion) maps a frame outside the
keys into them, as Blender's own evaluation does (``CycledFunction``); any other modifier
cannot be followed exactly and is refused by name (``with_modifiers``).
No bpy here: the caller passes plain numbers read from the F-curve.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

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
            slope = self._end_slope(x <= ks[0].frame)
            return end.value + slope * (x - end.frame), slope, 0.0
        i = bisect.bisect_right(self.frames, x) - 1
        return self._segment(ks[i], ks[i + 1], x)

    def _end_slope(self, first: bool) -> float:
        """d/dframe of the curve beyond its first (``first``) or last key, as Blender
        extrapolates (fcurve_eval_keyframes_extrapolate in Blender's fcurve.cc): 0 under
        Constant extrapolation or where that end key's own interpolation is CONSTANT; under
        Linear, an end key whose interpolation is LINEAR continues the line to its
        neighbouring key, any other its own outward handle (the first key's left one, the
        last key's right one), whatever the segment inside does."""
        ks = self.keys
        end = ks[0] if first else ks[-1]
        if self.extrapolation != "LINEAR" or end.interpolation == "CONSTANT":
            return 0.0
        if end.interpolation == "LINEAR":
            if len(ks) == 1:
                return 0.0
            other = ks[1] if first else ks[-2]
            run, rise = other.frame - end.frame, other.value - end.value
        else:
            handle = end.left if first else end.right
            run, rise = end.frame - handle[0], end.value - handle[1]
        return rise / run if run != 0.0 else 0.0

    def inside(self, x: float) -> tuple[float, float, float]:
        """(value, d/dframe, d2/dframe2) at a frame x from the first key's to the last's, by
        the keyed segments alone: at an end key the derivatives are its segment's (one-sided),
        not the extrapolation's, as where a Cycles modifier carries the curve on."""
        ks = self.keys
        i = min(max(bisect.bisect_right(self.frames, x) - 1, 0), len(ks) - 2)
        return self._segment(ks[i], ks[i + 1], x)

    @staticmethod
    def _segment(k0: Key, k1: Key, x: float) -> tuple[float, float, float]:
        if k0.interpolation == "CONSTANT":
            return (k1.value if x >= k1.frame else k0.value), 0.0, 0.0
        if k0.interpolation == "LINEAR":
            s = (k1.value - k0.value) / (k1.frame - k0.frame)
            return k0.value + s * (x - k0.frame), s, 0.0
        (x1, y1), (x2, y2) = _within_segment(k0, k1)
        xs = (k0.frame, x1, x2, k1.frame)
        ys = (k0.value, y1, y2, k1.value)
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


class KeysInside:
    """A keyed channel (a KeyframedFunction) whose derivatives at its first and
    last keys are those of the keyed segments (one-sided), not of the extrapolation beyond:
    a path or a joint's motion keyed from the first frame of the range starts at its keys'
    speed, and one keyed to the last frame ends at it."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __call__(self, frame: float) -> tuple[float, float, float]:
        frames = self.fn.frames
        if len(frames) > 1 and frames[0] <= frame <= frames[-1]:
            return self.fn.inside(frame)
        return self.fn(frame)


def _within_segment(k0: Key, k1: Key) -> tuple[tuple[float, float], tuple[float, float]]:
    """The inner control points of the Bezier segment from key k0 to k1 as Blender
    evaluates it (BKE_fcurve_correct_bezpart in Blender's fcurve.cc): a handle reaching
    further in frames than the segment is long is shortened along its own direction to
    that length, so the curve cannot loop back in time (with both handles at most the
    segment's length, x(u) never decreases)."""
    span = k1.frame - k0.frame

    def shortened(key: Key, handle: tuple[float, float]) -> tuple[float, float]:
        reach = abs(key.frame - handle[0])
        if reach <= span:
            return handle
        f = span / reach
        return key.frame + f * (handle[0] - key.frame), key.value + f * (handle[1] - key.value)
    return shortened(k0, k0.right), shortened(k1, k1.left)


@dataclass(frozen=True)
class Modifier:
    """An F-curve modifier's settings, as plain values (Blender's FModifier and, for a
    Cycles modifier, FModifierCycles)."""
    name: str
    type: str                         # CYCLES, NOISE, GENERATOR, ...
    mute: bool = False
    use_influence: bool = False
    influence: float = 1.0
    use_restricted_range: bool = False
    mode_before: str = "NONE"         # Cycles: NONE, REPEAT, REPEAT_OFFSET, MIRROR
    mode_after: str = "NONE"
    cycles_before: int = 0            # Cycles: how many cycles, 0 for no end
    cycles_after: int = 0


CYCLE_MODES = ("NONE", "REPEAT", "REPEAT_OFFSET", "MIRROR")


class CycledFunction:
    """f(frame) of keys under a Cycles modifier: a frame past the keys on a side the modifier
    repeats is mapped into them as Blender's Cycles modifier maps it (fcm_cycles_time in
    Blender's fmodifier.cc): with the keys' span D = last - first and n = the cycle's number,
    REPEAT plays the keys again, REPEAT_OFFSET adds n times the last key's value less the
    first's, MIRROR plays every odd cycle backwards (so d/dframe changes sign there); past a
    side's count of cycles (0: no end) the curve's own extrapolation holds.  At a seam (the
    frame n D from an end) the value is Blender's, and the derivatives are those on the
    side that value continues."""

    def __init__(self, fn: KeyframedFunction, cycles: Modifier) -> None:
        self.fn, self.cycles = fn, cycles
        self.first, self.last = fn.frames[0], fn.frames[-1]
        self.span = self.last - self.first
        self.rise = fn.keys[-1].value - fn.keys[0].value

    def __call__(self, x: float) -> tuple[float, float, float]:
        """(value, d/dframe, d2/dframe2) at frame x."""
        if self.span == 0.0:
            return self.fn(x)
        if self.first <= x <= self.last:
            return self.fn.inside(x)
        mapped = self._map(x)
        if mapped is None:
            return self.fn(x)
        frame, sign, offset = mapped
        v, d, dd = self.fn.inside(frame)
        return v + offset, sign * d, dd

    def _map(self, x: float) -> tuple[float, float, float] | None:
        """(frame in the keys, d frame / dx (+1 or -1), value offset) of a frame x outside
        them, or None where the modifier leaves x to the curve's extrapolation."""
        c, first, last, span = self.cycles, self.first, self.last, self.span
        side, mode, count, start = ((-1, c.mode_before, c.cycles_before, first) if x < first
                                    else (1, c.mode_after, c.cycles_after, last))
        if mode == "NONE":
            return None
        cycle = side * (x - start) / span              # how many spans past the end, > 0
        within = math.fmod(x - start, span)            # the sign of x - start, as C's fmod
        if count and cycle > count:
            return None
        offset = 0.0
        if mode == "REPEAT_OFFSET":
            n = math.floor((x - start) / span) if side < 0 else math.ceil((x - start) / span)
            offset = n * self.rise
        mirrored = mode == "MIRROR"
        if within == 0.0:                              # a seam: an end key
            odd = mirrored and int(cycle) % 2 == 1
            frame = (first if side == 1 else last) if odd else (last if side == 1 else first)
            return frame, (-1.0 if odd else 1.0), offset
        if mirrored and int(cycle + 1) % 2 == 1:       # an odd cycle, played backwards
            frame = (first if side < 0 else last) - within
            sign = -1.0
        else:
            frame, sign = first + within, 1.0
        if frame < first:
            frame += span
        return frame, sign, offset


def with_modifiers(fn: KeyframedFunction, modifiers: list[Modifier], what: str
                   ) -> KeyframedFunction | CycledFunction:
    """``fn`` as its F-curve's modifier stack plays it: unchanged without modifiers (muted
    ones are skipped, as Blender skips them), a CycledFunction under a Cycles modifier first
    in the stack; ValueError naming ``what`` (the object and property) and the modifier for
    any other modifier, a Cycles modifier not first, or one whose influence or frame range
    blends it in (none of these can be followed exactly)."""
    active = [(i, m) for i, m in enumerate(modifiers) if not m.mute]
    cycles = None
    for i, m in active:
        label = f"{m.type.replace('_', ' ').title()} modifier {m.name!r}"
        if m.type != "CYCLES":
            raise ValueError(f"{what}: its F-curve has a {label}, which a motion cannot follow "
                             "exactly: remove or mute it (a motion follows the keys, and a "
                             "Cycles modifier to repeat them)")
        if i != 0:
            raise ValueError(f"{what}: its F-curve's {label} is not first in the modifier "
                             "stack, where Blender does not apply it: move it to the top or "
                             "remove it")
        if (m.use_influence and m.influence != 1.0) or m.use_restricted_range:
            raise ValueError(f"{what}: its F-curve's {label} has an influence or a restricted "
                             "frame range, which a motion cannot follow exactly: turn them off")
        if m.mode_before not in CYCLE_MODES or m.mode_after not in CYCLE_MODES:
            raise ValueError(f"{what}: its F-curve's {label} uses a cycle mode a motion does "
                             f"not know ({m.mode_before}, {m.mode_after})")
        cycles = m
    return fn if cycles is None else CycledFunction(fn, cycles)


# how far before a frame (in frames) ``first_jump`` takes the value's limit from the left:
# a smooth curve moves d eps + O(eps^2) there, a jump its whole height
JUMP_PROBE = 1e-4


def first_jump(fn: Callable[[float], tuple[float, float, float]], frames) -> float | None:
    """The first of ``frames`` or of the keys' frames among them at which ``fn`` (value,
    d/dframe, d2/dframe2 of a frame) jumps in value inside their range, as a Constant key's
    segment does where the next key's value differs (the jump as the frame is reached) or a
    Repeat cycle whose ends differ (just after its seam): the value there differs from its
    limit on either side by more than the rate over the gap explains (beyond 1e-9 and a
    millionth of the value); None when it never jumps.  Keys alone can jump, so a curve
    without a Cycles modifier is looked at its keys; a cycled one at its keys and every
    whole frame (a cycle's image of a key between frames is not looked for)."""
    frames = [float(f) for f in frames]
    if len(frames) < 2:
        return None
    keys = getattr(getattr(fn, "fn", fn), "frames", [])
    lo, hi = frames[0], frames[-1]
    whole = frames if isinstance(fn, CycledFunction) or not keys else []
    for x in sorted(set(whole) | {k for k in keys if lo <= k <= hi}):
        v = fn(x)[0]
        sides = [side for side in (-1.0, 1.0) if lo < x + side * JUMP_PROBE < hi]
        for side in sides:
            near, rate, bend = fn(x + side * JUMP_PROBE)
            gap = near - v - rate * side * JUMP_PROBE
            if abs(gap) > 1e-9 + 1e-6 * abs(v) + abs(bend) * JUMP_PROBE ** 2:
                return x
    return None


def key_times(fn: KeyframedFunction | CycledFunction, timeline: Timeline) -> list[float]:
    """Solver times (s) inside the timeline where the keyed curve may kink: its keys (a
    Bezier segment's end, a Linear or Constant key: the rate or acceleration jumps there)
    and, under a Cycles modifier, every image of them the cycles play (forwards and, for
    MIRROR, backwards), for a dynamic run to end its steps on (the solver's breakpoints)."""
    keyed = fn.fn if isinstance(fn, CycledFunction) else fn
    keys = np.asarray(keyed.frames, dtype=float)
    first, last = timeline.frame_start, timeline.frame_end
    frames = [keys]
    if isinstance(fn, CycledFunction) and fn.span > 0.0:
        c = fn.cycles
        reach = math.ceil(max(abs(first - fn.last), abs(last - fn.first)) / fn.span) + 1
        for side, mode, count in ((-1, c.mode_before, c.cycles_before),
                                  (1, c.mode_after, c.cycles_after)):
            for n in range(1, (count or reach) + 1) if mode != "NONE" else ():
                backwards = mode == "MIRROR" and n % 2 == 1     # its keys in reverse
                frames.append((fn.first + fn.last - keys if backwards else keys)
                              + side * n * fn.span)
    frames = np.concatenate(frames)
    inside = np.unique(frames[(frames > first) & (frames < last)])
    return ((inside - first) / timeline.fps).tolist()


def time_derivatives(fn: KeyframedFunction | CycledFunction, timeline: Timeline, scale: float = 1.0
                     ) -> tuple[Callable[[float], float], ...]:
    """Callables f(t), f'(t), f''(t) of solver time t (s) for the scene's ``timeline``
    (frame = frame_start + t fps, so d/dt = fps d/dframe), values times ``scale`` (metres
    per Blender unit for a slide, 1 for an angle)."""
    fps = timeline.fps

    def at(t: float) -> tuple[float, float, float]:
        v, d, dd = fn(timeline.frame_of(t))
        return v * scale, d * fps * scale, dd * fps * fps * scale
    return (lambda t: at(t)[0]), (lambda t: at(t)[1]), (lambda t: at(t)[2])
