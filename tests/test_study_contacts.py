"""A contact's numbers as design-study parameters (solver/study/params.py): a restitution
study of a dropped ball rebounds as the damping law does, a friction study of a sliding
block stops where Coulomb's law puts it, each variant bit for bit its own solve; the
names a contact offers by the law it was built with, a pair's sides, bad values named
with their variant."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, Shape, Study, StudyError
from solver.study import parameter_names, quantity
from test_contact import G, ball_on_floor, block, flores_rebound

K, N, MASS, HEIGHT, R = 1e8, 1.5, 0.1, 0.05, 0.01     # the dropped ball of test_contact.py


def dropped_ball(restitution: float) -> Mechanism:
    """A 0.1 kg ball of 1 cm radius dropped from 5 cm onto a floor (contact "hit")."""
    return ball_on_floor(R, MASS, HEIGHT, 0.0, gravity=G, restitution=restitution,
                         stiffness=K, exponent=N)


def same_bits(a, b, part: str, contact: str) -> None:
    """Two runs give the same numbers, bit for bit: times, the part's motion, the
    contact's force."""
    assert np.array_equal(a.times, b.times)
    for read in (a.position, a.velocity, a.orientation):
        other = getattr(b, read.__name__)
        assert np.array_equal(read(part), other(part)), read.__name__
    assert np.array_equal(a.contact(contact)["force"], b.contact(contact)["force"])


def test_a_restitution_study_rebounds_as_each_variant_alone() -> None:
    """Restitution 0.3, 0.6, 0.9: each variant's speed leaving the floor (from a frame in
    flight: v^2 + 2 g (z - R)) over the landing speed sqrt(2 g h) is the independent
    integration of the damping law to 1e-5 (the run's tolerance) and the restitution
    within 0.05 (Flores et al. 2011's damping assumes small losses: test_contact.py's
    bound), and each variant is its own solve bit for bit."""
    levels = [0.3, 0.6, 0.9]
    res = dropped_ball(0.5).study({"hit.restitution": levels}, duration=0.14, fps=24)
    assert res.failures == {}
    land = math.sqrt(2 * G * HEIGHT)
    for i, e in enumerate(levels):
        r = res.result(i)
        vz, z = r.velocity("ball")[-1, 2], r.position("ball")[-1, 2]
        assert z > R                                      # in flight after the rebound
        ratio = math.sqrt(vz * vz + 2 * G * (z - R)) / land
        assert ratio == pytest.approx(flores_rebound(e, K, N, MASS, land, G), abs=1e-5)
        assert ratio == pytest.approx(e, abs=0.05)
        same_bits(r, dropped_ball(e).solve(duration=0.14, fps=24), "ball", "hit")


def test_a_contact_studys_table_has_each_contacts_peak_force() -> None:
    """The table of a study of the dropped ball (contacts and no joints) has the contact's
    peak force, "peak contact force hit" (N): each variant's largest size of the force on
    part a over the frames (a millisecond apart, within the bounce), its own result's to
    the last bit; a stiffer contact lands harder (its peak larger).  Without it the table
    held the variant and the parameter alone, nothing to sort or plot by."""
    from solver.study.table import column_units
    base = dropped_ball(0.5)
    res = base.study({"hit.stiffness": [1e5, 1e6]}, duration=0.14, fps=1000)
    assert res.failures == {}
    assert column_units(base)["peak contact force hit"] == "N"
    peak = res.summary["peak contact force hit"]
    for i in range(2):
        force = np.linalg.norm(res.result(i).contact("hit")["force"], axis=1)
        assert peak[i] == force.max()
    assert peak[1] > peak[0] > MASS * G


def test_a_contact_study_runs_its_variants_together(monkeypatch) -> None:
    """The dropped ball's restitution varied: the variants run in one lockstep run (their
    models stacked, each one's touchdown speeds its own run state), every call made for
    all of them together, each variant its own solve bit for bit, the contact's force and
    penetration included."""
    from test_study_lockstep import _groups
    groups = _groups(monkeypatch)
    levels = [0.3, 0.6, 0.9]
    res = dropped_ball(0.5).study({"hit.restitution": levels}, duration=0.14, fps=24)
    assert len(groups) == 1 and groups[0].served["alone"] == 0
    assert groups[0].served["together"] > 0
    for i, e in enumerate(levels):
        alone = dropped_ball(e).solve(duration=0.14, fps=24)
        same_bits(res.result(i), alone, "ball", "hit")
        for key in ("penetration", "point"):     # (NaN where apart: equal there too)
            assert np.array_equal(res.result(i).contact("hit")[key], alone.contact("hit")[key],
                                  equal_nan=True), key


