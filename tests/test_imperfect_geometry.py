"""Imperfect geometry: tolerances relative to the model's size, redundant
equations that disagree a little (a CAD export's rounded positions) accepted with a warning
naming the joints and the gap, a real mismatch refused with the gap in metres, and motions
that over-drive a loop named as such."""
from __future__ import annotations

import re

import numpy as np
import pytest

from mechanisms import (G, chain, crank_angle, four_bar, four_bar_closed_form, joint_gaps,
                        rod_inertia, slider_crank, slider_crank_closed_form)
from solver import Mechanism, MechanismError, SolverError


def tilted_four_bar(delta: float, scale: float = 1.0):
    """The planar four-bar (revolutes about z, three redundant equations) with the rocker's
    ground pivot lifted out of the plane by ``delta`` of the model's size: the loop's z
    closure and the revolutes' parallel axes then disagree by about delta (an in-plane error
    would just change the angles, with nothing to disagree)."""
    m = four_bar(a=0.4 * scale, b=1.0 * scale, c=0.8 * scale, d=1.0 * scale,
                 error_m=0.01 * scale)
    size = 1.0 * scale
    m.markers["O4"].position = m.markers["O4"].position + np.array([0.0, 0.0, delta * size])
    return m


def test_consistent_loop_has_no_warning() -> None:
    m = tilted_four_bar(0.0)
    report = m.check()
    assert report.ok and not any("disagree" in n for n in report.notes)
    assert sum(len(v) for v in report.redundant.values()) == 3
    assert not any("disagree" in n for n in m.solve(0.5, 24).notes)


@pytest.mark.parametrize("delta", [1e-9, 1e-8, 3e-7])
def test_small_disagreement_is_accepted_with_a_warning(delta: float) -> None:
    """Assembly, check and the sweep accept it; the warning names the loop's joints and a
    gap of the size of the lift; the motion is the planar four-bar's to about the lift."""
    m = tilted_four_bar(delta)
    report = m.check()
    assert report.ok, report.problems
    (warning,) = [n for n in report.notes if "disagree" in n]
    assert "'pivot4'" in warning and "of the model's size" in warning
    gap = float(warning.split("disagree by ")[1].split(" m")[0])
    assert 0.2 * delta <= gap <= 5 * delta           # in metres, model size 1 m
    res = m.solve(1.0, 24)
    assert any("disagree" in n for n in res.notes)
    th = crank_angle(res.times)
    exact = four_bar_closed_form(*th, a=0.4, b=1.0, c=0.8, d=1.0)
    rocker = np.arctan2(*(res.marker_frame("rocker_B")[0] - res.marker_frame("rocker_O4")[0])[:, 1::-1].T)
    np.testing.assert_allclose(np.unwrap(rocker), np.unwrap(exact.theta4), atol=50 * delta + 1e-10)
    gaps = joint_gaps(m, res)
    assert max(gaps.values()) <= 5 * delta + 1e-10   # the lift is spread over the joints


def test_dynamics_accepts_a_small_disagreement() -> None:
    """Undriven and under gravity in the plane, the tilted four-bar swings with its energy
    kept to the run's tolerance."""
    m = tilted_four_bar(1e-8)
    m.motions.clear()
    m.gravity = np.array([0.0, -G, 0.0])
    res = m.solve(0.5, 24, analysis="dynamic")
    assert any("disagree" in n for n in res.notes)
    ke, pe, work = res.energy()
    assert np.max(np.abs(ke + pe - work - (ke[0] + pe[0]))) < 1e-5 * np.max(np.abs(pe - pe[0]))


def test_large_disagreement_is_refused_with_the_gap() -> None:
    """A lift of 1e-3 of the model's size: SolverError naming the loop and the gap in m."""
    m = tilted_four_bar(1e-3)
    with pytest.raises(SolverError, match="cannot all be closed") as err:
        m.assemble()
    msg = str(err.value)
    assert "pivot4" in err.value.joints and "gap of" in msg
    gap = float(msg.split("gap of ")[1].split(" m")[0])
    assert 2e-4 <= gap <= 5e-3
    assert not m.check().ok


def test_over_driven_loop_says_so() -> None:
    """Motions on two pins of one four-bar: the second motion is named as over-driving the
    mechanism by Assemble, Check and Solve (not 'assembly failed' with every joint)."""
    m = four_bar()
    m.add_motion("drive4", "pivot4", "0.3*t")
    for act in (m.assemble, lambda: m.solve(0.5, 24)):
        with pytest.raises(SolverError, match="over-drive") as err:
            act()
        assert err.value.joints == ("drive4",)
    report = m.check()
    assert any("drive4" in p and "over-drive" in p for p in report.problems)


