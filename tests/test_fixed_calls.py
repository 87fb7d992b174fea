"""The right-hand side, the projection and the kinematic sweep (its Newton, rates
and reactions) in a fixed set of numpy calls, whatever the mechanism's size; the banded
sweep's algebra, whatever the number of frames in a block.

Every body, constraint row and force element of a kind is handled by the same array
operations (``kernels/constraints.py``: one kernel per primitive kind over all its rows;
``kernels/forces.py``; ``algebra/schur.py``), so the Python lines the solver executes for one
evaluation do not grow with the number of bodies.  Measured here by tracing the lines run
inside ``solver/`` for k copies of a mechanism, for two values of k: a per-body, per-row or
per-element Python loop anywhere in the path would make the count grow with k.  The copies
sit in one place, so that each gets the same numbers and every iteration (a contact's
Newton, the projection's) stops after as many steps in both.

The count is only equal within one size class: a few operations take another fixed form
past a measured size (``rotations.QUATS_OUTER`` bodies, ``CROSS_OUTER`` vectors: entry by
entry instead of outer products; ``constraints.SKEW_GATHER`` joint points: the at-point
rows' skew blocks entry by entry; ``banded.MIN_BANDED`` rows and a narrow band: a banded
instead of a dense solve; a lone point on a curve: a stack of two; one slipping friction
element: its load's fixed point by Newton on its reaction's parts).  The outer-product
limits are pinned here (one form throughout), and the sizes compared are of one class.

Left out, as item by item by design: a user's functions (USER_FUNCTIONS below) and
actuators.
"""
from __future__ import annotations

import collections
import math
import os
import sys

import numpy as np
import pytest

from mechanisms import quat_about
from solver import Mechanism
from solver.analyses.dynamics.equations import Equations
from solver.analyses.run import prepare
from solver.analyses.structure import structure
from solver.analyses.sweep import kinematic_sweep
from solver.base import rotations
from solver.base.curves import Curve
from solver.kernels import constraints
from solver.kernels.constraints import body_arrays, evaluate
from solver.model.compile import compile_model
from solver.model.state import read_state
from solver.vocabulary.joints import EVAL_ORDER, SPIN

SOLVER = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "solver"))
COPIES = (2, 3)


# A user's functions of time (motions, applied loads) are each its own expression, evaluated
# on its own (vocabulary/timefunctions.py: derivatives_of, values_of): the one loop over
# items a right-hand side keeps.  Those modules are left out of the count.
USER_FUNCTIONS = ("expressions.py", "timefunctions.py", "jet.py")


def lines_run(fn) -> collections.Counter:
    """How many times each line of ``solver/`` (but USER_FUNCTIONS) runs during fn()
    (sys.settrace)."""
    count: collections.Counter = collections.Counter()

    def trace(frame, event, arg):
        path = frame.f_code.co_filename
        if (not os.path.realpath(path).startswith(SOLVER)
                or os.path.basename(path) in USER_FUNCTIONS):
            return None
        if event == "line":
            count[(os.path.basename(path), frame.f_lineno)] += 1
        return trace

    old = sys.gettrace()
    sys.settrace(trace)
    try:
        fn()
    finally:
        sys.settrace(old)
    return count


@pytest.fixture(autouse=True)
def one_form(monkeypatch) -> None:
    """Rotation matrices and cross products by their outer-product form, the at-point
    rows' skew blocks by their gather, at any size."""
    monkeypatch.setattr(rotations, "CROSS_OUTER", 10 ** 9)
    monkeypatch.setattr(rotations, "QUATS_OUTER", 10 ** 9)
    monkeypatch.setattr(constraints, "SKEW_GATHER", 10 ** 9)


def roller_follower(m: Mechanism, c: str, disc: str, axle: tuple) -> None:
    """eccentric_cam's roller (tests/mechanisms.py): a follower on a vertical guide through
    the axle of part ``disc``, its roller (r 0.01) on the disc (r 0.05, 0.015 off centre)."""
    y0 = math.sqrt(0.06 ** 2 - 0.015 ** 2)
    m.add_part(f"follower{c}", mass=0.3, inertia=(1e-4, 1e-4, 1e-4),
               position=(axle[0], axle[1] + y0, axle[2]))
    m.add_marker(f"guide{c}", "ground", position=axle, orientation=quat_about("x", -math.pi / 2))
    m.add_marker(f"stem{c}", f"follower{c}", orientation=quat_about("x", -math.pi / 2))
    m.add_joint(f"slide{c}", "prismatic", f"stem{c}", f"guide{c}")
    m.add_marker(f"face{c}", f"follower{c}")
    m.add_marker(f"disc{c}", disc)
    m.add_cam(f"contact{c}", f"face{c}", Curve.circle(0.01), f"disc{c}",
              Curve.circle(0.05, center=(0.015, 0.0, 0.0)))


