"""The command-line bake and study (addon/cli.py) stopped by Ctrl C: the solver stops at its
next frame, nothing is written (neither the output .blend nor the CSV or the study's
table), the command says so and exits 130 (128 + SIGINT), and Ctrl C is Blender's again
afterwards.  Real bpy, in process: SIGINT is sent to this process from a thread once the
command's handler is in place."""
from __future__ import annotations

import importlib
import os
import signal
import threading
import time

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
