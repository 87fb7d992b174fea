"""Viewport overlay: each baked joint's reaction force as an arrow at its marker I and each
baked contact's force on its Part A at its contact point (the current frame's values;
length proportional to the force, the same scale for both), for each selected coupler a
line joining the joints it ties (their marker I origins), and for each selected joint with
stops the range they allow at its marker J (an arc about J's z axis, or a segment along
it).  The geometry is io/arrows.py, io/couplers.py and io/limits.py, tested without Blender
or a GPU; drawing only runs in a viewport."""
from __future__ import annotations

import bpy
import numpy as np

from .coupling import joint_origin, used_joints
from .curve_reader import metres_per_unit
from .io.arrows import contact_arrow, force_arrows
from .io.couplers import tie_lines
from .io.limits import limit_bounds, limit_lines
from .scene_reader import limit_settings

_handler = None


def _draw() -> None:
    import gpu
    from gpu_extras.batch import batch_for_shader
    scene = bpy.context.scene
    if scene is None:
        return
    ties = [[joint_origin(j) for j in used_joints(ob) if j is not None]
            for ob in bpy.context.selected_objects if ob.mechanism.role == "COUPLER"]
    shader = gpu.shader.from_builtin("UNIFORM_COLOR")
    for lines, color in ((force_lines(scene), (1.0, 0.4, 0.1, 1.0)),
                         (tie_lines(ties), (0.2, 0.8, 1.0, 1.0)),
                         (selected_limit_lines(bpy.context.selected_objects), (1.0, 0.85, 0.1, 1.0))):
        if len(lines):
            batch = batch_for_shader(shader, "LINES", {"pos": lines})
            shader.uniform_float("color", color)
            batch.draw(shader)


def force_lines(scene) -> np.ndarray:
    """LINES vertices (Blender units) of the arrows of ``baked_arrows``: io/arrows.py's
    ARROW_SCALE metres per newton at the scene's Unit Scale."""
    return force_arrows(*baked_arrows(scene), metres_per_unit(scene))


def baked_arrows(scene) -> tuple[list, list]:
    """(origins (3,) world, Blender units; forces (3,) N) of the arrows at the current
    frame: each baked joint's reaction at its marker I, each baked contact's force on Part A
    at its contact point (io/arrows.contact_arrow)."""
    origins, forces = [], []
    scale = metres_per_unit(scene)
    for ob in scene.objects:
        s = ob.mechanism
        if not s.baked:
            continue
        if s.role == "JOINT" and s.marker_i is not None and "reaction_force_x" in ob:
            forces.append(np.array([ob["reaction_force_x"], ob["reaction_force_y"],
                                    ob["reaction_force_z"]]))
            origins.append(np.array(s.marker_i.matrix_world.translation))
        elif s.role == "CONTACT":
            arrow = contact_arrow(ob, scale)
            if arrow is not None:
                origins.append(arrow[0])
                forces.append(arrow[1])
    return origins, forces


def selected_limit_lines(objects) -> np.ndarray:
    """LINES vertices of the range of every selected joint with stops, at its marker J
    (io/limits.limit_lines; the arc's radius the marker's display size, at least 0.05 m, or
    0.25 m for a marker not an Empty)."""
    out = []
    unit = metres_per_unit(bpy.context.scene)
    for ob in objects:
        s = ob.mechanism
        if s.role != "JOINT" or s.marker_j is None or s.joint_kind not in ("REVOLUTE", "PRISMATIC",
                                                                            "CYLINDRICAL"):
            continue
        coord, lower, upper = limit_bounds(limit_settings(s))
        mj = s.marker_j
        size = max(mj.empty_display_size, 0.05 / unit) if mj.type == "EMPTY" else 0.25 / unit
        out.append(limit_lines(np.array(mj.matrix_world, dtype=float), coord, lower, upper, size))
    return np.concatenate(out) if out else np.zeros((0, 3), np.float32)


def register() -> None:
    global _handler
    if _handler is None and not bpy.app.background:
        _handler = bpy.types.SpaceView3D.draw_handler_add(_draw, (), "WINDOW", "POST_VIEW")


def unregister() -> None:
    global _handler
    if _handler is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_handler, "WINDOW")
        _handler = None
