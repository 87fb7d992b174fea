"""Inverse dynamics of fully driven (kinematic) analyses: motion efforts, joint reactions.

Checks against physics written here independently of the solver: static torques of a held
pendulum, power balance (motion power = d(KE + PE)/dt, and its time integral), Newton-Euler
per part from the reported reactions and efforts, action-reaction on the ground, and the
least-norm reactions of a redundant planar four-bar.  The mechanisms have random masses,
full inertia matrices and part frames off their joints, built here from world poses (the
held pendulum is tests/mechanisms.py's ``pendulum`` with its pin given in world).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from scipy.integrate import simpson
from scipy.linalg import null_space
from scipy.spatial.transform import Rotation

import mechanisms as mk
from solver import Mechanism
from solver.vocabulary import expressions as ex

G = mk.G
GRAV = np.array([0.0, 0.0, -G])
EX, EY, EZ = np.eye(3)
Rates = dict[str, Callable[[np.ndarray], np.ndarray]]   # motion -> d(coordinate)/dt


# ---------------------------------------------------------------- small geometry helpers
def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def wxyz(R: np.ndarray) -> np.ndarray:
    """Quaternion (w, x, y, z) of a rotation matrix."""
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    return np.array([w, x, y, z])


def matrices(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) of quaternions (n, 4) w x y z."""
    return Rotation.from_quat(np.asarray(q)[..., [1, 2, 3, 0]]).as_matrix()


def axes(z, x_hint) -> np.ndarray:
    """Right-handed axes (columns x, y, z) with z along ``z`` and x towards ``x_hint``."""
    z = unit(z)
    x = unit(np.asarray(x_hint, float) - np.dot(x_hint, z) * z)
    return np.column_stack([x, np.cross(z, x), z])


def marker(m: Mechanism, name: str, part: str, pos, R: np.ndarray | None = None) -> None:
    """Add a marker given its WORLD position and axes (converted to the part frame)."""
    p, q = m.pose(part)
    Rp = matrices(q[None])[0]
    R = np.eye(3) if R is None else R
    m.add_marker(name, part, Rp.T @ (np.asarray(pos, float) - p), wxyz(Rp.T @ R))


def joint(m: Mechanism, name: str, kind: str, part_i: str, part_j: str, pos, R=None,
          pos_j=None, R_j=None) -> None:
    """Markers name_I (on part_i) and name_J (on part_j; same world pose unless given) and
    the joint between them."""
    marker(m, name + "_I", part_i, pos, R)
    marker(m, name + "_J", part_j, pos if pos_j is None else pos_j, R if R_j is None else R_j)
    m.add_joint(name, kind, name + "_I", name + "_J")


def body(m: Mechanism, rng: np.random.Generator, name: str, center, size: float) -> None:
    """A part with random mass, full (off-diagonal) inertia of a box, COM near ``center``,
    and a randomly placed and turned part frame."""
    mass = rng.uniform(0.5, 3.0)
    a, b, c = size * rng.uniform(0.3, 1.0, 3)
    principal = mass / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    Rb = Rotation.random(random_state=rng).as_matrix()
    Rf = Rotation.random(random_state=rng).as_matrix()
    origin = np.asarray(center, float) + rng.uniform(-0.1, 0.1, 3) * size
    com = np.asarray(center, float) + rng.uniform(-0.2, 0.2, 3) * size
    m.add_part(name, mass=mass, inertia=Rb @ np.diag(principal) @ Rb.T,
               center_of_mass=Rf.T @ (com - origin), position=origin, orientation=wxyz(Rf))


# ---------------------------------------------------------------- mechanisms
Y_AXIS = axes(EY, -EZ)   # marker axes for a pin along world y, x pointing down


