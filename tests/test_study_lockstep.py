"""The design study's lockstep dynamics (solver/study/lockstep.py) with events: each variant
runs the single run's own stages (analyses/dynamics/driver.py DynamicRun), its impacts and
rests at rigid stops its own, while the calls of the variants on the common path are made
together; every variant equals its separate run to the last bit."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism
from solver.study import Study, engine, grid, latin_hypercube
import solver.study.due as due_rows
import solver.study.lockstep as lockstep

from mechanisms import benchmark_chain, four_bar
from solver.model.compile import compile_model
from test_study_batch import _close, sprung_pendulum
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


def test_a_part_whose_inertia_is_not_diagonal_equals_its_separate_runs(monkeypatch):
    """A four-bar swinging under gravity whose coupler's inertia has products of inertia
    in its part's axes (a bent link), at a loose tolerance (Dormand-Prince 5(4), whose
    separate run's projection takes the step's last stage's J M^-1 J^T as it is): the
    variants' projections, made afresh together, make M^-1 as the right-hand side does,
    so each variant equals its separate run to the last bit (before, in the last bits
    of the out-of-plane rounding)."""
    import dataclasses
    groups = _groups(monkeypatch)
    m = four_bar(driven=False, error_deg=0.0, error_m=0.0)
    m.gravity = np.array([0.0, -9.81, 0.0])
    bent = np.array([[0.02, 0.004, 0.001], [0.004, 0.09, 0.002], [0.001, 0.002, 0.1]])
    m.parts["coupler"] = dataclasses.replace(m.parts["coupler"], inertia=bent)
    study = Study(m, grid({"crank.mass": [0.5, 1.0, 2.0]}))
    res = study.run(duration=1.0, fps=24, tolerance=1e-3)
    assert len(groups) == 1 and groups[0].served["alone"] == 0
    for i in range(3):
        got, alone = res.result(i), study.variant(i).solve(1.0, 24, tolerance=1e-3)
        assert "5(4)" in alone.method and got.steps == alone.steps
        for name in ("_r", "_p", "_v", "_w", "_reaction"):
            assert np.array_equal(getattr(got, name), getattr(alone, name)), name


def test_long_runs_keep_a_bounded_buffer_of_frames(monkeypatch):
    """Each variant of the lockstep run hands its output frames to its Result a buffer at a
    time (model/frame_buffer.py: a long run's Jacobians are not all kept), the variants'
    buffers sharing lockstep.FRAME_BYTES: with room for two of the thirteen frames per
    variant (seven buffers each), the Results are the same as with room for all."""
    import solver.study.lockstep as lockstep
    from solver.model.frame_buffer import FRAME, FrameBuffer
    got, sizes = [], []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda *a, **kw: got.append(real(*a, **kw)) or got[-1])
    study = Study(sprung_pendulum(), grid({"rod.mass": [1.0, 2.0, 3.0]}))
    whole = study.run(duration=0.5, fps=24)
    model = compile_model(study.variant(0))
    per = 8 * (1 + FRAME * model.nb + model.nc * (1 + model.row_width) + model.ntrack + 3)
    monkeypatch.setattr(lockstep, "FRAME_BYTES", 3 * (2 * per + per // 2))
    init = FrameBuffer.__init__

    def spy(self, *args):
        init(self, *args)
        sizes.append(len(self.t))
    monkeypatch.setattr(FrameBuffer, "__init__", spy)
    parts = study.run(duration=0.5, fps=24)
    assert len(got) == 2 and all(r is not None for run in got for r in run)
    assert sizes[-3:] == [2, 2, 2]
    for i in range(3):
        assert np.array_equal(parts.result(i)._r, whole.result(i)._r)
        assert np.array_equal(parts.result(i)._reaction, whole.result(i)._reaction)
        assert np.array_equal(parts.result(i)._energy, whole.result(i)._energy)


def test_a_variant_passes_a_singular_position_inside_the_lockstep_run(monkeypatch):
    """When a rejected step finds a variant at a singular position (made to happen here
    for variant 1 at its rejected steps), that variant passes it by least-norm solves on
    its own equations, as its separate run does, while the others go on together; every
    variant finishes in the lockstep run and equals its separate run."""
    import solver.analyses.dynamics.driver as driver
    import solver.analyses.dynamics.inside as inside
    got = []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda *a, **kw: got.append(real(*a, **kw)) or got[-1])
    study = Study(benchmark_chain(5), grid({"link2.mass": [1.0, 1.5, 2.0]}))
    marked = compile_model(study.variant(1)).body_mass.copy()
    calls = []

    def singular(model, st, r, p, *ahead):
        calls.append(1)
        return ("pin",) if np.array_equal(model.body_mass, marked) else ()
    monkeypatch.setattr(driver, "free_singular", singular)
    monkeypatch.setattr(inside, "SINGULAR_STEP", 1e9)      # every rejected step asks
    times = np.arange(48) / 24.0
    res = study.run(times=times)
    assert calls and len(got) == 1 and [r is None for r in got[0]] == [False, False, False]
    assert not res.failures
    assert [bool(res.result(i).notes) for i in range(3)] == [False, True, False]
    for i in range(3):
        alone = study.variant(i).solve(times=times)
        assert res.result(i).steps == alone.steps
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
        assert _close(res.result(i)._energy, alone._energy) <= 1e-9


def _stages_entered(monkeypatch) -> list:
    """The single run's steps taken by its own stages (DynamicRun.step), as they start."""
    import solver.analyses.dynamics.driver as driver
    entered = []
    real = driver.DynamicRun.step

    def step(self, *args):
        entered.append(self)
        return (yield from real(self, *args))
    monkeypatch.setattr(driver.DynamicRun, "step", step)
    return entered


@pytest.mark.parametrize("tolerance", [1e-6, 1e-3])
def test_variants_without_events_step_as_lanes_with_their_separate_runs_bits(
        monkeypatch, tolerance):
    """Chains of five links, every mass varied, by Dormand-Prince 8(5,3) and (loose) 5(4),
    whose first stage is the step before's last: nothing takes a variant off the common
    path, so every step of every variant is taken as a lane (study/lanes.py: accepted,
    rejected and sized over the variant axis, frames stored together), none by the single
    run's own stages; each variant still equals its separate run to the last bit."""
    study = Study(benchmark_chain(5), latin_hypercube({f"link{k}.mass": (0.8, 1.2)
                                                       for k in range(5)}, 4, seed=2))
    alone = [study.variant(i).solve(1.0, 24, tolerance=tolerance) for i in range(4)]
    entered = _stages_entered(monkeypatch)
    res = study.run(duration=1.0, fps=24, tolerance=tolerance)
    assert not res.failures and entered == []
    for i, want in enumerate(alone):
        got = res.result(i)
        assert got.steps == want.steps and got.method == want.method
        for name in ("_r", "_p", "_v", "_w", "_a", "_reaction", "_energy"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name


def damped_pendulum() -> Mechanism:
    """A rod hinged to the ground, on a damped spring to a ground point: it settles, its
    steps outgrow the frames, then it rests."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("rod", mass=2.0, inertia=(0.01, 0.1, 0.1), center_of_mass=(0.4, 0.0, 0.0))
    m.add_marker("O", "ground")
    m.add_marker("A", "ground", position=(0.5, 0.6, 0.0))
    m.add_marker("hinge", "rod")
    m.add_marker("tip", "rod", position=(0.8, 0.0, 0.0))
    m.add_joint("pin", "revolute", "hinge", "O")
    m.add_spring_damper("strut", "tip", "A", stiffness=30.0, damping=3.0, free_length=0.5)
    return m


def test_lanes_whose_steps_outgrow_the_frames_go_on_by_their_own_stages(monkeypatch):
    """Damped pendulums that settle: each steps as a lane until its steps would run past
    the frames, then goes on by its own run's stages from that step's start (long steps,
    their rate estimates, the held pose at rest); each equals its separate run, its steps
    and the frame it rests from too: its poses to the last bit, and as the lockstep run's
    long steps always did, its velocities, reactions and energies within rounding (the
    frames inside a long step are projected as one stack of frames, whose Newton may part
    from the separate run's in the last bits)."""
    study = Study(damped_pendulum(), grid({"rod.mass": [1.0, 3.0], "strut.damping": [0.5, 3.0]}))
    alone = [study.variant(i).solve(10.0, 24) for i in range(4)]
    entered = _stages_entered(monkeypatch)
    res = study.run(duration=10.0, fps=24)
    assert not res.failures and entered
    for i, want in enumerate(alone):
        got = res.result(i)
        assert got.steps == want.steps and got.rest_from == want.rest_from
        assert np.array_equal(got._r, want._r) and np.array_equal(got._p, want._p)
        for name in ("_v", "_w", "_reaction", "_energy"):
            assert _close(getattr(got, name), getattr(want, name)) <= 1e-9, name
    assert any(r.rest_from is not None for r in alone)


def test_a_study_without_force_elements_makes_each_variants_equations_once(monkeypatch):
    """Choosing each variant's method (analyses/dynamics/driver.py ``choose_method``) looks
    at the equations only where force elements might make it stiff: chains under gravity
    alone make one Equations per variant (its run's) and one for the stacked models."""
    from solver.analyses.dynamics.equations import Equations
    made = []
    init = Equations.__init__

    def spy(self, *args, **kw):
        made.append(1)
        init(self, *args, **kw)
    monkeypatch.setattr(Equations, "__init__", spy)
    study = Study(benchmark_chain(3), grid({"link1.mass": [1.0, 1.5, 2.0]}))
    study.run(duration=0.2, fps=24)
    assert len(made) == 3 + 1


def test_lanes_that_come_to_rest_hold_their_pose_as_their_separate_runs(monkeypatch):
    """Damped pendulums kept to steps within the frames (no long steps: LONG_STEP made
    infinite, in the study and in the separate runs alike) settle as lanes and hold their
    pose from the frame each comes to rest, as its separate run does: the same frame, and
    every frame before and after the same to the last bit."""
    monkeypatch.setattr("solver.analyses.dynamics.driver.LONG_STEP", float("inf"))
    study = Study(damped_pendulum(), grid({"rod.mass": [1.0, 3.0], "strut.damping": [6.0, 12.0]}))
    times = np.arange(480) / 24.0                  # (at rest from frames 89 to 315)
    alone = [study.variant(i).solve(times=times) for i in range(4)]
    entered = _stages_entered(monkeypatch)
    res = study.run(times=times)
    assert not res.failures and entered == []
    for i, want in enumerate(alone):
        got = res.result(i)
        assert want.rest_from is not None and got.rest_from == want.rest_from
        assert got.steps == want.steps
        for name in ("_r", "_p", "_v", "_w", "_reaction", "_energy"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_handwheels_onto_stops_ten_radians_out_run_together_with_their_impacts(monkeypatch):
    """A wheel spinning at 5 rad/s between rigid stops at -10 and +10 rad (a range wider
    than a turn; tests/test_limit_turns.py), its upper stop at 8 and 10 rad and its
    restitution 0.5 and 0.8 varied: the explicit lockstep run takes every variant, each
    carrying its own turns and striking at 10 / 5 or 8 / 5 s, its steps, poses, velocities
    and impacts equal to its separate run's to the last bit."""
    from test_limit_turns import handwheel
    ran = _spy_dynamics(monkeypatch)
    study = Study(handwheel(5.0, lower=-10.0, upper=10.0),
                  grid({"stop.upper": [8.0, 10.0], "stop.restitution": [0.5, 0.8]}))
    res = study.run(duration=2.5, fps=20)
    assert ran == [(4, True)] and not res.failures
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(2.5, 20)
        assert got.steps == alone.steps
        assert np.array_equal(got._p, alone._p) and np.array_equal(got._w, alone._w)
        assert [h.time for h in got.impacts] == [h.time for h in alone.impacts]
        upper = study.variant(i).limits["stop"].upper
        assert got.impacts[0].time == pytest.approx(upper / 5.0, abs=1e-9)


def test_lanes_projections_take_the_last_stages_matrices(monkeypatch):
    """A lane's accepted step ends where the step's last stage (Dormand-Prince 5(4), first
    same as last) evaluated every variant's rows and J M^-1 J^T: the projection takes them
    for its first Newton iteration, as a separate run's projection does (the same bits,
    test_variants_without_events_step_as_lanes_with_their_separate_runs_bits), and makes
    J M^-1 J^T anew only for a second iteration (before: at every projection)."""
    import solver.analyses.dynamics.projection as projection
    made, calls = [], []
    real_matrices, real_many = projection.matrices, projection.project_many

    def matrices(*args):
        made.append(1)
        return real_matrices(*args)

    def project_many(*args, **kw):
        calls.append(1)
        return real_many(*args, **kw)
    monkeypatch.setattr(projection, "matrices", matrices)
    monkeypatch.setattr(projection, "project_many", project_many)
    study = Study(benchmark_chain(5), latin_hypercube({f"link{k}.mass": (0.8, 1.2)
                                                       for k in range(5)}, 4, seed=2))
    study.run(duration=0.5, fps=24, tolerance=1e-3)
    assert len(calls) > 10 and len(made) < len(calls) / 2, (len(made), len(calls))


def test_a_frame_call_evaluates_the_variants_due_alone(monkeypatch):
    """Chains of five links, every mass varied, by Dormand-Prince 5(4): the lanes reach
    their frames at different rounds, so most of the lockstep run's frame calls have some
    variants due (a frame, or a first stage) and others not.  Each such call evaluates the
    due variants' rows alone (Equations.variants: a sub-stack of them), not every
    variant's; each variant still equals its separate run to the last bit."""
    from solver.analyses.dynamics.equations import Equations
    monkeypatch.setattr(due_rows, "IDLE_MIN", 1)    # (a sub-stack for one idle row)
    due, rows = [], []
    real_frame, real_parts = lockstep._Group._frame, Equations.rhs_parts

    def frame(self, who, asks, lanes):
        due.append(len(who) + len(lanes))
        rows.append(None)
        return real_frame(self, who, asks, lanes)

    def rhs_parts(self, t, y, report=True):
        if rows and rows[-1] is None:         # the frame call's evaluation: its rows
            rows[-1] = len(y)
        return real_parts(self, t, y, report)
    V, study, alone = _masses_study()
    monkeypatch.setattr(lockstep._Group, "_frame", frame)
    monkeypatch.setattr(Equations, "rhs_parts", rhs_parts)
    res = study.run(duration=1.0, fps=24, tolerance=1e-3)
    assert not res.failures
    some = [k for k in due if k < V]
    assert len(some) > len(due) / 2, due      # (most calls: some variants due, not all)
    assert rows == due, (rows, due)
    _equal_to_their_runs(res, alone)


def test_steps_near_the_end_take_the_variants_still_running_alone(monkeypatch):
    """Chains of five links, every mass varied, by Dormand-Prince 5(4): the lanes take
    their last steps at different rounds, so near the run's end some have finished while
    others step.  Those steps evaluate the rows of the lanes stepping alone (every stage
    of them), and their projections take the same rows (due.py); each variant still
    equals its separate run to the last bit, its steps too."""
    from solver.analyses.dynamics.equations import Equations
    monkeypatch.setattr(due_rows, "IDLE_MIN", 1)    # (a sub-stack for one idle row)
    due, rows = [], []
    real_step, real_rhs = lockstep._Group._step, Equations.rhs

    def step(self, who, asks, lanes):
        due.append(len(who) + len(lanes))
        rows.append(set())
        out = real_step(self, who, asks, lanes)
        rows[-1] = sorted(rows[-1])
        return out

    def rhs(self, t, y):
        if rows and isinstance(rows[-1], set):      # a step's stages: their rows
            rows[-1].add(len(y))
        return real_rhs(self, t, y)
    V, study, alone = _masses_study()
    monkeypatch.setattr(lockstep._Group, "_step", step)
    monkeypatch.setattr(Equations, "rhs", rhs)
    res = study.run(duration=1.0, fps=24, tolerance=1e-3)
    assert not res.failures and min(due) < V, due
    assert rows == [[k] for k in due], (rows, due)
    _equal_to_their_runs(res, alone)


def _masses_study(V: int = 6):
    """(V, a study of V chains of five links, every mass varied by 20%, each variant's
    separate run at tolerance 1e-3 over 1 s at 24 fps)."""
    study = Study(benchmark_chain(5), latin_hypercube({f"link{k}.mass": (0.8, 1.2)
                                                       for k in range(5)}, V, seed=2))
    return V, study, [study.variant(i).solve(1.0, 24, tolerance=1e-3) for i in range(V)]


def _equal_to_their_runs(res, alone) -> None:
    """Each variant of the study's result ``res`` took its separate run's steps and equals
    it to the last bit."""
    for i, want in enumerate(alone):
        got = res.result(i)
        assert got.steps == want.steps
        for name in ("_r", "_p", "_v", "_w", "_a", "_lam", "_reaction", "_energy"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
