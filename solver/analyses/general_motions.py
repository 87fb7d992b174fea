"""General motions' checks around a run: a body-fixed 1-2-3 angle set at its singular
pose (b2 = +-90 deg, where b1 and b3 turn about one axis and the angle rows' Jacobian
divides by cos b2: base/rotations.py ``euler_axes``), prescribed or reached."""
from __future__ import annotations

import numpy as np

from ..base.errors import ExpressionError, SolverError
from ..base.rotations import euler_angles
from ..kernels.constraints import motion_values
from ..model.compile import Model
from ..model.results import Result

# |cos b2| below which a general motion's angles are taken as singular: the rows' Jacobian
# grows as 1 / cos b2, so 1e-6 (b2 within 0.2 arc seconds of +-90 deg) leaves it a million
# times its size; an angle row's residual of 1e-12 rad there moves b1 and b3 by 1e-6 rad
GIMBAL_COS = 1e-6


def angle_motions(model: Model) -> list[tuple[str, str, str]]:
    """(name, marker I, marker J) of every general motion that drives one of its angles."""
    names = set(model.motion_names)
    return [(n, mi, mj) for n, mi, mj in model.general_motions
            if any(f"{n}.{a}" in names for a in ("b1", "b2", "b3"))]


def _singular(name: str, b2: float, t: float, frame: int, result: Result | None) -> SolverError:
    return SolverError(
        f"general motion {name!r}: b2 = {np.degrees(b2):.6g} deg at t = {t:.6g} s (frame "
        f"{frame}) is the body-fixed 1-2-3 angles' singular pose (b2 = +-90 deg: b1 and b3 "
        "turn about one axis there); keep b2 away from +-90 deg, e.g. by turning marker J",
        t, (name,), result)


def check_prescribed_angles(model: Model, times: np.ndarray) -> None:
    """SolverError naming the motion, time and frame where a prescribed b2 is within
    GIMBAL_COS of +-90 deg (checked at every output time before a run)."""
    cols = [(n, model.motion_names.index(f"{n}.b2")) for n, _, _ in angle_motions(model)
            if f"{n}.b2" in model.motion_names]
    if not cols:
        return
    try:
        f = motion_values(model, np.asarray(times, float))[..., 0]        # (S, nmotion)
    except ExpressionError:
        return                        # the run names the failing expression itself
    for name, c in cols:
        bad = np.abs(np.cos(f[:, c])) < GIMBAL_COS
        if bad.any():
            k = int(np.argmax(bad))
            raise _singular(name, float(f[k, c]), float(times[k]), k, None)


def check_reached_angles(model: Model, out: Result) -> None:
    """SolverError (with the frames before) at the first output frame where a general
    motion's I frame stands at b2 = +-90 deg from its J frame: a free b2 that the joints
    carried there."""
    for name, mi, mj in angle_motions(model):
        (_, Ci), (_, Cj) = out.marker_frame(mi), out.marker_frame(mj)
        b, cb = euler_angles(Ci[..., 0], Ci[..., 1], Cj[..., 0], Cj[..., 1])
        bad = cb < GIMBAL_COS
        if bad.any():
            k = int(np.argmax(bad))
            raise _singular(name, float(b[k, 1]), float(out.times[k]), k, out.truncated(k))
