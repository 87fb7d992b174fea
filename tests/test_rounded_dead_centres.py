"""A motion that starts at a dead centre up to the rounding of the mechanism's inputs.

Blender gives the parts' and markers' coordinates in float32 (the add-on passes
input_precision = 2^-24).  A slider-crank or a four-bar built exactly at a dead centre
there is not exactly at it: a length mismatch delta of that rounding folds it by
sqrt(2 r delta), so the motion's row is independent at the assembled pose by a share far
above the rank test's 1e-6, and the start was taken as sound: Check said nothing, and a
run went on along whichever branch the rounding had folded it to (or, pushed the other
way, locked up at its second frame).  Check and
the runs' start say it is a dead centre, name the motion and say what to do."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism, SolverError

F32 = 2.0 ** -24      # Blender's float32 coordinates: the add-on's input_precision


def blender_slider_crank(input_precision: float = F32) -> Mechanism:
    """The slider-crank Blender 5.0 reads (addon/scene_reader.py, printed to 9 digits) from
    boxes built at its dead centre: crank 0.13 m from (1.7, 0.9, 0.3), rod 0.37 m, the
    piston at x = 2.2 m on a prismatic joint along world x whose Slide is driven by
    -0.05 t^2 m, an in-line joint at the small end.  The coordinates carry float32's
    rounding (5e-8 m at 2 m): crank and rod together are 1.2e-8 m longer than the pivot's
    distance to the pin, and the assembly folds the crank by 2.3e-4 rad."""
    m = Mechanism(input_precision=input_precision)
    m.add_part("block", fixed=True, position=(1.70000005, 0.89999998, 0.2))
    m.add_part("crank", position=(1.76499999, 0.89999998, 0.30000001))
    m.add_part("rod", position=(2.0150001, 0.89999998, 0.30000001))
    m.add_part("piston", position=(2.20000005, 0.89999998, 0.30000001))
    to_x = (0.70710681, 0.0, 0.70710675, 0.0)
    m.add_marker("main.I", "crank", position=(-6.49999313e-02, -2.38418574e-08, -7.15255721e-09))
    m.add_marker("main.J", "block", position=(4.76837165e-08, 1.19209291e-08, 1.00000013e-01))
    m.add_marker("big.I", "rod", position=(-1.85000020e-01, 2.81333944e-08, 2.64644649e-08))
    m.add_marker("big.J", "crank", position=(6.50000635e-02, -2.38418574e-08, -7.15255721e-09))
    m.add_marker("cyl.I", "piston", position=(4.76837165e-08, 1.19209291e-08, 1.19209291e-08),
                 orientation=to_x)
    m.add_marker("cyl.J", "block", position=(5.00000055e-01, 1.19209291e-08, 1.00000013e-01),
                 orientation=to_x)
    m.add_marker("pin.I", "piston", position=(4.76837165e-08, 1.19209291e-08, 1.19209291e-08))
    m.add_marker("pin.J", "rod", position=(1.84999997e-01, 2.81333944e-08, 2.64644649e-08))
    m.add_joint("main", "revolute", "main.I", "main.J")
    m.add_joint("big end", "revolute", "big.I", "big.J")
    m.add_joint("cylinder", "prismatic", "cyl.I", "cyl.J")
    m.add_joint("small end", "in-line", "pin.I", "pin.J")
    m.add_motion("push", "cylinder", "-0.05*t**2")
    return m


def four_bar_at_toggle(mismatch: float = 0.0, off_deg: float = 0.0) -> Mechanism:
    """A four-bar in the xy plane, inputs rounded as float32's (input_precision 2^-24):
    crank 0.1 m about the origin, coupler 0.3 m, follower 0.25 m about (0.35, 0, 0), built
    with crank and coupler in line (``off_deg``: the crank turned that far from it), its
    follower driven from there by +0.3 t^2 rad (away from its extreme angle, the way it
    can move).  ``mismatch``: the coupler's far marker moved along it by that much (m),
    the size of length mismatch the rounding leaves: at most input_rounding times the
    model's size, 5.4e-7 x 0.35 m = 1.9e-7 m."""
    a, b, c, d = 0.1, 0.3, 0.25, 0.35
    x = ((a + b) ** 2 - c * c + d * d) / (2 * d)     # the pin B at distance a + b from O
    phi = np.arctan2(np.sqrt((a + b) ** 2 - x * x), x) + np.radians(off_deg)
    A = a * np.array([np.cos(phi), np.sin(phi), 0.0])
    O4 = np.array([d, 0.0, 0.0])
    span = np.linalg.norm(O4 - A)
    ex = (O4 - A) / span
    along = (b * b - c * c + span * span) / (2 * span)
    B = A + along * ex + np.sqrt(b * b - along * along) * np.array([-ex[1], ex[0], 0.0])

    def about_z(v) -> tuple:
        h = np.arctan2(v[1], v[0]) / 2
        return (np.cos(h), 0.0, 0.0, np.sin(h))

    m = Mechanism(input_precision=F32)
    m.add_part("ground", fixed=True)
    m.add_part("crank", orientation=about_z(A))
    m.add_part("coupler", position=tuple(A), orientation=about_z(B - A))
    m.add_part("follower", position=tuple(O4), orientation=about_z(B - O4))
    m.add_marker("O", "ground")
    m.add_marker("O4", "ground", position=tuple(O4))
    m.add_marker("c0", "crank")
    m.add_marker("c1", "crank", position=(a, 0, 0))
    m.add_marker("k0", "coupler")
    m.add_marker("k1", "coupler", position=(b + mismatch, 0, 0))
    m.add_marker("f0", "follower")
    m.add_marker("f1", "follower", position=(c, 0, 0))
    m.add_joint("pivot", "revolute", "c0", "O")
    m.add_joint("pin A", "revolute", "k0", "c1")
    m.add_joint("pin B", "revolute", "k1", "f1")
    m.add_joint("rocker", "revolute", "f0", "O4")
    m.add_motion("swing", "rocker", f"{np.arctan2(B[1], B[0] - d)!r} + 0.3*t**2")
    return m


