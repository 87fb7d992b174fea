"""The frames of a dynamic run: steps past frames that are denser than the motion needs
(dense output, analyses/dynamics/driver.py LONG_STEP) in open trees and in closed loops at rest,
within the explicit method's stability; a mechanism at rest holding its pose; and the
frames at step ends stored into the Result a block at a time (model/results.py
FrameBuffer).  Each against the run whose every frame is a step's end, stored one by one."""
from __future__ import annotations

import math

import numpy as np
import pytest

import mechanisms as mk
from solver import Mechanism

G = mk.G


def settling_pendulum() -> Mechanism:
    """A pendulum on a damped torsion spring about world y, released 1 rad off: it comes to
    rest within a few seconds and then hangs there for the rest of a long run."""
    m = mk.pendulum(axis="y", angle=1.0)
    m.add_torsion_spring("coil", "pin", stiffness=20.0, damping=4.0)
    return m


def _run(m: Mechanism, times, monkeypatch=None, cut: bool = False):
    if cut:        # every frame a step's end, integrated to the last one even at rest
        monkeypatch.setattr("solver.analyses.dynamics.driver.LONG_STEP", float("inf"))
        monkeypatch.setattr("solver.analyses.dynamics.frames.REST_SPEED", -1.0)
    r = m.solve(times=times)
    if cut:
        monkeypatch.undo()
    return r


def test_a_run_at_rest_steps_past_its_frames_and_keeps_them_exact(monkeypatch) -> None:
    """600 frames (25 s at 24 fps) of a pendulum that settles: once the steps outgrow the
    frames (dynamics.LONG_STEP) they run past them and the frames in between are the steps'
    dense output, projected and evaluated: under a quarter of the steps of the run whose
    every frame is a step's end, with the same poses (1e-9 m), angular velocities and
    reactions (1e-8 of their size), the hinge closed (1e-10 m) and the energy balance
    (KE + PE + the spring's, less the damper's work: 1e-7 of the energy released)."""
    m, times = settling_pendulum(), np.arange(600) / 24.0
    r = _run(m, times)
    ref = _run(m, times, monkeypatch, cut=True)
    assert ref.steps >= 599 and r.steps < ref.steps / 4
    assert np.array_equal(r.times, ref.times)
    assert np.abs(r.position("bob") - ref.position("bob")).max() <= 1e-9
    assert np.abs(r.angular_velocity("bob") - ref.angular_velocity("bob")).max() <= 1e-8 * 2.0
    size = np.abs(ref.reaction("pin")[0]).max()            # N (the torque about y is zero)
    for a, b in zip(r.reaction("pin"), ref.reaction("pin")):
        assert np.abs(a - b).max() <= 1e-8 * size
    assert max(mk.joint_gaps(m, r).values()) <= 1e-10
    ke, pe, work = r.energy()
    total = ke + pe - work
    assert np.abs(total - total[0]).max() <= 1e-7 * (pe[0] - pe.min())


def test_fast_frames_of_a_moving_chain_come_from_the_dense_output(monkeypatch) -> None:
    """A swinging chain of three rods at 960 fps: the steps (about 10 frames long) run past
    the frames and the frames agree with the cut run's to 1e-8 m, the energy balance of
    both within 1e-8 of m g L N^2 / 2 (the tolerance's goal is 1e-7 on it); a swinging
    four-bar, a closed loop in motion, keeps every frame a step's end."""
    m = mk.chain([0.3, -0.4, 0.2])
    times = np.arange(481) / 960.0
    r = _run(m, times)
    ref = _run(m, times, monkeypatch, cut=True)
    assert r.steps < ref.steps / 3
    for k in range(3):
        assert np.abs(r.position(f"link{k}") - ref.position(f"link{k}")).max() <= 1e-8
    for res in (r, ref):
        ke, pe, work = res.energy()
        assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() <= 1e-8 * G * 9 / 2
    fb = swinging_four_bar()
    assert fb.solve(times=times[:97]).steps >= 96


