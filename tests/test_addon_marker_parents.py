"""Markers and parts as artists build them, in real Blender: markers parented to the
vertices of a mesh that shape keys or modifiers deform (read where the viewport shows them
at the first frame; refused by name where the deformation moves them over the frames) or
to one vertex (noted: Blender does not turn them); a part placed by a constraint; parts
carried by a posed bone; a part whose modifier reshapes it as it moves; a marker sheared
by its part's stretch; a part that shows a collection.  Scenes: blender_scenes.py and
built here; tolerances as in test_addon_bake.py (float32)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import blender_scenes as bs
from refusals import report_of
from test_addon_parents import vertex_parent

PIN_END = "arm.ground.I"          # the pendulum's marker on the arm (Connect's name)


def lift_shape_key(arm, value: float, keyed: bool):
    """A shape key "lift" on the pendulum's arm raising its pinned end's four vertices
    (local x = -0.5) by 0.5 along the mesh's z (0.05 m in the world: the arm is 0.1 m
    thick); its value ``value``, or keyed from 0 at the first frame to 1 at the last."""
    arm.shape_key_add(name="Basis")
    lift = arm.shape_key_add(name="lift")
    for point in lift.data:
        if point.co.x < 0.0:
            point.co.z += 0.5
    if keyed:
        for frame, v in ((bs.FRAME_START, 0.0), (bs.FRAME_END, 1.0)):
            lift.value = v
            lift.keyframe_insert("value", frame=frame)
    else:
        lift.value = value
    return lift


def displace(arm, keyed: bool):
    """A Displace modifier on the arm (no texture: every vertex moved 0.5 x Strength along
    its normal), its Strength keyed from 0 at the first frame to 0.5 at the last."""
    mod = arm.modifiers.new("push", "DISPLACE")
    if keyed:
        for frame, v in ((bs.FRAME_START, 0.0), (bs.FRAME_END, 0.5)):
            mod.strength = v
            arm.keyframe_insert(f'modifiers["{mod.name}"].strength', frame=frame)
    return mod


@pytest.mark.parametrize("mover", ["shape key", "modifier"])
def test_a_marker_on_vertices_that_move_over_the_frames_is_named(blender, mover) -> None:
    """The pendulum's arm marker parented to the arm's nearest three vertices (Vertex
    (Triangle)), and those vertices moved over the frames by a keyed shape key or a
    modifier's keyed strength: the marker rides them (0.05 m off the pin by the last frame
    with the shape key), but the solver reads it once, at the first frame, so the bake
    played with the pin opening, without a word.  Check names the marker, its part, what
    moves it and the frames; Bake refuses it and changes nothing (the frame shown too)."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm, marker = d["arm"], d["pin"].mechanism.marker_i
    assert marker.name == PIN_END
    vertex_parent(bpy, marker, arm, "VERTEX_TRI")
    name = lift_shape_key(arm, 0.0, keyed=True).name if mover == "shape key" else \
        displace(arm, keyed=True).name
    bpy.context.scene.frame_set(7)                   # Check and Bake put the frame back
    words = (rf"marker '{re.escape(PIN_END)}' is parented to vertices of part 'arm' that "
             rf"move over the frames \(by [0-9.]+ m at frame {bs.FRAME_END}, from frame 2 on; "
             rf"the mesh is deformed by its {mover} '{name}'\)")
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert re.search(words, bpy.context.scene.mechanism.report), \
        bpy.context.scene.mechanism.report
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=words):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_marker_on_vertices_a_still_shape_key_moves_is_read_where_it_is_shown(blender) -> None:
    """The same arm with its shape key "lift" held at 0.5 (not keyed), the marker parented
    to the lifted vertices where the pin is: nothing moves it over the frames, so nothing
    is named, and the bake keeps the pin closed at every frame shown (the marker read
    where the viewport shows it, on the deformed mesh; 1e-6 m: float32 matrices); nor is
    anything named once the baked keys swing the arm over the frames."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm, marker = d["arm"], d["pin"].mechanism.marker_i
    lift_shape_key(arm, 0.5, keyed=False)
    bpy.context.view_layer.update()
    vertex_parent(bpy, marker, arm, "VERTEX_TRI")
    report = report_of(bpy, "check")
    assert "vertices" not in report and "open at the start" not in report, report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    far, other = 0.0, d["pin"].mechanism.marker_j
    for frame in range(bs.FRAME_START, bs.FRAME_END + 1, 4):
        bpy.context.scene.frame_set(frame)
        far = max(far, (marker.matrix_world.translation - other.matrix_world.translation).length)
    assert far < 1e-6, far
    assert np.ptp(bs.baked_pose(arm)[1][:, 0]) > 0.5        # it swings
    assert bpy.ops.mechanism.check() == {"FINISHED"}        # the baked swing moves no vertex
    assert "vertices" not in bpy.context.scene.mechanism.report


@pytest.mark.parametrize("how", ["VERTEX", "VERTEX_TRI"])
def test_a_marker_on_one_vertex_of_a_moving_part_is_noted(blender, how) -> None:
    """The pendulum's arm marker parented to the arm's nearest vertex (Vertex: a corner
    0.0707 m from the pin) or three (Vertex (Triangle)).  A one-vertex parent moves its
    child with the vertex but does not turn it, so as the bake swings the arm the viewport
    showed the marker leaving the pin (0.1 m off at the last frame, about 2 x 0.0707 x
    sin(swing / 2)) with its axes unturned, while the solver holds it on the arm: Check and
    Bake note it, naming the marker and the part and how far it can stray (twice its
    distance from the vertex); a triangle turns the marker with the arm (1e-6 m: float32)
    and nothing is noted."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm, marker, other = d["arm"], d["pin"].mechanism.marker_i, d["pin"].mechanism.marker_j
    vertex_parent(bpy, marker, arm, how)
    words = (rf"marker '{re.escape(PIN_END)}' is parented to one vertex of the moving part "
             r"'arm' \(Vertex\), which moves it with the vertex but does not turn it: as the "
             r"part turns, the viewport shows it up to 0.1414 m off where the solver holds it")
    report = report_of(bpy, "check")
    assert bool(re.search(words, report)) == (how == "VERTEX"), report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert bool(re.search(words, bpy.context.scene.mechanism.report)) == (how == "VERTEX")
    bpy.context.scene.frame_set(bs.FRAME_END)
    off = (marker.matrix_world.translation - other.matrix_world.translation).length
    assert off > 0.05 if how == "VERTEX" else off < 1e-6, off


