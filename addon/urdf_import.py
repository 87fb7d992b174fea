"""File > Import > URDF: a robot as tagged objects (parts, markers, joints, stops, friction,
dampers, mimic couplers) with its visuals, in a new collection named after the robot.

The mechanism is made first, Blender-free (io/urdf_mechanism.py), and the objects are
written from its items, so the scene reads back as the same Mechanism.  Each part is an
Empty at its link frame with its mass typed in; each visual is a mesh parented to it
(boxes, cylinders and spheres made here; STL, OBJ and glTF files through Blender's
importers, a mesh in another format named and skipped).  Lengths are divided by the
scene's unit scale.  On any error every data-block the import made is removed, so a failed
import leaves the file as it was.
"""
from __future__ import annotations

import os
from typing import Callable

import bmesh
import bpy
import numpy as np
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ImportHelper
from mathutils import Matrix

from ..solver import MechanismError, quat_to_matrix
from .curve_reader import metres_per_unit
from .io.mass import inertia_six, mass_unit_scale
from .io.urdf_mechanism import UrdfReport, mechanism_from_urdf

# Blender's importers by file extension: (operator path, keyword arguments); STL and OBJ
# read as stored (URDF meshes are in the link frame, z up), glTF converts its y up itself
MESH_IMPORTERS = {".stl": ("wm.stl_import", dict(forward_axis="Y", up_axis="Z")),
                  ".obj": ("wm.obj_import", dict(forward_axis="Y", up_axis="Z")),
                  ".gltf": ("import_scene.gltf", {}), ".glb": ("import_scene.gltf", {})}
# the kinds of data-block an import can make (removed again when it fails)
ID_KINDS = ("objects", "meshes", "materials", "collections", "images", "textures", "cameras",
            "lights", "actions", "armatures", "node_groups")


class Units:
    """Metres and kilograms to the scene's stored units."""

    def __init__(self, scene: bpy.types.Scene) -> None:
        self.length = metres_per_unit(scene)
        self.kg = mass_unit_scale(scene.unit_settings.system, self.length)

    def frame(self, T: np.ndarray) -> Matrix:
        """A rigid frame (4x4, m) as a matrix in Blender units (the translation scaled)."""
        M = np.array(T, dtype=float)
        M[:3, 3] /= self.length
        return Matrix(M.tolist())

    def geometry(self, T: np.ndarray) -> Matrix:
        """A frame carrying geometry given in metres: the frame, then metres to units."""
        return self.frame(T) @ Matrix.Diagonal((1 / self.length,) * 3).to_4x4()


def import_urdf(context: bpy.types.Context, filepath: str, package_dirs: list | tuple = (),
                floating_base: bool = False) -> tuple:
    """(collection, UrdfReport, visual warnings): the robot in a new collection; raises
    MechanismError (a UrdfError names the element and its line) with nothing left behind.
    ``floating_base``: the root link a free part instead of the ground."""
    mech, report = mechanism_from_urdf(filepath, package_dirs=package_dirs,
                                       floating_base=floating_base)
    collection, warnings = into_new_collection(
        context, report.robot.name, lambda c: SceneWriter(context, c, mech, report).write())
    return collection, report, warnings


def into_new_collection(context: bpy.types.Context, name: str,
                        write: Callable[[bpy.types.Collection], list[str]]) -> tuple:
    """(collection, warnings): a new collection ``name`` in the scene, active while
    ``write(collection)`` fills it (returning its warnings); whatever ``write`` raises
    leaves nothing behind (every data-block made since is removed) and the active
    collection as it was."""
    before = {kind: set(getattr(bpy.data, kind)) for kind in ID_KINDS}
    active = context.view_layer.active_layer_collection
    try:
        collection = bpy.data.collections.new(name)
        context.scene.collection.children.link(collection)
        context.view_layer.active_layer_collection = \
            context.view_layer.layer_collection.children[collection.name]
        warnings = write(collection)
    except Exception:
        context.view_layer.active_layer_collection = active
        remove_new(before)
        raise
    context.view_layer.active_layer_collection = active
    return collection, warnings


