"""What the viewport and the panel show at a scene's Unit Scale, in real Blender: the
markers and joints Connect makes, Bake Mode's default Amplitude and the force arrows are
sized in metres, the same in a millimetre, a metre or a kilometre scene (a size in Blender
units would be 1000 times too small to see in a millimetre scene); a part's computed centre
of mass is shown in the scene's length unit."""
from __future__ import annotations

import numpy as np
import pytest

import blender_scenes as bs

SCALES = [1.0, 0.001, 1000.0]


def metre_pendulum(bpy, scale: float) -> dict:
    """blender_scenes.pendulum's 1 m arm pinned about world y at the origin, built at Unit
    Scale ``scale`` in 1 / scale Blender units a metre, Gravity 9.81 m/s^2 (the field is in
    Blender units): the same mechanism in metres."""
    bs.set_range(bpy)
    bpy.context.scene.unit_settings.scale_length = scale
    bpy.context.scene.gravity = (0.0, 0.0, -9.81 / scale)
    u = 1.0 / scale
    ground = bs.add_box(bpy, "ground", (0.2 * u,) * 3, (0.0, 0.0, -0.3 * u))
    arm = bs.add_box(bpy, "arm", (1.0 * u, 0.1 * u, 0.1 * u), (0.5 * u, 0.0, 0.0))
    bs.tag(bpy, [ground, arm], "PART")
    ground.mechanism.ground = True
    pin = bs.connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    bpy.context.scene.mechanism.tolerance = 1e-9
    return dict(ground=ground, arm=arm, pin=pin)


@pytest.mark.parametrize("scale", SCALES)
def test_connects_markers_and_joint_are_drawn_the_same_size_in_metres(blender, scale) -> None:
    """Connect's markers are 0.25 m arrows and its joint a 0.1 m sphere at any Unit Scale
    (they were 0.25 and 0.1 Blender units: 0.25 mm in a millimetre scene).  rel 1e-6:
    float32 display sizes."""
    d = metre_pendulum(blender, scale)
    s = d["pin"].mechanism
    for marker in (s.marker_i, s.marker_j):
        assert marker.empty_display_size * scale == pytest.approx(0.25, rel=1e-6)
    assert d["pin"].empty_display_size * scale == pytest.approx(0.1, rel=1e-6)


@pytest.mark.parametrize("scale", SCALES)
def test_bake_modes_default_amplitude_is_five_centimetres_at_any_unit_scale(blender,
                                                                            scale) -> None:
    """Bake Mode with its Amplitude as it comes: the pendulum's centre of mass, 0.5 m from
    the pin and the part that moves most, swings 0.05 m, about 0.1 rad, at any Unit Scale
    (the default was 0.05 Blender units: 0.1 mrad in a millimetre scene, 100 rad in a
    kilometre one).  2 %: each pose is closed onto the pin by least movement, so the swing
    is the sine's to about 1.5 % (test_addon_modes)."""
    bpy = blender
    d = metre_pendulum(bpy, scale)
    assert bpy.ops.mechanism.find_modes() == {"FINISHED"}
    bpy.context.scene.mechanism.mode_cycles = 2.0
    assert bpy.ops.mechanism.bake_mode() == {"FINISHED"}
    qw = bs.curve(d["arm"], "rotation_quaternion", 0)[:, 1]
    qy = bs.curve(d["arm"], "rotation_quaternion", 2)[:, 1]
    swing = 2.0 * np.arctan2(qy, qw)
    swing -= swing[0]
    assert np.abs(swing).max() == pytest.approx(0.05 / 0.5, rel=0.02)


@pytest.mark.parametrize("scale", SCALES)
def test_force_arrows_are_a_centimetre_a_newton_at_any_unit_scale(blender, extension,
                                                                   scale) -> None:
    """After a bake, the pin's reaction arrow (the arm's 10 kg hanging and swinging: near
    100 N) is 0.01 m per newton long at any Unit Scale (it was 0.01 Blender units per
    newton: 1 mm for 100 N in a millimetre scene).  rel 1e-5: the arrow's float32
    vertices."""
    bpy = blender
    d = metre_pendulum(bpy, scale)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.scene.frame_set(7)
    pin = d["pin"]
    force = np.array([pin[f"reaction_force_{c}"] for c in "xyz"])
    lines = extension.addon.draw.force_lines(bpy.context.scene)
    shaft = float(np.linalg.norm(lines[1] - lines[0])) * scale
    assert np.linalg.norm(force) > 50.0
    assert shaft == pytest.approx(0.01 * np.linalg.norm(force), rel=1e-5)


@pytest.mark.parametrize("system, scale, length_unit, shown", [
    ("METRIC", 1.0, "METERS", "0.1 m, 0.03 m, 0 m"),
    ("IMPERIAL", 0.0254, "INCHES", "3.937 in, 1.181 in, 0 in")])
def test_the_part_panel_shows_the_computed_centre_of_mass(blender, system: str, scale: float,
                                                          length_unit: str, shown: str) -> None:
    """A 0.2 m cube whose mesh stands 0.1 m along its x and 0.03 m along its y from its
    origin, the part turned 90 degrees about z: after Check the part's panel shows its
    centre of mass (the guide: "the computed mass ..., centre of mass and inertia ... are
    shown"), from its origin along its own axes, in the scene's length unit (the mesh's
    float32 vertices put the zero component within 1e-9 of the part's size of 0)."""
    bpy = blender
    bs.set_range(bpy)
    units = bpy.context.scene.unit_settings
    units.system, units.scale_length, units.length_unit = system, scale, length_unit
    u = 1.0 / scale
    ground = bs.add_box(bpy, "ground", (0.2 * u,) * 3, (0.0, 0.0, -0.5 * u))
    block = bs.add_box(bpy, "block", (0.2 * u,) * 3, (0.3 * u, 0.0, 0.0), rotation=(0, 0, np.pi / 2))
    for v in block.data.vertices:                  # the unit cube's vertices, scaled by 0.2 u
        v.co.x += 0.5
        v.co.y += 0.15
    bs.tag(bpy, [ground, block], "PART")
    ground.mechanism.ground = True
    bs.connect(bpy, block, ground, (0.3 * u, 0.0, 0.0))
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    bs.select(bpy, [block], block)
    labels = bs.panel_labels(bpy, "VIEW3D_PT_mechanism_object")
    assert f"Centre of mass {shown} from its origin, along its axes" in labels, labels
