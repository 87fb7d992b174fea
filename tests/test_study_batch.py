"""The design study's lockstep dynamics (solver/study/lockstep.py): many variants of one
mechanism as one run with a variant axis in every array, each variant with its own step
control, equal to its separate run."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism
from solver.study import Study, grid, latin_hypercube
from solver.study import engine
from solver.study.lockstep import batch_dynamics
from solver.study.stack import stack_models
from solver.model.compile import compile_model

from mechanisms import benchmark_chain, driven_wheel, four_bar, rod_inertia, slider_crank


def sprung_pendulum() -> Mechanism:
    """A rod hinged to the ground by a revolute joint, held by a torsion spring and a
    spring-damper to a ground point, released at rest off its equilibrium: a regular,
    damped motion (not chaotic), so a variant's separate run and its lockstep run differ
    only by rounding."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("rod", mass=2.0, inertia=rod_inertia(2.0, 0.8), center_of_mass=(0.4, 0.0, 0.0),
               orientation=(np.cos(0.3), 0.0, 0.0, np.sin(0.3)))
    m.add_marker("O", "ground")
    m.add_marker("A", "ground", position=(0.5, 0.6, 0.0))
    m.add_marker("hinge", "rod")
    m.add_marker("tip", "rod", position=(0.8, 0.0, 0.0))
    m.add_joint("pin", "revolute", "hinge", "O")
    m.add_torsion_spring("coil", "pin", stiffness=4.0, damping=0.2)
    m.add_spring_damper("strut", "tip", "A", stiffness=30.0, damping=0.5, free_length=0.5)
    return m


VARY = {"rod.mass": [1.0, 2.5], "tip.position.x": [0.7, 0.9], "strut.stiffness": [20.0, 45.0],
        "gravity.y": [-9.81, -3.7]}


def _close(a: np.ndarray, b: np.ndarray, rel: float = 1e-10) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def _spy_batches(monkeypatch) -> list:
    """[(variants, ran together)] of every batch_dynamics call of the studies that follow."""
    calls = []
    real = engine.batch_dynamics

    def spy(models, *args, **kw):
        out = real(models, *args, **kw)
        calls.append((len(models), out is not None))
        return out
    monkeypatch.setattr(engine, "batch_dynamics", spy)
    return calls


@pytest.mark.parametrize("tolerance, stepper", [(1e-6, "8(5,3)"), (1e-3, "5(4)")])
@pytest.mark.slow
def test_every_variant_equals_its_separate_run(monkeypatch, tolerance, stepper):
    """Sixteen variants (mass, a marker point, a spring rate, gravity) in one lockstep run,
    at the default tolerance (Dormand-Prince 8(5,3)) and a loose one (5(4), whose first
    stage is each variant's last stage of its step before): each variant's steps,
    positions, reactions and energies equal its own Mechanism.solve to the last bit."""
    calls = _spy_batches(monkeypatch)
    study = Study(sprung_pendulum(), grid(VARY))
    res = study.run(duration=1.0, fps=24, tolerance=tolerance)
    assert not res.failures and calls == [(16, True)]
    for i in range(len(study)):
        alone = study.variant(i).solve(1.0, 24, tolerance=tolerance)
        assert stepper in alone.method and res.result(i).method == alone.method
        got = res.result(i)
        assert got.steps == alone.steps
        for name in ("_r", "_p", "_v", "_w", "_reaction", "_energy"):
            assert np.array_equal(getattr(got, name), getattr(alone, name)), name


@pytest.mark.slow
def test_a_chaotic_chain_in_lockstep_equals_its_separate_runs_bit_for_bit():
    """Six chains of 5 spherical joints (every mass varied) over 2 s, where any two
    roundings part visibly: the lockstep run equals each variant's separate run to the last
    bit (its projections, Newton on all variants at once, normalize the quaternions as the
    separate run's do; before, 5e-13 m after 2 s on the chain of 10)."""
    study = Study(benchmark_chain(5), latin_hypercube({f"link{k}.mass": (0.8, 1.2)
                                                       for k in range(5)}, 6, seed=3))
    res = study.run(duration=2.0, fps=24)
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(2.0, 24)
        assert got.steps == alone.steps
        assert np.array_equal(got._r, alone._r) and np.array_equal(got._reaction, alone._reaction)


