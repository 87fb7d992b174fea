"""Markers that follow another object: a Marker whose Follow is set becomes the solver's
general motion "<marker>: follow", its origin held to the target's world location along
the world's axes or a ground marker J's (the Relative To marker), or to its location
relative to a moving marker J when the target rides on J's part (parented to it).

The path (io/follow.py): the target's own keyed location F-curves, evaluated exactly, where
they alone place it (no parent, no constraint, no NLA, no driver on its location); else its
evaluated location (world, or relative to a moving J; an armature's Bone: the bone's head)
sampled at the scene's frames (Samples per Frame a frame) through a C2 cubic spline, whose
fitting error is measured halfway between the samples and reported.  In a carried
mechanism (its parts parented to another object) the target is sampled as it stands
relative to that carrier, its motion taken out, since the parts are keyed in its space.
The turn (Follow Rotation, io/follow_rotation.py): the target's axes relative to J as the
angles b1, b2, b3, from its own rotation keys exactly where they alone turn it (J on the
ground), else from the same samples, unwrapped, through the same spline.
Actuators: the joints named in the marker's Actuators make the motion (the solver's
``actuators``); their efforts are baked on them (bake.py, io/plots.py ``actuator_plots``).
Lengths in metres (the scene's unit scale), times as the other motions' (io/timeline.py).
"""
from __future__ import annotations

import math

import bpy
import numpy as np

from ..solver import JOINT_COORDINATES, MechanismError, matrix_to_quat, quat_to_matrix
from .anim import fcurve_modifiers, find_channelbag
from .curve_reader import angle_text, design_world, length_text
from .io.follow import (Constant, KeyedPath, SplinePath, actuator_specs,
                        axis_functions, fitting_error, is_still, midpoints, sample_frames)
from .io.follow_rotation import (EULER_MODES, KeyedTurn, still_matrix, angle_fitting_error, angle_functions,
                                unwrap, zyx_angles)
from .io.keyframes import Key, KeyframedFunction, KeysInside, with_modifiers
from .io.part_frames import marker_frame

STILL = 1e-6        # Blender units: a target that moves less than this over the range is still
STILL_ANGLE = 1e-6  # rad: a target that turns less than this over the range does not turn


def follow_name(marker_name: str) -> str:
    """The solver's general motion of a following marker (its rows "<name>.x", ...)."""
    return f"{marker_name}: follow"


def add_follows(sm, scene, markers, update: bool = True) -> None:
    """Add a general motion for every marker in ``markers`` whose Follow is set; notes on
    each path go to ``sm.follow_notes``.  ``update=False`` (a panel's draw, which may not
    change the frame): sampled paths hold the target where it stands, enough for names."""
    for ob in markers:
        if ob.mechanism.follow is not None:
            _add_follow(sm, scene, ob, update)


