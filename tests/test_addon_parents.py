"""Markers parented to a part's vertices (Ctrl P > Vertex, Vertex (Triangle)) in real Blender:
read where the viewport shows them, as designed (a baked part's keys do not move them), and
a part parented by a relation its keys cannot follow refused by name.  Scenes:
blender_scenes.py; tolerances as in test_addon_bake.py (float32)."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import blender_scenes as bs
from refusals import check_names_and_bake_refuses
from test_addon_bake import F32, aligned, close


def vertex_parent(bpy, child, part, how: str) -> None:
    """Parent ``child`` to ``part`` by Ctrl P > ``how`` (VERTEX or VERTEX_TRI: the nearest
    vertices), keeping it where it is."""
    bs.select(bpy, (child, part), part)
    assert bpy.ops.object.parent_set(type=how, keep_transform=True) == {"FINISHED"}
    bpy.context.view_layer.update()


@pytest.mark.parametrize("how, parent_type", [("VERTEX", "VERTEX"), ("VERTEX_TRI", "VERTEX_3")])
def test_vertex_parented_marker_bakes_as_object_parented(blender, how, parent_type) -> None:
    """The pendulum's arm marker parented to the arm's nearest vertices, kept in place: Check
    finds the pin closed at the start and Bake keys the arm exactly as with the marker
    parented to the arm's object; baked again from a frame where the bake has turned the arm
    (a Vertex parent moves its child but does not turn it), the same keys."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm, marker = d["arm"], d["pin"].mechanism.marker_i
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, loc, quat = bs.baked_pose(arm)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    world = np.array(marker.matrix_world)
    vertex_parent(bpy, marker, arm, how)
    assert marker.parent == arm and marker.parent_type == parent_type
    np.testing.assert_allclose(np.array(marker.matrix_world), world, atol=F32)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "open at the start" not in bpy.context.scene.mechanism.report
    for frame in (1, 13):
        bpy.context.scene.frame_set(frame)
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        _, got_loc, got_quat = bs.baked_pose(arm)
        close(got_loc, loc, what=f"arm location, baked at frame {frame}")
        close(got_quat, aligned(quat, got_quat), what=f"arm quaternion, baked at frame {frame}")


def test_part_parented_to_vertices_is_named(blender) -> None:
    """A part parented to another part's vertex is keyed in its parent's space by a bake,
    which the Vertex relation does not follow: Check and Bake name the part and the parent."""
    bpy = blender
    d = bs.pendulum(bpy)
    vertex_parent(bpy, d["arm"], d["ground"], "VERTEX")
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        with pytest.raises(RuntimeError, match=r"part 'arm' is parented to 'ground' by Vertex"):
            op()


def keyed_rig(bpy) -> tuple:
    """(rig, ground, arm): an Empty "rig" keyed to turn 90 degrees about x from frame 1 to
    25, and blender_scenes.pendulum's ground and arm beside it, at frame 1."""
    import math
    bs.set_range(bpy)
    rig = bs.empty(bpy, "rig")
    for frame, angle in ((bs.FRAME_START, 0.0), (bs.FRAME_END, math.pi / 2)):
        rig.rotation_euler = (angle, 0.0, 0.0)
        rig.keyframe_insert("rotation_euler", frame=frame)
    bpy.context.scene.frame_set(bs.FRAME_START)
    ground, arm = bs.ground_and_arm(bpy)
    bpy.context.view_layer.update()
    return rig, ground, arm


def carried_pendulum(bpy):
    """The pendulum (blender_scenes.pendulum's ground and arm, pinned about world y) parented
    to an Empty "rig" keyed to turn 90 degrees about x from frame 1 to 25: at frame 25 the
    pin's axis is along world z, along gravity."""
    rig, ground, arm = keyed_rig(bpy)
    for ob in (ground, arm):
        ob.parent = rig
        ob.matrix_parent_inverse = rig.matrix_world.inverted()
    bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    bpy.context.scene.mechanism.tolerance = 1e-9
    return rig, arm


