"""Design studies of mechanisms with joint friction in forward dynamics: the variants run
together in the lockstep run (study/lockstep.py), each with its own slip directions,
sticking and breaking loose, reversals and breakpoints of mu, and each variant's Result
equals its separate run to the last bit (the slipping elements' loads settle state by
state, each as it would alone: friction.py)."""
from __future__ import annotations

import math

import numpy as np

from mechanisms import G, incline, vertical_double_pendulum
from solver import Mechanism
from solver.study import Study, grid

from test_friction_load import _door_with_a_dry_hinge
from test_study_lockstep import _groups


def _same_runs(res, study, duration: float, fps: float, elements: tuple) -> None:
    """Each variant's steps, poses, velocities, reactions, friction elements' forces and
    events equal its own Mechanism.solve to the last bit."""
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(duration=duration, fps=fps)
        assert got.steps == alone.steps
        for name in ("_r", "_p", "_v", "_w", "_reaction"):
            assert np.array_equal(getattr(got, name), getattr(alone, name)), (i, name)
        for element in elements:
            assert np.array_equal(got.friction(element), alone.friction(element)), element
        assert got.friction_events == alone.friction_events


def test_doors_on_dry_hinges_run_together_each_its_own_sticking(monkeypatch) -> None:
    """The door_stop sample's door (a closer, a rigid stop, a dry hinge) with its static
    friction 0.2 to 0.8: each variant slips, strikes the stop and sticks at its own
    instants; the variants' calls are made together while they slip (a variant with its
    hinge stuck has its calls made alone, as one resting on its stop), every variant bit
    for bit its separate run, its friction's force included."""
    groups = _groups(monkeypatch)
    study = Study(_door_with_a_dry_hinge(), grid({"dry.static": [0.2, 0.4, 0.6, 0.8]}))
    res = study.run(duration=3.0, fps=24)
    assert not res.failures and len(groups) == 1
    served = groups[0].served
    assert served["together"] > 10 * served["alone"] > 0, served
    _same_runs(res, study, 3.0, 24, ("dry",))
    instants = {tuple(t for t, _, _ in res.result(i).friction_events) for i in range(len(study))}
    assert len(instants) == len(study)            # each variant's events at its own times


def _two_dry_pins() -> Mechanism:
    """A double pendulum of 1 m links in a vertical plane, both pins dry (mu 0.3 / 0.25,
    pin radius 2 cm): while both slip, their loads are coupled (friction.py
    ``_coupled_loads``)."""
    m = vertical_double_pendulum()
    for name, joint in (("f1", "p1"), ("f2", "p2")):
        m.add_friction(name, joint, static=0.3, dynamic=0.25, radius=0.02)
    return m


def test_two_coupled_dry_pins_run_together_bit_for_bit(monkeypatch) -> None:
    """A double pendulum with both pins dry, its second link's mass 0.5 to 2 kg: the two
    slipping elements' loads are solved together for every variant at once, each variant
    stopping its Newton where its own run does, so each equals its separate run to the
    last bit (before, the variants ran one by one)."""
    groups = _groups(monkeypatch)
    study = Study(_two_dry_pins(), grid({"b.mass": list(np.linspace(0.5, 2.0, 4))}))
    res = study.run(duration=2.0, fps=24)
    assert not res.failures and len(groups) == 1 and groups[0].served["together"] > 0
    _same_runs(res, study, 2.0, 24, ("f1", "f2"))


def test_a_one_coefficient_frictions_dynamic_coefficient_follows_its_static() -> None:
    """A block on a 30 degree incline whose slide's friction has one coefficient mu
    (add_friction(static=mu): the dynamic is mu too), mu 0.3 varied to 0.2, 0.3, 0.4: each
    variant is that friction added again with its mu, so the block slides at
    g (sin a - mu cos a) (Coulomb's law on a slope), and each equals the mechanism built by
    hand with static=mu to the last bit.  Before, the dynamic coefficient stayed 0.3: mu
    0.2 was refused ("the dynamic coefficient 0.3 exceeds the static 0.2") and mu 0.4 slid
    at the 0.3 rate."""
    def one_coefficient(mu: float) -> Mechanism:
        m = incline(30.0, mu, mu)
        del m.frictions["dry"]
        m.add_friction("dry", "slide", static=mu, transition_speed=1e-9)
        return m
    levels = [0.2, 0.3, 0.4]
    res = Study(one_coefficient(0.3), grid({"dry.static": levels})).run(duration=0.5, fps=24)
    assert not res.failures
    a = math.radians(30.0)
    for i, mu in enumerate(levels):
        got, alone = res.result(i), one_coefficient(mu).solve(duration=0.5, fps=24)
        for name in ("_r", "_p", "_v", "_w", "_reaction"):
            assert np.array_equal(getattr(got, name), getattr(alone, name)), (mu, name)
        # the slide from rest: s = g (sin a - mu cos a) t^2 / 2; 1e-6 of the 1 m scale is
        # the run's tolerance (the transition at 1e-9 m/s is left within the first step)
        s = np.linalg.norm(got.position("block") - got.position("block")[0], axis=1)
        expect = 0.5 * G * (math.sin(a) - mu * math.cos(a)) * got.times ** 2
        np.testing.assert_allclose(s, expect, atol=1e-6)