def test_a_part_placed_by_its_constraint_is_told_how_to_keep_its_place(blender) -> None:
    """The arm placed by a Child Of constraint (an Empty "holder" 0.5 m up, no inverse
    set: the arm shown 0.5 m above its channels) and pinned where it is shown: Check and
    Bake name the constraint, and their remedy keeps the arm's place (Apply Visual
    Transform, then delete the constraint), after which the pin is closed and the bake
    runs; the remedy said before, delete or disable the constraint, dropped the arm
    0.5 m and opened the pin by as much."""
    bpy = blender
    bs.set_range(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    holder = bs.empty(bpy, "holder")
    holder.location = (0.0, 0.0, 0.5)
    held = arm.constraints.new("CHILD_OF")
    held.target = holder
    held.set_inverse_pending = False
    held.inverse_matrix.identity()
    bpy.context.view_layer.update()
    assert arm.matrix_world.translation.z == pytest.approx(0.5)
    bs.connect(bpy, arm, ground, (0.0, 0.0, 0.5), "REVOLUTE", "Y")
    words = (r"part 'arm': its constraint 'Child Of' \(Child Of\) overrides the keys that "
             r"place it, .*: keep the place it gives \(Object > Apply > Visual Transform\), "
             r"then delete it")
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert re.search(words, bpy.context.scene.mechanism.report)
    with pytest.raises(RuntimeError, match=words):
        bpy.ops.mechanism.bake()
    bs.select(bpy, (arm,), arm)
    assert bpy.ops.object.visual_transform_apply() == {"FINISHED"}
    arm.constraints.remove(held)
    report = report_of(bpy, "check")
    assert "open at the start" not in report and "constraint" not in report, report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}


