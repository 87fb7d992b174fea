"""Couplers in real Blender (bpy): gears, racks, screws and general couplers built with the
Couple and Radii from Meshes operators, baked, and read back from the keyframes; the kind
Couple guesses; bad couplers refused by name with the scene unchanged; settings and bakes
that survive save and reload; Clear Bake; the sidebar.  Scenes: blender_scenes.py.

Tolerances.  Blender stores keyframe values, vertex coordinates and float properties in
float32 (unit round-off 2^-24 = 6e-8).  An angle read from baked quaternion keys,
2 atan2(qz, qw) with |q| = 1, is off by at most about 2 sqrt(2) 6e-8 = 1.7e-7 rad; the solver
holds a coupler's relation to about 1e-12 rad, and the ratio the tests compare with is the
one the solver was given (the radii as stored, read back as doubles), so angles are checked
to 1e-6 rad (a margin of 6).  Lengths, forces and torques: 1e-6 relative to the largest
value of the quantity (F32, as in test_addon_bake.py; the axes of markers made by Connect
about x or y come from float32 rotation matrices, off by 4.4e-8 rad).
"""
from __future__ import annotations

import csv
import importlib
import math

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_bake import F32, all_bake_keys, close, save_and_open

ANGLE_TOL = 1e-6          # rad: see the module docstring
FRAMES = np.arange(bs.FRAME_START, bs.FRAME_END + 1, dtype=float)
TIMES = (FRAMES - bs.FRAME_START) / 24.0


def wrap(a: np.ndarray) -> np.ndarray:
    return (np.asarray(a) + math.pi) % (2 * math.pi) - math.pi


