"""Stops while posing by hand (solver/analyses/posing/: drag_stops.py with drag.py and wiggle.py): a
drag or a slider never poses a joint past its stop; the pose rests on the stop while the
other joints follow, and leaves it when pulled back.  Closed forms: a pendulum, a two-link
arm whose elbow stops, a slider on a rail, the Grashof four-bar of mechanisms.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

import mechanisms as mk
from solver import SolverError
from test_drag import angle_of, gap, poser, world_point

TIP = (1.0, 0.0, 0.0)


def stops(ps) -> tuple[str, ...]:
    return tuple(str(s) for s in ps.stopped)


def on_circle(radius: float, angle: float) -> tuple[float, float, float]:
    return (radius * math.cos(angle), radius * math.sin(angle), 0.0)


def root(f, lo: float, hi: float) -> float:
    """f's zero in [lo, hi] (a sign change) by bisection, to rounding."""
    flo = f(lo)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if (f(mid) > 0) == (flo > 0):
            lo, flo = mid, f(mid)
        else:
            hi = mid
    return 0.5 * (lo + hi)


def rocker(th2: float) -> float:
    """The four-bar's rocker angle at crank angle th2 (open branch)."""
    return float(mk.four_bar_angles(th2, 0.4, 1.0, 0.8, 1.0, 1)[1])


# ---------------------------------------------------------------- drag
def test_pendulum_dragged_past_its_stop_rests_on_it_and_leaves_it() -> None:
    """A 1 m pendulum about z with stops at -0.2 and 0.5 rad, its tip pulled to 90 degrees:
    it rests on the upper stop (to 1e-9 rad, the held row's tolerance); pulled back to 0.3
    rad it leaves the stop; pulled to -1 rad it rests on the lower one."""
    m = mk.pendulum()
    m.add_limit("stop", "pin", lower=-0.2, upper=0.5)
    ps = poser(m)
    ps.drag_to("bob", TIP, on_circle(2.0, math.pi / 2))
    assert abs(ps.value("pin") - 0.5) <= 1e-9
    assert stops(ps) == ("joint 'pin' at its upper stop 0.5 rad (limit 'stop')",)
    assert gap(ps) <= 1e-9
    ps.drag_to("bob", TIP, on_circle(2.0, 0.3))
    assert abs(ps.value("pin") - 0.3) <= 1e-9 and stops(ps) == ()
    ps.drag_to("bob", TIP, on_circle(0.5, -1.0))
    assert abs(ps.value("pin") + 0.2) <= 1e-9
    assert stops(ps) == ("joint 'pin' at its lower stop -0.2 rad (limit 'stop')",)


def test_arm_whose_elbow_stops_swings_at_its_shoulder() -> None:
    """A two-link arm (1 m links about z) whose elbow stops at +-0.5 rad, its tip pulled to
    1.2 m from the shoulder (the elbow would bend 1.855 rad): the elbow rests on its stop
    and the shoulder follows, the tip on the target's ray at the inner reach 2 cos 0.25 m
    (the shoulder at the target's angle - 0.25); the target moved round, the shoulder
    follows with the elbow held; pulled far out, the elbow leaves its stop and straightens.
    Each to 1e-9 in one call."""
    m = mk.chain([0.0, 0.2], kind="revolute")
    m.add_limit("elbow", "joint1", lower=-0.5, upper=0.5)
    ps = poser(m)
    for phi in (1.0, 2.0):
        ps.drag_to("link1", TIP, on_circle(1.2, phi))
        assert abs(ps.value("joint1") - 0.5) <= 1e-9
        assert abs(mk.wrap(angle_of(ps, "link0") - (phi - 0.25))) <= 1e-9
        np.testing.assert_allclose(world_point(ps, "link1", TIP),
                                   on_circle(2.0 * math.cos(0.25), phi), atol=1e-9)
        assert len(ps.stopped) == 1 and gap(ps) <= 1e-9
    ps.drag_to("link1", TIP, on_circle(3.0, 2.5))
    assert abs(ps.value("joint1")) <= 1e-9 and stops(ps) == ()
    np.testing.assert_allclose(world_point(ps, "link1", TIP), on_circle(2.0, 2.5), atol=1e-9)


