"""The sidebar's settings as solver arguments (addon/io/settings.py) and the command line
(addon/io/command_line.py), without Blender: joint kinds and their labels, motion
coordinates, force components typed as text, a constant speed as an expression, the
scene's gravity at a unit scale, the command line's arguments."""
from __future__ import annotations

import numpy as np
import pytest

from test_io_addon import driven_crank, io, solver

command_line, settings = io("command_line"), io("settings")


def test_motion_coordinate_follows_the_joint_kind() -> None:
    mc = settings.motion_coordinate
    assert mc("REVOLUTE", "SLIDE") == "angle" and mc("PRISMATIC", "ANGLE") == "slide"
    assert mc("CYLINDRICAL", "ANGLE") == "angle" and mc("CYLINDRICAL", "SLIDE") == "slide"


def test_kind_menu_names_every_solver_kind() -> None:
    """Each Kind menu entry maps back to its solver kind ('IN_LINE' -> 'in-line'), the joints
    on curves last (a saved file's menu values keep their places); its label is the kind
    with a capital, as Connect names joints ('In-line', 'Point on curve'); its tooltip
    says what the kind holds and how many freedoms it takes away (the equations Check
    counts), each kind in words of its own."""
    from mechanism_animator.solver.vocabulary.joints import CURVE_JOINT_ROWS
    values = [v for v, _, _ in settings.JOINT_KINDS]
    assert [settings.kind_name(v) for v in values] == list(solver.JOINT_KINDS) + list(CURVE_JOINT_ROWS)
    assert values[-2:] == ["POINT_ON_CURVE", "CAM"]
    assert [settings.kind_label(v) for v in values[-2:]] == ["Point on curve", "Cam"]
    assert "IN_LINE" in values and "PARALLEL_AXES" in values
    labels = {v: (label, d) for v, label, d in settings.JOINT_KINDS}
    assert labels["REVOLUTE"] == ("Revolute", "A hinge: the origins together, the z axes "
                                  "parallel; turns about z (takes away 5 of the 6 relative "
                                  "freedoms: 5 equations)")
    assert labels["IN_LINE"][1].endswith("(takes away 2 of the 6 relative freedoms: 2 equations)")
    assert labels["IN_PLANE"][1].endswith(": 1 equation)")      # one, not "1 equations"
    assert settings.kind_label("PARALLEL_AXES") == labels["PARALLEL_AXES"][0] == "Parallel-axes"
    helps = [d for _, _, d in settings.JOINT_KINDS]
    assert len(set(helps)) == len(helps) and all(not d[0].isdigit() for d in helps)


def test_split_components() -> None:
    split = settings.split_components
    assert split("0, 10*sin(t), 0", "f") == [0.0, "10*sin(t)", 0.0]
    assert split(" 1e3 ,atan2(1, t),  max(t, 2*t) ", "f") == [1000.0, "atan2(1, t)", "max(t, 2*t)"]
    for bad in ("1, 2", "1, 2, 3, 4", "", "(1, 2, 3)"):
        with pytest.raises(solver.MechanismError, match=r"force 'push': force: give three"):
            split(bad, "force 'push': force")


def test_speed_expression_is_the_speed_exactly() -> None:
    """A speed typed as 1/3 rad/s drives the crank at exactly that rate: the angle the solver
    reaches at t = 1.5 s is 0.5 rad to Newton's precision."""
    speed = 1 / 3
    assert settings.speed_expression(speed) == "0.3333333333333333*t"
    m = driven_crank()
    m.motions.clear()
    m.add_motion(settings.motion_name("pin"), "pin", settings.speed_expression(speed))
    q = m.solve(times=[0.0, 1.5]).orientation("crank")[-1]
    assert 2 * np.arctan2(q[3], q[0]) == pytest.approx(0.5, abs=1e-12)
    assert settings.motion_name("pin", "slide") == "pin: motion (slide)"
    assert settings.torsion_spring_name("pin") == "pin: torsion spring"


