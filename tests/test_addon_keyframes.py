"""Keyframed motions in real Blender (bpy): an F-curve's modifiers as the viewport plays them
(a Cycles modifier's loops) drive the joint, frame by frame and in rate.  Scenes:
blender_scenes.py; the Blender-free F-curve maths is tested in test_io_addon.py."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import blender_scenes as bs
from refusals import check_names_and_bake_refuses
from test_addon_bake import joint_angle


def looped_pendulum(bpy, before: str, after: str, cycles_after: int):
    """The pendulum with its pin's Angle keyed 0, 1, 0.3 rad at frames 21, 33, 45 and a Cycles
    modifier (modes ``before``, ``after``; ``cycles_after`` repeats, 0 for no end) over
    frames 1-81, so the bake runs 20 frames before the keys and 36 past them; (pin, F-curve)."""
    pin = bs.keyed_pendulum(bpy, frames=(21, 33, 45))["pin"]
    bs.set_range(bpy, 1, 81)
    fc = bs.channelbag(pin).fcurves.find("mechanism.motion_angle")
    cycles = fc.modifiers.new("CYCLES")
    cycles.mode_before, cycles.mode_after, cycles.cycles_after = before, after, cycles_after
    return pin, fc


def _fcurve_slope(fc, f: float, fps: float) -> float:
    """d/dt of the F-curve at frame f (per second): central differences of fcurve.evaluate
    over +-0.1 and +-0.05 frame, Richardson extrapolated, (4 D(h/2) - D(h)) / 3."""
    d = [(fc.evaluate(f + h) - fc.evaluate(f - h)) / (2 * h) * fps for h in (0.1, 0.05)]
    return (4 * d[1] - d[0]) / 3


def _bake_follows_the_curve(bpy, pin, fc, last: int) -> None:
    """Bake, then the pin's angle at every frame 1..last is the F-curve's to 1e-6 rad."""
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    s = pin.mechanism
    for f in range(1, last + 1):
        bpy.context.scene.frame_set(f)
        gap = joint_angle(s.marker_i, s.marker_j) - fc.evaluate(f)
        assert abs(math.remainder(gap, 2 * math.pi)) < 1e-6, f"frame {f}"


@pytest.mark.parametrize("before, after, cycles_after", [
    ("REPEAT", "REPEAT", 0), ("REPEAT_OFFSET", "REPEAT_OFFSET", 0), ("MIRROR", "MIRROR", 0),
    ("NONE", "REPEAT", 1)])
def test_keyframed_motion_plays_its_cycles_modifier(blender, extension, before, after,
                                                    cycles_after) -> None:
    """A Cycles modifier on a keyed motion loops it as the viewport plays it: at every frame
    of the bake, before the keys and past them (past one cycle the curve holds its last
    value), the joint's angle is the F-curve's own evaluation, modifiers included
    (fcurve.evaluate), to float32's 1e-6 rad; and the motion's rate is the F-curve's slope,
    between frames (a mirrored cycle runs backwards, so its rate changes sign there).  The
    slope: central differences of fcurve.evaluate over +-0.1 and +-0.05 frame, Richardson
    extrapolated (4 D(h/2) - D(h)) / 3, which leaves an O(h^4) error under 1e-6 rad/s;
    float32's 1e-7 rad over 0.1 frame at 24 fps gives at most (4 + 1) / 3 * 2.4e-5, 4e-5
    rad/s; rates are up to 3 rad/s."""
    bpy = blender
    pin, fc = looped_pendulum(bpy, before, after, cycles_after)
    _bake_follows_the_curve(bpy, pin, fc, 81)
    reader, keyed = extension.addon.scene_reader, extension.addon.keyed_motions
    timeline = reader.read_scene(bpy.context.scene).timeline
    _, (rate, _), _, _ = keyed.keyframed_motion(pin, "angle", timeline, 1.0)
    fps = timeline.fps
    for f in np.arange(1.37, 81.0, 2.0):
        assert rate((f - 1) / fps) == pytest.approx(_fcurve_slope(fc, f, fps), abs=1e-4), \
            f"frame {f}"


def _handles_past_the_next_key(fc) -> None:
    """Free handles, the first key's right one reaching 15 frames (past the next key, 10
    frames on; Blender shortens it to 10), the middle key's left one 4 frames back and the
    last key's left one 12 (shortened to 10): the segments' frames still rise with u (x'(u)
    > 0: no cusp, where float32's rounding of a handle would move the value unboundedly)."""
    k = fc.keyframe_points
    for p in k:
        p.handle_left_type = p.handle_right_type = "FREE"
    k[0].handle_right = (k[0].co[0] + 15.0, k[0].co[1] + 1.0)
    k[1].handle_left = (k[1].co[0] - 4.0, k[1].co[1] + 0.8)
    k[2].handle_left = (k[2].co[0] - 12.0, k[2].co[1] - 0.5)


def _last_key_linear(fc) -> None:
    """Linear extrapolation with Bezier segments and the last key's own interpolation
    Linear: past it Blender continues the line through the last two keys."""
    fc.extrapolation = "LINEAR"
    fc.keyframe_points[-1].interpolation = "LINEAR"


def _free_end_handles(fc) -> None:
    """Linear extrapolation with free end handles that do not line up with the segments
    inside: Blender extrapolates along the first key's left and the last key's right
    handle."""
    fc.extrapolation = "LINEAR"
    k = fc.keyframe_points
    for p in k:
        p.handle_left_type = p.handle_right_type = "FREE"
    k[0].handle_left = (k[0].co[0] - 3.0, k[0].co[1] + 1.0)
    k[-1].handle_right = (k[-1].co[0] + 3.0, k[-1].co[1] + 1.0)


@pytest.mark.parametrize("shape", [_handles_past_the_next_key, _last_key_linear, _free_end_handles])
def test_keyframed_motion_follows_the_curve_as_blender_evaluates_it(blender, extension,
                                                                    shape) -> None:
    """Keys at frames 11, 21, 31 over a bake of frames 1-41, the curve shaped by ``shape``:
    the motion is the F-curve as Blender evaluates it (fcurve.evaluate) at every frame and
    between frames, inside the keys and beyond them, to float32's 1e-6 rad; the baked joint
    follows it at every frame.  Its rate is checked against Richardson-extrapolated central
    differences of fcurve.evaluate (as in the Cycles test) at fractional frames away from
    the keys, relative to 1e-4 besides: a steep stretch (7 rad/s) has large higher
    derivatives, whose O(h^4) remainder scales with it."""
    bpy = blender
    pin = bs.keyed_pendulum(bpy, frames=(11, 21, 31))["pin"]
    bs.set_range(bpy, 1, 41)
    fc = bs.channelbag(pin).fcurves.find("mechanism.motion_angle")
    shape(fc)
    fc.update()
    reader, keyed = extension.addon.scene_reader, extension.addon.keyed_motions
    timeline = reader.read_scene(bpy.context.scene).timeline
    fn, (rate, _), _, _ = keyed.keyframed_motion(pin, "angle", timeline, 1.0)
    fps = timeline.fps
    for f in np.arange(1.0, 41.0, 0.13):
        assert fn((f - 1) / fps) == pytest.approx(fc.evaluate(f), abs=1e-6), f"frame {f:.2f}"
    for f in np.arange(1.37, 41.0, 2.0):
        assert rate((f - 1) / fps) == pytest.approx(_fcurve_slope(fc, f, fps), rel=1e-4,
                                                     abs=1e-4), f"frame {f}"
    _bake_follows_the_curve(bpy, pin, fc, 41)


def _muted(bpy, pin, fc) -> str:
    fc.mute = True
    return "Angle's F-curve is muted"


def _driven_by_another_object(bpy, pin, fc) -> str:
    """A driver copying a keyed Empty's x location into the Angle: Blender shows the
    driver's value, not the keys."""
    ctl = bs.empty(bpy, "control")
    ctl.keyframe_insert("location", index=0, frame=1)
    ctl.location.x = 0.5
    ctl.keyframe_insert("location", index=0, frame=25)
    driver = pin.driver_add("mechanism.motion_angle").driver
    var = driver.variables.new()
    var.targets[0].id, var.targets[0].data_path = ctl, "location.x"
    driver.expression = var.name
    return "Angle has a driver"


def _pushed_down(bpy, pin, fc) -> str:
    """The joint's action pushed down onto an NLA strip: Blender plays the strip."""
    ad = pin.animation_data
    strip = ad.nla_tracks.new().strips.new("swing", 1, ad.action)
    strip.action_slot = ad.action_slot
    ad.action = None
    return "Angle has no keyframes in its action (they are in NLA strip 'swing'"


def _half_influence(bpy, pin, fc) -> str:
    """The joint's action played at influence 0.5: the Angle field shows half the keys."""
    pin.animation_data.action_influence = 0.5
    return "Angle is keyed in an action that plays at influence 0.5"


def _another_slot(bpy, pin, fc) -> str:
    """The joint's action played through a new slot of it: Blender plays that slot's
    channels (none), so the Angle stays at the field's value."""
    act = pin.animation_data.action
    pin.animation_data.action_slot = act.slots.new(id_type="OBJECT", name="spare")
    return (f"Angle has no keyframes in the slot of its action '{act.name}' it plays (OBspare; "
            f"slot 'OB{pin.name}' keys it")


def _sampled(bpy, pin, fc) -> str:
    """The F-curve converted to samples (Channel > Keys to Samples): Blender plays the
    samples, and the Angle has no keyframes; the line said only that, with the curve in
    the Graph Editor."""
    fc.convert_to_samples(1, 25)
    return ("Angle's F-curve holds samples, not keyframes (Keys to Samples): convert them "
            "back (Graph Editor > Channel > Samples to Keys)")


@pytest.mark.parametrize("how", [_muted, _driven_by_another_object, _pushed_down,
                                 _half_influence, _another_slot, _sampled])
def test_keyed_angle_that_blender_does_not_play_as_keyed_is_refused(blender, how) -> None:
    """A Keyframed motion follows the joint's keys in its action; where Blender shows the
    Angle otherwise (its F-curve muted: the field's value held; a driver: the driver's
    value; the keys on an NLA strip, not in the action, or in a slot of the action other
    than the one it plays: the field's value; the action at influence 0.5: half the keyed
    angle, 0.5 rad off at frame 13; samples instead of keys) Bake refuses, naming the
    joint and why, and changes nothing."""
    bpy = blender
    pin = bs.keyed_pendulum(bpy)["pin"]
    fc = bs.channelbag(pin).fcurves.find("mechanism.motion_angle")
    said = how(bpy, pin, fc)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape(f"joint '{pin.name}': the motion is "
                                                     f"Keyframed but its {said}")):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def _double_pendulum(bpy, interpolation: str):
    """The keyed pendulum (its pin's Angle 0, 1, 0.3 rad at frames 1, 13, 25, every key
    ``interpolation``) with a free 0.5 m link pinned at the arm's tip: a dynamic run."""
    d = bs.keyed_pendulum(bpy)
    for key in bs.channelbag(d["pin"]).fcurves[0].keyframe_points:
        key.interpolation = interpolation
    link = bs.add_box(bpy, "link", (0.5, 0.1, 0.1), (1.25, 0.0, 0.0))
    bs.tag(bpy, [link], "PART")
    bs.connect(bpy, link, d["arm"], (1.0, 0.0, 0.0), "REVOLUTE", "Y")
    return d


