"""Modes in real Blender: Find Modes lists the pendulum's frequency (closed form), Bake Mode
keys its oscillation with the pin closed, Clear Bake takes it away; a mechanism with no
equilibrium is named."""
from __future__ import annotations

import math

import numpy as np
import pytest

import blender_scenes as bs


def test_find_modes_and_bake_mode_on_the_pendulum(blender) -> None:
    bpy = blender
    d = bs.pendulum(bpy)
    arm = d["arm"]
    scene = bpy.context.scene
    before = (tuple(arm.location), tuple(arm.rotation_euler))
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    st = scene.mechanism
    # the 1 m x 0.1 m x 0.1 m box (1000 kg/m^3: 10 kg) hangs from its end: a compound
    # pendulum, omega^2 = m g d / I_pivot with d = 0.5 m, I_pivot = m (1 + 0.01) / 12 + m d^2
    m, dist = 10.0, 0.5
    omega = math.sqrt(m * 9.81 * dist / (m * (1.0 + 0.01) / 12.0 + m * dist * dist))
    assert len(st.modes) == 1
    assert st.modes[0].frequency == pytest.approx(omega / (2 * math.pi), rel=1e-5)  # float32
    assert (tuple(arm.location), tuple(arm.rotation_euler)) == before         # nothing moved
    st.mode_amplitude, st.mode_cycles = 0.1, 2.0
    assert bpy.ops.mechanism.bake_mode() == {"FINISHED"}
    loc = np.array([bs.curve(arm, "location", i)[:, 1] for i in range(3)]).T
    qw, qy = bs.curve(arm, "rotation_quaternion", 0)[:, 1], bs.curve(arm, "rotation_quaternion", 2)[:, 1]
    angle = 2 * np.arctan2(qy, qw)
    # the arm's origin is its centre: it stays 0.5 m from the pin at the origin
    assert np.allclose(np.linalg.norm(loc, axis=1), 0.5, atol=1e-6)
    # about the hanging pose (a quarter turn about y), two whole periods over frames 1..25
    swing = angle - angle[0]
    phase = 2 * math.pi * 2.0 * np.arange(25) / 24
    ratio = swing[3] / math.sin(phase[3])
    assert angle[0] == pytest.approx(math.pi / 2, abs=1e-6)
    # the largest motion is the centre's, 0.5 m from the pin: 0.1 m is about 0.2 rad (each
    # pose closed onto the pin by least movement, so the swing is the sine to about 1.5%)
    assert abs(ratio) == pytest.approx(0.1 / 0.5, rel=0.02)
    assert np.allclose(swing, ratio * np.sin(phase), atol=0.02 * abs(ratio))
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert (tuple(arm.location), tuple(arm.rotation_euler)) == before


