"""Friction on a spherical joint: the torque mu R |F| + preload against the
relative angular velocity, whatever its direction, with true sticking of all three
rotations.  Against closed forms and conservation: a ball spinning on its socket slows
linearly along a fixed axis and stays stopped; a tilted pendulum on a ball joint holds
inside its friction cone and swirls down into it from outside; statics holds what the
friction can; a kinematic sweep's motor pays exactly the power the ball's friction
dissipates.  The sticking rows' Jacobian is checked by finite differences."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism
from solver.analyses.dynamics.friction import hold, lock_residual
from solver.base.rotations import rotate_world
from solver.kernels.constraints import body_arrays, evaluate
from solver.model.compile import compile_model
from solver.model.state import SlipState
from solver.vocabulary.joints import SPIN

G = 9.81
L = 0.1            # pivot to the bob's centre of mass, m
R = 0.02           # ball radius, m


def spinner(w0, mu_s: float = 0.4, mu_d: float = 0.3, speed: float = 1e-6) -> Mechanism:
    """A 1 kg ball of inertia 0.004 kg m^2 (any axis) held at its centre by a spherical
    joint with dry friction, spinning at w0: gravity loads the socket with m g and has no
    moment about it."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=1.0, inertia=(0.004, 0.004, 0.004), angular_velocity=w0)
    m.add_marker("socket", "ground")
    m.add_marker("cup", "ball")
    m.add_joint("pivot", "spherical", "cup", "socket")
    m.add_friction("dry", "pivot", static=mu_s, dynamic=mu_d, radius=R, transition_speed=speed)
    return m


def pendulum(tilt_deg: float, swirl: float = 0.0, mu_s: float = 0.3, mu_d: float = 0.25,
             socket=(1.0, 0.0, 0.0, 0.0)) -> Mechanism:
    """A 1 kg bob hanging L below a ball joint, tilted by ``tilt_deg`` about x, at rest or
    pushed sideways (x) at ``swirl`` rad/s times L: its swing is not planar.  Its dead band:
    sin(tilt) <= mu_s R / L (3.44 deg), where the friction mu_s R m g holds m g L sin(tilt).
    ``socket``: the ground marker's orientation (marker J's axes)."""
    a = math.radians(tilt_deg)
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("bob", mass=1.0, inertia=(0.002, 0.002, 0.0005),
               position=(0.0, L * math.sin(a), -L * math.cos(a)),
               orientation=(math.cos(a / 2), math.sin(a / 2), 0.0, 0.0),
               velocity=(swirl * L, 0.0, 0.0))
    m.add_marker("socket", "ground", orientation=socket)
    m.add_marker("cup", "bob", position=(0.0, 0.0, L))
    m.add_joint("pivot", "spherical", "cup", "socket")
    m.add_friction("dry", "pivot", static=mu_s, dynamic=mu_d, radius=R)
    return m


def tilt_of(r) -> np.ndarray:
    x = r.position("bob")
    return np.degrees(np.arccos(np.clip(-x[:, 2] / L, -1.0, 1.0)))


def test_spin_rows_are_the_relative_rotation_and_hold_about_any_lock() -> None:
    """The three sticking rows' Jacobian is the relative angular velocity in marker J's axes;
    their residual about a lock orientation (friction.py lock_residual) has exactly that gradient at
    the lock, for random poses far from the design pose (central differences, h = 1e-6:
    error ~1e-12); quad is d(J v)/dt at zero accelerations."""
    m = spinner((0.0, 0.0, 0.0))
    m.add_part("arm", mass=2.0, position=(0.3, 0.0, 0.0))
    m.add_marker("root", "arm", orientation=(0.8, 0.36, 0.0, 0.48))
    m.add_marker("tip", "ball", position=(0.3, 0.0, 0.0), orientation=(0.6, 0.0, 0.8, 0.0))
    m.add_joint("knuckle", "spherical", "root", "tip")
    m.add_friction("knuckle friction", "knuckle", static=0.2, radius=0.01)
    model = compile_model(m)
    fp = model.frictions
    rows = fp.rows[fp.element == 1]
    assert list(model.row_kind[rows]) == [SPIN] * 3
    ends = model.row_ends[rows[0], :2]                 # (arm, ball): marker I's, J's body
    rng = np.random.default_rng(7)
    r0 = np.array([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0]])
    for _ in range(3):
        p0 = rng.normal(size=(2, 4))
        p0 /= np.linalg.norm(p0, axis=1, keepdims=True)
        rg, A = body_arrays(model, r0, p0)[:2]
        ev = evaluate(model, rg, A)
        slip = hold(model, SlipState.start(model), np.array([1]), ev.phi, A)

        def lock(p):
            rg_, A_ = body_arrays(model, r0, p)[:2]
            res = evaluate(model, rg_, A_).phi.copy()
            lock_residual(model, slip, res, A_)
            return res[rows]
        assert np.abs(lock(p0)).max() < 1e-15
        h = 1e-6
        for end, col in zip(ends, (3, 9)):
            for k in range(3):
                d = np.zeros((2, 3))
                d[end, k] = h
                fd = (lock(rotate_world(p0, d)) - lock(rotate_world(p0, -d))) / (2 * h)
                np.testing.assert_allclose(fd, ev.jac[rows, col + k], atol=1e-9)
    # quad: the rates' change along a motion at constant velocities
    v, w = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))

    def rates(t):
        rg_, A_, vg, wg = body_arrays(model, r0 + v * t, rotate_world(p0, w * t), v, w)
        ev_ = evaluate(model, rg_, A_, vg, wg)
        vel = np.concatenate([vg, wg], axis=-1)
        jb = ev_.jac[rows, :12].reshape(3, 2, 6)
        return np.einsum("ked,ked->k", jb, vel[model.row_ends[rows, :2]]), ev_.quad[rows]
    fd = (rates(h)[0] - rates(-h)[0]) / (2 * h)
    np.testing.assert_allclose(fd, rates(0.0)[1], atol=1e-8)


