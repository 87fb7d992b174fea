"""Joint limits with rigid stops: a ball on a vertical prismatic joint dropped
onto a stop with restitution e (impact instants and apex heights in closed form, rest at
the stop with the stop carrying the weight, the energy balance with the impact losses), a
door swinging shut against its stop, a motion driven through a stop in a kinematic sweep,
a stop carrying load in statics, and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechanisms import driven_wheel
from solver import Mechanism, MechanismError, SolverError
from solver.analyses.checks.joint_angles import joint_angle

G = 9.81


def dropped_ball(h: float = 2.0, e: float = 0.8, mass: float = 0.5) -> Mechanism:
    """A ball on a vertical prismatic joint, its slide h above the stop (lower bound 0)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=mass, inertia=(1e-3, 1e-3, 1e-3), position=(0.0, 0.0, h))
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "ball")
    m.add_joint("drop", "prismatic", "shoe", "rail")
    m.add_limit("floor", "drop", lower=0.0, restitution=e)
    return m


def bounce_times(h: float, e: float, n: int) -> np.ndarray:
    """The first n impact instants: T1 = sqrt(2 h / g), then flights of 2 e^k T1."""
    T1 = math.sqrt(2.0 * h / G)
    return T1 * (1.0 + 2.0 * np.concatenate([[0.0], np.cumsum(e ** np.arange(1, n))]))


@pytest.mark.slow
def test_ball_bounces_to_closed_form_and_comes_to_rest() -> None:
    """Impacts at T1 (1 + 2 sum_k e^k) to 3e-8 s (each located to 1e-10 s on the
    integrator's own steps; a flight's time 2 v / g carries the rebound speed's error, about
    1e-9 s a flight at tolerance 1e-9, so the error grows with the bounces: measured 1.6e-10
    s at the first, 2.2e-8 s at the tenth); the apex
    between impacts k and k+1 at height e^(2k) h to 1e-9 m (output times placed at the
    apexes); once a rebound is slower than the rest speed the ball rests on the stop, which
    then carries its weight m g; kinetic + potential - work (impact losses included) is
    constant to 1e-9 of m g h."""
    h, e, mass = 2.0, 0.8, 0.5
    T1 = math.sqrt(2.0 * h / G)
    impacts = bounce_times(h, e, 10)
    apex = impacts[:-1] + e ** np.arange(1, 10) * T1
    total = T1 * (1.0 + 2.0 * e / (1.0 - e))           # the bounces' accumulation point
    times = np.sort(np.concatenate([[0.0], apex, [total + 0.5]]))
    r = dropped_ball(h, e, mass).solve(times=times, analysis="dynamic", tolerance=1e-9)
    got = np.array([t for t, _ in r.impacts[:10]])
    np.testing.assert_allclose(got, impacts, rtol=0, atol=3e-8)
    z = r.position("ball")[:, 2]
    at_apex = np.searchsorted(times, apex)
    np.testing.assert_allclose(z[at_apex], e ** (2 * np.arange(1, 10)) * h, atol=1e-9)
    assert abs(z[-1]) < 1e-12 and np.abs(r.velocity("ball")[-1]).max() < 1e-12
    np.testing.assert_allclose(r.limit("floor")[-1], mass * G, rtol=1e-12)
    assert np.all(r.limit("floor")[:-1] == 0.0)                  # in flight at the apexes
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-9 * mass * G * h
    assert work[-1] == pytest.approx(-mass * G * h, rel=1e-9)   # all of it lost at impacts


