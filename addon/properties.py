"""Settings stored on objects and scenes (saved in the .blend file).

Every object carries ``object.mechanism`` (its role and the settings of that role); the
scene carries ``scene.mechanism`` (analysis settings and list indices).  Lengths are in
Blender units (the reader applies the scene's unit scale), angles in radians (shown in
degrees), masses in kg.
"""
import math

import bpy
from bpy.props import (BoolProperty, BoolVectorProperty, CollectionProperty, EnumProperty, FloatProperty,
                       FloatVectorProperty, IntProperty, PointerProperty, StringProperty)

from .drag import (get_wiggle_angle, get_wiggle_position, get_wiggle_slide, set_wiggle_angle,
                   set_wiggle_position, set_wiggle_slide)
from .io.contact_shapes import CONTACT_SHAPES
from .io.couplers import COUPLER_KINDS
from .io.mass import mass_unit_scale
from .io.settings import JOINT_KINDS
from .study import MA_StudySettings
from .study import classes as study_classes

# Blender saves an enum as its item's number: each role keeps its number for good (files
# saved by earlier versions read back as they were), whatever the order the menu shows.
ROLES = [("NONE", "None", "Not part of the mechanism", "", 0),
         ("PART", "Part", "A rigid body", "", 1),
         ("MARKER", "Marker", "A coordinate frame on a part (an Empty parented to the part)", "", 2),
         ("JOINT", "Joint", "Connects marker I to marker J; the marker z axes are the joint axis",
          "", 3),
         ("SPRING", "Spring", "Translational spring-damper-actuator between two markers", "", 4),
         ("FORCE", "Force", "Applied force and torque at a marker", "", 5),
         ("BUSHING", "Bushing", "Six-component spring-damper between two markers: a rubber "
                                "mount, along and about marker J's axes", "", 7),
         ("COUPLER", "Coupler", "Ties joint coordinates: gears, rack and pinion, screw, general "
                                "coupler", "", 6),
         ("CONTACT", "Contact", "Keeps two parts' shapes from passing through each other: a "
                                "compliant push where they overlap", "", 8)]
COORDINATES = [("ANGLE", "Angle", "Angle of x_I from x_J about z_J"),
               ("SLIDE", "Slide", "Slide of I's origin along z_J")]


def is_marker(self, obj: bpy.types.Object) -> bool:
    return obj.mechanism.role == "MARKER"


def is_part(self, obj: bpy.types.Object) -> bool:
    return obj.mechanism.role == "PART"


def is_joint(self, obj: bpy.types.Object) -> bool:
    return obj.mechanism.role == "JOINT"


def is_curve(self, obj: bpy.types.Object) -> bool:
    return obj.type == "CURVE"


def _mass_mode_changed(self, context) -> None:
    """Typed In with the Mass as it came (1.0 stored): 1 kg as the field shows it, whatever
    the unit scale (Blender shows a stored 1.0 as 1e-9 kg in a millimetre scene)."""
    scene = getattr(context, "scene", None)
    if (self.mass_mode != "MANUAL" or scene is None
            or self.mass != self.bl_rna.properties["mass"].default):
        return
    units = scene.unit_settings
    kg = mass_unit_scale(units.system, units.scale_length or 1.0)
    if kg != 1.0:
        self.mass = 1.0 / kg


