"""Linear analysis (Mechanism.modes): natural frequencies, damping ratios, eigenvalues and
mode shapes about a static equilibrium, against closed forms (compound and double
pendulums, a chain of masses and springs, a damped oscillator, a parallelogram linkage)
and against the period a small-amplitude dynamic run measures (a general four-bar)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import mechanisms as mk

from solver import Mechanism, MechanismError, SolverError
from tests.mechanisms import AXIS_MARKER, G

Y = AXIS_MARKER["y"]          # marker z along world y: hinges turning in the x-z plane
X = AXIS_MARKER["x"]

# The stiffness comes from central differences of the force balance with steps of 1e-5 of
# a part's size: truncation (h^2 ~ 1e-10) and rounding (1e-16 / 1e-5) keep the frequencies
# within 1e-8 relative of the exact linearization; 1e-7 leaves room.
RTOL = 1e-7


def _rod(m: Mechanism, name: str, mass: float, length: float, at, axis=Y) -> None:
    """A uniform rod hanging from its part origin ``at`` (along -z), markers "<name>_top"
    and "<name>_end" at its ends with z along ``axis``."""
    i = mass * length ** 2 / 12.0
    m.add_part(name, mass=mass, inertia=(i, i, 1e-4 * i), center_of_mass=(0, 0, -length / 2),
               position=at)
    m.add_marker(f"{name}_top", name, orientation=axis)
    m.add_marker(f"{name}_end", name, position=(0, 0, -length), orientation=axis)


def _pendulum(mass=2.0, length=0.8, damping=0.0) -> Mechanism:
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("O", "ground", orientation=Y)
    _rod(m, "rod", mass, length, (0, 0, 0))
    m.add_joint("pin", "revolute", "rod_top", "O")
    if damping:
        m.add_torsion_spring("damper", "pin", damping=damping)
    return m


def test_compound_pendulum_frequency_damping_and_eigenvalues():
    mass, length, c = 2.0, 0.8, 0.3
    md = _pendulum(mass, length, c).modes()
    ip = mass * length ** 2 / 3.0                       # about the pivot
    omega = math.sqrt(mass * G * length / 2 / ip)
    zeta = c / (2.0 * omega * ip)
    assert len(md) == 1 and md.stable
    assert md.frequencies[0] == pytest.approx(omega / (2 * math.pi), rel=RTOL)
    assert md.damping_ratios[0] == pytest.approx(zeta, rel=RTOL)
    # one freedom: the modal damping ratio is exact, and so the eigenvalues
    s = -zeta * omega + 1j * omega * math.sqrt(1 - zeta ** 2)
    assert np.allclose(np.sort_complex(md.eigenvalues), np.sort_complex([s, s.conjugate()]),
                       rtol=RTOL, atol=0)


def test_pendulum_mode_shape_turns_about_the_pivot():
    md = _pendulum(length=0.8).modes()
    shift, turn = md.shape(0, "rod")
    com = np.array([0.0, 0.0, -0.4])
    assert np.allclose(shift, np.cross(turn, com), atol=1e-9)   # the pivot stays put
    assert abs(turn[1]) > 0 and np.allclose(turn[[0, 2]], 0.0, atol=1e-9)
    poses = md.poses(0, 0.05, [0.0, math.pi / 2, -math.pi / 2])
    pos, ori = poses["rod"]
    assert np.allclose(pos, 0.0, atol=1e-9)                     # the part frame is the pivot
    angle = 2 * np.arctan2(ori[:, 2], ori[:, 0])
    assert angle[0] == pytest.approx(0.0, abs=1e-12)
    assert abs(angle[1]) == pytest.approx(abs(angle[2]), rel=1e-9) and abs(angle[1]) > 0.05


def test_double_pendulum_frequencies_equal_the_linearized_closed_form():
    m1, l1, m2, l2 = 1.5, 0.6, 0.8, 0.45
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("O", "ground", orientation=Y)
    _rod(m, "upper", m1, l1, (0, 0, 0))
    _rod(m, "lower", m2, l2, (0, 0, -l1))
    m.add_joint("hip", "revolute", "upper_top", "O")
    m.add_joint("knee", "revolute", "lower_top", "upper_end")
    md = m.modes()
    # Lagrange's equations in the two absolute angles, linearized by hand
    i1, i2 = m1 * l1 ** 2 / 12, m2 * l2 ** 2 / 12
    M = np.array([[i1 + m1 * (l1 / 2) ** 2 + m2 * l1 ** 2, m2 * l1 * l2 / 2],
                  [m2 * l1 * l2 / 2, i2 + m2 * (l2 / 2) ** 2]])
    K = G * np.diag([m1 * l1 / 2 + m2 * l1, m2 * l2 / 2])
    w2 = np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real)
    assert np.allclose(md.frequencies, np.sqrt(w2) / (2 * math.pi), rtol=RTOL, atol=0)
    assert md.frequencies[0] < md.frequencies[1]


def test_chain_of_masses_and_springs():
    n, mass, k = 3, 1.5, 200.0
    m = Mechanism()
    m.add_part("ground", fixed=True)
    for i in range(n + 1):
        m.add_marker(f"wall{i}", "ground", position=(float(i + 1), 0, 0), orientation=X)
    m.add_marker("wall_left", "ground", position=(0.0, 0, 0))
    for i in range(n):
        m.add_part(f"m{i}", mass=mass, position=(float(i + 1), 0, 0))
        m.add_marker(f"c{i}", f"m{i}", orientation=X)
        m.add_joint(f"rail{i}", "prismatic", f"c{i}", f"wall{i}")
    ends = ["wall_left"] + [f"c{i}" for i in range(n)] + [f"wall{n}"]
    for i in range(n + 1):
        m.add_spring_damper(f"k{i}", ends[i], ends[i + 1], stiffness=k)
    md = m.modes()
    exact = [2 * math.sqrt(k / mass) * math.sin(j * math.pi / (2 * (n + 1))) / (2 * math.pi)
             for j in range(1, n + 1)]
    assert np.allclose(md.frequencies, exact, rtol=RTOL, atol=0)
    # the slowest mode moves every mass the same way, the middle one most
    sx = np.array([md.shape(0, f"m{i}")[0][0] for i in range(n)])
    assert np.all(sx > 0) and sx[1] == pytest.approx(1.0) and sx[0] == pytest.approx(sx[2])
    assert np.allclose(md.damping_ratios, 0.0)


def _sprung_block(k: float, c: float, mass: float, friction: float = 0.0) -> Mechanism:
    """A block of ``mass`` kg on a prismatic rail along world x, held by a spring-damper
    (k N/m, c N s/m, Coulomb ``friction`` N) to a ground point 0.5 m behind it."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("rail_g", "ground", orientation=X)
    m.add_marker("anchor", "ground", position=(-0.5, 0, 0))
    m.add_part("block", mass=mass)
    m.add_marker("slide", "block", orientation=X)
    m.add_joint("rail", "prismatic", "slide", "rail_g")
    m.add_spring_damper("spring", "slide", "anchor", stiffness=k, damping=c, friction=friction)
    return m


