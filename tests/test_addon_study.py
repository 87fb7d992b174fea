"""The Study section of the Mechanism tab in real Blender (addon/study.py, study_ops.py,
study_ui.py): a slider-crank scene studied over the piston's mass and the rod's length
(its small-end marker's x on the rod; the shortest rod cannot reach: those variants fail),
the table equal to the solver's own Study of the same scene, sorted, a variant baked and its
keys read back, the file saved and loaded again (table, Bake Variant), Export, Plot, and
errors that name what is wrong and change nothing."""
from __future__ import annotations

import csv
import importlib
import re
from types import SimpleNamespace

import numpy as np
import pytest

import blender_scenes as bs

MASSES = [0.5, 1.25, 2.0]


def _mods(extension):
    def m(name):
        return importlib.import_module(f"{extension.__name__}.{name}")
    return SimpleNamespace(solver=m("solver"), study=m("addon.study"),
                           reader=m("addon.scene_reader"))


def setup(bpy):
    """The slider-crank with the study set: piston mass x rod (small end marker x)."""
    sc = bs.slider_crank(bpy)
    rod_marker = sc["small_end"].mechanism.marker_j.name           # on the rod, x = 0.15
    st = bpy.context.scene.mechanism.study
    st.pick_1 = "piston.mass"                                       # through the picker
    st.start_1, st.stop_1, st.count_1 = MASSES[0], MASSES[-1], len(MASSES)
    st.use_parameter_2 = True
    st.parameter_2 = f"{rod_marker}.position.x"
    st.start_2, st.stop_2, st.count_2 = 0.15, -0.1, 2                # -0.1: cannot reach
    return sc, rod_marker


def reference(bpy, mods, rod_marker):
    sm = mods.reader.read_scene(bpy.context.scene)
    return mods.solver.Study(sm.mech, mods.solver.grid(
        {"piston.mass": MASSES, f"{rod_marker}.position.x": [0.15, -0.1]})).run(
        times=sm.timeline.times, analysis="kinematic")


def scene_frames(reason: str, first: int = bs.FRAME_START) -> str:
    """A solver failure's reason with its output frame (counted from 0) named as the scene
    frame, ``first`` + k, as the panel shows it."""
    return re.sub(r"\(frame (\d+)\)", lambda m: f"(frame {int(m.group(1)) + first})", reason)


def same_table(table, ref) -> None:
    """The panel's stored table is the solver's own study of the scene, to the last bit (the
    scene's Tolerance reaches the solver as typed: 1e-6, not the 9.99999997e-07 its 32-bit
    field holds); the failures' reasons name scene frames."""
    assert table.columns == list(ref.summary)
    for c, col in ref.summary.items():
        np.testing.assert_array_equal(table.column(c), np.asarray(col, dtype=float), err_msg=c)
    assert table.failures == {i: scene_frames(w) for i, w in ref.failures.items()}


def baked_matches(sc, result) -> None:
    """The piston's and crank's baked keys are the variant's solved poses (float32 keys)."""
    for part in ("piston", "crank", "rod"):
        frames, loc, quat = bs.baked_pose(sc[part] if part in sc else None)
        np.testing.assert_array_equal(frames, np.arange(bs.FRAME_START, bs.FRAME_END + 1))
        np.testing.assert_allclose(loc, result.position(part), atol=2e-7)
        q = result.orientation(part)
        q = q * np.sign(np.sum(q * quat, axis=1))[:, None]
        np.testing.assert_allclose(quat, q, atol=2e-7)


def design(bpy) -> dict:
    """The design: every object's mechanism settings and every marker's own transform."""
    snap = bs.snapshot(bpy, display=False)["objects"]
    return {name: ({k: v for k, v in o["settings"].items() if k != "baked"},
                   o["basis"] if bpy.data.objects[name].mechanism.role == "MARKER" else None,
                   o["pointers"][:2])
            for name, o in snap.items()}


