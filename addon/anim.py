"""Layered actions (Blender 4.4+): the channelbag that holds an action slot's F-curves, and
F-curves written into it in bulk (``foreach_set``, glTF exporter style).

Blender 5.0 has helpers in ``bpy_extras.anim_utils``; 4.5 LTS reaches the channelbag
through the action's layer and keyframe strip.  Both paths give the same object."""
from __future__ import annotations

import bpy
import numpy as np
from bpy_extras import anim_utils

from .io.keyframes import Modifier


# the NLA track a bake plays on beneath the user's action (bake.py)
TRACK = "Mechanism bake"


def is_bake_track(track, action) -> bool:
    """Whether an NLA track plays a bake: the one a bake made (``TRACK``), or that track
    renamed by the user, known by its strips, which all play the bake's ``action``."""
    return track.name == TRACK or (action is not None and len(track.strips) > 0
                                   and all(strip.action == action for strip in track.strips))


def ensure_channelbag(action: bpy.types.Action, slot: bpy.types.ActionSlot):
    """The slot's channelbag, created (with a layer and keyframe strip) when missing."""
    ensure = getattr(anim_utils, "action_ensure_channelbag_for_slot", None)
    if ensure is not None:
        return ensure(action, slot)
    layer = action.layers[0] if len(action.layers) else action.layers.new("Layer")
    strip = layer.strips[0] if len(layer.strips) else layer.strips.new(type="KEYFRAME")
    return strip.channelbag(slot, ensure=True)


def find_channelbag(action: bpy.types.Action | None, slot: bpy.types.ActionSlot | None):
    """The slot's channelbag, or None."""
    if action is None or slot is None:
        return None
    get = getattr(anim_utils, "action_get_channelbag_for_slot", None)
    if get is not None:
        return get(action, slot)
    for layer in action.layers:
        for strip in layer.strips:
            bag = strip.channelbag(slot)
            if bag is not None:
                return bag
    return None


def fcurve_modifiers(fc) -> list[Modifier]:
    """An F-curve's modifier stack, in order, as plain values (io/keyframes.Modifier)."""
    return [Modifier(m.name, m.type, m.mute, m.use_influence, m.influence,
                     m.use_restricted_range,
                     **({k: getattr(m, k) for k in ("mode_before", "mode_after",
                                                     "cycles_before", "cycles_after")}
                        if m.type == "CYCLES" else {}))
            for m in fc.modifiers]


def key_buffer(frames: np.ndarray) -> np.ndarray:
    """The (2 n,) float32 ``co`` array of n keys at ``frames``, made once per bake: each
    F-curve's values go into its odd entries before it is written (``write_curve``)."""
    co = np.empty(2 * len(frames), dtype=np.float32)
    co[0::2] = frames
    return co


def write_curve(bag, path: str, index: int, co: np.ndarray, values: np.ndarray, group,
                handles: np.ndarray | None = None) -> None:
    """A new F-curve of ``values`` at the frames of ``co`` (``key_buffer``), in bulk.
    ``handles``: each key's handle type (``part_handles``) for the keys that place a part;
    None: Blender's default, Auto Clamped."""
    fc = bag.fcurves.new(path, index=index)
    fc.group = group
    fc.keyframe_points.add(len(co) // 2)
    co[1::2] = values
    fc.keyframe_points.foreach_set("co", co)
    if handles is not None:
        fc.keyframe_points.foreach_set("handle_left_type", handles)
        fc.keyframe_points.foreach_set("handle_right_type", handles)
    fc.update()


def part_handles(rough: np.ndarray) -> np.ndarray:
    """(n,) int32 handle types of a part's n keys, for ``write_curve``: Blender plays a part
    between frames (motion blur's subframes) along its keys' Bezier curves.  Auto handles
    follow the motion's slope; Auto Clamped flattens a channel at every key where it turns,
    and a part's location and rotation channels turn at different frames, so its joints
    opened between them (2 mm on a 1 m pendulum at 24 fps; Auto: 0.01 mm).  Where the
    motion does turn abruptly between two keys (``rough``: an impact, a friction event)
    Auto would overshoot past the turn (a door 0.003 rad into its stop), so those keys
    keep Auto Clamped."""
    items = bpy.types.Keyframe.bl_rna.properties["handle_left_type"].enum_items
    return np.where(rough, items["AUTO_CLAMPED"].value, items["AUTO"].value).astype(np.int32)


# the transform channels a hand's move sets (not keyed), which a frame change plays over
HAND_CHANNELS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle",
                 "scale")


