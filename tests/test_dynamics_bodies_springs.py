"""Forward dynamics of free and jointed rigid bodies, spring-dampers, torsion springs, applied
loads and motions, against closed forms and independent scipy solves written here.

Accuracy: the integrator holds its local error near tolerance * 1e-2 per step (dynamics.py),
so over O(100-1000) steps the global error is O(tolerance) or less on well-conditioned
problems; each test states the solver tolerance it uses, the bound it asserts and the
error measured when the test was written (the bounds leave a margin of >= 10 over that).
Reference ODE solves use DOP853 at rtol 1e-12, far below every bound.  Free bodies are built
here; the top and the rotor (``pendulum``) and the mass on a spring (``rail_slider``) are
tests/mechanisms.py's builders.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

import mechanisms as mk
from solver import Mechanism, MechanismError

G = mk.G
I_BODY = np.array([0.2, 0.3, 0.4])     # principal moments of the free body, kg m^2


def wxyz(rot: Rotation) -> np.ndarray:
    x, y, z, w = rot.as_quat()
    return np.array([w, x, y, z])


def matrices(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) of quaternions (n, 4) w x y z."""
    return Rotation.from_quat(np.asarray(q)[:, [1, 2, 3, 0]]).as_matrix()


def body_rates(r, part: str) -> np.ndarray:
    """Body-frame angular velocity A^T w of every frame."""
    return np.einsum("nji,nj->ni", matrices(r.orientation(part)), r.angular_velocity(part))


def ref_solve(f, t: np.ndarray, y0) -> np.ndarray:
    """Reference solution (n, len(y0)) at the output times."""
    sol = solve_ivp(f, (t[0], t[-1]), y0, method="DOP853", rtol=1e-12, atol=1e-13, t_eval=t)
    assert sol.success
    return sol.y.T


# ---------------------------------------------------------------- 1. free flight
@pytest.mark.parametrize("g", [0.0, G])
def test_free_flight_conserves_momentum_and_energy(g: float) -> None:
    """A tumbling body: world angular momentum A I A^T w and rotational kinetic energy are
    conserved, the COM moves on r0 + v0 t + g t^2 / 2, and KE + PE is constant.
    Tolerance 1e-8 (local error 1e-10 a step): measured L, KE drift 1.1e-10, 1.6e-10
    relative; COM (a polynomial of degree 2, integrated exactly by a 5th-order method) 1e-13 m.
    """
    rot0 = Rotation.from_rotvec([0.3, -0.5, 0.8])
    com, w0 = np.array([0.1, 0.2, -0.1]), np.array([3.0, -1.0, 2.0])
    v0, p0 = np.array([1.0, 0.5, 2.0]), np.array([0.0, 0.0, 1.0])
    m = Mechanism(gravity=(0, 0, -g))
    m.add_part("ground", fixed=True)
    m.add_part("b", mass=2.0, inertia=I_BODY, center_of_mass=com, orientation=wxyz(rot0),
               position=p0, velocity=v0, angular_velocity=w0)
    r = m.solve(10.0, fps=10, tolerance=1e-8)
    assert r.analysis == "dynamic"
    t, A, w = r.times, matrices(r.orientation("b")), r.angular_velocity("b")
    L = np.einsum("nij,j,nkj,nk->ni", A, I_BODY, A, w)
    ke_rot = 0.5 * np.einsum("ni,ni->n", L, w)
    assert np.abs(L - L[0]).max() <= 1e-8 * np.linalg.norm(L[0])
    assert np.abs(ke_rot - ke_rot[0]).max() <= 1e-8 * ke_rot[0]
    arm = rot0.apply(com)                                   # COM from the part origin, world
    vc = v0 + np.cross(w0, arm)
    exact = p0 + arm + vc * t[:, None] + 0.5 * np.outer(t * t, [0, 0, -g])
    assert np.abs(r.center_of_mass("b") - exact).max() <= 1e-10   # m (moves up to 500 m)
    ke, pe, wnc = r.energy()
    e = ke + pe - wnc
    assert np.abs(wnc).max() == 0.0                          # no loads: no work
    assert np.abs(e - e[0]).max() <= 1e-8 * ke[0]


