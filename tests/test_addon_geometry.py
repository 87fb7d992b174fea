"""Imperfect geometry and over-driven loops in real Blender: a four-bar built with Connect whose rocker pivot is lifted a little out of the plane
bakes, and the Bake reports that redundant equations disagree (joints and gap); lifted a
lot, the Bake refuses with the gap and changes nothing; with motions on two of its pins,
Bake and Assemble say the motions over-drive the mechanism and change nothing.  A part
whose mesh is open bakes with a warning that names it, what is wrong and the mass used."""
from __future__ import annotations

import re

import numpy as np
import pytest

import blender_scenes as bs


def four_bar(bpy, lift: float = 0.0, second_motion: bool = False) -> dict:
    """Crank 0.4 m, coupler 1 m, rocker 0.8 m, ground pivots 1 m apart, all pins about
    world z, the crank driven; the rocker's ground marker lifted by ``lift`` m along z."""
    from mathutils import Matrix
    bs.set_range(bpy, 1, 13)
    ground = bs.add_box(bpy, "ground", (1.2, 0.1, 0.1), (0.5, 0.0, -0.2))
    crank = bs.add_box(bpy, "crank", (0.4, 0.05, 0.05), (0.2, 0.0, 0.0))
    # coupler from (0.4, 0) to B, rocker from (1, 0) to B: the loop closes at B
    # B with |B - A| = 1 and |B - O4| = 0.8, A = (0.4, 0), O4 = (1, 0): circles' upper crossing
    bx = (1.0 - 0.64 + 1.0 - 0.16) / (2 * 0.6)                  # from |B-A|^2 - |B-O4|^2
    by = (1.0 - (bx - 0.4) ** 2) ** 0.5
    coupler = bs.add_box(bpy, "coupler", (1.0, 0.05, 0.05), ((0.4 + bx) / 2, by / 2, 0.0))
    rocker = bs.add_box(bpy, "rocker", (0.8, 0.05, 0.05), ((1.0 + bx) / 2, by / 2, 0.0))
    bs.tag(bpy, [ground, crank, coupler, rocker], "PART")
    ground.mechanism.ground = True
    pivot2 = bs.connect(bpy, crank, ground, (0.0, 0.0, 0.0))
    bs.connect(bpy, coupler, crank, (0.4, 0.0, 0.0))      # pin A
    bs.connect(bpy, coupler, rocker, (bx, by, 0.0))       # pin B
    pivot4 = bs.connect(bpy, rocker, ground, (1.0, 0.0, 0.0))
    mk = pivot4.mechanism.marker_j
    mk.matrix_world = Matrix.Translation((0.0, 0.0, lift)) @ mk.matrix_world
    for joint, on in ((pivot2, True), (pivot4, second_motion)):
        if on:
            s = joint.mechanism
            s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", "0.5*t"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    bpy.context.view_layer.update()
    return dict(ground=ground, crank=crank, rocker=rocker, pivot4=pivot4)


def test_planar_four_bar_bakes_without_a_note(blender) -> None:
    four_bar(blender)
    assert blender.ops.mechanism.bake() == {"FINISHED"}
    assert "disagree" not in blender.context.scene.mechanism.report


def test_slightly_lifted_pivot_bakes_with_a_note(blender) -> None:
    """A pivot lifted 8e-7 m (below the 1e-6 of the model's size that is refused) is the
    user's geometry: noted.  Not less: Blender's float32 spacing at the four-bar's 1.27 m
    reach is 1.2e-7 m, and up to 8 unit round-offs of it (6.1e-7 m) is taken as rounding
    (solver/model/compile.py ROUNDING_GAP)."""
    d = four_bar(blender, lift=8e-7)
    assert blender.ops.mechanism.bake() == {"FINISHED"}
    report = blender.context.scene.mechanism.report
    assert "disagree by" in report and d["pivot4"].name in report, report
    gap = float(report.split("disagree by ")[1].split(" m")[0])
    assert 1e-7 < gap < 1e-6
    assert len(bs.curve(d["rocker"], "rotation_quaternion", 3)) == 13     # (frame, value) keys


@pytest.mark.parametrize("lift, second_motion, words", [
    (0.01, False, "gap of"),                     # a loop that does not close
    (0.0, True, "over-drive"),                   # two motions on one loop
])
def test_refused_bake_names_the_reason_and_changes_nothing(blender, lift, second_motion, words) -> None:
    four_bar(blender, lift=lift, second_motion=second_motion)
    before = bs.snapshot(blender)
    with pytest.raises(RuntimeError, match=words):
        blender.ops.mechanism.bake()
    with pytest.raises(RuntimeError, match=words):
        blender.ops.mechanism.assemble()
    assert bs.differences(before, bs.snapshot(blender)) == []


