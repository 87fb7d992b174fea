"""Design studies run through the Study panel whose variants run together in one
lockstep run (study/lockstep.py): stiff variants by Radau IIA, a dry hinge's variants with
their own slipping and sticking; each table the solver's own Study of the scene."""
from __future__ import annotations

import importlib

import blender_scenes as bs
from test_addon_study import _mods, same_table


def _spied(extension, monkeypatch, name: str) -> list:
    """The engine's lockstep entry ``name`` spied: [(variants, every one kept)] per call."""
    engine = importlib.import_module(f"{extension.__name__}.solver.study.engine")
    calls, real = [], getattr(engine, name)

    def spy(models, *a, **k):
        out = real(models, *a, **k)
        calls.append((len(models), out is not None and all(o is not None for o in out)))
        return out
    monkeypatch.setattr(engine, name, spy)
    return calls


def test_a_stiff_study_runs_its_variants_together(blender, extension, monkeypatch) -> None:
    """The pendulum on a heavy torsion damper (2000 to 8000 N m s/rad on its pin: every
    variant stiff, so Radau IIA) studied through Run Study: the three variants run together
    in the lockstep Radau IIA run (study/lockstep.py ``batch_implicit``, spied in the engine), and the
    table equals the solver's own Study of the scene."""
    bpy = blender
    mods = _mods(extension)
    d = bs.pendulum(bpy)
    scene = bpy.context.scene
    scene.mechanism.tolerance = 1e-6
    s = d["pin"].mechanism
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 10.0, 2000.0
    name = f"{d['pin'].name}: torsion spring.damping"
    st = scene.mechanism.study
    st.parameter_1 = name
    st.start_1, st.stop_1, st.count_1 = 2000.0, 8000.0, 3
    calls = _spied(extension, monkeypatch, "batch_implicit")
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    assert calls == [(3, True)]
    table = mods.study.stored_table(st)
    sm = mods.reader.read_scene(scene)
    ref = mods.solver.Study(sm.mech, mods.solver.grid({name: [2000.0, 5000.0, 8000.0]})).run(
        times=sm.timeline.times, tolerance=1e-6)
    assert "Radau" in ref.result(0).method and not table.failures
    same_table(table, ref)


def test_a_dry_hinge_study_runs_its_variants_together(blender, extension, monkeypatch) -> None:
    """The door on a dry hinge (a closer, a stop at the frame, friction 0.2 / 0.15 on a
    10 mm pin) studied through Run Study, its static friction 0.2 to 0.6: the three
    variants run in one lockstep run (spied in the engine), each slipping and sticking at
    its own instants, and the table equals the solver's own Study of the scene."""
    bpy = blender
    mods = _mods(extension)
    d = bs.door(bpy)
    scene = bpy.context.scene
    s = d["hinge"].mechanism
    s.use_joint_friction, s.friction_radius = True, 0.01
    names, error = mods.study.parameter_choices(scene)
    name = next(n for n in names if n.endswith("friction.static"))
    st = scene.mechanism.study
    st.parameter_1 = name
    st.start_1, st.stop_1, st.count_1 = 0.2, 0.6, 3
    calls = _spied(extension, monkeypatch, "batch_dynamics")
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    assert error == "" and calls == [(3, True)]
    table = mods.study.stored_table(st)
    sm = mods.reader.read_scene(scene)
    ref = mods.solver.Study(sm.mech, mods.solver.grid({name: [0.2, 0.4, 0.6]})).run(
        times=sm.timeline.times)
    assert not table.failures
    same_table(table, ref)