def drive(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GEAR_DRIVE and its second derivative (rad, rad/s^2)."""
    w = 2 * math.pi
    return 3 * math.pi * t + 0.5 * np.sin(w * t), -0.5 * w * w * np.sin(w * t)


def baked_turn(ob) -> np.ndarray:
    """(n,) a part's baked rotation about world z, in (-pi, pi] (parts that turn about z)."""
    frames, _, q = bs.baked_pose(ob)
    np.testing.assert_array_equal(frames, FRAMES)
    return wrap(2.0 * np.arctan2(q[:, 3], q[:, 0]))


def baked_prop(ob, prop: str) -> np.ndarray:
    """(n,) values of a custom property keyed by the bake, at FRAMES."""
    k = bs.curve(ob, f'["{prop}"]', action=ob.mechanism.bake_action)
    np.testing.assert_array_equal(k[:, 0], FRAMES)
    return k[:, 1]


# ---------------------------------------------------------------- gears
@pytest.mark.parametrize("mesh, sign", [("EXTERNAL", -1.0), ("INTERNAL", 1.0)])
def test_gear_pair_turns_at_the_ratio_on_every_frame(blender, mesh: str, sign: float) -> None:
    """Couple, Radii from Meshes, Bake: gear 1 follows its drive and gear 2 turns -r1/r2 times
    as far (external) or r1/r2 (internal: the ring turns the same way), on all 25 frames,
    past a full turn of gear 1."""
    bpy = blender
    d = bs.gear_pair(bpy, mesh)
    s = d["gear"].mechanism
    assert (s.coupler_kind, s.ratio_mode, s.mesh) == ("GEAR", "RADII", mesh)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    f, _ = drive(TIMES)
    assert np.abs(wrap(baked_turn(d["g1"]) - f)).max() < ANGLE_TOL
    ratio = s.radius_a / s.radius_b                 # what the solver was given
    assert ratio == pytest.approx(bs.R1 / bs.R2, rel=F32)
    assert np.abs(wrap(baked_turn(d["g2"]) - sign * ratio * f)).max() < ANGLE_TOL


@pytest.mark.parametrize("build", ["housing active", "axis turned"])
@pytest.mark.parametrize("mesh, sign", [("EXTERNAL", -1.0), ("INTERNAL", 1.0), ("BELT", 1.0)])
def test_a_gear_turns_as_its_mesh_says_however_its_joint_was_made(blender, build: str,
                                                                  mesh: str, sign: float) -> None:
    """Gear 2's axle made by Connect with the ground active (the ground gets marker I, so
    the joint's angle counts gear 2's turn backwards), or with both its markers turned half
    a turn about x (its axis along -z): Radii from Meshes measures gear 2 (radius R2, not
    the ground box's 0.40 m about that axle), and gear 2 turns as the Mesh says, seen from
    +z: opposite to gear 1 at r1/r2 (external), the same way (internal, belt).  Taken as the
    joints' angles alone, each relation ran the gears the other way."""
    bpy = blender
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    d = bs.R2 - bs.R1 if mesh == "INTERNAL" else bs.R1 + bs.R2
    g1, g2 = bs.disc(bpy, "g1", bs.R1, (0.0, 0.0, 0.0)), bs.disc(bpy, "g2", bs.R2, (d, 0.0, 0.0))
    bs.tag(bpy, [ground, g1, g2], "PART")
    ground.mechanism.ground = True
    j1 = bs.connect(bpy, g1, ground, (0.0, 0.0, 0.0))
    if build == "housing active":
        j2 = bs.connect(bpy, ground, g2, (d, 0.0, 0.0))
    else:
        j2 = bs.connect(bpy, g2, ground, (d, 0.0, 0.0))
        for marker in (j2.mechanism.marker_i, j2.mechanism.marker_j):
            marker.rotation_euler = (math.pi, 0.0, 0.0)
        bpy.context.view_layer.update()
    gear = bs.couple(bpy, [j1, j2])
    s = gear.mechanism
    s.mesh = mesh
    assert bpy.ops.mechanism.measure_radii() == {"FINISHED"}
    assert (s.radius_a, s.radius_b) == (pytest.approx(bs.R1, rel=F32), pytest.approx(bs.R2, rel=F32))
    j1.mechanism.motion_type, j1.mechanism.motion_expression = "EXPRESSION", bs.GEAR_DRIVE
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    f, _ = drive(TIMES)
    assert np.abs(wrap(baked_turn(g1) - f)).max() < ANGLE_TOL
    ratio = s.radius_a / s.radius_b
    assert np.abs(wrap(baked_turn(g2) - sign * ratio * f)).max() < ANGLE_TOL


def test_gear_torques_and_tooth_force(blender, extension) -> None:
    """The coupler's baked torque on gear 2 is what accelerates it about its frictionless
    axle: I2 alpha2 with alpha2 = -(r1/r2) f''; power through the mesh is zero, so gear 1's
    torque is r1/r2 of gear 2's; the tooth force is gear 1's torque over r1 cos 20 deg."""
    bpy = blender
    d = bs.gear_pair(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    gear, s = d["gear"], d["gear"].mechanism
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    i2 = sm.mech.parts["g2"].inertia[2, 2]
    r1, r2 = s.radius_a, s.radius_b
    _, f2 = drive(TIMES)
    q1, q2 = baked_prop(gear, "coupler_torque_1"), baked_prop(gear, "coupler_torque_2")
    close(q2, i2 * -(r1 / r2) * f2, what="torque on gear 2 = I2 alpha2")
    assert np.abs(q2).max() > 0.1                   # a real load, not zeros
    close(q1, q2 * r1 / r2, what="power balance")
    close(baked_prop(gear, "tooth_force"), q1 / (r1 * math.cos(math.radians(20.0))), what="tooth force")
    assert s.pressure_angle == pytest.approx(math.radians(20.0), rel=F32)
    assert not {"coupler_force_1", "coupler_torque_3"} & set(gear.keys())


@pytest.mark.parametrize("helix", [20.0, -30.0])
def test_helical_gear_axles_carry_the_thrust(blender, helix: float) -> None:
    """Helix Angle on the Coupler (20 degrees: gear 1 right-handed; -30: left-handed), Bake:
    the teeth push gear 1 along its axis by -T cos(alpha) tan(beta) and gear 2 by the
    opposite (T the baked tooth force, alpha the pressure angle 20 degrees: the helical
    teeth's axial load is the transverse tangential load T cos(alpha) times tan(beta)),
    which the axles hold: the baked axial reaction of
    gear 1's axle is T cos(alpha) tan(beta) and gear 2's its opposite, on every frame, to
    F32 of the tooth force (float32 keys); the thrust is a real load, not zeros."""
    bpy = blender
    d = bs.gear_pair(bpy)
    s = d["gear"].mechanism
    s.helix_angle = math.radians(helix)
    bpy.context.scene.use_gravity = False       # the axles' axial reaction: the thrust alone
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    T = baked_prop(d["gear"], "tooth_force")
    thrust = T * math.cos(s.pressure_angle) * math.tan(s.helix_angle)
    assert np.abs(thrust).max() > 0.01
    close(baked_prop(d["j1"], "reaction_force_z"), thrust, ref=np.abs(T).max(),
          what="gear 1's axle holds -(-T cos(alpha) tan(beta))")
    close(baked_prop(d["j2"], "reaction_force_z"), -thrust, ref=np.abs(T).max(),
          what="gear 2's axle holds -(T cos(alpha) tan(beta))")



@pytest.mark.parametrize("mode", ["TEETH", "RATIO"])
def test_a_gear_by_teeth_or_ratio_shows_the_pressure_angle_its_axles_carry(blender, mode: str) -> None:
    """By teeth (20, 50; radii 0.1, 0.25 m) or ratio (2.5) the teeth mesh at the pitch point:
    gear 1's axle (at its centre of mass) holds |T| sin(alpha) along the centres (x) and |T|
    cos(alpha) across (y), T the baked tooth force, alpha the Pressure Angle shown; to F32."""
    bpy = blender
    d = bs.gear_pair(bpy)
    s = d["gear"].mechanism
    s.ratio_mode, s.teeth_a, s.teeth_b, s.gear_ratio = mode, 20, 50, 2.5
    assert ("prop", "pressure_angle", False) in bs.panel_items(bpy, "VIEW3D_PT_mechanism_object")
    s.pressure_angle = math.radians(25.0)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert (tooth := np.abs(baked_prop(d["gear"], "tooth_force"))).max() > 0.1    # a real load
    for axis, part in (("x", math.sin(s.pressure_angle)), ("y", math.cos(s.pressure_angle))):
        close(np.abs(baked_prop(d["j1"], f"reaction_force_{axis}")), tooth * part,
              ref=tooth.max(), what=f"axle load along {axis}")


def test_radii_from_meshes_are_the_cylinders_radii(blender, extension) -> None:
    """Gear 1: a radius-1 cylinder scaled by 0.08 in x and y (the object's scale counts);
    gear 2: a 64-sided cylinder of radius 0.3 turned to lie along world y, on a joint about y
    (Connect axis Y).  A cylinder's vertices lie on its radius, so the measured radii are
    0.08 and 0.3 to float32 (the vertex coordinates); Ratio From becomes Pitch Radii; the
    report gives them in the scene's units."""
    bpy = blender
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -1.0))
    g1 = bs.disc(bpy, "g1", 1.0, (0.0, 0.0, 0.0))
    g1.scale = (0.08, 0.08, 0.5)
    g2 = bs.disc(bpy, "g2", 0.3, (1.0, 0.0, 0.0), vertices=64)
    g2.rotation_euler = (math.pi / 2, 0.0, 0.0)
    bs.tag(bpy, [ground, g1, g2], "PART")
    ground.mechanism.ground = True
    j1 = bs.connect(bpy, g1, ground, (0.0, 0.0, 0.0))
    j2 = bs.connect(bpy, g2, ground, (1.0, 0.0, 0.0), axis="Y")
    gear = bs.couple(bpy, [j1, j2])
    gear.mechanism.ratio_mode = "TEETH"
    assert bpy.ops.mechanism.measure_radii() == {"FINISHED"}
    s = gear.mechanism
    assert s.ratio_mode == "RADII"
    assert s.radius_a == pytest.approx(0.08, rel=F32)
    assert s.radius_b == pytest.approx(0.3, rel=F32)
    coupling = importlib.import_module(extension.__name__ + ".addon.coupling")
    assert coupling.measure_radii(bpy.context, gear) == "radii 0.08 m and 0.3 m"   # the report's
    units = bpy.context.scene.unit_settings
    units.scale_length, units.length_unit = 0.001, "MILLIMETERS"  # a Blender unit 1 mm
    assert coupling.measure_radii(bpy.context, gear) == "radii 0.08 mm and 0.3 mm"


