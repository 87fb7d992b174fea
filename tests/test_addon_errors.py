"""Every error of the add-on's Bake is raised from the operator with a message that names the
object or joint (and the frame of a lock-up), and leaves the scene exactly as it was: each
scene is baked successfully first, then broken, and a snapshot of every object's matrices,
custom properties, mechanism settings, actions, NLA tracks and keyframes (blender_scenes.
snapshot) is compared before and after the failed operator.  Real bpy."""
from __future__ import annotations

import re
from typing import Callable

import pytest

import blender_scenes as bs


def baked(bpy, build: Callable, **kw) -> dict:
    """Build a scene with ``build`` and bake frames 1-7 (the bake must survive the error)."""
    d = build(bpy, **kw)
    bpy.context.scene.frame_end = 7
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    return d


def loose_marker(bpy) -> None:
    baked(bpy, bs.pendulum)
    bs.tag(bpy, [bs.empty(bpy, "loose")], "MARKER")


def marker_on_untagged(bpy) -> None:
    baked(bpy, bs.pendulum)
    deco = bs.add_box(bpy, "decoration", (0.1, 0.1, 0.1), (2.0, 0.0, 0.0))
    bs.empty(bpy, "loose", parent=deco).mechanism.role = "MARKER"


def removed_marker(bpy) -> None:
    d = baked(bpy, bs.pendulum)
    bpy.data.objects.remove(d["pin"].mechanism.marker_i)


def unlinked_marker(bpy) -> None:
    d = baked(bpy, bs.pendulum)
    bpy.context.scene.collection.objects.unlink(d["pin"].mechanism.marker_j)


def unlinked_part(bpy) -> None:
    """The arm taken out of the scene (its collection link removed), its markers kept."""
    d = baked(bpy, bs.pendulum)
    bpy.context.scene.collection.objects.unlink(d["arm"])


def nan_speed(bpy) -> None:
    """The pin driven at a constant Speed that a script set to NaN."""
    d = baked(bpy, bs.pendulum)
    s = d["pin"].mechanism
    s.motion_type, s.motion_coordinate, s.motion_speed = "SPEED", "ANGLE", float("nan")


def one_part_joint(bpy) -> None:
    d = baked(bpy, bs.pendulum)
    tip = bs.add_marker(bpy, d["arm"], (1.0, 0.0, 0.0))
    bs.new_joint(bpy, "same", "SPHERICAL", tip, d["pin"].mechanism.marker_i)


def unassemblable(bpy) -> None:
    """The arm's tip (1 m from the pin) held at a ground point 3 m from the pin."""
    d = baked(bpy, bs.pendulum)
    tip = bs.add_marker(bpy, d["arm"], (1.0, 0.0, 0.0))
    far = bs.add_marker(bpy, d["ground"], (3.0, 0.0, 0.0))
    bs.new_joint(bpy, "far", "SPHERICAL", tip, far)


def lock_up(bpy) -> None:
    """Crank 0.3 longer than rod 0.1: at 2 pi t the rod cannot reach once 0.3 sin(theta) > 0.1,
    theta > 19.5 deg, first at t = 2/24 (30 deg), scene frame 3 (frames 1-2 bake fine)."""
    bs.slider_crank(bpy, crank=0.3, rod=0.1)
    bpy.context.scene.frame_end = 2
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.scene.frame_end = bs.FRAME_END


def friction_jam(bpy) -> None:
    """A crosshead: crank 0.2, rod 0.25 (the rod leans up to 53 degrees), dry friction 0.9 on
    the piston's guide: past tan(phi) = 1 / 0.9 with the rod pushing along the motion no
    friction solves the equations (solver: tests/test_friction.py's crosshead) and the sweep
    stops with a jam that names the friction and the frame."""
    d = baked(bpy, bs.slider_crank, crank=0.2, rod=0.25)
    s = d["cylinder"].mechanism
    s.use_joint_friction, s.friction_static, s.friction_dynamic = True, 0.9, 0.9
    bpy.context.scene.frame_end = bs.FRAME_END        # a whole turn


def unsafe_expression(bpy) -> None:
    d = baked(bpy, bs.slider_crank)
    d["main"].mechanism.motion_expression = "__import__('os')"


