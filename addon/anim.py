"""Layered actions (Blender 4.4+): the channelbag that holds an action slot's F-curves.

Blender 5.0 has helpers in ``bpy_extras.anim_utils``; 4.5 LTS reaches the channelbag
through the action's layer and keyframe strip.  Both paths give the same object."""
from __future__ import annotations

import bpy
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
