"""Baking what a scene's transforms and settings can hide, in real Blender (scenes:
blender_scenes.py): delta transforms, NLA settings that hide a bake, baked properties left on an object whose
role changed, a part scaled to zero, a millimetre scene's gravity.  Tolerances as in test_addon_bake.py (float32)."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import blender_scenes as bs

F32 = 1e-6


def solved(bpy, extension):
    """(SceneMechanism, Result) of the scene as the Bake solves it."""
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    st = bpy.context.scene.mechanism
    return sm, sm.mech.solve(times=sm.timeline.times, analysis=st.analysis.lower(),
                             tolerance=extension.addon.io.settings.tolerance(bpy.context.scene.mechanism))


@pytest.mark.parametrize("mode, deltas", [
    ("XYZ", dict(delta_location=(0.05, 0.02, -0.1))),
    ("XYZ", dict(delta_location=(0.0, 0.1, 0.0), delta_rotation_euler=(0.2, 0.0, 0.3))),
    ("XYZ", dict(delta_rotation_quaternion=(math.cos(0.2), 0.0, math.sin(0.2), 0.0))),
    ("QUATERNION", dict(delta_location=(0.03, 0.0, 0.0),
                        delta_rotation_quaternion=(math.cos(0.3), 0.0, 0.0, math.sin(0.3)))),
])
def test_delta_transforms_are_not_applied_twice(blender, extension, mode, deltas) -> None:
    """A pendulum arm with delta transforms (location, an Euler or quaternion delta
    rotation, in Euler or quaternion rotation mode): its frame is read where it is shown,
    and the baked arm is at the solver's pose at every checked frame, markers with it (the
    keys make up for the deltas: Blender adds delta_location to the location and turns by
    delta_rotation_quaternion in the baked quaternion mode).  Clear Bake restores it."""
    bpy = blender
    bs.set_range(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    arm.rotation_mode = mode
    for key, value in deltas.items():
        setattr(arm, key, value)
    bpy.context.view_layer.update()
    at = np.array(arm.matrix_world)[:3, 3] - np.array(arm.matrix_world)[:3, 0] * 0.5
    pin = bs.connect(bpy, arm, ground, tuple(at), "REVOLUTE", "Y")
    bpy.context.scene.mechanism.tolerance = 1e-9
    before = [tuple(r) for r in arm.matrix_world]
    sm, r = solved(bpy, extension)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    stretch = sm.part_frames["arm"].stretch
    for f in (1, 9, 25):
        bpy.context.scene.frame_set(f)
        k = f - bs.FRAME_START
        W = extension.addon.io.part_frames.pose_matrices(r.position("arm")[k], r.orientation("arm")[k],
                                                         stretch, sm.scale)
        np.testing.assert_allclose(np.array(arm.matrix_world), W, rtol=0, atol=F32,
                                   err_msg=f"frame {f}: the arm")
        origin, _ = r.marker_frame(pin.mechanism.marker_i.name)
        np.testing.assert_allclose(np.array(pin.mechanism.marker_i.matrix_world)[:3, 3], origin[k],
                                   rtol=0, atol=F32, err_msg=f"frame {f}: marker I")
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    bpy.context.view_layer.update()
    assert arm.rotation_mode == mode
    np.testing.assert_allclose([tuple(r) for r in arm.matrix_world], before, rtol=0, atol=1e-7)


def nla_track(bpy, ob, name: str):
    """A user NLA track on ``ob`` with one strip of a new, empty action."""
    act = bpy.data.actions.new(name)
    slot = act.slots.new(id_type="OBJECT", name=ob.name)
    ad = ob.animation_data or ob.animation_data_create()
    track = ad.nla_tracks.new()
    track.name = name
    track.strips.new(name, 1, act).action_slot = slot
    return track


@pytest.mark.parametrize("how", ["solo", "solo over the active bake", "nla off"])
def test_bake_says_when_the_nla_hides_it(blender, how) -> None:
    """The bake plays as the object's action, or on an NLA track beneath the user's action;
    a soloed track of the user's (either way), or the object's NLA turned off (the bake on a
    track), would hide it: Bake says so in its report, naming the part and what to change,
    and the bake is written all the same."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm = d["arm"]
    if how != "solo over the active bake":
        arm.keyframe_insert("scale", frame=1)        # the user's action: the bake on a track
    if how.startswith("solo"):
        nla_track(bpy, arm, "walk").is_solo = True
        said = "'arm': NLA track 'walk' is soloed"
    else:
        arm.animation_data.use_nla = False
        said = "'arm': its NLA is off"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert said in report and "the baked motion does not play" in report, report
    assert arm.mechanism.baked
    # without it the report has no such note
    if how.startswith("solo"):
        arm.animation_data.nla_tracks["walk"].is_solo = False
    else:
        arm.animation_data.use_nla = True
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "does not play" not in bpy.context.scene.mechanism.report
    bpy.context.scene.frame_set(20)
    _, loc, _ = bs.baked_pose(arm)
    np.testing.assert_allclose(np.array(arm.location), loc[19], rtol=0, atol=F32)


