"""Posing the mechanism by hand: the Drag operator (grab a moving part in the viewport, every
part follows with the joints held) and the wiggle sliders (a joint's angle or slide, and a
one-DOF mechanism's position over its range of motion).

Thin over ``solver/analyses/posing/drag.py`` (the ``Poser``) and ``io/drag.py`` (the maths without
Blender).  Both write the parts' ``matrix_world`` (not keyframes): a pose moved by hand is
like the user moving the parts, the design pose a later Bake starts from; both refuse a
baked mechanism (its keys would play over the pose).  Motions are held at their values at
the scene's current frame.  A slider keeps its posing (the scene read once, the model,
the Poser) from one change to the next while the scene is unchanged (scene_cache.py).
"""
from __future__ import annotations

import bpy
import numpy as np
from bpy.props import FloatVectorProperty, StringProperty

from ..solver import MechanismError, SolverError, quat_to_matrix
from . import scene_cache
from .bake import place_parts
from .bake_checks import refuse_posing
from .io.drag import (angle_in_stops, drag_plane_point, joint_coordinate, point_in_part,
                      range_fraction, range_path, range_value, stops_note, time_of_frame,
                      wiggle_candidates)
from .curve_reader import angle_text, length_text, metres_per_unit, scene_lengths
from .io.settings import kind_name
from .scene_reader import read_scene

POSE = "posing"          # the joint sliders' reading of the scene (scene_cache.py)

BUDGET = 0.015          # s of solving per mouse move (bench/bench_drag.py)


_CHANNELS = ("location", "rotation_quaternion", "rotation_euler", "rotation_axis_angle")


def _channels(ob) -> dict:
    """An object's location and rotation channels as they are (restored exactly: writing
    its matrix back could turn a negative scale's reflection into other channels)."""
    return {attr: tuple(getattr(ob, attr)) for attr in _CHANNELS}


class Posing:
    """A scene's mechanism ready to be posed by hand: the scene read once, the ``Poser`` at
    the current frame's time (the start pose assembled), each part's matrix from before."""

    def __init__(self, scene) -> None:
        sm = read_scene(scene)
        if any(ob.mechanism.baked for ob in sm.parts):
            raise MechanismError("the mechanism is baked: clear the bake before posing it by hand")
        refuse_posing(sm.parts, scene)
        self.sm, self.scene = sm, scene
        t = time_of_frame(sm.timeline.frame_start, sm.timeline.fps, scene.frame_current)
        self.original = {ob.name: _channels(ob) for ob in sm.parts}
        self.poser = sm.mech.poser(t)
        self.model = self.poser.model

    def write(self) -> None:
        """Put every moving part at the poser's pose (matrix_world, Blender units)."""
        pos, quat = self.poser.part_poses()
        body = {name: b for b, name in enumerate(self.model.body_part)}
        place_parts(self.sm, lambda name: (pos[body[name]], quat[body[name]]), body)

    def restore(self) -> None:
        """Every part back where it was before posing began."""
        for name, channels in self.original.items():
            ob = self.scene.objects[name]
            for attr, value in channels.items():
                setattr(ob, attr, value)

    def point_on(self, part: str, world) -> np.ndarray:
        """A world point (BU) in ``part``'s frame (m) as the poser now poses the part (the
        start pose assembled, not the part as it stood when the scene was read)."""
        pos, quat = self.poser.part_poses()
        b = list(self.model.body_part).index(part)
        return quat_to_matrix(quat[b]).T @ (np.asarray(world, float) * self.sm.scale - pos[b])

    def held(self) -> str:
        """Why nothing can move by hand ("" when something can): every freedom taken by
        the motions (each driven joint named, and each marker that follows a path), or by
        the joints alone. Drag would leave every part where it is."""
        if self.sm.mech.check().driven_dof > 0:
            return ""
        return held_by(self.sm)

    def drag(self, part: str, point, target, budget: float | None = BUDGET) -> None:
        """Pull ``point`` (m, part frame) of ``part`` to ``target`` (world, Blender units)."""
        self.poser.drag_to(part, point, np.asarray(target, float) * self.sm.scale, budget=budget)
        self.write()