# ---------------------------------------------------------------- rack, screw, coupler
def rack_and_pinion(bpy, y: float = -0.05) -> dict:
    """A pinion (a disc of radius 0.04 about world z at the origin) on a revolute joint
    ``spin`` and a rack box (0.4 long) along world x at ``y`` on a prismatic joint ``guide``,
    both to a ground box; not yet coupled."""
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    pinion = bs.disc(bpy, "pinion", 0.04, (0.0, 0.0, 0.0))
    rack = bs.add_box(bpy, "rack", (0.4, 0.02, 0.02), (0.0, y, 0.0))
    bs.tag(bpy, [ground, pinion, rack], "PART")
    ground.mechanism.ground = True
    return {"ground": ground, "pinion": pinion, "rack": rack,
            "spin": bs.connect(bpy, pinion, ground, (0.0, 0.0, 0.0)),
            "guide": bs.connect(bpy, rack, ground, (0.0, y, 0.0), "PRISMATIC", "X")}


def test_rack_travel_is_r_theta(blender) -> None:
    """A pinion (radius 0.04 cylinder about world z at the origin) and a rack box on a
    prismatic joint along world x below it; Couple with the rack's joint active still makes
    the pinion field A; Radii from Meshes gives its pitch radius; the rack travels r theta."""
    bpy = blender
    d = rack_and_pinion(bpy)
    spin, guide, rack = d["spin"], d["guide"], d["rack"]
    rp = bs.couple(bpy, [guide, spin])
    s = rp.mechanism
    assert (s.coupler_kind, s.joint_a, s.joint_b) == ("RACK_PINION", spin, guide)
    assert rp.name == f"Rack and pinion {spin.name}-{guide.name}"
    assert bpy.ops.mechanism.measure_radii() == {"FINISHED"}
    assert s.pitch_radius == pytest.approx(0.04, rel=F32)
    spin.mechanism.motion_type, spin.mechanism.motion_expression = "EXPRESSION", "2*sin(pi*t)"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, loc, _ = bs.baked_pose(rack)
    theta = 2 * np.sin(np.pi * TIMES)
    close(loc[:, 0], s.pitch_radius * theta, what="rack x = r theta")
    close(loc[:, 1:], np.tile([-0.05, 0.0], (len(loc), 1)), what="the rack stays on its guide")
    assert set(rp.keys()) >= {"coupler_force_2", "coupler_torque_1"}


