"""What a bake of the scene's frame range will roughly cost, in time and memory, before it
runs: Check and Bake warn when it is large (a frame range of a million frames typed by
mistake would need gigabytes and hours), so that the user can shorten it first.

An estimate from the model's size, not a measurement of this scene: the constants are
costs measured on this project's test scenes (Blender 5.0 as the bpy module, on the
2-core machine the project's tests run on; a faster machine takes less time, the memory
is the same).  Memory: a baked channel (a part's location or quaternion
component, a joint's reaction or a motion's effort property) keeps one Blender keyframe
per frame, some 150 bytes with its F-curve's share, and the solver's result about 16 bytes
per number it stores per frame (the result and the copies the bake makes of it); measured
(peak growth over a bake of 20,000 frames) 8.7 kB a frame for the slider-crank scene (54
channels, 105 numbers; estimate 9.8 kB) and 2.5 kB for the pendulum (15 channels, 35
numbers; estimate 2.8 kB).  Time, measured on bakes of 1,000 to 10,000 frames (the Bake
operator whole, kinematic): the kinematic sweep takes some 0.1 ms a frame and 28 us per
moving part a frame for a mechanism of closed loops (slider-cranks side by side, 3 to 198
parts: 62 to 28 us a part), but an open tree of driven fixed, revolute, prismatic and
cylindrical joints, nothing else, is placed joint by joint (solver sweep/tree.py): 0.03 ms
a frame and 5 us a part (100 independent driven arms 3.9 us, chains of 10 to 200 driven
links 6.4 to 7.4 us); the keys and the force plots 0.1 to 1.0 us per channel a frame
(0.4 us for 100 arms over 10,000 frames, 1.0 us for 198 parts over 1,000).  Those bakes
took 0.6 to 1.4 times the estimate (100 arms over 10,000 frames: 10.3 s, estimate 10.1 s;
bench/bench_estimate.py).  Forward dynamics some 5 ms per moving part a
frame (4.4 to 6.4 ms for the pendulum scene, 7 to 8 ms per link for swinging chains), but
its steps follow the motion: a chaotic or stiff motion or a tight tolerance takes several
times more, a mechanism at rest far less.
"""
from __future__ import annotations

from dataclasses import dataclass

KEY_BYTES = 150.0              # one Blender keyframe with its share of the F-curve
RESULT_BYTES = 16.0            # one number of the solver's result per frame, with copies
KEY_SECONDS = 3e-7             # writing one channel's key, per frame
# solving, a frame: FRAME_SECONDS and PART_SECONDS per moving part, by how it is solved
# ("tree": the kinematic sweep of an open tree of driven joints); the docstring's numbers
FRAME_SECONDS = {"kinematic": 1e-4, "tree": 3e-5, "dynamic": 0.0}
PART_SECONDS = {"kinematic": 2.8e-5, "tree": 5e-6, "dynamic": 5e-3}
# past these a Check or Bake warns: a quarter of the 8 GB of a modest machine, or a bake
# that keeps Blender busy for longer than five minutes
MEMORY_WARNING = 2e9               # bytes
TIME_WARNING = 300.0               # s


@dataclass(frozen=True)
class RunCost:
    """A bake's rough cost: ``seconds`` to solve and write it, ``bytes`` of memory it
    holds at its peak (the result and the keyframes)."""
    seconds: float
    bytes: float


def baked_channels(parts: int, joints: int, motions: int, extra: int = 0) -> int:
    """The channels a bake keys on every frame: 7 per part (location, quaternion), 8 per
    joint (reaction force and torque, their magnitudes), 1 per motion (its effort), and
    ``extra`` (couplers', cams', stops' and friction's own series)."""
    return 7 * parts + 8 * joints + motions + extra


def result_numbers(bodies: int, rows: int, joints: int, motions: int, tracked: int = 0) -> int:
    """Numbers the solver's result stores per frame: 19 per moving part (position,
    orientation, velocities, accelerations), one per constraint row (its multiplier), 6 per
    joint (its reaction), one per motion (its effort), the tracked values and 5 more (time,
    energies, power)."""
    return 19 * bodies + rows + 6 * joints + motions + tracked + 5


