"""The Contact role in real Blender: Add Contact on two selected parts, the shapes from the
parts' meshes, save and reload, a deleted part and an open mesh named."""
from __future__ import annotations

import numpy as np
import pytest

import blender_scenes as bs


def ball_drop(bpy, shape: str = "SPHERE", height: float = 0.5, radius: float = 0.05,
              restitution: float = 0.8, unit: float = 1.0) -> dict:
    """A ball (a UV sphere of ``radius``, 32 segments, 16 rings) or a cube of edge 2 x
    ``radius`` (``shape`` "MESH") with its centre at ``height`` above a ground box 1 x 1 x
    0.2 whose top face is at z = 0; Add Contact with the ball active (Part A: shape
    ``shape``, the ground Floor) and ``restitution``; analysis Dynamic.  Lengths in metres,
    built in Blender units of ``unit`` metres (the scene's Unit Scale; gravity 9.81 m/s^2)."""
    scene = bpy.context.scene
    scene.mechanism.analysis = "DYNAMIC"
    scene.unit_settings.scale_length = unit
    scene.gravity = (0.0, 0.0, -9.81 / unit)
    ground = bs.add_box(bpy, "floor", (1.0 / unit, 1.0 / unit, 0.2 / unit), (0.0, 0.0, -0.1 / unit))
    if shape == "MESH":
        ball = bs.add_box(bpy, "ball", (2 * radius / unit,) * 3, (0.0, 0.0, height / unit))
    else:
        bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=radius / unit,
                                             location=(0.0, 0.0, height / unit))
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


G = 9.81          # m/s^2: the factory scene's gravity
TAU = 0.01        # s: the solver's default contact time (Stiffness 0)