def test_a_stepped_keyed_motion_is_refused_in_a_dynamic_run(blender) -> None:
    """Stepped keys (Constant interpolation) make the driven angle jump 1 rad at frame 13:
    in a dynamic run (the link swings freely) the parts would have to move in no time, and
    the run took the jump silently (the arm teleported, the link's motion unchanged by
    it).  Check names the joint and the frame, Bake refuses and changes nothing; with
    Linear keys (the rate jumps, not the angle) the dynamic run bakes, and the same stepped
    keys bake in a kinematic sweep, where every frame is posed."""
    bpy = blender
    pin = _double_pendulum(bpy, "CONSTANT")["pin"]
    said = f"joint '{pin.name}': its keyed Angle jumps at frame 13 (Constant interpolation)"
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert any(line.startswith(said) for line in bpy.context.scene.mechanism.report.split(" | "))
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape(said)):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    _double_pendulum(bpy, "LINEAR")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    pin = bs.keyed_pendulum(bpy)["pin"]
    for key in bs.channelbag(pin).fcurves[0].keyframe_points:
        key.interpolation = "CONSTANT"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.scene.frame_set(13)
    s = pin.mechanism
    assert joint_angle(s.marker_i, s.marker_j) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("before, after, frames", [
    ("NONE", "NONE", [21, 33, 45]),
    ("REPEAT", "REPEAT", [9, 21, 33, 45, 57, 69]),
    ("MIRROR", "MIRROR", [9, 21, 33, 45, 57, 69])])
