"""README's main job: build every sample scene, bake it through the real extension, save
the .blend and render a small Cycles preview of it.

Run:  .venv/bin/python sample_scenes/run_all.py [out_dir] [scene ...]
Writes out_dir/<scene>.blend and out_dir/<scene>.png (default out_dir: out/samples).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = ["pendulum", "double_pendulum", "slider_crank", "four_bar", "excavator", "suspension",
          "gear_train", "rack_steering", "valve_train", "scotch_yoke", "door_stop"]


def main(argv: list[str]) -> int:
    out = os.path.abspath(argv[0] if argv else os.path.join("out", "samples"))
    names = argv[1:] or SCENES
    spec = importlib.util.spec_from_file_location("ma_headless", os.path.join(HERE, "..", "addon", "headless.py"))
    headless = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(headless)
    headless.enable()
    import bpy
    sys.path.insert(0, HERE)
    os.makedirs(out, exist_ok=True)
    failed = 0
    for name in names:
        t0 = time.perf_counter()
        info = importlib.import_module(name).build()
        bpy.ops.mechanism.check()
        print(f"[{name}] {bpy.context.scene.mechanism.report}")
        try:
            bpy.ops.mechanism.bake()
        except RuntimeError as exc:
            print(f"[{name}] bake failed: {exc}")
            failed += 1
            continue
        blend = os.path.join(out, f"{name}.blend")
        bpy.ops.wm.save_as_mainfile(filepath=blend)
        from common import render_preview
        png = os.path.join(out, f"{name}.png")
        render_preview(png, info["preview_frame"])
        scene = bpy.context.scene
        print(f"[{name}] baked frames {scene.frame_start}-{scene.frame_end}, saved {blend}, "
              f"preview {png} ({time.perf_counter() - t0:.1f} s)")
    print(f"{len(names) - failed} of {len(names)} sample scenes baked into {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