def spring_without_markers(bpy) -> None:
    d = bs.pendulum(bpy)
    a = bs.add_marker(bpy, d["arm"], (1.0, 0.0, 0.0))
    b = bs.add_marker(bpy, d["ground"], (1.0, 0.0, 1.0))
    bs.new_spring(bpy, "spring", a, b, stiffness=100.0)
    bpy.context.scene.frame_end = 7
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.data.objects.remove(a)
    bpy.data.objects.remove(b)


def flat_part(bpy) -> None:
    baked(bpy, bs.pendulum)
    bpy.ops.mesh.primitive_plane_add(size=1.0, location=(0.0, 0.0, 2.0))
    plane = bpy.context.active_object
    plane.name = "sheet"
    bs.tag(bpy, [plane], "PART")
    plane.mechanism.mass_mode = "MESH"


def no_density(bpy) -> None:
    """A density of 0 (or typed below 0: the property stops at 0) is
    refused, not stored as a tiny positive density."""
    d = baked(bpy, bs.pendulum)
    d["arm"].mechanism.density = -5.0


def no_mass(bpy) -> None:
    """A typed-in mass of 0 (or typed below 0: the property stops at 0) is refused by the
    part's name, not baked as a 1e-12 kg part."""
    d = baked(bpy, bs.pendulum)
    d["arm"].mechanism.mass_mode = "MANUAL"
    d["arm"].mechanism.mass = -1.0


def keyed_motion_modifier(bpy, kind: str, **settings) -> None:
    """The keyed pendulum baked, then an F-curve modifier of ``kind`` added to its pin's
    keyed Angle with ``settings``."""
    d = baked(bpy, bs.keyed_pendulum)
    fc = bs.channelbag(d["pin"]).fcurves.find("mechanism.motion_angle")
    modifier = fc.modifiers.new(kind)
    for key, value in settings.items():
        setattr(modifier, key, value)


def noisy_keys(bpy) -> None:
    keyed_motion_modifier(bpy, "NOISE", strength=0.3)


def half_cycles(bpy) -> None:
    keyed_motion_modifier(bpy, "CYCLES", use_influence=True, influence=0.5)


def limited_arm(bpy) -> None:
    """A Limit Location constraint on the arm (z at least -0.05 m): the baked keys would
    swing the arm to -0.5 m, and the constraint would hold it at -0.05 m."""
    d = baked(bpy, bs.pendulum)
    c = d["arm"].constraints.new("LIMIT_LOCATION")
    c.use_min_z, c.min_z = True, -0.05


def switched_on_constraint(bpy, by: str) -> None:
    """A Copy Location constraint on the arm, off at frame 1 (influence 0, or muted) and
    switched on later by keys on its influence or mute, or by a driver on its influence:
    from then on it would hold the arm at the target, whatever the baked keys say."""
    d = baked(bpy, bs.pendulum)
    arm = d["arm"]
    target = bs.empty(bpy, "target")
    target.location = (0.5, 0.0, 0.3)
    c = arm.constraints.new("COPY_LOCATION")
    c.target = target
    path = c.path_from_id()
    if by == "driver":
        c.driver_add("influence").driver.expression = "0 if frame < 10 else 1"
    else:
        for frame, on in ((1, False), (13, True)):
            if by == "influence":
                c.influence = float(on)
            else:
                c.mute = not on
            arm.keyframe_insert(f"{path}.{by}", frame=frame)
    bpy.context.scene.frame_set(1)
    assert not (not c.mute and c.influence > 0.0)          # off at the frame shown


def growing_arm(bpy, by: str) -> None:
    """The baked arm's scale keyed from 1 to 2 along x over the frames, or driven so: the
    arm is solved at its design size, and the pin's marker I, half the arm's length from
    its centre along x, would ride the scale 0.5 m away from the pin by the last frame (a
    scale keyed along y or z, which leaves the marker where it is, plays beside the bake:
    test_addon_bake.py's user animation)."""
    arm = baked(bpy, bs.pendulum)["arm"]
    if by == "driver":
        arm.driver_add("scale", 0).driver.expression = "1 + (frame - 1) / 24"
        return
    for frame, sx in ((1, 1.0), (25, 2.0)):
        arm.scale.x = sx
        arm.keyframe_insert("scale", index=0, frame=frame)
    bpy.context.scene.frame_set(1)


