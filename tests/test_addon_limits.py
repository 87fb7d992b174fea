"""Joint stops and friction in real Blender (bpy): a door built through the joint's
properties swings shut against its stop and is held there; a slide stop in a millimetre
scene; a motion driven through a stop and bad limits refused by name with the scene
unchanged; a dry hinge's friction; save, reload and re-bake; Clear Bake; the CSV; the
viewport's range lines.  Scenes: blender_scenes.py (door, pendulum).

Tolerances.  Keyframe values and float properties are float32 (unit round-off 6e-8).  The
hinge angle read from baked quaternion keys, 2 atan2(qz, qw), is off by at most about
2 sqrt(2) 6e-8 = 1.7e-7 rad (test_addon_couplers.py), so "never past the stop" is angle >=
-ANGLE_TOL = -2e-7 rad.  A stop's force at rest: the solver holds the resting angle at the
bound to 1e-12 rad (tests/test_limits.py), the door is still (no damping torque) and a
resting stop carries no friction, so the stop's torque is the closer's k (0 - free angle)
computed from the very float32 settings the solver read, to about 1e-12 relative; the keys
round it to float32, so 1e-6 relative (F32, a margin of 16).  Lengths in the millimetre scene
are compared to F32 of their size in Blender units.
"""
from __future__ import annotations

import csv
import math
import re
from collections import Counter

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_bake import F32, all_bake_keys, close, save_and_open

ANGLE_TOL = 2e-7            # rad: see the module docstring


def baked_prop(ob, prop: str) -> np.ndarray:
    """(n,) values of a custom property keyed by the bake (every frame of the range)."""
    k = bs.curve(ob, f'["{prop}"]', action=ob.mechanism.bake_action)
    scene = ob.users_scene[0]
    np.testing.assert_array_equal(k[:, 0], np.arange(scene.frame_start, scene.frame_end + 1))
    return k[:, 1]


def hinge_angle(door) -> np.ndarray:
    """(n,) the door's baked turn about world z from the closed pose (the hinge angle)."""
    _, _, q = bs.baked_pose(door)
    return 2.0 * np.arctan2(q[:, 3], q[:, 0])


def solve_scene(bpy, extension):
    """The scene read and solved again as Bake does (an independent run for comparison)."""
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    return sm, sm.mech.solve(times=sm.timeline.times, analysis="dynamic",
                             tolerance=extension.addon.io.settings.tolerance(bpy.context.scene.mechanism))


def test_door_shuts_against_its_stop_and_is_held(blender, extension, capfd) -> None:
    """Opened 80 deg, the closer swings the door shut: it bounces on the stop (restitution
    0.2) and comes to rest there.  The baked angle never passes the stop; once at rest
    the baked limit_force is the closer's torque k (0 - free angle); it is zero before the
    first impact; the Bake report gives the number of impacts."""
    bpy = blender
    d = bs.door(bpy)
    s = d["hinge"].mechanism
    capfd.readouterr()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    said = capfd.readouterr().out
    sm, r = solve_scene(bpy, extension)
    assert sm.limits == {f"{d['hinge'].name}: limit": (d["hinge"], "angle")}
    assert len(r.impacts) >= 2                                   # it bounces
    assert f"{len(r.impacts)} impact(s) at the stops" in said
    angle = hinge_angle(d["door"])
    assert angle[0] == pytest.approx(math.radians(bs.DOOR_OPEN), abs=1e-6)
    assert angle.min() >= -ANGLE_TOL
    frames = np.arange(1, 74)
    t = (frames - 1) / 24.0
    rest = t > r.impacts[-1][0] + 0.1                            # after the last bounce
    assert rest.sum() >= 20 and np.abs(angle[rest]).max() <= ANGLE_TOL
    force = baked_prop(d["hinge"], "limit_force")
    held = s.torsion_stiffness * (0.0 - s.torsion_free_angle)    # the settings as stored
    assert held == pytest.approx(bs.CLOSER_K * math.radians(-bs.CLOSER_FREE), rel=F32)
    np.testing.assert_allclose(force[rest], held, rtol=F32)
    assert np.all(force[t < r.impacts[0][0]] == 0.0)
    assert "friction_force" not in d["hinge"].keys()


