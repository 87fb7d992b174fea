"""Layered actions (Blender 4.4+): the channelbag that holds an action slot's F-curves, and
F-curves written into it in bulk (``foreach_set``, glTF exporter style).

Blender 5.0 has helpers in ``bpy_extras.anim_utils``; 4.5 LTS reaches the channelbag
through the action's layer and keyframe strip.  Both paths give the same object."""
from __future__ import annotations

import bpy
import numpy as np
from bpy_extras import anim_utils

from .io.keyframes import Modifier


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
                smooth: bool = False) -> None:
    """A new F-curve of ``values`` at the frames of ``co`` (``key_buffer``), in bulk.
    ``smooth``: Auto handles (``_smooth_handles``), for the keys that place a part."""
    fc = bag.fcurves.new(path, index=index)
    fc.group = group
    fc.keyframe_points.add(len(co) // 2)
    co[1::2] = values
    fc.keyframe_points.foreach_set("co", co)
    if smooth:
        _smooth_handles(fc)
    fc.update()


def _smooth_handles(fc) -> None:
    """Auto (not Auto Clamped) handles on every key of ``fc``, in bulk: Blender plays a
    part between frames (motion blur's subframes) along the keys' Bezier curves, and
    Auto Clamped flattens each channel where it turns, so a part's location and rotation
    channels, which turn at different frames, leave its joints open between them (2 mm on
    a 1 m pendulum at 24 fps; Auto handles follow the motion's slope, 0.01 mm)."""
    kind = bpy.types.Keyframe.bl_rna.properties["handle_left_type"].enum_items["AUTO"].value
    types = np.full(len(fc.keyframe_points), kind, dtype=np.int32)
    fc.keyframe_points.foreach_set("handle_left_type", types)
    fc.keyframe_points.foreach_set("handle_right_type", types)
