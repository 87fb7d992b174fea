"""Modes in the sidebar: Find Modes (the natural frequencies about the static equilibrium at
the current frame, Mechanism.modes), the list of them, and Bake Mode (one mode's
oscillation keyed on the parts for viewing, io/modes.py)."""
from __future__ import annotations

import bpy

from ..solver import MechanismError, SolverError
from . import bake
from .bake_checks import mode_bake_problems, refuse_bake, refuse_frame_dependent
from .curve_reader import scene_lengths
from .io.modes import ModeAnimation, mode_label
from .io.settings import in_panel_terms
from .io.timeline import frame_text
from .moved_parts import carry, kept_if_done, read_carried
from .operators import _message
from .scene_reader import read_design

# Bake Mode's Amplitude left at 0 (its default), metres: a physical size whatever the Unit
# Scale, as a compliant stop's Penetration (io/limits.py)
DEFAULT_AMPLITUDE = 0.05


def mode_amplitude(st, scale: float) -> float:
    """Bake Mode's amplitude in metres: the scene settings' ``st`` Amplitude (Blender units,
    ``scale`` metres each), or DEFAULT_AMPLITUDE where it is 0."""
    return st.mode_amplitude * scale if st.mode_amplitude > 0.0 else DEFAULT_AMPLITUDE


def _time_now(scene, sm) -> float:
    """The solver time of the scene's current frame (s)."""
    return (scene.frame_current - sm.timeline.frame_start) / sm.timeline.fps


class MECHANISM_OT_find_modes(bpy.types.Operator):
    """Natural frequencies and damping of the mechanism about its static equilibrium, with
    the motions held at the current frame (nothing in the scene moves)"""
    bl_idname = "mechanism.find_modes"
    bl_label = "Find Modes"
    bl_options = {"REGISTER", "UNDO"}     # the list it fills is scene data: its own step

    def execute(self, context):
        scene = context.scene
        sm = None
        try:
            sm = read_carried(scene)           # the design a Bake reads (moved_parts.py)
            refuse_frame_dependent(scene)      # settings keyed to change: read at one frame
            modes = sm.mech.modes(time=_time_now(scene, sm))
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, _message(exc, sm, scene))
            return {"CANCELLED"}
        st = scene.mechanism
        st.modes.clear()
        for f, z in zip(modes.frequencies, modes.damping_ratios):
            item = st.modes.add()
            item.frequency, item.damping_ratio = float(f), float(z)
        st.mode_index = 0
        said = f"{len(modes)} mode(s) about the equilibrium at frame {frame_text(scene.frame_current)}"
        if not len(modes):          # (Bake Mode's poll then asks for a Find Modes: say why)
            said = (f"no mode at frame {frame_text(scene.frame_current)}: the joints and the "
                    "motions leave no freedom to vibrate (a joint whose Motion is None is free)")
        notes = sm.notes() + _solver_notes(scene, modes)   # the scene's reading (gravity,
        if notes or not len(modes):               # meshes), then the modes' own, as Bake says them
            self.report({"WARNING"}, "; ".join([said] + notes))
        else:
            self.report({"INFO"}, said)
        return {"FINISHED"}


def _solver_notes(scene, modes) -> list[str]:
    """The modes' notes in the panel's terms and the scene's units, as Bake says a run's."""
    return [in_panel_terms(scene_lengths(n, scene)) for n in modes.notes]


class MECHANISM_OT_bake_mode(bpy.types.Operator):
    """Key the selected mode's oscillation on the parts over the frame range, for viewing
    (Clear Bake removes it)"""
    bl_idname = "mechanism.bake_mode"
    bl_label = "Bake Mode"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        st = context.scene.mechanism if context.scene else None
        if st is None or not 0 <= st.mode_index < len(st.modes):
            cls.poll_message_set("Find Modes first, then pick one in the list (a mechanism "
                                 "its motions drive in every freedom has none)")
            return False
        if context.mode != "OBJECT":              # keys are written to objects, not meshes
            cls.poll_message_set("Bake Mode works in Object Mode: leave Edit Mode (Tab) first")
            return False
        return True

    def execute(self, context):
        """The mode keyed on the design a Bake reads: the baked parts' moves carried into
        it and kept, as a Bake keeps them (moved_parts.py)."""
        return kept_if_done(carry(context.scene), lambda: self._bake_mode(context))

    def _bake_mode(self, context):
        scene = context.scene
        st = scene.mechanism
        sm = None
        try:
            sm = read_design(scene)
            refuse_bake(sm, scene, mode_bake_problems)     # what would play over its keys
            modes = sm.mech.modes(time=_time_now(scene, sm))
            if st.mode_index >= len(modes):
                raise MechanismError(f"the mechanism has {len(modes)} mode(s) now, not "
                                     f"{st.mode_index + 1}: press Find Modes again")
            anim = ModeAnimation(modes, st.mode_index, mode_amplitude(st, sm.scale),
                                 st.mode_cycles, sm.timeline.times)
            bake.write_mode(scene, sm, anim)       # raises before it writes anything
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, _message(exc, sm, scene))
            return {"CANCELLED"}
        st.study.baked_variant = -1                # the keys are no Study variant's now
        st.report = ""                             # ... nor the notes of the bake replaced
        scene.frame_set(scene.frame_current, subframe=scene.frame_subframe)
        said = ("baked mode " + mode_label(st.mode_index, modes.frequencies[st.mode_index],
                                           modes.damping_ratios[st.mode_index]))
        notes = sm.notes() + _solver_notes(scene, modes)   # as Find Modes says them
        self.report({"WARNING"} if notes else {"INFO"}, "; ".join([said] + notes))
        return {"FINISHED"}


class MECHANISM_UL_modes(bpy.types.UIList):
    """The modes the last Find Modes found, slowest first."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        layout.label(text=mode_label(index, item.frequency, item.damping_ratio))


class VIEW3D_PT_mechanism_modes(bpy.types.Panel):
    """Natural frequencies and mode shapes about the static equilibrium."""
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Mechanism"
    bl_parent_id = "VIEW3D_PT_mechanism"
    bl_options = {"DEFAULT_CLOSED"}
    bl_label = "Modes"

    def draw(self, context):
        layout = self.layout
        st = context.scene.mechanism
        layout.operator("mechanism.find_modes", icon="FORCE_HARMONIC")
        layout.template_list("MECHANISM_UL_modes", "", st, "modes", st, "mode_index", rows=3)
        row = layout.row(align=True)
        row.prop(st, "mode_amplitude")
        row.prop(st, "mode_cycles")
        layout.operator("mechanism.bake_mode", icon="REC")


classes = (MECHANISM_OT_find_modes, MECHANISM_OT_bake_mode, MECHANISM_UL_modes,
           VIEW3D_PT_mechanism_modes)
