"""The ``mechanism study`` command: its arguments parsed without Blender
(addon/io/command_line.py), and one study of a saved slider-crank scene in real Blender
through addon/cli.py, whose table equals the solver's study of the same scene."""
from __future__ import annotations

import csv
import importlib

import numpy as np

import blender_scenes as bs
from test_io_addon import io

command_line = io("command_line")


def test_study_command_parses(capsys) -> None:
    parse, study = command_line.parse_command, command_line.StudyCommand
    got = parse(["study", "in.blend", "--vary", "Arm.mass=1:3:3", "--vary",
                 "Pin I.position.x=-1:-0.5:2", "-o", "t.csv"])
    assert got == study("in.blend", "t.csv", (("Arm.mass", (1.0, 2.0, 3.0)),
                                              ("Pin I.position.x", (-1.0, -0.5))))
    assert parse(["study", "a.blend", "--vary", "k=5:5:1", "--output", "b.csv"]).vary == (("k", (5.0,)),)
    # the last value is STOP exactly, whatever the rounding of the steps
    assert parse(["study", "a", "--vary", "x=0:0.3:4", "-o", "b"]).vary[0][1][-1] == 0.3
    capsys.readouterr()
    for bad, msg in ((["study", "a.blend", "-o", "b.csv"], "--vary"),
                     (["study", "a.blend", "--vary", "x=1:2:3"], "-o/--output"),
                     (["study", "a.blend", "--vary", "x=1:2", "-o", "b"], "START:STOP:COUNT"),
                     (["study", "a.blend", "--vary", "=1:2:3", "-o", "b"], "NAME=START:STOP:COUNT"),
                     (["study", "a.blend", "--vary", "x=1:b:3", "-o", "b"], "must be numbers"),
                     (["study", "a.blend", "--vary", "x=1:2:0", "-o", "b"], "at least 1"),
                     (["study", "a.blend", "--vary", "x=1:2:2.5", "-o", "b"], "whole number"),
                     (["study", "a.blend", "--vary", "x=1:2:1", "-o", "b"], "START = STOP"),
                     (["study", "a.blend", "--vary", "x=1:2:2", "--vary", "x=3:4:2", "-o", "b"],
                      "more than once")):
        assert parse(bad) == 2, bad
        assert msg in capsys.readouterr().err, bad
    assert parse(["study", "--help"]) == 0
    assert "factorial" in capsys.readouterr().out


def test_cli_study_of_a_saved_scene(blender, extension, tmp_path, capsys) -> None:
    d = bs.slider_crank(blender)
    small_end_j = d["small_end"].mechanism.marker_j.name      # on the rod, x = rod/2 = 0.15
    cylinder = d["cylinder"].name          # (the objects go when the command opens the file)
    path, table = str(tmp_path / "crank.blend"), str(tmp_path / "study.csv")
    blender.ops.wm.save_as_mainfile(filepath=path)
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    vary = ["--vary", "piston.mass=1:2:2", "--vary", f"{small_end_j}.position.x=0.15:-0.1:2"]
    assert cli._command(["study", path, *vary, "-o", table]) == 0
    out = capsys.readouterr()
    assert "studied 4 variants" in out.out and "(2 failed)" in out.out
    assert "variant 1 (piston.mass = 1, " in out.err        # a 0.05 m rod cannot reach
    rows = list(csv.DictReader(open(table, encoding="utf-8")))
    assert [r["failure"] != "" for r in rows] == [False, True, False, True]
    # the failure names the scene's frame (t = 2/24 s is frame 3 of 1-25), as a Bake would
    assert "(frame 3)" in rows[1]["failure"] and "(frame 3)" in out.err, rows[1]["failure"]
    # the solver's own study of the same scene, read here: the same numbers
    solver = importlib.import_module(extension.__name__ + ".solver")
    reader = importlib.import_module(extension.__name__ + ".addon.scene_reader")
    sm = reader.read_scene(blender.context.scene)
    ref = solver.Study(sm.mech, solver.grid({"piston.mass": [1.0, 2.0],
                                             f"{small_end_j}.position.x": [0.15, -0.1]})
                       ).run(times=sm.timeline.times, analysis="kinematic")
    for col, values in ref.summary.items():
        got = np.array([float(r[col]) for r in rows])
        np.testing.assert_array_equal(got, np.asarray(values, dtype=float))
    # the piston's weight is on the cylinder: twice the mass, a larger peak reaction
    peak = np.array([float(r[f"peak reaction {cylinder}"]) for r in rows])
    assert peak[2] > peak[0]
    # a bad parameter: exit 1, named
    assert cli._command(["study", path, "--vary", "nope.mass=1:2:2", "-o", table]) == 1
    assert "unknown parameter 'nope.mass'" in capsys.readouterr().err


def test_cli_study_prints_the_studys_notes(blender, extension, tmp_path, capsys,
                                           monkeypatch) -> None:
    """What a study says about how it ran (StudyResult.notes: here its batched sweep
    stopped on an error it did not foresee, so the variants ran one by one) goes to stderr
    beside the failures; the table is written all the same."""
    bs.slider_crank(blender)
    path, table = str(tmp_path / "crank.blend"), str(tmp_path / "study.csv")
    blender.ops.wm.save_as_mainfile(filepath=path)
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    engine = importlib.import_module(extension.__name__ + ".solver.study.engine")

    def boom(*a, **k):
        raise ValueError("an unforeseen failure")
    monkeypatch.setattr(engine, "_sweeps", boom)
    assert cli._command(["study", path, "--vary", "piston.mass=1:2:2", "-o", table]) == 0
    out = capsys.readouterr()
    assert "studied 2 variants" in out.out and "(0 failed)" in out.out
    assert "mechanism study: note: 2 variants (0 to 1) ran one by one" in out.err
    assert "ValueError: an unforeseen failure" in out.err
