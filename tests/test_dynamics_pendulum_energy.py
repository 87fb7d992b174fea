"""Forward dynamics against closed forms and conservation laws (mechanisms from
tests/mechanisms.py: ``pendulum``, ``chain``, ``benchmark_chain``).

- Compound pendulum released from horizontal: period against 4 sqrt(I_O/(m g l)) K(1/2),
  with a revolute and with a spherical joint.
- Double pendulum and a 5-link 3-D chain (docs/benchmarks.md "chain"): total energy
  constant and joints closed over 10 s at the default tolerance.
- Dampers (torsion spring-damper on a pendulum's pin, translational spring-damper on a
  swinging mass): kinetic + potential - work_nc constant; the force laws checked per frame
  by equation-of-motion / power balances written here.
- Featherstone's two-body example: two free bodies joined by a revolute joint, at rest, pushed on
  body 1: frame-0 accelerations against the paper's closed form (its Eq. 26).

Runtimes (2 cores): pendulum periods about 0.5 s each, double pendulum and chain about
3.5 s each (marked slow), damped cases about 1 s each, the two-body problem 0.1 s each; about 12 s
for the file.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.interpolate import BPoly
from scipy.optimize import brentq
from scipy.spatial.transform import Rotation
from scipy.special import ellipk

import mechanisms as mk
from solver import Mechanism

G = mk.G
EXPLICIT = "explicit"      # every run here must use the explicit integrator (see _explicit)


# ---------------------------------------------------------------- helpers
def _explicit(r) -> None:
    """Guard: these tests are about the explicit Dormand-Prince integrator (the implicit one
    is tested elsewhere); ``method`` is a newer Result attribute, absent means explicit."""
    assert EXPLICIT in getattr(r, "method", EXPLICIT).lower()


def pendulum(kind: str, inertia_c: float) -> Mechanism:
    """``mk.pendulum``: 1 kg bob, centre of mass 1 m from a ground pivot at the origin,
    starting on +x (at rest, horizontal); hinge axis world y (markers' z), so the bob falls
    in the xz plane.  Part frame origin on the pivot; rotation about y by phi puts the bob at
    (cos phi, 0, -sin phi): phi = pi/2 at the bottom, and the joint angle equals phi."""
    return mk.pendulum(kind, "y", inertia=(inertia_c,) * 3)


def zero_crossings(t: np.ndarray, th: np.ndarray, w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Times where th changes sign between frames: root of the quintic Hermite interpolant
    of (th, th', th'') at the two bracketing frames (bracketed, so brentq is safe)."""
    out = []
    for k in np.flatnonzero(np.sign(th[:-1]) * np.sign(th[1:]) < 0):
        p = BPoly.from_derivatives(t[k:k + 2], [[th[k], w[k], a[k]], [th[k + 1], w[k + 1], a[k + 1]]])
        out.append(brentq(p, t[k], t[k + 1], xtol=1e-15, rtol=4 * np.finfo(float).eps))
    return np.array(out)


# ---------------------------------------------------------------- 1. pendulum period
@pytest.mark.parametrize("kind", ["revolute", "spherical"])
def test_pendulum_period_from_horizontal(kind: str) -> None:
    """Shared benchmark pendulum: T = 4 sqrt(I_O/(m g l)) K(k^2), k = sin(90deg/2), to 1e-7.

    theta = angle of the bob from straight down = atan2(x, -z) = pi/2 - phi, so theta' =
    -w_y, theta'' = -alpha_y; theta = 0 (the bottom) at T/4 and 3T/4.  Measurement error:
    the bracket has |theta| <= w_max h = sqrt(2 g) / 24 < 0.2 rad, where |theta^(6)| < 4900
    s^-6 (Taylor series of theta'' = -c sin theta on the energy curve); the quintic Hermite
    error is <= h^6/46080 max|theta^(6)| = 5.5e-10 rad, i.e. 1.3e-10 s at w_max = 4.43 rad/s,
    5e-11 of T: far below 1e-7.  tolerance=1e-9 (the default 1e-6 measured 1.2e-9 of T, the
    tight one about 6e-12; run about 1 s)."""
    m_, l, ic = 1.0, 1.0, 4e-5
    i_o = m_ * l * l + ic
    period = 4.0 * math.sqrt(i_o / (m_ * G * l)) * ellipk(math.sin(math.pi / 4) ** 2)
    r = pendulum(kind, ic).solve(duration=2.0, fps=24, tolerance=1e-9)
    _explicit(r)
    c = r.center_of_mass("bob")
    w, al = r.angular_velocity("bob"), r.angular_acceleration("bob")
    # the motion stays in the xz plane (spherical: nothing excites the other rotations)
    assert np.abs(c[:, 1]).max() < 1e-12
    assert np.abs(w[:, [0, 2]]).max() < 1e-12 and np.abs(al[:, [0, 2]]).max() < 1e-12
    th = np.arctan2(c[:, 0], -c[:, 2])
    t_cross = zero_crossings(r.times, th, -w[:, 1], -al[:, 1])
    assert len(t_cross) == 2
    # released at rest at t = 0: first bottom at T/4; successive bottoms T/2 apart
    for measured in (4.0 * t_cross[0], 2.0 * (t_cross[1] - t_cross[0])):
        assert abs(measured - period) < 1e-7 * period


# ---------------------------------------------------------------- 2. energy conservation
def double_pendulum(th1: float, th2: float) -> Mechanism:
    """Two uniform rods (1 m, 1 kg; 0.7 m, 0.5 kg) on revolutes about world y, link k at
    angle th_k from straight down (``mk.chain`` turns part x about y from +x towards -z:
    pi/2 - th_k), at rest."""
    return mk.chain([math.pi / 2 - th1, math.pi / 2 - th2], lengths=(1.0, 0.7),
                    masses=(1.0, 0.5), kind="revolute", axis="y")


CONSERVATIVE = {
    # energy scale g sum_k m_k d_k, d_k = pivot-to-COM distance of link k when straight
    # (= m g L N^2 / 2 for the chain)
    "double": (lambda: double_pendulum(math.radians(120), math.radians(-30)),
               G * (1.0 * 0.5 + 0.5 * (1.0 + 0.35))),
    "chain5": (lambda: mk.benchmark_chain(5), G * 1.0 * 1.0 * 5 ** 2 / 2),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONSERVATIVE))