def millimetre_slide(bpy, lower: float, drive: str | None = None) -> dict:
    """Unit scale 0.001 (Blender units are mm): a 20 mm block on a vertical prismatic joint
    (Connect, axis Z) at the origin above a ground post, a lower stop at ``lower`` mm,
    restitution 0; gravity 9810 mm/s^2 (9.81 m/s^2: the scene's gravity is in Blender units);
    ``drive``: a motion (m, expression of t) on the slide, and the analysis Kinematic."""
    bs.set_range(bpy)
    scene = bpy.context.scene
    scene.unit_settings.scale_length = 0.001
    scene.gravity = (0.0, 0.0, -9810.0)
    post = bs.add_box(bpy, "post", (20.0, 20.0, 20.0), (0.0, 0.0, -200.0))
    block = bs.add_box(bpy, "block", (20.0, 20.0, 20.0), (0.0, 0.0, 0.0))
    bs.tag(bpy, [post, block], "PART")
    post.mechanism.ground = True
    rail = bs.connect(bpy, block, post, (0.0, 0.0, 0.0), "PRISMATIC", "Z")
    s = rail.mechanism
    s.use_limit_lower, s.limit_lower_slide, s.limit_restitution = True, lower, 0.0
    if drive is not None:
        s.motion_type, s.motion_expression = "EXPRESSION", drive
        scene.mechanism.analysis = "KINEMATIC"
    return dict(post=post, block=block, rail=rail)


def test_slide_stop_in_millimetres(blender, extension) -> None:
    """A stop at -50 mm: the block falls (0.1 s for 50 mm at 9.81 m/s^2) and rests on it at
    z = -50 Blender units for the rest of the second, the stop carrying its weight m g
    (N).  Unconverted, the stop would be at -50 m and the block would fall 4905 mm."""
    bpy = blender
    d = millimetre_slide(bpy, -50.0)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    sm, r = solve_scene(bpy, extension)
    # -50 mm times the float32 unit scale (0.001 stored as 0.0010000000475)
    assert sm.mech.limits[f"{d['rail'].name}: limit"].lower == pytest.approx(-0.05, rel=F32)
    _, loc, _ = bs.baked_pose(d["block"])
    t = np.arange(25) / 24.0
    rest = t > 0.2
    close(loc[rest, 2], np.full(rest.sum(), -50.0), what="resting on the stop (Blender units)")
    assert loc[:, 2].min() >= -50.0 * (1 + F32)
    mass = d["block"].mechanism.computed_mass                   # kg, shown after the bake
    assert mass == pytest.approx(1000.0 * 0.02 ** 3, rel=1e-5)
    np.testing.assert_allclose(baked_prop(d["rail"], "limit_force")[rest], mass * 9.81, rtol=1e-5)


@pytest.mark.slow
def test_compliant_slide_stop_in_millimetres(blender, extension) -> None:
    """The same block on a compliant stop at -50 mm (k = 2e4 N/m^1.5, n = 1.5, damped
    with 50 N s/m from 0.5 mm): it settles into the stop where k delta^n = m g, delta =
    (m g / k)^(2/3) = 1.27 mm below -50 mm (penetration depth in the scene's millimetres,
    stiffness in SI), the stop's force m g.  The keys are float32 in Blender units, and the
    block is still to 1e-6 of its weight after a second (critically damped well before)."""
    bpy = blender
    d = millimetre_slide(bpy, -50.0)
    s = d["rail"].mechanism
    s.limit_model, s.limit_stiffness, s.limit_exponent = "COMPLIANT", 2e4, 1.5
    s.limit_damping, s.limit_penetration_slide = 50.0, 0.5
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    sm, _ = solve_scene(bpy, extension)
    lm = sm.mech.limits[f"{d['rail'].name}: limit"]
    assert (lm.stiffness, lm.exponent, lm.damping) == (2e4, 1.5, 50.0)
    assert lm.penetration == pytest.approx(0.5e-3, rel=F32)
    mass = d["block"].mechanism.computed_mass
    delta = (mass * 9.81 / 2e4) ** (1 / 1.5) * 1000.0            # mm
    _, loc, _ = bs.baked_pose(d["block"])
    assert loc[-1, 2] == pytest.approx(-50.0 - delta, rel=1e-5)
    assert baked_prop(d["rail"], "limit_force")[-1] == pytest.approx(mass * 9.81, rel=1e-5)


