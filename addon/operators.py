"""Operators: tag objects, add markers, joints and couplers, check, assemble, bake, clear
(Export CSV: export_csv.py).

Each operator is thin (style.md): validate, build the model (scene_reader), solve, write
back (bake), report.  Every failure is reported with the object or joint and the frame, and
leaves the scene as it was: nothing is written until the solver has succeeded.
"""

from dataclasses import replace

import bpy
import numpy as np
from bpy.props import EnumProperty, StringProperty
from mathutils import Matrix

from ..solver import MechanismError, SolverCancelled, SolverError
from . import bake, bake_checks, contacts, coupling, moved_parts, scene_cache
from .background import BackgroundRun, drain, until_interrupted
from .bake_report import bake_notes, report_bake
from .curve_reader import angle_text, fit_signature, length_text, scene_lengths
from .deformed_parts import moving_shape_notes
from .io.drag import stops_note
from .io.follow import follow_hint
from .io.mass import inertia_six
from .io.run_cost import (baked_channels, cost_note, result_numbers, run_cost, solved_as,
                          study_cost, study_note)
from .io.limits import bounds_in_scene_units
from .io.settings import JOINT_KINDS, bake_options, in_panel_terms, kind_label, kinematic_note
from .io.start_gaps import start_notes
from .io.timeline import Timeline, frame_text, with_frame
from .markers import JOINT_SIZE, add_marker, display_size, picked_frame
from .mesh_arrays import refuse_collection_instance
from .properties import ROLES
from .scene_reader import read_design, read_scene


BAKE = "bake"      # Bake's and Export CSV's reading of the scene (scene_cache.py)


def bake_reading(scene):
    """The scene read as Bake reads it, again only when something that reading depends on
    changed (scene_cache.py), so that a re-bake of an unchanged design skips the read.  A
    reading whose markers follow objects is made at each bake: it samples their motion,
    which any object, constraint or driver may move."""
    bpy.context.view_layer.update()       # a script's changes tagged before the fingerprint
    return scene_cache.kept_or_made(scene, BAKE, read_design, at_frame=False,
                                    keep=lambda sm: not sm.follows)


def _solve_read(scene, sm, progress=None):
    """Solve a scene already read, with the scene's analysis settings, at the times of the
    scene's frames (row k of the Result is frame sm.timeline.frames[k]), keeping what a
    bake reads."""
    return sm.mech.solve(times=sm.timeline.times, progress=progress,
                         **_bake_options(scene, sm))


def _bake_options(scene, sm) -> dict:
    """The solver's keyword arguments of a bake of the scene read (io/settings.py)."""
    return bake_options(scene.mechanism, len(sm.bushings), len(sm.vector_forces),
                        len(sm.springs) + len(sm.torsions))


def _message(exc: Exception, sm=None, scene=None) -> str:
    """The error's text, naming the scene frame of the time it names (a SolverError's, or
    an expression's that fails at some time t while the scene is read): the frames of the
    scene read (``sm``), or of ``scene`` when reading it failed."""
    time = getattr(exc, "time", None)
    timeline = sm.timeline if sm is not None else (
        Timeline.of_scene(scene.frame_start, scene.frame_end, scene.render.fps,
                          scene.render.fps_base) if scene is not None else None)
    frame = timeline.frame_of(time) if timeline is not None and time is not None else None
    scene = scene if scene is not None else bpy.context.scene
    text = scene_lengths(in_panel_terms(follow_hint(with_frame(str(exc), frame))), scene)
    if sm is not None and getattr(exc, "joints", ()):
        slides = {n: (sm.mech.limits[n].lower, sm.mech.limits[n].upper)
                  for n, (_, coord) in sm.limits.items() if coord == "slide"}
        text = bounds_in_scene_units(text, exc.joints, slides, sm.scale,
                                     lambda metres: length_text(scene, metres))
    return text


