"""MuJoCo models (MJCF) read without Blender and without MuJoCo (addon/io/mjcf.py,
addon/io/mjcf_mechanism.py): names the import gives, mass properties against the closed
forms of the solid primitives, placements against rotation matrices written out, and
``<frame>`` elements against the same bodies written without them.  The comparisons with
MuJoCo's own compile and run are in test_mjcf.py (skipped where MuJoCo is not installed).

Tolerances: mass properties are sums and products of a few numbers, exact to rounding
(1e-12 relative)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from test_io_addon import io

mjcf, mm = io("mjcf"), io("mjcf_mechanism")


def body_xml(inner: str, compiler: str = "") -> str:
    return f"<mujoco>{compiler}<worldbody><body name='a' pos='0 0 1'>{inner}</body></worldbody></mujoco>"


def test_an_unnamed_joint_takes_its_bodys_name_and_number():
    m, _ = mm.mechanism_from_mjcf(body_xml("<joint axis='0 1 0'/><geom size='0.1'/>"))
    assert m.joints["a: joint0"].kind == "revolute"
    m, _ = mm.mechanism_from_mjcf(body_xml("<joint axis='1 0 0'/><joint axis='0 1 0'/>"
                                           "<geom size='0.1'/>"))
    assert m.joints["a: joint0 + a: joint1"].kind == "universal"


@pytest.mark.parametrize("kind, volume", [
    ("box", lambda r, h: 8 * r * r * h),                     # half-sizes r, r, h
    ("ellipsoid", lambda r, h: 4 / 3 * math.pi * r * r * h),   # semi-axes r, r, h
])
def test_a_fromto_box_or_ellipsoid_spans_its_first_size_across_the_axis(kind, volume):
    """fromto from (0, 0, 0) to (0, 0, -0.3) with size 0.05 0.07: MuJoCo makes both
    half-sizes across the axis size[0] (its second number is not read) and the
    half-length 0.15; density 1000 kg/m^3.  Inertia about the centre, axes along world:
    box m (b^2 + c^2) / 3, ellipsoid m (b^2 + c^2) / 5."""
    r, h = 0.05, 0.15
    b = mjcf.read_model(body_xml(f"<joint/><geom type='{kind}' size='0.05 0.07' "
                                 "fromto='0 0 0 0 0 -0.3'/>")).bodies["a"]
    mass = 1000 * volume(r, h)
    k = 3 if kind == "box" else 5
    assert b.mass == pytest.approx(mass, rel=1e-12)
    assert np.allclose(b.center, [0, 0, -h], atol=1e-12)
    assert np.allclose(b.inertia, np.diag(mass * np.array([r * r + h * h, r * r + h * h, 2 * r * r]) / k),
                       atol=1e-12)


def test_a_free_joints_damping_and_armature_are_named_not_dropped():
    """MuJoCo damps a free joint's six velocities; a free part has no element for it."""
    _, rep = mm.mechanism_from_mjcf(body_xml("<freejoint name='f'/><geom size='0.1'/>"))
    assert not rep.unmapped
    _, rep = mm.mechanism_from_mjcf(body_xml("<joint name='f' type='free' damping='0.5' "
                                             "armature='0.01'/><geom size='0.1'/>"))
    assert [u.split(": ", 1)[1] for u in rep.unmapped] == [
        "joint 'f': damping 0.5 (no solver element on a free part)",
        "joint 'f': armature 0.01 (no solver element on a free part)"]
