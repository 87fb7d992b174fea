"""The add-on in real Blender (bpy): mechanisms tagged through the operators bake to the keyframes
and joint forces the solver API gives; mass properties from meshes; save/reload; re-bake and
Clear leave the user's animation alone; keyframed motions.  Scenes: blender_scenes.py.

Tolerances.  Blender stores keyframe values, object matrices and float properties in float32
(unit round-off 6e-8), so baked values are compared with 1e-6 relative to the largest value of
the quantity (margin 16x); the axes of markers made by Connect come from float32 rotation
matrices (cos(pi/2) = -4.4e-8), which moves a solution by the same order.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import blender_scenes as bs

F32 = 1e-6          # relative tolerance of float32-stored values (see the module docstring)
REACTIONS = ("reaction_force_x", "reaction_force_y", "reaction_force_z",
             "reaction_torque_x", "reaction_torque_y", "reaction_torque_z")


def close(got, want, rel: float = F32, what: str = "", ref: float | None = None) -> None:
    """|got - want| <= rel * max(1, ref) elementwise; ref defaults to max |want| (the size of
    the quantity, so that a component near zero gets the tolerance of its vector)."""
    want = np.asarray(want, float)
    atol = rel * max(1.0, float(np.abs(want).max()) if ref is None else ref)
    np.testing.assert_allclose(got, want, rtol=0, atol=atol, err_msg=what)


def aligned(q: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Quaternions q (n, 4) with the sign of each row chosen to match ref (q and -q are one turn)."""
    return q * np.where(np.sum(q * ref, axis=1) < 0, -1.0, 1.0)[:, None]


def check_bake(sm_parts, joints: dict, result, motions: dict) -> None:
    """Every baked key of parts and joints equals ``result`` (frames FRAME_START..FRAME_END)."""
    frames = np.arange(bs.FRAME_START, bs.FRAME_END + 1, dtype=float)
    assert len(result.times) == len(frames)
    for ob in sm_parts:
        f, loc, quat = bs.baked_pose(ob)
        np.testing.assert_array_equal(f, frames)
        close(loc, result.position(ob.name), what=f"{ob.name} location")
        close(quat, aligned(result.orientation(ob.name), quat), what=f"{ob.name} quaternion")
        assert ob.rotation_mode == "QUATERNION"
    for name, ob in joints.items():
        F, T = result.reaction(name)
        want = dict(zip(REACTIONS, (*F.T, *T.T)), reaction_force=np.linalg.norm(F, axis=1),
                    reaction_torque=np.linalg.norm(T, axis=1))
        for prop, values in want.items():
            k = bs.curve(ob, f'["{prop}"]', action=ob.mechanism.bake_action)
            np.testing.assert_array_equal(k[:, 0], frames)
            # torques: a marker axis off by ~4e-8 rad (float32) moves F's line of action by
            # that times the lever (< 1 m here), so torques get the force's size in N m too
            fmax, tmax = np.linalg.norm(F, axis=1).max(), np.linalg.norm(T, axis=1).max()
            size = fmax if "force" in prop else max(tmax, fmax * 1.0)
            close(k[:, 1], values, ref=size, what=f"{name} {prop}")
        motion = motions.get(name)
        assert ("motion_effort" in ob.keys()) == (motion is not None)
        if motion is not None:
            e = result.effort(motion)
            k = bs.curve(ob, '["motion_effort"]', action=ob.mechanism.bake_action)
            close(k[:, 1], e, what=f"{name} effort")


