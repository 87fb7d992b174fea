"""Scene frames <-> solver times.  Frame k of a bake is time (k - frame_start) / fps with
fps = render.fps / render.fps_base (docs/conventions.md): the add-on hands the solver exactly these
times and reads result row k back as frame ``frames[k]``; nothing is rounded."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Timeline:
    """A scene's frame range (inclusive, whole frames) at its frame rate (frames per s)."""
    frame_start: int
    frame_end: int
    fps: float

    @classmethod
    def of_scene(cls, frame_start: int, frame_end: int, fps: int, fps_base: float) -> Timeline:
        """From the scene's values: ``render.fps`` divided by ``render.fps_base``
        (29.97 fps is fps 30, fps_base 1.001)."""
        return cls(int(frame_start), int(frame_end), fps / fps_base)

    @property
    def frames(self) -> np.ndarray:
        """(n,) float frame numbers frame_start..frame_end, one per result row."""
        return np.arange(self.frame_start, self.frame_end + 1, dtype=float)

    @property
    def times(self) -> np.ndarray:
        """(n,) s, the solver's output times: (frames - frame_start) / fps, from 0."""
        return (self.frames - self.frame_start) / self.fps

    @property
    def duration(self) -> float:
        """s from the first frame to the last."""
        return (self.frame_end - self.frame_start) / self.fps

    def frames_of(self, times: np.ndarray) -> np.ndarray:
        """The frame of each row of a result solved at ``times`` (s): row k is frames[k].
        ValueError unless ``times`` are this timeline's times (a result of another range)."""
        if not np.array_equal(np.asarray(times, dtype=float), self.times):
            raise ValueError(f"the result's {len(times)} times are not the {len(self.times)} "
                             f"frames {self.frame_start}..{self.frame_end} at {self.fps:g} fps")
        return self.frames

    def frame_of(self, time: float) -> float:
        """Scene frame (not rounded) at a solver time in s."""
        return self.frame_start + time * self.fps


def encode(timeline: Timeline) -> str:
    """The timeline as text a bake stores on each object it writes ("1 25 24.0"; the
    frame rate in full, so that ``decode`` gives it back to the last bit)."""
    return f"{timeline.frame_start} {timeline.frame_end} {timeline.fps!r}"


def decode(text: str) -> Timeline | None:
    """The timeline ``encode`` wrote, or None for "" (not baked) or text it did not write."""
    try:
        start, end, fps = text.split()
        return Timeline(int(start), int(end), float(fps))
    except ValueError:
        return None


def stale_note(baked: Timeline, now: Timeline, objects: list[str]) -> str:
    """What a bake solved over ``baked`` shows once the scene's frames or frame rate are
    ``now`` ("" when they are the same): its keys stay at the frames they were written at,
    so at another frame rate the motion plays faster or slower than solved (``now.fps /
    baked.fps`` times as fast), and frames outside the baked range hold its first or last
    pose.  ``objects``: the baked objects' names, the first named."""
    if baked == now:
        return ""
    changes = []
    if baked.fps != now.fps:
        changes.append(f"{baked.fps:.6g} fps and the scene now plays {now.fps:.6g} fps, so it "
                       f"runs {now.fps / baked.fps:.4g} times as fast as solved")
    if (baked.frame_start, baked.frame_end) != (now.frame_start, now.frame_end):
        changes.append(f"frames {baked.frame_start}-{baked.frame_end} and the scene's range is "
                       f"now {now.frame_start}-{now.frame_end}, whose frames outside it hold "
                       "the bake's first or last pose")
    others = f" and {len(objects) - 1} other object(s)" if len(objects) > 1 else ""
    return (f"the bake of {objects[0]!r}{others} is stale: it was solved for "
            f"{'; for '.join(changes)}: Bake again")


def remap_note(old: int, new: int) -> str:
    """What the scene's Time Remapping (Output > Frame Range: ``old`` -> ``new``, "" when
    equal) does to a bake: Blender plays every animation's frame F at scene frame F new /
    old, the bake's keys included, so the bake plays old / new times as fast as solved and
    its frames are shown at other scene frames (its range's end at frame_end x new / old)."""
    if old == new:
        return ""
    return (f"the scene's Time Remapping ({old} -> {new}) shows the bake's frame F at scene "
            f"frame F x {new / old:.4g}, so it plays {old / new:.4g} times as fast as solved: "
            "set Old and New equal to see it as solved")


_FRAME = re.compile(r"\(frame \d+\)")
_BETWEEN = re.compile(r"\(between frames (\d+) and (\d+)\)")


def frame_text(frame: float) -> str:
    """A scene frame as the user types it: "50", not "50.0" (a whole frame, as the frames
    of a bake are); a frame between two (a solver time, frame_of) to the nearest whole one,
    as Blender's timeline shows it."""
    return f"{float(frame):.0f}"


def with_frame(message: str, frame: float | None) -> str:
    """Name the scene ``frame`` in a solver message (the solver counts its own frames from
    0 as "(frame k)"; the user sees the scene's numbers): that mention is replaced, or the
    frame is appended in brackets; "(between frames k-1 and k)" (an instant between two
    frames, ``frame`` not whole) names the scene's two frames around it; the message is
    unchanged when ``frame`` is None."""
    if frame is None:
        return message
    if _BETWEEN.search(message):      # an instant between two frames (or on the later one):
        lo = int(np.ceil(frame)) - 1  # the two around it
        return _BETWEEN.sub(f"(between frames {lo} and {lo + 1})", message, count=1)
    text = f"frame {frame_text(frame)}"
    if _FRAME.search(message):
        return _FRAME.sub(f"({text})", message, count=1)
    return f"{message} [{text}]"


def with_scene_frame(message: str, frames: np.ndarray) -> str:
    """A solver message that names an output frame by its index k ("(frame k)", e.g. a
    result's note; or two, "(between frames a and b)") with the scene's frame frames[k]
    instead; unchanged when it names none."""
    between = _BETWEEN.search(message)
    if between is not None:
        a, b = (int(x) for x in between.groups())
        if max(a, b) < len(frames):
            return _BETWEEN.sub(f"(between frames {frame_text(frames[a])} and "
                                f"{frame_text(frames[b])})", message, count=1)
        return message
    found = _FRAME.search(message)
    if found is None:
        return message
    k = int(found.group(0)[7:-1])
    return with_frame(message, float(frames[k]) if 0 <= k < len(frames) else None)