def rigid_arm(bpy) -> None:
    """Active Rigid Body physics on the arm: the simulation, not the keys, would place it."""
    d = baked(bpy, bs.pendulum)
    bs.select(bpy, (d["arm"],), d["arm"])
    assert bpy.ops.rigidbody.object_add(type="ACTIVE") == {"FINISHED"}


def rigid_arm_handed_off(bpy) -> None:
    """Active Rigid Body physics on the arm with Animated ticked at frame 1 and keyed off at
    frame 10 (an animated-to-simulated hand-off): from frame 10 the simulation would place
    it, though at the frame shown it follows its keys."""
    d = baked(bpy, bs.pendulum)
    arm = d["arm"]
    bs.select(bpy, (arm,), arm)
    assert bpy.ops.rigidbody.object_add(type="ACTIVE") == {"FINISHED"}
    for frame, animated in ((1, True), (10, False)):
        arm.rigid_body.kinematic = animated
        arm.keyframe_insert("rigid_body.kinematic", frame=frame)
    bpy.context.scene.frame_set(1)
    assert arm.rigid_body.kinematic


def keyed_torsion_spring(bpy) -> None:
    """The pin's torsion spring keyed from 0 at frame 1 to 50 N m/rad at frame 7: a bake
    takes each setting as one number, so which one would depend on the frame shown."""
    d = baked(bpy, bs.pendulum)
    pin = d["pin"]
    pin.mechanism.torsion = True
    for frame, k in ((1, 0.0), (7, 50.0)):
        pin.mechanism.torsion_stiffness = k
        pin.keyframe_insert("mechanism.torsion_stiffness", frame=frame)


def sampled_ground(bpy) -> None:
    """``keyed_ground`` with its keys converted to samples (Keys to Samples), which play
    the same slide but are no keyframes: not named before, so the arm parted from it."""
    keyed_ground(bpy)
    ground = bpy.context.scene.objects["ground"]
    bs.channelbag(ground).fcurves.find("location", index=0).convert_to_samples(1, 7)


def keyed_ground(bpy) -> None:
    """The ground part keyed to slide 1 m along x between frames 1 and 7: the arm, solved
    about the pin where the ground stands at the design pose, would part from it."""
    d = baked(bpy, bs.pendulum)
    ground = d["ground"]
    for frame, x in ((1, 0.0), (7, 1.0)):
        ground.location.x = x
        ground.keyframe_insert("location", index=0, frame=frame)
    bpy.context.scene.frame_set(1)


def ground_on_a_path(bpy) -> None:
    """A Follow Path constraint on the ground part: it moves it, as keys would."""
    d = baked(bpy, bs.pendulum)
    bpy.ops.curve.primitive_bezier_circle_add(radius=1.0)
    c = d["ground"].constraints.new("FOLLOW_PATH")
    c.target = bpy.context.active_object


def keyed_marker(bpy) -> None:
    """The pin's ground marker keyed 0.2 m along x between frames 1 and 7: read where it
    is at the frame shown, the bake would depend on that frame."""
    d = baked(bpy, bs.pendulum)
    marker = d["pin"].mechanism.marker_j
    marker.keyframe_insert("location", index=0, frame=1)
    marker.location.x += 0.2
    marker.keyframe_insert("location", index=0, frame=7)
    bpy.context.scene.frame_set(1)


def keyed_gravity(bpy) -> None:
    """The scene's gravity keyed from -9.81 at frame 1 to -1 at frame 7."""
    baked(bpy, bs.pendulum)
    scene = bpy.context.scene
    for frame, g in ((1, -9.81), (7, -1.0)):
        scene.gravity = (0.0, 0.0, g)
        scene.keyframe_insert("gravity", index=2, frame=frame)


def gravity_on_a_strip(bpy) -> None:
    """``keyed_gravity``'s keys pushed down to an NLA strip of the scene (its action
    cleared), which plays them just the same (a bake took the first frame's -9.81 with no
    word before this was named)."""
    keyed_gravity(bpy)
    ad = bpy.context.scene.animation_data
    ad.nla_tracks.new().strips.new("fall", 1, ad.action)
    ad.action = None


