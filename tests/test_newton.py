"""The one Newton iteration (solver/algebra/newton.py) that assembly, position projection,
statics and the implicit stages share, and its one stopping rule, on scalar problems whose
answers are known."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver.algebra.newton import NEWTON_TOL, STEP_TOL, NewtonOptions, NewtonProblem, converged, newton


class Scalar(NewtonProblem):
    """f(x) = 0 with the residual |f| and the step |alpha dx| as the scaled sizes; the
    accepted iterates are kept in ``seen``."""

    def __init__(self, f, df) -> None:
        self.f, self.df, self.seen = f, df, []

    def residual(self, x):
        return abs(self.f(x)), self.f(x)

    def solve(self, x, fx):
        return -fx / self.df(x)

    def move(self, x, dx, alpha):
        return x + alpha * dx

    def size(self, x1, dx, alpha):
        return abs(alpha * dx)

    def accept(self, x, data) -> None:
        self.seen.append(x)


class Chord(Scalar):
    """Simplified Newton with a fixed slope and the residual not measured: full steps,
    the step's size alone decides."""

    def __init__(self, f, slope: float) -> None:
        super().__init__(f, lambda x: slope)

    def residual(self, x):
        return None, self.f(x)

    def size(self, x1, dx, alpha):
        return abs(dx)


class Linear(NewtonProblem):
    """M x = b: residual max |M x - b|, step the exact solve."""

    def __init__(self, M, b) -> None:
        self.M, self.b = M, b

    def residual(self, x):
        r = self.M @ x - self.b
        return np.max(np.abs(r)), r

    def solve(self, x, r):
        return -np.linalg.solve(self.M, r)

    def move(self, x, dx, alpha):
        return x + alpha * dx

    def size(self, x1, dx, alpha):
        return np.max(np.abs(alpha * dx))


def scalar(f, df, x0, **kw):
    """newton() on f(x) = 0 with the residual |f| and step |dx| as the scaled sizes."""
    return newton(Scalar(f, df), x0, NewtonOptions(**kw))


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
    opts = NewtonOptions(30, step_tol=1e-10, rate=0.1)
    ok = newton(Chord(lambda x: x * x - 2.0, 2.8), 1.0, opts)
    assert ok.ok and abs(ok.x - math.sqrt(2.0)) < 1e-9
    bad = newton(Chord(lambda x: x * x - 2.0, 0.1), 1.0, opts)
    assert not bad.ok and bad.iterations <= 3


def test_accept_sees_each_accepted_iterate() -> None:
    problem = Scalar(lambda x: x * x - 2.0, lambda x: 2.0 * x)
    out = newton(problem, 3.0, NewtonOptions(20))
    seen = problem.seen
    assert out.ok and seen[-1] == out.x and len(seen) == out.iterations
    assert all(b < a for a, b in zip(seen, seen[1:]))    # from above, monotone


@pytest.mark.parametrize("n", [1, 3])
def test_vector_unknowns(n: int) -> None:
    """A linear system converges in one step (residual below the tolerance after it)."""
    rng = np.random.default_rng(n)
    M = rng.normal(size=(n, n)) + 3 * np.eye(n)
    b = rng.normal(size=n)
    out = newton(Linear(M, b), np.zeros(n), NewtonOptions(5))
    assert out.ok and out.iterations == 1
    np.testing.assert_allclose(M @ out.x, b, atol=1e-12)


def test_the_problem_protocol_iterates_as_newton_on_a_cube_root() -> None:
    """x^3 - 8 = 0 from x0 = 3, written out: x_{k+1} = x_k - (x_k^3 - 8) / (3 x_k^2)
    gives 2.2963, 2.0366, 2.00065, 2.00000021, 2.00000000000002 (the error squared and
    halved each step: 2.1e-7^2 / 2 = 2.3e-14); newton() takes exactly these iterates,
    checked against the recurrence computed here bit for bit, and stops on the residual
    rule once |f| = 12 |x - 2| <= NEWTON_TOL: after the fifth."""
    f, df = (lambda x: x ** 3 - 8.0), (lambda x: 3.0 * x * x)
    problem = Scalar(f, df)
    out = newton(problem, 3.0, NewtonOptions(20))
    expect = [3.0]
    while abs(f(expect[-1])) > NEWTON_TOL:
        expect.append(expect[-1] - f(expect[-1]) / df(expect[-1]))
    assert out.ok and out.x == expect[-1] and problem.seen == expect[1:]
    assert out.iterations == len(expect) - 1 == 5
    assert abs(out.x - 2.0) < 3e-14


