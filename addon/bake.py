"""Write a solved mechanism into the scene as keyframes, and take a bake back out.

Parts: location and rotation_quaternion keyframes on every frame of the scene range, in a
bake action of their own ("MA bake <object>"); the rotation mode and transform the part had
before are saved on it and put back by Clear.  Joints: reaction force and torque
(components and magnitudes, N and N m, world axes, on part I at marker I) and motion
efforts as animated custom properties, a cam's contact force, the force of a joint's stops
and friction and its torsion spring's torque; couplers likewise the torque or force along
each coordinate they tie and a gear's tooth force; springs their tension (io/plots.py).
Parts, joints and couplers alike: when the object already has an action of the user's (a keyframed motion, a custom
property, the scale, the visibility), the bake goes on an NLA track beneath it, so that
action stays active, untouched and playing; a user's action that keys the part's location
or rotation would hide the bake and is refused (bake_checks.py).  A re-bake replaces
only the channels a bake writes: keys the user put into a bake's action on other channels
(the scale, a custom property) are kept.  Keys are written in bulk with ``foreach_set``
(glTF exporter style).  Impacts and friction events become timeline markers (io/events.py),
replaced by a re-bake and removed by Clear Bake; the user's own markers are never touched.
"""
from __future__ import annotations

import math
from typing import Callable, Iterator

import bpy
import numpy as np
from mathutils import Quaternion

from .anim import (TRACK, ensure_channelbag, find_channelbag, is_bake_track, key_buffer,
                   part_handles, write_curve)
from .io.csv_table import csv_table, write_rows, write_table
from .io.events import (decode_marks, encode_marks, event_marks, event_rows, events_path,
                        marks_to_remove, rough_keys)
from .io.part_frames import basis_pose, pose_matrices
from .io.plots import (BAKED_PROPS, actuator_plots, bushing_plots, coupler_plots, follow_plots,
                       is_baked_channel, joint_plots, part_contact_plots, spring_plots,
                       vector_force_plots)
from .io.timeline import Timeline, decode, encode, remap_note, stale_note
from .channels import ROTATION_CHANNEL, delta_turn, in_rotation_mode
from .background import counted, drain
from .pose_keys import OnePose, part_above, part_pose_keys, pose_key_steps
from .scene_reader import SceneMechanism

# channels that place a part: the user's action plays over the bake's NLA track, so its keys
# (or drivers) of these would hide the baked motion (rotation_mode is QUATERNION when baked)
POSE_CHANNELS = ("location", "rotation_quaternion", "delta_location", "delta_rotation_quaternion")


def user_action(ob: bpy.types.Object):
    """(action, slot) of the user's that plays on the object once baked: its active action,
    or, while a bake is the active action, the one Clear puts back; (None, None) if none."""
    ad, s = ob.animation_data, ob.mechanism
    if ad is None:
        return None, None
    if ad.action is not None and ad.action != s.bake_action:
        return ad.action, ad.action_slot
    act = s.backup_action if s.baked else None
    return act, (act.slots.get(s.backup_slot) if act is not None and s.backup_slot else None)


def baked_channel(data_path: str) -> bool:
    """Whether an F-curve is one a bake writes: a part's location or rotation, a joint's or
    coupler's force plot.  A re-bake replaces these and keeps every other channel of the
    bake's action (keys the user put into it: the scale, a custom property)."""
    return data_path in ("location", "rotation_quaternion") or is_baked_channel(data_path)


def _strip_baked(act) -> None:
    """Remove the baked channels from the bake action's slot, the user's other keys kept."""
    bag = find_channelbag(act, act.slots[0]) if len(act.slots) else None
    for fc in [fc for fc in (bag.fcurves if bag is not None else ()) if baked_channel(fc.data_path)]:
        bag.fcurves.remove(fc)


def _keep_own_keys(ob: bpy.types.Object, act) -> bool:
    """Clear Bake's end of a bake action: its baked channels removed; the keys the user
    inserted into it since (Blender keys the active action, which a bake is on an object
    that had none) kept as the object's own action, renamed for it, where the object has no
    action of its own back; otherwise (or with nothing of the user's left) True: the action
    is to be removed (``clear_bake`` removes them all at once)."""
    _strip_baked(act)
    bag = find_channelbag(act, act.slots[0]) if len(act.slots) else None
    ad = ob.animation_data
    if bag is None or not len(bag.fcurves) or ad is None or ad.action is not None:
        return True
    act.name = f"{ob.name}Action"
    ad.action = act
    ad.action_slot = act.slots[0]
    return False