def remove_new(before: dict) -> None:
    """Remove every data-block made since ``before`` (kind -> the set that existed)."""
    for kind in ID_KINDS:
        data = getattr(bpy.data, kind)
        for block in [b for b in data if b not in before[kind]]:
            data.remove(block)


class SceneWriter:
    """Writes a URDF mechanism's items as tagged objects into one collection."""

    SPRING = "damping"      # a joint's torsion element: "<joint>: damping" (URDF dynamics)

    def __init__(self, context, collection, mech, report: UrdfReport) -> None:
        self.context, self.collection, self.mech, self.report = context, collection, mech, report
        self.units = Units(context.scene)
        self.objects: dict[str, bpy.types.Object] = {}
        self.warnings: list[str] = []

    def empty(self, name: str, display: str, size: float) -> bpy.types.Object:
        ob = bpy.data.objects.new(name, None)
        ob.empty_display_type, ob.empty_display_size = display, size / self.units.length
        self.collection.objects.link(ob)
        return ob

    def write(self) -> list[str]:
        for name, part in self.mech.parts.items():
            self.objects[name] = self.part(name, part)
        for link in self.report.robot.links.values():
            for k, visual in enumerate(link.visuals):
                self.visual(link.name, k, visual)
        for joint in self.report.joints:
            self.objects[joint] = self.joint(joint)
        for joint in self.report.robot.joints.values():
            if joint.mimic is not None:
                self.mimic(joint)
        self.context.view_layer.update()
        return self.warnings

    def part(self, name: str, part) -> bpy.types.Object:
        ob = self.empty(name, "ARROWS", 0.1)
        T = np.eye(4)
        T[:3, :3] = quat_to_matrix(np.asarray(part.orientation, dtype=float))
        T[:3, 3] = part.position
        ob.matrix_world = self.units.frame(T)
        s = ob.mechanism
        s.role = "PART"
        if part.fixed:
            s.ground = True
            return ob
        s.mass_mode = "MANUAL"
        s.mass = part.mass / self.units.kg
        s.center_of_mass = tuple(np.asarray(part.center_of_mass) / self.units.length)
        s.inertia = inertia_six(np.asarray(part.inertia))
        return ob

    def marker(self, name: str) -> bpy.types.Object:
        mk = self.mech.markers[name]
        ob = self.empty(name, "SINGLE_ARROW", 0.1)
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = quat_to_matrix(np.asarray(mk.orientation, dtype=float)), mk.position
        ob.parent = self.objects[mk.part]
        ob.matrix_parent_inverse = Matrix.Identity(4)
        ob.matrix_basis = self.units.frame(T)
        ob.mechanism.role = "MARKER"
        return ob

    def joint(self, name: str) -> bpy.types.Object:
        """The joint object between its two markers, with its stop, friction and torsion
        spring (each found by ``element``)."""
        mi, mj = (self.marker(m) for m in self.joint_markers(name))
        ob = self.empty(name, "SPHERE", 0.05)
        self.context.view_layer.update()
        ob.matrix_world = mj.matrix_world
        s = ob.mechanism
        s.role, s.marker_i, s.marker_j = "JOINT", mi, mj
        s.joint_kind = self.mech.joints[name].kind.upper().replace("-", "_")
        self.stops(s, self.element(name, "limit", self.mech.limits))
        self.friction(s, self.element(name, "friction", self.mech.frictions))
        self.torsion(s, self.element(name, self.SPRING, self.mech.torsion_springs))
        return ob

    def joint_markers(self, name: str) -> tuple[str, str]:
        """(marker I, marker J) of joint ``name``."""
        return self.report.markers[name]

    def element(self, joint: str, what: str, table: dict) -> str:
        """The name of the joint's stop, friction or damper in ``table``: "<joint>: <what>"."""
        return f"{joint}: {what}"

    def torsion(self, s, name: str) -> None:
        """A URDF joint's damping alone: a torsion damper on the joint object."""
        damper = self.mech.torsion_springs.get(name)
        if damper is not None:
            s.torsion, s.torsion_damping = True, damper.damping

    def stops(self, s, name: str) -> None:
        limit = self.mech.limits.get(name)
        if limit is None:
            return
        s.limit_coordinate, s.limit_restitution = limit.coordinate.upper(), limit.restitution
        k = 1.0 if limit.coordinate == "angle" else 1.0 / self.units.length
        s.use_limit_lower, s.use_limit_upper = limit.lower is not None, limit.upper is not None
        for bound, value in (("lower", limit.lower), ("upper", limit.upper)):
            if value is not None:
                setattr(s, f"limit_{bound}_{limit.coordinate}", value * k)

    def friction(self, s, name: str) -> None:
        f = self.mech.frictions.get(name)
        if f is None:
            return
        s.use_joint_friction, s.friction_coordinate = True, f.coordinate.upper()
        s.friction_static, s.friction_dynamic = f.static, f.dynamic
        s.friction_preload, s.friction_viscous = f.preload, f.viscous

    def mimic(self, joint) -> None:
        """A general coupler: 1 (q - q0) - multiplier (q_other - q_other0) = 0."""
        ends = [self.report.joint_names[j] for j in (joint.name, joint.mimic.joint)]
        ob = self.empty(f"{ends[0]}: mimic", "CIRCLE", 0.1)
        s = ob.mechanism
        s.role, s.coupler_kind = "COUPLER", "COUPLER"
        s.joint_a, s.joint_b = (self.objects[j] for j in ends)
        s.coordinate_a, s.coordinate_b = (
            "SLIDE" if self.mech.joints[j].kind == "prismatic" else "ANGLE" for j in ends)
        s.scale_a = self.coupler_scale(1.0, s.coordinate_a)
        s.scale_b = self.coupler_scale(-joint.mimic.multiplier, s.coordinate_b)

    def coupler_scale(self, si: float, coordinate: str) -> float:
        """A coupler's Scale field for a term whose scale is ``si`` per radian or per metre:
        the field counts a slide in Blender units (io/couplers.py divides it by the unit
        scale), so a slide's is ``si`` times metres per Blender unit."""
        return si * self.units.length if coordinate.upper() == "SLIDE" else si

    # -- visuals
    def visual(self, link: str, k: int, visual) -> None:
        part = self.report.parts[link]
        local = self.report.link_frames[link] @ visual.origin
        label = f"{link} visual {k + 1}"
        g = visual.geometry
        if g.kind == "mesh":
            made = self.mesh_file(label, g, visual.line)
            scale = Matrix.Diagonal(tuple(g.scale)).to_4x4()
        else:
            made = [self.primitive(label, g)]
            scale = Matrix.Identity(4)
        for ob in made:
            if ob.parent is None:
                basis = ob.matrix_basis.copy()
                ob.parent = self.objects[part]
                ob.matrix_parent_inverse = Matrix.Identity(4)
                ob.matrix_basis = self.units.geometry(local) @ scale @ basis
            if visual.rgba is not None and ob.type == "MESH" and not ob.data.materials:
                ob.data.materials.append(material(visual.material or label, visual.rgba))

    def primitive(self, label: str, g) -> bpy.types.Object:
        bm = bmesh.new()
        try:
            if g.kind == "box":
                bmesh.ops.create_cube(bm, size=1.0)
                bmesh.ops.scale(bm, vec=g.size, verts=bm.verts)
            elif g.kind == "cylinder":
                bmesh.ops.create_cone(bm, cap_ends=True, segments=32, radius1=g.radius,
                                      radius2=g.radius, depth=g.length)
            else:
                bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=g.radius)
            mesh = bpy.data.meshes.new(label)
            bm.to_mesh(mesh)
        finally:
            bm.free()
        ob = bpy.data.objects.new(label, mesh)
        self.collection.objects.link(ob)
        return ob

    def mesh_file(self, label: str, g, line: int) -> list:
        ext = os.path.splitext(g.path)[1].lower()
        importer = MESH_IMPORTERS.get(ext)
        if importer is None:
            self.warnings.append(f"line {line}: {label}: {os.path.basename(g.path)!r} is a {ext or 'extensionless'} "
                                 f"file, which Blender cannot import here (STL, OBJ, glTF do); "
                                 f"skipped")
            return []
        path, kwargs = importer
        before = set(bpy.data.objects)
        group, op = path.split(".")
        try:
            result = getattr(getattr(bpy.ops, group), op)(filepath=g.path, **kwargs)
        except RuntimeError as exc:
            raise MechanismError(f"line {line}: {label}: Blender could not import the mesh "
                                 f"{g.path!r}: {str(exc).strip()}") from None
        made = [ob for ob in bpy.data.objects if ob not in before]
        if "FINISHED" not in result or not made:
            raise MechanismError(f"line {line}: {label}: Blender imported nothing from the mesh "
                                 f"{g.path!r}")
        for ob in made:
            for c in list(ob.users_collection):
                c.objects.unlink(ob)
            self.collection.objects.link(ob)
        return made


