"""Contact between parts (add_contact, kernels/contacts.py; the shapes themselves in
test_contact_shapes.py): Hertz's sphere impact (Johnson 1985), the time constant's
contact duration, the restitution of Flores et al. 2011's damping against an independent
integration, the touchdown located whatever the frames, a block sliding to a stop, energy
and momentum balances, a ball at rest in dynamics and statics, a sweep's interference,
check's overlaps, bad contacts named and the right-hand side's fixed cost."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from solver import Mechanism, MechanismError, Shape, SolverError, quat_to_matrix
from solver.kernels.constraints import body_arrays
from solver.kernels.contacts import contact_forces, contact_jacobians, geometry
from solver.model.compile import compile_model
from solver.model.state import read_state
from test_contact_shapes import cube_mesh

G = 9.81


# -- the force law

def ball_on_floor(R: float, mass: float, height: float, speed: float = 0.0,
                  gravity: float = 0.0, **law) -> Mechanism:
    """A ball of radius R whose lowest point is ``height`` above a floor (a half-space on
    the ground), moving down at ``speed``."""
    m = Mechanism(gravity=(0.0, 0.0, -gravity))
    m.add_part("ground", fixed=True)
    inertia = 0.4 * mass * R * R
    m.add_part("ball", mass=mass, inertia=(inertia,) * 3, position=(0.0, 0.0, R + height),
               velocity=(0.0, 0.0, -speed))
    m.add_contact("hit", "ball", "ground", Shape.sphere(R), Shape.half_space(), **law)
    return m


def test_hertz_sphere_impact_matches_johnson() -> None:
    """A steel ball (R 10 mm, 7850 kg/m^3) at 1 m/s onto a massive steel half-space (E 210
    GPa, nu 0.3), elastic (e = 1): Johnson 1985 (sec. 11.4): delta_max = (15 m v^2 /
    (16 E* sqrt(R)))^(2/5) = 23.5 um, contact time 2.9432 delta_max / v = 69.2 us, and it
    leaves at the speed it came.  Frames every 0.4 us: the peak from a parabola through
    the deepest five (its error ~ (0.8 us / 69 us)^4 of the peak), the touchdown and
    lift-off from the first and last penetrating frames less their depth over the speed
    there (the depth is v t to (t / 69 us)^1.5 there: 1e-10 s)."""
    R, v = 0.01, 1.0
    mass = 4.0 / 3.0 * math.pi * R ** 3 * 7850.0
    m = ball_on_floor(R, mass, 1e-6, v, restitution=1.0, young=210e9, poisson=0.3)
    times = np.linspace(0.0, 8e-5, 201)
    r = m.solve(times=times)
    e_star = 210e9 / (2.0 * (1.0 - 0.09))
    peak = (15.0 * mass * v * v / (16.0 * e_star * math.sqrt(R))) ** 0.4
    depth = r.contact("hit")["penetration"]
    k = int(np.argmax(depth))
    c2, c1, c0 = np.polyfit(times[k - 2:k + 3] - times[k], depth[k - 2:k + 3], 2)
    assert c0 - c1 * c1 / (4 * c2) == pytest.approx(peak, rel=1e-4)
    assert peak == pytest.approx(23.5e-6, rel=2e-3)
    on = np.flatnonzero(depth > 0.0)
    speed = np.abs(r.velocity("ball")[:, 2])
    duration = (times[on[-1]] + depth[on[-1]] / speed[on[-1]]) - (times[on[0]] - depth[on[0]] / speed[on[0]])
    assert duration == pytest.approx(2.9432 * peak / v, rel=1e-4)
    assert duration == pytest.approx(69.2e-6, rel=2e-3)
    assert r.velocity("ball")[-1, 2] == pytest.approx(v, rel=1e-6)


def test_time_constant_is_the_contact_duration() -> None:
    """The default stiffness from a time constant: a ball (0.2 kg) hitting a floor at
    1 m/s, elastic, stays in contact for tau = 0.01 s, the half period pi sqrt(m / K) of
    its linear spring K = m (pi / tau)^2 (touchdown and lift-off read as in the Hertz
    test: 1e-4), and sinks v tau / pi at most."""
    tau, mass, v = 0.01, 0.2, 1.0
    m = ball_on_floor(0.02, mass, 1e-5, v, restitution=1.0)
    times = np.linspace(0.0, 0.012, 121)
    r = m.solve(times=times)
    depth = r.contact("hit")["penetration"]
    speed = np.abs(r.velocity("ball")[:, 2])
    on = np.flatnonzero(depth > 0.0)
    duration = (times[on[-1]] + depth[on[-1]] / speed[on[-1]]) - (times[on[0]] - depth[on[0]] / speed[on[0]])
    assert duration == pytest.approx(tau, rel=1e-4)
    assert depth.max() <= v * tau / math.pi * (1 + 1e-9)
    assert depth.max() == pytest.approx(v * tau / math.pi, rel=1e-2)


def flores_rebound(e: float, K: float, n: float, mass: float, v0: float,
                   gravity: float = 0.0) -> float:
    """The rebound speed over v0 of m delta'' = m g - K delta^n (1 + 8(1-e)/(5e)
    delta'/v0), the force never pulling, from delta = 0 at delta' = v0, integrated by
    scipy's solve_ivp (Radau, rtol 1e-10)."""
    D = 8.0 * (1.0 - e) / (5.0 * e)

    def f(_, y):
        d, dd = y
        force = max(K * max(d, 0.0) ** n * (1.0 + D * dd / v0), 0.0)
        return [dd, gravity - force / mass]

    def leaves(_, y):
        return y[0]
    leaves.terminal, leaves.direction = True, -1
    sol = solve_ivp(f, (0.0, 1.0), [1e-12, v0], method="Radau", rtol=1e-10, atol=1e-16,
                    events=leaves)
    return -sol.y_events[0][0][1] / v0


@pytest.mark.parametrize("e", [0.2, 0.3, 0.5, 0.7, 0.9])
def test_restitution_of_the_damping_law(e: float) -> None:
    """A ball hits a floor at 1 m/s: its rebound speed over 1 m/s equals the independent
    integration of the same law (1e-5: the run's tolerance), and the restitution given
    within 0.05 (Flores et al. 2011's damping comes from an energy balance that assumes
    small losses; the measured gap grows from 0.006 at e = 0.9 to 0.044 at e = 0.2)."""
    K, n, mass = 1e8, 1.5, 0.1
    m = ball_on_floor(0.01, mass, 1e-4, 1.0, restitution=e, stiffness=K, exponent=n)
    r = m.solve(times=np.linspace(0.0, 2e-3, 3))
    out = r.velocity("ball")[-1, 2]
    assert out == pytest.approx(flores_rebound(e, K, n, mass, 1.0), abs=1e-5)
    assert out == pytest.approx(e, abs=0.05)


def test_implicit_method_takes_contact() -> None:
    """Radau IIA, its Newton on the contact forces' finite-difference Jacobian, gives the
    rebound of the damping law (e = 0.5) as the independent integration does (1e-5)."""
    K, n, mass = 1e8, 1.5, 0.1
    m = ball_on_floor(0.01, mass, 1e-4, 1.0, restitution=0.5, stiffness=K, exponent=n)
    r = m.solve(times=np.linspace(0.0, 2e-3, 3), method="implicit")
    assert r.method.startswith("implicit")
    assert r.velocity("ball")[-1, 2] == pytest.approx(flores_rebound(0.5, K, n, mass, 1.0), abs=1e-5)


def test_touchdown_is_located_whatever_the_frames() -> None:
    """A ball dropped from 5 cm onto a floor (e = 0.5) at 24 frames a second, frames far
    longer than the contact: its speed leaving the floor (from a frame in flight: v^2 +
    2 g (z - R)) is the independent integration's with gravity for the speed it lands
    at, sqrt(2 g h), to 1e-5 of it (the run's tolerance): the touchdown instant and
    speed are located inside the step that crosses them."""
    K, n, mass, h, R = 1e8, 1.5, 0.1, 0.05, 0.01
    m = ball_on_floor(R, mass, h, 0.0, gravity=G, restitution=0.5, stiffness=K, exponent=n)
    r = m.solve(duration=0.14, fps=24)
    land = math.sqrt(2 * G * h)
    vz, z = r.velocity("ball")[-1, 2], r.position("ball")[-1, 2]
    assert z > R
    leaving = math.sqrt(vz * vz + 2 * G * (z - R))
    assert leaving / land == pytest.approx(flores_rebound(0.5, K, n, mass, land, G), abs=1e-5)


def block(shape: Shape, speed: float, mu: float, tau: float = 0.01) -> Mechanism:
    """A 1 kg cube of 0.1 m on a floor, resting at the equilibrium penetration of its
    lower points (their shares of K = m (pi / tau)^2: a box's four lower corners an eighth
    each; a mesh's lower vertices and centroids their areas'), moving along x."""
    a, mass = 0.1, 1.0
    K = mass * (math.pi / tau) ** 2
    points, shares, _ = shape.samples()
    sink = mass * G / (K * shares[np.isclose(points[:, 2], -a / 2)].sum())
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=mass, inertia=(mass * a * a / 6,) * 3,
               position=(0.0, 0.0, a / 2 - sink), velocity=(speed, 0.0, 0.0))
    m.add_contact("slide", "block", "ground", shape, Shape.half_space(), friction=mu,
                  time_constant=tau)
    return m


