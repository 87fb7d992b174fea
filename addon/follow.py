"""Markers that follow another object: a Marker whose Follow is set becomes the solver's
general motion "<marker>: follow", its origin held to the target's world location along
the world's axes or a ground marker J's (the Relative To marker), or to its location
relative to a moving marker J when the target rides on J's part (parented to it).

The path (io/follow.py): the target's own keyed location F-curves, evaluated exactly, where
they alone place it (no parent, no constraint, no NLA, no driver on its location); else its
evaluated location (world, or relative to a moving J; an armature's Bone: the bone's head)
sampled at the scene's frames (Samples per Frame a frame) through a C2 cubic spline, whose
fitting error is measured halfway between the samples and reported.
Lengths in metres (the scene's unit scale), times as the other motions' (io/timeline.py).
"""
from __future__ import annotations

import math

import bpy
import numpy as np

from ..solver import MechanismError, matrix_to_quat, part_frame_from_matrix, quat_to_matrix
from .anim import fcurve_modifiers, find_channelbag
from .curve_reader import design_world, length_text
from .io.follow import (Constant, KeyedPath, KeysInside, SplinePath, axis_functions, fitting_error,
                        is_still, midpoints, sample_frames)
from .io.keyframes import Key, KeyframedFunction, with_modifiers

STILL = 1e-6        # Blender units: a target that moves less than this over the range is still


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
    j_name, rotation, origin = _reference(sm, scene, ob)
    path, note, error = _path(sm, scene, ob, (target, bone), rotation, origin, update)
    target_text = f"{target.name!r} (bone {bone!r})" if bone else repr(target.name)
    times = sm.timeline.times
    if update and is_still(np.array([path.at(t)[0] for t in times]), STILL * sm.scale):
        raise MechanismError(f"{what}: its Follow target {target_text} does not move over "
                             f"frames {sm.timeline.frame_start}-{sm.timeline.frame_end}: key its "
                             "location, or give it a parent or constraint that moves it")
    try:
        fns = axis_functions(path, tuple(s.follow_axes), what)
    except ValueError as exc:
        raise MechanismError(str(exc)) from None
    sm.mech.add_general_motion(follow_name(ob.name), ob.name, j_name, **fns)
    sm.follows[follow_name(ob.name)] = (ob, error)
    sm.follow_notes.append(f"{what} follows {target_text} {note(scene)}")


def _path(sm, scene, ob, target: tuple, rotation, origin, update: bool):
    """(path, note, fitting error in m) of ``target`` (object, bone name or ""): its location
    keys where they alone place it, else its sampled location."""
    path, note, error = (None, None, None) if target[1] else \
        _keyed_path(sm, target[0], rotation, origin)
    if path is None:
        s = ob.mechanism
        reference = s.follow_relative_to if rotation is None else (rotation, origin)
        path, note, error = _sampled_path(sm, scene, target, reference, s.follow_samples, update)
    return path, note, error


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
        pos, quat, _ = part_frame_from_matrix(design_world(ref, sm.part_frames))
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


def _rides_on(ob, part) -> bool:
    """Whether ``ob`` is parented to ``part``, directly or through other objects."""
    up = ob.parent
    while up is not None and up != part:
        up = up.parent
    return up is not None


