"""Tests for solver.vocabulary.expressions: safe parsing and exact 1st/2nd derivatives via Jets."""
import ast
import builtins
import math

import numpy as np
import pytest

from solver.vocabulary.expressions import (
    Expression, ExpressionError, Jet, abs as jabs, acos, asin, atan, atan2, cos,
    exp, log, max as jmax, min as jmin, parse, ramp, sin, sqrt, step, step5, tan)
from solver.vocabulary.timefunctions import TimeFunction, time_function

# Exact (AD) results are compared with closed forms to a few ulps.
REL = 1e-12


def close(a, b, rel=REL, abs_=1e-13):
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=abs_)


def assert_jet(j, f, f1, f2, rel=REL, abs_=1e-13):
    assert isinstance(j, Jet), j
    assert close(j.v, f, rel, abs_), (j, f)
    assert close(j.d, f1, rel, abs_), (j, f1)
    assert close(j.dd, f2, rel, abs_), (j, f2)


def check_fd(g, x, j):
    """Compare a Jet with central finite differences of the float function g at x.

    First derivative, h = 1e-5: truncation h^2/6 |g'''| ~ 2e-11, rounding eps|g|/h ~ 2e-11.
    Second derivative, h = 1e-4: truncation h^2/12 |g''''| ~ 1e-9, rounding 4 eps |g| / h^2 ~ 1e-7.
    So 1e-7 and 2e-6 relative to the size of g and its derivatives leave a >10x margin at the
    (moderate, singularity-free) points used while still catching any wrong rule (errors O(1)).
    """
    h1, h2 = 1e-5, 1e-4
    d1 = (g(x + h1) - g(x - h1)) / (2 * h1)
    d2 = (g(x + h2) - 2 * g(x) + g(x - h2)) / (h2 * h2)
    scale = 1.0 + builtins.abs(j.v) + builtins.abs(j.d) + builtins.abs(j.dd)
    assert close(j.v, g(x), 1e-14, 1e-14 * scale)
    assert builtins.abs(j.d - d1) <= 1e-7 * scale, (x, j.d, d1)
    assert builtins.abs(j.dd - d2) <= 2e-6 * scale, (x, j.dd, d2)


# name, function, f, f', f'' (closed forms written by hand), points away from singularities
FUNCTIONS = [
    ("sin", sin, math.sin, math.cos, lambda x: -math.sin(x), [-2.0, -0.3, 0.4, 1.7]),
    ("cos", cos, math.cos, lambda x: -math.sin(x), lambda x: -math.cos(x), [-2.0, 0.0, 0.4, 3.0]),
    ("tan", tan, math.tan, lambda x: 1 / math.cos(x) ** 2,
     lambda x: 2 * math.tan(x) / math.cos(x) ** 2, [-1.0, 0.0, 0.5, 1.0]),
    ("asin", asin, math.asin, lambda x: 1 / math.sqrt(1 - x * x),
     lambda x: x / (1 - x * x) ** 1.5, [-0.7, 0.0, 0.3, 0.6]),
    ("acos", acos, math.acos, lambda x: -1 / math.sqrt(1 - x * x),
     lambda x: -x / (1 - x * x) ** 1.5, [-0.7, 0.0, 0.3, 0.6]),
    ("atan", atan, math.atan, lambda x: 1 / (1 + x * x), lambda x: -2 * x / (1 + x * x) ** 2,
     [-3.0, -0.5, 0.0, 2.0]),
    ("sqrt", sqrt, math.sqrt, lambda x: 0.5 / math.sqrt(x), lambda x: -0.25 * x ** -1.5,
     [0.3, 1.0, 2.0, 9.0]),
    ("exp", exp, math.exp, math.exp, math.exp, [-3.0, 0.0, 1.5, 4.0]),
    ("log", log, math.log, lambda x: 1 / x, lambda x: -1 / (x * x), [0.5, 1.0, 3.0, 10.0]),
    ("abs", jabs, math.fabs, lambda x: math.copysign(1.0, x), lambda x: 0.0,
     [-2.0, -0.5, 0.5, 3.0]),
]


@pytest.mark.parametrize("name,fn,f,f1,f2,points", FUNCTIONS, ids=[r[0] for r in FUNCTIONS])
def test_functions_closed_form_and_chain_rule(name, fn, f, f1, f2, points):
    for x in points:
        assert close(fn(x), f(x))
        assert_jet(fn(Jet(x, 1.0, 0.0)), f(x), f1(x), f2(x))
        # chain rule with a non-trivial inner function: u' = 0.7, u'' = -0.3
        assert_jet(fn(Jet(x, 0.7, -0.3)), f(x), f1(x) * 0.7, f2(x) * 0.49 - 0.3 * f1(x))
        # the same through the parser
        assert_jet(parse(f"{name}(t)")(t=Jet(x, 1.0, 0.0)), f(x), f1(x), f2(x))


