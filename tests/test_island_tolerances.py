"""A mechanism's accuracy is its own: not looser far from the world origin, and not looser
beside a large part that nothing joins to it (a 20 m pole elsewhere in the scene).

Each tolerance a run applies to a mechanism's gaps and steps is relative to the size of the
mechanism itself (Model.body_size: its island's, model/islands.py), and the integrators'
error weights do not grow with the distance of a part from the origin.
"""
from __future__ import annotations

import numpy as np
import pytest

import test_limits as stops
import test_scale as far
import test_side_by_side as pair
from solver import Mechanism


def hanging_pole(m: Mechanism, at, ground: str = "ground", origin=(0.0, 0.0, 0.0),
                 length: float = 20.0) -> Mechanism:
    """A 10 kg pole ``length`` m long hanging at rest from a pin at ``at`` (m, world) on the
    fixed part ``ground`` (placed at ``origin``), joined to nothing else in ``m``."""
    inertia = 10.0 * length ** 2 / 12.0
    m.add_part("pole", mass=10.0, inertia=(inertia, inertia, 0.1),
               center_of_mass=(0.0, 0.0, -length / 2.0), position=tuple(at))
    m.add_marker("pole top", "pole")
    m.add_marker("pole pin", ground, position=tuple(np.subtract(at, origin)))
    m.add_joint("pole hinge", "revolute", "pole top", "pole pin")
    return m


@pytest.mark.parametrize("method", ["implicit", "explicit"])
def test_a_pendulum_1_km_away_is_integrated_as_accurately_as_at_the_origin(method) -> None:
    """The 1 m rod pendulum of test_scale at (1e3, 1e3, 0) m against the reference of its one
    coordinate, at the default tolerance.  Before, each position's error weight grew with
    its coordinate (rtol (L + |r|), 2e3 times the rod's 0.5 m size there): Radau IIA
    reached 1.8e-8 rad far away against 1.1e-9 at the origin.  Bound: the run at the origin
    (measured 1.1e-9 rad implicit, 3.4e-11 explicit; the same far away, the coordinates'
    rounding, 16 eps 1.4e3 m = 5e-12 m, being 1e-11 rad over the 0.5 m arm) with a factor
    four for a different sequence of steps: 5e-9 rad."""
    errors = []
    for pivot in ((0.0, 0.0, 0.0), (1e3, 1e3, 0.0)):
        r = far.rod_pendulum(1.0, 1.0, pivot=pivot).solve(
            duration=2.0, fps=24, analysis="dynamic", method=method)
        errors.append(np.abs(far.rod_angle(r) - far.reference_angle(1.0, 0.5, r.times)).max())
    assert max(errors) < 5e-9, errors


def test_a_pole_beside_a_suspension_leaves_its_loads_as_alone() -> None:
    """The quarter-car of test_side_by_side over its bump (Radau IIA, default tolerance)
    alone and beside a 20 m pole hanging from the chassis: the same hub force and bushing
    load at every frame.  Before, the pole made the model 10 m in size: the suspension's
    position errors were weighed against 10 m, the pole's resting components diluted its
    RMS error and the projection stopped at 1e-12 of 10 m, and the hub force moved by
    3.3e-5 N (its error against a run at tolerance 1e-10 grew from 8e-7 N to 3.3e-5 N).
    Bound: the projection holds each pose to 1e-12 of the suspension's 0.5 m, 5e-13 m,
    which the 2e6 N/m bushings on each side of the hub turn into 2e-6 N (measured 2.3e-9)."""
    def loads(m: Mechanism) -> np.ndarray:
        r = m.solve(duration=0.4, fps=24, analysis="dynamic")
        return np.hstack([*r.reaction("s0 hub"), *r.bushing("s0 bushing front")])
    alone = loads(pair.suspensions((0.0, 0.0, 0.0)))
    m = hanging_pole(pair.suspensions((0.0, 0.0, 0.0)), (5.0, 0.0, 20.0), "s0 chassis",
                     (0.0, 0.0, 0.6))
    assert np.abs(loads(m) - alone).max() < 2e-6


