"""Far drags in one call (solver/analyses/posing/drag.py): out of reach, from a saddle of
|P - T| (a straight arm pulled along itself), spatial chains; each landing on its closed
form, in few steps (bench_drag's closed chain of 20: the far jump's steps and their
projections)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import mechanisms as mk
from solver.algebra.newton import newton
from solver.analyses.posing.drag import Poser
from solver.analyses.start.assembly import least_movement
from test_drag import angle_of, closed_chain, gap, poser, world_point


def far_jump_lands() -> None:
    """bench_drag's far jump: the closed chain of 20, link10's end pulled to (0.6, -0.3, 0)
    in one call, lands on the closest pose (link10's end on the 2.25 m circle about the
    anchor E nearest the target, the links after it pulled straight) to 1e-9 m, its joints
    closed to 1e-9 m."""
    m, E = closed_chain(20)
    ps = poser(m)
    T = np.array([0.6, -0.3, 0.0])
    ps.drag_to("link10", (0.25, 0.0, 0.0), T)
    want = E + 2.25 * (T - E) / np.linalg.norm(T - E)
    np.testing.assert_allclose(world_point(ps, "link10", (0.25, 0.0, 0.0)), want, atol=1e-9)
    assert gap(ps) <= 1e-9


def test_far_drag_ends_once_newtons_steps_stop_shrinking(monkeypatch) -> None:
    """bench_drag's closed chain of 20 pulled out of reach in one call lands on the closest
    pose: link10's end on the circle of 2.25 m (the nine links after it pulled straight)
    about the anchor E nearest the target, to 1e-9 m.  Newton converges there quadratically
    down to its rounding noise (steps of 1e-11 to 4e-10 of the chain's size that do not
    shrink); the call ends at that noise: at most three steps under 1e-8 (the last whole
    step, one step at the noise and the one that shows it does not shrink; eight before)."""
    from solver.algebra.newton import step_size
    sizes = []
    real = Poser._drag_direction

    def recorded(self, *args):
        step = real(self, *args)
        sizes.append(float(step_size(self.model, step.free)))
        return step
    monkeypatch.setattr(Poser, "_drag_direction", recorded)
    far_jump_lands()
    assert sum(s < 1e-8 for s in sizes) <= 3, sizes


def test_a_chord_projection_falling_short_hands_its_end_to_least_movement(monkeypatch) -> None:
    """bench_drag's closed chain of 20 dragged far: the chord projection (the step's own
    Jacobian) ends its eight steps short of the rows at some steps (from 2e-3 to 1e-2
    off, 1e-7 to 1e-3 after them), and least movement goes on from that end, not from the
    step's unprojected pose (where it started before, three or four Newton steps from the
    rows): at every fallback it starts no farther from the rows than the chord started,
    at some ten times closer or more."""
    m, _E = closed_chain(20)
    ps = poser(m)
    chords, falls = [], []
    real, real_newton = least_movement, newton

    def chord(problem, x, options):
        out = real_newton(problem, x, options)
        chords.append(problem.start)
        return out

    def counted(model, r, p, *args, **kwargs):
        falls.append((chords[-1], float(np.abs(ps._evaluate((r, p))[1][ps.rows]).max())))
        return real(model, r, p, *args, **kwargs)
    monkeypatch.setattr("solver.analyses.posing.drag.newton", chord)
    monkeypatch.setattr("solver.analyses.posing.drag.least_movement", counted)
    ps.drag_to("link10", (0.25, 0.0, 0.0), (0.6, -0.3, 0.0))
    assert all(there <= start for start, there in falls), falls
    assert any(there < 0.1 * start for start, there in falls), falls
    assert gap(ps) <= 1e-9


def test_far_drag_steps_grow_while_the_linear_model_foretells_them(monkeypatch) -> None:
    """bench_drag's closed chain of 20 pulled out of reach: its steps are cut to turn no
    link by more than 0.3 rad; a cut step whose drop the linear model foretold lets the
    next go twice as far (a trust region): it lands on the closest pose (the closed form:
    link10's end on the 2.25 m circle about E nearest the target, 1e-9 m) in at most 14
    steps (20 with the caps fixed)."""
    count = []
    real = Poser._drag_direction

    def counted(self, *args):
        count.append(1)
        return real(self, *args)
    monkeypatch.setattr(Poser, "_drag_direction", counted)
    far_jump_lands()
    assert len(count) <= 14


@pytest.mark.parametrize("far, target", [((-3.0, 1.0, 0.0), (-1.6, 0.6, 0.0)),
                                         ((0.0, -4.0, 0.0), (1.9, 0.0, 0.0))])
def test_a_target_in_reach_after_one_out_of_reach_is_reached(far, target) -> None:
    """The two-link arm (1 m links) pulled out of reach, then to a target in its reach:
    Newton (kept on from the first drag) lands on it within the drag's stopping rule,
    1e-12 of the arm's 2 m (its last step, 3e-12 of that, was not taken: 1.4e-11 m off)."""
    ps = poser(mk.chain([0.3, 1.2], kind="revolute"))
    ps.drag_to("link1", (1.0, 0.0, 0.0), far)
    ps.drag_to("link1", (1.0, 0.0, 0.0), target)
    assert np.abs(world_point(ps, "link1", (1.0, 0.0, 0.0)) - target).max() <= 2e-12
    assert gap(ps) <= 1e-9


@pytest.mark.parametrize("off", [0.0, 1e-9])
def test_a_straight_arm_pulled_along_itself_bends(off) -> None:
    """The two-link arm built straight along x (1 m links), its tip pulled back along the
    arm to (1.5, off, 0), in its reach: the straight arm is a saddle of |P - T| (no pull
    across the arm, the elbow's bend brings the tip closer), and the drag goes down its
    negative curvature: the tip on the target (1e-9 m) in one call, the elbow bent by the
    closed form, cos = (d^2 - 2) / 2 at d = 1.5 (before: the tip stayed at (2, 0, 0) on
    the line, 0.5 m off; 1e-9 m off it, 30 steps crept 0.3 m from it)."""
    ps = poser(mk.chain([0.0, 0.0], kind="revolute"))
    target = np.array([1.5, off, 0.0])
    ps.drag_to("link1", (1.0, 0.0, 0.0), target)
    np.testing.assert_allclose(world_point(ps, "link1", (1, 0, 0)), target, atol=1e-9)
    assert math.isclose(np.cos(angle_of(ps, "link1") - angle_of(ps, "link0")),
                        (1.5 ** 2 - 2.0) / 2.0, abs_tol=1e-9)
    assert gap(ps) <= 1e-9


@pytest.mark.parametrize("angles, target", [([0.3, 1.2, -0.5], (0.2, 0.1, 0.3)),
                                            ([0.0, 0.0, 0.0], (1.5, 0.0, 0.0)),
                                            ([0.3, 1.2, -0.5], (5.0, -3.0, 2.0)),
                                            ([0.0, 0.0, 0.0], (-4.0, 1.0, 2.0))])
def test_a_spatial_chain_lands_in_one_call(angles, target) -> None:
    """Three 1 m links on spherical joints from the origin, the tip dragged in one call: a
    target in reach is reached (1e-9 m), one out of reach gives the chain pulled straight
    at it, the tip 3 m along the target's direction.  Before, the saddles on the way sent
    the saddle-free steps along faint curvatures, cut by the caps to crawl: 30 steps left
    the tip 1.16 m, 4.4e-3 m, 0.014 m and 3.4 m off."""
    ps = poser(mk.chain(angles))
    T = np.array(target)
    ps.drag_to("link2", (1.0, 0.0, 0.0), T)
    want = T if np.linalg.norm(T) <= 3.0 else 3.0 * T / np.linalg.norm(T)
    np.testing.assert_allclose(world_point(ps, "link2", (1.0, 0.0, 0.0)), want, atol=1e-9)
    assert gap(ps) <= 1e-9
