"""Bad input gets a clear error naming the item; a failed sweep (tests/mechanisms.py's
slider-crank with a rod too short, or a motion undefined after a time) names time and joints
and keeps the frames solved before it."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import mechanisms as mk
from solver import Mechanism, MechanismError, SolverError


def base() -> Mechanism:
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(0.01, 0.01, 0.01))
    m.add_marker("O", "ground")
    m.add_marker("A", "arm")
    return m


def test_errors_are_value_errors() -> None:
    assert issubclass(MechanismError, ValueError)


def test_an_expression_that_fails_is_bad_input() -> None:
    """An expression that cannot be parsed or evaluated is a MechanismError, as the
    reference says: a tool catching bad input catches it too, with its time."""
    from solver import parse_expression
    with pytest.raises(MechanismError, match="unknown function 'foo'"):
        parse_expression("foo(t)")
    with pytest.raises(MechanismError, match=r"log\(0\) is undefined") as err:
        parse_expression("log(1 - t)")(t=1.0)
    assert err.value.time == 1.0


@pytest.mark.parametrize("call, message", [
    (lambda m: m.add_part("arm"), "part name 'arm' is already used by a part"),
    (lambda m: m.add_marker("arm", "ground"), "marker name 'arm' is already used by a part"),
    (lambda m: m.add_marker("B", "nothing"), "marker 'B': unknown part 'nothing'"),
    (lambda m: m.add_part(""), "part name must be a non-empty string"),
    (lambda m: m.add_joint("j", "revolute", "A", "missing"), "joint 'j': marker J 'missing' is not a marker"),
    (lambda m: m.add_joint("j", "revolute", "gone", "O"), "joint 'j': marker I 'gone' is not a marker"),
    (lambda m: m.add_joint("j", "hinge-ish", "A", "O"), "joint 'j': unknown kind 'hinge-ish'"),
    (lambda m: m.add_motion("d", "nojoint", "t"), "motion 'd': unknown joint 'nojoint'"),
    (lambda m: m.add_part("p", mass=0.0), "part 'p': mass must be positive"),
    (lambda m: m.add_part("p", mass=-2.0), "part 'p': mass must be positive"),
    (lambda m: m.add_part("p", mass=float("nan")), "part 'p': mass is NaN or infinite"),
    (lambda m: m.add_part("p", position=(0, math.inf, 0)), "part 'p': position has a NaN or infinite value"),
    (lambda m: m.add_part("p", velocity=(0, 0)), "part 'p': velocity must be 3 numbers, got 2"),
    (lambda m: m.add_part("p", inertia=(1.0, 1.0, -1.0)), "part 'p': inertia is not positive definite"),
    (lambda m: m.add_part("p", inertia=(1.0, 1.0, 3.0)), "part 'p': inertia breaks the triangle inequality"),
    (lambda m: m.add_part("p", inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "part 'p': inertia is not symmetric"),
    (lambda m: m.add_part("p", inertia=(1, 2)), r"part 'p': inertia must be \(Ixx, Iyy, Izz\) or a 3x3"),
    (lambda m: m.add_part("p", orientation=(0, 0, 0, 0)), "part 'p': orientation is a zero quaternion"),
    (lambda m: m.add_part("p", orientation=(2, 0, 0, 0)), "part 'p': orientation is not a unit quaternion"),
    (lambda m: m.add_marker("B", "arm", orientation=(1, 1, 0, 0)), "marker 'B': orientation is not a unit"),
    (lambda m: m.add_marker("B", "arm", position=(0, float("nan"), 0)), "marker 'B': position has a NaN"),
    (lambda m: Mechanism(gravity=(0, 0)), "gravity must be 3 numbers"),
    (lambda m: m.add_part("p", inertia=("heavy", 1, 1)), r"part 'p': inertia must be .*'heavy'"),
    (lambda m: m.add_part("p", inertia=[[0.01, 0.5, 0], [0.5, 0.01, 0], [0, 0, 0.01]]),
     r"part 'p': inertia is not positive definite \(principal moments \(-0.49, 0.01, 0.51\) kg m\^2: "
     r"each must be above 0\)"),
    (lambda m: m.add_part("p", inertia=(1, [1, 2], 1)), r"part 'p': inertia must be \(Ixx, Iyy"),
    (lambda m: m.add_joint("j", "distance", "A", "O", length="long"), r"joint 'j': length \(m\) must be a number, got 'long'"),
    (lambda m: m.add_joint("j", "distance", "A", "O", length=-0.5), "joint 'j': length must be positive, got -0.5 m"),
    (lambda m: m.add_force("f", "A", force=5.0), "force 'f': force must have 3 components .*got 5.0"),
    (lambda m: m.add_force("f", "A", torque=None), "force 'f': torque must have 3 components .*got None"),
    (lambda m: (m.add_joint("pin", "revolute", "A", "O"), m.add_limit("stop", "pin", lower=0.5, upper=0.2)),
     r"limit 'stop': the lower bound 0.5 rad \(28.6479 deg\) is not below the upper 0.2 rad "
     r"\(11.4592 deg\) \(joint 'pin'.s angle\)"),
])
def test_bad_input_message(call, message: str) -> None:
    m = base()
    with pytest.raises(MechanismError, match=message):
        call(m)


def test_bad_input_changes_nothing() -> None:
    m = base()
    before = (dict(m.parts), dict(m.markers), dict(m.joints), dict(m.motions))
    for call in (lambda: m.add_part("p", mass=-1), lambda: m.add_joint("j", "revolute", "A", "A"),
                 lambda: m.add_marker("B", "nothing")):
        with pytest.raises(MechanismError):
            call()
    assert before == (m.parts, m.markers, m.joints, m.motions)


def test_near_unit_quaternion_is_normalized() -> None:
    m = base()
    m.add_part("p", orientation=(1.0 + 1e-5, 0, 0, 0))
    assert np.linalg.norm(m.pose("p")[1]) == pytest.approx(1.0, abs=1e-15)


def test_joint_on_one_part_or_two_fixed_parts() -> None:
    m = base()
    m.add_marker("A2", "arm", position=(1, 0, 0))
    with pytest.raises(MechanismError, match="markers 'A' and 'A2' are both on part 'arm'"):
        m.add_joint("j", "revolute", "A", "A2")
    m.add_part("base2", fixed=True)
    m.add_marker("G2", "base2")
    with pytest.raises(MechanismError, match="parts 'base2' and 'ground' are both fixed"):
        m.add_joint("j", "revolute", "G2", "O")


def test_joint_with_one_marker_twice_says_so() -> None:
    """The same marker as I and J is one marker used twice, not two markers on one part."""
    m = base()
    with pytest.raises(MechanismError, match="joint 'j': marker 'A' is both marker I and "
                                             "marker J; marker J must be a marker on another "
                                             "part than 'arm'"):
        m.add_joint("j", "revolute", "A", "A")
    assert "j" not in m.joints


@pytest.mark.parametrize("kind", ["spherical", "fixed", "universal", "planar", "in-line"])
def test_motion_on_a_kind_without_that_coordinate(kind: str) -> None:
    m = base()
    m.add_joint("j", kind, "A", "O")
    with pytest.raises(MechanismError, match=f"motion 'd': a {kind} joint .'j'. has no coordinate"):
        m.add_motion("d", "j", "t")


def test_motion_coordinate_mismatch_and_duplicates() -> None:
    m = base()
    m.add_joint("j", "revolute", "A", "O")
    with pytest.raises(MechanismError, match="its coordinates are angle, not 'slide'"):
        m.add_motion("d", "j", "t", coordinate="slide")
    m.add_motion("d", "j", "t")
    with pytest.raises(MechanismError, match="already driven by motion 'd'"):
        m.add_motion("d2", "j", "2*t")


@pytest.mark.parametrize("expr, message", [
    ("__import__('os').system('echo hi')", "__import__"),
    ("t.real", "attribute"),
    ("sin(t", "syntax"),
    ("foo(t)", "foo"),
    ("open('x')", "open"),
    ("", "empty"),
])
def test_unsafe_or_malformed_expression(expr: str, message: str) -> None:
    m = base()
    m.add_joint("j", "revolute", "A", "O")
    with pytest.raises(MechanismError, match=message) as err:
        m.add_motion("drive", "j", expr)
    assert "drive" in str(err.value)
    assert "drive" not in m.motions


def test_solve_arguments() -> None:
    m = base()
    m.add_joint("j", "revolute", "A", "O")
    m.add_motion("d", "j", "t")
    for kwargs, msg in (({"duration": -1}, "duration"), ({"duration": 1, "fps": 0}, "fps"),
                        ({"duration": 1, "analysis": "static"}, "analysis"),
                        ({"duration": 1, "stepsize": 3}, "stepsize"),
                        ({"duration": 1, "progress": 5},
                         r"progress must be a function progress\(frames done, frames in all\) "
                         r"or None, got 5")):
        with pytest.raises(MechanismError, match=msg):
            m.solve(**kwargs)
    with pytest.raises(MechanismError, match="unknown part 'nope'"):
        m.solve(0.1).position("nope")
    with pytest.raises(MechanismError, match="unknown joint"):
        m.solve(0.1).reaction("nope")


def slider_crank(r: float, l: float, drive: str = "2*pi*t") -> Mechanism:
    """``mk.slider_crank`` with a ball at the wrist, light parts, placed exactly at crank
    angle 0; rods too short for a full turn when l < r."""
    return mk.slider_crank(r, l, variant="RRSP", drive=drive, masses=(0.1, 0.3, 0.5),
                           error_deg=0.0, error_m=0.0)


def test_lock_up_names_time_and_joints_and_keeps_frames() -> None:
    """Crank 0.3 with rod 0.2: no position exists once 0.3 sin(th) > 0.2 (th > 41.8 deg,
    t > 0.116 s), so the sweep stops at frame 3 (t = 0.125 s) of a 24 fps run."""
    m = slider_crank(0.3, 0.2)
    with pytest.raises(SolverError, match=r"lock-up at t = 0.125 s \(frame 3\)") as err:
        m.solve(1.0, 24)
    e = err.value
    assert e.time == pytest.approx(0.125)
    assert e.joints and set(e.joints) <= {"crank_pin", "crank_rod", "wrist", "slide", "drive"}
    assert len(e.result.times) == 3
    th = 2 * np.pi * e.result.times
    x = 0.3 * np.cos(th) + np.sqrt(0.2**2 - (0.3 * np.sin(th)) ** 2)
    # the kept frames are exact (Newton leaves ~1e-12 m)
    np.testing.assert_allclose(e.result.position("slider")[:, 0], x, atol=1e-10)


@pytest.mark.parametrize("kind", ["perpendicular", "universal"])
def test_cross_axes_drawn_parallel_are_named_with_their_angle(kind: str) -> None:
    """A universal (or perpendicular) joint whose two markers are drawn alike has its z axes
    parallel where they must cross: its equation z_I . z_J = 1 is stationary there, so no
    least movement closes it.  check() and assemble() name the joint and the angle it misses
    by, 90 degrees (pi/2 rad; the cosine, 1, is not an angle)."""
    m = base()
    m.add_joint("cross", kind, "A", "O")
    report = m.check()
    assert not report.ok and "'cross'" in report.problems[0]
    assert "1.57 rad" in report.problems[0]
    with pytest.raises(SolverError, match=r"joints 'cross' leave a gap of 1\.57 rad") as err:
        m.assemble()
    assert err.value.joints == ("cross",)


def test_a_distance_joint_drawn_short_is_named_with_its_gap_in_metres() -> None:
    """A 0.5 m distance joint whose markers are drawn on each other cannot be closed by the
    least movement (its equation is stationary there); the gap named is the 0.5 m the
    markers are off their length, not the equation's residual (d^2 - L^2) / (2 L) = 0.25."""
    m = base()
    m.add_joint("rope", "distance", "A", "O", length=0.5)
    with pytest.raises(SolverError, match=r"joints 'rope' leave a gap of 0\.5 m") as err:
        m.assemble()
    assert err.value.joints == ("rope",)


