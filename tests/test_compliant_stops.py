"""Compliant joint stops in the manner of Adams' IMPACT function: a block dropped
on a vertical prismatic joint onto a compliant lower stop. Undamped, the peak penetration
solves the energy balance m g (h + delta) = k delta^(n+1) / (n+1) and the block rebounds to
its height; damped, the push never turns into a pull, and kinetic + potential - work stays
constant with the stop's work booked; statics rests the block at delta = (m g / k)^(1/n); a
door swings onto a compliant angle stop; the implicit integrator agrees with the explicit
one; bad settings are named."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from solver import Mechanism, MechanismError
from test_limits import door

G = 9.81


def dropped_block(h: float = 0.1, k: float = 1e5, n: float = 1.5, c: float = 0.0,
                  d: float | None = 1e-3, mass: float = 1.0) -> Mechanism:
    """A block on a vertical prismatic joint, its slide h above a compliant stop at 0."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=mass, inertia=(1e-3, 1e-3, 1e-3), position=(0.0, 0.0, h))
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "block")
    m.add_joint("drop", "prismatic", "shoe", "rail")
    m.add_limit("floor", "drop", lower=0.0, stiffness=k, exponent=n, damping=c, penetration=d)
    return m


def peak_penetration(h: float, k: float, n: float, mass: float) -> float:
    """delta with m g (h + delta) = k delta^(n+1) / (n+1) (no damping)."""
    return brentq(lambda x: k * x ** (n + 1) / (n + 1) - mass * G * (h + x), 1e-12, 1.0, xtol=1e-15)


def parabola_min(t: np.ndarray, z: np.ndarray) -> tuple[float, float]:
    """The extremum of the parabola through the sample nearest an extremum and its
    neighbours (time, value)."""
    i = int(np.argmin(z))
    a, b, c = np.polyfit(t[i - 1: i + 2] - t[i], z[i - 1: i + 2], 2)
    return t[i] - b / (2 * a), c - b * b / (4 * a)


@pytest.mark.parametrize("method", ["explicit", "implicit"])
@pytest.mark.slow
def test_peak_penetration_matches_the_energy_balance(method: str) -> None:
    """Undamped stop k = 1e5 N/m^1.5, n = 1.5, a 1 kg block from 0.1 m: the lowest point
    (a parabola through the 0.1 ms frames around it: its error ~ jerk dt^3 ~ 1e-10 m) is at
    -delta of the energy balance to 1e-6 relative (tolerance 1e-9), the stop's force there
    is k delta^n, and the block rises back to 0.1 m (energy conserved through the contact,
    to 1e-6 of h)."""
    h, k, n, mass = 0.1, 1e5, 1.5, 1.0
    delta = peak_penetration(h, k, n, mass)
    t_hit = math.sqrt(2 * h / G)
    times = np.concatenate([[0.0], np.arange(t_hit - 0.002, t_hit + 0.05, 1e-4), [2 * t_hit + 0.03]])
    r = dropped_block(h, k, n).solve(times=times, analysis="dynamic", tolerance=1e-9, method=method)
    z = r.position("block")[:, 2]
    t_low, z_low = parabola_min(r.times[1:-1], z[1:-1])
    assert z_low == pytest.approx(-delta, rel=1e-6)
    F = r.limit("floor")
    i = int(np.argmin(z))
    np.testing.assert_allclose(F[i], k * (-z[i]) ** n, rtol=1e-9)
    assert np.all(F[z > 0] == 0.0) and np.all(F >= 0.0)
    # the rebound: free flight after leaving the stop at the speed it arrived with
    v_out = r.velocity("block")[-1, 2]
    height = z[-1] + v_out ** 2 / (2 * G)
    assert height == pytest.approx(h, rel=1e-6)
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-6 * mass * G * h