def test_spinning_ball_slows_linearly_and_stays_stopped() -> None:
    """Isotropic ball, gravity through the socket: the friction torque mu_d R m g opposes
    w, so w keeps its direction and |w| = |w0| - mu_d R m g t / I to the integrator's
    accuracy, zero from t* = I |w0| / (mu_d R m g) = 0.3390 s on (to within the time the last
    1.5e-6 rad/s takes, 1e-7 s); then it sticks: w = 0 to rounding (the projection that
    holds it at STILL v_s = 1e-8 rad/s leaves 8e-25 rad/s: bound 1e-20), no friction
    needed.  The friction's work balances the kinetic energy to 1e-10 J."""
    w0 = np.array([3.0, -2.0, 1.0])
    r = spinner(w0).solve(duration=0.6, fps=100, analysis="dynamic", tolerance=1e-9)
    T = 0.3 * R * 1.0 * G
    ts = 0.004 * np.linalg.norm(w0) / T
    w = r.angular_velocity("ball")
    speed = np.linalg.norm(w, axis=1)
    np.testing.assert_allclose(speed, np.maximum(np.linalg.norm(w0) - T / 0.004 * r.times, 0.0),
                               atol=1e-6 * T / 0.004)
    moving = r.times < ts - 1e-3
    np.testing.assert_allclose(w[moving] / speed[moving, None], np.tile(w0 / np.linalg.norm(w0), (moving.sum(), 1)),
                               atol=1e-12)
    assert np.abs(w[r.times > ts + 1e-3]).max() < 1e-20
    f = r.friction("dry")
    assert f.shape == (len(r), 3)
    np.testing.assert_allclose(f[moving], -T * w[moving] / speed[moving, None], rtol=1e-9)
    assert np.abs(f[r.times > ts + 1e-3]).max() < 1e-12
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-10
    assert work[-1] == pytest.approx(-0.5 * 0.004 * w0 @ w0, rel=1e-9)


def test_tilted_pendulum_holds_inside_its_friction_cone() -> None:
    """Tilted 3 deg (inside the 3.44 deg dead band) and let go: it does not move (1e-12 m
    over 1 s) and the friction holds the gravity moment m g L sin(tilt) about the pivot,
    below the limit mu_s R m g; statics agrees."""
    r = pendulum(3.0).solve(duration=1.0, fps=20, analysis="dynamic")
    x = r.position("bob")
    assert np.abs(x - x[0]).max() < 1e-12
    need = 1.0 * G * L * math.sin(math.radians(3.0))
    np.testing.assert_allclose(np.linalg.norm(r.friction("dry"), axis=1), need, rtol=1e-9)
    assert need < 0.3 * R * G
    s = pendulum(3.0).statics()
    assert tilt_of(s)[0] == pytest.approx(3.0, abs=1e-9) and not s.notes
    assert np.linalg.norm(s.friction("dry")[0]) == pytest.approx(need, rel=1e-9)


def test_statics_lets_an_overloaded_ball_go() -> None:
    """Tilted 10 deg, outside the dead band: statics says the friction cannot hold the
    start, and the equilibrium shown is the frictionless one, hanging straight down."""
    s = pendulum(10.0).statics()
    assert any("friction 'dry' cannot hold the start" in n for n in s.notes)
    assert tilt_of(s)[0] == pytest.approx(0.0, abs=1e-6)