def test_a_bake_counts_impacts_only_where_a_stop_can_be_struck(blender, capfd) -> None:
    """A compliant stop pushes back as a force and a kinematic run has no impacts: a bake
    of either says nothing of "impact(s) at the stops" (a count of 0 read as if the block
    never reached its stop, though it rests in it; the kinematic run's slide is driven 10
    mm down, in range); a rigid stop's dynamic bake counts them (the block lands on its
    stop at -50 mm once, restitution 0)."""
    bpy = blender
    d = millimetre_slide(bpy, -50.0)
    s = d["rail"].mechanism
    s.limit_model, s.limit_stiffness, s.limit_exponent = "COMPLIANT", 2e4, 1.5
    s.limit_damping, s.limit_penetration_slide = 50.0, 0.5
    capfd.readouterr()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "impact" not in capfd.readouterr().out
    s.limit_model = "RIGID"
    s.motion_type, s.motion_expression = "EXPRESSION", "-0.01*t"    # 10 mm: in range
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "impact" not in capfd.readouterr().out
    s.motion_type = "NONE"
    bpy.context.scene.mechanism.analysis = "DYNAMIC"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "1 impact(s) at the stops" in capfd.readouterr().out


def test_motion_through_a_stop_is_refused_with_the_frame(blender) -> None:
    """The slide driven down at 0.2 m/s with its stop at -100 mm passes it after 0.5 s: the
    first frame past is 14 (13/24 s).  Bake reports the joint, the bound in metres and the
    scene frame, and leaves the scene as it was (an earlier bake with the stop out of reach,
    at -300 mm, stays)."""
    bpy = blender
    d = millimetre_slide(bpy, -300.0, drive="-0.2*t")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    d["rail"].mechanism.limit_lower_slide = -100.0
    before = bs.snapshot(bpy)
    name = re.escape(d["rail"].name)
    with pytest.raises(RuntimeError, match=f"limit '{name}: limit': joint '{name}' past its lower "
                                           r"bound -0\.1 m at t = 0\.541667 s \(frame 14\).*"
                                           r"\(the stops as their fields show them: lower -0\.1 m\)"):
        bpy.ops.mechanism.bake()
    assert bs.differences(before, bs.snapshot(bpy)) == []


def test_a_swing_past_a_stop_between_frames_is_refused_with_the_frames_around_it(blender) -> None:
    """The slide driven by -0.1003 sin(2 pi (t + 0.0208)) m tops out at -100.3 mm, past its
    stop at -100 mm, between scene frames 6 and 7 (5/24 and 6/24 s, both at -99.44 mm, in
    range).  Bake ran on through it; it is refused naming the joint, the instant it got
    there (sin = 0.1 / 0.1003: t = 0.216888 s, scene frame 6.2) and the scene's two frames
    around it, and the scene is left as it was."""
    bpy = blender
    d = millimetre_slide(bpy, -100.0, drive="-0.1003*sin(2*pi*(t + 0.0208))")
    before = bs.snapshot(bpy)
    name = re.escape(d["rail"].name)
    with pytest.raises(RuntimeError, match=f"limit '{name}: limit': joint '{name}' past its lower "
                                           r"bound -0\.1 m at t = 0\.21688\d s \(between frames 6 "
                                           r"and 7\): the motion drives it through its stop and back"):
        bpy.ops.mechanism.bake()
    assert bs.differences(before, bs.snapshot(bpy)) == []


