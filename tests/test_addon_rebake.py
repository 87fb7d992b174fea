"""Re-bakes in real Blender (scenes: blender_scenes.py): every bake starts from the design,
however often the scene is baked again and at whatever frame it stands; the scene's reading
is kept for the next bake while nothing it depends on changes (addon/scene_cache.py) and
made again when something does.  Keys are float32: keys compared exactly are the very
floats written, from one deterministic run of the same model."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import blender_scenes as bs
import follow_scenes as fs


def bake_keys(bpy) -> dict:
    """Object name -> every F-curve of its bake action (blender_scenes.action_keys)."""
    return {ob.name: bs.action_keys(ob.mechanism.bake_action)
            for ob in bpy.data.objects if ob.mechanism.bake_action is not None}


def test_rebakes_keep_the_design_a_dynamic_run_starts_from(blender) -> None:
    """A pendulum released from its design pose, baked and re-baked with the scene at a
    frame where the bake shows it swung away: every bake starts from the design (the part's
    saved matrix stays the one it was designed at), so the third bake's keys are the
    first's bit for bit."""
    bpy = blender
    d = bs.pendulum(bpy)
    d["arm"].rotation_euler = (0.0, 0.3, 0.0)            # released 0.3 rad from hanging level
    bpy.context.view_layer.update()
    design = [x for row in d["arm"].matrix_world for x in row]
    bpy.context.scene.frame_set(12)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = bake_keys(bpy)
    for _ in range(2):
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        assert list(d["arm"].mechanism.backup_matrix) == design
    assert bake_keys(bpy) == first


def kept_reading(bpy, extension):
    """The scene's reading that Bake keeps for the next bake (None: none kept)."""
    cache = importlib.import_module(extension.__name__ + ".addon.scene_cache")
    ops = importlib.import_module(extension.__name__ + ".addon.operators")
    return cache.kept(bpy.context.scene, ops.BAKE)


