"""Read the tagged objects of a scene into a solver Mechanism (one way: scene -> model).

Every error names the object (and what to fix); nothing in the scene is changed here.
Units: lengths are Blender units times the Unit Scale (metres; none with no unit system,
as in Blender: metres_per_unit); angles radians; masses kg (a typed-in Mass as Blender
shows it: its stored value times the scale cubed in a unit system, io/mass.py); the
scene's gravity is taken in Blender units per s^2.
A part's frame is its object's world frame with the scale taken out (polar
decomposition); for a part already baked, the frame saved before the bake is used.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

import bpy
import numpy as np

from ..solver import Mechanism, MechanismError
from .anim import find_channelbag, hand_channels, put_hand_channels
from .contacts import add_contact
from .curve_reader import (acceleration_text, add_curve_joint, design_world, length_text,
                           mass_writer, metres_per_unit)
from .io import mass
from .io.contact_shapes import shared_pair_notes
from .io.couplers import (SLOT_LABELS, CouplerCall, CouplerSettings, coupler_call, gear_opposed,
                          rack_side_note)
from .io.curve_joints import CURVE_KINDS
from .follow import add_follows
from .io.limits import FrictionSettings, LimitSettings, friction_call, has_angle, has_coordinate
from .io.limits import limit_call, unused_notes
from .io.part_frames import (OBJECT_PARENTING, VERTEX_PARENTING, PartFrame, marker_frames,
                             marker_in_part, part_frames_of)
from .io.settings import (gravity_note, kind_name, motion_coordinate, motion_name,
                          scene_constants, speed_expression, split_components,
                          state_measures, torsion_spring_name, used_constants)
from .io.timeline import Timeline
from .keyed_motions import keyframed_motion
from .mesh_arrays import (evaluated, polygon_corners, refuse_collection_instance,
                          vertex_positions)
from .vertex_markers import one_vertex_note


@dataclass
class SceneMechanism:
    """The Mechanism of a scene and how its names map back to objects and frames."""
    mech: Mechanism
    scale: float                                   # metres per Blender unit
    timeline: Timeline                             # frame range and fps: frames <-> times
    parts: list = field(default_factory=list)      # moving part objects
    joints: list = field(default_factory=list)     # joint objects
    couplers: list = field(default_factory=list)   # coupler objects
    coupler_calls: dict = field(default_factory=dict)     # coupler name -> io CouplerCall
    motions: dict = field(default_factory=dict)    # motion name -> (joint object, "angle"|"slide")
    limits: dict = field(default_factory=dict)     # limit name -> (joint object, "angle"|"slide")
    frictions: dict = field(default_factory=dict)  # friction name -> (joint object, "angle"|"slide")
    mass_properties: dict = field(default_factory=dict)   # part name -> (props, mesh warning)
    part_frames: dict = field(default_factory=dict)       # part name -> PartFrame as designed
    bushings: list = field(default_factory=list)   # bushing objects
    springs: list = field(default_factory=list)    # spring-damper objects
    torsions: dict = field(default_factory=dict)   # torsion spring name -> its joint object
    contacts: list = field(default_factory=list)   # contact objects (between parts)
    contact_sizes: dict = field(default_factory=dict)     # contact name -> its shapes' size, m
    vector_forces: list = field(default_factory=list)     # force objects with a Reaction
    cams: list = field(default_factory=list)       # names of the cam joints (contact force)
    curve_lines: dict = field(default_factory=dict)       # joint name -> panel lines on its curves
    curve_notes: list = field(default_factory=list)       # Check's notes on curves (fit, parent)
    scene_notes: list = field(default_factory=list)       # the scene's settings (gravity)
    follows: dict = field(default_factory=dict)    # general motion -> (marker, fitting error m)
    # general motion -> [(joint object, "angle" | "slide", the solver's actuator label)]
    actuators: dict = field(default_factory=dict)
    follow_notes: list = field(default_factory=list)      # how each followed path is read
    constants: dict = field(default_factory=dict)  # the scene's Constants: name -> value
    # an object other than a part that parts are parented to (a carrier) -> its (4, 4)
    # world matrix as read: the parts' bake keys are in its space as it stood then
    carriers: dict = field(default_factory=dict)
    # joint name -> ("angle" | "slide", the first frame of the range where its keyed
    # motion's value jumps: io/keyframes.first_jump)
    keyed_jumps: dict = field(default_factory=dict)
    # a mass (kg) as the scene's Mass fields show it (curve_reader.mass_writer)
    mass_text: Callable[[float], str] = mass.kilograms

    def mesh_notes(self) -> list[str]:
        """One line per part whose mesh has problems: the part, what is wrong, the mass used."""
        return [mass.mesh_note(name, warning, props["mass"], self.mass_text)
                for name, (props, warning) in self.mass_properties.items() if warning]

    def notes(self) -> list[str]:
        """What reading the scene found worth saying (Check and Bake report it): the scene's
        settings, the meshes, the curves, the paths followed."""
        return self.scene_notes + self.mesh_notes() + self.curve_notes + self.follow_notes

    @property
    def fps(self) -> float:
        return self.timeline.fps

    @property
    def duration(self) -> float:
        """s; for callers that solve with duration and fps (the bake passes the times)."""
        return self.timeline.duration


def design_matrix(ob: bpy.types.Object) -> np.ndarray:
    """World matrix of a part as designed: the one saved before a bake if it is baked, with
    the scale channel it has now.  A bake keys the location and rotation only, so a scale
    that differs from the one saved is the user's since (Apply Scale, Ctrl A, which also
    scales the mesh): the scale is the rightmost factor of the object's matrix, so the saved
    matrix times the ratio of the scales is the design at the new scale."""
    s = ob.mechanism
    if s.baked and s.role == "PART":
        saved = np.array(s.backup_matrix, dtype=float).reshape(4, 4)
        if _scale_animated(ob):            # the user's own animation of it: not the design
            return saved
        return saved @ np.diag([*scale_ratio(tuple(ob.scale), tuple(s.backup_scale)), 1.0])
    return np.array(ob.matrix_world, dtype=float)


_SCALE_PATHS = ("scale", "delta_scale")


def _scale_animated(ob) -> bool:
    """Whether the object's scale is keyed (in any action that plays on it: its active
    one, the user's action a bake plays beneath, an NLA strip's) or driven."""
    ad = ob.animation_data
    if ad is None:
        return False
    s = ob.mechanism
    played = [(ad.action, ad.action_slot)]
    if s.backup_action is not None:
        played.append((s.backup_action, s.backup_action.slots.get(s.backup_slot)
                       if s.backup_slot else None))
    played += [(strip.action, strip.action_slot) for track in ad.nla_tracks for strip in track.strips]
    for act, slot in played:
        if act is not None and slot is None and len(act.slots):
            slot = act.slots[0]
        bag = find_channelbag(act, slot)
        if bag is not None and any(fc.data_path in _SCALE_PATHS for fc in bag.fcurves):
            return True
    return any(fc.data_path in _SCALE_PATHS for fc in ad.drivers)


def scale_ratio(now, saved) -> np.ndarray:
    """(3,) the scale channel ``now`` over the one ``saved`` (1 where the saved one is 0:
    a zero scale is refused by name when the part is read)."""
    now, saved = np.asarray(now, dtype=float), np.asarray(saved, dtype=float)
    return np.divide(now, saved, out=np.ones(3), where=saved != 0.0)


def _in_scene(ob, scene) -> bool:
    return ob is not None and scene.objects.get(ob.name) is ob


def part_mass_properties(ob, frame: PartFrame, scale: float, depsgraph,
                         kg: float = 1.0) -> tuple[dict, str]:
    """Mass, centre of mass (part frame, m) and inertia (part axes, kg m^2) of a part whose
    frame as designed is ``frame``, and the mesh's warning text ("" for a closed manifold
    mesh); ``kg``: kg per stored unit of the typed-in Mass (mass.mass_unit_scale)."""
    s = ob.mechanism
    if s.mass_mode == "MANUAL" or ob.type != "MESH":
        if s.mass_mode == "MESH":
            refuse_collection_instance(ob, "mass", "type the mass properties in (Mass: "
                                       "Typed In)")
            raise MechanismError(f"part {ob.name!r}: mass from mesh needs a mesh object; "
                                 "type the mass properties in (Mass: Typed In)")
        return mass.typed_in(s.mass * kg, tuple(s.center_of_mass), tuple(s.inertia),
                             frame.stretch, scale), ""
    ev = evaluated(ob, depsgraph, f"part {ob.name!r}")
    mesh = ev.to_mesh()
    try:
        co = vertex_positions(mesh)
        corners, sizes = polygon_corners(mesh)
    finally:
        ev.to_mesh_clear()
    return mass.from_mesh(ob.name, co, corners, frame, s.density, scale, sizes)


@contextmanager
def at_first_frame(scene: bpy.types.Scene):
    """The scene at its first frame for the time of the block, then back at the frame (and
    subframe) it stood at: a mechanism carried by an animated object (its ground and parts
    parented to it) is read where that object stands at the first frame, the bake's t = 0,
    whatever frame the scene shows, so that a bake (and the gravity its mechanism feels in
    the carrier's axes) does not depend on the frame shown.  A part moved by hand there
    (not keyed) stays moved: the way back would play its keys over the move."""
    frame, subframe = scene.frame_current, scene.frame_subframe
    if frame == scene.frame_start and subframe == 0.0:
        yield
        return
    hand = hand_channels(scene)
    scene.frame_set(scene.frame_start)
    try:
        yield
    finally:
        scene.frame_set(frame, subframe=subframe)
        if put_hand_channels(hand):
            bpy.context.view_layer.update()      # the world matrices where the move put them


def read_design(scene: bpy.types.Scene) -> SceneMechanism:
    """``read_scene`` at the scene's first frame (``at_first_frame``): the reading of Check,
    Bake, Export CSV, Run Study, Find Modes and Bake Mode and the MJCF export.  Posing by
    hand (Drag, the sliders, Assemble) reads the scene as it stands at the frame shown."""
    with at_first_frame(scene):
        return read_scene(scene)


def read_scene(scene: bpy.types.Scene, depsgraph=None, update: bool = True) -> SceneMechanism:
    """Build the Mechanism of the scene's tagged objects; raises MechanismError naming the
    object.  ``update=False`` reads the depsgraph as it stands, evaluating nothing (a panel's
    draw, where the Study's parameter list is read)."""
    if update:
        bpy.context.view_layer.update()      # matrix_world of objects changed by scripts
    depsgraph = depsgraph or (bpy.context.evaluated_depsgraph_get() if update
                              else bpy.context.view_layer.depsgraph)
    scale = metres_per_unit(scene)
    kg = mass.mass_unit_scale(scene.unit_settings.system, scale)     # the Mass field's unit
    timeline = Timeline.of_scene(scene.frame_start, scene.frame_end, scene.render.fps,
                                 scene.render.fps_base)
    g = np.array(scene.gravity, dtype=float) if scene.use_gravity else np.zeros(3)  # BU/s^2
    # Blender stores locations and matrices in float32 (unit round-off 2^-24): redundant
    # equations that disagree by that rounding are not the user's geometry
    sm = SceneMechanism(Mechanism(gravity=g * scale, input_precision=2.0 ** -24), scale, timeline)
    sm.scene_notes += [n for n in [gravity_note(g, scale, acceleration_text(scene),
                                                scene.unit_settings.system != "IMPERIAL")] if n]
    sm.mass_text = mass_writer(scene, 4)
    sm.constants = scene_constants((c.name, c.value) for c in scene.mechanism.constants)
    mech = sm.mech
    objs = [ob for ob in scene.objects if ob.mechanism.role != "NONE"]
    by_role = {r: [ob for ob in objs if ob.mechanism.role == r]
               for r in ("PART", "MARKER", "JOINT", "SPRING", "FORCE", "COUPLER", "BUSHING",
                         "CONTACT")}
    frames = part_frames_of([design_matrix(ob) for ob in by_role["PART"]])
    for ob, frame in zip(by_role["PART"], frames):
        s = ob.mechanism
        if frame is None:
            raise MechanismError(f"part {ob.name!r}: its scale is zero (or its matrix singular): "
                                 "give it a scale other than 0 on every axis")
        sm.part_frames[ob.name] = frame
        if ob.parent is not None and ob.parent.mechanism.role != "PART":
            sm.carriers[ob.parent.name] = np.array(ob.parent.matrix_world, dtype=float)
        if ob.parent is not None and ob.parent_type not in OBJECT_PARENTING:
            raise MechanismError(f"part {ob.name!r} is parented to {ob.parent.name!r} by "
                                 f"{ob.parent_type.title().replace('_', ' ')}, and a part is "
                                 "keyed in its parent object's space: parent it by Object "
                                 "(Ctrl P > Object (Keep Transform)) or clear the parent (Alt P)")
        pos, quat = frame.position, frame.orientation
        if s.ground:
            mech.add_part(ob.name, fixed=True, position=pos * scale, orientation=quat)
            continue
        props, warning = part_mass_properties(ob, frame, scale, depsgraph, kg)
        sm.mass_properties[ob.name] = (props, warning)
        from_mesh = s.mass_mode == "MESH" and ob.type == "MESH"
        sm.scene_notes += [n for n in [mass.implausible_note(
            ob.name, props["mass"], s.density if from_mesh else None, sm.mass_text)] if n]
        w = np.array(s.initial_angular_velocity, dtype=float)
        mech.add_part(ob.name, position=pos * scale, orientation=quat,
                      velocity=np.array(s.initial_velocity) * scale, angular_velocity=w, **props)
        sm.parts.append(ob)
    designed = _design_frames(by_role["MARKER"], sm.part_frames)
    for ob, (position, orientation) in zip(by_role["MARKER"], designed):
        part = ob.parent
        if part is not None and part.mechanism.role == "PART" and not _in_scene(part, scene):
            raise MechanismError(f"marker {ob.name!r}: its part {part.name!r} is not in the "
                                 "scene (unlinked, or in a collection the scene does not "
                                 "hold): link the part back, or delete the marker")
        if part is None or part.mechanism.role != "PART":
            raise MechanismError(f"marker {ob.name!r} is not parented to a part: parent it to "
                                 "the part it belongs to (Ctrl P)")
        if ob.parent_type not in OBJECT_PARENTING + VERTEX_PARENTING:
            raise MechanismError(f"marker {ob.name!r} is parented to part {part.name!r} by "
                                 f"{ob.parent_type.title()}, which a marker does not follow: "
                                 "parent it to the part's object or vertices (Ctrl P)")
        # marker frame relative to the part frame, both as designed: the part's matrix from
        # before any bake, the marker's through its parent relation (not the animated pose)
        if position is None:
            raise MechanismError(f"marker {ob.name!r}: its scale is zero (or its matrix "
                                 "singular): give it a scale other than 0 on every axis")
        sm.scene_notes += [n for n in [one_vertex_note(ob, part, scene)] if n]
        position, orientation = marker_in_part(sm.part_frames[part.name], position, orientation)
        mech.add_marker(ob.name, part.name, position=position * scale, orientation=orientation)
    for ob in by_role["JOINT"]:
        s = ob.mechanism
        for label, mk in (("marker I", s.marker_i), ("marker J", s.marker_j)):
            if mk is None:
                raise MechanismError(f"joint {ob.name!r}: {label} is not set")
            if not _in_scene(mk, scene) or mk.mechanism.role != "MARKER":
                raise MechanismError(f"joint {ob.name!r}: {label} {mk.name!r} was deleted or is "
                                     "no longer a marker")
        kind = kind_name(s.joint_kind)
        if s.joint_kind in CURVE_KINDS:
            _add_curve_joint(sm, ob, scene)
        else:
            length = s.distance * scale if kind == "distance" and s.distance > 0 else None
            mech.add_joint(ob.name, kind, s.marker_i.name, s.marker_j.name, length=length)
        sm.joints.append(ob)
        _add_joint_extras(sm, ob)
    add_follows(sm, scene, by_role["MARKER"], update)       # after the joints: its actuators
    for ob in by_role["COUPLER"]:
        _add_coupler(sm, ob, scene)
    for ob in by_role["SPRING"]:
        s = ob.mechanism
        for label, mk in (("marker I", s.marker_i), ("marker J", s.marker_j)):
            if mk is None or not _in_scene(mk, scene) or mk.mechanism.role != "MARKER":
                raise MechanismError(f"spring {ob.name!r}: {label} is not set or was deleted")
        actuator = s.actuator.strip() or None
        mech.add_spring_damper(ob.name, s.marker_i.name, s.marker_j.name, stiffness=s.stiffness,
                               damping=s.damping,
                               free_length=s.free_length * scale if s.use_free_length else None,
                               preload=s.preload, friction=s.friction, actuator=actuator,
                               constants=used_constants([actuator], sm.constants,
                                                        ("t", "length", "speed")) or None)
        sm.springs.append(ob)
    for ob in by_role["BUSHING"]:
        _add_bushing(sm, ob, scene)
    for ob in by_role["CONTACT"]:
        sm.contact_sizes[ob.name], said = add_contact(mech, ob, scene, sm.part_frames, scale,
                                                      depsgraph)
        sm.scene_notes += said
        sm.contacts.append(ob)
    sm.scene_notes += shared_pair_notes([(ob.name, ob.mechanism.contact_part_a.name,
                                          ob.mechanism.contact_part_b.name)
                                         for ob in sm.contacts])
    for ob in by_role["FORCE"]:
        s = ob.mechanism
        if s.marker_i is None or not _in_scene(s.marker_i, scene) or s.marker_i.mechanism.role != "MARKER":
            raise MechanismError(f"force {ob.name!r}: its marker is not set or was deleted")
        force = split_components(s.force, f"force {ob.name!r}: force")
        torque = split_components(s.torque, f"force {ob.name!r}: torque")
        react = s.marker_j
        if react is not None:           # a force between two parts: of time and state
            if not _in_scene(react, scene) or react.mechanism.role != "MARKER":
                raise MechanismError(f"force {ob.name!r}: its Reaction marker was deleted or is "
                                     "no longer a marker")
            mech.add_vector_force(ob.name, s.marker_i.name, react.name, force, torque,
                                  frame=s.marker_i.name if s.force_frame == "MARKER" else "world",
                                  constants=used_constants(force + torque, sm.constants,
                                                           measures=True))
            sm.vector_forces.append(ob)
            continue
        measured = state_measures(force + torque)
        if measured:
            raise MechanismError(f"force {ob.name!r}: {measured[0]} measures the mechanism's "
                                 "state: set the force's Reaction marker (the marker whose part "
                                 "takes the opposite force; one on the ground for none)")
        mech.add_force(ob.name, s.marker_i.name, force=force, torque=torque,
                       frame="marker" if s.force_frame == "MARKER" else "world",
                       constants=used_constants(force + torque, sm.constants))
    if not sm.parts:
        raise MechanismError(_instanced_parts(scene) or "the scene has no moving part: tag "
                             "objects as parts (and one as ground)")
    return sm


def _instanced_parts(scene: bpy.types.Scene) -> str:
    """Why a scene without parts of its own shows a mechanism ("" when it does not): an
    Empty that instances a collection whose parts are not in the scene (a collection
    instance shows them, but only the scene's objects are read and keyed)."""
    for ob in scene.objects:
        group = ob.instance_collection if ob.instance_type == "COLLECTION" else None
        parts = [p for p in (group.all_objects if group is not None else ())
                 if p.mechanism.role == "PART" and not p.mechanism.ground]
        if parts and not _in_scene(parts[0], scene):
            more = f" and {len(parts) - 1} other(s)" if len(parts) > 1 else ""
            return (f"the scene has no moving part of its own: {ob.name!r} instances collection "
                    f"{group.name!r}, whose part {parts[0].name!r}{more} is not in the scene, "
                    "and a bake reads and keys the scene's objects: link the collection into "
                    "the scene (or bake it in its own scene)")
    return ""


def _design_frames(markers: list, part_frames: dict) -> list[tuple]:
    """(origin (3,), axes (4,) w x y z) in world of each marker as designed (its parent
    relation applied to its part's design matrix: curve_reader.design_world), its drawn z
    and x axes kept (part_frames.marker_frames), all polar decompositions in one set of
    numpy calls; (None, None) for a marker whose matrix is singular (a scale of zero)."""
    worlds = []
    for ob in markers:
        try:
            worlds.append(design_world(ob, part_frames))
        except (ValueError, np.linalg.LinAlgError):
            worlds.append(None)
    position, orientation, valid = marker_frames(
        np.array([np.eye(4) if w is None else w for w in worlds]).reshape(-1, 4, 4))
    return [(p, q) if w is not None and ok else (None, None)
            for w, p, q, ok in zip(worlds, position, orientation, valid)]


def _add_bushing(sm: SceneMechanism, ob, scene) -> None:
    """A Bushing object's add_bushing: its six stiffnesses, dampings and preloads (SI) along
    and about marker J's axes."""
    s = ob.mechanism
    for label, mk in (("marker I", s.marker_i), ("marker J", s.marker_j)):
        if mk is None or not _in_scene(mk, scene) or mk.mechanism.role != "MARKER":
            raise MechanismError(f"bushing {ob.name!r}: {label} is not set or was deleted")
    sm.mech.add_bushing(ob.name, s.marker_i.name, s.marker_j.name,
                        stiffness=(*s.bushing_stiffness, *s.bushing_rotational_stiffness),
                        damping=(*s.bushing_damping, *s.bushing_rotational_damping),
                        preload=(*s.bushing_preload, *s.bushing_preload_torque))
    sm.bushings.append(ob)


def _add_joint_extras(sm: SceneMechanism, ob) -> None:
    """The joint's motion, torsion spring, stops and friction, when it has them (the
    solver's errors name the items "<joint>: limit", "<joint>: friction")."""
    s = ob.mechanism
    mech = sm.mech
    if s.motion_type != "NONE" and has_coordinate(s.joint_kind):     # else unused_notes
        coord = motion_coordinate(s.joint_kind, s.motion_coordinate)
        name = motion_name(ob.name, coord)
        deriv = breaks = None
        if s.motion_type == "EXPRESSION":
            spec = s.motion_expression
            if not spec.strip():
                raise MechanismError(f"joint {ob.name!r}: the motion expression is empty")
        elif s.motion_type == "SPEED":
            if not np.isfinite(s.motion_speed):
                raise MechanismError(f"joint {ob.name!r}: its motion's Speed is "
                                     f"{s.motion_speed}: give it a number")
            spec = speed_expression(s.motion_speed)
        else:
            spec, deriv, breaks, jump = keyframed_motion(ob, coord, sm.timeline, sm.scale)
            if jump is not None:
                sm.keyed_jumps[ob.name] = (coord, jump)
        mech.add_motion(name, ob.name, spec, coordinate=coord, derivatives=deriv,
                        constants=used_constants([spec], sm.constants) if deriv is None else None,
                        breakpoints=breaks)
        sm.motions[name] = (ob, coord)
    if s.torsion and has_angle(s.joint_kind):
        mech.add_torsion_spring(torsion_spring_name(ob.name), ob.name, stiffness=s.torsion_stiffness,
                                damping=s.torsion_damping, free_angle=s.torsion_free_angle,
                                preload=s.torsion_preload)
        sm.torsions[torsion_spring_name(ob.name)] = ob
    sm.scene_notes += unused_notes(ob.name, limit_settings(s), friction_settings(s), s.torsion,
                                   s.motion_type != "NONE")
    call = limit_call(ob.name, limit_settings(s), sm.scale)
    if call is not None:
        mech.add_limit(**call)
        sm.limits[call["name"]] = (ob, call["coordinate"])
    call = friction_call(ob.name, friction_settings(s), sm.scale)
    if call is not None:
        mech.add_friction(**call)
        sm.frictions[call["name"]] = (ob, call["coordinate"])


def limit_settings(s) -> LimitSettings:
    """A joint object's stops (its ``mechanism`` property group) as plain values."""
    return LimitSettings(kind=s.joint_kind, coordinate=s.limit_coordinate,
                         use_lower=s.use_limit_lower, use_upper=s.use_limit_upper,
                         lower_angle=s.limit_lower_angle, upper_angle=s.limit_upper_angle,
                         lower_slide=s.limit_lower_slide, upper_slide=s.limit_upper_slide,
                         restitution=s.limit_restitution,
                         compliant=s.limit_model == "COMPLIANT", stiffness=s.limit_stiffness,
                         exponent=s.limit_exponent, damping=s.limit_damping,
                         penetration_angle=s.limit_penetration_angle,
                         penetration_slide=s.limit_penetration_slide)


def friction_settings(s) -> FrictionSettings:
    """A joint object's friction settings as plain values."""
    return FrictionSettings(kind=s.joint_kind, coordinate=s.friction_coordinate,
                            use=s.use_joint_friction, static=s.friction_static,
                            dynamic=s.friction_dynamic,
                            transition_speed=s.friction_transition_speed,
                            viscous=s.friction_viscous, preload=s.friction_preload,
                            radius=s.friction_radius, arm=s.friction_arm,
                            bearing_length=s.friction_bearing_length)


def _add_curve_joint(sm: SceneMechanism, ob, scene) -> None:
    """A Point on Curve or Cam joint with its curve objects (curve_reader.py); what Check
    and the panel say about its curves, in the scene's units."""
    shapes, notes = add_curve_joint(sm.mech, ob, scene, sm.part_frames, sm.scale)
    text = lambda m: length_text(scene, m)     # noqa: E731
    sm.curve_lines[ob.name] = [shape.fit_line(text) for shape in shapes]
    sm.curve_notes += notes + [n for n in (shape.note(text) for shape in shapes) if n]
    if ob.mechanism.joint_kind == "CAM":
        sm.cams.append(ob.name)


def coupler_settings(s) -> CouplerSettings:
    """A coupler object's settings (its ``mechanism`` property group) as plain values."""
    return CouplerSettings(
        kind=s.coupler_kind, ratio_mode=s.ratio_mode, radius_a=s.radius_a, radius_b=s.radius_b,
        teeth_a=s.teeth_a, teeth_b=s.teeth_b, gear_ratio=s.gear_ratio, mesh=s.mesh,
        pressure_angle=s.pressure_angle, helix_angle=s.helix_angle, pitch_radius=s.pitch_radius, pitch=s.pitch, hand=s.hand,
        scales=(s.scale_a, s.scale_b, s.scale_c),
        coordinates=(s.coordinate_a, s.coordinate_b, s.coordinate_c))


def coupler_joints(ob, scene) -> list:
    """(name, solver kind) or None (unset) of each joint field the coupler's kind uses; a
    field pointing at an object deleted from the scene or no longer a joint is refused."""
    s = ob.mechanism
    out = []
    for label, joint in zip(SLOT_LABELS[s.coupler_kind], (s.joint_a, s.joint_b, s.joint_c)):
        if joint is None:
            out.append(None)
            continue
        if not _in_scene(joint, scene) or joint.mechanism.role != "JOINT":
            raise MechanismError(f"coupler {ob.name!r}: {label} {joint.name!r} was deleted or is "
                                 "no longer a joint: pick a joint")
        out.append((joint.name, kind_name(joint.mechanism.joint_kind)))
    return out


def _add_coupler(sm: SceneMechanism, ob, scene) -> CouplerCall:
    """Add the coupler object's gear, rack, screw or coupler to the mechanism (joint object
    names are the solver's joint names)."""
    joints = coupler_joints(ob, scene)
    settings = coupler_settings(ob.mechanism)
    opposed = (settings.kind == "GEAR" and None not in joints[:2]
               and all(j[0] in sm.mech.joints for j in joints[:2])
               and gear_opposed(sm.mech, [j[0] for j in joints[:2]]))
    call = coupler_call(ob.name, settings, joints, sm.scale, opposed)
    getattr(sm.mech, call.method)(ob.name, **call.kwargs)
    if settings.kind == "RACK_PINION":
        sm.scene_notes += [n for n in [rack_side_note(ob.name, sm.mech, [j[0] for j in joints[:2]],
                                                      settings.pitch_radius)] if n]
    sm.couplers.append(ob)
    sm.coupler_calls[ob.name] = call
    return call