# ---------------------------------------------------------------- 2. intermediate axis
def test_intermediate_axis_flip_matches_euler_equations() -> None:
    """Dzhanibekov effect: I1 < I2 < I3, spin 4 rad/s about axis 2 plus 0.01 rad/s about the
    others; the body-frame rates A^T w follow Euler's equations solved by DOP853.

    Near the unstable axis errors grow like exp(lam t), lam = w2 sqrt((I3-I2)(I2-I1) /
    (I1 I3)) = 2.3 /s: over this run a change d of the initial w1 moves the series by ~950 d.
    Bound 1e-4 rad/s is the effect of d = 1e-7 (1e-5 of the perturbation); measured 5.6e-6
    at solver tolerance 1e-9 (the reference's own error is 1e-9).  The two flips (zero
    crossings of w2, interpolated alike in both series) agree to 1e-5 s (measured 6e-7 s).
    """
    I = np.array([0.1, 0.2, 0.3])
    wb0 = np.array([0.01, 4.0, 0.01])
    rot = Rotation.from_rotvec([0.4, 0.2, -0.9])          # body axes not world axes
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_part("b", mass=1.0, inertia=I, orientation=wxyz(rot), angular_velocity=rot.apply(wb0))
    r = m.solve(10.0, fps=20, tolerance=1e-9)

    def euler(_t, w):
        return [(I[1] - I[2]) * w[1] * w[2] / I[0], (I[2] - I[0]) * w[2] * w[0] / I[1],
                (I[0] - I[1]) * w[0] * w[1] / I[2]]

    ref = ref_solve(euler, r.times, wb0)
    got = body_rates(r, "b")
    assert np.abs(got - ref).max() <= 1e-4

    def crossings(w2: np.ndarray) -> np.ndarray:
        k = np.flatnonzero(np.sign(w2[1:]) != np.sign(w2[:-1]))
        return r.times[k] + w2[k] / (w2[k] - w2[k + 1]) / 20.0   # linear interpolation

    t_ref, t_got = crossings(ref[:, 1]), crossings(got[:, 1])
    assert len(t_ref) == len(t_got) == 2 and 2.0 < t_ref[0] < 4.0   # it sees two flips
    assert np.abs(t_got - t_ref).max() <= 1e-5


# ---------------------------------------------------------------- 3. heavy symmetric top
def test_heavy_top_steady_precession() -> None:
    """Symmetric top on a spherical joint at its tip, started in steady precession.

    Euler angles (phi precession, theta tilt, psi spin), I1' = I1 + m l^2 about the tip:
    T = I1'/2 (theta'^2 + phi'^2 sin^2 theta) + I3/2 w3^2, w3 = psi' + phi' cos theta,
    V = m g l cos theta.  The theta equation
        I1' theta'' = I1' phi'^2 sin th cos th - I3 w3 phi' sin th + m g l sin th
    with theta'' = 0 gives m g l = W (I3 w3 - I1' W cos th): the slow root
    W = 2 m g l / (I3 w3 + sqrt((I3 w3)^2 - 4 I1' cos th m g l)) (here 2.0927 rad/s; the
    gyroscopic approximation m g l / (I3 w3) = 1.962 would fail by 6%).  Then phi', psi',
    w3 stay constant.  Tolerance 1e-6: measured tilt error 3.5e-9 rad, azimuth 3e-10.
    """
    mass, l, I1, I3, w3, th = 1.0, 0.02, 0.003, 0.005, 20.0, 0.5
    mgl, I1p = mass * G * l, I1 + mass * l * l
    W = 2 * mgl / (I3 * w3 + math.sqrt((I3 * w3) ** 2 - 4 * I1p * math.cos(th) * mgl))
    assert abs(I1p * math.cos(th) * W * W - I3 * w3 * W + mgl) < 1e-14     # the root
    e3 = np.array([math.sin(th), 0.0, math.cos(th)])
    # a spherical pendulum with its centre of mass above the pivot, tilted th about y
    m = mk.pendulum("spherical", part="top", mass=mass, inertia=(I1, I1, I3),
                    center_of_mass=(0, 0, l), orientation=mk.quat_about("y", th),
                    angular_velocity=W * np.array([0, 0, 1.0]) + (w3 - W * math.cos(th)) * e3)
    r = m.solve(2 * 2 * math.pi / W, fps=10, tolerance=1e-6)     # two precession periods
    axis = matrices(r.orientation("top"))[:, :, 2]
    tilt = np.arccos(axis[:, 2])
    azimuth = np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))
    assert np.abs(tilt - th).max() <= 1e-6                          # rad
    assert np.abs(azimuth - W * r.times).max() <= 1e-6 * W * r.times[-1]
    spin = np.einsum("ni,ni->n", r.angular_velocity("top"), axis)
    assert np.abs(spin - w3).max() <= 1e-6 * w3
    assert np.abs(r.position("top")).max() <= 1e-10                 # the tip stays put


