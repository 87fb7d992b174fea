"""What Check and Bake tell the user, in real Blender: the notes a run gives, once, in the
scene's own units."""
from __future__ import annotations

import math
import re

import pytest

import blender_scenes as bs

NOT_UNIQUE = "reactions not unique"


def parallelogram(bpy) -> dict:
    """A driven parallelogram four-bar of four revolutes about z (kinematic): ground pivots
    at (0, 0, 0) and (1, 0, 0), crank and rocker 0.4 m up along y, coupler 1 m along x at
    y = 0.4; the crank turns 0.3 sin(2 pi t) rad about its upright start."""
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (1.2, 0.1, 0.1), (0.5, -0.2, 0.0))
    crank = bs.add_box(bpy, "crank", (0.05, 0.4, 0.05), (0.0, 0.2, 0.0))
    rocker = bs.add_box(bpy, "rocker", (0.05, 0.4, 0.05), (1.0, 0.2, 0.0))
    coupler = bs.add_box(bpy, "coupler", (1.0, 0.05, 0.05), (0.5, 0.4, 0.0))
    bs.tag(bpy, [ground, crank, rocker, coupler], "PART")
    ground.mechanism.ground = True
    joints = [bs.connect(bpy, crank, ground, (0.0, 0.0, 0.0)),
              bs.connect(bpy, coupler, crank, (0.0, 0.4, 0.0)),
              bs.connect(bpy, coupler, rocker, (1.0, 0.4, 0.0)),
              bs.connect(bpy, rocker, ground, (1.0, 0.0, 0.0))]
    s = joints[0].mechanism
    s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", \
        "0.3*sin(2*pi*t)"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    return dict(joints=joints)


def test_bake_says_once_which_joints_reactions_are_not_unique(blender) -> None:
    """A planar four-bar's three redundant equations leave its out-of-plane reactions to a
    least-norm share: Bake's report says so once, naming all four joints, the baked
    reaction keys being that share; Check names all four too (it named only the joint
    whose equations it dropped)."""
    bpy = blender
    joints = parallelogram(bpy)["joints"]
    for op in (bpy.ops.mechanism.bake, bpy.ops.mechanism.check):
        assert op() == {"FINISHED"}
        report = bpy.context.scene.mechanism.report
        assert report.count(NOT_UNIQUE) == 1, report
        said = [n for n in report.split(" | ") if NOT_UNIQUE in n][0]
        for joint in joints:
            assert repr(joint.name) in said, said
        assert "force along z" in said and "least-norm" in said, said


def test_mass_notes_are_in_the_scenes_mass_unit(blender) -> None:
    """An Imperial scene in pounds, the crank's density typed 1e36 (a slip): Check's and
    Bake's note give the mass it weighs in pounds, as the Mass field shows it, not kg; the
    Mass unit changed to ounces, the next bake says ounces (the reading is not kept past a
    change of units).  The crank box 0.1 x 0.02 x 0.02 m: 4e-5 m^3, 4e31 kg, 8.81849e31 lb
    (1 lb = 0.45359237 kg), 16 times that in ounces."""
    bpy = blender
    d = bs.slider_crank(bpy)
    units = bpy.context.scene.unit_settings
    units.system, units.mass_unit = "IMPERIAL", "POUNDS"
    d["crank"].mechanism.density = 1e36
    kg = 1e36 * 0.1 * 0.02 * 0.02
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        assert op() == {"FINISHED"}
        report = bpy.context.scene.mechanism.report
        assert f"the part weighs {kg / 0.45359237:.4g} lb;" in report, report
    units.mass_unit = "OUNCES"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert f"the part weighs {16 * kg / 0.45359237:.4g} oz;" in report, report


def test_a_scene_in_radians_is_told_angles_in_radians(blender) -> None:
    """The four-bar's crank turned 0.05 rad about x and z off its joints, Rotation in
    Radians: Check's lines of joints open at the start give the angle in radians, and
    Bake's solver note of how far the assembly turned the crank gives its degrees with
    radians beside them (pi/180 each); no angle is said in degrees alone."""
    bpy = blender
    parallelogram(bpy)
    bpy.context.scene.unit_settings.system_rotation = "RADIANS"
    bpy.data.objects["crank"].rotation_euler = (0.05, 0.0, 0.05)
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        assert op() == {"FINISHED"}
        report = bpy.context.scene.mechanism.report
        degrees = re.findall(r"(?<![\w.+-])(-?[\d.]+(?:e[-+]?\d+)?) deg(?:rees)?(?!\w)"
                             r"(?! of freedom)( \((-?[\d.e+-]+) rad\))?", report)
        for deg, beside, rad in degrees:
            assert beside, report
            # 4 digits of the radians of a 3-digit number of degrees
            assert abs(float(rad) - math.radians(float(deg))) <= 1e-4 * abs(float(rad)), report
        assert " rad" in report, report
    assert degrees, report             # the bake's note of the crank turned