def test_a_load_needs_its_value_not_its_rate() -> None:
    """A press on the slider, -200 sqrt(0.3 - t) N: its value is 0 at t = 0.3 s, where its
    rate is infinite (a motion needs both; a load only the value), so a sweep's frames up
    to 0.3 s solve (their forces evaluated for the whole block at once, as frame by frame),
    and the first frame past it is named: a SolverError, as a dynamic run's, with the
    frames before it (the same numbers as the run that ends at 0.3 s)."""
    m = slider_crank(0.1, 0.3)
    m.add_marker("press", "slider")
    m.add_force("load", "press", force=("-200*sqrt(0.3 - t)", 0.0, 0.0))
    r = m.solve(times=np.arange(73) / 240.0)             # t = 0 to 0.3 s
    assert r.times[-1] == 0.3 and np.all(np.isfinite(r.effort("drive")))
    with pytest.raises(SolverError, match=r"force 'load'.*t=0.30416") as err:
        m.solve(1.0, 240)
    assert err.value.time == pytest.approx(73 / 240.0)
    np.testing.assert_array_equal(err.value.result.times, r.times)
    np.testing.assert_allclose(err.value.result.effort("drive"), r.effort("drive"), rtol=1e-12)


@pytest.mark.parametrize("second", ["load", "spring"])
def test_the_first_frame_that_fails_is_named(second: str) -> None:
    """Two elements whose expressions fail at different frames of one block of a sweep
    (240 fps): a press that fails past 0.5 s, then a second element (a load, or a
    spring-damper's actuator) that fails past 0.45 s: the error names the second one and
    the first frame past 0.45 s, as frame by frame (a block's forces are one evaluation
    of each element over all its frames)."""
    m = slider_crank(0.1, 0.3)
    m.add_marker("press", "slider")
    m.add_force("A", "press", force=("-20*sqrt(0.5 - t)", 0.0, 0.0))
    if second == "load":
        m.add_force("B", "press", force=(0.0, "-20*sqrt(0.45 - t)", 0.0))
    else:
        m.add_marker("anchor", "ground", position=(0.6, 0.05, 0.0))
        m.add_spring_damper("B", "press", "anchor", stiffness=10.0, actuator="sqrt(0.45 - t)")
    with pytest.raises(SolverError, match=r"'B'.*t=0.45416") as err:
        m.solve(1.0, 240)
    assert len(err.value.result.times) == 109          # the frames to 0.45 s
    assert err.value.time == pytest.approx(109 / 240.0)
    assert str(err.value).count("'B'") == 1                # named once