# ---------------------------------------------------------------- 1. bake = solver API
def test_pendulum_bake_equals_solver(blender, extension) -> None:
    """Dynamic pendulum tagged with Set Role and Connect: the bake equals the solver API's
    solution of the same mechanism built by hand from the geometry in blender_scenes."""
    bpy = blender
    d = bs.pendulum(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    M = extension.solver.Mechanism
    m = M(gravity=(0.0, 0.0, -9.81))
    mass = 1000.0 * 1.0 * 0.1 * 0.1                 # density x box volume
    m.add_part("ground", fixed=True, position=(0, 0, -0.3))
    m.add_part("arm", mass=mass, position=(0.5, 0, 0),
               inertia=(mass / 12 * 0.02, mass / 12 * 1.01, mass / 12 * 1.01))
    q_y = (math.cos(math.pi / 4), -math.sin(math.pi / 4), 0.0, 0.0)   # marker z along world y
    m.add_marker("I", "arm", position=(-0.5, 0, 0), orientation=q_y)
    m.add_marker("J", "ground", position=(0, 0, 0.3), orientation=q_y)
    m.add_joint(d["pin"].name, "revolute", "I", "J")
    r = m.solve(1.0, 24, analysis="dynamic", tolerance=1e-9)
    check_bake([d["arm"]], {d["pin"].name: d["pin"]}, r, {})
    assert d["arm"].mechanism.computed_mass == pytest.approx(mass, rel=F32)
    # the keys are what Blender evaluates: the arm's world matrix at some frames
    for k in (0, 7, 24):
        bpy.context.scene.frame_set(bs.FRAME_START + k)
        W = np.array(d["arm"].matrix_world)
        R = extension.solver.base.rotations.quat_to_matrix(r.orientation("arm")[k])
        close(W[:3, 3], r.position("arm")[k], what=f"frame {k} position")
        close(W[:3, :3], R @ np.diag([1.0, 0.1, 0.1]), what=f"frame {k} axes")


def test_slider_crank_bake_equals_solver(blender, extension) -> None:
    """Driven slider-crank (Connect, Add Marker, a joint made by hand, expression motion):
    keys, reactions and motor torque equal read_scene(scene).mech solved by the API; the piston
    follows the closed form x = r cos(theta) + sqrt(l^2 - r^2 sin^2 theta)."""
    bpy = blender
    d = bs.slider_crank(bpy)
    reader = extension.addon.scene_reader
    sm = reader.read_scene(bpy.context.scene)
    assert [p.name for p in sm.parts] == ["crank", "rod", "piston"]
    assert sm.mech.check().driven_dof == 0
    r = sm.mech.solve(sm.duration, sm.fps, analysis="kinematic")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    joints = {d[k].name: d[k] for k in ("main", "big_end", "cylinder", "small_end")}
    check_bake([d["crank"], d["rod"], d["piston"]], joints, r,
               {d["main"].name: f"{d['main'].name}: motion"})
    _, loc, _ = bs.baked_pose(d["piston"])
    th = 2 * np.pi * (np.arange(25) / 24.0)
    x = 0.1 * np.cos(th) + np.sqrt(0.3**2 - (0.1 * np.sin(th)) ** 2)
    close(loc[:, 0], x, what="piston x against the closed form")
    close(loc[:, 1:], 0.0 * loc[:, 1:], what="piston stays on the x axis")


def test_motion_on_a_prismatic_joint_drives_its_slide(blender, extension) -> None:
    """The sidebar shows a prismatic joint's motion without a Coordinate choice (it can
    only be the slide): a motion set there drives the slider along its axis, whatever the
    hidden choice says (it defaults to Angle, which the joint does not have)."""
    bpy = blender
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "rail", (1.0, 0.05, 0.05), (0.0, 0.0, -0.1))
    slider = bs.add_box(bpy, "slider", (0.1, 0.1, 0.1), (0.2, 0.0, 0.0))
    bs.tag(bpy, [ground, slider], "PART")
    ground.mechanism.ground = True
    joint = bs.connect(bpy, slider, ground, (0.2, 0.0, 0.0), "PRISMATIC", "X")
    s = joint.mechanism
    s.motion_type, s.motion_expression = "EXPRESSION", "0.1*t + 0.02*sin(2*pi*t)"
    assert s.motion_coordinate == "ANGLE"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, loc, _ = bs.baked_pose(slider)
    t = np.arange(len(loc)) / 24.0
    close(loc[:, 0], 0.2 + 0.1 * t + 0.02 * np.sin(2 * np.pi * t), what="slider x follows its motion")


