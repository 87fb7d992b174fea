"""Extruded planar profiles (``Shape.profile``): their 2-D distance grid against the exact
distance, the grid's own slope, profiles too fine for a given cell refused with one that
would do, the boundary samples, the gear and Geneva outlines against their closed forms,
and a profile as a contact's side in dynamics."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import (Mechanism, MechanismError, Shape, geneva_crank, geneva_crank_radius,
                    geneva_wheel, involute_gear)
from solver.base.profile_grid import (boundary_samples, build_profile_grid, closed_loops,
                                      fine_enough, profile_distance, profile_set)

G = 9.81


def circle(radius: float, count: int, clockwise: bool = False) -> np.ndarray:
    t = 2.0 * np.pi * np.arange(count) / count * (-1.0 if clockwise else 1.0)
    return radius * np.column_stack([np.cos(t), np.sin(t)])


def annulus_distance(x: np.ndarray, outer: float, inner: float, half: float) -> np.ndarray:
    """The exact signed distance of the extruded annulus: a box's in (d2, |z| - h) with
    d2 = max(rho - outer, inner - rho)."""
    rho = np.linalg.norm(x[:, :2], axis=1)
    d2 = np.maximum(rho - outer, inner - rho)
    qz = np.abs(x[:, 2]) - half
    out = np.hypot(np.maximum(d2, 0.0), np.maximum(qz, 0.0))
    return out + np.minimum(np.maximum(d2, qz), 0.0)


def test_profile_distance_is_the_annulus_distance() -> None:
    """A ring (outer radius 1, a hole of 0.4 wound the other way, 512 and 256 edges),
    0.3 thick: the grid's distance at random points equals the extruded annulus's, within
    the polygon's chord sag R (1 - cos(pi / k)) plus bilinear interpolation's error on a
    circle, at most h^2 / (4 rho) (the distance's curvature 1/rho across the cell; Quilez's
    box rule in (d2, z) adds none).  Points within two cells of the ring's middle circle
    (where the distance has a crease) and of the axis are left out; beyond the grid's box
    (3 cells of margin) the distance is the box's nearest point's plus the way there, by
    the triangle inequality no less than the true one."""
    outer, inner, half = 1.0, 0.4, 0.15
    loops = closed_loops([circle(outer, 512), circle(inner, 256, clockwise=True)], "ring")
    grid = build_profile_grid(loops, half, 2.0 / 128)
    h = grid.cell
    rng = np.random.default_rng(5)
    x = rng.uniform([-1.3, -1.3, -0.4], [1.3, 1.3, 0.4], (4000, 3))
    rho = np.linalg.norm(x[:, :2], axis=1)
    box = np.all(np.abs(x[:, :2]) < 1.0 + 3 * h, axis=1)
    far = annulus_distance(x[~box], outer, inner, half)
    d_far = profile_distance(x[~box], np.zeros(int((~box).sum()), int), profile_set([grid]))[0]
    assert np.all(d_far >= far - 1e-3)              # beyond the grid's box: an upper bound
    x = x[box & (np.abs(rho - 0.7) > 2 * h) & (rho > 0.1)]
    d, g, _ = profile_distance(x, np.zeros(len(x), int), profile_set([grid]))
    exact = annulus_distance(x, outer, inner, half)
    rho = np.linalg.norm(x[:, :2], axis=1)
    sag = outer * (1.0 - math.cos(math.pi / 256))
    bound = sag + h * h / (4.0 * np.maximum(rho - h, 0.1)) + 1e-12
    assert np.all(np.abs(d - exact) <= bound)
    assert np.abs(d - exact).max() > 0.0
    # the gradient is unit and, away from edges of the extrusion, radial
    assert np.allclose(np.linalg.norm(g, axis=1), 1.0)
    side = (np.abs(x[:, 2]) < half - 2 * h) & (rho > outer + 2 * h)
    radial = x[side, :2] / rho[side, None]
    assert np.all(np.einsum("ij,ij->i", g[side, :2], radial) > 0.999)


def test_profile_grid_slope_is_its_own_derivative() -> None:
    """The third output is the interpolated distance's own gradient: central differences
    of d (step 1e-7 m, well inside a cell of 0.016 m) agree to 1e-5 (rounding over the
    step, and the rare point whose difference crosses a cell face)."""
    loops = closed_loops([involute_gear(20, 0.1)], "gear")
    grid = build_profile_grid(loops, 0.2, 0.016)
    ps = profile_set([grid])
    rng = np.random.default_rng(2)
    x = rng.uniform([-1.3, -1.3, -0.3], [1.3, 1.3, 0.3], (300, 3))
    which = np.zeros(len(x), int)
    _, _, slope = profile_distance(x, which, ps)
    step = 1e-7
    fd = np.stack([(profile_distance(x + step * e, which, ps)[0]
                    - profile_distance(x - step * e, which, ps)[0]) / (2 * step)
                   for e in np.eye(3)], axis=-1)
    assert np.median(np.abs(fd - slope)) < 1e-6
    assert np.mean(np.abs(fd - slope).max(axis=1) < 1e-5) > 0.97


def test_a_cell_too_coarse_for_a_slot_is_refused_with_one_that_would_do() -> None:
    """A 40 mm square with a 1 mm slot cut into it off the grid's lines: a 2 mm cell cannot see the slot (its
    walls' midpoints read far from zero) and is refused, naming the cell that would do;
    that cell builds, and by default the grid refines itself to meet the edges."""
    slot = np.array([[-20, -20], [20, -20], [20, 0.3], [0, 0.3], [0, 1.3], [20, 1.3],
                     [20, 20], [-20, 20]]) * 1e-3
    with pytest.raises(MechanismError, match=r"would do") as err:
        Shape.profile(slot, 0.01, cell=0.002).prepare("contact 'c': shape_b")
    assert "contact 'c': shape_b" in str(err.value)
    better = float(str(err.value).split("a cell of ")[1].split(" m")[0])
    assert better < 0.002
    loops = closed_loops(slot, "slot")
    fine_enough(loops, 0.005, better, "slot")
    auto = fine_enough(loops, 0.005, None, "slot")
    ps = profile_set([auto])
    # a point in the slot 0.1 mm from its wall is outside the solid by that (within the
    # grid's tolerance, a thousandth of the size)
    d = profile_distance(np.array([[0.01, 0.4e-3, 0.0]]), np.zeros(1, int), ps)[0]
    assert d[0] == pytest.approx(0.1e-3, abs=0.04e-3)


def test_boundary_samples_hold_every_corner_and_share_the_length() -> None:
    """A 3 x 1 rectangle sampled every 0.4 m at 2 levels: every corner is a sample, no two
    neighbours farther apart than the spacing, the heights the slabs' middles +-h/2, and
    each sample's weight its share of the perimeter (8 m)."""
    rect = np.array([[0, 0], [3, 0], [3, 1], [0, 1]], float)
    pts, w = boundary_samples([rect], 0.5, 0.4, 2)
    assert set(np.round(pts[:, 2], 12)) == {-0.25, 0.25}
    flat = pts[pts[:, 2] < 0, :2]
    for corner in rect:
        assert np.min(np.linalg.norm(flat - corner, axis=1)) < 1e-12
    gaps = np.linalg.norm(np.roll(flat, -1, axis=0) - flat, axis=1)
    assert gaps.max() <= 0.4 + 1e-12
    assert w.sum() == pytest.approx(1.0)
    assert np.allclose(w[pts[:, 2] < 0] * 2 * 8.0, 0.5 * (gaps + np.roll(gaps, 1)))


