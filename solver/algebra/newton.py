"""Newton's shared pieces: the stopping tolerance, the row scales and column weights that make
residuals and steps comparable across lengths and angles, and the pose update."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.rotations import rotate_world

NEWTON_TOL = 1e-12      # scaled residual (rows in m divided by the length scale)
RANK_TOL = 1e-8         # relative size of a row's new direction to count as independent
COND_LIMIT = 1e10       # 1-norm condition of the scaled Jacobian taken as a lock-up


def scales(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """Row scales (1/m for length rows) and column weights (body length for rotations)."""
    col = np.ones((model.nb, 6))
    col[:, 3:] = model.body_length[:, None]
    return 1.0 / model.row_length, col.reshape(-1)


def step_pose(r: np.ndarray, p: np.ndarray, dq: np.ndarray, alpha: float = 1.0):
    """(r, p) moved by alpha dq, dq = (dr, world rotation) per body (..., nb*6)."""
    d = alpha * dq.reshape(r.shape[:-1] + (6,))
    return r + d[..., :3], rotate_world(p, d[..., 3:])
