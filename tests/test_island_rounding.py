"""What the input's rounding may leave is each mechanism's own (Model.body_rounding, per
island): float32 rounds a coordinate relative to its size, so a mechanism at the origin
carries a few unit round-offs of its own size, whatever else the scene holds.  A small part
30 m away, joined to nothing of it, must not widen a 10 cm mechanism's allowance for
disagreeing joints, overlapping contacts or start velocities.

Input read from Blender (float32: unit round-off u = 2**-24 = 6.0e-8) with the allowance
ROUNDING_GAP = 8 (model/compile.py) times u times the island's reach over its size: 4.8e-7
of the size of a mechanism at the origin, against 8 u 30 m / 0.1 m = 1.4e-4 of it when the
far part's reach was counted."""
from __future__ import annotations

import numpy as np
import pytest

from solver import SolverError
from solver.model.compile import compile_model
from test_contact import ball_on_floor
from test_imperfect_geometry import tilted_four_bar
from test_rounded_dead_centres import four_bar_at_toggle

FLOAT32 = 2.0 ** -24


def _read_from_blender(m, far: bool):
    """``m`` with float32 input, and with a 10 cm pendulum hanging 30 m away if ``far``."""
    m.input_precision = FLOAT32
    if far:
        m.add_part("bob", mass=0.1, inertia=(1e-4, 1e-4, 1e-5), position=(30.0, 0.0, 0.0),
                   center_of_mass=(0.0, 0.0, -0.1))
        m.add_marker("bob top", "bob")
        m.add_marker("bob pin", "ground", position=(30.0, 0.0, 0.0))
        m.add_joint("bob hinge", "revolute", "bob top", "bob pin")
    return m


@pytest.mark.parametrize("far", [False, True])
def test_a_small_four_bar_out_of_true_is_refused_beside_a_far_part(far) -> None:
    """The planar four-bar of test_imperfect_geometry at a tenth of its size (crank 4 cm,
    frame 10 cm) with its rocker's pivot lifted 2e-6 m out of the plane (2e-5 of its size):
    its redundant equations disagree by about the lift (measured 4e-6 of the size, 4e-7 m),
    forty times what float32 leaves at 10 cm from the origin (6 nm), so the assembly
    refuses it and names the gap, alone and beside the far pendulum.  Before, the far part's
    30 m reach made the allowance 1.4e-4 of the size and the disagreement was taken as
    rounding: assembled without a word."""
    m = _read_from_blender(tilted_four_bar(2e-5, scale=0.1), far)
    with pytest.raises(SolverError, match="cannot all be closed") as err:
        m.assemble()
    assert "pivot4" in err.value.joints
    assert not m.check().ok


@pytest.mark.parametrize("far", [False, True])
def test_a_ball_sunk_half_a_micron_into_its_floor_is_said_beside_a_far_part(far) -> None:
    """A 1 cm ball built 5e-7 m into its floor at the origin, read from float32: its
    mechanism reaches 1 cm from the origin, where float32 leaves 8 u 0.01 m = 4.8e-9 m, so
    check() names the overlap, alone and beside the far pendulum.  Before, the allowance was
    8 u times the scene's farthest point, 30 m: 1.4e-5 m, and the 5e-7 m went unsaid."""
    m = _read_from_blender(ball_on_floor(0.01, 0.1, -5e-7), far)
    said = [n for n in m.check().notes if "overlap" in n]
    assert len(said) == 1 and "contact 'hit'" in said[0] and "by 5e-07 m" in said[0]


def test_each_rows_allowance_is_its_own_mechanisms() -> None:
    """Model.row_rounding: the four-bar's rows the same beside the far pendulum as alone
    (8 u times its reach over its size: its coupler's end 1.28 times its size from the
    origin), the pendulum's about 8 u 30 m / 0.1 m (its size its bob's 0.1 m arm)."""
    alone, beside = (compile_model(_read_from_blender(tilted_four_bar(0.0, scale=0.1), far))
                     for far in (False, True))
    pend = np.array(["bob hinge" in label for label in beside.row_label])
    rows = np.asarray(beside.row_rounding)
    np.testing.assert_array_equal(rows[~pend], alone.row_rounding)
    assert 8.0 * FLOAT32 <= alone.row_rounding.max() <= 2 * 8.0 * FLOAT32
    assert rows[pend] == pytest.approx(8.0 * FLOAT32 * 30.0 / 0.1, rel=0.02)


@pytest.mark.parametrize("far", [False, True])
def test_a_four_bar_half_a_degree_off_its_toggle_runs_beside_a_far_part(far) -> None:
    """The float32 four-bar of test_rounded_dead_centres built 0.5 degrees off its toggle:
    its follower's motion row is independent by 7.8e-3 of its length, above its own
    rounding's rank allowance sqrt(8 x 8 u reach / size) (about 2e-3), so check is clean
    alone and beside the far pendulum.  Before, the far part made that allowance
    sqrt(8 x 8 u 30 m / 0.35 m) = 1.8e-2 and the start was refused as a dead centre."""
    m = _read_from_blender(four_bar_at_toggle(off_deg=0.5), far)
    report = m.check()
    assert report.ok, report.problems
