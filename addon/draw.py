"""Viewport overlay: each baked joint's reaction force as an arrow at its marker I (the
current frame's value; length proportional to the force).  The geometry is io/arrows.py,
tested without Blender or a GPU; drawing only runs in a viewport."""
from __future__ import annotations

import bpy
import numpy as np

from .io.arrows import force_arrows

_handler = None


def _draw() -> None:
    import gpu
    from gpu_extras.batch import batch_for_shader
    scene = bpy.context.scene
    if scene is None:
        return
    origins, forces = [], []
    for ob in scene.objects:
        s = ob.mechanism
        if s.role != "JOINT" or not s.baked or s.marker_i is None or "reaction_force_x" not in ob:
            continue
        forces.append([ob["reaction_force_x"], ob["reaction_force_y"], ob["reaction_force_z"]])
        origins.append(np.array(s.marker_i.matrix_world.translation))
    if not origins:
        return
    shader = gpu.shader.from_builtin("UNIFORM_COLOR")
    batch = batch_for_shader(shader, "LINES", {"pos": force_arrows(origins, forces)})
    shader.uniform_float("color", (1.0, 0.4, 0.1, 1.0))
    batch.draw(shader)


def register() -> None:
    global _handler
    if _handler is None and not bpy.app.background:
        _handler = bpy.types.SpaceView3D.draw_handler_add(_draw, (), "WINDOW", "POST_VIEW")


def unregister() -> None:
    global _handler
    if _handler is not None:
        bpy.types.SpaceView3D.draw_handler_remove(_handler, "WINDOW")
        _handler = None