def test_the_base_problem_starts_the_line_search_at_a_full_step() -> None:
    """The base class's first_alpha is 1 and its accept does nothing: a problem that
    defines only residual, solve, move and size runs plain Newton."""
    class Bare(NewtonProblem):
        residual, solve, move, size = (Scalar.residual, Scalar.solve, Scalar.move, Scalar.size)

        def __init__(self) -> None:
            self.f, self.df = (lambda x: x * x - 2.0), (lambda x: 2.0 * x)

    assert NewtonProblem().first_alpha(5.0) == 1.0 and NewtonProblem().accept(1.0, None) is None
    out = newton(Bare(), 1.0, NewtonOptions(20, line_search=True))
    ref = scalar(lambda x: x * x - 2.0, lambda x: 2.0 * x, 1.0, max_iter=20)
    assert out.ok and out.x == ref.x and out.iterations == ref.iterations


def test_options_have_the_shared_defaults_and_are_frozen() -> None:
    opts = NewtonOptions(7)
    assert (opts.tol, opts.step_tol, opts.line_search, opts.stall, opts.rate) == \
        (NEWTON_TOL, STEP_TOL, False, None, None)
    with pytest.raises(Exception):
        opts.max_iter = 8


def test_a_stalled_iteration_stops_after_the_allowed_count() -> None:
    """f(x) = x^2 has a double root: Newton halves x each step, so the residual falls by
    0.25 per step; with stall (0.2, 3) every step counts as stalled and the iteration
    stops after the fourth (more than 3 in a row), not at max_iter."""
    out = newton(Scalar(lambda x: x * x, lambda x: 2.0 * x), 1.0, NewtonOptions(50, stall=(0.2, 3)))
    assert not out.ok and out.iterations == 4 and out.x == 1.0 / 16
    free = newton(Scalar(lambda x: x * x, lambda x: 2.0 * x), 1.0, NewtonOptions(50))
    assert free.ok and free.iterations > 4


def test_the_contraction_rule_gives_each_variant_its_own_verdict() -> None:
    """contraction_verdict over an array of variants (Radau IIA's stages in a study) gives
    each element the verdict and the numbers it gets alone as floats (newton()'s rate
    rule): one rule for both, element by element to the last bit."""
    from solver.algebra.newton import contraction_verdict
    s1 = np.array([1e-3, 0.5, 2e-2, np.nan, 1e-9, 3e-1])
    last = np.array([1e-2, 0.4, 1e-1, 1e-2, 1e-6, 1e-1])
    last_ratio = np.array([0.05, 0.9, 0.3, 0.1, 0.001, 0.5])
    for it in range(4):
        many = contraction_verdict(it, s1, last, 0.02, last_ratio, 7 - it - 1, 0.1)
        for i in range(len(s1)):
            one = contraction_verdict(it, float(s1[i]), float(last[i]), 0.02,
                                      float(last_ratio[i]), 7 - it - 1, 0.1)
            for a, b in zip(many, one):
                a = np.broadcast_to(a, s1.shape)
                assert np.array_equal(a[i], b, equal_nan=True)
        assert many[3][3] and not many[2][3]       # a size that is not finite fails
    # the first step at a small rate converges on a small step; a contraction past 1 fails
    assert contraction_verdict(0, 1e-3, np.inf, 0.02, 0.02, 6, 0.1)[2]
    assert contraction_verdict(1, 0.5, 0.4, 0.02, 0.02, 5, 0.1)[3]
