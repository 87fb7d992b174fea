"""Degrees of freedom by rank, redundant equations named by joint, assembly: one part on each
joint kind, and the planar four-bar of tests/mechanisms.py."""
from __future__ import annotations

import numpy as np
import pytest

import mechanisms as mk
from solver import Mechanism, SolverError

# freedoms each kind leaves a free body (docs/conventions.md table: 6 - equations)
FREEDOMS = {"fixed": 0, "revolute": 1, "prismatic": 1, "cylindrical": 2, "spherical": 3,
            "universal": 2, "planar": 3, "in-line": 4, "in-plane": 5, "parallel-axes": 4,
            "perpendicular": 5, "distance": 5}


def one_part(kind: str, offset=(0.0, 0.0, 0.0), tilt: float = 0.0) -> Mechanism:
    """A part joined to the ground by `kind`, placed `offset` / `tilt` (rad about x) off."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    c, s = np.cos(tilt / 2), np.sin(tilt / 2)
    m.add_part("body", mass=1.0, center_of_mass=(0.1, 0.2, 0.0), position=offset,
               orientation=(c, s, 0.0, 0.0))
    m.add_marker("J", "ground", position=(0.3, 0.0, 0.1))
    # universal and perpendicular want z_I perpendicular to z_J; distance wants 0.2 m apart
    turned = kind in ("universal", "perpendicular")
    m.add_marker("I", "body", position=(0.3, 0.2 if kind == "distance" else 0.0, 0.1),
                 orientation=(np.cos(np.pi / 4), np.sin(np.pi / 4), 0, 0) if turned else (1, 0, 0, 0))
    m.add_joint("joint", kind, "I", "J", **({"length": 0.2} if kind == "distance" else {}))
    return m


@pytest.mark.parametrize("kind", list(FREEDOMS))
def test_each_kind_removes_its_freedoms(kind: str) -> None:
    m = one_part(kind)
    report = m.check()
    assert report.dof == FREEDOMS[kind]
    assert report.redundant == {}
    assert report.ok


@pytest.mark.parametrize("kind", ["fixed", "revolute", "prismatic", "universal", "planar"])
def test_assembly_from_rough_placement(kind: str) -> None:
    """A few centimetres and degrees off: assembly closes the joint to Newton precision."""
    m = one_part(kind, offset=(0.03, -0.02, 0.04), tilt=np.radians(4.0))
    m.assemble()
    pos, quat = m.pose("body")
    from solver.base.rotations import quat_to_matrix
    A = quat_to_matrix(quat)
    pi = pos + A @ np.array([0.3, 0.0, 0.1])
    if kind in ("fixed", "revolute", "universal"):
        np.testing.assert_allclose(pi, [0.3, 0.0, 0.1], atol=1e-12)
    if kind in ("fixed", "revolute", "prismatic", "planar"):
        assert abs(A[0, 2]) < 1e-12 and abs(A[1, 2]) < 1e-12   # z_I parallel to z_J
    # least movement: nothing moved further than the misplacement
    assert np.linalg.norm(pos) < 0.1


def test_driven_revolute_has_no_freedom_left() -> None:
    m = one_part("revolute")
    m.add_motion("spin", "joint", "t")
    r = m.check()
    assert (r.dof, r.driven_dof) == (1, 0)
    m2 = one_part("cylindrical")
    m2.add_motion("spin", "joint", "t")
    assert m2.check().driven_dof == 1
    m2.add_motion("push", "joint", "0.1", coordinate="slide")
    assert m2.check().driven_dof == 0


def planar_four_bar(drive: str | None = None) -> Mechanism:
    """``mk.four_bar`` of revolute joints in the xy plane, placed exactly at crank angle 60
    degrees (open branch): ground 0.4, crank 0.1, coupler 0.35, rocker 0.3; motion "drive"
    on joint "pivot2" when ``drive`` is given."""
    return mk.four_bar(a=0.1, b=0.35, c=0.3, d=0.4, theta2_0=np.pi / 3, drive=drive,
                       driven=drive is not None, error_deg=0.0, error_m=0.0)


def test_planar_four_bar_reports_one_dof_and_three_redundant() -> None:
    m = planar_four_bar()
    report = m.check()
    assert report.dof == 1
    assert sum(len(v) for v in report.redundant.values()) == 3
    # rows are taken in joint order, so the loop-closing joint carries the redundancy
    assert list(report.redundant) == ["pivot4"]
    assert "pivot4" in str(report) and "least-norm" in str(report)
    # the count is said once, beside the equations named (a bare "3 redundant equation(s)
    # removed" note repeated it)
    assert not any("removed" in n for n in report.notes)
    m.add_motion("drive", "pivot2", "pi/3 + 2*pi*t")
    assert m.check().driven_dof == 0
    res = m.solve(0.5, 24)          # the solve goes on with the redundant equations removed
    assert len(res.times) == 13


def test_redundant_motion_is_a_problem() -> None:
    m = one_part("fixed")
    with pytest.raises(Exception):
        m.add_motion("spin", "joint", "t")      # fixed joints have no coordinate
    m = planar_four_bar(drive="pi/3")
    m.add_motion("drive2", "pivot4", "0.5")      # a second motion on a 1-DOF mechanism
    report = m.check()
    assert not report.ok
    assert any("drive2" in p for p in report.problems)
    with pytest.raises(SolverError, match="drive2"):
        m.solve(1.0, 24)


def test_unassemblable_mechanism_names_the_joints() -> None:
    """Crank 0.1 and coupler 0.05 cannot reach a rocker pin 0.4 away."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("crank", position=(0, 0, 0))
    m.add_part("rod", position=(0.1, 0, 0))
    m.add_marker("O", "ground"); m.add_marker("far", "ground", position=(0.4, 0, 0))
    m.add_marker("c0", "crank"); m.add_marker("c1", "crank", position=(0.1, 0, 0))
    m.add_marker("r0", "rod"); m.add_marker("r1", "rod", position=(0.05, 0, 0))
    m.add_joint("pivot", "revolute", "c0", "O")
    m.add_joint("pin", "revolute", "r0", "c1")
    m.add_joint("reach", "spherical", "r1", "far")
    with pytest.raises(SolverError, match="assembly failed") as err:
        m.assemble()
    assert "reach" in str(err.value)
    before = m.pose("rod")
    assert not m.check().ok
    np.testing.assert_array_equal(m.pose("rod")[0], before[0])   # check() moves nothing


@pytest.mark.parametrize("grounded", [True, False])
def test_check_says_when_no_part_is_fixed(grounded: bool) -> None:
    """A base and an arm on a pin with no part fixed (Ground not ticked: the first step a
    new user misses) is 7 freedoms that float and fall as a whole: check() says no part is
    fixed and how to fix one; with the base fixed it says nothing of the kind."""
    m = Mechanism()
    m.add_part("base", fixed=grounded); m.add_part("arm", position=(1.0, 0, 0))
    m.add_marker("O", "base"); m.add_marker("A", "arm", position=(-1.0, 0, 0))
    m.add_joint("pin", "revolute", "A", "O")
    report = m.check()
    said = [n for n in report.notes if n.startswith("no part is fixed")]
    assert report.dof == (1 if grounded else 7)
    assert said == ([] if grounded else [
        "no part is fixed: the mechanism moves as a whole (under gravity it falls); if a part "
        "should stand still, fix it (fixed=True; in Blender, tick Ground)"])
