"""A bake's rough cost before it runs (addon/io/run_cost.py): Check and Bake warn of a frame
range that would take long or much memory (a million frames typed by mistake), and stay
quiet for ordinary ranges.  The estimate's constants and what they were measured on are in
run_cost's docstring; these tests check what the user is told, and where."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs
from test_io_addon import io

run_cost = io("run_cost")


def slider_crank_cost(frames: int, analysis: str = "kinematic"):
    """The estimate for the slider-crank scene of blender_scenes (3 parts, 4 joints, one
    motion), as the Check and Bake operators count it."""
    channels = run_cost.baked_channels(3, 4, 1)
    numbers = run_cost.result_numbers(3, 5 * 4 + 1, 4, 1)
    return run_cost.run_cost(frames, 3, channels, numbers, analysis)


def test_a_million_frames_is_worth_a_warning_and_a_hundred_thousand_is_not() -> None:
    """1e5 frames of the slider crank (a user's report: 34 s and 840 MB) get no warning;
    1e6 frames (about 8 GB) get one that gives the count, the time and the memory, and
    says it is an estimate."""
    assert run_cost.cost_note(100_000, slider_crank_cost(100_000), "kinematic") is None
    note = run_cost.cost_note(1_000_000, slider_crank_cost(1_000_000), "kinematic")
    assert note is not None and "1,000,000 frames" in note and "an estimate" in note
    gb = float(re.search(r"([0-9.]+) GB of memory", note).group(1))
    assert 5.0 < gb < 15.0


def test_the_estimate_grows_with_the_frames_and_is_larger_for_dynamics() -> None:
    one, ten = slider_crank_cost(10_000), slider_crank_cost(100_000)
    assert ten.seconds == pytest.approx(10 * one.seconds) and ten.bytes == pytest.approx(10 * one.bytes)
    assert slider_crank_cost(10_000, "dynamic").seconds > one.seconds


def test_check_warns_of_a_million_frame_range(blender) -> None:
    """Check with the frame range at 1..1,000,000 warns in its report, naming the frame
    count and the memory; at 1..25 it does not."""
    bpy = blender
    bs.slider_crank(bpy)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "frames: baking it would take" not in bpy.context.scene.mechanism.report
    bpy.context.scene.frame_end = 1_000_000
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert "the frame range has 1,000,000 frames: baking it would take roughly" in report
    assert re.search(r"[0-9.]+ GB of memory \(kinematic; an estimate", report), report


def test_bake_warns_past_the_threshold_and_still_bakes(blender, extension, monkeypatch) -> None:
    """With the time threshold lowered below a 25-frame pendulum's estimate, Bake reports
    the warning (dynamic: "Auto" decided as the solver decides it) and bakes every frame."""
    bpy = blender
    pen = bs.pendulum(bpy)
    cost = extension.addon.io.run_cost
    monkeypatch.setattr(cost, "TIME_WARNING", 1e-3)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert "frames: baking it would take roughly" in report and "(dynamic;" in report
    frames, _, _ = bs.baked_pose(pen["arm"])
    assert len(frames) == bs.FRAME_END - bs.FRAME_START + 1


def test_a_studys_estimate_is_its_variants_runs_and_results() -> None:
    """A design study's estimate: every variant solved as a bake would be (no keys), and
    every variant's whole Result kept (8 bytes a number): 300 variants of a chain of 150
    driven links over 240 frames hold 2.8 GB, as measured (addon/study.py, ``release``),
    to 10% (the chain's rows and results counted as Check and Bake count a mechanism's).
    Eight slider-crank variants over 25 frames get no warning; 300 over 2,400 frames of
    dynamics (3 h at 5 ms a part and frame) one that gives the variants, the frames, the
    time and the memory (622 MB)."""
    numbers = run_cost.result_numbers(150, 5 * 150 + 150, 150, 150)
    chain = run_cost.study_cost(300, 240, 150, numbers, "kinematic")
    assert chain.bytes == pytest.approx(2.8e9, rel=0.1)
    one = run_cost.run_cost(240, 150, 0, 0, "kinematic")
    assert chain.seconds == pytest.approx(300 * one.seconds)
    crank = run_cost.result_numbers(3, 5 * 4 + 1, 4, 1)
    small = run_cost.study_cost(8, 25, 3, crank, "kinematic")
    assert run_cost.study_note(8, 25, small, "kinematic") is None
    note = run_cost.study_note(300, 2400, run_cost.study_cost(300, 2400, 3, crank, "dynamic"),
                               "dynamic")
    assert note is not None and "300 variants of 2,400 frames" in note
    assert "roughly 3.0 h and hold 622 MB of memory (dynamic; an estimate" in note, note


def test_run_study_warns_before_a_long_run_and_still_runs(blender, extension, monkeypatch,
                                                          capfd) -> None:
    """Run Study of the slider-crank's six variants says nothing of its cost; with the
    time threshold lowered below their estimate it warns before the run, naming the
    variants and frames (kinematic: "Auto" decided as the solver decides it), and runs
    every variant."""
    from test_addon_study import setup
    bpy = blender
    setup(bpy)
    capfd.readouterr()
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    assert "running it would take" not in capfd.readouterr().out
    monkeypatch.setattr(extension.addon.io.run_cost, "TIME_WARNING", 1e-3)
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    said = capfd.readouterr().out
    frames = bs.FRAME_END - bs.FRAME_START + 1
    warning = f"Study: the study has 6 variants of {frames} frames: running it would take"
    assert warning in said and "(kinematic;" in said, said
    assert said.index(warning) < said.index("studied 6 variant(s)")


def test_only_a_kinematic_open_tree_of_driven_joints_is_estimated_as_the_tree_sweep() -> None:
    """The sweep places an open tree of driven fixed, revolute, prismatic and cylindrical
    joints joint by joint (5 us a part a frame, measured) and solves anything else (28 us):
    a chain of driven pins is a tree; a slider-crank (more joints than parts), an undriven
    pin, an in-line joint, a coupler or a dynamic run are not."""
    assert run_cost.solved_as("kinematic", 3, ["REVOLUTE", "FIXED", "PRISMATIC"], 2, 0) == "tree"
    assert run_cost.solved_as("kinematic", 3, ["REVOLUTE"] * 3 + ["IN_LINE"], 1, 0) == "kinematic"
    assert run_cost.solved_as("kinematic", 2, ["REVOLUTE"] * 2, 1, 0) == "kinematic"
    assert run_cost.solved_as("kinematic", 2, ["REVOLUTE", "IN_LINE"], 2, 0) == "kinematic"
    assert run_cost.solved_as("kinematic", 2, ["REVOLUTE"] * 2, 2, 1) == "kinematic"
    assert run_cost.solved_as("dynamic", 2, ["REVOLUTE"] * 2, 2, 0) == "dynamic"
    tree = run_cost.run_cost(10_000, 100, 1600, 0, "tree").seconds
    assert tree < run_cost.run_cost(10_000, 100, 1600, 0, "kinematic").seconds
