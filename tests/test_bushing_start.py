"""A bushing whose markers start apart or turned starts loaded: check() and every run say
so, naming the bushing, how far apart and how turned its markers start and the load that
gives (K d and K theta, in marker J's axes); a bushing whose markers coincide says nothing."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from solver import Mechanism
from tests.mechanisms import quat_z

K6 = (1000.0, 2000.0, 3000.0, 40.0, 50.0, 60.0)


def _mount(offset=(0.0, 0.0, 0.0), turn=0.0, preload=0.0) -> Mechanism:
    """A block held to the ground by a bushing, its marker I ``offset`` (m, world) from
    marker J and turned ``turn`` (rad) about z; no gravity, so only that start loads it."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=2.0, inertia=(0.02, 0.03, 0.04), position=offset,
               orientation=quat_z(turn))
    m.add_marker("seat", "ground")
    m.add_marker("foot", "block")
    m.add_bushing("rubber", "foot", "seat", stiffness=K6, preload=preload)
    return m


def _loaded(notes) -> list[str]:
    return [n for n in notes if "starts loaded" in n]


def test_a_bushing_started_apart_and_turned_is_named_with_its_load():
    """Marker I 10 mm along x and 20 mm along z from J and turned 5 deg about z: the note
    names the bushing, 22.4 mm and 5 deg, and the load -K d = (-10, 0, -60) N and -K theta
    = (0, 0, -5.24) N m (marker J's axes are the world's)."""
    turn = math.radians(5.0)
    m = _mount(offset=(0.01, 0.0, 0.02), turn=turn)
    said, = _loaded(m.check().notes)
    assert "bushing 'rubber'" in said and "0.0224 m" in said and "5 deg" in said
    force = [float(x) for x in re.search(r"force \(([^)]*)\) N", said).group(1).split(",")]
    torque = [float(x) for x in re.search(r"torque \(([^)]*)\) N m", said).group(1).split(",")]
    # the message's 6 significant digits
    assert force == pytest.approx([-10.0, 0.0, -60.0], rel=1e-5, abs=1e-9)
    assert torque == pytest.approx([0.0, 0.0, -60.0 * turn], rel=1e-5, abs=1e-9)
    r = m.solve(duration=0.1, fps=10, analysis="dynamic")
    assert _loaded(r.notes) == [said]
    assert _loaded(m.statics().notes) == [said]


def test_a_bushing_whose_markers_coincide_says_nothing():
    """Markers together (a preload given on purpose is its own: no note either)."""
    m = _mount(preload=(5.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    assert not _loaded(m.check().notes)
    assert not _loaded(m.solve(duration=0.1, fps=10, analysis="dynamic").notes)
