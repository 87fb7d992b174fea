"""The command-line bake and study (addon/cli.py) stopped by Ctrl C: the solver stops at its
next frame, nothing is written (neither the output .blend nor the CSV or the study's
table), the command says so and exits 130 (128 + SIGINT), and Ctrl C is Blender's again
afterwards.  A file of two scenes: the bake bakes the one named, and names the other.
Real bpy, in process: SIGINT is sent to this process from a thread once the command's
handler is in place."""
from __future__ import annotations

import importlib
import os
import signal
import threading
import time

import numpy as np

import blender_scenes as bs


def ctrl_c_once_handled(delay: float) -> threading.Thread:
    """A thread that sends SIGINT to this process ``delay`` s after a Python handler other
    than the one in place now is installed (the command's), and never before."""
    before = signal.getsignal(signal.SIGINT)

    def press():
        while signal.getsignal(signal.SIGINT) is before:
            time.sleep(0.01)
        time.sleep(delay)
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=press, daemon=True)
    thread.start()
    return thread


def interrupted(command, capsys) -> tuple[str, float]:
    """Run a command-line ``command`` with Ctrl C pressed half a second in: (what it wrote
    to stderr, seconds it took); it must exit 130 and give Ctrl C back to Blender's own
    handler afterwards."""
    handler = signal.getsignal(signal.SIGINT)
    presser = ctrl_c_once_handled(0.5)
    start = time.perf_counter()
    code = command()
    took = time.perf_counter() - start
    presser.join(timeout=5)
    err = capsys.readouterr().err
    assert code == 130, err
    assert signal.getsignal(signal.SIGINT) is handler
    return err, took