def held_by(sm) -> str:
    """What holds a mechanism with no freedom left, and the remedy: the motions that drive
    it, by joint, and the markers that follow a path; or its joints alone."""
    joints = [ob.name for ob in sm.joints if ob.mechanism.motion_type != "NONE"]
    markers = [ob.name for ob, _error in sm.follows.values()]
    if not joints and not markers:
        return "its joints hold every part: nothing moves by hand"
    what = []
    if joints:
        what.append(("the motion of joint " if len(joints) == 1 else "the motions of joints ")
                    + ", ".join(map(repr, joints)))
    if markers:
        what.append(("marker " if len(markers) == 1 else "markers ")
                    + ", ".join(map(repr, markers)) + " following a path")
    one = len(joints) + len(markers) == 1
    remedy = "set its Motion to None" if one and joints else "set their Motion to None"
    if markers:
        remedy = "clear its Follow" if one else remedy + " (a marker: clear its Follow)"
    return f"{' and '.join(what)} {'drives' if one else 'drive'} it: {remedy} to pose it by hand"


def _view_ray(context, x: float, y: float):
    """(origin, direction) in world of the mouse ray at region pixel (x, y)."""
    from bpy_extras import view3d_utils
    region, rv3d = context.region, context.region_data
    return (np.array(view3d_utils.region_2d_to_origin_3d(region, rv3d, (x, y))),
            np.array(view3d_utils.region_2d_to_vector_3d(region, rv3d, (x, y))))


def _moving_part(ob, posing: Posing):
    """The moving part an object belongs to (itself, or a part it is parented under)."""
    names = set(posing.model.body_part)
    while ob is not None and ob.name not in names:
        ob = ob.parent
    return ob


class MECHANISM_OT_drag(bpy.types.Operator):
    """Drag a moving part with the mouse: every part follows with its joints held (motions
    at the current frame); click or Enter to keep the pose, Esc or right click to put
    everything back"""
    bl_idname = "mechanism.drag"
    bl_label = "Drag"
    bl_options = {"REGISTER", "UNDO"}
    part: StringProperty(name="Part", description="Scripts: the part to drag")
    point: FloatVectorProperty(name="Point", size=3, subtype="TRANSLATION", unit="LENGTH",
                               description="Scripts: the grabbed point (world, before the "
                                           "drag; default the part's origin)")
    target: FloatVectorProperty(name="Target", size=3, subtype="TRANSLATION", unit="LENGTH",
                                description="Scripts: where the grabbed point is pulled to")

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Drag works in Object Mode")
            return False
        return context.scene is not None

    def execute(self, context):
        """One drag as scripts call it: ``part``'s ``point`` pulled to ``target``."""
        try:
            posing = Posing(context.scene)
            held = posing.held()
            if held:
                raise MechanismError(f"Drag: nothing can move: {held}")
            ob = context.scene.objects.get(self.part)
            if ob is None or ob.name not in posing.model.body_part:
                raise MechanismError(f"{self.part!r} is not a moving part of the mechanism")
            frame = posing.sm.part_frames[ob.name]
            grab = self.point if self.properties.is_property_set("point") else frame.position
            posing.drag(ob.name, point_in_part(frame, grab, posing.sm.scale), self.target,
                         budget=None)
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, scene_lengths(str(exc), context.scene))
            return {"CANCELLED"}
        note = _stops_said(context.scene, posing.poser.stopped)
        if note:
            self.report({"INFO"}, f"Drag: {note}")
        return {"FINISHED"}

    def invoke(self, context, event):
        if context.region_data is None:
            self.report({"ERROR"}, "Drag works in the 3D viewport")
            return {"CANCELLED"}
        if not self.begin(context, event):
            return {"CANCELLED"}
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def begin(self, context, event) -> bool:
        """Read the scene and grab the moving part under the mouse (else the active
        object's part, at its origin); False (reported) when there is nothing to drag."""
        try:
            self._posing = posing = Posing(context.scene)
            held = posing.held()
            if held:
                raise MechanismError(f"Drag: nothing can move: {held}")
            posing.write()                  # the start pose, assembled
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, scene_lengths(str(exc), context.scene))
            return False
        origin, direction = _view_ray(context, event.mouse_region_x, event.mouse_region_y)
        hit, where, _n, _i, ob, _m = context.scene.ray_cast(context.evaluated_depsgraph_get(),
                                                             origin, direction)
        part = _moving_part(ob, posing) if hit else None
        if part is None:
            part = _moving_part(context.active_object, posing)
            where = part.matrix_world.translation if part is not None else None
        if part is None:
            posing.restore()
            self.report({"ERROR"}, "Drag: point at a moving part of the mechanism")
            return False
        self._part, self._grab = part.name, np.array(where)
        self._normal = direction / np.linalg.norm(direction)     # the plane faces the view
        self._point = posing.point_on(part.name, self._grab)    # on the start pose written
        self._target = self._grab
        return True

    def modal(self, context, event):
        posing = self._posing
        if event.type == "MOUSEMOVE":
            origin, direction = _view_ray(context, event.mouse_region_x, event.mouse_region_y)
            target = drag_plane_point(origin, direction, self._grab, self._normal)
            if target is not None:
                try:
                    posing.drag(self._part, self._point, target)
                    self._target = target
                except (MechanismError, SolverError) as exc:
                    self.report({"WARNING"}, scene_lengths(str(exc), context.scene))
            return {"RUNNING_MODAL"}
        if event.type in {"LEFTMOUSE", "RET", "NUMPAD_ENTER"} and event.value in {"PRESS", "RELEASE"}:
            _keep(self, posing)
            note = _stops_said(context.scene, posing.poser.stopped)
            if note:                       # the pose kept rests on a stop: say which
                self.report({"INFO"}, f"Drag: {note}")
            return {"FINISHED"}
        if event.type in {"ESC", "RIGHTMOUSE"} and event.value == "PRESS":
            posing.restore()
            return {"CANCELLED"}
        return {"RUNNING_MODAL"}