def test_a_rebake_of_an_unchanged_scene_reads_it_once(blender, extension) -> None:
    """Bake, then bake again (at another frame, where the bake shows the parts elsewhere):
    the second bake uses the reading the first made, and writes the same keys bit for bit;
    so do Export CSV and a third bake."""
    bpy = blender
    bs.slider_crank(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    reading, first = kept_reading(bpy, extension), bake_keys(bpy)
    assert reading is not None
    bpy.context.scene.frame_set(7)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert kept_reading(bpy, extension) is reading
    assert bake_keys(bpy) == first
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert kept_reading(bpy, extension) is reading
    assert bake_keys(bpy) == first


def _vertices_scaled(bpy, d) -> None:
    for v in d["rod"].data.vertices:
        v.co.x *= 1.5


def _marker_moved(bpy, d) -> None:
    """The small end's marker on the rod 1 mm along x (the piston slides after it)."""
    bpy.data.objects["rod.marker"].location.x += 0.001


def _unit_scale(bpy, d) -> None:
    bpy.context.scene.unit_settings.scale_length = 0.5


# (what the user changes, what the new reading must show: a number it changes)
CHANGES = {
    "tagged property": (lambda bpy, d: setattr(d["rod"].mechanism, "density", 2000.0),
                        lambda sm: sm.mech.parts["rod"].mass),
    "motion expression": (lambda bpy, d: setattr(d["main"].mechanism, "motion_expression", "pi*t"),
                          lambda sm: sm.mech.motions[f"{sm.joints[0].name}: motion"].source),
    "transform": (_marker_moved, lambda sm: tuple(sm.mech.markers["rod.marker"].position)),
    "unit setting": (_unit_scale, lambda sm: sm.scale),
    "mesh": (_vertices_scaled, lambda sm: sm.mech.parts["rod"].mass),
    "frame range": (lambda bpy, d: setattr(bpy.context.scene, "frame_end", 30),
                    lambda sm: sm.timeline.frame_end),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_change_the_reading_depends_on_makes_the_bake_read_again(blender, extension,
                                                                   change: str) -> None:
    """Bake; change a tagged object's setting, a marker's placement, a part's mesh, the unit
    scale or the frame range; bake again: the scene is read again, and the new reading shows the
    change (a number of it differs from the old reading's)."""
    bpy = blender
    d = bs.slider_crank(bpy)
    make, measure = CHANGES[change]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    old = kept_reading(bpy, extension)
    make(bpy, d)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    new = kept_reading(bpy, extension)
    assert new is not None and new is not old
    assert measure(new) != measure(old)


def test_a_reading_that_samples_a_followed_object_is_made_at_each_bake(blender, extension) -> None:
    """A marker that follows an Empty: what moves the Empty is not in the fingerprint, so
    the bake keeps no reading (each bake samples the Empty again)."""
    bpy = blender
    d = fs.cross_slide(bpy)
    target = fs.keyed_empty(bpy, "target", [(1, (0.1, -0.2, 0.0)), (25, (0.7, 0.6, 0.0))])
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert kept_reading(bpy, extension) is None


def test_keys_put_into_a_bake_survive_clear_bake(blender) -> None:
    """Keys inserted after a bake on objects that had no animation before it land in the
    bake's action (Blender keys the active action): a part's custom property and a joint's
    setting.  Clear Bake takes the baked channels away and keeps those keys, in an action
    of the object's own, as a re-bake keeps them; the part goes back where it was."""
    from mathutils import Vector
    bpy = blender
    d = bs.pendulum(bpy)
    arm, pin = d["arm"], d["pin"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    arm["glow"] = 0.0
    arm.keyframe_insert('["glow"]', frame=3)
    arm["glow"] = 4.0
    arm.keyframe_insert('["glow"]', frame=9)
    pin.mechanism.torsion, pin.mechanism.torsion_stiffness = True, 5.0
    for frame in (1, 20):
        pin.keyframe_insert("mechanism.torsion_stiffness", frame=frame)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    for ob, path, keys in ((arm, '["glow"]', [(3.0, 0.0), (9.0, 4.0)]),
                           (pin, "mechanism.torsion_stiffness", [(1.0, 5.0), (20.0, 5.0)])):
        act = ob.animation_data.action
        assert act is not None and not ob.mechanism.baked, ob.name
        assert [p for _, p, _ in bs.action_keys(act)] == [path], ob.name
        assert [tuple(kp.co) for kp in bs.channelbag(ob, act).fcurves[0].keyframe_points] == keys
    bpy.context.scene.frame_set(9)
    assert arm["glow"] == 4.0
    assert (arm.matrix_world.translation - Vector((0.5, 0.0, 0.0))).length < 1e-7


@pytest.mark.parametrize("duplicate", ["linked", "without its action"])
def test_a_duplicate_of_a_baked_part_plays_its_own_keys(blender, duplicate: str) -> None:
    """A baked pendulum arm duplicated (Alt D, or Shift D with Duplicate Data's Action off:
    both leave the copy on the original's bake action) and hinged to the ground about
    world z, where gravity does not turn it; baked again: the original still swings as it
    did alone and the copy stays level, each object playing its own keys.  One action for
    both would leave both playing the last one written (the original stuck level, 1 m from
    its swing at the last frame).  Tolerance: both runs hold Tolerance 1e-9 (the pendulum's
    step sequence may differ with a second body in the run), so their keys agree to 1e-6 m."""
    import numpy as np
    bpy = blender
    d = bs.pendulum(bpy)
    arm, ground = d["arm"], d["ground"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    alone = bs.baked_pose(arm)[1]
    bs.select(bpy, [arm], arm)
    if duplicate == "linked":
        assert bpy.ops.object.duplicate_move_linked() == {"FINISHED"}
    else:
        bpy.context.preferences.edit.use_duplicate_action = False
        try:
            assert bpy.ops.object.duplicate_move() == {"FINISHED"}
        finally:
            bpy.context.preferences.edit.use_duplicate_action = True
    copy = bpy.context.active_object
    assert copy.mechanism.bake_action == arm.mechanism.bake_action
    bs.connect(bpy, copy, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Z")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert copy.mechanism.bake_action != arm.mechanism.bake_action
    np.testing.assert_allclose(bs.baked_pose(arm)[1], alone, rtol=0, atol=1e-6)
    level = np.tile([0.5, 0.0, 0.0], (len(alone), 1))
    np.testing.assert_allclose(bs.baked_pose(copy)[1], level, rtol=0, atol=1e-6)
    bpy.context.scene.frame_set(bs.FRAME_END)
    np.testing.assert_allclose(arm.matrix_world.translation, alone[-1], rtol=0, atol=1e-6)
    np.testing.assert_allclose(copy.matrix_world.translation, level[-1], rtol=0, atol=1e-6)


def test_apply_scale_on_a_baked_part_keeps_its_size_and_mass(blender) -> None:
    """The baked pendulum's arm (a unit cube scaled 1 x 0.1 x 0.1) gets Apply Scale (Ctrl A:
    its mesh takes the scale, its scale channel becomes 1): a re-bake reads the same
    10 kg arm (1000 kg/m^3 x 0.01 m^3) and bakes the same keys (1e-6 m: the applied mesh
    is a float32 rounding of the scaled one), and neither the bake nor Clear Bake puts
    the old scale back on the applied mesh (that left an arm 0.01 m thick of 0.1 kg)."""
    import numpy as np
    bpy = blender
    d = bs.pendulum(bpy)
    arm = d["arm"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = bs.baked_pose(arm)[1]
    bs.select(bpy, [arm], arm)
    assert bpy.ops.object.transform_apply(location=False, rotation=False, scale=True) == {"FINISHED"}
    assert tuple(arm.scale) == (1.0, 1.0, 1.0)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert arm.mechanism.computed_mass == pytest.approx(10.0, rel=1e-6)
    assert tuple(arm.scale) == (1.0, 1.0, 1.0)
    np.testing.assert_allclose(bs.baked_pose(arm)[1], first, rtol=0, atol=1e-6)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    bpy.context.view_layer.update()
    np.testing.assert_allclose(tuple(arm.dimensions), (1.0, 0.1, 0.1), rtol=1e-6)


def released_from(bpy, angle: float) -> tuple:
    """The pendulum's arm turned down by ``angle`` about its pin (world y through the
    origin) from its present pose, by its location and quaternion channels as a hand's
    move sets them (not keyed); returns its location."""
    from mathutils import Quaternion
    arm = bpy.context.scene.objects["arm"]
    arm.rotation_mode = "QUATERNION"
    q = Quaternion((0.0, 1.0, 0.0), angle)
    arm.rotation_quaternion = q @ arm.rotation_quaternion
    arm.location = q @ arm.location
    bpy.context.view_layer.update()
    return tuple(arm.location)


def designed_keys(bpy, angle: float) -> dict:
    """The keys of the pendulum designed (before any bake) released ``angle`` below level."""
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    bs.pendulum(bpy)
    released_from(bpy, angle)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    keys = bake_keys(bpy)["arm"]
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    return keys


def assert_same_keys(got: dict, want: dict) -> None:
    """Keys of two bakes of one pendulum from designs that agree to float32 rounding (the
    carried design is the saved float32 matrix times the move): 1e-6 of the 1 m arm, a
    16th of what the keys' own float32 rounding and a second's swing allow (measured
    6e-8, one float32 step)."""
    import numpy as np
    assert got.keys() == want.keys()
    for channel, keys in want.items():
        np.testing.assert_allclose([k[0] for k in got[channel]], [k[0] for k in keys], rtol=0,
                                   atol=1e-6, err_msg=str(channel))     # (frame, value) keys


def test_a_baked_part_moved_since_starts_the_next_bake_where_it_was_put(blender) -> None:
    """The baked pendulum's arm turned 0.5 rad down about its pin by hand (not keyed) at
    frame 1: a re-bake read the design saved before the first bake, so it dropped the move
    unseen and wrote the first bake's keys again.  The move is now carried into the design:
    the bake's keys are those of the pendulum designed 0.5 rad down, and Clear Bake puts
    the arm there in its own Euler mode.  Check names the move first.  A bake that fails
    (Analysis Kinematic, nothing driven) leaves the saved design as it was.  Baked again,
    a turn of 0.1 rad at frame 12 moves the design by 0.1 rad more: the keys of the
    pendulum designed 0.6 rad down."""
    import numpy as np
    bpy = blender
    want_05, want_06 = designed_keys(bpy, 0.5), designed_keys(bpy, 0.6)
    d = bs.pendulum(bpy)
    arm, scene = d["arm"], bpy.context.scene
    assert arm.rotation_mode == "XYZ"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = bake_keys(bpy)["arm"]
    moved = released_from(bpy, 0.5)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "part 'arm' was moved since its bake: at frame 1 it stands 0.2474 m and 28.6 degrees " \
        "off its keys" in scene.mechanism.report          # 2 x 0.5 m x sin(0.25), 0.5 rad
    saved = list(arm.mechanism.backup_matrix)
    scene.mechanism.analysis = "KINEMATIC"
    with pytest.raises(RuntimeError, match="kinematic analysis needs every degree of freedom"):
        bpy.ops.mechanism.bake()
    assert list(arm.mechanism.backup_matrix) == saved and bake_keys(bpy)["arm"] == first
    np.testing.assert_array_equal(tuple(arm.location), moved)
    scene.mechanism.analysis = "AUTO"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert_same_keys(bake_keys(bpy)["arm"], want_05)
    scene.frame_set(12)
    released_from(bpy, 0.1)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert_same_keys(bake_keys(bpy)["arm"], want_06)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert arm.rotation_mode == "XYZ"
    np.testing.assert_allclose(tuple(arm.rotation_euler), (0.0, 0.6, 0.0), rtol=0, atol=1e-6)
    np.testing.assert_allclose(tuple(arm.location), (0.5 * np.cos(0.6), 0.0, -0.5 * np.sin(0.6)),
                               rtol=0, atol=1e-6)


def test_a_baked_mechanism_duplicated_aside_bakes_where_it_stands(blender) -> None:
    """The baked slider-crank duplicated whole (Shift D: its parts' bake actions, flags and
    saved designs copied) and moved 1 m along y: its parts used to be read at the designs
    their copies carried, on top of the original, their joints to the moved block open by
    1 m (a note, and a run that starts by pulling them across).  The move is carried:
    the copy's piston is keyed along the slider-crank's closed form 1 m aside, the
    original's where it was, with no note, and Clear Bake leaves the copy aside."""
    import numpy as np
    bpy = blender
    d = bs.slider_crank(bpy)
    scene = bpy.context.scene
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bs.select(bpy, list(scene.objects), d["crank"])
    assert bpy.ops.object.duplicate_move(TRANSFORM_OT_translate={"value": (0.0, 1.0, 0.0)}) \
        == {"FINISHED"}
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert scene.mechanism.report == ""                  # no note of joints open at the start
    theta = 2 * np.pi * np.arange(25) / 24.0             # the crank's 2*pi*t, frames 1-25
    x = 0.1 * np.cos(theta) + np.sqrt(0.3**2 - (0.1 * np.sin(theta)) ** 2)
    for name, y in (("piston", 0.0), ("piston.001", 1.0)):
        _, loc, _ = bs.baked_pose(scene.objects[name])
        # keys are float32 (6e-8 relative): 1e-6 m leaves 16x margin
        np.testing.assert_allclose(loc, np.stack([x, 0 * x + y, 0 * x], axis=1), rtol=0,
                                   atol=1e-6, err_msg=name)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert scene.objects["piston.001"].location.y == pytest.approx(1.0, abs=1e-6)


def _moved_at_frame_12(bpy) -> None:
    """The pendulum baked, then at frame 12 its arm turned 0.1 rad down by hand."""
    bs.pendulum(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.scene.frame_set(12)
    released_from(bpy, 0.1)


def test_check_and_a_cancelled_bake_keep_a_move_made_away_from_the_first_frame(
        blender, extension) -> None:
    """A baked part moved by hand at frame 12: Check says a bake will carry the move, yet
    its reading at the first frame went there and back, which played the keys again and
    dropped the move, so the Bake after it started from the old design (the arm 0.1 rad
    off where it was put); an interrupted Bake (Esc, Ctrl C) dropped it the same way.  Now
    the scene is as it was after both (every object, key and setting), and the Bake after
    them writes the keys of a Bake made straight after the move, bit for bit (one
    deterministic run of the same model)."""
    bpy = blender
    _moved_at_frame_12(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    want = bake_keys(bpy)["arm"]
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    _moved_at_frame_12(bpy)
    snap = bs.snapshot(bpy, display=False)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "part 'arm' was moved since its bake: at frame 12" in bpy.context.scene.mechanism.report
    # Check refreshes the mass shown in the panel, read from the moved design as the next
    # Bake reads it (float32 rounding of the carried matrix: 10 kg shown as 9.999998)
    assert [d for d in bs.differences(snap, bs.snapshot(bpy, display=False))
            if "/report" not in d] == []
    snap = bs.snapshot(bpy)
    interrupt = importlib.import_module(f"{extension.__name__}.addon.background").INTERRUPT
    interrupt.set()                          # the solver stops at its first progress report
    try:
        assert bpy.ops.mechanism.bake() == {"CANCELLED"}
    finally:
        interrupt.clear()
    assert [d for d in bs.differences(snap, bs.snapshot(bpy)) if "/report" not in d] == []
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert bake_keys(bpy)["arm"] == want


@pytest.mark.parametrize("holder_on", ["yoke", "nothing"])
def test_a_curve_moved_by_an_untagged_parent_makes_the_bake_read_again(blender,
                                                                      holder_on: str) -> None:
    """The Scotch yoke's slot hangs under an untagged Empty (on the yoke, or on nothing,
    where the slot's own place is read); bake, then move that Empty 1 cm along x, which
    moves the slot the viewport draws: the next bake follows the moved slot, the yoke at
    r cos(theta) - 0.01 (it kept the first bake's reading of the slot, the yoke's keys
    unchanged, since moving an object no tagged object names was not seen)."""
    bpy = blender
    d = bs.scotch_yoke(bpy)
    holder = bs.empty(bpy, "slot holder")
    if holder_on == "yoke":
        bs.parent_to(bpy, holder, d["yoke"])
    bs.parent_to(bpy, d["slot"], holder)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    holder.location.x += 0.01
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, loc, _ = bs.baked_pose(d["yoke"])
    theta = 4 * np.pi * (frames - bs.FRAME_START) / 24            # YOKE_DRIVE, 24 fps
    # float32 keys of a 5 cm motion: 1e-7 m covers their rounding, 1e5 times below the move
    np.testing.assert_allclose(loc[:, 0], bs.YOKE_R * np.cos(theta) - 0.01, atol=1e-7)