def _bake_action(ob: bpy.types.Object):
    """The object's bake action, its slot's baked channels removed (``baked_channel``)."""
    s = ob.mechanism
    act = s.bake_action
    if act is None:
        act = bpy.data.actions.new(f"MA bake {ob.name}")
        act.use_fake_user = False
        s.bake_action = act
    slot = act.slots[0] if len(act.slots) else act.slots.new(id_type="OBJECT", name=ob.name)
    bag = ensure_channelbag(act, slot)
    _strip_baked(act)
    return act, slot, bag


def own_bake_actions(objects) -> int:
    """Give each of ``objects`` a bake action of its own: a linked duplicate (Alt D), or a
    duplicate made with Duplicate Data's Action off, shares its original's bake action, and
    a bake writing both into one action would leave each playing the last one's keys.
    Every object after the first with a given action gets a copy of it (the user's own
    channels in it kept), named for the object; returns how many copies were made."""
    seen, made = set(), 0
    for ob in objects:
        act = ob.mechanism.bake_action
        if act is None:
            continue
        if act.as_pointer() in seen:
            copy = act.copy()
            copy.name = f"MA bake {ob.name}"
            ob.mechanism.bake_action = copy
            made += 1
        else:
            seen.add(act.as_pointer())
    return made


def _group(bag, name: str):
    """The channelbag's F-curve group ``name``, made if missing."""
    return bag.groups.get(name) or bag.groups.new(name)


def _backup(ob: bpy.types.Object, design: np.ndarray | None = None) -> None:
    """Save what Clear Bake puts back: the transform channels, rotation mode and action
    the object has now, and for a part its world matrix as designed, ``design`` (4, 4):
    the matrix the bake was read from (scene_reader.design_matrix), which for a re-bake is
    the one saved before the first bake, not the baked pose the scene still shows."""
    s = ob.mechanism
    if s.baked:
        return
    s.backup_matrix = [x for row in (ob.matrix_world if design is None else design) for x in row]
    s.backup_rotation_mode = ob.rotation_mode
    s.backup_location, s.backup_scale = ob.location, ob.scale
    s.backup_euler, s.backup_quaternion = ob.rotation_euler, ob.rotation_quaternion
    s.backup_axis_angle = ob.rotation_axis_angle
    s.backup_action, slot = own_action(ob)
    s.backup_slot = slot.identifier if slot is not None else ""


def own_action(ob: bpy.types.Object):
    """(action, slot) the object has as its own, or (None, None): its active action, or,
    while the user edits an NLA strip in tweak mode (``animation_data.action`` is then the
    strip's), the one tweak mode put aside and gives back when it ends."""
    ad = ob.animation_data
    if ad is None:
        return None, None
    if not ad.use_tweak_mode:
        return ad.action, ad.action_slot
    act = ad.action_tweak_storage
    handle = ad.action_slot_handle_tweak_storage
    return act, next((sl for sl in (act.slots if act is not None else ()) if sl.handle == handle),
                     None)


def place_parts(sm: SceneMechanism, pose, names=None) -> None:
    """Put every moving part at one solved pose, as Assemble and Drag do (no keys): its
    location and rotation channels, in the object's own rotation mode, are set so that it
    sits at [R(q) S, position] (io/part_frames.pose_matrices) with its scale channel and
    delta transforms kept (a negative scale's reflection taken out of the rotation, as a
    bake's keys).  ``pose(name)`` gives a part's (position (3,) m, quaternion (4,) w x y z);
    parents that are parts are placed first (their new matrices are used for children).
    ``names``: only these parts (default: every part).  MechanismError, nothing moved, when
    a part's channels cannot place it at its pose (a part turned in a sheared parent)."""
    if sm.parts:
        part_pose_keys(sm, OnePose(pose), placing=True)
    parts = [ob for ob in sm.parts if names is None or ob.name in names]
    world = {ob.name: pose_matrices(*pose(ob.name), sm.part_frames[ob.name].stretch, sm.scale)[None]
             for ob in parts}
    was = {ob.name: np.array(ob.matrix_world, dtype=float) for ob in parts}
    for ob in parts:
        mode = ob.rotation_mode
        dq = delta_turn(ob, mode)
        signs = np.sign(np.array(ob.scale, dtype=float) * np.array(ob.delta_scale, dtype=float))
        parent, inverse = np.eye(4), np.eye(4)
        if ob.parent is not None:
            parent = _placed_parent(ob.parent, world, was)
            inverse = np.array(ob.matrix_parent_inverse, dtype=float)
        loc, q = basis_pose(world[ob.name], parent, inverse, signs, tuple(ob.delta_location), dq)
        ob.location = loc[0]
        setattr(ob, ROTATION_CHANNEL.get(mode, "rotation_euler"),
                in_rotation_mode(Quaternion(q[0]), mode, ob.rotation_euler))


