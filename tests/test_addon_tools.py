"""Add-on tools not covered elsewhere: Add Marker at the cursor and at a selected face, Export
CSV, parented parts, springs and forces through the scene (the force-arrow geometry and the
solver's progress callback that the modal bake uses are tested without Blender in
test_io_addon.py)."""
from __future__ import annotations

import csv
import math
import os
import re

import numpy as np
import pytest

import blender_scenes as bs


def test_add_marker_at_cursor(blender) -> None:
    bpy = blender
    part = bs.add_box(bpy, "body", (1, 1, 1), (1.0, 2.0, 3.0))
    bs.tag(bpy, [part], "PART")
    bpy.context.scene.cursor.location = (1.5, 2.0, 3.0)
    bs.select(bpy, [part], part)
    assert bpy.ops.mechanism.add_marker() == {"FINISHED"}
    mk = bpy.context.scene.objects["body.marker"]
    bpy.context.view_layer.update()
    assert mk.parent == part and mk.mechanism.role == "MARKER"
    np.testing.assert_allclose(mk.matrix_world.translation, (1.5, 2.0, 3.0), atol=1e-6)


def test_add_marker_on_selected_face_is_aligned_to_its_normal(blender) -> None:
    """The top face of a cube turned 30 degrees about x: the marker sits at the face centre
    with z along the face's world normal (0, -sin 30, cos 30)."""
    bpy = blender
    part = bs.add_box(bpy, "body", (2, 2, 2), (0.0, 0.0, 0.0), rotation=(math.radians(30), 0, 0))
    bs.tag(bpy, [part], "PART")
    bs.select(bpy, [part], part)
    bpy.ops.object.mode_set(mode="EDIT")
    import bmesh
    bm = bmesh.from_edit_mesh(part.data)
    for f in bm.faces:
        f.select = f.normal.z > 0.9            # local +z face
    bmesh.update_edit_mesh(part.data)
    assert bpy.ops.mechanism.add_marker() == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    mk = bpy.context.scene.objects["body.marker"]
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    # the face centre: the unit cube's local (0, 0, 0.5), scaled by 2, turned about x
    np.testing.assert_allclose(mk.matrix_world.translation, (0.0, -s, c), atol=1e-5)
    z = np.array(mk.matrix_world.to_3x3().col[2])
    np.testing.assert_allclose(z / np.linalg.norm(z), (0.0, -s, c), atol=1e-6)



def test_add_marker_goes_on_the_face_selected_last(blender) -> None:
    """Several faces selected (the +x face, then the -z face, clicked in that order): the
    marker goes on the face clicked last, the active one, at its centre with z along its
    normal, whatever the faces' order in the mesh (it went on the highest-indexed one)."""
    bpy = blender
    part = bs.add_box(bpy, "body", (2, 2, 2), (0.0, 0.0, 0.0))
    bs.tag(bpy, [part], "PART")
    bs.select(bpy, [part], part)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="DESELECT")
    import bmesh
    bm = bmesh.from_edit_mesh(part.data)
    bm.faces.ensure_lookup_table()
    side = next(f for f in bm.faces if f.normal.x > 0.9)
    bottom = next(f for f in bm.faces if f.normal.z < -0.9)
    for first, last in ((bottom, side), (side, bottom)):
        bpy.ops.mesh.select_all(action="DESELECT")
        bm.select_history.clear()
        for f in (first, last):
            f.select = True
            bm.select_history.add(f)
        bm.faces.active = last
        bmesh.update_edit_mesh(part.data)
        before = set(bpy.data.objects)
        assert bpy.ops.mechanism.add_marker() == {"FINISHED"}
        mk, = set(bpy.data.objects) - before
        bpy.context.view_layer.update()
        want = np.array(last.normal)                  # the unit-scaled cube's face centre
        np.testing.assert_allclose(mk.matrix_world.translation, want, atol=1e-5)
        z = np.array(mk.matrix_world.to_3x3().col[2])
        np.testing.assert_allclose(z / np.linalg.norm(z), want, atol=1e-6)
    bpy.ops.object.mode_set(mode="OBJECT")

