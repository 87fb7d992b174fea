"""The kinematic sweep and the run's start and end read what they have already computed
instead of computing it again; each shortcut gives the same numbers, to the bit, as the
general path it stands for (docs/benchmarks.md: the lower-pair slider-crank's fixed cost)."""
from __future__ import annotations

import numpy as np
import pytest

from solver.analyses.structure import self_stresses
from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
from solver.model.compile import compile_model
from test_constraints import random_state
from test_couplers import random_coupled_model
from mechanisms import four_bar


def _stress_forces(model, rows, jac, J=None) -> np.ndarray:
    """The body forces J_r^T that self_stresses hands its solve (the solve records them)."""
    seen = []

    def solve_kept(F: np.ndarray) -> np.ndarray:
        seen.append(F.copy())
        return np.zeros(F.shape[:-2] + (len(keep),))
    keep = np.setdiff1d(np.arange(model.nc), rows)
    self_stresses(model, keep, rows, jac, solve_kept, J)
    return seen[0]


@pytest.mark.parametrize("case", ["four-bar", "couplers"])
def test_self_stresses_read_from_the_global_jacobian_are_the_scattered_blocks(case) -> None:
    """The dense sweep hands self_stresses its global Jacobian: the redundant rows' forces
    J_r^T read from it are the rows' blocks scattered onto their parts (row_forces), bit
    for bit, at 40 poses at once; with a three-term coupler too, whose six ends put two
    blocks on one part (added in the same order both ways)."""
    rng = np.random.default_rng(11)
    if case == "four-bar":
        model = compile_model(four_bar())
        rows = np.array([2, 5, 8])                 # the z rows of three of its pins
    else:
        model = random_coupled_model(rng)
        rows = np.flatnonzero(model.row_joint < 0)       # the four couplers
    states = [random_state(model, rng) for _ in range(40)]
    r, p = np.stack([s[0] for s in states]), np.stack([s[1] for s in states])
    jac = evaluate(model, *body_arrays(model, r, p)[:2]).jac
    F = _stress_forces(model, rows, jac)
    F_read = _stress_forces(model, rows, jac, global_jacobian(model, jac))
    assert np.count_nonzero(F) > 0
    assert F.shape == F_read.shape and np.array_equal(F, F_read)


def test_an_assemblys_last_jacobian_is_the_one_at_its_pose() -> None:
    """The run's start ranks its rows on the assembly's last evaluation (structure's
    ``jac``), and its singular-start check on its probe's: the blocks are those evaluated
    at the pose again, bit for bit, and so is the structure; a model with tracked values
    (a gear pair's coupler) hands none on, its evaluation there having read another
    pose's turns."""
    from solver.analyses.start.assembly import assemble_pose
    from solver.analyses.structure import structure
    from solver.model.state import read_state
    from test_couplers import spur_pair
    mech = four_bar()
    model = compile_model(mech)
    state = read_state(model, mech, 0.0)
    asm = assemble_pose(model, state.r, state.p, 0.0)
    again = evaluate(model, *body_arrays(model, asm.r, asm.p)[:2]).jac
    assert asm.jac is not None and np.array_equal(asm.jac, again)
    given, evaluated = (structure(model, asm.r, asm.p, jac=j) for j in (asm.jac, None))
    assert np.array_equal(given.keep, evaluated.keep) and given.redundant.size == 3
    gears = compile_model(spur_pair())
    s = read_state(gears, spur_pair(), 0.0)
    assert gears.ntrack and assemble_pose(gears, s.r, s.p, 0.0).jac is None


def test_the_shared_reactions_read_at_the_start_take_its_jacobian() -> None:
    """A run's closing note on shared reactions reads the Jacobian its start has (Start.jac,
    the assembly's): the same joints and components as evaluated there again, on a
    four-bar whose three redundant rows share every pin's z force and x, y torques."""
    from solver.analyses.checks.shared_reactions import shared_components
    from solver.analyses.run import prepare
    from solver.model.state import read_state
    mech = four_bar()
    model = compile_model(mech)
    begun = prepare(model, read_state(model, mech, 0.0), np.linspace(0.0, 0.1, 3))
    assert begun.jac is not None
    s, st = begun.state, begun.structure
    given = shared_components(model, st, s.r, s.p, s.track, begun.jac)
    assert given == shared_components(model, st, s.r, s.p, s.track)
    assert set(given) == {"pivot2", "pin_A", "pin_B", "pivot4"}, given