def door(closer: float = 2.0, e: float = 0.0, opened: float = 80.0, closer_damping: float = 0.0,
         **stop) -> Mechanism:
    """A door (10 kg, 0.8 m wide) on a vertical hinge, opened ``opened`` deg, a torsion spring
    closer pulling it toward -20 deg, a stop at 0 (the frame): it swings shut against the
    stop (rigid with restitution e, or ``stop``: a compliant stop's settings)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    a0 = math.radians(opened)
    m.add_part("door", mass=10.0, inertia=(3.33, 3.87, 0.54), center_of_mass=(0.4, 0.0, 0.0),
               orientation=(math.cos(a0 / 2), 0.0, 0.0, math.sin(a0 / 2)))
    m.add_marker("frame", "ground")
    m.add_marker("leaf", "door")
    m.add_joint("hinge", "revolute", "leaf", "frame")
    m.add_torsion_spring("closer", "hinge", stiffness=closer, damping=closer_damping,
                         free_angle=math.radians(-20.0))
    m.add_limit("stop", "hinge", lower=0.0, restitution=e, **stop)
    return m


def test_door_swings_shut_against_its_stop_and_is_held() -> None:
    """With e = 0 the door stops dead at the frame and stays: the stop then carries the
    closer's torque k (0 - (-20 deg)) (statics of the resting contact), the angle is 0 to
    1e-12 rad, and the one impact's loss is the kinetic energy it arrived with."""
    m = door()
    r = m.solve(duration=4.0, fps=30, analysis="dynamic")
    q = r.orientation("door")
    angle = 2.0 * np.arctan2(q[:, 3], q[:, 0])
    assert len(r.impacts) == 1 and r.impacts[0][1] == ("stop",)
    after = r.times > r.impacts[0][0] + 1e-6
    assert np.abs(angle[after]).max() < 1e-12 and angle.min() > -1e-12
    np.testing.assert_allclose(r.limit("stop")[after], 2.0 * math.radians(20.0), rtol=1e-9)
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-8


def test_statics_holds_the_door_on_its_stop() -> None:
    """Statics from 80 deg open: the closer would turn it to -20 deg; the stop holds it at
    0 with its torque k 20 deg."""
    r = door().statics()
    q = r.orientation("door")[0]
    assert abs(2.0 * math.atan2(q[3], q[0])) < 1e-10
    assert r.limit("stop")[0] == pytest.approx(2.0 * math.radians(20.0), rel=1e-9)


def test_statics_brings_a_loaded_free_coordinate_to_its_stop() -> None:
    """A ball 2 m above its stop has no equilibrium in the air (gravity on a free slide, no
    stiffness): statics finds the stop the load pushes toward and rests the ball on it, the
    stop carrying m g; with a second stop above, the one below is still the one reached."""
    r = dropped_ball(2.0, 0.5, 0.5).statics()
    assert abs(r.position("ball")[0, 2]) < 1e-12
    assert r.limit("floor")[0] == pytest.approx(0.5 * G, rel=1e-12)
    m = dropped_ball(2.0, 0.5, 0.5)
    m.add_limit("ceiling", "drop", upper=3.0)
    r = m.statics()
    assert abs(r.position("ball")[0, 2]) < 1e-12 and r.limit("ceiling")[0] == 0.0


def test_statics_lets_a_stop_go_when_it_would_pull() -> None:
    """A closer toward +30 deg with a stop at 0: the equilibrium is at 30 deg, inside the
    range (the stop carries nothing)."""
    m = door()
    m.torsion_springs["closer"] = type(m.torsion_springs["closer"])(
        **{**m.torsion_springs["closer"].__dict__, "free_angle": math.radians(30.0)})
    r = m.statics()
    q = r.orientation("door")[0]
    assert 2.0 * math.atan2(q[3], q[0]) == pytest.approx(math.radians(30.0), abs=1e-9)
    assert r.limit("stop")[0] == 0.0


def test_motion_driven_through_a_stop_stops_the_sweep() -> None:
    """A hinge driven at 1 rad/s with a stop at 0.5 rad: the sweep stops at the first frame
    past it (frame 13 at 24 fps: 13/24 > 0.5), naming the limit, the joint and the bound,
    with the frames before kept."""
    m = driven_wheel("t", part="arm", joint="pin", motion="turn", inertia=(0.01, 0.01, 0.01),
                     gravity=(0.0, 0.0, -G))
    m.add_limit("stop", "pin", lower=-1.0, upper=0.5)
    with pytest.raises(SolverError, match=r"limit 'stop': joint 'pin' past its upper bound 0.5 rad \(28.6479 deg\) "
                                          r"at t = 0.541667 s \(frame 13\)") as info:
        m.solve(duration=1.0, fps=24)
    assert len(info.value.result) == 13 and info.value.joints == ("stop", "pin")