def test_slider_pulled_past_its_travel_stops_at_the_end() -> None:
    """A slider on a rail along x with travel -0.1 .. 0.3 m pulled to (1, 0.5, 0): it
    stops at 0.3 m (to 1e-12 m: a held row)."""
    m = mk.rail_slider(spring=None)
    m.add_limit("travel", "rail", lower=-0.1, upper=0.3)
    ps = poser(m)
    ps.drag_to("slider", (0.0, 0.0, 0.0), (1.0, 0.5, 0.0))
    assert abs(ps.value("rail") - 0.3) <= 1e-12
    np.testing.assert_allclose(world_point(ps, "slider", (0, 0, 0)), (0.3, 0.0, 0.0), atol=1e-12)


def test_a_start_past_a_stop_is_brought_to_it() -> None:
    m = mk.pendulum(angle=0.8)
    m.add_limit("stop", "pin", upper=0.5)
    ps = poser(m)
    assert abs(ps.value("pin") - 0.5) <= 1e-9
    assert stops(ps) == ("joint 'pin' at its upper stop 0.5 rad (limit 'stop')",)


# ---------------------------------------------------------------- sliders
def test_a_value_past_the_joints_own_stop_is_clamped() -> None:
    """The four-bar's crank with stops at -0.5 and 1 rad set to 1.5: it stops at 1 (the
    rocker at the closed form's angle there); set to -2, it goes back through 0 (inside its
    range) to -0.5."""
    m = mk.four_bar(driven=False)
    m.add_limit("crank stop", "pivot2", lower=-0.5, upper=1.0)
    ps = poser(m)
    ps.set_coordinate("pivot2", 1.5)
    assert abs(ps.value("pivot2") - 1.0) <= 1e-12
    assert abs(mk.wrap(angle_of(ps, "rocker") - rocker(1.0))) <= 1e-9
    assert stops(ps) == ("joint 'pivot2' at its upper stop 1 rad (limit 'crank stop')",)
    ps.set_coordinate("pivot2", -2.0)
    assert abs(ps.value("pivot2") + 0.5) <= 1e-12
    assert abs(mk.wrap(angle_of(ps, "rocker") - rocker(-0.5))) <= 1e-9
    assert gap(ps) <= 1e-9


def test_another_joints_stop_ends_the_move_where_it_is_reached() -> None:
    """The four-bar's rocker stops at 1.8 rad; the crank set from 0 to -0.5 (where the
    rocker would reach 1.949): the crank stops at th2* where the rocker reaches 1.8 (closed
    form, bisection), the rocker on its stop to 1e-9; set there again, or farther, it stays
    at the stop (it said the angle could not be reached); set back to 0.3 it moves freely."""
    m = mk.four_bar(driven=False)
    m.add_limit("rocker stop", "pivot4", upper=1.8)
    ps = poser(m)
    ps.set_coordinate("pivot2", -0.5)
    th2 = root(lambda th: rocker(th) - 1.8, -0.5, 0.0)
    assert abs(ps.value("pivot4") - 1.8) <= 1e-9
    assert abs(ps.value("pivot2") - th2) <= 1e-8          # the rocker's 1e-9 over d th4/d th2
    assert stops(ps) == ("joint 'pivot4' at its upper stop 1.8 rad (limit 'rocker stop')",)
    for further in (-0.5, -0.7):          # on the stop, asked again or farther: stays there
        ps.set_coordinate("pivot2", further)
        assert abs(ps.value("pivot2") - th2) <= 1e-8 and len(stops(ps)) == 1
    ps.set_coordinate("pivot2", 0.3)
    assert abs(ps.value("pivot2") - 0.3) <= 1e-12 and stops(ps) == ()
    assert abs(ps.value("pivot4") - rocker(0.3)) <= 1e-9


def test_range_of_motion_ends_at_another_joints_stop() -> None:
    """The crank's range with the rocker stopping at 1.8 rad: from th2 = 0 down to where
    the rocker reaches 1.8, and up, past the rocker's low toggle, to where it comes back up
    to 1.8 (closed forms; the range search locates to 1e-6 rad)."""
    m = mk.four_bar(driven=False)
    m.add_limit("rocker stop", "pivot4", upper=1.8)
    ps = poser(m)
    rng = ps.coordinate_range("pivot2")
    assert not rng.full_turn
    assert abs(rng.lower - root(lambda th: rocker(th) - 1.8, -0.5, 0.0)) <= 1e-6
    assert abs(rng.upper - root(lambda th: rocker(th) - 1.8, 0.6, 2.5)) <= 1e-6


