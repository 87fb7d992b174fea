"""The add-on's mode logic without Blender: the labels the Modes list shows, and a mode's
oscillation over a frame range as the bake reads it."""
from __future__ import annotations

import numpy as np

from addon.io.modes import ModeAnimation, mode_label
from tests.test_modes import _pendulum


def test_labels_say_stable_unstable_and_free():
    assert mode_label(0, 2.3456, 0.0123) == "1: 2.346 Hz, damping 0.0123"
    assert mode_label(1, -1.25, 0.0) == "2: unstable, grows at 1.25 Hz"
    assert mode_label(2, 0.0, 0.0) == "3: free (no stiffness)"


def test_the_animation_starts_and_ends_at_the_equilibrium_and_keeps_the_pin():
    md = _pendulum().modes()
    times = np.arange(25) / 24.0
    anim = ModeAnimation(md, 0, 0.05, 1.0, times)
    pos, ori = anim.position("rod"), anim.orientation("rod")
    assert pos.shape == (25, 3) and ori.shape == (25, 4)
    assert np.allclose(pos, 0.0, atol=1e-9)                  # the part frame is the pivot
    angle = 2 * np.arctan2(ori[:, 2], ori[:, 0])
    assert abs(angle[0]) < 1e-12 and abs(angle[-1]) < 1e-9   # one whole period
    assert abs(angle[6] + angle[18]) < 1e-9 and abs(angle[6]) > 0.05
