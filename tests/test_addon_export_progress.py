"""The modal Export CSV as the UI runs it (addon/export_csv.py, addon/background.py), driven
tick by tick in real Blender: the solve and the files' writing on the worker thread, their
share done in the status bar, Esc cancelling with nothing written and the scene as before."""
from __future__ import annotations

import re
import time
from types import SimpleNamespace

import blender_scenes as bs

TIMER, ESC = SimpleNamespace(type="TIMER"), SimpleNamespace(type="ESC")
FRAMES = 2000       # the slider-crank's frames: a solve of some 0.5 s, rows in 10 blocks


def modal_export(bpy, extension, path: str, said: list, seen: list):
    """A modal Export CSV started as ``invoke`` starts it: an object with the operator's own
    ``_prepared`` and ``finished`` and the BackgroundRun it mixes in (an operator cannot be
    made outside Blender's event loop: ``launch`` is ``start`` less the modal handler), its
    reports into ``said``, every progress count the work gives into ``seen``."""
    export = bpy.types.Operator.bl_rna_get_subclass_py("MECHANISM_OT_export_csv")
    module = extension.addon.export_csv

    class Modal(extension.addon.background.BackgroundRun):
        _prepared, finished, filepath = export._prepared, export.finished, path

        def report(self, kind, text):
            said.append(text)

    op = Modal()
    work = op._prepared(bpy.context)
    op.launch(bpy.context, lambda progress: work(lambda k, n: seen.append((k, n))
                                                 or progress(k, n)), module.STATUS)
    return op


def ticks(bpy, op, esc_after: int | None = None) -> tuple[set, list[str]]:
    """The operator's timer ticks until it ends (Esc after ``esc_after`` ticks); its result
    and the statuses shown."""
    shown = []
    for tick in range(100_000):
        if tick == esc_after:
            assert op.modal(bpy.context, ESC) == {"RUNNING_MODAL"}
        out = op.modal(bpy.context, TIMER)
        if out != {"RUNNING_MODAL"}:
            return out, shown
        shown.append(op.shown)
        time.sleep(0.005)
    raise AssertionError("the export did not end")


def test_a_modal_export_shows_its_progress_and_writes_what_the_export_writes(
        blender, extension, tmp_path) -> None:
    """The slider-crank over 2,000 frames exported modally: the status bar says the share
    done ("Export CSV: <p>% ..."), rising; the work counts the solve's frames and then the
    rows written as one count, rising to its end (4,000 of 4,000); the file is the
    synchronous export's byte for byte.  Before, Export CSV ran only synchronously: 100
    parts over 10,000 frames kept Blender frozen for 11 s with nothing shown."""
    bpy = blender
    bs.slider_crank(bpy)
    bs.set_range(bpy, 1, FRAMES)
    want = tmp_path / "sync.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(want)) == {"FINISHED"}
    said, seen = [], []
    path = tmp_path / "modal.csv"
    out, shown = ticks(bpy, modal_export(bpy, extension, str(path), said, seen))
    assert out == {"FINISHED"}, said
    assert said[-1].startswith(f"wrote {FRAMES} frames to {path}"), said
    assert path.read_bytes() == want.read_bytes()
    events = tmp_path / "modal_events.csv"
    assert events.read_bytes() == (tmp_path / "sync_events.csv").read_bytes()
    counts = [k for k, _ in seen]
    assert {n for _, n in seen} == {2 * FRAMES} and counts == sorted(counts), seen[:5]
    assert counts[-1] == 2 * FRAMES and any(FRAMES < k < 2 * FRAMES for k in counts), seen
    said_p = [re.fullmatch(r"Export CSV: (\d+)% \(solving, then writing the file; Esc to "
                           r"cancel\)", t) for t in shown]
    assert shown and all(said_p), shown
    share = [int(m.group(1)) for m in said_p]
    assert share == sorted(share), shown


def test_esc_cancels_a_modal_export_and_nothing_is_written(blender, extension,
                                                           tmp_path) -> None:
    """Esc at the first tick of a 2,000-frame export: it ends cancelled, saying nothing was
    written; a file already at the path keeps its bytes, no events file or temporary file
    is left, and the scene is as it was."""
    bpy = blender
    bs.slider_crank(bpy)
    bs.set_range(bpy, 1, FRAMES)
    before = bs.snapshot(bpy)
    path = tmp_path / "kept.csv"
    path.write_text("the user's own file\n")
    said: list = []
    out, _ = ticks(bpy, modal_export(bpy, extension, str(path), said, []), esc_after=0)
    assert out == {"CANCELLED"}
    assert said == ["Export CSV cancelled; nothing was written"]
    assert path.read_text() == "the user's own file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.csv"]
    assert bs.differences(before, bs.snapshot(bpy)) == []
