"""The Contact role in real Blender: Add Contact on two selected parts, the shapes from the
parts' meshes, save and reload, a deleted part and an open mesh named."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

import blender_scenes as bs


def added_contact(bpy, part_a, part_b):
    """Add Contact with ``part_a`` active and ``part_b`` selected: the new Contact object."""
    bs.select(bpy, (part_b, part_a), part_a)
    before = set(bpy.data.objects)
    assert bpy.ops.mechanism.add_contact() == {"FINISHED"}
    contact, = set(bpy.data.objects) - before
    return contact


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
    contact = added_contact(bpy, ball, ground)
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
    """A cube (edge 0.1, centre 0.07 above the floor) with its top face deleted as a Mesh
    shape: refused naming the contact, the side and the part, the four open edges, the
    first one's vertices at the cube's top (z = 0.12, world) and how to close it; a refused
    Bake changes nothing; Floor on the moving ball is refused."""
    bpy = blender
    import bmesh                      # Blender's module: importable once bpy is
    scene = ball_drop(bpy, shape="MESH", height=0.07)
    me = scene["ball"].data
    bm = bmesh.new()
    bm.from_mesh(me)
    top = max(bm.faces, key=lambda f: f.calc_center_median().z)
    bmesh.ops.delete(bm, geom=[top], context="FACES_ONLY")
    bm.to_mesh(me)
    bm.free()
    with pytest.raises(RuntimeError, match="contact 'Contact ball-floor': Shape A, part 'ball' "
                                           "mesh: the mesh is not closed: 4 edge") as err:
        bpy.ops.mechanism.check()
    # the top face's edges, at the cube's top corners (world, Blender units), and the remedy
    assert "Non Manifold" in str(err.value) and "(world)" in str(err.value)
    assert "0.05, 0.12)" in str(err.value) or "-0.05, 0.12)" in str(err.value), str(err.value)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match="the mesh is not closed"):
        bpy.ops.mechanism.bake()
    assert bs.differences(before, bs.snapshot(bpy)) == []
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
def test_a_cube_mesh_settles_on_the_floor(blender, extension, tmp_path, unit) -> None:
    """A cube of edge 0.1 (Mesh shape) dropped from 2 cm above the Floor, e = 0.5, comes to
    rest on it within a second: its bottom face's contact points (vertices and face
    centres, the solver's samples of the same triangles, weight w of the whole surface's 1)
    carry its weight on the linear spring K = m (pi / tau)^2, so it rests at the depth
    d = m g / (K w) = g tau^2 / (pi^2 w) (0.6 mm here), its lowest vertex that far below
    the floor's top (1e-6 m: float32 keys on 0.07 m, and the damped rest oscillation,
    about e^-9 of its start by then).  The baked force holds its weight (1e-3 of it); Plot
    shows the six baked curves (the least gap, minus that depth, among them); Export CSV
    has the contact's columns; the viewport's arrows include the contact's force at its
    bottom face's centre, midway into the floor (Blender units: the point over Unit Scale).  The same in a
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
                     '["part_contact_penetration"]', '["contact_gap"]'}
    path = tmp_path / "drop.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(path)) == {"FINISHED"}
    header, *rows = [line.split(",") for line in path.read_text().splitlines()]
    col = header.index("Contact ball-floor part_contact_penetration_m")
    assert float(rows[-1][col]) == pytest.approx(depth, abs=1e-6)
    assert "Contact ball-floor part_contact_Fz_N" in header
    col = header.index("Contact ball-floor contact_gap_m")        # its least gap: the depth
    assert float(rows[-1][col]) == pytest.approx(-depth, abs=1e-6)
    bpy.context.scene.frame_set(25)
    origins, forces = extension.addon.draw.baked_arrows(bpy.context.scene)
    (origin, force), = [(o, f) for o, f in zip(origins, forces) if f[2] > 0.5 * weight]
    # the bottom face's touching points' centroid: its centre, each point midway between
    # the two surfaces (kernels/contacts.py), half the depth below the floor's top
    np.testing.assert_allclose(np.asarray(origin) * unit, [0.0, 0.0, -depth / 2], atol=1e-6)
    np.testing.assert_allclose(force, [0.0, 0.0, weight], rtol=1e-3, atol=1e-9 * weight)


