"""Add Contact on a part without a mesh, in real Blender (bpy): a contact's shapes (every
kind, Floor included) are taken from its parts' meshes, so one with an Empty part would be
refused by every Check and Bake; Add Contact refuses it at once, naming the part."""
from __future__ import annotations

import pytest

import blender_scenes as bs


@pytest.mark.parametrize("active", [True, False])
def test_add_contact_on_an_empty_part_is_refused_naming_it(blender, active: bool) -> None:
    """A box part and an Empty part selected (the Empty active, Part A, or not): Add
    Contact reports an error naming the Empty and why, and adds nothing (the scene as
    before), as Blender's operators refuse what cannot work rather than make it."""
    bpy = blender
    box = bs.add_box(bpy, "box", (0.1, 0.1, 0.1), (0.0, 0.0, 0.0))
    holder = bs.empty(bpy, "holder")
    holder.location = (0.3, 0.0, 0.0)
    bs.tag(bpy, [box, holder], "PART")
    bs.select(bpy, (box, holder), holder if active else box)
    before = bs.snapshot(bpy)
    objects = set(bpy.data.objects)
    with pytest.raises(RuntimeError, match="part 'holder' is an empty object, which has no mesh "
                                           "to take a contact shape from"):
        bpy.ops.mechanism.add_contact()
    assert set(bpy.data.objects) == objects
    assert not bs.differences(before, bs.snapshot(bpy))
