"""The explicit Runge-Kutta steppers (solver/explicit.py): their tableaus satisfy the
consistency and quadrature order conditions, and at fixed steps on a nonlinear,
non-autonomous ODE the global error falls by 2^p when the step halves (p = 5 and 8)."""
from __future__ import annotations

import numpy as np
import pytest

from solver.integrators import explicit
from solver.integrators.explicit import DOP853, DoPri5


@pytest.mark.parametrize("cls, p", [(DoPri5, 5), (DOP853, 8)])
def test_tableau_conditions(cls, p: int) -> None:
    """c_i = sum_j a_ij; sum b_i c_i^(k-1) = 1/k for k <= p (the quadrature conditions);
    the error weights sum to 0 (difference of two consistent methods)."""
    np.testing.assert_allclose(cls.A.sum(axis=1), cls.C, atol=2e-15)
    for k in range(1, p + 1):
        assert abs(cls.B @ cls.C ** (k - 1) - 1.0 / k) <= 2e-15
    assert abs(cls.E.sum()) <= 2e-15
    assert np.all(np.triu(cls.A) == 0.0)                  # explicit


def test_dop853_third_order_estimator_is_a_quadrature() -> None:
    """The 3rd-order estimator's weights on stages 1, 9, 12 (c = 0, c9, 1) integrate 1, t, t^2."""
    c = explicit._C8[[0, 8, 11]]
    for k in range(1, 4):
        assert abs(explicit._BHH @ c ** (k - 1) - 1.0 / k) <= 2e-15


def forced_pendulum(t: float, y: np.ndarray) -> np.ndarray:
    return np.array([y[1], -np.sin(y[0]) + 0.5 * np.cos(2.0 * t), 1.0 + 0.0 * y[2]])


def integrate(cls, h: float, t1: float = 2.0) -> np.ndarray:
    st = cls(forced_pendulum)
    y, t = np.array([1.0, 0.0, 0.0]), 0.0
    for _ in range(int(round(t1 / h))):
        y, _ = st.step(t, y, forced_pendulum(t, y), h, lambda e, a, b: 0.0)
        t += h
    return y


@pytest.mark.parametrize("cls, p, h", [(DoPri5, 5, 0.1), (DOP853, 8, 0.4)])
def test_convergence_order(cls, p: int, h: float) -> None:
    """Errors at t = 2 against a DOP853 run with h = 1/400 (rounding, ~5e-15): the observed
    order log2(e(h) / e(h/2)) is within 0.4 of p (measured 4.97 from 3.6e-9 and 1.1e-10;
    8.14 from 2.2e-9 and 7.8e-12)."""
    ref = integrate(DOP853, 1.0 / 400)
    e1 = np.abs(integrate(cls, h) - ref).max()
    e2 = np.abs(integrate(cls, h / 2) - ref).max()
    assert e2 > 1e-12                                    # far above rounding
    assert abs(np.log2(e1 / e2) - p) <= 0.4


def test_dop853_error_estimate_tracks_the_local_error() -> None:
    """One step from the same state: the estimate shrinks with h like the true local
    error of a high-order pair does (at least by 2^5 per halving), and is non-zero."""
    y0 = np.array([1.0, 0.0, 0.0])
    ests = []
    for h in (0.4, 0.2):
        st = DOP853(forced_pendulum)
        _, err = st.step(0.0, y0, forced_pendulum(0.0, y0), h,
                         lambda e, a, b: float(np.sqrt(np.mean((e / 1e-10) ** 2))))
        ests.append(err)
    assert ests[1] > 0.0 and ests[0] / ests[1] >= 2 ** 5


def test_the_order_follows_the_tolerance() -> None:
    """The default tolerance (1e-6, local 1e-8) runs DOP853; a loose one (1e-3) 5(4)."""
    from tests.mechanisms import four_bar
    m = four_bar(driven=False)
    assert "8(5,3)" in m.solve(0.2, 24).method
    assert "5(4)" in m.solve(0.2, 24, tolerance=1e-3).method


def _oscillator(t, y):
    return np.array([y[1], -4.0 * y[0], -0.5 * y[2]])


