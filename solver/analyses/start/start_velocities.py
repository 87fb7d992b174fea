"""The parts' initial velocities (``add_part``'s velocity and angular_velocity) against the
joints and motions at the start: a dynamic run starts from the velocities nearest them that
the joints and motions allow, weighted by the parts' masses and inertias (the velocities an
impulse through the joints would leave, the momentum the joints allow kept), and a kinematic
sweep takes every velocity from its motions.  Either way a velocity the user gave may not be
the one the run starts with: ``start_velocity_note`` says so."""
from __future__ import annotations

import numpy as np

from ...algebra.rank import row_owner
from ...base.errors import ExpressionError
from ...kernels.constraints import body_arrays, evaluate, motion_values, row_rates
from ...model.compile import Model
from ...model.islands import island_max
from ...model.state import State
from ..structure import Structure

# a rate off by more than this share of the given speeds of its mechanism (m/s, rad/s times
# the mechanism's size: Model.body_size) is named; below it the difference is rounding (of
# the input too: Model.row_rounding, where the numbers were given rounded, as Blender's
# float32 fields give them, each row its own mechanism's)
RATE_TOL = 1e-9


def start_velocity_note(model: Model, st: Structure, start: State, analysis: str) -> str | None:
    """A note when the parts were given initial velocities that the run does not start
    with: a kinematic sweep's (its motions set every velocity), or a dynamic run's that
    the joints or motions do not allow (the joint or motion most off named, with how far
    its rate is off, m/s or rad/s); None when none were given or they fit."""
    v, w = start.v, start.w
    if not model.nb or not (np.any(v) or np.any(w)):
        return None
    if analysis == "kinematic":
        return ("the parts' initial velocities are not used by a kinematic sweep: its motions "
                "set every velocity")
    off, row = _rate_off(model, st, start, np.maximum(RATE_TOL, model.row_rounding))
    if row < 0:
        return None
    unit = "m/s" if model.row_is_length[row] else "rad/s"
    return (f"the parts' initial velocities do not fit {_owner(model, row)} (its rate is off "
            f"by {off:.3g} {unit}): the run starts from the nearest velocities that fit every "
            "joint and motion, weighted by the parts' masses and inertias (what an impulse "
            "through the joints would leave)")


def _rate_off(model: Model, st: Structure, start: State, tol: np.ndarray) -> tuple[float, int]:
    """(|J v - rate| of the row the run keeps that is most off, that row; -1 for none off
    by more than ``tol`` (nc,) of its mechanism's given speed): a joint's rate should be zero, a
    motion's its function's derivative at the start.  Each row's is measured in its own
    mechanism (island): an angular rate times the size of the mechanism its bodies are in,
    against the largest speed given in it (|v| + size |w|), so that a mechanism's note
    does not go quiet beside a larger or faster one that nothing joins to it, nor speak
    for one given no velocity."""
    rows = st.keep
    if not rows.size:
        return 0.0, -1
    rg, A, vg, wg = body_arrays(model, start.r, start.p, start.v, start.w)
    jac = evaluate(model, rg, A, ref=start.track).jac
    rates = row_rates(model, rows, jac, np.concatenate([vg, wg], axis=-1))
    wanted = np.zeros(model.nc)
    drv, motion, _ = model.motion_rows
    if drv.size:
        try:
            wanted[drv] = motion_values(model, start.t)[motion, 1]
        except ExpressionError:
            return 0.0, -1           # (the run itself names a motion it cannot evaluate)
    off = np.abs(rates - wanted[rows])
    speed = island_max(model.body_island, np.abs(start.v).max(axis=1, initial=0.0)
                       + model.body_size * np.abs(start.w).max(axis=1, initial=0.0))
    ends = model.row_ends[rows]
    given = np.append(speed, 0.0)[ends].max(axis=1)           # the ground (nb) gives none
    unit = np.where(model.row_is_length[rows], 1.0, model.size_of(ends))
    # a mechanism given no velocity is not named (as alone: nothing given, no note)
    share = np.where(given > 0.0, off * unit / np.where(given > 0.0, given, 1.0), 0.0)
    share = np.where(share > tol[rows], share, 0.0)
    k = int(np.argmax(share))
    return (float(off[k]), int(rows[k])) if share[k] > 0.0 else (0.0, -1)


def _owner(model: Model, row: int) -> str:
    """'joint 'pin'' or 'motion 'drive'' for a row."""
    if model.row_joint[row] >= 0:
        return f"joint {model.joint_names[model.row_joint[row]]!r}"
    if model.row_motion[row] >= 0:
        return f"motion {model.motion_names[model.row_motion[row]]!r}"
    return repr(row_owner(model, row))