def every_kind(copies: int) -> Mechanism:
    """``copies`` copies, in one place, of a tree of 12 moving parts on every joint
    kind (revolute, spherical, universal, cylindrical, prismatic, planar, in-line, in-plane,
    parallel-axes, perpendicular, distance, fixed) and three more (a wheel geared to the
    first revolute, a roller follower on the wheel's cam disc, a bead on a wire), with a
    motion, a general motion's angles on a free part, a gear, a screw, a point on a curve, a cam, a spring-damper, a torsion spring,
    a force, a compliant stop and dry friction on a cylinder and on a ball (both slipping):
    every primitive
    kind, coupler, curve joint and force element the right-hand side evaluates.  Parts in
    general positions (not assembled: the evaluation does not care), moving."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    kinds = ("revolute", "spherical", "universal", "cylindrical", "prismatic", "planar",
             "in-line", "in-plane", "parallel-axes", "perpendicular", "distance", "fixed")
    rng = np.random.default_rng(7)
    turns = rng.uniform(-0.6, 0.6, (len(kinds) + 4, 3))
    for c in range(copies):
        x0 = 0.0       # every copy in the same place: the same numbers, the same iterations
        parent = f"base{c}"
        m.add_marker(parent, "ground", position=(x0, 0.0, 0.0))
        for k, kind in enumerate(kinds):
            part = f"p{c}_{k}"
            q = quat_about("x", turns[k, 0])
            m.add_part(part, mass=1.0 + 0.1 * k, inertia=(0.02, 0.03, 0.04),
                       position=(x0 + 0.1 * k, 0.05 * k, 0.2 * k), orientation=q,
                       velocity=(0.1, -0.2, 0.05 * k), angular_velocity=(0.3, 0.1 * k, -0.2))
            m.add_marker(f"{part}_in", part, orientation=quat_about("y", turns[k, 1]))
            m.add_marker(f"{part}_out", part, position=(0.05, 0.1, 0.2),
                         orientation=quat_about("z", turns[k, 2]))
            m.add_joint(f"j{c}_{k}", kind, f"{part}_in", parent)
            parent = f"{part}_out"
        m.add_motion(f"drive{c}", f"j{c}_0", "0.5*sin(2*t)")
        m.add_torsion_spring(f"ts{c}", f"j{c}_3", stiffness=4.0, damping=0.5, free_angle=0.3)
        m.add_screw(f"screw{c}", f"j{c}_3", pitch=0.01)
        m.add_spring_damper(f"sd{c}", f"p{c}_1_out", f"p{c}_6_in", stiffness=30.0, damping=2.0)
        m.add_bushing(f"bu{c}", f"p{c}_5_out", f"p{c}_2_in", stiffness=(50, 60, 70, 3, 4, 5),
                      damping=(1, 1, 1, 0.1, 0.1, 0.1), preload=(0, 0, 1, 0, 0.1, 0))
        m.add_force(f"f{c}", f"p{c}_2_out", force=(1.0, "2*t", 3.0), torque=(0.5, -0.2, "t"),
                    frame="marker")
        # a compliant stop on the slide, dry friction on the cylinder and on the ball
        m.add_limit(f"stop{c}", f"j{c}_4", lower=-0.05, upper=0.05, stiffness=1e5, damping=10.0,
                    penetration=1e-3)
        m.add_friction(f"dry{c}", f"j{c}_3", static=0.2, dynamic=0.15, radius=0.01)
        m.add_friction(f"ball{c}", f"j{c}_1", static=0.2, dynamic=0.15, radius=0.01)
        # a wheel geared to the first revolute, a cam follower on the wheel's disc
        m.add_part(f"wheel{c}", mass=2.0, inertia=(0.01, 0.01, 0.02),
                   position=(x0 - 1.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 1.0))
        m.add_marker(f"axle{c}", "ground", position=(x0 - 1.0, 0.0, 0.0))
        m.add_marker(f"hub{c}", f"wheel{c}")
        m.add_joint(f"wj{c}", "revolute", f"hub{c}", f"axle{c}")
        m.add_gear(f"gear{c}", f"j{c}_0", f"wj{c}", ratio=2.0)
        roller_follower(m, str(c), f"wheel{c}", (x0 - 1.0, 0.0, 0.0))
        # a bead on a wire
        m.add_part(f"bead{c}", mass=0.1, inertia=(1e-4, 1e-4, 1e-4),
                   position=(x0 + 0.5, -1.0, 0.1), velocity=(0.0, 0.3, 0.0))
        m.add_marker(f"eye{c}", f"bead{c}")
        m.add_marker(f"wire{c}", "ground", position=(x0, -1.0, 0.0))
        m.add_point_on_curve(f"pc{c}", f"eye{c}", f"wire{c}",
                             Curve.from_points([(0.0, 0.0), (0.5, 0.2), (1.0, 0.0), (1.5, -0.2)], closed=False))
        # a free part turned by a general motion's body-fixed angles
        m.add_part(f"spinner{c}", mass=0.2, inertia=(1e-3, 2e-3, 3e-3),
                   position=(x0 + 1.0, 1.0, 0.2), angular_velocity=(0.3, 0.2, 1.0))
        m.add_marker(f"spin_i{c}", f"spinner{c}")
        m.add_marker(f"spin_o{c}", "ground", position=(x0 + 1.0, 1.0, 0.0))
        m.add_general_motion(f"turn{c}", f"spin_i{c}", f"spin_o{c}", z=0.2, b1="0.1*t", b3="t")
    return m


def equations(mech: Mechanism):
    """(model, state, Equations) with the curve contacts' and couplers' tracked values found
    at the state, as a run's start finds them (a right-hand side then follows them)."""
    model = compile_model(mech)
    st = read_state(model, mech)
    eq = Equations(model, structure(model, st.r, st.p))
    eq.tell(eq.run.tracked(evaluate(model, *body_arrays(model, st.r, st.p)[:2]).track))
    return model, st, eq


