"""Mechanisms side by side in one model, and far from the world origin: a mechanism moves,
and carries its loads, as it does alone at the origin, whatever stands beside it.

A scene may hold a copy of a mechanism 500 m aside (Shift D in Blender): the two are
separate islands (model/islands.py), so the model's size, Newton's stopping rule drawn from
it and the rotation weight of a part whose markers all sit at its centre (a wheel on its hub)
stay the mechanism's own, not the 500 m between the copies.

Bounds: float64 rounds a coordinate r to eps |r| / 2, and the projection holds a pose to
16 eps |r| (algebra/newton.py rounding_tols), 3.6e-12 m at 1 km: what one mechanism can
differ by from itself at the origin.
"""
from __future__ import annotations

import numpy as np
import pytest

import test_scale as far
from solver import Mechanism
from solver.model.compile import compile_model

EPS = float(np.finfo(float).eps)
ASIDE = 500.0           # m between a mechanism and its copy
AWAY = 1000.0           # m from the world origin
Y_AXIS = (np.cos(-np.pi / 4), np.sin(-np.pi / 4), 0.0, 0.0)   # a marker's z along world y


def box_inertia(mass: float, a: float, b: float, c: float) -> tuple:
    """kg m^2: a solid a x b x c box's principal moments about its centre."""
    return (mass * (b * b + c * c) / 12, mass * (a * a + c * c) / 12,
            mass * (a * a + b * b) / 12)


def suspension(m: Mechanism, prefix: str, where, slack=(0.0, 0.0, 0.0)) -> None:
    """The quarter-car of sample_scenes/suspension.py (its sizes, masses, bushings, coil-over
    and bump) added to ``m`` with its names prefixed, moved by ``where`` (m): a trailing arm
    held to the fixed chassis by two stiff bushings (2e6 N/m), a wheel on a revolute hub at
    its centre of mass (its markers all at its centre), a spring-damper to the chassis.  The
    wheel is built ``slack`` (m) off its hub, as float32 coordinates leave it 50 m away."""
    o = np.asarray(where, float)

    def part(name, at, **kw):
        m.add_part(prefix + name, position=tuple(o + at), **kw)

    def marker(name, on, at, point, axis=True):
        m.add_marker(prefix + name, prefix + on, position=tuple(np.subtract(point, at)),
                     orientation=Y_AXIS if axis else (1.0, 0.0, 0.0, 0.0))

    chassis, arm, wheel = (0.0, 0.0, 0.6), (0.25, 0.0, 0.35), (0.5, 0.2, 0.35)
    part("chassis", chassis, fixed=True)
    mass = 2700.0 * 0.5 * 0.06 * 0.04
    part("arm", arm, mass=mass, inertia=box_inertia(mass, 0.5, 0.06, 0.04))
    mass = 400.0 * np.pi * 0.3 ** 2 * 0.2
    side = mass * (3 * 0.3 ** 2 + 0.2 ** 2) / 12
    part("wheel", np.add(wheel, slack), mass=mass, inertia=(side, mass * 0.3 ** 2 / 2, side))
    for end, y in (("front", -0.12), ("rear", 0.12)):
        marker("arm " + end, "arm", arm, (0.0, y, 0.35))
        marker("chassis " + end, "chassis", chassis, (0.0, y, 0.35))
        m.add_bushing(prefix + "bushing " + end, prefix + "arm " + end, prefix + "chassis " + end,
                      stiffness=(2e6, 2e6, 5e5, 500.0, 500.0, 20.0),
                      damping=(2000.0, 2000.0, 500.0, 5.0, 5.0, 0.5))
    marker("wheel hub", "wheel", wheel, wheel)
    marker("arm hub", "arm", arm, wheel)
    m.add_joint(prefix + "hub", "revolute", prefix + "wheel hub", prefix + "arm hub")
    marker("arm shock", "arm", arm, (0.35, 0.0, 0.35), axis=False)
    marker("chassis shock", "chassis", chassis, (0.35, 0.0, 0.6), axis=False)
    m.add_spring_damper(prefix + "coil-over", prefix + "arm shock", prefix + "chassis shock",
                        stiffness=40000.0, damping=600.0, free_length=0.24)
    m.add_force(prefix + "bump", prefix + "wheel hub", force=(
        0, 0, "3000*step5(t, 1.0, 0, 1.05, 1)*step5(t, 1.1, 1, 1.15, 0)"))


