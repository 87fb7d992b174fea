"""A re-bake in real Blender: 100 moving parts (each on a driven revolute joint) over 240
frames, baked through the Bake operator, then baked again with nothing changed, and once
more, twice, with Force Plots off (the parts' keys alone: "no plots"; the first of these
also removes the plots of the bake before).  Prints,
for the first bake and the re-bake, the time of each stage (the scene read, the solve, the
parts' keys, the force plots, the rest: checks, the scene's evaluation and the report) and
of the whole, the re-bake's ratio to the first bake, and the accuracy beside them: the
largest difference between a baked location key and the solver's position (float32 keys)
and whether the re-bake wrote the first bake's keys bit for bit (without plots: the
parts' keys).

Run:  .venv/bin/python bench/bench_bake.py [parts] [frames] [re-bakes]
"""
from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
import time

import numpy as np

import in_blender  # noqa: E402  (bench/, the script's folder)

HERE = os.path.dirname(os.path.abspath(__file__))
STAGES = ("read", "solve", "keys", "plots")


def build(n: int, frames: int):
    """The scene: a ground bar and n arms, arm k on a pin driven by sin(2 pi t + 0.1 k)."""
    import bpy
    sys.path.insert(0, os.path.join(HERE, "..", "sample_scenes"))
    from common import box, joint, marker, new_scene
    new_scene(frames / 24.0)
    bpy.context.scene.frame_end = frames
    base = box("Base", (n * 0.3, 0.2, 0.1), (n * 0.15, 0, -0.1), ground=True)
    for k in range(n):
        arm = box(f"Arm{k}", (0.25, 0.02, 0.02), (k * 0.3 + 0.125, 0, 0))
        joint(f"Pin{k}", "REVOLUTE", marker(arm, f"Arm{k}.pin", (k * 0.3, 0, 0), "Y"),
              marker(base, f"Base.pin{k}", (k * 0.3, 0, 0), "Y"), motion=f"sin(2*pi*t + {k * 0.1})")
    return bpy.context.scene


def timed(spent: dict, stage: str, module, name: str) -> None:
    """Add the time of every call of module.name to spent[stage]; of a generator function
    (a bake's steps), the time spent inside its steps."""
    fn = getattr(module, name)

    def steps(gen):
        while True:
            start = time.perf_counter()
            try:
                item = next(gen)
            except StopIteration as end:
                return end.value
            finally:
                spent[stage] += time.perf_counter() - start
            yield item

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            out = fn(*args, **kwargs)
        finally:
            spent[stage] += time.perf_counter() - start
        return steps(out) if inspect.isgenerator(out) else out
    setattr(module, name, wrapper)


def keys_of(scene, bake) -> dict:
    """(object, data path, index) -> its baked (frame, value) keys as float32 bytes."""
    out = {}
    for ob in scene.objects:
        act = ob.mechanism.bake_action
        if act is None:
            continue
        for fc in bake.ensure_channelbag(act, act.slots[0]).fcurves:
            co = np.empty(2 * len(fc.keyframe_points), dtype=np.float32)
            fc.keyframe_points.foreach_get("co", co)
            out[(ob.name, fc.data_path, fc.array_index)] = co.tobytes()
    return out


def location_error(scene, keys: dict, result, scale: float) -> float:
    """Largest |location key - solver position| (Blender units) over the parts and frames."""
    worst = 0.0
    for ob in scene.objects:
        if ob.mechanism.role != "PART" or ob.mechanism.ground:
            continue
        keyed = np.stack([np.frombuffer(keys[(ob.name, "location", i)], np.float32)[1::2]
                          for i in range(3)], axis=1)
        worst = max(worst, float(np.abs(keyed - result.position(ob.name) / scale).max()))
    return worst


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 240
    rebakes = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    ext = in_blender.extension()
    import bpy
    scene = build(n, frames)
    ops = importlib.import_module(ext.__name__ + ".addon.operators")
    bake = importlib.import_module(ext.__name__ + ".addon.bake")
    spent = dict.fromkeys(STAGES, 0.0)
    results = []
    timed(spent, "read", ops, "bake_reading")
    timed(spent, "solve", ops, "_solve_read")
    timed(spent, "keys", bake, "part_key_steps")
    timed(spent, "plots", bake, "write_bake_steps")
    solve = ops._solve_read
    ops._solve_read = lambda *a, **k: results.append(solve(*a, **k)) or results[-1]
    rows, first = [], None
    for run in range(3 + rebakes):
        scene.mechanism.force_plots = run <= rebakes      # the last two: Force Plots off
        for stage in STAGES:
            spent[stage] = 0.0
        start = time.perf_counter()
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        whole = time.perf_counter() - start
        keys = keys_of(scene, bake)
        first = first or keys
        plots = spent["plots"] - spent["keys"]      # write_bake less the part keys inside it
        same = keys == {name: first[name] for name in keys} and len(keys) >= n * 7
        rows.append((whole, spent["read"], spent["solve"], spent["keys"], plots,
                     whole - spent["read"] - spent["solve"] - spent["plots"], same))
    error = location_error(scene, first, results[0], scene.unit_settings.scale_length)
    nkeys = sum(len(v) // 8 for v in first.values())
    print(f"{n} parts, {frames} frames, {nkeys} keys; location keys within {error:.1e} BU of "
          f"the solver's positions")
    print(f"{'bake':<10} {'whole s':>8} {'read':>7} {'solve':>7} {'keys':>7} {'plots':>7} "
          f"{'rest':>7} {'/ first':>8}  keys as the first bake's")
    for k, (whole, read, solve_s, keys_s, plots, rest, same) in enumerate(rows):
        label = "first" if k == 0 else f"re-bake {k}" if k <= rebakes else f"no plots {k - rebakes}"
        print(f"{label:<10} {whole:8.3f} {read:7.3f} {solve_s:7.3f} {keys_s:7.3f} {plots:7.3f} "
              f"{rest:7.3f} {whole / rows[0][0]:8.2f}  {'bit for bit' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