def _add_follow(sm, scene, ob, update: bool) -> None:
    s = ob.mechanism
    target = s.follow
    what = f"marker {ob.name!r}"
    if scene.objects.get(target.name) is not target:
        raise MechanismError(f"{what}: its Follow target {target.name!r} was deleted or is not "
                             "in this scene: pick another object or clear Follow")
    if target == ob:
        raise MechanismError(f"{what}: a marker cannot follow itself: pick another object")
    bone = s.follow_bone if target.type == "ARMATURE" else ""
    if bone and target.data.bones.get(bone) is None:
        raise MechanismError(f"{what}: its Follow target {target.name!r} has no bone {bone!r}: "
                             "pick one of its bones or clear Bone")
    moves, turns = any(s.follow_axes), any(s.follow_rotation)
    if not (moves or turns):
        raise MechanismError(f"{what}: tick at least one of the Follow Axes (x, y, z) or of "
                             "Follow Rotation (b1, b2, b3)")
    j_name, rotation, origin = _reference(sm, scene, ob)
    reference = s.follow_relative_to if rotation is None else (rotation, origin)
    carrier = None if rotation is None else _carrier(sm, ob)
    samples = Samples(sm, scene, (target, bone), reference, s.follow_samples, update, what,
                      carrier)
    target_text = f"{target.name!r} (bone {bone!r})" if bone else repr(target.name)
    fns: dict = {}
    path, error = None, None
    if moves:
        keyed = (None, None, None) if bone or carrier else \
            _keyed_path(sm, target, rotation, origin)
        path, note, error = keyed if keyed[0] is not None else _sampled_path(sm, samples)
        sm.follow_notes.append(f"{what} follows {target_text} {note(scene)}")
        fns.update(axis_functions(path, tuple(s.follow_axes), what))
    turn = None
    if turns:
        keyed = (None, None) if bone or carrier or rotation is None else \
            _keyed_turn(sm, target, rotation)
        turn, note = keyed if keyed[0] is not None else _sampled_turn(sm, samples)
        sm.follow_notes.append(f"{what} turns with {target_text} {note(scene)}")
        fns.update(angle_functions(turn, tuple(s.follow_rotation), what))
    if update and _still(sm, path, turn):
        raise MechanismError(f"{what}: its Follow target {target_text} does not move over "
                             f"frames {sm.timeline.frame_start}-{sm.timeline.frame_end}: key its "
                             f"{'location' if moves else 'rotation'}, or give it a parent or "
                             "constraint that moves it")
    actuators = _actuators(sm, scene, ob, what)
    sm.mech.add_general_motion(follow_name(ob.name), ob.name, j_name,
                               actuators=tuple(spec for _, spec, _, _ in actuators), **fns)
    sm.follows[follow_name(ob.name)] = (ob, error)
    if actuators:
        sm.actuators[follow_name(ob.name)] = [(job, coord, label)
                                               for job, _, label, coord in actuators]


def _actuators(sm, scene, ob, what: str) -> list[tuple]:
    """(joint object, the actuator as add_general_motion takes it, the solver's label, the
    coordinate "angle" | "slide") of each joint named in the marker's Actuators
    (io/follow.actuator_specs)."""
    joints = {j.name: sm.mech.joints[j.name].kind for j in sm.joints if j.name in sm.mech.joints}
    try:
        specs = actuator_specs(ob.mechanism.follow_actuators, joints, what)
    except ValueError as exc:
        raise MechanismError(str(exc)) from None
    out = []
    for joint, coord in specs:
        kind = joints[joint]
        coordinate = coord or (JOINT_COORDINATES.get(kind) or ("angle",))[0]
        label = joint if coord is None else f"{joint}.{coord}"
        out.append((scene.objects[joint], joint if coord is None else (joint, coord), label,
                    coordinate))
    return out


def _still(sm, path, turn) -> bool:
    """Whether neither the followed location (within STILL) nor the followed rotation
    (within STILL_ANGLE) changes over the scene's frames."""
    times = sm.timeline.times
    return (path is None or is_still(np.array([path.at(t)[0] for t in times]), STILL * sm.scale)) \
        and (turn is None or is_still(np.array([turn.at(t)[0] for t in times]), STILL_ANGLE))


def _reference(sm, scene, ob) -> tuple[str, np.ndarray | None, np.ndarray | None]:
    """(marker J's name, its axes (3, 3) as world columns, its origin (3,) in Blender units):
    the Relative To marker on a ground part; on a moving part (None, None): the target rides
    on that part and is read relative to J at every frame; without one a marker with the
    world's axes at the world's origin, added on the first ground part."""
    s = ob.mechanism
    ref = s.follow_relative_to
    what = f"marker {ob.name!r}"
    if ref is not None:
        if scene.objects.get(ref.name) is not ref or ref.mechanism.role != "MARKER":
            raise MechanismError(f"{what}: its Relative To marker {ref.name!r} was deleted or is "
                                 "no longer a marker")
        part = ref.parent
        if part is not None and not part.mechanism.ground:
            if not _rides_on(s.follow, part):
                raise MechanismError(
                    f"{what}: its Relative To marker {ref.name!r} moves with part {part.name!r}, "
                    f"and its Follow target {s.follow.name!r} does not: parent the target to "
                    f"{part.name!r} (its motion then is relative to the part), or pick a marker "
                    "on a ground part")
            return ref.name, None, None
        pos, quat = marker_frame(design_world(ref, sm.part_frames))
        return ref.name, quat_to_matrix(quat), np.asarray(pos, dtype=float)
    ground = next((p for p in scene.objects if p.mechanism.role == "PART" and p.mechanism.ground
                   and p.name in sm.part_frames), None)
    if ground is None:
        raise MechanismError(f"{what} follows {s.follow.name!r} in the world, which needs a "
                             "ground part: tick Ground on one part, or set Relative To")
    frame = sm.part_frames[ground.name]
    rg = frame.rotation
    name = f"{ob.name}: world"
    sm.mech.add_marker(name, ground.name, position=rg.T @ (-frame.position) * sm.scale,
                       orientation=matrix_to_quat(rg.T))
    return name, np.eye(3), np.zeros(3)