def test_boxes_stacked_on_the_floor_rest_on_their_faces_with_the_defaults(blender) -> None:
    """A box 0.2 x 0.2 x 0.1 on the Floor and a cube of 0.1 on it, 1 mm apart at the start,
    each contact made by Add Contact with its defaults (Auto on the boxes: the meshes are
    boxes, read as Box).  After 2 s each rests on the face below within the contacts'
    compliance: the default stiffness (a 0.01 s contact on the reduced mass) and the four
    bottom corners' half of each box's weights give depths of 0.25 mm under these loads,
    so 1 mm bounds them; read as Profiles (their flat ends carry no contact points) each
    box would sink to its lower row of points, a quarter of its height (25 mm).  The floor
    carries both weights, the lower box the upper's (1e-3 of them: the rest is reached
    to well below that)."""
    bpy = blender
    bs.set_range(bpy, 1, 49)
    bpy.context.scene.mechanism.analysis = "DYNAMIC"
    floor = bs.add_box(bpy, "floor", (1.0, 1.0, 0.2), (0.0, 0.0, -0.1))
    low = bs.add_box(bpy, "low", (0.2, 0.2, 0.1), (0.0, 0.0, 0.051))
    top = bs.add_box(bpy, "top", (0.1, 0.1, 0.1), (0.02, 0.0, 0.152))
    bs.tag(bpy, [floor, low, top], "PART")
    floor.mechanism.ground = True
    on_floor, on_low = added_contact(bpy, low, floor), added_contact(bpy, top, low)
    for contact in (on_floor, on_low):
        contact.mechanism.contact_restitution = 0.3
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    z_low = bs.curve(low, "location", 2)[-1, 1]
    z_top = bs.curve(top, "location", 2)[-1, 1]
    assert -1e-3 < z_low - 0.05 < 0.0
    assert -1e-3 < (z_top - 0.05) - (z_low + 0.05) < 0.0
    m_low, m_top = low.mechanism.computed_mass, top.mechanism.computed_mass
    F_floor = bs.curve(on_floor, '["part_contact_force_z"]')[-1, 1]
    F_low = bs.curve(on_low, '["part_contact_force_z"]')[-1, 1]
    assert F_floor == pytest.approx((m_low + m_top) * G, rel=1e-3)
    assert F_low == pytest.approx(m_top * G, rel=1e-3)


def test_a_second_contact_on_the_same_parts_is_refused_or_noted(blender) -> None:
    """Add Contact on two parts a contact already joins (either way round) is refused
    naming that contact, nothing added; a second one made anyway (the first duplicated)
    adds its force to the first's, which Check notes naming both and the parts."""
    bpy = blender
    scene = ball_drop(bpy)
    ball, ground, contact = scene["ball"], scene["ground"], scene["contact"]
    before = len(bpy.data.objects)
    for active, other in ((ball, ground), (ground, ball)):
        bs.select(bpy, (other, active), active)
        with pytest.raises(RuntimeError, match=r"contact 'Contact ball-floor' already joins"):
            bpy.ops.mechanism.add_contact()
    assert len(bpy.data.objects) == before
    copy = contact.copy()
    bpy.context.scene.collection.objects.link(copy)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert (f"contacts 'Contact ball-floor', {copy.name!r} all join parts 'ball' and 'floor': "
            "their forces add") in bpy.context.scene.mechanism.report


@pytest.mark.parametrize("turn", [0.0, 3.141592653589793])
def test_a_puck_standing_on_the_floor_rests_on_its_end_face(blender, turn) -> None:
    """A cylinder (32 sides, radius 0.05, 0.04 thick) standing on its end 1 mm above the
    Floor (upright, or upside down: its z along world -z), Add Contact's defaults: read as
    a Profile (a prism along its z) its flat ends would carry no points and it would sink
    to its lower row of points, a quarter of its thickness (10 mm); against the Floor with
    its axis upright Auto takes its Mesh, which rests on its end face within the contact's
    compliance (under 1 mm: the default stiffness holds its weight at about 0.1 mm) and
    carries its weight (1e-3).  Made a Profile by hand, Check notes how far it sinks."""
    bpy = blender
    bs.set_range(bpy, 1, 25)
    bpy.context.scene.mechanism.analysis = "DYNAMIC"
    floor = bs.add_box(bpy, "floor", (1.0, 1.0, 0.2), (0.0, 0.0, -0.1))
    puck = bs.disc(bpy, "puck", 0.05, (0.0, 0.0, 0.021), depth=0.04)
    puck.rotation_euler = (turn, 0.0, 0.0)
    bs.tag(bpy, [floor, puck], "PART")
    floor.mechanism.ground = True
    contact = added_contact(bpy, puck, floor)
    contact.mechanism.contact_restitution = 0.3
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    z = bs.curve(puck, "location", 2)[-1, 1]
    assert -1e-3 < z - 0.02 < 0.0
    weight = puck.mechanism.computed_mass * G
    assert bs.curve(contact, '["part_contact_force_z"]')[-1, 1] == pytest.approx(weight, rel=1e-3)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    contact.mechanism.contact_shape_a = "PROFILE"
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert re.search(r"contact 'Contact puck-floor': Shape A, part 'puck': a Profile on its "
                     r"flat end on the Floor sinks 0\.01 m into it",
                     bpy.context.scene.mechanism.report), bpy.context.scene.mechanism.report


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


