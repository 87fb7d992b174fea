"""The Contact role's Profile and Auto shapes in real Blender: a part's mesh read as an
extruded outline (holes included) in its frame, Auto's choice between Profile and Mesh,
and a mesh that is not a prism along the part's z named with how far off it is."""
from __future__ import annotations

import math

import numpy as np
import pytest

import blender_scenes as bs

MODULE, BACKLASH, WIDTH, BORE = 0.002, 1e-4, 0.01, 0.006      # m


def polygon_area(p: np.ndarray) -> float:
    return 0.5 * float(np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1]))


def bore_outline(count: int = 48) -> np.ndarray:
    t = 2.0 * np.pi * np.arange(count) / count
    return BORE * np.column_stack([np.cos(t), np.sin(t)])


def prism_object(bpy, name: str, loops: list, width: float, location=(0.0, 0.0, 0.0),
                 angle: float = 0.0):
    """A mesh part made with bmesh: the region inside ``loops`` (an outline and its
    holes, (k, 2) m) filled with triangles at z = -width / 2 and extruded to +width / 2,
    normals outward; placed at ``location``, turned by ``angle`` (rad) about world z."""
    import bmesh
    bm = bmesh.new()
    edges = []
    for loop in loops:
        vs = [bm.verts.new((x, y, -0.5 * width)) for x, y in loop]
        edges += [bm.edges.new((vs[i], vs[(i + 1) % len(vs)])) for i in range(len(vs))]
    filled = bmesh.ops.triangle_fill(bm, use_beauty=True, use_dissolve=False, edges=edges)
    faces = [f for f in filled["geom"] if isinstance(f, bmesh.types.BMFace)]
    top = bmesh.ops.extrude_face_region(bm, geom=faces)
    bmesh.ops.translate(bm, vec=(0.0, 0.0, width),
                        verts=[v for v in top["geom"] if isinstance(v, bmesh.types.BMVert)])
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    ob.location, ob.rotation_euler = location, (0.0, 0.0, angle)
    bs.tag(bpy, [ob], "PART")
    return ob


def gear_pair_by_teeth(bpy, extension) -> dict:
    """Gears of 20 and 30 teeth (the solver's involute_gear, module 2 mm, 0.1 mm
    backlash), 10 mm wide, the first with a 6 mm bore, on a ground frame, at the centre
    distance 50 mm, the second turned by pi - pi / 30 (a space facing the first's tooth);
    Add Contact between them (the first active: Part A)."""
    from solver import involute_gear
    frame = bs.add_box(bpy, "frame", (0.2, 0.2, 0.01), (0.0, 0.0, -0.02))
    bs.tag(bpy, [frame], "PART")
    frame.mechanism.ground = True
    g1 = prism_object(bpy, "gear 1", [involute_gear(20, MODULE, backlash=BACKLASH),
                                      bore_outline()], WIDTH)
    g2 = prism_object(bpy, "gear 2", [involute_gear(30, MODULE, backlash=BACKLASH)], WIDTH,
                      (0.05, 0.0, 0.0), math.pi - math.pi / 30)
    bs.select(bpy, (g1, g2), g1)
    assert bpy.ops.mechanism.add_contact() == {"FINISHED"}
    return {"frame": frame, "g1": g1, "g2": g2, "contact": bpy.context.active_object}


def contact_shapes(bpy, extension, name: str) -> tuple:
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    contact = sm.mech.contacts[name]
    return contact.shape_a, contact.shape_b


def same_outline(read: np.ndarray, made: np.ndarray, precision: float) -> None:
    """``read`` is ``made`` point for point (any starting point and direction) to
    ``precision`` (m), and encloses its area."""
    assert len(read) == len(made)
    gaps = np.linalg.norm(read[:, None, :] - made[None, :, :], axis=2)
    assert gaps.min(axis=1).max() <= precision
    assert gaps.min(axis=0).max() <= precision
    assert abs(polygon_area(read)) == pytest.approx(abs(polygon_area(made)), rel=1e-6)