def test_bake_mode_waits_for_find_modes_and_a_free_part_is_named(blender) -> None:
    bpy = blender
    bs.set_range(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    assert not bpy.ops.mechanism.bake_mode.poll()
    with pytest.raises(RuntimeError, match="no static equilibrium.*'arm'"):
        bpy.ops.mechanism.find_modes()


def test_undoing_bake_mode_keeps_the_modes_found(blender) -> None:
    """Find Modes is its own undo step: Ctrl Z after Bake Mode takes the mode's keys away
    and leaves the list Find Modes filled (the pendulum's one mode), ready to bake again."""
    bpy = blender
    bs.pendulum(bpy)
    bpy.ops.ed.undo_push(message="the pendulum")
    assert bpy.ops.mechanism.find_modes("EXEC_DEFAULT", True) == {"FINISHED"}
    found = bpy.context.scene.mechanism.modes[0].frequency
    bpy.context.scene.mechanism.mode_amplitude = 0.1
    assert bpy.ops.mechanism.bake_mode("EXEC_DEFAULT", True) == {"FINISHED"}
    assert bpy.context.scene.objects["arm"].mechanism.baked
    bpy.ops.ed.undo()
    st = bpy.context.scene.mechanism
    arm = bpy.context.scene.objects["arm"]
    assert not arm.mechanism.baked and arm.animation_data is None
    assert [m.frequency for m in st.modes] == [found]
    assert bpy.ops.mechanism.bake_mode.poll()


def test_bake_mode_replaces_a_baked_variant_and_its_notes(blender) -> None:
    """A Study variant baked (gravity changed after the run: its note says the row is
    stale), then Bake Mode: the keys are the mode's, so the table no longer marks the
    variant as baked and the report box no longer holds the variant's notes."""
    bpy = blender
    bs.pendulum(bpy)
    scene = bpy.context.scene
    st = scene.mechanism.study
    st.pick_1, st.count_1 = "arm.mass", 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    scene.gravity = (0.0, 0.0, -5.0)
    assert bpy.ops.mechanism.study_bake(variant=1) == {"FINISHED"}
    assert st.baked_variant == 1 and "the scene changed since the study ran" in scene.mechanism.report
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    assert bpy.ops.mechanism.bake_mode() == {"FINISHED"}
    assert st.baked_variant == -1 and scene.mechanism.report == ""
    labels = bs.panel_labels(bpy, "VIEW3D_PT_mechanism_study")
    assert not any("(baked)" in t for t in labels), labels


def test_bake_mode_in_edit_mode_says_why_it_waits(blender) -> None:
    """Modes found, the arm's mesh in Edit Mode: Bake Mode is greyed out with its reason
    (keys go on objects), as Bake's is."""
    bpy = blender
    d = bs.pendulum(bpy)
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    bs.select(bpy, [d["arm"]], d["arm"])
    bpy.ops.object.mode_set(mode="EDIT")
    with pytest.raises(RuntimeError, match=r"Bake Mode works in Object Mode: leave Edit Mode"):
        bpy.ops.mechanism.bake_mode()
    bpy.ops.object.mode_set(mode="OBJECT")


def test_find_modes_refuses_a_setting_keyed_to_change(blender) -> None:
    """The pin's torsion stiffness keyed 10 N m/rad at frame 1 and 40 at frame 25, the
    scene shown at frame 25: Find Modes read the design at the first frame and listed the
    frequency of 10 N m/rad under a field showing 40, without a word. It refuses as Bake
    and Export CSV do, naming the joint and the setting, and Bake Mode likewise; the list
    and the scene are left as they were."""
    bpy = blender
    d = bs.pendulum(bpy)
    pin, scene = d["pin"], bpy.context.scene
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    found = [m.frequency for m in scene.mechanism.modes]
    s = pin.mechanism
    s.torsion = True
    for frame, k in ((1, 10.0), (25, 40.0)):
        s.torsion_stiffness = k
        pin.keyframe_insert("mechanism.torsion_stiffness", frame=frame)
    scene.frame_set(25)
    said = (r"joint '.*': its Stiffness \(mechanism\.torsion_stiffness\) is keyframed and "
            r"changes over the frames")
    for operator in (bpy.ops.mechanism.find_modes, bpy.ops.mechanism.bake_mode):
        with pytest.raises(RuntimeError, match=said):
            operator()
    assert [m.frequency for m in scene.mechanism.modes] == found
    assert not d["arm"].mechanism.baked and d["arm"].animation_data is None


def test_bake_mode_refuses_what_would_play_over_its_keys(blender) -> None:
    """The arm's own location keys (0.3 m along x over the range): Bake refuses them, as they
    would play over the baked motion; Bake Mode said "baked mode 1" and put its keys on a
    track beneath them, where the arm only slid along x. It refuses as Bake does, naming
    the part and the channel, and writes nothing."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    arm.keyframe_insert("location", frame=1)
    arm.location.x += 0.3
    arm.keyframe_insert("location", frame=25)
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    bpy.context.scene.mechanism.mode_amplitude = 0.1
    with pytest.raises(RuntimeError, match=r"part 'arm': its action '.*' keys location, which "
                                           r"would play over the baked motion"):
        bpy.ops.mechanism.bake_mode()
    assert not arm.mechanism.baked and not arm.animation_data.nla_tracks


def test_find_modes_says_what_reading_the_scene_found(blender, capfd) -> None:
    """A millimetre scene (unit scale 0.001) left at Blender's Gravity of 9.81 units/s^2,
    0.00981 m/s^2: Bake warns of it, and Find Modes listed the pendulum's frequency for that
    gravity (31.6 times too slow for Earth's) without a word. It reports what reading the
    scene found, as Bake and Check do, and so does Bake Mode."""
    bpy = blender
    bs.set_range(bpy)
    bpy.context.scene.unit_settings.scale_length = 0.001
    ground = bs.add_box(bpy, "ground", (200, 200, 200), (0.0, 0.0, -300.0))
    arm = bs.add_box(bpy, "arm", (1000, 100, 100), (500.0, 0.0, 0.0))
    bs.tag(bpy, [ground, arm], "PART")
    ground.mechanism.ground = True
    bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    capfd.readouterr()
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    said = capfd.readouterr().out
    assert "gravity: the scene's Gravity is 0.00981 m/s^2 at unit scale 0.001" in said, said
    # the pendulum's frequency at that gravity: the 1 m arm, 10 kg, hung from its end
    omega = math.sqrt(10.0 * 0.00981 * 0.5 / (10.0 * 1.01 / 12.0 + 10.0 * 0.25))
    assert bpy.context.scene.mechanism.modes[0].frequency == pytest.approx(
        omega / (2 * math.pi), rel=1e-5)                                    # float32
    # Bake Mode, which solves the modes again, says the same (it said only "baked mode 1")
    capfd.readouterr()
    assert bpy.ops.mechanism.bake_mode() == {"FINISHED"}
    said = capfd.readouterr().out
    assert "baked mode 1" in said and \
        "gravity: the scene's Gravity is 0.00981 m/s^2 at unit scale 0.001" in said, said


def test_find_modes_says_why_a_driven_mechanism_has_no_mode(blender, capfd) -> None:
    """The pendulum's pin driven by a motion: no freedom is left to vibrate, so Find Modes
    finds none, and says why (it said "0 mode(s) ..." and Bake Mode then asked for a Find
    Modes), as a warning; the list stays empty and Bake Mode waits."""
    bpy = blender
    d = bs.pendulum(bpy)
    d["pin"].mechanism.motion_type = "EXPRESSION"
    capfd.readouterr()
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    said = capfd.readouterr().out
    assert "no mode at frame 1: the joints and the motions leave no freedom" in said, said
    assert "Warning" in said and len(bpy.context.scene.mechanism.modes) == 0
    assert not bpy.ops.mechanism.bake_mode.poll()
