"""A rigid stop struck in the step after one that ended within the stop's gap tolerance
(GAP_TOL of the row's length: not a crossing) of its bound, on either side: the impact
is still located and taken at the speed it comes with (Stops.turned_back, stops.locate)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism
from solver.analyses.dynamics.stops import tolerance
from solver.model.compile import compile_model

G = 9.81


def thrown_up(height: float, speed: float, e: float) -> Mechanism:
    """A 0.5 kg ball on a vertical prismatic joint thrown up at ``speed`` from 0 toward a
    rigid upper stop at ``height`` (restitution e)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=0.5, inertia=(1e-3,) * 3, velocity=(0.0, 0.0, speed))
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "ball")
    m.add_joint("lift", "prismatic", "shoe", "rail")
    m.add_limit("ceiling", "lift", lower=-10.0, upper=height, restitution=e)
    return m


@pytest.mark.parametrize("share", [0.5, 0.0, -0.3, -0.9])
def test_a_stop_reached_just_after_a_frame_within_its_tolerance_is_struck(share: float) -> None:
    """The ball reaches its stop (1 m up) at 0.05 m/s, e = 0.5, and an output time falls
    where its gap is ``share`` of the stop's tolerance (negative: past the bound, within
    it).  Gravity alone would carry it 0.13 mm past the bound and back within the next
    step, both ends of which look right: the impact must still be taken, once, at 0.05 m/s
    (1e-6 of it: an impact is located half the tolerance past its bound, up to all of
    it, where gravity has slowed the ball by G tol / vb = 1.1e-7 of vb), and the ball at 0.5 s is where a free flight
    from the bound at -0.025 m/s puts it (1e-8 m; 4e-3 m off when the impact went
    unseen)."""
    height, vb, e = 1.0, 0.05, 0.5
    v0 = math.sqrt(vb * vb + 2.0 * G * height)
    m = thrown_up(height, v0, e)
    tol = float(tolerance(compile_model(m))[-1])
    z1 = height - share * tol
    t1 = (v0 - math.sqrt(v0 * v0 - 2.0 * G * z1)) / G
    r = m.solve(times=np.array([0.0, t1, 0.5]), analysis="dynamic", tolerance=1e-9)
    z = r.position("ball")[:, 2]
    assert (height - z[1]) / tol == pytest.approx(share, abs=0.01)
    assert len(r.impacts) == 1
    np.testing.assert_allclose(r.impacts[0].speed_before, [vb], rtol=1e-6)
    np.testing.assert_allclose(r.impacts[0].speed_after, [-e * vb], rtol=1e-6)
    hit = (v0 - vb) / G
    late = 0.5 - hit
    assert z[-1] == pytest.approx(height - e * vb * late - 0.5 * G * late * late, abs=1e-8)
