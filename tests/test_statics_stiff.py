"""Static equilibrium (m.statics), the stiff implicit integrator (Radau IIA) and dynamic failures,
against hand solutions written here (brentq / fsolve / closed forms), never the solver's own.

Statics converges Newton to a force residual of 1e-11 of the loads (statics.py), so positions
and angles are held to 1e-9 m / 1e-10 rad (measured 1e-12 or better).  Dynamic bounds state
the error measured when the test was written and keep a margin of >= 10 over it unless noted.
Step counts asserted are explained where they appear (measured values in the docstrings).
Runs over 1.5 s are marked ``slow`` (the stiff runs, the unreachable slider-crank).
The pendulums, rotor, sliders on rails and slider-crank are tests/mechanisms.py's builders.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy.optimize import brentq, fsolve

import mechanisms as mk
from solver import Mechanism, MechanismError, SolverError

G = mk.G


def angle_z(r, part: str) -> np.ndarray:
    """Rotation angle about world z of a part turning about z only."""
    return mk.planar_angle(r.orientation(part))


# ================================================================ 1. statics
# --- (a) a point mass hanging in a V from two springs (its one marker at the centre of mass)
VA, VB = np.array([-0.2, 0.0, 0.0]), np.array([0.25, 0.0, 0.05])
VK, VL, VM = (300.0, 500.0), (0.2, 0.25), 2.0


def v_mass(start=(0.0, 0.0, -0.2)) -> Mechanism:
    m = Mechanism(gravity=(0, 0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("mass", mass=VM, position=start)
    m.add_marker("A", "ground", position=VA)
    m.add_marker("B", "ground", position=VB)
    m.add_marker("C", "mass")
    m.add_spring_damper("s1", "C", "A", stiffness=VK[0], free_length=VL[0])
    m.add_spring_damper("s2", "C", "B", stiffness=VK[1], free_length=VL[1])
    return m


def v_force(P: np.ndarray) -> np.ndarray:
    """Net force (3,) on the mass at P: weight plus the two springs' tensions toward A, B."""
    F = np.array([0.0, 0.0, -VM * G])
    for Q, k, L in zip((VA, VB), VK, VL):
        d = Q - P
        F = F + k * (np.linalg.norm(d) - L) * d / np.linalg.norm(d)
    return F


def v_reference() -> np.ndarray:
    xz = fsolve(lambda s: v_force(np.array([s[0], 0.0, s[1]]))[[0, 2]], [0.0, -0.2], xtol=1e-13)
    P = np.array([xz[0], 0.0, xz[1]])
    assert np.abs(v_force(P)).max() < 1e-10        # the reference itself balances (N)
    return P


@pytest.mark.parametrize("start", [(0.0, 0.0, -0.2), (0.04, 0.03, -0.15), (-0.05, -0.02, -0.3)])
def test_v_springs_equilibrium(start) -> None:
    """(a, f) Equilibrium from three starts (up to 5 cm off, out of plane too): the same point
    to 1e-9 m (measured 1.3e-12); the springs balance the weight; potential energy = mine."""
    P = v_reference()
    assert P[2] < -0.05                             # a real V: the mass sags below both anchors
    r = v_mass(start).statics()
    got = r.position("mass")[0]
    assert np.abs(got - P).max() <= 1e-9
    assert np.abs(v_force(got)).max() <= 1e-9 * VM * G
    pe = VM * G * P[2] + sum(0.5 * k * (np.linalg.norm(Q - P) - L) ** 2
                             for Q, k, L in zip((VA, VB), VK, VL))
    ke, pot, wnc = r.energy()
    assert ke[0] == 0.0 and wnc[0] == 0.0
    assert abs(pot[0] - pe) <= 1e-9 * VM * G * 0.1       # J: 1e-9 of the weight over 0.1 m


# --- (b, c) a pendulum on a revolute about the horizontal z axis (gravity along -y)
PM, PL = 1.5, 0.4                                   # mass, pivot-to-COM distance