def material(name: str, rgba) -> bpy.types.Material:
    mat = bpy.data.materials.get(name)
    if mat is None or tuple(mat.diffuse_color) != tuple(rgba):
        mat = bpy.data.materials.new(name)
        mat.diffuse_color = rgba
        bsdf = mat.node_tree.nodes.get("Principled BSDF") if mat.node_tree else None
        if bsdf is not None:
            bsdf.inputs["Base Color"].default_value = rgba
    return mat


class MECHANISM_OT_import_urdf(bpy.types.Operator, ImportHelper):
    """Import a URDF robot as a mechanism: parts, markers, joints, stops, friction and mimic
    couplers, with its visual meshes, in a new collection"""
    bl_idname = "mechanism.import_urdf"
    bl_label = "Import URDF"
    bl_options = {"REGISTER", "UNDO"}
    filename_ext = ".urdf"
    filter_glob: StringProperty(default="*.urdf;*.xml", options={"HIDDEN"})
    package_dir: StringProperty(name="Package Folder", subtype="DIR_PATH",
                                description="Folder that package://name/... mesh paths resolve "
                                            "against (the package itself or the folder holding "
                                            "it); empty: the URDF file's folder and the one "
                                            "above it")
    floating_base: BoolProperty(name="Floating Base",
                                description="The root link moves freely (its own mass) instead "
                                            "of being the ground")

    def execute(self, context):
        here = os.path.dirname(os.path.abspath(self.filepath))
        package_dirs = [bpy.path.abspath(self.package_dir)] if self.package_dir else \
            [here, os.path.dirname(here)]
        try:
            collection, report, warnings = import_urdf(context, self.filepath, package_dirs,
                                                       self.floating_base)
        except (MechanismError, RuntimeError) as exc:
            self.report({"ERROR"}, f"URDF {os.path.basename(self.filepath)!r}: {exc}")
            return {"CANCELLED"}
        notes = list(report.warnings) + warnings
        text = f"imported {report.summary().split(': ', 1)[1].split('; ')[0]} into {collection.name!r}"
        if notes:
            self.report({"WARNING"}, "; ".join([text] + notes))
        else:
            self.report({"INFO"}, text)
        return {"FINISHED"}


def menu_import(self, context) -> None:
    self.layout.operator(MECHANISM_OT_import_urdf.bl_idname, text="URDF Robot (.urdf)")


classes = (MECHANISM_OT_import_urdf,)


def register() -> None:
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