def test_a_gear_prism_is_read_as_its_involute_outline(blender, extension) -> None:
    """Add Contact between two gear prisms made from involute_gear's outlines picks Auto
    for both, which reads each as a Profile: its loops are the outline (and the first
    gear's bore) in the part frame, point for point, to the mesh's precision (Blender keeps
    32-bit coordinates: 22 mm x 2^-24 is about 1.3e-9 m; 1e-8 m), its thickness the mesh's
    z extent and its centre the part frame's origin.  The Profile fields reach the solver
    (a cell, a spacing and the levels)."""
    from solver import involute_gear
    bpy = blender
    scene = gear_pair_by_teeth(bpy, extension)
    s = scene["contact"].mechanism
    assert (s.contact_shape_a, s.contact_shape_b) == ("AUTO", "AUTO")
    a, b = contact_shapes(bpy, extension, scene["contact"].name)
    assert (a.kind, b.kind) == ("profile", "profile")
    outer, hole = sorted(a.loops, key=lambda p: -abs(polygon_area(p)))
    same_outline(outer, involute_gear(20, MODULE, backlash=BACKLASH), 1e-8)
    same_outline(hole, bore_outline(), 1e-8)
    (loop,) = b.loops
    same_outline(loop, involute_gear(30, MODULE, backlash=BACKLASH), 1e-8)
    for shape in (a, b):
        assert shape.params[0] == pytest.approx(0.5 * WIDTH, abs=1e-8)
        np.testing.assert_allclose(shape.position, 0.0, atol=1e-8)
        assert shape.params[1:] == (0.0, 2) and shape.spacing is None   # the solver's defaults
    s.contact_shape_b = "PROFILE"
    s.contact_profile_cell, s.contact_profile_spacing, s.contact_profile_levels = 2e-4, 1e-3, 1
    a, b = contact_shapes(bpy, extension, scene["contact"].name)
    assert b.params[1:] == pytest.approx((2e-4, 1)) and b.spacing == pytest.approx(1e-3)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "overlap" not in bpy.context.scene.mechanism.report


def test_a_mesh_that_is_no_prism_along_z_is_named_with_how_far_off(blender, extension) -> None:
    """A 0.1 m box sheared so that its top face sits 1 mm along x from its bottom: as a
    Profile it is refused naming the contact, the side, the part and the 1 mm between its
    bottom outline and its top's (a bottom corner 1 mm outside the top square); Auto takes
    it as a Mesh.  A UV sphere as a Profile is refused naming a vertex off both planes
    (Auto takes it as a Sphere, and as a Mesh once stretched); unsheared, the box is a
    Box under Auto."""
    bpy = blender
    frame = bs.add_box(bpy, "frame", (1.0, 1.0, 0.2), (0.0, 0.0, -0.3))
    square = np.array([[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]])
    block = prism_object(bpy, "block", [square], 0.1)
    bs.tag(bpy, [frame], "PART")
    frame.mechanism.ground = True
    bs.select(bpy, (block, frame), block)
    assert bpy.ops.mechanism.add_contact() == {"FINISHED"}
    contact = bpy.context.active_object
    assert contact_shapes(bpy, extension, contact.name)[0].kind == "box"
    for v in block.data.vertices:
        if v.co.z > 0.0:
            v.co.x += 0.001
    block.data.update()
    assert contact_shapes(bpy, extension, contact.name)[0].kind == "mesh"
    contact.mechanism.contact_shape_a = "PROFILE"
    with pytest.raises(RuntimeError, match=r"contact 'Contact block-frame': Shape A, part "
                                           r"'block': not a prism along the part's z: its "
                                           r"bottom outline is 0\.00(1|0999+\d*) m off its top outline"):
        bpy.ops.mechanism.check()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.05, location=(0.3, 0.0, 0.0))
    ball = bpy.context.active_object
    ball.name = "ball"
    bs.tag(bpy, [ball], "PART")
    contact.mechanism.contact_part_a = ball
    with pytest.raises(RuntimeError, match=r"Shape A, part 'ball': not a prism along the "
                                           r"part's z: vertex \d+ is [0-9.e-]+ m from both its "
                                           r"top \(z = 0\.05 m\) and its bottom"):
        bpy.ops.mechanism.check()
    contact.mechanism.contact_shape_a = "AUTO"                # (a faceted sphere: Sphere)
    assert contact_shapes(bpy, extension, contact.name)[0].kind == "sphere"
    ball.scale = (1.0, 1.0, 1.2)                              # an ellipsoid: its Mesh
    assert contact_shapes(bpy, extension, contact.name)[0].kind == "mesh"