def _carrier(sm, ob) -> tuple | None:
    """(the object that carries the marker's mechanism, its world matrix as the scene was
    read (``sm.carriers``)): the first object other than a part above the marker's part
    (and the parts that part is parented to), or None where there is none.  The mechanism
    is solved where it stands as read and its parts keyed in that object's space, so a
    target is read as it stands relative to the carrier at each frame, the carrier's
    motion taken out: otherwise a moving carrier would carry the followed path once in
    the sampled world and again in the keys."""
    up = ob.parent
    while up is not None and up.mechanism.role == "PART":
        up = up.parent
    if up is None or up.name not in sm.carriers:
        return None
    return up, sm.carriers[up.name]


def _rides_on(ob, part) -> bool:
    """Whether ``ob`` is parented to ``part``, directly or through other objects."""
    up = ob.parent
    while up is not None and up != part:
        up = up.parent
    return up is not None


def _keyed_bag(target, paths: tuple[str, ...]):
    """The channelbag of the target's action when its own keys on ``paths`` (and their
    delta_ twins) alone place it: no parent, no constraint, no NLA, no driver on them, the
    delta unkeyed; else None."""
    if target.parent is not None or any(c.enabled for c in target.constraints):
        return None
    ad = target.animation_data
    if ad is None or ad.action is None or len(ad.nla_tracks) or ad.use_tweak_mode:
        return None
    deltas = tuple(f"delta_{p}" for p in paths)
    if any(d.data_path in paths + deltas for d in ad.drivers):
        return None
    bag = find_channelbag(ad.action, ad.action_slot)
    if bag is None or any(fc.data_path in deltas for fc in bag.fcurves):
        return None
    return bag


def _keyed_channels(target, bag, data_path: str, values, offsets) -> list | None:
    """One function of the frame per component of ``data_path`` (value, d/dframe,
    d2/dframe2): its keys exactly (plus ``offsets[i]``), a Constant of ``values[i]`` +
    ``offsets[i]`` where unkeyed; None when nothing is keyed or a key cannot be followed
    exactly (an easing, a modifier; an F-curve of samples, Keys to Samples, which plays
    them and has no keys: Blender's evaluation is sampled instead)."""
    played = [fc for fc in bag.fcurves if fc.data_path == data_path and not fc.mute]
    curves = {fc.array_index: fc for fc in played if len(fc.keyframe_points)}
    if not curves or any(len(fc.sampled_points) for fc in played):
        return None
    channels = []
    for i, value in enumerate(values):
        delta = float(offsets[i])
        fc = curves.get(i)
        if fc is None:
            channels.append(Constant(float(value) + delta))
            continue
        keys = [Key(k.co[0], k.co[1] + delta, (k.handle_left[0], k.handle_left[1] + delta),
                    (k.handle_right[0], k.handle_right[1] + delta), k.interpolation)
                for k in fc.keyframe_points]
        try:
            fn = KeyframedFunction(keys, fc.extrapolation, f"object {target.name!r}")
            fn = with_modifiers(fn, fcurve_modifiers(fc), f"object {target.name!r}")
        except ValueError:
            return None
        channels.append(KeysInside(fn) if isinstance(fn, KeyframedFunction) else fn)
    return channels


def _keyed_path(sm, target, rotation, origin):
    """(KeyedPath, note, fitting error 0) from the target's location keys when they alone
    place it, else (None, None, None)."""
    bag = None if rotation is None else _keyed_bag(target, ("location",))
    channels = None if bag is None else \
        _keyed_channels(target, bag, "location", target.location, target.delta_location)
    if channels is None:
        return None, None, None
    path = KeyedPath(channels, sm.timeline, rotation, origin, sm.scale)
    return path, lambda scene: "along its location keys, exactly", 0.0


