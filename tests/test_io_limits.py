"""addon/io/limits.py without Blender: a joint's stops and friction settings become the
solver's calls (units, coordinates, names), applied to real solver mechanisms; the errors
name the joint; the viewport's limit range geometry; the baked series and CSV columns.

Tolerances: the geometry is a few multiplications of doubles stored as float32 (the LINES
batch), so points are compared to 1e-6 of their size (float32 unit round-off 6e-8, margin
16); the solver's numbers are passed through unchanged (compared exactly)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from test_io_addon import io, solver

limits, plots, csv_table, timeline = io("limits"), io("plots"), io("csv_table"), io("timeline")
LS, FS = limits.LimitSettings, limits.FrictionSettings


def test_names_follow_the_joint() -> None:
    assert limits.limit_name("Door hinge") == "Door hinge: limit"
    assert limits.friction_name("Door hinge") == "Door hinge: friction"


def test_limit_call_units_and_coordinates() -> None:
    """Angles pass as radians whatever the scale; slides are Blender units times the scale;
    a cylindrical joint's choice picks the coordinate, a prismatic always its slide; a bound
    that is off is None; no bound on, or a kind without a coordinate: no call."""
    s = LS("REVOLUTE", "SLIDE", True, True, lower_angle=-0.5, upper_angle=1.25, lower_slide=7.0,
           restitution=0.3)
    assert limits.limit_call("J", s, 0.001) == dict(name="J: limit", joint="J", coordinate="angle",
                                                    lower=-0.5, upper=1.25, restitution=0.3)
    s = LS("PRISMATIC", "ANGLE", False, True, upper_angle=2.0, upper_slide=250.0)
    call = limits.limit_call("P", s, 0.001)
    assert call["coordinate"] == "slide" and call["lower"] is None
    assert call["upper"] == pytest.approx(0.25, rel=1e-15)
    s = LS("CYLINDRICAL", "SLIDE", True, False, lower_angle=1.0, lower_slide=-3.0)
    assert limits.limit_call("C", s, 2.0)["lower"] == -6.0
    assert limits.limit_call("C", LS("CYLINDRICAL", "ANGLE", True, False, lower_angle=1.0), 2.0)["lower"] == 1.0
    assert limits.limit_call("J", LS("REVOLUTE", "ANGLE", False, False), 1.0) is None
    assert limits.limit_call("J", LS("SPHERICAL", "ANGLE", True, True), 1.0) is None


def test_compliant_stop_call_and_its_penetration_units() -> None:
    """A compliant stop passes its law in SI; its penetration depth is radians on an angle
    and Blender units times the scale on a slide; a rigid stop passes none of it.  The
    calls build real solver limits."""
    s = LS("PRISMATIC", "ANGLE", True, False, lower_slide=-50.0, compliant=True, stiffness=2e4,
           exponent=1.5, damping=50.0, penetration_angle=0.01, penetration_slide=0.5)
    call = limits.limit_call("P", s, 0.001)
    assert call["stiffness"] == 2e4 and call["exponent"] == 1.5 and call["damping"] == 50.0
    assert call["penetration"] == pytest.approx(5e-4, rel=1e-15)
    s = LS("REVOLUTE", "ANGLE", True, False, lower_angle=-1.0, compliant=True, stiffness=10.0,
           penetration_angle=0.01, penetration_slide=0.5)
    assert limits.limit_call("R", s, 0.001)["penetration"] == 0.01
    assert "stiffness" not in limits.limit_call("R", LS("REVOLUTE", "ANGLE", True, False), 1.0)
    m = solver.Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(1, 1, 1))
    m.add_marker("O", "ground")
    m.add_marker("A", "arm")
    m.add_joint("R", "revolute", "A", "O")
    m.add_limit(**limits.limit_call("R", s, 0.001))
    assert m.limits["R: limit"].stiffness == 10.0


def test_angle_bounds_past_half_a_turn_reach_the_solver_as_typed() -> None:
    """A handwheel's stops typed at -720 and +400 degrees (the solver reads an angle limit
    on the joint's continuous angle, so a range may span turns): the call carries them in
    radians as typed, and the solver takes them; float32's pi (8.7e-8 above math.pi) is
    no longer clipped, as nothing refuses it now."""
    s = LS("REVOLUTE", "ANGLE", True, True, lower_angle=math.radians(-720),
           upper_angle=math.radians(400))
    call = limits.limit_call("Door hinge", s, 1.0)
    assert (call["lower"], call["upper"]) == (math.radians(-720), math.radians(400))
    m = hinge()
    m.add_limit(**call)
    took = m.limits["Door hinge: limit"]
    assert (took.lower, took.upper) == (call["lower"], call["upper"])
    f32pi = float(np.float32(math.pi))
    s = LS("REVOLUTE", "ANGLE", True, True, lower_angle=-f32pi, upper_angle=f32pi)
    assert limits.limit_call("J", s, 1.0)["upper"] == f32pi


def test_friction_call_scales_lengths_only() -> None:
    s = FS("REVOLUTE", "ANGLE", True, static=0.3, dynamic=0.2, transition_speed=0.0, viscous=0.5,
           preload=1.5, radius=10.0, arm=20.0, bearing_length=40.0)
    assert limits.friction_call("J", s, 0.001) == dict(
        name="J: friction", joint="J", coordinate="angle", static=0.3, dynamic=0.2,
        transition_speed=None, viscous=0.5, preload=1.5, radius=0.01, arm=0.02, bearing_length=0.04)
    s = FS("CYLINDRICAL", "SLIDE", True, static=0.1, dynamic=0.1, transition_speed=0.05)
    call = limits.friction_call("C", s, 1.0)
    assert call["coordinate"] == "slide" and call["transition_speed"] == 0.05
    assert limits.friction_call("J", FS("REVOLUTE", "ANGLE", False, static=0.3), 1.0) is None


def test_ball_friction_call_takes_the_ball_radius_only() -> None:
    """A spherical joint's friction acts on its rotation with the ball's radius (scaled to
    metres); the hidden thrust arm and bearing length are not passed; a universal joint has
    nothing to rub on."""
    s = FS("SPHERICAL", "ANGLE", True, static=0.3, dynamic=0.2, preload=0.1, radius=15.0,
           arm=20.0, bearing_length=40.0)
    assert limits.friction_call("B", s, 0.001) == dict(
        name="B: friction", joint="B", coordinate="rotation", static=0.3, dynamic=0.2,
        transition_speed=None, viscous=0.0, preload=0.1, radius=0.015)
    assert limits.friction_call("U", FS("UNIVERSAL", "ANGLE", True, static=0.3), 1.0) is None
    assert limits.has_friction("SPHERICAL") and not limits.has_coordinate("SPHERICAL")


@pytest.mark.slow
def test_ball_friction_series_are_world_axes() -> None:
    """The baked series of a ball's friction: the torque turned from marker J's axes (here
    a socket marker turned 69 deg about (1, 1, 1)) into world axes, where it
    opposes the bob's angular velocity (the socket is on the ground), to 1e-9; the
    magnitude column is its size."""
    import test_friction_ball as tfb
    axis = np.array([1.0, 1.0, 1.0]) / math.sqrt(3.0)
    m = tfb.pendulum(10.0, swirl=3.0, socket=(math.cos(0.6), *(math.sin(0.6) * axis)))
    r = m.solve(times=np.linspace(0.0, 0.3, 13), analysis="dynamic")
    series = plots.friction_series(r, "dry", "pivot")
    assert set(series) == set(plots.BALL_FRICTION_PROPS)
    T = np.stack([series[f"friction_torque_{a}"] for a in "xyz"], axis=1)
    w = r.angular_velocity("bob")
    moving = np.linalg.norm(w, axis=1) > 0.01
    assert moving.sum() > 5
    cosine = np.einsum("ni,ni->n", T, w)[moving] / (np.linalg.norm(T, axis=1) * np.linalg.norm(w, axis=1))[moving]
    np.testing.assert_allclose(cosine, -1.0, atol=1e-9)
    np.testing.assert_allclose(series["friction_torque"], np.linalg.norm(r.friction("dry"), axis=1), rtol=1e-12)


def hinge() -> "solver.Mechanism":
    m = solver.Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("door", mass=10.0, inertia=(1.0, 1.0, 1.0), center_of_mass=(0.4, 0.0, 0.0))
    m.add_marker("frame", "ground")
    m.add_marker("leaf", "door")
    m.add_joint("Door hinge", "revolute", "leaf", "frame")
    return m


@pytest.mark.parametrize("settings, message", [
    (LS("REVOLUTE", "ANGLE", True, True, lower_angle=0.5, upper_angle=0.2), "not below the upper"),
    (LS("REVOLUTE", "ANGLE", True, True, lower_angle=0.5, upper_angle=0.5), "not below the upper"),
    (LS("REVOLUTE", "ANGLE", True, False, lower_angle=0.0, restitution=1.5), "between 0 and 1"),
])
def test_bad_limits_are_refused_naming_the_joint(settings, message: str) -> None:
    m = hinge()
    with pytest.raises(solver.MechanismError, match=f"limit 'Door hinge: limit': .*{message}"):
        m.add_limit(**limits.limit_call("Door hinge", settings, 1.0))


@pytest.mark.parametrize("settings, message", [
    (FS("REVOLUTE", "ANGLE", True, static=0.2, dynamic=0.1, radius=0.0), "needs the pin radius"),
    (FS("REVOLUTE", "ANGLE", True, static=0.1, dynamic=0.2, radius=0.01), "exceeds the static"),
    (FS("REVOLUTE", "ANGLE", True, static=-0.1, dynamic=-0.1, radius=0.01), "must not be negative"),
])
def test_bad_friction_is_refused_naming_the_joint(settings, message: str) -> None:
    m = hinge()
    with pytest.raises(solver.MechanismError, match=f"friction 'Door hinge: friction': .*{message}"):
        m.add_friction(**limits.friction_call("Door hinge", settings, 1.0))


# ---------------------------------------------------------------- viewport geometry
def marker_matrix(angle: float, scale: float) -> np.ndarray:
    """Marker J at (1, 2, 3), turned ``angle`` about world x (its z axis tilted), scaled."""
    c, s = math.cos(angle), math.sin(angle)
    M = np.eye(4)
    M[:3, :3] = np.array([[1, 0, 0], [0, c, -s], [0, s, c]]) * scale
    M[:3, 3] = (1.0, 2.0, 3.0)
    return M


def test_arc_spans_the_range_about_marker_js_z_axis() -> None:
    """Every arc point lies in J's xy plane at the radius (the matrix's scale taken out); the
    arc runs from the lower to the upper bound counter-clockwise about z_J, in connected
    segments; each bound has a radial stroke to 1.25 r along its direction."""
    M = marker_matrix(0.7, 3.0)
    o, x, y, z = M[:3, 3], M[:3, 0] / 3, M[:3, 1] / 3, M[:3, 2] / 3
    lo, hi, r = -0.4, 2.1, 0.25
    v = limits.limit_lines(M, "angle", lo, hi, r, segments=64).astype(float)
    assert v.dtype == float and len(v) % 2 == 0
    arc, ticks = v[:-4], v[-4:]
    d = arc - o
    np.testing.assert_allclose(d @ z, 0.0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(d, axis=1), r, rtol=1e-6)
    a = np.arctan2(d @ y, d @ x)
    assert a[0] == pytest.approx(lo, abs=1e-6) and a[-1] == pytest.approx(hi, abs=1e-6)
    assert np.all(np.diff(a) >= -1e-6)                       # counter-clockwise about z_J
    np.testing.assert_allclose(arc[1:-1:2], arc[2::2], atol=1e-6)   # segments join up
    assert len(arc) // 2 == math.ceil(64 * (hi - lo) / (2 * math.pi))
    for (start, end), b in zip(ticks.reshape(2, 2, 3), (lo, hi)):
        np.testing.assert_allclose(start, o, atol=1e-6)
        np.testing.assert_allclose(end, o + 1.25 * r * (math.cos(b) * x + math.sin(b) * y), atol=1e-6)


def test_open_angle_bound_reaches_round_to_pi() -> None:
    """Only a lower bound: the arc goes on to +pi, one stroke; no bounds: nothing."""
    v = limits.limit_lines(np.eye(4), "angle", 0.5, None, 1.0).astype(float)
    arc = v[:-2]
    assert math.atan2(arc[0, 1], arc[0, 0]) == pytest.approx(0.5, abs=1e-6)
    assert abs(math.atan2(arc[-1, 1], arc[-1, 0])) == pytest.approx(math.pi, abs=1e-6)
    np.testing.assert_allclose(v[-1], [1.25 * math.cos(0.5), 1.25 * math.sin(0.5), 0.0], atol=1e-6)
    assert limits.limit_lines(np.eye(4), "angle", None, None, 1.0).shape == (0, 3)


def test_slide_range_is_a_segment_along_z() -> None:
    """A slide from -2 to 5 Blender units: the segment from o - 2 z to o + 5 z and a stroke
    of r/2 along x_J across each bound; an open upper bound drawn r beyond the lower."""
    M = marker_matrix(-1.1, 0.5)
    o, x, z = M[:3, 3], M[:3, 0] / 0.5, M[:3, 2] / 0.5
    v = limits.limit_lines(M, "slide", -2.0, 5.0, 0.4).astype(float)
    np.testing.assert_allclose(v[:2], [o - 2 * z, o + 5 * z], atol=1e-5)
    np.testing.assert_allclose(v[2:4], [o - 2 * z - 0.1 * x, o - 2 * z + 0.1 * x], atol=1e-5)
    np.testing.assert_allclose(v[4:6], [o + 5 * z - 0.1 * x, o + 5 * z + 0.1 * x], atol=1e-5)
    v = limits.limit_lines(M, "slide", -2.0, None, 0.4).astype(float)
    assert len(v) == 4
    np.testing.assert_allclose(v[:2], [o - 2 * z, o - 1.6 * z], atol=1e-5)


# ---------------------------------------------------------------- baked series, CSV
def door_result(analysis: str = "dynamic"):
    """The hinge with a closer toward -20 deg, a stop at 0 and a dry pin, opened 60 deg."""
    m = solver.Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    a0 = math.radians(60.0)
    m.add_part("door", mass=10.0, inertia=(1.0, 1.0, 1.0), center_of_mass=(0.4, 0.0, 0.0),
               orientation=(math.cos(a0 / 2), 0.0, 0.0, math.sin(a0 / 2)))
    m.add_marker("frame", "ground")
    m.add_marker("leaf", "door")
    m.add_joint("hinge", "revolute", "leaf", "frame")
    m.add_torsion_spring("hinge: torsion spring", "hinge", stiffness=20.0, free_angle=math.radians(-20.0))
    m.add_limit(**limits.limit_call("hinge", LS("REVOLUTE", "ANGLE", True, False, restitution=0.2), 1.0))
    m.add_friction(**limits.friction_call("hinge", FS("REVOLUTE", "ANGLE", True, static=0.2,
                                                      dynamic=0.15, radius=0.01), 1.0))
    return m.solve(times=timeline.Timeline(1, 37, 24.0).times, analysis=analysis)


@pytest.mark.slow
def test_plots_and_csv_carry_the_stop_and_friction() -> None:
    """joint_plots puts Result.limit and Result.friction on the joint as limit_force and
    friction_force (the solver's arrays); the CSV has a column of each, N m on an angle."""
    r = door_result()
    assert r.impacts and np.abs(r.limit("hinge: limit")).max() > 1.0
    assert np.abs(r.friction("hinge: friction")).max() > 0.01
    got = plots.joint_plots(r, ["hinge"], {}, (), {"hinge: limit": "hinge"}, {"hinge: friction": "hinge"})
    np.testing.assert_array_equal(got["hinge"]["limit_force"], r.limit("hinge: limit"))
    np.testing.assert_array_equal(got["hinge"]["friction_force"], r.friction("hinge: friction"))
    rows = csv_table.csv_rows(r, np.arange(1, 38), ["door"], ["hinge"], {}, None, (),
                              {"hinge: limit": ("hinge", "angle")}, {"hinge: friction": ("hinge", "angle")})
    k_lim, k_fr = rows[0].index("hinge limit_force_Nm"), rows[0].index("hinge friction_force_Nm")
    np.testing.assert_allclose([float(row[k_lim]) for row in rows[1:]], r.limit("hinge: limit"), rtol=1e-8)
    np.testing.assert_allclose([float(row[k_fr]) for row in rows[1:]], r.friction("hinge: friction"),
                               rtol=1e-8, atol=1e-12)


def test_kinematic_sweep_carries_the_friction() -> None:
    """A driven arm with a dry pin: the kinematic sweep's friction series is the pin's
    (against the turn: negative), and the motion's effort carries it; the baked series is
    that array."""
    m = solver.Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(0.01, 0.01, 0.01), center_of_mass=(0.5, 0.0, 0.0))
    m.add_marker("o", "ground")
    m.add_marker("a", "arm")
    m.add_joint("pin", "revolute", "a", "o")
    m.add_motion("turn", "pin", "t")
    m.add_friction(**limits.friction_call("pin", FS("REVOLUTE", "ANGLE", True, static=0.3,
                                                    dynamic=0.3, radius=0.02), 1.0))
    r = m.solve(duration=1.0, fps=4)
    fr = r.friction("pin: friction")
    assert r.analysis == "kinematic" and np.all(fr[1:] < 0.0)
    # gravity along the axis: the pin carries m g axially, the turn's centripetal load
    # radially; the effort overcomes the friction (and the arm's inertia, zero at constant speed)
    np.testing.assert_allclose(r.effort("turn")[1:], -fr[1:], rtol=1e-9)
    plots = io("plots").joint_plots(r, ["pin"], {}, (), {}, {"pin: friction": "pin"})
    np.testing.assert_array_equal(plots["pin"]["friction_force"], fr)


