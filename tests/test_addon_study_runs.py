"""The Study panel's table from one run to the next in real Blender (addon/study.py
``store``): what a new run's table says about the scene's bake."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_study import _mods, setup


def test_a_new_run_marks_no_variant_of_its_table_baked(blender, extension) -> None:
    """Variant 4 baked (piston 2 kg), then the study run again over other masses: the new
    table's row 4 is piston 5 kg, which was never baked, yet the panel marked it "(baked)"
    (baked_variant kept its index across tables).  A new table marks no row baked; the
    scene's keys stay those of the bake."""
    bpy = blender
    mods = _mods(extension)
    sc, _ = setup(bpy)
    st = bpy.context.scene.mechanism.study
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    assert bpy.ops.mechanism.study_bake(variant=4) == {"FINISHED"}
    assert st.baked_variant == 4
    keys = bs.baked_pose(sc["piston"])
    st.start_1, st.stop_1, st.count_1 = 3.0, 6.0, 4
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    table = mods.study.stored_table(st)
    assert table.values(4)["piston.mass"] == 5.0
    assert st.baked_variant == -1
    st.row_index = 4
    labels = [i[1] for i in bs.panel_items(bpy, "VIEW3D_PT_mechanism_study") if i[0] == "label"]
    assert not any("(baked)" in text for text in labels)
    # the same keys: a batched sweep's numbers and a single sweep's agree to Newton's
    # tolerance (1e-12 m here) but may differ in the last bits where the two split the
    # frames into other blocks, which can round a float32 key to its neighbour (6e-8 BU
    # apart at the piston's 0.3-1 BU): within two of those
    for a, b in zip(keys, bs.baked_pose(sc["piston"])):
        np.testing.assert_allclose(a, b, rtol=0.0, atol=2.4e-7)


def test_run_study_names_a_failed_variants_values(blender, extension, capfd) -> None:
    """Run Study's report names the first failed variant by its values as well as its index
    and reason (the list shows only a few rows at a time; the command line names them the
    same way): "variant 1, piston.mass = 0.5 kg, rod.marker.position.x = -0.1 m: ..."."""
    bpy = blender
    _, rod_marker = setup(bpy)
    capfd.readouterr()
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    out = capfd.readouterr()
    said = out.out + out.err
    assert (f"3 failed (variant 1, piston.mass = 0.5 kg, {rod_marker}.position.x = -0.1 m: "
            "SolverError: lock-up at t = ") in said, said


def test_esc_during_a_study_leaves_the_scene_and_its_last_table(blender, extension) -> None:
    """Esc during Run Study (its worker's progress returns False: the solver's
    SolverCancelled, handed to the operator's ``finished`` on the main thread, as the modal
    run does): the table, its rows and the baked variant are the last complete run's, as
    a cancelled Bake changes nothing.  Before, the cancelled run's table replaced it: the
    batched variants, cancelled at their first report, every one "not run"."""
    bpy = blender
    mods = _mods(extension)
    setup(bpy)
    scene = bpy.context.scene
    st = scene.mechanism.study
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    assert bpy.ops.mechanism.study_bake(variant=4) == {"FINISHED"}
    table, rows = st.table, len(st.rows)
    snap = bs.snapshot(bpy)
    st.start_1, st.stop_1 = 3.0, 6.0
    sm, study, how = mods.study.study_of(scene)
    with pytest.raises(mods.solver.SolverCancelled) as cancel:
        mods.study.run_study(study, sm, how, progress=lambda done, total: False)
    said = []
    op = SimpleNamespace(_sm=sm, _how=how, report=lambda kind, text: said.append(text))
    run = bpy.types.Operator.bl_rna_get_subclass_py("MECHANISM_OT_study_run")
    assert run.finished(op, bpy.context, cancel.value, None) == {"CANCELLED"}
    assert said == ["study cancelled; nothing was changed (the table is the last complete "
                    "run's)"]
    assert st.table == table and len(st.rows) == rows and st.baked_variant == 4
    st.start_1, st.stop_1 = 0.5, 2.0
    assert [d for d in bs.differences(snap, bs.snapshot(bpy)) if "/report" not in d] == []


def test_bake_variant_says_the_design_values_kept_with_their_units(blender, extension,
                                                                    capfd) -> None:
    """Bake Variant's report gives the variant's values with their SI units and the design
    values the scene keeps with the same units: "piston.mass = 2 kg ... piston.mass stays
    0.125 kg", not a bare "stays 0.125" beside "2 kg" (a bare number, in a scene whose
    fields show other units, does not say which)."""
    bpy = blender
    _, rod_marker = setup(bpy)
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.mechanism.study_bake(variant=4) == {"FINISHED"}
    out = capfd.readouterr()
    said = out.out + out.err
    assert (f"baked variant 4 (piston.mass = 2 kg, {rod_marker}.position.x = 0.15 m)" in said
            and f"(piston.mass stays 0.125 kg, {rod_marker}.position.x stays 0.15 m)" in said), said