def test_energy_conserved_and_joints_closed(name: str) -> None:
    """No dampers or loads: KE + PE constant within 1e-6 of the scale over 10 s at the
    default tolerance (measured: double 3.2e-7, chain 6.4e-8; at tolerance 1e-7,
    9.1e-9 and 1.2e-9), work_nc exactly 0, and every
    joint closed within 1e-9 (``mk.joint_gaps``: marker origins in m, and the revolutes' axes
    parallel; positions are projected to Newton precision, 1e-12 relative, after every step;
    measured 8.6e-13 and 4.8e-12).  Runtime about 3.5 s each."""
    build, scale = CONSERVATIVE[name]
    mech = build()
    r = mech.solve(duration=10.0, fps=24)
    _explicit(r)
    ke, pe, work = r.energy()
    assert np.abs(work).max() < 1e-12 * scale            # nothing non-conservative
    assert ke.max() > 0.5 * scale                       # it really moved
    total = ke + pe
    assert np.abs(total - total[0]).max() < 1e-6 * scale
    assert max(mk.joint_gaps(mech, r).values()) < 1e-9


# ---------------------------------------------------------------- dampers
def test_torsion_spring_damper_energy_balance() -> None:
    """Pendulum (I_c = 0.02, so auto picks the explicit method) with a torsion spring-damper
    k = 5, c = 0.3, free angle 0.3 on its pin, from horizontal at rest, 5 s.

    With phi the joint angle (see ``pendulum``), per frame, to 1e-9 (frame states are exact
    functions of the projected state; measured 1e-13):
      I_O phi'' = m g l cos phi - k (phi - phi0) - c phi'      (equation of motion)
      PE = -m g l sin phi + k/2 (phi - phi0)^2                  (gravity + spring)
    and KE + PE - work_nc constant within 1e-6 of m g l (measured 2e-12), while the damper
    takes a good part of the energy (-work_nc > 1 J)."""
    k, c, phi0, ic = 5.0, 0.3, 0.3, 0.02
    i_o = 1.0 + ic
    mech = pendulum("revolute", ic)
    mech.add_torsion_spring("hinge", joint="pin", stiffness=k, damping=c, free_angle=phi0)
    r = mech.solve(duration=5.0, fps=24)
    _explicit(r)
    q = r.orientation("bob")
    phi = 2.0 * np.arctan2(q[:, 2], q[:, 0])        # rotation about +y only (checked next)
    assert np.abs(q[:, [1, 3]]).max() < 1e-12
    w, al = r.angular_velocity("bob")[:, 1], r.angular_acceleration("bob")[:, 1]
    rhs = G * np.cos(phi) - k * (phi - phi0) - c * w
    assert np.abs(i_o * al - rhs).max() < 1e-9 * G
    ke, pe, work = r.energy()
    assert np.abs(pe - (-G * np.sin(phi) + 0.5 * k * (phi - phi0) ** 2)).max() < 1e-9 * G
    assert np.abs(ke - 0.5 * i_o * w * w).max() < 1e-9 * G
    assert work[-1] < -1.0
    total = ke + pe - work
    assert np.abs(total - total[0]).max() < 1e-6 * G


