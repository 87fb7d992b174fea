"""Run state apart from the compiled model (as Pinocchio's Data and MuJoCo's mjData): the
bodies' centre-of-mass positions, Euler parameters and velocities at a time, read from and
written back to a builder's part placements.

A State may carry leading axes (a block of frames: t (F,), r (F, nb, 3), ...); the
accelerations are filled in once an analysis has solved for them.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..base.rotations import cross, quat_to_matrix
from .compile import Model


@dataclass
class State:
    """One instant (or a block of instants) of a mechanism's motion; bodies as in Model,
    world axes, SI units."""
    t: Any                         # s: a float, or (F,) for a block of frames
    r: np.ndarray                  # (..., nb, 3) centre of mass
    p: np.ndarray                  # (..., nb, 4) Euler parameters w, x, y, z
    v: np.ndarray                  # (..., nb, 3) centre-of-mass velocity
    w: np.ndarray                  # (..., nb, 3) angular velocity
    a: np.ndarray | None = None    # (..., nb, 3) centre-of-mass acceleration, once solved
    alpha: np.ndarray | None = None  # (..., nb, 3) angular acceleration, once solved
    # (ntrack,) the tracked values at this pose (couplers' turns, curve contacts: evaluate's
    # ``ref``), as an assembly found them; None: as built (a curve contact by a global search)
    track: np.ndarray | None = None

    def moved(self, r: np.ndarray, p: np.ndarray, track: np.ndarray | None = None) -> "State":
        """The same state at another pose (velocities kept, accelerations dropped), with
        the tracked values there (None: as built)."""
        return replace(self, r=r, p=p, a=None, alpha=None, track=track)


def read_state(model: Model, mech: Any, t: float = 0.0) -> State:
    """The state at time t given by the parts' placements and initial velocities (the
    part-frame origin's velocity moved to the centre of mass)."""
    r, p, v, w = (np.zeros((model.nb, 3)), np.zeros((model.nb, 4)),
                  np.zeros((model.nb, 3)), np.zeros((model.nb, 3)))
    arm = np.zeros((model.nb, 3))
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        arm[b] = quat_to_matrix(part.orientation) @ part.center_of_mass
        r[b] = part.position + arm[b]
        p[b] = part.orientation
        w[b] = part.angular_velocity
        v[b] = part.velocity
    v += cross(w, arm)                 # the origin's velocity moved to the centre of mass
    return State(float(t), r, p, v, w)


def write_pose(model: Model, mech: Any, state: State) -> None:
    """Write the state's pose back as the parts' placements (part-frame origin and unit
    quaternion with w >= 0)."""
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        q = state.p[b] / np.linalg.norm(state.p[b])
        if q[0] < 0:
            q = -q
        part.orientation = q
        part.position = state.r[b] - quat_to_matrix(q) @ part.center_of_mass
