"""A lockstep run's calls on the variants due alone (lockstep.py): a frame call has about a
third of the variants due (the chain of 10 at 5e-5: 32 of 100 on average), and near a
run's end, as variants finish, a step and its projection some of them only.  Their rows
are evaluated on a sub-stack of the group's equations (Equations.variants: the group's
structures shared, the due variants' numbers taken), each variant's rows the same numpy
calls on its own numbers as in the whole stack: the same bits.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..analyses.dynamics.equations import Equations
from ..integrators.explicit import _padded
from ..model.state import RunState, SlipState
from .stack import take_variants

# idle rows from which a call takes the due rows alone: a right-hand side costs about 7 us a
# variant of the chain of 10 (804 us for 100, 148 for 10: process CPU, 2026-11-30) and a
# sub-stack about 100 us to make and to first call (its buffers), so it pays from about
# 15 idle rows (more rows a variant, sooner)
IDLE_MIN = 16

def due_equations(group: Any, due: np.ndarray) -> tuple[Equations, np.ndarray]:
    """(equations, at): the stacked equations of the variants ``due`` (sorted) of the
    lockstep group ``group`` alone, at their runs' run states, when IDLE_MIN variants or
    more are not due, else the group's own; ``at`` (V,) each variant's row in them (-1:
    not due)."""
    V = len(group.runs)
    if V - len(due) < IDLE_MIN:
        return group.eq, np.arange(V)
    at = np.full(V, -1)
    at[due] = np.arange(len(due))
    model = take_variants(group.eq.m, group.models[0], due, own=True)
    now = [group.runs[i].sysm.run for i in due.tolist()]
    return group.eq.variants(model, due, stacked_state(now)), at


def step_rows(group: Any, T, Y, F0, H, cap) -> tuple[np.ndarray, np.ndarray]:
    """The explicit trial steps of the due rows alone (``group.due``: due_equations'),
    by a stepper of the group's kind on their equations, each with its own error norm;
    (Y1, E) over all variants (the others: Y, 0), and the group's stepper left as if it
    had taken the steps of all (its stages zero in the other rows): its dense output and
    last stage read by row as after a step of all."""
    eq, at = group.due
    rows = np.flatnonzero(at >= 0)
    stepper = type(group.stepper)(eq.rhs)

    def norm(e, y0, y1):
        return group.norm(e, y0, y1, rows)
    y1, e = stepper.step(T[rows], Y[rows], F0[rows], H[rows], norm,
                         None if cap is None else cap[rows])
    Y1, E = Y.copy(), np.zeros(len(T))
    Y1[rows], E[rows] = y1, e
    K2s = stepper._last[3]
    K2, K = _padded(len(K2s), Y.shape)
    K[:, rows] = K2s[:, : y1.size].reshape((len(K2s),) + y1.shape)
    full = group.stepper
    full._last, full._dense = (T, Y, H, K2, Y1), None
    full.k_end = None if stepper.k_end is None else K[6]
    return Y1, E


def project_rows(group: Any, T, state: tuple, todo: np.ndarray) -> tuple:
    """(r, p, v, w) over all variants: the step ends ``todo`` of the last step's due rows
    (``group.due``) projected on their equations (whose last right-hand side is the
    steps' last stage: its rows and J M^-1 J^T for the first iteration, as the whole
    stack's), the others as they are."""
    eq, at = group.due
    rows = np.flatnonzero(at >= 0)
    got = eq.project_many(T[rows], *(x[rows] for x in state), todo[rows], group.rs[rows],
                          group.cw[rows], group.size[rows])
    out = tuple(x.copy() for x in state)
    for x, y in zip(out, got[:4]):
        x[rows] = y
    return out


def stacked_state(states: list[RunState]) -> RunState:
    """The run state of stacked equations of variants whose run states are ``states``:
    torsion springs' turns, tracked values, contact points' touchdown speeds, slip
    directions and limits' coordinates on a leading variant axis."""
    tracks = [s.track for s in states]
    return RunState(np.stack([s.ts_ref for s in states]),
                    None if any(q is None for q in tracks) else np.stack(tracks),
                    onset=None if states[0].onset is None
                    else np.stack([s.onset for s in states]),
                    slip=_slipping(states),
                    limit_ref=None if states[0].limit_ref is None
                    else np.stack([s.limit_ref for s in states]))


def _slipping(states: list[RunState]) -> SlipState | None:
    """The friction elements' run state of the stacked equations: each variant's slip
    directions (V, m), every element slipping (a variant with one stuck is off the common
    path; its row, at its start, is evaluated slipping and not read)."""
    if states[0].slip is None:
        return None
    return dataclasses.replace(states[0].slip, stuck=np.zeros_like(states[0].slip.stuck),
                               direction=np.stack([s.slip.direction for s in states]))