def test_add_marker_needs_a_selection_in_edit_mode(blender) -> None:
    bpy = blender
    part = bs.add_box(bpy, "body", (1, 1, 1), (0, 0, 0))
    bs.tag(bpy, [part], "PART")
    bs.select(bpy, [part], part)
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="DESELECT")
    with pytest.raises(RuntimeError, match="part 'body': select a vertex or face first"):
        bpy.ops.mechanism.add_marker()
    bpy.ops.object.mode_set(mode="OBJECT")
    assert not [o for o in bpy.data.objects if o.mechanism.role == "MARKER"]


def test_export_csv(blender, tmp_path) -> None:
    """One row per frame; the arm's x column matches the solver's result for the scene, and
    the joints' angle and slide columns their closed forms."""
    bpy = blender
    bs.slider_crank(bpy)
    path = tmp_path / "forces.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(path)) == {"FINISHED"}
    rows = list(csv.reader(open(path)))
    assert rows[0][:2] == ["frame", "time_s"]
    assert len(rows) == 1 + bs.FRAME_END - bs.FRAME_START + 1
    header = rows[0]
    col = header.index("piston x_m")
    th = 2 * np.pi * np.array([float(r[1]) for r in rows[1:]])
    x = np.array([float(r[col]) for r in rows[1:]])
    # the piston's frame origin is its cube centre on the slide: crank + rod at th = 0
    x_exact = 0.1 * np.cos(th) + np.sqrt(0.3 ** 2 - (0.1 * np.sin(th)) ** 2)
    np.testing.assert_allclose(x, x_exact, atol=1e-6)    # float32 scene geometry
    main = bpy.context.scene.objects["Revolute crank-block"]
    assert [h for h in header if "effort" in h] == [f"{main.name} motion_effort_Nm"]
    # the main bearing's angle is its motion, 2 pi t, a turn over the frames (turns kept);
    # the cylinder's slide the piston's travel from where it was built, x - 0.4
    angle = np.array([float(r[header.index(f"{main.name} angle_rad")]) for r in rows[1:]])
    np.testing.assert_allclose(angle, th, atol=1e-6)
    slide = [h for h in header if h.endswith(" slide_m")]
    assert len(slide) == 1, slide
    travel = np.array([float(r[header.index(slide[0])]) for r in rows[1:]])
    np.testing.assert_allclose(np.abs(travel), np.abs(x - 0.4), atol=1e-6)


def test_export_csv_reports_a_bad_path(blender, tmp_path) -> None:
    """A file in a folder that does not exist: Export CSV names the folder (not a bare
    "[Errno 2] ..."), and writes nothing."""
    bpy = blender
    bs.slider_crank(bpy)
    missing = tmp_path / "missing"
    with pytest.raises(RuntimeError) as err:
        bpy.ops.mechanism.export_csv(filepath=str(missing / "f.csv"))
    assert f"Export CSV: the folder {str(missing)!r} does not exist" in str(err.value)
    assert "Errno" not in str(err.value)
    assert os.listdir(tmp_path) == []
    with pytest.raises(RuntimeError, match=f"Export CSV: {re.escape(repr(str(tmp_path)))} is a folder"):
        bpy.ops.mechanism.export_csv(filepath=str(tmp_path))


def test_export_csv_of_an_unsaved_file(blender, tmp_path, monkeypatch, capfd) -> None:
    """In an unsaved file the default path '//mechanism.csv' has no folder: Export
    CSV says so and writes nothing (not into the folder Blender was started from); once the
    file is saved it writes next to it and reports the absolute path."""
    bpy = blender
    bs.slider_crank(bpy)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match=r"'//mechanism.csv' is relative to the .blend file, "
                                           r"which is not saved"):
        bpy.ops.mechanism.export_csv()
    assert os.listdir(tmp_path) == []
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "crank.blend"))
    capfd.readouterr()
    assert bpy.ops.mechanism.export_csv() == {"FINISHED"}
    assert (tmp_path / "mechanism.csv").is_file()
    assert f"frames to {tmp_path / 'mechanism.csv'}" in capfd.readouterr().out


