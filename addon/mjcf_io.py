"""File > Import > MJCF and File > Export > MJCF.

Import: a MuJoCo model as tagged objects (parts, markers, joints, stops, torsion springs,
friction, couplers) with its primitive geoms as meshes, in a new collection named after
the model.  The mechanism is made first, Blender-free (io/mjcf_mechanism.py), and the
objects are written from its items (through the URDF import's writer), so the scene reads
back as the same Mechanism.  On any error every data-block the import made is removed.

Export: the scene's mechanism read as Bake reads it (moved_parts.read_carried), assembled
at the first frame, written by io/mjcf_export.py; what MJCF cannot hold is reported.
"""
from __future__ import annotations

import os

import bmesh
import bpy
import numpy as np
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper
from mathutils import Matrix

from ..solver import MechanismError, SolverError
from .curve_reader import metres_per_unit
from .io.mjcf_export import mjcf_from_mechanism
from .io.mjcf_mechanism import MjcfReport, mechanism_from_mjcf
from .moved_parts import read_carried
from .urdf_import import SceneWriter, into_new_collection, material


def import_mjcf(context: bpy.types.Context, filepath: str) -> tuple:
    """(collection, MjcfReport, warnings): the model in a new collection; raises
    MechanismError (an MjcfError names the element and its line) with nothing left behind."""
    mech, report = mechanism_from_mjcf(filepath)
    collection, warnings = into_new_collection(
        context, report.model.name,
        lambda c: (MjcfSceneWriter(context, c, mech, report).write()
                   + gravity_warning(context.scene, report.model.gravity)))
    return collection, report, warnings


def gravity_warning(scene: bpy.types.Scene, gravity: np.ndarray) -> list[str]:
    """A warning when the model's gravity (m/s^2) is not the scene's, which Bake uses."""
    scale = metres_per_unit(scene)
    ours = np.array(scene.gravity, float) * scale if scene.use_gravity else np.zeros(3)
    if np.allclose(ours, gravity, rtol=1e-6, atol=1e-6):
        return []
    return [f"the model's gravity {tuple(float(g) for g in gravity)} m/s^2 is not the "
            f"scene's {tuple(float(g) for g in ours)}: Bake uses the scene's (Scene > Gravity)"]


class MjcfSceneWriter(SceneWriter):
    """Writes an MJCF mechanism's items as tagged objects into one collection."""

    SPRING = "spring"       # a joint's torsion element: "<joint>: spring" (stiffness, damping)

    def __init__(self, context, collection, mech, report: MjcfReport) -> None:
        super().__init__(context, collection, mech, report)
        self.markers_of = {n: (j.marker_i, j.marker_j) for n, j in mech.joints.items()}
        self.written: set = set()

    def write(self) -> list[str]:
        for name, part in self.mech.parts.items():
            self.objects[name] = self.part(name, part)
        for body, b in self.report.model.bodies.items():
            for g in b.geoms:
                self.geom(body, g)
        for joint in self.mech.joints:
            self.objects[joint] = self.joint(joint)
        for name in self.report.couplers:
            self.coupler(name)
        for name in self.report.motions:
            self.motion(name)
        self.context.view_layer.update()
        self.name_unwritten()
        return self.warnings

    def name_unwritten(self) -> None:
        """Warn of each stop, friction or spring a joint object has no field for (a
        cylindrical joint's second coordinate), so that none is dropped silently."""
        for table in (self.mech.limits, self.mech.frictions, self.mech.torsion_springs):
            self.warnings += [f"{name!r} is not written (a joint holds one of each; add it by "
                              f"hand)" for name in table if name not in self.written]

    def joint_markers(self, name: str) -> tuple[str, str]:
        return self.markers_of[name]

    def torsion(self, s, name: str) -> None:
        """A joint's spring and damper (MJCF stiffness, springref, damping)."""
        spring = self.mech.torsion_springs.get(name)
        if spring is not None:
            s.torsion, s.torsion_stiffness = True, spring.stiffness
            s.torsion_damping, s.torsion_free_angle = spring.damping, spring.free_angle

    def element(self, joint: str, what: str, table: dict) -> str:
        """The element a joint object shows: "<joint>: <what>", or a cylindrical joint's
        angle's, else its slide's (the object has one of each)."""
        for name in (f"{joint}: {what}", f"{joint}: angle: {what}", f"{joint}: slide: {what}"):
            if name in table:
                self.written.add(name)
                return name
        return ""

    def coupler(self, name: str) -> None:
        c = self.mech.couplers[name]
        ob = self.empty(name, "CIRCLE", 0.1)
        s = ob.mechanism
        s.role, s.coupler_kind = "COUPLER", "COUPLER"
        (ja, ca, sa), (jb, cb, sb) = c.terms
        s.joint_a, s.joint_b = self.objects[ja], self.objects[jb]
        s.scale_a, s.scale_b = self.coupler_scale(sa, ca), self.coupler_scale(sb, cb)
        s.coordinate_a, s.coordinate_b = ca.upper(), cb.upper()

    def motion(self, name: str) -> None:
        mo = self.mech.motions[name]
        s = self.objects[mo.joint].mechanism
        s.motion_type, s.motion_coordinate = "EXPRESSION", mo.coordinate.upper()
        s.motion_expression = repr(float(mo.source))

    def geom(self, body: str, g) -> None:
        if g.kind == "mesh":
            self.warnings.append(f"line {g.line}: geom {g.name!r}: mesh {g.mesh!r} is not "
                                 f"drawn (MJCF meshes are not imported)")
            return
        if g.kind not in ("box", "sphere", "ellipsoid", "cylinder", "capsule"):
            return
        ob = self.primitive_geom(g)
        ob.parent = self.objects[self.report.parts[body]]
        ob.matrix_parent_inverse = Matrix.Identity(4)
        ob.matrix_basis = self.units.geometry(self.report.frames[body] @ g.frame)
        ob.data.materials.append(material(f"{g.name} colour", g.rgba))

    def primitive_geom(self, g) -> bpy.types.Object:
        """A mesh of the geom in its own frame, metres (MuJoCo's half-sizes)."""
        bm = bmesh.new()
        try:
            r, h = g.size[0], g.size[1]
            if g.kind == "box":
                bmesh.ops.create_cube(bm, size=1.0)
                bmesh.ops.scale(bm, vec=2 * np.asarray(g.size), verts=bm.verts)
            elif g.kind in ("cylinder", "capsule"):
                bmesh.ops.create_cone(bm, cap_ends=True, segments=32, radius1=r, radius2=r,
                                      depth=2 * h)
                if g.kind == "capsule":
                    for end in (-h, h):
                        made = bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16,
                                                         radius=r)
                        bmesh.ops.translate(bm, vec=(0, 0, end), verts=made["verts"])
            else:
                made = bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=1.0)
                size = (r, r, r) if g.kind == "sphere" else tuple(g.size)
                bmesh.ops.scale(bm, vec=size, verts=made["verts"])
            mesh = bpy.data.meshes.new(g.name)
            bm.to_mesh(mesh)
        finally:
            bm.free()
        ob = bpy.data.objects.new(g.name, mesh)
        self.collection.objects.link(ob)
        return ob


