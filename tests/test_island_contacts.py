"""A contact's overlap is noted at a depth of its own mechanism's size (contact_check.py
overlap_tolerance: OVERLAP_TOL of Model.size_of its parts), not of the model's largest: a
20 m pole elsewhere in the scene, joined to nothing of it, hides no overlap at the start
(check and a run) nor a pass between frames (sweep/touches.py)."""
from __future__ import annotations

import pytest

from solver import Shape
from test_contact import ball_on_floor
from test_island_tolerances import hanging_pole
from test_sweep_touches import plunger


@pytest.mark.parametrize("pole", [False, True])
def test_a_ball_overlapping_its_floor_by_1e_10_m_is_said_beside_a_pole(pole) -> None:
    """A ball of radius 1 cm built 1e-10 m into its floor: its mechanism (the ball alone,
    0.0077 m: its radius of gyration) notes overlaps past 1e-9 of that, 7.7e-12 m, so
    check() and a run say the 1e-10 m.  Before, beside the pole the least overlap said was
    1e-9 of the model's 10 m, 1e-8 m, and neither said anything."""
    m = ball_on_floor(0.01, 0.1, -1e-10)
    if pole:
        hanging_pole(m, (30.0, 0.0, 0.0))
    for notes in (m.check().notes, m.solve(0.01, 100, analysis="dynamic").notes):
        said = [n for n in notes if "overlap" in n]
        assert len(said) == 1 and "contact 'hit'" in said[0] and "by 1e-10 m" in said[0]


@pytest.mark.parametrize("pole", [False, True])
def test_a_ball_grazing_its_floor_between_frames_is_said_beside_a_driven_pole(pole) -> None:
    """test_sweep_touches' plunger driven to z = 0.02 - 5e-9 + 4 (t - 0.25)^4 m at 2 fps:
    both frames 0.0156 m clear, the ball (radius 0.02 m) 5e-9 m into the floor at 0.25 s,
    more than 1e-9 of its 0.25 m mechanism (2.5e-10 m): noted, meeting the floor where
    4 (t - 0.25)^4 = 5e-9, t = 0.25 - 0.00595 = 0.24405 s.  Before, beside a 20 m pole
    swung by its own motion the dip was measured against 1e-9 of 10 m, 1e-8 m, and the
    pass went unsaid.  The instant is located to the overlap tolerance in depth, which the
    quartic's slope there (3.4e-6 m/s) turns, 2.5e-10 m over it, into 7e-5 s: 1e-4 s
    (measured 0.244077 s, 2.3e-5 s off)."""
    import re
    m = plunger("0.02 - 5e-9 + 4*(t - 0.25)**4", 0.02 - 5e-9 + 4 * 0.25 ** 4,
                Shape.half_space())
    if pole:
        hanging_pole(m, (30.0, 0.0, 0.0))
        m.add_motion("swing", "pole hinge", "0.1*sin(t)")
    said = [n for n in m.solve(duration=0.5, fps=2).notes if "pass through" in n]
    assert len(said) == 1 and said[0].startswith("contact 'plate'"), said
    t = float(re.search(r"at t = (\S+) s \(between frames 0 and 1\)", said[0]).group(1))
    assert t == pytest.approx(0.25 - (5e-9 / 4.0) ** 0.25, abs=1e-4)
