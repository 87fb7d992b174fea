"""The Study section's settings and state: what to vary (one or two parameters of the scene's
mechanism, each from Start to Stop in Count values: a grid), the summary table of the last
run kept in the scene (JSON, addon/io/study_table.py; one row item per variant for the
panel's list), the column to sort by and to plot, and the last StudyResult kept in memory
while Blender runs.

The parameter pickers list ``parameter_names`` of the scene's mechanism, read as Bake reads
it (scene_reader.read_scene) and kept while the tagged objects' names and settings are the
same (a panel redraws often; reading every mesh each time would not do).  A scene without a
mechanism lists nothing and the panel shows why.

Units: Start and Stop are kept in SI units (what the solver, the table, the plot and the
command line use); the panel shows and takes them in the scene's units, as the picked
parameter's own field does (a length in the scene's length unit and unit scale, a mass in
its mass unit, an angle in degrees or radians), through one unit-aware view of each per
Blender unit (``start_1_length`` ...; ``unit_of`` says which the panel draws).
"""
from __future__ import annotations

import math
import pickle
from typing import Any, NamedTuple

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       IntProperty, StringProperty)

from ..solver import (MechanismError, SolverError, Study, column_units, grid, parameter_names,
                      quantity)
from ..solver import resolve_parameter as resolve
from .io.mass import mass_unit_scale
from .io.settings import solve_options, typed
from . import scene_cache
from .bake_checks import refuse_frame_dependent
from .curve_reader import metres_per_unit
from .io.study_table import StudyTable, design_value, study_levels
from .moved_parts import read_carried
from .scene_reader import read_scene

NONE = "__none__"
CHOICES = "study choices"            # the pickers' reading of the scene (scene_cache.py)
_items: dict[str, list] = {}         # enum items kept alive (Blender keeps no reference)
_memory: dict[int, dict] = {}        # scene pointer -> the last run: run_id, result, mech, times
_tables: dict[str, StudyTable] = {}  # JSON text -> its table (the panel draws often)


class _Choices(NamedTuple):
    """The scene's mechanism as the pickers last read it, None when it could not be read
    (``error`` says why), its parameters and what each measures."""
    mech: Any
    names: list[str]
    error: str
    measures: dict[str, str]


def _choices_of(scene) -> _Choices:
    try:
        mech = read_scene(scene, update=False).mech
        names = parameter_names(mech)
        return _Choices(mech, names, "", {n: quantity(mech, n) for n in names})
    except Exception as exc:        # noqa: BLE001 - shown as the panel's hint
        return _Choices(None, [], str(exc) or type(exc).__name__, {})


def _read(scene) -> _Choices:
    """The pickers' reading of the scene, read again only when the design it depends on
    changed (scene_cache.py: the same on every frame of a baked scene's playback)."""
    return scene_cache.kept_or_made(scene, CHOICES, _choices_of, at_frame=False)


def parameter_choices(scene) -> tuple[list[str], str]:
    """(the parameters a study of the scene's mechanism may vary, "" or why there are none)."""
    hit = _read(scene)
    return hit.names, hit.error


def column_units_of(scene) -> dict[str, str]:
    """{built-in summary column of the scene's mechanism: its SI unit} ("N", "N m", "rad",
    "m"; a user's metric or a column the mechanism no longer has is not in it)."""
    mech = _read(scene).mech
    return {} if mech is None else column_units(mech)


def nominal(scene, name: str) -> float | None:
    """The value parameter ``name`` has in the scene's mechanism as designed (SI), or None
    (not a parameter now, or none to show: a spring's free length taken from the pose)."""
    hit = _read(scene)
    if hit.mech is None or name not in hit.measures:
        return None
    return design_value(hit.mech, resolve(hit.mech, name))


# a parameter's quantity (solver.study.quantity) -> the Blender unit its values are shown in
# (an angular velocity as rotation per second, as a part's Angular Velocity field shows it)
# (PER_LENGTH, a general coupler's scale on a slide: a plain number per Blender unit, as the
# coupler's own Scale field takes it)
_UNITS = {"length": "LENGTH", "mass": "MASS", "angle": "ROTATION", "velocity": "VELOCITY",
          "angular velocity": "ROTATION", "acceleration": "ACCELERATION",
          "per length": "PER_LENGTH", "": "NONE"}
