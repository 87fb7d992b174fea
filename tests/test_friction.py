"""Joint friction with sticking (issue 13) against closed forms: a block on an incline
sticks below the friction angle and slides with a = g (sin a - mu_d cos a) above it; a
pressing load raises the friction (it grows with the joint's reaction); a pendulum with a
dry pin loses 2 mu r / L of amplitude per half swing and stops inside its dead band; the
energy balance includes what friction dissipates; bad input is named."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError

G = 9.81


def incline(alpha_deg: float, mu_s: float, mu_d: float, press: float = 0.0) -> Mechanism:
    """A 2 kg block on a prismatic joint down an incline of alpha (the slide's z axis points
    down-slope in the world xz plane), dry friction on the slide; ``press`` N pushes it onto
    the incline (along the incline's inward normal)."""
    a = math.radians(alpha_deg)
    b = math.pi / 2 + a                      # turns z to (cos a, 0, -sin a): down the slope
    q = (math.cos(b / 2), 0.0, math.sin(b / 2), 0.0)
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=2.0, inertia=(0.01, 0.01, 0.01))
    m.add_marker("way", "ground", orientation=q)
    m.add_marker("shoe", "block", orientation=q)
    m.add_joint("slide", "prismatic", "shoe", "way")
    m.add_friction("dry", "slide", static=mu_s, dynamic=mu_d, transition_speed=1e-9)
    if press:
        m.add_force("press", "shoe", force=(-press * math.sin(a), 0.0, -press * math.cos(a)))
    return m


def slide_of(r, alpha_deg: float) -> np.ndarray:
    a = math.radians(alpha_deg)
    x = r.position("block")
    return x[:, 0] * math.cos(a) - x[:, 2] * math.sin(a)


def test_block_sticks_below_the_friction_angle() -> None:
    """20 deg < atan(0.6): held for 10 s with drift below 1e-9 m; the friction holding it is
    m g sin a, within mu_s m g cos a."""
    r = incline(20.0, 0.6, 0.5).solve(duration=10.0, fps=10, analysis="dynamic")
    assert np.abs(slide_of(r, 20.0)).max() < 1e-9
    np.testing.assert_allclose(r.friction("dry"), -2.0 * G * math.sin(math.radians(20.0)), rtol=1e-9)


@pytest.mark.parametrize("press", [0.0, 2.0])
def test_block_slides_above_it_with_dynamic_friction(press: float) -> None:
    """35 deg > atan(0.6): it slides at a = g sin a - mu_d (g cos a + P / m) from rest (the
    transition speed 1e-9 m/s: the static coefficient acts for ~1e-9 s), the friction
    -mu_d (m g cos a + P) grows with the pressing load P (2 N still lets it go: mu_s (m g
    cos a + P) = 10.8 N < m g sin a = 11.3 N): position to 1e-7 of the travel."""
    a = math.radians(35.0)
    r = incline(35.0, 0.6, 0.5, press).solve(duration=2.0, fps=10, analysis="dynamic")
    acc = G * math.sin(a) - 0.5 * (G * math.cos(a) + press / 2.0)
    s = slide_of(r, 35.0)
    np.testing.assert_allclose(s, 0.5 * acc * r.times ** 2, atol=1e-7 * s.max())
    np.testing.assert_allclose(r.friction("dry")[1:], -0.5 * (2.0 * G * math.cos(a) + press), rtol=1e-9)
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-8 * abs(pe).max()