def keyed_constant(bpy) -> None:
    """A second Constant "amp" keyed from 0.5 at frame 1 to 1.5 at frame 7, the pin driven
    by amp*sin(2*pi*t) (its line said "Value (mechanism.constants[1].value)", not which
    constant)."""
    baked(bpy, bs.pendulum)
    scene = bpy.context.scene
    for name in ("omega", "amp"):
        assert bpy.ops.mechanism.constant_add() == {"FINISHED"}
        scene.mechanism.constants[-1].name = name
    for frame, value in ((1, 0.5), (7, 1.5)):
        scene.mechanism.constants[1].value = value
        scene.keyframe_insert("mechanism.constants[1].value", frame=frame)
    pin = scene.objects[PIN].mechanism
    pin.motion_type, pin.motion_expression = "EXPRESSION", "amp*sin(2*pi*t)"


PIN, MOTOR = "Revolute arm-ground", "Revolute crank-block"
CASES = {  # name: (break a baked scene, match (names the item), more patterns, read-time error)
    "marker not parented": (loose_marker, r"marker 'loose' is not parented to a part", [], True),
    "marker on a non-part": (marker_on_untagged, r"marker 'loose' is not parented to a part", [], True),
    "marker removed": (removed_marker, rf"joint '{PIN}': marker I is not set", [], True),
    "marker unlinked": (unlinked_marker, rf"joint '{PIN}': marker J 'ground.arm.J' was deleted", [],
                        True),
    "part unlinked": (unlinked_part, r"marker 'arm.ground.I': its part 'arm' is not in the "
                      r"scene", [r"link the part back"], True),
    "speed not a number": (nan_speed, rf"joint '{PIN}': its motion's Speed is nan: give it a "
                           r"number", [], True),
    "markers on one part": (one_part_joint, r"joint 'same': markers .* both on part 'arm'", [], True),
    "unassemblable": (unassemblable, r"assembly failed", [r"\bfar\b", PIN], False),
    "lock-up": (lock_up, r"lock-up", [r"\(frame 3\)", MOTOR], False),
    "friction jam": (friction_jam, r"jam at t = .*joint friction '.*: friction' jams its joint",
                     [r"\[frame \d+\]"], False),
    "unsafe expression": (unsafe_expression, rf"motion '{MOTOR}: motion'",
                          [r"not allowed: '__import__'"], True),
    "spring markers removed": (spring_without_markers, r"spring 'spring': marker I is not set or was deleted",
                               [], True),
    "part without volume": (flat_part, r"part 'sheet': the mesh encloses no volume", [], True),
    "density not above 0": (no_density, r"part 'arm': density 0 kg/m\^3", [r"above 0"], True),
    "mass not above 0": (no_mass, r"part 'arm': mass must be positive", [], True),
    "noise on keyed motion": (noisy_keys, rf"joint '{PIN}', keyframed Angle \(mechanism"
                              r"\.motion_angle\): its F-curve has a Noise modifier 'Noise'",
                              [r"cannot follow"], True),
    "constraint on a part": (limited_arm, r"part 'arm': its constraint 'Limit Location' "
                             r"\(Limit Location\) overrides the keys that place it", [], False),
    "constraint keyed on": (lambda bpy: switched_on_constraint(bpy, "influence"),
                            r"part 'arm': its constraint 'Copy Location' \(Copy Location\) "
                            r"overrides the keys that place it", [r"switch it on"], False),
    "constraint unmuted by keys": (lambda bpy: switched_on_constraint(bpy, "mute"),
                                   r"part 'arm': its constraint 'Copy Location'", [r"switch it on"],
                                   False),
    "constraint driven on": (lambda bpy: switched_on_constraint(bpy, "driver"),
                             r"part 'arm': its constraint 'Copy Location'", [r"switch it on"], False),
    "scale keyed on a part": (lambda bpy: growing_arm(bpy, "keys"),
                              r"part 'arm': its action '.*' keys scale\[0\] to change over the "
                              r"frames, and its marker 'arm.ground.I' stands off the part's "
                              r"origin along its x axis", [r"design size"], False),
    "scale driven on a part": (lambda bpy: growing_arm(bpy, "driver"),
                               r"part 'arm': a driver drives scale\[0\], and its marker "
                               r"'arm.ground.I'", [r"remove the driver"], False),
    "rigid body on a part": (rigid_arm, r"part 'arm': its Rigid Body physics \(Active\) moves "
                             r"it instead of its keys", [], False),
    "rigid body handed off": (rigid_arm_handed_off, r"part 'arm': its Rigid Body's Animated "
                              r"option is switched off by keys or a driver", [r"simulation"], False),
    "keyed setting": (keyed_torsion_spring, rf"joint '{PIN}': its Stiffness "
                      r"\(mechanism\.torsion_stiffness\) is keyframed and changes over the "
                      r"frames", [r"delete its keys"], False),
    "keyed ground": (keyed_ground, r"ground part 'ground': its action '.*' keys location, "
                     r"which moves it over the frames", [r"stands still"], False),
    "sampled ground": (sampled_ground, r"ground part 'ground': its action '.*' keys location, "
                       r"which moves it over the frames", [r"stands still"], False),
    "ground on a path": (ground_on_a_path, r"ground part 'ground': its constraint 'Follow Path' "
                         r"\(Follow Path\) moves it", [r"stands still"], False),
    "keyed marker": (keyed_marker, r"marker 'ground.arm.J': its action '.*' keys location, "
                     r"which moves it over the frames", [r"read once"], False),
    "keyed gravity": (keyed_gravity, r"scene 'Scene': its Gravity \(gravity\) is keyframed "
                      r"and changes over the frames", [], False),
    "keyed constant": (keyed_constant, r"scene 'Scene': its Constant 'amp' "
                       r"\(mechanism\.constants\[1\]\.value\) is keyframed", [], False),
    "gravity keyed on a strip": (gravity_on_a_strip, r"scene 'Scene': its Gravity \(gravity\) "
                                 r"is keyframed on its NLA strip 'fall' and changes over the "
                                 r"frames", [], False),
    "cycles blended in": (half_cycles, rf"joint '{PIN}', keyframed Angle .*Cycles modifier "
                          r"'Cycles' has an influence", [], True),
}


