"""What would keep a bake from playing as solved, or from lasting, one line per object and
cause: the user's own keys or drivers of a part's placing channels, object constraints and
Rigid Body physics that override a part's keys, and objects a bake writes to that are not
local to the file (linked from a library, or library overrides), whose bake a saved file
does not keep.  Check lists them as warnings; Bake and Bake Variant refuse
with all of them and change nothing (``refuse_bake``).
"""
from __future__ import annotations

import bpy

from ..solver import MechanismError
from .anim import find_channelbag
from .bake import POSE_CHANNELS, user_action


def pose_key_problems(parts) -> list[str]:
    """The user's own animation of a channel that places a part (POSE_CHANNELS): a key in
    the action that plays over the bake, or a driver; one line per part and channel."""
    out = []
    for ob in parts:
        act, slot = user_action(ob)
        bag = find_channelbag(act, slot)
        keyed = {fc.data_path for fc in (bag.fcurves if bag is not None else ())
                 if fc.data_path in POSE_CHANNELS and not fc.mute}
        out += [f"part {ob.name!r}: its action {act.name!r} keys {path}, which would play over "
                "the baked motion: delete those keys (the mechanism moves the part)"
                for path in POSE_CHANNELS if path in keyed]
        ad = ob.animation_data
        driven = {fc.data_path for fc in (ad.drivers if ad is not None else ())
                  if fc.data_path in POSE_CHANNELS and not fc.mute}
        out += [f"part {ob.name!r}: a driver drives {path}, which would override the baked "
                "motion: remove the driver" for path in POSE_CHANNELS if path in driven]
    return out


def constraint_problems(parts) -> list[str]:
    """Object constraints that act on a part (not muted, valid, influence above 0): they
    move it after its keys, so the baked motion would not play as solved."""
    return [f"part {ob.name!r}: its constraint {c.name!r} ({c.type.replace('_', ' ').title()}) "
            "overrides the keys that place it, so the baked motion would not play as solved: "
            "delete or disable the constraint (Object Constraint Properties)"
            for ob in parts for c in ob.constraints
            if not c.mute and c.is_valid and c.influence > 0.0]


def rigid_body_problems(parts, scene: bpy.types.Scene) -> list[str]:
    """Active rigid bodies that the scene's enabled rigid body world simulates: the
    simulation, not the keys, places them (a passive body, or an active one with Animated
    ticked, follows its keys)."""
    world = scene.rigidbody_world
    if world is None or not world.enabled or world.collection is None:
        return []
    simulated = world.collection.all_objects
    return [f"part {ob.name!r}: its Rigid Body physics (Active) moves it instead of its keys, "
            "so the baked motion would not play: remove the rigid body (Physics Properties) "
            "or tick its Animated option"
            for ob in parts
            if ob.rigid_body is not None and ob.rigid_body.type == "ACTIVE"
            and not ob.rigid_body.kinematic and simulated.get(ob.name) is ob]


def not_local_problems(objects) -> list[str]:
    """Objects a bake writes to that the file does not keep as written: linked from a
    library (a saved file links them again as the library has them) or library overrides
    (their mechanism settings, the bake's bookkeeping, are not overridable)."""
    out = []
    for ob in objects:
        what = f"{ob.mechanism.role.lower()} {ob.name!r}"
        if ob.library is not None:
            out.append(f"{what} is linked from library {ob.library.name!r}, so a bake written "
                       "to it is lost when the file is saved: make it local (Object > "
                       "Relations > Make Local)")
        elif ob.override_library is not None:
            out.append(f"{what} is a library override, whose mechanism settings the saved file "
                       "does not keep, so its bake would be lost: make it local (Object > "
                       "Relations > Make Local)")
    return out


def bake_problems(sm, scene: bpy.types.Scene) -> list[str]:
    """Every reason a bake of the scene read as ``sm`` (scene_reader.SceneMechanism) would
    not play as solved or not last, one line each, naming the object."""
    return (not_local_problems(sm.parts + sm.joints + sm.couplers + sm.bushings
                               + sm.vector_forces + sm.contacts) + pose_key_problems(sm.parts)
            + constraint_problems(sm.parts) + rigid_body_problems(sm.parts, scene))


def refuse_bake(sm, scene: bpy.types.Scene) -> None:
    """MechanismError with every line of ``bake_problems``, when there is any."""
    problems = bake_problems(sm, scene)
    if problems:
        raise MechanismError("; ".join(problems))