def _keyed_turn(sm, target, rotation):
    """(KeyedTurn, note) from the target's rotation keys (an Euler mode's or a quaternion's)
    when they alone turn it, J's axes fixed; else (None, None): sampled instead."""
    mode = target.rotation_mode
    quaternion = mode == "QUATERNION"
    if mode not in EULER_MODES and not quaternion:
        return None, None
    data_path = "rotation_quaternion" if quaternion else "rotation_euler"
    bag = _keyed_bag(target, (data_path,))
    values = target.rotation_quaternion if quaternion else target.rotation_euler
    channels = None if bag is None else _keyed_channels(target, bag, data_path, values,
                                                        (0.0,) * len(values))
    if channels is None:
        return None, None
    try:
        before = still_matrix(mode, target.delta_rotation_quaternion if quaternion
                              else target.delta_rotation_euler)
        turn = KeyedTurn(channels, mode, sm.timeline, rotation, before)
    except ValueError as exc:
        raise MechanismError(f"Follow target {target.name!r}: {exc}") from None
    return turn, lambda scene: "along its rotation keys, exactly"


class Samples:
    """The target's evaluated pose relative to J at the scene's frames (``per_frame`` a
    frame) and halfway between them, read once when first asked for (``poses``); ``what``
    names the marker in errors."""

    def __init__(self, sm, scene, target: tuple, reference, per_frame: int, update: bool,
                 what: str = "a marker", carrier: tuple | None = None):
        self.sm, self.scene, self.target, self.reference = sm, scene, target, reference
        self.update, self.what, self.carrier = update, what, carrier
        tl = sm.timeline
        self.frames = sample_frames(tl, per_frame)
        self.mids = midpoints(self.frames)
        self.count = len(self.frames) if update else 2
        self._poses = None

    def times(self, frames: np.ndarray) -> np.ndarray:
        """Solver times (s) of scene frames."""
        tl = self.sm.timeline
        return (frames - tl.frame_start) / tl.fps

    def knots(self) -> np.ndarray:
        """The spline's times (s): the sampled frames', or for a panel's draw two times
        (the target held where it stands)."""
        if not self.update:
            return np.array([0.0, max(self.sm.timeline.duration, 1.0)])
        return self.times(self.frames)

    def poses(self):
        """(locations (n, 3) m, rotations (n, 3, 3) the target's axes in J's) at the
        frames then the midpoints; a panel's draw (no update): where the target stands now,
        at two times (frames 0 and 1, no midpoints)."""
        if self._poses is None:
            if not self.update:
                where, turn = poses_in(self.scene, self.target, self.reference, None,
                                       self.carrier)
                self._poses = (np.repeat(where * self.sm.scale, 2, axis=0),
                               np.repeat(turn, 2, axis=0))
            else:
                refuse_unevaluated(self.what, self.target[0], self.reference)
                where, turn = poses_in(self.scene, self.target, self.reference,
                                       np.concatenate([self.frames, self.mids]), self.carrier)
                self._poses = (where * self.sm.scale, turn)
        return self._poses


