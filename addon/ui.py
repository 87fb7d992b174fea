"""The "Mechanism" tab of the 3D viewport sidebar: the active object's role and settings,
and the mechanism's buttons and lists (joints, motions, couplers, springs and forces)."""
from __future__ import annotations

import bpy

from .bake import stale_notes
from .curve_reader import fit_signature, length_text, mass_text, metres_per_unit
from .io.couplers import KIND_LABELS, SLOT_LABELS
from .io.curve_joints import FIELDS
from .io.settings import kind_label

ICONS = {"JOINT": "CONSTRAINT", "SPRING": "FORCE_HARMONIC", "FORCE": "FORCE_FORCE", "COUPLER": "DRIVER",
         "BUSHING": "MOD_PHYSICS", "CONTACT": "SNAP_FACE"}


class MECHANISM_UL_objects(bpy.types.UIList):
    """Scene objects of the roles the list's list_id names (joint, motion: joints, the latter
    those with a motion; coupler; force: springs and forces); clicking a name selects it."""
    bl_idname = "MECHANISM_UL_objects"

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index):
        s = item.mechanism
        row = layout.row(align=True)
        op = row.operator("mechanism.select", text=item.name, emboss=False,
                          icon=ICONS.get(s.role, "OBJECT_DATA"))
        op.name = item.name
        if s.role == "COUPLER":
            row.label(text=KIND_LABELS[s.coupler_kind])
        if s.role == "JOINT":
            row.label(text=kind_label(s.joint_kind))
            if self.list_id == "motion" and s.motion_type != "NONE":
                row.label(text=s.motion_type.title())
        if s.baked and s.role in ("JOINT", "COUPLER", "BUSHING", "FORCE", "CONTACT"):
            row.operator("mechanism.plot", text="", icon="GRAPH", emboss=False).name = item.name

    def filter_items(self, context, data, propname):
        objs = getattr(data, propname)
        want = {"joint": ("JOINT",), "motion": ("JOINT",), "force": ("SPRING", "FORCE", "BUSHING", "CONTACT"),
                "coupler": ("COUPLER",)}.get(
            self.list_id, ("JOINT",))
        flags = []
        for ob in objs:
            s = ob.mechanism
            ok = s.role in want and (self.list_id != "motion" or s.motion_type != "NONE")
            flags.append(self.bitflag_filter_item if ok else 0)
        return flags, []


