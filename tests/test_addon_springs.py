"""Springs' own outputs in real Blender: a block bouncing on a spring-damper object and a
pin wound by a motion against its torsion spring, baked; their baked force curves, Plot and
Export CSV against the closed forms."""
from __future__ import annotations

import math

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_bushings import ground_and_block
from test_addon_contact_profiles import sample


def _hanging_block(bpy):
    """A 2 kg block (typed-in mass) hanging from a ground marker 0.5 m above its centre by a
    spring-damper of 800 N/m, released where the spring is free (its free length as built)."""
    ground, block = ground_and_block(bpy)
    top = bs.add_marker(bpy, ground, (0.3, 0.0, 0.0))
    hook = bs.add_marker(bpy, block, (0.3, 0.0, -0.5))
    spring = bs.new_spring(bpy, "coil", hook, top, stiffness=800.0)
    return block, spring


def test_a_block_bouncing_on_a_spring_bakes_its_tension_and_length(blender, tmp_path) -> None:
    """Released at the spring's free length, the block falls and bounces: the tension is
    m g (1 - cos(w t)) (positive: pulling the block up toward the top marker) and the
    length 0.5 + (m g / k)(1 - cos(w t)); the spring's panel has Plot Forces, which, as
    the main job's force plot, shows the tension (not the length); Export CSV writes both."""
    bpy = blender
    block, spring = _hanging_block(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    t = np.arange(25) / 24.0
    m, k = 2.0, 800.0
    swing = 1.0 - np.cos(math.sqrt(k / m) * t)
    f = bs.curve(spring, '["spring_force"]')[:, 1]
    # 1e-4 N: float32 keys of up to 40 N (4e-6) and the run's tolerance, with margin
    np.testing.assert_allclose(f, m * 9.81 * swing, atol=1e-4)
    length = bs.curve(spring, '["spring_length"]')[:, 1]
    np.testing.assert_allclose(length, 0.5 + m * 9.81 / k * swing, atol=2e-6)   # float32 keys
    assert spring.mechanism.baked
    bs.select(bpy, [spring], spring)
    assert ("operator", "mechanism.plot") in bs.panel_items(bpy, "VIEW3D_PT_mechanism_object")
    assert bpy.ops.mechanism.plot(name=spring.name) == {"FINISHED"}
    shown = {fc.data_path for fc in bs.channelbag(spring).fcurves if fc.select and not fc.hide}
    assert shown == {'["spring_force"]'}
    forces, torques = sample("force_plot").series(bpy.context.scene)   # the main job's plot
    assert [label for label, _, _ in forces] == ["coil: spring force"] and not torques
    path = tmp_path / "bounce.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(path)) == {"FINISHED"}
    header, *rows = [line.split(",") for line in path.read_text().splitlines()]
    col = header.index("coil spring_force_N")
    np.testing.assert_allclose([float(r[col]) for r in rows], m * 9.81 * swing, atol=1e-6)
    assert "coil spring_length_m" in header
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not spring.mechanism.baked and "spring_force" not in spring.keys()


def test_a_pin_wound_two_turns_bakes_its_torsion_spring_s_torque(blender) -> None:
    """The pendulum's pin driven at one turn a second for 2 s against a torsion spring (k =
    3 N m/rad, c = 0.2 N m s/rad, free angle 0.4 rad): the joint's torsion_spring_torque is
    k (2 pi t - 0.4) + 2 pi c, its turns kept (37.7 N m at the end)."""
    bpy = blender
    pen = bs.pendulum(bpy)
    bs.set_range(bpy, 1, 49)
    s = pen["pin"].mechanism
    s.motion_type, s.motion_expression = "EXPRESSION", "2*pi*t"
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 3.0, 0.2
    s.torsion_free_angle = 0.4
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    t = np.arange(49) / 24.0
    T = bs.curve(pen["pin"], '["torsion_spring_torque"]')[:, 1]
    # 2e-5 N m: float32 keys of up to 37 N m (4e-6), with margin
    np.testing.assert_allclose(T, 3.0 * (2 * math.pi * t - 0.4) + 0.2 * 2 * math.pi, atol=2e-5)
    assert T[-1] == pytest.approx(3.0 * (4 * math.pi - 0.4) + 0.4 * math.pi, abs=1e-4)
    _, torques = sample("force_plot").series(bpy.context.scene)
    assert f"{pen['pin'].name}: torsion spring torque" in [label for label, _, _ in torques]
