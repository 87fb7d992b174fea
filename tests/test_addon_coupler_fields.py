"""A coupler whose two joint fields name one joint, in real Blender (bpy): the gear pair
(blender_scenes.py) with Gear 2 set to Gear 1's joint, its pitch radii left at 0 or typed,
and as a belt or a general coupler.  The repeated joint is what to fix first, so Check and
Bake name it (the coupler, the field and the joint) before any other setting, the scene
unchanged."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs

SETTINGS = {
    "gear, radii at 0": dict(ratio_mode="RADII", radius_a=0.0, radius_b=0.0),
    "gear, radii typed": dict(ratio_mode="RADII", radius_a=0.03, radius_b=0.05),
    "belt, radii at 0": dict(mesh="BELT", ratio_mode="RADII", radius_a=0.0, radius_b=0.0),
    "general coupler": dict(coupler_kind="COUPLER"),
}


@pytest.mark.parametrize("op", ["bake", "check"])
@pytest.mark.parametrize("case", SETTINGS)
def test_a_coupler_on_one_joint_twice_is_named_first(blender, case: str, op: str) -> None:
    """Gear 2 (Joint 2) set to Gear 1's joint: Check and Bake name the coupler, the field
    and the joint as repeated, whatever the radii (before, radii at 0 were reported first,
    and the repeated joint only once they were typed), the scene unchanged."""
    bpy = blender
    d = bs.gear_pair(bpy)
    s = d["gear"].mechanism
    for key, value in SETTINGS[case].items():
        setattr(s, key, value)
    s.joint_b = d["j1"]
    second = "Joint 2" if s.coupler_kind == "COUPLER" else "Gear 2"
    first = "Joint 1" if s.coupler_kind == "COUPLER" else "Gear 1"
    said = re.escape(f"coupler {d['gear'].name!r}: {second} {d['j1'].name!r} is {first} "
                     "too")
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=said):
        getattr(bpy.ops.mechanism, op)()
    assert not bs.differences(before, bs.snapshot(bpy))