def test_a_keyed_motions_keys_and_their_cycles_are_its_breakpoints(blender, extension, before,
                                                                  after, frames) -> None:
    """A keyed curve's rate or acceleration may jump at its keys (a Linear key's kink, a
    Bezier segment's end), which the solver cannot see in a callable: the motion carries
    the keys' times as its breakpoints, and every image of them a Cycles modifier plays
    inside the bake's frames (keys 21, 33, 45 looped every 24 frames over 1-81; a mirrored
    cycle's keys fall on the same frames here), frame f at (f - 1) / 24 s, so a dynamic
    run ends its steps on them."""
    bpy = blender
    looped_pendulum(bpy, before, after, 0)
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    motion = next(iter(sm.mech.motions.values()))
    assert motion.function.breakpoints == pytest.approx([(f - 1) / 24 for f in frames],
                                                        abs=1e-12)


@pytest.mark.parametrize("owner", ["joint", "scene"])
def test_a_setting_driven_by_the_frame_is_named(blender, owner) -> None:
    """The pin's motion a Constant Speed whose Speed a driver sets to frame / 10, or the
    scene's Gravity z driven to -frame: the field changes as the frames play, yet a bake
    took the first frame's value with no word (keyed the same, it is refused).  Check
    names the setting and the driver's expression; Bake refuses it, the scene unchanged."""
    bpy = blender
    d = bs.pendulum(bpy)
    pin = d["pin"]
    if owner == "joint":
        pin.mechanism.motion_type = "SPEED"
        fc = pin.driver_add("mechanism.motion_speed")
        fc.driver.expression = "frame / 10"
        words = (rf"joint '{pin.name}': its Speed \(mechanism\.motion_speed\) is driven by the "
                 r"frame \(frame / 10\)")
    else:
        fc = bpy.context.scene.driver_add("gravity", 2)
        fc.driver.expression = "-frame"
        words = r"scene 'Scene': its Gravity \(gravity\) is driven by the frame \(-frame\)"
    bpy.context.view_layer.update()
    check_names_and_bake_refuses(bpy, words)