# ---------------------------------------------------------------- 4. springs
M, K, L0 = 2.0, 8 * math.pi ** 2, 1.0       # natural frequency 2 pi rad/s (1 s period)
WN = math.sqrt(K / M)


def slider(c: float, x0: float, v0: float = 0.0, **spring) -> Mechanism:
    """A mass on a prismatic joint along world x, tied to the origin by a spring-damper of
    free length L0; x = position - L0.  Gravity -z is across the slide."""
    return mk.rail_slider("x", part="mass", mass=M, inertia=(0.01, 0.01, 0.01),
                          position=(L0 + x0, 0, 0), velocity=(v0, 0, 0), anchor=(0, 0, 0),
                          stiffness=K, damping=c, free_length=L0, **spring)


def free_response(t: np.ndarray, zeta: float, x0: float, v0: float) -> np.ndarray:
    """x'' + 2 zeta WN x' + WN^2 x = 0, x(0) = x0, x'(0) = v0."""
    if zeta < 1.0:
        wd = WN * math.sqrt(1 - zeta * zeta)
        b = (v0 + zeta * WN * x0) / wd
        return np.exp(-zeta * WN * t) * (x0 * np.cos(wd * t) + b * np.sin(wd * t))
    if zeta == 1.0:
        return np.exp(-WN * t) * (x0 + (v0 + WN * x0) * t)
    s1, s2 = -WN * (zeta - math.sqrt(zeta * zeta - 1)), -WN * (zeta + math.sqrt(zeta * zeta - 1))
    c1 = (v0 - s2 * x0) / (s1 - s2)
    return c1 * np.exp(s1 * t) + (x0 - c1) * np.exp(s2 * t)


SPRING_TOL = 1e-8    # solver tolerance: measured <= 3.5e-9 of the amplitude (undamped, 2 s)


@pytest.mark.parametrize("zeta", [0.0, 0.2, 1.0, 2.5])
def test_spring_damper_free_response(zeta: float) -> None:
    """Undamped, under-, critically and over-damped mass-spring-damper (1e-7 of amplitude);
    KE + PE - work_nc constant to 1e-7 of the initial energy (measured 3e-9)."""
    x0, v0 = 0.1, 0.3
    r = slider(2 * zeta * math.sqrt(K * M), x0, v0).solve(2.0, fps=24, tolerance=SPRING_TOL)
    x = r.position("mass")[:, 0] - L0
    amp = math.hypot(x0, v0 / WN)
    assert np.abs(x - free_response(r.times, zeta, x0, v0)).max() <= 1e-7 * amp
    assert np.abs(r.position("mass")[:, 1:]).max() <= 1e-12
    ke, pe, wnc = r.energy()
    e0 = 0.5 * M * v0 * v0 + 0.5 * K * x0 * x0
    assert abs(pe[0] - (0.5 * K * x0 * x0)) <= 1e-12 * e0      # no gravity change, no preload
    assert np.abs(ke + pe - wnc - e0).max() <= 1e-7 * e0
    if zeta > 0:                       # the damper took the energy (e^-5 or less is left)
        assert wnc[-1] < -0.9 * e0