@pytest.mark.parametrize("scale", [(-0.8, 0.1, 0.05), (-1.0, -0.1, 0.1)])
def test_negative_scale_bakes_the_solver_pose(blender, extension, scale) -> None:
    """A pendulum arm mirrored by a negative scale (one axis: a
    reflection; two: a half turn about the third, as the polar decomposition reads
    them) keeps its scale channel, and the baked rotation with it puts the arm and its
    markers at the solver's frames: the world matrices [R(q) S, position] of the part and
    the marker frames of Result.marker_frame, at frames 1, 9 and 25."""
    bpy = blender
    bs.set_range(bpy)
    ground, arm = bs.ground_and_arm(bpy)
    arm.scale = scale
    pin = bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    tip = bs.add_marker(bpy, arm, (0.9, 0.0, 0.05))
    bpy.context.scene.mechanism.tolerance = 1e-9
    addon = extension.addon
    sm = addon.scene_reader.read_scene(bpy.context.scene)
    r = sm.mech.solve(times=sm.timeline.times, analysis="dynamic", tolerance=1e-9)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    stretch = sm.part_frames["arm"].stretch
    for f in (1, 9, 25):
        bpy.context.scene.frame_set(f)
        k = f - bs.FRAME_START
        W = addon.io.part_frames.pose_matrices(r.position("arm")[k], r.orientation("arm")[k],
                                               stretch, sm.scale)
        close(np.array(arm.matrix_world), W, what=f"frame {f}: the arm's world matrix")
        close(np.array(arm.scale), scale, what="the scale channel is kept")
        for mk in (pin.mechanism.marker_i, tip):
            origin, axes = r.marker_frame(mk.name)
            M = np.array(mk.matrix_world)
            close(M[:3, 3], origin[k], what=f"frame {f}: {mk.name} origin")
            close(M[:3, :3] / np.linalg.norm(M[:3, :3], axis=0), axes[k],
                  what=f"frame {f}: {mk.name} axes")


# ---------------------------------------------------------------- 2. mass properties
def polygon_moment(n: int) -> tuple[float, float]:
    """(area, polar second moment per unit area) of a regular n-gon of circumradius 1: n
    triangles (0, a, b) with |a| = |b| = 1 at angle 2 pi/n; int x x^T dA of a triangle with a
    vertex at 0 is A/12 (a a^T + b b^T + (a+b)(a+b)^T), trace A/6 (1 + 2 cos^2(pi/n))."""
    return n / 2 * math.sin(2 * math.pi / n), (1 + 2 * math.cos(math.pi / n) ** 2) / 6


def box_moments() -> tuple[float, np.ndarray]:
    """(volume, int x x^T dV about the centre (diagonal)) of the cube [-1, 1]^3."""
    return 8.0, 8.0 * np.full(3, 1 / 3)


def cylinder_moments(n: int) -> tuple[float, np.ndarray]:
    """Prism on the regular n-gon of circumradius 1, z in [-1, 1]."""
    area, j = polygon_moment(n)
    v = 2 * area
    return v, v * np.array([j / 2, j / 2, 1 / 3])


def sphere_moments(segments: int, rings: int) -> tuple[float, np.ndarray]:
    """Blender's UV sphere of radius 1 (rings at polar angles k pi/rings, a regular
    ``segments``-gon section whose circumradius is linear in z within each band): the
    integrals band by band by 3-point Gauss-Legendre, exact for these degree-4 polynomials."""
    area, j = polygon_moment(segments)
    x, w = np.polynomial.legendre.leggauss(3)
    ang = np.arange(rings + 1) * math.pi / rings
    z, rho = np.cos(ang), np.sin(ang)
    v = izz = iz2 = 0.0
    for k in range(rings):
        h = z[k] - z[k + 1]
        zz = z[k + 1] + h * (x + 1) / 2
        rr = rho[k + 1] + (rho[k] - rho[k + 1]) * (x + 1) / 2
        v += h / 2 * np.sum(w * area * rr**2)
        izz += h / 2 * np.sum(w * area * j * rr**4)
        iz2 += h / 2 * np.sum(w * area * rr**2 * zz**2)
    return v, np.array([izz / 2, izz / 2, iz2])


