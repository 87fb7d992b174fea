"""Markers that follow a Blender object (the Marker's Follow), in real Blender: the marker's
origin held to the target's world location over the frame range, from the target's location
keys exactly or from its sampled motion (a Follow Path constraint) through a spline.  Scenes:
blender_scenes.py; the spline and the exact derivatives without Blender: test_io_follow.py."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest

import blender_scenes as bs
import follow_scenes as fs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def solved(extension, bpy):
    """(SceneMechanism, Result) of the scene as Bake reads and solves it (at its frames)."""
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    return sm, sm.mech.solve(duration=sm.duration, fps=sm.fps)


@pytest.mark.parametrize("relative_to", [False, True])
def test_a_marker_follows_a_keyed_straight_line_at_its_speed(blender, extension,
                                                             relative_to) -> None:
    """The XY table's tool follows an Empty keyed linearly from (0.1, -0.2, 0) at frame 1 to
    (0.7, 0.6, 0) at frame 25 (one second at 24 fps), along the world's x and y or along
    those of a marker on the ground turned 1 rad about z and moved off the origin (the same
    plane, other axes: the same motion), the scene's unit scale 0.5 m: the
    slide's origin is at the Empty in every baked frame, and the solved velocity is the
    line's, (0.6, 0.8) BU/s times 0.5 m/BU = (0.3, 0.4) m/s, at every frame.  The keys are
    evaluated exactly, so the only errors are the solver's Newton tolerance (1e-10 m) and
    float32 keys (1e-7 of a BU): 1e-6 leaves room for both."""
    bpy = blender
    d = fs.cross_slide(bpy)
    bpy.context.scene.unit_settings.scale_length = 0.5
    a, b = np.array([0.1, -0.2, 0.0]), np.array([0.7, 0.6, 0.0])
    target = fs.keyed_empty(bpy, "target", [(1, a), (25, b)])
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    if relative_to:
        datum = bs.add_marker(bpy, d["ground"], (0.3, -0.1, -0.3))
        datum.rotation_euler = (0.0, 0.0, 1.0)
        s.follow_relative_to = datum
    sm, result = solved(extension, bpy)
    t = result.times
    np.testing.assert_allclose(result.position("slide"), 0.5 * (a + np.outer(t, b - a)), atol=1e-6)
    np.testing.assert_allclose(result.velocity("slide"), np.tile([0.3, 0.4, 0.0], (len(t), 1)),
                               atol=1e-6)
    assert any("along its location keys, exactly" in n for n in sm.notes())
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, loc, _ = bs.baked_pose(d["slide"])
    np.testing.assert_allclose(loc, a + np.outer((frames - 1) / 24, b - a), atol=1e-6)


def test_a_marker_follows_an_object_on_a_follow_path_constraint(blender, extension) -> None:
    """The tool follows an Empty that a Follow Path constraint carries once round a circle of
    radius r = 0.3 in a second (a 720-point poly circle), sampled once a frame through a
    spline.  The reported fitting error, measured halfway between samples, is of the order
    of the cubic spline's bound h^4 (5/384) |p''''| (de Boor 1978, ch. IV) with h = 1/24 s
    and |p''''| = (2 pi)^4 r, 1.84e-5 m, and up to 2.5 times it in the end intervals
    (test_io_follow.py).  Solved at four times the frame rate (between
    the samples), the marker is on the closed form (r cos 2 pi t, r sin 2 pi t) within 1.25
    times that error (the midpoint is close to, not exactly, where the error peaks) plus the
    path's own departure from the circle (Blender sums its arc lengths in float32: up to
    5.4e-6 m at half a turn, measured; 1e-5 allowed); the velocity is the circle's, 2 pi r
    along the tangent, within the spline's slope error h^3 (2 pi)^4 r / 24 = 1.4e-3 m/s
    inside (2e-3 allowed), and in the first and last sample intervals, where the not-a-knot
    ends have no symmetric cancellation, h^3 (2 pi)^4 r / 6 = 5.6e-3 m/s (8e-3 allowed)."""
    bpy = blender
    d = fs.cross_slide(bpy)
    rider, _ = fs.circling_empty(bpy, 0.3)
    s = d["tool"].mechanism
    s.follow, s.follow_axes = rider, (True, True, False)
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    result = sm.mech.solve(duration=sm.duration, fps=4 * sm.fps)
    note, = [n for n in sm.notes() if "'rider'" in n]
    assert "through 25 samples" in note and "fitting error" in note
    _, error = sm.follows["tool: follow"]
    predicted = (1 / 24) ** 4 * 5 / 384 * (2 * math.pi) ** 4 * 0.3
    assert predicted / 2 < error < 2.5 * predicted
    w = 2 * math.pi
    t = result.times
    circle = 0.3 * np.column_stack([np.cos(w * t), np.sin(w * t), 0 * t])
    gap = np.linalg.norm(result.position("slide") - circle, axis=1)
    assert gap.max() <= 1.25 * error + 1e-5
    speed = 0.3 * w * np.column_stack([-np.sin(w * t), np.cos(w * t), 0 * t])
    slope_gap = np.linalg.norm(result.velocity("slide") - speed, axis=1)
    assert slope_gap[4:-4].max() < 2e-3 and slope_gap.max() < 8e-3


def test_a_two_link_arm_tip_follows_a_keyed_empty(blender, extension) -> None:
    """A planar two-link arm (upper 0.5, fore 0.4, elbow bent at 90 degrees as designed)
    whose tip follows an Empty keyed (Bezier, Blender's automatic handles) from the tip's
    start (0.5, 0.4) through (0.3, 0.6) to (0.6, 0.1) over frames 1-25, along x and y: at
    every baked frame the joint angles are the inverse kinematics' closed form for the
    Empty's location as Blender evaluates it (fcurve.evaluate): cos q2 = (x^2 + y^2 - a^2 -
    b^2) / (2 a b) on the elbow-left branch the arm starts in, q1 = atan2(y, x) - atan2(b sin
    q2, a + b cos q2), with q1 the upper link's angle and q2 the fore link's from it.  The
    keys are followed exactly: float32 keys and the bake's float32 rotations, 1e-5 rad."""
    bpy = blender
    d, target = fs.arm_following_a_path(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}, bpy.context.scene.mechanism.report
    fx, fy = (bs.channelbag(target).fcurves.find("location", index=i) for i in (0, 1))
    a, b = 0.5, 0.4
    for f in range(1, 26):
        bpy.context.scene.frame_set(f)
        x, y = fx.evaluate(f), fy.evaluate(f)
        q2 = math.acos((x * x + y * y - a * a - b * b) / (2 * a * b))
        q1 = math.atan2(y, x) - math.atan2(b * math.sin(q2), a + b * math.cos(q2))
        upper = np.array(d["upper"].matrix_world)[:3, 0]
        fore = np.array(d["fore"].matrix_world)[:3, 1]       # the fore link runs along its y
        got1 = math.atan2(upper[1], upper[0])
        got2 = math.atan2(fore[1], fore[0]) - got1
        assert abs(math.remainder(got1 - q1, 2 * math.pi)) < 1e-5, f"frame {f}"
        assert abs(math.remainder(got2 - q2, 2 * math.pi)) < 1e-5, f"frame {f}"


