"""Times in, frames out: ``Mechanism.solve(times=...)`` computes exactly the given output
times (the add-on passes the scene's frames this way), with the same numbers as the
duration/fps form, and rejects times it cannot honour."""
from __future__ import annotations

import numpy as np
import pytest

from mechanisms import crank_angle, pendulum, slider_crank, slider_crank_closed_form
from solver import MechanismError


def test_times_equal_duration_and_fps() -> None:
    """times = k/fps gives the very same result as duration and fps (same arrays)."""
    a = slider_crank().solve(1.0, 24)
    b = slider_crank().solve(times=np.arange(25) / 24.0)
    np.testing.assert_array_equal(a.times, b.times)
    np.testing.assert_array_equal(a.position("slider"), b.position("slider"))
    np.testing.assert_array_equal(a.effort("drive"), b.effort("drive"))


def test_times_are_returned_unrounded_and_may_start_late() -> None:
    """Uneven times starting at 0.37 s: Result.times are exactly those, and the piston
    follows the closed form there (Newton precision)."""
    t = np.array([0.37, 0.41, 0.5, 0.9, 1.234567])
    res = slider_crank().solve(times=t)
    assert res.times.tolist() == t.tolist()
    x = slider_crank_closed_form(*crank_angle(t), r=0.1, l=0.3).x
    np.testing.assert_allclose(res.position("slider")[:, 0], x, atol=1e-10)


def test_dynamic_run_over_given_times() -> None:
    """A free pendulum over given times: frame k is at times[k]; energy holds."""
    m = pendulum(axis="y", inertia=(1e-3, 1e-3, 1e-3))      # swings in the xz plane
    t = np.array([0.0, 0.1, 0.35, 0.7])
    res = m.solve(times=t, analysis="dynamic", tolerance=1e-8)
    assert res.times.tolist() == t.tolist()
    ke, pe, work = res.energy()
    assert np.max(np.abs(ke + pe - (ke[0] + pe[0]))) < 1e-7


@pytest.mark.parametrize("times, message", [
    ([], "empty"), ([0.0, 0.1, 0.1], "increase strictly"), ([0.0, np.nan], "NaN"),
    ("abc", "numbers"), ([[0.0, 0.1], [0.2, 0.3]], r"one sequence of numbers, got an array "
                                                  r"of shape \(2, 2\)")])
def test_bad_times_are_named(times, message) -> None:
    with pytest.raises(MechanismError, match=message):
        slider_crank().solve(times=times)


def test_duration_or_times_not_both() -> None:
    with pytest.raises(MechanismError, match="either"):
        slider_crank().solve(1.0, times=[0.0, 0.5])
    with pytest.raises(MechanismError, match="duration"):
        slider_crank().solve()
