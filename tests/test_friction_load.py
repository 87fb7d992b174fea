"""Joint friction's load: the reaction friction takes its load from is the one reported,
the least-norm joint multipliers where a loop's equations are redundant, in the sweep,
dynamics and statics alike; a driven crosshead with a dry guide slips through its dead
centres in dynamics as in the sweep; a single slipping element's fixed point s = mu L +
preload by Newton on its reaction's parts."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism

G = 9.81


def _design_study_crosshead(drive: str) -> Mechanism:
    """The README's design-study slider-crank (crank 0.1 m, rod 0.3 m, slider 0.8 kg, in
    the xy plane under gravity along -z, so that the slider's weight rests across its
    rail) driven by ``drive``, dry friction 0.3 on the slider's guide.  Its revolute
    joints all turn about z: 3 redundant equations (the loop's out-of-plane forces and
    moments are not unique)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    along_x = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=1.0, inertia=(1e-3, 1e-3, 2e-3))
    m.add_part("rod", mass=0.5, inertia=(1e-4, 4e-3, 4e-3), position=(0.1, 0, 0))
    m.add_part("slider", mass=0.8, inertia=(1e-3, 1e-3, 1e-3), position=(0.4, 0, 0))
    m.add_marker("O", "ground")
    m.add_marker("rail", "ground", orientation=along_x)
    m.add_marker("crank_O", "crank")
    m.add_marker("crank_A", "crank", position=(0.1, 0, 0))
    m.add_marker("rod_A", "rod")
    m.add_marker("rod_B", "rod", position=(0.3, 0, 0))
    m.add_marker("slider_B", "slider")
    m.add_marker("slider_rail", "slider", orientation=along_x)
    m.add_joint("crank_pin", "revolute", "crank_O", "O")
    m.add_joint("crank_rod", "revolute", "rod_A", "crank_A")
    m.add_joint("wrist", "revolute", "rod_B", "slider_B")
    m.add_joint("slide", "prismatic", "slider_rail", "rail")
    m.add_motion("drive", "crank_pin", drive)
    m.add_friction("dry", "slide", static=0.3)
    return m


@pytest.mark.parametrize("drive", ["2*pi*t", "0.3 + 2*pi*t"])
def test_a_driven_crosshead_with_a_dry_guide_runs_through_its_dead_centres(drive: str) -> None:
    """Driven, the crosshead's slider stops at each dead centre because the crank moves it
    so, not its friction: in dynamics it slips on the way it turns back (from 2 pi t it
    starts at a dead centre, from 0.3 + 2 pi t it reaches one at 0.452 s), as in the
    kinematic sweep.  Every frame is solved; the slider follows the closed form
    x = r cos(th) + sqrt(l^2 - r^2 sin(th)^2) (to 1e-9 m: both runs project onto the
    constraints to Newton's precision), and its friction is the sweep's (to 1e-6 of its
    largest: the dynamics' accelerations of a fully driven mechanism come from the same
    linear equations, its run's tolerance 1e-6 on the rest), against the motion, so it
    reverses at each dead centre."""
    m = _design_study_crosshead(drive)
    dyn = m.solve(duration=1.0, fps=48, analysis="dynamic")
    sweep = m.solve(duration=1.0, fps=48, analysis="kinematic")
    assert len(dyn.times) == len(sweep.times) == 49
    th = eval(drive.replace("pi", "math.pi"), {"math": math, "t": dyn.times})
    x = 0.1 * np.cos(th) + np.sqrt(0.3 ** 2 - (0.1 * np.sin(th)) ** 2)
    np.testing.assert_allclose(dyn.position("slider")[:, 0], x, atol=1e-9)
    v = dyn.velocity("slider")[:, 0]
    moving = np.abs(v) > 1e-3
    f, fs = dyn.friction("dry"), sweep.friction("dry")
    np.testing.assert_allclose(f[moving], fs[moving], atol=1e-6 * np.abs(fs).max())
    assert np.all(np.sign(f[moving]) == -np.sign(v[moving]))
    assert (f[moving] > 0).any() and (f[moving] < 0).any()