def test_a_slider_crank_pushed_from_its_dead_centre_is_named_and_unchanged(blender) -> None:
    """The slider-crank built with crank and rod in line along x, its crank's motion taken
    off and its cylinder's slide driven instead: at that dead centre the slide cannot turn
    the crank, so Check reports it, and Bake and Assemble refuse it, naming the motion, the
    dead centre and the frame, never calling it over-driving (its advice, to remove the
    motion, would be wrong); the scene is left as it was."""
    import re
    bpy = blender
    d = bs.slider_crank(bpy)
    d["main"].mechanism.motion_type = "NONE"
    s = d["cylinder"].mechanism
    s.motion_type, s.motion_coordinate = "EXPRESSION", "SLIDE"
    s.motion_expression = "-0.05*(1 - cos(2*pi*t))"
    motion = f"'{d['cylinder'].name}: motion \\(slide\\)' starts at a dead centre at t = 0 s"
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert re.search(motion, report) and "over-drive" not in report, report
    before = bs.snapshot(bpy)
    for op in (bpy.ops.mechanism.bake, bpy.ops.mechanism.assemble):
        with pytest.raises(RuntimeError, match=motion) as err:
            op()
        assert "over-drive" not in str(err.value)
    assert bs.differences(before, bs.snapshot(bpy)) == []


def test_open_mesh_bakes_with_a_warning_naming_part_and_mass(blender) -> None:
    """The pendulum's 10 kg arm with its +x end face deleted is an open
    mesh (4 boundary edges) whose divergence-theorem mass is less; Bake and Check both say
    so in the scene's report, with the part's name and the mass used."""
    import bmesh
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    bm = bmesh.new()
    bm.from_mesh(arm.data)
    bmesh.ops.delete(bm, geom=[f for f in bm.faces if f.normal.x > 0.9], context="FACES_ONLY")
    bm.to_mesh(arm.data)
    bm.free()
    assert blender.ops.mechanism.bake() == {"FINISHED"}
    mass = arm.mechanism.computed_mass
    assert 0.0 < mass < 10.0 - 1e-3
    said = f"part 'arm': open mesh: 4 boundary edges; mass used {mass:.4g} kg"
    assert said in bpy.context.scene.mechanism.report, bpy.context.scene.mechanism.report
    bpy.context.scene.mechanism.report = ""
    assert blender.ops.mechanism.check() == {"FINISHED"}
    assert said in bpy.context.scene.mechanism.report, bpy.context.scene.mechanism.report


def test_check_names_a_joint_open_at_the_start(blender) -> None:
    """The slider-crank's piston lifted 5 cm off its slide (its markers with it):
    Check names the two joints on the piston as open by 5 cm, in the scene's units, and the
    move that a Bake would make; built closed, no such line; with the Length unit fixed to
    Millimetres, in mm as the fields show them; with the unit system None, the lengths are
    Blender units.  The scene is not moved.  It says so once: the solver's own note of the
    same joints (in metres, naming the Python call Mechanism.assemble()) was shown too."""
    bpy = blender
    d = bs.slider_crank(bpy)

    def report() -> str:
        return bpy.context.scene.mechanism.report

    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "open" not in report() and "moves" not in report(), report()
    d["piston"].location.y += 0.05
    bpy.context.view_layer.update()
    matrix = [tuple(r) for r in d["piston"].matrix_world]
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    lines = report().split(" | ")
    for joint in (d["cylinder"], d["small_end"]):
        assert f"joint {joint.name!r} is open at the start by 0.05 m" in lines, lines
    assert any(line.startswith("the assembly moves part 'piston' by 0.05 m") for line in lines), lines
    assert "open where the parts were built" not in report() and \
        "Mechanism.assemble()" not in report(), report()
    assert [tuple(r) for r in d["piston"].matrix_world] == matrix
    bpy.context.scene.unit_settings.length_unit = "MILLIMETERS"      # as its fields show it
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert f"joint {d['cylinder'].name!r} is open at the start by 50 mm" in report().split(" | ")
    bpy.context.scene.unit_settings.system = "NONE"
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert f"joint {d['cylinder'].name!r} is open at the start by 0.05" in report().split(" | ")


