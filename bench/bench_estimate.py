"""The bake's time estimate (addon/io/run_cost.py, what Check and Bake warn before long
work) against bakes measured in real Blender: three kinds of kinematic mechanism the
estimate tells apart (independent arms on driven pins, a chain of driven pins: the
solver's joint-by-joint path; slider-cranks side by side: closed loops), each baked by the
Bake operator with force plots on, the estimate the operator made recorded on the way.
Prints, per scene, the estimate, the bake's process CPU time (its worker threads' too, so
that other work on the machine does not lengthen it) and their ratio.  The estimate's
constants were measured on a 2-core machine; a faster one shows ratios above 1.

Run:  .venv/bin/python bench/bench_estimate.py
"""
from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import in_blender  # noqa: E402  (bench/, the script's folder)

SCENES = (("arms", 100, 2000), ("arms", 10, 2000), ("chain", 100, 1000), ("loops", 1, 3000),
          ("loops", 30, 1000))


def scene_parts(bpy):
    """The sample scenes' helpers (sample_scenes/common.py) in a new scene of ``frames``."""
    sys.path.insert(0, os.path.join(HERE, "..", "sample_scenes"))
    import common
    return common


def arms(bpy, n: int, frames: int) -> None:
    """n independent arms on driven pins to a ground bar (bench/bench_bake.py's scene)."""
    c = scene_parts(bpy)
    c.new_scene(frames / 24.0)
    bpy.context.scene.frame_end = frames
    base = c.box("Base", (n * 0.3, 0.2, 0.1), (n * 0.15, 0, -0.1), ground=True)
    for k in range(n):
        arm = c.box(f"Arm{k}", (0.25, 0.02, 0.02), (k * 0.3 + 0.125, 0, 0))
        c.joint(f"Pin{k}", "REVOLUTE", c.marker(arm, f"Arm{k}.pin", (k * 0.3, 0, 0), "Y"),
                c.marker(base, f"Base.pin{k}", (k * 0.3, 0, 0), "Y"),
                motion=f"sin(2*pi*t + {k * 0.1})")


def chain(bpy, n: int, frames: int) -> None:
    """A chain of n links, each on a pin driven from the link before (the first from the
    ground)."""
    c = scene_parts(bpy)
    c.new_scene(frames / 24.0)
    bpy.context.scene.frame_end = frames
    before = c.box("Base", (0.1, 0.2, 0.1), (0, 0, -0.1), ground=True)
    for k in range(n):
        link = c.box(f"Link{k}", (0.25, 0.02, 0.02), (k * 0.3 + 0.125, 0, 0))
        c.joint(f"Pin{k}", "REVOLUTE", c.marker(link, f"Link{k}.pin", (k * 0.3, 0, 0), "Y"),
                c.marker(before, f"pin{k}", (k * 0.3, 0, 0), "Y"),
                motion=f"0.2*sin(2*pi*t + {k * 0.1})")
        before = link


def loops(bpy, n: int, frames: int) -> None:
    """n slider-cranks side by side on one ground (closed loops: crank, rod, slider), each
    crank driven."""
    c = scene_parts(bpy)
    c.new_scene(frames / 24.0)
    bpy.context.scene.frame_end = frames
    base = c.box("Base", (0.6, n * 0.2, 0.1), (0.2, n * 0.1, -0.3), ground=True)
    for k in range(n):
        y = k * 0.2
        crank = c.box(f"Crank{k}", (0.1, 0.02, 0.02), (0.05, y, 0))
        rod = c.box(f"Rod{k}", (0.3, 0.02, 0.02), (0.25, y, 0))
        slider = c.box(f"Slider{k}", (0.05, 0.05, 0.05), (0.4, y, 0))
        c.joint(f"Main{k}", "REVOLUTE", c.marker(crank, f"c{k}", (0, y, 0)),
                c.marker(base, f"b{k}", (0, y, 0)), motion=f"2*pi*t + {0.1 * k}")
        c.joint(f"Big{k}", "REVOLUTE", c.marker(rod, f"r{k}", (0.1, y, 0)),
                c.marker(crank, f"c2{k}", (0.1, y, 0)))
        c.joint(f"Slide{k}", "PRISMATIC", c.marker(slider, f"s{k}", (0.4, y, 0), "X"),
                c.marker(base, f"b2{k}", (0.4, y, 0), "X"))
        c.joint(f"Small{k}", "IN_LINE", c.marker(slider, f"s2{k}", (0.4, y, 0)),
                c.marker(rod, f"r2{k}", (0.4, y, 0)))


def measure(ext, build, n: int, frames: int) -> tuple[float, float]:
    """(the operator's estimate, the bake's process CPU time), s, for the scene built."""
    import bpy
    build(bpy, n, frames)
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    ops, said = ext.addon.operators, []
    made = ops.run_cost
    ops.run_cost = lambda *a: said.append(made(*a)) or said[-1]
    try:
        start = time.process_time()
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        spent = time.process_time() - start
    finally:
        ops.run_cost = made
    return said[0].seconds, spent


def main() -> None:
    ext = in_blender.extension()
    print(f"{'scene':>10s} {'parts':>6s} {'frames':>7s} {'estimate s':>11s} {'bake CPU s':>11s}"
          f" {'ratio':>6s}")
    for name, n, frames in SCENES:
        est, spent = measure(ext, globals()[name], n, frames)
        print(f"{name:>10s} {n:6d} {frames:7d} {est:11.2f} {spent:11.2f} {est / spent:6.2f}")


if __name__ == "__main__":
    main()
