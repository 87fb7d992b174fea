"""docs/blender.md names every operator of the extension and every field of its panels, so
the guide cannot fall behind the sidebar, and its recipes (a door on its stop, an arm on
keyframed angles, a gearbox's loads as CSV), followed step by step, give their physics."""
from __future__ import annotations

import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Settings the panels never show (the bake's bookkeeping, list indices, cached readings).
HIDDEN = {"Baked", "Computed Mass", "Computed Inertia", "Computed Centre of Mass",
          "Computed With Density", "Mesh Warning",
          "Table", "Variant", "Last Check", "Slider Joint"}


def shown_fields(settings) -> set[str]:
    """The UI names of a property group's settings: those given a name of their own (the
    bookkeeping ones keep their identifier as name). A coupler's joint fields are shown
    under the labels of its kind (SLOT_LABELS: Gear 1, Pinion, Joint 3, ...), not their
    names."""
    return {p.name for p in settings.bl_rna.properties
            if p.identifier not in ("rna_type", "name") and p.name != p.identifier
            and p.type not in ("POINTER", "COLLECTION") or p.identifier in ("marker_i", "marker_j", "curve", "follower_curve",
                                                         "follow", "follow_relative_to")}


def coupler_labels() -> set[str]:
    """What the Coupler panel labels its joint fields, kind by kind."""
    from test_io_addon import io
    SLOT_LABELS = io("couplers").SLOT_LABELS       # noqa: N806 - the module's constant
    return {label for labels in SLOT_LABELS.values() for label in labels}


def test_the_guide_names_every_operator_and_field(blender) -> None:
    bpy = blender
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = " ".join(f.read().replace("**", "").split())     # a name may wrap a line
    missing = [f"operator {op.get_rna_type().name!r}"
               for op in (getattr(bpy.ops.mechanism, n) for n in dir(bpy.ops.mechanism))
               if op.get_rna_type().name not in guide]
    ob = bpy.data.objects.new("probe", None)
    for settings in (ob.mechanism, bpy.context.scene.mechanism, bpy.context.scene.mechanism.study):
        missing += [f"field {name!r}" for name in sorted(shown_fields(settings) - HIDDEN)
                    if name not in guide]
    missing += [f"coupler field {label!r}" for label in sorted(coupler_labels()) if label not in guide]
    assert not missing, f"not in docs/blender.md: {missing}"


def test_the_guide_names_what_a_bake_writes_on_a_joint(blender) -> None:
    """The first mechanism of README and blender.md, built through the operators as written
    (two cubes tagged Part, the ground ticked, Connect at the cursor with its axis, Check,
    Bake, then a motion): Check says one freedom, and every custom property the bake puts
    on the joint is named in the guide."""
    bpy = blender
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, -1))
    ground = bpy.context.active_object
    bpy.ops.mesh.primitive_cube_add(size=1, location=(1, 0, 0))
    arm = bpy.context.active_object
    for ob in (ground, arm):
        ob.select_set(True)
    assert bpy.ops.mechanism.set_role(role="PART") == {"FINISHED"}
    ground.mechanism.ground = True
    bpy.context.scene.cursor.location = (0.5, 0, 0)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.mechanism.connect(kind="REVOLUTE", axis="Y") == {"FINISHED"}
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert bpy.context.scene.mechanism.report.startswith("degrees of freedom: 1")
    joint = next(ob for ob in bpy.data.objects if ob.mechanism.role == "JOINT")
    joint.mechanism.motion_type = "EXPRESSION"
    joint.mechanism.motion_expression = "2*pi*t"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = f.read()
    written = [k for k in joint.keys() if not k.startswith("_")]
    assert "motion_effort" in written and "reaction_force" in written
    named = lambda k: k in guide or any(k == f"{stem}_{c}" and f"{stem}_x/_y/_z" in guide   # noqa: E731
                                        for stem in (k.rsplit("_", 1)[0],) for c in "xyz")
    assert all(named(k) for k in written), [k for k in written if not named(k)]


def guide_headings() -> set[str]:
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        return {line.lstrip("#").strip() for line in f if line.startswith("#")}