class MA_ObjectSettings(bpy.types.PropertyGroup):
    role: EnumProperty(name="Role", items=ROLES, default="NONE")

    # -- part
    ground: BoolProperty(name="Ground", description="Fixed in the world; does not move")
    mass_mode: EnumProperty(name="Mass", items=[
        ("MESH", "From Mesh", "Mass, centre of mass and inertia from the closed mesh and a density"),
        ("MANUAL", "Typed In", "Mass, centre of mass and inertia typed in")], default="MESH",
        update=_mass_mode_changed)
    # min 0, not a tiny positive number: what is typed is kept (below 0 stops at 0) and a
    # density of 0 is refused by name at Check and Bake, never baked as a near-massless part
    density: FloatProperty(name="Density", description="kg per cubic metre, above 0",
                           default=1000.0, min=0.0, soft_min=1.0, soft_max=20000.0)
    # like density: 0 is kept and refused by name at Check and Bake (the solver's "mass must
    # be positive"), never baked as a 1e-12 kg part
    # unit MASS: shown and typed in the scene's mass unit, stored divided by scale_length^3
    # (Blender's rule; the reader multiplies it back: io/mass.py mass_unit_scale)
    mass: FloatProperty(name="Mass", unit="MASS", default=1.0, min=0.0,
                        description="The part's mass, in the scene's mass unit, above 0")
    center_of_mass: FloatVectorProperty(name="Centre of Mass", size=3, subtype="XYZ", unit="LENGTH",
                                        description="In the object's local coordinates")
    inertia: FloatVectorProperty(name="Inertia", size=6, default=(0.01, 0.01, 0.01, 0.0, 0.0, 0.0),
                                 description="Ixx, Iyy, Izz, Ixy, Ixz, Iyz about the centre of "
                                             "mass in the object's axes, kg m^2")
    initial_velocity: FloatVectorProperty(name="Velocity", size=3, subtype="VELOCITY", unit="VELOCITY",
                                          description="Initial velocity of the object's origin")
    initial_angular_velocity: FloatVectorProperty(name="Angular Velocity", size=3, subtype="EULER",
                                                  unit="ROTATION",
                                                  description="Initial angular velocity, world axes, per second")
    # computed from the mesh (shown in the panel; refreshed by Check and Bake); 0: not yet,
    # and not shown either when the density has changed since (computed_density)
    computed_mass: FloatProperty(name="Computed Mass", description="kg (shown as a label)")
    computed_inertia: FloatVectorProperty(name="Computed Inertia", size=6)
    # m, from the part's origin along its axes (the solver's part frame; shown as a label)
    computed_center_of_mass: FloatVectorProperty(
        name="Computed Centre of Mass", size=3, options={"HIDDEN"},
        description="m, from the part's origin along its axes (shown as a label)")
    computed_density: FloatProperty(name="Computed With Density", options={"HIDDEN"})
    mesh_warning: StringProperty(name="Mesh Warning")

    # -- joint, spring and force: the markers they connect
    marker_i: PointerProperty(name="Marker I", type=bpy.types.Object, poll=is_marker,
                              description="Marker on the part that moves relative to J")
    marker_j: PointerProperty(name="Marker J", type=bpy.types.Object, poll=is_marker,
                              description="Reference marker")
    joint_kind: EnumProperty(name="Kind", items=JOINT_KINDS, default="REVOLUTE")
    distance: FloatProperty(name="Distance", unit="LENGTH", default=0.0, min=0.0,
                            description="Distance joints: 0 keeps the markers' present distance")
    # -- joints on curves (io/curve_joints.py): curve objects, read at their design pose into
    # their marker's frame (parent each to the part it belongs to)
    curve: PointerProperty(name="Curve", type=bpy.types.Object, poll=is_curve,
                           description="Point on Curve: the slot or track marker I's origin "
                                       "stays on; Cam: the cam's profile in marker J's xy plane. "
                                       "On marker J's part (parent it to that part)")
    follower_curve: PointerProperty(name="Follower Curve", type=bpy.types.Object, poll=is_curve,
                                    description="Cam: the follower's profile in marker I's xy "
                                                "plane, on marker I's part (parent it to that part)")
    curve_fit: StringProperty(name="Curve Fit", description="How closely the joint follows its "
                                                            "curves, at the last Check or Bake")
    # what curve_fit was measured on (curve_reader.fit_signature): shown only while the same
    curve_fit_key: StringProperty(options={"HIDDEN"})

    # -- a marker that follows another object's world location (addon/follow.py)
    follow: PointerProperty(name="Follow", type=bpy.types.Object,
                            description="Markers: the object whose world location this marker's "
                                        "origin follows over the frame range (its location keys "
                                        "exactly, or its motion sampled), and whose rotation "
                                        "it turns with along the Follow Rotation angles")
    follow_relative_to: PointerProperty(name="Relative To", type=bpy.types.Object, poll=is_marker,
                                        description="The marker whose axes the Follow Axes are "
                                                    "(empty: the world's); on a moving part, the "
                                                    "target must be parented to that part")
    follow_bone: StringProperty(name="Bone", description="An armature Follow target: the bone "
                                                         "whose head is followed as posed (empty: "
                                                         "the armature's origin)")
    follow_axes: BoolVectorProperty(name="Follow Axes", size=3, default=(True, True, True),
                                    subtype="XYZ", description="The directions held to the target "
                                                               "(the others stay free)")
    follow_rotation: BoolVectorProperty(name="Follow Rotation", size=3,
                                        default=(False, False, False),
                                        description="The angles held to the target's rotation "
                                                    "relative to Relative To (or the world): "
                                                    "b1, b2, b3, turns about x, then the new y, "
                                                    "then the new z (Blender's Euler ZYX)")
    follow_actuators: StringProperty(name="Actuators",
                                     description="The joints that make this marker's motion "
                                                 "(cylinders, motors), their object names "
                                                 "separated by commas, one per direction and "
                                                 "angle held (a cylindrical joint's slide: "
                                                 "<joint>.slide); the bake writes each one's "
                                                 "force or torque as its motion effort")
    follow_samples: IntProperty(name="Samples per Frame", default=1, min=1, max=16,
                                description="How often a target moved by a parent, constraint or "
                                            "driver is sampled between frames (its fitting error "
                                            "is reported by Check and Bake)")

    # -- motion on the joint's coordinate
    motion_type: EnumProperty(name="Motion", items=[
        ("NONE", "None", "The joint moves freely"),
        ("EXPRESSION", "Expression", "A function of time t (seconds)"),
        ("SPEED", "Constant Speed", "Constant rate from zero"),
        ("KEYFRAMED", "Keyframed", "The joint's Angle or Slide value as keyframed")], default="NONE")
    motion_coordinate: EnumProperty(name="Coordinate", items=COORDINATES, default="ANGLE")
    motion_expression: StringProperty(name="Expression", default="2*pi*t",
                                      description="Radians, or metres on a slide (metres whatever "
                                                  "the scene's unit scale), as a function of t "
                                                  "(s) and the scene's Constants")
    motion_speed: FloatProperty(name="Speed", default=6.283185307179586,
                                description="Radians per second, or metres per second on a "
                                            "slide (whatever the scene's unit scale)")
    motion_angle: FloatProperty(name="Angle", subtype="ANGLE", unit="ROTATION",
                                description="Keyframe this to drive the joint angle")
    motion_slide: FloatProperty(name="Slide", unit="LENGTH",
                                description="Keyframe this to drive the joint slide")

    # -- wiggle: the joint's coordinate as the parts stand; setting it poses the mechanism
    # (addon/drag.py; not stored: it is read from the markers)
    wiggle_angle: FloatProperty(name="Angle", subtype="ANGLE", unit="ROTATION",
                                get=get_wiggle_angle, set=set_wiggle_angle,
                                description="The joint angle now; set it to pose the mechanism "
                                            "(the other joints stay closed)")
    wiggle_slide: FloatProperty(name="Slide", unit="LENGTH", get=get_wiggle_slide,
                                set=set_wiggle_slide,
                                description="The joint slide now; set it to pose the mechanism "
                                            "(the other joints stay closed)")

    # -- torsion spring on a revolute or cylindrical joint
    torsion: BoolProperty(name="Torsion Spring",
                          description="A spring-damper on the joint's angle (revolute and "
                                      "cylindrical joints)")
    torsion_stiffness: FloatProperty(name="Stiffness", min=0.0, description="N m per radian")
    torsion_damping: FloatProperty(name="Damping", min=0.0, description="N m s per radian")
    torsion_free_angle: FloatProperty(name="Free Angle", subtype="ANGLE", unit="ROTATION",
                                      description="Joint angle at which the spring gives its "
                                                  "Preload alone (no torque without one)")
    torsion_preload: FloatProperty(name="Preload", description="N m at the free angle")

    # -- stops on a revolute angle or a prismatic or cylindrical slide (io/limits.py); the
    # angle and slide bounds are separate properties so each shows the scene's units
    use_limit_lower: BoolProperty(name="Lower", description="A stop at the lower bound")
    use_limit_upper: BoolProperty(name="Upper", description="A stop at the upper bound")
    limit_lower_angle: FloatProperty(name="Lower", subtype="ANGLE", unit="ROTATION",
                                     default=-math.pi / 2,
                                     description="Smallest joint angle (x_I from x_J about z_J, "
                                                 "counted over turns: a range may span several)")
    limit_upper_angle: FloatProperty(name="Upper", subtype="ANGLE", unit="ROTATION",
                                     default=math.pi / 2,
                                     description="Largest joint angle (x_I from x_J about z_J, "
                                                 "counted over turns: a range may span several)")
    limit_lower_slide: FloatProperty(name="Lower", unit="LENGTH", default=-1.0,
                                     description="Smallest slide of I's origin along z_J")
    limit_upper_slide: FloatProperty(name="Upper", unit="LENGTH", default=1.0,
                                     description="Largest slide of I's origin along z_J")
    limit_restitution: FloatProperty(name="Restitution", default=0.5, min=0.0, max=1.0,
                                     description="Rebound speed over impact speed at a stop "
                                                 "(0: stops dead, 1: bounces back at full speed)")
    limit_coordinate: EnumProperty(name="Coordinate", items=COORDINATES, default="ANGLE",
                                   description="Which coordinate of a cylindrical joint the "
                                               "stops act on")
    limit_model: EnumProperty(name="Stop", default="RIGID", items=[
        ("RIGID", "Rigid", "An impact with restitution, then resting contact"),
        ("COMPLIANT", "Compliant", "A stiff, damped contact force past the bound (Adams IMPACT)")])
    limit_stiffness: FloatProperty(name="Stiffness", default=1e5, min=0.0,
                                   description="Stiffness k of the stop's push k d^n, d how far "
                                               "the joint is past its bound: N per metre^n on a "
                                               "slide, N m per radian^n on an angle")
    limit_exponent: FloatProperty(name="Exponent", default=1.0, min=0.01,
                                  description="Exponent n of the push k d^n (1: a linear "
                                              "spring, 1.5: Hertz's law of curved surfaces)")
    limit_damping: FloatProperty(name="Damping", default=0.0, min=0.0,
                                 description="Largest damping, N s/m or N m s/rad, reached at "
                                             "the penetration depth below")
    limit_penetration_angle: FloatProperty(name="Penetration", subtype="ANGLE", unit="ROTATION",
                                           default=1e-3, min=1e-9, description="Penetration "
                                           "at which the damping is full")
    # 0: the solver's depth, 1 mm whatever the Unit Scale (a default in Blender units would
    # be 1e-3 mm in a millimetre scene)
    limit_penetration_slide: FloatProperty(name="Penetration", unit="LENGTH", default=0.0,
                                           min=0.0, description="Penetration at which the "
                                           "damping is full (0: 1 mm, whatever the scene's "
                                           "Unit Scale)")

    # -- friction in the joint (dynamic runs; io/limits.py)
    use_joint_friction: BoolProperty(name="Friction", description="Coulomb friction with "
                                     "sticking, its load the joint's reaction")
    friction_static: FloatProperty(name="Static", default=0.2, min=0.0,
                                   description="Static friction coefficient")
    friction_dynamic: FloatProperty(name="Dynamic", default=0.15, min=0.0,
                                    description="Sliding friction coefficient (at most the static)")
    friction_transition_speed: FloatProperty(name="Transition Speed", default=0.0, min=0.0,
                                             description="rad/s, or m/s on a slide, below which "
                                                         "the joint sticks (0: the solver's default)")
    friction_viscous: FloatProperty(name="Viscous", default=0.0, min=0.0,
                                    description="N m s per radian, or N s per metre on a slide")
    friction_preload: FloatProperty(name="Preload", default=0.0, min=0.0,
                                    description="Friction torque (N m) or force (N) with no load")
    friction_radius: FloatProperty(name="Pin Radius", unit="LENGTH", default=0.0, min=0.0,
                                   description="Radius of the pin (needed on an angle) or of a spherical joint's ball")
    friction_arm: FloatProperty(name="Thrust Arm", unit="LENGTH", default=0.0, min=0.0,
                                description="Lever of the friction from a load along the axis")
    friction_bearing_length: FloatProperty(name="Bearing Length", unit="LENGTH", default=0.0,
                                           min=0.0, description="Length of the bearing: a "
                                           "bending moment over it loads the pin (0: ignored)")
    friction_coordinate: EnumProperty(name="Coordinate", items=COORDINATES, default="ANGLE",
                                      description="Which coordinate of a cylindrical joint the "
                                                  "friction acts on")

    # -- spring-damper between marker I and marker J
    stiffness: FloatProperty(name="Stiffness", min=0.0, description="N per metre")
    damping: FloatProperty(name="Damping", min=0.0, description="N s per metre")
    use_free_length: BoolProperty(name="Free Length", description="Off: the present distance")
    free_length: FloatProperty(name="Length", unit="LENGTH", min=0.0,
                               description="The markers' distance at which the spring gives "
                                           "its Preload alone (no tension without one)")
    preload: FloatProperty(name="Preload", description="Tension at the free length, N")
    friction: FloatProperty(name="Friction", min=0.0, description="Friction force, N, smoothed "
                                                                  "below 1 mm/s: it slows the "
                                                                  "spring, holds no load")
    actuator: StringProperty(name="Actuator", description="Extra tension, N, as an expression of "
                                                          "t, length (m), speed (m/s) and the "
                                                          "scene's Constants")

    # -- bushing between marker I and marker J (SI units: the solver's add_bushing)
    bushing_stiffness: FloatVectorProperty(name="Translational Stiffness", size=3, min=0.0,
                                           default=(1e4, 1e4, 1e4),
                                           description="N per metre along marker J's x, y, z")
    bushing_rotational_stiffness: FloatVectorProperty(
        name="Rotational Stiffness", size=3, min=0.0, default=(100.0, 100.0, 100.0),
        description="N m per radian about marker J's x, y, z")
    bushing_damping: FloatVectorProperty(name="Translational Damping", size=3, min=0.0,
                                         description="N s per metre along marker J's x, y, z")
    bushing_rotational_damping: FloatVectorProperty(
        name="Rotational Damping", size=3, min=0.0,
        description="N m s per radian about marker J's x, y, z")
    bushing_preload: FloatVectorProperty(name="Preload Force", size=3,
                                         description="Force on marker I's part at zero "
                                                     "displacement, N, marker J's axes")
    bushing_preload_torque: FloatVectorProperty(name="Preload Torque", size=3,
                                                description="Torque on marker I's part at zero "
                                                            "rotation, N m, marker J's axes")

    # -- contact between two parts (addon/contacts.py, io/contact_shapes.py; SI but the
    # shapes, which come from the parts' meshes in the scene's units)
    contact_part_a: PointerProperty(name="Part A", type=bpy.types.Object, poll=is_part,
                                    description="The part that the baked force acts on")
    contact_part_b: PointerProperty(name="Part B", type=bpy.types.Object, poll=is_part,
                                    description="The other part (it takes the opposite force)")
    contact_shape_a: EnumProperty(name="Shape A", items=CONTACT_SHAPES, default="AUTO",
                                  description="Part A's contact shape, from its mesh")
    contact_shape_b: EnumProperty(name="Shape B", items=CONTACT_SHAPES, default="AUTO",
                                  description="Part B's contact shape, from its mesh")
    contact_cells: IntProperty(name="Grid Cells", default=32, min=4, max=256,
                               description="A Mesh shape's distance grid: cells along the "
                                           "mesh's largest extent (finer follows small "
                                           "features, costs memory and time to build)")
    contact_profile_cell: FloatProperty(name="Profile Cell", unit="LENGTH", default=0.0,
                                        min=0.0, description="A Profile shape's distance grid "
                                        "cell (0: 1/128 of the outline's largest extent, "
                                        "refined until it follows the outline's edges)")
    contact_profile_spacing: FloatProperty(name="Point Spacing", unit="LENGTH", default=0.0,
                                           min=0.0, description="A Profile shape's contact "
                                           "points along its outline at most this far apart "
                                           "(0: the cell)")
    contact_profile_levels: IntProperty(name="Levels", default=2, min=1, max=8,
                                        description="A Profile shape's contact points at "
                                        "this many heights across its thickness (1: the "
                                        "middle only, enough for a planar mechanism)")
    contact_restitution: FloatProperty(name="Restitution", default=0.5, min=0.01, max=1.0,
                                       description="Rebound speed over landing speed (1: no "
                                                   "loss)")
    contact_stiffness: FloatProperty(name="Stiffness", default=0.0, min=0.0,
                                     description="Stiffness K of the push K d^n, d how far the "
                                                 "shapes overlap: N per metre^n (0: a linear "
                                                 "spring whose contact lasts 0.01 s)")
    contact_exponent: FloatProperty(name="Exponent", default=1.5, min=1.0, max=3.0,
                                    description="Exponent n of the push K d^n (1.5: Hertz's law "
                                                "of curved surfaces), with a Stiffness above 0")
    contact_friction: FloatProperty(name="Static Friction", default=0.0, min=0.0,
                                    description="Friction coefficient at the contact point, "
                                                "reached at 0.01 m/s of slip")
    contact_dynamic_friction: FloatProperty(name="Dynamic Friction", default=0.0, min=0.0,
                                            description="Sliding friction coefficient, reached "
                                                        "at 0.02 m/s (0: the static)")

    # -- applied force at marker I
    force: StringProperty(name="Force", default="0, 0, 0",
                          description="Three components, N: numbers or expressions of t "
                                      "and the scene's Constants")
    torque: StringProperty(name="Torque", default="0, 0, 0",
                           description="Three components, N m: numbers or expressions of t "
                                       "and the scene's Constants")
    force_frame: EnumProperty(name="Axes", items=[("WORLD", "World", "The world's axes"),
                                                  ("MARKER", "Marker", "The marker's axes")])

    # -- coupler: ties joint coordinates (io/couplers.py turns these into the solver's call;
    # the fields' meaning follows the kind: gear 1, gear 2; pinion, rack; screw, nut slide)
    coupler_kind: EnumProperty(name="Kind", items=COUPLER_KINDS, default="GEAR")
    joint_a: PointerProperty(name="Joint A", type=bpy.types.Object, poll=is_joint,
                             description="Gear 1; the pinion; the screw; joint 1 (a revolute, "
                                         "prismatic or cylindrical joint)")
    joint_b: PointerProperty(name="Joint B", type=bpy.types.Object, poll=is_joint,
                             description="Gear 2; the rack; the nut's prismatic joint (empty: the "
                                         "screw's own cylindrical joint); joint 2")
    joint_c: PointerProperty(name="Joint C", type=bpy.types.Object, poll=is_joint,
                             description="A general coupler's third joint (optional)")
    ratio_mode: EnumProperty(name="Ratio From", items=[
        ("RADII", "Pitch Radii", "Pitch radii of the two gears (also gives the tooth force)"),
        ("TEETH", "Teeth", "Teeth counts of the two gears"),
        ("RATIO", "Ratio", "Turns of gear 1 per turn of gear 2")], default="RADII")
    radius_a: FloatProperty(name="Radius 1", unit="LENGTH", min=0.0, description="Pitch radius of gear 1")
    radius_b: FloatProperty(name="Radius 2", unit="LENGTH", min=0.0, description="Pitch radius of gear 2")
    teeth_a: IntProperty(name="Teeth 1", default=20, min=1, description="Teeth of gear 1")
    teeth_b: IntProperty(name="Teeth 2", default=40, min=1, description="Teeth of gear 2")
    gear_ratio: FloatProperty(name="Ratio", default=2.0, min=0.0,
                              description="Turns of gear 1 per turn of gear 2 (r2 / r1), above 0")
    mesh: EnumProperty(name="Mesh", items=[
        ("EXTERNAL", "External", "Two external gears: they turn opposite ways"),
        ("INTERNAL", "Internal", "A gear inside a ring gear: they turn the same way"),
        ("BELT", "Belt or Chain", "Pulleys or sprockets: they turn the same way")], default="EXTERNAL")
    pressure_angle: FloatProperty(name="Pressure Angle", subtype="ANGLE", unit="ROTATION",
                                  default=math.radians(20.0), min=0.0, soft_max=math.radians(45.0),
                                  description="Angle of the line of action (tooth force), below 60 degrees")
    helix_angle: FloatProperty(name="Helix Angle", subtype="ANGLE", unit="ROTATION", default=0.0,
                               soft_min=math.radians(-40.0), soft_max=math.radians(40.0),
                               description="Helical teeth: angle of gear 1's teeth to its axis, "
                                           "positive for right-handed gear 1 (0: spur gears). "
                                           "The axles carry the thrust T cos(pressure angle) "
                                           "tan(helix angle); revolute axles only, within (-45, 45) degrees")
    pitch_radius: FloatProperty(name="Pitch Radius", unit="LENGTH", default=0.0,
                                description="The pinion's pitch radius: rack travel = radius x "
                                            "angle (negative: the rack runs the other way)")
    pitch: FloatProperty(name="Pitch", unit="LENGTH", default=0.0, min=0.0,
                         description="Lead of the screw: advance per turn")
    hand: EnumProperty(name="Hand", items=[
        ("RIGHT", "Right", "Turning positively about z advances along +z"),
        ("LEFT", "Left", "Turning positively about z advances along -z")], default="RIGHT")
    scale_a: FloatProperty(name="Scale 1", default=1.0,
                           description="s1 in s1 q1 + s2 q2 + s3 q3 = 0 (q: rad, or Blender units for a slide)")
    scale_b: FloatProperty(name="Scale 2", default=-1.0, description="s2")
    scale_c: FloatProperty(name="Scale 3", default=1.0, description="s3 (used when Joint 3 is set)")
    coordinate_a: EnumProperty(name="Coordinate 1", items=COORDINATES, default="ANGLE",
                               description="Which coordinate of a cylindrical joint")
    coordinate_b: EnumProperty(name="Coordinate 2", items=COORDINATES, default="ANGLE",
                               description="Which coordinate of a cylindrical joint")
    coordinate_c: EnumProperty(name="Coordinate 3", items=COORDINATES, default="ANGLE",
                               description="Which coordinate of a cylindrical joint")

    # -- bake bookkeeping (parts, joints and couplers)
    baked: BoolProperty(name="Baked", options={"HIDDEN"})
    bake_action: PointerProperty(type=bpy.types.Action, options={"HIDDEN"})
    backup_action: PointerProperty(type=bpy.types.Action, options={"HIDDEN"})
    backup_slot: StringProperty(options={"HIDDEN"})
    backup_matrix: FloatVectorProperty(size=16, options={"HIDDEN"})
    backup_rotation_mode: StringProperty(options={"HIDDEN"})
    backup_location: FloatVectorProperty(size=3, options={"HIDDEN"})
    backup_scale: FloatVectorProperty(size=3, options={"HIDDEN"})
    backup_euler: FloatVectorProperty(size=3, options={"HIDDEN"})
    backup_quaternion: FloatVectorProperty(size=4, options={"HIDDEN"})
    backup_axis_angle: FloatVectorProperty(size=4, options={"HIDDEN"})
    # the frames and frame rate the bake was solved for (io/timeline.py: encode, decode)
    bake_timeline: StringProperty(options={"HIDDEN"})
    # the scene whose bake it is (its timeline markers are that bake's events)
    bake_scene: StringProperty(options={"HIDDEN"})


