"""A contact point's touchdown speed, which scales its Hunt-Crossley damping: the speed of
its impact, or for a point that starts inside the other part, the impact speed its elastic
energy holds (kernels/contacts.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, Shape
from solver.kernels.constraints import body_arrays
from solver.kernels.contacts import contact_forces
from solver.model.compile import compile_model
from solver.model.state import read_state
from test_contact import ball_on_floor


def test_impact_speed_holds_the_elastic_energy_with_the_reduced_mass() -> None:
    """Two free balls (0.1 and 0.3 kg, reduced mass 0.075 kg) 2 mm into each other, at
    rest: each point's impact speed is the speed whose kinetic energy with the reduced mass
    is the elastic energy K d^2.5 / 2.5 (to rounding); the same balls apart have none."""
    def pair(overlap: float) -> Mechanism:
        m = Mechanism(gravity=(0.0, 0.0, 0.0))
        m.add_part("a", mass=0.1, inertia=(4e-6,) * 3)
        m.add_part("b", mass=0.3, inertia=(1e-5,) * 3, position=(0.03 - overlap, 0.0, 0.0))
        m.add_contact("hit", "a", "b", Shape.sphere(0.01), Shape.sphere(0.02), stiffness=1e7)
        return m

    def speeds(m: Mechanism) -> np.ndarray:
        model = compile_model(m)
        st = read_state(model, m)
        rg, A, vg, wg = body_arrays(model, st.r, st.p, st.v, st.w)
        return contact_forces(model.forces.contacts, rg, A, vg, wg).impact_speed
    elastic = 1e7 * 0.002 ** 2.5 / 2.5
    assert speeds(pair(0.002)) == pytest.approx([math.sqrt(2.0 * elastic / 0.075)], rel=1e-9)
    assert np.all(speeds(pair(-0.001)) == 0.0)


@pytest.mark.parametrize("e", [0.3, 0.8])
def test_a_ball_started_through_the_floor_leaves_as_from_an_impact(e: float) -> None:
    """A ball started 5 mm through a floor, at rest and weightless, has no touchdown: its
    damping takes the speed v_e whose kinetic energy its elastic energy K d^2.5 / 2.5
    holds, as if an impact had pressed it there, so it leaves at a speed of the order of
    e v_e (0.75 v_e at e = 0.8, 0.22 v_e at e = 0.3), never faster than v_e (the energy
    it starts with).  Damped as after a touchdown at 0.01 m/s, it would crawl out at
    0.01 / (8 (1 - e) / (5 e)) m/s, 0.025 at e = 0.8, in steps of m / c (1e-7 s at
    K = 1e7, where the run does not end)."""
    K, mass, depth = 1e5, 0.1, 0.005
    r = ball_on_floor(0.01, mass, -depth, restitution=e, stiffness=K).solve(
        duration=0.05, fps=100, analysis="dynamic")
    v_e = math.sqrt(2.0 * K * depth ** 2.5 / 2.5 / mass)
    out = r.velocity("ball")[-1, 2]
    assert 0.5 * e * v_e < out < v_e


@pytest.mark.parametrize("share", [0.0, 0.1, 0.9, 2.0])
def test_a_frame_ending_just_above_the_floor_keeps_the_impact_speed(share: float) -> None:
    """A weightless ball (R 10 mm, 0.1 kg) at 1 m/s onto a floor (K 1e8, n 1.5, e 0.5),
    with an output time where its gap is ``share`` of the gap tolerance (GAP_TOL times the
    model's size, 7.7e-12 m here): the step from there touches down inside it, and the
    rebound is the independent integration's from 1 m/s (1e-5: the run's tolerance)
    whatever the share.  Its touchdown not located, the impact speed was read at the end
    of the step it touched down in: 0.446 m/s out instead of 0.470."""
    from solver.analyses.dynamics.touchdown import GAP_TOL
    from test_contact import flores_rebound
    K, n, mass, e, h = 1e8, 1.5, 0.1, 0.5, 1e-4
    m = ball_on_floor(0.01, mass, h, 1.0, restitution=e, stiffness=K, exponent=n)
    model = compile_model(m)
    cp = model.forces.contacts
    tol = GAP_TOL * float(model.size_of(np.stack([cp.sb, cp.fb], axis=-1))[0])
    r = m.solve(times=np.array([0.0, h - share * tol, 2e-3]))
    assert r.position("ball")[1, 2] - 0.01 == pytest.approx(share * tol, abs=1e-3 * tol)
    assert r.velocity("ball")[-1, 2] == pytest.approx(flores_rebound(e, K, n, mass, 1.0),
                                                      abs=1e-5)


def test_a_ball_grazing_the_floor_inside_a_frame_rebounds_by_the_damping_law() -> None:
    """A ball (R 10 mm, 0.1 kg; K 1e8, n 1.5, e 0.5) thrown down from 10 mm against a
    gravity that points up, reaching the floor at 0.02 m/s: it would turn back 20 um
    below the floor in 4 ms, inside one step of 24 frames a second whose ends are both
    apart.  Its speed leaving the floor (from the last frame: v^2 - 2 G (z - R)) over
    0.02 m/s is the independent integration's with that gravity to 1e-3 (the run's
    tolerance, 1e-5 of the 0.44 m/s throw, is 2.2e-4 of the landing speed; 1.7e-6
    measured).  Unseen, the graze left it at the speed it came, 1.0 instead of 0.70."""
    from test_contact import G, flores_rebound
    K, n, mass, e, vb, height = 1e8, 1.5, 0.1, 0.5, 0.02, 0.01
    v0 = math.sqrt(vb * vb + 2.0 * G * height)
    m = ball_on_floor(0.01, mass, height, v0, gravity=-G, restitution=e, stiffness=K,
                      exponent=n)
    r = m.solve(duration=0.3, fps=24)
    vz, z = r.velocity("ball")[-1, 2], r.position("ball")[-1, 2]
    leaving = math.sqrt(vz * vz - 2.0 * G * (z - 0.01))
    assert leaving / vb == pytest.approx(flores_rebound(e, K, n, mass, vb, -G), abs=1e-3)


@pytest.mark.parametrize(("vb", "fps"), [(0.02, 24), (0.05, 60), (0.2, 24), (1.0, 24)])
def test_a_step_from_a_located_touchdown_sees_the_contact(vb: float, fps: float) -> None:
    """The same ball thrown down from 30 mm against gravity pointing up, reaching the
    floor at ``vb``: its touchdown is located (the point inside by 2e-13 m, not armed to
    leave), and the step from there must see the force.  Its speed leaving over ``vb`` is
    the independent integration's with that gravity to 1e-3 (the run's tolerance, 1e-6 of
    the 0.77 m/s throw, is 4e-5 of the slowest landing speed; at most 1.2e-3 was measured
    with the first step from the touchdown error-controlled alone, 2e-7 with a tolerance
    of 1e-7).  The step from the touchdown spanned the whole contact (7.1 ms against 1.8
    ms at 0.02 m/s: 1.0 instead of 0.70) or ended inside with no force seen and the next
    one past the lift-off (0.05 m/s at 60 fps: 1.0 instead of 0.56)."""
    from test_contact import G, flores_rebound
    K, n, mass, e, height = 1e8, 1.5, 0.1, 0.5, 0.03
    v0 = math.sqrt(vb * vb + 2.0 * G * height)
    m = ball_on_floor(0.01, mass, height, v0, gravity=-G, restitution=e, stiffness=K,
                      exponent=n)
    r = m.solve(duration=0.3, fps=fps)
    vz, z = r.velocity("ball")[-1, 2], r.position("ball")[-1, 2]
    leaving = math.sqrt(vz * vz - 2.0 * G * (z - 0.01))
    assert leaving / vb == pytest.approx(flores_rebound(e, K, n, mass, vb, -G), abs=1e-3)