def test_study_table_sort_bake_reload_export_plot(blender, extension, tmp_path) -> None:
    bpy = blender
    mods = _mods(extension)
    sc, rod_marker = setup(bpy)
    scene = bpy.context.scene
    st = scene.mechanism.study
    assert st.parameter_1 == "piston.mass"
    names, error = mods.study.parameter_choices(scene)
    assert error == "" and "piston.mass" in names and f"{rod_marker}.position.x" in names
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    table = mods.study.stored_table(st)
    ref = reference(bpy, mods, rod_marker)
    same_table(table, ref)
    assert sorted(table.failures) == [1, 3, 5] and "SolverError" in table.failures[1]
    assert len(st.rows) == 6 and mods.study.last_result(scene) is not None
    # sorting: by the cylinder's peak reaction, largest first, the failed rows last
    col = f"peak reaction {sc['cylinder'].name}"
    st.sort_pick = col
    st.sort_descending = True
    assert st.sort_column == col
    ul = bpy.types.UIList.bl_rna_get_subclass_py("MECHANISM_UL_study")
    flags, order = ul.filter_items(SimpleNamespace(bitflag_filter_item=1 << 30), bpy.context,
                                   st, "rows")
    shown = [v for _, v in sorted(zip(order, range(6)))]
    assert shown == [4, 2, 0, 1, 3, 5]                       # heavier piston, larger load
    # the panel: pickers, Run, the list, the selected row, Bake Variant, Plot, Export
    items = bs.panel_items(bpy, "VIEW3D_PT_mechanism_study")
    ops = [i[1] for i in items if i[0] == "operator"]
    assert ops == ["mechanism.study_run", "mechanism.study_bake", "mechanism.study_plot",
                   "mechanism.study_export_csv"]
    assert ("list", "MECHANISM_UL_study", "", "rows", "row_index") in items
    # Bake Variant 4 (piston 2 kg, the rod as designed): the variant's motion, the design kept
    before = design(bpy)
    st.row_index = 4
    assert bpy.ops.mechanism.study_bake() == {"FINISHED"}
    baked_matches(sc, ref.result(4))
    assert design(bpy) == before and st.baked_variant == 4
    assert sc["piston"].mechanism.baked and "reaction_force" in "".join(sc["cylinder"].keys())
    # a failed variant: refused by name, nothing changed
    snap = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=r"variant 1 \(piston.mass = 0.5 kg, .*\) failed"):
        bpy.ops.mechanism.study_bake(variant=1)
    assert bs.differences(snap, bs.snapshot(bpy)) == []
    # Export: the solver's own CSV
    out = tmp_path / "study.csv"
    assert bpy.ops.mechanism.study_export_csv(filepath=str(out)) == {"FINISHED"}
    rows = list(csv.reader(open(out, encoding="utf-8")))
    assert rows[0] == list(ref.summary) + ["failure"]
    ref_path = tmp_path / "ref.csv"
    ref.to_csv(ref_path)
    ref_rows = list(csv.reader(open(ref_path, encoding="utf-8")))
    for a, b in zip(rows[1:], ref_rows[1:]):
        assert a[-1] == scene_frames(b[-1])
        np.testing.assert_allclose([float(x) for x in a[:-1]], [float(x) for x in b[:-1]],
                                   rtol=1e-10, equal_nan=True)
    # save, load: the table, the sort and Bake Variant (solved again) survive
    path = str(tmp_path / "crank.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    st = scene.mechanism.study
    same_table(mods.study.stored_table(st), ref)
    assert len(st.rows) == 6 and st.sort_column == col and st.sort_descending
    assert st.parameter_2 == f"{rod_marker}.position.x" and st.baked_variant == 4
    sc = {n: scene.objects[n] for n in ("piston", "crank", "rod")}
    assert bpy.ops.mechanism.study_bake(variant=2) == {"FINISHED"}
    baked_matches(sc, ref.result(2))
    # Plot: a PNG next to the saved file, loaded as an image
    st.plot_pick = col
    assert bpy.ops.mechanism.study_plot() == {"FINISHED"}
    assert (tmp_path / "study_plot.png").exists()
    img = bpy.data.images["Mechanism study plot"]
    assert tuple(img.size) == (800, 500)
    px = np.empty(800 * 500 * 4, dtype=np.float32)
    img.pixels.foreach_get(px)
    rgb = px.reshape(500, 800, 4)[:, :, :3]
    assert (rgb < 0.1).all(axis=2).any() and (rgb > 0.99).all(axis=2).mean() > 0.5
    blue = np.all(np.abs(rgb - np.array([31, 119, 180]) / 255) < 0.02, axis=2)
    assert blue.any()                                           # the first line (x = 0.15)


def test_a_failed_variant_names_the_scene_frame(blender, extension) -> None:
    """The frame range 101-125: the slider-crank's rod moved where it cannot reach fails at
    t = 2/24 s, which the study's table, its CSV and Bake Variant name as scene frame 103
    (the frame a Bake names), not the solver's output frame 2."""
    bpy = blender
    sc, rod_marker = setup(bpy)
    bs.set_range(bpy, 101, 125)
    st = bpy.context.scene.mechanism.study
    st.pick_1 = f"{rod_marker}.position.x"
    st.start_1, st.stop_1, st.count_1 = 0.15, -0.1, 2
    st.use_parameter_2 = False
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    why = _mods(extension).study.stored_table(st).failures[1]
    assert "lock-up at t = 0.0833333 s (frame 103)" in why, why
    with pytest.raises(RuntimeError, match=re.escape("(frame 103)")):
        bpy.ops.mechanism.study_bake(variant=1)


def test_the_range_is_shown_and_typed_in_the_scene_units(blender, extension) -> None:
    """In a millimetre scene (unit scale 0.001) the panel draws a length parameter's Start
    and Stop as lengths (the unit-aware views: a typed 150 is 150 mm, kept as 0.15 m), a
    mass as a mass (Blender's MASS unit: stored divided by scale^3), gravity and a
    velocity per mm, an angular velocity as a rotation (rad stored, degrees shown) and an
    inertia as its SI number; the run's table is the solver's study of
    the SI values, to the last bit."""
    bpy = blender
    mods = _mods(extension)
    sc, rod_marker = setup(bpy)
    scene = bpy.context.scene
    scene.unit_settings.scale_length = 0.001            # the slider-crank is now in mm
    st = scene.mechanism.study
    st.use_parameter_2 = False
    marker = f"{rod_marker}.position.x"
    drawn = lambda: [i[1] for i in bs.panel_items(bpy, "VIEW3D_PT_mechanism_study")
                     if i[0] == "prop" and i[1].startswith(("start_1", "stop_1"))]
    for name, unit, shown, si in ((marker, "LENGTH", 150.0, 0.15),
                                  ("piston.mass", "MASS", 2.0 / 0.001 ** 3, 2.0),
                                  ("gravity.z", "ACCELERATION", -9810.0, -9.81),
                                  ("piston.velocity.x", "VELOCITY", 500.0, 0.5),
                                  ("crank.angular_velocity.z", "ROTATION", 2.0, 2.0)):
        st.pick_1 = name
        assert mods.study.unit_of(scene, name) == unit
        assert drawn() == [f"start_1_{unit.lower()}", f"stop_1_{unit.lower()}"]
        setattr(st, f"start_1_{unit.lower()}", shown)
        assert st.start_1 == pytest.approx(si, rel=1e-6)            # float32 fields
        assert getattr(st, f"start_1_{unit.lower()}") == pytest.approx(shown, rel=1e-6)
    st.pick_1 = "piston.inertia.xx"                           # kg m^2: its SI number
    assert mods.study.unit_of(scene, "piston.inertia.xx") == "NONE"
    assert drawn() == ["start_1", "stop_1"] and mods.study.unit_of(scene, "no such") == "NONE"
    # a length range typed in mm: the table holds the variants of 0.15 and 0.14 m
    st.pick_1 = marker
    st.start_1_length, st.stop_1_length, st.count_1 = 150.0, 140.0, 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    sm = mods.reader.read_scene(scene)
    ref = mods.solver.Study(sm.mech, mods.solver.grid({marker: [0.15, 0.14]})).run(
        times=sm.timeline.times, analysis="kinematic")
    same_table(mods.study.stored_table(st), ref)
    st.row_index = 0      # the selected row's values, in SI with their units, and in mm
    scene.unit_settings.length_unit = "MILLIMETERS"          # (the fields then show mm)
    labels = bs.panel_labels(bpy, "VIEW3D_PT_mechanism_study")
    head = re.compile(rf"Variant {st.rows[0].variant}: {re.escape(marker)} = "
                      r"(0\.1[45]) m \((1[45]0) mm\)$")
    said = [head.match(t) for t in labels if head.match(t)]
    assert said and float(said[0].group(2)) == 1e3 * float(said[0].group(1)), labels
    assert any(t.startswith(f"peak reaction {sc['cylinder'].name}: ") and t.endswith(" N")
               for t in labels), labels


def test_a_couplers_scale_on_a_slide_is_shown_per_blender_unit(blender, extension) -> None:
    """A general coupler of two slides (Couple on two prismatic joints) in a millimetre
    scene: its Scale fields are per Blender unit (the reader divides them by the unit scale:
    per metre), and the Study panel shows and takes Start and Stop the same way (a plain
    number, PER_LENGTH: picking Scale 2 = -2 fills -2.4 to -1.6 as the field shows it, kept
    as -2,400 to -1,600 per metre), the table's and reports' unit 1/m."""
    bpy = blender
    mods = _mods(extension)
    bs.set_range(bpy)
    scene = bpy.context.scene
    scene.unit_settings.scale_length = 0.001
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -1.0))
    a = bs.add_box(bpy, "a", (0.1, 0.1, 0.1), (0.0, 0.0, 0.0))
    b = bs.add_box(bpy, "b", (0.1, 0.1, 0.1), (0.0, 0.5, 0.0))
    bs.tag(bpy, [ground, a, b], "PART")
    ground.mechanism.ground = True
    ja = bs.connect(bpy, a, ground, (0.0, 0.0, 0.0), "PRISMATIC", "X")
    jb = bs.connect(bpy, b, ground, (0.0, 0.5, 0.0), "PRISMATIC", "X")
    tie = bs.couple(bpy, [ja, jb])
    s = tie.mechanism
    assert s.coupler_kind == "COUPLER"
    s.scale_a, s.scale_b = 1.0, -2.0                    # b moves half as far as a
    ja.mechanism.motion_type, ja.mechanism.motion_expression = "EXPRESSION", "10*t"
    st = scene.mechanism.study
    name = f"{tie.name}.scale2"
    assert name in mods.study.parameter_choices(scene)[0]
    st.pick_1 = name
    assert mods.study.unit_of(scene, name) == "PER_LENGTH"
    drawn = [i[1] for i in bs.panel_items(bpy, "VIEW3D_PT_mechanism_study")
             if i[0] == "prop" and i[1].startswith(("start_1", "stop_1"))]
    assert drawn == ["start_1_per_length", "stop_1_per_length"]
    assert (st.start_1_per_length, st.stop_1_per_length) == (pytest.approx(-2.4, rel=1e-6),
                                                            pytest.approx(-1.6, rel=1e-6))
    assert (st.start_1, st.stop_1) == (pytest.approx(-2400.0, rel=1e-6),
                                       pytest.approx(-1600.0, rel=1e-6))
    st.start_1_per_length = -3.0
    assert st.start_1 == pytest.approx(-3000.0, rel=1e-6)
    assert mods.study.si_units(scene, [name]) == {name: "1/m"}
    # the study's variants are the scene's own coupler with those scales (read in SI)
    sm = mods.reader.read_scene(scene)
    assert sm.mech.couplers[tie.name].terms[1][2] == pytest.approx(-2000.0)