@pytest.mark.slow
def test_pendulum_with_a_dry_pin_decays_linearly_and_stops_in_its_dead_band() -> None:
    """A 1 kg point pendulum (L = 1 m) from 0.1 rad with a pin of radius 0.05 m, mu 0.2:
    the friction torque mu r N, N ~ m g for small swings, takes 2 mu r / L = 0.02 rad of
    amplitude each half swing (to 2 % : the load varies with theta^2 and theta'^2, ~1 %
    at 0.1 rad); it comes to rest within mu r / L = 0.01 rad of the bottom, where the pin
    holds the gravity torque."""
    th0, L, mu, rp = 0.1, 1.0, 0.2, 0.05
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("bob", mass=1.0, inertia=(1e-6, 1e-6, 1e-6),
               center_of_mass=(L * math.sin(th0), -L * math.cos(th0), 0.0))
    m.add_marker("o", "ground")
    m.add_marker("h", "bob")
    m.add_joint("pin", "revolute", "h", "o")
    m.add_friction("bearing", "pin", static=mu, dynamic=mu, radius=rp, transition_speed=1e-7)
    r = m.solve(duration=6.0, fps=100, analysis="dynamic", tolerance=1e-8)
    c = r.center_of_mass("bob")
    th = np.arctan2(c[:, 0], -c[:, 1])
    w = r.angular_velocity("bob")[:, 2]
    turns = np.abs(th[np.flatnonzero(np.sign(w[1:]) != np.sign(w[:-1]))])
    steps = -np.diff(turns[turns > 0.012])
    assert len(steps) >= 3
    np.testing.assert_allclose(steps, 2 * mu * rp / L, rtol=0.02)
    assert abs(th[-1]) <= mu * rp / L and np.abs(w[-10:]).max() < 1e-9
    np.testing.assert_allclose(r.friction("bearing")[-1], G * L * math.sin(th[-1]), rtol=1e-6)
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-9


@pytest.mark.parametrize("kwargs, message", [
    (dict(joint="slide", static=-0.1), "must not be negative"),
    (dict(joint="slide", static=0.3, dynamic=0.5), "exceeds the static"),
    (dict(joint="slide", static=0.3, transition_speed=0.0), "must be positive"),
    (dict(joint="hinge", static=0.3), "needs the pin radius"),
    (dict(joint="hinge", static=0.3, radius=-0.01), "must not be negative"),
    (dict(joint="ball", static=0.3), "needs the ball radius"),
    (dict(joint="ball", static=0.3, radius=0.01, bearing_length=0.02), "do not apply to a ball"),
    (dict(joint="ball", static=0.3, radius=0.01, coordinate="angle"), "not 'angle'"),
    (dict(joint="hooke", static=0.3), "has no angle or slide or rotation"),
    (dict(joint="slide", static=0.3, coordinate="angle"), "not 'angle'"),
    (dict(joint="nope", static=0.3), "unknown joint 'nope'"),
])
def test_bad_friction_is_named(kwargs, message: str) -> None:
    m = incline(20.0, 0.6, 0.5)
    m.add_part("p", mass=1.0)
    m.add_marker("pm", "p")
    m.add_joint("hinge", "revolute", "pm", "way")
    m.add_part("b", mass=1.0)
    m.add_marker("bm", "b")
    m.add_joint("ball", "spherical", "bm", "way")
    m.add_part("u", mass=1.0)
    m.add_marker("um", "u")
    m.add_joint("hooke", "universal", "um", "way")
    before = dict(m.frictions)
    with pytest.raises(MechanismError, match=message):
        m.add_friction("x", **kwargs)
    assert m.frictions == before


def test_kinematic_sweep_effort_includes_the_friction() -> None:
    """The incline's block driven down at 0.5 m/s^2 (a motion on its slide): the motion's
    effort is m a - m g sin a + mu_d m g cos a (friction opposes the motion, its load the
    slide's reaction), exactly, from the second frame on (at rest, frame 0, the static
    friction is not determined and taken as zero); the friction series is -mu_d m g cos a."""
    a = math.radians(20.0)
    m = incline(20.0, 0.6, 0.5)
    m.add_motion("push", "slide", "0.25 * t**2")
    r = m.solve(duration=1.0, fps=10)
    assert r.analysis == "kinematic"
    fr = -0.5 * 2.0 * G * math.cos(a)
    np.testing.assert_allclose(r.friction("dry")[1:], fr, rtol=1e-12)
    np.testing.assert_allclose(r.effort("push")[1:], 2.0 * 0.5 - 2.0 * G * math.sin(a) - fr, rtol=1e-12)