def test_a_slide_driven_slider_crank_read_from_blender_at_its_dead_centre_is_refused() -> None:
    """Check names the slide's motion at its dead centre and says to build it a little off
    (it said nothing: 1 dof, 0 after motions); solve refuses it at t = 0 naming the motion
    (a run took the branch the rounding had folded it to).  With the same numbers taken as
    exact (input_precision 0) the start is a pose 2.3e-4 rad off the dead centre, as given."""
    report = blender_slider_crank().check()
    assert not report.ok
    problem, = report.problems
    assert "motion 'push' starts at a dead centre up to the rounding of its inputs" in problem
    assert "build the mechanism a little off the dead centre, the way it should go" in problem
    with pytest.raises(SolverError, match=r"motion 'push' starts at a dead centre up to the "
                                          r"rounding of its inputs at t = 0 s") as err:
        blender_slider_crank().solve(1.0, 24)
    assert err.value.joints == ("push",)
    assert blender_slider_crank(0.0).check().ok


@pytest.mark.parametrize("mismatch", [1e-7, -1e-7])
def test_a_four_bar_driven_by_its_follower_from_a_toggle_is_refused(mismatch: float) -> None:
    """A coupler 1e-7 m too long folds the toggle (crank and coupler 1.2e-3 rad out of
    line): its follower's motion was taken as sound and the run went on along the branch
    of that fold, without a word.
    Too short, the joints meet the motion only to the rounding, at the dead centre itself
    (already refused).  Either way Check and solve name the follower's motion."""
    report = four_bar_at_toggle(mismatch).check()
    assert any("motion 'swing' starts at a dead centre" in p for p in report.problems), report
    with pytest.raises(SolverError, match=r"motion 'swing' starts at a dead centre") as err:
        four_bar_at_toggle(mismatch).solve(1.0, 24)
    assert "swing" in err.value.joints


def test_a_four_bar_built_half_a_degree_off_its_toggle_runs() -> None:
    """Built 0.5 degrees off the toggle, the start is not a dead centre: the motion's row
    is independent by a share of 7.8e-3 of its length, above the rounding's
    sqrt(8 x 5.4e-7) = 2.1e-3 (the 1e-7 m fold above: 1.1e-3).  Check is clean and the
    run follows the motion, its follower at 0.3 t^2 rad from its built angle."""
    m = four_bar_at_toggle(off_deg=0.5)
    assert m.check().ok
    res = m.solve(1.0, 24)
    turn = np.unwrap(np.array([2 * np.arctan2(q[3], q[0]) for q in res.orientation("follower")]))
    # the joints are closed by Newton to ~1e-12 m over 0.25 m: 1e-9 rad is far above it
    np.testing.assert_allclose(turn - turn[0], 0.3 * res.times ** 2, atol=1e-9)


def blender_parallelogram() -> Mechanism:
    """The parallelogram Blender 5.0 reads (to the last digit: float32 values in float64)
    from boxes built lined up along world x about (1.7, 0.9, 0.3): cranks of 0.5 m pinned
    to the ground at x = 1.7 and 2.7 m, a coupler of 1 m 0.05 m above them pinned to their
    tips (Connect, about z), crank0 driven by 2 t rad, gravity -y.  Its ground pivots are
    1.5e-8 m further apart than the coupler is long (float32's rounding): the assembly
    folds it off its line, crank1 by 3.5e-4 rad and the coupler by 1.7e-4 rad."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0), input_precision=F32)
    y, z = 0.8999999761581421, 0.30000001192092896
    m.add_part("ground", fixed=True, position=(1.7000000476837158, y, 0.10000000149011612))
    for name, x, height in (("crank0", 1.9500000476837158, z), ("crank1", 2.950000047683716, z),
                            ("coupler", 2.700000047683716, 0.3499999940395355)):
        m.add_part(name, mass=0.2, position=(x, y, height))
    off = (-2.3841857377249198e-08, -7.1525572131747595e-09)
    for k, x in enumerate((4.7683716530855236e-08, 1.0000000625848777)):
        m.add_marker(f"O{k}", "ground", position=(x, 1.1920929132713809e-08, 0.20000001490116137))
        m.add_marker(f"c{k}", f"crank{k}", position=(-0.25, *off))
        m.add_marker(f"t{k}", f"crank{k}", position=(0.25, *off))
        m.add_marker(f"k{k}", "coupler", position=(k - 0.5, off[0], -0.04999998696148422))
        m.add_joint(f"pivot{k}", "revolute", f"c{k}", f"O{k}")
        m.add_joint(f"pin{k}", "revolute", f"k{k}", f"t{k}")
    m.add_motion("turn", "pivot0", "2*t")
    return m


def test_a_parallelogram_read_from_blender_lined_up_is_refused_naming_its_joints() -> None:
    """Check names the singular position and its four joints (it said "1 (0 after
    motions)" and nothing else); solve refuses it at t = 0 (a bake went on along whichever
    branch, parallel or crossed, the rounding's fold chose)."""
    report = blender_parallelogram().check()
    problem, = report.problems
    assert problem.startswith("the mechanism starts at a singular position up to the "
                              "rounding of its inputs at t = 0 s: joints "), problem
    with pytest.raises(SolverError, match="starts at a singular position") as err:
        blender_parallelogram().solve(1.0, 24)
    assert set(err.value.joints) == {"pivot0", "pivot1", "pin0", "pin1"}