def test_find_modes_says_a_solver_note_in_the_scenes_units(blender, capfd) -> None:
    """The four-bar of test_addon_geometry, undriven, its rocker pivot lifted 8e-7 m out
    of the plane (gravity along the pins: a mode without stiffness), Length in
    Millimetres: Find
    Modes' and Bake Mode's note that the redundant equations disagree give the gap in mm
    beside the solver's metres, as Bake's does (they gave the metres alone)."""
    from test_addon_geometry import four_bar
    bpy = blender
    d = four_bar(bpy, lift=8e-7)
    for ob in bpy.context.scene.objects:
        if ob.mechanism.role == "JOINT":
            ob.mechanism.motion_type = "NONE"
    bpy.context.scene.mechanism.analysis = "AUTO"
    scene = bpy.context.scene
    scene.unit_settings.length_unit = "MILLIMETERS"
    for op in (bpy.ops.mechanism.find_modes, bpy.ops.mechanism.bake_mode):
        capfd.readouterr()
        assert op() == {"FINISHED"}
        said = capfd.readouterr().out
        gap = re.search(r"disagree by ([0-9.e+-]+) m \(([0-9.e+-]+) mm\)", said)
        assert gap, said
        # 1000 mm per m, to the 4 digits a length note gives
        assert float(gap.group(2)) == pytest.approx(1e3 * float(gap.group(1)), rel=1e-3)


def test_an_inch_scenes_gravity_note_gives_the_fields_feet(blender) -> None:
    """An Imperial scene at unit scale 0.0254 left at Gravity -9.81 Blender units/s^2:
    0.2492 m/s^2, which its Gravity field shows as 0.8175 ft/s^2 (9.81 x 0.0254 / 0.3048);
    Check's note gives that beside the m/s^2 (it gave the m/s^2 alone)."""
    bpy = blender
    bs.pendulum(bpy)
    units = bpy.context.scene.unit_settings
    units.system, units.scale_length = "IMPERIAL", 0.0254
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    shown = re.search(r"Gravity is 0.2492 m/s\^2 \(([0-9.]+) ft/s²\)", report)
    assert shown, report
    # float32 Gravity and Unit Scale, and the 6 digits Blender writes: 1e-5 relative
    assert float(shown.group(1)) == pytest.approx(9.81 * 0.0254 / 0.3048, rel=1e-5)


def test_a_start_speed_note_is_in_the_velocity_fields_units(blender) -> None:
    """A millimetre scene (unit scale 0.001, Length Millimetres, gravity -9810 mm/s^2): the
    pendulum's 1000 mm arm given an initial velocity of 100 mm/s along itself, which its
    pin does not allow: Bake's note of the rate the pin is off by gives it in mm/s beside
    the solver's m/s, as the Velocity field shows it (it gave "0.1 m/s" alone)."""
    bpy = blender
    bs.set_range(bpy)
    scene = bpy.context.scene
    scene.unit_settings.scale_length, scene.unit_settings.length_unit = 0.001, "MILLIMETERS"
    scene.gravity = (0.0, 0.0, -9810.0)
    ground = bs.add_box(bpy, "ground", (200, 200, 200), (0.0, 0.0, -300.0))
    arm = bs.add_box(bpy, "arm", (1000, 100, 100), (500.0, 0.0, 0.0))
    bs.tag(bpy, [ground, arm], "PART")
    ground.mechanism.ground = True
    bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    arm.mechanism.initial_velocity = (100.0, 0.0, 0.0)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    report = scene.mechanism.report
    off = re.search(r"its rate is off by ([0-9.e+-]+) m/s \(([0-9.e+-]+) mm/s\)", report)
    assert off, report
    # 1000 mm/s per m/s, to the digits the note gives
    assert float(off.group(2)) == pytest.approx(1e3 * float(off.group(1)), rel=1e-3)


def test_export_csv_says_the_runs_notes(blender, capfd, tmp_path) -> None:
    """Export CSV solves the scene as a bake does and writes its reactions: its report says
    what the bake's would (the four-bar's reactions not unique, a millimetre scene's
    gravity), not only where it wrote (it said nothing of them)."""
    bpy = blender
    parallelogram(bpy)
    bpy.context.scene.unit_settings.scale_length = 0.001
    capfd.readouterr()
    assert bpy.ops.mechanism.export_csv(filepath=str(tmp_path / "loop.csv")) == {"FINISHED"}
    said = capfd.readouterr().out
    assert "wrote 25 frames to" in said, said
    assert said.count(NOT_UNIQUE) == 1 and "gravity: the scene's Gravity" in said, said


def test_run_study_says_what_reading_the_scene_found(blender, capfd) -> None:
    """The study's slider-crank in a millimetre scene left at Gravity -9.81 units/s^2
    (0.00981 m/s^2): every variant runs at that gravity, and Run Study says so as Bake
    does (it said only how the variants ran)."""
    from test_addon_study import setup
    bpy = blender
    setup(bpy)
    bpy.context.scene.unit_settings.scale_length = 0.001
    capfd.readouterr()
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    said = capfd.readouterr().out
    assert "studied" in said and "gravity: the scene's Gravity is 0.00981 m/s^2" in said, said


def test_the_command_line_study_says_what_reading_the_scene_found(blender, extension,
                                                                   tmp_path, capsys) -> None:
    """``mechanism study`` of a millimetre scene's pendulum left at Gravity -9.81 units/s^2
    notes the 0.00981 m/s^2 every variant runs at, as the command-line bake does (through
    Bake's report); it wrote the table without a word."""
    import importlib
    bpy = blender
    bs.pendulum(bpy)
    bs.set_range(bpy, 1, 5)
    bpy.context.scene.unit_settings.scale_length = 0.001
    blend, table = str(tmp_path / "in.blend"), str(tmp_path / "study.csv")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    capsys.readouterr()
    assert cli.study_file(blend, {"arm.mass": [1.0, 2.0]}, table) == 0
    err = capsys.readouterr().err
    assert "mechanism study: note: gravity: the scene's Gravity is 0.00981 m/s^2" in err, err
