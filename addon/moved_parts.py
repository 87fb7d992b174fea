"""Baked parts moved or turned by hand since their bake, not keyed.

A bake reads a baked part at the design saved before its first bake
(scene_reader.design_matrix), whatever its keys show.  A part the user has moved since at
the frame shown stands off what its bake's keys give there (Blender plays the keys again
at the next frame change, dropping the move).  Bake and Export CSV carry such a move into
the design (``carry``): the same rigid move, in the part's parent space, is applied to
the saved design and to the channels Clear Bake puts back.  A part moved at the first
frame, where its keys show its design, starts the run where it was put; a part moved at
another frame starts as far from its design as it was moved from its keys; a baked
mechanism duplicated (Shift D) and moved aside bakes where it stands, not on top of the
original whose design its copy carried.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import bpy
import numpy as np
from mathutils import Euler, Matrix, Quaternion, Vector

from .anim import find_channelbag
from .bake import hidden_notes
from .channels import ROTATION_CHANNEL, delta_turn, in_rotation_mode
from .curve_reader import angle_text, length_text, metres_per_unit
from .io.part_frames import basis_pose
from .io.timeline import frame_text
from .scene_reader import SceneMechanism, at_first_frame, design_matrix, read_design

# how far a baked part's location (Blender units, relative to at least 1) or quaternion may
# stand off what its bake's keys give at the frame shown and still be theirs: both are
# float32 (6e-8 relative) and the NLA's blend of an influence of 1 is exact; a hand's move
# is many times more
MOVED = 1e-5
# the settings ``carry`` changes, which ``put_back`` restores
_SAVED = ("backup_matrix", "backup_location", "backup_euler", "backup_quaternion",
          "backup_axis_angle")


def _keyed(ob, ctime: float):
    """(location (3,), quaternion (4,)) the part's bake keys give at scene time ``ctime``,
    or None where they do not place it: not a baked moving part in the quaternion mode a
    bake sets, or a bake that does not play (bake.hidden_notes), or plays at an influence
    below 1 or blended."""
    s, ad = ob.mechanism, ob.animation_data
    act = s.bake_action
    if s.role != "PART" or s.ground or not s.baked or act is None or ad is None \
            or ob.rotation_mode != "QUATERNION" or hidden_notes([ob]) \
            or (ad.action == act and (ad.action_influence < 1.0
                                      or ad.action_blend_type != "REPLACE")):
        return None
    bag = find_channelbag(act, act.slots[0]) if len(act.slots) else None
    curves = {(fc.data_path, fc.array_index): fc for fc in (bag.fcurves if bag else ())}
    if any(("location", i) not in curves for i in range(3)) or \
            any(("rotation_quaternion", i) not in curves for i in range(4)):
        return None
    return (np.array([curves["location", i].evaluate(ctime) for i in range(3)]),
            np.array([curves["rotation_quaternion", i].evaluate(ctime) for i in range(4)]))


def moved(scene: bpy.types.Scene) -> list[tuple]:
    """(part, keyed location, keyed quaternion) of every baked part whose location or
    quaternion at the frame shown is off what its keys give there (``MOVED``).  To be read
    before anything changes the frame (a reading goes to the first frame)."""
    out = []
    ctime = scene.frame_current_final           # the frame the keys are played at
    for ob in scene.objects:
        keyed = _keyed(ob, ctime)
        if keyed is None:
            continue
        now = (np.array(ob.location, dtype=float), np.array(ob.rotation_quaternion, dtype=float))
        if any(np.abs(n - k).max() > MOVED * max(1.0, np.abs(k).max())
               for n, k in zip(now, keyed)):
            out.append((ob, *keyed))
    return out


def moved_notes(scene: bpy.types.Scene) -> list[str]:
    """Check's line per moved part: where and how far it stands off its keys, and that a
    bake starts from the design moved with it."""
    scale = metres_per_unit(scene)
    notes = []
    for ob, loc, quat in moved(scene):
        q = np.array(ob.rotation_quaternion, dtype=float)
        cos = abs(q @ quat) / (np.linalg.norm(q) * np.linalg.norm(quat))
        off = np.linalg.norm(np.array(ob.location, dtype=float) - loc) * scale
        notes.append(f"part {ob.name!r} was moved since its bake: at frame "
                     f"{frame_text(scene.frame_current)} it stands {length_text(scene, off)} "
                     f"and {angle_text(scene, 2 * np.arccos(min(cos, 1.0)), 3)} off its keys; "
                     "Bake moves its design with it (change the frame first to drop the move)")
    return notes


def _parent_design(ob) -> np.ndarray:
    """(4, 4) the world matrix of a part's parent when the part stands at its design: a
    part parent's design, any other object's world matrix (read at the first frame, as
    the bake reads it); the identity for none."""
    if ob.parent is None:
        return np.eye(4)
    if ob.parent.mechanism.role == "PART":
        return design_matrix(ob.parent)
    return np.array(ob.parent.matrix_world, dtype=float)


def _depth(ob) -> int:
    return 0 if ob.parent is None else 1 + _depth(ob.parent)


def carry(scene: bpy.types.Scene) -> list[tuple]:
    """Move the saved design of every baked part that was moved, or whose parent's was:
    with M = basis_now basis_keyed^-1 a part's own move (``moved``; the identity for
    none), in its parent space, W the frame its saved channels were in when its design
    was saved (its saved design times the inverse of the basis its saved channels build)
    and F the frame they are in now at the design (its parent's design, or another
    parent's world matrix at the first frame, times its parent inverse), the design
    becomes F M W^-1 design: a part carries its own move, and moves with a parent moved
    since (a carrier, or a part moved or carried itself: parents first), as Blender shows
    it.  The channels Clear Bake puts back become those of the moved design, in the
    part's saved rotation mode.  Returns what it replaced, for ``put_back``."""
    moves = {ob.name: np.array(ob.matrix_basis, dtype=float) @ np.linalg.inv(_basis(ob, loc, quat))
             for ob, loc, quat in moved(scene)}         # at the frame shown, before it changes
    baked = sorted((ob for ob in scene.objects if ob.mechanism.role == "PART"
                    and ob.mechanism.baked and not ob.mechanism.ground
                    and (ob.name in moves or ob.parent is not None)), key=_depth)
    record = []
    if not baked:
        return record
    with at_first_frame(scene):
        for ob in baked:
            s = ob.mechanism
            old = np.array(s.backup_matrix, dtype=float).reshape(4, 4)
            was = old @ np.linalg.inv(_saved_basis(ob))
            frame = _parent_design(ob) @ (np.array(ob.matrix_parent_inverse, dtype=float)
                                          if ob.parent is not None else np.eye(4))
            if ob.name not in moves and _same_place(frame, was):
                continue
            record.append((ob, {name: tuple(getattr(s, name)) for name in _SAVED}))
            design = frame @ moves.get(ob.name, np.eye(4)) @ np.linalg.inv(was) @ old
            s.backup_matrix = design.ravel()
            _put_channels(ob, design, frame)
    return record


def _same_place(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two frames (4, 4) place alike to float32 rounding (``MOVED``), their axes'
    lengths aside: the saved scale channel is the one at the frame the bake was made at,
    which the user's own scale keys may have made other than the first frame's."""
    axes = [m[:3, :3] / np.linalg.norm(m[:3, :3], axis=0) for m in (a, b)]
    size = max(1.0, np.abs(b[:3, 3]).max())
    return np.abs(axes[0] - axes[1]).max() <= MOVED and \
        np.abs(a[:3, 3] - b[:3, 3]).max() <= MOVED * size


def _saved_basis(ob) -> np.ndarray:
    """(4, 4) the matrix_basis the channels saved before the bake build (Clear Bake's),
    as Blender builds it: translation(location + delta) R(delta rotation) R(rotation)
    diag(scale x delta scale), in the saved rotation mode."""
    s = ob.mechanism
    mode = s.backup_rotation_mode or "XYZ"
    if mode == "QUATERNION":
        rotation = (Quaternion(ob.delta_rotation_quaternion).normalized()
                    @ Quaternion(s.backup_quaternion).normalized()).to_matrix()
    elif mode == "AXIS_ANGLE":
        angle, *axis = s.backup_axis_angle
        rotation = Matrix.Rotation(angle, 3, Vector(axis).normalized()) \
            if Vector(axis).length > 0.0 else Matrix.Identity(3)
    else:
        rotation = Euler(ob.delta_rotation_euler, mode).to_matrix() @ \
            Euler(s.backup_euler, mode).to_matrix()
    basis = np.eye(4)
    basis[:3, :3] = np.array(rotation) * (np.array(s.backup_scale) * np.array(ob.delta_scale))
    basis[:3, 3] = np.array(s.backup_location) + np.array(ob.delta_location)
    return basis


def _put_channels(ob, design: np.ndarray, frame: np.ndarray) -> None:
    """The channels Clear Bake puts back (location; rotation in the saved rotation mode,
    its delta rotation taken out) set so that the part stands at ``design`` in ``frame``."""
    s = ob.mechanism
    mode = s.backup_rotation_mode or "XYZ"
    signs = np.sign(np.array(s.backup_scale, dtype=float) * np.array(ob.delta_scale))
    loc, q = basis_pose(design[None], frame, np.eye(4), signs, tuple(ob.delta_location),
                        delta_turn(ob, mode))
    s.backup_location = loc[0]
    channel = ROTATION_CHANNEL.get(mode, "rotation_euler").replace("rotation", "backup")
    setattr(s, channel, in_rotation_mode(Quaternion(q[0]), mode, Euler(s.backup_euler)))


def _basis(ob, loc: np.ndarray, quat: np.ndarray) -> np.ndarray:
    """(4, 4) the part's matrix_basis at the keyed ``loc`` and ``quat`` with its scale and
    delta transforms: translation(loc + delta) R(dq) R(q) diag(scale x delta scale), as
    Blender builds it in the quaternion rotation mode (dq: the delta quaternion)."""
    basis = np.eye(4)
    dq = Quaternion(ob.delta_rotation_quaternion).normalized()
    rotation = dq @ Quaternion(quat).normalized()
    scale = np.array(ob.scale) * np.array(ob.delta_scale)
    basis[:3, :3] = np.array(rotation.to_matrix()) * scale
    basis[:3, 3] = loc + np.array(ob.delta_location)
    return basis


def put_back(record: list[tuple]) -> None:
    """Undo ``carry``: the saved designs and channels it replaced (a bake that failed
    leaves the scene as it was)."""
    for ob, saved in record:
        for name, value in saved.items():
            setattr(ob.mechanism, name, value)


def kept_if_done(record: list[tuple], run):
    """``run()``, an operator's result, with the moves ``carry`` made (``record``) put back
    when it is cancelled or raises: a bake that fails leaves the scene as it was.  A result
    that writes the scene step by step (background.py: an iterator whose return value is
    the operator's result) is passed on with the same rule at its end."""
    try:
        result = run()
    except BaseException:
        put_back(record)
        raise
    if not isinstance(result, (set, frozenset)):
        return _kept_steps(record, result)
    if "CANCELLED" in result:
        put_back(record)
    return result


def _kept_steps(record: list[tuple], steps):
    """``steps`` passed on; the moves put back when it raises or ends cancelled."""
    try:
        result = yield from steps
    except BaseException:
        put_back(record)
        raise
    if "CANCELLED" in result:
        put_back(record)
    return result


@contextmanager
def carried(scene: bpy.types.Scene) -> Iterator[None]:
    """The moves carried into the designs (``carry``) for the time of the block, then put
    back: Export CSV writes what a bake would and changes nothing."""
    record = carry(scene)
    try:
        yield
    finally:
        put_back(record)


def read_carried(scene: bpy.types.Scene) -> SceneMechanism:
    """The scene's design as Bake reads it (``read_design`` with the moves carried), the
    scene left as it was: the reading of Check, Find Modes, Run Study and Export MJCF, so
    that a baked mechanism moved since (by hand, or with its carrier) is not read where
    its parts stood before their first bake."""
    with carried(scene):
        return read_design(scene)
