"""The modal Bake as the UI runs it (addon/background.py), driven tick by tick in real
Blender: the solve on its worker thread, then the keys written on the main thread in
slices between the timer's ticks, the status bar saying how far the writing is."""
from __future__ import annotations

import re
import time
from types import SimpleNamespace

import blender_scenes as bs

TIMER, ESC = SimpleNamespace(type="TIMER"), SimpleNamespace(type="ESC")


def modal_bake(bpy, extension, said: list):
    """A modal Bake started as ``invoke`` starts it: an object with the Bake operator's own
    ``finished`` and the BackgroundRun it mixes in (an operator cannot be made outside
    Blender's event loop, nor a modal handler added for anything else: ``launch`` is
    ``start`` less that), its reports into ``said``."""
    ops, background = extension.addon.operators, extension.addon.background
    bake = bpy.types.Operator.bl_rna_get_subclass_py("MECHANISM_OT_bake")

    class Modal(background.BackgroundRun):
        finished, _done, _finish_steps = bake.finished, bake._done, bake._finish_steps

        def report(self, kind, text):
            said.append(text)

    op, scene = Modal(), bpy.context.scene
    op._moved = extension.addon.moved_parts.carry(scene)
    op._sm, op._cost = ops.bake_reading(scene), None
    how, sm = ops._bake_options(scene, op._sm), op._sm
    op.launch(bpy.context, lambda progress: sm.mech.solve(times=sm.timeline.times,
                                                          progress=progress, **how),
             "Mechanism bake: frame {k} of {n} (Esc to cancel)")
    return op


def test_a_modal_bake_shows_its_writing_and_writes_what_a_bake_writes(blender, extension,
                                                                       monkeypatch) -> None:
    """The slider-crank (3 moving parts, 4 joints with force plots) baked modally, one step
    of the writing a tick (WRITE_SLICE 0): after the solve the status bar says the share
    of the results written, rising to 100%, at least once per object written (each part's
    keys, each joint's plots); Esc meanwhile does not stop it (the solve is done, and a
    half-written bake would lose the old one).  The scene is then the synchronous Bake's,
    keys bit for bit.  Before, the whole writing ran inside one tick after the solve's last
    report (a 10,000-frame bake of 100 parts: 5 to 15 s with nothing shown)."""
    bpy = blender
    bs.slider_crank(bpy)
    bpy.ops.ed.undo_push(message="built")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    want = bs.snapshot(bpy)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    monkeypatch.setattr(extension.addon.background, "WRITE_SLICE", 0.0)
    said: list = []
    op = modal_bake(bpy, extension, said)
    shown = []
    for _ in range(10_000):
        out = op.modal(bpy.context, TIMER)
        if out != {"RUNNING_MODAL"}:
            break
        shown.append(op.shown)
        if "writing the results" in op.shown:
            assert op.modal(bpy.context, ESC) == {"RUNNING_MODAL"}
        time.sleep(0.005)
    assert out == {"FINISHED"}, said
    writing = [re.fullmatch(r"Mechanism bake: writing the results, (\d+)% \(Esc no longer "
                            r"cancels\)", t) for t in shown if "writing" in t]
    assert all(writing), shown
    share = [int(m.group(1)) for m in writing]
    assert len(share) >= 3 + 4 and share == sorted(set(share)) and share[-1] == 100, shown
    assert not any("cancel" in t for t in said) and "baked 3 part(s), 4 joint(s)" in said[-1]
    assert bs.differences(want, bs.snapshot(bpy)) == []