@pytest.mark.parametrize("shape", ["box", "mesh"])
def test_block_slides_to_a_stop(shape: str) -> None:
    """A cube sliding at 1 m/s with mu = 0.3 stops after v^2 / (2 mu g) = 0.1699 m
    (within 0.5%: the regularized friction's creep below its slip speed of 1 cm/s moves it
    by about v_s^2 / (2 mu g) = 2e-5 m more), and kinetic + potential - work stays
    constant (1e-6 of the kinetic energy: the run's tolerance) with the contact's elastic
    energy and its friction and damping work booked."""
    mu = 0.3
    cube = Shape.box((0.1, 0.1, 0.1)) if shape == "box" else Shape.mesh(*cube_mesh(0.05), cells=8)
    r = block(cube, 1.0, mu).solve(duration=0.4, fps=50)
    x = r.position("block")[:, 0]
    assert x[-1] == pytest.approx(1.0 / (2 * mu * G), rel=5e-3)
    ke, pe, work = r.energy()
    assert np.ptp(ke + pe - work) < 1e-6 * ke[0]
    force = r.contact("slide")["force"]
    assert force[0] == pytest.approx([-mu * G, 0.0, G], rel=1e-3)     # on the block, 1 kg


def test_energy_balances_on_a_mesh() -> None:
    """A ball dropped 5 cm onto the edge of a fixed mesh cube (its distance a grid of 8
    cells), with friction, bounces off it twice: kinetic + potential - work stays constant
    to 1e-6 of m g h at a tolerance of 1e-7 (each stiff impact leaves a few times the
    tolerance: 1.4e-6 at 1e-6, 6e-8 at 1e-8), the contact's elastic energy changing at the rate
    of the interpolated distance itself (the force's direction, the interpolated gradient,
    is smooth across cells and only near it)."""
    mass, R, h = 0.1, 0.02, 0.05
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("table", fixed=True, position=(0.0, 0.0, -0.05))
    m.add_part("ball", mass=mass, inertia=(0.4 * mass * R * R,) * 3,
               position=(0.045, 0.01, R + h), angular_velocity=(0.0, 0.0, 5.0))
    m.add_contact("edge", "ball", "table", Shape.sphere(R), Shape.mesh(*cube_mesh(0.05), cells=8),
                  restitution=0.7, friction=0.3, stiffness=1e6, exponent=1.5)
    r = m.solve(duration=0.3, fps=50, tolerance=1e-7)
    assert r.velocity("ball")[:, 2].max() > 0.1                      # it bounced
    ke, pe, work = r.energy()
    assert np.ptp(ke + pe - work) < 1e-6 * mass * G * h