def pendulum(theta: float, z_axis, l: float, d: float, mass: float) -> Mechanism:
    """A rod held at angle theta about a horizontal axis: at theta = 0 its COM hangs at
    distance l below the pivot, shifted by d along the axis.  ``mk.pendulum`` with the pin
    given in world (pivot P, axes RJ) and the part frame off the pin, turned and with a full
    inertia matrix, so the reactions' frames are exercised."""
    P = np.array([0.3, -0.2, 1.0])
    RJ = axes(z_axis, -EZ)
    origin, Rf = P + [0.05, 0.1, -0.2], axes([1, 2, 3], [0, 1, 0])
    q = wxyz(Rf)
    Rp = matrices(q[None])[0]             # the part frame as the pin marker sees it
    m = mk.pendulum("revolute", wxyz(RJ), part="rod", mass=mass,
                    inertia=[[0.05, 0.01, -0.01], [0.01, 0.04, 0.003], [-0.01, 0.003, 0.03]],
                    center_of_mass=Rf.T @ (P + d * RJ[:, 2] - l * EZ - origin), gravity=GRAV,
                    pivot=P, pin=Rp.T @ (P - origin), pin_axes=wxyz(Rp.T @ RJ),
                    position=origin, orientation=q)
    m.add_motion("hold", "pin", theta)
    return m


def slider_crank(rng: np.random.Generator) -> tuple[Mechanism, Rates]:
    """Crank (revolute) - spherical - rod - universal - slider (prismatic), in a vertical
    plane with an inclined slide: 1 DOF, no redundancy, crank driven."""
    m = Mechanism(gravity=GRAV)
    m.add_part("ground", fixed=True)
    O, R, L = np.array([0.0, 0.0, 0.3]), 0.12, 0.40
    d = unit([np.cos(0.35), 0, np.sin(0.35)])
    P0, U0 = O + R * d, O + (R + L) * d
    body(m, rng, "crank", O + 0.5 * R * d, R)
    body(m, rng, "rod", (P0 + U0) / 2, L)
    body(m, rng, "slider", U0, 0.1)
    joint(m, "crank_pin", "revolute", "crank", "ground", O, axes(EY, d))
    joint(m, "big_end", "spherical", "rod", "crank", P0)
    # rod swings about y; the cross's other arm is in-plane, across the slide
    joint(m, "small_end", "universal", "rod", "slider", U0, axes(EY, d),
          R_j=axes(np.cross(EY, d), EY))
    joint(m, "slide", "prismatic", "slider", "ground", U0, axes(d, EY))
    m.add_motion("drive", "crank_pin", "0.3 + 4*t + 0.5*sin(3*t)")
    return m, {"drive": lambda t: 4 + 1.5 * np.cos(3 * t)}


def double_pendulum(rng: np.random.Generator) -> tuple[Mechanism, Rates]:
    """Two links on driven revolutes about perpendicular axes (world y, then link1's x)."""
    m = Mechanism(gravity=GRAV)
    m.add_part("ground", fixed=True)
    O, E = np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, 0.5])
    body(m, rng, "link1", (O + E) / 2, 0.5)
    body(m, rng, "link2", E + [0.05, 0.1, -0.2], 0.4)
    joint(m, "shoulder", "revolute", "link1", "ground", O, Y_AXIS)
    joint(m, "elbow", "revolute", "link2", "link1", E, axes(EX, EZ))
    m.add_motion("m1", "shoulder", "0.2 + 0.5*sin(2*t)")
    m.add_motion("m2", "elbow", "1.5*t - 0.3*cos(t)")
    return m, {"m1": lambda t: np.cos(2 * t), "m2": lambda t: 1.5 + 0.3 * np.sin(t)}


def cylinder_arm(rng: np.random.Generator) -> tuple[Mechanism, Rates]:
    """Carriage on a tilted cylindrical joint (angle and slide driven) carrying an arm on a
    driven revolute (motion given as a Python callable) across the cylinder axis."""
    m = Mechanism(gravity=GRAV)
    m.add_part("ground", fixed=True)
    c, C0 = unit([0.3, 0.2, 1.0]), np.array([0.0, 0.0, 0.2])
    Rc = axes(c, EX)
    A0 = C0 + 0.15 * Rc[:, 0]
    body(m, rng, "carriage", C0 + 0.05 * Rc[:, 0], 0.2)
    body(m, rng, "arm", A0 + 0.2 * c, 0.3)
    joint(m, "column", "cylindrical", "carriage", "ground", C0, Rc)
    joint(m, "hinge", "revolute", "arm", "carriage", A0, axes(Rc[:, 0], c))
    m.add_motion("spin", "column", "2*t + 0.3*t*t", coordinate="angle")
    m.add_motion("lift", "column", "0.1*sin(3*t)", coordinate="slide")
    m.add_motion("swing", "hinge", lambda t: 0.5 * ex.sin(4 * t))
    return m, {"spin": lambda t: 2 + 0.6 * t, "lift": lambda t: 0.3 * np.cos(3 * t),
               "swing": lambda t: 2 * np.cos(4 * t)}


