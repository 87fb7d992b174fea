"""File > Import > MJCF and File > Export > MJCF in real Blender: a small MuJoCo model
imported as tagged objects bakes the motion the solver gives for the same file; a scene's
mechanism exported is the model MuJoCo loads; a bad file leaves the scene as it was.

Tolerances: Blender stores object matrices, typed-in masses and inertias in float32 (unit
round-off 6e-8); over a second of a double pendulum's swing those roundings grow to a few
1e-7 m, so baked poses are compared to 1e-5 m (quaternions to 1e-5), as for URDF."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import blender_scenes as bs
from test_io_addon import io

mm = io("mjcf_mechanism")
TOL = 1e-5
MODEL = """<mujoco model="double">
  <compiler angle="degree"/>
  <worldbody>
    <body name="upper" pos="0 0 1" euler="0 20 0">
      <joint name="shoulder" axis="0 1 0" range="-60 60" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
      <body name="fore" pos="0.5 0 0">
        <joint name="elbow" axis="0 1 0" frictionloss="0.01"/>
        <geom type="box" pos="0.2 0 0" size="0.2 0.02 0.03" density="2000" rgba="0.2 0.4 0.6 1"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="elbow motor" joint="elbow"/></actuator>
</mujoco>"""


def test_imported_model_bakes_as_the_solver_runs_the_file(blender, tmp_path) -> None:
    bpy = blender
    bs.set_range(bpy)
    path = tmp_path / "double.xml"
    path.write_text(MODEL)
    assert bpy.ops.mechanism.import_mjcf(filepath=str(path)) == {"FINISHED"}
    names = {ob.name for ob in bpy.data.collections["double"].objects}
    assert {"world", "upper", "fore", "shoulder", "elbow"} <= names
    s = bpy.data.objects["shoulder"].mechanism
    assert s.use_limit_upper and abs(s.limit_upper_angle - np.radians(60)) < 1e-7
    assert s.torsion and abs(s.torsion_damping - 0.05) < 1e-8
    assert bpy.data.objects["elbow"].mechanism.use_joint_friction
    geoms = [ob for ob in bpy.data.objects["fore"].children if ob.type == "MESH"]
    assert len(geoms) == 1
    assert np.allclose(geoms[0].data.materials[0].diffuse_color, (0.2, 0.4, 0.6, 1), atol=1e-7)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    m, _ = mm.mechanism_from_mjcf(str(path))
    frames = np.arange(bs.FRAME_START, bs.FRAME_END + 1)
    r = m.solve(times=(frames - frames[0]) / bpy.context.scene.render.fps, tolerance=1e-6)
    for name in ("upper", "fore"):
        f, loc, quat = bs.baked_pose(bpy.data.objects[name])
        assert np.abs(loc - r.position(name)).max() < TOL, name
        want = r.orientation(name)
        want *= np.where(np.sum(want * quat, axis=1) < 0, -1.0, 1.0)[:, None]
        assert np.abs(quat - want).max() < TOL, name


SLIDE_COUPLED = """<mujoco model="coupled">
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
    </body>
    <body name="carriage" pos="0 1 0">
      <joint name="rail" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.05 0.05 0.05"/>
    </body>
  </worldbody>
  <equality><joint joint1="rail" joint2="hinge" polycoef="0 0.2 0 0 0"/></equality>