def test_bake_of_parented_parts(blender, extension) -> None:
    """A part parented to a turned, moved Empty and a part parented to another moving part:
    the baked keys are in parent space, and the evaluated world poses equal the solver's."""
    bpy = blender
    from mathutils import Euler, Matrix
    bs.set_range(bpy)
    rig = bs.empty(bpy, "Rig")
    rig.matrix_world = Matrix.Translation((0.3, -0.2, 0.1)) @ Euler((0.2, 0.1, 0.4)).to_matrix().to_4x4()
    ground, arm = bs.ground_and_arm(bpy)
    tip = bs.add_box(bpy, "tip", (0.4, 0.1, 0.1), (1.2, 0, 0))
    bs.tag(bpy, [tip], "PART")
    bpy.context.view_layer.update()
    for child, parent in ((arm, rig), (tip, arm)):
        child.parent = parent
        child.matrix_parent_inverse = parent.matrix_world.inverted()
    j1 = bs.connect(bpy, arm, ground, (0, 0, 0), axis="Y")
    j2 = bs.connect(bpy, tip, arm, (1.0, 0, 0), axis="Y")
    bakes_as_solved(bpy, extension, (j1, j2), (arm, tip), every=6)


def bakes_as_solved(bpy, extension, joints, parts, every: int) -> None:
    """The shoulder and elbow pins ``joints`` driven 0.5 sin(2 pi t) and t, the scene read
    and solved, then baked: every ``every``-th frame each of ``parts`` evaluates in the
    viewport at the solver's pose (2e-6, float32)."""
    import importlib
    for j, expr in zip(joints, ("0.5*sin(2*pi*t)", "t")):
        j.mechanism.motion_type, j.mechanism.motion_expression = "EXPRESSION", expr
    reader = importlib.import_module(extension.__name__ + ".addon.scene_reader")
    sm = reader.read_scene(bpy.context.scene)
    result = sm.mech.solve(sm.duration, sm.fps)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    quat_to_matrix = extension.solver.base.rotations.quat_to_matrix
    for frame in range(bs.FRAME_START, bs.FRAME_END + 1, every):
        bpy.context.scene.frame_set(frame)
        i = frame - bs.FRAME_START
        for ob in parts:
            M = np.array(ob.matrix_world)
            np.testing.assert_allclose(M[:3, 3], result.position(ob.name)[i], atol=2e-6,
                                       err_msg=f"{ob.name} at frame {frame}")
            R = M[:3, :3] / np.linalg.norm(M[:3, :3], axis=0)
            np.testing.assert_allclose(R, quat_to_matrix(result.orientation(ob.name)[i]), atol=2e-6)