@pytest.mark.slow
def test_swirling_pendulum_slips_against_its_relative_spin_and_stops_in_its_cone() -> None:
    """Tilted 10 deg and pushed sideways: a non-planar swing.  While it slips the friction
    torque has size mu_d R |F| (|F| the socket's reaction) and points against the relative
    angular velocity (both to 1e-9); it comes to rest and sticks inside the dead band
    (sin(tilt) <= mu_s R / L), and kinetic + potential - work stays constant (1e-9 J)."""
    r = pendulum(10.0, swirl=3.0).solve(duration=1.5, fps=40, analysis="dynamic")
    x = r.position("bob")
    assert np.ptp(x[:, 0]) > 0.01 and np.ptp(x[:, 1]) > 0.01       # not a planar swing
    w = r.angular_velocity("bob")
    _, C = r.marker_frame("socket")
    wj = np.einsum("nji,nj->ni", C, w)                               # in marker J's axes
    speed = np.linalg.norm(wj, axis=1)
    f = r.friction("dry")
    F, _ = r.reaction("pivot")
    slipping = speed > 1.5e-3 * 1.01                                 # past the transition
    assert slipping.sum() > 10
    np.testing.assert_allclose(np.linalg.norm(f[slipping], axis=1),
                               0.25 * R * np.linalg.norm(F[slipping], axis=1), rtol=1e-9)
    np.testing.assert_allclose(np.einsum("ni,ni->n", f[slipping], wj[slipping])
                               / (np.linalg.norm(f[slipping], axis=1) * speed[slipping]), -1.0, atol=1e-9)
    assert np.abs(w[-5:]).max() < 1e-15                       # stuck (projection rounding)
    assert math.sin(math.radians(tilt_of(r)[-1])) <= 0.3 * R / L
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-9
    assert work[-1] < -0.01


def rsup(friction: bool) -> Mechanism:
    """A spatial slider-crank (RSUP): a crank about world x turned at 2 pi rad/s, a rod from
    its tip (ball joint, dry friction on it) to a slider on a vertical guide at x = 0.15 m
    (universal joint)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=0.5, position=(0.0, 0.025, 0.0))
    m.add_part("rod", mass=0.8, position=(0.075, 0.025, 0.1))
    z0 = math.sqrt(0.25 ** 2 - 0.15 ** 2 - 0.05 ** 2)
    m.add_part("slider", mass=1.0, position=(0.15, 0.0, z0))
    y = (math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0)           # z along world x
    m.add_marker("shaft", "ground", orientation=y)
    m.add_marker("hub", "crank", position=(0.0, -0.025, 0.0), orientation=y)
    m.add_joint("main", "revolute", "hub", "shaft")
    m.add_motion("drive", "main", "2*pi*t")
    m.add_marker("tip", "crank", position=(0.0, 0.025, 0.0))
    m.add_marker("eye", "rod", position=(-0.075, 0.025, -0.1))
    m.add_joint("ball", "spherical", "eye", "tip")
    m.add_marker("guide", "ground", position=(0.15, 0.0, 0.0))
    m.add_marker("shoe", "slider")
    m.add_joint("guideway", "prismatic", "shoe", "guide")
    m.add_marker("pin", "slider", orientation=y)           # the crosses: world x and y
    m.add_marker("end", "rod", position=(0.075, -0.025, z0 - 0.1),
                 orientation=(math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0))
    m.add_joint("cross", "universal", "end", "pin")
    if friction:
        m.add_friction("ball friction", "ball", static=0.3, radius=0.015)
    return m


def test_kinematic_sweep_motor_pays_what_the_ball_dissipates() -> None:
    """The same driven RSUP with and without dry friction on its ball: the kinematics are
    equal, so the motor's extra power is exactly the power the friction dissipates,
    (effort_f - effort_0) w = -f . w_rel (to 1e-9 of the friction's power scale); the
    friction torque has size mu R |F| and opposes the relative angular velocity."""
    r0 = rsup(False).solve(duration=1.0, fps=20)
    r1 = rsup(True).solve(duration=1.0, fps=20)
    assert r1.analysis == "kinematic"
    np.testing.assert_allclose(r1.position("rod"), r0.position("rod"), atol=1e-12)
    _, C = r1.marker_frame("tip")
    wrel = np.einsum("nji,nj->ni", C, r1.angular_velocity("rod") - r1.angular_velocity("crank"))
    f = r1.friction("ball friction")
    power = np.einsum("ni,ni->n", f, wrel)
    scale = np.abs(power).max()
    assert scale > 1e-3
    np.testing.assert_allclose((r1.effort("drive") - r0.effort("drive")) * 2 * math.pi, -power,
                               atol=1e-9 * scale)
    F, _ = r1.reaction("ball")
    np.testing.assert_allclose(np.linalg.norm(f, axis=1), 0.3 * 0.015 * np.linalg.norm(F, axis=1),
                               rtol=1e-9)
    assert np.all(power <= 0.0)