def rhs_lines(mech: Mechanism) -> collections.Counter:
    """lines_run of one right-hand side of ``mech`` at its start (after one call that
    makes the equations' buffers)."""
    _, st, eq = equations(mech)
    y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
    eq.rhs(0.0, y)
    return lines_run(lambda: eq.rhs(0.0, y))


def test_every_kind_is_in_the_mechanism() -> None:
    """The test mechanism holds what the docstring says: every primitive kind's rows, a
    coupler, a curve joint of both kinds and every force element kind."""
    model = compile_model(every_kind(1))
    present = {g.kind for g in model.plan.groups}
    assert set(EVAL_ORDER) - {SPIN} <= present, set(EVAL_ORDER) - present
    assert model.couplers is not None and model.curves is not None
    assert model.limits is not None and model.frictions is not None
    fm = model.forces
    assert fm.sd_names and fm.ts_names and fm.ld_names and fm.bu_names


@pytest.mark.parametrize("what", ["right-hand side", "projection"])
def test_dynamics_lines_do_not_grow_with_the_mechanism(what: str) -> None:
    """One right-hand side (``Equations.rhs``) and one projection (``Equations.project``)
    run the same lines in the solver for 2 and 3 copies (30 and 45 moving bodies, 106 and
    159 rows, banded)."""
    counts = []
    for copies in COPIES:
        model, st, eq = equations(every_kind(copies))
        y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
        dy = eq.rhs(0.3, y)                          # buffers made, tracked values found
        assert np.all(np.isfinite(dy))
        if what == "right-hand side":
            fn = lambda: eq.rhs(0.3, y)              # noqa: E731
        else:
            r, p = st.r + 1e-6, st.p                 # a little off the constraints' manifold
            eq.project(0.3, r, p, st.v, st.w)        # (not the last right-hand side's pose)
            fn = lambda: eq.project(0.3, r, p, st.v, st.w)   # noqa: E731
        counts.append(lines_run(fn))
    totals = [sum(c.values()) for c in counts]
    assert totals[0] > 100                           # the trace does see the solver's lines
    assert counts[0] == counts[1], totals


def dry_slider_cranks(copies: int) -> Mechanism:
    """slider_cranks with dry friction on each slider's guide (its load the reaction)."""
    m = slider_cranks(copies)
    for c in range(copies):
        m.add_friction(f"dry{c}", f"slide{c}", static=0.3)
    return m