def test_loose_tolerance_steps_run_past_fast_frames_too(monkeypatch) -> None:
    """At a loose tolerance (1e-3: Dormand-Prince 5(4), whose dense output is Shampine's of
    order 4) the chain of three rods at 960 fps also steps past its frames: under a tenth
    of the cut run's steps (measured 29 against 485), the frames within 1e-6 m of the cut
    run's (measured 7e-8), the energy balance within 1e-6 of m g L N^2 / 2 (measured 5e-8;
    the tolerance's goal is 1e-4 on it) and the joints closed to 1e-10 m."""
    m = mk.chain([0.3, -0.4, 0.2])
    times = np.arange(481) / 960.0
    monkeypatch.setattr("solver.analyses.dynamics.driver.LONG_STEP", float("inf"))
    ref = m.solve(times=times, tolerance=1e-3)
    monkeypatch.undo()
    r = m.solve(times=times, tolerance=1e-3)
    assert "5(4)" in r.method and r.steps < ref.steps / 10
    for k in range(3):
        assert np.abs(r.position(f"link{k}") - ref.position(f"link{k}")).max() <= 1e-6
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() <= 1e-6 * G * 9 / 2
    assert max(mk.joint_gaps(m, r).values()) <= 1e-10


def swinging_four_bar() -> Mechanism:
    """The four-bar of tests/mechanisms (free, no motion) with gravity in its plane and a
    damper on the crank's pivot: it swings and settles."""
    fb = mk.four_bar(driven=False, error_deg=0.0, error_m=0.0)
    fb.gravity = np.array([0.0, -G, 0.0])
    fb.add_torsion_spring("damper", "pivot2", damping=2.0)
    return fb


@pytest.mark.slow
def test_a_closed_loop_at_rest_steps_past_its_frames(monkeypatch) -> None:
    """A closed loop takes steps past its frames only while it rests (a step moves no part
    more than dynamics.REST of its size; moving, the cut steps are what finds a lined-up
    position): the damped four-bar settling over 2,000 frames takes under half of the
    cut run's steps, its parts' orientations within 1e-9 of the cut run's and at rest to
    1e-9 rad/s once settled, its joints closed to 1e-10 m."""
    fb, times = swinging_four_bar(), np.arange(2000) / 24.0
    r = fb.solve(times=times)
    cut = _run(fb, times, monkeypatch, cut=True)
    assert cut.steps >= 1999 and r.steps < cut.steps / 2
    for part in ("crank", "coupler", "rocker"):
        assert np.abs(r.orientation(part) - cut.orientation(part)).max() <= 1e-9
        assert np.abs(r.angular_velocity(part)[1200:]).max() <= 1e-9     # at rest (at_rest)
    assert max(mk.joint_gaps(fb, r).values()) <= 1e-10