def test_save_and_reload_keeps_the_follow_settings(blender, tmp_path) -> None:
    """Follow, Relative To, Follow Axes and Samples per Frame are saved with the marker."""
    bpy = blender
    d = fs.cross_slide(bpy)
    target = fs.keyed_empty(bpy, "target", [(1, (0, 0, 0)), (25, (0.4, 0.2, 0))])
    ref = bs.add_marker(bpy, d["ground"], (0.0, 0.0, -0.3))
    ref.name = "datum"
    s = d["tool"].mechanism
    s.follow, s.follow_relative_to = target, ref
    s.follow_axes, s.follow_samples = (True, False, True), 3
    path = str(tmp_path / "follow.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=path)
    s = bpy.data.objects["tool"].mechanism
    assert s.follow.name == "target" and s.follow_relative_to.name == "datum"
    assert tuple(s.follow_axes) == (True, False, True) and s.follow_samples == 3


def test_a_deleted_follow_target_is_named(blender) -> None:
    """Deleting the followed object from the scene (the Delete operator) stops Check and
    Bake with a message naming the marker and the target; nothing is baked."""
    bpy = blender
    d = fs.cross_slide(bpy)
    target = fs.keyed_empty(bpy, "lead", [(1, (0, 0, 0)), (25, (0.4, 0.2, 0))])
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    bs.select(bpy, [target], target)
    assert bpy.ops.object.delete() == {"FINISHED"}
    with pytest.raises(RuntimeError, match="marker 'tool'.*'lead' was deleted"):
        bpy.ops.mechanism.check()
    with pytest.raises(RuntimeError, match="marker 'tool'.*'lead' was deleted"):
        bpy.ops.mechanism.bake()
    assert not d["slide"].mechanism.baked


def test_a_target_that_does_not_move_is_named(blender) -> None:
    """A Follow target with no animation (an Empty standing still) is refused by name, as is
    one whose keys all hold the same place."""
    bpy = blender
    d = fs.cross_slide(bpy)
    still = bs.empty(bpy, "post")
    s = d["tool"].mechanism
    s.follow, s.follow_axes = still, (True, True, False)
    with pytest.raises(RuntimeError, match="marker 'tool'.*'post' does not move over frames 1-25"):
        bpy.ops.mechanism.check()
    held = fs.keyed_empty(bpy, "held", [(1, (0.1, 0, 0)), (25, (0.1, 0, 0))])
    s.follow = held
    with pytest.raises(RuntimeError, match="marker 'tool'.*'held' does not move"):
        bpy.ops.mechanism.bake()


def test_a_marker_follows_a_target_riding_on_a_moving_part(blender, extension) -> None:
    """Relative To a marker on a moving part: the XY table's carriage is driven along x by
    0.2 sin(2 pi t); an Empty parented to the carriage is keyed linearly along its y from 0
    to 0.4 over the second; the tool follows it along the carriage marker's y.  The slide
    moves 0.4 t along y while the carriage moves it along x (the target's world path is the
    sum): its world position is (0.2 sin 2 pi t, 0.4 t) to the sampled line's rounding
    (float32 samples, 1e-6); a target that does not ride on the marker's part is refused
    by name."""
    bpy = blender
    d = fs.cross_slide(bpy)
    x = d["x"].mechanism
    x.motion_type, x.motion_expression = "EXPRESSION", "0.2*sin(2*pi*t)"
    rider = fs.keyed_empty(bpy, "rider", [(1, (0, 0, 0)), (25, (0, 0.4, 0))])
    bs.parent_to(bpy, rider, d["carriage"])
    on_carriage = bs.add_marker(bpy, d["carriage"], (0.0, 0.0, -0.1))
    s = d["tool"].mechanism
    s.follow, s.follow_relative_to, s.follow_axes = rider, on_carriage, (False, True, False)
    sm, result = solved(extension, bpy)
    t = result.times
    want = np.column_stack([0.2 * np.sin(2 * np.pi * t), 0.4 * t, 0 * t])
    np.testing.assert_allclose(result.position("slide"), want, atol=1e-6)
    assert any("location relative to" in n for n in sm.notes())
    loose = fs.keyed_empty(bpy, "loose", [(1, (0, 0, 0)), (25, (0, 0.4, 0))])
    s.follow = loose
    with pytest.raises(RuntimeError, match="marker 'tool'.*moves with part 'carriage'.*'loose' "
                                           "does not"):
        bpy.ops.mechanism.check()


def test_a_marker_follows_a_posed_bone(blender, extension) -> None:
    """Follow an armature with Bone set: the bone's head as posed, sampled.  The bone's pose
    location keyed linearly from (0.1, 0, 0) to (0.5, 0.3, 0) over the second (its pose axes
    are the world's) moves the head along that line at constant speed: the slide is on it
    at every frame (float32 samples, 1e-6) and the line's speed (0.4, 0.3) is the spline's
    slope exactly (a line is a cubic: the fitting error is float32 rounding); a bone the
    armature lacks is refused by name."""
    bpy = blender
    d = fs.cross_slide(bpy)
    a, b = np.array([0.1, 0.0, 0.0]), np.array([0.5, 0.3, 0.0])
    rig = fs.keyed_bone(bpy, "rig", "hand", [(1, a), (25, b)])
    s = d["tool"].mechanism
    s.follow, s.follow_bone, s.follow_axes = rig, "hand", (True, True, False)
    sm, result = solved(extension, bpy)
    t = result.times
    np.testing.assert_allclose(result.position("slide"), a + np.outer(t, b - a), atol=1e-6)
    np.testing.assert_allclose(result.velocity("slide"), np.tile(b - a, (len(t), 1)), atol=1e-5)
    assert any("'rig' (bone 'hand') through 25 samples" in n for n in sm.notes())
    s.follow_bone = "foot"
    with pytest.raises(RuntimeError, match="marker 'tool'.*'rig' has no bone 'foot'"):
        bpy.ops.mechanism.check()


def test_the_bake_writes_the_force_that_makes_the_follow(blender, extension) -> None:
    """The XY table's tool follows an Empty keyed (Bezier, automatic handles) from the origin
    to (0.6, 0.4, 0) over the second: the bake animates the tool's follow_force_x, _y (N,
    world axes) as the force that accelerates what the slide drags, (m_carriage + m_slide)
    a_x along x and m_slide a_y along y (gravity, along z, is the joints'), with a from
    Blender's own evaluation of the keys (fcurve.evaluate): second central differences over
    +-0.5 and +-0.25 frame, Richardson extrapolated (4 D(h/2) - D(h)) / 3, whose float32
    noise is about 1e-7 m / (0.25/24 s)^2 * 5/3, 2e-3 m/s^2, on accelerations of 2 m/s^2:
    0.5 % of the peak allowed.  Plot shows the four series; Clear Bake removes them."""
    bpy = blender
    d = fs.cross_slide(bpy)
    target = fs.keyed_empty(bpy, "target", [(1, (0, 0, 0)), (25, (0.6, 0.4, 0))], "BEZIER")
    s = d["tool"].mechanism
    s.follow, s.follow_axes = target, (True, True, False)
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    m_c, m_s = sm.mech.parts["carriage"].mass, sm.mech.parts["slide"].mass
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    tool = d["tool"]
    act = tool.mechanism.bake_action
    fx, fy = (bs.channelbag(target).fcurves.find("location", index=i) for i in (0, 1))
    accel = lambda fc, f: (lambda D: (4 * D(0.25) - D(0.5)) / 3)(         # noqa: E731
        lambda h: (fc.evaluate(f + h) - 2 * fc.evaluate(f) + fc.evaluate(f - h)) / (h / 24) ** 2)
    frames = np.arange(2, 25)
    want_x = np.array([(m_c + m_s) * accel(fx, f) for f in frames])
    want_y = np.array([m_s * accel(fy, f) for f in frames])
    got_x = bs.curve(tool, '["follow_force_x"]', action=act)[1:-1, 1]
    got_y = bs.curve(tool, '["follow_force_y"]', action=act)[1:-1, 1]
    np.testing.assert_allclose(got_x, want_x, atol=5e-3 * np.abs(want_x).max())
    np.testing.assert_allclose(got_y, want_y, atol=5e-3 * np.abs(want_y).max())
    assert np.abs(want_x).max() > 1.0
    bs.select(bpy, [tool], tool)
    shown = extension.addon.plotting.show_channels(tool)
    assert [fc.data_path for fc in shown] == [f'["follow_force{a}"]'
                                              for a in ("_x", "_y", "_z", "")]
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert "follow_force" not in tool.keys() and not tool.mechanism.baked


def test_check_says_which_follow_axis_over_drives(blender) -> None:
    """A planar arm's tip following x, y and z: z is fixed by the joints already, so Check
    reports the follow's z as over-driving and says to untick it in Follow Axes; Bake is
    refused with the same advice."""
    bpy = blender
    d = fs.two_link_arm(bpy)
    target = fs.keyed_empty(bpy, "target", [(1, (0.5, 0.4, 0)), (25, (0.4, 0.5, 0))])
    s = d["tip"].mechanism
    s.follow, s.follow_axes = target, (True, True, True)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert "motion 'tip: follow.z' drives a coordinate" in report
    assert "marker 'tip': untick z in its Follow Axes" in report
    with pytest.raises(RuntimeError, match="marker 'tip': untick z in its Follow Axes"):
        bpy.ops.mechanism.bake()


def _turn(axis, angle: float) -> np.ndarray:
    """The rotation matrix about the unit ``axis`` by ``angle`` (Rodrigues)."""
    n = np.asarray(axis, dtype=float)
    K = np.array([[0, -n[2], n[1]], [n[2], 0, -n[0]], [-n[1], n[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def _matrix4(R: np.ndarray):
    """A Blender 4x4 matrix turning by ``R`` at the origin."""
    from mathutils import Matrix
    return Matrix([list(R[0]) + [0.0], list(R[1]) + [0.0], list(R[2]) + [0.0], [0, 0, 0, 1.0]])


def _matrices(result, part: str) -> np.ndarray:
    """(n, 3, 3) a part's solved orientation matrices (world axes as columns)."""
    w, x, y, z = result.orientation(part).T
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)],
                    axis=1)


def _rotation_gap(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """(n,) the angle (rad) of the rotation D = A B^T between two series of rotations:
    atan2(|axial part|, (tr D - 1) / 2), well conditioned near zero (arccos of the cosine
    alone is not: float32 matrices would read 1e-4 rad for none)."""
    D = A @ np.swapaxes(B, -1, -2)
    s = np.stack([D[:, 2, 1] - D[:, 1, 2], D[:, 0, 2] - D[:, 2, 0], D[:, 1, 0] - D[:, 0, 1]], -1)
    return np.arctan2(np.linalg.norm(s, axis=1) / 2, (np.trace(D, axis1=1, axis2=2) - 1) / 2)


def test_a_marker_turns_with_keyed_euler_angles_about_a_tilted_axis(blender, extension) -> None:
    """A box on a spherical joint whose marker (turned to R0 = Rz(0.7) Ry(0.4) as designed)
    follows the rotation of an Empty in Euler mode XYZ keyed linearly in x from 0 to 2.5 pi
    over the second, y = 0.4 and z = 0.7 held: the Empty's world rotation is R0 Rx(w t) =
    Rot(n, w t) R0 with n = R0 x, w = 2.5 pi rad/s, a constant rate about a tilted axis,
    more than a turn (the angles unwrap).  The box turns by Rot(n, w t) at every frame and
    its angular velocity is w n.  The keys are followed exactly: float32 keys (2.5 pi to
    5e-7 rad) and the solver's Newton tolerance (1e-10) are the only errors; 1e-5 allowed."""
    bpy = blender
    d = fs.ball_on_ground(bpy)
    b, c, w = 0.4, 0.7, 2.5 * math.pi
    R0 = _turn((0, 0, 1), c) @ _turn((0, 1, 0), b)
    d["grip"].matrix_world = _matrix4(R0)
    target = fs.turning_empty(bpy, "spinner", "XYZ", [(1, (0.0, b, c)), (25, (w, b, c))])
    s = d["grip"].mechanism
    s.follow, s.follow_axes, s.follow_rotation = target, (False, False, False), (True, True, True)
    sm, result = solved(extension, bpy)
    assert any("turns with 'spinner' along its rotation keys, exactly" in n for n in sm.notes())
    n = R0[:, 0]
    want = np.stack([_turn(n, w * t) for t in result.times])
    assert _rotation_gap(_matrices(result, "ball"), want).max() < 1e-5
    np.testing.assert_allclose(result.angular_velocity("ball"), np.outer(np.ones(25), w * n),
                               atol=1e-5)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}, bpy.context.scene.mechanism.report
    grip = d["grip"]
    torque = result.general_motion_torque("grip: follow")
    baked = bs.curve(grip, '["follow_torque_x"]', action=grip.mechanism.bake_action)[:, 1]
    np.testing.assert_allclose(baked, torque[:, 0], atol=1e-6 * np.abs(torque).max())
    assert "follow_force" not in grip.keys() and np.abs(torque).max() > 1e-3


def test_a_marker_turns_with_keyed_quaternions_as_blender_plays_them(blender, extension) -> None:
    """An Empty in quaternion mode keyed (Bezier, automatic handles) from (1, 0, 0, 0)
    through (0.5, 0.5, -0.2, 0.6) to (0.2, -0.3, 0.8, 0.4), components not of unit length
    (Blender normalizes them): the box's orientation at every frame is the Empty's world
    rotation as Blender evaluates it (matrix_world), to float32 (1e-5 rad)."""
    bpy = blender
    d = fs.ball_on_ground(bpy)
    keys = [(1, (1.0, 0.0, 0.0, 0.0)), (13, (0.5, 0.5, -0.2, 0.6)), (25, (0.2, -0.3, 0.8, 0.4))]
    target = fs.turning_empty(bpy, "spinner", "QUATERNION", keys, "rotation_quaternion", "BEZIER")
    s = d["grip"].mechanism
    s.follow, s.follow_axes, s.follow_rotation = target, (False, False, False), (True, True, True)
    sm, result = solved(extension, bpy)
    assert any("along its rotation keys, exactly" in n for n in sm.notes())
    want = []
    for f in range(1, 26):
        bpy.context.scene.frame_set(f)
        want.append(np.array(target.matrix_world.to_3x3().normalized()))
    assert _rotation_gap(_matrices(result, "ball"), np.array(want)).max() < 1e-5


def test_a_marker_turns_with_a_parented_target_through_the_sampled_angles(blender,
                                                                          extension) -> None:
    """An Empty parented to a still Empty tilted by Rx(0.5) Ry(-0.3) and keyed to turn about
    its own z from 0 to 2 pi over the second: its world rotation P Rz(w t), a constant rate
    w = 2 pi about the tilted axis P z, sampled once a frame (a parent) and the angles b1,
    b2, b3 fitted by a spline after unwrapping.  Solved at four times the frame rate (between
    the samples), the box turns by P Rz(w t) P^T to within three times the reported fitting
    error (each angle's error adds at most its own to the rotation's) plus float32 samples
    (1e-5 rad)."""
    bpy = blender
    d = fs.ball_on_ground(bpy)
    holder = bs.empty(bpy, "holder")
    holder.rotation_euler = (0.5, -0.3, 0.0)
    P = _turn((0, 0, 1), 0.0) @ _turn((0, 1, 0), -0.3) @ _turn((1, 0, 0), 0.5)
    w = 2 * math.pi
    target = fs.turning_empty(bpy, "spinner", "XYZ", [(1, (0, 0, 0)), (25, (0, 0, w))])
    target.parent = holder
    d["grip"].matrix_world = _matrix4(P)
    s = d["grip"].mechanism
    s.follow, s.follow_axes, s.follow_rotation = target, (False, False, False), (True, True, True)
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    result = sm.mech.solve(duration=sm.duration, fps=4 * sm.fps)
    note, = [n for n in sm.notes() if "turns with 'spinner'" in n]
    assert "through 25 samples of its world rotation" in note
    error = math.radians(float(note.split("fitting error ")[1].split(" deg")[0]))
    assert 0 < error < 1e-3
    want = np.stack([_turn(P[:, 2], w * t) for t in result.times])
    assert _rotation_gap(_matrices(result, "ball"), want).max() <= 3 * error + 1e-5


@pytest.mark.parametrize("how", ["rotation keys", "sampled"])
def test_a_mirrored_target_turns_the_marker_with_its_drawn_axes(blender, extension, how) -> None:
    """An Empty mirrored by the scale (1, -1, 1), turning by its Euler keys (followed
    exactly) or by axis-angle keys (sampled): either way the box turns with the Empty's
    drawn z and x axes, y = z x x, as a mirrored marker's frame is read (a half turn about
    the drawn y apart would be the polar factor of the mirrored matrix, all three axes
    turned round).  At the frames the sampled angles are the samples themselves, so float32
    (1e-5 rad) is the only error."""
    bpy = blender
    d = fs.ball_on_ground(bpy)
    if how == "rotation keys":
        target = fs.turning_empty(bpy, "spinner", "XYZ", [(1, (0.1, 0.2, 0.3)), (25, (1.0, -0.6, 2.0))])
    else:
        target = fs.turning_empty(bpy, "spinner", "AXIS_ANGLE", [(1, (0.0, 0.3, 0.4, 0.5)),
                                                                 (25, (2.0, 0.3, 0.4, 0.5))],
                                  "rotation_axis_angle")
    target.scale = (1.0, -1.0, 1.0)
    s = d["grip"].mechanism
    s.follow, s.follow_axes, s.follow_rotation = target, (False, False, False), (True, True, True)
    sm, result = solved(extension, bpy)
    assert any(("exactly" if how == "rotation keys" else "samples") in n for n in sm.notes())
    want = []
    for f in range(bs.FRAME_START, bs.FRAME_END + 1):
        bpy.context.scene.frame_set(f)
        M = np.array(target.matrix_world.to_3x3())
        x, z = M[:, 0] / np.linalg.norm(M[:, 0]), M[:, 2] / np.linalg.norm(M[:, 2])
        want.append(np.stack([x, np.cross(z, x), z], axis=1))
    assert _rotation_gap(_matrices(result, "ball"), np.array(want)).max() < 1e-5


def test_a_followed_rotation_at_b2_ninety_degrees_is_named(blender) -> None:
    """An Empty in Euler mode ZYX (the matrix Rx Ry Rz, so its y angle is b2) keyed in y from
    0 to 90 degrees over frames 1-25: b2 reaches the body-fixed angles' singular pose at the
    last frame, and Bake stops with the solver's message naming the motion, b2 and the time,
    as the operator's error report; nothing is baked."""
    bpy = blender
    d = fs.ball_on_ground(bpy)
    target = fs.turning_empty(bpy, "tilter", "ZYX", [(1, (0, 0, 0)), (25, (0, math.pi / 2, 0))])
    s = d["grip"].mechanism
    s.follow, s.follow_axes, s.follow_rotation = target, (False, False, False), (True, True, True)
    with pytest.raises(RuntimeError, match=r"general motion 'grip: follow': b2 = 90 deg at t = 1 s"):
        bpy.ops.mechanism.bake()
    assert not d["ball"].mechanism.baked


def test_named_actuators_carry_the_follow_by_virtual_work(blender, extension) -> None:
    """The planar arm's tip follows a keyed Empty (Bezier) with Actuators "shoulder, elbow"
    (the joint objects' names): the bake writes each joint's torque as its motion_effort,
    and the follow's own force reads zero.  By virtual work the torques are the
    generalized forces of the force F that holds the tip without actuators (the same scene
    without the field): tau_shoulder = (z x p) . F, tau_elbow = (z x (p - e)) . F, with p
    the tip and e the elbow (both about world z, the joints' axes); float32 keys, 1e-6 of
    the largest torque.  A name that is not a joint is refused naming the marker."""
    bpy = blender
    d, target = fs.arm_following_a_path(bpy)
    s = d["tip"].mechanism
    _, free = solved(extension, bpy)
    F = free.general_motion("tip: follow")
    p = free.marker_frame("tip")[0]
    e = free.marker_frame(d["elbow"].mechanism.marker_i.name)[0]
    tau = np.column_stack([p[:, 0] * F[:, 1] - p[:, 1] * F[:, 0],
                           (p - e)[:, 0] * F[:, 1] - (p - e)[:, 1] * F[:, 0]])
    assert np.abs(tau).max() > 0.1
    s.follow_actuators = f"{d['shoulder'].name}, {d['elbow'].name}"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}, bpy.context.scene.mechanism.report
    for k, joint in enumerate((d["shoulder"], d["elbow"])):
        got = bs.curve(joint, '["motion_effort"]', action=joint.mechanism.bake_action)[:, 1]
        np.testing.assert_allclose(got, tau[:, k], atol=1e-6 * np.abs(tau).max())
    follow = bs.curve(d["tip"], '["follow_force"]', action=d["tip"].mechanism.bake_action)
    assert np.abs(follow[:, 1]).max() < 1e-9 * np.abs(F).max()
    s.follow_actuators = f"{d['shoulder'].name}, hydraulics"
    with pytest.raises(RuntimeError, match="marker 'tip': its Actuators name 'hydraulics', which "
                                           "is not a joint"):
        bpy.ops.mechanism.check()


def _slide_of(cylinder) -> float:
    """A prismatic joint's slide as the scene plays it: marker I's origin from marker J's
    along J's z."""
    s = cylinder.mechanism
    mi, mj = s.marker_i.matrix_world, s.marker_j.matrix_world
    return (mi.translation - mj.translation).dot(mj.to_3x3().normalized().col[2])


def _drive_by_strokes(bpy, cylinders) -> None:
    """Key each cylinder's Slide at every frame as the baked scene plays it and drive it by
    those keys, each segment the cubic of the C2 spline through the strokes (handles a
    third of a frame either side along its slopes)."""
    from solver import not_a_knot_slopes
    scene = bpy.context.scene
    frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=float)
    strokes = np.zeros((len(frames), len(cylinders)))
    for k, f in enumerate(frames):
        scene.frame_set(int(f))
        strokes[k] = [_slide_of(c) for c in cylinders]
    slopes = not_a_knot_slopes(frames, strokes)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    for i, c in enumerate(cylinders):
        s = c.mechanism
        s.motion_type, s.motion_coordinate = "KEYFRAMED", "SLIDE"
        for f, value in zip(frames, strokes[:, i]):
            s.motion_slide = value
            c.keyframe_insert("mechanism.motion_slide", frame=f)
        fc = bs.channelbag(c).fcurves.find("mechanism.motion_slide")
        for key, value, slope in zip(fc.keyframe_points, strokes[:, i], slopes[:, i]):
            key.handle_left_type = key.handle_right_type = "FREE"
            key.handle_left = (key.co[0] - 1 / 3, value - slope / 3)
            key.handle_right = (key.co[0] + 1 / 3, value + slope / 3)
    scene.frame_set(scene.frame_start)


