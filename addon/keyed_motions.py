"""A joint's keyframed Angle or Slide read as a motion: the F-curve Blender plays (its
action's slot, or the tweaked NLA strip), evaluated exactly with its modifiers
(io/keyframes.py), and every way the keys would not be what Blender plays refused by name."""
from __future__ import annotations

from ..solver import MechanismError
from .anim import fcurve_modifiers, find_channelbag
from .io.keyframes import (Key, KeyframedFunction, KeysInside, first_jump, key_times,
                           time_derivatives, with_modifiers)
from .io.timeline import Timeline


def keyframed_motion(joint, coordinate: str, timeline: Timeline, scale: float):
    """(f, (df, ddf), the keys' times, the first jump) of the joint's keyframed Angle or
    Slide, exact Bezier evaluation, a Cycles modifier's repeats included (any other F-curve
    modifier is refused by name): the keys' times (s, io/keyframes.key_times) are the
    motion's breakpoints; the first frame of the range where its value jumps
    (io/keyframes.first_jump), or None.  At the first and last keys the rates are the keyed
    segments' (KeysInside), not the extrapolation's beyond: keys at the range's first and
    last frames are the usual way to key a motion, and the run lies between them."""
    k = scale if coordinate == "slide" else 1.0
    fn = keyed_function(joint, coordinate)
    inside = KeysInside(fn) if isinstance(fn, KeyframedFunction) else fn
    f, df, ddf = time_derivatives(inside, timeline, k)
    return f, (df, ddf), key_times(fn, timeline), first_jump(fn, timeline.frames)


def keyed_function(joint, coordinate: str):
    """The joint's keyed Angle or Slide as a function of the scene frame (value, d/dframe,
    d2/dframe2; io/keyframes.py), in the F-curve's own units."""
    path = "mechanism.motion_angle" if coordinate == "angle" else "mechanism.motion_slide"
    ad = joint.animation_data
    fc = None
    act, slot = (ad.action, ad.action_slot) if ad is not None else (None, None)
    if ad is not None and ad.use_tweak_mode:      # Plot shows the bake's NLA strip in tweak mode
        act = ad.action_tweak_storage
        slot = next((sl for sl in (act.slots if act is not None else ())
                     if sl.handle == ad.action_slot_handle_tweak_storage), None)
    if act is not None:
        bag = find_channelbag(act, slot)
        fc = bag.fcurves.find(path) if bag is not None else None
    _refuse_unplayed_keys(joint, coordinate, path, fc)
    keys = [Key(k.co[0], k.co[1], tuple(k.handle_left), tuple(k.handle_right), k.interpolation)
            for k in fc.keyframe_points]
    try:
        fn = KeyframedFunction(keys, fc.extrapolation, f"joint {joint.name!r}")
        fn = with_modifiers(fn, fcurve_modifiers(fc),
                            f"joint {joint.name!r}, keyframed {coordinate.title()} ({path})")
    except ValueError as exc:
        raise MechanismError(str(exc)) from None
    return fn


def _refuse_unplayed_keys(joint, coordinate: str, path: str, fc) -> None:
    """MechanismError naming the joint when the keyed Angle or Slide a motion would follow
    (``fc``, the F-curve of ``path`` in the joint's action, or None) is not what Blender
    plays: no keys in the action's slot (the keys in another slot or only in an NLA strip,
    say which; samples, Keys to Samples, in place of keys), an F-curve
    muted (Blender holds the field's value), the action played at an influence below 1
    (blended with the field's value), or a driver that sets the field over the keys."""
    what = f"joint {joint.name!r}: the motion is Keyframed but its {coordinate.title()}"
    ad = joint.animation_data
    if fc is not None and len(fc.keyframe_points) == 0 and len(fc.sampled_points):
        raise MechanismError(f"{what}'s F-curve holds samples, not keyframes (Keys to "
                             "Samples): convert them back (Graph Editor > Channel > Samples "
                             "to Keys)")
    if fc is None or len(fc.keyframe_points) == 0:
        raise MechanismError(f"{what} has no keyframes{_keys_elsewhere(ad, path)}")
    if fc.mute:
        raise MechanismError(f"{what}'s F-curve is muted, so Blender holds the field's value "
                             "and does not play the keys: unmute it in the Graph Editor")
    if ad.action_influence != 1.0 and not ad.use_tweak_mode:
        raise MechanismError(f"{what} is keyed in an action that plays at influence "
                             f"{ad.action_influence:.3g}, so Blender shows it blended, not as "
                             "keyed: set the action's Influence to 1 (Action Editor, Animation "
                             "panel)")
    if any(d.data_path == path and not d.mute for d in (ad.drivers if ad is not None else ())):
        raise MechanismError(f"{what} has a driver, which sets the field over its keys, and a "
                             "motion follows the keys: remove the driver (to follow another "
                             "object's motion, let a marker Follow it)")


def _keys_elsewhere(ad, path: str) -> str:
    """Where the joint's keys of ``path`` are when its action's slot has none: another slot
    of its action (Blender plays only the assigned one), or an NLA strip; "" if nowhere."""
    act = ad.action if ad is not None else None
    slots = [sl.identifier for sl in (act.slots if act is not None else ())
             if sl != ad.action_slot and _keys_in(act, sl, path)]
    if slots:
        shown = ad.action_slot.identifier if ad.action_slot is not None else "none"
        return (f" in the slot of its action {act.name!r} it plays ({shown}; slot {slots[0]!r} "
                "keys it: pick that slot in the Action Editor)")
    strips = [strip.name for track in (ad.nla_tracks if ad is not None else ())
              for strip in track.strips if _keys_in(strip.action, strip.action_slot, path)]
    return (f" in its action (they are in NLA strip {strips[0]!r}: assign that action to the "
            "joint as its own in the Action Editor)" if strips else "")


def _keys_in(action, slot, path: str) -> bool:
    """Whether ``action`` keys ``path`` in ``slot``."""
    bag = find_channelbag(action, slot)
    fc = bag.fcurves.find(path) if bag is not None else None
    return fc is not None and len(fc.keyframe_points) > 0
