"""Numbers as a scene's units show them, in real Blender: what the fields without a unit of
their own count in (a general coupler's Scale on a slide), and the bounds a refusal
names."""
from __future__ import annotations

import numpy as np
import pytest

import blender_scenes as bs


@pytest.mark.parametrize("scale, length_unit", [(1.0, "MILLIMETERS"), (0.001, "MILLIMETERS")])
def test_a_couplers_scale_counts_a_slide_in_blender_units(blender, scale, length_unit) -> None:
    """A pinion's revolute and a rack's prismatic joint tied by a general Coupler, Scale 1
    0.04 and Scale 2 -1 (0.04 theta - x = 0): the rack moves 0.04 Blender units per radian
    whatever the Length unit, so at Unit Scale 1 with Millimetres 0.04 m (40 mm), not
    0.04 mm, as the Scale field's description and docs/blender.md say.  1e-6: float32
    locations."""
    bpy = blender
    units = bpy.context.scene.unit_settings
    units.scale_length, units.length_unit = scale, length_unit
    from test_addon_couplers import rack_and_pinion
    d = rack_and_pinion(bpy)
    spin, guide, rack = d["spin"], d["guide"], d["rack"]
    s = bs.couple(bpy, [guide, spin]).mechanism
    s.coupler_kind, s.joint_a, s.joint_b = "COUPLER", spin, guide
    s.scale_a, s.scale_b = 0.04, -1.0
    spin.mechanism.motion_type, spin.mechanism.motion_expression = "EXPRESSION", "2*sin(pi*t)"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    _, loc, _ = bs.baked_pose(rack)
    frames = np.arange(bs.FRAME_START, bs.FRAME_END + 1)
    theta = 2.0 * np.sin(np.pi * (frames - bs.FRAME_START) / 24.0)
    np.testing.assert_allclose(loc[:, 0], 0.04 * theta, atol=1e-6)


@pytest.mark.parametrize("system, length_unit, shown", [
    ("METRIC", "CENTIMETERS", "lower -10 cm"), ("METRIC", "MILLIMETERS", "lower -100 mm"),
    ("IMPERIAL", "FEET", "lower -0.3281 ft")])
def test_a_refused_stop_is_said_as_its_field_shows_it(blender, system, length_unit,
                                                     shown) -> None:
    """Unit Scale 0.001, a slide driven down at 0.2 m/s through its lower stop at -100
    Blender units (0.1 m): Bake's refusal gives the stops as the Lower field shows them,
    in the scene's Length unit (-10 cm with Centimetres, -100 mm with Millimetres, 0.3281
    ft in feet), never the stored -100 as if it were the scene's units."""
    from test_addon_limits import millimetre_slide
    bpy = blender
    millimetre_slide(bpy, -100.0, drive="-0.2*t")
    units = bpy.context.scene.unit_settings
    units.system, units.length_unit = system, length_unit
    units.scale_length = 0.001
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.mechanism.bake()
    said = str(refused.value)
    assert f"(the stops as their fields show them: {shown})" in said, said


def test_a_metres_scene_says_lengths_in_metres(blender, extension) -> None:
    """Blender's default scene (Metric, Length Metres) shows every length field in metres
    ("0.05 m": a fixed Length unit is the one its fields show; only Adaptive picks "5 cm"):
    Range of Motion says a slide's range between stops at -0.05 and 0.1 as the Lower and
    Upper fields show them."""
    from test_addon_drag import block_on_a_joint
    bpy = blender
    units = bpy.context.scene.unit_settings
    assert (units.system, units.length_unit) == ("METRIC", "METERS")
    block, rail = block_on_a_joint(bpy, "PRISMATIC")
    s = rail.mechanism
    s.use_limit_lower, s.limit_lower_slide = True, -0.05
    s.use_limit_upper, s.limit_upper_slide = True, 0.1
    said = extension.addon.drag.find_range(bpy.context.scene)
    assert said == f"{rail.name}: slide -0.05 m .. 0.1 m", said
    units.length_unit = "ADAPTIVE"
    said = extension.addon.drag.find_range(bpy.context.scene)
    assert said == f"{rail.name}: slide -5 cm .. 10 cm", said


def baked_main_bearing(bpy, joint) -> tuple[np.ndarray, np.ndarray]:
    """Bake, then (the reaction force magnitude keys (N), the report) of ``joint``."""
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    force = bs.curve(joint, '["reaction_force"]', action=joint.mechanism.bake_action)[:, 1]
    report = bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    return force, report


def test_no_unit_system_applies_no_unit_scale(blender) -> None:
    """Blender applies no Unit Scale when the unit system is None (BKE_unit_value_scale
    returns the stored value; the Units panel greys the field out): its fields and its own
    physics read a Blender unit as a metre and Gravity -9.81 as Earth's.  A slider-crank
    (kinematic, 0.1 m crank, meshes' masses) baked with no unit system and a Unit Scale of
    0.001 left over from a millimetre scene gives the main bearing's reactions of the same
    scene in metres, with no gravity or mass note; with the scale applied the meshes'
    masses came out 1e-9 of theirs (4e-11 kg, "below a microgram"), gravity 0.00981 m/s^2
    and a gravity note asked for 9806.65.  1e-6 relative: float32 keys."""
    bpy = blender
    d = bs.slider_crank(bpy)
    units = bpy.context.scene.unit_settings
    assert (units.system, units.scale_length) == ("METRIC", 1.0)
    want, _ = baked_main_bearing(bpy, d["main"])
    units.system, units.scale_length = "NONE", 0.001
    got, report = baked_main_bearing(bpy, d["main"])
    assert "gravity" not in report and "microgram" not in report, report
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("scale", [1.0, 0.001])
def test_a_compliant_stops_default_penetration_is_a_millimetre_at_any_unit_scale(
        blender, extension, scale) -> None:
    """A compliant slide stop with its Penetration left as it comes (docs/blender.md: the
    solver's 1 mm): the depth of full damping the compiled model holds is 1e-3 m at Unit
    Scale 1 and in a millimetre scene alike.  The field's old default, 1e-3 Blender units,
    gave 1e-6 m (a thousandth of a millimetre) in the millimetre scene, damping fully at
    once.  rel 1e-6: float32 settings."""
    from test_addon_limits import millimetre_slide
    bpy = blender
    d = millimetre_slide(bpy, -50.0)
    bpy.context.scene.unit_settings.scale_length = scale
    s = d["rail"].mechanism
    s.limit_model, s.limit_stiffness, s.limit_damping = "COMPLIANT", 2e4, 50.0
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    model = extension.solver.model.compile.compile_model(sm.mech)
    np.testing.assert_allclose(model.limits.penetration, [1e-3], rtol=1e-6)
    s.limit_penetration_slide = 0.5                       # typed in: Blender units
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    model = extension.solver.model.compile.compile_model(sm.mech)
    np.testing.assert_allclose(model.limits.penetration, [0.5 * scale], rtol=1e-6)
