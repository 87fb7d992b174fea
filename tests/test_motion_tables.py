"""Motions given as tables of samples (times, values): the driven point follows the
not-a-knot cubic spline through them, checked against an independent implementation
(scipy's CubicSpline) and against the sampled closed form sin t, whose error shrinks as
the spline's order says; bad tables are refused naming the motion."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from solver import ExpressionError, Mechanism, MechanismError, SolverError

T_END = 2.0


def _puck(x) -> Mechanism:
    """A free puck whose centre is driven in all six by a general motion, x(t) given."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("puck", mass=1.0, inertia=(0.01, 0.01, 0.01))
    m.add_marker("O", "ground")
    m.add_marker("c", "puck")
    m.add_general_motion("push", "c", "O", x=x, y=0.0, z=0.0, b1=0.0, b2=0.0, b3=0.0)
    return m


def _slider(expression) -> Mechanism:
    """A slider on a prismatic joint along the ground's z, its slide driven by add_motion."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("slider", mass=1.0, inertia=(0.01, 0.01, 0.01))
    m.add_marker("O", "ground")
    m.add_marker("s", "slider")
    m.add_joint("guide", "prismatic", "s", "O")
    m.add_motion("lift", "guide", expression)
    return m


def _driven(h: float):
    """Position, velocity and acceleration (x) of the puck driven by a table of sin t with
    samples h apart, at 201 output times over [0, T_END], and the table's spline."""
    ts = np.linspace(0.0, T_END, int(round(T_END / h)) + 1)
    r = _puck((ts, np.sin(ts))).solve(times=np.linspace(0.0, T_END, 201))
    assert r.analysis == "kinematic"
    return (r.times, r.position("puck")[:, 0], r.velocity("puck")[:, 0],
            r.acceleration("puck")[:, 0], CubicSpline(ts, np.sin(ts), bc_type="not-a-knot"))


def test_a_table_drives_the_point_along_its_not_a_knot_spline():
    """The puck's x, x' and x'' are the not-a-knot spline's and its derivatives (scipy's
    CubicSpline, an independent implementation): to rounding (1e-12 m, 1e-11 m/s and
    1e-10 m/s^2 allow for the sweep's Newton stopping at 1e-13 of the model's size and the
    rounding of the spline's coefficients, whose second derivative divides by h^2)."""
    t, x, v, a, spline = _driven(0.1)
    assert np.abs(x - spline(t)).max() < 1e-12
    assert np.abs(v - spline(t, 1)).max() < 1e-11
    assert np.abs(a - spline(t, 2)).max() < 1e-10


def test_a_table_of_sin_t_converges_to_it_at_the_spline_s_orders():
    """Against the closed form sin t, cos t, -sin t: the not-a-knot spline's errors are
    O(h^4), O(h^3), O(h^2) (de Boor 1978, ch. IV): with h = 0.1 they are within
    5/384 h^4, h^3/24 and 3/8 h^2 (Hall and Meyer 1976's constants for the complete spline)
    times 4 (the not-a-knot ends cost at most a factor 4.2 there, measured at h = 0.2, 0.1,
    0.05), and halving h divides them by 16, 8 and 4 to within 25% (the next order's
    share at h = 0.1)."""
    errors = []
    for h in (0.1, 0.05):
        t, x, v, a, _ = _driven(h)
        errors.append(np.array([np.abs(x - np.sin(t)).max(), np.abs(v - np.cos(t)).max(),
                                np.abs(a + np.sin(t)).max()]))
    h = 0.1
    bound = 4.5 * np.array([5 / 384 * h ** 4, h ** 3 / 24, 3 / 8 * h ** 2])
    assert np.all(errors[0] < bound)
    assert np.all(errors[0] > 0.0)                  # the spline is not sin t itself
    ratio = errors[0] / errors[1]
    assert np.all(np.abs(ratio / np.array([16.0, 8.0, 4.0]) - 1.0) < 0.25), ratio


def test_add_motion_takes_a_table():
    """A slide driven by a table of sin t on a prismatic joint follows its spline."""
    ts = np.linspace(0.0, T_END, 21)
    r = _slider((ts, np.sin(ts))).solve(times=np.linspace(0.0, T_END, 41))
    spline = CubicSpline(ts, np.sin(ts), bc_type="not-a-knot")
    assert np.abs(r.position("slider")[:, 2] - spline(r.times)).max() < 1e-12
    assert np.abs(r.acceleration("slider")[:, 2] - spline(r.times, 2)).max() < 1e-10