def _baked_loads(bpy, joint) -> np.ndarray:
    """(25, 7): the joint's baked reaction_force_x/_y/_z, reaction_torque_x/_y/_z and
    motion_effort at frames 1-25."""
    act = joint.mechanism.bake_action
    props = [f"reaction_force_{c}" for c in "xyz"] + [f"reaction_torque_{c}" for c in "xyz"]
    return np.array([bs.curve(joint, f'["{p}"]', action=act)[:, 1]
                     for p in props + ["motion_effort"]]).T


def test_a_crank_keyed_over_the_range_bakes_its_end_frames_loads(blender) -> None:
    """The slider-crank's crank keyed 0 at frame 1 and 2 pi at frame 25, Linear: exactly
    the Expression 2*pi*t, so every frame's main bearing reaction and motor torque are the
    expression's.  At the end keys the rate was the extrapolation's (0: Constant
    extrapolation) instead of the keys' own 2 pi rad/s, so the first and last frames baked
    the loads of a crank at rest (Fx 0 N, where the turning crank and rod pull 1.29 N).
    The two bakes solve the same motion with the same rows; 1e-6 N (N m) leaves room for
    the float32 keys of loads up to about 2 N."""
    bpy = blender
    d = bs.slider_crank(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    want = _baked_loads(bpy, d["main"])
    assert abs(want[0, 0]) > 1.0            # a centripetal load at the first frame
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    d = bs.slider_crank(bpy)
    main = d["main"]
    s = main.mechanism
    s.motion_type = "KEYFRAMED"
    for f, a in ((1, 0.0), (25, 2 * math.pi)):
        s.motion_angle = a
        main.keyframe_insert("mechanism.motion_angle", frame=f)
    for key in bs.channelbag(main).fcurves[0].keyframe_points:
        key.interpolation = "LINEAR"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    np.testing.assert_allclose(_baked_loads(bpy, main), want, atol=1e-6)


@pytest.mark.parametrize("owner, moves", [("part", True), ("joint", True), ("part", False)])
def test_a_setting_driven_through_a_moving_object_is_named(blender, owner, moves) -> None:
    """The arm's Density, or the pin's torsion spring Stiffness, driven by a variable that
    reads an Empty "knob"'s x location (1000 + 1000 x, or 100 x), the knob keyed from x = 0
    at the first frame to 1 at the last: the field changes as the frames play (no "frame"
    in the expression), yet a bake took the first frame's value with no word.  Check names
    the setting and its values at the first frame and where it is farthest from them; Bake
    refuses it, the scene unchanged.  With the knob keyed to stay at 0.5, nothing changes
    and nothing is named."""
    bpy = blender
    d = bs.pendulum(bpy)
    knob = bs.empty(bpy, "knob")
    for frame, x in ((bs.FRAME_START, 0.0 if moves else 0.5), (bs.FRAME_END, 1.0 if moves
                                                                else 0.5)):
        knob.location.x = x
        knob.keyframe_insert("location", index=0, frame=frame)
    ob = d["arm"] if owner == "part" else d["pin"]
    if owner == "joint":
        ob.mechanism.use_torsion_spring = True
    path, expression, label, first, last = (
        ("mechanism.density", "1000 + 1000*x", "Density", "1000", "2000") if owner == "part"
        else ("mechanism.torsion_stiffness", "100*x", "Stiffness", "0", "100"))
    fc = ob.driver_add(path)
    x = fc.driver.variables.new()
    x.name, x.type = "x", "TRANSFORMS"
    x.targets[0].id, x.targets[0].transform_type = knob, "LOC_X"
    fc.driver.expression = expression
    bpy.context.scene.frame_set(9)
    words = (rf"{owner} '{re.escape(ob.name)}': its {label} \({re.escape(path)}\) is driven "
             rf"and changes over the frames \({first} at frame 1, {last} at frame 25\)")
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert bool(re.search(words, report)) == moves, report
    assert ("is driven and changes" in report) == moves, report
    before = bs.snapshot(bpy)
    if not moves:
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        return
    with pytest.raises(RuntimeError, match=words):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_driver_on_a_setting_that_is_not_there_is_passed_over(blender) -> None:
    """A driver left on a data path no setting has (mechanism.no_such_setting: a setting
    renamed since, or a typing slip in a script) drives nothing: Check reads the scene
    and names nothing about it (reading its value at each frame raised, and Check failed
    with Python's error)."""
    bpy = blender
    d = bs.pendulum(bpy)
    fc = d["arm"].driver_add("mechanism.density")
    fc.driver.expression = "1000"
    fc.data_path = "mechanism.no_such_setting"
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "no_such_setting" not in bpy.context.scene.mechanism.report