def swung_ball(bpy, unit: float = 1.0) -> dict:
    """A ball of radius r = 0.05 on an arm of R = 0.3 (its centre R from a pin about world y
    at the origin, starting on +x), turned by a motion at pi rad/s through a ground post
    (a box 0.9 x 0.4 x 0.5 whose top face is at z = -0.21: no face but the top is within
    0.1 of the ball's deepest centre); Sphere against Box, frames 1-25 at 24 fps
    (kinematic).  Lengths in metres, built in Blender units of ``unit`` metres."""
    scene = bpy.context.scene
    bs.set_range(bpy, 1, 25)
    scene.unit_settings.scale_length = unit
    post = bs.add_box(bpy, "post", (0.9 / unit, 0.4 / unit, 0.5 / unit), (0.0, 0.0, -0.46 / unit))
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=0.05 / unit,
                                         location=(0.3 / unit, 0.0, 0.0))
    ball = bpy.context.active_object
    ball.name = ball.data.name = "ball"
    bs.tag(bpy, [post, ball], "PART")
    post.mechanism.ground = True
    pin = bs.connect(bpy, ball, post, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    s = pin.mechanism
    s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", "pi*t"
    bs.select(bpy, (post, ball), ball)
    assert bpy.ops.mechanism.add_contact() == {"FINISHED"}
    contact = bpy.context.active_object
    contact.mechanism.contact_shape_a, contact.mechanism.contact_shape_b = "SPHERE", "BOX"
    return {"post": post, "ball": ball, "pin": pin, "contact": contact}


@pytest.mark.parametrize("unit", [1.0, 0.001])
def test_a_kinematic_bake_names_the_frames_a_motion_drives_parts_through(blender, extension,
                                                                         unit) -> None:
    """The swung ball's lowest point is R sin(theta) + r below the pin, theta = pi t, so its
    gap to the post's top is d - r - R sin(theta) with d = 0.21: negative (a clash) where
    sin(theta) > 0.16 / 0.3, frames 6 to 20 (theta = pi (k - 1) / 24), deepest R + r - d =
    0.14 m at frame 13 (theta = pi / 2).  The baked contact_gap is that closed form at
    every frame (1e-6 m: float32 keys and mesh vertices), and Bake's report names the
    contact, the first frame, the deepest overlap in the scene's units and its frame.  The
    same in a millimetre scene; swung the other way, no clash is named."""
    length_text = extension.addon.curve_reader.length_text
    bpy = blender
    scene = swung_ball(bpy, unit)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames = np.arange(1, 26)
    expected = 0.21 - 0.05 - 0.3 * np.sin(np.pi * (frames - 1) / 24.0)
    gap = bs.curve(scene["contact"], '["contact_gap"]')
    np.testing.assert_array_equal(gap[:, 0], frames)
    np.testing.assert_allclose(gap[:, 1], expected, atol=1e-6)
    assert list(frames[expected < 0]) == list(range(6, 21))
    report = bpy.context.scene.mechanism.report
    assert (f"contact 'Contact ball-post': parts 'ball' and 'post' overlap from frame 6 "
            f"(15 frame(s)), deepest {length_text(bpy.context.scene, 0.14)} at frame 13"
            in report), report
    scene["pin"].mechanism.motion_expression = "-pi*t"     # swung up: least gap d - r at t = 0
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "overlap" not in bpy.context.scene.mechanism.report
    assert bs.curve(scene["contact"], '["contact_gap"]')[:, 1].min() == pytest.approx(
        0.21 - 0.05, abs=1e-6)


def test_a_mesh_grid_too_coarse_for_a_thin_plate_is_named(blender) -> None:
    """A plate 0.4 x 0.3 x 0.01 m (Mesh shape) dropped on the Floor: with Grid Cells 32 its
    cells are 0.0125 m, over half its 0.01 m thickness, so Check names the contact, the
    side, the thickness and Grid Cells 80 (cells of half the thickness: 0.4 / 0.005); at
    80 nothing is said (io/mesh_checks.py checks the criterion against the solver's
    grid)."""
    bpy = blender
    scene = ball_drop(bpy, shape="MESH")
    scene["ball"].scale = (0.4, 0.3, 0.01)          # the unit cube mesh made a 0.4 x 0.3 x 0.01 plate
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert ("contact 'Contact ball-floor': Shape A, part 'ball': its thinnest part, 0.01 m, "
            "is under two grid cells of 0.0125 m (Grid Cells 32)" in report), report
    assert "Grid Cells 80 (cells of 0.005 m) would follow it" in report, report
    scene["contact"].mechanism.contact_cells = 80
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "grid cells" not in bpy.context.scene.mechanism.report


def test_a_contact_of_a_part_with_itself_or_of_two_ground_parts_is_refused(blender) -> None:
    """Part B set to Part A, then two ground parts: Check and Bake refuse naming the contact
    and what to do; the refused Bake leaves the scene as it was."""
    bpy = blender
    scene = ball_drop(bpy)
    s = scene["contact"].mechanism
    s.contact_part_b = scene["ball"]
    with pytest.raises(RuntimeError, match="contact 'Contact ball-floor': Part A and Part B are "
                                           "both 'ball'; a contact is between two different "
                                           "parts: set Part B to the part it touches"):
        bpy.ops.mechanism.check()
    other = bs.add_box(bpy, "wall", (0.1, 1.0, 0.5), (0.6, 0.0, 0.25))
    bs.tag(bpy, [other], "PART")
    other.mechanism.ground = True
    s.contact_part_a, s.contact_part_b = other, scene["ground"]
    s.contact_shape_a = "BOX"
    before = bs.snapshot(bpy)
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        with pytest.raises(RuntimeError, match="contact 'Contact ball-floor': Part A 'wall' and "
                                               "Part B 'floor' are both ground parts, which never "
                                               "move and so never touch"):
            op()
    assert bs.differences(before, bs.snapshot(bpy)) == []


@pytest.mark.parametrize("field, name", [("contact_stiffness", "stiffness"),
                                         ("contact_restitution", "restitution"),
                                         ("contact_friction", "friction"),
                                         ("contact_dynamic_friction", "dynamic_friction"),
                                         ("contact_exponent", "exponent")])
def test_a_nan_typed_into_a_contact_field_is_refused_by_name(blender, field, name) -> None:
    """A NaN in any of the contact's numbers (typed through a script or a driver: the
    fields' bounds keep negative numbers out) is refused by the solver naming the contact
    and the setting, through Bake's report; nothing in the scene changes.  (A Stiffness of
    NaN was taken as 0, the default law, before.)"""
    bpy = blender
    scene = ball_drop(bpy)
    s = scene["contact"].mechanism
    s.contact_stiffness = 1e6                        # the Exponent is used with a Stiffness
    setattr(s, field, float("nan"))
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=f"contact 'Contact ball-floor': {name} is NaN or "
                                           "infinite"):
        bpy.ops.mechanism.bake()
    assert bs.differences(before, bs.snapshot(bpy)) == []