@pytest.mark.parametrize("name,fn,f,f1,f2,points", FUNCTIONS, ids=[r[0] for r in FUNCTIONS])
def test_functions_against_finite_differences(name, fn, f, f1, f2, points):
    for x in points:
        check_fd(lambda s: fn(2.0 * s), x / 2.0, fn(2.0 * Jet(x / 2.0, 1.0, 0.0)))


def test_functions_on_numpy_arrays():
    x = np.array([-0.5, 0.1, 0.7])
    for fn, ref in [(sin, np.sin), (cos, np.cos), (tan, np.tan), (asin, np.arcsin),
                    (acos, np.arccos), (atan, np.arctan), (exp, np.exp), (jabs, np.abs)]:
        np.testing.assert_allclose(fn(x), ref(x), rtol=1e-15)
        j = fn(Jet(x, np.ones(3), np.zeros(3)))
        for k in range(3):
            ref_jet = fn(Jet(float(x[k]), 1.0, 0.0))
            assert close(j.v[k], ref_jet.v) and close(j.d[k], ref_jet.d)
            assert close(j.dd[k], ref_jet.dd)
    with np.errstate(invalid="ignore"):
        assert np.isnan(sqrt(np.array([-1.0, 4.0]))[0])  # arrays follow numpy: nan, no raise


# expression, f, f', f'' (hand-derived), points
OPERATORS = [
    ("t + 2", lambda t: t + 2, lambda t: 1.0, lambda t: 0.0),
    ("2 + t", lambda t: t + 2, lambda t: 1.0, lambda t: 0.0),
    ("t - 2", lambda t: t - 2, lambda t: 1.0, lambda t: 0.0),
    ("2 - t", lambda t: 2 - t, lambda t: -1.0, lambda t: 0.0),
    ("3 * t", lambda t: 3 * t, lambda t: 3.0, lambda t: 0.0),
    ("t * 3", lambda t: 3 * t, lambda t: 3.0, lambda t: 0.0),
    ("t * t * t", lambda t: t ** 3, lambda t: 3 * t * t, lambda t: 6 * t),
    ("(t + 1) * (t - 2)", lambda t: t * t - t - 2, lambda t: 2 * t - 1, lambda t: 2.0),
    ("t / 4", lambda t: t / 4, lambda t: 0.25, lambda t: 0.0),
    ("4 / t", lambda t: 4 / t, lambda t: -4 / t ** 2, lambda t: 8 / t ** 3),
    ("(t*t + 1) / t", lambda t: t + 1 / t, lambda t: 1 - 1 / t ** 2, lambda t: 2 / t ** 3),
    ("sin(t) / cos(t)", math.tan, lambda t: 1 / math.cos(t) ** 2,
     lambda t: 2 * math.tan(t) / math.cos(t) ** 2),
    ("t ** 3", lambda t: t ** 3, lambda t: 3 * t * t, lambda t: 6 * t),
    ("t ** -2", lambda t: t ** -2, lambda t: -2 * t ** -3, lambda t: 6 * t ** -4),
    ("t ** 0.5", math.sqrt, lambda t: 0.5 * t ** -0.5, lambda t: -0.25 * t ** -1.5),
    ("(-t) ** 3", lambda t: -t ** 3, lambda t: -3 * t * t, lambda t: -6 * t),
    ("(-t) ** 2", lambda t: t * t, lambda t: 2 * t, lambda t: 2.0),
    ("2 ** t", lambda t: 2 ** t, lambda t: math.log(2) * 2 ** t,
     lambda t: math.log(2) ** 2 * 2 ** t),
    ("e ** t", math.exp, math.exp, math.exp),
    ("t ** t", lambda t: t ** t, lambda t: t ** t * (math.log(t) + 1),
     lambda t: t ** t * ((math.log(t) + 1) ** 2 + 1 / t)),
    ("-t", lambda t: -t, lambda t: -1.0, lambda t: 0.0),
    ("+t", lambda t: t, lambda t: 1.0, lambda t: 0.0),
    ("-(t * t)", lambda t: -t * t, lambda t: -2 * t, lambda t: -2.0),
    ("abs(t - 1)", lambda t: builtins.abs(t - 1), lambda t: math.copysign(1, t - 1), lambda t: 0.0),
    ("pi/6 + 2*pi*t", lambda t: math.pi / 6 + 2 * math.pi * t, lambda t: 2 * math.pi,
     lambda t: 0.0),
    ("exp(-t)*sin(3*t)", lambda t: math.exp(-t) * math.sin(3 * t),
     lambda t: math.exp(-t) * (3 * math.cos(3 * t) - math.sin(3 * t)),
     lambda t: math.exp(-t) * (-8 * math.sin(3 * t) - 6 * math.cos(3 * t))),
    ("sqrt(1 + t*t)", lambda t: math.sqrt(1 + t * t), lambda t: t / math.sqrt(1 + t * t),
     lambda t: (1 + t * t) ** -1.5),
    ("log(cos(t) + 2)", lambda t: math.log(math.cos(t) + 2),
     lambda t: -math.sin(t) / (math.cos(t) + 2),
     lambda t: -(1 + 2 * math.cos(t)) / (math.cos(t) + 2) ** 2),
]
POINTS = [0.3, 0.9, 1.25, 2.5]