def hand_channels(scene: bpy.types.Scene) -> list[tuple]:
    """(object, {channel: value}) of every animated object of ``scene``: what going to
    another frame and back replays from its keys, so that ``put_hand_channels`` keeps a
    move made by hand since (moved_parts.py: a bake carries it into the design)."""
    return [(ob, {name: tuple(getattr(ob, name)) for name in HAND_CHANNELS})
            for ob in scene.objects if ob.animation_data is not None]


def over_frames(scene: bpy.types.Scene, read, frames=None) -> list:
    """``read()`` at each whole frame of the scene's range, first to last (or of
    ``frames``), the scene set to it, as a list; then the scene back at the frame and
    subframe it showed, with any move made by hand since its keys put back
    (``hand_channels``)."""
    now, sub = scene.frame_current, scene.frame_subframe
    hand = hand_channels(scene)
    if frames is None:
        frames = range(scene.frame_start, scene.frame_end + 1)
    try:
        out = []
        for frame in frames:
            scene.frame_set(int(frame))
            out.append(read())
        return out
    finally:
        scene.frame_set(now, subframe=sub)
        if put_hand_channels(hand):
            bpy.context.view_layer.update()


def put_hand_channels(saved: list[tuple]) -> int:
    """The channels ``hand_channels`` read, set back where the keys played others; how many
    were set."""
    changed = [(ob, name, value) for ob, channels in saved for name, value in channels.items()
               if tuple(getattr(ob, name)) != value]
    for ob, name, value in changed:
        setattr(ob, name, value)
    return len(changed)


# the frames a check of what changes over the range reads (frame_checks.py,
# vertex_markers.py): each frame of a range of up to FULL_RANGE frames (Blender's default
# range); in a longer one SPREAD frames spread evenly over it and the whole frames around
# every key of the animation the file holds (but a bake's own), where a keyed channel turns
# (between its keys it runs from one key's value to the next, so a change between the
# spread frames shows at a key).  A frame visited costs the whole scene's evaluation:
# 10,000 of them took 0.2 to 0.9 s in a bare scene, 10 minutes in one with a 32,000-face
# Displace playing (58 ms a frame).
FULL_RANGE = 250
SPREAD = 128


def _key_frames(action) -> list[np.ndarray]:
    """The frames (float) of every key of every F-curve of ``action``."""
    out = []
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                for fc in bag.fcurves:
                    co = np.empty(2 * len(fc.keyframe_points))
                    fc.keyframe_points.foreach_get("co", co)
                    out.append(co[0::2])
    return out


def check_frames(scene: bpy.types.Scene) -> np.ndarray:
    """The whole frames (ints, first to last, the range's first and last among them) a
    check of what changes over the scene's range visits (FULL_RANGE, SPREAD)."""
    start, end = scene.frame_start, scene.frame_end
    if end - start < FULL_RANGE:
        return np.arange(start, end + 1)
    baked = {ob.mechanism.bake_action.as_pointer() for ob in scene.objects
             if ob.mechanism.bake_action is not None}
    keys = np.concatenate([np.floor(x) for act in bpy.data.actions
                           if act.as_pointer() not in baked for x in _key_frames(act)] + [[]])
    frames = np.concatenate([np.linspace(start, end, SPREAD).round(), keys - 1, keys, keys + 1,
                             keys + 2])
    return np.unique(frames[(frames >= start) & (frames <= end)]).astype(int)