def suspensions(*places, slack=(0.0, 0.0, 0.0)) -> Mechanism:
    """One model of a suspension at each place (m): "s0 ", "s1 ", ..."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    for k, where in enumerate(places):
        suspension(m, f"s{k} ", where, slack)
    return m


def loads(m: Mechanism) -> dict:
    """The first suspension's hub reaction and front bushing load (N, N m) over 0.4 s of
    dynamics (the bump included), and its arm's position (m, from where it was built)."""
    r = m.solve(duration=0.4, fps=24, analysis="dynamic")
    start = r.position("s0 arm")[0]
    return {"hub": np.hstack(r.reaction("s0 hub")), "bushing": np.hstack(r.bushing("s0 bushing front")),
            "arm": r.position("s0 arm") - start}


def test_a_suspension_beside_a_copy_or_far_away_is_loaded_as_alone() -> None:
    """The suspension alone at the origin, beside a copy 500 m aside, and 1 km away: the
    same hub reaction and bushing load at every frame, with the hub closed as built and
    with the wheel built 5.4e-6 m off its hub (as Blender's float32 places a copy 50 m
    away).  Before, the copy made the model 500 m in size: the wheel (its markers at its
    centre) weighed a radian as 500 m in the assembly's least movement, which closed the
    hub by turning the parts otherwise: the hub's load moved by 0.26 N and a bushing's by
    0.6 N at the first frame (0.11 N m in the sample duplicated in Blender); with the hub
    closed, the projection held it to 1e-12 of 500 m and the hub's force moved by 2.3e-5 N.
    Bound: the pose's rounding at 1 km, 16 eps 1e3 m = 3.6e-12 m, through the 2e6 N/m of
    each of the two bushings and the hub between them: 2e-5 N (measured 5e-6 N far away,
    7e-7 N beside the copy); the arm's position to 1e-11 m, three times that rounding."""
    for slack in ((0.0, 0.0, 0.0), (3e-6, -2e-6, 4e-6)):
        alone = loads(suspensions((0.0, 0.0, 0.0), slack=slack))
        for places in (((0.0, 0.0, 0.0), (0.0, ASIDE, 0.0)), ((AWAY, 0.0, 0.0),)):
            got = loads(suspensions(*places, slack=slack))
            for key, tol in (("hub", 2e-5), ("bushing", 2e-5), ("arm", 1e-11)):
                assert np.abs(got[key] - alone[key]).max() < tol, (slack, places, key)


def test_a_suspension_copy_has_its_own_size() -> None:
    """The model of two suspensions 500 m apart is as large as one suspension (0.5 m, the
    spread of its ground points and parts), and the wheel's rotation weight (its markers
    at its centre) is its own suspension's size, not the 500 m between the copies."""
    one = compile_model(suspensions((0.0, 0.0, 0.0)))
    two = compile_model(suspensions((0.0, 0.0, 0.0), (0.0, ASIDE, 0.0)))
    assert two.length_scale == pytest.approx(one.length_scale) == pytest.approx(0.5)
    for name in ("s0 wheel", "s1 wheel"):
        assert two.body_length[list(two.body_part).index(name)] == pytest.approx(0.5)


def four_bars(offset: float, copy: bool) -> Mechanism:
    """test_scale's four-bar at ``offset`` (m along x and y), its crank driven at 3 rad/s,
    and with ``copy`` a second one ASIDE further along both axes, driven the same."""
    m = far.four_bar(offset)
    if copy:
        c = far.four_bar(offset + ASIDE)
        for p in c.parts.values():
            if not p.fixed:
                m.add_part("c " + p.name, mass=p.mass, inertia=p.inertia,
                           center_of_mass=p.center_of_mass, position=p.position,
                           orientation=p.orientation)
        for mk in c.markers.values():
            on = "ground" if mk.part == "ground" else "c " + mk.part
            m.add_marker("c " + mk.name, on, position=mk.position)
        for j in c.joints.values():
            m.add_joint("c " + j.name, j.kind, "c " + j.marker_i, "c " + j.marker_j)
        m.add_motion("c drive", "c j1", "1 + 3*t")
    m.add_motion("drive", "j1", "1 + 3*t")
    return m