def test_the_excavator_cylinders_carry_the_dig_path_in_one_bake(blender, extension,
                                                               monkeypatch) -> None:
    """The excavator sample: its bucket tip follows the keyed dig path with the boom and
    stick cylinders as Actuators, one bake.  Their forces equal those of driving the two
    cylinders by the strokes that bake found (keyed at every frame through a C2 spline) and
    reading their motion efforts: an independent solve by ordinary motions.  That spline's
    accelerations are off where the path's are not smooth (its Bezier keys at frames 37 and
    67, where the keyed acceleration jumps, and the spline's two ends), so those frames and
    three either side are left out; elsewhere the strokes' spline is off in acceleration by
    O(h^2) of the path's fourth derivative, measured within 40 N, 0.1 % of the boom's 44 kN:
    0.2 % of the peak allowed.  The boom pushes about 30 to 44 kN, the stick -7 to +1.5 kN."""
    bpy = blender
    import importlib
    monkeypatch.syspath_prepend(os.path.join(ROOT, "sample_scenes"))
    excavator = importlib.import_module("excavator")
    excavator.build()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}, bpy.context.scene.mechanism.report
    names = ("Boom cylinder", "Stick cylinder")
    cylinders = [bpy.data.objects[n] for n in names]
    one = [bs.curve(c, '["motion_effort_slide"]', action=c.mechanism.bake_action)[:, 1]
           for c in cylinders]
    _drive_by_strokes(bpy, cylinders)
    tip = bpy.data.objects["Bucket tip"].mechanism
    tip.follow, tip.follow_actuators = None, ""
    assert bpy.ops.mechanism.bake() == {"FINISHED"}, bpy.context.scene.mechanism.report
    two = [bs.curve(c, '["motion_effort_slide"]', action=c.mechanism.bake_action)[:, 1]
           for c in cylinders]
    frames = np.arange(1, 98)
    smooth = np.ones(len(frames), bool)
    for key in (1, 37, 67, 97):
        smooth &= np.abs(frames - key) > 3
    peak = np.abs(one[0]).max()
    for a, b in zip(one, two):
        np.testing.assert_allclose(a[smooth], b[smooth], atol=2e-3 * peak)
    assert 29e3 < one[0].min() and one[0].max() < 45e3
    assert -8e3 < one[1].min() < -6e3 and 1e3 < one[1].max() < 2e3