@pytest.mark.parametrize("role", ["MARKER", "NONE"])
def test_rebake_clears_objects_whose_role_changed(blender, role) -> None:
    """A pendulum with a bob fixed to its arm (Connect), baked; then the bob's joint made a
    marker (parented to the arm) or untagged, the bob and its markers untagged: Bake again
    removes the old bake from them as Clear Bake would: no baked custom properties, bake
    action or flag on the joint object; the bob back where it was before the first bake
    (its transforms and rotation mode)."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm = d["arm"]
    bob = bs.add_box(bpy, "bob", (0.1, 0.1, 0.1), (1.0, 0.0, 0.0))
    bs.tag(bpy, [bob], "PART")
    weld = bs.connect(bpy, bob, arm, (1.0, 0.0, 0.0), "FIXED", "Y")
    bpy.context.view_layer.update()
    before = [tuple(r) for r in bob.matrix_world]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "reaction_force" in weld.keys() and weld.mechanism.baked and bob.mechanism.baked
    bpy.context.scene.frame_set(20)
    assert bob.rotation_mode == "QUATERNION"
    bob_markers = [ob for ob in bpy.data.objects if ob.parent == bob]
    weld.mechanism.role = role
    if role == "MARKER":
        bs.parent_to(bpy, weld, arm)
    for ob in bob_markers + [bob]:
        ob.mechanism.role = "NONE"
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert not any(p in weld.keys() for p in ("reaction_force", "reaction_torque_x"))
    for ob in (weld, bob):
        assert not ob.mechanism.baked and ob.mechanism.bake_action is None, ob.name
        assert ob.animation_data is None or ob.animation_data.action is None, ob.name
        assert not any(a.name == f"MA bake {ob.name}" for a in bpy.data.actions)
    bpy.context.scene.frame_set(20)
    assert bob.rotation_mode == "XYZ"
    np.testing.assert_allclose([tuple(r) for r in bob.matrix_world], before, rtol=0, atol=1e-7)
    assert arm.mechanism.baked and "reaction_force" in d["pin"].keys()


@pytest.mark.parametrize("what", ["part", "marker"])
def test_zero_scale_is_named(blender, what) -> None:
    """A part (or a marker) scaled to zero on one axis: Check and Bake name it and say what
    to fix, and change nothing (was: a plain ValueError from the matrix decomposition)."""
    bpy = blender
    d = bs.pendulum(bpy)
    ob = d["arm"] if what == "part" else d["pin"].mechanism.marker_i
    ob.scale = (ob.scale[0], 0.0, ob.scale[2])
    before = bs.snapshot(bpy)
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        with pytest.raises(RuntimeError, match=f"{what} {ob.name!r}: its scale is zero"):
            op()
    assert not bs.differences(before, bs.snapshot(bpy))


@pytest.mark.slow
def test_millimetre_scene_gravity_is_named(blender, capfd) -> None:
    """Found trying a millimetre scene as a new user: the scene's Gravity keeps Blender's
    -9.81 (Blender units/s^2, which its own physics reads so too), 0.00981 m/s^2 at unit
    scale 0.001, and the pendulum barely moves.  Check and Bake say so with the value for
    Earth's; with -9806.65 the Bake's report does not, and the arm falls: within the 1 s
    baked it turns by more than a right angle from horizontal (a 1 m arm falls to
    vertical in about 0.5 s)."""
    bpy = blender
    d = bs.pendulum(bpy)
    bpy.context.scene.unit_settings.scale_length = 0.001
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "0.00981 m/s^2" in bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "Gravity to 9.80665 m/s²" in bpy.context.scene.mechanism.report
    bpy.context.scene.gravity = (0.0, 0.0, -9806.65)
    capfd.readouterr()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    said = capfd.readouterr().out
    assert "baked 1 part(s)" in said and "gravity" not in said
    _, _, q = bs.baked_pose(d["arm"])
    assert np.abs(2.0 * np.arctan2(q[:, 2], q[:, 0])).max() > math.pi / 2


def typed_into_gravity(bpy, text: str) -> float:
    """What Blender stores (Blender units/s^2) for ``text`` typed into Scene > Gravity, as
    its field takes it: in a unit system the field shows and takes the stored value times
    the unit scale (a bare number in m/s^2, a unit converted: BKE_scene_unit_scale); with
    no unit system, the number as stored."""
    units = bpy.context.scene.unit_settings
    if units.system == "NONE":
        return float(text)
    return bpy.utils.units.to_value(units.system, "ACCELERATION", text) / units.scale_length


@pytest.mark.parametrize("system, scale", [("METRIC", 0.001), ("IMPERIAL", 0.0254)])
def test_the_gravity_the_note_says_to_set_is_earths(blender, system, scale) -> None:
    """A pendulum at unit scale 0.001 (Metric) or one inch (Imperial), the default Gravity
    -9.81 Blender units/s^2: Check's note says what to set
    Scene > Gravity to for Earth's. Typed into the field as the note writes it (the field
    shows the scene's units in a unit system), it gives 9.80665 m/s^2, and Check notes
    nothing more. 1e-5: the note's six significant digits."""
    bpy = blender
    bs.pendulum(bpy)
    units = bpy.context.scene.unit_settings
    units.system, units.scale_length = system, scale
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    said = re.search(r"set Scene > Gravity to (.+?) along its direction", report)
    assert said, report
    stored = typed_into_gravity(bpy, said.group(1))
    assert abs(stored * units.scale_length - 9.80665) <= 1e-5 * 9.80665, (said.group(1), stored)
    bpy.context.scene.gravity = (0.0, 0.0, -stored)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "gravity" not in bpy.context.scene.mechanism.report