@pytest.mark.parametrize("src,f,f1,f2", OPERATORS, ids=[r[0] for r in OPERATORS])
def test_operators_and_compositions(src, f, f1, f2):
    expr = parse(src)
    for x in POINTS:
        j = expr(t=Jet(x, 1.0, 0.0))
        assert_jet(j, f(x), f1(x), f2(x), abs_=1e-12)
        assert close(expr(t=x), f(x))
        check_fd(lambda s: expr(t=s), x, j)


def test_sin2_plus_cos2_has_zero_derivatives():
    expr = parse("sin(t)**2 + cos(t)**2")
    for x in [-1.0, 0.2, 2.0, 10.0]:
        j = expr(t=Jet(x, 1.0, 0.0))
        assert close(j.v, 1.0) and builtins.abs(j.d) < 1e-14 and builtins.abs(j.dd) < 1e-13


def test_jet_binary_operators_both_orders_against_fd():
    # u(s) = 2 + 3 s + 2.5 s^2 and w(s) = -1.5 + 0.5 s + s^2 have Jets (2,3,5), (-1.5,0.5,2) at s=0
    u = lambda s: 2 + 3 * s + 2.5 * s * s  # noqa: E731
    w = lambda s: -1.5 + 0.5 * s + s * s  # noqa: E731
    U, W = Jet(2.0, 3.0, 5.0), Jet(-1.5, 0.5, 2.0)
    ops = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
           lambda a, b: b - a, lambda a, b: b / a, lambda a, b: a ** b, lambda a, b: b ** 3,
           lambda a, b: 2.0 ** b, lambda a, b: 3.0 - a, lambda a, b: 3.0 / b, lambda a, b: a * 2,
           lambda a, b: -a + (+b), lambda a, b: builtins.abs(b), lambda a, b: a ** 2.5]
    for op in ops:
        check_fd(lambda s: op(u(s), w(s)), 0.0, op(U, W))
    # the product and quotient rules by hand (general forms, not the implementation's)
    assert_jet(U * W, -3.0, 3 * -1.5 + 2 * 0.5, 5 * -1.5 + 2 * 3 * 0.5 + 2 * 2)
    q2 = 5 / -1.5 - 2 * 3 * 0.5 / 1.5 ** 2 - 2 * 2 / 1.5 ** 2 + 2 * 2 * 0.5 ** 2 / (-1.5) ** 3
    assert_jet(U / W, 2 / -1.5, (3 * -1.5 - 2 * 0.5) / 1.5 ** 2, q2)


def test_jet_basics():
    j = Jet(1.5, 2, 3)
    assert float(j) == 1.5 and isinstance(j.d, float)
    assert "1.5" in repr(j) and repr(j).startswith("Jet(")
    assert j < 2 and j <= 1.5 and j > 1 and j >= Jet(1.5) and not (j > Jet(2.0, -1, 0))
    assert 2 > j and not (1 > j)
    assert_jet(np.float64(2.0) * j, 3.0, 4.0, 6.0)  # numpy scalars defer to Jet
    arr = np.array([1.0, 2.0]) * j
    assert isinstance(arr, Jet) and np.allclose(arr.d, [2.0, 4.0])
    assert_jet(Jet(0.0, 1.0, 0.0) ** 2, 0.0, 0.0, 2.0)  # u**c at u = 0
    assert_jet(Jet(0.0, 1.0, 0.0) ** 1, 0.0, 1.0, 0.0)
    assert_jet(Jet(-2.0, 1.0, 0.0) ** 3.0, -8.0, 12.0, -12.0)  # negative base, integer exponent
    assert_jet(Jet(5.0, 1.0, 1.0) ** 0, 1.0, 0.0, 0.0)
    assert_jet(Jet(-2.0, 1.0, 0.0) ** Jet(2.0), 4.0, -4.0, 2.0)  # constant Jet exponent
    assert_jet(abs(Jet(0.0, 1.0, 1.0)), 0.0, 0.0, 0.0)  # sign(0) = 0
    assert_jet(-Jet(1.0, 2.0, 3.0), -1.0, -2.0, -3.0)


