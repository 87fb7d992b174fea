"""A part's mesh modifier on in renders only (or in viewports only), in real Blender (bpy):
the part's mass and contact shape are read from its mesh as the viewport evaluates it, so
the render would show another body than the one solved; Check and Bake name the part and
the modifier, the scene unchanged."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs


@pytest.mark.parametrize("op", ["bake", "check"])
@pytest.mark.parametrize("viewport, render", [(False, True), (True, False)])
def test_a_part_modifier_shown_in_one_of_viewport_or_render_is_named(
        blender, viewport: bool, render: bool, op: str) -> None:
    """The Scotch yoke's crank with an Array modifier (two copies: twice the mass drawn in
    one of viewport or render, once in the other): Check and Bake refuse it naming the
    part and the modifier, the scene as before."""
    bpy = blender
    d = bs.scotch_yoke(bpy)
    mod = d["crank"].modifiers.new("Array", "ARRAY")
    mod.show_viewport, mod.show_render = viewport, render
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape("part 'crank': its modifier 'Array' is on "
                                                      "in ")):
        getattr(bpy.ops.mechanism, op)()
    assert not bs.differences(before, bs.snapshot(bpy))