def _joint_self_stresses(r, k: int) -> np.ndarray:
    """(joint rows, s) a basis of the joint multipliers that load no part at frame k of
    the Result r, from the null space of the joints' J^T at its pose (scipy; singular
    values under 1e-8 of the largest count as zero: a dynamic run's poses meet the
    constraints to its projection's precision, not to rounding, which leaves the lost
    directions' singular values near 1e-10 instead of 1e-16)."""
    from scipy.linalg import null_space
    from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
    model = r.model
    rg, A = body_arrays(model, r._r[k], r._p[k])[:2]
    J = global_jacobian(model, evaluate(model, rg, A).jac)
    return null_space(J[model.constraint_rows].T, rcond=1e-8)


def test_friction_is_mu_times_the_reported_reaction_in_every_analysis() -> None:
    """The design-study crosshead (3 redundant equations: its joints' out-of-plane forces
    and moments are not unique) driven from 0.3 + 2 pi t: the kinematic sweep, dynamics
    and statics (the crank held at 0.3) all report the least-norm joint multipliers
    (orthogonal to every self-stress of the joints, found here from the null space of
    their J^T, to 1e-9 of the multipliers' size: one linear solve), the same reactions
    (dynamics against the sweep to 1e-6 of the largest: its run's tolerance; statics
    against the sweep of the held crank to 1e-9), and the guide's friction is 0.3 times
    the reported reaction's |F_xy| (marker J's axes, z along the rail) against the motion,
    to 1e-12 (the same numbers).  That load holds the slider's weight share on the rail:
    |F_xy| > 3 N, where the kept rows' reaction gave 0.1 N and friction 0.03-0.15 N."""
    m = _design_study_crosshead("0.3 + 2*pi*t")
    sweep = m.solve(duration=0.5, fps=24, analysis="kinematic")
    dyn = m.solve(duration=0.5, fps=24, analysis="dynamic")
    for r in (sweep, dyn):
        F = r.reaction("slide", frame="J")[0]
        side = np.hypot(F[:, 0], F[:, 1])
        assert side.min() > 3.0
        v = r.velocity("slider")[:, 0]
        moving = np.abs(v) > 1e-3
        np.testing.assert_allclose(r.friction("dry")[moving], -np.sign(v[moving]) * 0.3 * side[moving],
                                   rtol=1e-12)
        jrows = r.model.constraint_rows
        for k in range(0, len(r.times), 3):
            N = _joint_self_stresses(r, k)
            assert N.shape[1] == 3
            lam = r.multipliers[k, jrows]
            assert np.abs(N.T @ lam).max() <= 1e-9 * np.abs(lam).max()
    for j in ("crank_pin", "crank_rod", "wrist", "slide"):
        for a, b in zip(dyn.reaction(j), sweep.reaction(j)):
            np.testing.assert_allclose(a, b, atol=1e-6 * np.abs(b).max())
    held = _design_study_crosshead("0.3")
    rest = held.statics()
    still = held.solve(duration=0.1, fps=10, analysis="kinematic")
    for j in ("crank_pin", "crank_rod", "wrist", "slide"):
        for a, b in zip(rest.reaction(j), still.reaction(j)):
            np.testing.assert_allclose(a[0], b[0], atol=1e-9 * np.abs(b).max())


