"""What would keep a bake from playing as solved, or from lasting, one line per object and
cause: the user's own keys or drivers of a part's placing channels, or of its scale where
they carry a marker away, object constraints and Rigid Body physics that override a part's
keys, and objects a bake writes to that are not local to the file (linked from a library,
or library overrides), whose bake a saved file does not keep; mechanism settings
keyframed to change over the frames (a bake takes each as one number, the one at the frame
shown, so its result would depend on that frame);
and ground parts, markers and curve joints' curves that their own keys, drivers or
constraints move (the mechanism is solved about a ground standing still, so the parts
would part from it; a marker is read once, at the frame shown; a curve where it stands on
its part), or that a moving parent carries apart from what they are joined to.
Check lists them as warnings; Bake and Bake Variant refuse with all of them and change
nothing (``refuse_bake``).
"""
from __future__ import annotations

import bpy
import numpy as np

from ..solver import MechanismError, SolverError
from .anim import find_channelbag, is_bake_track
from .bake import POSE_CHANNELS, user_action
from .curve_reader import control_points, curves_on
from .io.curve_joints import FIELDS
from .frame_checks import (carriers_of, changing_drivers, frame_driven, relation_moved,
                           setting_label, variable_driven)
from .vertex_markers import deformed_vertex_problems


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
        # the bake's track is above the user's NLA strips and replaces what they key of the
        # channels it writes, but not their delta transforms
        out += [f"part {ob.name!r}: its NLA strip {strip.name!r} (action {strip.action.name!r}) "
                f"keys {path} to change over the frames, which would move the part off its "
                "baked motion: delete those keys or mute the strip"
                for strip in _playing_strips(ob) for path in
                _changing_keys(ob, strip.action, strip.action_slot, DELTAS.__contains__)]
        driven = _driven(ob, POSE_CHANNELS)
        out += [f"part {ob.name!r}: a driver drives {path}, which would override the baked "
                "motion: remove the driver" for path in POSE_CHANNELS if path in driven]
    return out


# the placing channels a bake does not key: they add to its keys
DELTAS = tuple(path for path in POSE_CHANNELS if path.startswith("delta_"))


def _playing_strips(ob) -> list:
    """The NLA strips of the user's that play on the object: on a track not muted (and not
    the bake's own), not muted themselves, with an action."""
    ad = ob.animation_data
    return [strip for track in (ad.nla_tracks if ad is not None else ())
            if not track.mute and not is_bake_track(track, ob.mechanism.bake_action)
            for strip in track.strips if not strip.mute and strip.action is not None]


def _driven(ob, paths) -> list[str]:
    """Which of the channels ``paths`` a driver (not muted) of the object drives."""
    ad = ob.animation_data
    return [fc.data_path for fc in (ad.drivers if ad is not None else ())
            if fc.data_path in paths and not fc.mute]


# the channels that size a part: the bake keeps them, the user's keys of them play on
SIZING = ("scale", "delta_scale")
XYZ = "xyz"


def _sizing_axes(ob) -> dict[int, tuple[str, str]]:
    """Axis (0, 1, 2) -> (how it changes, the start of the remedy), for each axis of the object's scale that keys
    change over the frames (in an action that plays on it) or a driver (not muted) sets."""
    out: dict[int, tuple[str, str]] = {}
    for act, slot in _playing_actions(ob):
        bag = find_channelbag(act, slot)
        for fc in (bag.fcurves if bag is not None else ()):
            if fc.data_path in SIZING and not fc.mute and _changes(fc):
                out.setdefault(fc.array_index, (f"its action {act.name!r} keys {fc.data_path}"
                                                f"[{fc.array_index}] to change over the frames",
                                                "delete those keys, or key"))
    ad = ob.animation_data
    for fc in (ad.drivers if ad is not None else ()):
        if fc.data_path in SIZING and not fc.mute:
            out.setdefault(fc.array_index, (f"a driver drives {fc.data_path}[{fc.array_index}]",
                                            "remove the driver, or drive"))
    return out