@pytest.mark.parametrize("made", ["pinion active", "housing active on the pinion",
                                  "housing active on the rack"])
@pytest.mark.parametrize("side", [-1.0, 1.0])
def test_radii_from_meshes_runs_the_rack_as_it_meshes_where_it_is(blender, side: float,
                                                                   made: str) -> None:
    """A pinion (radius 0.04 about world z) and a rack along world x 5 cm below it (side -1)
    or above it (+1), each joint made by Connect with its moving part active or with the
    ground active: Radii from Meshes gives the pitch radius the sign that meshes them where
    the rack is, so the baked rack moves as the pinion's rim does on the rack's side:
    x = r (z x n)_x phi = -side r phi for the pinion's turn phi about world z.  The sign
    kept (positive) ran a rack above the pinion, or a joint made backwards, the other way."""
    bpy = blender
    bs.set_range(bpy)
    y = 0.05 * side
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    pinion = bs.disc(bpy, "pinion", 0.04, (0.0, 0.0, 0.0))
    rack = bs.add_box(bpy, "rack", (0.4, 0.02, 0.02), (0.0, y, 0.0))
    bs.tag(bpy, [ground, pinion, rack], "PART")
    ground.mechanism.ground = True
    on_pinion = (ground, pinion) if made == "housing active on the pinion" else (pinion, ground)
    on_rack = (ground, rack) if made == "housing active on the rack" else (rack, ground)
    spin = bs.connect(bpy, *on_pinion, (0.0, 0.0, 0.0))
    guide = bs.connect(bpy, *on_rack, (0.0, y, 0.0), "PRISMATIC", "X")
    rp = bs.couple(bpy, [spin, guide])
    assert bpy.ops.mechanism.measure_radii() == {"FINISHED"}
    r = rp.mechanism.pitch_radius
    assert abs(r) == pytest.approx(0.04, rel=F32)
    spin.mechanism.motion_type, spin.mechanism.motion_expression = "EXPRESSION", "2*sin(pi*t)"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    phi = np.unwrap(baked_turn(pinion))
    assert np.abs(phi).max() > 1.0                    # the pinion turns
    _, loc, _ = bs.baked_pose(rack)
    close(loc[:, 0], -side * abs(r) * phi, what="the rack moves with the pinion's rim")


def test_check_notes_a_rack_typed_to_mesh_on_the_far_side(blender) -> None:
    """A rack 5 cm above its pinion (as in the test above) with the Pitch Radius typed in:
    +4 cm meshes a rack below the pinion, so Check notes that the rack runs as one on the
    far side would and which sign fits; -4 cm (what Radii from Meshes sets) gets no note."""
    bpy = blender
    d = rack_and_pinion(bpy, 0.05)
    rp = bs.couple(bpy, [d["spin"], d["guide"]])
    note = (f"rack and pinion {rp.name!r}: its rack (part 'rack') lies on the other side of "
            "the pinion from where a Pitch Radius of this sign meshes it")
    rp.mechanism.pitch_radius = 0.04
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert note in bpy.context.scene.mechanism.report
    assert "make the Pitch Radius negative" in bpy.context.scene.mechanism.report
    rp.mechanism.pitch_radius = -0.04
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "other side of the pinion" not in bpy.context.scene.mechanism.report


