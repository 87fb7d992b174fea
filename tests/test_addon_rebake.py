"""Re-bakes in real Blender (scenes: blender_scenes.py): every bake starts from the design,
however often the scene is baked again and at whatever frame it stands; the scene's reading
is kept for the next bake while nothing it depends on changes (addon/scene_cache.py) and
made again when something does.  Keys are float32: keys compared exactly are the very
floats written, from one deterministic run of the same model."""
from __future__ import annotations

import blender_scenes as bs


def bake_keys(bpy) -> dict:
    """Object name -> every F-curve of its bake action (blender_scenes.action_keys)."""
    return {ob.name: bs.action_keys(ob.mechanism.bake_action)
            for ob in bpy.data.objects if ob.mechanism.bake_action is not None}


def test_rebakes_keep_the_design_a_dynamic_run_starts_from(blender) -> None:
    """A pendulum released from its design pose, baked and re-baked with the scene at a
    frame where the bake shows it swung away: every bake starts from the design (the part's
    saved matrix stays the one it was designed at), so the third bake's keys are the
    first's bit for bit."""
    bpy = blender
    d = bs.pendulum(bpy)
    d["arm"].rotation_euler = (0.0, 0.3, 0.0)            # released 0.3 rad from hanging level
    bpy.context.view_layer.update()
    design = [x for row in d["arm"].matrix_world for x in row]
    bpy.context.scene.frame_set(12)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = bake_keys(bpy)
    for _ in range(2):
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        assert list(d["arm"].mechanism.backup_matrix) == design
    assert bake_keys(bpy) == first
