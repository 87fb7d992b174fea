"""Blender splines as solver curves, without Blender (addon/io/curve_shapes.py): Bezier
segments in Bernstein form, rational B-splines against exact circular arcs and scipy's
B-splines, poly splines through their points, the curve object's matrix applied."""
from __future__ import annotations

import importlib
import math
import re

import numpy as np
import pytest
from scipy.interpolate import BSpline

from test_io_addon import io, solver

curve_shapes = io("curve_shapes")
bezier_function, nurbs_function = curve_shapes.bezier_function, curve_shapes.nurbs_function
spline_curve = curve_shapes.spline_curve
MechanismError = solver.MechanismError

K = 4.0 / 3.0 * (math.sqrt(2.0) - 1.0)     # the quarter-circle Bezier's handle length, 0.5523


def bezier_circle(R: float):
    """Blender's Bezier circle: four points at R on the axes, handles K R along the tangent."""
    co = np.array([[R, 0, 0], [0, R, 0], [-R, 0, 0], [0, -R, 0]], dtype=float)
    tangent = np.array([[0, 1, 0], [-1, 0, 0], [0, -1, 0], [1, 0, 0]], dtype=float) * K * R
    return co, co - tangent, co + tangent


def test_bezier_circle_and_its_fit() -> None:
    """The four-arc Bezier circle deviates from the circle by at most 2.7e-4 R (the known
    bound of this approximation: max |r - R| / R = 2.73e-4, at 1/2 of each arc, and exactly
    R at the points); the solver's spline through it reproduces the Bezier itself to 1e-9 R
    (its fit_error, a measured bound, below 1e-7 R: the Bezier's curvature jumps at its four
    points, C1 joins, where the C4 quintic errs most), so what the user drew is what the pin
    follows."""
    R = 0.25
    co, left, right = bezier_circle(R)
    f, seg = bezier_function(co, left, right, cyclic=True)
    s = np.linspace(0.0, seg, 4001)
    rad = np.linalg.norm(f(s), axis=1)
    assert seg == 4 and abs(rad.max() / R - 1.0 - 2.7253e-4) < 1e-6
    np.testing.assert_allclose(f(np.arange(4.0)), co, atol=1e-15)
    curve = spline_curve("BEZIER", "cam", np.eye(4), co, True, left, right)
    assert curve.closed and 0.0 < curve.fit_error < 1e-7 * R
    x = curve.evaluate(np.linspace(0.0, curve.length, 997), 0)[0]
    # every spline point lies on the Bezier: within fit_error of its radius band
    assert np.abs(np.linalg.norm(x, axis=1) - R).max() <= 2.73e-4 * R + curve.fit_error


def test_open_bezier_line_with_a_matrix() -> None:
    """A straight open Bezier (handles on the line) through a matrix that scales by 2 and
    shifts: the curve is that segment, exactly, from end to end."""
    co = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    left, right = co - [0.2, 0, 0], co + [0.3, 0, 0]
    M = np.diag([2.0, 2.0, 2.0, 1.0])
    M[:3, 3] = (0.5, -1.0, 0.0)
    curve = spline_curve("BEZIER", "slot", M, co, False, left, right)
    x = curve.evaluate(np.linspace(0.0, curve.length, 101), 0)[0]
    assert abs(curve.length - 2.0) < 1e-9
    np.testing.assert_allclose(x[:, 1:], np.tile([-1.0, 0.0], (101, 1)), atol=1e-12)
    np.testing.assert_allclose(x[[0, -1], 0], [0.5, 2.5], atol=1e-12)