@pytest.mark.parametrize("end, past", [(2.9, None), (-2.9, None), (3.1, "upper"), (-3.1, "lower")])
def test_a_range_wider_than_half_a_turn(end: float, past) -> None:
    """Stops at -3 and 3 rad (most of a turn): the hinge driven from 0 to +-2.9 rad stays in
    range (it was read as past its lower stop once the shortest angle from -3 rad wrapped,
    beyond q = 0.14 rad) and the stops take no force; to +-3.1 rad it passes the stop at
    frame 10 (t = 1 s: 3.1 > 3; at 0.9 s, 2.79 < 3), which is named."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(0.01, 0.01, 0.01))
    m.add_marker("o", "ground")
    m.add_marker("a", "arm")
    m.add_joint("pin", "revolute", "a", "o")
    m.add_motion("turn", "pin", f"{end}*t")
    m.add_limit("stop", "pin", lower=-3.0, upper=3.0)
    if past is None:
        r = m.solve(duration=1.0, fps=10)
        assert len(r) == 11 and np.all(r.limit("stop") == 0.0)
        q = r.orientation("arm")[-1]
        assert 2.0 * math.atan2(q[3], q[0]) == pytest.approx(end, abs=1e-9)
    else:
        with pytest.raises(SolverError, match=rf"past its {past} bound .* \(frame 10\)"):
            m.solve(duration=1.0, fps=10)


def test_start_outside_the_range_is_refused() -> None:
    """A door built outside its stops' range: a run refuses it; check() names it."""
    m = door()
    m.limits["stop"] = type(m.limits["stop"])(**{**m.limits["stop"].__dict__, "upper": 2.1,
                                                  "lower": math.radians(85.0)})
    with pytest.raises(SolverError, match="starts outside a limit: limit 'stop'"):
        m.solve(duration=0.5, fps=10, analysis="dynamic")
    problems = m.check().problems
    assert any("limit 'stop': joint 'hinge' past its lower bound" in p for p in problems), problems


@pytest.mark.parametrize("kwargs, message", [
    (dict(joint="hinge", lower=0.5, upper=0.2), "not below the upper"),
    (dict(joint="hinge", lower=0.0, restitution=1.5), "between 0 and 1"),
    (dict(joint="hinge", lower=0.0, restitution=-0.1), "between 0 and 1"),
    (dict(joint="hinge"), "give a lower or an upper"),
    (dict(joint="hinge", lower=0.0, coordinate="slide"), "not 'slide'"),
    (dict(joint="nope", lower=0.0), "unknown joint 'nope'"),
    (dict(joint="ball", lower=0.0), "has no angle or slide"),
    (dict(joint="hinge", lower=float("nan")), "NaN"),
    (dict(joint="hinge", lower=0.0, rest_speed=-1.0), "must not be negative"),
])
def test_bad_limits_are_named(kwargs, message: str) -> None:
    m = door()
    m.add_part("b", mass=1.0)
    m.add_marker("bm", "b")
    m.add_joint("ball", "spherical", "bm", "frame")
    before = dict(m.limits)
    with pytest.raises(MechanismError, match=message):
        m.add_limit("x", **kwargs)
    assert m.limits == before


@pytest.mark.parametrize("tolerance", [1e-9, 1e-3])
def test_an_impact_is_first_tried_where_the_dense_output_puts_it(monkeypatch, tolerance) -> None:
    """A stop's crossing is located by re-stepping (every trial a full integrator step, to
    EVENT_TIME = 1e-10 s), its first trial where the step's dense output puts the instant
    (stops.dense_guess): the dropped ball's first five impacts at the same instants as the
    search without the guess (to 2e-10 s) in at most half its trial steps, at tolerance
    1e-9 (DOP853; measured 13 against 33) and 1e-3 (Dormand-Prince 5(4), whose guess can
    land a rounding away from the root: the next trial is then just past the root, not a
    bisection from the step's end, which took 38 trials; measured 11 against 33).  At 1e-9
    the instants are the closed form's to 1e-8 s (measured 4e-9)."""
    import solver.analyses.dynamics.stops as so
    h, e = 2.0, 0.8
    impacts = bounce_times(h, e, 5)
    times = np.linspace(0.0, impacts[-1] + 0.05, 41)

    def run(guess: bool):
        trials = []
        real = so.locate

        def counting(step, *a, **k):
            return real(lambda c: trials.append(c) or step(c), *a, **k)
        monkeypatch.setattr(so, "locate", counting)
        if not guess:
            monkeypatch.setattr(so, "dense_guess", lambda *a, **k: None)
        r = dropped_ball(h, e).solve(times=times, analysis="dynamic", tolerance=tolerance)
        monkeypatch.undo()
        return np.array([t for t, _ in r.impacts[:5]]), len(trials)
    got, n = run(True)
    plain, n_plain = run(False)
    assert len(got) == 5
    np.testing.assert_allclose(got, plain, rtol=0, atol=2e-10)
    if tolerance < 1e-6:
        np.testing.assert_allclose(got, impacts, rtol=0, atol=1e-8)
    assert n <= n_plain / 2