def crossed_edges(kind: str, spacing: float | None) -> Mechanism:
    """A cube (0.1 m; a mesh or a box) 2 mm above a fixed one, each turned 45 degrees so
    that its lower edge (along y) crosses the fixed one's upper edge (along x) at their
    middles."""
    half, q = 0.05, math.cos(math.pi / 8)
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("base", fixed=True, orientation=(q, math.sin(math.pi / 8), 0.0, 0.0))
    m.add_part("cube", mass=1.0, inertia=(1 / 600,) * 3,
               position=(0.0, 0.0, 2 * half * math.sqrt(2) + 0.002),
               orientation=(q, 0.0, math.sin(math.pi / 8), 0.0))
    cube = (Shape.mesh(*cube_mesh(half), cells=8, spacing=spacing) if kind == "mesh"
            else Shape.box((2 * half,) * 3, spacing=spacing))
    m.add_contact("edges", "cube", "base", cube, cube, restitution=0.5, stiffness=1e7,
                  exponent=1.0)
    return m


@pytest.mark.parametrize("kind", ["mesh", "box"])
def test_spacing_feels_an_edge_between_vertices(kind: str) -> None:
    """Two cubes' edges crossing at their middles: with a spacing of 0.071 m (each face's
    triangles halved, so the edges' middles are contact points) the upper cube's points
    never sink more than 2.5 mm into the lower one (measured 1 mm; the meshes' grids of 8
    cells, 1.25 cm, round the edges by about a tenth of a cell); it stays on the mesh's
    rounded edge and slides off the box's sharp one, whose normal at the edge is a face's.
    With only their vertices (and a mesh's face centroids) it falls through: 2 cm and more
    in 0.1 s."""
    meet = 2 * 0.05 * math.sqrt(2)                     # the upper cube's height on the edge
    fine = crossed_edges(kind, 0.071).solve(duration=0.1, fps=50)
    assert fine.interference("edges")["gap"].min() > -2.5e-3
    if kind == "mesh":
        assert fine.position("cube")[:, 2].min() > meet - 2.5e-3
    coarse = crossed_edges(kind, None).solve(duration=0.1, fps=50).position("cube")[:, 2]
    assert coarse.min() < meet - 0.02