def test_a_friction_study_stops_the_block_at_each_coulomb_distance() -> None:
    """A cube sliding at 1 m/s on friction 0.2, 0.3, 0.5 (the dynamic coefficient follows
    the static on a contact given one): each stops after v^2 / (2 mu g) within 0.5%
    (the regularized friction's creep below its slip speed: test_contact.py's bound),
    each variant its own solve bit for bit."""
    box = Shape.box((0.1, 0.1, 0.1))
    levels = [0.2, 0.3, 0.5]
    res = block(box, 1.0, 0.4).study({"slide.friction": levels}, duration=0.6, fps=50)
    assert res.failures == {}
    for i, mu in enumerate(levels):
        r = res.result(i)
        assert r.position("block")[-1, 0] == pytest.approx(1.0 / (2 * mu * G), rel=5e-3)
        same_bits(r, block(box, 1.0, mu).solve(duration=0.6, fps=50), "block", "slide")


def test_bad_contact_values_are_named_with_their_variant() -> None:
    """A restitution above 1, a negative friction, a NaN and a zero slip speed are refused
    before anything runs, each naming its variant, the parameter and the contact."""
    m = dropped_ball(0.5)
    cases = [
        ({"hit.restitution": [0.5, 1.5]},
         r"variant 1: hit.restitution = 1.5: contact 'hit': restitution must be in \(0, 1\]"),
        ({"hit.friction": [0.2, 0.3, -0.1]},
         r"variant 2: hit.friction = -0.1: contact 'hit': friction coefficients must be "
         r"non-negative"),
        ([{"hit.stiffness": 1e8}, {"hit.stiffness": float("nan")}],
         r"variant 1: hit.stiffness = nan is not a finite number"),
        ({"hit.slip_speed": [0.0]},
         r"variant 0: hit.slip_speed = 0: contact 'hit': slip_speed must be positive"),
        ({"hit.exponent": [3.5]}, r"variant 0: hit.exponent = 3.5: contact 'hit': exponent"),
    ]
    for spec, message in cases:
        with pytest.raises(StudyError, match=message):
            Study(m, spec)


def test_a_contact_offers_the_parameters_of_the_law_it_was_built_with() -> None:
    """A stiffness contact offers its stiffness and exponent, a time-constant one its time
    constant (its law is linear), a Hertz one its Young's moduli and Poisson's ratios
    (both sides, or side a or b), and every one its restitution and friction; the slip
    speed is a velocity; an absent law is an unknown parameter naming the contact."""
    common = ["hit.restitution", "hit.friction", "hit.dynamic_friction", "hit.slip_speed"]
    names = {law: [n for n in parameter_names(ball_on_floor(R, MASS, HEIGHT, **kw))
                   if n.startswith("hit.")]
             for law, kw in (("stiffness", dict(stiffness=K)), ("tau", {}),
                             ("hertz", dict(young=(2e11, 7e10))))}
    assert set(names["stiffness"]) == set(common) | {"hit.stiffness", "hit.exponent"}
    assert set(names["tau"]) == set(common) | {"hit.time_constant"}
    assert set(names["hertz"]) == set(common) | {"hit.exponent"} | {
        f"hit.{f}{s}" for f in ("young", "poisson") for s in ("", ".a", ".b")}
    m = dropped_ball(0.5)
    assert quantity(m, "hit.slip_speed") == "velocity" and quantity(m, "hit.stiffness") == ""
    with pytest.raises(StudyError, match=r"contact 'hit' has no parameter 'time_constant'; "
                                         r"its parameters: restitution, stiffness"):
        Study(m, {"hit.time_constant": [0.01]})


def test_a_contacts_pairs_and_friction_are_set_as_add_contact_takes_them() -> None:
    """A variant is the contact re-added with the values: "young" sets both sides,
    "young.b" part B's only (a two-parameter study of the same value is refused);
    friction sets the dynamic coefficient too on a contact given one, not on one given
    both; the user's mechanism keeps its contact."""
    hertz = ball_on_floor(R, MASS, HEIGHT, young=(2e11, 7e10), poisson=(0.3, 0.33),
                          friction=0.4)
    c = Study(hertz, {"hit.young.b": [1e9], "hit.poisson": [0.25],
                      "hit.friction": [0.6]}).variant(0).contacts["hit"]
    assert (c.young, c.poisson, c.static, c.dynamic) == ((2e11, 1e9), (0.25, 0.25), 0.6, 0.6)
    assert Study(hertz, {"hit.young": [1e9]}).variant(0).contacts["hit"].young == (1e9, 1e9)
    assert hertz.contacts["hit"].young == (2e11, 7e10)
    with pytest.raises(StudyError, match="'hit.young' and 'hit.young.a' set the same value"):
        Study(hertz, {"hit.young": [1e9], "hit.young.a": [1e9]})
    two = ball_on_floor(R, MASS, HEIGHT, friction=0.5, dynamic_friction=0.3)
    c = Study(two, {"hit.friction": [0.6]}).variant(0).contacts["hit"]
    assert (c.static, c.dynamic) == (0.6, 0.3)
    c = Study(two, {"hit.dynamic_friction": [0.1]}).variant(0).contacts["hit"]
    assert (c.static, c.dynamic) == (0.5, 0.1)
