"""File > Import > URDF in real Blender: the 2-link arm of test_io_urdf.py imported as tagged
objects bakes the motion the solver gives for the same file; visuals are made and parented
(primitives, an STL through Blender's importer; a format Blender cannot read is named and
skipped); a bad file, or one that fails half way, leaves the scene as it was.

Tolerances: Blender stores object matrices, typed-in masses and inertias and keyframes in
float32 (unit round-off 6e-8); over a second of the double pendulum's swing those input
roundings grow to a few 1e-7 m, so baked poses are compared to 1e-5 m (and quaternions to
1e-5)."""
from __future__ import annotations

import numpy as np
import pytest

import blender_scenes as bs
from test_io_addon import io
from test_io_urdf import arm_urdf

um = io("urdf_mechanism")
TOL = 1e-5
STL = """solid tri
facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 1 0 0
  vertex 0 1 0
 endloop
endfacet
endsolid tri
"""


def arm_with_visuals(mesh: str) -> str:
    """The arm, its forearm showing ``mesh`` (a package:// name) and its upper arm a box."""
    visual = f"""
    <visual><origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/>
      <geometry><mesh filename="package://arm_pkg/meshes/{mesh}" scale="0.5 0.5 0.5"/></geometry>
      <material name="blue"><color rgba="0.2 0.4 0.6 1"/></material>
    </visual>"""
    limit = '<limit lower="-0.5" upper="1.0" effort="5" velocity="3"/>'
    text = arm_urdf(shoulder='type="revolute"', shoulder_extra=limit)
    return text.replace('<link name="fore">', '<link name="fore">' + visual, 1)


def write_package(tmp_path, text: str, mesh_name: str = "tri.stl", mesh_text: str = STL):
    pkg = tmp_path / "arm_pkg"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "urdf").mkdir()
    (pkg / "meshes" / mesh_name).write_text(mesh_text)
    path = pkg / "urdf" / "arm.urdf"
    path.write_text(text)
    return path


def test_imported_arm_bakes_as_the_solver_runs_the_file(blender, tmp_path) -> None:
    bpy = blender
    bs.set_range(bpy)
    path = write_package(tmp_path, arm_with_visuals("tri.stl"))
    assert bpy.ops.mechanism.import_urdf(filepath=str(path)) == {"FINISHED"}
    robot = bpy.data.collections["arm"]
    names = {ob.name for ob in robot.objects}
    assert {"base", "upper", "fore", "shoulder", "elbow"} <= names
    upper, fore, shoulder = (bpy.data.objects[n] for n in ("upper", "fore", "shoulder"))
    assert bpy.data.objects["base"].mechanism.ground and upper.mechanism.role == "PART"
    assert shoulder.mechanism.use_limit_upper and abs(shoulder.mechanism.limit_upper_angle - 1.0) < 1e-7
    # visuals: the box on the upper arm, the STL's triangle on the forearm, both parented
    box = [ob for ob in upper.children if ob.type == "MESH"]
    tri = [ob for ob in fore.children if ob.type == "MESH"]
    assert len(box) == 1 and len(tri) == 1
    # the URDF material's colour on a mesh that brings none of its own (an STL)
    assert np.allclose(tri[0].data.materials[0].diffuse_color, (0.2, 0.4, 0.6, 1.0), atol=1e-7)
    bpy.context.view_layer.update()
    corner = np.array(tri[0].matrix_world) @ np.array([1.0, 0, 0, 1])   # STL vertex (1, 0, 0)
    # forearm at (0.5, 0, 1); the visual 0.1 along x, turned 90 deg about z, scaled 0.5
    assert np.allclose(corner[:3], (0.6, 0.5, 1.0), atol=1e-6)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    r = baked_like_the_solver(bpy, path, ("upper", "fore"), package_dirs=[str(tmp_path)])
    assert len(r.impacts) > 0                                    # the stop was struck


def baked_like_the_solver(bpy, path, parts, **options):
    """Every part's baked location (times the scene's unit scale: metres) and quaternion
    equal the solver's run of the same file (to TOL: the module docstring); that run."""
    m, _ = um.mechanism_from_urdf(str(path), **options)
    frames = np.arange(bs.FRAME_START, bs.FRAME_END + 1)
    r = m.solve(times=(frames - frames[0]) / bpy.context.scene.render.fps, tolerance=1e-6)
    for name in parts:
        f, loc, quat = bs.baked_pose(bpy.data.objects[name])
        np.testing.assert_array_equal(f, frames)
        scale = bpy.context.scene.unit_settings.scale_length
        assert np.abs(loc * scale - r.position(name)).max() < TOL, name
        want = r.orientation(name)
        want *= np.where(np.sum(want * quat, axis=1) < 0, -1.0, 1.0)[:, None]
        assert np.abs(quat - want).max() < TOL, name
    return r


