"""A force of state in real Blender: a Force with a Reaction marker whose expression uses the
mechanism's state (a damper and a spring written as DX and VX), baked against the closed
form; the force's baked series; a measure without a Reaction named."""
from __future__ import annotations

import math

import numpy as np
import pytest

import blender_scenes as bs


def _sprung_block(bpy):
    """A 2 kg block on a rail along world x (a prismatic joint made by Connect), pulled back
    to the ground marker "Anchor" by a force of state: -400 DX - 6 VX (N)."""
    bs.set_range(bpy, 1, 25)
    scene = bpy.context.scene
    scene.mechanism.tolerance = 1e-9
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.5))
    block = bs.add_box(bpy, "block", (0.1, 0.1, 0.1), (0.1, 0.0, 0.0))
    bs.tag(bpy, [ground, block], "PART")
    ground.mechanism.ground = True
    b = block.mechanism
    b.mass_mode, b.mass, b.inertia = "MANUAL", 2.0, (0.01, 0.01, 0.01, 0.0, 0.0, 0.0)
    bs.connect(bpy, block, ground, (0.1, 0.0, 0.0), "PRISMATIC", "X")
    anchor = bs.add_marker(bpy, ground, (0.0, 0.0, 0.0))
    anchor.name = "Anchor"
    hook = bs.add_marker(bpy, block, (0.1, 0.0, 0.0))
    hook.name = "Hook"
    pull = bs.new_force(bpy, "pull", hook, force="-400*DX('Hook', 'Anchor') - 6*VX('Hook', 'Anchor'), 0, 0")
    return block, pull, anchor


def test_a_force_of_state_bakes_as_the_damped_oscillator(blender) -> None:
    bpy = blender
    block, pull, anchor = _sprung_block(bpy)
    pull.mechanism.marker_j = anchor
    scene = bpy.context.scene
    scene.mechanism.analysis = "DYNAMIC"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    t = np.arange(25) / 24.0
    wn, z = math.sqrt(400.0 / 2.0), 6.0 / (2 * math.sqrt(400.0 * 2.0))
    wd = wn * math.sqrt(1 - z * z)
    x = 0.1 * np.exp(-z * wn * t) * (np.cos(wd * t) + z / math.sqrt(1 - z * z) * np.sin(wd * t))
    np.testing.assert_allclose(bs.curve(block, "location", 0)[:, 1], x, atol=2e-6)   # float32
    fx = bs.curve(pull, '["applied_force_x"]')[:, 1]
    assert fx[0] == pytest.approx(-40.0, rel=1e-6)
    assert np.abs(fx - (-400.0 * x)).max() < 6.0 * 2.0          # within the damping's part
    assert pull.mechanism.baked


def test_a_measure_without_a_reaction_is_named(blender) -> None:
    bpy = blender
    _sprung_block(bpy)
    with pytest.raises(RuntimeError, match="force 'pull': DX measures the mechanism's state: set "
                                           "the force's Reaction marker"):
        bpy.ops.mechanism.check()