def _keep(op, posing: Posing) -> None:
    """A finished live drag kept in its operator's properties as ``execute`` reads them (the
    part, the grabbed point where it stood before the drag, the last target), so Adjust
    Last Operation and Repeat Last, which call ``execute``, run it again (with the fields
    left empty they refused it, after undoing the drag)."""
    frame = posing.sm.part_frames[op._part]
    op.part = op._part
    op.point = frame.position + frame.rotation @ (op._point / posing.sm.scale)
    op.target = tuple(op._target)


# ---------------------------------------------------------------- wiggle sliders
def _lengths(scene):
    """A length in metres as the scene's units write it (curve_reader.length_text)."""
    return lambda metres: length_text(scene, metres)


def _stops_said(scene, stopped) -> str:
    """io/drag.stops_note of the stops that hold a pose, in the scene's length and rotation
    units (as the stops' Lower and Upper fields show them)."""
    return stops_note(stopped, _lengths(scene), lambda radians: angle_text(scene, radians))


def _say(scene, text: str) -> None:
    scene.mechanism.report = text


def joint_value(joint, coordinate: str) -> float:
    """A joint object's angle (rad) or slide (Blender units) as its markers stand now (0 while
    a marker is unset or scaled to zero: the panel's field has nothing to show)."""
    s = joint.mechanism
    if s.marker_i is None or s.marker_j is None:
        return 0.0
    try:
        return joint_coordinate(np.array(s.marker_i.matrix_world),
                                np.array(s.marker_j.matrix_world), coordinate, 1.0)
    except ValueError:
        return 0.0


