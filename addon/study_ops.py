"""The Study section's operators: Run Study, Bake Variant, Export Study CSV, Plot Study.

Run Study solves every variant of the grid (study.py) over the scene's frames with its
analysis settings, as ``blender -c mechanism study`` does; in the UI in the background with
progress and Esc (background.py), as Bake.  Bake Variant bakes one row's motion as Bake
does: the scene's design stays as it is (the variant is a copy of the mechanism with its
values set), only the baked animation is that variant's.  Every failure names what is wrong
and changes nothing.
"""
from __future__ import annotations

import os
import tempfile

import bpy
import numpy as np
from bpy.props import IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from ..solver import MechanismError, SolverCancelled, Study, result_columns, result_row
from ..solver import resolve_parameter as resolve
from . import bake, bake_checks, study
from .background import BackgroundRun, drain
from .io.csv_table import existing_folder, export_path
from .io.png_plot import plot_pixels, write_png
from .io.study_table import describe, design_value, row_differs
from .curve_reader import scene_lengths
from .bake_report import bake_notes, report_bake
from .operators import _bake_cost_note, _bake_options, _message
from .moved_parts import carry, kept_if_done, put_back
from .scene_reader import read_design

PLOT_IMAGE = "Mechanism study plot"


def said_values(scene, values: dict[str, float]) -> str:
    """A variant's values for a report, "rod.marker.position.x = 0.00381 m (0.15 in)": each
    in its SI unit, as the table holds it, and a length or angle also in the scene's units,
    as the Start and Stop fields took it and every other report writes it."""
    return scene_lengths(describe(values, study.si_units(scene, values)), scene)


def _object_mode(cls, context) -> bool:
    if context.scene is None:
        return False
    if context.mode != "OBJECT":
        cls.poll_message_set("Leave Edit Mode (Tab) first")
        return False
    return True


def _has_table(cls, context) -> bool:
    if context.scene is None or study.stored_table(context.scene.mechanism.study) is None:
        cls.poll_message_set("Run the study first")
        return False
    return True


class MECHANISM_OT_study_run(BackgroundRun, bpy.types.Operator):
    """Solve the mechanism for every combination of the parameters' values over the scene's
    frame range and keep the summary table (Esc cancels a long study)"""
    bl_idname = "mechanism.study_run"
    bl_label = "Run Study"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        if not _object_mode(cls, context):
            return False
        if not context.scene.mechanism.study.parameter_1:
            cls.poll_message_set("Pick the parameter to vary first")
            return False
        return True

    def execute(self, context):
        """Synchronous run (scripts, tests)."""
        try:
            sm, st, how = study.study_of(context.scene)
            self._warn_cost(context, sm, st)
            study.release(context.scene)
            res = study.run_study(st, sm, how)
        except SolverCancelled as exc:
            return self.finished(context, exc, None)
        except study.ERRORS as exc:
            self.report({"ERROR"}, f"Study: {scene_lengths(str(exc), context.scene)}")
            return {"CANCELLED"}
        self._sm, self._how = sm, how
        return self._finish(context, res)

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        try:
            self._sm, st, self._how = study.study_of(context.scene)
        except study.ERRORS as exc:
            self.report({"ERROR"}, f"Study: {scene_lengths(str(exc), context.scene)}")
            return {"CANCELLED"}
        sm, how = self._sm, self._how
        self._warn_cost(context, sm, st)
        study.release(context.scene)
        return self.start(context, lambda progress: study.run_study(st, sm, how, progress),
                          "Mechanism study: variant {k} of {n} done (Esc to cancel)")

    def _warn_cost(self, context, sm, st) -> None:
        """Say before the run starts when it would take long or much memory (io/run_cost.py:
        its variants times its frames times the mechanism's size; Esc cancels it)."""
        note = _bake_cost_note(sm, context.scene, len(st))
        if note:
            self.report({"WARNING"}, f"Study: {note}")

    def finished(self, context, err, result):
        if isinstance(err, SolverCancelled):       # Esc: the scene as it was, as a Bake's
            kept = "the table is the last complete run's" if study.stored_table(
                context.scene.mechanism.study) is not None else "no table was made"
            self.report({"WARNING"}, f"study cancelled; nothing was changed ({kept})")
            return {"CANCELLED"}
        if err is not None:
            self.report({"ERROR"}, f"Study: {scene_lengths(str(err), context.scene)}")
            return {"CANCELLED"}
        return self._finish(context, result)

    def _finish(self, context, res):
        table = study.store(context.scene, self._sm, res, self._how)
        st = context.scene.mechanism.study
        done = (f"studied {len(table)} variant(s) of {', '.join(table.parameters)} over "
                f"{len(res.times)} frames: {len(table) - len(table.failures)} ran")
        if res.notes:    # the batched run fell back to one by one, reactions least-norm, ...
            self.report({"WARNING"}, "Study notes: " + "; ".join(res.notes))
        found = self._sm.notes()       # what reading the scene found, as Bake says it
        if table.failures:
            i, why = next(iter(table.failures.items()))
            self.report({"WARNING"}, "; ".join([
                f"{done}, {len(table.failures)} failed (variant {i}, "
                f"{said_values(context.scene, table.values(i))}: "
                f"{scene_lengths(why, context.scene)})"] + found))
        else:
            order = table.order(st.sort_column, st.sort_descending)
            self.report({"WARNING"} if found else {"INFO"}, "; ".join([
                f"{done}; first by {st.sort_column}: variant {order[0]} "
                f"({said_values(context.scene, table.values(order[0]))})"] + found))
        return {"FINISHED"}