def scale_key_problems(parts, joints=()) -> list[str]:
    """Markers and curves that a moving part's animated scale carries away: the user's keys
    or driver of the part's scale play beside the bake (a part may stretch as it moves),
    but a marker off the part's origin along an axis whose scale changes rides it, away
    from where the part is solved (at its design size) and from its joint, and so does a
    curve of one of ``joints`` (a slot, a cam's profile) that reaches off the origin along
    it: it is drawn stretched while its joint follows it at its design size; one line per
    part, axis and marker or curve."""
    out = []
    for ob in parts:
        axes = _sizing_axes(ob)
        markers = [m for m in ob.children if m.mechanism.role == "MARKER"] if axes else []
        curves = curves_on(ob, joints) if axes else []
        if not markers and not curves:
            continue
        inverse = np.linalg.inv(np.array(ob.matrix_world, dtype=float))
        reach = 1e-6 * max(max(ob.dimensions), 1e-9) / max(max(abs(v) for v in ob.scale), 1e-9)
        for mk in markers:
            local = inverse @ np.array(mk.matrix_world, dtype=float)[:, 3]
            out += [f"part {ob.name!r}: {how}, and its marker {mk.name!r} stands off the "
                    f"part's origin along its {XYZ[k]} axis, so it would ride the scale away "
                    f"from its joint (the part is solved at its design size): {remedy} the "
                    "scale along the other axes only"
                    for k, (how, remedy) in sorted(axes.items()) if abs(local[k]) > reach]
        for cv, joint in curves:
            points = control_points(cv)
            local = (inverse @ np.array(cv.matrix_world, dtype=float)
                     @ np.c_[points, np.ones(len(points))].T)[:3]
            far = np.abs(local).max(axis=1) if len(points) else np.zeros(3)
            out += [f"part {ob.name!r}: {how}, and curve {cv.name!r} of joint {joint.name!r} "
                    f"reaches off the part's origin along its {XYZ[k]} axis, so it would be "
                    "drawn stretched while the joint follows it at the part's design size: "
                    f"{remedy} the scale along the other axes only"
                    for k, (how, remedy) in sorted(axes.items()) if far[k] > reach]
    return out


# a constraint's settings that switch it on and off or weigh it
SWITCHES = ("influence", "mute", "enabled")


def _switched(ob) -> set[str]:
    """Data paths of the object's constraint settings (SWITCHES) that keys change over the
    frames (in an action that plays on it) or a driver (not muted) sets."""
    return _animated_paths(ob, lambda path: path.startswith("constraints[")
                           and path.rpartition(".")[2] in SWITCHES)


def _animated_paths(ob, accept) -> set[str]:
    """The object's data paths that ``accept`` (path -> bool) takes and that keys change
    over the frames (in an action that plays on it) or a driver (not muted) sets."""
    out = {path for act, slot in _playing_actions(ob) for path in _changing_keys(ob, act, slot, accept)}
    ad = ob.animation_data
    return out | {fc.data_path for fc in (ad.drivers if ad is not None else ())
                  if accept(fc.data_path) and not fc.mute}


def _acting(ob) -> list:
    """The object's constraints that act on it at some frame, each as (name, its type as
    the panel says it, whether keys or a driver switch it): valid, not muted or its mute
    keyed to change over the frames or driven, and its influence above 0 or keyed or
    driven likewise, since such a constraint takes over at the frames where it is on,
    whatever the frame shown."""
    switched = _switched(ob)
    out = []
    for c in ob.constraints:
        path = c.path_from_id()
        unmuted = f"{path}.mute" in switched or f"{path}.enabled" in switched
        weighed = f"{path}.influence" in switched
        if c.is_valid and (unmuted or not c.mute) and (weighed or c.influence > 0.0):
            out.append((c.name, c.type.replace("_", " ").title(), unmuted or weighed))
    return out