@pytest.mark.parametrize("apart", [0.01, 0.03])
def test_a_second_lower_stop_below_the_first_is_never_reached(apart: float) -> None:
    """A block dropped 10 cm onto a rigid stop with a second one ``apart`` below it: a step
    that falls past both is cut at the first, and only the first is struck (holding both at
    their bounds would ask the slide to be in two places: a lock-up).  The impacts are the
    single stop's closed-form instants T1 (1 + 2 sum e^k) (free fall between them, which
    the integrator follows exactly up to the 1e-10 s location of each impact: 1e-8 s leaves
    the few impacts' accumulated location error room), the block ends resting on the first
    stop, which carries m g, and the second never pushes."""
    h, e, mass = 0.1, 0.5, 1.0
    m = dropped_ball(h, e, mass)
    m.add_limit("below", "drop", lower=-apart, restitution=e)
    r = m.solve(duration=1.0, fps=24, analysis="dynamic")
    got = np.array([t for t, _ in r.impacts[:4]])
    np.testing.assert_allclose(got, bounce_times(h, e, 4), rtol=0, atol=1e-8)
    assert all(names == ("floor",) for _, names in r.impacts)
    assert abs(r.position("ball")[-1, 2]) < 1e-12
    np.testing.assert_allclose(r.limit("floor")[-1], mass * G, rtol=1e-9)
    assert np.all(r.limit("below") == 0.0)


def pendulum_on_stops(e: float = 0.0, w0: float = 5.0) -> Mechanism:
    """A pendulum (1 kg bob 1 m below a hinge along world y, hanging at 0 rad) swung at w0
    rad/s toward stops at -2.0 and 1.5 rad (rigid, restitution e)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("bob", mass=1.0, inertia=(1e-4, 1e-4, 1e-4), center_of_mass=(0.0, 0.0, -1.0),
               angular_velocity=(0.0, w0, 0.0))
    axis_y = (math.cos(math.pi / 4), -math.sin(math.pi / 4), 0.0, 0.0)    # marker z along +y
    m.add_marker("base", "ground", orientation=axis_y)
    m.add_marker("pin", "bob", orientation=axis_y)
    m.add_joint("hinge", "revolute", "pin", "base")
    m.add_limit("stop", "hinge", lower=-2.0, upper=1.5, restitution=e)
    return m


def pendulum_after_a_plastic_stop(t_end: float) -> float:
    """The angle at t_end of pendulum_on_stops(0.0) by an independent integration:
    I theta'' = -m g l sin theta (I = m l^2 + 1e-4) to the instant theta reaches 1.5, where
    a plastic impact sets theta' = 0; gravity pulls it off at once."""
    from scipy.integrate import solve_ivp
    inertia = 1.0 + 1e-4

    def f(t, y):
        return [y[1], -G * math.sin(y[0]) / inertia]

    def at_stop(t, y):
        return y[0] - 1.5
    at_stop.terminal, at_stop.direction = True, 1
    swing = solve_ivp(f, (0.0, t_end), [0.0, 5.0], events=at_stop, rtol=1e-12, atol=1e-12)
    t_hit = float(swing.t_events[0][0])
    back = solve_ivp(f, (t_hit, t_end), [1.5, 0.0], rtol=1e-12, atol=1e-12)
    return float(back.y[0, -1])


def hinge_angle(r) -> np.ndarray:
    q = r.orientation("bob")
    return 2.0 * np.arctan2(q[:, 2], q[:, 0])


@pytest.mark.parametrize("fps", [24, 240])
def test_a_plastic_stop_lets_go_at_once_when_gravity_pulls_away(fps: float) -> None:
    """A pendulum stopped dead (restitution 0) at its upper stop 1.5 rad, below the
    horizontal: gravity pulls it back at once, so the stop never holds it and never pushes.
    Its angle at 1 s matches the independent integration whatever the frame rate, to 1e-7
    rad (the run's tolerance 1e-6 with its local error a decade under; measured 8e-10)."""
    r = pendulum_on_stops().solve(duration=1.0, fps=fps, analysis="dynamic")
    assert len(r.impacts) == 1 and r.impacts[0][1] == ("stop",)
    assert hinge_angle(r)[-1] == pytest.approx(pendulum_after_a_plastic_stop(1.0), abs=1e-7)
    assert np.all(r.limit("stop") == 0.0)


