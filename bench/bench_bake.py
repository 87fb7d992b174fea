"""Keyframe writing speed in real Blender: 100 moving parts (each on a driven revolute
joint) over 240 frames.  Prints the solve time and the time write_bake takes to put the
keyframes and joint plots into the scene (issue target: under 0.1 s for the keyframes).

Run:  .venv/bin/python bench/bench_bake.py [parts] [frames]
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 240
    spec = importlib.util.spec_from_file_location("ma_headless", os.path.join(HERE, "..", "addon", "headless.py"))
    headless = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(headless)
    ext = headless.enable()
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
    reader = importlib.import_module(ext.__name__ + ".addon.scene_reader")
    bake = importlib.import_module(ext.__name__ + ".addon.bake")
    scene = bpy.context.scene
    t0 = time.perf_counter()
    sm = reader.read_scene(scene)
    t1 = time.perf_counter()
    result = sm.mech.solve(sm.duration, sm.fps)
    t2 = time.perf_counter()
    import dataclasses
    bake.write_bake(scene, dataclasses.replace(sm, joints=[], motions={}), result)
    t3 = time.perf_counter()
    bake.write_bake(scene, sm, result)
    t4 = time.perf_counter()
    keys = sum(len(fc.keyframe_points) for ob in scene.objects if ob.mechanism.bake_action
               for fc in bake.ensure_channelbag(ob.mechanism.bake_action, ob.mechanism.bake_action.slots[0]).fcurves)
    print(f"{n} parts, {len(result.times)} frames: read {t1 - t0:.3f} s, solve {t2 - t1:.2f} s, "
          f"part keyframes {t3 - t2:.3f} s, whole bake with joint plots {t4 - t3:.3f} s "
          f"({keys} keys)")


if __name__ == "__main__":
    main()
