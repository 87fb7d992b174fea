"""The one Newton iteration (solver/algebra/newton.py) that assembly, position projection,
statics and the implicit stages share, and its one stopping rule, on scalar problems whose
answers are known."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver.algebra.newton import NEWTON_TOL, STEP_TOL, converged, newton


def scalar(f, df, x0, **kw):
    """newton() on f(x) = 0 with the residual |f| and step |dx| as the scaled sizes."""
    return newton(x0, lambda x: (abs(f(x)), f(x)), lambda x, fx: -fx / df(x),
                  lambda x, dx, a: x + a * dx, lambda x1, dx, a: abs(a * dx), **kw)


def test_stopping_rule() -> None:
    assert converged(NEWTON_TOL, np.inf)
    assert not converged(2 * NEWTON_TOL, np.inf)
    assert converged(5e2 * NEWTON_TOL, STEP_TOL)          # rounding-level step, residual near
    assert not converged(5e3 * NEWTON_TOL, STEP_TOL)      # ... but not a large residual
    assert converged(None, 1e-3, step_tol=1e-2) and not converged(None, 0.1, step_tol=1e-2)
    got = converged(np.array([1e-13, 1e-9, 1e-6]), np.array([1.0, 1e-16, 1e-16]))
    assert got.tolist() == [True, True, False]


def test_square_root_of_two_converges_quadratically() -> None:
    out = scalar(lambda x: x * x - 2.0, lambda x: 2.0 * x, 1.0, max_iter=20)
    assert out.ok and abs(out.x - math.sqrt(2.0)) < 1e-15
    assert out.iterations <= 6           # 1, 1.5, 1.4167, 1.414216, ...: digits double


def test_line_search_rescues_a_diverging_newton() -> None:
    """atan(x) = 0 from x0 = 3: plain Newton runs away (|x| grows each step); halving the
    step until |f| decreases converges to 0."""
    f, df = math.atan, lambda x: 1.0 / (1.0 + x * x)
    plain = scalar(f, df, 3.0, max_iter=8)
    assert not plain.ok and abs(plain.x) > 1e3
    damped = scalar(f, df, 3.0, max_iter=50, line_search=True)
    assert damped.ok and abs(damped.x) < 1e-12


def test_no_root_stops_and_says_so() -> None:
    """x^2 + 1 = 0 has no real root: the line search finds no decrease near the minimum
    of |f| (x = 0) or the iteration stalls; either way ok is False."""
    out = scalar(lambda x: x * x + 1.0, lambda x: 2.0 * x, 0.5, max_iter=100,
                 line_search=True, stall=(0.9, 8))
    assert not out.ok and out.err >= 1.0


def test_step_only_mode_with_predicted_error() -> None:
    """With the residual not measured (simplified Newton, a fixed slope), ``rate`` stops on
    the predicted remaining error theta / (1 - theta) |dx|; a slope so wrong that the steps
    grow (theta >= 1) is reported as failing at once."""
    ok = newton(1.0, lambda x: (None, x * x - 2.0), lambda x, fx: -fx / 2.8,
                lambda x, dx, a: x + dx, lambda x1, dx, a: abs(dx), 30, step_tol=1e-10, rate=0.1)
    assert ok.ok and abs(ok.x - math.sqrt(2.0)) < 1e-9
    bad = newton(1.0, lambda x: (None, x * x - 2.0), lambda x, fx: -fx / 0.1,
                 lambda x, dx, a: x + dx, lambda x1, dx, a: abs(dx), 30, step_tol=1e-10, rate=0.1)
    assert not bad.ok and bad.iterations <= 3


def test_accept_sees_each_accepted_iterate() -> None:
    seen = []
    out = scalar(lambda x: x * x - 2.0, lambda x: 2.0 * x, 3.0, max_iter=20,
                 accept=lambda x, data: seen.append(x))
    assert out.ok and seen[-1] == out.x and len(seen) == out.iterations
    assert all(b < a for a, b in zip(seen, seen[1:]))    # from above, monotone


@pytest.mark.parametrize("n", [1, 3])
def test_vector_unknowns(n: int) -> None:
    """A linear system converges in one step (residual below the tolerance after it)."""
    rng = np.random.default_rng(n)
    M = rng.normal(size=(n, n)) + 3 * np.eye(n)
    b = rng.normal(size=n)
    out = newton(np.zeros(n), lambda x: (np.max(np.abs(M @ x - b)), M @ x - b),
                 lambda x, r: -np.linalg.solve(M, r), lambda x, dx, a: x + a * dx,
                 lambda x1, dx, a: np.max(np.abs(a * dx)), 5)
    assert out.ok and out.iterations == 1
    np.testing.assert_allclose(M @ out.x, b, atol=1e-12)