def test_a_ball_rolls_in_a_bowl_at_the_rolling_period() -> None:
    """A solid ball (r = 10 mm) let go 0.05 rad up the inside of a spherical bowl
    (R = 0.1 m, an inverted sphere) with friction rolls without slip: its small
    oscillation's period is 2 pi sqrt(7 (R - r) / (5 g)) (0.7121 s; sliding it would be
    2 pi sqrt((R - r) / g), 0.6018 s).  Tolerance 1e-3 of the period: the finite
    amplitude lengthens it by theta^2 / 16 (1.6e-4), the contact's compliance m g / K
    (1e-5 m) moves the ball's path out by 1.1e-4 of R - r (5.5e-5 of the period), and the
    regularized friction's creep (a slip of 1.4e-4 m/s at most against 0.04 m/s rolling)
    acts as a light drag; the period is measured between the centre's downward crossings
    of the bottom, interpolated between frames of 2 ms (below 1e-6 s of error for the
    sine's near-straight crossing)."""
    R, r, mass, theta = 0.1, 0.01, 0.1, 0.05
    L = R - r
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    inertia = 0.4 * mass * r * r
    m.add_part("ball", mass=mass, inertia=(inertia,) * 3,
               position=(L * math.sin(theta), 0.0, -L * math.cos(theta)))
    m.add_contact("bowl", "ball", "ground", Shape.sphere(r), Shape.sphere(R, inverted=True),
                  stiffness=1e5, exponent=1.0, restitution=0.5, friction=0.5)
    res = m.solve(duration=0.95, fps=500, tolerance=1e-5, method="implicit")
    x, t = res.position("ball")[:, 0], res.times
    down = np.flatnonzero((x[:-1] > 0.0) & (x[1:] <= 0.0))
    crossing = t[down] - x[down] * (t[down + 1] - t[down]) / (x[down + 1] - x[down])
    assert len(crossing) == 2
    period = crossing[1] - crossing[0]
    assert period == pytest.approx(2 * math.pi * math.sqrt(7 * L / (5 * G)), rel=1e-3)
    # it stays on the bowl's surface: the ball's centre at R - r from the bowl's centre
    dist = np.linalg.norm(res.position("ball"), axis=1)
    assert np.all(np.abs(dist - L) < 2e-5)