def test_the_lockstep_run_is_what_ran(monkeypatch):
    """The study's dynamics went through batch_dynamics once, for all variants, and it
    did not hand them back."""
    calls = _spy_batches(monkeypatch)
    Study(sprung_pendulum(), latin_hypercube({"rod.mass": (1.0, 3.0), "coil.stiffness": (1.0, 8.0)},
                                              6, seed=3)).run(duration=0.5, fps=24)
    assert calls == [(6, True)]


def test_stacked_model_carries_only_the_numbers_that_differ():
    """stack_models gives the varied numbers a leading variant axis and keeps the rest as
    they are; a different topology (a limit added) is refused."""
    study = Study(sprung_pendulum(), grid({"rod.mass": [1.0, 2.0, 3.0]}))
    models = [compile_model(study.variant(i)) for i in range(3)]
    s = stack_models(models)
    assert s.body_mass.shape == (3, 1) and s.body_inverse_mass.shape == (3, 2, 6, 6)
    assert s.body_inertia.shape == (1, 3, 3)          # not varied: shared
    assert s.forces.sd_k.shape == (1,)
    other = study.variant(0)
    other.add_limit("stop", "pin", lower=-1.0, upper=1.0)
    assert stack_models(models[:2] + [compile_model(other)]) is None


def test_a_failing_variant_is_isolated_and_the_rest_run_together(monkeypatch):
    """An unpowered four-bar falling under gravity: a variant whose coupler is too long to
    close the loop fails at assembly, by index and with its reason; the other three still
    run in one lockstep run (with the loop's redundant rows set aside) and equal their
    separate runs."""
    sizes = []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda models, *a, **k: sizes.append(len(models)) or real(models, *a, **k))
    m = four_bar(driven=False, error_deg=0.0, error_m=0.0)
    m.gravity = (0.0, -9.81, 0.0)
    study = Study(m, {"coupler_B.position.x": [0.95, 1.0, 3.0, 1.05]})
    res = study.run(duration=0.5, fps=24)
    assert sizes == [3]
    assert list(res.failures) == [2] and "assembl" in res.failures[2].lower()
    for i in (0, 1, 3):
        alone = study.variant(i).solve(0.5, 24)
        assert _close(res.result(i)._r, alone._r) <= 1e-10
        assert _close(res.result(i)._reaction, alone._reaction) <= 1e-9


def test_batch_dynamics_returns_none_for_the_implicit_method():
    study = Study(sprung_pendulum(), grid({"rod.mass": [1.0, 2.0]}))
    models = [compile_model(study.variant(i)) for i in range(2)]
    assert batch_dynamics(models, None, [], np.zeros(1), 1e-6, "implicit") is None


# ---------------------------------------------------------------- kinematic sweeps
def test_swept_variants_run_as_one_and_equal_their_sweeps(monkeypatch):
    """A slider-crank (revolute, spherical, universal, prismatic) over a grid of crank
    radius and rod length: one batched sweep in blocks of (variants, frames), each
    variant's poses, reactions, efforts and energies equal to its own sweep (both solve
    the same equations to Newton's tolerance, 1e-12 of the size)."""
    ran = []
    real = engine._sweeps
    monkeypatch.setattr(engine, "_sweeps",
                        lambda models, *a: ran.append(len(models)) or real(models, *a))
    study = Study(slider_crank(variant="RSUP"), grid({"crank_A.position.x": [0.08, 0.1, 0.12],
                                                      "rod_B.position.x": [0.25, 0.35]}))
    res = study.run(duration=1.0, fps=60)
    assert ran == [6] and not res.failures
    for i in range(len(study)):
        alone = study.variant(i).solve(1.0, 60)
        got = res.result(i)
        assert np.abs(got._r - alone._r).max() <= 1e-10
        assert _close(got._reaction, alone._reaction) <= 1e-9
        assert _close(got.effort("drive"), alone.effort("drive")) <= 1e-9
        assert _close(got._energy, alone._energy) <= 1e-9