def test_ctrl_c_stops_the_command_line_bake_and_writes_nothing(blender, extension, tmp_path,
                                                               capsys) -> None:
    bpy = blender
    bs.pendulum(bpy)
    bs.set_range(bpy, 1, 24 * 600)                 # ten minutes of swinging: long to solve
    blend = str(tmp_path / "in.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    stamp = os.path.getmtime(blend)
    out, table = str(tmp_path / "out.blend"), str(tmp_path / "forces.csv")
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    err, took = interrupted(lambda: cli.bake_file(blend, out, table), capsys)
    assert f"mechanism bake interrupted (Ctrl C): {out} and {table} were not written; {blend} is " \
        "unchanged" in err, err
    assert sorted(os.listdir(tmp_path)) == ["in.blend"] and os.path.getmtime(blend) == stamp
    assert took < 20.0                    # stopped, not run to the end (over 2 min here)
    assert not any(ob.mechanism.baked for ob in bpy.data.objects)


def test_ctrl_c_stops_the_command_line_study_and_writes_nothing(blender, extension, tmp_path,
                                                                capsys) -> None:
    """``mechanism study`` of the ten-minute pendulum over two arm masses, Ctrl C half a
    second in: the variants stop at their next frame, no table is written (not even a
    partial one), the command says so and exits 130, the .blend file is unchanged and
    Ctrl C is Blender's again afterwards."""
    bpy = blender
    bs.pendulum(bpy)
    bs.set_range(bpy, 1, 24 * 600)                 # ten minutes of swinging: long to solve
    blend = str(tmp_path / "in.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    stamp = os.path.getmtime(blend)
    table = str(tmp_path / "study.csv")
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    err, took = interrupted(lambda: cli.study_file(blend, {"arm.mass": [1.0, 2.0]}, table), capsys)
    assert f"mechanism study interrupted (Ctrl C): {table} was not written; {blend} is " \
        "unchanged" in err, err
    assert sorted(os.listdir(tmp_path)) == ["in.blend"] and os.path.getmtime(blend) == stamp
    assert took < 20.0                    # stopped, not run to the end (35 s here)


def two_scenes(bpy, path: str) -> None:
    """A file of two scenes, each with a mechanism of its own: "Swing", a pendulum (the
    active scene), and "Crank", a driven slider-crank over frames 1-40."""
    bs.pendulum(bpy)
    bpy.context.scene.name = "Swing"
    crank = bpy.data.scenes.new("Crank")
    bpy.context.window.scene = crank
    bs.slider_crank(bpy)
    crank.frame_end = 40
    bpy.context.window.scene = bpy.data.scenes["Swing"]
    bpy.ops.wm.save_as_mainfile(filepath=path)


def baked_in(bpy, scene: str) -> list[str]:
    return sorted(ob.name for ob in bpy.data.scenes[scene].objects if ob.mechanism.baked)


def test_the_command_line_bakes_the_scene_named_and_says_which_it_left(blender, extension,
                                                                      tmp_path, capsys) -> None:
    """``mechanism bake`` of a file of two scenes, each with a mechanism: without --scene
    it bakes the file's active scene and names the other, left unbaked (it used to say
    only "baked", and a farm rendering the other scene got no motion); --scene Crank
    bakes that scene (and names Swing), its piston keyed over its own 40 frames
    where the closed form puts it, and leaves the file's active scene as it was; a scene the
    file does not have fails naming it and the scenes it has, writing nothing."""
    bpy = blender
    blend, out = str(tmp_path / "in.blend"), str(tmp_path / "out.blend")
    two_scenes(bpy, blend)
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    assert cli.bake_file(blend, out) == 0
    err = capsys.readouterr().err
    assert "scene 'Crank' also holds a mechanism, not baked: add --scene Crank" in err, err
    bpy.ops.wm.open_mainfile(filepath=out)
    assert baked_in(bpy, "Crank") == [] and len(baked_in(bpy, "Swing")) == 2
    assert cli.bake_file(blend, out, scenes=("Crank",)) == 0
    assert "scene 'Swing' also holds a mechanism, not baked" in capsys.readouterr().err
    bpy.ops.wm.open_mainfile(filepath=out)
    assert bpy.context.scene.name == "Swing" and baked_in(bpy, "Swing") == []
    crank = bpy.data.scenes["Crank"]
    assert len(baked_in(bpy, "Crank")) == 7
    frames, loc, _ = bs.baked_pose(crank.objects["piston"])
    assert list(frames) == list(range(1, 41))
    theta = 2 * np.pi * (frames - 1) / 24.0     # the crank's motion 2*pi*t, t = 0 at frame 1
    x = 0.1 * np.cos(theta) + np.sqrt(0.3**2 - (0.1 * np.sin(theta)) ** 2)
    # keys are float32 (6e-8 relative); 1e-6 m on a 0.4 m stroke leaves 16x margin
    np.testing.assert_allclose(loc, np.stack([x, 0 * x, 0 * x], axis=1), rtol=0, atol=1e-6)
    missing = str(tmp_path / "none.blend")
    assert cli.bake_file(blend, missing, scenes=("Shot 2",)) == 1
    err = capsys.readouterr().err
    assert "no scene 'Shot 2'" in err and "(its scenes: 'Crank', 'Swing')" in err, err
    assert not os.path.exists(missing)


def test_an_output_in_a_missing_folder_fails_before_the_run(blender, extension, tmp_path,
                                                            capsys) -> None:
    """The ten-minute pendulum (over 2 min to bake) with -o, --csv or a study's table (and
    the mjcf and import commands' -o) in a folder that does not exist: each command fails
    at once (it used to run the whole bake
    or study and then stop on a traceback, or on Export CSV's refusal, writing nothing
    after minutes), naming the folder; nothing is written and the .blend is unchanged."""
    bpy = blender
    bs.pendulum(bpy)
    bs.set_range(bpy, 1, 24 * 600)
    blend = str(tmp_path / "in.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    missing = str(tmp_path / "renders")
    runs = {"-o": lambda: cli.bake_file(blend, os.path.join(missing, "out.blend")),
            "--csv": lambda: cli.bake_file(blend, str(tmp_path / "out.blend"),
                                           os.path.join(missing, "forces.csv")),
            "study -o": lambda: cli.study_file(blend, {"arm.mass": [1.0, 2.0]},
                                               os.path.join(missing, "study.csv")),
            "mjcf -o": lambda: cli.mjcf_file(blend, os.path.join(missing, "model.xml")),
            "import -o": lambda: cli.import_file(cli.ImportCommand(
                "robot.urdf", os.path.join(missing, "robot.blend")))}
    for option, run in runs.items():
        start = time.perf_counter()
        assert run() == 1, option
        assert time.perf_counter() - start < 20.0, option     # not after the run (minutes)
        err = capsys.readouterr().err
        assert f"the folder {missing!r} does not exist" in err, (option, err)
    assert sorted(os.listdir(tmp_path)) == ["in.blend"]