class MECHANISM_OT_import_mjcf(bpy.types.Operator, ImportHelper):
    """Import a MuJoCo model (MJCF) as a mechanism: parts, markers, joints, stops, springs,
    friction and couplers, with its primitive geoms, in a new collection"""
    bl_idname = "mechanism.import_mjcf"
    bl_label = "Import MJCF"
    bl_options = {"REGISTER", "UNDO"}
    filename_ext = ".xml"
    filter_glob: StringProperty(default="*.xml;*.mjcf", options={"HIDDEN"})

    def execute(self, context):
        try:
            collection, report, warnings = import_mjcf(context, self.filepath)
        except (MechanismError, RuntimeError) as exc:
            self.report({"ERROR"}, f"MJCF {os.path.basename(self.filepath)!r}: {exc}")
            return {"CANCELLED"}
        notes = list(report.warnings) + [f"not imported: {u}" for u in report.unmapped] + warnings
        text = f"imported {report.summary().split(': ', 1)[1].split('; ')[0]} into {collection.name!r}"
        self.report({"WARNING"} if notes else {"INFO"}, "; ".join([text] + notes))
        return {"FINISHED"}


class MECHANISM_OT_export_mjcf(bpy.types.Operator, ExportHelper):
    """Export the scene's mechanism as a MuJoCo model (MJCF), assembled at the first frame:
    bodies of a tree from the ground, loop-closing joints and couplers as equality
    constraints, stops, springs, friction and motion servos"""
    bl_idname = "mechanism.export_mjcf"
    bl_label = "Export MJCF"
    bl_options = {"REGISTER"}
    filename_ext = ".xml"
    filter_glob: StringProperty(default="*.xml", options={"HIDDEN"})

    def execute(self, context):
        scene = context.scene
        try:
            sm = read_carried(scene)            # the design a Bake reads (moved_parts.py)
            sm.mech.assemble(time=float(sm.timeline.times[0]))
            export = mjcf_from_mechanism(sm.mech, model_name=scene.name)
            with open(self.filepath, "w", encoding="utf-8") as f:
                f.write(export.xml)
        except (MechanismError, SolverError, OSError) as exc:
            self.report({"ERROR"}, f"Export MJCF: {exc}")
            return {"CANCELLED"}
        text = f"wrote {export.summary()} to {self.filepath}"
        if export.unmapped:
            self.report({"WARNING"}, "; ".join([text] + list(export.unmapped)))
        else:
            self.report({"INFO"}, text)
        return {"FINISHED"}


def menu_import(self, context) -> None:
    self.layout.operator(MECHANISM_OT_import_mjcf.bl_idname, text="MuJoCo Model (.xml, MJCF)")


def menu_export(self, context) -> None:
    self.layout.operator(MECHANISM_OT_export_mjcf.bl_idname, text="MuJoCo Model (.xml, MJCF)")


classes = (MECHANISM_OT_import_mjcf, MECHANISM_OT_export_mjcf)


def register() -> None:
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