def test_command_line(capsys) -> None:
    parse = command_line.parse_command
    bake = command_line.BakeCommand
    assert parse(["bake", "in.blend", "-o", "out.blend"]) == bake("in.blend", "out.blend")
    assert parse(["bake", "a b.blend", "--output", "c.blend", "--csv", "f.csv"]) == \
        bake("a b.blend", "c.blend", "f.csv")
    assert parse(["bake", "in.blend", "-o", "o.blend", "--scene", "Shot 1", "--scene", "B"]) == \
        bake("in.blend", "o.blend", scenes=("Shot 1", "B"))
    assert parse(["bake", "in.blend", "-o", "o.blend", "--scene", "A", "--scene", "B",
                  "--csv", "f.csv"]) == 2         # one CSV cannot hold two scenes' frames
    assert "--csv" in capsys.readouterr().err
    assert parse(["mjcf", "in.blend", "-o", "m.xml", "--scene", "B"]) == \
        command_line.MjcfCommand("in.blend", "m.xml", "B")
    assert parse(["bake", "in.blend"]) == 2
    assert "-o/--output" in capsys.readouterr().err
    assert parse(["mjcf", "in.blend", "-o", "m.xml"]) == command_line.MjcfCommand("in.blend", "m.xml")
    assert parse(["mjcf", "in.blend"]) == 2
    assert "-o/--output" in capsys.readouterr().err
    assert parse(["render", "in.blend"]) == 2
    assert parse([]) == 2
    capsys.readouterr()
    assert parse(["--help"]) == 0
    assert "Mechanism Animator from the command line" in capsys.readouterr().out



def test_gravity_note_flags_a_unit_scale_that_weakens_gravity() -> None:
    """A millimetre scene with Blender's default Gravity (-9.81 Blender units/s^2) is
    0.00981 m/s^2: named, with the value that gives Earth's (9806.65 at scale 0.001); not
    noted: the same scene with -9810, a metre scene, no gravity, Earth's in a centimetre
    scene (-981); a Moon's 1.62 m/s^2 (162 in a centimetre scene) is below half of Earth's,
    so it is noted (with its value in m/s^2: the user can tell it is meant)."""
    note = settings.gravity_note((0.0, 0.0, -9.81), 0.001)
    assert "0.00981 m/s^2" in note and "9806.65" in note and "unit scale 0.001" in note
    assert settings.gravity_note((0.0, 0.0, -9810.0), 0.001) == ""
    assert settings.gravity_note((0.0, 0.0, -9.81), 1.0) == ""
    assert settings.gravity_note((0.0, 0.0, 0.0), 0.001) == ""
    assert settings.gravity_note((0.0, -981.0, 0.0), 0.01) == ""
    assert "1.62 m/s^2" in settings.gravity_note((0.0, 0.0, -162.0), 0.01)



def test_gravity_note_in_a_unit_system_names_earths_in_the_fields_units() -> None:
    """In a unit system Scene > Gravity shows and takes m/s^2 (the stored value times the
    unit scale): the note names Earth's as that field takes it, written by ``earth_text``
    (9.80665 m/s^2), not the 9806.65 Blender units/s^2 stored, which typed there would be
    a thousand times Earth's."""
    note = settings.gravity_note((0.0, 0.0, -9.81), 0.001, lambda a: f"{a:g} m/s^2")
    assert "is 0.00981 m/s^2 at unit scale 0.001" in note
    assert note.endswith("set Scene > Gravity to 9.80665 m/s^2 along its direction")
    assert "9806.65" not in note