def spatial_linkage(rng: np.random.Generator) -> tuple[Mechanism, Rates]:
    """Spatial crank: crank (revolute, driven) - spherical - coupler - universal - shuttle
    (cylindrical, angle driven, slide free) - prismatic (driven) - pusher.  4 moving parts,
    random geometry, masses and inertias."""
    m = Mechanism(gravity=GRAV)
    m.add_part("ground", fixed=True)
    O = np.array([0.0, 0.0, 0.5]) + rng.uniform(-0.05, 0.05, 3)
    Ra = axes(EY + rng.uniform(-0.3, 0.3, 3), EX + rng.uniform(-0.2, 0.2, 3))  # crank axis ~ y
    R, Lc = rng.uniform(0.08, 0.12), rng.uniform(0.35, 0.45)
    P0 = O + R * Ra[:, 0]
    d = unit(EX + rng.uniform(-0.3, 0.3, 3))           # shuttle axis
    L0 = O + rng.uniform(-0.03, 0.03, 3)
    w = P0 - L0                                        # |L0 + s d - P0| = Lc, larger root
    s0 = np.dot(w, d) + np.sqrt(np.dot(w, d) ** 2 - np.dot(w, w) + Lc ** 2)
    U0 = L0 + s0 * d
    e = unit(U0 - P0)
    n = unit(np.cross(d, rng.uniform(-1, 1, 3)))       # on the shuttle, perpendicular to d
    Q0 = U0 + 0.1 * n
    for name, center, size in (("crank", O + 0.5 * (P0 - O), R), ("coupler", (P0 + U0) / 2, Lc),
                               ("shuttle", U0, 0.15), ("pusher", Q0 + 0.05 * d, 0.12)):
        body(m, rng, name, center, size)
    joint(m, "crank_pin", "revolute", "crank", "ground", O, Ra)
    joint(m, "ball", "spherical", "coupler", "crank", P0,
          Rotation.random(random_state=rng).as_matrix())
    # cross: z_I across the coupler (n x e), z_J = n on the shuttle; the coupler's spin is fixed
    joint(m, "cross", "universal", "coupler", "shuttle", U0, axes(np.cross(n, e), e),
          R_j=axes(n, d))
    joint(m, "sleeve", "cylindrical", "shuttle", "ground", U0, axes(d, n), pos_j=L0)
    joint(m, "guide", "prismatic", "pusher", "shuttle", Q0,
          axes(n + 0.5 * d + rng.uniform(-0.2, 0.2, 3), d))
    m.add_motion("rotate", "crank_pin", "0.2 + 2.5*t")
    m.add_motion("twist", "sleeve", "0.4*sin(3*t)", coordinate="angle")
    m.add_motion("push", "guide", "0.06*sin(4*t)")
    return m, {"rotate": lambda t: 2.5 + 0 * t, "twist": lambda t: 1.2 * np.cos(3 * t),
               "push": lambda t: 0.24 * np.cos(4 * t)}


def four_bar(rng: np.random.Generator, redundant: bool = True) -> tuple[Mechanism, Rates]:
    """Crank-rocker four-bar in the vertical xz plane (pins along world y): four revolutes
    (3 redundant equations), or revolute, revolute, spherical, universal (none)."""
    m = Mechanism(gravity=GRAV)
    m.add_part("ground", fixed=True)
    A0, B0 = np.array([0.0, 0.0, 0.5]), np.array([0.3, 0.0, 0.5])
    a, b, c = 0.1, 0.3, 0.25                           # crank, coupler, rocker lengths
    A = A0 + a * EX
    dist = np.linalg.norm(B0 - A)                      # B on circles (A, b) and (B0, c)
    u = unit(B0 - A)
    x = (dist ** 2 + b ** 2 - c ** 2) / (2 * dist)
    B = A + x * u + np.sqrt(b ** 2 - x ** 2) * np.cross(EY, u)
    body(m, rng, "crank", (A0 + A) / 2, a)
    body(m, rng, "coupler", (A + B) / 2, b)
    body(m, rng, "rocker", (B + B0) / 2, c)
    joint(m, "j1", "revolute", "crank", "ground", A0, Y_AXIS)
    joint(m, "j2", "revolute", "coupler", "crank", A, Y_AXIS)
    if redundant:
        joint(m, "j3", "revolute", "coupler", "rocker", B, Y_AXIS)
        joint(m, "j4", "revolute", "rocker", "ground", B0, Y_AXIS)
    else:   # universal: swing about y (ground) and tilt about an in-plane axis across the rocker
        joint(m, "j3", "spherical", "coupler", "rocker", B)
        joint(m, "j4", "universal", "rocker", "ground", B0, axes(np.cross(EY, B - B0), EY),
              R_j=Y_AXIS)
    m.add_motion("drive", "j1", "0.3 + 3*t")
    return m, {"drive": lambda t: 3 + 0 * t}


