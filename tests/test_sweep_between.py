"""What a kinematic sweep's motion does between two output frames (solver/analyses/sweep/
between.py): a hinge swung past its rigid stop and back, or a pin run off the end of its
open slot and back, inside one frame interval with both frames in range, stops the sweep
naming the limit or the joint and the instant it got there (located on the motion, against
its closed form), with the frames before it; a dip of the frames' interpolant that the
motion does not make is no crossing.  A singular position passed between two frames
(sweep/poles.py) is passed on the branch the sweep came along, with a note of its instant."""
from __future__ import annotations

import math

import numpy as np
import pytest

import solver.analyses.sweep.between as between
from mechanisms import driven_wheel, planar_angle
from solver import SolverError
from test_curve_joints import scotch_yoke


def test_a_hinge_swung_past_its_stop_and_back_between_frames_is_named() -> None:
    """q = 0.55 sin(2 pi t) rad against an upper stop at 0.5 rad, at 6 fps: the frames at
    1/6 and 2/6 s are at 0.476 rad, in range, the swing's top (0.55 rad, 0.25 s) between
    them.  The sweep ran on through it.  It stops naming the limit and the joint at the
    instant asin(0.5 / 0.55) / (2 pi) = 0.181611 s, between frames 1 and 2, with frames 0
    and 1 kept."""
    m = driven_wheel("0.55*sin(2*pi*t)")
    m.add_limit("stop", "axle", lower=-1.0, upper=0.5)
    said = (r"limit 'stop': joint 'axle' past its upper bound 0.5 rad .* at t = 0.181611 s "
            r"\(between frames 1 and 2\): the motion drives it through its stop and back")
    with pytest.raises(SolverError, match=said) as info:
        m.solve(duration=1.0, fps=6)
    exact = math.asin(0.5 / 0.55) / (2.0 * math.pi)
    # located to 1e-9 of the frame interval (1.7e-10 s) on poses Newton closes to ~1e-12
    # rad, the angle moving at 1.44 rad/s there: 1e-9 s is room
    assert info.value.time == pytest.approx(exact, abs=1e-9)
    assert info.value.joints == ("stop", "axle") and len(info.value.result) == 2


def test_a_pin_run_off_its_slot_and_back_between_frames_is_named() -> None:
    """The Scotch yoke's pin rises 0.05 sin(4 pi t) m in a slot 0.048 m each side of its
    middle, at 6 fps: every frame's pin is within 0.0433 m, the top between frames 0 and 1.
    The sweep ran on through it.  It stops naming the joint and the end at the instant the
    pin leaves the slot, asin(0.96) / (4 pi) = 0.102416 s, with frame 0 kept."""
    said = (r"joint 'slot': the contact ran off the end of the open curve .* at t = 0.102416 s "
            r"\(between frames 0 and 1\)")
    with pytest.raises(SolverError, match=said) as info:
        scotch_yoke(slot_half=0.048).solve(duration=0.5, fps=6)
    # located to 1e-9 of the frame interval; the pin moves along the slot at 0.18 m/s there
    # and its contact is Newton's to ~1e-12 m: 1e-9 s is room
    assert info.value.time == pytest.approx(math.asin(0.96) / (4.0 * math.pi), abs=1e-9)
    assert info.value.joints == ("slot",) and len(info.value.result) == 1


def test_a_swing_that_stays_short_of_its_stop_is_solved_where_the_frames_overshoot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """q = 0.499 - 4 (t - 0.25)^4 rad at 2 fps tops out 1 mrad short of the stop at 0.5
    rad; the frames' cubic interpolant overshoots a quartic's top by 4 h^4 / 16 = 0.0156 rad
    (h = 0.5 s), past the stop: the motion solved at the interpolant's least gap (0.25 s)
    is in range, so the sweep goes on, every frame solved, with one pose solved between
    frames."""
    solved = []
    poses = between.Interval.poses

    def spy(self, t):
        solved.append(t)
        return poses(self, t)
    monkeypatch.setattr(between.Interval, "poses", spy)
    m = driven_wheel("0.499 - 4*(t - 0.25)**4")
    m.add_limit("stop", "axle", lower=-1.0, upper=0.5)
    out = m.solve(duration=0.5, fps=2)
    assert len(out) == 2 and solved == [pytest.approx(0.25, abs=0.5 / between.SAMPLES)]
    assert np.abs(np.asarray(out.times) - [0.0, 0.5]).max() == 0.0


@pytest.mark.parametrize("fps, t0, between_frames", [(10, 1.001, "10 and 11"),
                                                    (4, 0.999, "3 and 4")])
def test_a_dead_centre_passed_between_frames_keeps_the_branch_and_is_noted(
        fps: int, t0: float, between_frames: str) -> None:
    """The slide driven by x = 0.4 - 0.05 (t - t0)^2 m touches its dead centre (crank and
    rod in line) at t0, 1 ms from a frame: the crank passes theta = 0 there at -0.866
    rad/s onto negative angles, theta = sign(t0 - t) arccos((r^2 + x^2 - l^2) / (2 r x)).
    The frame beside it was solved on the mirror branch, where the crank turns back (1.83
    rad off at 1.6 s, no word): 1 ms before the pole at 10 fps (det J's sign changed a
    frame early), 1 ms after it at 4 fps (det's sign the same, the crank's speed turned
    back).  The sweep walks that interval in sub-steps and keeps the branch; a note names
    the pole's instant, between the two frames, and the motion."""
    from test_singular_positions import crank_through, slide_driven_slider_crank
    m = slide_driven_slider_crank(f"0.4 - 0.05*(t - {t0})**2", 0.4 - 0.05 * t0 ** 2)
    res = m.solve(duration=2.0, fps=fps)
    theta = crank_through(res.times, t0)
    # as test_singular_positions' frame on the dead centre: arccos near 0 loses half the
    # digits of Newton's 1e-12 m, so 1e-7 rad (measured 9e-10)
    np.testing.assert_allclose(planar_angle(res.orientation("crank")), theta, atol=1e-7)
    said = [n for n in res.notes if "singular position" in n]
    assert len(said) == 1 and f"at t = {t0:.6g} s (between frames {between_frames})" in said[0]
    assert "push" in said[0]


def test_a_study_passes_the_dead_centre_between_frames_on_every_variants_branch() -> None:
    """The slide-driven slider-crank above (10 fps, the dead centre 1 ms after frame 10)
    with three slider masses swept as one study: each variant keeps the branch (its crank
    against the closed form to 1e-7 rad, as alone) and has the note, as its separate run."""
    from solver.study import grid
    from test_singular_positions import crank_through, slide_driven_slider_crank
    t0 = 1.001
    m = slide_driven_slider_crank(f"0.4 - 0.05*(t - {t0})**2", 0.4 - 0.05 * t0 ** 2)
    res = m.study(grid({"slider.mass": [1.0, 2.0, 3.0]}), duration=2.0, fps=10)
    assert not res.failures
    for i in range(3):
        out = res.result(i)
        theta = crank_through(out.times, t0)
        np.testing.assert_allclose(planar_angle(out.orientation("crank")), theta, atol=1e-7)
        assert any("at t = 1.001 s (between frames 10 and 11)" in n for n in out.notes)
