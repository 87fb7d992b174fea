"""The design study's lockstep dynamics (solver/study/lockstep.py) with events: each variant
runs the single run's own stages (analyses/dynamics/driver.py DynamicRun), its impacts and
rests at rigid stops its own, while the calls of the variants on the common path are made
together; every variant equals its separate run to the last bit."""
from __future__ import annotations

import numpy as np

from solver.study import Study, engine, grid
import solver.study.lockstep as lockstep

from mechanisms import benchmark_chain
from test_limits import door
from test_study_tracked import _spy_dynamics


def _groups(monkeypatch) -> list:
    """The lockstep runs' groups (their ``served`` counts), as they run."""
    groups = []
    real = lockstep._Group.run

    def run(self, *args):
        groups.append(self)
        return real(self, *args)
    monkeypatch.setattr(lockstep._Group, "run", run)
    return groups


def test_doors_onto_a_rigid_stop_run_together_with_their_own_impacts(monkeypatch):
    """A door pulled shut by its closer onto a rigid stop (test_limits.py ``door``), its
    restitution and mass varied: the explicit lockstep run takes every variant, each
    striking, rebounding and coming to rest at its own instants (e = 0: one impact, held
    from it; e = 0.5 and 0.8: rebounds, two to four in the 2 s), its steps, poses,
    velocities, stop torques and impacts equal to its separate run's to the last bit.  The
    variants' calls are made together while they swing (the most of them) and alone while
    they rest on the stop (other rows held)."""
    ran, groups = _spy_dynamics(monkeypatch), _groups(monkeypatch)
    study = Study(door(closer=20.0), grid({"stop.restitution": [0.0, 0.5, 0.8],
                                          "door.mass": [8.0, 12.0]}))
    res = study.run(duration=2.0, fps=30)
    assert ran == [(6, True)] and not res.failures
    impacts = []
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(2.0, 30)
        assert got.steps == alone.steps and len(got.impacts) == len(alone.impacts)
        assert np.array_equal(got._r, alone._r) and np.array_equal(got._p, alone._p)
        assert np.array_equal(got._w, alone._w)
        assert np.array_equal(got.limit("stop"), alone.limit("stop"))
        impacts.append(len(got.impacts))
    assert impacts[:2] == [1, 1] and min(impacts[2:]) > 1   # (mass varies fastest)
    served = groups[0].served
    assert served["together"] > 3 * served["alone"] > 0, served


def test_a_study_without_events_makes_every_call_together(monkeypatch):
    """A chain of five links, a link's mass varied: nothing takes a variant off the common
    path, so no call is made for one variant alone."""
    groups = _groups(monkeypatch)
    study = Study(benchmark_chain(5), grid({"link2.mass": [1.0, 1.5, 2.0]}))
    study.run(duration=0.5, fps=24)
    assert len(groups) == 1 and groups[0].served["alone"] == 0
    assert groups[0].served["together"] > 0