BUILDERS = {"slider_crank": slider_crank, "double_pendulum": double_pendulum,
            "cylinder_arm": cylinder_arm, "spatial_linkage": spatial_linkage,
            "four_bar_redundant": four_bar}


# ---------------------------------------------------------------- physics from the results
def com_motion(m: Mechanism, r, part: str):
    """COM position, velocity, acceleration; w, alpha; world inertia (n, 3, 3)."""
    c = r.center_of_mass(part)
    arm = c - r.position(part)
    w, al = r.angular_velocity(part), r.angular_acceleration(part)
    v = r.velocity(part) + np.cross(w, arm)
    a = r.acceleration(part) + np.cross(al, arm) + np.cross(w, np.cross(w, arm))
    A = matrices(r.orientation(part))
    Iw = A @ m.parts[part].inertia @ A.transpose(0, 2, 1)
    return c, v, a, w, al, Iw


def energy(m: Mechanism, r) -> tuple[np.ndarray, np.ndarray, float]:
    """KE + PE, its analytic rate m v.a + w.I_w alpha - m g.v, and a power scale."""
    E, dE, scale = 0.0, 0.0, 0.0
    for name, part in m.parts.items():
        if part.fixed:
            continue
        c, v, a, w, al, Iw = com_motion(m, r, name)
        Iww, Iwa = np.einsum("nij,nj->ni", Iw, w), np.einsum("nij,nj->ni", Iw, al)
        E = E + 0.5 * part.mass * np.sum(v * v, 1) + 0.5 * np.sum(w * Iww, 1) - part.mass * c @ GRAV
        terms = [part.mass * np.sum(v * a, 1), np.sum(w * Iwa, 1), -part.mass * v @ GRAV]
        dE = dE + sum(terms)
        scale = max(scale, *(np.max(np.abs(t)) for t in terms))
    return E, dE, scale


def motion_power(m: Mechanism, r, rates: Rates) -> tuple[np.ndarray, float]:
    terms = [r.effort(name) * rates[name](r.times) for name in m.motions]
    return sum(terms), max(np.max(np.abs(t)) for t in terms)


def newton_euler(m: Mechanism, r) -> dict[str, tuple[np.ndarray, np.ndarray, float, float]]:
    """Per moving part: residuals (sum of loads - m a_com, sum of moments about the COM -
    (I_w alpha + w x I_w w)) and the largest term of each sum (the rounding scale)."""
    forces = {p: [] for p, part in m.parts.items() if not part.fixed}
    moments = {p: [] for p in forces}
    com = {p: r.center_of_mass(p) for p in forces}

    def load(part: str, F, at, T) -> None:
        if part in forces:
            forces[part].append(F)
            moments[part].append(np.cross(at - com[part], F))
            moments[part].append(T)

    zero = np.zeros((len(r.times), 3))
    for jn, jt in m.joints.items():
        F, T = r.reaction(jn)
        PI = r.marker_frame(jt.marker_i)[0]
        load(m.markers[jt.marker_i].part, F, PI, T)
        load(m.markers[jt.marker_j].part, -F, PI, -T)
    for mn, mo in m.motions.items():
        jt = m.joints[mo.joint]
        PI = r.marker_frame(jt.marker_i)[0]
        ez = r.effort(mn)[:, None] * r.marker_frame(jt.marker_j)[1][:, :, 2]
        F, T = (zero, ez) if mo.coordinate == "angle" else (ez, zero)
        load(m.markers[jt.marker_i].part, F, PI, T)
        load(m.markers[jt.marker_j].part, -F, PI, -T)
    out = {}
    for p in forces:
        c, v, a, w, al, Iw = com_motion(m, r, p)
        mass = m.parts[p].mass
        load(p, np.tile(mass * GRAV, (len(r.times), 1)), c, zero)
        Ia = np.einsum("nij,nj->ni", Iw, al)
        gyro = np.cross(w, np.einsum("nij,nj->ni", Iw, w))
        fs, ms = forces[p] + [mass * a], moments[p] + [Ia, gyro]
        out[p] = (sum(forces[p]) - mass * a, sum(moments[p]) - Ia - gyro,
                  max(np.max(np.linalg.norm(f, axis=1)) for f in fs),
                  max(np.max(np.linalg.norm(f, axis=1)) for f in ms))
    return out


