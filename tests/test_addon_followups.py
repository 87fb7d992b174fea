"""Small add-on defects after issue 14, each in real Blender (scenes: blender_scenes.py): the
report box after a Bake with nothing to note, the curve-fit line of a curve joint whose
curve changed, and the user's own keys in a bake's action across a re-bake.  Keys and
custom properties are float32; values compared exactly are the very floats written."""
from __future__ import annotations

import numpy as np

import blender_scenes as bs
from test_addon_defects import nla_track


def test_report_box_shows_the_latest_bake(blender) -> None:
    """A bake with a note (a soloed NLA track hides it), then, un-soloed, a bake with
    nothing to note: the report box shows the new run's line alone (it kept the old notes)."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    track = nla_track(bpy, arm, "walk")
    track.is_solo = True
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "is soloed" in bpy.context.scene.mechanism.report
    track.is_solo = False
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert report.startswith("baked 1 part(s), 1 joint(s), ") and " | " not in report, report
