"""Keyframed motions in real Blender (bpy): an F-curve's modifiers as the viewport plays them
(a Cycles modifier's loops) drive the joint, frame by frame and in rate.  Scenes:
blender_scenes.py; the Blender-free F-curve maths is tested in test_io_addon.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_bake import joint_angle


def looped_pendulum(bpy, before: str, after: str, cycles_after: int):
    """The pendulum with its pin's Angle keyed 0, 1, 0.3 rad at frames 21, 33, 45 and a Cycles
    modifier (modes ``before``, ``after``; ``cycles_after`` repeats, 0 for no end) over
    frames 1-81, so the bake runs 20 frames before the keys and 36 past them; (pin, F-curve)."""
    pin = bs.keyed_pendulum(bpy, frames=(21, 33, 45))["pin"]
    bs.set_range(bpy, 1, 81)
    fc = bs.channelbag(pin).fcurves.find("mechanism.motion_angle")
    cycles = fc.modifiers.new("CYCLES")
    cycles.mode_before, cycles.mode_after, cycles.cycles_after = before, after, cycles_after
    return pin, fc


@pytest.mark.parametrize("before, after, cycles_after", [
    ("REPEAT", "REPEAT", 0), ("REPEAT_OFFSET", "REPEAT_OFFSET", 0), ("MIRROR", "MIRROR", 0),
    ("NONE", "REPEAT", 1)])
def test_keyframed_motion_plays_its_cycles_modifier(blender, extension, before, after,
                                                    cycles_after) -> None:
    """A Cycles modifier on a keyed motion loops it as the viewport plays it: at every frame
    of the bake, before the keys and past them (past one cycle the curve holds its last
    value), the joint's angle is the F-curve's own evaluation, modifiers included
    (fcurve.evaluate), to float32's 1e-6 rad; and the motion's rate is the F-curve's slope,
    between frames (a mirrored cycle runs backwards, so its rate changes sign there).  The
    slope: central differences of fcurve.evaluate over +-0.1 and +-0.05 frame, Richardson
    extrapolated (4 D(h/2) - D(h)) / 3, which leaves an O(h^4) error under 1e-6 rad/s;
    float32's 1e-7 rad over 0.1 frame at 24 fps gives at most (4 + 1) / 3 * 2.4e-5, 4e-5
    rad/s; rates are up to 3 rad/s."""
    bpy = blender
    pin, fc = looped_pendulum(bpy, before, after, cycles_after)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    s = pin.mechanism
    for f in range(1, 82):
        bpy.context.scene.frame_set(f)
        gap = joint_angle(s.marker_i, s.marker_j) - fc.evaluate(f)
        assert abs(math.remainder(gap, 2 * math.pi)) < 1e-6, f"frame {f}"
    reader = extension.addon.scene_reader
    timeline = reader.read_scene(bpy.context.scene).timeline
    _, (rate, _) = reader.keyframed_motion(pin, "angle", timeline, 1.0)
    fps = timeline.fps
    for f in np.arange(1.37, 81.0, 2.0):
        d = [(fc.evaluate(f + h) - fc.evaluate(f - h)) / (2 * h) * fps for h in (0.1, 0.05)]
        slope = (4 * d[1] - d[0]) / 3
        assert rate((f - 1) / fps) == pytest.approx(slope, abs=1e-4), f"frame {f}"