def _remedy(animated: bool) -> str:
    """What to do with a constraint that acts: a switched one's keys or driver go too; one
    that acts now is applied first (its Visual Transform), since the scene is read where
    it places the object, and deleting it alone would move the design there."""
    return ("delete the constraint, or the keys or driver that switch it on (its influence, "
            "its mute)" if animated else "keep the place it gives (Object > Apply > Visual "
            "Transform), then delete it")


def constraint_problems(parts) -> list[str]:
    """Object constraints that act on a part: they move it after its keys, so the baked
    motion would not play as solved."""
    return [f"part {ob.name!r}: its constraint {name!r} ({kind}) overrides the keys that "
            f"place it, so the baked motion would not play as solved: {_remedy(animated)} "
            "(Object Constraint Properties)"
            for ob in parts for name, kind, animated in _acting(ob)]


def rigid_body_problems(parts, scene: bpy.types.Scene) -> list[str]:
    """Active rigid bodies that the scene's enabled rigid body world simulates: the
    simulation, not the keys, places them (a passive body, or an active one with Animated
    ticked, follows its keys); also one whose Animated option keys or a driver switch off
    at some frame (an animated-to-simulated hand-off), whatever the frame shown."""
    out = []
    for ob in _simulated(parts, scene):
        body = ob.rigid_body
        if not body.kinematic:
            out.append(f"part {ob.name!r}: its Rigid Body physics (Active) moves it instead of "
                       "its keys, so the baked motion would not play: remove the rigid body "
                       "(Physics Properties) or tick its Animated option")
        elif _animated_paths(ob, lambda path: path == "rigid_body.kinematic"):
            out.append(f"part {ob.name!r}: its Rigid Body's Animated option is switched off by "
                       "keys or a driver at some frame, and from there the simulation, not "
                       "its keys, would move it: delete those keys or the driver, or remove "
                       "the rigid body (Physics Properties)")
    return out


# the channels posing by hand writes (bake.place_parts: the object's own rotation mode)
PLACING = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle",
           "delta_location", "delta_rotation_euler", "delta_rotation_quaternion")


def posing_problems(parts, scene: bpy.types.Scene) -> list[str]:
    """What places a part instead of the location and rotation that Assemble, Drag and the
    joint sliders write, so the pose would not show (a constraint acting now, a driver of
    a placing channel, an active rigid body the simulation moves) or not last (a part
    linked from a library: the saved file links it again as the library has it), one line
    per part and cause; the same that Bake refuses."""
    out = [f"part {ob.name!r} is linked from library {ob.library.name!r}, so a pose written "
           "to it is lost when the file is saved: make it local (Object > Relations > Make "
           "Local)" for ob in parts if ob.library is not None]
    for ob in parts:
        out += [f"part {ob.name!r}: its constraint {c.name!r} "
                f"({c.type.replace('_', ' ').title()}) places it instead of the pose: delete "
                "or disable the constraint (Object Constraint Properties)"
                for c in ob.constraints if c.is_valid and not c.mute and c.influence > 0.0]
        driven = _driven(ob, PLACING)
        out += [f"part {ob.name!r}: a driver drives {path}, which places it instead of the "
                "pose: remove the driver" for path in PLACING if path in driven]
    out += [f"part {ob.name!r}: its Rigid Body physics (Active) places it instead of the "
            "pose: remove the rigid body (Physics Properties) or tick its Animated option"
            for ob in _simulated(parts, scene) if not ob.rigid_body.kinematic]
    return out


def refuse_posing(parts, scene: bpy.types.Scene) -> None:
    """MechanismError with every line of ``posing_problems``, when there is any."""
    problems = posing_problems(parts, scene)
    if problems:
        raise MechanismError("; ".join(problems))


def _simulated(parts, scene: bpy.types.Scene) -> list:
    """The parts that are active rigid bodies of the scene's enabled rigid body world."""
    world = scene.rigidbody_world
    if world is None or not world.enabled or world.collection is None:
        return []
    simulated = world.collection.all_objects
    return [ob for ob in parts if ob.rigid_body is not None and ob.rigid_body.type == "ACTIVE"
            and simulated.get(ob.name) is ob]


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