@pytest.mark.parametrize("press", [False, True])
def test_a_variant_that_locks_up_leaves_the_batched_sweep_and_the_others_go_on(monkeypatch,
                                                                               press):
    """Rods shorter than the crank: those variants' sliders cannot follow a full turn.  At
    the frame one cannot solve, it leaves the batched sweep, which goes on with the others;
    it is then swept alone, its lock-up its failure with its time, and every other variant
    (all still batched) equals its own sweep.  With a force element (a press on the slider)
    too: the force elements' run state follows the variants that stay (once an IndexError
    that sent the whole batch one by one)."""
    got = []
    real = engine._sweeps
    monkeypatch.setattr(engine, "_sweeps",
                        lambda *a: got.append(real(*a)) or got[-1])
    m = slider_crank(variant="RRLP", r=0.1, l=0.3)
    if press:
        m.add_force("press", "slider_B", force=("-P*sin(2*pi*t)", "0", "0"), constants={"P": 1.0})
    study = Study(m, [{"rod_B.position.x": 0.3}, {"rod_B.position.x": 0.08},
                      {"rod_B.position.x": 0.25}, {"rod_B.position.x": 0.06}])
    res = study.run(duration=1.0, fps=24)
    assert sorted(res.failures) == [1, 3] and not res.notes
    for i in (1, 3):
        assert "lock-up" in res.failures[i] and "t = " in res.failures[i]
    assert len(got) == 1 and [r is None for r in got[0]] == [False, True, False, True]
    for i in (0, 2):
        alone = study.variant(i).solve(1.0, 24)
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-10
        assert _close(res.result(i)._reaction, alone._reaction) <= 1e-9


def test_a_variant_whose_motion_ends_leaves_the_batched_sweep_there(monkeypatch):
    """A wheel turned by 2 sqrt(T - t), T varied: at T = 0.5 s the motion has no rate at
    frame 12 (t = 0.5 s), so that variant leaves the batched sweep there with its own
    sweep's message naming the time, and the others go on batched, each equal to its own
    sweep."""
    got = []
    real = engine._sweeps
    monkeypatch.setattr(engine, "_sweeps", lambda *a: got.append(real(*a)) or got[-1])
    study = Study(driven_wheel("2*sqrt(T - t)", {"T": 2.0}),
                  [{"spin.T": 2.0}, {"spin.T": 0.5}, {"spin.T": 3.0}])
    res = study.run(duration=1.0, fps=24)
    assert len(got) == 1 and [r is None for r in got[0]] == [False, True, False]
    assert sorted(res.failures) == [1] and "at t=0.5" in res.failures[1]
    with pytest.raises(Exception) as alone:
        study.variant(1).solve(1.0, 24)
    assert str(alone.value) in res.failures[1]
    for i in (0, 2):
        alone = study.variant(i).solve(1.0, 24)
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
        assert _close(res.result(i).effort("spin"), alone.effort("spin")) <= 1e-10


def test_redundant_rows_are_swept_as_one_with_their_least_norm_multipliers(monkeypatch):
    """A planar loop of revolutes has redundant rows: the batched sweep solves on the kept
    rows and gives the joints the least-norm multipliers with the same constraint forces,
    as the single sweep does; each variant equals its own sweep, reactions too."""
    got = []
    real = engine._sweeps
    monkeypatch.setattr(engine, "_sweeps", lambda *a: got.append(real(*a)) or got[-1])
    study = Study(slider_crank(variant="RRRP"), grid({"crank_A.position.x": [0.09, 0.11],
                                                      "slider.mass": [0.5, 2.0]}))
    res = study.run(duration=0.5, fps=24)
    assert len(got) == 1 and got[0] is not None and all(r is not None for r in got[0])
    for i in range(4):
        alone = study.variant(i).solve(0.5, 24)
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-10
        assert _close(res.result(i)._reaction, alone._reaction) <= 1e-9
        assert _close(res.result(i).effort("drive"), alone.effort("drive")) <= 1e-9