def test_a_ball_dropped_on_the_floor_bounces_with_its_restitution(blender) -> None:
    """A UV sphere (Sphere fitted: radius 0.05) dropped from rest at 0.5 m onto the Floor,
    e = 0.8, 24 fps over 1 s.  It lands at v_in = sqrt(2 g (0.5 - 0.05)); its rebound flight
    is a parabola through the baked keys (its curvature g / 2 to 1e-4 of it: float32 keys
    fitted by least squares), whose speed where it leaves the floor (z = radius) gives
    v_out = sqrt(c1^2 - 4 c2 (c0 - r)).  v_out / v_in is the restitution within 0.05 (the
    solver's own test's tolerance: Flores et al. 2011's damping is approximate) and the
    independent integration of the same law (the linear spring K = m (pi / tau)^2, a
    fixed floor) within 1e-5 (the run's tolerance 1e-6 and the fit of float32 keys; 7e-7
    measured)."""
    from test_contact import flores_rebound
    bpy = blender
    bs.set_range(bpy, 1, 25)
    scene = ball_drop(bpy, restitution=0.8)
    ball, contact = scene["ball"], scene["contact"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    t = (bs.curve(ball, "location", 2)[:, 0] - 1.0) / 24.0
    z = bs.curve(ball, "location", 2)[:, 1]
    r, h0 = 0.05, 0.5
    v_in = np.sqrt(2.0 * G * (h0 - r))
    land = v_in / G
    np.testing.assert_allclose(z[t < land], h0 - 0.5 * G * t[t < land] ** 2, atol=1e-6)
    flight = (t > land + 2 * TAU) & (t < land + 0.4)
    assert flight.sum() >= 8
    c2, c1, c0 = np.polyfit(t[flight] - land, z[flight], 2)
    assert c2 == pytest.approx(-G / 2, rel=1e-4)
    v_out = np.sqrt(c1 * c1 - 4.0 * c2 * (c0 - r))
    assert v_out / v_in == pytest.approx(0.8, abs=0.05)
    m = ball.mechanism.computed_mass
    K = m * (np.pi / TAU) ** 2
    assert v_out / v_in == pytest.approx(flores_rebound(0.8, K, 1.0, m, v_in, G), abs=1e-5)
    pen = bs.curve(contact, '["part_contact_penetration"]')[:, 1]
    assert np.all(pen[flight] == 0.0) and np.all(pen >= 0.0)
    assert contact.mechanism.baked and "part_contact_force_z" in contact.keys()
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not contact.mechanism.baked and "part_contact_force_z" not in contact.keys()


@pytest.mark.parametrize("unit", [1.0, 0.001])
def test_a_cube_mesh_settles_on_the_floor(blender, tmp_path, unit) -> None:
    """A cube of edge 0.1 (Mesh shape) dropped from 2 cm above the Floor, e = 0.5, comes to
    rest on it within a second: its bottom face's contact points (vertices and face
    centres, the solver's samples of the same triangles, weight w of the whole surface's 1)
    carry its weight on the linear spring K = m (pi / tau)^2, so it rests at the depth
    d = m g / (K w) = g tau^2 / (pi^2 w) (0.6 mm here), its lowest vertex that far below
    the floor's top (1e-6 m: float32 keys on 0.07 m, and the damped rest oscillation,
    about e^-9 of its start by then).  The baked force holds its weight (1e-3 of it); Plot
    shows the five baked curves; Export CSV has the contact's columns.  The same in a
    millimetre scene (Unit Scale 0.001: the mesh and the keys in mm, the rest SI)."""
    from solver import Shape
    bpy = blender
    bs.set_range(bpy, 1, 25)
    scene = ball_drop(bpy, shape="MESH", height=0.07, restitution=0.5, unit=unit)
    ball, contact = scene["ball"], scene["contact"]
    me = ball.data
    me.calc_loop_triangles()
    V = np.array([v.co for v in me.vertices]) * 0.1            # m: the object's scale 0.1 m
    F = np.array([tuple(t.vertices) for t in me.loop_triangles])
    points, weights, _ = Shape.mesh(V, F).samples()
    w = weights[np.isclose(points[:, 2], -0.05)].sum()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    depth = G * TAU ** 2 / (np.pi ** 2 * w)
    z = bs.curve(ball, "location", 2)[:, 1] * unit             # m
    assert z[-1] - 0.05 == pytest.approx(-depth, abs=1e-6)
    assert z[-4:] == pytest.approx([z[-1]] * 4, abs=1e-6)
    pen = bs.curve(contact, '["part_contact_penetration"]')[-1, 1]
    assert pen == pytest.approx(depth, abs=1e-6)
    weight = ball.mechanism.computed_mass * G
    assert bs.curve(contact, '["part_contact_force_z"]')[-1, 1] == pytest.approx(weight, rel=1e-3)
    assert bs.curve(contact, '["part_contact_force"]')[-1, 1] == pytest.approx(weight, rel=1e-3)
    assert bpy.ops.mechanism.plot(name=contact.name) == {"FINISHED"}
    shown = {fc.data_path for fc in bs.channelbag(contact).fcurves if fc.select and not fc.hide}
    assert shown == {'["part_contact_force_x"]', '["part_contact_force_y"]',
                     '["part_contact_force_z"]', '["part_contact_force"]',
                     '["part_contact_penetration"]'}
    path = tmp_path / "drop.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(path)) == {"FINISHED"}
    header, *rows = [line.split(",") for line in path.read_text().splitlines()]
    col = header.index("Contact ball-floor part_contact_penetration_m")
    assert float(rows[-1][col]) == pytest.approx(depth, abs=1e-6)
    assert "Contact ball-floor part_contact_Fz_N" in header


@pytest.mark.parametrize("turn", [(0.0, 0.0, 0.0), (3.141592653589793, 0.0, 0.7)])
def test_check_names_parts_that_overlap_at_the_start(blender, turn) -> None:
    """The ball's centre 4 cm above the floor (radius 5 cm): Check's report names the
    contact, its parts and the 1 cm overlap; 6 cm above, none.  The same with the slab
    turned upside down (its own z axis pointing down): the Floor is its top face along
    world up."""
    bpy = blender
    scene = ball_drop(bpy, height=0.04)
    scene["ground"].rotation_euler = turn
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert ("contact 'Contact ball-floor': parts 'ball' and 'floor' overlap by 0.01 m"
            in report), report
    scene["ball"].location.z = 0.06
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "overlap" not in bpy.context.scene.mechanism.report