def _placed_parent(parent, world: dict, was: dict) -> np.ndarray:
    """A part's parent's world matrix once ``place_parts`` has placed the parts in
    ``world`` (name -> (1, 4, 4)): a placed part's; an object riding on a placed part (an
    Empty parented to it) carried with it from where both were (``was``: the parts'
    matrices before); any other object's as it is."""
    if parent.name in world:
        return world[parent.name]
    now = np.array(parent.matrix_world, dtype=float)
    above = part_above(parent)
    if above is not None and above.name in world:
        return world[above.name] @ (np.linalg.inv(was[above.name]) @ now)
    return now


def write_bake(scene: bpy.types.Scene, sm: SceneMechanism, result, plots: bool = True) -> None:
    """Replace any old bake with the keyframes and plots of ``result`` (solved at
    ``sm.timeline.times``: row k is keyed at frame ``sm.timeline.frames[k]``).  ``plots``
    False (the scene's Force Plots off): the parts' keys and the event markers only; no
    other object is baked, and the plots of an older bake are removed.  MechanismError,
    with nothing changed, when a part's keys cannot put it at its solved pose."""
    drain(write_bake_steps(scene, sm, result, plots))


def write_bake_steps(scene: bpy.types.Scene, sm: SceneMechanism, result,
                     plots: bool = True) -> Iterator[tuple[int, int]]:
    """``write_bake`` a step at a time, for the modal Bake's progress (background.py):
    yields (steps done, steps in all) after each block of the parts' keys computed (nothing
    is written until all are: a MechanismError changes nothing), each part keyed and each
    object's plots written."""
    frames = sm.timeline.frames_of(result.times)
    followers = [ob for ob, _ in sm.follows.values()]
    plotted = (sm.joints + sm.couplers + sm.springs + sm.bushings + sm.vector_forces
               + sm.contacts + followers) if plots else []
    total = 2 * len(sm.parts) + len(plotted)
    keys = None
    if sm.parts:                                    # before anything changes
        keys = yield from counted(pose_key_steps(sm, result), 0, total)
    # every old bake: also of objects no longer in the mechanism; the bake actions of the
    # objects baked again are kept with the user's own channels in them
    clear_bake(scene, keep={ob.name for ob in sm.parts + plotted})
    own_bake_actions(sm.parts + plotted)
    _add_event_markers(scene, sm, result)
    yield from counted(part_key_steps(sm, result, frames, keys), len(sm.parts), total)
    if plotted:
        yield from counted(_plot_steps(sm, result, frames, plotted), 2 * len(sm.parts), total)
    for ob in sm.parts + plotted:
        ob.mechanism.bake_scene = scene.name