def arm_held_at_its_tip(half: float, tip: float, anchor: float, ball: str,
                        **settings) -> Mechanism:
    """An arm of half length ``half`` (m) pinned at the ground's origin ("pin", its
    marker A ``half`` behind its centre), its marker T ``tip`` ahead of its centre held by
    a ball joint ``ball`` at a ground marker ``anchor`` along x; ``settings`` for the
    Mechanism (input_precision)."""
    m = Mechanism(**settings)
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, position=(half, 0, 0))
    m.add_marker("O", "ground")
    m.add_marker("A", "arm", position=(-half, 0, 0))
    m.add_marker("T", "arm", position=(tip, 0, 0))
    m.add_marker("G", "ground", position=(anchor, 0, 0))
    m.add_joint("pin", "revolute", "A", "O")
    m.add_joint(ball, "spherical", "T", "G")
    return m


def test_a_motion_over_driving_a_loop_rounded_to_float32_is_named() -> None:
    """A 100 mm arm whose tip is also held by a ball joint on the ground, its pin driven,
    with the tip's position 1e-7 m off (float32 rounding of millimetres): the joints meet
    but for that rounding, and the motion over-drives them. Assemble, Check and Solve
    name the motion, not 'assembly failed' with a gap of 5e-8 m (the rounding, which
    the motion cannot remove since the joints already fix its angle)."""
    m = arm_held_at_its_tip(0.05, 0.0500001, 0.1, "tip", input_precision=2.0 ** -24)
    m.add_motion("drive", "pin", "t")
    for act in (m.assemble, lambda: m.solve(0.2, 10)):
        with pytest.raises(SolverError, match="motion 'drive' drives a coordinate that the "
                                              "joints and the other motions already fix") as err:
            act()
        assert err.value.joints == ("drive",) and "assembly failed" not in str(err.value)
    problems = m.check().problems
    assert problems and not any("assembly failed" in p for p in problems), problems


def _pushed_slider_crank(theta0: float):
    """The slider-crank built exactly at crank angle ``theta0``, its crank free and its
    slide (x, m) driven from where it is built, 5 cm in and back over a second."""
    m = slider_crank(theta0=theta0, error_deg=0.0, error_m=0.0, flywheel=(0.01, 0.0))
    x0 = float(slider_crank_closed_form(theta0, 0.0, 0.0).x)
    m.add_motion("push", "slide", f"{x0!r} - 0.05*(1 - cos(2*pi*t))")
    return m, x0


def test_a_slide_driven_from_the_dead_centre_is_named_as_one() -> None:
    """The slider-crank driven by its slide from the dead centre (crank and rod in line
    along x): there the slide cannot move the crank and which way it turns is undecided;
    Check, Assemble and Solve say so, naming the motion and the joints lined up, and do not
    call it over-driving (a crank turned 1e-3 rad off the line is driven by the slide).
    (Assemble succeeds: the pose as built meets every equation.)  Built 0.3 rad off the
    dead centre it solves, the slider on its motion."""
    m, _ = _pushed_slider_crank(0.0)
    message = (r"motion 'push' starts at a dead centre at t = 0 s \(joints 'crank_pin', "
               r"'crank_rod', .*lined up\): there it cannot move the parts")
    with pytest.raises(SolverError, match=message) as err:
        m.solve(1.0, 24)
    assert "over-drive" not in str(err.value) and err.value.time == 0.0
    report = m.check()
    assert [p for p in report.problems if "push" in p] == [report.problems[0]]
    assert re.match(message, report.problems[0]) and "over-drive" not in str(report)
    assert not any("dynamic analysis is needed" in n for n in report.notes)
    m, x0 = _pushed_slider_crank(0.3)
    r = m.solve(1.0, 24)
    t = r.times
    np.testing.assert_allclose(r.position("slider")[:, 0], x0 - 0.05 * (1 - np.cos(2 * np.pi * t)),
                               atol=1e-9)


def scaled_pendulum(s: float):
    """A double pendulum (two 1 kg rods) on revolutes about y with a spring-damper from
    its tip to a ground anchor, built in units of s metres: lengths and gravity times s,
    inertias times s^2; stiffness and damping unchanged (so are the frequencies)."""
    inertia = np.array(rod_inertia(1.0, 1.0)) * s * s
    m = chain([0.0, 0.6], lengths=1.0 * s, masses=1.0, inertia=inertia, kind="revolute",
              axis="y", gravity=(0.0, 0.0, -G * s))
    m.add_marker("anchor", "ground", position=(1.2 * s, 0.0, 0.5 * s))
    m.add_spring_damper("spring", "link1_end", "anchor", stiffness=20.0, damping=0.5,
                        free_length=0.4 * s)
    return m


