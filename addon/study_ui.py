"""The Study sub-panel of the Mechanism tab (collapsed by default): the parameters to vary,
Run, the table of the last run sorted by a chosen column (failed variants with their
reason), the selected variant's whole row, Bake Variant, Plot and Export."""
from __future__ import annotations

import math

import bpy

from . import study
from .curve_reader import scene_lengths
from .io.study_table import describe
from .ui import MechanismSubPanel


def _number(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.5g}"


class MECHANISM_UL_study(bpy.types.UIList):
    """The variants of the stored table: index, values, the sort column's value (or why the
    variant failed); sorted by the Sort By column."""
    bl_idname = "MECHANISM_UL_study"

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        table = study.stored_table(data)
        i = item.variant
        if table is None or not 0 <= i < len(table):
            layout.label(text=f"{i}")
            return
        row = layout.row(align=True)
        baked = data.baked_variant == i
        row.label(text=f"{i}", icon="REC" if baked else "BLANK1")
        row.label(text=", ".join(_number(v) for v in table.values(i).values()))
        if i in table.failures:
            sub = row.row()
            sub.alert = True
            sub.label(text=scene_lengths(table.failures[i], context.scene), icon="ERROR")
        elif data.sort_column in table.columns:
            row.label(text=_number(table.column(data.sort_column)[i]))

    def filter_items(self, context, data, propname):
        rows = getattr(data, propname)
        table = study.stored_table(data)
        flags = [self.bitflag_filter_item] * len(rows)
        if table is None or data.sort_column not in table.columns or len(table) != len(rows):
            return flags, []
        order = table.order(data.sort_column, data.sort_descending)
        position = {v: k for k, v in enumerate(order)}
        return flags, [position.get(r.variant, k) for k, r in enumerate(rows)]


def _draw_parameter(layout, st, k: int, names: list[str], scene) -> None:
    col = layout.column(align=True)
    name = getattr(st, f"parameter_{k}")
    unit = study.unit_of(scene, name)          # Start and Stop in the scene's units
    view = "" if unit == "NONE" else f"_{unit.lower()}"
    row = col.row(align=True)
    row.alert = bool(name) and name not in names      # no longer in the mechanism
    row.prop(st, f"pick_{k}", text=f"Parameter {k}")
    if row.alert:
        col.label(text=f"{name!r} is not a parameter of the mechanism now", icon="ERROR")
    row = col.row(align=True)
    row.prop(st, f"start_{k}{view}")
    sub = row.row(align=True)
    sub.active = getattr(st, f"count_{k}") > 1
    sub.prop(st, f"stop_{k}{view}")
    row.prop(st, f"count_{k}")


class VIEW3D_PT_mechanism_study(MechanismSubPanel, bpy.types.Panel):
    bl_label = "Study"

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        st = scene.mechanism.study
        names, error = study.parameter_choices(scene)
        if not names:
            box = layout.box()
            box.label(text="No mechanism to study:", icon="INFO")
            box.label(text=error or "tag parts, markers and joints first")
        else:
            _draw_parameter(layout, st, 1, names, scene)
            layout.prop(st, "use_parameter_2")
            if st.use_parameter_2:
                _draw_parameter(layout, st, 2, names, scene)
            count = st.count_1 * (st.count_2 if st.use_parameter_2 else 1)
            row = layout.row()
            row.scale_y = 1.3
            row.operator("mechanism.study_run", text=f"Run Study ({count} variants)",
                         icon="PLAY")
        table = study.stored_table(st)
        if table is None:
            layout.label(text="The table of the last run shows here")
            return
        failed = f", {len(table.failures)} failed" if table.failures else ""
        layout.label(text=f"{len(table)} variants of {', '.join(table.parameters)}{failed}")
        row = layout.row(align=True)
        row.prop(st, "sort_pick", text="Sort")
        row.prop(st, "sort_descending", text="", icon="SORT_DESC" if st.sort_descending
                 else "SORT_ASC")
        layout.template_list("MECHANISM_UL_study", "", st, "rows", st, "row_index", rows=5)
        if 0 <= st.row_index < len(st.rows):
            i = st.rows[st.row_index].variant
            box = layout.box()
            values = table.values(i)
            # in SI as the table holds them, a length or angle also in the scene's units
            head = f"Variant {i}: " + scene_lengths(
                describe(values, study.si_units(scene, values)), scene)
            box.label(text=head + ("  (baked)" if st.baked_variant == i else ""))
            if i in table.failures:
                box.label(text=scene_lengths(table.failures[i], scene), icon="ERROR")
            else:
                col = box.column(align=True)
                units = study.column_units_of(scene)
                for c in table.result_columns():
                    unit = units.get(c, "")
                    col.label(text=f"{c}: {_number(table.column(c)[i])}" + (f" {unit}" if unit else ""))
            box.operator("mechanism.study_bake", icon="REC")
        row = layout.row(align=True)
        row.prop(st, "plot_pick", text="")
        row.operator("mechanism.study_plot", text="Plot", icon="GRAPH")
        layout.prop(st, "plot_path")
        row = layout.row(align=True)
        row.prop(st, "csv_path", text="")
        row.operator("mechanism.study_export_csv", icon="EXPORT")


classes = (MECHANISM_UL_study, VIEW3D_PT_mechanism_study)
