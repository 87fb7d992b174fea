"""What a re-bake keeps and reports, in real Blender (scenes: blender_scenes.py): the
report box after a Bake with nothing to note, the curve-fit line of a curve joint whose
curve changed, the user's own keys in a bake's action across a re-bake, a re-bake with
Force Plots off, a bake the scene's frame rate or range has left behind, and one that
Time Remapping plays at another speed.  Keys and
custom properties are float32; values compared exactly are the very floats written."""
from __future__ import annotations

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_bake_transforms import nla_track


def test_report_box_shows_the_latest_bake(blender) -> None:
    """A bake with a note (a soloed NLA track hides it), then, un-soloed, a bake with
    nothing to note: the report box is emptied (it kept the old run's notes); the
    operator's own report says what was baked."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    track = nla_track(bpy, arm, "walk")
    track.is_solo = True
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "is soloed" in bpy.context.scene.mechanism.report
    track.is_solo = False
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert bpy.context.scene.mechanism.report == ""


def test_rebake_keeps_the_users_keys_in_the_bake_action(blender) -> None:
    """After a bake the user keys the arm's scale (frames 1 and 10) and a custom property
    on the pin (frame 3) into their bake actions (the active actions); a re-bake keeps
    those keys exactly (they were lost with the old action), writes each baked channel
    once with a key on every frame, the same as before, and the arm still plays its scale
    keys."""
    bpy = blender
    d = bs.pendulum(bpy)
    arm, pin = d["arm"], d["pin"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, loc, quat = bs.baked_pose(arm)
    arm.scale = (1.0, 1.0, 1.0)
    arm.keyframe_insert("scale", frame=1)
    arm.scale = (1.0, 2.0, 1.0)
    arm.keyframe_insert("scale", frame=10)
    pin["note"] = 0.25
    pin.keyframe_insert('["note"]', frame=3)
    users = {ob.name: {k: v for k, v in bs.action_keys(ob.mechanism.bake_action).items()
                       if k[1] in ("scale", '["note"]')} for ob in (arm, pin)}
    assert len(users[arm.name]) == 3 and len(users[pin.name]) == 1
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    for ob in (arm, pin):
        now = bs.action_keys(ob.mechanism.bake_action)
        assert {k: v for k, v in now.items() if k in users[ob.name]} == users[ob.name]
        assert ob.animation_data.action == ob.mechanism.bake_action
    paths = [(fc.data_path, fc.array_index) for fc in bs.channelbag(arm).fcurves]
    assert sorted(paths) == sorted([("location", i) for i in range(3)] + [("scale", i) for i in range(3)]
                                   + [("rotation_quaternion", i) for i in range(4)])
    frames2, loc2, quat2 = bs.baked_pose(arm)
    np.testing.assert_array_equal(frames2, frames)
    np.testing.assert_array_equal(loc2, loc)
    np.testing.assert_array_equal(quat2, quat)
    bpy.context.scene.frame_set(10)
    assert tuple(arm.scale) == (1.0, 2.0, 1.0)


def test_curve_fit_line_is_never_stale(blender) -> None:
    """The Scotch yoke's slot: its fit line appears at Check and stays while the parts move
    (a bake playing); once the slot is edited (a point moved) the panel says the curve
    changed instead of the old figure until the next Check measures it again; the same for
    a slot scaled, or replaced by another curve object."""
    bpy = blender
    d = bs.scotch_yoke(bpy)
    joint, slot = d["joint"], d["slot"]
    bs.select(bpy, [joint], joint)

    def fit() -> list[str]:
        return [t for t in bs.panel_labels(bpy, "VIEW3D_PT_mechanism_object") if t.startswith(("Fit", "Curve"))]

    assert fit() == ["Fit: shown after Check or Bake"]
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    measured = fit()
    assert len(measured) == 1 and measured[0].startswith("Curve 'slot': ")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.scene.frame_set(7)
    assert fit() == measured
    changed = ["Fit: the curve changed since; shown after Check or Bake"]
    slot.data.splines[0].bezier_points[1].co.x += 0.01
    assert fit() == changed
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert fit()[0].startswith("Curve 'slot': ")
    slot.scale = (1.0, 2.0, 1.0)
    bpy.context.view_layer.update()
    assert fit() == changed
    slot.scale = (1.0, 1.0, 1.0)
    bpy.context.view_layer.update()
    assert fit()[0].startswith("Curve 'slot': ")
    other = slot.copy()
    other.data = slot.data.copy()
    other.name = "slot 2"
    bpy.context.scene.collection.objects.link(other)
    joint.mechanism.curve = other
    assert fit() == changed


def test_force_plots_off_bakes_the_parts_alone(blender, capfd) -> None:
    """A slider-crank baked with its force plots, then with Force Plots off: the joints
    lose their bake (no action, no plotted property) and the report says so, while every
    part's keys are the first bake's bit for bit (one run of the same model); on again,
    the bake is the first one's, plots included."""
    bpy = blender
    d = bs.slider_crank(bpy)
    joints = [d[k] for k in ("main", "big_end", "cylinder", "small_end")]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = {ob.name: bs.action_keys(ob.mechanism.bake_action)
             for ob in bpy.data.objects if ob.mechanism.bake_action is not None}
    assert all(ob.name in first and "reaction_force" in ob.keys() for ob in joints)
    bpy.context.scene.mechanism.force_plots = False
    capfd.readouterr()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "no force plots (Force Plots off)" in capfd.readouterr().out
    baked = {ob.name: bs.action_keys(ob.mechanism.bake_action)
             for ob in bpy.data.objects if ob.mechanism.bake_action is not None}
    assert baked == {name: first[name] for name in ("crank", "rod", "piston")}
    assert not any(ob.mechanism.baked or "reaction_force" in ob.keys() for ob in joints)
    bpy.context.scene.mechanism.force_plots = True
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert {ob.name: bs.action_keys(ob.mechanism.bake_action)
            for ob in bpy.data.objects if ob.mechanism.bake_action is not None} == first