@pytest.mark.parametrize("value, want", [(2.9, 2.9), (3.1, 3.0), (-3.1, -3.0)])
def test_a_range_wider_than_half_a_turn(value, want) -> None:
    """A pendulum with stops at -3 and 3 rad (a range wider than pi) starts at 1 rad inside
    it (stops.gaps' wrapped difference counts it past the lower stop) and is set anywhere
    in it; a value beyond it is clamped to the nearer end."""
    m = mk.pendulum(angle=1.0)
    m.add_limit("stop", "pin", lower=-3.0, upper=3.0)
    ps = poser(m)
    assert abs(ps.value("pin") - 1.0) <= 1e-12 and stops(ps) == ()
    ps.set_coordinate("pin", value)
    assert abs(ps.value("pin") - want) <= 1e-12


def test_a_slide_past_its_travel_is_clamped() -> None:
    m = mk.rail_slider(spring=None)
    m.add_limit("travel", "rail", lower=-0.1, upper=0.3)
    ps = poser(m)
    ps.set_coordinate("rail", 0.7)
    assert abs(ps.value("rail") - 0.3) <= 1e-12
    assert stops(ps) == ("joint 'rail' at its upper stop 0.3 m (limit 'travel')",)


def test_a_motion_holding_a_joint_past_its_stop_is_named() -> None:
    m = mk.pendulum()
    m.add_motion("drive", "pin", "0.8")
    m.add_limit("stop", "pin", upper=0.5)
    with pytest.raises(SolverError, match="starts outside a limit: limit 'stop': joint 'pin' past "
                                          r"its upper bound 0.5 rad \(28.6479 deg\) by 0.3 rad "
                                          r"\(17.2 deg\)") as err:
        poser(m)
    assert err.value.joints == ("stop", "pin")


def test_a_pendulum_dragged_round_rests_on_its_stop_ten_radians_out() -> None:
    """A 1 m pendulum about z with stops at -10 and 10 rad (more than a turn and a half each
    way), its tip pulled round a radian at a time: it follows round past pi and on (the
    drag reads the joint's continuous angle, its turns followed from pose to pose, and
    ``value`` gives it so), and pulled toward 11 rad it rests on the upper stop at 10 rad
    (to 1e-9 rad); pulled back to 9 rad it leaves it.  Read within half a turn of the
    range's middle, every angle lay inside the range: no stop held, and the pendulum
    followed the pull to 11 rad."""
    m = mk.pendulum()
    m.add_limit("stop", "pin", lower=-10.0, upper=10.0)
    ps = poser(m)
    for turn in range(1, 10):
        ps.drag_to("bob", TIP, on_circle(2.0, float(turn)))
        assert abs(ps.value("pin") - turn) <= 1e-9 and stops(ps) == ()
    ps.drag_to("bob", TIP, on_circle(2.0, 10.0))
    ps.drag_to("bob", TIP, on_circle(2.0, 11.0))
    assert abs(ps.value("pin") - 10.0) <= 1e-9
    assert stops(ps) == ("joint 'pin' at its upper stop 10 rad (limit 'stop')",)
    ps.drag_to("bob", TIP, on_circle(2.0, 9.0))
    assert abs(ps.value("pin") - 9.0) <= 1e-9 and stops(ps) == ()