</mujoco>"""


@pytest.mark.parametrize("unit", [1.0, 0.001])
def test_a_slide_coupled_to_a_hinge_keeps_its_metres_per_radian(blender, tmp_path, unit) -> None:
    """A carriage's slide tied to an arm's hinge angle (0.2 m per rad, a joint equality),
    imported into a scene at Unit Scale ``unit``: the coupler's Scale on the slide counts
    Blender units, so it is written as 1 times the unit scale, and the bake is the solver's
    run of the file, in metres (the carriage 0.2 m per rad of the swing, not 0.2 mm)."""
    bpy = blender
    bs.set_range(bpy)
    bpy.context.scene.unit_settings.scale_length = unit
    bpy.context.scene.gravity = (0.0, 0.0, -9.81 / unit)
    path = tmp_path / "coupled.xml"
    path.write_text(SLIDE_COUPLED)
    assert bpy.ops.mechanism.import_mjcf(filepath=str(path)) == {"FINISHED"}
    s, = [ob.mechanism for ob in bpy.data.objects if ob.mechanism.role == "COUPLER"]
    assert (s.coordinate_a, s.coordinate_b) == ("SLIDE", "ANGLE")
    assert s.scale_a == pytest.approx(unit, rel=1e-7) and s.scale_b == pytest.approx(-0.2, rel=1e-7)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    m, _ = mm.mechanism_from_mjcf(str(path))
    frames = np.arange(bs.FRAME_START, bs.FRAME_END + 1)
    r = m.solve(times=(frames - frames[0]) / bpy.context.scene.render.fps, tolerance=1e-6)
    assert np.ptp(r.position("carriage")[:, 0]) > 0.05               # the slide moves
    for name in ("arm", "carriage"):
        _, loc, _ = bs.baked_pose(bpy.data.objects[name])
        assert np.abs(loc * unit - r.position(name)).max() < TOL, name


def test_exported_scene_swings_in_mujoco_as_it_bakes(blender, tmp_path) -> None:
    """The pendulum scene exported, run by MuJoCo (RK4, 400 steps a frame, dt ~1e-4 s: its
    error ~1e-10 m here), follows the baked keys to TOL."""
    mujoco = pytest.importorskip("mujoco")
    bpy = blender
    bs.pendulum(bpy)
    path = tmp_path / "pendulum.xml"
    assert bpy.ops.mechanism.export_mjcf(filepath=str(path)) == {"FINISHED"}
    fps = bpy.context.scene.render.fps
    steps = 400                                    # MuJoCo steps a frame: dt ~ 1e-4 s
    text = path.read_text().replace('timestep="0.001"', f'timestep="{1 / (fps * steps)!r}"')
    model = mujoco.MjModel.from_xml_string(text)
    assert model.njnt == 1 and model.jnt_type[0] == mujoco.mjtJoint.mjJNT_HINGE
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    f, loc, _ = bs.baked_pose(bpy.data.objects["arm"])
    data = mujoco.MjData(model)
    theirs = []
    for k in range(len(f)):
        if k:
            mujoco.mj_step(model, data, nstep=steps)
        mujoco.mj_forward(model, data)
        theirs.append(data.xpos[model.body("arm").id].copy())
    assert np.abs(loc - np.array(theirs)).max() < TOL


def test_a_bad_mjcf_file_leaves_the_scene_unchanged(blender, tmp_path) -> None:
    bpy = blender
    bs.pendulum(bpy)
    before = bs.snapshot(bpy)
    blocks = {k: len(getattr(bpy.data, k)) for k in ("objects", "meshes", "collections", "materials")}
    path = tmp_path / "bad.xml"
    path.write_text(MODEL.replace('frictionloss="0.01"', 'frictionloss="x"'))
    with pytest.raises(RuntimeError, match=r"bad.xml.*line 8: <joint name='elbow'>: frictionloss"):
        bpy.ops.mechanism.import_mjcf(filepath=str(path))
    assert bs.differences(before, bs.snapshot(bpy)) == []
    assert {k: len(getattr(bpy.data, k)) for k in blocks} == blocks


MESHED = """<mujoco model="meshed"><compiler meshdir="parts"/>
  <asset><mesh name="link" file="link.obj" scale="0.1 0.1 0.1"/></asset>
  <worldbody><body name="arm" pos="0 0 1"><joint axis="0 1 0"/>
    <geom type="mesh" mesh="link" pos="0.2 0 0" density="500"/></body></worldbody></mujoco>"""


def test_a_body_of_a_mesh_file_imports_with_mujocos_mass_and_a_missing_file_is_named(
        blender, tmp_path) -> None:
    """A unit cube OBJ (scale 0.1: 1e-3 m^3, 0.5 kg at 500 kg/m^3) in the meshdir gives
    the part its mass (the typed-in mass is float32: 1e-7 relative); the same model with
    the file gone is refused naming the mesh's line, the scene as it was."""
    bpy = blender
    (tmp_path / "parts").mkdir()
    corners = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]
    quads = [(1, 2, 4, 3), (5, 7, 8, 6), (1, 5, 6, 2), (3, 4, 8, 7), (1, 3, 7, 5), (2, 6, 8, 4)]
    (tmp_path / "parts" / "link.obj").write_text(
        "".join(f"v {x} {y} {z}\n" for x, y, z in corners)
        + "".join(f"f {a} {b} {c} {d}\n" for a, b, c, d in quads))
    path = tmp_path / "meshed.xml"
    path.write_text(MESHED)
    assert bpy.ops.mechanism.import_mjcf(filepath=str(path)) == {"FINISHED"}
    assert abs(bpy.data.objects["arm"].mechanism.mass - 0.5) < 1e-7
    (tmp_path / "parts" / "link.obj").unlink()
    before = bs.snapshot(bpy)
    blocks = {k: len(getattr(bpy.data, k)) for k in ("objects", "meshes", "collections")}
    with pytest.raises(RuntimeError, match=r"meshed.xml.*line 2: mesh 'link' .*no mesh file"):
        bpy.ops.mechanism.import_mjcf(filepath=str(path))
    assert bs.differences(before, bs.snapshot(bpy)) == []
    assert {k: len(getattr(bpy.data, k)) for k in blocks} == blocks