def sample(name: str):
    """A sample scene's module from sample_scenes/."""
    import importlib
    import os
    import sys
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "sample_scenes")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


def baked_angle(bpy, name: str) -> np.ndarray:
    """rad: the part's turn about world z at every frame of the bake, from its first."""
    scene = bpy.context.scene
    out = []
    for f in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(f)
        m = scene.objects[name].matrix_world
        out.append(math.atan2(m[1][0], m[0][0]))
    angle = np.unwrap(np.array(out))
    return angle - angle[0]


def test_the_geneva_sample_indexes_a_quarter_turn_per_crank_turn_and_dwells(blender) -> None:
    """sample_scenes/geneva.py baked (one crank turn at a turn per second from -180
    degrees, 24 fps): the wheel follows the closed form of an external Geneva (the solver's
    test's ideal_geneva_angle): within 2.5 degrees while the pin is in the slot (the pin's
    0.5 mm clearance and its contact's compliance over the pin's least distance from the
    wheel's centre, 29 mm) and 0.6 degrees while it dwells (the locking arc's 0.5 mm
    clearance over the arc end's 70 mm lever, with compliance), the solver's own test's
    tolerances; it ends a quarter turn on (0.6 degrees) and stands still over the last
    frames (dwelling: 0.6 degrees)."""
    from test_contact_profiles import ideal_geneva_angle
    bpy = blender
    geneva = sample("geneva")
    geneva.build()
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "overlap" not in bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    wheel = geneva.START + baked_angle(bpy, "Wheel")
    crank = geneva.CRANK_START + baked_angle(bpy, "Crank")
    t = np.arange(len(crank)) / 24.0
    np.testing.assert_allclose(crank, -math.pi + 2 * math.pi * t, atol=1e-5)   # float32 keys
    ideal = ideal_geneva_angle(crank, 4, 0.1, geneva.START)
    err = np.degrees(np.abs(wheel - ideal))
    engaged = np.abs(crank) <= math.pi / 4
    assert engaged.sum() >= 5 and (~engaged).sum() >= 15
    assert err[engaged].max() < 2.5
    assert err[~engaged].max() < 0.6
    assert np.degrees(wheel[-1] - wheel[0]) == pytest.approx(-90.0, abs=0.6)
    assert np.degrees(np.ptp(wheel[t > 0.7])) < 0.6


def test_the_gear_teeth_sample_turns_its_planets_at_the_tooth_ratio(blender) -> None:
    """sample_scenes/gear_teeth.py baked (the sun driven at half a turn per second, each
    planet turned only by the contact between its involute teeth and the sun's): once the
    start's knocks have settled (from 1/3 s, frame 9), over the four mesh periods to 1 s
    (the sun's 12 teeth pass at 6 Hz), each planet's mean speed is -12/24 of the sun's to
    0.0021: its lag behind the ideal angle changes by at most the backlash (0.5 mm) and the
    change of the teeth's compliance (about 2 x 0.03 mm at its 30 N) at the 0.12 m pitch
    radius, 4.4e-3 rad, over the sun's 2.09 rad of the window.  The ring, geared to planet 1
    by its pitch radii, turns at 12/60 of the sun's speed, the same way."""
    bpy = blender
    gears = sample("gear_teeth")
    gears.build()
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "overlap" not in bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    sun = baked_angle(bpy, "Sun")
    np.testing.assert_allclose(sun, math.pi * np.arange(len(sun)) / 24.0, atol=1e-5)
    k0 = 8                                            # frame 9: t = 1/3 s
    for k in (1, 2, 3):
        planet = baked_angle(bpy, f"Planet {k}")
        ratio = (planet[-1] - planet[k0]) / (sun[-1] - sun[k0])
        assert ratio == pytest.approx(-12 / 24, abs=0.0021), k
    ring = baked_angle(bpy, "Ring")
    assert (ring[-1] - ring[k0]) / (sun[-1] - sun[k0]) == pytest.approx(-12 / 60, abs=0.0021 * 24 / 60)
