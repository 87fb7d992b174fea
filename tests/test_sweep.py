"""The kinematic sweep solves blocks of frames at once (solver/analyses/sweep/).  It must give what
a frame-by-frame sweep gives (blocks of one frame), stay on the assembly branch when the
frames are coarse, and stop at the same frame on a lock-up; motion tables evaluated over
all frames at once must equal per-time evaluation."""
from __future__ import annotations

import math

import numpy as np
import pytest

import solver.analyses.sweep as sweep
from solver import SolverError
from solver.vocabulary.timefunctions import time_function
from bench.bench_kinematics import driven_chain
from tests.mechanisms import (four_bar, four_bar_angles, joint_gaps, planar_angle,
                              slider_crank, slider_crank_closed_form)


def frame_by_frame(monkeypatch: pytest.MonkeyPatch, mech, *args):
    with monkeypatch.context() as mp:
        mp.setattr(sweep, "BLOCK_FIRST", 1)
        mp.setattr(sweep, "BLOCK_MAX", 1)
        return mech.solve(*args)


def count_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    sizes: list[int] = []
    newton = sweep._newton

    def spy(model, alg, R, P, fv, ref=None):
        sizes.append(R.shape[1])                 # (variants, frames, ...)
        return newton(model, alg, R, P, fv, ref)
    monkeypatch.setattr(sweep, "_newton", spy)
    return sizes


def with_springs():
    """Slider-crank with a spring-damper from ground to the slider and a torsion spring on
    the crank pin, so the reactions and the motor effort include force elements."""
    m = slider_crank(wobble=0.3)
    m.add_marker("anchor", "ground", position=(0.6, 0.05, 0))
    m.add_spring_damper("sd", "slider_B", "anchor", stiffness=300.0, damping=4.0, free_length=0.1)
    m.add_torsion_spring("ts", "crank_rod", stiffness=2.0, damping=0.1)
    return m


def redundant_four_bar():
    """The planar four-bar of four revolutes is over-constrained in 3-D (three redundant
    equations): the joints' multipliers are the least-norm set."""
    m = four_bar(wobble=0.1)
    assert sum(len(v) for v in m.check().redundant.values()) == 3
    return m


CASES = {
    "slider-crank": lambda: slider_crank(wobble=0.4),
    "four-bar crossed": lambda: four_bar(branch=-1, wobble=0.2),
    "redundant four-bar": redundant_four_bar,
    "force elements": with_springs,
}