def test_a_four_bar_beside_a_copy_or_far_away_sweeps_as_alone() -> None:
    """The kinematic sweep of the four-bar alone, beside a copy 500 m aside, and 1 km away
    beside its copy: the same rocker, ground reaction and driving torque.  Before, the copy
    made Newton stop at 1e-12 of 500 m: the rocker 4.7e-10 m off, the reaction 6.8e-9 N.
    Bounds: the poses' rounding at 2.1e3 m from the origin, 16 eps 2.1e3 m = 7.5e-12 m:
    1e-11 m; over the 1 m links, 7.5e-12 of the loads (about 20 N) through the Jacobian's
    conditioning (about 10): 1e-9 N and N m (measured 1e-10)."""
    def sweep(offset, copy):
        r = four_bars(offset, copy).solve(duration=1.0, fps=24)
        return (r.position("rocker") - (offset, offset, 0.0), np.hstack(r.reaction("j4")),
                r.effort("drive"))
    alone = sweep(0.0, False)
    for offset, copy in ((0.0, True), (AWAY, True)):
        got = sweep(offset, copy)
        for a, b, tol in zip(got, alone, (1e-11, 1e-9, 1e-9)):
            assert np.abs(a - b).max() < tol, (offset, copy, tol)


def test_statics_and_modes_beside_a_copy_and_far_away_are_as_alone() -> None:
    """Statics and modes of the suspension alone, beside its copy 500 m aside and 1 km away:
    the same hub reaction and frequencies (the pair's each twice).  Bounds: the balance
    closes to the rounding's load, 7e-6 N as in dynamics; the modes' stiffness by central
    differences of 1e-5 of a part's size (3e-6 m) over loads rounded at 1 km (2e6 N/m times
    1.1e-13 m, 2e-7 N): 1e-8 relative (measured 7e-10)."""
    base = suspensions((0.0, 0.0, 0.0))
    hub = np.hstack(base.statics().reaction("s0 hub"))
    freq = np.sort(base.modes().frequencies)
    for places in (((0.0, 0.0, 0.0), (0.0, ASIDE, 0.0)), ((AWAY, 0.0, 0.0),)):
        m = suspensions(*places)
        assert np.abs(np.hstack(m.statics().reaction("s0 hub")) - hub).max() < 7e-6, places
        got = np.sort(m.modes().frequencies)[::len(places)]
        assert np.abs(got - freq).max() < 1e-8 * freq.max(), places


def test_only_what_joins_a_mechanism_widens_its_size() -> None:
    """A 1 m rod pendulum's size (its marker arm and its centre of mass's spread from the
    pin, about 0.5 m) is kept by a ground marker 100 m away that nothing uses, and by a
    second pendulum 100 m away; a spring from the rod to a ground point 3 m from the pin
    joins that point, and the size is the spread, 3 m along x."""
    def size(m):
        return compile_model(m).length_scale
    alone = size(far.rod_pendulum(1.0, 1.0, q0=0.0))
    m = far.rod_pendulum(1.0, 1.0, q0=0.0)
    m.add_marker("lone", "ground", position=(100.0, 0.0, 0.0))
    m.add_part("rod 2", mass=1.0, inertia=(1e-3, 1.0 / 12, 1.0 / 12),
               center_of_mass=(0.5, 0.0, 0.0), position=(100.0, 0.0, 0.0))
    m.add_marker("h 2", "rod 2")
    m.add_joint("pin 2", "revolute", "h 2", "lone")
    assert size(m) == alone == pytest.approx(0.5)
    m.add_marker("anchor", "ground", position=(3.0, 0.0, 0.0))
    m.add_spring_damper("tether", "h", "anchor", stiffness=1.0)
    assert size(m) == pytest.approx(3.0)