SHAPES = {  # name: (add primitive, exact moments, continuous volume, its relative tolerance)
    "box": (lambda bpy: bpy.ops.mesh.primitive_cube_add(size=2.0), box_moments, 8.0, 1e-12),
    # polygon area deficit 1 - sin(x)/x ~ x^2/6 with x = 2 pi/64: 1.6e-3
    "cylinder": (lambda bpy: bpy.ops.mesh.primitive_cylinder_add(vertices=64, radius=1.0, depth=2.0),
                 lambda: cylinder_moments(64), 2 * math.pi, 2e-3),
    # inscribed polyhedron: volume deficit of order (pi/32)^2: 1e-2
    "sphere": (lambda bpy: bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=32, radius=1.0),
               lambda: sphere_moments(64, 32), 4 / 3 * math.pi, 1e-2),
}
SCALE, ROT, LOC, SHIFT = (0.5, 1.5, 2.0), (0.3, -0.5, 0.7), (1.0, 2.0, 3.0), (0.1, -0.2, 0.3)
DENSITY = 2700.0


def euler_xyz(a: tuple) -> np.ndarray:
    """Blender's XYZ Euler rotation matrix Rz @ Ry @ Rx."""
    cx, cy, cz = np.cos(a)
    sx, sy, sz = np.sin(a)
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


@pytest.mark.parametrize("shape", SHAPES)
def test_mesh_mass_properties(blender, extension, shape: str) -> None:
    """Scaled, rotated primitive with its mesh shifted off the origin: Check shows the exact
    mass and inertia of the polygonal solid; the solver part has them, and its COM is S d."""
    bpy = blender
    add, moments, v_cont, v_tol = SHAPES[shape]
    add(bpy)
    ob = bpy.context.active_object
    ob.name = shape
    from mathutils import Matrix
    ob.data.transform(Matrix.Translation(SHIFT))
    ob.scale, ob.rotation_euler, ob.location = SCALE, ROT, LOC
    bs.tag(bpy, [ob], "PART")
    ob.mechanism.mass_mode, ob.mechanism.density = "MESH", DENSITY
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    v0, c0 = moments()
    assert abs(v0 / v_cont - 1) < v_tol            # it is the intended solid
    S = np.array(SCALE)
    mass = DENSITY * v0 * np.prod(S)
    C = c0 * S**2 * np.prod(S)                      # affine image: x -> S x, dV -> det S dV
    inertia = DENSITY * np.diag(C.sum() - C)        # principal: trace(C) - C_ii
    s = ob.mechanism
    assert s.computed_mass == pytest.approx(mass, rel=F32)
    I6 = np.array(s.computed_inertia)
    size = np.abs(inertia).max()
    close(I6[:3], np.diag(inertia), ref=size)
    close(I6[3:], np.zeros(3), ref=size)
    part = extension.addon.scene_reader.read_scene(bpy.context.scene).mech.parts[shape]
    assert part.mass == pytest.approx(mass, rel=F32)
    close(part.inertia, inertia, ref=size)
    close(part.center_of_mass, S * np.array(SHIFT), what="COM in the part frame")
    close(part.position, LOC)
    R = extension.solver.base.rotations.quat_to_matrix(part.orientation)
    close(R, euler_xyz(ROT), what="part axes")


def test_unit_scale(blender, extension) -> None:
    """scale_length 0.01 (centimetre units): masses times 1e-6, inertias 1e-10, lengths 0.01.
    scale_length is a float32 (0.01 -> 0.0099999998), so 1e-6 relative."""
    bpy = blender
    d = bs.slider_crank(bpy)
    d["piston"].rotation_euler = (0.2, 0.1, 0.0)     # any pose: only the ratios are checked
    read = extension.addon.scene_reader.read_scene
    m1 = read(bpy.context.scene).mech
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    shown = d["piston"].mechanism.computed_mass
    bpy.context.scene.unit_settings.scale_length = 0.01
    m2 = read(bpy.context.scene).mech
    for name in ("crank", "rod", "piston"):
        a, b = m1.parts[name], m2.parts[name]
        assert b.mass == pytest.approx(1e-6 * a.mass, rel=F32)
        close(b.inertia / 1e-10, a.inertia)
        close(b.position / 0.01, a.position)
        close(b.center_of_mass / 0.01, a.center_of_mass)
    for name, mk in m1.markers.items():
        close(m2.markers[name].position / 0.01, mk.position, what=name)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert d["piston"].mechanism.computed_mass == pytest.approx(1e-6 * shown, rel=F32)