def test_an_imported_mimic_joint_is_a_coupler_that_bakes_as_the_solver_runs_it(blender,
                                                                                 tmp_path) -> None:
    bpy = blender
    bs.set_range(bpy)
    path = tmp_path / "mimic.urdf"
    path.write_text(arm_urdf(elbow_extra='<mimic joint="shoulder" multiplier="-2" offset="0.1"/>'))
    assert bpy.ops.mechanism.import_urdf(filepath=str(path)) == {"FINISHED"}
    s = bpy.data.objects["elbow: mimic"].mechanism
    assert (s.role, s.coupler_kind, s.joint_a.name, s.joint_b.name) == ("COUPLER", "COUPLER",
                                                                        "elbow", "shoulder")
    assert (s.scale_a, s.scale_b) == (1.0, 2.0)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    baked_like_the_solver(bpy, path, ("upper", "fore"))


@pytest.mark.parametrize("unit", [1.0, 0.001])
def test_a_slide_mimicking_an_angle_keeps_its_metres_per_radian(blender, tmp_path, unit) -> None:
    """The elbow a prismatic joint whose slide mimics the shoulder's angle (0.2 m per rad,
    offset 0.05 m), imported into a scene at Unit Scale ``unit``: the coupler's Scale on the
    slide counts Blender units, so it is written as 1 times the unit scale, and the bake is
    the solver's run of the file (the slide 0.2 m per rad of the swing, not 0.2 mm)."""
    bpy = blender
    bs.set_range(bpy)
    bpy.context.scene.unit_settings.scale_length = unit
    bpy.context.scene.gravity = (0.0, 0.0, -9.81 / unit)
    path = tmp_path / "slide_mimic.urdf"
    path.write_text(arm_urdf(elbow='type="prismatic"', elbow_extra=(
        '<limit lower="-1" upper="1" effort="5" velocity="3"/>'
        '<mimic joint="shoulder" multiplier="0.2" offset="0.05"/>')))
    assert bpy.ops.mechanism.import_urdf(filepath=str(path)) == {"FINISHED"}
    s = bpy.data.objects["elbow: mimic"].mechanism
    assert (s.coordinate_a, s.coordinate_b) == ("SLIDE", "ANGLE")
    assert s.scale_a == pytest.approx(unit, rel=1e-7) and s.scale_b == pytest.approx(-0.2, rel=1e-7)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    r = baked_like_the_solver(bpy, path, ("upper", "fore"))
    assert np.ptp(r.position("fore")[:, 1]) > 0.05              # the slide moves


def test_a_floating_base_imports_as_a_free_part(blender, tmp_path) -> None:
    bpy = blender
    bs.set_range(bpy)
    path = tmp_path / "free.urdf"
    path.write_text(arm_urdf().replace('<link name="base"/>', """<link name="base"><inertial>
      <mass value="5"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
      </inertial></link>"""))
    assert bpy.ops.mechanism.import_urdf(filepath=str(path), floating_base=True) == {"FINISHED"}
    base = bpy.data.objects["base"]
    assert not base.mechanism.ground and base.mechanism.mass == 5.0
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    baked_like_the_solver(bpy, path, ("base", "upper", "fore"), floating_base=True)


def test_a_millimetre_scene_takes_the_robot_in_its_units(blender, tmp_path) -> None:
    """Unit Scale 0.001: lengths are stored in millimetres and the typed-in masses in
    Blender's mass unit of that scale; the bake is the same motion in metres (the scene's
    gravity, in Blender units per s^2, set to 9.81 m/s^2 as the bake's note asks)."""
    bpy = blender
    bs.set_range(bpy)
    bpy.context.scene.unit_settings.scale_length = 0.001
    bpy.context.scene.gravity = (0.0, 0.0, -9810.0)
    path = tmp_path / "arm.urdf"
    path.write_text(arm_urdf())
    assert bpy.ops.mechanism.import_urdf(filepath=str(path)) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert np.allclose(bpy.data.objects["fore"].matrix_world.translation, (500, 0, 1000))
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    baked_like_the_solver(bpy, path, ("upper", "fore"))


def test_a_format_blender_cannot_read_is_named_and_skipped(blender, tmp_path) -> None:
    bpy = blender
    path = write_package(tmp_path, arm_with_visuals("tri.dae"), "tri.dae", "<COLLADA/>")
    assert bpy.ops.mechanism.import_urdf(filepath=str(path)) == {"FINISHED"}
    fore = bpy.data.objects["fore"]
    assert not [ob for ob in fore.children if ob.type == "MESH"]
    assert [ob for ob in bpy.data.objects["upper"].children if ob.type == "MESH"]
    assert fore.mechanism.role == "PART"