def test_translational_spring_damper_energy_balance() -> None:
    """Spherical pendulum (1 kg bob 1 m from the pivot, I_c 4e-5) thrown sideways, 2 m/s,
    with a spring-damper (k = 20, c = 0.5, free length = initial) from the bob to a ground
    anchor 1.5 m below the pivot; 5 s.

    Power balance per frame (part origin = COM, so r.velocity/acceleration are the COM's):
      m v.a + w.(I_c w') + m g v_z + k (L - L0) L' = -c L'^2,   L' = -u.v, u = (A - x)/L
    to 1e-9 of m g l (1/s) (measured 1e-14); KE + PE - work_nc constant within 1e-6 of m g l
    (measured 8e-12) while -work_nc > 1 J."""
    k, c, ic = 20.0, 0.5, 4e-5
    anchor = np.array([0.0, 0.0, -1.5])
    # part frame on the bob's centre, its pin 1 m back along x; consistent initial velocity:
    # v = w x (x - O) with x - O = (1, 0, 0), w = (0, 0, 2)
    m = mk.pendulum("spherical", inertia=(ic,) * 3, center_of_mass=(0, 0, 0), pin=(-1.0, 0, 0),
                    position=(1.0, 0, 0), velocity=(0, 2.0, 0), angular_velocity=(0, 0, 2.0))
    m.add_marker("A", "ground", position=anchor)
    m.add_marker("C", "bob")
    m.add_spring_damper("shock", "C", "A", stiffness=k, damping=c)
    r = m.solve(duration=5.0, fps=24)
    _explicit(r)
    x, v, a = r.position("bob"), r.velocity("bob"), r.acceleration("bob")
    w, al = r.angular_velocity("bob"), r.angular_acceleration("bob")
    assert np.abs(x[:, 1]).max() > 0.3                     # really 3-D
    d = anchor - x
    length = np.linalg.norm(d, axis=1)
    rate = -np.einsum("ni,ni->n", d / length[:, None], v)
    l0 = math.hypot(1.0, 1.5)
    dot = lambda p, q: np.einsum("ni,ni->n", p, q)         # noqa: E731
    power = dot(v, a) + ic * dot(w, al) + G * v[:, 2] + k * (length - l0) * rate
    assert np.abs(power + c * rate ** 2).max() < 1e-9 * G
    ke, pe, work = r.energy()
    assert abs(ke[0] - (0.5 * 2.0 ** 2 + 0.5 * ic * 2.0 ** 2)) < 1e-12
    assert np.abs(pe - (G * x[:, 2] + 0.5 * k * (length - l0) ** 2)).max() < 1e-9 * G
    assert work[-1] < -1.0
    total = ke + pe - work
    assert np.abs(total - total[0]).max() < 1e-6 * G


# ---------------------------------------------------------------- 3. Featherstone's two bodies
def skew(u: np.ndarray) -> np.ndarray:
    """u~ with u~ v = u x v."""
    return np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])


