"""Joints open where the parts were built: a run starts from the assembled pose (the least
movement that closes every joint and meets the motions: assembly.py), so parts built with a
joint open start elsewhere than where they were put.  ``open_joints_note`` says which joints
were open, by how much, and how far the assembly moved each part, so that a marker typed at
the wrong place is not taken for the mechanism meant.  Parts moved only to meet the motions
(a crank driven from 30 degrees, built at 0) are what the motions ask: no note."""
from __future__ import annotations

import numpy as np

from ...base.elementary import arccos
from ...kernels.constraints import body_arrays, evaluate
from ...model.compile import Model
from ...model.state import State
from .assembly import row_gaps

# a joint open, or a part moved, by more than this share of the model's size (or this many
# radians) is named: well above the rounding of numbers typed or read from a file (Blender's
# float32: about 1e-7 of the size), well below a gap anyone could see
OPEN_SHARE = 1e-4
SHOWN = 4           # joints and parts named at most (the rest counted)


def open_joints_note(model: Model, built: State, start: State) -> str | None:
    """None unless some joint is open at the parts as ``built`` (their placements, before
    the assembly) by more than OPEN_SHARE of the model's size (or OPEN_SHARE rad); else
    the joints with their gaps (m, degrees) and the parts the assembly moved to ``start``
    with how far (their centres of mass's move, m, and their turn, degrees)."""
    rows = np.flatnonzero((model.row_joint >= 0) & ~model.switched)
    if not rows.size or not model.nb:
        return None
    rg, A = body_arrays(model, built.r, built.p)[:2]
    # a joint on a curve read at the assembled start's curve parameters (a pose built on
    # its curve is on it there too; one built off it misses by about its distance)
    ref = built.track if built.track is not None else start.track
    phi = evaluate(model, rg, A, need_jac=False, ref=ref).phi
    gap = row_gaps(model, rows, phi / model.row_length)
    size = model.row_length[rows]                 # each length row's mechanism's size, m
    length = model.row_is_length[rows]
    joints = []
    for j in dict.fromkeys(model.row_joint[rows].tolist()):
        mine = model.row_joint[rows] == j
        # a joint's length rows are components of one miss (at-point: x, y, z; in-line: along
        # two axes), its angle rows of one misalignment: each the norm of its rows' gaps
        dist = float(np.linalg.norm(gap[mine & length] * size[mine & length]))
        turn = float(np.linalg.norm(gap[mine & ~length]))
        L = float(np.max(size[mine & length], initial=0.0))
        by = ([f"{dist:.3g} m"] if dist > OPEN_SHARE * L else []) + (
            [f"{np.degrees(turn):.3g} deg"] if turn > OPEN_SHARE else [])
        if by:
            joints.append(f"{model.joint_names[j]!r} (by {' and '.join(by)})")
    if not joints:
        return None
    moved = _moved(model, built, start)
    one = len(joints) == 1
    return (f"{_listed('joint', joints)} {'is' if one else 'are'} open where the parts were "
            f"built; the assembly closed {'it' if one else 'them'} at t = {start.t:.6g} s, "
            f"moving {_listed('part', moved) if moved else 'no part'}, and a run starts "
            "there (Mechanism.assemble() moves the parts there; build them there, or check the "
            "markers' positions, if that is not the mechanism meant)")


def _moved(model: Model, built: State, start: State) -> list[str]:
    """Each part the assembly moved by more than OPEN_SHARE of its mechanism's size
    (Model.body_size; its centre of mass's move and its turn times its length): its name,
    the move (m) and the turn (degrees)."""
    out = []
    L = np.asarray(model.body_size)
    dr = np.linalg.norm(start.r - built.r, axis=-1)
    # the turn between the two orientations: 2 acos |q0 . q1|
    dot = np.abs(np.einsum("bi,bi->b", built.p, start.p)) / (
        np.linalg.norm(built.p, axis=-1) * np.linalg.norm(start.p, axis=-1))
    turn = 2.0 * arccos(np.minimum(dot, 1.0))
    reach = dr + turn * np.asarray(model.body_length)     # (a point a body length out)
    for b in np.flatnonzero(reach > OPEN_SHARE * L):
        by = f"{dr[b]:.3g} m" + (f" and {np.degrees(turn[b]):.3g} deg"
                                 if turn[b] > OPEN_SHARE else "")
        out.append(f"{model.body_part[b]!r} by {by}")
    return out


def _listed(what: str, items: list[str]) -> str:
    """'joint 'a' by ...' or 'joints 'a' by ..., 'b' by ...' (SHOWN at most, then how many
    more)."""
    more = len(items) - SHOWN
    shown = ", ".join(items[:SHOWN]) + (f" and {more} more" if more > 0 else "")
    return f"{what}{'s' if len(items) > 1 else ''} {shown}"