# the settings whose keys a bake follows (a Keyframed motion's channels) or that only pose
# the mechanism by hand
FOLLOWED_KEYS = ("mechanism.motion_angle", "mechanism.motion_slide", "mechanism.wiggle_angle",
                 "mechanism.wiggle_slide")


def _changing_keys(owner, action, slot, settings) -> list[str]:
    """The data paths of ``owner``'s F-curves in ``action`` (its ``slot``) that ``settings``
    (a data path -> bool) accepts, not muted, whose keys change value or whose modifiers
    (not muted) may."""
    bag = find_channelbag(action, slot)
    out = []
    for fc in (bag.fcurves if bag is not None else ()):
        if fc.mute or not settings(fc.data_path) or fc.data_path in out:
            continue
        if _changes(fc):
            out.append(fc.data_path)
    return out


def _changes(fcurve) -> bool:
    """Whether an F-curve's keys (or samples, Keys to Samples) change value, or its
    modifiers (not muted) may."""
    return (len({kp.co[1] for kp in fcurve.keyframe_points}) > 1
            or len({p.co[1] for p in fcurve.sampled_points}) > 1
            or any(not m.mute for m in fcurve.modifiers))


def _playing_actions(ob) -> list[tuple]:
    """(action, slot) of each action that plays on the object: its active one (a bake's
    keeps the keys the user inserts into it), the user's own (``user_action``) and those
    of the user's NLA strips that play (``_playing_strips``)."""
    ad = ob.animation_data
    out = [(ad.action, ad.action_slot)] if ad is not None and ad.action is not None else []
    user = user_action(ob)
    out += [user] if user[0] is not None and user not in out else []
    return out + [pair for pair in dict.fromkeys((strip.action, strip.action_slot)
                                                 for strip in _playing_strips(ob))
                  if pair not in out]


def keyed_setting_problems(scene: bpy.types.Scene) -> list[str]:
    """Mechanism settings of the tagged objects, the scene's gravity and its Constants
    keyframed to change over the frames, or driven by an expression of the frame or by
    variables that change over them (``changing_drivers``): a bake reads each as one
    number, so its result would not follow the change.  A Keyframed
    motion's channel (FOLLOWED_KEYS) is followed and not named; one key, or keys of one
    value, are fine."""
    def setting(path: str) -> bool:
        return path.startswith("mechanism.") and path not in FOLLOWED_KEYS

    remedy = ("but a bake takes each setting as one number (the one at the frame shown): "
              "delete its keys")
    out = []
    for ob in scene.objects:
        if ob.mechanism.role == "NONE":
            continue
        paths = []
        for act, slot in _playing_actions(ob):
            paths += [p for p in _changing_keys(ob, act, slot, setting) if p not in paths]
        out += [f"{ob.mechanism.role.lower()} {ob.name!r}: its {setting_label(ob, path)} is "
                f"keyframed and changes over the frames, {remedy}" for path in paths]
        out += [f"{ob.mechanism.role.lower()} {ob.name!r}: {line}"
                for line in frame_driven(ob, setting)]

    def scene_setting(path: str) -> bool:
        return path == "gravity" or path.startswith("mechanism.constants")

    out += [f"scene {scene.name!r}: {line}" for line in frame_driven(scene, scene_setting)]
    driven = [(f"{ob.mechanism.role.lower()} {ob.name!r}", ob, fc) for ob in scene.objects
              if ob.mechanism.role != "NONE" for fc in variable_driven(ob, setting)]
    out += changing_drivers(scene, driven + [(f"scene {scene.name!r}", scene, fc)
                                             for fc in variable_driven(scene, scene_setting)])

    ad = scene.animation_data
    played = [(ad.action, ad.action_slot, "")] if ad is not None and ad.action else []
    played += [(strip.action, strip.action_slot, f" on its NLA strip {strip.name!r}")
               for track in (ad.nla_tracks if ad is not None else ()) if not track.mute
               for strip in track.strips if not strip.mute and strip.action is not None]
    return out + [f"scene {scene.name!r}: its {setting_label(scene, path)} is keyframed{where} "
                  f"and changes over the frames, {remedy}" for act, slot, where in played
                  for path in _changing_keys(scene, act, slot, scene_setting)]