@pytest.mark.parametrize("case", list(CASES))
def test_blocks_give_the_frame_by_frame_result(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every output of a 120-frame sweep equals the one-frame-at-a-time sweep.  Both converge
    Newton to 1e-12 of the length scale from different starts, so poses agree to ~1e-12;
    rates and forces are solved from them with condition numbers of ~1e2 (1e-9 relative)."""
    ref = frame_by_frame(monkeypatch, CASES[case](), 1.0, 120)
    sizes = count_blocks(monkeypatch)
    res = CASES[case]().solve(1.0, 120)
    assert max(sizes) >= 32 and len(sizes) < 20          # solved in a few large blocks
    model = res.model
    for part in model.body_part:
        for get in ("position", "orientation"):
            np.testing.assert_allclose(getattr(res, get)(part), getattr(ref, get)(part), atol=1e-10)
        for get, scale in (("velocity", 10.0), ("angular_velocity", 50.0),
                           ("acceleration", 500.0), ("angular_acceleration", 2000.0)):
            np.testing.assert_allclose(getattr(res, get)(part), getattr(ref, get)(part),
                                       atol=1e-9 * scale)
    lam_scale = np.abs(ref.multipliers).max()
    np.testing.assert_allclose(res.multipliers, ref.multipliers, atol=1e-9 * lam_scale)
    for j in model.joint_names:
        for a, b in zip(res.reaction(j), ref.reaction(j)):
            np.testing.assert_allclose(a, b, atol=1e-9 * lam_scale)
    np.testing.assert_allclose(res.effort("drive"), ref.effort("drive"), atol=1e-9 * lam_scale)
    for a, b in zip(res.energy(), ref.energy()):
        np.testing.assert_allclose(a, b, atol=1e-9 * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize("fps", [8.0, 12.0, 240.0])
def test_slider_crank_stays_on_its_branch(fps: float) -> None:
    """1 rev/s at 8 fps is 45 degrees a frame: predictions many frames ahead are far off
    and may converge to the mirrored assembly (slider on -x); the sweep must follow the
    closed form of the branch it started on for four revolutions (to 1e-10 m: Newton leaves
    ~1e-12 m; the mirrored branch is 2 sqrt(l^2 - r^2) = 0.57 m or more away)."""
    res = slider_crank().solve(4.0, fps)
    th = 2 * math.pi * res.times
    exact = slider_crank_closed_form(th, 0 * th, 0 * th, 0.1, 0.3, 0.0)
    np.testing.assert_allclose(res.position("slider")[:, 0], exact.x, atol=1e-10)


@pytest.mark.parametrize("fps", [10.0, 240.0])
def test_crossed_four_bar_stays_crossed(fps: float) -> None:
    """The crossed circuit at 10 fps (36 degrees a frame) and 240 fps: the rocker angle
    follows the crossed closed form for three revolutions to 1e-9 rad (Newton precision;
    the open circuit is over 1 rad away: test_four_bar_branches_are_distinct)."""
    res = four_bar(branch=-1).solve(3.0, fps)
    th2 = 2 * math.pi * res.times
    th3, th4 = four_bar_angles(th2, 0.4, 1.0, 0.8, 1.0, branch=-1)
    q = res.orientation("rocker")
    got = 2 * np.arctan2(q[:, 3], q[:, 0])
    np.testing.assert_allclose(np.angle(np.exp(1j * (got - th4))), 0.0, atol=1e-9)


def test_lock_up_inside_a_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """Crank 0.3, rod 0.2 at 240 fps: no pose past 0.3 sin(th) = 0.2 (t = 0.11614 s), so
    frame 28 (t = 0.11667 s) fails inside a block; the error and the kept frames are those
    of the frame-by-frame sweep."""
    with pytest.raises(SolverError, match=r"frame 28\)") as ref:
        frame_by_frame(monkeypatch, slider_crank(0.3, 0.2), 1.0, 240)
    with pytest.raises(SolverError, match=r"lock-up at t = 0.116667 s \(frame 28\)") as err:
        slider_crank(0.3, 0.2).solve(1.0, 240)
    got, want = err.value.result, ref.value.result
    assert len(got.times) == len(want.times) == 28
    np.testing.assert_allclose(got.position("slider"), want.position("slider"), atol=1e-10)
    assert set(err.value.joints) == set(ref.value.joints)


@pytest.mark.parametrize("spec", ["2*pi*t", "0.2*sin(2*pi*t + 0.3) - t**3", "3",
                                  "step5(t, 0.2, 0, 1.1, 2) + ramp(t, 0.5, 1.5)",
                                  "max(t, 1 - t) * abs(t - 0.7)", "atan2(sin(3*t), cos(3*t) + 2)",
                                  "exp(-t) * log(1 + t) / sqrt(2 + t)"])
def test_motion_table_equals_per_time_values(spec: str) -> None:
    """A motion's table (value, rate, acceleration at every frame, vectorized) equals its
    per-time derivatives: the same arithmetic, so to rounding (1e-14)."""
    fn = time_function(spec, "m")
    ts = np.linspace(0.0, 2.0, 97)
    want = np.array([fn.derivatives(t) for t in ts])
    np.testing.assert_allclose(fn.table(ts), want, rtol=1e-14, atol=1e-14)


def test_motion_table_of_a_callable_and_a_failure() -> None:
    """A callable's table is its exact derivatives (t^3: 3 t^2, 6 t); an expression undefined
    at a frame names that time."""
    fn = time_function(lambda t: t * t * t, "cube")
    ts = np.linspace(0.0, 1.0, 5)
    np.testing.assert_allclose(fn.table(ts), np.stack([ts**3, 3 * ts**2, 6 * ts], 1))
    bad = time_function("sqrt(0.5 - t)", "drive")
    with pytest.raises(Exception, match=r"t=0.5"):
        bad.table(ts)


def test_a_singular_frame_in_a_stack_is_nan_and_the_others_are_solved() -> None:
    """The block solves fall back frame by frame when one frame's J is exactly singular:
    that frame comes out NaN (Newton then drops it), the others exact."""
    M = np.stack([np.diag([2.0, 4.0]), np.zeros((2, 2)), np.array([[1.0, 1.0], [0.0, 1.0]])])
    b = np.array([[2.0, 4.0], [1.0, 1.0], [3.0, 1.0]])
    x = sweep._solve_stack(M, b)
    np.testing.assert_allclose(x[[0, 2]], [[1.0, 1.0], [2.0, 1.0]], rtol=0, atol=1e-15)
    assert np.isnan(x[1]).all()
    inv = sweep._inverse(M)
    np.testing.assert_allclose(inv[0], np.diag([0.5, 0.25]), rtol=0, atol=1e-15)
    assert np.isnan(inv[1]).all() and np.isfinite(inv[2]).all()


def test_a_block_whose_frames_all_diverge_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """A driven chain of 200 links (bench/bench_kinematics.py), each revolute turned by
    0.2 sin(2 pi t + 0.1 k), from the Taylor prediction (the chain's exact poses as a
    tree, sweep/tree.py, would leave Newton nothing to diverge from): in the block of 8
    frames Newton diverges from the prediction for the frames furthest ahead until the
    last one's step is not finite, leaving none to iterate (this crashed, evaluating an
    empty stack); those frames are reported not converged, the block is cut and the sweep
    goes on: every frame is solved, the first link turns by its motion (to 1e-9 rad) and
    every joint is closed (1e-9 m)."""
    monkeypatch.setattr(sweep, "tree_poses", lambda *args: None)
    m = driven_chain(200)
    r = m.solve(0.5, 24)
    assert len(r) == 13
    q = r.orientation("l0")
    np.testing.assert_allclose(2.0 * np.arctan2(q[:, 3], q[:, 0]), 0.2 * np.sin(2 * np.pi * r.times),
                               atol=1e-9)
    assert max(joint_gaps(m, r).values()) < 1e-9


def driven_tree(flip_f: bool = False, copies: int = 3):
    """``copies`` side by side (0.5 m apart along z) of six parts on every joint kind the
    tree's forward kinematics places, three deep and with the child on marker I's or on
    marker J's side: a revolute turntable (a), a prismatic carriage along its x (b, marker
    J on the carriage), a cylindrical spindle on that (c: angle and slide), a part fixed to
    the spindle (d), a revolute crank about world y on the ground (e, marker J on the
    crank) and a revolute arm on it (f).  36 rows a copy, J M^-1 J^T banded.  ``flip_f``:
    the last arm's pin assembled with z_I = -z_J (the same rows; the tree's exact poses
    then do not hold and the sweep keeps its prediction)."""
    from solver import Mechanism
    from tests.mechanisms import quat_about
    along_x, along_y = quat_about("y", math.pi / 2), quat_about("x", -math.pi / 2)
    m = Mechanism()
    m.add_part("ground", fixed=True)
    for k in range(copies):
        z = 0.5 * k

        def at(x: float, y: float) -> tuple:
            return (x, y, z)
        for name, (x, y) in {"a": (0, 0), "b": (0.2, 0), "c": (0.3, 0), "d": (0.4, 0),
                             "e": (0, 1), "f": (0.5, 1)}.items():
            m.add_part(f"{name}{k}", mass=0.5, center_of_mass=(0.05, 0.02, 0.0),
                       position=at(x, y), inertia=(1e-3, 2e-3, 3e-3))
        m.add_marker(f"g.a{k}", "ground", position=at(0, 0)); m.add_marker(f"a.pin{k}", f"a{k}")
        m.add_joint(f"ja{k}", "revolute", f"a.pin{k}", f"g.a{k}")
        m.add_motion(f"turn{k}", f"ja{k}", f"0.5*sin(2*pi*t + {k})")
        m.add_marker(f"a.rail{k}", f"a{k}", orientation=along_x)
        m.add_marker(f"b.rail{k}", f"b{k}", orientation=along_x)
        m.add_joint(f"jb{k}", "prismatic", f"a.rail{k}", f"b.rail{k}")
        m.add_motion(f"push{k}", f"jb{k}", "-0.2 - 0.1*t")
        m.add_marker(f"b.cyl{k}", f"b{k}", position=(0.1, 0, 0)); m.add_marker(f"c.cyl{k}", f"c{k}")
        m.add_joint(f"jc{k}", "cylindrical", f"c.cyl{k}", f"b.cyl{k}")
        m.add_motion(f"spin{k}", f"jc{k}", "t")
        m.add_motion(f"lift{k}", f"jc{k}", "0.05*sin(2*pi*t)", coordinate="slide")
        m.add_marker(f"c.fix{k}", f"c{k}", position=(0.1, 0, 0)); m.add_marker(f"d.fix{k}", f"d{k}")
        m.add_joint(f"jd{k}", "fixed", f"d.fix{k}", f"c.fix{k}")
        m.add_marker(f"g.e{k}", "ground", position=at(0, 1), orientation=along_y)
        m.add_marker(f"e.pin{k}", f"e{k}", orientation=along_y)
        m.add_joint(f"je{k}", "revolute", f"g.e{k}", f"e.pin{k}")
        m.add_motion(f"crank{k}", f"je{k}", "0.3*t")
        m.add_marker(f"e.f{k}", f"e{k}", position=(0.5, 0, 0), orientation=along_y)
        flipped = flip_f and k == copies - 1
        m.add_marker(f"f.pin{k}", f"f{k}", orientation=quat_about("x", math.pi / 2) if flipped else along_y)
        m.add_joint(f"jf{k}", "revolute", f"f.pin{k}", f"e.f{k}")
        m.add_motion(f"swing{k}", f"jf{k}", "0.4*sin(3*t)")
    return m


def newton_iterations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The Newton iterations of each block the sweep solves, recorded as it runs."""
    its: list[int] = []
    newton = sweep._newton

    def spy(*args, **kwargs):
        out = newton(*args, **kwargs)
        its.append(out[5])
        return out
    monkeypatch.setattr(sweep, "_newton", spy)
    return its