def test_picking_a_parameter_sets_its_range_around_its_design_value(blender, extension) -> None:
    """Picking a parameter fills Start and Stop with its design value -+20% (the piston's
    mass from its mesh, the rod's small-end marker at 0.15 m, gravity -9.81 m/s^2), a range
    to edit rather than the fields' 0 to 1; a parameter whose design value is 0 (the
    piston's initial velocity) leaves the range as it was, and so does picking the same
    one again after editing it; Count is kept."""
    bpy = blender
    mods = _mods(extension)
    sc = bs.slider_crank(bpy)
    scene = bpy.context.scene
    st = scene.mechanism.study
    st.count_1 = 7
    mass = mods.reader.read_scene(scene).mech.parts["piston"].mass
    marker = f"{sc['small_end'].mechanism.marker_j.name}.position.x"
    for name, v in (("piston.mass", mass), (marker, 0.15), ("gravity.z", -9.81)):
        st.pick_1 = name
        lo, hi = sorted((0.8 * v, 1.2 * v))
        assert (st.start_1, st.stop_1) == (pytest.approx(lo, rel=1e-6), pytest.approx(hi, rel=1e-6))
    st.pick_1 = "piston.velocity.x"                     # designed at rest: 0
    assert (st.start_1, st.stop_1) == (pytest.approx(-11.772, rel=1e-6),
                                       pytest.approx(-7.848, rel=1e-6))
    st.pick_1 = marker
    st.start_1 = 0.1                                    # edited, then picked again
    st.pick_1 = marker
    assert st.start_1 == pytest.approx(0.1, rel=1e-6) and st.count_1 == 7