def test_a_carried_mechanism_bakes_as_at_the_first_frame_whatever_the_frame_shown(blender) -> None:
    """A pendulum carried by a turning rig, baked with the scene at its last frame (the rig
    turned a quarter turn, the pin along gravity): it is read, solved and keyed in the rig's
    space as the rig stands at the first frame (the bake's t = 0), so its keys are those of
    the same pendulum alone, unparented (F32), which swings 1 m across; and playing it,
    the arm is the rig's turn of that swing.  Read at the frame shown, the pendulum hung
    still in the rig.  The scene is left at the frame it showed."""
    bpy = blender
    from mathutils import Matrix
    bs.pendulum(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    alone = bs.baked_pose(bpy.context.scene.objects["arm"])[1]
    assert np.ptp(alone[:, 0]) > 0.9                      # it swings
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    rig, arm = carried_pendulum(bpy)
    scene = bpy.context.scene
    scene.frame_set(bs.FRAME_END)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert scene.frame_current == bs.FRAME_END
    close(bs.baked_pose(arm)[1], alone, what="the arm's keys in the rig's space")
    for frame in (7, bs.FRAME_END):
        scene.frame_set(frame)
        want = Matrix(np.array(rig.matrix_world).tolist()) @ Matrix.Translation(alone[frame - 1])
        close(np.array(arm.matrix_world.translation), np.array(want.translation),
              what=f"the arm at frame {frame}")


def test_a_carried_mechanisms_modes_are_those_it_is_baked_with(blender) -> None:
    """Find Modes on the carried pendulum with the scene at its last frame (the rig turned
    a quarter turn, the pin along gravity): the mechanism is read in the rig's space as at
    the first frame, as Bake reads it, so its one mode is the pendulum's, f = sqrt(g (L/2)
    / (L^2 (1 + 0.01) / 12 + (L/2)^2)) / 2 pi for the 1 x 0.1 x 0.1 m arm (rel 1e-6:
    float32 geometry); read at the frame shown, the pin along gravity left it free (0 Hz)."""
    import math
    bpy = blender
    carried_pendulum(bpy)
    scene = bpy.context.scene
    scene.frame_set(bs.FRAME_END)
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    assert scene.frame_current == bs.FRAME_END
    want = math.sqrt(9.81 * 0.5 / (1.01 / 12 + 0.25)) / (2 * math.pi)
    assert len(scene.mechanism.modes) == 1
    assert scene.mechanism.modes[0].frequency == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("stretch, fits", [((2.0, 1.0, 1.0), False), ((2.0, 2.0, 1.0), True)])
def test_a_part_turning_in_an_unequally_scaled_parent_is_named(blender, extension, stretch,
                                                                fits) -> None:
    """A cube (turned 45 deg about z) parented to an Empty scaled ``stretch``, driven to turn
    about world z on a revolute joint.  Scaled (2, 1, 1), the parent shears the cube as it
    turns inside it (world = P R(q) S, not a rigid turn of the design): no key can put it at
    the solver's pose, so Bake refuses, naming the part, its parent and the first frame
    (t = 1/24 s: 0.042 rad, the corners 2 mm off), and changes nothing, as Assemble does
    when the motion holds it turned; scaled (2, 2, 1) about the turning axis, the cube turns
    rigidly and bakes at the solver's pose (F32)."""
    bpy = blender
    from mathutils import Matrix
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -2.0))
    stretcher = bs.empty(bpy, "stretcher")
    stretcher.scale = stretch
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    cube = bpy.context.active_object
    cube.name = "cube"
    cube.parent = stretcher
    cube.matrix_basis = Matrix.Rotation(np.pi / 4, 4, "Z")
    bs.tag(bpy, [ground, cube], "PART")
    ground.mechanism.ground = True
    pin = bs.connect(bpy, cube, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Z")
    pin.mechanism.motion_type, pin.mechanism.motion_expression = "EXPRESSION", "1.0*t"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    if not fits:
        before = bs.snapshot(bpy)
        with pytest.raises(RuntimeError, match=r"part 'cube': its keys cannot put it where the "
                           r"solver has it at frame 2 .*its parent 'stretcher'"):
            bpy.ops.mechanism.bake()
        assert not bs.differences(before, bs.snapshot(bpy))
        pin.mechanism.motion_expression = "0.5"          # Assemble turns it by 0.5 rad
        before = bs.snapshot(bpy)
        with pytest.raises(RuntimeError, match=r"part 'cube': its location and rotation cannot "
                           r"put it where the solver has it at the pose .*'stretcher'"):
            bpy.ops.mechanism.assemble()
        assert not bs.differences(before, bs.snapshot(bpy))
        return
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    result = sm.mech.solve(times=sm.timeline.times, analysis="kinematic")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.scene.frame_set(bs.FRAME_END)
    want = extension.addon.io.part_frames.pose_matrices(
        result.position("cube")[-1], result.orientation("cube")[-1],
        sm.part_frames["cube"].stretch, sm.scale)
    np.testing.assert_allclose(np.array(cube.matrix_world), want, rtol=0, atol=F32)


@pytest.mark.parametrize("how", ["assemble", "angle", "drag"])
def test_a_part_turned_a_quarter_turn_in_an_unequally_scaled_parent_is_named(blender,
                                                                             how) -> None:
    """A unit cube, square to its parent, in an Empty scaled (2, 1, 1) (2 x 1 x 1 in the
    world), on a revolute joint about world z, posed a quarter turn: by a motion of pi/2 and
    Assemble, by its Angle set to 90 degrees, or dragged from (1, 0, 0) to (0, 1, 0).  The
    solver's cube is then 1 x 2; the cube's location and rotation in the parent, its scale
    kept, give 2 x 1 again (its corners (+-0.5, +-1) put at (+-1, +-0.5): 0.707 m off; its
    markers ride the stretch off their joint): refused as at any other angle, naming the
    part and its parent, the scene as it was.  A quarter turn shears nothing (only the scale it needs differs from the scale
    channel), so it was placed stretched without a word."""
    bpy = blender
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -2.0))
    stretcher = bs.empty(bpy, "stretcher")
    stretcher.scale = (2.0, 1.0, 1.0)
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    cube = bpy.context.active_object
    cube.name = "cube"
    cube.parent = stretcher
    bs.tag(bpy, [ground, cube], "PART")
    ground.mechanism.ground = True
    pin = bs.connect(bpy, cube, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Z")
    said = (r"part 'cube': its location and rotation cannot put it where the solver has it "
            r"at the pose \(its corners 0.707 m off\): its parent 'stretcher'")
    if how == "assemble":
        pin.mechanism.motion_type, pin.mechanism.motion_expression = "EXPRESSION", "pi/2"
    before = bs.snapshot(bpy)
    if how == "assemble":
        with pytest.raises(RuntimeError, match=said):
            bpy.ops.mechanism.assemble()
    elif how == "drag":
        with pytest.raises(RuntimeError, match=said):
            bpy.ops.mechanism.drag(part="cube", point=(1.0, 0.0, 0.0), target=(0.0, 1.0, 0.0))
    else:
        pin.mechanism.wiggle_angle = math.pi / 2
        assert re.match("wiggle: " + said, bpy.context.scene.mechanism.report)
        bpy.context.scene.mechanism.report = ""
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_carried_mechanism_moved_since_its_bake_bakes_where_it_now_stands(blender) -> None:
    """The slider-crank carried by a still Empty "rig" (its block and parts parented to it),
    baked, then the rig moved 2 m along y and turned 90 degrees about z (the machine put
    elsewhere): the block, read as designed, went with it, but the baked parts were read
    at the world matrices saved before the first bake, left behind, so the joints to the
    block were open by 2 m (a note, and a run starting by pulling the parts across).  The
    parts now move with their parent: no note, the piston keyed along the closed form in
    the rig's space, shown at the rig's turn of it, and Clear Bake puts it back in the rig
    (F32, float32 matrices)."""
    import math
    bpy = blender
    d = bs.slider_crank(bpy)
    scene = bpy.context.scene
    rig = bs.empty(bpy, "rig")
    for name in ("block", "crank", "rod", "piston"):
        scene.objects[name].parent = rig
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    rig.location, rig.rotation_euler = (0.0, 2.0, 0.0), (0.0, 0.0, math.pi / 2)
    bpy.context.view_layer.update()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert scene.mechanism.report == ""                  # no joint open at the start
    theta = 2 * np.pi * np.arange(25) / 24.0             # the crank's 2*pi*t, frames 1-25
    x = 0.1 * np.cos(theta) + np.sqrt(0.3**2 - (0.1 * np.sin(theta)) ** 2)
    _, loc, _ = bs.baked_pose(d["piston"])
    close(loc, np.stack([x, 0 * x, 0 * x], axis=1), what="the piston's keys in the rig")
    for frame in (1, 7):
        scene.frame_set(frame)
        close(np.array(d["piston"].matrix_world.translation), (0.0, 2.0 + x[frame - 1], 0.0),
              what=f"the piston at frame {frame}, turned with the rig")
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    bpy.context.view_layer.update()
    close(np.array(d["piston"].matrix_world.translation), (0.0, 2.4, 0.0),
          what="the piston put back in the rig")


@pytest.mark.parametrize("carried", ["arm", "ground"])
def test_a_part_carried_apart_from_the_part_it_is_joined_to_is_named(blender, carried) -> None:
    """The pendulum with only one of its two parts parented to the turning rig of
    ``carried_pendulum``: the bake keys the arm in the rig's space as at the first frame,
    so a rig that moves one side of the pin and not the other opens the pin as it plays
    (by 0.78 m at frame 25 with the arm carried and a lift keyed on the rig, seen before
    this was named).  Check names the joint, its two markers' parts and the rig; Bake
    refuses it likewise and changes nothing."""
    bpy = blender
    rig, ground, arm = keyed_rig(bpy)
    ob = {"arm": arm, "ground": ground}[carried]
    ob.parent = rig
    bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    words = (r"joint 'Revolute arm-ground': .*'rig'.* moves over the frames")
    check_names_and_bake_refuses(bpy, words)


def test_a_mechanism_carried_whole_by_a_still_and_a_moving_parent_bakes(blender) -> None:
    """Ground and arm each parented to their own Empty, the two Empties under the one
    turning rig (which alone moves): both parts move with the rig alike, so nothing is
    named and the pin stays closed as the bake plays (F32)."""
    bpy = blender
    rig, arm = carried_pendulum(bpy)
    scene = bpy.context.scene
    for ob in (scene.objects["ground"], arm):
        holder = bs.empty(bpy, f"{ob.name} holder", rig)
        ob.parent = holder
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "moves over the frames" not in scene.mechanism.report
    pin = next(ob for ob in scene.objects if ob.mechanism.role == "JOINT").mechanism
    for frame in (7, bs.FRAME_END):
        scene.frame_set(frame)
        close(np.array(pin.marker_i.matrix_world.translation),
              np.array(pin.marker_j.matrix_world.translation), what=f"the pin at {frame}")


def test_a_ground_part_on_a_moving_part_is_named(blender) -> None:
    """A second ground part "bracket" parented to the pendulum's arm, which the bake keys to
    swing (2*t rad), and a link pinned to it: the link was solved about a bracket standing
    still and played beside one riding the arm, its pin 1.76 m open at frame 25, with no
    word.  Check names the bracket and the arm; Bake refuses it, the scene unchanged."""
    bpy = blender
    d = bs.pendulum(bpy)
    s = d["pin"].mechanism
    s.motion_type, s.motion_expression = "EXPRESSION", "2*t"
    bracket = bs.add_box(bpy, "bracket", (0.1, 0.1, 0.1), (1.0, 0.0, 0.2))
    link = bs.add_box(bpy, "link", (0.1, 0.1, 0.4), (1.0, 0.0, 0.5))
    bs.tag(bpy, [bracket, link], "PART")
    bracket.mechanism.ground = True
    bpy.context.view_layer.update()
    bracket.parent = d["arm"]
    bracket.matrix_parent_inverse = d["arm"].matrix_world.inverted()
    bs.connect(bpy, link, bracket, (1.0, 0.0, 0.3), "REVOLUTE", "Y")
    words = r"ground part 'bracket' is parented to the moving part 'arm'.*stands still"
    check_names_and_bake_refuses(bpy, words)


@pytest.mark.parametrize("relative_to", [False, True])
def test_a_carried_mechanism_follows_a_target_as_it_stands_in_the_carrier(blender,
                                                                         relative_to) -> None:
    """The XY table, ground and parts parented to a rig keyed to turn a quarter turn about z
    and slide 1.57 m along x, its tool following an Empty in the rig keyed along a line,
    relative to the world or to a marker on the ground: the target's sampled path carried
    the rig's motion, and the keys in the rig's space carried it again (the tool 0.57 m off
    the target at frame 13), with no word.  The target is read as it stands relative to the
    carried ground, so the tool is on it at every frame shown (a straight line sampled
    through the spline, float32 keys: 1e-5)."""
    import math
    import follow_scenes as fs
    bpy = blender
    bs.set_range(bpy)
    rig = bs.empty(bpy, "rig")
    for frame, angle in ((bs.FRAME_START, 0.0), (bs.FRAME_END, math.pi / 2)):
        rig.rotation_euler, rig.location = (0.0, 0.0, angle), (angle, 0.0, 0.0)
        rig.keyframe_insert("rotation_euler", frame=frame)
        rig.keyframe_insert("location", frame=frame)
    bpy.context.scene.frame_set(bs.FRAME_START)
    d = fs.cross_slide(bpy)
    target = fs.keyed_empty(bpy, "target", [(1, (0.1, -0.2, 0.0)), (25, (0.7, 0.6, 0.0))])
    for ob in (d["ground"], d["carriage"], d["slide"], target):
        ob.parent = rig
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    if relative_to:
        s.follow_relative_to = bs.add_marker(bpy, d["ground"], (0.3, -0.1, -0.3))
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    for frame in (7, 13, bs.FRAME_END):
        bpy.context.scene.frame_set(frame)
        gap = d["tool"].matrix_world.translation - target.matrix_world.translation
        assert math.hypot(gap.x, gap.y) < 1e-5, (frame, tuple(gap))


def test_a_follow_beside_a_carried_mechanism_is_read_in_the_world(blender) -> None:
    """The carried pendulum (its ground first in the scene, on the turning rig; its pin
    driven at 2 rad/s) beside the
    XY table, not carried, whose tool follows an Empty keyed along a line: the tool's own
    mechanism has no carrier, so its target is read exactly from its keys in the world
    ("along its location keys, exactly"), the rig's motion not taken out of it, and the
    slide is keyed on the line (float32 keys: 1e-6)."""
    import follow_scenes as fs
    bpy = blender
    carried_pendulum(bpy)
    pin = next(ob for ob in bpy.context.scene.objects if ob.mechanism.role == "JOINT")
    pin.mechanism.motion_type, pin.mechanism.motion_expression = "EXPRESSION", "2*t"
    d = fs.cross_slide(bpy)
    a, b = np.array([0.1, -0.2, 0.0]), np.array([0.7, 0.6, 0.0])
    target = fs.keyed_empty(bpy, "target", [(1, a), (25, b)])
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "along its location keys, exactly" in bpy.context.scene.mechanism.report
    frames, loc, _ = bs.baked_pose(d["slide"])
    close(loc, a + np.outer((frames - 1) / 24, b - a), what="the slide on the line")
