"""Posing by hand in real Blender beyond tests/test_addon_drag.py: a live drag whose start
pose the assembly moves (a motion at the frame, a joint left open) grabs the point under
the mouse on the parts as they then stand; a finished live drag keeps what it did in its
properties, so Blender's Adjust Last Operation and Repeat Last run it again."""
from __future__ import annotations

import math
import re
from types import SimpleNamespace

import numpy as np
import pytest

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


def take_over(bpy, arm, how: str) -> None:
    """Something other than its location and rotation placing the pendulum's arm: a Limit
    Rotation constraint (about y, +-0.1 rad), a driver on its rotation about y, or Rigid
    Body physics (an Active body the scene's simulation moves)."""
    if how == "constraint":
        c = arm.constraints.new("LIMIT_ROTATION")
        c.name, c.use_limit_y, c.min_y, c.max_y = "Hold", True, -0.1, 0.1
    elif how == "driver":
        arm.driver_add("rotation_euler", 1).driver.expression = "0.0"
    else:
        bs.select(bpy, [arm], arm)
        assert bpy.ops.rigidbody.object_add() == {"FINISHED"}
    bpy.context.view_layer.update()


@pytest.mark.parametrize("how, said", [
    ("constraint", r"part 'arm': its constraint 'Hold' \(Limit Rotation\) places it instead"),
    ("driver", r"part 'arm': a driver drives rotation_euler, which places it instead"),
    ("rigid body", r"part 'arm': its Rigid Body physics \(Active\) places it instead")],
    ids=["constraint", "driver", "rigid body"])
@pytest.mark.parametrize("op", ["angle", "drag", "assemble"])
def test_posing_a_part_something_else_places_is_refused_by_name(blender, how, said,
                                                                op) -> None:
    """The pendulum's arm placed by a constraint, a driver or Rigid Body physics: posing it
    (its pin's Angle set to 40 degrees, a drag down, Assemble with the pin driven to 40
    degrees) writes its location and rotation, which these override, so the arm showed
    where they hold it (the Angle read back 5.7 degrees under the constraint, 0 under the
    driver) without a word.  Refused naming the part and what places it, the scene as it
    was (Bake refuses the same)."""
    bpy = blender
    sc = bs.pendulum(bpy)
    take_over(bpy, sc["arm"], how)
    pin = sc["pin"].mechanism
    if op == "assemble":
        pin.motion_type, pin.motion_expression = "EXPRESSION", str(math.radians(40.0))
    _refused_unchanged(bpy, op, pin, math.radians(40.0), said)


def _refused_unchanged(bpy, op: str, pin, angle: float, said: str) -> None:
    """Posing the pendulum's arm by ``op`` (the pin's Angle set to ``angle``, a drag of the
    arm's tip down, or Assemble) is refused as ``said`` says, the scene as it was."""
    before = bs.snapshot(bpy)
    if op == "angle":
        pin.wiggle_angle = angle
        report = bpy.context.scene.mechanism.report
        assert re.match("wiggle: " + said, report), report
        bpy.context.scene.mechanism.report = ""
    else:
        with pytest.raises(RuntimeError, match=said):
            if op == "drag":
                bpy.ops.mechanism.drag(part="arm", point=(1.0, 0.0, 0.0),
                                       target=(0.0, 0.0, -2.0))
            else:
                bpy.ops.mechanism.assemble()
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_refused_pose_leaves_the_next_field_change_as_the_scene_stands(blender) -> None:
    """Two cubes in an Empty scaled (1, 1, 2), each pinned to the ground: the spinner about
    world z (the stretched axis: it turns rigidly), the flipper about world x (it would
    shear).  The spinner's Angle set to 30 degrees poses it; the flipper's to 20 is refused
    by name (the flipper stays at 0).  The spinner's Angle then set to 40 degrees poses it,
    the flipper still at 0: the sliders' kept posing had been left at the refused pose, so
    every later change was refused naming the flipper, until the scene changed."""
    bpy = blender
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -1.0))
    stretcher = bs.empty(bpy, "stretcher")
    stretcher.scale = (1.0, 1.0, 2.0)
    cubes = []
    for name, x in (("spinner", 0.5), ("flipper", -0.5)):
        cube = bs.add_box(bpy, name, (0.2, 0.2, 0.1), (x, 0.0, 0.0))
        cube.parent = stretcher                  # 0.2 x 0.2 x 0.2 in the world
        cubes.append(cube)
    bs.tag(bpy, [ground, *cubes], "PART")
    ground.mechanism.ground = True
    spin = bs.connect(bpy, cubes[0], ground, (0.5, 0.0, 0.0), "REVOLUTE", "Z").mechanism
    flip = bs.connect(bpy, cubes[1], ground, (-0.5, 0.0, 0.0), "REVOLUTE", "X").mechanism
    st = bpy.context.scene.mechanism
    spin.wiggle_angle = math.radians(30.0)
    assert st.report == ""
    flip.wiggle_angle = math.radians(20.0)
    assert re.match(r"wiggle: part 'flipper': its location and rotation cannot put it where",
                    st.report)
    spin.wiggle_angle = math.radians(40.0)
    assert st.report == ""
    bpy.context.view_layer.update()
    # float32 matrices: angles to 1e-5 degrees
    assert math.degrees(spin.wiggle_angle) == pytest.approx(40.0, abs=1e-5)
    assert math.degrees(flip.wiggle_angle) == pytest.approx(0.0, abs=1e-5)