@pytest.mark.parametrize("preload", [5.0, -5.0])
def test_spring_preload_shifts_equilibrium(preload: float) -> None:
    """Tension k x + P: released at rest at the free length, the lightly damped mass
    oscillates about x_eq = -P / k (x - x_eq is a free response from P / k): 1e-7 of
    |x_eq| (measured 3e-9); energy balance 1e-7 of max KE (measured 1e-8)."""
    zeta = 0.1
    m = slider(2 * zeta * math.sqrt(K * M), 0.0, preload=preload)
    r = m.solve(2.0, fps=24, tolerance=SPRING_TOL)
    x = r.position("mass")[:, 0] - L0
    x_eq = -preload / K
    assert np.abs(x - x_eq - free_response(r.times, zeta, -x_eq, 0.0)).max() <= 1e-7 * abs(x_eq)
    ke, pe, wnc = r.energy()            # spring potential 0.5 k (l - L0)^2 + P l
    assert abs(pe[0] - preload * L0) <= 1e-12 * abs(preload)
    assert np.abs(ke + pe - wnc - pe[0]).max() <= 1e-7 * ke.max()


def test_spring_friction_slows_but_holds_no_load() -> None:
    """A spring's friction is friction tanh(speed / 1 mm/s), as docs/python.md says: a 2 kg
    block pushed by 5 N against 10 N of it is not held but creeps at the speed where the
    two balance, 1 mm/s atanh(5 / 10) = 0.549 mm/s; statics finds no equilibrium."""
    from solver import SolverError
    m = mk.rail_slider("x", part="block", mass=2.0, anchor=(-1.0, 0.0, 0.0), friction=10.0,
                       gravity=(0.0, 0.0, 0.0))
    m.add_force("push", "S", force=(5.0, 0.0, 0.0))
    r = m.solve(duration=4.0, fps=1, analysis="dynamic", tolerance=SPRING_TOL)
    creep = 1e-3 * math.atanh(0.5)
    # it reaches the creep speed within about 2 m 1e-3 / (10 (1 - 0.25)) = 0.3 ms, and runs
    # on at it: the speed to the tolerance, the travel to that lag times the creep speed
    assert r.velocity("block")[1:, 0] == pytest.approx(creep, rel=1e-6)
    assert r.position("block")[-1, 0] == pytest.approx(4.0 * creep, rel=1e-3)
    with pytest.raises(SolverError, match="no static equilibrium"):
        m.statics()


def test_spring_actuator_forced_response() -> None:
    """Actuator tension 10 sin(3 t) on the damped mass from rest at x = 0:
    M x'' + c x' + K x = -10 sin(3 t) (tension pulls toward the anchor, -x).  Closed form:
    particular a sin + b cos with (K - M W^2) a - c W b = F0, c W a + (K - M W^2) b = 0,
    plus the transient e^{-zeta WN t}(C1 cos wd t + C2 sin wd t) from x(0) = x'(0) = 0."""
    zeta, F0, Wf = 0.1, -10.0, 3.0
    c = 2 * zeta * math.sqrt(K * M)
    r = slider(c, 0.0, actuator="10*sin(3*t)").solve(3.0, fps=24, tolerance=SPRING_TOL)
    a, b = np.linalg.solve([[K - M * Wf ** 2, -c * Wf], [c * Wf, K - M * Wf ** 2]], [F0, 0.0])
    wd = WN * math.sqrt(1 - zeta * zeta)
    c1 = -b
    c2 = (zeta * WN * c1 - a * Wf) / wd
    t = r.times
    exact = a * np.sin(Wf * t) + b * np.cos(Wf * t) + np.exp(-zeta * WN * t) * (
        c1 * np.cos(wd * t) + c2 * np.sin(wd * t))
    x = r.position("mass")[:, 0] - L0
    assert np.abs(x - exact).max() <= 1e-7 * np.abs(exact).max()
    ke, pe, wnc = r.energy()                 # the actuator's work is in work_nc
    assert np.abs(ke + pe - wnc - pe[0]).max() <= 1e-7 * np.abs(ke).max()


def rotor(theta0: float, **spring) -> Mechanism:
    """A rotor (Izz = 0.5) on a revolute about world z with a torsion spring; gravity along z:
    the pendulum with its centre of mass on the pin."""
    m = mk.pendulum("revolute", "z", theta0, part="rotor", mass=3.0, inertia=(0.4, 0.4, 0.5),
                    center_of_mass=(0, 0, 0))
    m.add_torsion_spring("coil", "pin", **spring)
    return m


