"""A dead centre passed between two output frames by a mechanism large enough to be swept
the banded way (solver/analyses/sweep/algebra.py: J M^-1 J^T banded, no dense det J): the
sweep keeps the branch it came along and notes the pole, as the dense sweep does
(sweep/poles.py, test_sweep_between.py)."""
from __future__ import annotations

import numpy as np
import pytest

import solver.analyses.sweep as sweep
from mechanisms import planar_angle
from test_singular_positions import crank_through, slide_driven_slider_crank


def with_wheels(m, n: int):
    """``m`` with n more parts, each on its own pin driven at 1 rad/s (a larger model whose
    J M^-1 J^T is banded, parts moving faster than the crank near its dead centre)."""
    for i in range(n):
        m.add_part(f"w{i}", mass=1.0, inertia=(0.01,) * 3, position=(1.0 + i, 1.0, 0.0))
        m.add_marker(f"a{i}", "ground", position=(1.0 + i, 1.0, 0.0))
        m.add_marker(f"b{i}", f"w{i}")
        m.add_joint(f"p{i}", "revolute", f"b{i}", f"a{i}")
        m.add_motion(f"mo{i}", f"p{i}", "t")
    return m


@pytest.mark.parametrize("fps, t0, between_frames", [(10, 1.001, "10 and 11"),
                                                    (4, 0.999, "3 and 4")])
def test_a_banded_sweep_passes_a_dead_centre_between_frames_on_its_branch(
        monkeypatch: pytest.MonkeyPatch, fps: int, t0: float, between_frames: str) -> None:
    """test_sweep_between.py's slide-driven slider-crank (x = 0.4 - 0.05 (t - t0)^2 m, its
    dead centre 1 ms from a frame) beside six driven wheels, 54 rows, swept the banded way:
    the frame beside the pole was solved on the mirror branch, the crank 1.83 rad off the
    closed form theta = sign(t0 - t) arccos((r^2 + x^2 - l^2) / (2 r x)) from there, no
    word.  It keeps the branch, and a note names the pole's instant between the two frames
    and the motion, as the dense sweep's."""
    banded = []
    made = sweep.Algebra.__init__

    def spy(self, *args, **kw):
        made(self, *args, **kw)
        banded.append(self.sparse)
    monkeypatch.setattr(sweep.Algebra, "__init__", spy)
    m = with_wheels(slide_driven_slider_crank(f"0.4 - 0.05*(t - {t0})**2",
                                              0.4 - 0.05 * t0 ** 2), 6)
    res = m.solve(duration=2.0, fps=fps)
    assert banded[0]
    theta = crank_through(res.times, t0)
    # as test_sweep_between.py: arccos near 0 loses half the digits of Newton's 1e-12 m
    # (measured 5e-8 rad 1 ms from the pole at 4 fps), so 1e-7 rad
    np.testing.assert_allclose(planar_angle(res.orientation("crank")), theta, atol=1e-7)
    said = [n for n in res.notes if "singular position" in n]
    assert len(said) == 1 and f"at t = {t0:.6g} s (between frames {between_frames})" in said[0]
    assert "push" in said[0]