def test_slide_bounds_in_the_scene_units() -> None:
    """A solver message naming a slide limit gets its bounds as their fields show them (the
    metres written by the scene's length_text); an angle limit, another item or a scale of
    1: unchanged."""
    slides = {"rail: limit": (-0.05, None), "other: limit": (0.0, 0.25)}
    msg = "limit 'rail: limit': joint 'rail' past its lower bound -0.05 m"
    mm = lambda metres: f"{metres * 1000:g} mm"                   # noqa: E731
    assert limits.bounds_in_scene_units(msg, ("rail: limit", "rail"), slides, 0.001, mm) == \
        msg + " (the stops as their fields show them: lower -50 mm)"
    assert limits.bounds_in_scene_units(msg, ("other: limit",), slides, 0.01, mm).endswith(
        "lower 0 mm, upper 250 mm)")
    assert limits.bounds_in_scene_units(msg, ("hinge: limit",), slides, 0.001, mm) == msg
    assert limits.bounds_in_scene_units(msg, ("rail: limit",), slides, 1.0, mm) == msg


def test_stops_and_friction_on_a_kind_without_a_coordinate_are_named() -> None:
    """Stops ticked on a joint changed to spherical, friction on a planar one: the solver
    gets none (limit_call, friction_call), and a line names the joint and says so; on a
    revolute joint, or unticked, no line."""
    stops = LS(kind="SPHERICAL", coordinate="ANGLE", use_lower=True, use_upper=False)
    rub = FS(kind="PLANAR", coordinate="ANGLE", use=True, static=0.2)
    assert limits.limit_call("ball", stops, 1.0) is None and limits.friction_call("ball", rub, 1.0) is None
    lines = limits.unused_notes("ball", stops, rub)
    assert lines[0].startswith("joint 'ball': its stops are on, but a spherical joint has no angle")
    assert lines[1].startswith("joint 'ball': its friction is on, but a planar joint has no angle")
    on_pin = LS(kind="REVOLUTE", coordinate="ANGLE", use_lower=True, use_upper=False)
    assert limits.unused_notes("pin", on_pin, FS(kind="REVOLUTE", coordinate="ANGLE", use=True)) == []
    off = LS(kind="SPHERICAL", coordinate="ANGLE", use_lower=False, use_upper=False)
    assert limits.unused_notes("ball", off, FS(kind="SPHERICAL", coordinate="ANGLE", use=True)) == []