def test_nan_in_motion_stops_with_time() -> None:
    m = slider_crank(0.1, 0.3, drive="sqrt(0.5 - t)")   # infinite rate at t = 0.5 (frame 12)
    with pytest.raises(SolverError, match=r"motion 'drive'.*t=0.5") as err:
        m.solve(1.0, 24)
    assert err.value.time == pytest.approx(0.5)
    assert len(err.value.result.times) == 12


@pytest.mark.parametrize("given", [np.array([np.nan, 0.0, 0.25], dtype=np.float32),
                                   (float("nan"), 0, 0.25), [np.float64("nan"), 0.0, 0.25]])
def test_nan_position_is_shown_as_plain_numbers(given) -> None:
    """A NaN in a vector is named with the numbers as typed, not numpy's repr."""
    m = base()
    with pytest.raises(MechanismError) as err:
        m.add_marker("B", "arm", position=given)
    assert str(err.value).endswith("position has a NaN or infinite value: (nan, 0, 0.25)")
    assert "array" not in str(err.value) and "dtype" not in str(err.value)


def test_expression_failing_at_the_start_carries_its_time() -> None:
    """A motion that cannot be evaluated at t = 0 is refused as it is added, and a load
    when a dynamic run starts: both carry the time (0 s), so a caller can name its frame;
    the load's is a SolverError, as a failure later in the run is."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")
    with pytest.raises(MechanismError, match=r"expression 'log\(t\)' cannot be evaluated") as err:
        m.add_motion("spin", "pin", "log(t)")
    assert err.value.time == 0.0
    m.add_force("push", "A", torque=(0.0, 0.0, "log(t)"))
    with pytest.raises(SolverError, match=r"force 'push'.*log\(t\)") as err:
        m.solve(0.5, 24, analysis="dynamic")
    assert err.value.time == 0.0


@pytest.mark.parametrize("element", ["torsion", "spring", "force"])
def test_a_load_failing_inside_a_dynamic_step_carries_its_own_time(element: str) -> None:
    """A torsion spring's actuator, a spring-damper's actuator or a load that cannot be
    evaluated from t = 0.5 s on (log(0.5 - t)) stops a dynamic run at 24 fps with the time
    it failed at, 0.5 s (frame 12 counted from 0, whose time it is), not the start of the
    step it failed in (0.4583 s, which a caller named as the frame before); the frames
    before it kept, the element named once."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")
    if element == "torsion":
        m.add_torsion_spring("E", "pin", stiffness=0.0, actuator="log(0.5 - t)")
    elif element == "spring":
        m.add_marker("anchor", "ground", position=(0.0, 0.5, 0.0))
        m.add_spring_damper("E", "A", "anchor", stiffness=0.0, actuator="log(0.5 - t)")
    else:
        m.add_force("E", "A", torque=(0.0, 0.0, "log(0.5 - t)"))
    with pytest.raises(SolverError, match=r"'E'.*log\(0\.5 - t\)") as err:
        m.solve(1.0, 24, analysis="dynamic")
    assert err.value.time == pytest.approx(0.5, abs=1e-12)
    assert len(err.value.result.times) == 12
    assert str(err.value).count("'E'") == 1