def _cost_note(sm, analysis: str, variants: int = 0) -> str | None:
    """The warning of a frame range that would take long or much memory to bake by
    ``analysis`` ("kinematic" or "dynamic"; io/run_cost.py: a rough estimate from the
    mechanism's size), or, with ``variants`` > 0, to run a design study of that many
    variants over; None when it would not."""
    parts, joints, motions = len(sm.parts), len(sm.joints), len(sm.motions)
    extra = (4 * len(sm.couplers) + len(sm.cams) + len(sm.limits) + 3 * len(sm.frictions)
             + 8 * (len(sm.bushings) + len(sm.vector_forces)) + 4 * len(sm.contacts))
    frames = sm.timeline.frame_end - sm.timeline.frame_start + 1
    numbers = result_numbers(parts, 5 * joints + motions, joints, motions)
    if variants:
        return study_note(variants, frames,
                          study_cost(variants, frames, parts, numbers, analysis), analysis)
    driven = len({job.name for job, _ in sm.motions.values()})
    others = (len(sm.couplers) + len(sm.cams) + len(sm.limits) + len(sm.frictions)
              + len(sm.follows) + len(sm.contacts))
    solved = solved_as(analysis, parts, [ob.mechanism.joint_kind for ob in sm.joints], driven,
                       others)
    cost = run_cost(frames, parts, baked_channels(parts, joints, motions, extra), numbers,
                    solved)
    return cost_note(frames, cost, analysis)


def _bake_cost_note(sm, scene, variants: int = 0) -> str | None:
    """_cost_note for the scene's analysis setting; "Auto" is decided as the solver will
    (kinematic when the motions drive every freedom) only when a dynamic run would be worth
    a warning, so that an ordinary bake does not check the mechanism twice."""
    analysis = scene.mechanism.analysis.lower()
    if analysis == "auto":
        if _cost_note(sm, "dynamic", variants) is None:
            return None
        try:
            analysis = "kinematic" if sm.mech.check().driven_dof == 0 else "dynamic"
        except (MechanismError, SolverError):      # the bake itself will say why
            analysis = "dynamic"
    return _cost_note(sm, analysis, variants)


def _store_mass_display(sm, scene) -> None:
    """Show computed mass properties on the parts, and how closely each curve joint follows
    its curves on the joint with what that was measured on (after a successful read)."""
    for ob in sm.parts:
        props, warning = sm.mass_properties.get(ob.name, (None, ""))
        s = ob.mechanism
        if props is not None and s.mass_mode == "MESH":
            s.computed_mass = props["mass"]
            s.computed_inertia = inertia_six(props["inertia"])
            s.computed_center_of_mass = props["center_of_mass"]
            s.computed_density = s.density
        s.mesh_warning = warning
    for ob in sm.joints:
        lines = " | ".join(sm.curve_lines.get(ob.name, ()))
        key = fit_signature(ob, scene) if lines else ""
        if ob.mechanism.curve_fit != lines or ob.mechanism.curve_fit_key != key:
            ob.mechanism.curve_fit, ob.mechanism.curve_fit_key = lines, key


class MECHANISM_OT_set_role(bpy.types.Operator):
    """Tag the selected objects with a mechanism role"""
    bl_idname = "mechanism.set_role"
    bl_label = "Set Role"
    bl_options = {"REGISTER", "UNDO"}
    role: EnumProperty(name="Role", items=ROLES,
                       description="What the selected objects become in the mechanism")

    @classmethod
    def poll(cls, context):
        if not context.selected_objects:
            cls.poll_message_set("Select the objects to tag first")
            return False
        return True

    def execute(self, context):
        # every object checked before any is tagged: a refusal leaves the selection as it was
        wrong = [ob.name for ob in context.selected_objects
                 if self.role == "MARKER" and ob.type != "EMPTY"]
        if wrong:
            self.report({"ERROR"}, f"{', '.join(map(repr, wrong))}: not an Empty; a marker is "
                                   "an Empty parented to a part (Add Marker makes one on the "
                                   "active part); nothing was tagged")
            return {"CANCELLED"}
        for ob in context.selected_objects:
            ob.mechanism.role = self.role
        return {"FINISHED"}


class MECHANISM_OT_add_marker(bpy.types.Operator):
    """Add a marker to the active part at the 3D cursor, or in Edit Mode at the selected
    vertex or face, z along its normal"""
    bl_idname = "mechanism.add_marker"
    bl_label = "Add Marker"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        ob = context.active_object
        if ob is None or ob.mechanism.role != "PART":
            cls.poll_message_set("Make a part the active object (markers go on parts)")
            return False
        return True

    def execute(self, context):
        part = context.active_object
        where = context.scene.cursor.matrix.copy()
        if part.mode == "EDIT" and part.type == "MESH":
            where = picked_frame(part)
            if where is None:
                self.report({"ERROR"}, f"part {part.name!r}: select a vertex or face first")
                return {"CANCELLED"}
        marker = add_marker(context, part, where)
        self.report({"INFO"}, f"added marker {marker.name!r} on {part.name!r}")
        return {"FINISHED"}