@pytest.mark.parametrize("system, scale", [("METRIC", 0.001), ("IMPERIAL", 0.01),
                                           ("METRIC", 1.0), ("NONE", 0.01)])
def test_typed_in_mass_is_what_the_field_shows(blender, extension, system: str,
                                               scale: float) -> None:
    """A typed-in Mass (unit MASS) reaches the solver as the kilograms Blender shows in the
    field: in a unit system Blender shows and takes it times scale_length cubed (its
    BKE_unit_value_scale), so in a millimetre scene a typed "2 kg" is stored as 2e9 and was
    solved as 2e9 kg before the reader multiplied it back; with no unit system the stored
    value is shown as it is.  A part switched to Typed In with the Mass as it came gets 1 kg
    as the field shows it (a stored 1.0 would be 1e-9 kg in millimetres).  Float32 storage:
    1e-6 relative."""
    bpy = blender
    d = bs.slider_crank(bpy)
    units = bpy.context.scene.unit_settings
    units.system, units.scale_length = system, scale
    shown = 1.0 if system == "NONE" else units.scale_length ** 3     # kg per stored unit
    s = d["piston"].mechanism
    assert s.bl_rna.properties["mass"].unit == "MASS"                # Blender's rule applies
    s.mass_mode, s.mass = "MANUAL", 2.0 / shown                      # the field shows 2 kg
    got = extension.addon.scene_reader.read_scene(bpy.context.scene).mech.parts["piston"]
    assert got.mass == pytest.approx(2.0, rel=F32)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    # a part switched to Typed In with its Mass as it came shows (and solves with) 1 kg
    r = d["rod"].mechanism
    assert r.mass == 1.0 and r.mass_mode == "MESH"
    r.mass_mode = "MANUAL"
    assert r.mass == pytest.approx(1.0 / shown, rel=F32)
    got = extension.addon.scene_reader.read_scene(bpy.context.scene).mech.parts["rod"]
    assert got.mass == pytest.approx(1.0, rel=F32)


# ---------------------------------------------------------------- 3. save, reload, bake
def all_bake_keys(bpy) -> dict:
    """Object name -> action_keys of its bake action, for every baked object."""
    return {ob.name: bs.action_keys(ob.mechanism.bake_action)
            for ob in bpy.data.objects if ob.mechanism.bake_action is not None}


def keys_close(got: dict, want: dict, rel: float = F32) -> None:
    """Same objects, F-curves and frames; key values equal to ``rel`` of each curve's size."""
    assert got.keys() == want.keys()
    for name in want:
        assert got[name].keys() == want[name].keys(), name
        for curve_id, ks in want[name].items():
            a = np.array([k[0] for k in got[name][curve_id]])
            b = np.array([k[0] for k in ks])
            np.testing.assert_array_equal(a[:, 0], b[:, 0])
            close(a[:, 1], b[:, 1], rel=rel, what=f"{name} {curve_id}")


def save_and_open(bpy, path: str) -> None:
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=path)