UNIT_VIEWS = ("LENGTH", "MASS", "ROTATION", "VELOCITY", "ACCELERATION", "PER_LENGTH")
# ... and the SI unit its values are in, in the table, the plot, the CSV and the reports
_SI = {"length": "m", "mass": "kg", "angle": "rad", "velocity": "m/s",
       "angular velocity": "rad/s", "acceleration": "m/s^2", "per length": "1/m", "": ""}


def unit_of(scene, name: str) -> str:
    """The Blender unit parameter ``name`` of the scene's mechanism is shown in ("NONE": its
    SI value as it is, or a name that is not a parameter now)."""
    return _UNITS[_read(scene).measures.get(name, "")]


def si_units(scene, names) -> dict[str, str]:
    """{name: the SI unit of its values ("m", "kg", "rad", ...; "" for any other or a name
    that is not a parameter now)}: what a table's values are given in."""
    measures = _read(scene).measures
    return {n: _SI[measures.get(n, "")] for n in names}


def si_per_stored(scene, unit: str) -> float:
    """SI units per stored unit of a Blender property with ``unit``, as the scene reader
    converts the scene's own fields: lengths, velocities and accelerations times the unit
    scale (metres per Blender unit), a coupler's scale on a slide divided by it (io/
    couplers.py), masses as io/mass.py's mass_unit_scale, angles as they are (rad)."""
    u = scene.unit_settings
    scale = metres_per_unit(scene)
    if unit in ("LENGTH", "VELOCITY", "ACCELERATION"):
        return scale
    if unit == "PER_LENGTH":
        return 1.0 / scale
    return mass_unit_scale(u.system, scale) if unit == "MASS" else 1.0


def stored_table(st) -> StudyTable | None:
    """The table of the scene's last study run (None before the first)."""
    text = st.table
    if not text:
        return None
    table = _tables.get(text)
    if table is None:
        _tables.clear()
        table = _tables[text] = StudyTable.from_json(text)
    return table


# ------------------------------------------------------------------ enum pickers
def _keep(key: str, items: list) -> list:
    _items[key] = items
    return items


def _parameter_items(self, context):
    scene = self.id_data if isinstance(self.id_data, bpy.types.Scene) else \
        (context.scene if context is not None else None)
    names = parameter_choices(scene)[0] if scene is not None else []
    return _keep("parameters", [(NONE, "(pick a parameter)", "Nothing picked", 0)] +
                 [(n, n, f"Vary {n} (its range in the scene's units)", k + 1)
                  for k, n in enumerate(names)])


def _column_items(self, context):
    table = stored_table(self)
    cols = table.columns if table is not None else []
    return _keep("columns", [(NONE, "(run the study first)", "No table yet", 0)] +
                 [(c, c, f"The summary column {c!r}", k + 1) for k, c in enumerate(cols)])


def _getter_of(prop: str, items):
    def get(self):
        ids = [it[0] for it in items(self, bpy.context)]
        value = getattr(self, prop)
        return ids.index(value) if value in ids else 0
    return get


def _setter_of(prop: str, items):
    def set_(self, index):
        ids = [it[0] for it in items(self, bpy.context)]
        value = ids[index] if 0 <= index < len(ids) else NONE
        setattr(self, prop, "" if value == NONE else value)
    return set_


def _pick(prop: str, label: str, items, description: str):
    return EnumProperty(name=label, items=items, description=description,
                        get=_getter_of(prop, items), set=_setter_of(prop, items))


SPAN = 0.2      # a newly picked parameter's range: its design value -20% to +20%


def _pick_parameter(k: int, label: str, description: str):
    """The picker of parameter k: a newly picked parameter fills Start and Stop with its
    design value -+SPAN (Count kept), a range to edit rather than 0 to 1; one whose design
    value is 0 or has none keeps them."""
    prop = f"parameter_{k}"
    pick = _setter_of(prop, _parameter_items)

    def set_(self, index):
        before = getattr(self, prop)
        pick(self, index)
        name = getattr(self, prop)
        if not name or name == before or not isinstance(self.id_data, bpy.types.Scene):
            return
        v = nominal(self.id_data, name)
        if v is not None and v != 0.0 and math.isfinite(v):
            lo, hi = sorted(((1.0 - SPAN) * v, (1.0 + SPAN) * v))
            setattr(self, f"start_{k}", lo)
            setattr(self, f"stop_{k}", hi)
    return EnumProperty(name=label, items=_parameter_items, description=description,
                        get=_getter_of(prop, _parameter_items), set=set_)