def set_joint_value(joint, coordinate: str, value: float, via: tuple = ()) -> None:
    """Pose the scene's mechanism with the joint's angle (rad) or slide (Blender units) at
    ``value`` and the rest assembled, passing through the values ``via`` first (each
    reached the shorter way round from the one before).  A value past the joint's stop is
    clamped to it, and another joint's stop may hold the pose short of the value (solver/analyses/posing/wiggle.py):
    the Mechanism panel's report says which stop holds it; a failure is said there too (the
    parts stay where they were, and the next change reads the scene again: the kept posing
    may hold the pose refused); an earlier slider's line is cleared."""
    scene = bpy.context.scene
    try:
        posing = scene_cache.kept_or_made(scene, POSE, Posing, at_frame=True, keep=False)
        per = posing.sm.scale if coordinate == "slide" else 1.0
        for v in (*via, value):
            posing.poser.set_coordinate(joint.name, v * per, coordinate)
        posing.write()
    except (MechanismError, SolverError) as exc:
        scene_cache.drop(scene, POSE)       # its poser may hold the pose refused
        _say(scene, f"wiggle: {scene_lengths(str(exc), scene)}")
        return
    scene_cache.remember(scene, POSE, posing, at_frame=True)
    note = _stops_said(scene, posing.poser.stopped)
    if note:
        _say(scene, f"wiggle: {note}")
    elif scene.mechanism.report.startswith("wiggle:"):
        _say(scene, "")


def _wiggle_coordinate(s) -> str:
    return "slide" if s.joint_kind == "PRISMATIC" else "angle"


def _angle_stops(s) -> tuple[float | None, float | None]:
    """A joint's stops on its angle (rad; None: none on that side), from its settings."""
    if s.joint_kind != "REVOLUTE" and not (s.joint_kind == "CYLINDRICAL"
                                           and s.limit_coordinate == "ANGLE"):
        return None, None
    return (s.limit_lower_angle if s.use_limit_lower else None,
            s.limit_upper_angle if s.use_limit_upper else None)


def get_wiggle_angle(self) -> float:
    """The joint's angle, on the turn the kept posing follows (a coupled angle, a range
    wider than a turn: 720 degrees set reads 720, not 0); with no posing kept, on the turn
    of its stops (stops at 100 and 260 degrees: 200 reads 200, not -160)."""
    v = joint_value(self.id_data, "angle")
    near = _followed_turn(bpy.context.scene, self.id_data.name, "angle")
    if near is None:
        return angle_in_stops(v, *_angle_stops(self))
    return v + 2.0 * np.pi * round((near - v) / (2.0 * np.pi))


def set_wiggle_angle(self, value: float) -> None:
    set_joint_value(self.id_data, "angle", value)


def get_wiggle_slide(self) -> float:
    return joint_value(self.id_data, "slide")


def set_wiggle_slide(self, value: float) -> None:
    set_joint_value(self.id_data, "slide", value)


def _driven(s) -> str:
    """The coordinate of a joint's settings ``s`` its motion drives ("angle", "slide"; ""
    for none)."""
    if s.motion_type == "NONE":
        return ""
    return "slide" if s.joint_kind == "PRISMATIC" else s.motion_coordinate.lower()


def find_range(scene) -> str:
    """For a mechanism with one freedom left by its motions (the joints' and the followed
    markers'): the joint coordinate its slider moves and its range, stored on the scene's
    settings; returns what was found.  MechanismError when it has more or fewer."""
    posing = scene_cache.kept_or_made(scene, POSE, Posing, at_frame=True, keep=False)
    st = scene.mechanism
    free = posing.sm.mech.check().driven_dof      # the joints' motions and followed markers
    if free != 1:
        raise MechanismError(f"the slider is for a mechanism with one freedom; this one has "
                             f"{free} (motions counted): "
                             f"{held_by(posing.sm) if free == 0 else 'drag it instead'}")
    model = posing.model
    joints = []
    for ob in posing.sm.joints:
        s = ob.mechanism
        grounded = any(m.parent is not None and m.parent.mechanism.ground
                       for m in (s.marker_i, s.marker_j))
        joints.append((ob.name, kind_name(s.joint_kind), _driven(s), grounded))
    best = None
    for name, coord in wiggle_candidates(joints)[:4]:
        try:
            rng = posing.poser.coordinate_range(name, coord)
        except SolverError:
            continue
        if rng.upper - rng.lower > 1e-6 * (1.0 if coord == "angle" else model.length_scale):
            best = rng
            break
    if best is None:
        raise MechanismError("no joint angle or slide moves this mechanism")
    st.wiggle_joint, st.wiggle_coordinate = best.joint, best.name
    st.wiggle_lower, st.wiggle_upper, st.wiggle_full_turn = best.lower, best.upper, best.full_turn
    if best.name == "slide":
        text = _lengths(scene)
        return f"{best.joint}: slide {text(best.lower)} .. {text(best.upper)}"
    if best.full_turn:
        return f"{best.joint}: angle, a full turn"
    lower, upper = angle_text(scene, best.lower), angle_text(scene, best.upper)
    return f"{best.joint}: angle {lower} .. {upper}"


