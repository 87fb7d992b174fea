"""addon/io/couplers.py without Blender: a coupler object's settings become the solver call
that adds it (units, signs, which field is which), applied to real solver mechanisms and
solved; the errors name the coupler and the field; Couple's guess of the kind; the radius
Radii from Meshes measures; the viewport's tie lines; the baked series and CSV columns."""
from __future__ import annotations

import math

import numpy as np
import pytest

from test_io_addon import io, solver

couplers, plots, csv_table, timeline = io("couplers"), io("plots"), io("csv_table"), io("timeline")
Settings, call_of = couplers.CouplerSettings, couplers.coupler_call
REV, PRI, CYL, BALL = "revolute", "prismatic", "cylindrical", "spherical"
Y_AXIS = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)     # marker z along world y
X_AXIS = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)      # marker z along world x


def wrap(a):
    return (np.asarray(a) + math.pi) % (2 * math.pi) - math.pi


def shafts(*kinds: str, gap: float = 0.35):
    """Ground and one part per joint kind, each on its own joint to the ground at x = k gap,
    the joint axis along world z; joints named j1, j2, ... (parts p1, p2, ...)."""
    m = solver.Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    for k, kind in enumerate(kinds, start=1):
        x = (k - 1) * gap
        m.add_part(f"p{k}", mass=1.0, inertia=(0.01, 0.01, 0.02), position=(x, 0.0, 0.0))
        m.add_marker(f"seat{k}", "ground", position=(x, 0.0, 0.0))
        m.add_marker(f"hub{k}", f"p{k}")
        m.add_joint(f"j{k}", kind, f"hub{k}", f"seat{k}")
    return m


def add(m, name: str, call) -> None:
    getattr(m, call.method)(name, **call.kwargs)


def turn_z(r, part: str) -> np.ndarray:
    q = r.orientation(part)
    return wrap(2.0 * np.arctan2(q[:, 3], q[:, 0]))


# ---------------------------------------------------------------- settings -> solver call
@pytest.mark.parametrize("mesh, sign", [("EXTERNAL", -1.0), ("INTERNAL", 1.0), ("BELT", 1.0)])
def test_gear_by_radii_in_millimetres_turns_at_the_ratio(mesh: str, sign: float) -> None:
    """Radii typed in scene units (mm, scale 0.001) reach the solver in metres; the pressure
    angle (radians in Blender) in degrees; solved with gear 1 driven, gear 2 turns at
    -+r1/r2 (external: opposite way) to rounding, and the tooth force is gear 1's coupler
    torque over r1 cos(pressure angle) in metres (a belt has no teeth: none)."""
    s = Settings(kind="GEAR", ratio_mode="RADII", radius_a=40.0, radius_b=100.0, mesh=mesh,
                 pressure_angle=math.radians(25.0))
    call = call_of("Gear j1-j2", s, [("j1", REV), ("j2", REV)], 0.001)
    assert call.method == "add_gear"
    teeth = {} if mesh == "BELT" else dict(helix_angle=0.0)     # a belt has no teeth
    assert call.kwargs == dict(joint1="j1", joint2="j2", radii=(0.04, 0.1), mesh=mesh.lower(),
                               pressure_angle=pytest.approx(25.0, rel=1e-15), **teeth)
    toothed = mesh != "BELT"
    assert call.terms == ((1, "angle"), (2, "angle")) and call.tooth_force == toothed
    assert call.props == ("coupler_torque_1", "coupler_torque_2") + ("tooth_force",) * toothed
    m = shafts(REV, REV)
    add(m, "Gear j1-j2", call)
    m.add_motion("drive", "j1", "sin(2*pi*t)")
    r = m.solve(times=np.linspace(0.0, 1.0, 13))
    f = np.sin(2 * np.pi * r.times)
    assert np.abs(wrap(turn_z(r, "p2") - sign * 0.4 * f)).max() < 1e-12
    got = plots.coupler_plots(r, {"Gear j1-j2": call})["Gear j1-j2"]
    Q = r.coupler("Gear j1-j2")
    assert list(got) == list(call.props)
    np.testing.assert_array_equal(got["coupler_torque_2"], Q[:, 1])
    assert np.abs(Q[:, 1]).max() > 1e-3                      # gear 2 is accelerated: not all zero
    if toothed:
        np.testing.assert_allclose(got["tooth_force"], Q[:, 0] / (0.04 * math.cos(math.radians(25))),
                                   rtol=1e-12)