def _door_with_a_dry_hinge(dry: bool = True, spin: float = 0.0) -> Mechanism:
    """The door_stop sample as the add-on reads it: a 38.4 kg door (0.8 x 0.04 x 2 m) on a
    vertical hinge 0.4 m from its centre of mass, opened 80 deg, a closer (20 N m/rad,
    2 N m s/rad, toward -20 deg), a stop at 0 (restitution 0.2) and, if ``dry``, a dry
    hinge (0.2 / 0.15, pin 10 mm, thrust arm 10 mm, bearing 1.6 m: its load the hinge's
    force and bending moment from the door's weight); swinging at ``spin`` rad/s about
    the hinge (world z) at the start."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("jamb", fixed=True)
    a0 = math.radians(80.0)
    m.add_part("door", mass=38.4, inertia=(12.805, 14.848, 2.0531),
               position=(0.4 * math.cos(a0), 0.4 * math.sin(a0), 1.02),
               orientation=(math.cos(a0 / 2), 0.0, 0.0, math.sin(a0 / 2)),
               angular_velocity=(0.0, 0.0, spin))
    m.add_marker("leaf", "door", position=(-0.4, 0.0, -0.02))
    m.add_marker("post", "jamb", position=(0.0, 0.0, 1.0))
    m.add_joint("hinge", "revolute", "leaf", "post")
    m.add_limit("stop", "hinge", lower=0.0, restitution=0.2)
    if dry:
        m.add_friction("dry", "hinge", static=0.2, dynamic=0.15, radius=0.01, arm=0.01,
                       bearing_length=1.6)
    m.add_torsion_spring("closer", "hinge", stiffness=20.0, damping=2.0,
                         free_angle=math.radians(-20.0))
    return m


def test_one_slipping_hinge_solves_its_load_in_few_steps(monkeypatch) -> None:
    """A single slipping element's fixed point s = mu L(R + s dR) + preload is Newton on
    the norms of its reaction's parts (slip_load.py): the door swinging shut (0.5 s,
    slipping throughout) evaluates g at most three times in any right-hand side (traced:
    two in most; the plain iteration s <- g(s) took 7), and every call's friction is mu L
    + preload of the multipliers it returns to 1e-12 (friction.loads, independent of the
    iteration)."""
    import inspect
    import sys
    import solver.analyses.dynamics.friction as fr
    import solver.analyses.dynamics.slip_load as sl
    source, first = inspect.getsourcelines(sl._one_state)
    head = first + next(i for i, line in enumerate(source) if "for _ in range" in line)
    passes, per_call, misses, real = [0], [], [], fr.with_slip

    def count(frame, event, arg):
        if frame.f_code is not sl._one_state.__code__:
            return None

        def local(frame, event, arg):
            passes[0] += event == "line" and frame.f_lineno == head
            return local
        return local

    def traced(model, respond, lam, jac, A, vq, d, sliding):
        passes[0] = 0
        sys.settrace(count)
        try:
            Qq, lam1, other, room = real(model, respond, lam, jac, A, vq, d, sliding)
        finally:
            sys.settrace(None)
        s = fr.coefficient(model, fr.magnitudes(model, vq)) * fr.loads(model, lam1, jac, A) \
            + model.frictions.preload
        if sliding.any():
            per_call.append(passes[0])
            misses.append(abs(abs(Qq[0]) - s[0]) / s[0])
        return Qq, lam1, other, room
    monkeypatch.setattr("solver.analyses.dynamics.equations.with_slip", traced)
    r = _door_with_a_dry_hinge().solve(duration=0.5, fps=24, analysis="dynamic")
    monkeypatch.undo()
    assert np.all(np.abs(r.friction("dry")[1:]) > 0.5) and len(misses) > 100
    assert max(misses) < 1e-12
    assert min(per_call) >= 1 and max(per_call) <= 3
    assert np.median(per_call) <= 2


def test_a_slipping_hinge_costs_one_schur_solve_a_right_hand_side(monkeypatch) -> None:
    """The multipliers and their responses to a unit force along each friction component
    come from one Schur solve (the components' unit forces stacked beside the applied
    loads' right-hand side, J M^-1 J^T the same for all): the door swinging shut (0.5 s,
    slipping throughout) makes one solve a right-hand side (two when the responses were
    solved after the multipliers), and its friction is mu L + preload of the multipliers
    each right-hand side returns while it slips, to 1e-12 (friction.loads, independent of
    the solve)."""
    import solver.analyses.dynamics.equations as eq
    import solver.analyses.dynamics.friction as fr
    from solver.algebra.schur import Schur
    solves, per_rhs, misses = [0], [], []
    real_solve, real_accel = Schur.solve, eq.Equations._accelerations

    def counted(self, *a, **k):
        solves[0] += 1
        return real_solve(self, *a, **k)

    def accelerations(self, t, r, p, vel, report=True):
        before = solves[0]
        out = real_accel(self, t, r, p, vel, report)
        per_rhs.append(solves[0] - before)
        model, lam, jac = self.m, out[1], out[3]
        A = eq.body_arrays(model, r, p)[1]
        vq = fr.rates(model, jac, eq._ground_row(vel))
        s = fr.coefficient(model, fr.magnitudes(model, vq)) * fr.loads(model, lam, jac, A) \
            + model.frictions.preload
        if not self.run.slip.stuck[0]:
            misses.append(abs(abs(self.friction[0]) - s[0]) / s[0])
        return out
    monkeypatch.setattr(Schur, "solve", counted)
    monkeypatch.setattr(eq.Equations, "_accelerations", accelerations)
    r = _door_with_a_dry_hinge().solve(duration=0.5, fps=24, analysis="dynamic")
    monkeypatch.undo()
    assert np.all(np.abs(r.friction("dry")[1:]) > 0.5) and len(per_rhs) > 100
    assert max(per_rhs) == 1
    assert max(misses) < 1e-12


def test_the_door_locates_each_event_in_few_trial_steps(monkeypatch) -> None:
    """Every event inside a step (the door's 5 impacts on its stop, its 4 slip reversals
    and the dry coefficient's breakpoints around each) is located by re-stepping, each
    trial where the secant through the last two trials puts the instant, and a trial
    closer than the width to a bracket's end moved just past the root so that the next
    one closes the bracket; impacts and reversals to EVENT_TIME = 1e-10 s, a breakpoint
    (where the step only ends) to KINK_TIME = 1e-7 s from where the tangent at the step's
    start puts it: at most 3.7 trial steps an event (measured 3.5, 112 in all; 4.0 and 128
    with breakpoints as the other events, 5.0 and 181 also with regula falsi on the
    bracket's ends, which narrows from one side), and the impact and friction event
    instants those of a run at tolerance 1e-10 to 5e-9 s (the run's own error at the
    default 1e-6, measured 7e-11 s)."""
    import solver.analyses.dynamics.events as ev
    import solver.analyses.dynamics.stops as so
    calls, trials = [0], [0]
    real = so.locate

    def counting(step, *a, **k):
        calls[0] += 1

        def trial(c):
            trials[0] += 1
            return step(c)
        return real(trial, *a, **k)
    monkeypatch.setattr(so, "locate", counting)
    monkeypatch.setattr(ev, "locate", counting)
    r = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    monkeypatch.undo()
    ref = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic",
                                          tolerance=1e-10)
    assert len(r.impacts) == len(ref.impacts) == 5
    assert len(r.friction_events) == len(ref.friction_events) == 4
    np.testing.assert_allclose([i.time for i in r.impacts], [i.time for i in ref.impacts],
                               rtol=0, atol=5e-9)
    np.testing.assert_allclose([e[0] for e in r.friction_events],
                               [e[0] for e in ref.friction_events], rtol=0, atol=5e-9)
    assert calls[0] >= 25
    assert trials[0] / calls[0] <= 3.7



def test_the_door_leaves_dop853_once_its_steps_reach_the_frames(monkeypatch) -> None:
    """The door's steps reach a frame from about its second frame on; from there
    Dormand-Prince 5(4) takes them (six right-hand sides a step against DOP853's twelve),
    through its five impacts and four slip reversals: a step located on an event keeps the
    natural size from before it (the error of the trial across the event measures the kink,
    not the motion), and a natural step 1% short of a frame keeps 5(4).  DOP853 only while
    the door starts from rest (5 steps; 40 when each event sent the run back to DOP853 for
    eight frames), its centre within 1e-9 m and its orientation's quaternion within 1e-9 of
    a run at tolerance 1e-10 (1.9e-10 m, 2.4e-10)."""
    from solver.integrators import explicit
    taken = {"DOP853": 0, "DoPri5": 0}
    for cls in (explicit.DOP853, explicit.DoPri5):
        def counted(self, *a, _real=cls.step, _name=cls.__name__, **k):
            if type(self).__name__ == _name:
                taken[_name] += 1
            return _real(self, *a, **k)
        monkeypatch.setattr(cls, "step", counted)
    r = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    monkeypatch.undo()
    ref = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic",
                                          tolerance=1e-10)
    assert taken["DOP853"] <= 6 and taken["DoPri5"] >= 80
    assert len(r.impacts) == 5 and len(r.friction_events) == 4
    np.testing.assert_allclose(r.position("door"), ref.position("door"), rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.orientation("door"), ref.orientation("door"), rtol=0, atol=1e-9)

def test_a_step_with_two_kinds_of_event_locates_only_the_first(monkeypatch) -> None:
    """A step that crosses both a stop (the door coming back onto it) and, earlier, a
    slip reversal or a breakpoint of mu is located at the earlier one first (the kinds
    ordered by where the step's dense output first crosses them), so no trial steps go to
    placing an instant that the earlier event drops: every location the door's run makes
    ends a step (27, where locating the stop first made 32 and 300 more right-hand
    sides)."""
    import solver.analyses.dynamics.driver as dr
    import solver.analyses.dynamics.events as ev
    import solver.analyses.dynamics.stops as so
    calls, ends = [0], [0]
    real_locate, real_step_events = so.locate, ev.step_events

    def counting(*a, **k):
        calls[0] += 1
        return real_locate(*a, **k)

    def ending(*a, **k):
        end = real_step_events(*a, **k)
        ends[0] += end.located
        return end
    monkeypatch.setattr(so, "locate", counting)
    monkeypatch.setattr(ev, "locate", counting)
    monkeypatch.setattr(dr, "step_events", ending)
    r = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    monkeypatch.undo()
    assert len(r.impacts) == 5 and len(r.friction_events) == 4
    assert ends[0] >= 25 and calls[0] == ends[0]


def _counting_trials(real, into: list, width: float | None = None):
    """``real`` (events.locate or stops.locate) with each call's trial steps counted into
    ``into`` (only the calls locating to ``width``, when given)."""
    def located(step, *a, **k):
        n = [0]

        def trial(c):
            n[0] += 1
            return step(c)
        out = real(trial, *a, **k)
        if width is None or k.get("width") == width:
            into.append(n[0])
        return out
    return located


def test_the_doors_friction_events_take_two_trial_steps_each(monkeypatch) -> None:
    """Each trial step that locates an event also gives Newton's next instant (the event
    function's rate at the trial's end, by a difference along the right-hand side there:
    one right-hand side against a trial's twelve), and a trial past the root that its own
    tangent puts within 0.9 of the width from it ends the search (its linearization error,
    g''/(2 g') times that distance squared, is below 1e-5 of the width here).  The door's
    breakpoints of mu and slip reversals (22 events) take at most two trial steps each (2
    to 4 with the secant through the last two trials; none where the step was aimed at
    the event, events.aim_at_event), every event of the run at most 2.5 on
    average (measured 73 trials for 32 events; 112 before), and the impact and friction
    instants are those of a run at tolerance 1e-10 to 5e-9 s (its own error at the
    default 1e-6)."""
    import solver.analyses.dynamics.events as ev
    import solver.analyses.dynamics.stops as so
    friction, every = [], []
    real = so.locate

    monkeypatch.setattr(ev, "locate", _counting_trials(real, friction))
    monkeypatch.setattr(so, "locate", _counting_trials(real, every))
    r = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    monkeypatch.undo()
    ref = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic",
                                          tolerance=1e-10)
    assert len(friction) >= 20 and max(friction) <= 2
    assert sum(friction + every) / len(friction + every) <= 2.5
    assert len(r.impacts) == len(ref.impacts) == 5
    assert len(r.friction_events) == len(ref.friction_events) == 4
    np.testing.assert_allclose([i.time for i in r.impacts], [i.time for i in ref.impacts],
                               rtol=0, atol=5e-9)
    np.testing.assert_allclose([e[0] for e in r.friction_events],
                               [e[0] for e in ref.friction_events], rtol=0, atol=5e-9)


def test_a_joint_that_never_sticks_costs_no_hold_margin(monkeypatch) -> None:
    """A sticking element's hold margin (mu_s L + preload - |lambda|, the event of its
    breaking loose) takes a right-hand side to evaluate; it is evaluated only while some
    element sticks.  The door slips, reverses and comes to rest on its stop without ever
    sticking: no margin in its 3 s (110, one a step, when every step's start evaluated
    it), its 4 reversals as before, and at most 2,100 right-hand sides (measured 2,074;
    2,184 with the margins)."""
    import solver.analyses.dynamics.equations as eq
    import solver.analyses.dynamics.events as ev
    margins, rhs = [0], [0]
    real_margin, real_accel = ev.hold_margin, eq.Equations._accelerations

    def margin(*a, **k):
        margins[0] += 1
        return real_margin(*a, **k)

    def accelerations(*a, **k):
        rhs[0] += 1
        return real_accel(*a, **k)
    monkeypatch.setattr(ev, "hold_margin", margin)
    monkeypatch.setattr(eq.Equations, "_accelerations", accelerations)
    r = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    monkeypatch.undo()
    assert [e[2] for e in r.friction_events] == ["reverse"] * 4
    assert margins[0] == 0
    assert rhs[0] <= 2100


def test_a_step_over_its_goal_past_a_kink_of_mu_ends_on_the_kink(monkeypatch) -> None:
    """A frame-long step across the door's slip reversal spans the dry coefficient's
    breakpoints (1.5 v_s and v_s, where mu is only once differentiable) and misses its
    error goal 2 to 600 times over; cut blindly, as a rejected step is, it takes 50
    rejected steps in the run (six or seven cuts before each reversal).  A step over its
    goal whose end is past an event (here a breakpoint: the joint's speed along its slip,
    signed, shows it even when the step's end has turned back past 1.5 v_s the other way)
    ends on the event instead, the located step held to the goal as any other: no step
    rejected (at most 5 allowed), and at every frame the door's angle, the stop's and the
    friction's torque those of a run at tolerance 1e-10 to 1e-9 rad and 1e-9 N m
    (measured 2.0e-12 rad, 2.7e-13 N m)."""
    from solver.integrators.control import StandardControl
    rejected = [0]
    real = StandardControl.rejected

    def counting(self, *args):
        rejected[0] += 1
        return real(self, *args)
    monkeypatch.setattr(StandardControl, "rejected", counting)
    r = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    monkeypatch.undo()
    ref = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic",
                                          tolerance=1e-10)

    def angle(res):
        q = res.orientation("door")
        return 2.0 * np.arctan2(q[:, 3], q[:, 0])
    assert rejected[0] <= 5
    np.testing.assert_allclose(angle(r), angle(ref), rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.limit("stop"), ref.limit("stop"), rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.friction("dry"), ref.friction("dry"), rtol=0, atol=1e-9)


def _door_breakpoint_trials(monkeypatch) -> tuple:
    """The door's 3 s run with its trial steps counted: (the trials that located each
    breakpoint of mu, the right-hand sides, the run, the same run at tolerance 1e-10)."""
    import solver.analyses.dynamics.equations as eq
    import solver.analyses.dynamics.events as ev
    kinks, rhs = [], [0]
    real_accel = eq.Equations._accelerations

    def accelerations(*a, **k):
        rhs[0] += 1
        return real_accel(*a, **k)
    monkeypatch.setattr(ev, "locate", _counting_trials(ev.locate, kinks, ev.KINK_TIME))
    monkeypatch.setattr(eq.Equations, "_accelerations", accelerations)
    r = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    monkeypatch.undo()
    ref = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic",
                                          tolerance=1e-10)
    return kinks, rhs[0], r, ref


def _same_door_events(r, ref) -> None:
    """The door's 5 impacts and its friction events of the same kinds as the reference
    run's, at its instants to 5e-9 s."""
    assert len(r.impacts) == len(ref.impacts) == 5
    assert [e[1:] for e in r.friction_events] == [e[1:] for e in ref.friction_events]
    np.testing.assert_allclose([i.time for i in r.impacts], [i.time for i in ref.impacts],
                               rtol=0, atol=5e-9)
    np.testing.assert_allclose([e[0] for e in r.friction_events],
                               [e[0] for e in ref.friction_events], rtol=0, atol=5e-9)


def test_the_doors_breakpoints_of_mu_take_one_trial_step_each(monkeypatch) -> None:
    """A breakpoint of the dry coefficient (where mu is only once differentiable) is first
    placed by one classical Runge-Kutta step to where the step start's tangent puts it and
    Newton's step from there (four right-hand sides), so the trial step of the run's own
    integrator that follows lands within KINK_TIME past it and its tangent ends the
    search: at most one trial each for the door's 18 breakpoints (two each from the start's
    tangent alone, which the coefficient's cubic step bends by some 1e-5 s), at most 1,700
    right-hand sides in the run (1,805 before), and the impact and friction instants
    those of a run at tolerance 1e-10 to 5e-9 s (the run's own error, as in
    test_the_door_locates_each_event_in_few_trial_steps)."""
    kinks, rhs, r, ref = _door_breakpoint_trials(monkeypatch)
    assert len(kinks) >= 16 and max(kinks) <= 1
    assert rhs <= 1700
    _same_door_events(r, ref)


def test_a_step_aimed_at_a_breakpoint_of_mu_is_located_by_its_own_end(monkeypatch) -> None:
    """Where the tangent at a step's start puts a breakpoint of mu inside the step, the
    step is aimed just past it (events.aim_at_event: the Runge-Kutta probe's instant), and
    its own end, within KINK_TIME past the breakpoint by its tangent, is the located step:
    no trial step for any of the door's 18 breakpoints (one each when the full step was
    taken first and the breakpoint located back from it), at most 1,450 right-hand sides
    in the run (1,805 with two trials a breakpoint),
    and at every frame the door's angle and the stop's and friction's torques those of a
    run at tolerance 1e-10 to 1e-9 rad and 1e-9 N m (its own error at the default 1e-6),
    its impacts and friction events at the same instants to 5e-9 s."""
    kinks, rhs, r, ref = _door_breakpoint_trials(monkeypatch)

    def angle(res):
        q = res.orientation("door")
        return 2.0 * np.arctan2(q[:, 3], q[:, 0])
    assert len(kinks) >= 16 and max(kinks) == 0
    assert rhs <= 1450
    np.testing.assert_allclose(angle(r), angle(ref), rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.limit("stop"), ref.limit("stop"), rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.friction("dry"), ref.friction("dry"), rtol=0, atol=1e-9)
    _same_door_events(r, ref)


def test_a_step_aimed_at_a_slip_reversal_is_located_by_its_own_end(monkeypatch) -> None:
    """Where the start's tangent puts a slip reversal inside the step before any
    breakpoint of mu, the step is aimed a tenth of EVENT_TIME past where the Runge-Kutta
    probe and Newton's step from it put the reversal (the motion below the transition
    speed is smooth: the probe's state agrees with the step's to about 1e-14 of the
    speed), and its own end's tangent confirms it: none of the door's four reversals takes
    a trial step (two each, 8 right-hand sides more, when it was located from a step past
    it), at most 720 right-hand sides in all (measured 715; 747 so), the instants those of
    the run at tolerance 1e-10 to 5e-9 s."""
    import solver.analyses.dynamics.events as ev
    from solver.analyses.dynamics.stops import EVENT_TIME
    reversals = []
    monkeypatch.setattr(ev, "locate", _counting_trials(ev.locate, reversals, EVENT_TIME))
    kinks, rhs, r, ref = _door_breakpoint_trials(monkeypatch)
    assert len(reversals) == len(r.friction_events) == 4 and max(reversals) == 0
    assert rhs <= 720
    _same_door_events(r, ref)


@pytest.mark.parametrize("ball", [False, True])
def test_one_slipping_element_takes_the_same_bits_alone_as_in_a_stack(ball: bool) -> None:
    """slip_load.one_slipping solves one state on floats and many on numpy arrays: a study's
    variant must keep its separate run's bits, so each of 200 random reactions (forces
    and moments of 1-100 N, N m; responses to a unit friction up to 0.5 per N, which a
    door's hinge stays far below) solved alone equals its row of the stacked call bit for
    bit, and each s is the root of s = mu sum_j w_j |V_j + s W_j| + preload found
    independently (scipy's brentq, to 1e-12 relative)."""
    from scipy.optimize import brentq
    from solver.analyses.dynamics.slip_load import one_slipping
    from solver.base.errors import FrictionJam
    from solver.model.compile import compile_model
    model = compile_model(_door_with_a_dry_hinge())
    rng = np.random.default_rng(7)
    n = 200
    RdR = np.stack([rng.normal(size=(n, 2, 3)) * 10.0 ** rng.uniform(0, 2, (n, 1, 1)),
                    rng.normal(size=(n, 2, 3)) * 0.2])
    z = rng.normal(size=(n, 3))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    mw, pre = np.array([0.15, 0.15 * 0.01 / 1.6, 0.15 * 0.01]), 0.3
    stacked = one_slipping(model, 0, RdR, z, mw, pre, ball)
    jammed = 0
    for i in range(n):
        try:
            s, flat = one_slipping(model, 0, RdR[:, i], z[i], mw, pre, ball)
        except FrictionJam:
            jammed += 1
            continue
        assert s.tobytes() == stacked[0][i].tobytes() and flat.tobytes() == stacked[1][i].tobytes()
        F, dF = RdR[0, i], RdR[1, i]

        def g(x):
            R = F + x * dF
            if ball:
                return mw[0] * np.linalg.norm(R[0]) + pre - x
            ax = R @ z[i]
            side = R - ax[:, None] * z[i]
            return mw @ [np.linalg.norm(side[0]), np.linalg.norm(side[1]), abs(ax[0])] + pre - x
        root = brentq(g, 0.0, 10.0 * (g(0.0) + 1.0), xtol=1e-14, rtol=1e-13)
        assert abs(s - root) <= 1e-12 * root
    assert jammed < n // 10


def test_a_steps_projected_end_is_evaluated_once_for_all_that_read_it(monkeypatch) -> None:
    """The projection's last residual, the limits' turns and the next step's friction
    rates and stop gaps all read the rows at a step's projected end; the equations keep
    the last two poses' rows (Equations.rows_at), so the door's run evaluates about 230
    poses fewer than when each asks anew (measured 453 against 680) and takes the same
    bits."""
    import solver.analyses.dynamics.equations as eq
    real_evaluate, asked = eq.evaluate, [0]

    def counted(model, rg, A, *a, **k):
        asked[0] += not a            # (a right-hand side's also passes the velocities)
        return real_evaluate(model, rg, A, *a, **k)

    def every_time(self, rg, A, groups=None):
        return counted(self.m, rg, A, ref=self.run.track, groups=groups)
    monkeypatch.setattr(eq, "evaluate", counted)
    kept = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    with_memo, asked[0] = asked[0], 0
    monkeypatch.setattr(eq.Equations, "rows_at", every_time)
    each = _door_with_a_dry_hinge().solve(duration=3.0, fps=24, analysis="dynamic")
    assert asked[0] - with_memo >= 200
    assert np.array_equal(kept.orientation("door"), each.orientation("door"))
    assert np.array_equal(kept.angular_velocity("door"), each.angular_velocity("door"))
    assert np.array_equal(kept.friction("dry"), each.friction("dry"))
    assert np.array_equal(kept.limit("stop"), each.limit("stop"))