@pytest.mark.parametrize("kind", ["dynamic", "kinematic"])
def test_progress_while_variants_run_together_and_cancel(kind):
    """A study run as one (lockstep dynamics, a batched sweep) still reports progress as it
    goes, in variants' worth, rising to all of them; returning False stops it in the
    middle: SolverCancelled, no variant finished, each marked as not run."""
    from solver.base.errors import SolverCancelled
    if kind == "dynamic":
        study = Study(sprung_pendulum(), grid({"rod.mass": [1.0, 1.5, 2.0, 2.5]}))
    else:
        study = Study(slider_crank(variant="RSUP"), grid({"crank_A.position.x": [0.08, 0.09, 0.1, 0.11]}))
    seen = []
    study.run(duration=1.0, fps=24, progress=lambda k, n: seen.append((k, n)))
    assert len(seen) > 2 and seen[-1] == (4, 4) and all(n == 4 for _, n in seen)
    assert [k for k, _ in seen] == sorted(k for k, _ in seen) and seen[0][0] < 4
    calls = []
    with pytest.raises(SolverCancelled) as stop:
        study.run(duration=1.0, fps=24, progress=lambda k, n: calls.append(k) or len(calls) < 2)
    part = stop.value.result
    assert len(calls) == 2 and len(part.failures) == 4
    assert all("not run" in why for why in part.failures.values())


def test_an_error_inside_a_batch_becomes_each_variants_own_failure():
    """A motion undefined after t = 0.5 s (sqrt of a negative number): the batched sweep
    meets it, hands the variants back, and each variant's own sweep reports it with the time
    and the frames before it; the study itself does not fail."""
    m = slider_crank(variant="RSUP", drive="2*pi*t + sqrt(0.5 - t)")
    study = Study(m, grid({"crank_A.position.x": [0.09, 0.11]}))
    res = study.run(duration=1.0, fps=24)
    assert sorted(res.failures) == [0, 1]
    alone = None
    try:
        study.variant(0).solve(1.0, 24)
    except Exception as exc:        # the same error as the variant's separate run
        alone = f"{type(exc).__name__}: {exc}"
    assert res.failures[0] == alone and "sqrt" in alone


@pytest.mark.slow
def test_a_failure_inside_the_lockstep_run_becomes_each_variants_own_failure(monkeypatch):
    """A double pendulum whose upper joint follows a motion undefined after t = 0.3 s
    (sqrt of a negative number): the lockstep run meets it mid-run, its steps collapse,
    it hands the variants back, and each variant's own run reports the failure with its
    time; the study does not fail.  An exception inside the lockstep run is handed back
    the same way (solve_batch)."""
    from mechanisms import chain
    calls = []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
    m = chain([0.0, 0.3], kind="revolute", axis="y")
    m.add_motion("swing", "joint0", "0.5*t - sqrt(0.3 - t)")
    study = Study(m, grid({"link1.mass": [0.5, 1.0]}))
    res = study.run(duration=0.5, fps=24)
    assert len(calls) == 1 and calls[0] == [None, None] and sorted(res.failures) == [0, 1]
    try:
        study.variant(1).solve(0.5, 24)
    except Exception as exc:
        alone = f"{type(exc).__name__}: {exc}"
    assert res.failures[1] == alone and "t = 0.3 s" in alone

    def boom(*a, **k):
        raise ValueError("a failure the lockstep run did not foresee")
    monkeypatch.setattr(engine, "batch_dynamics", boom)
    again = Study(chain([0.0, 0.3], kind="revolute", axis="y"), grid({"link1.mass": [0.5, 1.0]}))
    out = again.run(duration=0.2, fps=24)
    assert not out.failures
    assert np.array_equal(out.result(0)._r, again.variant(0).solve(0.2, 24)._r)
    # ... and, a defect of the lockstep run rather than the mechanism's, it is said: a
    # fallback that is only slower would otherwise go unseen (the first study: no note)
    assert not res.notes
    assert len(out.notes) == 1 and "ValueError: a failure the lockstep run did not foresee" \
        in out.notes[0] and "ran one by one" in out.notes[0]