def pendulum(a0: float = 0.0, k: float = 8.0, motion=None, shift=(0.0, 0.0, 0.0)) -> Mechanism:
    """``mk.pendulum`` about world z, built at angle a0 with its frame ``shift`` off the pin:
    rod with its frame on the pin, COM at (PL, 0, 0), torsion spring k with free angle 0
    (rod horizontal); gravity torque about z on the rod is -PM g PL cos(angle)."""
    m = mk.pendulum("revolute", "z", a0, part="rod", mass=PM, inertia=(0.001, 0.02, 0.02),
                    center_of_mass=(PL, 0, 0), gravity=(0, -G, 0), position=shift)
    if k:
        m.add_torsion_spring("ts", "pin", stiffness=k)
    if motion is not None:
        m.add_motion("drive", "pin", motion)
    return m


def pendulum_angle(k: float = 8.0) -> float:
    """Root of k phi + m g l cos(phi) = 0 on (-pi/2, 0) (spring torque -k phi balances the
    gravity torque -m g l cos phi; unique there since its derivative k - m g l sin phi > 0)."""
    return brentq(lambda a: k * a + PM * G * PL * math.cos(a), -math.pi / 2, 0.0, xtol=1e-15)


@pytest.mark.parametrize("offset_deg, shift", [(35.0, (0, 0, 0)), (5.0, (0, 0, 0)),
                                               (-5.0, (0.01, -0.02, 0.005)), (25.0, (0.0, 0.03, 0))])
def test_pendulum_torsion_equilibrium(offset_deg: float, shift) -> None:
    """(b, f) Angle to 1e-10 rad from starts 5-35 degrees away (measured 1e-12); the pin carries
    the weight; its reaction torque is 0 (the spring's torque is reported on its own)."""
    phi = pendulum_angle()
    r = pendulum(phi + math.radians(offset_deg), shift=shift).statics()
    assert abs(angle_z(r, "rod")[0] - phi) <= 1e-10
    F, T = r.reaction("pin")
    scale = PM * G
    assert np.abs(F[0] - [0.0, PM * G, 0.0]).max() <= 1e-9 * scale
    assert np.abs(T[0]).max() <= 1e-9 * scale * PL     # N m
    assert np.abs(r.position("rod")[0]).max() <= 1e-10     # the rod frame sits on the pin


@pytest.mark.parametrize("time, angle", [(0.0, 0.3), (0.5, 1.3)])
def test_driven_crank_effort(time: float, angle: float) -> None:
    """(c) A crank driven by 0.3 + 2 t held at ``time``: the motion's effort is the static torque
    k theta + m g l cos theta; the pin carries the weight and no torque."""
    k = 3.0
    r = pendulum(0.0, k=k, motion="0.3 + 2*t").statics(time=time)
    assert r.times[0] == time
    assert abs(angle_z(r, "rod")[0] - angle) <= 1e-10
    tau = k * angle + PM * G * PL * math.cos(angle)
    assert abs(r.effort("drive")[0] - tau) <= 1e-9 * PM * G * PL
    F, T = r.reaction("pin")
    assert np.abs(F[0] - [0.0, PM * G, 0.0]).max() <= 1e-9 * PM * G
    assert np.abs(T[0]).max() <= 1e-9 * PM * G * PL


def test_inclined_slider_spring() -> None:
    """(d) Slider on a rail at 35 degrees, held by a spring to a point up the rail: slide
    s = top - L0 - m g sin(a) / k; the rail pushes m g cos(a) along the rail's normal."""
    a, ms, k, L0, top = math.radians(35.0), 3.0, 400.0, 0.3, 0.8
    u, n = np.array([math.cos(a), math.sin(a), 0.0]), np.array([-math.sin(a), math.cos(a), 0.0])
    q = mk.quat_mul(mk.quat_z(a), np.array(mk.Q_Z_TO_X))    # marker z along u
    m = mk.rail_slider(q, mass=ms, position=0.45 * u + 0.01 * n, anchor=top * u, stiffness=k,
                       free_length=L0, gravity=(0, -G, 0))
    r = m.statics()
    s = top - L0 - ms * G * math.sin(a) / k
    assert np.abs(r.position("slider")[0] - s * u).max() <= 1e-9
    F, T = r.reaction("rail")
    assert np.abs(F[0] - ms * G * math.cos(a) * n).max() <= 1e-9 * ms * G
    assert np.abs(T[0]).max() <= 1e-9 * ms * G * top