def test_save_reload_rebake_identical(blender, tmp_path) -> None:
    """Bake, save, open the file: the keys are saved; Clear and bake again: every key value is
    the same, bit for bit.  Baking the reloaded (still baked) scene directly agrees to float32
    round-off only: see test_rebake_over_bake_is_bit_identical."""
    bpy = blender
    bs.slider_crank(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = all_bake_keys(bpy)
    assert len(first) == 7                          # 3 moving parts + 4 joints
    save_and_open(bpy, str(tmp_path / "crank.blend"))
    assert all_bake_keys(bpy) == first              # the bake was saved
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    keys_close(all_bake_keys(bpy), first)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first


@pytest.mark.parametrize("frame", [1, 10])
def test_rebake_over_bake_is_bit_identical(blender, tmp_path, frame: int) -> None:
    """Save, reload and bake the still-baked scene (at ``frame``): the keys of the first bake."""
    bpy = blender
    bs.slider_crank(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = all_bake_keys(bpy)
    save_and_open(bpy, str(tmp_path / "crank.blend"))
    bpy.context.scene.frame_set(frame)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first


# ---------------------------------------------------------------- 4. re-bake and Clear
def key_user_animation(bpy, d) -> tuple:
    """A user action on the arm (scale keys) with rotation mode ZXY, and an unrelated
    animated cube; returns (arm action, cube)."""
    arm = d["arm"]
    arm.rotation_mode = "ZXY"
    arm.keyframe_insert("scale", frame=1)
    arm.scale = (1.0, 0.2, 0.2)
    arm.keyframe_insert("scale", frame=20)
    cube = bs.add_box(bpy, "spinner", (0.3, 0.3, 0.3), (3.0, 0.0, 0.0))
    for f, x in ((1, 3.0), (10, 4.0), (25, 2.5)):
        cube.location.x = x
        cube.keyframe_insert("location", frame=f)
    bpy.context.scene.frame_set(1)                  # arm scale back to (1, 0.1, 0.1)
    return arm.animation_data.action, cube


def test_rebake_replaces_and_clear_restores(blender) -> None:
    """Re-bake: the same actions and F-curves, no duplicates (the arm's bake on one NLA track
    beneath the user's action, which stays active).  Clear: the arm's matrix, rotation mode
    and action come back exactly; no action of the user's is ever modified."""
    bpy = blender
    d = bs.pendulum(bpy)
    user, cube = key_user_animation(bpy, d)
    arm, pin = d["arm"], d["pin"]
    bpy.context.view_layer.update()
    before = bs.snapshot(bpy, display=False)
    matrix, slot = [tuple(r) for r in arm.matrix_world], arm.animation_data.action_slot.identifier
    user_keys, cube_keys = bs.action_keys(user), bs.action_keys(cube.animation_data.action)
    cube_path = [tuple(cube.location)]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = all_bake_keys(bpy)
    names = sorted(a.name for a in bpy.data.actions)
    assert names == sorted(["MA bake arm", f"MA bake {pin.name}", user.name,
                            cube.animation_data.action.name])
    for _ in range(2):
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        assert sorted(a.name for a in bpy.data.actions) == names
        assert len(bs.channelbag(arm, arm.mechanism.bake_action).fcurves) == 7
        assert len(bs.channelbag(pin).fcurves) == 8  # no motion: reactions only
        assert pin.animation_data.action == pin.mechanism.bake_action
        assert arm.animation_data.action == user
        assert len(pin.animation_data.nla_tracks) == 0
        assert [t.name for t in arm.animation_data.nla_tracks] == ["Mechanism bake"]
        keys_close(all_bake_keys(bpy), first)
    assert arm.mechanism.backup_action == user
    assert bs.action_keys(user) == user_keys
    assert bs.action_keys(cube.animation_data.action) == cube_keys
    for f in (1, 10, 25):                           # the cube still follows its own keys
        bpy.context.scene.frame_set(f)
        cube_path.append(tuple(cube.location))
    assert cube_path[1:] == [(3.0, 0.0, 0.0), (4.0, 0.0, 0.0), (2.5, 0.0, 0.0)]
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    bpy.context.view_layer.update()
    assert [tuple(r) for r in arm.matrix_world] == matrix
    assert arm.rotation_mode == "ZXY"
    assert arm.animation_data.action == user
    assert arm.animation_data.action_slot.identifier == slot
    assert bs.action_keys(user) == user_keys
    assert sorted(a.name for a in bpy.data.actions) == sorted([user.name, cube.animation_data.action.name])
    assert not bs.differences(before, bs.snapshot(bpy, display=False))  # all else too (custom props gone)


def test_part_animation_plays_beside_the_bake(blender) -> None:
    """A part's own animation (a custom property, its scale, its render
    visibility) keeps playing after Bake and the baked location and rotation play with it;
    the user's action stays the active one, slot and keys unchanged; Clear Bake leaves the
    scene as it was before the bake."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    plays = bs.key_own_channels(bpy, arm)
    ad = arm.animation_data
    user, slot = ad.action, ad.action_slot.identifier
    user_keys = bs.action_keys(user)
    before = bs.snapshot(bpy, display=False)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert (ad.action, ad.action_slot.identifier) == (user, slot)
    assert bs.action_keys(user) == user_keys
    _, loc, quat = bs.baked_pose(arm)
    for f, own in plays.items():
        bpy.context.scene.frame_set(f)
        assert (arm["glow"], tuple(arm.scale), arm.hide_render) == own, f"frame {f}"
        close(np.array(arm.location), loc[f - bs.FRAME_START], what=f"frame {f} location")
        close(np.array(arm.rotation_quaternion), quat[f - bs.FRAME_START],
              what=f"frame {f} rotation")
    bpy.context.scene.frame_set(bs.FRAME_START)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert (ad.action, ad.action_slot.identifier) == (user, slot)
    assert bs.action_keys(user) == user_keys
    assert not bs.differences(before, bs.snapshot(bpy, display=False))


def pose_keys(bpy, anim, arm, how: str) -> str:
    """Animate the arm's pose as a user might: keys of ``how`` in its own action, a driver on
    its location, or (a file baked before bakes went beside the user's action) an action
    with location keys that Clear would put back; returns what Bake must say."""
    arm.rotation_mode = "QUATERNION"
    if how == "driver":
        arm.driver_add("location", 0).driver.expression = "0.5"
        return "part 'arm': a driver drives location"
    if how == "old bake":
        assert bpy.ops.mechanism.bake() == {"FINISHED"}       # the bake is the arm's action
        user = bpy.data.actions.new("armAction")
        slot = user.slots.new(id_type="OBJECT", name="arm")
        fc = anim.ensure_channelbag(user, slot).fcurves.new("location", index=0)
        fc.keyframe_points.insert(1, 0.5)
        arm.mechanism.backup_action, arm.mechanism.backup_slot = user, slot.identifier
        return "part 'arm': its action 'armAction' keys location"
    arm.keyframe_insert(how, frame=bs.FRAME_START)
    return f"part 'arm': its action '{arm.animation_data.action.name}' keys {how}"


@pytest.mark.parametrize("how", ["location", "rotation_quaternion", "driver", "old bake"])
def test_bake_refuses_a_part_whose_own_animation_places_it(blender, extension, how: str) -> None:
    """The user's action (and a driver) plays over the bake: keys of the part's location or
    quaternion there would hide the baked motion, so Bake says so, naming the part, the
    action and the channel, and changes nothing."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    said = pose_keys(bpy, extension.addon.anim, arm, how)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape(said)):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def joint_angle(mi, mj) -> float:
    """Angle of marker I's x axis from marker J's x axis about J's z, from world matrices."""
    A, B = np.array(mi.matrix_world)[:3, :3], np.array(mj.matrix_world)[:3, :3]
    A = A / np.linalg.norm(A, axis=0)
    B = B / np.linalg.norm(B, axis=0)
    return math.atan2(A[:, 0] @ B[:, 1], A[:, 0] @ B[:, 0])


def test_keyframed_motion_drives_joint(blender) -> None:
    """motion_angle keyed on the joint drives it: at every frame the markers' angle is the
    F-curve's value; the joint's own action is untouched (the bake is on an NLA track)."""
    bpy = blender
    d = bs.keyed_pendulum(bpy)
    pin, user, user_keys = d["pin"], d["user"], d["user_keys"]
    s = pin.mechanism
    fc = bs.channelbag(pin).fcurves.find("mechanism.motion_angle")
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert bpy.ops.mechanism.bake() == {"FINISHED"}  # twice: still one track
    ad = pin.animation_data
    assert ad.action == user and bs.action_keys(user) == user_keys
    assert [t.name for t in ad.nla_tracks] == ["Mechanism bake"]
    assert [st.action for st in ad.nla_tracks[0].strips] == [s.bake_action]
    effort = bs.curve(pin, '["motion_effort"]', action=s.bake_action)
    mi, mj = s.marker_i, s.marker_j
    for f in range(bs.FRAME_START, bs.FRAME_END + 1):
        bpy.context.scene.frame_set(f)
        # float32 matrices: the angle to ~1e-7 rad
        assert joint_angle(mi, mj) == pytest.approx(fc.evaluate(f), abs=1e-6), f"frame {f}"
        # the NLA strip plays the baked effort alongside the user's action
        assert pin["motion_effort"] == pytest.approx(effort[f - 1, 1], rel=F32, abs=F32)
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert ad.action == user and bs.action_keys(user) == user_keys and len(ad.nla_tracks) == 0
    assert "motion_effort" not in pin.keys()


# ---------------------------------------------------------------- 6. undo
@pytest.mark.parametrize("op", ["bake", "clear_bake", "assemble", "connect", "add_marker"])
def test_operators_declare_undo(blender, op: str) -> None:
    """Undo does not run headless; the operators at least register an undo step."""
    cls = blender.types.Operator.bl_rna_get_subclass_py(f"MECHANISM_OT_{op}")
    assert cls is not None and "UNDO" in cls.bl_options


def test_a_pendulum_at_rest_bakes_its_held_pose(blender, capfd) -> None:
    """A pendulum on a damped torsion spring over 20 s: it comes to rest and the frames after
    hold its pose (solver Result.rest_from): the baked keys from there on are one pose, equal
    to the solver's last frame (float32 keys); the bake's report names the scene frame it
    rests from as a whole number, as the timeline shows it."""
    bpy = blender
    pen = bs.pendulum(bpy)
    bs.set_range(bpy, 1, 481)
    bpy.context.scene.mechanism.tolerance = 1e-6               # the default
    s = pen["pin"].mechanism
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 300.0, 30.0
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, loc, quat = bs.baked_pose(pen["arm"])
    assert len(frames) == 481
    assert np.array_equal(quat[-1], quat[-100]) and np.array_equal(loc[-1], loc[-100])
    assert not np.array_equal(quat[0], quat[-1])              # it swung before it settled
    said = re.findall(r"at rest from frame (\S+?)[;,)\s]", capfd.readouterr().out)
    assert len(said) == 1 and re.fullmatch(r"\d+", said[0]), said


def test_a_loose_tolerance_bake_at_a_high_frame_rate_equals_the_solver(blender, extension) -> None:
    """A pendulum on a lightly damped torsion spring, 481 frames at 240 fps with the scene's
    tolerance at 1e-3 (Dormand-Prince 5(4), whose steps then run past the frames: its dense
    output, the frames at step ends stored a block at a time, the spring's turn kept from
    its angle): the baked keys and the pin's reactions equal the solver API's run of the
    scene as read (float32 keys), in far fewer steps than frames."""
    bpy = blender
    pen = bs.pendulum(bpy)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 240, 1.0
    bs.set_range(bpy, 1, 481)
    scene.mechanism.tolerance = 1e-3
    s = pen["pin"].mechanism
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 2.0, 0.05
    sm = extension.addon.scene_reader.read_scene(scene)
    r = sm.mech.solve(times=sm.timeline.times, tolerance=1e-3)
    assert "5(4)" in r.method and r.steps < 481 / 3
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames = np.arange(1, 482, dtype=float)
    f, loc, quat = bs.baked_pose(pen["arm"])
    np.testing.assert_array_equal(f, frames)
    close(loc, r.position("arm"), what="arm location")
    close(quat, aligned(r.orientation("arm"), quat), what="arm quaternion")
    F = r.reaction(pen["pin"].name)[0]
    k = bs.curve(pen["pin"], '["reaction_force"]', action=pen["pin"].mechanism.bake_action)
    close(k[:, 1], np.linalg.norm(F, axis=1), what="pin reaction")