class MECHANISM_OT_connect(bpy.types.Operator):
    """Join the two selected parts at the 3D cursor: a marker on each and a joint between them
    (the active part gets marker I)"""
    bl_idname = "mechanism.connect"
    bl_label = "Connect"
    bl_options = {"REGISTER", "UNDO"}
    kind: EnumProperty(name="Kind", items=JOINT_KINDS, default="REVOLUTE",
                       description="The joint made between the two parts")
    axis: EnumProperty(name="Axis", items=[(a, a, f"Joint axis along world {a}") for a in "XYZ"],
                       default="Z", description="The world axis the joint's axis (its markers' "
                       "z) points along: a revolute turns about it, a prismatic slides along it")

    @classmethod
    def poll(cls, context):
        parts = [o for o in context.selected_objects if o.mechanism.role == "PART"]
        if len(parts) != 2 or context.active_object not in parts:
            cls.poll_message_set("Select two parts; the active one gets marker I")
            return False
        return True

    def execute(self, context):
        part_i = context.active_object
        part_j = next(o for o in context.selected_objects if o.mechanism.role == "PART" and o != part_i)
        turn = {"X": Matrix.Rotation(np.pi / 2, 4, "Y"), "Y": Matrix.Rotation(-np.pi / 2, 4, "X"),
                "Z": Matrix.Identity(4)}[self.axis]
        where = Matrix.Translation(context.scene.cursor.location) @ turn
        mi = add_marker(context, part_i, where, f"{part_i.name}.{part_j.name}.I")
        mj = add_marker(context, part_j, where, f"{part_j.name}.{part_i.name}.J", evaluate=False)
        joint = bpy.data.objects.new(f"{kind_label(self.kind)} {part_i.name}-{part_j.name}", None)
        joint.empty_display_type = "SPHERE"
        joint.empty_display_size = display_size(context.scene, JOINT_SIZE)
        context.scene.collection.objects.link(joint)
        joint.matrix_world = where
        s = joint.mechanism
        s.role, s.joint_kind, s.marker_i, s.marker_j = "JOINT", self.kind, mi, mj
        self.report({"INFO"}, f"joint {joint.name!r}: {mi.name!r} to {mj.name!r}")
        return {"FINISHED"}


class MECHANISM_OT_couple(bpy.types.Operator):
    """Tie the selected joints with a coupler: two revolute or cylindrical joints a gear, a
    revolute and a prismatic a rack and pinion (the revolute is the pinion), two prismatic
    joints a coupler of their slides, one cylindrical joint a screw, three joints a general
    coupler (the active joint first)"""
    bl_idname = "mechanism.couple"
    bl_label = "Couple"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        if not 1 <= len(coupling.selected_joints(context)) <= 3:
            cls.poll_message_set("Select two or three joints, or one cylindrical joint")
            return False
        return True

    def execute(self, context):
        try:
            ob = coupling.couple(context, coupling.selected_joints(context))
        except MechanismError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        self.report({"INFO"}, f"coupler {ob.name!r}: set its ratio, radius or pitch in the sidebar")
        return {"FINISHED"}


def _article(kind: str) -> str:
    """A Blender object type ("EMPTY", "CURVE") as "an empty", "a curve"."""
    word = kind.lower().replace("_", " ")
    return ("an " if word[0] in "aeiou" else "a ") + word