def test_command_line_writes_the_model_of_a_blend_file(blender, extension, tmp_path,
                                                      capsys) -> None:
    mujoco = pytest.importorskip("mujoco")
    bpy = blender
    bs.pendulum(bpy)
    blend, out = str(tmp_path / "in.blend"), str(tmp_path / "model.xml")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    cli = importlib.import_module(extension.__name__ + ".addon.cli")
    assert cli.mjcf_file(blend, out) == 0
    model = mujoco.MjModel.from_xml_path(out)
    assert model.nbody == 2 and model.njnt == 1
    # a joint without its marker J: the command fails naming the joint, writing nothing
    joint = next(ob for ob in bpy.data.objects if ob.mechanism.role == "JOINT")
    joint.mechanism.marker_j = None
    bad = str(tmp_path / "bad.blend")
    bpy.ops.wm.save_as_mainfile(filepath=bad)
    assert cli.mjcf_file(bad, str(tmp_path / "bad.xml")) == 1
    assert "mechanism mjcf failed" in capsys.readouterr().err
    assert not (tmp_path / "bad.xml").exists()


def test_a_cylindrical_joints_second_stop_is_named_not_dropped(blender, extension, tmp_path) -> None:
    bpy = blender
    path = tmp_path / "sleeve.xml"
    path.write_text("""<mujoco model="sleeve"><worldbody><body name="sleeve">
      <joint name="rod: angle" type="hinge" range="-30 30"/>
      <joint name="rod: slide" type="slide" range="-0.1 0.1"/>
      <geom size="0.05"/></body></worldbody></mujoco>""")
    io_ = importlib.import_module(extension.__name__ + ".addon.mjcf_io")
    _, report, warnings = io_.import_mjcf(bpy.context, str(path))
    s = bpy.data.objects["rod"].mechanism
    assert s.joint_kind == "CYLINDRICAL" and s.limit_coordinate == "ANGLE"
    assert abs(s.limit_upper_angle - np.radians(30)) < 1e-6
    assert warnings == ["'rod: slide: limit' is not written (a joint holds one of each; add it "
                        "by hand)"]