def test_bake_says_which_joints_it_closed_and_how_far_parts_moved(blender) -> None:
    """The slider-crank's piston lifted 5 cm off its slide: Bake (which starts from the
    assembled pose) names the two joints on the piston open by 0.05 m and the piston moved
    by 0.05 m, with the panel's Assemble as the way to see it; with the Length unit fixed
    to Millimetres, 50 mm beside them, as the fields show it; built closed, no such note."""
    bpy = blender
    d = bs.slider_crank(bpy)

    def opened() -> list[str]:
        return [n for n in bpy.context.scene.mechanism.report.split(" | ")
                if "open where the parts were built" in n]

    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert not opened()
    bpy.ops.mechanism.clear_bake()
    d["piston"].location.y += 0.05
    bpy.context.view_layer.update()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    note, = opened()
    for joint in (d["cylinder"], d["small_end"]):
        assert f"{joint.name!r} (by 0.05 m)" in note, note
    assert "part 'piston' by 0.05 m" in note and "Assemble shows it" in note, note
    bpy.context.scene.unit_settings.length_unit = "MILLIMETERS"      # as its fields show it
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    note, = opened()
    assert f"{d['cylinder'].name!r} (by 0.05 m (50 mm))" in note, note
    assert "'piston' by 0.05 m (50 mm)" in note, note


def test_a_wheel_on_an_axle_at_its_centre_is_not_open_at_the_start(blender) -> None:
    """A tilted wheel (radius 0.3 m) connected to a tilted ground by an axle at the wheel's
    own origin, away from the world origin: its markers and its origin coincide, and
    Blender's float32 matrices leave the markers some 1e-8 m apart.  Check says nothing of
    a joint open at the start or a part moved; the wheel lifted 1 mm along its axle (3e-3
    of its 0.3 m radius, far above OPEN_SHARE) is named."""
    bpy = blender
    bs.set_range(bpy)
    where, tilt = (0.37, 0.21, 0.13), (0.3, 0.2, 0.1)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), where, rotation=tilt)
    wheel = bs.disc(bpy, "wheel", 0.3, where)
    wheel.rotation_euler = tilt
    bs.tag(bpy, [ground, wheel], "PART")
    ground.mechanism.ground = True
    bpy.context.view_layer.update()
    axle = bs.connect(bpy, wheel, ground, where, "REVOLUTE", "X")
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert "open" not in report and "moves" not in report, report
    wheel.location.x += 0.001
    bpy.context.view_layer.update()
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    lines = bpy.context.scene.mechanism.report.split(" | ")
    assert f"joint {axle.name!r} is open at the start by 0.001 m" in lines, lines


def test_mesh_arrays_read_what_blenders_own_properties_hold(blender, extension) -> None:
    """The bulk reads (vertex positions, polygon corners and counts, loop triangles) equal
    what Blender's per-element properties give, on a mesh of triangles, quads and an
    n-gon with faces deleted (its corner offsets renumbered) and vertices at float32's
    last bits: positions widened exactly, corners in polygon order."""
    import bmesh
    import importlib
    arrays = importlib.import_module(extension.__name__ + ".addon.mesh_arrays")
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=7, v_segments=5, radius=0.3)
    bm.faces.ensure_lookup_table()
    bmesh.ops.delete(bm, geom=[bm.faces[3], bm.faces[11]], context="FACES_ONLY")
    top = [bm.verts.new((0.1 * k, 1.0 + 0.01 * k * k, 1.0 / 3.0)) for k in range(6)]
    bm.faces.new(top)                                          # a hexagon
    mesh = blender.data.meshes.new("mixed")
    bm.to_mesh(mesh)
    bm.free()
    co = [tuple(v.co) for v in mesh.vertices]
    np.testing.assert_array_equal(arrays.vertex_positions(mesh), np.array(co))
    corners, sizes = arrays.polygon_corners(mesh)
    assert corners.tolist() == [i for p in mesh.polygons for i in p.vertices]
    assert sizes.tolist() == [p.loop_total for p in mesh.polygons]
    assert set(sizes.tolist()) == {3, 4, 6}
    mesh.calc_loop_triangles()
    assert (arrays.triangle_vertices(mesh).tolist()
            == [list(t.vertices) for t in mesh.loop_triangles])