def test_atan2_against_hand_derivatives():
    for x in [-2.0, 0.0, 0.7, 3.0]:
        # atan2(t, 2) = atan(t/2): d = 2/(4+t^2), dd = -4t/(4+t^2)^2
        assert_jet(atan2(Jet(x, 1.0, 0.0), 2.0), math.atan(x / 2), 2 / (4 + x * x),
                   -4 * x / (4 + x * x) ** 2)
        # atan2(sin t, cos t) = t on (-pi, pi)
        assert_jet(parse("atan2(sin(t), cos(t))")(t=Jet(x, 1.0, 0.0)), x, 1.0, 0.0, abs_=1e-14)
    for x in [0.5, 1.0, 4.0]:  # atan2(1, t) = pi/2 - atan(t) for t > 0
        assert_jet(atan2(1.0, Jet(x, 1.0, 0.0)), math.pi / 2 - math.atan(x), -1 / (1 + x * x),
                   2 * x / (1 + x * x) ** 2)
    assert close(atan2(-1.0, -1.0), -3 * math.pi / 4) and atan2(0.0, 0.0) == 0.0
    for x in [-1.0, 0.3, 2.0]:  # both arguments moving, all quadrants
        g = lambda s: math.atan2(math.sin(3 * s) - 0.2, s * s - 1)  # noqa: E731
        check_fd(g, x, parse("atan2(sin(3*t) - 0.2, t*t - 1)")(t=Jet(x, 1.0, 0.0)))
    np.testing.assert_allclose(atan2(np.array([1.0, -1.0]), np.array([1.0, 1.0])),
                               [math.pi / 4, -math.pi / 4])
    with pytest.raises(ExpressionError, match="atan2"):
        atan2(Jet(0.0, 1.0, 0.0), 0.0)