def arm_with_a_tip_on_an_empty(bpy):
    """The pendulum's arm with a tip part (box 0.4 m from x = 1) pinned to it at x = 1 about
    world y, the tip parented to an Empty ("hinge frame", at the elbow) that is parented to
    the arm; returns (arm, tip, shoulder pin, elbow pin)."""
    bs.set_range(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    tip = bs.add_box(bpy, "tip", (0.4, 0.1, 0.1), (1.2, 0, 0))
    bs.tag(bpy, [tip], "PART")
    elbow = bs.empty(bpy, "hinge frame")
    elbow.location = (1.0, 0.0, 0.0)
    bpy.context.view_layer.update()
    for child, parent in ((elbow, arm), (tip, elbow)):
        child.parent = parent
        child.matrix_parent_inverse = parent.matrix_world.inverted()
        bpy.context.view_layer.update()
    j1 = bs.connect(bpy, arm, ground, (0, 0, 0), axis="Y")
    j2 = bs.connect(bpy, tip, arm, (1.0, 0, 0), axis="Y")
    return arm, tip, j1, j2


def test_a_part_on_an_empty_that_rides_a_moving_part(blender, extension) -> None:
    """The tip parented to an Empty that rides the driven arm: the tip's keys are in the
    Empty's space as the Empty moves with the arm, so the evaluated world poses equal the
    solver's on every frame (2e-6, float32).  Keyed under the Empty where it stood when
    read, the tip was left 0.42 m behind the arm at frame 7."""
    bpy = blender
    arm, tip, j1, j2 = arm_with_a_tip_on_an_empty(bpy)
    bakes_as_solved(bpy, extension, (j1, j2), (arm, tip), every=3)


def test_posing_carries_a_part_on_an_empty_that_rides_a_moving_part(blender) -> None:
    """The same arm and tip, posed by hand: the shoulder's Angle set to 0.5 rad turns the
    arm, and the tip is placed through the Empty as the Empty moves with the arm, so both
    pins stay closed (float32: 1e-6 m).  Placed under the Empty where it stood, the elbow
    pin opened 0.49 m."""
    bpy = blender
    arm, tip, j1, j2 = arm_with_a_tip_on_an_empty(bpy)
    j1.mechanism.wiggle_angle = 0.5
    bpy.context.view_layer.update()
    assert bpy.context.scene.mechanism.report == ""
    for pin in (j1, j2):
        mi, mj = pin.mechanism.marker_i, pin.mechanism.marker_j
        gap = np.linalg.norm(np.array(mi.matrix_world.translation) - np.array(mj.matrix_world.translation))
        assert gap < 1e-6, (pin.name, gap)
    x = np.array(arm.matrix_world.col[0][:3])
    assert abs(np.arctan2(-x[2], x[0]) - 0.5) < 1e-6                # the arm turned


@pytest.mark.slow
def test_spring_force_and_torsion_through_the_scene(blender) -> None:
    """A 2 kg block (box 0.1 m, density 2000) on a vertical slider hangs from a spring of
    400 N/m (free length 0.5 m) and is pushed up by a FORCE of "0, 0, 5" N: its height
    follows m z'' = -k (z - z_eq) about z_eq = -0.5 - (m g - 5) / k, released at rest from
    z0 = -0.5.  A rotor on a pin with a torsion spring (k 3 N m/rad, released 0.4 rad
    from its free angle) swings as theta = 0.4 cos(sqrt(k/I) t)."""
    bpy = blender
    bs.set_range(bpy, 1, 25)
    scene = bpy.context.scene
    scene.mechanism.tolerance = 1e-9
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, 0.5))
    block = bs.add_box(bpy, "block", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    bs.tag(bpy, [ground, block], "PART")
    ground.mechanism.ground = True
    block.mechanism.density = 2000.0
    slide = bs.connect(bpy, block, ground, (0.0, 0.0, -0.5), "PRISMATIC", "Z")
    top = bs.add_marker(bpy, ground, (0.0, 0.0, 0.0))
    hook = bs.add_marker(bpy, block, (0.0, 0.0, -0.5))
    bs.new_spring(bpy, "spring", hook, top, stiffness=400.0, use_free_length=True, free_length=0.5)
    bs.new_force(bpy, "push", hook, force="0, 0, 5")
    rotor = bs.add_box(bpy, "rotor", (0.4, 0.4, 0.05), (2.0, 0.0, 0.0))
    bs.tag(bpy, [rotor], "PART")
    pin = bs.connect(bpy, rotor, ground, (2.0, 0.0, 0.0), "REVOLUTE", "Z")
    p = pin.mechanism
    p.torsion, p.torsion_stiffness, p.torsion_free_angle = True, 3.0, -0.4
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    t = np.arange(25) / 24.0
    m, k = 2.0, 400.0
    z_eq = -0.5 - (m * 9.81 - 5.0) / k
    z = z_eq + (-0.5 - z_eq) * np.cos(np.sqrt(k / m) * t)
    np.testing.assert_allclose(bs.curve(block, "location", 2)[:, 1], z, atol=2e-6)   # float32 keys
    I = 1000.0 * 0.4 * 0.4 * 0.05 * (0.4 ** 2 + 0.4 ** 2) / 12        # box about its z axis
    w = bs.curve(rotor, "rotation_quaternion", 0)[:, 1], bs.curve(rotor, "rotation_quaternion", 3)[:, 1]
    theta = 2 * np.arctan2(w[1], w[0])
    np.testing.assert_allclose(theta, -0.4 + 0.4 * np.cos(np.sqrt(3.0 / I) * t), atol=2e-6)
    assert slide["reaction_force"] >= 0.0 and "motion_effort" not in slide.keys()


@pytest.mark.parametrize("kind, name", [("IN_LINE", "In-line rod-piston"),
                                        ("PARALLEL_AXES", "Parallel-axes rod-piston"),
                                        ("REVOLUTE", "Revolute rod-piston")])
def test_connect_names_the_joint_by_its_kind(blender, kind: str, name: str) -> None:
    """Connect names a joint as the Kind menu labels its kind, then the parts
    (not 'In_Line rod-piston')."""
    bpy = blender
    rod = bs.add_box(bpy, "rod", (0.3, 0.02, 0.02), (0.0, 0.0, 0.0))
    piston = bs.add_box(bpy, "piston", (0.05, 0.05, 0.05), (0.2, 0.0, 0.0))
    bs.tag(bpy, [rod, piston], "PART")
    joint = bs.connect(bpy, rod, piston, (0.15, 0.0, 0.0), kind)
    assert joint.name == name
    assert joint.mechanism.joint_kind == kind


def test_connect_evaluates_the_scene_once_with_its_new_objects(blender) -> None:
    """Connect places both markers from one evaluation of the scene made before it adds
    anything: evaluating it again between the markers (a depsgraph update per marker, its
    relations rebuilt for the new object) cost about 7 ms a marker with 150 connected
    parts against 0.4 ms with 10, so building a large mechanism slowed with every joint.
    The only evaluation that sees the new objects is the one after the operator.  A part
    moved by a script just before (not evaluated yet) still gets its marker at the cursor,
    parented with the part where it was moved to."""
    bpy = blender
    ground = bs.add_box(bpy, "ground", (1.0, 1.0, 0.1), (0.0, 0.0, 0.0))
    arm = bs.add_box(bpy, "arm", (1.0, 0.1, 0.1), (0.0, 0.0, 1.0))
    bs.tag(bpy, [ground, arm], "PART")
    bpy.context.view_layer.update()
    arm.location = (0.5, 0.0, 1.0)                  # moved, not evaluated
    seen = []

    def evaluated(scene, depsgraph):
        seen.append({u.id.name for u in depsgraph.updates})
    bpy.app.handlers.depsgraph_update_post.append(evaluated)
    try:
        joint = bs.connect(bpy, arm, ground, (0.0, 0.0, 1.0))
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(evaluated)
    made = {joint.name, joint.mechanism.marker_i.name, joint.mechanism.marker_j.name}
    assert [names & made for names in seen if names & made] == [made]
    bpy.context.view_layer.update()
    for marker, part in ((joint.mechanism.marker_i, arm), (joint.mechanism.marker_j, ground)):
        assert marker.parent == part
        # float32 matrices of a unit-sized scene: 1e-6 of it
        np.testing.assert_allclose(np.array(marker.matrix_world), np.array(joint.matrix_world),
                                   atol=1e-6)
        np.testing.assert_allclose(marker.matrix_world.translation, (0.0, 0.0, 1.0), atol=1e-6)


def test_greyed_out_buttons_say_why(blender) -> None:
    """Bake in Edit Mode, Connect without two parts and Add Marker without an
    active part are unavailable, and the reason comes with them (poll_message_set: the
    tooltip in the UI, the error text in a script)."""
    bpy = blender
    d = bs.pendulum(bpy)
    bs.select(bpy, [d["arm"]], d["arm"])
    with pytest.raises(RuntimeError, match="Select two parts; the active one gets marker I"):
        bpy.ops.mechanism.connect()
    bpy.ops.object.mode_set(mode="EDIT")
    with pytest.raises(RuntimeError, match=r"Bake works in Object Mode: leave Edit Mode"):
        bpy.ops.mechanism.bake()
    bpy.ops.object.mode_set(mode="OBJECT")
    bs.select(bpy, [d["pin"]], d["pin"])
    with pytest.raises(RuntimeError, match=r"Make a part the active object"):
        bpy.ops.mechanism.add_marker()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}