# the channels that place or size an object: a ground part's keys on any of them move it
# (PLACING, the channels a pose writes, is the posing checks' own)
MOVING = PLACING + SIZING


def standing_problems(scene: bpy.types.Scene) -> list[str]:
    """Ground parts and markers that their own keys (changing over the frames), drivers or
    object constraints move: a ground part stands still where it is at the design pose, so
    the parts joined to it would part from it; a marker is read once, where it is at the
    frame shown, so the bake would depend on that frame (also one parented to vertices that
    shape keys or modifiers move: vertex_markers.py); also a ground part parented to a
    moving part, which the bake's keys carry; and curve joints' curves moved on their part
    (``moving_curve_problems``).  (A ground part parented to a moving object
    carries the mechanism along with it, the parts' keys being in the same parent's space,
    and is not named here: ``carrier_problems``.)"""
    out = []
    for ob in scene.objects:
        s = ob.mechanism
        if s.role == "PART" and s.ground:
            what = f"ground part {ob.name!r}"
            still = ("but a ground part stands still where it is at the design pose, so the "
                     "parts joined to it would part from it")
        elif s.role == "MARKER":
            what = f"marker {ob.name!r}"
            still = ("but a marker is read once, where it is at the frame shown, so the bake "
                     "would depend on that frame (a marker moved along a path: its Follow)")
        else:
            continue
        for act, slot in _playing_actions(ob):
            out += [f"{what}: its action {act.name!r} keys {path}, which moves it over the "
                    f"frames, {still}: delete those keys" for path in
                    _changing_keys(ob, act, slot, lambda path: path in MOVING)]
        out += [f"{what}: a driver drives {path}, {still}: remove the driver"
                for path in _driven(ob, MOVING)]
        out += [f"{what}: its constraint {name!r} ({kind}) moves it, {still}: "
                f"{_remedy(animated)}" for name, kind, animated in _acting(ob)]
        mover = _moving_part_above(ob) if s.role == "PART" else None
        out += [f"{what} is parented to the moving part {mover.name!r}, whose baked motion "
                f"carries it, {still}: clear its parent keeping the transform (Alt P), or "
                "parent it to the ground"] if mover is not None else []
    return out + moving_curve_problems(scene) + deformed_vertex_problems(scene)