@pytest.mark.parametrize("tolerance", [1e-6, 1e-3])
@pytest.mark.slow
def test_long_steps_and_the_held_pose_inside_the_lockstep_run(monkeypatch, tolerance):
    """Runs whose steps outgrow the frames step past them (dense output, analyses/dynamics/driver.py
    LONG_STEP, within the explicit method's stability: the equations' fastest rate by
    power iteration), and one that comes to rest holds its pose: all inside the lockstep
    run, each variant with its own long steps, rate estimates and held frames, by
    Dormand-Prince 8(5,3) and, at a loose tolerance, 5(4).  Each variant equals its
    separate run, its step count and the frame it rests from too."""
    got = []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda *a, **kw: got.append(real(*a, **kw)) or got[-1])
    study = Study(sprung_pendulum(), grid({"coil.damping": [0.0, 0.05, 4.0],
                                           "strut.damping": [0.0]}))
    times = np.arange(240) / 24.0
    res = study.run(times=times, tolerance=tolerance)
    assert not res.failures
    assert len(got) == 1 and got[0] is not None and all(r is not None for r in got[0])
    for i in range(3):
        alone = study.variant(i).solve(times=times, tolerance=tolerance)
        assert res.result(i).steps == alone.steps
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
        assert _close(res.result(i)._reaction, alone._reaction) <= 1e-9
        assert _close(res.result(i)._energy, alone._energy) <= 1e-9
        assert res.result(i).rest_from == alone.rest_from
    assert res.result(2).rest_from is not None and res.result(0).rest_from is None
    assert res.result(2).steps < res.result(2).rest_from       # long steps: fewer than frames


@pytest.mark.slow
def test_a_closed_loop_in_motion_stays_in_the_lockstep_run_at_many_frames(monkeypatch):
    """A four-bar swinging under gravity at 240 fps: its steps would outgrow the frames,
    but a separate run of a closed loop in motion keeps every frame a step's end (long
    steps only for open trees, or a loop at rest), so its variants stay in the lockstep
    run (before, each left it) and still equal their separate runs exactly."""
    got = []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda *a, **kw: got.append(real(*a, **kw)) or got[-1])
    m = four_bar(driven=False, error_deg=0.0, error_m=0.0)
    m.gravity = np.array([0.0, -9.81, 0.0])
    study = Study(m, grid({"crank.mass": [0.5, 1.0, 2.0]}))
    res = study.run(duration=0.5, fps=240)
    assert len(got) == 1 and got[0] is not None and all(r is not None for r in got[0])
    for i in range(3):
        alone = study.variant(i).solve(0.5, 240)
        assert res.result(i).steps == alone.steps
        assert np.array_equal(res.result(i)._r, alone._r)


def test_frames_that_converge_slowly_iterate_alone_and_equal_their_sweeps(monkeypatch):
    """A rod barely longer than the crank passes near a dead centre, where Newton converges
    slowly: once few frames of a block still iterate, only those go on (as variants of
    their own, study/stack.py take_variants), and every variant still equals its own sweep."""
    sizes = []
    real = engine.take_variants
    monkeypatch.setattr(engine, "take_variants", lambda *a: sizes.append(len(a[2])) or real(*a))
    study = Study(slider_crank(variant="RRLP", r=0.1, l=0.3),
                  [{"rod_B.position.x": 0.3}, {"rod_B.position.x": 0.101},
                   {"rod_B.position.x": 0.2}])
    res = study.run(duration=1.0, fps=24)
    assert not res.failures and sizes
    for i in range(3):
        alone = study.variant(i).solve(1.0, 24)
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-10
        assert _close(res.result(i)._reaction, alone._reaction) <= 1e-9