@pytest.mark.parametrize("tolerance", [1e-6, 1e-3])
@pytest.mark.slow
def test_steps_past_the_frames_stay_within_the_explicit_methods_stability(monkeypatch,
                                                                          tolerance) -> None:
    """Where the explicit method's error estimate vanishes only stability bounds a long step
    (the stepper's ``stable`` over the equations' fastest rate, motion_rate: here the
    pendulum's sqrt(g/l), within 2%), for DOP853 (tolerance 1e-6) and Dormand-Prince 5(4)
    (1e-3).  A pendulum hanging exactly at rest, integrated (not held: REST_SPEED < 0),
    takes under a fifth of the frames' steps and stays at rest to rounding (before the bound,
    steps of tens of seconds turned rounding into 8e-5 rad/s).  One released 1e-6 rad off
    the bottom swings undamped for 100 s with its amplitude kept within 5% (a bound past
    5(4)'s stability on the imaginary axis, 1.5 as DOP853's, grew it 1.76-fold; measured
    0.992 and 1.000)."""
    from solver.analyses.dynamics.frames import motion_rate
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.run import prepare
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    monkeypatch.setattr("solver.analyses.dynamics.frames.REST_SPEED", -1.0)
    m = mk.pendulum(axis="y", angle=math.pi / 2)               # straight down
    r = m.solve(times=np.arange(2000) / 24.0, tolerance=tolerance)
    assert r.rest_from is None and 10 <= r.steps < 400        # measured 214 and 294
    assert np.abs(r.angular_velocity("bob")).max() <= 1e-12
    assert np.abs(r.position("bob") - r.position("bob")[0]).max() <= 1e-12
    monkeypatch.undo()
    swing = mk.pendulum(axis="y", angle=math.pi / 2 + 1e-6).solve(
        times=np.arange(2400) / 24.0, tolerance=tolerance)
    w = np.abs(swing.angular_velocity("bob")[:, 1])
    assert swing.steps < 500 and 0.95 <= w[-240:].max() / w[:240].max() <= 1.05
    model = compile_model(m)
    begun = prepare(model, read_state(model, m), np.array([0.0, 1.0]))
    eq = Equations(model, begun.structure)
    s = begun.state
    l = 1.0                                                      # pin to centre of mass, m
    omega = math.sqrt(model.body_mass[0] * G * l / (model.body_mass[0] * l * l + 4e-5))
    assert motion_rate(eq, 0.0, eq.pack(s.r, s.p, s.v, s.w, 0.0)) == pytest.approx(omega, rel=0.02)