def test_contact_forces_are_equal_and_opposite() -> None:
    """Two free boxes, one spinning into the other off its centre line, with friction and
    no gravity: their contact forces are equal and opposite with moments that cancel about
    any point, so the total momentum and angular momentum stay as they were (1e-6 of their
    sizes: the run's tolerance) through the collision."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("a", mass=2.0, inertia=(0.01, 0.02, 0.015), position=(0.0, 0.03, 0.0),
               velocity=(1.0, 0.0, 0.0), angular_velocity=(0.0, 0.5, 3.0))
    m.add_part("b", mass=1.0, inertia=(0.008, 0.006, 0.01), position=(0.2005, 0.0, 0.01),
               orientation=(math.cos(0.2), 0.0, 0.0, math.sin(0.2)))
    m.add_contact("knock", "a", "b", Shape.box((0.1, 0.1, 0.1)), Shape.box((0.12, 0.08, 0.1)),
                  restitution=0.6, friction=0.4, time_constant=0.005)
    r = m.solve(duration=0.2, fps=100)
    assert r.contact("knock")["penetration"].max() > 0.0
    P = 2.0 * r.velocity("a") + 1.0 * r.velocity("b")
    L = 0.0
    for p, mass, inertia in (("a", 2.0, (0.01, 0.02, 0.015)), ("b", 1.0, (0.008, 0.006, 0.01))):
        A = quat_to_matrix(r.orientation(p))
        spin = np.einsum("nij,j,nkj,nk->ni", A, inertia, A, r.angular_velocity(p))
        L = L + mass * np.cross(r.center_of_mass(p), r.velocity(p)) + spin
    assert np.abs(P - P[0]).max() < 1e-6 * np.abs(P[0]).max()
    assert np.abs(L - L[0]).max() < 1e-6 * np.abs(L[0]).max()
    model = compile_model(m)
    st = read_state(model, m)
    rg, A, vg, wg = body_arrays(model, st.r, st.p, st.v, st.w)
    rg[0, 0] = rg[1, 0] - 0.09                       # a pressed into b
    ce = contact_forces(model.forces.contacts, rg, A, vg, wg)
    Q = ce.Q[:2]
    assert np.abs(Q[:, :3].sum(axis=0)).max() < 1e-9 * np.abs(Q[:, :3]).max()
    moment = Q[:, 3:] + np.cross(rg[:2], Q[:, :3])
    assert np.abs(moment.sum(axis=0)).max() < 1e-9 * np.abs(moment).max()


def test_sphere_settles_at_its_equilibrium_penetration() -> None:
    """A ball dropped 1 mm onto a floor (e = 0.3) comes to rest on it at the penetration
    where K delta^n = m g (1e-6 of it)."""
    K, n, mass = 1e7, 1.5, 0.5
    m = ball_on_floor(0.02, mass, 1e-3, 0.0, gravity=G, restitution=0.3, stiffness=K, exponent=n)
    r = m.solve(duration=1.0, fps=24)
    assert r.contact("hit")["penetration"][-1] == pytest.approx((mass * G / K) ** (1 / n), rel=1e-6)
    assert r.contact("hit")["force"][-1] == pytest.approx([0.0, 0.0, mass * G], rel=1e-6)


def test_statics_rests_a_ball_on_its_contact() -> None:
    """A ball on a vertical slide, started just touching a floor: statics rests it where
    K delta^n = m g (1e-9: Newton's precision), the contact carrying its weight."""
    K, n, mass = 1e7, 1.5, 0.5
    m = ball_on_floor(0.02, mass, -1e-5, 0.0, gravity=G, stiffness=K, exponent=n)
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "ball")
    m.add_joint("drop", "prismatic", "shoe", "rail")
    rest = m.statics()
    hit = rest.contact("hit")
    assert hit["penetration"][0] == pytest.approx((mass * G / K) ** (1 / n), rel=1e-9)
    assert hit["force"][0] == pytest.approx([0.0, 0.0, mass * G], rel=1e-9)
    assert rest.stable


@pytest.mark.parametrize("exponent", [1.0, 1.5])
@pytest.mark.parametrize("on_a_slide", [False, True])
def test_statics_rests_a_ball_built_touching_the_floor(exponent: float, on_a_slide: bool) -> None:
    """A ball built exactly touching a floor (gap 0, no overlap: where a user puts it) is
    at rest in statics where K delta^n = m g (1e-9: Newton's precision), free or on a
    vertical slide: at zero overlap the contact resists a move into the floor only (its
    stiffness one-sided; K delta^0.5 is even 0 there for n = 1.5)."""
    K, mass = 1e5, 0.1
    m = ball_on_floor(0.01, mass, 0.0, 0.0, gravity=G, stiffness=K, exponent=exponent)
    if on_a_slide:
        m.add_marker("rail", "ground")
        m.add_marker("shoe", "ball")
        m.add_joint("drop", "prismatic", "shoe", "rail")
    rest = m.statics()
    depth = (mass * G / K) ** (1 / exponent)
    assert rest.contact("hit")["penetration"][0] == pytest.approx(depth, rel=1e-9)
    assert rest.position("ball")[0] == pytest.approx([0.0, 0.0, 0.01 - depth], rel=1e-9, abs=1e-15)
    assert rest.contact("hit")["force"][0] == pytest.approx([0.0, 0.0, mass * G], rel=1e-9)
    assert rest.stable


def test_statics_says_a_contact_s_friction_holds_nothing_at_rest() -> None:
    """A box on a 10 deg slope held only by its contact's friction (mu 0.5 > tan 10 deg):
    statics has no equilibrium (contact friction acts on the slip speed, zero at rest)
    and says so, naming the contact, beside the part free to move."""
    a = math.radians(10.0)
    m = Mechanism(gravity=(G * math.sin(a), 0.0, -G * math.cos(a)))
    m.add_part("ground", fixed=True)
    m.add_part("box", mass=0.1, inertia=(4e-5,) * 3, position=(0.0, 0.0, 0.0499))
    m.add_contact("seat", "box", "ground", Shape.box((0.1, 0.1, 0.1)), Shape.half_space(),
                  stiffness=1e5, exponent=1.0, friction=0.5)
    with pytest.raises(SolverError, match=r"parts 'box' are free to move.*the friction of "
                                          r"contact 'seat' holds nothing in statics"):
        m.statics()


