"""Dynamics through positions where a mechanism is singular: a slider-crank
carried through its dead centres by a flywheel, and chains of parallelogram four-bars
through the instants their links line up (a bifurcation: the constraints lose rank there).

Each must stay on the physical branch (the one the momentum carries: a parallelogram stays
a parallelogram), follow an independent one-degree-of-freedom reference, and keep its
energy to the run's goal (1e-6 relative), with a note where a singular position was
passed.  (A motion driven into a position it cannot pass is not such a position: it stays a
lock-up, tests/test_statics_stiff.py "unreachable".)"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mechanisms import (AXIS_MARKER, G, joint_gaps, planar_angle, quat_about, rod_inertia,
                        slider_crank)
from solver import Mechanism, SolverError


def test_flywheel_carries_the_slider_crank_through_dead_centres() -> None:
    """A 10 kg crank spun at 12 rad/s with no motion: about 2.8 turns in 2 s, 5 dead
    centres, the crank never turning back; energy to 1e-8 of the kinetic energy (the run's
    goal is 1e-6 relative, the integrator's local tolerance two decades under it)."""
    m = slider_crank(variant="RRLP", masses=(10.0, 1.0, 2.0), error_deg=0.0, error_m=0.0)
    m.motions.clear()
    m.parts["crank"].angular_velocity = np.array([0.0, 0.0, 12.0])
    res = m.solve(2.0, 48, analysis="dynamic")
    th = np.unwrap(planar_angle(res.orientation("crank")))
    turns = (th[-1] - th[0]) / (2 * np.pi)
    assert turns > 2.5 and np.all(np.diff(th) > 0)
    ke, pe, _ = res.energy()
    assert np.abs(ke + pe - ke[0] - pe[0]).max() < 1e-8 * ke[0]
    assert max(joint_gaps(m, res).values()) < 1e-10
    w = res.angular_velocity("crank")[:, 2]
    assert w.max() - w.min() > 0.1 * w.mean()     # the crank's speed varies over a turn


def parallelograms(n: int, start_deg: float, w0: float = 0.0) -> Mechanism:
    """n parallelogram four-bars side by side, hinged to ground at x = 0..n: cranks of
    0.5 m (1 kg rods) about z, couplers of 1 m (2 kg) joining neighbouring crank tips,
    gravity -y; the cranks start at ``start_deg`` from +x turning at w0 rad/s."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    th = np.radians(start_deg)
    for k in range(n + 1):
        m.add_part(f"crank{k}", mass=1.0, inertia=rod_inertia(1.0, 0.5), center_of_mass=(0.25, 0, 0),
                   position=(k, 0, 0), orientation=quat_about("z", th), angular_velocity=(0, 0, w0))
        m.add_marker(f"O{k}", "ground", position=(k, 0, 0))
        m.add_marker(f"c{k}", f"crank{k}")
        m.add_marker(f"t{k}", f"crank{k}", position=(0.5, 0, 0))
        m.add_joint(f"pivot{k}", "revolute", f"c{k}", f"O{k}")
    for k in range(n):
        tip = (k + 0.5 * np.cos(th), 0.5 * np.sin(th), 0.0)
        m.add_part(f"coupler{k}", mass=2.0, inertia=rod_inertia(2.0, 1.0), center_of_mass=(0.5, 0, 0),
                   position=tip, velocity=(-w0 * 0.5 * np.sin(th), w0 * 0.5 * np.cos(th), 0.0))
        m.add_marker(f"a{k}", f"coupler{k}")
        m.add_marker(f"b{k}", f"coupler{k}", position=(1, 0, 0))
        m.add_joint(f"pinA{k}", "revolute", f"a{k}", f"t{k}")
        m.add_joint(f"pinB{k}", "revolute", f"b{k}", f"t{k + 1}")
    return m


def one_dof_reference(n: int, start_deg: float, w0: float, times: np.ndarray) -> np.ndarray:
    """On the parallelogram branch every crank has the same angle theta and the couplers
    translate: J theta'' = -C cos(theta), J = (n+1) I_pivot + n m_c r^2, C = g ((n+1) m r/2
    + n m_c r) with r = 0.5 (scipy at 1e-12)."""
    I_pivot = rod_inertia(1.0, 0.5)[2] + 1.0 * 0.25 ** 2
    J = (n + 1) * I_pivot + n * 2.0 * 0.25
    C = G * ((n + 1) * 0.25 + n * 1.0)
    sol = solve_ivp(lambda t, y: [y[1], -C * np.cos(y[0]) / J], (times[0], times[-1]),
                    [np.radians(start_deg), w0], t_eval=times, rtol=1e-12, atol=1e-12)
    return sol.y[0]


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 10])
@pytest.mark.parametrize("start_deg", [60.0, 0.5])
def test_parallelograms_pass_the_lined_up_positions(n: int, start_deg: float) -> None:
    """Released at rest 60 degrees up, the cranks swing through the lined-up positions (0
    and 180 degrees) at speed; released 0.5 degrees above the lined-up position, they
    reach the other one (180 degrees) with almost no speed left and turn back there; at
    least four crossings in 3 s, the swing symmetric about straight down.
    Every crank keeps the same angle (the parallelogram branch), the angle follows the
    one-degree-of-freedom reference to 1e-5 rad over 3 s (measured 2.6e-7 at worst: 10 loops
    from 0.5 degrees), energy holds to 1e-6 of its swing, and the joints stay closed."""
    m = parallelograms(n, start_deg)
    res = m.solve(3.0, 48, analysis="dynamic")
    first = np.unwrap(planar_angle(res.orientation("crank0")))
    last = np.unwrap(planar_angle(res.orientation(f"crank{n}")))
    ref = one_dof_reference(n, start_deg, 0.0, res.times)
    crossings = np.sum(np.diff(np.sign(np.sin(first))) != 0)
    assert crossings >= 4                                     # lined up at 0 or 180 deg
    # symmetry: it swings between its start and the mirror image about straight down
    turn = np.radians(-180.0 - start_deg)
    assert turn - 1e-6 <= first.min() <= turn + 1e-3          # never past it; frames come near
    assert np.abs(first - last).max() < 1e-6                  # rad: the same branch
    assert np.abs(first - ref).max() < 1e-5                   # rad, after 3 s
    ke, pe, _ = res.energy()
    assert np.abs(ke + pe - ke[0] - pe[0]).max() < 1e-6 * np.ptp(pe)
    assert max(joint_gaps(m, res).values()) < 1e-9
    assert any("singular position" in note for note in res.notes)
    lam = res.multipliers
    assert np.all(np.isfinite(lam))


def bennett(theta: float = 0.6, a: float = 0.3, alpha: float = np.radians(50),
            beta: float = np.radians(80)) -> Mechanism:
    """Bennett's linkage: four links on revolutes whose axes are skew, closed in space with
    one freedom although the count of equations (20 for 18 coordinates) leaves none:
    opposite links of equal length (a, b) and twist (alpha, beta) with a / sin(alpha) =
    b / sin(beta) (Bennett 1903).  Link i carries joint axis i (its z) and, at the end of its
    common normal (x, length a_i), axis i+1 turned by the twist about x; link 0 is the
    ground.  Parts are placed by chaining rough joint angles; assembly closes the loop."""
    b = a * np.sin(beta) / np.sin(alpha)
    lengths, twists = [a, b, a, b], [alpha, beta, alpha, beta]

    def rot(axis: int, t: float) -> np.ndarray:
        c, s_ = np.cos(t), np.sin(t)
        i, j = [(1, 2), (2, 0), (0, 1)][axis]
        R = np.eye(3)
        R[i, i], R[i, j], R[j, i], R[j, j] = c, -s_, s_, c
        return R

    def quat(R: np.ndarray) -> np.ndarray:      # rotation matrix -> (w, x, y, z)
        w = np.sqrt(max(1.0 + np.trace(R), 1e-12)) / 2
        return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w),
                         (R[1, 0] - R[0, 1]) / (4 * w)])

    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("link0", fixed=True)
    R, pos = np.eye(3), np.zeros(3)
    for i, th in enumerate([0.0, theta, 2.5, 0.3 - theta]):
        R = R @ rot(2, th)
        if i:
            m.add_part(f"link{i}", mass=1.0, inertia=(0.002, 0.01, 0.01),
                       center_of_mass=(lengths[i] / 2, 0, 0), position=pos, orientation=quat(R))
        pos = pos + R @ np.array([lengths[i], 0.0, 0.0])
        R = R @ rot(0, twists[i])
    for i in range(4):
        j = (i + 1) % 4
        m.add_marker(f"out{i}", f"link{i}", position=(lengths[i], 0, 0), orientation=quat(rot(0, twists[i])))
        m.add_marker(f"in{j}", f"link{j}")
        m.add_joint(f"R{j}", "revolute", f"in{j}", f"out{i}")
    return m


@pytest.mark.slow
def test_bennett_linkage_moves_for_ten_seconds() -> None:
    """Three of its equations are redundant, and which three changes as it moves: swinging
    under gravity for 10 s it keeps one freedom, its joints closed to 1e-9 m and its energy
    to 1e-8 of its swing (1e-6 asked), with no step collapse."""
    m = bennett()
    report = m.check()
    assert report.ok and report.dof == 1
    m.assemble()
    res = m.solve(10.0, 24, analysis="dynamic")
    ke, pe, _ = res.energy()
    assert np.ptp(pe) > 1.0                                   # J: it really swings
    assert np.abs(ke + pe - ke[0] - pe[0]).max() < 1e-8 * np.ptp(pe)
    assert max(joint_gaps(m, res).values()) < 1e-9
    assert res.steps < 2000


def test_least_norm_solves_follow_the_run_state_and_end_with_a_change_of_rows(monkeypatch) -> None:
    """The equations solve J M^-1 J^T by least norm exactly while the run state they are
    told says the run passes a singular position (RunState.robust), and a change of kept
    rows (switching.use_rows) tells a record with it off: a right-hand side of a pendulum
    makes one least-norm solve told robust, none after the change of rows (counted), and
    the record told before is left as it was."""
    from solver.algebra.schur import Schur
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.dynamics.switching import use_rows
    from solver.analyses.structure import structure
    from mechanisms import pendulum
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = pendulum(angle=0.3)
    model = compile_model(m)
    st = read_state(model, m)
    rows = structure(model, st.r, st.p)
    eq = Equations(model, rows)
    calls = []
    least = Schur.solve_least_norm
    monkeypatch.setattr(Schur, "solve_least_norm",
                        lambda self, *a: calls.append(1) or least(self, *a))
    y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
    eq.tell(eq.run.solving(True))
    told = eq.run
    eq.rhs(0.0, y)
    assert len(calls) == 1
    run = use_rows(eq, rows)
    eq.rhs(0.0, y)
    assert len(calls) == 1 and not run.robust and eq.run is run and told.robust


@pytest.mark.parametrize("driven", [False, True])
def test_a_parallelogram_built_lined_up_is_refused_naming_its_joints(driven: bool) -> None:
    """Built exactly lined up (cranks along the ground), a parallelogram is at a bifurcation:
    its equations lose rank there, one more of them (a pivot's x) is redundant than
    anywhere near it, and which branch (parallel or crossed) it takes is undecided.  A run
    that drops that row as redundant lets the pivot come apart (cranks at 2 rad/s: by
    0.93 m in 1 s, under a note calling it imperfect geometry), driven or not.  check()
    names it as a problem and solve() refuses it, naming the loop's joints; built 0.5
    degrees off (the test above) it runs."""
    m = parallelograms(1, 0.0, w0=2.0)
    if driven:
        m.add_motion("turn", "pivot0", "2*t")
    report = m.check()
    assert not report.ok
    assert any("singular position" in p and "'pivot1'" in p for p in report.problems)
    with pytest.raises(SolverError, match=r"starts at a singular position at t = 0 s") as err:
        m.solve(1.0, 24)
    assert set(err.value.joints) == {"pivot0", "pivot1", "pinA0", "pinB0"}


def test_statics_and_modes_of_a_parallelogram_built_lined_up_are_those_near_it() -> None:
    """From the lined-up build the equilibrium hangs straight down with every joint closed,
    and its one mode is the one-freedom pendulum's: J theta'' = -C cos(theta) about
    theta = -90 deg gives f = sqrt(C / J) / (2 pi) (one_dof_reference's J and C), 0.748 Hz.
    The rows kept at the lined-up build would leave the pivot free to open: a second,
    spurious mode, and 0.565 Hz for the first."""
    I_pivot = rod_inertia(1.0, 0.5)[2] + 1.0 * 0.25 ** 2
    J, C = 2 * I_pivot + 2.0 * 0.25, G * (2 * 0.25 + 1.0)
    modes = parallelograms(1, 0.0).modes()
    assert modes.frequencies == pytest.approx([np.sqrt(C / J) / (2 * np.pi)], rel=1e-9)
    m = parallelograms(1, 0.0)
    rest = m.statics()
    assert max(joint_gaps(m, rest).values()) < 1e-12
    for crank in ("crank0", "crank1"):
        assert planar_angle(rest.orientation(crank))[0] == pytest.approx(-np.pi / 2, abs=1e-9)


def test_posing_a_parallelogram_built_lined_up_keeps_its_joints_closed() -> None:
    """Its crank set to 0.5 rad from the lined-up build, the poser stays on the joints (to
    1e-12 m): the coupler's ends on both crank tips.  With the rows kept at the lined-up
    build a pivot was left open by 0.09 m."""
    poser = parallelograms(1, 0.0).poser()
    poser.set_coordinate("pivot0", 0.5)
    origins, quats = poser.part_poses()
    at = dict(zip(poser.model.body_part, zip(origins, quats)))
    tip = lambda k: np.array([k, 0.0, 0.0]) + 0.5 * np.array(  # noqa: E731
        [np.cos(planar_angle(at[f"crank{k}"][1])), np.sin(planar_angle(at[f"crank{k}"][1])), 0])
    coupler_angle = planar_angle(at["coupler0"][1])
    end = at["coupler0"][0] + np.array([np.cos(coupler_angle), np.sin(coupler_angle), 0.0])
    assert planar_angle(at["crank0"][1]) == pytest.approx(0.5, abs=1e-12)
    assert np.abs(at["coupler0"][0] - tip(0)).max() < 1e-12
    assert np.abs(end - tip(1)).max() < 1e-12


def slide_driven_slider_crank(push: str, x0: float) -> Mechanism:
    """tests/mechanisms.py's slider-crank (crank 0.1 m, rod 0.3 m) driven by its slide
    ("push", x m along world x) instead of its crank, built exactly at x0 on the branch of
    positive crank angles: its dead centre is x = r + l = 0.4 m, crank and rod in line."""
    r, l = 0.1, 0.3
    theta0 = np.arccos((r * r + x0 * x0 - l * l) / (2 * r * x0))
    m = slider_crank(r, l, place_theta=float(theta0), error_deg=0.0, error_m=0.0,
                     flywheel=(0.004, 0.0))
    m.add_motion("push", "slide", push)
    return m


def crank_through(t: np.ndarray, tc: float) -> np.ndarray:
    """The crank's angle (rad) of ``slide_driven_slider_crank`` driven by x = 0.4 - 0.05
    (t - tc)^2 m, which touches the dead centre at tc and turns back, the crank carried
    through it onto negative angles: sign(tc - t) arccos((r^2 + x^2 - l^2) / (2 r x))."""
    r, l = 0.1, 0.3
    x = 0.4 - 0.05 * (np.asarray(t) - tc) ** 2
    return np.sign(tc - t) * np.arccos(np.clip((r * r + x * x - l * l) / (2 * r * x), -1, 1))


def test_a_sweep_frame_on_a_motions_dead_centre_passes_it_on_its_branch() -> None:
    """The slide driven by x = 0.4 - 0.05 (t - 1)^2 m touches the dead centre at t = 1 s,
    frame 24 at 24 fps, and turns back: the crank passes through theta = 0 at the speed
    the frames before carry, -sqrt(0.05 / c) = -0.866 rad/s (x = 0.4 - c theta^2 near it,
    c = r (1 + r / l) / 2), onto negative angles: cos theta = (r^2 + x^2 - l^2) / (2 r x),
    theta of the sign of 1 - t.  That frame's rates came out of a solve with the motion's
    row dependent on the joints': 0 rad/s, the next frame at +0.036 rad (the branch it
    came from) and the one after at -0.072 rad, the slide's effort -2.2e10 N, no note."""
    r, l = 0.1, 0.3
    m = slide_driven_slider_crank("0.4 - 0.05*(t - 1)**2", 0.35)
    res = m.solve(duration=2.0, fps=24)
    t = res.times
    theta = crank_through(t, 1.0)
    # Newton closes the joints to ~1e-12 m; arccos near theta = 0 loses half the digits
    # (1e-8 rad at the frames beside it), so 1e-7 rad
    np.testing.assert_allclose(planar_angle(res.orientation("crank")), theta, atol=1e-7)
    c = r * (1.0 + r / l) / 2.0
    # the crank's speed at frame 24 is continued from frame 23 to third order in the
    # frame's 1/24 s: its speed changes by 1e-3 rad/s over the frames beside it, so 1e-3
    assert res.angular_velocity("crank")[24, 2] == pytest.approx(-np.sqrt(0.05 / c), abs=1e-3)
    # the slide's effort at its neighbours is -0.1317 N; at frame 24 it is not determined
    # by rigid joints (a self-stress along crank and rod), said in the note, and bounded
    assert np.all(np.abs(res.effort("push")) < 1.0)
    assert any("t = 1 s (frame 24)" in n and "dead centre of motion 'push'" in n
               for n in res.notes), res.notes


def test_a_slide_driven_onto_its_dead_centre_still_moving_locks_up_at_that_frame() -> None:
    """x = 0.38 + 0.02 t m reaches the dead centre at t = 1 s (frame 24) still pushing at
    0.02 m/s, which no crank speed gives there (x' = -2 c theta theta' = 0 at theta = 0):
    the lock-up is that frame, naming the motion's dead centre, with frames 0-23 kept.
    Frame 24 was kept with the crank at -63,000 rad/s and the slide's effort 7.7e19 N, the
    lock-up said at frame 25."""
    m = slide_driven_slider_crank("0.38 + 0.02*t", 0.38)
    with pytest.raises(SolverError, match=r"lock-up at t = 1 s \(frame 24\): motion 'push' "
                                          r"reaches a dead centre") as err:
        m.solve(duration=2.0, fps=24)
    assert err.value.time == 1.0 and "push" in err.value.joints
    assert len(err.value.result.times) == 24


def riding_block(push: str, x0: float = 0.35) -> Mechanism:
    """The slide-driven slider-crank (``slide_driven_slider_crank``) with a free part, so
    that its run is dynamic: a 0.5 kg block riding on the slider along world y on a
    prismatic joint, held by a 200 N/m spring of free length 0.1 m, built 0.15 m out (at
    rest): y = 0.1 + 0.05 cos(20 t), whatever the slider does along x.  Gravity along -z,
    out of the crank's plane: the crank's effort stays bounded through its dead centre."""
    m = slide_driven_slider_crank(push, x0)
    m.add_part("block", mass=0.5, position=(x0, 0.15, 0.0))
    m.add_marker("guide", "slider", orientation=AXIS_MARKER["y"])
    m.add_marker("shoe", "block", orientation=AXIS_MARKER["y"])
    m.add_joint("ride", "prismatic", "shoe", "guide")
    m.add_spring_damper("coil", "shoe", "guide", stiffness=200.0, free_length=0.1)
    return m


@pytest.mark.parametrize("tc", [1.0, 1.02, 1.0123])
def test_a_dynamic_run_carries_the_crank_through_a_dead_centre_its_slide_touches(tc) -> None:
    """x = 0.4 - 0.05 (t - tc)^2 m touches the dead centre x = r + l at tc and turns back;
    no constraint impulse can turn the crank there (the rows' Jacobian has no component
    along its rotation), so it passes at the speed it came with, onto negative angles:
    theta of the sign of tc - t.  The run used to turn the crank back where tc fell
    between frames (crawling through 1,400 steps to the mirror branch, 1.8 rad off, no
    note) and to refuse with a lock-up at frame 23 where tc was frame 24's time."""
    res = riding_block(f"0.4 - 0.05*(t - {tc})**2").solve(duration=2.0, fps=24)
    t = res.times
    theta = crank_through(t, tc)
    # Newton closes the joints to ~1e-12 m and arccos near 0 loses half the digits; the
    # passage's least-norm projections are accepted at the run's accuracy: 1e-7 rad
    np.testing.assert_allclose(planar_angle(res.orientation("crank")), theta, atol=1e-7)
    # the block's oscillation, undisturbed by the passage, to the integrator's 1e-6
    y = 0.1 + 0.05 * np.cos(20.0 * t)
    np.testing.assert_allclose(res.position("block")[:, 1], y, atol=1e-6)
    # energy, the motion's work booked: to a small multiple of the run's 1e-6 goal (the
    # projections near the dead centre accepted at that accuracy; measured 2e-7 - 1.4e-6)
    ke, pe, work = res.energy()
    e = ke + pe - work
    scale = np.abs(ke).max() + np.abs(pe - pe[0]).max() + np.abs(work).max()
    assert np.abs(e - e[0]).max() < 3e-6 * scale
    assert any("passed a singular position" in n and "dead centre of motion 'push'" in n
               for n in res.notes), res.notes


def test_a_dynamic_run_whose_slide_pushes_through_its_dead_centre_locks_up() -> None:
    """x = 0.38 + 0.02 t m reaches the dead centre at t = 1 s still pushing: no pose meets
    it a frame later (the reach test that lets a touching slide pass), so the run stops
    there, naming the motion among the joints, with the frames before it."""
    with pytest.raises(SolverError, match=r"t = 1 s.*singular.*push") as err:
        riding_block("0.38 + 0.02*t", 0.38).solve(duration=2.0, fps=24)
    assert "push" in err.value.joints and abs(err.value.time - 1.0) < 1e-6
    assert len(err.value.result.times) == 24


@pytest.mark.parametrize("n", [80, 150])
def test_a_long_open_chain_is_not_taken_for_a_singular_position(n: int) -> None:
    """An open chain of revolute links cannot be singular (each joint's rows hold a part
    of its own), yet the scaled condition of its Jacobian grows about 2.8 n^2 with its
    length n, straight or folded (measured 68.5 for 5 links, 1.11e3 for 20, 1.56e4 for 75,
    6.25e4 for 150).  Past about 60 links it passed the fixed bound 1e4, so a step of a
    dropped 75- or 150-link chain cut below a tenth of a frame was said to pass a singular
    position naming every joint, and the run kept least-norm solves from there on (never
    well conditioned again: a 75-link chain dropped for 1 s took 25 s, 1.5 s now, its
    links' positions the same to 6e-9 m).  The bound now grows with the number of parts."""
    from mechanisms import chain
    from solver.analyses.dynamics.singular import near_singular
    from solver.analyses.structure import structure
    from solver.mechanism import read_state
    from solver.model.compile import compile_model
    for angles in ([0.0] * n, [2.9 * (-1) ** k for k in range(n)]):     # straight, folded
        mech = chain(angles, lengths=0.1, masses=0.4, kind="revolute", axis="y")
        model = compile_model(mech)
        state = read_state(model, mech)
        st = structure(model, state.r, state.p)
        assert near_singular(model, st, state.r, state.p) == ()


@pytest.mark.parametrize("step_deg", [7.5, 1.0])
def test_stepping_a_crank_through_the_lined_up_position_keeps_the_parallelogram(
        step_deg: float) -> None:
    """The crank set from 30 down to -30 degrees and back in steps that land on the
    lined-up position (0 degrees) exactly: each pose keeps the branch it came along.  A
    pose there kept no record of it, and the next step went over to the crossed branch
    (the coupler turned 0.26 rad at -7.5 degrees, 0.035 rad at -1 degree).  Steps of 7
    degrees, which pass the line between poses, were kept on it before too."""
    poser = parallelograms(1, 30.0).poser()
    down = np.arange(30.0, -30.0 - step_deg / 2, -step_deg)
    for deg in np.concatenate([down, down[::-1]]):
        poser.set_coordinate("pivot0", np.radians(deg))
        origins, quats = poser.part_poses()
        at = dict(zip(poser.model.body_part, quats))
        # Newton closes the joints to ~1e-12, which on the line (its residual quadratic in
        # the lost direction) leaves the angles sqrt(1e-12) = 1e-6 rad off (measured 1.1e-6);
        # 1e-5 rad is far below the crossed branch's coupler turn (0.26 rad one 7.5 degree
        # step past the line, 0.035 rad one 1 degree step)
        assert abs(planar_angle(at["coupler0"])) < 1e-5, deg
        assert abs(planar_angle(at["crank1"]) - np.radians(deg)) < 1e-5, deg
