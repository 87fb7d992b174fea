"""Joint angles followed over a run's frames by their rates: a joint turning half a turn
or more between frames keeps its turns (a design study's table, the tests' angles)."""
from __future__ import annotations

import numpy as np

from ..base.elementary import arctan2
from ..model.results import Result


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