class MA_StudyRow(bpy.types.PropertyGroup):
    """One variant of the stored table (its numbers are in MA_StudySettings.table)."""
    variant: IntProperty(name="Variant")


class MA_StudySettings(bpy.types.PropertyGroup):
    parameter_1: StringProperty(name="Parameter 1", description="The first parameter varied")
    parameter_2: StringProperty(name="Parameter 2", description="The second parameter varied")
    pick_1: _pick_parameter(1, "Parameter", "The first parameter to vary (a property of a "
                            "tagged item, or gravity); picking one sets its range to its design "
                            "value -+20%")
    pick_2: _pick_parameter(2, "Parameter", "The second parameter to vary: every combination "
                            "with the first is solved")
    use_parameter_2: BoolProperty(name="Second Parameter",
                                  description="Vary a second parameter too (a full grid)")
    start_1: FloatProperty(name="Start", default=0.0, description="First value (SI units)")
    stop_1: FloatProperty(name="Stop", default=1.0, description="Last value (SI units)")
    count_1: IntProperty(name="Count", default=3, min=1, soft_max=50,
                         description="How many values from Start to Stop (1: Start only)")
    start_2: FloatProperty(name="Start", default=0.0, description="First value (SI units)")
    stop_2: FloatProperty(name="Stop", default=1.0, description="Last value (SI units)")
    count_2: IntProperty(name="Count", default=3, min=1, soft_max=50,
                         description="How many values from Start to Stop (1: Start only)")
    sort_column: StringProperty(name="Sort By")
    plot_column: StringProperty(name="Plot")
    sort_pick: _pick("sort_column", "Sort By", _column_items,
                     "The summary column the table is sorted by")
    plot_pick: _pick("plot_column", "Plot", _column_items,
                     "The summary column plotted against the first parameter")
    sort_descending: BoolProperty(name="Descending", description="Largest first")
    table: StringProperty(name="Table", options={"HIDDEN"},
                          description="The last run's summary table (JSON)")
    rows: CollectionProperty(type=MA_StudyRow, options={"HIDDEN"})
    row_index: IntProperty(name="Variant", default=0, description="The selected variant")
    baked_variant: IntProperty(default=-1, options={"HIDDEN"})
    csv_path: StringProperty(name="Study CSV", subtype="FILE_PATH", default="//study.csv",
                             description="The file Export Study CSV writes: one row per "
                                         "variant, its parameters and results (// is the "
                                         ".blend file's folder)")
    plot_path: StringProperty(name="Plot File", subtype="FILE_PATH", default="//study_plot.png",
                              description="Where Plot writes its PNG (an unsaved file: the "
                                          "temporary folder)")


def _unit_view(prop: str, unit: str, label: str) -> FloatProperty:
    """``prop`` (an SI value) shown and typed in the scene's ``unit``: stored / si_per_stored."""
    def get(self):
        return getattr(self, prop) / si_per_stored(self.id_data, unit)

    def set_(self, value):
        setattr(self, prop, value * si_per_stored(self.id_data, unit))
    return FloatProperty(name=label, unit="NONE" if unit == "PER_LENGTH" else unit,
                         subtype="ANGLE" if unit == "ROTATION" else "NONE",
                         get=get, set=set_, description=f"{label} value, in the scene's units",
                         options=set())


for _k in (1, 2):
    for _end, _label in (("start", "Start"), ("stop", "Stop")):
        for _unit in UNIT_VIEWS:
            MA_StudySettings.__annotations__[f"{_end}_{_k}_{_unit.lower()}"] = _unit_view(
                f"{_end}_{_k}", _unit, _label)