def test_the_frames_of_a_failed_run_say_how_they_were_computed() -> None:
    """A dynamic run that stops (a motion's log(0) at t = 1 s) hands back its frames with
    the method and the steps that computed them, as a finished run's Result has them."""
    m = mk.rail_slider("z", spring=None, gravity=(0.0, 0.0, 0.0))
    m.add_motion("lift", "rail", "max(-1, log(1 - t))")
    finished = m.solve(duration=0.75, fps=4, analysis="dynamic")
    with pytest.raises(SolverError, match="motion 'lift'") as err:
        m.solve(duration=2.0, fps=4, analysis="dynamic")
    partial = err.value.result
    assert list(partial.times) == list(finished.times)
    assert partial.method == finished.method and partial.method.startswith("explicit")
    assert partial.steps >= finished.steps > 0
    assert partial.rest_from is None and partial.notes == finished.notes


def test_more_frames_than_memory_holds_is_named() -> None:
    """A billion frames (30 GiB of one part's poses) is refused as bad input saying how
    many frames and what to do, not a bare numpy MemoryError from deep in the run."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")
    with pytest.raises(MechanismError, match=r"1 s at 1e\+09 fps is 1,000,000,001 frames: "
                                             r"at most 100,000,000.*lower fps"):
        m.solve(duration=1.0, fps=1e9)


def test_a_duration_shorter_than_half_a_frame_is_named() -> None:
    """1 ms at 24 fps rounds to no frame past the start: refused saying the fps it needs,
    not a Result of t = 0 alone for a run asked to last 1 ms.  At 10,000 fps it has 11
    frames, and a duration of 0 is the start alone, as asked."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")
    with pytest.raises(MechanismError, match=r"duration of 0.001 s at 24 fps ends before the "
                                             r"first frame.*at least 1e\+03 fps"):
        m.solve(duration=1e-3, fps=24)
    assert m.solve(duration=1e-3, fps=1e4).times[-1] == pytest.approx(1e-3, rel=1e-12)
    assert len(m.solve(duration=0.0, fps=24).times) == 1