# ---------------------------------------------------------------- 1. held pendulum
@pytest.mark.parametrize("z_axis", [EY, EX, -EY, unit([1, 1, 0])], ids=["y", "x", "-y", "xy"])
@pytest.mark.parametrize("theta", [-2.9, -1.2, -0.3, 0.0, 0.4, np.pi / 2, 2.2, 3.0, np.pi,
                                   2 * np.pi - 0.3])   # inverted; beyond the (-pi, pi] wrap
def test_held_pendulum_effort_and_reaction(theta: float, z_axis: np.ndarray) -> None:
    """Static torque m g l sin(theta) (gravity's torque about z_J is -m g l sin(theta)); pivot
    force +m g up; pivot torque m g d (z_J x e_z) from the COM's offset d along the axis."""
    mass, l, d = 1.7, 0.45, 0.08
    r = pendulum(theta, z_axis, l, d, mass).solve(duration=0.25, fps=8)
    scale = mass * G * l
    # effort: 1e-9 of the static torque scale (Newton leaves ~1e-12 relative in the angle)
    np.testing.assert_allclose(r.effort("hold"), mass * G * l * np.sin(theta), rtol=0,
                               atol=1e-9 * scale)
    F, T = r.reaction("pin")
    np.testing.assert_allclose(F, np.tile([0, 0, mass * G], (len(r), 1)), rtol=0,
                               atol=1e-9 * mass * G)
    np.testing.assert_allclose(T, np.tile(mass * G * d * np.cross(z_axis, EZ), (len(r), 1)),
                               rtol=0, atol=1e-9 * scale)
    # marker J axes (x_J towards -z at theta 0): force +m g up is -m g along y_J
    FJ, TJ = r.reaction("pin", frame="J")
    RJ = axes(z_axis, -EZ)
    np.testing.assert_allclose(FJ, np.tile(RJ.T @ [0, 0, mass * G], (len(r), 1)), rtol=0,
                               atol=1e-9 * mass * G)
    np.testing.assert_allclose(TJ[:, 2], 0.0, atol=1e-9 * scale)   # a pin carries no axial torque


# ---------------------------------------------------------------- 2. power balance
@pytest.mark.parametrize("name", list(BUILDERS))
def test_power_balance(name: str) -> None:
    """sum(effort * rate) = d(KE + PE)/dt at every frame, and its integral = E(T) - E(0)."""
    m, rates = BUILDERS[name](np.random.default_rng(7))
    r = m.solve(duration=2.0, fps=120)
    E, dE, escale = energy(m, r)
    P, pscale = motion_power(m, r, rates)
    # 1e-9 of the largest power term: the efforts come from one linear solve per frame
    np.testing.assert_allclose(P, dE, rtol=0, atol=1e-9 * max(escale, pscale))
    # work of the motions over the run vs E, which uses positions and velocities only (so
    # efforts built on wrong accelerations fail here); Simpson on 241 samples of a smooth
    # power: error ~ h^4 max|d4P/dt4| T / 180, far below 1e-6
    work = simpson(P, x=r.times)
    assert abs(work - (E[-1] - E[0])) <= 1e-6 * pscale * r.times[-1]
    # the accelerations behind the efforts are those of the motion: central differences of
    # the velocities, error h^2/6 |d3v/dt3| ~ (rate * h)^2 / 6 < 1e-3 of the largest value
    h = r.times[1] - r.times[0]
    for k in (2, 4):                  # (v_com, a_com), (w, alpha) of every moving part
        pairs = [com_motion(m, r, p)[k - 1:k + 1] for p in m.parts if not m.parts[p].fixed]
        err = max(np.max(np.abs((x[2:] - x[:-2]) / (2 * h) - dx[1:-1])) for x, dx in pairs)
        assert err <= 5e-3 * max(np.max(np.abs(dx)) for _, dx in pairs)