def test_rational_quadratic_is_an_exact_arc() -> None:
    """Three points (1, 0), (1, tan a), (cos 2a, sin 2a) with weights 1, cos a, 1 and a
    clamped knot vector: the rational quadratic is exactly the unit circle's arc of 2a
    (Piegl and Tiller, eq. 7.3); every point at radius 1 to rounding."""
    a = math.radians(50.0)
    P = np.array([[1.0, 0.0, 0.0], [1.0, math.tan(a), 0.0], [math.cos(2 * a), math.sin(2 * a), 0.0]])
    f, u0, u1 = nurbs_function(P, np.array([1.0, math.cos(a), 1.0]), 3, False, True)
    x = f(np.linspace(u0, u1, 1001))
    assert np.abs(np.linalg.norm(x, axis=1) - 1.0).max() < 1e-14
    np.testing.assert_allclose(x[[0, -1]], P[[0, 2]], atol=1e-15)


@pytest.mark.parametrize("endpoint", [True, False])
def test_nonrational_nurbs_matches_scipy(endpoint: bool) -> None:
    """Equal weights: the NURBS is the B-spline of its points on the same knots (scipy's
    BSpline, an independent implementation), to 1e-14."""
    rng = np.random.default_rng(4)
    P = rng.normal(size=(7, 3))
    f, u0, u1 = nurbs_function(P, np.full(7, 2.5), 4, False, endpoint)
    p, n = 3, 7
    if endpoint:
        knots = np.concatenate([np.zeros(p + 1), np.arange(1, n - p) / (n - p), np.ones(p + 1)])
    else:
        knots = np.arange(n + p + 1) / (n + p)
    u = np.linspace(u0, u1, 301)
    np.testing.assert_allclose(f(u), BSpline(knots, P, p)(u), atol=1e-14)


def test_cyclic_nurbs_closes_smoothly() -> None:
    """A cyclic order-4 NURBS of a square's corners: its start and end meet with the same
    tangent (the first three points wrap round), and the fitted curve is closed."""
    P = np.array([[1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, -1, 0]], dtype=float)
    f, u0, u1 = nurbs_function(P, np.ones(4), 4, True, False)
    h = 1e-4 * (u1 - u0)
    np.testing.assert_allclose(f(np.array([u0])), f(np.array([u1])), atol=1e-14)
    # one-sided second-order differences (error h^2 |f'''| / 3, about 1e-6 here)
    d0 = (-3 * f(np.array([u0])) + 4 * f(np.array([u0 + h])) - f(np.array([u0 + 2 * h]))) / (2 * h)
    d1 = (3 * f(np.array([u1])) - 4 * f(np.array([u1 - h])) + f(np.array([u1 - 2 * h]))) / (2 * h)
    np.testing.assert_allclose(d0, d1, atol=1e-5)
    assert spline_curve("NURBS", "loop", np.eye(4), P, True, order=4).closed


def test_poly_spline_passes_through_its_points_and_bad_input() -> None:
    pts = np.array([[0, 0, 0], [1, 0.2, 0], [2, 0, 0], [3, -0.4, 0]], dtype=float)
    curve = spline_curve("POLY", "track", np.eye(4), pts, False)
    np.testing.assert_allclose(curve.evaluate(curve.parameters, 0)[0], pts, atol=1e-12)
    with pytest.raises(MechanismError, match="weights must be positive"):
        nurbs_function(pts, np.array([1, 0, 1, 1.0]), 3, False, True)
    with pytest.raises(MechanismError, match="at least two points"):
        bezier_function(pts[:1], pts[:1], pts[:1], False)
    with pytest.raises(MechanismError, match="not supported"):
        spline_curve("SURFACE", "x", np.eye(4), pts, False)


# ---------------------------------------------------------------- joints on curves (io/curve_joints.py)
curve_joints, start_gaps = io("curve_joints"), io("start_gaps")
plots, csv_table = io("plots"), io("csv_table")
SplineData = curve_joints.SplineData
Curve = importlib.import_module(f"{solver.__name__}.base.curves").Curve