def test_a_swept_mechanism_with_springs_runs_as_one_and_equals_its_sweeps(monkeypatch):
    """A driven slider-crank whose slider is held by a spring-damper (with a text actuator,
    the same in every variant) to the ground and whose crank turns against a torsion spring (past half a turn, so the spring's angle must
    stay on its turn from frame to frame): the motor torque against the spring rates.  The
    variants sweep as one (the springs a frame at a time for all of them) and each equals
    its own sweep: poses, efforts, reactions and energies with the springs' potential."""
    got = []
    real = engine._sweeps
    monkeypatch.setattr(engine, "_sweeps", lambda *a: got.append(real(*a)) or got[-1])
    m = slider_crank(variant="RSUP")
    m.add_marker("anchor", "ground", position=(0.6, 0.0, 0.0))
    m.add_spring_damper("return", "slider_B", "anchor", stiffness=200.0, damping=3.0,
                        free_length=0.15, actuator="5*(1 + sin(2*pi*t))*speed")
    m.add_torsion_spring("coil", "crank_pin", stiffness=0.4, damping=0.01)
    study = Study(m, grid({"return.stiffness": [100.0, 400.0], "coil.stiffness": [0.2, 0.8]}))
    res = study.run(duration=1.0, fps=48)
    assert not res.failures and len(got) == 1 and all(r is not None for r in got[0])
    for i in range(4):
        alone = study.variant(i).solve(1.0, 48)
        got_i = res.result(i)
        assert np.abs(got_i._r - alone._r).max() <= 1e-10
        assert _close(got_i.effort("drive"), alone.effort("drive")) <= 1e-9
        assert _close(got_i._reaction, alone._reaction) <= 1e-9
        assert _close(got_i._energy, alone._energy) <= 1e-9
    # the springs matter: the stiffer pair needs a different torque
    assert _close(res.result(3).effort("drive"), res.result(0).effort("drive")) > 0.1


@pytest.mark.slow
def test_applied_loads_run_as_one_when_their_expressions_are_shared(monkeypatch):
    """An applied force given by an expression of t, the same in every variant: the
    batched sweep (a press on a slider-crank's slider: the motor torque) and the lockstep
    dynamics (a pushed pendulum) take it, each variant equal to its own run.  A study that
    varies the force's own constant evaluates a different function per variant, each
    variant's own at its own time: the lockstep dynamics (the push's amplitude varied) and
    the batched sweep (the press's amplitude and a spring actuator's gain varied) still
    take them together, each variant equal to its run."""
    got = {}
    for name in ("_sweeps", "batch_dynamics"):
        real = getattr(engine, name)

        def spy(*a, _real=real, _name=name, **kw):
            got.setdefault(_name, []).append(_real(*a, **kw))
            return got[_name][-1]
        monkeypatch.setattr(engine, name, spy)
    m = slider_crank(variant="RSUP")
    m.add_force("press", "slider_B", force=("-40*sin(2*pi*t)", "0", "0"))
    def swept_as_one(vary: dict, duration: float):
        """The study swept as one batch, each variant's motor torque and energies its own
        sweep's."""
        got.clear()
        study = Study(m, grid(vary))
        res = study.run(duration=duration, fps=48)
        assert all(r is not None for r in got["_sweeps"][0]) and not res.failures
        for i in range(len(study)):
            alone = study.variant(i).solve(duration, 48)
            assert _close(res.result(i).effort("drive"), alone.effort("drive")) <= 1e-9
            assert _close(res.result(i)._energy, alone._energy) <= 1e-9
        return res
    swept_as_one({"slider.mass": [0.5, 2.0], "crank_A.position.x": [0.08, 0.12]}, 1.0)
    m.add_force("press2", "slider_B", force=("-P*sin(2*pi*t)", "0", "0"), constants={"P": 1.0})
    m.add_spring_damper("bungee", "slider_B", "O", stiffness=5.0, free_length=0.2,
                        actuator="G*speed", constants={"G": 1.0})
    swept = swept_as_one({"press2.P": [10.0, 30.0], "bungee.G": [0.0, 2.0]}, 0.5)
    assert _close(swept.result(1).effort("drive"), swept.result(0).effort("drive")) > 0.01
    p = sprung_pendulum()
    p.add_force("push", "tip", force=("0", "F*cos(4*t)", "0"), constants={"F": 3.0})
    times = np.arange(72) / 24.0
    for vary, together in (({"rod.mass": [1.0, 2.0]}, True), ({"push.F": [1.0, 3.0]}, True)):
        got.clear()
        study = Study(p, grid(vary))
        res = study.run(times=times)
        assert (got["batch_dynamics"][0] is not None) == together and not res.failures
        for i in range(2):
            alone = study.variant(i).solve(times=times)
            assert res.result(i).steps == alone.steps
            assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
            assert _close(res.result(i)._energy, alone._energy) <= 1e-9