def test_a_new_run_lets_go_of_the_last_runs_results_first(blender, extension,
                                                          monkeypatch) -> None:
    """A study keeps every variant's whole Result for Bake Variant (300 variants of a
    150-part chain over 240 frames: 2.8 GB); a new run computed its own beside them, so
    its peak held both (5.8 GB measured for a second run of that study).  The last run's
    Results are now let go as a new run starts; a run cancelled then (Esc) keeps the last
    table, and Bake Variant of its row 4 solves the variant again: the keys of the bake
    made from the kept Result."""
    bpy = blender
    mods = _mods(extension)
    sc, _ = setup(bpy)
    scene = bpy.context.scene
    st = scene.mechanism.study
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    assert bpy.ops.mechanism.study_bake(variant=4) == {"FINISHED"}
    keys = bs.baked_pose(sc["piston"])
    table = st.table
    held = []

    def cancelled(*args, **kwargs):
        held.append(mods.study.last_result(scene))
        raise mods.solver.SolverCancelled("Esc")
    monkeypatch.setattr(mods.study, "run_study", cancelled)
    assert bpy.ops.mechanism.study_run() == {"CANCELLED"}
    assert held == [None] and st.table == table
    assert bpy.ops.mechanism.study_bake(variant=4) == {"FINISHED"}
    # the same keys: a batched sweep's numbers and a single sweep's agree to Newton's
    # tolerance (1e-12 m here) but may differ in the last bits where the two split the
    # frames into other blocks, which can round a float32 key to its neighbour (6e-8 BU
    # apart at the piston's 0.3-1 BU): within two of those
    for a, b in zip(keys, bs.baked_pose(sc["piston"])):
        np.testing.assert_allclose(a, b, rtol=0.0, atol=2.4e-7)


@pytest.mark.parametrize("load", ["new file", "open a file"])
def test_loading_a_file_lets_go_of_the_last_runs_results(blender, extension, tmp_path,
                                                         load: str) -> None:
    """The Results a run keeps for Bake Variant are of a scene that File > New or File > Open
    ends: they were held until the next run (gigabytes for a large study, kept unseen),
    and could never serve again (a loaded scene is another one).  Now a load lets them go:
    nothing refers to the StudyResult any more once the file is loaded."""
    import gc
    import weakref
    bpy = blender
    mods = _mods(extension)
    setup(bpy)
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    kept = weakref.ref(mods.study.last_result(bpy.context.scene))
    assert kept() is not None
    path = str(tmp_path / "studied.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    if load == "new file":
        bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    else:
        bpy.ops.wm.open_mainfile(filepath=path)
    gc.collect()
    assert kept() is None


def test_study_reports_say_lengths_in_the_scenes_inches_too(blender, extension, capfd) -> None:
    """In a scene drawn in inches (Unit Scale 0.0254, Length Inches) a rod length typed as
    0.16 and -0.1 in (too short to reach: that variant fails) is said by Run Study, Bake
    Variant and Bake Variant's refusal of the failed one in the solver's metres and, as every
    other report does (docs/blender.md, Units), in the inches the user typed:
    "position.x = 0.004064 m (0.16 in)", "stays 0.00381 m (0.15 in)"."""
    bpy = blender
    sc = bs.slider_crank(bpy)
    units = bpy.context.scene.unit_settings
    units.system, units.length_unit, units.scale_length = "IMPERIAL", "INCHES", 0.0254
    rod_marker = sc["small_end"].mechanism.marker_j.name           # on the rod, x = 0.15 in
    st = bpy.context.scene.mechanism.study
    st.pick_1 = f"{rod_marker}.position.x"
    st.start_1_length, st.stop_1_length, st.count_1 = 0.16, -0.1, 2
    capfd.readouterr()
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    out = capfd.readouterr()
    said = out.out + out.err
    assert f"(variant 1, {rod_marker}.position.x = -0.00254 m (-0.1 in): " in said, said
    assert bpy.ops.mechanism.study_bake(variant=0) == {"FINISHED"}
    out = capfd.readouterr()
    said = out.out + out.err
    assert (f"baked variant 0 ({rod_marker}.position.x = 0.004064 m (0.16 in))" in said
            and f"({rod_marker}.position.x stays 0.00381 m (0.15 in))" in said), said
    with pytest.raises(RuntimeError, match=rf"variant 1 \({rod_marker}.position.x = "
                       r"-0.00254 m \(-0.1 in\)\) failed"):
        bpy.ops.mechanism.study_bake(variant=1)
