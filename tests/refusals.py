"""A problem Check names and Bake refuses, the scene left as it was: the add-on tests'
shared assertion of bad input (real Blender: the ``blender`` fixture's bpy)."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs


def check_names_and_bake_refuses(bpy, words: str) -> None:
    """Check's report matches the regular expression ``words``, and Bake refuses with it
    (RuntimeError: the operator's error report), the scene as it was before (snapshot)."""
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert re.search(words, report), report
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=words):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def report_of(bpy, operator: str) -> str:
    """The scene's report after the mechanism operator ``operator`` ("check", "bake") ran
    and finished."""
    assert getattr(bpy.ops.mechanism, operator)() == {"FINISHED"}
    return bpy.context.scene.mechanism.report