def test_damped_oscillator_damping_ratio():
    k, c, mass = 400.0, 6.0, 2.0
    md = _sprung_block(k, c, mass).modes()
    wn = math.sqrt(k / mass)
    assert md.frequencies[0] == pytest.approx(wn / (2 * math.pi), rel=RTOL)
    assert md.damping_ratios[0] == pytest.approx(c / (2 * math.sqrt(k * mass)), rel=RTOL)


def test_coulomb_friction_of_springs_adds_no_modal_damping():
    """A spring's and a torsion spring's Coulomb friction is smoothed by tanh over 1 mm/s
    (1 mrad/s) for the integrator; that slope, friction / 1e-3 (10 N: 1e4 N s/m), is no
    damping of a small oscillation (which Coulomb friction either holds or damps by a
    fixed loss a cycle), and modes leaves it out as it leaves out a joint's: a block of 2 kg
    on a 400 N/m spring with c = 6 N s/m has zeta = 6 / (2 sqrt(400 * 2)), friction or not,
    where the smoothing's slope read as damping gave zeta = 177; a wheel on a torsion
    spring likewise."""
    k, c, mass = 400.0, 6.0, 2.0
    md = _sprung_block(k, c, mass, friction=10.0).modes()
    assert md.frequencies[0] == pytest.approx(math.sqrt(k / mass) / (2 * math.pi), rel=RTOL)
    assert md.damping_ratios[0] == pytest.approx(c / (2 * math.sqrt(k * mass)), rel=RTOL)
    s = -c / (2 * mass) + 1j * math.sqrt(k / mass - (c / (2 * mass)) ** 2)
    assert np.allclose(np.sort_complex(md.eigenvalues), np.sort_complex([s.conjugate(), s]),
                       rtol=RTOL)
    w = Mechanism(gravity=(0.0, 0.0, 0.0))
    w.add_part("ground", fixed=True)
    w.add_part("wheel", mass=2.0, inertia=(1.0, 1.0, 0.5))
    w.add_marker("O", "ground")
    w.add_marker("W", "wheel")
    w.add_joint("pin", "revolute", "W", "O")
    w.add_torsion_spring("coil", "pin", stiffness=8.0, damping=0.1, friction=2.0)
    md = w.modes()
    assert md.damping_ratios[0] == pytest.approx(0.1 / (2 * math.sqrt(8.0 * 0.5)), rel=RTOL)