def _keyed_path(sm, target, rotation, origin):
    """(KeyedPath, note, fitting error 0) from the target's location keys when they alone
    place it, else (None, None, None)."""
    if rotation is None or target.parent is not None or any(c.enabled for c in target.constraints):
        return None, None, None
    ad = target.animation_data
    if ad is None or ad.action is None or len(ad.nla_tracks) or ad.use_tweak_mode:
        return None, None, None
    if any(d.data_path in ("location", "delta_location") for d in ad.drivers):
        return None, None, None
    bag = find_channelbag(ad.action, ad.action_slot)
    if bag is None or any(fc.data_path == "delta_location" for fc in bag.fcurves):
        return None, None, None
    curves = {fc.array_index: fc for fc in bag.fcurves if fc.data_path == "location"
              and not fc.mute and len(fc.keyframe_points)}
    if not curves:
        return None, None, None
    channels = []
    for i in range(3):
        delta = float(target.delta_location[i])
        fc = curves.get(i)
        if fc is None:
            channels.append(Constant(float(target.location[i]) + delta))
            continue
        keys = [Key(k.co[0], k.co[1] + delta, (k.handle_left[0], k.handle_left[1] + delta),
                    (k.handle_right[0], k.handle_right[1] + delta), k.interpolation)
                for k in fc.keyframe_points]
        try:
            fn = KeyframedFunction(keys, fc.extrapolation, f"object {target.name!r}")
            fn = with_modifiers(fn, fcurve_modifiers(fc), f"object {target.name!r}")
            channels.append(KeysInside(fn) if isinstance(fn, KeyframedFunction) else fn)
        except ValueError:              # an easing or a modifier: Blender's evaluation, sampled
            return None, None, None
    path = KeyedPath(channels, sm.timeline, rotation, origin, sm.scale)
    return path, lambda scene: "along its location keys, exactly", 0.0


def _sampled_path(sm, scene, target, reference, per_frame: int, update: bool):
    """(SplinePath, note, fitting error in m) through the evaluated location of ``target``
    (object, bone name or "": a bone's head, else the object's origin) at the scene's frames
    (``per_frame`` samples a frame) in J's axes, its fitting error measured halfway between
    samples.  ``reference``: J's fixed axes and origin (rotation, origin),
    or the moving Relative To marker, whose evaluated frame is read at each sample."""
    tl = sm.timeline
    frames = sample_frames(tl, per_frame)
    if not update:                  # a panel's draw: where the target stands now
        here = locations_in(scene, target, reference, None)
        ts = np.array([0.0, max(tl.duration, 1.0)])
        return SplinePath(ts, np.repeat(here * sm.scale, 2, axis=0)), \
            (lambda scene: "(not sampled)"), None
    mids = midpoints(frames)
    points = locations_in(scene, target, reference, np.concatenate([frames, mids])) * sm.scale
    n = len(frames)
    path = SplinePath((frames - tl.frame_start) / tl.fps, points[:n])
    error = fitting_error(path, (mids - tl.frame_start) / tl.fps, points[n:])
    where = "world location" if isinstance(reference, tuple) else \
        f"location relative to {reference.name!r}"
    return path, lambda scene: (f"through {n} samples of its {where}, fitting error "
                                f"{length_text(scene, error)}"), error


def locations_in(scene, target, reference, frames: np.ndarray | None) -> np.ndarray:
    """(len(frames), 3) the evaluated location (Blender units) of ``target`` (object, bone
    name or "": the bone's head as posed, else the object's origin) in J's axes at each
    scene frame (a fraction of a frame as Blender's subframe; None: the frame shown, one
    row); ``reference`` (rotation, origin) fixed, or the marker J, evaluated at the same
    frame (its scale taken out).  The scene's frame is put back after."""
    def one() -> np.ndarray:
        depsgraph = bpy.context.evaluated_depsgraph_get()
        ev = target[0].evaluated_get(depsgraph)
        p = np.asarray(ev.matrix_world @ ev.pose.bones[target[1]].head if target[1]
                       else ev.matrix_world.translation, dtype=float)
        if isinstance(reference, tuple):
            rotation, origin = reference
        else:
            origin, quat, _ = part_frame_from_matrix(
                np.array(reference.evaluated_get(depsgraph).matrix_world, dtype=float))
            rotation = quat_to_matrix(quat)
        return (p - origin) @ rotation

    if frames is None:
        return one()[None]
    now, sub = scene.frame_current, scene.frame_subframe
    out = np.empty((len(frames), 3))
    try:
        for k, f in enumerate(frames):
            whole = math.floor(f)
            scene.frame_set(int(whole), subframe=float(f - whole))
            out[k] = one()
    finally:
        scene.frame_set(now, subframe=sub)
    return out
