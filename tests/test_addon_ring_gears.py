"""An internal (ring) gear in real Blender: Radii from Meshes on a pinion inside a ring drawn
as a tube measures the ring's bore, where the pinion meshes, not its outer wall, and the bake
turns the ring at the pinion's radius over the bore.  Tolerances as in
test_addon_couplers.py: float32 vertex coordinates (F32 relative) and 1e-6 rad on angles
read from baked quaternion keys."""
from __future__ import annotations

import math

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_bake import F32
from test_addon_couplers import ANGLE_TOL, TIMES, baked_turn, drive, wrap


def tube(bpy, name: str, inner: float, outer: float, depth: float = 0.02, sides: int = 48):
    """A ring mesh about its local z at the world origin: the wall between radii ``inner``
    and ``outer`` (its vertices on those two circles), ``depth`` along z."""
    a = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    verts = [(r * math.cos(t), r * math.sin(t), z) for z in (depth / 2, -depth / 2)
             for r in (inner, outer) for t in a]
    it, ot, ib, ob = 0, sides, 2 * sides, 3 * sides
    faces = []
    for k in range(sides):
        j = (k + 1) % sides
        faces += [(ot + k, ot + j, it + j, it + k), (ib + k, ib + j, ob + j, ob + k),
                  (ob + k, ob + j, ot + j, ot + k), (ib + j, ib + k, it + k, it + j)]
    me = bpy.data.meshes.new(name)
    me.from_pydata(verts, [], faces)
    ring = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ring)
    return ring


@pytest.mark.parametrize("ring_first", [False, True], ids=["pinion-gear-1", "ring-gear-1"])
def test_radii_from_meshes_take_a_rings_bore(blender, ring_first: bool) -> None:
    """A pinion (cylinder of radius 0.06) 0.09 from the axis of a ring whose wall runs from
    0.15 to 0.18, Mesh Internal: Radii from Meshes gives 0.06 and 0.15 (float32; it gave
    the outer wall, 0.18, a ratio of 3 instead of 2.5), whichever joint is Gear 1; the
    bake turns the ring the pinion's way at 0.06 / 0.15 of its angle."""
    bpy = blender
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    pinion = bs.disc(bpy, "pinion", 0.06, (0.09, 0.0, 0.0))
    ring = tube(bpy, "ring", 0.15, 0.18)
    bs.tag(bpy, [ground, pinion, ring], "PART")
    ground.mechanism.ground = True
    j1 = bs.connect(bpy, pinion, ground, (0.09, 0.0, 0.0))
    j2 = bs.connect(bpy, ring, ground, (0.0, 0.0, 0.0))
    gear = bs.couple(bpy, [j2, j1] if ring_first else [j1, j2])
    gear.mechanism.mesh = "INTERNAL"
    assert bpy.ops.mechanism.measure_radii() == {"FINISHED"}
    s = gear.mechanism
    got = (s.radius_b, s.radius_a) if ring_first else (s.radius_a, s.radius_b)
    assert got == (pytest.approx(0.06, rel=F32), pytest.approx(0.15, rel=F32))
    j1.mechanism.motion_type, j1.mechanism.motion_expression = "EXPRESSION", bs.GEAR_DRIVE
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    th, _ = drive(TIMES)
    err = wrap(baked_turn(ring) - th * got[0] / got[1])
    assert np.abs(err).max() < ANGLE_TOL