class MECHANISM_OT_add_contact(bpy.types.Operator):
    """Keep the two selected parts from passing through each other: a Contact object naming
    them (the active part is Part A); its shapes come from the parts' meshes"""
    bl_idname = "mechanism.add_contact"
    bl_label = "Add Contact"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        if len(contacts.selected_parts(context)) != 2:
            cls.poll_message_set("Select two parts; the active one is Part A")
            return False
        return True

    def execute(self, context):
        parts = contacts.selected_parts(context)
        there = contacts.contact_between(context.scene, *parts)
        if there is not None:
            self.report({"ERROR"}, f"contact {there.name!r} already joins {parts[0].name!r} and "
                                   f"{parts[1].name!r} (a second would add its force to it): "
                                   "select it to change its shapes")
            return {"CANCELLED"}
        # Every shape kind (Floor too) is taken from the part's mesh, so a contact on an
        # Empty or another non-mesh part would only be refused later by Check and Bake:
        # refused here, as Blender's operators refuse what cannot work, nothing added.
        bare = next((p for p in parts if p.type != "MESH"), None)
        if bare is not None:
            try:                    # a collection instance: how to make it one mesh
                refuse_collection_instance(bare, "shape", "select a mesh part")
            except MechanismError as exc:
                self.report({"ERROR"}, str(exc))
                return {"CANCELLED"}
            self.report({"ERROR"}, f"part {bare.name!r} is {_article(bare.type)} object, "
                                   "which has no mesh to take a contact shape from: select a "
                                   "mesh part")
            return {"CANCELLED"}
        ob = contacts.add_contact_object(context, *parts)
        self.report({"INFO"}, f"contact {ob.name!r}: set its shapes and restitution in the sidebar")
        return {"FINISHED"}


class MECHANISM_OT_measure_radii(bpy.types.Operator):
    """Set the active gear coupler's pitch radii (a rack's pinion radius) to each gear
    mesh's outer radius about its joint axis, an internal mesh's ring its bore: the tip
    circle of a toothed mesh, so correct it to the pitch radius if the mesh has teeth"""
    bl_idname = "mechanism.measure_radii"
    bl_label = "Radii from Meshes"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        ob = context.active_object
        if ob is None or ob.mechanism.role != "COUPLER" or \
                ob.mechanism.coupler_kind not in ("GEAR", "RACK_PINION"):
            cls.poll_message_set("Make a gear or rack-and-pinion coupler the active object")
            return False
        return True

    def execute(self, context):
        ob = context.active_object
        try:
            said = coupling.measure_radii(context, ob)
        except MechanismError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        self.report({"INFO"}, f"coupler {ob.name!r}: {said} (the meshes' radii, a ring's bore)")
        return {"FINISHED"}


def _start_notes(scene, sm) -> list[str]:
    """Check's lines on joints open where the user left the parts (io/start_gaps.py): the
    scene's mechanism is assembled as a Bake would (the scene is not changed)."""
    before = {ob.name: sm.mech.pose(ob.name) for ob in sm.parts}
    try:
        sm.mech.assemble()
    except (MechanismError, SolverError):      # check() has said why
        return []
    after = {ob.name: sm.mech.pose(ob.name) for ob in sm.parts}
    return start_notes(sm.mech, before, after, lambda metres: length_text(scene, metres),
                       lambda radians: angle_text(scene, radians, 3))


class MECHANISM_OT_check(bpy.types.Operator):
    """Count degrees of freedom, name redundant equations and problems"""
    bl_idname = "mechanism.check"
    bl_label = "Check"
    bl_options = {"REGISTER"}

    def execute(self, context):
        scene = context.scene
        sm = None
        moved = moved_parts.moved_notes(scene)     # before the reading changes the frame
        try:
            sm = moved_parts.read_carried(scene)   # the design a Bake reads
            report = sm.mech.check()
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, _message(exc, sm, scene))
            return {"CANCELLED"}
        _store_mass_display(sm, scene)
        analysis = scene.mechanism.analysis.lower()
        if analysis == "auto":
            analysis = "kinematic" if report.driven_dof == 0 else "dynamic"
        warn = moved + sm.notes() + (_start_notes(scene, sm) if report.assembled else []) + \
            bake_checks.bake_problems(sm, scene) + moving_shape_notes(scene, sm) + \
            [n for n in [_cost_note(sm, analysis)] if n] + \
            bake.stale_notes(scene) + \
            [n for n in [kinematic_note(scene.mechanism.analysis, report.driven_dof)] if n]
        said = replace(report, opened=None)     # _start_notes says it in the panel's terms
        lines = [scene_lengths(follow_hint(line), scene) for line in str(said).splitlines()] + warn
        scene.mechanism.report = " | ".join(lines)
        self.report({"WARNING"} if report.problems or warn else {"INFO"}, "; ".join(lines))
        return {"FINISHED"}