def test_gravity_note_in_imperial_gives_the_gravity_as_its_field_shows_it() -> None:
    """An inch scene (unit scale 0.0254) at -9.81 Blender units/s^2: 0.2492 m/s^2, which
    its Gravity field shows in ft/s^2 (0.2492 / 0.3048 = 0.8175): both are said."""
    ft = lambda a: f"{a / 0.3048:.4g} ft/s^2"
    note = settings.gravity_note((0.0, 0.0, -9.81), 0.0254, ft, metric=False)
    assert "is 0.2492 m/s^2 (0.8175 ft/s^2) at unit scale 0.0254" in note, note
    assert note.endswith("set Scene > Gravity to 32.17 ft/s^2 along its direction")


def test_scene_constants_and_the_ones_an_expression_uses() -> None:
    """The Constants list as named constants: refused by name when unnamed, named twice or
    named like t, pi or a function; each expression gets only the ones it uses (the solver
    refuses an unused one), and a text that does not parse gets them all, so the solver's
    error lists them among the allowed names."""
    MechanismError = solver.MechanismError
    consts = settings.scene_constants([("omega", 6.0), (" lift ", 0.25)])
    assert consts == {"omega": 6.0, "lift": 0.25}
    for pairs, msg in (([("", 1.0)], "entry 1 has no name"),
                       ([("a", 1.0), ("a", 2.0)], "'a' is defined twice"),
                       ([("t", 1.0)], "'t' cannot be used as a constant's name: 't' is a "
                                      "variable the expression is a function of"),
                       ([("sin", 1.0)], "'sin' cannot be used as a constant's name: 'sin' is a function"),
                       ([("pi", 1.0)], "'pi' is a built-in constant"),
                       ([("2x", 1.0)], "'2x' cannot be used as a constant's name: a name is "
                                       "letters, digits and underscores, starting with a letter"),
                       ([("k", float("nan"))], "finite number")):
        with pytest.raises(MechanismError, match=msg):
            settings.scene_constants(pairs)
    used = settings.used_constants
    assert used(["omega*t"], consts) == {"omega": 6.0}
    assert used([0.0, "lift*sin(omega*t)", 1.0], consts) == consts
    assert used(["2*pi*t", 3.0], consts) == {}
    assert used(["omega*t + oops"], consts) == consts          # the solver names 'oops'
    assert used(["omega*t"], {}) == {}
    assert used(["lift*speed"], consts, ("t", "length", "speed")) == {"lift": 0.25}   # an actuator
    m = driven_crank()
    with pytest.raises(MechanismError, match=r"oops.*allowed: t, omega, lift"):
        m.add_force("push", "A", force=(0.0, "omega*t + oops", 0.0),
                    constants=used(["omega*t + oops"], consts))


def test_values_and_the_tolerance_as_typed() -> None:
    """A Blender float field keeps 32 bits: what the user typed comes back to the solver as
    typed (0.15, not 0.15000000596), and so does the scene's Tolerance (1e-6, not
    9.99999997e-07), so that a bake equals a script's solve(tolerance=1e-6)."""
    assert settings.typed(np.float32(0.15)) == 0.15 and settings.typed(1e6) == 1e6
    assert float(np.float32(1e-6)) != 1e-6

    class Scene:
        tolerance = float(np.float32(1e-6))
    assert settings.tolerance(Scene) == 1e-6



def test_the_kinematic_setting_with_freedoms_left_is_warned_of() -> None:
    """Analysis Kinematic with one freedom undriven: Check warns that Bake would stop and
    says what to do; driven (0 left) or Auto, nothing."""
    note = settings.kinematic_note("KINEMATIC", 1)
    assert "1 degree(s) of freedom are not driven" in note and "set Analysis to Auto or Dynamic" in note
    assert settings.kinematic_note("KINEMATIC", 0) is None and settings.kinematic_note("AUTO", 2) is None


def test_a_solver_argument_is_said_as_the_panel_names_it() -> None:
    text = ("kinematic analysis needs every degree of freedom driven: 1 remain (add motions "
            "or use analysis='dynamic')")
    assert settings.in_panel_terms(text) == (
        "kinematic analysis needs every degree of freedom driven: 1 remain (add motions or "
        "set Analysis to Auto or Dynamic)")
