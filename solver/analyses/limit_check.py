"""Joint angles followed over a run's frames, and the stops a joint went through.

A dynamic run carries each limit's turn as run state (analyses/limit_turns.py), so its
stops read the joint's continuous angle.  A kinematic sweep's limit reads its angle on the
turn nearest its centre (kernels/constraints.py ``limit_offsets``): a motion that drives a
joint past the wrap between two frames is not seen past its rigid stop there.  Followed
from frame to frame by its rate, the angle shows it: ``through_stops`` stops the sweep at
the first frame where an angle-limited joint has gone round to the wrap, naming the limit.
"""
from __future__ import annotations

import numpy as np

from ..base.elementary import arctan2
from ..base.errors import SolverError
from ..model.compile import Model
from ..model.results import Result
from ..vocabulary.joints import ANGLE


def joint_angle(result: Result, joint: str) -> np.ndarray:
    """(n,) rad: a revolute's or cylindrical joint's angle (x_I from x_J about z_J, as
    docs/conventions.md defines it) at every frame, the first in (-pi, pi], each next on
    the turn nearest the one before plus the change its rate (w_I - w_J) . z_J gives by the
    trapezoidal rule, so that a joint turning half a turn or more between frames keeps its
    turns; a Result that kept no velocities is unwrapped frame to frame."""
    model = result.model
    k = model.joint_names.index(joint)
    mi, mj = model.joint_marker_i[k], model.joint_marker_j[k]
    ai, aj = result.marker_frame(mi)[1], result.marker_frame(mj)[1]
    xi = ai[:, :, 0]
    raw = arctan2(np.einsum("ni,ni->n", xi, aj[:, :, 1]),
                  np.einsum("ni,ni->n", xi, aj[:, :, 0]))
    if "velocities" not in result.kept or len(raw) < 2:
        return np.unwrap(raw)
    rate = np.einsum("ni,ni->n", _spin(result, mi) - _spin(result, mj), aj[:, :, 2])
    change = 0.5 * np.diff(result.times) * (rate[:-1] + rate[1:])
    turns = np.round((change - np.diff(raw)) / (2.0 * np.pi))
    return raw + 2.0 * np.pi * np.concatenate([[0.0], np.cumsum(turns)])


def _spin(result: Result, marker: str) -> np.ndarray:
    """(n, 3) rad/s, world axes: the angular velocity of the part that carries ``marker``."""
    model = result.model
    b = model.marker_body[marker]
    if b == model.nb:                                  # the ground
        return np.zeros((len(result.times), 3))
    return result.angular_velocity(model.body_part[b])


def through_stops(model: Model, out: Result) -> None:
    """SolverError (with the frames before) at the first frame where a joint whose angle a
    limit bounds has gone half a turn or more from its limit's centre (past a bound and on
    round to where its angle wraps): the stop no longer sees it there."""
    lm = model.limits
    if lm is None or not len(out.times) or out.analysis == "dynamic":
        return
    first = None
    seen = set()
    for b in np.flatnonzero(model.row_kind[lm.rows] == ANGLE):
        if lm.names[b] in seen:               # (a limit's two bounds share joint and centre)
            continue
        seen.add(lm.names[b])
        q = joint_angle(out, lm.joints[b])
        q = q + 2.0 * np.pi * np.round((lm.centre[b] - q[0]) / (2.0 * np.pi))   # its turn
        round_ = np.abs(q - lm.centre[b]) >= np.pi
        if round_.any() and (first is None or int(np.argmax(round_)) < first[0]):
            first = (int(np.argmax(round_)), int(b), q)
    if first is None:
        return
    f, b, q = first
    t = float(out.times[f])
    kind = "compliant stop" if lm.compliant[b] else "stop"
    raise SolverError(f"limit {lm.names[b]!r}: joint {lm.joints[b]!r} turned to {q[f]:.4g} rad "
                      f"by t = {t:.6g} s (frame {f}), half a turn or more from "
                      f"{lm.centre[b]:.4g} rad, the middle of its range (or its one bound) "
                      f"that its {kind} reads the angle about: past that the stop sees the "
                      "joint on the other side of the turn and no longer holds it where it "
                      "is; make the stop stiffer, its range narrower or the motion gentler",
                      t, (lm.names[b], lm.joints[b]), out.truncated(f))

