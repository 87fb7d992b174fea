"""Posing by hand in real Blender beyond tests/test_addon_drag.py: a live drag whose start
pose the assembly moves (a motion at the frame, a joint left open) grabs the point under
the mouse on the parts as they then stand; a finished live drag keeps what it did in its
properties, so Blender's Adjust Last Operation and Repeat Last run it again."""
from __future__ import annotations

import math

import numpy as np

import blender_scenes as bs
from test_addon_drag import event, matrix, modal_drag


def double_pendulum(bpy) -> dict:
    """The pendulum (tests/blender_scenes.py) with a second 1 m arm pinned about world y at
    the first arm's tip, its centre at (1.5, 0, 0); the first pin held at -0.5 rad by an
    expression, so the start pose the posing assembles is not the pose drawn."""
    sc = bs.pendulum(bpy)
    arm2 = bs.add_box(bpy, "arm2", (1.0, 0.1, 0.1), (1.5, 0.0, 0.0))
    bs.tag(bpy, [arm2], "PART")
    sc["pin2"] = bs.connect(bpy, arm2, sc["arm"], (1.0, 0.0, 0.0), "REVOLUTE", "Y")
    s = sc["pin"].mechanism
    s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", "-0.5"
    sc["arm2"] = arm2
    return sc


def test_live_drag_grabs_the_point_under_the_mouse_on_the_assembled_parts(blender) -> None:
    """The double pendulum drawn straight, its first pin's motion at -0.5 rad: Drag first
    assembles the start pose (the first arm turned down, the second carried), then grabs the
    second arm under the mouse there.  A first mouse move at the pixel pressed pulls the
    grabbed point to where it already is, so nothing moves (to 1e-6 BU, float32 matrices);
    the grabbed point in the arm's frame was taken from the arm as drawn before the
    assembly moved it, so the second arm jumped (0.3 m) to put another point under the
    mouse."""
    bpy = blender
    sc = double_pendulum(bpy)
    with modal_drag(bpy) as md:
        op = md.op()
        assert md.cls.begin(op, md.ctx, event("LEFTMOUSE", md.grab)) is True
        md.ctx.view_layer.update()
        centre = np.array(sc["arm2"].matrix_world.translation)      # assembled start pose
        assert md.cls.modal(op, md.ctx, event("ESC")) == {"CANCELLED"}
    with modal_drag(bpy, grab_at=tuple(centre), target_at=tuple(centre)) as md:
        op = md.op()
        assert md.cls.begin(op, md.ctx, event("LEFTMOUSE", md.grab)) is True
        assert op._part == "arm2"
        md.ctx.view_layer.update()
        start = matrix(sc["arm2"])
        assert md.cls.modal(op, md.ctx, event("MOUSEMOVE", md.grab, "NOTHING")) == \
            {"RUNNING_MODAL"}
        md.ctx.view_layer.update()
        np.testing.assert_allclose(matrix(sc["arm2"]), start, atol=1e-6)
    assert md.reports == []


def test_a_finished_live_drag_keeps_what_it_did_for_adjust_and_repeat(blender) -> None:
    """Blender's Adjust Last Operation and Repeat Last run a finished operator's ``execute``
    again with its properties (after undoing it, for Adjust).  A live drag of the double
    pendulum's second arm (the first held by its motion: one freedom, so the pose a
    target gives is unique), confirmed with a click, keeps its part, grabbed point and last
    target there: run from the pose before the drag with them, the scripted drag puts the
    arm where the live one left it (1e-5 BU: the live drag stops within its time budget,
    the scripted one converges).  Its fields were left empty: Adjust refused '' as no
    moving part, the drag undone and lost."""
    bpy = blender
    sc = double_pendulum(bpy)
    arm, arm2 = sc["arm"], sc["arm2"]
    bpy.context.view_layer.update()
    before = {ob.name: (tuple(ob.location), tuple(ob.rotation_euler)) for ob in (arm, arm2)}
    with modal_drag(bpy, grab_at=(1.5, 0.0, 0.0), target_at=(1.2, 0.0, -0.9)) as md:
        op = md.op()
        assert md.cls.begin(op, md.ctx, event("LEFTMOUSE", md.grab)) is True
        assert op._part == "arm2"
        for k in range(1, 11):
            xy = md.grab + (md.target - md.grab) * (k / 10)
            assert md.cls.modal(op, md.ctx, event("MOUSEMOVE", xy, "NOTHING")) == \
                {"RUNNING_MODAL"}
        assert md.cls.modal(op, md.ctx, event("LEFTMOUSE", xy, "RELEASE")) == {"FINISHED"}
    bpy.context.view_layer.update()
    live = matrix(arm2)
    assert not np.allclose(live[:3, 3], (1.5, 0.0, 0.0), atol=0.05)     # it moved
    assert op.part == "arm2"
    for ob in (arm, arm2):
        ob.location, ob.rotation_euler = before[ob.name]
    bpy.context.view_layer.update()
    assert bpy.ops.mechanism.drag(part=op.part, point=op.point, target=op.target) == \
        {"FINISHED"}
    bpy.context.view_layer.update()
    np.testing.assert_allclose(matrix(arm2), live, atol=1e-5)
    assert math.isfinite(float(np.sum(op.point)))
