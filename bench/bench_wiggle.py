"""Slider (wiggle) speed in real Blender: the free slider-crank of tests/blender_scenes.py
whose crank is a dense mesh (a UV sphere of SEGMENTS x RINGS squashed to the crank's
size, about 2 x SEGMENTS x RINGS triangles: its mass is read from the mesh), its main
bearing's Angle slider moved through CHANGES values.  Prints the median and largest
milliseconds per slider change, and the time of one scene read for comparison; then the
main thread's CPU time of the first change and the others' median (the wall time less the
waits of a machine loaded by other work).  With
``--cold`` the scene is not read before the first change (as a file just opened: the
first change reads it, every mesh's mass summed).

Run:  .venv/bin/python bench/bench_wiggle.py [segments] [rings] [--cold]
"""
from __future__ import annotations

import importlib
import math
import os
import sys
import time

import numpy as np

import in_blender  # noqa: E402  (bench/, the script's folder)

HERE = os.path.dirname(os.path.abspath(__file__))
CHANGES = 40


def main() -> None:
    cold = "--cold" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--cold"]
    segments = int(args[0]) if args else 256
    rings = int(args[1]) if len(args) > 1 else 128
    ext = in_blender.extension()
    import bmesh
    import bpy
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    import blender_scenes as bs
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    sc = bs.slider_crank(bpy)
    sc["main"].mechanism.motion_type = "NONE"
    crank = sc["crank"]
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=segments, v_segments=rings, radius=0.5)
    for v in bm.verts:                              # the crank's box: 1 x 0.2 x 0.2 local
        v.co.x, v.co.y, v.co.z = v.co.x, v.co.y * 0.2, v.co.z * 0.2
    mesh = bpy.data.meshes.new("dense crank")
    bm.to_mesh(mesh)
    bm.free()
    crank.data = mesh
    bpy.context.view_layer.update()
    reader = importlib.import_module(ext.__name__ + ".addon.scene_reader")
    t0 = time.perf_counter()
    if not cold:
        reader.read_scene(bpy.context.scene)
    read = time.perf_counter() - t0
    s = sc["main"].mechanism
    times, cpu = [], []
    for k in range(CHANGES):
        value = math.radians(10.0 * math.sin(k / 3.0) + 5.0 * k)
        t0, c0 = time.perf_counter(), time.thread_time()
        s.wiggle_angle = value
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    bpy.context.view_layer.update()
    x = crank.matrix_world.col[0]
    err = abs((math.atan2(x[1], x[0]) - value + math.pi) % (2.0 * math.pi) - math.pi)
    before = "no scene read before" if cold else f"one scene read {1e3 * read:.1f} ms"
    print(f"crank mesh {len(mesh.polygons)} faces: {before}; slider "
          f"change {1e3 * np.median(times):.1f} ms median, {1e3 * np.max(times):.1f} ms largest "
          f"({CHANGES} changes; first {1e3 * times[0]:.1f} ms); last angle off by {err:.1e} rad")
    print(f"thread CPU (what the wall times are on an idle machine): first change "
          f"{1e3 * cpu[0]:.1f} ms, the others {1e3 * np.median(cpu[1:]):.1f} ms median")


if __name__ == "__main__":
    main()