class VIEW3D_PT_mechanism_object(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Mechanism"
    bl_label = "Active Object"

    def draw(self, context):
        layout = self.layout
        ob = context.active_object
        if ob is None:
            layout.label(text="Select an object")
            return
        s = ob.mechanism
        layout.prop(s, "role")
        draw = {"PART": _draw_part, "MARKER": _draw_marker, "JOINT": _draw_joint,
                "SPRING": _draw_spring, "FORCE": _draw_force, "COUPLER": _draw_coupler,
                "BUSHING": _draw_bushing, "CONTACT": _draw_contact}.get(s.role)
        if draw is not None:
            draw(layout, ob, s)
        row = layout.row(align=True)
        for role in ("PART", "MARKER", "JOINT"):
            row.operator("mechanism.set_role", text=role.title()).role = role


def _centre_text(scene, ob, s) -> str:
    """The computed centre of mass (m, part frame) in the scene's length unit, each
    component below 1e-9 of the part's size written as 0 (the mesh's float32 rounding)."""
    size = max(ob.dimensions) * metres_per_unit(scene)
    return ", ".join(length_text(scene, c if abs(c) > 1e-9 * size else 0.0)
                     for c in s.computed_center_of_mass)


def _draw_part(layout, ob, s):
    layout.prop(s, "ground")
    if s.ground:
        return
    layout.operator("mechanism.add_marker", icon="EMPTY_SINGLE_ARROW")
    layout.prop(s, "mass_mode", expand=True)
    col = layout.column(align=True)
    if s.mass_mode == "MESH":
        bad = not s.density > 0.0             # refused by Check and Bake (they name the part)
        row = col.row()
        row.alert = bad
        row.prop(s, "density")
        if bad:
            row = col.row()
            row.alert = True
            row.label(text="Density must be above 0", icon="ERROR")
        if s.computed_mass > 0.0 and s.computed_density == s.density:
            col.label(text=f"Mass {mass_text(bpy.context.scene, s.computed_mass)} at the last Check or Bake")
            col.label(text=f"Centre of mass {_centre_text(bpy.context.scene, ob, s)} from its "
                           "origin, along its axes")
            i = s.computed_inertia
            col.label(text=f"Ixx {i[0]:.4g}  Iyy {i[1]:.4g}  Izz {i[2]:.4g} kg m²")
        else:                                 # not computed yet, or for another density
            col.label(text="Mass: computed at Check or Bake")
        if s.mesh_warning:
            col.label(text=s.mesh_warning, icon="ERROR")
    else:
        row = col.row()
        row.alert = not s.mass > 0.0 and not s.ground
        row.prop(s, "mass")
        if row.alert:
            col.label(text="Mass must be above 0", icon="ERROR")
        col.prop(s, "center_of_mass")
        col.prop(s, "inertia")
    col = layout.column(align=True)
    col.prop(s, "initial_velocity")
    col.prop(s, "initial_angular_velocity")


def _draw_marker(layout, ob, s):
    if ob.parent is None or ob.parent.mechanism.role != "PART":
        layout.label(text="Parent this marker to a part", icon="ERROR")
    else:
        layout.label(text=f"On part {ob.parent.name}")
    box = layout.box()
    box.prop(s, "follow")
    if s.follow is not None:
        if s.follow.type == "ARMATURE":
            box.prop_search(s, "follow_bone", s.follow.data, "bones")
        box.prop(s, "follow_relative_to")
        box.row().prop(s, "follow_axes", toggle=True)
        row = box.row()
        row.label(text="Follow Rotation")
        for k, angle in enumerate(("b1", "b2", "b3")):
            row.prop(s, "follow_rotation", index=k, text=angle, toggle=True)
        box.prop(s, "follow_actuators")
        box.prop(s, "follow_samples")
        _draw_plot(box, ob, s)


def _draw_plot(layout, ob, s):
    """The Plot button of a joint, coupler, spring, ...: its baked forces in a Graph Editor."""
    row = layout.row()
    row.enabled = s.baked
    row.operator("mechanism.plot", text="Plot Forces" if s.baked else "Plot Forces (bake first)",
                 icon="GRAPH")


def _draw_joint(layout, ob, s):
    layout.prop(s, "joint_kind")
    layout.prop(s, "marker_i")
    layout.prop(s, "marker_j")
    if s.joint_kind == "DISTANCE":
        layout.prop(s, "distance")
    if s.joint_kind in FIELDS:
        _draw_curves(layout, ob, s)
    if s.joint_kind in ("REVOLUTE", "PRISMATIC", "CYLINDRICAL"):
        box = layout.box()
        box.prop(s, "motion_type")
        if s.motion_type != "NONE":
            if s.joint_kind == "CYLINDRICAL":
                box.prop(s, "motion_coordinate", expand=True)
            if s.motion_type == "EXPRESSION":
                box.prop(s, "motion_expression")
            elif s.motion_type == "SPEED":
                box.prop(s, "motion_speed")
            else:
                slide = s.joint_kind == "PRISMATIC" or s.motion_coordinate == "SLIDE"
                box.prop(s, "motion_slide" if slide else "motion_angle")
    _draw_wiggle(layout, s)
    if s.joint_kind in ("REVOLUTE", "CYLINDRICAL"):
        box = layout.box()
        box.prop(s, "torsion")
        if s.torsion:
            for p in ("torsion_stiffness", "torsion_damping", "torsion_free_angle", "torsion_preload"):
                box.prop(s, p)
    if s.joint_kind in ("REVOLUTE", "PRISMATIC", "CYLINDRICAL"):
        _draw_limits(layout, s)
    if s.joint_kind in ("REVOLUTE", "PRISMATIC", "CYLINDRICAL", "SPHERICAL"):
        _draw_friction(layout, s)
    _draw_plot(layout, ob, s)


def _draw_wiggle(layout, s):
    """The joint's angle and slide as they stand: moving one poses the mechanism (the
    other joints closed); a coordinate a motion drives is not offered."""
    coords = {"REVOLUTE": ("ANGLE",), "PRISMATIC": ("SLIDE",),
              "CYLINDRICAL": ("ANGLE", "SLIDE")}.get(s.joint_kind, ())
    if s.motion_type != "NONE":
        driven = "SLIDE" if s.joint_kind == "PRISMATIC" else s.motion_coordinate
        coords = tuple(c for c in coords if c != driven)
    if coords:
        col = layout.column(align=True)
        for c in coords:
            col.prop(s, "wiggle_" + c.lower())


def _draw_limits(layout, s):
    """The Limits box: each bound's switch and value (an angle in the scene's rotation
    units, a slide in its length units), red when the lower is not below the upper (refused
    by Check and Bake, naming the joint), and a rigid stop's restitution or a compliant
    stop's law."""
    box = layout.box()
    box.label(text="Limits", icon="EMPTY_SINGLE_ARROW")
    if s.joint_kind == "CYLINDRICAL":
        box.row().prop(s, "limit_coordinate", expand=True)
    slide = s.joint_kind == "PRISMATIC" or (s.joint_kind == "CYLINDRICAL" and
                                            s.limit_coordinate == "SLIDE")
    lower, upper = ("limit_lower_slide", "limit_upper_slide") if slide else \
        ("limit_lower_angle", "limit_upper_angle")
    bad = s.use_limit_lower and s.use_limit_upper and not getattr(s, lower) < getattr(s, upper)
    col = box.column(align=True)
    for use, prop in (("use_limit_lower", lower), ("use_limit_upper", upper)):
        row = col.row(align=True)
        row.prop(s, use, text="")
        sub = row.row(align=True)
        sub.active = getattr(s, use)
        sub.alert = bad
        sub.prop(s, prop)
    if bad:
        box.label(text="The lower bound must be below the upper", icon="ERROR")
    if s.use_limit_lower or s.use_limit_upper:
        box.row().prop(s, "limit_model", expand=True)
        if s.limit_model == "RIGID":
            box.prop(s, "limit_restitution")
        else:
            col = box.column(align=True)
            for prop in ("limit_stiffness", "limit_exponent", "limit_damping"):
                col.prop(s, prop)
            col.prop(s, "limit_penetration_slide" if slide else "limit_penetration_angle")


def _draw_friction(layout, s):
    """The Friction box (dynamic runs): coefficients, speeds and the bearing's sizes (a
    ball: its radius only); the radius red when friction on an angle or a ball has none
    (refused by Check and Bake)."""
    box = layout.box()
    box.prop(s, "use_joint_friction")
    if not s.use_joint_friction:
        return
    if s.joint_kind == "CYLINDRICAL":
        box.row().prop(s, "friction_coordinate", expand=True)
    col = box.column(align=True)
    for p in ("friction_static", "friction_dynamic", "friction_transition_speed",
              "friction_viscous", "friction_preload"):
        col.prop(s, p)
    ball = s.joint_kind == "SPHERICAL"
    angle = ball or s.joint_kind == "REVOLUTE" or (s.joint_kind == "CYLINDRICAL" and
                                                   s.friction_coordinate == "ANGLE")
    col = box.column(align=True)
    row = col.row()
    # red where the load has no lever: a ball's radius, or a pin's radius and thrust arm
    row.alert = (angle and s.friction_static > 0.0 and not s.friction_radius > 0.0
                 and (ball or not s.friction_arm > 0.0))
    row.prop(s, "friction_radius", text="Ball Radius" if ball else None)
    if not ball:
        col.prop(s, "friction_arm")
        col.prop(s, "friction_bearing_length")


def _draw_curves(layout, ob, s):
    """A curve joint's curve objects (red when unset) and, after a Check or Bake, how closely
    the joint follows each (the fitting error, or a poly spline's departure from its
    segments): shown only while its curves are those it was measured on
    (curve_reader.fit_signature), so a curve edited, scaled or replaced since says so
    until the next Check or Bake measures it again."""
    col = layout.column(align=True)
    for field, label, side in FIELDS[s.joint_kind]:
        row = col.row()
        row.alert = getattr(s, field) is None         # refused by Check and Bake, by name
        row.prop(s, field, text=f"{label} ({side})")
    if s.curve_fit and s.curve_fit_key == fit_signature(ob, bpy.context.scene):
        for line in s.curve_fit.split(" | "):
            col.label(text=line, icon="CURVE_DATA")
    elif s.curve_fit:
        col.label(text="Fit: the curve changed since; shown after Check or Bake")
    else:
        col.label(text="Fit: shown after Check or Bake")


def _draw_spring(layout, ob, s):
    layout.prop(s, "marker_i")
    layout.prop(s, "marker_j")
    for p in ("stiffness", "damping", "use_free_length"):
        layout.prop(s, p)
    if s.use_free_length:
        layout.prop(s, "free_length")
    for p in ("preload", "friction", "actuator"):
        layout.prop(s, p)
    _draw_plot(layout, ob, s)


def _draw_bushing(layout, ob, s):
    layout.prop(s, "marker_i")
    layout.prop(s, "marker_j")
    _draw_plot(layout, ob, s)
    for p in ("bushing_stiffness", "bushing_rotational_stiffness", "bushing_damping",
              "bushing_rotational_damping", "bushing_preload", "bushing_preload_torque"):
        layout.column(align=True).prop(s, p)


def _draw_contact(layout, ob, s):
    """The two parts and their shapes (red when a part is unset; Grid Cells with a Mesh or
    Auto side, the profile's cell, spacing and levels with a Profile or Auto side), the
    force law and friction."""
    col = layout.column(align=True)
    for side in "ab":
        row = col.row()
        row.alert = getattr(s, f"contact_part_{side}") is None    # refused by Check, by name
        row.prop(s, f"contact_part_{side}")
        col.prop(s, f"contact_shape_{side}")
    kinds = (s.contact_shape_a, s.contact_shape_b)
    if "MESH" in kinds or "AUTO" in kinds:
        col.prop(s, "contact_cells")
    if "PROFILE" in kinds or "AUTO" in kinds:
        for p in ("contact_profile_cell", "contact_profile_spacing", "contact_profile_levels"):
            col.prop(s, p)
    _draw_plot(layout, ob, s)
    col = layout.column(align=True)
    col.prop(s, "contact_restitution")
    col.prop(s, "contact_stiffness")
    if s.contact_stiffness > 0.0:
        col.prop(s, "contact_exponent")
    col = layout.column(align=True)
    col.prop(s, "contact_friction")
    col.prop(s, "contact_dynamic_friction")


def _draw_force(layout, ob, s):
    layout.prop(s, "marker_i", text="Marker")
    layout.prop(s, "marker_j", text="Reaction")
    if s.marker_j is not None:
        _draw_plot(layout, ob, s)
    layout.prop(s, "force")
    layout.prop(s, "torque")
    layout.prop(s, "force_frame", expand=True)


def _draw_coupler(layout, ob, s):
    """Only the fields the coupler's kind uses; a general coupler's coordinate choice only
    for a cylindrical joint (a revolute has only its angle, a prismatic its slide)."""
    kind = s.coupler_kind
    layout.prop(s, "coupler_kind")
    _draw_plot(layout, ob, s)
    for k, label in enumerate(SLOT_LABELS[kind]):
        col = layout.column(align=True)
        col.prop(s, "joint_" + "abc"[k], text=label)
        joint = getattr(s, "joint_" + "abc"[k])
        if kind == "COUPLER":
            if joint is not None and joint.mechanism.joint_kind == "CYLINDRICAL":
                col.row().prop(s, "coordinate_" + "abc"[k], expand=True)
            col.prop(s, "scale_" + "abc"[k])
    if kind == "GEAR":
        layout.prop(s, "mesh")
        layout.prop(s, "ratio_mode", expand=True)
        col = layout.column(align=True)
        if s.ratio_mode == "RADII":
            for p in ("radius_a", "radius_b"):
                row = col.row()
                row.alert = not getattr(s, p) > 0.0      # refused by Check and Bake, by name
                row.prop(s, p)
            col.operator("mechanism.measure_radii", icon="DRIVER_DISTANCE")
            col.label(text="Measured: the meshes' outer radii; correct them if toothed")
        elif s.ratio_mode == "TEETH":
            col.prop(s, "teeth_a")
            col.prop(s, "teeth_b")
        else:
            col.prop(s, "gear_ratio")
        if s.mesh != "BELT":          # teeth, however the ratio is given: their line of action
            layout.prop(s, "pressure_angle")      # sets the axles' separating load
            layout.prop(s, "helix_angle")
    elif kind == "RACK_PINION":
        row = layout.row()
        row.alert = s.pitch_radius == 0.0
        row.prop(s, "pitch_radius")
        layout.operator("mechanism.measure_radii", icon="DRIVER_DISTANCE")
    elif kind == "SCREW":
        row = layout.row()
        row.alert = not s.pitch > 0.0
        row.prop(s, "pitch")
        layout.prop(s, "hand", expand=True)


class VIEW3D_PT_mechanism(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Mechanism"
    bl_label = "Mechanism"

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        st = scene.mechanism
        row = layout.row(align=True)
        row.operator("mechanism.connect", icon="LINKED")
        row.operator("mechanism.couple", icon="DRIVER")
        row.operator("mechanism.add_contact", icon="SNAP_FACE")
        row = layout.row(align=True)
        row.operator("mechanism.check", icon="CHECKMARK")
        row.operator("mechanism.assemble", icon="SNAP_ON")
        row = layout.row(align=True)
        drag = row.row(align=True)
        drag.operator_context = "INVOKE_REGION_WIN"     # the viewport's, not the sidebar's
        drag.operator("mechanism.drag", icon="VIEW_PAN")
        row.operator("mechanism.find_range", icon="ARROW_LEFTRIGHT")
        if st.wiggle_joint and scene.objects.get(st.wiggle_joint) is not None:
            layout.prop(st, "wiggle_position", text=f"Position ({st.wiggle_joint})", slider=True)
        layout.prop(st, "analysis")
        if st.analysis != "KINEMATIC":
            layout.prop(st, "tolerance")
        layout.prop(st, "force_plots")
        row = layout.row(align=True)
        row.scale_y = 1.4
        row.operator("mechanism.bake", icon="REC")
        row.operator("mechanism.clear_bake", icon="TRASH")
        for note in stale_notes(scene):
            row = layout.row()
            row.alert = True
            row.label(text=note, icon="ERROR")
        row = layout.row(align=True)
        row.prop(st, "csv_path", text="")
        row.operator("mechanism.export_csv", text="", icon="EXPORT")
        if st.report:
            box = layout.box()
            for line in st.report.split(" | "):
                box.label(text=line)
        for title, key, prop in (("Joints", "joint", "joint_index"), ("Motions", "motion", "motion_index"),
                                 ("Couplers", "coupler", "coupler_index"),
                                 ("Springs and Forces", "force", "force_index")):
            layout.label(text=title)
            layout.template_list("MECHANISM_UL_objects", key, scene, "objects", st, prop,
                                 rows=3)


class MECHANISM_UL_constants(bpy.types.UIList):
    """The scene's named constants: name and value, both editable in place."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False)
        row.prop(item, "value", text="")


class MechanismSubPanel:
    """Where a section of the Mechanism tab goes: under the Mechanism panel, closed at first
    (the Constants and Study sections)."""
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Mechanism"
    bl_parent_id = "VIEW3D_PT_mechanism"
    bl_options = {"DEFAULT_CLOSED"}


class VIEW3D_PT_mechanism_constants(MechanismSubPanel, bpy.types.Panel):
    """Named numbers for the motion, force and spring expressions ("omega*t"); a design
    study can vary each as "constants.<name>" (every expression that uses it at once)."""
    bl_label = "Constants"

    def draw(self, context):
        st = context.scene.mechanism
        row = self.layout.row()
        row.template_list("MECHANISM_UL_constants", "", st, "constants", st, "constant_index", rows=3)
        col = row.column(align=True)
        col.operator("mechanism.constant_add", text="", icon="ADD")
        col.operator("mechanism.constant_remove", text="", icon="REMOVE")


classes = (MECHANISM_UL_objects, VIEW3D_PT_mechanism_object, VIEW3D_PT_mechanism,
           MECHANISM_UL_constants, VIEW3D_PT_mechanism_constants)
