"""The Bushing role in real Blender: a block hung from the ground by a bushing, built through
the operators, baked, its keys and baked forces against the closed form; save and reload;
a deleted marker named."""
from __future__ import annotations

import math

import numpy as np
import pytest

import blender_scenes as bs


def ground_and_block(bpy):
    """(ground, block): frames 1-25 at tolerance 1e-9, a ground box 0.5 m up and a 2 kg
    block (typed-in mass, inertia 0.01 kg m^2) centred at (0.3, 0, -0.5), both parts."""
    bs.set_range(bpy, 1, 25)
    bpy.context.scene.mechanism.tolerance = 1e-9
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, 0.5))
    block = bs.add_box(bpy, "block", (0.1, 0.1, 0.1), (0.3, 0.0, -0.5))
    bs.tag(bpy, [ground, block], "PART")
    ground.mechanism.ground = True
    b = block.mechanism
    b.mass_mode, b.mass, b.inertia = "MANUAL", 2.0, (0.01, 0.01, 0.01, 0.0, 0.0, 0.0)
    return ground, block


def _hung_block(bpy, turn_j: float = 0.0):
    """A 2 kg block (typed-in mass) whose centre is held by a bushing to a ground marker at
    the same point; marker J turned ``turn_j`` about world z."""
    ground, block = ground_and_block(bpy)
    seat = bs.add_marker(bpy, ground, (0.3, 0.0, -0.5))
    seat.rotation_euler = (0.0, 0.0, turn_j)
    foot = bs.add_marker(bpy, block, (0.3, 0.0, -0.5))
    mount = bs.empty(bpy, "mount")
    m = mount.mechanism
    m.role, m.marker_i, m.marker_j = "BUSHING", foot, seat
    m.bushing_stiffness = (3000.0, 4000.0, 800.0)
    m.bushing_rotational_stiffness = (50.0, 50.0, 50.0)
    return block, mount, seat


def test_a_block_on_a_bushing_bounces_as_the_closed_form(blender) -> None:
    """Released where the bushing is free, the block falls and bounces vertically:
    z = z0 - (m g / k_z)(1 - cos(sqrt(k_z / m) t)), and the bushing pushes it up with
    m g (1 - cos) (world z on marker I's part)."""
    bpy = blender
    block, mount, _ = _hung_block(bpy)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert bpy.context.scene.mechanism.report.startswith("degrees of freedom: 6")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    t = np.arange(25) / 24.0
    m, k = 2.0, 800.0
    wn = math.sqrt(k / m)
    z = -0.5 - m * 9.81 / k * (1.0 - np.cos(wn * t))
    np.testing.assert_allclose(bs.curve(block, "location", 2)[:, 1], z, atol=2e-6)  # float32 keys
    fz = bs.curve(mount, '["bushing_force_z"]')[:, 1]
    np.testing.assert_allclose(fz, m * 9.81 * (1.0 - np.cos(wn * t)), atol=1e-4)
    assert mount.mechanism.baked and mount["bushing_torque"] == pytest.approx(0.0, abs=1e-9)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not mount.mechanism.baked and "bushing_force_z" not in mount.keys()


def test_the_bushing_acts_along_marker_j_axes(blender) -> None:
    """Marker J turned a quarter turn about z: its x axis is world y, so a push along world y
    meets the x stiffness (3000 N/m): the block's static offset is F / k_x."""
    bpy = blender
    block, mount, seat = _hung_block(bpy, turn_j=math.pi / 2)
    foot = mount.mechanism.marker_i
    bs.new_force(bpy, "push", foot, force="0, 30, 0")
    bpy.context.scene.mechanism.analysis = "DYNAMIC"
    mount.mechanism.bushing_damping = (200.0, 200.0, 200.0)
    bpy.context.scene.frame_end = 97              # 4 s: the damped motion settles
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    y = bs.curve(block, "location", 1)[:, 1]
    assert y[-1] == pytest.approx(30.0 / 3000.0, abs=2e-5)


def test_a_bushing_survives_save_and_reload_and_names_a_deleted_marker(blender, tmp_path) -> None:
    bpy = blender
    _, mount, seat = _hung_block(bpy)
    seat_name = seat.name
    path = str(tmp_path / "bushing.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    mount = bpy.data.objects["mount"]
    assert mount.mechanism.role == "BUSHING"
    assert tuple(mount.mechanism.bushing_stiffness) == (3000.0, 4000.0, 800.0)
    bpy.data.objects.remove(bpy.data.objects[seat_name])
    with pytest.raises(RuntimeError, match="bushing 'mount': marker J is not set or was deleted"):
        bpy.ops.mechanism.check()


def test_check_and_bake_name_a_bushing_that_starts_turned(blender, capfd) -> None:
    """Marker J turned a quarter turn from marker I (the block's axes): the bushing starts
    loaded, -K_r theta = 50 N m/rad x pi/2 = 78.5 N m about z; Check and Bake say so,
    naming it.  With marker I turned as J, nothing is said."""
    bpy = blender
    block, mount, seat = _hung_block(bpy, turn_j=math.pi / 2)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    said = "bushing 'mount': its markers start turned 90 deg, so it starts loaded"
    assert said in report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"{said}: torque (0, 0, 78.5398) N m on marker I's part" in out
    mount.mechanism.marker_i.rotation_euler = (0.0, 0.0, math.pi / 2)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert "starts loaded" not in bpy.context.scene.mechanism.report
