"""A dynamic run's instants where the animator should look: impacts at the stops
(``Result.impacts``) and dry friction's events (``Result.friction_events``: "stick",
"slip", "reverse"), as timeline markers and as rows of the events CSV.

Markers: one per event at the scene frame nearest its instant, named "impact: <joint>"
(every joint struck at that instant, comma-separated) or "<kind>: <joint>" ("stick:
Door hinge").  A bake records the markers it made (name and frame) and removes exactly
those before the next bake or at Clear Bake; the user's own markers, and one of the
bake's the user has renamed or moved, are left alone.

The events CSV (``events_path``: "<name>_events.csv" beside Export CSV's file): one row
per struck stop of each impact and per friction event, in time order, with the instant
(s, located by the solver, not a frame's), the nearest frame, the joint, the item's
solver name, the stop's bound, and for an impact the joint coordinate's speed just before
and just after (rad/s on an angle, m/s on a slide) and the stop's impulse (N m s or N s;
signs as Result.impacts)."""
from __future__ import annotations

import json
import math
import os
from collections import Counter
from typing import Callable, Mapping, Sequence

import numpy as np

Mark = tuple[str, int]          # (marker name, scene frame)

EVENT_COLUMNS = ("frame", "time_s", "event", "joint", "item", "bound", "speed_before",
                 "speed_after", "impulse")


def nearest_frame(frame: float) -> int:
    """The whole frame nearest a (fractional) scene frame; halves go up, as a time just
    past a frame's middle belongs to the later frame."""
    return int(math.floor(frame + 0.5))


def _friction_joint(name: str, frictions: Mapping[str, str]) -> str:
    """The joint a friction element acts on (``frictions``: element -> joint), else its name."""
    return frictions.get(name, name)


def _events(result) -> list[tuple[float, int, object]]:
    """(time, kind order, record) of every impact and friction event, sorted by time (an
    impact before a friction event at the same instant: the impact causes it)."""
    out = [(hit.time, 0, hit) for hit in getattr(result, "impacts", ())]
    out += [(t, 1, (t, who, what)) for t, who, what in getattr(result, "friction_events", ())]
    return sorted(out, key=lambda e: (e[0], e[1]))


def rough_keys(times: np.ndarray, result) -> np.ndarray:
    """(n,) bool: the keys at ``times`` (a result's output times, s) on either side of an
    event of the result (an impact, a friction event: where the motion turns abruptly
    between two frames), and a key at an event's very instant with the one before it."""
    rough = np.zeros(len(times), dtype=bool)
    at = np.array([t for t, _, _ in _events(result)], dtype=float)
    if len(at) and len(times):
        after = np.clip(np.searchsorted(times, at), 0, len(times) - 1)
        rough[after] = True
        rough[np.maximum(after - 1, 0)] = True
    return rough


def event_marks(result, frame_of: Callable[[float], float],
                frictions: Mapping[str, str]) -> list[Mark]:
    """The timeline markers of a result's events, in time order: ("impact: <joints>" |
    "<kind>: <joint>", nearest scene frame).  ``frame_of``: scene frame of a time in s
    (io/timeline.Timeline.frame_of); ``frictions``: friction element name -> joint name."""
    marks = []
    for t, order, rec in _events(result):
        if order == 0:
            joints = ", ".join(dict.fromkeys(rec.joints or rec.limits))
            marks.append((f"impact: {joints}", nearest_frame(frame_of(t))))
        else:
            _, who, what = rec
            marks.append((f"{what}: {_friction_joint(who, frictions)}", nearest_frame(frame_of(t))))
    return marks


def event_rows(result, frame_of: Callable[[float], float],
               frictions: Mapping[str, str]) -> list[list[str]]:
    """Header (EVENT_COLUMNS) and one row of text per struck stop of each impact and per
    friction event, in time order; a friction event leaves the bound, speeds and impulse
    empty.  Times with 12 significant digits (located to 1e-10 s), numbers with 9."""
    rows = [list(EVENT_COLUMNS)]
    for t, order, rec in _events(result):
        frame = str(nearest_frame(frame_of(t)))
        if order == 0:
            joints = rec.joints or ("",) * len(rec.limits)
            for k, limit in enumerate(rec.limits):
                rows.append([frame, f"{t:.12g}", "impact", joints[k], limit, rec.bounds[k],
                             f"{rec.speed_before[k]:.9g}", f"{rec.speed_after[k]:.9g}",
                             f"{rec.impulse[k]:.9g}"])
        else:
            _, who, what = rec
            rows.append([frame, f"{t:.12g}", what, _friction_joint(who, frictions), who,
                         "", "", "", ""])
    return rows


def events_path(path: str) -> str:
    """The events CSV beside Export CSV's ``path``: "run.csv" -> "run_events.csv"."""
    root, ext = os.path.splitext(path)
    return f"{root}_events{ext or '.csv'}"


def encode_marks(marks: Sequence[Mark]) -> str:
    """The markers a bake made, as the text the scene keeps (JSON)."""
    return json.dumps([[name, int(frame)] for name, frame in marks])


def decode_marks(text: str) -> list[Mark]:
    """The markers a bake recorded (``encode_marks``); none for empty or unreadable text
    (then no marker is removed: the user's are never at risk)."""
    try:
        return [(str(name), int(frame)) for name, frame in json.loads(text or "[]")]
    except (ValueError, TypeError):
        return []


def marks_to_remove(markers: Sequence[Mark], recorded: Sequence[Mark]) -> list[int]:
    """Indices into the scene's ``markers`` of those a bake made: each recorded (name,
    frame) matches one marker with that name at that frame, at most as many times as it
    was recorded; a marker renamed or moved since, or the user's own, matches none."""
    left = Counter(recorded)
    out = []
    for k, mark in enumerate(markers):
        if left[mark] > 0:
            left[mark] -= 1
            out.append(k)
    return out