def test_the_ratchet_sample_starts_with_the_pawls_nose_just_above_a_slope(blender, extension) -> None:
    """sample_scenes/ratchet.py as built: Check says nothing of its contact (no overlap, a
    grid fine enough for the teeth); the pawl's Capsule is its round-ended bar (radius
    6 mm, its nose's centre at NOSE), and the least gap at the start is that centre's
    distance to the slope below it (the chord from the root at 85 degrees to the next
    profile point, r 0.085 m at 92.5 degrees) less the radius: under 1 mm, the centre
    being 1 mm above the slope along world z (1e-5 m: the grid's trilinear interpolation is exact on a plane, and the 3.1 mm cells
    around the nose see that slope and its neighbours, turned 2.5 degrees)."""
    import importlib
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "sample_scenes"))
    ratchet = importlib.import_module("ratchet")
    bpy = blender
    ratchet.build()
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert "Pawl on wheel" not in report, report
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    r = sm.mech.solve(times=[0.0, 1.0 / 24.0])
    a = 0.08 * np.array([np.cos(np.radians(85.0)), np.sin(np.radians(85.0))])
    b = 0.085 * np.array([np.cos(np.radians(92.5)), np.sin(np.radians(92.5))])
    nose = np.array(ratchet.NOSE)
    f = np.clip((nose - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
    expected = np.linalg.norm(nose - (a + f * (b - a))) - ratchet.PAWL_HALF
    assert 0.0 < expected < 1e-3
    assert r.interference("Pawl on wheel")["gap"][0] == pytest.approx(expected, abs=1e-5)


def test_a_ball_rolls_down_a_tilted_ramp_as_add_contact_sets_it_up(blender) -> None:
    """A UV sphere (radius 1 in, object scale 1.5) on a box ramp (40 x 10 x 2 in) tilted
    20 deg, both parented to an Empty moved off the origin, in inches; Add Contact with the
    defaults: the ramp, a ground part whose top is not level, gets Auto (a box: its
    Box) rather than Floor (the horizontal plane through its highest edge, which the
    ball would start 7 cm below), and the ball's faceted sphere resolves to Sphere.  With
    friction 0.5 the ball rolls without slipping (mu >= 2/7 tan 20 deg = 0.10): its
    centre runs 5/7 g sin 20 deg t^2 / 2 down the slope, within 1% over 0.5 s (the
    contact's creep in its slip-speed zone and its compliance; 0.2% measured), and stays
    on the slope's surface (the Sphere's exact surface: within 1 mm)."""
    import math
    bpy = blender
    scene = bpy.context.scene
    inch = 0.0254
    scene.unit_settings.system, scene.unit_settings.scale_length = "IMPERIAL", inch
    scene.gravity = (0.0, 0.0, -G / inch)
    scene.mechanism.analysis = "DYNAMIC"
    bs.set_range(bpy, 1, 13)
    rig = bs.empty(bpy, "rig")
    rig.location = (10.0, -4.0, 3.0)
    theta = math.radians(20.0)
    ramp = bs.add_box(bpy, "ramp", (40.0, 10.0, 2.0), (0.0, 0.0, 0.0), (0.0, theta, 0.0))
    normal = np.array([math.sin(theta), 0.0, math.cos(theta)])
    down = np.array([math.cos(theta), 0.0, -math.sin(theta)])
    bpy.ops.mesh.primitive_uv_sphere_add(segments=48, ring_count=24, radius=1.0,
                                         location=tuple(2.501 * normal - 12.0 * down))
    ball = bpy.context.active_object
    ball.name, ball.scale = "ball", (1.5, 1.5, 1.5)
    ramp.parent = ball.parent = rig
    bpy.context.view_layer.update()
    bs.tag(bpy, [ramp, ball], "PART")
    ramp.mechanism.ground = True
    contact = added_contact(bpy, ball, ramp)
    s = contact.mechanism
    assert (s.contact_shape_a, s.contact_shape_b) == ("AUTO", "AUTO")
    s.contact_friction = 0.5
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "overlap" not in scene.mechanism.report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    at = []
    for frame in range(1, 14):
        scene.frame_set(frame)
        at.append(np.array(ball.matrix_world.translation) * inch)
    rw = np.array(rig.matrix_world.to_3x3())
    moved = np.array(at) - at[0]
    t = np.arange(13) / 24.0
    rolled = 0.5 * (5.0 / 7.0) * G * math.sin(theta) * t ** 2
    np.testing.assert_allclose(moved[1:] @ (rw @ down), rolled[1:], rtol=1e-2)
    assert np.abs(moved @ (rw @ normal)).max() < 1e-3


def test_a_mesh_sides_grid_is_built_by_blenders_bvh_tree(blender, extension) -> None:
    """A Mesh side's distance grid is built in Blender by the BVH tree of the part's
    triangles (mathutils.bvhtree), not the solver's numpy computation: a UV sphere of 48
    segments read as a Mesh has the grid the solver builds from the same triangles to
    1e-6 of its size (the tree's float32 coordinates; 8e-9 m measured on 5 cm), its
    inside the same."""
    bpy = blender
    scene = ball_drop(bpy, shape="MESH")
    ball = scene["ball"]
    ball.data = bpy.data.meshes.new("round")
    import bmesh
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=48, v_segments=24, radius=0.05)
    bm.to_mesh(ball.data)
    bm.free()
    reader, contacts = extension.addon.scene_reader, extension.addon.contacts
    made = []
    real = contacts._bvh_nearest

    def spy(*a):
        made.append(real(*a))
        return made[-1]
    contacts._bvh_nearest = spy
    try:
        shape = reader.read_scene(bpy.context.scene).mech.contacts[scene["contact"].name].shape_a
    finally:
        contacts._bvh_nearest = real
    assert shape.kind == "mesh" and len(made) == 1 and made[0] is not None
    own = type(shape).mesh(shape.vertices, shape.faces, cells=shape.params[0])
    own.prepare("the same triangles")
    size = float(np.ptp(shape.vertices, axis=0).max())
    np.testing.assert_allclose(shape.grid.distance, own.grid.distance, rtol=0, atol=1e-6 * size)
    off = np.abs(own.grid.distance) > 1e-6 * size
    assert np.array_equal(np.sign(shape.grid.distance[off]), np.sign(own.grid.distance[off]))