def test_statics_friction_holds_where_it_can() -> None:
    """Statics from rest: on 20 deg the friction holds the block where it is (its force
    m g sin a, within the static limit); on 35 deg it cannot, a note says so and the
    equilibrium is the frictionless one: a 100 N/m spring from an anchor 0.5 m up the
    slope (free length 0.5 m) stretched by m g sin a / k."""
    r = incline(20.0, 0.6, 0.5).statics()
    assert abs(slide_of(r, 20.0)[0]) < 1e-12 and not r.notes
    np.testing.assert_allclose(r.friction("dry")[0], -2.0 * G * math.sin(math.radians(20.0)), rtol=1e-9)
    a = math.radians(35.0)
    m = incline(35.0, 0.6, 0.5)
    m.add_marker("anchor", "ground", position=(-0.5 * math.cos(a), 0.0, 0.5 * math.sin(a)))
    m.add_spring_damper("hold", "shoe", "anchor", stiffness=100.0, free_length=0.5)
    r = m.statics()
    assert slide_of(r, 35.0)[0] == pytest.approx(2.0 * G * math.sin(a) / 100.0, abs=1e-10)
    assert any("friction 'dry' cannot hold the start" in n for n in r.notes)
    assert r.friction("dry")[0] == 0.0


def test_block_breaks_loose_at_the_closed_form_instant() -> None:
    """Stuck on 20 deg, pushed down the slope by 10 t N: it breaks loose when the needed
    friction 10 t + m g sin a reaches mu_s m g cos a, at t* = 0.4352 s (located like an
    impact, to 1e-10 s), then slides with a = (10 t + m g sin a - mu_d m g cos a) / m.  The
    static coefficient still acts until the speed passes 1.5 v_s (v_s = 1e-9 m/s): the
    acceleration grows from zero as 5 (t - t*) for sqrt(1.5 v_s / 2.5) = 2.4e-5 s, a
    speed deficit of 0.92 x 2.4e-5 m/s, so the slide trails the closed form with mu_d from
    t* by at most 1.3e-5 m over the run: bound 2e-5 m.  Taking t* at step resolution (a
    step near 0.05 s) would miss by ~1e-2 m; before t* the block does not move (1e-12 m)."""
    a = math.radians(20.0)
    m = incline(20.0, 0.6, 0.5)
    m.add_force("push", "shoe", force=(f"10*t*{math.cos(a)}", 0.0, f"-10*t*{math.sin(a)}"))
    r = m.solve(duration=1.0, fps=20, analysis="dynamic", tolerance=1e-9)
    mg = 2.0 * G
    ts = (0.6 * mg * math.cos(a) - mg * math.sin(a)) / 10.0
    c = (mg * math.sin(a) - 0.5 * mg * math.cos(a)) / 2.0          # a(t) = 5 t + c
    t = np.maximum(r.times, ts)
    s_exp = 5.0 * ((t ** 3 - ts ** 3) / 6.0 - ts ** 2 * (t - ts) / 2.0) + 0.5 * c * (t - ts) ** 2
    np.testing.assert_allclose(slide_of(r, 20.0), s_exp, atol=2e-5)
    assert np.abs(slide_of(r, 20.0)[r.times < ts]).max() < 1e-12
    assert slide_of(r, 20.0)[-1] > 0.1


