"""The wiggle sliders' pose session kept from one slider change to the next (drag.py).

Reading the scene (every part's mesh for its mass, the curves, the keyframed motions) and
compiling the model cost far more than posing; a slider dragged through many values would
pay it at every change.  So the session (the read scene, the compiled model and its
``Poser`` at the pose it wrote last) is kept per scene with a fingerprint of what the
reading depends on, and used again while the fingerprint is the same:

- the scene's frame (motions are held at its time), frame rate, unit scale and gravity;
- every tagged object (and every curve a curve joint reads): its identity, world and
  parent-inverse matrices, parent, data-block and all its mechanism settings (a setting
  change is no depsgraph update: the settings are compared themselves);
- a generation count that the depsgraph handler bumps for any change of geometry or of a
  data-block other than an object or the scene (a mesh or curve edited, a modifier, a
  keyframe moved).  A slider's own writes move parts and markers only (transform updates).

After a slider change writes the pose, ``remember`` takes the fingerprint of the scene as
written, so the next change finds it unchanged; a part moved by hand, an edited mesh or a
changed setting makes a new session.  Undo, redo and loading a file drop every session
(their objects may be new).
"""
from __future__ import annotations

from operator import attrgetter

import bpy

SKIP = frozenset({"rna_type", "computed_mass", "computed_inertia", "computed_density",
                  "mesh_warning", "curve_fit", "curve_fit_key", "wiggle_angle",
                  "wiggle_slide"})                                 # shown, not read

_generation = [0]
_sessions: dict[int, tuple[tuple, object]] = {}     # scene pointer -> (fingerprint, session)
_reader: list = []          # (attrgetter of the settings, array indices, data-block indices)


def _plain(value):
    """A data-block by identity (never kept itself: undo may free it)."""
    return 0 if value is None else value.as_pointer()


def _settings(ob) -> tuple:
    """Every mechanism setting of the object (one attrgetter call; arrays as tuples,
    data-blocks by identity)."""
    s = ob.mechanism
    if not _reader:
        props = [p for p in s.bl_rna.properties if p.identifier not in SKIP]
        _reader.extend((attrgetter(*(p.identifier for p in props)),
                        [k for k, p in enumerate(props) if getattr(p, "is_array", False)],
                        [k for k, p in enumerate(props) if p.type == "POINTER"]))
    get, arrays, blocks = _reader
    values = list(get(s))
    for k in arrays:
        values[k] = tuple(values[k])
    for k in blocks:
        values[k] = _plain(values[k])
    return tuple(values)


def fingerprint(scene) -> tuple:
    """What a pose session read from the scene, cheaply (module docstring); the depsgraph
    must be evaluated (view_layer.update) for the world matrices to be current."""
    tagged = [ob for ob in scene.objects if ob.mechanism.role != "NONE"]
    curves = [c for ob in tagged if ob.mechanism.role == "JOINT"
              for c in (ob.mechanism.curve, ob.mechanism.follower_curve) if c is not None]
    objects = tuple((ob.as_pointer(), ob.name, ob.matrix_world.copy(),
                     ob.matrix_parent_inverse.copy(), _plain(ob.parent), _plain(ob.data),
                     _settings(ob)) for ob in tagged)
    shapes = tuple((c.as_pointer(), c.matrix_world.copy(), _plain(c.data)) for c in curves)
    units = (scene.unit_settings.scale_length, scene.unit_settings.system)   # (a typed Mass's unit)
    return (scene.as_pointer(), scene.frame_current, scene.frame_start, scene.render.fps,
            scene.render.fps_base, units, scene.use_gravity, tuple(scene.gravity),
            _generation[0], objects, shapes)


def session(scene, make):
    """The scene's kept session if nothing it read has changed, else ``make(scene)`` (kept
    once it has written a pose: ``remember``)."""
    bpy.context.view_layer.update()
    kept = _sessions.get(scene.as_pointer())
    if kept is not None and kept[0] == fingerprint(scene):
        return kept[1]
    _sessions.pop(scene.as_pointer(), None)
    return make(scene)


def remember(scene, pose_session) -> None:
    """Keep ``pose_session`` for the scene as it now stands (after it wrote its pose)."""
    bpy.context.view_layer.update()
    _sessions[scene.as_pointer()] = (fingerprint(scene), pose_session)


def kept(scene):
    """The session kept for the scene (None: none), without checking it."""
    entry = _sessions.get(scene.as_pointer())
    return None if entry is None else entry[1]


def forget() -> None:
    _sessions.clear()


@bpy.app.handlers.persistent
def _on_depsgraph(scene, depsgraph) -> None:
    """A change of geometry or of a data-block other than an object or a scene (a mesh, a
    curve, an action) ends every kept session."""
    if not _sessions:
        return
    for update in depsgraph.updates:
        if update.is_updated_geometry or not isinstance(update.id, (bpy.types.Object, bpy.types.Scene)):
            _generation[0] += 1
            _sessions.clear()
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