def moving_curve_problems(scene: bpy.types.Scene) -> list[str]:
    """Curve joints' curves that their own keys (changing over the frames), drivers or
    object constraints move on their part, or that hang from an untagged object moved so,
    or that keys or drivers reshape over the frames (their modifiers' settings, their shape
    keys', their points'): the joint follows the curve as it stands on its part at the
    first frame, its constraints aside (curve_reader.design_world, spline_data), so it
    would follow a curve the viewport draws elsewhere, as a marker would be left behind.
    One line per joint, curve, object and cause."""
    out = []
    still = "but the joint follows the curve as it stands on its part at the first frame"
    for ob in scene.objects:
        s = ob.mechanism
        for field, label, _side in FIELDS.get(s.joint_kind, ()) if s.role == "JOINT" else ():
            cv = getattr(s, field)
            if cv is None:
                continue
            what = f"joint {ob.name!r}: {label} {cv.name!r}"
            data = cv.data if cv.type == "CURVE" else None
            keys = data.shape_keys if data is not None else None
            for owner, whose, accept in (
                    (cv, "its action", lambda p: p.startswith("modifiers[")),
                    (data, "its curve data's action", lambda p: True),
                    (keys, "its shape keys' action", lambda p: True)):
                out += [f"{what}: {whose} {act.name!r} keys {path}, which reshapes it over the "
                        f"frames, {still}: delete those keys"
                        for act, slot in _id_actions(owner) for path in
                        _changing_keys(owner, act, slot, accept)]
                out += [f"{what}: a driver drives {path}, which reshapes it over the frames, "
                        f"{still}: remove the driver" for path in _id_drivers(owner, accept)]
            up = cv
            while up is not None and up.mechanism.role != "PART":
                who = what + ("" if up is cv else f" hangs from {up.name!r}")
                out += [f"{who}: its action {act.name!r} keys {path}, which moves it over the "
                        f"frames, {still}: delete those keys" for act, slot in _playing_actions(up)
                        for path in _changing_keys(up, act, slot, lambda path: path in MOVING)]
                out += [f"{who}: a driver drives {path}, {still}: remove the driver"
                        for path in _driven(up, MOVING)]
                out += [f"{who}: its constraint {name!r} ({kind}) moves it, {still}: "
                        f"{_remedy(animated)}" for name, kind, animated in _acting(up)]
                up = up.parent
    return out


def _id_actions(idb) -> list[tuple]:
    """(action, slot) of each action that plays on a data-block (a curve's data, its shape
    keys; an object the add-on does not bake): its active one and its NLA strips' that play."""
    ad = idb.animation_data if idb is not None else None
    if ad is None:
        return []
    out = [(ad.action, ad.action_slot)] if ad.action is not None else []
    return out + [pair for pair in dict.fromkeys(
        (strip.action, strip.action_slot) for track in ad.nla_tracks if not track.mute
        for strip in track.strips if not strip.mute and strip.action is not None)
        if pair not in out]


def _id_drivers(idb, accept) -> list[str]:
    """The data paths that ``accept`` takes of a data-block's drivers (not muted)."""
    ad = idb.animation_data if idb is not None else None
    return [fc.data_path for fc in (ad.drivers if ad is not None else ())
            if accept(fc.data_path) and not fc.mute]


def _moving_part_above(ob):
    """The first moving part (a part not Ground) among ``ob``'s parents, or None."""
    up = ob.parent
    while up is not None and not (up.mechanism.role == "PART" and not up.mechanism.ground):
        up = up.parent
    return up


def _moves(ob) -> bool:
    """Whether the object's own keys (changing over the frames), drivers or constraints
    move it (its placing channels, scale included)."""
    return bool([1 for act, slot in _playing_actions(ob)
                 for _ in _changing_keys(ob, act, slot, lambda path: path in MOVING)]
                or _driven(ob, MOVING) or _acting(ob))


def _moving_carriers(ob, memo: dict) -> tuple[str, ...]:
    """The names of the objects other than parts among ``ob``'s parents (at any depth) that
    move over the frames: a part is keyed in its parent's space as that stood when the
    scene was read, so these carry it (and its markers) along as the bake plays."""
    out = []
    up = ob.parent
    while up is not None:
        if up.mechanism.role != "PART":
            if up.name not in memo:
                memo[up.name] = _moves(up)
            out += [up.name] if memo[up.name] else []
        up = up.parent
    return tuple(sorted(out))