def test_a_run_whose_results_do_not_fit_in_memory_is_named(monkeypatch) -> None:
    """Fewer frames than the limit but more than memory holds (many parts): the run's
    MemoryError is a MechanismError saying how many frames of how many parts."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")

    def short_of_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate")
    monkeypatch.setattr("solver.mechanism.run", short_of_memory)
    with pytest.raises(MechanismError, match=r"solve: 25 frames of 1 moving part\(s\) do not fit"):
        m.solve(duration=1.0, fps=24)


@pytest.mark.parametrize("call", ["assemble", "poser", "statics", "modes"])
@pytest.mark.parametrize("time, fact", [("soon", "must be a number, got 'soon'"),
                                        (float("nan"), "is NaN or infinite")])
def test_an_analysis_time_that_is_not_a_number_is_named(call: str, time, fact: str) -> None:
    """The time an analysis holds the motions at is refused naming the call, never
    Python's own ValueError for text, nor a NaN that would hold every motion at NaN."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")
    m.add_motion("drive", "pin", "t")
    with pytest.raises(MechanismError, match=rf"{call}: time \(s\) {fact}"):
        getattr(m, call)(time=time)


def test_a_function_returning_an_array_is_named_by_its_shape() -> None:
    """A motion's callable that returns two numbers is refused naming the motion, the time
    and the array's shape, not the exact-derivative numbers the solver passed it."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")
    with pytest.raises(MechanismError) as err:
        m.add_motion("drive", "pin", lambda t: np.array([t, 2 * t]))
        m.solve(duration=0.5, fps=10)
    text = str(err.value)
    assert "motion 'drive'" in text and "must return one number, got an array of shape (2,) at t=0.0" in text, text
    assert "Jet" not in text, text


def test_a_spring_whose_markers_meet_stops_a_sweep_naming_it_and_the_time() -> None:
    """A block driven along a rail by 0.1 - t through the ground marker its spring-damper
    pulls toward: at t = 0.1 s the spring's two markers meet and its force has no direction.
    The sweep stops there naming the spring and the time (a SolverError with the frames
    before, 0 and 0.05 s), not numpy's or Python's own FloatingPointError."""
    m = mk.rail_slider("x", part="block", position=(0.1, 0, 0), anchor=(0, 0, 0),
                       gravity=(0.0, 0.0, 0.0), stiffness=10.0, damping=1.0, free_length=0.05)
    m.add_motion("push", "rail", "0.1 - t")
    with pytest.raises(SolverError, match=r"spring-damper 'spring': its two markers coincide .* "
                                          r"at t = 0.1 s") as err:
        m.solve(duration=0.3, fps=20)
    assert err.value.time == pytest.approx(0.1, abs=1e-12)
    np.testing.assert_allclose(err.value.result.times, [0.0, 0.05])


def test_a_curve_refuses_a_derivative_it_does_not_have() -> None:
    """A quintic has derivatives 0..5: 6 (or 1.5) is bad input, a MechanismError saying the
    range, as the reference promises for bad input."""
    from solver.base.curves import Curve
    c = Curve.circle(0.1)
    with pytest.raises(MechanismError, match=r"derivatives must be a whole number 0..5, got 6"):
        c.evaluate(0.1, derivatives=6)
    with pytest.raises(MechanismError, match=r"got 1.5"):
        c.evaluate(0.1, derivatives=1.5)


def test_a_load_growing_without_bound_is_named_where_the_run_stops() -> None:
    """A force 1/(0.5 - t) on a free part: the step size collapses as t nears 0.5 s, and the
    run stops there naming the force's component and its value (it said only "a
    discontinuity or an extremely stiff element"), its frames before it kept."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    m.add_marker("c", "block")
    m.add_force("push", "c", force=("1/(0.5 - t)", 0.0, 0.0))
    with pytest.raises(SolverError, match=r"at t = 0\.5 s.*force 'push': force\[0\] "
                                          r"\('1/\(0\.5 - t\)': [0-9.]+e\+\d+ at t = 0\.5 s\) "
                                          r"grows without bound") as err:
        m.solve(duration=1.0, fps=24, analysis="dynamic")
    assert len(err.value.result.times) == 12          # frames 0 .. 11 (t < 0.5 s) kept