def bone_mount(bpy):
    """An armature "rig" with one bone, keyed to turn 0.5 rad about x from the first frame
    to the last, and an Empty "mount" parented to the bone (Bone), as it stands at the
    first frame: the mount turns with the posed bone, its own channels still."""
    from mathutils import Matrix
    bs.set_range(bpy)
    rig = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    bone = rig.data.edit_bones.new("Bone")
    bone.head, bone.tail = (0.0, 0.0, -1.0), (0.0, 0.0, -0.5)
    bpy.ops.object.mode_set(mode="OBJECT")
    posed = rig.pose.bones["Bone"]
    posed.rotation_mode = "XYZ"
    for frame, angle in ((bs.FRAME_START, 0.0), (bs.FRAME_END, 0.5)):
        posed.rotation_euler = (angle, 0.0, 0.0)
        posed.keyframe_insert("rotation_euler", frame=frame)
    bpy.context.scene.frame_set(bs.FRAME_START)
    mount = bs.empty(bpy, "mount", rig)
    mount.parent_type, mount.parent_bone = "BONE", "Bone"
    bpy.context.view_layer.update()
    mount.matrix_parent_inverse = (rig.matrix_world @ posed.matrix
                                   @ Matrix.Translation((0.0, posed.length, 0.0))).inverted()
    bpy.context.view_layer.update()
    return mount


