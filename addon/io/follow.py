"""A marker that follows another object's path: the path as exact functions of solver time
(position, velocity and acceleration, metres in marker J's axes), for the solver's general
motion (``Mechanism.add_general_motion``).  No bpy here: the caller passes the keys or the
sampled positions.

Two sources of a path:
- ``KeyedPath``: the target's own keyed location F-curves, evaluated exactly with their
  derivatives (io/keyframes.py), mapped into J's axes: p_J = R^T (p - o) times the scene's
  unit scale (R: J's axes in world columns, o: J's origin).
- ``SplinePath``: positions sampled at the scene's frames (and between them) through a C2
  cubic spline with not-a-knot ends (de Boor 1978, ch. IV, eqs. 8-9 and the not-a-knot end
  conditions of CUBSPL), whose velocity and acceleration are its exact derivatives.

The solver evaluates a callable f(t) on exact-derivative numbers (t carries dt/dt = 1); a
``FollowAxis`` returns its value as the Taylor polynomial f + f' (t - t0) + f'' (t - t0)^2 / 2
about t0 = the number's value, built from the number's own arithmetic, so the solver reads
f, f', f'' exactly (the chain rule with the number's derivatives).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ...solver import not_a_knot_slopes
from .timeline import Timeline

AXES = "xyz"


class SplinePath:
    """A path through sampled points: ``times`` (n,) s, increasing; ``points`` (n, 3) m, in
    J's axes.  ``at(t)`` gives (3, 3): rows position, velocity (m/s), acceleration (m/s^2);
    before the first time or after the last, the end segment's cubic carries on."""

    def __init__(self, times: Sequence[float], points: np.ndarray) -> None:
        self.times = np.asarray(times, dtype=float)
        self.points = np.asarray(points, dtype=float).reshape(len(self.times), 3)
        if len(self.times) < 2 or np.any(np.diff(self.times) <= 0.0):
            raise ValueError("a sampled path needs two or more samples at increasing times")
        self.slopes = not_a_knot_slopes(self.times, self.points)

    def at(self, t: float) -> np.ndarray:
        """(3, 3): position, velocity, acceleration at time t (s)."""
        i = int(np.clip(np.searchsorted(self.times, t, side="right") - 1, 0, len(self.times) - 2))
        h = self.times[i + 1] - self.times[i]
        y0, y1 = self.points[i], self.points[i + 1]
        s0, s1 = self.slopes[i], self.slopes[i + 1]
        delta = (y1 - y0) / h
        c2 = (3.0 * delta - 2.0 * s0 - s1) / h
        c3 = (s0 + s1 - 2.0 * delta) / (h * h)
        u = t - self.times[i]
        return np.stack([y0 + u * (s0 + u * (c2 + u * c3)),
                         s0 + u * (2.0 * c2 + 3.0 * u * c3),
                         2.0 * c2 + 6.0 * u * c3])

    def positions(self, ts: Sequence[float]) -> np.ndarray:
        """(len(ts), 3) positions at many times (the fitting error's check)."""
        return np.array([self.at(t)[0] for t in np.asarray(ts, dtype=float)])


FrameFunction = Callable[[float], tuple[float, float, float]]


@dataclass(frozen=True)
class Constant:
    """A location channel without keys: its value at every frame (Blender units)."""
    value: float

    def __call__(self, frame: float) -> tuple[float, float, float]:
        return self.value, 0.0, 0.0


class KeyedPath:
    """A path from the target's three location channels, each a function of the scene frame
    giving (value, d/dframe, d2/dframe2) in Blender units (io/keyframes.KeyframedFunction or
    CycledFunction, or a Constant); in J's axes: ``rotation`` (3, 3) J's axes as world columns,
    ``origin`` (3,) J's origin in world Blender units; ``scale`` metres per Blender unit."""

    def __init__(self, channels: Sequence[FrameFunction], timeline: Timeline,
                 rotation: np.ndarray, origin: np.ndarray, scale: float) -> None:
        self.channels, self.timeline = tuple(channels), timeline
        self.rotation = np.asarray(rotation, dtype=float)
        self.origin = np.asarray(origin, dtype=float)
        self.scale = float(scale)

    def at(self, t: float) -> np.ndarray:
        """(3, 3): position, velocity, acceleration (m, m/s, m/s^2) in J's axes at time t."""
        world = np.array([ch(self.timeline.frame_of(t)) for ch in self.channels]).T  # (3 rows, xyz)
        world[0] -= self.origin
        fps = self.timeline.fps
        world[1] *= fps                      # d/dt = fps d/dframe
        world[2] *= fps * fps
        return self.scale * world @ self.rotation


