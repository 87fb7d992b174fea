"""Design studies of fully driven mechanisms with stops and joint friction, and larger
ones: their kinematic sweeps run as one sweep over a variant axis
(solver/analyses/sweep/), a compliant stop's force and each joint's friction computed
for every variant and frame at once; a variant whose motion drives a rigid stop through,
or whose friction jams, leaves the batch there and fails with its own sweep's message
while the others finish together."""
from __future__ import annotations

import importlib.util
import math
import os

import numpy as np
import pytest

from solver import Mechanism
from solver import StudyError
from solver.study import Study, engine, grid, latin_hypercube, parameter_names

from mechanisms import G, driven_wheel, slider_crank
from test_compliant_stops import dropped_block
from test_limits import door
from test_study_tracked import _spy_dynamics


def _spy(monkeypatch) -> list:
    """[(variants, which finished in the batch)] of each batched sweep."""
    ran = []
    real = engine._sweeps

    def spy(models, *args):
        out = real(models, *args)
        ran.append((len(models), None if out is None else [o is not None for o in out]))
        return out
    monkeypatch.setattr(engine, "_sweeps", spy)
    return ran


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def crosshead(mu: float) -> Mechanism:
    """tests/mechanisms.py's slider-crank (crank 0.8 m, rod 1 m, slider 5 kg) at 20 rad/s,
    dry friction mu on the slider's guide."""
    m = slider_crank(r=0.8, l=1.0, omega=20.0, masses=(1.0, 1.0, 5.0))
    m.add_friction("dry", "slide", static=mu, dynamic=mu, transition_speed=1e-6)
    return m


def test_a_dry_crosshead_sweeps_as_one_and_a_jamming_variant_fails_alone(monkeypatch):
    """Crank radii 0.3, 0.5 and 0.8 m at mu 0.9: the rod leans at most asin(r / l), past
    the friction angle (tan > 1 / 0.9) only at 0.8 m, whose friction jams there; it leaves
    the batch and fails with its separate sweep's message, the frame its own.  The other
    two finish together, each equal to its separate sweep, its friction opposing the
    slider's motion with the size mu times the guide's reaction."""
    ran = _spy(monkeypatch)
    study = Study(crosshead(0.9), grid({"crank_A.position.x": [0.3, 0.5, 0.8],
                                        "slider.mass": [5.0, 8.0]}))
    res = study.run(duration=0.5, fps=100)
    jam = [i for i, row in enumerate(study.variants) if row["crank_A.position.x"] == 0.8]
    assert len(ran) == 1 and ran[0][0] == 6
    assert [not ok for ok in ran[0][1]] == [i in jam for i in range(6)]
    assert sorted(res.failures) == jam
    for i in jam:
        with pytest.raises(Exception) as alone:
            study.variant(i).solve(0.5, 100)
        assert "jam at t = " in res.failures[i] and str(alone.value) in res.failures[i]
    for i in (i for i in range(6) if i not in jam):
        alone = study.variant(i).solve(0.5, 100)
        got = res.result(i)
        assert np.abs(got._r - alone._r).max() <= 1e-10
        assert _rel(got.friction("dry"), alone.friction("dry")) <= 1e-9
        assert _rel(got.effort("drive"), alone.effort("drive")) <= 1e-9
        assert _rel(got._reaction, alone._reaction) <= 1e-9
        v = got.velocity("slider")[:, 0]
        moving = np.abs(v) > 1e-6
        assert np.all(got.friction("dry")[moving] * v[moving] < 0.0)


def pressed_floor_push(t: np.ndarray, k: float = 1e5, n: float = 1.5) -> np.ndarray:
    """The compliant floor's push on the block pressed down at 0.1 m/s from 1 cm above
    (test_compliant_stops.py): k delta^n + c(delta) delta', delta = 0.1 t - 0.01, c reaching
    50 N s/m at 1 mm by the cubic step."""
    delta = np.maximum(0.1 * t - 0.01, 0.0)
    s = np.clip(delta / 1e-3, 0.0, 1.0)
    return k * delta ** n + 50.0 * s * s * (3.0 - 2.0 * s) * 0.1


