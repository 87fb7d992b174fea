"""The stiff path (issue 11, "stiff without crawling"): analytic force Jacobians against
finite differences, and the Newton rule with a contraction estimate that the implicit
stages use."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism
from solver.algebra.newton import newton
from solver.base.rotations import rotate_world
from solver.kernels.constraints import body_arrays
from solver.kernels.forces import force_jacobians, total_forces
from solver.model.compile import compile_model
from solver.model.state import read_state


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


# ================================================================ 2. Newton's rate rule
def contraction(theta: float, x0: float = 1.0):
    """A simplified Newton whose error shrinks by theta each step (root 0): residual not
    measured, the step's size is |dx|."""
    return newton(x0, lambda x: (None, x), lambda x, _: -(1.0 - theta) * x,
                  lambda x, dx, a: x + dx, lambda x1, dx, a: abs(dx), 10,
                  step_tol=1e-3, rate=0.5)


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
