"""Headless use for render pipelines.

Blender command line (the extension enabled):
    blender -b -c mechanism bake in.blend -o out.blend [--csv forces.csv] [--scene NAME ...]
    blender -b -c mechanism study in.blend --vary NAME=START:STOP:COUNT [--vary ...] -o table.csv
    blender -b -c mechanism import robot.urdf|model.xml -o out.blend [--package DIR] [--floating-base]
    blender -b -c mechanism mjcf in.blend -o model.xml
The commands that read a .blend file read its active scene, or the one ``--scene`` names.
Python (``bpy`` from PyPI, the extension enabled; see addon/headless.py):
    bake_file("in.blend", "out.blend"); study_file("in.blend", {"Arm.mass": [1, 2]}, "t.csv")
"""
from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from contextlib import contextmanager

import bpy

from ..solver import MechanismError, SolverCancelled, Study, grid
from .background import INTERRUPT, until_interrupted
from .bake_checks import refuse_frame_dependent
from .io.command_line import ImportCommand, MjcfCommand, StudyCommand, parse_command
from .io.settings import solve_options
from .io.study_table import scene_failures
from .moved_parts import read_carried

_handle = None


INTERRUPTED = 130      # the exit code of a command stopped by Ctrl C (128 + SIGINT)


def bake_file(in_path: str, out_path: str, csv_path: str | None = None,
              scenes: tuple[str, ...] = ()) -> int:
    """Open ``in_path``, bake the mechanism of each scene named in ``scenes`` in turn (none:
    the file's active scene), save to ``out_path``; 0 on success, 1 on a failure (the
    reason goes to stderr), INTERRUPTED when Ctrl C stopped it: the solver stops at its
    next frame and nothing is written (``out_path`` is saved only after the bakes and the
    CSV, of the one scene baked, are done; the CSV is written whole or not at all).  The
    other scenes that hold a mechanism not baked are named on stderr: a file's scenes
    are each a mechanism of their own, and the render of one left unbaked plays no
    motion."""
    missing = _missing_folder(out_path, csv_path)
    if missing:
        print(f"mechanism bake failed: {missing}", file=sys.stderr)
        return 1
    with _ctrl_c_stops_the_run():
        try:
            bpy.ops.wm.open_mainfile(filepath=in_path)
            chosen = [_scene(name) for name in scenes] or [bpy.context.scene]
            if csv_path and len(chosen) > 1:
                raise MechanismError("--csv writes the frames of one scene: give one --scene")
            done = True
            for scene in chosen:
                with _in_scene(scene):
                    done = done and bpy.ops.mechanism.bake() == {"FINISHED"}
                    if done and csv_path:  # a relative path is from the working folder
                        done = bpy.ops.mechanism.export_csv(
                            filepath=os.path.abspath(csv_path)) == {"FINISHED"}
        except (RuntimeError, MechanismError) as exc:   # an operator that reported an error
            print(f"mechanism bake failed: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:         # a second Ctrl C, or one outside the solver
            done = False
        if not done:
            written = f"{out_path} and {csv_path} were" if csv_path else f"{out_path} was"
            print(f"mechanism bake interrupted (Ctrl C): {written} not written; {in_path} is "
                  "unchanged", file=sys.stderr)
            return INTERRUPTED
    for name in _unbaked(chosen):
        print(f"mechanism bake: note: scene {name!r} also holds a mechanism, not baked: add "
              f"--scene {shlex.quote(name)}", file=sys.stderr)
    try:
        bpy.ops.wm.save_as_mainfile(filepath=out_path, copy=False)
    except RuntimeError as exc:           # a folder not writable
        print(f"mechanism bake failed: {exc}", file=sys.stderr)
        return 1
    names = ", ".join(repr(scene.name) for scene in chosen)
    print(f"mechanism: baked {in_path} (scene {names}) -> {out_path}")
    return 0


def _missing_folder(*paths: str | None) -> str:
    """What is wrong with the output ``paths`` (None: not asked for) before a long run:
    the first whose folder does not exist ("" when all exist), so that a typo in -o fails
    at once rather than after the bake or study has run.  A relative path is from the
    working folder."""
    for path in paths:
        folder = os.path.dirname(os.path.abspath(path)) if path else ""
        if folder and not os.path.isdir(folder):
            return (f"the folder {folder!r} does not exist (for {path!r}): create it, or "
                    "write into an existing folder")
    return ""


def _scene(name: str | None) -> bpy.types.Scene:
    """The open file's scene ``name`` (None: its active scene); MechanismError naming the
    scenes it has when it has no such scene."""
    if name is None:
        return bpy.context.scene
    scene = bpy.data.scenes.get(name)
    if scene is None:
        have = ", ".join(repr(s.name) for s in bpy.data.scenes)
        raise MechanismError(f"the file has no scene {name!r} (its scenes: {have})")
    return scene


@contextmanager
def _in_scene(scene: bpy.types.Scene):
    """The operators inside run on ``scene`` (its first view layer), whichever scene the
    file has active; the file's active scene is not changed."""
    if scene == bpy.context.scene:
        yield
        return
    with bpy.context.temp_override(scene=scene, view_layer=scene.view_layers[0]):
        yield


def _unbaked(baked: list) -> list[str]:
    """The names of the file's scenes other than ``baked`` that hold a moving part which
    none of them baked."""
    done = {scene.name for scene in baked}
    return [scene.name for scene in bpy.data.scenes if scene.name not in done and any(
        ob.mechanism.role == "PART" and not ob.mechanism.ground
        and not (ob.mechanism.baked and ob.mechanism.bake_scene in done)
        for ob in scene.objects)]


def mjcf_file(in_path: str, out_path: str, scene: str | None = None) -> int:
    """Open ``in_path`` and write the mechanism of its scene ``scene`` (None: the active
    one) as a MuJoCo model to ``out_path`` (File > Export > MJCF); 0 on success, 1 on a
    failure (the reason goes to stderr)."""
    missing = _missing_folder(out_path)
    if missing:
        print(f"mechanism mjcf failed: {missing}", file=sys.stderr)
        return 1
    try:
        bpy.ops.wm.open_mainfile(filepath=in_path)
        with _in_scene(_scene(scene)):
            bpy.ops.mechanism.export_mjcf(filepath=os.path.abspath(out_path))
    except (RuntimeError, MechanismError) as exc:     # the operator reported an error
        print(f"mechanism mjcf failed: {exc}", file=sys.stderr)
        return 1
    print(f"mechanism: {in_path} -> {out_path}")
    return 0


def import_file(cmd: ImportCommand) -> int:
    """Build ``cmd.source`` (URDF or MJCF) as a mechanism in a new empty scene with File >
    Import's operator and save it to ``cmd.output``; 0 on success, 1 on a failure (the
    reason, with the element and line the importer names, goes to stderr; nothing is
    written)."""
    source = os.path.abspath(cmd.source)
    missing = _missing_folder(cmd.output)
    if missing:
        print(f"mechanism import failed: {missing}", file=sys.stderr)
        return 1
    try:
        bpy.ops.wm.read_homefile(use_empty=True)
        if cmd.kind == "urdf":
            bpy.ops.mechanism.import_urdf(filepath=source, package_dir=cmd.package or "",
                                          floating_base=cmd.floating_base)
        else:
            bpy.ops.mechanism.import_mjcf(filepath=source)
    except RuntimeError as exc:           # the importer reported an error
        print(f"mechanism import failed: {exc}", file=sys.stderr)
        return 1
    bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(cmd.output), copy=False)
    print(f"mechanism: imported {cmd.source} -> {cmd.output}")
    return 0