def _four_bar(a, b, c, d, masses=(1.0, 1.2, 0.9)) -> Mechanism:
    """A four-bar hanging in the x-z plane: crank O2 = (0,0,0) -> A, coupler A -> B, rocker
    O4 = (d,0,0) -> B; links placed hanging straight down, closed by the assembly."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("O2", "ground", orientation=Y)
    m.add_marker("O4", "ground", position=(d, 0, 0), orientation=Y)
    _rod(m, "crank", masses[0], a, (0, 0, 0))
    _rod(m, "rocker", masses[2], c, (d, 0, 0))
    i = masses[1] * b ** 2 / 12
    m.add_part("coupler", mass=masses[1], inertia=(1e-4 * i, i, i), center_of_mass=(b / 2, 0, 0),
               position=(0, 0, -a))
    m.add_marker("A", "coupler", orientation=Y)
    m.add_marker("B", "coupler", position=(b, 0, 0), orientation=Y)
    m.add_joint("j1", "revolute", "crank_top", "O2")
    m.add_joint("j2", "revolute", "A", "crank_end")
    m.add_joint("j3", "revolute", "B", "rocker_end")
    m.add_joint("j4", "revolute", "rocker_top", "O4")
    return m


def test_parallelogram_linkage_closed_form():
    a, b = 0.3, 0.5
    m1, m2, m3 = 1.0, 1.2, 0.9
    md = _four_bar(a, b, a, b, (m1, m2, m3)).modes()
    # the coupler translates on a circle of radius a: one pendulum of inertia
    # I1 + I3 (about their pivots) + m2 a^2 and gravity moment (m1 a/2 + m3 a/2 + m2 a) g
    inertia = m1 * a ** 2 / 3 + m3 * a ** 2 / 3 + m2 * a ** 2
    omega = math.sqrt(G * (m1 * a / 2 + m3 * a / 2 + m2 * a) / inertia)
    assert len(md) == 1
    assert md.frequencies[0] == pytest.approx(omega / (2 * math.pi), rel=RTOL)
    shift, turn = md.shape(0, "coupler")
    assert np.allclose(turn, 0.0, atol=1e-9)                    # it translates


def test_four_bar_mode_matches_a_small_oscillation_run():
    m = _four_bar(0.25, 0.6, 0.35, 0.5)
    m.statics(update=True)
    md = m.modes()
    assert len(md) == 1 and md.stable
    period = 1.0 / md.frequencies[0]
    # a small push: the crank's angular velocity (the start's velocities are made
    # consistent with the joints); amplitude about 2e-3 rad, so the amplitude's own
    # effect on the period (order amplitude^2 / 16) is below 1e-6
    m.parts["crank"].angular_velocity[:] = (0.0, 2e-3 * 2 * math.pi / period, 0.0)
    r = m.solve(duration=4.2 * period, fps=400, analysis="dynamic", tolerance=1e-10)
    q = r.orientation("crank")
    angle = 2 * np.arctan2(q[:, 2], q[:, 0])
    x = angle - angle.mean()
    up = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    t = r.times[up] - x[up] * (r.times[up + 1] - r.times[up]) / (x[up + 1] - x[up])
    measured = (t[-1] - t[0]) / (len(t) - 1)
    assert len(t) >= 4
    # linear interpolation of a zero crossing 1/400 s wide: error ~ (h omega)^2 / 6 ~ 1e-5
    assert measured == pytest.approx(period, rel=1e-4)


def test_inverted_pendulum_is_unstable_with_a_negative_frequency():
    mass, length = 2.0, 0.8
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("O", "ground", orientation=Y)
    i = mass * length ** 2 / 12
    m.add_part("rod", mass=mass, inertia=(i, i, 1e-4 * i), center_of_mass=(0, 0, length / 2))
    m.add_marker("top", "rod", orientation=Y)
    m.add_joint("pin", "revolute", "top", "O")
    md = m.modes()
    growth = math.sqrt(mass * G * length / 2 / (mass * length ** 2 / 3))
    assert not md.stable and any("unstable" in n for n in md.notes)
    assert md.frequencies[0] == pytest.approx(-growth / (2 * math.pi), rel=RTOL)
    assert md.damping_ratios[0] == 0.0
    assert np.max(md.eigenvalues.real) == pytest.approx(growth, rel=RTOL)


def test_a_free_motion_has_frequency_zero_and_a_note():
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("O", "ground")                 # z axis vertical: gravity has no moment
    m.add_part("wheel", mass=1.0, inertia=(0.01, 0.01, 0.02))
    m.add_marker("hub", "wheel")
    m.add_joint("axle", "revolute", "hub", "O")
    md = m.modes()
    assert md.frequencies.tolist() == [0.0]
    assert any("no stiffness" in n for n in md.notes)


def test_a_fully_driven_mechanism_has_no_modes():
    m = _pendulum()
    m.add_motion("drive", joint="pin", expression="0.1*t")
    md = m.modes(time=1.0)
    assert len(md) == 0 and md.shapes.shape == (0, 1, 6)


def test_bad_requests_name_what_is_wrong():
    md = _pendulum().modes()
    with pytest.raises(MechanismError, match=r"mode 3 out of range: there are 1 modes .*numbered 0 to 0"):
        md.shape(3, "rod")
    with pytest.raises(MechanismError, match="mode -1 out of range"):
        md.shape(-1, "rod")
    with pytest.raises(MechanismError, match="mode must be a whole number, got 0.5"):
        md.shape(0.5, "rod")
    with pytest.raises(MechanismError, match="no moving part 'arm' .moving parts: rod."):
        md.shape(0, "arm")
    with pytest.raises(MechanismError, match=r"mode 2 out of range"):
        md.poses(2, 0.01, [0.0])
    with pytest.raises(MechanismError, match=r"modes: amplitude \(m\) is NaN or infinite"):
        md.poses(0, float("nan"), [0.0])
    with pytest.raises(MechanismError, match="modes: phases have a NaN"):
        md.poses(0, 0.01, [0.0, float("inf")])
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("falling", mass=1.0)
    with pytest.raises(SolverError, match="no static equilibrium"):
        m.modes()


def _axis_quat(axis, angle: float) -> np.ndarray:
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.r_[math.cos(angle / 2), math.sin(angle / 2) * a]


def test_a_part_on_a_rotated_offset_bushing_without_gravity():
    """A tilted block held by one bushing off its centre of mass, marker axes turned against
    the part, no gravity: the start is the equilibrium (nothing loads it) and the six
    frequencies are those of K q = w^2 M q in the centre of mass's shift and small turn,
    K = A^T R Kt R^T A + R Kr R^T on the turns, A = [1, -[p]x], p the bushing point from the
    centre of mass (world axes).  The balance there is only the stiffness times the
    coordinates' rounding, which statics once read as a large part of no load at all."""
    from solver import matrix_to_quat, quat_to_matrix
    mass, inertia, com = 3.0, np.array([0.02, 0.05, 0.07]), np.array([0.15, 0.05, -0.1])
    q_part, at = _axis_quat((1, 2, 3), 0.7), np.array([0.1, -0.2, 0.3])
    seat, q_rel = np.array([-0.05, 0.12, 0.04]), _axis_quat((1, 0, 1), 0.4)
    kt, kr = np.array([1e4, 2e4, 3e4]), np.array([50.0, 80.0, 120.0])
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=mass, inertia=tuple(inertia), center_of_mass=tuple(com),
               position=tuple(at), orientation=tuple(q_part))
    Rp = quat_to_matrix(q_part)
    R = Rp @ quat_to_matrix(q_rel)          # marker I's axes in the world = marker J's
    m.add_marker("I", "block", position=tuple(seat), orientation=tuple(q_rel))
    m.add_marker("J", "ground", position=tuple(at + Rp @ seat), orientation=tuple(matrix_to_quat(R)))
    m.add_bushing("mount", "I", "J", stiffness=tuple(kt) + tuple(kr), damping=0.0)
    md = m.modes()
    p = Rp @ (seat - com)
    px = np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])
    A = np.hstack([np.eye(3), -px])
    B = np.hstack([np.zeros((3, 3)), np.eye(3)])
    K = A.T @ R @ np.diag(kt) @ R.T @ A + B.T @ R @ np.diag(kr) @ R.T @ B
    M = np.zeros((6, 6))
    M[:3, :3] = mass * np.eye(3)
    M[3:, 3:] = Rp @ np.diag(inertia) @ Rp.T
    import scipy.linalg
    exact = np.sqrt(scipy.linalg.eigh(K, M, eigvals_only=True)) / (2 * math.pi)
    assert np.allclose(md.frequencies, exact, rtol=RTOL, atol=0)
    assert md.stable


def test_a_spring_whose_ends_meet_at_equilibrium_is_named() -> None:
    """A block on a rail pulled by a spring of free length 0 toward a ground marker on its
    rail: on the way to the equilibrium the spring's ends meet, where its force has no
    direction. Statics and modes stop naming the spring and what to do (a SolverError at
    t = 0), not numpy's or Python's FloatingPointError."""
    m = mk.rail_slider("x", part="block", position=(0.1, 0, 0), anchor=(0, 0, 0),
                       gravity=(0.0, 0.0, 0.0), stiffness=10.0, free_length=0.0)
    for analysis in (m.statics, m.modes):
        with pytest.raises(SolverError, match=r"statics at t = 0 s: spring-damper 'spring': its "
                                              r"two markers coincide .*keep its ends apart") as err:
            analysis()
        assert err.value.time == 0.0
