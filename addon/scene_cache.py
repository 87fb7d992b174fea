"""The scene read once while nothing that reading depends on has changed: one fingerprint and
one cache for the readings the add-on keeps.

Reading the scene (every part's mesh for its mass, the curves, the keyframed motions) and
compiling the model cost far more than what is done with them: a joint slider dragged
through many values (the posing, drag.py) and the Study panel's parameter list, drawn
at every redraw (study.py), would pay it each time.  A reading is kept per scene and purpose
with the scene's ``fingerprint`` and used again while the fingerprint is the same:

- every tagged object (and every curve a curve joint reads, with the untagged objects it
  hangs from on its part): its identity, name, parent, data-block and all its mechanism
  settings (a setting change is no depsgraph update: the settings are compared
  themselves), its placement, and whether Blender evaluates it;
- the Constants, gravity, the unit system and scale, the frame rate and range;
- a generation count that the depsgraph handler bumps for a change of geometry or of a
  data-block other than an object or the scene (a mesh or curve edited, a modifier, a
  keyframe moved).

A reading made ``at_frame`` (the posing: the parts as they stand, motions held at the
frame's time) depends on the frame and on every object's world matrix as it is now; the
others (the Study panel) on the design placements, the same on every frame of a baked
scene's playback: a part's own from before the bake, any other object's placement on its
parent, and not on the animated or bake-bookkeeping settings.  Undo, redo and loading a file
drop every reading (their objects may be new).  What the add-on writes itself inside
``own_writes`` (a bake's keys) ends every reading but the one it was written from: the
bake's reading of the design stays while the design stays.
"""
from __future__ import annotations

from contextlib import contextmanager
from operator import attrgetter
from typing import Any, Callable, Iterator

import bpy

from .scene_reader import design_matrix

# settings shown, not read
SHOWN = frozenset({"rna_type", "computed_mass", "computed_inertia", "computed_center_of_mass",
                   "computed_density",
                   "mesh_warning", "curve_fit", "curve_fit_key", "wiggle_angle", "wiggle_slide"})
# ... and, for a reading of the design (not at a frame), the animated ones and the bake's own
DESIGN_SKIP = SHOWN | frozenset({"motion_angle", "motion_slide", "baked", "bake_action",
                                 "backup_action", "backup_slot", "backup_matrix",
                                 "backup_rotation_mode", "backup_location", "backup_scale",
                                 "backup_euler", "backup_quaternion", "backup_axis_angle",
                                 "bake_timeline", "bake_scene"})

_generation = [0]
_kept: dict[tuple[int, str], tuple[tuple, Any]] = {}   # (scene pointer, purpose) -> (key, reading)
_own: list[tuple[int, str]] = []   # the reading the add-on is writing from (own_writes)
_readers: dict[bool, tuple] = {}   # at_frame -> (attrgetter of the settings, array, data-block indices)


def _plain(value) -> int:
    """A data-block by identity (never kept itself: undo may free it)."""
    return 0 if value is None else value.as_pointer()


def _settings(ob, at_frame: bool) -> tuple:
    """The object's mechanism settings a reading depends on (one attrgetter call; arrays
    as tuples, data-blocks by identity)."""
    s = ob.mechanism
    if at_frame not in _readers:
        skip = SHOWN if at_frame else DESIGN_SKIP
        props = [p for p in s.bl_rna.properties if p.identifier not in skip]
        _readers[at_frame] = (attrgetter(*(p.identifier for p in props)),
                              [k for k, p in enumerate(props) if getattr(p, "is_array", False)],
                              [k for k, p in enumerate(props) if p.type == "POINTER"])
    get, arrays, blocks = _readers[at_frame]
    values = list(get(s))
    for k in arrays:
        values[k] = tuple(values[k])
    for k in blocks:
        values[k] = _plain(values[k])
    return tuple(values)


def _placement(ob, at_frame: bool) -> tuple:
    """Where a reading takes the object: as it stands (at a frame), or as designed (a part's
    design matrix, any other object's placement on its parent)."""
    if at_frame:
        return ob.matrix_world.copy().freeze(), ob.matrix_parent_inverse.copy().freeze()
    if ob.mechanism.role == "PART":
        return tuple(design_matrix(ob).ravel())
    return tuple(x for m in (ob.matrix_basis, ob.matrix_parent_inverse) for row in m for x in row)


def _evaluated(ob, layer) -> tuple:
    """What decides whether Blender evaluates the object (its modifiers applied to the mesh
    a reading takes): Disable in Viewports, its collections', and its view layer's
    membership (an excluded collection's objects are not in it)."""
    return (ob.hide_viewport, tuple(c.hide_viewport for c in ob.users_collection),
            layer.get(ob.name) is not None)


def _hung_from(ob, at_frame: bool) -> tuple:
    """The chain of objects a curve hangs from up to its part (or the top): each one's
    identity, parenting and placement.  The curve is read through them (its design world
    matrix, curve_reader.design_world), and none of them need be tagged: an Empty between
    a slot and its part, moved, moves the slot the joint follows."""
    chain = []
    up = ob
    while up.parent is not None and up.parent.mechanism.role != "PART":
        chain.append((_plain(up.parent), up.parent_type))
        up = up.parent
        chain.append(_placement(up, at_frame))
    if up.parent is not None:
        chain.append((_plain(up.parent), up.parent_type))
    return tuple(chain)