def test_the_panels_drag_button_runs_drag_in_the_viewport(blender) -> None:
    """The Drag button sits in the viewport's sidebar, a region with no 3D view of its own
    (no RegionView3D: its mouse positions are the sidebar's): invoked there, Drag refuses
    ("Drag works in the 3D viewport"), so the button, drawn to run where it is, never
    dragged.  The panel runs it in the viewport's main region (INVOKE_REGION_WIN, as
    Blender's sidebar buttons for viewport tools do), where Ctrl Alt D runs it."""
    bpy = blender
    sc = bs.pendulum(bpy)
    bs.select(bpy, [sc["arm"]], sc["arm"])
    layout = bs.panel_layout(bpy, "VIEW3D_PT_mechanism")
    assert ("operator", "mechanism.drag") in layout.items
    assert layout.contexts["mechanism.drag"] == "INVOKE_REGION_WIN"
    win = bpy.context.window_manager.windows[0]
    area = next(a for a in win.screen.areas if a.type == "VIEW_3D")
    sidebar = next(r for r in area.regions if r.type == "UI")
    cls = bpy.types.Operator.bl_rna_get_subclass_py("MECHANISM_OT_drag")
    reports: list[str] = []
    op = SimpleNamespace(report=lambda kind, text: reports.append(text))
    with bpy.context.temp_override(window=win, area=area, region=sidebar):
        assert bpy.context.region_data is None
        assert cls.invoke(op, bpy.context, event("LEFTMOUSE")) == {"CANCELLED"}
    assert reports == ["Drag works in the 3D viewport"]


@pytest.mark.parametrize("op", ["angle", "drag", "assemble"])
def test_posing_a_part_linked_from_a_library_is_refused_by_name(blender, tmp_path,
                                                                op) -> None:
    """The pendulum linked from another file (File > Link): Python may write a linked
    object's location, so the arm was posed (its pin's Angle at 0.5 rad, a drag, Assemble
    with the pin driven to 0.5 rad), but the saved file links it again as the library has
    it: the pose was gone once saved and opened, without a word.  Refused naming the part
    and Make Local, the scene as it was (a library override keeps its placement, and is
    posed)."""
    from test_addon_library import PIN, linked_pendulum
    bpy = blender
    linked_pendulum(bpy, str(tmp_path))
    scene = bpy.context.scene
    said = (r"part 'arm' is linked from library 'lib.blend', so a pose written to it is lost "
            r"when the file is saved: make it local \(Object > Relations > Make Local\)")
    if op == "assemble":
        bs.select(bpy, [scene.objects[PIN]], scene.objects[PIN])
        assert bpy.ops.object.make_local(type="SELECT_OBJECT") == {"FINISHED"}
        pin = scene.objects[PIN].mechanism
        pin.motion_type, pin.motion_expression = "EXPRESSION", "0.5"
    _refused_unchanged(bpy, op, scene.objects[PIN].mechanism, 0.5, said)