def test_a_bake_the_scene_timing_has_left_behind_says_so(blender) -> None:
    """A bake's keys stay at the frames they were written at: once the frame rate changes
    (24 -> 23.976 fps, fps_base 1.001, as a film conform does) the motion plays at another
    speed than solved, and once the range grows the new frames hold its last pose.  The
    Mechanism panel shows it, naming the rates and ranges, and Check reports it; a bake
    at the scene's timing (or none) shows nothing, Clear Bake ends it."""
    bpy = blender
    bs.pendulum(bpy)
    scene = bpy.context.scene

    def stale() -> list[str]:
        return [t for t in bs.panel_labels(bpy, "VIEW3D_PT_mechanism") if "is stale" in t]

    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert stale() == []
    scene.render.fps_base = 1.001
    note, = stale()
    assert "solved for 24 fps and the scene now plays 23.976 fps, so it runs 0.999 times" in note
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert note in scene.mechanism.report.split(" | ")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert stale() == []
    scene.frame_end = 40
    note, = stale()
    assert "for frames 1-25 and the scene's range is now 1-40" in note and "fps" not in note
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert stale() == []


def test_a_bake_under_time_remapping_says_how_it_plays(blender) -> None:
    """Time Remapping 100 -> 200 shows every animation's frame F at scene frame 2F, the
    bake's keys too: the arm's pose keyed at frame 13 is shown at scene frame 26, so the
    bake plays at half the speed it was solved for.  Bake's report and the panel say so
    (the factor and how to see it as solved); with Old and New equal they say nothing."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    scene = bpy.context.scene
    scene.render.frame_map_old, scene.render.frame_map_new = 100, 200
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, loc, _ = bs.baked_pose(arm)
    scene.frame_set(26)
    np.testing.assert_allclose(tuple(arm.location), loc[list(frames).index(13.0)], atol=1e-6)
    said = "the scene's Time Remapping (100 -> 200) shows the bake's frame F at scene frame " \
           "F x 2, so it plays 0.5 times as fast as solved"
    assert any(said in line for line in scene.mechanism.report.split(" | "))

    def warnings() -> list[str]:           # the panel's notes beside the Bake button
        return [item[1] for item in bs.panel_items(bpy, "VIEW3D_PT_mechanism")
                if item[0] == "label" and item[2] == "ERROR"]

    assert any(said in t for t in warnings())
    scene.render.frame_map_new = 100
    assert warnings() == []


@pytest.mark.parametrize("how", ["bake", "bake_mode", "study_bake"])
def test_a_bake_leaves_the_scene_at_the_subframe_it_showed(blender, how: str) -> None:
    """The pendulum shown at frame 7 and a half (motion blur's subframes, a script's
    frame_set(7, subframe=0.5)): Bake, Bake Mode and Bake Variant show their keys at that
    instant and leave the scene there; they used to set it to frame 7.0, a change to the
    scene nobody asked for.  The arm then stands where its keys' curves put it at 7.5
    (float32 matrices and keys: 1e-6 m)."""
    bpy = blender
    d = bs.pendulum(bpy)
    scene = bpy.context.scene
    if how == "bake_mode":
        assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
        scene.mechanism.mode_amplitude = 0.1
    if how == "study_bake":
        st = scene.mechanism.study
        st.pick_1, st.count_1 = "arm.mass", 2
        assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    scene.frame_set(7, subframe=0.5)
    assert getattr(bpy.ops.mechanism, how)() == {"FINISHED"}
    assert (scene.frame_current, scene.frame_subframe) == (7, 0.5)
    act = d["arm"].mechanism.bake_action
    want = [bs.channelbag(d["arm"], act).fcurves.find("location", index=i).evaluate(7.5)
            for i in range(3)]
    np.testing.assert_allclose(tuple(d["arm"].matrix_world.translation), want, rtol=0, atol=1e-6)