class FollowAxis:
    """One direction (0, 1, 2: J's x, y, z) of a path, as a function of solver time that the
    solver differentiates exactly: called on a plain time it gives the position (m); on the
    solver's exact-derivative number it gives the Taylor polynomial about that number's value,
    whose value, first and second derivative are the path's.  Picklable (a design study's
    workers) when its path is."""

    def __init__(self, path: Any, axis: int, label: str) -> None:
        self.path, self.axis, self.__name__ = path, int(axis), label

    def __call__(self, t: Any) -> Any:
        t0 = float(getattr(t, "v", t))       # the number's value: a time in s
        f, d, dd = self.path.at(t0)[:, self.axis]
        if not hasattr(t, "dd"):
            return float(f)
        dt = t - t0                          # value 0, carrying t's derivatives
        return float(f) + float(d) * dt + (0.5 * float(dd)) * dt * dt


def axis_functions(path: Any, axes: Sequence[bool], label: str) -> dict[str, FollowAxis]:
    """{"x": f, ...} for each direction ticked in ``axes`` (J's x, y, z), the keywords of
    add_general_motion; ValueError naming ``label`` when none is ticked."""
    out = {a: FollowAxis(path, i, f"{label} {a}") for i, a in enumerate(AXES) if axes[i]}
    if not out:
        raise ValueError(f"{label}: tick at least one of the Follow Axes (x, y, z)")
    return out


def actuator_specs(text: str, joints: Mapping[str, str], label: str) -> list[tuple[str, str | None]]:
    """(joint, coordinate or None: the joint's first) of each actuator named in ``text``:
    joint names separated by commas, a cylindrical joint's slide as "<joint>.slide" (its
    angle "<joint>.angle"); ``joints``: the mechanism's joint name -> kind.  ValueError
    naming ``label`` and the entry for a name that is not a joint, or one given twice."""
    out: list[tuple[str, str | None]] = []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        joint, _, coord = entry.rpartition(".")
        if entry in joints:
            spec = (entry, None)
        elif joint in joints and coord in ("angle", "slide"):
            spec = (joint, coord)
        else:
            raise ValueError(f"{label}: its Actuators name {entry!r}, which is not a joint of the "
                             "mechanism: give joint object names separated by commas")
        if spec[0] in [j for j, _ in out]:
            raise ValueError(f"{label}: its Actuators name joint {spec[0]!r} twice")
        out.append(spec)
    return out


def sample_frames(timeline: Timeline, per_frame: int) -> np.ndarray:
    """The frames a sampled path is read at: ``per_frame`` samples a frame over the scene's
    range, both ends included."""
    per_frame = max(int(per_frame), 1)
    n = (timeline.frame_end - timeline.frame_start) * per_frame + 1
    return timeline.frame_start + np.arange(n, dtype=float) / per_frame


def midpoints(frames: np.ndarray) -> np.ndarray:
    """The frames halfway between consecutive samples: where an interpolating spline is
    farthest from its knots, so where its fitting error is measured."""
    return 0.5 * (frames[:-1] + frames[1:])


def fitting_error(path: SplinePath, times: np.ndarray, points: np.ndarray) -> float:
    """Largest distance (m) between the spline and the true positions ``points`` (n, 3) at
    ``times`` (between the spline's knots)."""
    if len(times) == 0:
        return 0.0
    return float(np.max(np.linalg.norm(path.positions(times) - points, axis=1)))


def is_still(points: np.ndarray, tolerance: float) -> bool:
    """True when every sampled position is within ``tolerance`` of the first (the target does
    not move over the frame range)."""
    return bool(np.all(np.linalg.norm(np.asarray(points) - points[0], axis=1) <= tolerance))


_OVERDRIVEN = re.compile(r"motion '(?P<marker>.+?): follow\.(?P<axis>[xyz])' drives a coordinate "
                         r"that the joints and the other motions already fix")


def follow_hint(text: str) -> str:
    """A Check line or error that names a following marker's direction as over-driving, with
    what to do in the add-on's terms appended (untick that direction); other text as is."""
    found = _OVERDRIVEN.search(text)
    if found is None:
        return text
    return (f"{text} (marker {found['marker']!r}: untick {found['axis']} in its Follow Axes: "
            "the joints already fix that direction)")