def test_min_max_pick_branch_by_value():
    a, b = Jet(1.0, 2.0, 3.0), Jet(2.0, -1.0, 0.5)
    assert jmin(a, b) is a and jmax(a, b) is b and jmin(b, 5.0, a) is a
    assert jmax(a, 0.5) is a and jmin(a, 0.5) == 0.5 and jmax(1.0, 3.0, 2.0) == 3.0
    expr = parse("max(t, 1 - t) + min(t*t, 2, 3)")
    assert_jet(expr(t=Jet(0.2, 1.0, 0.0)), 0.8 + 0.04, -1.0 + 0.4, 2.0)
    assert_jet(expr(t=Jet(0.9, 1.0, 0.0)), 0.9 + 0.81, 1.0 + 1.8, 2.0)
    assert_jet(expr(t=Jet(3.0, 1.0, 0.0)), 5.0, 1.0, 0.0)
    x = np.array([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(jmin(x, 0.0), [-1.0, 0.0, 0.0])
    j = jmax(Jet(x, np.ones(3), np.zeros(3)), 0.0)
    np.testing.assert_allclose(j.v, [0.0, 0.5, 2.0])
    np.testing.assert_allclose(j.d, [0.0, 1.0, 1.0])


def _jets_near(fn, x, eps=1e-9):
    return fn(Jet(x - eps, 1.0, 0.0)), fn(Jet(x + eps, 1.0, 0.0))


def test_step_values_closed_form_and_continuity():
    f = lambda x: step(x, 1.0, 2.0, 3.0, 5.0)  # noqa: E731
    for x, v in [(-1.0, 2.0), (1.0, 2.0), (2.0, 3.5), (3.0, 5.0), (4.0, 5.0)]:
        assert close(f(x), v)
    for x in [1.2, 2.0, 2.7]:  # s = (x-1)/2, h = 2 + 3 s^2 (3 - 2s)
        s = (x - 1) / 2
        assert_jet(f(Jet(x, 1.0, 0.0)), 2 + 3 * s * s * (3 - 2 * s), 9 * s * (1 - s),
                   4.5 * (1 - 2 * s))
        check_fd(f, x, f(Jet(x, 1.0, 0.0)))
    for x in [0.0, 5.0]:
        assert_jet(f(Jet(x, 1.0, 0.0)), f(x), 0.0, 0.0)
    for x0 in [1.0, 3.0]:  # C1: value and slope continuous, 2nd derivative jumps by 4.5
        lo, hi = _jets_near(f, x0)
        assert builtins.abs(lo.v - hi.v) < 1e-8 and builtins.abs(lo.d - hi.d) < 1e-7
        assert close(builtins.abs(lo.dd - hi.dd), 4.5, 1e-6)
    # h0 > h1: decreasing
    xs = np.linspace(-0.5, 1.5, 41)
    vals = [step(Jet(x, 1.0, 0.0), 0.0, 1.0, 1.0, 0.0) for x in xs]
    assert all(v.d <= 0 for v in vals) and vals[0].v == 1.0 and vals[-1].v == 0.0
    assert np.all(np.diff([v.v for v in vals]) <= 0)
    np.testing.assert_allclose(step(xs, 0.0, 1.0, 1.0, 0.0), [v.v for v in vals])


def test_step5_closed_form_and_c2_continuity():
    f = lambda x: step5(x, 1.0, 2.0, 3.0, 5.0)  # noqa: E731
    for x, v in [(0.0, 2.0), (1.0, 2.0), (2.0, 3.5), (3.0, 5.0), (3.5, 5.0)]:
        assert close(f(x), v)
    for x in [1.3, 2.0, 2.9]:  # h = 2 + 3 s^3 (10 - 15 s + 6 s^2), s = (x - 1) / 2
        s = (x - 1) / 2
        assert_jet(f(Jet(x, 1.0, 0.0)), 2 + 3 * s ** 3 * (10 - 15 * s + 6 * s * s),
                   3 * 30 * s * s * (1 - s) ** 2 / 2, 3 * 60 * s * (1 - s) * (1 - 2 * s) / 4)
        check_fd(f, x, f(Jet(x, 1.0, 0.0)))
    for x0 in [1.0, 3.0]:  # C2: value, slope and 2nd derivative continuous
        lo, hi = _jets_near(f, x0)
        assert builtins.abs(lo.v - hi.v) < 1e-8 and builtins.abs(lo.d - hi.d) < 1e-7
        assert builtins.abs(lo.dd - hi.dd) < 1e-6
    assert step5(Jet(0.5, 1.0, 0.0), 0.0, 1.0, 1.0, -1.0).d < 0  # h0 > h1


def test_ramp_values_derivatives_and_c2():
    x0, x1 = 0.5, 2.5  # L = 2
    f = lambda x: ramp(x, x0, x1)  # noqa: E731
    assert f(0.0) == 0.0 and f(x0) == 0.0 and close(f(x1), 1.0) and close(f(4.0), 1.5 + 1.0)
    for x in [0.0, 0.7, 1.5, 2.3, 2.5, 4.0]:
        j = f(Jet(x, 1.0, 0.0))
        assert close(j.d, step5(x, x0, 0.0, x1, 1.0))  # ramp' = step5
        assert close(j.dd, step5(Jet(x, 1.0, 0.0), x0, 0.0, x1, 1.0).d, abs_=1e-12)  # ramp''
        if x0 < x < x1:
            s = (x - x0) / 2
            assert close(j.v, 2 * (2.5 * s ** 4 - 3 * s ** 5 + s ** 6))
            check_fd(f, x, j)
    for xe in [x0, x1]:
        lo, hi = _jets_near(f, xe)
        assert builtins.abs(lo.v - hi.v) < 1e-8 and builtins.abs(lo.d - hi.d) < 1e-7
        assert builtins.abs(lo.dd - hi.dd) < 1e-6
    crank = time_function("2*pi*ramp(t, 0, 0.5)")
    assert crank.derivatives(-1.0) == (0.0, 0.0, 0.0)
    f0, w, a = crank.derivatives(1.0)
    assert close(f0, 2 * math.pi * 0.75) and close(w, 2 * math.pi) and builtins.abs(a) < 1e-12
    assert close(crank.derivatives(0.25)[1], math.pi)  # half speed at the middle
    np.testing.assert_allclose(ramp(np.array([0.0, 1.5, 4.0]), x0, x1), [0.0, f(1.5), 2.5])


def test_blend_rejects_x1_not_greater_than_x0():
    for fn, args in [(step, (0.5, 1.0, 0.0, 1.0, 1.0)), (step, (0.5, 2.0, 0.0, 1.0, 1.0)),
                     (step5, (0.5, 2.0, 0.0, 1.0, 1.0)), (ramp, (0.5, 2.0, 1.0))]:
        with pytest.raises(ExpressionError, match="x1 must be greater than x0"):
            fn(*args)
    with pytest.raises(ExpressionError, match="x1 must be greater than x0"):
        parse("step(t, 2, 0, 1, 1)")(t=0.0)


# source, regular expression the message must match
REJECTED = [
    ("__import__('os').system('x')", r"attribute access \(\.\) is not allowed"),
    ("__import__('os')", r"uses a name that is not allowed: '__import__' \(allowed: t, pi, e"),
    ("().__class__", r"attribute access"),
    ("open('f')", r"name that is not allowed: 'open'"),
    ("print(t)", r"name that is not allowed: 'print'"),
    ("t.real", r"attribute access"),
    ("sin(t).real", r"attribute access"),
    ("[t]", r"lists are not allowed"),
    ("(t, 1)", r"commas outside a function's brackets are not allowed"),
    ("3,5*t", r"commas outside .* \(a decimal number takes a point: 3.5, not 3,5\)"),
    ("2pi*t", r"invalid decimal literal; a number next to a name needs \* between them, e.g. 2\*pi"),
    ("2(t + 1)", r"the number 2 is followed by brackets as if it were a function; a product needs \*"),
    ("Sin(t)", r"unknown function 'Sin' .*; names are lower case: did you mean 'sin'\?"),
    ("PI*t", r"name that is not allowed: 'PI' .*; names are lower case: did you mean 'pi'\?"),
    ("{t}", r"sets are not allowed"),
    ("{1: t}", r"dicts are not allowed"),
    ("t[0]", r"subscripts \(\[\.\.\.\]\) are not allowed"),
    ("'a'", r"strings are not allowed"),
    ("b'a'", r"strings are not allowed"),
    ("f'{t}'", r"strings are not allowed"),
    ("lambda: 1", r"lambda functions are not allowed"),
    ("[t for t in x]", r"comprehensions are not allowed"),
    ("sum(t for t in x)", r"name that is not allowed: 'sum'"),
    ("sin(t, t)", r"'sin' takes 1 argument, got 2"),
    ("step(t, 0, 1)", r"'step' takes 5 arguments \(x, x0, h0, x1, h1\), got 3"),
    ("atan2(t)", r"'atan2' takes 2 arguments"),
    ("min(t)", r"'min' takes at least 2 arguments, got 1"),
    ("foo(t)", r"unknown function 'foo'"),
    ("sin(x=t)", r"keyword arguments are not allowed"),
    ("sin(*t)", r"star arguments"),
    ("1 if t else 2", r"conditional expressions .* are not allowed \(a switch in time is a "
                      r"step\(t, t0, before, t1, after\), or min or max\)"),
    ("t > 1", r"comparisons .* are not allowed \(a switch in time is a step"),
    ("t and 1", r"boolean operators \(and, or\) are not allowed \(a switch in time is a step"),
    ("not t", r"the operator 'not' is not allowed"),
    ("~t", r"the operator '~' is not allowed"),
    ("(t := 1)", r"assignments \(:=\) are not allowed"),
    ("True", r"booleans and None are not allowed"),
    ("None", r"booleans and None are not allowed"),
    ("1j", r"only real numbers"),
    ("...", r"only real numbers"),
    ("t // 2", r"the operator '//' is not allowed"),
    ("t % 2", r"the operator '%' is not allowed"),
    ("t ^ 2", r"the operator '\^' is not allowed \(use \*\* for powers\)"),
    ("sin", r"'sin' is a function and must be called"),
    ("t(1)", r"'t' is not a function"),
    ("x", r"name that is not allowed: 'x'"),
    ("omega*t", r"name that is not allowed: 'omega' \(allowed: .*\); a constant of your own is "
                r"given as constants=\{'omega': \.\.\.\} \(in Blender, on the Constants panel\)"),
    ("t +", r"'t \+' is incomplete: it ends where more must follow"),   # Python's column 0
    ("t**", r"'t\*\*' is incomplete"),
    ("2 t", r"syntax error at column 3: invalid syntax"),              # at the t
    ("2*pi*t + (", r"syntax error at column 10: '\(' was never closed"),
    ("sin(t))", r"syntax error at column 7: unmatched '\)'"),
    ("", r"expression is empty"),
    ("   ", r"expression is empty"),
    ("t" + " + 1" * 500, r"too long \(2001 characters, at most 2000\)"),
    ("sin(" * 101 + "t" + ")" * 101, r"nested too deeply"),
    ("(" * 150 + "t" + ")" * 150, r"nested too deeply"),
    ("-" * 150 + "t", r"nested too deeply"),
]


@pytest.mark.parametrize("src,message", REJECTED, ids=[r[0][:30] for r in REJECTED])
def test_rejected_constructs(src, message):
    with pytest.raises(ExpressionError, match=message) as info:
        parse(src, name="motion 'drive'")
    assert str(info.value).startswith("motion 'drive': expression")
    if src.strip() and len(src) < 100:
        assert repr(src.strip()) in str(info.value)  # the expression text is quoted


def test_accepted_limits_and_variables():
    assert parse("sin(" * 90 + "t" + ")" * 90)(t=0.0) == 0.0
    assert parse("t" + " + 1" * 499)(t=1.0) == 500.0  # long flat chains are not "nesting"
    assert_jet(parse("t" + "*t" * 600)(t=Jet(1.0, 1.0, 0.0)), 1.0, 601.0, 601.0 * 600.0)
    assert parse("1 - 2 + 3 * 4 / 8 - t")(t=1.0) == 1 - 2 + 3 * 4 / 8 - 1.0
    expr = parse("x*y + z - pi", variables=("x", "y", "z"))
    assert isinstance(expr, Expression) and expr.variables == ("x", "y", "z")
    assert_jet(expr(x=Jet(2.0, 1.0, 0.0), y=Jet(3.0, 1.0, 0.0), z=1.0), 7 - math.pi, 5.0, 2.0)
    assert parse("1e3 + 0x10 + 1_000")(t=0.0) == 2016.0
    res = parse("2*t")(t=1.5)
    assert res == 3.0 and isinstance(res, float)
    assert parse("  t  ").source == "t"
    with pytest.raises(ExpressionError, match="needs values for"):
        expr(x=1.0, y=2.0)
    with pytest.raises(ExpressionError, match="does not know"):
        parse("t")(t=1.0, u=2.0)
    for bad in [("pi",), ("sin",), ("import",), ("a b",)]:
        with pytest.raises(ExpressionError, match="cannot be used as a variable name"):
            parse("1", variables=bad)
    with pytest.raises(ExpressionError, match="must be a string"):
        parse(3.0)


def test_never_evaluates_or_compiles_code(monkeypatch):
    """parse() only builds an AST (compile with PyCF_ONLY_AST); eval/exec are never used."""
    real_compile = builtins.compile

    def guarded_compile(source, filename, mode, flags=0, *args, **kwargs):
        assert flags & ast.PyCF_ONLY_AST, "code object compiled"
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec called")

    monkeypatch.setattr(builtins, "compile", guarded_compile)
    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    assert_jet(parse("sin(t)*t")(t=Jet(0.0, 1.0, 0.0)), 0.0, 0.0, 2.0)
    with pytest.raises(ExpressionError):
        parse("__import__('os').system('echo hacked')")


EVAL_ERRORS = [
    ("10**10**10", 0.0, r"overflow"),
    ("1/t", 0.0, r"division by zero"),
    ("sqrt(t)", -1.0, r"sqrt\(-1\) is undefined"),
    ("log(t)", 0.0, r"log\(0\) is undefined"),
    ("asin(t)", 2.0, r"asin\(2\) is undefined"),
    ("acos(t)", -1.5, r"acos\(-1.5\) is undefined"),
    ("(-8)**(1/3)", 0.0, r"negative number .* non-integer power"),
    ("0**-1", 0.0, r"0 cannot be raised to a negative power"),
    ("exp(1000*t)", 1.0, r"overflow"),
]


@pytest.mark.parametrize("src,t,message", EVAL_ERRORS, ids=[r[0] for r in EVAL_ERRORS])
def test_evaluation_errors(src, t, message):
    expr = parse(src, name="force 'f'")
    for value in (t, Jet(t, 1.0, 0.0)):
        with pytest.raises(ExpressionError, match=message) as info:
            expr(t=value)
        assert "force 'f'" in str(info.value) and repr(src) in str(info.value)
        assert f"t={t!r}" in str(info.value)


def test_evaluation_errors_of_derivatives_only():
    assert parse("sqrt(t)")(t=0.0) == 0.0  # the value exists, its derivative does not
    with pytest.raises(ExpressionError, match="derivative of sqrt is infinite"):
        parse("sqrt(t)")(t=Jet(0.0, 1.0, 0.0))
    with pytest.raises(ExpressionError, match=r"derivative of x\*\*0.5 is infinite"):
        parse("t**0.5")(t=Jet(0.0, 1.0, 0.0))
    # x**1.5 has a first derivative at 0 (0: a motion t**1.5 starts at rest) but no second
    with pytest.raises(ExpressionError, match=r"the second derivative of x\*\*1.5 is infinite"):
        parse("t**1.5")(t=Jet(0.0, 1.0, 0.0))
    with pytest.raises(ExpressionError, match="variable exponent must be positive"):
        parse("t**t")(t=Jet(-1.0, 1.0, 0.0))
    assert parse("(-2)**3")(t=0.0) == -8.0


def test_time_function_number_string_callable():
    assert time_function(2.5).derivatives(1.0) == (2.5, 0.0, 0.0)
    assert time_function(3).value(7.0) == 3.0 and time_function(np.float64(1.5))(0.0) == 1.5
    tf = time_function("pi/6 + 2*pi*t", name="motion 'drive'")
    assert isinstance(tf, TimeFunction) and time_function(tf) is tf
    assert tf.derivatives(0.5) == (math.pi / 6 + math.pi, 2 * math.pi, 0.0)
    assert tf.value(0.5) == math.pi / 6 + math.pi
    # a callable is evaluated on Jet(t, 1, 0): exact derivatives
    assert time_function(lambda t: 3 * t ** 2).derivatives(2.0) == (12.0, 12.0, 6.0)
    tf = time_function(lambda t: exp(-t) * sin(3 * t))
    for x in [0.0, 0.4, 2.0]:
        f, d, dd = tf.derivatives(x)
        assert close(f, math.exp(-x) * math.sin(3 * x)) and close(tf.value(x), f)
        assert close(d, math.exp(-x) * (3 * math.cos(3 * x) - math.sin(3 * x)))
        assert close(dd, math.exp(-x) * (-8 * math.sin(3 * x) - 6 * math.cos(3 * x)))
    assert time_function(lambda t: 4.0).derivatives(1.0) == (4.0, 0.0, 0.0)
    assert float(Jet(1.0, 1.0, 0.0)) == 1.0  # float() of a Jet only fails while probing


@pytest.mark.parametrize("fn", [lambda t: math.sin(t), lambda t: np.sin(t), lambda t: float(t)])
def test_time_function_callable_without_jet_support(fn):
    msg = r"solver\.vocabulary\.expressions.*derivatives=\(df, ddf\)"
    with pytest.raises(ExpressionError, match=msg) as info:
        time_function(fn, name="motion 'drive'")
    assert "motion 'drive'" in str(info.value)


def test_time_function_with_explicit_derivatives():
    tf = time_function(lambda t: math.sin(t), derivatives=(math.cos, lambda t: -math.sin(t)))
    assert tf.derivatives(0.3) == (math.sin(0.3), math.cos(0.3), -math.sin(0.3))
    assert tf.value(0.3) == math.sin(0.3)
    with pytest.raises(ExpressionError, match="pair of callables"):
        time_function(math.sin, derivatives=(math.cos,))
    with pytest.raises(ExpressionError, match="only applies to a callable"):
        time_function("t", derivatives=(math.cos, math.sin))
    for bad in [True, None, [1.0], float("nan")]:
        with pytest.raises(ExpressionError):
            time_function(bad)


@pytest.mark.parametrize("spec", [lambda t: t * float("nan"), "1e308 * (t + 10)",
                                  lambda t: 1e308 * (t + 10)])
def test_time_function_non_finite_names_name_and_time(spec):
    tf = time_function(spec, name="motion 'm'")
    for call in (tf.value, tf.derivatives):
        with pytest.raises(ExpressionError, match=r"motion 'm'.*non-finite value.*t=1\.5"):
            call(1.5)


def test_time_function_non_finite_derivative_and_failure_time():
    tf = time_function(lambda t: 1.0 + 1e308 * t * t, name="force 'f'")  # f'' = 2e308 = inf
    assert tf.value(0.0) == 1.0
    with pytest.raises(ExpressionError, match="force 'f'.*non-finite second derivative.*t=0.0"):
        tf.derivatives(0.0)
    tf = time_function(lambda t: 1 / t, name="m")  # fails only at t = 0
    assert tf.derivatives(2.0) == (0.5, -0.25, 0.25)
    for call in (tf.value, tf.derivatives):
        with pytest.raises(ExpressionError, match=r"m: .*failed at t=0\.0.*ZeroDivisionError"):
            call(0.0)


@pytest.mark.parametrize("src, variables, constants, expected", [
    ("step(t, 2.0, 0, 2.001, 1) * step(t, 2.019, 1, 2.02, 0) * 10", ("t",), None,
     (2.0, 2.001, 2.019, 2.02)),
    ("ramp(t, a, 2*a) + step5(t, pi, 0, 4, 1)", ("t",), {"a": 0.5}, (0.5, 1.0, math.pi, 4.0)),
    ("step(t, 1, 0, 1, 1) + ramp(t, 1, 3)", ("t",), None, (1.0, 3.0)),      # each time once
    ("step(sin(t), 0, 0, 1, 1) + step(2*t, 1, 0, 2, 1)", ("t",), None, ()),  # not of t itself
    ("step(t, length, 0, 3, 1) * speed", ("t", "length", "speed"), None, (3.0,)),
    ("100*sin(t) - 5*speed", ("t", "length", "speed"), None, ()),
    ("max(0, t - 0.5) + 2*abs(3*t - 1.5)", ("t",), None, (0.5,)),          # each time once
    ("min(t, a) + max(0, t - 0.5, 2*t - 1.6)", ("t",), {"a": 1.25}, (0.5, 0.8, 1.1, 1.25)),
    ("max(0, sin(t)) + abs(length - t) + min(t, speed)", ("t", "length", "speed"), None, ()),
])
def test_breakpoints_are_where_a_step_or_ramp_of_t_turns(src, variables, constants, expected):
    """The times a dynamic run ends its steps on: the numeric edges x0 and x1 of step,
    step5 and ramp whose x is t itself (named constants and pi included; an edge that
    depends on a variable, or an x that is another function of t, gives none), and where
    abs, min or max of arguments affine in t alone turn (their arguments meeting zero or
    each other: a crossing where another argument is larger is kept, an extra step end;
    an argument not affine, or of another variable, gives none)."""
    assert parse(src, variables, constants=constants).breakpoints == pytest.approx(expected)
    if variables == ("t",):
        assert time_function(src, constants=constants).breakpoints == pytest.approx(expected)


@pytest.mark.parametrize("src, first_bad", [
    ("max(-1, log(1 - t))", 1.0),          # log(0) = -inf, which max leaves out
    ("min(0.5, sqrt(1 - t))", 1.0),        # sqrt's derivative infinite at 0, NaN past it
    ("min(1, asin(t - 0.5))", 1.5),        # asin of 1: an infinite slope, past it NaN
    ("max(0, 1 / (t - 1.5))", 1.5)])       # a division by zero on the branch left out
def test_a_table_of_times_fails_where_one_time_fails(src, first_bad):
    """Evaluated over many times at once (a kinematic sweep's frames) an expression is
    undefined where it is undefined at one time: a value that min or max leaves out
    (numpy gives NaN or inf for it) still fails, at the first such time."""
    tf = time_function(src, name="motion 'm'")
    ts = np.linspace(0.0, 2.0, 9)
    for t in ts[ts < first_bad]:
        # numpy's and math's asin, log, ... may round apart in the last bit
        assert tf.table(np.array([t]))[0] == pytest.approx(tf.derivatives(t), rel=1e-14)
    with pytest.raises(ExpressionError, match=rf"motion 'm'.*t={first_bad!r}"):
        tf.table(ts)


def test_a_kinematic_sweep_stops_where_the_expression_is_undefined():
    """The sweep (one vectorized pass over its frames) and a dynamic run (one time a step)
    both stop at log(1 - t)'s t = 1, naming the motion, with the frames before it."""
    from solver import SolverError
    from mechanisms import rail_slider
    for analysis in ("kinematic", "dynamic"):
        m = rail_slider("z", spring=None, gravity=(0.0, 0.0, 0.0))
        m.add_motion("lift", "rail", "max(-1, log(1 - t))")
        with pytest.raises(SolverError, match=r"motion 'lift'.*t=1\.0.*log\(0\)") as info:
            m.solve(duration=2.0, fps=4, analysis=analysis)
        assert list(info.value.result.times) == [0.0, 0.25, 0.5, 0.75]