def test_sweep_reports_interference_and_carries_the_contact() -> None:
    """A box driven down into a floor at 0.3 m/s by a motion (a kinematic sweep): its least
    gap is 0.15 - 0.3 t at every frame (negative: the depth driven in; 1e-12 m), at a lower
    corner, and the motion's effort carries the contact's push (m g - F_z, 1e-9 N)."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("pusher", mass=1.0, position=(0.0, 0.0, 0.2))
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "pusher")
    m.add_joint("slide", "prismatic", "shoe", "rail")
    m.add_motion("push", "slide", "0.2 - 0.3*t")
    m.add_contact("press", "pusher", "ground", Shape.box((0.1, 0.1, 0.1)), Shape.half_space(),
                  stiffness=1e5, exponent=1.0)
    r = m.solve(duration=1.0, fps=10)
    assert r.analysis == "kinematic"
    near = r.interference("press")
    assert np.abs(near["gap"] - (0.15 - 0.3 * r.times)).max() < 1e-12
    assert np.allclose(np.abs(near["point"][:, :2]), 0.05)
    push = r.contact("press")["force"][:, 2]
    assert push[-1] > 0.0 and not push[:5].any()
    assert np.abs(r.effort("push") - (G - push)).max() < 1e-9


def test_contact_jacobian_gives_the_law_derivatives() -> None:
    """The finite-difference Jacobian of a ball pressed into a floor: dF_z/dz = -n K
    delta^(n-1) (1 + D rate / v0) and dF_z/dv_z = -K delta^n D / v0 (1e-5)."""
    K, n, e, mass, depth, v = 1e6, 1.5, 0.5, 1.0, 1e-3, 0.3
    m = ball_on_floor(0.05, mass, -depth, v, restitution=e, stiffness=K, exponent=n)
    model = compile_model(m)
    st = read_state(model, m)
    rg, A, vg, wg = body_arrays(model, st.r, st.p, st.v, st.w)
    onset = np.array([1.0])
    Kq, Cv = contact_jacobians(model.forces.contacts, 1, rg, A, vg, wg, onset, 1e-9)
    D = 8 * (1 - e) / (5 * e)
    assert Kq[2, 2] == pytest.approx(-n * K * depth ** (n - 1) * (1 + D * v / 1.0), rel=1e-5)
    assert Cv[2, 2] == pytest.approx(-K * depth ** n * D / 1.0, rel=1e-5)


# -- what check says, bad input, cost

def test_check_names_overlapping_contacts() -> None:
    """check() notes a pair overlapping at the design pose, by name and depth (2 mm)."""
    m = ball_on_floor(0.01, 0.1, -0.002)
    notes = [n for n in m.check().notes if "overlap" in n]
    assert len(notes) == 1 and "contact 'hit'" in notes[0] and "0.002 m" in notes[0]
    assert not [n for n in ball_on_floor(0.01, 0.1, 0.001).check().notes if "overlap" in n]


def test_parts_designed_touching_in_float32_are_not_said_to_overlap() -> None:
    """A box resting on a slab, designed touching, its numbers rounded as Blender's float32
    stores them (input_precision 2^-24): an overlap of a few unit round-offs of the parts'
    distance from the origin (5e-9 m here, as Blender gave one) is the input's rounding,
    not an overlap, and check() and a run say nothing of it; 1e-5 m is said.  Exact input
    still has 5e-9 m said (a millionth of the round-off's allowance)."""
    def box_on_slab(depth: float, precision: float) -> Mechanism:
        m = Mechanism(gravity=(0.0, 0.0, -G), input_precision=precision)
        m.add_part("ground", fixed=True)
        m.add_part("slab", mass=4.0, inertia=(0.1, 0.1, 0.1), position=(0.3, 0.2, -0.025))
        m.add_part("box", mass=1.0, inertia=(1e-3,) * 3, position=(0.3, 0.2, 0.05 - depth))
        m.add_marker("slab O", "slab")
        m.add_marker("ground O", "ground", position=(0.3, 0.2, -0.025))
        m.add_joint("held", "fixed", "slab O", "ground O")
        m.add_contact("rest", "box", "slab", Shape.box((0.1, 0.1, 0.1)),
                      Shape.box((1.0, 0.4, 0.05)))
        return m

    said = lambda notes: [n for n in notes if "overlap" in n]       # noqa: E731
    assert not said(box_on_slab(5e-9, 2.0 ** -24).check().notes)
    run = box_on_slab(5e-9, 2.0 ** -24).solve(duration=0.02, fps=100, analysis="dynamic")
    assert not said(run.notes)
    assert said(box_on_slab(1e-5, 2.0 ** -24).check().notes)
    assert said(box_on_slab(5e-9, 0.0).check().notes)


def test_a_run_says_when_its_parts_start_overlapping() -> None:
    """A run (not only check()) says a pair starts overlapping, by name and depth: the
    contact force throws the parts apart at once, which must not pass without a word."""
    deep = ball_on_floor(0.01, 0.1, -0.002).solve(duration=0.05, fps=100, analysis="dynamic")
    notes = [n for n in deep.notes if "overlap" in n]
    assert len(notes) == 1 and "contact 'hit'" in notes[0] and "0.002 m" in notes[0]
    apart = ball_on_floor(0.01, 0.1, 0.001).solve(duration=0.05, fps=100, analysis="dynamic")
    assert not [n for n in apart.notes if "overlap" in n]


@pytest.mark.parametrize("parts, shapes, law, message", [
    (("ball", "ball"), None, {}, "part 'ball' is both sides"),
    (("ground", "wall"), None, {}, "parts 'ground' and 'wall' are both fixed"),
    (("ball", "plate"), None, {}, "part_b 'plate' is not a part"),
    (("ball", "ground"), None, {"restitution": float("nan")}, "restitution is NaN or infinite"),
    (("ball", "ground"), None, {"restitution": 0.0}, r"restitution must be in \(0, 1\]"),
    (("ball", "ground"), None, {"stiffness": -1.0}, "stiffness must be positive"),
    (("ball", "ground"), None, {"friction": -0.1}, "friction coefficients must be non-negative"),
    (("ball", "ground"), None, {"slip_speed": 0.0}, "slip_speed must be positive"),
    (("ball", "ground"), None, {"time_constant": float("inf")}, "time_constant is NaN or infinite"),
    (("ball", "ground"), None, {"stiffness": 1e6, "young": 2e11}, "give one of stiffness"),
    (("ball", "ground"), ("box", "box"), {"young": 2e11}, "needs a sphere or a capsule"),
    (("ball", "ground"), ("plane", "plane"), {}, "two half-spaces"),
    (("ball", "ground"), ("text", "box"), {}, "shape_a must be a Shape"),
])
def test_bad_contacts_are_named(parts, shapes, law, message) -> None:
    """Every refused contact names itself and what is wrong."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("wall", fixed=True)
    m.add_part("ball", mass=1.0)
    made = {"box": Shape.box((0.1, 0.1, 0.1)), "plane": Shape.half_space(), "text": "sphere"}
    a, b = (Shape.sphere(0.1), Shape.half_space()) if shapes is None else (made[s] for s in shapes)
    with pytest.raises(MechanismError, match=f"contact 'c'.*{message}"):
        m.add_contact("c", *parts, a, b, **law)
    assert "c" not in m.contacts


def contact_copies(copies: int) -> Mechanism:
    """``copies`` copies, in one place, of contacts of every kind of distance: a ball on a
    floor, a box on a cylinder, a capsule on a box, a mesh cube on a ball and on another
    mesh cube, each touching; a square plate (a profile) on the upper mesh cube, and the
    ball in a cup (an inverted sphere) on the plate."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    V, F = cube_mesh(0.05)
    cube = Shape.mesh(V, F, cells=8)
    plate = Shape.profile([[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]], 0.1,
                          spacing=0.05)
    for c in range(copies):
        for k, name in enumerate(("ball", "box", "capsule", "mesh", "mesh2", "plate")):
            m.add_part(f"{name}{c}", mass=1.0, inertia=(1e-3, 1e-3, 1e-3),
                       position=(0.0, 0.0, 0.049 + 0.098 * k), velocity=(0.1, 0.0, -0.2),
                       angular_velocity=(0.0, 1.0, 0.5))
        m.add_contact(f"floor{c}", f"ball{c}", "ground", Shape.sphere(0.05), Shape.half_space(),
                      friction=0.3)
        m.add_contact(f"stack{c}", f"box{c}", f"ball{c}", Shape.box((0.1, 0.1, 0.1)),
                      Shape.cylinder(0.05, 0.1), friction=0.2)
        m.add_contact(f"pill{c}", f"capsule{c}", f"box{c}", Shape.capsule(0.02, 0.06),
                      Shape.box((0.1, 0.1, 0.1)))
        m.add_contact(f"grid{c}", f"mesh{c}", f"capsule{c}", cube, Shape.sphere(0.05))
        m.add_contact(f"meshes{c}", f"mesh2{c}", f"mesh{c}", cube, cube, restitution=0.9)
        m.add_contact(f"slab{c}", f"plate{c}", f"mesh2{c}", plate, cube)
        m.add_contact(f"cup{c}", f"ball{c}", f"plate{c}", Shape.sphere(0.05),
                      Shape.sphere(0.55, inverted=True))
    return m


def test_far_pairs_are_culled_by_their_bounding_spheres() -> None:
    """Contacts whose bounding spheres are apart skip their distances: their points' gaps
    are the spheres' gap, positive and below the exact gaps, and the touching pairs'
    gaps and normals are the exact ones (the same numbers)."""
    m = contact_copies(1)
    m.add_part("far", mass=1.0, position=(3.0, 0.0, 1.0))
    m.add_contact("away", "far", "mesh0", Shape.mesh(*cube_mesh(0.05), cells=8),
                  Shape.box((0.1, 0.1, 0.1)))
    model = compile_model(m)
    st = read_state(model, m)
    rg, A = body_arrays(model, st.r, st.p)[:2]
    cp = model.forces.contacts
    culled, exact = geometry(cp, rg, A), geometry(cp, rg, A, cull=False)
    away = cp.contact == cp.names.index("away")
    assert np.all(culled.gap[away] > 0.0) and np.all(culled.gap[away] <= exact.gap[away])
    assert np.array_equal(culled.gap[~away], exact.gap[~away])
    assert np.array_equal(culled.n[~away], exact.n[~away])


def test_contact_lines_do_not_grow_with_the_contacts() -> None:
    """A right-hand side runs the same lines in the solver for 2 and 3 copies of five
    contacts of every kind of distance (tests/test_fixed_calls.py's count)."""
    from test_fixed_calls import rhs_lines
    counts = [rhs_lines(contact_copies(copies)) for copies in (2, 3)]
    assert sum(counts[0].values()) > 100
    assert counts[0] == counts[1], [sum(c.values()) for c in counts]


def test_a_touchdown_returns_the_run_state_with_its_approach_speed() -> None:
    """A ball (R 0.05 m) 1 um into a floor, moving down at 2 m/s: its contact point takes
    its approach speed 2 m/s (to rounding, 1e-12) as a new run state, the run state the
    equations were told keeping none (NaN); the same ball 1 mm above the floor forgets it
    (NaN again) and touches nothing."""
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.dynamics.touchdown import touch
    from solver.analyses.structure import structure
    m = ball_on_floor(0.05, 1.0, -1e-6, 2.0, restitution=0.5)
    model = compile_model(m)
    st = read_state(model, m)
    eq = Equations(model, structure(model, st.r, st.p))
    told = eq.run
    touched, run = touch(eq, st.r, st.p, st.v, st.w)
    assert touched and np.all(np.isnan(told.onset))
    assert np.abs(run.onset - 2.0).max() <= 1e-12
    eq.tell(run)
    lifted = st.r + np.array([0.0, 0.0, 1e-3 + 1e-6])
    touched, apart = touch(eq, lifted, st.p, st.v, st.w)
    assert not touched and np.all(np.isnan(apart.onset))


def test_a_balls_lift_off_ends_a_step(monkeypatch) -> None:
    """A ball (R 5 cm, 1 kg) dropped from 30 cm onto a floor, e = 0.8, contact time
    0.01 s, bouncing for 2 s: each lift-off, where K delta^n stops being smooth, is
    located as its touchdown is, so no step straddles it.  Its positions are those of a
    run at tolerance 1e-10 to 1e-7 m (1.1e-8 measured; 9.8e-7 when lift-offs were
    stepped across) and fewer than 120 of its trial steps are rejected (84 measured; 212
    when each lift-off cost three to six)."""
    import solver.integrators.explicit as explicit
    errors, real = [], explicit.DOP853.step

    def step(self, *args):
        out = real(self, *args)
        errors.append(float(out[1]))
        return out
    monkeypatch.setattr(explicit.DOP853, "step", step)

    def ball() -> Mechanism:
        return ball_on_floor(0.05, 1.0, 0.3, gravity=G, restitution=0.8, time_constant=0.01)
    r = ball().solve(duration=2.0, fps=24)
    rejected = sum(e > 1.0 for e in errors)
    monkeypatch.undo()
    ref = ball().solve(duration=2.0, fps=24, tolerance=1e-10)
    assert np.abs(r.position("ball") - ref.position("ball")).max() < 1e-7
    assert rejected < 120
    z = r.position("ball")[:, 2]
    assert z.max() <= z[0] and r.contact("hit")["penetration"].max() > 0     # it bounced
