"""Joint friction with sticking against closed forms: a block on an incline
sticks below the friction angle and slides with a = g (sin a - mu_d cos a) above it; a
pressing load raises the friction (it grows with the joint's reaction); a pendulum with a
dry pin loses 2 mu r / L of amplitude per half swing and stops inside its dead band; the
energy balance includes what friction dissipates; bad input is named."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError, SolverError

from mechanisms import dry_pendulum, incline, planar_angle, slider_crank

G = 9.81


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
    m = dry_pendulum(th0, L, mu, mu, rp, transition_speed=1e-7)
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


def test_a_thrust_bearing_alone_brakes_a_turntable() -> None:
    """A turntable on a vertical pin with friction only in its thrust bearing (arm 2 cm, no
    pin radius: the pin carries no side load) slips against mu_d arm m g, so it slows at
    mu_d arm m g / I_z from 3 rad/s (to 1e-6 rad/s: the dynamic run's tolerance) until
    it stops."""
    mass, i_z, arm, mu_d = 5.0, 0.05, 0.02, 0.2
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("table", mass=mass, inertia=(0.03, 0.03, i_z), angular_velocity=(0, 0, 3.0))
    m.add_marker("axle", "ground"); m.add_marker("hub", "table")
    m.add_joint("pin", "revolute", "hub", "axle")
    m.add_friction("thrust", "pin", static=0.3, dynamic=mu_d, arm=arm)
    r = m.solve(duration=1.0, fps=24, analysis="dynamic")
    slowing = mu_d * arm * mass * G / i_z                   # rad/s^2
    expected = np.maximum(3.0 - slowing * r.times, 0.0)
    assert np.abs(r.angular_velocity("table")[:, 2] - expected).max() < 1e-6


@pytest.mark.parametrize("kwargs, message", [
    (dict(joint="slide", static=-0.1), "must not be negative"),
    (dict(joint="slide", static=0.3, dynamic=0.5), "exceeds the static"),
    (dict(joint="slide", static=0.3, transition_speed=0.0), "must be positive"),
    (dict(joint="hinge", static=0.3), "needs the pin radius .* or the thrust arm"),
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


def _checked_calls(monkeypatch, build, duration: float):
    """(the run of ``build()``, the loads each with_slip call evaluated, the largest relative
    miss of the fixed point s = mu L(lambda) + preload over the calls): each call's friction
    checked against the load of the multipliers it returned (friction.loads, independent of
    the Newton iteration's gradients)."""
    import solver.analyses.dynamics.friction as fr
    counts, misses, real, slip = [], [], fr.load_of, fr.with_slip
    calls = [0]

    def load_of(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    def with_slip(model, respond, lam, jac, A, vq, d, sliding):
        c0 = calls[0]
        Qq, lam1, other, room = slip(model, respond, lam, jac, A, vq, d, sliding)
        counts.append(calls[0] - c0)
        fp = model.frictions
        s = fr.coefficient(model, fr.magnitudes(model, vq)) * fr.loads(model, lam1, jac, A) \
            + fp.preload
        got = fr.magnitudes(model, Qq)
        on = np.unique(fp.element[sliding])
        misses.append(np.max(np.abs(got - s)[on] / s[on], initial=0.0))
        return Qq, lam1, other, room
    monkeypatch.setattr(fr, "load_of", load_of)
    monkeypatch.setattr("solver.analyses.dynamics.equations.with_slip", with_slip)
    r = build().solve(duration=duration, fps=50, analysis="dynamic")
    monkeypatch.undo()
    return r, np.array(counts), max(misses)


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


def test_the_loads_solve_their_fixed_point_by_newton(monkeypatch) -> None:
    """with_slip's s = mu L(F(s)) + preload (the friction moves its own load) by Newton
    with the loads' gradients: every call's friction is mu L + preload of the multipliers
    it returns to 1e-12 (the iteration stops at 1e-13), in a few loads per call, on a dry
    pin and on three strongly coupled dry pins (mu 0.9, pin radius 0.4 m) where the plain
    iteration s <- g(s) contracted by about 0.8 an iterate and ran out of its 60."""
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
    r, n, miss = _checked_calls(monkeypatch, pendulum, 0.5)
    assert np.abs(r.friction("bearing")).max() > 0.0
    assert miss < 1e-12 and n.max() <= 5
    r, n, miss = _checked_calls(monkeypatch, lambda: _dry_chain(3, 0.9, 0.4), 1.0)
    assert miss < 1e-12 and n.max() <= 7 and n.mean() < 5.5


def test_the_loads_gradient_is_their_derivative() -> None:
    """load_gradient's dL/dR (force and moment: what Newton's slope is made of) against
    central differences of the load, for a pin (radius, thrust arm, bearing length), a slide
    (bearing length) and a ball, at random reactions: to 1e-7 relative."""
    from solver.analyses.dynamics.friction import load_gradient, load_of
    from solver.model.compile import compile_model
    m = Mechanism()
    m.add_part("ground", fixed=True)
    for name, kind in (("a", "revolute"), ("b", "prismatic"), ("c", "spherical")):
        m.add_part(name, mass=1.0, inertia=(0.1, 0.1, 0.1))
        m.add_marker(f"{name}i", name)
        m.add_marker(f"{name}j", "ground")
        m.add_joint(f"j{name}", kind, f"{name}i", f"{name}j")
    m.add_friction("fa", "ja", static=0.3, radius=0.05, arm=0.02, bearing_length=0.1)
    m.add_friction("fb", "jb", static=0.3, bearing_length=0.2)
    m.add_friction("fc", "jc", static=0.3, radius=0.04)
    model = compile_model(m)
    rng = np.random.default_rng(7)
    R = rng.normal(size=(3, 2, 3)) * np.array([100.0, 10.0])[:, None]    # force, moment
    z = rng.normal(size=(3, 3))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    g = load_gradient(model, R, z)
    fd = np.zeros((3, 2, 3))
    for k in range(2):
        h = 1e-5 * np.abs(R[:, k]).max()
        for i in range(3):
            dR = np.zeros((3, 2, 3))
            dR[:, k, i] = h
            fd[:, k, i] = (load_of(model, R + dR, z) - load_of(model, R - dR, z)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9 * np.abs(g).max())
    assert np.all(g[2, 1] == 0.0) and np.abs(g[:2, 1]).max() > 0.0
    # a pure thrust F = 50 z (no moment): the load is the thrust arm's (pin 0.02 x 50, the
    # slide none, the ball 0.04 x 50) to rounding, and its slope along z the arm (the side
    # vector F - (F . z) z is rounding there: its direction is noise, its part in the slope 0)
    thrust = np.stack([50.0 * z, 0.0 * z], axis=1)
    np.testing.assert_allclose(load_of(model, thrust, z), [1.0, 0.0, 2.0], rtol=1e-14,
                               atol=1e-14)
    gF = load_gradient(model, thrust, z)[:, 0]
    np.testing.assert_allclose(np.einsum("ni,ni->n", gF, z), [0.02, 0.0, 0.04], rtol=1e-12,
                               atol=1e-14)


def _flywheel_crank(mu: float) -> Mechanism:
    """tests/mechanisms.py's slider-crank (crank 0.8 m, rod 1 m, slider 5 kg), its crank a
    flywheel of 50 kg m^2 at 20 rad/s (no motion), dry friction mu on the slider's guide."""
    m = slider_crank(r=0.8, l=1.0, masses=(1.0, 1.0, 5.0), flywheel=(50.0, 20.0))
    m.add_friction("dry", "slide", static=mu, dynamic=mu, transition_speed=1e-6)
    return m


@pytest.mark.parametrize("method", ["explicit", "implicit"])
def test_a_slider_reverses_at_its_dead_centre_without_losing_energy(method: str) -> None:
    """The flywheel's slider comes to rest at each dead centre because the crank's motion
    makes it so, not its friction: it cannot stick there (holding it would take an unbounded
    force), it slips on the way it turns back.  Over two reversals (0.5 s) kinetic +
    potential - work (the friction's work included) stays constant to 1e-8 of the
    flywheel's 9,872 J (measured 1.8e-10 and 4e-10; holding the coordinate for an instant,
    as before, projected the velocities onto a nearly dependent row and lost 1.28 J at each
    reversal, unbooked), and the friction reverses with the slider (opposite signs before
    and after the first dead centre, t = pi / 20 s at the crank's 20 rad/s, about)."""
    r = _flywheel_crank(0.3).solve(duration=0.5, fps=100, method=method)
    ke, pe, work = r.energy()
    balance = ke + pe - work
    assert np.abs(balance - balance[0]).max() < 1e-8 * ke[0] and -work[-1] > 1000.0
    f, v = r.friction("dry"), r.velocity("slider")[:, 0]
    moving = np.abs(v) > 0.1
    assert np.all(np.sign(f[moving]) == -np.sign(v[moving]))     # against the motion
    assert f[5] * f[25] < 0.0                                      # turned back between


@pytest.mark.parametrize("method", ["explicit", "implicit"])
@pytest.mark.slow
def test_dynamics_nearing_a_jam_name_the_friction(method: str) -> None:
    """The crosshead of the test below in dynamics: the crank a flywheel (50 kg m^2) at
    20 rad/s, dry friction 0.9 on the slider's guide.  Nearing the friction angle the
    friction grows without bound (its headroom 1 - dg/ds goes to 0) and the step size
    collapses there: the SolverError names the friction (near a jam) at the time it
    collapsed, where the rod leans near the angle (tan(phi) within 10% of 1 / mu), or, when
    rounding puts a last attempted stage a hair past the friction angle, the jam itself at
    that same time (t = 0.236321 s either way: a change in the last bits of the inertias'
    products moved this run from the one message to the other); at mu 0.3 the same flywheel
    runs (the test above)."""
    with pytest.raises(SolverError, match=r"step size fell below .*joint friction 'dry' nears "
                                          r"a jam|jam at t = .*joint friction 'dry' jams its "
                                          r"joint") as e:
        _flywheel_crank(0.9).solve(duration=0.5, fps=100, method=method)
    assert e.value.joints == ("dry",)
    phi = float(planar_angle(e.value.result.orientation("rod")[-1]))    # the last frame's
    assert abs(abs(math.tan(phi)) * 0.9 - 1.0) < 0.1


def _drawer(mu: float) -> Mechanism:
    """A 1 kg slider on a vertical prismatic joint (bearing length 0.1 m), its centre of
    mass 0.5 m off the axis, dropping at 1 m/s, dry friction with a 1 N preload."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("slider", mass=1.0, inertia=(0.01, 0.01, 0.01), center_of_mass=(0.5, 0.0, 0.0),
               velocity=(0.0, 0.0, -1.0))
    m.add_marker("way", "ground")
    m.add_marker("shoe", "slider")
    m.add_joint("slide", "prismatic", "shoe", "way")
    m.add_friction("dry", "slide", static=mu, dynamic=mu, bearing_length=0.1, preload=1.0,
                   transition_speed=1e-6)
    return m


def test_a_drawer_off_its_axis_slides_with_its_closed_form_friction_or_jams() -> None:
    """The slider's friction f along the axis (through marker I) decelerates it, and its
    centre of mass 0.5 m off the axis turns that into the moment f d the joint carries:
    its load is f d / l, so f = mu f d / l + preload, f = preload / (1 - mu d / l) = 20 N at
    mu 0.19 (mu d / l = 0.95, Newton's answer to 1e-12 where the plain iteration contracts
    by 0.95 an iterate); until it stops at t = 1 / (20 - g) s and sticks, held by m g.  At
    mu 0.21 no friction solves it (mu d / l > 1: the drawer jams): a SolverError that
    names the friction and the time, with the frames before it."""
    r = _drawer(0.19).solve(duration=0.5, fps=20, analysis="dynamic")
    f = r.friction("dry")
    t_stop = 1.0 / (20.0 - G)
    np.testing.assert_allclose(f[r.times < t_stop], 20.0, rtol=1e-12)
    np.testing.assert_allclose(f[r.times > t_stop], G, rtol=1e-9)
    z = r.position("slider")[:, 2]
    np.testing.assert_allclose(z[-1], -0.5 / (20.0 - G), rtol=1e-9)
    with pytest.raises(SolverError, match=r"jam at t = 0 s: joint friction 'dry' jams") as e:
        _drawer(0.21).solve(duration=0.5, fps=20, analysis="dynamic")
    assert e.value.joints == ("dry",) and e.value.time == 0.0


def test_a_jam_inside_a_block_keeps_a_torsion_springs_turn() -> None:
    """A crosshead that jams (mu 0.9) beside a wheel driven at 40 rad/s (1.3 rad a frame at
    30 fps) against a torsion spring (k 3): the jam comes at the first frame where the
    rod leans past the friction angle, tan(phi) > 1 / 0.9 (frame 34, inside the block of
    frames 29-60), and the block with the jam is solved again up to it, its frames taking
    the spring's turn from the frame before them, not from the discarded block's last
    frame: every kept frame's effort is k 40 t (th'' = 0; before, turns' worth of 2 pi k
    off at the retried frames)."""
    m = _jamming_crosshead_and_wheel()
    with pytest.raises(SolverError, match=r"jam at t = .* joint friction 'fr'") as e:
        m.solve(8.0, 30)
    r = e.value.result
    t = np.arange(0, 241) / 30.0
    lean = np.tan(np.arcsin(0.1 / 0.12 * np.sin(t)))
    assert len(r.times) == np.argmax(lean > 1.0 / 0.9) > 30
    np.testing.assert_allclose(np.abs(r.effort("wdrive")), 3.0 * 40 * r.times, atol=1e-9)


def test_a_study_whose_variant_jams_keeps_the_others_torsion_turns() -> None:
    """The same mechanism as a design study (friction 0.2 or 0.9, spring 3 or 4 N m/rad):
    the variants at 0.9 jam, the batched sweep solves the block with the jam again up to
    it for every variant, and the others' kept frames take the spring's turn from the
    frame before them (before, 24 turns' worth of 2 pi k off: 452 N m in the effort)."""
    from solver.study import Study, grid
    m = _jamming_crosshead_and_wheel()
    study = Study(m, grid({"fr.dynamic": [0.2, 0.9], "ts.stiffness": [3.0, 4.0]}))
    res = study.run(duration=8.0, fps=30)
    assert sorted(res.failures) == [2, 3] and all("jam at t" in f for f in res.failures.values())
    for i in (0, 1):
        r, k = res.result(i), study.variants[i]["ts.stiffness"]
        assert len(r.times) == 241
        np.testing.assert_allclose(np.abs(r.effort("wdrive")), k * 40 * r.times, atol=1e-9)


def _jamming_crosshead_and_wheel() -> Mechanism:
    """A crosshead that jams (mu 0.9; tests/mechanisms.py's slider-crank, crank 0.1 m, rod
    0.12 m, turned at 1 rad/s) beside a wheel driven at 40 rad/s against a torsion spring
    (k 3)."""
    m = slider_crank(0.1, 0.12, drive="1.0*t")
    m.add_friction("fr", "slide", static=0.9, dynamic=0.9)
    m.add_part("wheel", mass=1.0, inertia=(0.01, 0.01, 0.02), position=(1.0, 1.0, 0.0))
    m.add_marker("wO", "ground", position=(1.0, 1.0, 0.0))
    m.add_marker("wh", "wheel")
    m.add_joint("wpin", "revolute", "wh", "wO")
    m.add_motion("wdrive", "wpin", "40*t")
    m.add_torsion_spring("ts", "wpin", stiffness=3.0)
    return m


def test_a_crosshead_jams_when_the_rod_leans_past_the_friction_angle() -> None:
    """A slider-crank (tests/mechanisms.py: crank 0.8 m, rod 1 m, slider 5 kg) driven at
    20 rad/s, dry friction on the slider's guide: the rod's push on the slider
    F cos(phi) - mu |F sin(phi)| = m a has no solution once tan(phi) > 1 / mu with the
    push along the motion.  At mu 0.3 (tan(phi)
    at most 1.33 < 3.3) the sweep runs; at mu 0.9 it stops with a jam that names the
    friction, at a frame where tan(phi) > 1 / 0.9, keeping every frame before it (the
    block it was in is solved again up to it)."""
    def crank(mu: float) -> Mechanism:
        m = slider_crank(r=0.8, l=1.0, omega=20.0, masses=(1.0, 1.0, 5.0))
        m.add_friction("dry", "slide", static=mu, dynamic=mu, transition_speed=1e-6)
        return m
    r = crank(0.3).solve(duration=0.5, fps=100)
    assert np.abs(r.friction("dry")).max() > 0.0
    with pytest.raises(SolverError, match=r"jam at t = .* joint friction 'dry' jams") as e:
        crank(0.9).solve(duration=0.5, fps=100)
    t = e.value.time
    phi = math.asin(0.8 * abs(math.sin(20.0 * t)))
    assert math.tan(phi) > 1.0 / 0.9 and e.value.joints == ("dry",)
    kept = e.value.result.times        # every frame before the jam's (100 fps)
    assert len(kept) == round(t * 100) and abs(kept[-1] - (t - 0.01)) < 1e-12


def test_a_second_friction_on_one_joint_coordinate_is_refused_by_name() -> None:
    """Two elements on the block's slide would hold it by two equal rows: refused at the
    second add_friction, naming both elements and the joint, the first kept as it was; a
    cylindrical joint's angle and slide are two coordinates, one element each."""
    m = incline(35.0, 0.6, 0.5)
    before = dict(m.frictions)
    with pytest.raises(MechanismError, match=r"friction 'second': the slide of joint 'slide' "
                                             r"already has friction 'dry'"):
        m.add_friction("second", "slide", static=0.4, dynamic=0.3)
    assert m.frictions == before
    m.add_part("sleeve", mass=1.0)
    m.add_marker("bore", "sleeve")
    m.add_joint("tube", "cylindrical", "bore", "way")
    m.add_friction("turning", "tube", static=0.3, coordinate="angle", radius=0.01)
    m.add_friction("sliding", "tube", static=0.3, coordinate="slide")
    with pytest.raises(MechanismError, match=r"the angle of joint 'tube' already has friction "
                                             r"'turning'"):
        m.add_friction("again", "tube", static=0.2, coordinate="angle", radius=0.01)


def sliding_block(far_marker: bool) -> Mechanism:
    """A 1 kg block launched at 1 m/s along a level slide, mu_s 0.5, mu_d 0.3, the default
    transition speed; ``far_marker``: an unused ground marker 100 m away."""
    q = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)      # slide z along world x
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=1.0, inertia=(0.01, 0.01, 0.01), velocity=(1.0, 0.0, 0.0))
    m.add_marker("way", "ground", orientation=q)
    m.add_marker("shoe", "block", orientation=q)
    m.add_joint("slide", "prismatic", "shoe", "way")
    m.add_friction("dry", "slide", static=0.5, dynamic=0.3)
    if far_marker:
        m.add_marker("far", "ground", position=(100.0, 0.0, 0.0))
    return m


def test_default_transition_speed_does_not_depend_on_unrelated_markers() -> None:
    """The block stops at v0^2 / (2 mu_d g) = 0.1699 m, less what the static coefficient
    takes below 1.5 v_s = 1.5 mm/s: at most (1.5 v_s)^2 / (2 g) (1/mu_d - 1/mu_s) = 1.5e-7 m.
    An unused marker 100 m away changes neither (1e-9 m: the integrator's tolerance 1e-9
    of the 0.17 m travel, with room); with a default taken from the model's size it
    stopped 1.1 mm short."""
    mu_s, mu_d, v_s = 0.5, 0.3, 1e-3
    closed = 1.0 / (2.0 * mu_d * G)
    zone = (1.5 * v_s) ** 2 / (2.0 * G) * (1.0 / mu_d - 1.0 / mu_s)
    rest = [sliding_block(far).solve(duration=0.2 + 1.0 / (mu_d * G), fps=50, analysis="dynamic",
                                     tolerance=1e-9).position("block")[-1, 0]
            for far in (False, True)]
    for x in rest:
        assert closed - zone - 1e-9 <= x <= closed + 1e-9
    assert abs(rest[1] - rest[0]) < 1e-9


def test_an_implicit_run_restarts_its_stepper_at_each_slip_reversal(monkeypatch) -> None:
    """The flywheel's slider reverses twice in 0.5 s (its friction's recorded instants);
    Radau IIA is restarted at each (RadauStepper.restart: the friction's direction jumps
    there), so no step after a reversal starts from the polynomial of the steps before it
    (which lost 2.2e-6 of the flywheel's energy in one accepted step on a machine whose
    BLAS rounds otherwise)."""
    from solver.integrators.implicit import RadauStepper
    restarts = []
    monkeypatch.setattr(RadauStepper, "restart",
                        lambda self: restarts.append(True) or self.radau.restart(0))
    r = _flywheel_crank(0.3).solve(duration=0.5, fps=100, method="implicit")
    reversals = [e for e in r.friction_events if e[2] == "reverse"]
    assert len(reversals) == 2 and len(restarts) >= len(reversals)