def carrier_problems(sm, scene: bpy.types.Scene) -> list[str]:
    """Items that join two sides carried by different moving objects (a part, or the
    marker of one, parented to an animated Empty that the other side is not under): the
    mechanism is solved where it stands at the first frame and each part keyed in its
    parent's space as it stood then, so a parent that moves one side and not the other
    pulls the item's two sides apart as the bake plays.  One line per item."""
    out = []
    pairs = [(ob, ob.mechanism.marker_i, ob.mechanism.marker_j)
             for ob in sm.joints + sm.springs + sm.bushings + sm.vector_forces]
    pairs += [(ob, ob.mechanism.contact_part_a, ob.mechanism.contact_part_b)
              for ob in sm.contacts]
    # a carrier that a posed bone (or deformed mesh) moves counts as moving
    moved = relation_moved(scene, carriers_of([x for _, a, b in pairs for x in (a, b)]))
    memo = {name: True for name, on in moved.items() if on}
    for ob, a, b in pairs:
        if a is None or b is None:
            continue
        ca, cb = _moving_carriers(a, memo), _moving_carriers(b, memo)
        if ca != cb:
            movers = ", ".join(repr(n) for n in sorted(set(ca) ^ set(cb)))
            out.append(f"{ob.mechanism.role.lower()} {ob.name!r}: {a.name!r} and {b.name!r} "
                       f"are parented apart, and {movers}, the parent of only one of them, "
                       "moves over the frames, so the bake would pull them apart as it plays: "
                       "parent the ground and every part of the mechanism to the same moving "
                       "object, or none of them")
    return out


def jump_problems(sm, scene: bpy.types.Scene) -> list[str]:
    """Keyed motions whose value jumps inside the frame range (a Constant key, stepped
    animation: scene_reader's ``keyed_jumps``) in a dynamic run: its parts would have to move
    in no time, which no force does, so the run cannot follow it (a kinematic sweep, every
    freedom driven, just poses each frame, and a jump is fine there)."""
    if not sm.keyed_jumps or scene.mechanism.analysis == "KINEMATIC":
        return []
    if scene.mechanism.analysis == "AUTO":
        try:
            if sm.mech.check().driven_dof == 0:          # Auto solves it kinematically
                return []
        except (MechanismError, SolverError):           # the bake itself will say why
            return []
    return [f"joint {name!r}: its keyed {coord.title()} jumps at frame {frame:g} (Constant "
            "interpolation), and in a dynamic run the parts cannot move in no time: make "
            "those keys Linear or Bezier" for name, (coord, frame) in sm.keyed_jumps.items()]


def bake_problems(sm, scene: bpy.types.Scene) -> list[str]:
    """Every reason a bake of the scene read as ``sm`` (scene_reader.SceneMechanism) would
    not play as solved or not last, one line each, naming the object."""
    return (not_local_problems(sm.parts + sm.joints + sm.couplers + sm.bushings
                               + sm.vector_forces + sm.contacts)
            + _part_key_problems(sm, scene) + jump_problems(sm, scene))


def mode_bake_problems(sm, scene: bpy.types.Scene) -> list[str]:
    """Every reason Bake Mode's part keys (no forces, no motion played) would not play as
    written or not last: the parts' and the frame-dependent settings' lines of
    ``bake_problems``."""
    return not_local_problems(sm.parts) + _part_key_problems(sm, scene)


def _part_key_problems(sm, scene: bpy.types.Scene) -> list[str]:
    """What would play over the parts' keys or move them otherwise, and settings or ground
    parts and markers that make the reading depend on the frame shown."""
    return (pose_key_problems(sm.parts) + scale_key_problems(sm.parts, sm.joints)
            + constraint_problems(sm.parts) + rigid_body_problems(sm.parts, scene)
            + keyed_setting_problems(scene) + standing_problems(scene)
            + carrier_problems(sm, scene))


def refuse_frame_dependent(scene: bpy.types.Scene) -> None:
    """MechanismError naming what would make any solve of the scene (a bake, Export CSV, a
    study) depend on the frame shown: settings keyed to change, ground parts and markers
    that move (``keyed_setting_problems``, ``standing_problems``)."""
    problems = keyed_setting_problems(scene) + standing_problems(scene)
    if problems:
        raise MechanismError("; ".join(problems))


def refuse_bake(sm, scene: bpy.types.Scene, problems=bake_problems) -> None:
    """MechanismError with every line of ``problems`` (``bake_problems``, or
    ``mode_bake_problems`` for Bake Mode), when there is any."""
    problems = problems(sm, scene)
    if problems:
        raise MechanismError("; ".join(problems))
