"""Blender splines as solver curves, without Blender (addon/io/curve_shapes.py): Bezier
segments in Bernstein form, rational B-splines against exact circular arcs and scipy's
B-splines, poly splines through their points, the curve object's matrix applied."""
from __future__ import annotations

import math

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