@pytest.mark.parametrize("flip", [False, True])
def test_a_tree_of_driven_joints_starts_newton_on_its_solution(
        flip: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the banded path, an open tree of driven joints is placed joint by joint from its
    motions (sweep/tree.py): Newton takes no step after the assembled first frame and the
    blocks skip the smoothness check (the poses cannot leave their branch); a pin
    assembled flipped on its axis keeps the Taylor prediction, its Newton steps and the
    check.
    Either way every output agrees with the dense frame-by-frame sweep, which never uses
    the tree's poses: poses to 1e-10 (both within Newton's 1e-12 of the 1 m length
    scale), rates and forces to 1e-9 relative (J's condition ~1e2), and the driven pins
    turn by their motions to 1e-12 rad."""
    from solver.analyses.sweep import algebra
    its = newton_iterations(monkeypatch)
    smooth_checks: list[int] = []
    check = sweep.smooth_prefix
    monkeypatch.setattr(sweep, "smooth_prefix", lambda *a: smooth_checks.append(1) or check(*a))
    res = driven_tree(flip).solve(2.0, 30)
    assert len(its) > 3
    if flip:
        assert max(its[1:]) > 0 and smooth_checks
    else:                       # (and no branch to leave: no smoothness check either)
        assert its[1:] == [0] * (len(its) - 1) and not smooth_checks
    with monkeypatch.context() as mp:
        mp.setattr(algebra, "MIN_BANDED", 10 ** 9)        # the dense J^-1
        ref = frame_by_frame(monkeypatch, driven_tree(flip), 2.0, 30)
    for part in res.model.body_part:
        for get in ("position", "orientation"):
            np.testing.assert_allclose(getattr(res, get)(part), getattr(ref, get)(part), atol=1e-10)
        for get in ("velocity", "angular_velocity", "acceleration", "angular_acceleration"):
            b = getattr(ref, get)(part)
            np.testing.assert_allclose(getattr(res, get)(part), b,
                                       atol=1e-9 * max(1.0, np.abs(b).max()))
    lam_scale = np.abs(ref.multipliers).max()
    np.testing.assert_allclose(res.multipliers, ref.multipliers, atol=1e-9 * lam_scale)
    t = res.times
    for marker_i, marker_j, angle in (("a.pin1", "g.a1", 0.5 * np.sin(2 * np.pi * t + 1)),
                                      ("c.cyl2", "b.cyl2", t)):
        xi = res.marker_frame(marker_i)[1][:, :, 0]
        cj = res.marker_frame(marker_j)[1]
        got = np.arctan2(np.einsum("fi,fi->f", xi, cj[:, :, 1]), np.einsum("fi,fi->f", xi, cj[:, :, 0]))
        np.testing.assert_allclose(got, angle, atol=1e-12)


def test_a_long_driven_chains_rates_are_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """A driven chain of 30 links (bench/bench_kinematics.py, 180 rows: the banded path)
    is an open tree: its velocities and accelerations follow from the motions joint by
    joint, and agree with the dense J^-1 solve to 1e-10 of each quantity's largest value
    (the dense solve's own rounding, cond(J) eps, is ~1e-13 here).  Solved through
    J M^-1 J^T, whose condition is J's squared, they strayed by about 1e-8."""
    from solver.analyses.sweep import algebra
    res = driven_chain(30).solve(0.5, 60)
    with monkeypatch.context() as mp:
        mp.setattr(algebra, "MIN_BANDED", 10 ** 9)        # the dense J^-1
        ref = driven_chain(30).solve(0.5, 60)
    for get in ("velocity", "angular_velocity", "acceleration", "angular_acceleration"):
        got = np.stack([getattr(res, get)(p) for p in res.model.body_part])
        want = np.stack([getattr(ref, get)(p) for p in ref.model.body_part])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-10 * np.abs(want).max())


def wound_flywheel(omega: float) -> "Mechanism":
    """A flywheel (I_zz = 0.1 kg m^2) on a revolute about z, driven at omega t + t^2/2 rad
    against a torsion spring of 2 N m/rad (free at angle 0)."""
    from solver import Mechanism
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("fly", mass=1.0, inertia=(0.05, 0.05, 0.1))
    m.add_marker("O", "ground")
    m.add_marker("h", "fly")
    m.add_joint("pin", "revolute", "h", "O")
    m.add_torsion_spring("ts", "pin", stiffness=2.0)
    m.add_motion("drive", "pin", "w*t + 0.5*t**2", constants={"w": omega})
    return m


@pytest.mark.parametrize("blocks", ["blocks", "frame-by-frame"])
@pytest.mark.parametrize("omega, fps", [(100.0, 24.0), (40.0, 10.0)])
def test_a_torsion_spring_keeps_its_turns_when_its_joint_turns_far_between_frames(
        omega: float, fps: float, blocks: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Driven 4 to 4.2 rad between frames, the spring's angle is the motion's theta =
    omega t + t^2/2, wound over 16 turns: the motor's effort is I alpha + k theta = 0.1 +
    2 theta and the spring's energy k theta^2 / 2, exact to rounding (1e-9 of them).  Each
    frame's angle taken from the one before by the nearest whole turn had lost 2 pi every
    frame (effort 301 N m off at 24 fps); a block's first frame takes its turn from the
    block before, so frame by frame too."""
    m = wound_flywheel(omega)
    r = frame_by_frame(monkeypatch, m, 1.0, fps) if blocks != "blocks" else m.solve(1.0, fps)
    theta = omega * r.times + 0.5 * r.times ** 2
    np.testing.assert_allclose(r.effort("drive"), 0.1 + 2.0 * theta, rtol=0.0,
                               atol=1e-9 * 2.0 * theta.max())
    np.testing.assert_allclose(r.energy()[1], theta ** 2, rtol=0.0, atol=1e-9 * theta.max() ** 2)


def test_a_study_keeps_each_variants_torsion_turns_between_frames() -> None:
    """The study's sweep of variants evaluates a frame at a time for all of them: each
    variant's spring angle stays on its turn as its separate sweep's (two drives at 90 and
    100 rad/s, 3.75 and 4.2 rad between frames at 24 fps)."""
    res = wound_flywheel(100.0).study([{"drive.w": 100.0, "ts.stiffness": 2.0},
                                       {"drive.w": 90.0, "ts.stiffness": 3.0}],
                                      duration=1.0, fps=24)
    for i, (w, k) in enumerate(((100.0, 2.0), (90.0, 3.0))):
        r = res.result(i)
        theta = w * r.times + 0.5 * r.times ** 2
        np.testing.assert_allclose(r.effort("drive"), 0.1 + k * theta, rtol=0.0,
                                   atol=1e-9 * k * theta.max())


@pytest.mark.parametrize("fps", [24.0, 7.0])
def test_a_parallelogram_driven_through_its_lined_up_position_stays_parallel(fps: float) -> None:
    """A parallelogram's crank driven at pi rad/s from 90 degrees is lined up at t = 0.5 s,
    where its parallel and crossed branches meet; at 24 fps a frame lands there (frame 12).
    The sweep keeps the branch it came along: both cranks at the same angle at every frame
    (to 1e-5 rad: Newton's pose on the lined-up frame is as near as its tolerance allows
    along the direction the joints lose, ~sqrt(1e-12)) and the same speed, pi rad/s (1e-3
    on the lined-up frame, whose speeds are continued from the frame before: third order,
    (pi/24)^3 / 6 ~ 4e-4; 1e-9 elsewhere), and a note names the frame; at 7 fps, the
    instant between the two frames around it.  With that frame's
    speeds left to rounding (the follower's 1.05 rad/s) the next frame falls onto the
    crossed branch (the follower 0.17 rad off)."""
    from tests.test_singular_positions import parallelograms
    m = parallelograms(1, 30.0)                  # built at 30 degrees, assembled to 90
    m.add_motion("turn", "pivot0", "pi/2 + pi*t")
    res = m.solve(1.0, fps)
    a0 = np.unwrap(planar_angle(res.orientation("crank0")))
    a1 = np.unwrap(planar_angle(res.orientation("crank1")))
    np.testing.assert_allclose(a0, np.pi / 2 + np.pi * res.times, atol=1e-12)
    assert np.abs(a1 - a0).max() < 1e-5
    w1 = res.angular_velocity("crank1")[:, 2]
    lined = np.isclose(res.times, 0.5)
    assert np.abs(w1[~lined] - np.pi).max() < 1e-9
    assert np.abs(w1[lined] - np.pi).max(initial=0.0) < 1e-3
    assert max(joint_gaps(m, res).values()) < 1e-9
    passed = [n for n in res.notes if "singular position of the joints" in n]
    if fps == 24.0:
        assert len(passed) == 1 and "at t = 0.5 s (frame 12) on the branch" in passed[0]
    else:                         # passed between frames 3/7 and 4/7 s (sweep/poles.py)
        assert not passed
        between = [n for n in res.notes if "singular position (joints" in n]
        assert len(between) == 1 and "at t = 0.5 s (between frames 3 and 4)" in between[0]