def solve_seconds(bodies: int, analysis: str) -> float:
    """The rough time of solving one frame of a mechanism of ``bodies`` moving parts by
    ``analysis`` ("kinematic", "tree": kinematic, an open tree of driven joints, or
    "dynamic"), s."""
    return FRAME_SECONDS[analysis] + PART_SECONDS[analysis] * max(bodies, 1)


TREE_KINDS = ("FIXED", "REVOLUTE", "PRISMATIC", "CYLINDRICAL")


def solved_as(analysis: str, parts: int, kinds: list[str], driven: int, others: int) -> str:
    """"tree" for a kinematic run that the sweep places joint by joint: as many joints as
    moving parts, each of TREE_KINDS (their panel's values, ``kinds``), every one but the
    fixed driven (``driven``: the joints with a motion), and ``others`` (couplers, cams,
    stops, friction, followed markers, contacts) none; ``analysis`` otherwise."""
    free = sum(kind != "FIXED" for kind in kinds)
    if (analysis == "kinematic" and len(kinds) == parts and not others and driven >= free
            and all(kind in TREE_KINDS for kind in kinds)):
        return "tree"
    return analysis


def run_cost(frames: int, bodies: int, channels: int, numbers: int, analysis: str) -> RunCost:
    """The rough cost of baking ``frames`` frames of a mechanism of ``bodies`` moving
    parts with ``channels`` keyed channels and ``numbers`` result numbers a frame, by the
    ``analysis`` (as ``solve_seconds``): the module docstring has the constants."""
    per_frame_s = solve_seconds(bodies, analysis) + KEY_SECONDS * channels
    per_frame_b = KEY_BYTES * channels + RESULT_BYTES * numbers
    return RunCost(frames * per_frame_s, frames * per_frame_b)


def cost_note(frames: int, cost: RunCost, analysis: str) -> str | None:
    """A warning when the bake of ``frames`` frames would take more than TIME_WARNING s or
    MEMORY_WARNING bytes (roughly: it says so); None otherwise."""
    if cost.seconds <= TIME_WARNING and cost.bytes <= MEMORY_WARNING:
        return None
    return (f"the frame range has {frames:,} frames: baking it would take roughly "
            f"{_duration(cost.seconds)} and {_size(cost.bytes)} of memory ({analysis}; an "
            "estimate from the mechanism's size, not a measurement); shorten the frame range "
            "or lower the frame rate first if that was not meant")


# a study keeps every variant's Result whole (float64), for its metrics and Bake Variant
STORED_BYTES = 8.0


def study_cost(variants: int, frames: int, bodies: int, numbers: int,
               analysis: str) -> RunCost:
    """The rough cost of a design study of ``variants`` variants over ``frames`` frames of
    a mechanism of ``bodies`` moving parts and ``numbers`` result numbers a frame
    (``result_numbers``): each variant's solve as a bake's (``solve_seconds``, never the
    tree's: a study's variants are solved the general way; no keys),
    and every variant's whole Result kept to the end (``STORED_BYTES`` a number: 300
    variants of a 150-part chain over 240 frames hold 2.8 GB).  Variants run together
    (a batched sweep, dynamics in lockstep) take 0.2 to 0.4 of a separate run each
    (docs/benchmarks.md), one that leaves the group its whole run: the estimate is the
    whole, the most the study takes."""
    n = variants * frames
    return RunCost(n * solve_seconds(bodies, analysis), n * STORED_BYTES * numbers)


def study_note(variants: int, frames: int, cost: RunCost, analysis: str) -> str | None:
    """A warning when a study would take more than TIME_WARNING s or MEMORY_WARNING bytes
    (roughly: it says so); None otherwise."""
    if cost.seconds <= TIME_WARNING and cost.bytes <= MEMORY_WARNING:
        return None
    return (f"the study has {variants:,} variants of {frames:,} frames: running it would take "
            f"up to roughly {_duration(cost.seconds)} and hold {_size(cost.bytes)} of memory "
            f"({analysis}; an estimate from the mechanism's size, not a measurement); study "
            "fewer variants or shorten the frame range first if that was not meant")


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _size(nbytes: float) -> str:
    if nbytes < 1e9:
        return f"{nbytes / 1e6:.0f} MB"
    return f"{nbytes / 1e9:.1f} GB"