def rot(axis: str, a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    i, j = {"x": (1, 2), "y": (2, 0), "z": (0, 1)}[axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def poly(points, cyclic: bool = False) -> SplineData:
    return SplineData("POLY", np.asarray(points, dtype=float), cyclic)


def test_curve_matrix_takes_the_curve_into_its_marker_frame_in_metres() -> None:
    """A curve object scaled by 2 and turned, in a scene in millimetres (0.001 m per unit);
    its marker at (0.1, -0.2, 0.05) m, turned about z then x: a local point x goes to
    R^T (0.001 W x - p), W the object's world matrix, exactly as written out."""
    W = np.eye(4)
    W[:3, :3] = 2.0 * rot("y", 0.4)
    W[:3, 3] = (120.0, -30.0, 7.0)
    R, p = rot("z", 0.3) @ rot("x", 0.2), np.array([0.1, -0.2, 0.05])
    M = curve_joints.curve_matrix(curve_joints.marker_world(p, R), W, 0.001)
    x = np.array([[3.0, -1.0, 2.0], [0.0, 0.0, 0.0]])
    want = (0.001 * (x @ W[:3, :3].T + W[:3, 3]) - p) @ R
    np.testing.assert_allclose(curve_shapes.to_frame(M, x), want, atol=1e-15)


def test_cam_curve_flattened_within_float32_else_refused() -> None:
    """A circle of radius 0.05 m drawn in a marker's plane that is tilted by 4.4e-8 rad
    (cos(pi/2) in float32) is within FLAT_SHARE and is projected into the plane (z = 0 on
    every knot: the solver's 1e-9 test passes); tilted by 0.01 rad it is refused, naming the
    curve and by how much it leaves the plane (0.05 sin 0.01 m)."""
    co = bs_circle(0.05, 16)
    spline = poly(co, cyclic=True)
    for tilt, ok in ((4.4e-8, True), (0.01, False)):
        M = np.eye(4)
        M[:3, :3] = rot("x", tilt)
        if ok:
            shape = curve_joints.joint_curve("cam", "Curve", "disc", spline, M, cam=True)
            assert np.abs(shape.curve.points[:, 2]).max() == 0.0
        else:
            off = 0.05 * math.sin(0.01)
            with pytest.raises(MechanismError, match=re.escape(
                    f"joint 'cam': Curve 'disc' leaves the marker's xy plane by {off:.3g} m")):
                curve_joints.joint_curve("cam", "Curve", "disc", spline, M, cam=True)


def bs_circle(radius: float, n: int, centre=(0.0, 0.0, 0.0)) -> np.ndarray:
    a = 2 * np.pi * np.arange(n) / n
    return np.column_stack([centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a),
                            np.full(n, centre[2])])


@pytest.mark.parametrize("spline, said", [
    (SplineData("NURBS", np.zeros((5, 3)), True, weights=np.ones(5), order=3, endpoint=True,
                bezier_knots=True), "is a NURBS spline with the Bezier knot option"),
    (SplineData("NURBS", np.zeros((5, 3)), True, weights=np.ones(5), order=3, endpoint=True),
     "is a cyclic NURBS spline with Endpoint on"),
    (SplineData("NURBS", np.eye(3), False, weights=np.ones(3), order=4),
     "a NURBS spline of order 4 needs at least 4 points, it has 3"),
    (SplineData("BEZIER", np.zeros((1, 3)), False, np.zeros((1, 3)), np.zeros((1, 3))),
     "a Bezier spline needs at least two points, it has 1"),
    (poly(np.zeros((1, 3))), "a Poly spline needs at least two points, it has 1"),
    (SplineData("CARDINAL", np.eye(3)), "a spline of type 'CARDINAL' is not read"),
    (poly([(0, 0, 0), (1, 0, 0), (2, 0, 0)], cyclic=True),
     "a closed curve whose points all lie on one line is degenerate"),
])
def test_splines_refused_name_the_joint_and_curve(spline: SplineData, said: str) -> None:
    """Splines not read as Blender draws them, too short or degenerate: the error names the
    joint, the field and the curve object once (the curve's own "curve 'x':" is dropped)."""
    with pytest.raises(MechanismError) as info:
        curve_joints.joint_curve("slot joint", "Curve", "groove", spline, np.eye(4))
    text = str(info.value)
    assert text.startswith("joint 'slot joint': Curve 'groove'") and said in text
    assert text.count("groove") == 1


def test_poly_curve_departs_from_its_segments_by_the_sagitta() -> None:
    """A cyclic poly of 48 points on a circle of radius 2: the smooth curve through them is
    the circle to h^6/15360 = 3e-10 of R (curves.py), so it runs R (1 - cos(pi/48)) from the
    drawn segments at their middles, to 1e-9 R; the note says so.  A two-point poly is its
    straight segment (the midpoint added), 0 from what is drawn, and gets no note."""
    R = 2.0
    shape = curve_joints.joint_curve("track", "Curve", "ring", poly(bs_circle(R, 48), True), np.eye(4))
    sag = R * (1.0 - math.cos(math.pi / 48))
    assert abs(shape.drawn_gap - sag) < 1e-9 * R
    assert f"runs up to {sag:.3g} m from the straight segments drawn" in shape.note()
    assert shape.fit_line() == f"Curve 'ring': the smooth curve through its points, up to {sag:.3g} m from the drawn segments"
    line = curve_joints.joint_curve("slot", "Curve", "bar", poly([(0, -1, 0), (0, 3, 0)]), np.eye(4))
    x = line.curve.evaluate(np.linspace(0.0, line.curve.length, 41), 0)[0]
    np.testing.assert_allclose(x[:, 0], 0.0, atol=1e-15)
    assert line.curve.length == pytest.approx(4.0, rel=1e-14)
    assert line.drawn_gap < 1e-15 and line.note() is None
    assert line.fit_line() == "Curve 'bar': through its points, as drawn"


def test_bezier_circle_fit_is_reported_below_the_note_threshold() -> None:
    """Blender's Bezier circle is fitted to 1e-7 of its radius or better (test above): the
    panel line gives the fit, Check has no note (FIT_SHARE 1e-6 of the size)."""
    co, left, right = bezier_circle(0.25)
    shape = curve_joints.joint_curve("cam", "Curve", "lobe", SplineData("BEZIER", co, True, left, right),
                                     np.eye(4))
    assert 0.0 < shape.fit_error < 1e-7 * 0.25 and shape.note() is None
    assert shape.fit_line() == f"Curve 'lobe': fitted to {shape.fit_error / shape.size:.2g} of its size"


def test_start_gap_of_curve_joints() -> None:
    """Check's miss at the start: a point 1.2 from the centre of a unit circle (marker J
    turned a quarter about z, so J's frame is not the world's) misses by 0.2; a roller of
    radius 0.2 centred 1.3 from a unit disc is 0.1 away from it, centred 1.15 it reaches
    0.05 into it (the disc's point at 1 lies 0.05 inside the roller, the roller's at 0.95
    0.05 inside the disc)."""
    J = (np.zeros(3), rot("z", math.pi / 2))
    I = (np.array([0.0, 1.2, 0.0]), np.eye(3))
    assert start_gaps.curve_gap("point-on-curve", (Curve.circle(1.0),), I, J) == pytest.approx(0.2, abs=1e-12)
    roller, disc = Curve.circle(0.2), Curve.circle(1.0)
    for x, gap in ((1.3, 0.1), (1.15, 0.05)):
        I = (np.array([x, 0.0, 0.0]), rot("z", 0.7))
        assert start_gaps.curve_gap("cam", (roller, disc), I, (np.zeros(3), np.eye(3))) == \
            pytest.approx(gap, abs=1e-9)


def test_cam_contact_force_in_plots_and_csv() -> None:
    """A flat follower on an eccentric disc turned by a motion: the bake's "contact_force"
    series and the CSV's "<cam> contact_force_N" column are Result.contact_force."""
    m = solver.Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("cam", mass=1.0, inertia=(1e-3, 1e-3, 2e-3))
    m.add_marker("axle", "ground")
    m.add_marker("hub", "cam")
    m.add_joint("spin", "revolute", "hub", "axle")
    m.add_motion("drive", "spin", "4*pi*t")
    m.add_part("tappet", mass=0.3, inertia=(1e-4, 1e-4, 1e-4), position=(0.0, 0.05, 0.0))
    z_y = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)
    m.add_marker("guide", "ground", orientation=z_y)
    m.add_marker("stem", "tappet", orientation=z_y)
    m.add_joint("slide", "prismatic", "stem", "guide")
    m.add_marker("face", "tappet")
    m.add_marker("disc", "cam")
    m.add_cam("lobe", "face", Curve.from_points([(-0.08, 0, 0), (0, 0, 0), (0.08, 0, 0)], False),
              "disc", Curve.circle(0.05, center=(0.015, 0.0, 0.0)))
    r = m.solve(times=np.linspace(0.0, 0.5, 7))
    series = plots.joint_plots(r, ["spin", "lobe"], {"drive": ("spin", "angle")}, ["lobe"])
    np.testing.assert_array_equal(series["lobe"]["contact_force"], r.contact_force("lobe"))
    assert "contact_force" not in series["spin"] and "contact_force" in plots.BAKED_PROPS
    assert r.contact_force("lobe").min() > 0.1            # 0.3 kg held up: a real load
    rows = csv_table.csv_rows(r, np.arange(1, 8.0), ["tappet"], ["spin", "lobe"], {"drive": ("spin", "angle")},
                              cams=["lobe"])
    col = rows[0].index("lobe contact_force_N")
    np.testing.assert_allclose([float(row[col]) for row in rows[1:]], r.contact_force("lobe"), rtol=1e-8)