@pytest.mark.parametrize("value, want", [(9.0, 9.0), (12.0, 10.0), (-10.5, -10.0)])
def test_a_slider_sets_an_angle_across_a_range_wider_than_a_turn(value, want) -> None:
    """The pendulum with stops at -10 and 10 rad set by its slider: a value inside the
    range is reached on the joint's continuous turns (9 rad: a turn and a third round,
    through the turns between), one beyond it clamped to the stop (to 1e-9 rad); the
    range the slider offers is the stops' own, -10 to 10 rad, found by sweeping there
    (1e-6 rad).  On one turn about the range's middle, 9 rad was set as 9 - 2 pi and the
    range was a turn each way."""
    m = mk.pendulum()
    m.add_limit("stop", "pin", lower=-10.0, upper=10.0)
    ps = poser(m)
    ps.set_coordinate("pin", value)
    assert abs(ps.value("pin") - want) <= 1e-9
    rng = ps.coordinate_range("pin")
    assert not rng.full_turn and abs(rng.lower + 10.0) <= 1e-6 and abs(rng.upper - 10.0) <= 1e-6
    assert abs(ps.value("pin") - want) <= 1e-9           # (the range leaves the pose)


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_a_joint_with_one_stop_is_set_anywhere_on_its_open_side(side: str) -> None:
    """A pendulum with a lone stop at 0 rad (lower, or upper with every value mirrored): a
    lone stop is met only where it is (dynamics lets a wheel turning away from it spin
    on), so its slider sets 3, 5 and 7 rad as they are, on the joint's continuous turns
    (to 1e-9 rad, no stop held), and a value past the stop (-2 rad) is held at it; the
    range offered is the turn from the stop on its open side (0 to 2 pi, found by the
    sweep to 1e-6 rad).  Read within half a turn of the stop, 5 rad went to the stop and
    4 rad to pi."""
    sgn = 1.0 if side == "lower" else -1.0
    m = mk.pendulum(angle=sgn * 0.5)
    m.add_limit("stop", "pin", **{side: 0.0})
    ps = poser(m)
    rng = ps.coordinate_range("pin")
    ends = sorted([0.0, sgn * 2.0 * math.pi])
    assert not rng.full_turn
    assert abs(rng.lower - ends[0]) <= 1e-6 and abs(rng.upper - ends[1]) <= 1e-6
    for value in (3.0, 5.0, 7.0, 4.0):
        ps.set_coordinate("pin", sgn * value)
        assert abs(ps.value("pin") - sgn * value) <= 1e-9 and stops(ps) == ()
        assert abs(mk.wrap(angle_of(ps, "bob") - sgn * value)) <= 1e-9
    ps.set_coordinate("pin", -sgn * 2.0)
    assert abs(ps.value("pin")) <= 1e-9
    assert stops(ps) == (f"joint 'pin' at its {side} stop 0 rad (limit 'stop')",)


def test_posing_stops_where_a_pin_reaches_the_end_of_its_slot() -> None:
    """The Scotch yoke's crank pin (radius 0.05 m) in a slot 2 x 0.03 m long, undriven: the
    spline continued past the slot's ends closed the rows on, so the crank could be set to
    1.2 rad and dragged round to 90 deg, and coordinate_range gave a full turn, with the pin
    out of its slot.  The ends now bound the posing as the assembly does: the range is
    +-asin(0.6) (1e-6 rad, its tolerance), setting 1.2 rad is refused naming the joint with
    the pose unchanged, and a drag of the pin towards (0, 0.05) ends at the slot's end, the
    pin 0.03 m up (1e-6 m: the drag's line search stops short of the end by its halvings)."""
    from test_curve_joints import scotch_yoke
    m = scotch_yoke(slot_half=0.03)
    del m.motions["drive"]
    ps = poser(m)
    end = math.asin(0.6)
    rng = ps.coordinate_range("spin")
    assert not rng.full_turn
    assert (rng.lower, rng.upper) == (pytest.approx(-end, abs=1e-6), pytest.approx(end, abs=1e-6))
    ps.set_coordinate("spin", 0.5)
    assert ps.value("spin") == pytest.approx(0.5, abs=1e-12)
    before = [a.copy() for a in ps.pose]
    with pytest.raises(SolverError, match="joint 'spin': its angle cannot reach 1.2 rad"
                       r".*\): joint 'slot' would take its point past its curve's end"):
        ps.set_coordinate("spin", 1.2)
    assert all(np.array_equal(a, b) for a, b in zip(ps.pose, before))
    ps.drag_to("crank", [0.05, 0.0, 0.0], [0.0, 0.05, 0.0])
    assert world_point(ps, "crank", (0.05, 0.0, 0.0))[1] == pytest.approx(0.03, abs=1e-6)


def test_a_refused_value_says_a_coordinate_at_rounding_of_zero_is_at_zero() -> None:
    """The refusal says where the coordinate stands; a slide read at 8.6e-9 m (a pose
    from Blender's float32 placements) is said as 0 m, a real value as it is."""
    from solver.analyses.posing.wiggle import _amount
    assert _amount(8.6e-9, False, 0.3) == "0 m" and _amount(2e-6, False, 0.3) == "2e-06 m"
    assert _amount(-3e-8, True).startswith("0 rad") and _amount(0.25, True).startswith("0.25")