def refuse_unevaluated(what: str, target, reference) -> None:
    """MechanismError naming the Follow target (or the Relative To marker ``reference``,
    when it is an object) that Blender does not evaluate: one in a collection excluded from
    the view layer, or disabled in viewports (itself or its collection), is not in the
    depsgraph, so its parent, constraints and keys do not move it as the frames change and
    a sampling would read it standing still."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = {i.original.as_pointer() for i in depsgraph.ids if isinstance(i, bpy.types.Object)}
    for label, ob in (("Follow target", target), ("Relative To marker", reference)):
        if isinstance(ob, bpy.types.Object) and ob.as_pointer() not in evaluated:
            where = ", ".join(repr(c.name) for c in ob.users_collection)
            raise MechanismError(
                f"{what}: its {label} {ob.name!r} is not evaluated by Blender (it or its "
                f"collection {where} is excluded from the view layer or disabled in "
                "viewports), so its motion cannot be sampled: include and enable it (to "
                "hide it, use the eye icon)")


def _sampled_path(sm, samples: Samples):
    """(SplinePath, note, fitting error in m) through the target's sampled location in J's
    axes, its fitting error measured halfway between samples."""
    points, _ = samples.poses()
    n = samples.count
    path = SplinePath(samples.knots(), points[:n])
    if not samples.update:
        return path, (lambda scene: "(not sampled)"), None
    error = fitting_error(path, samples.times(samples.mids), points[n:])
    where = "world location" if isinstance(samples.reference, tuple) else \
        f"location relative to {samples.reference.name!r}"
    return path, lambda scene: (f"through {n} samples of its {where}, fitting error "
                                f"{length_text(scene, error)}"), error


def _sampled_turn(sm, samples: Samples):
    """(SplinePath of the angles b1, b2, b3 (rad), note) through the target's sampled
    orientation relative to J, unwrapped in time order (frames and midpoints together);
    its fitting error (deg) measured halfway between samples goes in the note."""
    _, turns = samples.poses()
    n = samples.count
    angles = zyx_angles(turns)
    if samples.update:
        order = np.argsort(np.concatenate([samples.frames, samples.mids]), kind="stable")
        angles[order] = unwrap(angles[order])
    spline = SplinePath(samples.knots(), angles[:n])
    if not samples.update:
        return spline, (lambda scene: "(not sampled)")
    error = angle_fitting_error(spline.positions(samples.times(samples.mids)), angles[n:])
    where = "world rotation" if isinstance(samples.reference, tuple) else \
        f"rotation relative to {samples.reference.name!r}"
    return spline, lambda scene: (f"through {n} samples of its {where}, fitting error "
                                  f"{angle_text(scene, error, 3)}")


def poses_in(scene, target, reference, frames: np.ndarray | None, carrier=None):
    """(locations (len(frames), 3) in Blender units, rotations (len(frames), 3, 3)): the
    evaluated origin of ``target`` (object, bone name or "": the bone's head as posed, else
    the object's origin) in J's axes, and the target's axes (the bone's as posed; scale
    taken out, a mirrored target's drawn z and x kept as its rotation keys have them:
    part_frames.marker_frame) as columns in J's axes, at each frame of the animation (a
    fraction of a frame as Blender's subframe; the scene frame that shows it under Time
    Remapping; None: the frame shown, one row); ``reference`` (rotation, origin)
    fixed, or the marker J, evaluated at the same frame (its scale taken out); ``carrier``
    (object, its world matrix as read): the target moved by that matrix @ the object's
    world^-1 at each frame, as it stands relative to the carrier (``_carrier``).  The scene's
    frame is put back after."""
    def one() -> tuple[np.ndarray, np.ndarray]:
        depsgraph = bpy.context.evaluated_depsgraph_get()
        ev = target[0].evaluated_get(depsgraph)
        world = ev.matrix_world @ ev.pose.bones[target[1]].matrix if target[1] else ev.matrix_world
        world = np.array(world, dtype=float)
        if carrier is not None:              # relative to the carrier, as read
            now = np.array(carrier[0].evaluated_get(depsgraph).matrix_world, dtype=float)
            world = carrier[1] @ np.linalg.solve(now, world)
        p, quat = marker_frame(world)        # a mirrored target: drawn z, x
        if isinstance(reference, tuple):
            rotation, origin = reference
        else:
            origin, q = marker_frame(
                np.array(reference.evaluated_get(depsgraph).matrix_world, dtype=float))
            rotation = quat_to_matrix(q)
        return (p - origin) @ rotation, rotation.T @ quat_to_matrix(quat)

    if frames is None:
        where, turn = one()
        return where[None], turn[None]
    now, sub = scene.frame_current, scene.frame_subframe
    where, turns = np.empty((len(frames), 3)), np.empty((len(frames), 3, 3))
    # Time Remapping shows the animation's frame F at scene frame F new / old, the bake's
    # keys too: the target is read where its animation is at each frame
    remap = scene.render.frame_map_new / scene.render.frame_map_old
    try:
        for k, f in enumerate(np.asarray(frames, dtype=float) * remap):
            whole = math.floor(f)
            scene.frame_set(int(whole), subframe=float(f - whole))
            where[k], turns[k] = one()
    finally:
        scene.frame_set(now, subframe=sub)
    return where, turns
