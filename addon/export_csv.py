"""Export CSV: solve the scene's frame range as Bake would and write the frames, and the
events beside them, to CSV files (bake.csv_writer, io/csv_table.py).  From the UI it runs
as Bake does (background.py): the solve and the files' writing in a worker thread, the
share done in the status bar, Esc cancelling with nothing written (a 10,000-frame export
of 100 parts takes seconds); scripts, the command line and headless Blender run
``execute``, stopped by the command line's Ctrl C (background.INTERRUPT)."""

import bpy
from bpy.props import StringProperty

from ..solver import MechanismError, SolverCancelled, SolverError
from . import bake, bake_checks, moved_parts
from .background import BackgroundRun, until_interrupted
from .bake_report import run_notes
from .io.csv_table import existing_folder, export_path
from .io.events import events_path
from .operators import _bake_options, _message, bake_reading

# the status bar while it runs: the solve's frames, then the rows written, as one share
STATUS = "Export CSV: {p}% (solving, then writing the file; Esc to cancel)"


class MECHANISM_OT_export_csv(BackgroundRun, bpy.types.Operator):
    """Solve and write positions, joint reactions and motion efforts per frame to a CSV file
    (Esc cancels a long export)"""
    bl_idname = "mechanism.export_csv"
    bl_label = "Export CSV"
    bl_options = {"REGISTER"}
    filepath: StringProperty(name="File", subtype="FILE_PATH",
                             description="The CSV file to write")

    def execute(self, context):
        """Synchronous export (scripts, tests, the command line)."""
        work = self._prepared(context)
        if isinstance(work, set):
            return work
        self._stop = "interrupted"              # by the command line's Ctrl C
        try:
            out = work(until_interrupted)
        except Exception as exc:       # noqa: BLE001 - what the solve or writing raised
            return self.finished(context, exc, None)
        return self.finished(context, None, out)

    def invoke(self, context, event):
        """Modal export (background.py): the solve and the writing in a worker thread (no
        bpy), the progress in the status bar, Esc cancels."""
        if bpy.app.background:
            return self.execute(context)
        work = self._prepared(context)
        if isinstance(work, set):
            return work
        return self.start(context, work, STATUS)

    def _prepared(self, context):
        """The scene read as a bake reads it (the moves carried, then put back: the scene is
        not changed) and both files' folders checked; the work(progress) -> (result,
        frames, events) that solves and writes without Blender, or {"CANCELLED"}."""
        scene, sm = context.scene, None
        try:
            path = existing_folder(export_path(self.filepath or scene.mechanism.csv_path,
                                               bpy.data.filepath))
            existing_folder(events_path(path))        # both files writable before the solve
            with moved_parts.carried(scene):           # as a bake would read the scene
                sm = bake_reading(scene)
                bake_checks.refuse_frame_dependent(scene)
            how, write = _bake_options(scene, sm), bake.csv_writer(sm)
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, f"Export CSV: {_message(exc, sm, scene)}")
            return {"CANCELLED"}
        self._sm, self._path = sm, path

        def work(progress):
            """The solve's frames, then the rows written, as steps of one count."""
            times = sm.timeline.times
            n = len(times)
            result = sm.mech.solve(times=times, progress=lambda k, m: progress(k, 2 * n), **how)
            rows, events = write(path, result, lambda k, m: progress(n + k * n // max(m, 1),
                                                                     2 * n))
            return result, rows, events
        return work

    def finished(self, context, error, out):
        sm, path = self._sm, self._path
        if isinstance(error, SolverCancelled):
            stop = getattr(self, "_stop", "cancelled")
            self.report({"WARNING"}, f"Export CSV {stop}; nothing was written")
            return {"CANCELLED"}
        if isinstance(error, (MechanismError, SolverError)):
            self.report({"ERROR"}, f"Export CSV: {_message(error, sm, context.scene)}")
            return {"CANCELLED"}
        if error is not None:
            raise error
        result, rows, events = out
        done = f"wrote {rows} frames to {path} and {events} event(s) to {events_path(path)}"
        notes = run_notes(context.scene, sm, result)        # what a bake would say of it
        self.report({"WARNING"} if notes else {"INFO"}, "; ".join([done] + notes))
        return {"FINISHED"}


classes = (MECHANISM_OT_export_csv,)