@pytest.mark.parametrize("how", ["disabled in viewports", "collection excluded"])
def test_a_part_blender_does_not_evaluate_is_refused_if_modifiers_would_shape_it(blender, how):
    """The pendulum's arm with a Bevel modifier (its mass read from the bevelled mesh):
    disabled in viewports with its markers, or in a collection excluded from the view
    layer, Blender leaves the modifier out and only its base mesh is there, so its mass
    would silently be the unbevelled box's (10 kg); Bake refuses naming the part and the
    fix, and changes nothing.
    Hidden with H it is evaluated and bakes with the bevelled mass."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    arm.modifiers.new("bevel", "BEVEL").width = 0.02
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bevelled = arm.mechanism.computed_mass
    bpy.ops.mechanism.clear_bake()
    arm.hide_set(True)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert arm.mechanism.computed_mass == pytest.approx(bevelled, rel=1e-12) and bevelled < 10.0
    bpy.ops.mechanism.clear_bake()
    arm.hide_set(False)
    group = [arm] + list(arm.children_recursive)        # the arm and its markers
    if how == "disabled in viewports":
        for ob in group:
            ob.hide_viewport = True
    else:
        box = bpy.data.collections.new("hidden box")
        bpy.context.scene.collection.children.link(box)
        for ob in group:
            for c in list(ob.users_collection):
                c.objects.unlink(ob)
            box.objects.link(ob)
        bpy.context.view_layer.layer_collection.children[box.name].exclude = True
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=r"part 'arm': it is disabled in viewports"):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_bakes_note_says_its_lengths_in_the_scenes_unit(blender) -> None:
    """The pivot lifted 8e-7 m in a scene whose fields show centimetres: the bake's note
    gives the disagreement in metres and in centimetres (8e-07 m is 8e-05 cm)."""
    blender.context.scene.unit_settings.length_unit = "CENTIMETERS"
    four_bar(blender, lift=8e-7)
    assert blender.ops.mechanism.bake() == {"FINISHED"}
    report = blender.context.scene.mechanism.report
    found = re.search(r"disagree by ([\d.e+-]+) m \(([\d.e+-]+) cm\)", report)
    assert found, report
    assert float(found.group(2)) == pytest.approx(100.0 * float(found.group(1)), rel=1e-3)


def instancing_nodes(bpy, ob, realize: bool) -> None:
    """A Geometry Nodes modifier on ``ob`` that joins its mesh and an instance of a cube
    of side 0.1 (object space) at (0.45, 0, 3), realized (Realize Instances) or not."""
    tree = bpy.data.node_groups.new("extra cube", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    node = tree.nodes.new
    given, out, join = node("NodeGroupInput"), node("NodeGroupOutput"), node("GeometryNodeJoinGeometry")
    point, at = node("GeometryNodePoints"), node("GeometryNodeSetPosition")
    cube, place = node("GeometryNodeMeshCube"), node("GeometryNodeInstanceOnPoints")
    cube.inputs["Size"].default_value = (0.1, 0.1, 0.1)
    at.inputs["Offset"].default_value = (0.45, 0.0, 3.0)
    link = tree.links.new
    link(point.outputs["Points"], at.inputs["Geometry"])
    link(at.outputs["Geometry"], place.inputs["Points"])
    link(cube.outputs["Mesh"], place.inputs["Instance"])
    link(given.outputs[0], join.inputs[0])
    link(place.outputs["Instances"], join.inputs[0])
    if realize:
        real = node("GeometryNodeRealizeInstances")
        link(join.outputs[0], real.inputs[0])
        link(real.outputs[0], out.inputs[0])
    else:
        link(join.outputs[0], out.inputs[0])
    ob.modifiers.new("extra cube", "NODES").node_group = tree
    bpy.context.view_layer.update()


def test_a_part_whose_geometry_nodes_make_instances_is_refused(blender) -> None:
    """The pendulum's arm (1 x 0.1 x 0.1 m, 10 kg) with Geometry Nodes adding an instanced
    cube (0.1 x 0.01 x 0.01 m in the arm's scale: 0.01 kg): Blender keeps instances apart
    from the object's mesh, so its mass was silently the arm's alone (10 kg) while the
    viewport shows the cube.  Bake refuses naming the part and the fix, the scene as it
    was; with the instances realized, the mass is 10.01 kg (rel 1e-6: float32 vertices)."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    instancing_nodes(bpy, arm, realize=False)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=r"part 'arm': its modifiers make instances.*"
                                           r"Realize Instances"):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))
    arm.modifiers.clear()
    instancing_nodes(bpy, arm, realize=True)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert arm.mechanism.computed_mass == pytest.approx(10.01, rel=1e-6)