@pytest.mark.parametrize("zeta", [0.0, 0.3])
def test_torsion_spring_free_response(zeta: float) -> None:
    """J th'' + c th' + k (th - th0) = 0 with J = 0.5, k = 2 (w = 2 rad/s), from th = 0.6 at
    rest (free angle 0.1); 1e-7 of the amplitude."""
    J, k, th0 = 0.5, 2.0, 0.1
    w = math.sqrt(k / J)
    c = 2 * zeta * math.sqrt(k * J)
    r = rotor(0.6, stiffness=k, damping=c, free_angle=th0).solve(4.0, fps=24, tolerance=SPRING_TOL)
    th = np.unwrap(mk.planar_angle(r.orientation("rotor")))
    x0, wd = 0.5, w * math.sqrt(1 - zeta * zeta)
    t = r.times
    exact = th0 + np.exp(-zeta * w * t) * x0 * (np.cos(wd * t) + zeta * w / wd * np.sin(wd * t))
    assert np.abs(th - exact).max() <= 1e-7 * x0


def test_torsion_spring_wound_past_half_turn() -> None:
    """Free angle 5 rad, start at 0 with k = J pi^2: th = 5 (1 - cos pi t) swings to 10 rad
    (over 1.5 turns) at t = 1 s and back to 0 at 2 s; the torque keeps growing past 180
    degrees (no wrap of the angle).  1e-7 of the amplitude, as above."""
    k = 0.5 * math.pi ** 2
    r = rotor(0.0, stiffness=k, free_angle=5.0).solve(2.0, fps=24, tolerance=SPRING_TOL)
    th = np.unwrap(mk.planar_angle(r.orientation("rotor")))
    assert np.abs(th - 5.0 * (1 - np.cos(math.pi * r.times))).max() <= 1e-7 * 5.0
    assert abs(th[24] - 10.0) <= 5e-7 and abs(th[-1]) <= 5e-7       # the full swing 0 -> 10 -> 0
    ke, pe, wnc = r.energy()            # 0.5 k (th - 5)^2 at both ends of the swing
    assert abs(pe[0] - 12.5 * k) <= 1e-12 and np.abs(ke + pe - 12.5 * k).max() <= 1e-7 * 12.5 * k


def test_torsion_spring_on_a_joint_with_an_angle_row() -> None:
    """A torsion spring reads its joint's angle and gradient from the joint's angle row
    where there is one (here a stop's, at -3 and 3 rad, which th = 1 - cos(pi t) with
    k = J pi^2 and free angle 1 never reaches): the closed form to 1e-7 of the amplitude,
    as without the row, and the spring's energy k (th - 1)^2 / 2 of the run's own angle at
    every frame to 1e-12 of its largest (the row's angle is the joint's)."""
    from solver.model.compile import compile_model
    k = 0.5 * math.pi ** 2
    m = rotor(0.0, stiffness=k, free_angle=1.0)
    m.add_limit("wide", "pin", lower=-3.0, upper=3.0)
    assert compile_model(m).forces.ts_row.tolist() != [-1]
    r = m.solve(2.0, fps=24, tolerance=SPRING_TOL)
    th = mk.planar_angle(r.orientation("rotor"))
    assert np.abs(th - (1 - np.cos(math.pi * r.times))).max() <= 1e-7
    free = rotor(0.0, stiffness=k, free_angle=1.0).solve(2.0, fps=24, tolerance=SPRING_TOL)
    th_free = mk.planar_angle(free.orientation("rotor"))
    assert np.abs(th_free - (1 - np.cos(math.pi * free.times))).max() <= 1e-7
    np.testing.assert_allclose(r.energy()[1], 0.5 * k * (th - 1.0) ** 2, rtol=0,
                               atol=1e-12 * 0.5 * k)