@pytest.mark.parametrize("mode, want", [("TEETH", dict(teeth=(18, 45))), ("RATIO", dict(ratio=2.5))])
def test_gear_by_teeth_or_ratio(mode: str, want: dict) -> None:
    """Teeth and ratio go as they are (no unit).  The shafts' parallel axes 0.35 m apart
    mesh at the pitch point, which divides them 1 : 2.5, so gear 1's pitch radius as built
    is 0.1 m and the baked tooth force is gear 1's torque over 0.1 cos 20 deg (to rounding,
    1e-12 relative), as with radii typed in."""
    s = Settings(kind="GEAR", ratio_mode=mode, teeth_a=18, teeth_b=45, gear_ratio=2.5)
    call = call_of("g", s, [("a", CYL), ("b", REV)], 0.01)
    assert {k: call.kwargs[k] for k in want} == want and "radii" not in call.kwargs
    assert call.tooth_force and call.props == ("coupler_torque_1", "coupler_torque_2", "tooth_force")
    m = shafts(CYL, REV)
    add(m, "g", call_of("g", s, [("j1", CYL), ("j2", REV)], 0.01))
    m.add_motion("drive", "j1", "2*t + sin(3*t)")
    m.add_motion("hold", "j1", "0", coordinate="slide")
    r = m.solve(times=np.linspace(0.0, 1.0, 5))
    assert np.abs(wrap(turn_z(r, "p2") + (2 * r.times + np.sin(3 * r.times)) / 2.5)).max() < 1e-12
    got = plots.coupler_plots(r, {"g": call})["g"]
    assert list(got) == list(call.props)
    torque_1 = r.coupler("g")[:, 0]
    assert np.abs(torque_1).max() > 1e-3                  # gear 2 is accelerated: a real load
    np.testing.assert_allclose(got["tooth_force"], torque_1 / (0.1 * math.cos(math.radians(20))),
                               rtol=1e-12)


def test_a_gear_by_teeth_on_axes_that_do_not_mesh_has_no_tooth_force() -> None:
    """Teeth on two shafts at right angles (a bevel pair, which does not mesh at a pitch
    point): the bake's series are the two coupler torques alone, and reading them does not
    fail."""
    s = Settings(kind="GEAR", ratio_mode="TEETH", teeth_a=18, teeth_b=45)
    m = shafts(REV)
    m.add_part("p2", mass=1.0, inertia=(0.02, 0.01, 0.01), position=(0.35, 0.0, 0.0))
    m.add_marker("seat2", "ground", position=(0.35, 0.0, 0.0), orientation=X_AXIS)
    m.add_marker("hub2", "p2", orientation=X_AXIS)
    m.add_joint("j2", REV, "hub2", "seat2")
    call = call_of("g", s, [("j1", REV), ("j2", REV)], 1.0)
    add(m, "g", call)
    m.add_motion("drive", "j1", "2*t")
    r = m.solve(times=np.linspace(0.0, 1.0, 5))
    assert list(plots.coupler_plots(r, {"g": call})["g"]) == ["coupler_torque_1", "coupler_torque_2"]


