"""The stiff path: analytic force Jacobians against
finite differences, the Radau IIA coefficients against their defining conditions, the
Newton rule with a contraction estimate, the step controller, the stiffness rate that
chooses the integrator (against the eigenvalues of the linearized constrained system),
and the governor of bench/bench_governor.py (the same builder, loaded from there, so the
test and the benchmark cannot drift apart).

Runs over about 1.5 s are marked ``slow`` (the governor).
"""
from __future__ import annotations

import copy
import importlib.util
import math
import os
from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import brentq

import mechanisms as mk
from solver import Mechanism, SolverError
from solver.algebra.newton import NewtonOptions, NewtonProblem, newton
from solver.analyses.start.assembly import assemble_pose
from solver.analyses.dynamics.driver import STIFF_RATE, choose_method
from solver.analyses.dynamics.equations import Equations
from solver.analyses.structure import structure
from solver.base.rotations import rotate_world
from solver.integrators.control import ErrorNorm, PredictiveControl, StandardControl, error_scale
from solver.integrators.implicit import RadauIIA, RadauStepper, radau_iia, stiffness_rate
from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
from solver.kernels.forces import force_jacobians, total_forces
from solver.study.stack import stack_models
from solver.model.compile import compile_model
from solver.model.state import read_state

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_bench_governor():
    """bench/bench_governor.py as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "bench_governor", os.path.join(ROOT, "bench", "bench_governor.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bg = load_bench_governor()


# ================================================================ 1. force Jacobians
def unit(*q: float) -> tuple[float, ...]:
    a = np.array(q, dtype=float)
    return tuple(a / np.linalg.norm(a))


def every_force(moving: bool) -> Mechanism:
    """Two parts in general positions (not assembled: the Jacobians do not care) with every
    force element kind and option: spring-dampers with preload, friction and an actuator of
    length and speed, a torsion spring with all terms on a cylindrical joint, loads in
    marker and world axes.  Moving: both parts translate and turn (velocity-dependent and
    gyroscopic terms); at rest: zero speeds, where the friction's tanh is steepest."""
    v = (lambda x: x) if moving else (lambda x: (0.0, 0.0, 0.0))
    m = Mechanism(gravity=(0, 0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("a", mass=2.0, inertia=(0.02, 0.03, 0.04), center_of_mass=(0.1, 0.02, -0.03),
               position=(0.2, 0.1, 0.0), orientation=unit(0.9, 0.1, -0.3, 0.2),
               velocity=v((0.3, -0.2, 0.5)), angular_velocity=v((1.0, -2.0, 3.0)))
    m.add_part("b", mass=1.0, inertia=(0.02, 0.025, 0.04), position=(0.5, -0.2, 0.3),
               orientation=unit(0.7, -0.2, 0.5, 0.1), velocity=v((-0.1, 0.4, 0.2)),
               angular_velocity=v((-1.5, 0.5, 2.0)))
    m.add_marker("O", "ground", position=(0.0, 0.1, 0.2), orientation=unit(0.8, 0.2, 0.1, -0.3))
    m.add_marker("A1", "a", position=(0.05, -0.1, 0.2), orientation=unit(0.6, 0.3, -0.4, 0.2))
    m.add_marker("A2", "a", position=(-0.1, 0.15, 0.05))
    m.add_marker("B1", "b", position=(0.2, 0.1, -0.1), orientation=unit(0.5, 0.5, 0.5, 0.5))
    m.add_marker("B2", "b", position=(-0.05, 0.2, 0.1))
    m.add_joint("j1", "spherical", "A1", "O")
    m.add_joint("j2", "cylindrical", "B1", "A1")
    m.add_spring_damper("sd1", "A2", "B2", stiffness=30.0, damping=2.0, free_length=0.3,
                        preload=5.0, friction=0.001)
    m.add_spring_damper("sd2", "B2", "O", stiffness=10.0, damping=1.0,
                        actuator="3*length**2 - speed*length + sin(t)")
    m.add_torsion_spring("ts", "j2", stiffness=4.0, damping=0.5, free_angle=0.3, preload=1.0,
                         friction=0.02, actuator="angle**2 * speed")
    m.add_force("f1", "B1", force=(1.0, "2*t", 3.0), torque=(0.5, -0.2, "t"), frame="marker")
    m.add_force("f2", "A2", force=(-2.0, 1.0, 0.5), torque=(0.1, 0.2, 0.3), frame="world")
    return m


def fd_jacobians(model, t: float, r, p, v, w, ts_ref, h: float = 1e-7):
    """dQ/dq and dQ/dv of total_forces by central differences, q = (r, world-axes turn)."""
    def Q(r_, p_, v_, w_):
        return total_forces(model, t, *body_arrays(model, r_, p_, v_, w_), ts_ref)[0].ravel()

    nb = model.nb
    K, C = np.zeros((6 * nb, 6 * nb)), np.zeros((6 * nb, 6 * nb))
    for b in range(nb):
        for k in range(3):
            e = np.zeros((nb, 3))
            e[b, k] = h
            K[:, 6 * b + k] = (Q(r + e, p, v, w) - Q(r - e, p, v, w)) / (2 * h)
            K[:, 6 * b + 3 + k] = (Q(r, rotate_world(p, e), v, w)
                                   - Q(r, rotate_world(p, -e), v, w)) / (2 * h)
            C[:, 6 * b + k] = (Q(r, p, v + e, w) - Q(r, p, v - e, w)) / (2 * h)
            C[:, 6 * b + 3 + k] = (Q(r, p, v, w + e) - Q(r, p, v, w - e)) / (2 * h)
    return K, C


@pytest.mark.parametrize("moving", [True, False], ids=["moving", "at-rest"])
def test_force_jacobians_match_finite_differences(moving: bool) -> None:
    """Analytic K = dQ/dq, C = dQ/dv (kernels/forces.py) against central differences with
    step h = 1e-7 (m, rad, m/s, rad/s).  The differences' error: rounding eps |Q| / h
    (2e-16 x O(50) / 1e-7 = 1e-7) plus truncation h^2/6 |Q'''|, largest at rest where
    the smoothed friction tanh(speed / V) bends hardest: 2 friction / V^3 = 4e7 for the
    torsion spring's 0.02 N m, so 7e-8.  Bound 1e-6, ten times their sum.  The terms
    checked are far larger: the moment arms' turn [F x][s x] about 0.5, the friction
    slopes at rest friction / V = 1 and 20, the gyroscopic terms about 0.1 (the largest
    entries 49 and 25)."""
    m = every_force(moving)
    model = compile_model(m)
    st = read_state(model, m)
    ts_ref = np.array([0.2])
    t = 0.7
    K, C = force_jacobians(model, t, *body_arrays(model, st.r, st.p, st.v, st.w), ts_ref)
    Kf, Cf = fd_jacobians(model, t, st.r, st.p, st.v, st.w, ts_ref)
    assert np.abs(K - Kf).max() <= 1e-6
    assert np.abs(C - Cf).max() <= 1e-6
    assert np.abs(Kf).max() > 10.0 and np.abs(Cf).max() > 1.0        # not a vacuous match


def test_force_jacobians_of_a_stack_are_each_states_own() -> None:
    """force_jacobians on a stack of states (a study's stiff variants, each its own spring
    rates) gives each state's K and C to the last bit, as one state at a time does; with
    an actuator or an applied load (one state at a time only) it refuses the stack."""
    m = every_force(True)
    for name in ("sd2", "f1", "f2"):
        getattr(m, "springs" if name.startswith("sd") else "loads").pop(name)
    m.torsion_springs["ts"] = replace(m.torsion_springs["ts"], actuator=None)
    variants = []
    for k in (30.0, 300.0, 3000.0):
        mv = copy.deepcopy(m)
        mv.springs["sd1"] = replace(mv.springs["sd1"], stiffness=k)
        variants.append(compile_model(mv))
    stacked = stack_models(variants)
    st = read_state(variants[0], m)
    rng = np.random.default_rng(4)
    r = st.r + 0.01 * rng.normal(size=(3,) + st.r.shape)
    p = np.stack([rotate_world(st.p, 0.1 * rng.normal(size=st.p.shape[:-1] + (3,)))
                  for _ in range(3)])
    v, w = rng.normal(size=r.shape), rng.normal(size=r.shape)
    ts_ref = np.full((3, 1), 0.2)
    K, C = force_jacobians(stacked, np.full(3, 0.7), *body_arrays(stacked, r, p, v, w), ts_ref)
    for i, model in enumerate(variants):
        Ki, Ci = force_jacobians(model, 0.7, *body_arrays(model, r[i], p[i], v[i], w[i]),
                                 ts_ref[i])
        assert np.array_equal(K[i], Ki) and np.array_equal(C[i], Ci)
    assert not np.array_equal(K[0], K[2])
    loaded = compile_model(every_force(True))
    with pytest.raises(ValueError, match="no actuators"):
        force_jacobians(loaded, np.full(3, 0.7), *body_arrays(loaded, r, p, v, w), ts_ref)


@pytest.mark.parametrize("robust", [False, True], ids=["exact", "least-norm"])
def test_stage_batch_matches_single_states(robust: bool) -> None:
    """The implicit stages' right-hand sides in one call (``Equations.rhs`` with a leading
    stage axis: one set of numpy calls for the kinematics, the force elements, the motions
    and the Schur solves) equal the calls one state at a time.  Five states around the
    start (positions, turns and speeds perturbed by up to 0.05), every force element kind
    and a driven coordinate; the exact and the least-norm (singular position) solves.
    Bound 1e-12 of the largest entry: the same operations, in batched matmuls whose
    summation order may differ (rounding 1e-16 per operation, entries about 1e2)."""
    m = every_force(moving=True)
    m.add_motion("drive", "j2", "0.3*sin(2*t)")
    model = compile_model(m)
    st = read_state(model, m)
    sysm = Equations(model, structure(model, st.r, st.p))
    sysm.tell(sysm.run.solving(robust))
    y0 = sysm.pack(st.r, st.p, st.v, st.w, 0.0)
    rng = np.random.default_rng(3)
    ts = 0.4 + 0.05 * np.arange(5)
    Y = y0[None, :] + 0.05 * rng.uniform(-1, 1, (5, len(y0)))
    batch = sysm.rhs(ts, Y)
    single = np.array([sysm.rhs(t, y) for t, y in zip(ts, Y)])
    assert batch.shape == single.shape == Y.shape
    assert np.abs(batch - single).max() <= 1e-12 * np.abs(single).max()
    assert np.abs(single[0] - single[1]).max() > 1e-3       # the states do differ


# ================================================================ 2. Radau IIA
@pytest.mark.parametrize("s", [3, 5])
def test_radau_coefficients(s: int) -> None:
    """Radau IIA: c_s = 1 and c the zeros of P_s(2x-1) - P_(s-1)(2x-1); collocation
    C(s): sum_j a_ij c_j^(k-1) = c_i^k / k; quadrature B(2s-1) for b = the last row of A;
    the embedded estimate's weights (gamma0 on f(y0), b_hat on the stages) integrate
    polynomials up to degree s-1 exactly (order s); for s = 3 the known values of
    Hairer-Wanner IV.5 Table 5.6 and RADAU5's eigenvalues of A^-1 (3.6378, 2.6811 +- 3.0504 i)."""
    c, A, lam, T, gamma0, d = radau_iia(s)
    assert abs(c[-1] - 1.0) < 1e-14
    for k in range(1, s + 1):
        assert np.abs(A @ c ** (k - 1) - c ** k / k).max() < 1e-13
    for k in range(1, 2 * s):
        assert abs(A[-1] @ c ** (k - 1) - 1.0 / k) < 1e-13
    assert np.abs(T @ np.diag(lam) @ np.linalg.inv(T) - np.linalg.inv(A)).max() < 1e-10
    b_hat = d @ A + A[-1]                       # d = (b_hat - b) A^-1
    for k in range(1, s + 1):
        assert abs(b_hat @ c ** (k - 1) + (gamma0 if k == 1 else 0.0) - 1.0 / k) < 1e-12
    if s == 3:
        r6 = math.sqrt(6.0)
        assert np.abs(c - [(4 - r6) / 10, (4 + r6) / 10, 1.0]).max() < 1e-15
        assert abs(1.0 / gamma0 - 3.637834252744496) < 1e-12
        assert np.abs(np.sort_complex(lam) - np.sort_complex(
            [2.681082873627752 - 3.050430199247411j, 2.681082873627752 + 3.050430199247411j,
             3.637834252744496])).max() < 1e-12


# ================================================================ 3. Newton and step control
class Contraction(NewtonProblem):
    """x = 0 by the steps -(1 - theta) x: the error shrinks by theta each step."""

    def __init__(self, theta: float) -> None:
        self.theta = theta

    def residual(self, x):
        return None, x

    def solve(self, x, data):
        return -(1.0 - self.theta) * x

    def move(self, x, dx, alpha):
        return x + dx

    def size(self, x1, dx, alpha):
        return abs(dx)


def contraction(theta: float, x0: float = 1.0):
    """A simplified Newton whose error shrinks by theta each step (root 0): residual not
    measured, the step's size is |dx|."""
    return newton(Contraction(theta), x0, NewtonOptions(10, step_tol=1e-3, rate=0.5))


def test_newton_rate_rule_stops_on_the_predicted_error() -> None:
    """theta = 0.2: steps 0.8, 0.16, 0.032, 0.0064, 0.00128; theta / (1 - theta) size first
    <= 1e-3 after the fifth (3.2e-4), which is then exactly the error left (x = 0.2^5);
    the rule without a rate (step <= 1e-3) would take a sixth step."""
    out = contraction(0.2)
    assert out.ok and out.iterations == 5
    assert out.x == pytest.approx(0.2 ** 5, rel=1e-12)
    assert out.rate == pytest.approx(0.2, rel=1e-9)


def test_newton_rate_rule_gives_up_early() -> None:
    """theta = 0.95 would need about 130 steps for 1e-3: the forecast
    theta^(steps left) / (1 - theta) size > tol fails it at step 3 instead of step 10;
    theta = 1.2 (diverging) fails at step 2."""
    slow = contraction(0.95)
    assert not slow.ok and slow.iterations == 3
    away = contraction(-1.2)
    assert not away.ok and away.iterations == 2


class _Stepper:
    def __init__(self, iterations: int = 2, keeps: bool = True) -> None:
        self.newton_iterations, self.newton_max, self.keeps_matrix = iterations, 7, keeps


def test_step_controllers() -> None:
    """Standard: 0.9 err^(-1/(q+1)) within [0.2, 5]; the step to try stops at the output
    time.  Predictive (Gustafsson, as RADAU5): h kept when the new one would be within a
    factor 1.2 above (the factorizations stay), unless the stepper drops its Jacobian; an
    error that grew between two accepted steps cuts the next step below the standard
    proposal; a failed Newton halves h; no sliver steps before an output time."""
    std = StandardControl(7)
    assert std.accepted(0.01, 1e-16, None) == pytest.approx(0.05)
    assert std.accepted(0.01, 0.5, None) == pytest.approx(0.01 * 0.9 * 0.5 ** -0.125)
    assert std.rejected(0.01, np.inf, None) == pytest.approx(0.001)
    assert std.trial(0.01, 0.004) == 0.004 and std.trial(0.01, 0.015) == 0.01
    pc = PredictiveControl(5)
    fac = 0.9 * 15 / 16
    h1 = pc.accepted(0.01, 0.6, _Stepper())
    assert h1 == pytest.approx(0.01 * fac / 0.6 ** (1 / 6))
    assert pc.accepted(0.01, 0.9, _Stepper()) < 0.01 * fac / 0.9 ** (1 / 6)   # error grew
    keep = PredictiveControl(5)
    err = (fac * 0.95) ** 6                    # standard proposal: 1 / 0.95 = 1.05 h
    assert keep.accepted(0.01, err, _Stepper()) == 0.01
    assert PredictiveControl(5).accepted(0.01, err, _Stepper(keeps=False)) > 0.01
    assert pc.rejected(0.01, np.inf, _Stepper()) == 0.005
    assert pc.trial(0.01, 0.015) == pytest.approx(0.0075) and pc.trial(0.01, 0.025) == 0.01


class _SameModel:
    """One model's equations as RadauIIA's system for several states at once (the states
    on a leading axis through the same kernels a study's stacked equations use)."""

    def __init__(self, sysm: Equations) -> None:
        self.eq = sysm

    def own(self, i: int) -> Equations:
        return self.eq

    def stages(self, ts, Y, act):
        F = self.eq.rhs(ts.reshape(-1), Y.reshape(-1, Y.shape[-1])).reshape(Y.shape)
        return F, np.zeros(len(Y), dtype=bool)


def test_radau_over_variants_steps_each_as_its_own_run() -> None:
    """RadauIIA over a variant axis: the spinning governor (its state at 0.5 s) taken by
    three variants in one stepper, two stepping with their own step sizes (from 10 ms and
    40 ms, halved after a rejected step, grown by 1.3 after an accepted one) and one not
    stepping, for eight steps: the two take each the bits of the one-run stepper
    (RadauStepper, V = 1) on the same steps (ends, error norms, Newton iterations, dense
    output: their accepted, rejected and failed steps, Jacobian rebuilds and
    refactorizations differ, so the masks and the per-variant state are exercised), and
    the one not stepping keeps its state (err NaN).  Bitwise: a variant of a study must
    equal its separate run to the last bit."""
    mech = bg.governor()
    spun = mech.solve(0.5, fps=24)
    sysm = system_at_start(mech)[0]
    y0 = sysm.pack(spun._r[-1], spun._p[-1], spun._v[-1], spun._w[-1], 0.0)
    t0 = float(spun.times[-1])
    norm = ErrorNorm(error_scale(sysm.pack, sysm.m.body_size, sysm.nb), 1e-8)

    def next_h(h, err):
        return np.where(err <= 1.0, 1.3 * h, 0.5 * h)
    alone = []
    for h in (1e-2, 4e-2):
        stepper, t, y, steps = RadauStepper(sysm), t0, y0, []
        for _ in range(8):
            y1, err = stepper.step(t, y, sysm.rhs(t, y), h, norm)
            steps.append((y1, err, stepper.newton_iterations, stepper.dense(0.3)))
            if err <= 1.0:
                t, y = t + h, y1
            h = float(next_h(h, err))
        alone.append(steps)
    together = RadauIIA(_SameModel(sysm), 3)
    t, y, h = np.full(3, t0), np.stack([y0] * 3), np.array([1e-2, 4e-2, 1.0])
    live = np.array([True, True, False])
    for k in range(8):
        f0 = np.stack([sysm.rhs(float(t[i]), y[i]) for i in range(3)])
        y1, err = together.step(t, y, f0, h, norm, live)
        for i in range(2):
            y_alone, err_alone, its, dense = alone[i][k]
            assert np.array_equal(y1[i], y_alone) and err[i] == err_alone, (k, i)
            assert together.iters[i] == its and np.array_equal(together.dense(0.3, i), dense)
        assert np.array_equal(y1[2], y[2]) and np.isnan(err[2])
        ok = live & (err <= 1.0)
        t, y = np.where(ok, t + h, t), np.where(ok[:, None], y1, y)
        h = np.where(live, next_h(h, err), h)
    accepted = [sum(e <= 1.0 for _, e, _, _ in steps) for steps in alone]
    assert all(0 < n < 8 for n in accepted), accepted       # accepted and rejected steps
    assert any(e == np.inf for steps in alone for _, e, _, _ in steps)    # a failed Newton
    assert len({its for steps in alone for _, _, its, _ in steps}) > 1


# ================================================================ 4. which integrator
def system_at_start(mech: Mechanism):
    """The dynamics workspace and its start state (assembled, velocities projected), as
    dynamic_run has them when it chooses the integrator."""
    model = compile_model(mech)
    st = read_state(model, mech)
    asm = assemble_pose(model, st.r, st.p, 0.0)
    start = replace(st, t=0.0).moved(asm.r, asm.p)
    sysm = Equations(model, asm.structure or structure(model, start.r, start.p))
    return sysm, sysm.project(0.0, start.r, start.p, start.v, start.w)[:4]


def exact_rate(sysm: Equations, r, p, v, w) -> float:
    """Largest |lambda| of [[0, I], [S K, S C]] by a dense eigen-solve (S: the constrained
    inverse mass), what stiffness_rate estimates by power iteration."""
    m = sysm.m
    rg, A, vg, wg = body_arrays(m, r, p, v, w)
    K, C = force_jacobians(m, 0.0, rg, A, vg, wg, sysm.run.ts_ref)
    J = global_jacobian(m, evaluate(m, rg, A).jac)[sysm.keep]
    n = K.shape[0]
    Mi = np.zeros((n, n))
    for b, blk in enumerate(sysm.minv(A[: sysm.nb])):
        Mi[6 * b: 6 * b + 6, 6 * b: 6 * b + 6] = blk
    S = Mi - Mi @ J.T @ np.linalg.pinv(J @ Mi @ J.T) @ J @ Mi
    return float(np.abs(np.linalg.eigvals(np.block([[np.zeros((n, n)), np.eye(n)],
                                                    [S @ K, S @ C]]))).max())


def damped_slider(c: float, k: float = 0.0) -> Mechanism:
    """1 kg on a horizontal rail, a damper c (and spring k) to an anchor 0.1 m ahead."""
    return mk.rail_slider("x", part="s", position=(-0.1, 0, 0), anchor=(0, 0, 0), spring="d",
                          damping=c, stiffness=k, gravity=(0, 0, 0))


@pytest.mark.parametrize("k", [0.0, 10.0])
def test_heavy_damper_on_a_light_part_is_stiff(k: float) -> None:
    """1 kg on 1e4 N s/m: the constrained system decays at c/m = 1e4 1/s (its other root,
    -k/c, is slow), far above STIFF_RATE, so the implicit method is chosen, with a soft
    spring (sqrt(k/m) = 3 1/s) or none.  The estimate matches c/m to 1% (measured 1e-6)."""
    sysm, state = system_at_start(damped_slider(1e4, k))
    rate = stiffness_rate(sysm, 0.0, *state)
    assert rate == pytest.approx(1e4, rel=1e-2)
    assert rate > STIFF_RATE
    assert choose_method(sysm, 0.0, *state, "auto") == "implicit"


def test_explicit_run_refused_where_its_stability_needs_too_many_steps() -> None:
    """1 kg on a 2e6 N s/m damper beside a 1 N/m spring, overdamped a millionfold: its fast
    root -c/m = -2e6 1/s holds Dormand-Prince 8(5,3) to steps of 3e-6 s (h |lambda| <= 6),
    333,333 of them for 1 s, about a minute of work for each 1/24 s frame.  Forced explicit,
    the run stops at once naming the damper and what to use; "auto" takes Radau IIA and
    ends at the closed form x(t) = x0 + v0 (e^(s1 t) - e^(s2 t)) / (s1 - s2) of the
    released slider, s1,2 the roots of s^2 + c s + k = 0 (within 1e-9 m of a 0.5 um move:
    measured 2e-17)."""
    c, k, v0 = 2e6, 1.0, 1.0
    slider = mk.rail_slider("x", part="s", position=(-0.1, 0, 0), velocity=(v0, 0, 0),
                            anchor=(0, 0, 0), spring="d", damping=c, stiffness=k,
                            gravity=(0, 0, 0))
    with pytest.raises(SolverError, match=r"method 'explicit'.*'d'.*333,333 steps.*implicit") as err:
        slider.solve(duration=1.0, fps=24, analysis="dynamic", method="explicit")
    assert err.value.joints == ("d",)
    r = slider.solve(duration=1.0, fps=24, analysis="dynamic")
    s1, s2 = np.roots([1.0, c, k])
    t = r.times
    moved = v0 * (np.exp(s1 * t) - np.exp(s2 * t)) / (s1 - s2)
    assert np.abs(r.position("s")[:, 0] - (-0.1 + moved)).max() < 1e-9


@pytest.mark.parametrize("build, stiff", [
    (lambda: damped_slider(100.0, 10.0), False),                    # c/m = 100 1/s
    (lambda: mk.rail_slider("z", part="s", position=(0, 0, -0.5), spring="shock",
                            stiffness=100.0, damping=2.0), False),   # sqrt(k/m) = 10 1/s
    (lambda: bg.governor(k=1e3, c=50.0), False),                    # soft sleeve spring
    (lambda: bg.governor(), True),                                  # the stiff governor
    (lambda: mk.rail_slider("z", part="s", position=(0, 0, -0.1), rail=(0, 0, -0.1),
                            anchor=(0, 0, 0), spring="sd", stiffness=1e6, damping=1e3,
                            free_length=0.1), True),                # sqrt(k/m) = 1000 1/s
], ids=["light-damper", "soft-spring", "soft-governor", "governor", "stiff-spring"])
def test_stiffness_rate_against_eigenvalues(build, stiff: bool) -> None:
    """The power-iteration rate (a large mechanism's) agrees with the dense eigenvalues of
    the linearized constrained system to 5% (measured within 3%: a complex pair's growth
    averages out slowly), a small one's is those eigenvalues' (solved densely), and the
    choice follows it: ordinary mechanisms stay explicit."""
    sysm, state = system_at_start(build())
    exact = exact_rate(sysm, *state)
    assert stiffness_rate(sysm, 0.0, *state, dense_up_to=0) == pytest.approx(exact, rel=5e-2)
    rate = stiffness_rate(sysm, 0.0, *state)
    assert rate == pytest.approx(exact, rel=1e-9)
    assert choose_method(sysm, 0.0, *state, "auto") == ("implicit" if stiff else "explicit")


# ================================================================ 5. the governor
def governor_lift() -> float:
    """The sleeve's rise at full speed w in steady rotation, by hand.  With the arm angle a
    from the spindle, the balls (mass m, centre a_c = 0.3 m along the arm from pivots e =
    0.03 m off the axis) at radius e + a_c sin a, and the sleeve at z_s = H - 2 b cos a
    (links as long as the elbow distance b = 0.15 m), the balance in the turning frame is
    2 (-m w^2 (e + a_c sin a) a_c cos a + m g a_c sin a) + (m_s g + k dz) 2 b sin a = 0 with
    dz = 2 b (cos a0 - cos a); the balls' inertia is isotropic, so it adds nothing."""
    m, ms, k, w = bg.BALL, bg.SLEEVE, bg.K_SLEEVE, bg.SPEED
    ac, b, e, a0 = 0.3, 0.15, 0.03, math.radians(30.0)

    def balance(a: float) -> float:
        dz = 2 * b * (math.cos(a0) - math.cos(a))
        return (2 * (-m * w * w * (e + ac * math.sin(a)) * ac * math.cos(a)
                     + m * mk.G * ac * math.sin(a)) + (ms * mk.G + k * dz) * 2 * b * math.sin(a))

    a = brentq(balance, a0 - 0.01, a0 + 0.01, xtol=1e-15)
    return 2 * b * (math.cos(a0) - math.cos(a))


@pytest.mark.slow
def test_governor_takes_accuracy_steps() -> None:
    """The issue's governor (bench/bench_governor.py: sleeve on 1e6 N/m and 5e4 N s/m,
    light balls, spun up to 180 rpm over the first second), 1.5 s at the default
    tolerance.  The implicit method is chosen (rate 2.6e4 1/s) and its steps are set by the
    accuracy of the spin-up and the spin, not by the stiff mode: explicit Dormand-Prince
    needs 3550 steps a second here, the SDIRK4 used before 830 (8294 in 10 s); bound 300
    (measured 121).  Energy balance KE + PE - W (the damper and the engine's drive) to
    1e-6 of the energy exchanged, the run's tolerance goal (measured 1.3e-9).  Half a
    second after the spin-up the sleeve sits where the hand balance puts it, 37.43 um up
    (the slow mode k / c_eff decays in about 0.05 s): to 1e-4 of the rise (measured 7e-7)."""
    r = bg.governor().solve(1.5, fps=24)
    assert "implicit" in r.method
    assert r.steps < 300
    assert bg.energy_error(r) <= 1e-6
    lift = r.position("sleeve")[-1, 2] - r.position("sleeve")[0, 2]
    assert abs(lift - governor_lift()) <= 1e-4 * governor_lift()


def stiff_settling_pendulum() -> Mechanism:
    """A 50 g arm on a 20 N m/rad torsion spring (a millimetre-scale part on a stiff spring:
    the implicit method's case), released 0.5 rad off and damped to rest within a second."""
    m = mk.pendulum(axis="y", mass=0.05, inertia=(1e-6, 1e-6, 1e-6), center_of_mass=(0.05, 0, 0),
                    angle=0.5)
    m.add_torsion_spring("hinge", "pin", stiffness=20.0, damping=0.5)
    return m


@pytest.mark.slow
def test_the_implicit_method_at_rest_steps_past_its_frames(monkeypatch) -> None:
    """Radau IIA at rest over 2,400 frames: with every frame a step's end it takes one step
    a frame (not two: the step size grows again after steps cut to a frame), and where the
    steps outgrow the frames they run past them, the frames being the steps' collocation
    polynomials (dynamics.LONG_STEP), projected: a tenth of the steps, the same frames to
    1e-11 m, the energy balance within 1e-8 of the energy released."""
    m, times = stiff_settling_pendulum(), np.arange(2400) / 24.0
    r = m.solve(times=times)
    assert r.method.startswith("implicit")
    monkeypatch.setattr("solver.analyses.dynamics.driver.LONG_STEP", float("inf"))
    monkeypatch.setattr("solver.analyses.dynamics.frames.REST_SPEED", -1.0)   # integrated to the end
    cut = m.solve(times=times)
    monkeypatch.undo()
    assert 2399 <= cut.steps <= 2500 and r.steps < cut.steps / 10
    assert np.abs(r.position("bob") - cut.position("bob")).max() <= 1e-11
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() <= 1e-8 * np.ptp(pe)


def test_a_restarted_radau_step_is_a_fresh_steppers_step() -> None:
    """Where the right-hand side jumps (an impact, a slip reversal, a breakpoint) the run
    restarts its Radau IIA stepper: the next step forgets the steps before it (their
    collocation polynomial extrapolated across the jump as its starting guess, Newton's
    last rate, the Jacobian of the system before) and equals a fresh stepper's step from
    the same point to the last bit."""
    mech = bg.governor()
    spun = mech.solve(0.3, fps=24)
    sysm = system_at_start(mech)[0]
    y0 = sysm.pack(spun._r[-1], spun._p[-1], spun._v[-1], spun._w[-1], 0.0)
    t0, h = float(spun.times[-1]), 1e-2
    norm = ErrorNorm(error_scale(sysm.pack, sysm.m.body_size, sysm.nb), 1e-8)
    used = RadauStepper(sysm)
    t, y = t0, y0
    for _ in range(3):                  # steps to remember
        y1, err = used.step(t, y, sysm.rhs(t, y), h, norm)
        t, y = (t + h, y1) if err <= 1.0 else (t, y)
    kept = used.step(t, y, sysm.rhs(t, y), h, norm)
    used.restart()
    again = used.step(t, y, sysm.rhs(t, y), h, norm)
    fresh = RadauStepper(sysm).step(t, y, sysm.rhs(t, y), h, norm)
    assert np.array_equal(again[0], fresh[0]) and again[1] == fresh[1]
    assert not np.array_equal(kept[0], fresh[0])    # (the memory did change the step)