def _wiggle_joint(scene):
    st = scene.mechanism
    ob = scene.objects.get(st.wiggle_joint) if st.wiggle_joint else None
    return ob if ob is not None and ob.mechanism.role == "JOINT" else None


def get_wiggle_position(self) -> float:
    """The 1-DOF slider: where the joint's coordinate is in the range found (0..1)."""
    scene = self.id_data
    ob = _wiggle_joint(scene)
    if ob is None:
        return 0.0
    st = scene.mechanism
    v = joint_value(ob, st.wiggle_coordinate) * (metres_per_unit(scene)
                                                 if st.wiggle_coordinate == "slide" else 1.0)
    return range_fraction(v, st.wiggle_lower, st.wiggle_upper, st.wiggle_coordinate == "angle",
                          st.wiggle_full_turn, _followed_turn(scene, ob.name, st.wiggle_coordinate))


def _followed_turn(scene, joint: str, coordinate: str) -> float | None:
    """The joint's angle on the turns the kept posing follows (a coupled angle, one its
    stops bound: the markers alone give it within one turn), or None (no posing kept, or
    an angle it reads within one turn as the markers do)."""
    posing = scene_cache.kept(scene, POSE)
    if coordinate != "angle" or posing is None:
        return None
    try:
        c = posing.poser.coordinate(joint, coordinate)
        if c.tracked < 0 and not c.own.size:
            return None
        return posing.poser.value(joint, coordinate)
    except (MechanismError, SolverError):
        return None


def set_wiggle_position(self, value: float) -> None:
    scene = self.id_data
    ob = _wiggle_joint(scene)
    if ob is None:
        _say(scene, "wiggle: press Range of Motion first")
        return
    st = scene.mechanism
    v = range_value(value, st.wiggle_lower, st.wiggle_upper)
    if st.wiggle_coordinate == "slide":
        v /= metres_per_unit(scene)
        set_joint_value(ob, "slide", v)
        return
    path = range_path(joint_value(ob, "angle"), v, st.wiggle_lower, st.wiggle_upper, True,
                      st.wiggle_full_turn, _followed_turn(scene, ob.name, "angle"))
    set_joint_value(ob, "angle", path[-1], tuple(path[:-1]))


class MECHANISM_OT_find_range(bpy.types.Operator):
    """One-DOF mechanism: find the joint whose slider moves it and its range of motion
    (swept until the joints cannot close, a stop, or a full turn)"""
    bl_idname = "mechanism.find_range"
    bl_label = "Range of Motion"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        try:
            said = find_range(context.scene)
        except (MechanismError, SolverError) as exc:
            self.report({"ERROR"}, scene_lengths(str(exc), context.scene))
            return {"CANCELLED"}
        self.report({"INFO"}, said)
        return {"FINISHED"}


classes = (MECHANISM_OT_drag, MECHANISM_OT_find_range)


_keymaps: list = []


def register_keymap() -> None:
    """Ctrl Alt D in the 3D viewport starts Drag (when Blender has a window manager's
    add-on key configuration; headless it has none)."""
    kc = bpy.context.window_manager.keyconfigs.addon
    if kc is None:
        return
    km = kc.keymaps.new(name="3D View", space_type="VIEW_3D")
    kmi = km.keymap_items.new(MECHANISM_OT_drag.bl_idname, "D", "PRESS", ctrl=True, alt=True)
    _keymaps.append((km, kmi))


def unregister_keymap() -> None:
    for km, kmi in _keymaps:
        km.keymap_items.remove(kmi)
    _keymaps.clear()