def featherstone_two_body(m1: float, i1: np.ndarray, m2: float, i2: np.ndarray, r1: np.ndarray,
                          r2: np.ndarray, s: np.ndarray, f: np.ndarray, tau: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a1, w1', M) of Featherstone's two-body example, eq. 26: [f; tau] = [[A, B], [C, D]] [a1; w1'] with r_i = C_i P
    (centre of mass to joint point), world-axis central inertias, unit joint axis s:
      J = I2 - m2 r2~ r2~,  K = J + m2 r1~ r2~,  d = s^T J s
      A = (m1 + m2) 1 + m2^2 r2~ s s^T r2~ / d
      B = m2 (r2~ - r1~) - m2 r2~ s s^T K^T / d
      C = m2 (r1~ - r2~) + m2 K s s^T r2~ / d
      D = I1 + I2 - m2 (r1~ - r2~)^2 - K s s^T K^T / d."""
    R1, R2, ss = skew(r1), skew(r2), np.outer(s, s)
    J = i2 - m2 * R2 @ R2
    K = J + m2 * R1 @ R2
    d = s @ J @ s
    A = (m1 + m2) * np.eye(3) + m2 ** 2 * R2 @ ss @ R2 / d
    B = m2 * (R2 - R1) - m2 * R2 @ ss @ K.T / d
    C = m2 * (R1 - R2) + m2 * K @ ss @ R2 / d
    D = i1 + i2 - m2 * (R1 - R2) @ (R1 - R2) - K @ ss @ K.T / d
    M = np.block([[A, B], [C, D]])
    x = np.linalg.solve(M, np.concatenate([f, tau]))
    return x[:3], x[3:], M


def wxyz(R: np.ndarray) -> np.ndarray:
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    return np.array([w, x, y, z])


def random_inertia(rng: np.random.Generator, mass: float) -> np.ndarray:
    """Central inertia of a random box (so SPD and triangle inequality hold), randomly turned."""
    a, b, c = rng.uniform(0.1, 1.0, 3)
    R = Rotation.random(random_state=rng).as_matrix()
    return R @ np.diag(mass * np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 12) @ R.T


@pytest.mark.parametrize("seed", range(10))
def test_two_body_revolute_initial_acceleration_against_featherstone(seed: int) -> None:
    """Two free bodies (no ground, no gravity) on a revolute joint at rest; force f through
    C1 and couple tau on B1.  Solver's frame-0 (a1, w1') against Eq. 26 to 1e-9 relative
    (both are one linear solve of a well-conditioned 6x6/12x12 system: measured 1e-13).
    Part frames are off the centres of mass; with w = 0, a_C = a_origin + w' x (C - origin)."""
    rng = np.random.default_rng(1000 + seed)
    m1, m2 = rng.uniform(0.5, 5.0, 2)
    i1p, i2p = random_inertia(rng, m1), random_inertia(rng, m2)    # part axes
    R1, R2 = (Rotation.random(random_state=rng).as_matrix() for _ in range(2))
    c1p, c2p = rng.normal(scale=0.3, size=(2, 3))                  # COM in part frames
    C1, C2, P = rng.normal(size=(3, 3))                            # world points
    s = rng.normal(size=3)
    s /= np.linalg.norm(s)
    f, tau = 5.0 * rng.normal(size=3), 2.0 * rng.normal(size=3)
    a1, dw1, M = featherstone_two_body(m1, R1 @ i1p @ R1.T, m2, R2 @ i2p @ R2.T,
                                       P - C1, P - C2, s, f, tau)
    # the paper's remarks as a check of this transcription: A, D symmetric, B = C^T, SPD
    np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-12 * np.abs(M).max())
    assert np.linalg.eigvalsh(0.5 * (M + M.T)).min() > 0.0

    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("b1", mass=m1, inertia=i1p, center_of_mass=c1p, position=C1 - R1 @ c1p,
               orientation=wxyz(R1))
    m.add_part("b2", mass=m2, inertia=i2p, center_of_mass=c2p, position=C2 - R2 @ c2p,
               orientation=wxyz(R2))
    x = np.cross(s, rng.normal(size=3))
    x /= np.linalg.norm(x)
    axes = np.column_stack([x, np.cross(s, x), s])                # marker z along s
    for part, R, C, c in (("b1", R1, C1, c1p), ("b2", R2, C2, c2p)):
        m.add_marker(f"{part}_P", part, position=c + R.T @ (P - C), orientation=wxyz(R.T @ axes))
    m.add_marker("b1_C", "b1", position=c1p)
    m.add_joint("hinge", "revolute", "b1_P", "b2_P")
    m.add_force("push", "b1_C", force=f, torque=tau)
    r = m.solve(duration=1 / 24, fps=24, analysis="dynamic")
    _explicit(r)
    np.testing.assert_allclose(r.center_of_mass("b1")[0], C1, atol=1e-12)   # nothing moved
    dw = r.angular_acceleration("b1")[0]
    a = r.acceleration("b1")[0] + np.cross(dw, R1 @ c1p)
    assert np.linalg.norm(a - a1) < 1e-9 * np.linalg.norm(a1)
    assert np.linalg.norm(dw - dw1) < 1e-9 * np.linalg.norm(dw1)
    # Eq. 15: no couple about s at P is transmitted (reaction on b1 at its marker P)
    force, torque = r.reaction("hinge")
    assert abs(torque[0] @ s) < 1e-9 * (np.linalg.norm(torque[0]) + np.linalg.norm(force[0]))