def _plot_steps(sm: SceneMechanism, result, frames: np.ndarray,
                plotted: list) -> Iterator[int]:
    """The force plots (io/plots.py) of every object in ``plotted`` as animated custom
    properties in its bake action; yields the number of objects written after each."""
    plots = joint_plots(result, [ob.name for ob in sm.joints],
                        {name: (job.name, coord) for name, (job, coord) in sm.motions.items()},
                        sm.cams, {name: job.name for name, (job, _) in sm.limits.items()},
                        {name: job.name for name, (job, _) in sm.frictions.items()},
                        {name: job.name for name, job in sm.torsions.items()})
    plots.update(coupler_plots(result, sm.coupler_calls))
    plots.update(spring_plots(result, [ob.name for ob in sm.springs]))
    plots.update(bushing_plots(result, [ob.name for ob in sm.bushings]))
    plots.update(vector_force_plots(result, [ob.name for ob in sm.vector_forces]))
    plots.update(part_contact_plots(result, [ob.name for ob in sm.contacts]))
    plots.update(follow_plots(result, {name: ob.name for name, (ob, _) in sm.follows.items()}))
    for joint, series in actuator_plots(result, actuator_names(sm)).items():
        plots[joint].update(series)
    co = key_buffer(frames)
    for done, ob in enumerate(plotted, 1):
        _backup(ob)
        act, slot, bag = _bake_action(ob)
        group = _group(bag, "Mechanism")
        for prop, values in plots[ob.name].items():
            ob[prop] = float(values[0])
            write_curve(bag, f'["{prop}"]', 0, co, values, group)
        _attach(ob, act, slot)
        ob.mechanism.baked = True
        ob.mechanism.bake_timeline = encode(sm.timeline)
        yield done


def actuator_names(sm: SceneMechanism) -> dict[str, list[tuple[str, str, str]]]:
    """General motion -> [(joint name, coordinate, the solver's label)] of its actuators."""
    return {motion: [(job.name, coord, label) for job, coord, label in acts]
            for motion, acts in sm.actuators.items()}


def write_part_keys(sm: SceneMechanism, result, frames: np.ndarray, keys: tuple) -> None:
    """Location and quaternion keys ``keys`` (part_pose_keys of a result's part poses:
    ``position``, ``orientation`` of a solver Result, or io/modes.ModeAnimation) of every
    moving part at ``frames``, in each part's bake action; the parts' old bakes already
    cleared (their actions kept)."""
    drain(part_key_steps(sm, result, frames, keys))


def part_key_steps(sm: SceneMechanism, result, frames: np.ndarray,
                   keys: tuple) -> Iterator[int]:
    """``write_part_keys`` a part at a time: yields the number of parts keyed after each."""
    if not sm.parts:
        return
    loc, quat = keys
    co = key_buffer(frames)
    handles = part_handles(rough_keys(result.times, result))
    for done, (ob, loc_k, quat_k) in enumerate(zip(sm.parts, loc, quat), 1):
        _backup(ob, sm.part_frames[ob.name].matrix)
        act, slot, bag = _bake_action(ob)
        group = _group(bag, "Object Transforms")
        for i in range(3):
            write_curve(bag, "location", i, co, loc_k[:, i], group, handles)
        for i in range(4):
            write_curve(bag, "rotation_quaternion", i, co, quat_k[:, i], group, handles)
        ob.rotation_mode = "QUATERNION"
        _attach(ob, act, slot)
        ob.mechanism.baked = True
        ob.mechanism.bake_timeline = encode(sm.timeline)
        yield done


def write_mode(scene: bpy.types.Scene, sm: SceneMechanism, animation) -> None:
    """Replace any old bake with a mode's oscillation (io/modes.ModeAnimation): part keys
    only (no forces: a mode shape has none to show).  MechanismError, with nothing
    changed, when a part's keys cannot put it at a pose of the mode."""
    keys = part_pose_keys(sm, animation) if sm.parts else None
    clear_bake(scene, keep={ob.name for ob in sm.parts})
    own_bake_actions(sm.parts)
    write_part_keys(sm, animation, sm.timeline.frames_of(animation.times), keys)
    for ob in sm.parts:
        ob.mechanism.bake_scene = scene.name


def _attach(ob: bpy.types.Object, act, slot) -> None:
    """Play the bake action on the object: as its action when it has none of the user's,
    else on an NLA track beneath the user's action, which stays active and untouched (NLA
    tracks play below the active action: the user's channels keep playing over the bake).
    The strip plays the action's frame F at scene frame F, wherever its keys begin (keys
    the user put into the bake's action may begin before the baked range)."""
    ad = ob.animation_data or ob.animation_data_create()
    if ad.action is None or ad.action == act:
        ad.action = act
        ad.action_slot = slot
        return
    track = ad.nla_tracks.new()
    track.name = TRACK
    first = act.frame_range[0]
    strip = track.strips.new(act.name, math.floor(first), act)
    strip.frame_start_ui = first             # moves the strip whole: no stretch, no offset
    strip.action_slot = slot