class MA_Constant(bpy.types.PropertyGroup):
    """A named number that motion and force expressions may use (``name`` is the
    PropertyGroup's own); a design study varies it as "constants.<name>"."""
    value: FloatProperty(name="Value", default=1.0,
                         description="The constant's value (plain number, SI units as the "
                                     "expressions that use it)")


class MA_Mode(bpy.types.PropertyGroup):
    """One mode the last Find Modes found (Mechanism.modes): its natural frequency (Hz;
    negative: a diverging mode) and modal damping ratio."""
    frequency: FloatProperty(name="Frequency", description="Hz")
    damping_ratio: FloatProperty(name="Damping Ratio")


class MA_SceneSettings(bpy.types.PropertyGroup):
    analysis: EnumProperty(name="Analysis", items=[
        ("AUTO", "Auto", "Kinematic when the motions drive every freedom, else dynamic"),
        ("KINEMATIC", "Kinematic", "Every freedom driven by motions"),
        ("DYNAMIC", "Dynamic", "Forces and gravity move the mechanism")], default="AUTO")
    tolerance: FloatProperty(name="Tolerance", default=1e-6, min=1e-12, max=1e-2,
                             description="Accuracy goal of the dynamic integrator (relative; "
                                         "the default keeps energy and positions to about "
                                         "1e-7; lower it for tighter runs)")
    force_plots: BoolProperty(name="Force Plots", default=True,
                              description="Bake the forces of joints, couplers, bushings, "
                                          "forces, contacts and followed markers as animated "
                                          "custom properties (off: the parts' motion only, "
                                          "a faster bake)")
    joint_index: IntProperty(default=-1)
    motion_index: IntProperty(default=-1)
    force_index: IntProperty(default=-1)
    coupler_index: IntProperty(default=-1)
    report: StringProperty(name="Last Check", description="What the last Check found")
    csv_path: StringProperty(name="CSV", subtype="FILE_PATH", default="//mechanism.csv",
                             description="The file Export CSV writes: the mechanism solved "
                                         "over the frame range, a row per frame of part poses, "
                                         "joint reactions and motion efforts in SI units (// is "
                                         "the .blend file's folder)")
    # the timeline markers the last bake made, [[name, frame], ...] (io/events.py)
    event_markers: StringProperty(options={"HIDDEN"})
    # the one-DOF slider (addon/drag.py): the joint coordinate it moves and its range (rad or m)
    wiggle_joint: StringProperty(name="Slider Joint")
    wiggle_coordinate: StringProperty(default="angle")
    wiggle_lower: FloatProperty()
    wiggle_upper: FloatProperty()
    wiggle_full_turn: BoolProperty()
    wiggle_position: FloatProperty(name="Position", subtype="FACTOR", min=0.0, max=1.0,
                                   get=get_wiggle_position, set=set_wiggle_position,
                                   description="Where the mechanism is in its range of motion; "
                                               "move it to pose the mechanism")
    # named constants of the motion and force expressions ("omega*t" with omega = 6.28)
    constants: CollectionProperty(type=MA_Constant)
    constant_index: IntProperty(default=-1)
    # the Modes section (modes.py): the last Find Modes, and how Bake Mode shows one
    modes: CollectionProperty(type=MA_Mode)
    mode_index: IntProperty(default=0)
    # 0: modes.DEFAULT_AMPLITUDE, 5 cm whatever the Unit Scale (a default in Blender units
    # would be 0.05 mm in a millimetre scene)
    mode_amplitude: FloatProperty(name="Amplitude", unit="LENGTH", default=0.0, min=0.0,
                                  description="How far the centre of mass that moves most "
                                              "moves (a part's turn counts as the angle in "
                                              "radians times the part's size; 0: 5 cm, "
                                              "whatever the scene's Unit Scale)")
    mode_cycles: FloatProperty(name="Cycles", default=2.0, min=0.0,
                               description="Periods the mode swings through over the scene's "
                                           "frame range (a whole number starts and ends at the "
                                           "equilibrium; a viewing aid: not its real frequency)")
    # the Study section (study.py): what to vary, the last run's table
    study: PointerProperty(type=MA_StudySettings)


classes = study_classes + (MA_ObjectSettings, MA_Constant, MA_Mode, MA_SceneSettings)


def register_properties() -> None:
    bpy.types.Object.mechanism = PointerProperty(type=MA_ObjectSettings)
    bpy.types.Scene.mechanism = PointerProperty(type=MA_SceneSettings)


def unregister_properties() -> None:
    del bpy.types.Scene.mechanism
    del bpy.types.Object.mechanism