def test_a_bad_file_leaves_the_scene_unchanged(blender, tmp_path) -> None:
    bpy = blender
    bs.pendulum(bpy)
    before = bs.snapshot(bpy)
    blocks = {k: len(getattr(bpy.data, k)) for k in ("objects", "meshes", "collections", "materials")}
    bad = arm_urdf().replace('child link="fore"', 'child link="hand"')
    path = tmp_path / "bad.urdf"
    path.write_text(bad)
    with pytest.raises(RuntimeError, match=r"bad.urdf.*line 24: joint 'elbow': child link 'hand'"):
        bpy.ops.mechanism.import_urdf(filepath=str(path))
    # a file that fails half way: its mesh cannot be imported after the parts are made
    broken = write_package(tmp_path, arm_with_visuals("tri.stl"), mesh_text="not an STL at all")
    with pytest.raises(RuntimeError, match=r"line 13: fore visual 1: Blender could not import"):
        bpy.ops.mechanism.import_urdf(filepath=str(broken))
    assert bs.differences(before, bs.snapshot(bpy)) == []
    assert {k: len(getattr(bpy.data, k)) for k in blocks} == blocks


def test_the_command_line_imports_a_robot_into_a_blend_file(blender, extension, tmp_path,
                                                            capsys) -> None:
    """``blender -b -c mechanism import arm.urdf -o arm.blend``: the robot built in a new
    empty scene and saved, ready to bake (the extension still there after the new scene);
    a bad file fails naming its line and writes nothing."""
    import importlib
    bpy = blender
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    path = write_package(tmp_path, arm_with_visuals("tri.stl"))
    out = tmp_path / "arm.blend"
    assert cli._command(["import", str(path), "-o", str(out), "--package", str(tmp_path)]) == 0
    assert out.exists()
    bpy.ops.wm.open_mainfile(filepath=str(out))
    assert {"base", "upper", "fore", "shoulder", "elbow"} <= {ob.name for ob in bpy.data.objects}
    assert "Cube" not in bpy.data.objects                     # a new, empty scene
    assert bpy.data.objects["shoulder"].mechanism.role == "JOINT"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bad = tmp_path / "bad.urdf"
    bad.write_text(arm_urdf().replace('child link="fore"', 'child link="hand"'))
    assert cli._command(["import", str(bad), "-o", str(tmp_path / "bad.blend")]) == 1
    assert "line 24: joint 'elbow'" in capsys.readouterr().err
    assert not (tmp_path / "bad.blend").exists()
    assert cli._command(["import", "model.xml", "-o", "m.blend", "--floating-base"]) == 2
    model = tmp_path / "bob.xml"                   # a MuJoCo model takes the same command
    model.write_text('<mujoco model="bob"><worldbody><body name="bob" pos="0 0 -0.5">'
                     '<joint name="pin" type="hinge" axis="0 1 0" pos="0 0 0.5"/>'
                     '<geom type="sphere" size="0.05" mass="1"/></body></worldbody></mujoco>')
    assert cli._command(["import", str(model), "-o", str(tmp_path / "bob.blend")]) == 0
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "bob.blend"))
    assert bpy.data.objects["bob"].mechanism.role == "PART"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}


def test_links_named_like_their_joints_import_and_bake(blender, tmp_path) -> None:
    """Links 'shoulder' and 'elbow' on the joints of those names (URDF's namespaces are
    apart, Blender's is one): the joints are 'shoulder (joint)' and 'elbow (joint)', the
    mimic coupler joins those, and the bake is the solver's run of the file."""
    bpy = blender
    bs.set_range(bpy)
    text = arm_urdf(elbow_extra='<mimic joint="shoulder" multiplier="-2" offset="0.1"/>')
    for link, joint in (("upper", "shoulder"), ("fore", "elbow")):
        text = text.replace(f'name="{link}"', f'name="{joint}"').replace(f'link="{link}"',
                                                                        f'link="{joint}"')
    path = tmp_path / "named_like.urdf"
    path.write_text(text)
    assert bpy.ops.mechanism.import_urdf(filepath=str(path)) == {"FINISHED"}
    s = bpy.data.objects["elbow (joint): mimic"].mechanism
    assert (s.joint_a.name, s.joint_b.name) == ("elbow (joint)", "shoulder (joint)")
    assert bpy.data.objects["elbow"].mechanism.role == "PART"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    baked_like_the_solver(bpy, path, ("shoulder", "elbow"))