def test_an_arms_angle_fields_set_one_joint_each(blender) -> None:
    """The double pendulum without its motion (two free pins in a chain): the elbow's Angle
    set to 90 degrees, then the shoulder's to -30: each field reads what was typed into it
    (float32 matrices: 1e-4 degrees).  The elbow's used to turn the shoulder back 27.7
    degrees, and setting the shoulder then turned the elbow off its 90."""
    bpy = blender
    sc = double_pendulum(bpy)
    sc["pin"].mechanism.motion_type = "NONE"
    elbow, shoulder = sc["pin2"].mechanism, sc["pin"].mechanism
    elbow.wiggle_angle = math.radians(90.0)
    assert math.degrees(shoulder.wiggle_angle) == pytest.approx(0.0, abs=1e-4)
    shoulder.wiggle_angle = math.radians(-30.0)
    assert bpy.context.scene.mechanism.report == ""
    assert math.degrees(shoulder.wiggle_angle) == pytest.approx(-30.0, abs=1e-4)
    assert math.degrees(elbow.wiggle_angle) == pytest.approx(90.0, abs=1e-4)


def test_range_of_motion_counts_a_followed_marker_as_a_motion(blender) -> None:
    """The XY table (two freedoms) whose tool follows a keyed Empty along x only: one
    freedom is left, the slide along y, so Range of Motion picks it (the carriage is held
    by the follow) and its Position moves the slide.  Only the joints' motions were
    subtracted from the freedoms, so it said "this one has 2 (motions counted)" and
    refused."""
    import follow_scenes as fs
    bpy = blender
    d = fs.cross_slide(bpy)
    target = fs.keyed_empty(bpy, "target", [(1, (0.0, 0.0, 0.0)), (25, (0.1, 0.0, 0.0))])
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, False, False)
    assert bpy.ops.mechanism.find_range() == {"FINISHED"}
    st = bpy.context.scene.mechanism
    assert (st.wiggle_joint, st.wiggle_coordinate) == (d["y"].name, "slide")
    assert st.wiggle_lower < 0.0 < st.wiggle_upper


def test_assemble_brings_a_joint_past_its_stop_to_the_stop(blender) -> None:
    """The pendulum drawn at 0 degrees with its pin's stops at 10 and 20 degrees: Check
    names the start outside the limit (a run refuses it); Assemble brings the arm to its
    lower stop, 10 degrees, the least move that a run can start from, as Drag and the
    Angle field start (float32 matrices: 1e-4 degrees), and says which stop holds it;
    Check then names no problem.  Assemble closed the joints only and left the arm at 0."""
    bpy = blender
    sc = bs.pendulum(bpy)
    s = sc["pin"].mechanism
    s.use_limit_lower, s.limit_lower_angle = True, math.radians(10.0)
    s.use_limit_upper, s.limit_upper_angle = True, math.radians(20.0)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "starts outside a limit" in bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.assemble() == {"FINISHED"}
    bpy.context.view_layer.update()
    assert math.degrees(s.wiggle_angle) == pytest.approx(10.0, abs=1e-4)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "problem" not in bpy.context.scene.mechanism.report


@pytest.mark.parametrize("op", ["angle", "assemble"])
def test_a_part_whose_scale_a_driver_sets_is_posed(blender, op) -> None:
    """The pendulum's arm with a driver on its scale across the pin's plane (z, 0.1, as
    drawn): posing writes the location and rotation, which a scale driver leaves alone
    (Bake takes it the same way), yet the Angle field and Assemble refused it as "a driver
    drives scale, which places it instead of the pose".  Both pose it: the pin's Angle
    reads back the 40 degrees set, and the arm is turned 40 degrees down or up from level
    (float32 matrices: 1e-4 degrees)."""
    bpy = blender
    sc = bs.pendulum(bpy)
    sc["arm"].driver_add("scale", 2).driver.expression = "0.1"
    bpy.context.view_layer.update()
    pin = sc["pin"].mechanism
    if op == "assemble":
        pin.motion_type, pin.motion_expression = "EXPRESSION", str(math.radians(40.0))
        assert bpy.ops.mechanism.assemble() == {"FINISHED"}
    else:
        pin.wiggle_angle = math.radians(40.0)
    bpy.context.view_layer.update()
    assert bpy.context.scene.mechanism.report == "" or op == "assemble"
    assert math.degrees(pin.wiggle_angle) == pytest.approx(40.0, abs=1e-4)
    x = np.array(sc["arm"].matrix_world)[:3, 0]
    assert math.degrees(math.atan2(abs(x[2]), x[0])) == pytest.approx(40.0, abs=1e-4)
