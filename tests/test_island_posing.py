"""Posing a mechanism by hand is as accurate beside a 20 m pole that nothing joins to it as
alone: a drag stops on its target to a tolerance of the dragged part's own mechanism, and a
slide's range is swept and located in steps of the slider's own mechanism (Model.body_size),
not of the model's largest (Model.length_scale, 10 m with the pole)."""
from __future__ import annotations

import numpy as np

import mechanisms as mk
from test_drag import angle_of, poser, world_point
from test_island_tolerances import hanging_pole


def test_a_drag_beside_a_pole_lands_on_its_target_as_alone() -> None:
    """A two-link arm of 5 cm links dragged by its tip to three targets in its reach, alone
    and beside a 20 m pole hanging 30 m away.  Before, the drag stopped once the tip was
    within 1e-12 of the model's 10 m: 4.7e-12 m off the target (3.5e-15 m alone) and the
    angles 1.1e-10 rad off.  Bounds: a stop within 1e-12 of the arm's own 0.057 m,
    5.7e-14 m (measured 3.5e-15 m alone, 4.3e-15 m beside the pole); the angles follow the
    tip over the 5 cm links, so two stops each within 5.7e-14 m agree to 2 x 5.7e-14 m /
    0.05 m = 2.3e-12 rad (measured 1.8e-13 rad), bounded at twice that, 5e-12 rad."""
    got = []
    for pole in (False, True):
        m = mk.chain([0.3, 1.2], lengths=0.05, kind="revolute")
        if pole:
            hanging_pole(m, (30.0, 0.0, 0.0))
        ps = poser(m)
        angles = []
        for target in ((0.06, 0.07, 0.0), (0.0, -0.09, 0.0), (-0.08, 0.03, 0.0)):
            ps.drag_to("link1", (0.05, 0.0, 0.0), target)
            assert np.abs(world_point(ps, "link1", (0.05, 0.0, 0.0)) - target).max() < 5.7e-14
            angles += [angle_of(ps, "link0"), angle_of(ps, "link1")]
        got.append(np.array(angles))
    assert np.abs(got[1] - got[0]).max() < 5e-12


def test_a_slide_range_beside_a_pole_is_located_as_alone() -> None:
    """The slider-crank of test_drag (crank 0.1 m, rod 0.3 m, no drive): its slide ranges
    over the dead centres [0.2, 0.4] m, found to 1e-6 of its mechanism's size (0.34 m).
    Before, beside the pole the sweep stepped and located the ends in the model's 10 m: the
    inner dead centre came out at 0.20040 m (3.9e-4 m off; 2.8e-7 m alone).  Bound: the
    range's default tolerance, 1e-6 of 0.34 m, with a factor 2 for the last bisection's
    side: 7e-7 m (measured 2.8e-7 m, 8.9e-8 m)."""
    for pole in (False, True):
        m = mk.slider_crank(theta0=1.0, error_deg=0.0, error_m=0.0)
        del m.motions["drive"]
        if pole:
            hanging_pole(m, (30.0, 0.0, 0.0))
        rng = poser(m).coordinate_range("slide")
        assert abs(rng.lower - 0.2) < 7e-7 and abs(rng.upper - 0.4) < 7e-7, (pole, rng)
