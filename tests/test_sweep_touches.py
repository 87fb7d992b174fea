"""Contacts a kinematic sweep's motions drive through each other between two output frames
(solver/analyses/sweep/touches.py): a ball driven right through a thin plate inside one
frame interval, both frames apart, is noted with the contact, its parts and the instant
they met (located on the motion, against its closed form); a dip of the frames'
interpolant that the motion does not make is no note."""
from __future__ import annotations

import numpy as np
import pytest

import solver.analyses.sweep.between as between
from solver import Mechanism, Shape

R_BALL, PLATE = 0.02, 0.01       # m: the ball's radius, the plate's thickness


def plunger(expr: str, z0: float, plate: Shape) -> Mechanism:
    """A ball of radius R_BALL on a slide along world z, driven to height ``expr`` (m, from
    its start z0), in contact with ``plate`` on the ground."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("pusher", mass=1.0, position=(0.0, 0.0, z0))
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "pusher")
    m.add_joint("slide", "prismatic", "shoe", "rail")
    m.add_motion("push", "slide", expr)
    m.add_contact("plate", "pusher", "ground", Shape.sphere(R_BALL), plate,
                  stiffness=1e5, exponent=1.0)
    return m


def test_a_ball_driven_through_a_plate_between_frames_is_noted() -> None:
    """z = 0.25 - 3 t m at 10 fps through a plate 0.01 m thick at z = 0: frame 0 is 0.225 m
    above it, frame 1 0.025 m below, both apart, and nothing was said.  The note names the
    contact, its parts and the instant the ball meets the plate's top, z = R + 0.005 m:
    t = (0.25 - 0.025) / 3 = 0.075 s, between frames 0 and 1, with the overlap solved at
    the interpolant's least gap (t_b: 0.025 - |z(t_b)| m while z is within the plate)."""
    m = plunger("0.25 - 3*t", 0.25, Shape.box((0.2, 0.2, PLATE)))
    res = m.solve(duration=0.3, fps=10)
    gap = res.interference("plate")["gap"]
    assert (gap > 0.0).all()                       # every frame apart: no clash at a frame
    said = [n for n in res.notes if "pass through" in n]
    assert len(said) == 1
    assert said[0].startswith("contact 'plate': parts 'pusher' and 'ground' pass through "
                              "each other at t = 0.075 s (between frames 0 and 1)")
    depth, tb = (float(x) for x in
                 __import__("re").search(r"by (\S+) m at t = (\S+) s", said[0]).groups())
    # printed to 3 significant digits (half a unit in the last: 5e-5 m; tb to 6)
    assert depth == pytest.approx(R_BALL + PLATE / 2 - abs(0.25 - 3 * tb), abs=5e-5)


@pytest.mark.parametrize("wheels", [0, 6])
def test_the_instant_a_ball_meets_the_plate_is_located_on_the_motion(wheels: int) -> None:
    """The same pass at 7 fps (the cubic through the frames stays 0.08 m clear: the
    frames' tangents meet 0.025 m inside), the plate's top met at 0.075 s; also beside six
    driven wheels, an open tree of driven joints placed joint by joint (sweep/tree.py).
    The instant is printed to 6 significant digits (located to 1e-9 of the frame interval
    on poses Newton closes to ~1e-12 m, the ball moving at 3 m/s): 1e-6 s is room."""
    import re

    from test_sweep_banded_poles import with_wheels
    m = with_wheels(plunger("0.25 - 3*t", 0.25, Shape.box((0.2, 0.2, PLATE))), wheels)
    res = m.solve(duration=0.3, fps=7)
    said = [n for n in res.notes if "pass through" in n]
    t = float(re.search(r"at t = (\S+) s \(between frames 0 and 1\)", said[0]).group(1))
    assert t == pytest.approx(0.075, abs=1e-6)


def test_a_ball_that_stays_short_of_the_floor_is_solved_where_the_frames_overshoot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """z = 0.021 + 4 (t - 0.25)^4 m at 2 fps comes 1 mm short of a floor under a ball of
    radius 0.02 m; the frames' cubic interpolant overshoots the quartic's bottom by 4 h^4 /
    16 = 0.0156 m (h = 0.5 s), into the floor: the motion solved at the interpolant's least
    gap (0.25 s) is apart, so nothing is noted, with one pose solved between frames."""
    solved = []
    solve = between.Interval._solve

    def spy(self, t):
        solved.append(t)
        return solve(self, t)
    monkeypatch.setattr(between.Interval, "_solve", spy)
    m = plunger("0.021 + 4*(t - 0.25)**4", 0.021 + 4 * 0.25 ** 4, Shape.half_space())
    res = m.solve(duration=0.5, fps=2)
    assert not [n for n in res.notes if "pass through" in n]
    assert solved == [pytest.approx(0.25, abs=0.5 / between.SAMPLES)]
    assert np.abs(np.asarray(res.times) - [0.0, 0.5]).max() == 0.0


def test_a_study_notes_the_pass_on_every_variant() -> None:
    """The 10 fps pass above as a study of three plate stiffnesses (its variants swept as
    one): each variant's result has the note, at the instant of its separate run."""
    from solver.study import grid
    m = plunger("0.25 - 3*t", 0.25, Shape.box((0.2, 0.2, PLATE)))
    res = m.study(grid({"plate.stiffness": [1e5, 2e5, 3e5]}), duration=0.3, fps=10)
    assert not res.failures
    for i in range(3):
        said = [n for n in res.result(i).notes if "pass through" in n]
        assert len(said) == 1 and "at t = 0.075 s (between frames 0 and 1)" in said[0]


def test_the_gaps_rates_are_the_contact_laws_approach_rates() -> None:
    """A box on an arm turned at 2 rad/s past a fixed box: every point's gap and its rate
    (touches.py ``gaps_and_rates``, from the geometry alone) are the contact law's gap and
    minus its approach rate (kernels/contacts.py, cull off) at every frame, to rounding
    (1e-12 of speeds under 1 m/s)."""
    from solver.analyses.sweep.touches import gaps_and_rates
    from solver.kernels.constraints import body_arrays
    from solver.kernels.contacts import contact_forces
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(0.01,) * 3)
    m.add_marker("O", "ground")
    m.add_marker("hub", "arm")
    m.add_joint("pin", "revolute", "hub", "O")
    m.add_motion("spin", "pin", "2*t + 0.3")
    m.add_contact("c", "arm", "ground", Shape.box((0.3, 0.05, 0.04), center=(0.2, 0.0, 0.0)),
                  Shape.box((0.1, 0.1, 0.1), center=(0.0, 0.3, 0.0)), stiffness=1e5,
                  exponent=1.0)
    res = m.solve(duration=1.0, fps=50)
    cp = res.model.forces.contacts
    state = body_arrays(res.model, res._r, res._p, res._v, res._w)
    g, d = gaps_and_rates(cp, *state)
    law = contact_forces(cp, *state, cull=False)
    assert np.abs(g - law.gap).max() < 1e-12 and np.abs(d + law.approach).max() < 1e-12
    assert np.abs(d).max() > 0.1                          # (the rates are not all zero)
