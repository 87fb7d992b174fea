"""What only visiting the frames of the scene's range shows (anim.over_frames, done only
where there is something to look at): mechanism settings that drivers change over the
frames through their variables, and objects carried by a posed bone or a deformed mesh's
vertices; also how a message names a setting (``setting_label``).  bake_checks.py names
what they find (Check lists it; Bake and the other solves refuse it)."""
from __future__ import annotations

import re

import bpy
import numpy as np

from .anim import check_frames, over_frames


def setting_label(owner, path: str) -> str:
    """A setting as the panel names it, with its data path: "Stiffness
    (mechanism.torsion_stiffness)"; a Constant by its name, "Constant 'omega'
    (mechanism.constants[0].value)"."""
    head, _, prop = path.rpartition(".")
    try:
        holder = owner.path_resolve(head) if head else owner
        if head.startswith("mechanism.constants["):        # one of the scene's Constants
            return f"Constant {holder.name!r} ({path})"
        return f"{holder.bl_rna.properties[prop].name} ({path})"
    except (ValueError, KeyError, AttributeError):
        return path


_FRAME = re.compile(r"\bframe\b")


def frame_driven(owner, accept) -> list[str]:
    """"its <setting> is driven by the frame ..." for each driver (not muted) of ``owner``
    on a data path ``accept`` takes whose expression reads the frame: the setting changes
    as the frames play, and a bake takes it as one number."""
    ad = owner.animation_data
    return [f"its {setting_label(owner, fc.data_path)} is driven by the frame "
            f"({fc.driver.expression}), so it changes over the frames, but a bake takes each "
            "setting as one number (the one at the first frame): remove the driver, and give "
            "a change over time as an expression (a motion, a force, a spring's Actuator)"
            for fc in (ad.drivers if ad is not None else ())
            if not fc.mute and accept(fc.data_path) and fc.driver.type == "SCRIPTED"
            and _FRAME.search(fc.driver.expression)]


def variable_driven(owner, accept) -> list:
    """The drivers (not muted) of ``owner`` on data paths ``accept`` takes whose expression
    does not read the frame (``frame_driven`` names those): their variables (an object's
    location, a property) may still change over the frames."""
    ad = owner.animation_data
    return [fc for fc in (ad.drivers if ad is not None else ())
            if not fc.mute and accept(fc.data_path)
            and not (fc.driver.type == "SCRIPTED" and _FRAME.search(fc.driver.expression))]


def _driven_value(owner, fc):
    """The value the driver ``fc`` sets on ``owner`` now (its array item, for a vector);
    None for a path that leads nowhere (a driver left on a setting since removed)."""
    try:
        value = owner.path_resolve(fc.data_path)
        return value[fc.array_index] if hasattr(value, "__len__") and \
            not isinstance(value, str) else value
    except (ValueError, AttributeError, IndexError, TypeError):
        return None


def changing_drivers(scene: bpy.types.Scene, driven: list[tuple]) -> list[str]:
    """One line per driver of ``driven`` ((who, owner, fcurve): who as a message names the
    owner) whose setting takes another value at some frame of the range than at its first
    (the frames of anim.check_frames visited, only when there is any), naming the setting,
    its value at the first frame and at the frame farthest from it."""
    if not driven:
        return []
    frames = check_frames(scene)
    values = over_frames(scene, lambda: [_driven_value(owner, fc) for _, owner, fc in driven],
                         frames)
    out = []
    for i, (who, owner, fc) in enumerate(driven):
        seen = [row[i] for row in values]
        if all(v == seen[0] for v in seen):
            continue
        try:
            k = int(np.argmax([abs(float(v) - float(seen[0])) for v in seen]))
        except (TypeError, ValueError):          # an enum's or a string's: the first change
            k = next(j for j, v in enumerate(seen) if v != seen[0])
        shown = [f"{v:.6g}" if isinstance(v, float) else str(v) for v in (seen[0], seen[k])]
        out.append(f"{who}: its {setting_label(owner, fc.data_path)} is driven and changes "
                   f"over the frames ({shown[0]} at frame {scene.frame_start}, {shown[1]} at "
                   f"frame {frames[k]}), but a bake takes each setting as one "
                   "number (the one at the first frame): remove the driver, and give a change "
                   "over time as an expression (a motion, a force, a spring's Actuator)")
    return out


# parent relations that move a child without its parent object's channels moving: a posed
# bone's keys, constraints or drivers (Bone), a deformed mesh's vertices (Vertex, Vertex
# (Triangle)); a carrier under one is seen to move only by visiting the frames
POSED_RELATIONS = ("BONE", "VERTEX", "VERTEX_3")


def relation_moved(scene: bpy.types.Scene, objects) -> dict:
    """Name -> whether it moves, for each object among ``objects`` parented by a relation
    of POSED_RELATIONS: its matrix relative to its parent object's, read at the frames of
    the range anim.check_frames gives (only when there is any such object), differs from the
    first frame's by more than float32 rounding allows (1e-6 of its size: the two
    matrices' round-off, 6e-8, with a margin of 16)."""
    obs = [ob for ob in objects if ob.parent is not None and ob.parent_type in POSED_RELATIONS]
    if not obs:
        return {}
    rel = np.array(over_frames(scene, lambda: [
        np.linalg.solve(np.array(ob.parent.matrix_world, dtype=float),
                        np.array(ob.matrix_world, dtype=float)) for ob in obs],
        check_frames(scene)))
    size = 1.0 + np.abs(rel[0, :, :3, :]).max(axis=(-2, -1))
    off = np.abs(rel[:, :, :3, :] - rel[0, :, :3, :]).max(axis=(0, -2, -1))
    return {ob.name: bool(o > 1e-6 * z) for ob, o, z in zip(obs, off, size)}


def carriers_of(obs) -> list:
    """The objects other than parts among the parents (at any depth) of ``obs``, once each."""
    out = {}
    for ob in obs:
        up = ob.parent if ob is not None else None
        while up is not None:
            if up.mechanism.role != "PART":
                out[up.name] = up
            up = up.parent
    return list(out.values())
