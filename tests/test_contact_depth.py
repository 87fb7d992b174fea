"""A contact too soft, or a shape too small, for the part it carries: the depth its weight
presses it and the depth a run reaches, against half its thinner shape's least extent
(past which the shapes' distances push the part on through), said by name."""
from __future__ import annotations

import math

from solver import Mechanism, Shape

G = 9.81


def ball_over_plate(radius: float, floor: Shape | None = None, **law) -> Mechanism:
    """A 1 kg part on a sphere of ``radius`` 2 cm above a plate 2 mm thick on the ground
    (or ``floor``, its top at z = 0)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=1.0, inertia=(1e-3,) * 3, position=(0.0, 0.0, 0.02))
    plate = Shape.box((0.2, 0.2, 0.002), center=(0.0, 0.0, -0.001))
    m.add_contact("drop", "ball", "ground", Shape.sphere(radius), floor or plate, **law)
    return m


def test_a_contact_too_soft_for_its_part_is_named() -> None:
    """At K = 1e3 N/m^1.5 the ball's weight 9.81 N presses a 5 mm sphere (9.81 / 1e3)^(2/3)
    = 0.0458 m deep, past half the plate's 2 mm: check() and the run name the contact, the
    part and that depth, and the ball does fall through the plate.  At K = 1e6 (0.46 mm
    deep, within the plate's half) nothing is said and the ball rests on the plate."""
    sink = (G / 1e3) ** (2.0 / 3.0)
    soft = ball_over_plate(0.005, stiffness=1e3)
    said = [n for n in soft.check().notes if "presses it" in n]
    assert len(said) == 1 and "contact 'drop'" in said[0] and "part 'ball'" in said[0]
    assert f"{sink:.3g} m deep" in said[0] and "(0.001 m)" in said[0]
    r = soft.solve(duration=0.5, fps=24)
    assert r.position("ball")[-1, 2] < -0.1                      # through the plate
    assert [n for n in r.notes if "presses it" in n] == said
    firm = ball_over_plate(0.005, stiffness=1e6)
    assert not [n for n in firm.check().notes if "presses it" in n]
    r = firm.solve(duration=0.5, fps=24)
    assert not [n for n in r.notes if "presses it" in n or "least extent" in n]
    assert abs(r.position("ball")[-1, 2] - (0.005 - (G / 1e6) ** (2.0 / 3.0))) < 1e-6


def test_a_shape_too_small_for_its_part_is_named_with_the_time() -> None:
    """A 1 kg part touching a floor with a sphere of 0.05 mm on the default contact (time
    constant 0.01 s: it rests g tau^2 / pi^2 = 0.099 mm deep, twice the sphere's radius):
    the run names the contact, its parts and the first frame where it is deeper than the
    radius."""
    rest = G * 0.01 ** 2 / math.pi ** 2
    r = ball_over_plate(5e-5, Shape.half_space()).solve(duration=2.0, fps=10)
    deep = [n for n in r.notes if "least extent" in n and "overlap by" in n]
    assert len(deep) == 1 and "contact 'drop'" in deep[0]
    assert "parts 'ball' and 'ground'" in deep[0] and "(5e-05 m)" in deep[0]
    assert "at t = " in deep[0]
    z = r.position("ball")[:, 2]
    first = next(i for i, zi in enumerate(z) if 5e-5 - zi > 5e-5)
    assert f"at t = {r.times[first]:.6g} s" in deep[0]
    assert abs(z[-1] - (5e-5 - rest)) < 0.01 * rest           # it rests that deep


def test_a_step_size_collapse_names_the_contacts_pressed_there() -> None:
    """Where a run's step size collapses with parts in contact (nothing singular, jammed or
    growing), the message names each contact pressing there, its parts and how deep (the
    ball started 1 mm into the plate's top), not "a discontinuity or an extremely stiff
    element" alone."""
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.dynamics.singular import collapsed
    from solver.analyses.structure import structure
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = ball_over_plate(0.005)
    model = compile_model(m)
    st0 = read_state(model, m)
    r = st0.r.copy()
    r[0, 2] = 0.004                                          # 1 mm into the plate's top
    message, who = collapsed(Equations(model, structure(model, r, st0.p)),
                             structure(model, r, st0.p), r, st0.p, 0.3, 1e-13, 0.33, 8, None)
    assert "contact 'drop' presses parts 'ball' and 'ground' 0.001 m into each other" in message
    assert "discontinuity" not in message and who == ()
    r[0, 2] = 0.02                                           # apart: the plain words
    message, _ = collapsed(Equations(model, structure(model, r, st0.p)),
                           structure(model, r, st0.p), r, st0.p, 0.3, 1e-13, 0.33, 8, None)
    assert "a discontinuity or an extremely stiff element" in message