@pytest.mark.parametrize("carried", [("ground",), ("ground", "arm")])
def test_a_mechanism_carried_by_a_posed_bone_is_read_as_by_a_moving_parent(blender,
                                                                        carried) -> None:
    """The pendulum with its ground (or ground and arm) parented to an Empty that a keyed
    bone carries (the Empty's own channels still): with the ground alone on it, the bake
    played the ground turning with the bone and the arm keyed in the world, the pin open
    0.49 m at the last frame, with no word (the bone's pose is no channel of the Empty's
    or of the armature object's).  Check names the pin and the Empty; Bake refuses it and
    changes nothing.  With both parts on it, the mechanism is carried whole: it bakes, the
    pin closed at every frame (1e-6 m: float32 matrices)."""
    bpy = blender
    mount = bone_mount(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    bpy.context.view_layer.update()
    for ob in (ground, arm):
        if ob.name in carried:
            world = ob.matrix_world.copy()
            ob.parent = mount
            bpy.context.view_layer.update()
            ob.matrix_world = world
    pin = bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    bpy.context.scene.mechanism.tolerance = 1e-9
    words = r"joint 'Revolute arm-ground': .*'mount', the parent of only one of them, moves"
    report = report_of(bpy, "check")
    assert bool(re.search(words, report)) == (len(carried) == 1), report
    if len(carried) == 1:
        before = bs.snapshot(bpy)
        with pytest.raises(RuntimeError, match=words):
            bpy.ops.mechanism.bake()
        assert not bs.differences(before, bs.snapshot(bpy))
        return
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    i, j = pin.mechanism.marker_i, pin.mechanism.marker_j
    for frame in (7, 13, bs.FRAME_END):
        bpy.context.scene.frame_set(frame)
        assert (i.matrix_world.translation - j.matrix_world.translation).length < 1e-6, frame


def hooked_arm(bpy, modifier: str, under_arm: bool = False):
    """The pendulum's arm with a ``modifier`` ("HOOK": its far end's four vertices hooked
    to an Empty "end" at that end, parented to the arm or not; "BEVEL"); its dict."""
    d = bs.pendulum(bpy)
    arm = d["arm"]
    mod = arm.modifiers.new(modifier.title(), modifier)
    if modifier == "HOOK":
        end = bs.empty(bpy, "end")
        end.location = (1.0, 0.0, 0.0)
        mod.object = end
        mod.vertex_indices_set([v.index for v in arm.data.vertices if v.co.x > 0.0])
        bpy.context.view_layer.update()
        mod.matrix_inverse = end.matrix_world.inverted() @ arm.matrix_world
        if under_arm:
            end.parent = arm
            end.matrix_parent_inverse = arm.matrix_world.inverted()
        bpy.context.view_layer.update()
    else:
        mod.width = 0.01
    return d


@pytest.mark.parametrize("modifier", ["HOOK", "BEVEL"])
def test_a_part_whose_modifier_reshapes_it_as_it_moves_is_noted(blender, modifier) -> None:
    """The pendulum's arm with a Hook modifier tying its far end's four vertices to an
    Empty at that end, not parented to the arm: as the bake swings the arm, the hooked end
    stays at the Empty (2 m from its place on the arm at the far end of the swing, the
    mesh stretched across the pin), while the solver swung a rigid 1 m arm, with no word.
    Bake's report names the part, how far its mesh moves on it and the modifier.  A Bevel,
    which does not depend on where the part is, is not named."""
    bpy = blender
    hooked_arm(bpy, modifier)
    words = (r"part 'arm' changes shape as the bake plays: a vertex of its mesh moves "
             r"[0-9.]+ m on the part from where it is at the first frame \(at frame \d+; "
             r"the mesh is deformed by its modifier 'Hook'\)")
    report = report_of(bpy, "bake")
    assert bool(re.search(words, report)) == (modifier == "HOOK"), report
    assert "changes shape" in report or modifier == "BEVEL", report
    assert "changes shape" not in report or modifier == "HOOK", report


@pytest.mark.parametrize("modifier, under_arm", [("HOOK", False), ("HOOK", True),
                                                 ("BEVEL", False)])
def test_check_names_a_part_its_modifier_will_reshape_as_it_moves(blender, modifier,
                                                                  under_arm) -> None:
    """The same arm before any bake: Check names the part whose Hook ties it to an Empty
    not under it (Check said nothing; only Bake's report did, after the keys were written),
    with the modifier; the Hook's Empty parented to the arm (it moves with it), or a Bevel,
    is not named.  Nothing is moved: the arm stands where it stood, to the bit."""
    bpy = blender
    arm = hooked_arm(bpy, modifier, under_arm)["arm"]
    before = np.array(arm.matrix_world)
    report = report_of(bpy, "check")
    words = (r"part 'arm' changes shape as it moves: a vertex of its mesh moves [0-9.]+ m "
             r"on the part as the part moves \(the mesh is deformed by its modifier 'Hook'\)")
    assert bool(re.search(words, report)) == (modifier == "HOOK" and not under_arm), report
    assert "changes shape" in report or modifier == "BEVEL" or under_arm, report
    np.testing.assert_array_equal(np.array(arm.matrix_world), before)


def test_a_marker_on_a_part_stretched_since_keeps_its_drawn_axis(blender, extension) -> None:
    """The 1 m arm's marker at its end turned 45 deg about y on it, then the arm stretched to
    twice its length along x (S, its end now at x = -0.5): Blender draws the marker
    sheared, its z arrow along S R e_z, at 63.43 deg from world z in the xz plane (its x
    53.13 deg off it).  The solver took the
    polar factor of the sheared matrix, the marker's turn before the stretch, whose z is
    18.43 deg off the drawn arrow: a hinge to a ground marker drawn along the same line
    was open by that at the start.  The joint axis is the drawn z and its x the drawn x
    turned the least to be square to it (1e-6: float32 matrices), and Check finds the
    hinge closed."""
    import math
    bpy = blender
    bs.set_range(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    tilted = bs.add_marker(bpy, arm, (0.0, 0.0, 0.0))
    tilted.rotation_euler = (0.0, math.radians(45.0), 0.0)
    bpy.context.view_layer.update()
    arm.scale = (2.0, 0.1, 0.1)
    bpy.context.view_layer.update()
    drawn = np.array(tilted.matrix_world)[:3, :3]
    z = drawn[:, 2] / np.linalg.norm(drawn[:, 2])
    assert math.degrees(math.atan2(z[0], z[2])) == pytest.approx(63.4349, abs=1e-3)
    x = drawn[:, 0] - (drawn[:, 0] @ z) * z
    x /= np.linalg.norm(x)
    seat = bs.add_marker(bpy, ground, tuple(tilted.matrix_world.translation))   # x = -0.5
    seat.rotation_euler = (0.0, math.atan2(z[0], z[2]), 0.0)
    bs.new_joint(bpy, "hinge", "REVOLUTE", tilted, seat)
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    turn = extension.solver.quat_to_matrix
    part, marker = sm.mech.parts["arm"], sm.mech.markers[tilted.name]
    axes = turn(np.array(part.orientation)) @ turn(np.array(marker.orientation))
    np.testing.assert_allclose(axes[:, 2], z, atol=1e-6)
    np.testing.assert_allclose(axes[:, 0], x, atol=1e-6)
    report = report_of(bpy, "check")
    assert "open at the start" not in report, report


def instanced_arm(bpy):
    """The pendulum with its arm an Empty "arm" showing a collection "arm parts" that holds
    the 1 m arm mesh (the collection excluded from the view layer, as a library's is
    shown), pinned to the ground at the origin about y."""
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.3))
    pieces = bpy.data.collections.new("arm parts")
    bpy.context.scene.collection.children.link(pieces)
    mesh = bs.add_box(bpy, "arm mesh", (1.0, 0.1, 0.1), (0.5, 0.0, 0.0))
    for holder in mesh.users_collection:
        holder.objects.unlink(mesh)
    pieces.objects.link(mesh)
    bpy.context.view_layer.layer_collection.children[pieces.name].exclude = True
    arm = bs.empty(bpy, "arm")
    arm.instance_type, arm.instance_collection = "COLLECTION", pieces
    bs.tag(bpy, [ground, arm], "PART")
    ground.mechanism.ground = True
    bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    return ground, arm