def read_csv(path) -> list[dict[str, str]]:
    import csv
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_door_recipe_bounces_off_its_stop(blender, tmp_path) -> None:
    """blender.md's door, step by step through the panel's settings: opened 80 degrees by
    the joint's Angle, a closer toward -20 degrees, a rigid lower stop at 0 with restitution
    0.3. It swings shut and bounces: never past the stop (the angle read back from float32
    quaternion keys, 2 sqrt(2) 6e-8 rad at worst), an impact marker per bounce, and each
    struck stop's rebound speed is 0.3 of its landing speed (Newton's impact law, which the
    solver applies exactly with the float32 restitution Blender stores: 1e-6 relative), or
    it rests there where that rebound would be slower than the stop's rest speed, 1e-3
    rad/s."""
    import math
    import blender_scenes as bs
    bpy = blender
    assert "A door that bounces off its stop" in guide_headings()
    bs.set_range(bpy, 1, 72)
    jamb = bs.add_box(bpy, "Jamb", (0.1, 0.1, 2.0), (-0.05, 0.0, 1.0))
    door = bs.add_box(bpy, "Door", (0.8, 0.04, 2.0), (0.4, 0.0, 1.0))
    bs.select(bpy, (jamb, door), door)
    assert bpy.ops.mechanism.set_role(role="PART") == {"FINISHED"}
    jamb.mechanism.ground = True
    door.mechanism.density = 600.0
    hinge = bs.connect(bpy, door, jamb, (0.0, 0.0, 1.0), "REVOLUTE", "Z")
    s = hinge.mechanism
    s.wiggle_angle = math.radians(80.0)
    assert 2 * math.atan2(door.matrix_world.to_quaternion().z, door.matrix_world.to_quaternion().w) \
        == pytest.approx(math.radians(80.0), abs=1e-6)          # opens counter-clockwise
    s.torsion, s.torsion_stiffness, s.torsion_free_angle = True, 20.0, math.radians(-20.0)
    s.use_limit_lower, s.limit_lower_angle, s.limit_model, s.limit_restitution = True, 0.0, "RIGID", 0.3
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, _, quat = bs.baked_pose(door)
    angle = 2 * np.arctan2(quat[:, 3], quat[:, 0])
    assert angle.min() > -2e-7 and angle.max() == pytest.approx(math.radians(80.0), abs=1e-6)
    impacts = [m for m in bpy.context.scene.timeline_markers if m.name == f"impact: {hinge.name}"]
    assert len(impacts) >= 2
    assert "limit_force" in hinge.keys()
    assert bpy.ops.mechanism.export_csv(filepath=str(tmp_path / "door.csv")) == {"FINISHED"}
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = f.read()
    assert f"{hinge.name} limit_force_Nm" in read_csv(tmp_path / "door.csv")[0]
    assert "`<joint> limit_force_Nm`" in guide          # the stop's column is named
    hits = [row for row in read_csv(tmp_path / "door_events.csv") if row["event"] == "impact"]
    assert len(hits) == len(impacts)
    for row in hits:
        before, after = float(row["speed_before"]), float(row["speed_after"])
        rebound = -0.3 * before
        assert after == (pytest.approx(rebound, rel=1e-6) if rebound > 1e-3 else pytest.approx(0.0, abs=1e-12))
    assert float(hits[0]["speed_after"]) > 0.1