def test_bad_parameters_name_the_problem_and_change_nothing(blender, extension) -> None:
    bpy = blender
    mods = _mods(extension)
    # no mechanism: no parameters, the panel says why
    names, error = mods.study.parameter_choices(bpy.context.scene)
    assert names == [] and "no moving part" in error
    labels = bs.panel_labels(bpy, "VIEW3D_PT_mechanism_study")
    assert "No mechanism to study:" in labels and any("no moving part" in t for t in labels)
    sc, rod_marker = setup(bpy)
    st = bpy.context.scene.mechanism.study
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    snap, table = bs.snapshot(bpy), st.table
    for change, msg in (
            (dict(parameter_1="nope.mass"), "unknown parameter 'nope.mass'"),
            (dict(parameter_1="block.mass"), "part 'block' is fixed"),
            (dict(start_1=2.0, stop_1=2.0), "piston.mass from 2 to 2 is an empty range"),
            (dict(parameter_2="piston.mass"), "'piston.mass' is picked twice"),
            (dict(start_1=-1.0), "mass")):
        old = {k: getattr(st, k) for k in change}
        for k, v in change.items():
            setattr(st, k, v)
        with pytest.raises(RuntimeError, match=msg) as err:
            bpy.ops.mechanism.study_run()
        assert str(err.value).count("Study: ") == 1, str(err.value)   # said once, first
        assert str(err.value).startswith("Error: Study: "), str(err.value)
        assert st.table == table and bs.differences(snap, bs.snapshot(bpy)) == []
        for k, v in old.items():
            setattr(st, k, v)
    # a zero count cannot be set (Count's minimum is 1); the solver refuses no values anyway
    st.count_1 = 0
    assert st.count_1 == 1
    # a parameter that is gone from the scene: Bake Variant refuses by name
    bpy.data.objects.remove(bpy.data.objects[rod_marker])
    sc["small_end"].mechanism.marker_j = None
    with pytest.raises(RuntimeError, match="Bake Variant: joint 'small end': marker J is not set"):
        bpy.ops.mechanism.study_bake(variant=0)