@pytest.mark.slow
def test_damped_stop_never_pulls_and_books_its_work() -> None:
    """Heavy damping (c_max = 2000 N s/m reached at 1 mm): the push is never negative (the
    max(0, ...) of IMPACT: the damping term would pull as the block rebounds), the block
    rebounds lower than it fell (or rests), and kinetic + potential - work is constant to 1e-6
    of m g h with the stop's work (the elastic part returned, the damping lost) booked."""
    h, mass = 0.1, 1.0
    r = dropped_block(h, k=1e5, n=1.5, c=2000.0, d=1e-3).solve(duration=1.0, fps=250,
                                                                analysis="dynamic", tolerance=1e-8)
    F = r.limit("floor")
    assert F.min() >= 0.0 and F.max() > mass * G
    z = r.position("block")[:, 2]
    assert z[len(z) // 2:].max() < 0.5 * h
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-6 * mass * G * h
    assert work[-1] < -0.5 * mass * G * h          # most of the energy went into the damper


def test_statics_rests_on_a_compliant_stop() -> None:
    """Statics from the block 0.1 m up: it comes down onto the stop and rests where the stop
    carries its weight, delta = (m g / k)^(1/n), the limit's force m g."""
    k, n, mass = 1e5, 1.5, 2.0
    m = dropped_block(0.001, k, n, mass=mass)
    r = m.statics()
    z = r.position("block")[0, 2]
    assert -z == pytest.approx((mass * G / k) ** (1 / n), rel=1e-9)
    assert r.limit("floor")[0] == pytest.approx(mass * G, rel=1e-9)


def test_door_onto_a_compliant_angle_stop() -> None:
    """A door (10 kg, 0.8 m wide, vertical hinge) pulled shut by a damped torsion closer onto a
    compliant stop at 0 (k = 500 N m/rad, 20 N m s/rad from 1 mrad: a damping ratio near 0.3
    at rest): it comes to rest at the angle where the
    stop balances the closer, k_s (-theta) = k_c (theta - theta_0) (linear stop), and the
    stop's torque there equals the closer's."""
    th0, kc, ks = math.radians(-20.0), 20.0, 500.0
    m = door(kc, opened=60.0, closer_damping=5.0, stiffness=ks, exponent=1.0, damping=20.0,
             penetration=0.001)
    r = m.solve(duration=8.0, fps=50, analysis="dynamic", tolerance=1e-7)
    q = r.orientation("door")[-1]
    theta = 2 * math.atan2(q[3], q[0])
    expect = kc * th0 / (kc + ks)                  # ks (-theta) = kc (theta - th0)
    assert theta == pytest.approx(expect, rel=1e-4)
    assert r.limit("stop")[-1] == pytest.approx(ks * -expect, rel=1e-4)
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-6 * kc * th0 ** 2


def test_kinematic_sweep_pushes_into_a_compliant_stop() -> None:
    """The block's slide driven down through the compliant floor at 0.1 m/s (a motion from
    1 cm above, no bounce in a sweep): past the floor the stop pushes k delta^n + c(delta)
    delta' (delta = 0.1 t - 0.01, c reaching c_max at d = 1 mm by the cubic step), so the
    motion's effort (upward) is m g, holding the block, minus that, and Result.limit is the stop's push, exactly (1e-9
    relative: the sweep's poses meet the motion to rounding); zero above the floor.  A
    rigid stop there stops the sweep (test_limits.py)."""
    m = dropped_block(h=0.01, k=1e5, n=1.5, c=50.0, d=1e-3)
    m.add_motion("press", "drop", "0.01 - 0.1*t", coordinate="slide")
    r = m.solve(duration=0.2, fps=100)
    assert r.analysis == "kinematic"
    delta = np.maximum(0.1 * r.times - 0.01, 0.0)
    s = np.clip(delta / 1e-3, 0.0, 1.0)
    push = 1e5 * delta ** 1.5 + 50.0 * s * s * (3.0 - 2.0 * s) * 0.1
    np.testing.assert_allclose(r.limit("floor"), push, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(r.effort("press"), 1.0 * G - push, rtol=1e-9)
    assert push[-1] > 100.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(stiffness=-1.0), "stiffness must be positive"),
    (dict(stiffness=1e4, exponent=0.0), "exponent must be positive"),
    (dict(stiffness=1e4, damping=-1.0), "damping must not be negative"),
    (dict(stiffness=1e4, penetration=0.0), "penetration depth of full damping must be positive"),
    (dict(damping=10.0), "compliant stop's setting"),
])
def test_bad_compliant_settings_are_named(kwargs, message: str) -> None:
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=1.0, inertia=(1, 1, 1))
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "block")
    m.add_joint("slide", "prismatic", "shoe", "rail")
    with pytest.raises(MechanismError, match=message) as exc:
        m.add_limit("end", "slide", lower=-1.0, **kwargs)
    assert "'end'" in str(exc.value)
    assert not m.limits


def test_the_default_depth_of_full_damping_is_unrelated_to_far_markers() -> None:
    """A damped compliant stop without a penetration given damps fully at 1e-3 m, whatever
    else the mechanism holds: the block's rebound is the same with an unused ground marker
    100 m away (it moved the depth to 0.1 m, a model-size share, and the rebound with it)
    and the same as with penetration=1e-3 given (to the integrator's 1e-9)."""
    def top(d, far):
        m = dropped_block(c=200.0, d=d)
        if far:
            m.add_marker("far", "ground", position=(100.0, 0.0, 0.0))
        r = m.solve(duration=0.4, fps=200, analysis="dynamic", tolerance=1e-10)
        return r.position("block")[:, 2]
    given, alone, far = top(1e-3, False), top(None, False), top(None, True)
    assert np.abs(alone - given).max() < 1e-9 and np.abs(far - given).max() < 1e-9
    assert given[-40:].max() < 0.1 * 0.9          # the damping took energy out
