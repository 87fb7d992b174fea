"""A part whose mesh is several closed shells, in real Blender: the pendulum's 10 kg arm
(1 x 0.1 x 0.1 m of water, centred on its origin) with a Mirror modifier without Merge
weighs 10 kg, not 20, and Check and Bake say the copy left out; joined with a second box
that overlaps it, Check and Bake name the part and the share of its volume counted twice,
with the remedy."""
from __future__ import annotations

import pytest

import blender_scenes as bs


def report(bpy) -> str:
    return bpy.context.scene.mechanism.report


@pytest.mark.parametrize("operator", ["check", "bake"])
def test_a_mirrored_arm_weighs_one_arm_and_says_the_copy(blender, operator: str) -> None:
    """Mirror across the arm's own x (merge off): the copy lies on the arm (its 8 vertices
    at the same places), so the arm is 1000 * 1 * 0.1 * 0.1 = 10 kg (rounding: float32
    vertices); the report names the part, the copy and the mass used."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    mirror = arm.modifiers.new("Mirror", "MIRROR")
    mirror.use_mirror_merge = False
    assert getattr(bpy.ops.mechanism, operator)() == {"FINISHED"}
    assert arm.mechanism.computed_mass == pytest.approx(10.0, rel=1e-6)
    said = ("part 'arm': 1 shell lying on another, the same vertices (a copy not moved, or "
            "a Mirror modifier without Merge): left out; mass used 10 kg")
    assert said in report(bpy) and "close the mesh" not in report(bpy), report(bpy)
    assert arm.mechanism.mesh_warning.startswith("1 shell lying on another")


@pytest.mark.parametrize("operator", ["check", "bake"])
def test_an_arm_joined_with_an_overlapping_box_says_the_share_counted_twice(
        blender, operator: str) -> None:
    """A second 0.5 x 0.1 x 0.1 box joined into the arm's mesh, moved 0.25 m along its
    local x from the arm's end at +0.5: the two share 0.25 x 0.1 x 0.1 m^3, a sixth of the
    summed 0.015 m^3 (16.7%), half of the small box; the mass used is the sum (15 kg)."""
    import bmesh
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    bm = bmesh.new()
    bm.from_mesh(arm.data)
    made = bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(0.5, 1.0, 1.0), verts=made["verts"])
    bmesh.ops.translate(bm, vec=(0.5, 0.0, 0.0), verts=made["verts"])
    bm.to_mesh(arm.data)
    bm.free()
    assert getattr(bpy.ops.mechanism, operator)() == {"FINISHED"}
    assert arm.mechanism.computed_mass == pytest.approx(15.0, rel=1e-6)
    said = ("part 'arm': 1 pair of shells overlapping: about 16.7% of the volume is inside "
            "two shells and counted twice (the shell of vertex 8 has 50% of its volume "
            "inside that of vertex 0): join them (Boolean modifier, Union), or type the mass "
            "in; mass used 15 kg")
    assert said in report(bpy), report(bpy)