def test_rack_travel_is_the_pitch_radius_in_metres_times_the_angle() -> None:
    """Pinion (field A, revolute) and rack (field B, prismatic along world x); pitch radius
    25 scene units at 0.01 m each: x = 0.25 theta.  Result.coupler's columns are in the
    order the joints are given, (pinion angle, rack slide): the props name them by field,
    torque on field 1, force on field 2."""
    s = Settings(kind="RACK_PINION", pitch_radius=25.0)
    call = call_of("rp", s, [("spin", REV), ("guide", PRI)], 0.01)
    assert call.kwargs == dict(pinion="spin", rack="guide", pitch_radius=0.25)
    assert call.props == ("coupler_torque_1", "coupler_force_2")
    m = solver.Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("pinion", mass=0.3, inertia=(1e-3, 1e-3, 1e-3), position=(0.0, 0.0, 0.25))
    m.add_part("rack", mass=2.0, inertia=(1e-2, 1e-2, 1e-2))
    m.add_marker("axle", "ground", position=(0.0, 0.0, 0.25), orientation=Y_AXIS)
    m.add_marker("hub", "pinion", orientation=Y_AXIS)
    m.add_joint("spin", "revolute", "hub", "axle")
    m.add_marker("way", "ground", orientation=X_AXIS)
    m.add_marker("shoe", "rack", orientation=X_AXIS)
    m.add_joint("guide", "prismatic", "shoe", "way")
    add(m, "rp", call)
    m.add_motion("drive", "spin", "sin(t)")
    r = m.solve(times=np.linspace(0.0, 2.0, 9))
    np.testing.assert_allclose(r.position("rack")[:, 0], 0.25 * np.sin(r.times), atol=1e-13)
    got = plots.coupler_plots(r, {"rp": call})["rp"]
    np.testing.assert_allclose(got["coupler_force_2"], 2.0 * -0.25 * np.sin(r.times), atol=1e-10)
    np.testing.assert_allclose(got["coupler_torque_1"], -0.25 * got["coupler_force_2"], atol=1e-12)


@pytest.mark.parametrize("hand, sign", [("RIGHT", 1.0), ("LEFT", -1.0)])
def test_screw_pitch_in_millimetres(hand: str, sign: float) -> None:
    """A 5 mm lead at unit scale 0.001 on one cylindrical joint: 0.005 m per turn (both terms
    on field 1); with a nut slide (field B) the slide's term is on field 2."""
    s = Settings(kind="SCREW", pitch=5.0, hand=hand)
    call = call_of("lead", s, [("j1", CYL), None], 0.001)
    assert call.kwargs == dict(joint="j1", pitch=0.005, slide_joint=None, hand=hand.lower())
    assert call.props == ("coupler_torque_1", "coupler_force_1")
    m = shafts(CYL)
    add(m, "lead", call)
    m.add_motion("turn", "j1", "4*pi*t")
    r = m.solve(times=np.linspace(0.0, 1.0, 7))
    np.testing.assert_allclose(r.position("p1")[:, 2], sign * 0.005 * 2 * r.times, atol=1e-13)
    two = call_of("lead", s, [("shaft", REV), ("nut", PRI)], 0.001)
    assert two.kwargs["slide_joint"] == "nut" and two.props == ("coupler_torque_1", "coupler_force_2")


def test_general_coupler_coordinates_and_slide_scales_in_scene_units() -> None:
    """A revolute's term is its angle and a prismatic's its slide whatever the hidden choice
    says; a cylindrical joint's is the one chosen.  The relation is in scene units: a slide's
    scale is divided by the unit scale (s q_scene = (s / scale) q_m).  Solved: 2 theta_1 -
    0.5 x_2[mm] = 0 at 1 mm per unit, i.e. x_2 = 4 theta_1 mm."""
    s = Settings(kind="COUPLER", scales=(2.0, -0.5, 3.0), coordinates=("SLIDE", "ANGLE", "SLIDE"))
    call = call_of("c", s, [("j1", REV), ("j2", PRI), None], 0.001)
    assert call.kwargs == dict(joints=["j1", "j2"], scales=[2.0, -500.0], coordinates=["angle", "slide"])
    assert call.props == ("coupler_torque_1", "coupler_force_2")
    three = call_of("c", s, [("j1", REV), ("j2", CYL), ("j3", CYL)], 1.0)
    assert three.kwargs["coordinates"] == ["angle", "angle", "slide"]
    assert three.props == ("coupler_torque_1", "coupler_torque_2", "coupler_force_3")
    m = shafts(REV, PRI)
    add(m, "c", call)
    m.add_motion("drive", "j1", "t")
    r = m.solve(times=np.linspace(0.0, 1.0, 5))
    np.testing.assert_allclose(r.position("p2")[:, 2], 4e-3 * r.times, atol=1e-15)