def test_start_outside_the_range_is_refused_naming_the_joint(blender) -> None:
    """The block starts at 0 with its lower stop at +20 mm (above it): Bake refuses naming
    the limit, the joint and the bound in metres and in the scene's millimetres; nothing in
    the scene changes."""
    bpy = blender
    d = millimetre_slide(bpy, 20.0)
    bpy.context.scene.unit_settings.length_unit = "MILLIMETERS"     # as the fields show it
    before = bs.snapshot(bpy)
    name = re.escape(d["rail"].name)
    with pytest.raises(RuntimeError, match=f"starts outside a limit: limit '{name}: limit': "
                                           f"joint '{name}' past its lower bound 0\\.02 m "
                                           r"\(20 mm\) by 0\.02 m \(20 mm\) .*"
                                           r"fields show them: lower 20 mm\)"):
        bpy.ops.mechanism.bake()
    assert bs.differences(before, bs.snapshot(bpy)) == []


def test_lower_above_upper_names_the_joint(blender) -> None:
    """An upper stop at -10 deg below the lower at 0: Bake and Check refuse, naming the
    joint's limit and the bounds in degrees (as the fields show them, beside the solver's
    radians); the bake already there is untouched."""
    bpy = blender
    d = bs.door(bpy)
    bpy.context.scene.frame_end = 7
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    s = d["hinge"].mechanism
    s.use_limit_upper, s.limit_upper_angle = True, math.radians(-10.0)
    before = bs.snapshot(bpy)
    want = (f"limit '{re.escape(d['hinge'].name)}: limit': the lower bound 0 rad \\(0 deg\\) is "
            r"not below the upper -0.174533 rad \(-10 deg\)")
    with pytest.raises(RuntimeError, match=want):
        bpy.ops.mechanism.bake()
    with pytest.raises(RuntimeError, match=want):
        bpy.ops.mechanism.check()
    assert bs.differences(before, bs.snapshot(bpy)) == []


def test_friction_on_a_hinge(blender, extension) -> None:
    """The pendulum's pin with dry friction (pin radius 20 mm): the reader passes the
    coefficients and radius; the baked friction_force is the solver's friction torque
    (to float32) and opposes the swing wherever the arm turns faster than 0.5 rad/s."""
    bpy = blender
    d = bs.pendulum(bpy)
    s = d["pin"].mechanism
    s.use_joint_friction, s.friction_static, s.friction_dynamic, s.friction_radius = True, 0.3, 0.2, 0.02
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    sm, r = solve_scene(bpy, extension)
    fr = sm.mech.frictions[f"{d['pin'].name}: friction"]
    assert (fr.static, fr.dynamic, fr.radius) == pytest.approx((0.3, 0.2, 0.02), rel=F32)
    want = r.friction(f"{d['pin'].name}: friction")
    got = baked_prop(d["pin"], "friction_force")
    close(got, want, what="friction torque")
    assert np.abs(want).max() > 0.05                      # mu L r: 0.2 x ~100 N x 0.02 m
    # marker z along world +y (Connect axis Y): the joint angle's rate is the arm's w_y
    w = r.angular_velocity("arm")[:, 1]
    fast = np.abs(w) > 0.5
    assert fast.sum() > 10 and np.all(np.sign(got[fast]) == -np.sign(w[fast]))