def test_panel_mass_is_never_a_stale_or_zero_number(blender) -> None:
    """Before Check the part's panel says when its mass is computed (not "Mass 0
    kg"); after Check it shows the 10 kg of the 1 x 0.1 x 0.1 m arm at 1000 kg/m^3 and its
    inertia; a new density hides the old number until Bake computes 20 kg, shown in the
    scene's mass unit (pounds in an Imperial scene, grams when picked)."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    bs.select(bpy, [arm], arm)

    def mass_lines() -> list[str]:
        labels = bs.panel_labels(bpy, "VIEW3D_PT_mechanism_object")
        return [t for t in labels if t.startswith(("Mass", "Ixx"))]

    assert mass_lines() == ["Mass: computed at Check or Bake"]
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    shown = mass_lines()
    assert shown[0] == "Mass 10 kg at the last Check or Bake" and shown[1].startswith("Ixx 0.0166")
    arm.mechanism.density = 2000.0
    assert mass_lines() == ["Mass: computed at Check or Bake"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert mass_lines()[0] == "Mass 20 kg at the last Check or Bake"
    # in the scene's mass unit, as the typed-in Mass field shows it (20 kg = 44.0925 lb)
    units = bpy.context.scene.unit_settings
    units.system = "IMPERIAL"
    assert units.mass_unit == "POUNDS"
    assert mass_lines()[0] == "Mass 44.0925 lb at the last Check or Bake"
    units.system, units.mass_unit = "METRIC", "GRAMS"
    assert mass_lines()[0] == "Mass 20000 g at the last Check or Bake"


def test_roles_keep_the_numbers_files_saved_them_with(blender, tmp_path) -> None:
    """Blender saves an enum as its item's number: the roles of 0.2.0 keep theirs (a Coupler
    saved then is 6 and must load as a Coupler), the later ones come after; and a file's
    roles read back as saved."""
    bpy = blender
    items = bpy.types.Object.bl_rna.properties["mechanism"].fixed_type.properties["role"].enum_items
    saved_by_020 = ["NONE", "PART", "MARKER", "JOINT", "SPRING", "FORCE", "COUPLER"]
    assert [items[r].value for r in saved_by_020] == list(range(7))
    assert sorted(i.value for i in items) == list(range(len(items)))
    roles = [i.identifier for i in items]
    for role in roles:
        ob = bpy.data.objects.new(f"probe {role}", None)
        bpy.context.scene.collection.objects.link(ob)
        ob.mechanism.role = role
    path = str(tmp_path / "roles.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    assert [bpy.data.objects[f"probe {r}"].mechanism.role for r in roles] == roles


def test_tagging_a_mesh_as_a_marker_tags_nothing(blender) -> None:
    """Set Role Marker on an Empty and a cube: refused naming the cube (a marker is an
    Empty), and the Empty is not tagged either: the scene is as it was."""
    bpy = blender
    empty = bs.empty(bpy, "E1")
    cube = bs.add_box(bpy, "Cube", (1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    bs.select(bpy, [empty, cube], cube)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=r"'Cube': not an Empty; a marker is an Empty "
                                           r"parented to a part .*nothing was tagged"):
        bpy.ops.mechanism.set_role(role="MARKER")
    assert empty.mechanism.role == "NONE" and cube.mechanism.role == "NONE"
    assert not bs.differences(before, bs.snapshot(bpy))


def test_remove_constant_with_none_selected_says_why(blender) -> None:
    """Remove Constant with the list empty (or nothing picked) is greyed out with its
    reason, not Blender's 'context is incorrect'."""
    bpy = blender
    with pytest.raises(RuntimeError, match="Select a constant in the list first"):
        bpy.ops.mechanism.constant_remove()
