"""Curve joints' curves that something moves or reshapes over the frames, in real Blender
(bpy): the Scotch yoke's slot (blender_scenes.py) keyed, constrained or driven on its part,
hung from a keyed untagged Empty, or reshaped by a keyed shape key, a modifier keyed on or
its points keyed.  The joint follows the slot as the scene is read at the first frame, so
each is refused by name, as a moving marker is, the scene unchanged."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs
from refusals import check_names_and_bake_refuses
from test_addon_curves import SLOT, bend_slot, hook_slot


def _key_slot(bpy, d, ob) -> None:
    """``ob`` keyed 2 cm along x over the frames (the slot drawn there at the last)."""
    ob.keyframe_insert("location", frame=bs.FRAME_START)
    ob.location.x += 0.02
    ob.keyframe_insert("location", frame=bs.FRAME_END)
    bpy.context.scene.frame_set(bs.FRAME_START)


def _holder(bpy, d):
    """An untagged Empty between the slot and the yoke; the Empty."""
    holder = bs.empty(bpy, "slot holder")
    bs.parent_to(bpy, holder, d["yoke"])
    bs.parent_to(bpy, d["slot"], holder)
    return holder


def _bend_keyed(bpy, d) -> None:
    """The slot's shape key Bend keyed from 0 (the spline as drawn at the first frame) to 1."""
    bend_slot(bpy, d, 0.0)
    bend = d["slot"].data.shape_keys.key_blocks["Bend"]
    bend.keyframe_insert("value", frame=bs.FRAME_START)
    bend.value = 1.0
    bend.keyframe_insert("value", frame=bs.FRAME_END)
    bpy.context.scene.frame_set(bs.FRAME_START)


def _hook_keyed(bpy, d) -> None:
    """The slot's Hook modifier off (viewports and renders) at the first frame, keyed on in
    viewports at frame 13."""
    hook_slot(bpy, d)
    hook = d["slot"].modifiers["Hook"]
    hook.show_viewport = hook.show_render = False
    hook.keyframe_insert("show_viewport", frame=bs.FRAME_START)
    hook.show_viewport = True
    hook.keyframe_insert("show_viewport", frame=13)
    bpy.context.scene.frame_set(bs.FRAME_START)


def _points_keyed(bpy, d) -> None:
    """The slot's first Bezier point keyed 2 cm along x over the frames."""
    point = d["slot"].data.splines[0].bezier_points[0]
    point.keyframe_insert("co", frame=bs.FRAME_START)
    point.co.x += 0.02
    point.keyframe_insert("co", frame=bs.FRAME_END)
    bpy.context.scene.frame_set(bs.FRAME_START)


def _limit_slot(bpy, d) -> None:
    c = d["slot"].constraints.new("LIMIT_LOCATION")     # the slot's origin (0, 0, 0) to x 0.06
    c.use_min_x, c.min_x = True, 0.06


# (what moves the slot, the pattern of what Bake and Check say: an action's name as the
# Blender version gives it)
ACT = "'[^']+'"
SAID = re.escape(SLOT) + " 'slot'"
MOVED = {
    "keyed": (lambda bpy, d: _key_slot(bpy, d, d["slot"]),
              f"{SAID}: its action {ACT} keys location, which moves it over the frames"),
    "constrained": (_limit_slot, SAID + re.escape(": its constraint 'Limit Location' (Limit "
                                                  "Location) moves it")),
    "driven": (lambda bpy, d: setattr(d["slot"].driver_add("location", 0).driver, "expression",
                                      "0.001*frame"),
               f"{SAID}: a driver drives location"),
    "hung from a keyed Empty": (lambda bpy, d: _key_slot(bpy, d, _holder(bpy, d)),
                                f"{SAID} hangs from 'slot holder': its action {ACT} keys "
                                "location, which moves it over the frames"),
    "a shape key keyed": (_bend_keyed, f"{SAID}: its shape keys' action {ACT} keys "
                          + re.escape('key_blocks["Bend"].value') + ", which reshapes it"),
    "a modifier keyed on": (_hook_keyed, f"{SAID}: its action {ACT} keys "
                            + re.escape('modifiers["Hook"].show_viewport') + ", which reshapes it"),
    "its points keyed": (_points_keyed, f"{SAID}: its curve data's action {ACT} keys "
                         + re.escape("splines[0].bezier_points[0].co") + ", which reshapes it"),
}


@pytest.mark.parametrize("case", MOVED)
def test_a_curve_that_moves_on_its_part_is_refused_by_name(blender, case: str) -> None:
    """The Scotch yoke's slot moved on its part by its own keys, a constraint or a driver,
    or keyed through an untagged Empty it hangs from, or reshaped over the frames (a shape
    key's value, a Hook switched on, its points keyed): the joint would follow the slot
    where the reader places it (its design placement and spline, constraints aside, at the
    first frame) while the viewport draws it elsewhere (a Limit Location 6 cm off, keys 2
    cm off by the last frame), as a marker's would.  Bake refuses it naming the joint, the
    curve and the cause, the scene unchanged; Check names it."""
    bpy = blender
    d = bs.scotch_yoke(bpy)
    move, said = MOVED[case]
    move(bpy, d)
    check_names_and_bake_refuses(bpy, said)


@pytest.mark.parametrize("axis", [1, 2])
def test_a_cam_profile_riding_its_parts_keyed_scale_is_refused_by_name(blender,
                                                                       axis: int) -> None:
    """The eccentric cam's disc keyed to stretch 30% along y: its markers lie on the disc's
    y = 0 line, so none rides the scale, but the profile (a circle of radius 5 cm about the
    disc's origin) is drawn stretched into an ellipse while the follower runs on the design
    circle.  Bake refuses it naming the part, the axis, the curve and its joint, the scene
    unchanged; Check names it.  Along z, across the flat profile, nothing rides it: the bake
    goes on."""
    bpy = blender
    d = bs.eccentric_cam(bpy, "roller")
    disc = d["disc"]
    disc.keyframe_insert("scale", frame=bs.FRAME_START)
    disc.scale[axis] = 1.3
    disc.keyframe_insert("scale", frame=bs.FRAME_END)
    bpy.context.scene.frame_set(bs.FRAME_START)
    if axis == 2:
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        return
    said = re.escape("part 'disc': its action ") + ACT + re.escape(
        " keys scale[1] to change over the frames, and curve 'profile' of joint 'cam' reaches "
        "off the part's origin along its y axis")
    check_names_and_bake_refuses(bpy, said)