@pytest.mark.slow
def test_spring_actuators_shared_by_the_variants_run_as_one(monkeypatch):
    """A spring-damper with a text actuator (a force law of time, length and speed), the
    same in every variant: the lockstep run evaluates it for each variant's own state and
    time, each variant equal to its separate run; varying the actuator's own constant
    gives each variant another function, which the lockstep run evaluates for each
    variant (a sweep would run them one by one): still together, each equal to its run."""
    got = []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda *a, **kw: got.append(real(*a, **kw)) or got[-1])
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("rod", mass=2.0, inertia=rod_inertia(2.0, 0.8), center_of_mass=(0.4, 0.0, 0.0))
    m.add_marker("O", "ground")
    m.add_marker("A", "ground", position=(0.5, 0.6, 0.0))
    m.add_marker("hinge", "rod")
    m.add_marker("tip", "rod", position=(0.8, 0.0, 0.0))
    m.add_joint("pin", "revolute", "hinge", "O")
    m.add_spring_damper("cord", "tip", "A", stiffness=30.0, damping=0.5, free_length=0.5,
                        actuator="F*sin(3*t)*(1 + speed)", constants={"F": 2.0})
    times = np.arange(48) / 24.0
    for vary, together in (({"rod.mass": [1.0, 2.5]}, True), ({"cord.F": [1.0, 4.0]}, True)):
        got.clear()
        study = Study(m, grid(vary))
        res = study.run(times=times)
        assert (got[0] is not None) == together and not res.failures
        for i in range(2):
            alone = study.variant(i).solve(times=times)
            assert res.result(i).steps == alone.steps
            assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
            assert _close(res.result(i)._energy, alone._energy) <= 1e-9


def test_long_steps_in_the_lockstep_run_still_report_progress_and_cancel():
    """Two free bodies at 9,600 frames a second: every step of the lockstep run spans
    hundreds of frames (dense output, in chunks), so frames are rarely a step's end; the run
    still reports its progress as the frames pass, and returning False stops it there."""
    from solver.base.errors import SolverCancelled
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("box", mass=1.0, inertia=(0.1, 0.2, 0.3), angular_velocity=(0.0, 0.0, 0.5),
               velocity=(1.0, 0.0, 5.0))
    m.add_part("box2", mass=1.0, inertia=(0.1, 0.2, 0.3), position=(2.0, 0.0, 0.0),
               angular_velocity=(0.3, 0.0, 0.0))
    study = Study(m, grid({"box.mass": [1.0, 2.0], "box2.inertia.xx": [0.1, 0.15]}))
    seen = []
    res = study.run(duration=3.0, fps=9600, progress=lambda k, n: seen.append(k))
    alone = study.variant(3).solve(3.0, 9600)
    assert res.result(3).steps == alone.steps < 100 and np.array_equal(res.result(3)._p, alone._p)
    assert len(seen) > 5 and seen[-1] == 4
    calls = []
    with pytest.raises(SolverCancelled):
        study.run(duration=3.0, fps=9600, progress=lambda k, n: calls.append(k) or len(calls) < 3)
    assert len(calls) == 3