def _oscillator_exact(t):
    return np.array([np.cos(2 * t), -2 * np.sin(2 * t), np.exp(-0.5 * t)])


@pytest.mark.parametrize("cls, ratio", [(DoPri5, 20), (DOP853, 150)])
def test_dense_output_is_exact_at_the_ends_and_of_its_local_order(cls, ratio: float) -> None:
    """The dense output within a step (Hairer-Norsett-Wanner II.6: DoPri5's continuous
    extension of order 4, Shampine's; DOP853's of order 7, contd8) is the step's start and
    end at theta = 0 and 1, and its largest error over the step against the exact solution
    of y'' = -4 y, z' = -z/2 falls with h as a local error of order 5 and 8 does: halving h
    divides it by about 2^5 = 32 (measured 29-32; at least 20 asserted) and 2^8 = 256 (at
    least 150)."""
    st, y0 = cls(_oscillator), np.array([1.0, 0.0, 1.0])
    worst = []
    for h in (0.4, 0.2, 0.1):
        ynew, _ = st.step(0.0, y0, _oscillator(0.0, y0), h, lambda e, a, b: 0.0)
        assert np.array_equal(st.dense(0.0), y0)
        assert np.abs(st.dense(1.0) - ynew).max() <= 1e-15
        worst.append(max(np.abs(st.dense(th) - _oscillator_exact(th * h)).max()
                         for th in np.linspace(0.0, 1.0, 21)))
    assert worst[0] / worst[1] > ratio and worst[1] / worst[2] > ratio


@pytest.mark.parametrize("cls, scipy_method", [(DoPri5, "RK45"), (DOP853, "DOP853")])
def test_dense_output_equals_scipys(cls, scipy_method: str) -> None:
    """The same interpolant as scipy's RK45 and DOP853 dense output (the published
    coefficients, written independently there) over one step of h = 0.4, to rounding."""
    solve_ivp = pytest.importorskip("scipy.integrate").solve_ivp
    y0 = np.array([1.0, 0.0, 1.0])
    sol = solve_ivp(_oscillator, (0.0, 0.4), y0, method=scipy_method, dense_output=True,
                    first_step=0.4, max_step=0.4, rtol=1.0, atol=1.0)
    assert list(sol.t) == [0.0, 0.4]                      # one step, as ours
    st = cls(_oscillator)
    st.step(0.0, y0, _oscillator(0.0, y0), 0.4, lambda e, a, b: 0.0)
    assert max(np.abs(sol.sol(th * 0.4) - st.dense(th)).max()
               for th in np.linspace(0.0, 1.0, 9)) <= 1e-14


def test_projection_takes_dopri5s_last_stage() -> None:
    """Dormand-Prince 5(4)'s new point is its last stage's state, so the projection after
    an accepted step finds that stage's rows and J M^-1 J^T (Equations._last) and evaluates
    no rows for its first Newton iteration; the run equals one whose projections evaluate
    everything anew, to the rounding of the Newton steps (far below the tolerance)."""
    from mechanisms import benchmark_chain
    from solver.analyses.dynamics import equations
    hits = []
    project = equations.Equations.project

    def spy(self, t, r, p, v, w):
        last = self._last
        pn = p / np.sqrt((p * p) @ np.ones(4))[:, None]
        hits.append(last is not None and np.array_equal(r, last[0]) and np.array_equal(pn, last[1]))
        return project(self, t, r, p, v, w)

    def anew(self, t, r, p, v, w):
        self._last = None
        return project(self, t, r, p, v, w)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(equations.Equations, "project", spy)
        res = benchmark_chain(6).solve(1.0, 24, tolerance=1e-3)
        mp.setattr(equations.Equations, "project", anew)
        ref = benchmark_chain(6).solve(1.0, 24, tolerance=1e-3)
    finally:
        mp.undo()
    assert res.method == DoPri5.name and res.steps == ref.steps
    assert sum(hits) >= res.steps - 1          # every projection after an accepted step
    for k in range(6):
        np.testing.assert_allclose(res.position(f"link{k}"), ref.position(f"link{k}"),
                                   rtol=0, atol=1e-12)