# ---------------------------------------------------------------- 3. Newton-Euler per part
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("name", list(BUILDERS))
def test_newton_euler_per_part(name: str, seed: int) -> None:
    """Reactions (+ on I at marker I, - on J), efforts (along z_J) and gravity give m a_com
    and I_w alpha + w x I_w w about the COM, for every moving part at every frame."""
    m, _ = BUILDERS[name](np.random.default_rng(seed))
    r = m.solve(duration=1.5, fps=30)
    for part, (dF, dM, fscale, mscale) in newton_euler(m, r).items():
        # 1e-9 of the largest force (moment) in the balance: rounding of a linear solve
        assert np.max(np.abs(dF)) <= 1e-9 * fscale, (part, np.max(np.abs(dF)), fscale)
        assert np.max(np.abs(dM)) <= 1e-9 * mscale, (part, np.max(np.abs(dM)), mscale)


# ---------------------------------------------------------------- 4. reaction on the ground
def ground_pair(kind: str, swap: bool) -> Mechanism:
    """Carriage on a driven ``kind`` joint to the ground (ground marker as I when swapped,
    motions negated), carrying a driven arm; for the sliding kinds the carriage's marker
    starts 0.12 m along the axis from the ground's."""
    rng = np.random.default_rng(11)
    m = Mechanism(gravity=GRAV)
    m.add_part("ground", fixed=True)
    c, C0 = unit([0.2, -0.4, 1.0]), np.array([0.1, 0.2, 0.3])
    Rc = axes(c, EX)
    body(m, rng, "carriage", C0 + 0.1 * Rc[:, 0], 0.2)
    body(m, rng, "arm", C0 + 0.2 * Rc[:, 0] + 0.15 * Rc[:, 1], 0.3)
    Kc = C0 + (0.0 if kind == "revolute" else 0.12) * c
    if swap:
        joint(m, "base", kind, "ground", "carriage", C0, Rc, pos_j=Kc)
    else:
        joint(m, "base", kind, "carriage", "ground", Kc, Rc, pos_j=C0)
    joint(m, "hinge", "revolute", "arm", "carriage", C0 + 0.2 * Rc[:, 0], axes(Rc[:, 1], c))
    s = -1 if swap else 1
    if kind in ("revolute", "cylindrical"):
        m.add_motion("turn", "base", f"{s}*(0.4 + 1.5*t)", coordinate="angle")
    if kind in ("prismatic", "cylindrical"):
        m.add_motion("slide", "base", f"{s}*(0.12 + 0.05*sin(5*t))", coordinate="slide")
    m.add_motion("swing", "hinge", "0.7*sin(3*t)")
    return m


