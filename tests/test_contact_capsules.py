"""Capsules in contact (add_contact, Shape.capsule): a ball on a capsule's middle, whichever
side of the contact each is; a rod lying across a bar of every kind, felt where its axis
crosses the bar with one end sphere's K (the axis point nearest the bar, segment_search),
or with ``spacing`` with its centres' shares; a rod rolling on a bar; a rod lying on a
floor or a box, level or tilted, meeting 2 K or K."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError, Shape

G = 9.81


@pytest.mark.parametrize("rod_first", [False, True])
def test_a_ball_rests_on_the_middle_of_a_capsule_either_way_round(rod_first: bool) -> None:
    """A ball dropped onto the middle of a fixed horizontal rod (a capsule 0.5 m long)
    rests on it where K delta = m g, whichever side of the contact the rod is: the ball's
    centre against the capsule's exact distance.  The capsule's end centres against the
    ball's distance never meet a ball on its middle: with the rod given first the ball
    fell through it (z = -1.18 m after 0.5 s)."""
    K, mass, R, rod_radius = 1e5, 0.1, 0.01, 0.01
    lying = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)    # rod along y
    rod, ball = Shape.capsule(rod_radius, 0.5, orientation=lying), Shape.sphere(R)
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=mass, inertia=(0.4 * mass * R * R,) * 3, position=(0, 0, 0.05))
    law = dict(stiffness=K, exponent=1.0, restitution=0.3)
    if rod_first:
        m.add_contact("hit", "ground", "ball", rod, ball, **law)
    else:
        m.add_contact("hit", "ball", "ground", ball, rod, **law)
    r = m.solve(duration=0.5, fps=20)
    # settled by 0.5 s (e = 0.3: the bounces die out within 0.1 s); 1e-6 of the depth
    height = R + rod_radius - mass * G / K
    assert r.position("ball")[-1, 2] == pytest.approx(height, abs=1e-6 * mass * G / K)
    force_on_ball = r.contact("hit")["force"][-1] * (-1.0 if rod_first else 1.0)
    assert force_on_ball == pytest.approx([0.0, 0.0, mass * G], rel=1e-6, abs=1e-9)


ALONG_X = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)     # z onto x
ALONG_Y = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)     # z onto -y
SQUARE = [(-0.01, -0.01), (0.01, -0.01), (0.01, 0.01), (-0.01, 0.01)]


def bar(kind: str) -> Shape:
    """A fixed bar 2 cm thick and 0.5 m long along y, its top at z = 0.01."""
    return {"capsule": lambda: Shape.capsule(0.01, 0.5, orientation=ALONG_Y),
            "box": lambda: Shape.box((0.02, 0.5, 0.02)),
            "cylinder": lambda: Shape.cylinder(0.01, 0.5, orientation=ALONG_Y),
            "profile": lambda: Shape.profile(SQUARE, 0.5, orientation=ALONG_Y)}[kind]()


def rod_on_a_slide(rod: Shape, crossing: Shape, K: float, mass: float, height: float = 0.05,
                   speed: float = 0.0, gravity: float = G, **law) -> Mechanism:
    """A rod along x (part frame z) on a vertical slide, ``height`` up, moving down at
    ``speed``, with a contact against ``crossing`` on the ground (by default linear,
    e = 0.3)."""
    m = Mechanism(gravity=(0.0, 0.0, -gravity))
    m.add_part("ground", fixed=True)
    m.add_part("rod", mass=mass, inertia=(2e-3, 2e-3, 1e-5), position=(0, 0, height),
               orientation=ALONG_X, velocity=(0.0, 0.0, -speed))
    m.add_marker("slide", "rod", orientation=(ALONG_X[0], 0.0, -ALONG_X[2], 0.0))
    m.add_marker("up", "ground")
    m.add_joint("drop", "prismatic", "slide", "up")
    m.add_contact("hit", "rod", "ground", rod, crossing, stiffness=K,
                  **({"exponent": 1.0, "restitution": 0.3} | law))
    return m


@pytest.mark.parametrize("kind", ["capsule", "box", "cylinder"])
def test_a_rod_striking_a_bar_rebounds_by_the_damping_law(kind: str) -> None:
    """A rod on a slide 0.1 mm above a bar, moving down at 1 m/s (no gravity), rebounds
    at the speed the independent integration of the law gives (test_contact.py's
    flores_rebound, the touchdown speed 1 m/s; 1e-5: the run's tolerance): the touchdown
    of the axis point nearest the bar is located and its approach speed kept, as a
    sphere's.  Its end spheres alone never met the bar: it went on at 1 m/s."""
    from test_contact import flores_rebound
    K, n, mass, e = 1e8, 1.5, 0.2, 0.5
    m = rod_on_a_slide(Shape.capsule(0.01, 0.3), bar(kind), K, mass, height=0.02 + 1e-4,
                       speed=1.0, gravity=0.0, exponent=n, restitution=e)
    r = m.solve(times=np.linspace(0.0, 2e-3, 3))
    assert r.velocity("rod")[-1, 2] == pytest.approx(flores_rebound(e, K, n, mass, 1.0),
                                                     abs=1e-5)


@pytest.mark.parametrize("kind", ["capsule", "box", "cylinder", "profile"])
def test_a_rod_rests_across_a_bar_with_one_sphere_stiffness(kind: str) -> None:
    """A rod (a capsule 0.3 m long, radius 1 cm, on a vertical slide) dropped across the
    middle of a fixed bar 2 cm thick (crossed at 90 degrees): the axis point nearest the
    bar touches with one end sphere's K, so the rod rests where K delta = m g, delta its
    penetration, to 1e-6 (settled: e = 0.3; the force balance holds to the run's
    tolerance), and the force on it is m g (to 1e-5: its damping).  Its end spheres
    alone never met the bar: it fell through (z = -1.18 m after 0.5 s).  Against the
    exact distances (a capsule, a box, a cylinder) its height is 0.02 - delta to 1e-6 of
    delta; a profile's 2-D grid (its cell 1/128 of 2 cm, refined to follow the edges)
    rounds the bar's corners, so there the height is within a cell of it."""
    K, mass = 1e5, 0.2
    r = rod_on_a_slide(Shape.capsule(0.01, 0.3), bar(kind), K, mass).solve(duration=0.5, fps=20)
    depth = mass * G / K
    hit = r.contact("hit")
    assert hit["penetration"][-1] == pytest.approx(depth, rel=1e-6)
    # the force holds the damping K delta D delta' / v0 too (D 3.73, v0 0.026 m/s, its
    # last touchdown's): the rod's speed at rest, 1e-8 to 3e-8 m/s from frame to frame
    # (within the run's error goal, 3e-7 m/s), moves it by up to 2.4e-6 of m g
    assert hit["force"][-1] == pytest.approx([0.0, 0.0, mass * G], rel=1e-5, abs=1e-9)
    z = r.position("rod")[-1, 2]
    if kind in ("capsule", "box", "cylinder"):
        assert z == pytest.approx(0.02 - depth, abs=1e-6 * depth)
    else:
        assert z == pytest.approx(0.02 - depth, abs=0.02 / 128)


@pytest.mark.parametrize("kind", ["capsule", "box", "cylinder"])
def test_a_rod_with_spacing_rests_across_a_bar(kind: str) -> None:
    """With spacing 0.05 m the rod's 7 centres share the end spheres' 2 K, the middle one
    alone reaches the bar (the next are 5 cm along it), and the rod rests where
    (2 K / 7) delta = m g, to 1e-6 of the depth (settled: e = 0.3)."""
    K, mass = 1e5, 0.2
    rod = Shape.capsule(0.01, 0.3, spacing=0.05)
    z = rod_on_a_slide(rod, bar(kind), K, mass).solve(duration=0.5, fps=20).position("rod")
    depth = 7 * mass * G / (2 * K)
    assert z[-1, 2] == pytest.approx(0.02 - depth, abs=1e-6 * depth)


def test_capsule_spacing_spreads_the_end_spheres_along_its_axis() -> None:
    """The centres run from end to end no farther apart than the spacing, evenly, their
    shares summing to the two end spheres' 2; without spacing, the two ends at 1 each."""
    pts, w, radius = Shape.capsule(0.02, 0.3, spacing=0.07).samples()
    assert radius == 0.02
    assert np.allclose(pts[:, 2], np.linspace(-0.15, 0.15, 6)) and np.allclose(pts[:, :2], 0)
    assert np.allclose(w, 2.0 / 6.0)
    pts, w, _ = Shape.capsule(0.02, 0.3).samples()
    assert np.allclose(pts[:, 2], [-0.15, 0.15]) and np.allclose(w, 1.0)
    with pytest.raises(MechanismError, match="capsule spacing"):
        Shape.capsule(0.02, 0.3, spacing=-1.0)


def free_rod(crossing: Shape, K: float, mass: float, height: float, **motion) -> Mechanism:
    """A free rod (a capsule 0.3 m long, radius 1 cm, along x) ``height`` above a fixed
    ``crossing``, with friction 0.5."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("rod", mass=mass, inertia=(1e-5, 1.5e-3, 1.5e-3), position=(0, 0, height),
               orientation=ALONG_X, **motion)
    m.add_contact("hit", "rod", "ground", Shape.capsule(0.01, 0.3), crossing, stiffness=K,
                  exponent=1.0, restitution=0.5, friction=0.5)
    return m


def test_a_rod_lying_level_on_a_box_meets_its_two_end_spheres() -> None:
    """A free rod dropped level (1 mm) onto a wide box rests on its two ends, each with
    one end sphere's K (the axis point nearest the box at one end, the end farther from
    it at the other, as the two end spheres did): at rest (its turning rate below 1e-6
    rad/s from its landing on) at 2 K delta = m g, its centre to 1e-6 of delta, its deeper
    end to 1e-5 (it still rocks by a few 1e-11 m, as the end spheres' rod did: 1.6e-6
    then).  A point left in the middle with the far end's K at one end would tip it
    over."""
    K, mass = 1e5, 0.2
    m = free_rod(Shape.box((0.5, 0.5, 0.02)), K, mass, 0.021)
    r = m.solve(duration=0.5, fps=20)
    depth = mass * G / (2 * K)
    assert r.position("rod")[-1, 2] == pytest.approx(0.02 - depth, abs=1e-6 * depth)
    tilt = np.abs(r.angular_velocity("rod")).max()
    assert tilt < 1e-6
    assert r.contact("hit")["penetration"][-1] == pytest.approx(depth, rel=1e-5)


def test_a_rod_rolls_across_a_round_bar_keeping_its_energy_balance() -> None:
    """A rod lying across a fixed round bar (a cylinder 2 cm thick along y), set rolling
    along the bar at 0.2 m/s from 1 mm above it: it lands, rolls (its centre 0.1 m along
    the bar after 0.5 s, to the 2 % that the landing's slip and the regularized friction's
    creep take) and stays on the bar (its axis 2 cm above the bar's, to 1e-4 m), and
    kinetic + potential - work stays constant to 1e-6 of the kinetic energy (the run's
    tolerance) with the contact's elastic energy and its damping and friction work
    booked.  Its end spheres alone never met the bar: it fell through."""
    K, mass, speed = 1e5, 0.2, 0.2
    bar_y = Shape.cylinder(0.01, 0.5, orientation=ALONG_Y)
    m = free_rod(bar_y, K, mass, 0.021, velocity=(0.0, speed, 0.0),
                 angular_velocity=(-speed / 0.01, 0.0, 0.0))
    r = m.solve(duration=0.5, fps=20)
    p = r.position("rod")
    assert p[-1, 1] == pytest.approx(speed * 0.5, rel=2e-2)
    assert p[-1, 2] == pytest.approx(0.02, abs=1e-4)
    ke, pe, work = r.energy()
    assert np.ptp(ke + pe - work) < 1e-6 * ke[0]


@pytest.mark.parametrize("kind", ["capsule", "box", "cylinder"])
def test_a_capsules_nearest_axis_point_is_the_least_distance_along_its_axis(kind: str) -> None:
    """A rod (a capsule 0.3 m long) in 60 random places and turns about a fixed shape at
    the origin: its sliding point's gap is the least of the shape's exact distance along
    its axis, less its radius (the brute force: three scans of 20001 points, each across
    the last one's least sample's neighbours, to 1e-12 of the axis), to 1e-11 m, and its
    far end's gap the larger of its two ends' (where the least is at an end, the two
    points stand at the two ends: the same pair of gaps).  Against a capsule the
    segments' closest points are exact; against a box the distance along a segment is
    piecewise linear inside and smooth outside, against a cylinder curved: the search's
    last steps are exact for the one and third order for the other."""
    from solver.base.shapes import PRIMITIVES
    from solver.kernels.constraints import body_arrays
    from solver.kernels.contacts import gaps
    from solver.model.compile import compile_model
    from solver.model.contact_model import FAR_END, SLIDING
    from solver.model.state import read_state
    shape = {"capsule": Shape.capsule(0.02, 0.1), "box": Shape.box((0.06, 0.1, 0.04)),
             "cylinder": Shape.cylinder(0.03, 0.1)}[kind]
    params = np.zeros((1, 3))
    params[0, :len(shape.params)] = shape.params
    rng = np.random.default_rng(3)
    R, half = 0.01, 0.15
    for _ in range(60):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        centre = rng.uniform(-0.05, 0.05, 3)
        m = Mechanism()
        m.add_part("ground", fixed=True)
        m.add_part("rod", mass=1.0, position=centre, orientation=q)
        m.add_contact("hit", "rod", "ground", Shape.capsule(R, 2 * half), shape)
        model = compile_model(m)
        st = read_state(model, m)
        rg, A = body_arrays(model, st.r, st.p)[:2]
        cp = model.forces.contacts
        gap = gaps(cp, rg, A)
        axis = A[0] @ np.array([0.0, 0.0, half])
        p0 = rg[0] - axis

        def along(s: np.ndarray) -> np.ndarray:
            pts = p0 + np.multiply.outer(s, 2.0 * axis)
            return PRIMITIVES[kind](pts, np.repeat(params, len(pts), axis=0))[0]
        lo, hi = 0.0, 1.0
        for _ in range(3):            # the bracket 1e4-fold finer each time: 1e-12 of the axis
            scan = np.linspace(lo, hi, 20001)
            f = along(scan)
            i = int(np.argmin(f))
            lo, hi = scan[max(i - 1, 0)], scan[min(i + 1, len(scan) - 1)]
        least = float(f[i])
        pair = np.sort([gap[cp.role == SLIDING][0], gap[cp.role == FAR_END][0]])
        far = float(along(np.array([0.0, 1.0])).max())
        assert pair == pytest.approx([least - R, far - R], abs=1e-11)


def rods_on_bars(copies: int) -> Mechanism:
    """``copies`` copies, in one place, of four free rods (capsules) lying across a fixed
    capsule, box, cylinder and profile bar, each sunk 0.1 mm into it, moving and
    turning: every kind of distance a capsule's axis slides along."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    for c in range(copies):
        for k, kind in enumerate(("capsule", "box", "cylinder", "profile")):
            rod = f"rod{c}_{k}"
            m.add_part(rod, mass=0.2, inertia=(1e-5, 1.5e-3, 1.5e-3),
                       position=(0.01, 0.0, 0.0199), orientation=ALONG_X,
                       velocity=(0.0, 0.1, -0.1), angular_velocity=(-10.0, 0.5, 0.2))
            m.add_contact(f"hit{c}_{k}", rod, "ground", Shape.capsule(0.01, 0.3), bar(kind),
                          stiffness=1e5, exponent=1.0, friction=0.3)
    return m


def test_capsule_axis_lines_do_not_grow_with_the_contacts() -> None:
    """A right-hand side runs the same lines in the solver for 2 and 3 copies of four rods
    lying across bars of every kind their axis slides along (tests/test_fixed_calls.py's
    count): the placing of the sliding points is one set of array calls over all pairs."""
    from test_fixed_calls import rhs_lines
    counts = [rhs_lines(rods_on_bars(copies)) for copies in (2, 3)]
    assert sum(counts[0].values()) > 100
    assert counts[0] == counts[1], [sum(c.values()) for c in counts]
    lines = sum(n for (f, _), n in counts[0].items() if f == "segment_search.py")
    assert lines > 20                               # the axis search ran


def test_a_pin_along_a_profiles_thickness_is_met_where_it_is_nearest() -> None:
    """A pin (a capsule 0.3 m long along the profile's z) near a square profile 2 cm thick,
    in 40 random places in and out of its thickness: its two points' gaps are the least
    and the larger end's of the profile's distance along the pin (a scan of 20001 points
    of the same distance and the pin's point at the profile's mid-plane: the profile's
    distance is the same all along the pin within the thickness and grows off it), to
    1e-12 m."""
    from solver.kernels.constraints import body_arrays
    from solver.kernels.contact_geometry import local_distances
    from solver.kernels.contacts import gaps
    from solver.model.compile import compile_model
    from solver.model.contact_model import FAR_END, SLIDING
    from solver.model.state import read_state
    square = [(-0.05, -0.05), (0.05, -0.05), (0.05, 0.05), (-0.05, 0.05)]
    rng = np.random.default_rng(5)
    R, half = 0.01, 0.15
    for _ in range(40):
        centre = np.r_[rng.uniform(-0.07, 0.07, 2), rng.uniform(-0.2, 0.2)]
        m = Mechanism()
        m.add_part("ground", fixed=True)
        m.add_part("pin", mass=1.0, position=centre)
        m.add_contact("hit", "pin", "ground", Shape.capsule(R, 2 * half),
                      Shape.profile(square, 0.02))
        model = compile_model(m)
        st = read_state(model, m)
        rg, A = body_arrays(model, st.r, st.p)[:2]
        cp = model.forces.contacts
        gap = gaps(cp, rg, A)
        level = np.clip(-centre[2], -half, half)          # the pin's point at z = 0
        scan = np.union1d(np.linspace(-half, half, 20001), [level])
        pts = centre + np.multiply.outer(scan, [0.0, 0.0, 1.0])
        f = local_distances(cp, pts, np.zeros(len(pts), int))[0]
        pair = np.sort([gap[cp.role == SLIDING][0], gap[cp.role == FAR_END][0]])
        assert pair == pytest.approx([f.min() - R, max(f[0], f[-1]) - R], abs=1e-12)


@pytest.mark.parametrize("kind", ["box", "profile"])
def test_a_free_rod_rests_across_a_flat_topped_bar_under_its_middle(kind: str) -> None:
    """A free rod dropped level (1 mm) across a flat-topped bar 2 cm wide: the bar's
    distance is level along the 2 cm of the rod over it, and the rod's point stands at
    its middle (under its centre of mass), so it rests there at K delta = m g (its height
    to 1e-6 of delta after 0.4 s; e = 0.5) in a few dozen steps.  With its point left
    wherever the search's least sample fell on that stretch, it rocked from one edge of
    the bar to the other ever faster: 0.03 s of run took more than a minute (the alarm
    turns that into a failure)."""
    import signal

    def too_slow(*_):
        raise TimeoutError("the rod rocks from edge to edge")
    K, mass = 1e5, 0.2
    old = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(60)
    try:
        r = free_rod(bar(kind), K, mass, 0.021).solve(duration=0.4, fps=20)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    depth = mass * G / K
    assert r.position("rod")[-1, 2] == pytest.approx(0.02 - depth, abs=1e-6 * depth)
    assert r.steps < 500