@pytest.mark.parametrize("fps", [7, 24, 240])
def test_torsion_spring_wound_several_turns_in_a_sweep(fps: int) -> None:
    """A driven wheel (th = 6 t + 2 sin 3t: 3.6 turns in 4 s, up to 1.2 rad between frames
    at 7 fps) against a torsion spring (k 2, c 0.1, free angle 0.3): the motion's effort is
    J th'' + k (th - 0.3) + c th' at every frame, the spring's angle counted on from turn
    to turn across the sweep's blocks of frames (each block's forces one evaluation, every
    frame's angle on the turn of the frame before).  Rounding: 1e-12 of the largest."""
    m = mk.driven_wheel("6*t + 2*sin(3*t)", joint="pin", motion="drive", inertia=(0.01, 0.01, 0.02))
    m.add_torsion_spring("ts", "pin", stiffness=2.0, damping=0.1, free_angle=0.3)
    r = m.solve(4.0, fps=fps)
    t = r.times
    th, thd, thdd = 6 * t + 2 * np.sin(3 * t), 6 + 6 * np.cos(3 * t), -18 * np.sin(3 * t)
    want = 0.02 * thdd + 2.0 * (th - 0.3) + 0.1 * thd
    assert th[-1] > 2 * math.pi * 3.5
    np.testing.assert_allclose(np.abs(r.effort("drive")), np.abs(want), atol=1e-12 * np.abs(want).max())



@pytest.mark.parametrize("analysis", ["kinematic", "dynamic"])
@pytest.mark.parametrize("offset", [5.0, -5.0, 3.0 * 2 * math.pi + 1.0])
def test_a_torsion_spring_on_a_joint_driven_from_beyond_half_a_turn(offset: float,
                                                                    analysis: str) -> None:
    """A wheel built at angle 0 and driven ``offset + 2 t`` against a torsion spring (k 2,
    free angle 0.3): its angle starts at the motion's value, so the motion's effort is
    k (offset + 2 t - 0.3) from the first frame (1e-12 of the largest), in a sweep and in a
    dynamic run (and statics at t = 0 holds k (offset - 0.3)), and a study's variant is its
    separate run.  The spring took its first angle on the turn nearest 0 (5 - 2 pi for 5):
    12.6 N m off at 5 rad, without a word."""
    m = mk.driven_wheel(f"{offset!r} + 2*t", joint="pin", motion="drive",
                        inertia=(0.01, 0.01, 0.02))
    m.add_torsion_spring("ts", "pin", stiffness=2.0, free_angle=0.3)
    r = m.solve(1.0, fps=10, analysis=analysis)
    want = 2.0 * (offset + 2.0 * r.times - 0.3)
    np.testing.assert_allclose(np.abs(r.effort("drive")), np.abs(want),
                               rtol=0, atol=1e-12 * np.abs(want).max())
    res = m.study([{"ts.stiffness": 2.0}, {"ts.stiffness": 3.0}], duration=1.0, fps=10,
                  analysis=analysis)
    np.testing.assert_array_equal(res.result(0).effort("drive"), r.effort("drive"))
    held = m.statics().effort("drive")
    np.testing.assert_allclose(np.abs(held), abs(want[0]), rtol=1e-12)

# ---------------------------------------------------------------- 5. applied loads
@pytest.mark.parametrize("force, exact", [
    ((3.0, -2.0, 1.0), lambda t: np.outer(t * t / (2 * 2.0), [3.0, -2.0, 1.0])),   # F t^2 / 2m
    (("2*t", 0.0, 0.0), lambda t: np.outer(t ** 3 / (3 * 2.0), [1.0, 0.0, 0.0])),  # t^3 / 3m
])
def test_world_force_moves_com_in_closed_form(force, exact) -> None:
    """A world-frame force at a marker off the COM of a free body (m = 2, no gravity): the
    body also turns, but the COM follows F t^2 / 2m (constant F) or t^3 / 3m (F = 2 t).
    Polynomials of degree <= 3 are integrated exactly by DP5: 1e-10 m (measured 1e-15)."""
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_part("b", mass=2.0, inertia=I_BODY, center_of_mass=(0.1, 0, 0), position=(1, 2, 3))
    m.add_marker("M", "b", position=(0.3, 0.2, -0.1))
    m.add_force("push", "M", force=force)
    r = m.solve(2.0, fps=24)
    assert np.abs(r.center_of_mass("b") - [1.1, 2, 3] - exact(r.times)).max() <= 1e-10
    assert np.abs(r.angular_velocity("b")[-1]).max() > 0.1              # it does turn