def slider_cranks(copies: int) -> Mechanism:
    """``copies`` slider-cranks (crank 0.1 m, rod 0.3 m; revolute, spherical, universal and
    prismatic joints: no redundant rows) side by side along z, each crank driven at its own
    phase, placed near their assembled poses."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    along_x = quat_about("y", math.pi / 2)          # marker z along world x: the rail
    across = quat_about("x", -math.pi / 2)          # marker z along world y
    for c in range(copies):
        z, th = 0.5 * c, 0.3 + 0.2 * c
        ax, ay = 0.1 * math.cos(th), 0.1 * math.sin(th)
        bx = ax + math.sqrt(0.3 ** 2 - ay * ay)
        phi = math.atan2(-ay, bx - ax)
        m.add_part(f"crank{c}", position=(0.0, 0.0, z), orientation=quat_about("z", th + 0.01))
        m.add_part(f"rod{c}", position=(ax, ay, z), orientation=quat_about("z", phi))
        m.add_part(f"slider{c}", position=(bx + 0.002, 0.0, z))
        m.add_marker(f"O{c}", "ground", position=(0.0, 0.0, z))
        m.add_marker(f"rail{c}", "ground", position=(0.0, 0.0, z), orientation=along_x)
        m.add_marker(f"crank_O{c}", f"crank{c}")
        m.add_marker(f"crank_A{c}", f"crank{c}", position=(0.1, 0.0, 0.0))
        m.add_marker(f"rod_A{c}", f"rod{c}")
        m.add_marker(f"rod_B{c}", f"rod{c}", position=(0.3, 0.0, 0.0), orientation=across)
        m.add_marker(f"slider_B{c}", f"slider{c}")
        m.add_marker(f"slider_rail{c}", f"slider{c}", orientation=along_x)
        m.add_joint(f"pin{c}", "revolute", f"crank_O{c}", f"O{c}")
        m.add_joint(f"ball{c}", "spherical", f"rod_A{c}", f"crank_A{c}")
        m.add_joint(f"wrist{c}", "universal", f"rod_B{c}", f"slider_B{c}")
        m.add_joint(f"slide{c}", "prismatic", f"slider_rail{c}", f"rail{c}")
        m.add_motion(f"drive{c}", f"pin{c}", f"{th} + 6.283185307179586*t")
    return m


def cam_followers(copies: int) -> Mechanism:
    """``copies`` roller followers on driven eccentric disc cams (tests/mechanisms.py's
    eccentric_cam), with a bead on a wire driven along it by a motion on its slide:
    every copy in the same place."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    for c in range(copies):
        m.add_part(f"cam{c}", mass=1.0, inertia=(1e-3, 1e-3, 2e-3))
        m.add_marker(f"axle{c}", "ground")
        m.add_marker(f"hub{c}", f"cam{c}")
        m.add_joint(f"spin{c}", "revolute", f"hub{c}", f"axle{c}")
        m.add_motion(f"drive{c}", f"spin{c}", "12.566370614359172 * t")
        roller_follower(m, str(c), f"cam{c}", (0.0, 0.0, 0.0))
        # a slider on a rail along x carrying a pin in a wavy slot fixed to the ground
        m.add_part(f"carriage{c}", mass=0.2, inertia=(1e-4, 1e-4, 1e-4), position=(0.2, 0.0, 0.0))
        m.add_marker(f"rail{c}", "ground", orientation=quat_about("y", math.pi / 2))
        m.add_marker(f"shoe{c}", f"carriage{c}", orientation=quat_about("y", math.pi / 2))
        m.add_joint(f"run{c}", "prismatic", f"shoe{c}", f"rail{c}")
        m.add_motion(f"push{c}", f"run{c}", "0.2 + 0.3 * t")
        m.add_part(f"pin{c}", mass=0.1, inertia=(1e-4, 1e-4, 1e-4), position=(0.2, 0.0, 0.0))
        m.add_marker(f"eye{c}", f"pin{c}")
        # the pin moves in the carriage's yz plane (planar, normals along x), square to it
        m.add_marker(f"wall{c}", f"carriage{c}", orientation=quat_about("y", math.pi / 2))
        m.add_marker(f"foot{c}", f"pin{c}", orientation=quat_about("y", math.pi / 2))
        m.add_joint(f"lift{c}", "planar", f"foot{c}", f"wall{c}")
        m.add_marker(f"up{c}", f"carriage{c}")
        m.add_marker(f"across{c}", f"pin{c}", orientation=quat_about("x", -math.pi / 2))
        m.add_joint(f"square{c}", "perpendicular", f"across{c}", f"up{c}")
        m.add_marker(f"wire{c}", "ground")
        m.add_point_on_curve(f"slot{c}", f"eye{c}", f"wire{c}", Curve.from_points(
            [(x, 0.02 * math.sin(12.0 * x), 0.0) for x in np.linspace(0.0, 1.0, 21)], closed=False))
    return m


