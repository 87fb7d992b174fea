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