@pytest.mark.slow
def test_a_fast_mode_keeps_the_steps_cut_and_the_rate_is_seldom_estimated(monkeypatch) -> None:
    """A pendulum on a stiff torsion spring (45 rad/s, explicit) that settles: its steps
    outgrow the frames, but the fast mode bounds an explicit long step below two frames, so
    every frame stays a step's end; the rate is estimated again later and later (each
    estimate costs 31 right-hand sides; a run once paid one every step: 3x its time)."""
    import solver.analyses.dynamics.driver as dyn
    calls = []
    real = dyn.motion_rate
    monkeypatch.setattr(dyn, "motion_rate", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr("solver.analyses.dynamics.frames.REST_SPEED", -1.0)   # even at rest
    m = mk.pendulum(axis="y", angle=0.3)
    m.add_torsion_spring("coil", "pin", stiffness=2000.0, damping=5.0)
    r = m.solve(times=np.arange(1200) / 24.0)
    assert r.method.startswith("explicit") and r.steps >= 1199
    assert 1 <= len(calls) <= 12


@pytest.mark.slow
def test_a_mechanism_at_rest_holds_its_pose_for_the_frames_after() -> None:
    """Nothing that depends on time acts on the settling pendulum (no motion, applied load or
    actuator): once no part moves or accelerates beyond rounding (dynamics.at_rest) the
    frames after hold its pose, reactions and energies (Result.rest_from: from where); the
    held frames equal the integrated run's (1e-10 m, the reactions to 1e-9 of their
    size).  A driven or loaded mechanism is never held."""
    m, times = settling_pendulum(), np.arange(2400) / 24.0
    r = m.solve(times=times)
    assert r.rest_from is not None and 24 < r.rest_from < 600 and not r.notes
    import solver.analyses.dynamics.frames as frames
    rest, frames.REST_SPEED = frames.REST_SPEED, -1.0
    try:
        full = m.solve(times=times)
    finally:
        frames.REST_SPEED = rest
    assert full.rest_from is None
    assert np.abs(r.position("bob") - full.position("bob")).max() <= 1e-10
    size = np.abs(full.reaction("pin")[0]).max()
    assert np.abs(r.reaction("pin")[0] - full.reaction("pin")[0]).max() <= 1e-9 * size
    assert np.array_equal(r.position("bob")[-1], r.position("bob")[-500])
    pushed = settling_pendulum()
    pushed.add_marker("tip", "bob", position=(1.0, 0, 0))
    pushed.add_force("nudge", "tip", force=(0.0, 0.0, "0.0*t"))
    assert pushed.solve(times=times[:600]).rest_from is None


def _rubbing_chain() -> Mechanism:
    """Three rods on revolute joints swinging in the xz plane, the first pin dry (friction
    reads its reaction, so every frame stores reactions, friction and energies)."""
    m = mk.chain([0.3, -0.4, 0.2], kind="revolute", axis="y")
    m.add_friction("dry", "joint0", static=0.2, dynamic=0.15, radius=0.02)
    return m


@pytest.mark.slow
def test_frames_stored_a_block_at_a_time_equal_frame_by_frame(monkeypatch) -> None:
    """A run's frames at step ends go into its Result a block at a time (model/results.py
    FrameBuffer: reactions, world inertias and energies of up to 64 frames in one set of
    calls): the same poses, velocities, accelerations, multipliers, reactions, friction and
    energies as storing every frame on its own (BLOCK = 1), to 1e-12 of their size (only
    the order of a sum differs).  A run cancelled at frame 30 of 100 (inside the first
    block) returns those 30 frames as the full run has them, not a buffer's zeros, and so
    does one cancelled among the frames of a long step."""
    from solver.model.frame_buffer import FrameBuffer
    from solver import SolverCancelled
    times = np.arange(100) / 50.0
    r = _rubbing_chain().solve(times=times)
    monkeypatch.setattr(FrameBuffer, "BLOCK", 1)
    ref = _rubbing_chain().solve(times=times)
    monkeypatch.undo()
    assert r.steps == ref.steps and np.abs(ref.friction("dry")).max() > 0.0
    for name in ("_r", "_p", "_v", "_w", "_a", "_alpha", "multipliers", "_reaction",
                 "_friction", "_energy", "_power_nc"):
        a, b = getattr(r, name), getattr(ref, name)
        assert np.abs(a - b).max() <= 1e-12 * max(np.abs(b).max(), 1.0), name
    with pytest.raises(SolverCancelled) as info:
        _rubbing_chain().solve(times=times, progress=lambda k, n: k < 30)
    cut = info.value.result
    assert len(cut) == 30
    np.testing.assert_array_equal(cut._r, r._r[:30])
    np.testing.assert_array_equal(cut._reaction, r._reaction[:30])
    np.testing.assert_array_equal(cut._energy, r._energy[:30])
    # cancelled among the frames of a long step (960 fps): the step ends before it, still
    # buffered when the long step began, are in the cancelled run's frames too
    fast = mk.chain([0.3, -0.4, 0.2])
    times = np.arange(481) / 960.0
    full = fast.solve(times=times)
    with pytest.raises(SolverCancelled) as info:
        fast.solve(times=times, progress=lambda k, n: k < 200)
    cut = info.value.result
    assert len(cut) == 200 and full.steps < 100                 # long steps reached frame 200
    np.testing.assert_array_equal(cut._r, full._r[:200])
    np.testing.assert_array_equal(cut._reaction, full._reaction[:200])


def test_the_fastest_rate_of_many_variants_is_each_ones_own() -> None:
    """motion_rate over a study's stacked variants (study/lockstep.py asks it for all at
    once) gives each variant its own run's rate to the last bit: pendulums of three
    lengths and masses, each at its own angle and speed, against motion_rate of each
    alone."""
    from solver.analyses.dynamics.frames import motion_rate
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.run import prepare
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    from solver.study.stack import stack_models
    models, ys, alone = [], [], []
    for length, angle in ((0.5, 0.3), (1.0, 1.2), (2.0, 2.0)):
        m = mk.pendulum(axis="y", angle=angle, mass=length, center_of_mass=(length, 0.0, 0.0))
        model = compile_model(m)
        begun = prepare(model, read_state(model, m), np.array([0.0, 1.0]))
        eq = Equations(model, begun.structure)
        s = begun.state
        ys.append(eq.pack(s.r, s.p, s.v + 0.1 * length, s.w, 0.0))
        alone.append(motion_rate(eq, 0.0, ys[-1]))
        models.append(model)
    both = Equations(stack_models(models), begun.structure)
    got = motion_rate(both, np.zeros(3), np.stack(ys))
    assert got.shape == (3,) and np.array_equal(got, alone)
    assert len(set(alone)) == 3


@pytest.mark.parametrize("fps", [24, 4])
def test_a_pulse_between_frames_is_not_stepped_over(fps):
    """A pendulum hanging at rest (steps of many frames) kicked at 2 s by a 20 ms force
    pulse of 10 N at its bob, made of two Adams steps of t: the run ends its steps on the
    pulse's edges (Model.breakpoints), so the swing after it is the pendulum's own,
    I_p theta'' = -m g L sin(theta) + F(t) L cos(theta), integrated by scipy piece by
    piece between the edges (rtol 1e-12): the bob's x = L sin(theta) within 1e-7 m of a
    6 cm swing (the run's tolerance 1e-6).  Its steps used to run over the pulse unseen:
    the bob never moved."""
    from scipy.integrate import solve_ivp
    pulse = "10 * step(t, 2.0, 0, 2.001, 1) * step(t, 2.019, 1, 2.02, 0)"
    m = mk.pendulum(axis="y", angle=math.pi / 2)
    m.add_marker("c", "bob", position=(1.0, 0.0, 0.0))
    m.add_force("kick", "c", force=(pulse, 0, 0))
    r = m.solve(duration=4.0, fps=fps, analysis="dynamic")
    force = m.loads["kick"].force[0]
    ip = 4e-5 + 1.0

    def rate(t, s):
        return [s[1], (-G * math.sin(s[0]) + force(t) * math.cos(s[0])) / ip]
    state, x = [0.0, 0.0], np.zeros(len(r.times))      # at rest until the pulse
    edges = [2.0, 2.001, 2.019, 2.02, 4.0]
    for a, b in zip(edges[:-1], edges[1:]):
        sol = solve_ivp(rate, (a, b), state, method="DOP853", rtol=1e-12, atol=1e-14,
                        dense_output=True)
        on = (r.times > a) & (r.times <= b)
        if on.any():
            x[on] = np.sin(sol.sol(r.times[on])[0])
        state = sol.y[:, -1]
    assert np.abs(x).max() > 0.05
    np.testing.assert_allclose(r.center_of_mass("bob")[:, 0], x, rtol=0, atol=1e-7)


def test_steps_the_frames_cut_take_the_lower_order_pair(monkeypatch):
    """The door_stop door (a stop, a dry hinge: its steps end on the frames), whose
    DOP853 steps the frames cut to a few thousandths of its error goal: Dormand-Prince 5(4)
    takes those steps (analyses/dynamics/pairs.py), held to the same goal: its poses within
    1e-9 m and its impacts and friction events within 1e-8 s of the run with DOP853 alone
    (the tolerance's 1e-6 of the door's 1 m: its poses differ by 2e-10 m), in at most 0.85
    of its right-hand sides (965 against 1,255)."""
    import solver.analyses.dynamics.driver as driver
    from solver.analyses.dynamics.equations import Equations
    from test_friction_load import _door_with_a_dry_hinge
    calls = [0]
    real = Equations.rhs_parts

    def counted(self, *a, **k):
        calls[0] += 1
        return real(self, *a, **k)
    monkeypatch.setattr(Equations, "rhs_parts", counted)
    both = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    n_both, calls[0] = calls[0], 0
    monkeypatch.setattr(driver, "frame_pairs", lambda run: None)
    alone = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    assert "5(4) on the steps the frames cut" in both.method and "5(4)" not in alone.method
    assert np.abs(both._r - alone._r).max() < 1e-9
    assert len(both.impacts) == len(alone.impacts) == 5
    assert max(abs(a.time - b.time) for a, b in zip(both.impacts, alone.impacts)) < 1e-8
    assert len(both.friction_events) == len(alone.friction_events)
    assert max(abs(a[0] - b[0]) for a, b in zip(both.friction_events, alone.friction_events)) < 1e-8
    assert n_both <= 0.85 * calls[0]
