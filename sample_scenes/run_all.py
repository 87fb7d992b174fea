"""README's main job: build every sample scene, bake it through the real extension, save
the .blend, render a small Cycles preview of it, a short animation and plot its forces.

Run:  .venv/bin/python sample_scenes/run_all.py [out_dir] [scene ...]
Writes in out_dir (default out/samples): <scene>.blend, <scene>.png (a still),
<scene>.mp4 and <scene>.gif (its first 3 s: Blender's FFmpeg output, and a smaller GIF)
and <scene>_plot.png (the main forces and torques against time, read back from
the baked custom properties; sample_scenes/force_plot.py); a scene whose build() gives a
"plot" function also <scene>_motion.png, drawn by it.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = ["pendulum", "double_pendulum", "slider_crank", "four_bar", "excavator", "suspension",
          "gear_train", "rack_steering", "valve_train", "scotch_yoke", "door_stop", "ball_drop",
          "robot_arm", "ratchet", "geneva", "gear_teeth"]


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
        t1 = time.perf_counter()
        blend = os.path.join(out, f"{name}.blend")
        bpy.ops.wm.save_as_mainfile(filepath=blend)
        from common import render_animation, render_preview
        from force_plot import plot_forces
        png = os.path.join(out, f"{name}.png")
        render_preview(png, info["preview_frame"])
        t2 = time.perf_counter()
        render_animation(os.path.join(out, name))
        t3 = time.perf_counter()
        plot_forces(bpy.context.scene, os.path.join(out, f"{name}_plot.png"), name.replace("_", " "))
        if "plot" in info:
            info["plot"](bpy.context.scene, os.path.join(out, f"{name}_motion.png"))
        t4 = time.perf_counter()
        scene = bpy.context.scene
        print(f"[{name}] baked frames {scene.frame_start}-{scene.frame_end}, saved {blend}, "
              f"preview {png}, {name}.mp4, {name}.gif, {name}_plot.png ({t4 - t0:.1f} s: "
              f"build and bake {t1 - t0:.1f}, still {t2 - t1:.1f}, animation {t3 - t2:.1f}, "
              f"plot {t4 - t3:.1f})")
    print(f"{len(names) - failed} of {len(names)} sample scenes baked into {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