class MECHANISM_OT_study_bake(BackgroundRun, bpy.types.Operator):
    """Bake the selected variant's motion and forces into the scene as Bake does; the
    scene's own settings stay as designed (only the animation is the variant's)"""
    bl_idname = "mechanism.study_bake"
    bl_label = "Bake Variant"
    bl_options = {"REGISTER", "UNDO"}
    variant: IntProperty(name="Variant", default=-1,
                         description="The variant to bake (-1: the row selected in the table)")

    @classmethod
    def poll(cls, context):
        return _object_mode(cls, context) and _has_table(cls, context)

    def _prepare(self, context):
        """(sm, variant index, its mechanism, a kept Result or None); MechanismError."""
        st = context.scene.mechanism.study
        table = study.stored_table(st)
        i = self.variant if self.variant >= 0 else \
            (st.rows[st.row_index].variant if 0 <= st.row_index < len(st.rows) else -1)
        if not 0 <= i < len(table):
            raise MechanismError(f"no variant {i}: the study has variants 0 to {len(table) - 1}")
        if i in table.failures:
            values = table.values(i)       # SI units named; the error's report adds the scene's
            said = describe(values, study.si_units(context.scene, values))
            raise MechanismError(f"variant {i} ({said}) failed, there is nothing to bake: "
                                 f"{table.failures[i]}")
        sm = read_design(context.scene)
        bake_checks.refuse_bake(sm, context.scene)
        try:
            variant = Study(sm.mech, [table.values(i)]).variant(0)
        except MechanismError as exc:
            raise MechanismError(f"variant {i} no longer fits the scene (run the study "
                                 f"again): {exc}") from None
        self._table, self._i, self._sm, self._variant = table, i, sm, variant
        return study.kept_result(context.scene, sm, i)

    def execute(self, context):
        """Synchronous bake of the variant; the baked parts' moves carried into the design
        and kept, as Bake keeps them (moved_parts.py)."""
        return kept_if_done(carry(context.scene), lambda: self._bake(context))

    def _bake(self, context):
        self._sm = None
        try:
            result = self._prepare(context)
            if result is None:
                result = self._variant.solve(times=self._sm.timeline.times,
                                             **_bake_options(context.scene, self._sm))
        except study.ERRORS as exc:
            self.report({"ERROR"}, f"Bake Variant: {_message(exc, self._sm, context.scene)}")
            return {"CANCELLED"}
        return self._finish(context, result)

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        self._sm = None
        self._moved = carry(context.scene)
        try:
            kept = self._prepare(context)
        except study.ERRORS as exc:
            put_back(self._moved)
            self.report({"ERROR"}, f"Bake Variant: {_message(exc, self._sm, context.scene)}")
            return {"CANCELLED"}
        if kept is not None:
            return kept_if_done(self._moved, lambda: self._finish(context, kept))
        variant, times = self._variant, self._sm.timeline.times
        how = _bake_options(context.scene, self._sm)
        return self.start(context, lambda progress: variant.solve(
            times=times, progress=progress, **how),
            f"Mechanism bake of variant {self._i}: frame {{k}} of {{n}} (Esc to cancel)")

    def finished(self, context, err, result):
        return kept_if_done(self._moved, lambda: self._done(context, err, result))

    def _done(self, context, err, result):
        if isinstance(err, SolverCancelled):
            self.report({"WARNING"}, "bake of the variant cancelled; nothing was changed")
            return {"CANCELLED"}
        if err is not None:
            self.report({"ERROR"}, f"Bake Variant: {_message(err, self._sm)}")
            return {"CANCELLED"}
        return self._finish_steps(context, result)

    def _finish(self, context, result):
        return drain(self._finish_steps(context, result))

    def _finish_steps(self, context, result):
        """The variant's bake written (bake.write_bake_steps: yields its progress), then
        the report; returns the operator's result."""
        scene, sm, table, i = context.scene, self._sm, self._table, self._i
        try:
            yield from bake.write_bake_steps(scene, sm, result, plots=scene.mechanism.force_plots)
        except MechanismError as exc:                     # raised before anything is written
            self.report({"ERROR"}, f"Bake Variant: {_message(exc, sm, scene)}")
            return {"CANCELLED"}
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)
        scene.mechanism.study.baked_variant = i
        values = table.values(i)
        units = study.si_units(scene, values)
        kept = []
        for name in values:
            v = design_value(sm.mech, resolve(sm.mech, name))
            if v is not None:          # (in the SI unit the variant's own value is said in)
                kept.append(scene_lengths(f"{name} stays {v:.6g}" +
                                          (f" {units[name]}" if units[name] else ""), scene))
        done = (f"baked variant {i} ({said_values(scene, values)}): "
                f"{len(result.times)} frames; the "
                f"scene's design is unchanged ({', '.join(kept) or 'its settings as they were'}),"
                " only the baked motion is the variant's")
        now = dict(zip(["variant", *table.parameters, *result_columns(self._variant)],
                       [float(i), *values.values(), *result_row(result, self._variant)]))
        stale = row_differs({c: v for c, v in table.row(i).items() if c in now}, now)
        notes = ([f"the scene changed since the study ran: this variant's {stale[0]} now "
                  "differs from its row; run the study again"] if stale else []) + \
            bake_notes(scene, sm, result)
        report_bake(self, scene, done, notes)
        return {"FINISHED"}