@pytest.mark.parametrize("kind", ["revolute", "prismatic", "cylindrical"])
def test_reaction_on_ground_is_opposite(kind: str) -> None:
    """With I on the ground the reaction is the load on the ground: -F, and -T moved from
    the carriage's marker origin to the ground marker's; efforts change sign."""
    m = ground_pair(kind, False)
    r = m.solve(duration=1.0, fps=24)
    rs = ground_pair(kind, True).solve(duration=1.0, fps=24)
    # same motion in both (positions to Newton's ~1e-12 relative)
    np.testing.assert_allclose(rs.center_of_mass("arm"), r.center_of_mass("arm"), atol=1e-10)
    F, T = r.reaction("base")
    Fs, Ts = rs.reaction("base")
    arm = r.marker_frame("base_I")[0] - rs.marker_frame("base_I")[0]
    scale = np.max(np.linalg.norm(F, axis=1))
    # 1e-9 of the reaction force (moments: times the 0.3 m size of the mechanism)
    np.testing.assert_allclose(Fs, -F, rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(Ts, -T - np.cross(arm, F), rtol=0, atol=1e-9 * scale * 0.3)
    for mn in m.motions:              # the base's motions were negated, the hinge's not
        e = r.effort(mn) * (1 if mn == "swing" else -1)
        np.testing.assert_allclose(rs.effort(mn), e, rtol=0, atol=1e-9 * np.max(np.abs(e)))


# ---------------------------------------------------------------- 5. redundant four-bar
def test_redundant_four_bar_check() -> None:
    """Planar four revolutes: 3 redundant equations (out-of-plane translation and the two
    axis-parallel rows) named under the last joint; DOF still 1."""
    m, _ = four_bar(np.random.default_rng(0))
    rep = m.check()
    assert rep.dof == 1 and rep.driven_dof == 0 and rep.ok
    assert list(rep.redundant) == ["j4"]
    assert sorted(rep.redundant["j4"]) == sorted(["at-point y", "z_I . x_J", "z_I . y_J"])


@pytest.mark.parametrize("seed", [0, 5])
def test_redundant_four_bar_matches_determinate_one(seed: int) -> None:
    """In-plane pin forces and the crank torque of a planar four-bar are statically
    determinate: the redundant (4 revolutes) model's least-norm reactions must give the same
    values as the R-R-S-U model of the same linkage."""
    r = four_bar(np.random.default_rng(seed), True)[0].solve(duration=1.5, fps=30)
    rd = four_bar(np.random.default_rng(seed), False)[0].solve(duration=1.5, fps=30)
    np.testing.assert_allclose(r.center_of_mass("rocker"), rd.center_of_mass("rocker"), atol=1e-10)
    e = rd.effort("drive")
    # 1e-9 of the largest torque / in-plane force: both are single linear solves per frame
    np.testing.assert_allclose(r.effort("drive"), e, rtol=0, atol=1e-9 * np.max(np.abs(e)))
    for j in ("j1", "j2", "j3", "j4"):
        F, Fd = r.reaction(j)[0][:, [0, 2]], rd.reaction(j)[0][:, [0, 2]]
        np.testing.assert_allclose(F, Fd, rtol=0, atol=1e-9 * np.max(np.abs(Fd)))


def test_redundant_four_bar_reactions_are_least_norm() -> None:
    """The reported multipliers are least-norm; for revolutes (unit rows) |lambda|^2 =
    sum |F|^2 + |T|^2, so the reactions (F, T_x, T_z) must be orthogonal to every self-stress
    (reactions that load no part), computed here from the pins' equilibrium matrix."""
    m, _ = four_bar(np.random.default_rng(2))
    r = m.solve(duration=1.0, fps=12)
    P, Fn, Tn = [], [], []
    for j in ("j1", "j2", "j3", "j4"):
        P.append(r.marker_frame(m.joints[j].marker_i)[0])
        F, T = r.reaction(j)
        Fn.append(F), Tn.append(T)
        np.testing.assert_allclose(T[:, 1], 0.0, atol=1e-9 * np.max(np.abs(T)))   # no axial torque
    parts = ["crank", "coupler", "rocker"]
    for k in range(len(r)):
        E = np.zeros((18, 20))        # loads (force, moment about the origin) per part
        for jn, j in enumerate(("j1", "j2", "j3", "j4")):
            for marker, sign in ((m.joints[j].marker_i, 1), (m.joints[j].marker_j, -1)):
                part = m.markers[marker].part
                if part == "ground":
                    continue
                b = 6 * parts.index(part)
                for c in range(3):    # unit force along world axis c at the pin
                    E[b:b + 3, 5 * jn + c] += sign * np.eye(3)[c]
                    E[b + 3:b + 6, 5 * jn + c] += sign * np.cross(P[jn][k], np.eye(3)[c])
                E[b + 3:b + 6, 5 * jn + 3] += sign * EX
                E[b + 3:b + 6, 5 * jn + 4] += sign * EZ
        N = null_space(E)
        assert N.shape[1] == 3        # the 3 redundant equations
        x = np.concatenate([np.r_[Fn[i][k], Tn[i][k][[0, 2]]] for i in range(4)])
        # 1e-9 of the reaction size: the least-norm solve is exact up to rounding
        assert np.max(np.abs(N.T @ x)) <= 1e-9 * np.linalg.norm(x)
