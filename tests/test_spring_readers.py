"""The spring-dampers' and torsion springs' own outputs read from a Result (Result.spring,
spring_length, torsion_spring, torsion_spring_angle) against closed forms: a hanging mass
at rest, a damper pulled at a known speed, a torsion spring wound several turns by a motion
or by its own swing, and the work of the spring force against its energy change."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError
from tests.mechanisms import G

MASS, K, L0 = 2.0, 400.0, 0.5


def _hanging(k=K, c=0.0, preload=0.0, drop=0.0, gravity=G) -> Mechanism:
    """A block on a vertical rail (prismatic along world z) hanging from a spring-damper
    whose top end is 1 m above the block's marker; free length L0 unless ``drop`` moves the
    block from there (m, downwards)."""
    m = Mechanism(gravity=(0.0, 0.0, -gravity))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=MASS, inertia=(0.01, 0.01, 0.01), position=(0.0, 0.0, -drop))
    m.add_marker("top", "ground", position=(0.0, 0.0, L0))
    m.add_marker("rail", "ground")
    m.add_marker("hook", "block")
    m.add_joint("slide", "prismatic", "hook", "rail")
    m.add_spring_damper("spring", "hook", "top", stiffness=k, damping=c, preload=preload,
                        free_length=L0)
    return m


def test_a_hanging_mass_at_rest_pulls_its_spring_with_its_weight():
    """Statics: k (l - L0) = m g, so the tension reads m g (positive: pulling the ends
    together) and the length L0 + m g / k."""
    r = _hanging().statics()
    # 1e-9: the statics' Newton stops at a scaled residual far below it (NEWTON_TOL)
    assert r.spring("spring")[0] == pytest.approx(MASS * G, rel=1e-9)
    assert r.spring_length("spring")[0] == pytest.approx(L0 + MASS * G / K, rel=1e-9)


def test_a_preloaded_spring_reads_its_preload_at_its_free_length():
    """Tension = k (l - L0) + preload: with no gravity and the block held at the free length
    by a motion, the tension is the preload (negative: pushing)."""
    m = _hanging(gravity=0.0, preload=-30.0)
    m.add_motion("hold", "slide", 0.0)
    r = m.solve(duration=0.5, fps=10)
    assert np.allclose(r.spring("spring"), -30.0, rtol=0, atol=1e-9)   # (exact arithmetic)


def test_a_damper_pulled_at_a_known_speed_reads_c_times_the_speed():
    """The block driven down at v = 0.3 m/s from the free length: l = L0 + v t, so the
    tension is k v t + c v at every frame (kinematic sweep, exact motion)."""
    c, v = 25.0, 0.3
    m = _hanging(c=c, gravity=0.0)
    m.add_motion("pull", "slide", f"-{v} * t")
    r = m.solve(duration=1.0, fps=20)
    t = r.times
    # 1e-9 N: the sweep's positions to its Newton tolerance, times k
    assert np.allclose(r.spring_length("spring"), L0 + v * t, rtol=0, atol=1e-11)
    assert np.allclose(r.spring("spring"), K * v * t + c * v, rtol=0, atol=1e-9)


def test_the_spring_force_s_work_is_its_energy_change():
    """A free oscillation (undamped, from 0.1 m below the rest length): the work the spring
    force does on its ends, -integral f dl/dt dt (trapezoidal over 400 frames a second),
    equals minus the change of k (l - L0)^2 / 2; and the reading matches the run's own
    potential energy (no gravity: the spring's alone)."""
    m = _hanging(drop=0.1, gravity=0.0)
    r = m.solve(duration=1.0, fps=400, analysis="dynamic", tolerance=1e-10)
    f, l = r.spring("spring"), r.spring_length("spring")
    ldot = -r.velocity("block")[:, 2]            # the top end is fixed above the block
    power = -f * ldot
    work = np.concatenate([[0.0], np.cumsum(0.5 * np.diff(r.times) * (power[1:] + power[:-1]))])
    energy = 0.5 * K * (l - L0) ** 2
    swing = 0.5 * K * 0.1 ** 2
    # the power swings at 2 w (w = sqrt(k / m) = 14 rad/s): the trapezoidal rule's error is
    # (2 w h)^2 / 12 of its integral's amplitude, the swing's energy (4.2e-4 of it); 1.2 margin
    h, w = 1.0 / 400, math.sqrt(K / MASS)
    assert np.abs(work + energy - energy[0]).max() < 1.2 * (2 * w * h) ** 2 / 12 * swing
    pe = r.energy()[1]                                 # (no gravity: the spring's alone)
    assert np.allclose(pe, energy, rtol=0, atol=1e-12 * swing + 1e-14)


def _wheel(k=3.0, c=0.0, free_angle=0.0, preload=0.0, drive=None, spin=0.0) -> Mechanism:
    """A wheel on a revolute about world z with a torsion spring; ``drive``: a motion's
    expression of its angle; ``spin``: its initial angular velocity, rad/s."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("wheel", mass=1.0, inertia=(0.03, 0.03, 0.05))
    m.add_marker("axle", "ground")
    m.add_marker("hub", "wheel")
    m.add_joint("hinge", "revolute", "hub", "axle")
    m.add_torsion_spring("coil", "hinge", stiffness=k, damping=c, free_angle=free_angle,
                         preload=preload)
    if drive is not None:
        m.add_motion("turn", "hinge", drive)
    m.parts["wheel"].angular_velocity[:] = (0.0, 0.0, spin)
    return m


def test_a_torsion_spring_wound_three_turns_by_a_motion_reads_k_theta():
    """Driven at 2 pi rad/s for 3 s (12 frames a second, and 1.5 a second: frames 240 deg
    apart, further than the turn nearest can tell), the spring's angle keeps its turns and its
    torque is k (theta - theta0) + c dtheta/dt + preload."""
    k, c, th0, pre = 3.0, 0.2, 0.4, 0.1
    for fps in (12, 1.5):
        m = _wheel(k, c, th0, pre, drive="2 * pi * t")
        r = m.solve(duration=3.0, fps=fps)
        theta = 2 * math.pi * r.times
        # 1e-9: the sweep's angles to its Newton tolerance
        assert np.allclose(r.torsion_spring_angle("coil"), theta, rtol=0, atol=1e-9)
        assert np.allclose(r.torsion_spring("coil"), k * (theta - th0) + c * 2 * math.pi + pre,
                           rtol=0, atol=1e-8)


def test_a_free_wheel_s_spring_keeps_its_turns_between_sparse_frames():
    """A wheel spun at 30 rad/s against a soft torsion spring (k = 0.5 N m/rad, I = 0.05
    kg m^2, w = sqrt(k / I) = 3.16 rad/s) swings out to 30 / 3.16 = 9.5 rad (1.5 turns),
    the frames 3.75 rad apart at the start (more than half a turn): theta = (spin /
    w) sin(w t) in closed form, and k theta^2 / 2 + I thetadot^2 / 2 stays constant."""
    k, inertia, spin = 0.5, 0.05, 30.0
    m = _wheel(k=k, spin=spin)
    r = m.solve(duration=1.0, fps=8, analysis="dynamic", tolerance=1e-10)
    w = math.sqrt(k / inertia)
    exact = spin / w * np.sin(w * r.times)
    theta = r.torsion_spring_angle("coil")
    assert theta.max() > 9.0
    # 1e-6 rad: the integrator's tolerance 1e-10 over some hundred steps, with margin
    assert np.allclose(theta, exact, rtol=0, atol=1e-6)
    assert np.allclose(r.torsion_spring("coil"), k * exact, rtol=0, atol=1e-6)


def test_a_result_without_velocities_refuses_the_force_but_gives_the_length():
    m = _hanging()
    r = m.solve(duration=0.2, fps=10, keep=("reactions",))
    with pytest.raises(MechanismError, match=r"spring\('spring'\) needs the velocities"):
        r.spring("spring")
    assert r.spring_length("spring").shape == (3,)


def test_an_unknown_spring_is_named_with_the_ones_there_are():
    r = _hanging().statics()
    with pytest.raises(MechanismError, match="unknown spring-damper 'sprung'.*spring"):
        r.spring("sprung")
    with pytest.raises(MechanismError, match="unknown torsion spring 'coil'.*none"):
        r.torsion_spring("coil")


def test_statics_of_a_spring_wound_past_half_a_turn_reads_its_own_turn():
    """A free wheel whose torsion spring is free at 4 rad (past half a turn): statics winds
    it from 0 to 4 rad, where the torque is zero; read on the turn nearest zero (4 - 2 pi)
    it would be k (-2 pi) = -18.8 N m."""
    r = _wheel(k=3.0, free_angle=4.0).statics()
    # 1e-9: statics' Newton tolerance
    assert r.torsion_spring_angle("coil")[0] == pytest.approx(4.0, abs=1e-9)
    assert r.torsion_spring("coil")[0] == pytest.approx(0.0, abs=1e-8)