def fingerprint(scene, at_frame: bool) -> tuple:
    """What a reading of the scene depends on (module docstring), cheaply; for ``at_frame``
    the depsgraph must be evaluated (view_layer.update) for the world matrices to be
    current."""
    tagged = [ob for ob in scene.objects if ob.mechanism.role != "NONE"]
    curves = [c for ob in tagged if ob.mechanism.role == "JOINT"
              for c in (ob.mechanism.curve, ob.mechanism.follower_curve) if c is not None]
    layer = bpy.context.view_layer.objects
    objects = tuple((ob.as_pointer(), ob.name, _plain(ob.parent), _plain(ob.data),
                     _settings(ob, at_frame), _placement(ob, at_frame), _evaluated(ob, layer))
                    for ob in tagged)
    shapes = tuple((c.as_pointer(), _plain(c.data), _placement(c, at_frame), _hung_from(c, at_frame))
                   for c in curves)
    u = scene.unit_settings         # (the reading's notes are in the Length and Mass units)
    units = (u.scale_length, u.system, u.length_unit, u.mass_unit, u.system_rotation)
    world = (scene.use_gravity, tuple(scene.gravity), scene.render.fps, scene.render.fps_base,
             tuple((c.name, c.value) for c in scene.mechanism.constants))
    frame = (scene.frame_start, scene.frame_end, scene.frame_current if at_frame else None)
    return (scene.as_pointer(), units, world, frame, _generation[0], objects, shapes)


def kept_or_made(scene, purpose: str, make: Callable[[Any], Any], at_frame: bool,
                 keep: bool | Callable[[Any], bool] = True) -> Any:
    """The reading kept for (scene, purpose) if nothing it depends on has changed, else
    ``make(scene)``, kept unless ``keep`` is False or says False of it (a posing is kept
    once it has written its pose: ``remember``; a bake's reading that samples a followed
    object is not kept)."""
    if at_frame:
        bpy.context.view_layer.update()
    key = fingerprint(scene, at_frame)
    slot = (scene.as_pointer(), purpose)
    entry = _kept.get(slot)
    if entry is not None and entry[0] == key:
        return entry[1]
    _kept.pop(slot, None)
    value = make(scene)
    if keep(value) if callable(keep) else keep:
        _kept[slot] = (key, value)
    return value


def remember(scene, purpose: str, value: Any, at_frame: bool) -> None:
    """Keep ``value`` for (scene, purpose) as the scene now stands (after it wrote a pose)."""
    if at_frame:
        bpy.context.view_layer.update()
    _kept[(scene.as_pointer(), purpose)] = (fingerprint(scene, at_frame), value)


def kept(scene, purpose: str) -> Any:
    """The reading kept for (scene, purpose) (None: none), without checking it."""
    entry = _kept.get((scene.as_pointer(), purpose))
    return None if entry is None else entry[1]


def drop(scene, purpose: str) -> None:
    """No reading kept for (scene, purpose) any more (one that has moved on from the scene:
    a pose it solved and could not write)."""
    _kept.pop((scene.as_pointer(), purpose), None)


def forget() -> None:
    _kept.clear()


@contextmanager
def own_writes(scene, purpose: str) -> Iterator[None]:
    """Inside: the add-on writes what it read for (scene, purpose) back into the scene (a
    bake's keys and plots, which no reading of the design depends on); the updates these
    writes make end every other kept reading but not this one.  Changes made before (the
    user's, during a long solve) are evaluated first and end readings as usual; the
    writes' own are evaluated before leaving, while they are known as the add-on's."""
    bpy.context.view_layer.update()
    _own[:] = [(scene.as_pointer(), purpose)]
    try:
        yield
        bpy.context.view_layer.update()
    finally:
        _own.clear()


@bpy.app.handlers.persistent
def _on_depsgraph(scene, depsgraph) -> None:
    """A change of geometry or of a data-block other than an object or a scene (a mesh, a
    curve, an action) ends every kept reading."""
    if not _kept:
        return
    if _own:                          # the add-on's own writes (own_writes)
        for slot in [slot for slot in _kept if slot not in _own]:
            del _kept[slot]
        return
    for update in depsgraph.updates:
        if update.is_updated_geometry or not isinstance(update.id, (bpy.types.Object, bpy.types.Scene)):
            _generation[0] += 1
            _kept.clear()
            return


@bpy.app.handlers.persistent
def _on_reload(*_args) -> None:
    forget()


_HANDLERS = (("depsgraph_update_post", _on_depsgraph), ("undo_post", _on_reload),
             ("redo_post", _on_reload), ("load_post", _on_reload))


def register() -> None:
    for name, fn in _HANDLERS:
        getattr(bpy.app.handlers, name).append(fn)


def unregister() -> None:
    for name, fn in _HANDLERS:
        handlers = getattr(bpy.app.handlers, name)
        if fn in handlers:
            handlers.remove(fn)
    forget()
