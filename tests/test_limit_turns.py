"""Angle limits on a joint's continuous angle (solver/analyses/limit_turns.py): ranges wider
than a turn (a handwheel's stops at -10 and +10 rad) in dynamics, sweeps and statics, and
the turn a run starts on (the pose's, one inside the range, or a driving motion's)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechanisms import driven_wheel
from solver import Mechanism, SolverError
from solver.analyses.checks.joint_angles import joint_angle


def handwheel(spin: float, **limit) -> Mechanism:
    """A wheel (I_zz = 0.1 kg m^2) on a pin about z spinning at ``spin`` rad/s, no gravity,
    its angle limited by ``limit`` (add_limit's keywords)."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("wheel", mass=1.0, inertia=(0.05, 0.05, 0.1), angular_velocity=(0.0, 0.0, spin))
    m.add_marker("o", "ground")
    m.add_marker("hub", "wheel")
    m.add_joint("pin", "revolute", "hub", "o")
    m.add_limit("stop", "pin", **limit)
    return m


def test_a_handwheel_spinning_strikes_its_stop_ten_radians_out() -> None:
    """Rigid stops at -10 and +10 rad (more than a turn and a half each way), the wheel
    spinning at 5 rad/s from 0: it turns freely for 2 s, strikes the upper stop at 10 rad
    (t = 2 s to 1e-9 s: impacts are located to 1e-10 s and a free spin integrates
    exactly) and rebounds at -e 5 = -2.5 rad/s; its angle is 5 t, then 10 - 2.5 (t - 2)
    (1e-8 rad).  Read within half a turn of the range's middle, 10 rad was never reached;
    bounds past pi were refused."""
    out = handwheel(5.0, lower=-10.0, upper=10.0, restitution=0.5).solve(
        duration=3.0, fps=20, analysis="dynamic")
    [hit] = out.impacts
    assert hit.time == pytest.approx(2.0, abs=1e-9) and hit.bounds == ("upper",)
    assert hit.speed_before[0] == pytest.approx(5.0, rel=1e-9)
    assert hit.speed_after[0] == pytest.approx(-2.5, rel=1e-9)
    t = out.times
    closed = np.where(t <= 2.0, 5.0 * t, 10.0 - 2.5 * (t - 2.0))
    assert np.abs(joint_angle(out, "pin") - closed).max() < 1e-8


def test_a_handwheel_on_compliant_stops_turns_back_past_its_bound() -> None:
    """Compliant stops at -10 and +10 rad (10 N m/rad, no damping), the wheel at 5 rad/s:
    past 10 rad at 2 s the stop takes its 1.25 J, 10 (theta - 10)^2 / 2, and turns it
    back at 10.5 rad after pi / 10 s (a half sine, w = sqrt(k / I) = 10 rad/s); it leaves
    at -5 rad/s.  The frames follow that closed form to 2e-5 rad (the default tolerance's
    error across the force's kink at the bound: test_limits.py)."""
    out = handwheel(5.0, lower=-10.0, upper=10.0, stiffness=10.0).solve(
        duration=3.0, fps=50, analysis="dynamic")
    t = out.times
    back = 2.0 + math.pi / 10.0
    closed = np.where(t < 2.0, 5.0 * t, np.where(t < back, 10.0 + 0.5 * np.sin(10.0 * (t - 2.0)),
                                                  10.0 - 5.0 * (t - back)))
    angle = joint_angle(out, "pin")
    assert np.abs(angle - closed).max() < 2e-5 and angle.max() > 10.49


def test_a_handwheel_driven_past_its_stop_stops_the_sweep_ten_radians_out() -> None:
    """The pin driven 5 t against rigid stops at -10 and +10 rad, at 10 fps: the sweep
    carries the joint's turns (by its rate) and stops at the first frame past 10 rad,
    frame 21 (2.1 s, 10.5 rad), naming the limit; the 21 frames before are kept."""
    m = driven_wheel("5*t")
    m.add_limit("stop", "axle", lower=-10.0, upper=10.0)
    said = r"limit 'stop': joint 'axle' past its upper bound 10 rad .* at t = 2.1 s \(frame 21\)"
    with pytest.raises(SolverError, match=said) as info:
        m.solve(duration=3.0, fps=10)
    before = info.value.result
    assert len(before) == 21
    assert np.abs(joint_angle(before, "axle") - 5.0 * before.times).max() < 1e-12


def test_a_driven_joint_starts_on_its_motions_turn() -> None:
    """The pin driven 7 + 5 t (its pose at the start reads 7 - 2 pi = 0.717 rad) between
    stops at 5 and 10 rad: the limit starts on the motion's turn, 7 rad, inside the
    range, and the sweep stops at 10.5 rad (frame 7 at 10 fps); on the pose's own turn
    the start lay outside the range."""
    m = driven_wheel("7 + 5*t")
    m.add_limit("stop", "axle", lower=5.0, upper=10.0)
    with pytest.raises(SolverError, match=r"upper bound 10 rad .* \(frame 7\)") as info:
        m.solve(duration=1.0, fps=10)
    assert len(info.value.result) == 7


def hanging_arm(lower: float, upper: float) -> Mechanism:
    """A 1 kg point arm 0.5 m long hanging from a pin about y under gravity, built 0.5 rad
    from hanging, its angle limited to [lower, upper] rad."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    c, s = math.cos(0.25), math.sin(0.25)
    m.add_part("arm", mass=1.0, inertia=(1e-6, 1e-6, 1e-6), center_of_mass=(0.0, 0.0, -0.5),
               orientation=(c, 0.0, s, 0.0))
    m.add_marker("o", "ground", orientation=(math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0))
    m.add_marker("hub", "arm", orientation=(math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0))
    m.add_joint("pin", "revolute", "hub", "o")
    m.add_limit("stop", "pin", lower=lower, upper=upper)
    return m


@pytest.mark.parametrize("lower, upper", [(0.3, 10.0), (2.0 * math.pi + 0.3, 2.0 * math.pi + 1.0)])
def test_an_arm_rests_on_its_stop_on_the_turn_it_starts_on_in_statics(lower, upper) -> None:
    """The arm built 0.5 rad from hanging, its lower stop 0.2 rad below it (at 0.3 rad with
    a range to 10 rad, over a turn and a half; or a turn round, at 2 pi + 0.3 with the
    pose read on the turn inside the range, 2 pi + 0.5): gravity pulls it onto that stop,
    which carries m g l sin(0.3) = 1.4494 N m.  Read on the turn nearest the range's
    middle (5.15 rad), the start of [0.3, 10] was 2 pi + 0.5 rad and the arm hung free
    at 2 pi, through its stop."""
    out = hanging_arm(lower, upper).statics()
    assert joint_angle(out, "pin")[0] == pytest.approx(0.3, abs=1e-9)
    assert abs(out.limit("stop")[0]) == pytest.approx(9.81 * 0.5 * math.sin(0.3), rel=1e-9)


def test_a_fast_handwheel_strikes_its_stop_between_coarse_frames() -> None:
    """The wheel at 100 rad/s between rigid stops at -10 and +10 rad, at 24 fps (4.2 rad a
    frame, more than half a turn): each step turns it at most a quarter turn (its end is
    read on the turn nearest its start), so the impact at 10 rad, t = 0.1 s, is found
    (to 1e-8 s: 1.0e-9 s early) and the wheel rebounds at -50 rad/s, its angle
    10 - 50 (t - 0.1) after (to 1e-6 rad: 50 rad/s times 1e-8 s).  With steps as long as
    the frames, each step's end read on the turn nearest its start, the impact was
    located 4.6e-8 s early."""
    out = handwheel(100.0, lower=-10.0, upper=10.0, restitution=0.5).solve(
        duration=0.25, fps=24, analysis="dynamic")
    assert out.impacts[0].time == pytest.approx(0.1, abs=1e-8)
    t = out.times
    closed = np.where(t <= 0.1, 100.0 * t, 10.0 - 50.0 * (t - 0.1))
    assert np.abs(joint_angle(out, "pin") - closed).max() < 1e-6


def test_a_handwheel_on_stiff_stops_bounces_back_by_the_implicit_method() -> None:
    """Compliant stops at -10 and +10 rad of 1e4 N m/rad (w = sqrt(k / I) = 316 rad/s), the
    wheel at 5 rad/s, Radau IIA: the stop's force and its Jacobian read the angle past
    10 rad (the iteration matrix on the same turn as the force), and the wheel leaves the
    stop at -5 rad/s after pi / w s; at 3 s it is at 10 - 5 (3 - 2 - pi / w) rad (to 1e-5
    rad: 3.6e-6 at the default tolerance, the bounce's speed error carried on)."""
    out = handwheel(5.0, lower=-10.0, upper=10.0, stiffness=1e4).solve(
        duration=3.0, fps=50, analysis="dynamic", method="implicit")
    assert out.method.startswith("implicit")
    back = 2.0 + math.pi / math.sqrt(1e5)
    assert joint_angle(out, "pin")[-1] == pytest.approx(10.0 - 5.0 * (3.0 - back), abs=1e-5)


def test_a_gear_driven_through_its_stop_at_coarse_frames_is_named() -> None:
    """A wheel driven 5 t turns a second gear through a coupler of ratio 2 (its angle
    -10 t), whose pin has stops at -10 and +10 rad; at 2 fps the gear turns 5 rad a frame
    (more than half a turn), and no motion drives it: the sweep follows its angle by its
    rate (the trapezoidal change from frame to frame), so the frames read 0, -5 and -10
    rad and the sweep stops at frame 3 (-15 rad) naming the gear's limit.  Read on the
    turn nearest the frame before (no rates), -5 rad was 1.28 and the sweep ran through
    the stop."""
    m = driven_wheel("5*t")
    m.add_part("gear", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(1.0, 0.0, 0.0))
    m.add_marker("O2", "ground", position=(1.0, 0.0, 0.0))
    m.add_marker("hub2", "gear")
    m.add_joint("axle2", "revolute", "hub2", "O2")
    m.add_coupler("mesh", ["axle", "axle2"], [2.0, 1.0])
    m.add_limit("stop", "axle2", lower=-10.0, upper=10.0)
    said = r"limit 'stop': joint 'axle2' past its lower bound -10 rad .* at t = 1.5 s \(frame 3\)"
    with pytest.raises(SolverError, match=said) as info:
        m.solve(duration=2.0, fps=2)
    before = info.value.result
    assert np.abs(joint_angle(before, "axle2") + 10.0 * before.times).max() < 1e-9
