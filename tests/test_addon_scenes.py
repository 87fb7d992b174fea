"""Two scenes sharing a mechanism's objects in real Blender (scenes: blender_scenes.py; the
second a Linked Copy of the first, New Scene > Linked Copy): a bake belongs to the objects,
so it plays in both, and the timeline markers of a bake live in the scene that made it."""
from __future__ import annotations

import blender_scenes as bs


def _impacts(scene) -> list[tuple[str, int]]:
    return [(m.name, m.frame) for m in scene.timeline_markers if m.name.startswith("impact")]


def test_a_bake_replaced_or_cleared_in_another_scene_takes_its_markers(blender) -> None:
    """The door (impacts at its stop) baked in scene A, then in scene B that links the same
    objects: B's bake replaces A's on the objects, so A's impact markers, which marked the
    bake now gone, go (they stayed, marking a bake no object carries); B's are there.
    Clear Bake in A clears the shared objects, and B's markers go with B's bake."""
    bpy = blender
    bs.door(bpy)
    first = bpy.context.scene
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert _impacts(first)
    bpy.ops.scene.new(type="LINK_COPY")
    second = bpy.context.scene
    assert second != first and len(second.objects) == len(first.objects)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert _impacts(second) and _impacts(first) == []
    bpy.context.window.scene = first
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not any(ob.mechanism.baked for ob in second.objects)
    assert _impacts(second) == []


def test_a_full_copy_s_bake_leaves_the_first_scene_s_markers(blender) -> None:
    """Scene B a Full Copy of the baked scene A (New Scene > Full Copy: its own copies of the
    objects, their bake and A's markers copied with them): Clear Bake, or a new Bake, in B
    touches none of A's objects, so A keeps its bake and its impact markers (the copies
    named A as the scene of their bake, and B's Clear Bake removed A's five markers while
    A's door stayed baked)."""
    bpy = blender
    bs.door(bpy)
    first = bpy.context.scene
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    marks = _impacts(first)
    assert marks
    bpy.ops.scene.new(type="FULL_COPY")
    second = bpy.context.scene
    assert not set(second.objects) & set(first.objects)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert _impacts(first) == marks        # B's at the same frames, on B's joint's copy
    assert _impacts(second) == [(name.replace("door-post", "door-post.001"), frame)
                                for name, frame in marks]
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert _impacts(first) == marks and _impacts(second) == []
    assert all(ob.mechanism.baked for ob in first.objects if ob.name in ("door",
                                                                          "Revolute door-post"))
