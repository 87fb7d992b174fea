"""A solver message's lengths in metres written also in the scene's units (addon/io/units.py),
without Blender: which scenes show metres already, and which numbers are lengths."""
from __future__ import annotations

import math

import pytest

from test_io_addon import io

units = io("units")
fixed_unit_text, in_metres, lengths_in_scene_units = (units.fixed_unit_text, units.in_metres,
                                                      units.lengths_in_scene_units)
angle_text, metres_per_unit = units.angle_text, units.metres_per_unit
angles_in_radians, angles_in_degrees = units.angles_in_radians, units.angles_in_degrees


def millimetres(metres: float) -> str:
    return fixed_unit_text("MILLIMETERS", metres)


def test_a_gap_in_metres_is_also_written_in_millimetres() -> None:
    message = ("assembly failed: the joints cannot all be closed: joints 'pin', 'far' leave "
               "a gap of 0.2 m, 67% of the model's size 0.3 m")
    assert lengths_in_scene_units(message, millimetres) == (
        "assembly failed: the joints cannot all be closed: joints 'pin', 'far' leave a gap "
        "of 0.2 m (200 mm), 67% of the model's size 0.3 m (300 mm)")


@pytest.mark.parametrize("text", [
    "a torque of 5 N m", "an area of 3 m^2", "2 mm", "mass 4 kg",
    "joint 'arm 2 m' locks", 'part "beam 3 m" is ground', "t = 0.25 s (frame 7)"])
def test_what_is_not_a_length_in_metres_is_left_alone(text: str) -> None:
    assert lengths_in_scene_units(text, millimetres) == text


@pytest.mark.parametrize("text, written", [
    ("by 1e-3 m or rad", "by 1e-3 m (1 mm) or rad"),
    ("past its bound -0.05 m.", "past its bound -0.05 m (-50 mm)."),
    ("the part's slide 0.125 m, then 2 m", "the part's slide 0.125 m (125 mm), then 2 m (2000 mm)"),
    ("its rate is off by 0.1 m/s)", "its rate is off by 0.1 m/s (100 mm/s))"),
    ("gravity 9.81 m/s^2 and 9.81 m/s²", "gravity 9.81 m/s^2 and 9.81 m/s²")])
def test_each_length_is_written_where_it_stands(text: str, written: str) -> None:
    assert lengths_in_scene_units(text, millimetres) == written


@pytest.mark.parametrize("system, unit, scale, metres", [
    ("METRIC", "METERS", 1.0, True), ("METRIC", "METERS", 0.001, True),
    ("METRIC", "ADAPTIVE", 1.0, True), ("METRIC", "ADAPTIVE", 0.001, False),
    ("METRIC", "MILLIMETERS", 0.001, False), ("METRIC", "CENTIMETERS", 1.0, False),
    ("IMPERIAL", "INCHES", 1.0, False), ("NONE", "ADAPTIVE", 1.0, True),
    ("NONE", "ADAPTIVE", 0.001, True)])
def test_which_scenes_show_metres(system: str, unit: str, scale: float, metres: bool) -> None:
    """A scene whose fields show metres needs no second length; a millimetre scene (unit
    scale 0.001, Millimetres), inches or a scaled adaptive scene does.  With no unit system
    a Blender unit is a metre whatever the (greyed-out) Unit Scale."""
    assert in_metres(system, unit, scale) is metres


@pytest.mark.parametrize("unit, written", [("MILLIMETERS", "200 mm"), ("INCHES", "7.874 in"),
                                           ("MICROMETERS", "2e+05 µm"), ("ADAPTIVE", None)])
def test_a_fixed_unit_writes_its_symbol(unit: str, written) -> None:
    """0.2 m in the fixed Length units (1 in = 0.0254 m exactly); Adaptive is Blender's."""
    assert fixed_unit_text(unit, 0.2) == written


@pytest.mark.parametrize("rotation, written", [("DEGREES", "60 degrees"),
                                               ("RADIANS", "1.0472 rad")])
def test_an_angle_is_written_in_the_scenes_rotation_unit(rotation: str, written: str) -> None:
    """pi/3 as a scene in Degrees or in Radians shows it (six significant digits)."""
    assert angle_text(rotation, math.pi / 3) == written


@pytest.mark.parametrize("system, scale, metres", [
    ("METRIC", 0.001, 0.001), ("IMPERIAL", 0.0254, 0.0254), ("METRIC", 0.0, 1.0),
    ("NONE", 0.001, 1.0), ("NONE", 1.0, 1.0)])
def test_a_blender_unit_in_metres(system: str, scale: float, metres: float) -> None:
    """The Unit Scale in a unit system (0 read as 1); none with no unit system, whose fields
    Blender shows unscaled (BKE_unit_value_scale) and whose Unit Scale it greys out."""
    assert metres_per_unit(system, scale) == metres


@pytest.mark.parametrize("text, written", [
    ("moving part 'crank' by 0.01 m and 2.86 deg", "moving part 'crank' by 0.01 m and 2.86 deg "
     "(0.04992 rad)"),
    ("the axes are 90 degrees apart", "the axes are 90 degrees (1.571 rad) apart"),
    ("stop at 0.5 rad (28.6479 deg)", "stop at 0.5 rad (28.6479 deg)"),
    ("keep b2 away from +-90 deg", "keep b2 away from +-90 deg"),
    ("joint 'a 3 deg' turned -180 deg", "joint 'a 3 deg' turned -180 deg (-3.142 rad)"),
    ("3 degrees of freedom", "3 degrees of freedom")])
def test_each_angle_in_degrees_is_also_written_in_radians(text: str, written: str) -> None:
    """pi/180 rad per degree, to 4 digits; names in quotes, angles already in radians and
    degrees of freedom are left as they are."""
    assert angles_in_radians(text) == written


@pytest.mark.parametrize("text, written", [
    ("disagree by 8e-07 m and 0.0349 rad (accepted", "disagree by 8e-07 m and 0.0349 rad "
     "(2 deg) (accepted"),
    ("a bound 1 rad (57.2958 deg)", "a bound 1 rad (57.2958 deg)"),
    ("spinning at 3 rad/s", "spinning at 3 rad/s (171.9 deg/s)"),
    ("joint '2 rad' at -1.5 rad", "joint '2 rad' at -1.5 rad (-85.94 deg)")])
def test_each_angle_in_radians_is_also_written_in_degrees(text: str, written: str) -> None:
    """180/pi degrees per radian, to 4 digits (rad/s to deg/s); names in quotes and an
    angle whose degrees are given already are left as they are."""
    assert angles_in_degrees(text) == written