def _loads_per_call(monkeypatch, build, extrapolate: bool, duration: float):
    """(the run of ``build()``, the loads each with_slip call evaluated) with the fixed
    point's extrapolation on or off."""
    import solver.analyses.friction as fr
    monkeypatch.setattr(fr, "EXTRAPOLATE", extrapolate)
    counts, real, slip = [], fr.load_of, fr.with_slip
    calls = [0]

    def load_of(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    def with_slip(*a, **k):
        c0 = calls[0]
        out = slip(*a, **k)
        counts.append(calls[0] - c0)
        return out
    monkeypatch.setattr(fr, "load_of", load_of)
    monkeypatch.setattr("solver.analyses.equations.with_slip", with_slip)
    r = build().solve(duration=duration, fps=50, analysis="dynamic")
    monkeypatch.undo()
    return r, np.array(counts)


def _dry_chain(n: int, mu: float, radius: float, th0: float = 1.2) -> Mechanism:
    """n 1 kg links (1 m) on revolute pins in the xy plane, every pin dry."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    prev, px, py = "ground", 0.0, 0.0
    for k in range(n):
        th = th0 + 0.4 * k
        m.add_part(f"b{k}", mass=1.0, inertia=(0.02, 0.02, 0.02),
                   center_of_mass=(px + 0.5 * math.sin(th), py - 0.5 * math.cos(th), 0.0))
        m.add_marker(f"o{k}", prev, position=(px, py, 0.0))
        m.add_marker(f"h{k}", f"b{k}", position=(px, py, 0.0))
        m.add_joint(f"pin{k}", "revolute", f"h{k}", f"o{k}")
        m.add_friction(f"f{k}", f"pin{k}", static=mu, dynamic=mu, radius=radius,
                       transition_speed=1e-6)
        prev, px, py = f"b{k}", px + math.sin(th), py - math.cos(th)
    return m


def test_the_loads_fixed_point_is_extrapolated_and_gives_the_same_run(monkeypatch) -> None:
    """with_slip's fixed point s = mu L(F(s)) + preload (the friction moves its own load),
    extrapolated by Aitken's delta-squared every third iterate while one element slips: a
    pendulum from 1.2 rad on a strongly coupled dry pin (mu 0.5, pin radius 0.2 m) runs as
    with the plain iteration (positions to 1e-10 m, friction to 1e-9 of its size: both
    stop at 1e-13 of the load, a difference the 0.5 s run carries to 4e-12 m and 5e-11)
    with at most 5 loads per call where the plain iteration takes 7.  Two dry pins
    slipping together iterate plainly (a componentwise extrapolation of coupled elements
    can jump away): no call takes more loads than the plain iteration's most, the same run
    to 1e-12 m."""
    def pendulum():
        th0 = 1.2
        m = Mechanism(gravity=(0.0, -G, 0.0))
        m.add_part("ground", fixed=True)
        m.add_part("bob", mass=1.0, inertia=(1e-6, 1e-6, 1e-6),
                   center_of_mass=(math.sin(th0), -math.cos(th0), 0.0))
        m.add_marker("o", "ground")
        m.add_marker("h", "bob")
        m.add_joint("pin", "revolute", "h", "o")
        m.add_friction("bearing", "pin", static=0.5, dynamic=0.5, radius=0.2,
                       transition_speed=1e-7)
        return m
    fast, n_fast = _loads_per_call(monkeypatch, pendulum, True, 0.5)
    plain, n_plain = _loads_per_call(monkeypatch, pendulum, False, 0.5)
    assert fast.steps == plain.steps
    np.testing.assert_allclose(fast.center_of_mass("bob"), plain.center_of_mass("bob"),
                               rtol=0, atol=1e-10)
    f = plain.friction("bearing")
    assert np.abs(f).max() > 0.0
    np.testing.assert_allclose(fast.friction("bearing"), f, rtol=0, atol=1e-9 * np.abs(f).max())
    assert n_fast.max() <= 5 and n_plain.max() >= 7
    two, n_two = _loads_per_call(monkeypatch, lambda: _dry_chain(2, 0.8, 0.3), True, 1.0)
    ref, n_ref = _loads_per_call(monkeypatch, lambda: _dry_chain(2, 0.8, 0.3), False, 1.0)
    assert n_two.max() <= n_ref.max() and n_two.mean() < n_ref.mean()
    for k in range(2):
        np.testing.assert_allclose(two.center_of_mass(f"b{k}"), ref.center_of_mass(f"b{k}"),
                                   rtol=0, atol=1e-12)