@pytest.mark.slow
def test_friction_on_a_ball_joint(blender, extension, tmp_path) -> None:
    """The pendulum's pin made a spherical joint with dry friction (ball radius 20 mm): the
    reader passes it as friction on the joint's rotation; the baked friction_torque_x/y/z
    are the solver's torque in world axes (to float32): the arm swings about world y, so
    the torque lies along y (x and z below 1e-6 of it) and opposes the swing; the CSV has
    the same columns and the magnitude."""
    bpy = blender
    d = bs.pendulum(bpy)
    s = d["pin"].mechanism
    s.joint_kind = "SPHERICAL"
    s.use_joint_friction, s.friction_static, s.friction_dynamic, s.friction_radius = True, 0.3, 0.2, 0.02
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    sm, r = solve_scene(bpy, extension)
    name = f"{d['pin'].name}: friction"
    assert sm.mech.frictions[name].coordinate == "rotation"
    T = np.stack([baked_prop(d["pin"], f"friction_torque_{a}") for a in "xyz"], axis=1)
    want = extension.addon.io.plots.friction_series(r, name, d["pin"].name)
    for k, a in enumerate("xyz"):
        close(T[:, k], want[f"friction_torque_{a}"], what=f"friction torque {a}")
    close(baked_prop(d["pin"], "friction_torque"), want["friction_torque"], what="its size")
    size = np.abs(T[:, 1]).max()
    assert size > 0.05 and np.abs(T[:, [0, 2]]).max() < 1e-6 * size
    w = r.angular_velocity("arm")[:, 1]
    fast = np.abs(w) > 0.5
    assert fast.sum() > 10 and np.all(np.sign(T[fast, 1]) == -np.sign(w[fast]))
    assert bpy.ops.mechanism.export_csv(filepath=str(tmp_path / "ball.csv")) == {"FINISHED"}
    with open(tmp_path / "ball.csv") as fh:
        header = next(csv.reader(fh))
    assert [f"{d['pin'].name} friction_torque{a}_Nm" for a in ("_x", "_y", "_z", "")] == [
        h for h in header if "friction_torque" in h]


@pytest.mark.slow
def test_save_reload_rebake_csv_and_clear(blender, tmp_path) -> None:
    """A door with a dry hinge: bake, save, open: the keys are saved; Clear and bake again:
    the same keys bit for bit; the CSV has the stop's and the friction's columns equal to
    the baked keys (to float32); Clear Bake removes limit_force and friction_force."""
    bpy = blender
    d = bs.door(bpy)
    bpy.context.scene.frame_end = 37
    s = d["hinge"].mechanism
    s.use_joint_friction, s.friction_static, s.friction_dynamic, s.friction_radius = True, 0.2, 0.15, 0.01
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = all_bake_keys(bpy)
    hinge = d["hinge"].name
    assert {'["limit_force"]', '["friction_force"]'} <= {path for _, path, _ in first[hinge]}
    save_and_open(bpy, str(tmp_path / "door.blend"))
    assert all_bake_keys(bpy) == first
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    ob = bpy.data.objects[hinge]
    assert not {"limit_force", "friction_force", "reaction_force"} & set(ob.keys())
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first
    path = str(tmp_path / "door.csv")
    assert bpy.ops.mechanism.export_csv(filepath=path) == {"FINISHED"}
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    for prop in ("limit_force", "friction_force"):
        col = rows[0].index(f"{hinge} {prop}_Nm")
        close([float(row[col]) for row in rows[1:]], baked_prop(ob, prop), what=prop)
    assert np.abs(baked_prop(ob, "friction_force")).max() > 0.01
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not {"limit_force", "friction_force"} & set(ob.keys())


def scene_marks(bpy) -> Counter:
    """The scene's timeline markers as a multiset of (name, frame)."""
    return Counter((m.name, m.frame) for m in bpy.context.scene.timeline_markers)