def _csv_columns(path) -> dict[str, np.ndarray]:
    """Header -> (n,) numbers of an Export CSV file."""
    header, *rows = [line.split(",") for line in path.read_text().splitlines()]
    return dict(zip(header, np.array(rows, dtype=float).T))


def test_export_csv_writes_the_follow_force_and_the_actuator_efforts(blender, extension,
                                                                      tmp_path) -> None:
    """The planar arm's tip following a keyed Empty: Export CSV has the follow's force,
    "tip follow_force_x_N", "_y_N", "_z_N" and "tip follow_force_N", equal to the solver's
    (written with 9 digits: 1e-8 of the peak); with Actuators "shoulder, elbow" it has
    "<joint> actuator_effort_Nm", equal to the virtual work of that force as the bake's
    motion_effort is (1e-6 of the peak), and the follow's force reads zero."""
    bpy = blender
    d, _ = fs.arm_following_a_path(bpy)
    s = d["tip"].mechanism
    _, free = solved(extension, bpy)
    F = free.general_motion("tip: follow")
    csv = tmp_path / "arm.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(csv)) == {"FINISHED"}
    cols = _csv_columns(csv)
    for k, c in enumerate("xyz"):
        np.testing.assert_allclose(cols[f"tip follow_force_{c}_N"], F[:, k], atol=1e-8 * np.abs(F).max())
    np.testing.assert_allclose(cols["tip follow_force_N"], np.linalg.norm(F, axis=1),
                               atol=1e-8 * np.abs(F).max())
    p = free.marker_frame("tip")[0]
    e = free.marker_frame(d["elbow"].mechanism.marker_i.name)[0]
    tau = np.column_stack([p[:, 0] * F[:, 1] - p[:, 1] * F[:, 0],
                           (p - e)[:, 0] * F[:, 1] - (p - e)[:, 1] * F[:, 0]])
    shoulder, elbow = d["shoulder"].name, d["elbow"].name
    s.follow_actuators = f"{shoulder}, {elbow}"
    assert bpy.ops.mechanism.export_csv(filepath=str(csv)) == {"FINISHED"}
    cols = _csv_columns(csv)
    for k, joint in enumerate((shoulder, elbow)):
        np.testing.assert_allclose(cols[f"{joint} actuator_effort_Nm"], tau[:, k],
                                   atol=1e-6 * np.abs(tau).max())
    assert np.abs(cols["tip follow_force_N"]).max() < 1e-9 * np.abs(F).max()