@pytest.mark.parametrize("case", CASES)
def test_bake_error_names_item_and_changes_nothing(blender, case: str) -> None:
    """Bake raises RuntimeError naming the item; the scene (and its old bake) is untouched."""
    bpy = blender
    setup, match, more, _ = CASES[case]
    setup(bpy)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=match) as info:
        bpy.ops.mechanism.bake()
    for pattern in more:
        assert re.search(pattern, str(info.value)), (pattern, str(info.value))
    assert not bs.differences(before, bs.snapshot(bpy))


@pytest.mark.parametrize("op", ["check", "assemble"])
@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][3]])
def test_read_errors_from_check_and_assemble(blender, case: str, op: str) -> None:
    """Errors found while reading the scene stop Check and Assemble too, with the same message,
    and change nothing."""
    bpy = blender
    setup, match, more, _ = CASES[case]
    setup(bpy)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=match):
        getattr(bpy.ops.mechanism, op)()
    assert not bs.differences(before, bs.snapshot(bpy))


@pytest.mark.parametrize("case", ["constraint on a part", "constraint keyed on",
                                  "scale keyed on a part", "rigid body on a part",
                                  "rigid body handed off", "keyed setting",
                                  "keyed gravity", "gravity keyed on a strip", "keyed constant",
                                  "keyed ground", "sampled ground", "ground on a path",
                                  "keyed marker"])
def test_check_names_what_would_override_a_bake(blender, case: str) -> None:
    """What would override a part's baked keys does not stop Check (the mechanism solves),
    but Check warns with the line Bake refuses with, naming the part and the cause."""
    bpy = blender
    setup, match, _, _ = CASES[case]
    setup(bpy)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert re.search(match, bpy.context.scene.mechanism.report)


def test_a_setting_keyed_to_one_value_bakes(blender) -> None:
    """A torsion spring's stiffness keyed twice with one value does not change over the
    frames: Bake takes it, and Check names nothing."""
    bpy = blender
    pin = bs.pendulum(bpy)["pin"]
    pin.mechanism.torsion, pin.mechanism.torsion_stiffness = True, 5.0
    for frame in (1, 25):
        pin.keyframe_insert("mechanism.torsion_stiffness", frame=frame)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "keyframed" not in bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}