def test_screw_advance_per_turn_in_millimetres(blender) -> None:
    """Unit scale 0.001 (Blender units are mm): a nut on a cylindrical joint along z, one
    joint selected makes a screw; a 5 mm lead turned at one turn per second advances 5 units
    per turn.  Had the reader not converted the pitch, the solver would take 5 m per turn
    and the nut would travel 1000 times as far."""
    bpy = blender
    ground, nut, thread = bs.millimetre_pair(bpy, "frame", (60.0, 60.0, 10.0), (0.0, 0.0, -40.0),
                                             "nut", (20.0, 20.0, 10.0), "CYLINDRICAL")
    screw = bs.couple(bpy, [thread])
    s = screw.mechanism
    assert (s.coupler_kind, s.joint_a, s.joint_b, screw.name) == ("SCREW", thread, None,
                                                                  f"Screw {thread.name}")
    s.pitch = 5.0
    m = thread.mechanism
    m.motion_type, m.motion_coordinate, m.motion_expression = "EXPRESSION", "ANGLE", "2*pi*t"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, loc, _ = bs.baked_pose(nut)
    close(loc[:, 2], 5.0 * TIMES, what="5 mm per turn")
    assert loc[-1, 2] == pytest.approx(5.0, rel=F32)            # one turn in the second
    assert baked_prop(screw, "coupler_force_1").shape == (25,)


def test_three_joints_make_a_general_coupler(blender) -> None:
    """Three shafts on revolute joints; Couple on all three is a general coupler with each
    joint's angle; scales (1, 1, -1) hold theta3 = theta1 + theta2 (a differential), with
    motions on shafts 1 and 2."""
    bpy = blender
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    shafts = [bs.disc(bpy, f"s{k}", 0.05, (0.2 * k, 0.0, 0.0)) for k in (1, 2, 3)]
    bs.tag(bpy, [ground] + shafts, "PART")
    ground.mechanism.ground = True
    joints = [bs.connect(bpy, sh, ground, (0.2 * k, 0.0, 0.0)) for k, sh in enumerate(shafts, 1)]
    c = bs.couple(bpy, joints)
    s = c.mechanism
    assert s.coupler_kind == "COUPLER"
    assert [s.joint_a, s.joint_b, s.joint_c] == joints
    assert [s.coordinate_a, s.coordinate_b, s.coordinate_c] == ["ANGLE"] * 3
    s.scale_a, s.scale_b, s.scale_c = 1.0, 1.0, -1.0
    for j, expr in zip(joints, ("2*t", "-3*t*t")):
        j.mechanism.motion_type, j.mechanism.motion_expression = "EXPRESSION", expr
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    th = [baked_turn(sh) for sh in shafts]
    assert np.abs(wrap(th[0] - 2 * TIMES)).max() < ANGLE_TOL
    assert np.abs(wrap(th[2] - (2 * TIMES - 3 * TIMES**2))).max() < ANGLE_TOL
    assert set(c.keys()) >= {"coupler_torque_1", "coupler_torque_2", "coupler_torque_3"}