@pytest.mark.parametrize("op", ["study_run", "study_bake"])
def test_study_operators_declare_undo(blender, op: str) -> None:
    cls = blender.types.Operator.bl_rna_get_subclass_py(f"MECHANISM_OT_{op}")
    assert cls is not None and "UNDO" in cls.bl_options


def test_bake_variant_is_one_undo_step(blender, extension) -> None:
    bpy = blender
    sc, _ = setup(bpy)
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    bpy.ops.ed.undo_push(message="before the variant")
    assert bpy.ops.mechanism.study_bake("EXEC_DEFAULT", True, variant=2) == {"FINISHED"}
    assert bpy.context.scene.objects["piston"].mechanism.baked
    bpy.ops.ed.undo()
    scene = bpy.context.scene
    assert not scene.objects["piston"].mechanism.baked
    assert scene.mechanism.study.baked_variant == -1 and len(scene.mechanism.study.rows) == 6


def test_scene_constants_drive_expressions_and_a_study_varies_them(blender, extension,
                                                                      tmp_path) -> None:
    """The Constants sub-panel: the crank driven at "omega*t" with omega = 3 rad/s from the
    scene's list (added and named through the operators) bakes the crank at 3 t; a study of
    "constants.omega" equals the solver's Study of the same scene; the list survives save
    and reload; a constant named like the variable t and an unknown name in an expression
    are refused by name and change nothing."""
    bpy = blender
    mods = _mods(extension)
    sc = bs.slider_crank(bpy)
    main_name = sc["main"].name
    st = bpy.context.scene.mechanism
    assert bpy.ops.mechanism.constant_add() == {"FINISHED"}
    assert bpy.ops.mechanism.constant_add() == {"FINISHED"}
    assert [c.name for c in st.constants] == ["k1", "k2"] and st.constant_index == 1
    assert bpy.ops.mechanism.constant_remove() == {"FINISHED"}
    st.constants[0].name, st.constants[0].value = "omega", 3.0
    sc["main"].mechanism.motion_expression = "omega*t"
    items = bs.panel_items(bpy, "VIEW3D_PT_mechanism_constants")
    assert ("operator", "mechanism.constant_add") in items
    assert ("list", "MECHANISM_UL_constants", "", "constants", "constant_index") in items
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, _, quat = bs.baked_pose(sc["crank"])
    t = (frames - bs.FRAME_START) / 24.0
    angle = 2.0 * np.arctan2(quat[:, 3], quat[:, 0])           # about z, from the bake
    np.testing.assert_allclose(np.angle(np.exp(1j * (angle - 3.0 * t))), 0.0, atol=1e-6)
    # a spring's actuator and a force take them too (each only the ones it uses)
    piston_pin = sc["small_end"].mechanism.marker_i
    rod_pin = sc["small_end"].mechanism.marker_j
    bs.new_spring(bpy, "cord", piston_pin, rod_pin, stiffness=10.0, actuator="omega*(1 + speed)")
    bs.new_force(bpy, "push", piston_pin, force="0, 0, -omega")
    mech = mods.reader.read_scene(bpy.context.scene).mech
    assert mech.springs["cord"].constants == {"omega": 3.0}
    assert mech.loads["push"].constants == {"omega": 3.0}
    assert mech.motions[next(iter(mech.motions))].constants == {"omega": 3.0}
    # the study's parameter list offers the constant; the table is the solver's own
    names, _ = mods.study.parameter_choices(bpy.context.scene)
    assert {"constants.omega", "cord.omega", "push.omega"} <= set(names)
    ss = st.study
    ss.pick_1 = "constants.omega"
    ss.start_1, ss.stop_1, ss.count_1 = 2.0, 4.0, 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    sm = mods.reader.read_scene(bpy.context.scene)
    ref = mods.solver.Study(sm.mech, mods.solver.grid({"constants.omega": [2.0, 4.0]})).run(
        times=sm.timeline.times, analysis="kinematic")
    same_table(mods.study.stored_table(ss), ref)
    # saved with the file
    path = str(tmp_path / "constants.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=path)
    st = bpy.context.scene.mechanism
    assert [(c.name, c.value) for c in st.constants] == [("omega", 3.0)]
    # bad names: refused by name, nothing changed
    snap = bs.snapshot(bpy)
    st.constants[0].name = "t"
    with pytest.raises(RuntimeError, match="Constants: 't' cannot be used as a constant's name"):
        bpy.ops.mechanism.bake()
    st.constants[0].name = "omega"
    main = bpy.data.objects[main_name]
    main.mechanism.motion_expression = "omegaa*t"
    with pytest.raises(RuntimeError, match=r"omegaa.*allowed: t, omega"):
        bpy.ops.mechanism.bake()
    main.mechanism.motion_expression = "omega*t"
    assert bs.differences(snap, bs.snapshot(bpy)) == []


def test_a_gear_ratio_study_through_the_panel(blender, extension) -> None:
    """Couple's gear (radii from the discs' meshes) offers its ratio to the Study picker;
    Run Study over two ratios gives the solver's own table of the scene, and Bake Variant
    of the second bakes gear 2 turning -1/ratio times gear 1's drive while the gear object's
    own settings stay as designed."""
    bpy = blender
    mods = _mods(extension)
    d = bs.gear_pair(bpy)
    name = f"{d['gear'].name}.ratio"
    names, _ = mods.study.parameter_choices(bpy.context.scene)
    assert name in names
    st = bpy.context.scene.mechanism.study
    st.pick_1 = name
    st.start_1, st.stop_1, st.count_1 = 2.0, 4.0, 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    sm = mods.reader.read_scene(bpy.context.scene)
    ref = mods.solver.Study(sm.mech, mods.solver.grid({name: [2.0, 4.0]})).run(
        times=sm.timeline.times)
    table = mods.study.stored_table(st)
    assert not table.failures
    same_table(table, ref)
    before = design(bpy)
    st.row_index = 1
    assert bpy.ops.mechanism.study_bake() == {"FINISHED"}
    assert design(bpy) == before
    frames, _, q1 = bs.baked_pose(d["g1"])
    _, _, q2 = bs.baked_pose(d["g2"])
    turn = [np.unwrap(2.0 * np.arctan2(q[:, 3], q[:, 0])) for q in (q1, q2)]
    np.testing.assert_allclose(turn[1] - turn[1][0], -(turn[0] - turn[0][0]) / 4.0, atol=2e-6)


@pytest.mark.slow
def test_a_door_stop_study_through_the_panel(blender, extension) -> None:
    """The door's lower stop (on its hinge's properties) offers its bound and restitution
    to the Study picker, the restitution's design value shown; Run Study over two
    restitutions (a rigid stop: the variants run one by one, with their impacts) gives the
    solver's own table of the scene."""
    bpy = blender
    mods = _mods(extension)
    d = bs.door(bpy, restitution=0.2)
    limit = f"{d['hinge'].name}: limit"
    names, _ = mods.study.parameter_choices(bpy.context.scene)
    assert {f"{limit}.lower", f"{limit}.restitution"} <= set(names)
    sm = mods.reader.read_scene(bpy.context.scene)
    design_value = importlib.import_module(
        f"{extension.__name__}.addon.io.study_table").design_value
    p = mods.solver.study.resolve(sm.mech, f"{limit}.restitution")
    assert design_value(sm.mech, p) == pytest.approx(0.2)
    st = bpy.context.scene.mechanism.study
    st.pick_1 = f"{limit}.restitution"
    st.start_1, st.stop_1, st.count_1 = 0.2, 0.6, 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    ref = mods.solver.Study(sm.mech, mods.solver.grid({f"{limit}.restitution": [0.2, 0.6]})).run(
        times=sm.timeline.times)
    table = mods.study.stored_table(st)
    assert not table.failures and table.columns == list(ref.summary)
    for c, col in ref.summary.items():     # the same numbers, to the last bit
        np.testing.assert_array_equal(table.column(c), np.asarray(col, dtype=float), err_msg=c)


def test_a_moved_marker_gives_its_parameter_a_new_design_value(blender, extension,
                                                               monkeypatch) -> None:
    """The pickers read the scene once while nothing they read has changed: moving the rod's
    small-end marker 5 cm along the rod (in its part's frame) and picking its position again
    fills the range around the new 0.2 m (it kept the 0.15 m read before); a baked scene
    played frame by frame is not read again (the parts' design placements are the ones
    from before the bake)."""
    bpy = blender
    mods = _mods(extension)
    sc = bs.slider_crank(bpy)
    scene = bpy.context.scene
    st = scene.mechanism.study
    marker_ob = sc["small_end"].mechanism.marker_j
    name = f"{marker_ob.name}.position.x"
    st.pick_1 = name
    assert (st.start_1, st.stop_1) == (pytest.approx(0.12, rel=1e-6), pytest.approx(0.18, rel=1e-6))
    marker_ob.location.x += 0.05
    bpy.context.view_layer.update()
    st.pick_1 = "gravity.z"
    st.pick_1 = name
    assert (st.start_1, st.stop_1) == (pytest.approx(0.16, rel=1e-6), pytest.approx(0.24, rel=1e-6))
    marker_ob.location.x -= 0.05
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    mods.study.parameter_choices(scene)
    reads = []
    real = mods.study.read_scene
    monkeypatch.setattr(mods.study, "read_scene", lambda *a, **k: reads.append(1) or real(*a, **k))
    for f in range(scene.frame_start, scene.frame_start + 12):
        scene.frame_set(f)
        mods.study.parameter_choices(scene)
    assert reads == []


def test_a_contacts_numbers_are_study_parameters_in_the_panel(blender, extension) -> None:
    """A Contact object offers its restitution, friction, slip speed and stiffness law to
    the Study picker (Stiffness 0: the time constant; a Stiffness: it and its exponent),
    the restitution's design value shown and the slip speed in the scene's velocity unit;
    Run Study over two restitutions (a mechanism with contacts: the variants one by one,
    each with its touchdown) gives the solver's own table of the scene to the last bit."""
    from test_addon_contacts import ball_drop
    bpy = blender
    mods = _mods(extension)
    bs.set_range(bpy, 1, 13)
    d = ball_drop(bpy, height=0.2, restitution=0.8)
    c = d["contact"].name
    scene = bpy.context.scene
    names, _ = mods.study.parameter_choices(scene)
    common = {f"{c}.{f}" for f in ("restitution", "friction", "dynamic_friction", "slip_speed")}
    assert common | {f"{c}.time_constant"} <= set(names) and f"{c}.stiffness" not in names
    assert mods.study.nominal(scene, f"{c}.restitution") == pytest.approx(0.8)
    assert mods.study.unit_of(scene, f"{c}.slip_speed") == "VELOCITY"
    d["contact"].mechanism.contact_stiffness = 1e5
    names, _ = mods.study.parameter_choices(scene)
    assert common | {f"{c}.stiffness", f"{c}.exponent"} <= set(names)
    assert f"{c}.time_constant" not in names
    st = scene.mechanism.study
    st.pick_1 = f"{c}.restitution"
    st.start_1, st.stop_1, st.count_1 = 0.4, 0.9, 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    sm = mods.reader.read_scene(scene)
    ref = mods.solver.Study(sm.mech, mods.solver.grid({f"{c}.restitution": [0.4, 0.9]})).run(
        times=sm.timeline.times)
    table = mods.study.stored_table(st)
    assert not table.failures
    same_table(table, ref)


def test_bake_variant_names_the_clashes_of_the_variants_motion(blender, extension) -> None:
    """Bake Variant reports what Bake reports: the swung ball of test_addon_contacts
    (its motion drives it through the post from frame 6 to 20, deepest 0.14 m at frame 13)
    baked as a variant of a study over its contact's restitution names the clash in the
    status bar and the report box, as Bake does, with the variant's own line first."""
    from test_addon_contacts import swung_ball
    bpy = blender
    d = swung_ball(bpy)
    scene = bpy.context.scene
    st = scene.mechanism.study
    st.pick_1 = f"{d['contact'].name}.restitution"
    st.start_1, st.stop_1, st.count_1 = 0.4, 0.9, 2
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    scene.mechanism.report = ""
    assert bpy.ops.mechanism.study_bake(variant=1) == {"FINISHED"}
    report = scene.mechanism.report
    assert report.startswith("baked variant 1"), report
    assert "parts 'ball' and 'post' overlap from frame 6 (15 frame(s))" in report, report


def test_the_study_panel_shows_where_plot_and_table_are_written(blender, extension, tmp_path) -> None:
    """Plot Study and Export Study CSV write to the study's Plot File and Study CSV: once a
    table exists the panel shows both paths, so they can be set where the buttons are, and
    Export Study CSV writes to the path shown."""
    bpy = blender
    setup(bpy)
    st = bpy.context.scene.mechanism.study
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    props = [i[1] for i in bs.panel_items(bpy, "VIEW3D_PT_mechanism_study") if i[0] == "prop"]
    assert "plot_path" in props and "csv_path" in props
    st.csv_path = str(tmp_path / "shown.csv")
    assert bpy.ops.mechanism.study_export_csv() == {"FINISHED"}
    assert (tmp_path / "shown.csv").exists()