@pytest.mark.parametrize("case", ["keyed setting", "keyed ground", "keyed marker"])
def test_export_csv_and_a_study_refuse_what_depends_on_the_frame_shown(blender, tmp_path,
                                                                       case: str) -> None:
    """A setting keyed to change, a moving ground part or marker would make Export CSV's
    numbers and a study's table depend on the frame shown, as a bake's: both refuse with
    Bake's line, naming the object, and write nothing."""
    bpy = blender
    setup, match, _, _ = CASES[case]
    setup(bpy)
    path = tmp_path / "out.csv"
    with pytest.raises(RuntimeError, match=match):
        bpy.ops.mechanism.export_csv(filepath=str(path))
    assert not path.exists()
    st = bpy.context.scene.mechanism.study
    st.parameter_1, st.start_1, st.stop_1, st.count_1 = "arm.mass", 5.0, 10.0, 2
    with pytest.raises(RuntimeError, match=match):
        bpy.ops.mechanism.study_run()
    assert len(st.rows) == 0


def test_lock_up_message_names_one_frame(blender) -> None:
    """The lock-up at t = 2/24 s is at scene frame 3 and the message says only that frame."""
    lock_up(blender)
    with pytest.raises(RuntimeError) as info:
        blender.ops.mechanism.bake()
    assert re.findall(r"frame (\d+)", str(info.value)) == ["3"]


def test_density_not_above_0_is_kept_and_flagged_in_the_panel(blender) -> None:
    """The Density field stops at 0 (not at a tiny positive density that
    looks like 0), and the panel marks a density of 0 in red with the reason."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    assert arm.mechanism.bl_rna.properties["density"].hard_min == 0.0
    arm.mechanism.density = -5.0
    assert arm.mechanism.density == 0.0
    bs.select(bpy, [arm], arm)
    items = bs.panel_items(bpy, "VIEW3D_PT_mechanism_object")
    assert ("prop", "density", True) in items
    assert [i[1] for i in items if i[0] == "label" and i[3]] == ["Density must be above 0"]


@pytest.mark.parametrize("item, op", [("motion", "check"), ("motion", "bake"), ("force", "bake")])
def test_expression_failing_at_the_start_names_the_first_frame(blender, item: str, op: str) -> None:
    """An expression that cannot be evaluated at t = 0 (log(t)) names the scene's first
    frame (frame_start 5), as a failure later in the run names its frame: a motion's as
    the scene is read (Check, Bake), a force's when the run starts (Bake; Check evaluates
    no force) as an error, not a Python traceback.  The scene is unchanged."""
    bpy = blender
    d = bs.slider_crank(bpy) if item == "motion" else bs.pendulum(bpy)
    bpy.context.scene.frame_start = 5
    if item == "motion":
        (joint,) = [ob for ob in bpy.data.objects if ob.mechanism.motion_type == "EXPRESSION"]
        joint.mechanism.motion_expression = "log(t)"
    else:
        bs.new_force(bpy, "push", d["pin"].mechanism.marker_i, torque="0, 0, log(t)")
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError) as info:
        getattr(bpy.ops.mechanism, op)()
    text = str(info.value)
    assert "Traceback" not in text, text
    assert "expression 'log(t)' cannot be evaluated at t=0" in text, text
    assert re.findall(r"frame (\d+)", text) == ["5"], text
    assert not bs.differences(before, bs.snapshot(bpy))


@pytest.mark.parametrize("op", ["check", "bake"])
def test_implausible_density_is_warned_of_by_name(blender, op: str) -> None:
    """A density typed as 1e39 kg/m^3 (Blender keeps the float32 field's largest value,
    3.4e38) is not refused (the solver can use it) but Check and Bake warn, naming the
    part, the density and the mass it gives (the arm's volume times it)."""
    bpy = blender
    d = bs.pendulum(bpy)
    d["arm"].mechanism.density = 1e39
    density = d["arm"].mechanism.density
    assert getattr(bpy.ops.mechanism, op)() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    found = re.search(r"part 'arm': density ([0-9.e+]+) kg/m\^3 is denser than any solid[^|]*"
                      r"the part weighs ([0-9.e+]+) kg", report)
    assert found, report
    assert float(found.group(1)) == pytest.approx(density, rel=1e-3)
    volume = d["arm"].dimensions.x * d["arm"].dimensions.y * d["arm"].dimensions.z
    assert float(found.group(2)) == pytest.approx(density * volume, rel=1e-3)


def millimetre_arm(bpy) -> dict:
    """A millimetre scene (unit scale 0.001, Length in Millimetres): a 100 mm arm pinned to
    a base, its tip held by a ball joint at a ground point 300 mm from the pin, 200 mm
    beyond its reach."""
    bs.set_range(bpy, 1, 7)
    units = bpy.context.scene.unit_settings
    units.scale_length, units.length_unit = 0.001, "MILLIMETERS"
    bpy.context.scene.gravity = (0.0, 0.0, -9810.0)
    base = bs.add_box(bpy, "base", (20.0, 20.0, 20.0), (0.0, 0.0, -100.0))
    arm = bs.add_box(bpy, "arm", (100.0, 10.0, 10.0), (50.0, 0.0, 0.0))
    bs.tag(bpy, [base, arm], "PART")
    base.mechanism.ground = True
    bs.connect(bpy, arm, base, (0.0, 0.0, 0.0), "REVOLUTE", "Z")
    tip, far = bs.add_marker(bpy, arm, (100.0, 0.0, 0.0)), bs.add_marker(bpy, base, (300.0, 0.0, 0.0))
    return dict(arm=arm, joint=bs.new_joint(bpy, "far", "SPHERICAL", tip, far))


@pytest.mark.parametrize("op", ["assemble", "bake"])
def test_a_gap_in_a_millimetre_scene_is_said_in_millimetres(blender, op: str) -> None:
    """The solver says the gap in metres (0.2 m); the user drew millimetres, so the message
    says 200 mm too (the model's size 0.3 m: 300 mm), names the joints, and the scene is
    unchanged. Check's line says the same."""
    bpy = blender
    millimetre_arm(bpy)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError) as info:
        getattr(bpy.ops.mechanism, op)()
    text = str(info.value)
    assert "'far' leave a gap of 0.2 m (200 mm)" in text and "0.3 m (300 mm)" in text, text
    assert not bs.differences(before, bs.snapshot(bpy))
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "gap of 0.2 m (200 mm)" in bpy.context.scene.mechanism.report