def test_a_compliant_stop_pushed_into_sweeps_as_one(monkeypatch):
    """The block pressed down through its compliant floor (test_compliant_stops.py), its
    mass varied: one batched sweep; each variant's stop force is the closed form
    k delta^n + c(delta) delta' (the same in every variant: the motion sets delta) and its
    motion's effort m g minus it."""
    ran = _spy(monkeypatch)
    m = dropped_block(h=0.01, k=1e5, n=1.5, c=50.0, d=1e-3)
    m.add_motion("press", "drop", "0.01 - 0.1*t", coordinate="slide")
    study = Study(m, grid({"block.mass": [1.0, 2.0, 4.0]}))
    res = study.run(duration=0.2, fps=100)
    assert ran == [(3, [True] * 3)] and not res.failures
    for i, row in enumerate(study.variants):
        r = res.result(i)
        push = pressed_floor_push(r.times)
        np.testing.assert_allclose(r.limit("floor"), push, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(r.effort("press"), row["block.mass"] * G - push, rtol=1e-9)


def test_a_variant_that_starts_inside_a_compliant_stop_fails_as_its_sweep_does(monkeypatch):
    """The pressed block's motion starting 2 cm inside its compliant floor in one variant
    (z0 = -0.02 m; the others above it): that variant's own sweep refuses the start
    (outside the limit), so the study must fail it with the same message, not give it the
    force of a floor it starts inside; the others stay in the batch and equal their sweeps."""
    ran = _spy(monkeypatch)
    m = dropped_block(h=0.01, k=1e5, n=1.5, c=50.0, d=1e-3)
    m.add_motion("press", "drop", "z0 - 0.1*t", coordinate="slide", constants={"z0": 0.01})
    study = Study(m, [{"press.z0": 0.01}, {"press.z0": -0.02}, {"press.z0": 0.02}])
    res = study.run(duration=0.2, fps=100)
    assert ran == [(3, [True, False, True])] and sorted(res.failures) == [1]
    with pytest.raises(Exception, match="starts outside a limit") as alone:
        study.variant(1).solve(0.2, 100)
    assert str(alone.value) in res.failures[1]
    for i in (0, 2):
        alone = study.variant(i).solve(0.2, 100)
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
        assert _rel(res.result(i).limit("floor"), alone.limit("floor")) <= 1e-10


def test_a_variant_driven_through_a_rigid_stop_fails_alone(monkeypatch):
    """A hinge turned at w rad/s (w varied: 0.4, 0.8, 1.2) against a rigid stop at
    0.5 rad, 1 s at 24 fps: the two faster variants reach it at frames 15 and 10 and pass
    it at the next, leave the batch and fail with their own sweeps' messages (the frame
    where each passes); the slowest finishes."""
    ran = _spy(monkeypatch)
    m = driven_wheel("w*t", {"w": 1.0}, part="arm", joint="pin", motion="turn",
                     inertia=(0.01, 0.01, 0.01), gravity=(0.0, 0.0, -G))
    m.add_limit("stop", "pin", lower=-1.0, upper=0.5)
    study = Study(m, grid({"turn.w": [0.4, 0.8, 1.2], "arm.mass": [1.0, 2.0]}))
    res = study.run(duration=1.0, fps=24)
    fast = [i for i, row in enumerate(study.variants) if row["turn.w"] > 0.5]
    assert len(ran) == 1 and [not ok for ok in ran[0][1]] == [i in fast for i in range(6)]
    assert sorted(res.failures) == fast
    for i in fast:
        w = study.variants[i]["turn.w"]
        frame = math.floor(0.5 / w * 24) + 1        # (at 0.5 / w exactly, it is at the stop)
        assert f"(frame {frame})" in res.failures[i] and "limit 'stop'" in res.failures[i]
        with pytest.raises(Exception) as alone:
            study.variant(i).solve(1.0, 24)
        assert str(alone.value) in res.failures[i]
    for i in (i for i in range(6) if i not in fast):
        alone = study.variant(i).solve(1.0, 24)
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-12
        assert _rel(res.result(i).effort("turn"), alone.effort("turn")) <= 1e-10


def test_friction_markers_that_differ_between_variants_stack(monkeypatch):
    """The guide's friction marker moved along the slide in some variants (the friction's
    marker point, where its reaction is taken, differs: stacked with the variants): one
    batched sweep, each variant's friction its separate sweep's."""
    ran = _spy(monkeypatch)
    study = Study(crosshead(0.3), grid({"slider_rail.position.x": [0.0, 0.05],
                                        "slider.mass": [5.0, 8.0]}))
    res = study.run(duration=0.5, fps=100)
    assert ran == [(4, [True] * 4)] and not res.failures
    for i in range(len(study)):
        alone = study.variant(i).solve(0.5, 100)
        got = res.result(i)
        assert np.abs(got._r - alone._r).max() <= 1e-10
        assert _rel(got.friction("dry"), alone.friction("dry")) <= 1e-9


@pytest.mark.slow
def test_doors_onto_a_compliant_stop_run_in_lockstep(monkeypatch):
    """A door pulled shut onto a compliant stop (a force, no events: test_compliant_stops.py),
    its mass and the closer's damping varied: the explicit lockstep run takes every
    variant, each equal to its separate run to the last bit (its stop force too: a lone
    body's quaternion rate is taken so that it rounds as in a stack), each coming to rest
    where the stop balances the closer, k_s (-theta) = k_c (theta - theta_0)."""
    ran = _spy_dynamics(monkeypatch)
    th0, kc, ks = math.radians(-20.0), 20.0, 500.0
    m = door(kc, opened=60.0, closer_damping=5.0, stiffness=ks, exponent=1.0, damping=20.0,
             penetration=0.001)
    study = Study(m, grid({"door.mass": [8.0, 12.0], "closer.damping": [4.0, 6.0]}))
    res = study.run(duration=8.0, fps=50, tolerance=1e-7)
    assert ran == [(4, True)] and not res.failures
    expect = kc * th0 / (kc + ks)
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(8.0, 50, tolerance=1e-7)
        assert got.method == alone.method and got.steps == alone.steps
        assert np.array_equal(got._r, alone._r) and np.array_equal(got._w, alone._w)
        assert np.array_equal(got.limit("stop"), alone.limit("stop"))
        q = got.orientation("door")[-1]
        assert 2 * math.atan2(q[3], q[0]) == pytest.approx(expect, rel=1e-4)


@pytest.mark.slow
def test_blocks_dropped_onto_a_stiff_compliant_floor_equal_their_runs_bit_for_bit(monkeypatch):
    """Blocks of 1, 2 and 4 kg dropped 5 cm onto a stiff compliant floor (1e6 N/m^1.5):
    the explicit lockstep run, each variant equal to its separate run to the last bit,
    its steps and its floor force (up to 540 N) too.  A stiff contact magnifies any
    difference of rounding: a step size after a rejection taken by numpy's array power
    instead of the separate run's float power (one ulp) gave 1.7e-7 N."""
    res = _drops_in_lockstep(monkeypatch, {"block.mass": [1.0, 2.0, 4.0]}, 0.4)
    assert all(res.result(i).limit("floor").max() > 50.0 for i in range(3))


def _drops_in_lockstep(monkeypatch, vary: dict, duration: float):
    """A block dropped 5 cm onto a stiff compliant floor (1e6 N/m^1.5), three variants
    ``vary``: they run in the explicit lockstep run, each equal to its separate run to the
    last bit (steps, positions, velocities, floor force).  Returns the StudyResult."""
    ran = _spy_dynamics(monkeypatch)
    study = Study(dropped_block(h=0.05, k=1e6, n=1.5, c=200.0, d=1e-3), grid(vary))
    res = study.run(duration=duration, fps=100)
    assert ran == [(3, True)] and not res.failures
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(duration, 100)
        assert got.steps == alone.steps
        assert np.array_equal(got._r, alone._r) and np.array_equal(got._v, alone._v)
        assert np.array_equal(got.limit("floor"), alone.limit("floor"))
    return res


@pytest.mark.slow
def test_friction_coefficients_and_stop_laws_are_study_parameters(monkeypatch):
    """A joint friction's coefficients and a stop's law vary like any parameter (each
    variant's item re-added through add_friction / add_limit, which validates it):
    - the dry crosshead (crank 0.8 m, rod 1 m) over four pairs of coefficients: one
      batched sweep; the variant slipping at 0.95 jams where tan(phi) > 1 / 0.95 and
      fails alone with its sweep's message, the others finish, each equal to its own sweep
      (the friction at 0.3 the same whatever the static coefficient: the slider moves);
    - the pressed block's compliant floor over stiffness x exponent: one batched sweep,
      each variant's force its own closed form k delta^n + c(delta) delta';
    - blocks dropped on floors of three stiffnesses: the explicit lockstep run, each equal
      to its separate run to the last bit;
    - a dynamic coefficient above the static one is refused naming the variant."""
    ran = _spy(monkeypatch)
    study = Study(crosshead(0.3), [{"dry.static": s, "dry.dynamic": d}
                                   for s, d in ((0.5, 0.3), (0.95, 0.3), (0.95, 0.5), (0.95, 0.95))])
    assert [n for n in parameter_names(crosshead(0.3)) if n.startswith("dry.")][:2] == \
        ["dry.static", "dry.dynamic"]
    res = study.run(duration=0.5, fps=100)
    jam = [i for i, row in enumerate(study.variants) if row["dry.dynamic"] == 0.95]
    assert len(ran) == 1 and [not ok for ok in ran[0][1]] == [i in jam for i in range(4)]
    assert sorted(res.failures) == jam and all("jam at t = " in res.failures[i] for i in jam)
    for i in (i for i in range(4) if i not in jam):
        got, alone = res.result(i), study.variant(i).solve(0.5, 100)
        assert _rel(got.friction("dry"), alone.friction("dry")) <= 1e-9
        assert _rel(got.effort("drive"), alone.effort("drive")) <= 1e-9
    np.testing.assert_allclose(res.result(1).friction("dry")[1:],
                               res.result(0).friction("dry")[1:], rtol=1e-12)
    assert np.abs(res.result(2).friction("dry")).max() > 1.5 * np.abs(res.result(0).friction("dry")).max()
    ran.clear()
    m = dropped_block(h=0.01, k=1e5, n=1.5, c=50.0, d=1e-3)
    m.add_motion("press", "drop", "0.01 - 0.1*t", coordinate="slide")
    study = Study(m, grid({"floor.stiffness": [5e4, 1e5], "floor.exponent": [1.0, 1.5]}))
    res = study.run(duration=0.2, fps=100)
    assert ran == [(4, [True] * 4)] and not res.failures
    for i, row in enumerate(study.variants):
        r = res.result(i)
        push = pressed_floor_push(r.times, row["floor.stiffness"], row["floor.exponent"])
        np.testing.assert_allclose(r.limit("floor"), push, rtol=1e-9, atol=1e-9)
    _drops_in_lockstep(monkeypatch, {"floor.stiffness": [5e5, 1e6, 2e6]}, 0.3)
    with pytest.raises(StudyError, match=r"variant 1: dry.dynamic = 0.6: friction 'dry': the "
                                         r"dynamic coefficient 0.6 exceeds the static 0.5"):
        Study(crosshead(0.5), grid({"dry.dynamic": [0.3, 0.6]}))
    with pytest.raises(StudyError, match=r"variant 1: floor.stiffness = -1: limit 'floor'"):
        Study(m, grid({"floor.stiffness": [1e5, -1.0]}))
    with pytest.raises(StudyError, match=r"limit 'floor' has no parameter 'restitution'; its "
                                         r"parameters: lower, stiffness, exponent, damping"):
        Study(m, grid({"floor.restitution": [0.5]}))        # (a compliant stop: its law)


def test_a_rigid_stop_never_reached_with_its_bound_varied_sweeps_as_one(monkeypatch):
    """A rigid stop on the crosshead's slide that the motion never reaches, its upper
    bound varied with the crank radius: one batched sweep with no note, each variant equal
    to its own sweep, also where a few slow frames iterate alone on their variants' own
    models (study/stack.py take_variants took the stops' bounds of the whole stack there:
    a broadcasting error sent every variant one by one)."""
    ran = _spy(monkeypatch)
    m = slider_crank(r=0.3, l=1.0, omega=20.0, masses=(1.0, 1.0, 5.0))
    m.add_limit("lim", "slide", lower=-5.0, upper=5.0)
    study = Study(m, grid({"crank_A.position.x": [0.2, 0.3, 0.4, 0.5], "lim.upper": [4.0, 5.0]}))
    res = study.run(duration=1.0, fps=100)
    assert ran == [(8, [True] * 8)] and not res.failures
    assert [n for n in res.notes if "least-norm shares" not in n] == []   # (lower pairs)
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(1.0, 100)
        assert np.abs(got._r - alone._r).max() <= 1e-10
        assert _rel(got.effort("drive"), alone.effort("drive")) <= 1e-9


def test_a_balls_friction_offers_no_thrust_arm_or_bearing():
    """A spherical joint's friction has a radius but no thrust arm or bearing length (the
    Builder refuses them on a ball): its study parameters leave them out."""
    from test_friction_ball import pendulum
    m = pendulum(5.0)
    names = [n for n in parameter_names(m) if n.startswith("dry.")]
    assert "dry.radius" in names and "dry.arm" not in names and "dry.bearing_length" not in names


def driven_revolute_chain(n: int) -> Mechanism:
    """bench/bench_kinematics.py's driven chain: n links of 1 m on revolute joints
    alternately about world z and y, each turned by its own motion (5 n rows)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(
        "bench_kinematics", os.path.join(root, "bench", "bench_kinematics.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.driven_chain(n)


def test_a_larger_mechanism_sweeps_as_one_where_its_sweep_solves_densely(monkeypatch):
    """A driven chain of 5 revolute links (25 rows, over MIN_BANDED, its J M^-1 J^T not
    banded: the single sweep solves it densely, as the batch does) sweeps as one, each
    variant equal to its own sweep; one of 12 links (60 rows, banded: the single sweep
    solves through S = J M^-1 J^T, whose rounding, cond(J)^2, parted a batch's reactions
    from the sweeps' by 1e-9) runs one by one, each its separate sweep exactly."""
    ran = []
    real = engine._sweeps

    def spy(models, *a):
        out = real(models, *a)
        ran.append((len(models), out is not None))
        return out
    monkeypatch.setattr(engine, "_sweeps", spy)
    for n, together in ((5, True), (12, False)):
        ran.clear()
        study = Study(driven_revolute_chain(n),
                      latin_hypercube({f"l{k}.mass": (0.8, 1.2) for k in range(n)}, 4, seed=2))
        res = study.run(duration=0.5, fps=60)
        assert ran[0] == (4, together) and not res.failures
        for i in range(len(study)):
            got, alone = res.result(i), study.variant(i).solve(0.5, 60)
            assert np.abs(got._r - alone._r).max() <= 1e-10
            assert _rel(got._reaction, alone._reaction) <= (1e-10 if together else 0.0)


def test_wheels_pushed_past_pi_into_compliant_stops_run_in_lockstep(monkeypatch):
    """The spinning wheel of test_limits.py pushed into its compliant stop at 3 rad, the
    stop's stiffness 10 and 40 N m/rad: each turns back past pi, at 3 + 5 sqrt(I / k) rad
    (3.5 and 3.25), its stop reading the joint's continuous angle, a turn carried as each
    variant's run state.  The explicit lockstep run takes both, each equal to its separate
    run to the last bit (its stop's force too), each on the closed form to 5e-7 rad at
    the tolerance 1e-8 (the integration's error there: 1.6e-7 and 1.7e-8 rad; at 1e-6,
    7e-6 and 4e-5 rad, the step across the force's kink at the stop)."""
    from test_limits import soft_wheel_angle, spinning_wheel_on_a_soft_stop
    from solver.analyses.checks.joint_angles import joint_angle
    ran = _spy_dynamics(monkeypatch)
    study = Study(spinning_wheel_on_a_soft_stop(), grid({"soft.stiffness": [10.0, 40.0]}))
    res = study.run(duration=1.5, fps=50, tolerance=1e-8)
    assert ran == [(2, True)] and not res.failures
    for i, k in enumerate((10.0, 40.0)):
        got, alone = res.result(i), study.variant(i).solve(1.5, 50, tolerance=1e-8)
        assert got.steps == alone.steps
        assert np.array_equal(got._r, alone._r) and np.array_equal(got._w, alone._w)
        assert np.array_equal(got.limit("soft"), alone.limit("soft"))
        angle = joint_angle(got, "pin")
        assert np.abs(angle - soft_wheel_angle(got.times, k)).max() < 5e-7
        assert angle.max() > 3.2