# ---------------------------------------------------------------- Couple's guess
def test_couple_guesses_the_kind_from_the_joints(blender) -> None:
    """Two revolute joints: a gear named after them, the active one gear 1; a cylindrical and
    a revolute: a gear; a revolute and a prismatic: rack and pinion, the revolute the pinion;
    a prismatic and a spherical: refused, naming the spherical joint, and nothing is made;
    nothing selected: the button says what to select."""
    bpy = blender
    ground = bs.add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    parts = [bs.add_box(bpy, f"p{k}", (0.05, 0.05, 0.05), (0.2 * k, 0.0, 0.0)) for k in range(5)]
    bs.tag(bpy, [ground] + parts, "PART")
    ground.mechanism.ground = True
    kinds = ("REVOLUTE", "REVOLUTE", "CYLINDRICAL", "PRISMATIC", "SPHERICAL")
    j = [bs.connect(bpy, p, ground, (0.2 * k, 0.0, 0.0), kind) for k, (p, kind) in enumerate(zip(parts, kinds))]
    gear = bs.couple(bpy, [j[1], j[0]])
    assert gear.name == f"Gear {j[1].name}-{j[0].name}"
    assert (gear.mechanism.coupler_kind, gear.mechanism.joint_a, gear.mechanism.joint_b) == ("GEAR", j[1], j[0])
    assert bs.couple(bpy, [j[2], j[0]]).mechanism.coupler_kind == "GEAR"
    rp = bs.couple(bpy, [j[3], j[1]]).mechanism
    assert (rp.coupler_kind, rp.joint_a, rp.joint_b) == ("RACK_PINION", j[1], j[3])
    before = set(bpy.data.objects)
    bs.select(bpy, [j[3], j[4]], j[3])
    with pytest.raises(RuntimeError, match=f"joint '{j[4].name}' is a spherical joint, which has no coordinate"):
        bpy.ops.mechanism.couple()
    bs.select(bpy, [j[0]], j[0])
    with pytest.raises(RuntimeError, match="a screw on one joint needs a cylindrical joint"):
        bpy.ops.mechanism.couple()
    bs.deselect_all(bpy)
    with pytest.raises(RuntimeError, match="Select two or three joints, or one cylindrical joint"):
        bpy.ops.mechanism.couple()
    assert set(bpy.data.objects) == before


# ---------------------------------------------------------------- bad input
def deleted(bpy, d) -> str:
    bpy.data.objects.remove(d["j2"])
    return f"coupler '{d['gear'].name}': Gear 2 is not set: pick a revolute or cylindrical joint"


def unset(bpy, d) -> str:
    d["gear"].mechanism.joint_a = None
    return f"coupler '{d['gear'].name}': Gear 1 is not set"


def unlinked(bpy, d) -> str:
    bpy.context.scene.collection.objects.unlink(d["j2"])
    return f"coupler '{d['gear'].name}': Gear 2 '{d['j2'].name}' was deleted or is no longer a joint"


def untagged(bpy, d) -> str:
    d["j1"].mechanism.role = "NONE"
    return f"coupler '{d['gear'].name}': Gear 1 '{d['j1'].name}' was deleted or is no longer a joint"


def spherical(bpy, d) -> str:
    d["j2"].mechanism.joint_kind = "SPHERICAL"
    return (f"coupler '{d['gear'].name}': Gear 2 '{d['j2'].name}' is a spherical joint, which has "
            "no angle: pick a revolute or cylindrical joint")


def no_radius(bpy, d) -> str:
    d["gear"].mechanism.radius_b = 0.0
    return f"coupler '{d['gear'].name}': the pitch radii must be above 0"


BREAK = {"joint deleted": deleted, "joint not set": unset, "joint unlinked": unlinked,
         "no longer a joint": untagged, "gear on a spherical joint": spherical, "radius 0": no_radius}


@pytest.mark.parametrize("op", ["bake", "check"])
@pytest.mark.parametrize("case", BREAK)
def test_bad_coupler_is_named_and_nothing_changes(blender, case: str, op: str) -> None:
    """A baked gear pair, then broken: Bake (and Check) raise naming the coupler object, the
    field and what to pick; the scene and its bake are exactly as before."""
    import re
    bpy = blender
    d = bs.gear_pair(bpy)
    bpy.context.scene.frame_end = 7
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    said = BREAK[case](bpy, d)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape(said)):
        getattr(bpy.ops.mechanism, op)()
    assert not bs.differences(before, bs.snapshot(bpy))


# ---------------------------------------------------------------- file, clear, CSV
COUPLER_VALUES = dict(coupler_kind="SCREW", ratio_mode="TEETH", radius_a=0.03, radius_b=0.07,
                      teeth_a=17, teeth_b=51, gear_ratio=3.5, mesh="BELT", pressure_angle=0.4,
                      pitch_radius=-0.02, pitch=0.004, hand="LEFT", scale_a=2.0, scale_b=-0.5,
                      scale_c=0.25, coordinate_a="SLIDE", coordinate_b="SLIDE", coordinate_c="SLIDE")