def test_involute_gear_outline_has_its_closed_form() -> None:
    """20 teeth of module 2 mm at 20 degrees with 0.1 mm backlash: the tip and root radii
    r + m and r - 1.25 m; every flank point above the base circle lies where the flank's
    normal is tangent to the base circle (the involute's defining property: the normal's
    distance from the centre is rb, to the flank sampling's chord error); the tooth's
    arc thickness on the pitch circle pi m / 2 - B / 2 (interpolated between flank
    points: 1e-6 m)."""
    z, m, B = 20, 0.002, 1e-4
    P = involute_gear(z, m, 20.0, backlash=B, points=40)
    r, rb = m * z / 2, m * z / 2 * math.cos(math.radians(20))
    rho = np.linalg.norm(P, axis=1)
    assert rho.max() == pytest.approx(r + m, rel=1e-12)
    assert rho.min() == pytest.approx(r - 1.25 * m, rel=1e-12)
    tooth = P[: len(P) // z]
    angle = np.arctan2(tooth[:, 1], tooth[:, 0])
    rising = tooth[:40]                                   # right flank, root to tip
    rising = rising[np.linalg.norm(rising, axis=1) > rb * 1.001]
    along = np.diff(rising, axis=0)
    mid = 0.5 * (rising[1:] + rising[:-1])
    normal = np.column_stack([-along[:, 1], along[:, 0]]) / np.linalg.norm(along, axis=1)[:, None]
    reach = np.abs(np.einsum("ij,ij->i", mid, np.column_stack([normal[:, 1], -normal[:, 0]])))
    assert np.allclose(reach, rb, rtol=2e-3)
    flank = lambda pts: np.interp(r, np.linalg.norm(pts, axis=1), np.arctan2(pts[:, 1], pts[:, 0]))
    right = flank(tooth[:40])
    left = flank(tooth[-46:-6][::-1])
    assert (left - right) * r == pytest.approx(math.pi * m / 2 - B / 2, abs=1e-6)
    assert angle.min() < 0 < angle.max()
    with pytest.raises(MechanismError, match="undercut"):
        involute_gear(12, m)


def _turn(t: float) -> np.ndarray:
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def ideal_geneva_angle(phi: np.ndarray, n: int, c: float, start: float) -> np.ndarray:
    """The wheel's angle of an external Geneva (crank at the origin turning positively,
    phi from the line of centres; wheel at (c, 0)): during engagement |phi| <= pi/2 - pi/n
    the slot points at the pin, atan2(a sin phi, a cos phi - c); dwelling otherwise, turned
    by -2 pi / n per index (Bickford 1972)."""
    a = geneva_crank_radius(n, c)
    turns = np.floor((phi + math.pi) / (2 * math.pi))
    local = phi - 2 * math.pi * turns
    lim = math.pi / 2 - math.pi / n
    slot = np.arctan2(a * np.sin(local), a * np.cos(local) - c) % (2 * math.pi)
    before = start - turns * 2 * math.pi / n
    during = before + slot - (math.pi + math.pi / n)     # the slot enters at pi + pi/n
    return np.where(local < -lim, before, np.where(local > lim, before - 2 * math.pi / n,
                                                    during))


def test_geneva_outlines_clear_each_other_along_the_ideal_motion() -> None:
    """A 4-slot Geneva (c = 0.1 m, pin radius 8 mm, clearance 0.5 mm) moved by its ideal
    kinematics over a crank turn: the locking disc and the wheel never overlap (their
    grids' distances at each other's edge samples stay positive), the pin stays inside
    its slot's clearance while engaged (its gap from the walls between 0 and 0.5 mm
    at the deepest point), and the wheel's outline is what the formulas say: slot mouth
    corners at (c cos(pi/n), +-(r_p + clearance))."""
    n, c, rp, clr = 4, 0.1, 0.008, 0.0005
    W, D = geneva_wheel(n, c, rp, clr), geneva_crank(n, c, rp, clr)
    lw, ld = closed_loops(W, "w"), closed_loops(D, "d")
    ps = profile_set([fine_enough(lw, 0.005, None, "w"), fine_enough(ld, 0.005, None, "d")])
    sw, _ = boundary_samples(lw, 0.005, 0.0005, 1)
    sd, _ = boundary_samples(ld, 0.005, 0.0005, 1)
    a = geneva_crank_radius(n, c)
    assert np.min(np.linalg.norm(W - [c * math.cos(math.pi / n), rp + clr], axis=1)) < 1e-12
    start = -3 * math.pi / 4
    phis = np.linspace(-math.pi, math.pi, 361)
    thetas = ideal_geneva_angle(phis, n, c, start)
    assert thetas[0] == start and thetas[-1] == pytest.approx(start - math.pi / 2)

    def gap(x: np.ndarray, which: int) -> float:
        """The least distance of points x (k, 2) from profile ``which`` (0 wheel, 1 disc)."""
        x3 = np.column_stack([x, np.zeros(len(x))])
        return float(profile_distance(x3, np.full(len(x), which), ps)[0].min())
    pin_gaps = []
    for phi, th in zip(phis, thetas):
        wheel_in_crank = (sw[:, :2] @ _turn(th).T + [c, 0.0]) @ _turn(phi)
        assert gap(wheel_in_crank, 1) > 0.0
        disc_in_wheel = (sd[:, :2] @ _turn(phi).T - [c, 0.0]) @ _turn(th)
        assert gap(disc_in_wheel, 0) > 0.0
        if abs(phi) <= math.pi / 4:
            pin = (a * np.array([math.cos(phi), math.sin(phi)]) - [c, 0.0]) @ _turn(th)
            pin_gaps.append(gap(pin[None], 0) - rp)
    assert 0.0 < min(pin_gaps) and max(pin_gaps) <= clr + 1e-9


def test_bad_profiles_are_named() -> None:
    with pytest.raises(MechanismError, match="polygon 0 encloses no area"):
        Shape.profile([[0, 0], [1, 0], [2, 0]], 0.1)
    with pytest.raises(MechanismError, match="NaN"):
        Shape.profile([[0, 0], [1, 0], [np.nan, 1]], 0.1)
    with pytest.raises(MechanismError, match="profile thickness must be positive"):
        Shape.profile([[0, 0], [1, 0], [0, 1]], 0.0)
    with pytest.raises(MechanismError, match="one polygon"):
        Shape.profile([[0, 0, 0], [1, 0, 0], [0, 1, 0]], 0.1)
    with pytest.raises(MechanismError, match="levels"):
        Shape.profile([[0, 0], [1, 0], [0, 1]], 0.1, levels=0)


def test_a_ball_rests_against_a_profile_wall() -> None:
    """A 10 mm ball pushed by gravity along -x onto the +x side wall of a square profile
    (the wall at x = 0.05 m, the profile 0.04 m thick along z): it settles where the
    linear contact force K delta carries its weight, delta = m g / K, on the wall's middle
    (the grid is exact on a straight edge away from its corners: the tolerance is the
    settling's residue, 1e-9 m)."""
    m = Mechanism(gravity=(-9.81, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=0.1, inertia=(4e-6, 4e-6, 4e-6), position=(0.061, 0.003, 0.002))
    square = np.array([[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]])
    m.add_contact("wall", "ball", "ground", Shape.sphere(0.01), Shape.profile(square, 0.04),
                  stiffness=1e5, exponent=1.0, restitution=0.3)
    r = m.solve(duration=0.6, fps=10)
    x = r.position("ball")[-1, 0]
    assert x == pytest.approx(0.06 - 0.1 * 9.81 / 1e5, abs=1e-9)
    assert r.contact("wall")["force"][-1, 0] == pytest.approx(0.981, rel=1e-6)


def geneva_drive(clearance: float) -> tuple[Mechanism, float]:
    """A 4-slot external Geneva by contact: crank at the origin driven at one turn per
    second from -180 degrees (dwelling), its pin a capsule of radius 8 mm at the crank
    radius and its locking disc a profile; the wheel (I_z 2.5e-3 kg m^2) free on its
    revolute at c = 0.1 m with light viscous drag (5e-3 N m s), slot 0 waiting at 225
    degrees.  Returns the mechanism and the wheel's starting angle."""
    n, c, rp, th = 4, 0.1, 0.008, 0.01
    start = -3 * math.pi / 4
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=0.5, inertia=(5e-4, 5e-4, 1e-3), orientation=(0, 0, 0, 1))
    m.add_part("wheel", mass=1.0, inertia=(1.3e-3, 1.3e-3, 2.5e-3), position=(c, 0, 0),
               orientation=(math.cos(start / 2), 0, 0, math.sin(start / 2)))
    m.add_marker("o1", "ground")
    m.add_marker("hub1", "crank")
    m.add_marker("o2", "ground", position=(c, 0, 0))
    m.add_marker("hub2", "wheel")
    m.add_joint("crank axle", "revolute", "hub1", "o1")
    m.add_joint("wheel axle", "revolute", "hub2", "o2")
    m.add_motion("drive", "crank axle", "-pi + 2*pi*t")
    m.add_torsion_spring("drag", "wheel axle", damping=5e-3)
    wheel = Shape.profile(geneva_wheel(n, c, rp, clearance), th, levels=1, spacing=0.004)
    disc = Shape.profile(geneva_crank(n, c, rp, clearance), th, levels=1, spacing=0.004)
    pin = Shape.capsule(rp, th, center=(geneva_crank_radius(n, c), 0, 0))
    m.add_contact("pin", "crank", "wheel", pin, wheel, stiffness=3e4, exponent=1.0,
                  restitution=0.5)
    m.add_contact("lock", "crank", "wheel", disc, wheel, stiffness=3e6, exponent=1.0,
                  restitution=0.5)
    return m, start


def test_geneva_indexes_a_quarter_turn_while_the_crank_turns_ninety_degrees() -> None:
    """The Geneva above over one crank turn: the wheel dwells while the crank turns from
    -180 to -45 degrees, turns by -90 degrees while the crank turns from -45 to +45 (180 -
    360/n), following the closed form atan2(a sin phi, a cos phi - c) of the slot that
    holds the pin, and dwells again.  Tolerances: engaged, the pin's clearance (0.5 mm)
    and its contact's compliance (about 0.6 mm at the wheel's peak torque) over the pin's
    least distance from the wheel's centre (29 mm): 2.5 degrees; dwelling, the locking
    arc's radial clearance (0.5 mm) over the arc end's lever about the wheel's centre
    (about 70 mm), with compliance: 0.6 degrees."""
    m, start = geneva_drive(0.0005)
    r = m.solve(duration=1.0, fps=120, tolerance=1e-3)
    q = r.orientation("wheel")
    theta = np.unwrap(2 * np.arctan2(q[:, 3], q[:, 0]))
    phi = -math.pi + 2 * math.pi * r.times
    ideal = ideal_geneva_angle(phi, 4, 0.1, start)
    err = np.degrees(np.abs(theta - ideal))
    engaged = np.abs(phi) <= math.pi / 4
    assert err[engaged].max() < 2.5
    assert err[~engaged].max() < 0.6
    assert np.degrees(theta[-1] - start) == pytest.approx(-90.0, abs=0.6)
    # it did turn: halfway through the engagement, by half the index (the closed form)
    half = np.argmin(np.abs(phi))
    assert np.degrees(theta[half] - start) == pytest.approx(-45.0, abs=2.5)


def test_spur_gears_by_their_teeth_turn_at_the_tooth_ratio() -> None:
    """Involute spur gears of 20 and 30 teeth (module 2 mm, 20 degrees, 0.1 mm backlash
    each) on revolutes at the centre distance 50 mm, meshing only by their profiles'
    contact; gear 1 driven at 2 turns per second, gear 2 loaded by 0.05 N m against its
    turning and a light drag.  After the first tooth passage, over four mesh periods
    (0.1 s): gear 2's mean speed is -20/30 of gear 1's, to 0.0045 (its lag behind the
    ideal angle moves within backlash and compliance, (0.1 + 2 x 0.055) mm over 30 mm =
    0.007 rad, over the window's 1.26 rad of gear 1, times 0.8 for the ratio); the teeth
    sink into each other by less than 5 % of the module; and the drive's mean torque is
    the load and drag through the ratio (energy: no friction), to 2 %."""
    z1, z2, mod, width = 20, 30, 0.002, 0.01
    centre, omega, load, drag = mod * (z1 + z2) / 2, 4 * math.pi, 0.05, 1e-4
    psi = math.pi - math.pi / z2                 # gear 2 faces gear 1's tooth with a space
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("g1", mass=0.1, inertia=(3e-5, 3e-5, 5e-5))
    m.add_part("g2", mass=0.22, inertia=(6e-5, 6e-5, 1e-4), position=(centre, 0, 0),
               orientation=(math.cos(psi / 2), 0, 0, math.sin(psi / 2)))
    m.add_marker("o1", "ground")
    m.add_marker("h1", "g1")
    m.add_marker("o2", "ground", position=(centre, 0, 0))
    m.add_marker("h2", "g2")
    m.add_joint("j1", "revolute", "h1", "o1")
    m.add_joint("j2", "revolute", "h2", "o2")
    m.add_motion("drive", "j1", f"{omega}*t")
    m.add_force("load", "h2", torque=(0, 0, load))
    m.add_torsion_spring("drag", "j2", damping=drag)
    teeth = [Shape.profile(involute_gear(z, mod, backlash=1e-4), width, levels=1,
                           spacing=0.001) for z in (z1, z2)]
    m.add_contact("teeth", "g1", "g2", *teeth, stiffness=3e7, exponent=1.0, restitution=0.5)
    r = m.solve(duration=0.15, fps=400, tolerance=1e-3)
    q = r.orientation("g2")
    turn2 = np.unwrap(2 * np.arctan2(q[:, 3], q[:, 0])) - psi
    turn1 = omega * r.times
    window = r.times >= 0.05
    k0 = np.argmax(window)
    ratio = (turn2[-1] - turn2[k0]) / (turn1[-1] - turn1[k0])
    assert ratio == pytest.approx(-z1 / z2, abs=0.0045)
    assert r.contact("teeth")["penetration"].max() < 0.05 * mod
    expected = (load + drag * omega * z1 / z2) * z1 / z2
    assert r.effort("drive")[window].mean() == pytest.approx(expected, rel=0.02)


def test_energy_balances_on_a_profile_edge() -> None:
    """A ball dropped 5 cm onto the rim of a fixed gear profile lying flat (its top face
    at z = 0.005 m, the ball over a tooth so that it meets the rounded edges between face
    and flanks), with friction, bounces off: kinetic + potential - work stays constant to
    3e-6 of m g h at a tolerance of 1e-8 (measured 3e-7 to 1.2e-6, as rounding-level
    changes move the steps: the distance's kinks at cell faces and at the face-flank edge
    are stepped over, not located).  The elastic energy changes at the rate of the
    interpolated distance itself, the box rule in (d2, z) applied to the bilinear
    interpolant's own gradient; the smooth interpolated normal in its place drifts 5.4e-5."""
    mass, R, h = 0.1, 0.01, 0.05
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("gear", fixed=True)
    m.add_part("ball", mass=mass, inertia=(0.4 * mass * R * R,) * 3,
               position=(0.0215, 0.001, 0.005 + R + h), angular_velocity=(0.0, 0.0, 5.0))
    m.add_contact("rim", "ball", "gear", Shape.sphere(R),
                  Shape.profile(involute_gear(20, 0.002), 0.01),
                  restitution=0.7, friction=0.3, stiffness=1e6, exponent=1.5)
    r = m.solve(duration=0.3, fps=50, tolerance=1e-8)
    assert r.velocity("ball")[:, 2].max() > 0.1                      # it bounced
    ke, pe, work = r.energy()
    assert np.ptp(ke + pe - work) < 3e-6 * mass * G * h


@pytest.mark.parametrize("call, message", [
    (lambda: involute_gear(20.5, 0.002), "gear teeth must be a whole number, got 20.5"),
    (lambda: involute_gear("twenty", 0.002), "gear teeth must be a number, got 'twenty'"),
    (lambda: geneva_wheel(4.5, 0.1, 0.01), "Geneva slots must be a whole number, got 4.5"),
    (lambda: geneva_crank_radius(float("nan"), 0.1), "Geneva slots is NaN or infinite"),
    (lambda: Shape.profile([[(0, 0), (1, 0), (0, 1)]], 0.1, levels=1.5),
     "profile levels must be a whole number, got 1.5"),
    (lambda: Shape.mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
                        [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], cells=None),
     "mesh cells must be a number, got None")])
def test_a_count_that_is_not_whole_is_refused(call, message: str) -> None:
    """Teeth, slots, grid cells and levels are counts: 20.5 teeth is refused, not cut to a
    20-tooth gear by int(); text, None and NaN are named, not Python's own errors."""
    with pytest.raises(MechanismError, match=message):
        call()
