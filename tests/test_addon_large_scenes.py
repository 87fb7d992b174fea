"""Large scenes in real Blender: what a user waits for grows with the scene no faster than
the work itself (a bake of hundreds of parts, then Clear Bake)."""
from __future__ import annotations

import math
import time

import pytest

CUBE = ([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)],
        [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)])


def driven_arms(bpy, n: int):
    """A ground bar and ``n`` arms, each on a pin about world y driven by sin(2 pi t), made
    through bpy.data (the operators would evaluate the scene at every marker, which is not
    what is measured): 3 n + 1 objects tagged, over frames 1-2."""
    from mathutils import Matrix
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 2
    mesh = bpy.data.meshes.new("cube")
    mesh.from_pydata(*CUBE[:1], [], CUBE[1])

    def obj(name, data, matrix, parent=None):
        ob = bpy.data.objects.new(name, data)
        scene.collection.objects.link(ob)
        if parent is not None:
            ob.parent = parent
            ob.matrix_parent_inverse = parent.matrix_basis.inverted()
        ob.matrix_basis = matrix
        return ob
    pin = Matrix.Rotation(-math.pi / 2, 4, "X")           # z along world y
    base = obj("Base", mesh, Matrix.LocRotScale((n * 0.15, 0, -0.1), None, (n * 0.3, 0.2, 0.1)))
    base.mechanism.role, base.mechanism.ground = "PART", True
    for k in range(n):
        at = Matrix.Translation((k * 0.3, 0, 0))
        arm = obj(f"Arm{k}", mesh, Matrix.LocRotScale((k * 0.3 + 0.125, 0, 0), None,
                                                       (0.25, 0.02, 0.02)))
        arm.mechanism.role = "PART"
        mi, mj = obj(f"Arm{k}.pin", None, at @ pin, arm), obj(f"Base.pin{k}", None, at @ pin, base)
        mi.mechanism.role = mj.mechanism.role = "MARKER"
        joint = obj(f"Pin{k}", None, at)
        s = joint.mechanism
        s.role, s.joint_kind, s.marker_i, s.marker_j = "JOINT", "REVOLUTE", mi, mj
        s.motion_type, s.motion_coordinate = "EXPRESSION", "ANGLE"
        s.motion_expression = "sin(2*pi*t)"
    bpy.context.view_layer.update()


@pytest.mark.slow
def test_clear_bake_of_many_parts_takes_less_than_their_bake(blender) -> None:
    """500 driven arms baked (1,501 objects read, 1,000 baked: each arm's keys, each pin's
    plots), then Clear Bake: it takes less than half the bake's time, measured beside it
    (both one pass over the objects; a machine's load slows both alike).  Clear Bake
    removed each bake action on its own, and each removal looks through every data-block
    for users: 800 baked objects took 3.4 s to clear against a 1.5 s bake (200: 0.33 s);
    here it took 1.4 times the bake, and one removal of them all about 0.2 of it."""
    bpy = blender
    driven_arms(bpy, 500)
    start = time.perf_counter()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    baked = time.perf_counter() - start
    assert sum(ob.mechanism.baked for ob in bpy.data.objects) == 1000
    start = time.perf_counter()
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    cleared = time.perf_counter() - start
    assert not any(ob.mechanism.baked for ob in bpy.data.objects)
    assert not [a.name for a in bpy.data.actions if a.name.startswith("MA bake")]
    assert cleared < 0.5 * baked, (cleared, baked)