def test_a_resting_stop_lets_go_at_the_instant_its_load_turns() -> None:
    """A 1 kg block resting on its floor stop, lifted by a force k t growing from zero: the
    stop carries m g - k t until t* = m g / k = 0.51 s (between frames) and lets go then
    (located within the step, not at its end); after it z = k (t - t*)^3 / (6 m) (closed
    form, to 1e-9 m: the polynomial is within the integrator's order)."""
    mass, t_star = 1.0, 0.51
    k = mass * G / t_star
    m = dropped_ball(0.0, 0.0, mass)
    m.add_force("lift", "shoe", force=(0.0, 0.0, f"{k!r} * t"))
    r = m.solve(duration=1.0, fps=24, analysis="dynamic")
    t = r.times
    z = r.position("ball")[:, 2]
    expect = np.where(t > t_star, k * np.maximum(t - t_star, 0.0) ** 3 / (6.0 * mass), 0.0)
    np.testing.assert_allclose(z, expect, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.limit("floor"), np.maximum(mass * G - k * t, 0.0),
                               rtol=0, atol=1e-9)


def arm_on_a_hinge(a0: float, lower: float, upper: float) -> Mechanism:
    """A 1 kg arm, its centre of mass 0.5 m out along its x, on a horizontal hinge along
    world -y (angle 0: the arm horizontal; pi/2: upright), started at a0 rad, with rigid
    stops at lower and upper."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, center_of_mass=(0.5, 0.0, 0.0),
               orientation=(math.cos(a0 / 2), 0.0, -math.sin(a0 / 2), 0.0))
    axis = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)    # marker z along -y
    m.add_marker("base", "ground", orientation=axis)
    m.add_marker("pin", "arm", orientation=axis)
    m.add_joint("hinge", "revolute", "pin", "base")
    m.add_limit("stop", "hinge", lower=lower, upper=upper)
    return m


@pytest.mark.parametrize("a0, lower, upper, rest", [
    (0.05, -0.4, 1.2, -0.4), (0.3, -0.4, 1.2, -0.4), (1.1, -0.4, 1.2, -0.4),
    (0.3, -0.4, 2.0, -0.4),          # the upright pose inside the range: still not the answer
    (1.7, -0.4, 1.8, 1.8),           # past the upright: gravity takes it to the upper stop
])
def test_statics_rests_an_arm_on_the_stop_gravity_pushes_it_toward(a0, lower, upper, rest) -> None:
    """Newton alone finds the upright balance at pi/2 (past the stop at 1.2 rad, or inside
    a wider range, unstable either way); from rest gravity turns the arm onto the stop on
    its side, where statics puts it: the stop carries the gravity torque m g l cos(q)
    (closed form, to 1e-9 of it: Newton's precision), the equilibrium is stable with no
    note, and a dynamic run from there starts inside the range and stays on the stop."""
    m = arm_on_a_hinge(a0, lower, upper)
    r = m.statics(update=True)
    q = r.orientation("arm")[0]
    assert -2.0 * math.atan2(q[2], q[0]) == pytest.approx(rest, abs=1e-10)
    assert r.limit("stop")[0] == pytest.approx(G * 0.5 * math.cos(rest), rel=1e-9)
    assert r.stable and not r.notes
    run = m.solve(duration=0.5, fps=24, analysis="dynamic")
    q = run.orientation("arm")
    np.testing.assert_allclose(-2.0 * np.arctan2(q[:, 2], q[:, 0]), rest, atol=1e-9)


def test_a_run_that_starts_on_a_stop_rests_on_it_from_the_first_frame() -> None:
    """A block at rest on its floor stop, and an arm put on its stop by statics: the run
    holds each on its stop from the start, the stop carrying the load (m g; the arm's
    m g l cos q) at every frame, the first included, to 1e-9 of it, with no impact (it
    was shown falling onto the stop 2e-6 s later, an impact, with no push at frame 0)."""
    mass = 1.0
    r = dropped_ball(0.0, 0.0, mass).solve(duration=0.5, fps=24, analysis="dynamic")
    assert not r.impacts
    np.testing.assert_allclose(r.limit("floor"), mass * G, rtol=1e-9)
    m = arm_on_a_hinge(0.3, -0.4, 1.2)
    m.statics(update=True)
    run = m.solve(duration=0.5, fps=24, analysis="dynamic")
    assert not run.impacts
    np.testing.assert_allclose(run.limit("stop"), G * 0.5 * math.cos(-0.4), rtol=1e-9)


def test_each_impact_records_the_speeds_and_the_impulse() -> None:
    """Result.impacts: each impact unpacks as (time, limits) and carries the struck
    coordinate's speed before and after and the stop's impulse (signed as Result.limit).
    The dropped ball (lower stop, slide): before -sqrt(2 g h) e^k, after e times its
    opposite, impulse m (1 + e) times the speed, in closed form to 1e-8 of it (the run's
    tolerance 1e-9; the impact located to 1e-10 s: measured 6e-10).  The pendulum swung into
    its upper stop (angle, restitution 0.5): before w = sqrt(w0^2 - 2 m g l (1 - cos 1.5) /
    I) by energy, after -w / 2, impulse -I (3/2) w (negative: an upper stop pushes toward a
    smaller angle), to 1e-7 (tolerance 1e-6; measured 7e-10).  The records survive pickling (a study's
    Results come back from other processes)."""
    import pickle
    h, e, mass = 2.0, 0.8, 0.5
    r = dropped_ball(h, e, mass).solve(duration=2.0, fps=24, analysis="dynamic",
                                       tolerance=1e-9)
    assert len(r.impacts) == 2
    for k, hit in enumerate(r.impacts):
        t, names = hit
        assert (t, names) == (hit.time, hit.limits) and names == ("floor",)
        assert hit.joints == ("drop",) and hit.bounds == ("lower",)
        speed = math.sqrt(2.0 * G * h) * e ** k
        np.testing.assert_allclose(hit.speed_before, [-speed], rtol=1e-8)
        np.testing.assert_allclose(hit.speed_after, [e * speed], rtol=1e-8)
        np.testing.assert_allclose(hit.impulse, [mass * (1.0 + e) * speed], rtol=1e-8)
    assert pickle.loads(pickle.dumps(r.impacts)) == r.impacts
    copy = pickle.loads(pickle.dumps(r.impacts[1]))
    assert (copy.speed_before, copy.impulse) == (r.impacts[1].speed_before, r.impacts[1].impulse)

    w0, inertia = 5.0, 1.0 + 1e-4
    r = pendulum_on_stops(e=0.5, w0=w0).solve(duration=0.5, fps=24, analysis="dynamic")
    hit = r.impacts[0]
    assert hit.limits == ("stop",) and hit.bounds == ("upper",)
    w = math.sqrt(w0 ** 2 - 2.0 * G * (1.0 - math.cos(1.5)) / inertia)
    np.testing.assert_allclose(hit.speed_before, [w], rtol=1e-7)
    np.testing.assert_allclose(hit.speed_after, [-0.5 * w], rtol=1e-7)
    np.testing.assert_allclose(hit.impulse, [-1.5 * inertia * w], rtol=1e-7)


def test_a_run_that_fails_keeps_its_impacts() -> None:
    """A bouncing ball under a load that cannot be evaluated past t = 1 s (sqrt(1 - t)):
    the error's partial Result keeps the impacts before the failure, the same as a run
    that stops at 0.95 s has."""
    m = dropped_ball(0.5, 0.8, 0.5)
    m.add_force("push", "shoe", force=(0.0, 0.0, "0.1 * sqrt(1.0 - t)"))
    with pytest.raises(SolverError) as info:
        m.solve(duration=1.5, fps=24, analysis="dynamic")
    shorter = m.solve(duration=0.95, fps=24, analysis="dynamic")
    assert len(shorter.impacts) >= 2
    assert info.value.result.impacts == shorter.impacts


def test_a_driven_joint_that_starts_on_its_stop_is_not_held_twice() -> None:
    """A crank driven t^2 from its lower stop at 0 rad, a free link on it: the motion holds
    the coordinate already, so the stop does not rest on it as well (a second row for one
    coordinate made the start's projection singular); the run goes on, the crank follows
    its motion to 1e-9 rad and the stop never pushes."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=1.0, center_of_mass=(0.5, 0.0, 0.0))
    m.add_part("link", mass=1.0, center_of_mass=(0.5, 0.0, 0.0), position=(1.0, 0.0, 0.0))
    m.add_marker("o", "ground")
    m.add_marker("c0", "crank")
    m.add_marker("c1", "crank", position=(1.0, 0.0, 0.0))
    m.add_marker("l0", "link")
    m.add_joint("pin", "revolute", "c0", "o")
    m.add_joint("knee", "revolute", "l0", "c1")
    m.add_motion("drive", "pin", "t**2")
    m.add_limit("stop", "pin", lower=0.0, upper=2.0)
    r = m.solve(duration=0.5, fps=24, analysis="dynamic")
    q = r.orientation("crank")
    np.testing.assert_allclose(2.0 * np.arctan2(q[:, 3], q[:, 0]), r.times ** 2, atol=1e-9)
    assert np.all(r.limit("stop") == 0.0) and not r.impacts


def test_a_run_keeps_its_tolerance_for_singular_positions_after_a_row_switch(monkeypatch) -> None:
    """The residual a projection may be left at while passing a singular position is the
    run's tolerance (1e-9 here, Goals.singular given to the equations at construction), and
    a change of the kept rows (the door coming to rest on its stop, then every later
    switch) keeps it: it used to fall back to 1e-6 at the first switch, so a later singular
    position was accepted at the default, not the user's goal."""
    from solver.analyses.dynamics import equations
    seen = []
    real = equations.Equations.use

    def use(self, st):
        real(self, st)
        seen.append(getattr(self, "robust_tol", None))
    monkeypatch.setattr(equations.Equations, "use", use)
    r = door(e=0.0).solve(duration=3.0, fps=24, analysis="dynamic", tolerance=1e-9)
    assert r.impacts and len(seen) > 2            # built once, then switched at the stop
    assert all(tol == 1e-9 for tol in seen), seen


@pytest.mark.parametrize("far", [None, 100.0])
def test_the_default_rest_speed_is_a_speed_unrelated_markers_leave_alone(far) -> None:
    """A ball dropped 0.2 m onto a stop with e = 0.3 and no rest_speed given: it rests after
    the first impact whose rebound e^k sqrt(2 g h) is below DEFAULT_REST_SPEED (1e-3 m/s),
    the 7th (rebounds 1.44e-3 then 4.3e-4 m/s: a factor 1.4 or more from the threshold, far
    beyond the run's speed error), and a ground marker 100 m away that nothing uses changes
    nothing (a share of the model's size would make the rest speed 0.1 m/s there: 3
    impacts)."""
    from solver.vocabulary.limits import DEFAULT_REST_SPEED
    h, e = 0.2, 0.3
    m = dropped_ball(h, e)
    if far is not None:
        m.add_marker("sign", "ground", position=(far, 0.0, 0.0))
    r = m.solve(duration=0.6, fps=24, analysis="dynamic")
    rebounds = math.sqrt(2.0 * G * h) * e ** np.arange(1, 20)
    expected = 1 + int(np.argmax(rebounds < DEFAULT_REST_SPEED))
    assert expected == 7
    assert len(r.impacts) == expected
    assert abs(r.position("ball")[-1, 2]) < 1e-9


def test_an_impact_returns_the_run_state_with_its_bound_at_rest() -> None:
    """A 0.5 kg ball on its floor stop moving down at 1 m/s, restitution 0: Newton's impact
    law stops it dead (its velocity 0 to rounding, 1e-12 m/s), loses its kinetic energy
    m v^2 / 2 = 0.25 J and returns a new run state with the bound resting; the run state
    the equations were told is left as it was (no stop resting), and letting go of a
    stop that would pull returns a new array, the one passed unchanged."""
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.dynamics.stops import Stops
    from solver.analyses.structure import structure
    from solver.kernels.constraints import motion_values
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = dropped_ball(0.0, 0.0, 0.5)
    m.parts["ball"].velocity[:] = (0.0, 0.0, -1.0)
    model = compile_model(m)
    st = read_state(model, m)
    eq = Equations(model, structure(model, st.r, st.p))
    told = eq.run
    stops = Stops(model)
    v, w, lost, record, run = stops.impact(eq, 0.0, st.r, st.p, st.v, st.w, np.array([0]),
                                           motion_values(model, 0.0))
    assert run.resting.tolist() == [True] and told.resting.tolist() == [False]
    assert np.abs(v).max() <= 1e-12 and lost == pytest.approx(-0.25, rel=1e-12)
    pull = np.zeros(model.nc)
    pull[model.limits.rows[0]] = model.limits.sgn[0]      # push -sgn lambda < 0: it pulls
    resting, let_go = stops.release(pull, run.resting)
    assert let_go and resting.tolist() == [False] and run.resting.tolist() == [True]


def spinning_wheel_on_a_soft_stop() -> Mechanism:
    """A wheel (I_zz = 0.1 kg m^2) spinning at 5 rad/s on a pin about z, free between
    compliant stops at -3 and 3 rad (10 N m/rad, no damping)."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("wheel", mass=1.0, inertia=(0.05, 0.05, 0.1), angular_velocity=(0.0, 0.0, 5.0))
    m.add_marker("o", "ground")
    m.add_marker("hub", "wheel")
    m.add_joint("pin", "revolute", "hub", "o")
    m.add_limit("soft", "pin", lower=-3.0, upper=3.0, stiffness=10.0, exponent=1.0, damping=0.0)
    return m


def soft_wheel_angle(t: np.ndarray, k: float = 10.0) -> np.ndarray:
    """The spinning wheel's angle in closed form (rad): 5 t to the stop at 3 rad (0.6 s),
    then I theta'' = -k (theta - 3), a half sine of amplitude 5 / w (w = sqrt(k / I)) over
    pi / w s (the stop has no damping: it gives back all it took), then back at -5 rad/s."""
    w = math.sqrt(k / 0.1)
    back = 0.6 + math.pi / w
    return np.where(t < 0.6, 5.0 * t, np.where(t < back, 3.0 + 5.0 / w * np.sin(w * (t - 0.6)),
                                                3.0 - 5.0 * (t - back)))


def test_a_wheel_pushed_past_pi_into_its_compliant_stop_turns_back_at_3_5_rad() -> None:
    """The wheel reaches the upper stop at 0.6 s with 1.25 J and turns back where the
    stop holds it all, 10 (theta - 3)^2 / 2 = 1.25 J: at 3.5 rad, past pi.  The limit
    reads the joint's continuous angle (the turn carried from step to step), so past pi
    the stop still pushes it back; read within half a turn of the range's middle it was
    taken past the lower stop at 3.14 rad and pushed on round (the run was stopped there).
    The frames follow the closed form (soft_wheel_angle) to 2e-5 rad: the default
    tolerance (1e-6) leaves 7e-6 rad at 2 s, the rebound's speed error carried on, and
    1e-8 leaves 1.6e-7, so it is the integration's; the kinetic energy comes back to
    1.25 J to 1e-5 J."""
    out = spinning_wheel_on_a_soft_stop().solve(duration=2.0, fps=50, analysis="dynamic")
    angle = joint_angle(out, "pin")
    assert np.abs(angle - soft_wheel_angle(out.times)).max() < 2e-5
    assert angle.max() == pytest.approx(3.0 + 0.5 * math.sin(1.6), abs=2e-5)   # frame 0.76 s
    assert out.energy()[0][-1] == pytest.approx(1.25, abs=1e-5)


def test_a_motion_driven_round_through_a_stop_between_frames_is_named() -> None:
    """Stops at -3 and 3 rad, the pin driven 5 t, at 2 fps: the frames at 0 and 2.5 rad
    are in range and the one at 5 rad read as -1.28 rad, in range too: the sweep ran
    through the stop.  The sweep carries the joint's turn from frame to frame (by its
    rate) and reads 5 rad there, past the upper stop: the sweep stops at frame 2 naming
    the limit, with the frames before."""
    m = driven_wheel("5*t")
    m.add_limit("stop", "axle", lower=-3.0, upper=3.0)
    said = r"limit 'stop': joint 'axle' past its upper bound 3 rad .* at t = 1 s \(frame 2\)"
    with pytest.raises(SolverError, match=said) as info:
        m.solve(duration=1.0, fps=2)
    assert len(info.value.result) == 2


def test_a_wheel_turning_away_from_its_lone_stop_spins_on_freely() -> None:
    """A wheel turning at -2 rad/s away from its one stop (upper, 1 rad): the stop is met
    only at 1 rad on the joint's continuous angle, so the wheel spins on at -2 rad/s
    through 1 - pi rad and on round (-8 rad at 4 s), with no impact (read within half a
    turn of its bound, the joint was struck at 1 - pi rad, 1.0708 s, where there is no
    stop).  The frames follow -2 t to 1e-9 rad (a free spin integrates exactly but for
    rounding)."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("wheel", mass=1.0, inertia=(0.05, 0.05, 0.1), angular_velocity=(0.0, 0.0, -2.0))
    m.add_marker("o", "ground")
    m.add_marker("hub", "wheel")
    m.add_joint("pin", "revolute", "hub", "o")
    m.add_limit("stop", "pin", upper=1.0)
    out = m.solve(duration=4.0, fps=50, analysis="dynamic")
    assert not out.impacts and len(out) == 201
    assert np.abs(joint_angle(out, "pin") + 2.0 * out.times).max() < 1e-9