def test_bezier_corners_are_named() -> None:
    """Handles in line (the Bezier circle): no corner.  A square whose handles sit on their
    points (Vector handles of zero length): a corner at each of its four points (the
    directions in and out come from the neighbours).  An open spline with one handle turned
    by 0.01 rad: a corner there only; its ends are never corners.  Check's note names them."""
    co, left, right = bezier_circle(1.0)
    assert curve_joints.bezier_corners(co, left, right, True) == ()
    sq = np.array([[1, 1, 0], [-1, 1, 0], [-1, -1, 0], [1, -1, 0]], dtype=float)
    assert curve_joints.bezier_corners(sq, sq, sq, True) == (0, 1, 2, 3)
    pts = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]], dtype=float)
    left, right = pts - [0.3, 0, 0], pts + [0.3, 0, 0]
    right[2] = pts[2] + 0.3 * np.array([math.cos(0.01), math.sin(0.01), 0.0])
    assert curve_joints.bezier_corners(pts, left, right, False) == (2,)
    shape = curve_joints.joint_curve("j", "Curve", "kinked", SplineData("BEZIER", pts, False, left, right),
                                     np.eye(4))
    assert shape.note().startswith("joint 'j': Curve 'kinked' has a corner at point(s) 2 (handles not in line)")


def test_point_on_curve_flattened_only_when_drawn_in_the_plane() -> None:
    """A straight slot 1e-7 rad out of its marker's xy plane (float32 round-off) is put in
    the plane; a helix climbing 0.1 per turn is a 3D track and is read as drawn."""
    slot = poly([(0.0, -0.1, -0.1 * 1e-7), (0.0, 0.1, 0.1 * 1e-7)])
    shape = curve_joints.joint_curve("pin", "Curve", "slot", slot, np.eye(4))
    assert np.abs(shape.curve.points[:, 2]).max() == 0.0
    a = np.linspace(0.0, 4 * np.pi, 80)
    helix = poly(np.column_stack([np.cos(a), np.sin(a), 0.1 * a / (2 * np.pi)]))
    shape = curve_joints.joint_curve("bead", "Curve", "helix", helix, np.eye(4))
    np.testing.assert_allclose(shape.curve.points[:, 2], 0.1 * a / (2 * np.pi), atol=1e-15)