# ------------------------------------------------------------------ running
def study_of(scene):
    """(scene mechanism, Study, settings) of the scene's Study section: its grid of one or
    two parameters over the scene's frames with its analysis settings.  MechanismError
    (StudyError) naming what is wrong (what would make the table depend on the frame
    shown among it: bake_checks.py); nothing is changed."""
    st = scene.mechanism.study
    specs = [(st.parameter_1, typed(st.start_1), typed(st.stop_1), st.count_1)]
    if st.use_parameter_2:
        specs.append((st.parameter_2, typed(st.start_2), typed(st.stop_2), st.count_2))
    levels = study_levels(specs)
    sm = read_carried(scene)             # the design a Bake reads (moved_parts.py)
    refuse_frame_dependent(scene)
    study = Study(sm.mech, grid(levels))
    tl = sm.timeline
    how = {"frames": [tl.frame_start, tl.frame_end], "fps": tl.fps,
           **solve_options(scene.mechanism)}
    return sm, study, how


def run_study(study, sm, how, progress=None):
    """The study run as the command line runs it (the scene's times and settings)."""
    return study.run(times=sm.timeline.times, analysis=how["analysis"],
                     tolerance=how["tolerance"], progress=progress)


def store(scene, sm, res, how) -> StudyTable:
    """Keep a run: its table in the scene (rows for the list) and the StudyResult in memory;
    no row of it is marked baked (a variant baked before is a row of the table replaced)."""
    st = scene.mechanism.study
    table = StudyTable.from_result(res, how)
    st.table = table.to_json()
    st.rows.clear()
    for i in range(len(table)):
        st.rows.add().variant = i
    st.row_index = min(max(st.row_index, 0), len(table) - 1)
    st.baked_variant = -1            # the scene's keys are no variant of this new table's
    if st.sort_column not in table.columns:
        st.sort_column = table.result_columns()[0] if table.result_columns() else "variant"
    if st.plot_column not in table.columns:
        st.plot_column = st.sort_column
    _memory[scene.as_pointer()] = dict(run_id=table.run_id, result=res, mech=_frozen(sm.mech),
                                       times=sm.timeline.times.copy())
    return table


def release(scene) -> None:
    """Let go of the last run's Results as a new run starts: a study keeps every variant's
    whole Result for Bake Variant (300 variants of a 150-part chain over 240 frames: 2.8
    GB), and a new run beside them held both.  Bake Variant of a table kept after a
    cancelled run solves its variant again."""
    _memory.pop(scene.as_pointer(), None)


def _frozen(mech) -> bytes | None:
    """The mechanism as bytes, to tell whether a later read of the scene is the same one."""
    try:
        return pickle.dumps(mech)
    except Exception:               # noqa: BLE001 - then it is never taken as the same
        return None


def last_result(scene):
    """The StudyResult of the scene's last run since Blender started (None: none, or the scene's
    table is from another run: a file loaded, an undo)."""
    mem = _memory.get(scene.as_pointer())
    table = stored_table(scene.mechanism.study)
    if mem is None or table is None or mem["run_id"] != table.run_id:
        return None
    return mem["result"]


def kept_result(scene, sm, i: int):
    """Variant i's Result from the last run when the scene reads as the same mechanism over
    the same frames, else None (solve it again)."""
    res = last_result(scene)
    if res is None or i in res.failures:
        return None
    mem = _memory[scene.as_pointer()]
    frozen = _frozen(sm.mech)
    if frozen is None or frozen != mem["mech"] or len(mem["times"]) != len(sm.timeline.times) \
            or (mem["times"] != sm.timeline.times).any():
        return None
    return res.result(i)


def forget() -> None:
    _memory.clear()
    _tables.clear()


@bpy.app.handlers.persistent
def _on_load(*_args) -> None:
    """A file about to be loaded (File > New, Open, Revert): the kept runs are of scenes
    it ends, which no loaded scene is (its table's Bake Variant solves again), so their
    Results (gigabytes for a large study) go now, not at the next run.  Undo and redo keep
    them: a redone run's table is theirs."""
    forget()


def register() -> None:
    bpy.app.handlers.load_pre.append(_on_load)


def unregister() -> None:
    if _on_load in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.remove(_on_load)
    forget()


ERRORS = (MechanismError, SolverError, ValueError)
classes = (MA_StudyRow, MA_StudySettings)