def test_coupler_settings_survive_save_and_reload(blender, tmp_path) -> None:
    """Every coupler setting, changed from its default, and the three joint pointers are in
    the reloaded file (float settings to float32, what Blender stores)."""
    bpy = blender
    d = bs.gear_pair(bpy)
    extra = bs.connect(bpy, d["g2"], d["g1"], (0.2, 0.0, 0.0))
    s = d["gear"].mechanism
    for key, value in COUPLER_VALUES.items():
        assert getattr(s, key) != pytest.approx(value) if not isinstance(value, str) else getattr(s, key) != value
        setattr(s, key, value)
    s.joint_c = extra
    names = (d["gear"].name, d["j1"].name, d["j2"].name, extra.name)
    save_and_open(bpy, str(tmp_path / "gears.blend"))
    s = bpy.data.objects[names[0]].mechanism
    assert s.role == "COUPLER"
    for key, value in COUPLER_VALUES.items():
        assert getattr(s, key) == (value if isinstance(value, str) else pytest.approx(value, rel=F32)), key
    assert [p.name for p in (s.joint_a, s.joint_b, s.joint_c)] == list(names[1:])


def test_save_reload_bake_again_gives_the_same_keys(blender, tmp_path) -> None:
    """Bake, save, open: the coupler's keys are in the file; Bake again (on the baked scene)
    and Clear then Bake give the same keys, bit for bit (the reader uses the poses saved
    before the bake)."""
    bpy = blender
    d = bs.gear_pair(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = all_bake_keys(bpy)
    name = d["gear"].name
    assert any(path == '["tooth_force"]' for _, path, _ in first[name])
    save_and_open(bpy, str(tmp_path / "gears.blend"))
    assert all_bake_keys(bpy) == first
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first


def test_clear_bake_removes_the_couplers_properties(blender) -> None:
    """After Clear Bake the coupler has none of the baked properties, no bake action (the
    action is deleted) and is no longer marked baked; the scene is as before the bake."""
    bpy = blender
    d = bs.gear_pair(bpy)
    gear = d["gear"]
    before = bs.snapshot(bpy, display=False)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    act = gear.mechanism.bake_action
    assert act is not None and gear.animation_data.action == act
    assert {"coupler_torque_1", "coupler_torque_2", "tooth_force"} <= set(gear.keys())
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not {"coupler_torque_1", "coupler_torque_2", "tooth_force"} & set(gear.keys())
    assert gear.mechanism.bake_action is None and not gear.mechanism.baked
    assert gear.animation_data.action is None
    assert f"MA bake {gear.name}" not in bpy.data.actions
    assert not bs.differences(before, bs.snapshot(bpy, display=False))


def test_rebake_drops_a_series_the_coupler_no_longer_has(blender) -> None:
    """A gear baked by radii has a tooth force; made a belt (by teeth) and baked again, it
    has none, and its torques are keyed once (one F-curve each, in one bake action)."""
    bpy = blender
    d = bs.gear_pair(bpy)
    gear = d["gear"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "tooth_force" in gear.keys()
    s = gear.mechanism
    s.ratio_mode, s.mesh, s.teeth_a, s.teeth_b = "TEETH", "BELT", 10, 25
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "tooth_force" not in gear.keys()
    act = gear.mechanism.bake_action
    assert [a.name for a in bpy.data.actions if gear.name in a.name] == [f"MA bake {gear.name}"]
    paths = sorted(fc.data_path for fc in bs.channelbag(gear, act).fcurves)
    assert paths == ['["coupler_torque_1"]', '["coupler_torque_2"]']


def test_export_csv_has_the_coupler_columns(blender, tmp_path) -> None:
    """The CSV's coupler columns hold the baked values (9 digits against float32 keys), and
    so does the driven joint's effort, under the joint and its unit as the other columns
    ("<joint> motion_effort_Nm", the bake's property)."""
    bpy = blender
    d = bs.gear_pair(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    path = tmp_path / "gears.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(path)) == {"FINISHED"}
    rows = list(csv.reader(open(path, newline="")))
    col = dict(zip(rows[0], np.array(rows[1:], dtype=float).T))
    name = d["gear"].name
    for prop, unit in (("coupler_torque_1", "Nm"), ("coupler_torque_2", "Nm"), ("tooth_force", "N")):
        close(col[f"{name} {prop}_{unit}"], baked_prop(d["gear"], prop), what=prop)
    close(col[f"{d['j1'].name} motion_effort_Nm"], baked_prop(d["j1"], "motion_effort"),
          what="gear 1's motor torque")
    assert not any("effort" in c for c in col if not c.startswith(d["j1"].name))


# ---------------------------------------------------------------- sidebar, undo
def test_panel_shows_the_fields_of_the_kind(blender) -> None:
    """A gear by radii: its two joints as Gear 1 and Gear 2, mesh, the radii (red at 0),
    pressure angle and helix angle (by teeth or ratio too; neither on a belt) and Radii from Meshes, none of the screw's or coupler's fields; a screw:
    pitch and hand; a general coupler: a coordinate choice only for its cylindrical joint.
    The Mechanism panel has Couple and a Couplers list, which lists couplers only."""
    bpy = blender
    from types import SimpleNamespace
    d = bs.gear_pair(bpy)
    s = d["gear"].mechanism

    def props() -> set:
        return {i[1] for i in bs.panel_items(bpy, "VIEW3D_PT_mechanism_object") if i[0] == "prop"}

    gear_fields = {"coupler_kind", "joint_a", "joint_b", "mesh", "ratio_mode", "radius_a",
                   "radius_b", "pressure_angle", "helix_angle"}
    assert props() - {"role"} == gear_fields
    assert ("operator", "mechanism.measure_radii") in bs.panel_items(bpy, "VIEW3D_PT_mechanism_object")
    s.radius_b = 0.0
    assert ("prop", "radius_b", True) in bs.panel_items(bpy, "VIEW3D_PT_mechanism_object")
    s.ratio_mode = "TEETH"                   # teeth, however counted: a pressure angle
    assert props() - {"role"} == gear_fields - {"radius_a", "radius_b"} | {"teeth_a", "teeth_b"}
    s.mesh = "BELT"                                          # a belt has no teeth
    assert props() - {"role"} == gear_fields - {"radius_a", "radius_b", "pressure_angle",
                                                "helix_angle"} | {"teeth_a", "teeth_b"}
    s.ratio_mode = "RADII"
    assert props() - {"role"} == gear_fields - {"pressure_angle", "helix_angle"}
    s.mesh = "EXTERNAL"
    s.coupler_kind = "SCREW"
    assert props() - {"role"} == {"coupler_kind", "joint_a", "joint_b", "pitch", "hand"}
    s.coupler_kind, s.joint_c = "COUPLER", bs.connect(bpy, d["g2"], d["g1"], (0.2, 0, 0), "CYLINDRICAL")
    bs.select(bpy, [d["gear"]], d["gear"])
    assert props() - {"role"} == {"coupler_kind", "joint_a", "joint_b", "joint_c", "scale_a",
                                  "scale_b", "scale_c", "coordinate_c"}
    items = bs.panel_items(bpy, "VIEW3D_PT_mechanism")
    assert ("operator", "mechanism.couple") in items
    assert ("list", "MECHANISM_UL_objects", "coupler", "objects", "coupler_index") in items
    ul = bpy.types.UIList.bl_rna_get_subclass_py("MECHANISM_UL_objects")
    me = SimpleNamespace(list_id="coupler", bitflag_filter_item=1)      # any non-zero flag
    flags, _ = ul.filter_items(me, bpy.context, bpy.context.scene, "objects")
    shown = [ob.name for ob, f in zip(bpy.context.scene.objects, flags) if f]
    assert shown == [d["gear"].name]


@pytest.mark.parametrize("op", ["couple", "measure_radii"])
def test_coupler_operators_declare_undo(blender, op: str) -> None:
    cls = blender.types.Operator.bl_rna_get_subclass_py(f"MECHANISM_OT_{op}")
    assert cls is not None and "UNDO" in cls.bl_options


def test_radii_from_meshes_needs_a_gear_or_pinion(blender) -> None:
    """The button is unavailable for a screw (and says why); a gear whose joint's part is
    not a mesh is refused by name and its radii are left as they were."""
    bpy = blender
    d = bs.gear_pair(bpy)
    s = d["gear"].mechanism
    s.coupler_kind = "SCREW"
    with pytest.raises(RuntimeError, match="Make a gear or rack-and-pinion coupler the active object"):
        bpy.ops.mechanism.measure_radii()
    s.coupler_kind = "GEAR"
    radii = (s.radius_a, s.radius_b)
    d["j2"].mechanism.marker_i.parent = None
    with pytest.raises(RuntimeError, match=f"coupler '{d['gear'].name}': Gear 2: marker I "
                                           f"'{d['j2'].mechanism.marker_i.name}' of joint "
                                           f"'{d['j2'].name}' is not on a mesh part"):
        bpy.ops.mechanism.measure_radii()
    assert (s.radius_a, s.radius_b) == radii
