"""Range of Motion > Position in real Blender through a singular position: a parallelogram's
crank Angle field stepped onto its lined-up position and on keeps the parallelogram."""
from __future__ import annotations

import math

import pytest

from test_addon_reports import parallelogram


@pytest.mark.parametrize("step_deg", [7.5, 1.0])
def test_stepping_a_cranks_angle_field_through_the_lined_up_position_keeps_the_parallelogram(
        blender, step_deg: float) -> None:
    """The four-bar of tests/test_addon_reports.py without its motion: the crank's Angle
    field set from its upright build down to -120 degrees in steps that land on the
    lined-up position (-90 degrees, the cranks along x) exactly.  Each pose keeps the
    branch it came along: the coupler level, the rocker's Angle the crank's.  A pose on
    the line kept no record of it, and the next step went over to the crossed branch."""
    bpy = blender
    joints = parallelogram(bpy)["joints"]
    joints[0].mechanism.motion_type = "NONE"
    coupler = bpy.data.objects["coupler"]
    crank, rocker = joints[0].mechanism, joints[3].mechanism
    for k in range(1, int(round(120.0 / step_deg)) + 1):
        crank.wiggle_angle = math.radians(-k * step_deg)
        assert bpy.context.scene.mechanism.report == "", k
        turned = coupler.matrix_world.to_euler().z
        # the float32 parts' lengths differ by some 1e-8 m, which folds the pose on the
        # line 1.5e-4 rad off it (measured); 1e-3 rad (the sweep's bound) is far below
        # the crossed branch's coupler turn, 0.023 rad one 1 degree step past the line
        assert abs(turned) < 1e-3, (k, turned)
        assert abs(rocker.wiggle_angle - crank.wiggle_angle) < 1e-3, k
    assert math.degrees(crank.wiggle_angle) == pytest.approx(-120.0, abs=1e-3)