@pytest.mark.parametrize("s", [1e-3, 1e3])
def test_same_motion_in_mm_m_and_km(s: float) -> None:
    """The same mechanism in mm and km moves as in m, positions over s to 1e-9 of the
    model's size: every tolerance is relative to the model's size."""
    ref = scaled_pendulum(1.0).solve(1.0, 24, analysis="dynamic")
    res = scaled_pendulum(s).solve(1.0, 24, analysis="dynamic")
    for part in ("link0", "link1"):
        np.testing.assert_allclose(res.position(part) / s, ref.position(part), rtol=0, atol=1e-9)
        np.testing.assert_allclose(res.orientation(part), ref.orientation(part), rtol=0, atol=1e-9)
    ke, pe, _ = res.energy()
    ke1, pe1, _ = ref.energy()
    np.testing.assert_allclose(ke / s ** 2, ke1, rtol=0, atol=1e-9 * np.max(np.abs(pe1)))


@pytest.mark.parametrize("s", [1e-3, 1e3])
def test_same_kinematics_and_disagreement_in_mm_and_km(s: float) -> None:
    """The four-bar sweep in mm and km follows the closed form to 1e-9 of its size, and a
    lift of 1e-8 of the size is accepted in any unit, 1e-3 refused."""
    res = tilted_four_bar(0.0, s).solve(0.5, 24)
    th = crank_angle(res.times)
    exact = four_bar_closed_form(*th, a=0.4 * s, b=1.0 * s, c=0.8 * s, d=1.0 * s)
    d = res.marker_frame("rocker_B")[0] - res.marker_frame("rocker_O4")[0]
    np.testing.assert_allclose(d[:, 0] / s, 0.8 * np.cos(exact.theta4), atol=1e-9)
    assert tilted_four_bar(1e-8, s).check().ok
    with pytest.raises(SolverError, match="cannot all be closed"):
        tilted_four_bar(1e-3, s).assemble()


def test_bad_scale_input_still_rejected() -> None:
    with pytest.raises(MechanismError):
        chain([0.0], lengths=[float("nan")])


@pytest.mark.parametrize("delta", [1e-8, 5e-8])
def test_disagreement_within_the_inputs_float32_rounding_is_not_reported(delta: float) -> None:
    """Read from float32 (input_precision 2^-24 = 6e-8), a lift of ``delta`` (below 8 u of
    the 1.29 m reach of the four-bar's points, 6.1e-7 m) is the input's rounding: check and
    the sweep say nothing, as they say (test above) for exact input; the motion is the
    same as the exact input's."""
    m = tilted_four_bar(delta)
    m.input_precision = 2.0 ** -24
    report = m.check()
    assert report.ok and not any("disagree" in n for n in report.notes)
    res = m.solve(1.0, 24)
    assert not any("disagree" in n for n in res.notes)
    exact = tilted_four_bar(delta).solve(1.0, 24)
    np.testing.assert_array_equal(res.marker_frame("rocker_B")[0], exact.marker_frame("rocker_B")[0])


@pytest.mark.parametrize("bad", [-1e-7, 1e-3, float("nan"), "float32"])
def test_input_precision_must_be_a_small_relative_rounding(bad) -> None:
    from solver import Mechanism
    with pytest.raises(MechanismError, match="input_precision"):
        Mechanism(input_precision=bad)


def test_a_large_gap_is_said_as_a_share_in_percent() -> None:
    """A ball joint holding a 1 m pendulum's tip 2 m beyond its reach (3 m from the pin):
    the gap is said in metres and as a percentage of the model's size, "67% of the model's
    size 3 m", not "6.7e-01" (the size is the largest extent, 3 m; the gap 2 m)."""
    m = arm_held_at_its_tip(0.5, 0.5, 3.0, "reach")
    with pytest.raises(SolverError) as err:
        m.assemble()
    found = re.search(r"a gap of ([\d.]+) m, (\d+)% of the model's size ([\d.]+) m", str(err.value))
    assert found, str(err.value)
    gap, share, size = (float(g) for g in found.groups())
    assert share == pytest.approx(100.0 * gap / size, abs=1.0)