def test_a_force_on_a_fixed_parts_marker_is_refused_by_name() -> None:
    """A force at a marker of a fixed part moved nothing, without a word."""
    m = Mechanism()
    m.add_part("frame", fixed=True)
    m.add_marker("hook", "frame")
    with pytest.raises(MechanismError, match=r"force 'pull': marker 'hook' is on the fixed "
                                             r"part 'frame', which a force cannot move"):
        m.add_force("pull", "hook", force=(0.0, 0.0, -10.0))


def test_a_gap_of_an_angle_alone_is_said_without_a_length_of_zero() -> None:
    """A part welded to the ground and pinned to it about an axis at 90 degrees to the
    weld's: the pin's points meet, its axes miss by pi/2. The gap is that angle, without
    "0 m, 0.0e+00 of the model's size" beside it."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0)
    m.add_marker("O", "ground")
    m.add_marker("A", "arm")
    m.add_joint("weld", "fixed", "A", "O")
    m.add_marker("Ax", "arm", orientation=(math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0))
    m.add_joint("pin", "revolute", "Ax", "O")
    problem, = m.check().problems
    assert problem.endswith("leave a gap of 1.57 rad")


@pytest.mark.parametrize("drive", ["log(0.5 - t)", "sqrt(0.5 - t)",
                                   pytest.param("1/(0.5 - t)", marks=pytest.mark.slow)])
def test_a_motion_growing_without_bound_stops_a_dynamic_run_naming_it(drive: str) -> None:
    """A pendulum's pin driven through a motion undefined from t = 0.5 s (frame 12 at
    24 fps), run dynamically: its acceleration grows without bound toward 0.5 s (1/(0.5 -
    t)^2, (0.5 - t)^-1.5, 2/(0.5 - t)^3), so the steps shrink toward it.  The run stops
    there naming the motion, its expression and the acceleration, with frames 0-11 kept.
    The first two said only "a discontinuity or an extremely stiff element"; the pole's
    steps shrank as (0.5 - t)^2 and never reached rounding: the run went on for hours
    short of 0.5 s (it stops now after some 3,000 steps, 0.5 ms short)."""
    m = base()
    m.add_joint("pin", "revolute", "A", "O")
    m.add_motion("spin", "pin", drive)
    said = (rf"motion 'spin' \('{re.escape(drive)}': its acceleration -?[0-9.]+e\+\d+ "
            r"at t = 0\.(49|5 )")
    with pytest.raises(SolverError, match=said) as err:
        m.solve(duration=1.0, fps=24, analysis="dynamic")
    assert err.value.time == pytest.approx(0.5, abs=1e-3)   # where the steps gave up
    assert len(err.value.result.times) == 12 and err.value.joints == ("spin",)


def test_reading_a_result_by_an_unknown_name_lists_the_names_it_has() -> None:
    """A Result read by a name it does not have (a motion's name given for a joint, a
    typo) says which names of that kind it has, so the user can pick the right one; an
    item the mechanism has none of says so."""
    r = mk.four_bar().solve(0.1, 24)
    cases = [(lambda: r.reaction("drive"), "unknown joint 'drive' (known: 'pivot2', 'pin_A', "
                                           "'pin_B', 'pivot4')"),
             (lambda: r.effort("pivot2"), "unknown motion 'pivot2' (known: 'drive')"),
             (lambda: r.position("O2"), "unknown part 'O2' (known: 'crank', 'coupler', "
                                        "'rocker', 'ground')"),
             (lambda: r.marker_frame("crank"), "unknown marker 'crank' (known: 'O2', 'O4', "),
             (lambda: r.limit("stops"), "unknown limit 'stops' (the mechanism has none)"),
             (lambda: r.friction("dry"), "unknown friction 'dry' (the mechanism has none)"),
             (lambda: r.coupler("gear"), "unknown coupler 'gear' (the mechanism has none)"),
             (lambda: r.bushing("mount"), "unknown bushing 'mount' (the mechanism has none)"),
             (lambda: r.contact("touch"), "unknown contact 'touch' (the mechanism has none)"),
             (lambda: r.vector_force("push"), "unknown vector force 'push' (the mechanism has "
                                              "none)"),
             (lambda: r.general_motion("path"), "unknown general motion 'path' (the mechanism "
                                                "has none)")]
    for call, message in cases:
        with pytest.raises(MechanismError) as err:
            call()
        assert str(err.value).startswith(message), str(err.value)


def test_building_with_an_unknown_name_lists_the_names_there_are() -> None:
    """An item that names a part, marker or joint not added (a typo, or one added later)
    is refused naming the item and listing the names of that kind there are."""
    def built() -> Mechanism:
        m = Mechanism()
        m.add_part("ground", fixed=True); m.add_part("arm")
        m.add_marker("O", "ground"); m.add_marker("A", "arm")
        m.add_joint("pin", "revolute", "A", "O")
        return m
    cases = [(lambda m: m.add_marker("B", "Arm"), "marker 'B': unknown part 'Arm' (known: "
                                                  "'ground', 'arm')"),
             (lambda m: m.add_joint("j", "revolute", "A", "0"),
              "joint 'j': marker J '0' is not a marker (known: 'O', 'A')"),
             (lambda m: m.add_motion("d", "Pin", "t"), "motion 'd': unknown joint 'Pin' "
                                                       "(known: 'pin')"),
             (lambda m: m.add_torsion_spring("s", "hinge"), "torsion spring 's': unknown joint "
                                                            "'hinge' (known: 'pin')"),
             (lambda m: m.add_limit("l", "hinge", lower=0.0), "limit 'l': unknown joint 'hinge' "
                                                              "(known: 'pin')"),
             (lambda m: m.add_force("f", "tip"), "force 'f': unknown marker 'tip' (known: 'O', "
                                                 "'A')"),
             (lambda m: m.add_spring_damper("k", "A", "tip"), "spring-damper 'k': unknown marker "
                                                              "'tip' (known: 'O', 'A')"),
             (lambda m: m.pose("hand"), "unknown part 'hand' (known: 'ground', 'arm')")]
    for call, message in cases:
        with pytest.raises(MechanismError) as err:
            call(built())
        assert str(err.value).startswith(message), str(err.value)
