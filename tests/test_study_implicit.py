"""Stiff variants of a design study in one lockstep Radau IIA run (solver/study/
batch.py ``batch_implicit``): each variant equal to its separate run (Mechanism.solve), with the
same steps, while the right-hand sides and the iteration matrices of all are stacked."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from solver.study import Study, grid
import solver.study.lockstep as batch
from solver.study import engine

from test_study_batch import _close, sprung_pendulum

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from bench_governor import governor  # noqa: E402


def _spy(monkeypatch, name: str) -> list:
    """[(variants, [ran in the batch, per variant] or None)] of every call of the engine's
    ``name`` (batch_implicit: the stiff group, or batch_dynamics: the explicit one)."""
    calls = []
    real = getattr(engine, name)

    def spy(models, *args, **kw):
        out = real(models, *args, **kw)
        calls.append((len(models), None if out is None else [o is not None for o in out]))
        return out
    monkeypatch.setattr(engine, name, spy)
    return calls


def _equal_to_separate_runs(study: Study, res, duration: float, fps: int, method: str = "auto",
                            rel: float = 0.0) -> list[str]:
    """Each variant's steps, method, positions, velocities, reactions and energies against
    its own solve (to the last bit by default); the methods."""
    methods = []
    for i in range(len(study)):
        alone = study.variant(i).solve(duration, fps, method=method)
        got = res.result(i)
        assert got.method == alone.method and got.steps == alone.steps, i
        for name in ("_r", "_w", "_reaction", "_energy"):
            assert _close(getattr(got, name), getattr(alone, name)) <= rel, (i, name)
        methods.append(alone.method)
    return methods


@pytest.mark.parametrize("mechanism, vary, duration", [
    (sprung_pendulum, {"strut.damping": [2000.0, 3000.0, 4000.0, 5000.0]}, 1.0),
    (governor, {"sleeve_spring.stiffness": [5e5, 2e6], "sleeve_spring.damping": [4e4, 6e4]}, 0.3),
])
def test_stiff_variants_run_together_and_equal_their_separate_runs(monkeypatch, mechanism, vary,
                                                                     duration):
    """Four stiff variants (a heavy damper on the sprung pendulum: c/m far above
    dynamics.STIFF_RATE; the flyball governor's sleeve spring and damper) in one lockstep
    Radau IIA run, which kept them all: each equals its separate run to 1e-10 relative,
    with the same steps (the pendulum's last second of long steps past the frames and the
    governor's rebuilt Jacobians and refactorizations included)."""
    calls = _spy(monkeypatch, "batch_implicit")
    study = Study(mechanism(), grid(vary))
    res = study.run(duration=duration, fps=24)
    assert not res.failures and calls == [(4, [True] * 4)]
    methods = _equal_to_separate_runs(study, res, duration, 24)
    assert all("Radau" in m for m in methods)


def test_a_mixed_study_runs_both_groups_in_lockstep(monkeypatch):
    """Two light dampers (explicit) and two heavy ones (implicit): the explicit pair in the
    explicit lockstep run, the stiff pair in the implicit one, every variant equal to its
    separate run."""
    stiff = _spy(monkeypatch, "batch_implicit")
    explicit = _spy(monkeypatch, "batch_dynamics")     # (the explicit group's own call)
    study = Study(sprung_pendulum(), grid({"strut.damping": [0.5, 3000.0, 2.0, 4500.0]}))
    res = study.run(duration=0.5, fps=24)
    assert not res.failures
    assert stiff == [(2, [True, True])] and explicit == [(2, [True, True])]
    methods = _equal_to_separate_runs(study, res, 0.5, 24)
    assert ["Radau" in m for m in methods] == [False, True, False, True]


def test_a_study_with_the_implicit_method_runs_all_together(monkeypatch):
    """method="implicit" given: every variant (none of them stiff) by Radau IIA, together,
    as their separate runs with that method."""
    calls = _spy(monkeypatch, "batch_implicit")
    study = Study(sprung_pendulum(), grid({"rod.mass": [1.0, 2.5], "coil.stiffness": [2.0, 6.0]}))
    res = study.run(duration=0.5, fps=24, method="implicit")
    assert calls == [(4, [True] * 4)]
    methods = _equal_to_separate_runs(study, res, 0.5, 24, method="implicit")
    assert all("Radau" in m for m in methods)


def test_a_stiff_variant_off_the_common_path_steps_alone_with_its_memory(monkeypatch):
    """A stiff variant off the common path (as one resting on a stop or passing a singular
    position is: here made so from its fourth request on) steps alone by its own Radau IIA,
    which takes the variant's memory of its steps (Jacobian, factorizations, Newton's rate,
    the last collocation polynomial) from the group's row: it stays in the lockstep run
    (before, it left and ran again alone from the start), and all four equal their
    separate runs to the last bit."""
    calls = _spy(monkeypatch, "batch_implicit")
    real = batch._Group._common
    seen = [0]

    def off_path(g, i):
        damping = [float(run.model.forces.sd_c[0]) for run in g.runs]
        if i == int(np.argmax(damping)):            # the heaviest damper's variant
            seen[0] += 1
            if seen[0] >= 4:
                return False
        return real(g, i)
    monkeypatch.setattr(batch._Group, "_common", off_path)
    study = Study(sprung_pendulum(), grid({"strut.damping": [2000.0, 5000.0, 3000.0, 4000.0]}))
    res = study.run(duration=0.5, fps=24)
    assert not res.failures and calls == [(4, [True, True, True, True])] and seen[0] > 4
    _equal_to_separate_runs(study, res, 0.5, 24)


def test_a_stiff_variant_alone_is_not_batched(monkeypatch):
    """One stiff variant among explicit ones: no implicit lockstep run of one (it runs
    alone), the explicit ones together."""
    calls = _spy(monkeypatch, "batch_implicit")
    explicit = _spy(monkeypatch, "batch_dynamics")
    study = Study(sprung_pendulum(), grid({"strut.damping": [0.5, 1.0, 3000.0]}))
    res = study.run(duration=0.25, fps=24)
    assert calls == [] and explicit == [(2, [True, True])]
    _equal_to_separate_runs(study, res, 0.25, 24)


def test_cancelling_the_stiff_group_keeps_the_explicit_groups_variants():
    """A mixed study (two light dampers in the explicit lockstep run, two heavy ones in the
    Radau IIA one) cancelled while the stiff group runs (progress returning False once it
    passes 3 variants' worth): SolverCancelled, with the explicit group's two variants,
    which progress had counted as done, handed back as finished and equal to their
    separate runs; the stiff ones not run."""
    from solver.base.errors import SolverCancelled
    study = Study(sprung_pendulum(), grid({"strut.damping": [0.5, 3000.0, 2.0, 4500.0]}))
    with pytest.raises(SolverCancelled) as stop:
        study.run(duration=0.5, fps=24, progress=lambda k, n: k < 3)
    part = stop.value.result
    assert sorted(part.failures) == [1, 3]
    assert all("not run" in why for why in part.failures.values())
    for i in (0, 2):
        alone = study.variant(i).solve(0.5, 24)
        assert _close(part.result(i)._r, alone._r) <= 1e-10


def test_stiff_variants_with_rigid_stops_run_together_each_its_own_impacts(monkeypatch):
    """A stiff strut (1.5e6 to 2.5e6 N/m: Radau IIA) pressing a pendulum onto a rigid stop
    of restitution 0.3 or 0.6: each variant strikes 7 to 17 times and comes to rest on the
    stop.  Its event's re-steps and its steps while resting are its own stepper's, which
    takes the variant's memory of its steps from the group's row and gives it back (before,
    stiff variants with rigid stops ran one by one): all six in one lockstep run, each
    equal to its separate run to the last bit."""
    import dataclasses
    calls = _spy(monkeypatch, "batch_implicit")
    m = sprung_pendulum()
    m.add_limit("stop", "pin", lower=0.35, restitution=0.5)
    m.springs["strut"] = dataclasses.replace(m.springs["strut"], stiffness=2e6, damping=2000.0)
    study = Study(m, grid({"strut.stiffness": [1.5e6, 2e6, 2.5e6],
                           "stop.restitution": [0.3, 0.6]}))
    res = study.run(duration=0.5, fps=24)
    assert not res.failures and calls == [(6, [True] * 6)]
    assert all(len(res.result(i).impacts) >= 5 for i in range(6))
    _equal_to_separate_runs(study, res, 0.5, 24)


@pytest.mark.slow
def test_stiff_variants_with_a_dry_pin_run_together_each_its_own_sticking(monkeypatch):
    """The pendulum on a stiff strut (1.5e5 and 2.5e5 N/m: Radau IIA) with a dry pin
    (static 0.3 or 0.5): each variant's slip reversals and sticking are its own, its stages
    evaluated with its own slip directions (repeated over the stages of the stacked call),
    its event's re-steps its own stepper's with its memory of its steps (before, stiff
    variants with friction ran one by one): all four in one lockstep run, each equal to its
    separate run to the last bit."""
    import dataclasses
    calls = _spy(monkeypatch, "batch_implicit")
    m = sprung_pendulum()
    m.springs["strut"] = dataclasses.replace(m.springs["strut"], stiffness=2e5, damping=300.0)
    m.add_friction("dry", "pin", static=0.3, dynamic=0.25, radius=0.02)
    study = Study(m, grid({"strut.stiffness": [1.5e5, 2.5e5], "dry.static": [0.3, 0.5]}))
    res = study.run(duration=0.3, fps=24)
    assert not res.failures and calls == [(4, [True] * 4)]
    assert all(len(res.result(i).friction_events) >= 3 for i in range(4))
    _equal_to_separate_runs(study, res, 0.3, 24)