class MECHANISM_OT_assemble(bpy.types.Operator):
    """Move the parts the least so that every joint (and motion at the start) holds, and
    every joint inside its stops"""
    bl_idname = "mechanism.assemble"
    bl_label = "Assemble"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        scene = context.scene
        sm = None
        try:
            sm = read_scene(scene)
            if any(ob.mechanism.baked for ob in sm.parts):
                raise MechanismError("the mechanism is baked: clear the bake before assembling")
            bake_checks.refuse_posing(sm.parts, scene)
            poser = sm.mech.poser(0.0)          # a joint past its stop brought to the stop
            pos, quat = poser.part_poses()
            body = {name: b for b, name in enumerate(poser.model.body_part)}
            bake.place_parts(sm, lambda name: (pos[body[name]], quat[body[name]]))
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, _message(exc, sm, scene))
            return {"CANCELLED"}
        note = stops_note(poser.stopped, lambda metres: length_text(scene, metres),
                          lambda radians: angle_text(scene, radians))
        self.report({"INFO"}, f"assembled {len(sm.parts)} part(s)" + (f"; {note}" if note else ""))
        return {"FINISHED"}


class MECHANISM_OT_bake(BackgroundRun, bpy.types.Operator):
    """Solve the mechanism over the scene's frame range and bake keyframes and joint forces
    (Esc cancels a long bake)"""
    bl_idname = "mechanism.bake"
    bl_label = "Bake"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        if context.scene is None:
            return False
        if context.mode != "OBJECT":              # keys are written to objects, not meshes
            cls.poll_message_set("Bake works in Object Mode: leave Edit Mode (Tab) first")
            return False
        return True

    def execute(self, context):
        """Synchronous bake (scripts, tests, the command line); moves carried (moved_parts)."""
        return moved_parts.kept_if_done(moved_parts.carry(context.scene),
                                        lambda: self._bake(context))

    def _bake(self, context):
        sm = None
        try:
            sm = bake_reading(context.scene)
            bake_checks.refuse_bake(sm, context.scene)
            self._cost = _bake_cost_note(sm, context.scene)
            if self._cost:                 # said now, before the long run, and at its end
                self.report({"WARNING"}, self._cost)
            result = _solve_read(context.scene, sm, until_interrupted)
        except SolverCancelled:
            self.report({"WARNING"}, "bake interrupted; nothing was changed")
            return {"CANCELLED"}
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, _message(exc, sm, context.scene))
            return {"CANCELLED"}
        return self._finish(context, sm, result)

    def _finish(self, context, sm, result):
        return drain(self._finish_steps(context, sm, result))

    def _finish_steps(self, context, sm, result):
        """The scene written (bake.write_bake_steps: yields its progress), then the report;
        returns the operator's result."""
        with scene_cache.own_writes(context.scene, BAKE):      # the reading stays for a re-bake
            try:
                yield from bake.write_bake_steps(context.scene, sm, result,
                                                 plots=context.scene.mechanism.force_plots)
            except MechanismError as exc:                 # raised before anything is written
                self.report({"ERROR"}, _message(exc, sm, context.scene))
                return {"CANCELLED"}
            context.scene.mechanism.study.baked_variant = -1
            _store_mass_display(sm, context.scene)
            context.scene.frame_set(context.scene.frame_current,
                                    subframe=context.scene.frame_subframe)
        couplers = f"{len(sm.couplers)} coupler(s), " if sm.couplers else ""
        # only a rigid stop in a dynamic run is struck (a compliant one pushes as a force)
        struck = result.analysis == "dynamic" and any(
            ob.mechanism.limit_model == "RIGID" for ob, _ in sm.limits.values())
        impacts = f", {len(result.impacts)} impact(s) at the stops" if struck else ""
        rest = result.rest_from
        rest = (f", at rest from frame {frame_text(sm.timeline.frames[rest])}"
                if rest is not None and rest + 1 < len(result.times) else "")
        plots = "" if context.scene.mechanism.force_plots else ", no force plots (Force Plots off)"
        done = (f"baked {len(sm.parts)} part(s), {len(sm.joints)} joint(s), {couplers}"
                f"{len(result.times)} frames ({result.analysis}){impacts}{rest}{plots}")
        notes = bake_notes(context.scene, sm, result) + \
            [n for n in [getattr(self, "_cost", None)] if n]
        report_bake(self, context.scene, done, notes)
        return {"FINISHED"}

    def invoke(self, context, event):
        """Modal bake (background.py): the solver runs in a worker thread (numpy only, no
        bpy), the timer shows progress in the status bar, Esc cancels; the scene is written
        on the main thread."""
        if bpy.app.background:
            return self.execute(context)
        self._moved = moved_parts.carry(context.scene)
        try:
            self._sm = bake_reading(context.scene)
            bake_checks.refuse_bake(self._sm, context.scene)
            self._cost = _bake_cost_note(self._sm, context.scene)
        except (MechanismError, SolverError) as exc:
            moved_parts.put_back(self._moved)
            self.report({"ERROR"}, _message(exc, scene=context.scene))
            return {"CANCELLED"}
        if self._cost:                     # said as it starts (Esc cancels), and at its end
            self.report({"WARNING"}, self._cost)
        sm, how = self._sm, _bake_options(context.scene, self._sm)

        def work(progress):
            return sm.mech.solve(times=sm.timeline.times, progress=progress, **how)

        return self.start(context, work, "Mechanism bake: frame {k} of {n} (Esc to cancel)")

    def finished(self, context, err, result):
        return moved_parts.kept_if_done(self._moved, lambda: self._done(context, err, result))

    def _done(self, context, err, result):
        if isinstance(err, SolverCancelled):
            self.report({"WARNING"}, "bake cancelled; nothing was changed")
            return {"CANCELLED"}
        if err is not None:
            self.report({"ERROR"}, _message(err, self._sm))
            return {"CANCELLED"}
        return self._finish_steps(context, self._sm, result)