def _friction_joints(sm: SceneMechanism) -> dict[str, str]:
    """Friction element name -> its joint object's name."""
    return {name: job.name for name, (job, _) in sm.frictions.items()}


def _add_event_markers(scene: bpy.types.Scene, sm: SceneMechanism, result) -> None:
    """A timeline marker at each impact and friction event (io/events.py), recorded on the
    scene as Blender stored it (a long name is cut), so that only these are removed later."""
    made = []
    for name, frame in event_marks(result, sm.timeline.frame_of, _friction_joints(sm)):
        marker = scene.timeline_markers.new(name, frame=frame)
        made.append((marker.name, marker.frame))
    scene.mechanism.event_markers = encode_marks(made)


def remove_event_markers(scene: bpy.types.Scene) -> int:
    """Remove the markers the last bake made (the user's own, and any of the bake's the user
    renamed or moved, stay); returns how many were removed."""
    markers = scene.timeline_markers
    ours = [markers[k] for k in marks_to_remove([(m.name, m.frame) for m in markers],
                                                decode_marks(scene.mechanism.event_markers))]
    for marker in ours:
        markers.remove(marker)
    scene.mechanism.event_markers = ""
    return len(ours)


def _end_other_scenes_events(ob, scene: bpy.types.Scene) -> None:
    """The event markers of the other scene whose bake ``ob``, being cleared from ``scene``,
    carries when ``ob`` is in that scene too (objects shared by two scenes, a Linked Copy):
    that bake ends here, so its markers in its own scene go too.  A Full Copy's objects name
    the scene they were copied from but are not in it: its bake and markers stay."""
    name = ob.mechanism.bake_scene
    other = bpy.data.scenes.get(name) if name and name != scene.name else None
    if other is not None and other.mechanism.event_markers and \
            other.objects.get(ob.name) == ob:
        remove_event_markers(other)


def clear_bake(scene: bpy.types.Scene, only=None, keep=frozenset()) -> int:
    """Remove bakes (of the given objects, or all: then the bake's event markers too) and
    restore what each object had before; returns how many objects were restored.  ``keep``:
    names of objects about to be baked again, whose bake action is kept (only its baked
    channels removed) for the new bake; the other bake actions are removed, all at once."""
    if only is None:
        remove_event_markers(scene)
    count = 0
    unused: dict[int, bpy.types.Action] = {}
    for ob in list(only if only is not None else scene.objects):
        s = ob.mechanism
        if not s.baked:
            continue
        _end_other_scenes_events(ob, scene)
        act = s.bake_action
        # keyed as a part (its role may have changed since): its transforms go back
        bag = find_channelbag(act, act.slots[0]) if act is not None and len(act.slots) else None
        was_part = s.role == "PART" or (bag is not None and bag.fcurves.find("location") is not None)
        ad = ob.animation_data
        if ad is not None:
            if ad.use_tweak_mode and ad.action == act:    # Plot shows an NLA bake in tweak mode
                ad.use_tweak_mode = False
            for track in [t for t in ad.nla_tracks if is_bake_track(t, act)]:
                ad.nla_tracks.remove(track)
            if ad.action is not None and ad.action == act:
                ad.action = None
        if was_part:
            ob.rotation_mode = s.backup_rotation_mode or "XYZ"
            ad = ob.animation_data
            if s.backup_action is not None and (ad is None or not ad.use_tweak_mode) \
                    and own_action(ob)[0] != s.backup_action:
                ad = ad or ob.animation_data_create()
                ad.action = s.backup_action
                slot = s.backup_action.slots.get(s.backup_slot) if s.backup_slot else None
                if slot is not None:
                    ad.action_slot = slot
            # the transform channels exactly as they were (no matrix decomposition); the
            # scale, which a bake never keys, as the user has it now (Apply Scale since)
            ob.location = s.backup_location
            ob.rotation_euler, ob.rotation_quaternion = s.backup_euler, s.backup_quaternion
            ob.rotation_axis_angle = s.backup_axis_angle
        for prop in set(ob.keys()).intersection(BAKED_PROPS):
            del ob[prop]
        if act is not None and ob.name in keep:
            _strip_baked(act)
        elif act is not None:
            s.bake_action = None
            if _keep_own_keys(ob, act):
                unused[act.as_pointer()] = act
        s.baked = False
        s.bake_timeline = s.bake_scene = ""
        s.backup_action = None
        count += 1
    # one removal of them all: each removal on its own looks through every data-block for
    # users, so 800 baked objects took 3.4 s one by one (100 took 0.33 s)
    bpy.data.batch_remove(list(unused.values()))
    return count