def test_update_moves_parts() -> None:
    """(e) update=False leaves the parts where they were; update=True moves them there."""
    phi = pendulum_angle()
    m = pendulum(0.2, shift=(0.01, 0.0, 0.0))
    before = m.pose("rod")
    m.statics(update=False)
    after = m.pose("rod")
    assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])
    m.statics(update=True)
    pos, quat = m.pose("rod")
    assert np.abs(pos).max() <= 1e-10
    assert abs(mk.planar_angle(quat) - phi) <= 1e-10
    assert abs(abs(quat[0]) - math.cos(phi / 2)) <= 1e-10     # a turn about z only
    r = m.statics()                                           # from there: the same point
    assert abs(angle_z(r, "rod")[0] - phi) <= 1e-10


# ================================================================ 2. no equilibrium
def _poses(m: Mechanism) -> list:
    """Every moving part's (position, orientation), flattened, for exact comparison."""
    return [x.tolist() for n, p in m.parts.items() if not p.fixed for x in m.pose(n)]


def test_free_body_has_no_equilibrium() -> None:
    """A body under gravity with nothing holding it: SolverError naming it, poses unchanged."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("free", mass=1.0, position=(0.1, 0.2, 0.3))
    before = _poses(m)
    with pytest.raises(SolverError, match="no static equilibrium") as exc:
        m.statics(update=True)
    assert "'free'" in str(exc.value) and exc.value.time == 0.0
    assert _poses(m) == before


def _rail_slider(m: Mechanism, push: bool) -> None:
    """A slider on a horizontal rail along world x at y = 0.5, optionally pushed along it."""
    mk.rail_slider("x", mass=2.0, position=(0.3, 0.5, 0.0), rail=(0, 0.5, 0), spring=None, mech=m)
    if push:
        m.add_force("push", "S", force=(5.0, 0.0, 0.0))


def test_pushed_slider_has_no_equilibrium() -> None:
    """A constant push along a spring-less rail (beside a sprung pendulum that has an
    equilibrium): the error names the slider only; no part moves."""
    m = pendulum(0.0)
    _rail_slider(m, push=True)
    before = _poses(m)
    with pytest.raises(SolverError, match="no static equilibrium") as exc:
        m.statics(update=True)
    assert "'slider'" in str(exc.value) and "'rod'" not in str(exc.value)
    assert _poses(m) == before


def sprung_arm(size: float, mass: float, ratio: float) -> Mechanism:
    """An arm of length ``size`` (m) and ``mass`` (kg, its centre of mass half way) on a
    pin about world z at the origin, gravity -y, built along +x; a spring of free length
    0.3 size from its tip to an anchor at (size, size), stiffness ``ratio`` m g / size:
    the same mechanism at any size and mass, its equilibrium angle the same."""
    m = Mechanism(gravity=(0, -G, 0))
    m.add_part("ground", fixed=True)
    inertia = mass * size * size
    m.add_part("arm", mass=mass, inertia=(inertia / 100, inertia / 12, inertia / 12),
               center_of_mass=(size / 2, 0, 0))
    m.add_marker("O", "ground")
    m.add_marker("hub", "arm")
    m.add_joint("pin", "revolute", "hub", "O")
    m.add_marker("tip", "arm", position=(size, 0, 0))
    m.add_marker("anchor", "ground", position=(size, size, 0))
    m.add_spring_damper("spring", "tip", "anchor", stiffness=ratio * mass * G / size,
                        free_length=0.3 * size)
    return m


def sprung_arm_angle(ratio: float) -> float:
    """The sprung arm's equilibrium angle (rad), in units of its size and weight: the
    spring's moment about the pin balances the weight's, ratio (l - 0.3) (x_t d_y - y_t
    d_x) / l = cos(th) / 2, tip (cos th, sin th), d = (1, 1) - tip, l = |d|."""
    def moment(th: float) -> float:
        tip = np.array([math.cos(th), math.sin(th)])
        d = np.array([1.0, 1.0]) - tip
        l = float(np.linalg.norm(d))
        return ratio * (l - 0.3) * (tip[0] * d[1] - tip[1] * d[0]) / l - 0.5 * math.cos(th)
    return brentq(moment, 0.0, math.pi / 2, xtol=1e-15)


@pytest.mark.parametrize("ratio", [1e2, 1e6])
@pytest.mark.parametrize("mass", [1e-6, 1e3])
@pytest.mark.parametrize("size", [1e-3, 1.0, 100.0])
def test_statics_of_one_mechanism_at_any_size_mass_and_stiffness(size: float, mass: float,
                                                                  ratio: float) -> None:
    """The sprung arm (a spring 100 or 1e6 times its weight) rests at the same angle, to
    1e-10 rad, whether it is 1 mm, 1 m or 100 m long and weighs 1 mg or a tonne.  Before,
    the balance's size took moments (N m) over a load scale in N, so a 1 mm arm's moment
    read as 1e-3 of it and the line search crawled (no equilibrium, 'free to move'), and
    springs stiff against the joints' rows (1e6 times the weight on a tonne) put the
    joints' directions below the least-squares cut-off: 7 of these 12 failed."""
    eq = sprung_arm(size, mass, ratio).statics()
    assert abs(angle_z(eq, "arm")[0] - sprung_arm_angle(ratio)) < 1e-10
    assert eq.stable