def test_a_pole_beside_a_bouncing_ball_leaves_its_impacts_where_they_were() -> None:
    """test_limits' ball dropped 2 m onto its stop (restitution 0.8, tolerance 1e-9) alone and
    beside a 20 m pole hanging 30 m away: the same six impact instants.  Before, the stop's
    crossing tolerance was 1e-9 of the model's size (10 m with the pole, not the ball's
    2 m) and the error weights the pole's: the first impact moved by 6.4e-10 s and the
    sixth's error against the closed form grew from 6.3e-9 s to 3.1e-8 s.  Bound: each
    impact is located to 1e-10 s (test_limits), so the two runs agree to that."""
    h, e = 2.0, 0.8
    impacts = stops.bounce_times(h, e, 6)
    got = []
    for pole in (False, True):
        m = stops.dropped_ball(h, e)
        if pole:
            hanging_pole(m, (30.0, 0.0, 0.0))
        r = m.solve(duration=impacts[-1] + 0.05, fps=24, analysis="dynamic", tolerance=1e-9)
        got.append(np.array([t for t, _ in r.impacts[:6]]))
    assert np.abs(got[1] - got[0]).max() < 1e-10
    assert np.abs(got[1] - impacts).max() < 1e-8        # measured 6.3e-9 s (test_limits)


def test_a_driven_pole_beside_a_four_bar_leaves_its_sweep_as_alone() -> None:
    """The four-bar of test_scale swept alone and beside a 20 m pole swung by its own motion:
    the same rocker pose and ground pin load.  Before, Newton stopped at 1e-12 of the pole's
    10 m: the rocker 4.2e-12 m and the pin's load 9.5e-11 N off.  Bounds: Newton now holds
    the four-bar to 1e-12 of its own 1 m, 1e-12 m, in both runs; the loads (about 20 N)
    follow the poses to 1e-12 of themselves, 2e-11 N (both measured 0)."""
    def sweep(pole: bool):
        m = far.four_bar(0.0)
        m.add_motion("drive", "j1", "1 + 3*t")
        if pole:
            hanging_pole(m, (5.0, 0.0, 0.0))
            m.add_motion("swing", "pole hinge", "0.1*sin(t)")
        r = m.solve(duration=1.0, fps=24)
        return r.position("rocker"), np.hstack(r.reaction("j4"))
    (r0, f0), (r1, f1) = sweep(False), sweep(True)
    assert np.abs(r1 - r0).max() < 1e-12
    assert np.abs(f1 - f0).max() < 2e-11


def test_a_gap_beside_a_pole_is_said_in_metres_of_its_own_mechanism() -> None:
    """The rod pendulum pinned 3 mm from where it was built, and pinned besides to a point
    0.3 m from its pin (joints that cannot all close), beside a 20 m pole: the note and the
    error say the gaps in metres, 0.003 m and 0.3 m (60% of the rod's 0.5 m), as alone;
    with each length row in its own mechanism's size (Model.row_length), a gap read back in
    the model's 10 m was said 20 times too large (0.06 m; 6 m, 60% of 10 m)."""
    from solver.base.errors import SolverError
    for pole in (False, True):
        m = Mechanism(gravity=(0.0, -far.G, 0.0))
        m.add_part("ground", fixed=True)
        m.add_part("rod", mass=1.0, inertia=(1e-3, 1.0 / 12, 1.0 / 12),
                   center_of_mass=(0.5, 0.0, 0.0), position=(0.0, 0.003, 0.0))
        m.add_marker("O", "ground")
        m.add_marker("h", "rod")
        m.add_joint("pin", "revolute", "h", "O")
        if pole:
            hanging_pole(m, (30.0, 0.0, 0.0))
        notes = m.solve(duration=0.1, fps=24, analysis="dynamic").notes
        assert any("joint 'pin' (by 0.003 m) is open" in n for n in notes), (pole, notes)
        m = far.rod_pendulum(1.0, 1.0, q0=0.0)
        m.add_marker("off", "ground", position=(0.0, 0.0, 0.3))
        m.add_joint("tie", "spherical", "h", "off")
        if pole:
            hanging_pole(m, (30.0, 0.0, 0.0))
        with pytest.raises(SolverError, match=r"gap of 0\.3 m, 60% of the model's size 0\.5 m"):
            m.solve(duration=0.1, fps=24)