def stale_notes(scene: bpy.types.Scene) -> list[str]:
    """One line per frame range and rate that baked objects of the scene were solved for
    and the scene no longer has (io/timeline.stale_note): their keys play at the wrong
    speed or not over the whole range, and nothing else would say so; one more when the
    scene's Time Remapping plays the bake at another speed (io/timeline.remap_note)."""
    now = Timeline.of_scene(scene.frame_start, scene.frame_end, scene.render.fps,
                            scene.render.fps_base)
    by_timeline: dict[Timeline, list[str]] = {}
    for ob in scene.objects:
        baked = decode(ob.mechanism.bake_timeline) if ob.mechanism.baked else None
        if baked is not None and baked != now:
            by_timeline.setdefault(baked, []).append(ob.name)
    remap = remap_note(scene.render.frame_map_old, scene.render.frame_map_new) \
        if any(ob.mechanism.baked for ob in scene.objects) else ""
    return [stale_note(baked, now, names) for baked, names in by_timeline.items()] + \
        [remap] * bool(remap)


def hidden_notes(objects) -> list[str]:
    """What keeps each baked object's bake from playing, one note per object: a soloed NLA
    track of the user's (only that track plays, not the bake's track nor the active
    action), or the object's NLA turned off while the bake plays on an NLA track beneath
    the user's action."""
    notes = []
    for ob in objects:
        ad = ob.animation_data
        act = ob.mechanism.bake_action
        if ad is None or act is None:
            continue
        what = "baked motion" if ob.mechanism.role == "PART" else "baked forces"
        solo = [t.name for t in ad.nla_tracks if t.is_solo and not is_bake_track(t, act)]
        if solo:
            notes.append(f"{ob.name!r}: NLA track {solo[0]!r} is soloed, so the {what} does not "
                         "play: un-solo it (the star in the NLA editor)")
        elif ad.action != act and not ad.use_nla:
            notes.append(f"{ob.name!r}: its NLA is off, so the {what} does not play (it is on "
                         f"NLA track {TRACK!r} beneath the object's action): turn the NLA on "
                         "(the checkbox by the object in the NLA editor)")
    return notes


def write_csv(path: str, sm: SceneMechanism, result) -> tuple[int, int]:
    """Export CSV (see io/csv_table.py) of a result solved at the scene's times, and its
    impacts and friction events beside it (io/events.py: events_path); returns the number
    of frames and of events written."""
    return csv_writer(sm)(path, result)


def csv_writer(sm: SceneMechanism) -> Callable:
    """``write_csv`` in two: the names it writes read from the scene's objects now (on the
    main thread), and the function (path, result, progress=None) -> (frames, events) that
    writes the files without touching Blender, so that the modal Export CSV runs it in its
    worker thread (background.py); ``progress(rows written, rows)`` as
    io/csv_table.write_table takes it (False: SolverCancelled, nothing written)."""
    timeline = sm.timeline
    names = ([ob.name for ob in sm.parts], [ob.name for ob in sm.joints],
             {name: (job.name, coord) for name, (job, coord) in sm.motions.items()},
             sm.coupler_calls, sm.cams,
             {n: (job.name, c) for n, (job, c) in sm.limits.items()},
             {n: (job.name, c) for n, (job, c) in sm.frictions.items()},
             [ob.name for ob in sm.bushings], [ob.name for ob in sm.vector_forces],
             [ob.name for ob in sm.contacts],
             {name: ob.name for name, (ob, _) in sm.follows.items()}, actuator_names(sm),
             [ob.name for ob in sm.springs], {n: ob.name for n, ob in sm.torsions.items()})
    frictions = _friction_joints(sm)

    def write(path: str, result, progress=None) -> tuple[int, int]:
        header, values = csv_table(result, timeline.frames_of(result.times), *names)
        events = event_rows(result, timeline.frame_of, frictions)
        write_table(path, header, values, progress)
        write_rows(events_path(path), events)
        return len(values), len(events) - 1
    return write