def test_marker_frame_load_on_spinning_body() -> None:
    """Force and torque fixed in a marker's axes, off the COM of a tumbling body with a full
    inertia matrix, against Newton-Euler in body axes solved by DOP853 (I w' + w x I w = s x F
    + T, m r'' = A F, q' = q (0, w) / 2).  Solver tolerance 1e-9; bound 1e-7 (m, and on the
    rotation matrices; measured ~1e-9)."""
    Rb = Rotation.from_rotvec([0.2, 0.7, -0.3]).as_matrix()
    I = Rb @ np.diag(I_BODY) @ Rb.T
    mass, com, pos = 1.5, np.array([0.05, -0.02, 0.1]), np.array([0.3, -0.1, 0.2])
    rot0 = Rotation.from_rotvec([-0.6, 0.1, 0.4])
    qm = Rotation.from_rotvec([0.5, -0.2, 1.0])            # marker axes in the part frame
    F, T, w0 = np.array([1.0, 0.5, -0.3]), np.array([0.0, 0.1, 0.05]), np.array([0.5, 1.0, 3.0])
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_part("b", mass=mass, inertia=I, center_of_mass=com, orientation=wxyz(rot0),
               angular_velocity=w0)
    m.add_marker("M", "b", position=pos, orientation=wxyz(qm))
    m.add_force("thrust", "M", force=F, torque=T, frame="marker")
    r = m.solve(3.0, fps=10, tolerance=1e-9)

    Cm, s = qm.as_matrix(), pos - com
    Fb = Cm @ F
    tau = np.cross(s, Fb) + Cm @ T                         # body axes, about the COM

    def rhs(_t, y):
        q, wb = y[6:10], y[10:]
        A = Rotation.from_quat(q[[1, 2, 3, 0]]).as_matrix()
        qd = 0.5 * mk.quat_mul(q, np.concatenate([[0.0], wb]))
        wd = np.linalg.solve(I, tau - np.cross(wb, I @ wb))
        return np.concatenate([y[3:6], A @ Fb / mass, qd, wd])

    A0 = rot0.as_matrix()
    y0 = np.concatenate([A0 @ com, np.cross(w0, A0 @ com), wxyz(rot0), A0.T @ w0])
    ref = ref_solve(rhs, r.times, y0)
    assert np.abs(r.center_of_mass("b") - ref[:, :3]).max() <= 1e-7
    assert np.abs(matrices(r.orientation("b")) - matrices(ref[:, 6:10])).max() <= 1e-7