@pytest.mark.parametrize("kind, joints, settings, message", [
    ("GEAR", [("j1", REV), None], {}, "coupler 'x': Gear 2 is not set: pick a revolute or cylindrical joint"),
    ("GEAR", [("ball", BALL), ("j2", REV)], {},
     "coupler 'x': Gear 1 'ball' is a spherical joint, which has no angle: pick a revolute or cylindrical"),
    ("GEAR", [("j1", REV), ("j2", PRI)], {}, "Gear 2 'j2' is a prismatic joint, which has no angle"),
    ("GEAR", [("j1", REV), ("j2", REV)], dict(radius_a=0.1), r"pitch radii must be above 0 \(Radius 1 0.1, "
                                                             r"Radius 2 0\): type them, or press Radii"),
    ("RACK_PINION", [("j1", REV), ("j2", REV)], dict(pitch_radius=0.1),
     "Rack 'j2' is a revolute joint, which has no slide: pick a prismatic or cylindrical joint"),
    ("RACK_PINION", [("j1", REV), ("j2", PRI)], {}, "the pinion's pitch radius is 0"),
    ("SCREW", [None, None], dict(pitch=1.0), "Screw is not set"),
    ("SCREW", [("j1", REV), None], dict(pitch=1.0),
     "Screw 'j1' is a revolute joint, which has no slide: make it cylindrical, or set Nut Slide"),
    ("COUPLER", [("j1", REV), ("b", BALL), None], {},
     "Joint 2 'b' is a spherical joint, which has no coordinate: pick a revolute, prismatic or"),
    ("COUPLER", [None, ("j2", REV), ("j3", REV)], {}, "Joint 1 is not set"),
])
def test_errors_name_the_coupler_and_the_field(kind, joints, settings, message) -> None:
    s = Settings(kind=kind, **({"radius_a": 0.0} | settings))
    with pytest.raises(solver.MechanismError, match=message):
        call_of("x", s, joints, 1.0)


def test_what_the_solver_refuses_is_named_by_the_coupler() -> None:
    """Values the io layer passes through (teeth, ratio, pitch, pressure angle) are checked
    by the solver under the same name (the coupler object's)."""
    m = shafts(REV, REV)
    bad = Settings(kind="GEAR", ratio_mode="RATIO", gear_ratio=0.0)
    with pytest.raises(solver.MechanismError, match="gear 'Gear x': ratio must be positive"):
        add(m, "Gear x", call_of("Gear x", bad, [("j1", REV), ("j2", REV)]))
    steep = Settings(kind="GEAR", radius_a=1.0, radius_b=2.0, pressure_angle=math.radians(61.0))
    with pytest.raises(solver.MechanismError, match=r"gear 'Gear x': pressure_angle must be in \[0, 60\)"):
        add(m, "Gear x", call_of("Gear x", steep, [("j1", REV), ("j2", REV)]))


# ---------------------------------------------------------------- Couple's guess
@pytest.mark.parametrize("joints, kind, order", [
    ([("a", REV), ("b", REV)], "GEAR", [0, 1]),
    ([("a", CYL), ("b", REV)], "GEAR", [0, 1]),
    ([("a", REV), ("b", PRI)], "RACK_PINION", [0, 1]),
    ([("a", PRI), ("b", REV)], "RACK_PINION", [1, 0]),            # the pinion goes first
    ([("a", PRI), ("b", CYL)], "RACK_PINION", [1, 0]),
    ([("a", PRI), ("b", PRI)], "COUPLER", [0, 1]),
    ([("a", CYL)], "SCREW", [0]),
    ([("a", REV), ("b", PRI), ("c", CYL)], "COUPLER", [0, 1, 2]),
])
def test_couple_guesses_the_kind(joints, kind: str, order: list) -> None:
    assert couplers.guess_kind(joints) == (kind, order)


@pytest.mark.parametrize("joints, message", [
    ([("a", REV)], "one joint selected, 'a', a revolute joint: a screw on one joint needs a cylindrical"),
    ([("a", REV), ("b", BALL)], "joint 'b' is a spherical joint, which has no coordinate"),
    ([("a", REV)] * 4, "select one, two or three joints"),
])
def test_couple_refuses_what_makes_no_coupler(joints, message: str) -> None:
    with pytest.raises(solver.MechanismError, match=message):
        couplers.guess_kind(joints)


def test_coupler_object_name() -> None:
    assert couplers.coupler_object_name("GEAR", ["j1", "j2"]) == "Gear j1-j2"
    assert couplers.coupler_object_name("RACK_PINION", ["p", "r"]) == "Rack and pinion p-r"
    assert couplers.coupler_object_name("SCREW", ["lead"]) == "Screw lead"


