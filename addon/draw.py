"""Viewport overlay: each baked joint's reaction force as an arrow at its marker I (the
current frame's value; length proportional to the force).  The geometry is plain numpy
(``arrow_segments``) so it is tested without a GPU; drawing only runs in a viewport."""
from __future__ import annotations

import bpy
import numpy as np

_handler = None
ARROW_SCALE = 0.01     # Blender units per newton


def arrow_segments(origin: np.ndarray, vector: np.ndarray, head: float = 0.2) -> np.ndarray:
    """Line segments (6, 3) of an arrow from ``origin`` along ``vector``: the shaft and two
    head strokes of ``head`` times its length, in a plane containing the shaft."""
    origin, vector = np.asarray(origin, float), np.asarray(vector, float)
    tip = origin + vector
    n = float(np.linalg.norm(vector))
    if n == 0.0:
        return np.array([origin, origin])
    d = vector / n
    side = np.cross(d, [0.0, 0.0, 1.0] if abs(d[2]) < 0.9 else [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side)
    back = tip - head * n * d
    return np.array([origin, tip, tip, back + 0.5 * head * n * side, tip, back - 0.5 * head * n * side])


def _draw() -> None:
    import gpu
    from gpu_extras.batch import batch_for_shader
    scene = bpy.context.scene
    if scene is None:
        return
    lines = []
    for ob in scene.objects:
        s = ob.mechanism
        if s.role != "JOINT" or not s.baked or s.marker_i is None or "reaction_force_x" not in ob:
            continue
        f = np.array([ob["reaction_force_x"], ob["reaction_force_y"], ob["reaction_force_z"]])
        lines.append(arrow_segments(np.array(s.marker_i.matrix_world.translation), f * ARROW_SCALE))
    if not lines:
        return
    shader = gpu.shader.from_builtin("UNIFORM_COLOR")
    batch = batch_for_shader(shader, "LINES", {"pos": np.concatenate(lines).astype(np.float32)})
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