def test_the_keyframed_arm_recipe_follows_its_keys(blender) -> None:
    """blender.md's robot arm: two links on hinges about world y, each joint's Motion
    Keyframed and its Angle keyed at three frames. Every freedom is driven, the bake is a
    kinematic sweep, and at every frame the forearm's turn is the sum of the two F-curves'
    values there (float32 keys: 1e-6 rad), the upper arm's the shoulder's; each joint has
    the motor torque it needs."""
    import blender_scenes as bs
    bpy = blender
    assert "A robot arm driven by keyframed angles" in guide_headings()
    bs.set_range(bpy, 1, 25)
    base = bs.add_box(bpy, "base", (0.2, 0.2, 0.2), (0.0, 0.0, -0.1))
    upper = bs.add_box(bpy, "upper", (0.5, 0.05, 0.05), (0.25, 0.0, 0.0))
    fore = bs.add_box(bpy, "fore", (0.4, 0.05, 0.05), (0.7, 0.0, 0.0))
    bs.tag(bpy, [base, upper, fore], "PART")
    base.mechanism.ground = True
    shoulder = bs.connect(bpy, upper, base, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    elbow = bs.connect(bpy, fore, upper, (0.5, 0.0, 0.0), "REVOLUTE", "Y")
    for joint, values in ((shoulder, (0.0, 0.8, 0.2)), (elbow, (0.0, -1.0, 0.5))):
        joint.mechanism.motion_type = "KEYFRAMED"
        for frame, value in zip((1, 13, 25), values):
            joint.mechanism.motion_angle = value
            joint.keyframe_insert("mechanism.motion_angle", frame=frame)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "(0 after motions)" in bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    keyed = {j: bs.channelbag(j).fcurves.find("mechanism.motion_angle") for j in (shoulder, elbow)}
    frames, _, q_fore = bs.baked_pose(fore)
    _, _, q_upper = bs.baked_pose(upper)
    want_s = np.array([keyed[shoulder].evaluate(f) for f in frames])
    want_e = np.array([keyed[elbow].evaluate(f) for f in frames])
    # a turn a about world y: quaternion (cos a/2, 0, sin a/2, 0)
    close = lambda q, a: np.abs(np.unwrap(2 * np.arctan2(q[:, 2], q[:, 0])) - a).max() < 1e-6   # noqa: E731
    assert close(q_upper, want_s) and close(q_fore, want_s + want_e)
    assert np.ptp(want_e) > 1.0
    assert "motion_effort" in shoulder.keys() and "motion_effort" in elbow.keys()


def test_the_gearbox_recipe_writes_bearing_loads_and_motor_torque(blender, tmp_path) -> None:
    """blender.md's gearbox to CSV: gears of pitch radii r1 0.1 and r2 0.25 m (Radii from
    Meshes), gear 1 driven at one turn a second, gear 2 braked by a torsion spring of
    damping c = 3 N m s/rad alone. At constant speed the motor's power goes into the brake,
    M w1 = c w2^2, so M = c (r1/r2)^2 w1; and gear 2's bearing carries the whole tooth force
    in the gears' plane, |T| = M / (r1 cos 20 deg). Exact in a kinematic sweep: 1e-6
    relative (printed CSV values from float32 settings)."""
    import math
    import blender_scenes as bs
    bpy = blender
    assert "Bearing loads and motor torque as CSV" in guide_headings()
    d = bs.gear_pair(bpy)
    d["j1"].mechanism.motion_expression = "2*pi*t"
    s2 = d["j2"].mechanism
    s2.torsion, s2.torsion_stiffness, s2.torsion_damping = True, 0.0, 3.0
    assert bpy.ops.mechanism.export_csv(filepath=str(tmp_path / "gearbox.csv")) == {"FINISHED"}
    rows = read_csv(tmp_path / "gearbox.csv")
    assert len(rows) == bs.FRAME_END - bs.FRAME_START + 1
    j1, j2, gear = d["j1"].name, d["j2"].name, d["gear"].name
    w1 = 2 * math.pi
    motor = np.array([float(r[f"{j1} motion_effort_Nm"]) for r in rows])
    assert motor == pytest.approx(3.0 * (bs.R1 / bs.R2) ** 2 * w1, rel=1e-6)
    bearing = np.array([[float(r[f"{j2} F{c}_N"]) for c in "xy"] for r in rows])
    tooth = motor / (bs.R1 * math.cos(math.radians(20.0)))
    assert np.linalg.norm(bearing, axis=1) == pytest.approx(tooth, rel=1e-6)
    assert np.abs([float(r[f"{gear} tooth_force_N"]) for r in rows]) == pytest.approx(tooth, rel=1e-6)
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = f.read()
    assert "`<coupler> coupler_torque_1_Nm`" in guide and f"{gear} coupler_torque_1_Nm" in rows[0]


def test_the_guide_names_every_choice_of_the_panels_menus(blender) -> None:
    """Each menu of the panels (a joint's Motion, a part's Mass, a gear's Ratio From, ...)
    offers choices the guide names as the menu spells them (in any case: "Revolute", or
    "revolute" in a list)."""
    bpy = blender
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = " ".join(f.read().replace("**", "").replace("*", "").split()).lower()
    ob = bpy.data.objects.new("probe", None)
    missing = []
    for settings in (ob.mechanism, bpy.context.scene.mechanism, bpy.context.scene.mechanism.study):
        for p in settings.bl_rna.properties:
            if p.type != "ENUM" or p.name in HIDDEN or p.identifier == "rna_type" or p.is_hidden:
                continue
            missing += [f"{p.name}: {item.name!r}" for item in p.enum_items
                        if item.name.lower() not in guide]
    assert not missing, f"not in docs/blender.md: {missing}"


def test_the_tooltips_name_fields_that_exist(blender) -> None:
    """A setting's tooltip that points at another numbered or lettered field ("Joint 3",
    "Scale 2", "Radius 1") names one the panel shows."""
    import re
    bpy = blender
    ob = bpy.data.objects.new("probe", None)
    wrong = []
    for settings in (ob.mechanism, bpy.context.scene.mechanism, bpy.context.scene.mechanism.study):
        names = {p.name for p in settings.bl_rna.properties} | coupler_labels()
        for p in settings.bl_rna.properties:
            for field in re.findall(r"\b(?:Joint|Scale|Radius|Teeth|Coordinate|Parameter) [A-Z0-9]\b",
                                    p.description):
                if field not in names:
                    wrong.append(f"{p.name}: {field!r}")
    assert not wrong, wrong


def test_every_setting_a_user_edits_has_a_tooltip(blender) -> None:
    """Each setting the panels show (not the hidden bookkeeping, the lists' indices or the
    slider's own state) has a tooltip, and each menu choice one of its own: a user
    hovering over Mass, Free Angle, Length or Axes: World reads what it is; so does each
    operator's setting (Connect's Kind and Axis in its redo panel)."""
    bpy = blender
    ob = bpy.data.objects.new("probe", None)
    bare = []
    internal = ("_index", "wiggle_", "_column")
    for settings in (ob.mechanism, bpy.context.scene.mechanism, bpy.context.scene.mechanism.study):
        for p in settings.bl_rna.properties:
            if (p.identifier == "rna_type" or p.is_hidden or p.is_readonly or p.name in HIDDEN
                    or any(k in p.identifier for k in internal)):
                continue
            if p.type == "ENUM":
                bare += [f"{p.name}: {i.name}" for i in p.enum_items if not i.description]
            elif not p.description:
                bare.append(p.name)
    for name in dir(bpy.ops.mechanism):     # the operators' own settings (the redo panel)
        for p in getattr(bpy.ops.mechanism, name).get_rna_type().properties:
            if p.identifier == "rna_type" or p.is_hidden or p.is_readonly:
                continue
            if p.type == "ENUM":
                bare += [f"{name}: {p.name}: {i.name}" for i in p.enum_items if not i.description]
            if not p.description:      # (Connect's Kind and Axis had none of their own)
                bare.append(f"{name}: {p.name}")
    assert not bare, f"settings without a tooltip: {bare}"


@pytest.mark.parametrize("motion", ["EXPRESSION", "SPEED"])
def test_a_slides_motion_is_in_metres_as_its_tooltip_says(blender, motion: str) -> None:
    """Expression and Speed tooltips say a slide's motion is in metres whatever the scene's
    unit scale; so it is: in a millimetre scene (unit scale 0.001) a slide driven 0.1*t,
    or at Speed 0.1, moves the block 100 mm (100 Blender units) in the second from frame 1
    to frame 25 (float32 keys: 1e-4 of the travel)."""
    import blender_scenes as bs
    bpy = blender
    _, block, joint = bs.millimetre_pair(bpy, "post", (20.0, 20.0, 20.0), (0.0, 0.0, -200.0),
                                         "block", (20.0, 20.0, 20.0), "PRISMATIC")
    s = joint.mechanism
    s.motion_type, s.motion_expression, s.motion_speed = motion, "0.1*t", 0.1
    for name in ("motion_expression", "motion_speed"):
        assert "whatever the scene's unit scale" in s.bl_rna.properties[name].description
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, loc, _ = bs.baked_pose(block)
    assert loc[-1, 2] - loc[0, 2] == pytest.approx(100.0, rel=1e-4)


def test_a_tooltips_formula_says_what_its_symbols_are(blender) -> None:
    """A stop's and a contact's Stiffness and Exponent tooltips give the push k d^n: each
    says what d is (how far past the bound, how far the shapes overlap), and none uses a
    symbol the tooltip leaves undefined ("delta")."""
    bpy = blender
    props = bpy.data.objects.new("probe", None).mechanism.bl_rna.properties
    for name in ("limit_stiffness", "contact_stiffness"):
        assert "d how far" in props[name].description, name
    for name in ("limit_stiffness", "limit_exponent", "contact_stiffness", "contact_exponent"):
        assert "delta" not in props[name].description, name


def test_the_couple_tooltip_names_every_coupler_couple_makes(blender) -> None:
    """Couple's tooltip says what it makes of each selection it accepts, as it makes it
    (guess_kind): a user selecting two prismatic joints reads that they get a coupler of
    their slides."""
    from test_io_addon import io
    guess_kind = io("couplers").guess_kind
    tip = " ".join(blender.ops.mechanism.couple.get_rna_type().description.split())
    cases = [(("revolute", "cylindrical"), "GEAR", "two revolute or cylindrical joints a gear"),
             (("revolute", "prismatic"), "RACK_PINION",
              "a revolute and a prismatic a rack and pinion"),
             (("prismatic", "prismatic"), "COUPLER",
              "two prismatic joints a coupler of their slides"),
             (("cylindrical",), "SCREW", "one cylindrical joint a screw"),
             (("revolute",) * 3, "COUPLER", "three joints a general coupler")]
    for kinds, kind, phrase in cases:
        joints = [(f"j{k}", joint_kind) for k, joint_kind in enumerate(kinds)]
        assert guess_kind(joints)[0] == kind and phrase in tip, (phrase, tip)