@pytest.mark.parametrize("needs", ["mass", "contact"])
def test_a_part_that_shows_a_collection_is_told_to_make_it_real(blender, needs) -> None:
    """A part that is a collection instance (an Empty showing the arm's mesh) has no mesh
    of its own: its mass from the mesh, or a contact's shape, was refused as needing "a
    mesh object", which it seems to be.  The refusal says it shows collection 'arm parts'
    and how to get a mesh (Make Instances Real, then join), naming the part; a typed-in
    mass and no contact bake as before."""
    bpy = blender
    ground, arm = instanced_arm(bpy)
    if needs == "contact":
        arm.mechanism.mass_mode, arm.mechanism.mass = "MANUAL", 10.0
        bs.select(bpy, (arm, ground), arm)
    words = (r"part 'arm' shows collection 'arm parts' \(a collection instance\), which has "
             rf"no mesh of its own for its {'mass' if needs == 'mass' else 'shape'}: .*Object "
             r"> Apply > Make Instances Real")
    if needs == "contact":      # Add Contact refuses it; a contact set to it by hand too
        with pytest.raises(RuntimeError, match=words):
            bpy.ops.mechanism.add_contact()
        contact = bs.empty(bpy, "Contact arm-ground")
        s = contact.mechanism
        s.role, s.contact_part_a, s.contact_part_b = "CONTACT", arm, ground
        words = r"contact 'Contact arm-ground': Shape A: " + words
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        with pytest.raises(RuntimeError, match=words):
            op()