@pytest.mark.slow
def test_impacts_and_friction_events_become_timeline_markers(blender, extension, tmp_path) -> None:
    """A door with a dry hinge bounces on its stop: Bake puts a marker "impact: <hinge>" at
    the frame nearest each impact of an independent run and "<kind>: <hinge>" at each
    friction event's (round(1 + 24 t)); the user's own markers (one named as a bake's,
    at another frame) stay.  A re-bake replaces the markers (not one more), they survive
    save and reload, and Clear Bake removes them but the one the user moved and the
    user's own.  Export CSV writes the events beside the file, each impact's instant as
    a run of the reloaded scene has it, to the 12 digits written (the reloaded scene's
    placements come back through float32, so its instants differ from the first run's by
    about 1e-8 s)."""
    bpy = blender
    d = bs.door(bpy)
    bpy.context.scene.frame_end = 49
    s = d["hinge"].mechanism
    s.use_joint_friction, s.friction_static, s.friction_dynamic, s.friction_radius = True, 0.2, 0.15, 0.01
    hinge = d["hinge"].name
    markers = bpy.context.scene.timeline_markers
    mine = Counter({("key pose", 5): 1, (f"impact: {hinge}", 2): 1})
    for name, frame in mine:
        markers.new(name, frame=frame)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, r = solve_scene(bpy, extension)
    assert len(r.impacts) >= 2 and r.friction_events
    at = lambda t: int(math.floor(1 + 24.0 * t + 0.5))        # the nearest frame
    baked = Counter([(f"impact: {hinge}", at(hit.time)) for hit in r.impacts] +
                    [(f"{kind}: {hinge}", at(t)) for t, _, kind in r.friction_events])
    assert scene_marks(bpy) == mine + baked
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert scene_marks(bpy) == mine + baked
    save_and_open(bpy, str(tmp_path / "door.blend"))
    assert scene_marks(bpy) == mine + baked
    markers = bpy.context.scene.timeline_markers
    moved = next(m for m in markers if m.name.startswith("impact") and m.frame != 2)
    moved.frame = 48
    path = str(tmp_path / "door.csv")
    assert bpy.ops.mechanism.export_csv(filepath=path) == {"FINISHED"}
    with open(tmp_path / "door_events.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    _, again = solve_scene(bpy, extension)
    assert len(rows) - 1 == sum(len(hit.limits) for hit in again.impacts) + len(again.friction_events)
    hits = [row for row in rows[1:] if row[2] == "impact"]
    assert [float(row[1]) for row in hits] == [float(f"{hit.time:.12g}") for hit in again.impacts]
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert scene_marks(bpy) == mine + Counter({(moved.name, 48): 1})


def test_range_lines_at_marker_j(blender, extension) -> None:
    """The viewport draws the selected hinge's range at marker J: an arc of the marker's
    display size from the lower bound (0: along x_J) round to pi, and a stroke at 0; a
    joint without stops draws nothing."""
    bpy = blender
    d = bs.door(bpy)
    draw = extension.addon.draw
    mj = d["hinge"].mechanism.marker_j
    M = np.array(mj.matrix_world, dtype=float)
    v = draw.selected_limit_lines([d["hinge"], d["door"]]).astype(float)
    r = mj.empty_display_size
    np.testing.assert_allclose(v[0], M[:3, 3] + r * M[:3, 0] / np.linalg.norm(M[:3, 0]), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(v[:-2] - M[:3, 3], axis=1), r, rtol=1e-6)
    np.testing.assert_allclose(v[-1], M[:3, 3] + 1.25 * r * M[:3, 0] / np.linalg.norm(M[:3, 0]), atol=1e-6)
    d["hinge"].mechanism.use_limit_lower = False
    assert draw.selected_limit_lines([d["hinge"]]).shape == (0, 3)


def test_panel_shows_the_limits_and_friction_boxes(blender) -> None:
    """A revolute joint: the stops' switches and angle bounds, restitution once a stop is
    on, the friction switch and, once on, its fields; the bounds red when the lower is not
    below the upper, the pin radius red at 0; a prismatic joint: slide bounds; a cylindrical
    joint: the coordinate choices; a spherical joint: the friction box with the ball's radius
    only; a universal joint: neither box."""
    bpy = blender
    d = bs.door(bpy)
    bs.select(bpy, [d["hinge"]], d["hinge"])
    s = d["hinge"].mechanism

    def props() -> dict:
        return {i[1]: i[2] for i in bs.panel_items(bpy, "VIEW3D_PT_mechanism_object") if i[0] == "prop"}

    got = props()
    assert {"use_limit_lower", "limit_lower_angle", "use_limit_upper", "limit_upper_angle",
            "limit_restitution", "use_joint_friction"} <= got.keys()
    assert not {"limit_lower_slide", "limit_coordinate", "friction_static"} & got.keys()
    s.use_limit_upper, s.limit_upper_angle = True, -0.1
    assert props()["limit_lower_angle"] is True and props()["limit_upper_angle"] is True
    s.use_joint_friction = True
    got = props()
    assert {"friction_static", "friction_dynamic", "friction_transition_speed", "friction_viscous",
            "friction_preload", "friction_radius", "friction_arm", "friction_bearing_length"} <= got.keys()
    assert got["friction_radius"] is True
    s.friction_radius = 0.01
    assert props()["friction_radius"] is False
    s.joint_kind = "PRISMATIC"
    assert {"limit_lower_slide", "limit_upper_slide"} <= props().keys()
    s.joint_kind = "CYLINDRICAL"
    assert {"limit_coordinate", "friction_coordinate"} <= props().keys()
    s.joint_kind = "SPHERICAL"
    got = props()
    assert "use_limit_lower" not in got and {"use_joint_friction", "friction_radius"} <= got.keys()
    assert not {"friction_arm", "friction_bearing_length", "friction_coordinate"} & got.keys()
    s.joint_kind = "UNIVERSAL"
    assert not {"use_limit_lower", "use_joint_friction"} & props().keys()


def test_kinematic_bake_bakes_the_friction(blender, extension) -> None:
    """A driven slide with friction bakes kinematically, gravity sideways (9.81 m/s^2 along
    x) so the slide's reaction m g is the friction's load: friction_force is baked, equal to
    an independent solve of the scene to float32 precision, and it is mu_d m g against the
    downward drive (positive: up the slide), the motion's effort carrying it."""
    bpy = blender
    d = millimetre_slide(bpy, -300.0, drive="-0.2*t")
    bpy.context.scene.gravity = (9810.0, 0.0, 0.0)
    s = d["rail"].mechanism
    s.use_joint_friction, s.friction_static, s.friction_dynamic = True, 0.3, 0.2
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    r = sm.mech.solve(times=sm.timeline.times, analysis="kinematic")
    name = next(iter(sm.frictions))
    got = baked_prop(d["rail"], "friction_force")
    np.testing.assert_allclose(got, r.friction(name), rtol=1e-6, atol=1e-12)
    mass = sm.mech.parts["block"].mass
    assert r.analysis == "kinematic"
    np.testing.assert_allclose(got[1:], 0.2 * mass * 9.81, rtol=1e-5)


def test_stops_left_on_a_joint_changed_to_spherical_are_named(blender) -> None:
    """The door's hinge with its stops changed to a spherical joint: the panel hides the
    stops and the solver gets none; Check says so, naming the joint."""
    bpy = blender
    d = bs.door(bpy)
    s = d["hinge"].mechanism
    s.use_limit_lower, s.joint_kind, s.torsion = True, "SPHERICAL", False
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert (f"joint '{d['hinge'].name}': its stops are on, but a spherical joint has no angle "
            "or slide to stop: they are not used") in bpy.context.scene.mechanism.report


@pytest.mark.parametrize("kind,torsion,said", [
    ("PRISMATIC", True, "its torsion spring is on, but a prismatic joint has no angle to wind"),
    ("SPHERICAL", False, "its motion is on, but a spherical joint has no angle or slide to drive")])
def test_a_torsion_spring_or_motion_left_on_a_joint_changed_in_kind_is_named(
        blender, kind: str, torsion: bool, said: str) -> None:
    """The pendulum's pin with a torsion spring (or a motion) on, changed to a kind without
    an angle (or any coordinate): the panel hides the setting, and Check and Bake refused
    with the solver's "torsion spring '<pin>: torsion spring': joint '<pin>' is prismatic",
    which the hidden checkbox could not answer. As stops and friction left on, the setting
    is not used and Check says so, naming the joint."""
    bpy = blender
    pin = bs.pendulum(bpy)["pin"]
    s = pin.mechanism
    if torsion:
        s.torsion, s.torsion_stiffness = True, 5.0
    else:
        s.motion_type = "EXPRESSION"
    s.joint_kind = kind
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert (f"joint '{pin.name}': {said}: it is not used (untick it, or change its Kind)"
            in bpy.context.scene.mechanism.report), bpy.context.scene.mechanism.report