def test_a_gap_in_a_metre_scene_is_said_once(blender) -> None:
    """In a scene whose fields show metres the message is the solver's, with no second
    length."""
    bpy = blender
    millimetre_arm(bpy)
    bpy.context.scene.unit_settings.length_unit = "METERS"
    with pytest.raises(RuntimeError) as info:
        bpy.ops.mechanism.assemble()
    assert "gap of 0.2 m," in str(info.value), str(info.value)


def test_kinematic_analysis_of_a_free_mechanism_is_said_in_panel_terms(blender) -> None:
    """The pendulum with nothing driving it and Analysis set to Kinematic: Check warns that
    a Bake would stop; Bake refuses saying to set Analysis to Auto or Dynamic (the panel's
    words, not the solver's Python argument), and the scene is unchanged."""
    bpy = blender
    bs.pendulum(bpy)
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "Analysis is Kinematic, but 1 degree(s) of freedom" in bpy.context.scene.mechanism.report
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=r"1 remain \(add motions or set Analysis to Auto or "
                                           r"Dynamic\)") as info:
        bpy.ops.mechanism.bake()
    assert "analysis=" not in str(info.value)
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_study_variants_failure_is_said_in_millimetres(blender) -> None:
    """The millimetre arm studied over its mass: every variant fails to assemble; the
    Study panel's line for the selected variant gives the gap in mm as well as the solver's
    metres (the table keeps the solver's words, for its CSV)."""
    bpy = blender
    millimetre_arm(bpy)
    st = bpy.context.scene.mechanism.study
    st.parameter_1, st.start_1, st.stop_1, st.count_1 = "arm.mass", 1.0, 2.0, 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    st.row_index = 0
    labels = bs.panel_labels(bpy, "VIEW3D_PT_mechanism_study")
    assert any("a gap of 0.2 m (200 mm)" in label for label in labels), labels