@pytest.mark.parametrize("mode", ["XYZ", "QUATERNION", "AXIS_ANGLE"])
def test_assemble_and_drag_keep_a_negative_scale(blender, extension, mode) -> None:
    """A mirrored arm (scale (-0.8, 0.1, 0.05)) with a delta location, in Euler, quaternion
    or axis-angle rotation mode, driven to 0.5 rad: Assemble puts it at the solver's pose
    [R(q) S, position] while its scale channel, rotation mode and deltas stay as they were
    (writing the matrix would turn the reflection into other channels); a drag writes the
    same way, and Esc puts the channels back exactly."""
    bpy = blender
    bs.set_range(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    arm.scale = (-0.8, 0.1, 0.05)
    arm.rotation_mode = mode
    arm.delta_location = (0.0, 0.0, 0.02)
    bpy.context.view_layer.update()
    pin = bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    pin.mechanism.motion_type, pin.mechanism.motion_expression = "EXPRESSION", "0.5"
    bpy.context.view_layer.update()
    scale = tuple(arm.scale)                             # float32 as stored
    channels = {a: tuple(getattr(arm, a)) for a in ("location", "rotation_quaternion",
                                                    "rotation_euler", "rotation_axis_angle")}
    assert bpy.ops.mechanism.assemble() == {"FINISHED"}
    bpy.context.view_layer.update()
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    sm.mech.assemble()
    W = extension.addon.io.part_frames.pose_matrices(*sm.mech.pose("arm"), sm.part_frames["arm"].stretch, sm.scale)
    np.testing.assert_allclose(np.array(arm.matrix_world), W, atol=F32)
    assert tuple(arm.scale) == scale
    assert arm.rotation_mode == mode and tuple(arm.delta_location) == pytest.approx((0.0, 0.0, 0.02))
    assert any(tuple(getattr(arm, a)) != v for a, v in channels.items())     # it did move
    # a drag: the same placement, and Esc (restore) puts the channels back exactly
    pin.mechanism.motion_type = "NONE"
    posing = extension.addon.drag.Posing(bpy.context.scene)
    before = {a: tuple(getattr(arm, a)) for a in channels}
    frame = posing.sm.part_frames["arm"]                  # the point twice as far as the origin
    far = 2.0 * np.array(arm.matrix_world)[:3, 3]          # from the pin (at 0), in part axes
    reach = float(np.linalg.norm(far)) / 2.0
    end = frame.rotation.T @ (far - frame.position)
    posing.drag("arm", end * posing.sm.scale, (0.0, 0.0, -2.0 * reach), budget=None)
    bpy.context.view_layer.update()
    assert tuple(arm.scale) == scale and arm.rotation_mode == mode
    np.testing.assert_allclose(np.array(arm.matrix_world)[:3, 3], (0.0, 0.0, -reach), atol=1e-6)
    posing.restore()
    assert {a: tuple(getattr(arm, a)) for a in channels} == before


def rotation_about(axis, angle: float) -> np.ndarray:
    """(3, 3) right-handed turn by ``angle`` about the unit ``axis`` (Rodrigues)."""
    k = np.asarray(axis, float)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * K @ K


@pytest.mark.parametrize("kind", ["PRISMATIC", "REVOLUTE"])
@pytest.mark.parametrize("mirror", ["marker z", "marker x", "ground part x"])
def test_a_mirrored_marker_keeps_its_drawn_axes(blender, kind, mirror) -> None:
    """Marker J mirrored by a negative scale (its own on z or x, or its ground part's set
    after the marker was added): the joint's axis is J's z as Blender draws it and the angle
    turns right-handedly about it, so over the first second a slide of 0.2 m t moves the
    block 0.2 m along the drawn z, an angle of 0.5 rad t turns it 0.5 rad about it, and the
    joint's Slide or Angle field reads the motion's value.  Kinematic, so the only error is
    float32 storage."""
    bpy = blender
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.5))
    block = bs.add_box(bpy, "block", (0.1, 0.1, 0.1), (0.0, 0.0, 0.0))
    bs.tag(bpy, [ground, block], "PART")
    ground.mechanism.ground = True
    mi, mj = bs.add_marker(bpy, block, (0.0, 0.0, 0.0)), bs.add_marker(bpy, ground, (0.0, 0.0, 0.0))
    for mk in (mi, mj):
        mk.rotation_euler = (0.3, math.pi / 2, 0.0)                 # z along world x
    {"marker z": lambda: setattr(mj, "scale", (1.0, 1.0, -1.0)),
     "marker x": lambda: setattr(mj, "scale", (-1.0, 1.0, 1.0)),
     "ground part x": lambda: setattr(ground, "scale", (-0.2, 0.2, 0.2))}[mirror]()
    bpy.context.view_layer.update()
    assert np.linalg.det(np.array(mj.matrix_world)[:3, :3]) < 0.0      # drawn left-handed
    z_drawn = np.array(mj.matrix_world)[:3, 2] / np.linalg.norm(np.array(mj.matrix_world)[:3, 2])
    joint = bs.new_joint(bpy, "joint", kind, mi, mj)
    coordinate, value = ("SLIDE", 0.2) if kind == "PRISMATIC" else ("ANGLE", 0.5)
    s = joint.mechanism
    s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", coordinate, f"{value}*t"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.scene.frame_set(bs.FRAME_START)       # t = 0: the coordinate at 0 (a half
    before = np.array(block.matrix_world)             # turn from the design for "marker x")
    bpy.context.scene.frame_set(bs.FRAME_END)                         # t = 1 s
    now = np.array(block.matrix_world)
    if kind == "PRISMATIC":
        np.testing.assert_allclose(now[:3, 3], before[:3, 3] + value * z_drawn, atol=F32)
        assert s.wiggle_slide == pytest.approx(value, abs=F32)
    else:
        np.testing.assert_allclose(now[:3, :3], rotation_about(z_drawn, value) @ before[:3, :3],
                                   atol=F32)
        assert s.wiggle_angle == pytest.approx(value, abs=F32)