class MECHANISM_OT_clear_bake(bpy.types.Operator):
    """Remove the bake and put every part back where it was before it"""
    bl_idname = "mechanism.clear_bake"
    bl_label = "Clear Bake"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        n = bake.clear_bake(context.scene)
        context.scene.mechanism.study.baked_variant = -1
        self.report({"INFO"}, f"cleared the bake of {n} object(s)")
        return {"FINISHED"}


class MECHANISM_OT_select(bpy.types.Operator):
    """Select and make active the named object"""
    bl_idname = "mechanism.select"
    bl_label = "Select"
    bl_options = {"REGISTER", "UNDO"}
    name: StringProperty(name="Name", description="The object to select and make active")

    def execute(self, context):
        ob = context.scene.objects.get(self.name)
        if ob is None:
            self.report({"ERROR"}, f"no object {self.name!r} in the scene")
            return {"CANCELLED"}
        for o in context.selected_objects:
            o.select_set(False)
        ob.select_set(True)
        context.view_layer.objects.active = ob
        return {"FINISHED"}


class MECHANISM_OT_constant_add(bpy.types.Operator):
    """Add a named constant that motion, force and spring expressions may use (and a study may vary)"""
    bl_idname = "mechanism.constant_add"
    bl_label = "Add Constant"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        st = context.scene.mechanism
        names = {c.name for c in st.constants}
        k = 1
        while f"k{k}" in names:
            k += 1
        c = st.constants.add()
        c.name, c.value = f"k{k}", 1.0
        st.constant_index = len(st.constants) - 1
        return {"FINISHED"}


class MECHANISM_OT_constant_remove(bpy.types.Operator):
    """Remove the selected constant (an expression that uses it then reports it unknown)"""
    bl_idname = "mechanism.constant_remove"
    bl_label = "Remove Constant"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        st = context.scene.mechanism
        if not 0 <= st.constant_index < len(st.constants):
            cls.poll_message_set("Select a constant in the list first")
            return False
        return True

    def execute(self, context):
        st = context.scene.mechanism
        st.constants.remove(st.constant_index)
        st.constant_index = min(st.constant_index, len(st.constants) - 1)
        return {"FINISHED"}


classes = (MECHANISM_OT_set_role, MECHANISM_OT_add_marker, MECHANISM_OT_connect,
           MECHANISM_OT_couple, MECHANISM_OT_add_contact, MECHANISM_OT_measure_radii, MECHANISM_OT_check, MECHANISM_OT_assemble, MECHANISM_OT_bake, MECHANISM_OT_clear_bake,
           MECHANISM_OT_select, MECHANISM_OT_constant_add,
           MECHANISM_OT_constant_remove)