class MECHANISM_OT_study_export(ExportHelper, bpy.types.Operator):
    """Write the study's summary table (one row per variant, the reason of a failure in the
    last column) to a CSV file"""
    bl_idname = "mechanism.study_export_csv"
    bl_label = "Export Study CSV"
    bl_options = {"REGISTER"}
    filename_ext = ".csv"
    filter_glob: StringProperty(default="*.csv", options={"HIDDEN"})

    @classmethod
    def poll(cls, context):
        return _has_table(cls, context)

    def execute(self, context):
        table = study.stored_table(context.scene.mechanism.study)
        try:
            path = existing_folder(export_path(self.filepath or context.scene.mechanism.study.csv_path,
                                               bpy.data.filepath))
            table.write_csv(path)
        except MechanismError as exc:
            self.report({"ERROR"}, f"Export Study CSV: {exc}")
            return {"CANCELLED"}
        self.report({"INFO"}, f"wrote {len(table)} variants to {path}")
        return {"FINISHED"}


def _with_unit(name: str, unit: str) -> str:
    return f"{name} ({unit})" if name and unit else name


def plot_file(path: str, blend_file: str) -> str:
    """Where the plot's PNG goes: the path as Export CSV reads it, or, for a path relative
    to a .blend file not saved yet, the temporary folder."""
    try:
        return export_path(path or "//study_plot.png", blend_file)
    except MechanismError:
        return os.path.join(tempfile.gettempdir(), os.path.basename(path.lstrip("/")) or
                            "study_plot.png")


class MECHANISM_OT_study_plot(bpy.types.Operator):
    """Plot the chosen summary column against the first parameter (one line per value of
    the second) as a PNG, shown in an Image Editor"""
    bl_idname = "mechanism.study_plot"
    bl_label = "Plot Study"
    bl_options = {"REGISTER"}

    @classmethod
    def poll(cls, context):
        return _has_table(cls, context)

    def execute(self, context):
        st = context.scene.mechanism.study
        table = study.stored_table(st)
        column = st.plot_column
        try:
            lines = table.series(column)
            path = plot_file(st.plot_path, bpy.data.filepath)
            units = study.si_units(context.scene, table.parameters)
            first = table.parameters[0]
            second = table.parameters[1] if len(table.parameters) > 1 else ""
            write_png(path, plot_pixels(
                lines, xlabel=_with_unit(first, units[first]),
                ylabel=_with_unit(column, study.column_units_of(context.scene).get(column, "")),
                legend_title=_with_unit(second, units.get(second, ""))))
        except (MechanismError, OSError) as exc:
            self.report({"ERROR"}, f"Plot Study: {exc}")
            return {"CANCELLED"}
        image = bpy.data.images.get(PLOT_IMAGE)
        if image is not None and bpy.path.abspath(image.filepath) == path:
            image.reload()
        else:
            if image is not None:
                bpy.data.images.remove(image)
            image = bpy.data.images.load(path)
            image.name = PLOT_IMAGE
        shown = 0
        for area in (context.window.screen.areas if context.window and context.window.screen else ()):
            if area.type == "IMAGE_EDITOR":
                area.spaces.active.image = image
                area.tag_redraw()
                shown += 1
        what = f"{column} against {table.parameters[0]}"
        if len(table.parameters) > 1:
            what += f", one line per {table.parameters[1]}"
        where = "shown in the Image Editor" if shown else \
            f"image {PLOT_IMAGE!r} (open an Image Editor to see it)"
        if not any(np.isfinite(y).any() for _, _, y in lines):
            self.report({"WARNING"}, f"plotted {what} -> {path}: empty axes, no variant has "
                                     f"a value of {column} (every one failed); {where}")
        else:
            self.report({"INFO"}, f"plotted {what} -> {path}; {where}")
        return {"FINISHED"}


classes = (MECHANISM_OT_study_run, MECHANISM_OT_study_bake, MECHANISM_OT_study_export,
           MECHANISM_OT_study_plot)