# ---------------------------------------------------------------- geometry
def test_radius_about_a_tilted_axis() -> None:
    """Points on a cylinder of radius 0.3 about a tilted axis through (1, 2, 3), at heights
    along it, and a few inside: the largest distance is 0.3 to rounding, whatever the
    direction's length; no points or no direction is an error."""
    d = np.array([1.0, -2.0, 0.5])
    u = d / np.linalg.norm(d)
    e1 = np.cross(u, [0.0, 0.0, 1.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    a = np.linspace(0.0, 2 * np.pi, 17)
    h = np.linspace(-1.0, 2.0, 17)
    rim = (np.array([1.0, 2.0, 3.0]) + 0.3 * (np.cos(a)[:, None] * e1 + np.sin(a)[:, None] * e2)
           + h[:, None] * u)
    inner = np.array([1.0, 2.0, 3.0]) + 0.1 * e1 + np.outer(h, u)
    pts = np.concatenate([inner, rim])
    assert couplers.radius_about_axis(pts, (1.0, 2.0, 3.0), 7.0 * d) == pytest.approx(0.3, rel=1e-14)
    with pytest.raises(solver.MechanismError, match="no vertices"):
        couplers.radius_about_axis(np.zeros((0, 3)), (0, 0, 0), d)
    with pytest.raises(solver.MechanismError, match="no direction"):
        couplers.radius_about_axis(pts, (0, 0, 0), (0, 0, 0))


@pytest.mark.parametrize("ring, want", [((0.15, 0.18), 0.15), ((0.25, 0.25), 0.25),
                                        ((0.0, 0.25), 0.25)], ids=["tube", "disc", "cup"])
@pytest.mark.parametrize("ring_first", [False, True])
def test_an_internal_pairs_ring_is_measured_at_its_bore(ring, want: float,
                                                         ring_first: bool) -> None:
    """Radii from Meshes on an internal pair, from each mesh's (least, largest) distance
    about its axis: a pinion (0.05 to 0.06) gives its outer radius; a ring drawn as a tube
    (0.15 to 0.18) its bore 0.15, where the pinion meshes; one drawn as a disc of its pitch
    circle (every vertex on the rim) or as a cup with a vertex on the axis (no bore the
    pinion fits in) its outer radius, whichever is gear 1."""
    pinion = (0.05, 0.06)
    pair = (ring, pinion) if ring_first else (pinion, ring)
    got = couplers.internal_radii(*pair)
    assert got == ((want, 0.06) if ring_first else (0.06, want))
    lo, hi = couplers.radii_about_axis(np.array([[0.15, 0.0, 1.0], [0.0, -0.18, -2.0]]),
                                       (0.0, 0.0, 5.0), (0.0, 0.0, 3.0))
    assert (lo, hi) == (pytest.approx(0.15, rel=1e-15), pytest.approx(0.18, rel=1e-15))


def test_tie_lines_join_each_couplers_joints_in_order() -> None:
    """A gear (two joints): one segment; a coupler of three: two segments, A-B and B-C; a
    screw on one joint: nothing; no couplers: no vertices."""
    a, b, c, d, e, f = (np.full(3, float(k)) for k in range(6))
    v = couplers.tie_lines([[a, b], [c, d, e], [f]])
    assert v.dtype == np.float32 and v.shape == (6, 3)
    np.testing.assert_array_equal(v, [a, b, c, d, d, e])
    assert couplers.tie_lines([]).shape == (0, 3)


# ---------------------------------------------------------------- what a bake writes
def test_baked_props_and_csv_columns() -> None:
    """Every name a coupler's series may take is one Clear Bake removes; the CSV has one
    column per series, named "<coupler> <property>_<unit>", holding the Result's numbers to
    9 digits."""
    import csv
    import io as stdio
    m = shafts(REV, REV)
    call = call_of("G", Settings(kind="GEAR", radius_a=0.1, radius_b=0.25), [("j1", REV), ("j2", REV)])
    add(m, "G", call)
    m.add_motion("drive", "j1", "sin(2*pi*t)")
    tl = timeline.Timeline(1, 13, 24.0)
    r = m.solve(times=tl.times)
    assert set(call.props) <= set(plots.BAKED_PROPS) and set(plots.COUPLER_PROPS) <= set(plots.BAKED_PROPS)
    rows = csv_table.csv_rows(r, tl.frames_of(r.times), ["p1", "p2"], ["j1", "j2"],
                              {"drive": ("j1", "angle")}, {"G": call})
    text = stdio.StringIO()
    csv.writer(text).writerows(rows)
    parsed = list(csv.reader(stdio.StringIO(text.getvalue())))
    col = dict(zip(parsed[0], np.array(parsed[1:], dtype=float).T))
    assert [h for h in parsed[0] if h.startswith("G ")] == [
        "G coupler_torque_1_Nm", "G coupler_torque_2_Nm", "G tooth_force_N"]
    Q = r.coupler("G")
    np.testing.assert_allclose(col["G coupler_torque_2_Nm"], Q[:, 1], rtol=5e-9, atol=1e-300)
    np.testing.assert_allclose(col["G tooth_force_N"], r.tooth_force("G"), rtol=5e-9, atol=1e-300)
    assert csv_table.csv_rows(r, tl.frames_of(r.times), ["p1"], [], {})[0] == ["frame", "time_s"] + [
        f"p1 {c}" for c in csv_table.PART_COLUMNS]


def test_a_helix_angle_reaches_the_solver_in_degrees() -> None:
    """The helix angle, radians in Blender, reaches add_gear in degrees with its sign (a
    left-handed gear 1 negative); a belt, whose panel hides the field, gets none."""
    s = Settings(kind="GEAR", radius_a=0.04, radius_b=0.1, helix_angle=math.radians(-22.5))
    call = call_of("Gear j1-j2", s, [("j1", REV), ("j2", REV)], 1.0)
    assert call.kwargs["helix_angle"] == pytest.approx(-22.5, rel=1e-15)
    belt = Settings(kind="GEAR", radius_a=0.04, radius_b=0.1, mesh="BELT",
                    helix_angle=math.radians(-22.5))
    assert "helix_angle" not in call_of("Gear j1-j2", belt, [("j1", REV), ("j2", REV)], 1.0).kwargs


def test_gear_joints_opposed_by_their_housing_side_or_axis() -> None:
    """The gear of each joint is the part the other joint does not hold; a joint whose
    marker I is on the housing, or whose axis points against the other's, counts its
    gear's turn backwards (two such cancel); axes 90 degrees apart (bevel gears) compare
    sides only.  Opposed, an external mesh is the solver's internal relation, an internal
    its external one, and a belt a coupler r1 q1 + r2 q2 = 0."""
    z, down, x = np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0])
    assert couplers.gear_sides([("g1", "frame"), ("g2", "frame")]) == [1.0, 1.0]
    assert couplers.gear_sides([("g1", "frame"), ("frame", "g2")]) == [1.0, -1.0]
    assert couplers.gear_sides([("planet", "carrier"), ("sun", "frame")]) == [1.0, 1.0]
    assert not couplers.turns_opposed([1.0, 1.0], [z, z])
    assert couplers.turns_opposed([1.0, -1.0], [z, z])
    assert couplers.turns_opposed([1.0, 1.0], [z, down])
    assert not couplers.turns_opposed([1.0, -1.0], [z, down])
    assert not couplers.turns_opposed([1.0, 1.0], [z, x])
    joints = [("j1", "revolute"), ("j2", "revolute")]
    for mesh, method, want in (("EXTERNAL", "add_gear", "internal"), ("INTERNAL", "add_gear", "external")):
        call = couplers.coupler_call("g", couplers.CouplerSettings(radius_a=10.0, radius_b=25.0, mesh=mesh),
                                     joints, 0.001, opposed=True)
        assert (call.method, call.kwargs["mesh"]) == (method, want)
    belt = couplers.coupler_call("b", couplers.CouplerSettings(radius_a=10.0, radius_b=25.0, mesh="BELT"),
                                 joints, 0.001, opposed=True)
    assert belt.method == "add_coupler" and belt.kwargs["joints"] == ["j1", "j2"]
    np.testing.assert_allclose(belt.kwargs["scales"], [0.01, 0.025], rtol=1e-15)
    assert belt.terms == ((1, "angle"), (2, "angle")) and not belt.tooth_force