# ---------------------------------------------------------------- 6. motion in a dynamic run
def test_driven_crank_with_free_pendulum() -> None:
    """Crank (R = 0.2) driven at 2 pi t about world z, gravity -y, a pendulum (COM at l = 0.3
    from its pin, Izz = 0.02 about the COM) hanging on a revolute at the crank tip.

    Moment about the accelerating pivot P: I_P phi'' = M_P - m (r_GP x a_P)_z with
    I_P = Izz + m l^2, M_P = -m g l cos phi, a_P = -R w^2 (cos th, sin th), th = w t:
        I_P phi'' = -m g l cos phi + m l R w^2 sin(th - phi).
    Solver tolerance 1e-8.  Crank angle and rate to 1e-9 (the motion row is held by Newton
    to ~1e-12; measured 1e-14); pendulum angle to 1e-6 rad and rate to 1e-5 rad/s (measured
    3.6e-8 rad and 2.1e-7 rad/s); KE + PE - work_nc (the motion's work included) constant
    to 1e-8 of max KE (measured 2e-10)."""
    R, l, mass, Ic, w = 0.2, 0.3, 1.0, 0.02, 2 * math.pi
    m = Mechanism(gravity=(0, -G, 0))
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=0.5, inertia=(0.001, 0.004, 0.004), center_of_mass=(R / 2, 0, 0),
               angular_velocity=(0, 0, w))
    # hanging straight down (phi = -pi/2), its pin moving at w R along +y, not turning
    m.add_part("pend", mass=mass, inertia=(0.01, 0.015, Ic), center_of_mass=(l, 0, 0),
               position=(R, 0, 0), orientation=mk.quat_z(-math.pi / 2), velocity=(0, w * R, 0))
    m.add_marker("O", "ground")
    m.add_marker("C", "crank")
    m.add_marker("A", "crank", position=(R, 0, 0))
    m.add_marker("P", "pend")
    m.add_joint("pivot", "revolute", "C", "O")
    m.add_joint("tip", "revolute", "P", "A")
    m.add_motion("drive", "pivot", "2*pi*t")
    r = m.solve(3.0, fps=24, tolerance=1e-8)
    assert r.analysis == "dynamic"
    t = r.times
    crank = mk.planar_angle(r.orientation("crank"))
    assert np.abs(mk.wrap(crank - w * t)).max() <= 1e-9
    assert np.abs(r.angular_velocity("crank")[:, 2] - w).max() <= 1e-9

    def pend(tt, y):
        torque = -mass * G * l * math.cos(y[0]) + mass * l * R * w * w * math.sin(w * tt - y[0])
        return [y[1], torque / (Ic + mass * l * l)]

    ref = ref_solve(pend, t, [-math.pi / 2, 0.0])
    phi = np.unwrap(mk.planar_angle(r.orientation("pend")))
    assert np.abs(phi - ref[:, 0]).max() <= 1e-6
    assert np.abs(r.angular_velocity("pend")[:, 2] - ref[:, 1]).max() <= 1e-5
    ke, pe, wnc = r.energy()
    assert np.abs(wnc).max() > 0.1                            # the motion does work
    assert np.abs(ke + pe - wnc - (ke + pe)[0]).max() <= 1e-8 * ke.max()


# ---------------------------------------------------------------- 7. bad input
def base() -> Mechanism:
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_part("b", position=(1, 0, 0))
    m.add_marker("G", "ground")
    m.add_marker("B", "b")
    m.add_marker("B2", "b", position=(0.1, 0, 0))
    m.add_joint("ball", "spherical", "B", "G")
    return m


@pytest.mark.parametrize("call, match", [
    (lambda m: m.add_spring_damper("s", "B", "G", stiffness=-1.0),
     "stiffness must not be negative"),
    (lambda m: m.add_spring_damper("s", "B", "G", damping=-0.5), "damping must not be negative"),
    (lambda m: m.add_spring_damper("s", "B", "G", free_length=float("nan")), "free_length is NaN"),
    (lambda m: m.add_spring_damper("s", "B", "nowhere"), "unknown marker 'nowhere'"),
    (lambda m: m.add_spring_damper("s", "B", "B2"), "both markers are on part 'b'"),
    (lambda m: m.add_spring_damper("s", "B", "B"), "spring-damper 's': marker 'B' is both of "
                                                   "its ends; the other end must be a marker on another part"),
    (lambda m: m.add_torsion_spring("s", "ball", stiffness=1.0),
     "'ball' is spherical; it needs a revolute"),
    (lambda m: m.add_spring_damper("s", "B", "G", actuator="__import__('os')"),
     "actuator: .*name that is not allowed: '__import__'"),
    (lambda m: m.add_spring_damper("s", "B", "G", actuator="x*2"),
     "actuator: .*name that is not allowed: 'x'"),
    (lambda m: m.add_force("f", "B", force=(1.0, 2.0)), "force must have 3 components"),
    (lambda m: m.add_force("f", "B", force=(1.0, 2.0, 3.0), frame="body"),
     "frame must be 'world' or 'marker', got 'body'"),
])
def test_force_element_bad_input(call, match: str) -> None:
    m = base()
    with pytest.raises(MechanismError, match=match):
        call(m)
    assert not (m.springs or m.torsion_springs or m.loads)       # nothing half-added


def test_spring_with_coincident_markers_fails_when_solving() -> None:
    """Accepted when added (parts move), rejected at compile time with a clear message."""
    m = base()
    m.add_marker("G1", "ground", position=(1, 0, 0))
    m.add_spring_damper("s", "B", "G1", stiffness=1.0, free_length=0.5)
    with pytest.raises(MechanismError, match="markers 'B' and 'G1' coincide"):
        m.solve(1.0)
