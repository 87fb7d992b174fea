"""solver.base.curves against closed forms (circle, ellipse, straight line), brute force and
the spline's own defining properties.

Tolerances.  Knots are interpolated to rounding: the collocation system has O(1) condition
for reasonable spacings, so 1e-12 of the size (a few thousand ulps) is a wide margin, and any
wrong coefficient fails by O(1).  Error constants of the periodic quintic on uniform knots
(module docstring of solver.base.curves): position h^6 |x^(6)| / 15360 at mid-span, the d-th
derivative h^(6-d) |x^(6)| |B_(6-d)| / (6-d)! at the knots; for a circle of radius R sampled
n times (theta = 2 pi / n, x^(6) = 1 / R^5 in arc length) that is theta^6 R / 15360 in radius
and theta^4 / 720 in relative curvature.  Dense checks between knots may exceed the knot value
slightly (a few per cent), so the tests allow 2x these closed forms, and cubic splines would
fail them (their errors are theta^4/384 and theta^2/12).  Finite differences are checked
against their own truncation bound h^2/6 max|x^(d+3)| (Taylor's theorem) plus rounding.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver.base.curves import DEFAULT_SAMPLES, Curve
from solver.base.errors import MechanismError

EPS = np.finfo(float).eps


def wobbly(n: int, seed: int = 3, uniform: bool = False) -> np.ndarray:
    """n points on a smooth closed space curve, at random (sorted) or uniform angles."""
    t = (np.arange(n) * 2 * np.pi / n if uniform
         else np.sort(np.random.default_rng(seed).uniform(0, 2 * np.pi, n)))
    return np.c_[np.cos(t) * (1 + 0.3 * np.sin(3 * t)), np.sin(t), 0.2 * np.cos(2 * t)]


def s_curve(n: int = 15) -> np.ndarray:
    """An open S-shaped curve (tanh step) in the xy plane, n points."""
    t = np.linspace(0, 1, n)
    return np.c_[t, 0.3 * np.tanh(6 * (t - 0.5)), 0 * t]


def radial(c: Curve, R: float, center=(0.0, 0.0, 0.0), m: int = 100_001) -> np.ndarray:
    """|x(u) - center| - R at m parameters spread over the whole curve (many per span)."""
    x = c.evaluate(np.linspace(0, c.length, m), 0)[0]
    return np.linalg.norm(x - np.asarray(center), axis=1) - R


def curvature(d1: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """|x' x x''| / |x'|^3: curvature for any regular parameter."""
    return np.linalg.norm(np.cross(d1, d2), axis=-1) / np.linalg.norm(d1, axis=-1) ** 3


def ellipse_distance(x: np.ndarray, a: float, b: float) -> np.ndarray:
    """Distance of points x from the ellipse (x/a)^2 + (y/b)^2 = 1 to first order, F / |grad F|
    (exact up to O(distance^2 * curvature), far below the distances measured here)."""
    F = (x[..., 0] / a) ** 2 + (x[..., 1] / b) ** 2 - 1
    return np.abs(F) / np.hypot(2 * x[..., 0] / a ** 2, 2 * x[..., 1] / b ** 2)


# ---------------------------------------------------------------- interpolation, smoothness

@pytest.mark.parametrize("closed", [True, False])
@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 12, 40, 3000])
def test_knots_interpolated(closed: bool, n: int) -> None:
    """x(u_i) = p_i to 1e-12 of the size, for the dense (few points), banded and cyclic
    Woodbury (3000 points) solves and the low-degree open curves (n < 6); the parameters are
    the cumulative chord lengths and ``length`` their total (with the closing chord)."""
    P = wobbly(n)
    c = Curve.from_points(P, closed)
    assert c.closed is closed and c.fit_error == 0.0 and c.dropped == 0
    assert np.abs(c.evaluate(c.parameters, 0)[0] - P).max() <= 1e-12 * c.size
    chords = np.linalg.norm(np.diff(np.vstack([P, P[:1]]) if closed else P, axis=0), axis=1)
    assert c.parameters == pytest.approx(np.r_[0, np.cumsum(chords)][:n], abs=1e-14 * c.length)
    assert c.length == pytest.approx(chords.sum(), rel=1e-14)
    assert c.size == pytest.approx(np.ptp(P, axis=0).max(), rel=1e-15)


def test_against_scipy() -> None:
    """The same spline as scipy's make_interp_spline(k=5) on the same chord-length
    parameters (periodic; not-a-knot when open), values and three derivatives to 1e-10 of
    their scale: an independent check of the end conditions and the periodic system."""
    from scipy.interpolate import make_interp_spline
    P = wobbly(25)
    for closed in (True, False):
        c = Curve.from_points(P, closed)
        if closed:
            ref = make_interp_spline(np.r_[c.parameters, c.length], np.vstack([P, P[:1]]), k=5,
                                     bc_type="periodic")
        else:
            ref = make_interp_spline(c.parameters, P, k=5)
        u = np.linspace(0, c.length, 2001)
        ours = c.evaluate(u)
        for d in range(4):
            scale = np.abs(ours[d]).max()
            assert np.abs(ours[d] - ref(u, d)).max() <= 1e-10 * scale, (closed, d)


@pytest.mark.parametrize("closed", [True, False])
def test_continuity_at_knots_and_seam(closed: bool) -> None:
    """Left and right limits of x, x', x'', x''' (and x'''') agree at every interior knot and,
    closed, at the seam u = length ~ 0, to 1e-9 of each derivative's largest value over the
    curve (C4 quintic; the left limit is evaluated one ulp before the knot, which moves the
    value by |x^(d+1)| ulp ~ 1e-16).  x^(5) is piecewise constant: it must jump somewhere,
    which shows the test reads two different spans."""
    c = Curve.from_points(wobbly(40), closed)
    k = np.r_[c.parameters[1:], c.length] if closed else c.parameters[1:-1]
    left = c.evaluate(np.nextafter(k, -np.inf), 5)
    right = c.evaluate(np.where(k == c.length, 0.0, k), 5)
    scale = np.abs(c.evaluate(np.linspace(0, c.length, 20001), 5)).max(axis=(1, 2))
    jump = np.abs(left - right).max(axis=(1, 2)) / scale
    assert np.all(jump[:5] <= 1e-9), jump
    assert jump[5] > 1e-3


def test_derivatives_against_finite_differences() -> None:
    """(x^(d)(u+h) - x^(d)(u-h)) / 2h against x^(d+1), d = 0, 1, 2, on the S-curve: Taylor's
    bound h^2/6 max|x^(d+3)| (max over a grid of spacing 1.3e-5: exact for the piecewise-
    constant x^(5), within ~3e-4 for x''' and x'''', hence the factor 1.001) plus rounding
    20 eps max|x^(d)| / h.  A wrong factor in any derivative fails by O(1)."""
    c = Curve.from_points(s_curve(), False)
    M = np.abs(c.evaluate(np.linspace(0, c.length, 100_001), 5)).max(axis=(1, 2))
    u = np.random.default_rng(5).uniform(0.01, c.length - 0.01, 300)
    X = c.evaluate(u)
    for h in (1e-3, 1e-4):
        for d in range(3):
            fd = (c.evaluate(u + h, d)[d] - c.evaluate(u - h, d)[d]) / (2 * h)
            bound = 1.001 * h * h / 6 * M[d + 3] + 20 * EPS * M[d] / h
            assert np.abs(fd - X[d + 1]).max() <= bound, (h, d)


def test_straight_slot_is_exact() -> None:
    """Collinear points at uneven spacing: chord length is arc length on a line, so the
    spline is x0 + u e exactly (splines reproduce polynomials): x' = e and x'' = x''' = 0,
    also a little past the ends (the end spans' polynomials continued).  Only rounding
    remains: the knots and their parameters carry ~4e-16, which the spline passes to its
    values with a gain (Lebesgue constant) of order 10 and to the d-th derivative with
    ~10 / h_min^d, h_min = 0.1: the tolerances are 25x that, 1e-13, 1e-12, 1e-11, 1e-10."""
    e = np.array([2.0, -1.0, 2.0]) / 3.0
    P = np.outer([0.0, 0.1, 0.5, 0.6, 1.7, 2.0, 3.2], e) + [1.0, 2.0, 3.0]
    c = Curve.from_points(P, False)
    assert c.length == pytest.approx(3.2, rel=1e-15)
    u = np.linspace(-0.1, 3.3, 1001)
    x, d1, d2, d3 = c.evaluate(u)
    assert np.abs(x - (P[0] + np.outer(u, e))).max() <= 1e-13
    assert np.abs(d1 - e).max() <= 1e-12
    assert np.abs(d2).max() <= 1e-11 and np.abs(d3).max() <= 1e-10


def test_evaluate_shapes_and_read_only() -> None:
    """evaluate() keeps u's shape: (k + 1, *u.shape, 3); scalars give (k + 1, 3).  The
    curve's attributes and arrays cannot be changed."""
    c = Curve.circle(1.0)
    assert c.evaluate(np.zeros((2, 5, 4))).shape == (4, 2, 5, 4, 3)
    assert c.evaluate(0.3, 0).shape == (1, 3)
    x, dx = c.evaluate([0.1, 0.2], 1)
    assert x.shape == dx.shape == (2, 3)
    with pytest.raises(AttributeError):
        c.length = 2.0
    with pytest.raises(ValueError):
        c.points[0, 0] = 5.0
    with pytest.raises(ValueError):
        c.evaluate(0.0, 6)


def test_a_lone_point_evaluates_as_in_a_stack() -> None:
    """A point alone (a scalar, or an array of one) gets the very bits it gets in a stack of
    any shape, every derivative, on a closed and an open curve (also run on numpy 2 by
    .ci/test): what lets a design study's variants in lockstep equal their separate runs
    (tests/test_study_tracked.py).  numpy 1.26 hands a lone polynomial product to BLAS and a
    stack to its own loop, which round apart (found on these points before the fix)."""
    rng = np.random.default_rng(0)
    for c in (Curve.circle(0.05), Curve.from_points([(0, 0), (0.1, 0.02), (0.2, -0.03), (0.3, 0)],
                                                    closed=False)):
        u = rng.uniform(-0.05, c.length + 0.05, 400)
        for d in range(4):
            stack = c.evaluate(u, d)
            np.testing.assert_array_equal(c.evaluate(u.reshape(8, 50), d).reshape(stack.shape), stack)
            for k in range(0, 400, 3):
                np.testing.assert_array_equal(c.evaluate(u[k], d), stack[:, k])
                np.testing.assert_array_equal(c.evaluate(u[k:k + 1], d)[:, 0], stack[:, k])
    # the global nearest point too: a lone point ranks the candidates as in a stack (points
    # on the bisectors of neighbouring candidates, where the ranking ties: 8 of these 3,000
    # found another foot alone before)
    c = Curve.circle(1.0)
    sx = c.candidates()[1]
    k = np.random.default_rng(1).integers(0, len(sx) - 1, 3000)
    P = (sx[k] + sx[k + 1]) / 2 * np.random.default_rng(2).uniform(0.2, 3.0, (3000, 1))
    np.testing.assert_array_equal([c.nearest(x) for x in P], c.nearest(P))


def test_a_table_of_curves_evaluates_each_point_as_its_curve_alone() -> None:
    """CurveTable (many curves side by side: a mechanism's curve joints in one set of numpy
    calls) gives each point the bits its own Curve.evaluate gives it, alone or in stacks of
    any shape, every derivative, closed and open curves, inside and past the ends and on the
    knots themselves (its span search is exact: (curve, u) keys as complex numbers); and
    its local nearest-point search each point's Curve.nearest from the same guess (also run
    on numpy 2 by .ci/test)."""
    from solver.base.curve_table import CurveTable
    rng = np.random.default_rng(4)
    curves = (Curve.ellipse(0.3, 0.2), Curve.from_points(rng.normal(size=(9, 2)), closed=False),
              Curve.circle(0.05, center=(0.015, 0.0, 0.0)),
              Curve.from_points([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)], closed=False))
    tab = CurveTable(curves)
    for shape in ((), (1,), (2,), (7,), (4, 3)):
        c = rng.integers(0, len(curves), shape)
        u = rng.uniform(-0.5, 1.5, shape) * tab.length[c]
        knot = rng.uniform(size=shape) < 0.3           # some points on a knot exactly
        for k in np.ndindex(*shape):
            if knot[k]:
                b = curves[int(c[k])]._breaks
                u[k] = b[rng.integers(0, len(b))]
        for d in range(6):
            x = tab.evaluate(c, u, d)
            assert x.shape == (d + 1,) + shape + (3,)
            for k in np.ndindex(*shape):
                np.testing.assert_array_equal(x[(slice(None),) + k], curves[int(c[k])].evaluate(u[k], d))
        if shape:
            p = tab.evaluate(c, u, 0)[0] + rng.normal(0.0, 0.01, shape + (3,))
            guess = u + rng.normal(0.0, 0.01, shape)
            found = tab.nearest(c, p, guess)
            for k in np.ndindex(*shape):
                assert found[k] == curves[int(c[k])].nearest(p[k], guess[k])
    with pytest.raises(ValueError):
        tab.evaluate(0, 0.0, 6)


def test_nearest_from_guesses_in_a_stack_as_alone() -> None:
    """The local nearest-point search (from tracked guesses) gives each point of a stack the
    u it gets alone: each point's Newton stops on its own step (Curve._project).  Points
    near wavy closed splines, guesses off by a few percent of a span: 291 of these 2,000
    differed in the last bits when the stack iterated until every point had converged."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        c = Curve.from_points(rng.normal(0.0, 1.0, (7, 2)) * [0.3, 0.1], closed=True)
        u = rng.uniform(0.0, c.length, 400)
        P = c.evaluate(u, 0)[0] + rng.normal(0.0, 0.02 * c.size, (400, 3)) * [1.0, 1.0, 0.0]
        guess = u + rng.normal(0.0, 0.05 * c.length / 7, 400)
        np.testing.assert_array_equal(c.nearest(P, guess),
                                      [c.nearest(P[k], guess[k]) for k in range(400)])


# ---------------------------------------------------------------- circle, ellipse

@pytest.mark.parametrize("R", [0.05, 2000.0])
def test_circle(R: float) -> None:
    """Default circle: radius within 1e-9 R on a dense grid (predicted theta^6 / 15360 =
    4e-15: rounding level); speed |x'| = theta / (2 sin(theta / 2)), the arc / chord ratio of
    a uniformly sampled circle, to theta^6 = 1.5e-11 (the O(theta^5) term of the first
    derivative's error vanishes, B_5 = 0; measured 6e-14; a cubic errs by O(theta^4)); curvature 1 / R to 2 theta^4 / 720 = 1.7e-10 relative; x''' of the
    circle at speed v has |x'''| = v^3 / R^2: its error's O(theta^3) term vanishes (B_3 = 0),
    so it is O(theta^4) = 6e-8 times a small constant (measured 1.8e-9); asserted to
    theta^4 / 10 (a cubic's piecewise-constant x''' errs by O(theta), ~1e-2)."""
    center = np.array([0.3, -0.2, 0.7]) * R
    c = Curve.circle(R, center)
    n, theta = DEFAULT_SAMPLES, 2 * np.pi / DEFAULT_SAMPLES
    assert len(c.points) == n and c.size == pytest.approx(2 * R, rel=1e-12)
    assert np.abs(radial(c, R, center)).max() <= 1e-9 * R
    u = np.linspace(0, c.length, 50_001)
    x, d1, d2, d3 = c.evaluate(u)
    v = theta / (2 * np.sin(theta / 2))
    assert np.abs(np.linalg.norm(d1, axis=1) - v).max() <= theta ** 6
    assert np.abs(curvature(d1, d2) * R - 1).max() <= 2 * theta ** 4 / 720
    assert np.abs(np.linalg.norm(d3, axis=1) * R ** 2 / v ** 3 - 1).max() <= theta ** 4 / 10
    assert np.abs(x[:, 2] - center[2]).max() <= 1e-14 * R
    # counter-clockwise about +z, starting at center + (R, 0, 0)
    assert c.evaluate(0.0, 0)[0] == pytest.approx(center + [R, 0, 0], abs=1e-15 * R)
    assert np.cross(d1[0], d1[100])[2] > 0
    assert c.fit_error <= 1e-14 * R


def test_circle_error_constant_and_coarse_samples() -> None:
    """fit_error of coarse circles follows the quintic's closed form theta^6 R / 15360 within
    10% (the measured ratio tends to 1 as n grows: 1.08 at n = 16, 1.01 at 48), halving h
    divides it by ~64 (a cubic would give 16), and the dense radial error agrees with it to
    1% (the midpoint is where the error peaks on uniform knots).  A coarser sampling reports
    a larger error."""
    errs = {}
    for n in (16, 24, 48, 96):
        c = Curve.circle(1.0, samples=n)
        theta = 2 * np.pi / n
        assert c.fit_error == pytest.approx(theta ** 6 / 15360, rel=0.1), n
        assert np.abs(radial(c, 1.0)).max() == pytest.approx(c.fit_error, rel=0.01), n
        errs[n] = c.fit_error
    assert 55 < errs[48] / errs[96] < 70
    assert errs[16] > errs[24] > errs[48] > errs[96] > Curve.circle(1.0).fit_error


def test_ellipse() -> None:
    """Ellipse a = 2, b = 1, default samples: every dense point within 1e-10 a of the ellipse
    (the quintic error at the sharp ends, radius of curvature b^2/a = 0.5 and spans
    b theta = 0.016, is ~1e-12; a cubic's ~1e-9 would fail); curvature against
    ab / (a^2 sin^2 t + b^2 cos^2 t)^(3/2) at the point's own angle t: the error is O(h^4)
    (ratio 200 -> 400 samples >= 12, ~16 measured; a cubic's O(h^2) gives 4) and below 2e-7
    at 400 samples (measured 8e-8)."""
    a, b = 2.0, 1.0
    errs = []
    for n in (200, 400):
        c = Curve.ellipse(a, b, samples=n)
        u = np.linspace(0, c.length, 100_001)
        x, d1, d2 = c.evaluate(u, 2)
        assert ellipse_distance(x, a, b).max() <= (1e-10 * a if n == 400 else 1e-8 * a)
        exact = a * b / (a * a * (x[:, 1] / b) ** 2 + b * b * (x[:, 0] / a) ** 2) ** 1.5
        errs.append(np.abs(curvature(d1, d2) / exact - 1).max())
    assert errs[0] / errs[1] >= 12 and errs[1] <= 2e-7
    assert c.size == pytest.approx(2 * a, rel=1e-12) and c.closed


@pytest.mark.parametrize("n", [12, 24, 48, 96])
def test_fit_error_bounds_true_error(n: int) -> None:
    """fit_error (distance of f at the mid-samples from the spline) against the true error
    measured densely on the spline (its distance from the ellipse): the error of an odd-degree
    interpolating spline peaks at mid-span on uniform knots, so the two agree up to the
    variation of spacing and curvature over one span, O(h / rho); measured ratios are within
    1.00-1.07 here, and the test allows true <= 1.25 fit_error, fit_error <= 1.01 true."""
    a, b = 2.0, 1.0
    c = Curve.ellipse(a, b, samples=n)
    true = ellipse_distance(c.evaluate(np.linspace(0, c.length, 400_001), 0)[0], a, b).max()
    assert c.fit_error <= 1.01 * true
    assert true <= 1.25 * c.fit_error


def test_from_function_open_and_call_styles() -> None:
    """An open parametric curve (a sine graph) through four call styles -- vectorized (m, 3),
    (3, m), (m, 2), and scalar-only (math functions) -- gives the same spline; its ends are
    f(u0) and f(u1) exactly (interpolated); fit_error bounds the dense true error (distance
    to the graph y = sin 3x, first order) as in the ellipse test."""
    styles = [lambda t: np.stack([t, np.sin(3 * t), 0 * t], -1),
              lambda t: np.array([t, np.sin(3 * t), 0 * t]),
              lambda t: np.stack([t, np.sin(3 * t)], -1),
              lambda t: (t, math.sin(3 * t), 0.0)]
    curves = [Curve.from_function(f, 0.0, 2.0, False, samples=60, name="sine") for f in styles]
    u = np.linspace(0, curves[0].length, 100_001)
    x = curves[0].evaluate(u, 0)[0]
    for c in curves[1:]:
        assert np.abs(c.evaluate(u, 0)[0] - x).max() <= 1e-14
    assert x[0] == pytest.approx([0, 0, 0], abs=1e-15)
    assert x[-1] == pytest.approx([2, math.sin(6), 0], abs=1e-14)
    true = (np.abs(x[:, 1] - np.sin(3 * x[:, 0])) / np.hypot(1, 3 * np.cos(3 * x[:, 0]))).max()
    c = curves[0]
    assert c.fit_error <= 1.01 * true and true <= 1.25 * c.fit_error
    assert not c.closed and c.fit_error > 0


# ---------------------------------------------------------------- periodicity, inside

def test_periodic_wrap_many_turns() -> None:
    """u and u + k L give the same values and derivatives for k up to 1000 (a follower going
    round a cam many times): the only difference is the rounding of u + k L, at most
    ulp(1001 L) in u, so each derivative may move by 2 ulp(1001 L) max|x^(d+1)| plus rounding
    of the evaluation 1e-14 max|x^(d)| -- 3e-13 of the size for x."""
    c = Curve.from_points(wobbly(30), True)
    M = np.abs(c.evaluate(np.linspace(0, c.length, 20001), 4)).max(axis=(1, 2))
    u = np.random.default_rng(1).uniform(0, c.length, 200)
    base = c.evaluate(u)
    for k in (1, -3, 1000):
        moved = c.evaluate(u + k * c.length)
        for d in range(4):
            tol = 2 * np.spacing(1001 * c.length) * M[d + 1] + 1e-14 * M[d]
            assert np.abs(moved[d] - base[d]).max() <= tol, (k, d)
    assert np.abs(c.evaluate(1000 * c.length, 0)[0] - c.points[0]).max() <= 1e-12 * c.size
    assert np.all(c.inside([-1e6, 0.0, 1e6]))


def test_inside_open() -> None:
    """inside() is 0 <= u <= length for an open curve; evaluate outside is the end span's
    polynomial continued: smooth through the end (x, x' continuous at u = length)."""
    c = Curve.from_points(s_curve(), False)
    L = c.length
    assert c.inside([0.0, L / 2, L]).all()
    assert not c.inside([-1e-9, L + 1e-9, np.nan]).any()
    assert c.inside(np.zeros((2, 3))).shape == (2, 3)
    a, b = c.evaluate([np.nextafter(L, 0), np.nextafter(L, 2 * L)], 2)[:, [0, 1]].swapaxes(0, 1)
    assert np.abs(a - b).max() <= 1e-12


def test_from_points_2d_and_repeated_end() -> None:
    """(n, 2) points lie at z = 0; a closed curve's repeated first point is dropped silently
    (not counted in ``dropped``: it is a normal way to close); consecutive duplicates (within
    1e-12 of the size) are dropped and counted; the result is the same spline."""
    P = wobbly(20, uniform=True)[:, :2]
    c = Curve.from_points(P, True, name="cam")
    assert np.all(c.points[:, 2] == 0)
    again = Curve.from_points(np.vstack([P, P[:1]]), True)
    assert again.dropped == 0 and len(again.points) == 20
    dup = np.insert(P, [4, 9], P[[3, 8]] + 1e-14, axis=0)
    dup = Curve.from_points(np.vstack([dup, P[:1]]), True)
    assert dup.dropped == 2 and len(dup.points) == 20
    u = np.linspace(0, c.length, 1001)
    for other in (again, dup):
        assert other.length == pytest.approx(c.length, rel=1e-13)
        assert np.abs(other.evaluate(u) - c.evaluate(u)).max() <= 1e-11


# ---------------------------------------------------------------- nearest

def test_nearest_on_circle() -> None:
    """Random points (not within 0.1 R of the axis, where the answer is ill-conditioned): the
    nearest point is R p_xy / |p_xy| (closed form) to 1e-10 R / |p_xy| (the conditioning of
    u on the distance to the centre), u in [0, L); a guess makes the search local and
    unwrapped: many turns on, the answer stays on the guess's turn."""
    c = Curve.circle(1.0)
    p = np.random.default_rng(2).normal(size=(500, 3))
    r = np.hypot(p[:, 0], p[:, 1])
    p = p[r > 0.1]
    r = r[r > 0.1]
    u = c.nearest(p)
    assert u.shape == (len(p),) and np.all((u >= 0) & (u < c.length))
    exact = np.c_[p[:, :2] / r[:, None], np.zeros(len(p))]
    assert np.all(np.linalg.norm(c.evaluate(u, 0)[0] - exact, axis=1) <= 1e-10 / r)
    q = [0.3, 0.4, 5.0]
    u0 = c.nearest(q)
    assert isinstance(u0, float)
    assert c.nearest(q, u_guess=u0 + 1000 * c.length + 0.01) == pytest.approx(
        u0 + 1000 * c.length, abs=1e-9)
    assert c.nearest([0.3, 0.4]) == pytest.approx(u0, abs=1e-12)


@pytest.mark.parametrize("offset, radius", [(1e3, 1e-3), (1e4, 1e-3), (1e4, 1e-2)])
def test_nearest_far_from_the_origin(offset: float, radius: float) -> None:
    """A 1 mm (1 cm) circle 1 km or 10 km from the origin, points 1% outside it: the
    global search's foot is the true one to rounding of the offset (1e-11 m), as near the
    origin; ranking the candidates by |p|^2 - 2 p . x + |x|^2 about the origin instead
    picked the wrong sample (feet 4e-6 to 1.3e-4 m off)."""
    c = Curve.circle(radius, center=(offset, 0.0, 0.0))
    th = np.linspace(0.0, 2.0 * np.pi, 200, endpoint=False)
    pts = np.stack([offset + 1.01 * radius * np.cos(th), 1.01 * radius * np.sin(th),
                    0.0 * th], axis=-1)
    foot = c.evaluate(c.nearest(pts), 0)[0]
    err = np.linalg.norm(foot - pts, axis=1) - 0.01 * radius
    assert np.abs(err).max() <= 1e-11


def test_nearest_on_s_curve_against_brute_force() -> None:
    """An open S-curve and random points around it: squared distance at nearest() never
    exceeds a brute-force scan of 200k parameters (rounding 1e-15), and is below it by at
    most the scan's discretisation, 1/2 (du/2)^2 max f'' with f = |x - p|^2,
    f'' = 2 (|x'|^2 + (x - p) . x'').  Points beyond the ends project to u = 0 or L."""
    c = Curve.from_points(s_curve(), False)
    q = np.random.default_rng(4).uniform([-0.2, -0.5, -0.1], [1.2, 0.5, 0.1], size=(200, 3))
    u = c.nearest(q)
    assert np.all(c.inside(u))
    f = ((c.evaluate(u, 0)[0] - q) ** 2).sum(axis=1)
    grid = np.linspace(0, c.length, 200_001)
    x, d1, d2 = c.evaluate(grid, 2)
    brute = np.array([((x - p) ** 2).sum(axis=1).min() for p in q])
    du = grid[1]
    fpp = 2 * ((d1 ** 2).sum(axis=1).max() + np.sqrt(brute.max()) * 2 * np.abs(d2).max())
    assert np.all(f <= brute + 1e-15)
    assert np.all(brute - f <= 0.5 * (du / 2) ** 2 * fpp)
    assert c.nearest([-1.0, -0.5, 0.0]) == 0.0
    assert c.nearest([2.0, 0.4, 0.0]) == c.length


# ---------------------------------------------------------------- planarity

def test_planar_frame() -> None:
    """A circle tilted into the plane with unit normal n: normal = +n (the curve runs
    counter-clockwise about it), origin = its centre, deviation at rounding; lifting one knot
    by 1e-6 of the size makes it non-planar with that deviation less the knot's leverage in
    the least-squares plane, 1/N (offset) + 2/N (tilt, N knots uniform on a circle); a helix is not planar; a straight open slot
    gets a normal perpendicular to it."""
    n = np.array([1.0, 2.0, 2.0]) / 3.0
    e1 = np.cross(n, [0, 0, 1.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(n, e1)
    t = np.arange(64) * 2 * np.pi / 64
    P = 2.0 * (np.outer(np.cos(t), e1) + np.outer(np.sin(t), e2)) + [1.0, 0.5, -2.0]
    fit = Curve.from_points(P, True).planar_frame()
    assert fit.is_planar and fit.deviation <= 1e-14
    assert fit.normal == pytest.approx(n, abs=1e-14)
    assert fit.origin == pytest.approx([1.0, 0.5, -2.0], abs=1e-14)
    assert Curve.from_points(P[::-1], True).planar_frame().normal == pytest.approx(-n, abs=1e-14)
    lifted = P.copy()
    lifted[10] += 4e-6 * n
    fit = Curve.from_points(lifted, True).planar_frame()
    assert not fit.is_planar and fit.deviation == pytest.approx(4e-6 * (1 - 3 / 64), rel=1e-6)
    helix = Curve.from_function(lambda s: np.stack([np.cos(s), np.sin(s), 0.1 * s], -1), 0, 6,
                                False, name="helix")
    assert not helix.planar_frame().is_planar
    line = Curve.from_points([[0, 0, 0], [1, 1, 0], [3, 3, 0.0]], False).planar_frame()
    assert line.is_planar and line.normal == pytest.approx([0, 0, 1])


# ---------------------------------------------------------------- bad input

def raises(match: str):
    """pytest.raises(MechanismError) whose message names the curve 'slot-7' and says why."""
    return pytest.raises(MechanismError, match=rf"slot-7.*{match}")


def test_bad_points() -> None:
    """Every invalid point set raises MechanismError naming the curve."""
    tri = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    with raises("fewer than three distinct"):
        Curve.from_points([[0, 0, 0], [1, 0, 0], [1, 0, 1e-13]], False, name="slot-7")
    with raises("fewer than three distinct"):
        Curve.from_points([[0, 0, 0], [1, 0, 0], [0, 0, 0]], True, name="slot-7")
    with raises("not finite"):
        Curve.from_points(tri + [[np.nan, 0, 0]], False, name="slot-7")
    with raises("not finite"):
        Curve.from_points(tri + [[0, np.inf, 0]], True, name="slot-7")
    with raises("zero length"):
        Curve.from_points([[1, 2, 3]] * 5, False, name="slot-7")
    with raises("one line"):
        Curve.from_points([[0, 0, 0], [1, 1, 1], [3, 3, 3], [2, 2, 2]], True, name="slot-7")
    with raises(r"\(n, 3\) or \(n, 2\)"):
        Curve.from_points(np.zeros((5, 4)), False, name="slot-7")
    with raises(r"\(n, 3\) or \(n, 2\)"):
        Curve.from_points([1.0, 2.0, 3.0], False, name="slot-7")
    with raises("not an array of numbers"):
        Curve.from_points([[0, 0, "a"]] * 3, False, name="slot-7")
    # the collinear check is for closed curves only: an open straight slot is fine
    assert Curve.from_points([[0, 0, 0], [1, 1, 1], [3, 3, 3]], False).length > 0


def test_bad_functions() -> None:
    """A function that raises, returns the wrong shape or non-finite values, a closed one
    that does not return to its start, an empty range, too few samples, a bad radius."""
    def boom(t):
        raise ZeroDivisionError("no")

    def nan_at_one(t):
        return (t, np.nan if abs(t - 1) < 0.01 else 0.0, 0.0)

    with raises("raised ZeroDivisionError"):
        Curve.from_function(boom, 0, 2, False, name="slot-7")
    with raises(r"shape \(4,\)"):
        Curve.from_function(lambda t: (t, t, t, t), 0, 2, False, name="slot-7")
    with raises(r"shape \(\)"):
        Curve.from_function(lambda t: t, 0, 2, False, name="slot-7")
    with raises("not finite at u = 1"):
        Curve.from_function(nan_at_one, 0, 2, False, samples=101, name="slot-7")
    with raises("not finite"):
        Curve.from_function(lambda t: np.stack([t, 1 / (t - t), t], -1), 0, 2, False,
                            name="slot-7")
    with raises("return to its start"):
        Curve.from_function(lambda t: np.stack([np.cos(t), np.sin(t), t], -1), 0, 2 * np.pi,
                            True, name="slot-7")
    with raises("parameter range"):
        Curve.from_function(lambda t: (t, t, 0), 2, 2, False, name="slot-7")
    with raises("samples"):
        Curve.from_function(lambda t: (t, t * t, 0), 0, 1, False, samples=3, name="slot-7")
    with raises("radius must be positive"):
        Curve.circle(-1.0, name="slot-7")
    with raises("semi-axes"):
        Curve.ellipse(1.0, 0.0, name="slot-7")


@pytest.mark.parametrize("make, message", [
    (lambda: Curve.circle("big", name="slot-7"), "the radius must be a number, got 'big'"),
    (lambda: Curve.circle(None, name="slot-7"), "the radius must be a number, got None"),
    (lambda: Curve.circle(float("nan"), name="slot-7"), "the radius is NaN or infinite"),
    (lambda: Curve.ellipse(1.0, "wide", name="slot-7"), "semi-axis b must be a number"),
    (lambda: Curve.ellipse(1.0, 2.0, center="origin", name="slot-7"), "center must be 3 finite"),
    (lambda: Curve.circle(1.0, samples="many", name="slot-7"), "samples must be a number"),
    (lambda: Curve.from_function(lambda t: (t, t * t, 0), "0", None, False, name="slot-7"),
     "u1 must be a number, got None"),
])
def test_constructor_arguments_that_are_not_numbers_are_named(make, message: str) -> None:
    """Circle, ellipse and function arguments that are not numbers name the curve and the
    argument (a MechanismError, not numpy's TypeError); a number as text is a number."""
    with raises(message):
        make()
    assert Curve.circle("0.5").length == Curve.circle(0.5).length
    with raises("center"):
        Curve.circle(1.0, center=(0, 0), name="slot-7")
    with raises("3 \\(or 2\\) coordinates"):
        Curve.circle(1.0, name="slot-7").nearest([1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("center, shown", [
    ((float("nan"), 0.0, 0.0), "got (nan, 0, 0)"),
    (np.array([1.0, 2.5]), "got (1, 2.5)"),
    (np.array([0.0, np.inf, 0.25], dtype=np.float32), "got (0, inf, 0.25)"),
    ("origin", "got 'origin'"),
])
def test_a_bad_center_is_shown_as_plain_numbers(center, shown: str) -> None:
    """The ellipse's (and circle's) center in its message as the other messages give
    vectors, "(nan, 0, 0)": never numpy's array text "[nan  0.  0.]"."""
    with pytest.raises(MechanismError) as info:
        Curve.ellipse(1.0, 2.0, center=center, name="slot-7")
    message = str(info.value)
    assert message == f"curve 'slot-7': center must be 3 finite numbers, {shown}"
    assert "[" not in message and "array" not in message


def test_a_corner_of_three_points_is_rounded_as_the_docs_say() -> None:
    """docs/python.md: an L of three points (legs of 1 m) bulges 0.125 m off its legs: the
    spline through (0, 0), (1, 0), (1, 1), sampled at 2,001 points, stands at most 0.125 m
    (to 1 mm) from the nearer leg."""
    c = Curve.from_points([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)], closed=False)
    x = c.evaluate(np.linspace(0.0, c.length, 2001), 0)[0]
    along = np.where((x[:, 0] >= 0.0) & (x[:, 0] <= 1.0), np.abs(x[:, 1]), np.inf)
    up = np.where((x[:, 1] >= 0.0) & (x[:, 1] <= 1.0), np.abs(x[:, 0] - 1.0), np.inf)
    assert abs(np.minimum(along, up).max() - 0.125) <= 1e-3