@pytest.mark.parametrize("build, copies", [(slider_cranks, (1, 2)), (slider_cranks, (3, 4)),
                                           (dry_slider_cranks, (3, 4)), (cam_followers, (2, 3))],
                         ids=["slider-cranks dense", "slider-cranks banded", "dry friction",
                              "cams and slots"])
@pytest.mark.slow
def test_sweep_lines_do_not_grow_with_the_mechanism(build, copies: tuple[int, int]) -> None:
    """A kinematic sweep of mechanisms side by side (each driven; positions, velocities,
    accelerations, multipliers and reactions) runs the same lines per frame for 1 and 2
    slider-cranks (a dense J, 18 and 36 rows), for 3 and 4 (O(rows) through J M^-1 J^T's
    banded Cholesky, 54 and 72 rows), 3 and 4 with dry friction on the sliders' guides (its
    load the reaction: every slipping element's response at once), and for 2 and 3 cam
    followers with pins in slots
    (their contacts tracked from frame to frame): the lines of 48 frames less those of 24
    (what a run sets up once, its J M^-1 J^T's layout, cancels; the frames' blocks do
    not)."""
    per_frames = []
    for k in copies:
        model = compile_model(build(k))
        begun = prepare(model, read_state(model, build(k)), np.arange(48) / 240.0)
        assert begun.analysis == "kinematic" and not begun.structure.redundant.size

        def lines(frames: int) -> collections.Counter:
            times = np.arange(frames) / 240.0
            kinematic_sweep(model, begun.structure, begun.state, times)
            return lines_run(lambda: kinematic_sweep(model, begun.structure, begun.state, times))
        longer, shorter = lines(48), lines(24)
        longer.subtract(shorter)
        per_frames.append(+longer)
    assert sum(per_frames[0].values()) > 100
    assert per_frames[0] == per_frames[1], [sum(c.values()) for c in per_frames]


def test_banded_sweep_block_lines_do_not_grow_with_its_frames() -> None:
    """The banded sweep's algebra (Newton's step, the factors, J^-1 b and J^-T f, the latter
    with two sets of forces at once as joint friction gives them) runs the same lines for a
    block of 4 and of 8 frames: every frame of a block in one banded factorization, not
    frame by frame (4 slider-cranks, 72 rows, J M^-1 J^T banded)."""
    from solver.analyses.sweep.algebra import Algebra
    mech = slider_cranks(4)
    model = compile_model(mech)
    begun = prepare(model, read_state(model, mech), np.arange(8) / 240.0)
    alg = Algebra(model, [model], begun.structure.keep)
    assert alg.sparse
    rng = np.random.default_rng(4)
    nk = len(begun.structure.keep)

    def lines(frames: int) -> collections.Counter:
        turn = rng.normal(scale=1e-3, size=(1, frames, model.nb, 3))
        r = begun.state.r + rng.normal(scale=1e-3, size=(1, frames, model.nb, 3))
        p = rotations.rotate_world(np.broadcast_to(begun.state.p, turn.shape[:-1] + (4,)), turn)
        rg, A = body_arrays(model, r, p)[:2]
        jac = evaluate(model, rg, A).jac
        b = rng.normal(size=(1, frames, nk))
        f = rng.normal(size=(2, 1, frames, model.nb, 6))

        def block() -> None:
            alg.newton_step(jac, A, b)
            fac = alg.factor(jac, A)
            assert fac.ok.all()
            alg.solve(fac, b)
            alg.solve_t(fac, f)
        block()
        return lines_run(block)
    counts = [lines(4), lines(8)]
    assert sum(counts[0].values()) > 20
    assert counts[0] == counts[1], [sum(c.values()) for c in counts]
