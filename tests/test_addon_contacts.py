"""The Contact role in real Blender: Add Contact on two selected parts, the shapes from the
parts' meshes, save and reload, a deleted part and an open mesh named."""
from __future__ import annotations

import pytest

import blender_scenes as bs


def ball_drop(bpy, shape: str = "SPHERE", height: float = 0.5, radius: float = 0.05,
              restitution: float = 0.8) -> dict:
    """A ball (a UV sphere of ``radius``, 32 segments, 16 rings) or a cube of edge 2 x
    ``radius`` (``shape`` "MESH") with its centre at ``height`` above a ground box 1 x 1 x
    0.2 whose top face is at z = 0; Add Contact with the ball active (Part A: shape
    ``shape``, the ground Floor) and ``restitution``; analysis Dynamic."""
    scene = bpy.context.scene
    scene.mechanism.analysis = "DYNAMIC"
    ground = bs.add_box(bpy, "floor", (1.0, 1.0, 0.2), (0.0, 0.0, -0.1))
    if shape == "MESH":
        ball = bs.add_box(bpy, "ball", (2 * radius,) * 3, (0.0, 0.0, height))
    else:
        bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=radius,
                                             location=(0.0, 0.0, height))
        ball = bpy.context.active_object
        ball.name = ball.data.name = "ball"
    bs.tag(bpy, [ground, ball], "PART")
    ground.mechanism.ground = True
    bs.select(bpy, (ground, ball), ball)
    before = set(bpy.data.objects)
    assert bpy.ops.mechanism.add_contact() == {"FINISHED"}
    contact, = set(bpy.data.objects) - before
    c = contact.mechanism
    c.contact_shape_a, c.contact_restitution = shape, restitution
    return {"ground": ground, "ball": ball, "contact": contact}


def test_add_contact_names_the_two_parts_and_picks_their_shapes(blender) -> None:
    """Add Contact with the ball active: the ball is Part A (Mesh), the ground part Part B
    (Floor); the new Contact object is active; the solver is given the contact."""
    bpy = blender
    scene = ball_drop(bpy, shape="MESH")
    c = scene["contact"]
    s = c.mechanism
    assert s.role == "CONTACT" and c.type == "EMPTY"
    assert (s.contact_part_a, s.contact_part_b) == (scene["ball"], scene["ground"])
    assert (s.contact_shape_a, s.contact_shape_b) == ("MESH", "FLOOR")
    assert bpy.context.active_object == c
    assert ("operator", "mechanism.add_contact") in bs.panel_items(bpy, "VIEW3D_PT_mechanism")
    bs.select(bpy, (scene["ball"],), scene["ball"])
    assert not bpy.ops.mechanism.add_contact.poll()
    assert bpy.ops.mechanism.check() == {"FINISHED"}


def test_a_contact_survives_save_and_reload_and_names_a_deleted_part(blender, tmp_path) -> None:
    bpy = blender
    scene = ball_drop(bpy, restitution=0.7)
    scene["contact"].mechanism.contact_friction = 0.4
    path = str(tmp_path / "contact.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    c = bpy.data.objects["Contact ball-floor"]
    s = c.mechanism
    assert s.role == "CONTACT" and s.contact_part_a.name == "ball"
    assert (s.contact_shape_a, s.contact_shape_b) == ("SPHERE", "FLOOR")
    assert s.contact_restitution == pytest.approx(0.7) and s.contact_friction == pytest.approx(0.4)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    bpy.data.objects.remove(bpy.data.objects["floor"])
    with pytest.raises(RuntimeError, match="contact 'Contact ball-floor': Part B is not set, "
                                           "was deleted or is no longer a part"):
        bpy.ops.mechanism.check()


def test_an_open_mesh_and_a_floor_on_a_moving_part_are_named(blender) -> None:
    """A cube with its top face deleted as a Mesh shape: the solver's error names the
    contact, the side and the part, and the open edge; Floor on the moving ball is refused."""
    bpy = blender
    import bmesh                      # Blender's module: importable once bpy is
    scene = ball_drop(bpy, shape="MESH")
    me = scene["ball"].data
    bm = bmesh.new()
    bm.from_mesh(me)
    top = max(bm.faces, key=lambda f: f.calc_center_median().z)
    bmesh.ops.delete(bm, geom=[top], context="FACES_ONLY")
    bm.to_mesh(me)
    bm.free()
    with pytest.raises(RuntimeError, match="contact 'Contact ball-floor': Shape A, part 'ball' "
                                           "mesh: the mesh is not closed"):
        bpy.ops.mechanism.check()
    scene["contact"].mechanism.contact_shape_a = "FLOOR"
    with pytest.raises(RuntimeError, match="Shape A, part 'ball': Floor is for a ground part"):
        bpy.ops.mechanism.check()