def test_dynamics_whose_motions_differ_run_in_lockstep(monkeypatch):
    """A pendulum on a cart shaken at 0.05 sin(omega t), omega varied: each variant's
    motion is its own function, evaluated at its own times inside the one lockstep run
    (stack._PerVariant), and each variant equals its separate run, its steps too."""
    got = []
    real = engine.batch_dynamics
    monkeypatch.setattr(engine, "batch_dynamics",
                        lambda *a, **kw: got.append(real(*a, **kw)) or got[-1])
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    along_x = (np.cos(np.pi / 4), 0.0, np.sin(np.pi / 4), 0.0)
    m.add_part("ground", fixed=True)
    m.add_part("cart", mass=1.0)
    m.add_part("rod", mass=0.5, inertia=rod_inertia(0.5, 0.6), center_of_mass=(0.0, -0.3, 0.0))
    m.add_marker("rail", "ground", orientation=along_x)
    m.add_marker("cart_rail", "cart", orientation=along_x)
    m.add_marker("pivot", "cart")
    m.add_marker("top", "rod")
    m.add_joint("slide", "prismatic", "cart_rail", "rail")
    m.add_joint("hinge", "revolute", "top", "pivot")
    m.add_motion("shake", "slide", "0.05*sin(omega*t)", constants={"omega": 6.0})
    study = Study(m, grid({"shake.omega": [3.0, 9.0], "rod.mass": [0.5, 1.0]}))
    times = np.arange(48) / 24.0
    res = study.run(times=times)
    assert len(got) == 1 and got[0] is not None and all(r is not None for r in got[0])
    for i in range(4):
        alone = study.variant(i).solve(times=times)
        assert alone.analysis == "dynamic" and res.result(i).steps == alone.steps
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
        assert _close(res.result(i).effort("shake"), alone.effort("shake")) <= 1e-9


def test_variants_a_batched_run_hands_back_run_from_what_was_made_for_them(monkeypatch):
    """A batched run that stops on an error it did not foresee hands its variants back:
    each runs alone from the model and start already made for it (no second compile), its
    result its separate run's, and the note says so."""
    def boom(*a, **k):
        raise ValueError("a failure the sweep did not foresee")
    monkeypatch.setattr(engine, "_sweeps", boom)
    compiled = []
    real_compile, real_alone = engine.compile_model, engine.solve_variant
    monkeypatch.setattr(engine, "compile_model", lambda b: compiled.append(1) or real_compile(b))
    monkeypatch.setattr(engine, "solve_variant",
                        lambda *a: compiled.append("again") or real_alone(*a))
    study = Study(slider_crank(variant="RRLP", r=0.1, l=0.3),
                  grid({"rod_B.position.x": [0.28, 0.3, 0.32]}))
    res = study.run(duration=0.5, fps=24)
    assert not res.failures and "again" not in compiled and len(compiled) <= 1   # (the base)
    assert len(res.notes) == 1 and "ran one by one" in res.notes[0]
    for i in range(3):
        alone = study.variant(i).solve(0.5, 24)
        assert np.array_equal(res.result(i)._r, alone._r)
        assert np.array_equal(res.result(i)._reaction, alone._reaction)


def test_a_batch_runs_as_groups_of_one_analysis_from_the_same_rows():
    """Variants whose starts keep other rows (or take the other analysis) run as their own
    group, each group together, instead of the whole batch one by one: the positions
    grouped by (analysis, kept rows), in the order each group first appears."""
    from types import SimpleNamespace as NS
    def start(analysis, keep):
        return NS(analysis=analysis, structure=NS(keep=np.array(keep)))
    begun = [start("dynamic", [0, 1, 2]), start("dynamic", [0, 2, 3]),
             start("kinematic", [0, 1, 2]), start("dynamic", [0, 1, 2]),
             start("dynamic", [0, 2, 3])]
    assert engine._groups(begun) == [[0, 3], [1, 4], [2]]
