"""General motions around a run: a body-fixed 1-2-3 angle set at its singular pose (b2 =
+-90 deg, where b1 and b3 turn about one axis and the angle rows' Jacobian divides by
cos b2: base/rotations.py ``euler_axes``), prescribed or reached; and the efforts of an
actuated motion moved onto its actuators by virtual work (``carry_by_actuators``)."""
from __future__ import annotations

import numpy as np

from ..algebra.newton import scales
from ..base.errors import ExpressionError, SolverError
from ..base.rotations import euler_angles
from ..kernels.constraints import KERNELS, body_arrays, evaluate, global_jacobian, motion_values
from ..model.compile import Model
from ..model.results import Result
from ..model.state import State

# |cos b2| below which a general motion's angles are taken as singular: the rows' Jacobian
# grows as 1 / cos b2, so 1e-6 (b2 within 0.2 arc seconds of +-90 deg) leaves it a million
# times its size; an angle row's residual of 1e-12 rad there moves b1 and b3 by 1e-6 rad
GIMBAL_COS = 1e-6


def angle_motions(model: Model) -> list[tuple[str, str, str]]:
    """(name, marker I, marker J) of every general motion that drives one of its angles."""
    names = set(model.motion_names)
    return [(n, mi, mj) for n, mi, mj, _ in model.general_motions
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


# ---------------------------------------------------------------- actuators
# a singular value below this share of the largest (rows of unit length): no freedom there
RANK_TOL = 1e-8


def _rank(M: np.ndarray) -> np.ndarray:
    """(n,) the rank of each (..., rows, cols) matrix, its rows first made unit length."""
    if M.shape[-2] == 0:
        return np.zeros(M.shape[:-2], int)
    M = M / np.maximum(np.linalg.norm(M, axis=-1, keepdims=True), 1e-300)
    S = np.linalg.svd(M, compute_uv=False)
    return np.count_nonzero(S > RANK_TOL * np.maximum(S[..., :1], 1e-300), axis=-1)


def _global(model: Model, g, jac: np.ndarray) -> np.ndarray:
    """(n, 6 nb) an actuator's coordinate row (RowGroup of one row, Jacobian blocks jac
    (n, 1, 12)) as a row of the dense Jacobian, the ground's blocks dropped."""
    out = np.zeros((len(jac), 6 * model.nb + 6))        # the ground's columns last, cut off
    for end, b in enumerate((int(g.bi[0]), int(g.bj[0]))):
        out[:, 6 * b: 6 * b + 6] += jac[:, 0, 6 * end: 6 * end + 6]
    return out[:, : 6 * model.nb]


def _fail(name: str, labels: tuple, why: str, out: Result, bad: np.ndarray) -> SolverError:
    k = int(np.argmax(bad))
    t = float(out.times[k])
    return SolverError(f"general motion {name!r}: actuators {', '.join(labels)} {why} at t = "
                       f"{t:.6g} s (frame {k})", t, (name,) + tuple(labels), out.truncated(k))


def carry_by_actuators(model: Model, keep: np.ndarray, out: Result) -> None:
    """Move each actuated general motion's effort onto its actuators (Builder
    .add_general_motion), frame by frame in place: by virtual work, the actuators' efforts
    f (along their coordinates, Jacobian rows A) must do the same work as the motion's
    efforts e (rows G) on every motion delta q that the other kept rows (joints, couplers,
    other motions: H) allow, H delta q = 0: (A N)^T f = (G N)^T e with N a basis of H's
    null space, solved exactly when the actuators make the motion's freedoms, one each.
    The difference of the two generalized forces, G^T e - A^T f, is orthogonal to those
    motions, so the other rows carry it: their multipliers change by the least-norm
    solution of H^T d = A^T f - G^T e, the motion's own become zero, and the reactions are
    stored again.  SolverError naming the motion, actuators, time and frame when they are
    too few or too many for the motion's freedoms, cannot move independently (a singular
    pose) or cannot make what the motion does."""
    if not model.actuators or not len(out):
        return
    rg, A = body_arrays(model, out._r, out._p)[:2]
    ev = evaluate(model, rg, A, ref=out.track if model.ntrack else None)
    J = global_jacobian(model, ev.jac)
    cw = scales(model)[1]
    lam = out.multipliers.copy()
    at = 0
    for name, _, _, labels in model.general_motions:
        groups, cols = model.actuators[at: at + len(labels)], slice(at, at + len(labels))
        at += len(labels)
        if not labels:
            continue
        motions = [k for k, m in enumerate(model.motion_names) if m.rsplit(".", 1)[0] == name]
        mine = np.flatnonzero(np.isin(model.row_motion, motions))
        held = np.setdiff1d(keep, mine)
        Hs = J[:, held] / cw
        rank = np.linalg.matrix_rank(Hs[0]) if len(held) else 0
        N = np.swapaxes(np.linalg.svd(Hs)[2][:, rank:, :], -1, -2) / cw[:, None] if len(held) \
            else np.broadcast_to(np.diag(1.0 / cw), (len(out),) + (len(cw),) * 2)
        Aq = np.stack([_global(model, g, _coordinate_jac(model, g, rg, A)) for g in groups], 1)
        G = J[:, mine]
        AN, GN = Aq @ N, G @ N
        freedoms, ra = _rank(GN), _rank(AN)
        if np.any(freedoms > len(labels)):
            raise _fail(name, labels, f"are too few for the {int(freedoms.max())} freedoms the "
                        "motion takes", out, freedoms > len(labels))
        if np.any(freedoms < len(labels)) and np.all(ra == len(labels)):
            raise _fail(name, labels, f"are more than the {int(freedoms.min())} freedoms the "
                        "motion takes (redundant)", out, freedoms < len(labels))
        if np.any(ra < len(labels)):
            raise _fail(name, labels, "cannot move independently (a singular pose, or an "
                        "actuator that the joints or the other motions hold)", out,
                        ra < len(labels))
        both = _rank(np.concatenate([AN, GN], axis=-2))
        if np.any(both > ra):
            raise _fail(name, labels, "cannot make the motion's freedoms", out, both > ra)
        e = out._effort[:, model.row_motion[mine]]
        f = np.einsum("nad,nd->na", np.linalg.pinv(np.swapaxes(AN, -1, -2)),
                      np.einsum("ngd,ng->nd", GN, e))
        carried = np.einsum("na,naq->nq", f, Aq) - np.einsum("ng,ngq->nq", e, G)
        lam[:, held] += np.einsum("nhq,nq->nh", np.linalg.pinv(np.swapaxes(J[:, held], -1, -2)),
                                  carried)
        lam[:, mine] = 0.0
        out._actuator[:, cols] = f
    out.store(slice(None), State(out.times, out._r, out._p, out._v, out._w, out._a, out._alpha),
              lam, ev.jac, out.track if model.ntrack else None)


def _coordinate_jac(model: Model, g, rg: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(n, 1, 12) the Jacobian blocks of an actuator's coordinate row at every frame."""
    phi, jac = np.empty((len(rg), 1)), np.zeros((len(rg), 1, 12))
    KERNELS[g.kind](g, rg, A, None, None, phi, jac, None)
    return jac
