"""Run state apart from the compiled model: the bodies' positions, Euler parameters and
velocities, read from and written back to a builder's part placements."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.rotations import quat_to_matrix
from .compile import Model


def body_state(model: Model, mech: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(r (nb,3) COM in world, p (nb,4), v (nb,3) COM velocity, w (nb,3)) from the parts' placement."""
    r, p, v, w = (np.zeros((model.nb, 3)), np.zeros((model.nb, 4)),
                  np.zeros((model.nb, 3)), np.zeros((model.nb, 3)))
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        arm = quat_to_matrix(part.orientation) @ part.center_of_mass
        r[b] = part.position + arm
        p[b] = part.orientation
        w[b] = part.angular_velocity
        v[b] = part.velocity + np.cross(part.angular_velocity, arm)
    return r, p, v, w


def store_pose(model: Model, mech: Any, r: np.ndarray, p: np.ndarray) -> None:
    """Write body states (COM positions r, quaternions p) back as part-frame placements."""
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        q = p[b] / np.linalg.norm(p[b])
        if q[0] < 0:
            q = -q
        part.orientation = q
        part.position = r[b] - quat_to_matrix(q) @ part.center_of_mass
