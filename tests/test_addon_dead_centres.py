"""A slider-crank built in Blender at its dead centre and driven by its slide: Blender's
float32 coordinates fold it off the dead centre by their rounding (tests/
test_rounded_dead_centres.py), and Check said nothing of it while Bake went on along the
branch the rounding chose.  Check names the motion and says what to do; Bake refuses with
the same words and leaves the scene as it was."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs

MOTION = "Prismatic piston-block: motion (slide)"


def slide_driven(bpy, at) -> None:
    """blender_scenes' slider-crank with crank 0.13 m and rod 0.37 m built at ``at`` at its
    dead centre (crank and rod in line), its main bearing undriven and its cylinder's
    Slide driven by -0.05 t^2 m (back from the dead centre)."""
    d = bs.slider_crank(bpy, crank=0.13, rod=0.37, at=at)
    d["main"].mechanism.motion_type = "NONE"
    c = d["cylinder"].mechanism
    c.motion_type, c.motion_coordinate, c.motion_expression = "EXPRESSION", "SLIDE", "-0.05*t**2"


@pytest.mark.parametrize("at", [(1.7, 0.9, 0.3), (0.0, 0.0, 0.0)])
def test_check_and_bake_name_a_slide_started_at_its_dead_centre(blender, at) -> None:
    """Built about (1.7, 0.9, 0.3) the rounding folds the crank by 2.3e-4 rad: Check said
    "1 (0 after motions)" with no problem and Bake finished on the branch the rounding
    chose; built about the origin the rounding leaves it on the dead centre, which was
    already refused.  Both: Check's problem and Bake's error name the motion at its dead
    centre and say to build it a little off, and the failed Bake changes nothing."""
    bpy = blender
    slide_driven(bpy, at)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert f"problem: motion '{MOTION}' starts at a dead centre" in report, report
    assert "build the mechanism a little off the dead centre, the way it should go" in report
    before = bs.snapshot(bpy)
    refused = re.escape(f"motion '{MOTION}' starts at a dead centre")
    with pytest.raises(RuntimeError, match=refused):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))