@contextmanager
def _ctrl_c_stops_the_run():
    """While the block runs, Ctrl C (SIGINT) asks the synchronous bake to stop at its next
    frame (background.INTERRUPT) instead of killing Blender wherever it is; a second one
    raises KeyboardInterrupt at once.  The handler before it is put back after (Blender's
    own C handler, which Python cannot name, as the default)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        if INTERRUPT.is_set():
            raise KeyboardInterrupt
        INTERRUPT.set()
        print("mechanism: stopping at the next frame (Ctrl C again to stop at once)",
              file=sys.stderr)

    INTERRUPT.clear()
    before = signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before if before is not None else signal.SIG_DFL)
        INTERRUPT.clear()


def study_file(in_path: str, levels: dict, csv_path: str, scene_name: str | None = None) -> int:
    """Open ``in_path`` and solve the mechanism of its scene ``scene_name`` (None: the
    active one) over the grid ``levels`` ({parameter: values},
    SI units; every combination) at the scene's frames and analysis settings, writing the
    summary table (solver/study/table.py) to ``csv_path``.  0 when the table is written (the
    variants that failed are in its "failure" column and on stderr), 1 when nothing could
    run (a bad scene or parameter: the reason goes to stderr), INTERRUPTED when Ctrl C
    stopped it: the variants stop at their next frame and no table is written (not even
    the variants finished: a partial table would pass for the whole grid).  The .blend
    file is not saved."""
    missing = _missing_folder(csv_path)
    if missing:
        print(f"mechanism study failed: {missing}", file=sys.stderr)
        return 1
    with _ctrl_c_stops_the_run():
        try:
            bpy.ops.wm.open_mainfile(filepath=in_path)
            scene = _scene(scene_name)
            with _in_scene(scene):
                sm = read_carried(scene)        # the design a Bake reads
            refuse_frame_dependent(scene)
            study = Study(sm.mech, grid(levels))
            res = study.run(times=sm.timeline.times, progress=until_interrupted,
                            **solve_options(scene.mechanism))
        except MechanismError as exc:
            print(f"mechanism study failed: {exc}", file=sys.stderr)
            return 1
        except (SolverCancelled, KeyboardInterrupt):  # a second Ctrl C: at once
            print(f"mechanism study interrupted (Ctrl C): {csv_path} was not written; "
                  f"{in_path} is unchanged", file=sys.stderr)
            return INTERRUPTED
    res.failures.update(scene_failures(res.failures, (sm.timeline.frame_start, sm.timeline.frame_end)))
    res.to_csv(os.path.abspath(csv_path))
    for i, why in res.failures.items():
        print(f"mechanism study: variant {i} ({_values(res.variants[i])}) failed: {why}",
              file=sys.stderr)
    for note in sm.notes() + res.notes:       # what reading the scene found, as Bake says it
        print(f"mechanism study: note: {note}", file=sys.stderr)
    print(f"mechanism: studied {len(res)} variants of {in_path} ({len(res.failures)} failed) "
          f"-> {csv_path}")
    return 0


def _values(row: dict) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in row.items())


def _command(argv: list[str]) -> int:
    """The ``mechanism`` command: its exit code (see io/command_line.py)."""
    cmd = parse_command(argv)
    if isinstance(cmd, int):
        return cmd
    if isinstance(cmd, StudyCommand):
        return study_file(cmd.blend, dict(cmd.vary), cmd.output, cmd.scene)
    if isinstance(cmd, MjcfCommand):
        return mjcf_file(cmd.blend, cmd.output, cmd.scene)
    if isinstance(cmd, ImportCommand):
        return import_file(cmd)
    return bake_file(cmd.blend, cmd.output, cmd.csv, cmd.scenes)


def register() -> None:
    global _handle
    if _handle is None:
        _handle = bpy.utils.register_cli_command("mechanism", _command)


def unregister() -> None:
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
