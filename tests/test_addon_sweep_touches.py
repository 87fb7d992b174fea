"""A kinematic bake whose motion drives a part right through another between two frames,
both frames apart, in real Blender: the report names the contact and the scene frames
around the instant they meet (solver/analyses/sweep/touches.py)."""
from __future__ import annotations

import math
import re

import pytest

from test_addon_contacts import swung_ball


def test_a_bake_names_a_plate_passed_through_between_two_scene_frames(blender) -> None:
    """The swung ball (r = 0.05 m on an arm of R = 0.3 m about world y, theta = 10 pi t at
    24 fps: 1.31 rad a frame) against a post made a vertical plate 0.01 m thick (x within
    +-0.005 m): the ball's surface meets the plate's face at R cos(theta) = r + 0.005, t =
    acos(0.055 / 0.3) / (10 pi) = 0.0441 s, scene frame 2.06, while scene frames 2 and 3
    (theta 1.31 and 2.62 rad) have it 0.023 and 0.2 m clear.  The report names the contact
    and the instant between scene frames 2 and 3."""
    bpy = blender
    scene = swung_ball(bpy)
    from mathutils import Matrix                     # (bpy's, once the fixture loaded it)
    scene["post"].data.transform(Matrix.Diagonal((0.01 / 0.9, 1.0, 1.0, 1.0)))  # its mesh only
    scene["pin"].mechanism.motion_expression = "10*pi*t"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    said = re.search(r"contact 'Contact ball-post': parts 'ball' and 'post' pass through each "
                     r"other at t = (\S+) s \(between frames 2 and 3\)", report)
    assert said, report
    # printed to 6 significant digits; the instant is located to 1e-9 of a frame
    assert float(said.group(1)) == pytest.approx(
        math.acos(0.055 / 0.3) / (10.0 * math.pi), abs=1e-6)