@pytest.mark.parametrize("table, message", [
    (([0.0, 0.2, 0.1, 0.3], [0.0, 1.0, 2.0, 3.0]),
     r"general motion 'push': x: the table's times must increase strictly: times\[2\] = 0.1 s "
     r"follows 0.2 s"),
    (([0.0, 0.1, 0.1], [0.0, 1.0, 2.0]), r"'push': x: the table's times must increase"),
    (([0.0, 0.1, 0.2], [0.0, float("nan"), 2.0]),
     r"general motion 'push': x: the table's values\[1\] is nan \(not finite\)"),
    (([0.0, float("inf")], [0.0, 1.0]), r"'push': x: the table's times\[1\] is inf"),
    (([0.0, 0.1, 0.2], [0.0, 1.0]), r"'push': x: the table has 3 times but 2 values"),
    (([0.0], [1.0]), r"'push': x: a table needs at least two times"),
])
def test_bad_tables_are_refused_naming_the_motion(table, message):
    with pytest.raises(MechanismError, match=message):
        _puck(table)
    with pytest.raises(MechanismError, match="motion 'lift': " + message.split(": x: ")[-1]):
        _slider(table)


def test_a_table_must_be_a_pair_of_sequences():
    """An array of two rows is not taken for a table (a pair is): the error says what a
    table is, naming the motion."""
    with pytest.raises(MechanismError, match=r"general motion 'push': x: expected .* or a table "
                                             r"\(times, values\) of two sequences, got ndarray"):
        _puck(np.array([[0.0, 1.0], [0.0, 1.0]]))


def test_a_run_past_the_table_s_end_names_the_motion_and_time():
    """A table over [0, 1] s, frames every 0.1 s to 1.5 s: the first frame past it (1.1 s)
    stops the run, naming the motion and the time; the frames before are kept."""
    ts = np.linspace(0.0, 1.0, 11)
    m = _puck((ts, np.sin(ts)))
    with pytest.raises(SolverError, match=r"general motion 'push': x: t = 1.1 s is outside "
                                          r"the table's times \[0, 1\] s") as err:
        m.solve(duration=1.5, fps=10)
    assert err.value.time == pytest.approx(1.1) and len(err.value.result.times) == 11


@pytest.mark.parametrize("method", ["explicit", "implicit"])
def test_a_dynamic_run_ending_on_the_table_s_last_time_completes(method):
    """A table over [0, 0.7] s drives a slider that carries a pendulum (a dynamic run) to
    0.7 s at 30 fps: Radau IIA's long step ends an ulp past 0.7 s (t + h rounded), which
    is the table's end, not a time outside it; the slider follows the spline (1e-9 m,
    the projection's tolerance) to the last frame."""
    ts = np.linspace(0.0, 0.7, 9)
    m = _slider((ts, 0.1 * np.sin(ts)))
    m.gravity[:] = (0.0, 0.0, -9.81)
    m.add_part("bob", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.3, 0.0, 0.0),
               center_of_mass=(0.2, 0.0, 0.0))
    m.add_marker("hinge", "bob", position=(-0.3, 0.0, 0.0))
    m.add_marker("pivot", "slider")
    m.add_joint("pin", "revolute", "hinge", "pivot")
    r = m.solve(duration=0.7, fps=30, analysis="dynamic", method=method)
    assert r.times[-1] == 0.7
    spline = CubicSpline(ts, 0.1 * np.sin(ts), bc_type="not-a-knot")
    assert np.abs(r.position("slider")[:, 2] - spline(r.times)).max() < 1e-9


def test_a_table_takes_a_time_rounding_past_its_end_and_refuses_one_beyond():
    """One ulp past either end is the end (its cubic, the same value to rounding); 1e-9 s
    past it is outside, named."""
    from solver.base.time_table import TimeTable
    table = TimeTable(np.linspace(0.0, 0.7, 9), np.sin(np.linspace(0.0, 0.7, 9)), "m")
    for end, past in ((0.7, np.nextafter(0.7, 1.0)), (0.0, -5e-324)):
        assert table.at(past) == pytest.approx(table.at(end), rel=1e-15, abs=1e-15)
    for bad in (0.7 + 1e-9, -1e-9):
        with pytest.raises(ExpressionError, match="m: t = .* is outside the table's times"):
            table.at(bad)
