"""What a bake says when it is done (Bake, Bake Variant): its notes, in the status bar and
the report box."""
from __future__ import annotations

from . import bake
from .curve_reader import length_text, scene_lengths
from .deformed_parts import shape_notes
from .io.clashes import clash_note, clash_tolerance
from .io.settings import in_panel_terms
from .io.timeline import with_scene_frame


def bake_notes(scene, sm, result) -> list[str]:
    """What the user should know after a bake (Bake, Bake Variant): a mesh whose mass is
    not a solid's, imperfect geometry, contacts the motions drive through each other, the
    run's own notes (at scene frames, in the panel's terms), parts whose mesh changes shape
    as the bake plays (deformed_parts.py), keys the solver's are hidden behind, a Time
    Remapping that plays them at another speed."""
    return run_notes(scene, sm, result) + shape_notes(scene, sm) + bake.stale_notes(scene) + \
        bake.hidden_notes(sm.parts + sm.joints + sm.couplers + sm.bushings
                          + sm.vector_forces + sm.contacts
                          + [ob for ob, _ in sm.follows.values()])


def run_notes(scene, sm, result) -> list[str]:
    """What the user should know of a run of the scene read (Bake, Export CSV): what reading
    the scene found, contacts the motions drive through each other, the run's own notes
    (at scene frames, in the panel's terms and the scene's units)."""
    return sm.notes() + _clash_notes(scene, sm, result) + \
        [in_panel_terms(scene_lengths(with_scene_frame(n, sm.timeline.frames), scene))
         for n in result.notes]


def report_bake(op, scene, done: str, notes: list[str], level: str = "INFO") -> None:
    """``done`` and the bake's notes in the status bar (a warning when there are notes)
    and in the report box, which holds this run's notes or nothing, never an older run's
    text."""
    scene.mechanism.report = " | ".join([done] + [f"note: {n}" for n in notes]) \
        if notes else ""
    if notes:
        op.report({"WARNING"}, "; ".join([done] + notes))
    else:
        op.report({level}, done)


def _clash_notes(scene, sm, result) -> list[str]:
    """A kinematic bake's contacts whose parts the motions drive into each other: the first
    frame, the deepest overlap (scene units) and its frame (io/clashes.py)."""
    if result.analysis != "kinematic":
        return []
    frames = sm.timeline.frames_of(result.times)
    notes = []
    for ob in sm.contacts:
        s = ob.mechanism
        notes.append(clash_note(ob.name, s.contact_part_a.name, s.contact_part_b.name,
                                result.interference(ob.name)["gap"], frames,
                                clash_tolerance(sm.contact_sizes[ob.name]),
                                lambda metres: length_text(scene, metres)))
    return [n for n in notes if n]