def test_neutral_unloaded_directions_solve() -> None:
    """Free but unloaded directions do not stop statics: the spin of a mass held by three
    springs at its one centre point, and a slider on a horizontal rail with no push; both
    stay where they were (to 1e-12) and the rest reaches its equilibrium."""
    q0 = np.array([0.95287485, 0.14763626, -0.09842417, 0.24606043])
    q0 = q0 / np.linalg.norm(q0)
    m = Mechanism(gravity=(0, 0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("mass", mass=2.0, position=(0.01, 0.02, -0.2), orientation=q0)
    m.add_marker("C", "mass")
    k, L0, R = 500.0, 0.25, 0.3
    for i in range(3):
        a = 2 * math.pi * i / 3
        m.add_marker(f"A{i}", "ground", position=(R * math.cos(a), R * math.sin(a), 0))
        m.add_spring_damper(f"s{i}", "C", f"A{i}", stiffness=k, free_length=L0)
    m.statics(update=True)
    pos, quat = m.pose("mass")
    # symmetric: on the axis at depth h with 3 k (l - L0) h / l = m g, l = sqrt(R^2 + h^2)
    h = brentq(lambda h: 3 * k * (math.hypot(R, h) - L0) * h / math.hypot(R, h) - 2.0 * G,
               1e-6, 1.0, xtol=1e-15)
    assert np.abs(pos - [0, 0, -h]).max() <= 1e-9
    assert np.abs(quat - q0).max() <= 1e-12
    m2 = pendulum(0.0)
    _rail_slider(m2, push=False)
    r = m2.statics(update=True)
    assert np.abs(m2.pose("slider")[0] - [0.3, 0.5, 0.0]).max() <= 1e-12
    assert abs(angle_z(r, "rod")[0] - pendulum_angle()) <= 1e-10


# ================================================================ 3. stiff integrator
# A 1 kg slider on a vertical rail hangs 0.1 m below a spring anchor at the origin; the
# spring starts at its free length.  Slide s (up +) obeys m s'' = -k s - c s' - m g.
SK, SL = 1e6, 0.1


def stiff_slider(c: float, k: float = SK) -> Mechanism:
    return mk.rail_slider("z", part="s", position=(0, 0, -SL), rail=(0, 0, -SL), anchor=(0, 0, 0),
                          spring="sd", stiffness=k, damping=c, free_length=SL)


def oscillator(t: np.ndarray, c: float, k: float = SK, m: float = 1.0):
    """(s, s') of m s'' + c s' + k s = -m g from rest at s = 0 (under- or critically damped)."""
    xs, wn, sig = -m * G / k, math.sqrt(k / m), c / (2 * m)
    if abs(sig - wn) < 1e-9 * wn:
        e = np.exp(-wn * t)
        return xs * (1 - (1 + wn * t) * e), xs * wn * wn * t * e
    wd = math.sqrt(wn * wn - sig * sig)
    e = np.exp(-sig * t)
    return (xs * (1 - e * (np.cos(wd * t) + sig / wd * np.sin(wd * t))),
            xs * e * wn * wn / wd * np.sin(wd * t))


@functools.lru_cache(maxsize=None)
def stiff_run(c: float, method: str = "auto"):
    """2 s at 24 fps of stiff_slider(c), cached: the comparison test reuses the runs."""
    return stiff_slider(c).solve(2.0, fps=24, method=method)


def energy_drift(r) -> float:
    """max |KE + PE - W_nc - start| over the energy exchanged (max |KE| + max |dPE| + max |W|)."""
    ke, pe, w = r.energy()
    e = ke + pe - w
    scale = np.abs(ke).max() + np.abs(pe - pe[0]).max() + np.abs(w).max()
    return float(np.abs(e - e[0]).max() / scale)


@pytest.mark.slow
@pytest.mark.parametrize("c, max_steps", [(200.0, 1000), (1000.0, 300), (2000.0, 300)])
def test_stiff_spring_implicit(c: float, max_steps: int) -> None:
    """(a, c) k = 1e6 N/m (sqrt(k/m) = 1000 1/s > 300): auto picks the implicit Radau IIA.
    2 s at 24 fps.  Steps: the start transient is resolved to the tolerance (accuracy-
    limited, more cycles for less damping), then about one step a frame (48).  Measured
    217 / 131 / 76 steps for c = 200 / 1000 / 2000 (551 / 161 / 130 with the SDIRK4 used
    before).  Frames match the closed form to 1e-10 m (1e-5 of the 9.8 um static sag, far
    inside the tolerance goal 1e-6 x 0.1 m; measured 9e-13 / 2e-16 / 1e-18); energy
    balance 1e-6 of the energy exchanged (measured 1.4e-8 / 3.6e-9 / 1.2e-10)."""
    r = stiff_run(c)
    assert "implicit" in r.method
    assert r.steps < max_steps
    s, _ = oscillator(r.times, c)
    assert np.abs(r.position("s")[:, 2] + SL - s).max() <= 1e-10
    assert energy_drift(r) <= 1e-6
    st = stiff_slider(c).statics()                   # statics agrees: sag m g / k
    assert abs(st.position("s")[0, 2] + SL + G / SK) <= 1e-15


@pytest.mark.slow
def test_stiff_spring_explicit_needs_more_steps() -> None:
    """Dormand-Prince 8(5,3) on the same c = 2000 case (critically damped, both rates -1000
    1/s) is held by stability: its real stability interval reaches about -6, so h <= 6 / 1000 s
    and 2 s need >= 330 steps (measured 355, against 76 implicit); Dormand-Prince 5(4)
    (interval about -3.3) needs >= 600 (measured 626).  Its answer is right too (measured
    5e-13 m)."""
    r = stiff_run(2000.0, "explicit")
    assert "explicit" in r.method
    assert r.steps >= 300
    assert r.steps > 2.5 * stiff_run(2000.0).steps
    s, _ = oscillator(r.times, 2000.0)
    assert np.abs(r.position("s")[:, 2] + SL - s).max() <= 1e-9     # measured 5e-13


def test_stiff_spring_transient() -> None:
    """The transient itself (c = 1000, zeta = 0.5) sampled at 2000 fps for 10 ms: position to
    1e-10 m (1e-5 of the sag; measured 2e-17), velocity to 1e-8 m/s (measured 1e-14)."""
    r = stiff_slider(1000.0).solve(0.01, fps=2000)
    assert "implicit" in r.method
    s, v = oscillator(r.times, 1000.0)
    assert np.abs(r.position("s")[:, 2] + SL - s).max() <= 1e-10
    assert np.abs(r.velocity("s")[:, 2] - v).max() <= 1e-8
    assert energy_drift(r) <= 1e-6                   # measured 3.5e-7


def damper_slider(v0: float = 10.0, c: float = 1e4) -> Mechanism:
    """1 kg on a horizontal rail (world x) moving at v0 toward a damper anchor 0.1 m ahead."""
    return mk.rail_slider("x", part="s", position=(-0.1, 0, 0), velocity=(v0, 0, 0),
                          anchor=(0, 0, 0), spring="d", damping=c)


@pytest.mark.slow
def test_stiff_damper() -> None:
    """(b, c) c = 1e4 N s/m on 1 kg (rate c/m = 1e4 1/s): x = v0 m/c (1 - exp(-c t/m)), so
    every frame after the first sits at the total travel v0 m/c = 1 mm, the integral of
    the whole transient.  Implicit 1 s: < 300 steps (measured 71, most resolving the first
    3 ms); energy: all 50 J go into the damper (drift 1e-6 relative, measured 5e-13).
    Explicit Dormand-Prince 8(5,3) (real stability interval about -6) needs h <= 6e-4 s:
    >= 400 steps for only 0.25 s (measured 421; 5(4) needed 843)."""
    r = damper_slider().solve(1.0, fps=24)
    assert "implicit" in r.method
    assert r.steps < 300
    t = r.times
    x = r.position("s")[:, 0] + 0.1
    assert np.abs(x - 1e-3 * (1 - np.exp(-1e4 * t))).max() <= 1e-12     # measured 4e-17
    assert np.abs(r.velocity("s")[:, 0] - 10.0 * np.exp(-1e4 * t)).max() <= 1e-10
    assert abs(r.energy()[2][-1] + 50.0) <= 1e-6 * 50.0          # J, measured 5e-11
    assert energy_drift(r) <= 1e-6
    rx = damper_slider().solve(0.25, fps=24, method="explicit")
    assert rx.steps >= 380
    assert np.abs(rx.position("s")[:, 0] + 0.1 - 1e-3 * (1 - np.exp(-1e4 * rx.times))).max() <= 1e-10


@pytest.mark.slow
def test_stiff_torsion_spring() -> None:
    """(d) Rotor Izz = 0.01 kg m^2 on a pin with k = 1e5 N m/rad, c = 50 N m s (sqrt(k/I) =
    3162 1/s, zeta = 0.79), spun at 10 rad/s: theta = w0/wd exp(-s t) sin(wd t).  Sampled at
    4000 fps for 6 ms: angle to 1e-10 rad (amplitude 1.3e-3; measured 3e-16), energy
    1e-6 of the 0.5 J start (measured 1.1e-8)."""
    I, k, c, w0 = 0.01, 1e5, 50.0, 10.0
    # a rotor: the pendulum with its centre of mass on the pin; gravity along the pin
    m = mk.pendulum("revolute", "z", part="rot", inertia=(0.006, 0.006, I),
                    center_of_mass=(0, 0, 0), angular_velocity=(0, 0, w0))
    m.add_torsion_spring("ts", "pin", stiffness=k, damping=c)
    r = m.solve(0.006, fps=4000)
    assert "implicit" in r.method
    sig = c / (2 * I)
    wd = math.sqrt(k / I - sig * sig)
    exact = w0 / wd * np.exp(-sig * r.times) * np.sin(wd * r.times)
    assert np.abs(angle_z(r, "rot") - exact).max() <= 1e-10
    assert energy_drift(r) <= 1e-6


# ================================================================ 4. dynamic failures
def sprung_mass(actuator) -> Mechanism:
    """A 1 kg slider hanging 0.5 m below a soft spring-damper (not stiff: explicit)."""
    return mk.rail_slider("z", part="s", position=(0, 0, -0.5), spring="shock", stiffness=100.0,
                          damping=2.0, actuator=actuator)


@pytest.mark.parametrize("method", ["auto", pytest.param("implicit", marks=pytest.mark.slow)])
def test_undefined_actuator_expression(method: str) -> None:
    """(a) sqrt(1 - t) is undefined after t = 1: SolverError naming the spring at a time
    >= 1, carrying the 25 frames t = 0 .. 1 solved before."""
    with pytest.raises(SolverError) as exc:
        sprung_mass("sqrt(1 - t)").solve(2.0, fps=24, method=method)
    e = exc.value
    assert "'shock'" in str(e) and "sqrt" in str(e)
    assert e.time >= 1.0
    assert e.result is not None and len(e.result) == 25
    assert e.result.times[-1] == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.isfinite(e.result.position("s")))


@pytest.mark.parametrize("actuator", [lambda t, l, v: float("nan") if t > 1 else 1.0,
                                      lambda t, l, v: math.sqrt(1 - t)], ids=["nan", "raises"])
def test_failing_callable_actuator(actuator) -> None:
    """(a) The same failure from a Python callable: SolverError naming the spring, frames kept."""
    with pytest.raises(SolverError) as exc:
        sprung_mass(actuator).solve(2.0, fps=24)
    assert "'shock'" in str(exc.value)
    assert exc.value.result is not None and len(exc.value.result) == 25


CR, CL, CW = 0.2, 0.15, math.pi                # crank longer than the rod; drive pi t


@pytest.fixture(scope="module")
def unreachable_failure() -> SolverError:
    """A driven slider-crank with crank 0.2 > rod 0.15 (reachable while 0.2 |sin th| <= 0.15)
    plus a free link pinned to the rod, so the run is dynamic; it fails at th = asin(3/4)."""
    m = mk.slider_crank(r=CR, l=CL, omega=CW)
    m.add_part("link", mass=0.3, position=(0.2, 0.0, 0.0), center_of_mass=(0.05, 0, 0))
    m.add_marker("L", "link")
    m.add_marker("rod_mid", "rod", position=(CL / 2, 0, 0))
    m.add_joint("hinge", "revolute", "L", "rod_mid")
    with pytest.raises(SolverError) as exc:
        m.solve(1.0, fps=24)
    return exc.value


@pytest.mark.slow
def test_unreachable_position_fails_at_the_limit(unreachable_failure: SolverError) -> None:
    """(b) The failure time is the limit asin(CL/CR)/CW = 0.269947 s (within 1e-4 s before it;
    measured 1.1e-11); .result holds frames 0 .. 6/24 with the crank on its drive."""
    e = unreachable_failure
    t_lim = math.asin(CL / CR) / CW
    assert t_lim - 1e-4 <= e.time <= t_lim + 1e-9
    assert e.result is not None and len(e.result) == 7 and e.result.analysis == "dynamic"
    assert np.abs(angle_z(e.result, "crank") - CW * e.result.times).max() <= 1e-9


@pytest.mark.slow
def test_unreachable_position_names_joints(unreachable_failure: SolverError) -> None:
    assert unreachable_failure.joints


@pytest.mark.parametrize("kwargs", [dict(method="rk4"), dict(tolerance=0.0), dict(tolerance=1.0)])
def test_bad_solve_arguments(kwargs: dict) -> None:
    """(c) Unknown integrator names and tolerances outside (0, 1) are input errors."""
    with pytest.raises(MechanismError):
        pendulum(0.0).solve(1.0, fps=24, **kwargs)


@pytest.mark.parametrize("a0, stable", [(-1.4, True), (1.2, False)])
def test_statics_says_whether_the_equilibrium_is_stable(a0: float, stable: bool) -> None:
    """With no spring the pendulum has two equilibria, hanging (-pi/2, stable) and upright
    (+pi/2, unstable); Newton finds the one near the start and says which it is."""
    r = pendulum(a0, k=0.0).statics()
    angle = math.atan2(r.center_of_mass("rod")[0, 1], r.center_of_mass("rod")[0, 0])
    assert abs(angle - (-math.pi / 2 if stable else math.pi / 2)) < 1e-9
    assert r.stable is stable
    assert bool(r.notes) is (not stable)
    if not stable:
        assert "unstable" in r.notes[0]


@pytest.mark.slow
def test_step_control_does_not_depend_on_where_the_mechanism_sits() -> None:
    """The accuracy scale is the mechanism's size, not its distance from the world origin:
    the same stiff slider moved 10 m away takes the same steps."""
    steps = []
    for shift in (0.0, 10.0):
        m = stiff_slider(1000.0)
        for p in m.parts.values():          # the ground part too: its markers move with it
            p.position = p.position + np.array([shift, 0.0, 0.0])
        r = m.solve(0.5, fps=24)
        assert abs(r.position("s")[0, 0] - shift) < 1e-12     # it did not need assembling
        steps.append(r.steps)
    assert steps[0] == steps[1]
